"""Every path a command writes goes through here: traces are only ever read.

One rule, in one place: no command writes, truncates or deletes a path that is, contains
or lies inside one of its inputs (trace files, session directories, workdirs, a catalog,
an effects file; compared as resolved paths, and as files, so a symbolic or hard link to
an input is that input), nor a directory it did not create itself. A refusal is one
`E-IO-004` line before anything is opened for writing.

A file a command writes (`-o`) is written beside it and moved in when complete: a command
killed or failed midway leaves the file as it was, never empty or cut. What a rename would
not keep (a hard link, another user's file) gets the finished text copied over it, never
emptied first; a device or a pipe is written as `open` writes it (see `replaced_file`).

Directories a command fills (`export`'s dataset, `synth`'s output) are written beside
their destination first and moved into it when complete; a destination that already
holds files is written again only when it carries the command's own mark, which says it
wrote them, and then only the parts it writes are replaced.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import io
import json
import os
import re
import secrets
import shutil
import signal
import stat
import sys
import tempfile
import threading
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import IO, Any

from .errors import E_IO_003, E_IO_004, MurTraceError

#: A path given on the command line or to the API.
PathLike = str | os.PathLike[str]


def check_duckdb_name(path: PathLike, what: str) -> None:
    """Refuse (E-IO-003) a path DuckDB is to open or write whose name is not UTF-8 text:
    DuckDB takes only UTF-8 names (it failed with `std::bad_cast` or Python's encoding
    error, a traceback)."""
    try:
        os.fspath(path).encode()
    except UnicodeEncodeError:
        raise MurTraceError(
            E_IO_003, f"cannot {what} {os.fspath(path)}: its name is not UTF-8 text"
        ) from None


def _real(path: PathLike) -> str:
    return os.path.realpath(os.fspath(path))


def _inside(path: str, directory: str) -> bool:
    """Whether resolved `path` lies strictly inside resolved `directory`."""
    prefix = directory if directory.endswith(os.sep) else directory + os.sep
    return path.startswith(prefix)


def _identity(path: PathLike) -> tuple[int, int] | None:
    """(device, inode) of an existing file, so that a hard link is known for the file."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_dev, st.st_ino


def _elsewhere(directory: str, identity: tuple[int, int] | None) -> Iterator[str]:
    """The trace files of a directory input (its own, its sessions') that could be another
    path's file: those reached through a symbolic link, and, when the target exists, all
    (a hard link is the same file under another name)."""
    candidates = [os.path.join(directory, "trace.jsonl")]
    with contextlib.suppress(OSError), os.scandir(directory) as entries:
        for entry in entries:
            candidates.append(entry.path if entry.is_file() else f"{entry.path}/trace.jsonl")
    for trace in candidates:
        if identity is not None or os.path.islink(trace) or os.path.islink(os.path.dirname(trace)):
            yield trace


def check_target(
    target: PathLike,
    inputs: Iterable[PathLike | None],
    what: str = "write",
    files: Iterable[PathLike] = (),
) -> None:
    """Refuse (E-IO-004) to write `target` when it is, contains or lies inside an input.

    Paths are compared resolved (symbolic links followed), and an existing target is also
    compared as a file with every trace of the inputs and with `files` (the trace files the
    inputs were found to hold, however deep: a hard link is the same file).
    """
    real = _real(target)
    identity = _identity(target)
    if identity is not None:
        for trace in files:
            if _identity(trace) == identity:
                raise MurTraceError(
                    E_IO_004,
                    f"refusing to {what} {os.fspath(target)}: it is the input trace "
                    f"{os.fspath(trace)}",
                )
    for given in inputs:
        if given is None or os.fspath(given) == "":
            continue
        source = _real(given)
        if real == source or (identity is not None and identity == _identity(given)):
            reason = "it is the input"
        elif _inside(real, source):
            reason = "it lies inside the input"
        elif _inside(source, real):
            reason = "it contains the input"
        elif os.path.isdir(source) and any(
            # an existing target is known by its identity alone (the same resolved path is
            # the same file): one stat for each trace, not a resolution of each component
            _identity(trace) == identity if identity is not None else _real(trace) == real
            for trace in _elsewhere(source, identity)
        ):
            reason = "it is a trace of the input"
        else:
            continue
        shown = os.fspath(target) or "."
        raise MurTraceError(E_IO_004, f"refusing to {what} {shown}: {reason} {os.fspath(given)}")


def _files_under(directory: Path, parts: Sequence[str]) -> set[str]:
    """The files (and links) of `parts` in `directory`, relative to it. A directory among
    them that cannot be listed is an OSError (`rglob` passed over it: a user's directory
    no one may read, in an earlier export, was moved aside with the export's tables)."""

    def unlisted(exc: OSError) -> None:
        raise exc

    found = set()
    for part in parts:
        path = directory / part
        if path.is_file() or path.is_symlink():
            found.add(part)
        elif path.is_dir():
            for top, dirs, files in os.walk(path, onerror=unlisted):
                for name in files + [d for d in dirs if os.path.islink(os.path.join(top, d))]:
                    found.add(os.path.relpath(os.path.join(top, name), directory))
    return found


def _only_ours(target: Path, mark: str, parts: Sequence[str]) -> bool:
    """Whether what `target` holds where `parts` go is what the mark says was written there
    (and `target` is empty or marked at all)."""
    if not any(target.iterdir()):
        return True
    try:
        written = set(json.loads((target / mark).read_text(encoding="utf-8"))["files"])
        return _files_under(target, parts) <= written
    except (OSError, ValueError, KeyError, TypeError):  # no mark; a directory not listed
        return False


#: The file that marks a directory as an export's (`mur-trace export`): only such a
#: directory is written again; it lists the files the export wrote.
EXPORT_MARK = ".mur-trace-export"


def missing_written(directory: PathLike, mark: str, under: str) -> str | None:
    """The first of the files below `under` that the mark of `directory` lists as written
    and that is not there any more (a partition lost by a partial copy); None when none
    is, or the directory has no mark to say. One `stat` a file listed."""
    try:
        written = json.loads((Path(directory) / mark).read_text(encoding="utf-8"))["files"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    prefix = f"{under}/"
    return next(
        (
            name
            for name in written
            if isinstance(name, str)
            and name.startswith(prefix)
            and not os.path.lexists(Path(directory) / name)
        ),
        None,
    )


@contextlib.contextmanager
def signals_after() -> Iterator[list[int]]:
    """Ctrl-C and SIGTERM held back until the block is done, then acted on as they would
    have been: for the steps of a replacement that must all happen or none. The block gets
    the list of those caught meanwhile, which it may clear (a change committed meanwhile
    is done: an interrupt then would say it was not). Python runs signal handlers in its
    main thread only; elsewhere, or when a handler was set outside Python (which could
    not be put back), the block runs as it is."""
    held = (signal.SIGINT, signal.SIGTERM)
    caught: list[int] = []
    if threading.current_thread() is not threading.main_thread() or any(
        signal.getsignal(sig) is None for sig in held
    ):
        yield caught
        return
    before = {sig: signal.signal(sig, lambda sig, _frame: caught.append(sig)) for sig in held}
    try:
        yield caught
    finally:
        for sig, handler in before.items():
            signal.signal(sig, handler)
        for sig in dict.fromkeys(caught):
            signal.raise_signal(sig)


@contextlib.contextmanager
def owned_directory(
    target: PathLike, mark: str, parts: Sequence[str], inputs: Iterable[PathLike | None] = ()
) -> Iterator[Path]:
    """A fresh directory to write `parts` into; on success they replace `target`'s.

    `target` may be missing, empty, or a directory holding the file `mark` (written by this
    same mechanism earlier, listing what it wrote) whose `parts` hold nothing else; anything
    else is refused, before anything is written. The
    parts are written beside `target` and moved in when complete: an interrupted command
    leaves `target` as it was. Only `parts` and `mark` of `target` are replaced; other
    files in it are left alone.
    """
    target = Path(target) if os.fspath(target) else Path(".")
    staging = _staging_for(target, mark, parts, inputs)
    try:
        try:
            yield staging
        except OSError as exc:  # a full device: the output named (pyarrow's `[Errno 28]
            if exc.errno not in FULL:  # Error writing bytes to file` named nothing)
                raise
            raise MurTraceError(
                E_IO_003, f"cannot write {target}: {os.strerror(exc.errno)}"
            ) from None
        # the mark lists what was written, so that a later run replaces only that
        written = sorted(_files_under(staging, parts))
        (staging / mark).write_text(
            json.dumps({"written_by": "mur-trace", "files": written}) + "\n", encoding="utf-8"
        )
        try:
            target.mkdir(parents=True, exist_ok=True)
            old = Path(tempfile.mkdtemp(prefix=".replaced.", dir=target))
        except OSError as exc:
            raise cannot_write(target, exc) from None
        kept = True  # the old parts, where a failed move could not put them back
        try:
            with signals_after():  # a part moved out and not its new one in loses both
                _move_in(target, staging, old, (*parts, mark))
                kept = False
        finally:
            if not kept:
                shutil.rmtree(old, ignore_errors=True)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


#: The errors of a write that found no room: a full device, a quota, a file size limit.
FULL = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG})


def _move_in(target: Path, staging: Path, old: Path, parts: Sequence[str]) -> None:
    """Each of `parts` of `target` moved into `old`, and `staging`'s moved into `target`.
    When a move fails, the moves made are undone, the old parts back where they were, and
    E-IO-003 names the output (where they cannot go back, `old` is kept, and named).
    Before, the old parts were deleted with `old` (a staging directory on another file
    system than `target`, a mount point: `Invalid cross-device link`, and the earlier
    export had lost its tables)."""
    done: list[tuple[Path, Path]] = []
    try:
        for part in parts:
            if (target / part).exists() or (target / part).is_symlink():
                os.replace(target / part, old / part)
                done.append((target / part, old / part))
            if (staging / part).exists():
                os.replace(staging / part, target / part)
                done.append((staging / part, target / part))
    except OSError as exc:
        try:
            for source, moved in reversed(done):
                os.replace(moved, source)
        except OSError:  # not even back: where the old parts are is said, and they stay
            raise MurTraceError(
                E_IO_003, f"{cannot_write(target, exc).message}; what it held is in {old}"
            ) from None
        shutil.rmtree(old, ignore_errors=True)
        raise cannot_write(target, exc) from None


def _staging_for(
    target: Path,
    mark: str,
    parts: Sequence[str],
    inputs: Iterable[PathLike | None],
    within: bool = True,
) -> Path:
    """A new directory to write in, once `target` is known to be ours to replace (`parts`
    of it, listed by `mark`): not an input, not a file, no foreign files. Beside `target`;
    inside it (`within`, for writers that move parts in, not the directory whole) when it
    is a mount point or its parent takes no new directory. What killed writes left there
    goes first, before `target` is judged (a staging directory a killed first export left
    in an empty target would have made it foreign for good)."""
    check_target(target, inputs)
    if (target.exists() or target.is_symlink()) and not target.is_dir():
        raise MurTraceError(E_IO_004, f"refusing to write {target}: it is not a directory")
    try:
        real = Path(_real(target))
        if real.is_dir():
            _clear_stale(real, within=True)
    except OSError as exc:
        raise cannot_write(target, exc) from None
    if target.is_dir() and not _only_ours(target, mark, parts):
        raise MurTraceError(
            E_IO_004,
            f"refusing to write into {target}: it holds files this command did not write "
            "(give a new or empty directory)",
        )
    try:
        real.parent.mkdir(parents=True, exist_ok=True)
        _clear_stale(real)
        if within and real.is_dir():
            if _mount_point(real):  # a mount point: its parts moved within it, not across
                return Path(tempfile.mkdtemp(prefix=_working_name(real), dir=real))
            try:
                return Path(tempfile.mkdtemp(prefix=_working_name(real), dir=real.parent))
            except PermissionError:  # a directory that may be written, in one that may not
                return Path(tempfile.mkdtemp(prefix=_working_name(real), dir=real))
        return Path(tempfile.mkdtemp(prefix=_working_name(real), dir=real.parent))
    except OSError as exc:  # `out.csv/x`, no permission, a name too long
        raise cannot_write(target, exc) from None


def _mount_point(directory: Path) -> bool:
    """Whether `directory` is a mount point (a container's volume, a partition, a bind
    mount), which no rename crosses (`Invalid cross-device link`) and none replaces. A bind
    mount of a directory of the same file system has the device of the one above it, so
    Linux's table of mounts is asked too."""
    if os.path.ismount(directory):
        return True
    try:
        with open("/proc/self/mountinfo", encoding="utf-8", errors="surrogateescape") as table:
            points = {_unescaped(line.split(" ", 5)[4]) for line in table if line.count(" ") >= 5}
    except OSError:  # another system: what `ismount` says
        return False
    return os.path.realpath(directory) in points


def _unescaped(field: str) -> str:
    """A path of /proc/self/mountinfo, whose space, tab, newline and backslash are written
    as octal escapes (`\\040`)."""
    return re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), field)


def cannot_write(target: PathLike, exc: OSError) -> MurTraceError:
    """E-IO-003 naming the output `target` and why it cannot be written, in place of the
    system's `[Errno 20] Not a directory: '…'` (which names a part of it, or nothing).
    Where a directory must be made, the part of the path that is no directory is named."""
    reason = exc.strerror or str(exc)
    if isinstance(exc, FileExistsError | NotADirectoryError):
        for above in Path(target).parents:
            if os.path.lexists(above) and not os.path.isdir(above):
                what = "a symbolic link to no directory" if os.path.islink(above) else "a file"
                reason = f"{above} is {what}, where a directory must be"
                break
    return MurTraceError(E_IO_003, f"cannot write {target}: {reason}")


@contextlib.contextmanager
def replaced_directory(
    target: PathLike, mark: str, inputs: Iterable[PathLike | None] = ()
) -> Iterator[Path]:
    """A path, not there yet, beside `target` for a writer that makes the directory itself
    (Spark); when the writer is done it replaces `target` whole.

    `target` may be missing, an empty directory, or a directory this same mechanism wrote
    (it holds `mark`, listing its files, and nothing else); anything else (an input, a
    directory of someone's files, a file) is refused before anything is written. An
    interrupted writer leaves `target` as it was. A symbolic link is written through: the
    directory it names is replaced.
    """
    target = Path(target) if os.fspath(target) else Path(".")
    if target.is_symlink():  # written through, as `owned_directory` writes: the link stays
        check_target(target, inputs)
        target = Path(_real(target))
    if target.is_dir() and _mount_point(target):  # said before the job, not after it
        raise MurTraceError(
            E_IO_004,
            f"refusing to write {target}: it is a mount point, and the output replaces its "
            "directory whole (give a directory inside it)",
        )
    parts = [e.name for e in target.iterdir() if e.name != mark] if target.is_dir() else []
    staging = _staging_for(target, mark, parts, inputs, within=False)
    try:
        fresh = staging / "new"
        yield fresh
        written = sorted(_files_under(fresh, [entry.name for entry in fresh.iterdir()]))
        (fresh / mark).write_text(
            json.dumps({"written_by": "mur-trace", "files": written}) + "\n", encoding="utf-8"
        )
        with signals_after():  # the old directory moved out and not the new one in
            if target.exists() or target.is_symlink():
                os.replace(target, staging / "old")
                old = staging / "old"
                mine = old.is_dir() and not old.is_symlink()
                held = [e.name for e in old.iterdir() if e.name != mark] if mine else []
                if not mine or not _only_ours(old, mark, held):
                    # someone wrote into it while the writer ran (a cluster job's minutes),
                    # or put a file or a link where it was to be: deleted with it, without
                    # a word, before
                    os.replace(old, target)
                    raise MurTraceError(
                        E_IO_004,
                        f"refusing to replace {target}: files it did not write were put in "
                        "it while the job ran; it is as it was (move them, and run again)",
                    )
            try:
                os.replace(fresh, target)
            except OSError as exc:  # the old one back, not deleted with `staging`
                if (staging / "old").exists() or (staging / "old").is_symlink():
                    os.replace(staging / "old", target)
                raise cannot_write(target, exc) from None
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def duckdb_file(path: PathLike) -> bool | None:
    """Whether `path` starts as DuckDB's database files do (`DUCK` after an 8-byte
    checksum); None when it cannot be read. An empty file is not one (DuckDB refuses it)."""
    try:
        with open(path, "rb") as f:
            return f.read(12)[8:12] == b"DUCK"
    except OSError:
        return None


def stdout_file() -> tuple[int, int] | None:
    """(device, inode) of the file standard output is (`> out.txt`, `>> log`); None for a
    terminal, a pipe or a device, the common case, for one `fstat`."""
    try:
        st = os.fstat(sys.stdout.fileno())
    except (OSError, ValueError, AttributeError, io.UnsupportedOperation):
        return None
    return (st.st_dev, st.st_ino) if stat.S_ISREG(st.st_mode) else None


def check_stdout(
    stdout: tuple[int, int],
    inputs: Iterable[PathLike | None],
    traces: Sequence[PathLike],
    catalog: PathLike | None = None,
) -> None:
    """Refuse (E-IO-004) standard output, the file `stdout` (`stdout_file`), when it is an
    input the shell opened for it: one of `inputs` (a catalog read, an effects file), of
    `traces`, or the `catalog` a command writes, compared as files (a hard link is the same
    file). Any other file it opened is written, wherever it lies."""
    named = {os.fspath(t) for t in traces}
    for given in [*inputs, *traces, catalog]:
        if given is None or _identity(given) != stdout:
            continue
        what = "input trace" if os.fspath(given) in named else "input"
        what = "catalog" if given is catalog else what
        raise MurTraceError(
            E_IO_004, f"refusing to write standard output: it is the {what} {given}"
        )


def check_overwrite(target: PathLike) -> None:
    """Refuse (E-IO-004) to write over an existing file that holds what no output of ours
    does: an agent's session log (`formats.log_kind`) or a DuckDB database (a catalog may
    hold the only copy of what it ingested), inputs of this command or not. `-o
    another_session/trace.jsonl` replaced that session's trace, and `-o old.duckdb` a
    catalog, with findings. A few reads of the file's start; nothing for a file that is not
    there, not regular, or not readable."""
    from .formats import log_kind

    shell_opened = _descriptor(target)
    if shell_opened is not None:  # written through, as the shell opened it: never emptied
        os.close(shell_opened)
        return
    try:
        if not stat.S_ISREG(os.stat(target).st_mode):  # a pipe would block a reader
            return
    except OSError:
        return
    if duckdb_file(target):
        what = "a DuckDB database"
    else:
        what = log_kind(target)
        if what is None:
            return
    raise MurTraceError(
        E_IO_004,
        f"refusing to write {os.fspath(target)}: it is {what}, not an output of mur-trace "
        "(remove it first to write there)",
    )


def _streamed(real: Path) -> bool:
    """Whether the resolved output `real` is written as `open` writes it, as it comes: a
    device, a pipe (what is already there is no file's text), and a link that resolves to
    no end (a loop: `open` says why)."""
    if real.is_symlink():
        return True
    try:
        return not stat.S_ISREG(os.stat(real).st_mode)
    except OSError:
        return False


def _in_place(real: Path) -> bool:
    """Whether the resolved output `real`, a file, is written where it is rather than
    replaced: what a rename would not keep. A file another name shares (a hard link would
    keep the old text), a file of another user (it would become ours), a file we may not
    write (a rename beside it would still succeed)."""
    try:
        st = os.stat(real)
    except OSError:
        return False
    return st.st_nlink > 1 or st.st_uid != os.geteuid() or not os.access(real, os.W_OK)


#: Names of a descriptor this process holds, and its number (None: the number named).
_DESCRIPTORS = {"/dev/stdin": 0, "/dev/stdout": 1, "/dev/stderr": 2, "/dev/fd": None,
                "/proc/self/fd": None, f"/proc/{os.getpid()}/fd": None}  # fmt: skip


def _named_descriptor(name: str) -> int | None:
    """The number of the descriptor the absolute path `name` names, if it names one."""
    parent, last = os.path.split(name)
    if name in _DESCRIPTORS:
        return _DESCRIPTORS[name]
    if parent in _DESCRIPTORS and _DESCRIPTORS[parent] is None and last.isascii():
        return int(last) if last.isdigit() else None
    return None


def _descriptor(target: PathLike) -> int | None:
    """A copy of the descriptor `target` names (`/dev/stdout`, `/dev/fd/3`, or a link to
    one), to write through as the shell opened it: opening the name again would truncate a
    file the shell appends to (`-o /dev/stdout >> log`), and replacing the file it resolves
    to would drop what that held. None when `target` names none, or one not open."""
    name = os.path.abspath(os.fspath(target))
    for _ in range(40):  # the links followed one by one, as far as the system follows them
        number = _named_descriptor(name)
        if number is not None:
            try:
                return os.dup(number)
            except OSError:
                return None
        try:
            link = os.readlink(name)
        except OSError:
            return None
        name = os.path.normpath(os.path.join(os.path.dirname(name), link))
    return None


@contextlib.contextmanager
def replaced_file(target: PathLike, mode: str, **options: Any) -> Iterator[IO[Any]]:
    """`target` opened to be written whole (`mode` "w" or "wb", `options` as `open`'s):
    the text goes to a new file beside it, with its permissions from the start, which
    replaces it when the writer is done. A symbolic link is written through (its target is
    replaced). A descriptor the process holds (`/dev/stdout`, `/dev/fd/N`, a link to one) is
    written through, as the shell opened it (appending, if it appends).

    Kept where it is instead: what a rename would not keep (see `_in_place`: a hard link,
    another user's file, a file we may not write), a file whose directory takes no new
    file (no permission, no inode left), and a file the system will not let a rename
    replace (one mounted on its own, one in a directory whose sticky bit keeps it from
    us). There the finished text is copied over it (`_copy_over`): a writer that fails or
    a device too full for the text leaves it as it was, not empty or cut. A device or a
    pipe is written as `open` writes it.
    """
    descriptor = _descriptor(target)
    if descriptor is not None:
        with open(descriptor, mode, **options) as out:
            yield out
        return
    real = Path(_real(target))
    if _streamed(real):
        with open(target, mode, **options) as out:
            yield out
        return
    made = None if _in_place(real) else _beside(real)
    if made is None:
        with _spooled(mode, options) as (out, finished):
            yield out
            out.flush()
            _copy_over(finished, real)
        return
    temporary, fd = made
    try:
        with contextlib.suppress(OSError):  # the old file's permissions before any text
            os.fchmod(fd, stat.S_IMODE(os.stat(real).st_mode))
        with open(fd, mode, **options) as out:
            yield out
        try:
            os.replace(temporary, real)
        except OSError:
            with open(temporary, "rb") as finished:
                _copy_over(finished, real)
            os.unlink(temporary)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def _host() -> str:
    """This host and process id namespace, in the names of what a write makes beside its
    target: a directory may be shared with other hosts, or containers of this one, whose
    process ids are not this process's (a container may keep the host's name)."""
    where = os.uname().nodename
    with contextlib.suppress(OSError):  # Linux: the namespace's own inode
        where += f"/{os.stat('/proc/self/ns/pid').st_ino}"
    return hashlib.sha256(where.encode()).hexdigest()[:8]


_HOST = _host()
#: How such a name ends: `.<process id>-<host>.` and eight random characters (a file's
#: `token_hex(4)`, a directory's from `mkdtemp`), at the very end, in ASCII digits (`$` also
#: matched before a final line break, `\d` an Arabic-Indic digit: what matched is deleted).
_WORKING_TAIL = re.compile(r"\.([0-9]+)-([0-9a-f]{8})\.[0-9a-z_]{8}\Z")


def _working_name(real: Path) -> str:
    """The start of the name of what a write makes beside `real` before it replaces it:
    hidden, named after it, this process and host; cut so that the whole name, with the
    eight random characters still to come, is no longer than a name may be (a name near
    the limit made a longer one, which failed)."""
    tail = f".{os.getpid()}-{_HOST}."
    return f".{os.fsdecode(_cut(os.fsencode(real.name), tail))}{tail}"


def _cut(name: bytes, tail: str) -> bytes:
    """The start of `name` in a working name ending in `tail` and eight characters: cut to
    fit, and between two characters (a name cut inside a UTF-8 character is no text:
    pyarrow refused an export's staging directory so named, with a traceback)."""
    # 255 bytes is the longest name Linux, macOS and Windows' file systems take
    end = room = min(len(name), 255 - 1 - len(tail) - 8)
    # back over continuation bytes to a character's start: a UTF-8 character has at most 4
    while end < len(name) and room - end < 3 and name[end] & 0xC0 == 0x80:
        end -= 1
    return name[:end]


def _clear_stale(real: Path, within: bool = False) -> None:
    """Remove what writes of `real` killed before they ended (SIGKILL, the out-of-memory
    killer) left beside it (`within`: in it, the directory a mount point's export stages
    in): a temporary copy of the output, a staging directory of an export, which no later
    run removed. Only this user's, made on this host by a process that is gone."""
    prefix = os.fsencode("." + real.name)
    with contextlib.suppress(OSError), os.scandir(real if within else real.parent) as entries:
        for entry in entries:
            found = _WORKING_TAIL.search(entry.name)
            if found is None or found.group(2) != _HOST:
                continue
            start = os.fsencode(entry.name[: found.start()])
            # the name whole, or cut where `_working_name` cuts a long one
            cut = start == b"." + _cut(prefix[1:], entry.name[found.start() : -8])
            if start != prefix and not cut:
                continue
            with contextlib.suppress(OSError):
                if entry.stat(follow_symlinks=False).st_uid != os.getuid():
                    continue
                try:
                    os.kill(int(found.group(1)), 0)
                    continue  # still running (or the id is another's now): left alone
                except ProcessLookupError:
                    pass
                except (PermissionError, OverflowError):  # another user's; no such id
                    continue
                if entry.is_dir(follow_symlinks=False):
                    shutil.rmtree(entry.path, ignore_errors=True)
                else:
                    os.unlink(entry.path)


def _beside(real: Path) -> tuple[Path, int] | None:
    """A new empty file beside `real` (`_working_name`) and its descriptor, or None where
    its directory takes no new file. What killed writes of it left there goes first."""
    _clear_stale(real)
    temporary = real.with_name(_working_name(real) + secrets.token_hex(4))
    try:
        # 0o666 less the umask, as `open` makes a file
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    except OSError:
        return None
    return temporary, fd


@contextlib.contextmanager
def _spooled(mode: str, options: dict[str, Any]) -> Iterator[tuple[IO[Any], IO[bytes]]]:
    """A stream to write the text of `mode` and `options` to, kept in memory (on disk past
    64 MB), and the bytes it holds."""
    with tempfile.SpooledTemporaryFile(max_size=64 << 20) as spool:
        if "b" in mode:
            yield spool, spool  # type: ignore[misc]
            return
        text = io.TextIOWrapper(spool, **options)  # type: ignore[arg-type]
        try:
            yield text, spool  # type: ignore[misc]
        finally:
            text.flush()
            text.detach()  # the spool stays open for the copy


def _copy_over(finished: IO[bytes], target: Path) -> None:
    """The finished text `finished` copied over the file `target`, which keeps its name,
    links, owner and place: written over its old bytes from the start and cut to its length
    at the end, never emptied first. The room it needs beyond the old file's size is taken
    first (`posix_fallocate`), so that a device too full for it fails before a byte of the
    old file changes (before, the file was emptied, then cut where the device filled up)."""
    size = finished.seek(0, os.SEEK_END)
    finished.seek(0)
    # not truncated: the old text stays until replaced (a file not there yet is made, as
    # `open` makes it, and says why it cannot be)
    fd = os.open(target, os.O_WRONLY | os.O_CREAT, 0o666)
    # Ctrl-C and SIGTERM held back until the copy is whole and cut to its length (one in
    # the middle left the new text's start, then the old text, then the room reserved)
    with signals_after():
        _copy_into(finished, fd, size)


def _copy_into(finished: IO[bytes], fd: int, size: int) -> None:
    """`_copy_over`'s copy of the `size` bytes of `finished` over the file open at `fd`."""
    try:
        old = os.fstat(fd).st_size
        reserve = getattr(os, "posix_fallocate", None)  # not on macOS: written as it comes
        if size > old and reserve is not None:
            try:
                reserve(fd, old, size - old)
            except OSError as exc:
                os.ftruncate(fd, old)  # whatever the call took before it failed
                if exc.errno in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG):
                    raise
                # a file system that cannot reserve room (EOPNOTSUPP, EINVAL): written as
                # it comes, as before
        with open(fd, "wb", closefd=False) as out:
            shutil.copyfileobj(finished, out)
        os.ftruncate(fd, size)
    finally:
        os.close(fd)
