"""Stored results: one file per layer and property, and a manifest with checksums.

A raw bit file holds a layer's bits in little-endian bit order (bit i of the layer is bit
i % 8 of byte i // 8), padded with zero bits to a whole number of 64-bit words so it can be
mapped straight into a uint64 array. A property whose bits are sparse enough is written as a
packed file instead (compressed blocks with an index, see `curator.layered.packed`), which
reads back as the same words; the manifest says which encoding each file has. Every write
goes to a temporary file that is renamed into place, so a killed run never leaves a
half-written file under a recorded name.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from curator.common.errors import DamagedResults, FolderRefused, StoreError
from curator.common.files import (
    MANIFEST,
    PUZZLE_COPY,
    ResultsFolder,
    atomic_write,
    check_file,
    read_manifest,
)
from curator.layered.bits import PROPERTIES, LayerBits
from curator.layered.packed import CODECS, PackedWords, pack_parts
from curator.layered.puzzle import Puzzle, parse_puzzle
from curator.layered.space import Layer, StateSpace
from curator.rules.registry import family_code

FORMAT = "curator-layers/3"
ENCODINGS = {"raw": ".bits", **{codec: ".packed" for codec in CODECS}}
"""File encodings (raw, or a codec of packed files) and the endings of their names."""
SPARSE = 0.01
"""Properties with at most this share of bits set are packed with the "sparse" codec, which
decodes them at several GB/s; denser ones with "zstd", or "lz4" (see LOOKED_UP)."""
LOOKED_UP = ("solvable",)
"""Properties that searches look up at scattered positions (pruning): where they are not
sparse, they are packed with "lz4", which decodes about four times as fast as "zstd" for
10-15% more bytes."""
PACK_RATIO = 0.9
"""A property is packed when its packed file is at most this share of the raw one ..."""
PACK_MIN_BYTES = 1 << 16
"""... and its raw file would be at least this long (packing a smaller one saves a few disk
blocks at most)."""
CHUNKS = "chunks"
"""Sub-folder where a run on a Dask cluster keeps the chunk files of the layer being swept
(see `curator.layered.cluster`)."""


@dataclass(frozen=True)
class LayerRecord:
    """What the manifest says of one finished layer."""

    layer: Layer
    entry: dict[str, Any]

    @property
    def seconds(self) -> float:
        return self.entry["seconds"]


class LayerStore(ResultsFolder):
    """The results folder of one layered puzzle: its manifest, bit files and a copy of the
    puzzle file (see docs/results-format.md)."""

    KIND = "layers"
    FORMAT = FORMAT
    WHAT = "layer tables"
    REDO = "compute every layer again"

    def __init__(self, directory: Path, manifest: dict[str, Any] | None = None) -> None:
        """The folder `directory` with `manifest`, or the one stored there (none if there is
        none; StoreError if it cannot be read)."""
        super().__init__(directory, self.stored_manifest(directory) if manifest is None else manifest)
        self._indexed: list | None = None
        self._by_layer: dict[Layer, LayerRecord] = {}
        self._checked: set[tuple[Path, str]] = set()
        """Files whose checksum matched the manifest (with that checksum) in this store's life."""

    # -- opening ---------------------------------------------------------------------------

    @classmethod
    def open(cls, directory: Path) -> LayerStore:
        """Open an existing results folder for reading."""
        store = cls(directory)
        if not store.manifest:
            raise StoreError(f"{directory}: no {MANIFEST} here; run `curator analyze` first")
        store.check_puzzle_copy()
        return store

    @classmethod
    def for_puzzle(cls, directory: Path, puzzle: Puzzle, max_pieces: int, force: bool) -> LayerStore:
        """Open or start the results folder of `puzzle`, keeping finished layers unless `force`
        (FolderRefused if they were computed with other code of its installed family)."""
        code = family_code(puzzle.rules)
        before: dict[str, Any] = {}
        if not force and (Path(directory) / MANIFEST).exists():
            with contextlib.suppress(StoreError):  # start_tables says what is wrong with it
                before = cls.stored_manifest(directory)
        kept = bool(before.get("layers")) and before.get("puzzle_sha256") == puzzle.sha256
        if kept:
            problem = _other_code(Path(directory), before, puzzle, code)
            if problem:
                raise FolderRefused(problem, f"use {{force}} to {cls.REDO}")
        # layers kept from a folder that predates the record were computed by unknown code:
        # the record is not written over them
        known = {"family_sha256": code} if not kept or "family_sha256" in before else {}
        store = cls.start_tables(directory, puzzle.name, puzzle.sha256, puzzle.text, force,
                                 cells=puzzle.board.size, piece_types=list(puzzle.piece_types),
                                 max_pieces=max_pieces, **known)
        store.manifest["complete"] = store._complete(puzzle, max_pieces)
        store.write_manifest()
        return store

    @classmethod
    def stored_manifest(cls, directory: Path) -> dict[str, Any]:
        """The manifest stored in `directory` (none if there is none), checked: StoreError if
        it holds other tables than layers, or is damaged."""
        path = Path(directory) / MANIFEST
        return _read_manifest(path) if path.exists() else {}

    def fresh_manifest(self) -> dict[str, Any]:
        return {"layers": []}

    def remove_partial_work(self) -> None:
        self.remove_chunks()

    def remove_chunks(self) -> None:
        """Delete the chunk files an interrupted cluster run left: `--force` reuses none."""
        folder = self.directory / CHUNKS
        if folder.is_dir():
            for path in folder.iterdir():
                if path.is_file():
                    path.unlink(missing_ok=True)
            with contextlib.suppress(OSError):
                folder.rmdir()  # only when empty

    def puzzle(self) -> Puzzle:
        """The puzzle these results belong to, read from the folder's copy of its file;
        StoreError if its installed family's code is not the code the layers were computed
        with."""
        puzzle = self.parsed_puzzle(parse_puzzle)
        problem = _other_code(self.directory, self.manifest, puzzle, family_code(puzzle.rules))
        if problem:
            raise StoreError(f"{problem}; run `curator analyze` with --force to compute them again")
        return puzzle

    # -- reading ---------------------------------------------------------------------------

    def records(self) -> list[LayerRecord]:
        """The finished layers in the order they were computed."""
        return list(self._index().values())

    def record(self, layer: Layer) -> LayerRecord | None:
        return self._index().get(layer)

    def _index(self) -> dict[Layer, LayerRecord]:
        """The manifest's layer entries by layer, rebuilt when the list of entries changes."""
        entries: list[Any] = self.manifest.get("layers", [])
        if self._indexed is not entries or len(self._by_layer) != len(entries):
            self._indexed = entries
            self._by_layer = {record.layer: record for record in (LayerRecord(self._layer(e), e)
                                                                   for e in entries)}
        return self._by_layer

    def verified(self, layer: Layer) -> bool:
        """Whether the layer is recorded and all its files match their checksums."""
        return self.record(layer) is not None and self.problem(layer) is None

    def problem(self, layer: Layer) -> str | None:
        """Why a recorded layer's files cannot be used (one line naming the file), or None.

        None too for a layer that is not recorded: there is nothing to be wrong with.
        """
        record = self.record(layer)
        if record is None:
            return None
        try:
            self._check_files(record, full=True)
        except StoreError as exc:
            return str(exc)
        return None

    def whole_tiers(self, puzzle: Puzzle, max_pieces: int) -> list[int]:
        """The piece counts, from the goal's up to `max_pieces`, whose every layer is recorded
        (an interrupted analysis leaves the layers of its last one part done)."""
        done = {e["key"] for e in self.manifest.get("layers", [])}
        return [tier[0].pieces for tier in StateSpace(puzzle).tiers(max_pieces)
                if all(layer.key in done for layer in tier)]

    def owns(self, name: str) -> bool:
        return super().owns(name) or (name.endswith(tuple(ENCODINGS.values())) and "/" not in name)

    def load(self, layer: Layer, verify: bool = True, mmap: bool = False,
             properties: tuple[str, ...] = PROPERTIES, keep: bool = False) -> LayerBits:
        """The layer's bits; StoreError if it is not recorded or a file is damaged.

        With `verify`, each file is checked against the manifest's checksum the first time
        this store reads it (a damaged file is one error line naming it and the command that
        recomputes it). Only the files of `properties` are read; the others stay empty.
        With `mmap`, raw files are mapped and packed files decoded a block at a time as they
        are indexed (`PackedWords`, which with `keep` keep every block they decode); without,
        every file is read into a numpy array.
        """
        record = self.record(layer)
        if record is None:
            raise StoreError(f"{self.directory}: layer {layer.key} has not been computed")
        try:
            self._check_files(record, full=verify, properties=properties)
        except StoreError as exc:
            if not verify:
                raise
            raise DamagedResults(str(exc), self.directory, self.directory / PUZZLE_COPY) from None
        arrays: dict[str, Any] = {prop: np.zeros(0, dtype="<u8") for prop in PROPERTIES}  # or PackedWords
        for prop in properties:
            words = open_words(self.directory, layer, record.entry["files"][prop], keep)
            arrays[prop] = words if mmap else np.array(words)
        return LayerBits(layer, **arrays)

    def solvable_words(self) -> dict[Layer, np.ndarray]:
        """Every stored layer's solvable words (mapped, not read, and checked against their
        checksums), for pruning searches: packed ones keep the blocks a search decodes."""
        return {r.layer: self.load(r.layer, mmap=True, properties=("solvable",), keep=True).solvable
                for r in self.records()}

    # -- writing ---------------------------------------------------------------------------

    def save(self, bits: LayerBits, seconds: float, puzzle: Puzzle, max_pieces: int) -> dict[str, Any]:
        """Write a finished layer's files, then record it in the manifest."""
        layer = bits.layer
        files = {}
        counts = bits.counts()
        for prop, words in bits.arrays().items():
            encoding, parts = encode(words, counts[prop], layer.size, prop in LOOKED_UP)
            path = self.directory / f"{layer.key}.{prop}{ENCODINGS[encoding]}"
            files[prop] = {"path": path.name, "encoding": encoding,
                           "bytes": sum(len(part) for part in parts), "sha256": atomic_write(path, parts)}
        entry = {
            "key": layer.key,
            "pieces": layer.pieces,
            "counts": layer.count_map(),
            "positions": layer.size,
            **counts,
            "seconds": round(seconds, 3),
            "files": files,
        }
        layers = self.manifest["layers"]
        kept = [e["key"] for e in layers]  # a layer computed again keeps its place
        if layer.key in kept:
            layers[kept.index(layer.key)] = entry
        else:
            layers.append(entry)
        self.manifest["complete"] = self._complete(puzzle, max_pieces)
        self.write_manifest()
        for prop, meta in files.items():  # a file of the other encoding left by an earlier run
            for suffix in set(ENCODINGS.values()):
                stale = self.directory / f"{layer.key}.{prop}{suffix}"
                if stale.name != meta["path"]:
                    stale.unlink(missing_ok=True)
        return entry

    # -- internals -------------------------------------------------------------------------

    def _layer(self, entry: dict[str, Any]) -> Layer:
        types = tuple(self.manifest["piece_types"])
        return Layer(tuple(entry["counts"][t] for t in types), self.manifest["cells"], types)

    def _complete(self, puzzle: Puzzle, max_pieces: int) -> bool:
        return len(self.whole_tiers(puzzle, max_pieces)) == max_pieces - puzzle.goal.pieces + 1

    def _check_files(self, record: LayerRecord, full: bool, properties: tuple[str, ...] = PROPERTIES) -> None:
        """Sizes (and with `full`, checksums) of the layer's files against the manifest. A
        checksum is computed once per file and store: later checks only look at the size."""
        for prop in properties:
            meta = record.entry["files"][prop]
            path = self.directory / meta["path"]
            raw = meta["encoding"] == "raw"
            fresh = full and (path, meta["sha256"]) not in self._checked
            check_file(path, meta, record.layer.words * 8 if raw else meta["bytes"], checksum=fresh)
            if fresh:
                self._checked.add((path, meta["sha256"]))



def encode(words: np.ndarray, count: int, positions: int, lookups: bool = False,
           ) -> tuple[str, Sequence[bytes | memoryview]]:
    """(encoding, the file's contents in parts) of a property's words with `count` of
    `positions` bits set: packed where packing pays, raw otherwise."""
    raw = memoryview(np.ascontiguousarray(words, dtype="<u8")).cast("B")  # type: ignore[arg-type]  # numpy types arrays as Buffers on Python 3.12+ only
    if raw.nbytes >= PACK_MIN_BYTES:
        codec = "sparse" if count <= SPARSE * positions else "lz4" if lookups else "zstd"
        parts = pack_parts(words, codec)
        if sum(len(part) for part in parts) <= PACK_RATIO * raw.nbytes:
            return codec, parts
    return "raw", [raw]


def open_words(directory: Path, layer: Layer, meta: dict[str, Any], keep: bool = False,
               ) -> np.ndarray | PackedWords:
    """The words of one recorded file (`meta`, its manifest entry): a raw file mapped, a
    packed one opened for block reads (see `PackedWords` for `keep`)."""
    path = directory / meta["path"]
    encoding = meta["encoding"]
    if encoding != "raw":
        words = PackedWords.open(path, layer.words, keep)
        if words.codec != encoding:
            raise StoreError(f"{path}: packed with {words.codec!r}, the manifest says {encoding!r}")
        return words
    return np.memmap(path, dtype="<u8", mode="r", shape=(layer.words,))


def _read_manifest(path: Path) -> dict[str, Any]:
    """The layer tables' manifest at `path`; StoreError if it holds other tables, or is damaged."""
    data = read_manifest(path)
    if data.get("format") != FORMAT:
        kind = data.get("kind")
        what = f"{kind} tables" if isinstance(kind, str) else f"format {data.get('format')!r}"
        raise StoreError(f"{path}: holds {what}, not layer tables ({FORMAT})")
    problem = _malformed(data)
    if problem:
        raise StoreError(f"{path}: damaged manifest ({problem})")
    return data


def _malformed(data: dict[str, Any]) -> str | None:
    """What is wrong with a manifest's fields, if anything (a manifest edited by hand)."""
    types = data.get("piece_types")
    if not isinstance(types, list) or not types or not all(isinstance(t, str) for t in types):
        return "piece_types"
    if type(data.get("cells")) is not int:
        return "cells"
    layers = data.get("layers", [])
    if not isinstance(layers, list):
        return "layers"
    for i, entry in enumerate(layers):
        where = f"layers[{i}]"
        if not isinstance(entry, dict) or not isinstance(entry.get("key"), str):
            return where
        counts = entry.get("counts")
        if not isinstance(counts, dict) or any(type(counts.get(t)) is not int for t in types):
            return f"{where}.counts"
        if any(type(entry.get(name)) is not int for name in ("pieces", "positions", *PROPERTIES)):
            return where
        if not isinstance(entry.get("seconds"), (int, float)):
            return f"{where}.seconds"
        files = entry.get("files")
        for prop in PROPERTIES:
            meta = files.get(prop) if isinstance(files, dict) else None
            if (
                not isinstance(meta, dict)
                or not isinstance(meta.get("path"), str)
                or Path(meta["path"]).name != meta["path"]
                or meta["path"] in ("", ".", "..")
                or type(meta.get("bytes")) is not int
                or not isinstance(meta.get("encoding"), str) or meta["encoding"] not in ENCODINGS
                or not isinstance(meta.get("sha256"), str)
            ):
                return f"{where}.files.{prop}"
    return None


def _other_code(directory: Path, manifest: dict[str, Any], puzzle: Puzzle, code: str | None) -> str | None:
    """What is wrong if the layers `manifest` records were computed with other code of the
    puzzle's family than `code` (`family_code`); None if not, or if the manifest predates
    the record."""
    if "family_sha256" not in manifest or manifest["family_sha256"] == code:
        return None
    return (f"{directory}: its layers were computed with other code of family {puzzle.rules.family!r} "
            "(the installed package was changed since)")
