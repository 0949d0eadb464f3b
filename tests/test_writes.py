"""Traces are only ever read: no command writes over an input or what it did not create."""

from __future__ import annotations

import hashlib
import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest
from typer.testing import CliRunner

from mur_trace import writes
from mur_trace.cli import app
from mur_trace.errors import MurTraceError
from mur_trace.writes import check_target, owned_directory, replaced_directory, replaced_file

runner = CliRunner()
S1 = "ses_01a21715468070018000000000001eef"
#: The last line of `redundant` on the sample workdir.
TOTAL = "total:      19 redundant calls in 7 of 7 sessions"


def checksums(root: Path) -> dict[str, str]:
    """Every file under `root` (or `root` itself) and the SHA-256 of its bytes."""
    files = [root] if root.is_file() else sorted(p for p in root.rglob("*") if p.is_file())
    return {str(p): hashlib.sha256(p.read_bytes()).hexdigest() for p in files}


def refused(result, *fragments: str) -> None:
    """Exit 2, one `E-IO-004` line naming what was refused."""
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error[E-IO-004]: refusing to "), lines
    for fragment in fragments:
        assert fragment in lines[0], (fragment, lines[0])


@pytest.fixture
def workdir(tmp_path: Path, sample_workdir: Path) -> Path:
    copy = tmp_path / "wd"
    shutil.copytree(sample_workdir, copy)
    return copy


# ── export ───────────────────────────────────────────────────────────────────


@pytest.mark.parametrize("target", [".", ""])
def test_export_into_a_directory_holding_the_traces_is_refused(
    tmp_path: Path, workdir: Path, monkeypatch, target: str
) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    events = project / "events"
    shutil.copytree(workdir, events)
    before = checksums(project)
    monkeypatch.chdir(project)
    result = runner.invoke(app, ["export", "--parquet", target, "--workdir", "events"])
    if target:
        refused(result, "it contains the input events")
    else:  # the empty name is no directory (to pathlib it is `.`)
        assert result.exit_code == 2
        assert result.stderr.startswith("error[E-CLI-001]: ") and "the empty name" in result.stderr
    assert checksums(project) == before
    assert len(list(events.glob("ses_*/trace.jsonl"))) == 7


def test_export_into_a_directory_it_did_not_write_is_refused(tmp_path: Path, workdir: Path) -> None:
    other = tmp_path / "other"
    (other / "events").mkdir(parents=True)
    (other / "events" / "mine.parquet").write_bytes(b"PAR1 not ours")
    (other / "notes.txt").write_text("keep me")
    before = checksums(other)
    result = runner.invoke(app, ["export", "--parquet", str(other), "--workdir", str(workdir)])
    refused(result, "holds files this command did not write")
    assert checksums(other) == before


def test_export_again_replaces_its_own_tables_and_nothing_else(
    tmp_path: Path, workdir: Path
) -> None:
    out = tmp_path / "out"
    first = runner.invoke(
        app, ["export", "--parquet", str(out), "--workdir", str(workdir), "--partition-by", "date"]
    )
    assert first.exit_code == 0, first.output
    (out / "analysis.ipynb").write_text("{}")  # a file of the user's beside the tables
    again = runner.invoke(
        app,
        ["export", "--parquet", str(out), "--workdir", str(workdir), "--partition-by", "capsule"],
    )
    assert again.exit_code == 0, again.output
    assert (out / "analysis.ipynb").read_text() == "{}"
    layouts = {p.name.split("=")[0] for p in (out / "events").iterdir()}
    assert layouts == {"capsule"}  # the date layout is gone: one layout, readable
    rows = duckdb.sql(
        f"SELECT count(*) FROM read_parquet('{out}/events/**/*.parquet', hive_partitioning=true)"
    ).fetchall()[0][0]
    assert rows == 134
    assert not [p for p in out.iterdir() if p.name.startswith(".replaced")]
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".out.")]


@pytest.mark.parametrize("link", ["events/gone.parquet", "findings/capsule=mine/gone"])
def test_a_dangling_link_inside_a_part_of_an_export_makes_it_not_ours(
    tmp_path: Path, workdir: Path, link: str
) -> None:
    """A symbolic link to nothing, in a table of an earlier export or deeper in it, is a
    file the export did not write, as any other: the export again is refused, before
    anything is written, and the link stays (moved aside with the old table, it was
    deleted with it)."""
    out = tmp_path / "out"
    export = ["export", "--parquet", str(out), "--workdir", str(workdir)]
    assert runner.invoke(app, export).exit_code == 0
    dangling = out / link
    dangling.parent.mkdir(exist_ok=True)
    dangling.symlink_to(tmp_path / "nowhere")
    before = checksums(out)
    refused(runner.invoke(app, export), f"refusing to write into {out}: it holds files")
    assert checksums(out) == before
    assert os.readlink(dangling) == str(tmp_path / "nowhere")
    assert sorted(e.name for e in tmp_path.iterdir()) == ["out", "wd"]


# ── -o / --output ─────────────────────────────────────────────────────────────


def output_commands(workdir: Path, target: Path) -> list[list[str]]:
    trace = str(workdir / S1 / "trace.jsonl")
    return [
        ["redundant", trace, "-o", str(target)],
        ["redundant", "--workdir", str(workdir), "-f", "csv", "-o", str(target)],
        ["redundant", "--workdir", str(workdir), "-f", "parquet", "-o", str(target)],
        ["loops", "--workdir", str(workdir), "-o", str(target)],
        ["loops", trace, "-f", "jsonl", "-o", str(target)],
        ["plot", "waste", "--workdir", str(workdir), "-o", str(target)],
        ["plot", "timeline", "--session", trace, "--workdir", str(workdir), "-o", str(target)],
    ]


def test_output_onto_an_input_trace_is_refused(workdir: Path) -> None:
    before = checksums(workdir)
    for command in output_commands(workdir, workdir / S1 / "trace.jsonl"):
        refused(runner.invoke(app, command), "trace.jsonl")
    assert checksums(workdir) == before


def test_output_through_a_link_to_an_input_trace_is_refused(tmp_path: Path, workdir: Path) -> None:
    trace = workdir / S1 / "trace.jsonl"
    (tmp_path / "soft.jsonl").symlink_to(trace)
    os.link(trace, tmp_path / "hard.jsonl")
    before = checksums(workdir)
    for name in ("soft.jsonl", "hard.jsonl"):
        for command in output_commands(workdir, tmp_path / name):
            refused(runner.invoke(app, command))
    assert checksums(workdir) == before


def test_a_trace_linked_into_the_workdir_is_an_input_too(tmp_path: Path, workdir: Path) -> None:
    elsewhere = tmp_path / "elsewhere.jsonl"
    shutil.move(workdir / S1 / "trace.jsonl", elsewhere)
    (workdir / S1 / "trace.jsonl").symlink_to(elsewhere)
    before = checksums(elsewhere)
    result = runner.invoke(app, ["redundant", "--workdir", str(workdir), "-o", str(elsewhere)])
    refused(result, "it is the input trace")
    assert checksums(elsewhere) == before


def test_output_inside_an_input_workdir_is_refused(workdir: Path) -> None:
    result = runner.invoke(app, ["redundant", "--workdir", str(workdir), "-o", f"{workdir}/x.csv"])
    refused(result, "lies inside the input")
    assert not (workdir / "x.csv").exists()


def test_output_beside_the_inputs_is_written(tmp_path: Path, workdir: Path) -> None:
    out = tmp_path / "findings.txt"
    result = runner.invoke(app, ["redundant", "--workdir", str(workdir), "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert out.read_text().endswith(TOTAL + "\n")


def test_an_output_file_is_replaced_whole_or_left_as_it_was(
    tmp_path: Path, workdir: Path, monkeypatch
) -> None:
    # killed while writing its rows: the file keeps what it held, no temporary file stays
    out = tmp_path / "findings.csv"
    out.write_text("precious\n")
    out.chmod(0o640)

    def killed_midway(rel, fmt, stream, *args, **kwargs):
        stream.write("session_id,trace_path\n")
        raise KeyboardInterrupt

    monkeypatch.setattr("mur_trace.cli.write_rows", killed_midway)
    args = ["redundant", "--workdir", str(workdir), "-f", "csv", "-o", str(out)]
    assert runner.invoke(app, args).exit_code != 0
    assert out.read_text() == "precious\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["findings.csv", "wd"]
    monkeypatch.undo()
    # written: replaced whole, with its permissions
    assert runner.invoke(app, args).exit_code == 0
    assert out.read_text().startswith("session_id,trace_path,line,")
    assert len(out.read_text().splitlines()) == 20  # the header, 19 findings
    assert (out.stat().st_mode & 0o777) == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["findings.csv", "wd"]


def test_a_plot_stopped_midway_leaves_the_image_as_it_was(
    tmp_path: Path, workdir: Path, monkeypatch
) -> None:
    pytest.importorskip("matplotlib")
    from matplotlib.figure import Figure

    image = tmp_path / "waste.png"
    image.write_bytes(b"old image")
    drawn = Figure.savefig

    def stopped(figure, out, **options):  # as savefig writes: a path it opens, or a file
        with open(out, "wb") if isinstance(out, (str, os.PathLike)) else out as stream:
            stream.write(b"\x89PNG half")
            raise KeyboardInterrupt

    monkeypatch.setattr(Figure, "savefig", stopped)
    args = ["plot", "waste", "--workdir", str(workdir), "-o", str(image)]
    assert runner.invoke(app, args).exit_code != 0
    assert image.read_bytes() == b"old image"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["waste.png", "wd"]
    monkeypatch.setattr(Figure, "savefig", drawn)
    assert runner.invoke(app, args).exit_code == 0
    assert image.read_bytes().startswith(b"\x89PNG\r\n")


def test_the_default_image_replaces_only_an_image_of_its_own(
    tmp_path: Path, workdir: Path, monkeypatch
) -> None:
    """`plot` with no `-o` writes `mur-trace.png` in the current directory. Someone's own
    file of that name is kept (E-IO-004; before, replaced by the plot unasked); an image
    the command wrote there is replaced by the next plot, and a name given with `-o` is
    replaced, as every command's `-o` replaces its file."""
    pytest.importorskip("matplotlib")
    monkeypatch.chdir(tmp_path)
    mine = tmp_path / "mur-trace.png"
    mine.write_bytes(b"\x89PNG\r\n\x1a\n my own picture")
    args = ["plot", "waste", "--workdir", str(workdir)]
    refused = runner.invoke(app, args)
    assert refused.exit_code == 2 and refused.stdout == ""
    assert refused.stderr == (
        "error[E-IO-004]: mur-trace.png exists and mur-trace did not write it: name the "
        "image to write with -o (an image given so is replaced)\n"
    )
    assert mine.read_bytes() == b"\x89PNG\r\n\x1a\n my own picture"
    mine.unlink()
    for _ in range(2):  # written, then replaced: the command's own image
        written = runner.invoke(app, args)
        assert written.exit_code == 0 and written.stdout == "wrote mur-trace.png\n"
        assert b"tEXtSoftware\x00mur-trace" in mine.read_bytes()[:4096]
    # one written before the images were marked (matplotlib's own mark) is replaced too; a
    # mark that only starts so, or a link that leads nowhere, is not ours
    from matplotlib.figure import Figure

    Figure().savefig(mine, format="png")
    assert runner.invoke(app, args).exit_code == 0
    mine.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\x14tEXtSoftware\x00mur-trace-x")
    assert runner.invoke(app, args).exit_code == 2
    mine.unlink()
    mine.symlink_to(tmp_path / "nowhere" / "x.png")
    assert runner.invoke(app, args).exit_code == 2
    assert not (tmp_path / "nowhere").exists()
    mine.unlink()
    assert runner.invoke(app, args).exit_code == 0
    named = tmp_path / "mine.png"
    named.write_bytes(b"old")
    assert runner.invoke(app, [*args, "-o", str(named)]).exit_code == 0
    assert named.read_bytes().startswith(b"\x89PNG\r\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mine.png", "mur-trace.png", "wd"]


def test_an_output_through_a_link_or_to_a_device_is_written_there(
    tmp_path: Path, workdir: Path
) -> None:
    target = tmp_path / "real.txt"
    target.write_text("old\n")
    link = tmp_path / "link.txt"
    link.symlink_to(target)
    args = ["redundant", "--workdir", str(workdir)]
    assert runner.invoke(app, [*args, "-o", str(link)]).exit_code == 0
    assert link.is_symlink()
    assert target.read_text().endswith(TOTAL + "\n")
    assert runner.invoke(app, [*args, "-o", os.devnull]).exit_code == 0
    assert Path(os.devnull).is_char_device()


def test_an_output_the_shell_appends_to_keeps_what_it_held(tmp_path: Path, workdir: Path) -> None:
    # `-o /dev/stdout >> log`: written through the shell's descriptor, not opened again
    # (which truncates) nor replaced (which drops the lines before)
    log = tmp_path / "log.txt"
    log.write_text("first\n")
    command = shlex.join(
        [sys.executable, "-m", "mur_trace", "redundant", "--workdir", str(workdir)]
    )
    script = f"{command} -o /dev/stdout >> {shlex.quote(str(log))} && "
    script += f"{command} -o /dev/fd/7 7>> {shlex.quote(str(log))} && "
    link = tmp_path / "out"  # a link to /dev/stdout resolves to the log too
    link.symlink_to("/dev/stdout")
    script += f"{command} -o {shlex.quote(str(link))} >> {shlex.quote(str(log))}"
    result = subprocess.run(["sh", "-c", script], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    lines = log.read_text().splitlines()
    assert lines[0] == "first"
    assert lines.count(TOTAL) == 3
    # a descriptor that is not open, a name that is no number: one clear line
    for target in ("/dev/fd/99", "/dev/fd/\u00b2"):
        result = runner.invoke(app, ["redundant", "--workdir", str(workdir), "-o", target])
        assert result.exit_code == 2 and result.stderr.startswith("error[E-IO-003]: "), target


def test_standard_output_into_an_input_is_refused(tmp_path: Path, workdir: Path) -> None:
    """`mur-trace redundant t.jsonl >> t.jsonl` appended the findings to the trace (`-o
    /dev/stdout >> t.jsonl` was refused): standard output that is an input (a trace, an
    effects file, the catalog read, the catalog ingest writes) is refused for every command,
    before any output; another file is written, even one inside the workdir."""
    trace = sorted(workdir.glob("ses_*/trace.jsonl"))[0]
    before = trace.read_bytes()
    effects = tmp_path / "effects.toml"
    effects.write_text("")
    db = tmp_path / "c.duckdb"
    assert runner.invoke(app, ["ingest", "--db", str(db), "--workdir", str(workdir)]).exit_code == 0
    mur = shlex.join([sys.executable, "-m", "mur_trace"])
    cases = {
        f"redundant {trace}": trace,
        f"loops {trace}": trace,
        f"show {trace}": trace,
        f"steps {trace}": trace,
        f"report {trace}": trace,
        f"check {trace} --max-redundant 0": trace,
        f"redundant --workdir {workdir}": trace,
        f"diff {trace} {trace}": trace,
        f"ingest --db {tmp_path / 'other.duckdb'} {trace}": trace,
        f"redundant --workdir {workdir} --policy context --effects {effects}": effects,
        f"report --db {db}": db,
        f"ingest --db {db} --workdir {workdir}": db,
        # what they wrote where goes to standard output too
        f"export --workdir {workdir} --parquet {tmp_path / 'ex'}": trace,
        f"redundant --workdir {workdir} -o {tmp_path / 'out.csv'}": trace,
    }
    for args, target in cases.items():
        done = subprocess.run(
            ["sh", "-c", f"{mur} {args} >> {shlex.quote(str(target))}"],
            capture_output=True,
            text=True,
        )
        what = "input trace" if target == trace else "catalog" if "ingest" in args else "input"
        assert (done.returncode, done.stderr) == (
            2,
            f"error[E-IO-004]: refusing to write standard output: it is the {what} {target}\n",
        ), args
    assert trace.read_bytes() == before and effects.read_text() == ""
    assert not (tmp_path / "ex").exists() and not (tmp_path / "out.csv").exists()
    # a rebuild reads again what the catalog holds, wherever it lies: those are inputs too
    elsewhere = tmp_path / "elsewhere.jsonl"
    shutil.copyfile(trace, elsewhere)
    held = tmp_path / "held.duckdb"
    assert runner.invoke(app, ["ingest", "--db", str(held), str(elsewhere)]).exit_code == 0
    done = subprocess.run(
        ["sh", "-c", f"{mur} ingest --db {held} --rebuild --workdir {workdir} >> {elsewhere}"],
        capture_output=True,
        text=True,
    )
    assert (done.returncode, done.stderr) == (
        2,
        f"error[E-IO-004]: refusing to write standard output: it is the input trace {elsewhere}\n",
    )
    assert elsewhere.read_bytes() == before
    inside = workdir / "findings.txt"
    done = subprocess.run(
        ["sh", "-c", f"{mur} redundant --workdir {workdir} > {shlex.quote(str(inside))}"]
    )
    assert done.returncode == 0 and inside.read_text().endswith(TOTAL + "\n")


def test_ctrl_c_as_an_output_is_copied_over_leaves_it_whole(tmp_path: Path, monkeypatch) -> None:
    """A hard-linked output gets its finished text copied over it: Ctrl-C in the middle of
    the copy left the new text's start, the old text after it and the room reserved for the
    rest (zeros). It is held back until the copy is whole and cut to its length."""
    import signal

    out, other = tmp_path / "out.txt", tmp_path / "other.txt"
    out.write_text("old\n" * 1000)
    os.link(out, other)
    copy = shutil.copyfileobj

    def interrupted(source, target, *args) -> None:
        os.kill(os.getpid(), signal.SIGINT)  # Python acts on it at its next instruction
        copy(source, target, *args)

    monkeypatch.setattr("mur_trace.writes.shutil.copyfileobj", interrupted)
    # acted on once the copy is done
    with pytest.raises(KeyboardInterrupt), replaced_file(out, "w", encoding="utf-8") as stream:
        stream.write("new\n" * 3000)
    assert other.read_text() == "new\n" * 3000


def test_output_over_a_trace_or_a_database_that_is_no_input_is_refused(
    tmp_path: Path, workdir: Path
) -> None:
    """`-o` replaced any file that is no input of the command: another session's trace
    (run from inside it), an agent's log, a catalog (with its only copy of what it held).
    Each is refused, left as it was; a file of earlier findings, JSON lines too, is
    replaced."""
    sessions = sorted(workdir.glob("ses_*"))
    other = sessions[1] / "trace.jsonl"
    claude = tmp_path / "claude.jsonl"
    claude.write_text('{"type":"user","sessionId":"s","message":{"role":"user","content":"x"}}\n')
    db = tmp_path / "c.duckdb"
    duckdb.connect(str(db)).close()
    # what its first line did not say (each was replaced): a byte order mark before the
    # trace, a torn first line, a log of a format not read here, a SWE-agent trajectory
    bom = tmp_path / "bom.jsonl"
    bom.write_bytes(b"\xef\xbb\xbf" + other.read_bytes())
    torn = tmp_path / "torn.jsonl"
    torn.write_bytes(b'{"event_type":"session_st\n' + other.read_bytes())
    copilot = tmp_path / "events.jsonl"
    copilot.write_text('{"type":"session.start","data":{"producer":"copilot-agent"},"id":"1"}\n')
    trajectory = tmp_path / "run.traj"
    trajectory.write_text(
        '{\n  "environment": "swe_main",\n  "trajectory": [\n    {"action": "ls"}\n  ]\n}\n'
    )
    hands = tmp_path / "output.jsonl"
    hands.write_text('{"instance_id": "i1", "history": []}\n')
    long = tmp_path / "long.jsonl"  # a torn first line, then one longer than what is read
    history = [{"id": n, "action": "read", "args": {"path": "/w/" + "x" * 60}} for n in range(2000)]
    long.write_text(
        '{"instance_id": "i0", "hist\n'
        + json.dumps({"instance_id": "i1", "history": history})
        + "\n"
    )
    for target, what in (
        (other, "a Murmur trace"),
        (claude, "a claude-code session log"),
        (db, "a DuckDB database"),
        (bom, "a Murmur trace"),
        (torn, "a Murmur trace"),
        (copilot, "a log of JSON events"),
        (trajectory, "a SWE-agent trajectory"),
        (hands, "an openhands session log"),
        (long, "an openhands session log"),
    ):
        before = target.read_bytes()
        result = runner.invoke(
            app, ["redundant", str(sessions[0]), "-f", "jsonl", "-o", str(target)]
        )
        assert (result.exit_code, result.stderr) == (
            2,
            f"error[E-IO-004]: refusing to write {target}: it is {what}, not an output of "
            "mur-trace (remove it first to write there)\n",
        )
        assert target.read_bytes() == before
    earlier = tmp_path / "findings.jsonl"
    for _ in range(2):
        result = runner.invoke(
            app, ["redundant", str(sessions[0]), "-f", "jsonl", "-o", str(earlier)]
        )
        assert result.exit_code == 0, result.output
    assert json.loads(earlier.read_text().splitlines()[0])["session_id"] == sessions[0].name


def test_what_killed_writes_left_beside_an_output_is_removed(tmp_path: Path, workdir: Path) -> None:
    """A write killed before it ended (SIGKILL, the out-of-memory killer) left its temporary
    copy of the output, or an export's staging directory, beside the target for good. The
    next write of that target removes them: this user's, this host's, of a process gone;
    not a running one's, another host's, or another target's."""
    ended = subprocess.Popen([sys.executable, "-c", "pass"])
    ended.wait()
    host = writes._HOST
    out = tmp_path / "out.csv"
    stale_file = tmp_path / f".out.csv.{ended.pid}-{host}.0123abcd"
    stale_dir = tmp_path / f".ex.{ended.pid}-{host}.k1ll_3d0"
    kept = [
        tmp_path / f".out.csv.{os.getppid()}-{host}.0123abcd",  # a process running
        tmp_path / f".out.csv.{ended.pid}-00000000.0123abcd",  # another host
        tmp_path / f".other.csv.{ended.pid}-{host}.0123abcd",  # another target
        tmp_path / f".out.csv.{'9' * 20}-{host}.0123abcd",  # no such id (was a traceback)
        # names no write makes (they were removed): a line break after the eight
        # characters, an id in Arabic-Indic digits (read as process 30000)
        tmp_path / f".out.csv.{ended.pid}-{host}.0123abcd\n",
        tmp_path / f".out.csv.\u0663\u0660\u0660\u0660\u0660-{host}.0123abcd",
    ]
    for path in [stale_file, *kept]:
        path.write_text("half\n")
    (stale_dir / "events").mkdir(parents=True)
    (stale_dir / "events" / "part-0.parquet").write_bytes(b"PAR1")
    args = ["--workdir", str(workdir)]
    assert runner.invoke(app, ["redundant", *args, "-f", "csv", "-o", str(out)]).exit_code == 0
    assert not stale_file.exists() and stale_dir.exists()
    ex = tmp_path / "ex"
    assert runner.invoke(app, ["export", *args, "--parquet", str(ex)]).exit_code == 0
    assert not stale_dir.exists() and all(path.exists() for path in kept)
    left = {p.name for p in tmp_path.iterdir()}
    assert left == {"out.csv", "ex", "wd", *(p.name for p in kept)}


def test_a_file_under_dev_is_replaced_whole_as_any_file() -> None:
    # /dev/shm holds ordinary files: a writer stopped midway leaves one as it was
    if not os.path.isdir("/dev/shm") or not os.access("/dev/shm", os.W_OK):
        pytest.skip("no /dev/shm to write in")
    path = Path("/dev/shm") / f"mur-trace-test-{os.getpid()}.txt"
    path.write_text("precious\n")
    try:
        with pytest.raises(KeyboardInterrupt), replaced_file(path, "w") as out:
            out.write("half")
            raise KeyboardInterrupt
        assert path.read_text() == "precious\n"
    finally:
        path.unlink()


def test_an_output_with_a_second_name_is_written_in_place(tmp_path: Path, workdir: Path) -> None:
    # a rename would leave the other name the old text
    out, other = tmp_path / "out.txt", tmp_path / "other.txt"
    out.write_text("old\n")
    os.link(out, other)
    assert (
        runner.invoke(app, ["redundant", "--workdir", str(workdir), "-o", str(out)]).exit_code == 0
    )
    assert other.read_text().endswith(TOTAL + "\n")
    assert out.stat().st_ino == other.stat().st_ino


def test_an_output_no_rename_can_replace_is_copied_over(
    tmp_path: Path, workdir: Path, monkeypatch
) -> None:
    # a file mounted on its own refuses a rename (EBUSY) once all the work is done
    out = tmp_path / "mounted.txt"
    out.write_text("old\n")
    out.chmod(0o600)
    modes = []

    def busy(source, target):
        modes.append(os.stat(source).st_mode & 0o777)  # the text was never more readable
        raise OSError(16, "Device or resource busy")

    monkeypatch.setattr("mur_trace.writes.os.replace", busy)
    assert (
        runner.invoke(app, ["redundant", "--workdir", str(workdir), "-o", str(out)]).exit_code == 0
    )
    assert out.read_text().endswith(TOTAL + "\n")
    assert modes == [0o600] and (out.stat().st_mode & 0o777) == 0o600
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mounted.txt", "wd"]


def test_an_output_named_near_the_longest_name_is_replaced_whole(
    tmp_path: Path, workdir: Path, monkeypatch
) -> None:
    """A name of 244 bytes made a temporary name beside it past 255, which failed, and the
    file was then written in place: emptied at once, so a writer that failed (a file size
    limit, a full device) left it empty. The temporary name is cut to fit: the file is
    replaced whole, or left as it was."""
    out = tmp_path / ("r" * 240 + ".csv")
    out.write_text("precious\n")

    def failed_midway(rel, fmt, stream, *args, **kwargs):
        stream.write("session_id,trace_path\n")
        raise OSError(27, "File too large")

    monkeypatch.setattr("mur_trace.cli.write_rows", failed_midway)
    args = ["redundant", "--workdir", str(workdir), "-f", "csv", "-o", str(out)]
    result = runner.invoke(app, args)
    assert result.exit_code == 2 and "File too large" in result.stderr
    assert out.read_text() == "precious\n"
    monkeypatch.undo()
    assert runner.invoke(app, args).exit_code == 0
    assert len(out.read_text().splitlines()) == 20  # the header, 19 findings
    assert sorted(p.name for p in tmp_path.iterdir()) == [out.name, "wd"]


@pytest.mark.parametrize(
    "name",
    # 255 bytes each; one of the two of two-byte characters is cut inside a character
    # whatever the length of the process id in the staging name's tail
    ["x" * 255, "é" * 127 + "x", "x" + "é" * 127],
    ids=["ascii", "two-byte-first", "one-byte-first"],
)
def test_an_export_into_a_directory_of_the_longest_name_is_staged_beside_it(
    tmp_path: Path, workdir: Path, name: str
) -> None:
    """The staging directory beside the export is named after it, cut so that its name
    with its tail fits the 255 bytes a name may have, and cut between characters: a name
    cut inside a two-byte character was no UTF-8 text, and pyarrow failed on it (a
    traceback). What a killed export left there under the cut name is removed first."""
    assert len(name.encode()) == 255
    target = tmp_path / name
    ended = subprocess.Popen([sys.executable, "-c", "pass"])
    ended.wait()
    tail = f".{ended.pid}-{writes._HOST}."
    start = name  # the longest start of the name, in whole characters, that fits
    while len(f".{start}{tail}k1ll_3d0".encode()) > 255:
        start = start[:-1]
    stale = tmp_path / f".{start}{tail}k1ll_3d0"
    (stale / "events").mkdir(parents=True)
    (stale / "events" / "part-0.parquet").write_bytes(b"PAR1")
    export = ["export", "--parquet", str(target), "--workdir", str(workdir)]
    for _ in range(2):  # into a new directory, then over its own tables
        result = runner.invoke(app, export)
        assert result.exit_code == 0, result.output
    assert sorted(e.name for e in target.iterdir()) == [".mur-trace-export", "events", "findings"]
    events = duckdb.sql(f"SELECT count(*) FROM '{target}/events/*.parquet'").fetchall()
    assert events == [(134,)]
    assert sorted(e.name for e in tmp_path.iterdir()) == sorted([name, "wd"])


def test_an_output_whose_directory_takes_no_new_file_is_copied_over_when_finished(
    tmp_path: Path, workdir: Path, monkeypatch
) -> None:
    """No temporary file beside the output (a directory we may not add to, no inode left):
    the file was opened in place at once, emptied, and a writer that failed left it empty
    or cut. Now the text is finished first, then copied over it; a device too full for it
    fails before a byte of the old file changes."""
    out = tmp_path / "findings.csv"
    out.write_text("precious\n")
    monkeypatch.setattr("mur_trace.writes._beside", lambda real: None)
    args = ["redundant", "--workdir", str(workdir), "-f", "csv", "-o", str(out)]

    def failed_midway(rel, fmt, stream, *args, **kwargs):
        stream.write("session_id,trace_path\n")
        raise OSError(27, "File too large")

    with monkeypatch.context() as m:
        m.setattr("mur_trace.cli.write_rows", failed_midway)
        assert runner.invoke(app, args).exit_code == 2
    assert out.read_text() == "precious\n"

    def full(fd, offset, length):
        raise OSError(28, "No space left on device")

    with monkeypatch.context() as m:
        m.setattr("mur_trace.writes.os.posix_fallocate", full)
        result = runner.invoke(app, args)
    assert result.stderr == f"error[E-IO-003]: cannot write {out}: No space left on device\n"
    assert out.read_text() == "precious\n"
    # a file system that cannot reserve room: written as it comes, as before

    def unsupported(fd, offset, length):
        raise OSError(95, "Operation not supported")

    with monkeypatch.context() as m:
        m.setattr("mur_trace.writes.os.posix_fallocate", unsupported)
        assert runner.invoke(app, args).exit_code == 0
    assert len(out.read_text().splitlines()) == 20
    out.write_text("precious\n")
    # written: the whole text, in the same file; then a shorter one, cut to its length
    inode = out.stat().st_ino
    assert runner.invoke(app, args).exit_code == 0
    assert len(out.read_text().splitlines()) == 20 and out.stat().st_ino == inode
    assert runner.invoke(app, [*args[:-4], "-f", "jsonl", "-o", str(out)]).exit_code == 0
    assert len(out.read_text().splitlines()) == 19 and out.read_text().startswith("{")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["findings.csv", "wd"]


def test_an_output_with_a_second_name_stopped_midway_keeps_its_text(tmp_path: Path) -> None:
    """A hard-linked output is written in place: a writer stopped midway left both names
    empty (it was opened with `open(path, "w")`); the text is now copied over it finished."""
    out, other = tmp_path / "out.txt", tmp_path / "other.txt"
    out.write_text("precious\n")
    os.link(out, other)
    with pytest.raises(KeyboardInterrupt), replaced_file(out, "w", encoding="utf-8") as stream:
        stream.write("half")
        raise KeyboardInterrupt
    assert other.read_text() == "precious\n"
    with replaced_file(out, "w", encoding="utf-8", newline="") as stream:
        stream.write("é\r\n")
    assert other.read_bytes() == "é\r\n".encode() and out.stat().st_ino == other.stat().st_ino


def test_a_replaced_directory_is_written_through_a_link(tmp_path: Path) -> None:
    # as `spark --output` writes: the link stays and the directory it names is filled
    real = tmp_path / "real"
    real.mkdir()
    link = tmp_path / "link"
    link.symlink_to(real)
    with replaced_directory(link, ".mark") as fresh:
        fresh.mkdir()
        (fresh / "part-0.csv").write_text("a\n")
    assert link.is_symlink()
    assert sorted(p.name for p in real.iterdir()) == [".mark", "part-0.csv"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link", "real"]


def test_a_replaced_directory_keeps_files_put_in_it_while_the_writer_ran(
    tmp_path: Path,
) -> None:
    """`spark --output` onto its earlier output: a user's file put there during the job
    (a cluster's minutes) was deleted with the old directory, exit 0, without a word."""
    out = tmp_path / "out"
    for _ in range(2):  # an earlier output, replaced
        with replaced_directory(out, ".mark") as fresh:
            fresh.mkdir()
            (fresh / "part-0.csv").write_text("old\n")
    with pytest.raises(MurTraceError) as refused, replaced_directory(out, ".mark") as fresh:
        fresh.mkdir()
        (fresh / "part-0.csv").write_text("new\n")
        (out / "NOTES.txt").write_text("mine\n")  # meanwhile
    assert refused.value.code == "E-IO-004"
    assert (out / "NOTES.txt").read_text() == "mine\n"
    assert (out / "part-0.csv").read_text() == "old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]  # no staging left
    # a file put where a new output was to be, while the writer ran
    new = tmp_path / "new"
    with pytest.raises(MurTraceError) as refused, replaced_directory(new, ".mark") as fresh:
        fresh.mkdir()
        (fresh / "part-0.csv").write_text("new\n")
        new.write_text("mine\n")  # meanwhile
    assert refused.value.code == "E-IO-004"
    assert new.read_text() == "mine\n"


# ── catalogs ─────────────────────────────────────────────────────────────────


def foreign_database(path: Path) -> Path:
    con = duckdb.connect(str(path))
    con.execute("CREATE TABLE customers (name VARCHAR)")
    con.execute("INSERT INTO customers VALUES ('Ada')")
    con.close()
    return path


def test_a_new_catalog_beside_a_file_named_as_its_log_is_refused(
    tmp_path: Path, workdir: Path
) -> None:
    """DuckDB deletes `c.duckdb.wal` as it creates `c.duckdb`: a file of that name (someone's
    notes, another database's log) was lost to an ingest. Refused; once moved, the catalog
    is made."""
    db, wal = tmp_path / "c.duckdb", tmp_path / "c.duckdb.wal"
    wal.write_text("my notes\n")
    result = runner.invoke(app, ["ingest", "--db", str(db), "--workdir", str(workdir)])
    assert (result.exit_code, result.stderr) == (
        2,
        f"error[E-IO-004]: refusing to write the catalog {db}: {wal} is there, which DuckDB "
        "would delete as it creates the catalog (move it first)\n",
    )
    assert wal.read_text() == "my notes\n" and not db.exists()
    db.touch()  # an empty file (a first ingest killed), which DuckDB makes a database too
    result = runner.invoke(app, ["ingest", "--db", str(db), "--workdir", str(workdir)])
    assert result.exit_code == 2 and result.stderr.startswith("error[E-IO-004]: "), result.stderr
    assert wal.read_text() == "my notes\n" and db.read_bytes() == b""
    db.unlink()
    wal.rename(tmp_path / "notes.txt")
    assert runner.invoke(app, ["ingest", "--db", str(db), "--workdir", str(workdir)]).exit_code == 0
    assert runner.invoke(app, ["ingest", "--db", str(db), "--workdir", str(workdir)]).exit_code == 0


@pytest.mark.parametrize("rebuild", [True, False])
def test_a_database_that_is_not_a_catalog_is_never_written(
    tmp_path: Path, workdir: Path, rebuild: bool
) -> None:
    db = foreign_database(tmp_path / "other.duckdb")
    before = checksums(db)
    result = runner.invoke(
        app, ["ingest", "--db", str(db), "--workdir", str(workdir), *(["--rebuild"] * rebuild)]
    )
    assert result.exit_code == 2
    assert "is not a mur-trace catalog" in result.stderr
    assert checksums(db) == before
    assert not Path(f"{db}.wal").exists()
    assert duckdb.connect(str(db), read_only=True).sql("FROM customers").fetchall() == [("Ada",)]


@pytest.mark.parametrize(
    "meta",
    [
        ["INSERT INTO catalog_meta VALUES ('schema_version', 'abc')"],
        ["INSERT INTO catalog_meta VALUES ('schema_version', NULL)"],
        [],  # no version row
        ["INSERT INTO catalog_meta VALUES ('schema_version', '2')"],  # and no other table
        # its tables named as an older catalog's, not their columns: a rebuild failed on
        # DuckDB's Binder error, said as a failure to write
        [
            "INSERT INTO catalog_meta VALUES ('schema_version', '5')",
            *(f"CREATE TABLE {t} (a INTEGER)" for t in ("events", "traces", "trace_files")),
        ],
    ],
)
def test_a_catalog_meta_that_is_not_ours_is_a_clear_error(
    tmp_path: Path, workdir: Path, meta: list[str]
) -> None:
    db = tmp_path / "odd.duckdb"
    con = duckdb.connect(str(db))
    con.execute("CREATE TABLE catalog_meta (key VARCHAR, value VARCHAR)")
    for statement in meta:
        con.execute(statement)
    con.close()
    before = checksums(db)
    for command in (
        ["redundant", "--db", str(db)],
        ["report", "--db", str(db)],
        ["ingest", "--db", str(db), "--workdir", str(workdir)],
    ):
        result = runner.invoke(app, command)
        assert result.exit_code == 2, (command, result.output)
        assert result.stderr == f"error[E-IO-003]: {db} is not a mur-trace catalog\n"
    refused(
        runner.invoke(app, ["ingest", "--db", str(db), "--workdir", str(workdir), "--rebuild"]),
        "not a mur-trace catalog",
    )
    assert checksums(db) == before


def test_rebuild_of_a_catalog_drops_only_its_own_tables(tmp_path: Path, workdir: Path) -> None:
    db = tmp_path / "cat.duckdb"
    assert runner.invoke(app, ["ingest", "--db", str(db), "--workdir", str(workdir)]).exit_code == 0
    con = duckdb.connect(str(db))
    con.execute("CREATE TABLE my_notes AS SELECT 'mine' AS note")
    con.close()
    result = runner.invoke(app, ["ingest", "--db", str(db), "--workdir", str(workdir), "--rebuild"])
    assert result.exit_code == 0, result.output
    assert "7 new" in result.output
    con = duckdb.connect(str(db), read_only=True)
    assert con.sql("FROM my_notes").fetchall() == [("mine",)]


def test_a_catalog_inside_the_workdir_it_reads_is_refused(workdir: Path) -> None:
    before = checksums(workdir)
    result = runner.invoke(
        app, ["ingest", "--db", f"{workdir}/cat.duckdb", "--workdir", str(workdir)]
    )
    refused(result, "lies inside the input")
    assert checksums(workdir) == before


def test_a_catalog_that_is_an_input_trace_is_refused(workdir: Path) -> None:
    trace = workdir / S1 / "trace.jsonl"
    before = checksums(workdir)
    refused(runner.invoke(app, ["ingest", "--db", str(trace), str(trace)]), "it is the input")
    assert checksums(workdir) == before


def test_output_onto_the_catalog_being_read_is_refused(tmp_path: Path, workdir: Path) -> None:
    db = tmp_path / "cat.duckdb"
    assert runner.invoke(app, ["ingest", "--db", str(db), "--workdir", str(workdir)]).exit_code == 0
    before = checksums(db)
    refused(runner.invoke(app, ["redundant", "--db", str(db), "-o", str(db)]), "it is the input")
    # the catalog's traces are inputs too, wherever they lie
    trace = str(workdir / S1 / "trace.jsonl")
    refused(runner.invoke(app, ["redundant", "--db", str(db), "-f", "csv", "-o", trace]))
    assert checksums(db) == before


# ── synth ────────────────────────────────────────────────────────────────────


def test_synth_into_a_directory_it_did_not_write_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "thesis.tex").write_text("years of work")
    result = runner.invoke(app, ["synth", str(out), "--sessions", "2"])
    refused(result, "holds files this command did not write")
    assert [p.name for p in out.iterdir()] == ["thesis.tex"]


def test_synth_again_replaces_its_own_sessions(tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert runner.invoke(app, ["synth", str(out), "--sessions", "5"]).exit_code == 0
    assert runner.invoke(app, ["synth", str(out), "--sessions", "2", "--seed", "3"]).exit_code == 0
    sessions = {p.name for p in (out / "workdir").iterdir()}
    lines = (out / "truth.jsonl").read_text().splitlines()
    truth = {json.loads(line)["session_id"] for line in lines}
    assert len(sessions) == 2 and truth <= sessions


# ── the rule itself ──────────────────────────────────────────────────────────


def test_check_target_compares_resolved_paths(tmp_path: Path) -> None:
    workdir = tmp_path / "wd"
    (workdir / "ses_a").mkdir(parents=True)
    (workdir / "ses_a" / "trace.jsonl").write_text("{}\n")
    check_target(tmp_path / "out.csv", [workdir])  # beside: fine
    for target in (workdir, tmp_path, workdir / "ses_a", workdir / ".." / "wd" / "x"):
        with pytest.raises(MurTraceError) as caught:
            check_target(target, [workdir])
        assert caught.value.code == "E-IO-004"


def test_check_target_knows_a_trace_a_workdir_reaches_through_a_link(tmp_path: Path) -> None:
    """A workdir's trace that is a link (symbolic or hard) to the target, or a symbolic
    link that would create it, is a trace of the workdir: refused without being told the
    workdir's files."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    workdir = tmp_path / "wd"
    for name in ("ses_soft", "ses_hard", "ses_dangling", "ses_plain"):
        (workdir / name).mkdir(parents=True)
    (workdir / "ses_plain" / "trace.jsonl").write_text("{}\n")
    soft, hard = elsewhere / "soft.jsonl", elsewhere / "hard.jsonl"
    soft.write_text("{}\n")
    hard.write_text("{}\n")
    (workdir / "ses_soft" / "trace.jsonl").symlink_to(soft)
    os.link(hard, workdir / "ses_hard" / "trace.jsonl")
    (workdir / "ses_dangling" / "trace.jsonl").symlink_to(elsewhere / "new.jsonl")
    respelt = elsewhere / ".." / "elsewhere" / "hard.jsonl"  # another spelling of its directory
    for target in (soft, hard, respelt, elsewhere / "new.jsonl"):
        with pytest.raises(MurTraceError) as caught:
            check_target(target, [workdir])
        assert caught.value.code == "E-IO-004"
        assert caught.value.message.endswith(f"it is a trace of the input {workdir}")
    for target in (elsewhere / "other.jsonl", tmp_path / "out.csv"):  # not reached: fine
        check_target(target, [workdir])
    assert not (elsewhere / "new.jsonl").exists()


def test_the_api_never_writes_an_input(tmp_path: Path, workdir: Path) -> None:
    from mur_trace.catalog import ingest
    from mur_trace.synth import synthesize

    with pytest.raises(MurTraceError) as caught:
        ingest(workdir / S1 / "trace.jsonl", [workdir / S1 / "trace.jsonl"])
    assert caught.value.code == "E-IO-004"
    before = checksums(workdir)
    with pytest.raises(MurTraceError) as caught:
        synthesize(workdir, 1)
    assert caught.value.code == "E-IO-004"
    assert checksums(workdir) == before


def _export(target: Path, version: str) -> None:
    """An export of two tables through owned_directory, each file holding `version`."""
    with owned_directory(target, ".mark", ["events", "findings"]) as staging:
        for part in ("events", "findings"):
            (staging / part).mkdir()
            (staging / part / "part-0.parquet").write_text(version)


@pytest.mark.parametrize("after", [1, 2, 3])
def test_ctrl_c_amid_the_moves_of_an_export_leaves_one_whole_export(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, after: int
) -> None:
    # the old events moved out, then Ctrl-C before the new ones moved in, lost both
    target = tmp_path / "out"
    _export(target, "old")
    moves = 0
    real_replace = os.replace

    def replace(src: str, dst: str) -> None:
        nonlocal moves
        real_replace(src, dst)
        moves += 1
        if moves == after:
            signal.raise_signal(signal.SIGINT)

    monkeypatch.setattr(writes.os, "replace", replace)
    with pytest.raises(KeyboardInterrupt):  # acted on once the moves are done
        _export(target, "new")
    monkeypatch.undo()
    held = {p: (target / p / "part-0.parquet").read_text() for p in ("events", "findings")}
    assert held == {"events": "new", "findings": "new"}
    assert sorted(e.name for e in target.iterdir()) == [".mark", "events", "findings"]


def _moves_failing(monkeypatch: pytest.MonkeyPatch, fails) -> None:
    """`os.replace` in writes failing (`Invalid cross-device link`) at the moves, counted
    from 1, for which `fails(n)` is true."""
    moves = 0
    real_replace = os.replace

    def replace(src: str, dst: str) -> None:
        nonlocal moves
        moves += 1
        if fails(moves):
            raise OSError(18, "Invalid cross-device link")
        real_replace(src, dst)

    monkeypatch.setattr(writes.os, "replace", replace)


@pytest.mark.parametrize("failing", [2, 3, 4])
def test_a_move_that_fails_amid_an_export_puts_the_old_one_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, failing: int
) -> None:
    """The old events moved out, then the new ones could not move in (`Invalid
    cross-device link`: a staging directory on another file system than the output): the
    old ones were deleted with the directory they had been moved into."""
    target = tmp_path / "out"
    _export(target, "old")
    _moves_failing(monkeypatch, lambda move: move == failing)
    with pytest.raises(MurTraceError, match=f"cannot write {target}: Invalid cross-device link"):
        _export(target, "new")
    monkeypatch.undo()
    held = {p: (target / p / "part-0.parquet").read_text() for p in ("events", "findings")}
    assert held == {"events": "old", "findings": "old"}
    assert sorted(e.name for e in target.iterdir()) == [".mark", "events", "findings"]
    assert [e.name for e in tmp_path.iterdir()] == ["out"]  # nothing left beside it


@pytest.fixture
def mount_point(tmp_path: Path):
    """A directory bind-mounted onto another (a container's volume): no rename crosses
    into it. Root only (the suite's CI runs as root); skipped where `mount` is refused."""
    source, point = tmp_path / "source", tmp_path / "point"
    source.mkdir()
    yield from _mounted(point, ["--bind", str(source)])


def _mounted(point: Path, how: list[str]):
    """`point` (made) with a file system mounted on it (`mount HOW POINT`) while the test
    runs, then unmounted; the test skipped where mounting is refused (not root)."""
    point.mkdir()
    try:
        mounted = subprocess.run(["mount", *how, str(point)], capture_output=True)
    except OSError:
        pytest.skip("no mount command")
    if mounted.returncode != 0:
        pytest.skip("mount refused: " + mounted.stderr.decode(errors="replace").strip())
    try:
        yield point
    finally:
        subprocess.run(["umount", str(point)], check=False)


def test_an_export_into_a_mount_point_writes_its_parts_into_it(
    tmp_path: Path, workdir: Path, mount_point: Path
) -> None:
    """It staged beside the output, on the file system above the mount: every export into
    a volume failed with `[Errno 18] Invalid cross-device link`, and deleted the earlier
    export's events on its way."""
    export = ["export", "--parquet", str(mount_point), "--workdir", str(workdir)]
    first = runner.invoke(app, export)
    assert first.exit_code == 0, first.output
    again = runner.invoke(app, export)  # over its own: the old parts replaced
    assert again.exit_code == 0, again.output
    events = duckdb.sql(f"SELECT count(*) FROM '{mount_point}/events/*.parquet'").fetchall()
    assert events == [(134,)]
    assert sorted(e.name for e in mount_point.iterdir()) == [
        ".mur-trace-export", "events", "findings"
    ]  # fmt: skip
    assert sorted(e.name for e in tmp_path.iterdir()) == ["point", "source", "wd"]
    for part in ("events", "findings"):  # what the bind mount shows is the source's
        assert (tmp_path / "source" / part).is_dir()


def test_a_spark_output_onto_a_mount_point_is_refused_before_the_job(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Spark's output replaces its directory whole, which a mount point cannot be: the
    refusal came after the whole job, as `[Errno 16] Device or resource busy`."""
    point = tmp_path / "point"
    point.mkdir()
    monkeypatch.setattr(writes, "_mount_point", lambda directory: directory == point)
    with pytest.raises(MurTraceError, match="it is a mount point"), replaced_directory(point, ".m"):
        raise AssertionError("the job ran")


def test_synth_into_a_mount_point_writes_its_parts_into_it(
    tmp_path: Path, mount_point: Path
) -> None:
    """As export: synth into a volume failed, and deleted the earlier synth's workdir."""
    for seed in ("1", "2"):
        made = runner.invoke(app, ["synth", str(mount_point), "--sessions", "2", "--seed", seed])
        assert made.exit_code == 0, made.output
    assert len(list((mount_point / "workdir").iterdir())) == 2
    assert sorted(e.name for e in tmp_path.iterdir()) == ["point", "source"]


def _no_new_directory_in(parent: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Writes' temporary directories refused in `parent` (`Permission denied`), as a
    directory of root's refuses a user's: as root nothing is refused."""
    real_mkdtemp = writes.tempfile.mkdtemp

    def mkdtemp(prefix: str = "", dir: str | None = None) -> str:  # noqa: A002
        if Path(dir or "") == parent:
            raise PermissionError(13, "Permission denied")
        return real_mkdtemp(prefix=prefix, dir=dir)

    monkeypatch.setattr(writes.tempfile, "mkdtemp", mkdtemp)


def test_an_export_into_a_directory_whose_parent_takes_no_new_one_is_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, workdir: Path
) -> None:
    """A volume of the user's under a directory of root's: staging beside it was refused,
    and so was the export (`cannot write out: Permission denied`, which it could). As root
    nothing is refused: the refusal is simulated."""
    target = tmp_path / "out"
    target.mkdir()
    _no_new_directory_in(tmp_path, monkeypatch)
    result = runner.invoke(app, ["export", "--parquet", str(target), "--workdir", str(workdir)])
    assert result.exit_code == 0, result.output
    assert sorted(e.name for e in target.iterdir()) == [".mur-trace-export", "events", "findings"]


def test_old_tables_that_cannot_be_moved_back_are_kept_and_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A move in fails, and so does every move back: the old tables stay where they were
    moved to, and the error says where (it was deleted with that directory)."""
    target = tmp_path / "out"
    _export(target, "old")
    _moves_failing(monkeypatch, lambda move: move >= 2)  # the old events out; nothing after
    with pytest.raises(MurTraceError, match="what it held is in ") as raised:
        _export(target, "new")
    monkeypatch.undo()
    kept = Path(raised.value.message.rsplit("what it held is in ", 1)[1])
    assert (kept / "events" / "part-0.parquet").read_text() == "old"


def test_a_directory_of_an_export_no_one_may_list_is_not_taken_for_ours(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A user's directory in an earlier export that cannot be listed (`chmod 000`): its
    files went unseen, the export again moved it aside with the tables, under a hidden
    name. It is refused, as files the command did not write are. As root every directory
    may be listed: the refusal is simulated."""
    target = tmp_path / "out"
    _export(target, "old")
    (target / "events" / "mine").mkdir()
    (target / "events" / "mine" / "data.txt").write_text("precious")
    real_scandir = os.scandir

    def scandir(path="."):
        if Path(path).name == "mine":
            raise PermissionError(13, "Permission denied", str(path))
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", scandir)
    with pytest.raises(MurTraceError, match="it holds files this command did not write"):
        _export(target, "new")
    monkeypatch.undo()
    assert (target / "events" / "mine" / "data.txt").read_text() == "precious"
    assert (target / "events" / "part-0.parquet").read_text() == "old"


@pytest.fixture
def small_device(tmp_path: Path):
    """A file system of 256 KB (tmpfs), to fill. Root only; skipped where `mount` is refused."""
    yield from _mounted(tmp_path / "small", ["-t", "tmpfs", "-o", "size=256k", "tmpfs"])


def test_a_full_device_is_said_of_the_output_or_the_temporary_directory(
    tmp_path: Path, small_device: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """export and synth onto a full device said `[Errno 28] Error writing bytes to file`,
    naming nothing; an ingest whose temporary directory filled up blamed its catalog."""
    made = runner.invoke(app, ["synth", str(tmp_path / "big"), "--sessions", "300", "--seed", "2"])
    assert made.exit_code == 0, made.output
    workdir = tmp_path / "big" / "workdir"
    out = small_device / "ex"
    exported = runner.invoke(app, ["export", "--parquet", str(out), "--workdir", str(workdir)])
    assert (exported.exit_code, exported.stderr) == (
        2, f"error[E-IO-003]: cannot write {out}: No space left on device\n"
    )  # fmt: skip
    synth = runner.invoke(app, ["synth", str(small_device / "sy"), "--sessions", "300"])
    assert (synth.exit_code, synth.stderr) == (
        2, f"error[E-IO-003]: cannot write {small_device / 'sy'}: No space left on device\n"
    )  # fmt: skip
    monkeypatch.setenv("TMPDIR", str(small_device))
    monkeypatch.setattr(writes.tempfile, "tempdir", None)  # read TMPDIR again
    catalog = tmp_path / "c.duckdb"
    ingested = runner.invoke(app, ["ingest", "--db", str(catalog), str(workdir)])
    assert ingested.exit_code == 2
    assert ingested.stderr == (
        "error[E-IO-003]: failed to write the ingest's copies of the traces in the temporary "
        f"directory {small_device} (TMPDIR): No space left on device; catalog {catalog} is as "
        "before this ingest\n"
    )


def test_what_a_killed_export_left_inside_its_target_is_removed_first(
    tmp_path: Path, workdir: Path
) -> None:
    """An export into a mount point (or a directory whose parent takes no new one) stages
    inside its target; killed, it left that directory there, and every later export was
    refused (`it holds files this command did not write`) before it was cleared."""
    ended = subprocess.Popen([sys.executable, "-c", "pass"])
    ended.wait()
    target = tmp_path / "ex"
    stale = target / f".ex.{ended.pid}-{writes._HOST}.k1ll_3d0"
    (stale / "events").mkdir(parents=True)
    (stale / "events" / "part-0.parquet").write_bytes(b"PAR1")
    result = runner.invoke(app, ["export", "--workdir", str(workdir), "--parquet", str(target)])
    assert result.exit_code == 0, result.output
    assert sorted(e.name for e in target.iterdir()) == [".mur-trace-export", "events", "findings"]


def test_a_spark_output_whose_parent_takes_no_new_directory_is_refused_before_the_job(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Staged inside the output, as an export is, the output could not be moved into its
    own staging directory: `[Errno 22] Invalid argument` after the whole job. It is refused
    first, as before (`cannot write …: Permission denied`). As root nothing is refused: the
    refusal is simulated."""
    target = tmp_path / "sout"
    target.mkdir()
    _no_new_directory_in(tmp_path, monkeypatch)
    with pytest.raises(MurTraceError, match="Permission denied"), replaced_directory(target, ".m"):
        raise AssertionError("the job ran")
