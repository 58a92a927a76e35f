"""What a question gets: what it names (``mentions``) and the information need apart from
the instructions (``need``), metadata filters (``filters``), document cards and priors
(``cards``, ``priors``), text sources (``texts``; an opened index's in ``stored``), the
retriever factory and registry (``retriever``), the ``auto`` choice (``auto``), the one
query plan made and run for every command (``plan``), delivery (``deliver``; evidence
within a budget in ``evidence`` and ``evidence_units``) and ``search``."""
