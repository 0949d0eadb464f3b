"""Golden tests: one tiny trace and the expected rows per query and edge case.

tests/golden/<query>/<case>/input.jsonl is loaded; the relation of <query> is read back
with the columns named in the header of expected.csv, ordered by line; NULL is written out.
A case may switch context rules (rules.json: {"name": false}) and declare effects
(effects.toml).
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

import mur_trace

GOLDEN = Path(__file__).resolve().parent / "golden"

#: Query name -> the relation loading defines for it (or how to get it from a Trace).
RELATIONS = {
    "events/tool_calls": "tool_calls",
    "events/sessions": "sessions",
    "redundant/reference": "redundant_reference",
    "redundant/context": lambda trace: trace.redundant_calls("context"),
    "rules/shell_inference": "rule_shell_inference",
    "rules/path_normalisation": "rule_path_normalisation",
    "loops/repeats": lambda trace: trace.loops(),
}

CASES = sorted(p.parent for p in GOLDEN.rglob("expected.csv"))


def _cell(value: object) -> str:
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return str(value).lower()
    return str(value)


@pytest.mark.parametrize("case", CASES, ids=[str(c.relative_to(GOLDEN)) for c in CASES])
def test_golden(case: Path) -> None:
    query = case.parent.relative_to(GOLDEN).as_posix()
    with open(case / "expected.csv", newline="", encoding="utf-8") as f:
        header, *expected = list(csv.reader(f))
    rules = case / "rules.json"
    effects = case / "effects.toml"
    trace = mur_trace.load(
        [case / "input.jsonl"],
        rules=json.loads(rules.read_text()) if rules.exists() else None,
        effects=effects if effects.exists() else None,
    )
    relation = RELATIONS[query]
    rel = relation(trace) if callable(relation) else trace.sql(f"SELECT * FROM {relation}")
    order = ", ".join(c for c in ("line", "seq") if c in header) or header[0]
    rows = rel.order(order).select(", ".join(f'"{c}"' for c in header)).fetchall()
    assert [[_cell(v) for v in row] for row in rows] == expected


def test_every_query_has_golden_cases() -> None:
    tested = {case.parent.relative_to(GOLDEN).as_posix() for case in CASES}
    assert set(RELATIONS) <= tested
