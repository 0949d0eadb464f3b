"""Rendering, shared by every command: text, JSON Lines, CSV and Parquet.

Library code returns relations; this module is the one place that turns them into bytes.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterable, Iterator
from enum import Enum
from pathlib import Path
from typing import Any, TextIO

import duckdb

RULE = "─"


class Format(str, Enum):
    """Output formats of the row-producing commands."""

    text = "text"
    jsonl = "jsonl"
    csv = "csv"
    parquet = "parquet"


def section(title: str) -> str:
    """A section heading as `mur trace show` prints it: `── Title ───…` (49 columns)."""
    head = f"── {title} "
    return head + RULE * (49 - len(head))


def records(rel: duckdb.DuckDBPyRelation) -> Iterator[dict[str, Any]]:
    """The rows of a relation as dicts, in its column order."""
    columns = rel.columns
    for row in rel.fetchall():
        yield dict(zip(columns, row, strict=True))


def write_jsonl(rel: duckdb.DuckDBPyRelation, out: TextIO) -> None:
    for record in records(rel):
        out.write(json.dumps(record, ensure_ascii=False) + "\n")


def write_csv(rel: duckdb.DuckDBPyRelation, out: TextIO) -> None:
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(rel.columns)
    writer.writerows(rel.fetchall())


def write_parquet(rel: duckdb.DuckDBPyRelation, path: Path) -> None:
    import pyarrow.parquet as pq

    pq.write_table(rel.to_arrow_table(), path)


def write_rows(rel: duckdb.DuckDBPyRelation, fmt: Format, out: TextIO) -> None:
    """Rows in a machine format (jsonl or csv) to a text stream."""
    if fmt is Format.jsonl:
        write_jsonl(rel, out)
    elif fmt is Format.csv:
        write_csv(rel, out)
    else:
        raise ValueError(f"{fmt.value} is not a row format for a text stream")


def redundant_line(turn: int, tool_name: str, resource: str, prior_turn: int) -> str:
    """One redundant call, in `mur trace show`'s format."""
    return f"  turn {turn}  {tool_name}  {resource}  (re-reads turn {prior_turn})"


def _plural(n: int, word: str) -> str:
    return f"{n:,} {word}{'' if n == 1 else 's'}"


def findings_text(findings: Iterable[dict[str, Any]], sessions_analysed: int) -> str:
    """Findings grouped by session, in `mur trace` line format, with a total."""
    out: list[str] = []
    current: tuple[str, str] | None = None
    block: list[str] = []
    total = 0
    sessions_with = 0

    def flush() -> None:
        if current is not None:
            out.append(f"{current[0]}  {current[1]}")
            out.append(f"count:      {len(block)}")
            out.extend(block)
            out.append("")

    for f in findings:
        if current is None or f["trace_path"] != current[1]:
            flush()
            current, block = (f["session_id"], f["trace_path"]), []
            sessions_with += 1
        block.append(redundant_line(f["turn"], f["tool_name"], f["resource"], f["prior_turn"]))
        total += 1
    flush()
    out.append(
        f"total:      {_plural(total, 'redundant call')} in {sessions_with:,} of "
        f"{_plural(sessions_analysed, 'session')}"
    )
    return "\n".join(out) + "\n"
