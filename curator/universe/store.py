"""Stored universe tables: one file of connected sets per piece of work (`sets-NNNNN.sets`, its
number in at least five digits; a numpy record array, see `record_dtype`), listed with its size
and sha256 in a manifest of kind "universe"; pieces already stored are kept, so an interrupted
analysis resumes.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from curator.common.errors import PuzzleError, StoreError
from curator.common.files import ResultsFolder, atomic_write, check_file
from curator.universe.puzzle import Universe, parse_universe
from curator.universe.space import Space
from curator.universe.sweep import Found

KIND = "universe"
FORMAT = "curator-universe/1"
SUFFIX = ".sets"
MANIFEST_EVERY = 5.0
"""Seconds between writes of the manifest while pieces of work are saved (a universe may have
tens of thousands of pieces, and the manifest lists them all)."""


def record_dtype(lanes: int, kinds: int) -> np.dtype:
    """One connected set: its lanes' groups, walls, smallest and farthest positions (codes),
    size, distance (-1: cannot be solved), minimal and unique (1, 0, or -1 if it cannot be
    solved), and its vehicles of each kind then its walls."""
    return np.dtype([("groups", "u1", (lanes,)), ("walls", "<i8"), ("first", "<i8"), ("farthest", "<i8"),
                     ("size", "<u4"), ("distance", "i1"), ("minimal", "i1"), ("unique", "i1"),
                     ("counts", "u1", (kinds,))])


KEEP = ("all", "solvable", "minimal")
"""Which connected sets a universe's tables keep: every one, those that can be solved, or those
whose farthest position is minimal (Fogleman's database keeps these). The manifest keeps the
totals of every set found."""


def kept(sets: np.ndarray, keep: str) -> np.ndarray:
    """The records of `sets` that `keep` keeps, in order."""
    if keep == "solvable":
        return sets[sets["distance"] >= 0]
    if keep == "minimal":
        return sets[sets["minimal"] == 1]
    return sets


def totals(distance: np.ndarray, size: np.ndarray) -> dict[str, int]:
    """Sets and positions, and those that can be solved, of the sets of these distances (-1:
    cannot be solved) and sizes."""
    solvable = distance >= 0
    return {"sets": len(distance), "positions": int(size.sum(dtype=np.int64)),
            "solvable_sets": int(solvable.sum()),
            "solvable_positions": int(size.sum(dtype=np.int64, where=solvable))}


MOST_DISTANCE = int(np.iinfo(np.int8).max)
"""The most moves a set's record holds (a Rush Hour universe on 6 x 6 needs 60 at most)."""


def records(found: Found, space: Space) -> np.ndarray:
    """The sets a piece of work of `space` found as records; PuzzleError naming the universe's
    file if a set needs more moves than a record holds (`MOST_DISTANCE`), rather than a wrong
    distance."""
    farthest = int(found.figures[:, 1].max(initial=-1))
    if farthest > MOST_DISTANCE:
        raise PuzzleError(space.universe.source, "board",
                          f"a connected set needs {farthest} moves, more than the universe's tables store "
                          f"({MOST_DISTANCE}); take a smaller board or fewer vehicles")
    out = np.zeros(len(found.codes), record_dtype(space.n_lanes, len(space.universe.vehicles) + 1))
    out["groups"] = found.groups
    out["walls"], out["first"], out["farthest"] = found.codes[:, 0], found.codes[:, 1], found.codes[:, 2]
    out["size"] = found.figures[:, 0]
    out["distance"], out["minimal"], out["unique"] = found.figures[:, 1:].T
    out["counts"] = found.counts
    return out


class UniverseStore(ResultsFolder):
    """The results folder of one universe."""

    KIND = KIND
    FORMAT = FORMAT
    WHAT = "universe tables"

    _written = 0.0

    def owns(self, name: str) -> bool:
        return super().owns(name) or (name.startswith("sets-") and name.endswith(SUFFIX))

    @staticmethod
    def chunk_key(item: int) -> str:
        """How the manifest names piece of work `item` (at least five digits)."""
        return f"{item:05d}"

    @classmethod
    def chunk_name(cls, item: int) -> str:
        return f"sets-{cls.chunk_key(item)}{SUFFIX}"

    @property
    def chunks(self) -> dict[str, dict[str, Any]]:
        """The pieces of work stored: their number (at least five digits) and file entry;
        StoreError if the manifest lists them as anything else."""
        chunks = self.manifest.setdefault("chunks", {})
        if not isinstance(chunks, dict) or not all(isinstance(entry, dict) for entry in chunks.values()):
            raise StoreError(f"{self.manifest_path}: chunks must map pieces of work to their files")
        return chunks

    def present(self, item: int) -> bool:
        """Whether piece of work `item` is listed and its file has the size listed (`done`
        checks it whole)."""
        entry = self.chunks.get(self.chunk_key(item))
        path = self.directory / self.chunk_name(item)
        return entry is not None and path.is_file() and path.stat().st_size == entry.get("bytes")

    def done(self, item: int) -> bool:
        """Whether piece of work `item` is stored and its file checks out (a damaged or missing
        file is computed again)."""
        entry = self.chunks.get(self.chunk_key(item))
        if entry is None:
            return False
        try:
            check_file(self.directory / self.chunk_name(item), entry, entry["bytes"])
        except StoreError:
            return False
        return True

    def save(self, item: int, sets: np.ndarray, seeds: int, seconds: float, found: dict[str, int]) -> None:
        """Store the sets kept of one piece of work, then list them in the manifest with the
        totals of every set `found` (see `totals`), written at most every MANIFEST_EVERY seconds
        (see `listed`): pieces stored but not yet listed are computed again by a resumed
        analysis."""
        data = sets.tobytes()
        digest = atomic_write(self.directory / self.chunk_name(item), data)
        self.chunks[self.chunk_key(item)] = {
            "bytes": len(data), "sha256": digest, "sets": len(sets), "seeds": seeds,
            "positions": int(sets["size"].sum(dtype=np.int64)), "seconds": round(seconds, 3), "found": found}
        if time.monotonic() - self._written >= MANIFEST_EVERY:
            self.listed()

    def listed(self) -> None:
        """Write the manifest, listing every piece of work saved."""
        self.write_manifest()
        self._written = time.monotonic()

    @property
    def keep(self) -> str:
        """Which sets the tables keep (see `KEEP`; folders from before the choice keep all)."""
        keep = self.manifest.get("keep", "all")
        if keep not in KEEP:
            raise StoreError(f"{self.manifest_path}: keep is {keep!r}, not one of {', '.join(KEEP)}")
        return str(keep)

    def finish(self) -> None:
        self.manifest["complete"] = True
        self.listed()

    def puzzle(self) -> Universe:
        return self.parsed_puzzle(parse_universe)

    def files(self, dtype: np.dtype) -> list[tuple[Path, dict[str, Any]]]:
        """Every stored piece of work's file and manifest entry, in order, each entry checked to
        describe whole sets of `dtype` (the files are not opened: `read` checks them)."""
        out = []
        for number in self.chunks:
            if not number.isdigit():
                raise StoreError(f"{self.manifest_path}: the piece of work {number!r} is not a number")
        for number in sorted(self.chunks, key=int):
            entry = self.chunks[number]
            path = self.directory / self.chunk_name(int(number))
            sets = entry.get("sets", -1)
            if not isinstance(sets, int) or sets < 0 or sets * dtype.itemsize != entry.get("bytes"):
                raise StoreError(f"{self.manifest_path}: the entry of {path.name} does not describe "
                                 "whole sets")
            out.append((path, entry))
        return out

    @staticmethod
    def read(path: Path, entry: dict[str, Any], dtype: np.dtype, verify: bool = True) -> np.ndarray:
        """One piece of work's sets, its file checked against its manifest entry (its size
        always, its sha256 with `verify`)."""
        check_file(path, entry, entry["bytes"], checksum=False)
        sets = np.fromfile(path, dtype)
        if verify and hashlib.sha256(sets.view(np.uint8).data).hexdigest() != entry.get("sha256"):
            raise StoreError(f"{path}: checksum does not match the manifest (damaged file)")
        return sets

    def load(self, dtype: np.dtype, verify: bool = True) -> Iterator[np.ndarray]:
        """Every stored piece of work's sets, in order, each file checked against the manifest
        (its size always, its sha256 with `verify`)."""
        for path, entry in self.files(dtype):
            yield self.read(path, entry, dtype, verify)
