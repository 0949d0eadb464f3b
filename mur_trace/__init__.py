"""mur-trace: find redundant tool calls in Murmur agent traces with DuckDB.

In the repository's directory::

    import mur_trace

    trace = mur_trace.load(workdir="sample_traces/workdir")
    trace.redundant_calls().df()  # pandas; .to_arrow_table(), .fetchall()
"""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

import duckdb

from . import formats
from .catalog import OVERRIDES, analysed_paths, in_order, narrow, open_catalog, shadow, unshadow
from .effects import read_effects
from .errors import E_TRC_002, MurTraceError, UsageError
from .load import (
    BATCH_BYTES,
    POLICIES,
    QUICK_BATCH_BYTES,
    RULES,
    Skipped,
    TraceWarning,
    batches,
    check_rules,
    connect,
    create_macros,
    create_settings,
    drop_loaded,
    drop_materialised,
    findings_view,
    load_tool_calls,
    load_traces,
    plain,
    quick_findings,
    skipped_traces,
    trace_warnings,
)
from .sessions import (
    DEFAULT_WORKDIR,
    as_paths,
    bool_argument,
    callback_argument,
    discover,
    given_paths,
    path_argument,
    workdir_argument,
)
from .trace import Report, SessionShow, Trace, count_argument

__all__ = [
    "Batched",
    "find_loops",
    "run_in_batches",
    "run_over_catalog",
    "summarise",
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
    bool_argument("require_readable", require_readable)
    paths = _asked(
        paths, policy, rules, format_in=format_in, workdir=workdir, db=db, effects=effects
    )
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
    try:
        files = discover(as_paths(paths), workdir)
    except MurTraceError as exc:
        given = [os.fspath(p) for p in as_paths(paths)]
        if require_readable or len(given) > 1:  # (among several, an empty name: a mistake)
            raise
        # a lone directory of no session, a workdir not found: no trace, and why
        where = given[0] if given else os.fspath(DEFAULT_WORKDIR if workdir is None else workdir)
        con = connect()
        load_traces(con, [], format_in)
        return Trace(con, [Skipped(where, exc.code, exc.message)], policy, rules=rules,
                     effects=declared)  # fmt: skip
    con = connect()
    if _small(files):
        # planning, not rows, is the cost of a query over a few traces: a second thread
        # only has to be started and waited for (`show` on one session: about 8 % faster)
        con.execute("SET threads = 1")
    skipped = load_traces(con, files, format_in)
    if require_readable and len(skipped) == len(files):
        raise MurTraceError(skipped[0].code, skipped[0].message)
    return Trace(con, skipped, policy, rules=rules, effects=declared)


def _asked(
    paths: Iterable[str | os.PathLike[str]] | None,
    policy: str = "reference",
    rules: dict[str, bool] | None = None,
    *,
    format_in: str | None = None,
    batch_bytes: int | None = None,
    progress: Callable[[int, int, int], None] | None = None,
    **files: str | os.PathLike[str] | None,
) -> list[str | os.PathLike[str]] | None:
    """What every entry point checks before a trace is read: the paths (`given_paths`),
    the policy, the rules, the format and batch size (checked with `db` too, which reads
    neither), and that each of `files` (workdir, db, effects) is a path or None. A mistake
    in them is its own error (E-CLI-001; an unknown format E-TRC-001, as `--format-in`),
    never hidden behind the error of a trace that cannot be read, nor a TypeError from
    deep inside."""
    findings_view(policy)
    if rules is not None:
        check_rules(rules)
    if format_in is not None:
        formats.reader(format_in)
        if files.get("db") is not None:  # (it was dropped: a file of another format read)
            raise UsageError(
                "a format to read trace files as (--format-in, format_in) is none for a "
                "catalog, whose traces are read as they were ingested (give it to ingest)"
            )
    count_argument("batch_bytes", batch_bytes)
    callback_argument("progress", progress)
    for name, value in files.items():
        path_argument(name, value)
    workdir_argument(files.get("workdir"), files.get("db"))
    return given_paths(paths)


#: Traces of fewer bytes than this, in all, are analysed on one thread (`load`).
SMALL_BYTES = 4 * 2**20


def _small(files: list[str]) -> bool:
    """Whether `files` (those that can be looked at) hold fewer than SMALL_BYTES."""
    total = 0
    for path in files:
        with contextlib.suppress(OSError):
            total += os.stat(path).st_size
    return total < SMALL_BYTES


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
    #: The files whose lines say which of their sessions they belong to
    #: (queries/events/file_sessions.sql), of `relation`'s connection: the text output
    #: makes a block of each of their sessions, of any other file one block. None: none.
    file_sessions: duckdb.DuckDBPyRelation | None = None
    #: The database the relations read.
    con: duckdb.DuckDBPyConnection | None = None

    def close(self) -> None:
        """Close the database the findings are read from. Those of a catalog
        (`find_redundant(db=...)`, `find_loops(db=...)`) hold the catalog until then, as a
        `Trace` of it does (copying them out instead cost more than finding them: 76 ms
        against 47 ms for the 54,066 findings of 5,000 sessions). Also `with
        mur_trace.find_redundant(db=...) as found:`."""
        if self.con is not None:
            self.con.close()

    def __enter__(self) -> Findings:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _collected(trace: Trace, found: duckdb.DuckDBPyRelation) -> dict[str, duckdb.DuckDBPyRelation]:
    """What a batch keeps of findings: them, and the files of several sessions."""
    return {"found": found, "apart": trace._query("SELECT * FROM file_sessions")}


@dataclass(frozen=True)
class Batched:
    """What `run_in_batches` or `run_over_catalog` collected: tables of `con`, and what
    was read."""

    con: duckdb.DuckDBPyConnection
    sessions: int
    skipped: list[Skipped]
    warnings: list[TraceWarning]
    #: The names of the tables collected: a relation no batch gave has none.
    tables: frozenset[str] = frozenset()


#: What `collect` may name a table it keeps: an identifier, as SQL reads it unquoted.
_TABLE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _collected_tables(
    con: duckdb.DuckDBPyConnection, kept: object, made: set[str]
) -> dict[str, duckdb.DuckDBPyRelation]:
    """What a `collect` gave, refused (`UsageError`) unless it is a dict of relations
    under names of tables of its own (it was an AttributeError, or DuckDB's parser or
    catalog error: `{"x y": rel}`, `{"events": rel}`)."""
    if not isinstance(kept, dict):
        raise UsageError(f"collect gives a dict of name -> relation, not {type(kept).__name__}")
    for name, relation in kept.items():
        if not isinstance(relation, duckdb.DuckDBPyRelation):
            raise UsageError(
                f"collect's {name!r} is a DuckDB relation, not {type(relation).__name__}"
            )
        if not (isinstance(name, str) and _TABLE_NAME.fullmatch(name)):
            raise UsageError(f"collect's table names are SQL identifiers, not {name!r}")
        if name in made:  # made by an earlier batch: checked then
            continue
        # as SQL reads a name, whatever its case (`Events` is `events`)
        taken = con.execute(
            "SELECT 1 FROM duckdb_tables() WHERE lower(table_name) = lower($n) "
            "UNION ALL SELECT 1 FROM duckdb_views() WHERE lower(view_name) = lower($n)",
            {"n": name},
        ).fetchall()
        if taken:
            raise UsageError(f"collect's table {name!r} is a table or view of the analysis")
    return kept


def run_in_batches(
    paths: Iterable[str | os.PathLike[str]] | None,
    collect: Callable[[Trace], dict[str, duckdb.DuckDBPyRelation]],
    *,
    workdir: str | os.PathLike[str] | None = None,
    policy: str = "reference",
    rules: dict[str, bool] | None = None,
    effects: str | os.PathLike[str] | None = None,
    batch_bytes: int | None = None,
    progress: Callable[[int, int, int], None] | None = None,
    format_in: str | None = None,
    quick: Callable[[duckdb.DuckDBPyConnection], dict[str, duckdb.DuckDBPyRelation]] | None = None,
) -> Batched:
    """Load the traces `paths` name in batches of about `batch_bytes` and keep, of each
    batch, the relations `collect(trace)` gives, appended to tables of the same names.

    Everything per trace (findings, loops, per-session metrics) depends on its own trace
    only, so memory stays bounded whatever the number of sessions: one database serves
    every batch, each load replacing the last one's events, and what is collected stays in
    DuckDB (no round trip through Arrow). When nothing can be read, the first trace's
    error is raised. `progress(files_done, files_total, events)` is called after each batch.
    `batch_bytes` defaults to BATCH_BYTES. With `quick`, each batch (of QUICK_BATCH_BYTES
    by default) is first read for its tool calls only (`load.load_tool_calls`) and
    `quick(con)` gives what to keep of the traces read so; only the traces that reading
    cannot vouch for are loaded whole, in batches of BATCH_BYTES.
    """
    paths = _asked(
        paths, policy, rules, format_in=format_in, batch_bytes=batch_bytes, workdir=workdir,
        effects=effects, progress=progress,
    )  # fmt: skip
    if batch_bytes is not None:  # -1, 0, 1.5 or True were taken, "x" a TypeError of its own
        batch_bytes = count_argument("batch_bytes", batch_bytes, optional=False) or None
    whole_bytes = batch_bytes or BATCH_BYTES
    read_bytes = (batch_bytes or QUICK_BATCH_BYTES) if quick is not None else whole_bytes
    files = discover(paths, workdir)
    declared = read_effects(effects) if effects is not None else None
    con = connect()
    skipped, warnings, sessions, events, done = [], [], 0, 0, 0
    made: set[str] = set()

    def keep(kept: dict[str, duckdb.DuckDBPyRelation]) -> None:
        for name, relation in _collected_tables(con, kept, made).items():
            relation = plain(relation)  # a table outlives the batch's type of paths
            if name in made:
                relation.insert_into(name)
            else:
                relation.create(name)
                made.add(name)

    for batch in batches(files, read_bytes):
        parts = [batch]
        if quick is not None:
            read = load_tool_calls(con, batch, format_in)
            if read.analysed:
                keep(quick(con))
            sessions += read.analysed
            events += read.events
            # what it left is loaded whole, in batches a whole load's memory allows
            parts = list(batches(read.rest, whole_bytes))
        for part in parts:
            left_out = load_traces(con, part, format_in)
            events += con.table("events").count("*").fetchall()[0][0]
            skipped += left_out
            warnings += trace_warnings(con)
            if len(left_out) < len(part):
                trace = Trace(con, left_out, policy, rules=rules, effects=declared)
                keep(collect(trace))
                sessions += trace.session_count()
        done += len(batch)
        if progress:
            progress(done, len(files), events)
    if len(skipped) == len(files):
        raise MurTraceError(skipped[0].code, skipped[0].message)
    drop_loaded(con)  # the caller holds what was collected, not the last batch's events
    return Batched(con, sessions, skipped, warnings, frozenset(made))


#: How many events make a batch of a catalog's traces (`run_over_catalog`): about what
#: 64 MB of trace files hold (200,000 to 280,000 events). `export --db --policy context`
#: peaks at 830-838 MB at 20,000 sessions in such batches, the most of the catalog's commands.
CATALOG_BATCH_EVENTS = 200_000


def run_over_catalog(
    paths: Iterable[str | os.PathLike[str]] | None,
    db: str | os.PathLike[str],
    collect: Callable[[Trace], dict[str, duckdb.DuckDBPyRelation]],
    *,
    policy: str = "reference",
    rules: dict[str, bool] | None = None,
    effects: str | os.PathLike[str] | None = None,
    batch_events: int | None = None,
) -> Batched:
    """What `run_in_batches` does for trace files, for the sessions of the catalog `db`
    (`paths` may narrow them, as for `load`): `collect(trace)` of batches of its traces, in
    path order, each closed once it holds `batch_events` events (CATALOG_BATCH_EVENTS),
    appended to temporary tables of the same names. What a catalog does not store (the
    context policy, loops) is computed so in bounded memory: over the whole catalog at
    once, the context policy's findings held 3 GB at 20,000 sessions."""
    if db is None:  # it read ./workdir, and said `workdir not found`
        raise UsageError("run_over_catalog reads a catalog: db names its file")
    paths = _asked(paths, policy, rules, db=db, effects=effects)
    whole = load(paths, db=db, policy=policy, rules=rules, effects=effects)
    con, declared = whole.con, read_effects(effects) if effects is not None else None
    if batch_events is not None:
        batch_events = count_argument("batch_events", batch_events, optional=False) or None
    limit = batch_events or CATALOG_BATCH_EVENTS
    every = [path for (path,) in con.execute("SELECT trace_path FROM traces").fetchall()]
    analysed = analysed_paths(con)
    sessions = whole.session_count()
    made: set[str] = set()
    batch: list[str] = []
    held = 0
    for index, (path, events) in enumerate(analysed):
        batch.append(path)
        held += events
        if held < limit and index < len(analysed) - 1:
            continue
        shadow(con, batch)
        trace = Trace(con, [], policy, OVERRIDES, rules=rules, effects=declared)
        for name, relation in _collected_tables(con, collect(trace), made).items():
            # the catalog is read-only: what is collected goes to temporary tables, through
            # Arrow (the relations of the Python API make tables of the database only)
            con.register("collected", plain(relation).to_arrow_table())
            if name in made:
                con.execute(f"INSERT INTO {name} SELECT * FROM collected")
            else:
                con.execute(f"CREATE OR REPLACE TEMP TABLE {name} AS SELECT * FROM collected")
                made.add(name)
            con.unregister("collected")
        batch, held = [], 0
    drop_materialised(con)  # the last batch's
    # the traces asked for again, those that cannot be analysed too
    if paths is None:
        unshadow(con)
    else:
        shadow(con, every)
    return Batched(con, sessions, whole.skipped, whole.warnings, frozenset(made))


def find_redundant(
    paths: Iterable[str | os.PathLike[str]] | None = None,
    *,
    workdir: str | os.PathLike[str] | None = None,
    db: str | os.PathLike[str] | None = None,
    policy: str = "reference",
    rules: dict[str, bool] | None = None,
    effects: str | os.PathLike[str] | None = None,
    batch_bytes: int | None = None,
    progress: Callable[[int, int, int], None] | None = None,
    format_in: str | None = None,
) -> Findings:
    """The redundant calls of every session `paths` (or `workdir`, or the catalog `db`) name.

    Traces are read in batches (`run_in_batches`): memory stays bounded whatever the number
    of sessions. The reference policy reads Murmur traces quickly (`load.load_tool_calls`:
    the tool calls only), and loads whole only the traces that reading cannot vouch for.
    Arguments as for `load`; the result's relation has the policy's finding schema, in
    trace path and line order.
    """
    paths = _asked(
        paths, policy, rules, format_in=format_in, batch_bytes=batch_bytes, workdir=workdir,
        db=db, effects=effects, progress=progress,
    )  # fmt: skip
    if db is not None and policy == "reference":  # stored in the catalog
        trace = load(paths, db=db, policy=policy, rules=rules, effects=effects)
        kept = _collected(trace, trace.redundant_calls())
        return Findings(
            kept["found"],
            trace.session_count(),
            trace.skipped,
            trace.warnings,
            kept["apart"],
            trace.con,
        )
    if db is not None:
        done = run_over_catalog(
            paths, db, lambda trace: _collected(trace, trace.redundant_calls(policy)),
            policy=policy, rules=rules, effects=effects,
        )  # fmt: skip
        return _found(done)
    # the reference policy reads Murmur traces quickly (their tool calls only)
    quick = (lambda con: {"found": quick_findings(con)}) if policy == "reference" else None
    done = run_in_batches(
        paths,
        lambda trace: _collected(trace, trace.redundant_calls(policy)),
        workdir=workdir, policy=policy, rules=rules, effects=effects,
        batch_bytes=batch_bytes, progress=progress, format_in=format_in, quick=quick,
    )  # fmt: skip
    return _found(done)


def _found(done: Batched) -> Findings:
    """The findings `done` collected (as `found`), in trace path and line order."""
    found = done.con.table("found").order("trace_path, line")
    apart = done.con.table("apart") if "apart" in done.tables else None
    return Findings(found, done.sessions, done.skipped, done.warnings, apart, done.con)


def find_loops(
    paths: Iterable[str | os.PathLike[str]] | None = None,
    *,
    window: int = 5,
    workdir: str | os.PathLike[str] | None = None,
    db: str | os.PathLike[str] | None = None,
    rules: dict[str, bool] | None = None,
    effects: str | os.PathLike[str] | None = None,
    batch_bytes: int | None = None,
    format_in: str | None = None,
) -> Findings:
    """The loops (`Trace.loops`) of every session, read in batches like `find_redundant`.
    `rules` and `effects` as for `load`: what changes between two calls is what the context
    policy's observations see, so they change the loops found as they change
    `load(...).loops()`."""
    window = count_argument("window", window, optional=False)  # before any session is read
    paths = _asked(
        paths, rules=rules, format_in=format_in, batch_bytes=batch_bytes, workdir=workdir,
        db=db, effects=effects,
    )  # fmt: skip
    if db is not None:
        return _found(
            run_over_catalog(
                paths,
                db,
                lambda trace: _collected(trace, trace.loops(window)),
                rules=rules,
                effects=effects,
            )  # fmt: skip
        )
    done = run_in_batches(
        paths, lambda trace: _collected(trace, trace.loops(window)), workdir=workdir,
        rules=rules, effects=effects, batch_bytes=batch_bytes, format_in=format_in,
    )  # fmt: skip
    return _found(done)


#: A summarised Trace counts its sessions by their metrics' rows: it holds no events.
COUNTED = {"session_count": "SELECT count(*)::BIGINT AS sessions FROM session_metrics"}

#: What a batch keeps for the per-session analyses (`summarise`): the per-session metrics
#: of the policy, the tasks and the shell exit codes they are reported with, the traces.
SUMMARY_TABLES = ("session_metrics", "tasks", "shell_exit_codes", "traces")


def summarise(
    paths: Iterable[str | os.PathLike[str]] | None = None,
    *,
    workdir: str | os.PathLike[str] | None = None,
    db: str | os.PathLike[str] | None = None,
    policy: str = "reference",
    rules: dict[str, bool] | None = None,
    effects: str | os.PathLike[str] | None = None,
    batch_bytes: int | None = None,
    format_in: str | None = None,
    require_readable: bool = True,
) -> Trace:
    """A `Trace` for `report` and `check` over many sessions, without their events: each
    batch's per-session metrics, tasks and exit codes are kept (`run_in_batches`), and the
    returned Trace serves those (`report()`, `check()`, `session_metrics()`); it holds no
    events (`events`, `redundant_calls()` are not served). With `db`, a Trace of the
    catalog, as `load` gives it; the metrics of a policy whose findings the catalog does
    not store are computed for batches of its traces (`run_over_catalog`)."""
    # what was asked for is checked before any trace is read: a bad effects file or rule is
    # its own error, never taken for traces that cannot be read (with require_readable
    # False, it was passed over, and the sessions summarised without them)
    bool_argument("require_readable", require_readable)
    paths = _asked(
        paths, policy, rules, format_in=format_in, batch_bytes=batch_bytes, workdir=workdir,
        db=db, effects=effects,
    )  # fmt: skip
    if db is not None and policy == "reference":  # the findings and their cost are stored
        return load(paths, db=db, policy=policy, rules=rules, effects=effects,
                    require_readable=require_readable)  # fmt: skip
    declared = read_effects(effects) if effects is not None else None
    if db is not None:
        try:
            done = run_over_catalog(
                paths, db, lambda trace: {"kept_session_metrics": trace.session_metrics()},
                policy=policy, rules=rules, effects=effects,
            )  # fmt: skip
        except MurTraceError:
            if require_readable:
                raise
            # nothing to analyse: the catalog's Trace, which says why
            return load(paths, db=db, policy=policy, rules=rules, effects=effects,
                        require_readable=False)  # fmt: skip
        overrides = {
            **OVERRIDES,
            "session_metrics": "SELECT * FROM kept_session_metrics",
            **COUNTED,
        }
        return Trace(
            done.con,
            done.skipped,
            policy,
            overrides,
            rules=rules,
            effects=declared,
            summary="metrics",
        )

    def keep(trace: Trace) -> dict[str, duckdb.DuckDBPyRelation]:
        return {
            "kept_session_metrics": trace.session_metrics(),
            "kept_tasks": trace._query("SELECT * FROM tasks"),
            "kept_shell_exit_codes": trace._query("SELECT * FROM shell_exit_codes"),
            "kept_traces": trace.con.table("traces"),
        }

    try:
        done = run_in_batches(
            paths, keep, workdir=workdir, policy=policy, rules=rules, effects=effects,
            batch_bytes=batch_bytes, format_in=format_in,
        )  # fmt: skip
    except MurTraceError:
        if require_readable:
            raise
        return load(paths, workdir=workdir, policy=policy, rules=rules, effects=effects,
                    require_readable=False, format_in=format_in)  # fmt: skip
    con = done.con
    if any(f"kept_{name}" not in done.tables for name in SUMMARY_TABLES):
        raise MurTraceError(done.skipped[0].code, done.skipped[0].message)
    # the traces of every batch, the unreadable ones too, in the order they were asked for
    con.execute("CREATE OR REPLACE TABLE traces AS SELECT * FROM kept_traces")
    create_settings(con)
    create_macros(con)
    overrides = {name: f"SELECT * FROM kept_{name}" for name in SUMMARY_TABLES[:3]}
    return Trace(
        con,
        done.skipped,
        policy,
        {**overrides, **COUNTED},
        rules=rules,
        effects=declared,
        summary="metrics only",
    )
