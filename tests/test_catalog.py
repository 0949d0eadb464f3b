"""The persistent catalog: incremental ingest, schema versions, locks; the Parquet export."""

from __future__ import annotations

import csv
import io
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import pytest
from typer.testing import CliRunner

import mur_trace
from mur_trace import queries
from mur_trace.catalog import SCHEMA_VERSION, ingest
from mur_trace.cli import EXPORT_TABLES, app
from mur_trace.load import batches

runner = CliRunner()


def findings(trace: mur_trace.Trace) -> list[tuple]:
    columns = "trace_path, line, turn, resource, prior_line, prior_turn"
    return sorted(trace.redundant_calls().select(columns).fetchall())


def _catalog_of(workdir: Path, tmp_path: Path) -> tuple[Path, list[tuple]]:
    """A catalog of `workdir`'s sessions, and the findings it holds."""
    db = tmp_path / "catalog.duckdb"
    ingest(db, workdir=workdir)
    return db, findings(mur_trace.load(db=db))


@pytest.fixture
def workdir(tmp_path: Path, sample_workdir: Path) -> Path:
    wd = tmp_path / "workdir"
    shutil.copytree(sample_workdir, wd)
    return wd


def test_catalog_gives_the_findings_of_the_traces(workdir: Path, tmp_path: Path) -> None:
    db = tmp_path / "catalog.duckdb"
    report = ingest(db, workdir=workdir)
    assert (report.new, report.events) == (7, 134)
    from_files = mur_trace.load(workdir=workdir)
    from_catalog = mur_trace.load(db=db)
    assert [(p.split("/")[-2], *rest) for p, *rest in findings(from_catalog)] == [
        (p.split("/")[-2], *rest) for p, *rest in findings(from_files)
    ]
    ctx = from_catalog.redundant_calls("context").aggregate("count(*)").fetchall()
    assert ctx == [(9,)]


def test_stored_findings_come_in_report_order(workdir: Path, tmp_path: Path) -> None:
    # read without a sort, they must be stored in (trace_path, line) order, also after an
    # ingest adds sessions that sort first and a trace that grew
    db = tmp_path / "catalog.duckdb"
    sessions = sorted(workdir.glob("ses_*"))
    moved = [workdir / f"ses_0{i}" for i in range(2)]
    for session, target in zip(sessions[-2:], moved, strict=True):
        session.rename(tmp_path / target.name)
    ingest(db, workdir=workdir)
    for target in moved:
        (tmp_path / target.name).rename(target)
    grown = sessions[0] / "trace.jsonl"
    grown.write_text(grown.read_text() + grown.read_text().splitlines(keepends=True)[2])
    assert ingest(db, workdir=workdir).new == 2

    def rows(path: Path) -> list[tuple]:
        result = runner.invoke(app, ["redundant", "--db", str(path), "-f", "csv"])
        return [tuple(line.split(",")[1:3]) for line in result.stdout.splitlines()[1:]]

    expected = sorted(rows(db), key=lambda r: (r[0], int(r[1])))
    assert len(expected) == 20 and rows(db) == expected  # 19, and the appended read
    # a catalog from before the order was kept is sorted when read
    old = tmp_path / "old.duckdb"
    shutil.copy(db, old)
    with duckdb.connect(str(old)) as con:
        con.execute("DELETE FROM catalog_meta WHERE key = 'findings_in_order'")
        con.execute(
            "CREATE OR REPLACE TABLE stored_redundant_reference AS "
            "SELECT * FROM stored_redundant_reference ORDER BY line DESC"
        )
    assert rows(old) == expected


def test_incremental_ingest(workdir: Path, tmp_path: Path) -> None:
    db = tmp_path / "catalog.duckdb"
    ingest(db, workdir=workdir)
    sessions = sorted(workdir.glob("ses_*"))
    grown = sessions[0] / "trace.jsonl"
    extra = {
        "event_type": "tool_call",
        "turn": 9,
        "tool_name": "editor",
        "status": "ok",
        "input": {"operation": "read_file", "path": "src/lib.rs"},
        "state_effect": "read",
    }
    grown.write_text(grown.read_text() + json.dumps(extra) + "\n")
    rewritten = sessions[1] / "trace.jsonl"
    lines = rewritten.read_text().splitlines(keepends=True)
    rewritten.write_text("".join(lines[:-1]))  # the session_end is gone
    shutil.rmtree(sessions[2])

    report = ingest(db, workdir=workdir)
    assert (report.new, report.appended, report.rewritten, report.unchanged, report.deleted) == (
        0, 1, 1, 4, 1
    )  # fmt: skip
    assert report.events == 1 + len(lines) - 1  # the appended line; the rewritten trace

    with duckdb.connect(str(db), read_only=True) as con:
        assert con.execute("SELECT count(DISTINCT trace_path) FROM events").fetchall() == [(6,)]
        grown_lines = con.execute(
            "SELECT count(*), max(line) FROM events WHERE trace_path = $p", {"p": str(grown)}
        ).fetchall()
    assert grown_lines == [(20, 20)]  # 19 lines before, one appended
    # the catalog answers as the traces do now
    assert [r[1:] for r in findings(mur_trace.load(db=db))] == [
        r[1:] for r in findings(mur_trace.load(workdir=workdir))
    ]
    # and so do the per-session metrics, which count what the calls cost (stored per call)
    metrics = [
        trace.session_metrics().order("trace_path").fetchall()
        for trace in (mur_trace.load(db=db), mur_trace.load(workdir=workdir))
    ]
    assert metrics[0] == metrics[1]
    assert ingest(db, workdir=workdir).unchanged == 6


def _rewrite_keeping_time(workdir: Path) -> tuple[Path, str]:
    """Rewrite the editor session so that its line 7 reads another file, of a name as long
    (no longer a re-read of line 3's: 18 findings in the workdir, not 19), keeping the
    trace's size and modification time; its path and its text before."""
    editor = workdir / "ses_01a21715468070018000000000001eef" / "trace.jsonl"
    kept = editor.stat()
    text = editor.read_text()
    read = '"turn":2,"tool_name":"editor","input":{"operation":"read_file","path":"src/widget.r'
    assert text.count(read + 's"') == 1
    editor.write_text(text.replace(read + 's"', read + 'x"'))
    os.utime(editor, ns=(kept.st_atime_ns, kept.st_mtime_ns))
    assert (editor.stat().st_size, editor.stat().st_mtime_ns) == (kept.st_size, kept.st_mtime_ns)
    return editor, text


def test_a_rewrite_that_keeps_size_and_time_is_read_again(workdir: Path, tmp_path: Path) -> None:
    # a trace restored from a copy (`cp -p`, `rsync -a`, `tar x`) keeps the time it is given:
    # before, ingest took such a file for unchanged, and the catalog kept the old events
    db = tmp_path / "catalog.duckdb"
    ingest(db, workdir=workdir)
    editor, text = _rewrite_keeping_time(workdir)
    report = ingest(db, workdir=workdir)
    assert (report.rewritten, report.unchanged) == (1, 6)
    assert len(findings(mur_trace.load(db=db))) == 18
    assert findings(mur_trace.load(db=db)) == findings(mur_trace.load(workdir=workdir))
    # a change of status alone (its mode) is no change: the same bytes
    editor.chmod(0o600)
    assert ingest(db, workdir=workdir).unchanged == 7
    # a catalog that does not say when it was last ingested compares every file's bytes
    with duckdb.connect(str(db)) as con:
        con.execute("DELETE FROM catalog_meta WHERE key = 'last_ingest_started_ns'")
    kept = editor.stat()
    editor.write_text(text)
    os.utime(editor, ns=(kept.st_atime_ns, kept.st_mtime_ns))
    report = ingest(db, workdir=workdir)
    assert (report.rewritten, report.unchanged) == (1, 6)
    assert len(findings(mur_trace.load(db=db))) == 19


def test_a_failed_ingest_leaves_the_catalog_as_it_was(workdir: Path, tmp_path: Path,
                                                      monkeypatch) -> None:  # fmt: skip
    db, before = _catalog_of(workdir, tmp_path)
    trace = sorted(workdir.glob("ses_*"))[0] / "trace.jsonl"
    trace.write_text(trace.read_text().replace("src/lib.rs", "src/other.rs"))

    def killed(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr("mur_trace.catalog.load_traces", killed)
    with pytest.raises(KeyboardInterrupt):
        ingest(db, workdir=workdir)
    assert findings(mur_trace.load(db=db)) == before


def test_ingest_says_how_many_traces_cannot_be_read(workdir: Path, tmp_path: Path) -> None:
    """The seven sample sessions and `ses_bad`, whose trace is not JSON: the catalog keeps
    all eight (a command over it says why one cannot be analysed), and the summary says
    that one of them cannot be read (before, `8 new` alone, beside its warning)."""
    bad = workdir / "ses_bad" / "trace.jsonl"
    bad.parent.mkdir()
    bad.write_text("not json\n")
    db = tmp_path / "c.duckdb"
    result = runner.invoke(app, ["ingest", "--db", str(db), "--workdir", str(workdir)])
    assert result.exit_code == 0, result.output
    assert result.stdout == (
        f"{db}: 8 new, 0 appended, 0 rewritten, 0 unchanged, 0 deleted traces; 134 events "
        "added; 1 cannot be read (named above)\n"
    )
    assert result.stderr == f"warning[E-TRC-001]: {bad}:1: not valid JSON (skipped)\n"
    # on a terminal, where both streams show as they are written, the trace it names comes
    # first (before, the summary said "named above" over the warning that named it)
    other = tmp_path / "other.duckdb"
    command = ["ingest", "--db", str(other), "--workdir", str(workdir)]
    shown = subprocess.run(
        [sys.executable, "-m", "mur_trace", *command],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )  # fmt: skip
    assert shown.stdout.splitlines() == [
        f"warning[E-TRC-001]: {bad}:1: not valid JSON (skipped)",
        f"{other}: 8 new, 0 appended, 0 rewritten, 0 unchanged, 0 deleted traces; 134 events "
        "added; 1 cannot be read (named above)",
    ]


def test_ingesting_a_workdir_again_keeps_what_was_ingested_beneath_it(
    workdir: Path, tmp_path: Path
) -> None:
    # a workdir nested in another, and a trace named by its path: the outer workdir does
    # not find them, but they are not gone
    sessions = sorted(workdir.glob("ses_*"))
    archive = workdir / "archive"
    archive.mkdir()
    sessions[0].rename(archive / sessions[0].name)
    db = tmp_path / "catalog.duckdb"
    assert ingest(db, workdir=workdir).new == 6
    assert ingest(db, workdir=archive).new == 1
    assert ingest(db, [sessions[1] / "trace.jsonl"]).unchanged == 1
    again = ingest(db, workdir=workdir)
    assert (again.unchanged, again.deleted) == (6, 0)
    assert mur_trace.load(db=db).session_count() == 7
    shutil.rmtree(archive / sessions[0].name)  # now it is gone
    assert ingest(db, workdir=workdir).deleted == 1
    assert mur_trace.load(db=db).session_count() == 6


def _bad_workdir(tmp_path: Path) -> Path:
    """A workdir whose one trace cannot be analysed (a line that is not JSON)."""
    session = tmp_path / "bad" / "ses_00000000000000000000000000000001"
    session.mkdir(parents=True)
    (session / "trace.jsonl").write_text('{"event_type":"tool_call"\n')
    return session.parent


def test_a_failed_first_ingest_keeps_the_catalog_another_committed_meanwhile(
    workdir: Path, tmp_path: Path, monkeypatch
) -> None:
    # two ingests into a new catalog at once: the one that fails found no file, waited for
    # the other's lock, and then holds that one's committed catalog, which must stay
    db = tmp_path / "catalog.duckdb"
    bad = _bad_workdir(tmp_path)
    from mur_trace import catalog

    connect = catalog._connect

    def after_another(path: Path, read_only: bool):
        if not read_only and not path.exists():
            monkeypatch.setattr(catalog, "_connect", connect)
            ingest(db, workdir=workdir)  # the other ingest, done while this one waited
        return connect(path, read_only)

    monkeypatch.setattr(catalog, "_connect", after_another)
    with pytest.raises(mur_trace.MurTraceError) as caught:
        ingest(db, workdir=bad)
    assert caught.value.code == "E-TRC-001"
    assert db.exists()
    assert mur_trace.load(db=db).session_count() == 7


def test_an_ingest_finds_the_catalog_it_waited_for_removed(
    workdir: Path, tmp_path: Path, monkeypatch
) -> None:
    # the catalog was being made by another ingest that failed and removed it while this
    # one waited to look at it: this one makes it
    db = tmp_path / "catalog.duckdb"
    db.write_bytes(b"\0" * 8 + b"DUCK" + b"\0" * 100)  # the other's file, being made
    from mur_trace import catalog

    connect = catalog._connect

    def removed_meanwhile(path: Path, read_only: bool):
        if read_only:
            path.unlink()  # the other ingest failed and removed what it had made
            raise mur_trace.MurTraceError("E-IO-003", f"cannot open catalog {path}: gone")
        return connect(path, read_only)

    monkeypatch.setattr(catalog, "_connect", removed_meanwhile)
    assert ingest(db, workdir=workdir).new == 7
    monkeypatch.setattr(catalog, "_connect", connect)
    assert mur_trace.load(db=db).session_count() == 7


def test_a_first_ingest_that_fails_in_duckdb_leaves_no_file(
    workdir: Path, tmp_path: Path, monkeypatch
) -> None:
    db = tmp_path / "catalog.duckdb"

    def broken(*args, **kwargs):
        raise duckdb.IOException("IO Error: no space left on device")

    monkeypatch.setattr("mur_trace.catalog._hand_over", broken)
    with pytest.raises(mur_trace.MurTraceError) as caught:
        ingest(db, workdir=workdir)
    assert caught.value.code == "E-IO-003"
    assert "no space left" in caught.value.message
    assert sorted(p.name for p in tmp_path.iterdir()) == ["workdir"]


def test_a_failed_ingest_removes_the_file_it_made_after_another_removed_theirs(
    workdir: Path, tmp_path: Path, monkeypatch
) -> None:
    # another ingest had made the file (empty) when this one looked, then failed and removed
    # it while this one waited: this one makes the file again, and it is this one's
    db = tmp_path / "catalog.duckdb"
    duckdb.connect(str(db)).close()
    time.sleep(0.05)  # the file made again has a later change time (the clock's tick: ≤ 10 ms)
    connect = mur_trace.catalog._connect

    def after_the_other_failed(path, read_only):
        if not read_only:  # this ingest's turn: the other one has removed its file
            path.unlink()
        return connect(path, read_only=read_only)

    def broken(*args, **kwargs):
        raise duckdb.IOException("IO Error: no space left on device")

    monkeypatch.setattr("mur_trace.catalog._connect", after_the_other_failed)
    monkeypatch.setattr("mur_trace.catalog._hand_over", broken)
    with pytest.raises(mur_trace.MurTraceError):
        ingest(db, workdir=workdir)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["workdir"]


def test_a_second_ingest_fails_clearly_while_the_catalog_is_busy(
    workdir: Path, tmp_path: Path, monkeypatch
) -> None:
    db = tmp_path / "catalog.duckdb"
    ingest(db, workdir=workdir)
    monkeypatch.setattr("mur_trace.catalog.LOCK_WAIT", 0.5)
    import subprocess
    import sys

    holder = subprocess.Popen(
        [sys.executable, "-c",
         f"import duckdb, time; c = duckdb.connect({str(db)!r}); print('held', flush=True); "
         "time.sleep(30)"],
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert holder.stdout.readline().strip() == "held"
        with pytest.raises(mur_trace.MurTraceError) as caught:
            ingest(db, workdir=workdir)
        assert caught.value.code == "E-IO-003"
        assert "in use by another process" in caught.value.message
    finally:
        holder.kill()
        holder.wait()


@pytest.fixture
def openhands(tmp_path: Path) -> Path:
    """A directory holding the OpenHands output of the real sessions (three instances)."""
    where = tmp_path / "openhands"
    shutil.copytree(Path(__file__).parent / "fixtures" / "real" / "openhands", where)
    for expected in where.glob("*.expected.csv"):
        expected.unlink()
    return where


def _of_both(workdir: Path, openhands: Path, tmp_path: Path) -> Path:
    """A catalog of the sample workdir and, ingested after, the OpenHands output."""
    db = tmp_path / "catalog.duckdb"
    ingest(db, workdir=workdir)
    ingest(db, [openhands])
    return db


def _held(db: Path) -> list[str]:
    with duckdb.connect(str(db), read_only=True) as con:
        return [
            row[0] for row in con.execute("SELECT trace_path FROM traces ORDER BY 1").fetchall()
        ]


def test_a_rebuild_keeps_every_trace_the_catalog_holds(
    workdir: Path, openhands: Path, tmp_path: Path
) -> None:
    # before, a rebuild naming one directory dropped the traces of every other one
    db = _of_both(workdir, openhands, tmp_path)
    held, before = _held(db), findings(mur_trace.load(db=db))
    assert len(held) == 8  # the 7 sample sessions and the OpenHands file
    report = ingest(db, [openhands], rebuild=True)
    assert (report.new, report.deleted) == (8, 0)
    assert _held(db) == held
    assert findings(mur_trace.load(db=db)) == before
    # with nothing named and no ./workdir, what it holds is read (the advice of the schema
    # version's error)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(elsewhere)
        result = runner.invoke(app, ["ingest", "--db", str(db), "--rebuild"])
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith(f"{db}: 8 new,")
    assert findings(mur_trace.load(db=db)) == before
    # a workdir named is read, even by the default's name (before, taken for not named)
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(elsewhere)
        named = runner.invoke(app, ["ingest", "--db", str(db), "--workdir", "workdir", "--rebuild"])
    assert named.exit_code == 2
    assert named.stderr == "error[E-IO-001]: workdir not found: workdir\n"


def test_a_rebuild_that_would_lose_a_trace_is_refused(
    workdir: Path, openhands: Path, tmp_path: Path
) -> None:
    db = tmp_path / "catalog.duckdb"
    ingest(db, workdir=workdir)
    log = next(openhands.glob("*.jsonl"))
    shutil.copy(log, openhands / "again.jsonl")
    ingest(db, [openhands])
    log.unlink()  # the catalog holds the only copy
    kept = db.read_bytes()
    result = runner.invoke(app, ["ingest", "--db", str(db), "--workdir", str(workdir), "--rebuild"])
    assert result.exit_code == 2
    assert result.stderr == (
        f"error[E-IO-004]: refusing to rebuild {db}: it holds traces whose files are gone "
        f"({log.resolve()}), which a rebuild would lose; name a directory that held them "
        f"to leave them out, or remove {db} to start anew\n"
    )
    assert db.read_bytes() == kept
    # its directory named, it is gone, as an ingest of the directory says: deleted
    report = ingest(db, [openhands, workdir], rebuild=True)
    assert (report.new, report.deleted) == (8, 1)
    assert _held(db) == sorted(
        [
            str((openhands / "again.jsonl").resolve()),
            *(str(t.resolve()) for t in workdir.glob("ses_*/trace.jsonl")),
        ]
    )


def test_a_catalog_in_a_directory_that_is_not_there(workdir: Path, tmp_path: Path) -> None:
    # before: `cannot open catalog …: IO Error: Cannot open file "/abs/…": No such file…`
    db = tmp_path / "nd" / "c.duckdb"
    result = runner.invoke(app, ["ingest", "--db", str(db), "--workdir", str(workdir)])
    assert result.exit_code == 2
    assert (
        result.stderr
        == f"error[E-IO-003]: cannot open catalog {db}: its directory {db.parent} does not exist\n"
    )
    assert not db.parent.exists()


def _says_one_kept(db: Path, workdir: Path) -> str:
    """`mur-trace ingest` again, whose summary names one trace it cannot read and keeps;
    its output."""
    result = runner.invoke(app, ["ingest", "--db", str(db), "--workdir", str(workdir)])
    assert result.exit_code == 0, result.output
    assert result.stdout.endswith(
        "1 cannot be read (named above), 1 of them kept as the catalog held them\n"
    )
    return result.output


def test_a_trace_that_can_no_longer_be_read_keeps_what_the_catalog_held(
    workdir: Path, tmp_path: Path
) -> None:
    # before, its events were removed: the catalog had held their only readable copy
    db, before = _catalog_of(workdir, tmp_path)
    assert len(before) == 19
    first, second = sorted(workdir.glob("ses_*/trace.jsonl"))[:2]
    good = first.read_bytes()
    first.write_text('{"event_type":"session_start",\n')  # rewritten, torn
    with second.open("a") as f:  # appended, a line that is not JSON
        f.write("not json\n")
    steps: list[tuple[int, int, int]] = []
    report = ingest(db, workdir=workdir, progress=lambda *step: steps.append(step))
    assert findings(mur_trace.load(db=db)) == before
    assert steps[-1][:2] == (2, 2)  # the progress line ends: kept traces count as done
    assert (report.kept, report.rewritten, report.appended, report.unchanged) == (2, 0, 0, 5)
    assert sorted(s.trace_path for s in report.skipped) == [str(first), str(second)]
    # read again by the next ingest, once repaired
    first.write_bytes(good)
    report = ingest(db, workdir=workdir)
    assert (report.kept, report.rewritten, report.unchanged) == (1, 1, 5)
    assert findings(mur_trace.load(db=db)) == before
    _says_one_kept(db, workdir)


def test_a_trace_cut_short_inside_a_line_keeps_what_the_catalog_held(
    workdir: Path, tmp_path: Path
) -> None:
    """A copy or a rewrite cut short (a full disk, a kill) is readable up to its torn last
    line: it replaced the whole trace the catalog held with its first lines."""
    db, before = _catalog_of(workdir, tmp_path)
    trace = sorted(workdir.glob("ses_*/trace.jsonl"))[0]
    whole = trace.read_bytes()
    trace.write_bytes(whole[:700])  # 19 lines, the 700th byte inside the third
    assert whole[699:700] != b"\n" and whole[:700].count(b"\n") == 2
    report = ingest(db, workdir=workdir)
    assert (report.kept, report.rewritten, report.unchanged) == (1, 0, 6)
    assert [(s.trace_path, s.message) for s in report.skipped] == [(str(trace), (
        f"failed to read {trace}: it was cut short (700 bytes, its last line torn, where "
        f"the catalog read {len(whole):,})"))]  # fmt: skip
    assert findings(mur_trace.load(db=db)) == before
    trace.write_bytes(whole)  # whole again (a new time: read again)
    report = ingest(db, workdir=workdir)
    assert (report.kept, report.rewritten, report.unchanged, report.skipped) == (0, 1, 6, [])
    assert findings(mur_trace.load(db=db)) == before
    trace.write_bytes(whole[:700])
    with pytest.raises(mur_trace.MurTraceError) as refused:  # a rebuild would lose it
        ingest(db, workdir=workdir, rebuild=True)
    assert (refused.value.code, "it was cut short" in refused.value.message) == ("E-IO-004", True)
    assert findings(mur_trace.load(db=db)) == before
    # shorter, its last line whole without a newline: a rewrite, read as one
    trace.write_bytes(whole[: whole.index(b"\n")])
    assert ingest(db, workdir=workdir).rewritten == 1
    # as long as what the catalog read, its last line torn: a rewrite (another trace, not a
    # copy cut short), its torn line the usual warning
    held = whole[: whole.index(b"\n", 700) + 1]
    trace.write_bytes(held)
    assert ingest(db, workdir=workdir).rewritten == 1
    kept = held[: held.index(b"\n") + 1]
    torn = b'{"event_type":"tool_call","turn":0,"x":"' + b"y" * len(held)
    trace.write_bytes(kept + torn[: len(held) - len(kept)])
    assert len(trace.read_bytes()) == len(held) and not trace.read_bytes().endswith(b"\n")
    report = ingest(db, workdir=workdir)
    assert (report.rewritten, report.skipped) == (1, [])


def test_a_trace_that_is_no_longer_a_file_keeps_what_the_catalog_held(
    workdir: Path, tmp_path: Path
) -> None:
    # a trace replaced by what cannot be opened as a file (a named pipe) is never read: it
    # is named, and what the catalog held of it stays, counted as kept
    db, before = _catalog_of(workdir, tmp_path)
    trace = sorted(workdir.glob("ses_*/trace.jsonl"))[0]
    trace.unlink()
    os.mkfifo(trace)
    report = ingest(db, workdir=workdir)
    assert (report.kept, report.new, report.rewritten, report.unchanged) == (1, 0, 0, 6)
    assert [s.trace_path for s in report.skipped] == [str(trace)]
    assert findings(mur_trace.load(db=db)) == before
    assert str(trace) in _says_one_kept(db, workdir)


def test_a_value_beyond_the_catalogs_memory_limit_is_ingested_without_it(
    workdir: Path, tmp_path: Path, monkeypatch
) -> None:
    # DuckDB holds a value whole: one larger than the limit failed the whole ingest (an
    # input of 60 MB under 128 MB; here 20 MB under 16 MB)
    monkeypatch.setattr("mur_trace.catalog.CATALOG_MEMORY", "16MB")
    trace = sorted(workdir.glob("ses_*/trace.jsonl"))[0]
    start, *rest = trace.read_text().splitlines(keepends=True)
    write = {
        "event_type": "tool_call", "turn": 1, "tool_name": "editor", "status": "ok",
        "state_effect": "mutate", "input": {"path": "g.txt", "content": "a" * 20_000_000},
    }  # fmt: skip
    trace.write_text(start + json.dumps(write) + "\n" + "".join(rest))
    db = tmp_path / "catalog.duckdb"
    # paths an iterator gives: the second attempt reads them too (not ./workdir)
    report = ingest(db, workdir.glob("ses_*"))
    assert (report.new, report.skipped) == (7, [])
    assert findings(mur_trace.load(db=db)) == findings(mur_trace.load(workdir=workdir))
    with duckdb.connect(str(db), read_only=True) as con:
        assert (
            con.execute(
                "SELECT max(length(input)) FROM events WHERE tool_name = 'editor'"
            ).fetchall()[0][0]
            > 20_000_000
        )


def test_a_rebuild_keeps_what_an_ingest_committed_while_it_waited(
    workdir: Path, openhands: Path, tmp_path: Path, monkeypatch
) -> None:
    # the rebuild waits for the catalog while another ingest holds it and commits a trace;
    # before, what it held was read before the wait, and that trace was lost
    db = tmp_path / "catalog.duckdb"
    ingest(db, workdir=workdir)
    connect = mur_trace.catalog._connect
    turns: list[str] = []

    def after_another_ingest(path, read_only):
        if not read_only and not turns:  # the other ingest's turn comes first
            turns.append("other")
            ingest(db, [openhands])
        return connect(path, read_only=read_only)

    monkeypatch.setattr("mur_trace.catalog._connect", after_another_ingest)
    report = ingest(db, workdir=workdir, rebuild=True)
    assert turns == ["other"]
    assert (report.new, report.deleted) == (8, 0)
    assert [Path(p).name for p in _held(db)].count("trace.jsonl") == 7
    assert len(_held(db)) == 8  # the 7 sample sessions and the OpenHands file


def test_a_rebuild_reads_each_trace_once_wherever_it_now_resolves(
    workdir: Path, tmp_path: Path
) -> None:
    # the workdir moved and a link left in its place: the catalog's paths resolve to the
    # same files as the link's (before, 14 traces: each read once by its old path, once new)
    db = tmp_path / "catalog.duckdb"
    ingest(db, workdir=workdir)
    moved = tmp_path / "data" / "workdir"
    moved.parent.mkdir()
    workdir.rename(moved)
    workdir.symlink_to(moved)
    with duckdb.connect(str(db)) as con:  # as an older catalog stored them: unresolved
        con.execute("UPDATE trace_files SET trace_path = replace(trace_path, $m, $w)",
                    {"m": str(moved), "w": str(workdir)})  # fmt: skip
    report = ingest(db, [workdir], rebuild=True)
    assert (report.new, report.deleted) == (7, 0)
    assert len(_held(db)) == 7
    assert len(findings(mur_trace.load(db=db))) == 19


def test_a_rebuild_that_cannot_read_a_trace_again_is_refused(
    workdir: Path, openhands: Path, tmp_path: Path
) -> None:
    # before, the OpenHands file, emptied, was stored as an error: its 265 events lost
    db = _of_both(workdir, openhands, tmp_path)
    log = next(openhands.glob("*.jsonl"))
    log.write_text("")
    kept = db.read_bytes()
    result = runner.invoke(app, ["ingest", "--db", str(db), "--workdir", str(workdir), "--rebuild"])
    assert result.exit_code == 2
    assert result.stderr.endswith(
        f"error[E-IO-004]: refusing to rebuild {db}: it holds traces that cannot be read "
        f"again ({log.resolve()}: no openhands event in it (empty, or not a log of that "
        "agent)), which a rebuild would lose; repair them, or remove "
        f"{db} to start anew without them\n"
    )
    assert db.read_bytes() == kept
    # the same with --strict, and when it is the only trace to read (before, its own error)
    strict = ["ingest", "--db", str(db), "--workdir", str(workdir), "--rebuild", "--strict"]
    assert runner.invoke(app, strict).stderr.startswith("error[E-IO-004]: refusing to rebuild")
    alone = tmp_path / "alone.duckdb"
    shutil.copy(Path(__file__).parent / "fixtures" / "real" / "openhands" / log.name, log)
    ingest(alone, [openhands])
    log.write_text("")
    result = runner.invoke(app, ["ingest", "--db", str(alone), str(openhands), "--rebuild"])
    assert result.stderr.startswith("error[E-IO-004]: refusing to rebuild"), result.output
    assert db.read_bytes() == kept


def test_a_trace_the_catalog_never_read_does_not_stop_a_rebuild(
    workdir: Path, tmp_path: Path
) -> None:
    # stored as unreadable, it has no events to lose (before, every rebuild was refused)
    bad = workdir / "ses_bad" / "trace.jsonl"
    bad.parent.mkdir()
    bad.write_text('{"not":"a trace"\n')
    db = tmp_path / "catalog.duckdb"
    assert (ingest(db, workdir=workdir).new, len(_held(db))) == (8, 8)
    result = runner.invoke(app, ["ingest", "--db", str(db), "--workdir", str(workdir), "--rebuild"])
    assert result.exit_code == 0, result.output
    assert f"{bad.resolve()}:1: not valid JSON" in result.stderr
    assert len(findings(mur_trace.load(db=db))) == 19


def test_an_ingest_of_one_directory_does_not_vouch_for_another(
    workdir: Path, tmp_path: Path
) -> None:
    # the last ingest's start says which files are unchanged only when it looked at them
    # all: here `other` was ingested in between, and the rewrite in `workdir` passed for
    # unchanged (before)
    other = tmp_path / "other"
    other.mkdir()
    moved = sorted(workdir.glob("ses_*"))[-1]
    moved.rename(other / moved.name)
    db = tmp_path / "catalog.duckdb"
    ingest(db, [workdir, other])
    _rewrite_keeping_time(workdir)
    time.sleep(1.1)  # beyond the second of margin the ingest's start is taken with
    assert ingest(db, [other]).unchanged == 1
    report = ingest(db, [workdir])
    assert (report.rewritten, report.unchanged) == (1, 5)
    assert len(findings(mur_trace.load(db=db))) == 18


def test_a_rebuild_reads_a_trace_as_it_was_read(tmp_path: Path) -> None:
    # a Claude Code log whose first line says nothing: read only with --format-in
    source = next((Path(__file__).parent / "fixtures" / "real" / "claude-code").glob("*.jsonl"))
    log = tmp_path / "exported.jsonl"
    log.write_text('{"note":"exported"}\n' + source.read_text())
    db = tmp_path / "catalog.duckdb"
    ingest(db, [log], format_in="claude-code")
    before = findings(mur_trace.load(db=db))
    assert before == findings(mur_trace.load([log], format_in="claude-code"))
    report = ingest(db, [log], rebuild=True)
    assert (report.new, report.skipped) == (1, [])
    assert findings(mur_trace.load(db=db)) == before


def test_schema_versions(workdir: Path, tmp_path: Path) -> None:
    db = tmp_path / "catalog.duckdb"
    ingest(db, workdir=workdir)
    # a catalog of version 3, as the mur-trace before wrote it: without what each call cost
    with duckdb.connect(str(db)) as con:
        con.execute("DROP TABLE stored_call_waste")
        con.execute("UPDATE catalog_meta SET value = '3' WHERE key = 'schema_version'")
    with pytest.raises(mur_trace.MurTraceError) as old:
        mur_trace.load(db=db)
    assert old.value.message == (
        f"catalog {db} has schema version 3, this mur-trace needs {SCHEMA_VERSION}: "
        f"rebuild it with `mur-trace ingest --db {db} --rebuild`"
    )
    result = runner.invoke(app, ["ingest", "--db", str(db), "--workdir", str(workdir), "--rebuild"])
    assert result.exit_code == 0, result.output
    assert "7 new" in result.stdout
    assert len(findings(mur_trace.load(db=db))) == 19
    with duckdb.connect(str(db)) as con:
        con.execute("UPDATE catalog_meta SET value = '99' WHERE key = 'schema_version'")
    with pytest.raises(mur_trace.MurTraceError, match="newer than this mur-trace"):
        mur_trace.load(db=db)
    other = tmp_path / "other.duckdb"
    duckdb.connect(str(other)).execute("CREATE TABLE t (x INT)").close()
    with pytest.raises(mur_trace.MurTraceError, match="not a mur-trace catalog"):
        mur_trace.load(db=other)
    missing = runner.invoke(app, ["redundant", "--db", str(tmp_path / "none.duckdb")])
    assert missing.exit_code == 2
    assert missing.stderr.startswith("error[E-IO-001]: catalog not found")


def test_commands_address_catalog_sessions(workdir: Path, tmp_path: Path) -> None:
    db = tmp_path / "catalog.duckdb"
    assert runner.invoke(app, ["ingest", "--db", str(db), "--workdir", str(workdir)]).exit_code == 0
    show = runner.invoke(app, ["show", "1eef", "--db", str(db)])
    assert "session:    ses_01a21715468070018000000000001eef" in show.stdout
    report = runner.invoke(app, ["report", "--db", str(db), "--last", "3"])
    assert f"Sessions: 3  ({db})" in report.stdout
    diff = runner.invoke(app, ["diff", "@7", "@1", "--db", str(db)])
    assert diff.exit_code == 0 and "redundant calls        2                1" in diff.stdout
    out_of_range = runner.invoke(app, ["diff", "@8", "@1", "--db", str(db)])
    assert f"@8 is out of range — catalog {db} has 7 sessions" in out_of_range.stderr


def test_every_trace_of_a_catalog_is_a_session_arguments_can_name(
    workdir: Path, tmp_path: Path
) -> None:
    """Two copies of the 7 sample sessions are 14 sessions; the 3 real Claude Code sessions
    and the 2 subagents of one (ids `<session>/agent-<id>`, in one `subagents/` directory)
    are 5. Before, names collided: `--last` and `@N` counted 7 and 4."""
    shutil.copytree(workdir, tmp_path / "copy")
    db = tmp_path / "two.duckdb"
    assert ingest(db, [workdir, tmp_path / "copy"])
    report = runner.invoke(app, ["report", "--db", str(db), "--last", "14"])
    assert f"Sessions: 14  ({db})" in report.stdout, report.output
    out_of_range = runner.invoke(app, ["show", "@15", "--db", str(db)])
    assert f"@15 is out of range — catalog {db} has 14 sessions" in out_of_range.stderr
    # in path order, .../copy/ses_… before .../workdir/ses_…
    for name, place in (("1eef", tmp_path / "copy"), ("1eef~2", workdir)):
        shown = runner.invoke(app, ["show", name, "--db", str(db), "-f", "json"])
        assert shown.exit_code == 0, shown.output
        trace = place / "ses_01a21715468070018000000000001eef" / "trace.jsonl"
        assert json.loads(shown.stdout)["metrics"]["trace_path"] == str(trace)

    claude = shutil.copytree(
        Path(__file__).parent / "fixtures" / "real" / "claude-code", tmp_path / "cc"
    )
    db = tmp_path / "cc.duckdb"
    assert runner.invoke(app, ["ingest", "--db", str(db), str(claude)]).exit_code == 0
    report = runner.invoke(app, ["report", "--db", str(db), "--last", "5"])
    assert f"Sessions: 5  ({db})" in report.stdout, report.output
    out_of_range = runner.invoke(app, ["show", "@6", "--db", str(db)])
    assert f"@6 is out of range — catalog {db} has 5 sessions" in out_of_range.stderr
    shown = runner.invoke(app, ["show", "a2898e3", "--db", str(db)])
    assert "session:    4d5611e5-241a-462a-8d15-5122611a9569/agent-a2898e3\n" in shown.stdout


def test_a_catalog_orders_its_sessions_by_when_they_were_created(
    workdir: Path, tmp_path: Path
) -> None:
    """The samples' ids date them 2026-11-26 to -27 (`01a217154680`… ms); the Claude Code
    fixtures' ids say no time, and their first timestamps are 2025-06-08 (sniffly),
    2026-01-07 (codemie), 2026-02-12 16:02:23 (spotter), 16:02:48 and 20:24:43 (its two
    subagents). By name, the UUIDs sorted first whatever their time (`@8` was sniffly's,
    the oldest), and `--since` left out every Claude Code session."""
    claude = shutil.copytree(
        Path(__file__).parent / "fixtures" / "real" / "claude-code", tmp_path / "cc"
    )
    db = tmp_path / "mixed.duckdb"
    assert runner.invoke(app, ["ingest", "--db", str(db), str(workdir), str(claude)]).exit_code == 0
    spotter = "4d5611e5-241a-462a-8d15-5122611a9569"
    for at, session in (
        ("@1", "ses_01a2184366407007800000000000d889"),  # the newest sample
        ("@7", "ses_01a21715468070018000000000001eef"),  # the oldest
        ("@8", f"{spotter}/agent-acompact-e1f845"),
        ("@9", f"{spotter}/agent-a2898e3"),
        ("@10", spotter),
        ("@12", "d3ad4cdc-5657-435d-98fa-0035d53e383d"),
    ):
        shown = runner.invoke(app, ["show", at, "--db", str(db), "-f", "json"])
        assert shown.exit_code == 0, shown.output
        assert json.loads(shown.stdout)["metrics"]["session_id"] == session, at
    # within ten years of now (until 2035): all twelve
    since = runner.invoke(app, ["report", "--db", str(db), "--since", "3650d"])
    assert f"Sessions: 12  ({db})" in since.stdout, since.output


def test_a_path_given_with_db_is_that_trace_not_a_copy_of_its_name(
    workdir: Path, tmp_path: Path
) -> None:
    """Two copies of the samples, one session's capsule renamed in the second: `report`
    with a path under `copy/` took the first copy's trace (`aaa/` sorts first), as it
    took every name's first trace."""
    shutil.copytree(workdir, tmp_path / "aaa")
    copy = shutil.copytree(workdir, tmp_path / "copy")
    trace = copy / "ses_01a21715468070018000000000001eef" / "trace.jsonl"
    trace.write_text(trace.read_text().replace('"refactor-bot"', '"renamed"'))
    db = tmp_path / "c.duckdb"
    assert ingest(db, [tmp_path / "aaa", copy])
    for args in ([str(trace)], [str(trace.parent)], [f"{copy}/"]):
        result = runner.invoke(app, ["report", *args, "--db", str(db), "-f", "json"])
        assert result.exit_code == 0, result.output
        assert '"capsule_name": "renamed"' in result.stdout and "/aaa/" not in result.stdout
    # the id `show` prints for a Claude Code subagent names it, though it holds a `/`
    claude = Path(__file__).parent / "fixtures" / "real" / "claude-code"
    db = tmp_path / "cc.duckdb"
    assert ingest(db, [claude])
    subagent = "4d5611e5-241a-462a-8d15-5122611a9569/agent-a2898e3"
    shown = runner.invoke(app, ["show", subagent, "--db", str(db)])
    assert f"session:    {subagent}\n" in shown.stdout, shown.output


def test_a_session_file_named_in_a_catalog_brings_its_subagents_as_when_read(
    tmp_path: Path,
) -> None:
    """A Claude Code session file, read, brings the files of its subagents; named with
    `--db`, it narrowed the catalog to itself alone (1 session for 3, 13 findings for 14,
    no loops for 6)."""
    session = (
        Path(__file__).parent / "fixtures" / "real" / "claude-code"
        / "marot_spotter__4d5611e5-241a-462a-8d15-5122611a9569.jsonl"
    )  # fmt: skip
    db = tmp_path / "cc.duckdb"
    assert ingest(db, [session]).new == 3  # the session and its two subagents
    for command in (["redundant"], ["redundant", "--policy", "context"], ["loops"]):
        read = runner.invoke(app, [*command, str(session)])
        stored = runner.invoke(app, [*command, "--db", str(db), str(session)])
        assert read.exit_code == stored.exit_code == 0, stored.output
        assert read.stdout.splitlines()[-2:] == stored.stdout.splitlines()[-2:], command
    with mur_trace.load([session], db=db) as trace:
        assert trace.session_count() == 3


@pytest.mark.parametrize("partition", [[], ["--partition-by", "date"]])
def test_an_export_without_findings_writes_their_columns(
    workdir: Path, tmp_path: Path, partition: list[str]
) -> None:
    # the Codex sessions have no redundant call: `findings: 0 rows` was said and no file
    # written, so that reading the dataset failed (`No files found`)
    codex = Path(__file__).parent / "fixtures" / "real" / "codex"
    read = "SELECT * FROM read_parquet('{}/findings/**/*.parquet', hive_partitioning = true)"
    columns = {}
    for name, source in (("none", [str(codex)]), ("some", ["--workdir", str(workdir)])):
        out = tmp_path / name
        result = runner.invoke(app, ["export", "--parquet", str(out), *source, *partition])
        assert result.exit_code == 0, result.output
        found = duckdb.sql(read.format(out))
        columns[name] = found.columns
        assert len(found.fetchall()) == {"none": 0, "some": 19}[name]
    assert sorted(columns["none"]) == sorted(columns["some"])


def test_export_round_trip(workdir: Path, tmp_path: Path) -> None:
    out = tmp_path / "dataset"
    result = runner.invoke(
        app, ["export", "--parquet", str(out), "--workdir", str(workdir), "--partition-by", "date"]
    )
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in (out / "events").iterdir()) == ["date=2026-11-26"]
    # DuckDB runs the same detection over the dataset
    con = duckdb.connect()
    con.execute(
        f"CREATE VIEW events AS SELECT * FROM read_parquet('{out}/events/**/*.parquet', "
        "hive_partitioning = true)"
    )
    con.execute(f"CREATE VIEW tool_calls AS {queries.get('events/tool_calls').sql}")
    columns = "trace_path, line, turn, resource, prior_line, prior_turn"
    again = sorted(con.sql(f"SELECT {columns} FROM ({queries.get('redundant/reference').sql})")
                   .fetchall())  # fmt: skip
    assert again == findings(mur_trace.load(workdir=workdir))
    stored = con.sql(
        f"SELECT {columns} FROM read_parquet('{out}/findings/**/*.parquet', hive_partitioning = 1)"
    ).fetchall()
    assert sorted(stored) == again


def test_an_export_dates_a_session_by_its_id_and_writes_its_capsule(tmp_path: Path) -> None:
    """Each row of both tables carries its session's partition columns: `date`, the UTC day
    of the session's Murmur (UUID v7) id, which outranks its first timestamp; `capsule`,
    its capsule name, NULL when the name is empty. The session `late` was created at
    2026-11-26 23:59:59 UTC (its id) and logs its events from 00:00:01 the next day;
    `blank` was created at 2026-11-27 00:00:01 with an empty capsule name. Each reads
    a.txt twice: one finding each."""
    created = {"late": 1795737599000, "blank": 1795737601000}  # 23:59:59 and 00:00:01 UTC
    capsule = {"late": "alpha", "blank": ""}
    for name, ms in created.items():
        session = f"ses_{ms:012x}70008000000000000001"
        common = {"session_id": session, "timestamp": 1795737601000}  # 00:00:01 UTC
        lines = [{"event_type": "session_start", **common, "capsule_name": capsule[name]}]
        read = {"event_type": "tool_call", "tool_name": "editor", "input": {"path": "a.txt"}}
        for turn in (0, 1):
            lines.append({**read, **common, "turn": turn, "status": "ok", "state_effect": "read"})
        (tmp_path / "w" / session).mkdir(parents=True)
        (tmp_path / "w" / session / "trace.jsonl").write_text(
            "".join(json.dumps(line) + "\n" for line in lines)
        )
    expected = [
        (f"ses_{created['late']:012x}70008000000000000001", "2026-11-26", "alpha"),
        (f"ses_{created['blank']:012x}70008000000000000001", "2026-11-27", None),
    ]
    out = tmp_path / "plain"
    result = runner.invoke(app, ["export", "--parquet", str(out), "--workdir", str(tmp_path / "w")])
    assert result.exit_code == 0, result.output
    for table in EXPORT_TABLES:
        rows = duckdb.sql(
            "SELECT DISTINCT session_id, date::VARCHAR, capsule "
            f"FROM read_parquet('{out}/{table}/**/*.parquet') ORDER BY ALL"
        ).fetchall()
        assert rows == expected, table
    # partitioned: the same values name the directories (an empty name is no `capsule=`)
    for column, directories in (
        ("date", ["date=2026-11-26", "date=2026-11-27"]),
        ("capsule", ["capsule=__HIVE_DEFAULT_PARTITION__", "capsule=alpha"]),
    ):
        out = tmp_path / column
        result = runner.invoke(app, ["export", "--parquet", str(out), "--workdir",
                                     str(tmp_path / "w"), "--partition-by", column])  # fmt: skip
        assert result.exit_code == 0, result.output
        for table in EXPORT_TABLES:
            assert sorted(p.name for p in (out / table).iterdir()) == directories, table


def test_the_findings_of_an_export_say_what_each_call_cost(workdir: Path, tmp_path: Path) -> None:
    """`findings` holds each call's cost: `waste_tokens` and `waste_context_tokens` are the
    context policy's `est_tokens` and `context_tokens` (the sample sessions': 8,980 tokens
    re-read, 27,105 re-sent), and a call costs the same whatever policy flags it."""
    read = "SELECT * FROM read_parquet('{}/findings/**/*.parquet')"
    cost = {}
    for policy in ("context", "reference"):
        out = tmp_path / policy
        args = ["export", "--parquet", str(out), "--workdir", str(workdir), "--policy", policy]
        result = runner.invoke(app, args)
        assert result.exit_code == 0, result.output
        found = duckdb.sql(read.format(out))
        cost[policy] = {
            (path, line): (tokens, context)
            for path, line, tokens, context in found.select(
                "trace_path, line, waste_tokens, waste_context_tokens"
            ).fetchall()
        }
    context = duckdb.sql(read.format(tmp_path / "context"))
    assert (
        context.select("est_tokens, context_tokens").fetchall()
        == context.select("waste_tokens, waste_context_tokens").fetchall()
    )
    assert context.aggregate("sum(waste_tokens), sum(waste_context_tokens)").fetchall() == [
        (8980, 27105)
    ]
    both = cost["context"].keys() & cost["reference"].keys()
    assert both  # turn 2 of the first session re-reads src/widget.rs under either policy
    assert {key: cost["reference"][key] for key in both} == {
        key: cost["context"][key] for key in both
    }


def test_an_export_of_a_catalog_is_the_export_of_its_traces(
    workdir: Path, tmp_path: Path, monkeypatch
) -> None:
    # written batch by batch (of 40 events: three batches of the sample sessions)
    db = tmp_path / "catalog.duckdb"
    ingest(db, workdir=workdir)
    monkeypatch.setattr(mur_trace, "CATALOG_BATCH_EVENTS", 40)
    for policy in ("reference", "context"):
        tables = []
        for source in (["--db", str(db)], ["--workdir", str(workdir)]):
            out = tmp_path / f"{policy}-{source[0][2:]}"
            result = runner.invoke(
                app, ["export", "--parquet", str(out), "--policy", policy, *source]
            )
            assert result.exit_code == 0, result.output
            read = "SELECT * FROM read_parquet('{}/{}/**/*.parquet')"
            tables.append(
                [sorted(duckdb.sql(read.format(out, name)).fetchall()) for name in EXPORT_TABLES]
            )
        assert tables[0] == tables[1]
        assert len(tables[0][0]) == 134 and tables[0][1]  # every event, and some findings


def test_export_and_plot_take_the_rules_and_effects_of_the_context_policy(
    workdir: Path, tmp_path: Path, monkeypatch
) -> None:
    """`export` and `plot` take `--rule`, `--no-rule` and `--effects` as `redundant` does:
    the findings they write or draw are the ones `redundant` lists with the same options
    (before, they had `--policy context` and no way to set its rules)."""
    from mur_trace import plot

    db = tmp_path / "catalog.duckdb"
    ingest(db, workdir=workdir)
    options = ["--policy", "context", "--no-rule", "context_reset"]
    listed = runner.invoke(app, ["redundant", "--workdir", str(workdir), *options, "-f", "csv"])
    expected = sorted(
        (r["trace_path"], int(r["line"])) for r in csv.DictReader(io.StringIO(listed.stdout))
    )
    default = runner.invoke(app, ["redundant", "--workdir", str(workdir), "--policy", "context"])
    assert "total:      9 redundant calls" in default.stdout  # the rule off flags more
    assert len(expected) == 16
    for source in (["--db", str(db)], ["--workdir", str(workdir)]):
        out = tmp_path / f"export-{source[0][2:]}"
        result = runner.invoke(app, ["export", "--parquet", str(out), *options, *source])
        assert result.exit_code == 0, result.output
        written = duckdb.sql(
            f"SELECT trace_path, line FROM read_parquet('{out}/findings/**/*.parquet') ORDER BY ALL"
        ).fetchall()
        assert written == expected
    drawn = []
    original = plot.waste

    def waste(trace: mur_trace.Trace):
        drawn.append(trace.redundant_calls().count("*").fetchall()[0][0])
        return original(trace)

    monkeypatch.setattr(plot, "waste", waste)
    result = runner.invoke(
        app, ["plot", "waste", "--workdir", str(workdir), *options, "-o", str(tmp_path / "w.png")]
    )
    assert result.exit_code == 0, result.output
    assert drawn == [16]
    # the effects file is read by both (here one that is not TOML)
    effects = tmp_path / "effects.toml"
    effects.write_text("[editor\n")
    for command in (["export", "--parquet", str(tmp_path / "e")], ["plot", "waste"]):
        args = [*command, "--workdir", str(workdir), "--policy", "context"]
        result = runner.invoke(app, [*args, "--effects", str(effects)])
        assert result.exit_code == 2 and result.stderr.startswith("error[E-CFG-002]:"), command


def test_progress_shows_on_a_terminal_only() -> None:
    import io

    from mur_trace.render import Progress

    piped = io.StringIO()
    Progress("ingest", piped)(500, 1000, 60_000)
    assert piped.getvalue() == ""

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    terminal = Terminal()
    progress = Progress("ingest", terminal)
    progress(500, 1000, 60_000)
    progress(1000, 1000, 120_000)
    lines = terminal.getvalue().split("\r")[1:]
    assert lines[0].startswith("ingest [############............] 500/1,000 files, 60,000 events")
    assert lines[1].startswith("ingest [########################] 1,000/1,000 files, 120,000")
    assert lines[1].endswith("events/s\n")


def test_find_redundant_in_batches_equals_one_load(sample_workdir: Path) -> None:
    whole = findings(mur_trace.load(workdir=sample_workdir))
    batched = mur_trace.find_redundant(workdir=sample_workdir, batch_bytes=10_000)
    files = sorted(str(p) for p in sample_workdir.glob("*/trace.jsonl"))
    # sizes 4.5k 3.9k | 4.9k 4.9k | 5.2k | 6.9k 1.2k
    assert [len(b) for b in batches(files, 10_000)] == [2, 2, 1, 2]
    columns = "trace_path, line, turn, resource, prior_line, prior_turn"
    assert batched.sessions == 7
    assert sorted(batched.relation.select(columns).fetchall()) == whole
    # the batches share one database: each load replaces the context stage of the last
    context = mur_trace.load(workdir=sample_workdir).redundant_calls("context")
    batched = mur_trace.find_redundant(workdir=sample_workdir, policy="context", batch_bytes=10_000)
    assert batched.relation.fetchall() == context.fetchall()


def test_a_catalog_analysed_in_batches_gives_what_the_traces_give(
    workdir: Path, tmp_path: Path, monkeypatch
) -> None:
    # what a catalog does not store (the context policy, loops) is computed for batches of
    # its traces, each closed once it holds 40 events: the sample sessions hold 19, 15, 21,
    # 21, 22, 28 and 8, in path order
    db = tmp_path / "catalog.duckdb"
    # and a trace that cannot be analysed, and one whose torn last line is left out: they
    # sort last, and are said to be so
    bad, torn = workdir / "ses_x1" / "trace.jsonl", workdir / "ses_x2" / "trace.jsonl"
    for trace in (bad, torn):
        trace.parent.mkdir()
    bad.write_text('{"event_type":"session_start"}\nnot json\n')
    torn.write_text('{"event_type":"session_start"}\n{"event_type":"tool_ca')
    ingest(db, workdir=workdir)
    monkeypatch.setattr(mur_trace, "CATALOG_BATCH_EVENTS", 40)
    made: list[int] = []
    shadow = mur_trace.shadow

    def counted(con, paths: list[str]) -> None:
        made.append(len(paths))
        shadow(con, paths)

    monkeypatch.setattr(mur_trace, "shadow", counted)
    for policy in ("context", "reference"):
        from_catalog = mur_trace.find_redundant(db=db, policy=policy)
        from_files = mur_trace.find_redundant(workdir=workdir, policy=policy)
        assert from_catalog.relation.fetchall() == from_files.relation.fetchall()
        assert from_catalog.sessions == from_files.sessions == 8
        assert from_catalog.skipped == from_files.skipped
        assert [s.trace_path for s in from_catalog.skipped] == [str(bad)]
        assert from_catalog.warnings == from_files.warnings
        assert [w.trace_path for w in from_catalog.warnings] == [str(torn)]
    assert made == [3, 2, 3]  # the last with the torn trace's one event
    loops = [mur_trace.find_loops(db=db), mur_trace.find_loops(workdir=workdir)]
    assert loops[0].relation.fetchall() == loops[1].relation.fetchall()
    summaries = [
        mur_trace.summarise(**source, policy="context")
        for source in ({"db": db}, {"workdir": workdir})
    ]
    metrics = [s.session_metrics().order("trace_path").fetchall() for s in summaries]
    assert metrics[0] == metrics[1]
    reports = [s.report() for s in summaries]
    assert reports[0].stats.fetchall() == reports[1].stats.fetchall()
    assert reports[0].skipped == reports[1].skipped
    assert [s.session_count() for s in summaries] == [8, 8]  # every batch's, after them
    # narrowed to some sessions, batches of those only
    some = sorted(workdir.glob("ses_*"))[:3]
    narrowed = mur_trace.find_redundant(some, db=db, policy="context")
    assert (
        narrowed.relation.fetchall()
        == mur_trace.find_redundant(some, policy="context").relation.fetchall()
    )
    assert narrowed.sessions == 3


def test_a_trace_of_a_catalog_holds_it_until_closed(workdir: Path, tmp_path: Path) -> None:
    # DuckDB locks the file for the process that opened it: an ingest elsewhere waited on a
    # notebook's Trace, which had no way to let go of it but `trace.con.close()`
    import subprocess
    import sys

    db = tmp_path / "catalog.duckdb"
    ingest(db, workdir=workdir)
    opens = [sys.executable, "-c", f"import duckdb; duckdb.connect({str(db)!r}).close()"]
    with mur_trace.load(db=db) as trace:
        assert len(findings(trace)) == 19
        held = subprocess.run(opens, capture_output=True, text=True)
        assert held.returncode != 0 and "lock" in held.stderr.lower()
    assert subprocess.run(opens, capture_output=True, text=True).returncode == 0
    with pytest.raises(duckdb.ConnectionException):
        trace.con.execute("SELECT 1")


def test_an_empty_list_of_paths_narrows_a_catalog_to_no_session(
    workdir: Path, tmp_path: Path
) -> None:
    # it was DuckDB's `Binder Error: Values list "w" ...`, then the whole catalog (a filter
    # that kept no path read every session); None is the whole catalog
    db = tmp_path / "catalog.duckdb"
    ingest(db, workdir=workdir)
    for call in (
        lambda: mur_trace.load([], db=db),
        lambda: mur_trace.find_redundant([], db=db, policy="reference"),
        lambda: mur_trace.find_redundant([], db=db, policy="context"),
    ):
        with pytest.raises(mur_trace.MurTraceError) as caught:
            call()
        assert caught.value.code == "E-TRC-002"
    with mur_trace.load(None, db=db) as trace:
        assert trace.session_count() == 7
    for policy, count in (("reference", 19), ("context", 9)):
        with mur_trace.find_redundant(None, db=db, policy=policy) as found:
            assert found.relation.count("*").fetchall() == [(count,)]


@pytest.mark.parametrize("policy", ["reference", "context"])
def test_the_findings_of_a_catalog_hold_it_until_closed(
    workdir: Path, tmp_path: Path, policy: str
) -> None:
    # the README said `find_redundant(db=...)` let go of the catalog when it returned: it
    # held it as long as its findings lived, with no way to let go but their connection
    db = tmp_path / "catalog.duckdb"
    ingest(db, workdir=workdir)
    opens = [sys.executable, "-c", f"import duckdb; duckdb.connect({str(db)!r}).close()"]
    for find, count in ((mur_trace.find_redundant, {"reference": 19, "context": 9}[policy]),
                        (mur_trace.find_loops, None)):  # fmt: skip
        found = find(db=db, policy=policy) if find is mur_trace.find_redundant else find(db=db)
        with found:
            rows = found.relation.count("*").fetchall()[0][0]
            assert count is None or rows == count
            held = subprocess.run(opens, capture_output=True, text=True)
            assert held.returncode != 0 and "lock" in held.stderr.lower()
        assert subprocess.run(opens, capture_output=True, text=True).returncode == 0


def test_ctrl_c_as_an_ingest_closes_its_databases_leaves_no_staging(
    workdir: Path, tmp_path: Path, monkeypatch
) -> None:
    """Ctrl-C that landed while an ingest closed its databases (a checkpoint takes a while)
    skipped the removal of its staging directory (Parquet copies of the traces), 2 runs of
    16 late interrupts: it is held back until both are done, then acted on."""
    import signal
    import tempfile

    import duckdb

    temporary = tmp_path / "tmp"
    temporary.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temporary))
    close = duckdb.DuckDBPyConnection.close

    def interrupted(con) -> None:
        os.kill(os.getpid(), signal.SIGINT)  # Python acts on it at its next instruction
        close(con)

    monkeypatch.setattr(duckdb.DuckDBPyConnection, "close", interrupted)
    report = ingest(tmp_path / "catalog.duckdb", workdir=workdir)  # committed: done
    monkeypatch.undo()
    assert report.new == 7
    assert list(temporary.iterdir()) == []
    assert mur_trace.load(db=tmp_path / "catalog.duckdb").session_count() == 7


@pytest.mark.parametrize("signal_name", ["SIGINT", "SIGTERM"])
def test_an_interrupt_as_an_ingest_commits_says_it_is_done(
    workdir: Path, tmp_path: Path, monkeypatch, signal_name: str
) -> None:
    """Ctrl-C or SIGTERM that came as the ingest committed (or closed its databases
    after) said `interrupted` (exit 130, 143) of a catalog that held the whole ingest; one
    that comes before the commit leaves the catalog as it was."""
    import signal

    import duckdb

    execute = duckdb.DuckDBPyConnection.execute
    at: list[str] = []

    def signalled(con, query, *args, **kwargs):
        if query == at[0]:
            os.kill(os.getpid(), getattr(signal, signal_name))
        return execute(con, query, *args, **kwargs)

    def stop(_sig, _frame):  # as the command line stops on SIGTERM (Python's default kills)
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, stop)
    db = tmp_path / "catalog.duckdb"
    try:
        at.append("COMMIT")
        with monkeypatch.context() as patched:
            patched.setattr(duckdb.DuckDBPyConnection, "execute", signalled)
            assert ingest(db, workdir=workdir).new == 7
        assert mur_trace.load(db=db).session_count() == 7
        (workdir / "ses_01a2184366407007800000000000d889").rename(tmp_path / "away")
        at[0] = "BEGIN TRANSACTION"
        with monkeypatch.context() as patched, pytest.raises(KeyboardInterrupt):
            patched.setattr(duckdb.DuckDBPyConnection, "execute", signalled)
            ingest(db, workdir=workdir)  # would delete the session moved away
    finally:
        signal.signal(signal.SIGTERM, previous)
    assert mur_trace.load(db=db).session_count() == 7


def test_an_ingest_removes_what_a_killed_ingest_left(
    workdir: Path, tmp_path: Path, monkeypatch
) -> None:
    # a killed ingest (SIGKILL, the out-of-memory killer) left its staging directory, with
    # Parquet copies of the traces it read, in the temporary directory for good
    import subprocess
    import sys
    import tempfile

    temporary = tmp_path / "tmp"
    temporary.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temporary))
    ended = subprocess.Popen([sys.executable, "-c", "pass"])
    ended.wait()
    here = f"mur-trace-ingest-{os.uname().nodename}"
    stale = temporary / f"{here}-{ended.pid}-k1ll3d"
    stale.mkdir()
    (stale / "events.parquet").write_bytes(b"PAR1")
    running = temporary / f"{here}-{os.getppid()}-s0m3on3"  # a process running
    running.mkdir()
    unknown = temporary / "mur-trace-ingest-n0p1d"  # no process id: not known to be stale
    unknown.mkdir()
    # another host's (a temporary directory shared): its process ids are not this host's
    elsewhere = temporary / f"mur-trace-ingest-{os.uname().nodename}x-{ended.pid}-0th3r"
    elsewhere.mkdir()
    ingest(tmp_path / "catalog.duckdb", workdir=workdir)
    left = sorted(p.name for p in temporary.iterdir())
    assert left == sorted([running.name, unknown.name, elsewhere.name])


def test_a_session_moved_elsewhere_is_held_once(workdir: Path, tmp_path: Path) -> None:
    # moved from live/ to archive/ and archive/ ingested alone: the catalog held it under
    # both paths, and `redundant --db` counted it twice (21 calls in 8 sessions, 19 in 7
    # over the files); a trace from elsewhere whose file is merely gone stays
    live, archive = tmp_path / "live", tmp_path / "archive"
    archive.mkdir()
    workdir.rename(live)
    sessions = sorted(live.glob("ses_*"))
    sessions[1].rename(archive / sessions[1].name)
    db = tmp_path / "catalog.duckdb"
    assert ingest(db, [live, archive]).new == 7
    sessions[0].rename(archive / sessions[0].name)  # a finished session archived
    report = ingest(db, [archive])
    assert (report.new, report.unchanged, report.deleted) == (1, 1, 1)
    with mur_trace.load(db=db) as trace:
        assert trace.session_count() == 7
        assert sorted(p for (p,) in trace.sql("SELECT trace_path FROM traces").fetchall()) == (
            sorted(
                str(p.resolve())
                for p in [*live.glob("ses_*/trace.jsonl"), *archive.glob("ses_*/trace.jsonl")]
            )
        )
    shutil.rmtree(archive / sessions[1].name)  # gone, and live/ ingested: it stays
    assert ingest(db, [live]).deleted == 0
    with mur_trace.load(db=db) as trace:
        assert trace.session_count() == 7
    # one still written when it was ingested, and moved since: other bytes, one session
    sessions[2].rename(archive / sessions[2].name)
    with open(archive / sessions[2].name / "trace.jsonl", "a") as grown:
        grown.write('{"event_type":"inference","turn":9,"decision":"end_turn"}\n')
    # archive/ named: the session deleted from it leaves too
    assert ingest(db, [archive]).deleted == 2
    with mur_trace.load(db=db) as trace:
        assert trace.session_count() == 6
    # moved, and its new place not stored readable (read as another format): the old
    # place, the catalog's only readable copy, stays
    sessions[3].rename(archive / sessions[3].name)
    report = ingest(db, [archive], format_in="codex")
    assert (report.deleted, len(report.skipped)) == (0, 1)
    with mur_trace.load(db=db) as trace:
        assert trace.session_count() == 6
        assert str((live / sessions[3].name / "trace.jsonl").resolve()) in {
            path for (path,) in trace.sql("SELECT trace_path FROM traces").fetchall()
        }


def test_a_session_is_moved_only_when_its_bytes_are_found_elsewhere(
    workdir: Path, tmp_path: Path
) -> None:
    """A gone trace left the catalog (its only copy) when any new trace had its session id:
    an excerpt of it kept as a fixture, another run under its id. Its bytes, whole or
    grown, must be what the new file starts with."""
    live, fixtures, other = tmp_path / "live", tmp_path / "fixtures", tmp_path / "other"
    session = sorted(workdir.glob("ses_*"))[1]  # its trace: 15 events, no blank line
    shutil.copytree(session, live / session.name)
    db = tmp_path / "catalog.duckdb"
    assert ingest(db, [live]).events == 15
    lines = (live / session.name / "trace.jsonl").read_text().splitlines(keepends=True)
    (fixtures / session.name).mkdir(parents=True)
    (fixtures / session.name / "trace.jsonl").write_text("".join(lines[:5]))  # an excerpt
    rerun = other / "run2" / "trace.jsonl"  # another run under the same id, reordered
    rerun.parent.mkdir(parents=True)
    rerun.write_text("".join([lines[0], *lines[2:], lines[1]]))
    shutil.rmtree(live)  # the catalog holds the only whole copy
    assert ingest(db, [fixtures]).deleted == 0
    assert ingest(db, [rerun]).deleted == 0
    assert [n for (n,) in duckdb.connect(str(db), read_only=True).execute(
        "SELECT events FROM traces ORDER BY trace_path").fetchall()] == [5, 15, 15]  # fmt: skip


def test_an_older_catalogs_two_spellings_of_one_file_are_rebuilt_as_one(
    workdir: Path, tmp_path: Path
) -> None:
    """A catalog before version 4 stored paths unresolved: one file under a link's spelling
    and its own, the file rewritten between the two ingests. Its rebuild (which it must
    have) merges them, as before: the older spelling is an older state of the same file."""
    db = tmp_path / "catalog.duckdb"
    ingest(db, workdir=workdir)
    link = tmp_path / "link"
    link.symlink_to(workdir)
    trace = sorted(workdir.glob("ses_*/trace.jsonl"))[0]
    spelled = str(link / trace.parent.name / trace.name)
    with duckdb.connect(str(db)) as con:  # as version 3 held it, then rewritten
        con.execute("UPDATE catalog_meta SET value = '3' WHERE key = 'schema_version'")
        con.execute("INSERT INTO trace_files SELECT $p, size + 1, mtime_ns, lines, "
                    "'0' || sha256[2:], ends_with_newline FROM trace_files "
                    "WHERE trace_path = $t", {"p": spelled, "t": str(trace)})  # fmt: skip
        con.execute("INSERT INTO traces SELECT * REPLACE ($p AS trace_path) FROM traces "
                    "WHERE trace_path = $t", {"p": spelled, "t": str(trace)})  # fmt: skip
    report = ingest(db, workdir=workdir, rebuild=True)
    assert (report.new, report.deleted) == (7, 0)
    assert len(findings(mur_trace.load(db=db))) == 19


def test_a_trace_named_through_a_link_to_its_file_is_the_trace_held(
    workdir: Path, tmp_path: Path
) -> None:
    """A link to a held trace file, ingested: before, a second trace (`1 new`), its 19
    events and 2 findings counted twice (21 findings of 8 sessions)."""
    db = tmp_path / "catalog.duckdb"
    ingest(db, workdir=workdir)
    trace = sorted(workdir.glob("ses_*/trace.jsonl"))[0]
    link = tmp_path / "latest.jsonl"
    link.symlink_to(trace)
    report = ingest(db, [link])
    assert (report.new, report.unchanged, report.events) == (0, 1, 0)
    assert str(link) not in _held(db) and str(trace) in _held(db)
    assert len(findings(mur_trace.load(db=db))) == 19
    # and the link names that trace to every command over the catalog
    narrowed = runner.invoke(app, ["redundant", "--db", str(db), str(link)])
    assert narrowed.exit_code == 0, narrowed.output
    assert narrowed.stdout.endswith("total:      2 redundant calls in 1 of 1 session\n")


def _session_ids(db: Path) -> list[str]:
    with duckdb.connect(str(db), read_only=True) as con:
        return [
            row[0] for row in con.execute("SELECT session_id FROM traces ORDER BY 1").fetchall()
        ]


def test_a_held_trace_whose_file_became_a_link_to_another_is_kept_by_either_form(
    workdir: Path, tmp_path: Path
) -> None:
    """A session's trace file replaced by a link to another session's: `ingest --workdir`
    read the other session's events into it (`1 rewritten`), its own events, the catalog's
    only copy, lost and the other session counted twice; `ingest W` kept it."""
    db = tmp_path / "catalog.duckdb"
    ingest(db, workdir=workdir)
    before = _session_ids(db)
    first, second = sorted(workdir.glob("ses_*/trace.jsonl"))[:2]
    second.unlink()
    second.symlink_to(first)
    for named in ({"workdir": workdir}, {"paths": [workdir]}):
        report = ingest(db, **named)
        assert (report.new, report.rewritten, report.unchanged, report.deleted) == (0, 0, 6, 0)
        assert _session_ids(db) == before


def test_a_held_link_pointed_elsewhere_keeps_what_it_held(workdir: Path, tmp_path: Path) -> None:
    """A link held by its own name (`latest.jsonl`, the agent's newest session), its file
    since removed, pointed at another session: it keeps the session it held (before, it
    took the other session's events, `1 rewritten`, its own lost)."""
    db = tmp_path / "catalog.duckdb"
    first, second = sorted(workdir.glob("ses_*/trace.jsonl"))[:2]
    link = tmp_path / "latest.jsonl"
    link.symlink_to(first)
    ingest(db, [link])
    ingest(db, [second.parent])
    shutil.rmtree(first.parent)
    link.unlink()
    link.symlink_to(second)
    report = ingest(db, [link, workdir])
    assert (report.new, report.rewritten, report.deleted, report.linked) == (5, 0, 0, 1)
    ids = _session_ids(db)
    assert ids.count(first.parent.name) == 1 and ids.count(second.parent.name) == 1
    assert len(ids) == 7


@pytest.mark.parametrize("grown", ["an event", "a bad line"])
def test_a_link_held_alone_then_its_file_is_one_trace(
    workdir: Path, tmp_path: Path, grown: str
) -> None:
    """A link ingested alone, then the workdir holding its file, which grew meanwhile: the
    link's trace, whose bytes the file starts with, is the file's (before, two traces, the
    session counted twice); while the file cannot be read (stored as unreadable), the
    link's trace, which holds the session's events, stays."""
    db = tmp_path / "catalog.duckdb"
    trace = sorted(workdir.glob("ses_*/trace.jsonl"))[0]
    link = tmp_path / "latest.jsonl"
    link.symlink_to(trace)
    ingest(db, [link])
    added = {"an event": trace.read_text().splitlines()[1] + "\n",  # an inference: no call
             "a bad line": '{bad\n{"event_type": "inference", "turn": 9}\n'}  # fmt: skip
    with trace.open("a") as file:
        file.write(added[grown])
    report = ingest(db, [workdir])
    readable = grown == "an event"
    assert (report.new, report.deleted, report.linked) == (7, int(readable), int(not readable))
    assert [s.trace_path for s in report.skipped] == ([] if readable else [str(trace)])
    assert (str(link) in _held(db)) is not readable and len(_held(db)) == 8 - readable
    assert len(findings(mur_trace.load(db=db))) == 19


def _moved_and_linked(workdir: Path, tmp_path: Path) -> tuple[Path, Path, Path]:
    """A catalog of `workdir`, then its first session's trace moved to `other/` and linked
    from its old place: (catalog, old place, new place)."""
    db = tmp_path / "catalog.duckdb"
    ingest(db, workdir=workdir)
    old = sorted(workdir.glob("ses_*/trace.jsonl"))[0]
    new = tmp_path / "other" / old.parent.name / "trace.jsonl"
    new.parent.mkdir(parents=True)
    shutil.move(old, new)
    old.symlink_to(new)
    return db, old, new


def test_a_moved_session_whose_new_file_cannot_be_read_keeps_its_events(
    workdir: Path, tmp_path: Path
) -> None:
    """Its new file, held as unreadable and unchanged, was taken for stored at the second
    ingest, and the old place's trace, the session's only events, removed."""
    db, old, new = _moved_and_linked(workdir, tmp_path)
    with new.open("a") as grown:
        grown.write("garbage{\n")
    for _ in range(2):
        report = ingest(db, [workdir, new.parent.parent])
        assert (report.deleted, report.linked) == (0, 1)
        assert str(old) in _held(db) and len(findings(mur_trace.load(db=db))) == 19


def test_a_rebuild_holds_a_moved_and_linked_session_once(workdir: Path, tmp_path: Path) -> None:
    """A rebuild read the old place again through its link, a trace of its own: the
    session counted twice (21 findings in 8 sessions)."""
    db, old, new = _moved_and_linked(workdir, tmp_path)
    with new.open("a") as grown:
        grown.write(new.read_text().splitlines()[1] + "\n")  # one more event, an inference
    report = ingest(db, [workdir, new.parent.parent], rebuild=True)
    assert (report.new, report.deleted, report.events) == (7, 0, 135)
    assert str(old) not in _held(db) and str(new) in _held(db)
    assert len(findings(mur_trace.load(db=db))) == 19


def test_a_held_trace_linked_to_what_the_catalog_holds_otherwise_stays(tmp_path: Path) -> None:
    """A held trace moved and linked from its old place, whose new file (starting with its
    bytes) was read as another format, or could not be read while the catalog still held
    its older content: the held trace was removed, its session's events lost."""
    real = Path(__file__).parent / "fixtures" / "real"
    claude = next((real / "claude-code").glob("*.jsonl"))
    codex = "".join(next((real / "codex").glob("*.jsonl")).read_text().splitlines(True)[:5])
    sample = sorted((Path(__file__).parent.parent / "sample_traces" / "workdir").glob("*"))
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    # as another format: an unrecognised first line, a Claude Code session, a Codex one's start
    (a / "s.jsonl").write_text("{}\n" + claude.read_text() + codex)
    db = tmp_path / "c.duckdb"
    ingest(db, [a], format_in="claude-code")
    (a / "s.jsonl").rename(b / "s.jsonl")
    (a / "s.jsonl").symlink_to(b / "s.jsonl")
    report = ingest(db, [b], format_in="codex")
    assert (report.deleted, report.linked) == (0, 1)
    assert str(a / "s.jsonl") in _held(db)
    # not readable now, its older content held: a session's first 5 lines held at b, its
    # first 20 at a; then b holds those 20, a bad line and the rest, and a leads to it
    lines = (sample[4] / "trace.jsonl").read_text().splitlines(keepends=True)
    db = tmp_path / "d.duckdb"
    (a / "t.jsonl").write_text("".join(lines[:20]))
    (b / "t.jsonl").write_text("".join(lines[:5]))
    shutil.copy(sample[6] / "trace.jsonl", b / "o.jsonl")  # something else to read
    ingest(db, [a / "t.jsonl", b / "t.jsonl", b / "o.jsonl"])
    (b / "t.jsonl").write_text("".join([*lines[:20], "garbage\n", *lines[20:]]))
    (a / "t.jsonl").unlink()
    (a / "t.jsonl").symlink_to(b / "t.jsonl")
    report = ingest(db, [a / "t.jsonl", b / "t.jsonl", b / "o.jsonl"])
    assert (report.deleted, report.linked) == (0, 1)
    with duckdb.connect(str(db), read_only=True) as con:
        held = con.execute(
            "SELECT events FROM traces WHERE trace_path = $p", {"p": str(a / "t.jsonl")}
        )
        assert held.fetchall() == [(20,)]


def test_links_to_held_files_since_removed_or_never_read(workdir: Path, tmp_path: Path) -> None:
    """Three a sixth review found: a held trace made a link to another held one, whose file
    was then removed, was deleted with it (its only copy); a rebuild read a link held
    without events as a second trace of its target; two new links to one file were two
    traces."""
    first, second = sorted(workdir.glob("ses_*/trace.jsonl"))[:2]
    db = tmp_path / "c.duckdb"
    ingest(db, workdir=workdir)
    first.unlink()
    first.symlink_to(second)
    ingest(db, workdir=workdir)
    shutil.rmtree(second.parent)
    report = ingest(db, workdir=workdir)
    assert (report.deleted, report.kept) == (1, 1)  # the removed file's; the link's kept
    assert first.parent.name in _session_ids(db) and len(_held(db)) == 6
    # held without events, then a link: a rebuild holds its target once
    other = tmp_path / "other"
    shutil.copytree(Path(__file__).parent.parent / "sample_traces" / "workdir", other)
    first, second = sorted(other.glob("ses_*/trace.jsonl"))[:2]
    first.write_text("not json at all\n")
    db = tmp_path / "d.duckdb"
    ingest(db, workdir=other)
    first.unlink()
    first.symlink_to(second)
    assert ingest(db, workdir=other).linked == 1
    report = ingest(db, workdir=other, rebuild=True)
    assert (report.new, report.events) == (6, 115)
    assert len(findings(mur_trace.load(db=db))) == 17
    # two new links to a file neither held nor named: one trace, under the first name
    links = [tmp_path / "l1.jsonl", tmp_path / "l2.jsonl"]
    for link in links:
        link.symlink_to(second)
    assert ingest(tmp_path / "e.duckdb", links).new == 1


def test_a_claude_code_session_file_named_through_a_link_brings_its_subagents(
    tmp_path: Path,
) -> None:
    """A session file linked into a project directory holding its subagents: `--db` with
    the link looked for them beside the file it leads to, and left them out (13 calls in 1
    session, where reading the link finds 14 in 2 of 3)."""
    project, elsewhere = tmp_path / "p", tmp_path / "q"
    shutil.copytree(CLAUDE / f"marot_spotter__{MAROT}", project / MAROT)
    elsewhere.mkdir()
    shutil.copy(CLAUDE / f"marot_spotter__{MAROT}.jsonl", elsewhere / f"{MAROT}.jsonl")
    link = project / f"{MAROT}.jsonl"
    link.symlink_to(elsewhere / f"{MAROT}.jsonl")
    db = tmp_path / "c.duckdb"
    ingest(db, [project, elsewhere])
    for args in (["--db", str(db), str(link)], [str(link)]):
        result = runner.invoke(app, ["redundant", *args])
        assert result.exit_code == 0, result.output
        assert result.stdout.endswith("total:      14 redundant calls in 2 of 3 sessions\n")


def _rebuild_refused(db: Path, paths: list[Path], said: str) -> None:
    """A rebuild of `db` naming `paths` is refused (E-IO-004, saying `said`), the catalog
    left as it was."""
    before = db.read_bytes()
    with pytest.raises(mur_trace.MurTraceError) as refused:
        ingest(db, paths, rebuild=True)
    assert refused.value.code == "E-IO-004"
    assert said in refused.value.message
    assert db.read_bytes() == before


@pytest.mark.parametrize("case", ["target held without events", "catalog of version 3"])
def test_a_rebuild_refuses_to_read_a_held_trace_through_its_new_link(
    workdir: Path, tmp_path: Path, case: str
) -> None:
    """A held trace whose file became a link: a rebuild read it through the link (its own
    events, the catalog's only copy, lost) when the link led to a trace held without
    events (a session file empty when ingested), or in a catalog of version 3."""
    db = tmp_path / "catalog.duckdb"
    first, second = sorted(workdir.glob("ses_*/trace.jsonl"))[:2]
    if case == "target held without events":
        target = tmp_path / "elsewhere.jsonl"
        target.write_text("")
        ingest(db, [workdir, target])
        shutil.copy(first, target)
    else:
        ingest(db, [workdir])
        target = first
        with duckdb.connect(str(db)) as con:
            con.execute("UPDATE catalog_meta SET value = '3' WHERE key = 'schema_version'")
    second.unlink()
    second.symlink_to(target)
    _rebuild_refused(
        db, [workdir], f"it holds the trace {second}, whose path now leads to {target}"
    )


def test_a_file_that_cannot_be_read_named_through_a_link_too_is_said_once(
    workdir: Path, tmp_path: Path
) -> None:
    second = sorted(workdir.glob("ses_*/trace.jsonl"))[1]
    second.unlink()
    os.mkfifo(second)
    link = tmp_path / "latest.jsonl"
    link.symlink_to(second)
    report = ingest(tmp_path / "catalog.duckdb", [workdir, link])
    assert [s.trace_path for s in report.skipped] == [str(second)]
    assert report.new == 6


def _other_session(tmp_path: Path, name: str) -> Path:
    """A session not in the samples (the first of `synth --seed 5`), as `name`."""
    from mur_trace.synth import synthesize

    made = synthesize(tmp_path / "synth", 1, seed=5)
    source = next(made.glob("ses_*"))
    target = tmp_path / "elsewhere" / name
    shutil.copytree(source, target)
    return target / "trace.jsonl"


@pytest.mark.parametrize("sorts", ["after", "before"])
def test_a_held_trace_made_a_link_to_a_new_session_is_kept(
    workdir: Path, tmp_path: Path, sorts: str
) -> None:
    """A session's trace file replaced by a link to a new session beside it: when the new
    one's name sorted after it, `ingest W` read the new session's events into the held
    trace (`1 rewritten`: its only copy lost); a rebuild lost it whatever the order."""
    db = tmp_path / "catalog.duckdb"
    ingest(db, workdir=workdir)
    before = set(_session_ids(db))
    first, second = sorted(workdir.glob("ses_*/trace.jsonl"))[:2]
    name = "ses_01a2199999999999999999999999ffff" if sorts == "after" else "ses_01a1"
    new = _other_session(tmp_path, name)
    shutil.move(new.parent, workdir / name)
    second.unlink()
    second.symlink_to(workdir / name / "trace.jsonl")
    with pytest.raises(mur_trace.MurTraceError) as refused:
        ingest(db, [workdir], rebuild=True)
    assert refused.value.code == "E-IO-004"
    assert f"it holds the trace {second}, whose path now leads to {workdir / name}" in (
        refused.value.message
    )
    report = ingest(db, [workdir])
    assert (report.new, report.rewritten, report.unchanged, report.linked) == (1, 0, 6, 1)
    assert before < set(_session_ids(db)) and len(_session_ids(db)) == 8


def test_a_link_named_before_its_file_is_stored_under_the_files_name(
    workdir: Path, tmp_path: Path
) -> None:
    """`ingest latest.jsonl W` stored the link's name (the first of two names of one file),
    and a later `ingest W` stored the file under its own: the session counted twice."""
    db = tmp_path / "catalog.duckdb"
    trace = sorted(workdir.glob("ses_*/trace.jsonl"))[0]
    link = tmp_path / "latest.jsonl"
    link.symlink_to(trace)
    assert ingest(db, [link, workdir]).new == 7
    assert str(trace) in _held(db) and str(link) not in _held(db)
    assert ingest(db, [workdir]).unchanged == 7


def test_a_held_trace_kept_through_its_link_is_no_file_that_cannot_be_read(
    workdir: Path, tmp_path: Path
) -> None:
    """With a bad file beside it, the kept trace was not counted among those named: the
    bad file, alone left to read, was an error (exit 2), not a warning."""
    db = tmp_path / "catalog.duckdb"
    ingest(db, workdir=workdir)
    first, second = sorted(workdir.glob("ses_*/trace.jsonl"))[:2]
    second.unlink()
    second.symlink_to(first)
    bad = tmp_path / "bad.jsonl"
    bad.write_text("{not json\n")
    result = runner.invoke(app, ["ingest", "--db", str(db), str(second.parent), str(bad)])
    assert result.exit_code == 0, result.output
    assert result.stdout.endswith(
        "1 cannot be read (named above); 1 kept as the catalog held them: their paths now "
        "lead to other traces\n"
    )


def test_a_link_in_a_new_workdir_to_another_of_its_traces_is_read_once(
    workdir: Path, tmp_path: Path
) -> None:
    """As `redundant W` reads it: six sessions, not the linked one twice."""
    first, second = sorted(workdir.glob("ses_*/trace.jsonl"))[:2]
    second.unlink()
    second.symlink_to(first)
    db = tmp_path / "catalog.duckdb"
    assert ingest(db, workdir=workdir).new == 6
    assert str(first) in _held(db) and str(second) not in _held(db)


def test_a_rebuild_refuses_to_merge_a_trace_into_the_one_its_path_now_leads_to(
    workdir: Path, tmp_path: Path
) -> None:
    """A session directory replaced by a link to another session the catalog holds: the
    rebuild read the one file for both, dropped the first's events (its only copy) and
    said `0 deleted`."""
    db = tmp_path / "catalog.duckdb"
    ingest(db, workdir=workdir)
    first, second = sorted(workdir.glob("ses_*"))[:2]
    shutil.rmtree(first)
    first.symlink_to(second.name)
    assert ingest(db, workdir=workdir).deleted == 0  # an ingest keeps it, as before
    before = (db.read_bytes(), _held(db))
    with pytest.raises(mur_trace.MurTraceError) as refused:
        ingest(db, workdir=workdir, rebuild=True)
    assert refused.value.code == "E-IO-004"
    assert refused.value.message.startswith(
        f"refusing to rebuild {db}: it holds the trace {first.resolve().parent / first.name}"
    )
    assert (db.read_bytes(), _held(db)) == before


def test_a_rebuild_into_a_log_needs_no_workdir(workdir: Path, tmp_path: Path) -> None:
    # with standard output a file, the check that it is no input looked for ./workdir,
    # which a rebuild does not need: `workdir not found: workdir` (through a pipe, rebuilt)
    db = tmp_path / "catalog.duckdb"
    ingest(db, workdir=workdir)
    away = tmp_path / "elsewhere"
    away.mkdir()
    log = away / "ingest.log"
    with open(log, "w") as out:
        done = subprocess.run(
            [sys.executable, "-m", "mur_trace", "ingest", "--db", str(db), "--rebuild"],
            cwd=away, stdout=out, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
    assert (done.returncode, done.stderr) == (0, "")
    assert log.read_text() == (
        f"{db}: 7 new, 0 appended, 0 rewritten, 0 unchanged, 0 deleted traces; 134 events added\n"
    )


def test_a_catalog_under_a_file_cannot_be_opened(tmp_path: Path) -> None:
    # to the commands that read one, it was E-IO-001 `catalog not found`, where ingest
    # said E-IO-003, as the README's table does
    (tmp_path / "out.csv").write_text("a,b\n")
    db = tmp_path / "out.csv" / "c.duckdb"
    said = f"cannot open catalog {db}: its directory {tmp_path / 'out.csv'} is not a directory"
    with pytest.raises(mur_trace.MurTraceError) as caught:
        mur_trace.load(db=db)
    assert (caught.value.code, caught.value.message) == ("E-IO-003", said)
    result = runner.invoke(app, ["redundant", "--db", str(db)])
    assert (result.exit_code, result.stderr) == (2, f"error[E-IO-003]: {said}\n")
    with pytest.raises(mur_trace.MurTraceError) as caught:
        mur_trace.load(db=tmp_path / "nowhere" / "c.duckdb")  # a directory missing: not found
    assert caught.value.code == "E-IO-001"


@pytest.mark.parametrize("name", [":memory:", "md:c.duckdb", "prod:c.duckdb"])
def test_a_catalog_is_a_file_of_its_name_whatever_duckdb_makes_of_it(
    workdir: Path, tmp_path: Path, monkeypatch, name: str
) -> None:
    """DuckDB takes `:memory:` for a database in memory (`ingest --db :memory:` stored
    nothing and said `7 new`) and `word:…` for an extension's (`md:` went to download
    MotherDuck's): each is the file of that name."""
    monkeypatch.chdir(tmp_path)
    assert ingest(Path(name), workdir=workdir).new == 7
    assert (tmp_path / name).is_file()
    assert len(findings(mur_trace.load(db=name))) == 19


@pytest.mark.parametrize("signal_name", ["SIGINT", "SIGTERM"])
def test_an_interrupt_as_a_committed_ingest_reports_says_it_is_done(
    workdir: Path, tmp_path: Path, monkeypatch, signal_name: str
) -> None:
    """After the commit, as the command names what it could not read and prints its
    summary: `interrupted` (130, 143) was said of a catalog holding the ingest. And the
    command line run in a process of someone else's leaves its signals as they were (it
    blocked SIGINT and SIGTERM for good once an ingest had run)."""
    import signal
    import sys

    from mur_trace import cli

    notify = cli._notify

    def signalled(*args, **kwargs):
        os.kill(os.getpid(), getattr(signal, signal_name))
        return notify(*args, **kwargs)

    db = tmp_path / "catalog.duckdb"
    monkeypatch.setattr(cli, "_notify", signalled)
    monkeypatch.setattr(sys, "argv", ["mur-trace", "ingest", "--db", str(db), "--workdir",
                                      str(workdir)])  # fmt: skip
    previous = signal.getsignal(signal.SIGTERM)
    try:
        with pytest.raises(SystemExit) as ended:
            cli.main()  # which handles SIGTERM as the command line does
    finally:
        signal.signal(signal.SIGTERM, previous)
    assert ended.value.code == 0
    assert mur_trace.load(db=db).session_count() == 7
    assert signal.pthread_sigmask(signal.SIG_BLOCK, []) == set()


CLAUDE = Path(__file__).parent / "fixtures" / "real" / "claude-code"
MAROT = "4d5611e5-241a-462a-8d15-5122611a9569"  # 1,512 lines, a subagent's file beside it
CODEMIE = "624a4a58-b34c-462d-a70d-13421c8125a8"


def _claude_project(tmp_path: Path) -> Path:
    """A Claude Code project directory, as ~/.claude/projects/<project> holds it."""
    project = tmp_path / ".claude" / "projects" / "-home-u-proj"
    project.mkdir(parents=True)
    shutil.copy(CLAUDE / f"marot_spotter__{MAROT}.jsonl", project / f"{MAROT}.jsonl")
    shutil.copytree(CLAUDE / f"marot_spotter__{MAROT}", project / MAROT)
    shutil.copy(CLAUDE / "codemie-ai_codemie-code__session-624a4a58.jsonl",
                project / f"{CODEMIE}.jsonl")  # fmt: skip
    return project


def test_a_rebuild_refuses_to_merge_a_session_file_made_a_link_to_another(
    tmp_path: Path,
) -> None:
    """Another agent's session file replaced by a link to another held session: a rebuild
    stored the other session's events under the first's path, its only copy gone, the
    other counted twice, `0 deleted`."""
    project = _claude_project(tmp_path)
    db = tmp_path / "catalog.duckdb"
    assert ingest(db, [project]).new == 4  # two sessions, a subagent's file, a compaction's
    (project / f"{CODEMIE}.jsonl").unlink()
    (project / f"{CODEMIE}.jsonl").symlink_to(f"{MAROT}.jsonl")
    assert ingest(db, [project]).deleted == 0  # kept: the catalog holds its only copy
    _rebuild_refused(
        db, [project], f"it holds the trace {project / CODEMIE}.jsonl, whose path now leads to"
    )


def test_report_over_a_catalog_narrows_by_a_directory_as_every_command(tmp_path: Path) -> None:
    """`report --db c DIR` read DIR from the disk: a session whose file is gone (Claude Code
    removes old ones; the catalog holds its only copy) was left out, one not yet ingested
    an error; `redundant --db c DIR` narrows the catalog."""
    project = _claude_project(tmp_path)
    db = tmp_path / "catalog.duckdb"
    ingest(db, [project])
    (project / f"{CODEMIE}.jsonl").unlink()
    shutil.copy(CLAUDE / "chiphuyen_sniffly__d3ad4cdc-5657-435d-98fa-0035d53e383d.jsonl",
                project / "d3ad4cdc-5657-435d-98fa-0035d53e383d.jsonl")  # fmt: skip
    result = runner.invoke(app, ["report", "--db", str(db), str(project)])
    assert result.exit_code == 0, result.output
    assert "Sessions: 4  (" in result.stdout
    assert f"Session {CODEMIE}" in result.stdout


def test_options_that_read_trace_files_are_refused_with_a_catalog(
    workdir: Path, tmp_path: Path
) -> None:
    """Both were dropped without a word: `--format-in` let a file of another format be
    analysed as stored, `--workdir` the whole catalog be analysed."""
    db = tmp_path / "catalog.duckdb"
    ingest(db, workdir=workdir)
    for extra in (["--format-in", "codex"], ["--workdir", str(workdir)]):
        for command in (["redundant"], ["report"], ["show"]):
            result = runner.invoke(app, [*command, "--db", str(db), *extra])
            assert result.exit_code == 2, (command, extra, result.output)
            assert result.stderr.startswith("error[E-CLI-001]: "), result.stderr
    with pytest.raises(mur_trace.MurTraceError) as refused:
        mur_trace.find_redundant(db=db, format_in="codex")
    assert refused.value.code == "E-CLI-001"
    # the API dropped a workdir given with a catalog as the command line once did
    for entry in (mur_trace.load, mur_trace.find_redundant, mur_trace.summarise,
                  mur_trace.find_loops):  # fmt: skip
        with pytest.raises(mur_trace.MurTraceError) as refused:
            entry(db=db, workdir=workdir)
        assert refused.value.code == "E-CLI-001", entry
        assert "not a catalog's" in refused.value.message
    # the default's directory goes without saying, as on the command line
    assert mur_trace.load(db=db, workdir="workdir").session_count() == 7


def test_keep_gone_keeps_what_an_agent_deleted_itself(tmp_path: Path) -> None:
    """Claude Code deletes its session files after 30 days: an ingest of its projects
    removed them from the catalog, which held their only copy. With `--keep-gone` they
    stay, and a rebuild that would lose them is refused."""
    project = _claude_project(tmp_path)
    db = tmp_path / "catalog.duckdb"
    ingest(db, [project])
    before = findings(mur_trace.load(db=db, policy="context"))
    (project / f"{CODEMIE}.jsonl").unlink()  # cleaned up by the agent
    result = runner.invoke(app, ["ingest", "--db", str(db), str(project), "--keep-gone"])
    assert result.exit_code == 0, result.output
    assert "0 deleted traces" in result.stdout
    assert findings(mur_trace.load(db=db, policy="context")) == before
    rebuild = runner.invoke(app, ["ingest", "--db", str(db), str(project), "--keep-gone",
                                  "--rebuild"])  # fmt: skip
    assert rebuild.exit_code == 2
    assert "rebuild without --keep-gone, naming a directory that held them," in rebuild.stderr
    assert ingest(db, [project]).deleted == 1  # without it, as before
    with pytest.raises(mur_trace.MurTraceError) as refused:
        ingest(db, [project], keep_gone="no")
    assert refused.value.code == "E-CLI-001"


def test_catalog_edges_a_mutation_audit_found_untested(workdir: Path, tmp_path: Path) -> None:
    """Three ways to lose what the catalog holds, each refused by one condition of
    catalog.py no test reached: an ingest of `wd` deleting a gone trace of its sibling
    `wd2` (a path that starts with `wd` is not under it); a trace with no final newline
    losing its last, whole line (its session_end); a longer rewrite whose first bytes
    changed taken as an append (the old lines kept)."""
    sessions = sorted(workdir.glob("ses_*"))
    wd, wd2 = tmp_path / "wd", tmp_path / "wd2"
    wd.mkdir()
    wd2.mkdir()
    sessions[0].rename(wd / sessions[0].name)
    sessions[1].rename(wd2 / sessions[1].name)
    sessions[2].rename(wd2 / sessions[2].name)
    db = tmp_path / "c.duckdb"
    ingest(db, [wd, wd2])
    shutil.rmtree(wd2 / sessions[2].name)
    report = ingest(db, [wd])
    assert (report.unchanged, report.deleted) == (1, 0)
    assert len(_held(db)) == 3  # the gone one of wd2: its only copy
    # no final newline: every line, the last too
    trace = wd / sessions[0].name / "trace.jsonl"
    whole = trace.read_bytes()
    other = tmp_path / "one" / sessions[0].name
    other.mkdir(parents=True)
    (other / "trace.jsonl").write_bytes(whole.rstrip(b"\n"))
    one = tmp_path / "one.duckdb"
    ingest(one, [other.parent])
    assert mur_trace.load(db=one).events.count("*").fetchall() == [(whole.count(b"\n"),)]
    assert mur_trace.load(db=one).session_count() == 1
    assert mur_trace.load(db=one).report().sessions  # its session_end held: complete
    # a longer rewrite whose first lines changed: read again whole
    trace.write_bytes(whole.replace(b'"turn":0', b'"turn": 0', 1) + whole)
    report = ingest(db, [wd])
    assert (report.rewritten, report.appended) == (1, 0)
