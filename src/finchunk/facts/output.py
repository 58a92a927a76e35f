"""JSON-ready dicts and one-line texts of answers (values as decimal strings, dates ISO)."""

from __future__ import annotations

from typing import Any

from finchunk.facts.concepts import Suggestions
from finchunk.facts.model import (
    Answer,
    ConceptUse,
    Derivation,
    Filing,
    FrameRow,
    Observation,
    Period,
)
from finchunk.facts.values import decimal_text, display_value


def _start(period: Period | None) -> str | None:
    return None if period is None or period.start is None else period.start.isoformat()


def _end(period: Period | None) -> str | None:
    return None if period is None else period.end.isoformat()


def derivation_json(derived: Derivation) -> dict[str, Any]:
    return {
        "method": derived.method,
        "inputs": [
            {
                "sign": "+" if item.sign > 0 else "-",
                "value": decimal_text(item.value),
                "start": _start(item.period),
                "end": _end(item.period),
                "accn": item.filing.accn,
                "form": item.filing.form,
                "filed": item.filing.filed.isoformat(),
            }
            for item in derived.inputs
        ],
    }


def answer_json(answer: Answer) -> dict[str, Any]:
    """``{"value", "unit", "start", "end", "accn", "form", "filed", "derived", ...}``. A derived
    value has no accession of its own; its ``filed`` is the day its last input was filed."""
    filing = answer.filing
    filed = filing.filed if filing else _derived_filed(answer.derived)
    return {
        "value": None if answer.value is None else decimal_text(answer.value),
        "display": None if answer.value is None else display_value(answer.value, answer.unit),
        "unit": answer.unit,
        "start": _start(answer.period),
        "end": _end(answer.period),
        "accn": filing.accn if filing else None,
        "form": filing.form if filing else None,
        "filed": filed.isoformat() if filed else None,
        "derived": derivation_json(answer.derived) if answer.derived else None,
        "cik": answer.cik,
        "concept": answer.concept,
        "reason": answer.reason,
    }


def _derived_filed(derived: Derivation | None):
    return max(item.filing.filed for item in derived.inputs) if derived else None


def filing_label(filing: Filing, fy: int | None, fp: str | None) -> str:
    """A filing as an analyst names it: "the FY2025 10-K", "the Q2 FY2025 10-Q"; by its
    accession when its fiscal period is not known ("the 10-K 0000320193-25-000079")."""
    if fy is None:
        return f"the {filing.form} {filing.accn}"
    period = f"FY{fy}" if fp in (None, "FY") else f"{fp} FY{fy}"
    return f"the {period} {filing.form}"


def concept_use_json(use: ConceptUse) -> dict[str, Any]:
    return {"concept": use.concept, "label": use.label, "last_end": use.last_end.isoformat()}


def suggestions_json(found: Suggestions) -> dict[str, Any]:
    return {
        "asked_last_end": found.asked.last_end.isoformat() if found.asked else None,
        "similar": [concept_use_json(u) for u in found.similar],
    }


def suggestion_lines(cik: int, found: Suggestions) -> list[str]:
    """What to ask instead: how recent the asked concept's facts are, and the concepts closest
    to it that the entity reports, one a line with its label and latest period end."""
    lines = []
    if found.asked is not None:
        lines.append(
            f"CIK {cik} reports {found.asked.concept} for periods up to "
            f"{found.asked.last_end.isoformat()}"
        )
    if found.similar:
        lines.append(f"closest concepts CIK {cik} reports (entity-wide):")
    for u in found.similar:
        label = f" ({u.label})" if u.label else ""
        lines.append(f"  {u.concept}{label}, up to {u.last_end.isoformat()}")
    return lines


def observation_json(obs: Observation) -> dict[str, Any]:
    return {
        "value": decimal_text(obs.value),
        "accn": obs.filing.accn,
        "form": obs.filing.form,
        "filed": obs.filing.filed.isoformat(),
    }


def frame_row_json(row: FrameRow) -> dict[str, Any]:
    return {
        "cik": row.cik,
        "value": decimal_text(row.value),
        "unit": row.unit,
        "accn": row.filing.accn,
        "form": row.filing.form,
        "filed": row.filing.filed.isoformat(),
    }


def answer_line(answer: Answer) -> str:
    data = answer_json(answer)
    period = f"{data['start']}..{data['end']}" if data["start"] else f"instant {data['end']}"
    if data["value"] is None:
        where = "" if answer.period is None else f" {period}"
        return f"{answer.concept}{where}: no value ({answer.reason})"
    source = (
        f"{data['form']} {data['accn']} filed {data['filed']}"
        if answer.filing
        else f"derived {answer.derived.method if answer.derived else ''}, known {data['filed']}"
    )
    return f"{answer.concept} {period}: {data['display']} ({source})"
