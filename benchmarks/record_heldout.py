"""Record a held-out corpus: other agents, another project, the same runtime and the same truth.

    python benchmarks/record_heldout.py [--sessions 40] [--seed 11] [--out benchmarks/heldout]

`record.py` plays the sessions the context policy was tuned on. This script plays sessions
nobody looked at while tuning it, to see how the policy does on habits it was not shaped by:

- the project is `ledgerline` (`benchmarks/heldout_project/`), a small Rust crate with a
  Makefile, a manual in Markdown, shell and Python scripts and a ledger too long for one
  shell output, committed in four commits and built once (its `target/` is in every copy);
- the agents come in three habits, one per session: a *terminal* agent that does everything
  through `bash` and `sh` (`cat`, `nl -ba`, `sed -n`, `awk`, `rg`, `fd`, `tree`, `cd dir &&`,
  here-documents, `tee`, `xargs`, `perl -pi`, `python3 - <<EOF`, `git apply`, `patch`, `make`,
  `cargo`); an *MCP* agent that reads and writes through filesystem tools shaped like the MCP
  filesystem server's (`read_text_file`, `read_multiple_files`, `list_directory`,
  `directory_tree`, `search_files`, `get_file_info`, `write_file`, `edit_file`, `move_file`,
  declaring nothing, so the corpus's `effects.toml` says what they do) and runs `make`,
  `cargo` and `git` as tools of their own; an *editor* agent with a `text_editor` tool shaped
  like a view/str_replace/create/insert editor (its input has a `command` key; it declares
  `read`/`mutate` on success), `rg` and `cargo` as tools, and `bash` now and then. All fetch
  pages through an MCP-style `fetch` tool that declares nothing.

The traces are written by `record.py`'s `TraceWriter` (the runtime's format) and the truth is
`record.py`'s `Truth`: from the bytes each call returned. Two things these agents do needed
the truth to know more, and `HeldoutTruth` says them: the same request made in two forms
(`git status` through `bash`, `status` through the `git` tool; `/workspace/src/a.rs` and
`src/a.rs`), and reads whose output holds files whole without being equal to one file
(`cat -n`, `nl -ba` and the editor's numbered view; `cat a b` and `read_multiple_files`).

Under OUT: `workdir/ses_*/trace.jsonl`, `truth.jsonl` (one object per reading call, as
record.py writes it), `effects.toml`. `OUT/README.md` is written by hand.
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.error
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from record import (  # noqa: E402
    CACHES,
    SHELL_INTERPRETERS,
    START_MS,
    Clock,
    Outcome,
    Read,
    Recorder,
    Site,
    TraceWriter,
    Truth,
    Workspace,
    compact,
    lossy,
    split_shell_words,
    utf8_len,
    uuid7_hex,
)

HERE = Path(__file__).resolve().parent
PROJECT = HERE / "heldout_project"
NAME = "ledgerline"
MOUNT = "/workspace"  # where the filesystem tools and the editor see the repository
HELDOUT_CACHES = CACHES | {"target", "logs"}  # cargo's builds, the runtime's full outputs
START = START_MS + 40 * 86_400_000  # forty days after record.py's sessions

MCP_TOOLS = [
    "read_text_file",
    "read_multiple_files",
    "list_directory",
    "directory_tree",
    "search_files",
    "get_file_info",
    "write_file",
    "edit_file",
    "move_file",
]
HABITS = {
    "terminal": (["bash", "sh", "git", "make", "fetch"], ("bash", "sh", "git", "make")),
    "mcp": (
        [*MCP_TOOLS, "make", "cargo", "git", "bash", "fetch"],
        ("make", "cargo", "git", "bash"),
    ),
    "editor": (
        ["text_editor", "rg", "cargo", "git", "bash", "fetch"],
        ("rg", "cargo", "git", "bash"),
    ),
}
MODELS = ["claude-sonnet-4-5", "claude-opus-4-1", "gpt-5-codex"]

EFFECTS_TOML = """\
# The filesystem and fetch tools declare no state_effect; their user declares these.
[read_text_file]
effect = "read"

[read_multiple_files]
effect = "read"

[list_directory]
effect = "read"

[directory_tree]
effect = "read"

[search_files]
effect = "read"

[get_file_info]
effect = "read"

[write_file]
effect = "mutate"

[edit_file]
effect = "mutate"

[move_file]
effect = "mutate"

[fetch]
effect = "read"
"""

# the project's history: the files of each commit, in order (what is left goes in the first)
COMMITS = [
    ("Parse ledgers; balance and register reports", "2026-10-02T09:30:00Z", None),
    (
        "Budgets, and the command line's tests",
        "2026-10-19T16:05:00Z",
        ["src/budget.rs", "tests/budget.rs", "tests/cli.rs", "examples/household.budget"],
    ),
    (
        "Makefile, manual and scripts",
        "2026-11-08T11:40:00Z",
        ["Makefile", "docs", "scripts", "data", "examples/README.md"],
    ),
    ("Release 0.4.1", "2026-11-27T08:15:00Z", ["CHANGELOG.md"]),
]


# ── the web ───────────────────────────────────────────────────────────────────

PAGES = {
    "issues/42.html": (
        "<h1>#42 balance --depth 2 hides accounts that have one level</h1>\n<p>opened by ines"
        "</p>\n<p>With <code>--depth 2</code>, an account named <code>equity</code> is listed, "
        "but the total of <code>expenses</code> and <code>expenses:food</code> are mixed up.</p>\n"
    ),
    "std/fmt.html": (
        "<h1>Module std::fmt</h1>\n<p>Width: <code>{:&gt;12}</code> right-aligns in 12 columns; "
        "<code>{:&lt;w$}</code> takes the width from the named argument w. Types that implement "
        "Display should call <code>f.pad</code> to honour width and alignment.</p>\n"
    ),
    "cargo/test.html": (
        "<h1>cargo test</h1>\n<p><code>cargo test --test NAME</code> runs one integration test "
        "target; <code>-q</code> prints one character per test. Arguments after <code>--</code> "
        "go to the test binary: <code>cargo test -- --nocapture</code>.</p>\n"
    ),
    "clippy/manual_is_multiple_of.html": (
        "<h1>manual_is_multiple_of</h1>\n<p>Checks for <code>a % b == 0</code> on unsigned "
        "integers. Use <code>a.is_multiple_of(b)</code>, stable since Rust 1.87.</p>\n"
    ),
    "keepachangelog.html": (
        "<h1>Keep a Changelog</h1>\n<p>Keep an Unreleased section at the top. When you "
        "release, move its entries under a heading with the version and the date.</p>\n"
    ),
}
ISSUE = "issues/42.html"
COMMENTS = [
    "<p>comment by tomas: truncate_account cuts at the wrong separator when depth is 1.</p>\n",
    "<p>comment by ines: a test with a three-level account would have caught it.</p>\n",
    "<p>comment by maintainer: fixed on main, please check.</p>\n",
]


class LedgerSite(Site):
    """The pages the agents look up, served on 127.0.0.1; the issue gains comments."""

    def reset(self) -> None:
        for rel, text in PAGES.items():
            path = self.root / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        self.comments = 0

    def comment(self) -> None:
        if self.comments < len(COMMENTS):
            with open(self.root / ISSUE, "a", encoding="utf-8") as page:
                page.write(COMMENTS[self.comments])
            self.comments += 1


# ── the tools ─────────────────────────────────────────────────────────────────


def numbered(text: str, first: int = 1) -> str:
    """Lines as `cat -n` prints them."""
    lines = text.splitlines(keepends=True)
    return "".join(f"{n:>6}\t{line}" for n, line in enumerate(lines, first))


class Checkout(Workspace):
    """The repository and the tools of these sessions: shell binaries (`record.Workspace`
    runs them as the runtime does), the filesystem tools, the editor and fetch."""

    shell_tools = ("bash", "sh", "git", "make", "cargo", "rg")

    def __init__(self, root: Path, site: Site, clock: Clock, bin_dir: Path) -> None:
        super().__init__(root, site, clock)
        # the capsule's manifest passes the Rust toolchain's homes and ripgrep's configuration
        # through (shell_baseline_env); the configuration sorts rg's output by path, which
        # otherwise comes in the order its threads finish; `fd` is Debian's fdfind under its
        # usual name, in a directory on PATH
        self.env["PATH"] = os.pathsep.join([str(bin_dir), self.env["PATH"]])
        self.env["RIPGREP_CONFIG_PATH"] = str(bin_dir.parent / "ripgreprc")
        home = Path(os.path.expanduser("~"))
        self.env["RUSTUP_HOME"] = os.environ.get("RUSTUP_HOME", str(home / ".rustup"))
        self.env["CARGO_HOME"] = os.environ.get("CARGO_HOME", str(home / ".cargo"))

    def run(self, tool: str, data: dict) -> Outcome:
        if tool in self.shell_tools:
            return super().run(tool, data)
        started = time.perf_counter()
        outcome = getattr(self, "tool_" + tool)(data)
        outcome.duration_ms = round((time.perf_counter() - started) * 1000) + outcome.duration_ms
        return outcome

    def local(self, name: str) -> Path | None:
        """A path as the filesystem tools take it: under /workspace, or relative to it."""
        if name == MOUNT or name.startswith(MOUNT + "/"):
            name = name[len(MOUNT) :].lstrip("/") or "."
        elif name.startswith("/"):
            return None
        return self.inside(name)

    def shown(self, path: Path) -> str:
        rel = path.relative_to(self.root.resolve()).as_posix()
        return MOUNT if rel == "." else f"{MOUNT}/{rel}"

    # MCP filesystem tools: they declare nothing

    def denied(self, name: str) -> Outcome:
        text = f"Error: Access denied - path outside allowed directories: {name}"
        return Outcome("error", text, 0)

    def missing(self, name: str, what: str = "open") -> Outcome:
        return Outcome("error", f"Error: ENOENT: no such file or directory, {what} '{name}'", 0)

    def tool_read_text_file(self, data: dict) -> Outcome:
        name = str(data.get("path", ""))
        path = self.local(name)
        if path is None:
            return self.denied(name)
        if not path.is_file():
            return self.missing(name)
        text = lossy(path.read_bytes())
        lines = text.splitlines(keepends=True)
        if "head" in data:
            text = "".join(lines[: int(data["head"])])
        elif "tail" in data:
            text = "".join(lines[-int(data["tail"]) :])
        return Outcome("ok", text, 1)

    def tool_read_multiple_files(self, data: dict) -> Outcome:
        parts = []
        for name in data.get("paths", []):
            path = self.local(str(name))
            if path is None or not path.is_file():
                parts.append(f"{name}: Error - ENOENT: no such file or directory")
            else:
                parts.append(f"{name}:\n{lossy(path.read_bytes())}\n")
        return Outcome("ok", "\n---\n".join(parts), 2)

    def tool_list_directory(self, data: dict) -> Outcome:
        name = str(data.get("path", ""))
        path = self.local(name)
        if path is None:
            return self.denied(name)
        if not path.is_dir():
            return self.missing(name, "scandir")
        rows = []
        for entry in sorted(path.iterdir(), key=lambda p: p.name):
            rows.append(f"[{'DIR' if entry.is_dir() else 'FILE'}] {entry.name}")
        return Outcome("ok", "\n".join(rows), 1)

    def tool_directory_tree(self, data: dict) -> Outcome:
        name = str(data.get("path", ""))
        path = self.local(name)
        if path is None:
            return self.denied(name)
        if not path.is_dir():
            return self.missing(name, "scandir")
        skip = set(data.get("excludePatterns", []))

        def tree(where: Path) -> list[dict]:
            nodes = []
            for entry in sorted(where.iterdir(), key=lambda p: p.name):
                if entry.name in skip:
                    continue
                if entry.is_dir():
                    nodes.append({"name": entry.name, "type": "directory", "children": tree(entry)})
                else:
                    nodes.append({"name": entry.name, "type": "file"})
            return nodes

        return Outcome("ok", json.dumps(tree(path), indent=2), 3)

    def tool_search_files(self, data: dict) -> Outcome:
        name = str(data.get("path", ""))
        path = self.local(name)
        if path is None:
            return self.denied(name)
        if not path.is_dir():
            return self.missing(name, "scandir")
        pattern = str(data.get("pattern", "")).lower()
        skip = set(data.get("excludePatterns", []))
        found = []
        for dirpath, dirnames, filenames in os.walk(path):
            dirnames[:] = sorted(d for d in dirnames if d not in skip)
            for entry in sorted(dirnames + filenames):
                if pattern in entry.lower():
                    found.append(self.shown(Path(dirpath, entry).resolve()))
        return Outcome("ok", "\n".join(found) if found else "No matches found", 2)

    def tool_get_file_info(self, data: dict) -> Outcome:
        name = str(data.get("path", ""))
        path = self.local(name)
        if path is None:
            return self.denied(name)
        if not path.exists():
            return self.missing(name, "stat")
        st = path.stat()

        def when(ns: int) -> str:
            return datetime.fromtimestamp(ns / 1e9, UTC).strftime("%a %b %d %Y %H:%M:%S GMT")

        text = (
            f"size: {st.st_size}\ncreated: {when(st.st_ctime_ns)}\nmodified: "
            f"{when(st.st_mtime_ns)}\naccessed: {when(st.st_atime_ns)}\nisDirectory: "
            f"{str(path.is_dir()).lower()}\nisFile: {str(path.is_file()).lower()}\n"
            f"permissions: {st.st_mode & 0o777:o}"
        )
        return Outcome("ok", text, 1)

    def tool_write_file(self, data: dict) -> Outcome:
        name = str(data.get("path", ""))
        path = self.local(name)
        if path is None:
            return self.denied(name)
        if not path.parent.is_dir():
            return self.missing(name)
        path.write_text(str(data.get("content", "")), encoding="utf-8")
        return Outcome("ok", f"Successfully wrote to {name}", 1)

    def tool_edit_file(self, data: dict) -> Outcome:
        name = str(data.get("path", ""))
        path = self.local(name)
        if path is None:
            return self.denied(name)
        if not path.is_file():
            return self.missing(name)
        before = path.read_text(encoding="utf-8")
        after = before
        for edit in data.get("edits", []):
            old, new = str(edit.get("oldText", "")), str(edit.get("newText", ""))
            if old not in after:
                return Outcome("error", f"Error: Could not find exact match for edit:\n{old}", 1)
            after = after.replace(old, new, 1)
        diff = "".join(
            difflib.unified_diff(
                before.splitlines(keepends=True),
                after.splitlines(keepends=True),
                name,
                name,
                "original",
                "modified",
            )
        )
        if not data.get("dryRun"):
            path.write_text(after, encoding="utf-8")
        return Outcome("ok", f"```diff\n{diff}```\n\n", 1)

    def tool_move_file(self, data: dict) -> Outcome:
        source, target = str(data.get("source", "")), str(data.get("destination", ""))
        src, dst = self.local(source), self.local(target)
        if src is None or dst is None:
            return self.denied(source if src is None else target)
        if not src.exists():
            return self.missing(source, "rename")
        if dst.exists():
            return Outcome("error", f"Error: EEXIST: file already exists, rename '{target}'", 0)
        src.rename(dst)
        return Outcome("ok", f"Successfully moved {source} to {target}", 1)

    # the editor: view / create / str_replace / insert; declares read or mutate on success

    def tool_text_editor(self, data: dict) -> Outcome:
        command, name = data.get("command"), str(data.get("path", ""))
        path = self.local(name)
        if path is None:
            return Outcome("error", f"The path {name} is not an absolute path", 0)
        if command == "view":
            if path.is_dir():
                rows = [self.shown(path.resolve())]
                for entry in sorted(path.rglob("*")):
                    rel = entry.relative_to(path)
                    hidden = any(part.startswith(".") for part in rel.parts)
                    if len(rel.parts) <= 2 and not hidden and "target" not in rel.parts[:1]:
                        rows.append(self.shown(entry.resolve()))
                head = f"Here are the files and directories up to 2 levels deep in {name}, "
                text = head + "excluding hidden items:\n" + "\n".join(rows) + "\n"
                return Outcome("ok", text, 0, state_effect="read")
            if not path.is_file():
                return Outcome("error", f"The path {name} does not exist.", 0)
            text = lossy(path.read_bytes())
            if "view_range" in data:
                start, end = (int(v) for v in data["view_range"])
                lines = text.splitlines(keepends=True)
                end = len(lines) if end == -1 else end
                if not 1 <= start <= len(lines):
                    why = f"Invalid `view_range`: {data['view_range']}. Its first element `{start}`"
                    return Outcome("error", why + " should be within the file's lines", 0)
                return Outcome(
                    "ok", numbered("".join(lines[start - 1 : end]), start), 0, state_effect="read"
                )
            return Outcome("ok", numbered(text), 0, state_effect="read")
        if command == "create":
            if path.exists():
                why = f"File already exists at: {name}. Cannot overwrite files using `create`."
                return Outcome("error", why, 0)
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(str(data.get("file_text", "")), encoding="utf-8")
            return Outcome("ok", f"File created successfully at: {name}", 0, state_effect="mutate")
        if not path.is_file():
            return Outcome("error", f"The path {name} does not exist.", 0)
        text = path.read_text(encoding="utf-8")
        if command == "str_replace":
            old, new = str(data.get("old_str", "")), str(data.get("new_str", ""))
            count = text.count(old)
            if count != 1:
                why = (
                    f"No replacement was performed, old_str `{old}` did not appear in {name}."
                    if count == 0
                    else f"No replacement was performed. Multiple occurrences of old_str `{old}`."
                )
                return Outcome("error", why, 0)
            text = text.replace(old, new)
            at = text.index(new)
            first = text[:at].count("\n") + 1
            lines = text.splitlines(keepends=True)
            start = max(first - 4, 0)
            snippet = "".join(lines[start : first + new.count("\n") + 4])
        elif command == "insert":
            lines = text.splitlines(keepends=True)
            where = int(data.get("insert_line", 0))
            if not 0 <= where <= len(lines):
                return Outcome("error", f"Invalid `insert_line` parameter: {where}", 0)
            new = str(data.get("insert_text", ""))
            new = new if new.endswith("\n") else new + "\n"
            lines[where:where] = [new]
            text = "".join(lines)
            start = max(where - 4, 0)
            snippet = "".join(text.splitlines(keepends=True)[start : where + new.count("\n") + 4])
        else:
            return Outcome("error", f"Unrecognized command {command}", 0)
        path.write_text(text, encoding="utf-8")
        result = (
            f"The file {name} has been edited. Here's the result of running `cat -n` on a "
            f"snippet of {name}:\n{numbered(snippet, start + 1)}Review the changes and make sure "
            "they are as expected. Edit the file again if necessary."
        )
        return Outcome("ok", result, 0, state_effect="mutate")

    # fetch, shaped like the MCP fetch server's tool: declares nothing

    def tool_fetch(self, data: dict) -> Outcome:
        url = str(data.get("url", ""))
        limit, start = int(data.get("max_length", 5000)), int(data.get("start_index", 0))
        try:
            with self.opener.open(url, timeout=10) as response:
                body = lossy(response.read())
        except urllib.error.HTTPError as exc:
            return Outcome("error", f"Failed to fetch {url} - status code {exc.code}", 0)
        except (urllib.error.URLError, ValueError) as exc:
            return Outcome("error", f"Failed to fetch {url}: {exc}", 0)
        part = body[start : start + limit]
        text = f"Contents of {url}:\n{part}"
        if start + limit < len(body):
            text += (
                f"\n\n<error>Content truncated. Call the fetch tool with a start_index of "
                f"{start + limit} to get more content.</error>"
            )
        return Outcome("ok", text, 0)


# a script that is one simple command: no pipe, list, redirection, expansion, escape or comment
SIMPLE_SCRIPT = re.compile(r"^[^|&;<>()$`*?\[\]{}~\\#\n]*$")
PATH_KEYS = ("path", "source", "destination")
TRUNCATED = re.compile(r"\n\nOutput truncated\. Full output written to logs/shell-\d+\.log$")


def unmounted(name: str) -> str:
    """A path the filesystem tools take, as the file it names (relative to the repository)."""
    if name == MOUNT or name.startswith(MOUNT + "/"):
        name = name[len(MOUNT) :].lstrip("/") or "."
    return os.path.normpath(name)


class HeldoutTruth(Truth):
    """record.py's truth, with cargo's build directory and the runtime's logs among the caches,
    and one notion of the same request across the forms these agents use: a command is the
    program and arguments it runs, whichever shell tool ran it (`bash` running `git status`
    and `git` running `status`), compared by what it printed and its exit code; a path is
    the file it names (`/workspace/src/a.rs` and `src/a.rs`)."""

    caches = HELDOUT_CACHES

    def request(self, tool: str, data: dict, outcome: Outcome) -> tuple[tuple, str]:
        command = data.get("command")
        if tool in Checkout.shell_tools and isinstance(command, str) and outcome.shell:
            script = command.strip()
            if tool not in SHELL_INTERPRETERS:
                argv = (tool, *split_shell_words(script))
            elif SIMPLE_SCRIPT.match(script):
                argv = tuple(split_shell_words(script))
            else:
                return super().request(tool, data, outcome)
            # what follows the `$ command` line, without the name of the log of a cut output
            result = TRUNCATED.sub("", outcome.text.split("\n", 1)[1])
            return ("run", argv), result
        if tool in MCP_TOOLS or tool == "text_editor":
            named = dict(data)
            for key in PATH_KEYS:
                if isinstance(named.get(key), str):
                    named[key] = unmounted(named[key])
            if isinstance(named.get("paths"), list):
                named["paths"] = [unmounted(str(p)) for p in named["paths"]]
            return (tool, compact(named)), outcome.text
        return super().request(tool, data, outcome)


# ── the agent ─────────────────────────────────────────────────────────────────


@dataclass(frozen=True)
class Job:
    """A task: the files it is about, what the agent searches for, the page it looks up."""

    title: str
    focus: tuple[str, ...]
    patterns: tuple[str, ...]
    page: str


JOBS = [
    Job(
        "balance --depth mixes up parents and children (issue #42)",
        ("src/ledger.rs", "src/report.rs", "tests/report.rs", "src/cli/args.rs"),
        ("truncate_account", "balances_at_depth", "depth", "ACCOUNT_SEPARATOR"),
        ISSUE,
    ),
    Job(
        "Refuse budgets with more than two decimals",
        ("src/budget.rs", "src/money.rs", "tests/budget.rs", "examples/household.budget"),
        ("parse_budget", "TooManyDecimals", "WARN_RATIO", "KEYWORD"),
        "std/fmt.html",
    ),
    Job(
        "Document the ledger format and the reports",
        ("docs/src/format.md", "docs/src/reports.md", "README.md", "src/parse.rs"),
        ("COMMENT", "MIN_POSTINGS", "--depth", "register"),
        "keepachangelog.html",
    ),
    Job(
        "Release 0.4.2",
        ("Cargo.toml", "CHANGELOG.md", "scripts/bump-version.sh", "Makefile"),
        ("version", "Unreleased", "0.4.1", "CARGO"),
        "keepachangelog.html",
    ),
    Job(
        "Widen the report columns for long account names",
        ("src/report.rs", "tests/report.rs", "src/ledger.rs"),
        ("ACCOUNT_WIDTH", "AMOUNT_WIDTH", "fn fit", "PAYEE_WIDTH"),
        "std/fmt.html",
    ),
    Job(
        "Say which posting of a transaction is wrong",
        ("src/parse.rs", "src/money.rs", "tests/parse.rs", "src/cli/mod.rs"),
        ("ParseError", "parse_posting", "AmountError", "EXIT_BAD_INPUT"),
        "cargo/test.html",
    ),
    Job(
        "Make clippy pass on the date code",
        ("src/date.rs", "src/parse.rs", "Makefile"),
        ("is_leap_year", "days_in_month", "MIN_YEAR", "DateError"),
        "clippy/manual_is_multiple_of.html",
    ),
    Job(
        "Speed up the register on a year of transactions",
        ("src/ledger.rs", "data/2025.ledger", "src/report.rs", "scripts/gen_ledger.py"),
        ("fn register", "monthly", "clone()", "running"),
        "cargo/test.html",
    ),
]
BIG = "data/2025.ledger"
RENAMES = {
    "truncate_account": "account_prefix",
    "balances_at_depth": "rolled_up_balances",
    "parse_posting": "read_posting",
    "days_in_month": "month_length",
    "monthly_report": "per_month_report",
}
CONSTANT = re.compile(r"^((?:pub )?const ([A-Z_]+): \w+ = )([0-9][0-9_]*(?:\.[0-9]+)?);$", re.M)
PUB_FN = re.compile(r"^(?:pub )?fn (\w+)", re.M)
SED_SAFE = re.compile(r"^[A-Za-z0-9_ :;=.,()<>#-]*$")


@dataclass
class Change:
    """An edit, before a tool is chosen for it: replace `old` by `new` once, or append."""

    path: str
    old: str = ""
    new: str = ""
    append: str = ""

    def apply(self, text: str) -> str:
        return text + self.append if self.append else text.replace(self.old, self.new, 1)


def quote(text: str) -> str:
    """A word for a shell script, in single quotes."""
    return "'" + text.replace("'", "'\\''") + "'"


def sed_pattern(text: str) -> str:
    return re.sub(r"([\\.*\[\]^$/])", r"\\\1", text)


class Agent:
    """A scripted agent with one habit: explores, reads, searches, edits, builds, reviews, and
    reads again what it holds and what it does not."""

    def __init__(self, rec: Recorder, ws: Checkout, site: LedgerSite, rng: random.Random, habit):
        self.rec = rec
        self.ws = ws
        self.site = site
        self.rng = rng
        self.habit = habit
        self.job = JOBS[0]
        self.recent: list[str] = []
        self.last_read: dict[str, tuple[str, dict, Read]] = {}
        self.looked: list[tuple[str, dict, Read]] = []
        self.edited: list[str] = []
        self.fetched: list[str] = []
        self.branch = "main"
        self.serial = 0
        self.episodes = [
            (self.read, 22),
            (self.read_part, 12),
            (self.recheck, 10),
            (self.search, 10),
            (self.listing, 5),
            (self.relook, 5),
            (self.review, 6),
            (self.edit, 12),
            (self.fix_cycle, 4),
            (self.failed_edit, 2),
            (self.same_bytes, 2),
            (self.build_test, 8),
            (self.format, 3),
            (self.multi_read, 3),
            (self.big_file, 2),
            (self.stat, 2),
            (self.web, 3),
            (self.commit, 2),
            (self.stash, 1.5),
            (self.revert, 1.5),
            (self.switch, 1),
            (self.create, 2),
            (self.move, 1),
            (self.docs, 1),
            (self.missing_read, 2),
            (self.rename, 1),
        ]

    # ── choosing ──

    def exists(self, path: str) -> bool:
        return (self.ws.root / path).is_file()

    def files(self) -> list[str]:
        found = []
        for dirpath, dirnames, filenames in os.walk(self.ws.root):
            dirnames[:] = sorted(d for d in dirnames if d not in HELDOUT_CACHES | {"site"})
            for name in filenames:
                found.append(os.path.relpath(os.path.join(dirpath, name), self.ws.root))
        return sorted(found)

    def pick(self, suffix: str = "") -> str:
        every = [f for f in self.files() if f.endswith(suffix)]
        focus = [f for f in self.job.focus if f in every]
        recent = [f for f in self.recent[-5:] if f in every]
        r = self.rng.random()
        if focus and r < 0.6:
            return self.rng.choice(focus)
        if recent and r < 0.85:
            return self.rng.choice(recent)
        return self.rng.choice(every)

    def number(self) -> int:
        self.serial += 1
        return self.serial * 7 + self.rng.randint(0, 6)

    def call(self, tool: str, data: dict, read: Read | None = None) -> Outcome:
        assert tool in HABITS[self.habit][0], f"{tool} is not a tool of the {self.habit} agent"
        return self.rec.call(tool, data, read)

    def saw(self, path: str) -> None:
        if path in self.recent:
            self.recent.remove(path)
        self.recent.append(path)

    def where(self, path: str) -> str:
        """A path as this agent's file tools take it."""
        if self.habit == "mcp" and self.rng.random() < 0.2:
            return path
        return f"{MOUNT}/{path}"

    def lines(self, path: str) -> int:
        return (self.ws.root / path).read_text(encoding="utf-8", errors="replace").count("\n")

    # ── reading one file ──

    def whole_forms(self, path: str) -> list[tuple[str, dict, Read, float]]:
        """Ways this agent reads a whole file: (tool, input, read, weight)."""
        read = Read("file", path)
        head, _, name = path.rpartition("/")
        if self.habit == "terminal":
            forms = [
                ("bash", {"command": f"cat {path}"}, read, 45),
                ("bash", {"command": f"nl -ba {path}"}, Read("file", path, numbered=True), 12),
                ("bash", {"command": f"cat -n {path}"}, Read("file", path, numbered=True), 8),
                ("bash", {"command": f"sed -n '1,200p' {path}"}, read, 10),
                ("sh", {"command": f"cat {path}"}, read, 6),
                ("bash", {"command": f"cat ./{path}"}, read, 4),
            ]
            if head:
                forms.append(("bash", {"command": f"cd {head} && cat {name}"}, read, 10))
            return forms
        if self.habit == "mcp":
            return [
                ("read_text_file", {"path": f"{MOUNT}/{path}"}, read, 70),
                ("read_text_file", {"path": path}, read, 15),
                ("bash", {"command": f"cat {path}"}, read, 10),
            ]
        view = Read("file", path, numbered=True)
        return [
            ("text_editor", {"command": "view", "path": f"{MOUNT}/{path}"}, view, 80),
            ("bash", {"command": f"cat {path}"}, read, 15),
        ]

    def read_whole(self, path: str, same: bool | None = None) -> Outcome:
        """Read a whole file; `same`: as this agent last read it (exactly the same request)."""
        self.saw(path)
        if same is None:
            same = path in self.last_read and self.rng.random() < 0.5
        if same and path in self.last_read:
            tool, data, read = self.last_read[path]
        else:
            forms = self.whole_forms(path)
            tool, data, read, _ = self.rng.choices(forms, [f[3] for f in forms])[0]
        self.last_read[path] = (tool, data, read)
        return self.call(tool, data, read)

    def read(self) -> None:
        path = self.pick()
        others = [f for f in self.job.focus if f != path and self.exists(f) and f != BIG]
        if self.habit == "mcp" and others and self.rng.random() < 0.2:  # several in one turn
            pair = [path, self.rng.choice(others)]
            self.rec.step(
                *[("read_text_file", {"path": f"{MOUNT}/{p}"}, Read("file", p)) for p in pair]
            )
            for p in pair:
                self.saw(p)
            return
        if path == BIG:
            return self.big_file()
        self.read_whole(path)
        if path.endswith(".rs") and self.rng.random() < 0.25:  # what does it use?
            self.search()

    def part_forms(self, path: str) -> list[tuple[str, dict, float]]:
        """Ways this agent reads a part of a file."""
        n = max(self.lines(path), 1)
        start = self.rng.randint(1, max(1, n - 12))
        end = start + self.rng.randint(10, 40)
        pattern = self.rng.choice(self.job.patterns)
        text = (self.ws.root / path).read_text(encoding="utf-8", errors="replace")
        fns = PUB_FN.findall(text) if path.endswith(".rs") else []
        if self.habit == "terminal":
            forms = [
                ("bash", {"command": f"sed -n '{start},{end}p' {path}"}, 25),
                ("bash", {"command": f"nl -ba {path} | sed -n '{start},{end}p'"}, 12),
                ("bash", {"command": f"head -n {end} {path}"}, 10),
                ("bash", {"command": f"tail -n {end - start} {path}"}, 6),
                ("bash", {"command": f"awk 'NR>={start} && NR<={end}' {path}"}, 6),
                ("bash", {"command": f"grep -n {quote(pattern)} {path}"}, 10),
                ("bash", {"command": f"rg -n {quote(pattern)} {path}"}, 10),
                ("bash", {"command": f"wc -l {path}"}, 4),
            ]
            if fns:
                name = self.rng.choice(fns)
                sed = f"sed -n '/fn {name}/,/^}}/p' {path}"
                forms.append(("bash", {"command": sed}, 8))
            return forms
        if self.habit == "mcp":
            return [
                ("read_text_file", {"path": self.where(path), "head": end}, 35),
                ("read_text_file", {"path": self.where(path), "tail": end - start}, 15),
                ("bash", {"command": f"grep -n {quote(pattern)} {path}"}, 15),
                ("bash", {"command": f"sed -n '{start},{end}p' {path}"}, 10),
            ]
        view = {"command": "view", "path": f"{MOUNT}/{path}", "view_range": [start, end]}
        return [
            ("text_editor", view, 55),
            ("rg", {"command": f"-n {quote(pattern)} {path}"}, 25),
            ("bash", {"command": f"grep -n {quote(pattern)} {path}"}, 5),
        ]

    def read_part(self, path: str | None = None) -> None:
        path = path or (self.pick(".rs") if self.rng.random() < 0.7 else self.pick())
        whole_first = self.rng.random() < 0.3
        if whole_first:
            self.read_whole(path)
        forms = self.part_forms(path)
        tool, data, _ = self.rng.choices(forms, [f[2] for f in forms])[0]
        self.call(tool, data, Read("file", path))
        self.saw(path)
        if not whole_first and self.rng.random() < 0.4:  # not enough: the whole file
            self.read_whole(path)
        elif self.rng.random() < 0.2:  # the same part again, a little later
            self.call(tool, data, Read("file", path))

    def recheck(self) -> None:
        """Read again a file read a moment ago: to be sure, or having lost track."""
        recent = [f for f in self.recent[-4:] if self.exists(f) and f != BIG]
        if not recent:
            return self.read()
        path = self.rng.choice(recent)
        if self.rng.random() < 0.25:
            return self.read_part(path)
        self.read_whole(path)

    def multi_read(self) -> None:
        files = [f for f in self.job.focus if self.exists(f) and f != BIG]
        if len(files) < 2:
            return self.read()
        chosen = self.rng.sample(files, 2 if len(files) < 3 or self.rng.random() < 0.6 else 3)
        if self.habit == "mcp" and self.rng.random() < 0.75:
            data = {"paths": [self.where(p) for p in chosen]}
            self.call("read_multiple_files", data, Read("files", files=tuple(chosen)))
        elif self.habit == "terminal" and self.rng.random() < 0.3:
            command = f"head -n 30 {' '.join(chosen)}"
            self.call("bash", {"command": command}, Read("files", files=tuple(chosen)))
        else:
            command = f"cat {' '.join(chosen)}"
            self.call("bash", {"command": command}, Read("files", files=tuple(chosen)))
        for p in chosen:
            self.saw(p)

    def big_file(self) -> None:
        """The year of transactions: too long for one shell output."""
        if not self.exists(BIG):
            return self.read()
        read = Read("file", BIG)
        if self.habit == "terminal":
            forms = [
                ("bash", {"command": f"cat {BIG}"}),
                ("bash", {"command": f"wc -l {BIG}"}),
                ("bash", {"command": f"tail -n 30 {BIG}"}),
                ("bash", {"command": f"rg -c 'expenses:food' {BIG}"}),
                ("bash", {"command": f"awk '/Landlord/ {{print NR\": \"$0}}' {BIG}"}),
                ("bash", {"command": f"head -c 4000 {BIG}"}),
            ]
        elif self.habit == "mcp":
            forms = [
                ("read_text_file", {"path": f"{MOUNT}/{BIG}"}),
                ("read_text_file", {"path": f"{MOUNT}/{BIG}", "head": 60}),
                ("bash", {"command": f"cat {BIG}"}),
                ("bash", {"command": f"wc -l {BIG}"}),
            ]
        else:
            forms = [
                ("text_editor", {"command": "view", "path": f"{MOUNT}/{BIG}"}),
                (
                    "text_editor",
                    {"command": "view", "path": f"{MOUNT}/{BIG}", "view_range": [1, 80]},
                ),
                ("rg", {"command": f"-c expenses:food {BIG}"}),
                ("bash", {"command": f"cat {BIG}"}),
            ]
        for tool, data in self.rng.sample(forms, self.rng.randint(1, 3)):
            numbers = tool == "text_editor"
            self.call(tool, data, Read("file", BIG, numbered=numbers) if numbers else read)
        self.saw(BIG)
        if self.rng.random() < 0.3:
            run = "-q -- monthly data/2025.ledger expenses:food"
            if self.habit == "terminal":
                self.call("bash", {"command": f"cargo run {run}"})
            else:
                self.call(
                    "cargo" if self.habit != "terminal" else "bash", {"command": f"run {run}"}
                )

    def missing_read(self) -> None:
        """A path remembered wrong: the read fails; then the right one."""
        path = self.pick()
        head, _, name = path.rpartition("/")
        stem, dot, ext = name.partition(".")
        wrong = f"{head}/{stem}s{dot}{ext}".lstrip("/")
        if self.exists(wrong):
            wrong += ".old"
        if self.habit == "terminal":
            self.call("bash", {"command": f"cat {wrong}"}, Read("file", wrong))
        elif self.habit == "mcp":
            self.call("read_text_file", {"path": f"{MOUNT}/{wrong}"}, Read("file", wrong))
        else:
            data = {"command": "view", "path": f"{MOUNT}/{wrong}"}
            self.call("text_editor", data, Read("file", wrong, numbered=True))
        if self.rng.random() < 0.5:
            self.listing(head or ".")
        self.read_whole(path)

    # ── looking around ──

    def look(self, tool: str, data: dict, kind: str) -> Outcome:
        """A listing, a search or a git query, remembered so that it can be run again."""
        read = Read(kind)
        self.looked.append((tool, data, read))
        return self.call(tool, data, read)

    def search(self) -> None:
        pattern = self.rng.choice(self.job.patterns)
        q = quote(pattern)
        if self.habit == "terminal":
            forms = [
                f"rg -n {q}",
                f"rg -n {q} src tests",
                f"grep -rn {q} src",
                f"rg -l {q}",
                f"git grep -n {q}",
                f"cd src && rg -n {q}",
                f"rg -n -g '*.md' {q}",
                f"rg -c {q} src",
                f"rg -l {q} | xargs wc -l",
                f"rg -n {q} src | head -20",
            ]
            self.look("bash", {"command": self.rng.choice(forms)}, "search")
        elif self.habit == "mcp":
            if self.rng.random() < 0.25:
                name = self.rng.choice(["budget", "report", ".md", "parse", ".rs"])
                data = {"path": MOUNT, "pattern": name, "excludePatterns": ["target", ".git"]}
                self.look("search_files", data, "listing")
            else:
                form = self.rng.choice([f"rg -n {q} src", f"grep -rn {q} src tests", f"rg -n {q}"])
                self.look("bash", {"command": form}, "search")
        else:
            forms = [
                f"-n {q} src",
                f"-n {q}",
                f"-l {q}",
                f"--type rust -n {q}",
                f"-n {q} src tests",
            ]
            self.look("rg", {"command": self.rng.choice(forms)}, "search")
        if self.rng.random() < 0.35:  # open what it found
            hits = [f for f in self.files() if pattern in self.text(f)]
            if hits:
                self.read_part(
                    self.rng.choice(hits)
                ) if self.rng.random() < 0.5 else self.read_whole(self.rng.choice(hits))

    def text(self, path: str) -> str:
        try:
            return (self.ws.root / path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return ""

    def listing(self, where: str | None = None) -> None:
        where = where or self.rng.choice([".", "src", "tests", "docs/src", "src/cli", "scripts"])
        if self.habit == "terminal":
            forms = [
                "ls" if where == "." else f"ls {where}",
                f"ls -la {where}",
                "fd -e rs" if where == "." else f"fd . {where}",
                f"find {where} -name '*.rs' -not -path './target/*' | sort",
                "tree -L 2 -I target" if where == "." else f"tree {where}",
                "git ls-files" if where == "." else f"git ls-files {where}",
            ]
            self.look("bash", {"command": self.rng.choice(forms)}, "listing")
        elif self.habit == "mcp":
            r = self.rng.random()
            path = MOUNT if where == "." else f"{MOUNT}/{where}"
            if r < 0.65:
                self.look("list_directory", {"path": path}, "listing")
            elif r < 0.9:
                data = {"path": path, "excludePatterns": ["target", ".git"]}
                self.look("directory_tree", data, "listing")
            else:
                self.look("bash", {"command": "ls" if where == "." else f"ls {where}"}, "listing")
        else:
            r = self.rng.random()
            path = MOUNT if where == "." else f"{MOUNT}/{where}"
            if r < 0.5:
                self.look("text_editor", {"command": "view", "path": path}, "listing")
            elif r < 0.75:
                self.look(
                    "rg", {"command": "--files" if where == "." else f"--files {where}"}, "listing"
                )
            else:
                self.look(
                    "bash", {"command": "ls -la" if where == "." else f"ls {where}"}, "listing"
                )

    def git_query(self, command: str) -> Outcome:
        if self.habit == "terminal" or self.rng.random() < 0.15:
            return self.look("bash", {"command": f"git {command}"}, "git")
        return self.look("git", {"command": command}, "git")

    def relook(self) -> None:
        """Run again a listing, a search or a git query made earlier."""
        if not self.looked:
            return self.listing()
        tool, data, read = self.rng.choice(self.looked[-4:])
        self.call(tool, data, read)

    def review(self) -> None:
        edited = [f for f in self.edited if self.exists(f)]
        forms = [
            "status",
            "status -sb",
            "diff",
            "diff --stat",
            "log --oneline -8",
            "status --porcelain",
        ]
        forms += ["show --stat HEAD", "branch", "diff HEAD~1 --stat"]
        if edited:
            path = self.rng.choice(edited)
            forms += [f"diff -- {path}", f"show HEAD:{path}", f"log --oneline -- {path}"]
            forms += [f"diff {path}"]
        elif self.recent:
            path = self.recent[-1]
            forms += [f"blame -L 1,20 {path}", f"log -p -1 --stat -- {path}"]
        for command in self.rng.sample(forms, self.rng.randint(1, 2)):
            self.git_query(command)

    def stat(self) -> None:
        path = self.pick()
        if self.habit == "mcp":
            self.call("get_file_info", {"path": f"{MOUNT}/{path}"}, Read("stat"))
        else:
            form = self.rng.choice([f"stat -c '%s %y %n' {path}", f"ls -l {path}"])
            self.call("bash", {"command": form}, Read("stat"))
        if self.rng.random() < 0.5:
            self.read_whole(path)

    def web(self) -> None:
        pages = [self.job.page, self.rng.choice(sorted(PAGES))]
        page = self.rng.choice(self.fetched) if self.fetched and self.rng.random() < 0.45 else None
        page = page or self.rng.choice(pages)
        if page == ISSUE and self.rng.random() < 0.3:
            self.site.comment()  # someone comments on the issue meanwhile
        data = {"url": self.site.base + page}
        if self.rng.random() < 0.2:
            data["max_length"] = 200
        self.call("fetch", data, Read("web"))
        if page not in self.fetched:
            self.fetched.append(page)
        if self.rng.random() < 0.08:
            self.call("fetch", {"url": self.site.base + "std/io.html"}, Read("web"))

    # ── changing things ──

    def propose(self, path: str) -> Change | None:
        """A real edit of `path`, chosen among what fits its content."""
        text = self.text(path)
        n = self.number()
        options: list[Change] = []
        for prefix, _name, value in CONSTANT.findall(text):
            line = f"{prefix}{value};"
            if text.count(line) == 1:
                new = (
                    f"{float(value) + 0.05:.2f}"
                    if "." in value
                    else str(int(value.replace("_", "")) + 4)
                )
                options.append(Change(path, line, f"{prefix}{new};"))
        if path.endswith(".rs"):
            fns = [
                ln for ln in text.splitlines() if PUB_FN.match(ln.strip()) and text.count(ln) == 1
            ]
            if fns:
                line = self.rng.choice(fns)
                indent = line[: len(line) - len(line.lstrip())]
                doc = f"{indent}/// Reviewed for #{n}.\n"
                options.append(Change(path, line, doc + line))
            if path.startswith("tests/"):
                options.append(
                    Change(
                        path,
                        append=(
                            f"\n#[test]\nfn amount_round_trip_{n}() {{\n    let a = "
                            f"ledgerline::Amount::from_cents({n});\n    assert_eq!(a.cents(), {n});"
                            "\n}\n"
                        ),
                    )
                )
            else:
                options.append(
                    Change(
                        path,
                        append=(
                            f"\n/// A value moved by {n}.\n"
                            f"pub fn shifted_{n}(value: i64) -> i64 {{\n    value + {n}\n}}\n"
                        ),
                    )
                )
        elif path.endswith(".md"):
            options.append(Change(path, append=f"\nSee also issue #{n} for the details.\n"))
            heads = [ln for ln in text.splitlines() if ln.startswith("#") and text.count(ln) == 1]
            if heads:
                line = self.rng.choice(heads)
                options.append(Change(path, line, f"{line}\n\n<!-- reviewed ({n}) -->"))
            if "## Unreleased\n" in text:
                entry = f"## Unreleased\n\n- {self.job.title} (#{n})."
                options.append(Change(path, "## Unreleased", entry))
        elif path == "Cargo.toml":
            for ln in text.splitlines():
                if ln.startswith("version = "):
                    options.append(Change(path, ln, f'version = "0.4.{2 + n % 3}"'))
        elif path == "Makefile":
            options.append(
                Change(path, append=f"\nbench{n}:\n\t$(CARGO) run --release -- check $(LEDGER)\n")
            )
        elif path.endswith((".py", ".sh")):
            options.append(Change(path, append=f"# checked ({n})\n"))
        elif path.endswith((".ledger", ".budget")):
            if path.endswith(".budget"):
                options.append(Change(path, append=f"budget expenses:transport {n}.00\n"))
            else:
                options.append(
                    Change(
                        path,
                        append=(
                            f"\n2025-03-{1 + n % 28:02d} Bakery\n"
                            f"    expenses:food  {n}.10\n    assets:cash\n"
                        ),
                    )
                )
        return self.rng.choice(options) if options else None

    def write(self, change: Change) -> Outcome:
        """Make the change with one of this agent's tools."""
        path = change.path
        text = self.text(path)
        after = change.apply(text)
        if self.habit == "mcp":
            if change.append and self.rng.random() < 0.5:
                return self.call("write_file", {"path": self.where(path), "content": after})
            if change.append:
                lines = text.splitlines(keepends=True)
                tail = next(  # the last lines, as few as name one place of the file
                    "".join(lines[-k:])
                    for k in range(1, len(lines) + 1)
                    if text.count("".join(lines[-k:])) == 1
                )
                edit = {"oldText": tail, "newText": tail + change.append}
            else:
                edit = {"oldText": change.old, "newText": change.new}
            data = {"path": self.where(path), "edits": [edit]}
            if self.rng.random() < 0.25:  # look at the diff first
                self.call("edit_file", dict(data, dryRun=True))
            return self.call("edit_file", data)
        if self.habit == "editor" and self.rng.random() < 0.85:
            if change.append:
                data = {
                    "command": "insert",
                    "path": f"{MOUNT}/{path}",
                    "insert_line": text.count("\n"),
                    "insert_text": change.append,
                }
            else:
                data = {"command": "str_replace", "path": f"{MOUNT}/{path}"}
                data |= {"old_str": change.old, "new_str": change.new}
            return self.call("text_editor", data)
        return self.call("bash", {"command": self.script(change, text, after)})

    def script(self, change: Change, before: str, after: str) -> str:
        """A shell script making the change: sed, perl, python, a patch, a here-document."""
        path = change.path
        r = self.rng.random()
        if change.append:
            body = change.append
            if r < 0.45:
                return f"cat >> {path} <<'EOF'\n{body}EOF"
            if r < 0.65 and "'" not in body:
                words = " ".join(quote(ln) for ln in body.splitlines())
                return f"printf '%s\\n' {words} | tee -a {path}"
            if r < 0.8:
                return f"tee -a {path} <<'EOF'\n{body}EOF"
        one_line = "\n" not in change.old and "\n" not in change.new
        if not change.append and one_line and SED_SAFE.match(change.old + change.new):
            if r < 0.35:
                return f"sed -i 's/{sed_pattern(change.old)}/{sed_pattern(change.new)}/' {path}"
            if r < 0.5:
                return f"perl -pi -e 's/\\Q{change.old}\\E/{change.new}/' {path}"
        if r < 0.7 and before.endswith("\n") and after.endswith("\n"):
            diff = "".join(
                difflib.unified_diff(
                    before.splitlines(keepends=True),
                    after.splitlines(keepends=True),
                    f"a/{path}",
                    f"b/{path}",
                )
            )
            if self.rng.random() < 0.6:
                return f"git apply <<'EOF'\n{diff}EOF"
            return f"patch -p1 <<'EOF'\n{diff}EOF"
        if change.append:
            old, new = before, after
        else:
            old, new = change.old, change.new
        return (
            "python3 - <<'EOF'\nfrom pathlib import Path\n"
            f"p = Path({path!r})\ns = p.read_text()\n"
            f"p.write_text(s.replace({old!r}, {new!r}, 1))\nEOF"
        )

    def edit(self, path: str | None = None) -> None:
        candidates = [f for f in self.job.focus if self.exists(f) and f != BIG]
        path = path or (self.rng.choice(candidates) if candidates else self.pick(".rs"))
        if path not in self.recent[-3:] and self.rng.random() < 0.7:
            self.read_whole(path)
        change = self.propose(path)
        if change is None:
            return
        if self.habit == "terminal" and self.rng.random() < 0.15:  # change, then look at it
            other = self.rng.choice([path, self.pick()])
            command = self.script(change, self.text(path), change.apply(self.text(path)))
            if "<<" not in command:
                self.call("bash", {"command": f"{command} && cat {other}"}, Read("file", other))
                self.saw(other)
                self.note_edit(path)
                return
        self.write(change)
        self.note_edit(path)
        r = self.rng.random()
        if r < 0.35:
            self.read_whole(path, same=self.rng.random() < 0.6)
        elif r < 0.5:
            self.git_query(f"diff -- {path}" if self.rng.random() < 0.5 else "diff")
        elif r < 0.7:
            self.build_test()

    def note_edit(self, path: str) -> None:
        if path not in self.edited:
            self.edited.append(path)

    def fix_cycle(self) -> None:
        """Edit, test, read the file again, edit again, test again."""
        rs = [f for f in self.job.focus if f.endswith(".rs") and self.exists(f)]
        path = self.rng.choice(rs) if rs else self.pick(".rs")
        self.read_whole(path)
        self.edit(path)
        self.build_test()
        self.read_whole(path, same=self.rng.random() < 0.5)  # what did I write again?
        if self.rng.random() < 0.6:
            self.edit(path)
            self.build_test()

    def failed_edit(self) -> None:
        """An edit that does not apply: a wrong indentation, a stale patch, a typo."""
        path = self.pick(".rs")
        self.read_whole(path)
        text = self.text(path)
        indented = [ln for ln in text.splitlines() if ln.startswith("    ") and ln.strip()]
        line = self.rng.choice(indented) if indented else "fn main() {"
        wrong = "\t" + line.strip()  # indented with a tab: the file has spaces
        if self.habit == "mcp":
            data = {
                "path": self.where(path),
                "edits": [{"oldText": wrong, "newText": wrong + " // x"}],
            }
            self.call("edit_file", data)
        elif self.habit == "editor":
            data = {"command": "str_replace", "path": f"{MOUNT}/{path}", "old_str": wrong}
            self.call("text_editor", data | {"new_str": wrong + " // fixed"})
        else:
            hunk = f"@@ -1,2 +1,2 @@\n-{wrong}\n+{wrong} // fixed\n {wrong}\n"
            stale = f"--- a/{path}\n+++ b/{path}\n{hunk}"
            self.call("bash", {"command": f"git apply <<'EOF'\n{stale}EOF"})
        self.read_whole(path, same=self.rng.random() < 0.5)

    def rename(self) -> None:
        """Rename a function everywhere with one pipeline; build; look at a file it touched."""
        names = [
            n for n in RENAMES if any(n in self.text(f) for f in self.files() if f.endswith(".rs"))
        ]
        if not names:
            return self.search()
        name = self.rng.choice(names)
        if self.rng.random() < 0.6:
            self.look("bash", {"command": f"rg -n '\\b{name}\\b' src tests"}, "search")
        command = f"rg -l '{name}' src tests | xargs sed -i 's/\\b{name}\\b/{RENAMES[name]}/g'"
        self.call("bash", {"command": command})
        self.build_test()
        touched = [f for f in self.files() if f.endswith(".rs") and RENAMES[name] in self.text(f)]
        for path in self.rng.sample(touched, min(len(touched), self.rng.randint(1, 2))):
            self.note_edit(path)
            self.read_whole(path)

    def same_bytes(self) -> None:
        """A change that leaves the bytes as they were; then the file is read again."""
        r = self.rng.random()
        if r < 0.35 and self.exists(BIG) and self.exists("scripts/gen_ledger.py"):
            self.call("bash", {"command": f"tail -n 20 {BIG}"}, Read("file", BIG))
            self.call("bash", {"command": f"python3 scripts/gen_ledger.py > {BIG}"})
            self.call("bash", {"command": f"tail -n 20 {BIG}"}, Read("file", BIG))
            return
        path = self.pick(".rs")
        self.read_whole(path)
        if r < 0.7:
            pattern = self.rng.choice(self.job.patterns).replace("(", "").replace(" ", "_")
            self.call("bash", {"command": f"sed -i 's/{pattern}_old/{pattern}/g' {path}"})
        elif self.habit == "mcp":
            self.call("write_file", {"path": self.where(path), "content": self.text(path)})
        else:
            self.call("bash", {"command": f"rustfmt --edition 2021 {path}"})
        self.read_whole(path, same=self.rng.random() < 0.6)

    def build_test(self) -> None:
        r = self.rng.random()
        tests = [f for f in self.job.focus if f.startswith("tests/")]
        target = tests[0][6:-3] if tests else "parse"
        if self.habit == "terminal":
            forms = [
                ("bash", "make test"),
                ("bash", "make test 2>&1 | tail -20"),
                ("bash", f"cargo test -q --test {target}"),
                ("make", "test"),
                (
                    "bash",
                    "make build && ./target/debug/ledgerline balance examples/household.ledger"
                    " --depth 2",
                ),
                ("bash", "make lint"),
                ("make", "check"),
            ]
        elif self.habit == "mcp":
            forms = [
                ("make", "test"),
                ("make", "build"),
                ("cargo", "test -q"),
                ("cargo", f"test -q --test {target}"),
                ("make", "lint"),
                ("cargo", "run -q -- check examples/household.ledger"),
            ]
        else:
            forms = [
                ("cargo", "test -q"),
                ("cargo", f"test -q --test {target}"),
                ("cargo", "build"),
                ("cargo", "clippy -q"),
                ("bash", "make test"),
            ]
        tool, command = forms[int(r * len(forms))]
        self.call(tool, {"command": command})
        after = self.rng.random()
        if after < 0.3 and self.recent:  # back to the file it was working on
            self.read_whole(self.recent[-1])
        elif after < 0.45:
            self.git_query(self.rng.choice(["status", "status -sb", "diff --stat"]))

    def format(self) -> None:
        before = self.pick(".rs")
        if self.rng.random() < 0.6:
            self.read_whole(before)
        if self.habit == "terminal":
            command = self.rng.choice(["make fmt", "cargo fmt", "cargo fmt && git diff --stat"])
            if "diff" in command:
                self.call("bash", {"command": command}, Read("git"))
            else:
                self.call("bash", {"command": command})
        elif self.habit == "mcp":
            self.call("make", {"command": "fmt"})
        else:
            self.call("cargo", {"command": "fmt"})
        self.read_whole(before if self.rng.random() < 0.7 else self.pick(".rs"))

    def commit(self) -> None:
        if self.rng.random() < 0.5:
            self.git_query("status")
        message = self.rng.choice([self.job.title, "Address review comments", "Fix the tests"])
        if self.habit == "terminal":
            self.call("bash", {"command": f"git add -A && git commit -qm {quote(message)}"})
        elif self.rng.random() < 0.5:
            self.call("git", {"command": "add -A"})
            self.call("git", {"command": f'commit -m "{message}"'})
        else:
            self.call("git", {"command": f"commit -am '{message}'"})
        self.git_query(self.rng.choice(["status", "log --oneline -3"]))

    def stash(self) -> None:
        """Put the changes aside, run the tests without them, bring them back."""
        edited = [f for f in self.edited if self.exists(f)]
        if not edited:
            return self.edit()
        path = self.rng.choice(edited)
        if self.rng.random() < 0.5:
            self.read_whole(path)
        if self.habit == "terminal" and self.rng.random() < 0.5:
            self.call("bash", {"command": "git stash && make test; git stash pop"})
        else:
            self.call("git", {"command": "stash"})
            self.read_whole(path)
            self.build_test()
            self.call("git", {"command": "stash pop"})
        self.read_whole(path, same=self.rng.random() < 0.5)

    def revert(self) -> None:
        edited = [f for f in self.edited if self.exists(f)]
        path = self.rng.choice(edited) if edited else self.pick()
        command = self.rng.choice([f"checkout -- {path}", f"restore {path}"])
        if self.habit == "terminal":
            self.call("bash", {"command": f"git {command}"})
        else:
            self.call("git", {"command": command})
        self.read_whole(path, same=self.rng.random() < 0.5)

    def switch(self) -> None:
        if self.branch == "main":
            self.branch = self.rng.choice(["fix/depth", "wip/columns", "release/0.4.2"])
            self.call("git", {"command": f"switch -c {self.branch}"})
            if self.edited and self.rng.random() < 0.5:
                self.call("git", {"command": "commit -qam 'Work in progress'"})
        else:
            self.branch = "main"
            self.call("git", {"command": "switch main"})
        self.git_query("status -sb")
        if self.recent:
            self.read_whole(self.recent[-1])

    def create(self) -> None:
        """A new test file, written whole; then it is listed, run and often read back."""
        n = self.number()
        path = f"tests/regression_{n}.rs"
        body = (
            "use ledgerline::parse_ledger;\n\n#[test]\n"
            f'fn parses_case_{n}() {{\n    let text = "2025-01-0{1 + n % 9} Shop\\n    '
            f'expenses:misc  {n}.00\\n    assets:cash\\n";\n'
            "    assert_eq!(parse_ledger(text).unwrap().transactions.len(), 1);\n}\n"
        )
        if self.habit == "mcp":
            self.call("write_file", {"path": f"{MOUNT}/{path}", "content": body})
        elif self.habit == "editor":
            self.call(
                "text_editor", {"command": "create", "path": f"{MOUNT}/{path}", "file_text": body}
            )
        else:
            self.call("bash", {"command": f"cat > {path} <<'EOF'\n{body}EOF"})
        self.note_edit(path)
        if self.rng.random() < 0.5:
            self.listing("tests")
        if self.rng.random() < 0.5:
            self.read_whole(path)
        run = f"test -q --test regression_{n}"
        self.call(
            "bash" if self.habit == "terminal" else "cargo",
            {"command": ("cargo " if self.habit == "terminal" else "") + run},
        )

    def move(self) -> None:
        src, dst = "examples/README.md", "examples/INDEX.md"
        if not self.exists(src):
            src, dst = dst, src
        if self.habit == "mcp":
            self.call("move_file", {"source": f"{MOUNT}/{src}", "destination": f"{MOUNT}/{dst}"})
        elif self.habit == "editor":
            self.call("bash", {"command": f"mv {src} {dst}"})
        else:
            self.call("bash", {"command": f"git mv {src} {dst}"})
        self.listing("examples")
        if self.rng.random() < 0.5:
            self.read_whole(dst)

    def docs(self) -> None:
        """Build the manual; look at what came out."""
        if self.habit == "mcp":
            self.call("make", {"command": "docs"})
            self.listing("site")
        else:
            self.call("bash", {"command": "make docs"})
            self.look("bash", {"command": "ls site"}, "listing")
        if self.exists("site/format.html") and self.rng.random() < 0.6:
            self.read_whole("site/format.html")

    # ── an attempt ──

    def orient(self) -> None:
        """The first look at the repository."""
        if self.habit == "terminal":
            first = self.rng.choice(["ls", "ls -la", "git status -sb", "tree -L 2 -I target"])
            self.look("bash", {"command": first}, "git" if "git" in first else "listing")
        elif self.habit == "mcp":
            self.look("list_directory", {"path": MOUNT}, "listing")
        else:
            self.look("text_editor", {"command": "view", "path": MOUNT}, "listing")
        for path in ("README.md", "Makefile", "Cargo.toml"):
            if self.rng.random() < 0.35:
                self.read_whole(path)

    def attempt(self, calls: int) -> None:
        """Work until about `calls` calls are made in this attempt."""
        target = self.rec.calls + calls
        self.orient()
        # after a reset (a new attempt, a new task) the agent goes back to what it had read
        for path in self.recent[-3:]:
            if self.rec.calls < target and self.exists(path) and self.rng.random() < 0.6:
                self.read_whole(path)
        episodes, weights = zip(*self.episodes, strict=True)
        while self.rec.calls < target:
            self.rng.choices(episodes, weights)[0]()


# ── sessions ──────────────────────────────────────────────────────────────────


def git(root: Path, *args: str, date: str | None = None) -> None:
    env = dict(os.environ, GIT_CONFIG_NOSYSTEM="1", HOME=str(root))
    if date:
        env |= {"GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date}
    subprocess.run(["git", *args], cwd=root, env=env, check=True, capture_output=True)


def make_template(work: Path, template: Path, env: dict[str, str]) -> None:
    """The project at `work`, committed in four commits and built once, then kept at
    `template` (cargo's fingerprints survive the copy: every session runs at `work`)."""
    shutil.copytree(PROJECT, work)
    (work / "data").mkdir()
    ledger = subprocess.run(
        [sys.executable, "scripts/gen_ledger.py"], cwd=work, check=True, capture_output=True
    ).stdout
    (work / BIG).write_bytes(ledger)
    cargo = {**env, "CARGO_TERM_COLOR": "never"}
    subprocess.run(
        ["cargo", "generate-lockfile", "--offline", "-q"], cwd=work, env=cargo, check=True
    )
    git(work, "init", "-q", "-b", "main")
    git(work, "config", "user.name", "Ledgerline Dev")
    git(work, "config", "user.email", "dev@ledgerline.example")
    later = [p for _, _, paths in COMMITS[1:] for p in paths]
    git(work, "add", "-A")
    git(work, "reset", "-q", "--", *later)
    git(work, "commit", "-q", "-m", COMMITS[0][0], date=COMMITS[0][1])
    for message, date, paths in COMMITS[1:]:
        git(work, "add", "--", *paths)
        git(work, "commit", "-q", "-m", message, date=date)
    for build in (["build", "-q"], ["test", "-q", "--no-run"], ["clippy", "-q"]):
        subprocess.run(["cargo", *build], cwd=work, env=cargo, check=False, capture_output=True)
    shutil.copytree(work, template, symlinks=True)
    shutil.rmtree(work)


@dataclass
class Plan:
    """The shape of one trace: its habit, tasks (a persistent capsule has several), attempts,
    calls; how it ends."""

    habit: str
    tasks: list[list[int]] = field(default_factory=list)
    persistent: bool = False
    window: int = 0
    killed: str = ""  # "", "mid_shell" (before a shell line), "torn" (a half line), "cut"


def plan(rng: random.Random, calls: tuple[int, int], index: int) -> Plan:
    habit = (
        ["terminal", "mcp", "editor"][index % 3] if rng.random() < 0.8 else rng.choice(list(HABITS))
    )
    p = Plan(habit=habit, persistent=rng.random() < 0.25)
    p.window = rng.choice([0, 0, 12_000, 18_000, 26_000])
    p.killed = rng.choices(["", "mid_shell", "torn", "cut"], [88, 4, 4, 4])[0]
    total = rng.randint(*calls)
    ntasks = rng.randint(2, 3) if p.persistent else 1
    for share in split(total, ntasks, rng):
        attempts = 2 if rng.random() < 0.2 and share >= 16 else 1
        p.tasks.append(split(share, attempts, rng))
    return p


def split(total: int, parts: int, rng: random.Random) -> list[int]:
    cuts = sorted(rng.sample(range(6, total - 5), parts - 1)) if parts > 1 else []
    edges = [0, *cuts, total]
    return [b - a for a, b in zip(edges, edges[1:], strict=False)]


def kill(lines: list[str], rows: list[dict], how: str, rng: random.Random):
    """The trace of a session killed before its end, and the truth of the calls it kept."""
    if how == "mid_shell":  # after a shell tool's call was written, before its shell event
        calls = [i for i in range(len(lines) - 1) if '"event_type":"shell"' in lines[i + 1]]
        cut = calls[len(calls) // 2 + rng.randint(0, len(calls) // 3)] + 1
        return lines[:cut], [r for r in rows if r["line"] <= cut], ""
    calls = [i + 1 for i, line in enumerate(lines) if '"event_type":"tool_call"' in line]
    cut = calls[len(calls) // 2 + rng.randint(0, len(calls) // 3)]
    if how == "torn":  # the write of this call's line was cut in the middle
        torn = lines[cut - 1][: len(lines[cut - 1]) // 2]
        return lines[: cut - 1], [r for r in rows if r["line"] < cut], torn
    return lines[:cut], [r for r in rows if r["line"] <= cut], ""


def record_session(
    index: int,
    template: Path,
    work: Path,
    bin_dir: Path,
    site: LedgerSite,
    seed: int,
    calls: tuple[int, int],
    include_output: bool = False,
) -> tuple[list[str], str, list[dict], Plan]:
    """Record one session: its trace lines, a torn last piece (or ""), its truth rows."""
    rng = random.Random(f"heldout:{seed}:{index}")
    clock = Clock(START + index * 5_400_000 + rng.randint(0, 3_000_000))
    session_id = "ses_" + uuid7_hex(clock.now, rng)
    if work.exists():
        shutil.rmtree(work)
    shutil.copytree(template, work, symlinks=True)
    site.reset()
    shape = plan(rng, calls, index)
    tools, shell_tools = HABITS[shape.habit]
    ws = Checkout(work, site, clock, bin_dir)
    ws.shell_tools = shell_tools
    truth = HeldoutTruth(session_id, ws)
    capsule = f"ledgerline-{'keeper' if shape.persistent else 'dev'}-{shape.habit}"
    model = rng.choice(MODELS)
    writer = TraceWriter(session_id, clock, capsule, include_output, tools, shell_tools, model)
    rec = Recorder(writer, ws, truth, rng)
    rec.window = shape.window
    agent = Agent(rec, ws, site, rng, shape.habit)
    jobs = rng.sample(JOBS, len(shape.tasks))
    try:
        for job, attempts in zip(jobs, shape.tasks, strict=True):
            agent.job = job
            task_id = "tsk_" + uuid7_hex(clock.now, rng)
            context_id = "ctx_" + uuid7_hex(clock.now, rng)
            message = f"{job.title}.\n"
            if shape.persistent:
                clock.tick(rng.randint(20_000, 900_000))
                writer.write(
                    "a2a_task_received",
                    task_id=task_id,
                    context_id=context_id,
                    message_id="msg_" + uuid7_hex(clock.now, rng),
                    traceparent_from_caller=None,
                )
            writer.task_start(
                task_id, context_id, "a2a" if shape.persistent else "task_md", utf8_len(message)
            )
            for number, share in enumerate(attempts):
                if number:
                    writer.write(
                        "task_reopened",
                        task_id=task_id,
                        hook_name="ci-gate",
                        reason="make lint fails: fix the warnings and run make test",
                        reopen_number=number,
                    )
                rec.attempt_start(120, utf8_len(message))
                agent.attempt(share)
                rec.attempt_end()
            writer.task_end(task_id, "ok", len(attempts) - 1)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    lines, rows, torn = writer.lines, truth.rows, ""
    if shape.killed:
        lines, rows, torn = kill(lines, rows, shape.killed, rng)
    return lines, torn, rows, shape


def record(
    out: Path,
    sessions: int,
    seed: int,
    include_output: bool = False,
    calls: tuple[int, int] = (24, 72),
) -> Path:
    """Record `sessions` sessions under `out` (workdir/, truth.jsonl, effects.toml); return
    the workdir."""
    for program in ("cargo", "make", "rg", "fdfind", "tree", "perl", "patch", "git"):
        if shutil.which(program) is None:
            raise SystemExit(f"record_heldout: {program} is needed to record these sessions")
    out.mkdir(parents=True, exist_ok=True)
    workdir = out / "workdir"
    if workdir.exists():
        shutil.rmtree(workdir)
    workdir.mkdir()
    (out / "effects.toml").write_text(EFFECTS_TOML, encoding="utf-8")
    with tempfile.TemporaryDirectory(prefix="mur-heldout-") as tmp:
        scratch = Path(tmp)
        bin_dir = scratch / "bin"
        bin_dir.mkdir()
        (bin_dir / "fd").symlink_to(shutil.which("fdfind"))
        (scratch / "ripgreprc").write_text("--sort=path\n", encoding="utf-8")
        (scratch / "site").mkdir()
        site = LedgerSite(scratch / "site")
        work, template = scratch / NAME, scratch / "template"
        probe = Checkout(scratch, site, Clock(START), bin_dir)
        make_template(work, template, probe.env)
        summary = []
        try:
            with open(out / "truth.jsonl", "w", encoding="utf-8") as truth:
                for index in range(sessions):
                    lines, torn, rows, shape = record_session(
                        index, template, work, bin_dir, site, seed, calls, include_output
                    )
                    session_id = json.loads(lines[0])["session_id"]
                    trace = workdir / session_id / "trace.jsonl"
                    trace.parent.mkdir()
                    text = "".join(line + "\n" for line in lines) + torn
                    trace.write_text(text, encoding="utf-8")
                    for row in rows:
                        truth.write(json.dumps(row, ensure_ascii=False) + "\n")
                    summary.append((session_id, shape, len(rows)))
                    print(
                        f"{index:>3} {session_id} {shape.habit:<8} tasks={len(shape.tasks)} "
                        f"window={shape.window} killed={shape.killed or '-'} reads={len(rows)}",
                        flush=True,
                    )
        finally:
            site.close()
    return workdir


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=40)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--out", type=Path, default=Path("benchmarks/heldout"))
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
