"""Text analysis every layer shares: normalisation, the tokenizer and ``TextPipeline``
(``analysis``), stemmers (``stem``), financial term expansion (``fin_terms``), the
canonical spelling of document metadata fields (``metadata``), BERT's uncased WordPiece
tokenizer (``wordpiece``) and the bundled BERT vocabulary (``vocab/``). Imports nothing
above ``model``/``files``."""
