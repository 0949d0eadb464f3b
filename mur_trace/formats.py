"""Other agents' session logs: which format a file is in, and where the agents keep them.

Each format but Murmur's own is read by one SQL file, `queries/formats/<format>.sql`, into
the same `events` rows as a Murmur trace (see `load.load_traces`). Here: recognising the
format from a file's first line, and listing the session files of the agents' usual places.
"""

from __future__ import annotations

import json
import os
import re
import stat
from collections.abc import Iterable
from pathlib import Path

from .errors import E_TRC_001, MurTraceError, UsageError

#: Format names as `--format-in` takes them -> the reader's name (queries/formats/<name>.sql);
#: `murmur` is read by queries/load/lines.sql.
FORMATS: dict[str, str] = {
    "murmur": "murmur",
    "claude-code": "claude_code",
    "codex": "codex",
    "openhands": "openhands",
    "otel": "otel",
}

#: The name of Murmur's trace files.
MURMUR_TRACE = "trace.jsonl"

#: How much of a file's start is read to recognise its format (a first line longer than
#: this is recognised from its first keys).
HEAD_BYTES = 1 << 16

#: The `type`s of Claude Code's lines: a first line of one (or that names its `sessionId`)
#: is Claude Code's, and a file none of whose lines is one holds no Claude Code session
#: (queries/formats/claude_code.sql, which reads them as the variable `claude_types`).
CLAUDE_TYPES = {
    "summary",
    "file-history-snapshot",
    "queue-operation",
    "user",
    "assistant",
    "system",
    "progress",
}


def reader(name: str) -> str:
    """The reader of a `--format-in` name; an unknown name is E-TRC-001, a value that is no
    name at all E-CLI-001."""
    if not isinstance(name, str):
        raise UsageError(f"format_in is a format's name ({', '.join(FORMATS)}), not {name!r}")
    if name not in FORMATS:
        raise MurTraceError(
            E_TRC_001, f"unknown format {name!r}; known formats: {', '.join(FORMATS)}"
        )
    return FORMATS[name]


def option_name(reader_name: str) -> str:
    """The `--format-in` name of a reader (`claude_code` -> `claude-code`)."""
    return next(key for key, value in FORMATS.items() if value == reader_name)


def _of_object(first: dict) -> str | None:
    if "event_type" in first:
        return "murmur"
    if "payload" in first and "type" in first:
        return "codex"
    if "instance_id" in first and "history" in first:
        return "openhands"
    kind = first.get("type")
    if (
        "sessionId" in first
        or "parentUuid" in first
        or (isinstance(kind, str) and kind in CLAUDE_TYPES)
    ):
        return "claude_code"
    if _is_otel(first):
        return "otel"
    return None


def _is_otel(first: dict) -> bool:
    """An OpenTelemetry file: OTLP JSON (`resourceSpans`, or the metrics and logs a
    collector writes beside them), or an SDK file exporter's span or metric line."""
    if any(key in first for key in ("resourceSpans", "resourceMetrics", "resourceLogs")):
        return True
    if "traceId" in first and "spanId" in first:
        return True
    return first.get("type") == "metric" and "dataPoints" in first


def _of_prefix(head: str) -> str | None:
    """A first line too long to parse here: its opening keys tell."""
    start = head.lstrip()[:400]
    for marker, name in (
        ('"event_type"', "murmur"),
        ('"instance_id"', "openhands"),
        ('"payload"', "codex"),
        ('"parentUuid"', "claude_code"),
        ('"sessionId"', "claude_code"),
        ('"resourceSpans"', "otel"),
        ('"traceId"', "otel"),
    ):
        if marker in start:
            return name
    return None


def detect(path: str | os.PathLike[str]) -> str:
    """The reader of a session file, from its first line: `murmur`, `claude_code`, `codex`,
    `openhands` or `otel`. What cannot be recognised (`recognise`: an empty file, a first
    line that is not a JSON object, no file at all, a pipe or a device) is read as Murmur's,
    whose loader names what is wrong. A file named `trace.jsonl`, the name Murmur's runtime
    gives its traces, is not opened (a workdir of 20,000 sessions would open every trace
    once more)."""
    if os.path.basename(path) == MURMUR_TRACE:
        return "murmur"
    return recognise(path) or "murmur"


def recognise(path: str | os.PathLike[str]) -> str | None:
    """The reader of a session file by its first line, or None when nothing there says
    (an empty file, a first line that is not a JSON object, a file that cannot be read).
    Only a regular file is read (opening a pipe nobody writes, or reading one, would block
    forever)."""
    try:
        # opened without waiting for a writer, and read only when it is a regular file
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError:
        return None
    try:
        with open(fd, "rb") as f:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                return None
            head = f.read(HEAD_BYTES)
    except OSError:
        return None
    text = head.decode("utf-8", errors="replace")
    first, newline, _ = text.lstrip().partition("\n")
    if newline or len(head) < HEAD_BYTES:
        try:
            value = json.loads(first.strip())  # as the readers trim a line (file_lines)
        except ValueError:
            return None
        return _of_object(value) if isinstance(value, dict) else None
    return _of_prefix(first)


def mismatch(path: str, forced: str, format_in: str) -> str | None:
    """Why a file cannot be read as `--format-in`'s format (reader `forced`): its first line
    says it is another agent's log. None when it may be (nothing says otherwise)."""
    found = recognise(path)
    if found is None or found == forced:
        return None
    return f"{path}: {_named(found)} log, not {format_in} (--format-in {format_in})"


def _named(reader_name: str) -> str:
    """A reader's `--format-in` name with its article: `a codex`, `an openhands`."""
    name = option_name(reader_name)
    return f"{'an' if name[0] in 'aeiou' else 'a'} {name}"


#: How many lines of a file's start `log_kind` looks at.
LOG_LINES = 16


def log_kind(path: str | os.PathLike[str]) -> str | None:
    """What session log a file is, in words (`a Murmur trace`, `a claude-code session log`),
    for a write that must not replace one (`writes.check_overwrite`); None when nothing
    says it is one. Its first line (`recognise`), else any of its first `LOG_LINES` lines:
    after a byte order mark, past a torn or garbage first line, one that is a JSON object a
    reader knows or that names an `event_type` or a `type` (no output of mur-trace has
    either key: GitHub Copilot's `events.jsonl`, a log of no format read here), or one too
    long to read here whose opening keys tell; and a SWE-agent trajectory (one JSON
    document over many lines, with a `"trajectory"` list)."""
    kind = recognise(path)
    if kind is None:
        try:
            with open(path, "rb") as f:
                head = f.read(HEAD_BYTES).decode("utf-8", errors="replace").removeprefix("\ufeff")
        except OSError:
            return None
        if re.match(r'\s*\{\s*"[^"]*"\s*:', head) and re.search(r'"trajectory"\s*:\s*\[', head):
            return "a SWE-agent trajectory"
        kind = _of_lines(head.splitlines()[:LOG_LINES])
    if kind is None:
        return None
    if kind == "murmur":
        return "a Murmur trace"
    return "a log of JSON events" if kind == "log" else f"{_named(kind)} session log"


def _of_lines(lines: list[str]) -> str | None:
    """The reader of the first of `lines` that names one (`log` for a JSON object with a
    `type` or an `event_type` no reader knows); None when none does."""
    for line in lines:
        try:
            value = json.loads(line)
        except ValueError:  # torn, or longer than what was read: its opening keys tell
            kind = _of_prefix(line) if line.lstrip().startswith("{") else None
            if kind is not None:
                return kind
            continue
        if isinstance(value, dict):
            kind = _of_object(value)
            if kind is not None or "type" in value or "event_type" in value:
                return kind or "log"
    return None


# ── the agents' usual places ──────────────────────────────────────────────────


def subagents_folder(session_file: Path) -> Path | None:
    """Where a Claude Code session file keeps its subagents' files (`<session>/subagents/`);
    None for a file that has none (a Murmur trace, a file not named `*.jsonl`)."""
    if session_file.name == "trace.jsonl" or session_file.suffix != ".jsonl":
        return None
    return session_file.with_suffix("") / "subagents"


def subagent_files(session_file: Path) -> list[str]:
    """A Claude Code session's subagents (`<session>/subagents/agent-*.jsonl`), sorted."""
    folder = subagents_folder(session_file)
    try:
        if folder is None or not folder.is_dir():
            return []
        return sorted(str(p) for p in folder.glob("*.jsonl") if p.is_file())
    except OSError:  # an unreadable session directory: the session alone is read
        return []


def with_subagents(path: Path) -> list[str]:
    """A session file, then its Claude Code subagents' files when it has any."""
    return [str(path), *subagent_files(path)]


#: How deep below a directory its agents' session files are looked for: enough for
#: `~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl` from `~/.codex` and for
#: `~/.claude/projects/<project>/<session>/subagents/` from `~/.claude`, not a whole disk.
SEARCH_DEPTH = 5


def _jsonl_below(directory: Path, skip: Iterable[str] = ()) -> list[Path]:
    """The `*.jsonl` files at most SEARCH_DEPTH levels below `directory`, but in its
    subdirectories named in `skip`; links to directories are not followed, and what cannot
    be read (or vanishes) is passed over."""
    found: list[Path] = []
    top = len(directory.parts)
    passed = set(skip)
    for root, dirs, names in os.walk(directory, onerror=lambda error: None):
        here = Path(root)
        if len(here.parts) - top >= SEARCH_DEPTH:
            dirs[:] = []
        elif passed and len(here.parts) == top:
            dirs[:] = [name for name in dirs if name not in passed]
        found.extend(here / name for name in names if name.endswith(".jsonl"))
    return [path for path in found if path.is_file()]


def agent_sessions(directory: Path, beside: Iterable[str] | None = None) -> list[str] | None:
    """The session files of an agent's directory, or None when it is not one.

    A Claude Code project directory (`~/.claude/projects/<project>/`: `<session>.jsonl`
    files, each with its `<session>/subagents/`), a directory of them
    (`~/.claude/projects/`), a Codex sessions tree (`~/.codex/sessions/YYYY/MM/DD/
    rollout-*.jsonl`), or any directory holding `*.jsonl` session files below it: every
    such file, sorted by path, each session's subagents after it. With `beside` (the names
    of a workdir's `ses_*` session directories, which are not looked into), only the files
    whose first line says they are another agent's log: what else lies beside a workdir's
    sessions is no session.
    """
    files = sorted(_jsonl_below(directory, beside or ()))
    if beside is not None:
        files = [p for p in files if recognise(p) not in (None, "murmur")]
    if not files:
        return None
    subagents = {p for p in files if p.parent.name == "subagents"}
    found: list[str] = []
    for path in files:
        if path in subagents:
            continue
        found.extend(with_subagents(path))
    # subagent files whose session file is not there are sessions of their own
    listed = set(found)
    found.extend(str(p) for p in sorted(subagents) if str(p) not in listed)
    return found
