"""Record agent sessions against a real git repository, with a ground truth taken from the bytes.

    python benchmarks/record.py [--sessions 60] [--seed 1] [--out benchmarks/recorded]
                                [--include-output]

Each session starts from a fresh copy of a small committed project (`record_project.py`) and
plays a scripted, seeded agent against it with real programs: `bash` (pipelines, `&&`,
redirections, `sed -i`, `cat`, `head`, `grep -rn`, `ls`, `find`, `ruff format`, `python -m
pytest`, scripts that rewrite files, `cp`/`mv`/`rm`), `git` and `python` as tools of their own,
and four tools written here against the same files: an editor, a code-graph tool, a legacy
reader (`fs_cat`, `fs_stat`) and a web fetch tool talking to a local HTTP server.

Traces are written the way Murmur's runtime writes them (murmur-nexus/murmur,
`crates/capsule-runtime/src/{trace,agent,runtime,shell}.rs`): field order of each event,
`input` with sorted keys (serde_json's map), `input_bytes` its compact length, `output_bytes`
the length of the text the tool returned (for a shell tool, `$ cmd\\nExit code: N\\nStdout:
...\\nStderr:\\n...`, whose `status` is `ok` whatever the exit code), the `shell` event after
its `tool_call` (`binary` the resolved path, `command` the trimmed command, output capped at
16 KiB), `compaction` between a turn's `inference` and its calls, a `session_start` /
`session_end` per attempt inside `task_start` / `task_end`, `task_reopened` between attempts.

Under OUT it writes `workdir/ses_*/trace.jsonl`, `effects.toml` (what a user would declare
for `fs_cat` and `fs_stat`, which declare nothing) and `truth.jsonl`: one object per call
that reads, `{"session_id", "line", "redundant", "why", ...}`. The truth knows nothing of
any detector: it compares what calls returned. A read is truly redundant when, since the
last context reset (compaction, `task_start`, `session_start`), an earlier successful call
with the same request returned exactly the same text (`why: repeat`), or an earlier
successful call returned the whole of the same file, byte for byte what it holds now
(`why: covered`; a range, `head`, `grep` or outline of one file is covered by a whole read
of it). A call that failed (an error status, a shell command that exited non-zero) saw
nothing. Build and test commands, writes, `git stash|commit|checkout` are not reads.
"""

from __future__ import annotations

import argparse
import ast
import functools
import hashlib
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from record_project import write_project  # noqa: E402

MAX_SHELL_OUTPUT_BYTES = 16 * 1024  # shell.rs MAX_SHELL_OUTPUT_BYTES
SHELL_INTERPRETERS = ("bash", "sh", "zsh", "fish", "dash", "ksh")  # shell.rs
BYTES_PER_TOKEN = 4
START_MS = 1_796_083_200_000  # 2026-12-01T00:00:00Z
CACHES = {".git", "__pycache__", ".capsule-home", ".pytest_cache", ".ruff_cache"}
SKIP_DIRS = CACHES | {"logs"}  # not project files
TOOLS = ["editor", "code-graph", "fs_cat", "fs_stat", "fetch", "bash", "git", "python"]
SHELL_TOOLS = ("bash", "git", "python")

EFFECTS_TOML = """\
# The legacy reader declares no state_effect; a user of it would declare these.
[fs_cat]
effect = "read"

[fs_stat]
effect = "read"
"""


# ── the runtime's conventions ─────────────────────────────────────────────────


def split_shell_words(command: str) -> list[str]:
    """shell.rs `split_shell_words`: whitespace splits, quotes group, a backslash escapes
    the next character anywhere (inside quotes too); no pipes, no redirection."""
    words: list[str] = []
    current: list[str] = []
    quote: str | None = None
    escaped = False
    for ch in command:
        if escaped:
            current.append(ch)
            escaped = False
        elif ch == "\\":
            escaped = True
        elif quote is None and ch in "\"'":
            quote = ch
        elif quote is not None and ch == quote:
            quote = None
        elif quote is None and ch.isspace():
            if current:
                words.append("".join(current))
                current = []
        else:
            current.append(ch)
    if current:
        words.append("".join(current))
    return words


def compact(value: object) -> str:
    """JSON as serde_json writes a `Value`: no spaces, object keys sorted, UTF-8 kept."""
    return json.dumps(value, separators=(",", ":"), sort_keys=True, ensure_ascii=False)


def utf8_len(text: str) -> int:
    return len(text.encode("utf-8"))


def uuid7_hex(ms: int, rng: random.Random) -> str:
    """32 hex digits of a UUID v7: 48 bits of Unix milliseconds, version 7, variant 10."""
    value = (ms & (2**48 - 1)) << 80 | 0x7 << 76 | rng.getrandbits(12) << 64
    value |= 0b10 << 62 | rng.getrandbits(62)
    return f"{value:032x}"


def lossy(data: bytes) -> str:
    return data.decode("utf-8", errors="replace")


# ── the web: a local HTTP server whose pages a session may change ──────────────

PAGES = {
    "docs/pricing.html": (
        "<h1>Pricing rules</h1>\n<p>A PriceRule gives a discount to items with a tag. The best "
        "matching rule wins; tax is applied after the discount, then the price is rounded to "
        "cents with round(x, 2).</p>\n<p>Discounts above MAX_DISCOUNT are refused.</p>\n"
    ),
    "docs/ruff-format.html": (
        "<h1>ruff format</h1>\n<p>ruff format rewrites files in place in the Black style: "
        "double quotes, magic trailing commas, lines up to line-length.</p>\n"
        "<pre>ruff format src\nruff format --check .</pre>\n"
    ),
    "docs/pytest-fixtures.html": (
        "<h1>pytest fixtures</h1>\n<p>Fixtures defined in conftest.py are available to every "
        "test module in the directory. Use -x to stop at the first failure, -q for quiet "
        "output.</p>\n"
    ),
    "docs/sqlite-pragmas.html": (
        "<h1>SQLite PRAGMA</h1>\n<p>PRAGMA busy_timeout sets how long a connection waits for "
        "a lock. PRAGMA user_version is a free integer, often used for schema versions.</p>\n"
    ),
    "issues/17.html": (
        "<h1>#17 Discounted prices are off by a cent</h1>\n<p>opened by mara</p>\n"
        "<p>final_price(9.99, ('sale',), [PriceRule('sale', 0.1)]) gives 10.79, expected "
        "10.78.</p>\n"
    ),
}
ISSUE = "issues/17.html"
COMMENTS = [
    "<p>comment by lee: the tax is applied to the rounded discounted price.</p>\n",
    "<p>comment by mara: also seen with 19.99 and a 25% rule.</p>\n",
    "<p>comment by ops: please add a regression test.</p>\n",
]


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        pass


class Site:
    """Pages served on 127.0.0.1; `reset()` restores them, `comment()` changes the issue."""

    def __init__(self, root: Path) -> None:
        self.root = root
        handler = functools.partial(_QuietHandler, directory=str(root))
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.base = f"http://127.0.0.1:{self.server.server_address[1]}/"
        serve = functools.partial(self.server.serve_forever, poll_interval=0.05)
        self.thread = threading.Thread(target=serve, daemon=True)
        self.thread.start()
        self.comments = 0

    def reset(self) -> None:
        for rel, text in PAGES.items():
            path = self.root / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        self.comments = 0

    def comment(self) -> None:
        """Someone comments on the issue: the page returns other bytes from now on."""
        if self.comments < len(COMMENTS):
            with open(self.root / ISSUE, "a", encoding="utf-8") as page:
                page.write(COMMENTS[self.comments])
            self.comments += 1

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


# ── the tools ─────────────────────────────────────────────────────────────────


@dataclass
class Outcome:
    """What a tool call returned, as the runtime records it."""

    status: str
    text: str
    duration_ms: int
    state_effect: str | None = None
    resource_id: str | None = None
    shell: dict | None = None  # the shell event's fields after `turn`
    stdout: str | None = None

    @property
    def ok(self) -> bool:
        return self.status == "ok" and (self.shell is None or self.shell["exit_code"] == 0)

    @property
    def payload(self) -> str:
        """What the call returned of the resource: a shell command's stdout, else the text."""
        return self.stdout if self.stdout is not None else self.text


class Workspace:
    """The capsule's workdir (a git repository) and the tools that act on it."""

    #: tools the runtime runs as binaries (each binary its own tool)
    shell_tools: tuple[str, ...] = SHELL_TOOLS

    def __init__(self, root: Path, site: Site, clock: Clock) -> None:
        self.root = root
        self.site = site
        self.clock = clock
        home = root / ".capsule-home"
        path = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
        # shell.rs build_shell_env: a baseline of the host's variables, HOME a synthetic
        # directory in the workdir. Plugins are not auto-loaded by pytest (the recorder's own
        # environment has many); nothing else is set.
        self.env = {"PATH": path, "HOME": str(home), "LANG": "C.UTF-8"}
        self.env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
        self.opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))

    def run(self, tool: str, data: dict) -> Outcome:
        started = time.perf_counter()
        if tool in self.shell_tools:
            outcome = self.shell(tool, data)
        else:
            outcome = getattr(self, "tool_" + tool.replace("-", "_"))(data)
        if outcome.shell is None:
            outcome.duration_ms = round((time.perf_counter() - started) * 1000)
        return outcome

    # shell tools: runtime.rs dispatch_shell_tool, shell.rs execute_shell

    def resolve(self, binary: str) -> str:
        """sandbox.rs resolve_invoked_binary_path: canonical path on PATH, else the name."""
        found = shutil.which(binary, path=self.env["PATH"])
        return os.path.realpath(found) if found else binary

    def shell(self, binary: str, data: dict) -> Outcome:
        command = str(data.get("command", "")).strip()
        if not command:
            text = "shell tool input must include a non-empty 'command' string"
            return Outcome("error", text, 0)
        args = ["-c", command] if binary in SHELL_INTERPRETERS else split_shell_words(command)
        resolved = self.resolve(binary)
        (self.root / ".capsule-home").mkdir(exist_ok=True)
        started = time.perf_counter()
        try:
            proc = subprocess.run(
                [binary, *args], cwd=self.root, env=self.env, capture_output=True, timeout=300
            )
        except OSError as exc:  # spawn failed: an error result and no shell event
            return Outcome("error", str(exc), 0)
        duration_ms = round((time.perf_counter() - started) * 1000)
        code = proc.returncode if proc.returncode >= 0 else 128 - proc.returncode
        out, err = proc.stdout, proc.stderr
        truncated = len(out) > MAX_SHELL_OUTPUT_BYTES or len(err) > MAX_SHELL_OUTPUT_BYTES
        stdout = lossy(out[:MAX_SHELL_OUTPUT_BYTES])
        stderr = lossy(err[:MAX_SHELL_OUTPUT_BYTES])
        text = f"$ {command}\nExit code: {code}\nStdout:\n{stdout}\nStderr:\n{stderr}"
        if truncated:
            log = f"logs/shell-{self.clock.now}.log"
            (self.root / "logs").mkdir(exist_ok=True)
            invoked = " ".join([binary, *args])
            (self.root / log).write_text(
                f"Command: {invoked}\nExit code: {code}\n\nStdout:\n{lossy(out)}\n\n"
                f"Stderr:\n{lossy(err)}\n",
                encoding="utf-8",
            )
            text += f"\n\nOutput truncated. Full output written to {log}"
        shell = {
            "binary": resolved,
            "command": command,
            "exit_code": code,
            "stdout_bytes": utf8_len(stdout),
            "stderr_bytes": utf8_len(stderr),
            "duration_ms": duration_ms,
        }
        return Outcome("ok", text, duration_ms, shell=shell, stdout=stdout)

    # the editor: one tool, the operation in its input; declares read/mutate on success only

    def inside(self, rel: str) -> Path | None:
        path = (self.root / rel).resolve()
        return path if path.is_relative_to(self.root.resolve()) else None

    def tool_editor(self, data: dict) -> Outcome:
        op, rel = data.get("operation"), str(data.get("path", ""))
        path = self.inside(rel)
        if op == "list_dir":
            if path is None or not path.is_dir():
                return Outcome("error", f"error: {rel}: not a directory", 0)
            names = sorted(p.name + ("/" if p.is_dir() else "") for p in path.iterdir())
            text = "\n".join(n for n in names if n != ".git/") + "\n"
            return Outcome("ok", text, 0, state_effect="read")
        if op in ("read_file", "replace") and (path is None or not path.is_file()):
            return Outcome("error", f"error: {rel}: no such file", 0)
        if op == "read_file":
            content = path.read_bytes().decode("utf-8", errors="replace")
            if "start_line" in data:
                lines = content.splitlines(keepends=True)
                start, end = int(data["start_line"]), int(data.get("end_line", len(lines)))
                content = "".join(lines[start - 1 : end])
            return Outcome("ok", content, 0, state_effect="read")
        if op == "write_file":
            if path is None:
                return Outcome("error", f"error: {rel}: outside the workdir", 0)
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(data["content"], encoding="utf-8")
            size = utf8_len(data["content"])
            return Outcome("ok", f"wrote {size} bytes to {rel}", 0, state_effect="mutate")
        if op == "replace":
            content = path.read_text(encoding="utf-8")
            count = content.count(data["old"])
            if count != 1:
                why = "not found" if count == 0 else f"found {count} times"
                return Outcome("error", f"error: old text {why} in {rel}", 0)
            path.write_text(content.replace(data["old"], data["new"]), encoding="utf-8")
            return Outcome("ok", f"replaced 1 occurrence in {rel}", 0, state_effect="mutate")
        return Outcome("error", f"error: unknown operation {op!r}", 0)

    # the code-graph tool: symbols of the Python sources; resource_id = the symbol's id

    def python_files(self) -> list[Path]:
        return sorted(
            p
            for top in ("src", "tests", "scripts")
            for p in (self.root / top).rglob("*.py")
            if "__pycache__" not in p.parts
        )

    def module_of(self, path: Path) -> str:
        rel = path.relative_to(self.root).with_suffix("")
        parts = rel.parts[1:] if rel.parts[0] == "src" else rel.parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        return ".".join(parts)

    def definitions(self) -> Iterator[tuple[str, Path, ast.AST, str]]:
        """(qualified name, file, node, module) of every top-level def, class, method and
        upper-case constant, in file order."""
        for path in self.python_files():
            try:
                tree = ast.parse(path.read_text(encoding="utf-8"))
            except (SyntaxError, UnicodeDecodeError):
                continue
            module = self.module_of(path)
            for node in tree.body:
                if isinstance(node, ast.FunctionDef | ast.ClassDef):
                    yield node.name, path, node, module
                    if isinstance(node, ast.ClassDef):
                        for sub in node.body:
                            if isinstance(sub, ast.FunctionDef):
                                yield f"{node.name}.{sub.name}", path, sub, module
                elif isinstance(node, ast.Assign):
                    for target in node.targets:
                        if isinstance(target, ast.Name) and target.id.isupper():
                            yield target.id, path, node, module

    def find_symbol(self, symbol: str) -> tuple[str, Path, ast.AST] | None:
        for name, path, node, module in self.definitions():
            if name == symbol or name.endswith("." + symbol):
                return f"sym:{module}.{name}", path, node
        return None

    def tool_code_graph(self, data: dict) -> Outcome:
        op = data.get("operation")
        if op == "outline":
            rel = str(data.get("path", ""))
            path = self.inside(rel)
            if path is None or not path.is_file() or path.suffix != ".py":
                return Outcome("error", f"error: {rel}: not a Python file", 0)
            try:
                tree = ast.parse(path.read_text(encoding="utf-8"))
            except SyntaxError as exc:
                return Outcome("error", f"error: {rel}: {exc}", 0)
            rows = []
            for node in tree.body:
                if isinstance(node, ast.FunctionDef | ast.ClassDef):
                    kind = "class" if isinstance(node, ast.ClassDef) else "def"
                    rows.append(f"{node.lineno:>4} {kind} {node.name}")
                    for sub in getattr(node, "body", []):
                        if isinstance(node, ast.ClassDef) and isinstance(sub, ast.FunctionDef):
                            rows.append(f"{sub.lineno:>4}   def {sub.name}")
            module = self.module_of(path)
            return Outcome(
                "ok", "\n".join(rows) + "\n", 0, state_effect="read", resource_id=f"mod:{module}"
            )
        symbol = str(data.get("symbol", ""))
        found = self.find_symbol(symbol)
        if found is None:
            return Outcome("error", f"error: no definition of {symbol!r}", 0)
        sym_id, path, node = found
        rel = path.relative_to(self.root).as_posix()
        name = symbol.rsplit(".", 1)[-1]
        word = re.compile(rf"\b{re.escape(name)}\b")
        if op == "find_definition":
            lines = path.read_text(encoding="utf-8").splitlines()
            body = "\n".join(lines[node.lineno - 1 : node.end_lineno])
            text = f"{rel}:{node.lineno}\n{body}\n"
            return Outcome("ok", text, 0, state_effect="read", resource_id=sym_id)
        if op == "find_references":
            rows = []
            for file in self.python_files():
                for number, line in enumerate(file.read_text(encoding="utf-8").splitlines(), 1):
                    if word.search(line):
                        rows.append(f"{file.relative_to(self.root).as_posix()}:{number}: {line}")
            return Outcome("ok", "\n".join(rows) + "\n", 0, state_effect="read", resource_id=sym_id)
        if op == "rename":
            new = str(data.get("new_name", ""))
            files = occurrences = 0
            for file in self.python_files():
                text = file.read_text(encoding="utf-8")
                changed, count = word.subn(new, text)
                if count:
                    file.write_text(changed, encoding="utf-8")
                    files += 1
                    occurrences += count
            text = f"renamed {name} to {new}: {occurrences} occurrences in {files} files\n"
            return Outcome("ok", text, 0, state_effect="mutate", resource_id=sym_id)
        return Outcome("error", f"error: unknown operation {op!r}", 0)

    # the legacy reader: declares nothing

    def tool_fs_cat(self, data: dict) -> Outcome:
        rel = str(data.get("path", ""))
        path = self.inside(rel)
        if path is None or not path.is_file():
            return Outcome("error", f"fs_cat: cannot open {rel}: No such file or directory", 0)
        raw = path.read_bytes()
        if "max_bytes" in data:
            raw = raw[: int(data["max_bytes"])]
        return Outcome("ok", lossy(raw), 0)

    def tool_fs_stat(self, data: dict) -> Outcome:
        rel = str(data.get("path", ""))
        path = self.inside(rel)
        if path is None or not path.exists():
            return Outcome("error", f"fs_stat: {rel}: No such file or directory", 0)
        st = path.stat()
        modified = datetime.fromtimestamp(st.st_mtime_ns / 1e9, UTC).isoformat()
        kind = "directory" if path.is_dir() else "file"
        text = (
            f"path: {rel}\ntype: {kind}\nsize: {st.st_size}\nmode: {st.st_mode & 0o777:o}\n"
            f"modified: {modified}\n"
        )
        return Outcome("ok", text, 0)

    # web fetch: declares the URL as its resource and `read`, on success only

    def tool_fetch(self, data: dict) -> Outcome:
        url = str(data.get("url", ""))
        try:
            with self.opener.open(url, timeout=10) as response:
                body = lossy(response.read())
        except urllib.error.HTTPError as exc:
            return Outcome("error", f"fetch {url}: HTTP {exc.code} {exc.reason}", 0)
        except (urllib.error.URLError, ValueError) as exc:
            return Outcome("error", f"fetch {url}: {exc}", 0)
        return Outcome("ok", body, 0, state_effect="read", resource_id=url)


# ── the trace, as the runtime writes it ───────────────────────────────────────


@dataclass
class Clock:
    """Unix milliseconds of the recorded world: model latency is simulated, tool time is real."""

    now: int

    def tick(self, ms: int) -> int:
        self.now += max(ms, 0)
        return self.now


class TraceWriter:
    """trace.rs TraceWriter: one per launch; totals run over the launch, task counters reset
    at every task_start."""

    def __init__(
        self,
        session_id: str,
        clock: Clock,
        capsule: str,
        include_output: bool,
        tools: list[str] | None = None,
        shell_tools: tuple[str, ...] = SHELL_TOOLS,
        model: str = "claude-sonnet-4-5",
    ):
        self.session_id = session_id
        self.clock = clock
        self.capsule = capsule
        self.include_output = include_output
        self.tools = TOOLS if tools is None else tools
        self.shell_tools = shell_tools
        self.model = model
        self.lines: list[str] = []
        self.started_ms = clock.now
        self.totals = dict.fromkeys(("turns", "in", "out", "tools", "shells"), 0)
        self.task = dict(self.totals)
        self.task_started_ms = clock.now

    def write(self, event_type: str, **fields: object) -> int:
        event = {"event_type": event_type, "session_id": self.session_id}
        event["timestamp"] = self.clock.now
        event.update(fields)
        self.lines.append(json.dumps(event, separators=(",", ":"), ensure_ascii=False))
        return len(self.lines)

    def session_start(self, max_turns: int) -> None:
        grants = {
            "declared_containment": "scoped",
            "achieved_containment": "scoped",
            "floor_met": True,
            "enforcement_tier": "landlock+seccomp",
            "filesystem_scope": None,
            "workdir_exec": False,
            "network_allow": ["127.0.0.1"],
            "unix_sockets": False,
            "shell_allow": list(self.shell_tools),
            "spawn_allow": [],
            "env_allow": [],
            "interpreter_runtime_grants": [],
            "staged_runtime_grants": [],
        }
        prompt = f"You are {self.capsule}. Work in the repository; keep the tests passing."
        self.write(
            "session_start",
            capsule_name=self.capsule,
            capsule_version="0.4.2",
            model=self.model,
            max_turns=max_turns,
            capabilities=["filesystem", "network", "shell"],
            tools_declared=self.tools,
            containment_declared="scoped",
            containment_achieved="scoped",
            workdir_exec=False,
            effective_grants=grants,
            system_prompt_source="manifest",
            system_prompt_sha256=hashlib.sha256(prompt.encode()).hexdigest(),
        )

    def inference(self, turn: int, input_tokens: int, output_tokens: int, tool: str | None):
        decision = "tool_call" if tool else "end_turn"
        self.write(
            "inference",
            turn=turn,
            input_tokens=input_tokens,
            output_tokens=output_tokens,
            decision=decision,
            tool_name=tool,
        )
        for counters in (self.totals, self.task):
            counters["turns"] += 1
            counters["in"] += input_tokens
            counters["out"] += output_tokens

    def tool_call(self, turn: int, tool: str, data: dict, outcome: Outcome) -> int:
        # serde_json writes the input object with its keys sorted
        fields: dict[str, object] = {"turn": turn, "tool_name": tool}
        fields["input"] = json.loads(compact(data))
        fields["input_bytes"] = utf8_len(compact(data))
        if self.include_output:
            fields["output"] = outcome.text
        fields["output_bytes"] = utf8_len(outcome.text)
        fields["duration_ms"] = outcome.duration_ms
        fields["status"] = outcome.status
        if outcome.state_effect:
            fields["state_effect"] = outcome.state_effect
        if outcome.resource_id:
            fields["resource_id"] = outcome.resource_id
        line = self.write("tool_call", **fields)
        for counters in (self.totals, self.task):
            counters["tools"] += 1
        if outcome.shell is not None:
            self.write("shell", turn=turn, **outcome.shell)
            for counters in (self.totals, self.task):
                counters["shells"] += 1
        return line

    def compaction(self, turn: int, before: int, after: int) -> None:
        self.write("compaction", turn=turn, tokens_before=before, tokens_after=after)

    def session_end(self, status: str) -> None:
        self.write(
            "session_end",
            total_turns=self.totals["turns"],
            total_input_tokens=self.totals["in"],
            total_output_tokens=self.totals["out"],
            total_tool_calls=self.totals["tools"],
            total_shell_calls=self.totals["shells"],
            duration_ms=self.clock.now - self.started_ms,
            exit_status=status,
        )

    def task_start(self, task_id: str, context_id: str, source: str, size: int) -> None:
        self.task = dict.fromkeys(self.task, 0)
        self.task_started_ms = self.clock.now
        self.write(
            "task_start",
            task_id=task_id,
            context_id=context_id,
            source=source,
            message_parts_bytes=size,
        )

    def task_end(self, task_id: str, status: str, reopens: int) -> None:
        self.write(
            "task_end",
            task_id=task_id,
            exit_status=status,
            duration_ms=self.clock.now - self.task_started_ms,
            turns=self.task["turns"],
            input_tokens=self.task["in"],
            output_tokens=self.task["out"],
            tool_calls=self.task["tools"],
            shell_calls=self.task["shells"],
            reopen_count=reopens,
        )


# ── the truth ─────────────────────────────────────────────────────────────────


@dataclass(frozen=True)
class Read:
    """What a call reads, as the script that issues it knows: `kind` is one of file (the
    output is a function of one file's content: a read, a range, a grep or an outline of it),
    listing, search, git, symbol, web, stat; `file` the file, relative to the workdir.

    `files`: the output holds several files, each whole or cut (`cat a b`, a tool reading many
    files at once); `numbered`: the tool puts a line number before every line (`cat -n`,
    `nl -ba`), so that output holds the whole file when, numbers taken off, it is the file."""

    kind: str
    file: str | None = None
    files: tuple[str, ...] = ()
    numbered: bool = False


NUMBER_PREFIX = re.compile(r"^ *\d+\t", re.MULTILINE)  # cat -n, nl -ba: "%6d\t" a line


def unnumber(text: str) -> str:
    """The text of `cat -n` or `nl -ba` output without its line numbers."""
    return NUMBER_PREFIX.sub("", text)


@dataclass
class Held:
    line: int
    tool: str
    text: str
    state: str  # digest of the workspace when it was read
    stamp: tuple | None  # (mtime_ns, size) of the file it came from; one per file of `files`


class Truth:
    """What the model holds, and for each reading call whether it already held it."""

    #: directories whose changes are not changes of the project (tool caches, build outputs)
    caches: frozenset[str] | set[str] = CACHES

    def __init__(self, session_id: str, workspace: Workspace) -> None:
        self.session_id = session_id
        self.ws = workspace
        self.rows: list[dict] = []
        self.ever: set[tuple] = set()
        self.reset()

    def reset(self) -> None:
        """A new context: the model holds nothing."""
        self.requests: dict[tuple[str, str], list[Held]] = {}  # every successful read of it
        self.whole: dict[str, list[Held]] = {}  # every whole read of a file
        self.parts: set[str] = set()  # files read in part only

    def state(self) -> str:
        """A digest of the workspace: every file's name, size and mtime (tool caches aside),
        and git's HEAD and refs."""
        digest = hashlib.sha256()
        for dirpath, dirnames, filenames in os.walk(self.ws.root):
            rel = os.path.relpath(dirpath, self.ws.root)
            dirnames[:] = sorted(d for d in dirnames if d not in self.caches)
            for name in sorted(filenames):
                st = os.stat(os.path.join(dirpath, name))
                digest.update(f"{rel}/{name}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
        git = self.ws.root / ".git"
        for ref in [git / "HEAD", *sorted((git / "refs").rglob("*"))]:
            if ref.is_file():
                digest.update(ref.read_bytes())
        return digest.hexdigest()

    def stamp(self, rel: str) -> tuple[int, int] | None:
        try:
            st = (self.ws.root / rel).stat()
        except OSError:
            return None
        return st.st_mtime_ns, st.st_size

    def content(self, rel: str) -> str | None:
        path = self.ws.root / rel
        return lossy(path.read_bytes()) if path.is_file() else None

    def request(self, tool: str, data: dict, outcome: Outcome) -> tuple[tuple, str]:
        """What makes two calls the same request, and what each returned to compare: here the
        tool and its input, and the whole text of the result."""
        return (tool, compact(data)), outcome.text

    def observe(self, line: int, tool: str, data: dict, outcome: Outcome, read: Read) -> dict:
        """The truth of the reading call at `line`; then the model holds what it returned."""
        if read.files:
            return self.observe_files(line, tool, data, outcome, read)
        key, text = self.request(tool, data, outcome)
        file = os.path.normpath(read.file) if read.file else None
        content = self.content(file) if file else None
        kind = read.kind
        if content is not None:  # what it returned of the file decides: all of it, or not
            payload = outcome.payload
            whole = payload == content or (read.numbered and unnumber(payload) == content)
            kind = "file" if whole else "part"
        state = self.state()
        stamp = self.stamp(file) if file else None
        row: dict[str, object] = {"session_id": self.session_id, "line": line}
        row |= {"redundant": False, "why": "first", "kind": kind, "tool": tool}
        row["request"] = describe(tool, data)
        same = self.requests.get(key, [])
        wholes = self.whole.get(file, []) if file else []
        repeat = [h for h in same if h.text == text]
        covering = [h for h in wholes if h.text == content]
        prior: Held | None = None
        if not outcome.ok:
            row["why"] = "failed"
        elif repeat:
            prior, row["why"], row["redundant"] = repeat[-1], "repeat", True
            latest = same[-1]
        elif covering:
            prior, row["why"], row["redundant"] = covering[-1], "covered", True
            latest = wholes[-1]
        elif same or wholes:
            prior, row["why"] = (same or wholes)[-1], "changed"
        elif (key, text) in self.ever or (file is not None and (file, content) in self.ever):
            row["why"] = "after_reset"
        elif file is not None and file in self.parts:
            row["why"] = "not_covered"  # only parts of this file were read before
        if prior is not None:
            row["prior_line"] = prior.line
            row["prior_tool"] = prior.tool
        if row["redundant"]:
            assert prior is not None
            if latest is not prior:  # read since, with other bytes, and now back
                row["between"] = "changed_and_back"
            elif file is not None and prior.stamp != stamp:
                row["between"] = "rewritten_same_bytes"
            elif prior.state == state:
                row["between"] = "nothing"
            else:
                row["between"] = "other_changes"
        if outcome.ok:
            self.requests.setdefault(key, []).append(Held(line, tool, text, state, stamp))
            self.ever.add((key, text))
            if kind == "file" and file is not None:
                self.whole.setdefault(file, []).append(Held(line, tool, content, state, stamp))
                self.ever.add((file, content))
            elif file is not None:
                self.parts.add(file)
        self.rows.append(row)
        return row

    def observe_files(self, line: int, tool: str, data: dict, outcome: Outcome, read: Read):
        """The truth of a call whose output holds several files: redundant when the same
        request returned the same text (`repeat`), or when every file was read whole before
        and holds those bytes now (`covered`). Afterwards the model holds whole each file whose
        content the output holds whole."""
        key, text = self.request(tool, data, outcome)
        files = list(dict.fromkeys(os.path.normpath(f) for f in read.files))
        contents = {f: self.content(f) for f in files}
        stamps = {f: self.stamp(f) for f in files}
        state = self.state()
        row: dict[str, object] = {"session_id": self.session_id, "line": line}
        row |= {"redundant": False, "why": "first", "kind": read.kind, "tool": tool}
        row["request"] = describe(tool, data)
        same = self.requests.get(key, [])
        repeat = [h for h in same if h.text == text]
        covers = {f: [h for h in self.whole.get(f, []) if h.text == contents[f]] for f in files}
        covered = all(contents[f] is not None and covers[f] for f in files)
        earlier = [h for f in files for h in self.whole.get(f, [])]
        prior: Held | None = None
        between = None
        if not outcome.ok:
            row["why"] = "failed"
        elif repeat:
            prior, row["why"], row["redundant"] = repeat[-1], "repeat", True
            if same[-1] is not prior:
                between = "changed_and_back"
            elif prior.stamp != tuple(stamps[f] for f in files):
                between = "rewritten_same_bytes"
        elif covered:
            last = {f: covers[f][-1] for f in files}
            prior = max(last.values(), key=lambda h: h.line)
            row["why"], row["redundant"] = "covered", True
            if any(self.whole[f][-1] is not last[f] for f in files):
                between = "changed_and_back"
            elif any(last[f].stamp != stamps[f] for f in files):
                between = "rewritten_same_bytes"
        elif same or earlier:
            prior, row["why"] = max([*same, *earlier], key=lambda h: h.line), "changed"
        elif (key, text) in self.ever or all((f, contents[f]) in self.ever for f in files):
            row["why"] = "after_reset"
        elif any(f in self.parts for f in files):
            row["why"] = "not_covered"
        if prior is not None:
            row["prior_line"] = prior.line
            row["prior_tool"] = prior.tool
        if row["redundant"]:
            assert prior is not None
            if between is None:  # since the oldest read it rests on, did anything change?
                oldest = prior
                if row["why"] == "covered":
                    oldest = min(last.values(), key=lambda h: h.line)
                between = "nothing" if oldest.state == state else "other_changes"
            row["between"] = between
        if outcome.ok:
            held = tuple(stamps[f] for f in files)
            self.requests.setdefault(key, []).append(Held(line, tool, text, state, held))
            self.ever.add((key, text))
            for f in files:
                content = contents[f]
                if content is not None and content in outcome.payload:
                    self.whole.setdefault(f, []).append(Held(line, tool, content, state, stamps[f]))
                    self.ever.add((f, content))
                elif content is not None:
                    self.parts.add(f)
        self.rows.append(row)
        return row


def describe(tool: str, data: dict) -> str:
    """A short human form of a request, for listings of findings."""
    if "command" in data:
        return str(data["command"])
    if tool == "fetch":
        return str(data.get("url"))
    rest = {k: v for k, v in data.items() if k not in ("operation", "content", "old", "new")}
    words = [str(data["operation"])] if "operation" in data else []
    words += [f"{k}={v}" for k, v in sorted(rest.items())]
    return " ".join(words)


# ── a session: turns, context, compaction ─────────────────────────────────────


class Recorder:
    """Runs calls, writes their lines, keeps the model's context size and the truth."""

    def __init__(self, writer: TraceWriter, ws: Workspace, truth: Truth, rng: random.Random):
        self.writer = writer
        self.ws = ws
        self.truth = truth
        self.rng = rng
        self.turn = 0
        self.context_tokens = 0
        self.window = 0
        self.calls = 0

    def attempt_start(self, max_turns: int, task_bytes: int) -> None:
        self.writer.session_start(max_turns)
        self.truth.reset()
        self.turn = 0
        self.context_tokens = 2600 + task_bytes // BYTES_PER_TOKEN

    def attempt_end(self, status: str = "ok") -> None:
        self.writer.clock.tick(self.rng.randint(500, 3000))
        out = self.rng.randint(60, 500)
        self.writer.inference(self.turn, self.context_tokens, out, None)
        self.writer.session_end(status)

    def think(self, tool: str) -> None:
        self.writer.clock.tick(self.rng.randint(700, 6000))
        out = self.rng.randint(40, 420)
        self.writer.inference(self.turn, self.context_tokens, out, tool)
        self.context_tokens += out
        if self.window and self.context_tokens >= self.window:
            self.compact()

    def compact(self) -> None:
        """The context is summarised (agent.rs: after the turn's inference, before its calls)."""
        after = self.rng.randint(1800, 4200)
        self.writer.compaction(self.turn, self.context_tokens, after)
        self.context_tokens = after
        self.truth.reset()

    def step(self, *calls: tuple[str, dict, Read | None]) -> list[Outcome]:
        """One turn: the model asks for one or more calls; each runs and is written."""
        self.think(calls[0][0])
        outcomes = []
        for tool, data, read in calls:
            outcome = self.ws.run(tool, data)
            self.writer.clock.tick(outcome.duration_ms + self.rng.randint(1, 15))
            line = self.writer.tool_call(self.turn, tool, data, outcome)
            if read is not None:
                self.truth.observe(line, tool, data, outcome, read)
            self.context_tokens += (utf8_len(compact(data)) + utf8_len(outcome.text)) // 4 + 12
            self.calls += 1
            outcomes.append(outcome)
        self.turn += 1
        return outcomes

    def call(self, tool: str, data: dict, read: Read | None = None) -> Outcome:
        return self.step((tool, data, read))[0]


# ── the agent: scripted behaviour with seeded choices ─────────────────────────


@dataclass(frozen=True)
class Task:
    title: str
    focus: tuple[str, ...]
    symbols: tuple[str, ...]
    patterns: tuple[str, ...]
    page: str


TASKS = [
    Task(
        "Fix the rounding of discounted prices (issue #17)",
        ("src/stockroom/pricing.py", "tests/test_pricing.py", "src/stockroom/models.py"),
        ("apply_discount", "final_price", "PriceRule", "price_with_tax", "DEFAULT_TAX_RATE"),
        ("round(", "discount", "DEFAULT_TAX_RATE", "final_price"),
        "issues/17.html",
    ),
    Task(
        "Refuse stock above a location's capacity",
        ("src/stockroom/store.py", "src/stockroom/models.py", "tests/test_store.py"),
        ("Store", "add_item", "Location", "fits", "MAX_LOCATIONS"),
        ("capacity", "add_item", "fits(", "DEFAULT_LOCATION"),
        "docs/pytest-fixtures.html",
    ),
    Task(
        "Document the API routes and their errors",
        ("docs/api.md", "src/stockroom/api/routes.py", "src/stockroom/api/handlers.py"),
        ("dispatch", "list_items", "PAGE_LIMIT", "take_item", "ROUTES"),
        ("PAGE_LIMIT", "ROUTES", "404", "return 4"),
        "docs/pytest-fixtures.html",
    ),
    Task(
        "Report the line of bad CSV rows in the CLI",
        ("src/stockroom/parser.py", "src/stockroom/cli.py", "tests/test_parser.py"),
        ("parse_line", "parse_csv", "ParseError", "build_store", "FIELDS"),
        ("ParseError", "line_number", "FIELDS", "EXIT_BAD_INPUT"),
        "docs/pytest-fixtures.html",
    ),
    Task(
        "Batch the database writes",
        ("src/stockroom/db/queries.py", "src/stockroom/db/connection.py", "tests/test_db.py"),
        ("save_store", "load_store", "BATCH_SIZE", "connect", "migrate"),
        ("BATCH_SIZE", "executemany", "commit()", "PRAGMA"),
        "docs/sqlite-pragmas.html",
    ),
    Task(
        "Prepare release 0.3.2",
        ("pyproject.toml", "CHANGELOG.md", "src/stockroom/__init__.py", "README.md"),
        ("Store", "Item"),
        ("version", "0.3", "__version__"),
        "docs/ruff-format.html",
    ),
    Task(
        "Tidy the helpers and format the code",
        ("src/stockroom/utils.py", "tests/test_utils.py", "src/stockroom/pricing.py"),
        ("clamp", "chunked", "slugify", "MAX_CHUNK"),
        ("clamp", "MAX_CHUNK", "TypeVar", "yield"),
        "docs/ruff-format.html",
    ),
    Task(
        "Add per-tag totals to the report",
        ("src/stockroom/report.py", "tests/test_report.py", "docs/usage.md"),
        ("summarise", "render_report", "COLUMN_WIDTH"),
        ("by ==", "COLUMN_WIDTH", "summarise", "untagged"),
        "docs/pricing.html",
    ),
]


def editor(operation: str, path: str, **fields: object) -> tuple[str, dict]:
    """An editor call: (tool, input)."""
    return "editor", {"operation": operation, "path": path, **fields}


RENAMES = {"clamp": "clamp_value", "chunked": "in_chunks", "summarise": "summarize"}
RENAMES |= {"BATCH_SIZE": "WRITE_BATCH", "PAGE_LIMIT": "MAX_PAGE"}
CONSTANT = re.compile(r"^([A-Z_]+) = (\d+(?:\.\d+)?)$", re.MULTILINE)


class Agent:
    """Picks what to do next: explore, read, search, edit, test, review; and re-reads."""

    def __init__(self, rec: Recorder, ws: Workspace, site: Site, rng: random.Random):
        self.rec = rec
        self.ws = ws
        self.site = site
        self.rng = rng
        self.task = TASKS[0]
        self.recent: list[str] = []
        self.edited: list[str] = []
        self.fetched: list[str] = []
        self.looked: list[tuple[str, dict, Read]] = []  # listings and git queries made
        self.branch = "main"
        self.episodes = [
            (self.read, 26),
            (self.reread, 9),
            (self.ranged, 8),
            (self.search, 10),
            (self.listing, 6),
            (self.relook, 4),
            (self.edit, 11),
            (self.noop_edit, 1.5),
            (self.failed_edit, 2),
            (self.format, 3),
            (self.test, 6),
            (self.review, 6),
            (self.stash, 2),
            (self.revert_file, 2),
            (self.commit, 3),
            (self.branch_switch, 1),
            (self.file_ops, 2),
            (self.stat, 3),
            (self.fetch, 4),
            (self.failed_read, 3),
            (self.rename, 1),
            (self.script, 2),
            (self.big_file, 1),
        ]

    # choices

    def files(self, suffix: str = "") -> list[str]:
        found = []
        for dirpath, dirnames, filenames in os.walk(self.ws.root):
            dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS)
            for name in filenames:
                rel = os.path.relpath(os.path.join(dirpath, name), self.ws.root)
                if rel.endswith(suffix):
                    found.append(rel)
        return sorted(found)

    def pick(self, suffix: str = "") -> str:
        existing = set(self.files(suffix))
        focus = [f for f in self.task.focus if f in existing]
        recent = [f for f in self.recent[-6:] if f in existing]
        r = self.rng.random()
        if focus and r < 0.55:
            return self.rng.choice(focus)
        if recent and r < 0.8:
            return self.rng.choice(recent)
        return self.rng.choice(sorted(existing))

    def spell(self, path: str) -> str:
        return "./" + path if self.rng.random() < 0.05 else path

    def saw(self, path: str) -> None:
        if path in self.recent:
            self.recent.remove(path)
        self.recent.append(path)

    # reads of one file

    def read_with(self, path: str, tool: str | None = None) -> Outcome:
        tool = tool or self.rng.choices(["editor", "cat", "fs_cat"], [55, 27, 18])[0]
        read = Read("file", path)
        self.saw(path)
        if tool == "editor":
            data = {"operation": "read_file", "path": self.spell(path)}
            return self.rec.call("editor", data, read)
        if tool == "cat":
            return self.rec.call("bash", {"command": f"cat {self.spell(path)}"}, read)
        data = {"path": self.spell(path)}
        if self.rng.random() < 0.35:
            data["max_bytes"] = self.rng.choice([2048, 4096, 8192, 65536])
        return self.rec.call("fs_cat", data, read)

    def read(self) -> None:
        path = self.pick()
        others = [f for f in self.task.focus if f != path and (self.ws.root / f).is_file()]
        if others and self.rng.random() < 0.15:  # two files in one turn
            pair = [path, self.rng.choice(others)]
            self.rec.step(
                *[("editor", {"operation": "read_file", "path": p}, Read("file", p)) for p in pair]
            )
            for p in pair:
                self.saw(p)
            return
        self.read_with(path)

    def reread(self) -> None:
        """Read again something read a moment ago (often through another tool)."""
        recent = [f for f in self.recent[-4:] if (self.ws.root / f).is_file()]
        if not recent:
            return self.read()
        self.read_with(self.rng.choice(recent))

    def ranged(self) -> None:
        path = self.pick(".py") if self.rng.random() < 0.8 else self.pick()
        lines = (self.ws.root / path).read_text(encoding="utf-8").count("\n")
        start = self.rng.randint(1, max(1, lines - 10))
        end = start + self.rng.randint(8, 40)
        read = Read("file", path)
        form = self.rng.choice(["editor", "editor", "head", "tail", "sed", "grep"])
        whole_first = self.rng.random() < 0.3
        if whole_first:
            self.read_with(path)
        if form == "editor":
            data = {"operation": "read_file", "path": path, "start_line": start, "end_line": end}
            self.rec.call("editor", data, read)
        elif form == "head":
            self.rec.call("bash", {"command": f"head -n {end} {path}"}, read)
        elif form == "tail":
            self.rec.call("bash", {"command": f"tail -n {end - start} {path}"}, read)
        elif form == "sed":
            self.rec.call("bash", {"command": f"sed -n '{start},{end}p' {path}"}, read)
        else:
            pattern = self.rng.choice(self.task.patterns)
            self.rec.call("bash", {"command": f"grep -n '{pattern}' {path}"}, read)
        self.saw(path)
        if not whole_first and self.rng.random() < 0.45:
            self.read_with(path)

    def failed_read(self) -> None:
        path = self.pick()
        head, _, tail = path.rpartition("/")
        wrong = f"{head}/{tail.replace('_', '-', 1) if '_' in tail else 'old_' + tail}"
        wrong = wrong.lstrip("/")
        if (self.ws.root / wrong).exists():
            wrong = wrong + ".orig"
        tool = self.rng.choice(["editor", "cat", "fs_cat"])
        read = Read("file", wrong)
        if tool == "editor":
            self.rec.call("editor", {"operation": "read_file", "path": wrong}, read)
        elif tool == "cat":
            self.rec.call("bash", {"command": f"cat {wrong}"}, read)
        else:
            self.rec.call("fs_cat", {"path": wrong}, read)
        if self.rng.random() < 0.3:
            self.listing(path.rpartition("/")[0] or ".")
        self.read_with(path, tool)

    def big_file(self) -> None:
        path = "data/catalog.csv"
        if not (self.ws.root / path).is_file():
            return self.read()
        forms = [
            ("bash", {"command": f"cat {path}"}),
            ("bash", {"command": f"head -n 20 {path}"}),
            ("bash", {"command": f"wc -l {path}"}),
            ("fs_cat", {"path": path, "max_bytes": 8192}),
            ("editor", {"operation": "read_file", "path": path}),
            ("bash", {"command": f"grep -c ',cellar,' {path}"}),
        ]
        for tool, data in self.rng.sample(forms, self.rng.randint(1, 3)):
            self.rec.call(tool, data, Read("file", path))

    # searches, listings, git

    def search(self) -> None:
        r = self.rng.random()
        pattern = self.rng.choice(self.task.patterns)
        if r < 0.35:
            where = self.rng.choice(["src", "src tests", "src/stockroom", "."])
            command = f"grep -rn '{pattern}' {where}"
            if where == ".":
                command = f"grep -rn --include='*.py' '{pattern}' ."
            if self.rng.random() < 0.25:
                command += " | head -20"
            self.rec.call("bash", {"command": command}, Read("search"))
        elif r < 0.5:
            path = self.pick()
            self.rec.call("bash", {"command": f"grep -n '{pattern}' {path}"}, Read("file", path))
        elif r < 0.85:
            symbol = self.rng.choice(self.task.symbols)
            op = self.rng.choice(["find_definition", "find_references"])
            self.rec.call("code-graph", {"operation": op, "symbol": symbol}, Read("symbol"))
        else:
            path = self.pick(".py")
            self.rec.call("code-graph", {"operation": "outline", "path": path}, Read("file", path))

    def listing(self, where: str | None = None) -> None:
        dirs = [".", "src/stockroom", "src/stockroom/api", "tests", "docs", "src/stockroom/db"]
        where = where or self.rng.choice(dirs)
        r = self.rng.random()
        if r < 0.3:
            self.look("bash", {"command": "ls" if where == "." else f"ls {where}"}, "listing")
        elif r < 0.45:
            self.look("bash", {"command": f"ls -la {where}"}, "listing")
        elif r < 0.65:
            self.look("editor", {"operation": "list_dir", "path": where}, "listing")
        elif r < 0.75:
            command = f"find {where} -name '*.py' | sort"
            self.look("bash", {"command": command}, "listing")
        else:
            command = self.rng.choice(["status", "status --short", "status"])
            self.look("git", {"command": command}, "git")

    def look(self, tool: str, data: dict, kind: str) -> Outcome:
        """A listing or a git query, remembered so that it can be run again."""
        self.looked.append((tool, data, Read(kind)))
        return self.rec.call(tool, data, Read(kind))

    def relook(self) -> None:
        """Run again a listing or `git status` made earlier (something may have changed)."""
        if not self.looked:
            return self.listing()
        tool, data, read = self.rng.choice(self.looked[-3:])
        self.rec.call(tool, data, read)

    def review(self) -> None:
        edited = [f for f in self.edited if (self.ws.root / f).is_file()]
        forms: list[tuple[str, str]] = [
            ("git", "diff"),
            ("git", "status"),
            ("git", "log --oneline -5"),
            ("git", "diff --stat"),
            ("bash", "git status --short"),
            ("git", "show --stat HEAD"),
        ]
        if edited:
            path = self.rng.choice(edited)
            forms += [("git", f"diff {path}"), ("git", f"show HEAD:{path}")]
            forms += [("bash", f"git diff {path} | head -40")]
        for tool, command in self.rng.sample(forms, self.rng.randint(1, 2)):
            self.look(tool, {"command": command}, "git")

    def stat(self) -> None:
        path = self.pick()
        self.rec.call("fs_stat", {"path": path}, Read("stat"))
        r = self.rng.random()
        if r < 0.4:
            self.read_with(path, "fs_cat")
            if self.rng.random() < 0.5:
                self.rec.call("fs_stat", {"path": path}, Read("stat"))
                self.read_with(path, "fs_cat")
        elif r < 0.6:
            self.rec.call("fs_stat", {"path": path}, Read("stat"))

    def fetch(self) -> None:
        pages = [self.task.page, *self.rng.sample(sorted(PAGES), 2)]
        page = self.rng.choice(self.fetched) if self.fetched and self.rng.random() < 0.4 else None
        page = page or self.rng.choice(pages)
        if page == ISSUE and self.rng.random() < 0.25:
            self.site.comment()  # someone comments on the issue meanwhile
        self.rec.call("fetch", {"url": self.site.base + page}, Read("web"))
        if page not in self.fetched:
            self.fetched.append(page)
        if self.rng.random() < 0.1:
            self.rec.call("fetch", {"url": self.site.base + "docs/missing.html"}, Read("web"))

    # changes

    def edit_call(self, path: str) -> tuple[str, dict] | None:
        """A real edit of `path`: (tool, input), chosen among what fits its content."""
        text = (self.ws.root / path).read_text(encoding="utf-8")
        options = []
        constants = CONSTANT.findall(text)
        if constants:
            name, value = self.rng.choice(constants)
            new = str(int(float(value) * 2)) if "." not in value else f"{float(value) + 0.05:.2f}"
            options.append(
                ("bash", {"command": f"sed -i 's/^{name} = {value}$/{name} = {new}/' {path}"})
            )
            old = f"{name} = {value}"
            options.append(editor("replace", path, old=old, new=f"{name} = {new}"))
        returns = [ln for ln in text.splitlines() if ln.strip().startswith("return ")]
        returns = [ln for ln in returns if text.count(ln) == 1 and "#" not in ln]
        if returns:
            line = self.rng.choice(returns)
            options.append(editor("replace", path, old=line, new=line + "  # checked"))
        n = self.rng.randint(1, 99)
        if path.endswith(".py"):
            extra = f"\n\ndef _helper_{n}(value):\n    return value\n"
            options.append(editor("write_file", path, content=text + extra))
            options.append(("bash", {"command": f"printf '\\n# reviewed {n}\\n' >> {path}"}))
            options.append(("bash", {"command": f"sed -i '2i # edited {n}' {path}"}))
        elif path.endswith((".md", ".toml")):
            options.append(("bash", {"command": f"echo '# note {n}' >> {path}"}))
            options.append(editor("write_file", path, content=text + f"\n# note {n}\n"))
        return self.rng.choice(options) if options else None

    def edit(self) -> None:
        candidates = [f for f in self.task.focus if (self.ws.root / f).is_file()]
        candidates = [f for f in candidates if f.endswith((".py", ".md", ".toml"))]
        if not candidates:
            return self.read()
        path = self.rng.choice(candidates)
        if path not in self.recent and self.rng.random() < 0.7:
            self.read_with(path)
        call = self.edit_call(path)
        if call is None:
            return
        tool, data = call
        if tool == "bash" and self.rng.random() < 0.2:  # change one file, read another
            other = self.pick()
            data = {"command": f"{data['command']} && cat {other}"}
            self.rec.call(tool, data, Read("file", other))
            self.saw(other)
        else:
            self.rec.call(tool, data)
        if path not in self.edited:
            self.edited.append(path)
        r = self.rng.random()
        if r < 0.5:
            self.read_with(path)
        elif r < 0.7:
            self.test()

    def noop_edit(self) -> None:
        """A change that leaves the bytes as they were: a substitution that matches nothing,
        the formatter on a file already in style, a file written back unchanged."""
        path = self.pick(".py")
        self.read_with(path)
        if self.rng.random() < 0.4:
            self.listing()
        r = self.rng.random()
        if r < 0.4:
            pattern = self.rng.choice(self.task.patterns).replace("(", "")
            command = f"sed -i 's/{pattern} (old)/{pattern}/' {path}"
            self.rec.call("bash", {"command": command})
        elif r < 0.7:
            self.rec.call("bash", {"command": f"ruff format {path}"})
        else:
            content = (self.ws.root / path).read_text(encoding="utf-8")
            self.rec.call("editor", {"operation": "write_file", "path": path, "content": content})
        self.read_with(path)

    def failed_edit(self) -> None:
        """A replace whose old text is not in the file (indentation got wrong): it fails."""
        path = self.pick(".py")
        self.read_with(path)
        lines = [ln for ln in (self.ws.root / path).read_text(encoding="utf-8").splitlines()]
        indented = [ln for ln in lines if ln.startswith("    ") and ln.strip()]
        old = self.rng.choice(indented).strip() if indented else "def main("
        old = "  " + old if indented else old
        data = {"operation": "replace", "path": path, "old": old, "new": old + "  # fixed"}
        self.rec.call("editor", data)
        self.read_with(path, "editor")

    def format(self) -> None:
        target = self.rng.choice(["src", "src tests", self.pick(".py")])
        before = self.pick(".py")
        if self.rng.random() < 0.6:
            self.read_with(before)
        self.rec.call("bash", {"command": f"ruff format {target}"})
        self.read_with(before if self.rng.random() < 0.7 else self.pick(".py"))

    def test(self) -> None:
        tests = [f for f in self.task.focus if f.startswith("tests/")]
        r = self.rng.random()
        if r < 0.35:
            self.rec.call("bash", {"command": "python -m pytest -q"})
        elif r < 0.6 and tests:
            self.rec.call("bash", {"command": f"python -m pytest -q {tests[0]}"})
        elif r < 0.8:
            self.rec.call("python", {"command": "-m pytest -q -x"})
        else:
            self.rec.call("python", {"command": "-m compileall -q src"})

    def stash(self) -> None:
        """Put the changes aside (run the tests without them), then bring them back."""
        edited = [f for f in self.edited if (self.ws.root / f).is_file()]
        if not edited:
            return self.edit()
        path = self.rng.choice(edited)
        if self.rng.random() < 0.5:
            self.read_with(path)
        self.rec.call("git", {"command": "stash"})
        self.read_with(path)
        if self.rng.random() < 0.5:
            self.test()
        self.rec.call("git", {"command": "stash pop"})
        self.read_with(path)

    def revert_file(self) -> None:
        edited = [f for f in self.edited if (self.ws.root / f).is_file()]
        path = self.rng.choice(edited) if edited else self.pick()
        self.rec.call("git", {"command": f"checkout -- {path}"})
        self.read_with(path)

    def commit(self) -> None:
        if self.rng.random() < 0.4:
            self.look("git", {"command": "status"}, "git")
        message = self.rng.choice([self.task.title, "Address review comments", "Fix tests"])
        if self.rng.random() < 0.5:
            self.rec.call("git", {"command": "add -A"})
            self.rec.call("git", {"command": f'commit -m "{message}"'})
        else:
            self.rec.call("git", {"command": f"commit -am '{message}'"})
        self.look("git", {"command": self.rng.choice(["status", "log --oneline -3"])}, "git")

    def branch_switch(self) -> None:
        if self.branch == "main":
            self.branch = f"fix/{self.rng.choice(['rounding', 'capacity', 'docs'])}"
            self.rec.call("git", {"command": f"checkout -b {self.branch}"})
            if self.edited and self.rng.random() < 0.6:
                self.rec.call("git", {"command": "commit -am 'Work in progress'"})
        else:
            self.branch = "main"
            self.rec.call("git", {"command": "checkout main"})
        if self.rng.random() < 0.3:
            self.rec.call("git", {"command": "reset --hard"})
        self.read_with(self.pick())

    def file_ops(self) -> None:
        path = self.pick()
        where = path.rpartition("/")[0] or "."
        self.rec.call("bash", {"command": f"cp {path} {path}.bak"})
        self.listing(where)
        r = self.rng.random()
        if r < 0.5:
            self.rec.call("bash", {"command": f"rm {path}.bak"})
        else:
            self.rec.call("bash", {"command": f"mv {path}.bak {path}.orig"})
        self.listing(where)

    def rename(self) -> None:
        names = [n for n in RENAMES if self.ws.find_symbol(n) is not None]
        if not names:
            return self.search()
        name = self.rng.choice(names)
        self.rec.call(
            "code-graph", {"operation": "find_references", "symbol": name}, Read("symbol")
        )
        self.rec.call(
            "code-graph", {"operation": "rename", "symbol": name, "new_name": RENAMES[name]}
        )
        data = {"operation": "find_references", "symbol": RENAMES[name]}
        self.rec.call("code-graph", data, Read("symbol"))
        self.read_with(self.pick(".py"))

    def script(self) -> None:
        command = self.rng.choice(
            ["python scripts/bump_version.py", "python scripts/sort_catalog.py"]
        )
        self.rec.call("bash", {"command": command})
        if "bump" in command:
            self.read_with(self.rng.choice(["pyproject.toml", "src/stockroom/__init__.py"]))
        else:
            self.rec.call("git", {"command": "diff --stat"}, Read("git"))

    # an attempt

    def orient(self) -> None:
        first = self.rng.choice(["ls", "git status", "list_dir", "find"])
        if first == "ls":
            self.look("bash", {"command": "ls"}, "listing")
        elif first == "git status":
            self.look("git", {"command": "status"}, "git")
        elif first == "list_dir":
            self.look("editor", {"operation": "list_dir", "path": "."}, "listing")
        else:
            self.look("bash", {"command": "find src -name '*.py' | sort"}, "listing")
        if self.rng.random() < 0.4:
            self.read_with("README.md")

    def attempt(self, calls: int) -> None:
        """Work until about `calls` calls are made in this attempt."""
        target = self.rec.calls + calls
        self.orient()
        # after a reset (a new attempt, a new task) the agent goes back to what it had read
        for path in self.recent[-3:]:
            exists = (self.ws.root / path).is_file()
            if self.rec.calls < target and exists and self.rng.random() < 0.6:
                self.read_with(path)
        episodes, weights = zip(*self.episodes, strict=True)
        while self.rec.calls < target:
            self.rng.choices(episodes, weights)[0]()


# ── sessions ──────────────────────────────────────────────────────────────────


def make_template(root: Path, rng: random.Random) -> None:
    """The project, committed in three steps on `main`."""
    write_project(root, rng)
    env = dict(os.environ, GIT_CONFIG_NOSYSTEM="1", HOME=str(root))

    def git(*args: str, date: str) -> None:
        dated = env | {"GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date}
        subprocess.run(["git", *args], cwd=root, env=dated, check=True, capture_output=True)

    git("init", "-q", "-b", "main", date="")
    git("config", "user.name", "Stockroom Dev", date="")
    git("config", "user.email", "dev@stockroom.example", date="")
    later = [p for p in ("docs/api.md", "CHANGELOG.md") if (root / p).exists()]
    git("add", "-A", date="")
    git("reset", "-q", "--", *later, date="")
    git("commit", "-q", "-m", "Import stockroom", date="2026-11-20T10:00:00Z")
    git("add", "docs/api.md", date="")
    git("commit", "-q", "-m", "Document the API", date="2026-11-24T15:30:00Z")
    git("add", "CHANGELOG.md", date="")
    git("commit", "-q", "-m", "Release 0.3.1", date="2026-11-27T09:12:00Z")


@dataclass
class Plan:
    """The shape of one trace: tasks (a persistent capsule has several), attempts, calls."""

    tasks: list[list[int]] = field(default_factory=list)  # per task, calls per attempt
    persistent: bool = False
    window: int = 0
    killed: bool = False


def plan(rng: random.Random, calls: tuple[int, int]) -> Plan:
    total = rng.randint(*calls)
    p = Plan(persistent=rng.random() < 0.25, killed=rng.random() < 0.04)
    p.window = rng.choice([0, 0, 10_000, 14_000, 20_000])
    ntasks = rng.randint(2, 3) if p.persistent else 1
    for share in split(total, ntasks, rng):
        attempts = 2 if rng.random() < 0.2 and share >= 16 else 1
        p.tasks.append(split(share, attempts, rng))
    return p


def split(total: int, parts: int, rng: random.Random) -> list[int]:
    cuts = sorted(rng.sample(range(6, total - 5), parts - 1)) if parts > 1 else []
    edges = [0, *cuts, total]
    return [b - a for a, b in zip(edges, edges[1:], strict=False)]


def record_session(
    index: int,
    template: Path,
    scratch: Path,
    site: Site,
    seed: int,
    include_output: bool,
    calls: tuple[int, int],
) -> tuple[list[str], list[dict]]:
    """Record one session: its trace lines and its truth rows."""
    rng = random.Random(f"{seed}:{index}")
    clock = Clock(START_MS + index * 3_600_000 + rng.randint(0, 3_000_000))
    session_id = "ses_" + uuid7_hex(clock.now, rng)
    repo = scratch / session_id
    shutil.copytree(template, repo, symlinks=True)
    site.reset()
    shape = plan(rng, calls)
    ws = Workspace(repo, site, clock)
    truth = Truth(session_id, ws)
    task_pool = rng.sample(TASKS, len(shape.tasks))
    capsule = "stockroom-maintainer" if shape.persistent else "stockroom-dev"
    writer = TraceWriter(session_id, clock, capsule, include_output)
    rec = Recorder(writer, ws, truth, rng)
    rec.window = shape.window
    agent = Agent(rec, ws, site, rng)
    try:
        for task, attempts in zip(task_pool, shape.tasks, strict=True):
            agent.task = task
            task_id = "tsk_" + uuid7_hex(clock.now, rng)
            context_id = "ctx_" + uuid7_hex(clock.now, rng)
            message = f"{task.title}.\n"
            if shape.persistent:
                clock.tick(rng.randint(20_000, 600_000))
                writer.write(
                    "a2a_task_received",
                    task_id=task_id,
                    context_id=context_id,
                    message_id="msg_" + uuid7_hex(clock.now, rng),
                    traceparent_from_caller=None,
                )
            source = "a2a" if shape.persistent else "task_md"
            writer.task_start(task_id, context_id, source, utf8_len(message))
            for number, calls in enumerate(attempts):
                if number:
                    reason = "tests still fail: run the whole suite and fix what fails"
                    writer.write(
                        "task_reopened",
                        task_id=task_id,
                        hook_name="review-gate",
                        reason=reason,
                        reopen_number=number,
                    )
                rec.attempt_start(100, utf8_len(message))
                agent.attempt(calls)
                rec.attempt_end()
            writer.task_end(task_id, "ok", len(attempts) - 1)
    finally:
        shutil.rmtree(repo, ignore_errors=True)
    lines, rows = writer.lines, truth.rows
    if shape.killed:  # killed after a shell tool's call was written, before its shell event
        calls = [i for i in range(len(lines) - 1) if '"event_type":"shell"' in lines[i + 1]]
        cut = calls[len(calls) // 2 + rng.randint(0, len(calls) // 3)] + 1
        lines = lines[:cut]
        rows = [r for r in rows if r["line"] <= cut]
    return lines, rows


def record(
    out: Path,
    sessions: int,
    seed: int,
    include_output: bool = False,
    calls: tuple[int, int] = (20, 80),
) -> Path:
    """Record `sessions` sessions of `calls` (a range) tool calls under `out`; return the
    workdir."""
    out.mkdir(parents=True, exist_ok=True)
    workdir = out / "workdir"
    if workdir.exists():
        shutil.rmtree(workdir)
    workdir.mkdir()
    (out / "effects.toml").write_text(EFFECTS_TOML, encoding="utf-8")
    with tempfile.TemporaryDirectory(prefix="mur-record-") as tmp:
        scratch = Path(tmp)
        template = scratch / "template"
        make_template(template, random.Random(seed))
        (scratch / "site").mkdir()
        site = Site(scratch / "site")
        try:
            with open(out / "truth.jsonl", "w", encoding="utf-8") as truth:
                for index in range(sessions):
                    lines, rows = record_session(
                        index, template, scratch, site, seed, include_output, calls
                    )
                    session_id = json.loads(lines[0])["session_id"]
                    trace = workdir / session_id / "trace.jsonl"
                    trace.parent.mkdir()
                    trace.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
                    for row in rows:
                        truth.write(json.dumps(row, ensure_ascii=False) + "\n")
        finally:
            site.close()
    return workdir


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=60)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", type=Path, default=Path("benchmarks/recorded"))
    parser.add_argument(
        "--include-output",
        action="store_true",
        help="write each call's output into the trace (trace.include_tool_output: true)",
    )
    args = parser.parse_args()
    started = time.perf_counter()
    record(args.out, args.sessions, args.seed, args.include_output)
    rows = [json.loads(line) for line in (args.out / "truth.jsonl").open(encoding="utf-8")]
    redundant = sum(r["redundant"] for r in rows)
    print(
        f"{args.sessions} sessions, {len(rows):,} reads, {redundant:,} truly redundant "
        f"(seed {args.seed}) in {time.perf_counter() - started:.1f}s -> {args.out}"
    )


if __name__ == "__main__":
    main()
