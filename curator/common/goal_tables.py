"""Stored goal tables and the analysis that writes them: what sliding-block and Sokoban
tables share.

A folder holds three tables, one little-endian entry per rank (distances, flags, connected
sets), a copy of the puzzle file and a manifest with counts per distance and a checksum per
file. Files are written with `curator.common.files.atomic_write` and checked before they are
used. The sweep (`curator.common.goal_sweep`) is checkpointed every CHECKPOINT_SECONDS and
resumes from its last checkpoint; a finished analysis is kept unless forced.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, ClassVar, Protocol, TypeVar

import numpy as np

from curator.common.errors import StoreError
from curator.common.files import MANIFEST, PUZZLE_COPY, atomic_write, check_file, claimed
from curator.common.goal_sweep import ALL_MOVES, NO_CLUSTER, UNIQUE, UNSOLVABLE
from curator.common.resources import Shortfall, shortfalls, threads
from curator.common.tables import DistanceFolder, must_recompute

TABLES = {
    "distances": ("distances.u16", np.uint16),
    "flags": ("flags.u8", np.uint8),
    "clusters": ("clusters.u32", np.uint32),
}
"""The tables: name -> (file, little-endian entry type); one entry per rank."""
ENCODING = {
    "distances": "moves to the goal in the puzzle's metric; 65534: not solvable; 65535: invalid rank",
    "flags": "bit 0: unique (exactly one shortest solution); bit 1: all_moves",
    "clusters": "the position's connected set, numbered from 0 in order of its smallest rank; "
                "4294967295: invalid rank",
}
BYTES_PER_RANK = sum(np.dtype(dtype).itemsize for _, dtype in TABLES.values())
"""Memory and disk per rank: the three tables (the connected sets reuse the union-find array)."""
CHECKPOINT_SECONDS = 60.0

DistanceDone = Callable[[int, int], None]
"""Called with (distance, positions) after each distance is swept."""
S = TypeVar("S", bound="GoalStore")


class GoalStore(DistanceFolder):
    """The results folder of one puzzle's goal tables; each kind names its manifest `KIND`,
    `FORMAT` and `WHAT`, its puzzle reader and the rules the manifest records."""

    OWN_FILES = (MANIFEST, PUZZLE_COPY, *(file for file, _ in TABLES.values()))
    RULES: ClassVar[tuple[str, ...]] = ()
    """The puzzle's attributes the manifest records (and `summary` lists), e.g. its metric."""
    SUMMARY = ("puzzle", "complete", "ranks", "invalid", "positions", "solvable", "unsolvable",
               "max_distance", "clusters", "largest_cluster")

    @staticmethod
    def parse_puzzle(text: str, source: str) -> Any:
        """The puzzle of a puzzle file's text (each kind's own reader)."""
        raise NotImplementedError

    @classmethod
    def rules(cls, puzzle: Any) -> dict[str, Any]:
        """What the manifest records of the puzzle's rules: its attributes named in RULES."""
        return {key: getattr(puzzle, key) for key in cls.RULES}

    @classmethod
    def for_puzzle(cls: type[S], directory: Path, puzzle: Any, force: bool) -> S:
        """Open or start the folder of `puzzle`, keeping its tables or checkpoint unless `force`."""
        return cls.start_tables(directory, puzzle.name, puzzle.sha256, puzzle.text, force,
                                **cls.rules(puzzle), ranks=puzzle.size, encoding=ENCODING)

    # -- reading ---------------------------------------------------------------------------

    def puzzle(self) -> Any:
        """The puzzle of these tables, read from the folder's checked copy of its file."""
        return self.parsed_puzzle(self.parse_puzzle)

    def load(self, name: str) -> np.ndarray:
        """The table `name` (see TABLES), checked against the manifest's size and checksum."""
        file, dtype = TABLES[name]
        meta = self.manifest.get("files", {}).get(name)
        if not meta:
            raise StoreError(f"{self.directory}: no {name} table has been stored yet")
        path = self.directory / file
        check_file(path, meta, self.manifest["ranks"] * np.dtype(dtype).itemsize)
        return np.fromfile(path, dtype=np.dtype(dtype).newbyteorder("<")).astype(dtype, copy=False)

    def damaged(self) -> str | None:
        """What is wrong with a stored table (missing, or not as the manifest records it), or
        None if every table checks out."""
        for name in TABLES:
            try:
                self.load(name)
            except StoreError as exc:
                return str(exc)
        return None

    def summary(self) -> dict[str, Any]:
        """What `curator info --json` prints: the counts, and the rows per distance under
        `layers`, the key every kind's rows have there."""
        keys = (*self.SUMMARY[:2], *self.RULES, *self.SUMMARY[2:])
        out = {key: self.manifest.get(key) for key in keys}
        out["layers"] = self.rows
        return out

    # -- writing ---------------------------------------------------------------------------

    def save(self, tables: dict[str, np.ndarray], **facts: Any) -> None:
        """Write these tables, then record them and `facts` in the manifest."""
        files = self.manifest.setdefault("files", {})
        for name, table in tables.items():
            file, dtype = TABLES[name]
            data = np.ascontiguousarray(table, dtype=np.dtype(dtype).newbyteorder("<"))
            digest = atomic_write(self.directory / file, memoryview(data).cast("B"))  # type: ignore[arg-type]  # numpy types arrays as Buffers on Python 3.12+ only
            files[name] = {"path": file, "bytes": data.nbytes, "sha256": digest}
        self.manifest.update(facts)
        self.write_manifest()


class Sweep(Protocol):
    """A pipeline's sweep: the tables before it, the distances one by one, then the rest."""

    def start(self, k: Any, size: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]: ...

    def expand(self, k: Any, distances: np.ndarray, flags: np.ndarray, first: int,
               solved: np.ndarray | None = None) -> Iterator[tuple[int, int]]: ...

    def finish(self, k: Any, distances: np.ndarray, flags: np.ndarray) -> np.ndarray: ...


def analyze_tables(store_class: type[S], sweep: Sweep, build_kernel: Callable[[Any], Any], puzzle: Any,
                   directory: Path, workers: int | None = None, force: bool = False,
                   distance_done: DistanceDone | None = None, warn: Callable[[str], None] | None = None) -> S:
    """Compute (or keep, or finish) the tables of `puzzle` in `directory` with `sweep` over the
    kernel arrays `build_kernel(puzzle)`.

    StoreError if another analysis is writing to `directory`; `warn` gets one line per
    temporary file of an interrupted run that is removed.
    """
    directory = Path(directory)
    with threads(workers), claimed(directory, lambda: store_class.for_puzzle(directory, puzzle, force),
                                   warn) as store:
        if not store.complete or must_recompute(store, warn):
            _sweep(puzzle, store, sweep, build_kernel(puzzle), distance_done)
    return store



def table_shortfalls(size: int, directory: Path, extra: int = 0) -> list[Shortfall]:
    """What the analysis of `size` ranks needs beyond the free memory and disk: its tables
    (and `extra` bytes per rank that its sweep takes beside them) in memory, and its tables
    written to `directory`."""
    return shortfalls(size * (BYTES_PER_RANK + extra), size * BYTES_PER_RANK, directory)


def _sweep(puzzle: Any, store: GoalStore, sweep: Sweep, k: Any, distance_done: DistanceDone | None) -> None:
    began = time.perf_counter()
    resumed = _checkpoint(store)
    if resumed is None:
        distances, flags, solved = sweep.start(k, puzzle.size)
        first, counts, earlier = 0, {}, 0.0
    else:
        distances, flags, first = resumed
        solved = None
        counts = {row["distance"]: row["positions"] for row in store.rows}
        earlier = store.seconds
    saved = time.perf_counter()
    for distance, found in sweep.expand(k, distances, flags, first, solved):
        counts[distance] = found
        if distance_done:
            distance_done(distance, found)
        if time.perf_counter() - saved >= CHECKPOINT_SECONDS:
            store.save({"distances": distances, "flags": flags}, complete=False, swept={"next": distance + 1},
                       seconds=round(earlier + time.perf_counter() - began, 3),
                       distances=[{"distance": d, "positions": n} for d, n in sorted(counts.items())])
            saved = time.perf_counter()
    clusters = sweep.finish(k, distances, flags)
    store.save({"distances": distances, "flags": flags, "clusters": clusters}, complete=True, swept=None,
               seconds=round(earlier + time.perf_counter() - began, 3), **facts(distances, flags, clusters))


def facts(distances: np.ndarray, flags: np.ndarray, clusters: np.ndarray) -> dict[str, Any]:
    """The manifest's counts: per distance, and of ranks, positions and connected sets."""
    solvable = distances < UNSOLVABLE
    reached = distances[solvable]
    longest = int(reached.max()) if len(reached) else -1
    per = np.bincount(reached, minlength=longest + 1)
    unique = np.bincount(reached, weights=(flags[solvable] & UNIQUE) > 0, minlength=longest + 1)
    every = np.bincount(reached, weights=(flags[solvable] & ALL_MOVES) > 0, minlength=longest + 1)
    valid = clusters[clusters != NO_CLUSTER]
    sizes = np.bincount(valid) if len(valid) else np.zeros(0, dtype=np.int64)
    return {
        "invalid": int(len(distances) - len(valid)),
        "positions": int(len(valid)),
        "solvable": int(solvable.sum()),
        "unsolvable": int((distances == UNSOLVABLE).sum()),
        "max_distance": longest,
        "clusters": int(len(sizes)),
        "largest_cluster": int(sizes.max()) if len(sizes) else 0,
        "distances": [{"distance": d, "positions": int(per[d]), "unique": int(unique[d]),
                       "all_moves": int(every[d])} for d in range(longest + 1) if per[d]],
    }


def _checkpoint(store: GoalStore) -> tuple[np.ndarray, np.ndarray, int] | None:
    """The tables and the next distance to sweep of an unfinished earlier run, or None if
    none verifies."""
    swept = store.manifest.get("swept")
    if not swept:
        return None
    try:
        return store.load("distances"), store.load("flags"), swept["next"]
    except (StoreError, KeyError, TypeError):
        return None
