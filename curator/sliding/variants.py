"""Variants of a sliding-block position: every position one edit away. A piece moves to any
other place where it fits (free pieces anywhere on the board, pieces that keep a line along
it); where the file lets pieces drop out (tilt with exits) a piece may also be removed, or
one that dropped out put back on any free place.
"""

from __future__ import annotations

from collections.abc import Iterator

from curator.common.variants import Edit
from curator.sliding.puzzle import Position, SlidingPuzzle


def edits(puzzle: SlidingPuzzle, position: Position) -> Iterator[tuple[Edit, Position]]:
    """Every edit of `position` that gives a position of the puzzle, and that position: moves
    (group by group, piece by piece, to every anchor in order), then removals, then additions.
    The edits' cells are the pieces' anchors (their first cell in row-major order)."""
    cells = puzzle.board.cells
    anchors_of = [g.anchors if not g.free else tuple(range(puzzle.board.size)) for g in puzzle.groups]

    def with_group(gi: int, anchors: set[int]) -> Position | None:
        child = list(position)
        child[gi] = tuple(sorted(anchors))
        out = tuple(child)
        return out if puzzle.cover(out) is not None else None

    for gi, (g, anchors) in enumerate(zip(puzzle.groups, position)):
        for a in anchors:
            for t in anchors_of[gi]:
                if t in anchors:
                    continue
                child = with_group(gi, set(anchors) - {a} | {t})
                if child is not None:
                    yield Edit("move", g.letter, cells[a], cells[t]), child
    for gi, (g, anchors, least) in enumerate(zip(puzzle.groups, position, puzzle.least)):
        if len(anchors) > least:
            for a in anchors:
                child = with_group(gi, set(anchors) - {a})
                if child is not None:
                    yield Edit("remove", g.letter, cells[a], None), child
    for gi, (g, anchors) in enumerate(zip(puzzle.groups, position)):
        if len(anchors) < g.count:
            for t in anchors_of[gi]:
                child = None if t in anchors else with_group(gi, set(anchors) | {t})
                if child is not None:
                    yield Edit("add", g.letter, None, cells[t]), child
