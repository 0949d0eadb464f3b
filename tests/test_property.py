"""Property tests: the SQL agrees with the pure-Python model of SPEC section 3, and the
context policy with a small model of its own on one family of traces (same_size)."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from model import identity, normalise_path, redundant_calls

import mur_trace
from mur_trace.load import connect, create_macros

IDENTITIES = ["a", "b", "./a", "src/a.rs", "sym:A", "", " a"]
KEYS = [
    "path", "Path", "PATH", "pAth", "file", "File", "FILE", "file_path", "File_Path",
    "FILE_PATH", "filepath", "FilePath", "filename", "FileName", "operation", "pattern",
    "paths", "file_name",
    # `İ` lower-cases to two characters (`i` and a combining dot), as Python's lower() and
    # `mur trace`'s to_lowercase() do it: no path field
    "FİLE", "FİLENAME",
]  # fmt: skip
# Strings most of the time, so that colliding keys and priorities are really exercised.
VALUES = st.one_of(
    st.sampled_from(IDENTITIES),
    st.sampled_from(IDENTITIES),
    st.sampled_from(IDENTITIES),
    st.sampled_from(IDENTITIES),
    st.integers(-3, 3),
    st.none(),
    st.booleans(),
    st.lists(st.sampled_from(IDENTITIES), max_size=2),
    st.just({"path": "a"}),
)
EFFECTS = st.sampled_from([None, "read", "read", "read", "mutate", "Read", "", "READ", 1])
MISSING = object()


@st.composite
def tool_call(draw) -> dict:
    event: dict = {"event_type": "tool_call", "tool_name": draw(st.sampled_from(["r", "w", "x"]))}
    turn = draw(st.one_of(st.just(MISSING), st.integers(0, 9)))
    if turn is not MISSING:
        event["turn"] = turn
    shape = draw(st.sampled_from(["object", "object", "object", "none", "absent", "list", "str"]))
    if shape == "object":
        event["input"] = draw(st.dictionaries(st.sampled_from(KEYS), VALUES, max_size=6))
    elif shape == "none":
        event["input"] = None
    elif shape == "list":
        event["input"] = ["a"]
    elif shape == "str":
        event["input"] = "a"
    effect = draw(EFFECTS)
    if effect is not None:
        event["state_effect"] = effect
    declared = draw(st.one_of(st.just(MISSING), st.sampled_from(IDENTITIES), st.integers(0, 2)))
    if declared is not MISSING:
        event["resource_id"] = declared
    event["status"] = draw(st.sampled_from(["ok", "error"]))
    return event


OTHER_EVENTS = st.sampled_from(
    [
        {"event_type": "inference", "turn": 1, "decision": "tool_call", "tool_name": "r"},
        {"event_type": "compaction", "turn": 2, "tokens_before": 9, "tokens_after": 3},
        {"event_type": "task_start", "task_id": "t", "context_id": "c", "source": "a2a"},
        {"event_type": "shell", "turn": 1, "command": "rm a", "exit_code": 0},
        {"event_type": "some_future_event", "path": "a", "state_effect": "mutate"},
    ]
)
LINE = st.one_of(
    tool_call().map(json.dumps),
    tool_call().map(json.dumps),
    tool_call().map(json.dumps),
    OTHER_EVENTS.map(json.dumps),
    st.sampled_from(["", "  ", "\t"]),
)
TRACE = st.lists(LINE, min_size=1, max_size=30).filter(lambda ls: any(s.strip() for s in ls))


def _write(directory: Path, traces: list[list[str]]) -> list[Path]:
    paths = []
    for i, lines in enumerate(traces):
        path = directory / f"ses_{i:032x}" / "trace.jsonl"
        path.parent.mkdir(parents=True)
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        paths.append(path)
    return paths


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(TRACE, min_size=1, max_size=3))
def test_redundant_calls_agree_with_the_model(traces: list[list[str]]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        paths = _write(Path(tmp), traces)
        expected = sorted(
            finding
            for path in paths
            for finding in redundant_calls(str(path), path.read_text(encoding="utf-8"))
        )
        trace = mur_trace.load(paths)
        rows = trace.redundant_calls().select(
            "trace_path, line, turn, resource, prior_line, prior_turn"
        )
        assert sorted(rows.fetchall()) == expected


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(tool_call(), min_size=1, max_size=20))
def test_identity_resolution_agrees_with_the_model(calls: list[dict]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        (path,) = _write(Path(tmp), [[json.dumps(c) for c in calls]])
        expected = [identity(c) or (None, None) for c in calls]
        rows = mur_trace.load([path]).tool_calls.order("line").select("resource, resource_source")
        assert rows.fetchall() == expected


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(TRACE, min_size=1, max_size=3))
def test_context_policy_with_every_rule_off_is_the_reference(traces: list[list[str]]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        paths = _write(Path(tmp), traces)
        trace = mur_trace.load(paths, rules=dict.fromkeys(mur_trace.RULES, False))
        columns = "trace_path, line, turn, resource, prior_line, prior_turn"
        context = trace.redundant_calls("context").select(columns).fetchall()
        reference = trace.redundant_calls("reference").select(columns).fetchall()
        assert sorted(context) == sorted(reference)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(alphabet="ab./", max_size=16), max_size=40))
# (a mutation audit: `..` kept at the start of a path, and the length below which paths are
# normalised, were never reached by paths of 8 characters)
@example(["../../..", "a/../../b/..", "./src/components/widgets/buttons/primary/../icon.rs"])
def test_path_normalisation_agrees_with_the_model(paths: list[str]) -> None:
    con = connect()
    create_macros(con)
    got = con.execute("SELECT list_transform($p, lambda x: normalise_path(x))", {"p": paths})
    assert got.fetchone()[0] == [normalise_path(p) for p in paths]


# ── same_size, against a model of the context policy on a small family of traces ──
# Reads and declared writes of two files by an editor, a script run through `bash` (which
# may change any file), a change that names no resource (a subagent's run: any file too),
# compactions. A read is redundant when an earlier read of its file
# in the same context either has no change of the file (a write, a script) after it, or
# returned as many bytes with no write of the file after it (a script's change is taken
# back by the size; a declared write never is). The prior is the latest such read.
READ_STEP = st.tuples(
    st.just("read"), st.sampled_from(["a.py", "b.py"]), st.sampled_from([100, 120])
)
SCRIPT_STEP = st.tuples(st.just("script"), st.just(""), st.just(0))
SIZE_STEPS = st.lists(
    st.one_of(
        READ_STEP,
        READ_STEP,
        READ_STEP,
        st.tuples(st.just("write"), st.sampled_from(["a.py", "b.py"]), st.just(0)),
        SCRIPT_STEP,
        SCRIPT_STEP,
        st.tuples(st.just("subagent"), st.just(""), st.just(0)),
        st.tuples(st.just("compaction"), st.just(""), st.just(0)),
    ),
    min_size=3,
    max_size=25,
)


def _editor(turn: int, operation: str, path: str, effect: str, size: int) -> str:
    return json.dumps(
        {"event_type": "tool_call", "turn": turn, "status": "ok", "tool_name": "editor",
         "state_effect": effect, "input": {"operation": operation, "path": path},
         "output_bytes": size}
    )  # fmt: skip


def _size_trace(steps: list[tuple[str, str, int]]) -> tuple[list[str], list[tuple[int, int, str]]]:
    """The trace's lines, and the findings the model expects: (line, prior_line, rule)."""
    lines: list[str] = []
    expected = []
    reads: list[tuple[int, str, int]] = []  # (line, file, size) in the current context
    changed: dict[str, int] = {}  # file -> line of its latest write or script
    written: dict[str, int] = {}  # file -> line of its latest write
    for turn, (kind, path, size) in enumerate(steps):
        if kind == "read":
            lines.append(_editor(turn, "read_file", path, "read", size))
            line = len(lines)
            same = [r for r, p, _ in reads if p == path and r > changed.get(path, 0)]
            sized = [r for r, p, s in reads if p == path and s == size and r > written.get(path, 0)]
            if same or sized:
                rule = "read_after_read" if same else "same_size"
                expected.append((line, max(same + sized), rule))
            reads.append((line, path, size))
        elif kind == "write":
            lines.append(_editor(turn, "write_file", path, "mutate", 10))
            changed[path] = written[path] = len(lines)
        elif kind == "script":
            command = "python tidy.py"
            call = {"event_type": "tool_call", "turn": turn, "status": "ok", "tool_name": "bash"}
            lines.append(json.dumps(call | {"input": {"command": command}, "output_bytes": 5}))
            shell = {"event_type": "shell", "turn": turn, "binary": "/usr/bin/bash"}
            lines.append(json.dumps(shell | {"command": command, "exit_code": 0}))
            changed = dict.fromkeys(["a.py", "b.py"], len(lines))
        elif kind == "subagent":  # declared a change, of no resource it names
            call = {"event_type": "tool_call", "turn": turn, "status": "ok", "tool_name": "agent"}
            lines.append(json.dumps(call | {"state_effect": "mutate", "input": {"prompt": "fix"}}))
            changed = dict.fromkeys(["a.py", "b.py"], len(lines))
        else:
            reset = {"event_type": "compaction", "turn": turn}
            lines.append(json.dumps(reset | {"tokens_before": 9, "tokens_after": 3}))
            reads = []
    return lines, expected


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(SIZE_STEPS)
def test_same_size_agrees_with_the_model(steps: list[tuple[str, str, int]]) -> None:
    lines, expected = _size_trace(steps)
    with tempfile.TemporaryDirectory() as tmp:
        (path,) = _write(Path(tmp), [lines])
        found = mur_trace.load([path]).redundant_calls("context")
        assert found.order("line").select("line, prior_line, rule").fetchall() == expected
