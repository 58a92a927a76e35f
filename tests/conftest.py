from __future__ import annotations

import os
from pathlib import Path

import pytest

_DEFAULT = Path(__file__).resolve().parents[2] / "shared" / "data"


def shared_data_dir() -> Path | None:
    """``../shared/data`` beside the project (or $FINCHUNK_SHARED_DATA), None when absent."""
    p = Path(os.environ.get("FINCHUNK_SHARED_DATA", _DEFAULT))
    return p if p.is_dir() else None


@pytest.fixture(scope="session")
def shared_data() -> Path:
    p = shared_data_dir()
    if p is None:
        pytest.skip(
            "real-filing data not present: ../shared/data is beside the project in CI only "
            "(set FINCHUNK_SHARED_DATA to point elsewhere)"
        )
    return p
