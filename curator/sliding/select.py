"""Picking positions from stored sliding-block tables: the filters, walks and rechecks of
`curator.common.goal_sweep` over the puzzle's slides, and how a move is written.

A solution walks from a position to a child whose distance plus the move's cost is the
position's distance, taking the first such move in the puzzle's move order. A move is written
as the piece's letter and its anchor cell before and after, or as the way a tilt puzzle's
board tilts.
"""

from __future__ import annotations

from curator.sliding.puzzle import DIRECTION_NAMES, Position, SlidingPuzzle


def move_text(puzzle: SlidingPuzzle, before: Position, after: Position) -> str:
    """The move between two positions one move apart, as 'V 2,0 -> 3,0' (the piece's letter,
    its anchor cell before and after), or for tilt moves 'tilt up' (the first direction, in
    the order of DIRECTIONS, that leads there)."""
    if puzzle.move == "tilt":
        for d, name in enumerate(DIRECTION_NAMES):
            if puzzle.tilt(before, d) == after:
                return f"tilt {name}"
        raise ValueError("no tilt leads from one position to the other")
    for group, old, new in zip(puzzle.groups, before, after):
        if old != new:
            (source,) = set(old) - set(new)
            (target,) = set(new) - set(old)
            (r0, c0), (r1, c1) = puzzle.board.cells[source], puzzle.board.cells[target]
            return f"{group.letter} {r0},{c0} -> {r1},{c1}"
    raise ValueError("the positions are the same")
