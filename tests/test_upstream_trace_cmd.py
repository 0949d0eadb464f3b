"""Murmur's own `mur trace` test suite, run against mur-trace.

A port of murmur-nexus/murmur at commit ed2318379886fd667bdc6a6430af9f0dd0d9c7c0:
`crates/murmur-cli/tests/trace_cmd.rs` (94 tests) and the unit test at the bottom of
`crates/murmur-cli/src/commands/trace.rs` (1 test). One test per Rust test, under its
name: the same fixture lines, written to files in a temporary directory, the same
arguments (`mur trace CMD ...` is `mur-trace CMD ...`), and the same predicates on the
installed command, run as a subprocess (`python -m mur_trace`):

- `.success()` is exit status 0; `.failure()` is exit status 2, mur-trace's status for
  every error (a Python traceback would exit 1, so a crash cannot pass for an error);
- `stdout(contains(s))` / `stderr(contains(s))` is `s in stdout` / `s in stderr`, and
  `.not()` is `not in`.

Where the Rust test asserts only success or an absence (a command that printed nothing
would pass it), an assertion marked "added:" checks what the test implies was printed.
Paths the Rust tests take under /tmp that must not exist are made under the test's own
temporary directory. No test is marked as an expected difference.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

# the output holds `—` and `…`: read and written as UTF-8 whatever the locale
ENV = {**os.environ, "PYTHONUTF8": "1"}


def mur(*args: str | Path) -> subprocess.CompletedProcess[str]:
    """`mur trace ARGS...`, as mur-trace: `python -m mur_trace ARGS...`."""
    return subprocess.run(
        [sys.executable, "-m", "mur_trace", *map(str, args)],
        capture_output=True,
        text=True,
        encoding="utf-8",
        env=ENV,
        timeout=120,
        check=False,
    )


@pytest.fixture
def tmp(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh temporary directory, as `TempDir::new()`. Not pytest's `tmp_path`: its name
    carries the test's name, which a predicate could then find in a path it prints."""
    return tmp_path_factory.mktemp("t")


def success(result: subprocess.CompletedProcess[str]) -> subprocess.CompletedProcess[str]:
    assert result.returncode == 0, result.stderr
    return result


def failure(result: subprocess.CompletedProcess[str]) -> subprocess.CompletedProcess[str]:
    assert result.returncode == 2, (result.returncode, result.stdout, result.stderr)
    return result


# ── Fixtures ─────────────────────────────────────────────────────────────────
#
# Two complete sessions designed to produce a meaningful diff:
#   A: 2 turns, ok exit, 1 tool call, 1 shell call, no compaction, 500ms
#   B: 5 turns, max_turns_reached, 5 tool calls, 5 shell calls, compaction, 1700ms

FIXTURE_A = (
    '{"event_type":"session_start","session_id":"ses_aaaaaaaaaaaa4aaa8aaa000000000001",'
    '"timestamp":1000,"capsule_name":"test-capsule","capsule_version":"0.1.0",'
    '"model":"claude-3-5-sonnet","max_turns":10,"capabilities":["shell"],'
    '"tools_declared":["bash"]}\n'
    '{"event_type":"inference","session_id":"ses_aaaaaaaaaaaa4aaa8aaa000000000001",'
    '"timestamp":1100,"turn":1,"input_tokens":1000,"output_tokens":200,'
    '"decision":"tool_call","tool_name":"bash"}\n'
    '{"event_type":"tool_call","session_id":"ses_aaaaaaaaaaaa4aaa8aaa000000000001",'
    '"timestamp":1200,"turn":1,"tool_name":"bash","input_bytes":50,"output_bytes":20,'
    '"duration_ms":100,"status":"ok"}\n'
    '{"event_type":"shell","session_id":"ses_aaaaaaaaaaaa4aaa8aaa000000000001",'
    '"timestamp":1300,"turn":1,"command":"echo hello","exit_code":0,"stdout_bytes":6,'
    '"stderr_bytes":0,"duration_ms":50}\n'
    '{"event_type":"inference","session_id":"ses_aaaaaaaaaaaa4aaa8aaa000000000001",'
    '"timestamp":1400,"turn":2,"input_tokens":1200,"output_tokens":150,'
    '"decision":"end_turn","tool_name":null}\n'
    '{"event_type":"session_end","session_id":"ses_aaaaaaaaaaaa4aaa8aaa000000000001",'
    '"timestamp":1500,"total_turns":2,"total_input_tokens":2200,'
    '"total_output_tokens":350,"total_tool_calls":1,"total_shell_calls":1,'
    '"duration_ms":500,"exit_status":"ok"}\n'
)

FIXTURE_B = (
    '{"event_type":"session_start","session_id":"ses_bbbbbbbbbbbb4bbb8bbb000000000002",'
    '"timestamp":2000,"capsule_name":"test-capsule","capsule_version":"0.1.0",'
    '"model":"claude-3-5-sonnet","max_turns":5,"capabilities":["shell"],'
    '"tools_declared":["bash"]}\n'
    '{"event_type":"inference","session_id":"ses_bbbbbbbbbbbb4bbb8bbb000000000002",'
    '"timestamp":2100,"turn":1,"input_tokens":1500,"output_tokens":300,'
    '"decision":"tool_call","tool_name":"bash"}\n'
    '{"event_type":"tool_call","session_id":"ses_bbbbbbbbbbbb4bbb8bbb000000000002",'
    '"timestamp":2200,"turn":1,"tool_name":"bash","input_bytes":80,"output_bytes":30,'
    '"duration_ms":200,"status":"ok"}\n'
    '{"event_type":"shell","session_id":"ses_bbbbbbbbbbbb4bbb8bbb000000000002",'
    '"timestamp":2300,"turn":1,"command":"echo test","exit_code":0,"stdout_bytes":5,'
    '"stderr_bytes":0,"duration_ms":80}\n'
    '{"event_type":"inference","session_id":"ses_bbbbbbbbbbbb4bbb8bbb000000000002",'
    '"timestamp":2400,"turn":2,"input_tokens":1800,"output_tokens":250,'
    '"decision":"tool_call","tool_name":"bash"}\n'
    '{"event_type":"tool_call","session_id":"ses_bbbbbbbbbbbb4bbb8bbb000000000002",'
    '"timestamp":2500,"turn":2,"tool_name":"bash","input_bytes":60,"output_bytes":25,'
    '"duration_ms":150,"status":"error"}\n'
    '{"event_type":"shell","session_id":"ses_bbbbbbbbbbbb4bbb8bbb000000000002",'
    '"timestamp":2600,"turn":2,"command":"cat nonexistent","exit_code":1,'
    '"stdout_bytes":0,"stderr_bytes":20,"duration_ms":30}\n'
    '{"event_type":"inference","session_id":"ses_bbbbbbbbbbbb4bbb8bbb000000000002",'
    '"timestamp":2700,"turn":3,"input_tokens":2000,"output_tokens":200,'
    '"decision":"tool_call","tool_name":"bash"}\n'
    '{"event_type":"tool_call","session_id":"ses_bbbbbbbbbbbb4bbb8bbb000000000002",'
    '"timestamp":2800,"turn":3,"tool_name":"bash","input_bytes":70,"output_bytes":15,'
    '"duration_ms":180,"status":"ok"}\n'
    '{"event_type":"shell","session_id":"ses_bbbbbbbbbbbb4bbb8bbb000000000002",'
    '"timestamp":2900,"turn":3,"command":"ls /tmp","exit_code":0,"stdout_bytes":100,'
    '"stderr_bytes":0,"duration_ms":40}\n'
    '{"event_type":"compaction","session_id":"ses_bbbbbbbbbbbb4bbb8bbb000000000002",'
    '"timestamp":3000,"turn":3,"tokens_before":5300,"tokens_after":2000}\n'
    '{"event_type":"inference","session_id":"ses_bbbbbbbbbbbb4bbb8bbb000000000002",'
    '"timestamp":3100,"turn":4,"input_tokens":2100,"output_tokens":180,'
    '"decision":"tool_call","tool_name":"bash"}\n'
    '{"event_type":"tool_call","session_id":"ses_bbbbbbbbbbbb4bbb8bbb000000000002",'
    '"timestamp":3200,"turn":4,"tool_name":"bash","input_bytes":90,"output_bytes":10,'
    '"duration_ms":220,"status":"ok"}\n'
    '{"event_type":"shell","session_id":"ses_bbbbbbbbbbbb4bbb8bbb000000000002",'
    '"timestamp":3300,"turn":4,"command":"pwd","exit_code":0,"stdout_bytes":15,'
    '"stderr_bytes":0,"duration_ms":10}\n'
    '{"event_type":"inference","session_id":"ses_bbbbbbbbbbbb4bbb8bbb000000000002",'
    '"timestamp":3400,"turn":5,"input_tokens":2300,"output_tokens":160,'
    '"decision":"tool_call","tool_name":"bash"}\n'
    '{"event_type":"tool_call","session_id":"ses_bbbbbbbbbbbb4bbb8bbb000000000002",'
    '"timestamp":3500,"turn":5,"tool_name":"bash","input_bytes":100,"output_bytes":20,'
    '"duration_ms":190,"status":"ok"}\n'
    '{"event_type":"shell","session_id":"ses_bbbbbbbbbbbb4bbb8bbb000000000002",'
    '"timestamp":3600,"turn":5,"command":"echo done","exit_code":0,"stdout_bytes":5,'
    '"stderr_bytes":0,"duration_ms":20}\n'
    '{"event_type":"session_end","session_id":"ses_bbbbbbbbbbbb4bbb8bbb000000000002",'
    '"timestamp":3700,"total_turns":5,"total_input_tokens":9700,'
    '"total_output_tokens":1090,"total_tool_calls":5,"total_shell_calls":5,'
    '"duration_ms":1700,"exit_status":"max_turns_reached"}\n'
)

# Minimal fixture: 1 turn, no tool calls, no shell calls
FIXTURE_NO_TOOLS = (
    '{"event_type":"session_start","session_id":"ses_cccccccccccc4ccc8ccc000000000003",'
    '"timestamp":4000,"capsule_name":"simple-capsule","capsule_version":"0.2.0",'
    '"model":"claude-haiku","max_turns":20,"capabilities":[],"tools_declared":[]}\n'
    '{"event_type":"inference","session_id":"ses_cccccccccccc4ccc8ccc000000000003",'
    '"timestamp":4100,"turn":1,"input_tokens":500,"output_tokens":100,'
    '"decision":"end_turn","tool_name":null}\n'
    '{"event_type":"session_end","session_id":"ses_cccccccccccc4ccc8ccc000000000003",'
    '"timestamp":4200,"total_turns":1,"total_input_tokens":500,"total_output_tokens":100,'
    '"total_tool_calls":0,"total_shell_calls":0,"duration_ms":200,"exit_status":"ok"}\n'
)


def write_fixture(directory: Path, name: str, content: str) -> Path:
    path = directory / name
    path.write_text(content, encoding="utf-8")
    return path


# ── session resolution helpers ────────────────────────────────────────────────


def write_session(workdir: Path, session_id: str, content: str) -> None:
    session = workdir / session_id
    session.mkdir(parents=True, exist_ok=True)
    (session / "trace.jsonl").write_text(content, encoding="utf-8")


SES_A = "ses_aaaaaaaaaaaa4aaa8aaa000000000001"
SES_B = "ses_bbbbbbbbbbbb4bbb8bbb000000000002"
SES_C = "ses_cccccccccccc4ccc8ccc000000000003"


def write_a_b(workdir: Path) -> None:
    write_session(workdir, SES_A, FIXTURE_A)
    write_session(workdir, SES_B, FIXTURE_B)


def write_a_b_c(workdir: Path) -> None:
    write_a_b(workdir)
    write_session(workdir, SES_C, FIXTURE_NO_TOOLS)


# ── show tests ────────────────────────────────────────────────────────────────


def test_show_exits_zero_and_covers_all_metric_categories(tmp: Path) -> None:
    path = write_fixture(tmp, "trace-a.jsonl", FIXTURE_A)
    out = success(mur("show", path)).stdout
    # session metadata
    assert "test-capsule" in out
    assert "claude-3-5-sonnet" in out
    assert "ses_aaaaaaaaaaaa4aaa8aaa000000000001" in out
    # exit status
    assert "ok" in out
    # duration
    assert "500ms" in out
    # turns
    assert "2" in out
    # tokens
    assert "2,200" in out
    assert "350" in out
    # tool calls
    assert "1 ok" in out
    # shell calls with exit code distribution
    assert "exit codes" in out
    assert "0" in out
    # compaction not fired
    assert "no" in out


def test_show_includes_tokens_per_turn_average(tmp: Path) -> None:
    path = write_fixture(tmp, "trace-a.jsonl", FIXTURE_A)
    # 2200 input tokens / 2 turns = 1100 avg/turn
    out = success(mur("show", path)).stdout
    assert "1100" in out
    assert "/turn" in out


def test_show_compaction_appears_with_turn_and_token_counts(tmp: Path) -> None:
    path = write_fixture(tmp, "trace-b.jsonl", FIXTURE_B)
    out = success(mur("show", path)).stdout
    assert "yes" in out
    assert "turn 3" in out
    assert "5,300" in out  # tokens_before
    assert "2,000" in out  # tokens_after


def test_show_no_tool_calls_produces_zero_not_error(tmp: Path) -> None:
    path = write_fixture(tmp, "no-tools.jsonl", FIXTURE_NO_TOOLS)
    out = success(mur("show", path)).stdout
    # tool call count = 0
    assert "count:" in out
    assert "0" in out


def test_show_max_turns_reached_status(tmp: Path) -> None:
    path = write_fixture(tmp, "trace-b.jsonl", FIXTURE_B)
    assert "max_turns_reached" in success(mur("show", path)).stdout


# ── session resolution tests ──────────────────────────────────────────────────


def test_show_no_arg_single_session_resolves_correctly(tmp: Path) -> None:
    write_session(tmp, SES_A, FIXTURE_A)
    out = success(mur("show", "--workdir", tmp)).stdout
    assert "test-capsule" in out
    assert "500ms" in out


def test_show_no_arg_multiple_sessions_picks_lexicographically_largest(tmp: Path) -> None:
    # A < B lexicographically; B is "most recent"
    write_a_b(tmp)
    out = success(mur("show", "--workdir", tmp)).stdout
    # FIXTURE_B has 1700ms duration and max_turns_reached
    assert "1.7s" in out
    assert "max_turns_reached" in out


def test_show_no_arg_empty_workdir_gives_clear_error(tmp: Path) -> None:
    err = failure(mur("show", "--workdir", tmp)).stderr
    assert "no sessions found in workdir" in err


def test_show_full_session_id_resolves_correctly(tmp: Path) -> None:
    write_session(tmp, SES_A, FIXTURE_A)
    out = success(mur("show", "--workdir", tmp, SES_A)).stdout
    assert "test-capsule" in out


def test_show_full_session_id_not_present_gives_clear_error(tmp: Path) -> None:
    err = failure(mur("show", "--workdir", tmp, SES_A)).stderr
    assert "not found" in err


def test_show_suffix_unique_match_resolves_correctly(tmp: Path) -> None:
    write_a_b(tmp)
    # Suffix "0001" uniquely matches session A
    out = success(mur("show", "--workdir", tmp, "0001")).stdout
    assert "500ms" in out


def test_show_suffix_no_match_gives_clear_error(tmp: Path) -> None:
    write_session(tmp, SES_A, FIXTURE_A)
    err = failure(mur("show", "--workdir", tmp, "zzzzzzz")).stderr
    assert "no session found matching suffix" in err


def test_show_suffix_multiple_matches_gives_ambiguity_error(tmp: Path) -> None:
    # Both end with "abc" — suffix "abc" is ambiguous
    write_session(tmp, "ses_aaaaaaaaaaaa4aaa8aaa000000000abc", FIXTURE_A)
    write_session(tmp, "ses_bbbbbbbbbbbb4bbb8bbb000000000abc", FIXTURE_B)
    err = failure(mur("show", "--workdir", tmp, "abc")).stderr
    assert "ambiguous" in err
    assert "2 sessions" in err


def test_show_suffix_case_insensitive(tmp: Path) -> None:
    write_session(tmp, SES_A, FIXTURE_A)
    # "0001" vs "0001" — case is moot for digits, but test upper vs lower for hex
    out = success(mur("show", "--workdir", tmp, "0001")).stdout
    assert SES_A in out  # added: the session the suffix names is the one shown


def test_show_legacy_path_with_slash_passes_through(tmp: Path) -> None:
    path = write_fixture(tmp, "trace-a.jsonl", FIXTURE_A)
    # Path contains '/' so it bypasses session resolution entirely
    assert "test-capsule" in success(mur("show", path)).stdout


# ── diff tests ────────────────────────────────────────────────────────────────


def diff_a_b(tmp: Path) -> str:
    pa = write_fixture(tmp, "trace-a.jsonl", FIXTURE_A)
    pb = write_fixture(tmp, "trace-b.jsonl", FIXTURE_B)
    return success(mur("diff", pa, pb)).stdout


def test_diff_exits_zero_and_shows_both_runs(tmp: Path) -> None:
    out = diff_a_b(tmp)
    assert "Run A" in out
    assert "Run B" in out
    assert "Delta" in out


def test_diff_shows_turn_count_difference(tmp: Path) -> None:
    # A has 2 turns, B has 5 turns — delta should be +3
    out = diff_a_b(tmp)
    assert "turns" in out
    assert "+3" in out


def test_diff_shows_token_consumption_difference(tmp: Path) -> None:
    # A: 2200 input, B: 9700 input — B uses more tokens
    out = diff_a_b(tmp)
    assert "input tokens" in out
    assert "2,200" in out
    assert "9,700" in out


def test_diff_shows_exit_status_for_both_runs(tmp: Path) -> None:
    out = diff_a_b(tmp)
    assert "exit status" in out
    assert "ok" in out
    assert "max_turns_reached" in out


def test_diff_shows_compaction_difference(tmp: Path) -> None:
    # A: no compaction, B: compaction at turn 3
    out = diff_a_b(tmp)
    assert "compaction" in out
    assert "none" in out
    assert "turn 3" in out


def test_diff_better_worse_indicators_present(tmp: Path) -> None:
    # B uses more turns/tokens so A should be flagged as better on those metrics
    assert "better" in diff_a_b(tmp)


# ── diff session-resolution tests ─────────────────────────────────────────────


def test_diff_both_full_session_ids_resolve(tmp: Path) -> None:
    write_a_b(tmp)
    out = success(mur("diff", "--workdir", tmp, SES_A, SES_B)).stdout
    assert "Run A" in out
    assert "Run B" in out


def test_diff_both_suffixes_unambiguous_resolve(tmp: Path) -> None:
    write_a_b(tmp)
    out = success(mur("diff", "--workdir", tmp, "0001", "0002")).stdout
    assert "500ms" in out
    assert "1.7s" in out


def test_diff_ambiguous_suffix_names_which_argument(tmp: Path) -> None:
    # Both end with "abc" — suffix "abc" is ambiguous
    write_session(tmp, "ses_aaaaaaaaaaaa4aaa8aaa000000000abc", FIXTURE_A)
    write_session(tmp, "ses_bbbbbbbbbbbb4bbb8bbb000000000abc", FIXTURE_B)
    write_session(tmp, "ses_cccccccccccc4ccc8ccc000000000002", FIXTURE_NO_TOOLS)
    # "abc" is ambiguous for `before`; "0002" is unambiguous for `after`
    err = failure(mur("diff", "--workdir", tmp, "abc", "0002")).stderr
    # error should name the failing argument
    assert "before" in err
    assert "ambiguous" in err


def test_diff_ordinal_at1_and_at2_resolve_to_correct_sessions(tmp: Path) -> None:
    # A < B lexicographically: B is most recent (@1), A is second most recent (@2)
    write_a_b(tmp)
    # @2 = A (500ms, ok), @1 = B (1700ms, max_turns_reached)
    out = success(mur("diff", "--workdir", tmp, "@2", "@1")).stdout
    # A is Run A (500ms), B is Run B (1.7s)
    assert "500ms" in out
    assert "1.7s" in out
    assert "max_turns_reached" in out


def test_diff_ordinal_out_of_range_gives_clear_error(tmp: Path) -> None:
    write_a_b(tmp)
    err = failure(mur("diff", "--workdir", tmp, "@1", "@3")).stderr
    assert "@3" in err
    assert "out of range" in err


def test_diff_legacy_path_passthrough_on_both_args(tmp: Path) -> None:
    # Both paths contain '/' so they bypass session resolution
    out = diff_a_b(tmp)
    assert "Run A" in out
    assert "Run B" in out


def test_diff_mixed_full_id_and_suffix(tmp: Path) -> None:
    write_a_b(tmp)
    out = success(mur("diff", "--workdir", tmp, SES_A, "0002")).stdout
    assert "500ms" in out
    assert "1.7s" in out


def test_diff_both_args_fail_reports_both_errors(tmp: Path) -> None:
    write_session(tmp, SES_A, FIXTURE_A)
    err = failure(mur("diff", "--workdir", tmp, "zzzz", "yyyy")).stderr
    assert "before" in err
    assert "after" in err


# ── diff zero/one/two arg rules ───────────────────────────────────────────────


def test_diff_no_args_defaults_to_two_most_recent_sessions(tmp: Path) -> None:
    # A < B lexicographically: B is @1 (most recent), A is @2
    write_a_b(tmp)
    # No positional args → before=@2 (A, 500ms/ok), after=@1 (B, 1.7s/max_turns_reached)
    out = success(mur("diff", "--workdir", tmp)).stdout
    assert "500ms" in out
    assert "1.7s" in out
    assert "max_turns_reached" in out


def test_diff_one_arg_gives_clear_error(tmp: Path) -> None:
    write_session(tmp, SES_A, FIXTURE_A)
    err = failure(mur("diff", "--workdir", tmp, SES_A)).stderr
    assert "expects 0 or 2 arguments, got 1" in err


def test_diff_two_args_resolves_normally(tmp: Path) -> None:
    write_a_b(tmp)
    out = success(mur("diff", "--workdir", tmp, "0001", "0002")).stdout
    assert "Run A" in out
    assert "Run B" in out


# ── report tests ──────────────────────────────────────────────────────────────


def test_report_exits_zero_and_shows_session_count(tmp: Path) -> None:
    write_a_b_c(tmp)
    assert "Sessions: 3" in success(mur("report", "--workdir", tmp)).stdout


def test_report_shows_aggregate_statistics(tmp: Path) -> None:
    write_a_b_c(tmp)
    out = success(mur("report", "--workdir", tmp)).stdout
    assert "Mean" in out
    assert "StdDev" in out
    assert "turns" in out
    assert "input tokens" in out
    assert "output tokens" in out


def test_report_shows_exit_status_distribution(tmp: Path) -> None:
    write_a_b_c(tmp)
    # A and C are "ok", B is "max_turns_reached"
    out = success(mur("report", "--workdir", tmp)).stdout
    assert "Exit status" in out
    assert "ok" in out
    assert "max_turns_reached" in out


def test_report_works_with_single_session(tmp: Path) -> None:
    write_session(tmp, SES_A, FIXTURE_A)
    assert "Sessions: 1" in success(mur("report", "--workdir", tmp)).stdout


# ── report filter and selection tests ─────────────────────────────────────────


def test_report_no_args_includes_all_sessions(tmp: Path) -> None:
    write_a_b_c(tmp)
    assert "Sessions: 3" in success(mur("report", "--workdir", tmp)).stdout


def test_report_last_n_picks_most_recent(tmp: Path) -> None:
    # 5 sessions; lexicographic order = chronological order for these IDs
    for session in (
        "ses_aaaaaaaaaaaa4aaa8aaa000000000001",
        "ses_bbbbbbbbbbbb4bbb8bbb000000000002",
        "ses_cccccccccccc4ccc8ccc000000000003",
        "ses_dddddddddddd4ddd8ddd000000000004",
        "ses_eeeeeeeeeeee4eee8eee000000000005",
    ):
        write_session(tmp, session, FIXTURE_A)
    out = success(mur("report", "--workdir", tmp, "--last", "3")).stdout
    assert "Sessions: 3" in out


def test_report_since_filters_by_timestamp(tmp: Path) -> None:
    def ses_id_with_ts(ts_ms: int, idx: int) -> str:
        # First 12 hex chars of the session ID encode the v7 timestamp in ms.
        return f"ses_{ts_ms:012x}4aaa8aaa{idx:012x}"

    now_ms = time.time_ns() // 1_000_000
    # 2 recent sessions (within 1h) — should pass --since 1h
    recent1 = ses_id_with_ts(now_ms - 30 * 60 * 1000, 1)
    recent2 = ses_id_with_ts(now_ms - 20 * 60 * 1000, 2)
    # 2 old sessions (older than 1h) — should be excluded by --since 1h
    old1 = ses_id_with_ts(now_ms - 2 * 3600 * 1000, 3)
    old2 = ses_id_with_ts(now_ms - 3 * 3600 * 1000, 4)
    for session in (recent1, recent2, old1, old2):
        write_session(tmp, session, FIXTURE_A)
    out = success(mur("report", "--workdir", tmp, "--since", "1h")).stdout
    assert "Sessions: 2" in out


def test_report_explicit_sessions_only_those_included(tmp: Path) -> None:
    write_a_b_c(tmp)
    # Pass only 2 of the 3 sessions explicitly
    out = success(mur("report", "--workdir", tmp, SES_A, SES_B)).stdout
    assert "Sessions: 2" in out


def test_report_since_combined_with_explicit_sessions_errors(tmp: Path) -> None:
    write_session(tmp, SES_A, FIXTURE_A)
    err = failure(mur("report", "--workdir", tmp, "--since", "1h", SES_A)).stderr
    assert "--since cannot be combined with explicit session arguments" in err


def test_report_last_combined_with_explicit_sessions_errors(tmp: Path) -> None:
    write_session(tmp, SES_A, FIXTURE_A)
    err = failure(mur("report", "--workdir", tmp, "--last", "1", SES_A)).stderr
    assert "--last cannot be combined with explicit session arguments" in err


# ── error tests ───────────────────────────────────────────────────────────────


def test_show_nonexistent_file_exits_nonzero_with_error(tmp: Path) -> None:
    missing = tmp / "does-not-exist-murmur-test.jsonl"
    assert "not found" in failure(mur("show", missing)).stderr


def test_diff_nonexistent_file_a_exits_nonzero(tmp: Path) -> None:
    pb = write_fixture(tmp, "b.jsonl", FIXTURE_B)
    missing = tmp / "does-not-exist-murmur-test.jsonl"
    assert "not found" in failure(mur("diff", missing, pb)).stderr


def test_report_nonexistent_workdir_exits_nonzero(tmp: Path) -> None:
    missing = tmp / "no-such-dir-murmur-test-xyz"
    assert "not found" in failure(mur("report", "--workdir", missing)).stderr


def test_show_malformed_json_exits_nonzero_with_line_number(tmp: Path) -> None:
    bad = (
        '{"event_type":"session_start","session_id":"ses_eeeeeeeeeeee4eee8eee000000000005",'
        '"timestamp":1000,"capsule_name":"x","capsule_version":"1.0",'
        '"model":"m","max_turns":10,"capabilities":[],"tools_declared":[]}\n'
        "THIS IS NOT JSON\n"
        '{"event_type":"session_end","session_id":"ses_eeeeeeeeeeee4eee8eee000000000005",'
        '"timestamp":2000,"total_turns":0,"total_input_tokens":0,"total_output_tokens":0,'
        '"total_tool_calls":0,"total_shell_calls":0,"duration_ms":100,"exit_status":"ok"}\n'
    )
    path = write_fixture(tmp, "bad.jsonl", bad)
    err = failure(mur("show", path)).stderr
    # should name the file
    assert "bad.jsonl" in err
    # should include a line number (line 2 is the bad one)
    assert ":2:" in err


def test_show_unknown_event_type_is_silently_skipped(tmp: Path) -> None:
    # Unknown event_type values are silently skipped: old parsers do not choke on new
    # event types, new parsers do not choke on unknown events.
    trace = (
        '{"event_type":"session_start","session_id":"ses_ffffffffffff4fff8fff000000000006",'
        '"timestamp":1000,"capsule_name":"x","capsule_version":"1.0",'
        '"model":"m","max_turns":10,"capabilities":[],"tools_declared":[]}\n'
        '{"event_type":"unknown_future_event","session_id":"ses_ffffffffffff4fff8fff000000000006",'
        '"timestamp":1100,"data":"something"}\n'
        '{"event_type":"session_end","session_id":"ses_ffffffffffff4fff8fff000000000006",'
        '"timestamp":2000,"total_turns":0,"total_input_tokens":0,"total_output_tokens":0,'
        '"total_tool_calls":0,"total_shell_calls":0,"duration_ms":100,"exit_status":"ok"}\n'
    )
    path = write_fixture(tmp, "unknown.jsonl", trace)
    out = success(mur("show", path)).stdout
    # No Tasks section (single-task / zero task events)
    assert "Tasks" not in out
    # added: the session around the unknown event is shown
    assert "session:    ses_ffffffffffff4fff8fff000000000006" in out


# ── multi-task tests ───────────────────────────────────────────────────

SESSION_ID_MT = "ses_dddddddddddd4ddd8ddd000000000010"


def make_multi_task_fixture(n_tasks: int) -> str:
    lines = []
    lines.append(
        f'{{"event_type":"session_start","session_id":"{SESSION_ID_MT}","timestamp":1000,'
        '"capsule_name":"mt-capsule","capsule_version":"0.1.0","model":"claude-test",'
        '"max_turns":20,"capabilities":[],"tools_declared":[]}'
    )
    total_turns = total_input = total_output = 0
    for i in range(n_tasks):
        task_id = f"tsk_{i:08x}000000000000000000000000"
        context_id = f"ctx_{i:08x}000000000000000000000000"
        turns = (i + 1) * 2
        input_tokens = (i + 1) * 500
        output_tokens = (i + 1) * 100
        duration = (i + 1) * 200
        # a2a_task_received (legacy event — should be silently skipped)
        lines.append(
            f'{{"event_type":"a2a_task_received","session_id":"{SESSION_ID_MT}",'
            f'"timestamp":{2000 + i * 1000},"task_id":"{task_id}","context_id":"{context_id}",'
            f'"message_id":"msg-{i}","traceparent_from_caller":null}}'
        )
        lines.append(
            f'{{"event_type":"task_start","session_id":"{SESSION_ID_MT}",'
            f'"timestamp":{2001 + i * 1000},"task_id":"{task_id}","context_id":"{context_id}",'
            '"source":"a2a","message_parts_bytes":42}'
        )
        # inference events to fill the turns
        for t in range(turns):
            lines.append(
                f'{{"event_type":"inference","session_id":"{SESSION_ID_MT}",'
                f'"timestamp":{2002 + i * 1000 + t * 10},"turn":{t},'
                f'"input_tokens":{input_tokens // turns},'
                f'"output_tokens":{output_tokens // turns},'
                '"decision":"end_turn","tool_name":null}'
            )
        lines.append(
            f'{{"event_type":"task_end","session_id":"{SESSION_ID_MT}",'
            f'"timestamp":{2003 + i * 1000},"task_id":"{task_id}","exit_status":"ok",'
            f'"duration_ms":{duration},"turns":{turns},"input_tokens":{input_tokens},'
            f'"output_tokens":{output_tokens},"tool_calls":0,"shell_calls":0}}'
        )
        total_turns += turns
        total_input += input_tokens
        total_output += output_tokens
    lines.append(
        f'{{"event_type":"session_end","session_id":"{SESSION_ID_MT}","timestamp":9999,'
        f'"total_turns":{total_turns},"total_input_tokens":{total_input},'
        f'"total_output_tokens":{total_output},"total_tool_calls":0,"total_shell_calls":0,'
        f'"duration_ms":{n_tasks * 500},"exit_status":"ok"}}'
    )
    return "".join(line + "\n" for line in lines)


def test_trace_show_single_task_no_breakdown(tmp: Path) -> None:
    # A trace with exactly one task_start/task_end should NOT show a Tasks section.
    path = write_fixture(tmp, "single.jsonl", make_multi_task_fixture(1))
    out = success(mur("show", path)).stdout
    assert "Tasks" not in out
    # added: the session is shown (mt-capsule, 2 turns)
    assert "capsule:    mt-capsule v0.1.0" in out
    assert "count:      2  (max: 20)" in out


def test_trace_show_multi_task_breakdown(tmp: Path) -> None:
    # Three task_start/task_end pairs should show a Tasks section with three rows.
    path = write_fixture(tmp, "multi.jsonl", make_multi_task_fixture(3))
    out = success(mur("show", path)).stdout
    assert "── Tasks" in out
    assert "task 1" in out
    assert "task 2" in out
    assert "task 3" in out
    # should not show task 4
    assert "task 4" not in out
    # turns and exit_status visible
    assert "turns:" in out
    assert "ok" in out


def test_trace_show_backward_compat_no_task_events(tmp: Path) -> None:
    # A trace with no task_start/task_end events (legacy format) should succeed
    # without a Tasks section.
    path = write_fixture(tmp, "old.jsonl", FIXTURE_A)
    out = success(mur("show", path)).stdout
    assert "Tasks" not in out
    # added: the session is shown
    assert "capsule:    test-capsule v0.1.0" in out


def test_trace_report_per_task_averages_section(tmp: Path) -> None:
    # Two multi-task sessions should show a per-task averages section.
    write_session(tmp, SES_A, make_multi_task_fixture(3))
    write_session(tmp, SES_B, make_multi_task_fixture(3))
    out = success(mur("report", "--workdir", tmp)).stdout
    assert "Per-task averages" in out
    assert "task turns" in out
    assert "Tasks: 6" in out  # 3 tasks × 2 sessions


def test_trace_report_no_per_task_section_when_all_single_task(tmp: Path) -> None:
    # Single-task sessions only should NOT show a per-task section.
    write_session(tmp, SES_A, make_multi_task_fixture(1))
    write_session(tmp, SES_B, FIXTURE_A)
    out = success(mur("report", "--workdir", tmp)).stdout
    assert "Per-task averages" not in out
    # added: both sessions are reported
    assert "Sessions: 2" in out


def test_report_empty_workdir_gives_clear_error(tmp: Path) -> None:
    assert "no sessions found" in failure(mur("report", "--workdir", tmp)).stderr


def test_report_skips_incomplete_sessions_and_reports_complete_ones(tmp: Path) -> None:
    # Two complete sessions
    write_a_b(tmp)
    # One session with an empty trace (e.g. killed before first event)
    write_session(tmp, SES_C, "")
    result = success(mur("report", "--workdir", tmp))
    # Only the 2 complete sessions are counted
    assert "Sessions: 2" in result.stdout
    # Incomplete session is silently noted on stderr
    assert "skipped 1 incomplete" in result.stderr


def test_report_all_incomplete_sessions_is_an_error(tmp: Path) -> None:
    write_session(tmp, SES_A, "")
    write_session(tmp, SES_B, "")
    assert "incomplete" in failure(mur("report", "--workdir", tmp)).stderr


def test_show_empty_file_exits_nonzero(tmp: Path) -> None:
    path = write_fixture(tmp, "empty.jsonl", "")
    assert "empty" in failure(mur("show", path)).stderr


# ── report per-session block tests ───────────────────────────────────────────


def test_report_session_block_header_shows_id_duration_turns(tmp: Path) -> None:
    write_session(tmp, SES_A, FIXTURE_A)
    # session ID truncated to ses_ + 8 hex chars + ..., duration 500ms, 2 turns
    out = success(mur("report", "--workdir", tmp)).stdout
    assert "Session ses_aaaaaaaa..." in out
    assert "500ms" in out
    assert "2 turns" in out


def test_report_session_block_no_error_no_parenthetical(tmp: Path) -> None:
    # FIXTURE_A: 1 tool call, all ok — no (N ok, N error) parenthetical
    write_session(tmp, SES_A, FIXTURE_A)
    out = success(mur("report", "--workdir", tmp)).stdout
    assert "Tool calls:" in out
    assert "ok, 0 error" not in out


def test_report_session_block_error_shows_parenthetical(tmp: Path) -> None:
    # FIXTURE_B: 5 tool calls, 1 error → (4 ok, 1 error)
    write_session(tmp, SES_B, FIXTURE_B)
    assert "(4 ok, 1 error)" in success(mur("report", "--workdir", tmp)).stdout


def test_report_session_block_exit_codes_sorted_by_frequency(tmp: Path) -> None:
    # FIXTURE_B: 5 shell calls — exit 0 ×4, exit 1 ×1 → "4 ok, 1 failed (exit 1)"
    write_session(tmp, SES_B, FIXTURE_B)
    out = success(mur("report", "--workdir", tmp)).stdout
    assert "exit codes: 4 ok, 1 failed (exit 1)" in out


def test_report_session_block_no_shell_calls_omits_shell_line(tmp: Path) -> None:
    # FIXTURE_NO_TOOLS: 0 shell calls — shell line omitted entirely
    write_session(tmp, SES_C, FIXTURE_NO_TOOLS)
    out = success(mur("report", "--workdir", tmp)).stdout
    assert "Shell calls:" not in out
    # added: the session's block is printed, with its tool call line
    assert "Session ses_cccccccc...  200ms  1 turn\n" in out
    assert "  Tool calls:    0\n" in out


def test_report_session_block_latency_shown_with_correct_averages(tmp: Path) -> None:
    # FIXTURE_A: 1 tool call (100ms), 1 shell call (50ms)
    write_session(tmp, SES_A, FIXTURE_A)
    out = success(mur("report", "--workdir", tmp)).stdout
    assert "Avg latency:" in out
    assert "tool 100ms" in out
    assert "shell 50ms" in out


def test_report_session_block_multi_tool_latency_average(tmp: Path) -> None:
    # FIXTURE_B: 5 tool calls (200+150+180+220+190=940ms avg=188ms),
    #            5 shell calls (80+30+40+10+20=180ms avg=36ms)
    write_session(tmp, SES_B, FIXTURE_B)
    out = success(mur("report", "--workdir", tmp)).stdout
    assert "tool 188ms" in out
    assert "shell 36ms" in out


def test_report_session_block_latency_omitted_when_no_tool_calls(tmp: Path) -> None:
    # FIXTURE_NO_TOOLS: 0 tool calls, 0 shell calls — no Avg latency line
    write_session(tmp, SES_C, FIXTURE_NO_TOOLS)
    out = success(mur("report", "--workdir", tmp)).stdout
    assert "Avg latency:" not in out
    # added: the session's block is printed, with its tool call line
    assert "Session ses_cccccccc...  200ms  1 turn\n" in out
    assert "  Tool calls:    0\n" in out


# ── steps tests ──────────────────────────────────────────────────────────────

# Fixture: session_start + session_end, no inference events — 0 turns
FIXTURE_STEPS_ZERO_TURNS = (
    '{"event_type":"session_start","session_id":"ses_zzzzzzzzzzzz4zzz8zzz000000000001",'
    '"timestamp":1000,"capsule_name":"empty","capsule_version":"0.1.0","model":"m",'
    '"max_turns":10,"capabilities":[],"tools_declared":[]}\n'
    '{"event_type":"session_end","session_id":"ses_zzzzzzzzzzzz4zzz8zzz000000000001",'
    '"timestamp":1100,"total_turns":0,"total_input_tokens":0,"total_output_tokens":0,'
    '"total_tool_calls":0,"total_shell_calls":0,"duration_ms":100,"exit_status":"ok"}\n'
)


def steps_trace(session_id: str, calls: list[tuple[str, int, int]], session_ms: int) -> str:
    """The fixtures of the steps tests: one inference turn and one bash tool call per
    (command, input_bytes, duration_ms) of `calls`, as the Rust fixture builders write
    them."""
    start = (
        f'{{"event_type":"session_start","session_id":"{session_id}","timestamp":1000,'
        '"capsule_name":"t","capsule_version":"0.1.0","model":"m","max_turns":10,'
        '"capabilities":[],"tools_declared":[]}'
    )
    lines = [start]
    usage = [(100, 20), (120, 10)]
    for turn, (command, input_bytes, duration_ms) in enumerate(calls):
        input_tokens, output_tokens = usage[turn]
        lines.append(
            f'{{"event_type":"inference","session_id":"{session_id}",'
            f'"timestamp":{1100 + turn * 200},"turn":{turn},"input_tokens":{input_tokens},'
            f'"output_tokens":{output_tokens},"decision":"tool_call","tool_name":"bash"}}'
        )
        lines.append(
            f'{{"event_type":"tool_call","session_id":"{session_id}",'
            f'"timestamp":{1200 + turn * 200},"turn":{turn},"tool_name":"bash",'
            f'"input":{{"command":"{command}"}},"input_bytes":{input_bytes},"output_bytes":0,'
            f'"duration_ms":{duration_ms},"status":"ok"}}'
        )
    inputs = sum(u[0] for u in usage[: len(calls)])
    outputs = sum(u[1] for u in usage[: len(calls)])
    lines.append(
        f'{{"event_type":"session_end","session_id":"{session_id}",'
        f'"timestamp":{1100 + len(calls) * 200},"total_turns":{len(calls)},'
        f'"total_input_tokens":{inputs},"total_output_tokens":{outputs},'
        f'"total_tool_calls":{len(calls)},"total_shell_calls":0,"duration_ms":{session_ms},'
        '"exit_status":"ok"}'
    )
    return "".join(line + "\n" for line in lines)


def fixture_steps_with_command(cmd: str) -> str:
    """A single-turn trace with a bash tool call running `cmd` (50ms)."""
    return steps_trace("ses_pppppppppppp4ppp8ppp000000000001", [(cmd, 20, 50)], 300)


def fixture_steps_with_duration(duration_ms: int) -> str:
    """A single-turn trace with a bash tool call of `duration_ms`."""
    return steps_trace("ses_qqqqqqqqqqqq4qqq8qqq000000000001", [("cmd", 10, duration_ms)], 5000)


def fixture_steps_two_turns_with_durations(ms1: int, ms2: int) -> str:
    """A two-turn trace with bash tool calls of the given durations."""
    return steps_trace(
        "ses_rrrrrrrrrrrr4rrr8rrr000000000001", [("cmd1", 10, ms1), ("cmd2", 10, ms2)], 5000
    )


def test_steps_no_arg_resolves_to_last_session(tmp: Path) -> None:
    # B > A lexicographically → B is the most recent session
    write_a_b(tmp)
    out = success(mur("steps", "--workdir", tmp)).stdout
    # Header should contain B's session ID
    assert "ses_bbbbbbbbbbbb4bbb8bbb000000000002" in out


def test_steps_explicit_session_suffix_resolves(tmp: Path) -> None:
    write_a_b(tmp)
    # Suffix "0001" uniquely matches A
    out = success(mur("steps", "--workdir", tmp, "0001")).stdout
    assert "ses_aaaaaaaaaaaa4aaa8aaa000000000001" in out


def test_steps_default_output_format(tmp: Path) -> None:
    path = write_fixture(tmp, "trace.jsonl", FIXTURE_A)
    # FIXTURE_A: 2 inference events — turn 1 (tool_call/bash), turn 2 (end_turn/null)
    out = success(mur("steps", path)).stdout
    # header
    assert "Session ses_aaaaaaaaaaaa4aaa8aaa000000000001" in out
    assert "(2 turns)" in out
    # row format: decision column left-padded to 13, then tool name
    assert "tool_call    bash" in out
    assert "end_turn" in out


def test_steps_end_turn_renders_dash(tmp: Path) -> None:
    path = write_fixture(tmp, "trace.jsonl", FIXTURE_A)
    # FIXTURE_A turn 2: decision=end_turn, tool_name=null → rendered as "—"
    assert "—" in success(mur("steps", path)).stdout


def test_steps_verbose_truncates_long_input_at_60_chars(tmp: Path) -> None:
    path = write_fixture(tmp, "trace.jsonl", fixture_steps_with_command("x" * 70))
    out = success(mur("steps", "--verbose", path)).stdout
    # First 60 chars + ellipsis, inside quotes
    assert f'"{"x" * 60}…"' in out
    # The 61st character must NOT appear (confirms truncation at 60)
    assert "x" * 61 not in out


def test_steps_zero_turns_shows_header_and_no_rows(tmp: Path) -> None:
    path = write_fixture(tmp, "trace.jsonl", FIXTURE_STEPS_ZERO_TURNS)
    out = success(mur("steps", path)).stdout
    assert "(0 turns)" in out
    assert "tool_call" not in out
    assert "end_turn" not in out


# ── steps latency column tests ────────────────────────────────────────────────


def test_steps_sub_second_duration_renders_as_ms(tmp: Path) -> None:
    # fixture_steps_with_command uses duration_ms=50
    path = write_fixture(tmp, "trace.jsonl", fixture_steps_with_command("cargo build"))
    assert "50ms" in success(mur("steps", path)).stdout


def test_steps_exactly_1000ms_renders_as_1_0s(tmp: Path) -> None:
    path = write_fixture(tmp, "trace.jsonl", fixture_steps_with_duration(1000))
    assert "1.0s" in success(mur("steps", path)).stdout


def test_steps_end_turn_duration_is_dash(tmp: Path) -> None:
    path = write_fixture(tmp, "trace.jsonl", FIXTURE_A)
    # FIXTURE_A: turn 2 = end_turn with no tool_call → duration rendered as "—"
    out = success(mur("steps", path)).stdout
    assert "end_turn" in out
    assert "—" in out


def test_steps_mixed_ms_and_s_durations_both_appear(tmp: Path) -> None:
    path = write_fixture(tmp, "trace.jsonl", fixture_steps_two_turns_with_durations(500, 1500))
    out = success(mur("steps", path)).stdout
    assert "500ms" in out
    assert "1.5s" in out


# ── input/output field tests ──────────────────────────────────────────────────

# Fixture: trace with input field on tool_call (as emitted by the new runtime).
FIXTURE_WITH_INPUT = (
    '{"event_type":"session_start","session_id":"ses_1111111111114111811100000000001a",'
    '"timestamp":1000,"capsule_name":"input-test","capsule_version":"1.0.0",'
    '"model":"claude-test","max_turns":10,"capabilities":[],"tools_declared":["bash"]}\n'
    '{"event_type":"inference","session_id":"ses_1111111111114111811100000000001a",'
    '"timestamp":1100,"turn":0,"input_tokens":100,"output_tokens":20,'
    '"decision":"tool_call","tool_name":"bash"}\n'
    '{"event_type":"tool_call","session_id":"ses_1111111111114111811100000000001a",'
    '"timestamp":1200,"turn":0,"tool_name":"bash","input":{"command":"echo hello"},'
    '"input_bytes":20,"output_bytes":6,"duration_ms":30,"status":"ok"}\n'
    '{"event_type":"inference","session_id":"ses_1111111111114111811100000000001a",'
    '"timestamp":1300,"turn":1,"input_tokens":120,"output_tokens":10,'
    '"decision":"end_turn","tool_name":null}\n'
    '{"event_type":"session_end","session_id":"ses_1111111111114111811100000000001a",'
    '"timestamp":1400,"total_turns":2,"total_input_tokens":220,"total_output_tokens":30,'
    '"total_tool_calls":1,"total_shell_calls":0,"duration_ms":400,"exit_status":"ok"}\n'
)

# Fixture: old-format trace without input field on tool_call (pre-new-runtime).
FIXTURE_OLD_NO_INPUT = (
    '{"event_type":"session_start","session_id":"ses_2222222222224222822200000000002b",'
    '"timestamp":1000,"capsule_name":"old-test","capsule_version":"0.9.0",'
    '"model":"claude-old","max_turns":10,"capabilities":[],"tools_declared":["bash"]}\n'
    '{"event_type":"inference","session_id":"ses_2222222222224222822200000000002b",'
    '"timestamp":1100,"turn":0,"input_tokens":80,"output_tokens":15,'
    '"decision":"tool_call","tool_name":"bash"}\n'
    '{"event_type":"tool_call","session_id":"ses_2222222222224222822200000000002b",'
    '"timestamp":1200,"turn":0,"tool_name":"bash","input_bytes":18,"output_bytes":8,'
    '"duration_ms":25,"status":"ok"}\n'
    '{"event_type":"inference","session_id":"ses_2222222222224222822200000000002b",'
    '"timestamp":1300,"turn":1,"input_tokens":100,"output_tokens":8,'
    '"decision":"end_turn","tool_name":null}\n'
    '{"event_type":"session_end","session_id":"ses_2222222222224222822200000000002b",'
    '"timestamp":1400,"total_turns":2,"total_input_tokens":180,"total_output_tokens":23,'
    '"total_tool_calls":1,"total_shell_calls":0,"duration_ms":350,"exit_status":"ok"}\n'
)

# Fixture: trace with both input and output fields (include_tool_output = true).
FIXTURE_WITH_OUTPUT = (
    '{"event_type":"session_start","session_id":"ses_3333333333334333833300000000003c",'
    '"timestamp":1000,"capsule_name":"output-test","capsule_version":"1.0.0",'
    '"model":"claude-test","max_turns":10,"capabilities":[],"tools_declared":["bash"]}\n'
    '{"event_type":"inference","session_id":"ses_3333333333334333833300000000003c",'
    '"timestamp":1100,"turn":0,"input_tokens":90,"output_tokens":18,'
    '"decision":"tool_call","tool_name":"bash"}\n'
    '{"event_type":"tool_call","session_id":"ses_3333333333334333833300000000003c",'
    '"timestamp":1200,"turn":0,"tool_name":"bash","input":{"command":"ls"},'
    '"input_bytes":10,"output":"file.txt\\n","output_bytes":9,"duration_ms":12,'
    '"status":"ok"}\n'
    '{"event_type":"inference","session_id":"ses_3333333333334333833300000000003c",'
    '"timestamp":1300,"turn":1,"input_tokens":110,"output_tokens":9,'
    '"decision":"end_turn","tool_name":null}\n'
    '{"event_type":"session_end","session_id":"ses_3333333333334333833300000000003c",'
    '"timestamp":1400,"total_turns":2,"total_input_tokens":200,"total_output_tokens":27,'
    '"total_tool_calls":1,"total_shell_calls":0,"duration_ms":380,"exit_status":"ok"}\n'
)


def test_show_tool_call_input_rendered(tmp: Path) -> None:
    path = write_fixture(tmp, "with-input.jsonl", FIXTURE_WITH_INPUT)
    out = success(mur("show", path)).stdout
    # tool name and input should appear inline
    assert "bash" in out
    assert "echo hello" in out


def test_show_tool_call_input_truncates_on_char_boundary(tmp: Path) -> None:
    # The inline input is capped at 120 characters. Build an input whose compact JSON
    # puts byte offset 120 in the middle of a two-byte codepoint, so a byte-index
    # truncation would cut a character in two.
    ses = "ses_4444444444444444844400000000004d"
    input_json = json.dumps({"cmd": "x" + "é" * 200}, ensure_ascii=False, separators=(",", ":"))
    assert input_json.encode()[120] & 0xC0 == 0x80  # not a character boundary
    fixture = (
        f'{{"event_type":"session_start","session_id":"{ses}","timestamp":1000,'
        '"capsule_name":"utf8-test","capsule_version":"1.0.0","model":"claude-test",'
        '"max_turns":10,"capabilities":[],"tools_declared":["bash"]}\n'
        f'{{"event_type":"tool_call","session_id":"{ses}","timestamp":1200,'
        f'"turn":0,"tool_name":"bash","input":{input_json},'
        '"input_bytes":20,"output_bytes":6,"duration_ms":30,"status":"ok"}\n'
        f'{{"event_type":"session_end","session_id":"{ses}","timestamp":1400,'
        '"total_turns":1,"total_input_tokens":100,"total_output_tokens":20,'
        '"total_tool_calls":1,"total_shell_calls":0,"duration_ms":400,"exit_status":"ok"}\n'
    )
    path = write_fixture(tmp, "utf8-input.jsonl", fixture)
    assert "…" in success(mur("show", path)).stdout


def test_old_trace_without_input_field_still_parses(tmp: Path) -> None:
    # Pre-new-runtime traces that lack the input field must still parse cleanly.
    path = write_fixture(tmp, "old-no-input.jsonl", FIXTURE_OLD_NO_INPUT)
    out = success(mur("show", path)).stdout
    assert "old-test" in out
    assert "ok" in out


def test_show_trace_with_output_field_parses_cleanly(tmp: Path) -> None:
    # Traces that include the output field (include_tool_output = true) must parse cleanly.
    path = write_fixture(tmp, "with-output.jsonl", FIXTURE_WITH_OUTPUT)
    out = success(mur("show", path)).stdout
    assert "output-test" in out
    assert "bash" in out


# ── redundant-call detection fixtures & tests ─────────────────────────────────
#
# Detection is driven entirely by each call's self-declared `state_effect`
# (`read`/`mutate`) recorded in the trace: no tool or operation is recognised by name.
# `tool_name` values are arbitrary labels here; they never drive detection.

# Two read calls against src/foo.rs, no mutate between → 1 redundant call.
FIXTURE_REREAD = (
    '{"event_type":"session_start","session_id":"ses_dddddddddddd4ddd8ddd000000000004",'
    '"capsule_name":"reader","capsule_version":"0.1.0","model":"claude-3-5-sonnet",'
    '"max_turns":10}\n'
    '{"event_type":"inference","turn":1,"decision":"tool_call","tool_name":"read_file"}\n'
    '{"event_type":"tool_call","turn":1,"tool_name":"read_file",'
    '"input":{"path":"src/foo.rs"},"duration_ms":10,"status":"ok","state_effect":"read"}\n'
    '{"event_type":"inference","turn":2,"decision":"tool_call","tool_name":"read_file"}\n'
    '{"event_type":"tool_call","turn":2,"tool_name":"read_file",'
    '"input":{"path":"src/foo.rs"},"duration_ms":12,"status":"ok","state_effect":"read"}\n'
    '{"event_type":"session_end","total_turns":2,"total_input_tokens":100,'
    '"total_output_tokens":50,"total_tool_calls":2,"total_shell_calls":0,'
    '"duration_ms":300,"exit_status":"ok"}\n'
)

# read src/foo.rs, a mutate of src/foo.rs, read src/foo.rs → the mutate invalidates the
# tracked read, so the second read is NOT redundant → 0 redundant calls.
FIXTURE_WRITE_CLEARS = (
    '{"event_type":"session_start","session_id":"ses_eeeeeeeeeeee4eee8eee000000000005",'
    '"capsule_name":"reader","capsule_version":"0.1.0","model":"claude-3-5-sonnet",'
    '"max_turns":10}\n'
    '{"event_type":"tool_call","turn":1,"tool_name":"read_file",'
    '"input":{"path":"src/foo.rs"},"duration_ms":10,"status":"ok","state_effect":"read"}\n'
    '{"event_type":"tool_call","turn":2,"tool_name":"write_file",'
    '"input":{"path":"src/foo.rs"},"duration_ms":8,"status":"ok","state_effect":"mutate"}\n'
    '{"event_type":"tool_call","turn":3,"tool_name":"read_file",'
    '"input":{"path":"src/foo.rs"},"duration_ms":11,"status":"ok","state_effect":"read"}\n'
    '{"event_type":"session_end","total_turns":3,"total_input_tokens":100,'
    '"total_output_tokens":50,"total_tool_calls":3,"total_shell_calls":0,'
    '"duration_ms":300,"exit_status":"ok"}\n'
)

# A find (read) of src/bar.rs then a read of src/bar.rs, no mutate → cross-tool duplicate,
# 1 redundant call, through the alternate field name "file_path" and two tool names.
FIXTURE_CROSS_TOOL = (
    '{"event_type":"session_start","session_id":"ses_ffffffffffff4fff8fff000000000006",'
    '"capsule_name":"reader","capsule_version":"0.1.0","model":"claude-3-5-sonnet",'
    '"max_turns":10}\n'
    '{"event_type":"tool_call","turn":1,"tool_name":"find_in_files",'
    '"input":{"file_path":"src/bar.rs","pattern":"foo"},"duration_ms":10,"status":"ok",'
    '"state_effect":"read"}\n'
    '{"event_type":"tool_call","turn":2,"tool_name":"read_file",'
    '"input":{"file_path":"src/bar.rs"},"duration_ms":9,"status":"ok",'
    '"state_effect":"read"}\n'
    '{"event_type":"session_end","total_turns":2,"total_input_tokens":100,'
    '"total_output_tokens":50,"total_tool_calls":2,"total_shell_calls":0,'
    '"duration_ms":300,"exit_status":"ok"}\n'
)

# Two read calls with no recognized path field (only "pattern") → never flagged, never a
# crash → 0 redundant calls.
FIXTURE_NO_PATH_FIELD = (
    '{"event_type":"session_start","session_id":"ses_11111111111145558888000000000007",'
    '"capsule_name":"reader","capsule_version":"0.1.0","model":"claude-3-5-sonnet",'
    '"max_turns":10}\n'
    '{"event_type":"tool_call","turn":1,"tool_name":"find_in_files",'
    '"input":{"pattern":"needle"},"duration_ms":10,"status":"ok","state_effect":"read"}\n'
    '{"event_type":"tool_call","turn":2,"tool_name":"read_file",'
    '"input":{"pattern":"needle"},"duration_ms":9,"status":"ok","state_effect":"read"}\n'
    '{"event_type":"tool_call","turn":3,"tool_name":"read_file","duration_ms":9,'
    '"status":"ok","state_effect":"read"}\n'
    '{"event_type":"session_end","total_turns":3,"total_input_tokens":100,'
    '"total_output_tokens":50,"total_tool_calls":3,"total_shell_calls":0,'
    '"duration_ms":300,"exit_status":"ok"}\n'
)

# A tool never seen before, with the operation as an input field: two declared reads of
# the same `path`, no mutate between → 1 redundant call, from the declarations alone.
FIXTURE_NOVEL_TOOL = (
    '{"event_type":"session_start","session_id":"ses_22222222222245558888000000000008",'
    '"capsule_name":"reader","capsule_version":"0.1.0","model":"claude-3-5-sonnet",'
    '"max_turns":10}\n'
    '{"event_type":"tool_call","turn":1,"tool_name":"acme-codenav",'
    '"input":{"operation":"find_references","path":"src/lib.rs"},"duration_ms":10,'
    '"status":"ok","state_effect":"read"}\n'
    '{"event_type":"tool_call","turn":2,"tool_name":"acme-codenav",'
    '"input":{"operation":"goto_def","path":"src/lib.rs"},"duration_ms":9,"status":"ok",'
    '"state_effect":"read"}\n'
    '{"event_type":"session_end","total_turns":2,"total_input_tokens":100,'
    '"total_output_tokens":50,"total_tool_calls":2,"total_shell_calls":0,'
    '"duration_ms":300,"exit_status":"ok"}\n'
)

# Same novel tool, with a declared `mutate` between two reads of the same path → the
# mutate invalidates → 0 redundant calls.
FIXTURE_NOVEL_TOOL_MUTATE = (
    '{"event_type":"session_start","session_id":"ses_33333333333345558888000000000009",'
    '"capsule_name":"reader","capsule_version":"0.1.0","model":"claude-3-5-sonnet",'
    '"max_turns":10}\n'
    '{"event_type":"tool_call","turn":1,"tool_name":"acme-codenav",'
    '"input":{"operation":"find_references","path":"src/lib.rs"},"duration_ms":10,'
    '"status":"ok","state_effect":"read"}\n'
    '{"event_type":"tool_call","turn":2,"tool_name":"acme-codenav",'
    '"input":{"operation":"apply_edit","path":"src/lib.rs"},"duration_ms":8,'
    '"status":"ok","state_effect":"mutate"}\n'
    '{"event_type":"tool_call","turn":3,"tool_name":"acme-codenav",'
    '"input":{"operation":"find_references","path":"src/lib.rs"},"duration_ms":9,'
    '"status":"ok","state_effect":"read"}\n'
    '{"event_type":"session_end","total_turns":3,"total_input_tokens":100,'
    '"total_output_tokens":50,"total_tool_calls":3,"total_shell_calls":0,'
    '"duration_ms":300,"exit_status":"ok"}\n'
)

# Two reads of the same path that declare *nothing* → conservative default: never
# flagged → 0 redundant calls.
FIXTURE_UNDECLARED = (
    '{"event_type":"session_start","session_id":"ses_44444444444445558888000000000010",'
    '"capsule_name":"reader","capsule_version":"0.1.0","model":"claude-3-5-sonnet",'
    '"max_turns":10}\n'
    '{"event_type":"tool_call","turn":1,"tool_name":"mystery",'
    '"input":{"path":"src/foo.rs"},"duration_ms":10,"status":"ok"}\n'
    '{"event_type":"tool_call","turn":2,"tool_name":"mystery",'
    '"input":{"path":"src/foo.rs"},"duration_ms":9,"status":"ok"}\n'
    '{"event_type":"session_end","total_turns":2,"total_input_tokens":100,'
    '"total_output_tokens":50,"total_tool_calls":2,"total_shell_calls":0,'
    '"duration_ms":300,"exit_status":"ok"}\n'
)

# A declared read, an *undeclared* call on the same path, a declared read → the
# undeclared call invalidates like a mutate → 0 redundant calls.
FIXTURE_UNDECLARED_INVALIDATES = (
    '{"event_type":"session_start","session_id":"ses_55555555555545558888000000000011",'
    '"capsule_name":"reader","capsule_version":"0.1.0","model":"claude-3-5-sonnet",'
    '"max_turns":10}\n'
    '{"event_type":"tool_call","turn":1,"tool_name":"read_file",'
    '"input":{"path":"src/foo.rs"},"duration_ms":10,"status":"ok","state_effect":"read"}\n'
    '{"event_type":"tool_call","turn":2,"tool_name":"mystery",'
    '"input":{"path":"src/foo.rs"},"duration_ms":8,"status":"ok"}\n'
    '{"event_type":"tool_call","turn":3,"tool_name":"read_file",'
    '"input":{"path":"src/foo.rs"},"duration_ms":9,"status":"ok","state_effect":"read"}\n'
    '{"event_type":"session_end","total_turns":3,"total_input_tokens":100,'
    '"total_output_tokens":50,"total_tool_calls":3,"total_shell_calls":0,'
    '"duration_ms":300,"exit_status":"ok"}\n'
)


def show_of(tmp: Path, name: str, fixture: str) -> str:
    return success(mur("show", write_fixture(tmp, name, fixture))).stdout


def test_show_flags_reread_with_no_intervening_write(tmp: Path) -> None:
    out = show_of(tmp, "reread.jsonl", FIXTURE_REREAD)
    assert "── Redundant calls ──" in out
    assert "count:      1" in out
    assert "turn 2  read_file  src/foo.rs  (re-reads turn 1)" in out


def test_show_intervening_write_clears_redundancy(tmp: Path) -> None:
    out = show_of(tmp, "write-clears.jsonl", FIXTURE_WRITE_CLEARS)
    assert "── Redundant calls ──" in out
    assert "count:      0" in out
    assert "re-reads" not in out


def test_show_cross_tool_find_then_read_is_flagged(tmp: Path) -> None:
    out = show_of(tmp, "cross.jsonl", FIXTURE_CROSS_TOOL)
    assert "count:      1" in out
    assert "turn 2  read_file  src/bar.rs  (re-reads turn 1)" in out


def test_show_no_path_field_never_flagged_no_panic(tmp: Path) -> None:
    out = show_of(tmp, "no-path.jsonl", FIXTURE_NO_PATH_FIELD)
    assert "── Redundant calls ──" in out
    assert "count:      0" in out


def test_show_flags_novel_tool_by_declaration_only(tmp: Path) -> None:
    # A tool identity never seen, with the operation carried in `input` (not the
    # tool_name): detection must work purely from its declared `state_effect`.
    out = show_of(tmp, "novel.jsonl", FIXTURE_NOVEL_TOOL)
    assert "── Redundant calls ──" in out
    assert "count:      1" in out
    assert "turn 2  acme-codenav  src/lib.rs  (re-reads turn 1)" in out


def test_show_novel_tool_declared_mutate_clears_redundancy(tmp: Path) -> None:
    out = show_of(tmp, "novel-mutate.jsonl", FIXTURE_NOVEL_TOOL_MUTATE)
    assert "count:      0" in out
    assert "re-reads" not in out


def test_show_undeclared_calls_get_no_detection(tmp: Path) -> None:
    # Two reads of the same path that declare nothing → conservative default: 0 redundant.
    out = show_of(tmp, "undeclared.jsonl", FIXTURE_UNDECLARED)
    assert "── Redundant calls ──" in out
    assert "count:      0" in out
    assert "re-reads" not in out


def test_show_undeclared_intervening_call_invalidates_conservatively(tmp: Path) -> None:
    # A declared read, an undeclared call on the same path, then a declared read → the
    # undeclared middle call is treated like a mutate → 0 redundant (no false positive).
    out = show_of(tmp, "undeclared-invalidates.jsonl", FIXTURE_UNDECLARED_INVALIDATES)
    assert "count:      0" in out
    assert "re-reads" not in out


def test_show_zero_redundant_on_existing_fixtures(tmp: Path) -> None:
    out = show_of(tmp, "trace-a.jsonl", FIXTURE_A)
    assert "── Redundant calls ──" in out
    assert "count:      0" in out


def test_report_shows_redundant_calls_row_and_per_session_line(tmp: Path) -> None:
    # Two sessions with 1 redundant call each, one with none → Mean 0.7, Min 0, Max 1.
    write_session(tmp, "ses_dddddddddddd4ddd8ddd000000000004", FIXTURE_REREAD)
    write_session(tmp, "ses_ffffffffffff4fff8fff000000000006", FIXTURE_CROSS_TOOL)
    write_session(tmp, SES_A, FIXTURE_A)
    out = success(mur("report", "--workdir", tmp)).stdout
    # aggregate row is always present
    assert "redundant calls" in out
    # per-session line only when N > 0
    assert "Redundant calls: 1" in out


def test_report_redundant_row_stats_are_correct(tmp: Path) -> None:
    # One session with 1 redundant call, one with 0 → Min 0.0, Max 1.0, Mean 0.5.
    write_session(tmp, "ses_dddddddddddd4ddd8ddd000000000004", FIXTURE_REREAD)
    write_session(tmp, SES_A, FIXTURE_A)
    out = success(mur("report", "--workdir", tmp)).stdout
    rows = [line for line in out.splitlines() if line.startswith("redundant calls")]
    assert rows, "redundant calls row present"
    row = rows[0]
    # Mean 0.5, StdDev 0.5, Min 0.0, Max 1.0
    assert "0.5" in row, row
    assert "0.0" in row, row
    assert "1.0" in row, row


# ── declared `resource_id` identity fixtures & tests ──
#
# The fixtures above address their resource through a path-like `input` field; the ones
# below declare `resource_id` instead, the only way a tool whose resource is not a
# filesystem path gets detection.

# A symbol-addressed tool: nothing in `input` is a recognized path field; detection comes
# purely from the declared `resource_id`.
FIXTURE_RESOURCE_ID_SYMBOL = (
    '{"event_type":"session_start","session_id":"ses_44444444444445558888000000000010",'
    '"capsule_name":"reader","capsule_version":"0.1.0","model":"claude-3-5-sonnet",'
    '"max_turns":10}\n'
    '{"event_type":"tool_call","turn":1,"tool_name":"murmur-tool-code-graph",'
    '"input":{"symbol":"Foo::bar"},"duration_ms":10,"status":"ok","state_effect":"read",'
    '"resource_id":"Foo::bar"}\n'
    '{"event_type":"tool_call","turn":2,"tool_name":"murmur-tool-code-graph",'
    '"input":{"symbol":"Foo::bar"},"duration_ms":9,"status":"ok","state_effect":"read",'
    '"resource_id":"Foo::bar"}\n'
    '{"event_type":"session_end","total_turns":2,"total_input_tokens":100,'
    '"total_output_tokens":50,"total_tool_calls":2,"total_shell_calls":0,'
    '"duration_ms":300,"exit_status":"ok"}\n'
)

# A declared `resource_id` that matches neither the `path` nor the `symbol` field of
# `input`: if either value surfaces, `input` was inspected when it must not be.
FIXTURE_RESOURCE_ID_PRECEDENCE = (
    '{"event_type":"session_start","session_id":"ses_55555555555545558888000000000011",'
    '"capsule_name":"reader","capsule_version":"0.1.0","model":"claude-3-5-sonnet",'
    '"max_turns":10}\n'
    '{"event_type":"tool_call","turn":1,"tool_name":"acme-codenav",'
    '"input":{"path":"src/foo.rs","symbol":"Widget"},"duration_ms":10,"status":"ok",'
    '"state_effect":"read","resource_id":"sym:Widget#7"}\n'
    '{"event_type":"tool_call","turn":2,"tool_name":"acme-codenav",'
    '"input":{"path":"src/foo.rs","symbol":"Widget"},"duration_ms":9,"status":"ok",'
    '"state_effect":"read","resource_id":"sym:Widget#7"}\n'
    '{"event_type":"session_end","total_turns":2,"total_input_tokens":100,'
    '"total_output_tokens":50,"total_tool_calls":2,"total_shell_calls":0,'
    '"duration_ms":300,"exit_status":"ok"}\n'
)

# An empty-string `resource_id` means "undeclared" → falls back to the path field.
FIXTURE_RESOURCE_ID_EMPTY = (
    '{"event_type":"session_start","session_id":"ses_66666666666645558888000000000012",'
    '"capsule_name":"reader","capsule_version":"0.1.0","model":"claude-3-5-sonnet",'
    '"max_turns":10}\n'
    '{"event_type":"tool_call","turn":1,"tool_name":"acme-codenav",'
    '"input":{"path":"src/foo.rs"},"duration_ms":10,"status":"ok","state_effect":"read",'
    '"resource_id":""}\n'
    '{"event_type":"tool_call","turn":2,"tool_name":"acme-codenav",'
    '"input":{"path":"src/foo.rs"},"duration_ms":9,"status":"ok","state_effect":"read",'
    '"resource_id":""}\n'
    '{"event_type":"session_end","total_turns":2,"total_input_tokens":100,'
    '"total_output_tokens":50,"total_tool_calls":2,"total_shell_calls":0,'
    '"duration_ms":300,"exit_status":"ok"}\n'
)

# A declared mutate against a declared `resource_id` invalidates the earlier read of it.
FIXTURE_RESOURCE_ID_MUTATE = (
    '{"event_type":"session_start","session_id":"ses_77777777777745558888000000000013",'
    '"capsule_name":"reader","capsule_version":"0.1.0","model":"claude-3-5-sonnet",'
    '"max_turns":10}\n'
    '{"event_type":"tool_call","turn":1,"tool_name":"murmur-tool-code-graph",'
    '"input":{"symbol":"Widget"},"duration_ms":10,"status":"ok","state_effect":"read",'
    '"resource_id":"sym:Widget"}\n'
    '{"event_type":"tool_call","turn":2,"tool_name":"murmur-tool-code-graph",'
    '"input":{"symbol":"Widget"},"duration_ms":8,"status":"ok","state_effect":"mutate",'
    '"resource_id":"sym:Widget"}\n'
    '{"event_type":"tool_call","turn":3,"tool_name":"murmur-tool-code-graph",'
    '"input":{"symbol":"Widget"},"duration_ms":9,"status":"ok","state_effect":"read",'
    '"resource_id":"sym:Widget"}\n'
    '{"event_type":"session_end","total_turns":3,"total_input_tokens":100,'
    '"total_output_tokens":50,"total_tool_calls":3,"total_shell_calls":0,'
    '"duration_ms":300,"exit_status":"ok"}\n'
)


def test_show_flags_symbol_addressed_tool_via_declared_resource_id(tmp: Path) -> None:
    # No path-like field exists in `input`: declaring `resource_id` is the only thing
    # making this detectable.
    out = show_of(tmp, "resource-symbol.jsonl", FIXTURE_RESOURCE_ID_SYMBOL)
    assert "── Redundant calls ──" in out
    assert "count:      1" in out
    assert "turn 2  murmur-tool-code-graph  Foo::bar  (re-reads turn 1)" in out


def test_show_declared_resource_id_takes_precedence_over_path_field(tmp: Path) -> None:
    # `input` carries both a `path` and a `symbol`; neither may appear: the declared value wins.
    out = show_of(tmp, "resource-precedence.jsonl", FIXTURE_RESOURCE_ID_PRECEDENCE)
    assert "count:      1" in out
    assert "turn 2  acme-codenav  sym:Widget#7  (re-reads turn 1)" in out
    # Scoped to the redundant-call line: the `Tool calls` section echoes the raw input.
    lines = [line for line in out.splitlines() if "re-reads" in line]
    assert lines, "redundant-call line present"
    assert "src/foo.rs" not in lines[0], lines[0]


def test_show_empty_resource_id_falls_back_to_path_field(tmp: Path) -> None:
    # Empty string = undeclared, as for `state_effect`.
    out = show_of(tmp, "resource-empty.jsonl", FIXTURE_RESOURCE_ID_EMPTY)
    assert "count:      1" in out
    assert "turn 2  acme-codenav  src/foo.rs  (re-reads turn 1)" in out


def test_show_declared_mutate_clears_redundancy_for_declared_resource_id(tmp: Path) -> None:
    out = show_of(tmp, "resource-mutate.jsonl", FIXTURE_RESOURCE_ID_MUTATE)
    assert "count:      0" in out
    assert "re-reads" not in out


# A session whose task was reopened once by an `on-task-end` hook: a `task_reopened`
# record sits between two attempts and the `task_end` carries `reopen_count`.
FIXTURE_REOPEN = (
    '{"event_type":"session_start","session_id":"ses_cccccccccccc4ccc8ccc000000000003",'
    '"timestamp":3000,"capsule_name":"test-capsule","capsule_version":"0.1.0",'
    '"model":"claude-3-5-sonnet","max_turns":10,"capabilities":["shell"],'
    '"tools_declared":["bash"]}\n'
    '{"event_type":"task_start","session_id":"ses_cccccccccccc4ccc8ccc000000000003",'
    '"timestamp":3050,"task_id":"tsk_1","context_id":"ctx_1","source":"a2a",'
    '"message_parts_bytes":12}\n'
    '{"event_type":"inference","session_id":"ses_cccccccccccc4ccc8ccc000000000003",'
    '"timestamp":3100,"turn":1,"input_tokens":1000,"output_tokens":200,'
    '"decision":"end_turn","tool_name":null}\n'
    '{"event_type":"task_reopened","session_id":"ses_cccccccccccc4ccc8ccc000000000003",'
    '"timestamp":3150,"task_id":"tsk_1","hook_name":"gatekeeper",'
    '"reason":"tests still fail","reopen_number":1}\n'
    '{"event_type":"inference","session_id":"ses_cccccccccccc4ccc8ccc000000000003",'
    '"timestamp":3200,"turn":2,"input_tokens":1100,"output_tokens":150,'
    '"decision":"end_turn","tool_name":null}\n'
    '{"event_type":"task_end","session_id":"ses_cccccccccccc4ccc8ccc000000000003",'
    '"timestamp":3300,"task_id":"tsk_1","exit_status":"ok","duration_ms":250,"turns":2,'
    '"input_tokens":2100,"output_tokens":350,"tool_calls":0,"shell_calls":0,'
    '"reopen_count":1}\n'
    '{"event_type":"session_end","session_id":"ses_cccccccccccc4ccc8ccc000000000003",'
    '"timestamp":3400,"total_turns":2,"total_input_tokens":2100,'
    '"total_output_tokens":350,"total_tool_calls":0,"total_shell_calls":0,'
    '"duration_ms":400,"exit_status":"ok"}\n'
)


def test_show_surfaces_reopen_events_and_count(tmp: Path) -> None:
    # `show` lists the reopen with its hook and feedback.
    out = show_of(tmp, "reopen.jsonl", FIXTURE_REOPEN)
    assert "Reopens" in out
    assert "gatekeeper" in out
    assert "tests still fail" in out


# ── unit test of crates/murmur-cli/src/commands/trace.rs ──────────────────────


def test_shell_record_with_binary_key_still_parses(tmp: Path) -> None:
    # A `shell` record with a `binary` key (the invoked program's resolved path) beside
    # `command` still parses: unknown keys are ignored. Upstream parses the one line; here
    # it sits in a complete session and `show` must count it with its exit code and time.
    shell = (
        '{"event_type":"shell","session_id":"s","timestamp":1,"turn":2,'
        '"binary":"/usr/bin/pytest","command":"-q tests/","exit_code":0,"stdout_bytes":7,'
        '"stderr_bytes":0,"duration_ms":12}\n'
    )
    start, inference, end = FIXTURE_NO_TOOLS.splitlines(keepends=True)
    end = end.replace('"total_shell_calls":0', '"total_shell_calls":1')
    path = write_fixture(tmp, "binary.jsonl", start + shell + inference + end)
    out = success(mur("show", path)).stdout
    shell_section = out.split("── Shell calls ", 1)[1].split("\n\n", 1)[0]
    assert "\ncount:      1\n" in shell_section
    assert "exit codes: 1 ok" in shell_section
    assert "latency:    avg 12ms" in shell_section
