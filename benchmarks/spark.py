"""Findings on Spark against the single-process command, over the same simulated sessions.

    python benchmarks/spark.py [--sizes 5000 20000] [--repeat 1]
                               [--detections reference context loops]

For each size it simulates that many sessions (`mur_trace.synth`, as benchmarks/speed.py:
about 125 events and 30 KB a session) and exports them (`mur-trace export --parquet`).
Then, for each detection (the reference policy, the context policy, loops), it runs side
by side, `--repeat` times each (medians): the single-process command over the traces
(`mur-trace redundant -f parquet`, or `loops`: DuckDB on every core) and `mur-trace spark
redundant` (or `spark loops`) over the export, with `--master local[1]` and `local[2]`.
Every run is a whole command, start-up included, as a user runs it. Each Spark run's
findings are compared with the single process's, row for row (and schema): `equal` says
whether they are the same.

`move[2]` is Spark's floor under those runs, with `local[2]`: the same start-up, reading,
shuffle by trace, sort and hand-over to Python as Arrow, and no finding.

Then Spark's fixed cost (the same commands over the seven sample sessions), a fit of
time = fixed + cost per session for each contender, Spark's scaling from one core to two,
and from what size Spark pays on this machine, or why it does not.
This machine is shared and noisy: the load average is printed before and after.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from speed import ENV  # commands run as installed (bytecode cached)

ROOT = Path(__file__).resolve().parent.parent
SAMPLE_WORKDIR = ROOT / "sample_traces" / "workdir"
MUR = [sys.executable, "-m", "mur_trace"]
CONTENDERS = ("single", "local[1]", "local[2]")
#: Spark's floor under `mur-trace spark` (whole command, as the others): start a session,
#: read the export's events, repartition them by trace, sort them and hand them to Python
#: as Arrow, as `mur_trace.spark.find` does, and find nothing.
MOVE = """
import sys
from mur_trace import spark
from mur_trace.load import event_columns

session = spark.session(sys.argv[2])
events = spark.read_events(session, sys.argv[1]).select(*(n for n, _ in event_columns()))
by_trace = events.repartition("trace_path").sortWithinPartitions("trace_path", "line")
print(by_trace.mapInArrow(lambda batches: (b.slice(0, 0) for b in batches), events.schema).count())
"""


def run(cmd: list[str]) -> float:
    """Wall seconds of a command; its output is discarded, a failure stops the benchmark."""
    start = time.perf_counter()
    done = subprocess.run(cmd, env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    if done.returncode != 0:
        sys.exit(f"failed: {' '.join(cmd)}\n{done.stderr.decode(errors='replace')}")
    return time.perf_counter() - start


def commands(detection: str, workdir: Path, export: Path, out: Path) -> dict[str, list[str]]:
    """The command of each contender: the single process over the traces, Spark over the
    export. Each writes its findings under `out`."""
    if detection == "loops":
        single = [*MUR, "loops", "--workdir", str(workdir)]
        spark = [*MUR, "spark", "loops", str(export)]
    else:
        single = [*MUR, "redundant", "--workdir", str(workdir), "--policy", detection]
        spark = [*MUR, "spark", "redundant", str(export), "--policy", detection]
    cmds = {"single": [*single, "-f", "parquet", "-o", str(out / "single.parquet")]}
    for master in CONTENDERS[1:]:
        cmds[master] = [*spark, "--master", master, "-o", str(out / _directory(master))]
    return cmds


def equal(out: Path) -> str:
    """Whether each Spark run wrote the single process's findings, row for row (and its
    schema): `yes`, else what differs."""
    import duckdb
    import pyarrow.dataset as ds
    import pyarrow.parquet as pq

    single = pq.read_table(out / "single.parquet")
    verdicts = []
    for master in CONTENDERS[1:]:
        spark = ds.dataset(out / _directory(master)).to_table()
        if spark.schema.remove_metadata() != single.schema.remove_metadata():
            verdicts.append(f"{master}: other schema")
            continue
        con = duckdb.connect()
        con.register("a", single)
        con.register("b", spark)
        (missing,) = con.execute("SELECT count(*) FROM (FROM a EXCEPT ALL FROM b)").fetchone()
        (extra,) = con.execute("SELECT count(*) FROM (FROM b EXCEPT ALL FROM a)").fetchone()
        if missing or extra:
            verdicts.append(f"{master}: {missing} missing, {extra} more")
    return "; ".join(verdicts) or "yes"


def fit(points: list[tuple[int, float]]) -> tuple[float, float]:
    """Least squares time = fixed + per_session * sessions: (fixed s, s per session)."""
    sizes = [n for n, _ in points]
    times = [t for _, t in points]
    mean_n, mean_t = statistics.fmean(sizes), statistics.fmean(times)
    slope = sum((n - mean_n) * (t - mean_t) for n, t in points) / sum(
        (n - mean_n) ** 2 for n in sizes
    )
    return mean_t - slope * mean_n, slope


def export(workdir: Path, out: Path) -> float:
    return run([*MUR, "export", "--parquet", str(out), "--workdir", str(workdir)])


def main() -> None:
    from mur_trace.synth import synthesize

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[5000, 20000])
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument(
        "--detections", nargs="+", default=["reference", "context", "loops"],
        choices=["reference", "context", "loops"],
    )  # fmt: skip
    args = parser.parse_args()

    print(
        f"{os.cpu_count()} cores; medians of {args.repeat} run(s); whole commands, start-up "
        f"included; load average {os.getloadavg()[0]:.1f} at the start\n"
    )
    header = (f"{'sessions':>8} {'events':>9} {'export':>7} {'move[2]':>7} | "
              f"{'detection':<9} "
              f"{'single':>7} {'local[1]':>8} {'local[2]':>8} | {'[1]/single':>10} "
              f"{'[2]/single':>10} {'[1]/[2]':>7} | equal")  # fmt: skip
    print(header)
    print("-" * len(header))
    # (sessions, seconds) of each contender for each detection; the sample sessions first
    points: dict[str, dict[str, list[tuple[int, float]]]] = {
        d: {c: [] for c in CONTENDERS} for d in args.detections
    }
    with tempfile.TemporaryDirectory() as tmp:
        sizes = [(7, SAMPLE_WORKDIR), *((size, None) for size in args.sizes)]
        for size, workdir in sizes:
            out = Path(tmp) / str(size)
            if workdir is None:
                workdir = synthesize(out, size, seed=size, turns=(16, 56))
            exported = out / "export"
            exporting = export(workdir, exported)
            events = _rows(exported / "events")
            move = statistics.median(
                run([sys.executable, "-c", MOVE, str(exported), "local[2]"])
                for _ in range(args.repeat)
            )
            for detection in args.detections:
                found = out / detection
                found.mkdir(parents=True)
                cmds = commands(detection, workdir, exported, found)
                times = {
                    name: statistics.median(run(cmd) for _ in range(args.repeat))
                    for name, cmd in cmds.items()
                }
                for name, seconds in times.items():
                    points[detection][name].append((size, seconds))
                single, one, two = (times[c] for c in CONTENDERS)
                print(f"{size:>8,} {events:>9,} {exporting:>7.1f} {move:>7.1f} | {detection:<9} "
                      f"{single:>7.1f} {one:>8.1f} {two:>8.1f} | {one / single:>10.2f} "
                      f"{two / single:>10.2f} {one / two:>7.2f} | {equal(found)}",
                      flush=True)  # fmt: skip
    print(f"\nload average {os.getloadavg()[0]:.1f} at the end")
    print("\nfit over the sizes above (with the 7 sample sessions): "
          "time = fixed + cost per 1,000 sessions")  # fmt: skip
    for detection, by_contender in points.items():
        fits = {c: fit(p) for c, p in by_contender.items()}
        print(f"  {detection}: " + ", ".join(
            f"{c} {fixed:.1f} s + {per * 1000:.2f} s" for c, (fixed, per) in fits.items()
        ))  # fmt: skip
        print("    " + verdict(fits))


def verdict(fits: dict[str, tuple[float, float]]) -> str:
    """From what size Spark local[2] pays against the single process, or why it does not;
    its scaling from one core to two; how many cores it would need at local[1]'s cost per
    core to process sessions faster than the single process."""
    per_1 = fits["local[1]"][1]
    fixed_2, per_2 = fits["local[2]"]
    fixed_single, per_single = fits["single"]
    if min(per_1, per_2, per_single) <= 0:
        return "the sizes are too small (or the machine too noisy) to measure a cost per session"
    if per_2 < per_single:
        size = (fixed_2 - fixed_single) / (per_single - per_2)
        pays = f"Spark local[2] pays from about {size:,.0f} sessions"
    else:
        pays = (f"Spark local[2] never pays here: a session costs it {per_2 / per_single:.1f} x "
                "the single process's time, on the same two cores, and its fixed cost is "
                f"{fixed_2 - fixed_single:.0f} s more")  # fmt: skip
    return (f"{pays}. One core to two: {per_1 / per_2:.2f} x faster per session. At local[1]'s "
            f"cost per core, Spark needs more than {per_1 / per_single:.1f} cores to go faster "
            "per session than the single process on this machine's two")  # fmt: skip


def _directory(master: str) -> str:
    """Where a Spark run writes: `local[2]` -> `local-2`."""
    return master.replace("[", "-").rstrip("]")


def _rows(dataset: Path) -> int:
    import pyarrow.dataset as ds

    return ds.dataset(dataset, partitioning="hive").count_rows()


if __name__ == "__main__":
    main()
