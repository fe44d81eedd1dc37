"""The results folders a workspace serves: named once at start-up, opened on demand.

Requests address a folder by its index in the list given on the command line, never by a
path. At most `OPEN_LIMIT` folders stay open (least recently used first out), and one lock
keeps one question at a time on the searches they share.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from curator.api import Results, open
from curator.common.errors import StoreError

OPEN_LIMIT = 4
"""Most results kept open at once (each keeps its puzzle, search and mapped layers)."""


@dataclass(frozen=True)
class Entry:
    """One folder of the command line: its id, unique name and path."""

    id: int
    name: str
    path: Path


class Folders:
    """The folders named at start-up; StoreError at once if one holds no results."""

    def __init__(self, directories: Sequence[str | Path], limit: int = OPEN_LIMIT) -> None:
        self.entries: list[Entry] = []
        taken: set[str] = set()
        for index, directory in enumerate(directories):
            path = Path(directory).resolve()
            open(path)  # refuses a folder without readable results now, not at the first request
            name = _unique(path.name or str(path), taken)
            taken.add(name)
            self.entries.append(Entry(index, name, path))
        self._open: OrderedDict[int, Results] = OrderedDict()
        self._limit = limit
        self._lock = threading.Lock()

    def entry(self, folder: int) -> Entry | None:
        return self.entries[folder] if 0 <= folder < len(self.entries) else None

    @contextmanager
    def results(self, folder: int) -> Iterator[Results]:
        """The results of a folder, held under the lock; a folder whose store fails is
        closed, so the next request reads it afresh."""
        with self._lock:
            if folder not in self._open:
                self._open[folder] = open(self.entries[folder].path)
                while len(self._open) > self._limit:
                    self._open.popitem(last=False)
            self._open.move_to_end(folder)
            try:
                yield self._open[folder]
            except StoreError:
                self._open.pop(folder, None)
                raise

    @property
    def opened(self) -> int:
        """How many results are open now."""
        return len(self._open)


def _unique(name: str, taken: set[str]) -> str:
    """`name`, or name-2, name-3, ... if it is taken."""
    candidate, number = name, 1
    while candidate in taken:
        number += 1
        candidate = f"{name}-{number}"
    return candidate
