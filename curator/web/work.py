"""What every route of the workspace's API does around its work: find the folder, hold its
results under the folder's lock within the request's time, check that its kind plays levels the
way the route asks, and read positions and write levels as the answers hold them.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from fastapi import HTTPException, Request

from curator import catalogue
from curator.common.errors import SelectionError
from curator.goals import GoalResults
from curator.layered.results import LayeredResults
from curator.web.folders import Entry, Folders

SEARCH_ABOVE = 2
"""Positions may have this many pieces more than the largest stored layer (searched, not
looked up), so that no request starts an unbounded search."""


class TooLong(Exception):
    """A request worked on a folder for longer than the app's time limit."""


def entry_of(request: Request, folder: int) -> tuple[Folders, Entry]:
    """The app's folders and the entry of folder number `folder`; 404 if there is none."""
    folders: Folders = request.app.state.folders
    entry = folders.entry(folder)
    if entry is None:
        raise HTTPException(404, f"no folder {folder} (there are {len(folders.entries)}, from 0)")
    return folders, entry


class Deadline:
    """When a request's work on a folder must be done; `check` raises TooLong after that."""

    def __init__(self, entry: Entry, seconds: float) -> None:
        self.entry = entry
        self.seconds = seconds
        self.end = time.monotonic() + seconds

    def left(self) -> float:
        return self.end - time.monotonic()

    def check(self, done: int = 0, total: int = 0) -> None:
        """Raise TooLong if the time is up (also a `progress(done, total)` callback)."""
        if time.monotonic() > self.end:
            raise TooLong(f"{self.entry.label}: the request took longer than {self.seconds:g} s, the most "
                          "one may take; ask for less (a smaller pool, sample or limit)")

    def each(self, make: Callable[[Any], Any], items: Iterable[Any]) -> list[Any]:
        """`make` of every item in order, the time checked before each."""
        out = []
        for item in items:
            self.check()
            out.append(make(item))
        return out


@contextmanager
def work(request: Request, folder: int) -> Iterator[tuple[Entry, Any, Deadline]]:
    """The folder's entry, its results (held under the folder's lock) and the deadline of
    the request's work on it; 404 for an unknown folder, 503 when it stays busy too long."""
    folders, entry = entry_of(request, folder)
    deadline = Deadline(entry, request.app.state.time_limit)
    with folders.results(folder, wait=deadline.left()) as results:
        yield entry, results, deadline


ROUTES = {"pieces": "", "blocks": "sliding/", "universe": "universe/"}
"""Where the levels of each way of playing are, under /api/folders/{id}/."""


def played(results: Any, entry: Entry, workspace: str) -> Any:
    """`results`, if their kind plays its levels the way `workspace` names; 422 saying where
    its levels are otherwise."""
    kind = catalogue.kind_for(results)
    if kind.workspace == workspace:
        return results
    if workspace == "pieces" and kind.workspace is not None:
        raise HTTPException(422, f"{entry.label} holds {kind.held}: their levels are "
                                 f"under /api/folders/{entry.id}/{ROUTES[kind.workspace]}")
    if workspace == "pieces":
        raise HTTPException(422, f"{entry.label} holds {kind.held}: it has no levels to "
                                 "select or play here")
    wanted = " or ".join(other.held for other in catalogue.kinds() if other.workspace == workspace)
    raise HTTPException(422, f"{entry.label} holds {kind.held}, not {wanted}")


def layered_of(results: Any, entry: Entry) -> LayeredResults:
    """The results, if they hold layered tables (levels played by placing pieces); 422 otherwise."""
    return played(results, entry, "pieces")


def sliding_of(results: Any, entry: Entry) -> GoalResults:
    """The results, if they hold goal tables (levels played by sliding or pushing); 422 otherwise."""
    return played(results, entry, "blocks")


def level_json(level: Any) -> dict[str, Any]:
    """A level as the API returns it (figures that are not finite numbers become null)."""
    data = {**level.to_json(), "position": list(level.position)}
    return {k: None if isinstance(v, float) and not math.isfinite(v) else v for k, v in data.items()}


def position_within_reach(results: LayeredResults, board: str | Sequence[int]) -> tuple[int, ...]:
    """A position of the puzzle within reach of the stored layers (see SEARCH_ABOVE)."""
    position = results.position(board)
    top = max((row["pieces"] for row in results.layers), default=results.puzzle.goal.pieces)
    pieces = sum(1 for v in position if v)
    if pieces > top + SEARCH_ABOVE:
        raise SelectionError(f"position has {pieces} pieces; this workspace answers positions of up to "
                             f"{top + SEARCH_ABOVE} (the stored layers reach {top})")
    return position
