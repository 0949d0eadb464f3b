"""Peak memory of every command over a simulated fleet, whole processes, side by side.

    python benchmarks/memory.py [--sessions 20000] [--seed N] [--workdir DIR]

Simulates `--sessions` sessions with `mur_trace.synth`, as benchmarks/speed.py does (16 to
56 turns; the seed their number unless `--seed` says), so that its 20,000 sessions are the
speed run's (or uses `--workdir`), then runs each
command as a user would (`mur-trace ... --workdir W`, output to /dev/null) and prints its
wall time and peak resident memory (`ru_maxrss` of the child), against the 1 GB budget.
"""

from __future__ import annotations

import argparse
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from mur_trace.synth import synthesize

BUDGET_MB = 1024


def commands(workdir: Path, scratch: Path) -> dict[str, list[str]]:
    db = scratch / "catalog.duckdb"
    wd = ["--workdir", str(workdir)]
    return {
        "redundant (reference)": ["redundant", *wd],
        "redundant --policy context": ["redundant", "--policy", "context", *wd],
        "loops": ["loops", *wd],
        "check --max-redundant 0": ["check", "--max-redundant", "0", *wd],
        "report": ["report", *wd],
        "report --policy context": ["report", "--policy", "context", *wd],
        "export": ["export", "--parquet", str(scratch / "export"), *wd],
        "ingest": ["ingest", "--db", str(db), *wd],
        "redundant --db": ["redundant", "--db", str(db)],
        "report --db": ["report", "--db", str(db)],
        # what a catalog does not store, computed for batches of its traces
        "redundant --db --policy context": ["redundant", "--policy", "context", "--db", str(db)],
        "loops --db": ["loops", "--db", str(db)],
        "report --db --policy context": ["report", "--policy", "context", "--db", str(db)],
        "export --db --policy context": [
            "export",
            "--parquet",
            str(scratch / "export"),
            "--policy",
            "context",
            "--db",
            str(db),
        ],
    }


def peak(args: list[str]) -> tuple[float, float, int]:
    """Wall seconds, peak MB and exit status of one command run as a child process."""
    started = time.perf_counter()
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    result = subprocess.run(
        [sys.executable, "-m", "mur_trace", *args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    # the largest of any child so far: each command runs in a wrapper of its own (main)
    return wall, max(after, before) / 1024, result.returncode


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=20_000)
    parser.add_argument("--seed", type=int, help="default: the number of sessions")
    parser.add_argument("--workdir", type=Path, help="measure this workdir instead")
    parser.add_argument("--one", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:  # a child measuring one command (a fresh ru_maxrss for each)
        wall, mb, status = peak(args.one)
        print(f"{wall:.2f} {mb:.0f} {status}")
        return
    with tempfile.TemporaryDirectory() as tmp:
        scratch = Path(tmp)
        if args.workdir is None:
            seed = args.sessions if args.seed is None else args.seed
            workdir = synthesize(scratch / "fleet", args.sessions, seed=seed, turns=(16, 56))
        else:
            workdir = args.workdir
        size = sum(p.stat().st_size for p in workdir.glob("ses_*/trace.jsonl")) / 1e6
        count = len(list(workdir.glob("ses_*")))
        print(f"{count:,} sessions, {size:,.0f} MB of traces; budget {BUDGET_MB} MB (MiB)\n")
        print(f"{'command':<33} {'wall s':>8} {'peak MB':>8}  within")
        for name, command in commands(workdir, scratch).items():
            if name.startswith("export"):
                shutil.rmtree(scratch / "export", ignore_errors=True)
            out = subprocess.run(
                [sys.executable, __file__, "--one", *command], capture_output=True, text=True
            ).stdout.split()
            wall, mb, status = float(out[0]), float(out[1]), int(out[2])
            verdict = "yes" if mb <= BUDGET_MB else "NO"
            failed = "" if status in (0, 1) else f"  (exit {status})"
            print(f"{name:<33} {wall:>8.2f} {mb:>8.0f}  {verdict}{failed}")


if __name__ == "__main__":
    main()
