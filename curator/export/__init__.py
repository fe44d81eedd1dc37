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

`curator.export.distance` has the same writers for positions picked from the distance table of
a permutation puzzle, and `curator.export.sliding` for levels of sliding-block tables; all
share `curator.export.writing` and the gallery and CSV helpers, and the editors' files are
written from what each kind makes of its levels (`curator.export.engines`, `ldtk`, `tiled`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from curator.arrange import PackCurve
from curator.export import ldtk, tiled
from curator.export.engines import PIECE, Figure, Piece, Stage, box_cells, with_targets
from curator.export.gallery import write_html
from curator.export.pack import save_pack
from curator.export.table import write_csv
from curator.export.writing import ExportError, write_pictures
from curator.layered.level import Level, PuzzleLike, moves_text
from curator.picture import Picture, picture


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
    difficulty = float(level.difficulty)
    return (
        Figure("difficulty", "float", difficulty if math.isfinite(difficulty) else None),
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
              own, tuple(moves_text(puzzle, level.solution).split()))
        for number, (level, own) in enumerate(zip(levels, figures), start=1)
    ]


write_ldtk = ldtk.writer(stages, PIECE)
write_tiled = tiled.writer(stages, PIECE)


WRITERS: dict[str, Callable[[PuzzleLike, Sequence[Level], str | Path], list[Path]]] = {
    "json": write_json,
    "csv": write_csv,
    "svg": write_svg,
    "png": write_png,
    "html": write_html,
    "ldtk": write_ldtk,
    "tiled": write_tiled,
}
"""Export formats by name, as the `curator export --format` option knows them."""
FORMATS = tuple(WRITERS)
CURVE_FORMATS = ("json", "csv", "html", "ldtk", "tiled")
"""The formats that record a pack's difficulty curve (pictures are just in pack order)."""
ONE_FILE = ("json", "csv", "html", "ldtk")
"""The formats written as one file."""
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
    if fmt in ONE_FILE or path.suffix.lower() == SUFFIXES.get(fmt):
        path.parent.mkdir(parents=True, exist_ok=True)
    if curve is not None and fmt in CURVE_FORMATS:
        return writers[fmt](puzzle, items, path, curve=curve)
    return writers[fmt](puzzle, items, path)


__all__ = ["FORMATS", "WRITERS", "ExportError", "write", "write_csv", "write_html", "write_json",
           "write_ldtk", "write_png", "write_svg", "write_tiled"]
