"""`Trace`: the analysis of a set of Murmur sessions, as DuckDB relations."""

from __future__ import annotations

import operator
import os
from dataclasses import dataclass
from typing import Any

import duckdb

from . import queries
from .effects import Effect
from .errors import E_TRC_001, E_TRC_002, E_USAGE, MurTraceError, UsageError
from .load import (
    ACTIVE_FINDINGS,
    FOLLOWED_FINDINGS,
    Relations,
    Skipped,
    findings_view,
    plain,
    set_effects,
    set_rules,
    trace_warnings,
)
from .sessions import TRACE_FILE, path_argument

#: The largest count DuckDB holds (BIGINT), the bound of every count argument: a larger
#: one was an E-IO-003 naming a DuckDB conversion, not a usage error.
BIGINT_MAX = 2**63 - 1


def count_argument(name: str, value: Any, optional: bool = True) -> int | None:
    """`value` as an `int` when it is a whole number from 0 to BIGINT_MAX (any integer
    type: numpy's too, not a bool), or None when `optional`, else E-CLI-001 (the command
    line checks its options so; the API is held to the same)."""
    if value is None and optional:
        return None
    try:
        number = None if isinstance(value, bool) else operator.index(value)
    except TypeError:
        number = None
    if number is not None and 0 <= number <= BIGINT_MAX:
        return number
    raise UsageError(f"{name} must be a whole number from 0 to {BIGINT_MAX}, not {value!r}")


def _spelled(trace_path: object) -> str:
    """A session argument of the API as text: a path, a directory or a session id
    (anything else is a `UsageError`, not a TypeError of `os.fspath`)."""
    path_argument("a session", trace_path)
    return os.fspath(trace_path)  # type: ignore[arg-type]


@dataclass(frozen=True)
class SessionShow:
    """Everything `show` prints of one session, as relations."""

    metrics: duckdb.DuckDBPyRelation
    tool_turns: duckdb.DuckDBPyRelation
    skill_turns: duckdb.DuckDBPyRelation
    redundant: duckdb.DuckDBPyRelation
    exit_codes: duckdb.DuckDBPyRelation
    reopens: duckdb.DuckDBPyRelation
    tasks: duckdb.DuckDBPyRelation


@dataclass(frozen=True)
class Report:
    """Everything `report` prints, as relations, and the sessions it left out."""

    sessions: duckdb.DuckDBPyRelation
    exit_codes: duckdb.DuckDBPyRelation
    stats: duckdb.DuckDBPyRelation
    exit_status: duckdb.DuckDBPyRelation
    task_stats: duckdb.DuckDBPyRelation
    #: Every trace left out, and why: those that could not be read, then those without a
    #: session_start or session_end.
    skipped: list[Skipped]

    @property
    def incomplete(self) -> list[Skipped]:
        """The traces left out as empty, malformed or incomplete (E-TRC-001): the ones
        `mur trace report` counts in its `skipped N incomplete session(s)` note."""
        return [s for s in self.skipped if s.code == E_TRC_001]


class Trace:
    """A set of loaded sessions and the analyses over them.

    Every analysis is a DuckDB relation: call `.df()`, `.pl()`, `.to_arrow_table()` or
    `.fetchall()` on it, or go on in SQL through `.con` / `.sql()` (`.arrow()` is a reader of
    batches: the Trace is busy until it has been read to its end). The metric relations
    (`show`, `report`, `diff`, `session_metrics`) count the findings of `policy`. Relations
    are views, read when fetched: those already handed out count `policy`, the rules and
    the effects as they are then (fetch one, `.to_arrow_table()`, to keep its numbers);
    `redundant_calls(policy)` is of the policy it was asked for.
    """

    def __init__(
        self,
        con: duckdb.DuckDBPyConnection,
        skipped: list[Skipped],
        policy: str = "reference",
        overrides: dict[str, str] | None = None,
        *,
        rules: dict[str, bool] | None = None,
        effects: list[Effect] | None = None,
        in_order: frozenset[str] = frozenset(),
        summary: str | None = None,
    ) -> None:
        self.con = con
        self._closed = False
        # None, or what `summarise` kept: "metrics" (the catalog's events are there too) or
        # "metrics only" (no events): its policy, rules and effects are those it counted
        self._summary: str | None = None
        # findings relations whose rows already come in (trace_path, line) order
        self._in_order = in_order
        #: Traces that could not be read and were left out, with the reason.
        self.skipped = skipped
        #: Traces analysed with a caveat (a torn last line left out), with the reason.
        self.warnings = trace_warnings(con)
        self._relations = Relations(con, overrides)
        self.policy = policy
        if rules:
            set_rules(con, rules)
        if effects is not None:
            set_effects(con, effects)
        self._summary = summary

    def _usable(self, what: str, events: bool = False) -> None:
        """Refuse, with a coded error, what a closed Trace cannot do, or (`events`) what a
        Trace of `summarise` over trace files does not hold (it was DuckDB's error)."""
        if self._closed:
            raise MurTraceError(E_USAGE, f"{what}: this Trace is closed")
        if events and self._summary == "metrics only":
            raise MurTraceError(
                E_USAGE,
                f"{what}: a Trace of summarise() over trace files keeps each session's metrics, "
                "not its events; load() the sessions for it",
            )

    def close(self) -> None:
        """Close the trace's database. One loaded from a catalog (`load(db=...)`) holds the
        catalog until then, as DuckDB locks a database file for the process that opened it:
        an ingest in another process waits for it. Also `with mur_trace.load(...) as trace:`."""
        self._closed = True
        self.con.close()

    def __enter__(self) -> Trace:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def policy(self) -> str:
        """The redundancy policy the metric relations count (`reference` by default)."""
        return self._relations.policy

    @policy.setter
    def policy(self, policy: str) -> None:
        findings_view(policy)  # refuses an unknown policy
        self._usable("policy")
        if self._summary is not None and policy != self._relations.policy:
            # its metrics were counted under its policy (they kept their numbers, silently)
            raise MurTraceError(
                E_USAGE,
                f"a Trace of summarise() holds the metrics of the {self._relations.policy} "
                f"policy: summarise(policy={policy!r}) counts those of another",
            )
        self._relations.policy = policy
        if {ACTIVE_FINDINGS, FOLLOWED_FINDINGS} & self._relations.created:  # else when needed
            self._relations.use_policy(policy)

    @property
    def rules(self) -> duckdb.DuckDBPyRelation:
        """The context policy's rules: name, enabled, description."""
        self._usable("rules")
        return self.con.table("context_rules").order("name")

    def set_rules(self, enabled: dict[str, bool]) -> None:
        """Switch context rules on (True) or off (False) by name."""
        self._fixed("set_rules")
        set_rules(self.con, enabled)
        self._relations.rebuild()

    def set_effects(self, effects: list[Effect]) -> None:
        """Declare effects for tools that declare nothing: (tool, field, value, effect) rows."""
        self._fixed("set_effects")
        set_effects(self.con, effects)
        self._relations.rebuild()

    def _fixed(self, what: str) -> None:
        """Refuse to change the rules or effects of a closed Trace or one of `summarise`,
        whose metrics were counted with its own (they kept their numbers, silently)."""
        self._usable(what)
        if self._summary is not None:
            raise MurTraceError(
                E_USAGE,
                f"{what}: a Trace of summarise() holds the metrics its rules and effects "
                "counted: summarise(rules=..., effects=...) counts others",
            )

    @property
    def events(self) -> duckdb.DuckDBPyRelation:
        """One row per event line of every analysed trace, in trace and line order."""
        self._usable("events", events=True)
        return plain(self.con.table("events")).order("trace_path, line")

    @property
    def tool_calls(self) -> duckdb.DuckDBPyRelation:
        """Tool calls with their resolved `resource` and `resource_source`."""
        self._usable("tool_calls", events=True)
        return self._relations.view("tool_calls")

    @property
    def sessions(self) -> duckdb.DuckDBPyRelation:
        """One row per analysed trace: identity, exit status and totals."""
        self._usable("sessions", events=True)
        return self._relations.view("sessions")

    def redundant_calls(self, policy: str | None = None) -> duckdb.DuckDBPyRelation:
        """Redundant calls under `policy` (default: the trace's), one row per finding."""
        self._usable("redundant_calls()", events=True)
        view = findings_view(self.policy if policy is None else policy)  # "" is no policy
        rel = self._relations.view(view)
        return rel if view in self._in_order else rel.order("trace_path, line")

    def session_metrics(self) -> duckdb.DuckDBPyRelation:
        """One row per session: the numbers of `show`, `diff` and `report`."""
        self._usable("session_metrics()")
        return self._relations.view("session_metrics")

    def _loaded(self, trace_path: str) -> str:
        """The loaded trace a path names, however spelled (`a/../S/trace.jsonl`, relative or
        absolute, through a link): loading reads a file once, under its first spelling. A
        session directory names its trace, as to `load`; a name no path holds, the trace of
        the analysed session of that id (`session_metrics().session_id`)."""
        known = [path for (path,) in self.con.execute("SELECT trace_path FROM traces").fetchall()]
        if trace_path in known:
            return trace_path
        spellings = {os.path.realpath(trace_path)}
        if os.path.isdir(trace_path):
            spellings.add(os.path.realpath(os.path.join(trace_path, TRACE_FILE)))
        found = next((path for path in known if os.path.realpath(path) in spellings), None)
        if found is not None or os.path.lexists(trace_path):
            return found or trace_path
        self._relations.ensure("sessions")
        named = self.con.execute(
            "SELECT DISTINCT trace_path::VARCHAR FROM sessions WHERE session_id = $id ORDER BY 1",
            {"id": trace_path},
        ).fetchall()
        if len(named) > 1:  # a session and its copy: the command line's words
            raise MurTraceError(
                E_TRC_002,
                f"ambiguous: '{trace_path}' is the session of {len(named)} loaded traces — "
                "give its path",
                [f"  {path}" for (path,) in named],
            )
        return named[0][0] if named else trace_path

    def _complete(self, trace_path: str | None) -> tuple[str, duckdb.DuckDBPyRelation]:
        """The trace asked for (default: the first analysed) and its metrics; it must be whole."""
        trace_path = self._loaded(self._first() if trace_path is None else _spelled(trace_path))
        # asked of `sessions`, which is far lighter to plan than the metrics
        self._relations.ensure("sessions")
        rows = self.con.execute(
            "SELECT has_session_start, has_session_end FROM sessions "
            "WHERE trace_path::VARCHAR = $path",
            {"path": trace_path},
        ).fetchall()
        if not rows:
            self._not_loaded(trace_path)
        for present, event in zip(rows[0], ("session_start", "session_end"), strict=True):
            if not present:
                raise MurTraceError(E_TRC_001, f"{trace_path}: no {event} event found")
        # the file whole: a file of several sessions (an OpenHands output) counted together
        return trace_path, self._relations.view("file_metrics", {"trace_path": trace_path})

    def _not_loaded(self, trace_path: str) -> None:
        """The error of a trace asked for that is not analysed: what kept it out, if it was
        asked to be loaded, else that it was not."""
        left_out = next((s for s in self.skipped if s.trace_path == trace_path), None)
        if left_out is not None:  # what kept it out is the error
            raise MurTraceError(left_out.code, left_out.message)
        raise MurTraceError(E_TRC_002, f"{trace_path}: not among the loaded traces")

    def _first(self) -> str:
        """The first trace loaded and analysed: one left out (`skipped`) is passed over, and
        when every one was, the first one's error is raised."""
        # fetchall: a result left unfinished would stop the connection's next relation
        first = self.con.execute(
            "SELECT trace_path FROM traces WHERE error_code IS NULL ORDER BY ordinal LIMIT 1"
        ).fetchall()
        if first:
            return first[0][0]
        if self.skipped:
            raise MurTraceError(self.skipped[0].code, self.skipped[0].message)
        raise MurTraceError(E_TRC_002, "no sessions loaded")

    def show(self, trace_path: str | None = None) -> SessionShow:
        """The sections of `mur trace show` for one session (default: the first analysed)."""
        self._usable("show()", events=True)
        trace_path, metrics = self._complete(trace_path)
        view = self._relations.view
        this = {"trace_path": trace_path}
        # the findings the metrics count: the trace's policy as it is when they are read
        findings = self._relations.followed_findings()
        return SessionShow(
            metrics=metrics,
            tool_turns=view("calls_by_turn", {**this, "kind": "tool_call"}, "session_line, turn"),
            skill_turns=view("calls_by_turn", {**this, "kind": "skill_call"}, "session_line, turn"),
            redundant=view(findings, this, "line"),
            exit_codes=view("file_exit_codes", this, "exit_code"),
            reopens=view("reopens", this, "line"),
            tasks=view("tasks", this, "line"),
        )

    def steps(self, trace_path: str | None = None) -> duckdb.DuckDBPyRelation:
        """One row per inference turn of one session (default: the first analysed), named as
        `show` names it (a path however spelled; one not loaded is an error: before, no rows,
        and an absolute path to a session loaded by a relative one none either)."""
        trace_path = self._analysed("steps()", trace_path)
        return self._relations.view("steps", {"trace_path": trace_path}, "line")

    def _analysed(self, what: str, trace_path: str | os.PathLike[str] | None) -> str:
        """The analysed trace a path names however spelled (default: the first analysed), as
        `steps` and `plot.timeline` read it; one not analysed is the error `show` gives."""
        self._usable(what, events=True)
        trace_path = self._loaded(self._first() if trace_path is None else _spelled(trace_path))
        if not self.con.execute(
            "SELECT 1 FROM traces WHERE trace_path::VARCHAR = $path AND error_code IS NULL",
            {"path": trace_path},
        ).fetchall():
            self._not_loaded(trace_path)
        return trace_path

    def diff(self, before: str, after: str) -> duckdb.DuckDBPyRelation:
        """The metric table of run A (`before`) against run B (`after`), by trace path."""
        self._usable("diff()", events=True)
        before, _ = self._complete(before)
        after, _ = self._complete(after)
        return self._query(queries.get("metrics/diff").sql, before=before, after=after)

    def report(self) -> Report:
        """Statistics over the complete sessions; the others are listed in `skipped`.

        When none is complete: the error of the first trace that could not be read for a
        reason other than being an empty file of Murmur's (a missing file, an unreadable
        one, a malformed line, a log of another format than `--format-in`'s, or of none of
        it), as `mur trace` stops on those; else E-TRC-001 "no complete sessions to report".
        """
        self._usable("report()")
        metrics = self.session_metrics()
        incomplete = [
            Skipped(path, E_TRC_001, f"{path}: no {'session_end' if start else 'session_start'}"
                    " event found")
            for path, start in metrics.filter("NOT complete")
            .order("trace_path")
            .select("trace_path, has_session_start")
            .fetchall()
        ]  # fmt: skip
        complete = metrics.filter("complete").order("trace_path, session_id")
        if not complete.limit(1).fetchall():
            # a trace that cannot be read, holds a malformed line or is of another format
            # says so itself; an empty one is among "empty or incomplete", as upstream says
            unreadable = [
                s for s in self.skipped if s.message != f"{s.trace_path}: trace file is empty"
            ]
            if unreadable:
                raise MurTraceError(unreadable[0].code, unreadable[0].message)
            raise MurTraceError(
                E_TRC_001, "no complete sessions to report — all traces are empty or incomplete"
            )
        return Report(
            sessions=complete,
            exit_codes=self._relations.view(
                "shell_exit_codes", order="trace_path, session_id, exit_code"
            ),
            stats=self._relations.view("report"),
            exit_status=self._relations.view("exit_status"),
            task_stats=self._relations.view("task_report"),
            skipped=[*self.skipped, *incomplete],
        )

    def loops(self, window: int = 5) -> duckdb.DuckDBPyRelation:
        """The same tool with the same input again (consecutively or within `window` turns),
        and retries after failures, with their waste. A call repeated after a change is no
        loop: the changes are those the context policy's observations see, so the Trace's
        rules and effects change what is found (as `loops --rule/--no-rule/--effects` and
        `find_loops(rules=..., effects=...)`), whatever its policy."""
        self._usable("loops()", events=True)
        return self._query(
            queries.get("loops/repeats").sql,
            window=count_argument("window", window, optional=False),
        )

    def check(
        self,
        *,
        max_redundant: int | None = None,
        max_rate: float | None = None,
        max_context_tokens: int | None = None,
    ) -> duckdb.DuckDBPyRelation:
        """Sessions over any of the thresholds (None: not checked); no rows means all pass."""
        self._usable("check()")
        if max_rate is not None and not (
            isinstance(max_rate, int | float) and not isinstance(max_rate, bool)
            and 0 <= max_rate <= 1
        ):  # fmt: skip
            raise UsageError(f"max_rate must be a share from 0 to 1, not {max_rate!r}")
        return self._query(
            queries.get("metrics/check").sql,
            max_redundant=count_argument("max_redundant", max_redundant),
            # -0.0 is 0 (it printed `> -0.0`)
            max_rate=None if max_rate is None else max_rate + 0.0,
            max_context_tokens=count_argument("max_context_tokens", max_context_tokens),
        )

    def export_tables(self) -> dict[str, duckdb.DuckDBPyRelation]:
        """The tables `export` writes: events and findings (of the trace's policy), each
        with the partition columns `date` and `capsule`."""
        self._usable("export_tables()", events=True)
        return {
            "events": self._query(queries.get("export/events").sql),
            "findings": self._query(queries.get("export/findings").sql),
        }

    def sql(self, query: str, **params: Any) -> duckdb.DuckDBPyRelation:
        """Run `query` over the trace tables and views; `$name` placeholders are bound from
        `params`, never formatted into the SQL."""
        return self._run(query, params, loose=True)

    def _query(self, query: str, **params: Any) -> duckdb.DuckDBPyRelation:
        """`sql` for the queries of queries/, which name what they read after FROM or JOIN."""
        return self._run(query, params)

    def _run(
        self, query: str, params: dict[str, Any], loose: bool = False
    ) -> duckdb.DuckDBPyRelation:
        self._usable("sql()")
        if self._summary == "metrics only" and self._relations.reads(query, "events"):
            self._usable("sql()", events=True)  # it was DuckDB's `Table ... does not exist`
        self._relations.ensure_all(query, loose)
        if not loose:
            return plain(self.con.sql(query, params=params or None))
        # a user's query may name their DataFrames or Arrow tables, which DuckDB looks for
        # in the frame that called it (this one) unless told to look in every frame: bound
        # now, while it looks in the caller's too (`trace.con.sql` found them, this did not)
        ((scan_all,),) = self.con.execute(
            "SELECT current_setting('python_scan_all_frames')"
        ).fetchall()
        self.con.execute("SET python_scan_all_frames = true")
        try:
            return plain(self.con.sql(query, params=params or None))
        finally:
            self.con.execute("SET python_scan_all_frames = $v", {"v": scan_all})

    def session_count(self) -> int:
        """Number of analysed sessions: a trace file each, or each session of a file of
        several (an OpenHands output), as `session_metrics` has a row for each."""
        self._usable("session_count()")
        return self._query("SELECT sessions FROM session_count").fetchall()[0][0]

    def _repr_html_(self) -> str:
        """A summary for notebooks: sessions, calls, findings and waste of the policy."""
        from html import escape

        if self._closed:  # as its repr (a notebook shows this first: it was a traceback)
            return f"<p><b>mur-trace</b>: {escape(repr(self))}</p>"
        (row,) = self._query(queries.get("metrics/summary").sql).fetchall()
        sessions, complete, calls, redundant, resent = row
        worst = self.session_metrics().order("redundant_calls DESC, session_id").limit(5)
        items = "".join(
            f"<tr><td><code>{escape(str(sid))}</code></td><td>{n}</td><td>{t:,}</td></tr>"
            for sid, n, t in worst.select(
                "session_id, redundant_calls, redundant_context_tokens"
            ).fetchall()
        )
        return (
            f"<p><b>mur-trace</b>: {sessions:,} sessions ({complete:,} complete, "
            f"{len(self.skipped)} skipped), {calls:,} tool calls, "
            f"<b>{redundant:,} redundant</b> ({escape(self.policy)} policy), "
            f"{resent:,} tokens re-sent because of them.</p>"
            "<table><tr><th>session</th><th>redundant calls</th><th>tokens re-sent</th></tr>"
            f"{items}</table>"
        )

    def __repr__(self) -> str:
        if self._closed:
            return f"<Trace: closed, {len(self.skipped)} skipped>"
        count = self.session_count()
        return f"<Trace: {count} session{'' if count == 1 else 's'}, {len(self.skipped)} skipped>"
