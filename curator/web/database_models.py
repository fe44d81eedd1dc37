"""The shapes of the workspace's database API (packs, notes, playtests), as pydantic models.

They document `curator.web.database`'s endpoints in the app's OpenAPI document, as
`curator.web.models` does the others.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt

from curator.web.models import CurveIn
from curator.workspace_db import MAX_DATA, MAX_LEVELS, MAX_NAME, MAX_NOTE, MAX_TAGS

LEVEL = ("The level's key: layered levels, their position's entries joined by commas ('0,1,1,0,...'); "
         "sliding-block levels and universe puzzles, their drawing's rows joined by '/'.")


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class PackName(Strict):
    """A pack's name (unique among the packs of its puzzle)."""

    name: str = Field(min_length=1, max_length=MAX_NAME)


class PackLevelIn(Strict):
    """A level to keep in a pack: its key, and what the page shows of it (the level's JSON
    as the levels endpoints give it, kept as it is)."""

    level: str = Field(min_length=1, max_length=MAX_DATA, description=LEVEL)
    data: dict[str, Any] = Field(default_factory=dict)


class AddLevelIn(PackLevelIn):
    """A level to put in a pack, before slot `at` (0-based; null: at the end)."""

    at: StrictInt | None = Field(None, ge=0)


class MoveLevelIn(Strict):
    """Take the level in slot `from` out and put it in slot `to` (0-based)."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    from_: StrictInt = Field(alias="from", ge=0)
    to: StrictInt = Field(ge=0)


class SetLevelsIn(Strict):
    """A pack's levels, in order, replacing those it holds, and the record of the curve they
    follow if they were arranged (null: chosen by hand)."""

    levels: list[PackLevelIn] = Field(max_length=MAX_LEVELS)
    curve: CurveIn | None = None


class PackLevelOut(BaseModel):
    level: str
    data: dict[str, Any]


class PackOut(BaseModel):
    """A named pack of one puzzle's levels. `folder` is a served folder holding that puzzle's
    tables (null if none does: its results folder was removed or analyzed for another puzzle
    file, which `problem` says)."""

    id: int
    name: str
    puzzle: str
    puzzle_sha256: str
    """The sha256 of the puzzle file, as the results folder's manifest records it."""
    folder: int | None
    problem: str | None
    levels: list[PackLevelOut]
    curve: dict[str, Any] | None
    created: str
    updated: str


class NoteIn(Strict):
    """A note and tags to keep on a level (replacing what it had; empty both: removed)."""

    level: str = Field(min_length=1, max_length=MAX_DATA, description=LEVEL)
    note: str = Field("", max_length=MAX_NOTE)
    tags: list[str] = Field(default_factory=list, max_length=MAX_TAGS)


class NoteOut(BaseModel):
    level: str
    note: str
    tags: list[str]
    updated: str


class PlayIn(Strict):
    """One play of a level, as the page saw it: from its start to the goal (`solved`) or to
    giving up."""

    level: str = Field(min_length=1, max_length=MAX_DATA, description=LEVEL)
    seconds: float = Field(ge=0, le=1e7, allow_inf_nan=False, strict=True,
                           description="Wall-clock time of the play.")
    moves: StrictInt = Field(ge=0, le=1_000_000, description="Moves played, undone ones included.")
    moves_at_end: StrictInt = Field(ge=0, le=1_000_000, description="Moves on the board at its end.")
    undos: StrictInt = Field(0, ge=0, le=1_000_000)
    resets: StrictInt = Field(0, ge=0, le=1_000_000)
    hints: StrictInt = Field(0, ge=0, le=1_000_000, description="Times the hint was asked for.")
    solved: StrictBool


class PlayOut(BaseModel):
    level: str
    recorded: str
    solved: bool


class FiguresOut(BaseModel):
    """A level's playtest figures (see docs/workspace-db.md)."""

    level: str
    plays: int
    solved: int
    gave_up: int
    give_up_rate: float
    median_seconds: float | None
    median_moves: float | None
    mean_undos: float
    mean_resets: float
    mean_hints: float


class Playtests(BaseModel):
    """The playtest figures of every level of the folder's puzzle played in the workspace."""

    puzzle: str
    levels: list[FiguresOut]
