"""Exports of levels picked from Sokoban tables (`curator.sokoban.results.SokobanLevel`).

The writers are the goal tables' (`curator.export.goals`), with the Sokoban pack's `puzzle`
object and rules:

    EXPORTS.write_json(puzzle, levels, "pack.json")     # format curator-sokoban-pack/1
    EXPORTS.write_csv(puzzle, levels, "levels.csv")
    EXPORTS.write_svg(puzzle, levels, "pictures/")      # level-0001.svg, ...
    EXPORTS.write_png(puzzle, levels, "pictures/")
    EXPORTS.write_html(puzzle, levels, "gallery.html")
"""

from __future__ import annotations

import html
from typing import Any

from curator.export.goals import COLUMNS, GoalExports
from curator.sokoban.puzzle import FAMILY, SokobanPuzzle

PACK_FORMAT = "curator-sokoban-pack/1"
"""The `format` value of level packs of Sokoban rooms (docs/level-pack.md)."""

__all__ = ["COLUMNS", "EXPORTS", "FORMATS", "PACK_FORMAT", "WRITERS", "pack_dict", "write"]


def puzzle_dict(puzzle: SokobanPuzzle) -> dict[str, Any]:
    """The pack's `puzzle` object: name, metric, the room (an XSB drawing without boxes and
    player), its floor cells and goals, and the number of boxes."""
    cells = puzzle.board.cells
    return {
        "name": puzzle.name,
        "title": puzzle.title,
        "family": FAMILY,
        "metric": puzzle.metric,
        "sha256": puzzle.sha256,
        "room": puzzle.draw().split("\n"),
        "floor": [list(c) for c in cells],
        "goals": [list(cells[g]) for g in puzzle.goals],
        "boxes": puzzle.boxes,
    }


def rules_line(puzzle: SokobanPuzzle) -> str:
    """The gallery's line of rules: the metric, boxes, goals and floor."""
    return (f"rules: {FAMILY} ({html.escape(puzzle.metric)} metric) · {puzzle.boxes} boxes · "
            f"{len(puzzle.goals)} goals · {puzzle.board.size} floor cells")


EXPORTS = GoalExports(PACK_FORMAT, puzzle_dict, rules_line)
pack_dict = EXPORTS.pack_dict
WRITERS = EXPORTS.writers
"""Export formats of Sokoban levels by name; the same names as `curator.export.WRITERS`."""
FORMATS = tuple(WRITERS)
write = EXPORTS.write
