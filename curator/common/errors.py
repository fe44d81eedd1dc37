"""The errors curator reports to people: each is one line saying what is wrong and where.

`PuzzleError`: an input file is malformed ("file: key: problem"). `StoreError`: stored
results are missing, damaged or belong to another puzzle; two kinds of it carry their remedy
apart from the problem, so that a front end can word the remedy as its own options and
commands (`FolderRefused`, `DamagedResults`). `SelectionError`: an argument (a filter, a rank,
a cell, a drawing) is wrong.
"""

from __future__ import annotations

import string
from collections.abc import Callable
from pathlib import Path


def one_line(text: str) -> str:
    """`text` with line breaks and other control characters escaped."""
    return "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in text)


class PuzzleError(ValueError):
    """An input file is malformed; the message is one line: file: key: problem."""

    def __init__(self, source: str, key: str, message: str) -> None:
        super().__init__(f"{one_line(source)}: {one_line(key)}: {one_line(message)}")
        self.source = source
        self.key = key
        self.problem = message

    def __reduce__(self) -> tuple[type[PuzzleError], tuple[str, str, str]]:
        """Rebuilt from its three parts (a worker process's error reaches the caller whole)."""
        return type(self), (self.source, self.key, self.problem)


class StoreError(Exception):
    """Stored results are missing, damaged or belong to another puzzle (one-line message)."""


class FolderRefused(StoreError):
    """A results folder cannot take an analysis as it is (another analysis is writing there,
    it holds another puzzle's results, its manifest is damaged).

    `advice` names the keyword arguments of the analysis that get round it as fields
    (`{force}`, `{output}`): the message spells them as Python does, `spelled` as a caller's
    naming does (the command line's is `--force`, `--output`).
    """

    def __init__(self, problem: str, advice: str) -> None:
        super().__init__(problem, advice)
        self.problem = problem
        self.advice = advice

    def __str__(self) -> str:
        return self.spelled(lambda keyword: keyword)

    def spelled(self, name: Callable[[str], str]) -> str:
        """The message with each keyword of the advice as `name` spells it."""
        keywords = {field for _, field, _, _ in string.Formatter().parse(self.advice) if field}
        return f"{self.problem}; {self.advice.format(**{k: name(k) for k in keywords})}"


class DamagedResults(StoreError):
    """Stored results fail a check that only computing them again mends: analyzing the
    folder's puzzle copy (`puzzle_file`) into the folder (`directory`) again.

    With `every_layer`, bits that match their checksums are wrong: the folder should be
    verified, and every layer computed again, not only the damaged ones.
    """

    def __init__(self, problem: str, directory: Path, puzzle_file: Path, every_layer: bool = False) -> None:
        super().__init__(problem, directory, puzzle_file, every_layer)
        self.problem = problem
        self.directory = directory
        self.puzzle_file = puzzle_file
        self.every_layer = every_layer

    def __str__(self) -> str:
        if self.every_layer:
            return (f"{self.problem}; verify {self.directory}, then analyze {self.puzzle_file} into it "
                    "again with force")
        return f"{self.problem}; analyzing {self.puzzle_file} into {self.directory} again recomputes it"


class SelectionError(ValueError):
    """A filter, rank, cell list or board drawing is wrong (one-line message)."""


class EmptyPool(SelectionError):
    """A pack's filters leave no level to pack; the caller may say where levels are."""


class TooLittleData(SelectionError):
    """A calibration has too few graded or playtested levels to fit; the message says how many
    it needs and how many it has."""


class SearchTooLarge(StoreError):
    """A search above the stored layers would pass its bound of positions: the stored layers
    reach too low for the position. `pieces` is how far an analysis should go first (its
    `max_pieces`) so that the positions searched above the stored layers stay within the
    bound; a front end words that advice as its own command (`spelled`)."""

    def __init__(self, problem: str, pieces: int) -> None:
        super().__init__(problem, pieces)
        self.problem = problem
        self.pieces = pieces

    def __str__(self) -> str:
        return self.spelled(lambda pieces: f"analyze with max_pieces={pieces}")

    def spelled(self, command: Callable[[int], str]) -> str:
        """The message with the analysis to run first as `command(pieces)` words it."""
        return f"{self.problem}; analyze up to {self.pieces} pieces first ({command(self.pieces)})"
