"""Tiled maps (https://www.mapeditor.org, JSON map format 1.10, `.tmj`) of levels as stages
(`curator.export.engines.Stage`): one map per level.

A map has a tile layer `board` (tile 0 floor, 1 wall: inside the board's box but not on the
board, 2 goal cell; global ids 1, 2, 3) under an object layer `pieces`: one object per piece,
of type `Piece` (an ellipse on one cell) or `Block` (a rectangle over the block's box), named
by its letter, with the properties `letter`, `row` and `col` (and `goal` and `cells` for
blocks). The map's properties are the level's title, grid, figures and solution. The tileset is in
the map; its image (three tiles) is written beside the maps.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from PIL import Image, ImageDraw

from curator.common.files import atomic_write
from curator.export import engines
from curator.export.engines import CELL, CELL_COLOURS, CELL_NAMES, Cast, Piece, Stage, check_stages
from curator.export.writing import file_targets, json_text, write_text

FORMAT_VERSION = "1.10"
"""The Tiled JSON map format version the maps follow."""
SUFFIX = ".tmj"
TILESET = "curator-board"
IMAGE = "tiles.png"
"""The tileset image beside a folder of maps (beside one map: NAME-tiles.png)."""
EDGE = "#00000033"


def tiled_map(stage: Stage, cast: Cast, image: str) -> dict[str, Any]:
    """The Tiled map of one stage as JSON-ready data; `image` is the path of the tileset
    image relative to the map."""
    properties = [_property("title", "string", stage.title), _property("grid", "string", stage.grid),
                  *(_property(f.name, f.kind, f.value) for f in stage.figures if f.value is not None),
                  _property("solution", "string", "; ".join(stage.solution))]
    objects = [_object(n, piece, cast) for n, piece in enumerate(stage.pieces, start=1)]
    return {
        "type": "map",
        "version": FORMAT_VERSION,
        "class": "level",
        "orientation": "orthogonal",
        "renderorder": "right-down",
        "infinite": False,
        "compressionlevel": -1,
        "width": stage.cols,
        "height": stage.rows,
        "tilewidth": CELL,
        "tileheight": CELL,
        "nextlayerid": 3,
        "nextobjectid": len(objects) + 1,
        "properties": properties,
        "tilesets": [{
            "firstgid": 1, "name": TILESET, "image": image, "imagewidth": CELL * len(CELL_NAMES),
            "imageheight": CELL, "tilewidth": CELL, "tileheight": CELL, "tilecount": len(CELL_NAMES),
            "columns": len(CELL_NAMES), "margin": 0, "spacing": 0,
            "tiles": [{"id": value - 1, "type": name} for value, name in CELL_NAMES.items()],
        }],
        "layers": [
            {"id": 1, "name": "board", "type": "tilelayer", "x": 0, "y": 0, "width": stage.cols,
             "height": stage.rows, "opacity": 1, "visible": True,
             "data": [v for row in stage.cells for v in row]},
            {"id": 2, "name": "pieces", "type": "objectgroup", "draworder": "topdown", "x": 0, "y": 0,
             "opacity": 1, "visible": True, "objects": objects},
        ],
    }


def write_maps(stages: Sequence[Stage], cast: Cast, out: str | Path) -> list[Path]:
    """One map per stage into the folder `out` (level-0001.tmj, ..., and the tileset image
    tiles.png), or into the file `out` if it ends in .tmj and there is exactly one stage (its
    image beside it: NAME-tiles.png). Returns the files written, the image last."""
    check_stages(stages)
    targets = file_targets(len(stages), out, SUFFIX)
    image = targets[0].parent / (IMAGE if len(targets) > 1 or Path(out).suffix.lower() != SUFFIX
                                 else f"{targets[0].stem}-{IMAGE}")
    for stage, target in zip(stages, targets):
        write_text(target, json_text(tiled_map(stage, cast, image.name)))
    atomic_write(image, tileset_png())
    return [*targets, image]


def writer(stages_of: engines.StagesOf, cast: Cast) -> engines.Writer:
    """The Tiled writer of a kind that lays out its levels with `stages_of`."""

    def write_tiled(puzzle: Any, levels: Sequence[Any], out: str | Path, curve: Any = None) -> list[Path]:
        """One Tiled map per level into the folder `out`, or into the file `out` if it ends
        in .tmj and there is one level; the tileset image beside them (see
        `curator.export.tiled`). A pack's curve adds each level's target."""
        return write_maps(stages_of(puzzle, levels, curve), cast, out)

    return write_tiled


def tileset_png() -> bytes:
    """The tileset image: the floor, wall and goal tiles side by side."""
    image = Image.new("RGBA", (CELL * len(CELL_COLOURS), CELL), (0, 0, 0, 0))
    draw = ImageDraw.Draw(image)
    for value, colour in CELL_COLOURS.items():
        left = (value - 1) * CELL
        draw.rectangle((left, 0, left + CELL - 1, CELL - 1), fill=colour, outline=EDGE)
    data = io.BytesIO()
    image.save(data, format="PNG")
    return data.getvalue()


def _property(name: str, kind: str, value: Any) -> dict[str, Any]:
    return {"name": name, "type": kind, "value": value}


def _object(number: int, piece: Piece, cast: Cast) -> dict[str, Any]:
    properties = [_property("letter", "string", piece.letter), _property("row", "int", piece.row),
                  _property("col", "int", piece.col)]
    if not cast.discs:
        properties += [_property("goal", "bool", piece.goal), _property("cells", "string", piece.shape)]
    return {
        "id": number, "name": piece.letter, "type": cast.name, "x": piece.left * CELL, "y": piece.top * CELL,
        "width": piece.width * CELL, "height": piece.height * CELL, "rotation": 0, "visible": True,
        **({"ellipse": True} if cast.discs else {}), "properties": properties,
    }
