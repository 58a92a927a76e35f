"""Other places an index lives or is built: PostgreSQL (``pgstore``) and Dask
(``distributed``)."""
