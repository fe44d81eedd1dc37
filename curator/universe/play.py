"""Playing positions of a universe: a drawn position read and checked against the universe, its
legal moves, and the distances to the goal of it and of every position one move away.

The stored tables keep one distance per connected set (its farthest position's), not one per
position. `Positions` explores the one set a position lies in with the compiled search
(`curator.universe.sweep.explore_set`) and keeps the last set it explored, so the moves of a
game played inside that set are answered from memory.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import numpy as np

from curator.common.errors import SelectionError
from curator.universe.puzzle import WALL, Universe
from curator.universe.space import DIGIT_BITS, Space
from curator.universe.sweep import explore_set

Cell = tuple[int, int]
EMPTY = "."
MOST_SOLUTION = 1_000
"""A shortest solution is followed for at most this many moves (a set's farthest position in
the 6 x 6 Rush Hour universe is 51 moves from the goal)."""


@dataclass(frozen=True)
class Placed:
    """One vehicle of a position: its letter and its cells in order along its line."""

    letter: str
    cells: tuple[Cell, ...]

    @property
    def anchor(self) -> Cell:
        """Its first cell (leftmost or topmost), which a move names."""
        return self.cells[0]


@dataclass(frozen=True)
class UniversePosition:
    """A position of a universe: its drawing, vehicles and walls, and its code under the lanes'
    groups (see `curator.universe.space`), which name its connected set with the walls."""

    board: str
    """Rows joined by '/': letters for vehicles, 'x' a wall, '.' empty."""
    vehicles: tuple[Placed, ...]
    """Row by row, then column by column, in order along each line."""
    walls: tuple[Cell, ...]
    lanes: tuple[tuple[int, tuple[int, ...]], ...]
    """Per lane (rows, then columns): its group's index and its vehicles' start cells."""
    code: int
    wall_mask: int
    """The wall cells, bit r * cols + c."""
    counts: dict[str, int]
    """Vehicles of each letter on the board, in the order of the universe's kinds (the goal vehicle
    included), then the walls as 'x'."""

    @property
    def rows(self) -> list[str]:
        return self.board.split("/")

    @property
    def groups(self) -> tuple[int, ...]:
        return tuple(group for group, _ in self.lanes)

    @property
    def pieces(self) -> int:
        return len(self.vehicles)

    def vehicle_at(self, cell: Cell) -> Placed | None:
        return next((v for v in self.vehicles if cell in v.cells), None)


@dataclass(frozen=True)
class UniverseMove:
    """A legal move: a vehicle slides along its line any distance through empty cells."""

    letter: str
    source: Cell
    """The vehicle's first cell before the move."""
    target: Cell
    """Its first cell after the move."""
    position: UniversePosition
    """Where the move leads."""
    distance: int | None
    """Moves from there to the goal; None if it cannot be solved."""
    closer: bool
    """It starts a shortest solution: its distance is one less than the position's."""

    @property
    def text(self) -> str:
        """As solutions write a move: 'h 0,1 -> 0,3' (the letter, its first cell before and after)."""
        (r, c), (r2, c2) = self.source, self.target
        return f"{self.letter} {r},{c} -> {r2},{c2}"

    def to_json(self) -> dict[str, Any]:
        return {"piece": self.letter, "from": list(self.source), "to": list(self.target), "text": self.text,
                "board": self.position.board, "distance": self.distance, "closer": self.closer,
                "solvable": self.distance is not None}


@dataclass(frozen=True)
class UniverseReport:
    """Where a position stands for a player: its distance to the goal, its connected set, one
    shortest solution and every legal move with the distance it leads to."""

    position: UniversePosition
    distance: int | None
    """Moves to the goal; None if its set cannot be solved."""
    cluster: int
    """Positions in its connected set."""
    farthest: int | None
    """The largest distance in its set (the distance the tables store for the set)."""
    moves: tuple[UniverseMove, ...]
    solution: tuple[str, ...]
    """One shortest solution, its moves written as `UniverseMove.text`."""
    goal: bool
    """The goal vehicle covers the goal cells."""

    @property
    def solvable(self) -> bool:
        return self.distance is not None

    def to_json(self) -> dict[str, Any]:
        p = self.position
        return {"board": p.board, "distance": self.distance, "goal": self.goal, "solvable": self.solvable,
                "cluster": self.cluster, "farthest": self.farthest, "pieces": p.pieces,
                "walls": len(p.walls), "counts": p.counts,
                "vehicles": [{"letter": v.letter, "cells": [list(cell) for cell in v.cells]}
                             for v in p.vehicles],
                "solution": list(self.solution), "moves": [move.to_json() for move in self.moves]}


@dataclass(frozen=True)
class ExploredSet:
    """A connected set explored: its wall cells and lanes' groups, which name it, and every
    position's code (sorted) with its distance to the goal (-1: the set cannot be solved)."""

    groups: tuple[int, ...]
    walls: int
    codes: np.ndarray
    distances: np.ndarray

    @property
    def size(self) -> int:
        return len(self.codes)

    @property
    def farthest(self) -> int | None:
        far = int(self.distances.max(initial=-1))
        return None if far < 0 else far

    def holds(self, position: UniversePosition) -> bool:
        """Whether `position` is one of the set's (other sets may have the same groups and walls)."""
        return (position.groups == self.groups and position.wall_mask == self.walls
                and self._at(position.code) is not None)

    def distance(self, code: int) -> int | None:
        """The distance of the position of `code` (one of the set's); None if it cannot be solved."""
        at = self._at(code)
        if at is None:
            raise ValueError(f"position {code:#x} is not in this connected set")
        d = int(self.distances[at])
        return None if d < 0 else d

    def _at(self, code: int) -> int | None:
        at = int(np.searchsorted(self.codes, code))
        return at if at < len(self.codes) and self.codes[at] == code else None


def explore(space: Space, position: UniversePosition) -> ExploredSet:
    """The connected set of `position`, every position measured (see `explore_set`)."""
    groups = np.array(position.groups, np.int64)
    codes, distances = explore_set(space, groups, position.wall_mask, position.code)
    order = np.argsort(codes, kind="stable")
    return ExploredSet(position.groups, position.wall_mask, codes[order], distances[order])


class Positions:
    """The positions of one universe as a player meets them: read from drawings, moved, and
    measured; the connected set last explored is kept, so the moves inside it are answered at once."""

    def __init__(self, universe: Universe, space: Space) -> None:
        self.universe = universe
        self.space = space
        self.group_of = {(g.axis, g.vehicles, g.width): i for i, g in enumerate(space.groups)}
        self._digits: dict[int, dict[tuple[int, ...], int]] = {}
        self.last: ExploredSet | None = None

    # -- reading a drawing ------------------------------------------------------------------------

    def read(self, board: str, what: str = "board") -> UniversePosition:
        """The position a drawing shows (rows joined by '/' or line breaks); SelectionError
        saying what is wrong if it is no position of the universe."""
        u = self.universe
        grid = self._grid(board, what)
        letters = [v.letter for v in u.vehicles]
        for r, row in enumerate(grid):
            for c, ch in enumerate(row):
                if ch != EMPTY and ch != WALL and ch not in letters:
                    raise SelectionError(f"{what}: {ch!r} at {r},{c} is no vehicle of {u.name} (its "
                                         f"vehicles: {' '.join(letters)}; {WALL} a wall, {EMPTY} empty)")
        lines = [(axis, line, *self._line(grid, axis, line, what))
                 for axis, count in ((0, u.rows), (1, u.cols)) for line in range(count)]
        counts = {v.letter: 0 for v in u.vehicles}
        for _, _, kinds, _ in lines:
            for k in kinds:
                counts[u.vehicles[k].letter] += 1
        walls = tuple((r, c) for r, row in enumerate(grid) for c, ch in enumerate(row) if ch == WALL)
        self._check_counts(counts, len(walls), what)
        lanes = tuple((self._group(grid, axis, line, kinds, what), starts)
                      for axis, line, kinds, starts in lines)
        self._check_goal_row(grid, what)
        return self._position(grid, lanes, walls)

    def _grid(self, board: str, what: str) -> list[list[str]]:
        u = self.universe
        rows = [row.strip() for row in re.split(r"[/\n]", board.strip())]
        shape = f"{u.name} is {u.rows} x {u.cols}: draw {u.rows} rows of {u.cols} cells joined by '/'"
        if len(rows) != u.rows:
            raise SelectionError(f"{what}: {shape}, got {len(rows)} row{'' if len(rows) == 1 else 's'}")
        for r, row in enumerate(rows):
            if len(row) != u.cols:
                raise SelectionError(f"{what}: {shape}; row {r} has {len(row)} cells")
        return [list(row) for row in rows]

    def _cells(self, axis: int, line: int) -> list[Cell]:
        u = self.universe
        return [(line, i) for i in range(u.cols)] if axis == 0 else [(i, line) for i in range(u.rows)]

    def _line(self, grid: list[list[str]], axis: int, line: int, what: str
              ) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """The kinds and start cells of one line's vehicles that keep it (runs of a letter of that
        line, cut into vehicles of the letter's length)."""
        u = self.universe
        cells = self._cells(axis, line)
        kinds = {v.letter: i for i, v in enumerate(u.vehicles) if v.axis == axis}
        vehicles: list[int] = []
        starts: list[int] = []
        i = 0
        while i < len(cells):
            letter = grid[cells[i][0]][cells[i][1]]
            if letter not in kinds:
                i += 1
                continue
            end = i
            while end < len(cells) and grid[cells[end][0]][cells[end][1]] == letter:
                end += 1
            length = u.vehicles[kinds[letter]].length
            if (end - i) % length:
                (r, c), (r2, c2) = cells[i], cells[end - 1]
                along = "row" if axis == 0 else "column"
                raise SelectionError(f"{what}: the {letter} cells {r},{c}..{r2},{c2} are not whole {letter} "
                                     f"vehicles ({length} cells along a {along})")
            for start in range(i, end, length):
                vehicles.append(kinds[letter])
                starts.append(start)
            i = end
        return tuple(vehicles), tuple(starts)

    def _group(self, grid: list[list[str]], axis: int, line: int, kinds: tuple[int, ...], what: str) -> int:
        """The group of a line's vehicles; SelectionError if the universe has no such line."""
        u = self.universe
        along = "row" if axis == 0 else "column"
        cells = self._cells(axis, line)
        goal_row = axis == 0 and line == u.goal_row
        if goal_row and kinds != (u.goal_index,):
            found = " ".join(u.vehicles[k].letter for k in kinds) or "nothing"
            raise SelectionError(f"{what}: row {line} holds the goal vehicle {u.goal_letter} alone (and "
                                 f"walls to its left), not {found}")
        if u.goal_index in kinds and not goal_row:
            raise SelectionError(f"{what}: the goal vehicle {u.goal_letter} stands in row {u.goal_row}, not "
                                 f"{along} {line}")
        width = len(cells)
        taken = sum(u.vehicles[k].length for k in kinds)
        if axis == 0:
            taken += sum(1 for r, c in cells if grid[r][c] == WALL)
        if u.open_lines and taken == width:
            raise SelectionError(f"{what}: {along} {line} is full; {u.name} leaves a free cell in every row "
                                 f"and column (open_lines)")
        group = self.group_of.get((axis, kinds, width))
        if group is None:
            text = "".join(grid[r][c] for r, c in cells)
            raise SelectionError(f"{what}: {along} {line} ({text}) holds vehicles that no {along} of "
                                 f"{u.name} holds")
        return group

    def _check_counts(self, counts: dict[str, int], walls: int, what: str) -> None:
        u = self.universe
        for v in u.vehicles:
            n = counts[v.letter]
            if not v.fewest <= n <= v.most:
                raise SelectionError(f"{what}: {n} {v.letter} vehicle{'' if n == 1 else 's'}; {u.name} has "
                                     f"{v.fewest}..{v.most}")
        if not u.walls[0] <= walls <= u.walls[1]:
            raise SelectionError(f"{what}: {walls} wall{'' if walls == 1 else 's'}; {u.name} has "
                                 f"{u.walls[0]}..{u.walls[1]}")

    def _check_goal_row(self, grid: list[list[str]], what: str) -> None:
        u = self.universe
        row = grid[u.goal_row]
        goal = row.index(u.goal_letter)
        for c in range(goal, u.cols):
            if row[c] == WALL:
                raise SelectionError(f"{what}: the wall at {u.goal_row},{c} stands right of the goal vehicle "
                                     f"{u.goal_letter}, where no position of {u.name} has one")

    def _position(self, grid: list[list[str]], lanes: tuple[tuple[int, tuple[int, ...]], ...],
                  walls: tuple[Cell, ...]) -> UniversePosition:
        u = self.universe
        code = 0
        vehicles: list[Placed] = []
        counts = {v.letter: 0 for v in u.vehicles}
        for lane, (g, starts) in enumerate(lanes):
            code |= self._digit(g, starts) << (DIGIT_BITS * lane)
            group = self.space.groups[g]
            for kind, start, length in zip(group.vehicles, starts, group.lengths):
                letter = u.vehicles[kind].letter
                cells = tuple((lane, start + i) if lane < u.rows else (start + i, lane - u.rows)
                              for i in range(length))
                vehicles.append(Placed(letter, cells))
                counts[letter] += 1
        counts = {letter: n for letter, n in counts.items() if n}
        if walls:
            counts[WALL] = len(walls)
        wall_mask = sum(1 << (r * u.cols + c) for r, c in walls)
        board = "/".join("".join(row) for row in grid)
        return UniversePosition(board, tuple(vehicles), walls, lanes, code, wall_mask, counts)

    def _digit(self, group: int, starts: tuple[int, ...]) -> int:
        digits = self._digits.get(group)
        if digits is None:
            digits = {p: d for d, p in enumerate(self.space.groups[group].placements)}
            self._digits[group] = digits
        return digits[starts]

    # -- moves and distances ----------------------------------------------------------------------

    def explored(self, position: UniversePosition) -> ExploredSet:
        """The connected set of `position`, explored now or kept from the last time."""
        if self.last is None or not self.last.holds(position):
            self.last = None  # the old set's memory goes before the new one is explored
            self.last = explore(self.space, position)
        return self.last

    def distance(self, position: UniversePosition) -> int | None:
        """Moves from `position` to the goal; None if its set cannot be solved."""
        return self.explored(position).distance(position.code)

    def is_goal(self, position: UniversePosition) -> bool:
        u = self.universe
        row = position.rows[u.goal_row]
        return row[u.cols - u.goal_length:] == u.goal_letter * u.goal_length

    def moves(self, position: UniversePosition) -> list[UniverseMove]:
        """Every legal move (each vehicle in turn, row vehicles first; nearer slides first), with
        the distance it leads to."""
        found = self.explored(position)
        here = found.distance(position.code)
        grid = [list(row) for row in position.rows]
        out = []
        for lane, (g, starts) in enumerate(position.lanes):
            group = self.space.groups[g]
            for k, (kind, start, length) in enumerate(zip(group.vehicles, starts, group.lengths)):
                for step in (-1, 1):
                    for new in self._slides(grid, lane, start, length, step):
                        after = self._moved(position, grid, lane, k, new)
                        d = found.distance(after.code)
                        out.append(UniverseMove(self.universe.vehicles[kind].letter, self._cell(lane, start),
                                                self._cell(lane, new), after, d,
                                                here is not None and d is not None and d == here - 1))
        return out

    def _cell(self, lane: int, at: int) -> Cell:
        rows = self.universe.rows
        return (lane, at) if lane < rows else (at, lane - rows)

    def _slides(self, grid: list[list[str]], lane: int, start: int, length: int, step: int) -> list[int]:
        """The start cells a vehicle reaches sliding one way, nearest first."""
        width = self.universe.cols if lane < self.universe.rows else self.universe.rows
        out = []
        at = start + step
        while 0 <= at and at + length <= width:
            r, c = self._cell(lane, at if step < 0 else at + length - 1)
            if grid[r][c] != EMPTY:
                break
            out.append(at)
            at += step
        return out

    def _moved(self, position: UniversePosition, grid: list[list[str]], lane: int, k: int, new: int
               ) -> UniversePosition:
        g, starts = position.lanes[lane]
        group = self.space.groups[g]
        letter = self.universe.vehicles[group.vehicles[k]].letter
        after = [row[:] for row in grid]
        for i in range(group.lengths[k]):
            r, c = self._cell(lane, starts[k] + i)
            after[r][c] = EMPTY
        for i in range(group.lengths[k]):
            r, c = self._cell(lane, new + i)
            after[r][c] = letter
        lanes = list(position.lanes)
        lanes[lane] = (g, starts[:k] + (new,) + starts[k + 1:])
        return self._position(after, tuple(lanes), position.walls)

    def move(self, position: UniversePosition, source: Cell, target: Cell) -> UniverseMove:
        """The move of the vehicle whose first cell is `source` to first cell `target`;
        SelectionError if no legal move does that."""
        for move in self.moves(position):
            if move.source == tuple(source) and move.target == tuple(target):
                return move
        (r, c), (r2, c2) = source, target
        vehicle = position.vehicle_at((r, c))
        why = ("no vehicle starts there" if vehicle is None or vehicle.anchor != (r, c)
               else "it is not a legal slide here")
        raise SelectionError(f"move {r},{c} -> {r2},{c2}: {why}")

    def solution(self, position: UniversePosition) -> list[str]:
        """One shortest solution from `position` (the first closer move each time); empty at the
        goal or if it cannot be solved."""
        out: list[str] = []
        here = position
        while len(out) < MOST_SOLUTION and self.distance(here) not in (None, 0):
            step = next(move for move in self.moves(here) if move.closer)
            out.append(step.text)
            here = step.position
        return out

    def report(self, position: UniversePosition) -> UniverseReport:
        """Where `position` stands (see `UniverseReport`)."""
        found = self.explored(position)
        return UniverseReport(position, found.distance(position.code), found.size, found.farthest,
                              tuple(self.moves(position)), tuple(self.solution(position)),
                              self.is_goal(position))
