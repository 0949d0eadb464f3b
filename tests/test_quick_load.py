"""The quick reading of `redundant --policy reference` (queries/quick/) gives what loading
the traces whole gives: the same findings, column for column, the same errors and warnings,
the same number of sessions; on random traces (those of tests/test_property.py and of the
fuzzer of tests/test_hostile.py) and on the sample sessions."""

from __future__ import annotations

import json
import tempfile
import warnings
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.errors import NonInteractiveExampleWarning
from test_hostile import mutated
from test_property import TRACE, tool_call

import mur_trace
from mur_trace.load import connect, load_tool_calls

SESSION = "ses_01a21715468070018000000000001eef"


def whole(paths: list[Path]) -> tuple[list[tuple], list, list, int]:
    """Findings, skipped traces, warnings and sessions, from loading the traces whole."""
    trace = mur_trace.load(paths, require_readable=False)
    rows = trace.redundant_calls("reference").fetchall()
    return rows, trace.skipped, trace.warnings, trace.session_count()


def quick(paths: list[Path]) -> tuple[list[tuple], list, list, int]:
    """The same, from `find_redundant` (which reads Murmur traces quickly)."""
    try:
        found = mur_trace.find_redundant(paths)
    except mur_trace.MurTraceError:  # nothing readable: `whole` has no session either
        return [], [], [], 0
    return found.relation.fetchall(), found.skipped, found.warnings, found.sessions


def analysed_quickly(paths: list[Path]) -> int:
    """How many of `paths` the quick reading vouches for."""
    return load_tool_calls(connect(), [str(p) for p in paths]).analysed


def write(directory: Path, traces: list[bytes]) -> list[Path]:
    paths = []
    for i, data in enumerate(traces):
        path = directory / f"ses_{i:032x}" / "trace.jsonl"
        path.parent.mkdir(parents=True)
        path.write_bytes(data)
        paths.append(path)
    return paths


def same(traces: list[bytes]) -> int:
    """Assert both readings agree on `traces`; return how many were read quickly."""
    with tempfile.TemporaryDirectory() as tmp:
        paths = write(Path(tmp), traces)
        expected = whole(paths)
        got = quick(paths)
        if expected[3] == 0:  # nothing readable: find_redundant raises the first error
            assert got[3] == 0
        else:
            assert got == expected
        return analysed_quickly(paths)


# a tool call as the runtime writes it (compact, event_type first), or as a person might
# (spaces, keys in another order, an escape in the event type)
def layouts(event: dict) -> st.SearchStrategy[str]:
    reordered = dict(reversed(list(event.items())))
    escaped = json.dumps(event).replace('"tool_call"', '"tool\\u005fcall"', 1)
    return st.sampled_from(
        [
            json.dumps(event, separators=(",", ":")),
            json.dumps(event),
            json.dumps(reordered, separators=(",", ":")),
            escaped,
            json.dumps({"session_id": SESSION, **event}, separators=(",", ":")),
        ]
    )


LINE = st.one_of(
    tool_call().flatmap(layouts),
    tool_call().flatmap(layouts),
    TRACE.map(lambda lines: lines[0]),
    mutated(),
    st.sampled_from(["", "  ", "\r", "null", '{"event_type":null}', '{"event_type":"x"}']),
)
FILE = st.tuples(st.lists(LINE, max_size=12), st.booleans()).map(
    lambda t: ("\n".join(t[0]) + ("\n" if t[1] else "")).encode("utf-8", "surrogatepass")
)


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(FILE, min_size=1, max_size=4))
def test_random_traces_give_what_loading_them_whole_gives(traces: list[bytes]) -> None:
    same(traces)


# Traces the quick reading takes: every tool call names its session, every line is an event
# loading reads (the random traces above hold a bad line or a call that names no session
# nearly always, so that they were loaded whole: this compared the whole load with itself)
def quick_layouts(event: dict) -> st.SearchStrategy[str]:
    compact = json.dumps(event, separators=(",", ":"))
    return st.sampled_from(
        [
            compact,
            compact,
            json.dumps(event),
            json.dumps(dict(reversed(list(event.items()))), separators=(",", ":")),
            compact.replace('"tool_call"', '"tool\\u005fcall"', 1),  # written, escaped
        ]
    )


def _duplicate_path_key(event: dict) -> str:
    """The call with its input's path key written twice (the last value counts, as in
    `mur trace`'s map)."""
    text = json.dumps({**event, "input": {"path": "a"}}, separators=(",", ":"))
    return text.replace('"path":"a"', '"path":"a","path":"b"', 1)


QUICK_CALL = tool_call().map(lambda event: {**event, "session_id": SESSION})
QUICK_LINE = st.one_of(
    QUICK_CALL.flatmap(quick_layouts),
    QUICK_CALL.flatmap(quick_layouts),
    QUICK_CALL.flatmap(quick_layouts),
    QUICK_CALL.map(_duplicate_path_key),
    # another event whose type starts as a tool call's does
    QUICK_CALL.map(
        lambda e: json.dumps({**e, "event_type": "tool_call_result"}, separators=(",", ":"))
    ),
    st.sampled_from(
        [
            json.dumps({"event_type": "session_start", "session_id": SESSION}),
            json.dumps({"event_type": "compaction", "turn": 2}),
            "",
        ]
    ),
)
QUICK_FILE = st.lists(QUICK_LINE, min_size=1, max_size=16).map(
    lambda lines: ("\n".join(lines) + "\n").encode()
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(QUICK_FILE, min_size=1, max_size=3))
def test_random_traces_read_quickly_give_what_loading_them_whole_gives(
    traces: list[bytes],
) -> None:
    same(traces)


def test_the_random_traces_read_quickly_are_read_quickly() -> None:
    """Most of what the strategy above draws is read quickly: the test compares the two
    readings, not the whole load with itself."""
    with warnings.catch_warnings():  # (drawn outside a test on purpose: a count of them)
        warnings.simplefilter("ignore", NonInteractiveExampleWarning)
        files = [QUICK_FILE.example() for _ in range(40)]
    with tempfile.TemporaryDirectory() as tmp:
        assert analysed_quickly(write(Path(tmp), files)) >= 20


def test_the_sample_sessions_give_what_loading_them_whole_gives(sample_workdir: Path) -> None:
    paths = sorted(sample_workdir.glob("ses_*/trace.jsonl"))
    expected = whole(paths)
    assert quick(paths) == expected
    assert len(expected[0]) == 19
    # all but the one whose tool calls name no session (it takes the trace's: line 1's)
    assert analysed_quickly(paths) == len(paths) - 1


def read(**fields) -> dict:
    return {"event_type": "tool_call", "session_id": SESSION, "tool_name": "editor",
            "input": {"path": "a.rs"}, "state_effect": "read", **fields}  # fmt: skip


def lines(*events: dict | str, end: str = "\n") -> bytes:
    text = [e if isinstance(e, str) else json.dumps(e, separators=(",", ":")) for e in events]
    return ("\n".join(text) + end).encode()


def test_what_is_read_quickly_and_what_is_loaded_whole() -> None:
    start = {"event_type": "session_start", "session_id": SESSION}
    readable = [
        lines(start, read(turn=0), read(turn=1)),
        lines(start, read(turn=0), "", "  ", read(turn=1)),  # blank lines keep their numbers
        lines(start, json.dumps(read(turn=0)), read(turn=1)),  # spaces after the colons
        lines(read(turn=0), {"turn": 1, **read()}),  # event_type not first
        lines(read(turn=0), json.dumps(read()).replace("tool_call", "tool\\u005fcall")),
        lines(start, read(turn=0), read(turn=1), end=""),  # no newline at the end
        lines(read(turn=0), {"event_type": "inference", "event_type ": "tool_call"}),
        # `FİLE` is no `file` (lower-cased as `mur trace` does it: two characters)
        lines(read(turn=0, input={"FİLE": "a.rs"}), read(turn=1, input={"FİLE": "a.rs"})),
        # another event whose type starts as a tool call's, compact; an escaped tool call,
        # compact; a call whose input names its path twice (the last counts); turns that
        # go back (history is kept in line order)
        lines(read(turn=0), {**read(turn=1), "event_type": "tool_call_result"}),
        lines(
            read(turn=0),
            json.dumps(read(turn=1), separators=(",", ":")).replace("tool_call", "tool\\u005fcall"),
        ),
        lines(
            read(turn=0),
            json.dumps(read(turn=1), separators=(",", ":")).replace(
                '"path":"a.rs"', '"path":"b.rs","path":"a.rs"'
            ),
        ),
        lines(
            read(turn=5, input={"path": "b.rs"}),
            read(turn=3),
            read(turn=4),
            read(turn=1, input={"path": "b.rs"}),
        ),
    ]
    whole_only = [
        lines(read(turn=0), {**read(), "session_id": None}),  # the trace's id is needed
        lines(read(turn=0), {**read(), "turn": "1"}),  # a count written as a string
        lines(read(turn=0), {**read(), "turn": 2**53}),  # past 2^53
        lines(read(turn=0), {"turn": 1}),  # no event type
        lines(read(turn=0), "null"),
        lines(read(turn=0), '{"event_type":"tool_call","tu', end=""),  # torn
        b"\xef\xbb\xbf" + lines(read(turn=0), read(turn=1)),  # a byte order mark
        lines(read(turn=0), read(turn=1)).replace(b"a.rs", b"a\xff"),  # not UTF-8
        b"",
        b"\n\n",
    ]
    for trace in readable:
        assert same([trace]) == 1, trace
    for trace in whole_only:
        assert same([trace]) == 0, trace
    assert same(readable + whole_only) == len(readable)


def test_a_path_key_written_twice_holds_its_last_value(tmp_path: Path) -> None:
    """As in `mur trace`'s map of the input; DuckDB's map of such an object is NULL, and the
    call had no identity, read quickly or whole."""
    twice = json.dumps(read(turn=1), separators=(",", ":"))
    twice = twice.replace('"path":"a.rs"', '"path":"b.rs","path":"a.rs"')
    [path] = write(tmp_path, [lines(read(turn=0), twice)])
    rows = mur_trace.load([path]).redundant_calls("reference").select("line, resource")
    assert rows.fetchall() == [(2, "a.rs")]
    assert quick([path]) == whole([path])
