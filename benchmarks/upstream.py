"""`mur trace`'s own code against mur-trace, command by command, byte by byte.

    python benchmarks/upstream.py --murmur MURMUR WORKDIR...

MURMUR is a murmur-nexus/murmur checkout, or its git directory without a work tree (what
the search tool's fetch brings): its `crates/murmur-cli/src/commands/trace.rs`, the code of
`mur trace`, is built as it is into a program of its own in `--build` (default
/tmp/mur-trace-upstream): the file copied there, with a `main` that runs its four commands
and the one type of `error.rs` it uses (`CliError`, printed as `mur` prints it), both
written here. Nothing of Murmur's is kept in this repository. The build is offline, from
Debian's packaged crates (`apt-get install librust-clap-dev librust-serde-json-dev`), as
`../shared/bench` builds the compiled baseline.

Over each WORKDIR, both run `show`, `steps` and `steps --verbose` for every session,
`show` and `steps` with no session, `@1` and `@2`, `report` (whole, `--last 3`, two
sessions by suffix), `diff` (default, first against last) and the errors of a session
not found, an ordinal out of range and `--last` with sessions. Each pair of outputs
(standard output, standard error, whether it failed) is identical, or differs in one of
the ways mur-trace documents (README, "Parity with `mur trace`'s own code"), each counted:

- `rows`: mur-trace adds rows and nothing else: `redundant calls` to `diff`, `redundant
  tokens` and `re-sent tokens` to `report`;
- `warnings`: mur-trace names on stderr each session `report` leaves out (`mur trace`
  counts them in its note);
- `escaped`: control characters of the trace escaped (`\\n`, `\\u001b`) where `mur trace`
  writes them as they are (`steps --verbose` of an input with a line break);
- `spacing`: `steps` keeps a space between a tool name of 12 characters or more and the
  duration, which `mur trace` runs together (`list_directory1ms`);
- `unknown`: `show` writes `exit codes: —` where the session counts shell calls and the
  trace holds no exit code, where `mur trace` leaves the line empty;
- `source`: the directory `report` names, as given, where `mur trace` makes the default
  workdir absolute;
- `torn`: a trace whose last line is cut (a write the runtime did not finish) is read
  without it, with a warning, where `mur trace` stops at it (`EOF while parsing`), or
  leaves the session out of `report`;
- `status`: an error exits 2, where `mur` exits 1 (the message the same);
- `ordinal`: `show @N` and `steps @N` are the N-th newest session, as for `diff` and
  `report`, where `mur trace` looks for a session id ending in `@N` and finds none.

Anything else is printed in full, and the script exits 1. Not a test: it needs Murmur's
code and a Rust toolchain, which a clean clone does not have.
"""

from __future__ import annotations

import argparse
import difflib
import os
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

TRACE_RS = "crates/murmur-cli/src/commands/trace.rs"
MUR_TRACE = [sys.executable, "-m", "mur_trace"]

CARGO_TOML = """\
[package]
name = "mur-trace-upstream"
version = "0.0.0"
edition = "2021"

[[bin]]
name = "mur"
path = "src/main.rs"

[dependencies]
clap = { version = "4", features = ["derive"] }
serde = { version = "1", features = ["derive"] }
serde_json = "1"
"""

CARGO_CONFIG = """\
[source.crates-io]
replace-with = "debian"

[source.debian]
directory = "/usr/share/cargo/registry"

[net]
offline = true
"""

# `mur`'s main, for the trace commands only, and the part of its error.rs trace.rs uses
MAIN_RS = """\
mod error {
    use std::fmt;
    pub const E_IO_001: &str = "E-IO-001";
    pub const E_IO_003: &str = "E-IO-003";
    #[derive(Debug, Clone)]
    pub struct CliError {
        pub code: &'static str,
        pub message: String,
    }
    impl CliError {
        pub fn new(code: &'static str, message: impl Into<String>) -> Self {
            Self { code, message: message.into() }
        }
    }
    impl fmt::Display for CliError {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            write!(f, "error[{}]: {}", self.code, self.message)
        }
    }
}
mod trace;
use clap::{Parser, Subcommand};
use trace::*;
#[derive(Parser)]
#[command(name = "mur")]
struct Cli {
    #[command(subcommand)]
    command: Commands,
}
#[derive(Subcommand)]
enum Commands {
    Trace {
        #[command(subcommand)]
        command: TraceCommand,
    },
}
fn main() {
    let result = match Cli::parse().command {
        Commands::Trace { command } => match command {
            TraceCommand::Show { session, workdir } => run_trace_show(session, workdir),
            TraceCommand::Steps { session, verbose, workdir } => {
                run_trace_steps(session, workdir, verbose)
            }
            TraceCommand::Diff { before, after, workdir } => run_trace_diff(before, after, workdir),
            TraceCommand::Report { sessions, last, since, workdir } => {
                run_trace_report(sessions, last, since, workdir)
            }
        },
    };
    if let Err(err) = result {
        eprintln!("{err}");
        std::process::exit(1);
    }
}
"""


def trace_rs(murmur: Path) -> str:
    """`mur trace`'s source in a checkout, or at HEAD of a git directory."""
    if (murmur / TRACE_RS).is_file():
        return (murmur / TRACE_RS).read_text()
    return subprocess.run(
        ["git", "--git-dir", str(murmur), "show", f"HEAD:{TRACE_RS}"],
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip


def build(murmur: Path, where: Path) -> Path:
    """`mur` with `mur trace` as Murmur wrote it, built in `where` (again when it changed)."""
    (where / "src").mkdir(parents=True, exist_ok=True)
    (where / ".cargo").mkdir(exist_ok=True)
    files = {
        "Cargo.toml": CARGO_TOML,
        ".cargo/config.toml": CARGO_CONFIG,
        "src/main.rs": MAIN_RS,
        "src/trace.rs": trace_rs(murmur),
    }
    for name, text in files.items():
        path = where / name
        if not path.is_file() or path.read_text() != text:
            path.write_text(text)
    done = subprocess.run(["cargo", "build", "--release", "-q"], cwd=where)
    if done.returncode != 0:
        sys.exit("cargo build failed (Debian's crates: apt-get install librust-clap-dev "
                 "librust-serde-json-dev)")  # fmt: skip
    return where / "target" / "release" / "mur"


def commands(workdir: Path) -> list[list[str]]:
    """What both are asked of `workdir`."""
    sessions = sorted(p.name for p in workdir.iterdir() if p.name.startswith("ses_"))
    asked = [[*verb, s] for s in sessions for verb in (["show"], ["steps"], ["steps", "--verbose"])]
    asked += [["show"], ["steps"], ["show", "@1"], ["steps", "@2"], ["show", "ses_" + "f" * 32]]
    asked += [["show", "@999"], ["report"], ["report", "--last", "3"], ["diff"]]
    if len(sessions) >= 2:
        first, last = sessions[0], sessions[-1]
        asked += [["report", first[-8:], last[-8:]], ["diff", first, last]]
        asked += [["report", "--last", "2", first[-8:]]]
    return asked


#: Rows mur-trace adds to `mur trace`'s tables (README, "Parity with `mur trace`'s own code").
ADDED_ROWS = re.compile(r"(redundant calls|redundant tokens|re-sent tokens) {2,}")
#: What mur-trace adds on stderr: each session `report` leaves out, named.
WARNING = re.compile(r"warning\[E-[A-Z]+-\d+\]: .*\(skipped\)$")
#: What mur-trace says of a torn last line, which it leaves out.
TORN = "last line is incomplete (torn write); the lines before it are analysed"
#: `mur trace show @N` and `steps @N`: `@N` taken for the end of a session id.
ORDINAL = re.compile(r"error\[E-TRC-002\]: no session found matching suffix '@[0-9]+' in .*")


def kind(mur: subprocess.CompletedProcess[str], ours: subprocess.CompletedProcess[str]) -> str:
    """How two outputs differ: `same`, one of the documented ways (joined by `+`), or
    `other`."""
    if (mur.stdout, mur.stderr, mur.returncode) == (ours.stdout, ours.stderr, ours.returncode):
        return "same"
    if TORN in ours.stderr:  # read without its cut last line, which `mur trace` stops at
        return "torn"
    if mur.returncode == 1 and ours.returncode == 2:
        if (mur.stdout, mur.stderr) == (ours.stdout, ours.stderr):
            return "status"
        if ORDINAL.fullmatch(mur.stderr.strip()):
            return "ordinal"
    if (mur.returncode == 0) != (ours.returncode == 0):
        return "ordinal" if ORDINAL.fullmatch(mur.stderr.strip()) else "other"
    kinds = []
    text = _known(ours.stdout)
    if text != ours.stdout:
        kinds.append("unknown")
    theirs, mine = mur.stdout.splitlines(), text.splitlines()
    if mine != theirs:
        if _unescaped(mur.stdout) == _unescaped(text):
            kinds.append("escaped")
        elif _spaceless(mur.stdout) == _spaceless(text):
            kinds.append("spacing")
        elif _spaceless(_unescaped(mur.stdout)) == _spaceless(_unescaped(text)):
            kinds += ["escaped", "spacing"]
        else:
            way = _added(theirs, mine, ADDED_ROWS)
            if way is None:
                way = _added([_sourceless(x) for x in theirs], [_sourceless(x) for x in mine],
                             ADDED_ROWS)  # fmt: skip
                if way is None:
                    return "other"
                kinds.append("source")
            if way:
                kinds.append("rows")
    if mur.stderr != ours.stderr:
        if _added(mur.stderr.splitlines(), ours.stderr.splitlines(), WARNING) is None:
            return "other"
        kinds.append("warnings")
    return "+".join(kinds)


def _added(theirs: list[str], mine: list[str], allowed: re.Pattern[str]) -> bool | None:
    """Whether `mine` is `theirs` with lines `allowed` inserted (True), `theirs` itself
    (False), or anything else (None)."""
    matcher = difflib.SequenceMatcher(None, theirs, mine, autojunk=False)
    inserted = False
    for op, _i1, _i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            continue
        if op != "insert" or not all(allowed.match(line) for line in mine[j1:j2]):
            return None
        inserted = True
    return inserted


def _unescaped(text: str) -> str:
    """Text with what mur-trace escapes put back, and line breaks left out (a break inside a
    value is one line in mur-trace, two in `mur trace`)."""
    text = re.sub(r"\\u([0-9a-f]{4})", lambda m: chr(int(m.group(1), 16)), text)
    return text.replace("\\n", "\n").replace("\\r", "\r").replace("\\t", "\t").replace("\n", "")


def _known(text: str) -> str:
    """Text with `exit codes: —` (shell calls counted, no exit code recorded) as `mur
    trace` writes it: `exit codes: `, nothing after."""
    return re.sub(r"exit codes: —$", "exit codes: ", text, flags=re.MULTILINE)


def _spaceless(text: str) -> str:
    """Text without its spaces (`steps` keeps one after a tool name of 12 characters or
    more, where `mur trace` runs the name into the duration: `list_directory1ms`)."""
    return text.replace(" ", "")


def _sourceless(line: str) -> str:
    """A `Sessions: N  (where)` line without where."""
    return re.sub(r"^(Sessions: \d+)  \(.*\)$", r"\1", line)


def compare(mur: Path, workdir: Path, shown: int) -> tuple[Counter[str], Counter[str], int]:
    """Both over `workdir`: how many pairs differ in which way, and of them how many of
    `show` of a session (the redundant calls it lists are `mur trace`'s own findings); the
    others printed."""
    counted: Counter[str] = Counter()
    shows: Counter[str] = Counter()
    others = 0
    for asked in commands(workdir):
        args = [*asked, "--workdir", str(workdir)]
        theirs = subprocess.run([str(mur), "trace", *args], capture_output=True, text=True)
        ours = subprocess.run([*MUR_TRACE, *args], capture_output=True, text=True)
        way = kind(theirs, ours)
        counted[way] += 1
        if asked[0] == "show" and len(asked) == 2 and asked[1].startswith("ses_"):
            shows[way] += 1
        if way == "other":
            others += 1
            if others <= shown:
                print(f"\n== {' '.join(asked)}: exit {theirs.returncode} / {ours.returncode}")
                sys.stdout.writelines(difflib.unified_diff(
                    (theirs.stdout + theirs.stderr).splitlines(keepends=True),
                    (ours.stdout + ours.stderr).splitlines(keepends=True),
                    "mur trace", "mur-trace", n=1,
                ))  # fmt: skip
    return counted, shows, others


#: What the random sessions are made of (`--random`): the keys and values where identity
#: resolution has its cases (tests/test_property.py draws from the same), text that is not
#: ASCII or runs past what `show` (120) and `steps --verbose` (60) cut at, tool names past
#: the 12 characters `steps` pads to.
KEYS = ["path", "Path", "PATH", "file", "File", "file_path", "File_Path", "filepath",
        "filename", "FileName", "operation", "paths", "FİLE", "pattern", "command"]  # fmt: skip
VALUES = ["a", "b", "./a", "src/a.rs", "src//a.rs", "sym:A", "", " a", 3, None, True, ["a"],
          "é/ü.rs", "日本語/ファイル.txt", "🙂.md", "x" * 70, "é" * 130]  # fmt: skip
TOOLS = ["editor", "fs", "bash", "fetch", "list_directory", "read_text_file_v2"]


def _duration(rng: Any) -> int:
    """Milliseconds of every magnitude `mur trace` writes apart (ms, s, min, h)."""
    top = rng.choice([999, 59_999, 3_599_999, 90_000_000])
    return rng.randint(0, top)


def _attempt(rng: Any, capsule: str) -> list[dict]:
    """One `session_start … session_end` of random turns."""
    events: list[dict] = [{"event_type": "session_start", "capsule_name": capsule,
                           "capsule_version": "1.0.0", "model": rng.choice(["m", "модель"]),
                           "max_turns": rng.choice([5, 30, 60])}]  # fmt: skip
    turns = rng.randint(0, 25)
    for turn in range(turns):
        kind = rng.choices(["tool", "skill", "text"], [8, 1, 1])[0]
        tool = rng.choice(TOOLS)
        events.append({"event_type": "inference", "turn": turn,
                       "decision": "text" if kind == "text" else "tool_call",
                       "tool_name": tool if kind == "tool" else None,
                       "input_tokens": rng.randint(0, 3_000_000),
                       "output_tokens": rng.randint(0, 20_000)})  # fmt: skip
        if kind == "skill":
            events.append({"event_type": "skill_call", "turn": turn,
                           "skill_name": rng.choice(["review", "plan"]),
                           "output_bytes": rng.randint(0, 900), "duration_ms": _duration(rng),
                           "status": rng.choice(["ok", "error"])})  # fmt: skip
        if kind != "tool":
            continue
        for _ in range(rng.choice([1, 1, 1, 2])):  # sometimes two calls in a turn
            call: dict = {"event_type": "tool_call", "tool_name": tool,
                          "duration_ms": _duration(rng), "output_bytes": rng.randint(0, 9000),
                          "status": rng.choice(["ok", "ok", "ok", "error"])}  # fmt: skip
            if rng.random() < 0.9:
                call["turn"] = turn if rng.random() < 0.9 else rng.randint(0, turns)
            shape = rng.random()
            if shape < 0.8:
                call["input"] = {rng.choice(KEYS): rng.choice(VALUES)
                                 for _ in range(rng.randint(0, 4))}  # fmt: skip
            elif shape < 0.9:
                call["input"] = rng.choice([None, ["a"], "a", "é" * 70])
            if rng.random() < 0.7:
                call["state_effect"] = rng.choice(["read", "read", "mutate", "Read", ""])
            if rng.random() < 0.3:
                call["resource_id"] = rng.choice(["a", "src/a.rs", "sym:A", "", " a", "é"])
            events.append(call)
            if tool == "bash" and rng.random() < 0.7:
                events.append({"event_type": "shell", "turn": turn, "command": "cat a",
                               "exit_code": rng.choice([0, 0, 1, 2, 127, -1]),
                               "stdout_bytes": 10, "stderr_bytes": 0,
                               "duration_ms": _duration(rng)})  # fmt: skip
        if rng.random() < 0.05:
            before = rng.randint(10_000, 200_000)
            events.append({"event_type": "compaction", "turn": turn, "tokens_before": before,
                           "tokens_after": rng.randint(0, before)})  # fmt: skip
    events.append({"event_type": "inference", "turn": turns, "decision": "end_turn",
                   "input_tokens": rng.randint(0, 9000), "output_tokens": 5})  # fmt: skip
    events.append({"event_type": "session_end", "total_turns": turns + rng.choice([0, 1, 7]),
                   "total_input_tokens": rng.randint(0, 10**8),
                   "total_output_tokens": rng.randint(0, 10**6),
                   "total_tool_calls": rng.randint(0, turns + 3),
                   "total_shell_calls": rng.randint(0, 5), "duration_ms": _duration(rng),
                   "exit_status": rng.choice(["ok", "failed", "max_turns_reached"])})  # fmt: skip
    return events


def random_workdir(where: Path, sessions: int, seed: int) -> Path:
    """`sessions` Murmur sessions of random events, whole (every field `mur trace`
    requires), in `where`/workdir: every case of identity resolution and effect, calls
    that fail, turns missing or repeated, skills, shells, compactions, tasks reopened,
    durations and counts of every size, text that is not ASCII or is long."""
    import json
    import random

    rng = random.Random(seed)
    workdir = where / "workdir"
    for n in range(sessions):
        tail = rng.getrandbits(64) | 1 << 63
        sid = f"ses_{0x01A2000000000 + n * 7919:012x}7{rng.getrandbits(12):03x}{tail:016x}"
        capsule = rng.choice(["cap", "refactor-bot", "капсула"])
        tasks = rng.randint(2, 3) if rng.random() < 0.2 else 0
        events: list[dict] = []
        for _task in range(tasks or 1):
            task_id = f"tsk_{rng.getrandbits(64):016x}" if tasks else None
            if task_id:
                events.append({"event_type": "task_start", "task_id": task_id,
                               "context_id": "ctx", "source": "a2a"})  # fmt: skip
            attempts = 2 if task_id and rng.random() < 0.4 else 1
            for attempt in range(attempts):
                events += _attempt(rng, capsule)
                if attempt + 1 < attempts:
                    events.append({"event_type": "task_reopened", "task_id": task_id,
                                   "hook_name": "tests", "reason": "no test",
                                   "reopen_number": attempt + 1})  # fmt: skip
            if task_id:
                events.append({"event_type": "task_end", "task_id": task_id,
                               "exit_status": rng.choice(["ok", "failed"]),
                               "duration_ms": _duration(rng), "turns": rng.randint(0, 40),
                               "input_tokens": rng.randint(0, 10**6),
                               "output_tokens": rng.randint(0, 10**5), "tool_calls": 3,
                               "shell_calls": 1, "reopen_count": attempts - 1})  # fmt: skip
        clock = 1_780_000_000_000 + n * 60_000
        for event in events:
            event["session_id"] = sid
            clock += rng.randint(1, 900)
            event["timestamp"] = clock
        (workdir / sid).mkdir(parents=True)
        text = "".join(json.dumps(e, ensure_ascii=False) + "\n" for e in events)
        (workdir / sid / "trace.jsonl").write_text(text, encoding="utf-8")
    return workdir


def main() -> None:
    """Build `mur trace` from Murmur's code and compare it with mur-trace."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--murmur", type=Path, required=True)
    parser.add_argument("--build", type=Path, default=Path("/tmp/mur-trace-upstream"))
    parser.add_argument("--show", type=int, default=5, help="Differences printed a workdir.")
    parser.add_argument(
        "--random", type=int, default=0, help="Also this many random sessions (a workdir)."
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("workdirs", type=Path, nargs="*")
    args = parser.parse_args()
    mur = build(args.murmur, args.build)
    if args.random:
        import tempfile

        made = Path(tempfile.mkdtemp(prefix="mur-trace-random-"))
        args.workdirs.append(random_workdir(made, args.random, args.seed))
    others = 0
    print(f"{'workdir':<40} {'sessions':>8} {'pairs':>6}  how they compare")
    for workdir in args.workdirs:
        counted, shows, more = compare(mur, workdir, args.show)
        others += more
        sessions = sum(1 for p in workdir.iterdir() if p.name.startswith("ses_"))
        ways = ", ".join(f"{way} {n}" for way, n in sorted(counted.items()))
        print(f"{str(workdir):<40} {sessions:>8} {sum(counted.values()):>6}  {ways}")
        ways = ", ".join(f"{way} {n}" for way, n in sorted(shows.items()))
        print(f"{'':<40} {'':>8} {'':>6}  of them `show` of a session: {ways}")
    sys.exit(1 if others else 0)


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUTF8", "1")
    main()
