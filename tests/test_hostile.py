"""Hostile input and faults: a clear error or the right answer, never a traceback, never a
hang, never a changed trace, never a corrupt catalog."""

from __future__ import annotations

import csv
import functools
import importlib
import io
import json
import os
import random
import re
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import duckdb
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from model import judge, redundant_calls
from typer.testing import CliRunner

import mur_trace
from mur_trace.cli import app
from mur_trace.load import connect, create_macros

runner = CliRunner()
SESSION = "ses_01a21715468070018000000000001eef"
MESSAGE = r"^(error|warning)\[E-(TRC|IO)-00[123]\]: "


def events(*extra: dict) -> list[dict]:
    """A small whole session: two reads of src/a.rs (the second redundant), then `extra`."""
    read = {"event_type": "tool_call", "tool_name": "editor", "status": "ok",
            "input": {"path": "src/a.rs"}, "state_effect": "read", "output_bytes": 10}  # fmt: skip
    return [
        {"event_type": "session_start", "session_id": SESSION, "timestamp": 1},
        {**read, "turn": 0},
        {**read, "turn": 1},
        *extra,
        {"event_type": "session_end", "total_turns": 2, "exit_status": "ok"},
    ]


def text(lines: list[dict]) -> bytes:
    return "".join(json.dumps(e) + "\n" for e in lines).encode()


GOOD = text(events())


def cli(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """The command line as a program; its peak memory (KB) is in `.rss`."""
    wrapper = (
        "import resource, subprocess, sys; "
        "r = subprocess.run(sys.argv[1:]); "
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, file=sys.stderr); "
        "sys.exit(r.returncode)"
    )
    result = subprocess.run(
        [sys.executable, "-c", wrapper, sys.executable, "-m", "mur_trace", *args],
        capture_output=True, text=True, timeout=timeout,
    )  # fmt: skip
    *lines, rss = result.stderr.rstrip("\n").split("\n")
    result.stderr = "".join(line + "\n" for line in lines)
    result.rss = int(rss)  # type: ignore[attr-defined]
    assert "Traceback" not in result.stderr
    return result


def one_error(result, code: str, *fragments: str) -> None:
    """Exit 2 and exactly one line on stderr: the error, with its code and fragments."""
    assert getattr(result, "exit_code", getattr(result, "returncode", None)) == 2
    lines = result.stderr.splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith(f"error[{code}]: "), lines[0]
    for fragment in fragments:
        assert fragment in lines[0], (fragment, lines[0])


def session(tmp_path: Path, data: bytes | None, name: str = SESSION) -> Path:
    """<tmp>/workdir/<name>/trace.jsonl holding `data` (no file when None)."""
    directory = tmp_path / "workdir" / name
    directory.mkdir(parents=True)
    if data is not None:
        (directory / "trace.jsonl").write_bytes(data)
    return directory / "trace.jsonl"


def findings_csv(*args: str) -> list[str]:
    result = runner.invoke(app, ["redundant", "-f", "csv", *args])
    assert result.exit_code == 0, result.output
    return result.stdout.splitlines()[1:]


# ── the bad-input matrix ─────────────────────────────────────────────────────

BAD_LINES = {
    # name: (line, what the error says)
    "nul byte": (b'{"event_type":"tool_call",\x00"turn":1}', "not valid JSON"),
    "turn as a string": (
        b'{"event_type":"tool_call","turn":"3"}',
        '"turn" is not a non-negative integer: "3"',
    ),  # noqa: E501
    "negative turn": (
        b'{"event_type":"tool_call","turn":-1}',
        '"turn" is not a non-negative integer: -1',
    ),  # noqa: E501
    "turn beyond range": (
        b'{"event_type":"tool_call","turn":1e30}',
        '"turn" is not a non-negative integer: 1e30',
    ),  # noqa: E501
    # an integer, past 2^53 (and past 2^63: it read as "not a non-negative integer")
    "turn too big": (
        b'{"event_type":"inference","turn":18446744073709551615}',
        '"turn" is not a count below 2^53: 18446744073709551615',
    ),  # noqa: E501
    "fractional bytes": (
        b'{"event_type":"tool_call","output_bytes":3.5}',
        '"output_bytes" is not a non-negative integer: 3.5',
    ),  # noqa: E501
    "boolean duration": (
        b'{"event_type":"shell","duration_ms":true}',
        '"duration_ms" is not a non-negative integer: true',
    ),  # noqa: E501
    "exit code as text": (
        b'{"event_type":"shell","exit_code":"1"}',
        '"exit_code" is not an integer: "1"',
    ),  # noqa: E501
    "event type a number": (b'{"event_type":7}', '"event_type" is not a string: 7'),
    "tool name a number": (
        b'{"event_type":"tool_call","tool_name":7}',
        '"tool_name" is not a string: 7',
    ),  # noqa: E501
    "status an object": (
        b'{"event_type":"tool_call","status":{"ok":1}}',
        '"status" is not a string: {"ok":1}',
    ),  # noqa: E501
    # `-0` is no integer to `mur trace`'s JSON reader (a float): json_extract writes it `0`
    "turn written -0": (
        b'{"event_type":"tool_call","turn":-0}',
        '"turn" is not a non-negative integer: -0',
    ),
    "exit code written -0": (
        b'{"event_type":"shell","exit_code":-0}',
        '"exit_code" is not an integer: -0',
    ),
    # a number is quoted as written (json_extract writes `1E0` again as `1.0`)...
    "turn written 1E0": (
        b'{"event_type":"tool_call","turn":1E0}',
        '"turn" is not a non-negative integer: 1E0',
    ),
    "bytes written 3.50": (
        b'{"event_type":"tool_call","output_bytes":3.50}',
        '"output_bytes" is not a non-negative integer: 3.50',
    ),
    # ...never as another value of that key, in an object inside the event
    "turn beside an input's turn": (
        b'{"event_type":"tool_call","input":{"turn":7},"turn":2.5}',
        '"turn" is not a non-negative integer: 2.5',
    ),
    # an escaped key is the key it spells, to every JSON reader (and to `mur trace`)
    "escaped key of a count": (
        b'{"event_type":"tool_call","tu\\u0072n":"3"}',
        '"turn" is not a non-negative integer: "3"',
    ),
    "escaped key of a string": (
        b'{"event_type":"tool_call","\\u0074ool_name":7}',
        '"tool_name" is not a string: 7',
    ),
    # the last field of the checked ones, a string (its message is a string's)
    "reopen reason a number": (
        b'{"event_type":"task_reopened","reason":7}',
        '"reason" is not a string: 7',
    ),
    "no event type": (b'{"turn":1}', 'not an event object (no "event_type")'),
    "an array": (b"[1, 2]", 'not an event object (no "event_type")'),
    "garbage text": (b"\x01\x02 hello {]", "not valid JSON"),
}


@pytest.mark.parametrize("name", BAD_LINES)
def test_a_bad_line_is_e_trc_001_naming_file_line_and_why(tmp_path: Path, name: str) -> None:
    line, why = BAD_LINES[name]
    lines = GOOD.split(b"\n")
    trace = session(tmp_path, b"\n".join([*lines[:2], line, *lines[2:]]))
    one_error(runner.invoke(app, ["redundant", str(trace)]), "E-TRC-001", f"{trace}:3: {why}")
    assert judge(trace.read_bytes()).code == "E-TRC-001"  # the model agrees


def test_unknown_event_types_and_the_keys_of_other_types_are_never_fatal(tmp_path: Path) -> None:
    # SPEC section 2: an unknown event type, or a key its event type does not have, is
    # ignored whatever its JSON type (the format grows every release); `mur trace` too
    trace = session(tmp_path, text(events(
        {"event_type": "heartbeat", "turn": "3", "status": 429, "duration_ms": -1},
        {"event_type": "inference", "turn": 2, "decision": "end_turn", "exit_code": "x",
         "max_turns": 2.5, "reason": 7},
        {"event_type": "shell", "turn": 2, "exit_code": 0, "status": {"ok": 1}},
    )))  # fmt: skip
    for policy in ("reference", "context"):
        rows = findings_csv("--policy", policy, str(trace))
        assert [row.split(",")[2] for row in rows] == ["3"]  # the second read, as without them
    assert judge(trace.read_bytes()).code is None  # the model agrees
    # the fields runtimes write on every line are checked on every line: loading reads them
    # (a trace's session id comes from any line that has one)
    for i, line in enumerate([{"event_type": "shell", "session_id": 5},
                              {"event_type": "heartbeat", "session_id": {"x": [1]}},
                              {"event_type": "heartbeat", "timestamp": "soon"}]):  # fmt: skip
        bad = session(tmp_path, text(events(line)), f"ses_{i + 2}")
        field = next(k for k in line if k != "event_type")
        result = runner.invoke(app, ["redundant", str(bad)])
        one_error(result, "E-TRC-001", f'{bad}:4: "{field}" is not')
        assert judge(bad.read_bytes()).code == "E-TRC-001"


def test_white_space_around_a_line_is_not_part_of_it(tmp_path: Path) -> None:
    # `mur trace` trims each line (Rust's str::trim: every Unicode White_Space character),
    # and skips the lines left empty; they keep their numbers
    start, read, again, end = GOOD.decode().splitlines()
    data = "\n".join([
        start, "\f", "\u3000" + read + "\t\u00a0", "\x0b \u2028", again + "\r", end, ""
    ]).encode()  # fmt: skip
    trace = session(tmp_path, data)
    for policy in ("reference", "context"):
        rows = findings_csv("--policy", policy, str(trace))
        columns = [row.split(",") for row in rows]
        assert [(c[2], c[9]) for c in columns] == [("5", "3")]  # line 5 re-reads line 3
    assert judge(data).code is None  # the model agrees
    # what is left must still be JSON: a vertical tab inside a line is not white space there
    inside = session(tmp_path, GOOD + b'{"event_type":\x0b"x"}\n', "ses_2")
    one_error(runner.invoke(app, ["redundant", str(inside)]), "E-TRC-001",
              f"{inside}:5: not valid JSON")  # fmt: skip


def test_the_scan_for_wrong_types_finds_escaped_keys_not_escapes_in_values() -> None:
    # loading runs the exact type check (about ten times the scan's cost a byte) only
    # where the scan finds something: an escape in a key, never one in a value's text
    con = connect()
    create_macros(con)
    found = {
        r'{"event_type":"shell","command":"awk \u0027{print NR\": \"$0}\u0027"}': False,
        r'{"event_type":"tool_call","input":{"content":"{\"name\": \"x\"}"}}': False,
        r'{"event_type":"tool_call","input":{"argv":["a","b\"c"],"n":1}}': False,
        r'{"event_type":"tool_call","input":{"text":"a,\"b\": c"}}': False,
        r'{"event_type":"inference","tu\u0072n":"3"}': True,
        r'{"event_type":"inference" , "\u0074urn" : 1}': True,
        r'{"event_type":"tool_call","input":{"text":"x,","k\"":1}}': True,
        r'{"ev\u0065nt_type":"tool_call"}': True,
        # no backslash, `{"event_type":"` first: only the keys after a comma are looked at
        '{"event_type":"inference" ,\t"turn" :"3"}': True,
        '{"event_type":"shell","command":"a, b","exit_code":-1.5}': True,
        '{"event_type":"tool_call","input":{"turn":"3"},"turn":3}': False,
        '{"event_type":"tool_call","input":{"path":"a","turn":"3"}}': True,
        # another key first: every key is looked at
        '{"turn":"3","event_type":"inference"}': True,
        '{ "event_type":"inference","session_id":7}': True,
    }
    for line, expected in found.items():
        ((got,),) = con.execute("SELECT may_have_wrong_types($line)", {"line": line}).fetchall()
        assert got is expected, line


#: Fields of several event types, checked (of both kinds) or not, and values of every JSON type
SCANNED_FIELDS = [
    "session_id", "timestamp", "turn", "tool_name", "status", "input_bytes", "output_bytes",
    "duration_ms", "exit_code", "command", "tokens_before", "total_turns", "exit_status",
    "input", "state_effect", "note",
]  # fmt: skip
SCANNED_VALUES = [
    '"3"', '"x"', "7", "0", "-1", "-0", "3.5", "1e3", "true", "null", "{}", "[]", '["a",1]',
    "9007199254740991", "9007199254740992", '{"turn":"3"}', '"a, \\"b\\": c"',
]  # fmt: skip


@st.composite
def scanned_line(draw) -> str:
    """A line as the runtime writes it or as a hand writes it: `event_type` first or not, its
    value a string or not, members of random JSON values, white space around commas and
    colons or none, a key written with an escape now and then."""
    kind = draw(st.sampled_from(['"tool_call"', '"shell"', '"session_end"', '"x"', "7"]))
    fields = draw(st.lists(st.sampled_from(SCANNED_FIELDS), min_size=1, max_size=6, unique=True))
    members = [("event_type", kind)] + [(f, draw(st.sampled_from(SCANNED_VALUES))) for f in fields]
    if draw(st.booleans()):
        members = draw(st.permutations(members))
    written = []
    for key, value in members:
        if draw(st.integers(0, 9)) == 0:
            key = f"\\u{ord(key[0]):04x}{key[1:]}"
        colon = draw(st.sampled_from([":", ":", ": ", " :", "\t:\t"]))
        written.append(f'"{key}"{colon}{value}')
    comma = draw(st.sampled_from([",", ",", ", ", ",\t", " ,", "\r,\r"]))
    return "{" + comma.join(written) + "}"


@settings(max_examples=200, deadline=None)
@given(st.lists(scanned_line(), min_size=1, max_size=40))
def test_the_scan_finds_every_line_the_exact_check_rejects(lines: list[str]) -> None:
    # the exact check runs only where the scan finds something: a line it passes over must
    # hold no field of the wrong type (the comma rule of may_have_wrong_types included)
    con = _scan_connection()
    rows = con.execute(
        "SELECT line, wrong_field_index(line) IS NOT NULL, may_have_wrong_types(line) "
        "FROM unnest($lines::VARCHAR[]) AS t(line)",
        {"lines": lines},
    ).fetchall()
    assert [line for line, wrong, found in rows if wrong and not found] == []


def test_the_scan_pattern_names_the_fields_the_exact_check_checks() -> None:
    # the pattern is written out (queries/functions/wrong_type_keys.sql): it must be the one
    # the list of checked fields makes, integers after the first 20, strings among them
    con = _scan_connection()
    ((written, made),) = con.execute(
        "SELECT wrong_type_keys(), "
        """'"(?:' || array_to_string(checked_fields()[21:], '|')"""
        r"""|| ')"\s*:\s*(?:[^0-9\s]|[0-9]+[.eE]|[0-9]{16})|"(?:'"""
        """|| array_to_string(checked_fields()[1:20], '|')"""
        r"""|| ')"\s*:\s*(?:[^"\sn]|n[^u])'"""
    ).fetchall()
    assert written == made
    assert "exit_code|" in written and "|command|" in written


@functools.cache
def _scan_connection() -> duckdb.DuckDBPyConnection:
    """One connection with the macros for every example (hypothesis runs hundreds)."""
    con = connect()
    create_macros(con)
    return con


def test_negative_exit_codes_and_null_fields_are_read(tmp_path: Path) -> None:
    trace = session(tmp_path, text(events(
        {"event_type": "shell", "turn": 1, "exit_code": -1, "duration_ms": None},
    )))  # fmt: skip
    assert len(findings_csv(str(trace))) == 1
    codes = mur_trace.load([trace]).show().exit_codes.fetchall()
    assert [row[1:] for row in codes] == [(-1, 1)]


def test_invalid_utf8_and_binary_garbage_are_e_io_003(tmp_path: Path) -> None:
    utf8 = session(tmp_path, GOOD + b'{"event_type":"x","s":"\xff\xfe"}\n', "ses_1")
    garbage = session(tmp_path, random.Random(7).randbytes(4096), "ses_2")
    for trace in (utf8, garbage):
        one_error(runner.invoke(app, ["redundant", str(trace)]), "E-IO-003", f"{trace}: not valid")


@pytest.mark.parametrize("cut", [1, 2])  # `→` is e2 86 92: cut after its first or second byte
def test_a_last_line_cut_inside_a_character_is_a_torn_line(tmp_path: Path, cut: int) -> None:
    # a session killed while it wrote `→` (a Claude Code Read's result holds one a line):
    # the whole file was `not valid UTF-8 text`; it is the torn last line it is
    arrow = '{"event_type":"tool_call","turn":2,"tool_name":"editor","input":{"path":"→"'
    trace = session(tmp_path, GOOD + arrow.encode()[: len(arrow.encode()) - 3 + cut], f"ses_{cut}")
    warning = f"warning[E-TRC-001]: {trace}:5: last line is incomplete (torn write); the lines"
    for command in (["redundant", "-f", "csv"], ["redundant", "--policy", "context", "-f", "csv"]):
        result = runner.invoke(app, [*command, str(trace)])
        assert result.exit_code == 0, result.output
        assert result.stderr.startswith(warning), result.stderr
        # the four lines before it are read: the second read of src/a.rs is redundant
        (finding,) = list(csv.DictReader(io.StringIO(result.stdout)))
        assert (finding["line"], finding["prior_line"]) == ("3", "2")
    # bytes that start no character, or a cut one followed by a newline, are not UTF-8
    for data in (GOOD + b'{"a":1}\xff', GOOD + arrow.encode()[:-2] + b"\n"):
        bad = session(tmp_path, data, f"ses_bad_{len(data)}")
        one_error(runner.invoke(app, ["redundant", str(bad)]), "E-IO-003", f"{bad}: not valid")


def test_a_session_whose_name_is_not_utf8_is_skipped_with_a_warning(tmp_path: Path) -> None:
    # DuckDB opens only UTF-8 names: that one session is left out, named, the others read
    good = session(tmp_path, text(events()))
    bad = session(tmp_path, text(events()), os.fsdecode(b"ses_\xfe"))
    named = str(bad).replace(os.fsdecode(b"\xfe"), "\\xfe")
    warning = f"warning[E-IO-003]: failed to read {named}: its name is not UTF-8 text (skipped)"
    workdir = str(good.parent.parent)
    for command in (["redundant"], ["redundant", "--policy", "context"], ["report"], ["loops"]):
        result = cli(*command, "--workdir", workdir)
        assert result.returncode == 0, result.stderr
        assert result.stderr.splitlines() == [warning], command
    # its findings are the good session's: 1 redundant read each (events() repeats one)
    assert len(cli("redundant", "-f", "csv", "--workdir", workdir).stdout.splitlines()) == 2
    one_error(cli("show", str(bad)), "E-IO-003", named, "its name is not UTF-8 text")
    missing = str(bad).replace("ses_", "gone_")  # not there at all: not found, as any other
    one_error(cli("show", missing), "E-IO-001", named.replace("ses_", "gone_"), "not found")
    db = tmp_path / "catalog.duckdb"
    ingested = cli("ingest", "--db", str(db), "--workdir", workdir)
    assert ingested.returncode == 0, ingested.stderr
    assert "1 new" in ingested.stdout and "(skipped)" in ingested.stderr


def test_a_name_that_is_not_utf8_does_not_stand_for_the_session_its_text_names(
    tmp_path: Path,
) -> None:
    # b"ses_\xfe" is named `ses_\xfe` in messages, the name another session really has:
    # the one is skipped, the other read, each once
    bad = session(tmp_path, text(events()), os.fsdecode(b"ses_\xfe"))
    good = session(tmp_path, text(events()), "ses_\\xfe")
    assert str(bad).replace(os.fsdecode(b"\xfe"), "\\xfe") == str(good)
    warning = f"warning[E-IO-003]: failed to read {good}: its name is not UTF-8 text (skipped)"
    workdir = str(good.parent.parent)
    commands = [["redundant"], ["redundant", "--policy", "context"], ["loops"], ["report"]]
    for command in [*commands, ["check", "--max-redundant", "5"]]:
        result = cli(*command, "--workdir", workdir)
        assert result.returncode == 0, (command, result.stderr)
        assert result.stderr.splitlines() == [warning], command
    # events() repeats one read: one finding, the readable session's
    found = cli("redundant", "-f", "csv", "--workdir", workdir).stdout.splitlines()
    assert len(found) == 2 and str(good) in found[1]
    assert "1 redundant call in 1 of 1 session\n" in cli("redundant", "--workdir", workdir).stdout


def test_an_empty_file_is_e_trc_001(tmp_path: Path) -> None:
    trace = session(tmp_path, b"")
    result = runner.invoke(app, ["show", str(trace)])
    one_error(result, "E-TRC-001", f"{trace}: trace file is empty")


def test_a_line_nested_100000_deep_is_analysed(tmp_path: Path) -> None:
    deep = b'{"event_type":"tool_call","turn":2,"input":' + b"[" * 100_000 + b"]" * 100_000 + b"}"
    trace = session(tmp_path, GOOD + deep + b"\n")
    result = cli("redundant", "-f", "csv", str(trace))
    assert result.returncode == 0, result.stderr
    assert len(result.stdout.splitlines()) == 2  # header, the one redundant read
    assert result.rss < 1024 * 1024


def test_a_resource_of_100_000_characters_is_drawn_with_a_short_label(tmp_path: Path) -> None:
    # matplotlib lays a long label out in time that grows faster than its length
    pytest.importorskip("matplotlib")
    from mur_trace import plot

    path = "src/" + "d" * 100_000 + "/end.rs"
    read = {"event_type": "tool_call", "tool_name": "editor", "status": "ok",
            "input": {"path": path}, "state_effect": "read", "output_bytes": 10}  # fmt: skip
    trace = mur_trace.load([session(tmp_path, text([{**read, "turn": 0}, {**read, "turn": 1}]))])
    (timeline,) = plot.timeline(trace).axes
    (label,) = [tick.get_text() for tick in timeline.get_yticklabels()]
    assert len(label) == plot.LABEL_CHARS
    # the two calls are lines 1 and 2: the line axis is ticked at whole lines only (before,
    # 1.0, 1.2, 1.4, ...)
    ticks = [t for t in timeline.get_xticks() if 1 <= t <= 2]
    assert ticks and all(float(t).is_integer() for t in timeline.get_xticks()), ticks
    assert label.startswith("src/ddd") and label.endswith("dd/end.rs") and "…" in label
    labels = [t.get_text() for ax in plot.waste(trace).axes for t in ax.get_yticklabels()]
    assert "editor" in labels and max(map(len, labels)) == plot.LABEL_CHARS


def test_two_long_resources_cut_to_the_same_label_are_two_bars(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    from mur_trace import plot

    # the same start and end, different middles: both labels come out the same
    one, two = ("src/" + "d" * 100 + middle + "d" * 100 + "/end.rs" for middle in ("a", "b"))
    calls = [(one, 10), (one, 10), (two, 7), (two, 7)]
    reads = [{"event_type": "tool_call", "turn": turn, "tool_name": "editor", "status": "ok",
              "input": {"path": path}, "state_effect": "read", "output_bytes": size}
             for turn, (path, size) in enumerate(calls)]  # fmt: skip
    trace = mur_trace.load([session(tmp_path, text(reads))])
    _, by_resource = plot.waste(trace).axes
    bars = sorted(bar.get_width() for bar in by_resource.patches)
    assert bars == [7, 10]  # each resource's one re-read, not one bar of both
    labels = [t.get_text() for t in by_resource.get_yticklabels()]
    assert len(labels) == 2 and labels[0] == labels[1]


def test_a_50_mb_line_is_analysed_not_rejected(tmp_path: Path) -> None:
    big = {"event_type": "tool_call", "turn": 2, "tool_name": "editor", "state_effect": "read",
           "input": {"path": "src/a.rs", "content": "x" * 50_000_000}}  # fmt: skip
    trace = session(tmp_path, text(events(big)))
    result = cli("redundant", "-f", "csv", str(trace))
    assert result.returncode == 0, result.stderr
    rows = result.stdout.splitlines()[1:]
    assert [r.split(",")[2] for r in rows] == ["3", "4"]  # both re-reads, the big one too
    assert result.rss < 1024 * 1024  # KB: under 1 GB


def test_a_script_of_thousands_of_cds_stays_within_memory(tmp_path: Path) -> None:
    """A shell script of 2,000 `cd dN && cat fN`, run twice: the context policy took 11 s
    and 4.5 GB (each command listed every `cd` before it, each row carried the script's
    text), now a fraction of a second and a few hundred MB."""
    script = " && ".join(f"cd d{i} && cat f{i}.txt" for i in range(2000))
    run = [{"event_type": "tool_call", "turn": turn, "tool_name": "bash", "status": "ok",
            "input": {"command": script}, "output_bytes": 10} for turn in (2, 3)]  # fmt: skip
    shell = {"event_type": "shell", "binary": "/usr/bin/bash", "command": script,
             "exit_code": 0, "stdout_bytes": 10, "stderr_bytes": 0}  # fmt: skip
    trace = session(
        tmp_path, text(events(run[0], {**shell, "turn": 2}, run[1], {**shell, "turn": 3}))
    )
    result = cli("redundant", "--policy", "context", "-f", "csv", str(trace))
    assert result.returncode == 0, result.stderr
    # the editor's re-read of src/a.rs (line 3); the second script is no repeat: where its
    # commands after the first 256 ran is not followed, so what they read is not known
    assert [r.split(",")[2] for r in result.stdout.splitlines()[1:]] == ["3"]
    assert result.rss < 1024 * 1024  # KB: under 1 GB


def test_a_directory_where_the_trace_should_be_is_e_io_003(tmp_path: Path) -> None:
    trace = session(tmp_path, None)
    trace.mkdir()
    result = runner.invoke(app, ["show", str(trace.parent)])
    one_error(result, "E-IO-003", f"{trace}: is a directory")


def test_a_fifo_where_the_trace_should_be_is_e_io_003_not_a_hang(tmp_path: Path) -> None:
    trace = session(tmp_path, None)
    os.mkfifo(trace)
    result = cli("redundant", str(trace.parent), timeout=60)
    one_error(result, "E-IO-003", f"{trace}: not a regular file")


@pytest.mark.parametrize("command", ["redundant", "loops", "report", "check --max-rate 1"])
def test_a_directory_of_no_session_among_other_paths_is_skipped(
    tmp_path: Path, command: str
) -> None:
    """As a path that does not exist is (E-IO-001, skipped): an empty directory among the
    paths stopped the command with E-TRC-002, whatever the others held."""
    trace = session(tmp_path, GOOD)
    empty = tmp_path / "nothing"
    empty.mkdir()
    result = runner.invoke(app, [*command.split(), str(trace.parent), str(empty)])
    assert result.exit_code == 0, result.output
    assert (
        result.stderr == f"warning[E-TRC-002]: no sessions found in workdir at {empty} (skipped)\n"
    )
    one_error(runner.invoke(app, [*command.split(), str(empty)]), "E-TRC-002", str(empty))


SHRUNK = Path("/sys/devices/system/cpu/online")  # its size says 4,096 bytes; a read gets a few


@pytest.mark.skipif(not SHRUNK.exists(), reason="needs Linux's /sys")
@pytest.mark.parametrize(
    "command", ["redundant", "redundant --policy context", "loops", "report", "export"]
)
def test_a_trace_cut_shorter_while_it_is_read_is_skipped(tmp_path: Path, command: str) -> None:
    """A trace cut shorter between its check and its read (a log rotated by copytruncate,
    an agent writing its trace anew): DuckDB's `IO Error: Failed to read file … unexpected
    EOF` stopped the command over the whole workdir. A file whose size says more than a
    read gives stands for it."""
    session(tmp_path, GOOD)
    cut = session(tmp_path, None, "ses_01a2173551a070028000000000003dde")
    cut.symlink_to(SHRUNK)
    workdir = tmp_path / "workdir"
    more = ["--parquet", str(tmp_path / "out")] if command == "export" else []
    result = runner.invoke(app, [*command.split(), "--workdir", str(workdir), *more])
    assert result.exit_code == 0, result.output
    assert result.stderr.startswith(
        f"warning[E-IO-003]: failed to read {cut}: it changed while it was read (at offset "
    ), result.stderr
    assert result.stderr.endswith(", unexpected EOF) (skipped)\n")
    alone = runner.invoke(app, [*command.split(), str(cut), *more])
    one_error(alone, "E-IO-003", "changed while")
    catalog = tmp_path / "c.duckdb"
    ingested = runner.invoke(app, ["ingest", "--db", str(catalog), "--workdir", str(workdir)])
    assert ingested.exit_code == 0, ingested.output
    assert "it changed while it was read" in ingested.stderr
    found = mur_trace.find_redundant(workdir=workdir)  # no duckdb.IOException
    assert [s.trace_path for s in found.skipped] == [str(cut)]


@pytest.mark.parametrize("policy", ["reference", "context"])
def test_a_trace_deleted_as_duckdb_opens_it_is_skipped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, policy: str
) -> None:
    """An agent that writes its trace anew (delete, then write) can remove it between
    DuckDB's listing and its opening: `Cannot open file "…"` names it in double quotes,
    which was not recognised, and the API raised duckdb.IOException (the command line
    stopped whole, exit 2). DuckDB's error is made here, once, where loading reads."""
    load = importlib.import_module("mur_trace.load")  # `mur_trace.load` is the function
    session(tmp_path, GOOD)
    gone = session(tmp_path, GOOD, "ses_01a2173551a070028000000000003dde")
    real = load.read_other_formats
    raised: list[str] = []

    def vanishing(*args, **kwargs):
        if not raised:
            raised.append(str(gone))
            said = f'IO Error: Cannot open file "{gone}": No such file or directory'
            raise duckdb.IOException(said)
        return real(*args, **kwargs)

    monkeypatch.setattr(load, "read_other_formats", vanishing)
    found = mur_trace.find_redundant(workdir=tmp_path / "workdir", policy=policy)
    assert raised == [str(gone)]
    assert [(s.trace_path, s.code, s.message) for s in found.skipped] == [
        (
            str(gone),
            "E-IO-003",
            f"failed to read {gone}: it changed while it was read (No such file or directory)",
        )
    ]
    assert found.sessions == 1


def test_a_trace_deleted_between_its_checks_is_not_found(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Deleted between the `stat` and the test of access of its check: it was said to be
    refused (`Permission denied`), not gone."""
    load = importlib.import_module("mur_trace.load")
    gone = session(tmp_path, GOOD)
    real = os.access

    def deleting(path, mode, **kwargs):
        if str(path) == str(gone) and gone.exists():
            gone.unlink()
        return real(path, mode, **kwargs)

    monkeypatch.setattr(load.os, "access", deleting)
    problem = load.file_problem(str(gone))
    assert (problem.code, problem.message) == ("E-IO-001", f"trace file not found: {gone}")


def test_a_session_directory_without_a_trace(tmp_path: Path) -> None:
    session(tmp_path, GOOD)
    empty = session(tmp_path, None, "ses_01a2173551a070028000000000003dde")
    workdir = tmp_path / "workdir"
    result = runner.invoke(app, ["redundant", "--workdir", str(workdir)])
    assert result.exit_code == 0
    assert result.stderr == f"warning[E-IO-001]: trace file not found: {empty} (skipped)\n"
    assert "total:      1 redundant call in 1 of 1 session\n" in result.stdout
    one_error(
        runner.invoke(app, ["show", "--workdir", str(workdir)]),  # the newest session
        "E-IO-001", f"trace file not found: {empty}",
    )  # fmt: skip


def test_a_link_loop_in_the_workdir(tmp_path: Path) -> None:
    session(tmp_path, GOOD)
    workdir = tmp_path / "workdir"
    loop = workdir / "ses_loop"
    loop.symlink_to(loop)
    (workdir / SESSION / "back").symlink_to(workdir)  # a loop through a session, not followed
    result = cli("redundant", "--workdir", str(workdir), timeout=60)
    assert result.returncode == 0
    assert result.stderr == (
        f"warning[E-IO-003]: failed to read {loop}/trace.jsonl: "
        "Too many levels of symbolic links (skipped)\n"
    )
    assert "total:      1 redundant call in 1 of 1 session\n" in result.stdout


# ── torn writes ──────────────────────────────────────────────────────────────


def test_a_torn_last_line_is_a_warning_and_the_lines_before_are_analysed(tmp_path: Path) -> None:
    lines = GOOD.split(b"\n")[:-2]  # no session_end: a killed session
    whole = session(tmp_path, b"\n".join(lines) + b"\n", "ses_1")
    torn = session(tmp_path, b"\n".join(lines) + b'\n{"event_type":"tool_call","tu', "ses_2")
    result = runner.invoke(app, ["redundant", "-f", "csv", str(torn)])
    assert result.exit_code == 0
    assert result.stderr == (
        f"warning[E-TRC-001]: {torn}:4: last line is incomplete (torn write); "
        "the lines before it are analysed\n"
    )
    assert [r.split(",", 2)[2] for r in result.stdout.splitlines()[1:]] == [
        r.split(",", 2)[2] for r in findings_csv(str(whole))
    ]
    # `--strict` fails on it in one line, which does not say the lines before are
    # analysed, since nothing is (before: the warning, then that sentence + `(--strict)`)
    db = str(tmp_path / "c.duckdb")
    for command in (["redundant"], ["report"], ["ingest", "--db", db]):
        strict = runner.invoke(app, [*command, str(torn), "--strict"])
        assert (strict.exit_code, strict.stdout) == (2, "")
        assert strict.stderr == (
            f"error[E-TRC-001]: {torn}:4: last line is incomplete (torn write) (--strict)\n"
        )
    # the same bad line with a newline after it is no torn write
    (torn).write_bytes(torn.read_bytes() + b"\n")
    result = runner.invoke(app, ["redundant", str(torn)])
    one_error(result, "E-TRC-001", f"{torn}:4: not valid JSON")


def test_a_whole_last_line_that_is_no_event_is_no_torn_write(tmp_path: Path) -> None:
    """`null` with no newline after it is a line that was written whole, and is no event:
    E-TRC-001, as anywhere else (a torn write is a line that is not valid JSON)."""
    lines = GOOD.split(b"\n")[:-1]
    trace = session(tmp_path, b"\n".join(lines) + b"\nnull")
    at = len(lines) + 1
    one_error(
        runner.invoke(app, ["redundant", str(trace)]),
        "E-TRC-001", f"{trace}:{at}: not an event object (no \"event_type\")",
    )  # fmt: skip


def test_a_count_of_2_to_the_53_less_one_is_a_count(tmp_path: Path) -> None:
    # the largest count a double holds exactly; 2^53 is refused (BAD_LINES)
    largest = {"event_type": "inference", "turn": 2**53 - 1, "decision": "end_turn"}
    trace = session(tmp_path, text(events(largest)))
    assert [row.split(",")[2] for row in findings_csv(str(trace))] == ["3"]


def test_a_trace_is_the_session_its_session_start_names(tmp_path: Path) -> None:
    """Not an earlier line's id (a task_start naming another session): the calls that name
    none take the session_start's."""
    other = "ses_01a21715468070018000000000002222"
    read = {"event_type": "tool_call", "tool_name": "editor", "input": {"path": "a.rs"},
            "state_effect": "read", "status": "ok"}  # fmt: skip
    lines = [
        {"event_type": "task_start", "session_id": other, "task_id": "t", "context_id": "c",
         "source": "a2a"},
        {"event_type": "session_start", "session_id": SESSION},
        {**read, "turn": 0},
        {**read, "turn": 1},
    ]  # fmt: skip
    trace = session(tmp_path, text(lines))
    found = mur_trace.load([trace]).redundant_calls().select("session_id, line")
    assert found.fetchall() == [(SESSION, 4)]


def test_a_trace_that_is_only_a_torn_line_is_e_trc_001(tmp_path: Path) -> None:
    trace = session(tmp_path, b'{"event_type":"sess')
    one_error(
        runner.invoke(app, ["redundant", str(trace)]),
        "E-TRC-001", f"{trace}:1: last line is incomplete (torn write) and no event before it",
    )  # fmt: skip


# ── partial workdirs ─────────────────────────────────────────────────────────


def test_good_sessions_get_their_own_answer_and_bad_ones_are_named(tmp_path: Path) -> None:
    good = [
        session(tmp_path, text(events(*[{"event_type": "tool_call", "turn": t,
                "input": {"path": "b"}, "state_effect": "read"} for t in range(n)])), name)
        for n, name in [(0, "ses_a"), (2, "ses_c"), (3, "ses_e")]
    ]  # fmt: skip
    bad = [
        session(tmp_path, GOOD + b'{"turn":"x","event_type":"tool_call"}\n', "ses_b"),
        session(tmp_path, b"\xff" + GOOD, "ses_d"),
        session(tmp_path, b"", "ses_f"),
        session(tmp_path, None, "ses_g"),
    ]
    workdir = str(tmp_path / "workdir")
    result = runner.invoke(app, ["redundant", "-f", "csv", "--workdir", workdir])
    assert result.exit_code == 0
    alone = [row for trace in good for row in findings_csv(str(trace))]
    assert sorted(result.stdout.splitlines()[1:]) == sorted(alone)
    named = result.stderr.splitlines()
    assert [line.split("]")[0] for line in named] == [
        "warning[E-TRC-001",
        "warning[E-IO-003",
        "warning[E-TRC-001",
        "warning[E-IO-001",
    ]
    assert all(str(trace) in line for trace, line in zip(bad, named, strict=True))
    # `--strict`: one line, the first of them (before, each was named as skipped first)
    for command in (["redundant"], ["loops"], ["report"], ["check", "--max-redundant", "99"]):
        strict = runner.invoke(app, [*command, "--workdir", workdir, "--strict"])
        assert (strict.exit_code, strict.stdout) == (2, "")
        assert strict.stderr == f"{named[0].replace('warning', 'error', 1)[:-9]}(--strict)\n"


@pytest.mark.parametrize("first", ["broken", "missing"])
def test_strict_names_the_first_trace_skipped_in_the_order_given(
    tmp_path: Path, first: str
) -> None:
    # two traces skipped for different reasons, named in either order after a good one:
    # `--strict` fails with the error of the first skipped as they were given (not the
    # last, not the first by path: ses_b's sorts after ses_a's)
    head, rest = GOOD.split(b"\n", 1)
    good = session(tmp_path, GOOD, "ses_c")
    broken = session(tmp_path, head + b"\n{not json\n" + rest, "ses_b")
    missing = session(tmp_path, None, "ses_a")
    errors = {
        "broken": f"error[E-TRC-001]: {broken}:2: not valid JSON (--strict)\n",
        "missing": f"error[E-IO-001]: trace file not found: {missing} (--strict)\n",
    }
    given = [broken, missing] if first == "broken" else [missing, broken]
    for command in (["redundant"], ["loops"], ["check", "--max-redundant", "99"], ["report"]):
        result = runner.invoke(app, [*command, str(good), *map(str, given), "--strict"])
        assert (result.exit_code, result.stdout) == (2, ""), command
        assert result.stderr == errors[first], command


def test_duckdb_progress_bar_never_reaches_the_output(sample_workdir: Path, tmp_path: Path) -> None:
    """DuckDB prints a progress bar on stdout, even into a pipe, for a query past 2 s: it
    would land in the middle of CSV rows. Every connection mur-trace opens turns it off."""
    from mur_trace.catalog import ingest

    def bar(con) -> bool:
        return con.execute("SELECT current_setting('enable_progress_bar_print')").fetchall()[0][0]

    assert bar(mur_trace.load(workdir=sample_workdir).con) is False
    db = tmp_path / "catalog.duckdb"
    ingest(db, workdir=sample_workdir)
    assert bar(mur_trace.load(db=db).con) is False
    # and every connection is opened by that one function
    package = Path(mur_trace.__file__).parent
    callers = [p.name for p in package.glob("*.py") if "duckdb.connect(" in p.read_text()]
    assert callers == ["load.py"]


# ── traces are only read ─────────────────────────────────────────────────────


def test_no_command_changes_a_trace(tmp_path: Path, sample_workdir: Path) -> None:
    workdir = tmp_path / "workdir"
    shutil.copytree(sample_workdir, workdir)
    files = sorted(p for p in workdir.rglob("*") if p.is_file())
    for path in files:
        path.chmod(0o444)
    before = {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in files}
    wd = ["--workdir", str(workdir)]
    db = str(tmp_path / "catalog.duckdb")
    commands = [
        ["redundant", *wd], ["redundant", "--policy", "context", *wd], ["loops", *wd],
        ["check", "--max-redundant", "0", *wd], ["show", *wd], ["steps", "--verbose", *wd],
        ["diff", *wd], ["report", *wd], ["ingest", "--db", db, *wd], ["redundant", "--db", db],
        ["export", "--parquet", str(tmp_path / "out"), *wd],
        ["plot", "timeline", "-o", str(tmp_path / "t.png"), *wd],
    ]  # fmt: skip
    for command in commands:
        result = runner.invoke(app, command)
        assert result.exit_code in (0, 1), (command, result.output)
    assert {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in files} == before
    assert sorted(p for p in workdir.rglob("*") if p.is_file()) == files  # nothing added


# ── catalog safety ───────────────────────────────────────────────────────────


@pytest.fixture(scope="module")
def fleet(tmp_path_factory) -> Path:
    """300 simulated sessions: enough for an ingest to be killed half-way."""
    from mur_trace.synth import synthesize

    return synthesize(tmp_path_factory.mktemp("fleet"), 300, seed=5)


def catalog_answer(db: Path) -> list[tuple]:
    trace = mur_trace.load(db=db)
    return sorted(trace.redundant_calls().select("trace_path, line, prior_line").fetchall())


def files_answer(workdir: Path) -> list[tuple]:
    paths = sorted(os.path.abspath(p) for p in workdir.glob("ses_*/trace.jsonl"))
    rows = mur_trace.find_redundant(paths).relation.select("trace_path, line, prior_line")
    return sorted(rows.fetchall())


def ingest_process(db: Path, workdir: Path, **kwargs) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "mur_trace", "ingest", "--db", str(db), str(workdir)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kwargs,
    )  # fmt: skip


def wait_until_held(db: Path, process: subprocess.Popen[str]) -> bool:
    """Wait until `process` holds the catalog open (its lock refuses a reader)."""
    import duckdb

    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and process.poll() is None:
        try:
            duckdb.connect(str(db), read_only=True).close()
        except duckdb.Error as exc:
            if "lock" in str(exc).lower():
                return True
        time.sleep(0.01)
    return False


def test_kill_9_during_ingest_then_ingest_again_converges(fleet: Path, tmp_path: Path) -> None:
    db = tmp_path / "catalog.duckdb"
    killed = 0
    for delay in (0.0, 0.3, 0.8):
        victim = ingest_process(db, fleet)
        held = wait_until_held(db, victim)
        time.sleep(delay)
        victim.send_signal(signal.SIGKILL)
        victim.communicate()
        killed += held and victim.returncode == -signal.SIGKILL
    assert killed >= 2  # the kills landed while the ingest held the catalog
    again = subprocess.run(
        [sys.executable, "-m", "mur_trace", "ingest", "--db", str(db), str(fleet)],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    assert "Traceback" not in again.stderr
    assert catalog_answer(db) == files_answer(fleet)


def test_concurrent_ingests_never_corrupt_the_catalog(fleet: Path, tmp_path: Path) -> None:
    db = tmp_path / "catalog.duckdb"
    first, second = ingest_process(db, fleet), ingest_process(db, fleet)
    for process in (first, second):
        _, err = process.communicate(timeout=300)
        assert "Traceback" not in err
        # the second waits for the first, or says clearly that the catalog is busy
        assert process.returncode == 0 or "is in use by another process" in err
    assert catalog_answer(db) == files_answer(fleet)


def test_a_full_disk_is_a_clear_error_and_the_catalog_stays_whole(
    fleet: Path, tmp_path: Path, sample_workdir: Path
) -> None:
    db = tmp_path / "catalog.duckdb"
    runner.invoke(app, ["ingest", "--db", str(db), str(sample_workdir)])
    before = catalog_answer(db)
    size = db.stat().st_size

    def small_disk() -> None:  # writes past this size fail as on a full disk
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (size + 65536, size + 65536))

    full = ingest_process(db, fleet, preexec_fn=small_disk)
    _, err = full.communicate(timeout=300)
    assert full.returncode == 2
    assert err.startswith(f"error[E-IO-003]: failed to write catalog {db}: ")
    assert len(err.splitlines()) == 1
    assert catalog_answer(db) == before
    runner.invoke(app, ["ingest", "--db", str(db), str(fleet)])
    assert len(catalog_answer(db)) == len(before) + len(files_answer(fleet))


def test_ingest_of_nothing_readable_is_an_error_and_creates_no_catalog(tmp_path: Path) -> None:
    db = tmp_path / "catalog.duckdb"
    missing = tmp_path / "typo" / "trace.jsonl"
    result = runner.invoke(app, ["ingest", "--db", str(db), str(missing)])
    one_error(result, "E-IO-001", f"trace file not found: {missing}")
    assert not db.exists()


def test_a_catalog_path_that_cannot_be_written_is_a_clear_error(
    tmp_path: Path, sample_workdir: Path
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    for db in (blocker / "catalog.duckdb", tmp_path):
        result = runner.invoke(app, ["ingest", "--db", str(db), str(sample_workdir)])
        one_error(result, "E-IO-003", f"cannot open catalog {db}")


# ── fuzzing ──────────────────────────────────────────────────────────────────

#: The fuzzer's events, written as Python writes them (a space after each comma and
#: colon) and as the runtime does (compact), so that both ways of the type scan are fuzzed
FUZZ_EVENTS = [
    *events(),
    {"event_type": "shell", "turn": 1, "exit_code": -2, "command": "rm src/a.rs"},
    {"event_type": "compaction", "turn": 1, "tokens_before": 5, "tokens_after": 2},
    {"event_type": "tool_call", "turn": 3, "input": {"path": "src/a.rs"}, "state_effect": "mutate"},
]
SEPARATORS = [(", ", ": "), (",", ":")]
JSON_VALUES = st.sampled_from(
    ['"3"', "-1", "-0", "1e30", "3.5", "true", "null", "{}", "[]", '"x"', "7", "9007199254740992"]
)


@st.composite
def mutated(draw) -> str:
    """A valid line (written with spaces or compact), then maybe cut, a byte changed or
    inserted, or a value replaced (its key maybe written with an escape, which every JSON
    reader decodes, or with white space after the comma before it)."""
    event = draw(st.sampled_from(FUZZ_EVENTS))
    separators = draw(st.sampled_from(SEPARATORS))
    line = json.dumps(event, separators=separators)
    how = draw(st.sampled_from(["keep", "keep", "cut", "flip", "insert", "value", "key"]))
    at = draw(st.integers(0, len(line)))
    if how == "cut":
        return line[:at]
    if how == "flip":
        return line[:at] + draw(st.characters(max_codepoint=0x7F)) + line[at + 1 :]
    if how == "insert":
        return line[:at] + draw(st.sampled_from(["\x00", "{", '"', ",", "\\", "é"])) + line[at:]
    if how == "value":
        key = draw(st.sampled_from(sorted(event)))
        value = json.dumps(event[key], separators=separators)
        line = line.replace(value, draw(JSON_VALUES), 1)
        written = draw(st.sampled_from(["as is", "escaped", "spaced"]))
        if written == "escaped":
            line = line.replace(f'"{key}"', f'"\\u{ord(key[0]):04x}{key[1:]}"', 1)
        if written == "spaced":
            space = draw(st.sampled_from([" ", "\t", "\r", " \t "]))
            line = line.replace(f'{separators[0]}"{key}"', f',{space}"{key}"', 1)
        return line
    if how == "key":
        return line.replace('"event_type"', draw(st.sampled_from(['"event"', '"Event_Type"'])), 1)
    return line


FUZZ_TRACE = st.tuples(
    st.lists(
        st.one_of(mutated(), st.sampled_from(["", "  ", "\r"]), st.text(max_size=20)),
        min_size=0,
        max_size=8,
    ),  # fmt: skip
    st.booleans(),  # a newline after the last line?
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(FUZZ_TRACE)
def test_fuzzed_traces_get_a_clean_code_or_the_model_answer(trace: tuple[list[str], bool]) -> None:
    lines, newline = trace
    data = ("\n".join(lines) + ("\n" if newline else "")).encode("utf-8", "surrogatepass")
    verdict = judge(data)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / SESSION / "trace.jsonl"
        path.parent.mkdir()
        path.write_bytes(data)
        result = runner.invoke(app, ["redundant", "-f", "csv", str(path)])
        assert result.exception is None or isinstance(result.exception, SystemExit)
        assert all(re.match(MESSAGE, line) for line in result.stderr.splitlines())
        if verdict.code is not None:
            assert result.exit_code == 2
            where = f"{path}:{verdict.line}:" if verdict.line else f"{path}:"
            assert result.stderr.startswith(f"error[{verdict.code}]: {where}")
            return
        assert result.exit_code == 0, result.output
        assert ("torn write" in result.stderr) == (verdict.torn is not None)
        rows = mur_trace.load([path]).redundant_calls()
        found = sorted(rows.select("trace_path, line, turn, resource, prior_line, prior_turn")
                       .fetchall())  # fmt: skip
        assert found == sorted(redundant_calls(str(path), verdict.text))


COMMANDS = [
    ["show"], ["show", "-f", "json"], ["steps", "--verbose"], ["report"], ["loops"],
    ["redundant", "--policy", "context"], ["check", "--max-rate", "0.5"],
]  # fmt: skip


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(FUZZ_TRACE, st.sampled_from(COMMANDS))
def test_every_command_survives_fuzzed_traces(trace: tuple[list[str], bool], command) -> None:
    lines, newline = trace
    data = ("\n".join(lines) + ("\n" if newline else "")).encode("utf-8", "surrogatepass")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / SESSION / "trace.jsonl"
        path.parent.mkdir()
        path.write_bytes(data)
        result = runner.invoke(app, [*command, str(path)])
        assert result.exception is None or isinstance(result.exception, SystemExit), (
            result.exception
        )
        assert result.exit_code in (0, 1, 2)
        assert all(re.match(MESSAGE, line) for line in result.stderr.splitlines())
        if judge(data).code is not None:
            assert result.exit_code == 2


#: Real sessions of the other agents (tests/fixtures/real/: Claude Code, Codex CLI,
#: OpenHands, OpenTelemetry), the files the fuzzer below mutates
REAL_SESSIONS = sorted((Path(__file__).parent / "fixtures" / "real").glob("*/*.jsonl"))
#: Values a member of another agent's event may be given: every JSON type, and the
#: strings and numbers its readers parse (a time, a path, a count)
ODD_VALUES = [None, True, 0, -1, 3.5, 1e308, 2**64, "", "x", "-1", "2026-13-45T99:99:99Z",
              "../../etc/passwd", "a\nb", "\\", [], {}, [1, "a"], {"a": None}]  # fmt: skip


def _members(value: object, at: tuple = ()) -> list[tuple]:
    """The paths of every member and item of a JSON value, nested ones too."""
    if isinstance(value, dict):
        items = list(value.items())
    elif isinstance(value, list):
        items = list(enumerate(value))
    else:
        return []
    return [path for key, item in items for path in [(*at, key), *_members(item, (*at, key))]]


def mutate_session(lines: list[str], rnd: random.Random) -> list[str]:
    """One to four changes to the lines of a real session: a member given a value of
    another type, or removed; a line cut short, a character changed, a line repeated,
    removed or moved."""
    lines = list(lines)
    for _ in range(rnd.randint(1, 4)):
        i = rnd.randrange(len(lines))
        how = rnd.choice(["value", "value", "remove", "cut", "change", "repeat", "drop", "move"])
        if how in ("value", "remove"):
            try:  # a line an earlier change cut is no JSON any more
                event = json.loads(lines[i])
            except ValueError:
                continue
            paths = _members(event)
            if not paths:
                continue
            *parent, key = rnd.choice(paths)
            holder = functools.reduce(lambda value, k: value[k], parent, event)
            if how == "remove":
                del holder[key]
            else:
                holder[key] = rnd.choice(ODD_VALUES)
            lines[i] = json.dumps(event)
        elif how == "cut":
            lines[i] = lines[i][: rnd.randrange(len(lines[i]) + 1)]
        elif how == "change":
            at = rnd.randrange(len(lines[i]) + 1)
            lines[i] = lines[i][:at] + chr(rnd.randrange(1, 128)) + lines[i][at + 1 :]
        elif how == "repeat":
            lines.insert(i, lines[i])
        elif how == "drop" and len(lines) > 1:
            del lines[i]
        elif how == "move":
            lines.insert(rnd.randrange(len(lines)), lines.pop(i))
    return lines


OTHER_COMMANDS = [*COMMANDS, ["redundant"], ["diff"]]
NOTE = r"^note: skipped \d+ incomplete session\(s\)$"


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(REAL_SESSIONS), st.randoms(use_true_random=False),
       st.sampled_from(OTHER_COMMANDS))  # fmt: skip
def test_every_command_survives_other_agents_sessions_mutated(
    session: Path, rnd: random.Random, command: list[str]
) -> None:
    """Every format, not only Murmur's: a real session of another agent, changed, gets an
    answer or a clean error from every command (no traceback, one line a message), and
    its file is left as it was."""
    lines = session.read_text(encoding="utf-8").splitlines()
    start = rnd.randrange(max(1, len(lines) - 60)) if rnd.random() < 0.3 else 0
    data = ("\n".join(mutate_session(lines[start : start + 60], rnd)) + "\n").encode()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / session.name
        path.write_bytes(data)
        paths = [str(path), str(path)] if command == ["diff"] else [str(path)]
        result = runner.invoke(app, [*command, *paths])
        assert result.exception is None or isinstance(result.exception, SystemExit), (
            result.exception
        )
        assert result.exit_code in (0, 1, 2)
        odd = [line for line in result.stderr.splitlines()
               if not (re.match(MESSAGE, line) or re.match(NOTE, line))]  # fmt: skip
        assert odd == []
        assert path.read_bytes() == data


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.randoms(use_true_random=False),
       st.sampled_from(["changed", "a bad line added", "emptied", "cut"]))  # fmt: skip
def test_an_ingest_after_one_session_changed_keeps_the_others(rnd: random.Random, how: str):
    """Three real sessions of other agents and a Murmur session, ingested; one of them
    changed (as the fuzzer above changes them, a line that is not JSON added, emptied, or
    cut at any byte), then ingested again: a clean outcome, every finding of the other
    sessions still in the catalog, and all of the changed one's when it can no longer be
    read (a bad line, an empty file): an ingest never loses what it cannot read."""
    with tempfile.TemporaryDirectory() as tmp:
        sessions = Path(tmp) / "sessions"
        sessions.mkdir()
        files = []
        for n, real in enumerate(rnd.sample(REAL_SESSIONS, 3)):
            files.append(sessions / f"{n}_{real.name}")
            files[-1].write_text("\n".join(real.read_text().splitlines()[:80]) + "\n")
        files.append(Path(tmp) / SESSION / "trace.jsonl")
        files[-1].parent.mkdir()
        files[-1].write_bytes(text(events()))
        db = Path(tmp) / "catalog.duckdb"
        ingest = ["ingest", "--db", str(db), str(sessions), str(files[-1])]
        assert runner.invoke(app, ingest).exit_code == 0
        # every reference finding the catalog holds, whole (its trace is the second column)
        before = {tuple(row) for row in csv.reader(findings_csv("--db", str(db)))}
        victim = rnd.choice(files)
        lines = victim.read_text().splitlines()
        if how == "changed":
            victim.write_text("\n".join(mutate_session(lines, rnd)) + "\n")
        elif how == "a bad line added":
            victim.write_text("\n".join([*lines, '{"x": ']) + "\n")
        elif how == "emptied":
            victim.write_bytes(b"")
        else:
            victim.write_bytes(victim.read_bytes()[: rnd.randrange(victim.stat().st_size)])
        result = runner.invoke(app, ingest)
        assert result.exception is None or isinstance(result.exception, SystemExit)
        assert result.exit_code in (0, 2)
        assert all(re.match(MESSAGE, line) for line in result.stderr.splitlines())
        after = {tuple(row) for row in csv.reader(findings_csv("--db", str(db)))}
        assert {f for f in before if f[1] != str(victim)} <= after
        if how in ("a bad line added", "emptied"):
            assert before <= after


# ── what users type never reaches SQL as text ────────────────────────────────


def test_quotes_and_semicolons_in_names_are_data_not_sql(tmp_path: Path, monkeypatch) -> None:
    evil = "ses_x'; DROP TABLE events; --\"a"
    trace = session(tmp_path, GOOD, evil)
    workdir = str(tmp_path / "workdir")
    result = runner.invoke(app, ["show", "'; DROP TABLE events; --\"a", "--workdir", workdir])
    assert result.exit_code == 0, result.output
    assert "count:      1\n  turn 1  editor  src/a.rs  (re-reads turn 0)" in result.stdout
    loaded = mur_trace.load([trace])
    count = "SELECT count(*) FROM events WHERE trace_path = $p"
    assert loaded.sql(count, p=str(trace)).fetchall() == [(4,)]
    assert loaded.sql(count, p=f"{trace}' OR '1' = '1").fetchall() == [(0,)]
    db = tmp_path / "cat'; DROP TABLE events; --.duckdb"
    assert runner.invoke(app, ["ingest", "--db", str(db), "--workdir", workdir]).exit_code == 0
    assert len(findings_csv("--db", str(db))) == 1
    out = tmp_path / "out'; --"
    assert runner.invoke(app, ["export", "--parquet", str(out), str(trace)]).exit_code == 0
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp'; --"))
    (tmp_path / "tmp'; --").mkdir()
    assert len(findings_csv(str(trace))) == 1  # rows pass through a temporary file
