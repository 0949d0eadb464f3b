"""Precision, recall and F1 of the redundancy policies, on recorded and on simulated sessions.

    python benchmarks/accuracy.py [--recorded benchmarks/recorded] [--sessions 300] [--seed 7]
                                  [--explain]

Two corpora, side by side in one table:

- *recorded*: sessions played for real against a git repository by `benchmarks/record.py`
  (committed under `benchmarks/recorded/`), whose truth comes from the bytes each call
  returned; or any corpus laid out the same way (`workdir/`, `truth.jsonl`, and
  `effects.toml` when its tools need one), such as the held-out sessions of
  `benchmarks/record_heldout.py` (`--recorded benchmarks/heldout`), named in the table by
  its directory;
- *simulated*: `mur_trace.synth` sessions (`--sessions`, `--seed`), generated on the fly.

Rows: the reference policy, the context policy, then the context policy with each rule of
`mur_trace.RULES` switched off in turn (what each rule is worth). Then, for the context policy
on the recorded corpus, its false positives and false negatives grouped by what the truth says
about them (`why`, `kind`, what happened `between` the earlier read and this one);
`--explain` lists each of them with the calls in between.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path

import mur_trace
from mur_trace.synth import synthesize

HERE = Path(__file__).resolve().parent
Key = tuple[str, int]
# the file was rewritten with the same bytes, or changed and came back: no trace without the
# calls' outputs can say the read was redundant
BYTES_ONLY = ("rewritten_same_bytes", "changed_and_back")


@dataclass
class Corpus:
    """Traces with a ground truth: `rows` has one object per reading call."""

    name: str
    workdir: Path
    trace: mur_trace.Trace
    rows: dict[Key, dict]

    @property
    def truth(self) -> set[Key]:
        return {key for key, row in self.rows.items() if row["redundant"]}

    def summary(self) -> str:
        sessions = sum(1 for _ in self.workdir.glob("ses_*/trace.jsonl"))
        events = self.trace.events.count("*").fetchall()[0][0]
        return (
            f"{self.name}: {sessions} sessions, {events:,} events, {len(self.rows):,} reads, "
            f"{len(self.truth):,} truly redundant"
        )


def open_corpus(name: str, root: Path) -> Corpus:
    """A corpus laid out as record.py and synth write it: workdir/, truth.jsonl, effects.toml."""
    effects = root / "effects.toml"
    trace = mur_trace.load(workdir=root / "workdir", effects=effects if effects.exists() else None)
    rows = {}
    for text in (root / "truth.jsonl").read_text(encoding="utf-8").splitlines():
        row = json.loads(text)
        rows[(row["session_id"], row["line"])] = row
    return Corpus(name, root / "workdir", trace, rows)


def score(found: set[Key], truth: set[Key]) -> tuple[float, float, float]:
    hits = len(found & truth)
    precision = hits / len(found) if found else 1.0
    recall = hits / len(truth) if truth else 1.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return precision, recall, f1


def findings(trace: mur_trace.Trace, policy: str) -> dict[Key, dict]:
    rel = trace.redundant_calls(policy)
    names = rel.columns
    return {(r[0], r[2]): dict(zip(names, r, strict=True)) for r in rel.fetchall()}


def policies(trace: mur_trace.Trace) -> list[tuple[str, dict[Key, dict]]]:
    """Findings of every row of the table, in order."""
    results = [("reference", findings(trace, "reference")), ("context", findings(trace, "context"))]
    for rule in mur_trace.RULES:
        trace.set_rules({rule: False})
        results.append((f"context --no-rule {rule}", findings(trace, "context")))
        trace.set_rules({rule: True})
    return results


def table(corpora: list[Corpus]) -> None:
    results = [policies(corpus.trace) for corpus in corpora]
    head = f"{'':<40}"
    sub = f"{'policy':<40}"
    for corpus in corpora:
        head += f" | {corpus.name:<32}"
        sub += f" | {'found':>6} {'precision':>9} {'recall':>6} {'F1':>6}"
    print(head.rstrip())
    print(sub)
    for row in range(len(results[0])):
        line = f"{results[0][row][0]:<40}"
        for corpus, result in zip(corpora, results, strict=True):
            found = set(result[row][1])
            p, r, f = score(found, corpus.truth)
            line += f" | {len(found):>6} {p:>9.3f} {r:>6.3f} {f:>6.3f}"
        print(line)


def group(row: dict) -> str:
    """What the truth says about a call, in a few words."""
    words = [row["why"], row["kind"]]
    if row.get("between"):
        words.append(f"({row['between']})")
    return " ".join(words)


def ranked(counts: Counter[str], most: int | None = None) -> list[tuple[str, int]]:
    """The `most` commonest of `counts`, ties by name: the same lines on every run (a
    Counter's own ties follow the order things were counted in, which a set's order sets)."""
    return sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:most]


def calls_between(corpus: Corpus, key: Key, prior: int | None) -> list[str]:
    """The calls and resets between an earlier read and this one, as written in the trace:
    `TOOL read` for a reading call, `TOOL WORD` (first word of its command or operation) for
    any other call, `COMPACTION` and the like for resets."""
    if prior is None:
        return []
    session, line = key
    lines = (corpus.workdir / session / "trace.jsonl").read_text(encoding="utf-8").splitlines()
    seen = []
    for number in range(prior + 1, line):
        event = json.loads(lines[number - 1])
        kind = event.get("event_type")
        if kind == "tool_call":
            data = event.get("input") or {}
            what = str(data.get("command") or data.get("operation") or "").split(" ")[0]
            tool = event.get("tool_name")
            seen.append(f"{tool} read" if (session, number) in corpus.rows else f"{tool} {what}")
        elif kind in ("compaction", "session_start", "task_start"):
            seen.append(kind.upper())
    return seen


def between(corpus: Corpus, key: Key, prior: int | None) -> str:
    """`calls_between`, in a line: how many reads, and the other calls in full."""
    if prior is None:
        return ""
    session, line = key
    lines = (corpus.workdir / session / "trace.jsonl").read_text(encoding="utf-8").splitlines()
    reads, others = 0, []
    for number in range(prior + 1, line):
        event = json.loads(lines[number - 1])
        kind = event.get("event_type")
        if kind == "tool_call" and (session, number) in corpus.rows:
            reads += 1
        elif kind == "tool_call":
            data = event.get("input") or {}
            what = data.get("command") or data.get("operation") or ""
            others.append(f"{event.get('tool_name')} {what}".strip())
        elif kind in ("compaction", "session_start", "task_start"):
            others.append(kind.upper())
    text = "; ".join(others[:6]) + (" …" if len(others) > 6 else "")
    return f"{reads} reads" + (f", {text}" if text else "")


def mistakes(corpus: Corpus, explain: bool) -> None:
    """The context policy's false positives and false negatives, grouped by the truth."""
    found = findings(corpus.trace, "context")
    truth = corpus.truth
    false_pos = sorted(set(found) - truth)
    false_neg = sorted(truth - set(found))
    print(f"\ncontext policy on the {corpus.name} corpus: what it gets wrong")
    print(f"\nfalse positives: {len(false_pos)} (flagged, not truly redundant)")
    fp_groups: Counter[str] = Counter()
    for key in false_pos:
        row = corpus.rows.get(key)
        rule = found[key].get("rule")
        label = f"not a read ({found[key]['tool_name']})" if row is None else group(row)
        fp_groups[f"{label}  [rule {rule}]"] += 1
    for label, count in ranked(fp_groups):
        print(f"  {count:>5}  {label}")
    print(f"\nfalse negatives: {len(false_neg)} (truly redundant, not flagged)")
    print("  (earlier tool -> this tool; then what lay between the two, counted once per miss)")
    fn_groups: dict[str, Counter[str]] = defaultdict(Counter)
    fn_between: dict[str, Counter[str]] = defaultdict(Counter)
    for key in false_neg:
        row = corpus.rows[key]
        fn_groups[group(row)][f"{row.get('prior_tool')}->{row['tool']}"] += 1
        seen = set(calls_between(corpus, key, row.get("prior_line")))
        fn_between[group(row)].update(seen or {"nothing"})
    for label, tools in sorted(fn_groups.items(), key=lambda kv: -sum(kv[1].values())):
        pairs = ", ".join(f"{pair} {n}" for pair, n in ranked(tools, 3))
        print(f"  {sum(tools.values()):>5}  {label:<38} {pairs}")
        common = ", ".join(f"{what} {n}" for what, n in ranked(fn_between[label], 5))
        print(f"         between: {common}")
    hidden = [k for k in truth if corpus.rows[k].get("between") in BYTES_ONLY]
    told = len([k for k in hidden if k in found])
    print(
        f"\n{len(hidden)} of the {len(truth)} truly redundant reads follow a change that left "
        f"the file as it was (between: {', '.join(BYTES_ONLY)}): only what the calls returned "
        f"can tell them; a detector blind to outputs has a recall of at most "
        f"{1 - len(hidden) / len(truth):.3f}; the byte counts the trace keeps (same_size) "
        f"tell {told} of them"
    )
    if not explain:
        print("\n(--explain lists each of them)")
        return
    print("\nfalse positives, one by one:")
    for key in false_pos:
        row = corpus.rows.get(key, {})
        finding = found[key]
        print(
            f"  {key[0][-8:]} line {key[1]:>4}  {finding['tool_name']:<10} "
            f"{row.get('request', finding['resource'])!s:<48} "
            f"truth: {group(row) if row else 'no read'}; "
            f"flagged by {finding['rule']} (prior line {finding['prior_line']})"
        )
        print(f"        between: {between(corpus, key, finding['prior_line'])}")
    print("\nfalse negatives, one by one:")
    for key in false_neg:
        row = corpus.rows[key]
        prior = row.get("prior_line")
        print(
            f"  {key[0][-8:]} line {key[1]:>4}  {row['tool']:<10} {row['request']:<48} "
            f"{group(row)}, prior line {prior} ({row.get('prior_tool')})"
        )
        print(f"        between: {between(corpus, key, prior)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--recorded",
        type=Path,
        default=HERE / "recorded",
        help="a corpus written by benchmarks/record.py or record_heldout.py (default: "
        "benchmarks/recorded)",
    )
    parser.add_argument("--sessions", type=int, default=300, help="simulated sessions")
    parser.add_argument("--seed", type=int, default=7, help="seed of the simulated sessions")
    parser.add_argument(
        "--explain", action="store_true", help="list every miss of the context policy"
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        synthesize(tmp, args.sessions, args.seed)
        corpora = [
            open_corpus(args.recorded.resolve().name, args.recorded),
            open_corpus(f"simulated (seed {args.seed})", Path(tmp)),
        ]
        for corpus in corpora:
            print(corpus.summary())
        print()
        table(corpora)
        mistakes(corpora[0], args.explain)


if __name__ == "__main__":
    try:
        main()
    except BrokenPipeError:  # a reader that stops early (| head) is not an error
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
