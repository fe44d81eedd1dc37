"""Sokoban puzzles (rules family `push`) read from TOML into a SokobanPuzzle.

The room is drawn in XSB notation: `#` wall, space, `-` or `_` floor, `$` box, `.` goal, `*`
box on a goal, `@` player, `+` player on a goal. The player steps to a free floor cell, or
pushes the box in front of it one cell on into a free floor cell; the puzzle is solved when
every box stands on a goal.

The board is the floor the player can reach from its start through cells that are not walls
(boxes and goals included). A position is the boxes' cells and the player's cell; its rank is
the colex rank of the boxes times the free cells, plus the player's place among the free
cells. Under the `pushes` metric a position stands for the player's whole region (the free
cells it reaches without pushing), so only the player on the smallest cell of its region is a
position; the other ranks are "not positions" and counted apart.
"""

from __future__ import annotations

import hashlib
import math
from collections import deque
from dataclasses import dataclass
from typing import Any, cast

from curator.common.board import Board, first_difference
from curator.common.errors import SelectionError
from curator.common.ranking import MAX_CELLS, mask_words, rank_combination, unrank_combination
from curator.common.reading import PuzzleFile, TableReader, puzzle_file

FAMILY = "push"
METRICS = ("pushes", "moves")
"""pushes: every push counts one, walking is free; moves: every step counts one."""
MAX_POSITIONS = 1 << 30
TOP_KEYS = {"name", "title", "board", "rules"}
RULES_KEYS = {"family", "metric"}
WALL, BOX, GOAL, BOX_ON_GOAL, PLAYER, PLAYER_ON_GOAL = "#", "$", ".", "*", "@", "+"
FLOORS = " -_"
"""Floor (or, outside the walls, nothing)."""
DRAWN_FLOOR = "-"
"""How drawings write a floor cell, so that the room's inside never ends in spaces."""
XSB = WALL + FLOORS + BOX + GOAL + BOX_ON_GOAL + PLAYER + PLAYER_ON_GOAL
ROWS = "/|"
"""Rows of a drawing may be separated by these instead of line breaks."""

UP, RIGHT, DOWN, LEFT = (-1, 0), (0, 1), (1, 0), (0, -1)
DIRECTIONS = (UP, RIGHT, DOWN, LEFT)
LETTERS = "urdl"
"""A step in each of DIRECTIONS, as LURD notation writes it (upper case when it pushes)."""

Cell = tuple[int, int]
Position = tuple[tuple[int, ...], int]
"""The boxes' cells (ascending indices of board cells) and the player's cell."""


@dataclass(frozen=True)
class Step:
    """One step of the player: its direction (an index into DIRECTIONS), the cells it stands on
    before and after, whether it pushes a box, and the position it leads to."""

    direction: int
    source: int
    target: int
    push: bool
    child: Position

    @property
    def letter(self) -> str:
        """The step in LURD notation: 'u', 'r', 'd', 'l', upper case for a push."""
        letter = LETTERS[self.direction]
        return letter.upper() if self.push else letter


@dataclass(frozen=True)
class Move:
    """One move as the metric counts it: the position `child` it leads to, at `cost` 1, and the
    steps it takes from `position`'s player (a walk then the push, under the pushes metric)."""

    steps: str
    child: Position
    cost: int = 1


@dataclass(frozen=True)
class SokobanPuzzle:
    """A validated Sokoban room: floor, walls, goals, the number of boxes, the metric and the
    file's start."""

    name: str
    title: str
    metric: str
    board: Board
    """The floor cells, numbered in row-major order; (row, col) in the drawing's frame, whose
    first row and column hold a wall or floor."""
    walls: frozenset[Cell]
    """The wall cells drawn, in the same frame."""
    goals: tuple[int, ...]
    boxes: int
    start: Position
    text: str
    source: str
    words: int = 1
    """The uint64 words of a mask of the room, decided once when the file is read: 1 up to 64
    floor cells (see `mask_words`)."""

    # -- geometry ----------------------------------------------------------------------------

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.text.encode()).hexdigest()

    @property
    def move(self) -> str:
        """The move rule, as the workspace names it."""
        return "push"

    @property
    def rules_text(self) -> str:
        """The rules in a few words: "pushes metric, 3 boxes"."""
        return f"{self.metric} metric, {self.boxes} boxes"

    def neighbour(self, cell: int, direction: int) -> int | None:
        """The floor cell next to `cell` in a direction, or None (a wall or outside)."""
        r, c = self.board.cells[cell]
        dr, dc = DIRECTIONS[direction]
        return self.board.index.get((r + dr, c + dc))

    def region(self, boxes: tuple[int, ...] | frozenset[int], player: int) -> set[int]:
        """The free cells the player reaches from `player` without pushing."""
        blocked = set(boxes)
        seen = {player}
        todo = [player]
        while todo:
            cell = todo.pop()
            for d in range(4):
                near = self.neighbour(cell, d)
                if near is not None and near not in blocked and near not in seen:
                    seen.add(near)
                    todo.append(near)
        return seen

    def normal(self, position: Position) -> Position:
        """The position as the tables hold it: under the pushes metric the player on the
        smallest cell of its region, else as it is."""
        boxes, player = position
        return (boxes, min(self.region(boxes, player))) if self.metric == "pushes" else position

    def valid(self, position: object) -> bool:
        """Whether `position` is ((box cells ascending), player cell) of this puzzle."""
        try:
            drawn, player = cast(Any, position)
            boxes = tuple(drawn)
        except (TypeError, ValueError):
            return False
        cells = range(self.board.size)
        return (len(boxes) == self.boxes and all(type(b) is int and b in cells for b in boxes)
                and list(boxes) == sorted(set(boxes)) and type(player) is int and player in cells
                and player not in boxes)

    def is_goal(self, position: Position) -> bool:
        """Whether every box stands on a goal."""
        return set(position[0]) <= set(self.goals)

    # -- ranks -------------------------------------------------------------------------------

    @property
    def free(self) -> int:
        """Cells not covered by boxes: the player's places."""
        return self.board.size - self.boxes

    @property
    def size(self) -> int:
        """Number of ranks (positions or not)."""
        return math.comb(self.board.size, self.boxes) * self.free

    def rank(self, position: Position) -> int:
        """Rank of a position, its player first moved as `normal` moves it (ValueError if it is
        not one)."""
        if not self.valid(position):
            raise ValueError("not a position: boxes and player must be distinct floor cells")
        boxes, player = self.normal(position)
        below = sum(1 for b in boxes if b < player)
        return rank_combination(boxes, self.board.size, "colex") * self.free + player - below

    def unrank(self, rank: int) -> Position | None:
        """The position of a rank in 0..size-1, or None if the rank is not one (under the
        pushes metric: the player is not on the smallest cell of its region)."""
        if not 0 <= rank < self.size:
            raise ValueError(f"rank {rank} out of range 0..{self.size - 1}")
        digit, place = divmod(rank, self.free)
        boxes = unrank_combination(digit, self.board.size, self.boxes, "colex")
        player = [c for c in range(self.board.size) if c not in boxes][place]
        position = (tuple(boxes), player)
        return position if self.normal(position) == position else None

    # -- moves (the plain reference; the sweep uses compiled code) ---------------------------

    def steps(self, position: Position) -> list[Step]:
        """The player's legal steps, in the order up, right, down, left: onto a free floor cell,
        or against a box whose next cell that way is free floor, pushing it there."""
        boxes, player = position
        out = []
        for d in range(4):
            target = self.neighbour(player, d)
            if target is None:
                continue
            if target not in boxes:
                out.append(Step(d, player, target, False, (boxes, target)))
                continue
            beyond = self.neighbour(target, d)
            if beyond is not None and beyond not in boxes:
                moved = tuple(sorted(set(boxes) - {target} | {beyond}))
                out.append(Step(d, player, target, True, (moved, target)))
        return out

    def moves(self, position: Position) -> list[Move]:
        """The moves of a position as the metric counts them, each costing 1: under `moves`
        every step; under `pushes` every push the player can walk to (boxes in ascending
        order, then up, right, down, left), with a shortest walk before it. Children are as
        the steps leave them (not `normal`)."""
        if self.metric == "moves":
            return [Move(step.letter, step.child) for step in self.steps(position)]
        boxes, player = position
        reach = self.region(boxes, player)
        out = []
        for box in boxes:
            for d in range(4):
                behind, beyond = self.neighbour(box, (d + 2) % 4), self.neighbour(box, d)
                if behind in reach and beyond is not None and beyond not in boxes:
                    moved = tuple(sorted(set(boxes) - {box} | {beyond}))
                    walk = self.walk(boxes, player, behind)
                    out.append(Move(walk + LETTERS[d].upper(), (moved, box)))
        return out

    def walk(self, boxes: tuple[int, ...], source: int, target: int) -> str:
        """A shortest walk from `source` to `target` around the boxes, in LURD letters: the
        first found breadth-first, trying up, right, down, left in turn. ValueError if there
        is none."""
        came: dict[int, tuple[int, int] | None] = {source: None}
        todo = deque([source])
        while todo and target not in came:
            cell = todo.popleft()
            for d in range(4):
                near = self.neighbour(cell, d)
                if near is not None and near not in boxes and near not in came:
                    came[near] = (cell, d)
                    todo.append(near)
        if target not in came:
            raise ValueError("no walk between these cells")
        letters = []
        at = target
        while (step := came[at]) is not None:
            at, d = step
            letters.append(LETTERS[d])
        return "".join(reversed(letters))

    # -- drawings ----------------------------------------------------------------------------

    def draw(self, position: Position | None = None) -> str:
        """The position in XSB (or, without one, the empty room): walls '#', floor '-', boxes,
        goals and the player as XSB writes them; spaces outside the walls (rows end at their
        last wall)."""
        cells = self.board.cells
        marks = {cells[g]: GOAL for g in self.goals}
        if position is not None:
            boxes, player = position
            for b in boxes:
                marks[cells[b]] = BOX_ON_GOAL if marks.get(cells[b]) == GOAL else BOX
            marks[cells[player]] = PLAYER_ON_GOAL if marks.get(cells[player]) == GOAL else PLAYER
        drawn = set(cells) | self.walls
        rows = max(r for r, _ in drawn) + 1
        lines = []
        for r in range(rows):
            last = max((c for rr, c in drawn if rr == r), default=-1)
            line = "".join(WALL if (r, c) in self.walls else marks.get((r, c), DRAWN_FLOOR)
                           if (r, c) in self.board.index else " " for c in range(last + 1))
            lines.append(line)
        return "\n".join(lines)

    def parse(self, drawing: str, what: str = "board") -> Position:
        """The position of an XSB drawing of this room (rows separated by line breaks, '/' or
        '|'); SelectionError naming `what` if it is not one of this puzzle's positions."""
        try:
            room = _read_room(drawing)
            if room.floor != set(self.board.cells) or room.walls != self.walls:
                floor = room.floor != set(self.board.cells)
                where = (first_difference(room.floor, self.board.cells, "floor cell") if floor
                         else first_difference(room.walls, self.walls, "wall"))
                raise ValueError(f"the drawing's walls and floor are not this puzzle's room ({where})")
            if len(room.boxes) != self.boxes:
                raise ValueError(f"{len(room.boxes)} boxes drawn, the puzzle has {self.boxes}")
            if room.goals != {self.board.cells[g] for g in self.goals}:
                raise ValueError("the drawing's goals are not this puzzle's goals")
        except ValueError as exc:
            raise SelectionError(f"{what}: {exc}") from None
        index = self.board.index
        return tuple(sorted(index[b] for b in room.boxes)), index[room.player]


def parse_sokoban_puzzle(text: str, source: str = "<puzzle>") -> SokobanPuzzle:
    """Validate Sokoban puzzle text; `source` names it in error messages."""
    return sokoban_puzzle_from(puzzle_file(text, source))


def sokoban_puzzle_from(file: PuzzleFile) -> SokobanPuzzle:
    """Validate a Sokoban puzzle file already read and decoded."""
    return _SokobanReader(file.source).puzzle(file.data, file.text)


@dataclass(frozen=True)
class Room:
    """What an XSB drawing shows, in the frame whose first row and column hold a wall or floor:
    the floor the player reaches, the walls, and the boxes, goals and player on that floor."""

    floor: set[Cell]
    walls: frozenset[Cell]
    boxes: list[Cell]
    goals: set[Cell]
    player: Cell


def _lines(drawing: str) -> list[str]:
    """The rows of a drawing: split at line breaks (or '/' and '|'), blank rows at either end
    dropped, the indentation they all share removed, trailing spaces kept off."""
    for mark in ROWS:
        drawing = drawing.replace(mark, "\n")
    lines = drawing.split("\n")
    while lines and not lines[-1].strip():
        lines.pop()
    while lines and not lines[0].strip():
        lines.pop(0)
    margin = min((len(line) - len(line.lstrip()) for line in lines if line.strip()), default=0)
    return [line[margin:].rstrip() for line in lines]


def _read_room(drawing: str) -> Room:
    """The room of an XSB drawing; ValueError saying what is wrong (a drawing wider or higher
    than a room of MAX_CELLS floor cells across and its walls is refused before it is read)."""
    lines = _lines(drawing)
    rows, cols = len(lines), max((len(line) for line in lines), default=0)
    if max(rows, cols) > MAX_CELLS + 2:
        raise ValueError(f"spans {rows} rows and {cols} columns; at most {MAX_CELLS + 2} of each are "
                         "supported")
    chars: dict[Cell, str] = {}
    for r, line in enumerate(lines):
        for c, ch in enumerate(line):
            if ch not in XSB:
                raise ValueError(f"{ch!r} at row {r}, column {c} is not XSB (use # wall, - floor, $ box, "
                                 ". goal, * box on goal, @ player, + player on goal)")
            chars[(r, c)] = ch
    players = [cell for cell, ch in chars.items() if ch in PLAYER + PLAYER_ON_GOAL]
    if len(players) != 1:
        raise ValueError(f"draws {len(players)} players; a room has one (@, or + on a goal)")
    floor = {players[0]}
    todo = [players[0]]
    while todo:
        r, c = todo.pop()
        for dr, dc in DIRECTIONS:
            near = (r + dr, c + dc)
            if near not in chars:
                raise ValueError(f"the walls do not close the room: the player reaches row {r}, column {c}, "
                                 "at the edge of the drawing")
            if chars[near] != WALL and near not in floor:
                floor.add(near)
                todo.append(near)
    walls = {cell for cell, ch in chars.items() if ch == WALL}
    for cell, ch in chars.items():
        if ch in BOX + GOAL + BOX_ON_GOAL + PLAYER_ON_GOAL and cell not in floor:
            raise ValueError(f"the {'box' if ch in BOX + BOX_ON_GOAL else 'goal'} at row {cell[0]}, "
                             f"column {cell[1]} is outside the player's room")
    top = min(r for r, _ in walls | floor)
    left = min(c for _, c in walls | floor)

    def moved(cells):
        return {(r - top, c - left) for r, c in cells}

    pr, pc = players[0]
    return Room(
        floor=moved(floor),
        walls=frozenset(moved(walls)),
        boxes=sorted(moved(cell for cell in floor if chars[cell] in BOX + BOX_ON_GOAL)),
        goals=moved(cell for cell in floor if chars[cell] in GOAL + BOX_ON_GOAL + PLAYER_ON_GOAL),
        player=(pr - top, pc - left),
    )


class _SokobanReader(TableReader):
    """Reads a Sokoban puzzle's tables, naming the source and the key in every error."""

    def puzzle(self, data: dict, text: str) -> SokobanPuzzle:
        self.family(data, TOP_KEYS)
        self.only(data, TOP_KEYS, "")
        name = self.name(data)
        title = self.title(data, name)
        rules = self.get(data, "rules", dict, "")
        self.only(rules, RULES_KEYS, "rules")
        family = self.get(rules, "family", str, "rules")
        if family != FAMILY:
            raise self.fail("rules.family", f"must be {FAMILY!r} in a Sokoban puzzle, got {family!r}")
        metric = self.get(rules, "metric", str, "rules", "pushes")
        if metric not in METRICS:
            raise self.fail("rules.metric", f"unknown metric {metric!r} (known: {', '.join(METRICS)})")
        board_table = self.get(data, "board", dict, "")
        self.only(board_table, {"xsb"}, "board")
        drawing = self.get(board_table, "xsb", str, "board")
        try:
            room = _read_room(drawing)
        except ValueError as exc:
            raise self.fail("board.xsb", str(exc)) from None
        if len(room.floor) > MAX_CELLS:
            raise self.fail("board.xsb", f"{len(room.floor)} floor cells; at most {MAX_CELLS} are supported")
        if not room.boxes:
            raise self.fail("board.xsb", "draws no box ($, or * on a goal)")
        if len(room.goals) < len(room.boxes):
            raise self.fail("board.xsb", f"{len(room.boxes)} boxes but {len(room.goals)} goals; every box "
                            "needs a goal")
        board = Board("square", tuple(sorted(room.floor)))
        index = board.index
        boxes = len(room.boxes)
        size = math.comb(board.size, boxes) * (board.size - boxes)
        if size > MAX_POSITIONS:
            raise self.fail("board.xsb", f"{size:,} ranks; at most {MAX_POSITIONS:,} are supported")
        start = (tuple(sorted(index[b] for b in room.boxes)), index[room.player])
        goals = tuple(sorted(index[g] for g in room.goals))
        return SokobanPuzzle(name, title, metric, board, room.walls, goals, boxes, start, text, self.source,
                             mask_words(board.size))
