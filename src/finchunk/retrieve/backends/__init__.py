"""Other places an index lives or is built: PostgreSQL (``pg_connect`` connecting,
``pg_write`` writing a generation, ``pgstore`` searching it) and Dask (``distributed``)."""
