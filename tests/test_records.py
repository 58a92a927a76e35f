"""The one chunk record: JSONL and Parquet round trips, the index's columns, search hits."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from finchunk.chunk import Strategy, make_chunker
from finchunk.cli import app
from finchunk.errors import InputError
from finchunk.model import ChunkKind
from finchunk.parse.markdown import parse_markdown
from finchunk.records import (
    CHUNK_SCHEMA,
    FIELDS,
    ChunkRecord,
    document_records,
    read_chunks,
    write_chunks,
)
from finchunk.retrieve.index.store import Index

runner = CliRunner()

REPORT = """# Repsol informe anual 2024

## Cifras clave

| Concepto | 2024 | 2023 |
|---|---|---|
| Ingresos¹ | 13.668,9 | 12.450,0 |

¹ Ingresos netos de impuestos especiales.

## Riesgos

El grupo está expuesto al precio del crudo y a la volatilidad de los tipos de cambio.
"""

OTHER = """# Acme Corp annual report 2023

## Revenue

Revenue increased 12% to $4.2 billion, driven by cloud subscriptions.

## Risks

Currency exchange rates and interest rates may affect results.
"""

OLD_KEYS = {"id", "doc_id", "spans", "section", "page", "header", "text"}


def records(header: bool = True) -> list[ChunkRecord]:
    doc = parse_markdown(REPORT, "repsol", metadata={"emisor": "Repsol, S.A.", "anio": 2024})
    return document_records(doc, make_chunker(Strategy.STRUCTURE, header=header).chunk(doc))


@pytest.mark.parametrize("name", ["chunks.jsonl", "chunks.parquet"])
def test_write_then_read_gives_the_same_records(tmp_path: Path, name: str) -> None:
    rs = records()
    assert write_chunks(tmp_path / name, rs) == len(rs)
    assert read_chunks(tmp_path / name) == rs
    assert [p.name for p in tmp_path.iterdir()] == [name]  # no temporary file left


def test_records_carry_every_field() -> None:
    rs = records()
    assert {r.kind for r in rs} >= {ChunkKind.TABLE, ChunkKind.TEXT}
    assert all(isinstance(r.kind, ChunkKind) for r in rs)
    assert all(r.metadata == {"issuer": "Repsol, S.A.", "year": "2024"} for r in rs)
    row = rs[0].to_json()
    assert tuple(row) == FIELDS
    assert ChunkRecord.from_json(row) == rs[0]
    assert ChunkRecord.from_row(rs[0].to_row()) == rs[0]


def test_a_line_of_the_first_format_still_reads(tmp_path: Path) -> None:
    line = {"id": "d#1", "doc_id": "d", "spans": [[0, 4]], "section": ["A"], "page": 3}
    rec = ChunkRecord.from_json({**line, "header": "", "text": "abcd"})
    assert rec.pages == (3,) and rec.page == 3 and rec.kind is ChunkKind.TEXT
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps(line) + "\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"bad\.jsonl:1: missing field\(s\) text"):
        read_chunks(bad)


NOT_WHOLE = [
    ("spans", [[0.5, 4]]),
    ("spans", [[True, 4]]),
    ("pages", [2.5]),
    ("spans", [["0", "4x"]]),
]


@pytest.mark.parametrize(("field", "value"), NOT_WHOLE)
def test_a_chunk_line_with_a_span_or_page_not_a_whole_number_is_an_error(
    field: str, value: list
) -> None:
    line = {"id": "d#1", "doc_id": "d", "spans": [[0, 4]], "header": "", "text": "abcd"}
    with pytest.raises(InputError, match=r"l:1: not a chunk record \(.* is not a whole number"):
        ChunkRecord.from_json({**line, field: value}, "l:1")
    assert ChunkRecord.from_json({**line, "spans": [[0.0, "4"]]}).spans == ((0, 4),)


def test_chunk_command_writes_records_jsonl(tmp_path: Path) -> None:
    src = tmp_path / "repsol.md"
    src.write_text(REPORT, encoding="utf-8")
    out = tmp_path / "out" / "chunks.jsonl"
    r = runner.invoke(app, ["chunk", str(src), "-o", str(out), "--header"])
    assert r.exit_code == 0, r.output
    lines = [json.loads(x) for x in out.read_text(encoding="utf-8").splitlines()]
    assert lines and all(set(x) >= OLD_KEYS | {"pages", "kind", "metadata"} for x in lines)
    for x in lines:
        body = "\n\n".join(REPORT[s:e] for s, e in x["spans"])
        assert x["text"] == f"{x['header']}\n{body}" and x["page"] is None


def test_chunk_command_parquet_has_the_index_columns(tmp_path: Path) -> None:
    src = tmp_path / "docs" / "repsol.md"
    src.parent.mkdir()
    src.write_text(REPORT, encoding="utf-8")
    out = tmp_path / "chunks.parquet"
    assert runner.invoke(app, ["chunk", str(src), "-o", str(out)]).exit_code == 0
    idx = tmp_path / "idx"
    r = runner.invoke(app, ["index", str(src.parent), "-o", str(idx)])
    assert r.exit_code == 0, r.output
    table = pq.read_table(out)
    assert table.schema.equals(CHUNK_SCHEMA)
    assert table.equals(Index.open(idx).chunks)


def test_a_failed_chunk_run_leaves_no_output(tmp_path: Path) -> None:
    good, bad = tmp_path / "good.md", tmp_path / "malo.md"
    good.write_text(REPORT, encoding="utf-8")
    bad.write_bytes(b"\xff\xfe\x00bad")
    out = tmp_path / "out.jsonl"
    r = runner.invoke(app, ["chunk", str(good), str(bad), "-o", str(out)])
    assert r.exit_code == 2 and "malo.md" in r.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["good.md", "malo.md"]


def test_search_json_hits_are_records_plus_rank_score_title_citations(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "repsol.md").write_text(REPORT, encoding="utf-8")
    (docs / "repsol.meta.json").write_text('{"emisor": "Repsol, S.A.", "anio": 2024}')
    (docs / "acme.md").write_text(OTHER, encoding="utf-8")
    idx = tmp_path / "idx"
    assert runner.invoke(app, ["index", str(docs), "-o", str(idx)]).exit_code == 0
    r = runner.invoke(app, ["search", str(idx), "volatilidad crudo", "-k", "2", "--json"])
    assert r.exit_code == 0, r.output
    hits = json.loads(r.output)["results"]
    index = Index.open(idx)
    stored = {c.id: c for c in (ChunkRecord.from_row(x) for x in index.chunks.to_pylist())}
    assert hits
    for h in hits:
        assert set(h) == set(FIELDS) | {"rank", "chunk_id", "title", "score", "citations"}
        assert ChunkRecord.from_json(h) == stored[h["id"]] and h["chunk_id"] == h["id"]
        assert h["citations"] == [REPORT[s:e] for s, e in h["spans"]]
        assert h["metadata"] == {"issuer": "Repsol, S.A.", "year": "2024"}
        assert h["title"] == "Repsol informe anual 2024" and h["kind"] == "text"
