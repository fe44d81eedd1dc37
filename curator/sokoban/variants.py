"""Variants of a Sokoban position: every position one edit away. A box moves to any other free
floor cell (not a wall, another box or the player's cell), or the player moves to any other
free floor cell. Under the pushes metric a position holds the player's whole region, so a
player move counts only when it lands in another region, once per region (on its smallest
cell).
"""

from __future__ import annotations

from collections.abc import Iterator

from curator.common.variants import Edit
from curator.sokoban.puzzle import BOX, PLAYER, Position, SokobanPuzzle


def edits(puzzle: SokobanPuzzle, position: Position) -> Iterator[tuple[Edit, Position]]:
    """Every edit of `position` and the position it gives: box moves (box by box, to every
    free cell in order), then player moves. Each position comes once; none is `position`."""
    cells = puzzle.board.cells
    boxes, player = position
    taken = set(boxes) | {player}
    free = [t for t in range(puzzle.board.size) if t not in taken]
    for b in boxes:
        for t in free:
            child = (tuple(sorted(set(boxes) - {b} | {t})), player)
            yield Edit("move", BOX, cells[b], cells[t]), child
    if puzzle.metric == "pushes":
        seen = puzzle.region(boxes, player)
        for t in free:
            if t not in seen:
                seen |= puzzle.region(boxes, t)
                yield Edit("move", PLAYER, cells[player], cells[t]), (boxes, t)
    else:
        for t in free:
            yield Edit("move", PLAYER, cells[player], cells[t]), (boxes, t)
