"""finchunk: the retrieval half of financial RAG, measured.

Every chunk is a document id plus character spans into the document's text:
``doc.text[start:end]`` is always the source of a span.
"""

__version__ = "0.1.0"
