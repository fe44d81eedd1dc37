"""Picking positions from stored Sokoban tables: the filters, walks and rechecks of
`curator.common.goal_sweep` over the room's pushes (or steps), and how a solution is written.

A solution walks from a position to a child whose distance is one less, taking the first such
move in the puzzle's move order, and is written in LURD notation: `u`, `r`, `d`, `l` for a
step, upper case for a step that pushes a box. Under the moves metric each move is one
letter; under the pushes metric each move is the walk to the box (a shortest one) and the
push, such as `llU`. Joined, the moves are the whole solution from the player's cell.
"""

from __future__ import annotations

from curator.sokoban.puzzle import LETTERS, Position, SokobanPuzzle


def solution_text(puzzle: SokobanPuzzle, position: Position, path: list[Position]) -> list[str]:
    """The moves from `position` through the positions of `path` (each one move of the metric
    after the one before, with the player where the tables put it), in LURD letters."""
    boxes, player = position
    out = []
    for after_boxes, after_player in path:
        if puzzle.metric == "moves":
            (d,) = [d for d in range(4) if puzzle.neighbour(player, d) == after_player]
            out.append(LETTERS[d].upper() if after_boxes != boxes else LETTERS[d])
            boxes, player = after_boxes, after_player
            continue
        (source,) = set(boxes) - set(after_boxes)
        (target,) = set(after_boxes) - set(boxes)
        (d,) = [d for d in range(4) if puzzle.neighbour(source, d) == target]
        behind = puzzle.neighbour(source, (d + 2) % 4)
        if behind is None:
            raise ValueError("a push from against a wall")
        out.append(puzzle.walk(boxes, player, behind) + LETTERS[d].upper())
        boxes, player = after_boxes, source
    return out
