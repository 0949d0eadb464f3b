"""JSON Lines -> DuckDB tables. The only module that creates tables.

DuckDB reads and parses the traces itself (queries/load/*.sql): Python only lists the
files. Loading defines:

- `traces`: one row per trace file asked for, with its session id and, when it cannot be
  analysed, the error that keeps it out;
- `events`: one row per event of the traces that can be analysed;
- `context_rules` (one row per rule of queries/rules/, all enabled) and `declared_effects`
  (the user's effects file, empty by default): the settings of the context policy;
- the views of queries/ over them, in dependency order (VIEWS).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import duckdb

from . import queries

#: Redundancy policies: `--policy NAME` reads the view `redundant_NAME`.
POLICIES: tuple[str, ...] = ("reference", "context")

#: The rules of the context policy: queries/rules/<name>.sql defines the view rule_<name>.
RULES: tuple[str, ...] = tuple(name.split("/", 1)[1] for name in queries.names("rules"))

#: Macros: name -> (parameters, query name).
MACROS: dict[str, tuple[str, str]] = {
    "normalise_path": ("path", "functions/normalise_path"),
}

#: View name -> query name, in dependency order: defined at load.
VIEWS: dict[str, str] = {
    "tool_calls": "events/tool_calls",
    "sessions": "events/sessions",
    "call_waste": "context/waste",
    "rule_declared_in_file": "rules/declared_in_file",
    **{
        f"rule_{rule}": f"rules/{rule}"
        for rule in RULES
        if rule not in ("directory_invalidation", "declared_in_file")
    },
    "redundant_reference": "redundant/reference",
}

#: The context stage, built on first use (prepare_context): tables materialised from the
#: rule views (planning the whole policy as one nested query costs more than running it),
#: then the views over them.
CONTEXT_TABLES: dict[str, str] = {
    "context_observations": "context/observations",
    "path_ancestors": "context/path_ancestors",
}
CONTEXT_VIEWS: dict[str, str] = {
    "rule_directory_invalidation": "rules/directory_invalidation",
    "redundant_context": "redundant/context",
}

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


def rule_doc(rule: str) -> str:
    """The one-line description of a context rule (its header's first line)."""
    first = queries.get(f"rules/{rule}").doc.splitlines()[0]
    return first.split(":", 1)[1].strip() if first.startswith("rule ") else first


def use_policy(con: duckdb.DuckDBPyConnection, policy: str) -> None:
    """Point `redundant_calls`, which the metric views count, at a policy's findings."""
    view = findings_view(policy)
    con.execute(
        "CREATE OR REPLACE VIEW redundant_calls AS "
        "SELECT f.*, w.est_tokens AS waste_tokens, w.context_tokens AS waste_context_tokens "
        f"FROM {view} AS f LEFT JOIN call_waste AS w USING (trace_path, line)"
    )


def set_rules(con: duckdb.DuckDBPyConnection, enabled: dict[str, bool]) -> None:
    """Switch context rules on or off."""
    unknown = sorted(set(enabled) - set(RULES))
    if unknown:
        raise ValueError(f"unknown rule {unknown[0]!r}; known: {', '.join(RULES)}")
    for name, on in enabled.items():
        con.execute(
            "UPDATE context_rules SET enabled = $on WHERE name = $name", {"on": on, "name": name}
        )


def set_effects(
    con: duckdb.DuckDBPyConnection, effects: Iterable[tuple[str, str | None, str | None, str]]
) -> None:
    """Replace the declared effects: (tool_name, field or None, value or None, effect)."""
    con.execute("DELETE FROM declared_effects")
    rows = list(effects)
    if rows:
        con.executemany("INSERT INTO declared_effects VALUES (?, ?, ?, ?)", rows)


def create_settings(con: duckdb.DuckDBPyConnection) -> None:
    """The settings tables of the context policy, with their defaults."""
    con.execute(
        "CREATE OR REPLACE TABLE context_rules "
        "(name VARCHAR PRIMARY KEY, enabled BOOLEAN NOT NULL, description VARCHAR)"
    )
    con.executemany(
        "INSERT INTO context_rules VALUES (?, true, ?)", [(r, rule_doc(r)) for r in RULES]
    )
    con.execute(
        "CREATE OR REPLACE TABLE declared_effects "
        "(tool_name VARCHAR NOT NULL, field VARCHAR, value VARCHAR, effect VARCHAR NOT NULL "
        "CHECK (effect IN ('read', 'mutate')))"
    )


def create_views(con: duckdb.DuckDBPyConnection) -> None:
    """(Re)define the macros and the views over the `traces` and `events` tables."""
    for macro, (params, name) in MACROS.items():
        con.execute(f"CREATE OR REPLACE MACRO {macro}({params}) AS ({queries.get(name).sql})")
    for view, name in VIEWS.items():
        con.execute(f"CREATE OR REPLACE VIEW {view} AS {queries.get(name).sql}")
    use_policy(con, "reference")
    for view, name in METRIC_VIEWS.items():
        con.execute(f"CREATE OR REPLACE VIEW {view} AS {queries.get(name).sql}")


def prepare_context(con: duckdb.DuckDBPyConnection) -> None:
    """Build (or rebuild, after a change of rules or effects) the context stage."""
    for table, name in CONTEXT_TABLES.items():
        con.execute(f"CREATE OR REPLACE TEMP TABLE {table} AS {queries.get(name).sql}")
    for view, name in CONTEXT_VIEWS.items():
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
    create_settings(con)
    create_views(con)
    rows = (
        con.table("traces")
        .filter("error_code IS NOT NULL")
        .order("ordinal")
        .select("trace_path, error_code, error")
        .fetchall()
    )
    return [Skipped(path, code, message) for path, code, message in rows]
