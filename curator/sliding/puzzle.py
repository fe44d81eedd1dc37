"""Sliding-block puzzles (rules family `slide`) read from TOML into a SlidingPuzzle.

Shaped pieces slide on a board with walls and are never removed (Klotski, Rush Hour, robots
on ice). A position is where each piece stands; it is ranked group by group, densely, so
that some ranks overlap or leave the board: those are invalid and counted apart.
"""

from __future__ import annotations

import hashlib
import heapq
import math
import re
from bisect import bisect_right
from dataclasses import dataclass, replace
from functools import cached_property
from itertools import product
from pathlib import Path
from typing import Any, cast

from curator.common.board import MAX_SIDE, Board, BoardError, first_difference
from curator.common.errors import SelectionError
from curator.common.ranking import MAX_CELLS, mask_words, rank_combination, unrank_combination
from curator.common.reading import PuzzleFile, TableReader, puzzle_file, read_puzzle_file

FAMILY = "slide"
MOVES = ("step", "line", "until_blocked", "tilt")
"""step: one cell; line: any distance in one direction; until_blocked: as far as it goes;
tilt: every piece at once, as far as it goes, dropping out through the exits."""
METRICS = ("step", "line", "piece")
"""step: every cell a piece moves counts; line: every move counts; piece: consecutive moves
of one piece count once."""
EDGES = ("stops", "falls")
"""What the edge of the board does to a piece sliding `until_blocked` that nothing else stops:
it stops there, or the piece would fly off the board, so that slide is not a move."""
ALONG = ("any", "row", "column")
MAX_POSITIONS = 1 << 30
TOP_KEYS = {"name", "title", "board", "rules", "pieces", "goal"}
RULES_KEYS = {"family", "move", "metric", "edge"}
PIECE_KEYS = {"cells", "count", "along"}
GOAL_KEYS = {"piece", "cells", "out", "keep"}
BOARD_KEYS = {"art", "exits"}
EMPTY, WALLS = ".", " #"

UP, RIGHT, DOWN, LEFT = (-1, 0), (0, 1), (1, 0), (0, -1)
DIRECTIONS = (UP, RIGHT, DOWN, LEFT)
DIRECTION_NAMES = ("up", "right", "down", "left")
STEERING = {"any": (0, 1, 2, 3), "row": (1, 3), "column": (0, 2)}
"""The directions (indices into DIRECTIONS) a piece may slide in, by its `along`."""

Cell = tuple[int, int]
Position = tuple[tuple[int, ...], ...]
"""Where the pieces stand: per group, the ascending cells of its pieces' anchors."""


@dataclass(frozen=True)
class Shape:
    """The pieces named by one letter: their cells relative to the anchor (the first cell in
    row-major order, at (0, 0)), how many there are and the line they keep."""

    letter: str
    cells: tuple[Cell, ...]
    count: int
    along: str
    fewest: int | None = None
    """When the file gives `count` as a range ("0..3"): the fewest pieces a position holds,
    `count` being the most; None when every position holds `count`."""


@dataclass(frozen=True)
class Group:
    """Interchangeable pieces ranked together: one letter, and for pieces that keep a line,
    one row or column (`line`, None for free pieces)."""

    letter: str
    shape: Shape
    count: int
    line: int | None
    anchors: tuple[int, ...]
    """Free pieces: every cell. Pieces that keep a line: the cells of that line where the
    shape fits, which are the only anchors they can have."""

    @property
    def free(self) -> bool:
        return self.line is None


@dataclass(frozen=True)
class Section:
    """The ranks of the positions with `counts` pieces per group: `offset` onwards, each group's
    part of the rank taking `radices` values (first group most significant)."""

    counts: tuple[int, ...]
    radices: tuple[int, ...]
    offset: int

    @property
    def size(self) -> int:
        return math.prod(self.radices)


@dataclass(frozen=True)
class Move:
    """One move as the metric counts it: the piece of `group` anchored at `source` ends
    anchored at `target`, giving the position `child`; it adds `cost` to a solution's length.
    A tilt moves every piece: its `direction` (an index into DIRECTIONS), with group, source
    and target -1."""

    group: int
    source: int
    target: int
    cost: int
    child: Position
    direction: int = -1


@dataclass(frozen=True)
class Reach:
    """The positions reachable from one position (see `SlidingPuzzle.reachable`)."""

    positions: list[Position]
    """The start first, then breadth first."""
    moves: list[list[tuple[Move, int]]]
    """Per position, its moves and the index of the position each leads to (none from goal
    positions: the game ends there)."""
    distances: list[int | None]
    """Per position, its distance to the goal in the puzzle's metric; None if it cannot be
    solved."""


@dataclass(frozen=True)
class SlidingPuzzle:
    """A validated sliding-block puzzle: board, pieces, move rule, metric and goal."""

    name: str
    title: str
    move: str
    metric: str
    board: Board
    shapes: tuple[Shape, ...]
    groups: tuple[Group, ...]
    goal_letter: str
    goal_cells: tuple[int, ...]
    start: Position | None
    """The position drawn in the file's board art, if it draws one."""
    text: str
    source: str
    edge: str = "stops"
    """One of EDGES; "stops" for every move rule but `until_blocked`."""
    exits: tuple[int, ...] = ()
    """Under `tilt`: the cells a piece drops out through, passing over or stopping on one."""
    out: tuple[str, ...] = ()
    """Under `tilt`: the letters whose pieces must all have dropped out in a solved position."""
    keep: tuple[str, ...] = ()
    """Under `tilt`: the letters whose pieces may never drop out (a tilt dropping one is no move)."""
    words: int = 1
    """The uint64 words of a mask of the board, decided once when the file is read: 1 up to 64
    cells (see `mask_words`)."""

    @property
    def goal_text(self) -> str:
        """What solves a position, in a few words: "R onto the goal cells", "every G out through
        an exit; B stays on the board"."""
        parts = []
        if self.goal_letter:
            parts.append(f"{self.goal_letter} onto the goal cells")
        if self.out:
            parts.append(f"every {' '.join(self.out)} out through an exit")
        if self.keep:
            parts.append(f"{' '.join(self.keep)} {'stays' if len(self.keep) == 1 else 'stay'} on the board")
        return "; ".join(parts)

    @property
    def rules_text(self) -> str:
        """The move rule in a few words: "until_blocked moves, edge falls, line metric"."""
        if self.move == "tilt":
            exits = f"{len(self.exits)} exit{'' if len(self.exits) == 1 else 's'}"
            return f"tilt moves, {exits}" + "".join(
                f", {word} {' '.join(letters)}" for word, letters in (("out", self.out), ("keep", self.keep))
                if letters)
        edge = f", edge {self.edge}" if self.move == "until_blocked" else ""
        return f"{self.move} moves{edge}, {self.metric} metric"

    # -- ranks -------------------------------------------------------------------------------

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.text.encode()).hexdigest()

    @property
    def least(self) -> tuple[int, ...]:
        """Per group, the fewest pieces a position holds: all of them, except under `tilt` with
        exits, where pieces of letters not kept may have dropped out, and where the file gives
        the count as a range."""
        return tuple(0 if self.exits and g.letter not in self.keep else
                     g.count if g.shape.fewest is None else g.shape.fewest for g in self.groups)

    @cached_property
    def sections(self) -> tuple[Section, ...]:
        """The ranks by number of pieces per group, most pieces first (one section unless
        pieces drop out): every count between `least` and the group's count, the first group's
        count changing slowest."""
        out = []
        offset = 0
        for counts in product(*(range(g.count, low - 1, -1) for g, low in zip(self.groups, self.least))):
            radices = []
            covered = len(self.exits) + sum(g.count * len(g.shape.cells) for g in self.groups if not g.free)
            for g, n in zip(self.groups, counts):
                if g.free:
                    radices.append(math.comb(self.board.size - covered, n))
                    covered += n * len(g.shape.cells)
                else:
                    radices.append(math.comb(len(g.anchors), n))
            out.append(Section(tuple(counts), tuple(radices), offset))
            offset += math.prod(radices)
        return tuple(out)

    @property
    def size(self) -> int:
        """Number of ranks (valid or not)."""
        last = self.sections[-1]
        return last.offset + last.size

    def rank(self, position: Position) -> int:
        """Rank of a valid position (ValueError if it is not one)."""
        if self.cover(position) is None:
            raise ValueError("pieces overlap or leave the board")
        counts = tuple(len(anchors) for anchors in position)
        section = next(s for s in self.sections if s.counts == counts)
        rank = 0
        covered: set[int] = set(self.exits)
        for g, anchors, radix in zip(self.groups, position, section.radices):
            if g.free:
                free = [c for c in range(self.board.size) if c not in covered]
                digit = rank_combination([free.index(a) for a in anchors], len(free), "colex")
            else:
                digit = rank_combination([g.anchors.index(a) for a in anchors], len(g.anchors), "colex")
            rank = rank * radix + digit
            covered |= {c for a in anchors for c in cast(tuple[int, ...], self.piece_cells(g, a))}
        return section.offset + rank

    def unrank(self, rank: int) -> Position | None:
        """The position of a rank in 0..size-1, or None if the rank is invalid."""
        if not 0 <= rank < self.size:
            raise ValueError(f"rank {rank} out of range 0..{self.size - 1}")
        section = self.sections[bisect_right([s.offset for s in self.sections], rank) - 1]
        rank -= section.offset
        digits = []
        for radix in reversed(section.radices):
            rank, digit = divmod(rank, radix)
            digits.append(digit)
        digits.reverse()
        position: list[tuple[int, ...]] = []
        covered: set[int] = set(self.exits)
        for g, digit, n in zip(self.groups, digits, section.counts):
            if g.free:
                free = [c for c in range(self.board.size) if c not in covered]
                anchors = tuple(free[i] for i in unrank_combination(digit, len(free), n, "colex"))
            else:
                chosen = unrank_combination(digit, len(g.anchors), n, "colex")
                anchors = tuple(g.anchors[i] for i in chosen)
            for a in anchors:
                cells = self.piece_cells(g, a)
                if cells is None or covered & set(cells):
                    return None
                covered |= set(cells)
            position.append(anchors)
        return tuple(position)

    # -- geometry ----------------------------------------------------------------------------

    def piece_cells(self, group: Group, anchor: int) -> tuple[int, ...] | None:
        """The cells a piece of `group` covers when anchored at `anchor`, or None if it does not
        fit on the board there (or leaves its line)."""
        if not group.free and anchor not in group.anchors:
            return None
        r, c = self.board.cells[anchor]
        cells = tuple(self.board.index.get((r + dr, c + dc)) for dr, dc in group.shape.cells)
        return None if None in cells else cast(tuple[int, ...], cells)

    def flies_off(self, group: Group, anchor: int, d: int) -> tuple[int, ...] | None:
        """Under `edge = "falls"`: if a piece of `group` at `anchor` sliding in direction `d`
        (an index into DIRECTIONS) would leave the board's box with no wall in its way, the
        board cells its next place would still cover (it flies off unless a piece stands on
        one); None if the edge does not take it there (edge "stops", a wall ahead, or the
        next place is on the board)."""
        if self.edge != "falls":
            return None
        r, c = self.board.cells[anchor]
        dr, dc = DIRECTIONS[d]
        ahead = [(r + sr + dr, c + sc + dc) for sr, sc in group.shape.cells]
        inside = [cell for cell in ahead if 0 <= cell[0] < self.board.rows and 0 <= cell[1] < self.board.cols]
        if len(inside) == len(ahead) or any(cell not in self.board.index for cell in inside):
            return None
        return tuple(self.board.index[cell] for cell in inside)

    def cover(self, position: Position) -> dict[int, int] | None:
        """Which group covers each occupied cell, or None if pieces overlap, leave the board, stand
        on an exit or a group holds the wrong number of pieces."""
        if len(position) != len(self.groups):
            return None
        covered: dict[int, int] = {}
        exits = set(self.exits)
        for index, (g, anchors, least) in enumerate(zip(self.groups, position, self.least)):
            if not least <= len(anchors) <= g.count or list(anchors) != sorted(set(anchors)):
                return None
            for a in anchors:
                cells = self.piece_cells(g, a) if 0 <= a < self.board.size else None
                if cells is None or any(c in covered or c in exits for c in cells):
                    return None
                covered.update((c, index) for c in cells)
        return covered

    def is_goal(self, position: Position) -> bool:
        """Whether every piece of the letters `out` has dropped out and, if the goal names a
        piece, one of that letter covers all the goal cells."""
        if any(anchors for g, anchors in zip(self.groups, position) if g.letter in self.out):
            return False
        if not self.goal_letter:
            return True
        goal = set(self.goal_cells)
        return any(
            goal <= set(self.piece_cells(g, a) or ())
            for g, anchors in zip(self.groups, position)
            if g.letter == self.goal_letter
            for a in anchors
        )

    # -- moves (the plain reference; the sweep uses compiled tables) -------------------------

    def moves(self, position: Position) -> list[Move]:
        """The moves of a position as the metric counts them, each with its cost, in the order
        group, piece, then target.

        `step` metric: one-cell slides (a longer straight slide is that many of them), or for
        `until_blocked` each slide, costing the cells it moves; `line`: each slide of the move
        rule, costing 1; `piece`: every place one piece reaches by slides while the others stay,
        costing 1. Distinct moves lead to distinct positions.
        """
        occupied = self.cover(position)
        if occupied is None:
            raise ValueError("not a valid position")
        if self.move == "tilt":
            return self._tilts(position)
        out = []
        for gi, (g, anchors) in enumerate(zip(self.groups, position)):
            for a in anchors:
                others = set(occupied) - set(cast(tuple[int, ...], self.piece_cells(g, a)))
                for target, cost in self._reach(g, a, others):
                    child = list(position)
                    child[gi] = tuple(sorted(set(anchors) - {a} | {target}))
                    out.append(Move(gi, a, target, cost, tuple(child)))
        return out

    def tilt(self, position: Position, d: int) -> Position | None:
        """The position after tilting the board in direction `d` (an index into DIRECTIONS), or
        None if that is not a move: no piece moves, or a piece of a letter `keep` drops out.

        Pieces (one cell each) go front first, each sliding until a wall, the edge or a piece
        already stopped blocks it; one that passes over or stops on an exit drops out."""
        dr, dc = DIRECTIONS[d]
        cells = self.board.cells
        pieces = sorted(((a, gi) for gi, anchors in enumerate(position) for a in anchors),
                        key=lambda piece: -(cells[piece[0]][0] * dr + cells[piece[0]][1] * dc))
        stopped: set[int] = set()
        after: list[list[int]] = [[] for _ in self.groups]
        moved = False
        for a, gi in pieces:
            x = a
            while True:
                r, c = cells[x]
                t = self.board.index.get((r + dr, c + dc))
                if t is None or t in stopped or x in self.exits:
                    break
                x = t
            moved |= x != a
            if x in self.exits:
                if self.groups[gi].letter in self.keep:
                    return None
            else:
                stopped.add(x)
                after[gi].append(x)
        return tuple(tuple(sorted(anchors)) for anchors in after) if moved else None

    def _tilts(self, position: Position) -> list[Move]:
        """The tilts of a position, in the order of DIRECTIONS; two tilts that give the same
        position are one move (the first)."""
        out: list[Move] = []
        for d in range(len(DIRECTIONS)):
            child = self.tilt(position, d)
            if child is not None and all(m.child != child for m in out):
                out.append(Move(-1, -1, -1, 1, child, d))
        return out
    def reachable(self, start: Position, limit: int) -> Reach | None:
        """Every position reachable from `start` by moves that do not leave a goal position,
        with its moves and its distance to the goal; None if there are more than `limit`.

        A shortest solution from a reachable position passes reachable positions only, so
        the distances, found backwards from the goal positions among them, are the tables'.
        """
        index = {start: 0}
        positions: list[Position] = [start]
        moves: list[list[tuple[Move, int]]] = []
        while len(moves) < len(positions):
            here = positions[len(moves)]
            found = []
            for move in [] if self.is_goal(here) else self.moves(here):
                if move.child not in index:
                    if len(positions) >= limit:
                        return None
                    index[move.child] = len(positions)
                    positions.append(move.child)
                found.append((move, index[move.child]))
            moves.append(found)
        back: list[list[tuple[int, int]]] = [[] for _ in positions]
        for i, found in enumerate(moves):
            for move, j in found:
                back[j].append((i, move.cost))
        distances: list[int | None] = [None] * len(positions)
        todo = [(0, i) for i, position in enumerate(positions) if self.is_goal(position)]
        while todo:
            distance, j = heapq.heappop(todo)
            if distances[j] is None:
                distances[j] = distance
                for i, cost in back[j]:
                    if distances[i] is None:
                        heapq.heappush(todo, (distance + cost, i))
        return Reach(positions, moves, distances)

    def _reach(self, g: Group, anchor: int, others: set[int]) -> list[tuple[int, int]]:
        """(target anchor, cost) of each move of one piece under the metric."""
        if self.metric == "piece":
            seen, todo = {anchor}, [anchor]
            while todo:
                for target, _ in self._slides(g, todo.pop(), others, self.move):
                    if target not in seen:
                        seen.add(target)
                        todo.append(target)
            return [(t, 1) for t in sorted(seen - {anchor})]
        if self.metric == "step":
            rule = "until_blocked" if self.move == "until_blocked" else "step"
            return sorted(self._slides(g, anchor, others, rule))
        return sorted((t, 1) for t, _ in self._slides(g, anchor, others, self.move))

    def _slides(self, g: Group, anchor: int, others: set[int], rule: str) -> list[tuple[int, int]]:
        """(target anchor, cells moved) of each slide of one piece under the move `rule`."""
        out = []
        for d in STEERING[g.shape.along]:
            dr, dc = DIRECTIONS[d]
            r, c = self.board.cells[anchor]
            stops = []
            steps = 1
            while True:
                target = self.board.index.get((r + steps * dr, c + steps * dc))
                cells = None if target is None else self.piece_cells(g, target)
                if cells is None or others & set(cells):
                    break
                stops.append((cast(int, target), steps))  # a cell: cells is None off the board
                steps += 1
            if rule == "step":
                stops = stops[:1]
            elif rule == "until_blocked":
                stops = stops[-1:]
                last = stops[-1][0] if stops else anchor
                ahead = self.flies_off(g, last, d)
                if ahead is not None and not others & set(ahead):
                    stops = []  # nothing stops it: it would fly off the board
            out.extend(stops)
        return out

    # -- drawings ----------------------------------------------------------------------------

    def draw(self, position: Position) -> str:
        """The board drawing of a position: letters for pieces, '.' for empty cells, '#'
        for walls inside the board's box."""
        occupied = self.cover(position)
        if occupied is None:
            raise ValueError("not a valid position")
        rows = [["#"] * self.board.cols for _ in range(self.board.rows)]
        for i, (r, c) in enumerate(self.board.cells):
            rows[r][c] = self.groups[occupied[i]].letter if i in occupied else EMPTY
        return "\n".join("".join(row) for row in rows)

    def parse(self, drawing: str, what: str = "board") -> Position:
        """The position of a drawing like `draw`'s ('#' or a space for walls; rows may be
        separated by '/' instead of line breaks); SelectionError naming `what` if it is not
        a position of this puzzle."""
        try:
            return _parse_position(self, _art_lines(drawing.replace("/", "\n")))
        except ValueError as exc:
            raise SelectionError(f"{what}: {exc}") from None



def load_sliding_puzzle(path: str | Path) -> SlidingPuzzle:
    """Read and validate a sliding-block puzzle file."""
    return sliding_puzzle_from(read_puzzle_file(path))


def parse_sliding_puzzle(text: str, source: str = "<puzzle>") -> SlidingPuzzle:
    """Validate sliding-block puzzle text; `source` names it in error messages."""
    return sliding_puzzle_from(puzzle_file(text, source))


def sliding_puzzle_from(file: PuzzleFile) -> SlidingPuzzle:
    """Validate a sliding-block puzzle file already read and decoded."""
    return _SlidingReader(file.source).puzzle(file.data, file.text)


def _art_lines(art: str) -> list[str]:
    lines = art.split("\n")
    while lines and not lines[-1].strip():
        lines.pop()
    while lines and not lines[0].strip():
        lines.pop(0)
    margin = min((len(line) - len(line.lstrip()) for line in lines if line.strip()), default=0)
    return [line[margin:].rstrip() for line in lines]


def _letters(lines: list[str]) -> dict[Cell, str]:
    """The cells of a drawing (not walls) and what is drawn on each, numbered from the first
    row and column that hold a cell, as `Board.from_art` numbers them."""
    drawn = {(y, x): ch for y, line in enumerate(lines) for x, ch in enumerate(line) if ch not in WALLS}
    top = min((y for y, _ in drawn), default=0)
    left = min((x for _, x in drawn), default=0)
    return {(y - top, x - left): ch for (y, x), ch in drawn.items()}


def _parse_position(puzzle: SlidingPuzzle, lines: list[str]) -> Position:
    """The pieces drawn on a board's cells, as groups' anchors (ValueError if they are not a
    position of the puzzle)."""
    drawn = _letters(lines)
    if set(drawn) != set(puzzle.board.cells):
        raise ValueError("the drawing's cells are not the puzzle's board "
                         f"({first_difference(drawn, puzzle.board.cells)})")
    anchors = _decompose(puzzle.board, {s.letter: s for s in puzzle.shapes}, drawn)
    position = []
    for g, least in zip(puzzle.groups, puzzle.least):
        mine = sorted(a for letter, a in anchors if letter == g.letter and (g.free or a in g.anchors))
        if not least <= len(mine) <= g.count:
            where = "" if g.free else f" on {g.shape.along} {g.line}"
            has = f"{g.count}" if least == g.count else f"at most {g.count}"
            raise ValueError(f"{len(mine)} pieces {g.letter}{where} drawn, the puzzle has {has}")
        position.append(tuple(mine))
    on_exits = [a for _, a in anchors if a in puzzle.exits]
    if on_exits:
        r, c = puzzle.board.cells[on_exits[0]]
        raise ValueError(f"a piece is drawn on the exit at row {r}, column {c}")
    used = sum(len(p) for p in position)
    if used != len(anchors):
        raise ValueError("a piece is drawn off the line it keeps")
    return tuple(position)


def _decompose(board: Board, shapes: dict[str, Shape], drawn: dict[Cell, str]) -> list[tuple[str, int]]:
    """The (letter, anchor cell) of every piece drawn: the first cell of a letter not yet taken,
    in row-major order, must be a piece's anchor, so the pieces are found in one pass."""
    taken: set[Cell] = set()
    out = []
    for cell in board.cells:
        letter = drawn[cell]
        if letter == EMPTY or cell in taken:
            continue
        shape = shapes.get(letter)
        if shape is None:
            raise ValueError(f"{letter!r} at row {cell[0]}, column {cell[1]} is not a piece "
                             f"(pieces: {' '.join(shapes)}; '.' is empty)")
        cells = [(cell[0] + dr, cell[1] + dc) for dr, dc in shape.cells]
        if any(drawn.get(c) != letter or c in taken for c in cells):
            raise ValueError(f"the {letter} at row {cell[0]}, column {cell[1]} does not have the "
                             f"shape of pieces.{letter}.cells")
        taken.update(cells)
        out.append((letter, board.index[cell]))
    return out


def _placements(board: Board, shape: Shape) -> list[tuple[int, tuple[int, ...]]]:
    """Each anchor (a cell's index) where a piece of `shape` lies wholly on the board (its walls
    are not cells), with the cells it covers there, ignoring the line it may have to keep."""
    out = []
    for anchor, (r, c) in enumerate(board.cells):
        cells = tuple(board.index.get((r + dr, c + dc), -1) for dr, dc in shape.cells)
        if -1 not in cells:
            out.append((anchor, cells))
    return out


class _SlidingReader(TableReader):
    """Reads a sliding-block puzzle's tables, naming the source and the key in every error."""

    def puzzle(self, data: dict, text: str) -> SlidingPuzzle:
        self.family(data, TOP_KEYS)
        self.only(data, TOP_KEYS, "")
        name = self.name(data)
        title = self.title(data, name)
        move, metric, edge = self.rules(self.get(data, "rules", dict, ""))
        board_table = self.get(data, "board", dict, "")
        self.only(board_table, BOARD_KEYS, "board")
        lines = _art_lines(self.get(board_table, "art", str, "board"))
        drawn = _letters(lines)
        try:
            board = Board.from_art("square", "\n".join(
                "".join(EMPTY if ch not in WALLS else ch for ch in line) for line in lines))
        except BoardError as exc:
            raise self.fail("board.art", str(exc)) from None
        shapes = self.shapes(self.get(data, "pieces", dict, ""), board)
        try:
            anchors = _decompose(board, {s.letter: s for s in shapes}, drawn)
        except ValueError as exc:
            raise self.fail("board.art", str(exc)) from None
        shapes = tuple(self.counted(s, anchors) for s in shapes)
        groups = self.groups(shapes, anchors, board)
        exits = self.exits(board_table, move, board, anchors)
        if move == "tilt":
            self.tilted(shapes)
        goal_table = self.get(data, "goal", dict, "")
        out, keep = self.dropping(goal_table, move, shapes, exits)
        goal_letter, goal_cells = self.goal(goal_table, shapes, board, required=not out)
        puzzle = SlidingPuzzle(name, title, move, metric, board, shapes, groups, goal_letter, goal_cells,
                               None, text, self.source, edge, exits, out, keep, mask_words(board.size))
        if puzzle.size > MAX_POSITIONS:
            raise self.fail("pieces", f"{puzzle.size:,} ranks; at most {MAX_POSITIONS:,} are supported")
        if anchors:
            start = _parse_position(puzzle, lines)
            puzzle = replace(puzzle, start=start)
        return puzzle

    def rules(self, table: dict) -> tuple[str, str, str]:
        self.only(table, RULES_KEYS, "rules")
        family = self.get(table, "family", str, "rules")
        if family != FAMILY:
            raise self.fail("rules.family", f"must be {FAMILY!r} in a sliding-block puzzle, got {family!r}")
        move = self.get(table, "move", str, "rules", "step")
        if move not in MOVES:
            raise self.fail("rules.move", f"unknown move {move!r} (known: {', '.join(MOVES)})")
        metric = self.get(table, "metric", str, "rules", "line")
        if metric not in METRICS:
            raise self.fail("rules.metric", f"unknown metric {metric!r} (known: {', '.join(METRICS)})")
        if move == "tilt" and metric != "line":
            raise self.fail("rules.metric", f'every tilt counts one: the metric is "line", not {metric!r}')
        edge = self.get(table, "edge", str, "rules", "stops")
        if "edge" in table and move != "until_blocked":
            raise self.fail("rules.edge", f'only applies to move = "until_blocked", not to {move!r}')
        if edge not in EDGES:
            raise self.fail("rules.edge", f"must be one of {', '.join(EDGES)}, got {edge!r}")
        return move, metric, edge

    def shapes(self, table: dict, board: Board) -> tuple[Shape, ...]:
        if not table:
            raise self.fail("pieces", "names no pieces")
        out = []
        for letter, value in table.items():
            where = f"pieces.{letter}"
            if len(letter) != 1 or not letter.isalpha() or not letter.isascii():
                raise self.fail(where, "a piece is named by one letter (it draws the piece on the board)")
            if not isinstance(value, dict):
                raise self.fail(where, f"must be a table, got {value!r}")
            self.only(value, PIECE_KEYS, where)
            cells = self.shape(self.get(value, "cells", list, where, [[0, 0]]), f"{where}.cells")
            fewest, count = self.count(value, where, board)
            along = self.get(value, "along", str, where, "any")
            if along not in ALONG:
                raise self.fail(f"{where}.along", f"must be one of {', '.join(ALONG)}, got {along!r}")
            if fewest is not None and along != "any":
                raise self.fail(f"{where}.count",
                                'a range of counts is for pieces that go anywhere (along = "any")')
            out.append(Shape(letter, cells, count or 0, along, fewest))
        return tuple(out)

    def count(self, table: dict, where: str, board: Board) -> tuple[int | None, int | None]:
        """A piece's `count`: a whole number, or a range "A..B" (fewest, most); (None, None)
        when missing."""
        value = self.get(table, "count", (int, str), where, None, nullable=True)
        key = f"{where}.count"
        if isinstance(value, str):
            found = re.fullmatch(r"\s*(\d+)\s*\.\.\s*(\d+)\s*", value)
            if found is None:
                raise self.fail(key, f'must be a whole number or a range such as "0..3", got {value!r}')
            fewest, most = int(found[1]), int(found[2])
            if not fewest <= most or not 1 <= most <= board.size:
                raise self.fail(key, f"must run from A to B with 0 <= A <= B and 1 <= B <= {board.size}, "
                                f"got {value!r}")
            return fewest, most
        if value is not None and not 1 <= value <= board.size:
            raise self.fail(key, f"must be between 1 and {board.size}, got {value}")
        return None, value

    def shape(self, value: list, key: str) -> tuple[Cell, ...]:
        if len(value) > MAX_CELLS:
            raise self.fail(key, f"names {len(value):,} cells; a piece covers at most {MAX_CELLS}")
        cells = [self.pair(v, key) for v in value]
        if not cells:
            raise self.fail(key, "names no cells")
        if any(abs(v) >= MAX_SIDE for cell in cells for v in cell):
            raise self.fail(key, f"rows and columns must lie between -{MAX_SIDE - 1} and {MAX_SIDE - 1}")
        if len(set(cells)) != len(cells):
            raise self.fail(key, "lists a cell twice")
        r0, c0 = min(cells)
        return tuple(sorted((r - r0, c - c0) for r, c in cells))

    def pair(self, value: Any, key: str) -> Cell:
        if (not isinstance(value, list) or len(value) != 2
                or not all(isinstance(v, int) and not isinstance(v, bool) for v in value)):
            raise self.fail(key, f"a cell is [row, column], got {value!r}")
        return value[0], value[1]

    def counted(self, shape: Shape, anchors: list[tuple[str, int]]) -> Shape:
        """The shape with its count: as drawn in the art, which must agree with `count`."""
        drawn = sum(1 for letter, _ in anchors if letter == shape.letter)
        where = f"pieces.{shape.letter}"
        if shape.fewest is not None:
            if anchors and not shape.fewest <= drawn <= shape.count:
                raise self.fail(f"{where}.count",
                                f"is {shape.fewest}..{shape.count}, but board.art draws {drawn}")
            return shape
        if anchors and shape.count and drawn != shape.count:
            raise self.fail(f"{where}.count", f"is {shape.count}, but board.art draws {drawn}")
        if anchors and not drawn:
            raise self.fail(where, "is not drawn in board.art (draw every piece, or none)")
        if not anchors and shape.along != "any":
            raise self.fail(f"{where}.along", "pieces that keep a line must be drawn in board.art, "
                            "on their lines")
        return replace(shape, count=drawn or shape.count or 1)

    def groups(self, shapes: tuple[Shape, ...], anchors: list[tuple[str, int]], board: Board
               ) -> tuple[Group, ...]:
        lined, free = [], []
        for shape in shapes:
            if shape.along == "any":
                if not _placements(board, shape):
                    raise self.fail(f"pieces.{shape.letter}.cells", "fits nowhere on the board")
                free.append(Group(shape.letter, shape, shape.count, None, tuple(range(board.size))))
                continue
            axis = 0 if shape.along == "row" else 1
            lines = sorted({board.cells[a][axis] for letter, a in anchors if letter == shape.letter})
            for line in lines:
                count = sum(1 for letter, a in anchors
                            if letter == shape.letter and board.cells[a][axis] == line)
                fits = tuple(a for a, _ in _placements(board, shape) if board.cells[a][axis] == line)
                lined.append(Group(shape.letter, shape, count, line, fits))
        free.sort(key=lambda g: -len(g.shape.cells))  # big pieces first: fewer ranks
        return tuple(lined + free)

    def exits(self, table: dict, move: str, board: Board, anchors: list[tuple[str, int]]) -> tuple[int, ...]:
        """The exit cells of a tilt board, on which the art draws no piece."""
        if "exits" not in table:
            return ()
        if move != "tilt":
            raise self.fail("board.exits", f'only applies to move = "tilt", not to {move!r}')
        cells = tuple(self.cell(c, board, "board.exits") for c in self.get(table, "exits", list, "board"))
        if len(set(cells)) != len(cells):
            raise self.fail("board.exits", "lists a cell twice")
        for letter, a in anchors:
            if a in cells:
                raise self.fail("board.exits", f"the {letter} drawn at row {board.cells[a][0]}, column "
                                f"{board.cells[a][1]} stands on an exit")
        return tuple(sorted(cells))

    def tilted(self, shapes: tuple[Shape, ...]) -> None:
        """Tilt moves take pieces of one cell that slide every way."""
        for shape in shapes:
            if len(shape.cells) != 1:
                raise self.fail(f"pieces.{shape.letter}.cells", "tilt moves take pieces of one cell")
            if shape.along != "any":
                raise self.fail(f"pieces.{shape.letter}.along", 'tilt moves take pieces that slide every way '
                                '("any")')

    def dropping(self, table: dict, move: str, shapes: tuple[Shape, ...], exits: tuple[int, ...]
                 ) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """The goal's letters to drop out (`out`) and to keep on the board (`keep`)."""
        letters = {s.letter for s in shapes}
        found = []
        for key in ("out", "keep"):
            value = self.get(table, key, list, "goal", [])
            if value and move != "tilt":
                raise self.fail(f"goal.{key}", f'only applies to move = "tilt", not to {move!r}')
            for i, letter in enumerate(value):
                if letter not in letters:
                    raise self.fail(f"goal.{key}", f"{letter!r} is not one of the [pieces]")
                if letter in value[:i]:
                    raise self.fail(f"goal.{key}", f"{letter!r} is given twice")
            found.append(tuple(sorted(set(value))))
        out, keep = found
        if out and not exits:
            raise self.fail("goal.out", "pieces drop out through exits: give board.exits")
        if set(out) & set(keep):
            both = " ".join(sorted(set(out) & set(keep)))
            raise self.fail("goal.keep", f"{both} cannot drop out and stay too")
        return out, keep

    def goal(self, table: dict, shapes: tuple[Shape, ...], board: Board, required: bool = True
             ) -> tuple[str, tuple[int, ...]]:
        self.only(table, GOAL_KEYS, "goal")
        if not required and "piece" not in table and "cells" not in table:
            return "", ()
        letter = self.get(table, "piece", str, "goal")
        if letter not in {s.letter for s in shapes}:
            raise self.fail("goal.piece", f"{letter!r} is not one of the [pieces]")
        cells = self.get(table, "cells", list, "goal")
        if not cells:
            raise self.fail("goal.cells", "names no cells")
        indices = tuple(self.cell(c, board, "goal.cells") for c in cells)
        for i, index in enumerate(indices):
            if index in indices[:i]:
                raise self.fail("goal.cells", f"{list(board.cells[index])} is given twice")
        shape = next(s for s in shapes if s.letter == letter)
        if len(set(indices)) > len(shape.cells):
            raise self.fail("goal.cells", f"a piece {letter} covers {len(shape.cells)} cells, "
                            "fewer than these")
        if not any(set(indices) <= set(covered) for _, covered in _placements(board, shape)):
            raise self.fail("goal.cells", f"no place of a piece {letter} on the board covers them all")
        return letter, tuple(sorted(set(indices)))
