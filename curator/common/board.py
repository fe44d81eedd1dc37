"""Board geometry: cells parsed from ASCII art, their numbering, directions, symmetries and
translations.

Cells are (row, col) pairs numbered 0..n-1 in row-major order; cell i is bit i of a
position's occupancy mask. Square grids use text positions; triangular grids use axial
coordinates (see `Board.from_art`).

A translation moves every cell by one vector (dr, dc). It keeps the row-major order of
cells, so it keeps the order of a position's pieces. Whether moving a position's pieces
by a vector gives an equivalent position depends on the board around them: `Board.alike`
asks whether the board looks the same within `margin` steps of the pieces' box before and
after the move (see `curator.rules.base.Rules.translation_margin`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import cast

from curator.common.ranking import MAX_CELLS

Cell = tuple[int, int]
Transform = Callable[[Cell], Cell]

GRIDS = ("square", "triangular")
MAX_SIDE = MAX_CELLS
"""Most rows, and most columns, a board's cells may span (holes between them included)."""
CELL_CHARS = ".o"
HOLE_CHARS = " #"

ORTHOGONAL = ((-1, 0), (0, 1), (1, 0), (0, -1))
DIAGONAL = ((-1, -1), (-1, 1), (1, 1), (1, -1))
# Axial coordinates: row r, column c; the six neighbours of a triangular-grid cell.
TRIANGULAR = ((0, 1), (1, 1), (1, 0), (0, -1), (-1, -1), (-1, 0))


class BoardError(ValueError):
    """The board drawing is not a valid board; `part` is "grid" or "art"."""

    def __init__(self, message: str, part: str = "art") -> None:
        super().__init__(message)
        self.part = part


def _square_transforms() -> list[Transform]:
    return [
        lambda p: (p[0], p[1]),
        lambda p: (p[1], -p[0]),
        lambda p: (-p[0], -p[1]),
        lambda p: (-p[1], p[0]),
        lambda p: (p[0], -p[1]),
        lambda p: (-p[0], p[1]),
        lambda p: (p[1], p[0]),
        lambda p: (-p[1], -p[0]),
    ]


def _triangular_transforms() -> list[Transform]:
    # Rotation by 60 degrees in axial coordinates, and the mirror swapping the two axes.
    def rotate(p: Cell, times: int) -> Cell:
        r, c = p
        for _ in range(times):
            r, c = c, c - r
        return r, c

    rotations = [lambda p, t=t: rotate(p, t) for t in range(6)]
    mirrored = [lambda p, t=t: rotate((p[1], p[0]), t) for t in range(6)]
    return cast(list[Transform], rotations + mirrored)  # lambdas with a bound default, not inferred


@dataclass(frozen=True)
class Board:
    """The cells of a puzzle board.

    >>> b = Board.from_art("square", "...\\n. .")
    >>> b.cells
    ((0, 0), (0, 1), (0, 2), (1, 0), (1, 2))
    """

    grid: str
    cells: tuple[Cell, ...]
    index: dict[Cell, int] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "index", {cell: i for i, cell in enumerate(self.cells)})

    @property
    def size(self) -> int:
        return len(self.cells)

    @property
    def rows(self) -> int:
        return max(r for r, _ in self.cells) + 1

    @property
    def cols(self) -> int:
        return max(c for _, c in self.cells) + 1

    @classmethod
    def from_art(cls, grid: str, art: str) -> Board:
        """Parse a board drawing: `.` (or `o`) is a cell, space or `#` is no cell.

        On a triangular grid cells in neighbouring rows are offset by one character and
        cells in a row are two characters apart; a cell drawn at text column x of line y
        gets axial coordinates (y, (x + y) / 2), shifted so the smallest are 0.
        """
        if grid not in GRIDS:
            raise BoardError(f"unknown grid {grid!r} (expected one of {', '.join(GRIDS)})", "grid")
        raw: list[Cell] = []
        count = 0
        lines = art.split("\n")
        while lines and not lines[-1].strip():
            lines.pop()
        while lines and not lines[0].strip():
            lines.pop(0)
        for y, line in enumerate(lines):
            for x, ch in enumerate(line.rstrip()):
                if ch in CELL_CHARS:
                    count += 1
                    if count <= MAX_CELLS:  # only counted beyond: a huge drawing takes no memory
                        raw.append((y, x))
                elif ch not in HOLE_CHARS:
                    raise BoardError(
                        f"unexpected character {ch!r} at line {y + 1}, column {x + 1} "
                        f"(use '.' for a cell and ' ' or '#' for no cell)"
                    )
        if not raw:
            raise BoardError("the board has no cells")
        if count > MAX_CELLS:
            raise BoardError(f"has {count} cells; at most {MAX_CELLS} are supported")
        if grid == "triangular":
            raw = _axial(raw)
        rows = max(r for r, _ in raw) - min(r for r, _ in raw) + 1
        cols = max(c for _, c in raw) - min(c for _, c in raw) + 1
        if max(rows, cols) > MAX_SIDE:
            raise BoardError(f"spans {rows} rows and {cols} columns; at most {MAX_SIDE} of each are "
                             "supported")
        return cls(grid, _normalised(raw))

    def directions(self, diagonal: bool = False) -> tuple[Cell, ...]:
        """Unit steps between neighbouring cells (square: 4, or 8 with diagonals; triangular: 6)."""
        if self.grid == "triangular":
            return TRIANGULAR
        return ORTHOGONAL + DIAGONAL if diagonal else ORTHOGONAL

    def step(self, cell: Cell, direction: Cell, times: int = 1) -> int | None:
        """Index of the cell `times` steps from `cell` along `direction`, or None off the board."""
        return self.index.get((cell[0] + times * direction[0], cell[1] + times * direction[1]))

    def ray(self, cell: Cell, direction: Cell) -> list[int]:
        """Indices of the cells met going from `cell` along `direction` until the board ends."""
        out = []
        times = 1
        while (nxt := self.step(cell, direction, times)) is not None:
            out.append(nxt)
            times += 1
        return out

    def transforms(self) -> list[Transform]:
        """The lattice symmetries of the grid (as maps of coordinates, before translation)."""
        return _square_transforms() if self.grid == "square" else _triangular_transforms()

    def symmetries(self, keep: Callable[[Transform], bool] = lambda t: True) -> list[tuple[int, ...]]:
        """Cell permutations mapping the board onto itself; perm[i] is the image of cell i.

        The identity comes first. `keep` lets a rule family drop the transforms its rules do
        not respect (for example, pawns move up the board).
        """
        perms: list[tuple[int, ...]] = []
        for transform in self.transforms():
            if not keep(transform):
                continue
            image = [transform(cell) for cell in self.cells]
            if set(_normalised(image)) != set(self.cells):
                continue
            dr = min(r for r, _ in image)
            dc = min(c for _, c in image)
            perm = tuple(self.index[(r - dr, c - dc)] for r, c in image)
            if perm not in perms:
                perms.append(perm)
        return perms

    def axes(self, cell: Cell) -> tuple[int, ...]:
        """A cell's coordinates along the grid's lines: (row, col) on square grids, (row, col,
        col - row) on triangular grids. Every symmetry of the grid permutes and negates them,
        so it maps a box (one range per axis) onto a box, and a step between neighbours
        (diagonal ones too) changes each of them by at most one.

        >>> Board("triangular", ((0, 0), (1, 0), (1, 1))).axes((1, 0))
        (1, 0, -1)
        """
        r, c = cell
        return (r, c) if self.grid == "square" else (r, c, c - r)

    def moved(self, cell: int, vector: Cell) -> int | None:
        """Index of the cell `vector` away from cell index `cell`, or None off the board."""
        r, c = self.cells[cell]
        return self.index.get((r + vector[0], c + vector[1]))

    def translations(self) -> list[Cell]:
        """The non-zero vectors that move at least one cell onto a cell, in sorted order."""
        found = {(r1 - r0, c1 - c0) for r0, c0 in self.cells for r1, c1 in self.cells}
        found.discard((0, 0))
        return sorted(found)

    def box(self, cells: Iterable[int], margin: int = 0) -> list[int]:
        """Indices of the board cells within `margin` steps of the box of `cells` (the
        smallest range of each of `axes` holding them all)."""
        coords = [self.axes(self.cells[i]) for i in cells]
        lo = [min(axis) - margin for axis in zip(*coords)]
        hi = [max(axis) + margin for axis in zip(*coords)]
        return [i for i, cell in enumerate(self.cells)
                if all(a <= x <= b for a, x, b in zip(lo, self.axes(cell), hi))]

    def alike(self, cells: Iterable[int], vector: Cell, margin: int) -> bool:
        """Whether the board looks the same around `cells` and around `cells` moved by
        `vector`: every point of the grid within `margin` steps of their box is a cell exactly
        when the point `vector` away from it is one (so the moved cells are cells too).

        >>> b = Board.from_art("square", "....\\n.. .")
        >>> b.alike([0], (0, 1), 0), b.alike([0, 4], (0, 1), 0), b.alike([0, 4], (0, 1), 1)
        (True, True, False)
        """
        cells = list(cells)
        around = self.box(cells, margin)
        moved = [self.moved(i, vector) for i in around]
        if None in moved:
            return False
        # The moved points that are cells are cells of the moved box; it has no others.
        shifted = self.box(cast(list[int], [self.moved(i, vector) for i in cells]), margin)
        return len(shifted) == len(around)

    def draw(self, symbols: Iterable[str]) -> str:
        """Draw the board with one symbol per cell (in cell order); holes are spaces."""
        symbols = list(symbols)
        grid = [[" "] * self._text_width() for _ in range(self.rows)]
        for (r, c), sym in zip(self.cells, symbols):
            grid[r][self._text_column(r, c)] = sym
        return "\n".join("".join(row).rstrip() for row in grid)

    def _text_column(self, r: int, c: int) -> int:
        if self.grid == "triangular":
            return 2 * c - r - min(2 * c0 - r0 for r0, c0 in self.cells)
        return c

    def _text_width(self) -> int:
        return max(self._text_column(r, c) for r, c in self.cells) + 1


def first_difference(drawn: Iterable[Cell], cells: Iterable[Cell], noun: str = "cell") -> str:
    """Where a drawing's cells first differ from a board's, for a message (rows and columns
    from 0, as puzzle files give cells).

    >>> first_difference({(0, 0), (0, 2)}, {(0, 0), (0, 1)})
    'row 0, column 2 is drawn as a cell the board does not have'
    """
    extra, missing = sorted(set(drawn) - set(cells)), sorted(set(cells) - set(drawn))
    if extra:
        r, c = extra[0]
        return f"row {r}, column {c} is drawn as a {noun} the board does not have"
    if missing:
        r, c = missing[0]
        return f"the board's {noun} at row {r}, column {c} is not drawn"
    return f"every {noun} is drawn"


def _axial(raw: list[Cell]) -> list[Cell]:
    parities = {(x + y) % 2 for y, x in raw}
    if len(parities) != 1:
        raise BoardError(
            "triangular grid cells must alternate: neighbouring rows offset by one character, "
            "cells in a row two characters apart"
        )
    return [(y, (x + y) // 2) for y, x in raw]


def _normalised(cells: Iterable[Cell]) -> tuple[Cell, ...]:
    cells = list(cells)
    r0 = min(r for r, _ in cells)
    c0 = min(c for _, c in cells)
    return tuple(sorted((r - r0, c - c0) for r, c in cells))
