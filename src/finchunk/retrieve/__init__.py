"""Retrieval: retrievers behind one interface (``base``) and one factory (``retriever``):
BM25 over a text pipeline (``bm25``, ``lexical``, ``analyzers``, ``text``), dense
(``dense``, with an on-disk embedding cache in ``embed_cache``), fusion (``hybrid``),
rerankers (``rerank``), document priors (``cards``, ``priors``); what a question names
(``mentions``) and metadata filters (``filters``); what gets delivered (``deliver``); the
persisted index (``build``, ``store``) and ``search``."""
