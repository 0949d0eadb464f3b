"""mur-trace: find redundant tool calls in Murmur agent traces with DuckDB.

>>> import mur_trace
>>> trace = mur_trace.load(workdir="sample_traces/workdir")
>>> trace.redundant_calls().df()
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

import duckdb

from .catalog import OVERRIDES, in_order, narrow, open_catalog
from .effects import read_effects
from .errors import E_TRC_002, MurTraceError
from .load import (
    BATCH_BYTES,
    POLICIES,
    RULES,
    Skipped,
    TraceWarning,
    batches,
    connect,
    create_macros,
    create_settings,
    drop_loaded,
    load_tool_calls,
    load_traces,
    quick_findings,
    skipped_traces,
    trace_warnings,
)
from .sessions import as_paths, discover
from .trace import Report, SessionShow, Trace

__all__ = [
    "POLICIES",
    "RULES",
    "MurTraceError",
    "Report",
    "SessionShow",
    "Skipped",
    "TraceWarning",
    "Trace",
    "Findings",
    "find_redundant",
    "load",
]
__version__ = "0.1.0"


def load(
    paths: Iterable[str | os.PathLike[str]] | None = None,
    *,
    workdir: str | os.PathLike[str] | None = None,
    db: str | os.PathLike[str] | None = None,
    policy: str = "reference",
    rules: dict[str, bool] | None = None,
    effects: str | os.PathLike[str] | None = None,
    require_readable: bool = True,
    format_in: str | None = None,
) -> Trace:
    """Load traces into an in-memory DuckDB database and return a `Trace`.

    `paths` may name trace files, session directories and workdirs, in any mix; with none,
    every session of `workdir` (default `./workdir`) is loaded. A trace that cannot be read
    is left out and listed in `Trace.skipped`; when none can be read, the first one's error
    is raised as `MurTraceError` (with `require_readable=False`, the `Trace` is returned
    with no sessions: `Trace.report` then says why). With `db`, the sessions of that catalog
    (`mur-trace ingest`) are analysed instead, and `paths` (trace files) may narrow them.
    `policy` is the redundancy policy the metric relations (show, report, diff) count;
    `rules` switches context rules on or off by name (`{"shell_inference": False}`);
    `effects` names an effects file (see `mur_trace.effects`). Each file's format (Murmur,
    Claude Code, Codex, OpenHands) is recognised from its first line; `format_in` forces one
    (a name of `mur_trace.formats.FORMATS`).
    """
    declared = read_effects(effects) if effects is not None else None
    if db is not None:
        con = open_catalog(db)
        create_settings(con)
        create_macros(con)
        if paths is not None:
            narrow(con, as_paths(paths), Path(db))
        # a catalog keeps the reference findings in order: read as stored, no sort
        ordered = frozenset({"redundant_reference"} if in_order(con) else ())
        skipped = skipped_traces(con)
        if require_readable and not _any_readable(con):
            if skipped:
                raise MurTraceError(skipped[0].code, skipped[0].message)
            raise MurTraceError(E_TRC_002, f"no readable sessions in catalog {db}")
        return Trace(
            con,
            skipped,
            policy,
            OVERRIDES,
            rules=rules,
            effects=declared,
            in_order=ordered,
        )
    files = discover(as_paths(paths), Path(workdir) if workdir is not None else None)
    con = connect()
    skipped = load_traces(con, files, format_in)
    if require_readable and len(skipped) == len(files):
        raise MurTraceError(skipped[0].code, skipped[0].message)
    return Trace(con, skipped, policy, rules=rules, effects=declared)


def _any_readable(con: duckdb.DuckDBPyConnection) -> bool:
    """Whether the (narrowed) catalog holds a trace that could be read."""
    return bool(con.table("traces").filter("error_code IS NULL").limit(1).fetchall())


@dataclass(frozen=True)
class Findings:
    """The redundant calls of many sessions, with how many were analysed or skipped."""

    relation: duckdb.DuckDBPyRelation
    sessions: int
    skipped: list[Skipped]
    warnings: list[TraceWarning]


def find_redundant(
    paths: Iterable[str | os.PathLike[str]] | None = None,
    *,
    workdir: str | os.PathLike[str] | None = None,
    db: str | os.PathLike[str] | None = None,
    policy: str = "reference",
    rules: dict[str, bool] | None = None,
    effects: str | os.PathLike[str] | None = None,
    batch_bytes: int = BATCH_BYTES,
    progress: Callable[[int, int, int], None] | None = None,
    format_in: str | None = None,
) -> Findings:
    """The redundant calls of every session `paths` (or `workdir`, or the catalog `db`) name.

    A finding depends on its own trace only, so traces are loaded in batches of about
    `batch_bytes` and each batch's findings kept: memory stays bounded whatever the number
    of sessions.
    Arguments as for `load`; the result's relation has the policy's finding schema, in trace
    path and line order.
    `progress(files_done, files_total, events)` is called after each batch.
    The reference policy reads Murmur traces quickly (`load.load_tool_calls`: the tool calls
    only), and loads whole only the traces that reading cannot vouch for.
    """
    if db is not None:
        trace = load(paths, db=db, policy=policy, rules=rules, effects=effects)
        return Findings(
            trace.redundant_calls(), trace.session_count(), trace.skipped, trace.warnings
        )
    files = discover(as_paths(paths), Path(workdir) if workdir is not None else None)
    declared = read_effects(effects) if effects is not None else None
    # one database for every batch: each load replaces the last one's tables, and the
    # findings collect in `found`, in DuckDB (no round trip through Arrow)
    con = connect()
    skipped, warnings, sessions, events, done = [], [], 0, 0, 0
    found = False

    def keep(findings: duckdb.DuckDBPyRelation) -> None:
        nonlocal found
        if found:
            findings.insert_into("found")
        else:
            findings.create("found")
            found = True

    for batch in batches(files, batch_bytes):
        rest = batch
        if policy == "reference":
            quick = load_tool_calls(con, batch, format_in)
            if quick.analysed:
                keep(quick_findings(con))
            sessions += quick.analysed
            events += quick.events
            rest = quick.rest
        if rest:
            left_out = load_traces(con, rest, format_in)
            events += con.table("events").count("*").fetchall()[0][0]
            skipped += left_out
            warnings += trace_warnings(con)
            if len(left_out) < len(rest):
                trace = Trace(con, left_out, policy, rules=rules, effects=declared)
                keep(trace.redundant_calls(policy))
                sessions += trace.session_count()
        done += len(batch)
        if progress:
            progress(done, len(files), events)
    if len(skipped) == len(files):
        raise MurTraceError(skipped[0].code, skipped[0].message)
    drop_loaded(con)  # the caller holds the findings, not the last batch's events
    return Findings(con.table("found").order("trace_path, line"), sessions, skipped, warnings)
