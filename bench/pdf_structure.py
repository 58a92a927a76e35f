"""PDF structure against the same filing's HTML: headings, tables, text, reading order.

Gold nobody labels by hand: each HTML / inline-XBRL filing in ``../shared/data/edgar`` is
printed to PDF with headless Chromium, and what a reader finds in the PDF is scored against
what finchunk's HTML parser finds in the HTML (its headings, its tables as rows × columns,
its text). finchunk's PDF reader is scored beside two peers run on the same PDFs:
pymupdf4llm (Markdown: headings from ``#`` lines, tables from ``|`` rows; its non-ML path,
``use_layout(False)``) and pdfplumber (``find_tables`` and text lines; headings by the
simplest fair rule: a line set larger than the body size, or all bold, outside tables).
The peers are bench-only (PyMuPDF is AGPL: never a finchunk dependency); install them with
``pip install pymupdf4llm pdfplumber``. A peer that is not installed is skipped.

Measures (summed over all filings, then divided):

* headings: precision, recall, F1 of heading texts (NFKC, case, punctuation and whitespace
  folded; each heading matched once, in order); ``level`` is the share of consecutive
  matched pairs whose level goes the same way (up, down, same) in both;
* tables: each HTML table is matched to the PDF table sharing most of its word tokens (at
  least half); ``found`` the share matched, ``rows×cols`` the share matched with equal row
  and column counts (Markdown tables: a row per ``|`` line, the separator not counted,
  all-empty rows and columns dropped; a table element without ``|`` rows counts each line as
  a row of one column), ``cells`` the share of the HTML's non-empty cell texts found among
  the matched table's cells (whitespace ignored);
* chars present: the share of the HTML text's non-whitespace characters present in the PDF
  text, as a multiset of tokens (word runs and single punctuation marks, case folded), each
  token weighted by its length; table markup (``|``, separator lines) is not counted, nor
  the repeats of a spanning header that the HTML's merged header row writes per column;
* order: words that occur exactly once in both texts (4+ characters) are anchors; ``LIS`` is
  the share of anchors in the longest run that keeps the HTML's order, ``tau`` Kendall's tau
  of the two orders;
* pages/s: PDF pages over the reader's wall time (the scoring is not timed).

Printed PDFs are cached under ``~/.cache/finchunk-bench/pdf_structure`` (or ``--cache``),
keyed by the SHA-256 of the HTML's bytes and the print settings; the peers' readings are
cached there too, keyed by the PDF's hash and the peer's version (``--fresh`` rereads them),
and so is the gold, keyed by the HTML's hash and finchunk's parsing code (its PDF reader
excepted). finchunk's PDF reader is always run afresh. Chromium runs with remote loads
blocked (DNS mapped to nothing, a dead proxy).

    python bench/pdf_structure.py [--data ../shared/data/edgar] [--systems finchunk,...]
        [--out figures.json] [--per-file] [--cache DIR] [--fresh] [FILE.htm ...]
    python bench/pdf_structure.py --systems finchunk --explain finchunk FILE.htm
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import unicodedata
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

Grid = list[list[str]]

_ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA = (
    Path(os.environ["FINCHUNK_SHARED_DATA"]) / "edgar"
    if os.environ.get("FINCHUNK_SHARED_DATA")
    else _ROOT.parent / "shared" / "data" / "edgar"
)
DEFAULT_CACHE = Path.home() / ".cache" / "finchunk-bench" / "pdf_structure"
SYSTEMS = ("finchunk", "pymupdf4llm", "pdfplumber")
#: Part of the printed PDF's cache key: change it when the print flags change.
PRINT_VERSION = "chromium-letter-v1"
#: Part of a peer reading's cache key: change it when an adapter below changes.
READ_VERSION = "v1"

# ---------------------------------------------------------------------------------------
# Normalising text
# ---------------------------------------------------------------------------------------

_FOLD = str.maketrans(
    {
        "\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"', "\u2014": "-",
        "\u2013": "-", "\u2212": "-", "\u2011": "-", "\u00a0": " ", "\u00ad": None,
        "\u200b": None,
    }
)
_NON_WORD = re.compile(r"[\W_]+")
_SPACE = re.compile(r"\s+")
_TOKEN = re.compile(r"\w+|[^\w\s]")
_ANCHOR = re.compile(r"\w[\w.,'-]*\w")


def fold(text: str) -> str:
    """NFKC with typographic quotes and dashes made plain, soft hyphens dropped."""
    return unicodedata.normalize("NFKC", text).translate(_FOLD)


def norm_heading(text: str) -> str:
    """Heading text for matching: case, punctuation and whitespace folded."""
    return " ".join(_NON_WORD.sub(" ", fold(text).casefold()).split())


def norm_cell(text: str) -> str:
    """Cell text for matching: case folded, whitespace removed (``$ 1,234`` = ``$1,234``)."""
    return _SPACE.sub("", fold(text)).casefold()


# ---------------------------------------------------------------------------------------
# Tables written as Markdown (finchunk's HTML, finchunk's PDF when it writes them, pymupdf4llm)
# ---------------------------------------------------------------------------------------

_MD_ROW = re.compile(r"^\s*\|.*\|\s*$")
_MD_SEP = re.compile(r"^\s*\|(?:\s*:?-{3,}:?\s*\|)+\s*$")
_PIPE = re.compile(r"(?<!\\)\|")
_MAX_HEADER_ROWS = 4  # as finchunk.parse.html_table


def md_cells(line: str) -> list[str]:
    """The cells of one ``| a | b |`` row (escaped ``\\|`` stays inside its cell)."""
    inner = line.strip()[1:-1]
    return [c.strip().replace("\\|", "|") for c in _PIPE.split(inner)]


def md_tables(text: str) -> list[Grid]:
    """Each run of two or more consecutive ``|`` lines is a table (separators dropped)."""
    tables: list[Grid] = []
    run: list[str] = []
    for line in [*text.splitlines(), ""]:
        if _MD_ROW.match(line):
            run.append(line)
            continue
        if len(run) >= 2:
            tables.append([md_cells(r) for r in run if not _MD_SEP.match(r)])
        run = []
    return [t for t in tables if t]


def element_grid(text: str) -> Grid:
    """A table element's rows: its ``|`` rows when it has any (caption lines left out),
    else each non-empty line as a row of one column (finchunk's PDF tables before issue 36,
    a block without number columns now)."""
    rows = [md_cells(x) for x in text.splitlines() if _MD_ROW.match(x) and not _MD_SEP.match(x)]
    if rows:
        return rows
    return [[x.strip()] for x in text.splitlines() if x.strip()]


def compact(grid: Sequence[Sequence[str | None]]) -> Grid:
    """Rows and columns that hold no text dropped; ``None`` cells read as empty; a cell
    holding only ``$`` or ``(`` joins the next cell, ``)`` or ``%`` the previous one; two to
    four leading rows with an empty first cell (headers stacked: "Years ended" over the
    years) merged into one row, column by column. These are the rules finchunk's HTML
    tables follow (:func:`finchunk.parse.html_table.compact_grid`), applied to every reader
    alike, so a reader that keeps the printed header rows apart is not counted wrong."""
    from finchunk.parse.html_table import merge_symbols

    rows = []
    for r in grid:
        cells = [[j, 1, " ".join((c or "").split())] for j, c in enumerate(r)]
        merge_symbols(cells)
        rows.append([c[2] for c in cells])
    rows = [r for r in rows if any(r)]
    width = max((len(r) for r in rows), default=0)
    rows = [r + [""] * (width - len(r)) for r in rows]
    keep = [j for j in range(width) if any(r[j] for r in rows)]
    rows = [[r[j] for j in keep] for r in rows]
    head = 0
    while head < min(_MAX_HEADER_ROWS, len(rows)) and not rows[head][0]:
        head += 1
    if 2 <= head < len(rows):
        merged = [" ".join(r[j] for r in rows[:head] if r[j]) for j in range(len(keep))]
        rows = [merged, *rows[head:]]
    return rows


def shape(grid: Grid) -> tuple[int, int]:
    return len(grid), max((len(r) for r in grid), default=0)


def content_text(text: str, once_in_header: bool = False) -> str:
    """Text without Markdown table markup: separator lines dropped, cell pipes spaced.

    ``once_in_header``: each word of a table's first row counted once. finchunk's HTML
    tables merge stacked header rows, repeating a spanning header ("Three Months Ended",
    "(in thousands, except per share data)") over every column it spans; the printed page
    shows it once, so the gold text must not ask for it once per column."""
    out = []
    in_table = False
    for line in text.splitlines():
        if _MD_SEP.match(line):
            continue
        if _MD_ROW.match(line):
            cells = " ".join(md_cells(line))
            if once_in_header and not in_table:
                cells = " ".join(dict.fromkeys(cells.split()))
            in_table, line = True, cells
        else:
            in_table = False
        out.append(line)
    return "\n".join(out)


# ---------------------------------------------------------------------------------------
# What a reader found
# ---------------------------------------------------------------------------------------


@dataclass
class Reading:
    """One reader's view of one document: headings (text, level), tables, plain text."""

    headings: list[tuple[str, int]] = field(default_factory=list)
    tables: list[Grid] = field(default_factory=list)
    text: str = ""
    pages: int = 0
    seconds: float = 0.0


def reading_of_document(doc, seconds: float = 0.0, gold: bool = False) -> Reading:
    """A finchunk Document's headings, tables (table elements, and ``|`` runs inside other
    elements) and text (table markup removed; for the gold, the words of each table's
    header row once, see :func:`content_text`)."""
    from finchunk.model import ElementKind

    r = Reading(pages=len(doc.pages), seconds=seconds)
    parts = []
    for e in doc.elements:
        t = doc.text[e.start : e.end]
        if e.kind is ElementKind.HEADING:
            r.headings.append((" ".join(t.split()), e.level))
        elif e.kind is ElementKind.TABLE:
            r.tables.append(compact(element_grid(t)))
        else:
            r.tables.extend(compact(g) for g in md_tables(t))
        parts.append(content_text(t, once_in_header=gold))
    r.tables = [g for g in r.tables if g]
    r.text = "\n\n".join(parts)
    return r


# ---------------------------------------------------------------------------------------
# Scores (pure functions of two readings; tests/test_pdf_structure_bench.py checks them)
# ---------------------------------------------------------------------------------------


def match_headings(
    gold: Sequence[tuple[str, int]], pred: Sequence[tuple[str, int]]
) -> list[tuple[int, int]]:
    """Pairs (gold index, pred index) of equal normalised text; each used once, the
    earliest unused pred heading after the previous match first, else the earliest."""
    where: dict[str, list[int]] = {}
    for j, (t, _) in enumerate(pred):
        k = norm_heading(t)
        if k:
            where.setdefault(k, []).append(j)
    used: set[int] = set()
    pairs: list[tuple[int, int]] = []
    last = -1
    for i, (t, _) in enumerate(gold):
        cands = [j for j in where.get(norm_heading(t), ()) if j not in used]
        if not cands:
            continue
        j = next((j for j in cands if j > last), cands[0])
        used.add(j)
        pairs.append((i, j))
        last = j
    return pairs


def _sign(x: int) -> int:
    return (x > 0) - (x < 0)


def heading_counts(gold: Sequence[tuple[str, int]], pred: Sequence[tuple[str, int]]) -> dict:
    gold = [h for h in gold if norm_heading(h[0])]
    pred = [h for h in pred if norm_heading(h[0])]
    pairs = match_headings(gold, pred)
    steps = same = 0
    for (g0, p0), (g1, p1) in zip(pairs, pairs[1:], strict=False):
        steps += 1
        same += _sign(gold[g1][1] - gold[g0][1]) == _sign(pred[p1][1] - pred[p0][1])
    exact = sum(gold[g][1] == pred[p][1] for g, p in pairs)
    return {
        "gold": len(gold), "pred": len(pred), "matched": len(pairs),
        "level_steps": steps, "level_same": same, "level_exact": exact,
    }


def _bag(grid: Grid) -> Counter:
    return Counter(w for row in grid for c in row for w in _NON_WORD.split(fold(c).casefold()) if w)


def match_tables(gold: Sequence[Grid], pred: Sequence[Grid], min_share: float = 0.5) -> list:
    """For each gold table, the index of the unused pred table sharing the largest share of
    its word tokens (at least ``min_share``), or None."""
    pbags = [_bag(p) for p in pred]
    index: dict[str, set[int]] = {}
    for j, b in enumerate(pbags):
        for w in b:
            index.setdefault(w, set()).add(j)
    used: set[int] = set()
    out: list[int | None] = []
    for g in gold:
        gb = _bag(g)
        total = sum(gb.values())
        cands = set().union(*(index.get(w, ()) for w in gb)) - used if gb else set()
        best, best_share = None, 0.0
        for j in sorted(cands):
            share = sum((gb & pbags[j]).values()) / total
            if share > best_share:
                best, best_share = j, share
        if best is not None and best_share >= min_share:
            used.add(best)
            out.append(best)
        else:
            out.append(None)
    return out


def table_counts(gold: Sequence[Grid], pred: Sequence[Grid]) -> dict:
    found = equal = rows_eq = cols_eq = cells = cells_hit = 0
    for g, j in zip(gold, match_tables(gold, pred), strict=True):
        gcells = Counter(norm_cell(c) for row in g for c in row if c.strip())
        cells += sum(gcells.values())
        if j is None:
            continue
        p = pred[j]
        found += 1
        (gr, gc), (pr, pc) = shape(g), shape(p)
        rows_eq += gr == pr
        cols_eq += gc == pc
        equal += gr == pr and gc == pc
        pcells = Counter(norm_cell(c) for row in p for c in row if c.strip())
        cells_hit += sum((gcells & pcells).values())
    return {
        "gold": len(gold), "pred": len(pred), "found": found, "equal_shape": equal,
        "rows_equal": rows_eq, "cols_equal": cols_eq, "cells": cells, "cells_found": cells_hit,
    }


def char_counts(gold_text: str, pred_text: str) -> dict:
    """Non-whitespace characters of the gold text, and how many the pred text holds
    (tokens as a multiset, each weighted by its length)."""
    g = Counter(_TOKEN.findall(fold(gold_text).casefold()))
    p = Counter(_TOKEN.findall(fold(pred_text).casefold()))
    total = sum(len(t) * n for t, n in g.items())
    present = sum(len(t) * min(n, p[t]) for t, n in g.items() if t in p)
    return {"chars": total, "chars_present": present}


def _anchors(text: str) -> dict[str, int]:
    words = [w for w in _ANCHOR.findall(fold(text).casefold()) if len(w) >= 4]
    counts = Counter(words)
    return {w: i for i, w in enumerate(words) if counts[w] == 1}


def lis_length(seq: Sequence[int]) -> int:
    """Length of the longest strictly increasing subsequence (patience sorting)."""
    import bisect

    tails: list[int] = []
    for x in seq:
        k = bisect.bisect_left(tails, x)
        if k == len(tails):
            tails.append(x)
        else:
            tails[k] = x
    return len(tails)


def inversions(seq: Sequence[int]) -> int:
    """Pairs i < j with seq[i] > seq[j] (merge sort, n log n)."""
    a = list(seq)
    n, inv, width = len(a), 0, 1
    buf = a[:]
    while width < n:
        for lo in range(0, n, 2 * width):
            mid, hi = min(lo + width, n), min(lo + 2 * width, n)
            i, j, k = lo, mid, lo
            while i < mid and j < hi:
                if a[i] <= a[j]:
                    buf[k] = a[i]
                    i += 1
                else:
                    buf[k] = a[j]
                    inv += mid - i
                    j += 1
                k += 1
            buf[k : k + mid - i] = a[i:mid]
            k += mid - i
            buf[k : k + hi - j] = a[j:hi]
        a, buf = buf, a
        width *= 2
    return inv


def order_counts(gold_text: str, pred_text: str) -> dict:
    g, p = _anchors(gold_text), _anchors(pred_text)
    common = sorted((g[w], p[w]) for w in g.keys() & p.keys())
    seq = [pp for _, pp in common]
    n = len(seq)
    return {
        "anchors": n,
        "in_order": lis_length(seq),
        "pairs": n * (n - 1) // 2,
        "discordant": inversions(seq),
    }


def _compacted(tables: Sequence[Grid]) -> list[Grid]:
    return [g for g in map(compact, tables) if g]


def score(gold: Reading, pred: Reading) -> dict:
    """All counts for one document; :func:`summarise` turns summed counts into shares."""
    return {
        "headings": heading_counts(gold.headings, pred.headings),
        # compacted here as well, so readings cached before a change of rules follow it
        "tables": table_counts(_compacted(gold.tables), _compacted(pred.tables)),
        "text": char_counts(gold.text, pred.text) | order_counts(gold.text, pred.text),
        "pages": pred.pages,
        "seconds": pred.seconds,
    }


def add_counts(items: Iterable[dict]) -> dict:
    out: dict = {}
    for d in items:
        for k, v in d.items():
            out[k] = add_counts([out.get(k, {}), v]) if isinstance(v, dict) else out.get(k, 0) + v
    return out


def _div(a: float, b: float) -> float | None:
    return a / b if b else None


def summarise(c: dict) -> dict:
    """Shares from (summed) counts; None where the denominator is zero."""
    h, t, x = c["headings"], c["tables"], c["text"]
    p, r = _div(h["matched"], h["pred"]), _div(h["matched"], h["gold"])
    f1 = 2 * p * r / (p + r) if p and r else (0.0 if p is not None and r is not None else None)
    tau = 1 - 2 * x["discordant"] / x["pairs"] if x["pairs"] else None
    return {
        "heading_precision": p,
        "heading_recall": r,
        "heading_f1": f1,
        "heading_level_agreement": _div(h["level_same"], h["level_steps"]),
        "heading_level_exact": _div(h["level_exact"], h["matched"]),
        "tables_found": _div(t["found"], t["gold"]),
        "tables_equal_shape": _div(t["equal_shape"], t["gold"]),
        "tables_rows_equal": _div(t["rows_equal"], t["gold"]),
        "tables_cols_equal": _div(t["cols_equal"], t["gold"]),
        "cell_agreement": _div(t["cells_found"], t["cells"]),
        "chars_present": _div(x["chars_present"], x["chars"]),
        "order_lis": _div(x["in_order"], x["anchors"]),
        "order_tau": tau,
        "pages_per_s": _div(c["pages"], c["seconds"]),
    }


# ---------------------------------------------------------------------------------------
# Printing HTML to PDF
# ---------------------------------------------------------------------------------------


def chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


def sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def print_pdf(html: Path, cache: Path, timeout: float = 300) -> Path:
    """The cached PDF of ``html`` printed by headless Chromium (printed now if absent)."""
    key = hashlib.sha256(f"{sha256(html)}|{PRINT_VERSION}".encode()).hexdigest()[:24]
    out = cache / "pdf" / f"{key}.pdf"
    if out.is_file() and out.stat().st_size > 0:
        return out
    exe = chromium()
    if exe is None:
        raise SystemExit("headless Chromium not installed (Debian: apt-get install -y chromium)")
    out.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="pdfbench-") as tmp:
        tmp_pdf = Path(tmp) / "out.pdf"
        cmd = [
            exe, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
            "--no-first-run", "--disable-background-networking", "--disable-extensions",
            "--disable-sync", "--disable-component-update",
            # no network: every host resolves to nothing, and any proxied load dies
            "--host-resolver-rules=MAP * ~NOTFOUND", "--proxy-server=http://127.0.0.1:9",
            "--no-pdf-header-footer", "--print-to-pdf-no-header",
            f"--user-data-dir={Path(tmp) / 'profile'}",
            f"--print-to-pdf={tmp_pdf}",
            html.resolve().as_uri(),
        ]
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, check=False)
        if not tmp_pdf.is_file() or tmp_pdf.stat().st_size == 0:
            tail = (proc.stderr or "").strip().splitlines()[-1:] or ["no output"]
            raise SystemExit(f"{html}: Chromium printed no PDF (rc {proc.returncode}): {tail[0]}")
        shutil.move(str(tmp_pdf), out.with_suffix(".tmp"))
        os.replace(out.with_suffix(".tmp"), out)
    return out


# ---------------------------------------------------------------------------------------
# Readers
# ---------------------------------------------------------------------------------------


def read_html(path: Path) -> Reading:
    from finchunk.parse import load

    return reading_of_document(load(path), gold=True)


def read_finchunk(pdf: Path) -> Reading:
    import finchunk.parse.pdf  # noqa: F401  (imported before the clock starts)
    from finchunk.parse import load

    t0 = time.perf_counter()
    doc = load(pdf)
    return reading_of_document(doc, time.perf_counter() - t0)


_MD_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_EMPHASIS = re.compile(r"\*\*|__|(?<!\w)_(?=\S)|(?<=\S)_(?!\w)|`")
_BR = re.compile(r"<br\s*/?>", re.I)


def reading_of_markdown(md: str, pages: int = 0, seconds: float = 0.0) -> Reading:
    """Headings from ``#`` lines (level = number of ``#``), tables from ``|`` runs, text
    without emphasis marks, ``<br>`` or table markup."""
    md = _BR.sub(" ", md)
    plain = _EMPHASIS.sub("", md)
    r = Reading(pages=pages, seconds=seconds)
    for line in plain.splitlines():
        m = _MD_HEADING.match(line)
        if m and m.group(2).strip():
            r.headings.append((m.group(2).strip(), len(m.group(1))))
    r.tables = [g for g in (compact(t) for t in md_tables(plain)) if g]
    r.text = content_text(plain)
    return r


def read_pymupdf4llm(pdf: Path) -> Reading:
    import pymupdf
    import pymupdf4llm

    pymupdf4llm.use_layout(False)  # the non-ML path (the layout model is a separate peer)
    t0 = time.perf_counter()
    md = pymupdf4llm.to_markdown(str(pdf), show_progress=False)
    seconds = time.perf_counter() - t0
    with pymupdf.open(str(pdf)) as d:
        pages = d.page_count
    return reading_of_markdown(md, pages, seconds)


_BOLD = ("bold", "black", "heavy", "semibold", "demi")


def read_pdfplumber(pdf: Path) -> Reading:
    """Text lines and ``find_tables`` per page; a line is a heading when it is set larger
    than the body size (the most common size by characters) or all bold, and lies outside
    every table; levels rank the heading sizes, body-size bold last."""
    import pdfplumber

    t0 = time.perf_counter()
    lines: list[tuple[str, float, bool]] = []
    texts: list[str] = []
    r = Reading()
    sizes: Counter = Counter()
    with pdfplumber.open(str(pdf)) as doc:
        r.pages = len(doc.pages)
        for page in doc.pages:
            found = page.find_tables()
            boxes = [t.bbox for t in found]
            r.tables.extend(g for g in (compact(t.extract()) for t in found) if g)
            for ln in page.extract_text_lines(return_chars=True, strip=True):
                chars = [c for c in ln["chars"] if c["text"].strip()]
                if not chars:
                    continue
                texts.append(ln["text"])
                size = statistics.median(round(c["size"], 1) for c in chars)
                sizes[size] += len(chars)
                mid = (ln["top"] + ln["bottom"]) / 2
                if any(x0 <= ln["x0"] <= x1 and top <= mid <= bot for x0, top, x1, bot in boxes):
                    continue
                bold = all(any(b in c["fontname"].lower() for b in _BOLD) for c in chars)
                lines.append((ln["text"], size, bold))
    r.seconds = time.perf_counter() - t0
    body = sizes.most_common(1)[0][0] if sizes else 0.0
    big = sorted({s for _, s, _ in lines if s >= body * 1.1}, reverse=True)
    rank = {s: i + 1 for i, s in enumerate(big)}
    for text, size, bold in lines:
        if len(text) > 150 or not any(ch.isalpha() for ch in text):
            continue
        if size in rank:
            r.headings.append((text, rank[size]))
        elif bold and size >= body * 0.95:
            r.headings.append((text, len(big) + 1))
    r.text = "\n".join(texts)
    return r


def read_pymupdf4llm_layout(pdf: Path) -> Reading:
    import pymupdf
    import pymupdf4llm

    pymupdf4llm.use_layout(True)
    try:
        t0 = time.perf_counter()
        md = pymupdf4llm.to_markdown(str(pdf), show_progress=False, use_ocr=False)
        seconds = time.perf_counter() - t0
    finally:
        pymupdf4llm.use_layout(False)
    with pymupdf.open(str(pdf)) as d:
        pages = d.page_count
    return reading_of_markdown(md, pages, seconds)


READERS = {
    "finchunk": read_finchunk,
    "pymupdf4llm": read_pymupdf4llm,
    "pdfplumber": read_pdfplumber,
    # the ML layout path (pymupdf-layout's model, on the CPU): opt in with --systems
    "pymupdf4llm-layout": read_pymupdf4llm_layout,
}
_PACKAGES = {
    "pymupdf4llm": "pymupdf4llm", "pdfplumber": "pdfplumber", "pymupdf4llm-layout": "pymupdf4llm"
}


def peer_version(system: str) -> str | None:
    """The installed version of a peer, None when it is not installed."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(_PACKAGES[system])
    except PackageNotFoundError:
        return None


def _html_parser_hash() -> str:
    """What the gold depends on besides the HTML: finchunk's parsing code (its PDF reader
    excepted), this bench's reading rules."""
    import finchunk

    h = hashlib.sha256(READ_VERSION.encode())
    root = Path(finchunk.__file__).parent
    for f in sorted([root / "model.py", *(root / "parse").glob("*.py")]):
        if not f.name.startswith("pdf"):
            h.update(f.name.encode() + f.read_bytes())
    return h.hexdigest()[:16]


def read_gold(html: Path, cache: Path) -> Reading:
    """The HTML's reading, cached by the HTML's hash and finchunk's HTML parsing code."""
    path = cache / "gold" / f"{sha256(html)[:24]}-{_html_parser_hash()}.json"
    if path.is_file():
        d = json.loads(path.read_text(encoding="utf-8"))
        d["headings"] = [tuple(h) for h in d["headings"]]
        return Reading(**d)
    r = read_html(html)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(asdict(r)), encoding="utf-8")
    os.replace(tmp, path)
    return r


def read_cached(system: str, pdf: Path, cache: Path, fresh: bool) -> Reading:
    """A peer's reading of ``pdf``, from the cache when it was read before (finchunk is
    never cached: it is what changes)."""
    if system == "finchunk":
        return read_finchunk(pdf)
    key = f"{sha256(pdf)[:24]}-{system}-{peer_version(system)}-{READ_VERSION}"
    path = cache / "readings" / f"{key}.json"
    if path.is_file() and not fresh:
        d = json.loads(path.read_text(encoding="utf-8"))
        d["headings"] = [tuple(h) for h in d["headings"]]
        return Reading(**d)
    r = READERS[system](pdf)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(asdict(r)), encoding="utf-8")
    os.replace(tmp, path)
    return r


# ---------------------------------------------------------------------------------------
# The run
# ---------------------------------------------------------------------------------------


def html_files(data: Path) -> list[Path]:
    return sorted(p for p in data.rglob("*") if p.suffix.lower() in {".htm", ".html"})


def _fmt(v: float | None, pct: bool = True) -> str:
    if v is None:
        return "—"
    return f"{v:.3f}" if pct else f"{v:.1f}"


COLUMNS = (
    ("head P", "heading_precision"), ("head R", "heading_recall"), ("head F1", "heading_f1"),
    ("level", "heading_level_agreement"), ("tbl found", "tables_found"),
    ("rows×cols", "tables_equal_shape"), ("cells", "cell_agreement"),
    ("chars", "chars_present"), ("LIS", "order_lis"), ("tau", "order_tau"),
)


def explain(name: str, gold: Reading, pred: Reading, most: int) -> None:
    """Headings missed and added, and tables whose shape differs (gold vs pred), to stderr."""
    g = [h for h in gold.headings if norm_heading(h[0])]
    p = [h for h in pred.headings if norm_heading(h[0])]
    pairs = match_headings(g, p)
    hit_g, hit_p = {i for i, _ in pairs}, {j for _, j in pairs}
    say = lambda *a: print(*a, file=sys.stderr)  # noqa: E731
    say(f"== {name}")
    missed = [h for i, h in enumerate(g) if i not in hit_g]
    added = [h for j, h in enumerate(p) if j not in hit_p]
    say(f"  headings missed ({len(missed)}):")
    for t, lvl in missed[:most]:
        say(f"    L{lvl} {t[:100]!r}")
    say(f"  headings added ({len(added)}):")
    for t, lvl in added[:most]:
        say(f"    L{lvl} {t[:100]!r}")
    shown = 0
    for gt, j in zip(gold.tables, match_tables(gold.tables, pred.tables), strict=True):
        if j is not None and shape(gt) == shape(pred.tables[j]):
            continue
        if shown == most:
            break
        shown += 1
        got = "not found" if j is None else f"{shape(pred.tables[j])} {pred.tables[j][0][:4]}"
        say(f"  table {shape(gt)} {gt[0][:4]} -> {got}")


def print_table(rows: list[tuple[str, dict]]) -> None:
    head = f"{'system':20} " + " ".join(f"{h:>9}" for h, _ in COLUMNS) + f" {'pages/s':>8}"
    print(head)
    print("-" * len(head))
    for name, s in rows:
        cells = " ".join(f"{_fmt(s[k]):>9}" for _, k in COLUMNS)
        print(f"{name[:20]:20} {cells} {_fmt(s['pages_per_s'], pct=False):>8}")


def main(argv: Sequence[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="*", type=Path, help="HTML filings (default: all in --data)")
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--cache", type=Path, default=DEFAULT_CACHE)
    ap.add_argument("--systems", default=",".join(SYSTEMS), help="comma-separated readers")
    ap.add_argument("--out", type=Path, help="write the figures (per file and total) as JSON")
    ap.add_argument("--per-file", action="store_true", help="a table per filing as well")
    ap.add_argument("--fresh", action="store_true", help="reread the peers (not the PDFs)")
    ap.add_argument(
        "--explain", metavar="SYSTEM", help="list what SYSTEM missed or added, per filing"
    )
    ap.add_argument("--explain-max", type=int, default=15, help="items per list (--explain)")
    args = ap.parse_args(argv)

    files = args.files or html_files(args.data)
    if not files:
        raise SystemExit(f"no HTML filings found in {args.data} (pass --data or FILE.htm)")
    systems = [s.strip() for s in args.systems.split(",") if s.strip()]
    unknown = [s for s in systems if s not in READERS]
    if unknown:
        raise SystemExit(f"unknown system(s) {', '.join(unknown)}; known: {', '.join(READERS)}")
    for s in [s for s in systems if s != "finchunk" and peer_version(s) is None]:
        print(f"skipped {s}: not installed (pip install {_PACKAGES[s]})", file=sys.stderr)
        systems.remove(s)

    per_file: dict[str, dict[str, dict]] = {}
    for html in files:
        t0 = time.perf_counter()
        pdf = print_pdf(html, args.cache)
        printed = time.perf_counter() - t0
        gold = read_gold(html, args.cache)
        inside = html.is_relative_to(args.data)
        name = html.relative_to(args.data).as_posix() if inside else str(html)
        per_file[name] = {}
        for system in systems:
            reading = read_cached(system, pdf, args.cache, args.fresh)
            per_file[name][system] = score(gold, reading)
            if system == args.explain:
                explain(name, gold, reading, args.explain_max)
        pages = next(iter(per_file[name].values()))["pages"] if systems else 0
        print(
            f"{name}: {pages} pages, {len(gold.headings)} headings, {len(gold.tables)} tables"
            f" (printed/cached in {printed:.1f} s)",
            file=sys.stderr,
        )
        if args.per_file:
            print_table([(s, summarise(c)) for s, c in per_file[name].items()])

    totals = {s: add_counts(per_file[f][s] for f in per_file) for s in systems}
    summary = {s: summarise(c) for s, c in totals.items()}
    pages = max((c["pages"] for c in totals.values()), default=0)
    print(f"\n{len(per_file)} EDGAR filings printed by Chromium, {pages} pages")
    print_table(list(summary.items()))
    if args.out:
        out = {
            "files": len(per_file), "pages": pages, "summary": summary, "counts": totals,
            "per_file": {
                f: {s: {"summary": summarise(c), "counts": c} for s, c in d.items()}
                for f, d in per_file.items()
            },
            "versions": {s: peer_version(s) for s in systems if s != "finchunk"},
        }
        args.out.write_text(json.dumps(out, indent=1), encoding="utf-8")
        print(f"figures written to {args.out}")


if __name__ == "__main__":
    main()
