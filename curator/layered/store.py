"""Stored results: one bit file per layer and property, and a manifest with checksums.

A bit file holds a layer's bits in little-endian bit order (bit i of the layer is bit i % 8
of byte i // 8), padded with zero bits to a whole number of 64-bit words so it can be mapped
straight into a uint64 array. Every write goes to a temporary file that is renamed into
place, so a killed run never leaves a half-written file under a recorded name.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import hashlib
import json
import os
import re
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from curator import __version__
from curator.layered.puzzle import Puzzle, parse_puzzle
from curator.layered.space import Layer
from curator.layered.sweep import PROPERTIES, LayerBits

MANIFEST = "manifest.json"
PUZZLE_COPY = "puzzle.toml"
FORMAT = "curator-layers/1"


class StoreError(Exception):
    """Stored results are missing, damaged or belong to another puzzle (one-line message)."""


TEMPORARY = re.compile(r"\.(.+)\.[A-Za-z0-9_]{8}\.tmp")
"""Names `atomic_write` gives its temporary files: .NAME.XXXXXXXX.tmp next to NAME."""


def atomic_write(path: Path, data: bytes | memoryview) -> str:
    """Write `data` to `path` through a temporary file and a rename; return its sha256.

    A failing write (a full disk, a read-only folder) leaves `path` as it was, removes the
    temporary file and raises OSError naming `path`.
    """
    digest = hashlib.sha256(data).hexdigest()
    tmp = None
    try:
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
        _sync_directory(path.parent)
    except BaseException as exc:
        if tmp is not None:
            with contextlib.suppress(OSError):
                Path(tmp).unlink(missing_ok=True)
        if isinstance(exc, OSError) and exc.filename != str(path):
            raise OSError(exc.errno, exc.strerror or str(exc), str(path)) from exc
        raise
    return digest


def _sync_directory(directory: Path) -> None:
    """Make a rename in `directory` durable (where the file system supports it)."""
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    except OSError as exc:
        if exc.errno not in (errno.EINVAL, errno.ENOTSUP):
            raise
    finally:
        os.close(fd)


def remove_temporaries(directory: Path, own: Callable[[str], bool]) -> list[str]:
    """Delete the temporary files a killed run left in `directory`; return their names.

    Only names `atomic_write` makes for files `own` claims are touched. Call it while
    holding `exclusive`, so no other run's file is taken for a leftover.
    """
    removed = []
    for path in sorted(directory.iterdir()):
        match = TEMPORARY.fullmatch(path.name)
        if match and own(match.group(1)) and path.is_file():
            path.unlink(missing_ok=True)
            removed.append(path.name)
    return removed


@contextlib.contextmanager
def exclusive(directory: Path) -> Iterator[None]:
    """Hold a lock on `directory` so that only one analysis writes there at a time.

    The lock belongs to the open folder, so it goes away with the process, however that
    ends; nothing is left behind to clean up.
    """
    fd = os.open(directory, os.O_RDONLY)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise StoreError(f"{directory}: another `curator analyze` is writing here; wait for it "
                             "or use --output to write elsewhere") from None
        yield
    finally:
        os.close(fd)


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while block := handle.read(1 << 24):
            digest.update(block)
    return digest.hexdigest()


def read_puzzle_copy(directory: Path, manifest: dict[str, Any]) -> tuple[str, str]:
    """(text, path) of the copy of the puzzle file a results folder keeps."""
    path = directory / manifest.get("puzzle_file", PUZZLE_COPY)
    try:
        return path.read_text(encoding="utf-8"), str(path)
    except (OSError, UnicodeDecodeError) as exc:
        raise StoreError(f"{path}: cannot be read ({exc})")


@dataclass(frozen=True)
class LayerRecord:
    """What the manifest says of one finished layer."""

    layer: Layer
    entry: dict[str, Any]

    @property
    def seconds(self) -> float:
        return self.entry["seconds"]


class LayerStore:
    """The results folder of one puzzle: its manifest, bit files and a copy of the puzzle file.

    >>> store = LayerStore(Path("output/peg"))      # doctest: +SKIP
    >>> bits = store.load(store.layers()[0].layer)  # doctest: +SKIP
    """

    def __init__(self, directory: Path, read: bool = True) -> None:
        self.directory = Path(directory)
        self.manifest_path = self.directory / MANIFEST
        self.manifest: dict[str, Any] = {}
        if read and self.manifest_path.exists():
            self.manifest = self._read_manifest()

    # -- opening ---------------------------------------------------------------------------

    @classmethod
    def open(cls, directory: Path) -> LayerStore:
        """Open an existing results folder for reading."""
        store = cls(directory)
        if not store.manifest:
            raise StoreError(f"{directory}: no {MANIFEST} here; run `curator analyze` first")
        return store

    @classmethod
    def for_puzzle(cls, directory: Path, puzzle: Puzzle, max_pieces: int, force: bool) -> LayerStore:
        """Open or start the results folder of `puzzle`, keeping finished layers unless `force`."""
        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        try:
            store = cls(directory)
        except StoreError as exc:
            if not force:
                raise StoreError(f"{exc}; use --force to compute every layer again") from None
            store = cls(directory, read=False)  # the damaged manifest is replaced below
        if store.manifest and store.manifest.get("puzzle_sha256") != puzzle.sha256 and not force:
            raise StoreError(
                f"{directory}: holds results of a different puzzle file "
                f"({store.manifest.get('puzzle')!r}); use --force to replace them or --output "
                "to write elsewhere"
            )
        if force or not store.manifest or store.manifest.get("puzzle_sha256") != puzzle.sha256:
            store.manifest = {"layers": []}
        atomic_write(directory / PUZZLE_COPY, puzzle.text.encode())
        store.manifest.update(
            format=FORMAT,
            curator_version=__version__,
            puzzle=puzzle.name,
            puzzle_sha256=puzzle.sha256,
            puzzle_file=PUZZLE_COPY,
            cells=puzzle.board.size,
            piece_types=list(puzzle.piece_types),
            max_pieces=max_pieces,
        )
        store.manifest["complete"] = store._complete(puzzle, max_pieces)
        store._write_manifest()
        return store

    def puzzle(self) -> Puzzle:
        """The puzzle these results belong to, read from the folder's copy of its file."""
        return parse_puzzle(*read_puzzle_copy(self.directory, self.manifest))

    # -- reading ---------------------------------------------------------------------------

    def records(self) -> list[LayerRecord]:
        """The finished layers in the order they were computed."""
        return [LayerRecord(self._layer(e), e) for e in self.manifest.get("layers", [])]

    def record(self, layer: Layer) -> LayerRecord | None:
        for record in self.records():
            if record.layer == layer:
                return record
        return None

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

    def remove_temporaries(self) -> list[str]:
        """Delete temporary files a killed run left behind (see `remove_temporaries`)."""
        return remove_temporaries(self.directory, _own_file)

    def load(self, layer: Layer, verify: bool = True, mmap: bool = False) -> LayerBits:
        """The layer's bits; StoreError if it is not recorded or a file is damaged."""
        record = self.record(layer)
        if record is None:
            raise StoreError(f"{self.directory}: layer {layer.key} has not been computed")
        self._check_files(record, full=verify)
        arrays = {}
        for prop in PROPERTIES:
            path = self.directory / record.entry["files"][prop]["path"]
            if mmap:
                arrays[prop] = np.memmap(path, dtype="<u8", mode="r", shape=(layer.words,))
            else:
                arrays[prop] = np.fromfile(path, dtype="<u8")
        return LayerBits(layer, **arrays)

    # -- writing ---------------------------------------------------------------------------

    def save(self, bits: LayerBits, seconds: float, puzzle: Puzzle, max_pieces: int) -> dict[str, Any]:
        """Write a finished layer's files, then record it in the manifest."""
        layer = bits.layer
        files = {}
        for prop, words in bits.arrays().items():
            path = self.directory / f"{layer.key}.{prop}.bits"
            data = memoryview(np.ascontiguousarray(words, dtype="<u8")).cast("B")
            files[prop] = {"path": path.name, "bytes": data.nbytes, "sha256": atomic_write(path, data)}
        entry = {
            "key": layer.key,
            "pieces": layer.pieces,
            "counts": layer.count_map(),
            "positions": layer.size,
            **bits.counts(),
            "seconds": round(seconds, 3),
            "files": files,
        }
        layers = [e for e in self.manifest["layers"] if e["key"] != layer.key]
        self.manifest["layers"] = layers + [entry]
        self.manifest["complete"] = self._complete(puzzle, max_pieces)
        self._write_manifest()
        return entry

    # -- internals -------------------------------------------------------------------------

    def _layer(self, entry: dict[str, Any]) -> Layer:
        types = tuple(self.manifest["piece_types"])
        return Layer(tuple(entry["counts"][t] for t in types), self.manifest["cells"], types)

    def _complete(self, puzzle: Puzzle, max_pieces: int) -> bool:
        from curator.layered.space import StateSpace

        done = {e["key"] for e in self.manifest.get("layers", [])}
        wanted = [layer.key for level in StateSpace(puzzle).levels(max_pieces) for layer in level]
        return all(key in done for key in wanted)

    def _check_files(self, record: LayerRecord, full: bool) -> None:
        for prop in PROPERTIES:
            meta = record.entry["files"][prop]
            path = self.directory / meta["path"]
            expected = record.layer.words * 8
            try:
                size = path.stat().st_size
            except OSError:
                raise StoreError(f"{path}: missing")
            if size != expected or meta["bytes"] != expected:
                raise StoreError(f"{path}: {size} bytes, expected {expected}")
            if full and file_sha256(path) != meta["sha256"]:
                raise StoreError(f"{path}: checksum does not match the manifest (damaged file)")

    def _read_manifest(self) -> dict[str, Any]:
        try:
            data = json.loads(self.manifest_path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise StoreError(f"{self.manifest_path}: unreadable ({exc})")
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise StoreError(f"{self.manifest_path}: not a curator manifest (format {FORMAT})")
        problem = _malformed(data)
        if problem:
            raise StoreError(f"{self.manifest_path}: damaged manifest ({problem})")
        return data

    def _write_manifest(self) -> None:
        text = json.dumps(self.manifest, indent=1) + "\n"
        atomic_write(self.manifest_path, text.encode())


def _own_file(name: str) -> bool:
    return name in (MANIFEST, PUZZLE_COPY) or (name.endswith(".bits") and "/" not in name)


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
                or not isinstance(meta.get("sha256"), str)
            ):
                return f"{where}.files.{prop}"
    return None
