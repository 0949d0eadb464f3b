"""The Python API and the documentation carried by the query files."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

import mur_trace
from mur_trace import queries
from mur_trace.load import MATERIALISED, VIEWS


def test_load_returns_relations(sample_workdir: Path) -> None:
    trace = mur_trace.load(workdir=sample_workdir)
    for relation in (trace.events, trace.tool_calls, trace.sessions, trace.redundant_calls()):
        assert isinstance(relation, duckdb.DuckDBPyRelation)
    assert trace.session_count() == 7
    assert trace.skipped == []
    assert trace.redundant_calls().to_arrow_table().num_rows == 19
    assert repr(trace) == "<Trace: 7 sessions, 0 skipped>"


def test_sql_binds_parameters(sample_workdir: Path) -> None:
    trace = mur_trace.load(workdir=sample_workdir)
    rows = trace.sql(
        "SELECT count(*) FROM tool_calls WHERE tool_name = $tool AND resource_source = $source",
        tool="code-graph",
        source="declared",
    ).fetchall()
    assert rows == [(4,)]  # find_definition, find_references, rename, find_references
    # a value is bound, never spliced into the SQL
    assert trace.sql("SELECT $x AS x", x="'; DROP TABLE events; --").fetchall() == [
        ("'; DROP TABLE events; --",)
    ]
    assert trace.events.count("*").fetchall()[0][0] > 0


def test_metrics_follow_the_policy_rules_and_effects(sample_workdir: Path) -> None:
    # the metrics are computed once, and again whenever what they count changes
    trace = mur_trace.load(workdir=sample_workdir)
    metrics = trace.session_metrics()
    total = "sum(redundant_calls)::BIGINT"
    assert metrics.aggregate(total).fetchall() == [(19,)]
    trace.policy = "context"
    assert metrics.aggregate(total).fetchall() == [(9,)]
    trace.set_rules(dict.fromkeys(mur_trace.RULES, False))  # context = reference
    assert metrics.aggregate(total).fetchall() == [(19,)]
    trace.set_rules({"path_normalisation": True})
    assert metrics.aggregate(total).fetchall() == [(20,)]


def test_unknown_policy_is_refused(sample_workdir: Path) -> None:
    with pytest.raises(ValueError, match="unknown policy"):
        mur_trace.load(workdir=sample_workdir).redundant_calls("psychic")


def test_all_traces_unreadable_raises_the_first_error(tmp_path: Path) -> None:
    (tmp_path / "a.jsonl").write_text("nope\n")
    (tmp_path / "b.jsonl").write_text("")
    with pytest.raises(mur_trace.MurTraceError) as caught:
        mur_trace.load([tmp_path / "a.jsonl", tmp_path / "b.jsonl"])
    assert caught.value.code == "E-TRC-001"
    assert caught.value.message == f"{tmp_path / 'a.jsonl'}:1: not valid JSON"


@pytest.mark.parametrize("name", queries.names())
def test_every_query_documents_itself(name: str) -> None:
    query = queries.get(name)
    assert query.doc, f"{name} has no description"
    assert query.columns, f"{name} documents no column"


@pytest.mark.parametrize(
    ("relation", "name"),
    [*VIEWS.items(), *MATERIALISED.items(), ("traces", "load/traces")],
)
def test_documented_columns_are_the_real_ones(
    sample_workdir: Path, relation: str, name: str
) -> None:
    trace = mur_trace.load(workdir=sample_workdir)
    documented = [c.name for c in queries.get(name).columns]
    assert trace.sql(f"SELECT * FROM {relation}").columns == documented


@pytest.mark.parametrize(
    ("cwd", "spelling", "prefix"),
    [("wd", ".", ""), ("wd", "./", ""), (".", "wd", "wd/"), (".", "./wd//", "wd/"),
     (".", "wd/", "wd/")],
)  # fmt: skip
def test_a_workdir_lists_its_traces_as_pathlib_spells_them(
    cwd: str, spelling: str, prefix: str, tmp_path: Path, monkeypatch
) -> None:
    from mur_trace.sessions import workdir_traces

    (tmp_path / "wd" / "ses_b").mkdir(parents=True)
    (tmp_path / "wd" / "ses_a").mkdir()
    (tmp_path / "wd" / "notes").mkdir()
    monkeypatch.chdir(tmp_path / cwd)
    # what the findings' trace_path shows: no `./`, no doubled or trailing separator
    expected = [f"{prefix}ses_a/trace.jsonl", f"{prefix}ses_b/trace.jsonl"]
    assert workdir_traces(Path(spelling)) == expected
    assert workdir_traces(spelling) == expected
    assert workdir_traces(tmp_path / "wd") == [f"{tmp_path}/wd/ses_{s}/trace.jsonl" for s in "ab"]
