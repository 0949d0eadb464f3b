"""Precision, recall and F1 of the redundancy policies against the synthetic ground truth.

    python benchmarks/accuracy.py [--sessions 300] [--seed 7]

Generates sessions with `mur_trace.synth` (which records, for every read, whether the model
really already held what it returned), runs both policies, and prints one row per policy,
then the context policy with each rule switched off in turn (what each rule is worth).
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path

import mur_trace
from mur_trace.synth import synthesize


def score(found: set[tuple[str, int]], truth: set[tuple[str, int]]) -> tuple[float, float, float]:
    hits = len(found & truth)
    precision = hits / len(found) if found else 1.0
    recall = hits / len(truth) if truth else 1.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return precision, recall, f1


def findings(trace: mur_trace.Trace, policy: str) -> set[tuple[str, int]]:
    return set(trace.redundant_calls(policy).select("session_id, line").fetchall())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=300)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        workdir = synthesize(tmp, args.sessions, args.seed)
        truth_text = (Path(tmp) / "truth.jsonl").read_text(encoding="utf-8")
        rows = [json.loads(line) for line in truth_text.splitlines()]
        truth = {(r["session_id"], r["line"]) for r in rows if r["redundant"]}
        trace = mur_trace.load(workdir=workdir, effects=Path(tmp) / "effects.toml")
        events = trace.events.count("*").fetchall()[0][0]
        print(
            f"{args.sessions} sessions, {events:,} events, {len(rows):,} reads, "
            f"{len(truth):,} truly redundant (seed {args.seed})\n"
        )
        print(f"{'policy':<40} {'found':>6} {'precision':>10} {'recall':>8} {'F1':>6}")
        results = [("reference", findings(trace, "reference"))]
        results.append(("context", findings(trace, "context")))
        for rule in mur_trace.RULES:
            trace.set_rules({rule: False})
            results.append((f"context --no-rule {rule}", findings(trace, "context")))
            trace.set_rules({rule: True})
        for name, found in results:
            p, r, f = score(found, truth)
            print(f"{name:<40} {len(found):>6} {p:>10.3f} {r:>8.3f} {f:>6.3f}")


if __name__ == "__main__":
    main()
