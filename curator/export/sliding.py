"""Exports of levels picked from sliding-block tables (`curator.sliding.results.SlidingLevel`).

The writers are the goal tables' (`curator.export.goals`), with the sliding-block pack's
`puzzle` object and rules, its levels laid out as blocks on the board's box for the level
editors, and played in the page by clicking a block, then where it goes:

    EXPORTS.write_json(puzzle, levels, "pack.json")     # format curator-sliding-pack/1
    EXPORTS.write_csv(puzzle, levels, "levels.csv")
    EXPORTS.write_svg(puzzle, levels, "pictures/")      # level-0001.svg, ...
    EXPORTS.write_png(puzzle, levels, "pictures/")
    EXPORTS.write_html(puzzle, levels, "gallery.html")
    EXPORTS.write_ldtk(puzzle, levels, "levels.ldtk")   # an LDtk project: one level per level
    EXPORTS.write_tiled(puzzle, levels, "maps/")        # Tiled maps: level-0001.tmj, ... and tiles.png
    EXPORTS.write_play(puzzle, levels, "play.html")     # a page that plays them
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import Any

from curator.arrange import PackCurve
from curator.export import play
from curator.export.engines import BLOCK, Figure, Piece, Stage, box_cells
from curator.export.goals import COLUMNS, GoalExports, Level, engine_figures, level_title, play_figures
from curator.picture import BLOCK_GAP, UNIT, block_colour, block_picture
from curator.sliding.puzzle import FAMILY, SlidingPuzzle

PACK_FORMAT = "curator-sliding-pack/1"
"""The `format` value of level packs of sliding-block puzzles (docs/level-pack.md)."""

__all__ = ["COLUMNS", "EXPORTS", "FORMATS", "PACK_FORMAT", "WRITERS", "pack_dict", "write"]


def puzzle_dict(puzzle: SlidingPuzzle) -> dict[str, Any]:
    """The pack's `puzzle` object: name, rules, pieces, goal and exits."""
    board = puzzle.board
    return {
        "name": puzzle.name,
        "title": puzzle.title,
        "family": FAMILY,
        "move": puzzle.move,
        "metric": puzzle.metric,
        "edge": puzzle.edge,
        "sha256": puzzle.sha256,
        "pieces": {s.letter: {"cells": [list(c) for c in s.cells], "count": s.count, "along": s.along}
                   for s in puzzle.shapes},
        "goal": {"piece": puzzle.goal_letter or None,
                 "cells": [list(board.cells[c]) for c in puzzle.goal_cells],
                 "out": list(puzzle.out), "keep": list(puzzle.keep)},
        "exits": [list(board.cells[c]) for c in puzzle.exits],
    }


def rules_line(puzzle: SlidingPuzzle) -> str:
    """The gallery's line of rules: move rule, metric and pieces."""
    esc = html.escape
    pieces = " · ".join(f"{s.letter}: {s.count} of {len(s.cells)} cells"
                        + ("" if s.along == "any" else f", keeps its {s.along}") for s in puzzle.shapes)
    return f"rules: {FAMILY} ({esc(puzzle.rules_text)}) · {esc(pieces)}"


# -- level editors: LDtk and Tiled -------------------------------------------------------------


def stages(puzzle: SlidingPuzzle, levels: Sequence[Level], curve: PackCurve | None = None) -> list[Stage]:
    """The levels as the editors' files hold them: the board's box (walls, goal cells, exits),
    one block per piece (the goal's piece marked), what solves it (`goal`), the figures
    (difficulty: the player model's effort) and the solution's moves."""
    board = puzzle.board
    cells = box_cells(board, puzzle.goal_cells, puzzle.exits)
    goal = Figure("goal", "string", puzzle.goal_text)
    return [
        Stage(number, level_title(puzzle, number, level), board.grid, cells,
              tuple(Piece(group.letter, board.cells[anchor][0], board.cells[anchor][1], group.shape.cells,
                          group.letter == puzzle.goal_letter)
                    for group, anchors in zip(puzzle.groups, level.position) for anchor in anchors),
              (goal, *own), tuple(level.solution))
        for number, (level, own) in enumerate(zip(levels, engine_figures(levels, curve)), start=1)
    ]


# -- the playable page --------------------------------------------------------------------------


def games(puzzle: SlidingPuzzle, levels: Sequence[Level]) -> list[play.Game]:
    """The levels as the playable page plays them: every position reachable from each, its
    moves and its distance; a hint shows a move that brings the level closer to the goal.
    ExportError naming the first level that reaches more than PLAY_LIMIT positions."""
    out = []
    for number, level in enumerate(levels, start=1):
        reach = puzzle.reachable(level.position, play.PLAY_LIMIT)
        if reach is None:
            raise play.too_many(number)
        nodes = []
        for position, moves, distance in zip(reach.positions, reach.moves, reach.distances):
            closer = [k for k, (move, j) in enumerate(moves)
                      if distance is not None and reach.distances[j] == distance - move.cost]
            state = play.WON if puzzle.is_goal(position) else play.OPEN if distance is not None else play.LOST
            nodes.append(play.Node([a for anchors in position for a in anchors],
                                   tuple((move.source, move.target, j) for move, j in moves),
                                   closer[0] if closer else -1, state, distance))
        out.append(play.Game(level_title(puzzle, number, level), play_figures(level),
                             tuple(level.solution), _play_board(puzzle, level), tuple(nodes)))
    return out


def _play_board(puzzle: SlidingPuzzle, level: Level) -> dict[str, Any]:
    """How the page draws the puzzle's positions (see `curator.export.play`): the pictures'
    board, goal cells tinted, and the blocks in their letters' colours."""
    pic = block_picture(puzzle, level.position)
    return {
        "kind": "blocks", **play.board_json(pic, puzzle.board.size),
        "cells": [list(cell) for cell in puzzle.board.cells], "gap": round(BLOCK_GAP * UNIT, 2),
        "label": pic.label_size,
        "groups": [[g.letter, block_colour(puzzle, g.letter), [list(c) for c in g.shape.cells], g.count]
                   for g in puzzle.groups],
    }


EXPORTS = GoalExports(PACK_FORMAT, puzzle_dict, rules_line, stages, BLOCK, games,
                      "click a block, then one of the places it can go")
pack_dict = EXPORTS.pack_dict
WRITERS = EXPORTS.writers
"""Export formats of sliding-block levels by name; the same names as `curator.export.WRITERS`."""
FORMATS = tuple(WRITERS)
write = EXPORTS.write
