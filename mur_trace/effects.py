"""The effects file: what tools that declare nothing do (`--effects FILE`).

    # effects.toml
    [fs-mcp]                       # a tool
    effect = "read"                # every call of it, unless a field rule below matches

    [fs-mcp.operation]             # or by the value of one of its input fields
    read_text_file = "read"
    write_file = "mutate"

    [git.args]                     # non-string fields never match
    status = "read"

Effects are `read` or `mutate`; they apply only to calls whose own `state_effect` is
neither (see queries/rules/declared_effects.sql).
"""

from __future__ import annotations

import tomllib
from pathlib import Path

from .errors import E_IO_003, MurTraceError
from .load import file_problem

EFFECTS = ("read", "mutate")
E_CFG = "E-CFG-002"  # an effects file that cannot be used

Effect = tuple[str, str | None, str | None, str]


def _check(value: object, where: str, path: Path) -> str:
    if value not in EFFECTS:
        raise MurTraceError(E_CFG, f'{path}: {where} must be "read" or "mutate", not {value!r}')
    return str(value)


def parse_effects(text: str, path: Path) -> list[Effect]:
    """Rows of `declared_effects` from the text of an effects file."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise MurTraceError(E_CFG, f"{path}: not valid TOML: {exc}") from None
    except RecursionError:
        raise MurTraceError(E_CFG, f"{path}: not an effects file: nested too deep") from None
    rows: list[Effect] = []
    for tool, spec in data.items():
        if not isinstance(spec, dict):
            raise MurTraceError(E_CFG, f"{path}: [{tool}] must be a table")
        for key, value in spec.items():
            if key == "effect":
                rows.append((tool, None, None, _check(value, f"{tool}.effect", path)))
            elif isinstance(value, dict):
                for field_value, effect in value.items():
                    where = f"{tool}.{key}.{field_value}"
                    rows.append((tool, key, field_value, _check(effect, where, path)))
            else:
                raise MurTraceError(
                    E_CFG, f"{path}: {tool}.{key} must be `effect = ...` or a table of values"
                )
    return rows


def read_effects(path: str | Path) -> list[Effect]:
    """Rows of `declared_effects` from an effects file."""
    path = Path(path)
    problem = file_problem(str(path), "effects file")  # a pipe or a device would block
    if problem is not None:
        raise MurTraceError(problem.code, problem.message)
    try:
        text = path.read_text(encoding="utf-8-sig")  # a byte order mark is not TOML
    except UnicodeDecodeError as exc:
        raise MurTraceError(
            E_IO_003, f"failed to read {path}: not valid UTF-8 text (byte {exc.start})"
        ) from None
    except OSError as exc:
        raise MurTraceError(E_IO_003, f"failed to read {path}: {exc.strerror or exc}") from None
    return parse_effects(text, path)
