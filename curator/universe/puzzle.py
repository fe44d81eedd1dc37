"""Universe files: a sliding-block puzzle file (rules family `slide`) whose vehicles keep their
lines and come in count ranges, with optional single-cell walls in a count range. One analysis
covers every set of vehicles and walls in those ranges (the Rush Hour universe).
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from curator.common.reading import PuzzleFile, TableReader, puzzle_file, read_puzzle_file

FAMILY = "slide"
TOP_KEYS = {"name", "title", "board", "rules", "pieces", "goal"}
BOARD_KEYS = {"art", "walls"}
RULES_KEYS = {"family", "move", "metric", "open_lines"}
PIECE_KEYS = {"cells", "count", "along"}
GOAL_KEYS = {"piece", "cells"}
AXES = {"row": 0, "column": 1}
MAX_CELLS = 63
"""Cells of the largest board: a position's cells are bits of a signed 64-bit word."""
MAX_LANES = 15
"""Rows plus columns of the largest board: a position is one 4-bit digit per lane."""
WALL = "x"
"""How drawings show a wall."""


@dataclass(frozen=True)
class Vehicle:
    """The vehicles named by one letter: a straight piece of `length` cells keeping its row
    (axis 0) or its column (axis 1), between `fewest` and `most` of them on the board."""

    letter: str
    axis: int
    length: int
    fewest: int
    most: int


@dataclass(frozen=True)
class Universe:
    """Every position of every set of vehicles and walls a universe file allows."""

    name: str
    title: str
    rows: int
    cols: int
    vehicles: tuple[Vehicle, ...]
    goal_index: int
    """The vehicle that must reach the right edge of its row: exactly one, alone in its row."""
    goal_row: int
    walls: tuple[int, int]
    """The fewest and the most single-cell walls; walls stand in rows, never to the right of
    the goal vehicle in its row."""
    open_lines: bool
    """No row is filled by its horizontal vehicles and walls, no column by its vertical vehicles."""
    text: str = ""
    source: str = "<puzzle>"

    typed = True
    """Selections name its vehicles (and walls, 'x') by letter (`--counts h=2..4,x=1`)."""

    @property
    def piece_types(self) -> tuple[str, ...]:
        return (*(v.letter for v in self.vehicles), WALL)

    @property
    def goal_length(self) -> int:
        return self.vehicles[self.goal_index].length

    @property
    def goal_letter(self) -> str:
        return self.vehicles[self.goal_index].letter

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.text.encode()).hexdigest()

    def draw(self, position: Any) -> str:
        """A position (`curator.universe.play.UniversePosition`) drawn, one line per row."""
        return str(position.board).replace("/", "\n")

    def describe(self) -> str:
        """The universe in a line: "6 x 6, R + h v H V (0..18 each), 0..2 walls"."""
        kinds = ", ".join(f"{v.letter} {v.fewest}..{v.most}" for i, v in enumerate(self.vehicles)
                          if i != self.goal_index)
        return (f"{self.rows} x {self.cols}, {self.goal_letter} in row {self.goal_row} and {kinds}, "
                f"{self.walls[0]}..{self.walls[1]} walls")


def is_universe_file(file: PuzzleFile) -> bool:
    """Whether a `slide` file describes a universe: its board has `walls`, or a vehicle keeping
    its line has a range of counts."""
    data = file.data
    board = data.get("board")
    if isinstance(board, dict) and "walls" in board:
        return True
    pieces = data.get("pieces")
    if not isinstance(pieces, dict):
        return False
    return any(isinstance(p, dict) and isinstance(p.get("count"), str) and p.get("along") in AXES
               for p in pieces.values())


def load_universe(path: str | Path) -> Universe:
    file = read_puzzle_file(path)
    return universe_from(file)


def universe_from(file: PuzzleFile) -> Universe:
    """The universe of a decoded file; PuzzleError naming the file and the key if malformed."""
    return _UniverseReader(file.source).universe(file.data, file.text)


class _UniverseReader(TableReader):
    def universe(self, data: dict[str, Any], text: str) -> Universe:
        self.family(data, TOP_KEYS)
        self.only(data, TOP_KEYS, "")
        name = self.name(data)
        title = self.title(data, name)
        open_lines = self.rules(self.get(data, "rules", dict, ""))
        board = self.get(data, "board", dict, "")
        self.only(board, BOARD_KEYS, "board")
        lines = [line for line in self.get(board, "art", str, "board").strip("\n").split("\n")]
        rows, cols = len(lines), max((len(line) for line in lines), default=0)
        if rows < 2 or cols < 2 or any(len(line) != cols for line in lines):
            raise self.fail("board.art", "must be a rectangle of at least 2 x 2 cells, one line per row")
        if rows * cols > MAX_CELLS or rows + cols > MAX_LANES:
            raise self.fail("board.art", f"is {rows} x {cols}; a universe board has at most {MAX_CELLS} "
                            f"cells and {MAX_LANES} rows and columns together")
        walls = self.range(board, "walls", "board", 0, rows * cols, default=(0, 0))
        vehicles = self.vehicles(self.get(data, "pieces", dict, ""), rows, cols)
        goal_index, goal_row = self.goal(self.get(data, "goal", dict, ""), vehicles, lines, cols)
        self.distinct(vehicles, goal_index)
        fits = (rows - 1) * (cols - open_lines) + cols - vehicles[goal_index].length - open_lines
        if walls[0] > fits:
            line = ", none filling a row" if open_lines else ""
            raise self.fail("board.walls", f"{walls[0]} walls do not fit: at most {fits} cells can hold one "
                            f"(none right of the goal vehicle in its row{line})")
        return Universe(name, title, rows, cols, vehicles, goal_index, goal_row, walls, open_lines, text,
                        self.source)

    def rules(self, table: dict[str, Any]) -> bool:
        self.only(table, RULES_KEYS, "rules")
        for key in ("move", "metric"):
            value = self.get(table, key, str, "rules", "line")
            if value != "line":
                raise self.fail(f"rules.{key}", f'a universe slides vehicles any distance and counts each '
                                f'slide: it must be "line", got {value!r}')
        open_lines: bool = self.get(table, "open_lines", bool, "rules", False)
        return open_lines

    def range(self, table: dict[str, Any], key: str, where: str, low: int, high: int,
              default: tuple[int, int]) -> tuple[int, int]:
        """A count or a range "A..B" between `low` and `high` (`default` when missing)."""
        if key not in table:
            return default
        full = f"{where}.{key}"
        value = self.get(table, key, (int, str), where)
        if isinstance(value, int):
            fewest = most = value
        else:
            found = re.fullmatch(r"\s*(\d+)\s*(?:\.\.\s*(\d+)\s*)?", value)
            if found is None:
                raise self.fail(full, f'must be a whole number or a range such as "0..2", got {value!r}')
            fewest = int(found[1])
            most = int(found[2]) if found[2] is not None else fewest
        if not low <= fewest <= most <= high:
            raise self.fail(full, f"must run from A to B with {low} <= A <= B <= {high}, got {value!r}")
        return fewest, most

    def vehicles(self, table: dict[str, Any], rows: int, cols: int) -> tuple[Vehicle, ...]:
        if not table:
            raise self.fail("pieces", "names no vehicles")
        out = []
        for letter, value in table.items():
            where = f"pieces.{letter}"
            if len(letter) != 1 or not letter.isascii() or not letter.isalpha() or letter == WALL:
                raise self.fail(where, f"a vehicle is named by one letter other than {WALL!r}")
            if not isinstance(value, dict):
                raise self.fail(where, f"must be a table, got {value!r}")
            self.only(value, PIECE_KEYS, where)
            along = self.get(value, "along", str, where)
            if along not in AXES:
                raise self.fail(f"{where}.along", f'a universe\'s vehicles keep a line: "row" or "column", '
                                f"got {along!r}")
            axis = AXES[along]
            length = self.length(self.get(value, "cells", list, where), axis, f"{where}.cells")
            width = cols if axis == 0 else rows
            if length >= width:
                raise self.fail(f"{where}.cells", f"a vehicle of {length} cells does not move on a {along} "
                                f"of {width}")
            fewest, most = self.range(value, "count", where, 0, rows * cols, default=(1, 1))
            out.append(Vehicle(letter, axis, length, fewest, most))
        return tuple(out)

    def distinct(self, vehicles: tuple[Vehicle, ...], goal: int) -> None:
        """Vehicles other than the goal vehicle differ in length or line: a lane's vehicles are
        told apart by their lengths alone."""
        seen: dict[tuple[int, int], str] = {}
        for i, v in enumerate(vehicles):
            if i == goal:
                continue
            if (v.axis, v.length) in seen:
                raise self.fail(f"pieces.{v.letter}", f"has the length and line of "
                                f"{seen[v.axis, v.length]!r}: vehicles of one kind share a letter")
            seen[v.axis, v.length] = v.letter

    def length(self, cells: list[Any], axis: int, key: str) -> int:
        pairs = [tuple(c) if isinstance(c, list) and len(c) == 2 else None for c in cells]
        if not pairs or None in pairs:
            raise self.fail(key, "lists [row, column] cells of a straight vehicle")
        other = 1 - axis
        line = sorted(p[other] for p in pairs if p)  # type: ignore[index]
        if (len({p[axis] for p in pairs if p}) != 1  # type: ignore[index]
                or line != list(range(line[0], line[0] + len(line))) or len(line) < 2):
            raise self.fail(key, f"a universe's vehicles are straight, at least 2 cells long, along their "
                            f"{'row' if axis == 0 else 'column'}")
        return len(line)

    def goal(self, table: dict[str, Any], vehicles: tuple[Vehicle, ...], lines: list[str], cols: int
             ) -> tuple[int, int]:
        self.only(table, GOAL_KEYS, "goal")
        letter = self.get(table, "piece", str, "goal")
        found = [i for i, v in enumerate(vehicles) if v.letter == letter]
        if not found:
            raise self.fail("goal.piece", f"names no vehicle of [pieces]: {letter!r}")
        index = found[0]
        vehicle = vehicles[index]
        if vehicle.axis != 0 or (vehicle.fewest, vehicle.most) != (1, 1):
            raise self.fail("goal.piece", "the goal vehicle keeps its row and there is exactly one")
        drawn = [(r, c) for r, line in enumerate(lines) for c, ch in enumerate(line) if ch != "."]
        others = sorted({lines[r][c] for r, c in drawn} - {letter})
        if others:
            raise self.fail("board.art", f"a universe's art draws only the goal vehicle {letter!r} on "
                            f"empty cells ('.'), not {others[0]!r}")
        if len(drawn) != vehicle.length or len({r for r, _ in drawn}) != 1:
            raise self.fail("board.art", f"must draw the goal vehicle {letter!r} once, in its row")
        row = drawn[0][0]
        cells = self.get(table, "cells", list, "goal")
        want = [[row, c] for c in range(cols - vehicle.length, cols)]
        if sorted(cells) != want:
            raise self.fail("goal.cells", f"the goal vehicle wins at the right edge of its row: {want}")
        return index, row


def parse_universe(text: str, source: str = "<puzzle>") -> Universe:
    """The universe of puzzle-file text; PuzzleError naming `source` if malformed."""
    return universe_from(puzzle_file(text, source))
