"""Puzzle files (TOML) turned into validated `Puzzle` objects.

Every problem in a file is reported as one `PuzzleError` naming the file, the key and what
is wrong. The format is described in docs/puzzle-format.md.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from curator.common.board import Board, BoardError
from curator.common.difficulty import DEFAULT, Player
from curator.common.errors import SelectionError
from curator.common.ranking import RANK_LIMIT, multinomial
from curator.common.reading import PuzzleFile, TableReader, puzzle_file, read_puzzle_file
from curator.rules import FamilyError, ParamError, Rules, check_moves, find_family

BINARY_PIECE = "o"
EMPTY = "."
"""How an empty cell is drawn."""
TOP_KEYS = {"name", "title", "max_pieces", "board", "rules", "goal", "pieces"}
GOAL_KEYS = {"pieces", "cells", "piece", "final_step_once"}
BOARD_KEYS = {"grid", "art"}


@dataclass(frozen=True)
class Goal:
    """What a solved position looks like."""

    pieces: int
    cells: frozenset[int] | None = None
    """If set, the remaining pieces must all stand on these cells."""
    piece: int | None = None
    """If set, the remaining pieces must all be of this type (1-based)."""
    final_step_once: bool = False
    """Count the last step to the goal once (all solvable positions one above the goal
    then have exactly one solution), as Fling! does."""

    def cells_mask(self, cells: int) -> int:
        """The cells (as a bit mask) goal positions may occupy on a board of `cells` cells."""
        return sum(1 << c for c in (self.cells if self.cells is not None else range(cells)))

    def holds_in(self, counts: Sequence[int]) -> bool:
        """Whether the layer with these piece counts (per type) can hold a goal position."""
        if sum(counts) != self.pieces:
            return False
        return self.piece is None or counts[self.piece - 1] == self.pieces

    def reached(self, position: Sequence[int]) -> bool:
        """Whether `position` (one entry per cell: 0 empty, t = type t) is a goal position.

        >>> Goal(pieces=1, cells=frozenset({2})).reached((0, 0, 1)), Goal(pieces=1).reached((1, 1, 0))
        (True, False)
        """
        occupied = [(i, v) for i, v in enumerate(position) if v]
        if len(occupied) != self.pieces:
            return False
        if self.cells is not None and any(i not in self.cells for i, _ in occupied):
            return False
        return self.piece is None or all(v == self.piece for _, v in occupied)


def largest_layer(cells: int, limits: Sequence[int], pieces: int) -> tuple[tuple[int, ...], int]:
    """The counts per type and the size of the largest layer of `pieces` pieces on `cells`
    cells: the counts as even as the limits allow (k! / prod(c!) is largest there).

    >>> largest_layer(9, (1, 2, 5), 4)
    ((1, 2, 1), 1512)
    """
    counts = [0] * len(limits)
    for _ in range(pieces):
        t = min((t for t in range(len(limits)) if counts[t] < limits[t]), key=lambda t: counts[t])
        counts[t] += 1
    return tuple(counts), math.comb(cells, pieces) * multinomial.py_func(counts)


def layer_past_ranks(cells: int, piece_types: tuple[str, ...], limits: Sequence[int], lowest: int,
                     highest: int) -> str | None:
    """What is wrong when a layer of `lowest`..`highest` pieces has more positions than a
    signed 64-bit rank holds (ranks, binomials and multinomials are int64 in compiled code),
    or None when every layer fits."""
    for pieces in range(lowest, highest + 1):
        counts, size = largest_layer(cells, limits, pieces)
        if size >= RANK_LIMIT:
            typed = " ".join(f"{t}{c}" for t, c in zip(piece_types, counts) if c) if len(limits) > 1 else ""
            return (f"the layer of {pieces} pieces{f' ({typed})' if typed else ''} has {size:,} positions, "
                    f"more than a 64-bit rank holds; sweep at most {pieces - 1} pieces")
    return None


@dataclass(frozen=True)
class Puzzle:
    """A validated puzzle: board, rules, pieces, goal and default depth."""

    name: str
    title: str
    board: Board
    rules: Rules
    piece_types: tuple[str, ...]
    piece_limits: tuple[int, ...]
    goal: Goal
    max_pieces: int
    text: str
    source: str

    @property
    def typed(self) -> bool:
        return self.rules.typed

    @property
    def player(self) -> Player:
        """The player model that rates its levels until it is calibrated: its rule family's
        (`Rules.player`), else the defaults fitted on the shipped Fling! levels."""
        return DEFAULT if self.rules.player is None else self.rules.player

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.text.encode()).hexdigest()

    def symmetries(self) -> list[tuple[int, ...]]:
        """Cell permutations (identity first) that map every position to an equivalent one:
        those the rules respect that also keep the goal cells in place as a set."""
        perms = self.rules.symmetries()
        cells = self.goal.cells
        if cells is not None:
            perms = [p for p in perms if {p[c] for c in cells} == set(cells)]
        return perms

    def parse(self, drawing: str, what: str = "board drawing") -> tuple[int, ...]:
        """The position a drawing shows (see `parse_drawing`); SelectionError if it does not
        fit the puzzle."""
        return parse_drawing(drawing, self, what)

    def translation_margin(self, pieces: int) -> int | None:
        """How far around the pieces of a position with `pieces` pieces the board must look
        the same for moving them all by one vector to give an equivalent position (see
        `Rules.translation_margin`); None if moving them changes the game: the family's
        moves depend on where the pieces stand, or the goal names cells."""
        if self.goal.cells is not None:
            return None
        return self.rules.translation_margin(pieces, self.goal.pieces)


def parse_drawing(text: str, puzzle: Puzzle, what: str = "board drawing") -> tuple[int, ...]:
    """A position drawn like the board art: `.` empty, `o` a piece (one-type puzzles) or piece
    letters (typed puzzles), spaces (or `#`) where the board has no cell. Rows are lines, or
    separated by `/` in one line. Returns one entry per cell (0 empty, t = type t).
    SelectionError if the drawing does not fit the puzzle."""
    symbols = {EMPTY: 0}
    if puzzle.typed:
        symbols.update({letter: t for t, letter in enumerate(puzzle.piece_types, start=1)})
    else:
        symbols[puzzle.piece_types[0]] = 1
    lines = text.replace("\r", "").replace("/", "\n").split("\n")
    art, found = [], []
    for y, line in enumerate(lines):
        row = []
        for x, ch in enumerate(line.rstrip()):
            if ch in " #":
                row.append(" ")
            elif ch in symbols:
                row.append(".")
                found.append(symbols[ch])
            else:
                allowed = ", ".join(repr(s) for s in symbols)
                raise SelectionError(
                    f"{what}: unexpected {ch!r} at line {y + 1}, column {x + 1} (use {allowed})"
                )
        art.append("".join(row))
    try:
        drawn = Board.from_art(puzzle.board.grid, "\n".join(art))
    except BoardError as exc:
        raise SelectionError(f"{what}: {exc}")
    if drawn.cells != puzzle.board.cells:
        raise SelectionError(
            f"{what}: its {drawn.size} cells do not have the shape of the {puzzle.name} board "
            f"({puzzle.board.size} cells, {puzzle.board.rows} rows)"
        )
    position = tuple(found)
    for t, limit in enumerate(puzzle.piece_limits, start=1):
        if position.count(t) > limit:
            raise SelectionError(
                f"{what}: {position.count(t)} pieces {puzzle.piece_types[t - 1]!r}, "
                f"the puzzle has {limit}"
            )
    return position


def load_puzzle(path: str | Path) -> Puzzle:
    """Read and validate a puzzle file."""
    return puzzle_from(read_puzzle_file(path))


def parse_puzzle(text: str, source: str = "<puzzle>") -> Puzzle:
    """Validate puzzle-file text; `source` names it in error messages."""
    return puzzle_from(puzzle_file(text, source))


def puzzle_from(file: PuzzleFile) -> Puzzle:
    """Validate a puzzle file already read and decoded."""
    return _Reader(file.source).puzzle(file.data, file.text)


class _Reader(TableReader):
    """Reads one puzzle file's tables, naming `source` and the key in every error."""

    def puzzle(self, data: dict, text: str) -> Puzzle:
        family = self.family(data, TOP_KEYS)
        try:
            found = find_family(family)
        except FamilyError as exc:
            raise self.fail("rules.family", str(exc))
        self.only(data, TOP_KEYS, "")
        name = self.name(data)
        title = self.title(data, name)
        board = self.board(self.get(data, "board", dict, ""))
        piece_types, limits = self.pieces(data, board)
        rules = self.rules(found, self.get(data, "rules", dict, ""), board, piece_types, limits)
        goal = self.goal(self.get(data, "goal", dict, "", {}), board, piece_types, limits)
        total = sum(limits)
        max_pieces = self.get(data, "max_pieces", int, "", total)
        if not goal.pieces <= max_pieces <= total:
            raise self.fail(
                "max_pieces", f"must be between goal.pieces ({goal.pieces}) and {total}, got {max_pieces}"
            )
        # A depth the file names must fit 64-bit ranks; the default (every piece) is checked
        # when an analysis starts (`sweep_depth`), so that a file still loads to solve positions.
        problem = layer_past_ranks(board.size, piece_types, limits, goal.pieces, max_pieces) \
            if "max_pieces" in data else None
        if problem:
            raise self.fail("max_pieces", problem)
        return Puzzle(name, title, board, rules, piece_types, limits, goal, max_pieces, text, self.source)

    def board(self, table: dict) -> Board:
        self.only(table, BOARD_KEYS, "board")
        grid = self.get(table, "grid", str, "board", "square")
        art = self.get(table, "art", str, "board")
        try:
            board = Board.from_art(grid, art)
        except BoardError as exc:
            raise self.fail(f"board.{exc.part}", str(exc))
        return board  # Board.from_art refuses more than MAX_CELLS cells

    def pieces(self, data: dict, board: Board) -> tuple[tuple[str, ...], tuple[int, ...]]:
        if "pieces" not in data:
            return (BINARY_PIECE,), (board.size,)
        table = self.get(data, "pieces", dict, "")
        if not table:
            raise self.fail("pieces", "names no piece types")
        for letter in table:
            if len(letter) != 1 or not letter.isalpha() or letter == BINARY_PIECE:
                raise self.fail(f"pieces.{letter}", "piece types are single letters other than 'o'")
            count = self.get(table, letter, int, "pieces")
            if not 1 <= count <= board.size:
                raise self.fail(f"pieces.{letter}", f"must be between 1 and {board.size}, got {count}")
        if sum(table.values()) > board.size:
            raise self.fail("pieces", f"{sum(table.values())} pieces do not fit on {board.size} cells")
        return tuple(table), tuple(table.values())

    def rules(self, kind: type[Rules], table: dict, board: Board, piece_types: tuple[str, ...],
              limits: tuple[int, ...]) -> Rules:
        family = kind.family
        typed = piece_types != (BINARY_PIECE,)
        if kind.typed != typed:
            need = "needs a [pieces] table" if not typed else "has one kind of piece: remove [pieces]"
            raise self.fail("pieces", f"family {family!r} {need}")
        params = {k: v for k, v in table.items() if k != "family"}
        try:
            rules = kind.from_params(board, piece_types, params)
        except ParamError as exc:
            raise self.fail(f"rules.{exc.key}", str(exc))
        try:
            check_moves(rules, limits)
        except FamilyError as exc:
            raise self.fail("rules.family", str(exc))
        return rules

    def goal(self, table: dict, board: Board, piece_types: tuple[str, ...], limits: tuple[int, ...]) -> Goal:
        self.only(table, GOAL_KEYS, "goal")
        pieces = self.get(table, "pieces", int, "goal", 1)
        if not 1 <= pieces <= sum(limits):
            raise self.fail("goal.pieces", f"must be between 1 and {sum(limits)}, got {pieces}")
        cells = None
        if "cells" in table:
            listed = self.get(table, "cells", list, "goal")
            cells = frozenset(self.cell(c, board, "goal.cells") for c in listed)
            if len(cells) < pieces:
                raise self.fail("goal.cells", f"names {len(cells)} cells, fewer than goal.pieces ({pieces})")
        piece = None
        if "piece" in table:
            letter = self.get(table, "piece", str, "goal")
            if letter not in piece_types or len(piece_types) == 1:
                raise self.fail("goal.piece", f"{letter!r} is not one of the puzzle's [pieces]")
            piece = piece_types.index(letter) + 1
            if limits[piece - 1] < pieces:
                raise self.fail("goal.piece", f"only {limits[piece - 1]} {letter} pieces exist")
        final_step_once = self.get(table, "final_step_once", bool, "goal", False)
        return Goal(pieces, cells, piece, final_step_once)
