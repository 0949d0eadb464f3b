"""`Trace`: the analysis of a set of Murmur sessions, as DuckDB relations."""

from __future__ import annotations

from typing import Any

import duckdb

from .load import Skipped, findings_view


class Trace:
    """A set of loaded sessions and the analyses over them.

    Every analysis is a DuckDB relation: call `.df()`, `.pl()`, `.arrow()` or `.fetchall()`
    on it, or go on in SQL through `.con` / `.sql()`.
    """

    def __init__(self, con: duckdb.DuckDBPyConnection, skipped: list[Skipped]) -> None:
        self.con = con
        #: Traces that could not be read and were left out, with the reason.
        self.skipped = skipped

    @property
    def events(self) -> duckdb.DuckDBPyRelation:
        """One row per event line of every analysed trace."""
        return self.con.table("events")

    @property
    def tool_calls(self) -> duckdb.DuckDBPyRelation:
        """Tool calls with their resolved `resource` and `resource_source`."""
        return self.con.view("tool_calls")

    @property
    def sessions(self) -> duckdb.DuckDBPyRelation:
        """One row per analysed trace: identity, exit status and totals."""
        return self.con.view("sessions")

    def redundant_calls(self, policy: str = "reference") -> duckdb.DuckDBPyRelation:
        """Redundant calls under `policy`, one row per finding, in trace and line order."""
        return self.con.view(findings_view(policy)).order("trace_path, line")

    def sql(self, query: str, **params: Any) -> duckdb.DuckDBPyRelation:
        """Run `query` over the trace tables; `$name` placeholders are bound from `params`."""
        return self.con.sql(query, params=params or None)

    def session_count(self) -> int:
        """Number of analysed sessions (traces)."""
        return self.con.table("traces").filter("error_code IS NULL").count("*").fetchall()[0][0]

    def __repr__(self) -> str:
        return f"<Trace: {self.session_count()} sessions, {len(self.skipped)} skipped>"
