"""A slow, plain reference implementation of the puzzle rules and a brute-force solver.

Used by the tests as an oracle against the fast sweep. Everything here is written for
clarity, not speed: positions are frozensets, moves are simulated cell by cell, and the
solver is a memoised depth-first search.

Positions
---------
- Binary puzzles (peg solitaire, Fling!): a frozenset of occupied cells ``(row, col)``.
- Typed puzzles (Solitaire Chess): a frozenset of ``((row, col), letter)`` pairs.

Row 0 is the top row of the board; columns count from the left.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import cache
from itertools import combinations
from pathlib import Path

Cell = tuple[int, int]
ChildrenFn = Callable[[frozenset], Iterable[frozenset]]

# --------------------------------------------------------------------------------------------
# Directions
# --------------------------------------------------------------------------------------------

ORTHOGONAL: list[Cell] = [(-1, 0), (1, 0), (0, -1), (0, 1)]
DIAGONAL: list[Cell] = [(-1, -1), (-1, 1), (1, -1), (1, 1)]
KING_STEPS: list[Cell] = ORTHOGONAL + DIAGONAL
KNIGHT_LEAPS: list[Cell] = [
    (-2, -1), (-2, 1), (-1, -2), (-1, 2), (1, -2), (1, 2), (2, -1), (2, 1),
]
# Triangular grid in axial coordinates: cell (r, c) with 0 <= c <= r for a triangle.
TRIANGULAR: list[Cell] = [(0, 1), (0, -1), (1, 0), (-1, 0), (1, 1), (-1, -1)]


def _add(a: Cell, d: Cell, times: int = 1) -> Cell:
    return (a[0] + times * d[0], a[1] + times * d[1])


# --------------------------------------------------------------------------------------------
# Boards
# --------------------------------------------------------------------------------------------


def rectangle(rows: int, cols: int) -> frozenset[Cell]:
    """All cells of a rows x cols rectangle."""
    return frozenset((r, c) for r in range(rows) for c in range(cols))


def triangle(side: int) -> frozenset[Cell]:
    """A triangular board in axial coordinates: row r has cells (r, 0) ... (r, r)."""
    return frozenset((r, c) for r in range(side) for c in range(r + 1))


# --------------------------------------------------------------------------------------------
# Peg solitaire
# --------------------------------------------------------------------------------------------


def jump_children(
    cells: frozenset[Cell], directions: Iterable[Cell], occupied: frozenset[Cell]
) -> set[frozenset[Cell]]:
    """Distinct positions reachable by one peg-solitaire jump.

    A peg at ``a`` jumps over a peg at ``a + d`` into the empty cell ``a + 2d``; the peg
    jumped over is removed. All three cells must be cells of the board.
    """
    if not occupied <= cells:
        raise ValueError("a peg lies outside the board")
    children: set[frozenset[Cell]] = set()
    for a in occupied:
        for d in directions:
            over = _add(a, d)
            land = _add(a, d, 2)
            if over not in cells or land not in cells:
                continue
            if over in occupied and land not in occupied:
                children.add((occupied - {a, over}) | {land})
    return children


# --------------------------------------------------------------------------------------------
# Fling!
# --------------------------------------------------------------------------------------------


def fling_children(rows: int, cols: int, occupied: frozenset[Cell]) -> set[frozenset[Cell]]:
    """Distinct positions reachable by one Fling! move on a rows x cols rectangle.

    A ball is flung in one of the four orthogonal directions. It needs an empty neighbour in
    that direction and some ball further along the same line. It slides until the cell in
    front of the first ball it meets and stops there; the struck ball carries on in the same
    direction. A struck ball whose next cell is occupied stays put and passes the impulse on
    to that next ball; otherwise it slides until it meets another ball (stopping in front of
    it and passing the impulse on) or leaves the board. Exactly one ball leaves the board.

    A move only ever involves the balls of one row (left/right) or one column (up/down), so
    each line is worked out on its own by ``fling_line`` and the rest of the board is kept.
    """
    if any(not (0 <= r < rows and 0 <= c < cols) for r, c in occupied):
        raise ValueError("a ball lies outside the board")
    in_row: dict[int, list[int]] = {}
    in_col: dict[int, list[int]] = {}
    for r, c in occupied:
        in_row.setdefault(r, []).append(c)
        in_col.setdefault(c, []).append(r)

    children: set[frozenset[Cell]] = set()
    for r, line in in_row.items():
        for after in fling_line(cols, tuple(sorted(line))):
            rest = frozenset(cell for cell in occupied if cell[0] != r)
            children.add(rest | {(r, c) for c in after})
    for c, line in in_col.items():
        for after in fling_line(rows, tuple(sorted(line))):
            rest = frozenset(cell for cell in occupied if cell[1] != c)
            children.add(rest | {(r, c) for r in after})
    return children


@cache
def fling_line(length: int, balls: tuple[int, ...]) -> frozenset[tuple[int, ...]]:
    """Every result of one fling along a single line of ``length`` cells.

    ``balls`` are the occupied cells 0 .. length-1 in increasing order; each result is given
    the same way and has one ball fewer.
    """
    results: set[tuple[int, ...]] = set()
    for start in balls:
        for step in (-1, 1):
            first = start + step
            if not 0 <= first < length or first in balls:
                continue  # needs an empty neighbour in the direction of the fling
            if not any((b - start) * step > 0 for b in balls):
                continue  # nothing to strike: the ball would just fly off the board
            results.add(_simulate_fling_line(length, balls, start, step))
    return frozenset(results)


def _simulate_fling_line(
    length: int, balls: tuple[int, ...], start: int, step: int
) -> tuple[int, ...]:
    """Move balls cell by cell until one leaves the line."""
    remaining = set(balls)
    moving = start
    while True:
        remaining.remove(moving)
        here = moving
        while True:
            ahead = here + step
            if not 0 <= ahead < length:
                # The moving ball leaves the board; the move is over.
                return tuple(sorted(remaining))
            if ahead in remaining:
                # Stop in front of that ball (possibly without having moved at all) and
                # pass the impulse on to it.
                remaining.add(here)
                moving = ahead
                break
            here = ahead


# --------------------------------------------------------------------------------------------
# Solitaire Chess
# --------------------------------------------------------------------------------------------

SLIDES: dict[str, list[Cell]] = {
    "Q": KING_STEPS,
    "R": ORTHOGONAL,
    "B": DIAGONAL,
}
STEPS: dict[str, list[Cell]] = {
    "K": KING_STEPS,
    "N": KNIGHT_LEAPS,
    "P": [(-1, -1), (-1, 1)],  # pawns capture diagonally up the board only
}


def capture_children(
    cells: frozenset[Cell],
    board: frozenset[tuple[Cell, str]],
    king_safe: bool = False,
) -> set[frozenset[tuple[Cell, str]]]:
    """Distinct positions reachable by one capturing move of Solitaire Chess.

    ``board`` is a frozenset of ``((row, col), letter)`` with letters K Q R B N P. A piece
    moves as in chess onto an occupied cell and the piece there is removed. Sliders (Q R B)
    stop at the first piece on each ray. Pawns capture to (row - 1, col +- 1) only. With
    ``king_safe`` a king may never be captured.
    """
    piece_at: dict[Cell, str] = {}
    for cell, letter in board:
        if cell in piece_at:
            raise ValueError(f"two pieces on {cell}")
        piece_at[cell] = letter

    children: set[frozenset[tuple[Cell, str]]] = set()

    def capture(src: Cell, dst: Cell) -> None:
        victim = piece_at[dst]
        if king_safe and victim == "K":
            return
        mover = piece_at[src]
        children.add((board - {(src, mover), (dst, victim)}) | {(dst, mover)})

    for src, letter in piece_at.items():
        if letter in SLIDES:
            for d in SLIDES[letter]:
                target = _add(src, d)
                while target in cells and target not in piece_at:
                    target = _add(target, d)
                if target in cells:
                    capture(src, target)
        elif letter in STEPS:
            for d in STEPS[letter]:
                target = _add(src, d)
                if target in cells and target in piece_at:
                    capture(src, target)
        else:
            raise ValueError(f"unknown piece letter {letter!r}")
    return children


# --------------------------------------------------------------------------------------------
# Solver
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Result:
    solvable: bool
    solutions: int
    all_moves: bool

    @property
    def unique(self) -> bool:
        return self.solutions == 1


def analyze(
    children: ChildrenFn,
    position: frozenset,
    goal_pieces: int,
    is_goal: Callable[[frozenset], bool] | None = None,
    final_step_once: bool = False,
    memo: dict[frozenset, Result] | None = None,
) -> Result:
    """Brute-force solvability, solution count and all-moves property of ``position``.

    - A position with exactly ``goal_pieces`` pieces is solved iff ``is_goal`` says so
      (default: always); it has 1 solution if so, else 0.
    - A position with fewer pieces is never solvable and is not explored.
    - Above the goal, the number of solutions is the sum over the distinct children.
    - With ``final_step_once`` a position one piece above the goal that has a goal child
      counts 1 solution, however many goal children it has.
    - ``all_moves`` means the position has at least one child and every child is solvable.

    ``memo`` may be passed to share results between calls; it must only ever be used with
    the same ``children``, ``goal_pieces``, ``is_goal`` and ``final_step_once``.
    """
    if memo is None:
        memo = {}
    goal_test = is_goal if is_goal is not None else (lambda _p: True)

    def solve(p: frozenset) -> Result:
        if p in memo:
            return memo[p]
        n = len(p)
        if n < goal_pieces:
            result = Result(solvable=False, solutions=0, all_moves=False)
        elif n == goal_pieces:
            # Every child would fall below the goal, so all_moves is always False here.
            ok = bool(goal_test(p))
            result = Result(solvable=ok, solutions=int(ok), all_moves=False)
        else:
            kids = set(children(p))
            for c in kids:
                if len(c) != n - 1:
                    raise AssertionError(f"a move must remove exactly one piece: {p} -> {c}")
            child_results = [solve(c) for c in kids]
            if final_step_once and n == goal_pieces + 1:
                total = int(any(r.solvable for r in child_results))
            else:
                total = sum(r.solutions for r in child_results)
            all_moves = bool(child_results) and all(r.solvable for r in child_results)
            result = Result(solvable=total > 0, solutions=total, all_moves=all_moves)
        memo[p] = result
        return result

    return solve(frozenset(position))


# --------------------------------------------------------------------------------------------
# Enumerating positions
# --------------------------------------------------------------------------------------------


def all_positions(cells: Iterable[Cell], k: int) -> Iterator[frozenset[Cell]]:
    """Every set of ``k`` occupied cells."""
    for chosen in combinations(sorted(cells), k):
        yield frozenset(chosen)


def all_placements(
    cells: Iterable[Cell], counts: dict[str, int]
) -> Iterator[frozenset[tuple[Cell, str]]]:
    """Every placement of ``counts[letter]`` pieces of each letter on distinct cells."""
    letters = sorted(letter for letter, n in counts.items() if n > 0)
    if any(n < 0 for n in counts.values()):
        raise ValueError("piece counts must be non-negative")

    def place(free: frozenset[Cell], i: int) -> Iterator[frozenset[tuple[Cell, str]]]:
        if i == len(letters):
            yield frozenset()
            return
        letter = letters[i]
        for chosen in combinations(sorted(free), counts[letter]):
            rest = free - set(chosen)
            here = frozenset((cell, letter) for cell in chosen)
            for tail in place(rest, i + 1):
                yield here | tail

    yield from place(frozenset(cells), 0)


# --------------------------------------------------------------------------------------------
# Classes of equivalent positions
# --------------------------------------------------------------------------------------------

# How far around the pieces' box the board must look the same for moving every piece by one
# vector to give an equivalent position, per family (None: never). The claims the tests
# check move by move in tests/test_classes.py.
TRANSLATION_MARGIN: dict[str, Callable[[int, int], int | None]] = {
    "fling": lambda pieces, goal: 0,
    "capture": lambda pieces, goal: 0,
    "jump": lambda pieces, goal: pieces - goal,
}


def grid_axes(cell: Cell, grid: str) -> tuple[int, ...]:
    """Coordinates a box is a range of: (row, col); triangular grids add col - row."""
    return cell if grid == "square" else (cell[0], cell[1], cell[1] - cell[0])


def board_alike(cells: frozenset[Cell], grid: str, occupied: Iterable[Cell], vector: Cell,
                margin: int) -> bool:
    """Whether every point of the plane within ``margin`` of the box of ``occupied`` is a
    board cell exactly when the point ``vector`` away from it is one (point by point)."""
    coords = [grid_axes(cell, grid) for cell in occupied]
    lo = [min(axis) - margin for axis in zip(*coords)]
    hi = [max(axis) + margin for axis in zip(*coords)]
    for r in range(lo[0], hi[0] + 1):
        for c in range(lo[1], hi[1] + 1):
            if not all(a <= x <= b for a, x, b in zip(lo, grid_axes((r, c), grid), hi)):
                continue
            if ((r, c) in cells) != (_add((r, c), vector) in cells):
                return False
    return True


class Symmetric:
    """A puzzle as `position_class` reads it, with its symmetries worked out once: the puzzle
    works them out anew on each call, a third of the closure's time."""

    def __init__(self, puzzle) -> None:
        self.puzzle = puzzle
        self.perms = puzzle.symmetries()

    def symmetries(self) -> list[tuple[int, ...]]:
        return self.perms

    def __getattr__(self, name: str):
        return getattr(self.puzzle, name)


def position_class(puzzle, position: tuple[int, ...]) -> set[tuple[int, ...]]:
    """Every position reached from ``position`` (one entry per cell) by chains of the
    puzzle's symmetries and of the translations whose boards are alike, by a plain search."""
    board = puzzle.board
    cells = frozenset(board.cells)
    index = {cell: i for i, cell in enumerate(board.cells)}
    pieces = sum(1 for v in position if v)
    margin = None
    if puzzle.goal.cells is None:
        margin = TRANSLATION_MARGIN[puzzle.rules.family](pieces, puzzle.goal.pieces)
    rows, cols = board.rows, board.cols
    vectors = [(dr, dc) for dr in range(-rows, rows + 1) for dc in range(-cols, cols + 1)
               if (dr, dc) != (0, 0)]
    perms = puzzle.symmetries()
    seen = {tuple(position)}
    todo = [tuple(position)]
    while todo:
        here = todo.pop()
        found = []
        for perm in perms:
            image = [0] * len(here)
            for i, v in enumerate(here):
                image[perm[i]] = v
            found.append(tuple(image))
        if margin is not None:
            occupied = [board.cells[i] for i, v in enumerate(here) if v]
            for vector in vectors:
                if any(_add(cell, vector) not in cells for cell in occupied):
                    continue
                if not board_alike(cells, board.grid, occupied, vector, margin):
                    continue
                moved = [0] * len(here)
                for i, v in enumerate(here):
                    if v:
                        moved[index[_add(board.cells[i], vector)]] = v
                found.append(tuple(moved))
        for other in found:
            if other not in seen:
                seen.add(other)
                todo.append(other)
    return seen


# --------------------------------------------------------------------------------------------
# Fling! level files
# --------------------------------------------------------------------------------------------

FLING_ROWS = 8
FLING_COLS = 7


def fling_hash(balls: Iterable[Cell]) -> int:
    """The level-file hash of a 7 x 8 board: bit row*7 + col per ball."""
    return sum(1 << (r * FLING_COLS + c) for r, c in balls)


def load_fling_levels(directory: str | Path) -> list[tuple[int, frozenset[Cell]]]:
    """Read ``level<N>.txt`` files: a list of (level N, ball cells) in level and file order.

    Raises ValueError when a board is malformed or disagrees with its ``Hash:`` line.
    """
    directory = Path(directory)
    files = []
    for path in directory.iterdir():
        m = re.fullmatch(r"level(\d+)\.txt", path.name)
        if m:
            files.append((int(m.group(1)), path))
    if not files:
        raise ValueError(f"no level files in {directory}")
    files.sort()

    boards: list[tuple[int, frozenset[Cell]]] = []
    for level, path in files:
        for chunk in re.split(r"(?m)^-+\s*$", path.read_text()):
            lines = [line.strip() for line in chunk.splitlines() if line.strip()]
            if not lines:
                continue
            where = path.name
            m = re.fullmatch(r"Hash:\s*(\d+)", lines[0])
            if not m:
                raise ValueError(f"{where}: board without a Hash line: {lines[0]!r}")
            expected = int(m.group(1))
            grid = lines[1:]
            if len(grid) != FLING_ROWS or any(len(row) != FLING_COLS for row in grid):
                raise ValueError(f"{where}: board for hash {expected} is not 7 x 8")
            balls = set()
            for r, row in enumerate(grid):
                for c, ch in enumerate(row):
                    if ch == "o":
                        balls.add((r, c))
                    elif ch != ".":
                        raise ValueError(f"{where}: unexpected character {ch!r}")
            if fling_hash(balls) != expected:
                raise ValueError(
                    f"{where}: board hashes to {fling_hash(balls)}, Hash line says {expected}"
                )
            boards.append((level, frozenset(balls)))
    return boards


def centre_offset(puzzle, position: tuple[int, ...]) -> float:
    """How far the box of the pieces of ``position`` lies from the box of the board: the
    squared distance between the two boxes' centres, along row and column (and col - row on
    triangular grids), by plain arithmetic."""
    def coordinates(cell):
        r, c = cell
        return (r, c) if puzzle.board.grid == "square" else (r, c, c - r)

    pieces = [coordinates(puzzle.board.cells[i]) for i, v in enumerate(position) if v]
    board = [coordinates(cell) for cell in puzzle.board.cells]
    return sum(((min(p) + max(p)) / 2 - (min(b) + max(b)) / 2) ** 2
               for p, b in zip(zip(*pieces), zip(*board)))
