"""The `mur-trace` command line, through Typer's runner."""

from __future__ import annotations

import csv
import io
import json
import shlex
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from mur_trace.cli import app

runner = CliRunner()

FINDING_KEYS = [
    "session_id",
    "trace_path",
    "line",
    "call_id",
    "turn",
    "tool_name",
    "resource",
    "resource_source",
    "state_effect",
    "prior_line",
    "prior_turn",
    "output_bytes",
    "duration_ms",
]
EDITOR_SESSION = "ses_01a21715468070018000000000001eef"


def run(*args: str):
    return runner.invoke(app, list(args))


def test_redundant_text_on_the_sample_workdir(sample_workdir: Path) -> None:
    result = run("redundant", "--workdir", str(sample_workdir))
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    trace = sample_workdir / EDITOR_SESSION / "trace.jsonl"
    at = lines.index(f"{EDITOR_SESSION}  {trace}")
    assert lines[at + 1 : at + 4] == [
        "count:      2",
        "  turn 2  editor  src/widget.rs  (re-reads turn 0)",
        "  turn 7  editor  src/lib.rs  (re-reads turn 1)",
    ]
    assert "  turn 2  code-graph  sym:crate::widget::Widget  (re-reads turn 0)" in lines
    assert "  turn 3  legacy-fs  docs/a.md  (re-reads turn 2)" in lines
    assert lines[-1] == "total:      19 redundant calls in 7 of 7 sessions"


def test_redundant_jsonl_has_exactly_the_finding_schema(sample_workdir: Path) -> None:
    result = run("redundant", str(sample_workdir / EDITOR_SESSION), "--format", "jsonl")
    assert result.exit_code == 0, result.output
    findings = [json.loads(line) for line in result.stdout.splitlines()]
    assert [list(f) for f in findings] == [FINDING_KEYS, FINDING_KEYS]
    assert findings[0] == {
        "session_id": EDITOR_SESSION,
        "trace_path": str(sample_workdir / EDITOR_SESSION / "trace.jsonl"),
        "line": 7,
        "call_id": None,
        "turn": 2,
        "tool_name": "editor",
        "resource": "src/widget.rs",
        "resource_source": "path_field",
        "state_effect": "read",
        "prior_line": 3,
        "prior_turn": 0,
        "output_bytes": 4210,
        "duration_ms": 8,
    }


def test_redundant_csv_has_a_header_row(sample_workdir: Path) -> None:
    result = run("redundant", "--workdir", str(sample_workdir), "-f", "csv")
    assert result.exit_code == 0, result.output
    header, *rows = list(csv.reader(io.StringIO(result.stdout)))
    assert header == FINDING_KEYS
    assert len(rows) == 19


def test_redundant_parquet_round_trip(sample_workdir: Path, tmp_path: Path) -> None:
    out = tmp_path / "findings.parquet"
    result = run("redundant", "--workdir", str(sample_workdir), "-f", "parquet", "-o", str(out))
    assert result.exit_code == 0, result.output
    table = pq.read_table(out)
    assert table.column_names == FINDING_KEYS
    assert table.num_rows == 19
    assert sorted(set(table.column("resource_source").to_pylist())) == ["declared", "path_field"]


def test_parquet_needs_an_output_file(sample_workdir: Path) -> None:
    result = run("redundant", "--workdir", str(sample_workdir), "-f", "parquet")
    assert result.exit_code == 2
    assert "--output" in result.stderr


def test_output_file_for_text_formats(sample_workdir: Path, tmp_path: Path) -> None:
    out = tmp_path / "findings.jsonl"
    result = run("redundant", "--workdir", str(sample_workdir), "-f", "jsonl", "-o", str(out))
    assert result.exit_code == 0
    assert result.stdout == ""
    assert len(out.read_text().splitlines()) == 19


def test_default_workdir_is_dot_workdir(sample_workdir: Path, monkeypatch) -> None:
    monkeypatch.chdir(sample_workdir.parent)
    result = run("redundant")
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[-1] == "total:      19 redundant calls in 7 of 7 sessions"


def test_paths_in_any_mix(sample_workdir: Path) -> None:
    session_dir = sample_workdir / EDITOR_SESSION
    other_trace = sample_workdir / "ses_01a21795730070048000000000007bbc" / "trace.jsonl"
    result = run("redundant", str(session_dir), str(other_trace), str(sample_workdir), "-f", "csv")
    assert result.exit_code == 0, result.output
    rows = list(csv.DictReader(io.StringIO(result.stdout)))
    # each trace is read once, even when named twice
    assert len(rows) == 19


def test_a_session_linked_into_a_workdir_is_read_once(sample_workdir: Path, tmp_path: Path) -> None:
    # a session directory linked in beside its own: `--workdir` read its trace twice (21
    # calls in 8 sessions, where `report` and `ingest` counted 19 in 7)
    workdir = tmp_path / "workdir"
    shutil.copytree(sample_workdir, workdir)
    (workdir / "ses_linked").symlink_to(EDITOR_SESSION)
    result = run("redundant", "--workdir", str(workdir))
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[-1] == "total:      19 redundant calls in 7 of 7 sessions"
    result = run("check", "--workdir", str(workdir), "--max-redundant", "0")
    assert result.exit_code == 1, result.output
    assert result.stdout.splitlines()[-1].startswith("7 of 7 sessions")
    result = run("export", "--workdir", str(workdir), "--parquet", str(tmp_path / "out"))
    assert result.exit_code == 0, result.output
    assert pq.read_table(tmp_path / "out" / "findings").num_rows == 19


def test_clean_session_reports_zero(write_trace) -> None:
    path = write_trace([{"event_type": "tool_call", "tool_name": "r", "input": {"path": "a"}}])
    result = run("redundant", str(path))
    assert result.exit_code == 0
    assert result.stdout == "total:      0 redundant calls in 0 of 1 session\n"


def test_text_blocks_follow_trace_path_order_and_show_missing_values(write_trace) -> None:
    read = {"event_type": "tool_call", "state_effect": "read", "resource_id": "r"}
    unnamed = [{**read, "turn": 1}, {**read, "turn": 4}]  # no tool_name
    named = [{**read, "tool_name": "t", "turn": 2}] * 3
    later = write_trace(named, session="ses_b")
    first = write_trace(unnamed, session="ses_a")
    result = run("redundant", str(later), str(first))
    assert result.exit_code == 0, result.output
    assert result.stdout == (
        f"ses_a  {first}\n"
        "count:      1\n"
        "  turn 4  —  r  (re-reads turn 1)\n"
        "\n"
        f"ses_b  {later}\n"
        "count:      2\n"
        "  turn 2  t  r  (re-reads turn 2)\n"
        "  turn 2  t  r  (re-reads turn 2)\n"
        "\n"
        "total:      3 redundant calls in 2 of 2 sessions\n"
    )


# ── errors ─────────────────────────────────────────────────────────────────────


def assert_one_line_error(result, code: str) -> str:
    assert result.exit_code == 2
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith(f"error[{code}]: ")
    assert "Traceback" not in result.output
    return lines[0]


def test_missing_path_is_e_io_001(tmp_path: Path) -> None:
    line = assert_one_line_error(run("redundant", str(tmp_path / "nope.jsonl")), "E-IO-001")
    assert str(tmp_path / "nope.jsonl") in line


def test_missing_workdir_is_e_io_001(tmp_path: Path) -> None:
    assert_one_line_error(run("redundant", "--workdir", str(tmp_path / "none")), "E-IO-001")


def test_a_workdir_that_is_a_file_is_e_io_003_and_says_so(tmp_path: Path) -> None:
    # `--workdir` given a trace file where its directory was meant
    trace = tmp_path / "trace.jsonl"
    trace.write_text("")
    line = assert_one_line_error(run("redundant", "--workdir", str(trace)), "E-IO-003")
    assert line == f"error[E-IO-003]: failed to read {trace}: not a directory (a workdir)"


def test_a_workdir_with_a_catalog_is_a_usage_error_that_says_what_to_give(
    sample_workdir: Path, tmp_path: Path
) -> None:
    # a catalog's sessions are not read from a workdir: the directory, given after the
    # command, narrows the catalog instead
    db = tmp_path / "c.duckdb"
    assert run("ingest", "--db", str(db), "--workdir", str(sample_workdir)).exit_code == 0
    for command in ("redundant", "report"):
        result = run(command, "--db", str(db), "--workdir", str(sample_workdir))
        line = assert_one_line_error(result, "E-CLI-001")
        assert line == (
            "error[E-CLI-001]: --workdir names trace files, not a catalog's: with --db, name "
            "the directory after the command to narrow the catalog to the traces beneath it"
        ), command


def test_a_session_argument_that_is_a_path_here_says_how_to_give_it(
    tmp_path: Path, monkeypatch
) -> None:
    """`report mf` and `show mf`, where `mf` is a directory in the current directory and
    `c.duckdb` a catalog: a name is a session's, as `mur trace` reads it, and there is no
    `./workdir` to look in. The error says that the name here is a path, and how to give
    it (before, `workdir not found: workdir` alone)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "mf").mkdir()
    (tmp_path / "c.duckdb").write_bytes(b"")
    for command in ("report", "show"):
        line = assert_one_line_error(run(command, "mf"), "E-IO-001")
        assert line == (
            "error[E-IO-001]: workdir not found: workdir ('mf' here is a path: give it as ./mf)"
        )
    line = assert_one_line_error(run("show", "c.duckdb"), "E-IO-001")
    assert line.endswith("('c.duckdb' here is a path: give it as --db c.duckdb)")
    # a name that is no path here is only a session's
    line = assert_one_line_error(run("show", "zz"), "E-IO-001")
    assert line == "error[E-IO-001]: workdir not found: workdir"


def test_empty_workdir_is_e_trc_002(tmp_path: Path) -> None:
    line = assert_one_line_error(run("redundant", "--workdir", str(tmp_path)), "E-TRC-002")
    assert "no sessions found" in line


def test_malformed_line_names_file_and_line(write_trace) -> None:
    path = write_trace(raw='{"event_type":"session_start"}\n\n{"event_type": "tool_call",\n')
    line = assert_one_line_error(run("redundant", str(path)), "E-TRC-001")
    assert line == f"error[E-TRC-001]: {path}:3: not valid JSON"


@pytest.mark.parametrize(
    ("raw", "why"),
    [
        ("", "trace file is empty"),
        ("\n  \n\n", "trace file is empty"),
        ("[1, 2]\n", ':1: not an event object (no "event_type")'),
        ('{"turn": 1}\n', ':1: not an event object (no "event_type")'),
        # a JSON document over several lines (a SWE-agent `.traj`): said so (before, `:1:
        # not valid JSON` alone); a bad first line otherwise is what it was
        (
            '{\n  "trajectory": []\n}\n',
            ":1: not valid JSON: a JSON document over several "
            "lines, not JSON Lines (one event a line)",
        ),
        (
            "[\n1]\n",
            ":1: not valid JSON: a JSON document over several lines, not JSON Lines "
            "(one event a line)",
        ),
        ('{"a":\n', ":1: not valid JSON"),
    ],
)
def test_unusable_traces_are_e_trc_001(write_trace, raw: str, why: str) -> None:
    path = write_trace(raw=raw)
    line = assert_one_line_error(run("redundant", str(path)), "E-TRC-001")
    assert line.endswith(why)


def test_text_that_is_not_utf8_is_e_io_003(tmp_path: Path) -> None:
    path = tmp_path / "trace.jsonl"
    path.write_bytes(b'{"event_type":"tool_call","input":{"path":"\xff"}}\n')
    assert_one_line_error(run("redundant", str(path)), "E-IO-003")


def test_one_bad_session_among_many_is_skipped_with_a_warning(
    sample_workdir: Path, tmp_path: Path
) -> None:
    import shutil

    workdir = tmp_path / "workdir"
    shutil.copytree(sample_workdir, workdir)
    torn = workdir / "ses_01a2184366407007800000000000d889" / "trace.jsonl"
    original = torn.read_text(encoding="utf-8")
    # not torn: a newline follows the bad line
    torn.write_text(original + '{"event_type":"tool_call","tu\n', encoding="utf-8")
    torn_line = len(original.splitlines()) + 1
    result = run("redundant", "--workdir", str(workdir))
    assert result.exit_code == 0
    assert result.stderr.splitlines() == [
        f"warning[E-TRC-001]: {torn}:{torn_line}: not valid JSON (skipped)"
    ]
    assert result.stdout.splitlines()[-1] == "total:      18 redundant calls in 6 of 6 sessions"


def test_traces_are_never_modified(sample_workdir: Path) -> None:
    before = {p: p.read_bytes() for p in sample_workdir.rglob("trace.jsonl")}
    run("redundant", "--workdir", str(sample_workdir), "-f", "csv")
    assert {p: p.read_bytes() for p in sample_workdir.rglob("trace.jsonl")} == before


# ── the command line as a program ──────────────────────────────────────────────


def test_python_dash_m_runs_the_cli() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "mur_trace", "--help"], capture_output=True, text=True, check=True
    )
    assert "redundant" in result.stdout


@pytest.mark.parametrize("fmt", ["csv", "jsonl"])
def test_rows_into_a_pipe_and_into_a_file_are_the_same(
    sample_workdir: Path, tmp_path: Path, fmt: str
) -> None:
    # DuckDB writes into a pipe itself; a regular file (here: appended to) gets a copy
    command = [sys.executable, "-m", "mur_trace", "redundant", "--workdir", str(sample_workdir)]
    piped = subprocess.run([*command, "-f", fmt], capture_output=True, check=True).stdout
    target = tmp_path / "out"
    target.write_bytes(b"kept\n")
    with open(target, "ab") as appended:
        subprocess.run([*command, "-f", fmt], stdout=appended, check=True)
    assert target.read_bytes() == b"kept\n" + piped
    assert piped == run("redundant", "--workdir", str(sample_workdir), "-f", fmt).stdout_bytes
    assert piped.count(b"\n") == 19 + (fmt == "csv")


@pytest.mark.parametrize("fmt", ["csv", "jsonl"])
def test_rows_into_a_device_another_writer_holds(sample_workdir: Path, fmt: str) -> None:
    """Processes writing into one device at once (jobs whose output goes to /dev/null):
    DuckDB locks the file it copies rows into, so the second failed with E-IO-003 `Could
    not set lock on file "/dev/fd/1"` (the suite's /dev/full test did, when two of its
    cases ran at once). Here the other writer is this process, holding the lock a COPY
    into /dev/null holds."""
    import fcntl
    import os

    null = os.open(os.devnull, os.O_WRONLY)
    try:
        fcntl.lockf(null, fcntl.LOCK_EX)  # as another process's COPY into it does
        command = [sys.executable, "-m", "mur_trace", "redundant", "--workdir",
                   str(sample_workdir), "-f", fmt]  # fmt: skip
        done = subprocess.run(command, stdout=null, stderr=subprocess.PIPE, text=True)
    finally:
        os.close(null)  # and the lock with it
    assert (done.returncode, done.stderr) == (0, "")


@pytest.mark.parametrize("fmt", ["text", "csv"])
def test_a_reader_that_stops_early_is_no_error(write_trace, fmt: str) -> None:
    read = {"event_type": "tool_call", "tool_name": "r", "state_effect": "read", "input": {}}
    path = write_trace([{**read, "resource_id": "a"}] * 5000)  # 500 KB of findings
    command = [sys.executable, "-m", "mur_trace", "redundant", str(path), "-f", fmt]
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE) as proc:
        assert proc.stdout is not None and proc.stderr is not None
        proc.stdout.readline()
        proc.stdout.close()  # like `| head -1`
        assert proc.stderr.read() == b""
        assert proc.wait() == 0


def test_a_signal_that_stops_nothing_leaves_the_rows_whole() -> None:
    """A program with a handler of its own (SIGUSR1: reload, dump a status) writing rows
    into a pipe: the signal cut the rows' stream as Ctrl-C does (640 lines of 3,000,001,
    then `Broken pipe`). Only SIGINT and SIGTERM stop it."""
    script = textwrap.dedent(
        """
        import os, signal, sys, threading, time, duckdb
        from mur_trace import render
        seen = []
        signal.signal(signal.SIGUSR1, lambda number, frame: seen.append(number))
        # as the library's connections (load.connect): on a busy machine the query ran
        # past DuckDB's two seconds and its progress bar reached the rows
        duckdb.execute("SET enable_progress_bar_print = false")
        rows = duckdb.sql("SELECT range AS i, repeat('x', 200) AS pad FROM range(3000000)")
        threading.Timer(0.2, os.kill, (os.getpid(), signal.SIGUSR1)).start()
        render.write_csv(rows, sys.stdout)
        sys.stdout.flush()
        print(seen, file=sys.stderr)
        """
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True)
    assert (done.returncode, done.stderr) == (0, f"[{int(signal.SIGUSR1)}]\n".encode())
    assert done.stdout.count(b"\n") == 3_000_001


@pytest.mark.parametrize("command", ["redundant", "ingest"])
def test_a_closed_standard_error_is_no_failure(
    tmp_path: Path, sample_workdir: Path, command: str
) -> None:
    """Started with standard error closed (`2>&-`: a daemon, some job runners): the two
    commands with a progress line failed (exit 1, no output: `sys.stderr` is None)."""
    args = [command, str(sample_workdir)]
    if command == "ingest":
        args[1:1] = ["--db", str(tmp_path / "c.duckdb")]
    script = "exec 2>&-; exec " + " ".join(
        shlex.quote(a) for a in [sys.executable, "-m", "mur_trace", *args]
    )
    done = subprocess.run(["sh", "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout
    assert done.stdout.splitlines()[-1].startswith(
        "total:      19 redundant calls"
        if command == "redundant"
        else f"{tmp_path / 'c.duckdb'}: 7 new"
    )


@pytest.mark.parametrize(
    ("sig", "status"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)], ids=["SIGINT", "SIGTERM"]
)
def test_a_signal_stops_rows_nobody_reads(write_trace, sig: int, status: int) -> None:
    """`mur-trace redundant -f csv | less`, the pager left open, then Ctrl-C (or `timeout`'s
    SIGTERM): DuckDB, blocked writing the rows, never returned to let Python act on the
    signal, and the command waited for the reader to go."""
    read = {"event_type": "tool_call", "tool_name": "r", "state_effect": "read", "input": {}}
    path = write_trace([{**read, "resource_id": "a"}] * 5000)  # 500 KB: more than a pipe holds
    command = [sys.executable, "-m", "mur_trace", "redundant", str(path), "-f", "csv"]
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE) as proc:
        assert proc.stdout is not None and proc.stderr is not None
        proc.stdout.readline()  # the rows are flowing; nothing more is read
        time.sleep(0.5)  # the pipe full, DuckDB waits to write
        proc.send_signal(sig)
        try:
            assert proc.wait(timeout=30) == status
        finally:
            proc.kill()
        assert proc.stderr.read().decode().splitlines() == [
            f"error[E-CLI-{status}]: {'interrupted' if status == 130 else 'terminated'}"
        ]


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
@pytest.mark.parametrize(
    "args",
    [
        ["--help"],
        ["redundant", "--help"],
        ["show", "@1"],
        ["redundant"],
        ["redundant", "-f", "jsonl"],
        ["redundant", "-f", "csv", "-o", "-"],
        ["loops", "-f", "csv"],
        ["check", "--max-redundant", "0"],
        ["report", "-f", "json"],
    ],
)
def test_output_into_a_full_device_is_one_line(args: list[str], sample_workdir: Path) -> None:
    """Writing where nothing fits (a full disk) is E-IO-003 in one line, exit 2, naming
    standard output as `-o FILE` names its file, for the help as for a command's output,
    written by Python or by DuckDB (was the system's `[Errno 28] No space left on device`,
    or DuckDB's `IO Error: Async write failed … "/dev/fd/1" …`)."""
    with open("/dev/full", "w") as full:
        proc = subprocess.run(
            [sys.executable, "-m", "mur_trace", *args]
            + ([] if "--help" in args else ["--workdir", str(sample_workdir)]),
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
        )
    assert proc.returncode == 2
    assert proc.stderr.splitlines() == [
        "error[E-IO-003]: cannot write standard output: No space left on device"
    ]


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
def test_warnings_nowhere_to_go_change_no_answer(sample_workdir: Path, tmp_path: Path) -> None:
    """A session skipped with a warning, stderr full: `check` passed (exit 0) but exited 2,
    its verdict unprinted, as writing the warning failed. The warning is lost; the answer
    and the exit status stand."""
    workdir = tmp_path / "workdir"
    shutil.copytree(sample_workdir, workdir)
    bad = workdir / "ses_0000000000000000000000000000dead"
    bad.mkdir()
    (bad / "trace.jsonl").write_text('{"event_type":"session_start"}\nnot json\n')
    with open("/dev/full", "w") as full:
        done = subprocess.run(
            [sys.executable, "-m", "mur_trace", "check", "--workdir", str(workdir),
             "--max-redundant", "100"],
            stdout=subprocess.PIPE, stderr=full, text=True,
        )  # fmt: skip
    assert (done.returncode, done.stdout) == (0, "ok: 7 sessions within the thresholds\n")


@pytest.mark.parametrize("args", [["--help"], ["redundant", "--help"]])
def test_help_into_a_pipe_closed_early_is_no_error(args: list[str]) -> None:
    command = [sys.executable, "-m", "mur_trace", *args]
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE) as proc:
        assert proc.stdout is not None and proc.stderr is not None
        proc.stdout.close()  # like `| head -1`, closed before the help is written
        assert proc.stderr.read() == b""
        assert proc.wait() == 0


def test_every_command_has_help_text() -> None:
    import typer.main

    group = typer.main.get_command(app)
    for name, command in group.commands.items():
        assert command.help, f"{name} has no help text"
        for param in command.params:
            if param.param_type_name == "option" and param.name != "help":
                assert param.help, f"{name} --{param.name} has no help"


COMMANDS = ["redundant", "loops", "check", "show", "steps", "diff", "report", "ingest", "export",
            "plot", "synth"]  # fmt: skip


@pytest.mark.parametrize("name", COMMANDS)
def test_a_command_started_alone_reads_its_arguments_as_among_all(name: str) -> None:
    # the command line builds only the command it runs (cli._app_for); its help, and what
    # it says of an unknown option, must be what the whole command line says
    from mur_trace.cli import _app_for

    one = _app_for([name, "--help"])
    assert len(one.registered_commands) == 1 and one.registered_groups == []
    for args in ([name, "--help"], [name, "--no-such-option"]):
        alone, among_all = runner.invoke(one, args), runner.invoke(app, args)
        assert (alone.exit_code, alone.output) == (among_all.exit_code, among_all.output)
    assert len(app.registered_commands) == len(COMMANDS)  # the module's app keeps them all


@pytest.mark.parametrize(
    "args", [[], ["--help"], ["--version"], ["spark", "redundant"], ["shw"], ["--", "show"]]
)
def test_anything_but_a_command_name_first_gets_every_command(args: list[str]) -> None:
    from mur_trace.cli import _app_for

    assert _app_for(args) is app


def test_the_console_script_runs_a_command_alone(sample_workdir: Path) -> None:
    command = [sys.executable, "-m", "mur_trace", "redundant", "--workdir", str(sample_workdir)]
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    assert done.stdout.splitlines()[-1] == "total:      19 redundant calls in 7 of 7 sessions"
    done = subprocess.run([*command[:3], "redundnat"], capture_output=True, text=True)
    assert done.returncode == 2
    assert done.stderr.startswith("error[E-CLI-001]: No such command 'redundnat'. Did you mean")


@pytest.mark.parametrize(
    ("args", "said"),
    [
        # the help, then why it is there (before, `error[E-CLI-001]:  (see ...)`, empty)
        ([], "no command named (see mur-trace --help)"),
        (["spark"], "no command named (see mur-trace spark --help)"),
        # Click's choices on the line (before, `Choose from:\\n\\ttimeline,\\n\\t...`)
        (["plot"], "Missing argument 'kind'. Choose from: timeline, waste, rate "
                   "(see mur-trace plot --help)"),
    ],
)  # fmt: skip
def test_a_usage_error_says_what_is_missing_on_one_line(args: list[str], said: str) -> None:
    script = Path(sys.executable).with_name("mur-trace")  # named as installed
    done = subprocess.run([str(script), *args], capture_output=True, text=True)
    assert done.returncode == 2
    assert done.stderr.splitlines()[-1] == f"error[E-CLI-001]: {said}"
    assert "Usage: mur-trace" in done.stdout + done.stderr or args == ["plot"]


def test_every_command_is_in_the_readme() -> None:
    import typer.main

    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text()
    for name in typer.main.get_command(app).commands:
        assert f"mur-trace {name}" in readme


def test_ci_runs_the_readme_test_command() -> None:
    root = Path(__file__).resolve().parent.parent
    readme = (root / "README.md").read_text()
    command = next(
        line.strip() for line in readme.splitlines() if "pip install -e '.[test]'" in line
    )
    assert command in (root / ".ci" / "run").read_text().splitlines()


def test_counts_a_session_end_does_not_give_are_unknown_not_zero_or_none(tmp_path: Path) -> None:
    """A session_end without `total_tool_calls` and `total_shell_calls` (which `mur trace`
    refuses; analysed here): `report` printed Python's `None` as the tool calls, and `show`
    printed `count: 0` and no call although the trace has one of each."""
    session = tmp_path / "workdir" / "ses_a"
    session.mkdir(parents=True)
    (session / "trace.jsonl").write_text(
        '{"event_type":"session_start","session_id":"ses_a","capsule_name":"c",'
        '"capsule_version":"1","model":"m","max_turns":5}\n'
        '{"event_type":"tool_call","turn":0,"tool_name":"ed","input":{"path":"a"},'
        '"duration_ms":3,"status":"ok","state_effect":"read"}\n'
        '{"event_type":"shell","command":"ls","exit_code":0,"duration_ms":2}\n'
        '{"event_type":"session_end","exit_status":"ok","duration_ms":10,"total_turns":1}\n'
    )
    workdir = str(tmp_path / "workdir")
    report = runner.invoke(app, ["report", "--workdir", workdir])
    assert report.exit_code == 0, report.output
    assert "\n  Tool calls:    —\n" in report.stdout
    assert "None" not in report.stdout
    shown = runner.invoke(app, ["show", "--workdir", workdir])
    assert shown.exit_code == 0, shown.output
    tools = shown.stdout.split("── Tool calls ")[1].split("\n── ")[0]
    assert tools.splitlines()[1:] == [
        "count:      —  (1 ok, 0 error)  success —",
        "latency:    avg 3ms",
        '  turn 0  ed 3ms ✓  {"path":"a"}',
    ]
    shell = shown.stdout.split("── Shell calls ")[1].split("\n── ")[0]
    assert shell.splitlines()[1:] == [
        "count:      —",
        "exit codes: 1 ok",
        "latency:    avg 2ms",
    ]


def test_a_trace_that_names_no_session_is_named_after_its_directory_however_given(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A hand-trimmed trace (no `session_id`, no `session_start`) is its directory's
    session, whether its path is absolute or relative to the working directory, with or
    without a directory in it (before, `t.jsonl` got the empty id, and `x/../t.jsonl` `..`)."""
    home = tmp_path / "agent-run"
    (home / "sub").mkdir(parents=True)
    read = '{"event_type":"tool_call","turn":%d,"tool_name":"editor","input":{"path":"a"},'
    read += '"status":"ok","state_effect":"read","output_bytes":5,"duration_ms":1}\n'
    (home / "t.jsonl").write_text(read % 0 + read % 1)
    given = {
        home: ["t.jsonl", str(home / "t.jsonl"), "sub/../t.jsonl"],
        home / "sub": ["../t.jsonl"],
    }
    for where, paths in given.items():
        monkeypatch.chdir(where)
        for path in paths:
            result = runner.invoke(app, ["redundant", path, "-f", "jsonl"])
            assert result.exit_code == 0, result.output
            (finding,) = [json.loads(line) for line in result.stdout.splitlines()]
            assert (finding["session_id"], finding["line"]) == ("agent-run", 2), path


def test_summary_lines_escape_the_names_they_print(tmp_path: Path, sample_workdir: Path) -> None:
    """A line break or an escape sequence in an output's name: the summary line of synth,
    export and ingest printed it as it is (two lines; a coloured terminal), where errors
    escape it; and `wrote 1 sessions`."""
    odd = tmp_path / "s\nq\x1b[31m"
    made = runner.invoke(app, ["synth", str(odd), "--sessions", "1"])
    assert made.exit_code == 0, made.output
    shown = str(odd).replace("\n", "\\n").replace("\x1b", "\\u001b")
    assert made.stdout == (
        f"wrote 1 session to {shown}/workdir, the truth to {shown}/truth.jsonl\n"
    )
    exported = runner.invoke(
        app, ["export", "--parquet", str(tmp_path / "e\nx"), "--workdir", str(sample_workdir)]
    )
    assert exported.exit_code == 0, exported.output
    assert exported.stdout.splitlines()[0] == f"{tmp_path}/e\\nx/events: 134 rows"
    ingested = runner.invoke(
        app, ["ingest", "--db", str(tmp_path / "c\n.duckdb"), str(sample_workdir)]
    )
    assert ingested.exit_code == 0, ingested.output
    assert ingested.stdout.startswith(f"{tmp_path}/c\\n.duckdb: 7 new,")
    assert ingested.stdout.count("\n") == 1


def test_check_json_says_how_many_sessions_it_checked_and_which_it_left_out(
    sample_workdir: Path, tmp_path: Path
) -> None:
    """`check -f json` printed the failing sessions alone: `[]` for seven sessions within
    the thresholds, for none checked, and for one that could not be read alike."""
    workdir = tmp_path / "workdir"
    shutil.copytree(sample_workdir, workdir)
    bad = workdir / "ses_01a2184366407007800000000000d889" / "trace.jsonl"
    bad.write_text("garbage\n")
    result = run("check", "--workdir", str(workdir), "--max-redundant", "100", "-f", "json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout) == {
        "sessions": 6,
        "over_thresholds": [],
        "skipped": [f"{bad}:1: not valid JSON"],
    }
    # the sample session …9aab makes 5 redundant calls of its 9 (README, "What it prints")
    result = run("check", "--workdir", str(workdir), "--max-redundant", "4", "-f", "json")
    assert result.exit_code == 1, result.output
    document = json.loads(result.stdout)
    assert [f["session_id"][-4:] for f in document["over_thresholds"]] == ["9aab"]
    assert document["over_thresholds"][0]["violations"] == ["redundant calls 5 > 4"]


def test_a_session_was_created_when_its_id_says(sample_workdir: Path) -> None:
    # the 12 hex digits after `ses_` are the creation time in ms (a mutation audit: only
    # `--since` and the ordering, which read it in Python, were tested)
    session = "ses_01a21715468070018000000000001eef"
    result = run("show", session, "--workdir", str(sample_workdir), "-f", "json")
    assert json.loads(result.stdout)["metrics"]["created_ms"] == int(session[4:16], 16)
