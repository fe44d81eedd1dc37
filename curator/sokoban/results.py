"""`SokobanResults`: the stored tables of a Sokoban room, as the Python API shows them.

The same shape as `SlidingResults`: `puzzle`, `layers` (one entry per distance), `count`,
`select`, `solve`, `show`, `verify`, `export`, `pack` and `variants`; positions come back as
`SokobanLevel`s, each with its distance, flags, connected set and one shortest solution in
LURD notation. All but positions, moves and pictures is the goal tables'
(`curator.goals.GoalResults`).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from curator.common.errors import SelectionError
from curator.common.goal_sweep import Graph
from curator.common.variants import Edit
from curator.goals import GoalLevel, GoalMove, GoalResults
from curator.sokoban.puzzle import PLAYER, Position, SokobanPuzzle
from curator.sokoban.select import solution_text
from curator.sokoban.store import SokobanStore
from curator.sokoban.sweep import graph
from curator.sokoban.tables import build_kernel
from curator.sokoban.variants import edits

if TYPE_CHECKING:
    from curator.picture import Picture

@dataclass(frozen=True)
class SokobanLevel(GoalLevel):
    """One position of a Sokoban room ((box cells), player cell), what the tables say of it,
    and a shortest solution, one LURD string per move of the metric (see
    `curator.sokoban.select`). Levels the tables list put the player, under the pushes metric,
    on the smallest cell of its region; a solved drawing keeps the player where it was drawn."""

    def picture(self, title: str = "") -> Picture:
        from curator.picture import sokoban_picture

        return sokoban_picture(self.puzzle, self.position, title)


class SokobanResults(GoalResults):
    """The stored tables of one Sokoban room, opened with `curator.open`.

    >>> import curator
    >>> results = curator.analyze("puzzles/sokoban.toml", output="output/sokoban")
    >>> start = results.solve(results.puzzle.draw(results.puzzle.start))
    >>> start.distance == len(start.solution)
    True
    """

    kind = "sokoban"
    store_class = SokobanStore
    build_kernel = staticmethod(build_kernel)
    level_class = SokobanLevel
    NOT_A_POSITION = "under the pushes metric the player stands on the smallest cell it can walk to"

    puzzle: SokobanPuzzle

    @property
    def graph(self) -> Graph:
        return graph(self.kernel)

    def position(self, board: str | Position) -> Position:
        """The position `board` names: an XSB drawing (rows separated by line breaks, '/' or
        '|') or ((box cells), player cell) as `SokobanLevel.position` holds it; SelectionError
        if it is not one of this room's positions."""
        if isinstance(board, str):
            return self.puzzle.parse(board, self._name("board"))
        try:
            boxes, player = board
            position = (tuple(int(b) for b in boxes), int(player))
        except (TypeError, ValueError):
            position = None
        if position is None or not self.puzzle.valid(position):
            raise SelectionError(f"{self._name('board')}: not a position of {self.puzzle.name} "
                                 f"({self.puzzle.boxes} boxes and the player on distinct floor cells)")
        return position

    def rank_of(self, position: Position) -> int:
        return self.puzzle.rank(position)

    def solution_text(self, position: Position, path: list[Position]) -> list[str]:
        return solution_text(self.puzzle, position, path)

    def moves(self, board: str | Position) -> list[GoalMove]:
        """Every step of the player (up, right, down, left; the arrow keys of the workspace)
        with the stored distance of the position it leads to. A step costs 1 under the moves
        metric; under the pushes metric a push costs 1 and a walk nothing (it never brings
        the level closer)."""
        position = self.position(board)
        before = self.distance(position)
        cells = self.puzzle.board.cells
        out = []
        for step in self.puzzle.steps(position):
            after = self.distance(step.child)
            cost = 1 if step.push or self.puzzle.metric == "moves" else 0
            closer = cost > 0 and before is not None and after is not None and after + cost == before
            out.append(GoalMove(PLAYER, cells[step.source], cells[step.target], cost, step.child, after,
                                closer, step.letter))
        return out

    def edits(self, position: Position) -> Iterator[tuple[Edit, Position]]:
        """A box moved to another free floor cell, or the keeper moved to another free floor
        cell (under the pushes metric, into another region)."""
        return edits(self.puzzle, position)
