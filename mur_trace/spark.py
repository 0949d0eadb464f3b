"""Redundant calls and loops on Spark, over the events `mur-trace export` writes.

A finding depends on its own trace only, so partitioning by trace is exact: the events are
repartitioned by `trace_path` and sorted by trace and line, and each partition goes, as
Arrow batches (`mapInArrow`), to a function that loads whole traces at a time into an
in-process DuckDB (`load.load_events`) and runs mur-trace's own queries over them through
`Trace`: one SQL definition of every rule, no translation. Spark only moves the rows.

    from mur_trace import spark

    session = spark.session()  # or any SparkSession whose workers have mur-trace
    events = spark.read_events(session, "export")  # the `events` dataset of an export
    spark.redundant(events, policy="context").write.parquet("findings")

The findings have the schema of `mur-trace redundant -f parquet` (or of `loops`), column
for column. Needs pyspark 4 (`pip install 'mur-trace[spark]'`) and Java 17 or later.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import sys
import threading
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import IO, TYPE_CHECKING
from urllib.parse import unquote, urlparse

from .effects import Effect, read_effects
from .errors import E_CFG_003, E_IO_001, E_IO_003, E_IO_004, MurTraceError
from .load import check_event_columns, connect, event_columns, load_events, load_traces
from .trace import Trace, count_argument
from .writes import EXPORT_MARK, missing_written, replaced_directory

if TYPE_CHECKING:
    import duckdb
    import pyarrow as pa
    from pyspark.sql import DataFrame, SparkSession

#: Events a task loads into DuckDB at a time (whole traces: more when one trace is longer):
#: bounds a task's memory whatever the size of its partition. Each load plans the queries
#: again, so loads are not made smaller than they need to be.
CHUNK_EVENTS = 500_000

#: Settings of the sessions `session` starts, unless given: a command's output is its
#: findings, so the driver logs only errors (mur_trace/log4j2.properties) and draws no
#: progress bar.
SESSION_DEFAULTS = {
    "spark.driver.extraJavaOptions": "-Dlog4j2.configurationFile="
    + (Path(__file__).resolve().parent / "log4j2.properties").as_uri(),
    "spark.ui.showConsoleProgress": "false",
}

#: Spark's name of each DuckDB type the findings have.
_SPARK_TYPES = {"VARCHAR": "STRING", "BIGINT": "BIGINT", "INTEGER": "INT", "DOUBLE": "DOUBLE"}


@dataclass(frozen=True)
class Detection:
    """What to find: the findings of a redundancy policy (`policy`), or loops (`policy`
    None, with `window`). Plain data: Spark sends it to every task."""

    policy: str | None = None
    rules: tuple[tuple[str, bool], ...] = ()
    effects: tuple[Effect, ...] | None = None
    window: int = 5

    @classmethod
    def redundant(
        cls,
        policy: str = "reference",
        rules: Mapping[str, bool] | None = None,
        effects: str | os.PathLike[str] | None = None,
    ) -> Detection:
        """The findings of `policy`, with `rules` and the effects file `effects` (read here,
        on the driver) as for `mur_trace.load`."""
        declared = tuple(read_effects(effects)) if effects is not None else None
        return cls(policy, tuple((rules or {}).items()), declared)

    @classmethod
    def loops(
        cls,
        window: int = 5,
        rules: Mapping[str, bool] | None = None,
        effects: str | os.PathLike[str] | None = None,
    ) -> Detection:
        """Loops, as `Trace.loops(window)` (the window checked here, before Spark starts),
        with the `rules` and the effects file `effects` that decide what changed between
        two calls, as for `mur_trace.find_loops`."""
        window = count_argument("window", window, optional=False)
        declared = tuple(read_effects(effects)) if effects is not None else None
        return cls(None, tuple((rules or {}).items()), declared, window)

    def trace(self, con: duckdb.DuckDBPyConnection) -> Trace:
        """The events loaded in `con`, as a Trace with these rules and effects."""
        effects = list(self.effects) if self.effects is not None else None
        return Trace(con, [], self.policy or "reference", rules=dict(self.rules), effects=effects)

    def findings(self, trace: Trace) -> duckdb.DuckDBPyRelation:
        """The findings of the traces loaded in `trace`."""
        return trace.loops(self.window) if self.policy is None else trace.redundant_calls()

    def schema(self) -> str:
        """The findings' schema as Spark DDL (`session_id STRING, ...`), from the queries
        themselves run over no trace. Refuses an unknown policy or rule."""
        con = connect()
        try:
            load_traces(con, [])
            rel = self.findings(self.trace(con))
            return ", ".join(
                f"`{name}` {_spark_type(str(kind))}"
                for name, kind in zip(rel.columns, rel.types, strict=True)
            )
        finally:
            con.close()


def _spark_type(kind: str) -> str:
    try:
        return _SPARK_TYPES[kind]
    except KeyError:
        raise TypeError(f"no Spark type for {kind}, the DuckDB type of a finding") from None


def redundant(
    events: DataFrame,
    policy: str = "reference",
    rules: Mapping[str, bool] | None = None,
    effects: str | os.PathLike[str] | None = None,
    *,
    partitions: int | None = None,
) -> DataFrame:
    """The redundant calls of `events` (the `events` dataset of `mur-trace export`) under
    `policy`, with `rules` and `effects` as for `mur_trace.load`: the rows and the schema of
    `mur-trace redundant -f parquet` over the traces exported. `partitions`: how many
    partitions the events are spread over by trace (default: Spark's shuffle partitions)."""
    return find(events, Detection.redundant(policy, rules, effects), partitions=partitions)


def loops(
    events: DataFrame,
    window: int = 5,
    rules: Mapping[str, bool] | None = None,
    effects: str | os.PathLike[str] | None = None,
    *,
    partitions: int | None = None,
) -> DataFrame:
    """The loops of `events` (see `Trace.loops`), with `rules` and `effects` as for
    `mur_trace.find_loops`: the rows and the schema of `mur-trace loops -f parquet`."""
    return find(events, Detection.loops(window, rules, effects), partitions=partitions)


def find(events: DataFrame, detection: Detection, *, partitions: int | None = None) -> DataFrame:
    """The findings of `detection` over `events`, computed trace by trace on the workers."""
    check_event_columns(events.columns)
    # a column an older export lacks (LATER_EVENT_COLUMNS) is left for load_events to make
    columns = [name for name, _ in event_columns() if name in events.columns]
    keys = ("trace_path",) if partitions is None else (partitions, "trace_path")
    by_trace = events.select(*columns).repartition(*keys).sortWithinPartitions("trace_path", "line")
    with _pandas_warning_ignored():
        return by_trace.mapInArrow(partial(find_in_batches, detection), detection.schema())


def find_in_batches(
    detection: Detection, batches: Iterable[pa.RecordBatch], chunk_events: int = CHUNK_EVENTS
) -> Iterator[pa.RecordBatch]:
    """The findings of `detection` over batches of events in which each trace's events are
    contiguous (a partition of `find`): whole traces are loaded into one DuckDB about
    `chunk_events` at a time, and their findings come out as Arrow batches."""
    import pyarrow as pa
    import pyarrow.compute as pc

    con = connect()
    con.execute("SET threads = $n", {"n": _task_cpus()})
    pending: list[pa.RecordBatch] = []
    rows = 0
    try:
        for batch in batches:
            pending.append(batch)
            rows += batch.num_rows
            if rows < chunk_events:
                continue
            table = pa.Table.from_batches(pending)
            paths = table.column("trace_path")
            # the last trace may go on in the next batch: it waits for the next load
            last = pc.index(paths, paths[-1]).as_py()
            if last > 0:
                yield from _find_loaded(con, detection, table.slice(0, last))
                pending = table.slice(last).to_batches()
                rows = table.num_rows - last
        if rows:
            yield from _find_loaded(con, detection, pa.Table.from_batches(pending))
    finally:
        con.close()


def _find_loaded(
    con: duckdb.DuckDBPyConnection, detection: Detection, events: pa.Table
) -> Iterator[pa.RecordBatch]:
    load_events(con, events)
    yield from detection.findings(detection.trace(con)).to_arrow_reader()


@contextlib.contextmanager
def _pandas_warning_ignored() -> Iterator[None]:
    """pyspark warns that it does not fully support pandas 3 whenever it checks that pandas
    is there (starting a session, an Arrow UDF): these findings never go through pandas."""
    with warnings.catch_warnings():
        warnings.filterwarnings(
            "ignore", "PySpark does not yet fully support pandas", FutureWarning
        )
        yield


def _task_cpus() -> int:
    """The cores Spark gave this task (`spark.task.cpus`): DuckDB's threads."""
    from pyspark import TaskContext

    context = TaskContext.get()
    return context.cpus() if context is not None else 1


def _java() -> str | None:
    """The `java` Spark starts: JAVA_HOME's, else the first on PATH."""
    home = os.environ.get("JAVA_HOME")
    if home:
        java = Path(home) / "bin" / "java"
        return str(java) if java.is_file() else None
    return shutil.which("java")


def session(master: str | None = None, config: Mapping[str, str] | None = None) -> SparkSession:
    """A SparkSession for mur-trace (the active one if there is one).

    `master` defaults to spark-submit's `--master`, else `local[*]`. Workers run this
    Python (`PYSPARK_PYTHON`, unless set). A missing pyspark or Java is a `MurTraceError`
    saying what to install.
    """
    try:
        from pyspark.errors import PySparkException
        from pyspark.sql import SparkSession
    except ImportError:
        raise MurTraceError(
            E_CFG_003, "the spark commands need pyspark: pip install 'mur-trace[spark]'"
        ) from None
    java = _java()
    if java is None:
        where = "JAVA_HOME" if os.environ.get("JAVA_HOME") else "PATH"
        raise MurTraceError(
            E_CFG_003,
            f"Spark needs Java 17 or later and there is no java on {where}: install a JDK "
            "(e.g. apt-get install openjdk-17-jre-headless) or set JAVA_HOME",
        )
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    options = {"spark.app.name": "mur-trace", **SESSION_DEFAULTS, **(config or {})}
    if master is not None:
        options["spark.master"] = master
    builder = SparkSession.builder
    for key, value in options.items():
        builder = builder.config(key, value)
    _JAVA_STDERR.hold()
    try:
        _start_java(options)
        with _pandas_warning_ignored():
            spark = builder.getOrCreate()
    except PySparkException as exc:  # the JVM did not start: Java, or what spark-submit read
        said = _JAVA_STDERR.drop()
        version = _java_version(java)
        if version is not None and version >= 17:
            raise MurTraceError(
                E_IO_003, f"Spark could not start{_at(master)}: {said or _first_line(exc)}"
            ) from None
        raise MurTraceError(
            E_CFG_003,
            f"Spark could not start Java ({java}); Spark 4 needs Java 17 or later: "
            f"{_first_line(exc)}",
        ) from None
    except Exception as exc:  # the JVM started, Spark did not (a master it cannot parse or reach)
        said = _JAVA_STDERR.drop()
        raise MurTraceError(
            E_IO_003, f"Spark could not start{_at(master)}: {said or _first_line(exc)}"
        ) from None
    _JAVA_STDERR.release()
    return spark


def _at(master: str | None) -> str:
    return f" with --master {master}" if master is not None else ""


def _java_version(java: str) -> int | None:
    """The major version of `java` (`java -version`), None when it cannot be told."""
    import subprocess

    try:
        said = subprocess.run([java, "-version"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    found = re.search(r'version "(\d+)(?:\.(\d+))?', said.stderr + said.stdout)
    if found is None:
        return None
    major = int(found.group(1))
    return int(found.group(2) or 0) if major == 1 else major  # "1.8.0" is Java 8


#: What Java says on stderr at every start that is not the user's business: Spark's
#: launcher adds the incubating vector module to every JVM it starts (JavaModuleOptions),
#: and the JVM has no option to keep its warning quiet.
_JAVA_NOISE = (b"WARNING: Using incubator modules:",)


def _start_java(options: Mapping[str, str]) -> None:
    """Start Spark's JVM, as the session would, with its stderr passed on by a thread that
    leaves out `_JAVA_NOISE` (a command's error is then its one line). Nothing to do when a
    JVM is there already (an active session, or one a launcher started)."""
    from pyspark import SparkConf, SparkContext
    from pyspark.java_gateway import launch_gateway

    if SparkContext._gateway is not None or "PYSPARK_GATEWAY_PORT" in os.environ:
        return
    conf = SparkConf(loadDefaults=False).setAll(list(options.items()))
    # read from the start: what Java says when it cannot start is passed on too
    read, write = os.pipe()
    threading.Thread(target=_pass_on, args=(os.fdopen(read, "rb"),), daemon=True).start()
    try:
        gateway = launch_gateway(conf, popen_kwargs={"stderr": write})
    finally:
        os.close(write)  # Java holds its own end: the thread ends when Java does
    SparkContext._ensure_initialized(gateway=gateway, conf=conf)


def _pass_on(stream: IO[bytes]) -> None:
    """Copy what Java writes to `stream` to stderr (a terminal's, or a notebook's), line by
    line, but `_JAVA_NOISE`, held back until Spark has started (`_JAVA_STDERR`). It reads
    to the end whatever happens to a line: Java would block on a full pipe."""
    for line in iter(stream.readline, b""):
        if not line.startswith(_JAVA_NOISE):
            _JAVA_STDERR.line(line.decode("utf-8", "replace"))


def _write_stderr(text: str) -> None:
    with contextlib.suppress(Exception):  # stderr closed, or replaced by then
        sys.stderr.write(text)
        sys.stderr.flush()


class _HeldStderr:
    """What the JVM writes on stderr while `session` starts Spark, held back (`hold`):
    when it cannot start (a master it cannot parse or reach, spark-submit refusing its
    options), its stack traces and log lines were printed before mur-trace's one line,
    which now says the reason they hold (`drop`, which lets go of them); once started,
    what was held is written (`release`). Outside `session`, lines are written as they
    come."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._held: list[str] = []
        self._holding = False

    def hold(self) -> None:
        with self._lock:
            self._holding, self._held = True, []

    def line(self, text: str) -> None:
        with self._lock:
            if self._holding:
                self._held.append(text)
                return
        _write_stderr(text)

    def release(self) -> None:
        with self._lock:
            self._holding, held, self._held = False, self._held, []
        for text in held:
            _write_stderr(text)

    def drop(self) -> str | None:
        """Stop holding, leave out what was held, and give the reason it holds: the
        message of its first Java exception, else of its first ERROR line (`All masters
        are unresponsive! Giving up.`)."""
        with self._lock:
            self._holding, held, self._held = False, self._held, []
        for pattern in (r"Exception(?: in thread \S+)? ?\S*?: (.+)", r"\bERROR\b.*?: (.+)"):
            for text in held:
                found = re.search(pattern, text)
                if found and found.group(1).strip():
                    return _JAVA_CLASS.sub("", found.group(1).strip())
        return None


#: Spark's JVM's stderr (`_pass_on`, `session`).
_JAVA_STDERR = _HeldStderr()


def read_events(spark: SparkSession, export: str) -> DataFrame:
    """The `events` dataset of the `mur-trace export` directory `export` (a path or a URL
    Spark reads: hdfs://, s3a://, ...), with its partition columns if it has any."""
    from py4j.protocol import Py4JJavaError
    from pyspark.errors import AnalysisException, PySparkException

    path = _events(export)
    try:
        return spark.read.parquet(_literal(path))
    except AnalysisException as exc:
        # no directory, or one with no Parquet file (an export always writes one: a table
        # of no rows is a file of its columns): no events dataset
        if exc.getCondition() in ("PATH_NOT_FOUND", "UNABLE_TO_INFER_SCHEMA"):
            raise _no_events(export) from None
        raise MurTraceError(E_IO_003, f"cannot read {path}: {_first_line(exc)}") from None
    except (PySparkException, Py4JJavaError) as exc:  # a file that is not Parquet, or torn
        raise MurTraceError(E_IO_003, f"cannot read {path}: {_first_line(exc)}") from None


def _events(export: str) -> str:
    """Where the `events` dataset of the export `export` lies."""
    return f"{export.rstrip('/')}/events"


def _no_events(export: str) -> MurTraceError:
    """The error for an export that holds no `events` dataset."""
    return MurTraceError(
        E_IO_001, f"no events dataset at {_events(export)}: is {export} a `mur-trace export`?"
    )


#: The file that marks a directory as one `run` wrote its findings to: only such a
#: directory is replaced (Spark's own overwrite would delete any directory it is given).
SPARK_MARK = ".mur-trace-spark"


def run(
    export: str,
    output: str,
    detection: Detection,
    master: str | None = None,
    inputs: Iterable[str | os.PathLike[str] | None] = (),
) -> int:
    """Read the events of the export `export`, find `detection`'s findings, write them to
    `output` as a Parquet dataset; return how many were written.

    `output` is written as every write is (mur_trace/writes.py): it may be new, empty or
    one `run` wrote before (it holds SPARK_MARK), never the export, a directory that
    contains it or lies inside it, another of the `inputs` (an effects file), a file, or a
    directory of someone's files. A local output is written beside and moved in when
    complete; a URL (hdfs://, s3a://) is checked through Spark's file system and replaced
    in place.
    """
    local = _local(output)
    if local is None:
        _refuse_remote(export, output)
        spark = session(master)  # first: it says what is missing
        findings = find(read_events(spark, export), detection)
        return _spark_writes(spark, lambda: _write_remote(spark, findings, output))
    source = _local(export)
    if source is not None and not os.path.exists(_events(source)):
        raise _no_events(export)  # before Spark starts (10 s), and before its first words
    gone = missing_written(source, EXPORT_MARK, "events") if source is not None else None
    if gone is not None:  # its sessions' findings were left out, exit 0, without a word
        raise MurTraceError(
            E_IO_001,
            f"{source.rstrip('/')}/{gone}, which the export wrote, is missing (a partition "
            "lost in a copy?): the findings would leave its sessions out; export again",
        )
    with replaced_directory(local, SPARK_MARK, [source, *inputs]) as fresh:
        spark = session(master)
        findings = find(read_events(spark, _for_spark(export, source)), detection)

        def write() -> int:
            findings.write.parquet(_for_spark(str(fresh), str(fresh)))
            # counted from the files' footers (cached findings would be counted once, but in
            # Spark's 200 shuffle partitions: caching stops their coalescing, 20 x slower)
            return spark.read.parquet(_literal(_for_spark(str(fresh), str(fresh)))).count()

        return _spark_writes(spark, write)


def _spark_writes(spark: SparkSession, write: Callable[[], int]) -> int:
    """`write()`, with what Spark raises as one E-IO-003 error."""
    from py4j.protocol import Py4JJavaError
    from pyspark.errors import PySparkException

    try:
        return write()
    except (PySparkException, Py4JJavaError) as exc:
        raise MurTraceError(E_IO_003, f"Spark failed: {_first_line(exc)}") from None


def _local(location: str) -> str | None:
    """The local path `location` names (a path, or a file: URL), or None for a URL of
    another scheme: a scheme and `:/` (`s3a://b/x`, `hdfs:/x`). A name whose colon is
    followed by anything else is a local one (`run-11:28`: it was taken for a URL of the
    scheme `run-11`, and Spark failed on it after starting)."""
    scheme = re.match(r"([A-Za-z][A-Za-z0-9+.-]*):(?=/)", location)
    if scheme is None:
        return location
    if scheme.group(1).lower() == "file":
        return unquote(urlparse(location).path) or "/"
    return None


def _for_spark(location: str, local: str | None) -> str:
    """`location` as Spark is to read it: a local path with a colon made absolute (Hadoop
    reads `ex:1` as a URL of the scheme `ex`, `/home/u/ex:1` as a path)."""
    return os.path.abspath(local) if local is not None and ":" in local else location


def _refuse_remote(export: str, output: str) -> None:
    """A URL output that is the export's URL, contains it or lies inside it (E-IO-004)."""
    source, target = export.rstrip("/"), output.rstrip("/")
    if target == source or source.startswith(target + "/") or target.startswith(source + "/"):
        raise MurTraceError(
            E_IO_004,
            f"refusing to write {output}: it is, contains or lies inside the input {export}",
        )


def _write_remote(spark: SparkSession, findings: DataFrame, output: str) -> int:
    """Write `findings` to the URL `output` when it is missing, empty, or marked as ours."""
    hadoop = spark._jvm.org.apache.hadoop.fs  # type: ignore[union-attr]
    where = hadoop.Path(output)
    fs = where.getFileSystem(spark._jsc.hadoopConfiguration())  # type: ignore[union-attr]
    mark = hadoop.Path(where, SPARK_MARK)
    if fs.exists(where):
        if not fs.getFileStatus(where).isDirectory():
            raise MurTraceError(E_IO_004, f"refusing to write {output}: it is not a directory")
        if len(fs.listStatus(where)) and not fs.exists(mark):
            raise MurTraceError(
                E_IO_004,
                f"refusing to write into {output}: it holds files this command did not write "
                "(give a new or empty directory)",
            )
    findings.write.mode("overwrite").parquet(output)
    stream = fs.create(mark, True)
    try:
        stream.write(bytearray(b'{"written_by": "mur-trace"}\n'))
    finally:
        stream.close()
    return spark.read.parquet(_literal(output)).count()


def _literal(path: str) -> str:
    """`path` as a pattern that matches only itself (Spark reads `out[1]` as a pattern)."""
    return re.sub(r"([\\\[\]{}*?])", r"\\\1", path)


def _first_line(exc: Exception) -> str:
    """The first line of what went wrong: for an error of Java's, its Java exception's (which
    names the file; the Python side says only which call failed)."""
    java = getattr(exc, "java_exception", None)
    text = str(exc)
    if java is not None:
        with contextlib.suppress(Exception):  # the JVM may be gone
            text = str(java.toString())
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    first = lines[0] if lines else ""
    if first.endswith("Python worker:"):
        # the cause is the last line of the worker's traceback (`ModuleNotFoundError: No
        # module named 'mur_trace'`, a value the loader could not convert): it was cut off
        cause = next((line for line in reversed(lines) if _PYTHON_ERROR.match(line)), None)
        if cause is not None:
            first = f"{first} {cause}"
    # without the Java class that said it (`org.apache.spark.SparkException: [FAILED_…`)
    return _JAVA_CLASS.sub("", first) or type(exc).__name__


#: A Python exception as a traceback's last line names it: `ModuleNotFoundError: ...`,
#: `_duckdb.ConversionException: ...`.
_PYTHON_ERROR = re.compile(r"^(?:[A-Za-z_][\w]*\.)*[A-Z]\w*(?:Error|Exception): ")

#: A Java exception's class, as its `toString()` starts: a package, a class, a colon.
_JAVA_CLASS = re.compile(r"^(?:[a-z][\w$]*\.)+[A-Z][\w$]*(?:Exception|Error): ")
