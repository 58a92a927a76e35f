"""Retrieval, in sub-packages by concern (lower ones never import higher ones):

- ``base`` (the ``Retriever``/``Reranker`` interface, ``Hits``) and ``kinds`` (retriever,
  reranker and delivery names as enums, importable without numpy);
- ``lexical/``: BM25, its postings and statistics, analyzers, RM3 feedback;
- ``neural/``: embedders, the embedding cache, SPLADE, rerankers, hybrid fusion;
- ``index/``: the persisted index: build, store, segments, locks, sources;
- ``query/``: what a question gets: mentions, filters, document priors, the retriever
  factory, ``auto``, delivery and ``search``;
- ``backends/``: PostgreSQL and Dask."""
