# ruff: noqa: E501 (hand-written log lines read best one per line)
"""Other agents' logs: format recognition, discovery of their usual places, and what each
reader makes of the lines that matter (small hand-written logs in each format's shape)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

import mur_trace
from mur_trace import formats
from mur_trace.catalog import ingest
from mur_trace.cli import app
from mur_trace.errors import MurTraceError

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
    kinds = [
        formats.detect(p) for p in (cc, codex, murmur, long, garbage, tmp_path / "missing", named)
    ]
    assert kinds == ["claude_code", "codex", "murmur", "openhands", "murmur", "murmur", "murmur"]  # fmt: skip
    assert formats.reader("claude-code") == "claude_code"


def test_an_unknown_format_name_is_one_line_e_trc_001(tmp_path: Path) -> None:
    path = write(tmp_path / "s.jsonl", cc_session())
    with pytest.raises(MurTraceError) as err:
        mur_trace.load([path], format_in="aider")
    assert err.value.code == "E-TRC-001"
    result = runner.invoke(app, ["redundant", str(path), "--format-in", "aider"])
    assert result.exit_code == 2
    assert result.stderr.strip().splitlines() == [
        "error[E-TRC-001]: unknown format 'aider'; known formats: murmur, claude-code, codex, openhands"
    ]


def test_a_log_of_another_format_than_format_in_says_so(tmp_path: Path) -> None:
    cc = write(tmp_path / "s.jsonl", cc_session())
    murmur = write(tmp_path / "m.jsonl", [{"event_type": "session_start"}])
    for path, forced, found in ((murmur, "codex", "murmur"), (cc, "murmur", "claude-code"),
                                (cc, "openhands", "claude-code")):  # fmt: skip
        message = f"{path}: a {found} log, not {forced} (--format-in {forced})"
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
    garbage = tmp_path / "g.jsonl"
    garbage.write_text("not json\n")
    result = runner.invoke(app, ["redundant", str(garbage), "--format-in", "codex"])
    assert "a murmur log" not in result.output


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
        "SELECT event_type, line, tokens_before FROM events WHERE event_type IN ('session_start', 'compaction', 'session_end') ORDER BY line"
    ).fetchall()
    assert other == [("session_start", 1, None), ("compaction", 16, 900), ("session_end", 21, None)]
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
