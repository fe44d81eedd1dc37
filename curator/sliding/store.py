"""Stored sliding-block tables: distances, flags and connected sets, a copy of the puzzle file
and a manifest ("kind": "sliding") with counts per distance and a checksum per file.

Files are written with `curator.common.files.atomic_write` and checked before they are used.
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
from curator.sliding.puzzle import SlidingPuzzle, parse_sliding_puzzle

KIND = "sliding"
FORMAT = "curator-sliding/2"
OLDER_FORMATS = ("curator-sliding/1",)
"""Formats written before manifests had a checksum (read as they are)."""
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


def holds_sliding(directory: Path) -> bool:
    """Whether `directory` has a manifest of kind "sliding"."""
    try:
        return manifest_kind(directory) == KIND
    except StoreError:
        return False


class SlidingStore(DistanceFolder):
    """The results folder of one sliding-block puzzle."""

    OWN_FILES = (MANIFEST, PUZZLE_COPY, *(file for file, _ in TABLES.values()))

    KIND = KIND
    FORMAT = FORMAT
    OLDER = OLDER_FORMATS
    WHAT = "sliding-block tables"

    @classmethod
    def for_puzzle(cls, directory: Path, puzzle: SlidingPuzzle, force: bool) -> SlidingStore:
        """Open or start the folder of `puzzle`, keeping its tables or checkpoint unless `force`."""
        edge = puzzle.edge if puzzle.move == "until_blocked" else None
        return cls.start_tables(directory, puzzle.name, puzzle.sha256, puzzle.text, force, move=puzzle.move,
                                metric=puzzle.metric, edge=edge, ranks=puzzle.size, encoding=ENCODING)

    # -- reading ---------------------------------------------------------------------------

    def puzzle(self) -> SlidingPuzzle:
        """The puzzle of these tables, read from the folder's copy of its file."""
        return self.parsed_puzzle(parse_sliding_puzzle)

    def load(self, name: str) -> np.ndarray:
        """The table `name` (see TABLES), checked against the manifest's size and checksum."""
        file, dtype = TABLES[name]
        meta = self.manifest.get("files", {}).get(name)
        if not meta:
            raise StoreError(f"{self.directory}: no {name} table has been stored yet")
        path = self.directory / file
        check_file(path, meta, self.manifest["ranks"] * np.dtype(dtype).itemsize)
        return np.fromfile(path, dtype=np.dtype(dtype).newbyteorder("<")).astype(dtype, copy=False)

    def summary(self) -> dict[str, Any]:
        """What `curator info --json` prints: the counts, and the rows per distance under
        `layers`, the key every kind's rows have there."""
        keys = ("puzzle", "complete", "move", "metric", "edge", "ranks", "invalid", "positions", "solvable",
                "unsolvable", "max_distance", "clusters", "largest_cluster")
        out = {key: self.manifest.get(key) for key in keys}
        out["layers"] = [dict(item) for item in self.manifest.get("distances", [])]
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
