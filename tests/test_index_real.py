"""The index on real SEC filings (skipped when ../shared/data is absent): metadata from the
filing, auto-filter by issuer and year, and citations that are slices of the parsed text."""

from __future__ import annotations

from pathlib import Path

from finchunk.parse import load
from finchunk.retrieve.index.build import build_index, file_sources
from finchunk.retrieve.index.store import Index
from finchunk.retrieve.query.search import SearchOptions, search


def test_filings_index_and_cite(shared_data: Path, tmp_path: Path):
    files = [
        shared_data / "edgar" / "AAPL" / "aapl-10-k-2024-11-01.html",
        shared_data / "edgar" / "NVDA" / "nvda-10-k-2025-02-26.html",
    ]
    build_index(file_sources(files), tmp_path / "idx")
    index = Index.open(tmp_path / "idx")
    issuers = {d.id: d.metadata.get("issuer") for d in index.manifest.documents}
    assert issuers == {"aapl-10-k-2024-11-01": "Apple Inc.", "nvda-10-k-2025-02-26": "NVIDIA CORP"}
    res = search(
        index,
        "What drove NVIDIA data center demand in fiscal 2025?",
        SearchOptions(k=5, auto_filter=True),
    )
    assert [str(f) for f in res.filters] == ["issuer=NVIDIA CORP", "year=2025"]
    assert {h.doc_id for h in res.hits} == {"nvda-10-k-2025-02-26"}
    doc = load(files[1], "nvda-10-k-2025-02-26")
    for h in res.hits:
        assert [doc.text[s:e] for s, e in h.spans] == list(h.citations)
        assert h.page is not None
