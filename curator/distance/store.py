"""Stored distance tables: the nibble table file, a copy of the puzzle file and a manifest.

The manifest ("kind": "distance") holds exact counts per distance and the table's checksum;
files are written with `curator.layered.store.atomic_write`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from curator.common.errors import StoreError
from curator.common.files import (
    MANIFEST,
    PUZZLE_COPY,
    atomic_write,
    check_file,
    manifest_kind,
)
from curator.common.tables import DistanceFolder
from curator.distance.puzzle import PermutationPuzzle, parse_permutation_puzzle

KIND = "distance"
FORMAT = "curator-distance/2"
TABLE_FILE = "distances.nib"
ENCODING = (
    "one 4-bit entry per rank, entry i in byte i // 2 (low nibble for even i); "
    "the entry is the distance mod 15, or 15 for a position not reached"
)


def totals(counts: list[int], positions: int) -> dict[str, int]:
    """The manifest's totals that follow from its positions per distance (`counts`) among
    `positions` ranks: the farthest distance, and the positions reached and not reached."""
    return {"max_distance": len(counts) - 1, "reached": sum(counts), "unreached": positions - sum(counts)}


def holds_distances(directory: Path) -> bool:
    """Whether `directory` has a manifest of kind "distance"."""
    try:
        return manifest_kind(directory) == KIND
    except StoreError:
        return False


class DistanceStore(DistanceFolder):
    """The results folder of one permutation puzzle: manifest, table file and puzzle copy."""

    OWN_FILES = (MANIFEST, PUZZLE_COPY, TABLE_FILE)

    KIND = KIND
    FORMAT = FORMAT
    WHAT = "a distance table"

    @classmethod
    def for_puzzle(cls, directory: Path, puzzle: PermutationPuzzle, force: bool) -> DistanceStore:
        """Open or start the folder of `puzzle`, keeping its table or checkpoint unless `force`."""
        return cls.start_tables(directory, puzzle.name, puzzle.sha256, puzzle.text, force,
                                metric=puzzle.metric, moves=[m.name for m in puzzle.moves],
                                positions=puzzle.size, encoding=ENCODING)

    # -- reading ---------------------------------------------------------------------------

    def puzzle(self) -> PermutationPuzzle:
        """The puzzle of this table, read from the folder's copy of its file."""
        return self.parsed_puzzle(parse_permutation_puzzle)

    def load(self) -> np.ndarray:
        """The nibble table (uint8), checked against the manifest's size and checksum."""
        meta = self.manifest.get("file")
        if not meta:
            raise StoreError(f"{self.directory}: no distance table has been stored yet")
        if not isinstance(meta, dict) or meta.get("path") != TABLE_FILE:
            raise StoreError(f"{self.manifest_path}: damaged manifest (file)")
        path = self.directory / TABLE_FILE
        check_file(path, meta, (self.manifest["positions"] + 1) // 2)
        return np.fromfile(path, dtype=np.uint8)

    def damaged(self) -> str | None:
        """What is wrong with the stored table (missing, or not as the manifest records it), or
        None if it checks out."""
        try:
            self.load()
        except StoreError as exc:
            return str(exc)
        return None

    def summary(self) -> dict[str, Any]:
        """What `curator info --json` prints: the table's rows (positions per distance) under
        `layers`, the key every kind's rows have there."""
        return {
            "puzzle": self.manifest["puzzle"],
            "complete": self.complete,
            "layers": self.rows,
        }

    # -- writing ---------------------------------------------------------------------------

    def save(self, table: np.ndarray, counts: list[int], complete: bool, seconds: float) -> None:
        """Write the table, then record it with its counts in the manifest."""
        path = self.directory / TABLE_FILE
        digest = atomic_write(path, memoryview(np.ascontiguousarray(table, dtype=np.uint8)))  # type: ignore[arg-type]  # numpy types arrays as Buffers on Python 3.12+ only
        self.manifest.update(
            complete=complete,
            **totals(counts, self.manifest["positions"]),
            seconds=round(seconds, 3),
            distances=[{"distance": d, "positions": n} for d, n in enumerate(counts)],
            file={"path": TABLE_FILE, "bytes": table.nbytes, "sha256": digest},
        )
        self.write_manifest()
