"""Other places an index lives or is built: PostgreSQL (``pg_connect`` connecting,
``pg_write`` writing a generation, ``pgstore`` searching it, ``pg_bm25`` its BM25 top-k)
and Dask (``distributed``)."""
