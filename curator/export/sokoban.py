"""Exports of levels picked from Sokoban tables (`curator.sokoban.results.SokobanLevel`).

The writers are the goal tables' (`curator.export.goals`), with the Sokoban pack's `puzzle`
object and rules, its levels laid out as the room (walls, floor, goals) with a piece per box
and the keeper for the level editors, and played in the page step by step:

    EXPORTS.write_json(puzzle, levels, "pack.json")     # format curator-sokoban-pack/1
    EXPORTS.write_csv(puzzle, levels, "levels.csv")
    EXPORTS.write_svg(puzzle, levels, "pictures/")      # level-0001.svg, ...
    EXPORTS.write_png(puzzle, levels, "pictures/")
    EXPORTS.write_html(puzzle, levels, "gallery.html")
    EXPORTS.write_ldtk(puzzle, levels, "levels.ldtk")   # an LDtk project: one level per level
    EXPORTS.write_tiled(puzzle, levels, "maps/")        # Tiled maps: level-0001.tmj, ... and tiles.png
    EXPORTS.write_play(puzzle, levels, "play.html")     # a page that plays them
"""

from __future__ import annotations

import heapq
import html
from collections.abc import Sequence
from typing import Any

from curator.arrange import PackCurve
from curator.export import play
from curator.export.engines import FLOOR, GOAL, PIECE, WALL, Figure, Piece, Stage
from curator.export.goals import COLUMNS, GoalExports, Level, engine_figures, level_title, play_figures
from curator.picture import BOX_COLOURS, BOX_INSET, PLAYER_COLOUR, UNIT, sokoban_picture
from curator.sokoban.puzzle import BOX, FAMILY, PLAYER, Position, SokobanPuzzle, Step

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


# -- level editors: LDtk and Tiled -------------------------------------------------------------


def room_cells(puzzle: SokobanPuzzle) -> tuple[tuple[int, ...], ...]:
    """The rows of the room's box, walls included: FLOOR, GOAL, or WALL (a wall, or outside)."""
    index = puzzle.board.index
    goals = {puzzle.board.cells[g] for g in puzzle.goals}
    frame = set(index) | puzzle.walls
    rows, cols = max(r for r, _ in frame) + 1, max(c for _, c in frame) + 1
    return tuple(tuple(GOAL if (r, c) in goals else FLOOR if (r, c) in index else WALL for c in range(cols))
                 for r in range(rows))


def stages(puzzle: SokobanPuzzle, levels: Sequence[Level], curve: PackCurve | None = None) -> list[Stage]:
    """The levels as the editors' files hold them: the room's box (walls, floor, goals), one
    piece per box (`$`) and the keeper (`@`), what solves it (`goal`), the figures (difficulty:
    the distance) and the solution's moves in LURD letters."""
    cells = room_cells(puzzle)
    board = puzzle.board.cells
    goal = Figure("goal", "string", "every box onto a goal")
    return [
        Stage(number, level_title(puzzle, number, level), "square", cells,
              (*(Piece(BOX, board[b][0], board[b][1], goal=True) for b in level.position[0]),
               Piece(PLAYER, board[level.position[1]][0], board[level.position[1]][1])),
              (goal, *own), tuple(level.solution))
        for number, (level, own) in enumerate(zip(levels, engine_figures(levels, curve)), start=1)
    ]


# -- the playable page --------------------------------------------------------------------------


def games(puzzle: SokobanPuzzle, levels: Sequence[Level]) -> list[play.Game]:
    """The levels as the playable page plays them: every position the keeper's steps reach
    from each, its steps and its distance in the puzzle's metric. A hint shows a step on a
    shortest solution (under the pushes metric, the fewest steps among those with the fewest
    pushes, so that hints never walk in circles). ExportError naming the first level that
    reaches more than PLAY_LIMIT positions."""
    out = []
    for number, level in enumerate(levels, start=1):
        reach = _reach(puzzle, level.position, play.PLAY_LIMIT)
        if reach is None:
            raise play.too_many(number)
        positions, steps, best = reach
        nodes = []
        for position, found, here in zip(positions, steps, best):
            hint = next((k for k, (step, j) in enumerate(found)
                         if here is not None and _plus(best[j], _cost(puzzle, step)) == here), -1)
            state = play.WON if puzzle.is_goal(position) else play.OPEN if here is not None else play.LOST
            nodes.append(play.Node([*position[0], position[1]],
                                   tuple((step.source, step.target, j) for step, j in found), hint, state,
                                   None if here is None else here[0]))
        out.append(play.Game(level_title(puzzle, number, level), play_figures(level),
                             tuple(level.solution), _play_board(puzzle, level), tuple(nodes)))
    return out


Cost = tuple[int, int]
"""A way to the goal's length: in the puzzle's metric, then in steps."""


def _cost(puzzle: SokobanPuzzle, step: Step) -> Cost:
    return (1 if step.push or puzzle.metric == "moves" else 0), 1


def _plus(a: Cost | None, b: Cost) -> Cost | None:
    """The way `a` made longer by `b` (None: no way)."""
    return None if a is None else (a[0] + b[0], a[1] + b[1])


def _reach(puzzle: SokobanPuzzle, start: Position, limit: int
           ) -> tuple[list[Position], list[list[tuple[Step, int]]], list[Cost | None]] | None:
    """Every position the keeper's steps reach from `start` without leaving a solved one, its
    steps (with the index of the position each leads to) and its shortest way to the goal
    (None if it has none); None if there are more than `limit` positions. A shortest solution
    from a reachable position passes reachable positions only, so the metric's part of each
    way is the tables' distance."""
    index = {start: 0}
    positions = [start]
    steps: list[list[tuple[Step, int]]] = []
    while len(steps) < len(positions):
        here = positions[len(steps)]
        found = []
        for step in [] if puzzle.is_goal(here) else puzzle.steps(here):
            if step.child not in index:
                if len(positions) >= limit:
                    return None
                index[step.child] = len(positions)
                positions.append(step.child)
            found.append((step, index[step.child]))
        steps.append(found)
    back: list[list[tuple[int, Cost]]] = [[] for _ in positions]
    for i, found in enumerate(steps):
        for step, j in found:
            back[j].append((i, _cost(puzzle, step)))
    best: list[Cost | None] = [None] * len(positions)
    todo = [((0, 0), i) for i, position in enumerate(positions) if puzzle.is_goal(position)]
    while todo:
        way, j = heapq.heappop(todo)
        if best[j] is None:
            best[j] = way
            for i, cost in back[j]:
                if best[i] is None:
                    heapq.heappush(todo, ((way[0] + cost[0], way[1] + cost[1]), i))
    return positions, steps, best


def _play_board(puzzle: SokobanPuzzle, level: Level) -> dict[str, Any]:
    """How the page draws the room's positions (see `curator.export.play`): the pictures' floor
    (goal cells tinted) and walls, the boxes and the keeper as one-cell blocks."""
    pic = sokoban_picture(puzzle, level.position)
    return {
        "kind": "blocks", **play.board_json(pic, puzzle.board.size + len(puzzle.walls)),
        "cells": [list(cell) for cell in puzzle.board.cells], "gap": round(BOX_INSET * UNIT, 2),
        "label": pic.label_size,
        "groups": [[BOX, BOX_COLOURS[0], [[0, 0]], puzzle.boxes], [PLAYER, PLAYER_COLOUR, [[0, 0]], 1]],
    }


EXPORTS = GoalExports(PACK_FORMAT, puzzle_dict, rules_line, stages, PIECE, games,
                      "click the keeper (@), then the cell it steps to (onto a box to push it)")
pack_dict = EXPORTS.pack_dict
WRITERS = EXPORTS.writers
"""Export formats of Sokoban levels by name; the same names as `curator.export.WRITERS`."""
FORMATS = tuple(WRITERS)
write = EXPORTS.write
