"""Variants of a layered position: every position one edit away (a piece of any type added
on an empty cell, a piece removed, a piece moved to an empty cell), kept if it is what the
designer wants, one per class of equivalent positions, rated and listed hardest first.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING

from curator.common.variants import Edit, Variant, Variants
from curator.layered.classes import members
from curator.layered.level import Level
from curator.layered.metrics import solve_position
from curator.layered.puzzle import Puzzle
from curator.layered.search import Bound

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


def find_variants(results: LayeredResults, position: Position, want: str, limit: int, bound: Bound,
                  progress: Callable[[int, int], None] | None = None) -> Variants:
    """The variants of `position` that are `want` (see `curator.common.variants.WANTS`), the
    first `limit` of them by difficulty, hardest first (then in edit order).

    The stored bits (or a search within `bound` above the stored layers) sort out which are
    solvable or unique; of those one position per class is kept (none of the position's own
    class), and rated in full (`results.solve`). `progress(done, total)` follows the rating.
    """
    puzzle = results.puzzle
    base = solve_position(puzzle, position, explorer=results.explorer, bound=bound)
    own = _class_key(puzzle, position)
    considered = 0
    seen: set[Position] = set()
    keys = {own}
    chosen: list[tuple[Edit, Position]] = []
    for edit, child in edits(puzzle, position):
        considered += 1
        if child in seen:
            continue
        seen.add(child)
        if sum(1 for v in child if v) <= puzzle.goal.pieces:
            continue  # at the goal, or below it: no level
        status = results.status(child, bound)
        if not status.solvable or (want == "unique" and not status.unique):
            continue
        key = _class_key(puzzle, child)
        if key in keys:
            continue
        keys.add(key)
        chosen.append((edit, child))
    rated: list[Variant] = []
    for done, (edit, child) in enumerate(chosen):
        if progress is not None:
            progress(done, len(chosen))
        level = solve_position(puzzle, child, explorer=results.explorer, bound=bound)
        if want == "harder" and not level.difficulty > base.difficulty:
            continue
        rated.append(Variant(edit, level))
    order = sorted(range(len(rated)), key=lambda i: (-_rating(rated[i].item), i))
    return Variants(base, want, considered, len(rated), [rated[i] for i in order[:limit]])


def _rating(level: Level) -> float:
    """How a variant ranks: its difficulty; one too large to rate comes last."""
    return level.difficulty if math.isfinite(level.difficulty) else -math.inf


def _class_key(puzzle: Puzzle, position: Sequence[int]) -> Position:
    """One member that stands for the class of `position` (the same for every member)."""
    return min(members(puzzle, position))
