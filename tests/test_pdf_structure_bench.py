"""The scoring of bench/pdf_structure.py on synthetic readings: the measures mean what the
bench's README says they mean. Chromium and the peers are not needed here."""

from __future__ import annotations

import importlib.util
import itertools
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

_PATH = Path(__file__).resolve().parents[1] / "bench" / "pdf_structure.py"
_spec = importlib.util.spec_from_file_location("pdf_structure_bench", _PATH)
ps = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = ps  # dataclasses look their module up while the class is built
_spec.loader.exec_module(ps)

Reading = ps.Reading


def test_headings_match_after_folding_case_punctuation_and_whitespace():
    gold = [("PART I — FINANCIAL INFORMATION", 1), ("Item 1. Financial Statements", 2)]
    pred = [("Part I - Financial\nInformation", 1), ("ITEM 1 FINANCIAL STATEMENTS", 2)]
    c = ps.heading_counts(gold, pred)
    assert (c["gold"], c["pred"], c["matched"]) == (2, 2, 2)
    s = ps.summarise(ps.score(Reading(headings=gold), Reading(headings=pred)))
    assert s["heading_f1"] == 1.0 and s["heading_level_agreement"] == 1.0


def test_heading_precision_recall_f1_and_duplicates_matched_once():
    gold = [("Apple Inc.", 3), ("Note 1", 3), ("Note 2", 3), ("Apple Inc.", 3)]
    pred = [("Apple Inc.", 3), ("Note 1", 3), ("Three Months Ended", 3)]
    s = ps.summarise(ps.score(Reading(headings=gold), Reading(headings=pred)))
    assert s["heading_precision"] == pytest.approx(2 / 3)
    assert s["heading_recall"] == pytest.approx(2 / 4)
    p, r = 2 / 3, 2 / 4
    assert s["heading_f1"] == pytest.approx(2 * p * r / (p + r))
    # a merged heading ("A\nB" for "A" and "B") matches neither
    c = ps.heading_counts([("A title", 1), ("B title", 2)], [("A title B title", 1)])
    assert c["matched"] == 0


def test_heading_levels_agree_by_direction_not_by_number():
    gold = [("Part I", 1), ("Item 1", 2), ("Item 2", 2), ("Part II", 1)]
    same_shape = [("Part I", 2), ("Item 1", 5), ("Item 2", 5), ("Part II", 2)]
    c = ps.heading_counts(gold, same_shape)
    assert (c["level_steps"], c["level_same"], c["level_exact"]) == (3, 3, 0)
    flat = [(t, 1) for t, _ in gold]
    c = ps.heading_counts(gold, flat)
    assert (c["level_steps"], c["level_same"], c["level_exact"]) == (3, 1, 2)


def test_markdown_tables_and_plain_line_tables_are_both_read():
    md = (
        "Statement\n| | 2024 | 2023 |\n| --- | --- | --- |\n| Sales | $ 1 | 2 |\n| Cost | (3) | 4 |"
    )
    grid = [["", "2024", "2023"], ["Sales", "$ 1", "2"], ["Cost", "(3)", "4"]]
    assert ps.element_grid(md) == grid
    plain = "Sales $ 1 2\nCost (3) 4\n"
    assert ps.element_grid(plain) == [["Sales $ 1 2"], ["Cost (3) 4"]]
    assert ps.md_cells(r"| a \| b | c |") == ["a | b", "c"]
    text = f"intro\n\n{md}\n\nmiddle\n| x | y |\n| --- | --- |\n\n| single |\n"
    tables = ps.md_tables(text)
    assert [ps.shape(t) for t in tables] == [(3, 3), (1, 2)]  # a lone "| single |" is no table


def test_compact_drops_empty_rows_and_columns_and_merges_symbols_like_the_html_parser():
    grid = [
        ["Sales", "$", "66,613", "", "$", "61,564"],
        [None, "", "", "", "", ""],
        ["Cost", "(", "3", ")", "", "4"],
        ["Margin", "", "12", "%", "", "8%"],
    ]
    assert ps.compact(grid) == [
        ["Sales", "$66,613", "$61,564"],
        ["Cost", "(3)", "4"],
        ["Margin", "12%", "8%"],
    ]


def test_tables_found_equal_shape_and_cell_agreement():
    g1 = [["", "2024", "2023"], ["Sales", "$1,000", "$900"], ["Cost", "(300)", "(250)"]]
    g2 = [["Name", "Age"], ["Alice Smith", "41"], ["Bob Jones", "52"]]
    g3 = [["Cash", "10"], ["Debt", "20"]]  # the PDF lost it
    same = [row[:] for row in g1]
    lines = [["Alice Smith 41"], ["Bob Jones 52"]]  # rows as lines, one column
    noise = [["Unrelated", "table"], ["with", "words"]]
    c = ps.table_counts([g1, g2, g3], [noise, lines, same])
    assert (c["gold"], c["pred"], c["found"], c["equal_shape"]) == (3, 3, 2, 1)
    assert c["rows_equal"] == 1 and c["cols_equal"] == 1
    # g1's 8 cells all found; g2's 6 cells: none is a whole line; g3's 4 cells lost
    assert (c["cells"], c["cells_found"]) == (18, 8)
    s = ps.summarise(ps.score(Reading(tables=[g1, g2, g3]), Reading(tables=[noise, lines, same])))
    assert s["tables_found"] == pytest.approx(2 / 3)
    assert s["tables_equal_shape"] == pytest.approx(1 / 3)
    assert s["cell_agreement"] == pytest.approx(8 / 18)


def test_each_pred_table_matches_one_gold_table_and_needs_half_the_words():
    g = [["Revenue", "10"], ["Income", "5"]]
    c = ps.table_counts([g, [r[:] for r in g]], [[r[:] for r in g]])
    assert c["found"] == 1
    assert ps.match_tables([g], [[["Revenue", "99"], ["Other", "7"]]]) == [None]  # 1/4 shared
    assert ps.match_tables([g], [[["Revenue", "10"], ["Other", "7"]]]) == [0]  # 2/4 shared


def test_chars_present_counts_gold_characters_the_pred_text_holds():
    gold = "Net sales $ 1,234 increased."
    assert ps.char_counts(gold, "NET SALES $1,234\nincreased .")["chars_present"] == len(
        "Netsales$1,234increased."
    )
    c = ps.char_counts(gold, "Net sales increased.")  # the number is lost
    assert c["chars"] == 24 and c["chars_present"] == 24 - len("$1,234")
    # a split word is a lost word
    c = ps.char_counts("Business", "Busines s")
    assert c["chars_present"] == 0
    # extra text in the PDF costs nothing; repeated gold tokens need repeats
    assert ps.char_counts("total total", "total header footer")["chars_present"] == 5
    # table markup is not text
    t = ps.content_text("| a | b |\n| --- | --- |\n| 1 | 2 |")
    assert t.split() == ["a", "b", "1", "2"]
    # the HTML's merged header repeats a spanning header over its columns; printed once
    md = "| | Months Ended 2025 | Months Ended 2024 |\n| --- | --- | --- |\n| x | Ended | 1 |"
    assert ps.content_text(md, once_in_header=True).split() == [
        "Months", "Ended", "2025", "2024", "x", "Ended", "1"
    ]


def test_reading_order_anchors_lis_and_tau():
    words = [f"word{i:03d}" for i in range(40)]
    gold = " ".join(words)
    same = ps.order_counts(gold, " ".join(words))
    assert same["anchors"] == 40 and same["in_order"] == 40 and same["discordant"] == 0
    swapped = words[20:] + words[:20]  # two columns read in the wrong order
    c = ps.order_counts(gold, " ".join(swapped))
    assert c["in_order"] == 20 and c["discordant"] == 400
    s = ps.summarise(ps.score(Reading(text=gold), Reading(text=" ".join(reversed(words)))))
    assert s["order_tau"] == -1.0 and s["order_lis"] == pytest.approx(1 / 40)
    # words seen twice are no anchors
    assert ps.order_counts("alpha alpha beta", "alpha beta alpha")["anchors"] == 1


@given(st.lists(st.integers(-50, 50), max_size=30))
def test_inversions_and_lis_agree_with_brute_force(seq):
    brute_inv = sum(1 for i, j in itertools.combinations(range(len(seq)), 2) if seq[i] > seq[j])
    assert ps.inversions(seq) == brute_inv
    ending = []  # the longest increasing run ending at each position (quadratic DP)
    for i, x in enumerate(seq):
        ending.append(1 + max((ending[j] for j in range(i) if seq[j] < x), default=0))
    assert ps.lis_length(seq) == max(ending, default=0)


def test_counts_add_over_files_then_divide():
    a = ps.score(Reading(headings=[("A", 1)], text="alpha"), Reading(headings=[("A", 1)], pages=2))
    b = ps.score(Reading(headings=[("B", 1)], text="beta"), Reading(headings=[("C", 1)], pages=3))
    a["seconds"], b["seconds"] = 1.0, 4.0
    total = ps.add_counts([a, b])
    assert total["headings"]["gold"] == 2 and total["headings"]["matched"] == 1
    s = ps.summarise(total)
    assert s["heading_f1"] == 0.5 and s["pages_per_s"] == 1.0
    assert s["tables_found"] is None  # no gold tables: no share


def test_reading_of_markdown_takes_hash_headings_and_pipe_tables():
    md = (
        "# **Annual Report**\n\nSome _body_ text.\n\n## Item 7. MD&A\n\n"
        "|Year|Sales<br>net|\n|---|---|\n|2024|**1,000**|\n"
    )
    r = ps.reading_of_markdown(md, pages=1, seconds=0.5)
    assert r.headings == [("Annual Report", 1), ("Item 7. MD&A", 2)]
    assert r.tables == [[["Year", "Sales net"], ["2024", "1,000"]]]
    assert "**" not in r.text and "|" not in r.text and "body text" in r.text


def test_reading_of_a_finchunk_document_reads_markdown_and_line_tables():
    from finchunk.model import Document, Element, ElementKind

    parts = [
        (ElementKind.HEADING, "Item 8. Statements", 2),
        (ElementKind.TABLE, "| | 2024 |\n| --- | --- |\n| Sales | 10 |", 0),
        (ElementKind.TABLE, "Sales 10 9\nCost 4 3", 0),
        (ElementKind.TEXT, "Body.", 0),
    ]
    text, elements, pos = "", [], 0
    for kind, t, level in parts:
        if text:
            text += "\n\n"
            pos += 2
        elements.append(Element(kind, pos, pos + len(t), level))
        text += t
        pos += len(t)
    r = ps.reading_of_document(Document(id="d", text=text, elements=tuple(elements)))
    assert r.headings == [("Item 8. Statements", 2)]
    assert [ps.shape(t) for t in r.tables] == [(2, 2), (2, 1)]
    assert "|" not in r.text and "---" not in r.text


@pytest.mark.skipif(
    ps.chromium() is None,
    reason="headless Chromium not installed (Debian: apt-get install -y chromium)",
)
def test_a_small_filing_printed_by_chromium_is_scored_end_to_end(tmp_path):
    pytest.importorskip("selectolax")
    pytest.importorskip("pypdfium2")
    rows = "".join(
        f"<tr><td>Segment {name}</td><td>{i * 1000 + 17:,}</td><td>{i * 900 + 3:,}</td></tr>"
        for i, name in enumerate(["Alpha", "Beta", "Gamma", "Delta"], 1)
    )
    html = tmp_path / "filing.htm"
    html.write_text(
        "<html><body><h1>PART II</h1><h2>Item 8. Financial Statements</h2>"
        "<p>Revenue grew in every segment during the fiscal year under review.</p>"
        f"<table><tr><td></td><td>2024</td><td>2023</td></tr>{rows}</table>"
        # a remote image must not be fetched (and must not stall the print)
        '<img src="https://example.invalid/logo.png" alt=""></body></html>',
        encoding="utf-8",
    )
    pdf = ps.print_pdf(html, tmp_path / "cache", timeout=120)
    assert pdf.read_bytes().startswith(b"%PDF")
    assert ps.print_pdf(html, tmp_path / "cache") == pdf  # cached by content hash
    gold = ps.read_html(html)
    assert [ps.shape(t) for t in gold.tables] == [(5, 3)]
    s = ps.summarise(ps.score(gold, ps.read_finchunk(pdf)))
    assert s["chars_present"] >= 0.95 and s["order_lis"] == 1.0
    assert s["tables_found"] == 1.0
