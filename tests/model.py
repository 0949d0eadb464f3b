"""A small pure-Python model of SPEC section 3 (reference redundant-call semantics).

It reads trace text line by line on purpose: it is the oracle the SQL is compared with,
not a competitor on speed.
"""

from __future__ import annotations

import json
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


def turn_of(event: dict) -> int:
    turn = event.get("turn")
    return turn if isinstance(turn, int) and not isinstance(turn, bool) else 0


def redundant_calls(trace_path: str, text: str) -> list[Finding]:
    """Findings of one trace file, in line order."""
    last_read: dict[str, tuple[int, int]] = {}
    found: list[Finding] = []
    for number, raw in enumerate(text.split("\n"), start=1):
        if not raw.strip():
            continue
        event = json.loads(raw)
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
