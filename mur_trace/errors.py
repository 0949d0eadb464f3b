"""Errors with the stable codes of `mur trace` (SPEC section 4)."""

from __future__ import annotations

import os
import re
from collections.abc import Sequence

E_TRC_001 = "E-TRC-001"  # malformed trace (names file:line); an empty trace file too
E_TRC_002 = "E-TRC-002"  # session not found / ambiguous / bad ordinal or --since
E_IO_001 = "E-IO-001"  # file or directory not found
E_IO_003 = "E-IO-003"  # unreadable
E_USAGE = "E-CLI-001"  # a command line that cannot be understood (usage)
E_INTERRUPTED = "E-CLI-130"  # interrupted (Ctrl-C): exit 130
E_TERMINATED = "E-CLI-143"  # terminated (SIGTERM: `timeout`, a cancelled job): exit 143
E_IO_004 = "E-IO-004"  # refused: the write would touch an input or what the command did not create
E_CFG_003 = "E-CFG-003"  # an optional dependency is missing (names what to install)


class MurTraceError(Exception):
    """An error a user can act on: a stable code and a one-line message, and in `more` the
    lines that follow it, if any (an ambiguous session argument lists its candidates below
    it, one a line, as `mur trace` does). Each line is shown with its control characters
    escaped, a line break inside a name too: a name cannot start a line of its own."""

    def __init__(self, code: str, message: str, more: Sequence[str] = ()) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.more = tuple(more)

    def __reduce__(self) -> tuple[type, tuple[str, str, tuple[str, ...]]]:
        """Pickled with its code (a process pool, a notebook's cache): it was not."""
        return (type(self), (self.code, self.message, self.more))

    def __str__(self) -> str:
        return "\n".join([f"error[{self.code}]: {visible(self.message)}", *map(visible, self.more)])


class UsageError(MurTraceError, TypeError, ValueError):
    """`E-CLI-001` from the Python API: an argument of the wrong kind or value (what the
    command line refuses as a usage error). Also a TypeError and a ValueError, what
    Python's own checks raise, so that code catching those still catches it."""

    def __init__(self, message: str) -> None:
        super().__init__(E_USAGE, message)

    def __reduce__(self) -> tuple[type, tuple[str]]:
        return (type(self), (self.message,))


def visible(text: str) -> str:
    """`text` safe for a terminal: control characters (escape sequences, carriage returns,
    line breaks inside a value) are written as JSON escapes (`\\u001b`, `\\r`, `\\n`)."""
    if not _CONTROL.search(text):
        return text
    return _CONTROL.sub(_escape, text)


#: C0 and C1 controls, DEL, line and paragraph separators, bidirectional overrides, and
#: lone surrogates (a file name that is not UTF-8, as Python decodes it).
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    if "\udc80" <= char <= "\udcff":  # the byte a name holds, as a path's text shows it
        return f"\\x{ord(char) - 0xDC00:02x}"
    return {"\t": "\\t", "\r": "\\r", "\n": "\\n"}.get(char, f"\\u{ord(char):04x}")


#: DuckDB's words for a read past the end of a database file
_SHORT_READ = re.compile(
    r'Could not read enough bytes from file "(.*)": attempted to read (\d+) bytes from '
    r"location (\d+)"
)


def cut_short(error: BaseException, path: str | None = None) -> str | None:
    """What to say when DuckDB read past the end of a database file (a catalog copied or
    written only in part): the file (`path`, as the user gave it, else as DuckDB names
    it), its size and the bytes DuckDB looked for. None for any other error."""
    found = _SHORT_READ.search(str(error))
    if found is None:
        return None
    named, wanted, start = found.group(1), int(found.group(2)), int(found.group(3))
    try:
        size = f"{os.stat(named).st_size:,} bytes"
    except OSError:
        size = "fewer bytes"
    return (
        f"{path or named} is cut short: it holds {size}, and DuckDB looked for bytes "
        f"{start:,} to {start + wanted:,} of it"
    )
