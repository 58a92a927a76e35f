from __future__ import annotations

import os
from collections.abc import Iterator
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


@pytest.fixture(autouse=True, scope="session")
def _private_embedding_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Tests embed into a cache of their own, never the user's."""
    old = os.environ.get("FINCHUNK_CACHE_DIR")
    os.environ["FINCHUNK_CACHE_DIR"] = str(tmp_path_factory.mktemp("finchunk-cache"))
    yield
    if old is None:
        os.environ.pop("FINCHUNK_CACHE_DIR", None)
    else:
        os.environ["FINCHUNK_CACHE_DIR"] = old
