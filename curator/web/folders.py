"""The results folders a workspace serves: named once at start-up, opened on demand.

Requests address a folder by its index in the list given on the command line, never by a
path. At most `OPEN_LIMIT` folders stay open (least recently used first out). Each folder
has a lock of its own, so a long request on one folder never holds up another folder, and
the list of folders needs none. Before open results are used again, the sizes and times of
the folder's files are compared with those seen when it was opened: a changed file reopens
the folder, which checks the manifest, the puzzle copy and each file it reads afresh.
"""

from __future__ import annotations

import os
import re
import threading
from collections import OrderedDict
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from curator import catalogue
from curator.api import Results, open
from curator.common.errors import StoreError
from curator.common.files import TEMPORARY

OPEN_LIMIT = 4
"""Most results kept open at once (each keeps its puzzle, search and mapped layers)."""

Fingerprint = frozenset[tuple[str, int, int, int, int]]
"""What a folder's files looked like: (name, inode, size, mtime, ctime) of each."""


@dataclass(frozen=True)
class Entry:
    """One folder of the command line: its id, unique name and path, and what it holds."""

    id: int
    name: str
    path: Path
    kind: str
    puzzle: str
    title: str
    given: str = ""
    """The folder as the command line wrote it."""

    @property
    def label(self) -> str:
        """How answers name the folder: by its index and puzzle, never by its path."""
        return f"folder {self.id} ({self.puzzle})"


class Busy(Exception):
    """A folder stayed busy with another request for longer than a request may wait."""

    def __init__(self, entry: Entry, seconds: float) -> None:
        super().__init__(f"{entry.label} is busy with another request (waited {seconds:.0f} s); try again")


class Folders:
    """The folders named at start-up; StoreError at once if one holds no results or its
    manifest or puzzle copy does not match its checksum."""

    def __init__(self, directories: Sequence[str | Path], limit: int = OPEN_LIMIT) -> None:
        self.entries: list[Entry] = []
        self._open: OrderedDict[int, tuple[Results, Fingerprint]] = OrderedDict()
        taken: set[str] = set()
        for index, directory in enumerate(directories):
            path = Path(directory).resolve()
            seen = fingerprint(path)
            results = _opened(path)  # refuses a folder without readable results now
            name = _unique(path.name or str(path), taken)
            taken.add(name)
            self.entries.append(Entry(index, name, path, results.kind, results.puzzle.name,
                                      results.puzzle.title, str(directory)))
            self._open[index] = (results, seen)
        while len(self._open) > limit:
            self._open.popitem(last=False)
        self._limit = limit
        self._guard = threading.Lock()
        """Held only while the table of open results changes, never during a request's work."""
        self._locks = [threading.Lock() for _ in self.entries]

    def entry(self, folder: int) -> Entry | None:
        return self.entries[folder] if 0 <= folder < len(self.entries) else None

    @contextmanager
    def results(self, folder: int, wait: float | None = None) -> Iterator[Results]:
        """The results of a folder, held under the folder's own lock (waiting at most `wait`
        seconds for it, else Busy), reopened first if a file of the folder changed. A folder
        whose store fails is closed, so the next request reads it afresh."""
        lock = self._locks[folder]
        if not lock.acquire(timeout=-1 if wait is None else max(wait, 0.0)):
            raise Busy(self.entries[folder], wait or 0.0)
        try:
            yield self._current(folder)
        except StoreError:
            with self._guard:
                self._open.pop(folder, None)
            raise
        finally:
            lock.release()

    def _current(self, folder: int) -> Results:
        """The open results of a folder whose files are as they were when it was opened."""
        path = self.entries[folder].path
        now = fingerprint(path)
        with self._guard:
            cached = self._open.get(folder)
        if cached is None or cached[1] != now:
            with self._guard:
                self._open.pop(folder, None)
            cached = (_opened(path), now)
        with self._guard:
            self._open[folder] = cached
            self._open.move_to_end(folder)
            while len(self._open) > self._limit:
                self._open.popitem(last=False)
        return cached[0]

    def warm(self) -> None:
        """Compile (or load) the code each folder's first listing runs, one folder at a time,
        so that no request waits on it (`curator.kind.Kind.warm`)."""
        for entry in self.entries:
            with self.results(entry.id) as results:
                catalogue.kind_for(results).warm(results)

    @property
    def opened(self) -> int:
        """How many results are open now."""
        return len(self._open)

    def public(self, text: str) -> str:
        """`text` with every path of a served folder written as the folder's label, and any
        other absolute path cut to its last part: answers never show where files are."""
        names: list[tuple[str, str]] = []
        for entry in self.entries:
            for form in {str(entry.path), os.path.abspath(entry.given), entry.given}:
                if form and form not in (".", "/"):
                    names.append((form, entry.label))
        for form, label in sorted(names, key=lambda item: -len(item[0])):
            text = text.replace(form + os.sep, label + ": ").replace(form, label)
        return ABSOLUTE.sub(_last_part, text)


ABSOLUTE = re.compile(r"(?<![\w.~-])/([\w.+@-]+)(?:/[\w.+@-]+)+")
"""What may be an absolute path of at least two parts (/tmp/x), not a drawing's rows."""


def _last_part(match: re.Match[str]) -> str:
    """A path's last part, if its first part is a folder of the file system's root (so that
    /api/folders/0/sliding/ in an answer stays as it is)."""
    try:
        rooted = match.group(1) in os.listdir("/")
    except OSError:
        rooted = True
    return match.group(0).rsplit("/", 1)[-1] if rooted else match.group(0)


def _opened(path: Path) -> Results:
    """The results stored in `path`, with the folder's puzzle copy read and checked."""
    results = open(path)
    results.puzzle  # noqa: B018 - reads the puzzle copy, refusing one that does not match the manifest
    return results


def fingerprint(directory: Path) -> Fingerprint:
    """The name, inode, size and times of every file of a results folder (temporary files of
    a run that is writing there left out)."""
    found = []
    try:
        with os.scandir(directory) as listing:
            for item in listing:
                if TEMPORARY.fullmatch(item.name) or not item.is_file():
                    continue
                info = item.stat()
                found.append((item.name, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns))
    except OSError:
        pass
    return frozenset(found)


def _unique(name: str, taken: set[str]) -> str:
    """`name`, or name-2, name-3, ... if it is taken."""
    candidate, number = name, 1
    while candidate in taken:
        number += 1
        candidate = f"{name}-{number}"
    return candidate
