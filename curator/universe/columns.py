"""The stored sets of a universe as selections read them: one small array per figure (distance,
set size, minimal, unique, piece set), filled from the files of sets one file at a time, so that
the records (`record_dtype`, 49 bytes a set on 6 x 6) are never all held at once. What only a
drawing needs (lanes, walls, first and farthest positions) stays in the files: `Columns.record`
reads one set's record from its file.

Piece sets (the vehicles of each kind and the walls) are numbered by a key in mixed radix
(`PieceSets`), so that filters on counts, vehicles and walls look at one small table per piece
set, and the farthest set of each piece set is a maximum per number, not a sort of rows.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from math import prod
from pathlib import Path
from typing import Any

import numpy as np

from curator.common.errors import StoreError
from curator.common.files import check_file
from curator.universe.puzzle import Universe
from curator.universe.store import UniverseStore

KEYED = 1 << 22
"""A piece set's number is its key while a universe has at most this many keys (6 x 6 with up to
two walls has 183,027); beyond, it is the key's rank among the keys stored."""


def smallest_unsigned(most: int) -> np.dtype:
    """The smallest unsigned integer type that holds 0..most."""
    return np.dtype(np.min_scalar_type(max(most, 0)))


@dataclass(frozen=True)
class PieceSets:
    """Keys of piece sets. A set's counts (each kind of vehicle, the goal vehicle first, then its
    walls) are digits, count minus the fewest the universe allows, in mixed radix with the walls
    least significant. Keys order piece sets as their rows of counts order lexicographically."""

    fewest: tuple[int, ...]
    radix: tuple[int, ...]

    @classmethod
    def of(cls, universe: Universe) -> PieceSets:
        """The digits of a universe's piece sets. No more vehicles of a kind than the board's
        cells hold can stand on it, which bounds every radix (and keeps keys below 2**57)."""
        cells = universe.rows * universe.cols
        fewest = [v.fewest for v in universe.vehicles] + [universe.walls[0]]
        most = [min(v.most, cells // v.length) for v in universe.vehicles] + [min(universe.walls[1], cells)]
        return cls(tuple(fewest), tuple(max(1, m - f + 1) for f, m in zip(fewest, most)))

    @property
    def keys(self) -> int:
        """How many keys there are: every key is below it."""
        return prod(self.radix)

    @property
    def strides(self) -> tuple[int, ...]:
        return tuple(prod(self.radix[k + 1:]) for k in range(len(self.radix)))

    def key(self, counts: np.ndarray, dtype: np.dtype) -> np.ndarray:
        """The key of each row of counts (sets by kinds), as `dtype`; StoreError if a count is
        outside what the universe allows (the key would name another piece set)."""
        key = np.zeros(len(counts), dtype)
        if not len(counts):
            return key
        for kind, (fewest, radix, stride) in enumerate(zip(self.fewest, self.radix, self.strides)):
            count = np.ascontiguousarray(counts[:, kind])  # one kind at a time: fast to scan
            low, high = int(count.min()), int(count.max())
            if low < fewest or high >= fewest + radix:
                raise StoreError(f"stored sets hold {low}..{high} of kind {kind}, outside the universe's "
                                 f"{fewest}..{fewest + radix - 1}")
            if radix > 1:  # the digit is 0 otherwise
                digit = count.astype(dtype)
                if fewest:
                    digit -= dtype.type(fewest)
                key += digit * dtype.type(stride)
        return key

    def count(self, keys: np.ndarray, kind: int) -> np.ndarray:
        """The count of `kind` in each piece set of these keys."""
        return keys // self.strides[kind] % self.radix[kind] + self.fewest[kind]


@dataclass(frozen=True)
class SetFiles:
    """Where each stored set is: its rank (its index in the order of the pieces of work) falls
    in one file of sets, at its place there. Each file is checked against its manifest entry,
    sha256 included, the first time it is read."""

    files: list[tuple[Path, dict[str, Any]]]
    """The files of sets in order, with their manifest entries."""
    starts: np.ndarray
    """The rank of the first set of each file, then the number of sets (int64)."""
    dtype: np.dtype
    """The records of the files."""
    verified: set[int] = field(default_factory=set)
    """The files whose checksum was checked here."""

    def read(self, index: int) -> np.ndarray:
        """Every set of file `index`, the file checked (its checksum the first time)."""
        path, entry = self.files[index]
        sets = UniverseStore.read(path, entry, self.dtype, verify=index not in self.verified)
        self.verified.add(index)
        return sets

    @classmethod
    def of(cls, store: UniverseStore, dtype: np.dtype) -> SetFiles:
        """The files of a store as its manifest lists them (the files are not opened)."""
        files = store.files(dtype)
        starts = np.zeros(len(files) + 1, np.int64)
        np.cumsum(np.array([entry["sets"] for _, entry in files], np.int64), out=starts[1:])
        return cls(files, starts, dtype)

    def __len__(self) -> int:
        return int(self.starts[-1])

    def record(self, rank: int) -> np.void:
        """The stored record of set `rank` (0 <= rank < len), read alone from its file (checked
        whole the first time, then against its size)."""
        index = int(np.searchsorted(self.starts, rank, side="right")) - 1
        place = rank - int(self.starts[index])
        if index not in self.verified:
            return self.read(index)[place]
        path, entry = self.files[index]
        check_file(path, entry, entry["bytes"], checksum=False)
        return np.fromfile(path, self.dtype, count=1, offset=place * self.dtype.itemsize)[0]


@dataclass(frozen=True)
class Columns:
    """Every stored set's figures, by rank."""

    distance: np.ndarray
    """Moves from the farthest position to the goal, -1 if the set cannot be solved (int8)."""
    size: np.ndarray
    """Positions of the set."""
    minimal: np.ndarray
    """Whether the farthest position is minimal (bool; false if the set cannot be solved)."""
    unique: np.ndarray
    """Whether it has one shortest solution (bool; false if the set cannot be solved)."""
    piece_set: np.ndarray
    """The set's piece set number (unsigned): an index of `keys`."""
    keys: np.ndarray
    """The key of each piece set number (int64, ascending)."""
    piece_sets: PieceSets

    def __len__(self) -> int:
        return len(self.distance)

    def count(self, kind: int) -> np.ndarray:
        """Vehicles of `kind` (walls: the last kind) of each piece set number (int64)."""
        return self.piece_sets.count(self.keys, kind)

    def vehicles(self) -> np.ndarray:
        """Vehicles of each piece set number, the goal vehicle included (int64)."""
        kinds = len(self.piece_sets.radix) - 1
        total = np.zeros(len(self.keys), np.int64)
        for kind in range(kinds):
            total += self.count(kind)
        return total


def read_columns(files: SetFiles, universe: Universe) -> Columns:
    """The columns of every stored set, each file checked against the manifest as it is read
    (see `SetFiles.read`)."""
    total, dtype = len(files), files.dtype
    piece_sets = PieceSets.of(universe)
    keyed = piece_sets.keys <= KEYED
    distance = np.empty(total, np.int8)
    size = np.empty(total, dtype["size"])
    minimal = np.empty(total, bool)
    unique = np.empty(total, bool)
    key = np.empty(total, smallest_unsigned(piece_sets.keys - 1) if keyed else np.int64)
    for index, (begin, end) in enumerate(zip(files.starts.tolist(), files.starts[1:].tolist())):
        sets = files.read(index)
        distance[begin:end] = sets["distance"]
        size[begin:end] = sets["size"]
        np.equal(sets["minimal"], 1, out=minimal[begin:end])
        np.equal(sets["unique"], 1, out=unique[begin:end])
        key[begin:end] = piece_sets.key(sets["counts"], key.dtype)
        del sets
    if keyed:
        keys = np.arange(piece_sets.keys, dtype=np.int64)
    else:
        keys, number = np.unique(key, return_inverse=True)
        key = number.reshape(-1).astype(smallest_unsigned(len(keys) - 1))
    return Columns(distance, size, minimal, unique, key, keys.astype(np.int64),
                   piece_sets)


def within(column: np.ndarray, low: int, high: int) -> np.ndarray:
    """Which values of an integer column are in low..high (bounds of any size)."""
    info = np.iinfo(column.dtype)
    if low > info.max or high < info.min or low > high:
        return np.zeros(len(column), bool)
    return (column >= max(low, info.min)) & (column <= min(high, info.max))


def leading(column: np.ndarray, descending: bool, limit: int | None) -> np.ndarray:
    """Indices of `column` sorted by value (largest first if `descending`), equal values in
    index order, the first `limit` of them: what a stable sort gives, without sorting more than
    the first `limit` when that is fewer than all."""
    n = len(column)
    if limit is None or not 0 <= limit < n:
        order = np.argsort(-column.astype(np.int64) if descending else column, kind="stable")
        return order if limit is None else order[:limit]
    if limit == 0:
        return np.zeros(0, np.intp)
    if descending:
        bound = np.partition(column, n - limit)[n - limit]
        ahead = np.flatnonzero(column > bound)
        ahead = ahead[np.argsort(-column[ahead].astype(np.int64), kind="stable")]
    else:
        bound = np.partition(column, limit - 1)[limit - 1]
        ahead = np.flatnonzero(column < bound)
        ahead = ahead[np.argsort(column[ahead], kind="stable")]
    tied = np.flatnonzero(column == bound)[:limit - len(ahead)]
    return np.concatenate([ahead, tied])
