"""The on-disk index: manifest, generations, segments, publishing, and reading.

Layout (every file inspectable with ordinary tools)::

    IDX/CURRENT                   the name of the live generation, e.g. "g000002"
    IDX/g000002/manifest.json     finchunk version, chunking strategy and parameters, model,
                                  BM25 parameters and corpus statistics, the segments
    IDX/g000002/documents.json    the documents, one JSON list in index order (id, source,
                                  content hash, metadata, chunk range; which segment and
                                  rows hold them; file stats); ``jq -c '.[]'`` lists them
    IDX/g000002/live_df/S.npy     live document frequencies of segment S, when some of its
                                  documents were replaced or removed
    IDX/g000002/live_card_df/S.npy  the same for the cards of segment S
    IDX/s000001/                  a segment (:mod:`finchunk.retrieve.index.segments`), immutable:
      chunks.parquet              chunk records (:data:`finchunk.records.CHUNK_SCHEMA`)
      documents.parquet           id, title, source, sha256, text, metadata: citations
                                  resolve against the stored text; layout: elements and
                                  pages (:mod:`finchunk.retrieve.index.layout`)
      bm25/                       BM25 postings (:mod:`finchunk.retrieve.lexical.postings`): sorted
                                  terms, varint postings, lengths; memory-mapped
      cards/                      BM25 postings of the documents' cards, one per documents row
      vectors.npy                 float32 (chunks × dim), L2-normalised, when built --dense

Writes are atomic: a build (:mod:`finchunk.retrieve.index.build`) writes its segment and then a
new generation directory under hidden names, renamed into place; :func:`publish` replaces
``CURRENT`` with ``os.replace`` (atomic on POSIX and Windows) and only then deletes older
generations and the segments the live one does not use, but for generations an open
:class:`Index` still reads (:mod:`finchunk.retrieve.index.locks`: an index opened is a snapshot).
A build killed at any point leaves ``CURRENT`` naming a complete generation.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, Self

import numpy as np
import pyarrow as pa

from finchunk.errors import DamagedIndexError, InputError
from finchunk.model import Document
from finchunk.records import CHUNK_SCHEMA, ChunkRecord
from finchunk.retrieve.index.locks import GenerationHold, hold_live
from finchunk.retrieve.index.locks import IndexBusyError as IndexBusyError  # its home before locks
from finchunk.retrieve.index.locks import writer_lock as writer_lock
from finchunk.retrieve.index.segments import (
    CHUNKS,
    DOCUMENTS,
    SPLADE_DIR,
    read_rows,
)
from finchunk.retrieve.index.segments import DOC_SCHEMA as DOC_SCHEMA  # its home before segments
from finchunk.retrieve.kinds import RetrieverKind

if TYPE_CHECKING:  # the retriever stack is imported when a retriever is asked for: a build
    # or an update, which reads an index too, does not pay for it
    from finchunk.retrieve.base import Retriever
    from finchunk.retrieve.neural.dense import Embedder
    from finchunk.retrieve.neural.splade_impacts import Impacts
    from finchunk.retrieve.query.deliver import ChunkFacts
    from finchunk.retrieve.query.filters import MetadataIndex
    from finchunk.retrieve.query.priors import PriorParams
    from finchunk.retrieve.query.retriever import RetrieverSpec
    from finchunk.retrieve.query.stored import StoredSource

from finchunk.retrieve.index.manifest import (
    MANIFEST,
    POSITIONS,
    DocEntry,
    Manifest,
    _check_version,
    _live,
    _table,
    index_array,
    read_documents,
)


class Snapshot:
    """The generation of an index live when it was opened, read however many builds
    publish after it (:mod:`finchunk.retrieve.index.locks`) until it is closed (``close``,
    or a ``with`` block) or collected: its manifest and where each segment row sits."""

    def __init__(
        self,
        root: Path,
        gen: Path,
        manifest: Manifest,
        documents: bool = True,
        hold: GenerationHold | None = None,
    ) -> None:
        """``documents`` False: ``manifest`` was read without its documents, which are
        read when first needed (a BM25 or dense search needs none). ``hold``: the lock
        that keeps ``gen`` from being deleted while this index reads it."""
        self.root = root
        self.gen = gen
        self._hold = hold or GenerationHold(gen, None)
        self._manifest = manifest
        self._documents_read = False
        if documents:
            self._check_documents()
        missing = [s for s in manifest.segments if not (root / s / CHUNKS).is_file()]
        if missing:
            raise DamagedIndexError(root / missing[0] / CHUNKS, "the file is gone")

    @classmethod
    def open(cls, path: str | Path, manifest: Manifest | None = None, *, hold: bool = True) -> Self:
        """The live generation at ``path`` (``manifest``: its manifest, already read).
        ``hold`` False: the generation is not protected from the next build's cleanup
        (what a build reads of the index it replaces)."""
        root = Path(path)
        if not root.is_dir():
            raise InputError(f"{root}: no such index directory")
        taken = hold_live(lambda: _live(root), MANIFEST) if hold else None
        gen = taken.gen if taken else _live(root)
        try:
            documents = manifest is not None
            manifest = manifest or Manifest.from_json(gen / MANIFEST, documents=False)
            _check_version(root, manifest)
            return cls(root, gen, manifest, documents, taken)
        except BaseException:
            if taken:
                taken.release()
            raise

    def close(self) -> None:
        """Let later builds delete this index's generation (reads after this may fail)."""
        self._hold.release()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def header(self) -> Manifest:
        """The manifest, its documents perhaps not read yet: for every field but them."""
        return self._manifest

    @property
    def manifest(self) -> Manifest:
        """The manifest with its documents (read on first use)."""
        if not self._documents_read:
            self._manifest.documents = read_documents(self.gen)
            self._check_documents()
        return self._manifest

    def _check_documents(self) -> None:
        m = self._manifest
        listed = sum(d.chunks for d in m.documents)
        if listed != m.chunks:
            raise InputError(
                f"{self.gen}: documents hold {listed} chunks, manifest says {m.chunks}"
            )
        self._documents_read = True

    # segments -------------------------------------------------------------------------------
    @cached_property
    def positions(self) -> dict[str, np.ndarray | None]:
        """Per segment, each row's position in the index (-1: replaced or removed); None
        when the index is that one segment, every row live and in order. Stored in the
        generation by the build (:func:`segment_positions`), memory-mapped here."""
        head, folder = self.header, self.gen / POSITIONS
        return {
            name: index_array(folder / f"{name}.npy") if name in head.positions else None
            for name in head.segments
        }

    def _gather(self) -> np.ndarray | None:
        """For each position, its row in the segments' rows laid end to end (None: the
        rows are the positions); worked out once."""
        return self._gathered

    @cached_property
    def _gathered(self) -> np.ndarray | None:
        if all(p is None for p in self.positions.values()):
            return None
        out = np.empty(self.size, dtype=np.int64)
        offset = 0
        for name, size in self.header.segments.items():
            pos = self.positions[name]
            live = np.flatnonzero(pos >= 0)
            out[pos[live]] = offset + live
            offset += size
        return out

    def segment_rows(self, name: str) -> pa.Table:
        """The chunk rows of segment ``name``, live or not, in segment order."""
        return _table(self.root / name / CHUNKS)

    @property
    def size(self) -> int:
        return self.header.chunks


class Index(Snapshot):
    """A finchunk index opened for reading (a :class:`Snapshot`): its chunk rows, texts and
    documents, read on first use from the segments. Retrievers over it are made by the
    retriever factory through :attr:`source`
    (:class:`~finchunk.retrieve.query.stored.StoredSource`)."""

    @cached_property
    def chunks(self) -> pa.Table:
        """The chunk records in index order (read on first use: opening an index reads only
        its manifest)."""
        tables = [_table(self.root / s / CHUNKS) for s in self.header.segments]
        table = pa.concat_tables(tables) if tables else CHUNK_SCHEMA.empty_table()
        gather = self._gather()
        return table if gather is None else table.take(pa.array(gather))

    @cached_property
    def doc_metadata(self) -> list[dict[str, str]]:
        return [d.metadata for d in self.manifest.documents]

    @cached_property
    def meta_index(self) -> MetadataIndex:
        """The documents' metadata prepared for filters (built on first use)."""
        from finchunk.retrieve.query.filters import MetadataIndex

        return MetadataIndex(self.doc_metadata)

    @cached_property
    def chunk_doc(self) -> np.ndarray:
        """Per chunk, the position of its document in ``manifest.documents``."""
        counts = [d.chunks for d in self.manifest.documents]
        return np.repeat(np.arange(len(counts)), counts)

    @cached_property
    def chunk_facts(self) -> ChunkFacts:
        """Per chunk: its document's position, its first page (-1: none), its text length."""
        from finchunk.retrieve.query.deliver import ChunkFacts

        pages = self.chunks.column("page").to_pylist()
        return ChunkFacts(
            self.chunk_doc,
            np.array([-1 if p is None else p for p in pages], dtype=np.int64),
            np.array([len(t) for t in self.texts], dtype=np.int64),
        )

    def chunk(self, i: int) -> ChunkRecord:
        """The record of the chunk at row ``i`` (read from its segment's row group alone
        unless every chunk is already in memory)."""
        if "chunks" in self.__dict__:
            return ChunkRecord.from_row(self.chunks.slice(i, 1).to_pylist()[0])
        if not 0 <= i < self.size:
            raise IndexError(f"chunk {i} of an index of {self.size}")
        segment, row = self._where(i)
        table = read_rows(self.root / segment / CHUNKS, np.array([row]))
        return ChunkRecord.from_row(table.to_pylist()[0])  # (written in CHUNK_SCHEMA)

    def _where(self, i: int) -> tuple[str, int]:
        """The segment and row that hold position ``i``."""
        seg, rows = self._locate(np.array([i], dtype=np.int64))
        return list(self.header.segments)[int(seg[0])], int(rows[0])

    def _locate(self, positions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Per position, the index of the segment (in manifest order) and its row there."""
        sizes = np.array(list(self.header.segments.values()), dtype=np.int64)
        gather = self._gather()
        if gather is None:
            return np.zeros(positions.size, dtype=np.int64), positions
        ends = np.cumsum(sizes)
        g = gather[positions]
        seg = np.searchsorted(ends, g, side="right")
        return seg, g - (ends - sizes)[seg]

    def records_at(self, positions: np.ndarray) -> list[ChunkRecord]:
        """The records of the chunks at ``positions``, in that order (only their row groups
        read, one read per segment)."""
        if "chunks" in self.__dict__:
            return [self.chunk(i) for i in np.asarray(positions).tolist()]
        names = list(self.header.segments)
        seg, rows = self._locate(np.asarray(positions, dtype=np.int64))
        out: list[ChunkRecord | None] = [None] * len(seg)
        for k in sorted(set(seg.tolist())):
            at = np.flatnonzero(seg == k)
            table = read_rows(self.root / names[k] / CHUNKS, rows[at])
            for i, row in zip(at.tolist(), table.to_pylist(), strict=True):
                out[i] = ChunkRecord.from_row(row)
        return out  # type: ignore[return-value]

    def documents(self, doc_ids: Sequence[str]) -> dict[str, Document]:
        """The documents ``doc_ids`` as the build chunked them (text, title, metadata,
        elements and pages: :func:`~finchunk.retrieve.index.layout.stored_document`), each
        segment's rows read once; none is parsed again."""
        from finchunk.retrieve.index.layout import stored_document

        wanted: dict[str, list[DocEntry]] = {}
        for d in dict.fromkeys(doc_ids):
            entry = self._entries.get(d)
            if entry is None:
                raise InputError(f"{self.root}: no document {d!r} in the index")
            wanted.setdefault(entry.segment, []).append(entry)
        out: dict[str, Document] = {}
        for name, entries in wanted.items():
            path = self.root / name / DOCUMENTS
            rows = np.array([e.doc_row for e in entries], dtype=np.int64)
            table = read_rows(path, rows, ["id", "title", "text", "layout"]).to_pylist()
            for e, row in zip(entries, table, strict=True):
                out[e.id] = stored_document(
                    e.id, row["text"], row["title"], e.metadata, row["layout"], path
                )
        return {d: out[d] for d in doc_ids if d in out}

    def texts_at(self, positions: np.ndarray) -> list[str]:
        """The indexed texts of the chunks at ``positions`` (only their row groups read)."""
        if "texts" in self.__dict__:
            return [self.texts[i] for i in positions.tolist()]
        names = list(self.header.segments)
        seg, rows = self._locate(np.asarray(positions, dtype=np.int64))
        out: list[str] = [""] * len(seg)
        for k in sorted(set(seg.tolist())):
            at = np.flatnonzero(seg == k)
            table = read_rows(self.root / names[k] / CHUNKS, rows[at], ["text"])
            for i, text in zip(at.tolist(), table.column("text").to_pylist(), strict=True):
                out[i] = text
        return out

    def document_rows(self) -> dict[str, dict[str, Any]]:
        """The live documents' rows by id (each segment's rows that the manifest uses)."""
        live: dict[str, set[int]] = {}
        for d in self.manifest.documents:
            live.setdefault(d.segment, set()).add(d.doc_row)
        out = {}
        for name in self.header.segments:
            rows = _table(self.root / name / DOCUMENTS).to_pylist()
            out.update({r["id"]: r for i, r in enumerate(rows) if i in live.get(name, ())})
        return out

    def document_text(self, doc_id: str) -> str:
        """The text of document ``doc_id`` (its segment's row group alone is read)."""
        entry = self._entries.get(doc_id)
        if entry is None:
            raise InputError(f"{self.root}: no document {doc_id!r} in the index")
        path = self.root / entry.segment / DOCUMENTS
        return str(read_rows(path, np.array([entry.doc_row]), ["text"]).column("text")[0])

    @cached_property
    def _entries(self) -> dict[str, DocEntry]:
        return {d.id: d for d in self.manifest.documents}

    def title(self, doc_id: str) -> str:
        entry = self._entries.get(doc_id)
        return doc_id if entry is None else entry.title

    @cached_property
    def texts(self) -> list[str]:
        """The indexed text of every chunk, in row order."""
        return self.chunks.column("text").to_pylist()

    @cached_property
    def _impact_parts(self) -> list[Impacts]:
        from finchunk.retrieve.neural.splade_impacts import Impacts

        return [Impacts.load(self.root / s / SPLADE_DIR) for s in self.header.segments]

    def splade_impacts(self, positions: np.ndarray) -> Impacts:
        """The stored SPLADE impacts of the chunks at ``positions`` (in that order), read
        from their segments' memory-mapped rows; the index must store them
        (:attr:`Manifest.splade_model`)."""
        from finchunk.retrieve.neural.splade_impacts import IMPACT_SCALE, Impacts

        splade = self.header.splade
        if splade is None or splade.get("scale") != IMPACT_SCALE:
            raise InputError(f"{self.root}: this index stores no SPLADE impacts of this grid")
        seg, rows = self._locate(np.asarray(positions, dtype=np.int64))
        order = np.argsort(seg, kind="stable")
        parts = [
            self._impact_parts[k].take(rows[order][seg[order] == k])
            for k in sorted(set(seg.tolist()))
        ]
        together = Impacts.concat(parts)
        back = np.empty_like(order)
        back[order] = np.arange(order.size)
        return together.take(back)

    @cached_property
    def source(self) -> StoredSource:
        """This index as the retriever factory's text source (its stored BM25 postings,
        vectors and document cards)."""
        from finchunk.retrieve.query.stored import StoredSource

        return StoredSource(self)

    def retriever(
        self,
        spec: RetrieverSpec | RetrieverKind | str = RetrieverKind.BM25,
        embedder: Embedder | None = None,
        kept: np.ndarray | None = None,
        prior: PriorParams | None = None,
        reranker: str | None = None,
    ) -> Retriever:
        """A retriever from the factory over this index: :meth:`StoredSource.retriever`."""
        return self.source.retriever(spec, embedder, kept, prior, reranker)
