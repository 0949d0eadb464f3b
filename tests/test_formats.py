# ruff: noqa: E501 (hand-written log lines read best one per line)
"""Other agents' logs: format recognition, discovery of their usual places, and what each
reader makes of the lines that matter (small hand-written logs in each format's shape)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import duckdb
import pytest
from typer.testing import CliRunner

import mur_trace
from mur_trace import formats, queries
from mur_trace.catalog import catalog_sessions, ingest
from mur_trace.cli import app
from mur_trace.errors import MurTraceError
from mur_trace.load import connect, load_events

runner = CliRunner()
REAL = Path(__file__).resolve().parent / "fixtures" / "real"
TS = "2026-01-01T00:00:{:02d}.000Z"


# ── Claude Code lines ──────────────────────────────────────────────────────────


def cc_assistant(
    n: int, message: str, block: dict, usage: tuple[int, int, int] = (10, 0, 5), **extra
) -> dict:
    inp, cache_read, out = usage
    return {
        "type": "assistant", "sessionId": "s1", "version": "2.0.0", "cwd": "/repo",
        "timestamp": TS.format(n), "isSidechain": False,
        "message": {"id": message, "model": "claude-x", "role": "assistant", "content": [block],
                    "usage": {"input_tokens": inp, "cache_read_input_tokens": cache_read,
                              "cache_creation_input_tokens": 0, "output_tokens": out}},
        **extra,
    }  # fmt: skip


def cc_use(n: int, message: str, call: str, name: str, **inp) -> dict:
    return cc_assistant(n, message, {"type": "tool_use", "id": call, "name": name, "input": inp})


def cc_result(
    n: int, call: str, text: str, error: bool = False, result: object = None, **extra
) -> dict:
    line = {
        "type": "user", "sessionId": "s1", "cwd": "/repo", "timestamp": TS.format(n),
        "isSidechain": False,
        "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": call, "content": text, "is_error": error}
        ]},
        **extra,
    }  # fmt: skip
    if result is not None:
        line["toolUseResult"] = result
    return line


def whole(path: str, lines: int) -> dict:
    return {
        "type": "text",
        "file": {"filePath": path, "startLine": 1, "numLines": lines, "totalLines": lines},
    }


def write(path: Path, lines: list[dict], tail: str = "") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(x) + "\n" for x in lines) + tail)
    return path


def cc_session() -> list[dict]:
    """Reads, a range covered by a whole read, a failed read, a sed -i, a compaction."""
    return [
        {"type": "summary", "summary": "a title", "leafUuid": "x"},
        {"type": "user", "sessionId": "s1", "version": "2.0.0", "cwd": "/repo",
         "timestamp": TS.format(0), "message": {"role": "user", "content": "fix it"}},
        cc_use(1, "m1", "t1", "Read", file_path="/repo/a.py"),  # 3
        cc_use(1, "m1", "t2", "Read", file_path="/repo/b.py"),  # 4: parallel call
        cc_result(2, "t2", "b", result=whole("/repo/b.py", 3)),  # results out of order
        cc_result(2, "t1", "a" * 40, result=whole("/repo/a.py", 10)),
        cc_use(3, "m2", "t3", "Read", file_path="/repo/a.py", offset=2, limit=3),  # 7: covered
        cc_result(4, "t3", "a" * 12, result={"type": "text", "file": {"filePath": "/repo/a.py", "startLine": 2, "numLines": 3, "totalLines": 10}}),
        {"type": "progress", "sessionId": "s1", "data": {"message": cc_use(4, "m9", "t9", "Read", file_path="/repo/a.py")}},
        cc_use(5, "m3", "t4", "Bash", command="sed -i 's/x/y/' b.py"),  # 10: relative, in /repo
        cc_result(6, "t4", "", result={"stdout": "", "stderr": ""}),
        cc_use(7, "m4", "t5", "Read", file_path="/repo/b.py"),  # 12: after sed -i: needed
        cc_result(8, "t5", "<tool_use_error>Sibling tool call errored</tool_use_error>", error=True),
        cc_use(9, "m5", "t6", "Bash", command="cat /repo/b.py && false"),  # 14: exit 1
        cc_result(10, "t6", "Exit code 1\nb", error=True),
        {"type": "system", "subtype": "compact_boundary", "sessionId": "s1", "timestamp": TS.format(11),
         "compactMetadata": {"trigger": "auto", "preTokens": 900}},  # 16
        {"type": "user", "sessionId": "s1", "isCompactSummary": True, "timestamp": TS.format(12),
         "message": {"role": "user", "content": "summary"}},
        cc_use(13, "m6", "t7", "Read", file_path="/repo/a.py"),  # 18: after the compaction
        cc_result(14, "t7", "a" * 40, result=whole("/repo/a.py", 10)),
        cc_use(15, "m7", "t8", "Grep", pattern="x", path="/repo/a.py"),  # 20: within a.py read whole
        cc_result(16, "t8", "1:x"),
    ]  # fmt: skip


def test_formats_are_recognised_from_the_first_line(tmp_path: Path) -> None:
    cc = write(tmp_path / "s.jsonl", cc_session())
    codex = write(
        tmp_path / "rollout.jsonl",
        [{"timestamp": TS.format(0), "type": "session_meta", "payload": {"id": "x"}}],
    )
    murmur = write(tmp_path / "m.jsonl", [{"event_type": "session_start"}])
    named = write(tmp_path / "x" / "trace.jsonl", cc_session())  # Murmur's name: not opened
    long = tmp_path / "output.jsonl"
    long.write_text(
        json.dumps({"instance_id": "i", "history": [{"id": 0, "message": "x" * 70_000}]}) + "\n"
    )
    garbage = tmp_path / "g.jsonl"
    garbage.write_text("not json\n")
    metric = write(
        tmp_path / "metrics-first.jsonl", [{"type": "metric", "name": "x", "dataPoints": []}]
    )
    otlp = tmp_path / "otlp.jsonl"  # a first line too long to parse: its first key tells
    otlp.write_text(json.dumps({"resourceSpans": [{"x": "y" * 70_000}]}) + "\n")
    kinds = [
        formats.detect(p)
        for p in (cc, codex, murmur, long, garbage, tmp_path / "missing", named, metric, otlp)
    ]
    assert kinds == ["claude_code", "codex", "murmur", "openhands", "murmur", "murmur", "murmur", "otel", "otel"]  # fmt: skip
    assert formats.reader("claude-code") == "claude_code"
    # white space around the first line is left out, as the readers leave it out of a line
    spaced = tmp_path / "spaced.jsonl"
    spaced.write_text("\f\n\u3000" + codex.read_text().rstrip("\n") + "\u00a0\n")
    assert formats.detect(spaced) == "codex"


def test_an_unknown_format_name_is_one_line_e_trc_001(tmp_path: Path) -> None:
    path = write(tmp_path / "s.jsonl", cc_session())
    with pytest.raises(MurTraceError) as err:
        mur_trace.load([path], format_in="aider")
    assert err.value.code == "E-TRC-001"
    result = runner.invoke(app, ["redundant", str(path), "--format-in", "aider"])
    assert result.exit_code == 2
    assert result.stderr.strip().splitlines() == [
        "error[E-TRC-001]: unknown format 'aider'; known formats: murmur, claude-code, codex, openhands, otel"
    ]


def test_a_log_of_another_format_than_format_in_says_so(tmp_path: Path) -> None:
    cc = write(tmp_path / "s.jsonl", cc_session())
    murmur = write(tmp_path / "m.jsonl", [{"event_type": "session_start"}])
    hands = write(tmp_path / "output.jsonl", [{"instance_id": "i", "history": []}])
    for path, forced, found in ((murmur, "codex", "a murmur"), (cc, "murmur", "a claude-code"),
                                (cc, "openhands", "a claude-code"), (hands, "codex", "an openhands")):  # fmt: skip
        message = f"{path}: {found} log, not {forced} (--format-in {forced})"
        # (`report` says what `mur trace report` says when no session is left: its own line)
        for command in (["redundant"], ["loops"], ["show"], ["check", "--max-redundant", "0"]):
            result = runner.invoke(app, [*command, str(path), "--format-in", forced])
            assert result.exit_code == 2, (command, result.output)
            assert result.stderr.splitlines() == [f"error[E-TRC-001]: {message}"], command
        with pytest.raises(MurTraceError, match=r"\(--format-in") as err:
            mur_trace.load([path], format_in=forced)
        assert err.value.code == "E-TRC-001"
    # among others it is left out with a warning; the log of the forced format is read
    result = runner.invoke(app, ["redundant", str(cc), str(murmur), "--format-in", "claude-code"])
    assert result.exit_code == 0, result.output
    assert result.stderr.splitlines() == [
        f"warning[E-TRC-001]: {murmur}: a murmur log, not claude-code (--format-in claude-code) (skipped)"
    ]
    # a file with Murmur's name, forced, is opened to be judged; what nothing recognises is read
    named = write(tmp_path / "x" / "trace.jsonl", cc_session())
    assert (
        runner.invoke(app, ["redundant", str(named), "--format-in", "claude-code"]).exit_code == 0
    )
    result = runner.invoke(app, ["redundant", str(named), "--format-in", "codex"])
    assert result.stderr.splitlines() == [
        f"error[E-TRC-001]: {named}: a claude-code log, not codex (--format-in codex)"
    ]
    garbage = tmp_path / "g.jsonl"
    garbage.write_text("not json\n")
    result = runner.invoke(app, ["redundant", str(garbage), "--format-in", "codex"])
    assert "a murmur log" not in result.output


def test_a_file_with_no_event_of_format_in_is_refused(tmp_path: Path) -> None:
    """JSON lines that no agent's log holds (`{"hello": "world"}`), and the events of a tool
    no reader knows (a `type` of `session.start`), forced with --format-in: no line is an
    event of that format. Each is refused (E-TRC-001) and `check` fails; among others, it
    is left out with a warning. Before, the Codex and Claude Code readers made a session of
    no turns of it (`ok: 1 session within the thresholds`), and the others said `trace
    file is empty`."""
    hello = write(tmp_path / "hello.jsonl", [{"hello": "world"}, {"n": 2}])
    other = write(tmp_path / "events.jsonl", [{"type": "session.start", "data": {}}])
    for path in (hello, other):
        for forced in ("codex", "claude-code", "openhands", "otel"):
            message = f"{path}: no {forced} event in it (empty, or not a log of that agent)"
            for command in (["redundant"], ["show"], ["check", "--max-redundant", "0"]):
                result = runner.invoke(app, [*command, str(path), "--format-in", forced])
                assert result.exit_code == 2, (command, forced, result.output)
                assert result.stderr == f"error[E-TRC-001]: {message}\n", (command, forced)
    # a line of a type no list here knows that names its Claude Code session is Claude
    # Code's, as it was when the file was recognised
    titled = write(tmp_path / "t.jsonl", [{"type": "custom-title", "sessionId": "abc"}])
    assert runner.invoke(app, ["check", str(titled), "--max-redundant", "0"]).exit_code == 0
    cc = write(tmp_path / "s.jsonl", cc_session())
    result = runner.invoke(app, ["redundant", str(cc), str(hello), "--format-in", "claude-code"])
    assert result.exit_code == 0, result.output
    assert result.stderr == (
        f"warning[E-TRC-001]: {hello}: no claude-code event in it (empty, or not a log of "
        "that agent) (skipped)\n"
    )


def test_tokens_a_log_does_not_count_are_unknown_not_zero() -> None:
    """The real Codex rollout of 13:28 has no `token_count` line: its tokens are not known.
    `show` prints them as such (before, `input: 0`, `total: 0`), and `diff` against the
    rollout of 11:26 (66 token counts) compares no average per turn (before, `0` against
    the other's, and `A better`). A session of no turn still averages 0, as in `mur trace`."""
    codex = REAL / "codex"
    unknown = codex / (
        "codemie-ai_codemie-code__rollout-2026-05-11T13-28-45-019e1695-0522-7c83-8b39-0dd379793f80.jsonl"
    )
    known = codex / (
        "codemie-ai_codemie-code__rollout-2026-05-11T11-26-55-019e1625-789d-76c0-80ab-3724b5ddb799.jsonl"
    )
    otel = REAL / "otel-genai" / "dbroeglin_github-copilot-lab__fix_bug_gpt55__copilot-otel.jsonl"
    # its two shell calls are counted, how they ended is not recorded (before: `exit codes: `)
    assert "\nexit codes: —\n" in runner.invoke(app, ["show", str(otel)]).stdout
    assert "  Shell calls:   2  exit codes: —\n" in runner.invoke(app, ["report", str(otel)]).stdout
    shown = runner.invoke(app, ["show", str(unknown)])
    assert shown.exit_code == 0, shown.output
    assert "\ninput:      —  (avg —/turn)\noutput:     —  (avg —/turn)\ntotal:      —\n" in (
        shown.stdout
    )
    compared = runner.invoke(app, ["diff", str(unknown), str(known)])
    assert compared.exit_code == 0, compared.output
    rows = {line[:22].strip(): line[22:].split() for line in compared.stdout.splitlines()[2:]}
    assert rows["input/turn (avg)"][0] == "—" and rows["input/turn (avg)"][-1] == "—"
    assert rows["output/turn (avg)"][0] == "—" and rows["output/turn (avg)"][-1] == "—"


def test_report_names_each_session_of_another_agent_apart(tmp_path: Path) -> None:
    """The real Claude Code directory: a session, its two subagents, two more sessions.
    `report` cuts a Murmur id as `mur trace` does (`ses_01a217...`); another agent's whole,
    so that a session and its subagents, which share their first characters, stay apart
    (before, three blocks were `Session 4d5611e5-241...`)."""
    result = runner.invoke(app, ["report", str(REAL / "claude-code")])
    assert result.exit_code == 0, result.output
    headers = [
        line.split("  ")[0] for line in result.stdout.splitlines() if line.startswith("Session ")
    ]
    assert headers == [
        "Session d3ad4cdc-5657-435d-98fa-0035d53e383d",
        "Session 624a4a58-b34c-462d-a70d-13421c8125a8",
        "Session 4d5611e5-241a-462a-8d15-5122611a9569",
        "Session 4d5611e5-241a-462a-8d15-5122611a9569/agent-a2898e3",
        "Session 4d5611e5-241a-462a-8d15-5122611a9569/agent-acompact-e1f845",
    ]
    # a Murmur id is cut whatever its length, as `mur trace` cuts it
    murmur = write(tmp_path / "s" / "trace.jsonl", [
        {"event_type": "session_start", "session_id": "ses_synthetic_00001", "timestamp": 1},
        {"event_type": "session_end", "session_id": "ses_synthetic_00001", "timestamp": 2,
         "total_turns": 0, "total_input_tokens": 0, "total_output_tokens": 0,
         "total_tool_calls": 0, "total_shell_calls": 0, "duration_ms": 1, "exit_status": "ok"},
    ])  # fmt: skip
    result = runner.invoke(app, ["report", str(murmur)])
    assert result.stdout.startswith("Session ses_syntheti...  1ms  0 turns\n"), result.output


def test_claude_code_lines_become_murmur_events(tmp_path: Path) -> None:
    trace = mur_trace.load([write(tmp_path / "s.jsonl", cc_session())])
    calls = trace.sql(
        "SELECT line, call_id, turn, tool_name, status, state_effect, resource, output_bytes, "
        "duration_ms, result_whole FROM tool_calls ORDER BY line"
    ).fetchall()
    assert calls == [
        (3, "t1", 0, "Read", "ok", "read", "/repo/a.py", 40, 1000, True),
        (4, "t2", 0, "Read", "ok", "read", "/repo/b.py", 1, 1000, True),
        (7, "t3", 1, "Read", "ok", "read", "/repo/a.py", 12, 1000, False),
        (10, "t4", 2, "Bash", "ok", None, None, 0, 1000, None),
        (12, "t5", 3, "Read", "error", None, "/repo/b.py", 58, 1000, None),
        (14, "t6", 4, "Bash", "error", None, None, 13, 1000, None),
        (18, "t7", 5, "Read", "ok", "read", "/repo/a.py", 40, 1000, True),
        (20, "t8", 6, "Grep", "ok", "read", "/repo/a.py", 3, 1000, None),
    ]  # fmt: skip
    shells = trace.sql(
        'SELECT line, "binary", command, exit_code, cwd FROM events '
        "WHERE event_type = 'shell' ORDER BY line"
    ).fetchall()
    assert shells == [
        (10, "bash", "sed -i 's/x/y/' b.py", 0, "/repo"),
        (14, "bash", "cat /repo/b.py && false", 1, "/repo"),
    ]  # fmt: skip
    inferences = trace.sql(
        "SELECT line, turn, input_tokens, output_tokens, decision, tool_name FROM events WHERE event_type = 'inference' ORDER BY line"
    ).fetchall()
    assert inferences[:2] == [
        (3, 0, 10, 5, "tool_call", "Read"),
        (7, 1, 10, 5, "tool_call", "Read"),
    ]
    assert len(inferences) == 7  # the progress line's copy is not a message
    other = trace.sql(
        "SELECT event_type, line, turn, tokens_before, tokens_after FROM events WHERE event_type IN ('session_start', 'compaction', 'session_end') ORDER BY line"
    ).fetchall()
    # the compaction comes after messages m1-m5 (turns 0-4): it is turn 5's, as m6 is
    assert other == [
        ("session_start", 1, None, None, None),
        ("compaction", 16, 5, 900, None),
        ("session_end", 21, None, None, None),
    ]
    assert trace.sql(
        "SELECT session_id, capsule_name, capsule_version, model FROM sessions"
    ).fetchall() == [("s1", "claude-code", "2.0.0", "claude-x")]


def test_claude_code_findings_know_ranges_failures_commands_and_compactions(tmp_path: Path) -> None:
    trace = mur_trace.load([write(tmp_path / "s.jsonl", cc_session())], policy="context")
    found = (
        trace.redundant_calls().select("line, call_id, prior_line, rule").order("line").fetchall()
    )
    # 7: lines 2-4 of a.py, read whole at 3; 20: a search in a.py, read whole at 18.
    # Not 12 (after sed -i, and failed), not 18 (after the compaction).
    assert found == [(7, "t3", 3, "read_after_read"), (20, "t8", 18, "read_after_read")]
    reference = trace.redundant_calls("reference").select("line, call_id").order("line").fetchall()
    # 12 failed, so it declares nothing (as Murmur's editor does): it forgets b.py
    assert reference == [(7, "t3"), (18, "t7"), (20, "t8")]


def test_inline_subagent_lines_are_another_context(tmp_path: Path) -> None:
    side = cc_use(3, "m2", "s1", "Read", file_path="/repo/a.py", isSidechain=True)
    side["isSidechain"] = True
    side_result = cc_result(4, "s1", "a", result=whole("/repo/a.py", 1))
    side_result["isSidechain"] = True
    lines = [
        cc_use(1, "m1", "t1", "Read", file_path="/repo/a.py"),
        cc_result(2, "t1", "a", result=whole("/repo/a.py", 1)),
        side, side_result,  # the subagent reads what the main agent read: its own context
        cc_use(5, "m3", "t2", "Read", file_path="/repo/a.py"),  # the main agent again
        cc_result(6, "t2", "a", result=whole("/repo/a.py", 1)),
    ]  # fmt: skip
    trace = mur_trace.load([write(tmp_path / "s.jsonl", lines)], policy="context")
    assert trace.sql(
        "SELECT line FROM events WHERE event_type = 'context_switch' ORDER BY line"
    ).fetchall() == [(3,), (5,)]
    assert trace.redundant_calls().count("*").fetchall() == [(0,)]


@pytest.mark.parametrize("tool", ["Task", "Agent"])  # Agent: its name from 2.1.63
def test_a_subagent_may_have_changed_any_file(tmp_path: Path, tool: str) -> None:
    """2.x writes a subagent to a file of its own: the main agent's log says only that it
    ran. Its edits may have changed any file, so the main agent's read after it is not
    taken as holding what the one before it read (it was, by read_after_read)."""
    lines = [
        {"type": "user", "sessionId": "s1", "timestamp": TS.format(0), "message": {"content": "go"}},
        cc_use(1, "m1", "t1", "Read", file_path="/repo/a.py"),  # 2
        cc_result(2, "t1", "a", result=whole("/repo/a.py", 1)),
        cc_use(3, "m2", "t2", tool, description="fix", prompt="fix a.py",
               subagent_type="general-purpose"),
        cc_result(4, "t2", "done", error=True),  # stopped midway: it may have written
        cc_use(5, "m3", "t3", "Read", file_path="/repo/a.py"),  # 6
        cc_result(6, "t3", "ab", result=whole("/repo/a.py", 1)),  # another size
        cc_use(7, "m4", "t4", "Read", file_path="/repo/a.py"),  # 8: nothing between: redundant
        cc_result(8, "t4", "ab", result=whole("/repo/a.py", 1)),
    ]  # fmt: skip
    trace = mur_trace.load([write(tmp_path / "s.jsonl", lines)], policy="context")
    assert trace.redundant_calls().select("line, prior_line").fetchall() == [(8, 6)]
    # the reference policy knows no change without a resource (SPEC 3: skipped)
    assert trace.redundant_calls("reference").select("line").order("line").fetchall() == [
        (6,), (8,)
    ]  # fmt: skip
    off = mur_trace.load(
        [tmp_path / "s.jsonl"], policy="context", rules={"declared_in_file": False}
    )
    assert off.redundant_calls().select("line").order("line").fetchall() == [(6,), (8,)]


def test_a_line_written_twice_is_read_once(tmp_path: Path) -> None:
    """Claude Code has written a conversation's history into its file a second time
    (anthropics/claude-code#5034): the copies keep their `uuid`. A copied call was a
    second call, which re-read what the first had read (the same `tool_use` id)."""
    use = {**cc_use(1, "m1", "t1", "Read", file_path="/repo/a.py"), "uuid": "a1"}
    result = cc_result(2, "t1", "a", result=whole("/repo/a.py", 1), uuid="r1")
    lines = [
        {"type": "user", "sessionId": "s1", "uuid": "u0", "timestamp": TS.format(0),
         "message": {"content": "read a"}},
        use, result,  # 2, 3
        {"type": "user", "sessionId": "s1", "uuid": "u1", "timestamp": TS.format(3),
         "message": {"content": "again"}},
        use, result,  # 5, 6: the same lines again
        {**cc_use(7, "m2", "t2", "Read", file_path="/repo/a.py"), "uuid": "a2"},  # 7
        cc_result(8, "t2", "a", result=whole("/repo/a.py", 1), uuid="r2"),
    ]  # fmt: skip
    trace = mur_trace.load([write(tmp_path / "s.jsonl", lines)], policy="context")
    assert trace.sql("SELECT line, call_id FROM tool_calls ORDER BY line").fetchall() == [
        (2, "t1"), (7, "t2")
    ]  # fmt: skip
    for policy in ("reference", "context"):
        assert trace.redundant_calls(policy).select("line, prior_line").fetchall() == [(7, 2)]
    assert trace.sql("SELECT count(*) FROM events WHERE event_type = 'inference'").fetchall() == [
        (2,)
    ]  # fmt: skip


def test_a_prompt_after_a_rewind_starts_from_where_the_user_went_back(tmp_path: Path) -> None:
    """`/rewind` writes nothing: the next prompt names as its parent the line the user went
    back to, and what came after that line is no longer in the model's context. Tool
    results, whose parent is their call's line, are no rewind."""

    def linked(line: dict, uuid: str, parent: str | None) -> dict:
        return {**line, "uuid": uuid, "parentUuid": parent}

    def prompt(n: int, text: str) -> dict:
        return {"type": "user", "sessionId": "s1", "timestamp": TS.format(n),
                "message": {"role": "user", "content": text}}  # fmt: skip

    lines = [
        linked(prompt(0, "look at a.py"), "u1", None),  # 1
        linked(cc_use(1, "m1", "t1", "Read", file_path="/repo/a.py"), "a1", "u1"),  # 2
        linked(cc_use(1, "m1", "t2", "Read", file_path="/repo/b.py"), "a2", "a1"),  # 3
        linked(cc_result(2, "t1", "a", result=whole("/repo/a.py", 1)), "r1", "a1"),  # 4
        linked(cc_result(2, "t2", "b", result=whole("/repo/b.py", 1)), "r2", "a2"),  # 5
        linked(cc_assistant(3, "m2", {"type": "text", "text": "done"}), "x1", "r2"),  # 6
        linked(prompt(4, "now c.py"), "u2", "x1"),  # 7
        linked(cc_use(5, "m3", "t3", "Read", file_path="/repo/c.py"), "a3", "u2"),  # 8
        linked(cc_result(6, "t3", "c", result=whole("/repo/c.py", 1)), "r3", "a3"),  # 9
        linked(prompt(7, "no: a.py again"), "u3", "u1"),  # 10: back to the first prompt
        linked(cc_use(8, "m4", "t4", "Read", file_path="/repo/a.py"), "a4", "u3"),  # 11
        linked(cc_result(9, "t4", "a", result=whole("/repo/a.py", 1)), "r4", "a4"),  # 12
        linked(cc_use(10, "m5", "t5", "Read", file_path="/repo/a.py"), "a5", "r4"),  # 13
        linked(cc_result(11, "t5", "a", result=whole("/repo/a.py", 1)), "r5", "a5"),  # 14
    ]  # fmt: skip
    trace = mur_trace.load([write(tmp_path / "s.jsonl", lines)], policy="context")
    assert trace.sql(
        "SELECT line FROM events WHERE event_type = 'context_switch' ORDER BY line"
    ).fetchall() == [(10,)]
    # 11 is not held (the reset), 13 is (11 read it); the reference policy knows no reset
    assert trace.redundant_calls().select("line, prior_line").fetchall() == [(13, 11)]
    assert trace.redundant_calls("reference").select("line, prior_line").order("line").fetchall() == [
        (11, 2), (13, 11)
    ]  # fmt: skip


def test_a_result_stamped_before_its_call_has_no_duration(tmp_path: Path) -> None:
    """Line 3's call at second 5, its result at second 2 (another clock): no duration, not
    -3000 ms; line 4's result comes 2 s after it."""
    lines = [
        {"type": "user", "sessionId": "s1", "cwd": "/repo", "timestamp": TS.format(9),
         "message": {"role": "user", "content": "go"}},
        cc_use(5, "m1", "t1", "Read", file_path="/repo/a.py"),
        cc_result(2, "t1", "a"),
        cc_use(6, "m2", "t2", "Read", file_path="/repo/b.py"),
        cc_result(8, "t2", "b"),
        cc_use(8, "m3", "t3", "Read", file_path="/repo/c.py"),
        cc_result(8, "t3", "c"),  # answered within the second it was asked: 0 ms
    ]  # fmt: skip
    trace = mur_trace.load([write(tmp_path / "s.jsonl", lines)])
    assert trace.sql("SELECT line, duration_ms FROM tool_calls ORDER BY line").fetchall() == [
        (2, None),
        (4, 2000),
        (6, 0),
    ]
    # the session: from its earliest stamp (second 2) to its latest (second 9)
    assert trace.sql("SELECT duration_ms FROM sessions").fetchall() == [(7000,)]
    shown = runner.invoke(app, ["show", str(tmp_path / "s.jsonl")])
    assert "latency:    avg 1.0s\n" in shown.stdout  # the mean of the two durations known
    assert "  turn 0  Read — ✓" in shown.stdout  # not 0ms


def test_a_torn_last_line_is_left_out_with_a_warning(tmp_path: Path) -> None:
    path = write(tmp_path / "s.jsonl", cc_session(), tail='{"type": "assistant", "mess')
    trace = mur_trace.load([path], policy="context")
    assert [w.message for w in trace.warnings] == [
        f"{path}:22: last line is incomplete (torn write); the lines before it are analysed"
    ]
    assert trace.redundant_calls().count("*").fetchall() == [(2,)]
    bad = write(tmp_path / "bad.jsonl", [*cc_session()[:3], *cc_session()[3:]], tail="")
    bad.write_text(bad.read_text().replace('"summary": "a title"', '"summary": "a title",,'))
    with pytest.raises(MurTraceError, match=r"bad.jsonl:1: not valid JSON"):
        mur_trace.load([bad])


def test_a_project_directory_with_subagents_is_one_command(tmp_path: Path) -> None:
    project = tmp_path / "projects" / "-repo"
    session = "marot_spotter__4d5611e5-241a-462a-8d15-5122611a9569"
    project.mkdir(parents=True)
    shutil.copy(REAL / "claude-code" / f"{session}.jsonl", project / f"{session}.jsonl")
    shutil.copytree(REAL / "claude-code" / session, project / session)
    write(project / "other.jsonl", cc_session())
    found = formats.agent_sessions(project)
    assert [Path(p).relative_to(project).as_posix() for p in found] == [
        f"{session}.jsonl",
        f"{session}/subagents/agent-a2898e3.jsonl",
        f"{session}/subagents/agent-acompact-e1f845.jsonl",
        "other.jsonl",
    ]
    result = runner.invoke(app, ["redundant", str(project), "--policy", "context", "-f", "csv"])
    assert result.exit_code == 0, result.output
    rows = result.stdout.splitlines()[1:]
    assert len(rows) == 4  # two in the session, two in other.jsonl, none in the subagents
    assert mur_trace.load([project / f"{session}.jsonl"]).sql(
        "SELECT count(*) FROM traces"
    ).fetchall() == [(3,)]
    # the agents' parent directory works too
    assert formats.agent_sessions(tmp_path / "projects") == [str(Path(p)) for p in found]


def test_other_agents_logs_beside_a_workdirs_sessions_are_read(
    tmp_path: Path, sample_workdir: Path
) -> None:
    """A directory holding a Murmur session (`ses_...1eef`, 2 redundant calls), a Claude
    Code session (1) and a Codex rollout (none) beside it, plus JSON lines that are no log
    (`notes.jsonl`, `logs/a.jsonl`). Named as a path, it is the three sessions (before, the
    Claude Code and Codex logs were passed over without a word: `in 1 of 1 session`); what
    is no log is left alone. `--workdir` stays Murmur's workdir: its `ses_*` sessions."""
    mixed = tmp_path / "mixed"
    session = "ses_01a21715468070018000000000001eef"
    shutil.copytree(sample_workdir / session, mixed / session)
    claude = REAL / "claude-code" / "chiphuyen_sniffly__d3ad4cdc-5657-435d-98fa-0035d53e383d.jsonl"
    codex = (
        REAL
        / "codex"
        / (
            "codemie-ai_codemie-code__rollout-2026-05-11T13-28-45-019e1695-0522-7c83-8b39-0dd379793f80.jsonl"
        )
    )
    shutil.copy(claude, mixed / claude.name)
    shutil.copy(codex, mixed / codex.name)
    write(mixed / "notes.jsonl", [{"note": 1}])
    write(mixed / "logs" / "a.jsonl", [{"note": 2}])
    found = runner.invoke(app, ["redundant", str(mixed)])
    assert found.exit_code == 0 and found.stderr == "", found.output
    assert found.stdout.endswith("total:      3 redundant calls in 2 of 3 sessions\n")
    murmur_only = runner.invoke(app, ["redundant", "--workdir", str(mixed)])
    assert murmur_only.stdout.endswith("total:      2 redundant calls in 1 of 1 session\n")


def test_a_workdir_with_no_murmur_session_is_read_as_a_path(tmp_path: Path) -> None:
    """`--workdir` of an agent's directory (no `ses_*` in it) was `no sessions found`,
    where the directory as a path is its sessions: the real Claude Code project directory,
    5 sessions (3 files and 2 subagents of one)."""
    project = REAL / "claude-code"
    for command in (["redundant"], ["report"], ["check", "--max-redundant", "0"]):
        by_option = runner.invoke(app, [*command, "--workdir", str(project)])
        by_path = runner.invoke(app, [*command, str(project)])
        assert by_option.stderr == "", by_option.output
        assert (by_option.exit_code, by_option.stdout) == (by_path.exit_code, by_path.stdout)
    report = runner.invoke(app, ["report", "--workdir", str(project)])
    assert f"Sessions: 5  ({project})" in report.stdout
    first = project / "chiphuyen_sniffly__d3ad4cdc-5657-435d-98fa-0035d53e383d.jsonl"
    shown = runner.invoke(app, ["show", "--workdir", str(project)])
    assert (shown.exit_code, shown.stderr) == (
        2,
        f"error[E-TRC-002]: no ses_* sessions in workdir at {project}, which holds another "
        f"agent's session files: name one by its path (e.g. {first})\n",
    )
    # --last and --since count by creation time, which a catalog knows of such files
    last = runner.invoke(app, ["report", "--last", "1", "--workdir", str(project)])
    assert (last.exit_code, last.stderr) == (
        2,
        "error[E-TRC-002]: --last counts sessions by when they were created, which another "
        f"agent's session files in {project} do not say without reading them: ingest them "
        f"(mur-trace ingest --db c.duckdb {project}) and give --db c.duckdb\n",
    )
    (tmp_path / "empty").mkdir()  # no session of any agent: as before
    empty = runner.invoke(app, ["redundant", "--workdir", str(tmp_path / "empty")])
    assert (
        empty.stderr == f"error[E-TRC-002]: no sessions found in workdir at {tmp_path / 'empty'}\n"
    )


def test_a_directory_of_sessions_is_all_of_them_to_report_and_none_to_show(
    tmp_path: Path, sample_workdir: Path
) -> None:
    """The real Claude Code directory holds 3 sessions and 2 subagents of one: 5 sessions.
    What the errors advise works (before, `--workdir`, which lists `ses_*` directories)."""
    project = REAL / "claude-code"
    first = project / "chiphuyen_sniffly__d3ad4cdc-5657-435d-98fa-0035d53e383d.jsonl"
    shown = runner.invoke(app, ["show", f"{project}/"])
    assert (shown.exit_code, shown.stderr) == (
        2,
        f"error[E-TRC-002]: {project}/ is a directory of 5 sessions, not one: name one of its files ({first})\n",
    )
    assert runner.invoke(app, ["show", str(first)]).exit_code == 0
    diff = runner.invoke(app, ["diff", str(project), str(first)])
    assert diff.exit_code == 2 and diff.stderr.startswith(
        f"error[E-TRC-002]: before: {project} is a directory of 5 sessions"
    )
    report = runner.invoke(app, ["report", str(project)])
    assert report.exit_code == 0, report.output
    assert f"Sessions: 5  ({project})" in report.stdout
    # the directory given is named, even when its sessions lie in several below it
    report = runner.invoke(app, ["report", f"{REAL}/"])
    assert f"  ({REAL}/)\n" in report.stdout, report.output  # before: (4 directories)
    subagents = project / "marot_spotter__4d5611e5-241a-462a-8d15-5122611a9569" / "subagents"
    report = runner.invoke(app, ["report", str(subagents)])
    assert f"Sessions: 2  ({subagents})" in report.stdout
    one = write(tmp_path / "one" / "s.jsonl", cc_session()).parent
    shown = runner.invoke(app, ["show", str(one)])  # one session: that one
    assert shown.exit_code == 0 and "session:    s1\n" in shown.stdout
    (tmp_path / "empty").mkdir()
    empty = runner.invoke(app, ["show", str(tmp_path / "empty")])
    assert (
        empty.stderr
        == f"error[E-TRC-002]: {tmp_path / 'empty'} is a directory that holds no session\n"
    )
    # a workdir of Murmur sessions: --workdir, as advised
    shown = runner.invoke(app, ["show", str(sample_workdir)])
    assert shown.stderr.endswith(
        "is a workdir, not a session: name one of its sessions (or give the workdir with --workdir)\n"
    )
    assert runner.invoke(app, ["show", "--workdir", str(sample_workdir)]).exit_code == 0
    report = runner.invoke(app, ["report", str(sample_workdir)])
    assert f"Sessions: 7  ({sample_workdir})" in report.stdout


def test_plot_names_a_directory_as_it_was_given(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`plot timeline DIR` takes DIR as a path without a `/`; its error named it `./DIR`."""
    shutil.copytree(REAL / "claude-code", tmp_path / "cc")
    monkeypatch.chdir(tmp_path)
    drawn = runner.invoke(app, ["plot", "timeline", "cc", "-o", "t.png"])
    assert drawn.exit_code == 2
    assert drawn.stderr.startswith("error[E-TRC-002]: cc is a directory of 5 sessions"), (
        drawn.stderr
    )
    one = write(tmp_path / "one" / "s.jsonl", cc_session()).parent.name
    assert runner.invoke(app, ["plot", "timeline", one, "-o", "t.png"]).exit_code == 0


def test_the_rate_plot_places_other_agents_sessions_at_their_first_event(
    tmp_path: Path,
) -> None:
    """Another agent's session id says no time: `plot rate` left every such session out, an
    empty figure for a directory of Claude Code or Codex sessions, with no word. They are
    placed at their first event (the first line's `timestamp` of each file here), as
    `export` dates them; one whose trace holds no time is left out, and the title says so."""
    pytest.importorskip("matplotlib")
    from mur_trace import plot

    chiphuyen = (
        REAL / "claude-code" / "chiphuyen_sniffly__d3ad4cdc-5657-435d-98fa-0035d53e383d.jsonl"
    )
    rollout = next((REAL / "codex").glob("*11-26-55*.jsonl"))
    untimed = write(tmp_path / "t" / "trace.jsonl", [{"event_type": "tool_call",
        "session_id": "untimed", "tool_name": "read_file", "input": {"path": "a"},
        "status": "ok", "state_effect": "read"}])  # fmt: skip
    trace = mur_trace.load([chiphuyen, rollout, untimed])
    placed = trace.sql(queries.get("plots/rate").sql).select("session_id, created").fetchall()
    assert [(s, str(c)) for s, c in placed] == [
        ("d3ad4cdc-5657-435d-98fa-0035d53e383d", "2025-06-08 11:00:11.669000"),
        ("019e1625-789d-76c0-80ab-3724b5ddb799", "2026-05-11 08:27:17.490000"),
        ("untimed", "None"),
    ]
    figure = plot.rate(trace)
    title = figure.axes[0].get_title()
    assert title == "redundancy rate over time (reference policy); 1 session with no time left out"
    assert len(figure.axes[0].collections[0].get_offsets()) == 2  # the two sessions, drawn


def test_the_rate_plot_rates_each_session_of_a_file_of_several(tmp_path: Path) -> None:
    """An OpenHands output holds two sessions: a-1 (from 10:00) reads /w/a.py twice, one
    redundant call in two; b-2 (from 09:00) reads it once, its own first read. `plot rate`
    places and rates each session apart, as `report` counts them, not the file as one."""
    pytest.importorskip("matplotlib")
    from mur_trace import plot

    def instance(name: str, hour: int, reads: int) -> dict:
        history = []
        for n in range(reads):
            at = f"2025-04-30T{hour:02d}:00:{n:02d}"
            history += [
                {"id": 2 * n + 1, "timestamp": at, "source": "agent", "action": "read",
                 "args": {"path": "/w/a.py"},
                 "tool_call_metadata": {"model_response": {"id": f"r{n}"}}},
                {"id": 2 * n + 2, "timestamp": at, "source": "environment",
                 "observation": "read", "cause": 2 * n + 1, "content": "x"},
            ]  # fmt: skip
        return {"instance_id": name, "history": history}

    output = write(tmp_path / "output.jsonl", [instance("a-1", 10, 2), instance("b-2", 9, 1)])
    trace = mur_trace.load([output])
    rows = trace.sql(queries.get("plots/rate").sql).fetchall()
    assert [(s, str(c), n, r, rate) for s, c, n, r, rate in rows] == [
        ("b-2", "2025-04-30 09:00:00", 1, 0, 0.0),
        ("a-1", "2025-04-30 10:00:00", 2, 1, 0.5),
    ]
    (points, *_) = plot.rate(trace).axes[0].collections
    assert [y for _, y in points.get_offsets()] == [0.0, 0.5]


def test_ingest_reads_a_grown_log_again_whole(tmp_path: Path) -> None:
    project = tmp_path / "p"
    lines = cc_session()
    path = write(project / "s.jsonl", lines[:6])
    db = tmp_path / "c.duckdb"
    assert ingest(db, [project]).new == 1
    path.write_text(path.read_text() + "".join(json.dumps(x) + "\n" for x in lines[6:]))
    report = ingest(db, [project])
    assert (report.appended, report.rewritten) == (0, 1)
    stored = (
        mur_trace.load(db=db, policy="context")
        .redundant_calls()
        .select("line, call_id")
        .order("line")
    )
    direct = (
        mur_trace.load([path], policy="context")
        .redundant_calls()
        .select("line, call_id")
        .order("line")
    )
    assert stored.fetchall() == direct.fetchall() == [(7, "t3"), (20, "t8")]


def test_a_compaction_shows_what_the_log_says_and_no_more(tmp_path: Path) -> None:
    """Line 158 of this session is a compact_boundary (preTokens 155979) after 37 assistant
    messages; the log gives no count after it, and a Murmur compaction may lack fields too."""
    real = REAL / "claude-code" / "codemie-ai_codemie-code__session-624a4a58.jsonl"
    shown = runner.invoke(app, ["show", str(real)])
    assert shown.exit_code == 0, shown.output
    assert shown.stdout.rstrip("\n").endswith("fired:      yes  at turn 37  (155,979 → — tokens)")
    data = json.loads(runner.invoke(app, ["show", str(real), "-f", "json"]).stdout)["metrics"]
    assert [
        data[k] for k in ("compactions", "compaction_turn", "compaction_before", "compaction_after")
    ] == [1, 37, 155979, None]
    murmur = write(tmp_path / "m.jsonl", [
        {"event_type": "session_start", "session_id": "ses_01"},
        {"event_type": "compaction"},  # no field: it fired, nothing more is known
        {"event_type": "session_end", "total_turns": 1, "exit_status": "ok"},
    ])  # fmt: skip
    shown = runner.invoke(app, ["show", str(murmur)])
    assert shown.exit_code == 0, shown.output
    assert shown.stdout.rstrip("\n").endswith(
        "── Compaction ───────────────────────────────────\nfired:      yes  turn unknown"
    )
    rows = json.loads(runner.invoke(app, ["diff", str(murmur), str(real), "-f", "json"]).stdout)
    assert [(r["a_text"], r["b_text"]) for r in rows if r["metric"] == "compaction"] == [
        ("turn unknown", "turn 37")
    ]


# ── Codex ────────────────────────────────────────────────────────────────────


def cx(n: int, kind: str, **payload) -> dict:
    return {"timestamp": TS.format(n), "type": kind, "payload": payload}


def cx_call(n: int, call: str, name: str, args: dict) -> dict:
    return cx(
        n,
        "response_item",
        type="function_call",
        name=name,
        arguments=json.dumps(args),
        call_id=call,
    )


def cx_out(n: int, call: str, text: str) -> dict:
    return cx(n, "response_item", type="function_call_output", call_id=call, output=text)


def tokens(n: int, inp: int, out: int) -> dict:
    return cx(
        n,
        "event_msg",
        type="token_count",
        info={"last_token_usage": {"input_tokens": inp, "output_tokens": out}},
    )


def test_codex_polls_patches_and_compactions(tmp_path: Path) -> None:
    lines = [
        cx(0, "session_meta", id="c1", cwd="/w", cli_version="0.1"),
        cx(0, "turn_context", cwd="/w", model="gpt-x"),
        cx_call(1, "e1", "exec_command", {"cmd": "cat a.txt", "workdir": "/w"}),  # 3
        tokens(1, 100, 10),
        cx_out(2, "e1", "Process running with session ID 7\nOutput:\n"),
        cx_call(3, "p1", "write_stdin", {"session_id": 7, "chars": ""}),  # a poll, not a call
        tokens(3, 120, 2),
        cx_out(5, "p1", "Process exited with code 0\nOutput:\nhello\n"),
        cx_call(6, "e2", "exec_command", {"cmd": "cat /w/a.txt"}),  # 9: the same file: redundant
        tokens(6, 150, 5),
        cx_out(7, "e2", "Process exited with code 0\nOutput:\nhello\n"),
        cx(8, "response_item", type="custom_tool_call", name="apply_patch", call_id="a1",
           input="*** Begin Patch\n*** Update File: a.txt\n@@\n-hello\n+bye\n*** End Patch\n"),  # 12
        tokens(8, 170, 40),
        cx(9, "response_item", type="custom_tool_call_output", call_id="a1", output='{"output":"Success","metadata":{"exit_code":0}}'),
        cx_call(10, "e3", "exec_command", {"cmd": "cat a.txt", "workdir": "/w"}),  # 15: after the patch
        tokens(10, 230, 5),
        cx_out(11, "e3", "Process exited with code 0\nOutput:\nbye\n"),
        cx(12, "compacted", message="summary"),  # 18
        cx_call(13, "e4", "exec_command", {"cmd": "cat a.txt", "workdir": "/w"}),  # 19: after compaction
        tokens(13, 50, 5),
        cx_out(14, "e4", "Process exited with code 0\nOutput:\nbye\n"),
        cx_call(15, "e5", "exec_command", {"cmd": "rg -n 'x|y' a.txt", "workdir": "/w"}),  # 22: a search in it
        tokens(15, 60, 5),
        cx_out(16, "e5", "Process exited with code 1\nOutput:\n"),
    ]  # fmt: skip
    trace = mur_trace.load([write(tmp_path / "rollout-x.jsonl", lines)], policy="context")
    calls = trace.sql(
        "SELECT line, call_id, turn, tool_name, status, output_bytes, changed_paths FROM tool_calls ORDER BY line"
    ).fetchall()
    assert calls == [
        (3, "e1", 0, "exec_command", "ok", 42 + 41, None),
        (9, "e2", 2, "exec_command", "ok", 41, None),
        (12, "a1", 3, "apply_patch", "ok", 47, ["a.txt"]),
        (15, "e3", 4, "exec_command", "ok", 39, None),
        (19, "e4", 5, "exec_command", "ok", 39, None),
        (22, "e5", 6, "exec_command", "error", 35, None),
    ]  # fmt: skip
    assert trace.sql(
        "SELECT line, input_tokens, output_tokens FROM events WHERE event_type = 'inference' ORDER BY line LIMIT 3"
    ).fetchall() == [(3, 100, 10), (6, 120, 2), (9, 150, 5)]
    found = trace.redundant_calls().select("line, call_id, prior_line, resource").fetchall()
    assert found == [(9, "e2", 3, "/w/a.txt")]
    # five responses before it (lines 3, 6, 9, 12, 15): the next one, turn 5, is after it
    assert trace.sql(
        "SELECT line, turn, tokens_before, tokens_after FROM events WHERE event_type = 'compaction'"
    ).fetchall() == [(18, 5, None, None)]
    shown = runner.invoke(app, ["show", str(tmp_path / "rollout-x.jsonl")])
    assert shown.exit_code == 0, shown.output
    assert shown.stdout.rstrip("\n").endswith(
        "── Compaction ───────────────────────────────────\nfired:      yes  at turn 5"
    )


PATCH = "*** Begin Patch\n*** Update File: a.txt\n@@\n-hello\n+howdy\n*** End Patch\n"


@pytest.mark.parametrize(
    "form",
    ["function", "shell argv", "heredoc", "shell argv, the end event", "function, the end event"],
)
def test_codex_patches_of_every_form_change_their_files(tmp_path: Path, form: str) -> None:
    """`apply_patch` as a function (gpt-oss: `{"input": patch}`), or run through the shell
    tool (`["apply_patch", patch]`, a heredoc): Codex logs the files in `patch_apply_end`
    (absolute), and the headers say them too. Only the freeform tool's were read: the
    second `cat` (as many bytes: "howdy" for "hello") was taken for a repeat."""
    call = {
        "function": cx_call(3, "p1", "apply_patch", {"input": PATCH}),
        "shell argv": cx_call(3, "p1", "shell", {"command": ["apply_patch", PATCH], "workdir": "/w"}),
        "heredoc": cx_call(3, "p1", "exec_command", {"cmd": f"apply_patch <<'EOF'\n{PATCH}EOF\n"}),
    }[form.split(",")[0]]  # fmt: skip
    end = cx(4, "event_msg", type="patch_apply_end", call_id="p1", success=True,
             changes={"/w/b.txt": {"type": "update", "unified_diff": "", "move_path": "/w/a.txt"}})  # fmt: skip
    lines = [
        cx(0, "session_meta", id="c1", cwd="/w", cli_version="0.1"),
        cx(0, "turn_context", cwd="/w", model="gpt-x"),
        cx_call(1, "e1", "exec_command", {"cmd": "cat a.txt"}),  # 3
        cx_out(2, "e1", "Process exited with code 0\nOutput:\nhello\n"),
        call,  # 5
        *([end] if "end event" in form else []),  # b.txt moved to a.txt, as Codex says
        cx_out(4, "p1", "Success. Updated the following files:\nM a.txt\n"),
        cx_call(5, "e2", "exec_command", {"cmd": "cat a.txt"}),
        cx_out(6, "e2", "Process exited with code 0\nOutput:\nhowdy\n"),
    ]  # fmt: skip
    trace = mur_trace.load([write(tmp_path / "rollout-x.jsonl", lines)], policy="context")
    [(changed,)] = trace.sql("SELECT changed_paths FROM tool_calls WHERE line = 5").fetchall()
    assert changed == (["/w/b.txt", "/w/a.txt"] if "end event" in form else ["a.txt"])
    assert trace.redundant_calls().count("*").fetchall() == [(0,)]


def test_codex_commands_run_in_their_turns_directory(tmp_path: Path) -> None:
    """A turn can run in another directory (`turn_context` with another `cwd`): `cat a.py`
    there read another file, and was taken for a re-read of the first directory's; a
    relative `workdir` is in the turn's directory."""
    lines = [
        cx(0, "session_meta", id="c1", cwd="/r1", cli_version="0.1"),
        cx(0, "turn_context", cwd="/r1", model="gpt-x"),
        cx_call(1, "e1", "shell_command", {"command": "cat a.py"}),  # 3
        cx_out(2, "e1", "Exit code: 0\nOutput:\nx\n"),
        cx(3, "turn_context", cwd="/r2", model="gpt-x"),
        cx_call(4, "e2", "shell_command", {"command": "cat a.py"}),  # 6: /r2/a.py
        cx_out(5, "e2", "Exit code: 0\nOutput:\ny\n"),
        cx_call(6, "e3", "shell_command", {"command": "cat a.py", "workdir": "sub"}),  # 8
        cx_out(7, "e3", "Exit code: 0\nOutput:\nz\n"),
        cx_call(8, "e4", "shell_command", {"command": "cat /r2/sub/a.py"}),  # 10: a repeat
        cx_out(9, "e4", "Exit code: 0\nOutput:\nz\n"),
    ]  # fmt: skip
    trace = mur_trace.load([write(tmp_path / "rollout-x.jsonl", lines)], policy="context")
    assert trace.sql("SELECT line, cwd FROM tool_calls ORDER BY line").fetchall() == [
        (3, "/r1"), (6, "/r2"), (8, "/r2/sub"), (10, "/r2")
    ]  # fmt: skip
    found = trace.redundant_calls().select("line, prior_line, resource").fetchall()
    assert found == [(10, 8, "/r2/sub/a.py")]


def test_codex_shell_command_and_local_shell_calls_are_shell_commands(tmp_path: Path) -> None:
    """The shell tools of Codex's other model families: `shell_command` (a script as a
    string, `gpt-5.x-codex`) and a `local_shell_call` item (`codex-mini`: an argv, answered
    by a `function_call_output`). Neither was a shell command: a `sed -i` run through a
    local shell call was unseen, and no read through `shell_command` was. The exit code of
    an output as Codex words shell output for the model (`Exit code: N`) is the call's."""

    def run(text: str, code: int) -> str:
        return f"Exit code: {code}\nWall time: 0.1 seconds\nOutput:\n{text}"

    local = {"type": "exec", "command": ["bash", "-lc", "sed -i 's/hello/bye/' a.txt"],
             "working_directory": "/w", "timeout_ms": None, "env": None, "user": None}  # fmt: skip
    lines = [
        cx(0, "session_meta", id="c2", cwd="/w", cli_version="0.9"),
        cx(0, "turn_context", cwd="/w", model="gpt-x-codex"),
        cx_call(1, "s1", "shell_command", {"command": "cat a.txt", "workdir": "/w"}),  # 3
        tokens(1, 100, 10),
        # what the command printed may say what Codex's header says: the header counts
        cx_out(2, "s1", run("hello\n[vite] Process exited with code 1\n", 0)),
        cx_call(3, "s2", "shell_command", {"command": "cat /w/a.txt"}),  # 6: the same file
        tokens(3, 110, 10),
        cx_out(4, "s2", run("hello\n[vite] Process exited with code 1\n", 0)),
        cx(5, "response_item", type="local_shell_call", call_id="l1", status="completed",
           action=local),  # 9: changes it
        tokens(5, 120, 10),
        cx_out(6, "l1", run("", 0)),
        cx_call(7, "s3", "shell_command", {"command": "cat a.txt", "workdir": "/w"}),  # 12
        tokens(7, 130, 10),
        cx_out(8, "s3", run("cat: a.txt: Permission denied\n", 1)),
    ]  # fmt: skip
    trace = mur_trace.load([write(tmp_path / "rollout-y.jsonl", lines)], policy="context")
    assert trace.sql(
        "SELECT line, call_id, tool_name, status FROM tool_calls ORDER BY line"
    ).fetchall() == [
        (3, "s1", "shell_command", "ok"),
        (6, "s2", "shell_command", "ok"),
        (9, "l1", "local_shell", "ok"),
        (12, "s3", "shell_command", "error"),
    ]
    assert trace.sql(
        "SELECT line, \"binary\", command, exit_code, cwd FROM events WHERE event_type = 'shell' "
        "ORDER BY line"
    ).fetchall() == [
        (3, "bash", "cat a.txt", 0, "/w"),
        (6, "bash", "cat /w/a.txt", 0, "/w"),
        (9, "bash", "sed -i 's/hello/bye/' a.txt", 0, "/w"),
        (12, "bash", "cat a.txt", 1, "/w"),
    ]
    assert trace.sql(
        "SELECT line, tool_name FROM events WHERE event_type = 'inference' ORDER BY line"
    ).fetchall() == [(3, "shell_command"), (6, "shell_command"), (9, "local_shell"),
                     (12, "shell_command")]  # fmt: skip
    found = trace.redundant_calls().select("line, call_id, prior_line, resource").fetchall()
    assert found == [(6, "s2", 3, "/w/a.txt")]


def test_codex_058_token_counts_written_before_their_response_are_read() -> None:
    """A real Codex CLI 0.58 rollout (tests/fixtures/codex-0.58, see its README) writes each
    response's `token_count` just before the response and again after its output: every
    response had no tokens (`input: —`), as the first break after each is its call's
    output. Its 39 responses' counts add up to the rollout's last `total_token_usage`:
    1,099,261 input and 22,305 output tokens."""
    rollout = next((REAL.parent / "codex-0.58").glob("*.jsonl"))
    trace = mur_trace.load([rollout])
    assert trace.sql(
        "SELECT count(*), count(input_tokens), sum(input_tokens), sum(output_tokens) "
        "FROM events WHERE event_type = 'inference'"
    ).fetchall() == [(39, 39, 1_099_261, 22_305)]
    shown = runner.invoke(app, ["show", str(rollout)]).stdout
    assert (
        "\ninput:      1,099,261  (avg 28186/turn)\noutput:     22,305  (avg 572/turn)\n" in shown
    )


def test_an_openhands_condensation_is_a_compaction_at_the_next_turn(tmp_path: Path) -> None:
    def read(n: int, response: str) -> dict:
        return {"id": n, "source": "agent", "action": "read", "args": {"path": "/w/a.py"},
                "tool_call_metadata": {"model_response": {"id": response}}}  # fmt: skip

    def seen(n: int, cause: int) -> dict:
        return {
            "id": n,
            "source": "environment",
            "observation": "read",
            "cause": cause,
            "content": "x",
        }

    history = [read(1, "r1"), seen(2, 1), {"id": 3, "source": "agent", "action": "condensation"},
               read(4, "r2"), seen(5, 4)]  # fmt: skip
    out = write(tmp_path / "output.jsonl", [{"instance_id": "i1", "history": history}])
    trace = mur_trace.load([out], policy="context")
    # positions: session_start 1, history 2-6, session_end 7; one response (r1) before it
    assert trace.sql(
        "SELECT line, turn, tokens_before FROM events WHERE event_type = 'compaction'"
    ).fetchall() == [(4, 1, None)]
    assert trace.redundant_calls().count("*").fetchall() == [(0,)]  # the re-read follows it
    assert trace.redundant_calls("reference").select("line").fetchall() == [(5,)]


@pytest.mark.parametrize("action", ["run_ipython", "delegate"])
def test_an_openhands_code_cell_may_have_changed_any_file(tmp_path: Path, action: str) -> None:
    """A code cell (`run_ipython`: `open('/w/a.py', 'w').write(...)`) and a delegation to
    another agent name no file and may change any: the read after one is not redundant."""

    def step(n: int, act: str, args: dict, content: str) -> list[dict]:
        return [
            {"id": n, "source": "agent", "action": act, "args": args,
             "tool_call_metadata": {"model_response": {"id": f"r{n}"}}},
            {"id": n + 1, "source": "environment", "observation": act, "cause": n,
             "content": content},
        ]  # fmt: skip

    history = [
        *step(1, "read", {"path": "/w/a.py"}, "x"),
        *step(3, action, {"code": "open('/w/a.py', 'w').write('xy')"}, "ok"),
        *step(5, "read", {"path": "/w/a.py"}, "xy"),
    ]
    out = write(tmp_path / "output.jsonl", [{"instance_id": "i1", "history": history}])
    trace = mur_trace.load([out], policy="context")
    assert trace.sql(
        "SELECT tool_name, state_effect, resource FROM tool_calls ORDER BY line"
    ).fetchall() == [("read", "read", "/w/a.py"), (action, "mutate", None),
                     ("read", "read", "/w/a.py")]  # fmt: skip
    assert trace.redundant_calls().count("*").fetchall() == [(0,)]
    # positions: session_start 1, history 2-7: the second read at 6, the first at 2
    assert trace.redundant_calls("reference").select("line, prior_line").fetchall() == [(6, 2)]


def test_show_says_when_a_file_holds_several_sessions() -> None:
    """The OpenHands output holds three instances, one a line (ponylang__ponyc-4595,
    -4593, -4588): `show` counts them together, and now says so."""
    hands = REAL / "openhands" / "OpenHands_OpenHands__multi_swe_bench_examples_output.jsonl"
    shown = runner.invoke(app, ["show", str(hands)])
    assert shown.exit_code == 0, shown.output
    assert "\nsessions:   3 in this file, counted together below\n" in shown.stdout
    # 105 actions: 43 failed (an `error` observation, `ERROR:` or a non-zero exit), 60
    # answered otherwise, and the two `finish` actions (4595's id 49, 4593's id 70), which
    # get no observation by design: ok, not failed (were 60 ok, 45 error)
    assert "\ncount:      105  (62 ok, 43 error)  success 59.0%\n" in shown.stdout
    assert shown.stdout.count(" finish — ✓ ") == 2
    data = json.loads(runner.invoke(app, ["show", str(hands), "-f", "json"]).stdout)
    assert data["metrics"]["sessions_in_file"] == 3
    # `report` heads each instance by its whole id (cut to 12 characters, all three read
    # `ponylang__po...`); ponyc-4588 made 49 model responses
    reported = runner.invoke(app, ["report", str(hands)]).stdout
    assert "\nSession ponylang__ponyc-4588  —  49 turns\n" in "\n" + reported
    one = REAL / "claude-code" / "codemie-ai_codemie-code__session-624a4a58.jsonl"
    assert "sessions:" not in runner.invoke(app, ["show", str(one)]).stdout


def test_the_sessions_of_one_file_are_counted_together_and_listed_apart(tmp_path: Path) -> None:
    """Two OpenHands instances in one output: i1 reads /w/a.py twice (responses r1, r2:
    turns 0 and 1, both ok), i2 reads it once (r3: its turn 0), and that read fails. `show`
    adds their totals up (3 turns, 3 calls, 2 ok): not the last instance's (1 call, which
    made `success 200.0%`), and lists the turns under the session they belong to; `report`
    and `check` count two sessions (one before)."""

    def read(n: int, response: str) -> dict:
        return {"id": n, "source": "agent", "action": "read", "args": {"path": "/w/a.py"},
                "tool_call_metadata": {"model_response": {"id": response}}}  # fmt: skip

    def seen(n: int, cause: int, content: str = "x") -> dict:
        kind = "error" if content.startswith("ERROR") else "read"
        return {"id": n, "source": "environment", "observation": kind, "cause": cause,
                "content": content}  # fmt: skip

    out = write(tmp_path / "output.jsonl", [
        {"instance_id": "i1", "history": [read(1, "r1"), seen(2, 1), read(3, "r2"), seen(4, 3)]},
        {"instance_id": "i2", "history": [read(1, "r3"), seen(2, 1, "ERROR: gone")]},
    ])  # fmt: skip
    shown = runner.invoke(app, ["show", str(out)])
    assert shown.exit_code == 0, shown.output
    text = shown.stdout
    assert "\nsessions:   2 in this file, counted together below\n" in text
    assert "\nduration:   —\n" in text  # an output says none (was `0ms`)
    assert "\ncount:      3  (max: —)\n" in text  # turns: 2 + 1
    assert "\ncount:      3  (2 ok, 1 error)  success 66.7%\n" in text
    listed = [line[:14] for line in text.splitlines() if line.startswith(("  turn", "  session"))]
    assert listed == [
        "  session i1", "  turn 0  read", "  turn 1  read", "  session i2", "  turn 0  read",
        "  session i1", "  turn 1  read",  # the redundant call: i1's second read
    ]  # fmt: skip
    # i1 run again in the same output: a session of its own, its action ids apart
    again = write(tmp_path / "again.jsonl", [
        {"instance_id": "i1", "history": [read(1, "r1"), seen(2, 1), read(3, "r2"), seen(4, 3)]},
        {"instance_id": "i1", "history": [read(1, "r3"), seen(2, 1, "ERROR: gone")]},
    ])  # fmt: skip
    text = runner.invoke(app, ["show", str(again)]).stdout
    assert "\nsessions:   2 in this file, counted together below\n" in text
    assert "\ncount:      3  (2 ok, 1 error)  success 66.7%\n" in text  # was 6 calls, 5 ok
    assert "\n  session i1~2\n" in text
    # `report` and `check` count each session: i1 2 turns, 2 calls, both ok; i2 1, 1, failed
    per_session = (
        mur_trace.summarise([out])
        .session_metrics()
        .select("session_id, total_turns, total_tool_calls, tool_ok, tool_error, tool_success_pct")
        .order("session_id")
        .fetchall()
    )
    assert per_session == [("i1", 2, 2, 2, 0, 100.0), ("i2", 1, 1, 0, 1, 0.0)]
    report = runner.invoke(app, ["report", str(out)])
    assert "\nSessions: 2  (" in report.stdout, report.output
    checked = runner.invoke(app, ["check", str(out), "--max-redundant", "0"])
    assert (
        checked.stdout == "FAIL  i1  redundant calls 1 > 0\n1 of 2 sessions over the thresholds\n"
    )

    # the sessions of a file in the order of their ids, whatever the threads did (each
    # reads a file of its own twice)
    def twice(instance: str) -> dict:
        history = [read(1, "r1"), seen(2, 1), read(3, "r2"), seen(4, 3)]
        for event in history[0::2]:
            event["args"] = {"path": f"/w/{instance}.py"}
        return {"instance_id": instance, "history": history}

    both = write(tmp_path / "both.jsonl", [twice("i2"), twice("i1")])
    for _ in range(3):
        checked = runner.invoke(app, ["check", str(both), "--max-redundant", "0"])
        assert checked.stdout == (
            "FAIL  i1  redundant calls 1 > 0\nFAIL  i2  redundant calls 1 > 0\n"
            "2 of 2 sessions over the thresholds\n"
        )
        codes = json.loads(runner.invoke(app, ["report", str(both), "-f", "json"]).stdout)
        assert [s["session_id"] for s in codes["sessions"]] == ["i1", "i2"]
    # `redundant` counts sessions as `check` does, a block each, in the file's order (was:
    # one block headed i2, `in 1 of 1 session`)
    found = runner.invoke(app, ["redundant", str(both)]).stdout
    assert found == (
        f"i2  {both}\ncount:      1\n  turn 1  read  /w/i2.py  (re-reads turn 0)\n\n"
        f"i1  {both}\ncount:      1\n  turn 1  read  /w/i1.py  (re-reads turn 0)\n\n"
        "total:      2 redundant calls in 2 of 2 sessions\n"
    )
    found = runner.invoke(app, ["redundant", str(out), "--policy", "context"]).stdout
    assert found.splitlines()[-2] == "total:      1 redundant call in 1 of 2 sessions"
    assert repr(mur_trace.load([out])) == "<Trace: 2 sessions, 0 skipped>"
    assert mur_trace.summarise([out]).session_count() == 2
    assert mur_trace.find_loops([out, both]).sessions == 4


def test_the_reference_policy_keeps_the_history_of_each_session_of_a_file(
    tmp_path: Path,
) -> None:
    """Two OpenHands instances in one output, two agents in two containers: i1 reads
    /w/a.py (turn 0) and /w/b.py (turn 1); i2 reads /w/a.py at turns 0 and 1. i2's first
    read repeats nothing it held (it was i1's history, which the reference policy matched
    across the file before); its second re-reads its own turn 0. So one finding, whether
    read from the file, from a catalog or from an export's events, where the session of
    each line travels with it (an older export, without it, takes it from the session
    ids of a file whose session_starts name several)."""

    def read(n: int, path: str, response: str) -> dict:
        return {"id": n, "source": "agent", "action": "read", "args": {"path": path},
                "tool_call_metadata": {"model_response": {"id": response}}}  # fmt: skip

    def seen(n: int) -> dict:
        return {"id": n, "source": "environment", "observation": "read", "cause": n - 1,
                "content": "x"}  # fmt: skip

    out = write(tmp_path / "o" / "output.jsonl", [
        {"instance_id": "i1",
         "history": [read(1, "/w/a.py", "r1"), seen(2), read(3, "/w/b.py", "r2"), seen(4)]},
        {"instance_id": "i2",
         "history": [read(1, "/w/a.py", "r3"), seen(2), read(3, "/w/a.py", "r4"), seen(4)]},
    ])  # fmt: skip
    found = runner.invoke(app, ["redundant", str(out), "-f", "csv"])
    assert found.exit_code == 0, found.output
    rows = [line.split(",") for line in found.stdout.splitlines()]
    picked = [(r[0], r[4], r[5], r[6], r[10]) for r in rows]  # id, turn, tool, resource, prior
    assert picked == [
        ("session_id", "turn", "tool_name", "resource", "prior_turn"),
        ("i2", "1", "read", "/w/a.py", "0"),
    ]
    db = tmp_path / "c.duckdb"
    ingest(db, [out])
    from_db = mur_trace.find_redundant(db=db)
    assert from_db.relation.select("session_id, turn, prior_turn").fetchall() == [("i2", 1, 0)]
    assert from_db.sessions == 2
    assert mur_trace.find_redundant(db=db, policy="context").sessions == 2
    export = tmp_path / "export"
    assert runner.invoke(app, ["export", str(out), "--parquet", str(export)]).exit_code == 0
    con = duckdb.connect()
    con.execute(
        f"CREATE VIEW events AS SELECT * FROM read_parquet('{export}/events/**/*.parquet', "
        "hive_partitioning = true)"
    )
    con.execute(f"CREATE VIEW tool_calls AS {queries.get('events/tool_calls').sql}")
    reference = con.sql(queries.get("redundant/reference").sql)
    assert reference.select("session_id, turn, prior_turn").fetchall() == [("i2", 1, 0)]
    older = con.sql("SELECT * EXCLUDE (file_session) FROM events").to_arrow_table()
    mine = connect()
    load_events(mine, older)
    again = mur_trace.Trace(mine, [])
    assert again.redundant_calls().select("session_id, turn, prior_turn").fetchall() == [
        ("i2", 1, 0)
    ]
    assert again.session_count() == 2


def read_twice(path: str) -> list[dict]:
    """An OpenHands instance's history: two reads of `path` (responses r1 and r3: turns 0
    and 1), each seen whole."""
    return [
        {"id": n, "source": "agent", "action": "read", "args": {"path": path},
         "tool_call_metadata": {"model_response": {"id": f"r{n}"}}} if n % 2 else
        {"id": n, "source": "environment", "observation": "read", "cause": n - 1,
         "content": "x"}
        for n in (1, 2, 3, 4)
    ]  # fmt: skip


def test_an_instance_without_an_id_is_a_session_of_its_own(tmp_path: Path) -> None:
    """An OpenHands output whose second line has no `instance_id`: both lines read a file
    twice. The second is its own session, named by its line (`line-2`), not taken into
    i1, the first session of the file, whose id loading gives a line that names none."""
    out = write(tmp_path / "output.jsonl", [
        {"instance_id": "i1", "history": read_twice("/w/a.py")},
        {"history": read_twice("/w/b.py")},
    ])  # fmt: skip
    found = runner.invoke(app, ["redundant", str(out)])
    assert found.exit_code == 0, found.output
    assert found.stdout == (
        f"i1  {out}\ncount:      1\n  turn 1  read  /w/a.py  (re-reads turn 0)\n\n"
        f"line-2  {out}\ncount:      1\n  turn 1  read  /w/b.py  (re-reads turn 0)\n\n"
        "total:      2 redundant calls in 2 of 2 sessions\n"
    )
    metrics = mur_trace.load([out]).session_metrics().order("session_id")
    assert metrics.select("session_id, total_turns").fetchall() == [("i1", 2), ("line-2", 2)]


@pytest.mark.parametrize(
    ("ids", "names"),
    [
        # a retry of i1 on line 3 is `i1~3`; the instance without an id on line 5 would be
        # `line-5`, the fourth's real id, which keeps it: `line-5~5`
        (["i1~2", "i1", "i1", "line-5", None], ["i1~2", "i1", "i1~3", "line-5", "line-5~5"]),
        # the retries of line 4 and 5 end with their lines; the first ones keep their ids
        (["x", "x~2", "x", "x~2", "x~2"], ["x", "x~2", "x~3", "x~2~4", "x~2~5"]),
        # `x~3` and `x~3~3` are real ids: the retry of x on line 3 takes the ending once more
        (["x", "x~3", "x", "x~3~3"], ["x", "x~3", "x~3~3~3", "x~3~3"]),
    ],
)
def test_a_generated_session_name_never_takes_a_real_one(
    tmp_path: Path, ids: list[str | None], names: list[str]
) -> None:
    """OpenHands outputs whose instances each read /w/a.py twice, with ids that a name made
    for a retry or for an instance without an id could take. Each instance is a session of
    its own, one finding each. Before, two instances could share a name, and one's actions
    were paired with the other's observations (the first case: 15 findings in 3 sessions;
    the second, after a first fix: 10 findings in 4)."""
    out = write(tmp_path / "output.jsonl", [
        {**({"instance_id": i} if i is not None else {}), "history": read_twice("/w/a.py")}
        for i in ids
    ])  # fmt: skip
    found = runner.invoke(app, ["redundant", str(out)])
    assert found.exit_code == 0, found.output
    block = "count:      1\n  turn 1  read  /w/a.py  (re-reads turn 0)\n\n"
    assert found.stdout == "".join(f"{name}  {out}\n{block}" for name in names) + (
        f"total:      {len(ids)} redundant calls in {len(ids)} of {len(ids)} sessions\n"
    )


def test_an_export_dates_the_findings_of_other_agents_as_their_events(tmp_path: Path) -> None:
    """`export --partition-by date` over the real sessions of other agents, from the files
    and from a catalog: a finding is dated as its trace's events are, by the first
    timestamp of the file, since another agent's id says no time (the Claude Code sessions
    start on 2025-06-08, 2026-01-07 and 2026-02-12, its subagent's on 2026-02-12, the
    OpenHands output on 2025-04-30). Before, every such finding went to
    `date=__HIVE_DEFAULT_PARTITION__`."""
    import duckdb

    db = tmp_path / "c.duckdb"
    ingest(db, [REAL])
    for source, out in (([str(REAL)], "files"), (["--db", str(db)], "catalog")):
        args = ["export", "--parquet", str(tmp_path / out), *source, "--partition-by", "date"]
        assert runner.invoke(app, args).exit_code == 0
        dated = duckdb.sql(
            "SELECT DISTINCT regexp_extract(trace_path, '[^/]+$'), date::VARCHAR FROM "
            f"read_parquet('{tmp_path / out}/findings/**/*.parquet', hive_partitioning = 1) "
            "ORDER BY ALL"
        ).fetchall()
        assert dated == [
            ("OpenHands_OpenHands__multi_swe_bench_examples_output.jsonl", "2025-04-30"),
            ("agent-a2898e3.jsonl", "2026-02-12"),
            ("chiphuyen_sniffly__d3ad4cdc-5657-435d-98fa-0035d53e383d.jsonl", "2025-06-08"),
            ("codemie-ai_codemie-code__session-624a4a58.jsonl", "2026-01-07"),
            ("marot_spotter__4d5611e5-241a-462a-8d15-5122611a9569.jsonl", "2026-02-12"),
        ], out


def test_every_session_of_a_file_of_several_names_it_in_a_catalog(tmp_path: Path) -> None:
    """Two OpenHands outputs in a catalog: out1 holds instances a-1 and b-2, out2 holds
    c-3 and b-2 again. A file is named by its first instance (a-1, c-3), and `report` and
    `check` print the others too: each names its file for `show`, `steps` and `report`
    (before: `no session found matching suffix 'b-2'`). out2's b-2 is `b-2~2`, a name of its
    own; the suffix `2` names both files, an ambiguity; `@N` still counts files (2)."""

    def instance(name: str) -> dict:
        return {"instance_id": name, "history": [
            {"id": 1, "source": "agent", "action": "read", "args": {"path": "/w/a.py"},
             "tool_call_metadata": {"model_response": {"id": "r1"}}},
            {"id": 2, "source": "environment", "observation": "read", "cause": 1,
             "content": "x"},
        ]}  # fmt: skip

    out1 = write(tmp_path / "out1.jsonl", [instance("a-1"), instance("b-2")])
    out2 = write(tmp_path / "out2.jsonl", [instance("c-3"), instance("b-2")])
    db = tmp_path / "c.duckdb"
    ingest(db, [out1, out2])
    for name, first in (("b-2", "a-1"), ("B-2", "a-1"), ("b-2~2", "c-3"), ("3", "c-3")):
        shown = runner.invoke(app, ["show", "--db", str(db), name])
        assert shown.exit_code == 0, (name, shown.output)
        assert f"\nsession:    {first}\nsessions:   2 in this file" in shown.stdout, name
    steps = runner.invoke(app, ["steps", "--db", str(db), "b-2"])
    assert steps.exit_code == 0, steps.output
    assert steps.stdout.startswith("Session a-1  (2 turns)\n")
    report = runner.invoke(app, ["report", "--db", str(db), "b-2~2"])
    assert report.exit_code == 0, report.output
    assert "\nSessions: 2  (" in report.stdout
    ambiguous = runner.invoke(app, ["show", "--db", str(db), "2"])
    assert ambiguous.exit_code == 2
    assert ambiguous.output.startswith("error[E-TRC-002]: ambiguous: '2' matches 2 sessions")
    assert ambiguous.output.endswith("\n  b-2\n  b-2~2\n")
    # two sessions of one file: diff compares files whole, and says so (not `=` on every row)
    same = runner.invoke(app, ["diff", "--db", str(db), "a-1", "b-2"])
    assert same.exit_code == 2 and same.stderr == (
        f"error[E-TRC-002]: a-1 and b-2 are sessions of one file, {out1}, which diff "
        "compares whole: name sessions of two files\n"
    )
    assert runner.invoke(app, ["diff", "--db", str(db), "b-2", "b-2~2"]).exit_code == 0
    beyond = runner.invoke(app, ["show", "--db", str(db), "@3"])
    assert beyond.output == f"error[E-TRC-002]: @3 is out of range — catalog {db} has 2 sessions\n"


def test_the_two_sessions_of_a_file_are_named_in_a_catalog_as_their_ids_say(
    tmp_path: Path, monkeypatch
) -> None:
    """An OpenHands output of two instances, `org/app-1099` then `org/lib-2099` (ids with a
    `/`, as a repository's name gives them). A catalog names the file by its first
    instance, and the second names it too, each with its `/` written `:` as every catalog
    name is (`org:lib-2099`); the id as `report` prints it (`org/lib-2099`) names it as
    well, as no path of that name is there. The suffix `099`, which both names end with,
    names the one file, no ambiguity; `@N` counts the file once."""
    monkeypatch.chdir(tmp_path)
    out = write(tmp_path / "o" / "output.jsonl", [
        {"instance_id": "org/app-1099", "history": read_twice("/w/a.py")},
        {"instance_id": "org/lib-2099", "history": read_twice("/w/b.py")},
    ])  # fmt: skip
    db = tmp_path / "c.duckdb"
    ingest(db, [out])
    names = catalog_sessions(db)
    assert names.paths == {"org:app-1099": str(out)}
    assert names.also == {"org:lib-2099": str(out)}
    for name in ("org/app-1099", "org:app-1099", "org/lib-2099", "org:lib-2099", "099"):
        shown = runner.invoke(app, ["show", "--db", str(db), name, "-f", "json"])
        assert shown.exit_code == 0, (name, shown.output)
        assert json.loads(shown.stdout)["metrics"]["trace_path"] == str(out), name
    report = runner.invoke(app, ["report", "--db", str(db), "org/lib-2099"])
    assert report.exit_code == 0, report.output
    assert "\nSessions: 2  (" in report.stdout
    beyond = runner.invoke(app, ["show", "--db", str(db), "@2"])
    assert beyond.output == f"error[E-TRC-002]: @2 is out of range — catalog {db} has 1 session\n"


def test_a_murmur_trace_is_one_session_whatever_ids_its_lines_name(tmp_path: Path) -> None:
    """Two Murmur traces written one after the other into one file (start A, end A: 5
    turns, failed; start B, end B: 3 turns, ok), and a call whose line names a third id:
    `mur trace` reads one session, its totals from the last session_end (B's), its turns
    listed together. Only another agent's file of several sessions adds them up."""

    def line(event: str, session: str, **fields: object) -> dict:
        return {"event_type": event, "session_id": session, "timestamp": 1, **fields}

    def end(session: str, turns: int, status: str, ms: int) -> dict:
        return line("session_end", session, total_turns=turns, total_input_tokens=10,
                    total_output_tokens=1, total_tool_calls=1, total_shell_calls=0,
                    duration_ms=ms, exit_status=status)  # fmt: skip

    def call(session: str, turn: int) -> dict:
        return line("tool_call", session, turn=turn, tool_name="read", duration_ms=4,
                    status="ok", input={"path": "a.txt"})  # fmt: skip

    a, b = "ses_" + "a" * 32, "ses_" + "b" * 32
    trace = write(tmp_path / "ses_x" / "trace.jsonl", [
        line("session_start", a, model="m"), call(a, 0), end(a, 5, "failed", 5000),
        line("session_start", b, model="m"), call("ses_" + "c" * 32, 0), end(b, 3, "ok", 3000),
    ])  # fmt: skip
    shown = runner.invoke(app, ["show", str(trace)])
    assert shown.exit_code == 0, shown.output
    text = shown.stdout
    assert "sessions:" not in text and "  session " not in text
    assert "\nstatus:     ok\nduration:   3.0s\n" in text
    assert "\ncount:      3  (max: —)\n" in text
    # both calls are at turn 0: one line, as before
    assert [x for x in text.splitlines() if x.startswith("  turn")] == [
        '  turn 0  read 4ms ✓  {"path":"a.txt"}  read 4ms ✓  {"path":"a.txt"}'
    ]


def test_a_murmur_trace_whose_calls_name_several_ids_is_one_block(tmp_path: Path) -> None:
    """A Murmur trace: session_start A, then three reads of x.rs whose lines name A, B, A.
    The second and third re-read the one before (one history a file, as `mur trace`
    keeps it): two findings, one session, so one block, headed by the first finding's id
    (B's), `in 1 of 1 session`, for files and a catalog alike."""
    a, b = "ses_" + "a" * 32, "ses_" + "b" * 32

    def read(session: str, turn: int) -> dict:
        return {"event_type": "tool_call", "session_id": session, "timestamp": 1,
                "turn": turn, "tool_name": "read_file", "input": {"path": "x.rs"},
                "state_effect": "read", "status": "ok"}  # fmt: skip

    start = {"event_type": "session_start", "session_id": a, "timestamp": 1}
    trace = write(tmp_path / "w" / a / "trace.jsonl", [start, read(a, 0), read(b, 1), read(a, 2)])
    expected = (
        f"{b}  {trace}\ncount:      2\n"
        "  turn 1  read_file  x.rs  (re-reads turn 0)\n"
        "  turn 2  read_file  x.rs  (re-reads turn 1)\n\n"
        "total:      2 redundant calls in 1 of 1 session\n"
    )
    assert runner.invoke(app, ["redundant", str(trace)]).stdout == expected
    db = tmp_path / "c.duckdb"
    ingest(db, [trace])
    assert runner.invoke(app, ["redundant", "--db", str(db)]).stdout == expected
    context = runner.invoke(app, ["redundant", "--db", str(db), "--policy", "context"]).stdout
    assert context.splitlines()[-2] == "total:      2 redundant calls in 1 of 1 session"


def test_steps_match_a_turn_within_its_session(tmp_path: Path) -> None:
    """Two OpenHands instances in one output, each one response (its turn 0) and one read:
    i2 reads /w/i2.py, then i1 reads /w/i1.py. Each step shows its own instance's call; by
    turn number across the file, both showed i2's."""
    lines = [
        {"instance_id": i, "history": [
            {"id": 1, "source": "agent", "action": "read", "args": {"path": f"/w/{i}.py"},
             "tool_call_metadata": {"model_response": {"id": "r1"}}},
            {"id": 2, "source": "environment", "observation": "read", "cause": 1, "content": "x"},
        ]}
        for i in ("i2", "i1")
    ]  # fmt: skip
    steps = runner.invoke(app, ["steps", "-v", str(write(tmp_path / "output.jsonl", lines))])
    assert steps.exit_code == 0, steps.output
    assert [line.split()[-1] for line in steps.stdout.splitlines() if line.startswith("  0")] == [
        '"/w/i2.py"',
        '"/w/i1.py"',
    ]


# ── OpenTelemetry GenAI spans ────────────────────────────────────────────────

COPILOT = REAL / "otel-genai" / "dbroeglin_github-copilot-lab__fix_bug_gpt55__copilot-otel.jsonl"
OTEL_SESSION = "a13a719a-bf04-443c-9b54-67f7d32650e1"


def test_the_copilot_cli_spans_become_murmur_events() -> None:
    """Read from the file: 13 spans (7 execute_tool, 5 chat, 1 invoke_agent) and 20 metric
    lines, written as the spans ended; here in the order they started. Durations are end -
    start in ms; status code 0 everywhere; no arguments, no results (capture off)."""
    trace = mur_trace.load([COPILOT])
    calls = trace.sql(
        "SELECT line, call_id, turn, tool_name, status, duration_ms, input, output_bytes, "
        "resource FROM tool_calls ORDER BY line"
    ).fetchall()
    assert calls == [
        (3, "call_MvYD46DJcIJZD7AH13iKHOgZ", 0, "view", "ok", 23, None, None, None),  # .797457132 - .774243401
        (4, "call_qB8ybFCi9MFEq1baUVIT5ngF", 0, "glob", "ok", 29, None, None, None),  # started before the other glob
        (5, "call_mi0e0uoyKWSc2DxQtm91WrLX", 0, "glob", "ok", 26, None, None, None),
        (7, "custom_call_v1xRwNItBR5qXR0mbCdqlijM", 1, "apply_patch", "ok", 11, None, None, None),
        (9, "call_eg4b88qHGl1BdhVvpFPpuEOq", 2, "glob", "ok", 40, None, None, None),
        (10, "call_2O5czJBlxypVltgS2ytQ6T2k", 2, "bash", "ok", 67, None, None, None),  # 74.001854910 - 73.934668879
        (12, "call_uVyj7OrCicp1iFc9dJPmqiS9", 3, "bash", "ok", 41, None, None, None),
    ]  # fmt: skip
    inferences = trace.sql(
        "SELECT line, turn, input_tokens, output_tokens, decision, tool_name FROM events "
        "WHERE event_type = 'inference' ORDER BY line"
    ).fetchall()
    assert inferences == [
        (2, 0, 17117, 119, "tool_call", "view"),
        (6, 1, 17311, 83, "tool_call", "apply_patch"),
        (8, 2, 17416, 117, "tool_call", "glob"),
        (11, 3, 17592, 123, "tool_call", "bash"),
        (13, 4, 17743, 52, "end_turn", None),
    ]
    assert trace.sql(
        "SELECT session_id, capsule_name, capsule_version, model FROM sessions"
    ).fetchall() == [(OTEL_SESSION, "copilot-cli", "1.0.65", "gpt-5.5")]
    end = trace.sql(
        "SELECT line, total_turns, total_input_tokens, total_output_tokens, total_tool_calls, "
        "duration_ms FROM events WHERE event_type = 'session_end'"
    ).fetchall()
    # the totals the invoke_agent span gives (87,179 and 494), its 16.594 s
    assert end == [(14, 5, 87179, 494, 7, 16594)]
    # no arguments: no resource, no shell event, nothing guessed
    assert trace.sql("SELECT count(*) FROM events WHERE event_type = 'shell'").fetchall() == [(0,)]
    for policy in ("reference", "context"):
        assert trace.redundant_calls(policy).count("*").fetchall() == [(0,)]
    assert trace.loops().count("*").fetchall() == [(0,)]


def span(
    n: int,
    name: str,
    attributes: dict,
    status: int = 0,
    end: int | None = None,
    session: str = "sess-1",
    trace: str = "t1",
) -> dict:
    """A span as GitHub Copilot CLI's file exporter writes it, starting at second n."""
    return {
        "type": "span", "traceId": trace, "spanId": f"s{n:03d}", "parentSpanId": "root",
        "name": name, "kind": 0, "startTime": [1000 + n, 0],
        "endTime": [1000 + (end if end is not None else n), 500_000_000],
        "attributes": attributes, "status": {"code": status}, "events": [],
        "resource": {"attributes": {"service.name": "copilot", "copilot.session_id": session,
                                     "copilot.agent": "copilot-cli", "service.version": "1.0.0"}},
    }  # fmt: skip


def chat(n: int, inp: int, out: int, **kw) -> dict:
    return span(n, "chat m", {"gen_ai.operation.name": "chat", "gen_ai.request.model": "m",
                              "gen_ai.usage.input_tokens": inp, "gen_ai.usage.output_tokens": out}, **kw)  # fmt: skip


def tool(n: int, call: str, name: str, args: object, result: str, status: int = 0, **kw) -> dict:
    attributes = {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": name,
                  "gen_ai.tool.call.id": call,
                  "gen_ai.tool.call.arguments": args if isinstance(args, str) else json.dumps(args),
                  "gen_ai.tool.call.result": result}  # fmt: skip
    if status == 2:
        attributes["error.type"] = "tool_error"
    return span(n, f"execute_tool {name}", attributes, status=status, **kw)


def captured_session() -> list[dict]:
    """Our own spans, written for these tests (content capture on): a file viewed twice
    with nothing between, edited, viewed again; a failed view; a shell command; a patch."""
    return [
        tool(2, "c1", "view", {"path": "/app/a.py"}, "1. x = 1\n"),  # written when it ended
        chat(1, 100, 10, end=2),
        chat(3, 120, 10),
        tool(4, "c2", "view", {"path": "/app/a.py"}, "1. x = 1\n"),  # the same view: redundant
        chat(5, 130, 10),
        tool(6, "c3", "edit", {"path": "/app/a.py", "old_str": "1", "new_str": "2"}, "ok"),
        chat(7, 140, 10),
        tool(8, "c4", "view", {"path": "/app/a.py"}, "1. x = 2\n"),  # after the edit: needed
        tool(8, "c5", "view", {"path": "/app/b.py"}, "no such file", status=2),
        chat(9, 150, 10),
        tool(10, "c6", "bash", {"command": "cat /app/c.py", "mode": "sync"},
             "c\n<shellId: 0 completed with exit code 0>"),
        tool(11, "c7", "apply_patch",
             "*** Begin Patch\n*** Update File: /app/c.py\n@@\n-c\n+d\n*** End Patch\n", "Modified 1 file(s)"),
        {"type": "metric", "name": "gen_ai.client.token.usage", "dataPoints": []},
    ]  # fmt: skip


def test_captured_arguments_give_resources_and_findings(tmp_path: Path) -> None:
    path = write(tmp_path / "copilot-otel.jsonl", captured_session())
    assert formats.detect(path) == "otel"
    trace = mur_trace.load([path], policy="context")
    calls = trace.sql(
        "SELECT line, call_id, turn, tool_name, status, state_effect, resource, output_bytes, "
        "duration_ms, changed_paths FROM tool_calls ORDER BY line"
    ).fetchall()
    assert calls == [
        (3, "c1", 0, "view", "ok", "read", "/app/a.py", 9, 500, None),
        (5, "c2", 1, "view", "ok", "read", "/app/a.py", 9, 500, None),
        (7, "c3", 2, "edit", "ok", "mutate", "/app/a.py", 2, 500, None),
        (9, "c4", 3, "view", "ok", "read", "/app/a.py", 9, 500, None),
        (10, "c5", 3, "view", "error", None, "/app/b.py", 12, 500, None),
        (12, "c6", 4, "bash", "ok", None, None, 41, 500, None),
        (13, "c7", 4, "apply_patch", "ok", None, None, 18, 500, ["/app/c.py"]),
    ]  # fmt: skip
    assert trace.sql(
        "SELECT line, \"binary\", command, exit_code FROM events WHERE event_type = 'shell'"
    ).fetchall() == [(12, "bash", "cat /app/c.py", 0)]
    patch = "*** Begin Patch\n*** Update File: /app/c.py\n@@\n-c\n+d\n*** End Patch\n"
    [(patch_input,)] = trace.sql("SELECT input FROM tool_calls WHERE call_id = 'c7'").fetchall()
    assert json.loads(patch_input) == {"input": patch}  # text that is not a JSON object
    for policy in ("reference", "context"):
        found = trace.redundant_calls(policy).select("line, call_id, prior_line").fetchall()
        assert found == [(5, "c2", 3)], policy


def test_an_edit_between_two_views_leaves_nothing_to_find(tmp_path: Path) -> None:
    # without c1: c2 is the first view, c3 edits the file, c4 views it after the edit
    spans = [s for s in captured_session() if s.get("attributes", {}).get("gen_ai.tool.call.id") != "c1"]  # fmt: skip
    trace = mur_trace.load([write(tmp_path / "spans.jsonl", spans)], policy="context")
    assert trace.redundant_calls().count("*").fetchall() == [(0,)]
    assert trace.redundant_calls("reference").count("*").fetchall() == [(0,)]


def otlp_line(spans: list[dict]) -> dict:
    """The same spans as OTLP JSON (a collector's file exporter): attributes as key/value
    lists, 64-bit integers as strings, times in nanoseconds, a status of no code as `{}`
    (the collector's own JSON marshaller: `pdata/ptrace/json_test.go`)."""

    def value(v: object) -> dict:
        if isinstance(v, bool):
            return {"boolValue": v}
        if isinstance(v, int):
            return {"intValue": str(v)}
        return {"stringValue": v}

    def kv(attributes: dict) -> list[dict]:
        return [{"key": k, "value": value(v)} for k, v in attributes.items()]

    def nanos(t: list[int]) -> str:
        return str(t[0] * 1_000_000_000 + t[1])

    def status(code: int) -> dict:  # proto3's JSON leaves a default out: UNSET is `{}`
        return {"code": code} if code else {}

    return {"resourceSpans": [{
        "resource": {"attributes": kv(spans[0]["resource"]["attributes"])},
        "scopeSpans": [{"scope": {"name": "copilot"}, "spans": [
            {"traceId": s["traceId"], "spanId": s["spanId"], "name": s["name"], "kind": 1,
             "startTimeUnixNano": nanos(s["startTime"]), "endTimeUnixNano": nanos(s["endTime"]),
             "attributes": kv(s["attributes"]), "status": status(s["status"]["code"])}
            for s in spans if s.get("type") == "span"
        ]}],
    }]}  # fmt: skip


def test_otlp_json_reads_as_the_file_exporter_does(tmp_path: Path) -> None:
    spans = captured_session()
    flat = mur_trace.load([write(tmp_path / "flat.jsonl", spans)], policy="context")
    otlp_path = write(tmp_path / "otlp.jsonl", [otlp_line(spans[:5]), otlp_line(spans[5:])])
    assert formats.detect(otlp_path) == "otel"
    otlp = mur_trace.load([otlp_path], policy="context")
    query = (
        "SELECT line, event_type, turn, event_id, tool_name, input, status, output_bytes, "
        "duration_ms, input_tokens FROM events ORDER BY line, event_type"
    )
    assert otlp.sql(query).fetchall() == flat.sql(query).fetchall()
    assert otlp.redundant_calls().select("call_id").fetchall() == [("c2",)]


def test_sessions_and_traces_of_one_span_file(tmp_path: Path) -> None:
    # two Copilot sessions, and a trace that names none: three sessions, each a context
    lines = [
        tool(1, "a1", "view", {"path": "/app/a.py"}, "x", session="one"),
        tool(2, "b1", "view", {"path": "/app/a.py"}, "x", session="two"),
        tool(3, "a2", "view", {"path": "/app/a.py"}, "x", session="one"),
    ]
    anonymous = tool(4, "x1", "view", {"path": "/app/a.py"}, "x", trace="t9")
    del anonymous["resource"]
    http = span(5, "GET /", {"http.request.method": "GET"}, session="", trace="t10")
    del http["resource"]  # a trace of no GenAI span: no session
    spans = [*lines, anonymous, http]
    trace = mur_trace.load([write(tmp_path / "s.jsonl", spans)], policy="context")
    assert trace.sql(
        "SELECT session_id, line, event_type FROM events ORDER BY line"
    ).fetchall() == [
        ("one", 1, "session_start"), ("one", 2, "tool_call"), ("one", 3, "tool_call"),
        ("one", 4, "session_end"),
        ("two", 5, "session_start"), ("two", 6, "tool_call"), ("two", 7, "session_end"),
        ("t9", 8, "session_start"), ("t9", 9, "tool_call"), ("t9", 10, "session_end"),
    ]  # fmt: skip
    # a2 repeats a1 in session one; session two's view and t9's are in other contexts
    assert trace.redundant_calls().select("call_id").fetchall() == [("a2",)]


def test_a_bad_span_file_is_one_coded_line(tmp_path: Path) -> None:
    good = captured_session()
    no_start = dict(good[2])
    del no_start["startTime"]
    cases = {
        "no-start.jsonl": (
            "".join(json.dumps(x) + "\n" for x in [good[0], good[1], no_start]),
            "no-start.jsonl:3: span without a startTime",
        ),
        "backwards.jsonl": (
            json.dumps(good[0]) + "\n" + json.dumps({**good[1], "endTime": [900, 0]}) + "\n",
            "backwards.jsonl:2: span ends before it starts",
        ),
        "not-json.jsonl": (json.dumps(good[0]) + "\n{not json\n" + json.dumps(good[1]) + "\n",
                           "not-json.jsonl:2: not valid JSON"),
        "otlp-no-id.jsonl": (
            json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": [{"spanId": "a", "name": "x",
                "startTimeUnixNano": "1", "endTimeUnixNano": "2"}]}]}]}) + "\n",
            "otlp-no-id.jsonl:1: span without a traceId",
        ),
    }  # fmt: skip
    for name, (text, message) in cases.items():
        path = tmp_path / name
        path.write_text(text)
        result = runner.invoke(app, ["redundant", str(path), "--format-in", "otel"])
        assert result.exit_code == 2, result.output
        assert result.stderr.splitlines() == [f"error[E-TRC-001]: {path.parent}/{message}"]


@pytest.mark.parametrize("fmt", ["claude_code", "codex", "openhands", "otel"])
@pytest.mark.parametrize("value", ["[1, 2]", "42", "null", '"text"'])
def test_a_line_of_json_that_is_no_object_is_one_coded_line(
    tmp_path: Path, fmt: str, value: str
) -> None:
    """Each reader parsed such a line as an object of no field and passed over it: exit 0,
    no word. It is a bad line, as in a Murmur trace, even as the last piece of a file with
    no newline (valid JSON: not a torn write)."""
    first, *rest = {
        "claude_code": cc_session(),
        "codex": [cx(0, "session_meta", id="s1", cwd="/repo"),
                  cx_call(1, "c1", "shell", {"command": ["cat", "a.py"]}), cx_out(2, "c1", "x")],
        "openhands": [{"instance_id": "i1", "history": []}, {"instance_id": "i2", "history": []}],
        "otel": captured_session(),
    }[fmt]  # fmt: skip
    lines = [json.dumps(first), value, *map(json.dumps, rest)]
    for name, text in [("middle.jsonl", "\n".join(lines) + "\n"), ("last.jsonl",
                       "\n".join([*lines[:1], *lines[2:], value]))]:  # fmt: skip
        path = tmp_path / name
        path.write_text(text)
        number = 2 if name == "middle.jsonl" else len(lines)
        for command in (["redundant"], ["show"], ["redundant", "--policy", "context"]):
            result = runner.invoke(app, [*command, str(path)])
            assert result.exit_code == 2, (name, command, result.output)
            assert result.stderr.splitlines() == [
                f"error[E-TRC-001]: {path}:{number}: not a JSON object"
            ], (name, command)


# ── edges a mutation audit found no test on ───────────────────────────────────────


def test_codex_a_command_killed_by_a_signal_failed(tmp_path: Path) -> None:
    """`Exit code: -9` is a failure: its `cat` saw nothing, and the next is no repeat."""

    def run(text: str, code: int) -> str:
        return f"Exit code: {code}\nWall time: 0.1 seconds\nOutput:\n{text}"

    lines = [
        cx(0, "session_meta", id="c2", cwd="/w", cli_version="0.9"),
        cx(0, "turn_context", cwd="/w", model="gpt-x-codex"),
        cx_call(1, "s1", "shell_command", {"command": "cat a.txt", "workdir": "/w"}),
        cx_out(2, "s1", run("", -9)),
        cx_call(3, "s2", "shell_command", {"command": "cat a.txt", "workdir": "/w"}),
        cx_out(4, "s2", run("hello\n", 0)),
    ]
    trace = mur_trace.load([write(tmp_path / "rollout-y.jsonl", lines)], policy="context")
    statuses = trace.sql("SELECT call_id, status FROM tool_calls ORDER BY line").fetchall()
    assert statuses == [("s1", "error"), ("s2", "ok")]
    assert trace.redundant_calls("context").count("*").fetchall() == [(0,)]


def test_codex_a_patch_that_moves_a_file_changes_where_it_moves_to(tmp_path: Path) -> None:
    """`*** Move to: a.txt` in the patch itself (no end event): a.txt changed."""
    patch = (
        "*** Begin Patch\n*** Update File: b.txt\n*** Move to: a.txt\n@@\n-hello\n+howdy\n"
        "*** End Patch\n"
    )
    lines = [
        cx(0, "session_meta", id="c1", cwd="/w", cli_version="0.1"),
        cx(0, "turn_context", cwd="/w", model="gpt-x"),
        cx_call(1, "e1", "exec_command", {"cmd": "cat a.txt"}),
        cx_out(2, "e1", "Process exited with code 0\nOutput:\nhello\n"),
        cx_call(3, "p1", "apply_patch", {"input": patch}),
        cx_out(4, "p1", "Success. Updated the following files:\nM a.txt\n"),
        cx_call(5, "e2", "exec_command", {"cmd": "cat a.txt"}),
        cx_out(6, "e2", "Process exited with code 0\nOutput:\nhowdy\n"),
    ]
    trace = mur_trace.load([write(tmp_path / "rollout-x.jsonl", lines)], policy="context")
    moved = trace.sql("SELECT changed_paths FROM tool_calls WHERE call_id = 'p1'")
    assert moved.fetchall() == [(["b.txt", "a.txt"],)]
    assert trace.redundant_calls("context").count("*").fetchall() == [(0,)]


def test_claude_code_a_failed_command_that_names_no_exit_code_failed(tmp_path: Path) -> None:
    """A Bash result marked an error whose text says no `Exit code N`: exit 1, not 0."""
    denied = "cat: a.py: Permission denied"
    lines = [
        {"type": "user", "sessionId": "s1", "version": "2.0.0", "cwd": "/repo",
         "timestamp": TS.format(0), "message": {"role": "user", "content": "fix it"}},
        cc_use(1, "m1", "t1", "Bash", command="cat a.py"),
        cc_result(2, "t1", denied, error=True, result={"stdout": "", "stderr": denied}),
        cc_use(3, "m2", "t2", "Bash", command="cat a.py"),
        cc_result(4, "t2", "x" * 40, result={"stdout": "x" * 40, "stderr": ""}),
    ]  # fmt: skip
    trace = mur_trace.load([write(tmp_path / "s.jsonl", lines)], policy="context")
    codes = "SELECT line, exit_code FROM events WHERE event_type = 'shell' ORDER BY line"
    assert trace.sql(codes).fetchall() == [(2, 1), (4, 0)]
    assert trace.redundant_calls("context").count("*").fetchall() == [(0,)]


def test_claude_code_input_tokens_hold_what_was_written_to_the_cache(tmp_path: Path) -> None:
    use = cc_use(1, "m1", "t1", "Read", file_path="/repo/a.py")
    use["message"]["usage"]["cache_creation_input_tokens"] = 500
    lines = [
        {"type": "user", "sessionId": "s1", "version": "2.0.0", "cwd": "/repo",
         "timestamp": TS.format(0), "message": {"role": "user", "content": "fix it"}},
        use,
        cc_result(2, "t1", "a", result=whole("/repo/a.py", 1)),
    ]  # fmt: skip
    trace = mur_trace.load([write(tmp_path / "s.jsonl", lines)])
    inputs = "SELECT input_tokens FROM events WHERE event_type = 'inference'"
    written = use["message"]["usage"]
    assert trace.sql(inputs).fetchall() == [(written["input_tokens"] + 500,)]


def test_claude_code_a_range_ending_where_an_earlier_one_ends_is_held(tmp_path: Path) -> None:
    def part(start: int, count: int) -> dict:
        return {"type": "text",
                "file": {"filePath": "/repo/a.py", "startLine": start, "numLines": count,
                         "totalLines": 300}}  # fmt: skip

    lines = [
        {"type": "user", "sessionId": "s1", "version": "2.0.0", "cwd": "/repo",
         "timestamp": TS.format(0), "message": {"role": "user", "content": "fix it"}},
        cc_use(1, "m1", "t1", "Read", file_path="/repo/a.py", offset=1, limit=100),
        cc_result(2, "t1", "a" * 400, result=part(1, 100)),  # lines 1-100
        cc_use(3, "m2", "t2", "Read", file_path="/repo/a.py", offset=50, limit=51),
        cc_result(4, "t2", "a" * 200, result=part(50, 51)),  # lines 50-100
    ]  # fmt: skip
    trace = mur_trace.load([write(tmp_path / "s.jsonl", lines)], policy="context")
    found = trace.redundant_calls("context").select("line, prior_line, rule").fetchall()
    assert found == [(4, 2, "read_after_read")]


def test_claude_code_an_inline_subagent_resends_nothing_of_the_main_context(
    tmp_path: Path,
) -> None:
    """The subagent's turns after a redundant read of the main context are no turns that
    re-send it (its lines are another context)."""

    def side(line: dict) -> dict:
        return {**line, "isSidechain": True}

    lines = [
        {"type": "user", "sessionId": "s1", "version": "2.0.0", "cwd": "/repo",
         "timestamp": TS.format(0), "message": {"role": "user", "content": "fix it"}},
        cc_use(1, "m1", "t1", "Read", file_path="/repo/a.py"),
        cc_result(2, "t1", "a" * 400, result=whole("/repo/a.py", 10)),
        cc_use(3, "m2", "t2", "Read", file_path="/repo/a.py"),
        cc_result(4, "t2", "a" * 400, result=whole("/repo/a.py", 10)),
        side(cc_use(5, "m3", "s1", "Grep", pattern="x", path="/repo")),
        side(cc_result(6, "s1", "none")),
        side(cc_use(7, "m4", "s2", "Grep", pattern="y", path="/repo")),
        side(cc_result(8, "s2", "none")),
    ]  # fmt: skip
    trace = mur_trace.load([write(tmp_path / "s.jsonl", lines)], policy="context")
    found = trace.redundant_calls("context").select("line, context_turns, context_tokens")
    assert found.fetchall() == [(4, 0, 0)]


def test_openhands_a_view_to_the_end_of_the_file_holds_a_range_of_it(tmp_path: Path) -> None:
    """`view_range: [1, -1]` is lines 1 to the end: a later view of lines 10-20 is held."""

    def read(n: int, rng: list[int], response: str) -> dict:
        return {"id": n, "source": "agent", "action": "read",
                "args": {"path": "/w/a.py", "view_range": rng},
                "tool_call_metadata": {"model_response": {"id": response}}}  # fmt: skip

    def seen(n: int) -> dict:
        return {"id": n, "source": "environment", "observation": "read", "cause": n - 1,
                "content": "x"}  # fmt: skip

    history = [read(1, [1, -1], "r1"), seen(2), read(3, [10, 20], "r2"), seen(4)]
    path = write(tmp_path / "o" / "output.jsonl", [{"instance_id": "i1", "history": history}])
    trace = mur_trace.load([path], policy="context")
    ranges = "SELECT first_line, last_line FROM tool_calls ORDER BY line"
    assert trace.sql(ranges).fetchall() == [(1, None), (10, 20)]
    found = trace.redundant_calls("context").select("turn, prior_turn, rule").fetchall()
    assert found == [(1, 0, "read_after_read")]


def test_an_older_export_of_a_murmur_trace_is_one_session_whatever_its_lines_say(
    tmp_path: Path,
) -> None:
    """Events exported before `file_session` existed are split by their lines' session ids
    only in a file of several sessions (an OpenHands output): a Murmur trace whose second
    read names another id is one session, its second read a repeat, loaded either way."""
    sid, other = "ses_01a21715468070018000000000001eef", "ses_01a21715468070018000000000002222"
    read = {"event_type": "tool_call", "tool_name": "editor", "input": {"path": "a.rs"},
            "state_effect": "read", "status": "ok"}  # fmt: skip
    lines = [
        {"event_type": "session_start", "session_id": sid},
        {**read, "session_id": sid, "turn": 0},
        {**read, "session_id": other, "turn": 1},
    ]
    trace = mur_trace.load([write(tmp_path / sid / "trace.jsonl", lines)])
    assert trace.redundant_calls().select("line, prior_line").fetchall() == [(3, 2)]
    older = trace.sql("SELECT * EXCLUDE (file_session) FROM events").to_arrow_table()
    con = connect()
    load_events(con, older)
    found = mur_trace.Trace(con, []).redundant_calls().select("line, prior_line").fetchall()
    assert found == [(3, 2)]


def test_claude_code_a_log_that_starts_with_a_call_holds_its_read(tmp_path: Path) -> None:
    """No prompt line before the first call: the session's start shares its line, and the
    read was emptied by it (never the prior of the same read after it)."""
    lines = [
        cc_use(1, "m1", "t1", "Read", file_path="/repo/a.py"),
        cc_result(2, "t1", "a" * 400, result=whole("/repo/a.py", 10)),
        cc_use(3, "m2", "t2", "Read", file_path="/repo/a.py"),
        cc_result(4, "t2", "a" * 400, result=whole("/repo/a.py", 10)),
    ]
    trace = mur_trace.load([write(tmp_path / "s.jsonl", lines)], policy="context")
    found = trace.redundant_calls("context").select("line, prior_line").fetchall()
    assert found == [(3, 1)]
