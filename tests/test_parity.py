"""`mur trace` parity: show, steps, diff, report and session addressing (SPEC section 4).

Expected outputs are written out by hand from the reference's formats.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

import mur_trace
from mur_trace.cli import app
from mur_trace.load import create_macros
from mur_trace.sessions import created_ms, select_sessions

runner = CliRunner()

ALPHA = "ses_aaaaaaaaaaaa7aaa8aaa000000000001"
BETA = "ses_bbbbbbbbbbbb7bbb8bbb000000000002"


def run(*args: str):
    return runner.invoke(app, list(args))


def alpha() -> list[dict]:
    """2 turns, one bash call and its shell command, no compaction, 500ms, ok."""
    return [
        {"event_type": "session_start", "session_id": ALPHA, "timestamp": 1000,
         "capsule_name": "demo", "capsule_version": "1.0.0", "model": "m-1", "max_turns": 10},
        {"event_type": "inference", "turn": 1, "input_tokens": 1000, "output_tokens": 200,
         "decision": "tool_call", "tool_name": "bash"},
        {"event_type": "tool_call", "turn": 1, "tool_name": "bash",
         "input": {"command": "echo hi"}, "output_bytes": 20, "duration_ms": 100,
         "status": "ok"},
        {"event_type": "shell", "turn": 1, "command": "echo hi", "exit_code": 0,
         "duration_ms": 50},
        {"event_type": "inference", "turn": 2, "input_tokens": 1200, "output_tokens": 150,
         "decision": "end_turn", "tool_name": None},
        {"event_type": "session_end", "total_turns": 2, "total_input_tokens": 2200,
         "total_output_tokens": 350, "total_tool_calls": 1, "total_shell_calls": 1,
         "duration_ms": 500, "exit_status": "ok"},
    ]  # fmt: skip


def beta() -> list[dict]:
    """5 turns, a failed call, a re-read, a compaction, a skill call, max_turns_reached."""
    read = {"operation": "read_file", "path": "src/a.rs"}
    return [
        {"event_type": "session_start", "session_id": BETA, "capsule_name": "demo",
         "capsule_version": "1.0.0", "model": "m-1", "max_turns": 5},
        {"event_type": "inference", "turn": 1, "input_tokens": 1500, "output_tokens": 300,
         "decision": "tool_call", "tool_name": "editor"},
        {"event_type": "tool_call", "turn": 1, "tool_name": "editor", "input": read,
         "duration_ms": 200, "status": "ok", "state_effect": "read"},
        {"event_type": "inference", "turn": 2, "input_tokens": 1800, "output_tokens": 250,
         "decision": "tool_call", "tool_name": "bash"},
        {"event_type": "tool_call", "turn": 2, "tool_name": "bash",
         "input": {"command": "cat missing"}, "duration_ms": 150, "status": "error"},
        {"event_type": "shell", "turn": 2, "command": "cat missing", "exit_code": 1,
         "duration_ms": 30},
        {"event_type": "inference", "turn": 3, "input_tokens": 2000, "output_tokens": 200,
         "decision": "tool_call", "tool_name": "editor"},
        {"event_type": "tool_call", "turn": 3, "tool_name": "editor", "input": read,
         "duration_ms": 180, "status": "ok", "state_effect": "read"},
        {"event_type": "compaction", "turn": 3, "tokens_before": 5300, "tokens_after": 2000},
        {"event_type": "inference", "turn": 4, "input_tokens": 2100, "output_tokens": 180,
         "decision": "tool_call", "tool_name": "bash"},
        {"event_type": "tool_call", "turn": 4, "tool_name": "bash", "input": {"command": "pwd"},
         "duration_ms": 220, "status": "ok"},
        {"event_type": "shell", "turn": 4, "command": "pwd", "exit_code": 0, "duration_ms": 10},
        {"event_type": "inference", "turn": 5, "input_tokens": 2300, "output_tokens": 160,
         "decision": "text", "tool_name": None},
        {"event_type": "skill_call", "turn": 5, "skill_name": "summarise", "duration_ms": 1200,
         "status": "ok"},
        {"event_type": "session_end", "total_turns": 5, "total_input_tokens": 9700,
         "total_output_tokens": 1090, "total_tool_calls": 4, "total_shell_calls": 2,
         "duration_ms": 1700, "exit_status": "max_turns_reached"},
    ]  # fmt: skip


def multi_task(tasks: int, session: str = "ses_cccccccccccc7ccc8ccc000000000003") -> list[dict]:
    """A persistent capsule: `tasks` task blocks, each with its own attempt."""
    lines: list[dict] = []
    for i in range(tasks):
        task_id = f"tsk_{i:08x}" + "0" * 24
        lines += [
            {"event_type": "a2a_task_received", "task_id": task_id, "message_id": f"m{i}"},
            {"event_type": "task_start", "task_id": task_id, "context_id": f"ctx_{i}",
             "source": "a2a"},
            {"event_type": "session_start", "session_id": session, "capsule_name": "mt",
             "capsule_version": "0.1.0", "model": "m", "max_turns": 20},
            {"event_type": "inference", "turn": 0, "input_tokens": 500 * (i + 1),
             "output_tokens": 100 * (i + 1), "decision": "end_turn", "tool_name": None},
            {"event_type": "session_end", "total_turns": 1, "total_input_tokens": 500 * (i + 1),
             "total_output_tokens": 100 * (i + 1), "total_tool_calls": 0,
             "total_shell_calls": 0, "duration_ms": 200 * (i + 1), "exit_status": "ok"},
            {"event_type": "task_end", "task_id": task_id, "exit_status": "ok",
             "duration_ms": 200 * (i + 1), "turns": 2 * (i + 1), "input_tokens": 500 * (i + 1),
             "output_tokens": 100 * (i + 1), "tool_calls": 0, "shell_calls": 0},
        ]  # fmt: skip
    return lines


def write(workdir: Path, session: str, events: list[dict] | str) -> Path:
    path = workdir / session / "trace.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    text = events if isinstance(events, str) else "".join(json.dumps(e) + "\n" for e in events)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    wd = tmp_path / "workdir"
    write(wd, ALPHA, alpha())
    write(wd, BETA, beta())
    return wd


# ── show ───────────────────────────────────────────────────────────────────────

SHOW_ALPHA = """\
── Session ──────────────────────────────────────
session:    ses_aaaaaaaaaaaa7aaa8aaa000000000001
capsule:    demo v1.0.0
model:      m-1
status:     ok
duration:   500ms

── Turns ────────────────────────────────────────
count:      2  (max: 10)

── Tokens ───────────────────────────────────────
input:      2,200  (avg 1100/turn)
output:     350  (avg 175/turn)
total:      2,550

── Tool calls ───────────────────────────────────
count:      1  (1 ok, 0 error)  success 100.0%
latency:    avg 100ms
  turn 1  bash 100ms ✓  {"command":"echo hi"}
  turn 2  end_turn

── Redundant calls ──────────────────────────────
count:      0

── Skill calls ──────────────────────────────────
count:      0

── Shell calls ──────────────────────────────────
count:      1
exit codes: 1 ok
latency:    avg 50ms

── Compaction ───────────────────────────────────
fired:      no
"""


def test_show_prints_the_reference_sections(workdir: Path) -> None:
    result = run("show", "aaa000000000001", "--workdir", str(workdir))
    assert result.exit_code == 0, result.output
    assert result.stdout == SHOW_ALPHA


def test_show_beta_sections(workdir: Path) -> None:
    result = run("show", BETA, "--workdir", str(workdir))
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "count:      4  (3 ok, 1 error)  success 75.0%\nlatency:    avg 187ms\n" in out
    assert (
        '  turn 1  editor 200ms ✓  {"operation":"read_file","path":"src/a.rs"}\n'
        '  turn 2  bash 150ms ✗  {"command":"cat missing"}\n'
        '  turn 3  editor 180ms ✓  {"operation":"read_file","path":"src/a.rs"}\n'
        '  turn 4  bash 220ms ✓  {"command":"pwd"}\n'
        "  turn 5  text\n"
    ) in out
    assert (
        "── Redundant calls ──────────────────────────────\n"
        "count:      1\n"
        "  turn 3  editor  src/a.rs  (re-reads turn 1)\n"
    ) in out
    assert (
        "count:      1  (1 ok, 0 error)  success 100.0%\nlatency:    avg 1.2s\n"
        "  turn 5  summarise 1.2s ✓\n"
    ) in out
    assert "count:      2\nexit codes: 1 ok, 1 failed (exit 1)\nlatency:    avg 20ms\n" in out
    assert out.endswith("fired:      yes  at turn 3  (5,300 → 2,000 tokens)\n")


def test_show_without_argument_picks_the_newest_session(workdir: Path) -> None:
    result = run("show", "--workdir", str(workdir))
    assert f"session:    {BETA}" in result.stdout


def test_show_input_is_cut_at_120_characters(tmp_path: Path) -> None:
    events = alpha()
    events[2]["input"] = {"command": "é" * 200}
    path = write(tmp_path, ALPHA, events)
    result = run("show", str(path))
    expected = '{"command":"' + "é" * 108 + "…"
    assert f"  turn 1  bash 100ms ✓  {expected}\n" in result.stdout


@pytest.mark.parametrize("end_twice", [False, True])
def test_show_multi_task_breakdown(tmp_path: Path, end_twice: bool) -> None:
    lines = multi_task(3)
    if end_twice:
        # `mur trace` removes the task_start a task_end matched: a second task_end of one
        # start is left out (it was a task of its own, in show's Tasks and report's means)
        lines.insert(6, {**lines[5], "duration_ms": 999})
    path = write(tmp_path, "ses_cccccccccccc7ccc8ccc000000000003", lines)
    result = run("show", str(path))
    assert result.exit_code == 0, result.output
    assert result.stdout.endswith(
        "fired:      no\n"
        "── Tasks ───────────────────────────────────────\n"
        "task 1  tsk_00000000  turns: 2  in: 500  out: 100  ok  200ms\n"
        "task 2  tsk_00000001  turns: 4  in: 1,000  out: 200  ok  400ms\n"
        "task 3  tsk_00000002  turns: 6  in: 1,500  out: 300  ok  600ms\n"
    )


def test_show_single_task_has_no_breakdown(tmp_path: Path) -> None:
    path = write(tmp_path, "ses_cccccccccccc7ccc8ccc000000000003", multi_task(1))
    result = run("show", str(path))
    assert result.exit_code == 0
    assert "Tasks" not in result.stdout


def test_show_reopens(tmp_path: Path) -> None:
    events = alpha()
    events.insert(5, {"event_type": "task_reopened", "task_id": "t", "hook_name": "require-tests",
                      "reason": "x" * 100, "reopen_number": 1})  # fmt: skip
    result = run("show", str(write(tmp_path, ALPHA, events)))
    assert result.stdout.endswith(
        "fired:      no\n\n── Reopens ──────────────────────────────────────\n"
        f"reopen 1  by require-tests  “{'x' * 80}”\n"
    )


def test_show_json_has_the_same_numbers(workdir: Path) -> None:
    result = run("show", "@1", "--workdir", str(workdir), "--format", "json")
    data = json.loads(result.stdout)
    assert data["metrics"]["session_id"] == BETA
    assert data["metrics"]["tool_success_pct"] == 75.0
    assert data["metrics"]["redundant_calls"] == 1
    assert [f["line"] for f in data["redundant_calls"]] == [8]
    assert data["shell_exit_codes"] == [
        {"trace_path": str(workdir / BETA / "trace.jsonl"), "exit_code": 0, "commands": 1},
        {"trace_path": str(workdir / BETA / "trace.jsonl"), "exit_code": 1, "commands": 1},
    ]


def test_unknown_event_types_are_skipped(tmp_path: Path) -> None:
    events = alpha()
    events.insert(1, {"event_type": "unknown_future_event", "data": {"x": 1}})
    result = run("show", str(write(tmp_path, ALPHA, events)))
    assert result.exit_code == 0
    assert result.stdout == SHOW_ALPHA


def test_incomplete_trace_cannot_be_shown(tmp_path: Path) -> None:
    path = write(tmp_path, ALPHA, alpha()[:-1])
    result = run("show", str(path))
    assert result.exit_code == 2
    assert result.stderr == f"error[E-TRC-001]: {path}: no session_end event found\n"


def test_show_empty_trace_file(tmp_path: Path) -> None:
    path = write(tmp_path, ALPHA, "")
    result = run("show", str(path))
    assert result.exit_code == 2
    assert result.stderr == f"error[E-TRC-001]: {path}: trace file is empty\n"


def test_show_malformed_line_names_its_number(tmp_path: Path) -> None:
    lines = [json.dumps(e) for e in alpha()]
    lines[3] = "{not json"
    path = write(tmp_path, ALPHA, "\n".join(lines) + "\n")
    result = run("show", str(path))
    assert result.stderr == f"error[E-TRC-001]: {path}:4: not valid JSON\n"


def test_show_nonexistent_file(tmp_path: Path) -> None:
    result = run("show", str(tmp_path / "missing.jsonl"))
    assert result.exit_code == 2
    assert result.stderr.startswith("error[E-IO-001]: ")


# ── session addressing ─────────────────────────────────────────────────────────


def test_suffix_is_case_insensitive(workdir: Path) -> None:
    result = run("show", "AAA000000000001", "--workdir", str(workdir))
    assert result.exit_code == 0
    assert f"session:    {ALPHA}" in result.stdout


def test_ambiguous_suffix_lists_the_candidates(workdir: Path) -> None:
    other = "ses_ffffffffffff7fff8fff000000000001"
    write(workdir, other, alpha())
    result = run("show", "0001", "--workdir", str(workdir))
    assert result.exit_code == 2
    # as `mur trace` lists them: one candidate a line, sorted
    assert result.stderr == (
        "error[E-TRC-002]: ambiguous: '0001' matches 2 sessions — provide more characters\n"
        f"  {ALPHA}\n"
        f"  {other}\n"
    )


def test_suffix_without_match(workdir: Path) -> None:
    result = run("show", "zzzz", "--workdir", str(workdir))
    assert (
        result.stderr == f"error[E-TRC-002]: no session found matching suffix 'zzzz' in {workdir}\n"
    )


def test_full_id_not_present(workdir: Path) -> None:
    missing = "ses_dddddddddddd7ddd8ddd000000000004"
    result = run("show", missing, "--workdir", str(workdir))
    assert result.stderr == f"error[E-TRC-002]: session {missing} not found in {workdir}\n"


def test_empty_workdir(tmp_path: Path) -> None:
    result = run("show", "--workdir", str(tmp_path))
    assert result.stderr == f"error[E-TRC-002]: no sessions found in workdir at {tmp_path}\n"


@pytest.mark.parametrize(
    ("ordinal", "message"),
    [
        ("@3", "@3 is out of range — workdir has 2 sessions"),
        ("@0", "ordinal must be @1 or higher"),
        ("@x", "invalid ordinal '@x' — expected @1, @2, ..."),
    ],
)
def test_bad_ordinals(workdir: Path, ordinal: str, message: str) -> None:
    result = run("diff", ordinal, "@1", "--workdir", str(workdir))
    assert result.exit_code == 2
    assert result.stderr == f"error[E-TRC-002]: before: {message}\n"


def test_diff_reports_both_bad_arguments(workdir: Path) -> None:
    result = run("diff", "@9", "nope", "--workdir", str(workdir))
    assert result.stderr == (
        "error[E-TRC-002]: before: @9 is out of range — workdir has 2 sessions\n"
        f"after: no session found matching suffix 'nope' in {workdir}\n"
    )


def test_diff_in_a_workdir_of_no_session_says_so_once(tmp_path: Path) -> None:
    # `mur trace` says it without `before:` / `after:`; it was said twice, each labelled
    result = run("diff", "--workdir", str(tmp_path))
    assert result.exit_code == 2
    assert result.stderr == f"error[E-TRC-002]: no sessions found in workdir at {tmp_path}\n"


@pytest.mark.parametrize("missing", ["before", "after"])
def test_diff_with_a_missing_trace_file(workdir: Path, missing: str) -> None:
    absent = str(workdir / "missing.jsonl")
    present = str(workdir / ALPHA / "trace.jsonl")
    args = [absent, present] if missing == "before" else [present, absent]
    result = run("diff", *args)
    assert result.exit_code == 2
    assert result.stderr == f"error[E-IO-001]: trace file not found: {absent}\n"


def test_diff_with_an_empty_trace_file(workdir: Path) -> None:
    empty = write(workdir, "ses_eeeeeeeeeeee7eee8eee000000000005", "")
    result = run("diff", str(empty), "@1", "--workdir", str(workdir))
    assert result.exit_code == 2
    assert result.stderr == f"error[E-TRC-001]: {empty}: trace file is empty\n"


def test_diff_with_one_argument_is_an_error(workdir: Path) -> None:
    result = run("diff", "@1", "--workdir", str(workdir))
    assert result.exit_code == 2
    assert "expects 0 or 2 arguments, got 1" in result.stderr


# ── steps ──────────────────────────────────────────────────────────────────────


def test_steps(workdir: Path) -> None:
    result = run("steps", "--workdir", str(workdir))
    assert result.exit_code == 0, result.output
    assert result.stdout == (
        f"Session {BETA}  (5 turns)\n"
        "\n"
        "  1  tool_call    editor      200ms\n"
        "  2  tool_call    bash        150ms\n"
        "  3  tool_call    editor      180ms\n"
        "  4  tool_call    bash        220ms\n"
        "  5  text         —           1.2s\n"
        "\n"
    )


def test_steps_verbose_shows_the_first_string_cut_at_60(tmp_path: Path) -> None:
    events = alpha()
    events[2]["input"] = {"z": "last", "command": "x" * 70, "a": 5}
    result = run("steps", str(write(tmp_path, ALPHA, events)), "--verbose")
    assert result.stdout.splitlines()[2:4] == [
        f'  1  tool_call    bash        100ms   "{"x" * 60}…"',
        "  2  end_turn     —           —",
    ]


def test_steps_verbose_shows_an_empty_first_string(tmp_path: Path) -> None:
    # the empty string is a string: `mur trace` shows `""` (its extract_input_summary finds
    # it first, keys in byte order); it was passed over, and the row had no summary
    events = alpha()
    events[2]["input"] = {"b": "later", "a": ""}
    result = run("steps", str(write(tmp_path, ALPHA, events)), "--verbose")
    assert result.stdout.splitlines()[2] == '  1  tool_call    bash        100ms   ""'


def test_steps_with_no_turns(tmp_path: Path) -> None:
    events = [e for e in alpha() if e["event_type"] != "inference"]
    result = run("steps", str(write(tmp_path, ALPHA, events)))
    assert result.stdout == f"Session {ALPHA}  (0 turns)\n\n\n"


# ── diff ───────────────────────────────────────────────────────────────────────

DIFF_ALPHA_BETA = """\
Metric                 Run A            Run B            Delta
────────────────────── ──────────────── ──────────────── ──────────────────────────
turns                  2                5                +3 (A better)
duration               500ms            1.7s             +1.2s (A better)
input tokens           2,200            9,700            +7500 (A better)
output tokens          350              1,090            +740 (A better)
input/turn (avg)       1100             1940             +840.0 (A better)
output/turn (avg)      175              218              +43.0 (A better)
tool calls             1                4                +3 (A better)
tool success rate      100.0%           75.0%            -25.0 (A better)
avg tool latency       100ms            187ms            +87ms (A better)
redundant calls        0                1                +1 (A better)
skill calls            0                1                +1 (A better)
shell calls            1                2                +1 (A better)
avg shell latency      50ms             20ms             -30ms (B better)
compaction             none             turn 3           —
exit status            ok               max_turns_reached —
"""


def test_diff_defaults_to_the_two_newest(workdir: Path) -> None:
    result = run("diff", "--workdir", str(workdir))
    assert result.exit_code == 0, result.output
    assert result.stdout == DIFF_ALPHA_BETA


def test_diff_same_session_is_all_equal(workdir: Path) -> None:
    result = run("diff", "@1", BETA, "--workdir", str(workdir), "-f", "json")
    rows = json.loads(result.stdout)
    assert {r["better"] for r in rows if r["kind"] != "text"} == {"="}
    assert [r["metric"] for r in rows][9] == "redundant_calls"


def test_diff_json_markers(workdir: Path) -> None:
    rows = json.loads(run("diff", "--workdir", str(workdir), "-f", "json").stdout)
    by_metric = {r["metric"]: r for r in rows}
    assert by_metric["avg_shell_ms"]["better"] == "B"
    assert by_metric["tool_success_pct"]["better"] == "A"
    assert by_metric["redundant_calls"]["delta"] == 1


def ended(session: str, *calls: dict, **totals) -> list[dict]:
    """A session_start, `calls`, and a session_end of `totals` (0 and `ok` where not given)."""
    end = {"event_type": "session_end", "total_turns": 0, "total_input_tokens": 0,
           "total_output_tokens": 0, "total_tool_calls": 0, "total_shell_calls": 0,
           "duration_ms": 0, "exit_status": "ok"}  # fmt: skip
    return [{"event_type": "session_start", "session_id": session}, *calls, {**end, **totals}]


def diff_rows(stdout: str) -> dict[str, str]:
    """`diff`'s table lines by their label."""
    return {line[:22].strip(): line for line in stdout.splitlines()[2:]}


def test_diff_cuts_latencies_to_whole_milliseconds(tmp_path: Path) -> None:
    # Latencies are compared in whole milliseconds, cut and not rounded: tool calls of
    # 100.75ms on average against 100ms are equal (100 against 100; rounded, 101 against
    # 100), shell commands of 10.75ms against 11ms are 1ms apart (10 against 11; rounded,
    # equal; not cut, 0.25ms apart, shown `+0ms`)
    def tool(ms: int) -> dict:
        return {"event_type": "tool_call", "turn": 1, "tool_name": "bash",
                "input": {"command": "true"}, "duration_ms": ms, "status": "ok"}  # fmt: skip

    def shell(ms: int) -> dict:
        return {"event_type": "shell", "turn": 1, "command": "true", "exit_code": 0,
                "duration_ms": ms}  # fmt: skip

    a = write(tmp_path, ALPHA, ended(
        ALPHA, *map(tool, (100, 101, 101, 101)), *map(shell, (10, 11, 11, 11)),
        total_turns=1, total_tool_calls=4, total_shell_calls=4,
    ))  # fmt: skip
    b = write(tmp_path, BETA, ended(
        BETA, tool(100), shell(11), total_turns=1, total_tool_calls=1, total_shell_calls=1
    ))  # fmt: skip
    result = run("diff", str(a), str(b))
    assert result.exit_code == 0, result.output
    rows = diff_rows(result.stdout)
    assert rows["avg tool latency"] == "avg tool latency       100ms            100ms            ="
    assert rows["avg shell latency"] == (
        "avg shell latency      10ms             11ms             +1ms (A better)"
    )
    rows = json.loads(run("diff", str(a), str(b), "-f", "json").stdout)
    compared = {r["metric"]: [r["a"], r["b"], r["delta"], r["better"]] for r in rows}
    assert compared["avg_tool_ms"] == [100, 100, 0, "="]
    assert compared["avg_shell_ms"] == [10, 11, 1, "A"]


@pytest.mark.parametrize(
    ("input_b", "calls_b", "per_turn", "success_b", "success"),
    [
        # 0.049 apart, both an average per turn (100.049 against 100) and a success rate
        # (1 ok call of 2,041: 0.049%, against 0%): equal
        (100_049, 2041, "=", "0.0%", "="),
        # 0.051 apart (100.051; 1 of 1,961: 0.051%): changed (the averages shown alike)
        (100_051, 1961, "+0.1 (A better)", "0.1%", "+0.1 (B better)"),
        # the boundary, as mur trace's `diff.abs() < 0.05` in doubles: 1 ok call of 2,000
        # is 0.05% (the double nearest 0.05, as the literal): not within, changed; 100.05
        # against 100 is 0.04999... apart in doubles: within, equal
        (100_050, 2000, "=", "0.1%", "+0.1 (B better)"),
    ],
)
def test_diff_counts_averages_and_rates_within_0_05_as_equal(
    tmp_path: Path, input_b: int, calls_b: int, per_turn: str, success_b: str, success: str
) -> None:
    call = {"event_type": "tool_call", "turn": 1, "tool_name": "bash",
            "input": {"command": "true"}, "duration_ms": 100}  # fmt: skip
    a = write(tmp_path, ALPHA, ended(
        ALPHA, {**call, "status": "error"}, total_turns=1000, total_input_tokens=100_000,
        total_tool_calls=1,
    ))  # fmt: skip
    b = write(tmp_path, BETA, ended(
        BETA, {**call, "status": "ok"}, total_turns=1000, total_input_tokens=input_b,
        total_tool_calls=calls_b,
    ))  # fmt: skip
    result = run("diff", str(a), str(b))
    assert result.exit_code == 0, result.output
    rows = diff_rows(result.stdout)
    # Run A, Run B, Delta
    assert rows["input/turn (avg)"][23:] == f"{'100':<16} {'100':<16} {per_turn}"
    assert rows["tool success rate"][23:] == f"{'0.0%':<16} {success_b:<16} {success}"


def test_diff_of_a_session_of_no_turn(tmp_path: Path) -> None:
    # its token averages are 0, as `mur trace` prints them (not unknown); with no call, its
    # success rate and latencies are unknown, and compared with nothing
    none = "ses_dddddddddddd7ddd8ddd000000000004"
    a = write(tmp_path, none, ended(none, duration_ms=120, exit_status="error"))
    b = write(tmp_path, ALPHA, alpha())
    result = run("diff", str(a), str(b))
    assert result.exit_code == 0, result.output
    assert (
        result.stdout
        == """\
Metric                 Run A            Run B            Delta
────────────────────── ──────────────── ──────────────── ──────────────────────────
turns                  0                2                +2 (A better)
duration               120ms            500ms            +380ms (A better)
input tokens           0                2,200            +2200 (A better)
output tokens          0                350              +350 (A better)
input/turn (avg)       0                1100             +1100.0 (A better)
output/turn (avg)      0                175              +175.0 (A better)
tool calls             0                1                +1 (A better)
tool success rate      —                100.0%           —
avg tool latency       —                100ms            —
redundant calls        0                0                =
skill calls            0                0                =
shell calls            0                1                +1 (A better)
avg shell latency      —                50ms             —
compaction             none             none             —
exit status            error            ok               —
"""
    )
    # the same as run B
    rows = diff_rows(run("diff", str(b), str(a)).stdout)
    assert [rows["input/turn (avg)"], rows["output/turn (avg)"]] == [
        "input/turn (avg)       1100             0                -1100.0 (B better)",
        "output/turn (avg)      175              0                -175.0 (B better)",
    ]


# ── report ─────────────────────────────────────────────────────────────────────


def report_of(workdir: Path, *args: str):
    return run("report", "--workdir", str(workdir), *args)


def test_report(workdir: Path) -> None:
    result = report_of(workdir)
    assert result.exit_code == 0, result.output
    assert (
        result.stdout
        == f"""\
Session ses_aaaaaaaa...  500ms  2 turns

  Tool calls:    1
  Shell calls:   1  exit codes: 1 ok
  Avg latency:   tool 100ms  shell 50ms

Session ses_bbbbbbbb...  1.7s  5 turns

  Tool calls:    4  (3 ok, 1 error)
  Shell calls:   2  exit codes: 1 ok, 1 failed (exit 1)
  Redundant calls: 1
  Avg latency:   tool 187ms  shell 20ms

Sessions: 2  ({workdir})

Metric                 Mean           StdDev         Min            Max
────────────────────── ────────────── ────────────── ────────────── ──────────────
turns                  3.5            1.5            2.0            5.0
duration (ms)          1,100          600            500            1,700
input tokens           5,950          3,750          2,200          9,700
output tokens          720            370            350            1,090
tool calls             2.5            1.5            1.0            4.0
tool success (%)       87.5           12.5           75.0           100.0
shell calls            1.5            0.5            1.0            2.0
redundant calls        0.5            0.5            0.0            1.0
redundant tokens       0              0              0              0
re-sent tokens         0              0              0              0

Exit status:
  max_turns_reached        1  (50.0%)
  ok                       1  (50.0%)
"""
    )


@pytest.mark.parametrize(
    ("session", "header"),
    [
        ("ses_1234567", "ses_1234567"),  # 11 characters: whole
        ("ses_12345678", "ses_12345678"),  # 12: whole
        ("ses_123456789", "ses_12345678..."),  # 13: its first 12, then `...`
    ],
)
def test_report_cuts_a_session_id_longer_than_12_characters(
    tmp_path: Path, session: str, header: str
) -> None:
    events = alpha()
    events[0]["session_id"] = session
    result = run("report", str(write(tmp_path, session, events)))
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith(f"Session {header}  500ms  2 turns\n\n")


def test_report_last_picks_the_newest(workdir: Path) -> None:
    result = report_of(workdir, "--last", "1")
    assert "Sessions: 1" in result.stdout
    assert "ses_bbbbbbbb..." in result.stdout and "ses_aaaaaaaa..." not in result.stdout


def test_report_explicit_sessions(workdir: Path) -> None:
    result = report_of(workdir, "aaa000000000001")
    assert "Sessions: 1" in result.stdout
    assert "ses_aaaaaaaa..." in result.stdout


def test_report_since_reads_the_creation_time_from_the_id(tmp_path: Path) -> None:
    now = int(time.time() * 1000)
    recent = f"ses_{now - 10 * 60_000:012x}7000800000000000000a"
    old = f"ses_{now - 5 * 3_600_000:012x}7000800000000000000b"
    for session in (recent, old):
        events = alpha()
        events[0]["session_id"] = session
        write(tmp_path, session, events)
    result = report_of(tmp_path, "--since", "1h")
    assert "Sessions: 1" in result.stdout
    assert f"Session {recent[:12]}..." in result.stdout
    assert "Sessions: 2" in report_of(tmp_path, "--since", "1d").stdout
    none = report_of(tmp_path, "--since", "1m")
    assert (
        none.stderr
        == f"error[E-TRC-002]: no sessions matched --since 1m in workdir at {tmp_path}\n"
    )


def test_since_takes_a_session_created_where_its_window_starts(tmp_path: Path) -> None:
    """`--since 1h` takes the sessions created within the hour before now, its first
    millisecond included, as `mur trace` compares (`ts >= cutoff_ms`): a session created
    3,600,000 ms before now is in, one created a millisecond earlier is out. Over a
    workdir, whose ids say when; over a catalog, whose names come with when (`created`)."""
    now = 0x01A217154680 + 3_600_000
    times = {"early": now - 3_600_001, "edge": now - 3_600_000, "late": now - 3_599_999}
    ids = {key: f"ses_{ms:012x}7000800000000000000a" for key, ms in times.items()}
    for name in ids.values():
        (tmp_path / name).mkdir()
    taken = select_sessions([], tmp_path, since="1h", now_ms=now)
    assert taken == [tmp_path / ids[key] / "trace.jsonl" for key in ("edge", "late")]
    known = {key: f"/c/{key}.jsonl" for key in times}
    taken = select_sessions([], tmp_path, since="60m", now_ms=now, known=known, created=times)
    assert taken == [Path("/c/edge.jsonl"), Path("/c/late.jsonl")]


@pytest.mark.parametrize(
    ("name", "created"),
    [
        ("ses_01a217154680ffff", 0x01A217154680),
        ("ses_01A217154680", 0x01A217154680),  # upper case: hexadecimal all the same
        ("ses_+1a217154680", 0x1A217154680),  # Rust's from_str_radix takes a `+`
        ("ses_0x1a21715468", None),  # what Python's int(.., 16) took besides
        ("ses_01a2_7154680", None),
        ("ses_ 1a217154680", None),
        ("ses_-1a217154680", None),
        ("ses_01a21715468\u00e9", None),  # 12 bytes end inside a character
    ],
)
def test_a_session_is_dated_by_its_twelve_bytes_after_ses_as_mur_trace_reads_them(
    name: str, created: int | None
) -> None:
    assert created_ms(name) == created
    # the SQL function the metrics use (`show -f json`'s created_ms, a session's start)
    # dates it alike (it dated only a whole `ses_` + 32 lower-case hexadecimal digits)
    con = mur_trace.connect()
    create_macros(con)
    assert con.execute("SELECT created_ms($n)", {"n": name}).fetchone()[0] == created


def test_a_short_ses_name_is_dated_only_by_twelve_hex_digits(tmp_path: Path) -> None:
    """Sessions named shorter than `ses_` + 32 hex: `ses_` and `ses_1` (made by hand),
    `ses_01a217154680` (the 12 hex digits of a time and no more). As `mur trace` reads
    it, a name is dated by the 12 hex digits after `ses_`, so the first two say no time,
    and `--since` leaves them out however long its window: one reaching back before 1970
    too (it took them, a time unknown counting as -1), as `mur trace` never keeps a session
    of unknown time. A full id that lost its last digit is no full id: a suffix, said so."""
    full = "ses_01a21715468070018000000000001eef"
    short = ["ses_", "ses_1", "ses_01a217154680"]
    for name in (*short, full):
        (tmp_path / name).mkdir()
    dated = [None, None, 0x01A217154680, 0x01A217154680]
    assert [created_ms(name) for name in (*short, full)] == dated
    now = 0x01A217154680 + 60_000
    taken = select_sessions([], tmp_path, since="99999999m", now_ms=now)
    assert taken == [tmp_path / name / "trace.jsonl" for name in (short[2], full)]
    alone = tmp_path / "alone"
    events = alpha()
    events[0]["session_id"] = "ses_1"
    write(alone, "ses_1", events)
    result = report_of(alone, "--since", "99999999m")
    assert result.exit_code == 2
    assert result.stderr == (
        f"error[E-TRC-002]: no sessions matched --since 99999999m in workdir at {alone}\n"
    )
    cut = full[:-1]
    result = run("show", cut, "--workdir", str(tmp_path))
    assert result.stderr == (
        f"error[E-TRC-002]: no session found matching suffix '{cut}' in {tmp_path}\n"
    )


@pytest.mark.parametrize("since", ["2x", "h", "-1h", "1.5h", "2 h"])
def test_report_since_rejects_bad_durations(workdir: Path, since: str) -> None:
    result = report_of(workdir, "--since", since)
    assert result.exit_code == 2
    assert result.stderr == (
        f"error[E-TRC-002]: unrecognised --since format '{since}' — expected <N>m, <N>h, or <N>d\n"
    )


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["@1", "--since", "2h"], "--since cannot be combined with explicit session arguments"),
        (["@1", "--last", "1"], "--last cannot be combined with explicit session arguments"),
        (["--last", "0"], "--last must be at least 1"),
    ],
)
def test_report_flag_conflicts(workdir: Path, flags: list[str], message: str) -> None:
    result = report_of(workdir, *flags)
    assert result.exit_code == 2
    assert result.stderr == f"error[E-TRC-002]: {message}\n"


def test_report_skips_unreadable_and_incomplete_sessions(workdir: Path) -> None:
    torn = write(workdir, "ses_dddddddddddd7ddd8ddd000000000004", alpha()[:-1])
    empty = write(workdir, "ses_eeeeeeeeeeee7eee8eee000000000005", "")
    result = report_of(workdir)
    assert result.exit_code == 0
    assert result.stderr.splitlines() == [
        "note: skipped 2 incomplete session(s)",
        f"warning[E-TRC-001]: {empty}: trace file is empty (skipped)",
        f"warning[E-TRC-001]: {torn}: no session_end event found (skipped)",
    ]
    assert "Sessions: 2" in result.stdout


def test_report_with_only_incomplete_sessions_is_an_error(tmp_path: Path) -> None:
    write(tmp_path, ALPHA, alpha()[:-1])
    write(tmp_path, BETA, "")
    result = report_of(tmp_path)
    assert result.exit_code == 2
    assert result.stderr == (
        "error[E-TRC-001]: no complete sessions to report — all traces are empty or incomplete\n"
    )


def test_report_missing_files_keep_their_own_error(tmp_path: Path) -> None:
    empty = write(tmp_path, ALPHA, "")
    missing = tmp_path / BETA / "trace.jsonl"
    missing.parent.mkdir()
    result = report_of(tmp_path)
    assert result.exit_code == 2
    assert result.stderr == f"error[E-IO-001]: trace file not found: {missing}\n"
    assert report_of(tmp_path, str(empty)).stderr.startswith("error[E-TRC-001]: no complete")


def test_report_of_a_trace_of_another_format_says_so(tmp_path: Path) -> None:
    # the reason, not "all traces are empty or incomplete" (before)
    trace = write(tmp_path, ALPHA, alpha())
    result = report_of(tmp_path, "--format-in", "codex", str(trace))
    assert result.exit_code == 2
    assert result.stderr == (
        f"error[E-TRC-001]: {trace}: a murmur log, not codex (--format-in codex)\n"
    )


def test_report_skipped_sessions_in_json(workdir: Path) -> None:
    empty = write(workdir, "ses_eeeeeeeeeeee7eee8eee000000000005", "")
    data = json.loads(report_of(workdir, "-f", "json").stdout)
    assert data["skipped"] == [f"{empty}: trace file is empty"]


def test_report_empty_and_missing_workdirs(tmp_path: Path) -> None:
    assert report_of(tmp_path).stderr == (
        f"error[E-TRC-002]: no sessions found in workdir at {tmp_path}\n"
    )
    assert report_of(tmp_path / "nope").stderr == (
        f"error[E-IO-001]: workdir not found: {tmp_path / 'nope'}\n"
    )


def test_report_per_task_averages(tmp_path: Path) -> None:
    write(tmp_path, "ses_cccccccccccc7ccc8ccc000000000003", multi_task(2))
    result = report_of(tmp_path)
    assert result.stdout.endswith(
        "── Per-task averages (multi-task sessions only) ──────────────\n"
        "Metric                 Mean           StdDev         Min            Max\n"
        "────────────────────── ────────────── ────────────── ────────────── ──────────────\n"
        "task turns             3.0            1.0            2.0            4.0\n"
        "task input tokens      750            250            500            1,000\n"
        "task output tokens     150            50             100            200\n"
        "task duration (ms)     300            100            200            400\n"
        "Tasks: 2\n"
    )
    single = tmp_path / "single"
    write(single, "ses_cccccccccccc7ccc8ccc000000000003", multi_task(1))
    assert "Per-task" not in report_of(single).stdout


def test_report_json(workdir: Path) -> None:
    data = json.loads(report_of(workdir, "-f", "json").stdout)
    stats = {s["metric"]: s for s in data["stats"]}
    assert stats["redundant_calls"] == {
        "position": 8, "metric": "redundant_calls", "sessions": 2,
        "mean": 0.5, "stddev": 0.5, "min": 0.0, "max": 1.0,
    }  # fmt: skip
    assert [s["session_id"] for s in data["sessions"]] == [ALPHA, BETA]
    assert data["exit_status"] == [
        {"exit_status": "max_turns_reached", "sessions": 1, "percent": 50.0},
        {"exit_status": "ok", "sessions": 1, "percent": 50.0},
    ]


@pytest.mark.parametrize("last", [" 3", "٣", "1_0", "-1", "18446744073709551616"])
def test_report_last_is_read_as_mur_trace_reads_a_count(workdir: Path, last: str) -> None:
    """`mur trace` reads `--last` as Rust's `usize`: ASCII digits below 2^64, a `+` at most
    before them. Python's int() took a space, an Arabic-Indic three, `1_0`, any size."""
    result = report_of(workdir, "--last", last)
    assert result.exit_code == 2
    assert result.stderr.startswith(f"error[E-CLI-001]: Invalid value for '--last': {last!r} ")
    assert report_of(workdir, "--last", "+1").stdout.count("Session ses_") == 1


@pytest.mark.parametrize(
    ("argument", "message"),
    [
        ("@-1", "invalid ordinal '@-1' — expected @1, @2, ..."),
        ("@18446744073709551616", "invalid ordinal '@18446744073709551616' — expected @1, @2, ..."),
        ("@18446744073709551615", "@18446744073709551615 is out of range — workdir has 2 sessions"),
    ],
)
def test_ordinals_are_read_as_mur_trace_reads_them(
    workdir: Path, argument: str, message: str
) -> None:
    """Rust's `usize`: `@-1` is no ordinal (was `ordinal must be @1 or higher`), nor a number
    past 2^64 - 1 (was out of range); `@+1` is @1."""
    result = run("diff", argument, "@1", "--workdir", str(workdir))
    assert result.stderr == f"error[E-TRC-002]: before: {message}\n"
    assert run("diff", "@+1", "@1", "--workdir", str(workdir)).exit_code == 0


def test_since_is_read_as_mur_trace_reads_it(workdir: Path) -> None:
    """Rust's `u64`: `+5m` is five minutes (was refused), 2^64 minutes is no number (was
    every session)."""
    assert report_of(workdir, "--since", "+99999999m").exit_code == 0
    result = report_of(workdir, "--since", "18446744073709551616m")
    assert result.stderr == (
        "error[E-TRC-002]: unrecognised --since format '18446744073709551616m' — expected "
        "<N>m, <N>h, or <N>d\n"
    )


def test_show_steps_and_report_edges(tmp_path: Path) -> None:
    """Edges a mutation audit found no test on: the last of two compactions, a skill that
    failed, the first call's duration of a turn of two, an input of exactly 120 characters,
    an incomplete session out of every statistic of `report`."""
    start = {"event_type": "session_start", "capsule_name": "c", "model": "m", "max_turns": 30}
    end = {"event_type": "session_end", "total_turns": 6, "total_input_tokens": 100,
           "total_output_tokens": 200, "total_tool_calls": 2, "total_shell_calls": 0,
           "duration_ms": 1000, "exit_status": "completed"}  # fmt: skip
    path = "x" * (120 - len('{"path":""}'))  # the input, compact, is 120 characters
    lines = [
        {**start, "session_id": "ses_01a21715468070018000000000003333"},
        {"event_type": "inference", "turn": 0, "input_tokens": 10, "output_tokens": 5,
         "decision": "tool_call", "tool_name": "editor"},
        {"event_type": "tool_call", "turn": 0, "tool_name": "editor", "input": {"path": path},
         "duration_ms": 5, "status": "ok"},
        {"event_type": "tool_call", "turn": 0, "tool_name": "editor", "input": {"path": "b"},
         "duration_ms": 900, "status": "ok"},
        {"event_type": "skill_call", "turn": 1, "skill_name": "s", "output_bytes": 5,
         "duration_ms": 3, "status": "ok"},
        {"event_type": "skill_call", "turn": 1, "skill_name": "s", "output_bytes": 5,
         "duration_ms": 3, "status": "error"},
        {"event_type": "compaction", "turn": 2, "tokens_before": 9000, "tokens_after": 3000},
        {"event_type": "compaction", "turn": 5, "tokens_before": 8000, "tokens_after": 2000},
        end,
    ]  # fmt: skip
    trace = write(tmp_path, "ses_01a21715468070018000000000003333", lines)
    shown = run("show", str(trace))
    assert shown.exit_code == 0, shown.output
    assert "fired:      yes  at turn 5  (8,000 → 2,000 tokens)\n" in shown.stdout
    assert f'editor 5ms ✓  {{"path":"{path}"}}  editor 900ms' in shown.stdout  # not cut
    metrics = json.loads(run("show", str(trace), "-f", "json").stdout)["metrics"]
    assert metrics["skill_success_pct"] == 50.0
    steps = run("steps", str(trace))
    assert "  0  tool_call    editor      5ms\n" in steps.stdout
    # a session with no end, whose two reads would be a redundant call: left out of all
    read = {"event_type": "tool_call", "tool_name": "editor", "input": {"path": "a.rs"},
            "state_effect": "read", "status": "ok", "output_bytes": 4000}  # fmt: skip
    write(tmp_path, "ses_01a21715468070018000000000009999",
          [{**start, "session_id": "ses_01a21715468070018000000000009999"},
           {**read, "turn": 0}, {**read, "turn": 1}])  # fmt: skip
    report = json.loads(run("report", "--workdir", str(tmp_path), "-f", "json").stdout)
    assert {row["sessions"] for row in report["stats"]} == {1}


def test_show_takes_the_model_of_the_last_session_start(tmp_path: Path) -> None:
    # a session reopened under another model: its identity and totals are the last start's
    sid = "ses_cccccccccccc7ccc8ccc000000000003"
    start = {"event_type": "session_start", "session_id": sid, "capsule_name": "c",
             "capsule_version": "1", "max_turns": 5}  # fmt: skip
    end = {"event_type": "session_end", "total_turns": 1, "total_input_tokens": 5,
           "total_output_tokens": 3, "total_tool_calls": 0, "total_shell_calls": 0,
           "duration_ms": 10, "exit_status": "ok"}  # fmt: skip
    path = write(tmp_path, sid, [{**start, "model": "first"}, end,
                                 {**start, "model": "second"}, end])  # fmt: skip
    assert "model:      second\n" in run("show", str(path)).stdout
