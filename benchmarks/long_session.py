# ruff: noqa: E501
"""One long session: every command's time as the session doubles, which shows whatever
grows faster than the session does.

    python benchmarks/long_session.py [--turns 20000 40000 80000 160000] [--repeat 3]
                                      [--command NAME ...] [--copies 8 16 32]

For each number of turns, simulates one Murmur session of that many turns
(`mur_trace.synth`, one task, one attempt, the same seed for every size) and runs every command over its trace as a
whole process, `--repeat` times (medians): `redundant` (both policies), `loops`, `check`,
`show`, `steps`, `report`, `diff` (the session against itself), `export` and `ingest`.
It prints the seconds, and for each size the ratio to the size before: about 2 where a
command's time grows as the session does, 4 where it grows as its square. Then the same
over real sessions of other agents made long (`--copies`: a Claude Code session and a
Codex rollout of tests/fixtures/real, each written that many times over into one file,
every copy with new message and tool ids, the session's id kept), for
`redundant --policy context` and `show`. Not a test: the times depend on the machine.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from mur_trace.synth import simulate, synthesize


def one_attempt_seed() -> int:
    """The first seed whose session is one task of one attempt (a persistent session runs
    two or three tasks, some twice): its length is then the turns asked for."""
    seed = 0
    while any('"task_start"' in line for line in simulate(0, seed, (1, 1)).lines):
        seed += 1
    return seed


#: Each command over the trace TRACE, with OUT a fresh directory or file for its output.
COMMANDS = {
    "redundant": ["redundant", "TRACE", "-f", "csv"],
    "redundant --policy context": ["redundant", "--policy", "context", "TRACE", "-f", "csv"],
    "loops": ["loops", "TRACE", "-f", "csv"],
    "check": ["check", "TRACE", "--max-redundant", "1000000000"],
    "show": ["show", "TRACE"],
    "steps": ["steps", "TRACE"],
    "report": ["report", "TRACE"],
    "diff": ["diff", "TRACE", "TRACE"],
    "export": ["export", "--parquet", "OUT", "TRACE"],
    "ingest": ["ingest", "--db", "OUT.duckdb", "TRACE"],
}


FIXTURES = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "real"
#: The real sessions made long: the longest Claude Code session and Codex rollout there.
REAL = {
    "Claude Code": FIXTURES
    / "claude-code"
    / "marot_spotter__4d5611e5-241a-462a-8d15-5122611a9569.jsonl",
    "Codex": FIXTURES
    / "codex"
    / "codemie-ai_codemie-code__rollout-2026-05-11T11-26-55-019e1625-789d-76c0-80ab-3724b5ddb799.jsonl",
}
UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


#: The start of a Codex call id (`"call_…"`), not of the key that holds it (`"call_id"`).
CALL_ID = re.compile(r'"call_(?!id")')


def made_long(source: Path, copies: int, out: Path) -> Path:
    """`source` written `copies` times into `out`: each copy's ids made new (UUIDs but the
    session's, `toolu_` and `call_` ids), a Codex rollout's first line (its session's
    metadata) kept once."""
    text = source.read_text(encoding="utf-8")
    found = re.search(r'"sessionId":"([^"]+)"', text)
    session = found.group(1) if found else None
    with open(out, "w", encoding="utf-8") as long:
        for n in range(copies):
            salt = f"{n:012x}"
            copy = UUID.sub(
                lambda m, salt=salt: (
                    m.group(0) if m.group(0) == session else m.group(0)[:-12] + salt
                ),
                text,
            )
            copy = copy.replace('"toolu_', f'"toolu_{salt}')
            copy = CALL_ID.sub(f'"call_{salt}', copy)  # an id, not the key `"call_id"`
            if n and "session_meta" in copy.split("\n", 1)[0]:
                copy = copy.split("\n", 1)[1]
            long.write(copy if copy.endswith("\n") else copy + "\n")
    return out


def command_line() -> list[str]:
    """`mur-trace` as installed beside this Python, else the module."""
    installed = Path(sys.executable).parent / "mur-trace"
    return [str(installed)] if installed.exists() else [sys.executable, "-m", "mur_trace"]


def run(args: list[str], trace: Path, scratch: Path) -> float:
    """Seconds of one whole process; its output is dropped, its failure raised."""
    out = scratch / "out"
    shutil.rmtree(out, ignore_errors=True)
    for stale in scratch.glob("out.duckdb*"):
        stale.unlink()
    argv = command_line() + [
        str(trace) if a == "TRACE" else str(out) + a[3:] if a.startswith("OUT") else a for a in args
    ]
    start = time.perf_counter()
    done = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    took = time.perf_counter() - start
    if done.returncode not in (0, 1):  # 1: check's gate or findings said so
        raise SystemExit(f"{' '.join(argv)} failed ({done.returncode}): {done.stderr.strip()}")
    return took


def doubling(args: list[str], traces: list[Path], scratch: Path, repeat: int) -> str:
    """The medians of `args` over each of `traces`, each after the first with its ratio to
    the one before."""
    times = [statistics.median(run(args, t, scratch) for _ in range(repeat)) for t in traces]
    return " ".join(
        [f"{times[0]:14.2f}"]
        + [
            f"{f'{t:.2f} ({t / before:.1f}x)':>14}"
            for before, t in zip(times, times[1:], strict=False)
        ]
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, nargs="+", default=[20000, 40000, 80000, 160000])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--command", action="append", choices=sorted(COMMANDS), help="only these")
    parser.add_argument("--copies", type=int, nargs="+", default=[8, 16, 32])
    args = parser.parse_args()
    names = args.command or list(COMMANDS)
    with tempfile.TemporaryDirectory(prefix="long-session-") as tmp:
        scratch = Path(tmp)
        sizes, seed = [], one_attempt_seed()
        for turns in args.turns:
            workdir = synthesize(scratch / f"t{turns}", 1, seed=seed, turns=(turns, turns))
            (trace,) = workdir.glob("ses_*/trace.jsonl")
            with open(trace, "rb") as lines:
                events = sum(1 for _ in lines)
            sizes.append((turns, trace, events, trace.stat().st_size / 1e6))
        print(f"{os.cpu_count()} cores; medians of {args.repeat} runs; one session, simulated")
        print()
        header = f"{'command':28} " + " ".join(f"{f'{t:,} turns':>14}" for t, *_ in sizes)
        print(header)
        print(
            f"{'(events, MB)':28} " + " ".join(f"{f'{e:,}, {mb:.0f}':>14}" for _, _, e, mb in sizes)
        )
        print("-" * len(header))
        traces = [trace for _, trace, _, _ in sizes]
        for name in names:
            print(
                f"{name:28} " + doubling(COMMANDS[name], traces, scratch, args.repeat), flush=True
            )
        print()
        print("real sessions made long: copies into one file")
        for agent, source in REAL.items():
            files = [made_long(source, k, scratch / f"{agent[0]}{k}.jsonl") for k in args.copies]
            sizes_mb = ", ".join(
                f"{k}: {f.stat().st_size / 1e6:.0f} MB"
                for k, f in zip(args.copies, files, strict=True)
            )
            print(f"{agent} ({sizes_mb})")
            for name in ("redundant --policy context", "show"):
                print(
                    f"  {name:26} " + doubling(COMMANDS[name], files, scratch, args.repeat),
                    flush=True,
                )


if __name__ == "__main__":
    main()
