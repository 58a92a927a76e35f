"""Lexical retrieval: BM25 (``bm25``) over segment postings (``postings``), term statistics
(``bm25_stats``), named analyzers (``analyzers``), ``LexicalIndex`` (``lexical``) and RM3
pseudo-relevance feedback (``feedback``)."""
