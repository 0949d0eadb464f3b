"""The least DuckDB does to read a workdir: the floors under any cold mur-trace command.

    python benchmarks/duckdb_floor.py [--reader READER] WORKDIR

Starts DuckDB and reads every `ses_*/trace.jsonl`, doing nothing else, and prints on
stderr `files=… events=… found=…` (`found`: what the reader counts, below):

- `columns` (the default): its newline-delimited JSON reader, asking for the eight fields
  the reference detector needs and nothing else: no line numbers, no validation of field
  types, no blank-line or torn-line handling, no analysis (`found`: tool names read).
- `objects`: `read_ndjson_objects(files, filename = true) WITH ORDINALITY`, counted: every
  line validated and numbered (ordinality is one count over the whole scan, in file and
  line order: a file's line numbers only after its first's is taken off, and only in files
  without blank lines), no field read (`found`: the last ordinality).
- `lines`: what `redundant --policy reference` reads with (queries/quick/lines.sql):
  the files read and split at newlines with the line numbers, blank lines left out, by
  the split every reader uses (queries/functions/file_lines.sql), every line validated
  (`json_valid`), no field read (`found`: valid lines).
- `checked`: `lines`, and every line scanned for a field of the wrong type
  (queries/functions/may_have_wrong_types.sql), as loading must to keep its E-TRC-001:
  the floor of any reader that keeps loading's contract, before any field is read
  (`found`: the lines the scan finds).

Three other designs of that type check, for comparison:

- `transformed`: `lines` with one `json_transform` of the checked fields of every line as
  JSON (in `try`: a line that is not JSON is NULL) in place of `json_valid`, whose values'
  first characters would tell their types; their check left out (`found`: lines parsed).
- `transformed_checked`: `transformed` with its check: a string field's value must start
  with its quote, an integer field's be digits (15 at most); the lines it finds would
  then be checked exactly, as the scan's are (`found`: those lines).
- `structured`: `lines`, with each file's lines parsed once more as one JSON array by
  `json_structure`, which merges the type of every field over the file (a field whose
  lines disagree is no longer an integer or a string; counts past 2^53 would still need a
  scan); a file that does not parse so (a blank line) would be checked line by line, and
  its check is left out (`found`: the files that parse so).

And the design issue 15 measured before any of this was built:

- `prototype`: `objects`, with the lines that contain `"event_type":"tool_call"` (before
  any parse) having the fields the reference rule needs read by one `json_extract_string`
  of a list of paths, the identity guessed from the first of the five path keys present,
  the rule's window, and the findings written as CSV: no blank-line numbering, no key
  casing, no type checks, no torn or malformed line told apart; its line numbers are the
  ordinality, one count over all the files (`found`: findings; `--out FILE` keeps their
  CSV, else it goes to /dev/null).

benchmarks/speed.py times them next to `mur-trace redundant` and the compiled baseline:
what cold mur-trace cannot go below with DuckDB on this machine.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import duckdb

from mur_trace import queries
from mur_trace.load import create_macros

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

# the split every reader of mur-trace uses (queries/functions/file_lines.sql), materialised
# as they materialise it, so that what follows runs in parallel over lines
SPLIT = """
    split AS MATERIALIZED (
        SELECT file_index, line, raw FROM file_lines(getvariable('files'))
    )"""
# the same split of the texts of a `files` CTE, for `structured`, which reads those texts too
SPLIT_OF_TEXTS = """
    split AS MATERIALIZED (
        SELECT *
        FROM (
            SELECT file_index, unnest(pieces) AS raw, generate_subscripts(pieces, 1) AS line
            FROM (SELECT file_index, string_split(text, chr(10)) AS pieces FROM files)
        )
        WHERE CASE WHEN raw >= '!' THEN true ELSE trim(raw, ' ' || chr(9) || chr(13)) <> '' END
    )"""
CHECKED_FIELDS = duckdb.sql("SELECT " + queries.get("functions/checked_fields").sql).fetchall()[0][
    0
]
#: json_transform's spec of the checked fields, each as JSON
CHECKED_AS_JSON = "{" + ", ".join(f'"{field}": "JSON"' for field in CHECKED_FIELDS) + "}"


def over_lines(found: str, source: str = "split", ctes: str = "") -> str:
    """A query over the split lines: their count, and `found` counted over `source`."""
    return f"WITH {SPLIT}{ctes} SELECT count(*), count(*) FILTER ({found}) FROM {source}"


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


QUERIES = {
    # every column is counted, so that every one is read (a bare count(*) reads none)
    "columns": "SELECT count(*), count(tool_name), {counts} FROM read_ndjson($files, "
    "columns = $columns, filename = true)".format(
        counts=", ".join(f"count({name})" for name in COLUMNS)
    ),
    "objects": "SELECT count(*), max(ordinality) "
    "FROM read_ndjson_objects($files, filename = true) WITH ORDINALITY",
    "lines": over_lines("json_valid(raw)"),
    "checked": over_lines(
        "json_valid(raw) AND {}".format(queries.get("functions/may_have_wrong_types").sql)
    ),
    "transformed": over_lines(
        "checked IS NOT NULL",
        "(SELECT try(json_transform(raw, $spec)) AS checked FROM split)",
    ),
    # the values materialised: read by 43 checks, the transform would run once for each
    "transformed_checked": over_lines(
        "checked IS NOT NULL AND NOT ({})".format(
            " AND ".join(_right_type(i, f) for i, f in enumerate(CHECKED_FIELDS))
        ),
        "parsed",
        ", parsed AS MATERIALIZED (SELECT try(json_transform(raw, $spec)) AS checked FROM split)",
    ),
    # the 40-line prototype: every line validated and numbered by the NDJSON
    # reader, only tool calls parsed, the window, CSV out (`--out`). Its window is
    # the reference rule's (queries/redundant/reference.sql) written out on purpose: a
    # floor stands alone, built on none of mur-trace's queries, so that it measures its
    # own design only
    "prototype": """
        COPY (
            WITH calls AS MATERIALIZED (
                SELECT filename, ordinality AS line, json_extract_string(json, [
                    '$.session_id', '$.turn', '$.tool_name', '$.state_effect',
                    '$.resource_id', '$.input.path', '$.input.file', '$.input.file_path',
                    '$.input.filepath', '$.input.filename', '$.output_bytes'
                ]) AS f
                FROM read_ndjson_objects($files, filename = true) WITH ORDINALITY
                WHERE contains(json, '"event_type":"tool_call"')
            ),
            resolved AS (
                SELECT
                    filename, line, f[1] AS session_id, f[2]::BIGINT AS turn, f[3] AS tool_name,
                    f[4] AS state_effect, f[11]::BIGINT AS output_bytes,
                    coalesce(nullif(f[5], ''), f[6], f[7], f[8], f[9], f[10]) AS resource
                FROM calls
            ),
            history AS (
                SELECT
                    *,
                    lag(state_effect) OVER identity AS prior_effect,
                    lag(line) OVER identity AS prior_line,
                    lag(turn) OVER identity AS prior_turn
                FROM resolved
                WHERE resource IS NOT NULL
                WINDOW identity AS (PARTITION BY filename, resource ORDER BY line)
            )
            SELECT session_id, filename, line, turn, tool_name, resource, prior_line,
                prior_turn, output_bytes
            FROM history
            WHERE state_effect = 'read' AND prior_effect = 'read'
            ORDER BY filename, line
        ) TO $out (FORMAT csv, HEADER)""",
    # the third column validates every line, as `lines` does
    "structured": (
        "WITH files AS MATERIALIZED (SELECT file_index, try(decode(content)) AS text "
        f"FROM read_files(getvariable('files'))), {SPLIT_OF_TEXTS} "
        "SELECT (SELECT count(*) FROM split), "
        "count(try(json_structure('[' || replace(text, chr(10), ',') || ']'))), "
        "(SELECT count(*) FILTER (json_valid(raw)) FROM split) FROM files"
    ),
}


#: The readers built on DuckDB's functions alone, none of mur-trace's macros (each process
#: would create them for nothing: about 30 ms)
DUCKDB_ONLY = ("columns", "objects", "prototype")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reader", choices=sorted(QUERIES), default="columns")
    parser.add_argument("--out", default="/dev/null", help="where `prototype` writes its CSV")
    parser.add_argument("workdir", type=Path)
    args = parser.parse_args()
    files = sorted(str(p) for p in args.workdir.glob("ses_*/trace.jsonl"))
    con = duckdb.connect()
    con.execute("SET preserve_insertion_order = false")
    if args.reader not in DUCKDB_ONLY:
        create_macros(con)  # file_lines and read_files, which the readers of mur-trace use
    con.execute("SET VARIABLE files = $files::VARCHAR[]", {"files": files})
    query = QUERIES[args.reader]
    params = {"files": files} if "$files" in query else {}
    params |= {"columns": COLUMNS} if args.reader == "columns" else {}
    params |= {"spec": CHECKED_AS_JSON} if "$spec" in query else {}
    params |= {"out": args.out} if "$out" in query else {}
    if args.reader == "prototype":  # COPY gives the rows it wrote
        ((found,),) = con.execute(query, params).fetchall()
        events = "not counted"
    else:
        (events, found, *_) = con.execute(query, params).fetchall()[0]
    print(f"files={len(files)} events={events} found={found}", file=sys.stderr)


if __name__ == "__main__":
    main()
