"""Neural retrieval: embedders and ``DenseIndex`` (``dense``), the on-disk embedding cache
(``embed_cache``), your own models (``models``), MiniLM-L3 on ONNX (``onnx_minilm``),
SPLADE in NumPy (``splade``, reading ``safetensors``; its stored document weights in
``splade_impacts``), rerankers (``rerank``) and fusion of lexical and dense rankings
(``hybrid``)."""
