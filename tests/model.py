"""A small pure-Python model of SPEC section 3 (reference redundant-call semantics).

It reads trace text line by line on purpose: it is the oracle the SQL is compared with,
not a competitor on speed.
"""

from __future__ import annotations

import json
import re
from typing import NamedTuple

PATH_KEYS = ("path", "file", "file_path", "filepath", "filename")


class Finding(NamedTuple):
    trace_path: str
    line: int
    turn: int
    resource: str
    prior_line: int
    prior_turn: int


def identity(event: dict) -> tuple[str, str] | None:
    """(resource, resource_source) of a tool_call event, or None."""
    declared = event.get("resource_id")
    if isinstance(declared, str) and declared:
        return declared, "declared"
    data = event.get("input")
    if isinstance(data, dict):
        for name in PATH_KEYS:
            # Python orders str by code point, which is UTF-8 byte order.
            for key in sorted(k for k in data if k.lower() == name):
                if isinstance(data[key], str):
                    return data[key], "path_field"
    return None


def normalise_path(path: str) -> str:
    """The path normalisation of the context policy (rule path_normalisation)."""
    kept: list[str] = []
    for segment in path.split("/"):
        if segment in ("", "."):
            continue
        if segment == ".." and kept and kept[-1] != "..":
            kept.pop()
        else:
            kept.append(segment)
    return ("/" if path.startswith("/") else "") + "/".join(kept) or "."


def turn_of(event: dict) -> int:
    turn = event.get("turn")
    return turn if isinstance(turn, int) and not isinstance(turn, bool) else 0


def redundant_calls(trace_path: str, text: str) -> list[Finding]:
    """Findings of one trace file, in line order."""
    last_read: dict[str, tuple[int, int]] = {}
    found: list[Finding] = []
    for number, raw in enumerate(text.split("\n"), start=1):
        raw = raw.strip(WHITE_SPACE)
        if not raw:
            continue
        event = _parse(raw)
        if event.get("event_type") != "tool_call":
            continue
        resolved = identity(event)
        if resolved is None:
            continue
        resource = resolved[0]
        turn = turn_of(event)
        if event.get("state_effect") == "read":
            if resource in last_read:
                prior_line, prior_turn = last_read[resource]
                found.append(Finding(trace_path, number, turn, resource, prior_line, prior_turn))
            last_read[resource] = (number, turn)
        else:
            last_read.pop(resource, None)
    return found


# ── what loading accepts (README "What happens with bad input") ─────────────────

INTEGER_FIELDS = (
    "timestamp", "turn", "input_tokens", "output_tokens", "input_bytes", "output_bytes",
    "duration_ms", "exit_code", "stdout_bytes", "stderr_bytes", "max_turns", "tokens_before",
    "tokens_after", "total_turns", "total_input_tokens", "total_output_tokens",
    "total_tool_calls", "total_shell_calls", "turns", "tool_calls", "shell_calls",
    "reopen_count", "reopen_number",
)  # fmt: skip


STRING_FIELDS = (
    "event_type", "session_id", "event_id", "parent_id", "task_id", "decision", "tool_name",
    "origin", "status", "skill_name", "binary", "command", "capsule_name", "capsule_version",
    "model", "exit_status", "context_id", "source", "hook_name", "reason",
)  # fmt: skip


#: The fields checked on each event type (SPEC section 2), and on every line COMMON (which
#: loading reads from every line). An unknown event type is never fatal for its own fields.
FIELDS_OF = {
    "session_start": ("capsule_name", "capsule_version", "model", "max_turns"),
    "inference": ("turn", "input_tokens", "output_tokens", "decision", "tool_name", "origin"),
    "tool_call": ("turn", "tool_name", "input_bytes", "output_bytes", "duration_ms", "status"),
    "skill_call": ("turn", "skill_name", "output_bytes", "duration_ms", "status"),
    "shell": ("turn", "binary", "command", "exit_code", "stdout_bytes", "stderr_bytes",
              "duration_ms"),
    "compaction": ("turn", "tokens_before", "tokens_after"),
    "session_end": ("total_turns", "total_input_tokens", "total_output_tokens",
                    "total_tool_calls", "total_shell_calls", "duration_ms", "exit_status"),
    "task_start": ("context_id", "source"),
    "task_end": ("exit_status", "duration_ms", "turns", "input_tokens", "output_tokens",
                 "tool_calls", "shell_calls", "reopen_count"),
    "task_reopened": ("hook_name", "reason", "reopen_number"),
}  # fmt: skip
COMMON = ("session_id", "timestamp", "event_id", "parent_id", "task_id")


class Verdict(NamedTuple):
    """How loading judges a trace: an error (code, line; line 0 for the whole file), or
    fine, maybe with a torn last line (its number) left out."""

    code: str | None
    line: int
    torn: int | None
    text: str  # what is analysed: the text without a torn last line


#: What `mur trace` trims around a line (Rust's `str::trim`: Unicode White_Space)
WHITE_SPACE = "\t\x0b\x0c\r \x85\xa0\u1680\u2028\u2029\u202f\u205f\u3000" + "".join(
    map(chr, range(0x2000, 0x200B))
)

# a string (kept), or a comma after a value and before the closing bracket (dropped)
_TRAILING_COMMA = re.compile(r'("(?:[^"\\]|\\.)*")|(?<=[^\s{\[,])(\s*),(\s*[}\]])')


def _parse(raw: str) -> object:
    """A line as DuckDB's JSON reader (yyjson) reads it: JSON, plus trailing commas in
    objects and arrays and the constants NaN and Infinity. ValueError when it is not."""
    tolerant = _TRAILING_COMMA.sub(lambda m: m.group(1) or m.group(2) + m.group(3), raw)
    try:
        # `-0` is no integer to `mur trace`'s reader (a float), nor to loading
        return json.loads(tolerant, parse_int=lambda s: -0.0 if s == "-0" else int(s))
    except RecursionError:
        raise ValueError("too deep for this model") from None


def _not_an_event(event: object) -> bool:
    """True when a JSON line is not an event the loader accepts."""
    if not isinstance(event, dict) or event.get("event_type") is None:
        return True
    kind = event["event_type"]
    if not isinstance(kind, str):
        return True
    fields = (*FIELDS_OF.get(kind, ()), *COMMON)
    if any(not isinstance(event.get(name, ""), str | None) for name in STRING_FIELDS
           if name in fields):  # fmt: skip
        return True
    for name in INTEGER_FIELDS:
        if name not in fields:
            continue
        value = event.get(name)
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, int):
            return True
        if name == "exit_code" and not -(2**63) <= value < 2**63:
            return True
        if name != "exit_code" and not 0 <= value < 2**53:  # a count: below 2^53
            return True
    return False


def _starts_a_character(tail: bytes) -> bool:
    """Whether `tail` is the start of a character's UTF-8 sequence, cut before its end."""
    need = (
        2
        if 0xC2 <= tail[0] <= 0xDF
        else 3
        if 0xE0 <= tail[0] <= 0xEF
        else 4
        if 0xF0 <= tail[0] <= 0xF4
        else 0
    )
    return len(tail) < need and all(0x80 <= b <= 0xBF for b in tail[1:])


def judge(data: bytes) -> Verdict:
    """The loader's verdict on a trace file's bytes."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        # a last line cut inside a character: UTF-8 up to the cut, a torn line
        cut = next(
            (k for k in (1, 2, 3) if len(data) >= k and _starts_a_character(data[-k:])), None
        )
        try:
            text = data[:-cut].decode("utf-8") + "\ufffd" if cut else data.decode("utf-8")
        except UnicodeDecodeError:
            return Verdict("E-IO-003", 0, None, "")
    pieces = text.split("\n")
    events, torn = 0, None
    for number, raw in enumerate(pieces, start=1):
        raw = raw.strip(WHITE_SPACE)
        if not raw:
            continue
        try:
            event = _parse(raw)
        except ValueError:
            if number == len(pieces):  # not JSON, no newline after it: a torn write
                torn = number
                break
            return Verdict("E-TRC-001", number, None, "")
        if _not_an_event(event):
            return Verdict("E-TRC-001", number, None, "")
        events += 1
    if events == 0:
        return Verdict("E-TRC-001", torn or 0, None, "")
    kept = "\n".join(pieces[: torn - 1]) + "\n" if torn else text
    return Verdict(None, 0, torn, kept)
