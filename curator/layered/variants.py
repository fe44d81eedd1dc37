"""Variants of a layered position: every position one edit away (a piece of any type added
on an empty cell, a piece removed, a piece moved to an empty cell), kept if it is what the
designer wants, one per class of equivalent positions, rated and listed hardest first.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING

from curator.common.bounds import Search
from curator.common.variants import Edit, Variant, Variants
from curator.layered.level import Level
from curator.layered.metrics import solve_position
from curator.layered.puzzle import Puzzle

if TYPE_CHECKING:
    from curator.layered.results import LayeredResults

Position = tuple[int, ...]


def edits(puzzle: Puzzle, position: Sequence[int]) -> Iterator[tuple[Edit, Position]]:
    """Every edit of `position` and the position it gives, in this order: additions (cell by
    cell, type by type, within the puzzle's piece limits), removals (down to the goal's piece
    count), moves (piece by piece, to every empty cell)."""
    cells = puzzle.board.cells
    letters = puzzle.piece_types
    here = tuple(int(v) for v in position)
    counts = [sum(1 for v in here if v == t) for t in range(1, len(letters) + 1)]
    occupied = [i for i, v in enumerate(here) if v]
    empty = [i for i, v in enumerate(here) if not v]

    def changed(*pairs: tuple[int, int]) -> Position:
        out = list(here)
        for cell, value in pairs:
            out[cell] = value
        return tuple(out)

    for i in empty:
        for t, letter in enumerate(letters, start=1):
            if counts[t - 1] < puzzle.piece_limits[t - 1]:
                yield Edit("add", letter, None, cells[i]), changed((i, t))
    if len(occupied) > puzzle.goal.pieces:
        for i in occupied:
            yield Edit("remove", letters[here[i] - 1], cells[i], None), changed((i, 0))
    for i in occupied:
        for j in empty:
            yield Edit("move", letters[here[i] - 1], cells[i], cells[j]), changed((i, 0), (j, here[i]))


def find_variants(results: LayeredResults, position: Position, want: str, limit: int, search: Search,
                  progress: Callable[[int, int], None] | None = None) -> Variants:
    """The variants of `position` that are `want` (see `curator.common.variants.WANTS`), the
    first `limit` of them by difficulty, hardest first (then in edit order).

    The stored bits (or a search within `search`'s bound above the stored layers) sort out which are
    solvable or unique; those are rated in full (as `results.solve` rates them) and one
    position per class is kept, the first in edit order (none of the position's own class).
    `progress(done, total)` follows the rating.
    """
    puzzle = results.puzzle
    base = solve_position(puzzle, position, explorer=results.explorer, search=search, player=results.player)
    considered = 0
    seen: set[Position] = set()
    wanted: list[tuple[Edit, Position]] = []
    for edit, child in edits(puzzle, position):
        considered += 1
        if child in seen:
            continue
        seen.add(child)
        if sum(1 for v in child if v) <= puzzle.goal.pieces:
            continue  # at the goal, or below it: no level
        status = results.status(child, search)
        if status.solvable and (want != "unique" or status.unique):
            wanted.append((edit, child))
    classes = _Classes(puzzle, base)
    rated: list[Variant] = []
    for done, (edit, child) in enumerate(wanted):
        if progress is not None:
            progress(done, len(wanted))
        level = solve_position(puzzle, child, explorer=results.explorer, search=search,
                               player=results.player)
        if want == "harder" and not level.difficulty > base.difficulty:
            continue
        if classes.new(level):
            rated.append(Variant(edit, level))
    order = sorted(range(len(rated)), key=lambda i: (-_rating(rated[i].item), i))
    return Variants(base, want, considered, len(rated), [rated[i] for i in order[:limit]])


class _Classes:
    """The classes of equivalent positions met so far, starting with the base level's. Levels
    of one class have the same figures, so two levels are only compared (`same_class`) when
    their figures agree."""

    def __init__(self, puzzle: Puzzle, base: Level) -> None:
        self.puzzle = puzzle
        self.kept: dict[tuple, list[Level]] = {_figures(base): [base]}

    def new(self, level: Level) -> bool:
        """Whether `level` is of a class not met yet (then it is met from now on)."""
        alike = self.kept.setdefault(_figures(level), [])
        if any(same_class(self.puzzle, other.position, level.position) for other in alike):
            return False
        alike.append(level)
        return True


def same_class(puzzle: Puzzle, a: Sequence[int], b: Sequence[int]) -> bool:
    """Whether `b` is in the class of `a` (`curator.layered.classes.members`): the image under
    one of the puzzle's symmetries of `a` moved by a vector where the board looks alike. For
    each symmetry the vector is the one taking the first piece of `a` onto the first piece
    of the preimage of `b` (moving every cell by one vector keeps their order)."""
    board = puzzle.board
    cells = [c for c, v in enumerate(a) if v]
    if len(cells) != sum(1 for v in b if v):
        return False
    margin = puzzle.translation_margin(len(cells))
    for perm in puzzle.symmetries():
        before = [b[perm[c]] for c in range(len(b))]
        if all(x == y for x, y in zip(before, a)):
            return True
        if margin is None or not cells:
            continue
        first = min(cells, key=lambda c: board.cells[c])
        other = min((c for c, v in enumerate(before) if v), key=lambda c: board.cells[c])
        (r0, c0), (r1, c1) = board.cells[first], board.cells[other]
        vector = (r1 - r0, c1 - c0)
        moved = [board.moved(c, vector) for c in cells]
        if all(m is not None and before[m] == a[c] for m, c in zip(moved, cells)) \
                and board.alike(cells, vector, margin):
            return True
    return False


def _figures(level: Level) -> tuple:
    """What every position of a class shares: pieces per type, solution count, first moves
    and class size (not the difficulty: a backtracking player's search follows the moves'
    order, which symmetries change)."""
    counts = tuple(sorted(v for v in level.position if v))
    return (counts, level.solutions, level.legal_moves, level.safe_moves, level.class_size)


def _rating(level: Level) -> float:
    """How a variant ranks: its difficulty; one too large to rate comes last."""
    return level.difficulty if math.isfinite(level.difficulty) else -math.inf
