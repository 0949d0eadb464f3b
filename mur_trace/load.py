"""JSON Lines -> DuckDB tables. The only module that creates tables.

DuckDB reads and parses the traces itself (queries/load/*.sql): Python only lists the
files. Loading (`load_traces`) defines:

- `traces`: one row per trace file asked for, with its session id and, when it cannot be
  analysed, the error that keeps it out;
- `events`: one row per event of the traces that can be analysed;
- `context_rules` (one row per rule of queries/rules/, all enabled) and `declared_effects`
  (the user's effects file, empty by default): the settings of the context policy;
- the macros of queries/functions/; the views of queries/ (VIEWS, MATERIALISED) are
  created on first use by `Relations`.

`load_events` defines the same from events loaded before: the `events` dataset of
`export`, handed over as Arrow (how `mur_trace.spark` runs the queries on each partition).
"""

from __future__ import annotations

import contextlib
import itertools
import os
import re
import stat
import threading
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

import duckdb

from . import formats, queries
from .errors import E_IO_001, E_IO_003, E_TRC_001, E_TRC_002, MurTraceError, UsageError

#: Trace bytes loaded at a time by every command that works trace by trace (`redundant`,
#: `loops`, `check`, `report`, `export`, `ingest`): bounds their memory whatever the fleet.
#: Each batch has a fixed cost (about 0.6 s for the context policy: planning its queries
#: and running their 600 operators, whatever the data), so the context policy is faster in
#: bigger batches, and memory sets their size: over 20,000 simulated sessions (499 MB of
#: traces), alternated, `redundant --policy context` took 29.4-30.8 s in batches of 64 MB
#: and 23.9-26.2 s in batches of 96 MB (peak 607-615 -> 801-803 MB), `report --policy
#: context` 32.3-33.8 s and 31.3 s (646-648 -> 835-851 MB), `loops` the same time
#: (411-412 -> 522-551 MB); every command stays within 1 GB (benchmarks/memory.py). On a
#: later machine (2026-12-04 at 23:20 UTC, the 586 MB of the speed run's 20,000 sessions,
#: alternated; peaks in MiB, as benchmarks/memory.py counts them) batches of 96 MB left
#: `export` 853-989 MiB over nine runs, two of them within 7 % of the 1 GB budget; in
#: batches of 80 MB 781-861 MiB over four, 1-2 % slower, and `redundant --policy context`
#: 873-875 -> 771-780 MiB, 14.4-14.7 -> 15.4-15.6 s (6 % slower; at 5,000 sessions, two
#: batches either way, 3.88-3.91 s and 3.89-3.95 s). So batches are 80 MB: every command
#: stays at least 150 MiB under the budget there, for that time.
BATCH_BYTES = 80 * 2**20

#: Trace bytes the quick reading of `redundant --policy reference` reads at a time
#: (`load.load_tool_calls`): it keeps only the tool calls' text, so that its peak grows by
#: 0.84 MB a MB of batch on simulated sessions and 2.7 MB when every line is a large tool
#: call (670 MB for 207 MB of them), not the 9 MB of a whole load with the context
#: policy's stages; the traces it leaves are loaded whole in batches of BATCH_BYTES. Fewer
#: batches are faster (each has a fixed cost, and ends with one core idle): at 5,000
#: sessions the command took 1.71 s in batches of 64 MB and 1.50 s in one of 192 MB (peak
#: 213 -> 320 MB), at 20,000 4.53 s and 3.4-3.6 s (peak 268 -> 440 MB).
QUICK_BATCH_BYTES = 192 * 2**20


#: Redundancy policies: `--policy NAME` reads the view `redundant_NAME`.
POLICIES: tuple[str, ...] = ("reference", "context")

#: The rules of the context policy: queries/rules/<name>.sql defines the view rule_<name>.
RULES: tuple[str, ...] = tuple(name.split("/", 1)[1] for name in queries.names("rules"))

#: Macros: name -> (parameters, query name).
MACROS: dict[str, tuple[str, str]] = {
    "normalise_path": ("path", "functions/normalise_path"),
    "path_key_rank": ("key", "functions/path_key_rank"),
    "glob_literal": ("path", "functions/glob_literal"),
    "wrong_json_type": ("value, written, kind", "functions/wrong_json_type"),
    "checked_fields": ("", "functions/checked_fields"),
    "event_fields": ("event_type", "functions/event_fields"),
    "wrong_type_keys": ("", "functions/wrong_type_keys"),
    "may_have_wrong_types": ("raw", "functions/may_have_wrong_types"),
    "wrong_field_index": ("raw", "functions/wrong_field_index"),
    "split_shell_words": ("command", "functions/split_shell_words"),
    "visible": ("text", "functions/visible"),
    "line_problem": ("raw, final_piece, parsed", "functions/line_problem"),
    "elapsed": ("start, finish", "functions/elapsed"),
    "capped": ("total", "functions/capped"),
    "created_ms": ("session_id", "functions/created_ms"),
}

#: Table macros: name -> (parameters, query name).
TABLE_MACROS: dict[str, tuple[str, str]] = {
    "read_files": ("files", "functions/read_files"),
    "file_lines": ("files", "functions/file_lines"),
}

#: Relation name -> query name. Each is created when first needed, after what it uses
#: (Relations.ensure): a command pays only for the views it reads.
VIEWS: dict[str, str] = {
    "call_waste": "context/waste",
    **{f"rule_{rule}": f"rules/{rule}" for rule in RULES if rule != "shell_inference"},
    **{f"redundant_{policy}": f"redundant/{policy}" for policy in POLICIES},
    "calls_by_turn": "metrics/calls_by_turn",
    "steps": "metrics/steps",
    "shell_exit_codes": "metrics/shell_exit_codes",
    "file_exit_codes": "metrics/file_exit_codes",
    "tasks": "metrics/tasks",
    "reopens": "metrics/reopens",
    "report": "metrics/report",
    "exit_status": "metrics/exit_status",
    "task_report": "metrics/task_report",
    "session_count": "metrics/session_count",
    "file_sessions": "events/file_sessions",
    "session_parts": "events/session_parts",
    "export_partitions": "export/partitions",
}

#: Materialised relations (temporary tables `<name>_rows`, read through the view `<name>`:
#: `materialise`). Identity resolution is computed once: as a
#: view its path guess ran twice, once under the `resource IS NOT NULL` filter DuckDB
#: pushes down and once for the value. The context stage is rebuilt when rules or effects
#: change: planning the whole policy as one nested query costs more than running it. The
#: per-session metrics are read by report, check, diff, show and the plots, often several
#: times a command (five for `report`): computed once, again when what they count changes.
MATERIALISED: dict[str, str] = {
    # read by the metrics, the listings of `show` and its exit codes: as a view, planned
    # into each (`show` 0.441 -> 0.428 s, medians of 15, alternated; its metrics alone
    # 54 -> 31 ms)
    "sessions": "events/sessions",
    "tool_calls": "events/tool_calls",
    # read by the context stage three times (the observations, and twice by session_changes)
    "rule_shell_inference": "rules/shell_inference",
    "context_observations": "context/observations",
    "path_ancestors": "context/path_ancestors",
    "unit_metrics": "metrics/session",
}

#: Relations that are rows of another: name -> (SQL, the query whose columns they have).
#: The per-session metrics hold a row per file, and one per session of a file of several
#: (queries/metrics/session.sql): `report`, `check` and the plots count sessions, `show`
#: and `diff` whole files.
PARTS: dict[str, tuple[str, str]] = {
    "session_metrics": (
        "SELECT * FROM unit_metrics WHERE whole_file = (sessions_in_file <= 1)",
        "metrics/session",
    ),
    "file_metrics": ("SELECT * FROM unit_metrics WHERE whole_file", "metrics/session"),
}

#: The materialised relations that depend on the rules and effects settings.
CONTEXT_STAGE: tuple[str, ...] = ("rule_shell_inference", "context_observations", "path_ancestors")

#: The materialised relations that count the findings of the active policy.
POLICY_STAGE: tuple[str, ...] = ("unit_metrics",)

#: What `redundant_calls` (the active policy's findings, which the metrics count) needs.
ACTIVE_FINDINGS = "redundant_calls"

#: The active policy's findings alone (no waste joined): what `show` lists, made when asked
#: for (`Relations.followed_findings`) and pointed at the policy whenever it changes.
FOLLOWED_FINDINGS = "policy_findings"


@dataclass(frozen=True)
class Skipped:
    """A trace left out of the analysis, and why."""

    trace_path: str
    code: str
    message: str


@dataclass(frozen=True)
class TraceWarning:
    """A trace analysed with a caveat (its torn last line left out), and why."""

    trace_path: str
    code: str
    message: str


class _Opening(threading.Thread):
    """An in-memory database opened in the background (`open_in_background`)."""

    lock = threading.Lock()
    #: the one started and not yet taken; `started`: whether one ever was
    pending: _Opening | None = None
    started = False

    def __init__(self) -> None:
        # not a daemon: the interpreter waits for it before it exits, never tearing down
        # DuckDB while a database is half made
        super().__init__(name="mur-trace-open")
        self.con: duckdb.DuckDBPyConnection | None = None

    def run(self) -> None:
        # a failure is left to the connect() that would take it: it opens one itself and
        # says what is wrong
        with contextlib.suppress(Exception):
            self.con = duckdb.connect()

    @classmethod
    def take(cls) -> duckdb.DuckDBPyConnection | None:
        """The database opened in the background, once; None when there is none (left)."""
        with cls.lock:
            opening, cls.pending = cls.pending, None
        if opening is None:
            return None
        opening.join()
        return opening.con


def open_in_background() -> None:
    """Start opening the in-memory database that the next `connect()` returns.

    Opening one takes DuckDB 20-50 ms (it registers its functions), during which it lets
    Python run: the command line starts this before it imports Typer and its commands,
    which import meanwhile. Only the first call starts one.
    """
    with _Opening.lock:
        if _Opening.started:
            return
        _Opening.started = True
        _Opening.pending = _Opening()
        _Opening.pending.start()


def duckdb_name(database: str) -> str:
    """The name to give DuckDB for the database file `database` (`:memory:` is the database
    in memory): DuckDB takes a leading `~` for the home directory (`~c.duckdb` opened
    `/home/userc.duckdb`, where the shell would have expanded one already), and a file's
    name `:memory:`, or one starting `word:`, for a database in memory or an extension's
    (`md:` went to download MotherDuck's); `./` before a relative one makes it that file."""
    if database == ":memory:" or os.path.isabs(database):
        return database
    if database.startswith("~") or ":" in database.split(os.sep, 1)[0]:
        return f".{os.sep}{database}"
    return database


def connect(database: str = ":memory:", read_only: bool = False) -> duckdb.DuckDBPyConnection:
    """A DuckDB connection as mur-trace uses it. DuckDB's progress bar does not print: it
    goes to stdout, even into a pipe, and would corrupt the rows of a long query's output.
    The allocator returns freed memory in the background. An in-memory database is the one
    `open_in_background` opened, when there is one not yet taken; a catalog's command closes
    that one (25 MB)."""
    con = _Opening.take()
    if con is not None and (database != ":memory:" or read_only):
        con.close()
        con = None
    if con is None:
        where = duckdb_name(database)
        con = duckdb.connect(where, read_only=read_only)
    # Memory a batch frees goes back to the system before the next one is loaded (one
    # database loads batch after batch): without this the peak of `redundant` over 20,000
    # sessions went from 660 MB to 880 MB over nine runs, with it 660 MB to 700 MB over
    # six, in the same time.
    con.execute("SET allocator_background_threads = true")
    # In Jupyter the bar is a widget, and DuckDB refuses any progress bar setting when
    # ipywidgets is missing: there is nothing to stop there.
    with contextlib.suppress(duckdb.InvalidInputException):
        con.execute("SET enable_progress_bar_print = false")
    return con


def batches(files: Sequence[str], limit: int) -> Iterator[list[str]]:
    """Consecutive runs of `files` of at most `limit` bytes (a bigger file goes alone)."""
    batch: list[str] = []
    size = 0
    for path in files:
        try:
            length = os.stat(path).st_size
        except OSError:
            length = 0  # loading names what is wrong with it
        if batch and size + length > limit:
            yield batch
            batch, size = [], 0
        batch.append(path)
        size += length
    if batch:
        yield batch


def as_text(path: str) -> str:
    """`path` as UTF-8 text, as DuckDB takes every string: a name that is not UTF-8 (its
    bytes kept by Python as surrogates) with those bytes written `\\xNN`."""
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        return os.fsencode(path).decode("utf-8", "backslashreplace")
    return path


def file_problem(path: str, what: str = "trace file") -> Skipped | None:
    """Why `path` cannot be read as a file, if it cannot: missing, a directory (a workdir
    that holds no session, when it is not named like a trace file), a link loop,
    a device or pipe (reading one could block forever), no permission, a name that is not
    UTF-8 (DuckDB opens only those). One `stat`."""
    shown = as_text(path)
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return Skipped(path, E_IO_001, f"{what} not found: {shown}")
    except OSError as exc:
        return Skipped(path, E_IO_003, f"failed to read {shown}: {exc.strerror}")
    if stat.S_ISDIR(mode):
        if what == "trace file" and not path.endswith(".jsonl"):
            # a workdir among other paths that gave no session (sessions.discover)
            if not os.access(path, os.R_OK | os.X_OK):
                return Skipped(path, E_IO_003, f"failed to read {shown}: Permission denied")
            return Skipped(path, E_TRC_002, f"no sessions found in workdir at {shown}")
        return Skipped(path, E_IO_003, f"failed to read {shown}: is a directory")
    if not stat.S_ISREG(mode):
        return Skipped(path, E_IO_003, f"failed to read {shown}: not a regular file")
    if not os.access(path, os.R_OK):
        # refused, or deleted (and maybe written again) since the `stat`: the open says which,
        # as the system says it (`strerror`)
        try:
            os.close(os.open(path, os.O_RDONLY | os.O_NONBLOCK))
        except FileNotFoundError:
            return Skipped(path, E_IO_001, f"{what} not found: {shown}")
        except OSError as exc:
            return Skipped(path, E_IO_003, f"failed to read {shown}: {exc.strerror}")
    if shown != path:
        return Skipped(path, E_IO_003, f"failed to read {shown}: its name is not UTF-8 text")
    return None


def unread_file(exc: duckdb.IOException, paths: Iterable[str]) -> tuple[str, str] | None:
    """The file of `paths` DuckDB failed to read (`exc` names it: a file cut shorter while
    it was read, `Failed to read file 'x' at offset 23, unexpected EOF`; one deleted
    between DuckDB's listing and its opening, `Cannot open file "x": No such file or
    directory`), and the message that says why; None when it names none of them."""
    said = str(exc)
    for path in paths:
        for quoted in (f"'{as_text(path)}'", f'"{as_text(path)}"'):
            if quoted in said:
                detail = said.split(quoted, 1)[1].strip(" :,") or "it could not be read"
                why = f"it changed while it was read ({detail})"
                return path, f"failed to read {as_text(path)}: {why}"
    return None


def any_gone(paths: Iterable[str]) -> bool:
    """Whether a file of `paths` is no longer a regular file (deleted, or replaced by a
    directory): one `stat` each, to check files again after a read."""
    for path in paths:
        try:
            if not stat.S_ISREG(os.stat(path).st_mode):
                return True
        except OSError:
            return True
    return False


def check_files(paths: Iterable[str]) -> list[Skipped]:
    """The trace files that cannot be read as files (`file_problem`), without reading any."""
    return [problem for path in paths if (problem := file_problem(path)) is not None]


def findings_view(policy: str) -> str:
    """The view holding the findings of a redundancy policy."""
    if policy not in POLICIES:
        raise UsageError(f"unknown policy {policy!r}; known: {', '.join(POLICIES)}")
    return f"redundant_{policy}"


def rule_doc(rule: str) -> str:
    """The one-line description of a context rule (its header's first line)."""
    first = queries.get(f"rules/{rule}").doc.splitlines()[0]
    return first.split(":", 1)[1].strip() if first.startswith("rule ") else first


def check_rules(enabled: Mapping[str, bool]) -> None:
    """Refuse what is no mapping of known rule names to True or False (`UsageError`: a list
    of names read as one was an AttributeError)."""
    if not isinstance(enabled, Mapping):
        raise UsageError(
            f"rules are a mapping of rule names to True or False, not {type(enabled).__name__}"
        )
    unknown = sorted(set(enabled) - set(RULES), key=str)
    if unknown:
        raise UsageError(f"unknown rule {unknown[0]!r}; known: {', '.join(RULES)}")
    for name, on in enabled.items():
        if not isinstance(on, bool):  # "no" would count as on
            raise UsageError(f"rule {name!r}: on or off is True or False, not {on!r}")


def set_rules(con: duckdb.DuckDBPyConnection, enabled: Mapping[str, bool]) -> None:
    """Switch context rules on or off (`check_rules` first)."""
    check_rules(enabled)
    for name, on in enabled.items():
        con.execute(
            "UPDATE context_rules SET enabled = $on WHERE name = $name", {"on": on, "name": name}
        )


def set_effects(
    con: duckdb.DuckDBPyConnection, effects: Iterable[tuple[str, str | None, str | None, str]]
) -> None:
    """Replace the declared effects: (tool_name, field or None, value or None, effect).
    Every row is checked first: one that is not such a row or declares another effect than
    `read` or `mutate` (`UsageError`) changes nothing (it was DuckDB's error, the rows
    before it already in place)."""
    if isinstance(effects, str | bytes | os.PathLike):
        raise UsageError(
            "effects are (tool, field, value, effect) rows; a file is read by read_effects"
        )
    if not isinstance(effects, Iterable):
        raise UsageError(f"effects are (tool, field, value, effect) rows, not {effects!r}")
    from .effects import EFFECTS  # which imports this module

    rows = list(effects)
    for row in rows:
        if not (
            isinstance(row, tuple | list) and len(row) == 4 and isinstance(row[0], str)
            and all(v is None or isinstance(v, str) for v in row[1:3])
        ):  # fmt: skip
            raise UsageError(
                f"an effect is a (tool, field or None, value or None, effect) row, not {row!r}"
            )
        if row[3] not in EFFECTS:
            raise UsageError(f"an effect is one of {', '.join(EFFECTS)}, not {row[3]!r}")
    con.execute("DELETE FROM declared_effects")
    if rows:
        con.executemany("INSERT INTO declared_effects VALUES (?, ?, ?, ?)", rows)


def create_settings(con: duckdb.DuckDBPyConnection) -> None:
    """The settings tables of the context policy, with their defaults."""
    con.execute(
        "CREATE OR REPLACE TEMP TABLE context_rules "
        "(name VARCHAR PRIMARY KEY, enabled BOOLEAN NOT NULL, description VARCHAR)"
    )
    # one statement (executemany ran one a rule: 3.7 ms against 1.5 ms)
    con.execute(
        "INSERT INTO context_rules SELECT unnest($names), true, unnest($docs)",
        {"names": list(RULES), "docs": [rule_doc(r) for r in RULES]},
    )
    con.execute(
        "CREATE OR REPLACE TEMP TABLE declared_effects "
        "(tool_name VARCHAR NOT NULL, field VARCHAR, value VARCHAR, effect VARCHAR NOT NULL "
        "CHECK (effect IN ('read', 'mutate')))"
    )


def create_macros(con: duckdb.DuckDBPyConnection) -> None:
    """The SQL functions the queries use, and the directory the command runs in (the
    variable `cwd`, where functions/glob_literal.sql reads a path that starts with `~`)."""
    try:
        cwd: str | None = os.getcwd().rstrip(os.sep) or None
    except OSError:  # the directory was removed: such a path is read as `./~...`
        cwd = None
    con.execute("SET VARIABLE cwd = $cwd::VARCHAR", {"cwd": cwd})
    for macro, (params, name) in MACROS.items():
        con.execute(f"CREATE OR REPLACE TEMP MACRO {macro}({params}) AS ({queries.get(name).sql})")
    for macro, (params, name) in TABLE_MACROS.items():
        sql = queries.get(name).sql
        con.execute(f"CREATE OR REPLACE TEMP MACRO {macro}({params}) AS TABLE {sql}")


_COMMENT = re.compile(r"--[^\n]*")
_BLOCK_COMMENT = re.compile(r"/\*.*?\*/", re.DOTALL)
#: A relation read: the name after FROM or JOIN, in double quotes or not (`FROM "events"`).
_READS = re.compile(r'\b(?:FROM|JOIN)\s+"?([A-Za-z_][A-Za-z0-9_]*)"?', re.IGNORECASE)
#: A SQL string literal (`'it''s'`).
_STRING_LITERAL = re.compile(r"'(?:[^']|'')*'")


def _active(policy: str) -> str:
    """The SQL of ACTIVE_FINDINGS under `policy`: its findings with their waste."""
    return (
        "SELECT f.*, w.est_tokens AS waste_tokens, w.context_tokens AS waste_context_tokens "
        f"FROM {findings_view(policy)} AS f LEFT JOIN call_waste AS w USING (trace_path, line)"
    )


class Relations:
    """The views and materialised tables of a connection, created on first use.

    A relation is created after the relations its SQL names; `overrides` replaces the SQL
    of some (a catalog serves stored tables instead of computing them).
    """

    def __init__(self, con: duckdb.DuckDBPyConnection, overrides: dict[str, str] | None = None):
        self.con = con
        self.sources = {name: queries.get(query).sql for name, query in VIEWS.items()}
        self.sources |= {name: sql for name, (sql, _) in PARTS.items()}
        self.sources |= overrides or {}
        self.materialised = {
            name: queries.get(q).sql for name, q in MATERIALISED.items() if name not in self.sources
        }
        self.created: set[str] = set()
        self.policy = "reference"
        # the parameters of `view`'s relations: named apart, so that they combine (a
        # union or join of two relations may not hold two parameters of one name)
        self._parameters = itertools.count()

    def names(self) -> list[str]:
        """Every relation it can make, by name."""
        return [*self.sources, *self.materialised, ACTIVE_FINDINGS]

    def uses(self, sql: str) -> list[str]:
        """The relations a piece of SQL reads (names after FROM or JOIN, in any case, as
        SQL reads them: `FROM TOOL_CALLS` was an error until `tool_calls` had been used)."""
        read = {name.lower() for name in _READS.findall(_COMMENT.sub(" ", sql))}
        return [name for name in self.names() if name in read]

    def reads(self, sql: str, table: str) -> bool:
        """Whether `sql` reads `table` (a name after FROM or JOIN, quoted or not, outside
        comments and string literals), itself or through the relations it names so. A
        column or alias of a relation's name is no reading of it."""
        seen: set[str] = set()

        def through(text: str) -> bool:
            text = _STRING_LITERAL.sub("''", _BLOCK_COMMENT.sub(" ", _COMMENT.sub(" ", text)))
            named = {n.lower() for n in _READS.findall(text)}
            if table in named:
                return True
            for name in [n for n in self.names() if n in named]:
                if name not in seen:
                    seen.add(name)
                    source = (
                        _active(self.policy)
                        if name == ACTIVE_FINDINGS
                        else self.sources.get(name) or self.materialised.get(name)
                    )
                    if source is not None and through(source):
                        return True
            return False

        return through(sql)

    def _words(self, sql: str) -> list[str]:
        """The relations whose names stand in a user's query as words (`ensure_all`)."""
        text = _BLOCK_COMMENT.sub(" ", _COMMENT.sub(" ", sql))
        return [
            name
            for name in self.names()
            if re.search(rf"(?<![\w$]){re.escape(name)}(?!\w)", text, re.IGNORECASE)
        ]

    def ensure(self, name: str, _path: tuple[str, ...] = ()) -> None:
        """Create `name`, and first what it uses, unless it exists."""
        if name in self.created or name in _path:
            return
        if name == ACTIVE_FINDINGS:
            self.use_policy(self.policy)
            return
        sql = self.sources.get(name) or self.materialised[name]
        for used in self.uses(sql):
            if used != name:
                self.ensure(used, (*_path, name))
        try:
            if name in self.materialised:
                materialise(self.con, name, sql)
            else:
                self.con.execute(f"CREATE OR REPLACE TEMP VIEW {name} AS {sql}")
        except duckdb.CatalogException as exc:
            if "Existing object" not in str(exc):
                raise
            # a user's own temporary table of that name on the connection (it was DuckDB's
            # `Existing object "steps" is of type Table, trying to replace with type View`)
            raise UsageError(
                f"the connection holds a temporary table {name!r} of its own, a name the "
                'library\'s views take (README, "The connection of a Trace"): name it otherwise'
            ) from None
        self.created.add(name)

    def ensure_all(self, sql: str, loose: bool = False) -> None:
        """Create every relation a query names after FROM or JOIN. `loose` (a user's query,
        `Trace.sql`): also every relation whose name stands in it as a word otherwise
        (quoted, after a comma, a comment or a schema: `"redundant_calls"` or `events,
        redundant_context` was an error until the relation had been used), and one of those
        that cannot be made is left for the query to say (a word may be a column's name)."""
        for name in self.uses(sql):
            self.ensure(name)
        if not loose:
            return
        for name in self._words(sql):
            if name not in self.created:
                with contextlib.suppress(duckdb.Error):
                    self.ensure(name)

    def view(
        self, name: str, where: dict[str, Any] | None = None, order: str | None = None
    ) -> duckdb.DuckDBPyRelation:
        """The relation `name`, created first if need be, with its paths as text, as `plain`
        hands them out (cast in the SQL here: `plain`'s projection cost 1.5 ms a relation,
        which `show` pays for each of its eight). With `where`, only its rows whose columns
        equal the values given (bound, never spliced into the SQL); with `order`, in that
        order (columns, as SQL). One statement: DuckDB plans a relation again at each
        filter or order put on it (`show`'s queries after loading: 0.144 s so, 0.123 s in
        one)."""
        self.ensure(name)
        followed = name in (ACTIVE_FINDINGS, FOLLOWED_FINDINGS)
        query = {**VIEWS, **MATERIALISED, **{n: q for n, (_, q) in PARTS.items()}}.get(
            findings_view(self.policy) if followed else name
        )
        paths = query is not None and "trace_path" in [c.name for c in queries.get(query).columns]
        if not (paths or where or order):
            return self.con.view(name)
        select = "* REPLACE (trace_path::VARCHAR AS trace_path)" if paths else "*"
        sql = f"SELECT * FROM (SELECT {select} FROM {name})"
        names = {column: f"v{next(self._parameters)}" for column in where or {}}
        if where:
            sql += " WHERE " + " AND ".join(f'"{c}" = ${names[c]}' for c in where)
        values = {names[column]: value for column, value in (where or {}).items()}
        if order:
            sql += f" ORDER BY {order}"
        return self.con.sql(sql, params=values or None)

    def use_policy(self, policy: str) -> None:
        """Point `redundant_calls`, which the metric views count, at a policy's findings."""
        self.ensure(findings_view(policy))
        self.ensure("call_waste")
        self.con.execute(f"CREATE OR REPLACE TEMP VIEW {ACTIVE_FINDINGS} AS {_active(policy)}")
        self.created.add(ACTIVE_FINDINGS)
        self.policy = policy
        if FOLLOWED_FINDINGS in self.created:
            self._follow()
        self._refresh(POLICY_STAGE)

    def followed_findings(self) -> str:
        """The name of a view of the active policy's findings that follows the policy when
        it changes (as the metric views do, through `redundant_calls`)."""
        if FOLLOWED_FINDINGS not in self.created:
            self._follow()
        return FOLLOWED_FINDINGS

    def _follow(self) -> None:
        view = findings_view(self.policy)
        self.ensure(view)
        self.con.execute(f"CREATE OR REPLACE TEMP VIEW {FOLLOWED_FINDINGS} AS FROM {view}")
        self.created.add(FOLLOWED_FINDINGS)

    def rebuild(self) -> None:
        """Recompute what is materialised from the rules and effects after they change."""
        self._refresh((*CONTEXT_STAGE, *POLICY_STAGE))

    def _refresh(self, names: Sequence[str]) -> None:
        """Recompute those of `names` that are materialised and were made, in order."""
        for name in names:
            if name in self.created and name in self.materialised:
                materialise(self.con, name, self.materialised[name])


def materialise(con: duckdb.DuckDBPyConnection, name: str, sql: str) -> None:
    """Store the rows of `sql` in the table `{name}_rows` and serve them as the view `name`.

    The view reads the table whole. DuckDB scans a table in parallel by row groups of
    122,880 rows, and a batch's tables are smaller, so a query's first pipeline over one
    runs on one thread; the view once split the table into one range of rows a thread to
    spread it. The queries over these relations spend their time in windows, joins and
    aggregates, which DuckDB runs in parallel after that first pipeline, and the ranges
    stopped paying for the unions they added: without them, alternated, medians of five,
    `redundant --policy context` over 5,000 sessions 5.44 -> 5.53 s (20,000: 14.3 ->
    14.0 s), `loops` 4.17 -> 3.75 s, `report` 4.13 -> 4.10 s, `show` 0.55 -> 0.50 s.
    """
    con.execute(f"CREATE OR REPLACE TEMP TABLE {name}_rows AS {sql}")
    con.execute(f"CREATE OR REPLACE TEMP VIEW {name} AS SELECT * FROM {name}_rows")


def drop_materialised(con: duckdb.DuckDBPyConnection) -> None:
    """Drop the relations materialised from the traces analysed last (`materialise`)."""
    for name in MATERIALISED:
        con.execute(f"DROP VIEW IF EXISTS {name}")
        con.execute(f"DROP TABLE IF EXISTS {name}_rows")


def drop_loaded(con: duckdb.DuckDBPyConnection) -> None:
    """Drop the tables of the last load (its events and traces, or what the quick reading
    read), the relations materialised from them and the type of their paths."""
    # a `DROP ... IF EXISTS` each (about 0.1 ms): asking the catalog first what exists
    # (duckdb_tables(), duckdb_views()) took 14 ms
    for table in ("events", "traces", "quick_lines", "quick_traces"):
        con.execute(f"DROP TABLE IF EXISTS {table}")
    drop_materialised(con)
    # a table of the caller's own may still hold values of one: it stays, and the next
    # load makes another
    for name in _trace_path_types(con):
        with contextlib.suppress(duckdb.DependencyException):
            con.execute(f"DROP TYPE IF EXISTS {name}")


#: The type of `trace_path` in the tables of a load (`events`, `traces`) is an ENUM of the
#: loaded paths named so (with a number), in the order VARCHAR sorts them: every
#: comparison, ordering and aggregate gives what it gives on the text, and `plain` hands
#: relations out as VARCHAR.
TRACE_PATHS = "trace_paths_"


def _trace_path_types(con: duckdb.DuckDBPyConnection) -> list[str]:
    """The ENUM types loads made on `con` that are still there."""
    return [
        name
        for (name,) in con.execute(
            "SELECT type_name FROM duckdb_types() WHERE starts_with(type_name, $prefix)",
            {"prefix": TRACE_PATHS},
        ).fetchall()
        if name.removeprefix(TRACE_PATHS).isdigit()
    ]


def trace_path_type(con: duckdb.DuckDBPyConnection, paths: str) -> str | None:
    """A new ENUM type (TRACE_PATHS) of the distinct values of the query `paths`, in the
    order VARCHAR sorts them; None when there are none (an ENUM has one value at least)."""
    if not con.execute(f"SELECT count(*) FROM ({paths})").fetchall()[0][0]:
        return None
    taken = [int(name.removeprefix(TRACE_PATHS)) for name in _trace_path_types(con)]
    name = f"{TRACE_PATHS}{max(taken, default=-1) + 1}"
    con.execute(f"CREATE TYPE {name} AS ENUM (SELECT DISTINCT * FROM ({paths}) ORDER BY 1)")
    return name


def enumerate_trace_paths(con: duckdb.DuckDBPyConnection) -> None:
    """Make `trace_path` of `events` and `traces` an ENUM of their paths (TRACE_PATHS).

    Joins, windows and groupings on `trace_path` then compare small integers, not paths
    of about 80 bytes that share their first 30: the context policy's stages after loading
    took 1.40 -> 1.08 s for 1,700 sessions. (`load_traces` makes its tables with the type
    of the paths it was given instead: rewriting the column of a batch's events cost it
    more than casting the paths as they are read.)
    """
    name = trace_path_type(con, "SELECT trace_path FROM traces UNION SELECT trace_path FROM events")
    if name is not None:
        for table in ("events", "traces"):
            con.execute(f"ALTER TABLE {table} ALTER trace_path TYPE {name}")


def _as_type(sql: str, name: str | None) -> str:
    """The rows of `sql` with `trace_path` of type `name` (unchanged when None)."""
    if name is None:
        return sql
    return f"SELECT * REPLACE (trace_path::{name} AS trace_path) FROM ({sql})"


def plain(rel: duckdb.DuckDBPyRelation) -> duckdb.DuckDBPyRelation:
    """`rel` with its ENUM columns as VARCHAR: a load's paths (TRACE_PATHS), under whatever
    name a query gives them, as every relation handed out holds them. Its other columns
    stay `*`, bound when it is read: a relation of a view whose columns change with the
    policy (`redundant_calls`) has the policy's columns when read (listed here, they were
    the first policy's: DuckDB's binder error after `trace.policy = ...`)."""
    enums = [c for c, t in zip(rel.columns, rel.types, strict=True) if t.id == "enum"]
    if not enums:
        return rel
    if len(set(enums)) == len(enums):
        cast = ", ".join(f'"{c}"::VARCHAR AS "{c}"' for c in enums)
        return rel.select(f"* REPLACE ({cast})")
    # two columns of one name (`SELECT *` of a join on the path): no REPLACE takes them,
    # so every column is listed (`"trace_path"` names the first: DuckDB's own `*`)
    return rel.select(
        ", ".join(
            f'#{i}::VARCHAR AS "{c}"' if t.id == "enum" else f'#{i} AS "{c}"'
            for i, (c, t) in enumerate(zip(rel.columns, rel.types, strict=True), start=1)
        )
    )


class _ReadAgain(Exception):
    """A batch to read again (`load_traces`): a file gone once read, or one DuckDB could
    not read whole (`unread`: its path and why), left out the next time."""

    def __init__(self, unread: tuple[str, str] | None = None) -> None:
        super().__init__()
        self.unread = unread


def load_traces(
    con: duckdb.DuckDBPyConnection, trace_paths: Sequence[str], format_in: str | None = None
) -> list[Skipped]:
    """Read `trace_paths` into `traces` and `events`; return the traces that were left out.

    Files that cannot be opened are judged first (`check_files`); the others are parsed
    once into a table, each by the reader of its format (recognised from its first line,
    or `format_in`, a name of `formats.FORMATS`); the traces are judged from it; the rows
    of bad traces are dropped and missing session ids filled in place; what is left is
    `events`. A file that could not be read whole once opened (cut shorter while it was
    read: DuckDB's `unexpected EOF`) is left out as the others that cannot be read, and the
    rest read again without it (a loop, not a recursion: a thousand such files were a
    RecursionError).
    """
    changed: dict[str, str] = {}
    while True:
        try:
            return _load_once(con, trace_paths, format_in, changed)
        except _ReadAgain as again:
            if again.unread is not None:
                changed[again.unread[0]] = again.unread[1]


def _load_once(
    con: duckdb.DuckDBPyConnection,
    trace_paths: Sequence[str],
    format_in: str | None,
    changed: Mapping[str, str],
) -> list[Skipped]:
    """One reading of `load_traces`, `changed` left out as unreadable, with why; raises
    _ReadAgain when the batch must be read again."""
    forced = formats.reader(format_in) if format_in is not None else None
    problems = check_files(trace_paths)
    opened = {p.trace_path for p in problems}
    problems += [Skipped(p, E_IO_003, m) for p, m in changed.items() if p not in opened]
    if forced is not None:
        unreadable = {p.trace_path for p in problems}
        problems += [
            Skipped(path, E_TRC_001, message)
            for path in trace_paths
            if path not in unreadable
            and (message := formats.mismatch(path, forced, format_in)) is not None
        ]
    unreadable = {p.trace_path for p in problems}
    readable = [p for p in trace_paths if p not in unreadable]
    kinds = {p: forced or formats.detect(p) for p in readable}
    # a trace whose name is not UTF-8 is judged (file_problem) and named as text
    con.execute("SET VARIABLE trace_files = $paths", {"paths": [as_text(p) for p in trace_paths]})
    con.execute(
        "SET VARIABLE readable_files = $paths::VARCHAR[]",
        {"paths": [p for p in readable if kinds[p] == "murmur"]},
    )
    con.execute(
        "SET VARIABLE trace_formats = $formats::VARCHAR[]",
        {"formats": [kinds.get(p) for p in trace_paths]},
    )
    # as messages name them (`--format-in`'s names)
    con.execute(
        "SET VARIABLE trace_format_names = $names::VARCHAR[]",
        {"names": [formats.option_name(kinds[p]) if p in kinds else None for p in trace_paths]},
    )
    # Our queries order what they need; letting DuckDB insert in any order halves the load.
    con.execute("SET preserve_insertion_order = false")
    # A load replaces what the connection held (`find_redundant` loads batch after batch).
    # Dropped first: while the events of a previous load (updated in place) are still
    # there, the next parse runs 4 x slower; and their memory is free for this load.
    drop_loaded(con)
    create_macros(con)
    # the paths' type (enumerate_trace_paths), made before the rows that hold them: over
    # 5,000 sessions the context policy took 3.79 -> 3.58-3.67 s in one process without
    # the rewrite (the whole command 4.31 -> 4.28 s, medians of five: within the noise)
    paths = trace_path_type(con, "SELECT unnest(getvariable('trace_files'))")
    lines = _as_type(queries.get("load/lines").sql, paths)
    try:
        con.execute(f"CREATE OR REPLACE TABLE lines AS {lines}")
        read_other_formats(con, [(p, kinds[p]) for p in readable if kinds[p] != "murmur"])
    except duckdb.IOException as exc:
        failed = unread_file(exc, readable)
        if failed is None:
            raise
        raise _ReadAgain(failed) from None
    # read_blob passes over a file deleted after its check (it would read as empty) and
    # numbers the files after it without it (a path holding a wildcard is named by its
    # position): a batch one of whose files is gone once read is read again without it
    if any_gone(readable):
        raise _ReadAgain
    # by position: a name that is not UTF-8 reads as text another file may have as its name
    why = {p.trace_path: p for p in problems}
    con.execute(
        "SET VARIABLE file_errors = "
        "$errors::STRUCT(ordinal BIGINT, code VARCHAR, message VARCHAR)[]",
        {
            "errors": [
                {"ordinal": ordinal, "code": why[path].code, "message": why[path].message}
                for ordinal, path in enumerate(trace_paths, 1)
                if path in why
            ]
        },
    )
    traces = _as_type(queries.get("load/traces").sql, paths)
    con.execute(f"CREATE OR REPLACE TABLE traces AS {traces}")
    con.execute(queries.get("load/drop_unreadable").sql)
    con.execute(queries.get("load/fill_session_ids").sql)
    con.execute("ALTER TABLE lines DROP COLUMN problem")
    con.execute("ALTER TABLE lines DROP COLUMN torn")
    con.execute("ALTER TABLE lines RENAME TO events")
    create_settings(con)
    return skipped_traces(con)


def read_other_formats(con: duckdb.DuckDBPyConnection, files: Sequence[tuple[str, str]]) -> None:
    """Add to `lines` the events of the files of other formats, (path, format) pairs, each
    format by its reader, queries/formats/<format>.sql (which reads the variable
    `source_files`)."""
    if not files:
        return
    con.execute(
        "SET VARIABLE source_files = $files::STRUCT(trace_path VARCHAR, format VARCHAR)[]",
        {"files": [{"trace_path": path, "format": kind} for path, kind in files]},
    )
    con.execute(
        "SET VARIABLE source_paths = [f.trace_path FOR f IN getvariable('source_files')]::VARCHAR[]"
    )
    con.execute(
        "SET VARIABLE claude_types = $types::VARCHAR[]",
        {"types": sorted(formats.CLAUDE_TYPES)},
    )
    con.execute(f"CREATE OR REPLACE TEMP TABLE source_lines AS {queries.get('formats/lines').sql}")
    for name in sorted({kind for _, kind in files}):
        con.execute(f"INSERT INTO lines BY NAME {queries.get(f'formats/{name}').sql}")
    con.execute("DROP TABLE source_lines")


#: Columns of `events` that exports of an older mur-trace lack: such events load with them
#: NULL, `file_session` then filled as those exports were read (load/older_file_sessions.sql).
LATER_EVENT_COLUMNS = frozenset({"file_session"})


def check_event_columns(names: Iterable[str]) -> None:
    """Refuse (E-IO-003) events that lack a column of `events`, but LATER_EVENT_COLUMNS."""
    given = set(names)
    missing = [n for n, _ in event_columns() if n not in given and n not in LATER_EVENT_COLUMNS]
    if missing:
        raise MurTraceError(
            E_IO_003,
            f"the events have no column {missing[0]!r}: not the events of `mur-trace export`",
        )


@cache
def event_columns() -> tuple[tuple[str, str], ...]:
    """The columns of `events`, (name, DuckDB type) in order, as loading makes them."""
    con = connect()
    try:
        load_traces(con, [])
        events = con.table("events")
        return tuple(zip(events.columns, map(str, events.types), strict=True))
    finally:
        con.close()


def load_events(con: duckdb.DuckDBPyConnection, events: Any) -> None:
    """Make `events` and `traces` from events loaded before, instead of from trace files.

    `events` is an Arrow table (or record batch reader) with the columns of `events`
    (`event_columns`; those of LATER_EVENT_COLUMNS may be missing), as the `events` dataset
    of `mur-trace export` holds them; other columns (the export's `date` and `capsule`)
    are ignored, values are cast to the loader's types (JSON arrives as text from Parquet).
    It must hold every event of each of its traces: a finding depends on its whole trace,
    and on nothing else. `traces` is derived from the events
    (queries/load/traces_of_events.sql). A load replaces what the connection held.
    """
    columns = event_columns()
    names = events.schema.names
    check_event_columns(names)
    con.execute("SET preserve_insertion_order = false")
    drop_loaded(con)
    create_macros(con)
    # our own column names and types, never the data's
    given = {name: f'"{name}"' for name in names}
    select = ", ".join(
        f'CAST({given.get(name, "NULL")} AS {kind}) AS "{name}"' for name, kind in columns
    )
    con.register("loaded_events", events)
    try:
        con.execute(f"CREATE OR REPLACE TABLE events AS SELECT {select} FROM loaded_events")
    finally:
        con.unregister("loaded_events")
    if "file_session" not in names:
        con.execute(queries.get("load/older_file_sessions").sql)
    con.execute(f"CREATE OR REPLACE TABLE traces AS {queries.get('load/traces_of_events').sql}")
    enumerate_trace_paths(con)
    create_settings(con)


def _noted(con: duckdb.DuckDBPyConnection, column: str, columns: str) -> list[tuple]:
    """`columns` of the traces whose `column` is set, in the order they were asked for."""
    rows = con.table("traces").filter(f"{column} IS NOT NULL").order("ordinal")
    return rows.select(columns).fetchall()


#: How queries/load/traces.sql's warning of a torn last line ends: the rest is analysed.
ANALYSED_WITHOUT_IT = "; the lines before it are analysed"


def strict_error(skipped: list[Skipped], warnings: list[TraceWarning]) -> MurTraceError | None:
    """What `--strict` fails with: the first trace left out, else the first read in part,
    whose warning then says what is wrong with it and not that the rest is analysed, as
    nothing is; None when every trace was read whole."""
    if skipped:
        return MurTraceError(skipped[0].code, f"{skipped[0].message} (--strict)")
    if warnings:
        what = warnings[0].message.removesuffix(ANALYSED_WITHOUT_IT)
        return MurTraceError(warnings[0].code, f"{what} (--strict)")
    return None


def trace_warnings(con: duckdb.DuckDBPyConnection) -> list[TraceWarning]:
    """The traces of `traces` analysed with a warning (a torn last line left out)."""
    return [TraceWarning(p, E_TRC_001, m) for p, m in _noted(con, "warning", "trace_path, warning")]


def skipped_traces(con: duckdb.DuckDBPyConnection) -> list[Skipped]:
    """The traces of `traces` that cannot be analysed, with why."""
    return [Skipped(*row) for row in _noted(con, "error_code", "trace_path, error_code, error")]


# ── the quick reading of `redundant --policy reference` ──────────────────────────


@dataclass(frozen=True)
class QuickLoad:
    """What `load_tool_calls` read of a batch of traces."""

    #: The traces whose tool calls are in `quick_lines`: loading them whole finds no error
    #: and no warning.
    analysed: int
    #: Their events (lines that are not blank).
    events: int
    #: The traces it left out, in the order given: `load_traces` reads them (and says why
    #: one cannot be analysed).
    rest: list[str]


def load_tool_calls(
    con: duckdb.DuckDBPyConnection, trace_paths: Sequence[str], format_in: str | None = None
) -> QuickLoad:
    """Read the tool calls of Murmur traces, without parsing the rest of their lines more
    than to validate them, into `quick_lines` and `quick_traces` (queries/quick/), for
    `quick_findings`.

    Only the traces that loading would analyse with no error or warning are read so; the
    others (a bad line, a torn last line, blank lines only, text that is not UTF-8, a tool
    call that names no session, a file that cannot be opened or is of another agent's
    format) are left for `load_traces`, in `QuickLoad.rest`. `format_in` as for
    `load_traces`. A load replaces what the connection held.
    """
    forced = formats.reader(format_in) if format_in is not None else None
    quick = [
        path
        for path in trace_paths
        if not file_problem(path)
        and (forced or formats.detect(path)) == "murmur"
        and not (forced and formats.mismatch(path, forced, format_in))
    ]
    con.execute("SET VARIABLE quick_files = $paths::VARCHAR[]", {"paths": quick})
    con.execute("SET preserve_insertion_order = false")
    drop_loaded(con)
    create_macros(con)
    try:
        con.execute(f"CREATE OR REPLACE TEMP TABLE quick_lines AS {queries.get('quick/lines').sql}")
    except duckdb.IOException as exc:  # a file cut shorter while it was read: all loaded whole
        if unread_file(exc, quick) is None:  # (`load_traces` leaves that one out, and says so)
            raise
        return QuickLoad(0, 0, list(trace_paths))
    con.execute(f"CREATE OR REPLACE TEMP TABLE quick_traces AS {queries.get('quick/traces').sql}")
    # read_blob passes over a file deleted after its check and numbers the files after it
    # without it, so that a position would hold the next file's lines: a batch one of whose
    # files is gone once read is loaded whole (which reads it again without that file)
    if any_gone(quick):
        con.execute("UPDATE quick_traces SET quick = false")
    read = con.table("quick_traces").filter("quick")
    taken = {path for (path,) in read.select("trace_path").fetchall()}
    ((events,),) = read.aggregate("coalesce(sum(events), 0)::BIGINT").fetchall()
    return QuickLoad(len(taken), events, [p for p in trace_paths if p not in taken])


def quick_findings(con: duckdb.DuckDBPyConnection) -> duckdb.DuckDBPyRelation:
    """The reference policy's findings in the traces `load_tool_calls` read: the rows
    queries/redundant/reference.sql gives for them (queries/quick/reference.sql)."""
    return con.sql(queries.get("quick/reference").sql)
