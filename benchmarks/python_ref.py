"""A plain Python single pass with the reference semantics (SPEC section 3): a contender.

python benchmarks/python_ref.py WORKDIR      # prints files=… events=… redundant=…
"""

from __future__ import annotations

import json
import os
import sys

KEYS = ("path", "file", "file_path", "filepath", "filename")


def identity(event: dict) -> str | None:
    declared = event.get("resource_id")
    if isinstance(declared, str) and declared:
        return declared
    data = event.get("input")
    if isinstance(data, dict):
        for name in KEYS:
            for key in sorted(k for k in data if k.lower() == name):
                if isinstance(data[key], str):
                    return data[key]
    return None


def main(workdir: str) -> None:
    files = sorted(
        os.path.join(workdir, d, "trace.jsonl")
        for d in os.listdir(workdir)
        if d.startswith("ses_") and os.path.isfile(os.path.join(workdir, d, "trace.jsonl"))
    )
    events = redundant = 0
    for path in files:
        last: dict[str, int] = {}
        with open(path, encoding="utf-8") as f:
            for line in f:
                if not line.strip():
                    continue
                event = json.loads(line)
                events += 1
                if event.get("event_type") != "tool_call":
                    continue
                resource = identity(event)
                if resource is None:
                    continue
                if event.get("state_effect") == "read":
                    if resource in last:
                        redundant += 1
                    last[resource] = event.get("turn") or 0
                else:
                    last.pop(resource, None)
    print(f"files={len(files)} events={events} redundant={redundant}", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1])
