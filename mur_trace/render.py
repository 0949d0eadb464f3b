"""Rendering, shared by every command: text, JSON Lines, CSV and Parquet.

Library code returns relations; this module is the one place that turns them into bytes.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import shutil
import signal
import stat
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from enum import StrEnum
from pathlib import Path
from typing import Any, BinaryIO, TextIO

import duckdb

from . import queries
from .errors import visible

RULE = "─"

#: Rows per Arrow batch when a dataset is written.
DATASET_BATCH_ROWS = 256 * 1024


class Format(StrEnum):
    """Output formats of the row-producing commands."""

    text = "text"
    jsonl = "jsonl"
    csv = "csv"
    parquet = "parquet"


def section(title: str, width: int = 49) -> str:
    """A section heading as `mur trace show` prints it: `── Title ───…` (49 columns)."""
    head = f"── {title} "
    return head + RULE * (width - len(head))


def records(rel: duckdb.DuckDBPyRelation) -> Iterator[dict[str, Any]]:
    """The rows of a relation as dicts, in its column order."""
    columns = rel.columns
    for row in rel.fetchall():
        yield dict(zip(columns, row, strict=True))


def _pipe_fd(out: TextIO) -> int | None:
    """The descriptor of `out` when it is a pipe or a device (a terminal, /dev/null), which
    rows are streamed into (`_copy`); None for regular files (reopening one would truncate
    it, even when it was opened to append) and for streams without a descriptor."""
    try:
        fd = out.fileno()
        mode = os.fstat(fd).st_mode
    except (OSError, ValueError, io.UnsupportedOperation):
        return None
    usable = stat.S_ISFIFO(mode) or stat.S_ISCHR(mode)
    return fd if usable and os.path.isdir("/dev/fd") else None


def _copy(rel: duckdb.DuckDBPyRelation, out: TextIO, options: str) -> None:
    """DuckDB writes the rows (far faster than a Python loop): as a stream into a pipe or a
    device, else into a temporary file we pass on."""
    fd = _pipe_fd(out)
    if fd is not None:
        out.flush()
        _stream(rel, fd, options)
        return
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "rows"
        target = str(path).replace("'", "''")  # a SQL string literal, whatever TMPDIR holds
        rel.query("rows", f"COPY rows TO '{target}' ({options})")
        with open(path, encoding="utf-8", newline="") as rows:
            shutil.copyfileobj(rows, out)


def _stream(rel: duckdb.DuckDBPyRelation, fd: int, options: str) -> None:
    """The rows into the pipe or device `fd`, through a pipe of this process that a thread
    empties into it. DuckDB locks the file it copies into: written into `fd` itself, a
    second process writing into the same device at once (/dev/null, /dev/full) failed with
    `Could not set lock on file "/dev/fd/1"`. A failure to write `fd` is raised as the
    OSError it was (EPIPE: the reader is gone; ENOSPC: the device is full). Ctrl-C or
    SIGTERM while the reader of `fd` reads nothing (a pager left open) cuts the stream:
    otherwise DuckDB, blocked writing, never returns to let Python act on the signal."""
    source, sink = os.pipe()
    failed: list[OSError] = []
    reading = threading.Lock()  # held while `source` is this pipe's and open
    source_open = [True]
    was_cut = threading.Event()

    def drain() -> None:
        try:
            while chunk := os.read(source, 1 << 20):
                view = memoryview(chunk)
                while view:
                    view = view[os.write(fd, view) :]
        except OSError as exc:  # closing `source` makes DuckDB's next write fail
            failed.append(exc)
        finally:
            with reading:
                source_open[0] = False
                os.close(source)

    def cut() -> None:
        """`source` made a pipe at its end: DuckDB's writes fail (EPIPE), so it returns
        and Python raises the signal's exception; the drain, blocked or not, stops."""
        with reading:
            if source_open[0]:  # else the number may be another file's by now
                ended, unused = os.pipe()
                os.close(unused)
                os.dup2(ended, source)
                os.close(ended)
                was_cut.set()

    thread = threading.Thread(target=drain, name="mur-trace rows", daemon=True)
    thread.start()
    try:
        with _on_signal(cut):
            rel.query("rows", f"COPY rows TO '/dev/fd/{sink}' ({options}, USE_TMP_FILE false)")
    except BaseException as exc:  # an error, an interrupt: what is left unsent is dropped
        os.close(sink)
        if isinstance(exc, duckdb.IOException):  # why DuckDB's write failed: the thread's
            if was_cut.is_set():  # (a handler that raised nothing: stopped all the same, not a
                raise KeyboardInterrupt from None  # reader gone, which exits 0 in silence)
            thread.join(timeout=1.0)  # (not waiting on a writer DuckDB may not have closed)
            if failed:
                raise failed[0] from None
        raise
    os.close(sink)
    thread.join()  # the rows all sent
    if failed:
        raise failed[0]
    if was_cut.is_set():  # cut as the last rows went: not all of them were sent
        raise KeyboardInterrupt


#: The signals that stop a command (`_on_signal`).
STOPPING = frozenset({signal.SIGINT, signal.SIGTERM})


@contextlib.contextmanager
def _on_signal(action: Callable[[], None]) -> Iterator[None]:
    """`action` run in a thread as soon as Ctrl-C or SIGTERM arrives (`STOPPING`; another
    signal a program handles, SIGUSR1, is none of ours), while the main thread waits in
    DuckDB, where Python runs no handler until it returns. Python's wakeup descriptor
    tells the thread; where it is not ours to take (a thread other than the main one, an
    event loop that set its own), the block runs as it is."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    woken, wake = os.pipe()
    os.set_blocking(wake, False)
    before = signal.set_wakeup_fd(wake)
    if before != -1:  # an event loop's: put back at once
        signal.set_wakeup_fd(before)
        os.close(woken)
        os.close(wake)
        yield
        return

    def watch() -> None:
        while numbers := os.read(woken, 64):  # the signals' numbers; none once `wake` closes
            if any(number in STOPPING for number in numbers):
                action()

    watcher = threading.Thread(target=watch, name="mur-trace signals", daemon=True)
    watcher.start()
    try:
        yield
    finally:
        signal.set_wakeup_fd(-1)
        os.close(wake)
        watcher.join()
        os.close(woken)


def write_jsonl(rel: duckdb.DuckDBPyRelation, out: TextIO) -> None:
    """One JSON object per row, keys in column order."""
    _copy(rel, out, "FORMAT json")


def write_csv(rel: duckdb.DuckDBPyRelation, out: TextIO) -> None:
    """CSV with a header row."""
    _copy(rel, out, "FORMAT csv, HEADER true")


def write_parquet(rel: duckdb.DuckDBPyRelation, out: Path | BinaryIO) -> None:
    """The rows as one Parquet file, written to a path or an open binary file (a pipe)."""
    import pyarrow.parquet as pq

    pq.write_table(rel.to_arrow_table(), out)


def write_dataset(
    rel: duckdb.DuckDBPyRelation, directory: Path, partition_by: str | None, part: int = 0
) -> tuple[int, Any]:
    """A relation as a Parquet dataset (hive-partitioned when asked), its files named
    `part-<part>-<i>.parquet` beside what is there; returns its rows and its Arrow schema.
    The rows stream from DuckDB in batches: a fleet's events are never in memory twice. No
    rows write no file (`write_empty_dataset` writes one when no batch had any)."""
    import pyarrow.dataset as ds

    reader = rel.to_arrow_reader(DATASET_BATCH_ROWS)
    rows = 0

    def counted() -> Iterator[Any]:
        nonlocal rows
        for batch in reader:
            rows += batch.num_rows
            yield batch

    ds.write_dataset(
        counted(),
        directory,
        schema=reader.schema,
        format="parquet",
        partitioning=[partition_by] if partition_by else None,
        partitioning_flavor="hive" if partition_by else None,
        existing_data_behavior="overwrite_or_ignore",
        basename_template=f"part-{part}-{{i}}.parquet",
    )
    return rows, reader.schema


def write_empty_dataset(schema: Any, directory: Path) -> None:
    """A dataset of no rows as one Parquet file of `schema` (its columns, the partition
    columns among them): what reads it finds its columns and no row, where a directory of
    no file is an error to DuckDB (`No files found`) and to Spark."""
    import pyarrow.parquet as pq

    directory.mkdir(parents=True, exist_ok=True)
    pq.write_table(schema.empty_table(), directory / "part-0-0.parquet")


class Progress:
    """A one-line progress report on a terminal's stderr; silent when stderr is piped, or
    closed (`2>&-`: Python's `sys.stderr` is None, and the command failed on it)."""

    def __init__(self, what: str, stream: TextIO | None = None) -> None:
        import sys

        self.stream = stream or sys.stderr
        self.enabled = self.stream is not None and self.stream.isatty()
        self.what = what
        self.started = time.monotonic()

    def __call__(self, done: int, total: int, events: int) -> None:
        if not self.enabled:
            return
        elapsed = max(time.monotonic() - self.started, 1e-9)
        width = 24
        filled = int(width * done / total) if total else width
        self.stream.write(
            f"\r{self.what} [{'#' * filled}{'.' * (width - filled)}] {done:,}/{total:,} files, "
            f"{events:,} events, {events / elapsed:,.0f} events/s"
        )
        if done >= total:
            self.stream.write("\n")
        self.stream.flush()


def write_rows(rel: duckdb.DuckDBPyRelation, fmt: Format, out: TextIO) -> None:
    """Rows in a machine format (jsonl or csv) to a text stream."""
    if fmt is Format.jsonl:
        write_jsonl(rel, out)
    elif fmt is Format.csv:
        write_csv(rel, out)
    else:
        raise ValueError(f"{fmt.value} is not a row format for a text stream")


def redundant_line(turn: int, tool_name: str | None, resource: str | None, prior_turn: int) -> str:
    """One redundant call, in `mur trace show`'s format: the few of one session. The many of
    `redundant` and `loops` are rendered by queries/render/findings_text.sql, the same way."""
    return f"  turn {turn}  {shown(tool_name)}  {shown(resource)}  (re-reads turn {prior_turn})"


def _plural(n: int, word: str) -> str:
    return f"{n:,} {word}{'' if n == 1 else 's'}"


#: The waste totals of findings that carry waste columns (context policy, loops).
WASTE = ("output_bytes", "duration_ms", "est_tokens", "context_tokens")


def write_findings_text(
    findings: duckdb.DuckDBPyRelation,
    sessions_analysed: int,
    out: TextIO,
    file_sessions: duckdb.DuckDBPyRelation | None = None,
    *,
    noun: str = "redundant call",
    verb: str = "re-reads",
) -> None:
    """Findings grouped by session, in `mur trace` line format, with a total.

    A block is a trace file, or each session of a file in `file_sessions` (of the findings'
    connection: queries/events/file_sessions.sql). DuckDB renders the blocks
    (queries/render/findings_text.sql): a fleet has hundreds of thousands of findings, and
    a Python loop over them took longer than finding them.
    """
    if file_sessions is not None:
        files = file_sessions.select("trace_path AS file_of_sessions")
        findings = findings.join(files, "trace_path = file_of_sessions", how="left")
    columns = findings.columns
    has_waste = "est_tokens" in columns
    missing = {"rule": "VARCHAR", "est_tokens": "BIGINT", "context_tokens": "BIGINT"}
    shaped = findings.select(
        *(
            duckdb.SQLExpression(name if name in columns else f"NULL::{missing[name]} AS {name}")
            for name in ("session_id", "trace_path", "line", "turn", "tool_name", "resource",
                         "prior_turn", "output_bytes", "duration_ms", *missing)
        ),
        duckdb.ConstantExpression(verb).alias("verb"),
        duckdb.SQLExpression(
            "file_of_sessions IS NOT NULL" if file_sessions is not None else "false"
        ).alias("apart"),
    )  # fmt: skip
    blocks = shaped.query("findings", queries.get("render/findings_text").sql)
    total = sessions_with = 0
    waste = dict.fromkeys(WASTE, 0)
    for _path, text, count, *sums in blocks.fetchall():
        out.write(text)
        total += count
        sessions_with += 1
        for key, value in zip(WASTE, sums, strict=True):
            waste[key] += value or 0
    out.write(
        f"total:      {_plural(total, noun)} in {sessions_with:,} of "
        f"{_plural(sessions_analysed, 'session')}\n"
    )
    if has_waste and total:
        out.write(
            f"waste:      {thousands(waste['output_bytes'])} bytes, "
            f"{_opt_duration(waste['duration_ms'])}, {thousands(waste['est_tokens'])} tokens "
            f"re-read, {thousands(waste['context_tokens'])} tokens re-sent\n"
        )


# ── `mur trace` formats ────────────────────────────────────────────────────────

INPUT_INLINE_LIMIT = 120
STEPS_SUMMARY_LIMIT = 60


class DocFormat(StrEnum):
    """Output formats of the report-like commands (show, steps, diff, report)."""

    text = "text"
    json = "json"


def thousands(n: float | None) -> str:
    """`5,840`: an integer with thousands separators (truncated, as `mur trace` does)."""
    return f"{int(n or 0):,}"


def duration(ms: float | None) -> str:
    """`820ms` below one second, `1.2s` from one second up."""
    ms = int(ms or 0)
    return f"{ms}ms" if ms < 1000 else f"{ms / 1000:.1f}s"


def _opt(value: float | None, fmt: str = ".0f") -> str:
    return "—" if value is None else format(value, fmt)


def _opt_duration(ms: float | None) -> str:
    return "—" if ms is None else duration(ms)


def _opt_thousands(n: float | None) -> str:
    return "—" if n is None else thousands(n)


def shown(value: Any) -> str:
    """A value from a trace as text prints it: `—` when missing, control characters escaped
    (a trace cannot move the cursor, colour the terminal or forge a line of output)."""
    return "—" if value is None else visible(str(value))


def canonical_json(value: str | None) -> str:
    """Compact JSON with keys in byte order, as `mur trace` prints inputs. A value nested
    too deep for Python's parser is printed as DuckDB holds it (keys in their order)."""
    if value is None:
        return ""
    try:
        parsed = json.loads(value)
        text = json.dumps(parsed, separators=(",", ":"), sort_keys=True, ensure_ascii=False)
    except (RecursionError, ValueError):  # too deep, or a number past Python's digit limit
        text = value
    return visible(text)


def _cut(text: str, limit: int) -> str:
    return text[:limit] + "…" if len(text) > limit else text


def input_inline(value: str | None) -> str:
    """A tool call's input as `show` appends it: two spaces, JSON cut at 120 characters."""
    return "" if value is None else "  " + _cut(canonical_json(value), INPUT_INLINE_LIMIT)


def first_string(value: Any) -> str | None:
    """The first string in a JSON value, depth first, object keys in byte order (without
    recursion: a value may be nested thousands deep)."""
    pending = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, str):
            return item
        if isinstance(item, dict):
            pending.extend(item[k] for k in sorted(item, reverse=True))
        elif isinstance(item, list):
            pending.extend(reversed(item))
    return None


#: A JSON string literal, and whether a `:` follows it (then it is a key).
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"(\s*:)?')


def _first_string_of(raw: str) -> str | None:
    """`first_string` of a JSON text; too deep for Python's parser, its first string value
    as written (keys in their order)."""
    try:
        return first_string(json.loads(raw))
    except (RecursionError, ValueError):  # too deep, or a number past Python's digit limit
        values = (m for m in _STRING.finditer(raw) if m.group(1) is None)
        found = next(values, None)
        return json.loads(found.group()) if found else None


def input_summary(inputs: list[str]) -> str:
    """`steps --verbose`: the first string of the first input that has one, cut at 60; the
    empty string is one, shown `""`, as `mur trace` shows it (it was passed over)."""
    for raw in inputs:
        found = _first_string_of(raw)
        if found is not None:
            return f'"{visible(_cut(found, STEPS_SUMMARY_LIMIT))}"'
    return ""


def exit_codes_text(codes: Iterable[tuple[int | None, int]]) -> str:
    """`2 ok, 1 failed (exit 2)`: successes first, then failures by exit code."""
    counts = dict(codes)
    parts = [f"{counts[0]} ok"] if counts.get(0) else []
    failed = sorted((code, n) for code, n in counts.items() if code not in (0, None))
    parts += [f"{n} failed (exit {code})" for code, n in failed]
    if counts.get(None):  # a command still running, or killed: no exit code
        parts.append(f"{counts[None]} with no exit code")
    # none recorded (a log that counts its shell calls but says nothing of how they ended)
    return ", ".join(parts) or "—"


def _icon(status: str | None) -> str:
    return "✓" if status == "ok" else "✗"


def _one(rel: duckdb.DuckDBPyRelation) -> dict[str, Any]:
    (row,) = list(records(rel))
    return row


def show_data(view: Any) -> dict[str, Any]:
    """A SessionShow as plain data: the JSON document of `show --format json`."""
    return {
        "metrics": _one(view.metrics),
        "tool_turns": list(records(view.tool_turns)),
        "redundant_calls": list(records(view.redundant)),
        "skill_turns": list(records(view.skill_turns)),
        "shell_exit_codes": list(records(view.exit_codes)),
        "reopens": list(records(view.reopens)),
        "tasks": list(records(view.tasks)),
    }


def _calls_summary(m: dict[str, Any], total: str, kind: str) -> list[str]:
    """`count:` and `latency:` of tool or skill calls, as `show` prints them."""
    # a total the trace does not give (a session_end without it) is unknown, and so is the
    # share of it that succeeded
    success = "—" if m[total] is None else f"{m[f'{kind}_success_pct'] or 0:.1f}%"
    return [
        f"count:      {_opt(m[total])}  ({m[f'{kind}_ok']} ok, {m[f'{kind}_error']} error)"
        f"  success {success}",
        f"latency:    avg {_opt_duration(m[f'avg_{kind}_ms'])}",
    ]


def _session_heads(rows: list[dict[str, Any]], several: bool) -> Iterator[tuple[str | None, dict]]:
    """The rows of a listing, each with the line that names its session before it when it
    is the first of that session in a file of several sessions (else None)."""
    last = object()
    for row in rows:
        head = None
        if several and row["session_id"] != last:
            head = f"  session {shown(row['session_id'])}"
        last = row["session_id"]
        yield head, row


def show_text(data: dict[str, Any]) -> str:
    """`mur trace show`'s sections, in its order and line formats."""
    m = data["metrics"]
    several = (m["sessions_in_file"] or 0) > 1
    # what the trace does not say is printed as unknown, never as 0 (another agent's log
    # without token counts, a session with no session_end)
    given = (m["total_input_tokens"], m["total_output_tokens"])
    tokens = None if None in given else sum(given)
    out = [
        section("Session"),
        f"session:    {shown(m['session_id'])}",
        *(  # an OpenHands output holds one session a line: what follows counts them all
            [f"sessions:   {m['sessions_in_file']} in this file, counted together below"]
            if several
            else []
        ),
        f"capsule:    {shown(m['capsule_name'])}"
        + ("" if m["capsule_version"] is None else f" v{shown(m['capsule_version'])}"),
        f"model:      {shown(m['model'])}",
        f"status:     {shown(m['exit_status'] or 'unknown')}",
        f"duration:   {_opt_duration(m['duration_ms'])}",
        "",
        section("Turns"),
        f"count:      {_opt(m['total_turns'])}  (max: {_opt(m['max_turns'])})",
        "",
        section("Tokens"),
        f"input:      {_opt_thousands(m['total_input_tokens'])}  "
        f"(avg {_opt(m['avg_input_per_turn'])}/turn)",
        f"output:     {_opt_thousands(m['total_output_tokens'])}  "
        f"(avg {_opt(m['avg_output_per_turn'])}/turn)",
        f"total:      {_opt_thousands(tokens)}",
        "",
        section("Tool calls"),
    ]
    # upstream's count is session_end's; unknown there, the calls the trace has are shown
    if (
        m["total_tool_calls"] == 0
        or m["total_tool_calls"] is None
        and not (m["tool_ok"] or m["tool_error"])
    ):
        out.append("count:      0")
    else:
        out += _calls_summary(m, "total_tool_calls", "tool")
        for head, turn in _session_heads(data["tool_turns"], several):
            out += [head] if head else []
            if turn["calls"]:
                parts = [
                    f"{shown(c['name'])} {_opt_duration(c['duration_ms'])} {_icon(c['status'])}"
                    + input_inline(c["input"])
                    for c in turn["calls"]
                ]
                out.append(f"  turn {turn['turn']}  " + "  ".join(parts))
            else:
                out.append(f"  turn {turn['turn']}  {shown(turn['decision'])}")
    out += ["", section("Redundant calls"), f"count:      {len(data['redundant_calls'])}"]
    for head, f in _session_heads(data["redundant_calls"], several):
        out += [head] if head else []
        out.append(redundant_line(f["turn"], f["tool_name"], f["resource"], f["prior_turn"]))
    out += ["", section("Skill calls")]
    if not m["skill_calls"]:
        out.append("count:      0")
    else:
        out += _calls_summary(m, "skill_calls", "skill")
        for head, turn in _session_heads(data["skill_turns"], several):
            out += [head] if head else []
            parts = [
                f"{shown(c['name'])} {_opt_duration(c['duration_ms'])} {_icon(c['status'])}"
                for c in turn["calls"]
            ]
            out.append(f"  turn {turn['turn']}  " + "  ".join(parts))
    out += ["", section("Shell calls")]
    ran = m["avg_shell_ms"] is not None or data["shell_exit_codes"]
    if m["total_shell_calls"] == 0 or m["total_shell_calls"] is None and not ran:
        out.append("count:      0")
    else:
        codes = [(c["exit_code"], c["commands"]) for c in data["shell_exit_codes"]]
        out.append(f"count:      {_opt(m['total_shell_calls'])}")
        out.append(f"exit codes: {exit_codes_text(codes)}")
        out.append(f"latency:    avg {_opt_duration(m['avg_shell_ms'])}")
    out += ["", section("Compaction")]
    if not m["compactions"]:
        out.append("fired:      no")
    else:
        turn = m["compaction_turn"]
        before, after = m["compaction_before"], m["compaction_after"]
        line = "fired:      yes  " + ("turn unknown" if turn is None else f"at turn {turn}")
        if before is not None or after is not None:
            # a count the trace does not give is shown as unknown, not as 0
            line += f"  ({_opt_thousands(before)} → {_opt_thousands(after)} tokens)"
        out.append(line)
    if data["reopens"]:
        out += ["", section("Reopens")]
        out += [
            f"reopen {r['reopen_number']}  by {shown(r['hook_name'])}  "
            f"“{visible((r['reason'] or '')[:80])}”"
            for r in data["reopens"]
        ]
    if len(data["tasks"]) > 1:
        out.append(section("Tasks", width=48))
        for i, t in enumerate(data["tasks"], start=1):
            reopens = f"  reopens: {t['reopen_count']}" if t["reopen_count"] else ""
            out.append(
                f"task {i}  {shown((t['task_id'] or '')[:12])}  turns: {t['turns']}  "
                f"in: {thousands(t['input_tokens'])}  out: {thousands(t['output_tokens'])}  "
                f"{shown(t['exit_status'])}  {duration(t['duration_ms'])}{reopens}"
            )
    return "\n".join(out) + "\n"


def steps_data(session_id: str, rel: duckdb.DuckDBPyRelation) -> dict[str, Any]:
    """`steps --format json`: the session and one object per inference turn."""
    rows = list(records(rel))
    for row in rows:
        row["input_summary"] = input_summary(row.pop("inputs"))
    return {"session_id": session_id, "steps": rows}


def steps_text(data: dict[str, Any], verbose: bool) -> str:
    """`mur trace steps`: one row per inference turn, tool names padded to one width."""
    steps = data["steps"]
    n = len(steps)
    out = [f"Session {shown(data['session_id'])}  ({n} turn{'' if n == 1 else 's'})", ""]
    width = max([len(s["tool_name"] or "—") + 1 for s in steps] + [12])
    for s in steps:
        tool = f"{shown(s['tool_name']):<{width}}"
        took = "—" if s["duration_ms"] is None else duration(s["duration_ms"])
        head = f"  {s['turn']:<3}{visible(s['decision'] or ''):<13}{tool}"
        if verbose and s["input_summary"]:
            out.append(f"{head}{took:<5}   {s['input_summary']}")
        else:
            out.append(f"{head}{took}")
    out.append("")
    return "\n".join(out) + "\n"


DIFF_LABELS = {
    "turns": "turns",
    "duration_ms": "duration",
    "input_tokens": "input tokens",
    "output_tokens": "output tokens",
    "input_per_turn": "input/turn (avg)",
    "output_per_turn": "output/turn (avg)",
    "tool_calls": "tool calls",
    "tool_success_pct": "tool success rate",
    "avg_tool_ms": "avg tool latency",
    "redundant_calls": "redundant calls",
    "skill_calls": "skill calls",
    "shell_calls": "shell calls",
    "avg_shell_ms": "avg shell latency",
    "compaction": "compaction",
    "exit_status": "exit status",
}


def _diff_value(row: dict[str, Any], side: str) -> str:
    value = row[side]
    kind, metric = row["kind"], row["metric"]
    if kind == "text":
        return shown(row[f"{side}_text"])
    if value is None:
        return "—"
    if kind == "ms":
        return duration(value)
    if kind == "pct":
        return f"{value:.1f}%"
    if kind == "avg":
        return f"{value:.0f}"
    return thousands(value) if metric.endswith("tokens") else str(int(value))


def _diff_delta(row: dict[str, Any]) -> str:
    better = row["better"]
    if better is None:
        return "—"
    if better == "=":
        return "="
    delta, marker = row["delta"], f" ({better} better)"
    if row["kind"] == "ms":
        return f"{'-' if delta < 0 else '+'}{duration(abs(delta))}{marker}"
    if row["kind"] in ("avg", "pct"):
        return f"{delta:+.1f}{marker}"
    return f"{int(delta):+d}{marker}"


def diff_text(rows: list[dict[str, Any]]) -> str:
    """`mur trace diff`'s table: Metric, Run A, Run B, Delta with better/worse markers."""
    out = [f"{'Metric':<22} {'Run A':<16} {'Run B':<16} Delta"]
    out.append(f"{RULE * 22} {RULE * 16} {RULE * 16} {RULE * 26}")
    for row in rows:
        out.append(
            f"{DIFF_LABELS[row['metric']]:<22} {_diff_value(row, 'a'):<16} "
            f"{_diff_value(row, 'b'):<16} {_diff_delta(row)}"
        )
    return "\n".join(out) + "\n"


REPORT_LABELS = {
    "turns": ("turns", ".1f"),
    "duration_ms": ("duration (ms)", ","),
    "input_tokens": ("input tokens", ","),
    "output_tokens": ("output tokens", ","),
    "tool_calls": ("tool calls", ".1f"),
    "tool_success_pct": ("tool success (%)", ".1f"),
    "shell_calls": ("shell calls", ".1f"),
    "redundant_calls": ("redundant calls", ".1f"),
    "redundant_tokens": ("redundant tokens", ","),
    "redundant_context_tokens": ("re-sent tokens", ","),
    "task_turns": ("task turns", ".1f"),
    "task_input_tokens": ("task input tokens", ","),
    "task_output_tokens": ("task output tokens", ","),
    "task_duration_ms": ("task duration (ms)", ","),
}


def _stat(value: float, fmt: str) -> str:
    return thousands(value) if fmt == "," else format(value, fmt)


def _stats_table(rows: list[dict[str, Any]]) -> list[str]:
    out = [f"{'Metric':<22} {'Mean':<14} {'StdDev':<14} {'Min':<14} Max"]
    out.append(" ".join([RULE * 22] + [RULE * 14] * 4))
    for row in rows:
        label, fmt = REPORT_LABELS[row["metric"]]
        values = [_stat(row[k], fmt) for k in ("mean", "stddev", "min", "max")]
        out.append(f"{label:<22} {values[0]:<14} {values[1]:<14} {values[2]:<14} {values[3]}")
    return out


def report_data(report: Any, source: str) -> dict[str, Any]:
    """A Report as plain data: the JSON document of `report --format json`."""
    return {
        "source": source,
        "sessions": list(records(report.sessions)),
        "shell_exit_codes": list(records(report.exit_codes)),
        "stats": list(records(report.stats)),
        "exit_status": list(records(report.exit_status)),
        "task_stats": list(records(report.task_stats)),
        "skipped": [s.message for s in report.skipped],
    }


def skipped_note(incomplete: int) -> str:
    """`mur trace report`'s note on stderr: how many sessions it left out as incomplete."""
    return f"note: skipped {incomplete} incomplete session(s)"


def _short_id(session_id: str) -> str:
    return session_id[:12] + "..." if len(session_id) > 12 else session_id


def report_text(data: dict[str, Any]) -> str:
    """`mur trace report`: a block per session, the statistics, the exit statuses."""
    codes: dict[tuple[str, str], list[tuple[int, int]]] = {}
    for c in data["shell_exit_codes"]:
        codes.setdefault((c["trace_path"], c["session_id"]), []).append(
            (c["exit_code"], c["commands"])
        )
    out: list[str] = []
    for s in data["sessions"]:
        turns = s["total_turns"]
        # a Murmur session (`ses_...`) by its id cut as `mur trace` cuts it; another
        # agent's by its whole id: a session, its subagents and an OpenHands output's
        # instances share their first characters (three sessions were `4d5611e5-241...`)
        sid = s["session_id"] or ""
        out += [
            f"Session {shown(_short_id(sid) if sid.startswith('ses_') else sid)}  "
            f"{_opt_duration(s['duration_ms'])}  {_opt(turns)} turn{'' if turns == 1 else 's'}",
            "",
        ]
        calls = f"  {'Tool calls:':<14} {_opt(s['total_tool_calls'])}"
        if s["tool_error"]:
            calls += f"  ({s['tool_ok']} ok, {s['tool_error']} error)"
        out.append(calls)
        if s["total_shell_calls"]:
            out.append(
                f"  {'Shell calls:':<14} {s['total_shell_calls']}  exit codes: "
                f"{exit_codes_text(codes.get((s['trace_path'], s['session_id']), []))}"
            )
        if s["redundant_calls"]:
            out.append(f"  Redundant calls: {s['redundant_calls']}")
        if s["avg_tool_ms"] is not None:
            shell = "" if s["avg_shell_ms"] is None else f"  shell {duration(s['avg_shell_ms'])}"
            out.append(f"  {'Avg latency:':<14} tool {duration(s['avg_tool_ms'])}{shell}")
        out.append("")
    out += [f"Sessions: {len(data['sessions'])}  ({shown(data['source'])})", ""]
    out += _stats_table(data["stats"])
    out += ["", "Exit status:"]
    out += [
        f"  {shown(e['exit_status'] or 'unknown'):<24} {e['sessions']}  ({e['percent']:.1f}%)"
        for e in data["exit_status"]
    ]
    if data["task_stats"]:
        out += ["", section("Per-task averages (multi-task sessions only)", width=62)]
        out += _stats_table(data["task_stats"])
        out.append(f"Tasks: {data['task_stats'][0]['tasks']}")
    return "\n".join(out) + "\n"


def ingest_text(report: Any, db: Path) -> str:
    """What an ingest did, in one line."""
    return (
        f"{visible(str(db))}: {report.new:,} new, {report.appended:,} appended, "
        f"{report.rewritten:,} rewritten, {report.unchanged:,} unchanged, "
        f"{report.deleted:,} deleted traces; "
        f"{report.events:,} events added"
        # stored, so that a command over the catalog says why each cannot be analysed
        + (f"; {len(report.skipped):,} cannot be read (named above)" if report.skipped else "")
        # a trace whose file changed and cannot be read keeps the events the catalog held
        + (f", {report.kept:,} of them kept as the catalog held them" if report.kept else "")
        # a held trace whose path now leads to another trace's file
        + (
            f"; {report.linked:,} kept as the catalog held them: their paths now lead to "
            "other traces"
            if report.linked
            else ""
        )
        + "\n"
    )


def check_text(failures: list[dict[str, Any]], sessions: int) -> str:
    """`check`: one line per session over a threshold, then the verdict."""
    out = [f"FAIL  {shown(f['session_id'])}  {'; '.join(f['violations'])}" for f in failures]
    if failures:
        out.append(f"{len(failures)} of {_plural(sessions, 'session')} over the thresholds")
    else:
        out.append(f"ok: {_plural(sessions, 'session')} within the thresholds")
    return "\n".join(out) + "\n"


def check_data(failures: list[dict[str, Any]], sessions: int, skipped: list[Any]) -> dict:
    """`check -f json`: what the text says (the sessions checked, those over a threshold)
    and the sessions left out, as `report -f json` lists them (a list of the failures
    alone could not tell seven sessions within the thresholds from none checked)."""
    return {
        "sessions": sessions,
        "over_thresholds": failures,
        "skipped": [s.message for s in skipped],
    }


def json_document(data: Any) -> str:
    """One JSON document, for scripts."""
    return json.dumps(data, indent=2, ensure_ascii=False, default=str) + "\n"
