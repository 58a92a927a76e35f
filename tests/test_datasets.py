"""Invariants of the sample-corpus generator (finchunk.datasets)."""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from decimal import Decimal

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from finchunk.datasets import (
    DocType,
    PassageType,
    QuestionType,
    SampleConfig,
    SampleCorpus,
    expected_question_counts,
    generate,
    read_lesson_files,
    write_lesson_files,
)
from finchunk.datasets.funds import fund_name
from finchunk.datasets.issuers import issuer_name
from finchunk.datasets.spanish import num, pct, slug
from finchunk.errors import InputError

SUPERSCRIPT = "⁰¹²³⁴⁵⁶⁷⁸⁹"
MARK = re.compile(f"[{SUPERSCRIPT}]+")
UNIT_BEFORE = re.compile(r"\b[kcd]?m$")  # m², km², cm³: unit exponents, not note marks
NOTE_START = re.compile(rf"^(?:[{SUPERSCRIPT}]+ |Nota \d+\. )")
LIST_START = re.compile(r"^(?:- |\d+\. )")

DEFAULT = SampleConfig()
VARIED = SampleConfig(issuers=3, years=3, funds=12, notes=4, seed=7, last_year=2021)


@pytest.fixture(scope="module")
def default() -> SampleCorpus:
    return generate(DEFAULT)


@pytest.fixture(scope="module", params=[DEFAULT, VARIED], ids=["default", "varied"])
def corpus(request: pytest.FixtureRequest) -> SampleCorpus:
    return generate(request.param)


def _by_doc(corpus: SampleCorpus) -> dict[str, list]:
    out: dict[str, list] = defaultdict(list)
    for p in corpus.passages:
        out[p.id_doc].append(p)
    return out


# --- sizes ------------------------------------------------------------------------------


def test_default_size_is_the_lessons(default: SampleCorpus) -> None:
    kinds = Counter(d.tipo for d in default.documents)
    assert kinds == {
        DocType.INFORME_ANUAL: 8,
        DocType.FOLLETO: 5,
        DocType.KID: 5,
        DocType.NOTA_ANALISIS: 3,
    }
    assert 900 <= len(default.passages) <= 1000
    assert 250 <= len(default.questions) <= 270
    assert set(Counter(p.tipo for p in default.passages)) == set(PassageType)


@pytest.mark.parametrize("config", [DEFAULT, VARIED, SampleConfig(issuers=2, years=1, funds=1)])
def test_question_types_and_counts_as_configured(config: SampleConfig) -> None:
    c = generate(config)
    got = Counter(q.tipo_pregunta for q in c.questions)
    want = {t: n for t, n in expected_question_counts(config).items() if n}
    assert dict(got) == want
    assert len(c.documents) == config.documents


def test_default_counts_by_type(default: SampleCorpus) -> None:
    got = Counter(str(q.tipo_pregunta) for q in default.questions)
    assert got == {
        "texto": 72,
        "tabla": 61,
        "nota_pie": 32,
        "texto_y_nota": 21,
        "tabla_y_nota": 21,
        "calculo": 24,
        "comparacion": 17,
        "no_respondible": 16,
    }


# --- passages ---------------------------------------------------------------------------


def test_passages_tile_the_blocks_with_exact_offsets(corpus: SampleCorpus) -> None:
    by_doc = _by_doc(corpus)
    assert set(by_doc) == {d.id_doc for d in corpus.documents}
    for doc in corpus.documents:
        text = doc.texto
        passages = by_doc[doc.id_doc]
        assert [p.inicio for p in passages] == sorted(p.inicio for p in passages)
        covered = bytearray(len(text))
        previous_end = 0
        for p in passages:
            piece = text[p.inicio : p.fin]
            assert piece and piece == piece.strip(), p.id_pasaje
            assert "\n\n" not in piece, p.id_pasaje
            assert p.inicio >= previous_end, f"{p.id_pasaje} overlaps the previous passage"
            assert text[previous_end : p.inicio].strip() == "", p.id_pasaje
            covered[p.inicio : p.fin] = b"\x01" * (p.fin - p.inicio)
            previous_end = p.fin
        outside = "".join(ch for ch, c in zip(text, covered, strict=True) if not c)
        assert outside.strip() == "", doc.id_doc


def test_passage_ids_are_unique_and_stable(corpus: SampleCorpus) -> None:
    ids = [p.id_pasaje for p in corpus.passages]
    assert len(ids) == len(set(ids))
    assert all(i.startswith(f"{p.id_doc}-p") for i, p in zip(ids, corpus.passages, strict=True))


def test_passage_kind_matches_its_text(corpus: SampleCorpus) -> None:
    for p in corpus.passages:
        piece = corpus.passage_text(p)
        match p.tipo:
            case PassageType.TITULO:
                assert re.match(r"^#{1,6} \S", piece), p.id_pasaje
            case PassageType.TABLA:
                lines = piece.split("\n")
                assert all(ln.startswith("| ") and ln.endswith(" |") for ln in lines)
                assert re.fullmatch(r"\|(?: -+:? \|)+", lines[1]), p.id_pasaje
            case PassageType.LISTA:
                assert all(LIST_START.match(ln) for ln in piece.split("\n")), p.id_pasaje
            case PassageType.NOTA:
                assert NOTE_START.match(piece), p.id_pasaje
            case PassageType.TEXTO:
                assert not NOTE_START.match(piece) and not LIST_START.match(piece)
                assert not piece.startswith(("#", "|")), p.id_pasaje


def test_every_note_mark_has_its_note_in_the_same_document(corpus: SampleCorpus) -> None:
    by_doc = _by_doc(corpus)
    for doc in corpus.documents:
        defined: set[str] = set()
        cited: Counter[str] = Counter()
        for p in by_doc[doc.id_doc]:
            piece = corpus.passage_text(p)
            if p.tipo is PassageType.NOTA and piece[0] in SUPERSCRIPT:
                defined.add(MARK.match(piece).group())
                continue
            for m in MARK.finditer(piece):
                if not UNIT_BEFORE.search(piece[: m.start()]):
                    cited[m.group()] += 1
        assert set(cited) <= defined, doc.id_doc
        assert defined <= set(cited), f"{doc.id_doc}: a footnote nobody cites"


def test_annual_reports_carry_the_lessons_traps(default: SampleCorpus) -> None:
    for doc in default.documents:
        if doc.tipo is not DocType.INFORME_ANUAL:
            continue
        text = doc.texto
        assert " m² " in text  # a unit exponent beside a real note ²
        assert "\n² " in text
        # note ² is cited by two blocks (the letter and the key-figures table)
        blocks_citing_2 = [b for b in text.split("\n\n") if "²" in b and "m²" not in b]
        assert len([b for b in blocks_citing_2 if not b.startswith("²")]) == 2
        # "Nota 1." is cited by the footnote ¹ and by a paragraph in another section
        assert text.count("(véase la Nota 1)") == 2
        assert "\n\nNota 1. Arrendamientos." in text
        assert "| Millones de euros |" in text
        # the shared template: the key-figures row names neither company nor year
        assert re.search(r"\n\| Importe neto de la cifra de negocios \| [\d.,-]+ \|", text)


def test_long_tables_and_kid_sections(default: SampleCorpus) -> None:
    for doc in default.documents:
        if doc.tipo is DocType.FOLLETO:
            tables = [t for t in doc.texto.split("\n\n") if t.startswith("| Valor |")]
            assert len(tables) == 1 and tables[0].count("\n") >= 31
        if doc.tipo is DocType.KID:
            assert "## ¿Cuáles son los costes?" in doc.texto
            assert re.search(r"clase de riesgo [1-7] en una escala de 1 a 7", doc.texto)
            assert "Gastos corrientes³" in doc.texto


# --- questions --------------------------------------------------------------------------


def test_gold_passages_exist_in_the_questions_documents(corpus: SampleCorpus) -> None:
    passages = {p.id_pasaje: p for p in corpus.passages}
    docs = {d.id_doc for d in corpus.documents}
    for q in corpus.questions:
        assert q.id_doc and set(q.id_doc) <= docs, q.id_pregunta
        for pid in q.pasajes_oro:
            assert pid in passages, (q.id_pregunta, pid)
            assert passages[pid].id_doc in q.id_doc, (q.id_pregunta, pid)


def test_gold_answers_appear_in_their_gold_passages(corpus: SampleCorpus) -> None:
    passages = {p.id_pasaje: p for p in corpus.passages}
    for q in corpus.questions:
        if not q.respondible:
            continue
        texts = [corpus.passage_text(passages[pid]) for pid in q.pasajes_oro]
        assert q.evidencia and q.respuesta_oro, q.id_pregunta
        for e in q.evidencia:
            assert any(e in t for t in texts), (q.id_pregunta, e)
        for t in texts:  # every gold passage is needed
            assert any(e in t for e in q.evidencia), (q.id_pregunta, t[:60])
        if q.tipo_pregunta not in (QuestionType.CALCULO, QuestionType.COMPARACION):
            for e in q.evidencia:
                assert e in q.respuesta_oro, (q.id_pregunta, e, q.respuesta_oro)


GOLD_KINDS = {
    QuestionType.TEXTO: [{PassageType.TEXTO, PassageType.LISTA}],
    QuestionType.TABLA: [{PassageType.TABLA}],
    QuestionType.NOTA_PIE: [{PassageType.NOTA}],
    QuestionType.TEXTO_Y_NOTA: [{PassageType.TEXTO}, {PassageType.NOTA}],
    QuestionType.TABLA_Y_NOTA: [{PassageType.TABLA}, {PassageType.NOTA}],
}


def test_gold_passage_kinds_fit_the_question_type(corpus: SampleCorpus) -> None:
    passages = {p.id_pasaje: p for p in corpus.passages}
    for q in corpus.questions:
        kinds = [passages[pid].tipo for pid in q.pasajes_oro]
        if q.tipo_pregunta in GOLD_KINDS:
            want = GOLD_KINDS[q.tipo_pregunta]
            assert len(kinds) == len(want), q.id_pregunta
            assert all(k in w for k, w in zip(kinds, want, strict=True)), q.id_pregunta
        elif q.tipo_pregunta is QuestionType.CALCULO:
            assert PassageType.TABLA in kinds or PassageType.TEXTO in kinds
        elif q.tipo_pregunta is QuestionType.COMPARACION:
            docs = {passages[pid].id_doc for pid in q.pasajes_oro}
            assert len(q.pasajes_oro) == 2 and len(docs) == 2, q.id_pregunta


def test_unanswerable_questions_have_no_gold(corpus: SampleCorpus) -> None:
    for q in corpus.questions:
        unanswerable = q.tipo_pregunta is QuestionType.NO_RESPONDIBLE
        assert q.respondible is not unanswerable
        assert (not q.pasajes_oro) is unanswerable, q.id_pregunta


def test_questions_name_the_entity_and_a_year(corpus: SampleCorpus) -> None:
    docs = {d.id_doc: d for d in corpus.documents}
    for q in corpus.questions:
        names = {docs[i].emisor for i in q.id_doc}
        assert any(n in q.pregunta for n in names), q.pregunta
        assert re.search(r"\b(19|20)\d\d\b", q.pregunta), q.pregunta


def test_questions_paraphrase_rather_than_copy(corpus: SampleCorpus) -> None:
    """No five-word run of a question (its entity name removed) is copied from its gold."""
    passages = {p.id_pasaje: p for p in corpus.passages}
    docs = {d.id_doc: d for d in corpus.documents}
    copied = 0
    for q in corpus.questions:
        question = q.pregunta
        for i in q.id_doc:
            question = question.replace(docs[i].emisor, " ")
        words = re.findall(r"\w+", question.lower())
        runs = {" ".join(words[k : k + 5]) for k in range(len(words) - 4)}
        gold = " ".join(
            re.findall(r"\w+", " ".join(corpus.passage_text(passages[p]) for p in q.pasajes_oro))
        ).lower()
        copied += any(r in gold for r in runs)
    assert copied <= len(corpus.questions) // 20


def test_question_ids_unique_and_ordered(corpus: SampleCorpus) -> None:
    ids = [q.id_pregunta for q in corpus.questions]
    assert ids == sorted(ids) and len(set(ids)) == len(ids)


# --- determinism, files, progress ---------------------------------------------------------


def test_same_seed_same_corpus_other_seed_other_figures() -> None:
    a, b = generate(SampleConfig(seed=3)), generate(SampleConfig(seed=3))
    assert a == b
    assert [d.texto for d in a.documents] == [d.texto for d in b.documents]
    other = generate(SampleConfig(seed=4))
    assert [d.id_doc for d in other.documents] == [d.id_doc for d in a.documents]
    assert [d.texto for d in other.documents] != [d.texto for d in a.documents]


def test_a_document_does_not_change_when_the_corpus_grows() -> None:
    small = generate(SampleConfig(issuers=2, years=1, funds=1, notes=0))
    big = generate(SampleConfig(issuers=5, years=1, funds=3, notes=2))
    texts = {d.id_doc: d.texto for d in big.documents}
    for d in small.documents:
        assert texts[d.id_doc] == d.texto


def test_written_files_round_trip_and_are_byte_identical(tmp_path, default) -> None:
    first = write_lesson_files(default, tmp_path / "a")
    second = write_lesson_files(generate(DEFAULT), tmp_path / "b")
    for x, y in zip(
        (first.documents, first.passages, first.questions),
        (second.documents, second.passages, second.questions),
        strict=True,
    ):
        assert x.read_bytes() == y.read_bytes(), x.name
    back = read_lesson_files(tmp_path / "a")
    assert back == default
    header = first.questions.read_text(encoding="utf-8").split("\n", 1)[0]
    assert (
        header == "id_pregunta,pregunta,respuesta_oro,pasajes_oro,tipo_pregunta,respondible,id_doc"
    )


def test_written_tables_have_the_lesson_columns(tmp_path, default) -> None:
    import pyarrow.parquet as pq

    files = write_lesson_files(default, tmp_path)
    docs = pq.read_table(files.documents)
    assert docs.column_names == ["id_doc", "titulo", "tipo", "texto", "emisor", "anio", "idioma"]
    assert set(docs.column("idioma").to_pylist()) == {"es"}
    passages = pq.read_table(files.passages)
    assert passages.column_names == ["id_pasaje", "id_doc", "seccion", "tipo", "inicio", "fin"]
    text = files.questions.read_text(encoding="utf-8")
    assert ",false," in text and ",true," in text and "\r" not in text


def test_reading_bad_files_names_the_file(tmp_path, default) -> None:
    with pytest.raises(InputError, match="documents.parquet"):
        read_lesson_files(tmp_path)
    files = write_lesson_files(default, tmp_path)
    csv_text = files.questions.read_text(encoding="utf-8")
    files.questions.write_text(csv_text.replace(",true,", ",quizá,", 1), encoding="utf-8")
    with pytest.raises(InputError, match=r"questions\.csv \(line 2\).*respondible"):
        read_lesson_files(tmp_path)
    files.questions.write_text("id_pregunta,pregunta\n", encoding="utf-8")
    with pytest.raises(InputError, match="missing column"):
        read_lesson_files(tmp_path)


def test_progress_callback_counts_documents() -> None:
    calls: list[tuple[int, int]] = []
    config = SampleConfig(issuers=2, years=2, funds=2, notes=1)
    generate(config, on_document=lambda done, total: calls.append((done, total)))
    assert calls == [(k, 9) for k in range(1, 10)]


@pytest.mark.parametrize(
    "kwargs",
    [{"issuers": -1}, {"years": 0}, {"issuers": 0, "notes": 1}, {"funds": 1.5}],
)
def test_bad_config_is_an_input_error(kwargs) -> None:
    with pytest.raises(InputError):
        SampleConfig(**kwargs)


def test_any_reporting_year_works() -> None:
    c = generate(SampleConfig(issuers=1, years=3, funds=1, notes=1, last_year=1995))
    assert {d.anio for d in c.documents} == {1993, 1994, 1995}
    assert "Informe anual 1993" in c.documents[0].titulo


def test_empty_and_funds_only_configs() -> None:
    assert generate(SampleConfig(issuers=0, funds=0, notes=0)).documents == []
    only_funds = generate(SampleConfig(issuers=0, funds=1, notes=0))
    assert {d.tipo for d in only_funds.documents} == {DocType.FOLLETO, DocType.KID}


# --- scale ------------------------------------------------------------------------------


def test_names_stay_unique_at_scale() -> None:
    issuers = [issuer_name(i)[0] for i in range(3000)]
    assert len({slug(n) for n in issuers}) == 3000
    funds = [fund_name(i)[0] for i in range(1000)]
    assert len(set(funds)) == 1000
    # the default issuers each get a different sector
    assert len({issuer_name(i)[1].word for i in range(8)}) == 8


def test_scaled_config_keeps_ids_unique() -> None:
    c = generate(SampleConfig(issuers=30, years=3, funds=25, notes=40, seed=11))
    assert len({d.id_doc for d in c.documents}) == len(c.documents) == 30 * 3 + 50 + 40
    assert len({q.id_pregunta for q in c.questions}) == len(c.questions)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), issuers=st.integers(1, 3), funds=st.integers(0, 3))
def test_invariants_hold_for_any_seed(seed: int, issuers: int, funds: int) -> None:
    c = generate(SampleConfig(issuers=issuers, years=2, funds=funds, notes=1, seed=seed))
    passages = {p.id_pasaje: p for p in c.passages}
    for q in c.questions:
        texts = [c.passage_text(passages[pid]) for pid in q.pasajes_oro]
        assert all(any(e in t for t in texts) for e in q.evidencia), q.id_pregunta
    for p in c.passages:
        piece = c.passage_text(p)
        assert piece == piece.strip() and piece


# --- Spanish formatting -----------------------------------------------------------------


def test_spanish_number_format() -> None:
    assert num(Decimal("13668.9")) == "13.668,9"
    assert num(Decimal("-1234.56"), 2) == "-1.234,56"
    assert num(12450, 0) == "12.450"
    assert num(Decimal("0.05"), 1) == "0,1"  # half up, not banker's rounding
    assert pct(Decimal("4.2")) == "4,2 %"
    assert slug("Aurora Energía Global 2") == "aurora-energia-global-2"


def test_a_corpus_too_large_to_build_in_memory_is_refused_at_once() -> None:
    # 200M documents grew ~90 MB/s with nothing written until the machine ran out
    with pytest.raises(InputError, match=r"200,000,011 documents asked for, at most 100,000"):
        SampleConfig(issuers=99_999_999)
    assert SampleConfig(issuers=9_998, years=10).documents == 99_993  # under the cap: fine
