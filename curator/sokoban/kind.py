"""Sokoban rooms in the catalogue: distances to the goal, unique shortest solutions and
connected sets of every placement of the boxes with the player.

Everything the command line and the workspace need of Sokoban tables goes through `KIND`;
what all goal tables answer alike is `curator.goals.GoalKind`'s.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from curator.common.reading import PuzzleFile
from curator.common.variants import WANTS, Variants
from curator.goals import GoalKind
from curator.kind import Search
from curator.sokoban.analysis import analyze_sokoban
from curator.sokoban.puzzle import BOX, FAMILY, PLAYER, SokobanPuzzle, sokoban_puzzle_from
from curator.sokoban.results import SokobanResults


class SokobanKind(GoalKind):
    """Distance, flag and connected-set tables over every placement of the boxes and the player."""

    name = "sokoban"
    puzzle_noun = "a Sokoban puzzle"
    held = "Sokoban tables"
    families = frozenset({FAMILY})
    exporter = "curator.export.sokoban"
    results_class = SokobanResults
    analysis = analyze_sokoban
    variant_wants = WANTS

    def parse(self, file: PuzzleFile) -> SokobanPuzzle:
        return sokoban_puzzle_from(file)

    def variants(self, results: SokobanResults, position: Any, want: str, limit: int,
                 search: Search | None = None, progress: Callable[[int, int], None] | None = None,
                 ) -> Variants:
        return results.variation(position, want, limit)

    def blocks(self, puzzle: SokobanPuzzle) -> dict[str, Any]:
        frame = set(puzzle.board.cells) | puzzle.walls
        one = [[0, 0]]
        return {"rows": max(r for r, _ in frame) + 1, "cols": max(c for _, c in frame) + 1,
                "cells": list(puzzle.board.cells),
                "pieces": [{"letter": BOX, "cells": one, "count": puzzle.boxes, "along": "any"},
                           {"letter": PLAYER, "cells": one, "count": 1, "along": "any"}],
                "goal_piece": BOX, "goal_cells": [puzzle.board.cells[g] for g in puzzle.goals],
                "move": puzzle.move, "metric": puzzle.metric, "edge": "stops", "rules": puzzle.rules_text,
                "start": puzzle.draw(puzzle.start).replace("\n", "/")}


KIND = SokobanKind()
