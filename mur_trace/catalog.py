"""The persistent catalog: `mur-trace ingest PATHS --db FILE`, then `--db FILE` everywhere.

A catalog is a DuckDB file holding what loading computes (`events`, `traces`), what the
reference detector derives from it per trace (`stored_tool_calls`,
`stored_redundant_reference`, kept in report order so that reading it needs no sort), what
each tool call cost (`stored_call_waste`, which the per-session metrics count),
which file each trace came from (`trace_files`: size, modification time, line count,
SHA-256) and the schema version (`catalog_meta`).

Ingest is incremental: an unchanged file (same size and modification time, and no change
of status since the last ingest that looked at every trace began, else the same SHA-256)
is skipped; a
file that grew by appends (its old bytes are a prefix of the new, ending in a newline)
adds only its new lines; any other change replaces the trace; a trace whose file is gone
from a directory being ingested is removed. The new files are parsed in an in-memory
DuckDB by the same loader as any analysis, batch by batch, and written to the catalog in
one transaction: a killed ingest leaves the catalog as it was. A second ingest waits for
the first (up to `LOCK_WAIT` seconds), then fails with a clear message.
"""

from __future__ import annotations

import contextlib
import glob
import hashlib
import json
import os
import re
import shutil
import tempfile
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

import duckdb

from . import formats
from .errors import (
    E_IO_001,
    E_IO_003,
    E_IO_004,
    E_TRC_002,
    MurTraceError,
    UsageError,
    cut_short,
)
from .load import (
    BATCH_BYTES,
    Relations,
    Skipped,
    TraceWarning,
    batches,
    check_files,
    connect,
    file_problem,
    load_traces,
    plain,
    strict_error,
    trace_warnings,
)
from .sessions import (
    DEFAULT_WORKDIR,
    as_paths,
    bool_argument,
    callback_argument,
    catalog_name,
    created_ms,
    discover,
    given_paths,
    path_argument,
    trace_key,
    trace_keys,
)
from .writes import check_duckdb_name, check_target, duckdb_file, signals_after

#: Version of the catalog's tables. A catalog of an older version must be rebuilt.
SCHEMA_VERSION = 6  # 2: traces.warning (torn last lines); 3: traces.format, events.cwd and
#: result_whole, call_id in the stored tool calls and findings (other agents' logs);
#: 4: stored_call_waste; 5: other agents' compactions have a turn, their durations are
#: never negative (what the readers store changed); 6: events.file_session (the session of
#: a file of several, which the reference policy's history follows)
LOCK_WAIT = 30.0

#: What a catalog serves in place of computing it (see load.Relations).
OVERRIDES = {
    "tool_calls": "SELECT * FROM stored_tool_calls",
    "redundant_reference": "SELECT * FROM stored_redundant_reference",
    # what each call cost (queries/context/waste.sql), which every per-session metric counts:
    # computed over a whole catalog, its windows held 1.3 GB at 20,000 sessions
    "call_waste": "SELECT * FROM stored_call_waste",
}

#: Key of `catalog_meta` saying the stored findings are kept in report order (trace path,
#: line): every ingest rewrites them so, and then they are read in storage order, with no
#: sort. A catalog last written by an older mur-trace lacks the key; it is sorted when read.
IN_ORDER_KEY = "findings_in_order"

#: Key of `catalog_meta`: when the last ingest that looked at every trace the catalog held
#: began (Unix ns, less a second). A file rewritten since changed its status time then or
#: later, whatever modification time it was given (`cp -p`, `rsync -a`, `tar x` restore
#: one): a file of the same size and modification time whose status changed since is
#: compared by its SHA-256. Without the key (a catalog of an older mur-trace), every such
#: file is.
STARTED_KEY = "last_ingest_started_ns"


@dataclass
class IngestReport:
    """What an ingest did."""

    new: int = 0
    appended: int = 0
    rewritten: int = 0
    unchanged: int = 0
    deleted: int = 0
    events: int = 0
    skipped: list[Skipped] = field(default_factory=list)
    warnings: list[TraceWarning] = field(default_factory=list)
    #: of the skipped, traces whose file changed and can no longer be read, whose events
    #: the catalog held: it keeps them as they were
    kept: int = 0
    #: held traces whose path is now a link to another trace held or ingested: kept as
    #: they were (the catalog's only copy of what they held)
    linked: int = 0


@dataclass(frozen=True)
class _FileState:
    size: int
    mtime_ns: int
    lines: int
    sha256: str
    ends_with_newline: bool


#: The columns of `trace_files` after `trace_path`, in order.
_FILE_STATE = tuple(_FileState.__dataclass_fields__)


def _state(path: str) -> tuple[_FileState, bytes]:
    data = Path(path).read_bytes()
    stat = os.stat(path)
    state = _FileState(
        size=len(data),
        mtime_ns=stat.st_mtime_ns,
        lines=data.count(b"\n"),
        sha256=hashlib.sha256(data).hexdigest(),
        ends_with_newline=data.endswith(b"\n"),
    )
    return state, data


def _duckdb_file(db: Path) -> bool:
    """Whether `db` starts as DuckDB's database files do; what cannot be read is DuckDB's to
    report."""
    return duckdb_file(db) is not False


def _connect(db: Path, read_only: bool) -> duckdb.DuckDBPyConnection:
    """Open the catalog, waiting while another process holds it. Only a regular file (or
    a path not there yet) is opened: a pipe or a device would block."""
    check_duckdb_name(db, "open catalog")
    if "\\" in str(db):  # DuckDB reads a backslash in a database path as a `/`
        raise MurTraceError(
            E_IO_003,
            f"cannot open catalog {db}: DuckDB takes a backslash in a database path for a "
            "'/'; give a path without one",
        )
    if os.path.lexists(db):
        problem = file_problem(str(db), "catalog")
        if problem is not None:
            raise MurTraceError(E_IO_003, f"cannot open catalog {db}: {problem.message}")
        if not _duckdb_file(db):  # DuckDB's own words for it are about in-memory databases
            raise MurTraceError(E_IO_003, f"cannot open catalog {db}: not a DuckDB database file")
    # the file of that name, even `:memory:` (an ingest into it stored nothing and said it
    # had): load.connect gives DuckDB the name of a file, never of a database in memory
    name = str(db) if str(db) != ":memory:" else f".{os.sep}:memory:"
    deadline = time.monotonic() + LOCK_WAIT
    while True:
        try:
            return connect(name, read_only=read_only)
        except duckdb.IOException as exc:
            locked = "lock" in str(exc).lower()
            if locked and time.monotonic() < deadline:
                time.sleep(0.2)
                continue
            if locked:
                raise MurTraceError(
                    E_IO_003,
                    f"catalog {db} is in use by another process (an ingest, or a Trace or "
                    "findings a notebook holds open: close()); try again when it has finished",
                ) from None
            said = cut_short(exc, f"catalog {db}") or f"cannot open catalog {db}: {exc}"
            raise MurTraceError(E_IO_003, said) from None
        except duckdb.Error as exc:  # not a DuckDB file, or one DuckDB cannot open
            reason = str(exc).splitlines()[0]
            raise MurTraceError(E_IO_003, f"cannot open catalog {db}: {reason}") from None


def _tables(con: duckdb.DuckDBPyConnection) -> set[str]:
    rows = con.execute(
        "SELECT table_name FROM duckdb_tables() "
        "WHERE database_name = current_database() AND schema_name = 'main'"
    ).fetchall()
    return {row[0] for row in rows}


def _holds_anything(con: duckdb.DuckDBPyConnection) -> bool:
    """Whether the database holds anything of anyone's, in any schema: a table, a view, a
    macro, a sequence, a type, or a schema of its own (a file holding only a macro is
    someone's, not an empty catalog)."""
    rows = con.execute(
        "SELECT count(*) FROM ("
        "SELECT database_name, internal FROM duckdb_tables() "
        "UNION ALL SELECT database_name, internal FROM duckdb_views() "
        "UNION ALL SELECT database_name, internal FROM duckdb_functions() "
        "UNION ALL SELECT database_name, internal FROM duckdb_types() "
        "UNION ALL SELECT database_name, internal FROM duckdb_schemas() "
        "UNION ALL SELECT database_name, false FROM duckdb_sequences()) "
        "WHERE database_name = current_database() AND NOT internal"
    ).fetchall()
    return rows[0][0] > 0


def _version(con: duckdb.DuckDBPyConnection, db: Path) -> int | None:
    """The schema version of the catalog `con` holds; None when it holds no tables at all.

    A DuckDB file whose tables are not a mur-trace catalog's (no `catalog_meta`, or one that
    is not ours: no `schema_version` row, a version that is not a number, tables missing)
    is an error: it is never read as a catalog, and never written.
    """
    tables = _tables(con)
    if not tables and not _holds_anything(con):
        return None
    foreign = MurTraceError(E_IO_003, f"{db} is not a mur-trace catalog")
    if "catalog_meta" not in tables:
        raise foreign
    try:
        rows = con.execute(
            "SELECT value FROM main.catalog_meta WHERE key = 'schema_version'"
        ).fetchall()
    except duckdb.Error as exc:
        said = cut_short(exc, f"catalog {db}")
        raise (foreign if said is None else MurTraceError(E_IO_003, said)) from None
    if len(rows) != 1 or not str(rows[0][0]).isascii() or not str(rows[0][0]).isdigit():
        raise foreign
    version = int(rows[0][0])
    # the tables of this version; of an older or newer one, those every version has (its
    # version is then what the error names: version 3 had no stored_call_waste)
    tables_of_version = STORED if version == SCHEMA_VERSION else ("events", "traces")
    if not {*tables_of_version, "trace_files"} <= tables:
        raise foreign
    # and the columns every version's have (a file of someone else's named its tables so:
    # a rebuild failed on DuckDB's Binder error, said as a failure to write)
    columns = set(
        con.execute(
            "SELECT table_name, column_name FROM duckdb_columns() "
            "WHERE database_name = current_database() AND schema_name = 'main' "
            "AND table_name IN ('events', 'traces', 'trace_files')"
        ).fetchall()
    )
    if not {
        ("events", "trace_path"), ("events", "line"), ("traces", "trace_path"),
        ("trace_files", "trace_path"), ("trace_files", "size"),
    } <= columns:  # fmt: skip
        raise foreign
    return version


def _check_version(con: duckdb.DuckDBPyConnection, db: Path) -> bool:
    """True when the catalog has tables; an error when they are not ours or their version
    is not this mur-trace's."""
    version = _version(con, db)
    if version is None:
        return False
    if version < SCHEMA_VERSION:
        raise MurTraceError(
            E_IO_003,
            f"catalog {db} has schema version {version}, this mur-trace needs "
            f"{SCHEMA_VERSION}: rebuild it with `mur-trace ingest --db {db} --rebuild`",
        )
    if version > SCHEMA_VERSION:
        raise MurTraceError(
            E_IO_003,
            f"catalog {db} has schema version {version}, newer than this mur-trace "
            f"understands ({SCHEMA_VERSION}): upgrade mur-trace",
        )
    return True


#: Catalog table -> the relation of a loaded batch it stores.
STORED = {
    "events": "events",
    "traces": "traces",
    "stored_tool_calls": "tool_calls",
    "stored_redundant_reference": "redundant_reference",
    "stored_call_waste": "call_waste",
}


def _hand_over(rel: duckdb.DuckDBPyRelation, directory: str, table: str) -> str:
    """A relation of the in-memory load as a Parquet file the catalog reads."""
    path = os.path.join(directory, f"{table}.parquet")
    plain(rel).to_parquet(path)
    return path


def _create(cat: duckdb.DuckDBPyConnection, batch: dict[str, str]) -> None:
    """The catalog's tables, shaped like what the loader makes (`batch`: table -> the
    Parquet file of a batch's rows)."""
    cat.execute("CREATE TABLE catalog_meta (key VARCHAR PRIMARY KEY, value VARCHAR)")
    cat.execute(
        "INSERT INTO catalog_meta VALUES ('schema_version', $v)", {"v": str(SCHEMA_VERSION)}
    )
    cat.execute(
        "CREATE TABLE trace_files (trace_path VARCHAR PRIMARY KEY, size BIGINT, "
        "mtime_ns BIGINT, lines BIGINT, sha256 VARCHAR, ends_with_newline BOOLEAN)"
    )
    for table, file in batch.items():
        cat.execute(f"CREATE TABLE {table} AS SELECT * FROM read_parquet($f) LIMIT 0", {"f": file})


def _remove(cat: duckdb.DuckDBPyConnection, paths: list[str], tables: Iterable[str]) -> None:
    if paths:
        for table in tables:
            cat.execute(
                f"DELETE FROM {table} WHERE trace_path IN (SELECT unnest($p))", {"p": paths}
            )


def _check_ours(db: Path, rebuild: bool) -> None:
    """Before a catalog is opened for writing: a DuckDB file that is not a mur-trace
    catalog is refused (read read-only, never written), with or without `rebuild`. So is a
    new catalog beside a file named as its write-ahead log (`c.duckdb.wal`), which DuckDB
    would delete as it creates the catalog."""
    if not db.is_file() or db.stat().st_size == 0:
        wal = f"{db}.wal"
        if os.path.lexists(wal):
            raise MurTraceError(
                E_IO_004,
                f"refusing to write the catalog {db}: {wal} is there, which DuckDB would "
                "delete as it creates the catalog (move it first)",
            )
        return  # created by this ingest
    try:
        con = _connect(db, read_only=True)
    except MurTraceError:
        if not os.path.lexists(db):
            return  # made by another ingest that failed and removed it: this one makes it
        raise
    try:
        if rebuild:
            try:
                _version(con, db)
            except MurTraceError:
                raise MurTraceError(
                    E_IO_004, f"refusing to rebuild {db}: it is not a mur-trace catalog"
                ) from None
        else:
            _check_version(con, db)
    finally:
        con.close()


@dataclass(frozen=True)
class _Held:
    """What a catalog holds, read before a rebuild (`_held`)."""

    #: Its traces by their keys as they resolve now, each with the `--format-in` name of the
    #: format it was read as (None when its version does not say): what a rebuild reads again.
    formats: dict[str, str | None]
    #: Those of them it holds the events of (not stored as unreadable): read again, or lost.
    with_events: set[str]
    #: Of those, what the catalog read of each: (size, whether it ended with a newline).
    read: dict[str, tuple[int, bool]]
    #: Of those, the SHA-256 of what it read.
    sha256: dict[str, str]
    #: The traces with events whose bytes the file their path now leads to does not start
    #: with, where another trace it holds resolves too, each with that file: a rebuild would
    #: read the one file for both and lose the first's events.
    merged: list[tuple[str, str]]


def _held(cat: duckdb.DuckDBPyConnection, version: int | None, named: Iterable[str] = ()) -> _Held:
    """What the catalog `cat` (schema `version`) holds (`_Held`). Read in the rebuild's
    transaction, so that an ingest committed while it waited is read again too. Two
    traces stored under paths that resolve to one file are one: a catalog before version 4
    stored paths unresolved, the same file under two spellings (merged whatever their
    bytes, the older spelling an older state of the file); from version 4 a path is stored
    resolved, and two such are two files, one since replaced by a link to the other, or to
    a file the rebuild reads (`named`, trace keys) (`merged`)."""
    if not {"trace_files", "traces"} <= _tables(cat):
        return _Held({}, set(), {}, {}, [])
    # every version has trace_files and traces; not every one says a trace's format
    columns = {row[0] for row in cat.execute("DESCRIBE main.traces").fetchall()}
    read_as = "t.format" if "format" in columns else "NULL"
    stored = "t.error_code IS NULL" if "error_code" in columns else "true"
    rows = cat.execute(
        f"SELECT f.trace_path, any_value({read_as}), bool_or(coalesce({stored}, false)), "
        "any_value(f.size), any_value(f.sha256), any_value(f.ends_with_newline) "
        "FROM main.trace_files AS f LEFT JOIN main.traces AS t USING (trace_path) "
        "GROUP BY f.trace_path ORDER BY ALL"
    ).fetchall()
    names = {reader: name for name, reader in formats.FORMATS.items()}
    held = _Held({}, set(), {}, {}, [])
    stored_as: dict[str, list[tuple[str, int, str]]] = {}
    for key, (path, reader, ok, size, sha256, newline) in zip(
        trace_keys([row[0] for row in rows]), rows, strict=True
    ):
        held.formats.setdefault(key, names.get(reader))
        if ok:
            held.with_events.add(key)
            held.read.setdefault(key, (size, newline))
            held.sha256.setdefault(key, sha256)
            stored_as.setdefault(key, []).append((path, size, sha256))
    if version is not None and version >= 4:
        held.merged.extend(
            (path, key)
            for key, entries in stored_as.items()
            if len({(size, sha256) for _, size, sha256 in entries}) > 1
            for path, size, sha256 in entries
            if not _holds_bytes(key, size, sha256)
        )
    # a file itself made a link to another held trace (with events or not), or to a file
    # the rebuild reads (another agent's session file: its directory resolves as before, the
    # file leads elsewhere), in a catalog of any version
    others = set(held.formats) | set(named)
    held.merged.extend(
        (path, target)
        for key, entries in stored_as.items()
        if os.path.islink(key) and (target := os.path.realpath(key)) != key and target in others
        for path, size, sha256 in entries
        if not _holds_bytes(target, size, sha256)
    )
    return held


def _cut_short(data: bytes, size: int, ended_with_newline: bool) -> bool:
    """Whether a trace's bytes `data` are a cut copy of the `size` bytes the catalog read,
    which ended with a newline: fewer, and a last line that is no JSON (torn, as loading
    says of it). A whole shorter rewrite, its last line whole without a newline, is not."""
    last = data[data.rfind(b"\n") + 1 :]
    if len(data) >= size or not ended_with_newline or not last.strip():  # (emptied: not cut)
        return False
    try:
        json.loads(last)
    except ValueError:  # not JSON (or not UTF-8)
        return True
    return False


def _holds_bytes(path: str, size: int | None, sha256: str | None) -> bool:
    """Whether the file `path` starts with the bytes a catalog stored of a trace (`size`
    bytes whose SHA-256 is `sha256`): the same trace, maybe grown since. One read of those
    bytes, asked only of the few traces it may concern."""
    if size is None or sha256 is None:
        return False
    try:
        with open(path, "rb") as file:
            head = file.read(size)
    except OSError:
        return False
    return len(head) == size and hashlib.sha256(head).hexdigest() == sha256


def _with_events(cat: duckdb.DuckDBPyConnection, paths: list[str]) -> set[str]:
    """Those of `paths` whose events the catalog holds (not stored as unreadable)."""
    if not paths:
        return set()
    rows = cat.execute(
        "SELECT trace_path FROM main.traces WHERE error_code IS NULL "
        "AND trace_path IN (SELECT unnest($p::VARCHAR[]))",
        {"p": paths},
    ).fetchall()
    return {row[0] for row in rows}


def _refuse_to_lose(db: Path, skipped: list[Skipped], with_events: set[str]) -> None:
    """Refuse a rebuild (E-IO-004) that cannot read again a trace whose events the catalog
    holds (`with_events`): the catalog holds their only readable copy, and none is lost."""
    unread = [s for s in skipped if s.trace_path in with_events]
    if unread:
        more = f" and {len(unread) - 1} more" if len(unread) > 1 else ""
        raise MurTraceError(
            E_IO_004,
            f"refusing to rebuild {db}: it holds traces that cannot be read again "
            f"({unread[0].message}{more}), which a rebuild would lose; repair them, or "
            f"remove {db} to start anew without them",
        )


def _rebuilt(
    db: Path,
    held: dict[str, str | None],
    named: list[str],
    scopes: list[str],
    keep_gone: bool = False,
) -> tuple[dict[str, str | None], int]:
    """What a rebuild reads besides the traces named (`named`, their keys): every trace the
    catalog held (`held`) that is still a file, as it was read; and how many it held under
    the roots named (`scopes`) that are gone, which it leaves out as an ingest would. A
    trace held from elsewhere whose file is gone is in no file any more: the rebuild is
    refused (E-IO-004) rather than lose it."""
    listed = set(named)
    others = {path: fmt for path, fmt in held.items() if path not in listed}
    gone = [path for path in others if not os.path.isfile(path)]
    lost = [path for path in gone if keep_gone or not _under(path, scopes)]
    if lost:
        more = f" and {len(lost) - 1} more" if len(lost) > 1 else ""
        leave = (
            "rebuild without --keep-gone, naming a directory that held them,"
            if keep_gone
            else "name a directory that held them"
        )
        raise MurTraceError(
            E_IO_004,
            f"refusing to rebuild {db}: it holds traces whose files are gone ({lost[0]}{more}), "
            f"which a rebuild would lose; {leave} to leave them out, or remove {db} to start "
            "anew",
        )
    return {path: fmt for path, fmt in others.items() if path not in gone}, len(gone)


def _moved(
    cat: duckdb.DuckDBPyConnection, new: list[str], held: dict[str, _FileState]
) -> list[str]:
    """Those of the `held` traces whose file is gone and whose bytes a trace `new` to the
    catalog, stored and readable, starts with: a session moved elsewhere (one still written
    when it was ingested has grown since). The same session id is not enough: an excerpt
    of it, or another run under its id, removed the catalog's only copy of it."""
    gone = [path for path in held if not os.path.isfile(path)]
    if not gone:
        return []
    pairs = cat.execute(
        "SELECT DISTINCT o.trace_path, n.trace_path FROM traces AS o "
        "JOIN traces AS n USING (session_id) "
        "WHERE o.trace_path IN (SELECT unnest($gone::VARCHAR[])) "
        "AND n.trace_path IN (SELECT unnest($new::VARCHAR[])) AND n.error_code IS NULL "
        "ORDER BY ALL",
        {"gone": gone, "new": new},
    ).fetchall()
    return sorted(
        {old for old, now in pairs if _holds_bytes(now, held[old].size, held[old].sha256)}
    )


def _one_name_each(
    files: list[str], held: set[str], unreadable: set[str]
) -> tuple[list[str], list[str]]:
    """`files` (trace keys, `sessions.trace_keys`, each named once) with each file under
    one name, and the held traces whose path is now a link to another trace's file. A link
    new to the catalog that leads to one of `files`, or to a file (not a link) the catalog
    holds, is that file's trace (before, a second one, counted twice; `sessions.discover`
    kept whichever name came first, a link's too); one that cannot be read, only when it
    leads to one of `files` (else it is reported under its own name). The held traces,
    named or not, whose path now leads to such a file are returned apart, for the caller
    to judge by their bytes (`ingest`)."""
    # a key's directories are resolved: only its last component may lead elsewhere
    links = {path for path in (*held, *files) if os.path.islink(path)}
    if not links:
        return files, []
    named = set(files)
    # a held trace's file counts while it is there: a link to one since removed leads to
    # no trace (and is read, or said unreadable, as any other)
    plain = {path for path in files if path not in links and path not in unreadable} | {
        path for path in held - named if path not in links and os.path.isfile(path)
    }
    one: dict[str, None] = {}
    leading: list[str] = []
    first: dict[str, str] = {}  # a file neither held nor named -> the first new link to it
    for path in files:
        if path in links:
            target = os.path.realpath(path)
            if path in held:
                if target in plain:
                    leading.append(path)
            elif (
                target in named
                and target not in links
                or (target in plain and path not in unreadable)
            ):
                path = target
            else:
                path = first.setdefault(target, path)
        one.setdefault(path)
    leading += [p for p in sorted(links & held - named) if os.path.realpath(p) in plain]
    return list(one), leading


def _kept_apart(
    cat: duckdb.DuckDBPyConnection, links: list[str], skipped: list[Skipped]
) -> set[str]:
    """Those of the held `links` (traces whose path now leads to a file whose bytes start
    with theirs) that stay apart from the trace of that file after an ingest: the catalog
    does not hold what that file holds now (it could not be read in this ingest, or is
    held without events), or holds it as another session or another format (bytes alone
    do not make one session: a file read as Claude Code and as Codex are two)."""
    unread = {s.trace_path for s in skipped}
    targets = {link: os.path.realpath(link) for link in links}
    stored = _with_events(cat, list(targets.values()))
    held = {
        path: (session, reader)
        for path, session, reader in cat.execute(
            "SELECT trace_path, session_id, format FROM traces "
            "WHERE trace_path IN (SELECT unnest($p))",
            {"p": [*targets, *targets.values()]},
        ).fetchall()
    }
    return {
        link
        for link, target in targets.items()
        if target in unread
        or target not in stored
        or link not in held
        or held[link] != held.get(target)
    }


def _under(path: str, scopes: list[str]) -> bool:
    """Whether the trace `path` is one of `scopes` (resolved roots) or lies below one."""
    return any(path == scope or path.startswith(scope + os.sep) for scope in scopes)


def _by_format(
    paths: list[str], formats_of: dict[str, str | None], format_in: str | None
) -> list[tuple[list[str], str | None]]:
    """Batches of `paths`, of one `--format-in` each: a trace's in `formats_of` (one a
    rebuild reads again, as it was read), else `format_in`."""
    groups: dict[str | None, list[str]] = {}
    for path in paths:
        groups.setdefault(formats_of.get(path, format_in), []).append(path)
    return [(batch, fmt) for fmt, group in groups.items() for batch in batches(group, BATCH_BYTES)]


def ingest(
    db: str | os.PathLike[str],
    paths: Iterable[str | os.PathLike[str]] | None = None,
    *,
    workdir: str | os.PathLike[str] | None = None,
    rebuild: bool = False,
    strict: bool = False,
    progress: Callable[[int, int, int], None] | None = None,
    format_in: str | None = None,
    keep_gone: bool = False,
) -> IngestReport:
    """Bring the catalog `db` up to date with the traces `paths` (or `workdir`) name.

    A trace whose file is gone from a directory named leaves the catalog, unless
    `keep_gone` (an agent that deletes its old logs: Claude Code after `cleanupPeriodDays`,
    30 by default), when it stays as one from elsewhere does (a rebuild that would lose it
    is refused).

    When none of them can be read, or with `strict` when any cannot be read in full, it is
    an error and the catalog is left as it was. `progress(files_done, files_total, events)`
    is called after each batch. `format_in` forces the format of every file (see
    `load.load_traces`). Only Murmur traces are read by appended lines: in other agents'
    logs a later line completes an earlier call (its result), so a file of theirs that grew
    is read again whole.

    What the transaction appends goes to the file beyond `CATALOG_MEMORY` of memory, which
    bounds a fleet's ingest; an ingest that needs more at once (values of tens of MB, which
    DuckDB holds whole) is rolled back and made again once without that bound.
    """
    for name, value in (("db", db), ("workdir", workdir)):
        path_argument(name, value)
    callback_argument("progress", progress)
    for name, value in (("rebuild", rebuild), ("strict", strict), ("keep_gone", keep_gone)):
        bool_argument(name, value)
    if format_in is not None:
        formats.reader(format_in)
    # a list: an iterator (Path.glob) would be used up by the first attempt
    arguments = (db, as_paths(given_paths(paths)), workdir, rebuild, strict, progress, format_in)
    try:
        return _ingest(*arguments, memory_limit=CATALOG_MEMORY, keep_gone=keep_gone)
    except _OutOfMemory:
        pass  # out of the handler: what the first attempt held is let go of first
    return _ingest(*arguments, memory_limit=None, keep_gone=keep_gone)


#: The catalog's memory limit during an ingest (`ingest`).
CATALOG_MEMORY = "128MB"


class _OutOfMemory(Exception):
    """An ingest under a memory limit ran out of it; nothing of it was committed."""


def _out_of_memory(exc: duckdb.Error) -> bool:
    """Whether DuckDB failed for want of memory (at an insert, or pinning a block at the
    commit)."""
    return isinstance(exc, duckdb.OutOfMemoryException) or any(
        words in str(exc) for words in ("Out of Memory", "failed to pin block")
    )


def _ingest(
    db: str | os.PathLike[str],
    paths: Iterable[str | os.PathLike[str]] | None,
    workdir: str | os.PathLike[str] | None,
    rebuild: bool,
    strict: bool,
    progress: Callable[[int, int, int], None] | None,
    format_in: str | None,
    memory_limit: str | None,
    keep_gone: bool = False,
) -> IngestReport:
    forced = formats.reader(format_in) if format_in is not None else None
    # before any file is looked at, less a second: file systems stamp a change with a clock
    # that may lag this one by a tick
    started = time.time_ns() - 1_000_000_000
    db = Path(db)
    if not db.parent.is_dir():  # DuckDB's message named its own spelling of the path
        reason = "is not a directory" if os.path.lexists(db.parent) else "does not exist"
        raise MurTraceError(
            E_IO_003, f"cannot open catalog {db}: its directory {db.parent} {reason}"
        )
    paths = as_paths(paths)
    # a rebuild with nothing named and no ./workdir reads what the catalog held
    named = bool(paths) or workdir is not None or not rebuild or DEFAULT_WORKDIR.exists()
    roots = ([Path(p) for p in paths] or [Path(workdir or "workdir")]) if named else []
    scopes = [os.path.realpath(r) for r in roots]  # Path.resolve raises on a link loop
    # a trace is stored by its key: a file named twice, once relative and once absolute, or
    # through a link to its workdir, is one trace (and through a link to the file:
    # `_one_name_each`)
    found = discover(paths, workdir, read_once=False) if named else []
    check_target(db, roots, "write the catalog", files=found)
    files = list(dict.fromkeys(trace_keys(found)))
    report = IngestReport(skipped=check_files(files))
    if not rebuild and report.skipped and len(report.skipped) == len(files):
        raise MurTraceError(report.skipped[0].code, report.skipped[0].message)  # say why
    _check_ours(db, rebuild)
    with_events: set[str] = set()
    held_names: set[str] = set()  # a rebuild's: the traces it held
    held_bytes: dict[str, tuple[int, str]] = {}  # a rebuild's: what it read of each
    read_before: dict[str, tuple[int, bool]] = {}  # a rebuild's: what it held, read how
    read_as: dict[str, str | None] = {}
    gone_held = 0
    before = _which_file(db)
    staging: str | None = None
    mem: duckdb.DuckDBPyConnection | None = None
    cat = _connect(db, read_only=False)
    created = committed = False
    try:
        # A failed first ingest leaves no empty catalog behind: the file is this ingest's
        # when it holds nothing now that this process holds it and it was not there before
        # (or another file was: an ingest that made it failed and removed it while this one
        # waited). One that another ingest made and committed meanwhile holds its traces.
        created = _which_file(db) != before and not _holds_anything(cat)
        cat.execute("BEGIN TRANSACTION")  # a killed ingest, --rebuild too, changes nothing
        if rebuild:
            held = _held(cat, _version(cat, db), files)
            with_events, read_before = held.with_events, held.read
            held_names = set(held.formats)
            held_bytes = {k: (size, held.sha256[k]) for k, (size, _) in held.read.items()}
            if held.merged:
                path, now = held.merged[0]
                more = f" and {len(held.merged) - 1} more" if len(held.merged) > 1 else ""
                raise MurTraceError(
                    E_IO_004,
                    f"refusing to rebuild {db}: it holds the trace {path}{more}, whose path "
                    f"now leads to {now}, another trace it holds or reads, which a rebuild "
                    f"would read for both and lose the first; restore it, or remove {db} to "
                    "start anew",
                )
            again, gone_held = _rebuilt(db, held.formats, files, scopes, keep_gone)
            # how each trace is read again: as it was, unless --format-in says
            read_as = again | (
                {p: held.formats[p] for p in files if p in held.formats} if not forced else {}
            )
            files += list(again)
            report.skipped += check_files(list(again))
            if not files:
                discover(paths, workdir)  # nothing named, nothing held: ./workdir is missing
            _refuse_to_lose(db, report.skipped, with_events)
            if report.skipped and len(report.skipped) == len(files):  # nothing to read
                raise MurTraceError(report.skipped[0].code, report.skipped[0].message)
            for table in _tables(cat) & {*STORED, "trace_files", "catalog_meta"}:
                cat.execute(f"DROP TABLE {table}")
        exists = not rebuild and _check_version(cat, db)
        known: dict[str, _FileState] = {}
        last_started: int | None = None
        if exists:
            for row in cat.execute("SELECT * FROM trace_files").fetchall():
                known[row[0]] = _FileState(*row[1:])
            rows = cat.execute(
                "SELECT value FROM catalog_meta WHERE key = $key", {"key": STARTED_KEY}
            ).fetchall()
            last_started = int(rows[0][0]) if rows and str(rows[0][0]).isdigit() else None

        changed: list[str] = []
        appended_from: dict[str, int] = {}
        states: dict[str, _FileState] = {}
        # a link to a held or named trace file is that trace (before, it was held twice,
        # and counted twice)
        files, leading = _one_name_each(
            files, {*known, *held_names}, {s.trace_path for s in report.skipped}
        )
        named_now = {*files, *leading}
        report.skipped = [s for s in report.skipped if s.trace_path in named_now]
        unreadable = {s.trace_path for s in report.skipped}
        # a held trace whose path now leads to another trace's file: the same session
        # when that file, read here, starts with the bytes it held (a session moved and
        # linked from its old place, a link ingested before its file), which is then held
        # once, under the file's name, once that file's events are stored; else kept as
        # the catalog held it, its only copy. A rebuild reads each as it held it, through
        # its link (`_held` refused one whose bytes it would lose), and drops it after.
        if not rebuild:
            held_bytes = {p: (known[p].size, known[p].sha256) for p in leading}
        merged = [
            p
            for p in leading
            if os.path.realpath(p) in files
            and p in held_bytes
            and _holds_bytes(os.path.realpath(p), *held_bytes[p])
        ]
        kept_links = [p for p in ([] if rebuild else leading) if p in files]
        # (a rebuild passes over one it held no events of: read through its link, it
        # would be a second trace of the file it leads to)
        files = [p for p in files if p not in leading or (rebuild and p in held_bytes)]
        report.linked = len([p for p in kept_links if p not in merged])
        # one that can no longer be opened (a FIFO now, unreadable) keeps what it held too
        report.kept += len(_with_events(cat, [p for p in unreadable if p in known]))
        for path in files:
            if path in unreadable:  # named in the report; what the catalog holds stays
                continue
            old = known.get(path)
            stat = os.stat(path)
            same = old is not None and (old.size, old.mtime_ns) == (stat.st_size, stat.st_mtime_ns)
            if same and last_started is not None and stat.st_ctime_ns < last_started:
                report.unchanged += 1
                continue
            state, data = _state(path)
            if same and state.sha256 == old.sha256:
                report.unchanged += 1
                continue
            before = (old.size, old.ends_with_newline) if old else read_before.get(path)
            if before is not None and _cut_short(data, *before):
                # shorter than what the catalog read, its last line torn: a copy or a
                # rewrite cut short (a full disk, a kill), which replaced a whole trace with
                # its first lines; kept as held (a rebuild, which would lose it, refused),
                # and read again once it is whole
                report.skipped.append(Skipped(path, E_IO_003, (
                    f"failed to read {path}: it was cut short ({state.size:,} bytes, its last "
                    f"line torn, where the catalog read {before[0]:,})"
                )))  # fmt: skip
                if not rebuild:
                    report.kept += len(_with_events(cat, [path]))
                continue
            states[path] = state
            changed.append(path)
            if old is None:
                report.new += 1
            elif (
                (forced or formats.detect(path)) == "murmur"
                and old.ends_with_newline
                and state.size > old.size
                and hashlib.sha256(data[: old.size]).hexdigest() == old.sha256
            ):
                appended_from[path] = old.lines
                report.appended += 1
            else:
                report.rewritten += 1
        present = set(files)
        # gone: under what was named, and no longer a file (a trace ingested from a nested
        # workdir, or named by its path, is under the root and not found by it, but stays);
        # from elsewhere, one whose file is gone stays (the catalog holds its only copy),
        # but a session moved (`live/` to `archive/`, the new place ingested alone) was
        # held twice, and counted twice: it leaves once its new place is stored (`moved`)
        # (with `keep_gone`, it stays too: an agent that deletes its old logs)
        went = [
            path
            for path in known
            if path not in present and _under(path, scopes) and not os.path.isfile(path)
        ]
        gone = [] if keep_gone else went
        report.deleted = len(gone) + gone_held

        if exists:
            _remove(cat, gone, [*STORED, "trace_files"])
        mem = connect()  # closed at the end, in `finally`
        if memory_limit is not None:  # what this transaction appends goes to the file beyond
            cat.execute("SET memory_limit = $limit", {"limit": memory_limit})
        _clear_stale_staging()
        staging = tempfile.mkdtemp(prefix=f"{_staging_prefix()}{os.getpid()}-")
        done = 0
        for batch, fmt in _by_format(changed, read_as, format_in):
            done += len(batch)  # read, kept or not
            skipped = load_traces(mem, batch, fmt)
            report.skipped += skipped
            report.warnings += trace_warnings(mem)
            # a trace whose events the catalog holds and whose file can no longer be read
            # keeps them, and its file state, so that the next ingest reads it again (before,
            # its events were removed: the catalog held their only readable copy)
            kept = _with_events(cat, [s.trace_path for s in skipped]) if exists else set()
            if kept:
                report.kept += len(kept)
                report.rewritten -= sum(p not in appended_from for p in kept)
                report.appended -= sum(p in appended_from for p in kept)
                batch = [p for p in batch if p not in kept]
            relations = Relations(mem)
            # lists bound as parameters, not Arrow tables built in Python: pyarrow imports
            # pandas (0.4 s) to build one from Python objects
            # the lines of the bytes the file state was taken from: a trace still being
            # written may have grown since, and what came after is read by the next ingest
            # (as appended lines), not twice
            upto = [states[p].lines + (0 if states[p].ends_with_newline else 1) for p in batch]
            mem.execute(
                "CREATE OR REPLACE TEMP TABLE offsets AS "
                "SELECT unnest($paths) AS trace_path, unnest($after) AS after, "
                "unnest($upto) AS upto",
                {"paths": batch, "after": [appended_from.get(p, 0) for p in batch], "upto": upto},
            )
            mem.execute(
                "DELETE FROM events AS e USING offsets AS o, traces AS t "
                "WHERE e.trace_path = o.trace_path AND t.trace_path = o.trace_path "
                "AND t.format = 'murmur' AND e.line > o.upto"
            )
            rows = {
                "events": mem.sql(
                    "SELECT e.* FROM events AS e JOIN offsets AS o USING (trace_path) "
                    "WHERE e.line > o.after"
                ),
                "traces": mem.table("traces"),
                **{
                    table: relations.view(source)
                    for table, source in STORED.items()
                    if table not in ("events", "traces")
                },
            }
            if kept:
                mem.execute(
                    "CREATE OR REPLACE TEMP TABLE kept AS SELECT unnest($p) AS trace_path",
                    {"p": sorted(kept)},
                )
                rows = {
                    table: rel.filter("trace_path::VARCHAR NOT IN (SELECT trace_path FROM kept)")
                    for table, rel in rows.items()
                }
            # handed over as Parquet files the catalog reads: DuckDB keeps what one
            # transaction appends in memory when it comes from Arrow, and sends it to the
            # file under its memory limit when it comes from a file (20,000 sessions: 2.2 GB
            # -> under 1 GB)
            handed = {table: _hand_over(rel, staging, table) for table, rel in rows.items()}
            if not exists:
                _create(cat, handed)
                exists = True
            failed = [s.trace_path for s in skipped if s.trace_path not in kept]
            _remove(cat, [p for p in batch if p not in appended_from] + failed, ["events"])
            _remove(cat, batch, [t for t in STORED if t != "events"] + ["trace_files"])
            for table, file in handed.items():
                cat.execute(f"INSERT INTO {table} SELECT * FROM read_parquet($f)", {"f": file})
            report.events += cat.execute(
                "SELECT count(*) FROM read_parquet($f)", {"f": handed["events"]}
            ).fetchall()[0][0]
            columns = {name: [getattr(states[p], name) for p in batch] for name in _FILE_STATE}
            cat.execute(
                "INSERT INTO trace_files SELECT unnest($trace_path), "
                + ", ".join(f"unnest(${name})" for name in _FILE_STATE),
                {"trace_path": batch, **columns},
            )
            if progress:
                progress(done, len(changed), report.events)
        # a held link's trace leaves once the catalog holds the events of the file it
        # leads to (stored now, or held unchanged)
        leading_merged = merged
        if merged:
            merged = [p for p in merged if p not in _kept_apart(cat, merged, report.skipped)]
            if rebuild and merged:  # read again through its link: not a trace of its own
                report.new -= len(merged)
                report.events -= cat.execute(
                    "SELECT count(*) FROM events WHERE trace_path IN (SELECT unnest($p))",
                    {"p": merged},
                ).fetchall()[0][0]
            _remove(cat, merged, [*STORED, "trace_files"])
            if not rebuild:
                report.deleted += len(merged)
                report.linked += len(leading_merged) - len(merged)
        # a moved session leaves its old place once its new one is stored and readable
        new = [path for path in states if path not in known]
        if exists and new:
            left = _moved(
                cat, new, {p: s for p, s in known.items() if p not in present and p not in gone}
            )
            _remove(cat, left, [*STORED, "trace_files"])
            report.deleted += len(left)
        if exists and (changed or gone or not in_order(cat)):
            # findings in report order, so that reading them needs no sort
            cat.execute(
                "CREATE OR REPLACE TABLE stored_redundant_reference AS "
                "SELECT * FROM stored_redundant_reference ORDER BY trace_path, line"
            )
            cat.execute(
                "INSERT OR REPLACE INTO catalog_meta VALUES ($key, 'true')", {"key": IN_ORDER_KEY}
            )
        _refuse_to_lose(db, report.skipped, with_events)
        refused = strict_error(report.skipped, report.warnings) if strict else None
        if refused is not None:
            raise refused
        if report.skipped and len(report.skipped) == len(files) + len(kept_links):
            raise MurTraceError(report.skipped[0].code, report.skipped[0].message)
        # when every trace the catalog held was looked at (else one rewritten before this
        # ingest, under a directory it did not read, would pass for unchanged next time)
        looked_at = set(files) - {s.trace_path for s in report.skipped} | set(went)
        looked_at |= set(leading) if not rebuild else set()
        if exists and looked_at >= set(known):
            cat.execute(
                "INSERT OR REPLACE INTO catalog_meta VALUES ($key, $value)",
                {"key": STARTED_KEY, "value": str(started)},
            )
        with signals_after() as meanwhile:
            cat.execute("COMMIT")
            # committed: the ingest is done, and says so (a Ctrl-C or SIGTERM that came
            # while it committed said `interrupted` of a catalog that held the ingest)
            meanwhile.clear()
            committed = True
    except duckdb.Error as exc:
        # a full disk, a file size limit, no memory, a directory where the write-ahead log
        # cannot be written: nothing of this ingest was committed
        _roll_back(cat, db, created)
        if memory_limit is not None and _out_of_memory(exc):
            raise _OutOfMemory from None
        short = cut_short(exc, f"catalog {db}")
        if short is not None:  # a read of what it held failed: nothing was written
            raise MurTraceError(E_IO_003, f"{short}; it is as before this ingest") from None
        reason = str(exc).splitlines()[0]
        if staging is not None and staging in reason:  # the copies in the temporary directory
            number = re.search(r'"errno"\s*:\s*"(\d+)"|\[Errno (\d+)\]', reason)
            said = os.strerror(int(number.group(1) or number.group(2))) if number else reason
            raise MurTraceError(
                E_IO_003,
                f"failed to write the ingest's copies of the traces in the temporary directory "
                f"{os.path.dirname(staging)} (TMPDIR): {said}; catalog {db} is as before this "
                "ingest",
            ) from None
        raise MurTraceError(
            E_IO_003, f"failed to write catalog {db}: {reason}; it is as before this ingest"
        ) from None
    except BaseException:
        _roll_back(cat, db, created)
        raise
    finally:
        # Ctrl-C held back meanwhile: one that landed in a close (a checkpoint) left the
        # staging directory, Parquet copies of the traces, behind (2 runs of 16)
        with signals_after() as meanwhile:
            for con in (cat, mem):
                if con is not None:
                    with contextlib.suppress(duckdb.Error):
                        con.close()
            if staging is not None:
                shutil.rmtree(staging, ignore_errors=True)
            if committed:
                meanwhile.clear()
    return report


#: The staging directories of ingests, in the temporary directory: this, the host's name,
#: `-`, the ingest's process id, `-`, and a random part.
STAGING_PREFIX = "mur-trace-ingest-"


def _staging_prefix() -> str:
    """The staging directories' prefix on this host (a temporary directory may be shared
    with other hosts, or with containers whose process ids are others)."""
    return f"{STAGING_PREFIX}{os.uname().nodename}-"


def _clear_stale_staging() -> None:
    """Remove the staging directories of ingests whose process is gone (killed: SIGKILL, the
    out-of-memory killer), which hold Parquet copies of the traces they read. Only this
    user's, of this host, and never one of a process still running."""
    prefix = _staging_prefix()
    pattern = re.compile(re.escape(prefix) + r"(\d+)-[^/]+$")
    where = os.path.join(glob.escape(tempfile.gettempdir()), glob.escape(prefix) + "*-*")
    for path in glob.glob(where):
        found = pattern.search(path)
        with contextlib.suppress(OSError):
            if found is None or os.lstat(path).st_uid != os.getuid():
                continue
            try:
                os.kill(int(found.group(1)), 0)
            except ProcessLookupError:
                shutil.rmtree(path, ignore_errors=True)
            except (PermissionError, OverflowError):  # another user's process; no such id
                continue


def _which_file(path: Path) -> tuple[int, int, int] | None:
    """Which file is at `path`: device, inode and the time of its last change (a file made
    again takes the inode number of the one removed; opening a catalog changes nothing of
    it). None when there is none."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_dev, st.st_ino, st.st_ctime_ns


def _roll_back(cat: duckdb.DuckDBPyConnection, db: Path, created: bool) -> None:
    """Undo a failed ingest: its transaction, and the file when this ingest made it. The
    file is removed while this process still holds it: once let go, another ingest that
    waited may open it, commit, and its catalog would be the one removed."""
    with contextlib.suppress(duckdb.Error):
        cat.execute("ROLLBACK")
    if created:
        for made in (db, Path(f"{db}.wal")):
            with contextlib.suppress(OSError):
                made.unlink()
        with contextlib.suppress(duckdb.Error):
            cat.close()


def open_catalog(db: str | os.PathLike[str]) -> duckdb.DuckDBPyConnection:
    """A connection that analyses the catalog `db` (read-only; its tables in `main`)."""
    if not os.fspath(db):  # Path("") is ".": it was `cannot open catalog .: ... directory`
        raise UsageError("the empty name is no catalog")
    db = Path(db)
    if not db.exists():
        if os.path.lexists(db.parent) and not db.parent.is_dir():  # as ingest says it
            raise MurTraceError(
                E_IO_003, f"cannot open catalog {db}: its directory {db.parent} is not a directory"
            )
        raise MurTraceError(E_IO_001, f"catalog not found: {db}")
    con = _connect(db, read_only=True)
    try:
        if not _check_version(con, db):
            raise MurTraceError(E_IO_003, f"catalog {db} is empty: ingest traces into it first")
    except MurTraceError:
        con.close()
        raise
    return con


def in_order(con: duckdb.DuckDBPyConnection) -> bool:
    """Whether the catalog keeps its stored findings in report order (see IN_ORDER_KEY)."""
    rows = con.execute(
        "SELECT value FROM main.catalog_meta WHERE key = $key", {"key": IN_ORDER_KEY}
    ).fetchall()
    return rows == [("true",)]


def narrow(con: duckdb.DuckDBPyConnection, paths: list[str | os.PathLike[str]], db: Path) -> None:
    """Analyse only the catalog's traces that `paths` name: temporary views shadow its tables.

    Each path means what it means everywhere (`sessions.kind_of`): a trace file, a session
    directory (its trace), or any directory (the traces beneath it), compared by its key
    (`sessions.trace_key`: a link to a workdir is that workdir). A path that names none of
    the catalog's traces is an error (E-TRC-002), whether or not it exists on disk. No
    path narrows nothing, as no path reads a workdir's every session (before, DuckDB's
    error on an empty list).
    """
    if not paths:
        return
    keys = [trace_key(p) for p in paths]
    held = {
        key
        for (key,) in con.execute(
            "SELECT trace_path FROM main.traces WHERE trace_path IN (SELECT unnest($k))",
            {"k": keys},
        ).fetchall()
    }
    wanted = []
    for p, named in zip(paths, keys, strict=True):
        # a link to a trace file names the trace of the file it leads to, as ingest holds
        # it (`_one_name_each`), unless the catalog holds the link's own name
        key = os.path.realpath(named) if named not in held and os.path.islink(named) else named
        # a session file brings its Claude Code subagents along, as it does when read
        # (formats.with_subagents; before, `--db` left them out): those beside the name
        # given, as reading it finds them, and those beside the file it leads to
        folder, beside = (formats.subagents_folder(Path(name)) for name in (named, key))
        wanted.append(
            {
                "given": str(p),
                "key": key,
                "below": os.path.realpath(p) + os.sep,
                "subagents": None if folder is None else f"{folder}{os.sep}",
                "beside": None if beside is None else f"{beside}{os.sep}",
            }
        )
    rows = con.execute(
        "SELECT w.given, "
        "list(t.trace_path ORDER BY t.trace_path) FILTER (t.trace_path IS NOT NULL) "
        "FROM (SELECT unnest($w, recursive := true)) AS w "
        "LEFT JOIN main.traces AS t "
        "ON t.trace_path = w.key OR starts_with(t.trace_path, w.below) "
        "OR starts_with(t.trace_path, w.subagents) OR starts_with(t.trace_path, w.beside) "
        "GROUP BY w.given",
        {"w": wanted},
    ).fetchall()
    chosen = dict(rows)
    for given in (str(p) for p in paths):
        if not chosen.get(given):
            raise MurTraceError(E_TRC_002, f"{given}: no session of catalog {db} is there")
    shadow(con, sorted({t for found in chosen.values() for t in found}))


def shadow(con: duckdb.DuckDBPyConnection, trace_paths: list[str]) -> None:
    """Make the catalog's tables, as the analyses read them, hold `trace_paths` only:
    temporary views over them, which a later call replaces (`narrow`, and the batches of
    `mur_trace.run_over_catalog`)."""
    con.execute("CREATE OR REPLACE TEMP TABLE narrowed (trace_path VARCHAR PRIMARY KEY)")
    con.execute("INSERT INTO narrowed SELECT unnest($p::VARCHAR[])", {"p": trace_paths})
    con.execute(
        "SET VARIABLE narrowed_range = $r::VARCHAR[]",
        {"r": [min(trace_paths), max(trace_paths)] if trace_paths else ["", ""]},
    )
    ((database,),) = con.execute("SELECT current_database()").fetchall()
    database = database.replace('"', '""')  # the file's name, quoted as an identifier
    for table in STORED:
        # the range lets the scan skip the row groups that hold none of these traces
        # (ingest writes a batch of traces at a time); then a semi-join (a list's
        # `list_contains` ran through the list for every row)
        con.execute(
            f'CREATE OR REPLACE TEMP VIEW {table} AS SELECT * FROM "{database}".main.{table} '
            "WHERE trace_path BETWEEN getvariable('narrowed_range')[1] "
            "AND getvariable('narrowed_range')[2] "
            "AND trace_path IN (SELECT trace_path FROM narrowed)"
        )


def unshadow(con: duckdb.DuckDBPyConnection) -> None:
    """Undo `shadow`: the analyses read the catalog's tables whole again."""
    for table in STORED:
        con.execute(f"DROP VIEW IF EXISTS temp.{table}")
    con.execute("DROP TABLE IF EXISTS temp.narrowed")


def analysed_paths(con: duckdb.DuckDBPyConnection) -> list[tuple[str, int]]:
    """The traces of the (narrowed) catalog that can be analysed, in path order, with
    their numbers of events."""
    return con.execute(
        "SELECT trace_path, events FROM traces WHERE error_code IS NULL ORDER BY trace_path"
    ).fetchall()


@dataclass(frozen=True)
class SessionNames:
    """The names session arguments give a catalog's traces (`session_paths`)."""

    #: name -> trace path, oldest first: what `@N`, `--last` and `--since` count
    paths: dict[str, str]
    #: name -> when the session was created (Unix ms, None when unknown)
    created: dict[str, int | None]
    #: the other sessions of a file of several (an OpenHands output), name -> that file:
    #: each names it too, as `check` and `report` print them
    also: dict[str, str]


def session_paths(con: duckdb.DuckDBPyConnection) -> SessionNames:
    """The catalog's sessions, by the name session arguments address -> trace path, oldest
    first, and when each was created (Unix ms, None when unknown).

    The name is the session id (a Murmur session's directory name; another agent's id, a
    `/` in it written `:`, as in a Claude Code subagent's `<session>:agent-<id>`), else the
    directory name. Traces that could not be read are there too (analysing one says why).
    Every trace has a name of its own, so that `@N`, `--last` and `--since` count them all:
    when two share one (a session copied to two places), the first in path order keeps it
    and the others are `<name>~2`, `<name>~3`, ... A Murmur session was created when its
    id says (`sessions.created_ms`, as `mur trace` orders sessions); another agent's, whose
    id says no time, at its first event's timestamp. Sessions of unknown time come first,
    and by name where times are equal. The other sessions of a file of several (its
    `file_session`s but the one it is named by) name that file too, in `also`, under a
    name no other session has (`~2`, ... as above)."""
    rows = con.execute(
        "SELECT trace_path, session_id FROM main.traces ORDER BY trace_path"
    ).fetchall()
    created = {path: created_ms(session_id or "") for path, session_id in rows}
    # the first timestamps of the traces whose ids say no time, only: over 5,000 Murmur
    # sessions, those of every trace took 20 ms more
    undated = [path for path, when in created.items() if when is None]
    if undated:
        created |= dict(
            con.execute(
                "SELECT trace_path, min(timestamp) FROM main.events "
                "WHERE trace_path IN (SELECT unnest($paths::VARCHAR[])) GROUP BY ALL",
                {"paths": undated},
            ).fetchall()
        )
    taken: set[str] = set()

    def unique(name: str) -> str:
        named, n = name, 1
        while named in taken:
            n += 1
            named = f"{name}~{n}"
        taken.add(named)
        return named

    found: dict[str, tuple[str, int | None]] = {}
    for path, session_id in rows:
        name = catalog_name(session_id) if session_id else Path(path).parent.name
        found[unique(name)] = (path, created[path])
    order = sorted(found, key=lambda name: (found[name][1] is not None, found[name][1] or 0, name))
    # a Murmur trace has none (a row group of NULLs is skipped by its statistics)
    several = con.execute(
        "SELECT DISTINCT e.trace_path, e.file_session FROM main.events AS e "
        "JOIN main.traces AS t USING (trace_path) "
        "WHERE e.file_session IS NOT NULL AND e.file_session IS DISTINCT FROM t.session_id "
        "ORDER BY ALL"
    ).fetchall()
    also = {unique(catalog_name(session)): path for path, session in several}
    return SessionNames(
        {name: found[name][0] for name in order}, {name: found[name][1] for name in order}, also
    )


def catalog_sessions(db: str | os.PathLike[str]) -> SessionNames:
    """The names of a catalog's sessions (`session_paths`)."""
    con = open_catalog(db)
    try:
        return session_paths(con)
    finally:
        con.close()
