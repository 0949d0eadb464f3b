"""The least DuckDB does to read a workdir: the floors under any cold mur-trace command.

    python benchmarks/duckdb_floor.py [--reader columns|objects|lines] WORKDIR

Starts DuckDB and reads every `ses_*/trace.jsonl`, doing nothing else:

- `columns` (the default): its newline-delimited JSON reader, asking for the eight fields
  the reference detector needs and nothing else: no line numbers, no validation of field
  types, no blank-line or torn-line handling, no analysis.
- `objects`: `read_ndjson_objects(files, filename = true) WITH ORDINALITY`, counted: every
  line validated and numbered (ordinality is the line number only in files without blank
  lines), no field read.
- `lines`: what `redundant --policy reference` reads with (queries/quick/lines.sql):
  `read_blob`, each file split at newlines with the line numbers, blank lines left out,
  every line validated (`json_valid`), no field read.
- `checked`: `lines`, and every line scanned for a field of the wrong type
  (queries/functions/may_have_wrong_types.sql), as loading must to keep its E-TRC-001:
  the floor of any reader that keeps loading's contract, before any field is read.

Two other designs of that type check, for comparison (each a floor: its own check left
out, only what it must compute first):

- `transformed`: `lines`, with the checked fields of every line taken by one
  `json_transform` as JSON (their first characters would tell their types): one parse
  instead of validation and the scan.
- `transformed_checked`: `transformed` with its check: a string field's value must start
  with its quote, an integer field's be digits (15 at most); the lines it finds would
  then be checked exactly, as the scan's are.
- `structured`: `lines`, with each file's lines parsed once more as one JSON array by
  `json_structure`, which merges the type of every field over the file (a field whose
  lines disagree is no longer an integer or a string); a file that does not parse so (a
  blank line) would be checked line by line.

benchmarks/speed.py times them next to `mur-trace redundant` and the compiled baseline:
what cold mur-trace cannot go below with DuckDB on this machine.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import duckdb

from mur_trace import queries

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

# every column is counted, so that every one is read (a bare count(*) reads none)
QUERIES = {
    "columns": "SELECT count(*), {counts} FROM read_ndjson($files, columns = $columns, "
    "filename = true)".format(counts=", ".join(f"count({name})" for name in COLUMNS)),
    "objects": "SELECT count(*), max(ordinality) "
    "FROM read_ndjson_objects($files, filename = true) WITH ORDINALITY",
    # split as queries/quick/lines.sql splits: materialised, so that what follows runs in
    # parallel over lines (read_blob hands a thread 2,048 files at a time)
    "lines": """
        WITH split AS MATERIALIZED (
            SELECT *
            FROM (
                SELECT file_index, unnest(pieces) AS raw, generate_subscripts(pieces, 1) AS line
                FROM (
                    SELECT file_index, string_split(try(decode(content)), chr(10)) AS pieces
                    FROM read_blob($files)
                )
            )
            WHERE CASE WHEN raw >= '!' THEN true ELSE trim(raw, ' ' || chr(9) || chr(13)) <> ''
                END
        )
        SELECT count(*), count(*) FILTER (json_valid(raw)), max(line) FROM split
    """,
}
CHECKED_FIELDS = duckdb.sql("SELECT " + queries.get("functions/checked_fields").sql).fetchall()[0][
    0
]
QUERIES["checked"] = QUERIES["lines"].replace(
    "count(*) FILTER (json_valid(raw))",
    "count(*) FILTER (json_valid(raw)), count(*) FILTER ({})".format(
        queries.get("functions/may_have_wrong_types").sql
    ),
)
QUERIES["transformed"] = QUERIES["lines"].replace(
    "count(*) FILTER (json_valid(raw))",
    "count(*) FILTER (json_transform(raw, '{{{}}}') IS NOT NULL)".format(
        ", ".join(f'"{field}": "JSON"' for field in CHECKED_FIELDS)
    ),
)


def _right_type(index: int, field: str) -> str:
    """Whether a checked field's value, as json_transform writes it again as JSON, is of
    its type or may be (a string: its quotes; an integer: digits, at most 15)."""
    value = f'checked."{field}"::VARCHAR'
    if index < 20:
        return f"({value} IS NULL OR starts_with({value}, '\"'))"
    first = f"{value} >= '0' AND {value} < ':'"
    if field == "exit_code":
        first = f"({first} OR {value} >= '-0' AND {value} < '-:')"
    return (
        f"({value} IS NULL OR ({first} AND strlen({value}) < 16 "
        f"AND NOT contains({value}, '.') AND NOT contains({value}, 'e')))"
    )


QUERIES["transformed_checked"] = (
    QUERIES["lines"]
    .replace(
        "count(*) FILTER (json_valid(raw))",
        "count(*) FILTER (NOT ({}))".format(
            " AND ".join(_right_type(i, f) for i, f in enumerate(CHECKED_FIELDS))
        ),
    )
    # the values materialised: read by 43 checks, the transform would run once for each
    .replace(
        "SELECT count(*),",
        ", parsed AS MATERIALIZED (SELECT line, try(json_transform(raw, '{{{}}}')) AS checked "
        "FROM split) SELECT count(*),".format(
            ", ".join(f'"{field}": "JSON"' for field in CHECKED_FIELDS)
        ),
    )
    .replace("FROM split\n", "FROM parsed\n")
)
QUERIES["structured"] = (
    QUERIES["lines"]
    .replace(
        "WITH split AS MATERIALIZED (",
        """WITH files AS MATERIALIZED (
            SELECT file_index, try(decode(content)) AS text FROM read_blob($files)
        ),
        split AS MATERIALIZED (""",
    )
    .replace("FROM read_blob($files)\n                )", "FROM files\n                )")
    .replace("string_split(try(decode(content)), chr(10))", "string_split(text, chr(10))")
    .replace(
        "max(line) FROM split",
        "max(line), (SELECT count(DISTINCT try(json_structure('[' || replace(text, chr(10), ',') "
        "|| ']'))) FROM files) FROM split",
    )
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reader", choices=sorted(QUERIES), default="columns")
    parser.add_argument("workdir", type=Path)
    args = parser.parse_args()
    files = sorted(str(p) for p in args.workdir.glob("ses_*/trace.jsonl"))
    con = duckdb.connect()
    con.execute("SET preserve_insertion_order = false")
    params = {"files": files} | ({"columns": COLUMNS} if args.reader == "columns" else {})
    (events, *_) = con.execute(QUERIES[args.reader], params).fetchall()[0]
    print(f"files={len(files)} events={events}", file=sys.stderr)


if __name__ == "__main__":
    main()
