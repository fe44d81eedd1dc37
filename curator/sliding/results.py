"""`SlidingResults`: the stored tables of a sliding-block puzzle, as the Python API shows them.

The same shape as `LayeredResults` and `DistanceResults`: `puzzle`, `layers` (one entry per
distance), `count`, `select`, `solve`, `show`, `verify` and `export`; positions come back as
`SlidingLevel`s, each with its distance, flags, connected set and one shortest solution. All
but positions, moves and pictures is the goal tables' (`curator.goals.GoalResults`).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from curator.common.errors import SelectionError
from curator.common.goal_sweep import Graph
from curator.common.variants import Edit
from curator.goals import KEYWORDS, GoalLevel, GoalMove, GoalResults, GoalSelection
from curator.sliding.puzzle import DIRECTION_NAMES, Position, SlidingPuzzle
from curator.sliding.select import move_text
from curator.sliding.store import SlidingStore
from curator.sliding.sweep import graph
from curator.sliding.tables import build_kernel
from curator.sliding.variants import edits

if TYPE_CHECKING:
    from curator.picture import Picture

__all__ = ["KEYWORDS", "SlidingLevel", "SlidingMove", "SlidingResults", "SlidingSelection"]

SlidingSelection = GoalSelection
"""The levels `select` returns, and how many positions passed the filters."""
SlidingMove = GoalMove
"""One legal move: the piece's letter, its anchor cell before and after, and where it leads;
written as solutions write it, 'V 2,0 -> 3,0'; or a tilt, with the way the board tilts
(`direction`), no piece and no cells, written 'tilt up'."""


@dataclass(frozen=True)
class SlidingLevel(GoalLevel):
    """One position of a sliding-block puzzle (the groups' anchors), what the tables say of it,
    and a shortest solution, its moves written 'V 2,0 -> 3,0' (the piece's letter, its anchor
    cell before and after)."""

    def picture(self, title: str = "") -> Picture:
        from curator.picture import block_picture

        return block_picture(self.puzzle, self.position, title)


class SlidingResults(GoalResults):
    """The stored tables of one sliding-block puzzle, opened with `curator.open`.

    >>> import curator
    >>> results = curator.analyze("puzzles/klotski.toml", output="output/klotski")
    >>> results.solve(results.puzzle.draw(results.puzzle.start)).distance
    81
    """

    kind = "sliding"
    store_class = SlidingStore
    build_kernel = staticmethod(build_kernel)
    level_class = SlidingLevel
    NOT_A_POSITION = "its pieces overlap or leave the board"
    puzzle: SlidingPuzzle

    @property
    def graph(self) -> Graph:
        return graph(self.kernel)

    def position(self, board: str | Position) -> Position:
        """The position `board` names: a drawing (as `solve` takes it) or the groups' anchor
        cells (as `SlidingLevel.position` holds them); SelectionError if it is not one of
        this puzzle's positions."""
        if isinstance(board, str):
            return self.puzzle.parse(board, self._name("board"))
        try:
            position = tuple(tuple(int(a) for a in anchors) for anchors in board)
        except (TypeError, ValueError):
            position = None
        if position is None or self.puzzle.cover(position) is None:
            raise SelectionError(f"{self._name('board')}: not a position of {self.puzzle.name} "
                                 "(pieces overlap, leave the board or are missing)")
        return position

    def rank_of(self, position: Position) -> int:
        return self.puzzle.rank(position)

    def solution_text(self, position: Position, path: list[Position]) -> list[str]:
        steps = [position, *path]
        return [move_text(self.puzzle, a, b) for a, b in zip(steps, steps[1:])]

    def moves(self, board: str | Position) -> list[GoalMove]:
        """Every legal move of a position (in the puzzle's move order) with the stored distance
        of the position it leads to; a tilt names no piece and no cells, but its direction."""
        position = self.position(board)
        before = self.distance(position)
        cells = self.puzzle.board.cells
        out = []
        for move in self.puzzle.moves(position):
            after = self.distance(move.child)
            closer = before is not None and after is not None and after + move.cost == before
            text = move_text(self.puzzle, position, move.child)
            if move.direction >= 0:
                out.append(SlidingMove("", None, None, move.cost, move.child, after, closer, text,
                                       DIRECTION_NAMES[move.direction]))
                continue
            letter = self.puzzle.groups[move.group].letter
            out.append(SlidingMove(letter, cells[move.source], cells[move.target], move.cost, move.child,
                                   after, closer, text))
        return out

    def tilt(self, board: str | Position, direction: str) -> SlidingMove:
        """The tilt of the board `direction` (one of DIRECTION_NAMES) from a position of a tilt
        puzzle; SelectionError if it is no move there (nothing moves, or a kept piece would
        drop out) or the puzzle does not tilt."""
        if self.puzzle.move != "tilt":
            raise SelectionError(f"{self._name('tilt')}: {self.puzzle.name} moves one piece at a time, "
                                 "it does not tilt")
        if direction not in DIRECTION_NAMES:
            known = ", ".join(DIRECTION_NAMES)
            raise SelectionError(f"{self._name('tilt')}: {direction!r} is not one of {known}")
        position = self.position(board)
        child = self.puzzle.tilt(position, DIRECTION_NAMES.index(direction))
        if child is None:
            raise SelectionError(f"tilt {direction}: not a move here (nothing moves, or a piece that must "
                                 "stay would drop out)")
        before, after = self.distance(position), self.distance(child)
        closer = before is not None and after is not None and after + 1 == before
        return SlidingMove("", None, None, 1, child, after, closer, f"tilt {direction}", direction)

    def edits(self, position: Position) -> Iterator[tuple[Edit, Position]]:
        """A piece moved to any other place it fits; under tilt with exits also a piece
        removed or put back."""
        return edits(self.puzzle, position)
