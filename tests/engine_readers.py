"""Reading the level editors' files back with the readers game developers use, ldtkpy (LDtk
projects) and pytiled-parser (Tiled maps), into one plain shape the tests compare with the
levels: per level its name, the rows of its board (1 floor, 2 wall, 3 goal, 4 exit), its pieces as
sorted (row, col, letter, width, height) in cells, and its fields or properties."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytiled_parser
from ldtkpy.api import ldtk_json_from_dict

CELL = 32
FLOOR, WALL, GOAL, EXIT = 1, 2, 3, 4


def box(board, goal, exits=()) -> list[list[int]]:
    """The rows a board's box should have: its cells floor (goal cells goal, exits exit), the
    rest wall."""
    goal, exits = set(goal or ()), set(exits)
    kind = {True: EXIT, False: GOAL}
    return [[kind[board.index[(r, c)] in exits] if board.index.get((r, c)) in goal | exits
             else FLOOR if (r, c) in board.index else WALL
             for c in range(board.cols)] for r in range(board.rows)]


def read_ldtk(path: str | Path) -> list[dict]:
    """The levels of an LDtk project, after checking that every uid it refers to is defined
    and every iid is unique."""
    raw = json.loads(Path(path).read_text(encoding="utf-8"))
    project = ldtk_json_from_dict(raw)
    defs = project.defs
    entity_uids = {e.uid for e in defs.entities}
    entity_fields = {f.uid for e in defs.entities for f in e.field_defs}
    level_fields = {f.uid for f in defs.level_fields}
    layer_uids = {layer.uid for layer in defs.layers}
    uids = [*entity_uids, *entity_fields, *level_fields, *layer_uids, *(lv.uid for lv in project.levels)]
    assert len(set(uids)) == len(uids) and project.next_uid > max(uids)
    iids = [project.iid, project.dummy_world_iid]
    levels = []
    for level in project.levels:
        iids.append(level.iid)
        assert {f.def_uid for f in level.field_instances} == level_fields
        layers = {}
        for layer in level.layer_instances:
            assert layer.layer_def_uid in layer_uids and layer.level_id == level.uid
            iids.append(layer.iid)
            layers[layer.identifier] = layer
        board = layers["Board"]
        assert board.type == "IntGrid" and board.grid_size == CELL
        assert (board.c_wid * CELL, board.c_hei * CELL) == (level.px_wid, level.px_hei)
        rows = [board.int_grid_csv[r * board.c_wid:(r + 1) * board.c_wid] for r in range(board.c_hei)]
        pieces = []
        for entity in layers["Pieces"].entity_instances:
            assert entity.def_uid in entity_uids
            assert {f.def_uid for f in entity.field_instances} <= entity_fields
            assert entity.px == [entity.grid[0] * CELL, entity.grid[1] * CELL]
            world = (level.world_x + entity.px[0], level.world_y + entity.px[1])
            assert (entity.world_x, entity.world_y) == world
            iids.append(entity.iid)
            fields = {f.identifier: f.value for f in entity.field_instances}
            pieces.append((entity.grid[1], entity.grid[0], fields["type"], entity.width // CELL,
                           entity.height // CELL))
        levels.append({"name": level.identifier, "cells": rows, "pieces": sorted(pieces),
                       "fields": {f.identifier: f.value for f in level.field_instances}})
    assert not [iid for iid, n in Counter(iids).items() if n > 1]
    return levels


def read_tiled(paths: list[Path]) -> list[dict]:
    """The levels of Tiled maps (the tileset image must be beside them)."""
    levels = []
    for path in paths:
        tiled = pytiled_parser.parse_map(path)
        assert tiled.tile_size == (CELL, CELL) and tiled.orientation == "orthogonal"
        (tileset,) = tiled.tilesets.values()
        assert (path.parent / tileset.image).is_file() and tileset.tile_count == 4
        board, pieces_layer = tiled.layers
        assert (board.name, pieces_layer.name) == ("board", "pieces")
        assert (len(board.data), len(board.data[0])) == (tiled.map_size.height, tiled.map_size.width)
        pieces = []
        for obj in pieces_layer.tiled_objects:
            assert obj.name == obj.properties["letter"]
            pieces.append((int(obj.coordinates.y) // CELL, int(obj.coordinates.x) // CELL, obj.name,
                           int(obj.size.width) // CELL, int(obj.size.height) // CELL))
        levels.append({"name": path.name, "cells": board.data, "pieces": sorted(pieces),
                       "fields": dict(tiled.properties), "objects": pieces_layer.tiled_objects})
    return levels
