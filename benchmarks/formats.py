# ruff: noqa: E501
"""Reading other agents' logs against reading Murmur traces, per MB, in one run.

    python benchmarks/formats.py [--sessions 1000] [--murmur-sessions 5000] [--repeat 3]

Synthesises `--sessions` Claude Code sessions by replaying the real ones of
tests/fixtures/real/claude-code/ (each copy with new session, message and tool ids, a
subagent's files with its session), in project directories as Claude Code keeps them, and
a Murmur workdir (`mur_trace.synth`, the sessions of benchmarks/speed.py). Then, in one
process (no start-up, no output), alternately and `--repeat` times each, it measures:
`load` (the files into `events`, batch by batch, as `ingest` and `redundant` read them) and
`redundant` (`mur_trace.find_redundant`, reference and context policy). It prints the
medians in seconds and seconds per MB of log, and the ratio Claude Code / Murmur per MB.
"""

from __future__ import annotations

import argparse
import re
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import mur_trace
from mur_trace.load import BATCH_BYTES, batches, connect, drop_loaded, load_traces
from mur_trace.sessions import discover
from mur_trace.synth import synthesize

REAL = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "real" / "claude-code"
UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
TOOL_ID = re.compile(r'"(toolu_[A-Za-z0-9_]+|msg_[A-Za-z0-9_]+)"')


def replay(out: Path, sessions: int) -> list[Path]:
    """`sessions` copies of the real Claude Code sessions, round robin, with new ids."""
    sources = sorted(p for p in REAL.glob("*.jsonl"))
    texts = [
        (p.read_text(), [(s.name, s.read_text()) for s in sorted(p.with_suffix("").glob("subagents/*.jsonl"))])
        for p in sources
    ]  # fmt: skip
    written = []
    for n in range(sessions):
        text, subagents = texts[n % len(texts)]
        salt = f"{n:012x}"

        def fresh(value: str, salt: str = salt) -> str:
            return (
                UUID.sub(lambda m: m.group(0)[:-12] + salt, value)
                .replace('"toolu_', f'"toolu_{salt}')
                .replace('"msg_', f'"msg_{salt}')
            )

        session_id = UUID.search(fresh(text[text.index('"sessionId"') :])).group(0)
        project = out / f"-project-{n % 20}"
        project.mkdir(parents=True, exist_ok=True)
        session = project / f"{session_id}.jsonl"
        session.write_text(fresh(text))
        written.append(session)
        for name, sub in subagents:
            target = project / session_id / "subagents" / name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(fresh(sub))
    return written


def size_mb(files: list[str]) -> float:
    return sum(Path(f).stat().st_size for f in files) / 2**20


def load_all(files: list[str]) -> None:
    con = connect()
    for batch in batches(files, BATCH_BYTES):
        load_traces(con, batch)
    drop_loaded(con)
    con.close()


def timed(action: Callable[[], object]) -> float:
    start = time.perf_counter()
    action()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=1000)
    parser.add_argument("--murmur-sessions", type=int, default=5000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="mur-trace-formats-") as tmp:
        root = Path(tmp)
        replay(root / "projects", args.sessions)
        claude = discover([root / "projects"])
        murmur = discover(
            None, synthesize(root / "murmur", args.murmur_sessions, seed=7, turns=(16, 56))
        )
        inputs = {"claude-code": claude, "murmur": murmur}
        measures: dict[str, Callable[[list[str]], object]] = {
            "load": load_all,
            "redundant": lambda f: mur_trace.find_redundant(f),
            "redundant --policy context": lambda f: mur_trace.find_redundant(f, policy="context"),
        }
        times: dict[tuple[str, str], list[float]] = {}
        for _ in range(args.repeat):
            for measure, action in measures.items():
                for name, files in inputs.items():
                    times.setdefault((measure, name), []).append(
                        timed(lambda a=action, f=files: a(f))
                    )
        mb = {name: size_mb(files) for name, files in inputs.items()}
        print(
            f"claude-code: {args.sessions:,} sessions, {len(claude):,} files, {mb['claude-code']:,.0f} MB"
        )
        print(
            f"murmur:      {args.murmur_sessions:,} sessions, {len(murmur):,} files, {mb['murmur']:,.0f} MB"
        )
        print(f"medians of {args.repeat} runs, in one process\n")
        print(f"{'':28}{'claude-code s':>14}{'s/MB':>9}{'murmur s':>11}{'s/MB':>9}{'ratio/MB':>10}")
        for measure in measures:
            cc = statistics.median(times[(measure, "claude-code")])
            mm = statistics.median(times[(measure, "murmur")])
            cc_mb, mm_mb = cc / mb["claude-code"], mm / mb["murmur"]
            print(f"{measure:28}{cc:14.2f}{cc_mb:9.4f}{mm:11.2f}{mm_mb:9.4f}{cc_mb / mm_mb:10.2f}")


if __name__ == "__main__":
    main()
