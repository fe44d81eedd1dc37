"""Exports of selected levels: a JSON level pack, CSV, SVG and PNG pictures, an HTML gallery.

Every writer takes the puzzle (or a `curator.export.pack.PackHeader`), the levels and where to
write, and returns the paths it wrote:

    write_json(puzzle, levels, "pack.json")
    write_csv(puzzle, levels, "levels.csv")
    write_svg(puzzle, levels, "pictures/")     # one file per level; "one.svg" for one level
    write_png(puzzle, levels, "pictures/")
    write_html(puzzle, levels, "gallery.html")
    write_ldtk(puzzle, levels, "levels.ldtk")  # an LDtk project: one level per level
    write_tiled(puzzle, levels, "maps/")       # Tiled maps: level-0001.tmj, ... and tiles.png
    write_play(puzzle, levels, "play.html")    # a page that plays them (needs a Puzzle)

`curator.export.distance` has the same writers for positions picked from the distance table of
a permutation puzzle, and `curator.export.sliding` and `curator.export.sokoban` (over
`curator.export.goals`) for levels of sliding-block and Sokoban tables; all
share `curator.export.writing` and the gallery and CSV helpers, and the editors' files and the
playable page are written from what each kind makes of its levels (`curator.export.engines`,
`ldtk`, `tiled`, `play`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from curator.arrange import PackCurve
from curator.common.figures import difficulty_value
from curator.export import ldtk, play, tiled
from curator.export.engines import PIECE, Figure, Piece, Stage, box_cells, with_targets
from curator.export.gallery import METRICS, metric_texts, move_texts, plural, write_html
from curator.export.pack import save_pack
from curator.export.table import write_csv
from curator.export.writing import ExportError, one_file, write_pictures
from curator.layered.level import Level, PuzzleLike, move_entries
from curator.layered.search import Explorer, Graph
from curator.picture import Picture, picture
from curator.rules.base import decode_move


def write_json(puzzle: PuzzleLike, levels: Sequence[Level], path: str | Path,
               curve: PackCurve | None = None) -> list[Path]:
    """The level pack (format curator-level-pack/1, see docs/level-pack.md)."""
    return [save_pack(puzzle, levels, path, curve)]


def level_title(puzzle: PuzzleLike, number: int, level: Level) -> str:
    return f"{puzzle.title}: level {number} ({level.pieces} pieces)"


def _level_pictures(puzzle: PuzzleLike, levels: Sequence[Level], out: str | Path, suffix: str) -> list[Path]:
    def draw(number: int, level: Level) -> Picture:
        return picture(puzzle, level.position, level_title(puzzle, number, level))

    return write_pictures(levels, draw, out, suffix)


def write_svg(puzzle: PuzzleLike, levels: Sequence[Level], out: str | Path) -> list[Path]:
    """One SVG picture per level into the folder `out` (level-0001.svg, ...), or into the
    file `out` if it ends in .svg and there is exactly one level."""
    return _level_pictures(puzzle, levels, out, ".svg")


def write_png(puzzle: PuzzleLike, levels: Sequence[Level], out: str | Path) -> list[Path]:
    """One PNG picture per level, named like `write_svg`'s."""
    return _level_pictures(puzzle, levels, out, ".png")


# -- level editors: LDtk and Tiled -----------------------------------------------------------


def _figures(level: Level) -> tuple[Figure, ...]:
    """What the editors' files hold of a level: its difficulty (None if unsolvable or not
    rated), the moves of its solution, its flags and counts; numbers that can exceed 32 bits
    as strings of digits."""
    r = level.report
    return (
        Figure("difficulty", "float", difficulty_value(level.difficulty)),
        Figure("moves", "int", len(r.solution)),
        Figure("unique", "bool", bool(r.unique)),
        Figure("solvable", "bool", bool(r.solvable)),
        Figure("all_moves", "bool", bool(r.all_moves)),
        Figure("solutions", "string", str(int(r.solutions))),
        Figure("pieces", "int", int(r.pieces)),
        Figure("legal_moves", "int", int(r.legal_moves)),
        Figure("safe_moves", "int", int(r.safe_moves)),
        Figure("layer", "string", level.layer),
        Figure("rank", "string", str(int(level.rank))),
    )


def stages(puzzle: PuzzleLike, levels: Sequence[Level], curve: PackCurve | None = None) -> list[Stage]:
    """The levels as the editors' files hold them: the board's box (goal cells marked), one
    piece per occupied cell, the figures (and a pack's targets) and the solution as
    "r,c>r,c" moves."""
    board = puzzle.board
    cells = box_cells(board, puzzle.goal.cells)
    figures = with_targets([_figures(level) for level in levels], curve)
    return [
        Stage(number, level_title(puzzle, number, level), board.grid, cells,
              tuple(Piece(puzzle.piece_types[t - 1], *board.cells[i])
                    for i, t in enumerate(level.position) if t),
              own, tuple(move_entries(puzzle, level.report.solution, level.position)))
        for number, (level, own) in enumerate(zip(levels, figures), start=1)
    ]


write_ldtk = ldtk.writer(stages, PIECE)
write_tiled = tiled.writer(stages, PIECE)


# -- the playable page ------------------------------------------------------------------------


def games(puzzle: Any, levels: Sequence[Level]) -> list[play.Game]:
    """The levels as the playable page plays them: every position reachable from each, with
    its moves; ExportError naming the first level that reaches more than PLAY_LIMIT."""
    explorer = Explorer(puzzle)
    board = _play_board(puzzle)
    out = []
    for number, level in enumerate(levels, start=1):
        graph = explorer.graph(level.position, play.PLAY_LIMIT)
        if graph is None:
            raise play.too_many(number)
        texts = metric_texts(level)
        out.append(play.Game(level_title(puzzle, number, level),
                             tuple((label, texts[key]) for key, label in METRICS),
                             tuple(move_texts(puzzle, level)), board, _nodes(puzzle, graph)))
    return out


def _nodes(puzzle: Any, graph: Graph) -> tuple[play.Node, ...]:
    """The positions of a level's graph, depth after depth: won (a goal position), open (still
    solvable) or lost, each with its moves; a hint shows the first move that keeps it solvable."""
    letters = "." + "".join(puzzle.piece_types)
    solvable = graph.solvable()
    starts = np.cumsum([0, *graph.sizes]).tolist()
    last = len(graph.frontiers) - 1
    nodes = []
    for depth, states in enumerate(graph.frontiers):
        if states.ndim == 1:  # occupancy masks of one-type pieces
            states = (states[:, None] >> np.arange(puzzle.board.size, dtype=np.uint64)) & np.uint64(1)
        moves: list[list[tuple[int, int, int]]] = [[] for _ in range(len(states))]
        if depth < last:
            edges = graph.edges[depth]
            found = zip(edges.parents.tolist(), edges.children.tolist(), edges.moves.tolist())
            for parent, child, code in found:
                moves[parent].append((*decode_move(code), starts[depth + 1] + child))
        for i, state in enumerate(states.tolist()):
            safe = [k for k, (_, _, child) in enumerate(moves[i]) if _solvable(solvable, starts, child)]
            won = depth == last and bool(graph.goals[i])
            where = play.WON if won else play.OPEN if solvable[depth][i] else play.LOST
            nodes.append(play.Node("".join(letters[v] for v in state), tuple(moves[i]),
                                   safe[0] if safe else -1, where))
    return tuple(nodes)


def _solvable(solvable: list[np.ndarray], starts: list[int], node: int) -> bool:
    depth = int(np.searchsorted(starts, node, side="right")) - 1
    return bool(solvable[depth][node - starts[depth]])


def _play_board(puzzle: Any) -> dict[str, Any]:
    """How the page draws the puzzle's positions (see `curator.export.play`): the pictures'
    board, holes, and a disc per piece in its type's colour."""
    size = puzzle.board.size
    empty = picture(puzzle, [0] * size)
    full = [picture(puzzle, [t] * size) for t in range(1, len(puzzle.piece_types) + 1)]
    disc = full[0].pieces[0]
    return {
        "kind": "pieces", **play.board_json(empty, size),
        "cells": [list(cell) for cell in puzzle.board.cells],
        "radius": disc.radius, "label": full[0].label_size,
        "hole": [empty.holes[0].fill, empty.holes[0].radius] if empty.holes else None,
        "types": {letter: [pic.pieces[0].fill, pic.pieces[0].edge, bool(pic.pieces[0].label)]
                  for letter, pic in zip(puzzle.piece_types, full)},
    }


def write_play(puzzle: Any, levels: Sequence[Level], path: str | Path) -> list[Path]:
    """One self-contained page that plays the levels, with undo, reset and hints (see
    `curator.export.play`); `puzzle` must be a `Puzzle` (the rules make its moves)."""
    subtitle = (f"{plural(len(levels), 'level')}: click a piece, then where it goes. "
                "Hint shows a move that keeps the level solvable.")
    return play.write_page(puzzle.title, subtitle, games(puzzle, levels), puzzle.name, path)


WRITERS: dict[str, Callable[[PuzzleLike, Sequence[Level], str | Path], list[Path]]] = {
    "json": write_json,
    "csv": write_csv,
    "svg": write_svg,
    "png": write_png,
    "html": write_html,
    "ldtk": write_ldtk,
    "tiled": write_tiled,
    "play": write_play,
}
"""Export formats by name, as the `curator export --format` option knows them."""
FORMATS = tuple(WRITERS)
CURVE_FORMATS = ("json", "csv", "html", "ldtk", "tiled")
"""The formats that record a pack's difficulty curve (pictures are just in pack order)."""
ONE_FILE = {"json": (".json",), "csv": (".csv",), "html": (".html",), "ldtk": (".ldtk", ".json"),
            "play": (".html",)}
"""The formats written as one file, and the suffixes that file may have."""
SUFFIXES = {"svg": ".svg", "png": ".png", "tiled": ".tmj"}
"""The suffix of the one file a format written one file per level writes for one level."""


def write(fmt: str, puzzle: Any, items: Sequence[Any], path: str | Path,
          writers: Mapping[str, Callable[..., list[Path]]] = WRITERS, curve: PackCurve | None = None,
          ) -> list[Path]:
    """Write `items` in the format named `fmt` (one of FORMATS) to `path`, creating the
    folder a single file goes into; return the files written. `curve` (the levels' slots
    in a pack) goes into the formats of CURVE_FORMATS. ExportError for an unknown format or
    a picture file asked to hold several items."""
    if fmt not in writers:
        raise ExportError(f"format must be one of {', '.join(writers)}, got {fmt!r}")
    path = Path(path)
    if fmt in ONE_FILE:
        path = one_file(path, ONE_FILE[fmt])
    elif path.suffix.lower() == SUFFIXES.get(fmt):
        path.parent.mkdir(parents=True, exist_ok=True)
    if curve is not None and fmt in CURVE_FORMATS:
        return writers[fmt](puzzle, items, path, curve=curve)
    return writers[fmt](puzzle, items, path)


__all__ = ["FORMATS", "WRITERS", "ExportError", "write", "write_csv", "write_html", "write_json",
           "write_ldtk", "write_play", "write_png", "write_svg", "write_tiled"]
