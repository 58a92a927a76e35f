"""What a question gets: what it names (``mentions``), metadata filters (``filters``),
document cards and priors (``cards``, ``priors``), the retriever factory and registry
(``retriever``), the ``auto`` choice (``auto``), delivery (``deliver``) and ``search``."""
