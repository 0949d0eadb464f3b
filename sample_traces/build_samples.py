"""Writes sample_traces/workdir/: a handful of realistic Murmur sessions.

Run from the repository root: `python sample_traces/build_samples.py`. The output is
committed; this script documents how it was made and rebuilds it byte for byte.
Every rule of SPEC section 3 shows up in at least one session (see the README).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

OUT = Path(__file__).resolve().parent / "workdir"
T0 = 1_795_683_600_000  # 2026-11-26T09:00:00Z, Unix ms


def session_id(created_ms: int, n: int) -> str:
    """A UUID v7 session id: 48-bit ms timestamp, version 7, variant 10."""
    return f"ses_{created_ms:012x}7{n:03x}8{n * 7919:015x}"


class Session:
    """Builds one trace, line by line, keeping the totals session_end reports."""

    def __init__(self, n: int, offset_min: int, capsule: str, *, stamped: bool = True) -> None:
        self.created = T0 + offset_min * 60_000
        self.id = session_id(self.created, n)
        self.clock = self.created
        self.stamped = stamped
        self.lines: list[str] = []
        self.turns = self.input_tokens = self.output_tokens = 0
        self.tool_calls = self.shell_calls = 0
        self.capsule = capsule
        self.started = self.created

    def emit(self, event_type: str, **fields: object) -> None:
        event: dict[str, object] = {"event_type": event_type}
        if self.stamped:
            self.clock += 137 + 29 * (len(self.lines) % 7)
            event |= {"session_id": self.id, "timestamp": self.clock}
        event |= fields
        self.lines.append(json.dumps(event, separators=(",", ":"), ensure_ascii=False))

    def blank(self) -> None:
        self.lines.append("")

    def start(
        self, max_turns: int = 30, tools: tuple[str, ...] = ("editor",), **extra: object
    ) -> None:
        """A session_start; the totals of the next session_end count from here."""
        self.turns = self.input_tokens = self.output_tokens = 0
        self.tool_calls = self.shell_calls = 0
        self.started = self.clock
        self.emit(
            "session_start",
            capsule_name=self.capsule,
            capsule_version="0.4.2",
            model="claude-sonnet-4-5",
            max_turns=max_turns,
            tools_declared=list(tools),
            capabilities=["filesystem", "shell"],
            **extra,
        )

    def think(self, turn: int, tool: str | None, tokens_in: int, tokens_out: int) -> None:
        self.turns += 1
        self.input_tokens += tokens_in
        self.output_tokens += tokens_out
        self.emit(
            "inference",
            turn=turn,
            input_tokens=tokens_in,
            output_tokens=tokens_out,
            decision="tool_call" if tool else "end_turn",
            tool_name=tool,
        )

    def call(
        self,
        turn: int | None,
        tool: str,
        input: object = None,
        *,
        out: int = 0,
        ms: int = 12,
        status: str = "ok",
        effect: str | None = None,
        resource: str | None = None,
    ) -> None:
        self.tool_calls += 1
        fields: dict[str, object] = {} if turn is None else {"turn": turn}
        fields["tool_name"] = tool
        if input is not None:
            fields["input"] = input
        fields |= {
            "input_bytes": len(json.dumps(input)) if input is not None else 0,
            "output_bytes": out,
            "duration_ms": ms,
            "status": status,
        }
        if effect is not None:
            fields["state_effect"] = effect
        if resource is not None:
            fields["resource_id"] = resource
        self.emit("tool_call", **fields)

    def shell(self, turn: int, binary: str, command: str, exit_code: int = 0, ms: int = 40) -> None:
        self.shell_calls += 1
        self.emit(
            "shell",
            turn=turn,
            binary=binary,
            command=command,
            exit_code=exit_code,
            stdout_bytes=180 + 13 * len(command),
            stderr_bytes=0 if exit_code == 0 else 412,
            duration_ms=ms,
        )

    def edit(self, turn: int, op: str, path: str, **kw: object) -> None:
        """The editor tool: operation + path in the input, effect declared on success only."""
        effect = kw.pop("effect", "read" if op in ("read_file", "list_dir", "search") else "mutate")
        status = kw.get("status", "ok")
        self.call(
            turn,
            "editor",
            {"operation": op, "path": path},
            effect=(effect if status == "ok" else None),
            **kw,
        )

    def end(self, exit_status: str = "ok") -> None:
        self.emit(
            "session_end",
            total_turns=self.turns,
            total_input_tokens=self.input_tokens,
            total_output_tokens=self.output_tokens,
            total_tool_calls=self.tool_calls,
            total_shell_calls=self.shell_calls,
            duration_ms=self.clock - self.started + 5000,
            exit_status=exit_status,
        )

    def write(self) -> None:
        directory = OUT / self.id
        directory.mkdir(parents=True)
        (directory / "trace.jsonl").write_text("\n".join(self.lines) + "\n", encoding="utf-8")


def editor_session() -> Session:
    """Refactoring with the editor tool: re-reads, a write in between, a failed read."""
    s = Session(1, 0, "refactor-bot")
    s.start()
    s.think(0, "editor", 2_310, 180)
    s.edit(0, "read_file", "src/widget.rs", out=4_210, ms=9)
    s.think(1, "editor", 3_940, 95)
    s.edit(1, "read_file", "src/lib.rs", out=1_880, ms=7)
    s.think(2, "editor", 4_720, 120)
    s.edit(2, "read_file", "src/widget.rs", out=4_210, ms=8)  # redundant: re-reads turn 0
    s.think(3, "editor", 6_105, 1_450)
    s.edit(3, "write_file", "src/widget.rs", out=64, ms=14)
    s.think(4, "editor", 7_620, 90)
    s.edit(4, "read_file", "src/widget.rs", out=4_388, ms=8)  # after a write: not redundant
    s.think(5, "editor", 9_100, 85)
    s.edit(5, "read_file", "./src/lib.rs", out=1_880, ms=6)  # verbatim: another identity
    s.think(6, "editor", 10_240, 70)
    s.edit(6, "read_file", "src/missing.rs", out=96, ms=3, status="error")
    s.think(7, "editor", 10_410, 75)
    s.edit(7, "read_file", "src/lib.rs", out=1_880, ms=7)  # redundant: re-reads turn 1
    s.think(8, None, 11_900, 640)
    s.end()
    return s


def code_graph_session() -> Session:
    """A code-graph tool declaring symbol resource_ids beside the editor."""
    s = Session(2, 35, "code-navigator")
    s.start(tools=("editor", "code-graph"))
    sym = "sym:crate::widget::Widget"
    s.think(0, "code-graph", 1_980, 140)
    s.call(
        0,
        "code-graph",
        {"operation": "find_definition", "symbol": "Widget", "path": "src/widget.rs"},
        out=920,
        ms=41,
        effect="read",
        resource=sym,
    )
    s.think(1, "editor", 2_900, 60)
    s.edit(1, "read_file", "src/widget.rs", out=4_210, ms=8)  # a path: not the symbol
    s.think(2, "code-graph", 7_240, 110)
    s.call(
        2,
        "code-graph",
        {"operation": "find_references", "symbol": "Widget", "path": "src/widget.rs"},
        out=2_730,
        ms=58,
        effect="read",
        resource=sym,
    )  # redundant: declared id re-read (turn 0)
    s.think(3, "code-graph", 10_050, 95)
    s.call(
        3,
        "code-graph",
        {"operation": "outline", "path": "src/widget.rs"},
        out=1_140,
        ms=22,
        effect="read",
        resource="",
    )  # empty id: falls back to path, re-reads turn 1
    s.think(4, "code-graph", 11_300, 300)
    s.call(
        4,
        "code-graph",
        {"operation": "rename", "symbol": "Widget", "to": "Gadget"},
        out=210,
        ms=95,
        effect="mutate",
        resource=sym,
    )
    s.think(5, "code-graph", 12_020, 90)
    s.call(
        5,
        "code-graph",
        {"operation": "find_references", "symbol": "Gadget"},
        out=2_740,
        ms=57,
        effect="read",
        resource=sym,
    )  # after the rename: not redundant
    s.think(6, None, 13_400, 520)
    s.end()
    return s


def shell_session() -> Session:
    """git and bash declare nothing; their shell events change files behind the editor."""
    s = Session(
        3,
        80,
        "fixer",
    )
    s.start(tools=("editor", "bash", "git"))
    s.think(0, "editor", 2_050, 90)
    s.edit(0, "read_file", "src/config.rs", out=2_960, ms=7)
    s.think(1, "bash", 3_800, 160)
    s.call(
        1, "bash", {"command": "sed -i 's/level = debug/level = info/' src/config.rs"}, out=0, ms=31
    )
    s.shell(1, "/usr/bin/sed", "-i 's/level = debug/level = info/' src/config.rs", ms=18)
    s.think(2, "editor", 4_100, 70)
    s.edit(2, "read_file", "src/config.rs", out=2_958, ms=7)  # reference flags it: sed changed it
    s.think(3, "git", 5_300, 60)
    s.call(3, "git", {"args": ["status", "--short"]}, out=48, ms=22)
    s.shell(3, "/usr/bin/git", "status --short", ms=15)
    s.think(4, "bash", 5_600, 80)
    s.call(4, "bash", {"command": "cargo test -q"}, out=1_904, ms=8_420, status="error")
    s.shell(4, "/usr/bin/cargo", "test -q", exit_code=101, ms=8_400)
    s.think(5, "git", 7_900, 75)
    s.call(5, "git", {"args": ["checkout", "--", "src/config.rs"]}, out=0, ms=19)
    s.shell(5, "/usr/bin/git", "checkout -- src/config.rs", ms=12)
    s.think(6, "editor", 8_300, 65)
    # the reference flags it again; the context policy too (same_size): `git checkout`
    # brought back the 2,960 bytes turn 0 read
    s.edit(6, "read_file", "src/config.rs", out=2_960, ms=6)
    s.think(7, None, 9_050, 410)
    s.end("failed")
    return s


def legacy_session() -> Session:
    """An older tool: effect recorded, no resource_id, paths under assorted key spellings."""
    s = Session(4, 140, "doc-writer")
    s.start(tools=("legacy-fs",))
    s.think(0, "legacy-fs", 1_500, 70)
    s.call(0, "legacy-fs", {"File_Path": "docs/guide.md"}, out=6_100, ms=5, effect="read")
    s.think(1, "legacy-fs", 3_100, 60)
    s.call(
        1, "legacy-fs", {"FILE_PATH": "docs/guide.md"}, out=6_100, ms=5, effect="read"
    )  # redundant: keys match lower-cased
    s.think(2, "legacy-fs", 4_000, 55)
    s.call(
        2, "legacy-fs", {"path": "docs/b.md", "Path": "docs/a.md"}, out=2_400, ms=4, effect="read"
    )  # two keys lower-case to `path`: `Path` is byte-wise smaller
    s.think(3, "legacy-fs", 4_800, 50)
    s.call(
        3, "legacy-fs", {"path": 42, "filename": "docs/a.md"}, out=2_400, ms=4, effect="read"
    )  # non-string `path` passed over; redundant via `filename`
    s.think(4, "legacy-fs", 5_500, 50)
    s.call(
        4,
        "legacy-fs",
        {"file_path": "docs/guide.md", "file": "docs/b.md"},
        out=2_410,
        ms=4,
        effect="read",
    )  # `file` outranks `file_path`: first read of docs/b.md
    s.think(5, "legacy-fs", 6_300, 45)
    s.call(
        5, "legacy-fs", {"path": "docs/guide.md"}, out=6_100, ms=5, effect="Read"
    )  # not exactly "read": unknown, forgets docs/guide.md
    s.think(6, "legacy-fs", 7_200, 45)
    s.call(6, "legacy-fs", {"path": "docs/guide.md"}, out=6_100, ms=5, effect="read")
    s.think(7, "legacy-fs", 8_000, 40)
    s.call(7, "legacy-fs", None, out=12, ms=1, effect="read")  # no input: no identity
    s.think(8, "legacy-fs", 8_100, 40)
    s.call(
        8, "legacy-fs", {"path": "docs/b.md"}, out=88, ms=2, status="error", effect="read"
    )  # status plays no part: redundant, re-reads turn 4
    s.think(9, None, 8_600, 900)
    s.end()
    return s


def compaction_session() -> Session:
    """A long session whose context was compacted: the reference keeps its history."""
    s = Session(5, 200, "migrator")
    s.start(max_turns=40)
    files = ["src/main.rs", "src/db.rs", "src/schema.rs", "migrations/0007.sql"]
    turn = 0
    for i, path in enumerate(files * 2):
        s.think(turn, "editor", 14_000 + 13_000 * turn, 240)
        op = "read_file" if i % 3 != 2 else "search"
        s.edit(turn, op, path, out=9_800 - 700 * i, ms=9)
        turn += 1
        if turn == 5:
            s.emit("compaction", turn=turn, tokens_before=120_000, tokens_after=30_000)
    s.think(turn, "editor", 41_000, 120)
    s.edit(turn, "read_file", "src/main.rs", out=9_800, ms=8)
    s.think(turn + 1, None, 42_500, 800)
    s.end("max_turns_reached")
    return s


def persistent_session() -> Session:
    """A persistent capsule: two task blocks in one trace, the second reopened once."""
    s = Session(6, 260, "triage-agent")
    for task in range(2):
        task_id = f"tsk_{task + 1:02d}" + "0" * 30
        s.emit(
            "a2a_task_received", task_id=task_id, context_id="ctx_review", message_id=f"msg-{task}"
        )
        s.emit(
            "task_start",
            task_id=task_id,
            context_id="ctx_review",
            source="a2a",
            message_parts_bytes=312,
        )
        attempts = 2 if task == 1 else 1
        turns = tokens_in = tokens_out = calls = 0
        for attempt in range(attempts):
            s.start(tools=("editor",), task_id=task_id)
            for turn, path in enumerate(["CHANGELOG.md", "src/issue.rs"]):
                s.think(turn, "editor", 2_000 + 1_500 * turn, 120)
                s.edit(turn, "read_file", path, out=3_300 + 200 * turn, ms=6)
            s.think(2, None, 5_200, 300)
            turns += s.turns
            tokens_in += s.input_tokens
            tokens_out += s.output_tokens
            calls += s.tool_calls
            s.end()
            if attempt + 1 < attempts:
                s.emit(
                    "task_reopened",
                    task_id=task_id,
                    hook_name="require-tests",
                    reason="the fix has no regression test; add one before finishing",
                    reopen_number=attempt + 1,
                )
        s.emit(
            "task_end",
            task_id=task_id,
            exit_status="ok",
            duration_ms=4_100 + 2_900 * task,
            turns=turns,
            input_tokens=tokens_in,
            output_tokens=tokens_out,
            tool_calls=calls,
            shell_calls=0,
            reopen_count=attempts - 1,
        )
    return s


def hand_written_session() -> Session:
    """An older, hand-trimmed trace: no ids or timestamps on lines, blank lines, no turn."""
    s = Session(7, 330, "scratch", stamped=False)
    s.lines.append(
        json.dumps(
            {
                "event_type": "session_start",
                "session_id": s.id,
                "capsule_name": "scratch",
                "capsule_version": "0.1.0",
                "model": "claude-haiku-4-5",
                "max_turns": 10,
            },
            separators=(",", ":"),
        )
    )
    s.blank()
    s.think(0, "editor", 900, 40)
    s.call(
        None,
        "editor",
        {"operation": "read_file", "path": "notes.txt"},
        out=700,
        ms=4,
        effect="read",
    )
    s.blank()
    s.emit("heartbeat", uptime_ms=5_000, rss_bytes=48_000_000)
    s.think(1, "editor", 1_700, 35)
    s.call(
        None,
        "editor",
        {"operation": "read_file", "path": "notes.txt"},
        out=700,
        ms=4,
        effect="read",
    )  # no turn: counts as turn 0; redundant
    s.think(2, None, 1_900, 120)
    s.end()
    return s


def main() -> None:
    if OUT.exists():
        shutil.rmtree(OUT)
    for build in (
        editor_session,
        code_graph_session,
        shell_session,
        legacy_session,
        compaction_session,
        persistent_session,
        hand_written_session,
    ):
        build().write()


if __name__ == "__main__":
    main()
