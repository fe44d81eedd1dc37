"""The workspace's editor endpoints: the full figures of a drawn layered position (`level`),
where a state of a distance table stands (`distance/position`), and the nearest good
variants of a position of any kind (`variants`), one edit away.

`curator.web.app.create_app` adds this router beside its own; errors are the app's one-line
JSON answers (422 for a position that is not legal here, saying why).
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request

from curator import catalogue
from curator.common.errors import SelectionError
from curator.distance.puzzle import state_text
from curator.kind import Search
from curator.picture import picture, state_picture, svg_text
from curator.web import models
from curator.web.work import layered_of, level_json, position_within_reach, work

router = APIRouter(prefix="/api", responses={
    404: {"model": models.Problem, "description": "No such folder."},
    422: {"model": models.Problem, "description": "A bad request, or a position that is not legal here: "
                                                  "the one line says why."},
    503: {"model": models.Problem, "description": "The request took longer than the time one may take."},
})


@router.post("/folders/{folder}/level", response_model=models.DrawnLevel)
def drawn_level(request: Request, folder: models.Whole, body: models.DrawnIn) -> dict[str, Any]:
    """Every figure of a position of layered results, as `curator solve` gives them: solvable,
    unique, all moves, solutions, first moves, difficulty, the player figures and one
    solution; with its picture. From the stored bits, or a search above the stored layers.
    The position is given as one entry per cell, or drawn like the board art."""
    with work(request, folder) as (entry, results, deadline):
        layered = layered_of(results, entry)
        given = body.position if body.position is not None else body.board
        if given is None or (body.position is not None and body.board is not None):
            raise SelectionError("give the position (one entry per cell) or the board (a drawing), "
                                 "one of them")
        position = position_within_reach(layered, given)
        level = layered.solve(position, progress=deadline.check)
        svg = svg_text(picture(layered.puzzle, position), standalone=False, id_prefix="drawn")
        return {**level_json(level), "goal": level.pieces == layered.puzzle.goal.pieces and level.solvable,
                "picture": svg}


def _editing(kind: Any) -> str | None:
    """How the editor gives a kind's positions: "pieces" (one entry per cell), "blocks" (a
    drawing), "states" (a state's line of text: kinds that list variants but play no levels
    in the workspace, the distance tables), or None: the kind has nothing to edit."""
    if kind.workspace is not None:
        return str(kind.workspace)
    return "states" if kind.variant_wants else None


@router.post("/folders/{folder}/distance/position", response_model=models.StateReport)
def state_position(request: Request, folder: models.Whole, body: models.StateIn) -> dict[str, Any]:
    """Where a state of a permutation puzzle stands: its distance to the solved state (null
    if the moves never reach it), one shortest solution, its picture, and every legal move
    with the state and distance it leads to. 422 saying why for a text that is no state."""
    with work(request, folder) as (entry, results, deadline):
        kind = catalogue.kind_for(results)
        if _editing(kind) != "states":
            raise SelectionError(f"{entry.label} holds {kind.held}, not a distance table")
        puzzle = results.puzzle
        state = puzzle.parse(body.board, "board")
        level = results.solve(state)
        moves = []
        for name in puzzle.move_names:
            deadline.check()
            try:
                after = puzzle.apply(state, name)
            except ValueError:
                continue  # not legal here (the 8-puzzle's blank at an edge)
            reached = results.show(puzzle.rank(after))
            closer = level.distance is not None and reached.distance == level.distance - 1
            moves.append({"name": name, "board": _state_line(puzzle, after), "distance": reached.distance,
                          "closer": closer})
        return {**level.to_json(), "solvable": level.solvable, "goal": level.distance == 0,
                "unique": None, "board": _state_line(puzzle, state), "moves": moves,
                "picture": _state_svg(puzzle, state, "drawn")}


def _state_line(puzzle: Any, state: Any) -> str:
    return state_text(puzzle.describe(state))


def _state_svg(puzzle: Any, state: Any, prefix: str) -> str:
    return svg_text(state_picture(puzzle, state), standalone=False, id_prefix=prefix)


@router.post("/folders/{folder}/variants", response_model=models.VariantList)
def variants(request: Request, folder: models.Whole, body: models.VariantsIn) -> dict[str, Any]:
    """The nearest good variants of a position: the levels one edit away (a piece added,
    removed or moved; sliding blocks: a piece moved anywhere it fits; Sokoban: a box or the
    keeper moved to another free cell; distance tables: two pieces swapped, or twisted) that
    are uniquely solvable, solvable, or harder than the position, hardest first, with their
    figures. Layered positions are given as `position`, sliding-block and Sokoban ones as a
    drawing (`board`), states of a distance table as their line of text (`board`)."""
    with work(request, folder) as (entry, results, deadline):
        kind = catalogue.kind_for(results)
        way = _editing(kind)
        if not kind.variant_wants or way is None:
            raise SelectionError(f"{entry.label} holds {kind.held}: the workspace lists no variants of them")
        if body.want not in kind.variant_wants:
            raise SelectionError(f"want: {kind.held} list {', '.join(kind.variant_wants)} variants")
        if way == "pieces":
            if body.position is None:
                raise SelectionError("position: give the position, one entry per cell")
            given: Any = position_within_reach(layered_of(results, entry), body.position)
        else:
            if body.board is None:
                wanted = "a drawing, rows joined by '/'" if way == "blocks" else "'SET p0 p1 ...; SET ...'"
                raise SelectionError(f"board: give the position as {wanted}")
            if way == "blocks":
                given = results.position(body.board)
            else:
                given = results.puzzle.parse(body.board, "board")
        found = kind.variants(results, given, body.want, body.limit, Search(progress=deadline.check),
                              deadline.check)
        return {"want": found.want, "considered": found.considered, "matched": found.matched,
                "position": _item(results, way, found.base),
                "variants": [{**_item(results, way, v.item), "edit": v.edit.to_json()}
                             for v in found.variants]}


def _item(results: Any, workspace: str, item: Any) -> dict[str, Any]:
    """An item as the workspace shows it: layered levels with their position (pictures come
    from `picture`), sliding-block levels with their picture, states of a distance table with
    their picture and their line of text (`board`)."""
    if workspace == "pieces":
        return level_json(item)
    if workspace == "states":
        return {**item.to_json(), "board": _state_line(results.puzzle, item.position),
                "picture": _state_svg(results.puzzle, item.position, f"variant{item.rank}")}
    drawn = svg_text(item.picture(), standalone=False, id_prefix=f"variant{item.rank}")
    return {**item.to_json(), "picture": drawn}
