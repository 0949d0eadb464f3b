"""The least DuckDB does to read a workdir: the floor under any cold mur-trace command.

    python benchmarks/duckdb_floor.py WORKDIR

Starts DuckDB and reads every `ses_*/trace.jsonl` with its own newline-delimited JSON
reader, asking for the eight fields the reference detector needs and nothing else: no
line numbers, no validation of field types, no blank-line or torn-line handling, no
analysis. benchmarks/speed.py times it next to `mur-trace redundant` and the compiled
baseline: what cold mur-trace cannot go below with DuckDB on this machine.
"""

from __future__ import annotations

import sys
from pathlib import Path

import duckdb

COLUMNS = {
    "event_type": "VARCHAR",
    "session_id": "VARCHAR",
    "turn": "BIGINT",
    "tool_name": "VARCHAR",
    "input": "JSON",
    "state_effect": "VARCHAR",
    "resource_id": "VARCHAR",
    "output_bytes": "BIGINT",
}


def main() -> None:
    files = sorted(str(p) for p in Path(sys.argv[1]).glob("ses_*/trace.jsonl"))
    con = duckdb.connect()
    # every column is counted, so that every one is read (a bare count(*) reads none)
    counts = ", ".join(f"count({name})" for name in COLUMNS)
    (events, *_) = con.execute(
        f"SELECT count(*), {counts} FROM read_ndjson($files, columns = $columns, filename = true)",
        {"files": files, "columns": COLUMNS},
    ).fetchone()
    print(f"files={len(files)} events={events}", file=sys.stderr)


if __name__ == "__main__":
    main()
