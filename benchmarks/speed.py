"""Speed and memory of mur-trace against a compiled and a plain Python single pass.

    python benchmarks/speed.py [--sizes 500 5000 20000] [--repeat 3] [--real]

For each size it simulates that many sessions (`mur_trace.synth`, longer sessions than
the default: about 125 events each), or, with `--real`, copies the sessions Murmur ran
for real (benchmarks/recorded, benchmarks/heldout: real files, real commands; the 98
whose every line is whole) until there are that many, each copy under a session id of
its own; then it runs side by side, `--repeat` times each, and reports medians:
`mur-trace redundant` cold (reading the traces), the plain Python pass
(benchmarks/python_ref.py), the compiled baseline of ../shared/bench (built with its
script when cargo is there; with PRINT=1, so that it writes its findings as mur-trace
does), DuckDB's readers alone (benchmarks/duckdb_floor.py, the floors under any cold
command: `floor` its JSON reader asked for the detector's fields, `ndjson`
read_ndjson_objects WITH ORDINALITY validating and numbering every line, `lines` the
reader of `redundant --policy reference`: read_blob, lines split and numbered, each
validated; `checked` that and the scan for fields of the wrong type that loading's
E-TRC-001 needs; `transformed`, `transformed_checked` and `structured`, the floors of
three other designs of that check; `prototype` the design issue 15 measured before the
quick reading was built, checks left out, as a whole command writing its CSV),
`mur-trace ingest` into a catalog, and `mur-trace redundant --db` warm.
Then the context policy cold (`redundant --policy context`), as a ratio to the reference
policy's cold time, with the CPU seconds of both and the floors of two other plans (its
CPU spread over every core, and its command with every trace in one batch), and its
loading alone (every batch loaded whole, nothing analysed). Then
`mur-trace show` on one session against `python -c "import duckdb"`, and six floors under
it: importing DuckDB and opening a database; importing the command line (DuckDB, Typer,
mur-trace) and opening a database; the same, the database opened while Typer and the
commands import, as the command line starts; that start with one statement over the
session; that start with the session loaded as every command loads it; and, on another
layer, the statements `show` runs replayed on DuckDB's engine module alone, with no Python
layer, command line or rendering (benchmarks/show_statements.py).
Ratios are computed within one run: this machine is noisy. Peak memory is the largest
resident set of a run (GNU time); with `--memory`, every command (both policies, `loops`,
`check`, `report`, `export`, `ingest`, warm ones) runs over the largest workdir too, with
its peak (benchmarks/memory.py).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import NamedTuple

HERE = Path(__file__).resolve().parent
#: ../shared/bench of the checkout: the nearest `shared/bench` above it (a git worktree
#: may sit deeper than the main checkout).
BENCH = next(
    (d / "shared" / "bench" for d in HERE.parents if (d / "shared" / "bench").is_dir()),
    HERE.parent.parent / "shared" / "bench",
)
MUR = [sys.executable, "-m", "mur_trace"]
#: The sessions Murmur ran for real, which `--real` copies
REAL_WORKDIRS = (HERE / "recorded" / "workdir", HERE / "heldout" / "workdir")
#: The readers of benchmarks/duckdb_floor.py: the table's four, the other designs of the
#: type check, and the issue's prototype
FLOOR_READERS = (
    "columns", "objects", "lines", "checked", "transformed", "transformed_checked", "structured",
    "prototype",
)  # fmt: skip
#: The other designs of the type check (the floors after the table's four)
CHECK_DESIGNS = ("transformed", "transformed_checked", "structured")
TIME = shutil.which("time") or "/usr/bin/time"
#: How the command line ends (mur_trace/__main__.py): what is left is frozen out of the
#: collection Python runs as it exits. The floors that import the command line end so too.
EXIT = "; import gc; gc.freeze()"
#: The command line's start-up: the database opened while Typer and the commands import.
OVERLAPPED = (
    "from mur_trace.load import connect, open_in_background; open_in_background(); "
    "import mur_trace.cli; con = connect()"
)
#: That start, then one statement over the session (DuckDB's NDJSON reader, its events
#: counted by type): what any command over one session pays at the least.
ONE_STATEMENT = (
    OVERLAPPED + "; import sys; con.execute(\"SELECT json_extract_string(json, 'event_type') AS t, "
    "count(*) FROM read_ndjson_objects($f) GROUP BY t\", {'f': sys.argv[1]}).fetchall()" + EXIT
)
#: That start, then the session loaded as every command over it loads it (`load_traces`:
#: every check of loading, its errors and warnings; one thread, as for a few traces), and
#: nothing computed: what `show` pays before its metrics and sections.
ONE_LOAD = (
    OVERLAPPED + "; import sys; from mur_trace.load import load_traces; "
    "con.execute('SET threads = 1'); load_traces(con, [sys.argv[1]])" + EXIT
)
#: Every trace loaded whole, batch after batch, as the context policy loads them, and
#: nothing analysed: what is left of its time is the analysis.
LOAD_ONLY = (
    "import sys, mur_trace; "
    "mur_trace.run_in_batches(None, lambda trace: {}, workdir=sys.argv[1], policy='context')"
)
#: The command line with every trace in one batch (no bound on memory): the context
#: policy without the fixed cost of each further batch.
ONE_BATCH = (
    "import sys, mur_trace; mur_trace.BATCH_BYTES = 2**62; "
    "sys.argv = ['mur-trace', *sys.argv[1:]]; from mur_trace.__main__ import main; main()"
)
#: Commands run as installed: `pip install` compiles the package to bytecode, a source
#: checkout with PYTHONDONTWRITEBYTECODE set recompiles it at every start (30 ms here).
#: Bytecode goes to a cache of its own, never into the source tree.
ENV = {
    **{k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"},
    "PYTHONPYCACHEPREFIX": str(Path(tempfile.gettempdir()) / "mur-trace-bench-pycache"),
}


class Run(NamedTuple):
    """What a command took: wall seconds, peak resident KB, CPU seconds (user + system)."""

    wall: float
    peak: int
    cpu: float


def run(cmd: list[str], env: dict[str, str] | None = None) -> Run:
    """Time a command (its output is discarded); `env` is added to the environment."""
    with tempfile.NamedTemporaryFile("r") as usage:
        start = time.perf_counter()
        subprocess.run(
            [TIME, "-f", "%M %U %S", "-o", usage.name, *cmd],
            check=True,
            env=ENV | (env or {}),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        wall = time.perf_counter() - start
        peak, user, system = usage.read().split()[-3:]
        return Run(wall, int(peak), float(user) + float(system))


def median(cmd: list[str], repeat: int, env: dict[str, str] | None = None) -> Run:
    """Medians of `repeat` runs (wall and CPU), and the largest peak."""
    runs = [run(cmd, env) for _ in range(repeat)]
    return Run(
        statistics.median(r.wall for r in runs),
        max(r.peak for r in runs),
        statistics.median(r.cpu for r in runs),
    )


def in_process(open_trace) -> float:
    """Seconds to open a Trace and fetch its reference findings, inside this process."""
    start = time.perf_counter()
    trace = open_trace()
    trace.redundant_calls().fetchall()
    elapsed = time.perf_counter() - start
    trace.con.close()
    return elapsed


def rust_baseline() -> str | None:
    script = BENCH / "build-rust-ref.sh"
    if not script.exists() or not shutil.which("cargo"):
        return None
    try:
        out = subprocess.run(["bash", str(script)], check=True, capture_output=True, text=True)
    except subprocess.CalledProcessError:
        return None
    return out.stdout.strip()


def real_sessions() -> list[Path]:
    """The sessions of REAL_WORKDIRS whose every line is whole: two held-out sessions end
    in a torn line (their runs were cut short), which the baselines cannot read."""
    return sorted(
        d
        for w in REAL_WORKDIRS
        for d in w.glob("ses_*")
        if (d / "trace.jsonl").read_bytes().endswith(b"\n")
    )


def copy_real(out: Path, size: int) -> Path:
    """A workdir of `size` sessions copied from the sessions Murmur ran for real
    (`real_sessions`), in turn: each copy gets a session id of its own, new hexadecimal
    digits after the first twelve (the id's time, so copies sort beside their original),
    in its directory's name and wherever its trace names it (the same length: no other
    byte moves)."""
    sessions = real_sessions()
    workdir = out / "workdir"
    workdir.mkdir(parents=True)
    for n in range(size):
        original = sessions[n % len(sessions)]
        copy = f"{original.name[:16]}{n:020x}"
        trace = (original / "trace.jsonl").read_bytes()
        (workdir / copy).mkdir()
        (workdir / copy / "trace.jsonl").write_bytes(
            trace.replace(original.name.encode(), copy.encode())
        )
    return workdir


def main() -> None:
    import mur_trace
    from mur_trace.synth import synthesize

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[500, 5000, 20000])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--memory",
        action="store_true",
        help="also run every command over the largest workdir, with its peak memory "
        "(benchmarks/memory.py)",
    )
    parser.add_argument(
        "--real",
        action="store_true",
        help="copies of the sessions Murmur ran for real (benchmarks/recorded and "
        "benchmarks/heldout) in place of simulated ones",
    )
    args = parser.parse_args()

    rust = rust_baseline()
    print(
        f"{os.cpu_count()} cores; medians of {args.repeat} runs; compiled baseline: "
        f"{rust or 'not available'}"
        + ("; sessions copied from those Murmur ran for real" if args.real else "")
        + "\n"
    )
    header = (f"{'sessions':>8} {'MB':>6} {'events':>9} | {'cold':>7} {'python':>7} "
              f"{'rust':>7} {'floor':>7} {'ndjson':>7} {'lines':>7} {'checked':>7} {'ingest':>7} "
              f"{'warm':>7} | {'cold/rust':>9} {'floor/rust':>10} {'ndjson/rust':>11} "
              f"{'lines/rust':>10} {'checked/rust':>12} {'cold/py':>7} {'cold/warm':>9} "
              f"{'s/1k ses':>8} {'peak MB':>8}")  # fmt: skip
    print(header)
    print("-" * len(header))
    show = None
    inside: list[tuple[int, float, float]] = []
    checks: list[tuple[int, float, float, float, dict[str, float]]] = []
    policies: list[tuple[int, Run, Run, Run, Run]] = []
    prototypes: list[tuple[int, float, float, float]] = []
    with tempfile.TemporaryDirectory() as tmp:
        for size in args.sizes:
            out = Path(tmp) / str(size)
            workdir = (
                copy_real(out, size)
                if args.real
                else synthesize(out, size, seed=size, turns=(16, 56))
            )
            files = list(workdir.glob("ses_*/trace.jsonl"))
            mb = sum(f.stat().st_size for f in files) / 1e6
            events = sum(f.read_bytes().count(b"\n") for f in files)
            reference = median([*MUR, "redundant", "--workdir", str(workdir), "-f", "csv"],
                               args.repeat)  # fmt: skip
            cold, peak = reference.wall, reference.peak
            context_args = ["redundant", "--policy", "context", "--workdir", str(workdir),
                            "-f", "csv"]  # fmt: skip
            context = median([*MUR, *context_args], args.repeat)
            try:  # its memory is unbounded: it may run out where the command does not
                one_batch = median([sys.executable, "-c", ONE_BATCH, *context_args], args.repeat)
            except subprocess.CalledProcessError:
                one_batch = Run(float("nan"), 0, float("nan"))
            loaded = median([sys.executable, "-c", LOAD_ONLY, str(workdir)], args.repeat)
            policies.append((size, reference, context, one_batch, loaded))
            python = median([sys.executable, str(HERE / "python_ref.py"), str(workdir)],
                            args.repeat).wall  # fmt: skip
            # PRINT=1: it writes its findings, as mur-trace does (the baseline)
            compiled = (
                median([rust, str(workdir)], args.repeat, {"PRINT": "1"}).wall
                if rust
                else float("nan")
            )
            floors = {
                reader: median([sys.executable, str(HERE / "duckdb_floor.py"), "--reader",
                                reader, str(workdir)], args.repeat).wall
                for reader in FLOOR_READERS
            }  # fmt: skip
            floor, ndjson, lines, checked = (
                floors[r] for r in ("columns", "objects", "lines", "checked")
            )
            designs = {r: floors[r] for r in CHECK_DESIGNS}
            checks.append((size, compiled, lines, checked, designs))
            prototypes.append((size, compiled, floors["prototype"], cold))
            db = out / "catalog.duckdb"
            ingest = run([*MUR, "ingest", "--db", str(db), "--workdir", str(workdir)]).wall
            warm = median([*MUR, "redundant", "--db", str(db), "-f", "csv"], args.repeat).wall
            cold_q = statistics.median(
                in_process(lambda w=workdir: mur_trace.load(workdir=w)) for _ in range(args.repeat)
            )
            warm_q = statistics.median(
                in_process(lambda d=db: mur_trace.load(db=d)) for _ in range(args.repeat)
            )
            inside.append((size, cold_q, warm_q))
            largest = workdir
            print(f"{size:>8,} {mb:>6.0f} {events:>9,} | {cold:>7.2f} {python:>7.2f} "
                  f"{compiled:>7.2f} {floor:>7.2f} {ndjson:>7.2f} {lines:>7.2f} {checked:>7.2f} "
                  f"{ingest:>7.2f} {warm:>7.2f} | {cold / compiled:>9.2f} "
                  f"{floor / compiled:>10.2f} {ndjson / compiled:>11.2f} "
                  f"{lines / compiled:>10.2f} {checked / compiled:>12.2f} {cold / python:>7.2f} "
                  f"{cold / warm:>9.1f} {cold / size * 1000:>8.3f} "
                  f"{peak / 1024:>8.0f}")  # fmt: skip
            if show is None:
                session = sorted(workdir.glob("ses_*"))[0]
                trace = str(session / "trace.jsonl")
                show_s = median([*MUR, "show", trace], 5).wall
                bare = median([sys.executable, "-c", "import duckdb"], 5).wall
                opened = median([sys.executable, "-c", "import duckdb; duckdb.connect()"], 5).wall
                cli = median(
                    [sys.executable, "-c", "import duckdb, mur_trace.cli; duckdb.connect()" + EXIT],
                    5,
                ).wall
                # as the command line starts: the database opened while Typer and the
                # commands import (load.open_in_background)
                overlapped = median([sys.executable, "-c", OVERLAPPED + EXIT], 5).wall
                statement = median([sys.executable, "-c", ONE_STATEMENT, trace], 5).wall
                loaded_one = median([sys.executable, "-c", ONE_LOAD, trace], 5).wall
                # the statements `show` runs, replayed on DuckDB's engine module alone
                statements = str(Path(tmp) / "show.json")
                script = str(HERE / "show_statements.py")
                run([sys.executable, script, "record", trace, statements])
                replayed = median([sys.executable, script, "replay", statements], 5).wall
                show = (show_s, bare, opened, cli, overlapped, statement, loaded_one, replayed)
        if args.memory:
            print(f"\npeak memory of every command over the {args.sizes[-1]:,} sessions:")
            subprocess.run(
                [sys.executable, str(HERE / "memory.py"), "--workdir", str(largest)],
                check=True,
                env=ENV,
            )
    print(
        "\nthe type checks of E-TRC-001, by design (floors: whole processes, nothing but "
        "the lines read and split, each validated, and what the design must compute)"
    )
    for size, compiled, lines, checked, designs in checks:
        shown = "; ".join(
            f"{name} {seconds:.2f}s ({seconds / compiled:.2f} x rust)"
            for name, seconds in [("scan", checked), *designs.items()]
        )
        print(f"{size:>8,} sessions: lines alone {lines:.2f}s ({lines / compiled:.2f} x rust); "
              f"{shown}")  # fmt: skip
    print(
        "\nthe design issue 15 measured (read_ndjson_objects WITH ORDINALITY, only tool calls "
        "parsed, no checks), as a whole command writing its CSV, against cold `redundant`"
    )
    for size, compiled, prototype, cold in prototypes:
        print(f"{size:>8,} sessions: prototype {prototype:.2f}s ({prototype / compiled:.2f} x "
              f"rust); cold {cold:.2f}s ({cold / compiled:.2f} x rust)")  # fmt: skip
    print(
        "\nthe context policy cold (`redundant --policy context`), against the reference's; "
        "their CPU seconds (user + system); the floors of two other plans: the context "
        f"policy's CPU spread over all {os.cpu_count()} cores, and its command with every "
        "trace in one batch (memory unbounded; its CPU too); and its loading alone, every "
        "batch loaded whole and nothing analysed"
    )
    cores = os.cpu_count() or 1
    for size, reference, context, one_batch, loaded in policies:
        print(f"{size:>8,} sessions: context {context.wall:.2f}s, reference {reference.wall:.2f}s, "
              f"ratio {context.wall / reference.wall:.2f}; CPU {context.cpu:.2f}s and "
              f"{reference.cpu:.2f}s, ratio {context.cpu / reference.cpu:.2f}; all cores busy "
              f"{context.cpu / cores:.2f}s, ratio {context.cpu / cores / reference.wall:.2f}; "
              f"one batch {one_batch.wall:.2f}s, ratio {one_batch.wall / reference.wall:.2f}, "
              f"peak {one_batch.peak / 1024:.0f} MB, CPU {one_batch.cpu:.2f}s, all cores busy "
              f"ratio {one_batch.cpu / cores / reference.wall:.2f}; loading alone "
              f"{loaded.wall:.2f}s, ratio {loaded.wall / reference.wall:.2f}, CPU "
              f"{loaded.cpu:.2f}s")  # fmt: skip
    print("\nin one process (no start-up, no output): open + reference findings")
    for size, cold_q, warm_q in inside:
        print(
            f"{size:>8,} sessions: from the traces {cold_q:.3f}s, from the catalog "
            f"{warm_q:.3f}s, ratio {cold_q / warm_q:.1f}"
        )
    show_s, bare, opened, cli, overlapped, statement, loaded_one, replayed = show
    print(
        f"\nshow one session: {show_s:.3f}s; python -c 'import duckdb': {bare:.3f}s; "
        f"ratio {show_s / bare:.2f}\n"
        f"floors: import duckdb and open a database {opened:.3f}s, ratio {opened / bare:.2f}; "
        f"the command line's imports and a database {cli:.3f}s, ratio {cli / bare:.2f}; "
        f"the same, the database opened meanwhile {overlapped:.3f}s, "
        f"ratio {overlapped / bare:.2f}; one statement over the session {statement:.3f}s, "
        f"ratio {statement / bare:.2f}; and the session loaded, every check of loading and "
        f"nothing computed, {loaded_one:.3f}s, ratio {loaded_one / bare:.2f}\n"
        f"another layer: the statements `show` runs, alone, on DuckDB's engine module "
        f"without its Python layer (benchmarks/show_statements.py) {replayed:.3f}s, "
        f"ratio {replayed / bare:.2f}"
    )


if __name__ == "__main__":
    main()
