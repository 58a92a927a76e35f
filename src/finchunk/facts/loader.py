"""Pick the parser for a file: companyfacts JSON, XBRL instance XML or inline XBRL HTML."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path

from finchunk.errors import InputError, ParseError
from finchunk.extras import import_extra
from finchunk.facts.companyfacts import read_companyfacts
from finchunk.facts.instance import FilingOverride
from finchunk.facts.model import ParsedFacts
from finchunk.facts.xbrl import read_instance


class SourceKind(StrEnum):
    COMPANYFACTS = "companyfacts"
    INSTANCE = "xbrl-instance"
    INLINE = "inline-xbrl"


_BY_SUFFIX = {
    ".json": SourceKind.COMPANYFACTS,
    ".xml": SourceKind.INSTANCE,
    ".xbrl": SourceKind.INSTANCE,
    ".htm": SourceKind.INLINE,
    ".html": SourceKind.INLINE,
    ".xhtml": SourceKind.INLINE,
}


def kind_of(path: Path) -> SourceKind:
    kind = _BY_SUFFIX.get(path.suffix.lower())
    if kind is None:
        raise InputError(
            f"{path}: unknown kind of fact file (expected .json companyfacts, "
            ".xml XBRL instance or .htm/.html inline XBRL)"
        )
    return kind


def read_facts(path: Path, given: FilingOverride | None = None) -> ParsedFacts:
    """Parse one file of facts. ``given`` (accession, form, filed) applies to XBRL files only:
    companyfacts carries them per observation."""
    if not path.is_file():
        raise ParseError(str(path), "no such file")
    kind = kind_of(path)
    given = given or FilingOverride()
    if kind is SourceKind.COMPANYFACTS:
        if given != FilingOverride():
            raise InputError(
                f"{path}: --accn/--form/--filed apply to XBRL instance and inline "
                "XBRL files; companyfacts gives them for every observation"
            )
        return read_companyfacts(path)
    if kind is SourceKind.INSTANCE:
        return read_instance(path, given)
    return _inline_reader(path)(path, given)


def _inline_reader(path: Path):
    """The inline XBRL parser, imported on first use: selectolax is an optional dependency
    (the ``html`` extra), so the rest of the fact store works without it."""
    import_extra("selectolax", "html", "reading inline XBRL", path)
    from finchunk.facts.ixbrl import read_inline

    return read_inline
