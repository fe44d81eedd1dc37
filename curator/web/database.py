"""The workspace's lasting state over HTTP: named packs, notes and tags, playtests.

Endpoints under /api/ over a `curator.workspace_db.WorkspaceDB`. Levels belong to a puzzle
file (its name and sha256, from a results folder's manifest), so a pack outlives the folder
it was built from; one whose puzzle no served folder holds is listed with the problem.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

from fastapi import APIRouter, FastAPI, HTTPException, Request
from fastapi import Path as InPath
from fastapi.responses import JSONResponse

from curator import catalogue
from curator.common.errors import SearchTooLarge, SelectionError, StoreError, one_line
from curator.common.files import MANIFEST, read_manifest
from curator.web import database_models as models
from curator.web.folders import Entry, Folders
from curator.web.models import Whole
from curator.workspace_db import (
    NoSuchPack,
    Pack,
    PackLevel,
    Play,
    PuzzleKey,
    WorkspaceBusy,
    WorkspaceDB,
    WorkspaceError,
)

router = APIRouter(prefix="/api", tags=["workspace database"], responses={
    404: {"description": "No such folder or pack."},
    422: {"description": "A bad request: the one line says what is wrong."},
    503: {"description": "Another program held the database's write lock too long: nothing was "
                         "written; send the change again."},
})


def install(app: FastAPI, db: WorkspaceDB | None) -> None:
    """Serve the database's endpoints from `app` (a database in memory if `db` is None)."""
    app.state.db = WorkspaceDB(None) if db is None else db
    app.include_router(router)
    for kind, status in ((NoSuchPack, 404), (WorkspaceError, 422), (WorkspaceBusy, 503)):
        app.add_exception_handler(kind, _problem(status))


def _problem(status: int) -> Any:
    def answer(request: Request, exc: Exception) -> JSONResponse:
        folders: Folders = request.app.state.folders
        return JSONResponse({"detail": one_line(folders.public(str(exc)))}, status_code=status)
    return answer


def _db(request: Request) -> WorkspaceDB:
    db: WorkspaceDB = request.app.state.db
    return db


def puzzle_key(directory: Path) -> PuzzleKey:
    """The puzzle of a results folder, as its manifest records it; StoreError if the
    manifest cannot be read."""
    manifest = read_manifest(Path(directory) / MANIFEST)
    return PuzzleKey(str(manifest.get("puzzle", "")), str(manifest.get("puzzle_sha256", "")))


@dataclass(frozen=True)
class _Served:
    """A served folder whose levels the workspace keeps, with its puzzle as its manifest says
    now; `key` None if the manifest cannot be read now, `problem` saying why."""

    entry: Entry
    key: PuzzleKey | None
    problem: str = ""


def _served(folders: Folders) -> list[_Served]:
    """The served folders whose levels the workspace keeps, as they are now."""
    found = []
    for entry in folders.entries:
        if catalogue.kind_named(entry.kind).workspace is None:
            continue
        try:
            found.append(_Served(entry, puzzle_key(entry.path)))
        except StoreError as exc:
            found.append(_Served(entry, None, folders.public(str(exc))))
    return found


def _pack_out(pack: Pack, served: list[_Served]) -> dict[str, Any]:
    folder = next((s.entry.id for s in served if s.key == pack.puzzle), None)
    problem = None
    unread = [s for s in served if s.key is None and s.entry.puzzle == pack.puzzle.name]
    if folder is None and unread:
        problem = f"{unread[0].entry.label} cannot be read now ({unread[0].problem})"
    elif folder is None:
        others = [s.entry.label for s in served if s.key is not None and s.key.name == pack.puzzle.name]
        problem = (f"no folder served here holds the puzzle file of this pack ({pack.puzzle.name}, sha256 "
                   f"{pack.puzzle.sha256[:12]}...): its results folder was removed or analyzed again for "
                   "another puzzle file")
        if others:
            problem += f"; {', '.join(others)} holds another version of {pack.puzzle.name}"
    return {"id": pack.id, "name": pack.name, "puzzle": pack.puzzle.name, "puzzle_sha256": pack.puzzle.sha256,
            "folder": folder, "problem": problem, "curve": pack.curve, "created": pack.created,
            "updated": pack.updated,
            "levels": [{"level": item.level, "data": item.data} for item in pack.levels]}


@contextmanager
def _folder(request: Request, folder: int) -> Iterator[tuple[Entry, Any, PuzzleKey]]:
    """A folder's entry, its results (under the folder's lock) and its puzzle; 404 for an
    unknown folder, 422 for one without levels to keep."""
    folders: Folders = request.app.state.folders
    entry = folders.entry(folder)
    if entry is None:
        raise HTTPException(404, f"no folder {folder} (there are {len(folders.entries)}, from 0)")
    with folders.results(folder, wait=request.app.state.time_limit) as results:
        kind = catalogue.kind_for(results)
        if kind.workspace is None:
            raise HTTPException(422, f"{entry.label} holds {kind.held}: it has no levels to keep")
        yield entry, results, puzzle_key(results.directory)


def level_key(results: Any, text: str) -> str:
    """The key of the level `text` names, written as the workspace writes it (one for every
    drawing of a position: `normal`); SelectionError if it is not a position of the results'
    puzzle."""
    try:
        if catalogue.kind_for(results).workspace == "pieces":
            try:
                entries = [int(value) for value in text.split(",")]
            except ValueError:
                raise SelectionError("a position's entries joined by commas (0 empty, t a piece of "
                                     "type t)") from None
            return ",".join(str(value) for value in results.position(entries))
        return "/".join(results.puzzle.draw(results.normal(results.position(text))).split("\n"))
    except SelectionError as exc:
        raise SelectionError(f"level: {exc}") from None


@contextmanager
def _pack_folder(request: Request, pack_id: int) -> Iterator[tuple[Pack, Any]]:
    """A pack and the results of a served folder holding its puzzle (under its lock); 422
    saying why if none does (such a pack can be renamed or deleted, not filled)."""
    pack = _db(request).pack(pack_id)
    out = _pack_out(pack, _served(request.app.state.folders))
    if out["folder"] is None:
        raise HTTPException(422, f"pack {pack.id} ({pack.name}): {out['problem']}; it can be renamed or "
                                 "deleted, not changed")
    with _folder(request, out["folder"]) as (_, results, key):
        if key != pack.puzzle:  # analyzed again since the folder list was read
            raise HTTPException(422, f"pack {pack.id} ({pack.name}): its puzzle file changed; try again")
        yield pack, results


def _answer(request: Request, pack: Pack) -> dict[str, Any]:
    return _pack_out(pack, _served(request.app.state.folders))


# -- packs ------------------------------------------------------------------------------------


@router.get("/packs", response_model=list[models.PackOut])
def all_packs(request: Request) -> list[dict[str, Any]]:
    """Every pack the database keeps, of every puzzle, each with the served folder holding its
    puzzle (or the problem if none does)."""
    served = _served(request.app.state.folders)
    return [_pack_out(pack, served) for pack in _db(request).packs()]


@router.get("/folders/{folder}/packs", response_model=list[models.PackOut])
def folder_packs(request: Request, folder: Whole) -> list[dict[str, Any]]:
    """The packs of the folder's puzzle, by name."""
    with _folder(request, folder) as (_, _results, key):
        pass
    served = _served(request.app.state.folders)
    return [_pack_out(pack, served) for pack in _db(request).packs(key)]


@router.post("/folders/{folder}/packs", response_model=models.PackOut)
def create_pack(request: Request, folder: Whole, body: models.PackName) -> dict[str, Any]:
    """A new empty pack of the folder's puzzle; 422 if the puzzle has a pack of that name."""
    with _folder(request, folder) as (_, _results, key):
        pack = _db(request).create_pack(key, body.name)
    return _answer(request, pack)


Number = Annotated[Whole, InPath(ge=0, le=2**63 - 1)]
"""A pack's number or a slot in the URL: SQLite keeps no larger whole number."""


@router.get("/packs/{pack}", response_model=models.PackOut)
def get_pack(request: Request, pack: Number) -> dict[str, Any]:
    return _answer(request, _db(request).pack(pack))


@router.patch("/packs/{pack}", response_model=models.PackOut)
def rename_pack(request: Request, pack: Number, body: models.PackName) -> dict[str, Any]:
    """Rename a pack (its puzzle's other packs keep their names)."""
    return _answer(request, _db(request).rename_pack(pack, body.name))


@router.delete("/packs/{pack}")
def delete_pack(request: Request, pack: Number) -> dict[str, int]:
    """Delete a pack and its list of levels (notes and playtests stay, they are the levels')."""
    _db(request).delete_pack(pack)
    return {"deleted": pack}


@router.post("/packs/{pack}/levels", response_model=models.PackOut)
def add_level(request: Request, pack: Number, body: models.AddLevelIn) -> dict[str, Any]:
    """Put a level in a pack, before slot `at` or at the end."""
    with _pack_folder(request, pack) as (_, results):
        item = PackLevel(level_key(results, body.level), body.data)
    return _answer(request, _db(request).add_level(pack, item, body.at))


@router.put("/packs/{pack}/levels", response_model=models.PackOut)
def set_levels(request: Request, pack: Number, body: models.SetLevelsIn) -> dict[str, Any]:
    """Replace a pack's levels (in order) and the record of the curve they follow: one target
    per level, every level solvable (as the pack's download checks it)."""
    if body.curve is not None and len(body.curve.targets) != len(body.levels):
        raise SelectionError(f"curve: {len(body.curve.targets)} targets for {len(body.levels)} levels "
                             "(one per level)")
    with _pack_folder(request, pack) as (_, results):
        items = [PackLevel(level_key(results, item.level), item.data) for item in body.levels]
        if body.curve is not None:
            for number, item in enumerate(items, start=1):
                if not _can_be_solved(results, item.level):
                    raise SelectionError(f"curve: level {number} cannot be solved, so it cannot stand in an "
                                         "arranged pack")
    curve = None if body.curve is None else body.curve.model_dump()
    return _answer(request, _db(request).set_levels(pack, items, curve))


@router.delete("/packs/{pack}/levels/{slot}", response_model=models.PackOut)
def remove_level(request: Request, pack: Number, slot: Number) -> dict[str, Any]:
    """Take the level in `slot` (0-based) out of a pack."""
    with _pack_folder(request, pack):
        pass
    return _answer(request, _db(request).remove_level(pack, slot))


@router.post("/packs/{pack}/move", response_model=models.PackOut)
def move_level(request: Request, pack: Number, body: models.MoveLevelIn) -> dict[str, Any]:
    """Move the level of slot `from` to slot `to` (what dragging it in the list does)."""
    with _pack_folder(request, pack):
        pass
    return _answer(request, _db(request).move_level(pack, body.from_, body.to))


# -- notes and tags ---------------------------------------------------------------------------


def _note(note: Any) -> dict[str, Any]:
    return {"level": note.level, "note": note.note, "tags": list(note.tags), "updated": note.updated}


@router.get("/folders/{folder}/notes", response_model=list[models.NoteOut])
def notes(request: Request, folder: Whole) -> list[dict[str, Any]]:
    """The notes and tags on the levels of the folder's puzzle."""
    with _folder(request, folder) as (_, _results, key):
        pass
    return [_note(note) for note in _db(request).notes(key).values()]


@router.put("/folders/{folder}/notes", response_model=models.NoteOut)
def set_note(request: Request, folder: Whole, body: models.NoteIn) -> dict[str, Any]:
    """Keep a note and tags on a level (an empty note without tags removes them)."""
    with _folder(request, folder) as (_, results, key):
        level = level_key(results, body.level)
    return _note(_db(request).set_note(key, level, body.note, body.tags))


# -- playtests --------------------------------------------------------------------------------


@router.post("/folders/{folder}/playtests", response_model=models.PlayOut)
def record_play(request: Request, folder: Whole, body: models.PlayIn) -> dict[str, Any]:
    """Record one play of a level of the folder's puzzle (the page posts one when a play
    ends: the goal reached, or given up); 422 for a play said to solve a level that cannot be
    solved."""
    with _folder(request, folder) as (_, results, key):
        level = level_key(results, body.level)
        if body.solved and not _can_be_solved(results, level):
            raise SelectionError(f"solved: level {level} cannot be solved, so no play of it solved it")
    play = _db(request).record_play(key, Play(level, body.seconds, body.moves, body.moves_at_end, body.undos,
                                              body.resets, body.hints, body.solved))
    return {"level": play.level, "recorded": play.recorded, "solved": play.solved}


def _can_be_solved(results: Any, level: str) -> bool:
    """Whether the level can be solved; True where telling would take a search past its bound
    (above the stored layers): a play is refused only when it is known to be impossible."""
    try:
        return catalogue.kind_for(results).solvable(results, level)
    except SearchTooLarge:
        return True


@router.get("/folders/{folder}/playtests", response_model=models.Playtests)
def playtests(request: Request, folder: Whole) -> dict[str, Any]:
    """The playtest figures of every level of the folder's puzzle played here: plays, solved,
    given up, the give-up rate, the median time and moves of the solved plays."""
    with _folder(request, folder) as (_, _results, key):
        pass
    figures = _db(request).figures(key)
    return {"puzzle": key.name, "levels": [
        {name: getattr(f, name) for name in models.FiguresOut.model_fields} for f in figures]}
