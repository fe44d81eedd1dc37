"""Levels of layered puzzles: positions a designer may ship, with their metrics and one solution.

A `Level` is what selecting and solving produce and what every export consumes. Its `puzzle`
is a `Puzzle` or the header of a level pack (`PuzzleLike`), enough to draw it and to replay
its solution under the rules (`replay`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from curator.common.board import Board
from curator.common.figures import difficulty_value, figure_value
from curator.layered.puzzle import EMPTY, Goal
from curator.rules import Rules

Move = tuple[int, int]
"""(from_cell, to_cell): cell indices in `Board.cells` order, as the search and the rules
give moves (`Report.solution`)."""
CellMove = tuple[tuple[int, int], tuple[int, int]]
"""((row, col), (row, col)): a move from cell to cell as people, the command line and JSON
write it (`Level.solution`)."""


@dataclass(frozen=True)
class Report:
    """Everything the search knows about one position."""

    pieces: int
    solvable: bool
    unique: bool
    all_moves: bool
    solutions: int
    """Distinct sequences of positions from here to a goal position."""
    legal_moves: int
    safe_moves: int
    """Legal moves whose resulting position is still solvable."""
    solution: list[Move]
    """One solution (empty when the position is a goal or unsolvable)."""


@dataclass(frozen=True)
class Play:
    """What a player meets on the way to the goal, exact over every reachable position
    (definitions and a worked example: docs/metrics.md). Figures along the solution are None
    for an unsolvable position."""

    win_chance: float
    """Chance that a player choosing uniformly among the legal moves at every step wins."""
    mistake_depth: float | None
    """Mean, over the wrong moves along the solution, of how many more moves a player can
    make after one before getting stuck."""
    mistake_depth_max: int | None
    decisions: int | None
    """Steps of the solution where the legal moves lead to more than one position."""
    forced: int | None
    """Steps of the solution where every legal move leads to the same position."""
    information: float | None
    """Bits a player needs to find the solution: the sum of -log2(safe / legal) over its steps."""
    search: float | None
    """Positions a backtracking player with memory visits, expected: the solution's moves plus
    each wrong subtree's positions times the chance it is tried before a safe move."""


PLAY_FIGURES = ("win_chance", "mistake_depth", "mistake_depth_max", "decisions", "forced", "information",
                "search")
"""The figures of `Play`, as levels, JSON, packs and CSV name them."""


class PuzzleLike(Protocol):
    """What levels, pictures and replays need of a puzzle: a `Puzzle` or a `PackHeader`."""

    # Read-only, as both are frozen dataclasses.
    @property
    def name(self) -> str: ...
    @property
    def title(self) -> str: ...
    @property
    def board(self) -> Board: ...
    @property
    def piece_types(self) -> tuple[str, ...]: ...
    @property
    def goal(self) -> Goal: ...

    @property
    def rules(self) -> Rules: ...


@dataclass(frozen=True)
class Level:
    """One position of a puzzle with its report and difficulty (see `LayeredResults.select`)."""

    layer: str
    """The key of the layer it belongs to (see `curator.layered.space.Layer.key`)."""
    rank: int
    """Its rank within that layer."""
    position: tuple[int, ...]
    """One entry per cell (in `Board.cells` order): 0 empty, t = piece type t (1-based)."""
    report: Report
    """Solvability, solution count, first-move figures and one solution."""
    difficulty: float
    """The effort, in moves, of a modelled player that solves it (see
    `curator.layered.metrics.difficulty`; infinite for unsolvable positions, NaN when the
    position reaches too many positions to rate)."""
    puzzle: PuzzleLike = field(repr=False, compare=False)
    play: Play | None = None
    """What a player meets (None when the position reaches too many positions to follow)."""
    class_size: int = 1
    """Positions in its class: the images under the symmetries and translations that keep
    the puzzle the same."""
    difficulty_terms: str = ""
    """What its difficulty is made of, in one line: "12 moves; 3 tempting dead ends (hidden up
    to 4 moves); 2 forced steps; 3.1 legal moves per step" (empty where it is not rated)."""

    @property
    def pieces(self) -> int:
        return self.report.pieces

    @property
    def solvable(self) -> bool:
        return self.report.solvable

    @property
    def unique(self) -> bool:
        return self.report.unique

    @property
    def all_moves(self) -> bool:
        return self.report.all_moves

    @property
    def solutions(self) -> int:
        return self.report.solutions

    @property
    def legal_moves(self) -> int:
        return self.report.legal_moves

    @property
    def safe_moves(self) -> int:
        return self.report.safe_moves

    @property
    def solution(self) -> list[CellMove]:
        """One solution as moves ((row, col), (row, col)), as the command line and JSON
        write them (`report.solution` has them as cell indices)."""
        cells = self.puzzle.board.cells
        return [(cells[a], cells[b]) for a, b in self.report.solution]

    win_chance = property(lambda self: self._figure("win_chance"), doc=Play.__doc__)
    mistake_depth = property(lambda self: self._figure("mistake_depth"))
    mistake_depth_max = property(lambda self: self._figure("mistake_depth_max"))
    decisions = property(lambda self: self._figure("decisions"))
    forced = property(lambda self: self._figure("forced"))
    information = property(lambda self: self._figure("information"))
    search = property(lambda self: self._figure("search"))

    def _figure(self, name: str) -> float | int | None:
        return None if self.play is None else getattr(self.play, name)

    @property
    def board(self) -> list[str]:
        """The position drawn like the board art, one string per row."""
        return draw(self.puzzle, self.position).split("\n")

    def to_json(self) -> dict[str, Any]:
        """The level as `select --json` and `solve --json` print it (exact integers)."""
        return {
            **position_json(self.puzzle, self.layer, self.rank, self.position),
            "solvable": self.solvable,
            "unique": self.unique,
            "all_moves": self.all_moves,
            "solutions": int(self.solutions),
            "legal_moves": self.legal_moves,
            "safe_moves": self.safe_moves,
            "difficulty": difficulty_value(self.difficulty),
            "difficulty_terms": self.difficulty_terms,
            **{name: figure_value(getattr(self, name)) for name in PLAY_FIGURES},
            "class_size": self.class_size,
            "solution": solution_json(self.puzzle, self.report.solution),
        }

    def _repr_svg_(self) -> str:
        """The level's picture, so that a notebook draws it."""
        from curator.picture import picture, svg_text

        return svg_text(picture(self.puzzle, self.position, f"{self.layer} #{self.rank}"))


# -- text and JSON of positions ----------------------------------------------------------------


def draw(puzzle: PuzzleLike, position: Sequence[int]) -> str:
    """The position drawn like the board art: `.` empty, piece letters elsewhere."""
    return puzzle.board.draw(puzzle.piece_types[v - 1] if v else EMPTY for v in position)


def cell_text(cell: tuple[int, int]) -> str:
    """A board cell (row, col) as "row,col"."""
    return f"{cell[0]},{cell[1]}"


def moves_text(puzzle: PuzzleLike, moves: Sequence[Move], position: Sequence[int] | None = None) -> str:
    """Moves as "r,c>r,c r,c>r,c"; with several piece types and the `position` they start
    from, each names the piece it moves: "R 1,0>2,0 Q 3,3>1,1"."""
    return " ".join(move_entries(puzzle, moves, position))


def move_entries(puzzle: PuzzleLike, moves: Sequence[Move], position: Sequence[int] | None = None
               ) -> list[str]:
    """Each move as `moves_text` writes it: "r,c>r,c", or "R 1,0>2,0" naming the piece."""
    cells = puzzle.board.cells
    texts = [f"{cell_text(cells[a])}>{cell_text(cells[b])}" for a, b in moves]
    if len(puzzle.piece_types) > 1 and position is not None:
        before = replay(puzzle, position, moves)
        texts = [f"{puzzle.piece_types[here[a] - 1]} {text}"
                 for here, (a, _), text in zip(before, moves, texts)]
    return texts


def difficulty_text(value: float) -> str:
    """A difficulty to two decimals; "-" for an unsolvable level."""
    return f"{value:.2f}" if math.isfinite(value) else "-"


def position_json(puzzle: PuzzleLike, layer: str, rank: int, position: Sequence[int]) -> dict[str, Any]:
    """A stored position as `show --json` prints it."""
    cells = puzzle.board.cells
    return {
        "layer": layer,
        "rank": rank,
        "pieces": sum(1 for v in position if v),
        "board": draw(puzzle, position).split("\n"),
        "cells": [[*cells[i], puzzle.piece_types[v - 1]] for i, v in enumerate(position) if v],
    }


def solution_json(puzzle: PuzzleLike, moves: Sequence[Move]) -> list[dict[str, list[int]]]:
    """Moves as [{"from": [row, col], "to": [row, col]}, ...]."""
    cells = puzzle.board.cells
    return [{"from": list(cells[a]), "to": list(cells[b])} for a, b in moves]


# -- replaying solutions ---------------------------------------------------------------------


class IllegalMove(ValueError):
    """A move of a replayed solution is not legal in the position it is played from."""

    def __init__(self, index: int, move: Move, message: str) -> None:
        super().__init__(f"move {index + 1} {move}: {message}")
        self.index = index
        self.move = move


def replay(puzzle: PuzzleLike, position: Sequence[int], moves: Sequence[Move | CellMove],
           ) -> list[tuple[int, ...]]:
    """Play `moves` from `position` under the rules: each as (from_cell, to_cell) cell
    indices, or as ((row, col), (row, col)) cells as `Level.solution` gives them.

    Returns the positions met, starting with `position` itself (so len(moves) + 1 of them).
    Each move is looked up among the legal moves (`Rules.moves_from`); a move that is not
    among them raises `IllegalMove`.
    """
    board = puzzle.board
    rules = puzzle.rules
    tables = rules.tables()
    start = tuple(int(v) for v in position)
    if len(start) != board.size:
        raise ValueError(f"a position has {board.size} cells, got {len(start)}")
    types = len(puzzle.piece_types)
    if any(not 0 <= v <= types for v in start):
        raise ValueError(f"position entries must be between 0 and {types}, got {start}")
    positions = [start]
    current = start
    for index, move in enumerate(moves):
        src, dst = (_cell_index(board, move[0], index, move), _cell_index(board, move[1], index, move))
        if not (0 <= src < board.size and 0 <= dst < board.size):
            raise IllegalMove(index, (src, dst), f"cells are numbered 0..{board.size - 1}")
        results = rules.moves_from(current, tables)
        matches = {child for m, child in results if m == (src, dst)}
        if not matches:
            legal = sorted({m for m, _ in results})
            raise IllegalMove(index, (src, dst), f"not a legal move here (legal: {legal})")
        if len(matches) > 1:
            raise IllegalMove(index, (src, dst), "stands for more than one move here")
        current = matches.pop()
        positions.append(current)
    return positions


def _cell_index(board: Board, cell: Any, index: int, move: Any) -> int:
    """The index of a move's cell given as an index or as (row, col); IllegalMove if it is
    not a cell of the board."""
    if isinstance(cell, tuple | list):
        if len(cell) == 2 and tuple(cell) in board.index:
            return board.index[tuple(cell)]
        raise IllegalMove(index, move, f"{cell!r} is not a cell (row, col) of the board")
    return int(cell)
