"""The workspace's web app: a JSON API under /api/ over the results folders, and the page.

`create_app(directories)` builds the FastAPI app that `curator serve` runs. The API is thin
over `curator.open`'s results; every error is JSON {"detail": "one line"} that names folders
by index and puzzle, never by path: 404 for an unknown folder, 422 for a bad request, 421,
403 and 415 for requests from elsewhere (see `curator.web.guard`), 503 for a request over
its time, a folder busy for that long or a workspace database locked by another program, 500
for damaged stored results.
"""

from __future__ import annotations

import io
import math
import re
import tempfile
import zipfile
from collections.abc import Sequence
from pathlib import Path
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, FastAPI, HTTPException, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException

from curator import catalogue
from curator.arrange import Pack, PackCurve, Slot
from curator.common.errors import DamagedResults, PuzzleError, SelectionError, StoreError, one_line
from curator.common.ranking import MAX_CELLS
from curator.export import ExportError, write
from curator.goals import GoalLevel, GoalResults
from curator.layered.level import Level
from curator.layered.results import LayeredResults
from curator.options import parse_cells, parse_counts, parse_range
from curator.picture import picture, svg_text, universe_picture
from curator.version import __version__
from curator.web import database, models
from curator.web.editor import router as editor
from curator.web.folders import Busy, Entry, Folders
from curator.web.guard import Guard, hosts_for
from curator.web.work import (
    TooLong,
    layered_of,
    level_json,
    played,
    position_within_reach,
    sliding_of,
    work,
)
from curator.workspace_db import WorkspaceDB

STATIC = Path(__file__).parent / "static"
PACK_TYPES = {"json": "application/json", "html": "text/html; charset=utf-8",
              "csv": "text/csv; charset=utf-8", "zip": "application/zip"}
TIME_LIMIT = 20.0
"""Seconds one request may work on a folder (or wait for it) before it answers 503."""

router = APIRouter(prefix="/api", responses={
    404: {"model": models.Problem, "description": "No such folder."},
    422: {"model": models.Problem, "description": "A bad request: the one line says what is wrong."},
    500: {"model": models.Problem, "description": "The folder's stored results are damaged."},
    503: {"model": models.Problem, "description": "The request took longer than the time one may "
                                                  "take, or the folder was busy that long."},
})


def create_app(directories: Sequence[str | Path], host: str = "127.0.0.1", allow_hosts: Sequence[str] = (),
               time_limit: float = TIME_LIMIT, db: WorkspaceDB | None = None) -> FastAPI:
    """The app serving `directories` (results folders); StoreError if one holds none.

    It answers requests whose `Host` names `host`, the address it listens on (or one of
    `allow_hosts`), see `curator.web.guard`; a request works on a folder for at most
    `time_limit` seconds. Packs, notes and playtests are kept in `db` (None: a database in
    memory, gone with the app).
    """
    app = FastAPI(title="curator workspace", version=__version__,
                  description="Look at levels, play them, and assemble packs from stored results.",
                  dependencies=[Depends(_known_query)])
    app.state.folders = Folders(directories)
    app.state.time_limit = time_limit
    app.include_router(router)
    database.install(app, db)
    app.include_router(editor)
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    app.add_api_route("/", _page, include_in_schema=False)
    app.add_middleware(Guard, hosts=hosts_for(host, allow_hosts))
    _error_handlers(app)
    return app


def _known_query(request: Request) -> None:
    """422 naming a query parameter the endpoint does not take, as its JSON bodies refuse an
    unknown key (`/picture?size=200` would otherwise draw the default size without a word).
    The names an endpoint takes are those its OpenAPI document lists."""
    route = request.scope.get("route")
    found = getattr(request.app.state, "query_names", None)
    if found is None:
        found = request.app.state.query_names = {
            (path, method.upper()): {p["name"] for p in op.get("parameters", []) if p["in"] == "query"}
            for path, item in request.app.openapi()["paths"].items() for method, op in item.items()}
    known = found.get((getattr(route, "path", None), request.method))
    unknown = sorted(set(request.query_params) - known) if known is not None else []
    if unknown:
        raise HTTPException(422, f"query.{unknown[0]}: Extra inputs are not permitted")


def _page() -> FileResponse:
    return FileResponse(STATIC / "index.html")


def _answer(request: Request, status: int, text: str) -> JSONResponse:
    """The one-line JSON error, with the paths of folders written as their labels."""
    folders: Folders = request.app.state.folders
    return JSONResponse({"detail": one_line(folders.public(text))}, status_code=status)


def _error_handlers(app: FastAPI) -> None:
    def problem(status: int):
        return lambda request, exc: _answer(request, status, str(exc))

    invalid: tuple[type[Exception], ...] = (SelectionError, PuzzleError, ExportError)
    for kind in invalid:
        app.add_exception_handler(kind, problem(422))
    app.add_exception_handler(StoreError, problem(500))
    # Starlette types a handler as taking any exception; it passes this one only its own kind.
    app.add_exception_handler(DamagedResults, _damaged)  # type: ignore[arg-type]
    app.add_exception_handler(OSError, lambda request, exc: _answer(
        request, 500, f"{exc.filename}: {exc.strerror}" if exc.filename else str(exc.strerror or exc)))
    for slow in (Busy, TooLong):
        app.add_exception_handler(slow, problem(503))
    app.add_exception_handler(MemoryError, lambda request, exc: _answer(request, 503, "out of memory"))
    # Starlette types a handler as taking any exception; it passes this one only its own kind.
    app.add_exception_handler(RequestValidationError, _invalid)  # type: ignore[arg-type]
    # Starlette types a handler as taking any exception; it passes this one only its own kind.
    app.add_exception_handler(StarletteHTTPException, _http_problem)  # type: ignore[arg-type]


def _http_problem(request: Request, exc: StarletteHTTPException) -> JSONResponse:
    """An HTTP error as one line. FastAPI answers a body it cannot decode at all (bytes that
    are not UTF-8, nesting too deep to parse) with a bare 400; that is a body that is not JSON,
    422 like any other."""
    cause = exc.__cause__
    if exc.status_code == 400 and isinstance(cause, ValueError | RecursionError):
        why = ("not UTF-8 text" if isinstance(cause, UnicodeDecodeError)
               else "nested too deeply" if isinstance(cause, RecursionError) else str(cause))
        return _answer(request, 422, f"body (not JSON): {why}")
    return _answer(request, exc.status_code, str(exc.detail))


def _damaged(request: Request, exc: DamagedResults) -> JSONResponse:
    """Damaged stored results: what is wrong, and that the folder must be computed again
    (which this app does not do; the command line's remedy names its own commands)."""
    return _answer(request, 500, f"{exc.problem}; the folder's results must be computed again")


def _invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
    """FastAPI's list of validation errors as one line: where, then what."""
    first = exc.errors()[0]
    where = ".".join(str(part) for part in first.get("loc", ()) if part != "body")
    if first.get("type") == "json_invalid":
        where = "body (not JSON)"
    return _answer(request, 422, f"{where or 'body'}: {first.get('msg', 'invalid')}")


# -- folders --------------------------------------------------------------------------------


def _folder(entry: Entry, results: Any) -> dict[str, Any]:
    kind = catalogue.kind_for(results)
    return {"id": entry.id, "name": entry.name, "kind": results.kind, "held": kind.held,
            "workspace": kind.workspace, "puzzle": results.puzzle.name, "title": results.puzzle.title}


@router.get("/folders", response_model=list[models.Folder])
async def list_folders(request: Request) -> list[dict[str, Any]]:
    """The results folders given on the command line (as they were when the server started:
    this never waits for a folder's work)."""
    folders: Folders = request.app.state.folders
    return [{"id": e.id, "name": e.name, "kind": e.kind, "held": kind.held, "workspace": kind.workspace,
             "puzzle": e.puzzle, "title": e.title}
            for e in folders.entries for kind in [catalogue.kind_named(e.kind)]]


@router.get("/folders/{folder}", response_model=models.FolderDetail)
def folder_detail(request: Request, folder: models.Whole) -> dict[str, Any]:
    """A folder's table (what `curator info` shows): layers of layered results, with the
    board; positions per distance of a distance table; positions, unique and all-moves ones
    per distance of goal tables (sliding blocks, Sokoban), with their counts and what it
    takes to draw and play them."""
    with work(request, folder) as (entry, results, _):
        return {**_folder(entry, results), "complete": results.complete,
                **catalogue.kind_for(results).detail(results)}


# -- levels ---------------------------------------------------------------------------------


def _filters(results: LayeredResults, query: models.LevelFilters) -> dict[str, Any]:
    """The API keywords of a query's filters (text options parsed as the command line does)."""
    keywords: dict[str, Any] = {name: getattr(query, name) for name in ("solvable", "unique", "all_moves")
                                if getattr(query, name) is not None}
    if query.pieces is not None:
        keywords["pieces"] = parse_range(query.pieces, "pieces")
    if query.counts is not None:
        keywords["counts"] = parse_counts(query.counts, results.puzzle, "counts")
    for name in ("must_include", "must_exclude"):
        if getattr(query, name) is not None:
            keywords[name] = parse_cells(getattr(query, name), name)
    return keywords


def _keywords(results: LayeredResults, query: models.LevelQuery) -> dict[str, Any]:
    """The API keywords of a level query: its filters and how to choose among the matches."""
    keywords = _filters(results, query)
    if query.canonical:
        keywords["canonical"] = True
    if query.difficulty is not None:
        keywords["difficulty"] = parse_range(query.difficulty, "difficulty", "3..7.5", kind=float)
    return {**keywords, "sample": query.sample, "seed": query.seed, "sort": query.sort, "limit": query.limit}


@router.get("/folders/{folder}/levels", response_model=models.Selection)
def levels(request: Request, folder: models.Whole, query: Annotated[models.LevelQuery, Query()]
           ) -> dict[str, Any]:
    """Levels chosen as `curator select` chooses them: filter, keep canonical ones, sample,
    rate, sort, limit. At most 200 positions get metrics in one request."""
    with work(request, folder) as (entry, results, deadline):
        layered = layered_of(results, entry)
        chosen = layered.selection(**_keywords(layered, query), cap=models.MAX_LEVELS,
                                   progress=deadline.check)
        return {"puzzle": layered.puzzle.name, "matched": chosen.matched,
                "levels": [level_json(level) for level in chosen.levels]}


@router.post("/folders/{folder}/arrange", response_model=models.Arrangement)
def arrange(request: Request, folder: models.Whole, body: models.ArrangeIn) -> dict[str, Any]:
    """A pack arranged as `curator pack` arranges it: `pool` levels matching the filters are
    drawn (one per class) and rated, and `size` of them follow the curve from easy to hard,
    each with the difficulty its slot aimed at. A POST with a JSON body (it computes): 503
    when rating the pool takes longer than one request may."""
    with work(request, folder) as (entry, results, deadline):
        layered = layered_of(results, entry)
        pack = layered.pack(body.size, body.curve.value, pool=body.pool, seed=body.seed,
                            canonical=body.canonical, progress=deadline.check, **_filters(layered, body))
        return {"puzzle": layered.puzzle.name, "curve": pack.curve, "pool": pack.pool,
                "levels": [{**level_json(slot.level), "target": slot.target} for slot in pack.slots]}


# -- positions and play ---------------------------------------------------------------------


def _report(results: LayeredResults, position: tuple[int, ...]) -> dict[str, Any]:
    status = results.status(position)
    moves = [{"from": o.move[0], "to": o.move[1], "safe": o.solvable} for o in results.moves(position)]
    return {"position": list(position), "pieces": status.pieces, "goal": status.goal,
            "solvable": status.solvable, "unique": status.unique, "all_moves": status.all_moves,
            "source": "stored" if status.stored else "search", "moves": moves,
            "picture": svg_text(picture(results.puzzle, position), standalone=False, id_prefix="board")}


@router.post("/folders/{folder}/position", response_model=models.PositionReport)
def position_report(request: Request, folder: models.Whole, body: models.PositionIn) -> dict[str, Any]:
    """Where a position stands: goal reached, solvable (stored bits, or a search above the
    stored layers), and every legal move with whether it keeps the position solvable."""
    with work(request, folder) as (entry, results, deadline):
        layered = layered_of(results, entry)
        return _report(layered, position_within_reach(layered, body.position))


@router.post("/folders/{folder}/move", response_model=models.PositionReport)
def play_move(request: Request, folder: models.Whole, body: models.MoveIn) -> dict[str, Any]:
    """Play one move: the report of the position it leads to; 422 if it is not legal."""
    with work(request, folder) as (entry, results, deadline):
        layered = layered_of(results, entry)
        position = position_within_reach(layered, body.position)
        wanted = (body.move.from_, body.move.to)
        for cell in wanted:
            if cell not in layered.puzzle.board.index:
                raise SelectionError(f"move: cell {cell[0]},{cell[1]} is not on the board")
        after = {o.position for o in layered.moves(position) if o.move == wanted}
        if len(after) != 1:
            why = "is not a legal move here" if not after else "stands for more than one move here"
            raise SelectionError(f"move {wanted[0][0]},{wanted[0][1]}>{wanted[1][0]},{wanted[1][1]} {why}")
        return _report(layered, after.pop())


@router.get("/folders/{folder}/picture", response_class=Response,
            responses={200: {"content": {"image/svg+xml": {}}, "description": "The position's picture."}})
def position_picture(
    request: Request, folder: models.Whole,
    position: Annotated[str, Query(pattern=rf"^\d{{1,2}}(,\d{{1,2}}){{0,{MAX_CELLS - 1}}}$",
                                   description="One entry per cell, comma-separated: 0 empty, t type t.")],
) -> Response:
    """The picture of a position as SVG (the drawing the exports use)."""
    with work(request, folder) as (entry, results, deadline):
        layered = layered_of(results, entry)
        board = layered.position([int(v) for v in position.split(",")])
        svg = svg_text(picture(layered.puzzle, board))
    return Response(svg, media_type="image/svg+xml")


# -- packs ----------------------------------------------------------------------------------


@router.post("/folders/{folder}/pack", response_class=Response, responses={200: {"content": {
    "application/json": {}, "text/html": {}}, "description": "The pack as a file to download."}})
def pack(request: Request, folder: models.Whole, body: models.PackIn,
         format: Literal["json", "html"] = "json") -> Response:  # noqa: A002 - the export's own word
    """The levels of these positions, in order, as a level pack (docs/level-pack.md) or an
    HTML gallery, to download; with the curve they follow if the pack was arranged."""
    with work(request, folder) as (entry, results, deadline):
        layered = layered_of(results, entry)
        chosen = deadline.each(lambda board: layered.solve(position_within_reach(layered, board)),
                               body.positions)
        curve = _curve(body.curve, chosen)
        with tempfile.TemporaryDirectory(prefix="curator-pack-") as scratch:
            target = Path(scratch) / f"pack.{format}"
            write(format, layered.puzzle, chosen, target, curve=curve)
            data = target.read_bytes()
        return _download(data, layered.puzzle.name, format)


def _curve(curve: models.CurveIn | None, levels: Sequence[Level]) -> PackCurve | None:
    """The curve record of an arranged pack: one target per level, and the levels'
    difficulties, which must be finite (rated levels) to be recorded."""
    if curve is None:
        return None
    if len(curve.targets) != len(levels):
        raise SelectionError(f"curve: {len(curve.targets)} targets for {len(levels)} levels (one per level)")
    for number, level in enumerate(levels, start=1):
        if not math.isfinite(level.difficulty):
            raise SelectionError(f"curve: level {number} has no difficulty (it is not solvable), "
                                 "so it cannot stand in an arranged pack")
    return PackCurve(curve.name.value, curve.pool, tuple(curve.targets),
                     tuple(level.difficulty for level in levels))


# -- goal tables (the "blocks" workspace: sliding blocks, Sokoban) ---------------------------


def _sliding_level(level: GoalLevel) -> dict[str, Any]:
    picture_svg = svg_text(level.picture(), standalone=False, id_prefix=f"level{level.rank}")
    return {**level.to_json(), "picture": picture_svg}


@router.get("/folders/{folder}/sliding/levels", response_model=models.SlidingSelection)
def sliding_levels(request: Request, folder: models.Whole,
                   query: Annotated[models.SlidingQuery, Query()]) -> dict[str, Any]:
    """Levels chosen as `curator select` chooses them on goal tables: solvable, unsolved
    positions passing the filters, farthest from the goal first, then by rank;
    sampled, then limited. At most 200 levels in one request."""
    with work(request, folder) as (entry, results, deadline):
        sliding = sliding_of(results, entry)
        keywords: dict[str, Any] = {name: getattr(query, name) for name in ("unique", "all_moves", "hardest")}
        for name in ("distance", "cluster"):
            if getattr(query, name) is not None:
                keywords[name] = parse_range(getattr(query, name), name, "20..40")
        chosen = sliding.selection(**keywords, sample=query.sample, seed=query.seed, limit=query.limit,
                                   cap=models.MAX_LEVELS)
        return {"puzzle": sliding.puzzle.name, "matched": chosen.matched,
                "levels": [_sliding_level(level) for level in chosen.levels]}


def _sliding_report(results: GoalResults, position: Any) -> dict[str, Any]:
    level = results.solve(position)
    moves = [{"piece": m.piece, "from": m.source, "to": m.target, "text": m.text, "cost": m.cost,
              "distance": m.distance, "closer": m.closer, "solvable": m.solvable,
              **({"direction": m.direction} if m.direction is not None else {})}
             for m in results.moves(position)]
    return {**level.to_json(), "goal": results.puzzle.is_goal(position), "solvable": level.solvable,
            "moves": moves, "picture": svg_text(level.picture(), standalone=False, id_prefix="board")}


@router.post("/folders/{folder}/sliding/position", response_model=models.SlidingReport,
             response_model_exclude_unset=True)
def sliding_position(request: Request, folder: models.Whole, body: models.BoardIn) -> dict[str, Any]:
    """Where a drawn position stands: its distance to the goal (null if it cannot be
    solved), flags, connected set, a shortest solution, whether the goal is reached, and
    every legal move with the distance it leads to."""
    with work(request, folder) as (entry, results, deadline):
        sliding = sliding_of(results, entry)
        return _sliding_report(sliding, sliding.position(body.board))


@router.post("/folders/{folder}/sliding/move", response_model=models.SlidingReport,
             response_model_exclude_unset=True)
def sliding_move(request: Request, folder: models.Whole, body: models.BoardMoveIn) -> dict[str, Any]:
    """Play one move (the cell of what moves before and after: a piece's anchor, the Sokoban
    keeper), or the way a tilt puzzle's board tilts: the report of the position it leads to;
    422 if it is not legal."""
    with work(request, folder) as (entry, results, deadline):
        sliding = sliding_of(results, entry)
        if (body.move is None) == (body.tilt is None):
            raise SelectionError("give the move (from, to) or the tilt (up, right, down, left), one of them")
        if body.tilt is not None:
            move = sliding.tilt(body.board, body.tilt)
        elif body.move is not None:
            move = sliding.move(body.board, body.move.from_, body.move.to)
        return _sliding_report(sliding, move.position)


@router.post("/folders/{folder}/sliding/pack", response_class=Response, responses={200: {"content": {
    "application/json": {}, "text/html": {}}, "description": "The pack as a file to download."}})
def sliding_pack(request: Request, folder: models.Whole, body: models.SlidingPackIn,
                 format: Literal["json", "html"] = "json") -> Response:  # noqa: A002 - the export's own word
    """The levels of these ranks, in order, as the kind's level pack (curator-sliding-pack/1,
    curator-sokoban-pack/1, ...; docs/level-pack.md) or an HTML gallery, to download."""
    with work(request, folder) as (entry, results, deadline):
        sliding = sliding_of(results, entry)
        chosen = deadline.each(sliding.show, body.ranks)
        with tempfile.TemporaryDirectory(prefix="curator-pack-") as scratch:
            (target,) = sliding.export(chosen, Path(scratch) / f"pack.{format}", format)
            data = target.read_bytes()
        return _download(data, sliding.puzzle.name, format)


# -- universe tables (the "universe" workspace: every puzzle of every piece set) -------------


def _universe(results: Any, entry: Entry) -> Any:
    return played(results, entry, "universe")


def _universe_filters(results: Any, filters: models.UniverseFilters) -> dict[str, Any]:
    """The filter keywords of a universe listing or pack (ranges and counts parsed as the
    command line does)."""
    keywords: dict[str, Any] = {name: getattr(filters, name) for name in ("solvable", "minimal", "unique")}
    ranges = (("distance", "5..7"), ("cluster", "10..500"), ("pieces", "5..9"), ("walls", "0..1"))
    for name, example in ranges:
        if getattr(filters, name) is not None:
            keywords[name] = parse_range(getattr(filters, name), name, example)
    if filters.counts is not None:
        keywords["counts"] = parse_counts(filters.counts, results.puzzle, "counts")
    return {**keywords, "hardest": filters.hardest}


def _universe_keywords(results: Any, query: models.UniverseQuery) -> dict[str, Any]:
    """The API keywords of a universe query; at most MAX_LEVELS puzzles are listed."""
    return {**_universe_filters(results, query), "sort": query.sort, "sample": query.sample,
            "seed": query.seed, "limit": query.limit or models.MAX_LEVELS}


def _rows(board: str) -> list[str]:
    return board.split("/")


def _universe_puzzle(results: Any, level: Any) -> dict[str, Any]:
    svg = svg_text(results.picture(level.board), standalone=False, id_prefix=f"set{level.rank}")
    return {**level.to_json(), "board": _rows(level.board), "first": _rows(level.first), "picture": svg}


@router.get("/folders/{folder}/universe/puzzles", response_model=models.UniverseSelection)
def universe_puzzles(request: Request, folder: models.Whole,
                     query: Annotated[models.UniverseQuery, Query()]) -> dict[str, Any]:
    """Puzzles chosen as `curator select` chooses them on universe tables: one per connected
    set (its farthest position), passing the filters, farthest first unless `sort` says
    otherwise; sampled, then limited. At most 200 puzzles in one request."""
    with work(request, folder) as (entry, results, deadline):
        universe = _universe(results, entry)
        chosen, matched = universe.selection(_universe_keywords(universe, query))
        return {"puzzle": universe.puzzle.name, "matched": matched,
                "puzzles": [_universe_puzzle(universe, level) for level in chosen]}


def _universe_report(results: Any, report: Any) -> dict[str, Any]:
    data = report.to_json()
    svg = svg_text(universe_picture(results.puzzle, report.position), standalone=False, id_prefix="board")
    return {**data, "board": _rows(data["board"]), "picture": svg,
            "moves": [{**move, "board": _rows(move["board"])} for move in data["moves"]]}


@router.post("/folders/{folder}/universe/position", response_model=models.UniverseReportOut)
def universe_position(request: Request, folder: models.Whole, body: models.BoardIn) -> dict[str, Any]:
    """Where a drawn position of the universe stands: its distance to the goal (null if its
    set cannot be solved), its set's size and farthest distance, one shortest solution, and
    every legal move with the distance it leads to. The distances are measured by exploring
    the position's connected set, which the folder keeps until a position of another set is
    asked about. 422 saying why for a drawing that is no position of the universe."""
    with work(request, folder) as (entry, results, deadline):
        universe = _universe(results, entry)
        return _universe_report(universe, universe.play(body.board))


@router.post("/folders/{folder}/universe/move", response_model=models.UniverseReportOut)
def universe_move(request: Request, folder: models.Whole, body: models.UniverseMoveIn) -> dict[str, Any]:
    """Play one move (a vehicle's first cell before and after): the report of the position it
    leads to; 422 if it is not legal."""
    with work(request, folder) as (entry, results, deadline):
        universe = _universe(results, entry)
        return _universe_report(universe, universe.move(body.board, body.move.from_, body.move.to))


@router.post("/folders/{folder}/universe/arrange", response_model=models.UniverseArrangement)
def universe_arrange(request: Request, folder: models.Whole, body: models.UniverseArrangeIn
                     ) -> dict[str, Any]:
    """A pack arranged as `curator pack` arranges it on universe tables: `pool` of the sets
    matching the filters that can be solved in a move or more are drawn (`seed`), and `size`
    of them (one puzzle per set, its farthest position) follow the curve of distances from
    short to long, each with the distance its slot aimed at; with the variety rule
    `piece-sets`, from as many piece sets as the curve allows. A POST with a JSON body (it
    computes)."""
    with work(request, folder) as (entry, results, deadline):
        universe = _universe(results, entry)
        variety = None if body.variety == "none" else (body.variety,)
        pack = universe.pack(body.size, body.curve.value, pool=body.pool, seed=body.seed, variety=variety,
                             **_universe_filters(universe, body))
        puzzles = deadline.each(
            lambda slot: {**_universe_puzzle(universe, slot.level), "target": slot.target}, pack.slots)
        return {"puzzle": universe.puzzle.name, "curve": pack.curve, "pool": pack.pool, "puzzles": puzzles}


UNIVERSE_PACK_TYPES = {"json": "json", "csv": "csv", "toml": "zip"}
"""The formats a universe pack downloads in, and the file each comes as (toml writes one puzzle
file per puzzle: they come in one zip)."""


@router.post("/folders/{folder}/universe/pack", response_class=Response, responses={200: {"content": {
    "application/json": {}, "text/csv": {}, "application/zip": {}},
    "description": "The pack as a file to download."}})
def universe_pack(request: Request, folder: models.Whole, body: models.UniversePackIn,
                  format: Literal["json", "csv", "toml"] = "json") -> Response:  # noqa: A002 - the export's own word
    """The puzzles of these stored sets, in order, as `curator pack` writes them: json
    (curator-universe-puzzles/1) or csv, with the curve they follow if the pack was arranged,
    or toml, one sliding-block puzzle file per puzzle (puzzle-0001.toml, ...) in a zip."""
    with work(request, folder) as (entry, results, deadline):
        universe = _universe(results, entry)
        chosen = deadline.each(universe.level, body.ranks)
        arranged = _universe_curve(body.curve, chosen)
        levels: Sequence[Any] = chosen if arranged is None else arranged
        with tempfile.TemporaryDirectory(prefix="curator-pack-") as scratch:
            target = Path(scratch) / ("pack" if format == "toml" else f"pack.{format}")
            written = universe.export(levels, target, format)
            data = _zipped(written) if format == "toml" else written[0].read_bytes()
        return _download(data, universe.puzzle.name, UNIVERSE_PACK_TYPES[format])


def _universe_curve(curve: models.CurveIn | None, levels: Sequence[Any]) -> Pack | None:
    """The puzzles as the pack they were arranged into: one target per puzzle, each puzzle's
    distance what its slot achieved (a puzzle that cannot be solved has none)."""
    if curve is None:
        return None
    if len(curve.targets) != len(levels):
        raise SelectionError(f"curve: {len(curve.targets)} targets for {len(levels)} puzzles "
                             "(one per puzzle)")
    for number, level in enumerate(levels, start=1):
        if level.distance is None:
            raise SelectionError(f"curve: puzzle {number} (set {level.rank}) cannot be solved, so it cannot "
                                 "stand in an arranged pack")
    slots = tuple(Slot(target, level, float(level.distance)) for target, level in zip(curve.targets, levels))
    return Pack(curve.name.value, curve.pool, slots)


def _zipped(files: Sequence[Path]) -> bytes:
    """Files as one zip archive, each under its own name."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in files:
            archive.write(path, path.name)
    return buffer.getvalue()


def _download(data: bytes, puzzle: str, suffix: str) -> Response:
    """A pack's bytes as a download named after the puzzle."""
    name = re.sub(r"[^A-Za-z0-9._-]+", "-", puzzle).strip("-") or "levels"
    disposition = f'attachment; filename="{name}-pack.{suffix}"'
    return Response(data, media_type=PACK_TYPES[suffix], headers={"Content-Disposition": disposition})
