"""What the level files for game engines and editors (`curator.export.ldtk`,
`curator.export.tiled`) hold of a level, whatever kind of puzzle it comes from: a `Stage`.

Each kind's exporter turns its levels into stages: the board's box of rows x columns, each
cell a floor, a wall (inside the box but not on the board), a goal cell or an exit; its pieces, each
at its anchor cell (its first cell in row-major order) with its letter and shape; the level's
figures (difficulty, moves, unique, ...) and one solution as text, one entry per move.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from curator.arrange import PackCurve
from curator.common.board import Board
from curator.common.figures import difficulty_value
from curator.export.writing import ExportError

FLOOR, WALL, GOAL, EXIT = 1, 2, 3, 4
"""What a cell of the board's box is: on the board, not on it, on it and in the goal, or on it
and an exit pieces drop out through (a tilt puzzle's)."""
CELL_NAMES = {FLOOR: "floor", WALL: "wall", GOAL: "goal", EXIT: "exit"}
CELL_COLOURS = {FLOOR: "#d9d4c7", WALL: "#3d3b38", GOAL: "#f0c419", EXIT: "#1d1c1a"}
"""Colours of the cells in an editor (and of the tileset image of Tiled maps)."""
CELL = 32
"""Pixels per cell in the editors' grids."""
FIGURE_KINDS = ("int", "float", "bool", "string")


@dataclass(frozen=True)
class Piece:
    """One piece on a stage: its letter, its anchor cell and the cells it covers."""

    letter: str
    row: int
    col: int
    cells: tuple[tuple[int, int], ...] = ((0, 0),)
    """The cells it covers, as (row, col) offsets from the anchor."""
    goal: bool = False
    """The piece the goal is about (a sliding-block puzzle's goal piece)."""

    @property
    def top(self) -> int:
        """The first row of its box (the rows and columns of its cells)."""
        return self.row + min(r for r, _ in self.cells)

    @property
    def left(self) -> int:
        """The first column of its box (left of the anchor for shapes that widen below it)."""
        return self.col + min(c for _, c in self.cells)

    @property
    def width(self) -> int:
        return max(c for _, c in self.cells) - min(c for _, c in self.cells) + 1

    @property
    def height(self) -> int:
        return max(r for r, _ in self.cells) - min(r for r, _ in self.cells) + 1

    @property
    def shape(self) -> str:
        """The cells as text: "0,0 1,0" (offsets from the anchor, row first)."""
        return " ".join(f"{r},{c}" for r, c in self.cells)


@dataclass(frozen=True)
class Figure:
    """One figure of a level: its name, its kind (one of FIGURE_KINDS) and its value (None
    where it does not apply; numbers that can exceed 32 bits are strings of digits)."""

    name: str
    kind: str
    value: Any


@dataclass(frozen=True)
class Stage:
    """One level as an editor shows it."""

    number: int
    """Its place in the export, from 1."""
    title: str
    grid: str
    """"square", or "triangular" (cells in axial coordinates: cell [r, c] is drawn at
    x = c - r/2 by the pictures; the editors keep the grid's rows and columns)."""
    cells: tuple[tuple[int, ...], ...]
    """Rows of FLOOR, WALL or GOAL."""
    pieces: tuple[Piece, ...]
    figures: tuple[Figure, ...]
    solution: tuple[str, ...]

    @property
    def rows(self) -> int:
        return len(self.cells)

    @property
    def cols(self) -> int:
        return len(self.cells[0])

    @property
    def name(self) -> str:
        return f"Level_{self.number}"


@dataclass(frozen=True)
class Cast:
    """What the pieces of a kind of puzzle are in an editor: an entity (LDtk) or object
    class (Tiled) of this name, drawn as discs (pieces on cells) or as rectangles (blocks
    that may cover several cells)."""

    name: str
    discs: bool


PIECE = Cast("Piece", discs=True)
BLOCK = Cast("Block", discs=False)


StagesOf = Callable[[Any, Sequence[Any], PackCurve | None], list[Stage]]
"""How a kind lays out its levels: `stages(puzzle, levels, curve)`."""
Writer = Callable[..., list[Path]]


def box_cells(board: Board, goal: Sequence[int] | frozenset[int] | None, exits: Sequence[int] = ()
              ) -> tuple[tuple[int, ...], ...]:
    """The rows of a board's box: FLOOR for its cells, GOAL for those of `goal` and EXIT for
    those of `exits` (cell indices), WALL for the rest."""
    marked, out = set(goal or ()), set(exits)
    rows = [[WALL] * board.cols for _ in range(board.rows)]
    for i, (r, c) in enumerate(board.cells):
        rows[r][c] = EXIT if i in out else GOAL if i in marked else FLOOR
    return tuple(tuple(row) for row in rows)


def with_targets(figures: list[tuple[Figure, ...]], curve: PackCurve | None) -> list[tuple[Figure, ...]]:
    """The figures of each level, with the figure `target` (what its slot in a pack aimed
    at) when the levels come with the curve they were arranged by."""
    if curve is None:
        return figures
    return [(*own, Figure("target", "float", difficulty_value(target)))
            for own, target in zip(figures, curve.targets)]


def check_stages(stages: Sequence[Stage]) -> None:
    """ExportError unless there is a stage and every stage has the figures of the first,
    by name and kind, in order."""
    if not stages:
        raise ExportError("there are no levels to write")
    names = [(f.name, f.kind) for f in stages[0].figures]
    for stage in stages:
        if [(f.name, f.kind) for f in stage.figures] != names:  # pragma: no cover - built alike
            raise ExportError(f"level {stage.number} has other figures than level 1")
        if any(f.kind not in FIGURE_KINDS for f in stage.figures):  # pragma: no cover
            raise ExportError(f"level {stage.number}: figure kinds are {', '.join(FIGURE_KINDS)}")


def identifier(*parts: Any) -> str:
    """A unique instance identifier (UUID) that depends only on `parts`: the same levels give
    the same files."""
    return str(uuid.uuid5(uuid.NAMESPACE_URL, "curator:" + "/".join(str(p) for p in parts)))
