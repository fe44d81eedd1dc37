"""The errors curator reports to people: each is one line saying what is wrong and where.

`PuzzleError`: an input file is malformed ("file: key: problem"). `StoreError`: stored
results are missing, damaged or belong to another puzzle. `SelectionError`: an argument (a
filter, a rank, a cell, a drawing) is wrong.
"""

from __future__ import annotations


def one_line(text: str) -> str:
    """`text` with line breaks and other control characters escaped."""
    return "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in text)


class PuzzleError(ValueError):
    """An input file is malformed; the message is one line: file: key: problem."""

    def __init__(self, source: str, key: str, message: str) -> None:
        super().__init__(f"{one_line(source)}: {one_line(key)}: {one_line(message)}")
        self.source = source
        self.key = key


class StoreError(Exception):
    """Stored results are missing, damaged or belong to another puzzle (one-line message)."""


class SelectionError(ValueError):
    """A filter, rank, cell list or board drawing is wrong (one-line message)."""
