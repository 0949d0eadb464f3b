from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SAMPLE_WORKDIR = ROOT / "sample_traces" / "workdir"

sys.path.insert(0, str(Path(__file__).resolve().parent))


@pytest.fixture
def sample_workdir() -> Path:
    return SAMPLE_WORKDIR


@pytest.fixture
def write_trace(tmp_path: Path):
    """Write lines (str or dict) to <tmp>/<session>/trace.jsonl and return its path."""
    import json

    def write(
        lines=(), session: str = "ses_0000000000007000800000000000000a", raw: str | None = None
    ):
        directory = tmp_path / session
        directory.mkdir(parents=True, exist_ok=True)
        path = directory / "trace.jsonl"
        if raw is None:
            raw = "".join(
                (line if isinstance(line, str) else json.dumps(line)) + "\n" for line in lines
            )
        path.write_text(raw, encoding="utf-8")
        return path

    return write
