"""The Python API and the documentation carried by the query files."""

from __future__ import annotations

import os
from pathlib import Path

import duckdb
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import mur_trace
from mur_trace import queries
from mur_trace.load import MATERIALISED, PARTS, VIEWS, _Opening, connect, open_in_background
from mur_trace.sessions import real_paths


def test_load_returns_relations(sample_workdir: Path) -> None:
    trace = mur_trace.load(workdir=sample_workdir)
    for relation in (trace.events, trace.tool_calls, trace.sessions, trace.redundant_calls()):
        assert isinstance(relation, duckdb.DuckDBPyRelation)
    assert trace.session_count() == 7
    assert trace.skipped == []
    assert trace.redundant_calls().to_arrow_table().num_rows == 19
    assert repr(trace) == "<Trace: 7 sessions, 0 skipped>"
    one = sorted(sample_workdir.glob("ses_*"))[0]
    assert repr(mur_trace.load([one])) == "<Trace: 1 session, 0 skipped>"


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


def test_a_sessions_show_counts_its_findings_as_its_metrics_do(sample_workdir: Path) -> None:
    # both follow the trace's policy as it is when read; the findings stayed of the policy
    # the show was made under, and contradicted the metrics once it changed
    trace = mur_trace.load(workdir=sample_workdir, policy="context")
    shown = trace.show(str(sorted(sample_workdir.glob("ses_*/trace.jsonl"))[0]))

    def counted() -> tuple[list[int], int]:
        turns = [turn for (turn,) in shown.redundant.select("turn").fetchall()]
        return turns, shown.metrics.select("redundant_calls").fetchall()[0][0]

    assert counted() == ([2, 5, 7], 3)  # src/lib.rs at turn 5, another spelling
    trace.policy = "reference"
    assert counted() == ([2, 7], 2)


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
    [
        *VIEWS.items(),
        *MATERIALISED.items(),
        *((name, query) for name, (_, query) in PARTS.items()),
        ("traces", "load/traces"),
    ],
)
def test_documented_columns_are_the_real_ones(
    sample_workdir: Path, relation: str, name: str
) -> None:
    trace = mur_trace.load(workdir=sample_workdir)
    documented = [c.name for c in queries.get(name).columns]
    assert trace.sql(f"SELECT * FROM {relation}").columns == documented


def _path_type(relation: duckdb.DuckDBPyRelation) -> str:
    return str(relation.types[relation.columns.index("trace_path")])


def test_every_relation_hands_its_paths_out_as_text(sample_workdir: Path) -> None:
    """Inside a load `trace_path` is an ENUM (load.enumerate_trace_paths); what the API
    hands out has it as VARCHAR, as the query files document it, and as Arrow and pandas
    strings, not dictionaries or categories."""
    trace = mur_trace.load(workdir=sample_workdir, policy="context")
    assert trace.con.table("events").types[0].id == "enum"
    shown = trace.show()
    handed = {
        "events": trace.events,
        "tool_calls": trace.tool_calls,
        "sessions": trace.sessions,
        "redundant_calls": trace.redundant_calls(),
        "reference": trace.redundant_calls("reference"),
        "session_metrics": trace.session_metrics(),
        "steps": trace.steps(),
        "loops": trace.loops(),
        "check": trace.check(max_redundant=0),
        **{f"show.{name}": getattr(shown, name) for name in ("metrics", "redundant", "tasks")},
        **{f"export.{name}": rel for name, rel in trace.export_tables().items()},
        **{name: trace.sql(f"SELECT * FROM {name}") for name in [*VIEWS, *MATERIALISED]},
    }
    with_paths = {name: rel for name, rel in handed.items() if "trace_path" in rel.columns}
    assert len(with_paths) > 30
    assert {name: _path_type(rel) for name, rel in with_paths.items()} == {
        name: "VARCHAR" for name in with_paths
    }
    assert str(trace.redundant_calls().to_arrow_table().schema.field("trace_path").type) == (
        "string"
    )
    pandas = pytest.importorskip("pandas")
    assert pandas.api.types.is_string_dtype(trace.events.df()["trace_path"])


def test_the_paths_of_a_load_sort_as_text(tmp_path: Path) -> None:
    """The ENUM's values are in the order VARCHAR sorts them, whatever order the traces
    were given in: ordering, min and max by `trace_path` inside the load are those of the
    text, byte by byte (upper case before lower, a space before a slash)."""
    sample = next((Path(__file__).parent.parent / "sample_traces" / "workdir").glob("ses_*"))
    names = ["b", "B", "a b", "a", "_"]
    for name in names:
        (tmp_path / name).mkdir()
        (tmp_path / name / "trace.jsonl").write_bytes((sample / "trace.jsonl").read_bytes())
    trace = mur_trace.load([tmp_path / name / "trace.jsonl" for name in names])
    in_order = [f"{tmp_path}/{name}/trace.jsonl" for name in ["B", "_", "a b", "a", "b"]]
    ordered = trace.con.sql(
        "SELECT trace_path::VARCHAR FROM (SELECT DISTINCT trace_path FROM events) "
        "ORDER BY trace_path"
    ).fetchall()
    assert [path for (path,) in ordered] == in_order
    assert trace.con.sql(
        "SELECT min(trace_path)::VARCHAR, max(trace_path)::VARCHAR FROM events"
    ).fetchall() == [(in_order[0], in_order[-1])]
    assert [p for (p,) in trace.sessions.order("trace_path").select("trace_path").fetchall()] == (
        in_order
    )


def test_a_table_holding_the_paths_type_does_not_stop_the_next_load(
    sample_workdir: Path,
) -> None:
    """A table of the caller's typed with a load's ENUM keeps it from being dropped; the
    next load on the connection makes another, and analyses as before."""
    from mur_trace.load import load_traces

    trace = mur_trace.load(workdir=sample_workdir)
    first = str(trace.con.table("events").types[0])
    ((name,),) = trace.con.sql(
        "SELECT type_name FROM duckdb_types() WHERE starts_with(type_name, 'trace_paths_')"
    ).fetchall()
    trace.con.execute(f"CREATE TABLE mine (trace_path {name})")
    paths = sorted(str(p) for p in sample_workdir.glob("ses_*/trace.jsonl"))
    assert load_traces(trace.con, paths[:2]) == []
    assert str(trace.con.table("mine").types[0]) == first
    assert trace.con.sql(
        "SELECT DISTINCT trace_path::VARCHAR FROM events ORDER BY 1"
    ).fetchall() == [(p,) for p in paths[:2]]


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


def test_the_report_gives_the_same_numbers_every_run(tmp_path: Path) -> None:
    """The report's means and standard deviations are taken over the values in order:
    aggregated in parallel, in whatever order DuckDB's threads met them, their last digits
    moved from run to run (`report -f json` printed them)."""
    from mur_trace.synth import synthesize

    workdir = synthesize(tmp_path / "synth", 60, seed=3)
    runs = set()
    for _ in range(6):
        report = mur_trace.summarise(workdir=workdir).report()
        runs.add((tuple(report.stats.fetchall()), tuple(report.task_stats.fetchall())))
    assert len(runs) == 1
    ((stats, _),) = runs
    assert {row[1] for row in stats} >= {"turns", "duration_ms", "tool_success_pct"}


# ── resolving many paths: sessions.real_paths ───────────────────────────────────────────

#: The names a random path is made of, in a tree that has every kind of link: a directory
#: link, a file link, a link to a link, a link loop, a dangling link.
PARTS = ["wd", "ses_a", "ses_b", "ses_c", "trace.jsonl", "wd_link", "up", "loop",
         "dangling", "missing", "..", ".", ""]  # fmt: skip


@pytest.fixture(scope="module")
def link_tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("links")
    (root / "wd" / "ses_a").mkdir(parents=True)
    (root / "wd" / "ses_a" / "trace.jsonl").write_text("{}\n")
    (root / "wd" / "ses_b").symlink_to("ses_a")
    (root / "wd" / "ses_c").mkdir()
    (root / "wd" / "ses_c" / "trace.jsonl").symlink_to("../ses_b/trace.jsonl")
    (root / "wd_link").symlink_to(root / "wd")
    (root / "loop").symlink_to("loop")
    (root / "dangling").symlink_to("nowhere")
    (root / "up").symlink_to("wd/..")  # a link to a directory above its target's
    return root


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    paths=st.lists(
        st.tuples(st.booleans(), st.lists(st.sampled_from(PARTS), min_size=1, max_size=6)),
        min_size=1,
        max_size=8,
    )
)
def test_real_paths_is_realpath(
    paths: list[tuple[bool, list[str]]], link_tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same as `os.path.realpath`, path for path, whatever the links, `..`, `.` and
    doubled separators in them, relative or absolute, existing or not; the directories
    shared between them resolved once. A path through a link loop names no file and may
    be spelled otherwise (`realpath` gives up on it where it meets the loop): it is only
    resolved without an error."""
    monkeypatch.chdir(link_tree / "wd")
    given_paths = [
        (f"{link_tree}/" if absolute else "") + "/".join(parts) for absolute, parts in paths
    ]
    found = real_paths(given_paths)
    assert len(found) == len(given_paths)
    for path, real in zip(given_paths, found, strict=True):
        if "loop" not in path.split("/"):
            assert real == os.path.realpath(path), path


def test_real_paths_of_a_deep_path(tmp_path: Path) -> None:
    """A path of thousands of components (one is resolved a component at a time)."""
    deep = str(tmp_path) + "/a/.." * 2000 + "/x"
    assert real_paths([deep, deep]) == [os.path.realpath(deep)] * 2


def test_real_paths_dedupe_a_workdir(link_tree: Path) -> None:
    """A session directory linked to another, a trace linked to another's: one trace."""
    found = mur_trace.sessions.discover([link_tree / "wd", link_tree / "wd_link"])
    assert found == [str(link_tree / "wd" / "ses_a" / "trace.jsonl")]


# ── the database opened while the command line imports: load.open_in_background ─────────


@pytest.fixture
def opening(monkeypatch: pytest.MonkeyPatch) -> _Opening:
    """A database being opened in the background, as the command line starts one; the
    process's own state (none started yet) is given back afterwards."""
    monkeypatch.setattr(_Opening, "pending", None)
    monkeypatch.setattr(_Opening, "started", False)
    open_in_background()
    started = _Opening.pending
    assert started is not None
    return started


def test_show_and_steps_relations_combine_and_repeat(sample_workdir: Path) -> None:
    """Each of show's sections is one statement with its values bound under names of its
    own: two combine (a union, a join), and asking again gives the same rows."""
    trace = mur_trace.load(workdir=sample_workdir)
    first = trace.steps().fetchall()
    assert first and trace.steps().fetchall() == first  # no result left unfinished
    shown = trace.show()
    turns = shown.tool_turns.union(shown.skill_turns).fetchall()
    assert len(turns) == len(shown.tool_turns.fetchall()) + len(shown.skill_turns.fetchall())
    joined = shown.tool_turns.join(shown.metrics.set_alias("m"), "trace_path").fetchall()
    assert len(joined) == len(shown.tool_turns.fetchall()) > 0


def test_connect_takes_the_database_opened_in_the_background(opening: _Opening) -> None:
    open_in_background()  # once: the second call starts nothing
    assert _Opening.pending is opening
    con = connect()
    assert con is opening.con  # taken, and set up as every connection is
    assert _Opening.pending is None
    assert con.execute("SELECT current_setting('allocator_background_threads')").fetchone() == (
        True,
    )
    other = connect()  # the next one is its own
    assert other is not con
    con.execute("CREATE TABLE t AS SELECT 1 AS x")
    assert other.execute(
        "SELECT count(*) FROM duckdb_tables() WHERE table_name = 't'"
    ).fetchone() == (0,)


def test_a_catalog_closes_the_database_opened_in_the_background(
    opening: _Opening, tmp_path: Path
) -> None:
    con = connect(str(tmp_path / "catalog.duckdb"))
    assert _Opening.pending is None
    with pytest.raises(duckdb.ConnectionException):
        opening.con.execute("SELECT 1")
    assert con.execute("SELECT 1").fetchone() == (1,)


def test_sums_of_unknown_sizes_are_unknown_not_the_largest_integer(tmp_path: Path) -> None:
    """Line 3 reads a.txt again (line 2 read it), and neither declares `output_bytes`:
    the waste is 0 bytes, 0 tokens. A sum of no sizes was capped with `least`, which
    passes over the NULL and gave 9,223,372,036,854,775,807 bytes."""
    ses = "ses_01a21715468070018000000000001eef"
    lines = [
        f'{{"event_type":"session_start","session_id":"{ses}","timestamp":1,"model":"m"}}',
        *(
            f'{{"event_type":"tool_call","session_id":"{ses}","timestamp":{n},"turn":{n},'
            '"tool_name":"read","input":{"path":"a.txt"},"status":"ok","state_effect":"read"}'
            for n in (2, 3)
        ),
        f'{{"event_type":"session_end","session_id":"{ses}","timestamp":4,"total_tool_calls":2}}',
    ]
    path = tmp_path / "trace.jsonl"
    path.write_text("\n".join(lines) + "\n")
    trace = mur_trace.load([path])
    assert trace.redundant_calls().select("line, output_bytes").fetchall() == [(3, None)]
    metrics = trace.session_metrics().select(
        "redundant_calls, redundant_bytes, redundant_tokens, redundant_context_tokens"
    )
    assert metrics.fetchall() == [(1, 0, 0, 0)]
    plotted = trace.sql(queries.get("plots/waste").sql).select("output_bytes").fetchall()
    assert plotted == [(None,), (None,)]  # by tool, by resource: unknown
    # its session_end states no duration and no turns: unknown, not `0ms` and `None turns`
    from typer.testing import CliRunner

    from mur_trace.cli import app

    report = CliRunner().invoke(app, ["report", str(path)])
    assert report.exit_code == 0, report.output
    assert "Session ses_01a21715...  —  — turns\n" in report.stdout


def _murmur(directory: Path, session: str, calls: list[dict], *, after: int = 0) -> Path:
    """A Murmur trace at directory/session/trace.jsonl: a session_start, one tool_call a
    line from `calls` (each `{"tool_name": ..., "input": ..., ...}`, turn by turn; one with
    an `event_type` is that event, as it is), then `after` inferences; lines are numbered
    from 1."""
    import json

    lines = [{"event_type": "session_start", "session_id": session, "timestamp": 1, "model": "m"}]
    for turn, call in enumerate(calls):
        kind = {} if "event_type" in call else {"event_type": "tool_call", "status": "ok"}
        lines.append({**kind, "session_id": session, "timestamp": 2 + turn, "turn": turn, **call})
    for n in range(after):
        lines.append({"event_type": "inference", "session_id": session,
                      "timestamp": 100 + n, "turn": len(calls) + n})  # fmt: skip
    path = directory / session / "trace.jsonl"
    path.parent.mkdir(parents=True)
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def _read(path: str, tool: str = "editor", **more) -> dict:
    return {"tool_name": tool, "input": {"path": path}, "state_effect": "read", **more}


def test_the_rate_plot_counts_every_call_and_rates_no_session_without_calls(
    tmp_path: Path,
) -> None:
    """plots/rate: `tool_calls` counts the failed calls too, `rate` is redundant calls per
    tool call (1 of 3 here: a.txt read twice, then a failed read of b.txt), and a session
    without calls has no rate (not NaN), so the plot leaves it out. Two sessions created in
    the same millisecond (their ids' first 12 digits) come in session id order."""
    pytest.importorskip("matplotlib")
    from mur_trace import plot

    ms = 1795737600000  # 2026-11-27 00:00:00 UTC
    busy, idle = (f"ses_{ms:012x}7000800000000000000{n}" for n in (1, 2))
    calls = [_read("a.txt"), _read("a.txt"), _read("b.txt", status="error")]
    _murmur(tmp_path, busy, calls)
    _murmur(tmp_path, idle, [])
    with mur_trace.load(workdir=tmp_path) as trace:
        rows = trace.sql(queries.get("plots/rate").sql).fetchall()
        assert [(s, str(c), n, r) for s, c, n, r, _ in rows] == [
            (busy, "2026-11-27 00:00:00", 3, 1),
            (idle, "2026-11-27 00:00:00", 0, 0),
        ]
        assert rows[0][4] == pytest.approx(1 / 3)
        assert rows[1][4] is None
        (points, *_) = plot.rate(trace).axes[0].collections
        assert [y for _, y in points.get_offsets()] == [pytest.approx(1 / 3)]
        assert list(points.get_sizes()) == [pytest.approx(20 + 3 * 3**0.5)]  # 3 calls


def test_the_waste_plot_sums_each_tool_and_each_resource_apart(tmp_path: Path) -> None:
    """plots/waste over one session (reference policy): editor reads a.txt twice (100 bytes
    each), reads b.txt (40), viewer reads b.txt without saying its size, editor reads b.txt
    again (40); then two inferences, which re-send every result. Three findings: line 3
    (editor, a.txt, 100 bytes), line 5 (viewer, b.txt, unknown), line 6 (editor, b.txt,
    40). With no token counts in the trace, a result takes 4 bytes a token (100 -> 25,
    40 -> 10, unknown -> 0) and is re-sent at each of the two later inferences."""
    pytest.importorskip("matplotlib")
    from mur_trace import plot

    calls = [
        _read("a.txt", output_bytes=100),
        _read("a.txt", output_bytes=100),
        _read("b.txt", output_bytes=40),
        _read("b.txt", tool="viewer"),
        _read("b.txt", output_bytes=40),
    ]
    _murmur(tmp_path, "ses_01a21715468070018000000000001eef", calls, after=2)
    with mur_trace.load(workdir=tmp_path) as trace:
        rows = trace.sql(queries.get("plots/waste").sql + " ORDER BY ALL").fetchall()
        # dimension, name, calls, output_bytes, tokens, context_tokens
        assert rows == [
            ("resource", "a.txt", 1, 100, 25, 50),
            ("resource", "b.txt", 2, 40, 10, 20),
            ("tool", "editor", 2, 140, 35, 70),
            ("tool", "viewer", 1, None, 0, 0),
        ]
        by_tool, by_resource = plot.waste(trace, measure="context_tokens").axes
        for axes, bars in ((by_tool, {"editor": 70, "viewer": 0}),
                           (by_resource, {"b.txt": 20, "a.txt": 50})):  # fmt: skip
            labels = [label.get_text() for label in axes.get_yticklabels()]
            assert dict(zip(labels, [p.get_width() for p in axes.patches], strict=True)) == bars


def test_the_waste_plot_caps_a_sum_past_the_largest_bigint(tmp_path: Path) -> None:
    """1,025 repeated reads of 2^53 - 1 bytes each (the most a count may say) waste more
    bytes than a BIGINT holds: the sums are the largest BIGINT, as the column says."""
    most = 2**53 - 1
    calls = [_read("a.txt", output_bytes=most) for _ in range(1026)]
    _murmur(tmp_path, "ses_01a21715468070018000000000001eef", calls)
    with mur_trace.load(workdir=tmp_path) as trace:
        rows = trace.sql(queries.get("plots/waste").sql + " ORDER BY ALL").fetchall()
        tokens = 1025 * -(-most // 4)  # 4 bytes a token, rounded up
        assert rows == [
            ("resource", "a.txt", 1025, 2**63 - 1, tokens, 0),
            ("tool", "editor", 1025, 2**63 - 1, tokens, 0),
        ]


def test_the_timeline_plot_draws_one_trace_its_effects_and_what_each_read_repeats(
    tmp_path: Path,
) -> None:
    """plots/timeline, reference policy: a read, a write, a read (needed: the write came
    between), a read again (redundant: it repeats line 4), a call with no declared effect
    and one with an effect of no known kind (both `unknown`), a call with no resource (not
    drawn). Another trace, whose line 3 repeats its line 2, is not drawn, nor marks this
    trace's line 3."""
    pytest.importorskip("matplotlib")
    from mur_trace import plot

    calls = [
        _read("a.txt"),
        {"tool_name": "editor", "input": {"path": "a.txt"}, "state_effect": "mutate"},
        _read("a.txt"),
        _read("a.txt"),
        {"tool_name": "notes", "input": {"path": "n.md"}},
        {"tool_name": "notes", "input": {"path": "n.md"}, "state_effect": "observe"},
        {"tool_name": "think", "input": {}, "state_effect": "read"},
    ]
    path = _murmur(tmp_path, "ses_01a21715468070018000000000001eef", calls)
    _murmur(tmp_path, "ses_01a2173551a070028000000000003dde", [_read("x.txt"), _read("x.txt")])
    with mur_trace.load(workdir=tmp_path) as trace:
        rows = trace.sql(queries.get("plots/timeline").sql, trace_path=str(path)).fetchall()
        # line, turn, tool_name, resource, effect, status, prior_line
        assert rows == [
            (2, 0, "editor", "a.txt", "read", "ok", None),
            (3, 1, "editor", "a.txt", "mutate", "ok", None),
            (4, 2, "editor", "a.txt", "read", "ok", None),
            (5, 3, "editor", "a.txt", "read", "ok", 4),
            (6, 4, "notes", "n.md", "unknown", "ok", None),
            (7, 5, "notes", "n.md", "unknown", "ok", None),
        ]
        (axes,) = plot.timeline(trace, path).axes
        assert [label.get_text() for label in axes.get_yticklabels()] == ["a.txt", "n.md"]


def test_the_timeline_plot_draws_a_context_finding_on_the_resource_it_reads(
    tmp_path: Path,
) -> None:
    """With the context policy, `./src/a.rs` after `src/a.rs` and `cat src/a.rs` after it
    re-read src/a.rs: the timeline draws both on the row of that resource (the identity
    the finding names), the shell call too although its call names no resource (its shell
    event, line 5, is no call), each linked to the latest read before it."""
    whole = {"tool_name": "editor", "state_effect": "read"}  # reads a file whole
    calls = [
        {**whole, "input": {"operation": "read_file", "path": "src/a.rs"}},
        {**whole, "input": {"operation": "read_file", "path": "./src/a.rs"}},
        {"tool_name": "bash", "input": {"command": "cat src/a.rs"}},
        {
            "event_type": "shell",
            "turn": 2,
            "binary": "/usr/bin/bash",
            "command": "cat src/a.rs",
            "exit_code": 0,
            "stdout_bytes": 10,
            "stderr_bytes": 0,
        },
    ]
    path = _murmur(tmp_path, "ses_01a21715468070018000000000001eef", calls)
    with mur_trace.load(workdir=tmp_path, policy="context") as trace:
        rows = trace.sql(queries.get("plots/timeline").sql, trace_path=str(path)).fetchall()
        assert [(line, resource, prior) for line, _, _, resource, _, _, prior in rows] == [
            (2, "src/a.rs", None),
            (3, "src/a.rs", 2),
            (4, "src/a.rs", 3),
        ]


def _refused(call, code: str = "E-CLI-001") -> str:
    """The message of the coded error `call()` raises."""
    with pytest.raises(mur_trace.MurTraceError) as caught:
        call()
    assert caught.value.code == code
    return caught.value.message


def test_a_summary_keeps_its_policy_and_says_what_it_does_not_hold(
    sample_workdir: Path, tmp_path: Path
) -> None:
    """A Trace of `summarise` holds the metrics of its policy, rules and effects: changing
    them is refused (before, its metrics kept their numbers, 19 redundant calls shown as the
    context policy's 9); over trace files it holds no events, and what needs them says so
    (before, DuckDB's `Table with name events does not exist`)."""
    summary = mur_trace.summarise(workdir=sample_workdir)
    assert "summarise(policy='context')" in _refused(lambda: setattr(summary, "policy", "context"))
    summary.policy = "reference"  # the one it has
    _refused(lambda: summary.set_rules({"same_size": False}))
    _refused(lambda: summary.set_effects([]))
    for name, call in {
        "events": lambda: summary.events,
        "tool_calls": lambda: summary.tool_calls,
        "redundant_calls()": summary.redundant_calls,
        "show()": summary.show,
        "steps()": summary.steps,
        "loops()": summary.loops,
        "export_tables()": summary.export_tables,
    }.items():
        assert _refused(call).startswith(f"{name}: a Trace of summarise() over trace files")
    # what it holds it serves, with the numbers of its policy
    assert summary.session_metrics().sum("redundant_calls").fetchall() == [(19,)]
    assert len(summary.report().sessions.fetchall()) == 7


def test_summarise_says_a_bad_effects_file_even_when_nothing_needs_to_be_readable(
    sample_workdir: Path, tmp_path: Path
) -> None:
    # with require_readable=False, the error was taken for traces that cannot be read and
    # the sessions summarised without the effects
    bad = tmp_path / "effects.toml"
    bad.write_text("[editor\n")
    for effects, code in ((bad, "E-CFG-002"), (tmp_path / "none.toml", "E-IO-001")):
        call = lambda effects=effects: mur_trace.summarise(  # noqa: E731
            workdir=sample_workdir, policy="context", effects=effects, require_readable=False
        )
        _refused(call, code)


def test_rules_and_effects_of_the_wrong_shape_are_refused_before_anything_changes(
    sample_workdir: Path,
) -> None:
    # a list of rule names was an AttributeError; an effect row DuckDB refused left the rows
    # before it in place, and the findings computed without them
    with pytest.raises(TypeError, match="a mapping of rule names"):
        mur_trace.load(workdir=sample_workdir, rules=["shell_inference"])
    with mur_trace.load(workdir=sample_workdir, policy="context") as trace:
        found = trace.redundant_calls().count("*")
        before = found.fetchall()
        for effects, error in (
            ([("editor", None, None, "read"), ("git", None, None, "nope")], ValueError),
            ([("editor", "operation")], TypeError),
            ("effects.toml", TypeError),
        ):
            with pytest.raises(error):
                trace.set_effects(effects)
            assert trace.con.execute("SELECT count(*) FROM declared_effects").fetchall() == [(0,)]
            assert found.fetchall() == before


def test_steps_names_a_session_as_show_does(sample_workdir: Path) -> None:
    # an absolute path to a session loaded by a relative one, or a Path, gave no rows (or
    # DuckDB's `Unable to transform python value of type PosixPath`); one not loaded, none
    first = sorted(sample_workdir.glob("ses_*"))[0] / "trace.jsonl"
    relative = os.path.relpath(first)
    with mur_trace.load([relative]) as trace:
        for spelled in (relative, os.path.abspath(relative), Path(relative), None):
            assert len(trace.steps(spelled).fetchall()) == 9  # its nine turns
        assert _refused(lambda: trace.steps("/nowhere/trace.jsonl"), "E-TRC-002") == (
            "/nowhere/trace.jsonl: not among the loaded traces"
        )


def test_a_closed_trace_says_so(sample_workdir: Path) -> None:
    # its repr, which a notebook shows, was DuckDB's `Connection already closed`
    trace = mur_trace.load(workdir=sample_workdir)
    trace.close()
    assert repr(trace) == "<Trace: closed, 0 skipped>"
    assert _refused(trace.redundant_calls) == "redundant_calls(): this Trace is closed"
    assert _refused(lambda: setattr(trace, "policy", "context")) == "policy: this Trace is closed"
    assert _refused(lambda: trace.sql("SELECT 1")) == "sql(): this Trace is closed"


def test_plots_refuse_what_they_cannot_draw_and_name_sessions_as_show_does(
    sample_workdir: Path,
) -> None:
    from mur_trace import plot

    first = sorted(sample_workdir.glob("ses_*"))[0] / "trace.jsonl"
    with mur_trace.load(workdir=sample_workdir) as trace:
        # was a KeyError
        with pytest.raises(mur_trace.MurTraceError, match="E-CLI-001.*unknown measure 'bogus'"):
            plot.waste(trace, measure="bogus")
        _refused(lambda: plot.waste(trace, top=-1))
        _refused(lambda: plot.timeline(trace, max_resources="a"))
        # a path not loaded drew an empty figure; one spelled otherwise, or a Path, too
        _refused(lambda: plot.timeline(trace, "/nowhere/trace.jsonl"), "E-TRC-002")
        for spelled in (Path(first), os.path.abspath(first)):
            drawn = plot.timeline(trace, spelled)
            assert drawn.axes[0].get_yticklabels(), spelled  # a row a resource


def test_sql_finds_the_relations_a_query_names_however_written(sample_workdir: Path) -> None:
    # each was `Table with name ... does not exist` on a Trace that had not yet used it
    for query, count in (
        ('SELECT count(*) FROM "redundant_calls"', 19),
        ("SELECT count(*) FROM /* the findings */ redundant_calls", 19),
        ("SELECT count(*) FROM temp.redundant_calls", 19),
        ("SELECT count(*) FROM tasks, redundant_calls WHERE tasks.line > $n", 2 * 19),
    ):
        with mur_trace.load(workdir=sample_workdir) as trace:
            params = {"n": 0} if "$n" in query else {}
            assert trace.sql(query, **params).fetchall() == [(count,)], query


def test_what_a_batch_collects_and_its_size_are_checked(
    sample_workdir: Path, tmp_path: Path
) -> None:
    # a collect giving no dict was an AttributeError; a name that is no identifier, or a
    # table of the analysis, DuckDB's parser or catalog error; sizes of -1, 1.5 or True
    # were taken as they were
    def gives(kept):
        return lambda trace: kept

    bad = {
        "no dict": (gives([]), TypeError),
        "no relation": (gives({"x": 1}), TypeError),
        "no identifier": (lambda t: {"x y": t.sql("SELECT 1")}, ValueError),
        "a table of it": (lambda t: {"events": t.sql("SELECT 1")}, ValueError),
        # SQL's names know no case: `Events` is that table (DuckDB's catalog error before)
        "a table of it, named otherwise": (lambda t: {"Events": t.sql("SELECT 1")}, ValueError),
    }
    db = tmp_path / "c.duckdb"
    mur_trace.catalog.ingest(db, workdir=sample_workdir)
    for collect, error in bad.values():
        with pytest.raises(error):
            mur_trace.run_in_batches(None, collect, workdir=sample_workdir)
        with pytest.raises(error):
            mur_trace.run_over_catalog(None, db, collect)
    for size in (-1, 1.5, True, "x"):
        _refused(
            lambda size=size: mur_trace.find_redundant(workdir=sample_workdir, batch_bytes=size)
        )
        _refused(
            lambda size=size: mur_trace.run_over_catalog(None, db, gives({}), batch_events=size)
        )
    kept = mur_trace.run_in_batches(
        None, lambda t: {"n": t.sql("SELECT count(*) AS n FROM events")}, workdir=sample_workdir
    )
    assert kept.con.sql("SELECT sum(n) FROM n").fetchall() == [(134,)]


def test_the_empty_policy_is_no_policy(sample_workdir: Path) -> None:
    # it was taken for the trace's own
    with mur_trace.load(workdir=sample_workdir) as trace, pytest.raises(ValueError):
        trace.redundant_calls("")


def test_the_empty_name_is_no_catalog() -> None:
    # it was `cannot open catalog .: ... is a directory` (E-IO-003), the working directory
    for call in (
        lambda: mur_trace.load(db=""),
        lambda: mur_trace.find_redundant(db=""),
        lambda: mur_trace.summarise(db="", policy="context"),
    ):
        assert _refused(call) == "the empty name is no catalog"


def test_a_catalog_run_needs_a_catalog_and_readable_is_a_boolean(sample_workdir: Path) -> None:
    # run_over_catalog without one read ./workdir (`workdir not found`); "no" counted as true
    with pytest.raises(TypeError, match="reads a catalog"):
        mur_trace.run_over_catalog(None, None, lambda trace: {})
    with pytest.raises(TypeError, match="True or False"):
        mur_trace.load(workdir=sample_workdir, require_readable="no")


# ── what a notebook user met (an audit of the Python API, 2026-12-05) ───────────────


def _tool_calls_in(workdir: Path) -> int:
    """The tool calls the sample traces hold, counted from their lines (not by mur-trace)."""
    import json

    return sum(
        json.loads(line).get("event_type") == "tool_call"
        for path in workdir.glob("ses_*/trace.jsonl")
        for line in path.read_text().splitlines()
        if line.strip()
    )


def test_an_empty_list_of_paths_names_no_session(
    sample_workdir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # `[]` (a filter that kept nothing) analysed every session of ./workdir, or of the
    # catalog; None is every session
    db = tmp_path / "c.duckdb"
    mur_trace.catalog.ingest(db, workdir=sample_workdir)
    monkeypatch.chdir(sample_workdir.parent)  # where ./workdir is the sample workdir
    for call in (
        lambda: mur_trace.load([]),
        lambda: mur_trace.find_redundant([]),
        lambda: mur_trace.find_loops([]),
        lambda: mur_trace.summarise([]),
        lambda: mur_trace.run_in_batches((), lambda t: {}),
        lambda: mur_trace.load([], db=db),
        lambda: mur_trace.find_redundant(iter([]), db=db),
        lambda: mur_trace.catalog.ingest(tmp_path / "other.duckdb", []),
    ):
        assert _refused(call, "E-TRC-002").startswith("no traces given: paths is empty")
    assert not (tmp_path / "other.duckdb").exists()
    assert mur_trace.load(None).session_count() == 7


def test_arguments_of_the_wrong_kind_are_usage_errors_before_any_trace_is_read(
    sample_workdir: Path, tmp_path: Path
) -> None:
    # they were TypeErrors of os.fspath or pathlib, or a ValueError checked after reading
    # the traces, so that a trace's error hid the typo
    bad = tmp_path / "bad.jsonl"
    bad.write_text("not json\n")
    for call, words in (
        (lambda: mur_trace.load(5), "paths are a path or an iterable of paths, not int"),
        (lambda: mur_trace.load([5]), "paths are str or os.PathLike, not 5"),
        (lambda: mur_trace.load([None]), "paths are str or os.PathLike, not None"),
        (lambda: mur_trace.load(b"workdir"), "paths are a path or an iterable of paths"),
        (lambda: mur_trace.load(workdir=3), "workdir is a path (str or os.PathLike), not 3"),
        (lambda: mur_trace.load(db=3), "db is a path (str or os.PathLike), not 3"),
        (lambda: mur_trace.find_loops(workdir=3), "workdir is a path"),
        (lambda: mur_trace.load(effects=[("editor", None, None, "read")]), "effects is a path"),
        (lambda: mur_trace.load([bad], policy="contxt"), "unknown policy 'contxt'"),
        (lambda: mur_trace.find_redundant([bad], policy="contxt"), "unknown policy 'contxt'"),
        (lambda: mur_trace.find_redundant([bad], rules={"nope": True}), "unknown rule 'nope'"),
    ):
        with pytest.raises(mur_trace.MurTraceError) as caught:
            call()
        assert caught.value.code == "E-CLI-001"
        assert caught.value.message.startswith(words)
        # what Python's own checks raise, so code that caught those still does
        assert isinstance(caught.value, TypeError) and isinstance(caught.value, ValueError)
    # the counts and rates the API checks as the command line does: E-CLI-001 before, now
    # ValueErrors too
    with mur_trace.load(workdir=sample_workdir) as trace:
        for call in (
            lambda: trace.loops(window=-1),
            lambda: trace.check(max_rate=2),
            lambda: mur_trace.find_loops(window="a"),
        ):
            with pytest.raises(ValueError) as caught:
                call()
            assert isinstance(caught.value, mur_trace.MurTraceError)
            assert caught.value.code == "E-CLI-001"
    # with a catalog, which reads neither, the format and the batch size were passed over
    db = tmp_path / "c.duckdb"
    mur_trace.catalog.ingest(db, workdir=sample_workdir)
    assert _refused(lambda: mur_trace.load(db=db, format_in="bogus"), "E-TRC-001").startswith(
        "unknown format 'bogus'"
    )
    for call in (
        lambda: mur_trace.find_redundant(db=db, batch_bytes=-5),
        lambda: mur_trace.summarise(db=db, batch_bytes=-5),
        lambda: mur_trace.find_loops(db=db, batch_bytes=-5),
    ):
        assert _refused(call).startswith("batch_bytes must be a whole number")


def test_a_relation_kept_across_a_policy_change_reads_the_new_policy(
    sample_workdir: Path,
) -> None:
    # its columns were the first policy's, listed when it was made: DuckDB's binder error
    # (`Referenced column "rule" not found`) after context -> reference, and the context
    # columns left out after reference -> context
    first = str(sorted(sample_workdir.glob("ses_*/trace.jsonl"))[0])
    trace = mur_trace.load(workdir=sample_workdir, policy="context")
    kept = trace.sql("SELECT * FROM redundant_calls WHERE trace_path = $p ORDER BY line", p=first)
    exported = trace.export_tables()["findings"]

    def turns() -> list[int]:
        return [row[kept.columns.index("turn")] for row in kept.fetchall()]

    assert turns() == [2, 5, 7]  # as test_a_sessions_show_counts_its_findings_as_its_metrics_do
    assert "rule" in exported.columns
    trace.policy = "reference"
    assert turns() == [2, 7]
    assert "rule" not in exported.columns and exported.fetchall()
    trace.policy = "context"
    assert turns() == [2, 5, 7]
    assert "rule" in exported.columns


def test_views_are_named_in_any_case(sample_workdir: Path) -> None:
    # `FROM TOOL_CALLS` was an error until `tool_calls` had been used
    calls = _tool_calls_in(sample_workdir)
    with mur_trace.load(workdir=sample_workdir) as trace:
        assert trace.sql("SELECT count(*) FROM TOOL_CALLS").fetchall() == [(calls,)]
    with mur_trace.load(workdir=sample_workdir) as trace:
        assert trace.sql('SELECT count(*) FROM "Tool_Calls"').fetchall() == [(calls,)]


def test_a_closed_trace_in_a_notebook(sample_workdir: Path) -> None:
    # Jupyter asks for the HTML first: it was a traceback; the rules were DuckDB's
    # `Connection has already been closed`; the messages named sql() or session_metrics()
    trace = mur_trace.load(workdir=sample_workdir)
    trace.close()
    assert trace._repr_html_() == "<p><b>mur-trace</b>: &lt;Trace: closed, 0 skipped&gt;</p>"
    for name, call in {
        "rules": lambda: trace.rules,
        "session_count()": trace.session_count,
        "check()": trace.check,
        "report()": trace.report,
    }.items():
        assert _refused(call) == f"{name}: this Trace is closed"


def test_a_summary_over_files_refuses_what_reads_events(sample_workdir: Path) -> None:
    # plot.waste and a query of redundant_calls were DuckDB's `Table with name events does
    # not exist`
    pytest.importorskip("matplotlib")
    from mur_trace import plot

    summary = mur_trace.summarise(workdir=sample_workdir)
    for name, call in {
        "plot.waste()": lambda: plot.waste(summary),
        "sql()": lambda: summary.sql("SELECT count(*) FROM Redundant_Calls"),
    }.items():
        assert _refused(call).startswith(f"{name}: a Trace of summarise() over trace files")
    # what it holds still serves
    assert summary.sql("SELECT count(*) FROM session_metrics").fetchall() == [(7,)]


def test_one_session_is_named_by_path_directory_or_id_and_the_first_analysed_by_default(
    sample_workdir: Path, tmp_path: Path
) -> None:
    # with no argument, a first trace that could not be read stopped show(), steps() and
    # plot.timeline(); a session directory or id was `not among the loaded traces`
    # (E-TRC-001, the code of a malformed trace)
    import shutil

    for session in sorted(sample_workdir.glob("ses_*")):
        shutil.copytree(session, tmp_path / session.name)
    sessions = sorted(tmp_path.glob("ses_*"))
    broken = sessions[0] / "trace.jsonl"
    lines = broken.read_text().splitlines(keepends=True)
    broken.write_text("".join([*lines[:2], "{broken\n", *lines[3:]]))
    second = sessions[1]
    trace = mur_trace.load(workdir=tmp_path)
    assert [s.trace_path for s in trace.skipped] == [str(broken)]
    assert trace.show().metrics.select("session_id").fetchall() == [(second.name,)]
    by_path = trace.steps(second / "trace.jsonl").fetchall()
    assert by_path and trace.steps().fetchall() == by_path
    assert trace.steps(second).fetchall() == by_path  # its directory
    assert trace.steps(second.name).fetchall() == by_path  # its session id
    assert _refused(lambda: trace.show(sessions[0]), "E-TRC-001").endswith(":3: not valid JSON")
    assert _refused(lambda: trace.steps("ses_nope"), "E-TRC-002") == (
        "ses_nope: not among the loaded traces"
    )


def test_loops_take_the_rules_that_decide_what_changed(sample_workdir: Path) -> None:
    # Trace.loops() counted with the Trace's rules; the command line and find_loops could
    # not be given any, so the notebook's numbers could not be had there
    import subprocess
    import sys

    def cli(*args: str) -> int:
        out = subprocess.run(
            [sys.executable, "-m", "mur_trace", "loops", "--workdir", str(sample_workdir),
             "-f", "jsonl", *args],
            capture_output=True, text=True, check=True,
        ).stdout  # fmt: skip
        return len(out.splitlines())

    counts = []
    for rules, args in (
        (None, ()),
        ({"context_reset": False}, ("--no-rule", "context_reset")),
        ({"shell_inference": False}, ("--no-rule", "shell_inference")),
    ):
        loaded = len(mur_trace.load(workdir=sample_workdir, rules=rules).loops().fetchall())
        found = mur_trace.find_loops(workdir=sample_workdir, rules=rules)
        assert len(found.relation.fetchall()) == loaded == cli(*args)
        counts.append(loaded)
    # a reset between two identical calls is a change only while context_reset is on
    assert counts[1] > counts[0]


def test_every_public_name_has_a_docstring() -> None:
    # the README says so; mur_trace.synth's functions and methods had none
    import ast

    missing = []
    for module in sorted(Path(mur_trace.__file__).parent.glob("*.py")):

        def walk(node: ast.AST, prefix: str, module: Path = module) -> None:
            for child in ast.iter_child_nodes(node):
                if not isinstance(child, ast.FunctionDef | ast.ClassDef):
                    continue
                setter = any(
                    isinstance(d, ast.Attribute) and d.attr == "setter"
                    for d in getattr(child, "decorator_list", [])
                )
                if child.name.startswith("_") or setter:
                    continue
                if ast.get_docstring(child) is None:
                    missing.append(f"{module.name}: {prefix}{child.name}")
                if isinstance(child, ast.ClassDef):
                    walk(child, f"{prefix}{child.name}.")

        walk(ast.parse(module.read_text()), "")
    assert missing == []


def test_a_summary_serves_queries_that_only_name_its_relations_otherwise(
    sample_workdir: Path,
) -> None:
    # a column, an alias, a comment or a string named like a relation that reads events
    # was refused (`sum(redundant_calls)` of session_metrics, `AS tool_calls`)
    summary = mur_trace.summarise(workdir=sample_workdir)
    assert summary.sql("SELECT sum(redundant_calls) FROM session_metrics").fetchall() == [(19,)]
    assert summary.sql(
        "SELECT count(*) AS tool_calls FROM session_metrics /* FROM events */ "
        "WHERE session_id <> 'FROM events'"
    ).fetchall() == [(7,)]
    # and a quoted name is a reading: it was DuckDB's `Table with name events does not exist`
    assert _refused(lambda: summary.sql('SELECT count(*) FROM "events"')).startswith(
        "sql(): a Trace of summarise() over trace files"
    )


def test_two_columns_of_the_paths_type_keep_their_rows(sample_workdir: Path) -> None:
    # `* REPLACE` of two columns of one name was DuckDB's `Duplicate entry "trace_path"`
    first = str(sorted(sample_workdir.glob("ses_*/trace.jsonl"))[0])
    with mur_trace.load([first]) as trace:
        rows = trace.sql(
            "SELECT e.trace_path, t.trace_path FROM events AS e JOIN traces AS t "
            "USING (trace_path) LIMIT 1"
        )
        assert rows.fetchall() == [(first, first)]
        assert [t.id for t in rows.types] == ["varchar", "varchar"]


def test_a_session_id_two_loaded_traces_share_is_ambiguous(
    sample_workdir: Path, tmp_path: Path
) -> None:
    import shutil

    shutil.copytree(sample_workdir, tmp_path / "a")
    shutil.copytree(sample_workdir, tmp_path / "b")
    session = "ses_01a21715468070018000000000001eef"
    with mur_trace.load([tmp_path / "a", tmp_path / "b"]) as trace:
        with pytest.raises(mur_trace.MurTraceError) as caught:
            trace.show(session)
        assert caught.value.code == "E-TRC-002"
        assert caught.value.message.startswith(f"ambiguous: '{session}' is the session of 2")
        assert caught.value.more == tuple(
            f"  {tmp_path / d / session / 'trace.jsonl'}" for d in ("a", "b")
        )
        for call in (lambda: trace.steps(5), lambda: trace.show(5), lambda: trace.diff(5, 6)):
            assert _refused(call) == "a session is a path (str or os.PathLike), not 5"


def test_the_remaining_entry_points_check_their_arguments(
    sample_workdir: Path, tmp_path: Path
) -> None:
    # raw TypeErrors, or "no" taken for true
    for call, said in (
        (lambda: mur_trace.catalog.ingest(3), "db is a path (str or os.PathLike), not 3"),
        (
            lambda: mur_trace.catalog.ingest(tmp_path / "c.duckdb", workdir=3),
            "workdir is a path (str or os.PathLike), not 3",
        ),
        (
            lambda: mur_trace.summarise(workdir=sample_workdir, require_readable="no"),
            "require_readable is True or False, not 'no'",
        ),
    ):
        assert _refused(call) == said
    assert not (tmp_path / "c.duckdb").exists()


def test_errors_survive_pickling() -> None:
    import pickle

    from mur_trace.errors import UsageError

    error = pickle.loads(pickle.dumps(mur_trace.MurTraceError("E-TRC-002", "x", ["  a"])))
    assert (type(error), error.code, error.message, error.more) == (
        mur_trace.MurTraceError, "E-TRC-002", "x", ("  a",),
    )  # fmt: skip
    usage = pickle.loads(pickle.dumps(UsageError("bad")))
    assert (type(usage), usage.code, usage.message) == (UsageError, "E-CLI-001", "bad")


def test_arguments_of_the_wrong_kind_are_refused_before_anything_is_read(
    sample_workdir: Path, tmp_path: Path
) -> None:
    """Each was a TypeError, AttributeError or ValueError from inside (`progress` once the
    first batch had been read), where the API refuses a wrong argument with E-CLI-001."""
    pytest.importorskip("matplotlib")
    from mur_trace import plot

    trace = mur_trace.load(workdir=sample_workdir)
    found = mur_trace.find_redundant(workdir=sample_workdir)
    listed = ["codex"]
    assert "format's name" in _refused(
        lambda: mur_trace.load(workdir=sample_workdir, format_in=listed)
    )
    assert "function" in _refused(
        lambda: mur_trace.find_redundant(workdir=sample_workdir, progress="x")
    )
    from mur_trace.catalog import ingest

    catalog = tmp_path / "c.duckdb"
    assert "function" in _refused(lambda: ingest(catalog, workdir=sample_workdir, progress=3))
    assert not catalog.exists()
    assert "rows" in _refused(lambda: trace.set_effects(None))
    assert "not Findings" in _refused(lambda: plot.waste(found))
    assert "not NoneType" in _refused(lambda: plot.rate(None))
    assert "not str" in _refused(lambda: plot.timeline("x"))
    assert "NUL" in _refused(lambda: mur_trace.load(["a\0b"]))
    assert "NUL" in _refused(lambda: mur_trace.load(workdir="a\0b"))


def test_a_lone_directory_of_no_session_is_skipped_when_nothing_need_be_readable(
    tmp_path: Path,
) -> None:
    """`require_readable=False` returns a Trace whose `skipped` says why, as the docstring
    promises; a directory of no session, or a workdir not found, alone raised anyway."""
    empty = tmp_path / "empty"
    empty.mkdir()
    trace = mur_trace.load([empty], require_readable=False)
    assert [(s.trace_path, s.code) for s in trace.skipped] == [(str(empty), "E-TRC-002")]
    assert trace.session_count() == 0
    assert (
        _refused(lambda: trace.report(), "E-TRC-002") == f"no sessions found in workdir at {empty}"
    )
    gone = mur_trace.load(workdir=tmp_path / "nowhere", require_readable=False)
    nowhere = str(tmp_path / "nowhere")
    assert [(s.trace_path, s.code) for s in gone.skipped] == [(nowhere, "E-IO-001")]
    _refused(lambda: mur_trace.load([empty]), "E-TRC-002")  # by default, raised


def test_sql_joins_the_callers_arrow_tables(sample_workdir: Path) -> None:
    """DuckDB finds a Python table a query names in the frame that called it: `trace.sql`
    called it from the library's, and a notebook's table was `does not exist` there, where
    `trace.con.sql` found it. The setting it borrows is left as it was."""
    import pyarrow as pa

    trace = mur_trace.load(workdir=sample_workdir)
    labels = pa.table({"session_id": ["ses_01a21715468070018000000000001eef"], "label": ["good"]})  # noqa: F841 (named in the query)
    joined = trace.sql(
        "SELECT label, count(*) FROM tool_calls JOIN labels USING (session_id) GROUP BY 1"
    )
    assert joined.fetchall() == [("good", 8)]  # its 8 tool calls (sample_traces' editor session)
    setting = "SELECT current_setting('python_scan_all_frames')"
    assert trace.con.execute(setting).fetchall() == [(False,)]
    trace.con.execute("SET python_scan_all_frames = true")
    trace.sql("SELECT 1")
    assert trace.con.execute(setting).fetchall() == [(True,)]


def test_a_temporary_table_of_the_users_under_a_name_the_library_takes_is_refused(
    sample_workdir: Path,
) -> None:
    """It was DuckDB's `Existing object "steps" is of type Table, trying to replace with
    type View`, raw, from `trace.steps()`."""
    trace = mur_trace.load(workdir=sample_workdir)
    trace.con.execute("CREATE TEMP TABLE steps AS SELECT 'mine' AS x")
    assert "temporary table 'steps' of its own" in _refused(lambda: trace.steps())
    assert trace.con.sql("SELECT x FROM steps").fetchall() == [("mine",)]  # left as it was


def test_redundant_calls_come_in_trace_and_line_order(sample_workdir: Path) -> None:
    # whatever order the traces were given in (a mutation audit: nothing checked it)
    paths = sorted(sample_workdir.glob("ses_*/trace.jsonl"), reverse=True)
    for policy in ("reference", "context"):
        rows = mur_trace.load(paths).redundant_calls(policy).select("trace_path, line")
        found = rows.fetchall()
        assert len(found) > 1 and found == sorted(found), policy
