"""Patterns of SEC filing text shared by the HTML parser's stages."""

from __future__ import annotations

import re

#: "PART II", "Part I.", "PART II — OTHER INFORMATION"; group 2 is the title after it.
PART_RE = re.compile(r"^PART\s+(IV|I{1,3}|[1-4])\b\.?\s*[-–—:.]?\s*(.*)$", re.I | re.S)
#: "Item 7.", "ITEM 1A:", "Items 1 and 2."; group 1 the number, group 2 the title.
ITEM_RE = re.compile(
    r"^ITEMS?\s*(\d{1,2}\s?[A-D]?)\b(?:\s*(?:,|and|&|through|to|-|–)\s*\d{1,2}[A-D]?\b)*"
    r"\s*[.:\-–—]?\s*(.*)$",
    re.I | re.S,
)
#: A footnote line: "(1) text", "(a) text", "* text", "† text"; group 1 the mark.
NOTE_RE = re.compile(r"^(\((?:\d{1,2}|[a-zA-Z]|[ivx]{2,4})\)|\*{1,3}|[†‡§¶])\s*(\S.*)$", re.S)
#: A cell that only says "this row is an item of a list": a bullet or an enumerator.
BULLET_RE = re.compile(r"(?:[•●◦▪■□○·‣\-–—o*]|\(?[0-9]{1,2}[.)]|\(?[a-z][.)]|\([ivx]{1,4}\))")


def heading_key(text: str) -> str | None:
    """ "PART:II" or "ITEM:1A" for a Part/Item line, None otherwise."""
    m = ITEM_RE.match(text)
    if m:
        return "ITEM:" + m.group(1).replace(" ", "").upper()
    m = PART_RE.match(text)
    if m:
        return "PART:" + m.group(1).upper()
    return None
