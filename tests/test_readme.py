"""The README's examples are what the commands print: every ```-block line `$ mur-trace …`
is run from the repository's root and its output compared with the lines under it, up
to the next `$` line or the block's end; where the README cuts the output (a line `…`),
the lines it shows must come in that order. An example piped into `head -N` is compared
on its first N lines; other pipes, and examples on paths outside the repository
(`~/.claude/…`), are not run."""

from __future__ import annotations

import os
import re
import shlex
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mur_trace.cli import app

ROOT = Path(__file__).resolve().parent.parent
runner = CliRunner()


def _examples() -> list[tuple[str, str]]:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    found = []
    for block in re.findall(r"```\n(\$ mur-trace .*?)```", readme, re.S):
        for part in re.split(r"^(?=\$ )", block, flags=re.M):
            if not part.startswith("$ "):
                continue
            command, _, output = part.partition("\n")
            if re.sub(r" \| head -\d+$", "", command).count("|") or "~" in command:
                continue
            found.append((command[2:], output.rstrip("\n")))
    return found


EXAMPLES = _examples()


def test_the_readme_has_examples_to_check() -> None:
    assert len(EXAMPLES) >= 10


@pytest.mark.parametrize(("command", "output"), EXAMPLES, ids=[c for c, _ in EXAMPLES])
def test_a_readme_example_prints_what_the_readme_shows(command: str, output: str) -> None:
    command, _, head = command.partition(" | head -")
    args = shlex.split(command)[1:]
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        result = runner.invoke(app, args)
    finally:
        os.chdir(cwd)
    assert result.exit_code in (0, 1), result.output  # 1: `check` found sessions over
    printed = result.stdout.rstrip("\n")
    if head:
        printed = "\n".join(printed.splitlines()[: int(head)])
    if "…" not in output:
        assert printed == output
        return
    lines = iter(printed.splitlines())
    for shown in output.splitlines():
        if shown.strip() != "…":
            assert any(line == shown for line in lines), shown  # in order
