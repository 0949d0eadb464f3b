"""The readers of benchmarks/duckdb_floor.py, the floors the speed benchmark compares
mur-trace with, read what they claim: every non-blank line of every trace, once."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

FLOOR = Path(__file__).resolve().parent.parent / "benchmarks" / "duckdb_floor.py"
READERS = ["lines", "checked", "transformed", "transformed_checked", "structured"]


@pytest.mark.parametrize("reader", READERS)
def test_a_floor_reads_every_line_once(reader: str, sample_workdir: Path) -> None:
    traces = sorted(sample_workdir.glob("ses_*/trace.jsonl"))
    lines = sum(1 for t in traces for line in t.read_text().splitlines() if line.strip())
    done = subprocess.run(
        [sys.executable, str(FLOOR), "--reader", reader, str(sample_workdir)],
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stderr.strip() == f"files={len(traces)} events={lines}"
