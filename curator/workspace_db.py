"""The workspace's database: named packs of levels, notes and tags on levels, and playtests.

One SQLite file (`curator serve --db PATH`, read by `curator playtests`) that keeps a
designer's work across reloads and restarts; its schema is in docs/workspace-db.md.
"""

from __future__ import annotations

import json
import math
import os
import sqlite3
import statistics
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from curator.common.errors import StoreError, one_line

SCHEMA_VERSION = 1
"""The schema this version of curator writes (`schema_version` table)."""

MIGRATIONS: dict[int, tuple[str, ...]] = {
    1: (
        """CREATE TABLE puzzles (
            id INTEGER PRIMARY KEY,
            name TEXT NOT NULL,
            sha256 TEXT NOT NULL,
            UNIQUE (name, sha256))""",
        """CREATE TABLE packs (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            puzzle INTEGER NOT NULL REFERENCES puzzles (id),
            name TEXT NOT NULL,
            curve TEXT,
            created TEXT NOT NULL,
            updated TEXT NOT NULL,
            UNIQUE (puzzle, name))""",
        """CREATE TABLE pack_levels (
            pack INTEGER NOT NULL REFERENCES packs (id) ON DELETE CASCADE,
            slot INTEGER NOT NULL,
            level TEXT NOT NULL,
            data TEXT NOT NULL,
            PRIMARY KEY (pack, slot))""",
        """CREATE TABLE notes (
            puzzle INTEGER NOT NULL REFERENCES puzzles (id),
            level TEXT NOT NULL,
            note TEXT NOT NULL,
            updated TEXT NOT NULL,
            PRIMARY KEY (puzzle, level))""",
        """CREATE TABLE tags (
            puzzle INTEGER NOT NULL REFERENCES puzzles (id),
            level TEXT NOT NULL,
            tag TEXT NOT NULL,
            PRIMARY KEY (puzzle, level, tag))""",
        """CREATE TABLE plays (
            id INTEGER PRIMARY KEY,
            puzzle INTEGER NOT NULL REFERENCES puzzles (id),
            level TEXT NOT NULL,
            recorded TEXT NOT NULL,
            seconds REAL NOT NULL,
            moves INTEGER NOT NULL,
            moves_at_end INTEGER NOT NULL,
            undos INTEGER NOT NULL,
            resets INTEGER NOT NULL,
            hints INTEGER NOT NULL,
            solved INTEGER NOT NULL CHECK (solved IN (0, 1)))""",
        "CREATE INDEX plays_by_level ON plays (puzzle, level)",
    ),
}
"""The statements that bring the schema from version v - 1 to version v, by v."""

MAX_NAME = 80
"""Most characters of a pack's name or a tag."""
MAX_NOTE = 4_000
MAX_TAGS = 20
MAX_LEVELS = 1_000
"""Most levels one pack holds."""
MAX_DATA = 100_000
"""Most characters of the JSON a pack keeps of one level."""
MAX_DEPTH = 32
"""Deepest nesting of lists and objects in the JSON a pack keeps of one level or its curve."""
DEFAULT_NAME = "workspace.sqlite"


class WorkspaceError(ValueError):
    """A request to the database is wrong: a name taken or empty, a slot out of range."""


class NoSuchPack(WorkspaceError):
    """No pack has this id."""


class WorkspaceBusy(Exception):
    """Another program held the database's write lock for longer than `BUSY_MS`: nothing
    was written, and the same change may be sent again."""


BUSY_MS = 5_000
"""How long a change waits for another program's write lock before WorkspaceBusy."""


@dataclass(frozen=True)
class PuzzleKey:
    """The puzzle levels belong to: its name and the sha256 of its file, as a results
    folder's manifest records them (`puzzle`, `puzzle_sha256`). Levels of one key are
    positions of one puzzle file, whichever folder holds its tables."""

    name: str
    sha256: str


@dataclass(frozen=True)
class PackLevel:
    """A level in a pack: its key (see docs/workspace-db.md) and what the page shows of it."""

    level: str
    data: dict[str, Any] = field(default_factory=dict, compare=False)


@dataclass(frozen=True)
class Pack:
    """A named pack of one puzzle's levels, in order; `curve` is the record of the curve an
    arranged pack follows (None once its levels were changed by hand)."""

    id: int
    puzzle: PuzzleKey
    name: str
    levels: tuple[PackLevel, ...]
    curve: dict[str, Any] | None
    created: str
    updated: str


@dataclass(frozen=True)
class Note:
    """A designer's note and tags on one level."""

    level: str
    note: str
    tags: tuple[str, ...]
    updated: str


@dataclass(frozen=True)
class Play:
    """One play of a level in the workspace, from its start to the goal or to giving up."""

    level: str
    seconds: float
    """Wall-clock seconds from the start of the play to its end."""
    moves: int
    """Moves played, those later undone or reset included."""
    moves_at_end: int
    """Moves on the board when the play ended (the solution's length if solved)."""
    undos: int
    resets: int
    hints: int
    """Times the hint was asked for."""
    solved: bool
    """The goal was reached; else the player gave up."""
    recorded: str = ""
    """When it was stored (UTC, ISO 8601); set by `record_play`."""


@dataclass(frozen=True)
class Figures:
    """The playtest figures of one level (see docs/workspace-db.md)."""

    puzzle: PuzzleKey
    level: str
    plays: int
    solved: int
    gave_up: int
    give_up_rate: float
    median_seconds: float | None
    """Median time of the solved plays; None if none was solved."""
    median_moves: float | None
    """Median moves of the solved plays (undone ones included)."""
    mean_undos: float
    mean_resets: float
    mean_hints: float


FIGURE_FIELDS: tuple[str, ...] = (
    "puzzle", "puzzle_sha256", "level", "plays", "solved", "gave_up", "give_up_rate", "median_seconds",
    "median_moves", "mean_undos", "mean_resets", "mean_hints")
"""The fields of a level's playtest figures, as the export writes them."""
PLAYTESTS_FORMAT = "curator-playtests/1"
"""The `format` of the JSON `curator playtests` writes."""
PLAY_FIELDS: tuple[str, ...] = (
    "puzzle", "puzzle_sha256", "level", "recorded", "seconds", "moves", "moves_at_end", "undos", "resets",
    "hints", "solved")
"""The fields of one play, as the export writes them."""


def default_path() -> Path:
    """Where the workspace keeps its database unless told otherwise: `curator/workspace.sqlite`
    in the user's data folder ($XDG_DATA_HOME, else ~/.local/share)."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "curator" / DEFAULT_NAME


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


class WorkspaceDB:
    """The database at `path` (None: one in memory, gone when closed), created and migrated
    to `SCHEMA_VERSION` if need be; with `read_only`, an existing database read as it is.

    StoreError (one line naming the file) if it cannot be opened, is no SQLite database, is
    not a workspace database, or was written by a newer curator. One connection serves every
    thread, one call at a time; each change is one transaction.
    """

    def __init__(self, path: str | Path | None, read_only: bool = False) -> None:
        self.path = None if path is None else Path(path)
        self._lock = threading.Lock()
        where = self.where
        if self.path is not None and self.path.is_dir():
            raise StoreError(f"{where}: cannot open the workspace database (a folder, not a file)")
        try:
            if self.path is None:
                self._db = sqlite3.connect(":memory:", check_same_thread=False, isolation_level=None)
            elif read_only:
                if not self.path.is_file():
                    raise StoreError(f"{where}: no workspace database here (the workspace, `curator serve`, "
                                     "makes one)")
                uri = f"{self.path.resolve().as_uri()}?mode=ro"
                self._db = sqlite3.connect(uri, uri=True, check_same_thread=False, isolation_level=None)
            else:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                self._db = sqlite3.connect(where, check_same_thread=False, isolation_level=None)
        except (sqlite3.Error, OSError) as exc:
            raise StoreError(f"{where}: cannot open the workspace database ({_reason(exc)})") from None
        try:
            self._db.execute(f"PRAGMA busy_timeout = {BUSY_MS}")
            self._db.execute("PRAGMA foreign_keys = ON")
            if not read_only and self.path is not None:
                self._db.execute("PRAGMA journal_mode = WAL")
            self._migrate(read_only)
        except sqlite3.Error as exc:
            self._db.close()
            raise StoreError(f"{where}: not a workspace database ({_reason(exc)})") from None
        except StoreError:
            self._db.close()
            raise

    @property
    def where(self) -> str:
        """The database as messages name it: its file, or ":memory:"."""
        return ":memory:" if self.path is None else str(self.path)

    def _migrate(self, read_only: bool) -> None:
        """Bring the schema to `SCHEMA_VERSION`, one version at a time, each in one
        transaction; refuse a database of a newer schema, or of an older one when reading."""
        where = self.where
        version = self.schema_version()
        if version > SCHEMA_VERSION:
            raise StoreError(f"{where}: written by a newer curator (schema {version}; this one reads up to "
                             f"{SCHEMA_VERSION})")
        if version < SCHEMA_VERSION and read_only:
            what = "holds no workspace database" if version == 0 else f"has schema {version}"
            raise StoreError(f"{where}: {what}; the workspace of this curator (`curator serve`) brings it "
                             f"to schema {SCHEMA_VERSION}")
        for target in range(version + 1, SCHEMA_VERSION + 1):
            with self._transaction() as db:
                if self.schema_version() >= target:  # another process got there first
                    continue
                if target == 1:
                    listed = db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
                    tables = {row[0] for row in listed}
                    if tables:
                        raise StoreError(f"{where}: a SQLite database of something else (tables "
                                         f"{', '.join(sorted(tables)[:5])}), not a workspace database")
                    db.execute("CREATE TABLE schema_version (version INTEGER NOT NULL)")
                    db.execute("INSERT INTO schema_version VALUES (0)")
                for statement in MIGRATIONS[target]:
                    db.execute(statement)
                db.execute("UPDATE schema_version SET version = ?", (target,))

    def schema_version(self) -> int:
        """The schema version of the database (0: an empty database)."""
        found = self._db.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'").fetchone()
        if found is None:
            return 0
        row = self._db.execute("SELECT version FROM schema_version").fetchone()
        if row is None or not isinstance(row[0], int):
            raise StoreError(f"{self.path}: damaged schema_version table")
        return int(row[0])

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def __enter__(self) -> WorkspaceDB:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        """The connection inside one write transaction (committed at the end, rolled back
        on any error), held by this thread alone."""
        with self._lock:
            try:
                self._db.execute("BEGIN IMMEDIATE")
            except sqlite3.OperationalError as exc:
                raise self._failed(exc) from None
            try:
                yield self._db
            except BaseException as exc:
                self._db.execute("ROLLBACK")
                if isinstance(exc, sqlite3.Error):
                    raise self._failed(exc) from None
                raise
            try:
                self._db.execute("COMMIT")
            except sqlite3.Error as exc:
                self._db.execute("ROLLBACK")
                raise self._failed(exc) from None

    def _failed(self, exc: sqlite3.Error) -> Exception:
        """What a change that SQLite refused raises: WorkspaceBusy while another program holds
        the write lock, StoreError (one line naming the file) otherwise."""
        where = self.where
        text = str(exc)
        if isinstance(exc, sqlite3.OperationalError) and ("locked" in text or "busy" in text):
            return WorkspaceBusy(f"{where}: the workspace database is locked by another program; nothing "
                                 f"was written (try again once it lets go)")
        return StoreError(f"{where}: cannot write the workspace database ({_reason(exc)})")

    @contextmanager
    def _reading(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            yield self._db

    # -- puzzles --------------------------------------------------------------------------

    @staticmethod
    def _puzzle_id(db: sqlite3.Connection, puzzle: PuzzleKey, create: bool = True) -> int | None:
        row = db.execute("SELECT id FROM puzzles WHERE name = ? AND sha256 = ?",
                         (puzzle.name, puzzle.sha256)).fetchone()
        if row is not None:
            return int(row[0])
        if not create:
            return None
        return int(db.execute("INSERT INTO puzzles (name, sha256) VALUES (?, ?)",
                              (puzzle.name, puzzle.sha256)).lastrowid or 0)

    # -- packs ----------------------------------------------------------------------------

    def packs(self, puzzle: PuzzleKey | None = None) -> list[Pack]:
        """The packs of `puzzle` (every pack if None, by puzzle), by name."""
        with self._reading() as db:
            query = "SELECT packs.id FROM packs JOIN puzzles ON puzzles.id = packs.puzzle"
            arguments: tuple[str, ...] = ()
            if puzzle is not None:
                query += " WHERE puzzles.name = ? AND puzzles.sha256 = ?"
                arguments = (puzzle.name, puzzle.sha256)
            order = " ORDER BY puzzles.name, puzzles.sha256, packs.name, packs.id"
            ids = [row[0] for row in db.execute(query + order, arguments)]
            return [self._pack(db, pack_id) for pack_id in ids]

    def pack(self, pack_id: int) -> Pack:
        """The pack with this id; NoSuchPack if there is none."""
        with self._reading() as db:
            return self._pack(db, pack_id)

    def _pack(self, db: sqlite3.Connection, pack_id: int) -> Pack:
        row = db.execute("SELECT packs.id, puzzles.name, puzzles.sha256, packs.name, packs.curve, "
                         "packs.created, packs.updated FROM packs JOIN puzzles ON puzzles.id = packs.puzzle "
                         "WHERE packs.id = ?", (pack_id,)).fetchone()
        if row is None:
            raise NoSuchPack(f"no pack {pack_id}")
        what = f"{self.where}: pack {pack_id}"
        rows = db.execute("SELECT slot, level, data FROM pack_levels WHERE pack = ? ORDER BY slot",
                          (pack_id,))
        levels = tuple(PackLevel(_text(level, f"{what}, slot {slot}: level"),
                                 _stored_object(data, f"{what}, slot {slot}: data"))
                       for slot, level, data in rows)
        curve = None if row[4] is None else _stored_object(row[4], f"{what}: curve")
        return Pack(row[0], PuzzleKey(row[1], row[2]), _text(row[3], f"{what}: name"), levels, curve,
                    row[5], row[6])

    def create_pack(self, puzzle: PuzzleKey, name: str) -> Pack:
        """A new empty pack of `puzzle`; WorkspaceError if the name is empty, too long or
        taken by another pack of the puzzle."""
        name = _name(name, "pack name")
        with self._transaction() as db:
            puzzle_id = self._puzzle_id(db, puzzle)
            self._free(db, puzzle_id, name)
            now = _now()
            pack_id = db.execute("INSERT INTO packs (puzzle, name, created, updated) VALUES (?, ?, ?, ?)",
                                 (puzzle_id, name, now, now)).lastrowid
            return self._pack(db, int(pack_id or 0))

    @staticmethod
    def _free(db: sqlite3.Connection, puzzle_id: int | None, name: str, pack_id: int = -1) -> None:
        taken = db.execute("SELECT id FROM packs WHERE puzzle = ? AND name = ? AND id != ?",
                           (puzzle_id, name, pack_id)).fetchone()
        if taken is not None:
            raise WorkspaceError(f"a pack of this puzzle is already called {name!r} (pack {taken[0]})")

    def rename_pack(self, pack_id: int, name: str) -> Pack:
        name = _name(name, "pack name")
        with self._transaction() as db:
            row = db.execute("SELECT puzzle FROM packs WHERE id = ?", (pack_id,)).fetchone()
            if row is None:
                raise NoSuchPack(f"no pack {pack_id}")
            self._free(db, row[0], name, pack_id)
            db.execute("UPDATE packs SET name = ?, updated = ? WHERE id = ?", (name, _now(), pack_id))
            return self._pack(db, pack_id)

    def delete_pack(self, pack_id: int) -> None:
        with self._transaction() as db:
            if db.execute("DELETE FROM packs WHERE id = ?", (pack_id,)).rowcount == 0:
                raise NoSuchPack(f"no pack {pack_id}")

    def add_level(self, pack_id: int, level: PackLevel, at: int | None = None) -> Pack:
        """The pack with `level` inserted before slot `at` (0-based; None: at the end)."""
        def edit(levels: list[PackLevel]) -> None:
            where = len(levels) if at is None else at
            if not 0 <= where <= len(levels):
                raise WorkspaceError(f"at: slot {where} is not in 0..{len(levels)}")
            _check_once([*levels, level])
            levels.insert(where, level)
        return self._edit(pack_id, edit)

    def remove_level(self, pack_id: int, slot: int) -> Pack:
        """The pack without the level in `slot` (0-based)."""
        def edit(levels: list[PackLevel]) -> None:
            _check_slot(slot, levels, "slot")
            del levels[slot]
        return self._edit(pack_id, edit)

    def move_level(self, pack_id: int, source: int, target: int) -> Pack:
        """The pack with the level of slot `source` taken out and put in slot `target`."""
        def edit(levels: list[PackLevel]) -> None:
            _check_slot(source, levels, "from")
            _check_slot(target, levels, "to")
            levels.insert(target, levels.pop(source))
        return self._edit(pack_id, edit)

    def set_levels(self, pack_id: int, levels: Sequence[PackLevel],
                   curve: dict[str, Any] | None = None) -> Pack:
        """The pack holding `levels` instead of its own, following `curve` (an arranged
        pack's record) if given."""
        def edit(current: list[PackLevel]) -> None:
            _check_once(levels)
            current[:] = levels
        return self._edit(pack_id, edit, curve)

    def _edit(self, pack_id: int, edit: Any, curve: dict[str, Any] | None = None) -> Pack:
        """Apply `edit` to the pack's list of levels and store the list it leaves, in one
        transaction; the curve record is `curve` (None after an edit by hand)."""
        with self._transaction() as db:
            levels = list(self._pack(db, pack_id).levels)
            edit(levels)
            if len(levels) > MAX_LEVELS:
                raise WorkspaceError(f"a pack holds at most {MAX_LEVELS} levels")
            rows = [(pack_id, slot, _level_key(item.level), _data(item.data))
                    for slot, item in enumerate(levels)]
            db.execute("DELETE FROM pack_levels WHERE pack = ?", (pack_id,))
            db.executemany("INSERT INTO pack_levels (pack, slot, level, data) VALUES (?, ?, ?, ?)", rows)
            stored_curve = None if curve is None else _data(curve, "curve")
            db.execute("UPDATE packs SET curve = ?, updated = ? WHERE id = ?",
                       (stored_curve, _now(), pack_id))
            return self._pack(db, pack_id)

    # -- notes and tags --------------------------------------------------------------------

    def notes(self, puzzle: PuzzleKey) -> dict[str, Note]:
        """The notes and tags on the levels of `puzzle`, by level."""
        with self._reading() as db:
            puzzle_id = self._puzzle_id(db, puzzle, create=False)
            if puzzle_id is None:
                return {}
            tags: dict[str, list[str]] = {}
            listed = db.execute("SELECT level, tag FROM tags WHERE puzzle = ? ORDER BY tag", (puzzle_id,))
            for level, tag in listed:
                tags.setdefault(level, []).append(tag)
            found = {level: Note(level, note, tuple(tags.get(level, ())), updated) for level, note, updated in
                     db.execute("SELECT level, note, updated FROM notes WHERE puzzle = ?", (puzzle_id,))}
            return dict(sorted(found.items()))

    def set_note(self, puzzle: PuzzleKey, level: str, note: str, tags: Sequence[str] = ()) -> Note:
        """Keep `note` and `tags` on a level (replacing what it had); an empty note without
        tags removes them."""
        level = _level_key(level)
        note = note.strip()
        if len(note) > MAX_NOTE:
            raise WorkspaceError(f"note: at most {MAX_NOTE} characters, got {len(note)}")
        kept = sorted({_name(tag, "tag") for tag in tags})
        if len(kept) > MAX_TAGS:
            raise WorkspaceError(f"tags: at most {MAX_TAGS} per level, got {len(kept)}")
        now = _now()
        with self._transaction() as db:
            puzzle_id = self._puzzle_id(db, puzzle)
            db.execute("DELETE FROM notes WHERE puzzle = ? AND level = ?", (puzzle_id, level))
            db.execute("DELETE FROM tags WHERE puzzle = ? AND level = ?", (puzzle_id, level))
            if note or kept:
                db.execute("INSERT INTO notes (puzzle, level, note, updated) VALUES (?, ?, ?, ?)",
                           (puzzle_id, level, note, now))
                db.executemany("INSERT INTO tags (puzzle, level, tag) VALUES (?, ?, ?)",
                               [(puzzle_id, level, tag) for tag in kept])
        return Note(level, note, tuple(kept), now)

    # -- playtests -------------------------------------------------------------------------

    def record_play(self, puzzle: PuzzleKey, play: Play) -> Play:
        """Store one play of a level of `puzzle`; the play as stored (with `recorded`)."""
        level = _level_key(play.level)
        counts = {"moves": play.moves, "moves_at_end": play.moves_at_end, "undos": play.undos,
                  "resets": play.resets, "hints": play.hints}
        for name, value in counts.items():
            if not 0 <= value < 2**31:
                raise WorkspaceError(f"{name}: must be a count from 0, got {value}")
        if not (math.isfinite(play.seconds) and 0 <= play.seconds < 1e8):
            raise WorkspaceError(f"seconds: must be a time from 0, got {play.seconds}")
        if play.moves_at_end > play.moves:
            raise WorkspaceError("moves_at_end: more than the moves played")
        if play.undos + play.moves_at_end > play.moves:
            raise WorkspaceError(f"undos: {play.undos} undone and {play.moves_at_end} left on the board are "
                                 f"more than the {play.moves} moves played")
        stored = Play(level, float(play.seconds), play.moves, play.moves_at_end, play.undos, play.resets,
                      play.hints, bool(play.solved), recorded=_now())
        with self._transaction() as db:
            puzzle_id = self._puzzle_id(db, puzzle)
            db.execute("INSERT INTO plays (puzzle, level, recorded, seconds, moves, moves_at_end, undos, "
                       "resets, hints, solved) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                       (puzzle_id, level, stored.recorded, stored.seconds, stored.moves, stored.moves_at_end,
                        stored.undos, stored.resets, stored.hints, int(stored.solved)))
        return stored

    def plays(self, puzzle: PuzzleKey | None = None) -> list[tuple[PuzzleKey, Play]]:
        """Every play of `puzzle`'s levels (of every puzzle if None), in the order stored."""
        query = ("SELECT puzzles.name, puzzles.sha256, level, seconds, moves, moves_at_end, undos, resets, "
                 "hints, solved, recorded FROM plays LEFT JOIN puzzles ON puzzles.id = plays.puzzle")
        arguments: tuple[str, ...] = ()
        if puzzle is not None:
            query += " WHERE puzzles.name = ? AND puzzles.sha256 = ?"
            arguments = (puzzle.name, puzzle.sha256)
        where = self.where
        try:
            with self._reading() as db:
                rows = db.execute(query + " ORDER BY plays.id", arguments).fetchall()
        except sqlite3.Error as exc:
            raise StoreError(f"{where}: damaged workspace database ({_reason(exc)})") from None
        return [(_play_puzzle(row[:2], f"{where}: play {number}"), _play(row[2:], f"{where}: play {number}"))
                for number, row in enumerate(rows, 1)]

    def figures(self, puzzle: PuzzleKey | None = None) -> list[Figures]:
        """The playtest figures of every level played (of `puzzle`, or of every puzzle), by
        puzzle then level."""
        grouped: dict[tuple[PuzzleKey, str], list[Play]] = {}
        for key, play in self.plays(puzzle):
            grouped.setdefault((key, play.level), []).append(play)
        return [figures_of(key, level, plays) for (key, level), plays in
                sorted(grouped.items(), key=lambda item: (item[0][0].name, item[0][0].sha256, item[0][1]))]


def _text(value: Any, what: str) -> str:
    """A stored text value; StoreError naming `what` if it is not text (the file was edited by
    something else)."""
    if not isinstance(value, str):
        raise StoreError(f"{what} is {value!r}, not text (damaged workspace database)")
    return value


def _stored_object(text: Any, what: str) -> dict[str, Any]:
    """A stored JSON object (a pack's curve, a level's data); StoreError naming `what` if it
    is not one (the file was edited by something else)."""
    try:
        value = json.loads(text)
    except (TypeError, ValueError):
        value = None
    if not isinstance(value, dict):
        shown = text if not isinstance(text, str) or len(text) <= 40 else text[:40] + "..."
        raise StoreError(f"{what} is {shown!r}, not a JSON object (damaged workspace database)")
    return value


def _play_puzzle(row: Sequence[Any], what: str) -> PuzzleKey:
    """The puzzle of a stored play, (name, sha256); StoreError naming `what` if its puzzle's row
    is gone (the file was edited by something else: the workspace keeps every puzzle played)."""
    name, sha256 = row
    if not isinstance(name, str) or not isinstance(sha256, str):
        raise StoreError(f"{what}: its puzzle is not in the database (damaged workspace database)")
    return PuzzleKey(name, sha256)


def _play(row: Sequence[Any], what: str) -> Play:
    """A stored play's row (level, seconds, moves, moves_at_end, undos, resets, hints, solved,
    recorded) as a Play; StoreError naming `what` and the field if a value is not what
    recording a play writes (the file was edited by something else)."""
    level, seconds, *counts, solved, recorded = row
    fields = ("moves", "moves_at_end", "undos", "resets", "hints")
    if not isinstance(level, str) or not isinstance(recorded, str):
        raise StoreError(f"{what}: its level or time recorded is not text (damaged workspace database)")
    if isinstance(seconds, bool) or not isinstance(seconds, int | float) or not 0 <= seconds < math.inf:
        raise StoreError(f"{what}: seconds is {seconds!r}, not a time (damaged workspace database)")
    for name, value in zip(fields, counts):
        if not isinstance(value, int) or value < 0:
            raise StoreError(f"{what}: {name} is {value!r}, not a count (damaged workspace database)")
    if solved not in (0, 1):
        raise StoreError(f"{what}: solved is {solved!r}, not 0 or 1 (damaged workspace database)")
    moves, moves_at_end, undos, resets, hints = counts
    return Play(level, float(seconds), moves, moves_at_end, undos, resets, hints, bool(solved), recorded)


def figures_of(puzzle: PuzzleKey, level: str, plays: Sequence[Play]) -> Figures:
    """The figures of one level's plays (at least one)."""
    solved = [play for play in plays if play.solved]
    count = len(plays)
    return Figures(
        puzzle, level, count, len(solved), count - len(solved), (count - len(solved)) / count,
        float(statistics.median(play.seconds for play in solved)) if solved else None,
        float(statistics.median(play.moves for play in solved)) if solved else None,
        sum(play.undos for play in plays) / count, sum(play.resets for play in plays) / count,
        sum(play.hints for play in plays) / count)


def figures_json(figures: Figures) -> dict[str, Any]:
    """A level's figures as the export writes them (`FIGURE_FIELDS`), rounded."""
    def rounded(value: float | None) -> float | None:
        return None if value is None else round(value, 4)
    return {"puzzle": figures.puzzle.name, "puzzle_sha256": figures.puzzle.sha256, "level": figures.level,
            "plays": figures.plays, "solved": figures.solved, "gave_up": figures.gave_up,
            "give_up_rate": rounded(figures.give_up_rate), "median_seconds": rounded(figures.median_seconds),
            "median_moves": rounded(figures.median_moves), "mean_undos": rounded(figures.mean_undos),
            "mean_resets": rounded(figures.mean_resets), "mean_hints": rounded(figures.mean_hints)}


def play_json(puzzle: PuzzleKey, play: Play) -> dict[str, Any]:
    """One play as the export writes it (`PLAY_FIELDS`)."""
    return {"puzzle": puzzle.name, "puzzle_sha256": puzzle.sha256, "level": play.level,
            "recorded": play.recorded, "seconds": round(play.seconds, 3), "moves": play.moves,
            "moves_at_end": play.moves_at_end, "undos": play.undos, "resets": play.resets,
            "hints": play.hints, "solved": play.solved}


def _name(text: str, what: str) -> str:
    name = " ".join(str(text).split())
    if not name:
        raise WorkspaceError(f"{what}: must not be empty")
    if len(name) > MAX_NAME or not name.isprintable():
        raise WorkspaceError(f"{what}: at most {MAX_NAME} printable characters")
    return name


def _level_key(level: str) -> str:
    if not level or len(level) > MAX_DATA or not level.isprintable():
        raise WorkspaceError("level: a level's key must be printable text")
    return level


def _data(data: dict[str, Any], what: str = "data") -> str:
    """`data` as the JSON text stored; WorkspaceError if it is not JSON, too long or nested
    deeper than the web app can write it back."""
    if _depth(data) > MAX_DEPTH:
        raise WorkspaceError(f"{what}: nested at most {MAX_DEPTH} deep")
    try:
        text = json.dumps(data, allow_nan=False, separators=(",", ":"))
        json.dumps(data, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        raise WorkspaceError(f"{what}: not Unicode text (it holds a lone surrogate such as \\ud800)"
                             ) from None
    except (TypeError, ValueError) as exc:
        raise WorkspaceError(f"{what}: not JSON ({exc})") from None
    if len(text) > MAX_DATA:
        raise WorkspaceError(f"{what}: at most {MAX_DATA} characters of JSON per level")
    return text


def _depth(value: Any) -> int:
    """How deep lists and objects nest in `value` (a number or text: 0), counted no further
    than one past MAX_DEPTH.

    >>> _depth({"a": [1, {"b": 2}]}), _depth(3)
    (3, 0)
    """
    deepest, layer = 0, [value]
    while deepest <= MAX_DEPTH:
        containers = [v for v in layer if isinstance(v, (dict, list))]
        if not containers:
            break
        deepest += 1
        layer = [item for v in containers for item in (v.values() if isinstance(v, dict) else v)]
    return deepest


def _check_once(levels: Sequence[PackLevel]) -> None:
    """WorkspaceError if a level stands in two slots: a pack plays each level once, as
    `curator pack` arranges them (checked where levels come in, so that a pack stored with a
    level twice before can still be reordered and mended)."""
    first: dict[str, int] = {}
    for slot, item in enumerate(levels):
        key = _level_key(item.level)
        if key in first:
            raise WorkspaceError(f"level {key[:60]} is in the pack already (slot {first[key]})")
        first[key] = slot


def _check_slot(slot: int, levels: Sequence[PackLevel], what: str) -> None:
    if not 0 <= slot < len(levels):
        raise WorkspaceError(f"{what}: slot {slot} is not in 0..{len(levels) - 1}" if levels
                             else f"{what}: the pack is empty")


def _reason(exc: BaseException) -> str:
    return one_line(str(exc.args[1] if isinstance(exc, OSError) and len(exc.args) > 1 else exc))
