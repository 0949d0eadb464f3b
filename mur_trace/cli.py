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
from .errors import E_IO_003, MurTraceError
from .load import POLICIES
from .render import Format, findings_text, records, write_parquet, write_rows
from .sessions import DEFAULT_WORKDIR
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


def _load(paths: list[Path] | None, workdir: Path) -> Trace:
    trace = load(paths, workdir=workdir)
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


def main() -> None:
    """Entry point of the `mur-trace` console script."""
    app()
