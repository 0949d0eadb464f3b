"""benchmarks/record.py: traces written as the runtime writes them, and a truth from the bytes.

The expected truths are stated by hand from the script each test plays, not taken from a run.
"""

from __future__ import annotations

import importlib.util
import json
import os
import random
import shutil
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mur_trace.load import connect, create_macros

ROOT = Path(__file__).resolve().parent.parent
PRICING = "src/stockroom/pricing.py"


def load_recorder():
    spec = importlib.util.spec_from_file_location("record", ROOT / "benchmarks" / "record.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["record"] = module
    spec.loader.exec_module(module)
    return module


record = load_recorder()


class Session:
    """A hand-scripted session on a fresh copy of the project."""

    def __init__(self, tmp: Path) -> None:
        self.repo = tmp / "repo"
        record.make_template(self.repo, random.Random(0))
        (tmp / "site").mkdir()
        self.site = record.Site(tmp / "site")
        self.site.reset()
        clock = record.Clock(record.START_MS)
        self.ws = record.Workspace(self.repo, self.site, clock)
        self.writer = record.TraceWriter("ses_test", clock, "test-capsule", False)
        self.truth = record.Truth("ses_test", self.ws)
        self.rec = record.Recorder(self.writer, self.ws, self.truth, random.Random(0))
        self.rec.attempt_start(50, 10)

    def read(self, tool: str, data: dict, kind: str = "file", file: str | None = None) -> dict:
        self.rec.call(tool, data, record.Read(kind, file))
        return self.truth.rows[-1]

    def editor_read(self, path: str) -> dict:
        return self.read("editor", {"operation": "read_file", "path": path}, file=path)

    def events(self) -> list[dict]:
        return [json.loads(line) for line in self.writer.lines]


@pytest.fixture
def session(tmp_path):
    s = Session(tmp_path)
    yield s
    s.site.close()


def test_reread_with_nothing_between_is_redundant_and_after_sed_is_not(session):
    first = session.editor_read(PRICING)
    again = session.editor_read(PRICING)
    assert (first["redundant"], first["why"]) == (False, "first")
    assert (again["redundant"], again["why"], again["between"]) == (True, "repeat", "nothing")
    assert again["prior_line"] == first["line"]
    # cat returns the whole file the editor already returned: covered
    cat = session.read("bash", {"command": f"cat {PRICING}"}, file=PRICING)
    assert (cat["redundant"], cat["why"], cat["kind"]) == (True, "covered", "file")
    command = f"sed -i 's/^MAX_DISCOUNT = 0.5$/MAX_DISCOUNT = 0.6/' {PRICING}"
    session.rec.call("bash", {"command": command})
    after = session.editor_read(PRICING)
    assert (after["redundant"], after["why"]) == (False, "changed")
    # a grep of the file is covered by the whole read just made
    grep = session.read("bash", {"command": f"grep -n MAX_DISCOUNT {PRICING}"}, file=PRICING)
    assert (grep["redundant"], grep["why"], grep["kind"]) == (True, "covered", "part")


def test_a_range_does_not_cover_a_whole_read_and_a_whole_read_covers_a_range(session):
    data = {"operation": "read_file", "path": PRICING, "start_line": 1, "end_line": 5}
    part = session.read("editor", data, file=PRICING)
    whole = session.editor_read(PRICING)
    assert (part["kind"], whole["redundant"], whole["why"]) == ("part", False, "not_covered")
    again = session.read("editor", dict(data, end_line=6), file=PRICING)
    assert (again["redundant"], again["why"]) == (True, "covered")


def test_failed_reads_see_nothing_and_a_compaction_empties_the_context(session):
    missing = session.editor_read("src/stockroom/prices.py")
    assert (missing["redundant"], missing["why"]) == (False, "failed")
    cat = session.read(
        "bash", {"command": "cat src/stockroom/prices.py"}, file="src/stockroom/prices.py"
    )
    assert (cat["redundant"], cat["why"]) == (False, "failed")  # exit 1, status ok
    session.editor_read(PRICING)
    session.rec.compact()
    after = session.editor_read(PRICING)
    assert (after["redundant"], after["why"]) == (False, "after_reset")


def test_git_status_repeats_until_a_change_and_stat_is_not_content(session):
    first = session.read("git", {"command": "status"}, "git")
    second = session.read("git", {"command": "status"}, "git")
    assert (first["redundant"], second["redundant"]) == (False, True)
    session.rec.call("bash", {"command": "echo x >> README.md"})
    third = session.read("git", {"command": "status"}, "git")
    assert (third["redundant"], third["why"]) == (False, "changed")
    session.editor_read("README.md")
    stat = session.read("fs_stat", {"path": "README.md"}, "stat")
    assert stat["redundant"] is False


def test_a_page_is_the_same_after_local_changes_and_not_after_a_comment(session):
    url = session.site.base + "issues/17.html"
    session.read("fetch", {"url": url}, "web")
    session.rec.call("bash", {"command": f"sed -i 's/0.2/0.25/' {PRICING}"})
    again = session.read("fetch", {"url": url}, "web")
    assert (again["redundant"], again["between"]) == (True, "other_changes")
    session.site.comment()
    third = session.read("fetch", {"url": url}, "web")
    assert (third["redundant"], third["why"]) == (False, "changed")


def test_shell_calls_are_written_as_the_runtime_writes_them(session):
    content = (session.repo / PRICING).read_text(encoding="utf-8")
    session.rec.call("bash", {"command": f"  cat {PRICING}  "})
    session.rec.call("git", {"command": 'commit --allow-empty -m "two words"'})
    session.rec.call("bash", {"command": "grep -n nothing-like-this README.md"})
    events = session.events()
    kinds = [e["event_type"] for e in events]
    assert kinds == ["session_start"] + ["inference", "tool_call", "shell"] * 3
    cat_call, cat_shell = events[2], events[3]
    text = f"$ cat {PRICING}\nExit code: 0\nStdout:\n{content}\nStderr:\n"
    assert cat_call["output_bytes"] == len(text.encode())
    assert cat_call["input"] == {"command": f"  cat {PRICING}  "}
    assert cat_call["input_bytes"] == len(json.dumps(cat_call["input"], separators=(",", ":")))
    assert cat_shell["command"] == f"cat {PRICING}"  # trimmed
    assert cat_shell["binary"] == os.path.realpath(shutil.which("bash"))
    assert cat_shell["stdout_bytes"] == len(content.encode())
    git_shell = events[6]
    assert git_shell["binary"] == os.path.realpath(shutil.which("git"))
    assert git_shell["command"] == 'commit --allow-empty -m "two words"'  # no "git" in front
    log = (session.repo / ".git" / "logs" / "HEAD").read_text(encoding="utf-8")
    assert log.splitlines()[-1].endswith("commit: two words")  # the runtime's word split
    grep_call, grep_shell = events[8], events[9]
    assert (grep_call["status"], grep_shell["exit_code"]) == ("ok", 1)
    assert "state_effect" not in grep_call


def test_shell_output_is_capped_at_16_kib(session):
    size = (session.repo / "data/catalog.csv").stat().st_size
    assert size > 16 * 1024
    row = session.read("bash", {"command": "cat data/catalog.csv"}, file="data/catalog.csv")
    assert row["kind"] == "part"  # cut at 16 KiB: not the whole file
    shell = session.events()[-1]
    assert shell["stdout_bytes"] == 16 * 1024
    assert list((session.repo / "logs").glob("shell-*.log"))


def test_a_numbered_whole_read_holds_the_file(session):
    numbered = record.Read("file", PRICING, numbered=True)
    session.rec.call("bash", {"command": f"cat -n {PRICING}"}, numbered)
    first = session.truth.rows[-1]
    assert (first["kind"], first["why"]) == ("file", "first")  # numbers off, it is the file
    plain = session.editor_read(PRICING)
    assert (plain["redundant"], plain["why"], plain["prior_line"]) == (True, "covered", 3)
    # `nl -ba` numbers the same way; three lines of it are a part, covered
    part = session.read("bash", {"command": f"nl -ba {PRICING} | sed -n '2,4p'"}, file=PRICING)
    assert (part["kind"], part["why"]) == ("part", "covered")


def test_a_read_of_several_files_is_covered_by_whole_reads_of_each_and_holds_them(session):
    utils = "src/stockroom/utils.py"
    both = record.Read("files", files=(PRICING, utils))
    session.rec.call("bash", {"command": f"cat {PRICING} {utils}"}, both)
    first = session.truth.rows[-1]
    assert (first["kind"], first["why"], first["redundant"]) == ("files", "first", False)
    # the output held each file whole: each is held
    again = session.editor_read(utils)
    assert (again["redundant"], again["why"], again["prior_line"]) == (True, "covered", 3)
    # the other order is another request, covered by the reads of each file
    session.rec.call("bash", {"command": f"cat {utils} {PRICING}"}, both)
    swapped = session.truth.rows[-1]
    assert (swapped["why"], swapped["prior_line"], swapped["between"]) == ("covered", 6, "nothing")
    session.rec.call("bash", {"command": f"sed -i 's/^MAX_CHUNK = 1000$/MAX_CHUNK = 500/' {utils}"})
    session.rec.call("bash", {"command": f"cat {PRICING} {utils}"}, both)
    after = session.truth.rows[-1]
    assert (after["redundant"], after["why"]) == (False, "changed")
    # a cut output holds a file whole only if the cut left it whole
    big = record.Read("files", files=("data/catalog.csv", PRICING))
    session.rec.call("bash", {"command": f"cat {PRICING} data/catalog.csv"}, big)
    session.read("bash", {"command": "head -n 3 data/catalog.csv"}, file="data/catalog.csv")
    assert session.truth.rows[-1]["why"] == "not_covered"
    session.editor_read(PRICING)
    assert session.truth.rows[-1]["why"] == "covered"


def test_split_shell_words_follows_the_runtime():
    assert record.split_shell_words('commit -m "fix \\"x\\"" a\\ b') == [
        "commit",
        "-m",
        'fix "x"',
        "a b",
    ]
    assert record.split_shell_words("checkout  --   src/a.py") == ["checkout", "--", "src/a.py"]
    assert record.split_shell_words("log 'a b' '' c") == ["log", "a b", "c"]


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="ab \t\"'\\", max_size=16))
def test_the_sql_split_of_words_is_the_runtimes(command: str) -> None:
    """queries/functions/split_shell_words.sql, which the context policy splits a binary's
    command with, against the runtime's rule as written above (empty words dropped)."""
    con = connect()
    create_macros(con)
    got = con.execute("SELECT split_shell_words($c)", {"c": command}).fetchone()[0]
    assert got == record.split_shell_words(command)


def test_recorded_sessions_hold_together(tmp_path):
    workdir = record.record(tmp_path, 3, seed=3, calls=(14, 24))
    truth = [json.loads(line) for line in (tmp_path / "truth.jsonl").open()]
    traces = sorted(workdir.glob("ses_*/trace.jsonl"))
    assert len(traces) == 3
    for trace in traces:
        events = [json.loads(line) for line in trace.read_text(encoding="utf-8").splitlines()]
        assert events[0]["event_type"] in ("task_start", "a2a_task_received")
        assert [e["event_type"] for e in events].count("session_start") >= 1
        session_id = trace.parent.name
        assert all(e["session_id"] == session_id for e in events)
        for number, event in enumerate(events, 1):
            shell_tool = event.get("tool_name") in ("bash", "git", "python")
            # a killed session may end before the shell line
            if event["event_type"] == "tool_call" and shell_tool and number < len(events):
                shell = events[number]
                assert shell["event_type"] == "shell"
                assert shell["command"] == event["input"]["command"].strip()
                assert event["status"] == "ok"
        rows = [r for r in truth if r["session_id"] == session_id]
        assert rows
        for row in rows:
            assert events[row["line"] - 1]["event_type"] == "tool_call"
            if row["redundant"]:
                assert row["prior_line"] < row["line"]
