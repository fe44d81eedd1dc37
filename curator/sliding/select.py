"""Picking positions from stored sliding-block tables: the filters, walks and rechecks of
`curator.common.goal_sweep` over the puzzle's slides, and how a move is written.

A solution walks from a position to a child whose distance plus the move's cost is the
position's distance, taking the first such move in the puzzle's move order.
"""

from __future__ import annotations

from curator.sliding.puzzle import Position, SlidingPuzzle


def move_text(puzzle: SlidingPuzzle, before: Position, after: Position) -> str:
    """The move between two positions one move apart, as 'V 2,0 -> 3,0' (the piece's letter,
    its anchor cell before and after)."""
    for group, old, new in zip(puzzle.groups, before, after):
        if old != new:
            (source,) = set(old) - set(new)
            (target,) = set(new) - set(old)
            (r0, c0), (r1, c1) = puzzle.board.cells[source], puzzle.board.cells[target]
            return f"{group.letter} {r0},{c0} -> {r1},{c1}"
    raise ValueError("the positions are the same")
