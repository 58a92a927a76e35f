"""The persisted index: building it (``build``; its ``config``, each file's ``pieces``, the
generation's statistics in ``assemble``; files found by ``sources``), a generation's files
(``manifest``), reading it (``store``: ``Snapshot`` and ``Index``), its Parquet segments
(``segments``) and the reader/writer locks (``locks``)."""
