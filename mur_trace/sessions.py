"""Finding trace files: workdirs, session directories and literal paths."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from .errors import E_IO_001, E_IO_003, E_TRC_002, MurTraceError

TRACE_FILE = "trace.jsonl"
DEFAULT_WORKDIR = Path("workdir")


def session_dirs(workdir: Path) -> list[str]:
    """Names of the `ses_*` directories of a workdir, sorted (oldest first: ids are UUID v7)."""
    try:
        with os.scandir(workdir) as entries:
            return sorted(e.name for e in entries if e.name.startswith("ses_") and e.is_dir())
    except FileNotFoundError:
        return []
    except OSError as exc:
        raise MurTraceError(E_IO_003, f"failed to read {workdir}: {exc.strerror}") from None


def workdir_traces(workdir: Path) -> list[str]:
    """Every `ses_*/trace.jsonl` of a workdir, oldest session first."""
    if not workdir.is_dir():
        raise MurTraceError(E_IO_001, f"workdir not found: {workdir}")
    traces = [workdir / name / TRACE_FILE for name in session_dirs(workdir)]
    found = [str(t) for t in traces if t.is_file()]
    if not found:
        raise MurTraceError(E_TRC_002, f"no sessions found in workdir at {workdir}")
    return found


def discover(
    paths: Iterable[str | os.PathLike[str]] | None, workdir: Path | None = None
) -> list[str]:
    """Trace files named by `paths` (files, session directories, workdirs, in any mix).

    With no paths, every session of `workdir` (default `./workdir`). A path that does not
    exist is an E-IO-001 error; a file named twice is read once.
    """
    paths = list(paths or [])
    if not paths:
        return workdir_traces(workdir or DEFAULT_WORKDIR)
    found: list[str] = []
    for raw in paths:
        path = Path(raw)
        if path.is_file():
            found.append(str(path))
        elif path.is_dir():
            trace = path / TRACE_FILE
            found.extend([str(trace)] if trace.is_file() else workdir_traces(path))
        else:
            raise MurTraceError(E_IO_001, f"trace file not found: {path}")
    seen: set[str] = set()
    unique = []
    for trace in found:
        key = os.path.realpath(trace)
        if key not in seen:
            seen.add(key)
            unique.append(trace)
    return unique
