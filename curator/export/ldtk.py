"""An LDtk project (https://ldtk.io, JSON format 1.5.3) holding levels as stages
(`curator.export.engines.Stage`): one LDtk level per level.

Each level has an IntGrid layer `Board` (1 floor, 2 wall: inside the board's box but not on
the board, 3 goal cell) under an entity layer `Pieces`: one entity per piece (`Piece`, one
cell, or `Block`, as wide and high as the block's box), whose field `type` is the piece's
letter. Level fields hold the title, the grid, the figures of the level and its solution (an
array of strings, one per move). The definitions (layers, the entity and its fields, the level fields)
are those LDtk writes, so that LDtk and the importers built on its JSON open the file.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from curator.export.engines import (
    CELL,
    CELL_COLOURS,
    CELL_NAMES,
    Cast,
    Piece,
    Stage,
    StagesOf,
    Writer,
    check_stages,
    identifier,
)
from curator.export.writing import json_text, write_text
from curator.version import __version__

JSON_VERSION = "1.5.3"
"""The LDtk JSON format version the projects follow."""
FIELD_TYPES = {"int": ("F_Int", "Int"), "float": ("F_Float", "Float"), "bool": ("F_Bool", "Bool"),
               "string": ("F_String", "String")}
"""A figure kind's LDtk field type, internal and as `__type` names it."""
EDITOR_VALUES = {"int": "V_Int", "float": "V_Float", "bool": "V_Bool", "string": "V_String"}
PIECE_COLOUR = "#b3261e"
LEVEL_BACKGROUND = "#696a79"
GAP = 2
"""Cells between neighbouring levels in the world view."""
PER_ROW = 10
"""Levels per row of the world view."""


def project(title: str, stages: Sequence[Stage], cast: Cast, source: str) -> dict[str, Any]:
    """The LDtk project of `stages` as JSON-ready data; `source` names the puzzle in the
    identifiers, so that the same levels always get the same ones."""
    check_stages(stages)
    uids = itertools.count(1)
    entity_fields = [("type", "string")] + ([] if cast.discs else [("goal", "bool"), ("cells", "string")])
    entity = _entity_def(next(uids), cast, [_field_def(next(uids), name, kind, nullable=False)
                                            for name, kind in entity_fields])
    board_layer, pieces_layer = next(uids), next(uids)
    level_fields = [("title", "string", False), ("grid", "string", False),
                    *((f.name, f.kind, False) for f in stages[0].figures), ("solution", "string", True)]
    field_defs = [_field_def(next(uids), name, kind, array=array) for name, kind, array in level_fields]
    places = _places(stages)
    levels = []
    for stage, (x, y) in zip(stages, places):
        values = [stage.title, stage.grid, *(f.value for f in stage.figures), list(stage.solution)]
        fields = [_field_value(d, value) for d, value in zip(field_defs, values)]
        uid = next(uids)
        entities = [_entity(entity, piece, stage, (x, y), source) for piece in stage.pieces]
        layers = [_layer_instance("Pieces", "Entities", pieces_layer, uid, stage, source, entities=entities),
                  _layer_instance("Board", "IntGrid", board_layer, uid, stage, source,
                                  grid=[v for row in stage.cells for v in row])]
        levels.append({
            "identifier": stage.name, "iid": identifier(source, stage.number), "uid": uid,
            "worldX": x, "worldY": y, "worldDepth": 0, "pxWid": stage.cols * CELL, "pxHei": stage.rows * CELL,
            "__bgColor": LEVEL_BACKGROUND, "bgColor": None, "useAutoIdentifier": False, "bgRelPath": None,
            "bgPos": None, "bgPivotX": 0.5, "bgPivotY": 0.5, "__smartColor": "#adadb5", "__bgPos": None,
            "externalRelPath": None, "fieldInstances": fields, "layerInstances": layers, "__neighbours": [],
        })
    defs = {
        "layers": [_layer_def(pieces_layer, "Pieces", "Entities"),
                   _layer_def(board_layer, "Board", "IntGrid")],
        "entities": [entity],
        "tilesets": [],
        "enums": [],
        "externalEnums": [],
        "levelFields": field_defs,
    }
    widest = max(s.cols for s in stages) * CELL
    highest = max(s.rows for s in stages) * CELL
    return {
        "__header__": {"fileType": "LDtk Project JSON", "app": "curator", "doc": "https://ldtk.io/json",
                       "schema": "https://ldtk.io/files/JSON_SCHEMA.json", "appAuthor": "curator",
                       "appVersion": __version__, "url": "https://ldtk.io"},
        "iid": identifier(source, "project"),
        "jsonVersion": JSON_VERSION,
        "appBuildId": 0,
        "nextUid": next(uids),
        "identifierStyle": "Capitalize",
        "toc": [],
        "worldLayout": "Free",
        "worldGridWidth": widest,
        "worldGridHeight": highest,
        "defaultLevelWidth": widest,
        "defaultLevelHeight": highest,
        "defaultPivotX": 0,
        "defaultPivotY": 0,
        "defaultGridSize": CELL,
        "defaultEntityWidth": CELL,
        "defaultEntityHeight": CELL,
        "bgColor": "#40465b",
        "defaultLevelBgColor": LEVEL_BACKGROUND,
        "minifyJson": False,
        "externalLevels": False,
        "exportTiled": False,
        "simplifiedExport": False,
        "imageExportMode": "None",
        "exportLevelBg": True,
        "pngFilePattern": None,
        "backupOnSave": False,
        "backupLimit": 10,
        "backupRelPath": None,
        "levelNamePattern": "Level_%idx",
        "tutorialDesc": f"{title}: {len(stages)} level{'' if len(stages) == 1 else 's'} written by curator "
                        f"{__version__}",
        "customCommands": [],
        "flags": [],
        "defs": defs,
        "levels": levels,
        "worlds": [],
        "dummyWorldIid": identifier(source, "world"),
    }


def write_project(title: str, stages: Sequence[Stage], cast: Cast, source: str, path: str | Path,
                  ) -> list[Path]:
    """Write the LDtk project of `stages` to `path` (one .ldtk file)."""
    return write_text(path, json_text(project(title, stages, cast, source)))


def writer(stages_of: StagesOf, cast: Cast) -> Writer:
    """The LDtk writer of a kind that lays out its levels with `stages_of`."""

    def write_ldtk(puzzle: Any, levels: Sequence[Any], path: str | Path, curve: Any = None) -> list[Path]:
        """An LDtk project with one level per level (see `curator.export.ldtk`); a pack's
        curve adds each level's target."""
        return write_project(puzzle.title, stages_of(puzzle, levels, curve), cast, puzzle.name, path)

    return write_ldtk


def _places(stages: Sequence[Stage]) -> Iterator[tuple[int, int]]:
    """Where each level goes in the world view: rows of PER_ROW levels, GAP cells apart."""
    y = 0
    for start in range(0, len(stages), PER_ROW):
        row = stages[start:start + PER_ROW]
        x = 0
        for stage in row:
            yield x, y
            x += (stage.cols + GAP) * CELL
        y += (max(s.rows for s in row) + GAP) * CELL


def _field_def(uid: int, name: str, kind: str, array: bool = False, nullable: bool = True) -> dict[str, Any]:
    internal, shown = FIELD_TYPES[kind]
    return {
        "identifier": name, "doc": None, "__type": f"Array<{shown}>" if array else shown, "uid": uid,
        "type": internal, "isArray": array, "canBeNull": nullable, "arrayMinLength": None,
        "arrayMaxLength": None, "editorDisplayMode": "Hidden", "editorDisplayScale": 1,
        "editorDisplayPos": "Above", "editorLinkStyle": "StraightArrow", "editorDisplayColor": None,
        "editorAlwaysShow": False, "editorShowInWorld": True, "editorCutLongValues": True,
        "editorTextSuffix": None, "editorTextPrefix": None, "useForSmartColor": False, "exportToToc": False,
        "searchable": False, "min": None, "max": None, "regex": None, "acceptFileTypes": None,
        "defaultOverride": None, "textLanguageMode": None, "symmetricalRef": False, "autoChainRef": True,
        "allowOutOfLevelRef": True, "allowedRefs": "OnlySame", "allowedRefsEntityUid": None,
        "allowedRefTags": [], "tilesetUid": None,
    }


def _editor_value(kind: str, value: Any) -> Any:
    """A value as LDtk keeps it for its editor (`realEditorValues`)."""
    return None if value is None else {"id": EDITOR_VALUES[kind], "params": [value]}


def _field_value(definition: dict[str, Any], value: Any) -> dict[str, Any]:
    kind = next(k for k, (internal, _) in FIELD_TYPES.items() if internal == definition["type"])
    values = value if definition["isArray"] else [value]
    return {"__identifier": definition["identifier"], "__type": definition["__type"], "__value": value,
            "__tile": None, "defUid": definition["uid"],
            "realEditorValues": [_editor_value(kind, v) for v in values]}


def _entity_def(uid: int, cast: Cast, fields: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "identifier": cast.name, "uid": uid, "tags": [], "exportToToc": False, "allowOutOfBounds": False,
        "doc": None, "width": CELL, "height": CELL,
        "resizableX": not cast.discs, "resizableY": not cast.discs,
        "minWidth": None, "maxWidth": None, "minHeight": None, "maxHeight": None, "keepAspectRatio": False,
        "tileOpacity": 1, "fillOpacity": 0.8, "lineOpacity": 1, "hollow": False, "color": PIECE_COLOUR,
        "renderMode": "Ellipse" if cast.discs else "Rectangle", "showName": True, "tilesetId": None,
        "tileRenderMode": "FitInside", "tileRect": None, "uiTileRect": None, "nineSliceBorders": [],
        "maxCount": 0, "limitScope": "PerLevel", "limitBehavior": "MoveLastOne", "pivotX": 0, "pivotY": 0,
        "fieldDefs": fields,
    }


def _layer_def(uid: int, name: str, kind: str) -> dict[str, Any]:
    values = [{"value": v, "identifier": CELL_NAMES[v], "color": CELL_COLOURS[v], "tile": None, "groupUid": 0}
              for v in CELL_NAMES] if kind == "IntGrid" else []
    return {
        "__type": kind, "identifier": name, "type": kind, "uid": uid, "doc": None, "uiColor": None,
        "gridSize": CELL, "guideGridWid": 0, "guideGridHei": 0, "displayOpacity": 1, "inactiveOpacity": 1,
        "hideInList": False, "hideFieldsWhenInactive": False, "canSelectWhenInactive": True,
        "renderInWorldView": True, "pxOffsetX": 0, "pxOffsetY": 0, "parallaxFactorX": 0, "parallaxFactorY": 0,
        "parallaxScaling": True, "requiredTags": [], "excludedTags": [], "uiFilterTags": [],
        "useAsyncRender": False, "intGridValues": values, "intGridValuesGroups": [], "autoRuleGroups": [],
        "autoSourceLayerDefUid": None, "tilesetDefUid": None, "tilePivotX": 0, "tilePivotY": 0,
        "biomeFieldUid": None,
    }


def _layer_instance(name: str, kind: str, definition: int, level: int, stage: Stage, source: str,
                    entities: list[dict[str, Any]] | None = None, grid: list[int] | None = None,
                    ) -> dict[str, Any]:
    return {
        "__identifier": name, "__type": kind, "__cWid": stage.cols, "__cHei": stage.rows, "__gridSize": CELL,
        "__opacity": 1, "__pxTotalOffsetX": 0, "__pxTotalOffsetY": 0, "__tilesetDefUid": None,
        "__tilesetRelPath": None, "iid": identifier(source, stage.number, name), "levelId": level,
        "layerDefUid": definition, "pxOffsetX": 0, "pxOffsetY": 0, "visible": True, "optionalRules": [],
        "intGridCsv": grid or [], "autoLayerTiles": [], "seed": stage.number, "overrideTilesetUid": None,
        "gridTiles": [], "entityInstances": entities or [],
    }


def _entity(definition: dict[str, Any], piece: Piece, stage: Stage, world: tuple[int, int], source: str,
            ) -> dict[str, Any]:
    x, y = piece.left * CELL, piece.top * CELL
    values = [piece.letter] + ([] if len(definition["fieldDefs"]) == 1 else [piece.goal, piece.shape])
    return {
        "__identifier": definition["identifier"], "__grid": [piece.left, piece.top], "__pivot": [0, 0],
        "__tags": [], "__tile": None, "__smartColor": definition["color"],
        "__worldX": world[0] + x, "__worldY": world[1] + y,
        "iid": identifier(source, stage.number, "piece", piece.row, piece.col),
        "width": piece.width * CELL, "height": piece.height * CELL, "defUid": definition["uid"],
        "px": [x, y], "fieldInstances": [_field_value(d, v) for d, v in zip(definition["fieldDefs"], values)],
    }
