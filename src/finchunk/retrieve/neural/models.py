"""Your own models: a sentence-transformers folder or an OpenAI-compatible endpoint, as an
embedder (``--embedder``) or as a reranker (``FIRST/model@DEPTH`` with ``--reranker``).

A model is named by one string, parsed here and nowhere else (:func:`parse_model`):

* ``PATH`` — a local folder: a sentence-transformers model (an embedder) or a cross-encoder
  (a reranker), loaded with the ``sentence-transformers`` package (``finchunk[st]``).
* ``URL#MODEL`` — an endpoint (``http://127.0.0.1:8000/v1#e5``): embeddings are asked of
  ``URL/embeddings`` in OpenAI's shape (``{"model", "input"}`` →
  ``{"data": [{"index", "embedding"}]}``), rerankings of ``URL/rerank`` in the common one
  (``{"model", "query", "documents"}`` → ``{"results": [{"index", "relevance_score"}]}``).
  ``URL#MODEL,input_type`` also sends ``"input_type": "query"`` or ``"passage"`` (servers of
  asymmetric models such as E5 read it; OpenAI's own API refuses unknown fields). The key, if
  the server wants one, is read from ``$FINCHUNK_API_KEY`` (sent as a bearer token) and is no
  part of the model's name.

An embedder's name is what its vectors are cached (:mod:`finchunk.retrieve.neural.embed_cache`) and
stored in an index under, and what reopens it: for an endpoint ``URL#MODEL[,input_type]``;
for a folder ``st:RESOLVED_PATH#FINGERPRINT``, the fingerprint a digest of every file's
path, size and modification time, so changed weights never read the old weights' vectors
(an index built with them asks to be rebuilt).

Requests go out in batches of :data:`BATCH` texts; a connection error, a timeout, a 429 or
a 5xx answer is retried :data:`TRIES` times in all, waiting :data:`BACKOFF` seconds and
twice as long after each failure; then one line names the endpoint
(:class:`~finchunk.errors.InputError`). Only the standard library speaks HTTP.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from finchunk.errors import InputError
from finchunk.extras import import_extra

#: Texts per request to an embeddings endpoint.
BATCH = 64
#: Attempts per request (the first and its retries).
TRIES = 4
#: Seconds before the first retry; doubled before each next one.
BACKOFF = 0.25
#: Seconds an endpoint may take to answer one request.
TIMEOUT = 120.0
#: The environment variable an endpoint's key is read from.
KEY_ENV = "FINCHUNK_API_KEY"
#: The fragment flag that sends ``input_type``.
INPUT_TYPE = "input_type"
#: How a folder embedder's name starts.
FOLDER_PREFIX = "st:"


def is_endpoint(spec: str) -> bool:
    return spec.strip().lower().startswith(("http://", "https://"))


@dataclass(frozen=True, slots=True)
class Endpoint:
    """An OpenAI-compatible server: its base ``url`` (``http://host:port/v1``), the
    ``model`` asked for, and whether requests carry ``input_type``."""

    url: str
    model: str
    input_type: bool = False

    @classmethod
    def parse(cls, spec: str) -> Endpoint:
        url, _, fragment = spec.strip().partition("#")
        model, _, flag = fragment.partition(",")
        if not model.strip():
            raise InputError(
                f"model endpoint {spec!r}: name the model after the URL, URL#MODEL "
                "(e.g. http://127.0.0.1:8000/v1#e5)"
            )
        if flag.strip() not in ("", INPUT_TYPE):
            raise InputError(
                f"model endpoint {spec!r}: after URL#MODEL only ',{INPUT_TYPE}' may follow"
            )
        return cls(url.rstrip("/"), model.strip(), bool(flag.strip()))

    def __str__(self) -> str:
        return f"{self.url}#{self.model}" + (f",{INPUT_TYPE}" if self.input_type else "")

    def post(self, route: str, payload: dict[str, Any], what: str) -> Any:
        """The JSON answer of ``POST url/route``; retried on connection errors, timeouts,
        429 and 5xx; a clear :class:`InputError` naming the endpoint when it fails."""
        body = json.dumps(payload).encode("utf-8")
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        key = os.environ.get(KEY_ENV, "").strip()
        if key:
            headers["Authorization"] = f"Bearer {key}"
        target = self.url + route
        problem = ""
        for attempt in range(TRIES):
            if attempt:
                time.sleep(BACKOFF * 2 ** (attempt - 1))
            request = urllib.request.Request(target, body, headers, method="POST")
            try:
                with urllib.request.urlopen(request, timeout=TIMEOUT) as response:
                    raw = response.read()
            except urllib.error.HTTPError as exc:
                problem = f"HTTP {exc.code}{_detail(exc)}"
                if exc.code == 429 or exc.code >= 500:
                    continue
                raise InputError(f"{what} endpoint {target}: {problem}") from None
            except (urllib.error.URLError, OSError) as exc:  # refused, unreachable, timeout
                problem = _reason(exc)
                continue
            try:
                return json.loads(raw)
            except ValueError:
                raise InputError(f"{what} endpoint {target}: the answer is not JSON") from None
        raise InputError(f"{what} endpoint {target} is not answering: {problem} ({TRIES} tries)")


def _reason(exc: BaseException) -> str:
    reason = getattr(exc, "reason", None) or exc
    text = getattr(reason, "strerror", None) or str(reason)
    return str(text).strip().rstrip(".").lower() or type(reason).__name__


def _detail(exc: urllib.error.HTTPError) -> str:
    """The server's own message, on one short line."""
    try:
        raw = exc.read().decode("utf-8", "replace")
    except OSError:
        return ""
    try:
        data = json.loads(raw)
        if isinstance(data, dict):
            err = data.get("error", data.get("detail", data.get("message", raw)))
            raw = str(err.get("message", err) if isinstance(err, dict) else err)
    except ValueError:
        pass
    line = " ".join(raw.split())
    return f": {line[:200]}" if line else ""


def normalise_rows(m: np.ndarray) -> np.ndarray:
    m = np.asarray(m, dtype=np.float32)
    norms = np.linalg.norm(m, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return (m / norms).astype(np.float32, copy=False)


# --- embedders ------------------------------------------------------------------------------


class EndpointEmbedder:
    """Vectors from an OpenAI-compatible ``/embeddings`` endpoint (``URL#MODEL``)."""

    def __init__(self, endpoint: Endpoint) -> None:
        self.endpoint = endpoint
        self._dim: int | None = None

    @property
    def name(self) -> str:
        return str(self.endpoint)

    @property
    def dim(self) -> int:
        if self._dim is None:  # the server says it by answering once
            self._embed(["dimension"], "passage")
        assert self._dim is not None
        return self._dim

    def _embed(self, texts: Sequence[str], kind: str) -> np.ndarray:
        parts = [self._request(texts[i : i + BATCH], kind) for i in range(0, len(texts), BATCH)]
        if not parts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.concatenate(parts)

    def _request(self, texts: Sequence[str], kind: str) -> np.ndarray:
        payload: dict[str, Any] = {"model": self.endpoint.model, "input": list(texts)}
        if self.endpoint.input_type:
            payload[INPUT_TYPE] = kind
        answer = self.endpoint.post("/embeddings", payload, "embedding")
        where = f"embedding endpoint {self.endpoint.url}/embeddings"
        try:
            rows = sorted(answer["data"], key=lambda d: int(d["index"]))
            vectors = np.stack([_vector(d["embedding"]) for d in rows])
        except (KeyError, TypeError, ValueError) as exc:
            raise InputError(f"{where}: not an embeddings answer ({exc!r})") from None
        if len(vectors) != len(texts) or vectors.ndim != 2:
            raise InputError(f"{where}: {len(vectors)} vectors for {len(texts)} texts")
        if self._dim is None:
            self._dim = int(vectors.shape[1])
        elif vectors.shape[1] != self._dim:
            raise InputError(f"{where}: {vectors.shape[1]} dimensions, earlier {self._dim}")
        return normalise_rows(vectors)

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return self._embed(texts, "query")

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        return self._embed(texts, "passage")


def _vector(value: Any) -> np.ndarray:
    if isinstance(value, str):  # encoding_format "base64": little-endian float32
        return np.frombuffer(base64.b64decode(value), dtype="<f4").astype(np.float32)
    return np.asarray(value, dtype=np.float32)


def fingerprint(folder: Path) -> str:
    """A digest of every file under ``folder``: relative path, size, modification time."""
    h = hashlib.blake2b(digest_size=8)
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        st = path.stat()
        h.update(
            f"{path.relative_to(folder).as_posix()}\0{st.st_size}\0{st.st_mtime_ns}\n".encode()
        )
    return h.hexdigest()


def model_folder(spec: str, what: str) -> Path:
    """``spec`` (a folder, or a folder embedder's name) as a resolved folder."""
    text = spec.strip()
    if text.startswith(FOLDER_PREFIX):
        text = text[len(FOLDER_PREFIX) :].rpartition("#")[0] or text[len(FOLDER_PREFIX) :]
    folder = Path(text).expanduser()
    if not folder.is_dir():
        raise InputError(f"{what} folder {text}: no such folder")
    return folder.resolve()


@cache
def _load(kind: str, folder: Path, stamp: str) -> Any:
    """A sentence-transformers model (``kind``: SentenceTransformer or CrossEncoder),
    loaded once per process and version of its files (``stamp``)."""
    st = import_extra("sentence_transformers", "st", "a model folder", folder)
    _quiet_loading()
    try:
        return getattr(st, kind)(str(folder), device="cpu", local_files_only=True)
    except Exception as exc:  # a folder that is no such model: say so on one line
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise InputError(f"{folder}: not a sentence-transformers model folder ({first})") from None


def _quiet_loading() -> None:
    """No progress bars while weights load (the CLI draws its own)."""
    try:
        from transformers.utils import logging as hf_logging

        hf_logging.disable_progress_bar()
    except (ImportError, AttributeError):
        pass


class FolderEmbedder:
    """A sentence-transformers model in a local folder. Prompts the model's configuration
    names ``query`` and ``passage`` (or ``document``) are used for each."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._name = f"{FOLDER_PREFIX}{folder}#{fingerprint(folder)}"
        self._model = _load("SentenceTransformer", folder, self._name)
        prompts = getattr(self._model, "prompts", None) or {}
        self._query = "query" if "query" in prompts else None
        self._passage = next((p for p in ("passage", "document") if p in prompts), None)
        dimension = getattr(self._model, "get_embedding_dimension", None) or (
            self._model.get_sentence_embedding_dimension
        )
        self._dim = dimension()

    @property
    def name(self) -> str:
        return self._name

    @property
    def dim(self) -> int:
        if self._dim is None:
            self._dim = int(self._encode(["dimension"], None).shape[1])
        return int(self._dim)

    def _encode(self, texts: Sequence[str], prompt: str | None) -> np.ndarray:
        vectors = self._model.encode(
            list(texts), batch_size=BATCH, show_progress_bar=False, prompt_name=prompt
        )
        return normalise_rows(np.atleast_2d(np.asarray(vectors, dtype=np.float32)))

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return self._encode(texts, self._query)

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        return self._encode(texts, self._passage)


def own_embedder(spec: str) -> EndpointEmbedder | FolderEmbedder:
    """The embedder of a user's own model: an endpoint ``URL#MODEL``, or a folder (its path,
    or a folder embedder's name). The packaged names come first
    (:func:`finchunk.retrieve.neural.dense.make_embedder`): a folder called ``minilm`` is
    ``./minilm``."""
    text = spec.strip()
    if is_endpoint(text):
        return EndpointEmbedder(Endpoint.parse(text))
    return FolderEmbedder(model_folder(text, "embedding model"))


def looks_like_path(spec: str) -> bool:
    s = spec.strip()
    return s.startswith((".", "/", "~")) or os.sep in s or "/" in s


# --- rerankers ------------------------------------------------------------------------------

TextsAt = Callable[[np.ndarray], list[str]]


class CrossEncoderReranker:
    """A sentence-transformers cross-encoder in a local folder scores (question, text)."""

    def __init__(self, folder: Path, texts_at: TextsAt) -> None:
        self._model = _load("CrossEncoder", folder, fingerprint(folder))
        self.texts_at = texts_at

    def score(self, query: str, positions: np.ndarray) -> np.ndarray:
        texts = self.texts_at(positions)
        if not texts:
            return np.zeros(0, dtype=np.float32)
        pairs = [(query, t) for t in texts]
        scores = self._model.predict(pairs, batch_size=32, show_progress_bar=False)
        return np.asarray(scores, dtype=np.float32).reshape(len(texts))


class EndpointReranker:
    """A ``/rerank`` endpoint scores the candidates (one request a question)."""

    def __init__(self, endpoint: Endpoint, texts_at: TextsAt) -> None:
        self.endpoint = endpoint
        self.texts_at = texts_at

    def score(self, query: str, positions: np.ndarray) -> np.ndarray:
        texts = self.texts_at(positions)
        if not texts:
            return np.zeros(0, dtype=np.float32)
        payload = {"model": self.endpoint.model, "query": query, "documents": texts}
        answer = self.endpoint.post("/rerank", payload, "rerank")
        where = f"rerank endpoint {self.endpoint.url}/rerank"
        try:
            found = {int(r["index"]): float(r["relevance_score"]) for r in answer["results"]}
        except (KeyError, TypeError, ValueError) as exc:
            raise InputError(f"{where}: not a rerank answer ({exc!r})") from None
        if not found or not all(0 <= i < len(texts) for i in found):
            raise InputError(f"{where}: results do not index the {len(texts)} documents sent")
        # a server that answers only its top_n: the others rank below, in the first order
        floor = min(found.values()) - 1.0
        return np.array([found.get(i, floor) for i in range(len(texts))], dtype=np.float32)


def make_model_reranker(
    spec: str | None, texts_at: TextsAt
) -> CrossEncoderReranker | EndpointReranker:
    """The reranker ``spec`` names: a cross-encoder folder, or ``URL#MODEL`` (``/rerank``)."""
    if spec is None or not spec.strip():
        raise InputError(
            "reranker 'model' needs a model: --reranker FOLDER (a cross-encoder) or "
            "--reranker URL#MODEL (a /rerank endpoint)"
        )
    if is_endpoint(spec):
        return EndpointReranker(Endpoint.parse(spec), texts_at)
    return CrossEncoderReranker(model_folder(spec, "reranker model"), texts_at)
