"""JSON Lines -> DuckDB tables. The only module that creates tables.

DuckDB reads and parses the traces itself (queries/load/*.sql): Python only lists the
files. Loading defines:

- `traces`: one row per trace file asked for, with its session id and, when it cannot be
  analysed, the error that keeps it out;
- `events`: one row per event of the traces that can be analysed;
- the views of `queries/events/` (`tool_calls`, `sessions`) and one view per redundancy
  policy (`redundant_reference`, ...).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import duckdb

from . import queries

#: View name -> query name: the views over `events`, in dependency order.
VIEWS: dict[str, str] = {
    "tool_calls": "events/tool_calls",
    "sessions": "events/sessions",
}

#: Redundancy policies: `--policy NAME` reads the view `redundant_NAME`.
POLICIES: tuple[str, ...] = ("reference",)

#: The metric views of show, steps, report (over `redundant_calls`, the active policy).
METRIC_VIEWS: dict[str, str] = {
    "session_metrics": "metrics/session",
    "calls_by_turn": "metrics/calls_by_turn",
    "steps": "metrics/steps",
    "shell_exit_codes": "metrics/shell_exit_codes",
    "tasks": "metrics/tasks",
    "reopens": "metrics/reopens",
    "report": "metrics/report",
    "exit_status": "metrics/exit_status",
    "task_report": "metrics/task_report",
}


@dataclass(frozen=True)
class Skipped:
    """A trace left out of the analysis, and why."""

    trace_path: str
    code: str
    message: str


def findings_view(policy: str) -> str:
    """The view holding the findings of a redundancy policy."""
    if policy not in POLICIES:
        raise ValueError(f"unknown policy {policy!r}; known: {', '.join(POLICIES)}")
    return f"redundant_{policy}"


def use_policy(con: duckdb.DuckDBPyConnection, policy: str) -> None:
    """Point `redundant_calls`, which the metric views count, at a policy's findings."""
    con.execute(f"CREATE OR REPLACE VIEW redundant_calls AS FROM {findings_view(policy)}")


def create_views(con: duckdb.DuckDBPyConnection, policy: str = "reference") -> None:
    """(Re)define every view over the `traces` and `events` tables."""
    for view, name in VIEWS.items():
        con.execute(f"CREATE OR REPLACE VIEW {view} AS {queries.get(name).sql}")
    for known in POLICIES:
        sql = queries.get(f"redundant/{known}").sql
        con.execute(f"CREATE OR REPLACE VIEW {findings_view(known)} AS {sql}")
    use_policy(con, policy)
    for view, name in METRIC_VIEWS.items():
        con.execute(f"CREATE OR REPLACE VIEW {view} AS {queries.get(name).sql}")


def load_traces(con: duckdb.DuckDBPyConnection, trace_paths: Sequence[str]) -> list[Skipped]:
    """Read `trace_paths` into `traces` and `events`; return the traces that were left out."""
    paths = list(trace_paths)
    con.execute(
        f"CREATE OR REPLACE TEMP TABLE _trace_lines AS {queries.get('load/lines').sql}",
        {"paths": paths},
    )
    con.execute(
        f"CREATE OR REPLACE TABLE traces AS {queries.get('load/traces').sql}", {"paths": paths}
    )
    con.execute(f"CREATE OR REPLACE TABLE events AS {queries.get('load/events').sql}")
    con.execute("DROP TABLE _trace_lines")
    create_views(con)
    rows = (
        con.table("traces")
        .filter("error_code IS NOT NULL")
        .order("ordinal")
        .select("trace_path, error_code, error")
        .fetchall()
    )
    return [Skipped(path, code, message) for path, code, message in rows]
