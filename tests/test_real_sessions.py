"""Real sessions of other agents (tests/fixtures/real/, see its README): the context policy
against verdicts written by reading each session call by call.

Each `<session>.expected.csv` lists the session's reads (`call_id`, `verdict`, `why`; and
`session_id` where one file holds several sessions, as an OpenHands output does):
`redundant` when the model already held what the call returned, `needed` otherwise. A call
the detector judges otherwise is marked xfail (strict) with the reason it cannot know.
"""

from __future__ import annotations

import csv
from functools import cache
from pathlib import Path

import pytest

import mur_trace

REAL = Path(__file__).resolve().parent / "fixtures" / "real"

#: (session file stem, call id) -> why the detector cannot reach the verdict.
KNOWN_MISSES = {
    ("chiphuyen_sniffly__d3ad4cdc-5657-435d-98fa-0035d53e383d", "toolu_01PPi8P36KtodznSYQTPgEAR"): (
        "`python model_comparison.py` and `pip install` ran between the two reads: a script "
        "may write any file, so shell inference assumes everything may have changed"
    ),
    (
        "codemie-ai_codemie-code__rollout-2026-05-11T11-26-55-019e1625-789d-76c0-80ab-3724b5ddb799",
        "call_wn5UYsFeQld9BIBC3Aj1VFe6",
    ): (
        "`npm run build` ran between the two `git status`: a build may change any file, and "
        "same_size, which takes such a change back, trusts the size of whole reads only"
    ),
}


def _sessions() -> list[Path]:
    return sorted(REAL.rglob("*.expected.csv"))


def _session_file(expected: Path) -> Path:
    stem = expected.name.removesuffix(".expected.csv")
    return next(p for p in expected.parent.iterdir() if p.is_file() and p.stem == stem)


@cache
def _flagged(expected: Path) -> frozenset[tuple[str | None, str]]:
    """(session id, call id) of each finding; the session id only where the expected file
    names sessions."""
    with open(expected, newline="", encoding="utf-8") as f:
        by_session = "session_id" in next(csv.reader(f))
    trace = mur_trace.load([_session_file(expected)], policy="context")
    rows = trace.redundant_calls().select("session_id, call_id").fetchall()
    return frozenset((session if by_session else None, call_id) for session, call_id in rows)


def _key(row: dict[str, str]) -> tuple[str | None, str]:
    return (row.get("session_id"), row["call_id"])


def _call(row: dict[str, str]) -> str:
    return f"{row['session_id']}/{row['call_id']}" if row.get("session_id") else row["call_id"]


def _cases() -> list:
    cases = []
    for expected in _sessions():
        with open(expected, newline="", encoding="utf-8") as f:
            for row in csv.DictReader(f):
                key = (expected.name.removesuffix(".expected.csv"), _call(row))
                marks = (
                    [pytest.mark.xfail(strict=True, reason=KNOWN_MISSES[key])]
                    if key in KNOWN_MISSES
                    else []
                )
                cases.append(pytest.param(expected, row, id=f"{key[0][:30]}:{key[1]}", marks=marks))
    return cases


@pytest.mark.parametrize(("expected", "row"), _cases())
def test_each_read_gets_its_verdict(expected: Path, row: dict[str, str]) -> None:
    flagged = _key(row) in _flagged(expected)
    assert flagged == (row["verdict"] == "redundant"), row["why"]


@pytest.mark.parametrize("expected", _sessions(), ids=lambda p: p.name[:40])
def test_nothing_else_is_flagged(expected: Path) -> None:
    with open(expected, newline="", encoding="utf-8") as f:
        listed = {_key(row) for row in csv.DictReader(f)}
    assert _flagged(expected) <= listed
