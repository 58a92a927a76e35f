"""What an index is built from: :class:`Source` records (an id, where it comes from, a
content hash computed only when needed, a loader, and a file's stat) for files and folders
(:func:`file_sources`: one ``scandir`` per folder, sidecar ``NAME.meta.json`` metadata) or
for documents already in memory (:func:`document_sources`)."""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from finchunk.errors import InputError, ParseError
from finchunk.files import JSONError, loads, os_text, read_bytes
from finchunk.model import Document
from finchunk.parse import SUPPORTED_FORMATS, SUPPORTED_SUFFIXES, load

META_SUFFIX = ".meta.json"


@dataclass(frozen=True)
class Source:
    """One document to index: an id, where it comes from, a content hash and a loader.

    ``digest`` is the hash or what computes it (files are read for it only when their
    ``stat`` — sizes and modification times of the file and its sidecar — differs from
    the one the index recorded)."""

    doc_id: str
    source: str
    digest: str | Callable[[], str]
    loader: Callable[[], Document]
    stat: tuple[int, ...] | None = None

    @property
    def sha256(self) -> str:
        if callable(self.digest):
            object.__setattr__(self, "digest", self.digest())
        return str(self.digest)


#: A file modified this close to a build (ns) may change again within its clock tick: its
#: stat is not recorded, so the next build hashes it (git's "racy" rule).
RACY_NS = 2_000_000_000


def _stat_key(*paths: Path) -> tuple[int, ...]:
    out: list[int] = []
    for p in paths:
        st = p.stat() if p.is_file() else None
        out += [st.st_size, st.st_mtime_ns] if st else [-1, -1]
    return tuple(out)


def _sha256(*parts: bytes) -> str:
    h = hashlib.sha256()
    for p in parts:
        h.update(hashlib.sha256(p).digest())
    return h.hexdigest()


def _sidecar_metadata(path: Path) -> tuple[dict[str, Any], bytes]:
    """Metadata from ``NAME.meta.json`` beside ``NAME.md`` (issuer, year, doc_type …)."""
    side = path.with_name(path.stem + META_SUFFIX)
    if not side.is_file():
        return {}, b""
    raw = read_bytes(side)
    try:
        meta = loads(raw)
    except JSONError as exc:
        raise ParseError(str(side), exc.message, position=exc.position) from exc
    if not isinstance(meta, dict):
        raise ParseError(str(side), "metadata must be a JSON object")
    return meta, raw


def _file_source(doc_id: str, name: str, stat: tuple[int, ...]) -> Source:
    """A file's source; the file and its sidecar are read only when hashed or loaded (a
    bad sidecar is then said, naming it). No path object is made until then: a folder
    of 10k unchanged files is listed, not read."""

    def loader() -> Document:
        path = Path(name)
        meta = _sidecar_metadata(path)[0]
        doc = load(path, doc_id)
        if not meta:
            return doc
        merged = {**doc.metadata, **meta}
        return Document(doc.id, doc.text, doc.title, merged, doc.elements, doc.pages, doc.source)

    def digest() -> str:
        path = Path(name)
        return _sha256(read_bytes(path), _sidecar_metadata(path)[1])

    return Source(doc_id, os_text(name), digest, loader, stat)


def _entry_stat(entry: os.DirEntry[str] | None) -> tuple[int, int]:
    if entry is None or not entry.is_file():
        return -1, -1
    st = entry.stat()
    return st.st_size, st.st_mtime_ns


def _folder_files(
    root: Path, others: list[str] | None = None
) -> list[tuple[str, str, tuple[int, ...]]]:
    """Supported files under ``root`` (recursively, in path order; left out: hidden files
    and folders, finchunk indexes, files and folders seen before through a link): id
    (relative path without suffix), path, and the stat key of the file and its sidecar.
    The paths of the files of other types (not sidecars) are added to ``others``.
    One ``scandir`` per folder: no per-file path objects or repeated stats (a folder of
    10k documents is listed in about 0.2 s, most of it the 20k stat calls)."""
    found: list[tuple[tuple[str, ...], str, str, tuple[int, ...]]] = []
    stack: list[tuple[str, ...]] = [()]
    seen: set[tuple[int, int]] = set()  # folders listed, by device and inode
    seen_files: set[tuple[int, int]] = set()  # files listed, the same way
    while stack:
        rel = stack.pop()
        entries = _list_folder(root.joinpath(*rel), seen)
        prefix = "/".join(rel) + "/" if rel else ""
        folders = []
        for name in sorted(entries):  # name order: which of two links is kept is fixed
            e = entries[name]
            stem, dot, ext = name.rpartition(".")  # (os.path.splitext, at a third of the cost)
            hidden = name.startswith((".", "~$"))  # ~$: an open Office file's lock file
            if dot and not hidden and f".{ext.lower()}" in SUPPORTED_SUFFIXES and e.is_file():
                st = e.stat()
                if st.st_ino and (st.st_dev, st.st_ino) in seen_files:  # a link listed already
                    continue
                seen_files.add((st.st_dev, st.st_ino))
                side = _entry_stat(entries.get(stem + META_SUFFIX))
                key = (st.st_size, st.st_mtime_ns, *side)
                found.append(((*rel, name), os_text(prefix + stem), e.path, key))
            elif not hidden and e.is_dir():
                folders.append(name)
            elif others is not None and not (hidden or name.endswith(META_SUFFIX)) and e.is_file():
                others.append(e.path)
        # depth first in name order, whatever order the OS lists in: which of two links to
        # one folder names it (the first) is the same on every run
        stack += [(*rel, name) for name in reversed(folders)]
    found.sort(key=lambda f: f[0])
    if others is not None:
        others.sort()
    return [(doc_id, path, key) for _, doc_id, path, key in found]


def _list_folder(folder: Path, seen: set[tuple[int, int]]) -> dict[str, os.DirEntry[str]]:
    """The entries of ``folder`` by name; none when it was listed already (a symbolic link
    back up the tree, or two links to one folder: listed once, never a loop) or when it
    is a finchunk index; an error naming the folder when it cannot be listed."""
    try:
        st = folder.stat()
        if st.st_ino and (st.st_dev, st.st_ino) in seen:  # (no inodes there: no check)
            return {}
        seen.add((st.st_dev, st.st_ino))
        with os.scandir(folder) as it:
            entries = {e.name: e for e in it}
    except OSError as exc:
        raise InputError(f"{folder}: cannot list this folder ({exc.strerror or exc})") from None
    return {} if _is_index(entries) else entries


#: A finchunk index folder holds a ``CURRENT`` pointer and generation folders (``store``).
_INDEX_GENERATION = re.compile(r"g\d{6}")


def _is_index(entries: dict[str, os.DirEntry[str]]) -> bool:
    """Whether a folder is a finchunk index: its terms files are not documents (an index
    built inside the folder it indexes, ``-o docs/idx``, is not read back as text)."""
    current = entries.get("CURRENT")
    if current is None or not current.is_file():
        return False
    return any(_INDEX_GENERATION.fullmatch(n) for n in entries)


def _sources_of(p: Path, others: list[str]) -> list[tuple[str, str, tuple[int, ...]]]:
    if p.is_dir():
        return _folder_files(p, others)
    if p.is_file():
        return [(os_text(p.stem), str(p), _stat_key(p, p.with_name(p.stem + META_SUFFIX)))]
    raise InputError(f"{p}: no such file or directory")


def unsupported_reason(path: str) -> str:
    """Why a file found in a folder is not read: its type (``a.docx: .docx is not a
    supported format (...)``)."""
    name = os.path.basename(path)
    stem, dot, ext = name.rpartition(".")
    kind = f".{ext.lower()} is" if dot and stem else "no suffix:"
    return f"{os_text(path)}: {kind} not a supported format ({SUPPORTED_FORMATS})"


def file_sources(
    paths: Iterable[str | Path], unsupported: list[tuple[str, str]] | None = None
) -> list[Source]:
    """Sources for files and directories (searched recursively for supported files).

    A file's id is its stem; a file found under a directory gets its path relative to that
    directory, without the suffix (``reports/2024/acme``). Ids must be unique. The files
    of other types found in the folders (not hidden ones, sidecars or indexes) are added to
    ``unsupported`` as (path, reason), in path order.
    """
    paths = list(paths)
    others: list[str] = []
    listed = [item for raw in paths for item in _sources_of(Path(raw), others)]
    if unsupported is not None:
        unsupported += [(os_text(f), unsupported_reason(f)) for f in others]
    if not listed:
        held = ""
        if others:
            more = f"; and {len(others) - 1:,} more" if len(others) > 1 else ""
            held = f" (only files of other types: {unsupported_reason(others[0])}{more})"
        raise InputError("no supported documents found in " + ", ".join(map(str, paths)) + held)
    found = {doc_id: (f, key) for doc_id, f, key in listed}  # the last listing wins
    if len(found) < len(listed):
        _check_unique(listed)
    return [_file_source(i, f, key) for i, (f, key) in found.items()]


def _check_unique(listed: Sequence[tuple[str, str, tuple[int, ...]]]) -> None:
    """InputError when two different files have the same id (one file listed twice, from
    a folder and by name, ``./a.md`` and ``a.md``, is one source)."""
    first: dict[str, str] = {}
    for doc_id, f, _ in listed:
        seen = first.setdefault(doc_id, f)
        if seen != f and os.path.realpath(seen) != os.path.realpath(f):
            raise InputError(f"{f}: document id {doc_id!r} is also used by {seen}")


def document_sources(docs: Sequence[Document]) -> list[Source]:
    """Sources for documents already in memory (e.g. a lesson-schema documents table)."""
    out = []
    for d in docs:
        meta = json.dumps(dict(d.metadata), sort_keys=True, default=str).encode()
        out.append(Source(d.id, d.source or d.id, _sha256(d.text.encode(), meta), lambda d=d: d))
    return out
