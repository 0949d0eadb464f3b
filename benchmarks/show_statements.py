"""The floor of `show` on another layer: its statements, and nothing else, on DuckDB's engine.

    python benchmarks/show_statements.py record TRACE FILE   # in a process of its own
    python benchmarks/show_statements.py replay FILE

`record` runs `mur-trace show TRACE` in this process with every statement that reaches
DuckDB's engine written down (text and parameter values, in order; its output is
dropped) and writes them to FILE as JSON. `replay` imports DuckDB's engine module alone
(`_duckdb`, without the Python layer that `import duckdb` adds over it: its relations,
expressions and version, about two thirds of that import), opens a database and runs
them, fetching the rows of each query: what a `show` that computed what it computes now
would cost were it written straight against the engine, with no command line, no
relations, no Python of its own and no rendering. benchmarks/speed.py times it beside
`show`. Not a test: it changes DuckDB's connection class in the recording process.
"""

from __future__ import annotations

import contextlib
import io
import json
import sys
from typing import Any


def record(trace: str, out: str) -> None:
    """Run `show trace` here, writing down the statements it sends to the engine."""
    import _duckdb
    import duckdb  # noqa: F401  (its Python layer adds methods to the class first)

    cls = _duckdb.DuckDBPyConnection
    statements: list[tuple[str, Any]] = []
    execute, submit, script = cls.execute, cls._submit, cls._prepare_script

    def on_execute(self: Any, query: Any, parameters: Any = None, *args: Any, **kw: Any) -> Any:
        statements.append((str(query), parameters))
        if parameters is None:
            return execute(self, query, *args, **kw)
        return execute(self, query, parameters, *args, **kw)

    def on_submit(self: Any, query: str, values: Any, *args: Any) -> Any:
        statements.append((query, values))  # a relation's terminal: the statement it runs
        return submit(self, query, values, *args)

    def on_script(self: Any, query: Any, values: Any, **kw: Any) -> Any:
        # a relation's script: every statement but the last runs now (the last is
        # bound, and submitted when a terminal asks for its rows)
        if isinstance(query, str):
            for earlier in self.extract_statements(query)[:-1]:
                statements.append((earlier.query, values))
        return script(self, query, values, **kw)

    cls.execute, cls._submit, cls._prepare_script = on_execute, on_submit, on_script
    from mur_trace.__main__ import main

    sys.argv = ["mur-trace", "show", trace]
    with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):
        main()
    with open(out, "w", encoding="utf-8") as f:
        json.dump(statements, f)


def replay(path: str) -> None:
    """Run the statements of `path` on DuckDB's engine module alone."""
    import _duckdb

    with open(path, encoding="utf-8") as f:
        statements = json.load(f)
    con = _duckdb.connect()
    for query, parameters in statements:
        result = con.execute(query) if parameters is None else con.execute(query, parameters)
        if result.description is not None:
            result.fetchall()


if __name__ == "__main__":
    if sys.argv[1:2] == ["record"] and len(sys.argv) == 4:
        record(sys.argv[2], sys.argv[3])
    elif sys.argv[1:2] == ["replay"] and len(sys.argv) == 3:
        replay(sys.argv[2])
    else:
        sys.exit(__doc__)
