"""The workspace's editor endpoints: the full figures of a drawn layered position (`level`),
and the nearest good variants of a position of any kind (`variants`), one edit away.

`curator.web.app.create_app` adds this router beside its own; errors are the app's one-line
JSON answers (422 for a position that is not legal here, saying why).
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request

from curator import catalogue
from curator.common.errors import SelectionError
from curator.kind import Search
from curator.picture import picture, svg_text
from curator.web import models
from curator.web.app import _layered, _level, _position, _work

router = APIRouter(prefix="/api", responses={
    404: {"model": models.Problem, "description": "No such folder."},
    422: {"model": models.Problem, "description": "A bad request, or a position that is not legal here: "
                                                  "the one line says why."},
    503: {"model": models.Problem, "description": "The request took longer than the time one may take."},
})


@router.post("/folders/{folder}/level", response_model=models.DrawnLevel)
def drawn_level(request: Request, folder: int, body: models.DrawnIn) -> dict[str, Any]:
    """Every figure of a position of layered results, as `curator solve` gives them: solvable,
    unique, all moves, solutions, first moves, difficulty, the player figures and one
    solution; with its picture. From the stored bits, or a search above the stored layers.
    The position is given as one entry per cell, or drawn like the board art."""
    with _work(request, folder) as (entry, results, deadline):
        layered = _layered(results, entry)
        given = body.position if body.position is not None else body.board
        if given is None or (body.position is not None and body.board is not None):
            raise SelectionError("give the position (one entry per cell) or the board (a drawing), "
                                 "one of them")
        position = _position(layered, given)
        level = layered.solve(position, progress=deadline.check)
        svg = svg_text(picture(layered.puzzle, position), standalone=False, id_prefix="drawn")
        return {**_level(level), "goal": level.pieces == layered.puzzle.goal.pieces and level.solvable,
                "picture": svg}


@router.post("/folders/{folder}/variants", response_model=models.VariantList)
def variants(request: Request, folder: int, body: models.VariantsIn) -> dict[str, Any]:
    """The nearest good variants of a position: the levels one edit away (a piece added,
    removed or moved; sliding blocks: a piece moved anywhere it fits) that are uniquely
    solvable, solvable, or harder than the position, hardest first, with their figures.
    Layered positions are given as `position`, sliding-block ones as a drawing (`board`)."""
    with _work(request, folder) as (entry, results, deadline):
        kind = catalogue.kind_for(results)
        if not kind.variant_wants or kind.workspace is None:
            raise SelectionError(f"{entry.label} holds {kind.held}: the workspace lists no variants of them")
        if body.want not in kind.variant_wants:
            raise SelectionError(f"want: {kind.held} list {', '.join(kind.variant_wants)} variants")
        if kind.workspace == "pieces":
            if body.position is None:
                raise SelectionError("position: give the position, one entry per cell")
            given: Any = _position(_layered(results, entry), body.position)
        else:
            if body.board is None:
                raise SelectionError("board: give the position as a drawing, rows joined by '/'")
            given = results.position(body.board)
        found = kind.variants(results, given, body.want, body.limit, Search(progress=deadline.check),
                              deadline.check)
        return {"want": found.want, "considered": found.considered, "matched": found.matched,
                "position": _item(results, kind.workspace, found.base),
                "variants": [{**_item(results, kind.workspace, v.item), "edit": v.edit.to_json()}
                             for v in found.variants]}


def _item(results: Any, workspace: str, item: Any) -> dict[str, Any]:
    """An item as the workspace shows it: layered levels with their position (pictures come
    from `picture`), sliding-block levels with their picture."""
    if workspace == "pieces":
        return _level(item)
    drawn = svg_text(item.picture(), standalone=False, id_prefix=f"variant{item.rank}")
    return {**item.to_json(), "picture": drawn}
