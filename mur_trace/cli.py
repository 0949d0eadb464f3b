"""The `mur-trace` command line: thin. Each command loads, makes one library call, renders.

Exit codes: 0 success, 1 `check` found sessions over a threshold, 2 an error (one line on
stderr with a stable code, never a traceback; usage errors exit 2 too).

Annotations here are evaluated where they are written (no `from __future__ import
annotations`): Typer reads the parameters of the commands it builds at each start (only
the command that runs, `_app_for`, but every one for the help), and evaluating 246
annotation strings made that 11 ms of every command (4.5 ms so).
"""

import contextlib
import copy
import os
import re
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from enum import Enum, StrEnum
from pathlib import Path
from typing import Annotated, Any

import duckdb
import typer
import typer.core
import typer.main

from . import (
    Findings,
    find_loops,
    find_redundant,
    formats,
    load,
    run_in_batches,
    run_over_catalog,
    summarise,
)
from .effects import read_effects
from .errors import (
    E_INTERRUPTED,
    E_IO_003,
    E_TERMINATED,
    E_TRC_002,
    E_USAGE,
    MurTraceError,
    cut_short,
    visible,
)
from .load import POLICIES, RULES, Skipped, TraceWarning, rule_doc, strict_error
from .render import (
    DocFormat,
    Format,
    Progress,
    check_data,
    check_text,
    diff_text,
    ingest_text,
    json_document,
    records,
    report_data,
    report_text,
    show_data,
    show_text,
    skipped_note,
    steps_data,
    steps_text,
    write_dataset,
    write_empty_dataset,
    write_findings_text,
    write_parquet,
    write_rows,
)
from .sessions import (
    DEFAULT_WORKDIR,
    FILE,
    TRACE_FILE,
    WORKDIR,
    discover,
    is_literal,
    kind_of,
    real_paths,
    resolve_session,
    rust_count,
    select_sessions,
    session_at,
    workdir_argument,
)
from .trace import BIGINT_MAX, Trace
from .writes import (
    EXPORT_MARK,
    cannot_write,
    check_duckdb_name,
    check_overwrite,
    check_stdout,
    check_target,
    owned_directory,
    replaced_file,
    signals_after,
    stdout_file,
)

EXIT_ERROR = 2
EXIT_CHECK_FAILED = 1
EXIT_INTERRUPTED = 130

# Click's usage errors, whichever Click Typer runs on (its own since 0.28, else Click's
# package): the base class of typer.BadParameter that every usage error derives from.
ClickException = next(c for c in typer.BadParameter.__mro__ if c.__name__ == "ClickException")


class _OneLineErrors(typer.core.TyperGroup):
    """Click's usage errors (an unknown option, a value out of range) as every error here
    is said: one line with a code, exit 2; an interrupt as one line, exit 130."""

    def main(self, *args: Any, standalone_mode: bool = True, **kwargs: Any) -> Any:
        if not standalone_mode:
            return super().main(*args, standalone_mode=False, **kwargs)
        try:
            code = super().main(*args, standalone_mode=False, **kwargs)
        except ClickException as exc:
            where = f" (see {exc.ctx.command_path} --help)" if getattr(exc, "ctx", None) else ""
            typer.echo(f"error[{E_USAGE}]: {_usage_message(exc)}{where}", err=True)
            sys.exit(EXIT_ERROR if exc.exit_code == 2 else exc.exit_code)
        except typer.Abort:
            _say_interrupted()
            sys.exit(_stop_status())
        except OSError as exc:  # the help or a usage error, written where nothing fits
            _discard_stdout()  # what is left in its buffer would fail again at exit
            if not _reader_gone(exc):  # (`--help > /dev/full`); a closed pipe: as below
                with contextlib.suppress(OSError):
                    typer.echo(str(_stdout_failure(exc)), err=True)
                sys.exit(EXIT_ERROR)
            sys.exit(0)
        except SystemExit as exc:
            # the help, printed by Rich, into a pipe its reader closed (`--help | head`):
            # Rich exits 1; the reader had what it wanted, as after any other output
            if isinstance(exc.__context__, BrokenPipeError):
                sys.exit(0)
            raise
        if code == EXIT_INTERRUPTED:  # Ctrl-C outside a command's own handling (Typer's)
            _say_interrupted()
            code = _stop_status()
        sys.exit(code if isinstance(code, int) else 0)


def _usage_message(exc: Exception) -> str:
    """What a usage error says, on one line. No command named: the help (Rich prints it
    itself; else it is the message), then that no command was named (before, an empty
    error). Click's list of choices (`Choose from:\\n\\ttimeline,\\n\\twaste`) is
    written on the line."""
    message = exc.format_message()  # type: ignore[attr-defined]
    if type(exc).__name__ == "NoArgsIsHelpError":
        if message:
            typer.echo(message, err=True)
        return "no command named"
    return visible(message.replace(":\n\t", ": ").replace(",\n\t", ", "))


app = typer.Typer(
    cls=_OneLineErrors,
    name="mur-trace",
    help="Find redundant tool calls in Murmur agent traces (trace.jsonl), with DuckDB.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

Policy = Enum("Policy", {name: name for name in POLICIES}, type=str)  # type: ignore[misc]


def _location(value: str | Path) -> str:
    """A path (or, for Spark, a URL) as given; the empty name is none (a `Path` would make
    it `.`, and the command would read or write the directory it runs in). (A default
    comes as a `Path`.)"""
    text = os.fspath(value)
    if not text:
        raise typer.BadParameter("the empty name is no path")
    return text


def _named(value: str | Path) -> Path:
    """A path argument as given (`_location`), as a `Path`."""
    return Path(_location(value))


def _file_name(value: str | Path) -> Path:
    """A file's name as given: one that ends in `/`, `/.` or `/..` names a directory (a
    `Path` would drop the slash, and `-o x.csv/` wrote a file `x.csv`), and the empty name
    none. (A default comes as a `Path`.)"""
    text = os.fspath(value)
    if not text:
        raise typer.BadParameter("the empty name is no file")
    if os.path.basename(text) in ("", ".", ".."):
        raise typer.BadParameter(f"{text} names a directory, not a file")
    return Path(text)


def _count(value: str | int) -> int:
    """`--last` as `mur trace` reads it (`sessions.rust_count`): Python's int() took ` 3`,
    `٣` (an Arabic-Indic three), `1_0`, and any size."""
    number = rust_count(str(value))
    if number is None:
        raise typer.BadParameter(f"{str(value)!r} is not a count (ASCII digits, below 2^64)")
    return number


def _whole(low: int, high: int) -> Callable[[str | int], int]:
    """The parser of a count option from `low` to `high`, read as `--last` is (ASCII
    digits, `sessions.rust_count`): Click's int took `1_0` as 10, and `٣` (an Arabic-Indic
    three) as 3."""

    def parse(value: str | int) -> int:
        text = str(value)
        if not re.fullmatch(r"[+-]?[0-9]+", text):
            raise typer.BadParameter(f"{text!r} is not a whole number (ASCII digits)")
        number = int(text)
        if text.startswith("-") or not low <= number <= high:  # `-0` too: no count
            raise typer.BadParameter(f"{text} is not in the range {low}<=x<={high}.")
        return number

    return parse


#: A number as `mur trace` writes one (Rust's f64 syntax, without `inf` and `NaN`).
_DECIMAL = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


def _rate(value: str | float) -> float:
    """`--max-rate`: a share from 0 to 1 in ASCII (Python's float() took `0_5`, `٠.٥`
    and `nan`)."""
    text = str(value)
    if not _DECIMAL.fullmatch(text):
        raise typer.BadParameter(f"{text!r} is not a number from 0 to 1")
    rate = float(text)
    if not 0.0 <= rate <= 1.0:
        raise typer.BadParameter(f"{text} is not in the range 0<=x<=1.")
    return rate


PathsArg = Annotated[
    list[Path] | None,
    typer.Argument(
        parser=_named,
        # what cannot be read is skipped by the loader, with its reason
        help="Trace files, session directories or workdirs, in any mix. "
        "None: every session of --workdir.",
        show_default=False,
    ),
]
WorkdirOpt = Annotated[
    Path,
    typer.Option(
        parser=_named,
        help="Directory holding the ses_* session directories (with none: another agent's "
        "session files, read as if given as a path). Not with --db: name a directory after "
        "the command to narrow a catalog.",
    ),
]
PolicyOpt = Annotated[
    Policy,
    typer.Option(
        help="Redundancy semantics: `reference` is `mur trace`'s (SPEC section 3); "
        "`context` knows about resets, shell commands, aliases, ... (SPEC section 5)."
    ),
]
RuleOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--rule",
        help="Switch a context rule on (repeatable; `redundant --list-rules` lists them).",
    ),
]
NoRuleOpt = Annotated[
    list[str] | None,
    typer.Option("--no-rule", help="Switch a context rule off (repeatable)."),
]
DbOpt = Annotated[
    Path | None,
    typer.Option(
        "--db",
        parser=_file_name,
        help="Analyse the sessions of this catalog (see `ingest`) instead of the files.",
    ),
]
EffectsOpt = Annotated[
    Path | None,
    typer.Option(
        "--effects",
        parser=_file_name,
        help="TOML file declaring read/mutate for tools that declare nothing (context policy).",
    ),
]
FormatOpt = Annotated[Format, typer.Option("--format", "-f", help="Output format.")]
DocFormatOpt = Annotated[
    DocFormat,
    typer.Option("--format", "-f", help="`text` as `mur trace` prints it, or one JSON document."),
]
SessionArg = Annotated[
    str | None,
    typer.Argument(
        help="Session: omitted = newest; a path (with / or .jsonl); ses_<32 hex>; "
        "@N = N-th newest; else a case-insensitive suffix of a session id.",
        show_default=False,
    ),
]
StrictOpt = Annotated[
    bool,
    typer.Option(
        "--strict",
        help="Fail (exit 2) when any session cannot be read in full, instead of skipping it "
        "with a warning.",
    ),
]
FormatInOpt = Annotated[
    str | None,
    typer.Option(
        "--format-in",
        help="Read every file as this format: murmur, claude-code, codex, openhands, "
        "otel (default: recognised from each file's first line).",
        show_default=False,
    ),
]


def _output_file(value: str | Path) -> Path | None:
    """`-o`: a file to write, or `-` for standard output (as with no `-o`)."""
    return None if os.fspath(value) == "-" else _file_name(value)


# what --help shows as these values' type (a parser's name), as it shows a `Path`'s
_location.__name__ = _named.__name__ = _file_name.__name__ = _output_file.__name__ = "path"


OutputOpt = Annotated[
    Path | None,
    typer.Option(
        "--output",
        "-o",
        parser=_output_file,
        help="Write to this file (`-`: standard output; a file is required for parquet).",
    ),
]


def _version(value: bool) -> None:
    if value:
        from . import __version__

        typer.echo(f"mur-trace {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool,
        typer.Option("--version", callback=_version, is_eager=True, help="Print the version."),
    ] = False,
) -> None:
    """Find redundant tool calls in Murmur agent traces (trace.jsonl), with DuckDB."""


def _say_io_error(exc: Exception) -> None:
    """One line for an input or output error; nothing more when stderr fails too."""
    message = cut_short(exc) or str(exc)
    if isinstance(exc, FileNotFoundError) and exc.filename is None and _no_working_directory():
        # a relative path resolved in a directory removed meanwhile: Python names no path
        message = "the working directory no longer exists: run from one that does"
    with contextlib.suppress(OSError):
        typer.echo(f"error[{E_IO_003}]: {visible(message)}", err=True)


def _no_working_directory() -> bool:
    try:
        os.getcwd()
    except FileNotFoundError:
        return True
    return False


@contextlib.contextmanager
def _errors() -> Iterator[None]:
    """Turn library errors into one line on stderr and a non-zero exit."""
    try:
        yield
    except MurTraceError as exc:
        with contextlib.suppress(OSError):  # nowhere to say it: the exit status does
            typer.echo(str(exc), err=True)
        raise typer.Exit(EXIT_ERROR) from None
    except (KeyboardInterrupt, duckdb.InterruptException):
        _interrupted()
    except (OSError, duckdb.IOException) as exc:
        if _reader_gone(exc):  # `mur-trace ... | head`: the reader has what it wanted
            _discard_stdout()
            raise typer.Exit(0) from None
        _say_io_error(exc)
        raise typer.Exit(EXIT_ERROR) from None
    except duckdb.Error as exc:  # a catalog whose tables were changed, a query DuckDB refuses
        typer.echo(f"error[{E_IO_003}]: {visible(str(exc).splitlines()[0])}", err=True)
        raise typer.Exit(EXIT_ERROR) from None
    except RuntimeError as exc:
        if "interrupted" not in str(exc).lower():
            raise
        _interrupted()  # Ctrl-C inside a query: DuckDB stops it and says so as a RuntimeError


def _interrupted() -> None:
    """Ctrl-C: one line, exit 130 (SIGTERM: exit 143). DuckDB stops the query it runs; a
    catalog is as before (one transaction), a directory being written is removed."""
    _say_interrupted()
    raise typer.Exit(_stop_status()) from None


_said: list[bool] = []
#: The SIGTERM received, if one was: DuckDB turns any signal that stops its query into
#: the same interrupt as Ctrl-C, and the exit status must still say which it was.
_terminated: list[int] = []


def _stop_status() -> int:
    """The exit status of a command stopped by a signal: 128 + its number."""
    return 128 + _terminated[0] if _terminated else EXIT_INTERRUPTED


def _say_interrupted() -> None:
    """The one line an interrupt gets, said once however it reached us."""
    if not _said:
        _said.append(True)
        with contextlib.suppress(OSError):
            if _terminated:
                typer.echo(f"error[{E_TERMINATED}]: terminated", err=True)
            else:
                typer.echo(f"error[{E_INTERRUPTED}]: interrupted", err=True)


def _on_sigterm(signum: int, frame: object) -> None:
    """SIGTERM (`timeout`, a cancelled job): clean up as on Ctrl-C (staging directories,
    the catalog's transaction), say so in one line, exit 128 + 15."""
    _terminated.append(signum)
    _say_interrupted()
    sys.exit(128 + signum)


def _reader_gone(exc: Exception) -> bool:
    """Whether writing failed because the reader of our output closed its end (EPIPE),
    from Python or from DuckDB writing into the pipe itself."""
    return isinstance(exc, BrokenPipeError) or (
        isinstance(exc, duckdb.IOException) and "Broken pipe" in str(exc)
    )


def _discard_stdout() -> None:
    """Point stdout at /dev/null, so that flushing it at exit does not fail again."""
    with contextlib.suppress(OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())


@dataclass(frozen=True)
class _Source:
    """Where session arguments are looked up: a workdir, or with --db a catalog's sessions
    (name -> trace path, oldest first), named in messages by `where`."""

    workdir: Path
    known: dict[str, str] | None = None
    where: str | None = None
    #: with --db, when each of `known` was created (catalog.session_paths)
    created: dict[str, int | None] | None = None
    #: with --db, the other sessions of its files of several, name -> trace path
    also: dict[str, str] | None = None


def _source(workdir: Path, db: Path | None) -> _Source:
    if db is None:
        return _Source(workdir)
    from .catalog import catalog_sessions

    names = catalog_sessions(db)
    return _Source(workdir, names.paths, f"catalog {db}", names.created, names.also)


def _resolve(arg: str | None, source: _Source, label: str | None = None) -> Path:
    """A session argument as a trace path: a workdir's, or, with --db, the catalog's."""
    return resolve_session(arg, source.workdir, label, source.known, source.where, source.also)


def _readable_effects(effects: Path) -> bool:
    """Whether the effects file reads: one that does not is the command's one error line,
    with no warning before it."""
    try:
        read_effects(effects)
    except MurTraceError:
        return False
    return True


def _rules(
    rule: list[str] | None,
    no_rule: list[str] | None,
    policy: Policy | None,
    effects: Path | None = None,
) -> dict[str, bool]:
    """--rule / --no-rule as one mapping; an unknown name is a usage error that names the
    option it was given to. Rules and an effects file are the context policy's: given with
    the reference policy, they change nothing, and a warning says so (`loops`, no policy:
    they decide what counts as a change between two calls)."""
    wanted = {name: True for name in rule or []} | {name: False for name in no_rule or []}
    both = [name for name in rule or [] if name in (no_rule or [])]
    if both:  # (--no-rule won, whatever the order, without a word)
        raise typer.BadParameter(
            f"--rule and --no-rule both name {both[0]!r}: give one", param_hint="--no-rule"
        )
    for name in wanted:
        if name not in RULES:
            flag = "--rule" if name in (rule or []) else "--no-rule"
            raise typer.BadParameter(
                f"unknown rule {name!r}; known: {', '.join(RULES)}", param_hint=flag
            )
    if wanted and policy is Policy.reference:
        _warn(
            "warning: --rule and --no-rule choose the context policy's rules; the reference "
            "policy has none, and ignores them (add --policy context)"
        )
    if effects is not None and policy is Policy.reference and _readable_effects(effects):
        _warn(
            "warning: --effects declares effects for the context policy; the reference "
            "policy reads only what tools declared, and ignores it (add --policy context)"
        )
    return wanted


def _warn(text: str) -> None:
    """A warning on stderr. Where stderr takes nothing (full, closed), it is lost and the
    command goes on: what it answers, and its exit status, do not depend on its warnings
    (`check … 2>/dev/full` with a session skipped exited 2 where it passes)."""
    with contextlib.suppress(OSError):
        typer.echo(text, err=True)


def _notify(skipped: list[Skipped], warnings: list[TraceWarning], strict: bool = False) -> None:
    """Name each trace left out or read in part on stderr; with `strict`, fail on the first
    instead, in one line (before, each was named as skipped first)."""
    refused = strict_error(skipped, warnings) if strict else None
    if refused is not None:
        raise refused
    for left_out in skipped:
        _warn(f"warning[{left_out.code}]: {visible(left_out.message)} (skipped)")
    for warning in warnings:
        _warn(f"warning[{warning.code}]: {visible(warning.message)}")


def _load(
    paths: list[Path] | None,
    workdir: Path,
    policy: str = "reference",
    rules: dict[str, bool] | None = None,
    effects: Path | None = None,
    db: Path | None = None,
    strict: bool = False,
    format_in: str | None = None,
) -> Trace:
    trace = load(
        paths,
        workdir=workdir,
        db=db,
        policy=policy,
        rules=rules,
        effects=effects,
        format_in=format_in,
    )
    _notify(trace.skipped, trace.warnings, strict)
    return trace


def _guard(
    output: Path | None,
    paths: list[Path] | None,
    workdir: Path,
    db: Path | None = None,
    effects: Path | None = None,
) -> list[Path | None]:
    """Refuse, before any work, an output that would write over an input (E-IO-004); return
    the inputs, for the writers that check again what they create. No `output` is standard
    output; whatever `output` is, standard output the shell opened on an input
    (`mur-trace redundant t.jsonl >> t.jsonl`: a trace, the catalog, the effects file) is
    refused too (before, the trace was appended to); any other file it opened is written,
    wherever it lies."""
    workdir_argument(workdir, db)
    inputs: list[Path | None] = [*(paths or ([] if db else [workdir])), db, effects]
    # what goes to standard output: the rows, or what was written where (`export`, `plot`)
    _refuse_stdout_into(inputs, paths, workdir, db)
    if output is not None:
        known = list((_source(workdir, db).known or {}).values())
        try:
            # an existing output is compared, as a file, with every trace the inputs hold
            exists = output.exists()
            files = known if db is not None or not exists else discover(paths, workdir)
            check_target(output, [*inputs, *known], files=files)
            check_overwrite(output)
        except OSError as exc:  # a name too long, a directory we may not look in
            raise cannot_write(output, exc) from None
    return inputs


def _refuse_stdout_into(
    inputs: list[Path | None],
    paths: list[Path] | None,
    workdir: Path,
    db: Path | None,
    catalog: Path | None = None,
    rebuild: bool = False,
) -> None:
    """`writes.check_stdout` against `inputs` (read from the catalog `db`), the traces they
    hold, the `catalog` a command writes and, with `rebuild`, the traces that catalog holds,
    which it reads again. The traces are looked for only when standard output is a file;
    where none are found (no ./workdir, which a rebuild does not need), the command says so
    itself, whatever standard output is (a rebuild into a log failed `workdir not found`)."""
    stdout = stdout_file()
    if stdout is None:
        return
    traces: list[str] = []
    with contextlib.suppress(MurTraceError):
        traces = (
            list((_source(workdir, db).known or {}).values())
            if db is not None
            else discover(paths, workdir)
        )
    if rebuild and catalog is not None and catalog.is_file():
        with contextlib.suppress(MurTraceError):  # no catalog: ingest says so itself
            traces += list((_source(workdir, catalog).known or {}).values())
    check_stdout(stdout, inputs, traces, catalog)


@contextlib.contextmanager
def _output(output: Path | None, binary: bool = False) -> Iterator[Any]:
    """Standard output, or the file `output` (checked by `_guard` first), replaced when
    the rows are written: text, or with `binary` bytes (Parquet), which never go to
    standard output."""
    text: dict[str, Any] = {} if binary else {"encoding": "utf-8", "newline": ""}
    mode = "wb" if binary else "w"
    if output is None:
        try:
            yield sys.stdout
            sys.stdout.flush()  # what its buffer holds fails here, not as Python exits
        except (OSError, duckdb.IOException) as exc:  # a full device, a disk error
            if _reader_gone(exc):
                raise
            _discard_stdout()
            raise _stdout_failure(exc) from None
        return
    try:
        if output.is_fifo():
            # a pipe nobody reads would block the command forever: open it only when read
            try:
                fd = os.open(output, os.O_WRONLY | os.O_NONBLOCK)
            except OSError as exc:
                message = f"cannot write {output}: no process reads it"
                raise MurTraceError(E_IO_003, message) from exc
            os.set_blocking(fd, True)
            with open(fd, mode, **text) as out:
                yield out
        else:
            with replaced_file(output, mode, **text) as out:
                yield out
    except OSError as exc:  # the file named, not the system's `[Errno 21] ... 'x'`
        if _reader_gone(exc):
            raise
        raise cannot_write(output, exc) from None
    except duckdb.IOException as exc:  # DuckDB writing the CSV or JSON into the file itself
        if _reader_gone(exc):
            raise
        raise MurTraceError(E_IO_003, f"cannot write {output}: {_write_failure(exc)}") from None


def _stdout_failure(exc: OSError | duckdb.IOException) -> MurTraceError:
    """A write to standard output that failed, named as `-o FILE` names its file (was the
    system's `[Errno 28] …` or DuckDB's `Async write failed … "/dev/fd/1"`)."""
    return MurTraceError(E_IO_003, f"cannot write standard output: {_write_failure(exc)}")


def _write_failure(exc: OSError | duckdb.IOException) -> str:
    """Why a write failed, as the system says it (`No space left on device`), from
    Python's error or from DuckDB's (`Could not write file "/dev/fd/1": …`)."""
    if isinstance(exc, OSError):
        return exc.strerror or str(exc)
    found = re.search(r"Could not write file [^:]*: ([^\"]+)", str(exc))
    return found.group(1) if found else str(exc).splitlines()[0]


def _print(text: str) -> None:
    """A command's output (its text or JSON document) on standard output; an error writing
    it is one line (`_errors`)."""
    with _errors(), _output(None) as out:
        out.write(text)


def _list_rules(value: bool) -> None:
    if value:
        for rule in RULES:
            typer.echo(f"{rule:<24}{rule_doc(rule)}")
        raise typer.Exit()


@app.command()
def redundant(
    paths: PathsArg = None,
    workdir: WorkdirOpt = DEFAULT_WORKDIR,
    policy: PolicyOpt = Policy.reference,  # type: ignore[attr-defined]
    rule: RuleOpt = None,
    no_rule: NoRuleOpt = None,
    effects: EffectsOpt = None,
    db: DbOpt = None,
    fmt: FormatOpt = Format.text,
    output: OutputOpt = None,
    strict: StrictOpt = False,
    format_in: FormatInOpt = None,
    list_rules: Annotated[
        bool,
        typer.Option(
            "--list-rules", callback=_list_rules, is_eager=True, help="Describe the context rules."
        ),
    ] = False,
) -> None:
    """List the redundant tool calls of each session, and a total."""
    if fmt is Format.parquet and output is None:
        raise typer.BadParameter("--format parquet needs --output FILE", param_hint="--output")
    rules = _rules(rule, no_rule, policy, effects)
    with _errors():
        _guard(output, paths, workdir, db, effects)
        found = find_redundant(
            paths,
            workdir=workdir,
            db=db,
            policy=policy.value,
            rules=rules,
            effects=effects,
            progress=Progress("redundant"),
            format_in=format_in,
        )
        _notify(found.skipped, found.warnings, strict)
        _write_findings(found, fmt, output)


def _write_findings(found: Findings, fmt: Format, output: Path | None, **text: str) -> None:
    if fmt is Format.parquet:  # through _output too: a pipe is opened only when read
        with _output(output, binary=True) as out:
            write_parquet(found.relation, out)
        return
    with _output(output) as out:
        if fmt is Format.text:
            write_findings_text(found.relation, found.sessions, out, found.file_sessions, **text)
        else:
            write_rows(found.relation, fmt, out)


@app.command()
def loops(
    paths: PathsArg = None,
    workdir: WorkdirOpt = DEFAULT_WORKDIR,
    window: Annotated[
        int,
        typer.Option(
            parser=_whole(0, BIGINT_MAX),
            metavar="<integer>",
            help="How many turns back an identical call still counts (0 or more).",
        ),
    ] = 5,
    rule: RuleOpt = None,
    no_rule: NoRuleOpt = None,
    effects: EffectsOpt = None,
    db: DbOpt = None,
    fmt: FormatOpt = Format.text,
    output: OutputOpt = None,
    strict: StrictOpt = False,
    format_in: FormatInOpt = None,
) -> None:
    """Find loops: the same call repeated with nothing changed, and retries after failures.
    What changes between two calls is what the context policy sees (its rules, --effects)."""
    if fmt is Format.parquet and output is None:
        raise typer.BadParameter("--format parquet needs --output FILE", param_hint="--output")
    rules = _rules(rule, no_rule, None, effects)
    with _errors():
        _guard(output, paths, workdir, db, effects)
        found = find_loops(
            paths, window=window, workdir=workdir, db=db, rules=rules, effects=effects,
            format_in=format_in,
        )  # fmt: skip
        _notify(found.skipped, found.warnings, strict)
        _write_findings(found, fmt, output, noun="loop", verb="repeats")


@app.command()
def check(
    paths: PathsArg = None,
    workdir: WorkdirOpt = DEFAULT_WORKDIR,
    policy: PolicyOpt = Policy.reference,  # type: ignore[attr-defined]
    rule: RuleOpt = None,
    no_rule: NoRuleOpt = None,
    effects: EffectsOpt = None,
    max_redundant: Annotated[
        int | None,
        typer.Option(
            parser=_whole(0, BIGINT_MAX),
            metavar="<integer>",
            help="Most redundant calls a session may make (0 or more).",
        ),
    ] = None,
    max_rate: Annotated[
        float | None,
        typer.Option(
            parser=_rate,
            metavar="<number>",
            help="Highest share of tool calls that may be redundant (0-1).",
        ),
    ] = None,
    max_context_tokens: Annotated[
        int | None,
        typer.Option(
            parser=_whole(0, BIGINT_MAX),
            metavar="<integer>",
            help="Most tokens a session may re-send because of them (0 or more).",
        ),
    ] = None,
    db: DbOpt = None,
    fmt: DocFormatOpt = DocFormat.text,
    strict: StrictOpt = False,
    format_in: FormatInOpt = None,
) -> None:
    """A CI gate: exit 1 and list the sessions over a threshold."""
    if max_redundant is None and max_rate is None and max_context_tokens is None:
        raise typer.BadParameter(
            "give at least one of --max-redundant, --max-rate, --max-context-tokens"
        )
    rules = _rules(rule, no_rule, policy, effects)
    with _errors():
        _guard(None, paths, workdir, db, effects)
        trace = summarise(
            paths, workdir=workdir, db=db, policy=policy.value, rules=rules, effects=effects,
            format_in=format_in,
        )  # fmt: skip
        _notify(trace.skipped, trace.warnings, strict)
        failures = list(
            records(
                trace.check(
                    max_redundant=max_redundant,
                    max_rate=max_rate,
                    max_context_tokens=max_context_tokens,
                )
            )
        )
        # the sessions checked: each of a file of several (an OpenHands output) too
        sessions = trace.session_count()
        out = (
            check_text(failures, sessions)
            if fmt is DocFormat.text
            else json_document(check_data(failures, sessions, trace.skipped))
        )
        _print(out)
    if failures:
        raise typer.Exit(EXIT_CHECK_FAILED)


@app.command()
def show(
    session: SessionArg = None,
    workdir: WorkdirOpt = DEFAULT_WORKDIR,
    policy: PolicyOpt = Policy.reference,  # type: ignore[attr-defined]
    rule: RuleOpt = None,
    no_rule: NoRuleOpt = None,
    effects: EffectsOpt = None,
    db: DbOpt = None,
    fmt: DocFormatOpt = DocFormat.text,
    format_in: FormatInOpt = None,
) -> None:
    """Summarise one session: turns, tokens, tool calls, redundant calls, shell, compaction."""
    rules = _rules(rule, no_rule, policy, effects)
    with _errors():
        path = _resolve(session, _source(workdir, db))
        _guard(None, [path], workdir, db, effects)
        trace = _load([path], workdir, policy.value, rules, effects, db, format_in=format_in)
        data = show_data(trace.show())
        _print(show_text(data) if fmt is DocFormat.text else json_document(data))


@app.command()
def steps(
    session: SessionArg = None,
    verbose: Annotated[
        bool, typer.Option("--verbose", "-v", help="Add the first string of each turn's input.")
    ] = False,
    workdir: WorkdirOpt = DEFAULT_WORKDIR,
    db: DbOpt = None,
    fmt: DocFormatOpt = DocFormat.text,
    format_in: FormatInOpt = None,
) -> None:
    """One row per inference turn: decision, tool, duration of its first call."""
    with _errors():
        path = _resolve(session, _source(workdir, db))
        _guard(None, [path], workdir, db)
        trace = _load([path], workdir, db=db, format_in=format_in)
        session_id = trace.sessions.select("session_id").fetchall()[0][0]
        data = steps_data(session_id, trace.steps())
        out = steps_text(data, verbose) if fmt is DocFormat.text else json_document(data)
        _print(out)


@app.command()
def diff(
    before: Annotated[
        str | None, typer.Argument(help="Run A (default @2): any session argument.")
    ] = None,
    after: Annotated[
        str | None, typer.Argument(help="Run B (default @1): any session argument.")
    ] = None,
    workdir: WorkdirOpt = DEFAULT_WORKDIR,
    policy: PolicyOpt = Policy.reference,  # type: ignore[attr-defined]
    rule: RuleOpt = None,
    no_rule: NoRuleOpt = None,
    effects: EffectsOpt = None,
    db: DbOpt = None,
    fmt: DocFormatOpt = DocFormat.text,
    format_in: FormatInOpt = None,
) -> None:
    """Compare two sessions metric by metric (lower is better, but for success rate)."""
    rules = _rules(rule, no_rule, policy, effects)
    with _errors():
        if (before is None) != (after is None):
            raise MurTraceError(
                E_TRC_002,
                "mur-trace diff expects 0 or 2 arguments, got 1. "
                "Usage: mur-trace diff [<before> <after>]",
            )
        source = _source(workdir, db)
        a, b = _resolve_pair(
            "@2" if before is None else before, "@1" if after is None else after, source
        )
        if a == b and before != after and str(a) in (source.also or {}).values():
            # two instances of one file (an OpenHands output), which diff compares whole
            raise MurTraceError(
                E_TRC_002,
                f"{before} and {after} are sessions of one file, {a}, which diff compares "
                "whole: name sessions of two files",
            )
        _guard(None, [a, b], workdir, db, effects)
        trace = load(
            [a, b],
            workdir=workdir,
            db=db,
            policy=policy.value,
            rules=rules,
            effects=effects,
            format_in=format_in,
        )
        # a run that cannot be read is the error, as `mur trace` says it: no warning first
        rows = list(records(trace.diff(str(a), str(b))))
        _notify([], trace.warnings)
        _print(diff_text(rows) if fmt is DocFormat.text else json_document(rows))


def _resolve_pair(before: str, after: str, source: _Source) -> tuple[Path, Path]:
    """Both sessions of a diff; when both fail, one error with a line for each."""
    resolved, errors = [], []
    for arg, label in ((before, "before"), (after, "after")):
        try:
            resolved.append(_resolve(arg, source, label))
        except MurTraceError as exc:
            errors.append(exc)
    if errors:  # the same error twice (a workdir that is not there) is said once
        said = dict.fromkeys((e.message, *e.more) for e in errors)
        first, *rest = [line for error in said for line in error]
        raise MurTraceError(errors[0].code, first, rest)
    return resolved[0], resolved[1]


@app.command()
def report(
    sessions: Annotated[
        list[str] | None,
        typer.Argument(
            help="Sessions to include (any session argument); default: all.", show_default=False
        ),
    ] = None,
    last: Annotated[
        int | None,
        typer.Option(
            help="Only the N most recently created sessions.", parser=_count, metavar="<integer>"
        ),
    ] = None,
    since: Annotated[
        str | None, typer.Option(help="Only sessions created within 30m, 2h, 1d, ...")
    ] = None,
    workdir: WorkdirOpt = DEFAULT_WORKDIR,
    policy: PolicyOpt = Policy.reference,  # type: ignore[attr-defined]
    rule: RuleOpt = None,
    no_rule: NoRuleOpt = None,
    effects: EffectsOpt = None,
    db: DbOpt = None,
    fmt: DocFormatOpt = DocFormat.text,
    strict: StrictOpt = False,
    format_in: FormatInOpt = None,
) -> None:
    """Statistics across sessions: mean, stddev, min, max per metric; exit statuses."""
    rules = _rules(rule, no_rule, policy, effects)
    with _errors():
        source = _source(workdir, db)
        paths = select_sessions(
            sessions or [], workdir, last=last, since=since, known=source.known,
            where=source.where, created=source.created, also=source.also,
        )  # fmt: skip
        if db is not None and not sessions and last is None and since is None:
            paths = None  # the whole catalog is every trace it holds, named or not
        _guard(None, paths, workdir, db, effects)
        trace = summarise(
            paths,
            workdir=workdir,
            db=db,
            policy=policy.value,
            rules=rules,
            effects=effects,
            require_readable=False,
            format_in=format_in,
        )
        if strict:  # a trace not read whole, before what is left of the others is reported
            _notify(trace.skipped, trace.warnings, strict)
        result = trace.report()  # when nothing complete is left, its error says so
        refused = strict_error(result.skipped, []) if strict else None
        if refused is not None:  # an incomplete session, before the note that counts them
            raise refused
        if result.incomplete:
            _warn(skipped_note(len(result.incomplete)))
        _notify(result.skipped, trace.warnings)
        data = report_data(result, _report_source(paths, workdir, db, sessions or []))
        _print(report_text(data) if fmt is DocFormat.text else json_document(data))


def _report_source(paths: list[Path], workdir: Path, db: Path | None, given: list[str]) -> str:
    """What `report` names as where its sessions came from: the catalog, the directory
    given as its one argument, or the other agent's file (a session with its subagents),
    the workdir when they all lie in it, else the directory they share (or how many
    places)."""
    if db is not None:
        return str(db)
    if len(given) == 1 and is_literal(given[0]):
        kind = kind_of(Path(given[0]))
        if kind == WORKDIR or (
            kind == FILE and formats.recognise(given[0]) not in (None, "murmur")
        ):
            return given[0]
    homes = [_home(p) for p in paths]
    if not paths or set(real_paths(homes)) == {os.path.realpath(workdir)}:
        return str(workdir)
    if len(set(real_paths(homes))) == 1:
        return str(homes[0])
    return f"{len(set(real_paths(homes)))} directories"


def _home(trace: Path) -> Path:
    """The directory that holds a session: a Murmur trace's workdir
    (`<workdir>/ses_…/trace.jsonl`), else the directory of the session's file (a Claude
    Code subagent's `<dir>/<session>/subagents/agent-….jsonl` is its session's)."""
    if trace.name == TRACE_FILE:
        return trace.parent.parent
    if trace.parent.name == "subagents":
        return trace.parent.parent.parent
    return trace.parent


@app.command()
def ingest(
    paths: PathsArg = None,
    db: Annotated[
        Path,
        typer.Option("--db", parser=_file_name, help="The catalog file (created when missing)."),
    ] = ...,
    workdir: Annotated[
        Path | None,
        typer.Option(
            parser=_named,
            help="Directory holding the ses_* session directories (default: ./workdir; with "
            "none: another agent's session files, read as if given as a path).",
        ),
    ] = None,
    rebuild: Annotated[
        bool,
        typer.Option(
            help="Make the catalog anew: read again every trace it holds (as it was read) "
            "and those named (./workdir, when there is one and nothing is named). Refused "
            "when a trace it holds the events of is no longer a file (outside the "
            "directories named), cannot be read again, or now leads, through a link, to "
            "another trace's file that does not hold its bytes."
        ),
    ] = False,
    strict: StrictOpt = False,
    format_in: FormatInOpt = None,
    keep_gone: Annotated[
        bool,
        typer.Option(
            help="Keep the traces whose files are gone from the directories read (an agent "
            "that deletes its old logs: Claude Code after 30 days); without it, they leave "
            "the catalog."
        ),
    ] = False,
) -> None:
    """Store traces in a catalog; again, add only what changed since."""
    from .catalog import ingest as ingest_traces

    with _errors():
        # its catalog, which it writes, is no more standard output than an input is
        home = workdir or DEFAULT_WORKDIR
        _refuse_stdout_into(paths or [home], paths, home, None, catalog=db, rebuild=rebuild)
        report = ingest_traces(
            db,
            paths,
            # None when not given (./workdir): a rebuild then needs none to read what it holds
            workdir=workdir,
            rebuild=rebuild,
            strict=strict,
            progress=Progress("ingest"),
            format_in=format_in,
            keep_gone=keep_gone,
        )
        COMMITTED.set()
        # committed: the ingest is done, and says so, whatever Ctrl-C or SIGTERM comes while
        # it does (`interrupted`, exit 130 or 143, was said of a catalog holding the ingest)
        with signals_after() as meanwhile:
            # the traces it could not read are named before the summary ("named above")
            _notify(report.skipped, report.warnings)
            _print(ingest_text(report, db))
            meanwhile.clear()


#: The datasets of an export (Trace.export_tables).
EXPORT_TABLES = ("events", "findings")


class PartitionBy(StrEnum):
    """`export --partition-by`: the column the Parquet datasets are hive-partitioned by."""

    date = "date"
    capsule = "capsule"


@app.command()
def export(
    parquet: Annotated[
        Path,
        typer.Option("--parquet", parser=_named, help="Directory of the dataset."),
    ],
    paths: PathsArg = None,
    workdir: WorkdirOpt = DEFAULT_WORKDIR,
    db: DbOpt = None,
    policy: PolicyOpt = Policy.reference,  # type: ignore[attr-defined]
    rule: RuleOpt = None,
    no_rule: NoRuleOpt = None,
    effects: EffectsOpt = None,
    partition_by: Annotated[
        PartitionBy | None, typer.Option(help="Hive-partition the tables by this column.")
    ] = None,
    strict: StrictOpt = False,
    format_in: FormatInOpt = None,
) -> None:
    """Write the events and the findings as a Parquet dataset for Spark, Trino, DuckDB."""
    rules = _rules(rule, no_rule, policy, effects)
    with _errors():
        check_duckdb_name(parquet, "write")  # DuckDB writes the dataset
        inputs = _guard(parquet, paths, workdir, db, effects)
        partitions = partition_by.value if partition_by else None
        written = dict.fromkeys(EXPORT_TABLES, 0)
        schemas: dict[str, Any] = {}
        with owned_directory(parquet, EXPORT_MARK, EXPORT_TABLES, inputs) as staging:

            def write(trace: Trace) -> dict:
                """One batch of traces, written as parts of each table."""
                part = sum(1 for _ in (staging / "events").glob("**/*.parquet"))
                for name, rel in trace.export_tables().items():
                    rows, schemas[name] = write_dataset(rel, staging / name, partitions, part)
                    written[name] += rows
                return {}

            # in batches: a fleet's events are never all in memory
            if db is not None:
                if strict:  # the catalog knows what it cannot analyse before any batch
                    _load(paths, workdir, policy.value, db=db, strict=True)
                done = run_over_catalog(
                    paths, db, write, policy=policy.value, rules=rules, effects=effects
                )
            else:
                done = run_in_batches(
                    paths,
                    write,
                    workdir=workdir,
                    policy=policy.value,
                    rules=rules,
                    effects=effects,
                    format_in=format_in,
                )
            # a table no batch had a row of is a file of its columns (there was no
            # `findings` dataset when no session had a finding, though it said `0 rows`)
            for name, rows in written.items():
                if not rows and name in schemas:
                    write_empty_dataset(schemas[name], staging / name)
            _notify(done.skipped, done.warnings, strict)
        for name, rows in written.items():
            _print(f"{visible(str(parquet / name))}: {rows:,} rows\n")


spark_app = typer.Typer(
    help="The same detection on Spark, over an `export` directory. Needs the `spark` extra "
    "(pyspark 4) and Java 17 or later.",
    no_args_is_help=True,
)
app.add_typer(spark_app, name="spark")


ExportArg = Annotated[
    str,
    typer.Argument(
        parser=_location,
        help="A directory written by `mur-trace export --parquet` (its `events` dataset): "
        "a path or any URL Spark reads (hdfs://, s3a://).",
        show_default=False,
    ),
]
DatasetOpt = Annotated[
    str,
    typer.Option(
        "--output",
        "-o",
        parser=_location,
        help="Directory (or URL) of the findings' Parquet dataset: new, empty, or written by "
        "an earlier `spark` command (replaced).",
    ),
]
MasterOpt = Annotated[
    str | None,
    typer.Option(
        help="Spark master URL (local[2], spark://host:7077, yarn). "
        "Default: spark-submit's --master, else local[*].",
        show_default=False,
    ),
]


def _spark() -> Any:  # noqa: ANN401  (the module, imported here: pyspark is an extra)
    """mur_trace.spark, for the command line. py4j logs what goes wrong to Python's root
    logger, which then prints it: an interrupt while Spark works (Spark's own handler
    calls Java again from inside a call) printed four tracebacks before the one line that
    says so. Given a handler of its own, the root logger prints nothing: the command line
    says what failed itself."""
    import logging

    logging.getLogger().addHandler(logging.NullHandler())
    from . import spark

    return spark


@spark_app.command("redundant")
def spark_redundant(
    export_dir: ExportArg,
    output: DatasetOpt = ...,
    policy: PolicyOpt = Policy.reference,  # type: ignore[attr-defined]
    rule: RuleOpt = None,
    no_rule: NoRuleOpt = None,
    effects: EffectsOpt = None,
    master: MasterOpt = None,
) -> None:
    """Find the redundant calls of an export's sessions with Spark; write them as Parquet."""
    rules = _rules(rule, no_rule, policy, effects)
    with _errors():
        spark = _spark()

        detection = spark.Detection.redundant(policy.value, rules, effects)
        rows = spark.run(export_dir, output, detection, master, inputs=[effects])
        _print(f"{visible(str(output))}: {rows:,} findings\n")


@spark_app.command("loops")
def spark_loops(
    export_dir: ExportArg,
    output: DatasetOpt = ...,
    window: Annotated[
        int,
        typer.Option(
            parser=_whole(0, BIGINT_MAX),
            metavar="<integer>",
            help="How many turns back an identical call still counts (0 or more).",
        ),
    ] = 5,
    rule: RuleOpt = None,
    no_rule: NoRuleOpt = None,
    effects: EffectsOpt = None,
    master: MasterOpt = None,
) -> None:
    """Find the loops of an export's sessions with Spark; write them as Parquet. What
    changes between two calls is what the context policy sees (its rules, --effects)."""
    rules = _rules(rule, no_rule, None, effects)
    with _errors():
        spark = _spark()
        detection = spark.Detection.loops(window, rules, effects)
        rows = spark.run(export_dir, output, detection, master, inputs=[effects])
        _print(f"{visible(str(output))}: {rows:,} findings\n")


class PlotKind(StrEnum):
    """`plot KIND`: the figure to draw (mur_trace.plot)."""

    timeline = "timeline"
    waste = "waste"
    rate = "rate"


@app.command()
def plot(
    kind: Annotated[PlotKind, typer.Argument(help="timeline (one session), waste or rate.")],
    paths: PathsArg = None,
    output: Annotated[
        Path | None,
        typer.Option(
            "--output",
            "-o",
            parser=_file_name,
            help="Image to write: .png, .svg or .pdf (replaced if it exists). Default: "
            "mur-trace.png, which replaces only an image mur-trace wrote.",
            show_default=False,
        ),
    ] = None,
    session: Annotated[
        str | None,
        typer.Option(help="For timeline: the session (any session argument; or give its path)."),
    ] = None,
    workdir: WorkdirOpt = DEFAULT_WORKDIR,
    db: DbOpt = None,
    policy: PolicyOpt = Policy.reference,  # type: ignore[attr-defined]
    rule: RuleOpt = None,
    no_rule: NoRuleOpt = None,
    effects: EffectsOpt = None,
    format_in: FormatInOpt = None,
) -> None:
    """Draw a session timeline, waste by tool and resource, or redundancy over time."""
    rules = _rules(rule, no_rule, policy, effects)
    import logging  # here: the other commands need none of it (2 ms at every start)

    # matplotlib's notes on a configuration directory it cannot write (no HOME) would be
    # two lines more on stderr at every run; what it does instead (a temporary one) works
    logging.getLogger("matplotlib").setLevel(logging.ERROR)
    from . import plot as plots

    with _errors():
        if output is None:
            output = Path(plots.DEFAULT_IMAGE)
            plots.check_default(output)
        if kind is PlotKind.timeline:
            if paths and (len(paths) > 1 or session is not None):
                # which one, said (a directory and --session were told "name one")
                given = f"{len(paths)} paths given" if len(paths) > 1 else "a path and --session"
                raise MurTraceError(
                    E_USAGE,
                    f"plot timeline draws one session ({given}): give its path, or --session "
                    "with --workdir or --db",
                )
            # a path given as one is a path, even without a `/`
            path = session_at(str(paths[0])) if paths else _resolve(session, _source(workdir, db))
            # the session's directory is an input too, however the session was named (the
            # image was written into it)
            inputs = [path, *(paths or []), *([path.parent] if path.name == TRACE_FILE else [])]
            _guard(output, [*inputs, workdir], workdir, db, effects)
            plots.check_output(output)
            trace = _load([path], workdir, policy.value, rules, effects, db, format_in=format_in)
            figure = plots.timeline(trace)
        else:
            if session is not None:  # (dropped without a word: the whole workdir drawn)
                raise MurTraceError(
                    E_USAGE,
                    f"--session names the session of plot timeline; plot {kind.value} draws "
                    "every session given: name the session's path after the command",
                )
            _guard(output, paths, workdir, db, effects)
            plots.check_output(output)
            trace = _load(paths, workdir, policy.value, rules, effects, db, format_in=format_in)
            figure = getattr(plots, kind.value)(trace)
        # a plot stopped midway leaves no cut image; a pipe nobody reads is an error
        with _output(output, binary=True) as image:
            plots.save(figure, image, output)
    _print(f"wrote {visible(str(output))}\n")


@app.command()
def synth(
    out: Annotated[
        Path,
        typer.Argument(
            parser=_named,
            help="Directory to write workdir/, truth.jsonl, effects.toml.",
        ),
    ],
    sessions: Annotated[
        int,
        typer.Option(
            parser=_whole(1, 1_000_000),
            metavar="<integer>",
            help="How many sessions to simulate (1 to 1,000,000).",
        ),
    ] = 100,
    seed: Annotated[int, typer.Option(help="Seed; the same seed writes the same files.")] = 0,
) -> None:
    """Simulate agent sessions, with the truth of which calls were redundant."""
    from .synth import synthesize

    with _errors():
        workdir = synthesize(out, sessions, seed)
    _print(
        f"wrote {sessions} session{'' if sessions == 1 else 's'} to {visible(str(workdir))}, "
        f"the truth to {visible(str(out / 'truth.jsonl'))}\n"
    )


def _app_for(args: list[str]) -> typer.Typer:
    """The command line, holding only the command `args` starts with when it names one.

    Typer makes Click's command of every command it holds at each start, reading each
    one's parameters (8-13 ms of every start with all of them, 1.3 ms with one); the command
    that runs is the only one needed. The copy stays a group of commands, as the app is,
    because the app has a callback (`_root`): without one, Typer would build a lone
    command as the whole command line. The help, a group (`spark`), an option or an
    unknown name get them all (what Click says of an unknown name lists the others).
    """
    chosen = [
        info
        for info in app.registered_commands
        if args and (info.name or typer.main.get_command_name(info.callback.__name__)) == args[0]
    ]
    if not chosen:
        return app
    one = copy.copy(app)  # the module's app keeps every command
    one.registered_commands = chosen
    one.registered_groups = []
    return one


#: Set once the command has committed a catalog (`ingest`): the process then ends with
#: its status, not an interrupt's (`mur_trace.__main__.main`). Cleared by `main`.
COMMITTED = threading.Event()


def main() -> None:
    """The command line: parse the arguments, run the command, exit with its status
    (`mur_trace.__main__.main` starts it for the console script)."""
    if sys.stdout is None:  # started with its standard output closed (`>&-`)
        sys.stderr.write(f"error[{E_IO_003}]: standard output is closed\n")
        sys.exit(EXIT_ERROR)
    for stream in (sys.stdout, sys.stderr):  # a terminal that cannot show every character
        with contextlib.suppress(AttributeError, ValueError):
            stream.reconfigure(errors="backslashreplace")
    # ended by `timeout`, a cancelled job: clean up (staging directories) as on Ctrl-C
    signal.signal(signal.SIGTERM, _on_sigterm)
    COMMITTED.clear()
    try:
        _app_for(sys.argv[1:])()
    except KeyboardInterrupt:  # between Typer's handling and ours
        _say_interrupted()
        sys.exit(_stop_status())
