"""Start-up of the command line: the database opened in the background, or not.

    python benchmarks/startup.py [--runs 25] [--workdir sample_traces/workdir]

Runs, alternated, `--runs` times each: `show` on the workdir's newest session and
`redundant --workdir W -f csv`, each started as the console script starts
(`python -m mur_trace`: `load.open_in_background` opens DuckDB's database while Typer and
the commands import) and started straight from `mur_trace.cli.main` (the database opened
when the command needs it, after every import); and `python -c "import duckdb"`. Prints
the medians and minima of the wall time, and the commands' output is compared: it must be
the same both ways. Commands run with their bytecode cached, as `pip install` leaves them.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from speed import ENV  # commands run as installed (bytecode cached)

HERE = Path(__file__).resolve().parent
#: `mur-trace ARGS` without the database opened in the background
STRAIGHT = (
    "import sys; sys.argv = ['mur-trace', *sys.argv[1:]]; from mur_trace.cli import main; main()"
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=25)
    parser.add_argument("--workdir", type=Path, default=HERE.parent / "sample_traces" / "workdir")
    args = parser.parse_args()
    commands = {
        "show": ["show", "--workdir", str(args.workdir)],
        "redundant": ["redundant", "--workdir", str(args.workdir), "-f", "csv"],
    }
    variants = {}
    for name, argv in commands.items():
        variants[(name, "background")] = [sys.executable, "-m", "mur_trace", *argv]
        variants[(name, "straight")] = [sys.executable, "-c", STRAIGHT, *argv]
    variants[("import duckdb", "")] = [sys.executable, "-c", "import duckdb"]
    times: dict[tuple[str, str], list[float]] = {key: [] for key in variants}
    outputs: dict[str, set[bytes]] = {}
    for _ in range(args.runs):
        for key, command in variants.items():
            start = time.perf_counter()
            done = subprocess.run(command, capture_output=True, env=ENV, check=True)
            times[key].append(time.perf_counter() - start)
            outputs.setdefault(key[0], set()).add(done.stdout)
    print(f"{os.cpu_count()} cores; {args.runs} runs each, alternated; wall seconds")
    print(f"{'command':<15} {'started':<11} {'median':>7} {'min':>7}")
    for (name, how), seconds in times.items():
        print(f"{name:<15} {how:<11} {statistics.median(seconds):>7.3f} {min(seconds):>7.3f}")
    for name in commands:
        gained = statistics.median(times[(name, "straight")]) - statistics.median(
            times[(name, "background")]
        )
        same = "the same output" if len(outputs[name]) == 1 else "DIFFERENT OUTPUT"
        print(
            f"{name}: {gained * 1000:.0f} ms sooner (medians) with the database opened "
            f"meanwhile; {same}"
        )


if __name__ == "__main__":
    main()
