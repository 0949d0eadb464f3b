"""The readers of benchmarks/duckdb_floor.py, the floors the speed benchmark compares
mur-trace with, do what they claim: read every non-blank line of every trace once, and
count what their design computes."""

from __future__ import annotations

import csv
import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

FLOOR = Path(__file__).resolve().parent.parent / "benchmarks" / "duckdb_floor.py"
READERS = ["lines", "checked", "transformed", "transformed_checked", "structured"]


def floor(reader: str, workdir: Path, *options: str) -> str:
    done = subprocess.run(
        [sys.executable, str(FLOOR), "--reader", reader, *options, str(workdir)],
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stderr.strip()


@pytest.mark.parametrize("reader", ["columns", "objects", *READERS])
def test_a_floor_reads_every_line_once(reader: str, sample_workdir: Path) -> None:
    traces = sorted(sample_workdir.glob("ses_*/trace.jsonl"))
    lines = sum(1 for t in traces for line in t.read_text().splitlines() if line.strip())
    assert floor(reader, sample_workdir).startswith(f"files={len(traces)} events={lines} ")


def event(**fields) -> str:
    return json.dumps({"event_type": "tool_call", "session_id": "ses_a", **fields})


# seven lines that are not blank: six valid JSON, one of which has a field of the wrong
# type ("turn" a string); the second trace has a blank line, the third a line that is not
# JSON, so only the first parses as one array
TRACES = {
    "ses_1": [event(turn=0), event(turn=1), event(turn=2, tool_name="editor")],
    "ses_2": [event(turn=0), "", event(turn="3")],
    "ses_3": [event(turn=0), '{"event_type": "tool_call", "turn": 1'],
}
FOUND = {
    "lines": 6,  # valid lines
    "checked": 1,  # lines the scan finds
    "transformed": 6,  # lines parsed
    "transformed_checked": 1,  # lines whose values are not all of their types
    "structured": 1,  # files that parse as one array
}


@pytest.mark.parametrize("reader", READERS)
def test_a_floor_counts_what_its_design_computes(reader: str, tmp_path: Path) -> None:
    for name, lines in TRACES.items():
        (tmp_path / name).mkdir()
        (tmp_path / name / "trace.jsonl").write_text("\n".join(lines) + "\n")
    assert floor(reader, tmp_path) == f"files=3 events=7 found={FOUND[reader]}"


def compact(**fields) -> str:
    """A tool call written as the runtime writes it: no white space (the prototype finds
    tool calls by the text `"event_type":"tool_call"`)."""
    return json.dumps(
        {"event_type": "tool_call", "session_id": "ses_a", **fields}, separators=(",", ":")
    )


def test_the_issue_prototype_writes_the_reads_repeated(tmp_path: Path) -> None:
    read = {"state_effect": "read"}
    traces = {
        # a.txt read (line 1), read again (2: a finding, prior line 1, turn 1), changed (3),
        # read (4: none, a change came before); b read by its declared resource (5), an
        # inference (6), b read again (7: a finding, prior line 5, turn 5)
        "ses_1": [
            compact(turn=1, input={"path": "a.txt"}, **read),
            compact(turn=2, input={"path": "a.txt"}, **read),
            compact(turn=3, input={"path": "a.txt"}, state_effect="mutate"),
            compact(turn=4, input={"path": "a.txt"}, **read),
            compact(turn=5, resource_id="b", input={}, **read),
            json.dumps({"event_type": "inference", "session_id": "ses_a", "turn": 6}),
            compact(turn=6, resource_id="b", input={}, **read),
        ],
        # its lines numbered on from ses_1's seven (ordinality counts over all the files):
        # a.txt read (8, none: the history is the file's); c.txt by `file_path` (9), again
        # (10: a finding, prior 9, turn 2); an empty resource_id falls back to the path:
        # a.txt again (11: a finding, prior 8, turn 1)
        "ses_2": [
            compact(turn=1, input={"path": "a.txt"}, **read),
            compact(turn=2, input={"file_path": "c.txt"}, **read),
            compact(turn=3, input={"file_path": "c.txt"}, **read),
            compact(turn=4, resource_id="", input={"path": "a.txt"}, **read),
        ],
    }
    for name, lines in traces.items():
        (tmp_path / name).mkdir()
        (tmp_path / name / "trace.jsonl").write_text("\n".join(lines) + "\n")
    out = tmp_path / "found.csv"
    assert floor("prototype", tmp_path, "--out", str(out)) == "files=2 events=not counted found=4"
    with out.open() as rows:
        found = [
            (Path(r["filename"]).parent.name, r["line"], r["turn"], r["resource"],
             r["prior_line"], r["prior_turn"])
            for r in csv.DictReader(rows)
        ]  # fmt: skip
    assert found == [
        ("ses_1", "2", "2", "a.txt", "1", "1"),
        ("ses_1", "7", "6", "b", "5", "5"),
        ("ses_2", "10", "3", "c.txt", "9", "2"),
        ("ses_2", "11", "4", "a.txt", "8", "1"),
    ]


def _speed():
    """benchmarks/speed.py, as a module."""
    spec = importlib.util.spec_from_file_location("speed", FLOOR.parent / "speed.py")
    assert spec is not None and spec.loader is not None
    speed = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(speed)
    return speed


def test_the_start_up_floors_of_show_run_over_a_session(sample_workdir: Path) -> None:
    """The floors benchmarks/speed.py puts beside `show` (the command line's start-up, one
    statement over the session, the session loaded) run as written over one session."""
    speed = _speed()
    trace = str(sorted(sample_workdir.glob("ses_*/trace.jsonl"))[0])
    for snippet in (speed.OVERLAPPED + speed.EXIT, speed.ONE_STATEMENT, speed.ONE_LOAD):
        done = subprocess.run([sys.executable, "-c", snippet, trace], capture_output=True)
        assert (done.returncode, done.stderr) == (0, b""), snippet


def test_show_statements_replay_on_the_engine_alone(sample_workdir: Path, tmp_path: Path) -> None:
    """benchmarks/show_statements.py: what `show` sends to the engine is written down (the
    session's load, its metrics and each section's query, with the session's path among
    their values), and replayed in a process that imports DuckDB's engine module and not
    its Python layer."""
    script = str(FLOOR.parent / "show_statements.py")
    trace = str(sorted(sample_workdir.glob("ses_*/trace.jsonl"))[0])
    recorded = tmp_path / "show.json"
    subprocess.run([sys.executable, script, "record", trace, str(recorded)], check=True)
    statements = json.loads(recorded.read_text())
    texts = [query for query, _ in statements]
    assert any(t.startswith("CREATE OR REPLACE TABLE lines AS") for t in texts)
    assert any(t.startswith("CREATE OR REPLACE TEMP TABLE unit_metrics_rows AS") for t in texts)
    # the seven sections: findings, turns of calls and inferences, exit codes, reopens, tasks
    sections = [p for q, p in statements if q.startswith("SELECT * FROM (SELECT * REPLACE")]
    assert len(sections) == 7 and all(trace in p.values() for p in sections)
    check = (
        "import runpy, sys; sys.argv = ['show_statements.py', 'replay', sys.argv[1]]; "
        f"runpy.run_path({script!r}, run_name='__main__'); "
        "assert 'duckdb' not in sys.modules and '_duckdb' in sys.modules"
    )
    done = subprocess.run([sys.executable, "-c", check, str(recorded)], capture_output=True)
    assert (done.returncode, done.stderr) == (0, b"")


def test_real_workdirs_copy_the_sessions_run_for_real(tmp_path: Path) -> None:
    """`speed.py --real`: the recorded and held-out sessions whose lines are all whole (two
    held-out ones end in a torn line), in turn, each copy named by an id of its own that
    keeps the original's time, its trace the original's bytes with that id in place of the
    original's."""
    speed = _speed()
    sessions = speed.real_sessions()
    assert len(sessions) == 98
    first = sessions[0]
    workdir = speed.copy_real(tmp_path, 99)
    assert len(list(workdir.iterdir())) == 99
    for n in (0, 98):  # the first copy, and the 99th: the first session again
        copy = workdir / (first.name[:16] + f"{n:020x}")
        text = (copy / "trace.jsonl").read_bytes()
        assert (
            text.replace(copy.name.encode(), first.name.encode())
            == (first / "trace.jsonl").read_bytes()
        )
        assert first.name.encode() not in text
