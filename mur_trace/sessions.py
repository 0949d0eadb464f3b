"""Finding trace files: workdirs, session directories and literal paths."""

from __future__ import annotations

import os
import re
import stat
import time
from collections.abc import Iterable, Mapping
from pathlib import Path

from . import formats
from .errors import E_IO_001, E_IO_003, E_TRC_002, MurTraceError, UsageError

TRACE_FILE = "trace.jsonl"
DEFAULT_WORKDIR = Path("workdir")


def _is_session_entry(entry: os.DirEntry[str]) -> bool:
    """A `ses_*` directory, or a `ses_*` entry that cannot be followed (a link loop): the
    loader then names what is wrong with its trace instead of the session vanishing."""
    if not entry.name.startswith("ses_"):
        return False
    try:
        return entry.is_dir()
    except OSError:
        return True


def _workdir_problem(workdir: Path) -> MurTraceError | None:
    """Why `workdir` cannot be listed as a workdir, if it cannot."""
    try:
        mode = os.stat(workdir).st_mode
    except FileNotFoundError:
        return MurTraceError(E_IO_001, f"workdir not found: {workdir}")
    except OSError as exc:
        return MurTraceError(E_IO_003, f"failed to read {workdir}: {exc.strerror}")
    if not stat.S_ISDIR(mode):
        return MurTraceError(E_IO_003, f"failed to read {workdir}: not a directory (a workdir)")
    return None


def session_dirs(workdir: Path) -> list[str]:
    """Names of the `ses_*` directories of a workdir, sorted (oldest first: ids are UUID v7).

    A workdir that does not exist is E-IO-001; one that is not a directory or cannot be
    read, E-IO-003.
    """
    return [name for name, _ in _session_entries(workdir)]


def _session_entries(workdir: Path) -> list[tuple[str, bool]]:
    """The `ses_*` directories of a workdir (`session_dirs`), each with whether it is a
    symbolic link (known from the listing itself, without a call for each)."""
    problem = _workdir_problem(workdir)
    if problem is not None:
        raise problem
    try:
        with os.scandir(workdir) as entries:
            return sorted((e.name, e.is_symlink()) for e in entries if _is_session_entry(e))
    except OSError as exc:
        raise MurTraceError(E_IO_003, f"failed to read {workdir}: {exc.strerror}") from None


def workdir_traces(
    workdir: Path, entries: list[tuple[str, bool]] | None = None, read_once: bool = True
) -> list[str]:
    """The `ses_*/trace.jsonl` of every session directory of a workdir, oldest first.

    A session directory without a readable trace is kept: loading skips it with a warning
    that names it (`load.check_files`). A session directory linked in beside the one it
    leads to is read once, under the first name (unless `read_once` is false: `ingest`
    chooses the name, knowing what its catalog holds). `entries`: its listing
    (`_session_entries`), when it was made already.
    """
    # joined as text, not through pathlib (5,000 sessions: 25 ms that way, 4 ms so); the
    # same strings, as pathlib leaves no `.` component and no trailing separator
    top = str(Path(workdir))
    prefix = "" if top == "." else top if top.endswith(os.sep) else top + os.sep
    entries = _session_entries(workdir) if entries is None else entries
    found = [f"{prefix}{name}{os.sep}{TRACE_FILE}" for name, _ in entries]
    if not found:
        raise MurTraceError(E_TRC_002, f"no sessions found in workdir at {workdir}")
    # resolved only when a session is a link: resolving every path cost 30 ms at 5,000
    # sessions (128 ms at 20,000), 3 % of a cold `redundant`
    return _read_once(found) if read_once and any(link for _, link in entries) else found


def _read_once(found: list[str]) -> list[str]:
    """`found` without the paths that lead to a file an earlier one leads to."""
    seen: set[str] = set()
    unique = []
    for trace, key in zip(found, real_paths(found), strict=True):
        if key not in seen:
            seen.add(key)
            unique.append(trace)
    return unique


#: What a path names (`kind_of`).
FILE, SESSION, WORKDIR, MISSING = "file", "session", "workdir", "missing"


def kind_of(path: Path) -> str:
    """What a path names, the one meaning every command gives it.

    A directory is a session directory when it is named `ses_*` or holds a `trace.jsonl`,
    else a workdir; a directory named like a trace file (`*.jsonl`) is a trace file that
    cannot be read (the loader says why). Anything else that exists, or cannot be looked at
    (a link loop, no permission), is a trace file for the loader to judge; a path that does
    not exist is `missing`.
    """
    try:
        is_dir = stat.S_ISDIR(os.stat(path).st_mode)
    except FileNotFoundError:
        return MISSING
    except OSError:
        return FILE
    if not is_dir or path.name.endswith(".jsonl"):
        return FILE
    if path.name.startswith("ses_") or os.path.lexists(path / TRACE_FILE):
        return SESSION
    return WORKDIR


def as_paths(paths: str | os.PathLike[str] | Iterable[str | os.PathLike[str]] | None) -> list:
    """`paths` as a list: one path (a `str` or a `Path`) is a list of one, not of characters."""
    if paths is None:
        return []
    if isinstance(paths, str | os.PathLike):
        return [paths]
    return list(paths)


def path_argument(name: str, value: object) -> None:
    """Refuse (`UsageError`) a value of the Python API's argument `name` that is neither
    None nor a path (`str` or `os.PathLike` of text): it was a TypeError from deep inside."""
    if value is not None and (
        not isinstance(value, str | os.PathLike) or isinstance(os.fspath(value), bytes)
    ):
        raise UsageError(f"{name} is a path (str or os.PathLike), not {value!r}")
    if value is not None and "\0" in os.fspath(value):  # no system takes it: a ValueError
        raise UsageError(f"{name} is a path, and no path holds a NUL character: {value!r}")


def workdir_argument(workdir: object, db: object) -> None:
    """Refuse (`UsageError`) a workdir given with a catalog: it names trace files, which a
    catalog's sessions are not read from, and it was dropped without a word (the whole
    catalog analysed). The default's directory, however spelled, goes without saying."""
    if db is None or workdir is None:
        return
    if os.path.realpath(os.fspath(workdir)) != os.path.realpath(DEFAULT_WORKDIR):
        raise UsageError(
            "--workdir names trace files, not a catalog's: with --db, name the directory "
            "after the command to narrow the catalog to the traces beneath it"
        )


def bool_argument(name: str, value: object) -> None:
    """Refuse (`UsageError`) a value of the Python API's argument `name` that is not True
    or False ("no" counted as true)."""
    if not isinstance(value, bool):
        raise UsageError(f"{name} is True or False, not {value!r}")


def callback_argument(name: str, value: object) -> None:
    """Refuse (`UsageError`) a value of the Python API's argument `name` that is neither
    None nor callable: it was a TypeError once the first batch had been read."""
    if value is not None and not callable(value):
        raise UsageError(f"{name} is a function (or None), not {value!r}")


def given_paths(
    paths: str | os.PathLike[str] | Iterable[str | os.PathLike[str]] | None,
) -> list[str | os.PathLike[str]] | None:
    """`paths` as the Python API takes it, checked before anything is read: None (every
    session of the workdir, or of the catalog), or one path or an iterable of paths, as a
    list. An empty one is E-TRC-002, never every session: a filter that kept no path names
    no session (the command line has no empty list: no PATHS is None). Anything but paths
    (`str` or `os.PathLike`) is E-CLI-001 (`UsageError`), not a TypeError of `os.fspath`."""
    if paths is None:
        return None
    if isinstance(paths, bytes) or not isinstance(paths, str | os.PathLike | Iterable):
        raise UsageError(f"paths are a path or an iterable of paths, not {type(paths).__name__}")
    given = as_paths(paths)
    for path in given:
        if not isinstance(path, str | os.PathLike) or isinstance(os.fspath(path), bytes):
            raise UsageError(f"paths are str or os.PathLike, not {path!r}")
        if "\0" in os.fspath(path):  # no system takes it: a ValueError from the first stat
            raise UsageError(f"no path holds a NUL character: {path!r}")
    if not given:
        raise MurTraceError(E_TRC_002, "no traces given: paths is empty (None names every session)")
    return given


def real_paths(paths: Iterable[str | os.PathLike[str]]) -> list[str]:
    """`os.path.realpath` of each of `paths`, the directories they share resolved once.

    `realpath` looks at every component of a path: six `lstat` calls for each trace of a
    workdir, 0.22-0.25 s for 5,000 sessions on a slow machine. Resolving a path's directory
    (remembered, and resolved the same way) and then its last component gives the same
    path with two. The same paths as `realpath` gives, but where a path goes through a
    link loop (no file is behind it, and the two may spell it differently).
    """
    known: dict[str, str] = {}

    def real(path: str) -> str:
        # up to a directory already resolved, or one `realpath` resolves whole (the
        # first component, a `.` or `..`); then down again, a component at a time
        below: list[tuple[str, str]] = []
        while path not in known:
            head, tail = os.path.split(path)
            if not head or not tail or tail in (os.curdir, os.pardir):
                known[path] = os.path.realpath(path)
                break
            below.append((path, tail))
            path = head
        resolved = known[path]
        for spelled, tail in reversed(below):
            joined = os.path.join(resolved, tail)
            try:
                link = stat.S_ISLNK(os.lstat(joined).st_mode)
            except OSError:  # missing, or not reachable: realpath leaves it as it is
                link = False
            resolved = known[spelled] = os.path.realpath(joined) if link else joined
        return resolved

    return [real(os.fspath(path)) for path in paths]


def trace_keys(paths: Iterable[str | os.PathLike[str]]) -> list[str]:
    """The paths traces are known by across runs: absolute, with the directories above them
    resolved (a workdir reached through a link is one workdir), the files themselves not (a
    session's trace linked from elsewhere keeps its session's name)."""
    split = [os.path.split(os.path.abspath(path)) for path in paths]
    directories = real_paths(directory for directory, _ in split)
    return [os.path.join(d, name) for d, (_, name) in zip(directories, split, strict=True)]


def trace_key(path: str | os.PathLike[str]) -> str:
    """The path one trace is known by across runs (`trace_keys`)."""
    return trace_keys([path])[0]


def discover(
    paths: str | os.PathLike[str] | Iterable[str | os.PathLike[str]] | None,
    workdir: str | os.PathLike[str] | None = None,
    read_once: bool = True,
) -> list[str]:
    """Trace files named by `paths` (files, session directories, workdirs, in any mix;
    other agents' session files and directories: `formats.agent_sessions`).

    With no paths, every session of `workdir` (default `./workdir`). A path that does not
    exist is kept: loading skips it with E-IO-001 (an error when nothing else can be read);
    so is, among other paths, a workdir that holds no session (E-TRC-002) or cannot be
    listed; a file named twice, however spelled, is read once, under its first name (with
    `read_once` false, every name is kept: `ingest` chooses, knowing what its catalog holds).
    """
    once = _read_once if read_once else list
    paths = as_paths(paths)
    if workdir is not None and not os.fspath(workdir):  # Path("") would be "."
        raise MurTraceError(E_IO_001, "workdir not found: '' (an empty name)")
    if not paths:
        # a workdir of ses_* sessions is read as `mur trace` reads it (what lies beside
        # them is passed over, as a path it is read too); one with none, as a path
        # (`--workdir ~/.claude/projects/p` was `no sessions found`)
        top = Path(workdir or DEFAULT_WORKDIR)
        entries = _session_entries(top)  # listed once: 5,000 sessions, 3-5 ms a listing
        return workdir_traces(top, entries, read_once) if entries else once(_workdir_sessions(top))
    found: list[str] = []
    for raw in paths:
        if not os.fspath(raw):  # Path("") is ".": the empty name would read the directory
            raise MurTraceError(E_IO_001, "trace file not found: '' (an empty name)")
        path = Path(raw)
        kind = kind_of(path)
        if kind == SESSION:
            found.append(str(path / TRACE_FILE))
        elif kind == WORKDIR:
            try:
                found.extend(_workdir_sessions(path))
            except MurTraceError:
                if len(paths) == 1:
                    raise
                # among other paths, skipped as a file that cannot be read is: loading
                # says why (load.file_problem)
                found.append(str(path))
        elif kind == FILE:  # loading reads it or says why not; with its subagents, if any
            found.extend(formats.with_subagents(path))
        else:  # missing: loading names it (and fails when nothing else is left)
            found.append(str(path))
    return once(found)


def _workdir_sessions(path: Path) -> list[str]:
    """The traces of a workdir: its ses_* sessions and the other agents' logs beside them
    (before, passed over silently); else, an agent's directory, its session files. One
    that does not exist is E-IO-001, one that holds no session E-TRC-002."""
    sessions = session_dirs(path)
    if sessions:
        return [*workdir_traces(path), *(formats.agent_sessions(path, beside=sessions) or [])]
    return formats.agent_sessions(path) or workdir_traces(path)


# ── session addressing, as `mur trace` does it ────────────────────────────────


def _trace_of(workdir: Path, name: str) -> Path:
    """Where session `name` of `workdir` keeps its trace."""
    return workdir / name / TRACE_FILE


def _where(workdir: Path, where: str | None) -> str:
    """Where sessions are looked for, in messages: a workdir, or a catalog (`where`)."""
    return where or f"workdir at {workdir}"


def _newest(
    workdir: Path, names: Iterable[str] | None = None, where: str | None = None
) -> list[str]:
    # a catalog lists its sessions oldest first (catalog.session_paths); a workdir's sort
    # so by name (UUID v7 ids). No session at all is said without diff's `before:` or
    # `after:`, as `mur trace` says it, and so said once for both
    names = list(names) if names is not None else session_dirs(workdir)
    if not names:
        files = formats.agent_sessions(workdir) if where is None else None
        if files:  # another agent's directory: its files are named by their paths
            raise MurTraceError(
                E_TRC_002,
                f"no ses_* sessions in workdir at {workdir}, which holds another agent's "
                f"session files: name one by its path (e.g. {files[0]})",
            )
        raise MurTraceError(E_TRC_002, f"no sessions found in {_where(workdir, where)}")
    return names


def _label(label: str | None, message: str) -> str:
    return f"{label}: {message}" if label else message


def catalog_name(session_id: str) -> str:
    """The name a catalog gives a session id (`catalog.session_paths`): a `/` in it (a
    Claude Code subagent's `<session>/agent-<id>`) written `:`, as a name holds no `/`."""
    return session_id.replace("/", ":")


def _place(workdir: Path, name: str, known: Mapping[str, str] | None) -> Path:
    """The trace of session `name`: a catalog's (`known`), else the workdir's."""
    return Path(known[name]) if known is not None else _trace_of(workdir, name)


def _ordinal(
    arg: str,
    workdir: Path,
    label: str | None,
    known: Mapping[str, str] | None,
    where: str | None,
) -> Path:
    n = rust_count(arg[1:])  # as `mur trace` reads an ordinal
    if n is None:
        raise MurTraceError(
            E_TRC_002, _label(label, f"invalid ordinal '{arg}' — expected @1, @2, ...")
        )
    if n < 1:
        raise MurTraceError(E_TRC_002, _label(label, "ordinal must be @1 or higher"))
    names = _newest(workdir, known, where)
    if n > len(names):
        count = f"{len(names)} session{'' if len(names) == 1 else 's'}"
        holder = _where(workdir, where).split(" at ")[0]
        raise MurTraceError(
            E_TRC_002, _label(label, f"@{n} is out of range — {holder} has {count}")
        )
    return _place(workdir, names[-n], known)


def is_session_id(arg: str) -> bool:
    """`ses_` followed by 32 characters: a full session id."""
    return arg.startswith("ses_") and len(arg) == 36


def is_literal(arg: str) -> bool:
    """A session argument that is a path (it holds `/` or ends in `.jsonl`)."""
    return "/" in arg or arg.endswith(".jsonl")


def resolve_session(
    arg: str | None,
    workdir: Path,
    label: str | None = None,
    known: Mapping[str, str] | None = None,
    where: str | None = None,
    also: Mapping[str, str] | None = None,
) -> Path:
    """The trace a session argument names (SPEC section 4).

    None: the newest `ses_*` of `workdir`. A value with `/` or ending in `.jsonl`: that
    path (a session directory: its trace; a workdir is an error, it names no one session).
    `@N`: the N-th newest session. `ses_` + 32 hex: that session. Anything else: the one
    session whose directory name ends with it, ignoring case. `label` prefixes errors
    (`before: ...`) where two arguments are resolved. `known` replaces the workdir's session
    directories (a catalog's sessions: name -> trace path), and `where` names it in
    messages; a session id with a `/` (`<session>/agent-<id>`), as `show` prints it, names
    the catalog's `<session>:agent-<id>` when no such path exists. `also` names more of the
    catalog's traces (the other sessions of a file of several, `catalog.SessionNames`): by
    name or suffix, never by ordinal; names that all lead to one trace are no ambiguity.
    """
    if arg is None:
        return _place(workdir, _newest(workdir, known, where)[-1], known)
    if not arg:  # as a suffix, it would match every session
        raise MurTraceError(E_TRC_002, _label(label, "the empty name names no session"))
    named = catalog_name(arg)
    names = {**(also or {}), **known} if known is not None else None
    if names is not None and named in names and not os.path.lexists(arg):
        return Path(names[named])
    if is_literal(arg):
        return session_at(arg, label)
    if arg.startswith("@"):
        return _ordinal(arg, workdir, label, known, where)
    try:
        return _named(arg, workdir, label, known, where, names)
    except MurTraceError as err:
        # a name is a session's, as `mur trace` reads it; a file or directory of that name
        # here is said to be one, and how to give it (before: `workdir not found: workdir`)
        if err.more or not os.path.lexists(arg):
            raise
        how = f"--db {arg}" if arg.endswith(".duckdb") else f"./{arg}"
        raise MurTraceError(
            err.code, f"{err.message} ('{arg}' here is a path: give it as {how})"
        ) from None


def _named(
    arg: str,
    workdir: Path,
    label: str | None,
    known: Mapping[str, str] | None,
    where: str | None,
    names: Mapping[str, str] | None,
) -> Path:
    """The session a session id or suffix names (`resolve_session`)."""
    if is_session_id(arg):
        if (arg not in known) if known is not None else arg not in session_dirs(workdir):
            message = f"session {arg} not found in {where or workdir}"
            raise MurTraceError(E_TRC_002, _label(label, message))
        return _place(workdir, arg, known)
    suffix = arg.lower()
    candidates = names if names is not None else session_dirs(workdir)
    matches = [name for name in candidates if name.lower().endswith(suffix)]
    if names is not None and len({names[name] for name in matches}) == 1:
        return Path(names[matches[0]])  # one trace, by one name or several
    if not matches:
        raise MurTraceError(
            E_TRC_002,
            _label(label, f"no session found matching suffix '{arg}' in {where or workdir}"),
        )
    if len(matches) > 1:  # the candidates follow, one a line, as `mur trace` lists them
        raise MurTraceError(
            E_TRC_002,
            _label(
                label,
                f"ambiguous: '{arg}' matches {len(matches)} sessions — provide more characters",
            ),
            [f"  {name}" for name in sorted(matches)],
        )
    return _place(workdir, matches[0], known)


def session_at(arg: str, label: str | None = None) -> Path:
    """The trace of the session at the path `arg`, with or without a `/` in it: a trace
    file, or a session directory's trace; a directory of several sessions is an error that
    says what to give instead, an agent's directory of one session file that file."""
    path = Path(arg)
    kind = kind_of(path)
    if kind == SESSION:
        return path / TRACE_FILE
    if kind == WORKDIR:
        files = None if session_dirs(path) else formats.agent_sessions(path)
        if files and len(files) == 1:  # an agent's directory of one session: that one
            return Path(files[0])
        raise MurTraceError(E_TRC_002, _label(label, _not_one_session(arg, path)))
    return path


def _not_one_session(arg: str, directory: Path) -> str:
    """Why a directory is no session argument, and what to give instead that works."""
    if session_dirs(directory):
        return (
            f"{arg} is a workdir, not a session: name one of its sessions "
            "(or give the workdir with --workdir)"
        )
    files = formats.agent_sessions(directory)
    if files:
        count = f"{len(files)} session{'' if len(files) == 1 else 's'}"
        return f"{arg} is a directory of {count}, not one: name one of its files ({files[0]})"
    return f"{arg} is a directory that holds no session"


def rust_count(text: str) -> int | None:
    """`text` as a count, as `mur trace` reads one (Rust's `usize` and `u64` on 64 bits):
    ASCII digits, a `+` before them at most, below 2^64; None when it is none. (Python's
    int() takes ` 1`, `1_0`, `١`, `-1`, and any size.)"""
    if not re.fullmatch(r"\+?[0-9]+", text):
        return None
    number = int(text)
    return number if number < 2**64 else None


def parse_since(value: str) -> int:
    """`30m`, `2h`, `1d` in milliseconds; anything else is an E-TRC-002 error."""
    units = {"m": 60_000, "h": 3_600_000, "d": 86_400_000}
    number = rust_count(value[:-1])
    if value[-1:] not in units or number is None:
        raise MurTraceError(
            E_TRC_002, f"unrecognised --since format '{value}' — expected <N>m, <N>h, or <N>d"
        )
    return number * units[value[-1]]


def created_ms(session_name: str) -> int | None:
    """Creation time of a UUID v7 session id, in Unix ms: the 12 bytes after `ses_` read
    as `mur trace` reads them (Rust's `u64::from_str_radix(.., 16)`: hexadecimal digits, a
    `+` before them at most). Python's int() also took `0x`, `_`, white space and a `-`."""
    if not session_name.startswith("ses_"):
        return None
    digits = os.fsencode(session_name)[4:16]
    if len(digits) < 12 or not re.fullmatch(rb"\+?[0-9a-fA-F]+", digits):
        return None
    return int(digits, 16)


def select_sessions(
    sessions: list[str],
    workdir: Path,
    *,
    last: int | None = None,
    since: str | None = None,
    now_ms: int | None = None,
    known: Mapping[str, str] | None = None,
    where: str | None = None,
    created: Mapping[str, int | None] | None = None,
    also: Mapping[str, str] | None = None,
) -> list[Path]:
    """The traces `report` covers: the named sessions (a directory of sessions names all
    of them: a workdir's, an agent's files), else the workdir's (as `discover` reads it:
    an agent's session files where it holds no `ses_*`, but with `--last` or `--since`,
    which count by creation time), or the catalog's (`known`,
    oldest first, named `where`), narrowed by `--last N` (the N newest) or `--since 2h`
    (created within that time: when its id says, or as `created` gives it by name)."""
    if sessions and (last is not None or since is not None):
        flag = "--since" if since is not None else "--last"
        raise MurTraceError(E_TRC_002, f"{flag} cannot be combined with explicit session arguments")
    if last is not None and last < 1:
        raise MurTraceError(E_TRC_002, "--last must be at least 1")
    if sessions:
        found: list[Path] = []
        for arg in sessions:
            if known is not None and is_literal(arg) and os.path.isdir(arg):
                # a directory narrows the catalog to the traces it holds beneath it, as for
                # every command (catalog.narrow): a session whose file is gone is the
                # catalog's to report, one not yet ingested is not (before, read from the
                # disk: the first left out, the second an error)
                found.append(Path(arg))
                continue
            if is_literal(arg) and kind_of(Path(arg)) == WORKDIR:
                # a directory of sessions: all of them (what `redundant DIR` reads); among
                # other sessions, one that holds none is skipped as `redundant` skips it
                try:
                    traces = discover([arg])
                except MurTraceError:
                    if len(sessions) == 1:
                        raise
                    traces = [arg]  # loading says why (load.file_problem)
                if not traces:
                    raise MurTraceError(E_TRC_002, _not_one_session(arg, Path(arg)))
                found.extend(Path(t) for t in traces)
            else:
                found.append(resolve_session(arg, workdir, known=known, where=where, also=also))
        return found
    if known is None and last is None and since is None:
        # every session of the workdir, as `report DIR` reads it: another agent's files too
        # (`report --workdir ~/.claude/projects/p` was `no sessions found`)
        return [Path(trace) for trace in discover(None, workdir)]
    if known is None and not session_dirs(workdir) and formats.agent_sessions(workdir):
        flag = "--since" if since is not None else "--last"
        raise MurTraceError(
            E_TRC_002,
            f"{flag} counts sessions by when they were created, which another agent's "
            f"session files in {workdir} do not say without reading them: ingest them "
            f"(mur-trace ingest --db c.duckdb {workdir}) and give --db c.duckdb",
        )
    names = _newest(workdir, known, where)
    if since is not None:
        window = parse_since(since)
        cutoff = (now_ms if now_ms is not None else int(time.time() * 1000)) - window
        when = created.get if created is not None else created_ms
        # a session of unknown time is never within the window, as in `mur trace` (as -1,
        # one reaching back before 1970 took it)
        names = [n for n in names if (at := when(n)) is not None and at >= cutoff]
        if not names:
            raise MurTraceError(
                E_TRC_002, f"no sessions matched --since {since} in {_where(workdir, where)}"
            )
    if last is not None:
        names = names[-last:]
    return [_place(workdir, n, known) for n in names]
