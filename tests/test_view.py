"""The chunk map page: escaping, rows, kinds, sections, pages, counts, and the page itself
driven in headless Chromium (loads without errors, legend, pin, zoom, escaping)."""

from __future__ import annotations

import dataclasses
import html
import json
import re
import shutil
import subprocess
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from finchunk.chunk import Strategy, make_chunker
from finchunk.errors import InputError
from finchunk.parse.markdown import parse_markdown
from finchunk.view import (
    MapCounts,
    ViewOptions,
    build_rows,
    chunk_map,
    major_sections,
    parse_range,
    payload,
    script_json,
    write_chunk_map,
)

HOSTILE = """# Informe <b>2024</b>

## Cifras clave

| Concepto | 2024 |
|---|---|
| Ingresos¹ | 13.668,9 |
| EBITDA² | 2.100,3 |

¹ Netos de impuestos especiales.

² Ver <script>alert("x")</script> nota.

## Riesgos

Texto con "comillas" & <img src=x onerror=alert(1)> y </div></section> cierres.
El grupo 📈 está expuesto al precio del crudo y a la volatilidad de los tipos de cambio.
"""


@pytest.fixture
def doc():
    return parse_markdown(HOSTILE, "informe")


def _blob(page: str):
    m = re.search(r'<script type="application/json" id="chunkmap-data">(.*?)</script>', page, re.S)
    assert m, "no data blob"
    return m.group(1)


def test_document_text_is_escaped_in_the_html_and_in_the_json(doc):
    page = chunk_map(doc, ViewOptions())
    assert page.count("<script") == 2  # the data blob and ours
    assert page.count("</script>") == 2
    assert "<img" not in page and "</div></section> cierres" not in page
    assert "Informe &lt;b&gt;2024&lt;/b&gt;" in page  # title in <title> and <h1>
    blob = _blob(page)
    assert not set("<>&") & set(blob)
    assert json.loads(blob)["text"] == doc.text  # nothing lost on the way


def test_script_json_cannot_close_its_script():
    hostile = {"t": "</script><script>alert(1)</script><!-- & \u2028 >"}
    text = script_json(hostile)
    assert "<" not in text and ">" not in text and "&" not in text and "\u2028" not in text
    assert json.loads(text) == hostile


def test_rows_match_the_chunkers_with_kinds_and_multi_span_chunks(doc):
    rows, lo, hi = build_rows(doc, ViewOptions(), None)
    assert (lo, hi) == (0, len(doc.text))
    assert [r.name for r in rows] == ["fixed", "recursive", "structure"]
    for r, s in zip(rows, ("fixed", "recursive", "structure"), strict=True):
        chunks = make_chunker(s).chunk(doc)
        assert [p.label for p in r.pieces] == [c.id for c in chunks]
        assert [p.kind for p in r.pieces] == [c.kind.value for c in chunks]
        assert [p.header for p in r.pieces] == [c.header for c in chunks]
    structure = rows[2]
    table = next(p for p in structure.pieces if len(p.spans) == 3)  # table + notes ¹ and ²
    assert table.kind == "table"
    data = payload(doc, rows, lo, hi)
    item = data["rows"][2]["items"][structure.pieces.index(table)]
    assert item["spans"] == [list(s) for s in table.spans] and item["kind"] == "table"
    assert {p.kind for p in rows[0].pieces} == {"window"}


def test_legend_names_the_kinds_shown_gaps_overlap_and_sections(doc):
    page = chunk_map(doc, ViewOptions())
    legend = page.split('id="legend"')[1].split("</ul>")[0]
    kinds = re.findall(r'data-kind="(\w+)"', legend)
    rows, _, _ = build_rows(doc, ViewOptions(), None)
    assert set(kinds) == {p.kind for r in rows for p in r.pieces}
    assert "grey gap" in legend and "dashed outline" in legend and "section bands" in legend


def test_sections_are_the_top_two_heading_levels_with_their_extent(doc):
    secs = major_sections(doc, 0, len(doc.text))
    assert [(s.title, s.rank) for s in secs] == [
        ("Informe <b>2024</b>", 1),
        ("Cifras clave", 2),
        ("Riesgos", 2),
    ]
    assert secs[0].end == len(doc.text) and secs[1].end == secs[2].start
    assert secs[2].start == doc.text.index("## Riesgos")
    start = doc.text.index("## Riesgos")
    assert [s.title for s in major_sections(doc, start, len(doc.text))][1:] == ["Riesgos"]


def test_page_marks_come_from_the_document_pages(doc):
    n = len(doc.text)
    paged = dataclasses.replace(doc, pages=((0, n // 2), (n // 2, n)))
    rows, lo, hi = build_rows(paged, ViewOptions((Strategy.FIXED,), range=(n // 2 + 1, -1)))
    data = payload(paged, rows, lo, hi)
    assert data["pages"] == [[2, n // 2, n]]
    assert payload(doc, rows, lo, hi)["pages"] == []


def test_range_and_passages_rows_count_chunks_and_passages_apart(doc, tmp_path):
    start = doc.text.index("## Riesgos")
    rows, lo, hi = build_rows(doc, ViewOptions((Strategy.STRUCTURE,), range=(start, -1)), None)
    assert (lo, hi) == (start, len(doc.text)) and len(rows[0].pieces) == 1
    passages = tmp_path / "p.parquet"
    pq.write_table(
        pa.table(
            {
                "id_pasaje": ["a", "b", "z"],
                "id_doc": ["informe", "informe", "otro"],
                "seccion": ["x", "y", "z"],
                "inicio": [0, start, 0],
                "fin": [10, start + 10, 5],
            }
        ),
        passages,
    )
    out = tmp_path / "map.html"
    counts = write_chunk_map(doc, out, ViewOptions((Strategy.FIXED,)), passages_path=passages)
    n = len(make_chunker("fixed").chunk(doc))
    assert counts == MapCounts((("fixed", n),), 2)
    assert counts.summary() == f"fixed: {n} chunks; passages: 2"
    page = out.read_text(encoding="utf-8")
    assert 'data-row="passages"' in page
    assert "passages: 2<" in page and "2 chunks" not in page
    items = json.loads(_blob(page))["rows"][1]
    assert items["unit"] == "passages" and {i["kind"] for i in items["items"]} == {"passage"}
    assert MapCounts((("fixed", 3),)).summary() == "fixed: 3 chunks"


@pytest.mark.parametrize("bad", ["5", "a:b", "9:3", "-1:4"])
def test_bad_ranges(bad):
    with pytest.raises(InputError, match="--range"):
        parse_range(bad)


def test_range_outside_document(doc):
    with pytest.raises(InputError, match="outside the document"):
        chunk_map(doc, ViewOptions(range=(10**6, -1)))


def test_output_is_deterministic(doc):
    assert chunk_map(doc, ViewOptions()) == chunk_map(doc, ViewOptions())


# --- in a browser --------------------------------------------------------------------------

_GUARD = (
    "<script>window.__errors=[];window.addEventListener('error',"
    "e=>window.__errors.push(String(e.message)));"
    "window.alert=(m)=>window.__errors.push('alert: '+m);</script>"
)

#: Drives the page as a user would and writes what it saw into <pre id="result">.
_DRIVER = Path(__file__).with_name("chunkmap_driver.js")


def _chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


def _drive(page: str, pins: list[tuple[int, int]], tmp_path) -> dict:
    page = page.replace("<head>", "<head>" + _GUARD, 1)
    drive = _DRIVER.read_text(encoding="utf-8").replace("PINS", json.dumps(pins))
    page = page.replace("</body>", f"<script>{drive}</script></body>")
    path = tmp_path / "driven.html"
    path.write_text(page, encoding="utf-8")
    proc = subprocess.run(
        [
            _chromium(),
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-dev-shm-usage",
            "--disable-background-networking",
            "--no-first-run",
            "--window-size=1400,900",
            f"--user-data-dir={tmp_path / 'profile'}",
            "--dump-dom",
            path.as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=90,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    m = re.search(r'<pre id="result">(.*?)</pre>', proc.stdout, re.S)
    assert m, proc.stdout[:2000]
    return json.loads(html.unescape(m.group(1)))


@pytest.mark.skipif(
    _chromium() is None,
    reason="headless Chromium not installed (Debian: apt-get install -y chromium)",
)
def test_page_in_headless_chromium_pins_zooms_and_keeps_text_inert(doc, tmp_path):
    rows, lo, hi = build_rows(doc, ViewOptions(), None)
    structure = rows[2].pieces
    table = next(i for i, p in enumerate(structure) if len(p.spans) == 3)
    emoji = next(i for i, p in enumerate(structure) if "📈" in doc.slice(p.spans[0]))
    res = _drive(chunk_map(doc, ViewOptions()), [(2, table), (2, emoji), (0, 0)], tmp_path)

    assert "exception" not in res, res.get("exception")
    assert res["errors"] == [] and res["ready"] == "true"
    assert set(res["legend"]) == {"window", "text", "table"} | {p.kind for p in structure}
    assert len(res["counts"]) == 3 and all(e == r for e, r in res["counts"])
    assert "Riesgos" in res["bands"] and res["ticks"] >= 2

    pin_table, pin_emoji, pin_fixed = res["pins"]
    t = structure[table]
    assert pin_table["id"] == t.label and pin_table["bars"] == 3 and pin_table["tab"] == "structure"
    assert pin_table["text"] == "".join(doc.slice(s) for s in t.spans)
    for part in (t.label, "table", t.section, t.header, f"{t.spans[0][0]}–{t.spans[0][1]}"):
        assert part in pin_table["detail"]
    e = structure[emoji]
    assert pin_emoji["id"] == e.label and pin_emoji["text"] == doc.slice(e.spans[0])
    assert pin_fixed["id"] == rows[0].pieces[0].label and pin_fixed["tab"] == "fixed"

    n = len(doc.text)
    a, b = res["dragged"]
    assert abs(a - n * 0.25) <= 2 and abs(b - n * 0.75) <= 2  # dragging zooms...
    assert res["pinnedAfterDrag"] == pin_fixed["id"]  # ...and does not pin
    riesgos = major_sections(doc, 0, n)[2]
    assert res["section"] == [riesgos.start, riesgos.end]
    assert res["textShown"] == doc.text[riesgos.start : riesgos.end]
    assert res["afterEscape"] is None and res["reset"] == [0, n]
    assert res["imgs"] == 0 and res["scripts"] == 4  # guard, data, ours, the driver
