"""What the type scan of E-TRC-001 costs a byte, on sessions executed for real and on
simulated ones, beside a parse and a plain search of the same lines.

    python benchmarks/scan_cost.py [--simulated WORKDIR]

Reads the recorded and held-out sessions (benchmarks/recorded, benchmarks/heldout: Murmur
sessions played for real) and, with `--simulated`, a workdir of `mur-trace synth`; keeps
their non-blank lines in a table, repeated to about 120 MB so that the time is long enough
to read, and prints the share of lines the scan finds something in and the CPU time a byte of five
filters over them: `json_valid` (a full parse), the scan
(queries/functions/may_have_wrong_types.sql), the exact check of every line
(queries/functions/wrong_field_index.sql), the scan with the exact check of the lines it
finds, as loading runs them, and `contains` of a string that is not there (a pass with a
literal start).
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from mur_trace.load import connect, create_macros

HERE = Path(__file__).resolve().parent
FILTERS = {
    "json_valid": "json_valid(raw)",
    "scan": "may_have_wrong_types(raw)",
    # the exact check (queries/functions/wrong_field_index.sql) of every line
    "check": "wrong_field_index(raw) IS NULL",
    # as loading runs it: the exact check only where the scan finds something
    "scan and check": "CASE WHEN may_have_wrong_types(raw) THEN wrong_field_index(raw) IS NULL END",
    "contains": "contains(raw, '\"zq')",
}


def cost(con, files: list[str], repeat: int = 3) -> str:
    con.execute("SET VARIABLE scan_files = $files::VARCHAR[]", {"files": files})
    con.execute(
        "CREATE OR REPLACE TEMP TABLE one AS SELECT unnest(string_split(try(decode(content)), "
        "chr(10))) AS raw FROM read_blob(getvariable('scan_files'))"
    )
    # the lines loading parses (it checks the types of valid JSON only)
    con.execute("DELETE FROM one WHERE raw IS NULL OR trim(raw) = '' OR NOT json_valid(raw)")
    ((lines, size, found),) = con.sql(
        "SELECT count(*), sum(strlen(raw)), count(*) FILTER (WHERE may_have_wrong_types(raw)) "
        "FROM one"
    ).fetchall()
    times = max(1, int(120e6 // size))
    con.execute(f"CREATE OR REPLACE TEMP TABLE lines AS SELECT raw FROM one, range({times})")
    shown = []
    for name, condition in FILTERS.items():
        seconds = []
        for _ in range(repeat):
            start = time.process_time()
            con.execute(f"SELECT count(*) FILTER (WHERE {condition}) FROM lines").fetchall()
            seconds.append(time.process_time() - start)
        shown.append(f"{name} {statistics.median(seconds) / (size * times) * 1e9:.2f} ns/B")
    return (
        f"{len(files)} files, {lines:,} lines of {size / lines:.0f} B on average, "
        f"{found:,} ({100 * found / lines:.2f} %) found by the scan: " + "; ".join(shown)
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--simulated", type=Path, help="a workdir of mur-trace synth")
    args = parser.parse_args()
    con = connect()
    con.execute("SET preserve_insertion_order = false")
    create_macros(con)
    real = sorted(
        str(p)
        for corpus in ("recorded", "heldout")
        for p in HERE.glob(f"{corpus}/workdir/*/trace.jsonl")
    )
    print(f"recorded and held-out sessions: {cost(con, real)}")
    if args.simulated:
        simulated = sorted(str(p) for p in args.simulated.glob("ses_*/trace.jsonl"))[:600]
        print(f"simulated sessions:             {cost(con, simulated)}")


if __name__ == "__main__":
    main()
