"""Point-in-time XBRL fact store: companyfacts JSON, XBRL instances and inline XBRL in a SQLite
file; values as known on a date, their history, frames across entities and derived Q4s."""

from finchunk.facts.model import Answer, Fact, Filing, FrameRow, Observation, Period, PeriodKind
from finchunk.facts.store import FactStore

__all__ = [
    "Answer",
    "Fact",
    "FactStore",
    "Filing",
    "FrameRow",
    "Observation",
    "Period",
    "PeriodKind",
]
