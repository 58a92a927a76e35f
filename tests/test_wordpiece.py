"""BERT's uncased WordPiece in Python (finchunk.text.wordpiece) gives the ids ``tokenizers``'
``BertWordPieceTokenizer`` gives: every code point it claims to know, in context; questions
and passages in English and Spanish (accents, numbers, currency, punctuation, control and
CJK characters); FinanceBench's questions and evidence where the shared data is present;
random texts. Texts with characters outside its known blocks go to the fallback."""

from __future__ import annotations

import json
from functools import cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from finchunk.errors import InputError
from finchunk.text import wordpiece as wp
from finchunk.text.analysis import ENGLISH_VOCAB

TEXTS = [
    "What is the FY2018 capital expenditure amount (in USD millions) for 3M?",
    "¿Cuál fue el beneficio neto atribuido de Telefónica en 2023, en millones de euros?",
    "Ingresos de Repsol (millones €) 2022 vs. 2021; variación interanual en %.",
    "What was Nestlé's EBITDA margin in FY2023 — 18.5% or 19%? If not available, return 'N/A'.",
    "Revenue was $1,234.5 million (up 12.3%) — see Note 7(b). EPS: $(0.45); 10-K/A #2 @ 3:1",
    "ﬁnancial ﬂows “quoted” ‘single’ … • bullet ÀÉÎÕÜ ñandú façade naïve coöperate",
    "中文 問題 and 日本語 テスト 한국어",
    "tab\there\nnewline\rreturn\x0bvt\x0cff\x85nel\x00nul\x7fdel\u200bzws\ufeffbom\ufffdrepl",
    "ΣΊΣΥΦΟΣ ὈΔΥΣΣΕΎΣ İstanbul Straße ǅemal Ⅻ ①②",
    "x" * 100 + " " + "y" * 101 + " unaffordableness antidisestablishmentarianism",
    "",
    "   \u00a0\u2003\u3000 ",
    "€5bn £3 ¥100 ₹20 ₿0.1 ±2% ≥ 3 ½ ¾ ² ³ ™ © ®",
    "El EBITDA ajustado alcanzó 4.321 M€ (+7,8 %) frente a 2022 — según la nota 12.",
    "emoji 🚀📈 end",
]


@cache
def _reference():
    implementations = pytest.importorskip("tokenizers.implementations")
    tok = implementations.BertWordPieceTokenizer(str(ENGLISH_VOCAB), lowercase=True)
    return lambda texts: [e.ids for e in tok.encode_batch(list(texts), add_special_tokens=False)]


@cache
def _ours() -> wp.WordPiece:
    return wp.WordPiece.read(ENGLISH_VOCAB)  # no fallback: every text in Python


@pytest.fixture(scope="module")
def ours() -> wp.WordPiece:
    return _ours()


@pytest.fixture(scope="module")
def theirs():
    return _reference()


def _same(ours: wp.WordPiece, theirs, texts: list[str]) -> None:
    expected = theirs(texts)
    differ = [t for t, e in zip(texts, expected, strict=True) if ours.encode(t) != e]
    assert not differ, f"{len(differ)} of {len(texts)} differ, first: {differ[:3]!r}"


def test_every_known_code_point_splits_as_tokenizers_does(ours, theirs) -> None:
    texts = [
        f"x{c}y {c}a{c}"
        for lo, hi in wp.KNOWN
        for c in map(chr, range(lo, hi + 1))
        if not 0xD800 <= ord(c) <= 0xDFFF
    ]
    _same(ours, theirs, texts)


def test_questions_and_passages_split_as_tokenizers_does(ours, theirs) -> None:
    _same(ours, theirs, TEXTS)


def test_financebench_texts_split_as_tokenizers_does(ours, theirs, shared_data) -> None:
    texts: list[str] = []

    def strings(value: object) -> None:
        if isinstance(value, str):
            texts.append(value)
        elif isinstance(value, dict):
            for v in value.values():
                strings(v)
        elif isinstance(value, list):
            for v in value:
                strings(v)

    path = shared_data / "financebench" / "financebench_open_source.jsonl"
    with path.open(encoding="utf-8") as f:
        for line in f:
            strings(json.loads(line))  # questions, answers, justifications, evidence pages
    assert len(texts) > 1000
    _same(ours, theirs, texts)


_KNOWN_CHARS = st.one_of(
    *(st.characters(min_codepoint=lo, max_codepoint=hi) for lo, hi in wp.KNOWN)
)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(_KNOWN_CHARS, st.sampled_from(" .,$%-'")), max_size=60))
def test_random_texts_split_as_tokenizers_does(chars) -> None:
    _same(_ours(), _reference(), ["".join(chars)])


def test_a_character_outside_the_known_blocks_goes_to_the_fallback() -> None:
    seen: list[str] = []

    def fallback(text: str) -> list[int]:
        seen.append(text)
        return [7]

    tok = wp.WordPiece.read(ENGLISH_VOCAB, fallback)
    assert tok.encode("capex in 2024") != [7]
    assert tok.encode("Nestlé ﬁnancial €") != [7]
    assert tok.encode("profit x\u0890y") == [7]  # ARABIC POUND MARK ABOVE (Unicode 14)
    assert seen == ["profit x\u0890y"]
    assert wp.known("Nestlé €") and not wp.known("\u0890")


def test_the_vocabulary_file(tmp_path) -> None:
    path = tmp_path / "vocab.txt"
    path.write_text("[PAD]\n[UNK]\nab \n##c\nab\n", encoding="utf-8")
    tok = wp.WordPiece.read(path)
    assert len(tok) == 4  # "ab" twice: its last line's id
    assert tok.token_to_id("ab") == 4 and tok.token_to_id("[UNK]") == 1
    assert tok.encode("ABC abd") == [4, 3, 1]
    path.write_text("[PAD]\nab\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"vocab\.txt: a WordPiece vocabulary without \[UNK\]"):
        wp.WordPiece.read(path)
    path.write_bytes(b"[UNK]\n\xff\n")
    with pytest.raises(InputError, match=r"vocab\.txt: not a UTF-8 vocabulary"):
        wp.WordPiece.read(path)
