"""The chunk map page: escaping, rows, linked spans, and rendering in headless Chromium."""

from __future__ import annotations

import re
import shutil
import subprocess

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from finchunk.chunk import Strategy, make_chunker
from finchunk.errors import InputError
from finchunk.parse.markdown import parse_markdown
from finchunk.view import ViewOptions, build_rows, chunk_map, parse_range, write_chunk_map

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
El grupo está expuesto al precio del crudo y a la volatilidad de los tipos de cambio.
"""


@pytest.fixture
def doc():
    return parse_markdown(HOSTILE, "informe")


def test_document_text_is_escaped(doc):
    page = chunk_map(doc, ViewOptions())
    assert page.count("<script>") == 1  # ours, at the end
    assert "<img" not in page and "</div></section> cierres" not in page
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in page
    assert "Informe &lt;b&gt;2024&lt;/b&gt;" in page


def test_rows_match_the_chunkers_and_link_multi_span_chunks(doc):
    rows, lo, hi = build_rows(doc, ViewOptions(), None)
    assert (lo, hi) == (0, len(doc.text))
    assert [r.name for r in rows] == ["fixed", "recursive", "structure"]
    for r, s in zip(rows, ("fixed", "recursive", "structure"), strict=True):
        assert len(r.pieces) == len(make_chunker(s).chunk(doc))
    structure = rows[2]
    table = next(p for p in structure.pieces if len(p.spans) == 3)  # table + notes ¹ and ²
    page = chunk_map(doc, ViewOptions())
    i = structure.pieces.index(table)
    section = page.split('data-row="structure"')[1]
    track = section.split('<div class="track">')[1].split("</div></details>")[0]
    assert len(re.findall(rf'class="seg s{i % 2}" data-chunk="{i}"', track)) == 3


def test_range_and_passages_rows(doc, tmp_path):
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
    count = write_chunk_map(doc, out, ViewOptions((Strategy.FIXED,)), passages_path=passages)
    assert count == len(make_chunker("fixed").chunk(doc)) + 2
    assert 'data-row="passages"' in out.read_text(encoding="utf-8")


@pytest.mark.parametrize("bad", ["5", "a:b", "9:3", "-1:4"])
def test_bad_ranges(bad):
    with pytest.raises(InputError, match="--range"):
        parse_range(bad)


def test_range_outside_document(doc):
    with pytest.raises(InputError, match="outside the document"):
        chunk_map(doc, ViewOptions(range=(10**6, -1)))


def _chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.mark.skipif(
    _chromium() is None,
    reason="headless Chromium not installed (Debian: apt-get install -y chromium)",
)
def test_page_renders_in_headless_chromium_with_the_chunk_counts(doc, tmp_path):
    out = tmp_path / "map.html"
    write_chunk_map(doc, out, ViewOptions())
    proc = subprocess.run(
        [
            _chromium(),
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-dev-shm-usage",
            f"--user-data-dir={tmp_path / 'profile'}",
            "--dump-dom",
            out.as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=90,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    dom = proc.stdout
    counts = re.findall(r'data-expected="(\d+)" data-rendered="(\d+)"', dom)
    assert len(counts) == 3, dom[:2000]
    assert all(expected == rendered for expected, rendered in counts)
    assert "<img" not in dom and dom.count("<script>") == 1
