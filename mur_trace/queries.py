"""The SQL of mur-trace: reads `queries/**/*.sql` and the documentation in their headers.

A query file is one SQL statement. Its leading `--` comment block documents it: free text
first, then `@param name TYPE description` and `@column name TYPE description` lines.
The path of a file below `queries/`, without `.sql`, is the query's name
(`redundant/reference`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

_TAG = re.compile(r"@(param|column)\s+(\S+)\s+(\S+)\s*(.*)")


@dataclass(frozen=True)
class Field:
    """A documented parameter or output column of a query."""

    name: str
    type: str
    doc: str


@dataclass(frozen=True)
class Query:
    """One documented query file."""

    name: str
    path: Path
    sql: str
    doc: str
    params: tuple[Field, ...]
    columns: tuple[Field, ...]


@cache
def queries_dir() -> Path:
    """The directory holding the query files: inside the installed package, else the repo's
    (found once: `get` asks it of every query a command reads, 43 for `show`)."""
    here = Path(__file__).resolve().parent
    for candidate in (here / "queries", here.parent / "queries"):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError("the queries/ directory of mur-trace is missing")


def _parse(name: str, path: Path) -> Query:
    text = path.read_text(encoding="utf-8")
    doc: list[str] = []
    params: list[Field] = []
    columns: list[Field] = []
    lines = text.splitlines()
    body_start = 0
    for i, line in enumerate(lines):
        if not line.startswith("--"):
            body_start = i
            break
        comment = line[2:].strip()
        tag = _TAG.match(comment)
        if tag:
            kind, fname, ftype, fdoc = tag.groups()
            (params if kind == "param" else columns).append(Field(fname, ftype, fdoc.strip()))
        else:
            doc.append(comment)
    sql = "\n".join(lines[body_start:]).strip().rstrip(";")
    return Query(
        name=name,
        path=path,
        sql=sql,
        doc="\n".join(doc).strip(),
        params=tuple(params),
        columns=tuple(columns),
    )


@cache
def get(name: str) -> Query:
    """The query called `name` (its path below queries/, without .sql)."""
    path = queries_dir() / f"{name}.sql"
    if not path.is_file():
        raise KeyError(f"no query named {name!r}")
    return _parse(name, path)


def names(package: str | None = None) -> list[str]:
    """Names of every query, or of those in one package (`redundant`), sorted."""
    root = queries_dir()
    base = root / package if package else root
    return sorted(p.relative_to(root).with_suffix("").as_posix() for p in base.rglob("*.sql"))
