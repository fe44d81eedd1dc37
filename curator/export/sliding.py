"""Exports of levels picked from sliding-block tables (`curator.sliding.results.SlidingLevel`).

The writers mirror the level exports and share their code:

    write_json(puzzle, levels, "pack.json")     # format curator-sliding-pack/1
    write_csv(puzzle, levels, "levels.csv")
    write_svg(puzzle, levels, "pictures/")      # level-0001.svg, ...
    write_png(puzzle, levels, "pictures/")
    write_html(puzzle, levels, "gallery.html")
    write_ldtk(puzzle, levels, "levels.ldtk")   # an LDtk project: one level per level
    write_tiled(puzzle, levels, "maps/")        # Tiled maps: level-0001.tmj, ... and tiles.png
    write_play(puzzle, levels, "play.html")     # a page that plays them
"""

from __future__ import annotations

import html
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from curator.arrange import PackCurve
from curator.common.figures import difficulty_value
from curator.export import ldtk, play, tiled
from curator.export import write as write_items
from curator.export.engines import BLOCK, Figure, Piece, Stage, box_cells, with_targets
from curator.export.gallery import card_html, curve_html, page_html, plural
from curator.export.writing import json_text, pack_head, write_pictures, write_table, write_text
from curator.picture import BLOCK_GAP, UNIT, Picture, block_colour, block_picture
from curator.sliding.puzzle import FAMILY, SlidingPuzzle

PACK_FORMAT = "curator-sliding-pack/1"
"""The `format` value of level packs of sliding-block puzzles (docs/level-pack.md)."""
COLUMNS = ("number", "puzzle", "rank", "board", "distance", "unique", "all_moves", "cluster", "solution")

Level = Any
"""A `curator.sliding.results.SlidingLevel` (not imported: the results import this module)."""


def pack_dict(puzzle: SlidingPuzzle, levels: Sequence[Level], curve: PackCurve | None = None,
              ) -> dict[str, Any]:
    """The level pack as JSON-ready data, with the distance curve it was arranged by if given."""
    board = puzzle.board
    return {
        **pack_head(PACK_FORMAT),
        "puzzle": {
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
        },
        **({} if curve is None else {"curve": curve.to_json()}),
        "levels": [level.to_json() for level in levels],
    }


def write_json(puzzle: SlidingPuzzle, levels: Sequence[Level], path: str | Path,
               curve: PackCurve | None = None) -> list[Path]:
    """Write the level pack (through a temporary file and a rename)."""
    return write_text(path, json_text(pack_dict(puzzle, levels, curve)))


def write_csv(puzzle: SlidingPuzzle, levels: Sequence[Level], path: str | Path,
              curve: PackCurve | None = None) -> list[Path]:
    """Write the CSV file: `board` as rows joined by '/', `solution` as moves joined by '; ';
    a pack's curve adds the column `target` (the distance its slot aims at) after `distance`."""
    rows = [
        {"number": str(n), "puzzle": puzzle.name, "rank": str(level.rank), "board": "/".join(level.board),
         "distance": str(level.distance), "unique": str(level.unique).lower(),
         "all_moves": str(level.all_moves).lower(), "cluster": str(level.cluster),
         "solution": "; ".join(level.solution)}
        for n, level in enumerate(levels, start=1)
    ]
    return write_table(path, COLUMNS, rows, curve, after="distance")


def level_title(puzzle: SlidingPuzzle, number: int, level: Level) -> str:
    return f"{puzzle.title}: level {number} (distance {level.distance})"


def level_picture(puzzle: SlidingPuzzle, number: int, level: Level) -> Picture:
    return block_picture(puzzle, level.position, level_title(puzzle, number, level))


def write_svg(puzzle: SlidingPuzzle, levels: Sequence[Level], out: str | Path) -> list[Path]:
    """One SVG picture per level into the folder `out` (level-0001.svg, ...), or into the file
    `out` if it ends in .svg and there is exactly one level."""
    return write_pictures(levels, lambda n, level: level_picture(puzzle, n, level), out, ".svg")


def write_png(puzzle: SlidingPuzzle, levels: Sequence[Level], out: str | Path) -> list[Path]:
    """One PNG picture per level, named like `write_svg`'s."""
    return write_pictures(levels, lambda n, level: level_picture(puzzle, n, level), out, ".png")


def gallery_html(puzzle: SlidingPuzzle, levels: Sequence[Level], curve: PackCurve | None = None) -> str:
    """The gallery page: one card per level with its picture, figures and shortest solution;
    a pack's curve is drawn above them."""
    esc = html.escape
    pieces = " · ".join(f"{s.letter}: {s.count} of {len(s.cells)} cells"
                        + ("" if s.along == "any" else f", keeps its {s.along}") for s in puzzle.shapes)
    facts = f"rules: {FAMILY} ({esc(puzzle.rules_text)}) · {esc(pieces)}"
    cards = []
    for number, level in enumerate(levels, start=1):
        texts = figure_texts(level)
        cards.append(card_html("level", number, {"rank": level.rank, "distance": str(level.distance)},
                               f"Level {number} <small>#{level.rank}</small>",
                               level_picture(puzzle, number, level),
                               [(key, key.replace("_", " "), text) for key, text in texts.items()],
                               level.solution, "Solved already: no moves."))
    chart = "" if curve is None else curve_html(curve)
    return page_html(puzzle.title, plural(len(levels), "level"), facts, cards, puzzle.name, chart)


def figure_texts(level: Level) -> dict[str, str]:
    """What the gallery and the playable page list of a level, by key."""
    return {"distance": str(level.distance), "unique": "yes" if level.unique else "no",
            "all_moves": "yes" if level.all_moves else "no", "cluster": f"{level.cluster:,}",
            "rank": str(level.rank)}


def write_html(puzzle: SlidingPuzzle, levels: Sequence[Level], path: str | Path,
               curve: PackCurve | None = None) -> list[Path]:
    """Write the gallery page to `path`."""
    return write_text(path, gallery_html(puzzle, levels, curve))


# -- level editors: LDtk and Tiled -------------------------------------------------------------


def stages(puzzle: SlidingPuzzle, levels: Sequence[Level], curve: PackCurve | None = None) -> list[Stage]:
    """The levels as the editors' files hold them: the board's box (walls, goal cells), one
    block per piece (the goal's piece marked), the figures (difficulty: the player model's
    effort) and the solution's moves."""
    board = puzzle.board
    cells = box_cells(board, puzzle.goal_cells)
    figures = with_targets([(
        Figure("difficulty", "float", difficulty_value(level.difficulty)),
        Figure("distance", "int", level.distance),
        Figure("moves", "int", len(level.solution)),
        Figure("unique", "bool", bool(level.unique)),
        Figure("all_moves", "bool", bool(level.all_moves)),
        Figure("cluster", "int", int(level.cluster)),
        Figure("rank", "string", str(int(level.rank))),
    ) for level in levels], curve)
    return [
        Stage(number, level_title(puzzle, number, level), board.grid, cells,
              tuple(Piece(group.letter, board.cells[anchor][0], board.cells[anchor][1], group.shape.cells,
                          group.letter == puzzle.goal_letter)
                    for group, anchors in zip(puzzle.groups, level.position) for anchor in anchors),
              own, tuple(level.solution))
        for number, (level, own) in enumerate(zip(levels, figures), start=1)
    ]


write_ldtk = ldtk.writer(stages, BLOCK)
write_tiled = tiled.writer(stages, BLOCK)


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
        texts = figure_texts(level)
        out.append(play.Game(level_title(puzzle, number, level),
                             tuple((key.replace("_", " "), text) for key, text in texts.items()),
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


def write_play(puzzle: SlidingPuzzle, levels: Sequence[Level], path: str | Path) -> list[Path]:
    """One self-contained page that plays the levels, with undo, reset and hints (see
    `curator.export.play`)."""
    subtitle = (f"{plural(len(levels), 'level')}: click a block, then one of the places it can go. "
                "Hint shows a move that brings the level closer to the goal.")
    return play.write_page(puzzle.title, subtitle, games(puzzle, levels), puzzle.name, path)


WRITERS: dict[str, Callable[[SlidingPuzzle, Sequence[Level], str | Path], list[Path]]] = {
    "json": write_json,
    "csv": write_csv,
    "svg": write_svg,
    "png": write_png,
    "html": write_html,
    "ldtk": write_ldtk,
    "tiled": write_tiled,
    "play": write_play,
}
"""Export formats of sliding-block levels by name; the same names as `curator.export.WRITERS`."""
FORMATS = tuple(WRITERS)


def write(fmt: str, puzzle: SlidingPuzzle, levels: Sequence[Level], path: str | Path,
          curve: PackCurve | None = None) -> list[Path]:
    """Write sliding-block `levels` in the format `fmt` (with the curve of a pack); the files
    written."""
    return write_items(fmt, puzzle, levels, path, WRITERS, curve=curve)
