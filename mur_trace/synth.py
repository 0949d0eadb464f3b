"""Synthetic Murmur sessions with a ground truth of which calls were truly redundant.

`mur-trace synth OUT --sessions N --seed S` simulates agents working on a versioned file
system and writes, under OUT:

- `workdir/ses_*/trace.jsonl`: the traces, as the Murmur runtime writes them;
- `truth.jsonl`: one object per tool call that read something (`session_id`, `line`,
  `redundant`, `why`), where `redundant` is the truth: the model already held exactly what
  the call returned;
- `effects.toml`: the effects of the simulated tools that declare nothing, as a user of
  those tools would write it.

The world is independent of any detector. Files carry a version that every change bumps
(a revert is a change too). What a read returns is a *view* of a resource at a version:
a whole file, a part of it (`grep`, `head`, a search), a directory listing or search, a
symbol's definition or references (a symbol lives in a file and changes with it), a web
page (never changes). The model holds the views it read since the last context reset
(compaction, new task, new attempt). A read is truly redundant when the model holds the
same view of the same resource at the same version, or the whole of that file at that
version. Failed calls return nothing.
"""

from __future__ import annotations

import json
import random
import zlib
from dataclasses import dataclass, field
from pathlib import Path

from .writes import owned_directory

BYTES_PER_TOKEN = 4
#: The share of changes that change a file's size (the others are same-length edits).
SIZE_CHANGES = 0.9
START_MS = 1_795_000_000_000  # 2026-11-18

DIRS = ["src", "src/api", "src/db", "tests", "docs"]
STEMS = ["main", "lib", "config", "widget", "parser", "server", "client", "model", "util", "cli"]
EXT = {"src": ".rs", "src/api": ".rs", "src/db": ".rs", "tests": ".rs", "docs": ".md"}
SYMBOLS = ["Widget", "Parser", "Config", "Server", "Client", "Model", "run", "parse", "connect"]
URLS = [
    "https://docs.rs/serde/latest/serde/",
    "https://doc.rust-lang.org/std/collections/struct.HashMap.html",
    "https://duckdb.org/docs/sql/functions/list",
    "https://github.com/murmur-nexus/murmur/issues/42",
]
PATTERNS = ["TODO", "fn main", "unwrap()", "Config", "impl Widget", "async fn", "#[test]"]

#: What `synthesize` writes into its output directory, and the file that says it did: an
#: existing directory is written again only when it holds that mark (its old sessions go).
SYNTH_PARTS = ("workdir", "truth.jsonl", "effects.toml")
SYNTH_MARK = ".mur-trace-synth"

EFFECTS_TOML = """\
# Effects of the simulated tools that declare nothing (mur-trace --effects).
[fs-mcp.operation]
read_text_file = "read"
list_directory = "read"
write_file = "mutate"
"""


@dataclass
class World:
    """The file system: path -> version, and where each symbol lives."""

    rng: random.Random
    files: dict[str, int] = field(default_factory=dict)
    symbols: dict[str, str] = field(default_factory=dict)
    clock: int = 0
    # what a file's size follows: most changes change it, some (a same-length edit) do not
    sizes: dict[str, int] = field(default_factory=dict)

    @classmethod
    def make(cls, rng: random.Random) -> World:
        """A world of a few files in each of DIRS, and where each of SYMBOLS is defined."""
        world = cls(rng)
        for d in DIRS:
            for stem in rng.sample(STEMS, rng.randint(3, 6)):
                world.files[f"{d}/{stem}{EXT[d]}"] = 1
        code = [p for p in world.files if p.endswith(".rs")]
        for sym in SYMBOLS:
            world.symbols[sym] = rng.choice(code)
        return world

    def change(self, path: str) -> None:
        """`path` is written: a new version, and mostly a new size."""
        self.clock += 1
        self.files[path] = 1000 + self.clock
        if self.rng.random() < SIZE_CHANGES:
            self.sizes[path] = self.clock

    def size(self, view: str, resource: tuple) -> int:
        """Bytes a read of `resource` returns through `view`: they follow the sizes of the
        files it shows, so a repeat after a change mostly returns another count."""
        kind, name = resource
        if kind == "file":
            shown: tuple = (name,)
        elif kind == "sym":
            shown = (self.symbols[name],)
        elif kind == "dir":
            shown = tuple(p for p, _ in self.under(name))
        elif kind == "tree":
            shown = tuple(sorted(self.files))
        else:
            return 12000  # a web page does not change
        key = repr((view, resource, [(p, self.sizes.get(p, 0)) for p in shown]))
        return 100 + zlib.crc32(key.encode()) % 9000

    def remove(self, path: str) -> None:
        """`path` is deleted (moved away)."""
        self.files.pop(path, None)

    def under(self, directory: str) -> tuple:
        """The files below `directory` with their versions, sorted."""
        prefix = directory.rstrip("/") + "/"
        return tuple(sorted((p, v) for p, v in self.files.items() if p.startswith(prefix)))

    def version(self, resource: tuple) -> object:
        """What a read of `resource` sees now (None: nothing there): changes when it changes."""
        kind, name = resource
        if kind == "file":
            return self.files.get(name)
        if kind == "dir":
            return self.under(name) or None
        if kind == "sym":
            return self.files.get(self.symbols[name])
        return 0  # a web page


@dataclass
class Session:
    """One trace being written, with the model's context and the truth."""

    id: str
    created: int
    world: World
    rng: random.Random
    lines: list[str] = field(default_factory=list)
    truth: list[dict] = field(default_factory=list)
    held: dict[tuple, object] = field(default_factory=dict)  # (resource, view) -> version
    context_tokens: int = 1500
    clock: int = 0
    turn: int = 0
    totals: dict[str, int] = field(default_factory=dict)
    recent: list[str] = field(default_factory=list)

    # ── writing events ──────────────────────────────────────────────────────

    def emit(self, event_type: str, **fields: object) -> int:
        """Append one event of `event_type` (its session and a later timestamp added); its line."""
        self.clock += self.rng.randint(40, 900)
        event = {
            "event_type": event_type,
            "session_id": self.id,
            "timestamp": self.created + self.clock,
        }
        event.update(fields)
        self.lines.append(json.dumps(event, separators=(",", ":")))
        return len(self.lines)

    def start(self, capsule: str, task_id: str | None = None) -> None:
        """A `session_start` (an attempt of a task, when `task_id`), with an empty context."""
        self.totals = dict.fromkeys(("turns", "in", "out", "tools", "shells"), 0)
        self.turn = 0
        extra = {"task_id": task_id} if task_id else {}
        self.emit(
            "session_start",
            capsule_name=capsule,
            capsule_version="0.4.2",
            model="claude-sonnet-4-5",
            max_turns=60,
            tools_declared=["editor", "code-graph", "fetch", "bash", "git", "legacy-fs", "fs-mcp"],
            capabilities=["filesystem", "shell", "network"],
            **extra,
        )
        self.reset()

    def end(self, status: str = "ok") -> None:
        """A `session_end` with the totals since `start`, and `status`."""
        self.emit(
            "session_end",
            total_turns=self.totals["turns"],
            total_input_tokens=self.totals["in"],
            total_output_tokens=self.totals["out"],
            total_tool_calls=self.totals["tools"],
            total_shell_calls=self.totals["shells"],
            duration_ms=self.clock,
            exit_status=status,
        )

    def reset(self) -> None:
        """The model's context is emptied (compaction, task, attempt)."""
        self.held.clear()

    def think(self, tool: str | None) -> None:
        """An inference turn that calls `tool` (None: the turn that ends the attempt)."""
        out = self.rng.randint(40, 400)
        self.emit(
            "inference",
            turn=self.turn,
            input_tokens=self.context_tokens,
            output_tokens=out,
            decision="tool_call" if tool else "end_turn",
            tool_name=tool,
        )
        self.totals["turns"] += 1
        self.totals["in"] += self.context_tokens
        self.totals["out"] += out
        self.context_tokens += out

    def call(
        self,
        tool: str,
        data: object,
        *,
        out: int,
        ok: bool = True,
        effect: str | None = None,
        resource_id: str | None = None,
    ) -> int:
        """A `tool_call` of this turn, its effect and resource declared when given; its line."""
        fields: dict[str, object] = {"turn": self.turn, "tool_name": tool, "input": data}
        fields |= {
            "input_bytes": len(json.dumps(data)),
            "output_bytes": out,
            "duration_ms": self.rng.randint(3, 60)
            if tool != "bash"
            else self.rng.randint(20, 4000),
            "status": "ok" if ok else "error",
        }
        if effect:
            fields["state_effect"] = effect
        if resource_id:
            fields["resource_id"] = resource_id
        self.totals["tools"] += 1
        self.context_tokens += out // BYTES_PER_TOKEN + 12
        return self.emit("tool_call", **fields)

    def shell(self, binary: str | None, command: str, exit_code: int = 0, out: int = 0) -> None:
        """The `shell` event the runtime writes after a shell tool's call."""
        fields: dict[str, object] = {"turn": self.turn}
        if binary:
            fields["binary"] = binary
        fields |= {
            "command": command,
            "exit_code": exit_code,
            "stdout_bytes": out,
            "stderr_bytes": 0 if exit_code == 0 else 230,
            "duration_ms": self.rng.randint(5, 3000),
        }
        self.totals["shells"] += 1
        self.emit("shell", **fields)

    # ── the truth ───────────────────────────────────────────────────────────

    def observe(self, line: int, resource: tuple, view: str, ok: bool) -> None:
        """Record the truth for a read at `line`, then let the model hold what it saw."""
        version = self.world.version(resource)
        ok = ok and version is not None
        held = ok and (
            self.held.get((resource, view), -1) == version
            or (resource[0] == "file" and self.held.get((resource, "whole"), -1) == version)
        )
        self.truth.append(
            {"session_id": self.id, "line": line, "redundant": held, "resource": list(resource),
             "view": view}
        )  # fmt: skip
        if ok:
            self.held[(resource, view)] = version

    # ── what the agent does ─────────────────────────────────────────────────

    def pick_file(self) -> str:
        """A file to work on: mostly one of the last few, else any."""
        if self.recent and self.rng.random() < 0.55:
            choice = self.rng.choice(self.recent[-6:])
            if choice in self.world.files:
                return choice
        return self.rng.choice(sorted(self.world.files))

    def spell(self, path: str) -> str:
        """How the agent writes a path: usually plainly, sometimes not."""
        r = self.rng.random()
        if r < 0.06:
            return "./" + path
        if r < 0.09:
            head, _, tail = path.rpartition("/")
            return f"{head}//{tail}"
        if r < 0.11:
            head, _, tail = path.rpartition("/")
            return f"{head}/{self.rng.choice(['x', 'api', 'old'])}/../{tail}"
        return path

    def act(self) -> None:
        """One turn: the model picks a tool, the tool runs."""
        r = self.rng.random()
        actions = [
            (0.30, self.read_file),
            (0.08, self.edit_file),
            (0.05, self.list_dir),
            (0.05, self.search),
            (0.08, self.symbol),
            (0.03, self.fetch),
            (0.18, self.bash),
            (0.06, self.git),
            (0.06, self.legacy_read),
            (0.08, self.mcp),
            (0.03, self.failed_read),
        ]
        for weight, action in actions:
            if r < weight:
                action()
                return
            r -= weight
        self.read_file()

    def read_file(self) -> None:
        """The editor reads a whole file (declared: read)."""
        path = self.pick_file()
        self.think("editor")
        line = self.call(
            "editor",
            {"operation": "read_file", "path": self.spell(path)},
            out=self.world.size("whole", ("file", path)),
            effect="read",
        )
        self.observe(line, ("file", path), "whole", True)
        self.recent.append(path)

    def failed_read(self) -> None:
        """A read that fails: a mistyped path, or a timeout on a real one."""
        real = self.rng.random() < 0.4
        path = self.pick_file() if real else f"src/{self.rng.choice(STEMS)}_old.rs"
        self.think("editor")
        line = self.call(
            "editor", {"operation": "read_file", "path": path}, out=90, ok=False
        )  # the editor declares effects only on success
        self.observe(line, ("file", path), "whole", False)

    def edit_file(self) -> None:
        """The editor writes a file (declared: mutate)."""
        path = self.pick_file()
        self.think("editor")
        self.call(
            "editor",
            {"operation": "write_file", "path": self.spell(path)},
            out=60,
            effect="mutate",
        )
        self.world.change(path)
        self.recent.append(path)

    def list_dir(self) -> None:
        """The editor lists a directory (declared: read)."""
        d = self.rng.choice(DIRS)
        self.think("editor")
        line = self.call(
            "editor", {"operation": "list_dir", "path": self.spell(d + "/")[:-1] or d},
            out=self.world.size("listing", ("dir", d)), effect="read",
        )  # fmt: skip
        self.observe(line, ("dir", d), "listing", True)

    def search(self) -> None:
        """The editor searches a directory for a pattern (declared: read)."""
        d = self.rng.choice(DIRS[:3])
        pattern = self.rng.choice(PATTERNS)
        self.think("editor")
        line = self.call(
            "editor",
            {"operation": "search", "path": d, "pattern": pattern},
            out=self.world.size(f"search:{pattern}", ("dir", d)),
            effect="read",
        )
        self.observe(line, ("dir", d), f"search:{pattern}", True)

    def symbol(self) -> None:
        """The code graph looks a symbol up, or renames it (declared, with its resource id)."""
        sym = self.rng.choice(SYMBOLS)
        op = self.rng.choice(["find_definition", "find_references"])
        data: dict[str, object] = {"operation": op, "symbol": sym}
        if self.rng.random() < 0.85:
            data["path"] = self.world.symbols[sym]
        if self.rng.random() < 0.3:
            # a rename, like a lookup, is usually placed at the symbol's file
            rename = {"operation": "rename", "symbol": sym, "to": sym + "2"}
            if "path" in data:
                rename["path"] = data["path"]
            self.think("code-graph")
            self.call("code-graph", rename, out=120, effect="mutate", resource_id=f"sym:{sym}")
            self.world.change(self.world.symbols[sym])
            return
        self.think("code-graph")
        out = self.world.size(op, ("sym", sym))
        line = self.call("code-graph", data, out=out, effect="read", resource_id=f"sym:{sym}")
        self.observe(line, ("sym", sym), op, True)

    def fetch(self) -> None:
        """A web page is fetched (declared: read, with its URL as resource id)."""
        url = self.rng.choice(URLS)
        self.think("fetch")
        line = self.call(
            "fetch",
            {"url": url},
            out=self.world.size("whole", ("url", url)),
            effect="read",
            resource_id=f"url:{url}",
        )
        self.observe(line, ("url", url), "whole", True)

    def legacy_read(self) -> None:
        """A tool that declares nothing reads a file through an unusual key."""
        path = self.pick_file()
        key = self.rng.choice(["File_Path", "FILE_PATH", "filepath", "Path"])
        self.think("legacy-fs")
        line = self.call(
            "legacy-fs", {key: path}, out=self.world.size("whole", ("file", path)), effect="read"
        )
        self.observe(line, ("file", path), "whole", True)
        self.recent.append(path)

    def mcp(self) -> None:
        """An MCP file server that declares nothing."""
        path = self.pick_file()
        self.think("fs-mcp")
        if self.rng.random() < 0.25:
            self.call("fs-mcp", {"operation": "write_file", "path": path}, out=40)
            self.world.change(path)
            return
        line = self.call(
            "fs-mcp",
            {"operation": "read_text_file", "path": path},
            out=self.world.size("whole", ("file", path)),
        )
        self.observe(line, ("file", path), "whole", True)
        self.recent.append(path)

    def git(self) -> None:
        """A git command: a read of the tree, or a checkout or stash that changes files."""
        r = self.rng.random()
        if r < 0.55:
            args = self.rng.choice([["status", "--short"], ["diff"], ["log", "--oneline", "-5"]])
        elif r < 0.85:
            path = self.pick_file()
            args = ["checkout", "--", path]
            self.world.change(path)
        else:
            args = ["stash"]
            for path in self.rng.sample(sorted(self.world.files), 2):
                self.world.change(path)
        self.think("git")
        self.call("git", {"args": args}, out=self.world.size(" ".join(args), ("tree", ".")))
        self.shell("/usr/bin/git", " ".join(args))

    def bash(self) -> None:
        """A shell command; its effect on the world is what the command really does."""
        self.think("bash")
        rng = self.rng
        path = self.pick_file()
        r = rng.random()
        read: tuple[tuple, str] | None = None
        if r < 0.22:
            command, read = f"cat {path}", (("file", path), "whole")
        elif r < 0.32:
            pattern = rng.choice(PATTERNS)
            command, read = f"grep -n '{pattern}' {path}", (("file", path), f"grep:{pattern}")
        elif r < 0.38:
            command, read = f"head -n 40 {path}", (("file", path), "head:40")
        elif r < 0.48:
            command = f"sed -i 's/{rng.choice(STEMS)}/{rng.choice(STEMS)}/g' {path}"
            self.world.change(path)
        elif r < 0.53:
            command = f"echo '// reviewed' >> {path}"
            self.world.change(path)
        elif r < 0.56:
            target = path.rsplit(".", 1)[0] + "_new." + path.rsplit(".", 1)[1]
            command = f"mv {path} {target}"
            self.world.change(target)
            self.world.remove(path)
        elif r < 0.75:
            command = rng.choice(["cargo test -q", "cargo check", "ls src", "pytest -q", "pwd"])
        elif r < 0.83:
            command = "cargo fmt"
            for p in rng.sample(sorted(self.world.files), 2):
                self.world.change(p)
        elif r < 0.92:
            command = "./scripts/regen.sh"
            if rng.random() < 0.5:
                self.world.change(rng.choice(sorted(self.world.files)))
        else:
            # the model sees what grep lets through (a count), not the file
            command = f"cat {path} | grep -c fn"
            read = (("file", path), "pipe:grep -c fn")
        line = self.call(
            "bash", {"command": command}, out=self.world.size(read[1], read[0]) if read else 150
        )
        fail = read is not None and rng.random() < 0.05
        # as the runtime writes it: the interpreter (resolved, or its bare name when nothing
        # resolved; older runtimes wrote none) and the script
        binary = rng.choice(["/usr/bin/bash", "bash", None])
        self.shell(binary, command, exit_code=1 if fail else 0)
        if read is not None:
            self.observe(line, read[0], read[1], not fail)
            self.recent.append(path)

    def maybe_compact(self) -> None:
        """Past 60,000 tokens, the context is compacted half of the time."""
        if self.context_tokens > 60_000 and self.rng.random() < 0.5:
            self.emit(
                "compaction",
                turn=self.turn,
                tokens_before=self.context_tokens,
                tokens_after=6_000,
            )
            self.context_tokens = 6_000
            self.reset()


def session_id(created_ms: int, rng: random.Random) -> str:
    """A Murmur session id (a UUID v7, as `ses_` + 32 hex) created at `created_ms`."""
    return f"ses_{created_ms:012x}7{rng.getrandbits(12):03x}{rng.getrandbits(64) | 1 << 63:016x}"


def simulate(index: int, seed: int, turns: tuple[int, int] = (8, 40)) -> Session:
    """The session `index` of the run of `seed`: one or more tasks of attempts of `turns` turns,
    written with the truth of each read."""
    rng = random.Random(f"{seed}:{index}")
    created = START_MS + index * 97_000 + rng.randint(0, 90_000)
    session = Session(session_id(created, rng), created, World.make(rng), rng)
    capsule = rng.choice(["refactor-bot", "fixer", "doc-writer", "triage-agent"])
    persistent = rng.random() < 0.2
    for _task in range(rng.randint(2, 3) if persistent else 1):
        task_id = f"tsk_{rng.getrandbits(64):016x}" if persistent else None
        if task_id:
            session.emit("task_start", task_id=task_id, context_id="ctx_main", source="a2a")
            session.reset()
        attempts = 2 if persistent and rng.random() < 0.3 else 1
        for attempt in range(attempts):
            session.start(capsule, task_id)
            for _ in range(rng.randint(*turns)):
                session.act()
                session.turn += 1
                session.maybe_compact()
            session.think(None)
            session.end("ok" if rng.random() < 0.8 else "failed")
            if attempt + 1 < attempts:
                session.emit(
                    "task_reopened", task_id=task_id, hook_name="require-tests",
                    reason="no test covers the change", reopen_number=attempt + 1,
                )  # fmt: skip
        if task_id:
            session.emit(
                "task_end", task_id=task_id, exit_status="ok", duration_ms=session.clock,
                turns=session.turn, input_tokens=0, output_tokens=0, tool_calls=0,
                shell_calls=0, reopen_count=attempts - 1,
            )  # fmt: skip
    return session


def synthesize(
    out: str | Path, sessions: int, seed: int = 0, turns: tuple[int, int] = (8, 40)
) -> Path:
    """Write `sessions` simulated sessions and their truth under `out`; return the workdir.

    Each attempt runs between `turns[0]` and `turns[1]` turns.
    """
    out = Path(out)
    with owned_directory(out, SYNTH_MARK, SYNTH_PARTS) as staging:
        workdir = staging / "workdir"
        workdir.mkdir()
        with open(staging / "truth.jsonl", "w", encoding="utf-8") as truth:
            for index in range(sessions):
                session = simulate(index, seed, turns)
                directory = workdir / session.id
                directory.mkdir(exist_ok=True)
                text = "\n".join(session.lines) + "\n"
                (directory / "trace.jsonl").write_text(text, encoding="utf-8")
                for row in session.truth:
                    truth.write(json.dumps(row) + "\n")
        (staging / "effects.toml").write_text(EFFECTS_TOML, encoding="utf-8")
    return out / "workdir"
