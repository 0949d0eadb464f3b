"""Hostile use of every command: one coded line and the documented exit status, inputs
unchanged, no hang; one meaning for a path. The bad-input matrix runs against every command
and the Python API; then one test per finding of the hostile pass; then a fuzzer over
command lines."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

import mur_trace
from mur_trace.cli import app
from mur_trace.errors import MurTraceError

runner = CliRunner()
SESSION = "ses_01a21715468070018000000000001eef"
OTHER = "ses_01a2173551a070028000000000003dde"


def checksums(root: Path) -> dict[str, str]:
    """Every file under `root` and the SHA-256 of its bytes (links not followed)."""
    found = {}
    for path in sorted(root.rglob("*")):
        if path.is_file() and not path.is_symlink():
            found[str(path)] = hashlib.sha256(path.read_bytes()).hexdigest()
    return found


def one_line(result, code: str, status: int = 2, *fragments: str) -> str:
    """The command exited `status` with exactly one line on stderr: the error with `code`."""
    assert result.exit_code == status, (result.exit_code, result.output)
    lines = result.stderr.splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith(f"error[{code}]: "), lines[0]
    for fragment in fragments:
        assert fragment in lines[0], (fragment, lines[0])
    return lines[0]


def event(**fields) -> str:
    return json.dumps(fields)


def whole_session(*middle: str, end: dict | None = None, sid: str = SESSION) -> str:
    """A complete little session (two reads of src/a.rs) around `middle` lines."""
    read = {"event_type": "tool_call", "tool_name": "editor", "status": "ok",
            "input": {"path": "src/a.rs"}, "state_effect": "read", "output_bytes": 10}  # fmt: skip
    if end is None:
        end = {"event_type": "session_end", "total_turns": 2, "total_tool_calls": 3,
               "exit_status": "ok"}  # fmt: skip
    lines = [
        event(event_type="session_start", session_id=sid, capsule_name="c",
              capsule_version="1", model="m", max_turns=9),
        event(event_type="inference", turn=0, input_tokens=5, output_tokens=5,
              decision="tool_call", tool_name="editor"),
        event(**read, turn=0),
        event(**read, turn=1),
        *middle,
        json.dumps(end),
    ]  # fmt: skip
    return "".join(line + "\n" for line in lines)


@pytest.fixture
def workdir(tmp_path: Path, sample_workdir: Path) -> Path:
    copy = tmp_path / "wd"
    shutil.copytree(sample_workdir, copy)
    return copy


# ── the bad-input matrix, against every command and the API ─────────────────

#: name -> (bytes of the trace, (file name, bytes), or a kind of file; the code every command
#: answers)
BAD_TRACES: dict[str, tuple[object, str]] = {
    "not JSON": (b'{"event_type":"session_start"}\n{"event_type": \n', "E-TRC-001"),
    "a turn as text": (b'{"event_type":"tool_call","turn":"3"}\n', "E-TRC-001"),
    "a count past 2^53": (
        b'{"event_type":"tool_call","output_bytes":9223372036854775807}\n',
        "E-TRC-001",
    ),  # fmt: skip
    "a null line": (b"null\n", "E-TRC-001"),
    "a byte order mark": (b'\xef\xbb\xbf{"event_type":"session_start"}\n', "E-TRC-001"),
    "empty": (b"", "E-TRC-001"),
    "not UTF-8": (b'{"event_type":"x","s":"\xff"}\n', "E-IO-003"),
    "a directory": ("dir", "E-IO-003"),
    "a pipe": ("fifo", "E-IO-003"),
    "a pipe of another name": ("fifo:session.jsonl", "E-IO-003"),
    "missing": ("missing", "E-IO-001"),
    # other agents' formats, recognised from the first line of a file of another name
    "an OpenTelemetry span without a start time": (
        ("spans.jsonl", b'{"type":"span","traceId":"t","spanId":"s","name":"x","endTime":[1,0]}\n'),
        "E-TRC-001",
    ),
    "an OpenTelemetry span file with a line not JSON": (
        (
            "spans.jsonl",
            b'{"type":"span","traceId":"t","spanId":"s","name":"x",'
            b'"startTime":[1,0],"endTime":[1,0]}\n{"type": \n',
        ),
        "E-TRC-001",
    ),
}


def bad_trace(tmp_path: Path, name: str) -> Path:
    data, _ = BAD_TRACES[name]
    if isinstance(data, tuple):  # (file name, bytes)
        name, data = data
        kind = data
    else:
        kind, _, name = data.partition(":") if isinstance(data, str) else (data, "", "")
    trace = tmp_path / "bad" / SESSION / (name or "trace.jsonl")
    trace.parent.mkdir(parents=True)
    if data == "dir":
        trace.mkdir()
    elif kind == "fifo":
        os.mkfifo(trace)
    elif data != "missing":
        trace.write_bytes(data)
    return trace


#: Every command, given the bad trace as its session or its paths.
COMMANDS = {
    "redundant": lambda t, tmp: ["redundant", t],
    "redundant context": lambda t, tmp: ["redundant", "--policy", "context", t],
    "loops": lambda t, tmp: ["loops", t, "-f", "csv"],
    "check": lambda t, tmp: ["check", t, "--max-redundant", "0"],
    "show": lambda t, tmp: ["show", t],
    "show json": lambda t, tmp: ["show", t, "-f", "json"],
    "steps": lambda t, tmp: ["steps", "--verbose", t],
    "diff": lambda t, tmp: ["diff", t, t],
    "report": lambda t, tmp: ["report", t],
    "ingest": lambda t, tmp: ["ingest", "--db", str(tmp / "cat.duckdb"), t],
    "export": lambda t, tmp: ["export", "--parquet", str(tmp / "out"), t],
    "plot waste": lambda t, tmp: ["plot", "waste", t, "-o", str(tmp / "w.png")],
    "plot timeline": lambda t, tmp: ["plot", "timeline", t, "-o", str(tmp / "t.png")],
}

#: The same, through the Python API.
API_CALLS = {
    "load": lambda t, tmp: mur_trace.load(t),
    "find_redundant": lambda t, tmp: mur_trace.find_redundant([t]),
    "ingest": lambda t, tmp: __import__("mur_trace.catalog").catalog.ingest(tmp / "c.duckdb", [t]),
}


class Watchdog:
    """Releases a command blocked on opening the named pipe `fifo` (by opening its other
    end) when it has not finished within `seconds`, and remembers that it had to."""

    def __init__(self, fifo: Path, seconds: float = 30.0) -> None:
        self.fifo, self.seconds, self.fired = fifo, seconds, False
        self.done = threading.Event()

    def __enter__(self) -> Watchdog:
        if self.fifo.is_fifo():
            threading.Thread(target=self._watch, daemon=True).start()
        return self

    def _watch(self) -> None:
        if not self.done.wait(self.seconds):
            self.fired = True
            os.close(os.open(self.fifo, os.O_WRONLY))

    def __exit__(self, *exc: object) -> None:
        self.done.set()


@pytest.mark.parametrize("bad", list(BAD_TRACES))
def test_every_command_gives_one_coded_line_for_a_bad_trace(tmp_path: Path, bad: str) -> None:
    trace = bad_trace(tmp_path, bad)
    code = BAD_TRACES[bad][1]
    before = checksums(tmp_path)
    for name, command in COMMANDS.items():
        with Watchdog(trace) as watchdog:
            result = runner.invoke(app, command(str(trace), tmp_path))
        assert not watchdog.fired, f"{name} waited on the pipe"
        assert result.exit_code == 2, (name, result.output)
        lines = result.stderr.splitlines()
        assert len(lines) == 1 and lines[0].startswith(f"error[{code}]: "), (name, lines)
    for name, call in API_CALLS.items():
        with Watchdog(trace) as watchdog, pytest.raises(MurTraceError) as caught:
            call(trace, tmp_path)
        assert not watchdog.fired, f"{name} waited on the pipe"
        assert caught.value.code == code, name
    assert checksums(tmp_path) == before  # nothing written: no catalog, no export, no image


# ── the findings, one by one ─────────────────────────────────────────────────


def test_04_report_with_no_exit_status(tmp_path: Path) -> None:
    for end in ({"event_type": "session_end", "total_turns": 2},
                {"event_type": "session_end", "total_turns": 2, "exit_status": None}):  # fmt: skip
        trace = tmp_path / "w" / SESSION / "trace.jsonl"
        trace.parent.mkdir(parents=True, exist_ok=True)
        trace.write_text(whole_session(end=end))
        result = runner.invoke(app, ["report", str(trace)])
        assert result.exit_code == 0, result.output
        assert "  unknown                  1  (100.0%)" in result.stdout
        assert "status:     unknown" in runner.invoke(app, ["show", str(trace)]).stdout


def test_05_steps_with_an_inference_without_turn(tmp_path: Path) -> None:
    trace = tmp_path / "t.jsonl"
    trace.write_text(whole_session(event(event_type="inference", decision="end_turn")))
    result = runner.invoke(app, ["steps", str(trace)])
    assert result.exit_code == 0, result.output
    assert "  0  end_turn     —" in result.stdout


def test_06_inputs_nested_past_pythons_recursion_limit(tmp_path: Path) -> None:
    deep = '{"k":' * 3000 + '"deep"' + "}" * 3000
    trace = tmp_path / "t.jsonl"
    call = '{"event_type":"tool_call","turn":2,"tool_name":"x","status":"ok","input":' + deep + "}"
    turn = event(event_type="inference", turn=2, decision="tool_call", tool_name="x")
    trace.write_text(whole_session(turn, call))
    for command in (["show", str(trace)], ["show", "--policy", "context", str(trace)],
                    ["steps", "-v", str(trace)], ["steps", "-f", "json", str(trace)]):  # fmt: skip
        result = runner.invoke(app, command)
        assert result.exit_code == 0, (command, result.output)
    assert '{"k":{"k":' in runner.invoke(app, ["show", str(trace)]).stdout
    assert '"deep"' in runner.invoke(app, ["steps", "-v", str(trace)]).stdout


def test_07_a_trace_the_catalog_does_not_hold(tmp_path: Path, workdir: Path) -> None:
    db = tmp_path / "cat.duckdb"
    assert runner.invoke(app, ["ingest", "--db", str(db), "--workdir", str(workdir)]).exit_code == 0
    outside = tmp_path / "elsewhere" / SESSION / "trace.jsonl"
    for command in (["show", "/nope/trace.jsonl", "--db", str(db)],
                    ["steps", str(outside), "--db", str(db)],
                    ["plot", "timeline", "--session", "/nope/trace.jsonl", "--db", str(db),
                     "-o", str(tmp_path / "t.png")]):  # fmt: skip
        one_line(runner.invoke(app, command), "E-TRC-002", 2, "no session of catalog")


def test_08_and_24_plot_names_its_image(tmp_path: Path, workdir: Path, monkeypatch) -> None:
    wd = ["--workdir", str(workdir)]
    one_line(runner.invoke(app, ["plot", "waste", *wd, "-o", str(tmp_path / "out.txt")]),
             "E-CLI-001", 2, "end it in .png, .svg, .pdf")  # fmt: skip
    (tmp_path / "pics").mkdir()
    one_line(runner.invoke(app, ["plot", "waste", *wd, "-o", str(tmp_path / "pics")]),
             "E-CLI-001", 2, "is a directory")  # fmt: skip
    one_line(runner.invoke(app, ["plot", "waste", *wd, "-o", str(tmp_path / "noext")]),
             "E-CLI-001")  # fmt: skip
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pics", "wd"]
    result = subprocess.run(
        [sys.executable, "-m", "mur_trace", "plot", "waste", *wd, "-o", str(tmp_path / "x.png")],
        capture_output=True, text=True, env={**os.environ, "MPLBACKEND": "bogus"},
    )  # fmt: skip
    assert result.returncode == 2 and result.stderr.startswith("error[E-CFG-003]: matplotlib")
    assert len(result.stderr.splitlines()) == 1


def test_09_a_catalog_whose_write_ahead_log_cannot_be_written(tmp_path: Path, workdir: Path):
    import duckdb

    db = tmp_path / "cat.duckdb"
    assert runner.invoke(app, ["ingest", "--db", str(db), "--workdir", str(workdir)]).exit_code == 0
    (tmp_path / "cat.duckdb.wal").mkdir()  # the log's place is taken: DuckDB cannot write it
    trace = workdir / SESSION / "trace.jsonl"
    os.utime(trace, ns=(0, 0))  # changed: this ingest must write
    result = runner.invoke(app, ["ingest", "--db", str(db), "--workdir", str(workdir)])
    assert result.exit_code == 2 and len(result.stderr.splitlines()) == 1, result.output
    assert result.stderr.startswith("error[E-IO-003]: ")
    (tmp_path / "cat.duckdb.wal").rmdir()
    assert duckdb.connect(str(db), read_only=True).sql("FROM traces").fetchall()


def working(process: subprocess.Popen) -> None:
    """Wait until a command runs its own code: DuckDB's threads are up (a signal before
    that ends Python's start-up, which is not the command's to handle)."""
    tasks = Path(f"/proc/{process.pid}/task")
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and process.poll() is None:
        if not tasks.exists():  # no /proc: give it the time it takes here
            time.sleep(1.2)
            return
        if len(list(tasks.iterdir())) > 1:
            time.sleep(0.2)  # and into the load
            return
        time.sleep(0.02)


@pytest.mark.parametrize(
    ("stop", "status", "line"),
    [
        (signal.SIGINT, 130, "error[E-CLI-130]: interrupted"),
        # SIGTERM (`timeout`, a cancelled CI job) was said and exited as Ctrl-C: it is
        # `terminated`, 128 + 15, as a shell reports a process it ended
        (signal.SIGTERM, 143, "error[E-CLI-143]: terminated"),
    ],
    ids=["ctrl-c", "sigterm"],
)
def test_11_a_signal_is_one_line_and_its_exit_status(
    tmp_path: Path, stop: signal.Signals, status: int, line: str
) -> None:
    from mur_trace.synth import synthesize

    workdir = synthesize(tmp_path / "fleet", 400, seed=3)
    before = checksums(workdir)
    for command in (["redundant", "--policy", "context"], ["report"]):
        process = subprocess.Popen(
            [sys.executable, "-m", "mur_trace", *command, "--workdir", str(workdir)],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        working(process)
        process.send_signal(stop)
        _, err = process.communicate(timeout=60)
        if process.returncode == 0:  # finished before the signal: nothing to see
            continue
        assert process.returncode == status, err
        assert err == line + "\n", err
    assert checksums(workdir) == before


def test_12_since_takes_ascii_digits_only(workdir: Path) -> None:
    one_line(runner.invoke(app, ["report", "--since", "²h", "--workdir", str(workdir)]),
             "E-TRC-002", 2, "unrecognised --since")  # fmt: skip


def test_13_huge_counts_are_refused_and_sums_cannot_overflow(tmp_path: Path) -> None:
    trace = tmp_path / "t.jsonl"
    big = 2**53 - 1  # the largest accepted: sums and products of many stay in range
    calls = [
        event(event_type="tool_call", turn=t, tool_name="e", input={"path": "a"},
              state_effect="read", status="ok", output_bytes=big, duration_ms=big)
        for t in range(2, 40)
    ] + [event(event_type="inference", turn=40, input_tokens=big, output_tokens=big,
               decision="end_turn")]  # fmt: skip
    trace.write_text(whole_session(*calls))
    for command in (["show", str(trace)], ["report", str(trace)], ["loops", str(trace)],
                    ["check", str(trace), "--max-context-tokens", "1"],
                    ["redundant", "--policy", "context", str(trace)],
                    ["diff", str(trace), str(trace)],
                    ["export", "--parquet", str(tmp_path / "x"), str(trace)],
                    ["plot", "waste", str(trace), "-o", str(tmp_path / "w.png")]):  # fmt: skip
        result = runner.invoke(app, command)
        assert result.exit_code in (0, 1), (command, result.output)
    trace.write_text(whole_session(event(event_type="tool_call", output_bytes=2**53)))
    one_line(runner.invoke(app, ["show", str(trace)]), "E-TRC-001", 2,
             '"output_bytes" is not a count below 2^53')  # fmt: skip


def test_14_db_with_paths_that_match_nothing_is_an_error(tmp_path: Path, workdir: Path) -> None:
    db = tmp_path / "cat.duckdb"
    assert runner.invoke(app, ["ingest", "--db", str(db), "--workdir", str(workdir)]).exit_code == 0
    # a workdir, a session directory, a file: each narrows to what lies there
    check = runner.invoke(app, ["check", str(workdir), "--db", str(db), "--max-redundant", "0"])
    assert check.exit_code == 1 and "of 7 sessions over the thresholds" in check.stdout
    session_dir = runner.invoke(app, ["redundant", str(workdir / OTHER), "--db", str(db)])
    assert "total:      2 redundant calls in 1 of 1 session" in session_dir.stdout
    assert mur_trace.load([workdir / SESSION / "trace.jsonl"], db=db).session_count() == 1
    one_line(runner.invoke(app, ["check", str(tmp_path / "nope"), "--db", str(db),
                                 "--max-redundant", "0"]), "E-TRC-002")  # fmt: skip
    with pytest.raises(MurTraceError):
        mur_trace.load(str(tmp_path / "nope"), db=db)


def test_15_a_workdir_ingested_through_a_link_is_one_workdir(tmp_path: Path, workdir: Path):
    db = tmp_path / "cat.duckdb"
    (tmp_path / "link").symlink_to(workdir)
    first = runner.invoke(app, ["ingest", "--db", str(db), "--workdir", str(tmp_path / "link")])
    assert "7 new" in first.stdout
    again = runner.invoke(app, ["ingest", "--db", str(db), "--workdir", str(workdir)])
    assert "0 new, 0 appended, 0 rewritten, 7 unchanged, 0 deleted" in again.stdout
    found = runner.invoke(app, ["redundant", "--db", str(db)])
    assert "total:      19 redundant calls in 7 of 7 sessions" in found.stdout


@pytest.mark.parametrize(
    ("extra", "given"),
    [(["--session", "1eef"], "a path and --session"), (["other"], "2 paths given")],
)
def test_plot_timeline_says_why_it_names_no_one_session(
    workdir: Path, extra: list[str], given: str
) -> None:
    # a workdir and --session, which names one session of it, were told "name one"
    result = runner.invoke(app, ["plot", "timeline", str(workdir), *extra])
    assert result.exit_code == 2
    assert result.stderr == (
        f"error[E-CLI-001]: plot timeline draws one session ({given}): give its path, or "
        "--session with --workdir or --db\n"
    )


def test_16_plot_timeline_draws_the_session_it_is_given(tmp_path: Path, workdir: Path) -> None:
    from mur_trace import plot

    drawn = []
    original = plot.timeline
    try:
        plot.timeline = lambda trace: drawn.append(trace.session_count()) or original(trace)
        args = ["plot", "timeline", str(workdir / OTHER), "--workdir", str(workdir)]
        result = runner.invoke(app, [*args, "-o", str(tmp_path / "t.png")])
    finally:
        plot.timeline = original
    assert result.exit_code == 0, result.output
    assert drawn == [1]
    trace = mur_trace.load([workdir / OTHER])
    assert trace.sessions.select("session_id").fetchall() == [(OTHER,)]
    two = runner.invoke(app, ["plot", "timeline", str(workdir / OTHER), str(workdir / SESSION),
                              "-o", str(tmp_path / "u.png")])  # fmt: skip
    one_line(two, "E-CLI-001", 2, "one session")


def test_plot_timeline_writes_nothing_into_the_session_it_draws(workdir: Path) -> None:
    """`plot waste DIR -o DIR/w.png` was refused, the timeline of the same directory (or
    the session named by --session) written into it."""
    session = workdir / OTHER
    for args in ([str(session)], ["--workdir", str(workdir), "--session", OTHER[-4:]]):
        result = runner.invoke(app, ["plot", "timeline", *args, "-o", str(session / "t.png")])
        one_line(result, "E-IO-004", 2, "lies inside the input")
    assert sorted(p.name for p in session.iterdir()) == ["trace.jsonl"]


@pytest.mark.parametrize("kind", ["waste", "rate"])
def test_plot_of_every_session_refuses_a_session_option(workdir: Path, kind: str) -> None:
    # it drew the whole workdir, whatever --session named (a session or nothing)
    for named in (OTHER[-4:], "nosuchsession"):
        result = runner.invoke(app, ["plot", kind, "--workdir", str(workdir), "--session", named])
        one_line(result, "E-CLI-001", 2, "--session names the session of plot timeline")


def test_a_rule_both_chosen_and_left_out_is_refused(workdir: Path) -> None:
    # --no-rule won, whatever the order, without a word
    for order in (["--rule", "same_size", "--no-rule", "same_size"],
                  ["--no-rule", "same_size", "--rule", "same_size"]):  # fmt: skip
        for command in (["redundant", "--policy", "context"], ["loops"]):
            result = runner.invoke(app, [*command, "--workdir", str(workdir), *order])
            one_line(result, "E-CLI-001", 2, "--rule and --no-rule both name 'same_size'")


def test_17_a_workdir_given_as_the_session(workdir: Path) -> None:
    for command in ("show", "steps"):
        one_line(runner.invoke(app, [command, f"{workdir}/"]), "E-TRC-002", 2, "is a workdir")


def test_18_a_catalog_of_nothing_readable(tmp_path: Path) -> None:
    bad = tmp_path / "w" / SESSION / "trace.jsonl"
    bad.parent.mkdir(parents=True)
    bad.write_text("garbage\n")
    db = tmp_path / "cat.duckdb"
    one_line(runner.invoke(app, ["ingest", "--db", str(db), str(bad)]), "E-TRC-001")
    assert not db.exists()


def test_19_ingest_strict_commits_nothing(tmp_path: Path, workdir: Path) -> None:
    (workdir / "ses_01a2184366407007800000000000d889" / "trace.jsonl").write_text("garbage\n")
    db = tmp_path / "cat.duckdb"
    result = runner.invoke(app, ["ingest", "--db", str(db), "--workdir", str(workdir), "--strict"])
    assert result.exit_code == 2 and "(--strict)" in result.stderr
    if db.exists():
        import duckdb

        tables = duckdb.connect(str(db), read_only=True).sql("SHOW TABLES").fetchall()
        assert tables == []


def test_20_an_unreadable_path_among_good_ones_is_skipped(tmp_path: Path, workdir: Path,
                                                         monkeypatch) -> None:  # fmt: skip
    """As root nothing is unreadable: the refusal the file system would give is simulated."""
    secret = tmp_path / "secret" / SESSION / "trace.jsonl"
    secret.parent.mkdir(parents=True)
    secret.write_text(whole_session())
    real_stat = os.stat

    def stat(path, *args, **kwargs):
        if str(path).startswith(str(tmp_path / "secret")):
            raise PermissionError(13, "Permission denied", str(path))
        return real_stat(path, *args, **kwargs)

    monkeypatch.setattr(os, "stat", stat)
    result = runner.invoke(app, ["redundant", str(secret.parent), str(workdir / SESSION)])
    assert result.exit_code == 0, result.output
    assert result.stderr == (
        f"warning[E-IO-003]: failed to read {secret.parent}: Permission denied (skipped)\n"
    )
    one_line(runner.invoke(app, ["redundant", "--workdir", str(secret.parent.parent)]),
             "E-IO-003", 2, "Permission denied")  # fmt: skip
    one_line(runner.invoke(app, ["redundant", "--workdir", str(workdir),
                                 "--effects", str(secret)]), "E-IO-003")  # fmt: skip
    # a trace whose directory may be read but not the file itself: said as the system says
    # it for a directory (was `permission denied`, beside `Permission denied`)
    monkeypatch.setattr(os, "stat", real_stat)
    real_access = os.access
    monkeypatch.setattr(os, "access", lambda p, mode, *a, **k: (
        str(p) != str(secret) and real_access(p, mode, *a, **k)))  # fmt: skip
    real_open = os.open

    def refused_open(p, *a, **k):  # and the open it asks why (deleted, or refused)
        if str(p) == str(secret):
            raise PermissionError(13, "Permission denied", str(p))
        return real_open(p, *a, **k)

    monkeypatch.setattr(os, "open", refused_open)
    result = runner.invoke(app, ["redundant", str(secret), str(workdir / SESSION)])
    assert result.stderr == (
        f"warning[E-IO-003]: failed to read {secret}: Permission denied (skipped)\n"
    )


def test_21_22_37_one_meaning_for_a_path_in_every_command(tmp_path: Path) -> None:
    missing = ["show", "steps", "diff", "report", "redundant", "loops", "plot timeline"]
    for command in missing:
        args = [*command.split(), "--workdir", str(tmp_path / "nope")]
        if command.startswith("plot"):
            args += ["-o", str(tmp_path / "x.png")]
        one_line(runner.invoke(app, args), "E-IO-001", 2, "workdir not found")
    a_file = tmp_path / "file"
    a_file.write_text("")
    for command in missing:
        args = [*command.split(), "--workdir", str(a_file)]
        if command.startswith("plot"):
            args += ["-o", str(tmp_path / "x.png")]
        one_line(runner.invoke(app, args), "E-IO-003", 2, "not a directory")
    workdir = tmp_path / "wd2"
    (workdir / SESSION / "trace.jsonl").mkdir(parents=True)
    for command in ("show", "steps", "report", "redundant"):
        one_line(runner.invoke(app, [command, "--workdir", str(workdir)]), "E-IO-003",
                 2, "is a directory")  # fmt: skip
    loop = tmp_path / "loop"
    loop.symlink_to(loop)
    for command in ("show", "redundant"):
        one_line(runner.invoke(app, [command, "--workdir", str(loop)]), "E-IO-003")
    # ingest resolved what it was given with Path.resolve, which raises on a loop (a traceback)
    db = str(tmp_path / "c.duckdb")
    for args in (["--workdir", str(loop)], [str(loop)], [str(loop), "--rebuild"]):
        one_line(runner.invoke(app, ["ingest", "--db", db, *args]), "E-IO-003", 2,
                 "Too many levels of symbolic links")  # fmt: skip
    assert not os.path.lexists(db)


def test_23_diff_of_one_trace_spelled_twice(workdir: Path, monkeypatch) -> None:
    monkeypatch.chdir(workdir.parent)
    relative = f"wd/{SESSION}/trace.jsonl"
    for a, b in ((relative, str(workdir / SESSION / "trace.jsonl")),
                 (f"wd/{SESSION}", f"wd/{SESSION}")):  # fmt: skip
        result = runner.invoke(app, ["diff", a, b])
        assert result.exit_code == 0, result.output
        assert "redundant calls        2                2                =" in result.stdout


def test_26_check_max_rate_is_a_share(workdir: Path) -> None:
    for value in ("nan", "2", "-1"):
        one_line(runner.invoke(app, ["check", "--max-rate", value, "--workdir", str(workdir)]),
                 "E-CLI-001", 2, "--max-rate")  # fmt: skip
    # -0 is the share 0, and is said so (it printed `> -0.0`)
    zero = runner.invoke(app, ["check", "--max-rate", "-0", "--workdir", str(workdir)]).stdout
    assert " > 0.0\n" in zero and "-0" not in zero


def test_28_one_path_given_as_a_str_or_a_path(workdir: Path) -> None:
    for path, sessions in ((str(workdir), 7), (workdir, 7), (str(workdir / SESSION), 1)):
        assert mur_trace.load(path).session_count() == sessions
        assert mur_trace.find_redundant(path).sessions == sessions


def test_a_path_holding_wildcards_names_one_file(tmp_path: Path) -> None:
    """`*`, `?` and `[` in a path are characters of its name, never a pattern: DuckDB's
    readers took `ses_a*b/trace.jsonl` for one and read `ses_aXb` too."""
    again = event(event_type="tool_call", tool_name="editor", status="ok", turn=1,
                  input={"path": "src/a.rs"}, state_effect="read", output_bytes=10)  # fmt: skip
    workdir = tmp_path / "wd"
    # a backslash beside a wildcard: DuckDB's patterns never match such a name
    named = ("ses_a*b", "ses_a?c", "ses_[x]", "ses_b\\*c")
    # each decoy matches the pattern of one named session and reads src/a.rs once more
    for name, decoy in zip(named, ("ses_aXb", "ses_aYc", "ses_x", "ses_bXc"), strict=True):
        for session, middle in ((name, ()), (decoy, (again,))):
            (workdir / session).mkdir(parents=True)
            (workdir / session / "trace.jsonl").write_text(whole_session(*middle, sid=session))
    # spelled with `..` too: a pattern's match comes back from DuckDB respelt
    spellings = [str(workdir / name / "trace.jsonl") for name in named]
    spellings.append(str(workdir / "ses_aXb" / ".." / "ses_a*b" / "trace.jsonl"))
    for name, path in zip((*named, "ses_a*b"), spellings, strict=True):
        for policy in ("reference", "context"):
            result = runner.invoke(app, ["redundant", "--policy", policy, "-f", "jsonl", path])
            assert result.exit_code == 0, result.output
            rows = [json.loads(line) for line in result.stdout.splitlines()]
            # its own trace only: the second read of src/a.rs (line 4) repeats line 3
            assert [(r["trace_path"], r["line"], r["prior_line"]) for r in rows] == [
                (path, 4, 3)
            ], (policy, rows)
        shown = runner.invoke(app, ["show", path])
        assert shown.exit_code == 0, shown.output
        assert f"session:    {name}" in shown.stdout
    # the whole workdir: each trace read once, under its own name
    result = runner.invoke(app, ["redundant", "-f", "jsonl", "--workdir", str(workdir)])
    sessions = [
        Path(json.loads(line)["trace_path"]).parent.name for line in result.stdout.splitlines()
    ]
    counts = {name: sessions.count(name) for name in sessions}
    assert counts == {"ses_a*b": 1, "ses_a?c": 1, "ses_[x]": 1, "ses_b\\*c": 1, "ses_aXb": 2,
                      "ses_aYc": 2, "ses_x": 2, "ses_bXc": 2}  # fmt: skip


@pytest.mark.parametrize("third", ["ses_3", "ses_3*x"])
def test_a_trace_deleted_while_it_is_read_takes_no_other_trace_s_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, third: str
) -> None:
    """A file deleted after its check and before its read: DuckDB's reader passes over it
    and numbers the files after it without it. The quick reading gave the next trace's
    findings under its path too and named it nowhere; loading called it empty, and gave a
    path holding a wildcard, named by its position, the findings of the trace after it."""
    names = ["ses_0", "ses_1", "ses_2", third, "ses_4", "ses_5", "ses_6", "ses_7"]
    paths = []
    for name in names:
        (tmp_path / name).mkdir()
        # the tool calls name their session: the quick reading reads them
        read = {"event_type": "tool_call", "session_id": name, "tool_name": "editor",
                "status": "ok", "input": {"path": f"src/{name}.rs"},
                "state_effect": "read"}  # fmt: skip
        lines = [{"event_type": "session_start", "session_id": name},
                 {**read, "turn": 0}, {**read, "turn": 1},
                 {"event_type": "session_end", "exit_status": "ok"}]  # fmt: skip
        (tmp_path / name / "trace.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
        paths.append(str(tmp_path / name / "trace.jsonl"))
    # read in four parts of two files: the third file is the first of the second part
    victim = paths[2]
    kept = Path(victim).read_text()
    detect = mur_trace.formats.detect

    def detect_then_delete(path: str) -> str | None:
        found = detect(path)
        if path == paths[-1] and os.path.exists(victim):
            os.remove(victim)  # every file has been checked: the read is next
        return found

    monkeypatch.setattr(mur_trace.formats, "detect", detect_then_delete)
    for policy in ("reference", "context"):
        Path(victim).write_text(kept)
        result = runner.invoke(app, ["redundant", "--policy", policy, "-f", "jsonl", *paths])
        assert result.exit_code == 0, result.output
        rows = [json.loads(line) for line in result.stdout.splitlines()]
        # each trace re-reads its own src/<name>.rs at line 3 (line 2 read it): the seven left
        expected = [(p, f"src/{n}.rs", 3, 2) for n, p in zip(names, paths, strict=True)]
        del expected[2]
        found = [(r["trace_path"], r["resource"], r["line"], r["prior_line"]) for r in rows]
        assert sorted(found) == sorted(expected), (policy, found)
        assert result.stderr.splitlines() == [
            f"warning[E-IO-001]: trace file not found: {victim} (skipped)"
        ], (policy, result.stderr)


def test_29_a_path_of_ten_thousand_segments(tmp_path: Path) -> None:
    path = "a/" * 10_000 + "b.rs"
    reads = [event(event_type="tool_call", turn=t, tool_name="e", input={"path": path},
                   state_effect="read", status="ok") for t in range(2, 5)]  # fmt: skip
    trace = tmp_path / "t.jsonl"
    trace.write_text(whole_session(*reads))
    started = time.monotonic()
    result = runner.invoke(app, ["redundant", "--policy", "context", "-f", "csv", str(trace)])
    assert result.exit_code == 0, result.output
    assert len(result.stdout.splitlines()) == 1 + 3  # header, src/a.rs, the two long re-reads
    assert time.monotonic() - started < 60  # a hang guard, not a speed check


def test_30_pipes_and_devices_as_effects_files_and_catalogs(tmp_path: Path, workdir: Path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    wd = ["--workdir", str(workdir)]
    for args, code in ((["redundant", *wd, "--effects", str(fifo)], "E-IO-003"),
                       (["redundant", *wd, "--effects", "/dev/zero"], "E-IO-003"),
                       (["redundant", "--db", str(fifo)], "E-IO-003"),
                       (["ingest", "--db", str(fifo), *wd], "E-IO-003")):  # fmt: skip
        result = subprocess.run([sys.executable, "-m", "mur_trace", *args],
                                capture_output=True, text=True, timeout=60)  # fmt: skip
        assert result.returncode == 2, (args, result.stderr)
        assert result.stderr.startswith(f"error[{code}]: ") and "Traceback" not in result.stderr


def test_31_messages_with_db_name_the_catalog(tmp_path: Path, workdir: Path) -> None:
    db = tmp_path / "cat.duckdb"
    assert runner.invoke(app, ["ingest", "--db", str(db), "--workdir", str(workdir)]).exit_code == 0
    line = one_line(runner.invoke(app, ["show", "@9", "--db", str(db)]), "E-TRC-002")
    assert f"catalog {db} has 7 sessions" in line and "workdir" not in line


def test_33_control_characters_cannot_forge_output(tmp_path: Path) -> None:
    hostile = "src/\x1b[31mred\x1b[0m\ntotal:      0 redundant calls in 0 of 1 session"
    reads = [event(event_type="tool_call", turn=t, tool_name="ed\rit", input={"path": hostile},
                   state_effect="read", status="ok") for t in range(2, 4)]  # fmt: skip
    trace = tmp_path / "t.jsonl"
    trace.write_text(whole_session(*reads))
    commands = [
        ["redundant", str(trace)],
        ["show", str(trace)],
        ["steps", "-v", str(trace)],
        ["loops", str(trace)],
        ["redundant", "--policy", "context", str(trace)],
    ]
    for command in commands:
        out = runner.invoke(app, command).stdout
        assert "\x1b" not in out and "\r" not in out, command
        # the forged line stays inside its own: no line of output begins with it
        forged = "total:      0 redundant calls in 0 of 1 session"
        assert [line for line in out.splitlines() if line.startswith(forged)] == []
    assert "\\u001b[31mred" in runner.invoke(app, ["redundant", str(trace)]).stdout
    # a C1 control character (U+009B, the one-character CSI) too
    c1 = [event(event_type="tool_call", turn=t, tool_name="ed\u009b2Jit", input={"path": "a"},
                state_effect="read", status="ok") for t in range(2, 4)]  # fmt: skip
    trace.write_text(whole_session(*c1))
    out = runner.invoke(app, ["redundant", str(trace)]).stdout
    assert "\u009b" not in out and "ed\\u009b2Jit" in out


def test_33_a_name_cannot_forge_a_line_of_an_error(tmp_path: Path, workdir: Path) -> None:
    # a line break in an argument, a session's name or a key of the effects file reached
    # stderr as it was: the rest of the name printed as an error line of its own
    forged = "error[E-FAKE-000]: forged"
    result = runner.invoke(app, ["redundant", f"nope\n{forged}"])
    assert result.stderr == f"error[E-IO-001]: trace file not found: nope\\n{forged}\n"
    hostile = tmp_path / "hostile"
    hostile.mkdir()
    for name in ("ses_a", "ses_b"):  # both end with the suffix asked for
        shutil.copytree(next(workdir.glob("ses_*")), hostile / f"{name}\n{forged} zz")
    result = runner.invoke(app, ["show", "zz", "--workdir", str(hostile)])
    assert result.exit_code != 0
    assert result.stderr.splitlines() == [
        "error[E-TRC-002]: ambiguous: 'zz' matches 2 sessions — provide more characters",
        f"  ses_a\\n{forged} zz",
        f"  ses_b\\n{forged} zz",
    ]
    effects = tmp_path / "nl.toml"
    effects.write_text('[effects]\n"a\\nb" = "read"\n')
    result = runner.invoke(
        app, ["redundant", "--policy", "context", "--effects", str(effects), str(workdir)]
    )
    one_line(result, "E-CFG-002")
    assert "effects.a\\nb must be" in result.stderr


def test_34_show_of_a_bare_session_start(tmp_path: Path) -> None:
    trace = tmp_path / "t.jsonl"
    trace.write_text(
        event(event_type="session_start", session_id=SESSION) + "\n"
        + event(event_type="session_end", total_turns=0) + "\n"
    )  # fmt: skip
    out = runner.invoke(app, ["show", str(trace)]).stdout
    assert "None" not in out
    assert "capsule:    —\n" in out and "model:      —\n" in out


def test_35_report_names_where_its_sessions_came_from(tmp_path: Path, workdir: Path) -> None:
    tiny = tmp_path / "tiny"
    tiny.mkdir()
    out = runner.invoke(app, ["report", str(workdir / SESSION), "--workdir", str(tiny)]).stdout
    assert f"Sessions: 1  ({workdir})" in out
    # another agent's session file, with its two subagents: that file (before, its folder)
    claude = Path(__file__).parent / "fixtures" / "real" / "claude-code"
    session = claude / "marot_spotter__4d5611e5-241a-462a-8d15-5122611a9569.jsonl"
    out = runner.invoke(app, ["report", str(session)]).stdout
    assert f"Sessions: 3  ({session})" in out
    # a Murmur trace under another name is still its folder's
    run = tmp_path / "runs" / "run1.jsonl"
    run.parent.mkdir()
    run.write_bytes((workdir / SESSION / "trace.jsonl").read_bytes())
    assert f"Sessions: 1  ({run.parent})" in runner.invoke(app, ["report", str(run)]).stdout


def test_36_a_catalog_path_with_a_backslash(tmp_path: Path, workdir: Path) -> None:
    (tmp_path / "back\\slash").mkdir()
    db = tmp_path / "back\\slash" / "cat.duckdb"
    one_line(runner.invoke(app, ["ingest", "--db", str(db), "--workdir", str(workdir)]),
             "E-IO-003", 2, "backslash")  # fmt: skip
    assert list((tmp_path / "back\\slash").iterdir()) == []


# ── a fuzzer over command lines ──────────────────────────────────────────────


@pytest.fixture(scope="module")
def playground(tmp_path_factory) -> Path:
    """A directory of hostile and ordinary paths the fuzzer draws from."""
    root = tmp_path_factory.mktemp("playground")
    sample = Path(__file__).resolve().parent.parent / "sample_traces" / "workdir"
    shutil.copytree(sample, root / "wd")
    (root / "empty").mkdir()
    (root / "garbage.jsonl").write_bytes(b"\x00\xff{not json\n")
    (root / "loop").symlink_to(root / "loop")
    (root / "link.jsonl").symlink_to(root / "wd" / SESSION / "trace.jsonl")
    os.mkfifo(root / "fifo")
    (root / "a dir with spaces").mkdir()
    (root / "effects.toml").write_text('[editor]\neffect = "read"\n')
    (root / "bad.toml").write_text("[[[")
    return root


PATHS = ["wd", f"wd/{SESSION}", f"wd/{SESSION}/trace.jsonl", "empty", "garbage.jsonl", "loop",
         "link.jsonl", "fifo", "a dir with spaces", "missing", "/dev/null", "effects.toml",
         "bad.toml", "", "."]  # fmt: skip
OPTIONS = [["--policy", "context"], ["--policy", "nope"], ["-f", "csv"], ["-f", "jsonl"],
           ["-f", "parquet"], ["-f", "json"], ["--strict"], ["--no-rule", "failed_calls"],
           ["--rule", "bogus"], ["--window", "-1"], ["--last", "0"], ["--since", "1x"],
           ["--max-redundant", "-3"], ["--max-rate", "0.5"], ["--rebuild"],
           ["--partition-by", "capsule"], ["--format-in", "nope"]]  # fmt: skip
TAKES_PATH = ["--workdir", "--db", "--effects", "-o", "--parquet", "--session"]


@settings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    command=st.sampled_from(
        [
            "redundant",
            "loops",
            "check",
            "show",
            "steps",
            "diff",
            "report",
            "ingest",
            "export",
            "plot waste",
            "plot timeline",
        ]
    ),  # fmt: skip
    positional=st.lists(st.sampled_from(PATHS), max_size=2),
    options=st.lists(st.sampled_from(OPTIONS), max_size=2),
    with_path=st.lists(st.tuples(st.sampled_from(TAKES_PATH), st.sampled_from(PATHS)), max_size=2),
)
def test_fuzzed_command_lines(playground, command, positional, options, with_path) -> None:
    before = checksums(playground)
    args = [*command.split(), *positional]
    for option in options:
        args += option
    for flag, path in with_path:
        args += [flag, path]
    result = subprocess.run(
        [sys.executable, "-m", "mur_trace", *args], cwd=playground, capture_output=True,
        text=True, timeout=60,
    )  # fmt: skip
    assert "Traceback" not in result.stderr, (args, result.stderr)
    assert result.returncode in (0, 1, 2), (args, result.returncode, result.stderr)
    if result.returncode == 2:
        errors = [line for line in result.stderr.splitlines() if line.startswith("error[")]
        assert len(errors) == 1, (args, result.stderr)
    # what the command may have created aside, the inputs are unchanged
    after = checksums(playground)
    assert {k: v for k, v in after.items() if k in before} == before, args
    for created in set(after) - set(before):
        Path(created).unlink()


# ── a second hostile pass ────────────────────────────────────────────────────


def test_an_output_that_is_a_trace_found_deep_inside_the_inputs(tmp_path: Path) -> None:
    real = Path(__file__).resolve().parent / "fixtures" / "real" / "claude-code"
    session = next(real.glob("marot_spotter__*.jsonl"))
    project = tmp_path / "projects" / "p"
    project.mkdir(parents=True)
    shutil.copy(session, project / "s.jsonl")
    shutil.copytree(session.with_suffix(""), project / "s")
    subagent = next((project / "s" / "subagents").glob("*.jsonl"))
    os.link(project / "s.jsonl", tmp_path / "out.txt")
    before = checksums(tmp_path / "projects")
    one_line(runner.invoke(app, ["redundant", str(project / "s.jsonl"), "-o", str(subagent)]),
             "E-IO-004", 2, "it is the input trace")  # fmt: skip
    one_line(runner.invoke(app, ["redundant", str(tmp_path / "projects"), "-f", "csv",
                                 "-o", str(tmp_path / "out.txt")]), "E-IO-004")  # fmt: skip
    assert checksums(tmp_path / "projects") == before


def test_a_database_with_tables_only_outside_main_is_not_a_catalog(tmp_path, workdir) -> None:
    import duckdb

    db = tmp_path / "theirs.duckdb"
    con = duckdb.connect(str(db))
    con.execute("CREATE SCHEMA analytics")
    con.execute("CREATE TABLE analytics.sales (a INTEGER)")
    con.close()
    before = db.read_bytes()
    for extra in ([], ["--rebuild"]):
        result = runner.invoke(app, ["ingest", "--db", str(db), "--workdir", str(workdir), *extra])
        assert result.exit_code == 2 and "not a mur-trace catalog" in result.stderr
    assert db.read_bytes() == before


def test_files_added_to_an_output_directory_are_never_deleted(tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert runner.invoke(app, ["synth", str(out), "--sessions", "2"]).exit_code == 0
    (out / "workdir" / "NOTES.md").write_text("mine")
    one_line(runner.invoke(app, ["synth", str(out), "--sessions", "3"]), "E-IO-004")
    assert (out / "workdir" / "NOTES.md").read_text() == "mine"


def test_a_quote_in_a_catalog_file_name_is_data(tmp_path: Path, workdir: Path) -> None:
    db = tmp_path / "x\" WHERE true; COPY (SELECT 42) TO 'injected' (FORMAT csv); --.duckdb"
    assert runner.invoke(app, ["ingest", "--db", str(db), "--workdir", str(workdir)]).exit_code == 0
    result = runner.invoke(app, ["redundant", str(workdir / SESSION), "--db", str(db)])
    assert result.exit_code == 0, result.output
    assert "total:      2 redundant calls in 1 of 1 session" in result.stdout
    assert not (Path.cwd() / "injected").exists() and not (tmp_path / "injected").exists()


def test_shell_calls_with_no_exit_code_beside_failed_ones(tmp_path: Path) -> None:
    calls = [
        event(event_type="tool_call", turn=2, tool_name="bash", input={"command": "ls"},
              status="ok"),
        event(event_type="shell", turn=2, binary="/usr/bin/bash", command="ls"),
        event(event_type="tool_call", turn=3, tool_name="bash", input={"command": "false"},
              status="ok"),
        event(event_type="shell", turn=3, binary="/usr/bin/bash", command="false", exit_code=1),
    ]  # fmt: skip
    end = {"event_type": "session_end", "total_turns": 4, "total_shell_calls": 2,
           "exit_status": "ok"}  # fmt: skip
    trace = tmp_path / "t.jsonl"
    trace.write_text(whole_session(*calls, end=end))
    show = runner.invoke(app, ["show", str(trace)])
    assert "exit codes: 1 failed (exit 1), 1 with no exit code" in show.stdout, show.output
    assert runner.invoke(app, ["report", str(trace)]).exit_code == 0


def test_dollars_in_resource_names_are_drawn_as_text(tmp_path: Path) -> None:
    reads = [event(event_type="tool_call", turn=t, tool_name="e", state_effect="read",
                   input={"path": "${HOME}/notes_${USER}.txt"}, status="ok")
             for t in range(2, 4)]  # fmt: skip
    trace = tmp_path / "t.jsonl"
    trace.write_text(whole_session(*reads))
    for kind in ("waste", "timeline"):
        result = runner.invoke(app, ["plot", kind, str(trace), "-o", str(tmp_path / f"{kind}.png")])
        assert result.exit_code == 0, result.output


def test_an_integer_past_pythons_digit_limit_in_an_input(tmp_path: Path) -> None:
    huge = "9" * 5000
    call = '{"event_type":"tool_call","turn":2,"tool_name":"x","status":"ok","input":{"n":'
    turn = event(event_type="inference", turn=2, decision="tool_call", tool_name="x")
    trace = tmp_path / "t.jsonl"
    trace.write_text(whole_session(turn, call + huge + ',"s":"text"}}'))
    for command in (["steps", "-v", str(trace)], ["show", str(trace)]):
        assert runner.invoke(app, command).exit_code == 0, command


def test_a_terminal_that_cannot_show_every_character(tmp_path: Path) -> None:
    reads = [event(event_type="tool_call", turn=t, tool_name="é", state_effect="read",
                   input={"path": "src/ñ.rs"}, status="ok") for t in range(2, 4)]  # fmt: skip
    trace = tmp_path / "t.jsonl"
    trace.write_text(whole_session(*reads))
    env = {**os.environ, "PYTHONIOENCODING": "ascii"}
    for command in (["show", str(trace)], ["redundant", str(trace)], ["report", str(trace)]):
        result = subprocess.run([sys.executable, "-m", "mur_trace", *command], env=env,
                                capture_output=True, timeout=120)  # fmt: skip
        assert result.returncode == 0, result.stderr
        assert b"Traceback" not in result.stderr


def test_a_closed_standard_output(workdir: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "mur_trace", "redundant", "--workdir", str(workdir)],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, timeout=120,
        preexec_fn=lambda: os.close(1),
    )  # fmt: skip
    assert (
        result.returncode == 2 and result.stderr == "error[E-IO-003]: standard output is closed\n"
    )


def test_a_catalog_whose_tables_were_changed(tmp_path: Path, workdir: Path) -> None:
    import duckdb

    db = tmp_path / "cat.duckdb"
    assert runner.invoke(app, ["ingest", "--db", str(db), "--workdir", str(workdir)]).exit_code == 0
    con = duckdb.connect(str(db))
    con.execute("ALTER TABLE events DROP COLUMN turn")
    con.close()
    for command in (["show", "--db", str(db)], ["report", "--db", str(db)]):
        one_line(runner.invoke(app, command), "E-IO-003")


def test_an_effects_file_nested_too_deep_or_with_a_bom(tmp_path: Path, workdir: Path) -> None:
    deep = tmp_path / "deep.toml"
    deep.write_text("a = " + "[" * 100_000 + "]" * 100_000 + "\n")
    one_line(runner.invoke(app, ["redundant", "--workdir", str(workdir), "--policy", "context",
                                 "--effects", str(deep)]), "E-CFG-002")  # fmt: skip
    bom = tmp_path / "bom.toml"
    bom.write_bytes(b'\xef\xbb\xbf[editor]\neffect = "read"\n')
    result = runner.invoke(app, ["redundant", "--workdir", str(workdir), "--effects", str(bom)])
    assert result.exit_code == 0, result.output
    # the reference policy reads no effects file: said, as for --rule (before, silence)
    assert result.stderr == (
        "warning: --effects declares effects for the context policy; the reference policy "
        "reads only what tools declared, and ignores it (add --policy context)\n"
    )
    # not UTF-8: said as a trace's bytes are (before, Python's codec error)
    latin = tmp_path / "latin.toml"
    latin.write_bytes(b'[editor]\neffect = "r\xe9ad"\n')
    result = runner.invoke(app, ["redundant", "--workdir", str(workdir), "--policy", "context",
                                 "--effects", str(latin)])  # fmt: skip
    assert result.exit_code == 2
    assert (
        result.stderr
        == f"error[E-IO-003]: failed to read {latin}: not valid UTF-8 text (byte 20)\n"
    )


def test_one_command_naming_ten_thousand_files(tmp_path: Path) -> None:
    files = " ".join(f"f{i}.txt" for i in range(5000))
    calls = []
    for turn in (2, 3):
        calls += [
            event(event_type="tool_call", turn=turn, tool_name="bash",
                  input={"command": f"cat {files}"}, status="ok"),
            event(event_type="shell", turn=turn, binary="/usr/bin/bash", command=f"cat {files}",
                  exit_code=0),
        ]  # fmt: skip
    trace = tmp_path / "t.jsonl"
    trace.write_text(whole_session(*calls))
    wrapper = (
        "import resource, subprocess, sys; "
        "r = subprocess.run(sys.argv[1:], capture_output=True); "
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)"
    )
    for command in (["redundant", "--policy", "context"], ["loops"]):
        result = subprocess.run(
            [sys.executable, "-c", wrapper, sys.executable, "-m", "mur_trace", *command,
             str(trace)], capture_output=True, text=True, timeout=300,
        )  # fmt: skip
        assert int(result.stdout) < 600_000, (command, result.stdout)  # KB: linear, not square


def test_a_directory_that_is_not_a_workdir_is_searched_a_few_levels_deep(tmp_path: Path):
    deep = tmp_path / "a" / "b" / "c" / "d" / "e" / "f" / "g"
    deep.mkdir(parents=True)
    (deep / "s.jsonl").write_text(whole_session())
    one_line(runner.invoke(app, ["redundant", str(tmp_path / "a")]), "E-TRC-002")
    shallow = tmp_path / "x" / "y"
    shallow.mkdir(parents=True)
    (shallow / "s.jsonl").write_text(whole_session())
    result = runner.invoke(app, ["redundant", str(tmp_path / "x")])
    assert "1 redundant call in 1 of 1 session" in result.stdout, result.output


def test_a_trace_still_being_written_is_ingested_once(tmp_path: Path, workdir: Path, monkeypatch):
    from mur_trace import catalog

    trace = workdir / SESSION / "trace.jsonl"
    full = trace.read_bytes()
    cut = full[: full.index(b"\n", len(full) // 2) + 1]  # what the state was taken from
    real_state = catalog._state

    def state_of_the_first_half(path):  # the file grows after its state was taken
        state, data = real_state(path)
        if path.endswith(f"{SESSION}/trace.jsonl"):
            import hashlib

            state = catalog._FileState(len(cut), state.mtime_ns, cut.count(b"\n"),
                                       hashlib.sha256(cut).hexdigest(), True)  # fmt: skip
            data = cut
        return state, data

    db = tmp_path / "cat.duckdb"
    monkeypatch.setattr(catalog, "_state", state_of_the_first_half)
    assert runner.invoke(app, ["ingest", "--db", str(db), "--workdir", str(workdir)]).exit_code == 0
    monkeypatch.setattr(catalog, "_state", real_state)
    os.utime(trace, ns=(1, 1))
    again = runner.invoke(app, ["ingest", "--db", str(db), "--workdir", str(workdir)])
    assert "1 appended" in again.stdout, again.output
    events = mur_trace.load([trace], db=db).events.count("*").fetchall()[0][0]
    assert events == mur_trace.load([trace]).events.count("*").fetchall()[0][0]


def test_a_catalog_of_other_agents_sessions_keeps_each(tmp_path: Path) -> None:
    real = Path(__file__).resolve().parent / "fixtures" / "real" / "claude-code"
    project = tmp_path / "project"
    project.mkdir()
    for session in real.glob("*.jsonl"):
        shutil.copy(session, project / session.name)
    db = tmp_path / "cat.duckdb"
    assert runner.invoke(app, ["ingest", "--db", str(db), str(project)]).exit_code == 0
    report = runner.invoke(app, ["report", "--db", str(db)])
    assert f"Sessions: 3  ({db})" in report.stdout, report.output


# ── a third hostile pass ─────────────────────────────────────────────────────


def test_spark_output_never_replaces_what_it_did_not_write(tmp_path: Path, workdir: Path) -> None:
    """`spark ... -o` once replaced any directory it was given (Spark's overwrite mode deletes
    it first): the export it reads, a directory of someone's files, a file. Each is refused
    before Spark starts, as every other write is."""
    export = tmp_path / "export"
    assert runner.invoke(app, ["export", "--parquet", str(export), str(workdir)]).exit_code == 0
    theirs = tmp_path / "theirs"
    theirs.mkdir()
    (theirs / "notes.txt").write_text("mine")
    (tmp_path / "file.txt").write_text("mine too")
    before = checksums(tmp_path)
    for command in ("redundant", "loops"):
        for output, reason in (
            (theirs, "holds files this command did not write"),
            (export, "it is the input"),
            (tmp_path, "it contains the input"),
            (export / "events", "it lies inside the input"),
            (tmp_path / "file.txt", "it is not a directory"),
        ):
            result = runner.invoke(app, ["spark", command, str(export), "-o", str(output)])
            one_line(result, "E-IO-004", 2, reason)
            assert checksums(tmp_path) == before, (command, output)
    effects = tmp_path / "effects.toml"
    effects.write_text('[editor]\neffect = "read"\n')
    result = runner.invoke(app, ["spark", "redundant", str(export), "--policy", "context",
                                 "--effects", str(effects), "-o", str(effects)])  # fmt: skip
    one_line(result, "E-IO-004", 2, "it is the input")


def test_a_parquet_output_that_is_a_pipe_nobody_reads(tmp_path: Path, workdir: Path) -> None:
    """`-f parquet -o FIFO` blocked forever in opening the pipe (and SIGTERM could not end it);
    it is refused as the text formats' pipe is, and a pipe that is read gets the table."""
    fifo = tmp_path / "findings.parquet"
    os.mkfifo(fifo)
    for command in ("redundant", "loops"):
        result = subprocess.run(
            [sys.executable, "-m", "mur_trace", command, str(workdir), "-f", "parquet",
             "-o", str(fifo)], capture_output=True, text=True, timeout=60,
        )  # fmt: skip
        assert result.returncode == 2, result.stderr
        assert result.stderr == f"error[E-IO-003]: cannot write {fifo}: no process reads it\n"
    reader = subprocess.Popen(["cat", str(fifo)], stdout=subprocess.PIPE)
    result = subprocess.run(
        [sys.executable, "-m", "mur_trace", "redundant", str(workdir), "-f", "parquet",
         "-o", str(fifo)], capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    data, _ = reader.communicate(timeout=60)
    assert result.returncode == 0, result.stderr
    import pyarrow as pa
    import pyarrow.parquet as pq

    assert pq.read_table(pa.BufferReader(data)).num_rows == 19  # the sample's findings


@pytest.mark.parametrize("name", ["x.jsonl", "rollout-1.jsonl", "output.jsonl", "a.traj"])
def test_a_pipe_of_any_name_is_never_opened(tmp_path: Path, workdir: Path, name: str) -> None:
    """A pipe named like another agent's log was opened to recognise its format, and
    `redundant` blocked forever; it is `not a regular file`, by every command, alone or
    among good traces."""
    fifo = tmp_path / name
    os.mkfifo(fifo)
    for args in (["redundant", str(fifo)], ["redundant", "--policy", "context", str(fifo)],
                 ["loops", str(fifo)], ["show", str(fifo)], ["report", str(fifo)],
                 ["ingest", "--db", str(tmp_path / "c.duckdb"), str(fifo)],
                 ["export", "--parquet", str(tmp_path / "out"), str(fifo)]):  # fmt: skip
        result = subprocess.run([sys.executable, "-m", "mur_trace", *args],
                                capture_output=True, text=True, timeout=60)  # fmt: skip
        one = [line for line in result.stderr.splitlines() if line.startswith("error[")]
        assert result.returncode == 2 and len(one) == 1, (args, result.stderr)
        assert one[0].endswith(f"{fifo}: not a regular file"), (args, one)
    result = subprocess.run(
        [sys.executable, "-m", "mur_trace", "redundant", str(workdir), str(fifo)],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "total:      19 redundant calls in 7 of 7 sessions" in result.stdout
    assert "not a regular file (skipped)" in result.stderr


@pytest.mark.parametrize(
    "statement",
    [
        "CREATE MACRO twice(x) AS x * 2",
        "CREATE MACRO one() AS TABLE SELECT 1",
        "CREATE SEQUENCE ids",
        "CREATE SCHEMA analytics",
        "CREATE TYPE mood AS ENUM ('calm', 'busy')",
    ],
)
def test_a_database_of_macros_sequences_schemas_or_types_is_not_a_catalog(
    tmp_path: Path, workdir: Path, statement: str
) -> None:
    """A DuckDB file holding no table or view, but what someone made in it, was taken for an
    empty catalog and written."""
    import duckdb

    db = tmp_path / "theirs.duckdb"
    con = duckdb.connect(str(db))
    con.execute(statement)
    con.close()
    before = db.read_bytes()
    for extra in ([], ["--rebuild"]):
        result = runner.invoke(app, ["ingest", "--db", str(db), "--workdir", str(workdir), *extra])
        assert result.exit_code == 2 and "not a mur-trace catalog" in result.stderr, result.output
    assert db.read_bytes() == before
    assert not Path(f"{db}.wal").exists()


@pytest.mark.parametrize("kind", ['["user"]', '{"a": 1}', "[]"])
def test_a_first_line_whose_type_is_not_text(tmp_path: Path, kind: str) -> None:
    """A log whose first line has a `type` that is a list or an object stopped format
    recognition with a traceback; it is read as a Murmur trace, whose loader says why not."""
    trace = tmp_path / "odd.jsonl"
    trace.write_text('{"type": ' + kind + ', "x": 1}\n')
    for args in (["redundant", str(trace)], ["loops", str(trace)], ["show", str(trace)],
                 ["ingest", "--db", str(tmp_path / "c.duckdb"), str(trace)]):  # fmt: skip
        one_line(runner.invoke(app, args), "E-TRC-001", 2, 'no "event_type"')
    with pytest.raises(MurTraceError, match="E-TRC-001"):
        mur_trace.load([trace])


@pytest.mark.parametrize("ordinal", ["@1_0", "@١", "@ 1", "@1 "])
def test_an_ordinal_is_written_in_ascii_digits(workdir: Path, ordinal: str) -> None:
    """`@1_0` was read as @10 and `@١` (an Arabic-Indic one) as @1, as Python's int() reads
    them; `mur trace` knows ASCII digits only."""
    result = runner.invoke(app, ["show", ordinal, "--workdir", str(workdir)])
    one_line(result, "E-TRC-002", 2, f"invalid ordinal '{ordinal}'")


# ── a fourth pass's leftovers ────────────────────────────────────────────────


def test_a_trace_given_as_the_catalog_is_not_a_duckdb_file(tmp_path: Path, workdir: Path) -> None:
    trace = next(workdir.glob("ses_*/trace.jsonl"))
    copy = tmp_path / "copy.jsonl"  # not an input of the ingest (that is E-IO-004)
    shutil.copy(trace, copy)
    empty = tmp_path / "empty.duckdb"
    empty.touch()
    before = checksums(tmp_path)
    for args in (["redundant", "--db", str(trace)], ["show", "--db", str(trace)],
                 ["ingest", "--db", str(copy), "--workdir", str(workdir)],
                 ["ingest", "--db", str(empty), "--workdir", str(workdir)]):  # fmt: skip
        one_line(runner.invoke(app, args), "E-IO-003", 2, "not a DuckDB database file")
    assert checksums(tmp_path) == before


def test_a_catalog_cut_short_is_said_to_be(tmp_path: Path, workdir: Path) -> None:
    """A catalog copied or written only in part: each cut is read as the whole catalog
    (DuckDB never reads what was cut) or is one E-IO-003 line saying the catalog is cut
    short, with its size, and the file is left as it was; an ingest into it changes
    nothing either. Before, DuckDB's words (`IO Error: Could not read enough bytes from
    file "/abs/path"…`) or, for a cut in the middle, "not a mur-trace catalog"."""
    db = tmp_path / "whole.duckdb"
    ingest = ["ingest", "--workdir", str(workdir), "--db"]
    assert runner.invoke(app, [*ingest, str(db)]).exit_code == 0
    whole = runner.invoke(app, ["redundant", "--db", str(db)]).stdout
    data = db.read_bytes()
    cut = tmp_path / "cut.duckdb"
    said = []
    for size in (100, 5_000, len(data) // 4, len(data) // 2):
        cut.write_bytes(data[:size])
        result = runner.invoke(app, ["redundant", "--db", str(cut)])
        if result.exit_code == 0:
            assert result.stdout == whole
        else:
            said.append(one_line(result, "E-IO-003", 2, f"is cut short: it holds {size:,} bytes"))
            one_line(runner.invoke(app, [*ingest, str(cut)]), "E-IO-003", 2, "is cut short")
        assert cut.read_bytes() == data[:size]
        assert sorted(p.name for p in tmp_path.iterdir()) == ["cut.duckdb", "wd", "whole.duckdb"]
    assert said[:2] == [
        f"error[E-IO-003]: catalog {cut} is cut short: it holds 100 bytes, and DuckDB looked "
        "for bytes 100 to 4,096 of it",
        f"error[E-IO-003]: catalog {cut} is cut short: it holds 5,000 bytes, and DuckDB looked "
        "for bytes 5,000 to 8,192 of it",
    ]


def test_rules_are_switched_by_booleans_only(workdir: Path) -> None:
    with pytest.raises(TypeError, match="True or False"):
        mur_trace.load(workdir=workdir, rules={"same_size": "no"})


def test_a_plot_written_to_a_pipe_nobody_reads(tmp_path: Path, workdir: Path) -> None:
    """`plot -o FIFO` blocked forever in opening the pipe; it is refused as `-o` of the
    other commands refuses it."""
    fifo = tmp_path / "waste.png"
    os.mkfifo(fifo)
    result = subprocess.run(
        [sys.executable, "-m", "mur_trace", "plot", "waste", str(workdir), "-o", str(fifo)],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert result.returncode == 2, result.stderr
    assert result.stderr == f"error[E-IO-003]: cannot write {fifo}: no process reads it\n"


@pytest.mark.parametrize(
    "args",
    [
        ["loops", "--window", "9" * 41],
        ["check", "--max-redundant", str(2**127)],
        ["check", "--max-context-tokens", str(2**63)],
    ],
)
def test_a_count_past_what_duckdb_holds_is_a_usage_error(workdir: Path, args: list[str]) -> None:
    """A count past BIGINT was E-IO-003 with DuckDB's conversion message."""
    result = runner.invoke(app, [*args, "--workdir", str(workdir)])
    one_line(result, "E-CLI-001", 2, "is not in the range 0<=x<=9223372036854775807")


@pytest.mark.parametrize(
    ("option", "value", "says"),
    [
        ("--max-redundant", "1_0", "'1_0' is not a whole number (ASCII digits)"),
        ("--max-redundant", "\u0663", "'\u0663' is not a whole number (ASCII digits)"),
        ("--max-context-tokens", " 3", "' 3' is not a whole number (ASCII digits)"),
        ("--max-redundant", "-0", "-0 is not in the range 0<=x<=9223372036854775807."),
        ("--max-rate", "0_5", "'0_5' is not a number from 0 to 1"),
        ("--max-rate", "\u0660.\u0665", "'\u0660.\u0665' is not a number from 0 to 1"),
        ("--max-rate", "nan", "'nan' is not a number from 0 to 1"),
        ("--max-rate", "1.5", "1.5 is not in the range 0<=x<=1."),
    ],
)
def test_a_threshold_is_read_in_ascii_digits_as_last_is(
    workdir: Path, option: str, value: str, says: str
) -> None:
    """Python's int() and float() took `1_0` as 10, an Arabic-Indic three as 3, and `0_5`
    as 0.5, where `--last` (as `mur trace`) takes ASCII digits only."""
    result = runner.invoke(app, ["check", "--workdir", str(workdir), option, value])
    one_line(result, "E-CLI-001", 2, f"Invalid value for '{option}': {says}")


def test_a_window_is_read_in_ascii_digits_and_a_rate_in_any_decimal_spelling(
    workdir: Path,
) -> None:
    result = runner.invoke(app, ["loops", "--workdir", str(workdir), "--window", "1_0"])
    one_line(result, "E-CLI-001", 2, "'1_0' is not a whole number (ASCII digits)")
    # 0.5, .5, +0.5 and 5e-1 are one threshold
    outputs = {
        (r.exit_code, r.output)
        for rate in ("0.5", ".5", "+0.5", "5e-1")
        if (r := runner.invoke(app, ["check", "--workdir", str(workdir), "--max-rate", rate]))
    }
    assert len(outputs) == 1 and next(iter(outputs))[0] in (0, 1), outputs


def test_an_output_that_cannot_be_written_is_named(tmp_path: Path, workdir: Path) -> None:
    """The system's `[Errno 21] Is a directory: 'x'`, DuckDB's `Could not write file
    "/dev/fd/3"`, or no path at all (a full device), was the whole message; the output is
    named, with the reason (and the part of its path that is no directory)."""
    a_file = tmp_path / "a.txt"
    a_file.write_text("x\n")
    (tmp_path / "out").mkdir()
    (tmp_path / "loop").symlink_to("loop")
    long = tmp_path / ("a" * 300)
    in_a_file = f"{a_file} is a file, where a directory must be"
    cases = [
        (
            ["redundant", "-o", str(tmp_path / "out")],
            f"cannot write {tmp_path / 'out'}: Is a directory",
        ),
        (["redundant", "-o", f"{a_file}/x"], f"cannot write {a_file}/x: {in_a_file}"),
        (["export", "--parquet", f"{a_file}/x"], f"cannot write {a_file}/x: {in_a_file}"),
        (
            ["export", "--parquet", f"{tmp_path}/loop/x"],
            f"{tmp_path}/loop is a symbolic link to no directory, where a directory must be",
        ),
        (["redundant", "-o", f"{long}.csv"], f"cannot write {long}.csv: File name too long"),
        (["export", "--parquet", str(long)], f"cannot write {long}: File name too long"),
        (["plot", "waste", "-o", f"{long}.png"], f"cannot write {long}.png: File name too long"),
    ]
    if Path("/dev/full").exists():
        for fmt in ("text", "csv", "jsonl", "parquet"):
            cases.append(
                (["loops", "-f", fmt, "-o", "/dev/full"], "cannot write /dev/full: No space left")
            )
    for args, message in cases:
        one_line(runner.invoke(app, [*args, "--workdir", str(workdir)]), "E-IO-003", 2, message)
    assert a_file.read_text() == "x\n"


def test_an_output_named_as_a_directory_or_dash(tmp_path: Path, workdir: Path, monkeypatch) -> None:
    """`-o x.csv/` and `plot -o x.png/` wrote a file `x.csv`, `x.png` (a path drops the
    slash); `-o -` wrote a file named `-`: it is standard output, as with no `-o`."""
    (tmp_path / "here").mkdir()
    monkeypatch.chdir(tmp_path / "here")
    for args in (
        ["redundant", "-o", "x.csv/"],
        ["redundant", "-f", "csv", "-o", "x.csv/."],
        ["loops", "-o", "."],
        ["plot", "waste", "-o", "x.png/"],
        ["plot", "waste", "-o", "x.png/."],
        ["ingest", "--db", "x.duckdb/"],
        ["redundant", "--policy", "context", "--effects", "e.toml/."],
    ):
        result = runner.invoke(app, [*args, "--workdir", str(workdir)])
        one_line(result, "E-CLI-001", 2, "names a directory, not a file")
    result = runner.invoke(app, ["redundant", "-o", "-", "-f", "csv", "--workdir", str(workdir)])
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("session_id,trace_path,line,")
    assert os.listdir(tmp_path / "here") == []


def test_the_empty_name_is_no_path(tmp_path: Path, workdir: Path, monkeypatch) -> None:
    """`redundant ''` read the directory it ran in (the empty path is `.` to pathlib)."""
    monkeypatch.chdir(workdir)  # a directory of sessions, which '' was
    for command in (
        ["redundant", ""],
        ["loops", ""],
        ["report", "--workdir", ""],
        ["export", "--parquet", ""],
        ["spark", "redundant", "", "-o", str(tmp_path / "out")],  # refused before Spark starts
        ["spark", "loops", str(tmp_path), "-o", ""],
    ):
        one_line(runner.invoke(app, command), "E-CLI-001", 2, "the empty name is no path")
    for args in (["show", ""], ["diff", "", "@1"]):
        result = runner.invoke(app, [*args, "--workdir", str(workdir)])
        one_line(result, "E-TRC-002", 2, "the empty name names no session")
    with pytest.raises(MurTraceError, match="an empty name"):
        mur_trace.load([""])


@pytest.mark.parametrize(
    "call",
    [
        lambda wd: mur_trace.find_loops(workdir=wd, window=-1),
        lambda wd: mur_trace.find_loops(workdir=wd, window="a"),
        lambda wd: mur_trace.load(workdir=wd).loops(2**63),
        lambda wd: mur_trace.summarise(workdir=wd).check(max_rate=float("nan")),
        lambda wd: mur_trace.summarise(workdir=wd).check(max_rate=2),
        lambda wd: mur_trace.summarise(workdir=wd).check(max_redundant=-1),
        lambda wd: mur_trace.summarise(workdir=wd).check(max_context_tokens=True),
        lambda wd: mur_trace.find_loops(workdir=wd, window=None),
        lambda wd: mur_trace.load(workdir=wd).loops(None),
    ],
    ids=[
        "window -1",
        "window 'a'",
        "window 2^63",
        "rate nan",
        "rate 2",
        "redundant -1",
        "tokens True",
        "window None",
        "loops(None)",
    ],
)
def test_the_api_takes_the_values_the_command_line_takes(workdir: Path, call) -> None:
    """The command line refuses these (E-CLI-001); the API found loops with a window of
    -1, raised DuckDB's ConversionException for 'a', and checked a rate of nan or 2."""
    with pytest.raises(MurTraceError) as raised:
        call(workdir)
    assert raised.value.code == "E-CLI-001"


def test_the_api_takes_any_integer_type_and_no_empty_workdir(workdir: Path) -> None:
    """numpy's integers were refused as "not a whole number"; `load(workdir='')` read the
    directory it ran in (the empty path is `.`)."""
    import numpy as np

    by_int = mur_trace.find_loops(workdir=workdir, window=3).relation.fetchall()
    assert mur_trace.find_loops(workdir=workdir, window=np.int64(3)).relation.fetchall() == by_int
    with pytest.raises(MurTraceError, match="an empty name"):
        mur_trace.load(workdir="")


@pytest.mark.parametrize("command", ["redundant", "plot", "export", "ingest", "synth", "report"])
def test_the_help_names_paths_as_paths(command: str) -> None:
    """The options checked by a parser (`-o`, `--workdir`, the paths) showed its name,
    `<_named>`, `<_output_file>`, where a path's type was shown."""
    result = runner.invoke(app, [command, "--help"], terminal_width=100)
    assert result.exit_code == 0
    assert "<_" not in result.stdout and "<path>" in result.stdout


def test_a_name_starting_with_a_tilde_is_that_file(
    tmp_path: Path, sample_workdir: Path, monkeypatch
) -> None:
    """DuckDB takes a leading `~` for the home directory: `~x.jsonl` was read as
    `$HOME` + `x.jsonl` (none: "trace file is empty"), and `ingest --db ~c.duckdb` wrote
    its catalog there, beside the home directory."""
    home, here = tmp_path / "home", tmp_path / "here"
    home.mkdir(), here.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(here)
    # 1eef re-reads src/widget.rs at turn 2 and src/lib.rs at turn 7; the context policy
    # also takes ./src/lib.rs at line 13 for src/lib.rs (the README's `check` example: 3)
    shutil.copy(sample_workdir / "ses_01a21715468070018000000000001eef" / "trace.jsonl", "~x.jsonl")
    for policy, found in (("reference", 2), ("context", 3)):
        result = runner.invoke(app, ["redundant", "--policy", policy, "~x.jsonl", "-f", "csv"])
        assert result.exit_code == 0, result.output
        assert len(result.stdout.splitlines()) == 1 + found
    assert runner.invoke(app, ["ingest", "--db", "~c.duckdb", "~x.jsonl"]).exit_code == 0
    result = runner.invoke(app, ["redundant", "--db", "~c.duckdb", "-f", "csv"])
    assert len(result.stdout.splitlines()) == 3, result.output
    assert sorted(os.listdir(here)) == ["~c.duckdb", "~x.jsonl"]
    assert os.listdir(home) == [] and not list(tmp_path.glob("homec.duckdb*"))
    # a directory named `~`: DuckDB read `./~/ses_1/trace.jsonl` as `$HOME/ses_1/...`
    # (before: "trace file is empty"), though the catalog read it
    (here / "~" / "ses_1").mkdir(parents=True)
    shutil.copy(here / "~x.jsonl", here / "~" / "ses_1" / "trace.jsonl")
    for policy, found in (("reference", 2), ("context", 3)):
        for named in (["--workdir", "~"], ["./~/ses_1/trace.jsonl"]):
            result = runner.invoke(app, ["redundant", "--policy", policy, *named, "-f", "csv"])
            assert result.exit_code == 0, result.output
            assert len(result.stdout.splitlines()) == 1 + found
    # run in a directory whose name DuckDB would take for a pattern: `w[1]` matched `w1`
    (tmp_path / "w[1]").mkdir(), (tmp_path / "w1").mkdir()
    shutil.copy(here / "~x.jsonl", tmp_path / "w[1]" / "~x.jsonl")
    shutil.copy(sample_workdir / "ses_01a2175e848070038000000000005ccd" / "trace.jsonl",
                tmp_path / "w1" / "~x.jsonl")  # fmt: skip
    monkeypatch.chdir(tmp_path / "w[1]")
    for policy, found in (("reference", 2), ("context", 3)):
        result = runner.invoke(app, ["redundant", "--policy", policy, "~x.jsonl", "-f", "csv"])
        assert result.exit_code == 0, result.output
        assert len(result.stdout.splitlines()) == 1 + found


def test_a_catalog_or_dataset_whose_name_is_not_utf8(tmp_path: Path, workdir: Path) -> None:
    """DuckDB opens and writes only UTF-8 names: `ingest --db c<0xff>.duckdb` was a traceback
    (`std::bad_cast`), `export --parquet e<0xff>` too (Python's encoding error)."""
    out = tmp_path / "out"
    out.mkdir()
    for command, name, what in (
        ("ingest", "--db", "open catalog"),
        ("export", "--parquet", "write"),
    ):
        target = os.fsdecode(
            os.fsencode(out) + (b"/c\xff.duckdb" if command == "ingest" else b"/e\xff")
        )
        result = subprocess.run(
            [sys.executable, "-m", "mur_trace", command, name, target, "--workdir", str(workdir)],
            capture_output=True, text=True, timeout=120,
        )  # fmt: skip
        assert result.returncode == 2, result.stderr
        shown = target.encode(errors="surrogateescape").decode(errors="backslashreplace")
        assert (
            result.stderr == f"error[E-IO-003]: cannot {what} {shown}: its name is not UTF-8 text\n"
        )
    assert os.listdir(out) == []


def test_a_working_directory_removed_is_said_so(tmp_path: Path, workdir: Path, monkeypatch) -> None:
    # a relative name in it gave Python's words, naming nothing: `[Errno 2] No such file...`
    gone = tmp_path / "gone"
    gone.mkdir()
    monkeypatch.chdir(gone)
    gone.rmdir()
    for args in (
        ["redundant", "./x.jsonl"],
        ["ingest", "--db", "rel.duckdb", str(workdir)],
        ["synth", "rel", "--sessions", "1"],
    ):
        one_line(runner.invoke(app, args), "E-IO-003", 2, "the working directory no longer exists")
    # a command naming only absolute paths does not need it
    assert runner.invoke(app, ["redundant", str(workdir)]).exit_code == 0


def test_plot_where_matplotlib_cannot_keep_its_configuration(tmp_path: Path, workdir: Path) -> None:
    # no HOME, nor a configuration directory it may write: matplotlib said so on stderr in
    # two lines at every run, and makes a temporary one; the image is written all the same
    env = {k: v for k, v in os.environ.items() if k not in ("HOME", "MPLCONFIGDIR")}
    env["XDG_CONFIG_HOME"] = "/proc/no-such-directory"
    env["XDG_CACHE_HOME"] = "/proc/no-such-directory"
    image = tmp_path / "rate.png"
    result = subprocess.run(
        [sys.executable, "-m", "mur_trace", "plot", "rate", "--workdir", str(workdir),
         "-o", str(image)],
        capture_output=True, text=True, env=env, cwd=tmp_path,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    assert image.read_bytes().startswith(b"\x89PNG")
