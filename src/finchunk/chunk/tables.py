"""Tables as text: GFM pipe tables rewritten as "row label: column = value; …" lines.

Used to test the lesson's claim that linearised tables retrieve no better than Markdown
ones. Only the indexed text changes; chunk spans (the citation) stay the same.
"""

from __future__ import annotations

import re

_DELIM = re.compile(r"^\s*+\|?\s*+:?-++:?\s*+(?:\|\s*+:?-++:?\s*+)*+\|?\s*+$")


def _cells(line: str) -> list[str]:
    s = line.strip()
    if s.startswith("|"):
        s = s[1:]
    if s.endswith("|"):
        s = s[:-1]
    return [c.strip() for c in s.split("|")]


def _linearize_rows(header: list[str], rows: list[list[str]]) -> list[str]:
    out = []
    for row in rows:
        if not row:
            continue
        label, values = row[0], row[1:]
        pairs = [
            f"{header[j + 1] if j + 1 < len(header) else f'col{j + 2}'} = {v}"
            for j, v in enumerate(values)
            if v
        ]
        out.append(f"{label}: {'; '.join(pairs)}" if pairs else label)
    return out


def linearize_tables(text: str) -> str:
    """Rewrite every pipe table in ``text`` (header row + delimiter row + rows)."""
    lines = text.split("\n")
    out: list[str] = []
    i = 0
    while i < len(lines):
        is_table = (
            "|" in lines[i]
            and i + 1 < len(lines)
            and "|" in lines[i + 1]
            and _DELIM.match(lines[i + 1].rstrip("\r"))
        )
        if not is_table:
            out.append(lines[i])
            i += 1
            continue
        header = _cells(lines[i])
        j = i + 2
        rows = []
        while j < len(lines) and "|" in lines[j] and lines[j].strip():
            rows.append(_cells(lines[j]))
            j += 1
        out.extend(_linearize_rows(header, rows))
        i = j
    return "\n".join(out)
