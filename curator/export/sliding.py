"""Exports of levels picked from sliding-block tables (`curator.sliding.results.SlidingLevel`).

The writers are the goal tables' (`curator.export.goals`), with the sliding-block pack's
`puzzle` object and rules:

    EXPORTS.write_json(puzzle, levels, "pack.json")     # format curator-sliding-pack/1
    EXPORTS.write_csv(puzzle, levels, "levels.csv")
    EXPORTS.write_svg(puzzle, levels, "pictures/")      # level-0001.svg, ...
    EXPORTS.write_png(puzzle, levels, "pictures/")
    EXPORTS.write_html(puzzle, levels, "gallery.html")
"""

from __future__ import annotations

import html
from typing import Any

from curator.export.goals import COLUMNS, GoalExports
from curator.sliding.puzzle import FAMILY, SlidingPuzzle

PACK_FORMAT = "curator-sliding-pack/1"
"""The `format` value of level packs of sliding-block puzzles (docs/level-pack.md)."""

__all__ = ["COLUMNS", "EXPORTS", "FORMATS", "PACK_FORMAT", "WRITERS", "pack_dict", "write"]


def puzzle_dict(puzzle: SlidingPuzzle) -> dict[str, Any]:
    """The pack's `puzzle` object: name, rules, pieces and goal."""
    board = puzzle.board
    return {
        "name": puzzle.name,
        "title": puzzle.title,
        "family": FAMILY,
        "move": puzzle.move,
        "metric": puzzle.metric,
        "sha256": puzzle.sha256,
        "pieces": {s.letter: {"cells": [list(c) for c in s.cells], "count": s.count, "along": s.along}
                   for s in puzzle.shapes},
        "goal": {"piece": puzzle.goal_letter, "cells": [list(board.cells[c]) for c in puzzle.goal_cells]},
    }


def rules_line(puzzle: SlidingPuzzle) -> str:
    """The gallery's line of rules: move rule, metric and pieces."""
    esc = html.escape
    pieces = " · ".join(f"{s.letter}: {s.count} of {len(s.cells)} cells"
                        + ("" if s.along == "any" else f", keeps its {s.along}") for s in puzzle.shapes)
    return f"rules: {FAMILY} ({esc(puzzle.move)} moves, {esc(puzzle.metric)} metric) · {esc(pieces)}"


EXPORTS = GoalExports(PACK_FORMAT, puzzle_dict, rules_line)
pack_dict = EXPORTS.pack_dict
WRITERS = EXPORTS.writers
"""Export formats of sliding-block levels by name; the same names as `curator.export.WRITERS`."""
FORMATS = tuple(WRITERS)
write = EXPORTS.write
