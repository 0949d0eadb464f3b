"""Errors with the stable codes of `mur trace` (SPEC section 4)."""

from __future__ import annotations

E_TRC_001 = "E-TRC-001"  # malformed trace (names file:line); an empty trace file too
E_TRC_002 = "E-TRC-002"  # session not found / ambiguous / bad ordinal or --since
E_IO_001 = "E-IO-001"  # file or directory not found
E_IO_003 = "E-IO-003"  # unreadable
E_CFG_003 = "E-CFG-003"  # an optional dependency is missing (names what to install)


class MurTraceError(Exception):
    """An error a user can act on: a stable code and a one-line message."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message

    def __str__(self) -> str:
        return f"error[{self.code}]: {self.message}"
