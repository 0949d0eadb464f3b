"""The `mur-trace` command line: thin. Each command loads, makes one library call, renders.

Exit codes: 0 success, 2 an error (one line on stderr with a stable code, never a
traceback; usage errors exit 2 too).
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from enum import Enum
from pathlib import Path
from typing import Annotated, TextIO

import duckdb
import typer

from . import load
from .errors import E_IO_003, E_TRC_002, MurTraceError
from .load import POLICIES
from .render import (
    DocFormat,
    Format,
    diff_text,
    findings_text,
    json_document,
    records,
    report_data,
    report_text,
    show_data,
    show_text,
    steps_data,
    steps_text,
    write_parquet,
    write_rows,
)
from .sessions import DEFAULT_WORKDIR, resolve_session, select_sessions
from .trace import Trace

EXIT_ERROR = 2

app = typer.Typer(
    name="mur-trace",
    help="Find redundant tool calls in Murmur agent traces (trace.jsonl), with DuckDB.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

Policy = Enum("Policy", {name: name for name in POLICIES}, type=str)  # type: ignore[misc]

PathsArg = Annotated[
    list[Path] | None,
    typer.Argument(
        help="Trace files, session directories or workdirs, in any mix. "
        "None: every session of --workdir.",
        show_default=False,
    ),
]
WorkdirOpt = Annotated[Path, typer.Option(help="Directory holding the ses_* session directories.")]
PolicyOpt = Annotated[
    Policy,
    typer.Option(help="Redundancy semantics: `reference` is `mur trace`'s (SPEC section 3)."),
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
OutputOpt = Annotated[
    Path | None,
    typer.Option("--output", "-o", help="Write to this file (required for parquet)."),
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


@contextlib.contextmanager
def _errors() -> Iterator[None]:
    """Turn library errors into one line on stderr and a non-zero exit."""
    try:
        yield
    except MurTraceError as exc:
        typer.echo(str(exc), err=True)
        raise typer.Exit(EXIT_ERROR) from None
    except (OSError, duckdb.IOException) as exc:
        typer.echo(f"error[{E_IO_003}]: {exc}", err=True)
        raise typer.Exit(EXIT_ERROR) from None


def _load(paths: list[Path] | None, workdir: Path, policy: str = "reference") -> Trace:
    trace = load(paths, workdir=workdir, policy=policy)
    for skipped in trace.skipped:
        typer.echo(f"warning[{skipped.code}]: skipped {skipped.message}", err=True)
    return trace


@contextlib.contextmanager
def _output(output: Path | None) -> Iterator[TextIO]:
    if output is None:
        yield sys.stdout
    else:
        with open(output, "w", encoding="utf-8", newline="") as out:
            yield out


@app.command()
def redundant(
    paths: PathsArg = None,
    workdir: WorkdirOpt = DEFAULT_WORKDIR,
    policy: PolicyOpt = Policy.reference,  # type: ignore[attr-defined]
    fmt: FormatOpt = Format.text,
    output: OutputOpt = None,
) -> None:
    """List the redundant tool calls of each session, and a total."""
    if fmt is Format.parquet and output is None:
        raise typer.BadParameter("--format parquet needs --output FILE", param_hint="--output")
    with _errors():
        trace = _load(paths, workdir)
        findings = trace.redundant_calls(policy.value)
        if fmt is Format.parquet:
            write_parquet(findings, output)
            return
        with _output(output) as out:
            if fmt is Format.text:
                sessions = trace.session_count()
                out.write(findings_text(records(findings), sessions))
            else:
                write_rows(findings, fmt, out)


@app.command()
def show(
    session: SessionArg = None,
    workdir: WorkdirOpt = DEFAULT_WORKDIR,
    policy: PolicyOpt = Policy.reference,  # type: ignore[attr-defined]
    fmt: DocFormatOpt = DocFormat.text,
) -> None:
    """Summarise one session: turns, tokens, tool calls, redundant calls, shell, compaction."""
    with _errors():
        trace = _load([resolve_session(session, workdir)], workdir, policy.value)
        data = show_data(trace.show())
        typer.echo(show_text(data) if fmt is DocFormat.text else json_document(data), nl=False)


@app.command()
def steps(
    session: SessionArg = None,
    verbose: Annotated[
        bool, typer.Option("--verbose", "-v", help="Add the first string of each turn's input.")
    ] = False,
    workdir: WorkdirOpt = DEFAULT_WORKDIR,
    fmt: DocFormatOpt = DocFormat.text,
) -> None:
    """One row per inference turn: decision, tool, duration of its first call."""
    with _errors():
        trace = _load([resolve_session(session, workdir)], workdir)
        session_id = trace.sessions.select("session_id").fetchall()[0][0]
        data = steps_data(session_id, trace.steps())
        out = steps_text(data, verbose) if fmt is DocFormat.text else json_document(data)
        typer.echo(out, nl=False)


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
    fmt: DocFormatOpt = DocFormat.text,
) -> None:
    """Compare two sessions metric by metric (lower is better, but for success rate)."""
    with _errors():
        if (before is None) != (after is None):
            raise MurTraceError(
                E_TRC_002,
                "mur-trace diff expects 0 or 2 arguments, got 1. "
                "Usage: mur-trace diff [<before> <after>]",
            )
        a, b = _resolve_pair(before or "@2", after or "@1", workdir)
        trace = _load([a, b], workdir, policy.value)
        rows = list(records(trace.diff(str(a), str(b))))
        typer.echo(diff_text(rows) if fmt is DocFormat.text else json_document(rows), nl=False)


def _resolve_pair(before: str, after: str, workdir: Path) -> tuple[Path, Path]:
    """Both sessions of a diff; when both fail, one error naming both."""
    resolved, errors = [], []
    for arg, label in ((before, "before"), (after, "after")):
        try:
            resolved.append(resolve_session(arg, workdir, label))
        except MurTraceError as exc:
            errors.append(exc)
    if errors:
        raise MurTraceError(errors[0].code, "; ".join(e.message for e in errors))
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
        int | None, typer.Option(help="Only the N most recently created sessions.")
    ] = None,
    since: Annotated[
        str | None, typer.Option(help="Only sessions created within 30m, 2h, 1d, ...")
    ] = None,
    workdir: WorkdirOpt = DEFAULT_WORKDIR,
    policy: PolicyOpt = Policy.reference,  # type: ignore[attr-defined]
    fmt: DocFormatOpt = DocFormat.text,
) -> None:
    """Statistics across sessions: mean, stddev, min, max per metric; exit statuses."""
    with _errors():
        paths = select_sessions(sessions or [], workdir, last=last, since=since)
        trace = _load(paths, workdir, policy.value)
        result = trace.report()
        for skipped in result.incomplete:
            typer.echo(f"warning[{skipped.code}]: skipped {skipped.message}", err=True)
        data = report_data(result, str(workdir))
        typer.echo(report_text(data) if fmt is DocFormat.text else json_document(data), nl=False)


def main() -> None:
    """Entry point of the `mur-trace` console script."""
    app()
