"""The persisted index: building it (``build``, from ``sources``), reading it (``store``),
its Parquet segments (``segments``) and the reader/writer locks (``locks``)."""
