"""What distance tables and sliding-block tables share: a results folder whose manifest lists
positions per distance, and the front of the results object over it.

Each kind names its store class and puzzle reader; `LayeredResults` has layers instead.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from curator.common.difficulty import WALKED_DEFAULT, Player, read_player
from curator.common.errors import StoreError
from curator.common.exports import Exporting
from curator.common.files import F, ResultsFolder
from curator.common.keywords import Naming, same_name


def _is_row(row: Any) -> bool:
    """Whether a manifest's row per distance holds counts (whole numbers from 0) alone."""
    return (isinstance(row, dict) and "distance" in row and "positions" in row
            and all(type(value) is int and value >= 0 for value in row.values()))


class DistanceFolder(ResultsFolder):
    """A results folder whose manifest lists positions per distance ("distances")."""

    @classmethod
    def open(cls: type[F], directory: Path) -> F:
        """Open an existing folder of this kind of tables for reading."""
        return cls.open_tables(directory)

    @property
    def complete(self) -> bool:
        return bool(self.manifest.get("complete"))

    @property
    def rows(self) -> list[dict[str, Any]]:
        """The manifest's rows per distance ("distances": each a distance and its positions,
        and per kind more counts), as far as the sweep has got; StoreError unless they are
        rows of counts from 0 in rising distances."""
        rows = self.manifest.get("distances", [])
        if not (isinstance(rows, list) and all(_is_row(row) for row in rows)
                and all(a["distance"] < b["distance"] for a, b in zip(rows, rows[1:]))):
            raise StoreError(f"{self.manifest_path}: damaged manifest (distances)")
        return [dict(row) for row in rows]

    @property
    def counts(self) -> list[int]:
        """Positions per distance listed, as far as the sweep has got."""
        return [row["positions"] for row in self.rows]

    @property
    def seconds(self) -> float:
        return cast(float, self.manifest.get("seconds", 0.0))

    if TYPE_CHECKING:  # what every kind's store gives (DistanceStore, SlidingStore)
        def puzzle(self) -> Any: ...
        def damaged(self) -> str | None: ...
        def summary(self) -> dict[str, Any]: ...


def must_recompute(store: DistanceFolder, warn: Callable[[str], None] | None) -> bool:
    """Whether a finished folder's tables must be computed again, `warn` saying why: one is
    missing or no longer as its manifest records it."""
    problem = store.damaged()
    if problem is not None and warn is not None:
        warn(f"{problem}; computing the tables again")
    return problem is not None


class DistanceResultsBase(Exporting):
    """The results object over a `DistanceFolder`: its store, the puzzle read once, and the
    table per distance that `curator info` shows."""

    kind = ""
    store_class: type[DistanceFolder] = DistanceFolder

    def __init__(self, directory: str | Path, name: Naming | None = None) -> None:
        """`name` spells keywords in error messages (the command line passes its options)."""
        self.directory = Path(directory)
        self.store = self.store_class.open(self.directory)
        self._name = name or same_name

    def __repr__(self) -> str:
        return f"{type(self).__name__}({str(self.directory)!r})"

    @cached_property
    def puzzle(self) -> Any:
        """The puzzle, read once from the folder's copy of its file."""
        return self.store.puzzle()

    @property
    def complete(self) -> bool:
        return self.store.complete

    @cached_property
    def player(self) -> Player:
        """The player model that rates these levels: the one `curator calibrate` stored here
        (checked against its checksum and the puzzle file), else the defaults of levels
        measured along their solution (`WALKED_DEFAULT`)."""
        return read_player(self.directory, self.puzzle.sha256, WALKED_DEFAULT)

    @property
    def layers(self) -> list[dict[str, int]]:
        """Positions per distance (with their counts), as `curator info --json` prints them."""
        return self.store.rows

    def summary(self) -> dict[str, Any]:
        """What `curator info --json` prints."""
        return self.store.summary()
