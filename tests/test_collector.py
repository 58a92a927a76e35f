"""The cyclic collector is paused for a parse or a chunking, and left as the caller had it."""

from __future__ import annotations

import gc

import pytest

from finchunk.chunk import ByTitle, Fixed, Recursive, Structure
from finchunk.collector import collector_paused, paused
from finchunk.parse.markdown import parse_markdown


def test_paused_restores_the_callers_state_even_on_error() -> None:
    assert gc.isenabled()
    with pytest.raises(ValueError), paused():
        assert not gc.isenabled()
        raise ValueError
    assert gc.isenabled()
    gc.disable()
    try:
        with paused():
            pass
        assert not gc.isenabled()  # the caller's own gc.disable() stands
    finally:
        gc.enable()


def test_parsing_and_chunking_run_with_the_collector_paused(monkeypatch) -> None:
    import finchunk.chunk.structure as structure
    import finchunk.parse.markdown as markdown

    seen: list[tuple[str, bool]] = []

    def spying(name, original):  # noqa: ANN001, ANN202 - a test double
        def spy(*args):  # noqa: ANN002, ANN202
            seen.append((name, gc.isenabled()))
            return original(*args)

        return spy

    monkeypatch.setattr(markdown, "_first_pass", spying("parse", markdown._first_pass))
    monkeypatch.setattr(structure._Pass, "run", spying("pack", structure._Pass.run))
    doc = parse_markdown("# T\n\nUno.\n", "d")
    assert Structure(100).chunk(doc)
    assert seen == [("parse", False), ("pack", False)] and gc.isenabled()
    for chunker in (Fixed(10, 0), Recursive(10), ByTitle(100)):
        assert chunker.chunk(doc) and gc.isenabled()
    assert collector_paused(gc.isenabled)() is False
