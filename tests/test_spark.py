"""mur_trace.spark and `mur-trace spark`: Spark's findings over an export are mur-trace's own.

One local Spark (`local[2]`) serves the whole module. On the sample workdir and on a
simulated one, for both policies and for loops, the findings Spark computes from the
`events` dataset of `export` equal, row for row, those mur-trace computes from the trace
files; `mur-trace spark` writes them with the schema of `mur-trace redundant -f parquet`.
The same check over 5,000 simulated sessions is in benchmarks/spark.py: here it made this
module take 3 min 20 s instead of about 1 min 15 s.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.dataset as ds
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

import mur_trace
from mur_trace import spark
from mur_trace.cli import app
from mur_trace.synth import synthesize

ROOT = Path(__file__).resolve().parent.parent
SAMPLE_WORKDIR = ROOT / "sample_traces" / "workdir"

#: Simulated sessions of the second workdir: enough for every kind of finding and several
#: traces in each of a task's loads.
SYNTH_SESSIONS = 300

runner = CliRunner()

# under pytest-xdist, every test here runs in the same worker, so that one Spark starts
pytestmark = pytest.mark.xdist_group("spark")


@pytest.fixture(scope="session")
def session():
    """A local Spark with two cores, few shuffle partitions and no UI; skipped, saying what
    is missing, without pyspark or Java. One for the run (under xdist this module's tests
    run among others': a module's fixture would start and stop Spark more than once)."""
    try:
        started = spark.session(
            "local[2]", {"spark.sql.shuffle.partitions": "3", "spark.ui.enabled": "false"}
        )
    except mur_trace.MurTraceError as exc:
        pytest.skip(f"no local Spark: {exc}")
    yield started
    started.stop()


def _export(workdir: Path, out: Path, *options: str) -> Path:
    result = runner.invoke(
        app, ["export", "--parquet", str(out), "--workdir", str(workdir), *options]
    )
    assert result.exit_code == 0, result.output
    return out


@pytest.fixture(scope="module")
def sample_export(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _export(SAMPLE_WORKDIR, tmp_path_factory.mktemp("sample") / "export")


@pytest.fixture(scope="module")
def synth(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A simulated workdir and its export, hive-partitioned by capsule (four directories;
    Spark adds the partition column, which the detection leaves aside)."""
    out = tmp_path_factory.mktemp("synth")
    workdir = synthesize(out, SYNTH_SESSIONS, seed=16)
    return workdir, _export(workdir, out / "export", "--partition-by", "capsule")


def _sorted(rows) -> list[tuple]:
    """Rows in one order whatever order they came in (NULLs sort first)."""
    return sorted((tuple(row) for row in rows), key=lambda row: [(v is not None, v) for v in row])


def _expected(workdir: Path, detection: str) -> tuple[list[str], list[tuple]]:
    """Columns and rows of mur-trace's own findings over the trace files."""
    if detection == "loops":
        rel = mur_trace.load(workdir=workdir).loops()
    else:
        rel = mur_trace.find_redundant(workdir=workdir, policy=detection).relation
    return rel.columns, rel.fetchall()


def _on_spark(session, export: Path, detection: str, **options):
    events = spark.read_events(session, str(export))
    if detection == "loops":
        return spark.loops(events, **options)
    return spark.redundant(events, detection, **options)


@pytest.mark.parametrize("detection", ["reference", "context", "loops"])
@pytest.mark.parametrize("workdir", ["sample", "synth"])
def test_spark_finds_what_mur_trace_finds(
    session, sample_export: Path, synth: tuple[Path, Path], workdir: str, detection: str
) -> None:
    traces, export = (SAMPLE_WORKDIR, sample_export) if workdir == "sample" else synth
    columns, expected = _expected(traces, detection)
    assert expected, "a comparison over no findings proves little"
    found = _on_spark(session, export, detection)
    assert found.columns == columns
    assert _sorted(found.collect()) == _sorted(expected)


def test_spark_reads_a_capsule_partition_of_a_session_with_no_capsule_name(
    session, tmp_path: Path
) -> None:
    # an empty capsule name was the partition `capsule=`, which Spark refuses to read
    # ([EMPTY_PARTITION_COLUMN_VALUE]); it is NULL (`__HIVE_DEFAULT_PARTITION__`)
    workdir = shutil.copytree(SAMPLE_WORKDIR, tmp_path / "workdir")
    trace = workdir / "ses_01a21715468070018000000000001eef" / "trace.jsonl"
    trace.write_text(
        trace.read_text().replace('"capsule_name":"refactor-bot"', '"capsule_name":""')
    )
    export = _export(workdir, tmp_path / "export", "--partition-by", "capsule")
    assert not (export / "events" / "capsule=").exists()
    columns, expected = _expected(workdir, "reference")
    assert len(expected) == 19
    assert _sorted(_on_spark(session, export, "reference").collect()) == _sorted(expected)


def test_spark_applies_rules_and_effects(session, synth: tuple[Path, Path]) -> None:
    workdir, export = synth
    effects = workdir.parent / "effects.toml"
    rules = {"same_request": False, "shell_inference": False}
    expected = mur_trace.find_redundant(
        workdir=workdir, policy="context", rules=rules, effects=effects
    ).relation.fetchall()
    default = mur_trace.find_redundant(workdir=workdir, policy="context").relation.fetchall()
    assert _sorted(expected) != _sorted(default), "the settings change nothing here"
    found = _on_spark(session, export, "context", rules=rules, effects=effects, partitions=2)
    assert _sorted(found.collect()) == _sorted(expected)


def test_spark_loops_take_the_rules_that_decide_what_changed(session, sample_export: Path) -> None:
    # `spark loops` took no rules, where `loops` and `find_loops` now do
    rules = {"context_reset": False}
    expected = mur_trace.find_loops(workdir=SAMPLE_WORKDIR, rules=rules).relation.fetchall()
    default = mur_trace.find_loops(workdir=SAMPLE_WORKDIR).relation.fetchall()
    assert len(expected) > len(default), "the rule changes nothing here"
    found = _on_spark(session, sample_export, "loops", rules=rules, partitions=2)
    assert _sorted(found.collect()) == _sorted(expected)


def _events_by_trace(export: Path) -> pa.Table:
    events = ds.dataset(export / "events").to_table()
    return events.sort_by([("trace_path", "ascending"), ("line", "ascending")])


@pytest.mark.parametrize("chunk_events", [1, 30])
def test_a_partition_is_loaded_whole_trace_by_whole_trace(
    sample_export: Path, chunk_events: int
) -> None:
    """Batches of 7 events cut traces anywhere (the sample's have 8 to 28 events); loads
    of about `chunk_events` events still hold whole traces, and the findings are the same
    as from the files."""
    pytest.importorskip("pyspark", reason="pyspark is not installed")
    events = _events_by_trace(sample_export)
    detection = spark.Detection.redundant("context")
    batches = spark.find_in_batches(detection, events.to_batches(7), chunk_events)
    found = [row for batch in batches for row in _rows(pa.Table.from_batches([batch]))]
    _, expected = _expected(SAMPLE_WORKDIR, "context")
    assert _sorted(found) == _sorted(expected)


def test_local_names_with_a_colon_are_paths_not_urls(
    session, sample_export: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # `run-11:28` was taken for a URL of the scheme `run-11`: none of the local checks,
    # then Spark's `URISyntaxException: Relative path in absolute URI` once started
    shutil.copytree(sample_export, tmp_path / "ex:1")
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, ["spark", "redundant", "ex:1", "-o", "run-11:28"])
    assert result.exit_code == 0, result.output
    assert result.stdout == "run-11:28: 19 findings\n"
    assert len(ds.dataset(tmp_path / "run-11:28").to_table()) == 19
    # and it is an output as every local one is: never the export itself
    refused = runner.invoke(app, ["spark", "redundant", "ex:1", "-o", "ex:1"])
    assert refused.exit_code == 2 and refused.stderr.startswith("error[E-IO-004]:")


@pytest.mark.parametrize("policy", ["reference", "context"])
def test_cli_writes_the_findings_of_redundant_parquet(
    session, sample_export: Path, tmp_path: Path, policy: str
) -> None:
    out = tmp_path / "findings[1]"  # not a pattern
    result = runner.invoke(
        app, ["spark", "redundant", str(sample_export), "--policy", policy, "-o", str(out)]
    )
    assert result.exit_code == 0, result.output
    single = tmp_path / "single.parquet"
    result_single = runner.invoke(
        app,
        ["redundant", "--workdir", str(SAMPLE_WORKDIR), "--policy", policy]
        + ["-f", "parquet", "-o", str(single)],
    )
    assert result_single.exit_code == 0, result_single.output
    written, expected = ds.dataset(out).to_table(), pq.read_table(single)
    assert result.stdout == f"{out}: {expected.num_rows:,} findings\n"
    assert written.schema.remove_metadata() == expected.schema.remove_metadata()
    assert _sorted(_rows(written)) == _sorted(_rows(expected))


def test_cli_writes_the_findings_of_loops_parquet(
    session, sample_export: Path, tmp_path: Path
) -> None:
    out = tmp_path / "loops"
    result = runner.invoke(
        app, ["spark", "loops", str(sample_export), "--window", "3", "-o", str(out)]
    )
    assert result.exit_code == 0, result.output
    single = tmp_path / "single.parquet"
    loops = ["loops", "--workdir", str(SAMPLE_WORKDIR), "--window", "3"]
    assert runner.invoke(app, [*loops, "-f", "parquet", "-o", str(single)]).exit_code == 0
    written, expected = ds.dataset(out).to_table(), pq.read_table(single)
    assert written.schema.remove_metadata() == expected.schema.remove_metadata()
    assert _sorted(_rows(written)) == _sorted(_rows(expected))


def _rows(table: pa.Table) -> list[tuple]:
    return list(zip(*(column.to_pylist() for column in table.columns), strict=True))


def _one_error_line(result) -> str:
    assert result.exit_code == 2, result.output
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    return lines[0]


def test_no_java_is_one_line_saying_what_to_install(
    monkeypatch: pytest.MonkeyPatch, sample_export: Path, tmp_path: Path
) -> None:
    command = ["spark", "redundant", str(sample_export), "-o", str(tmp_path / "out")]
    monkeypatch.setenv("JAVA_HOME", str(tmp_path))  # no bin/java there
    assert _one_error_line(runner.invoke(app, command)) == (
        "error[E-CFG-003]: Spark needs Java 17 or later and there is no java on JAVA_HOME: "
        "install a JDK (e.g. apt-get install openjdk-17-jre-headless) or set JAVA_HOME"
    )
    monkeypatch.delenv("JAVA_HOME")
    monkeypatch.setenv("PATH", str(tmp_path))
    line = _one_error_line(runner.invoke(app, command))
    assert line.startswith(
        "error[E-CFG-003]: Spark needs Java 17 or later and there is no java on PATH"
    )


def test_no_pyspark_is_one_line_naming_the_extra(
    monkeypatch: pytest.MonkeyPatch, sample_export: Path, tmp_path: Path
) -> None:
    for name in [*sys.modules, "pyspark"]:
        if name == "pyspark" or name.startswith("pyspark."):
            monkeypatch.setitem(sys.modules, name, None)  # import fails
    result = runner.invoke(app, ["spark", "loops", str(sample_export), "-o", str(tmp_path / "o")])
    assert _one_error_line(result) == (
        "error[E-CFG-003]: the spark commands need pyspark: pip install 'mur-trace[spark]'"
    )


def test_a_missing_export_is_said_before_spark_starts(tmp_path: Path) -> None:
    # a whole process, whose JVM would write to the same stderr: Spark started first, and
    # its JVM's warning came before the error, two lines where one is promised
    out = tmp_path / "out"
    result = subprocess.run(
        [sys.executable, "-m", "mur_trace", "spark", "redundant", str(tmp_path / "none"),
         "-o", str(out)],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert result.returncode == 2
    assert result.stderr == (
        f"error[E-IO-001]: no events dataset at {tmp_path / 'none'}/events: "
        f"is {tmp_path / 'none'} a `mur-trace export`?\n"
    )
    assert not out.exists()


def test_an_export_missing_a_file_it_wrote_is_said_before_spark_starts(tmp_path: Path) -> None:
    """A partition lost between the export and the job (a partial copy): the findings of
    its sessions were left out, exit 0, without a word; the export's mark lists it."""
    export = _export(SAMPLE_WORKDIR, tmp_path / "export", "--partition-by", "capsule")
    lost = sorted((export / "events").glob("capsule=*/*.parquet"))[0]
    lost.unlink()
    out = tmp_path / "out"
    result = runner.invoke(app, ["spark", "redundant", str(export), "-o", str(out)])
    assert result.exit_code == 2
    assert result.stderr == (
        f"error[E-IO-001]: {lost}, which the export wrote, is missing (a partition lost in "
        "a copy?): the findings would leave its sessions out; export again\n"
    )
    assert not out.exists()


def test_an_export_missing_a_partition_of_its_findings_is_read_whole(
    session, tmp_path: Path
) -> None:
    """Spark reads the export's events only, and finds the findings again from them: a
    lost partition of the export's own findings leaves out no session, and is no error
    (only the files of `events` the export's mark lists are looked for)."""
    export = _export(SAMPLE_WORKDIR, tmp_path / "export", "--partition-by", "capsule")
    held = ds.dataset(export / "findings").count_rows()
    lost = max((export / "findings").iterdir(), key=lambda p: ds.dataset(p).count_rows())
    assert ds.dataset(lost).count_rows() > 0
    shutil.rmtree(lost)
    out = tmp_path / "out"
    result = runner.invoke(app, ["spark", "redundant", str(export), "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert result.stdout == f"{out}: {held:,} findings\n"
    assert ds.dataset(out).count_rows() == held


BARE_PYTHON = "/usr/bin/python3"  # the system's, without mur-trace


@pytest.mark.skipif(not Path(BARE_PYTHON).exists(), reason="needs a Python without mur-trace")
def test_a_failure_in_sparks_python_workers_is_one_line_with_its_cause(
    sample_export: Path, tmp_path: Path
) -> None:
    """A cluster's most common mistake, executors whose Python lacks mur-trace: about 120
    lines of Java stacks and Python tracebacks, then `Spark failed: An exception was thrown
    from the Python worker:` with the cause cut off."""
    result = subprocess.run(
        [sys.executable, "-m", "mur_trace", "spark", "redundant", str(sample_export),
         "-o", str(tmp_path / "out")],
        capture_output=True, text=True, timeout=300, cwd=tmp_path,
        env={**os.environ, "PYSPARK_PYTHON": BARE_PYTHON},
    )  # fmt: skip
    assert result.returncode == 2
    assert result.stderr == (
        "error[E-IO-003]: Spark failed: An exception was thrown from the Python worker: "
        "ModuleNotFoundError: No module named 'mur_trace'\n"
    )


def test_a_run_says_nothing_on_stderr(sample_export: Path, tmp_path: Path) -> None:
    # a whole process: Java warned of its incubating vector module at every start, a line
    # before any error of the command's own
    command = [sys.executable, "-m", "mur_trace", "spark", "redundant", str(sample_export)]
    result = subprocess.run(
        [*command, "-o", str(tmp_path / "out")], capture_output=True, text=True, timeout=300
    )
    assert (result.returncode, result.stderr) == (0, "")
    assert result.stdout == f"{tmp_path / 'out'}: 19 findings\n"


@pytest.mark.parametrize(
    ("master", "reason"),
    [
        ("local[x]", "Could not parse Master URL: 'local[x]'"),
        ("bogus://x", "Master must either be yarn or start with spark, k8s, or local"),
    ],
)
def test_a_master_spark_cannot_use_is_one_line(
    sample_export: Path, tmp_path: Path, master: str, reason: str
) -> None:
    # a master Spark cannot parse was a Python traceback after Java's stack (exit 1); one
    # spark-submit refuses, Java's stack and then E-CFG-003 saying Spark needs Java 17
    out = tmp_path / "out"
    result = subprocess.run(
        [sys.executable, "-m", "mur_trace", "spark", "redundant", str(sample_export),
         "-o", str(out), "--master", master],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert (result.returncode, result.stdout) == (2, "")
    said = f"error[E-IO-003]: Spark could not start with --master {master}: {reason}\n"
    assert result.stderr == said
    assert not out.exists()


def test_what_py4j_logs_is_not_printed_by_the_command_line() -> None:
    """py4j logs its failures to Python's root logger, which printed them: Ctrl-C while
    Spark worked (`timeout -s INT 8 mur-trace spark redundant …`) printed four tracebacks
    (`ERROR:root:Exception while sending command.`, Spark's handler calling Java from inside
    a call) before `error[E-CLI-130]: interrupted`, 3 runs of 3. The command line's Spark
    gives the root logger a handler of its own, which prints nothing (py4j logs as here)."""
    script = (
        "from mur_trace.cli import _spark; _spark(); import logging\n"
        "try:\n    raise RuntimeError('reentrant call')\n"
        "except RuntimeError:\n    logging.exception('Exception while sending command.')"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert (done.returncode, done.stderr) == (0, "")


def test_a_directory_that_is_no_export_is_one_line(session, tmp_path: Path) -> None:
    command = ["spark", "redundant", str(tmp_path / "nowhere"), "-o", str(tmp_path / "out")]
    assert _one_error_line(runner.invoke(app, command)) == (
        f"error[E-IO-001]: no events dataset at {tmp_path / 'nowhere'}/events: "
        f"is {tmp_path / 'nowhere'} a `mur-trace export`?"
    )
    (tmp_path / "other" / "events").mkdir(parents=True)
    pq.write_table(
        pa.table({"trace_path": ["a"], "line": [1]}), tmp_path / "other/events/x.parquet"
    )
    command = ["spark", "loops", str(tmp_path / "other"), "-o", str(tmp_path / "out")]
    assert _one_error_line(runner.invoke(app, command)) == (
        "error[E-IO-003]: the events have no column 'session_id': "
        "not the events of `mur-trace export`"
    )
    # an events directory with no Parquet file in it was E-IO-003 UNABLE_TO_INFER_SCHEMA
    (tmp_path / "empty" / "events").mkdir(parents=True)
    command = ["spark", "redundant", str(tmp_path / "empty"), "-o", str(tmp_path / "out")]
    assert _one_error_line(runner.invoke(app, command)) == (
        f"error[E-IO-001]: no events dataset at {tmp_path / 'empty'}/events: "
        f"is {tmp_path / 'empty'} a `mur-trace export`?"
    )


def test_a_file_of_the_export_that_is_not_parquet_is_one_line_naming_it(
    session, sample_export: Path, tmp_path: Path
) -> None:
    # before: Py4JJavaError's traceback (or, the file read later, a line naming no file)
    export = tmp_path / "export"
    shutil.copytree(sample_export, export)
    broken = next((export / "events").rglob("*.parquet"))
    broken.write_text("garbage\n")
    command = ["spark", "redundant", str(export), "-o", str(tmp_path / "out")]
    line = _one_error_line(runner.invoke(app, command))
    assert line.startswith(f"error[E-IO-003]: cannot read {export}/events: "), line
    assert str(broken) in line
    assert "org.apache" not in line  # the Java class that said it (was its prefix)


def test_an_output_written_before_is_replaced_and_nothing_else(
    session, sample_export: Path, tmp_path: Path
) -> None:
    """The output is written beside and moved in; a second run replaces what the first
    wrote; a file someone added to it makes the directory theirs, never deleted."""
    out = tmp_path / "out"
    for _ in range(2):
        result = runner.invoke(app, ["spark", "loops", str(sample_export), "-o", str(out)])
        assert result.exit_code == 0, result.output
    assert (out / spark.SPARK_MARK).is_file()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]  # no staging left
    assert ds.dataset(out).to_table().num_rows > 0
    (out / "notes.txt").write_text("mine")
    result = runner.invoke(app, ["spark", "loops", str(sample_export), "-o", str(out)])
    assert _one_error_line(result).startswith(
        f"error[E-IO-004]: refusing to write into {out}: it holds files this command did not write"
    )
    assert (out / "notes.txt").read_text() == "mine"


def test_a_url_output_is_checked_through_sparks_file_system(
    session, sample_export: Path, tmp_path: Path
) -> None:
    """A URL output (here file:, as hdfs:// or s3a:// would be) is written only when it is
    missing, empty or marked as written by mur-trace: Spark's overwrite deletes any other."""
    findings = spark.loops(spark.read_events(session, str(sample_export)))
    theirs = tmp_path / "theirs"
    theirs.mkdir()
    (theirs / "notes.txt").write_text("mine")
    with pytest.raises(mur_trace.MurTraceError, match="E-IO-004"):
        spark._write_remote(session, findings, theirs.as_uri())
    (tmp_path / "file.txt").write_text("mine too")
    with pytest.raises(mur_trace.MurTraceError, match="E-IO-004"):
        spark._write_remote(session, findings, (tmp_path / "file.txt").as_uri())
    assert (theirs / "notes.txt").read_text() == "mine"
    assert (tmp_path / "file.txt").read_text() == "mine too"
    url = (tmp_path / "fresh").as_uri()
    first = spark._write_remote(session, findings, url)
    assert spark._write_remote(session, findings, url) == first > 0
    assert (tmp_path / "fresh" / spark.SPARK_MARK).is_file()
    with pytest.raises(mur_trace.MurTraceError, match="E-IO-004"):
        spark._refuse_remote("hdfs://nn/exports/a", "hdfs://nn/exports")


def test_what_the_jvm_says_while_spark_starts_is_held_then_let_go(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # what a failed start held was never let go of: a second failure gave the first one's
    # reason, a later start printed the old stack, and every later line was kept unseen
    from mur_trace.spark import _HeldStderr

    held = _HeldStderr()
    held.line("before any start\n")  # outside a start: written as it comes
    held.hold()
    held.line("ERROR SparkContext: Error initializing SparkContext.\n")
    held.line("org.apache.spark.SparkException: Could not parse Master URL: 'local[x]'\n")
    assert held.drop() == "Could not parse Master URL: 'local[x]'"
    held.line("after the failure\n")
    held.hold()
    held.line("26/12/05 ERROR StandaloneSchedulerBackend: Reason: All masters are unresponsive!\n")
    assert held.drop() == "Reason: All masters are unresponsive!"  # its own, not the first
    held.hold()
    held.line("WARN NativeCodeLoader: no native library\n")
    held.release()  # started: what was held is written, then the rest as it comes
    held.line("a later line\n")
    assert capsys.readouterr().err == (
        "before any start\nafter the failure\nWARN NativeCodeLoader: no native library\n"
        "a later line\n"
    )
