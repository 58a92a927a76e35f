"""Lexical retrieval: BM25 (``bm25``: ``BM25Index``; ``bm25_params``: its parameters, idf and
corpus statistics; ``topk``: top k and MaxScore) over segment postings (``postings``), term
counts for distributed builds (``bm25_stats``), named analyzers (``analyzers``),
``LexicalIndex`` (``lexical``) and RM3 pseudo-relevance feedback (``feedback``)."""
