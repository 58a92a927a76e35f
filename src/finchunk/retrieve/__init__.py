"""Retrieval: BM25 over chunks (``bm25``), with the normalisation in ``text``."""
