"""Results folders on disk: atomic writes, the folder lock, the manifest and the puzzle copy.

Every kind of results (layered bits, distance tables, sliding-block tables) lives in a folder
with a `manifest.json`
that holds checksums and a copy of the puzzle file. Every write goes to a temporary file
that is renamed into place, so a killed run never leaves a half-written file under a
recorded name.
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
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from curator.common.errors import FolderRefused, PuzzleError, StoreError
from curator.common.reading import MAX_INPUT
from curator.version import __version__

MANIFEST = "manifest.json"
PUZZLE_COPY = "puzzle.toml"
RESULT_SUFFIXES = (".bits", ".packed", ".nib", ".u8", ".u16", ".u32", ".sets")
"""Endings of the result files of every kind of results."""
PLAYER_FILE = "difficulty.json"
"""The file of a results folder that holds its calibrated player (`curator calibrate`)."""
TEMPORARY = re.compile(r"\.(.+)\.[A-Za-z0-9_]{8}\.tmp")
"""Names `atomic_write` gives its temporary files: .NAME.XXXXXXXX.tmp next to NAME."""


def atomic_write(path: Path, data: bytes | memoryview | Sequence[bytes | memoryview]) -> str:
    """Write `data` (or its parts, one after another) to `path` through a temporary file and a
    rename; return its sha256.

    A failing write (a full disk, a read-only folder) leaves `path` as it was, removes the
    temporary file and raises OSError naming `path`. A symbolic link is kept and the file it
    names written; anything at `path` that is not a regular file (a device, a pipe) is left
    alone with OSError, never replaced.
    """
    if path.is_symlink():
        path = path.resolve()
    if path.exists() and not path.is_file():
        raise OSError(errno.EEXIST, "is not a regular file, so it is not replaced", str(path))
    parts = [data] if isinstance(data, bytes | bytearray | memoryview) else data
    sha = hashlib.sha256()
    for part in parts:
        sha.update(part)
    digest = sha.hexdigest()
    tmp = None
    try:
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
        os.fchmod(fd, 0o666 & ~_umask())  # as open() would create it (mkstemp makes it 0600)
        with os.fdopen(fd, "wb") as handle:
            for part in parts:
                handle.write(part)
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


def _umask() -> int:
    """The process's umask, read without changing it (Linux keeps it in /proc)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    return 0o022


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
            raise FolderRefused(f"{directory}: another `curator analyze` is writing here",
                                "wait for it or use {output} to write elsewhere") from None
        yield
    finally:
        os.close(fd)


F = TypeVar("F", bound="ResultsFolder")
P = TypeVar("P")


@contextlib.contextmanager
def claimed(directory: Path, open_store: Callable[[], F], warn: Callable[[str], None] | None = None
            ) -> Iterator[F]:
    """The store `open_store` opens in `directory`, held for one analysis: the folder is
    created and locked (see `exclusive`), and the temporary files a killed run left there are
    removed, `warn` getting one line for each."""
    directory.mkdir(parents=True, exist_ok=True)
    with exclusive(directory):
        store = open_store()
        for name in store.remove_temporaries():
            if warn:
                warn(f"{directory / name}: removed, a temporary file left by an interrupted run")
        yield store


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while block := handle.read(1 << 24):
            digest.update(block)
    return digest.hexdigest()


def check_file(path: Path, meta: dict[str, Any], expected: int, checksum: bool = True) -> None:
    """StoreError naming `path` unless the file is `expected` bytes long, as its manifest entry
    `meta` says too, and (with `checksum`) matches the entry's sha256."""
    try:
        size = path.stat().st_size
    except OSError:
        raise StoreError(f"{path}: missing") from None
    if size != expected or meta["bytes"] != expected:
        raise StoreError(f"{path}: {size} bytes, expected {expected}")
    if checksum and file_sha256(path) != meta["sha256"]:
        raise StoreError(f"{path}: checksum does not match the manifest (damaged file)")


MANIFEST_CHECKSUM = "manifest_sha256"
"""The manifest's own checksum: the sha256 of `canonical_json` of every other field."""


def canonical_json(data: Any) -> bytes:
    """`data` as JSON in one fixed spelling (keys sorted, no spaces, ASCII), for checksums."""
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=True,
                      allow_nan=False).encode()


def manifest_text(manifest: dict[str, Any]) -> str:
    """The text of a manifest file: its fields, then the checksum of their canonical JSON."""
    fields = json.loads(json.dumps({k: v for k, v in manifest.items() if k != MANIFEST_CHECKSUM}))
    digest = hashlib.sha256(canonical_json(fields)).hexdigest()
    return json.dumps({**fields, MANIFEST_CHECKSUM: digest}, indent=1) + "\n"


def read_manifest(path: Path) -> dict[str, Any]:
    """A manifest's fields (without its checksum); StoreError naming the file if it is not a
    JSON object, has no checksum, or its checksum does not match its fields. A manifest
    without one was edited, damaged, or written before manifests had one: nothing in it can
    be trusted, so its tables are computed again."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError) as exc:
        raise StoreError(f"{path}: unreadable ({exc.__class__.__name__}: {exc})") from None
    if not isinstance(data, dict):
        raise StoreError(f"{path}: not a curator manifest")
    if MANIFEST_CHECKSUM not in data:
        raise StoreError(f"{path}: has no {MANIFEST_CHECKSUM} (edited or damaged manifest, or one written "
                         "before manifests had a checksum)")
    stated = data.pop(MANIFEST_CHECKSUM)
    try:
        actual = hashlib.sha256(canonical_json(data)).hexdigest()
    except ValueError:  # NaN or infinity: never written by curator
        actual = None
    if stated != actual:
        raise StoreError(f"{path}: checksum does not match its contents (edited or damaged manifest)")
    return data


def manifest_kind(directory: Path) -> str | None:
    """The "kind" of the manifest in `directory`, or None when there is no manifest;
    StoreError naming it if it is unreadable, does not match its checksum or names no kind."""
    path = Path(directory) / MANIFEST
    if not path.exists():
        return None
    kind = read_manifest(path).get("kind")  # its kind's reader checks the rest
    if not isinstance(kind, str):
        raise StoreError(f"{path}: damaged manifest (kind)")
    return kind


class ResultsFolder:
    """What every results folder has: a manifest, a copy of the puzzle file, temporary files
    of interrupted runs to clean up, and one puzzle it belongs to."""

    OWN_FILES: tuple[str, ...] = (MANIFEST, PUZZLE_COPY)
    """File names the kind of results writes (besides `owns`)."""

    def __init__(self, directory: Path, manifest: dict[str, Any]) -> None:
        self.directory = Path(directory)
        self.manifest = manifest

    KIND = ""
    FORMAT = ""
    WHAT = "results"
    """The `kind` and `format` of the manifest of a kind of tables, and what it is called."""
    REDO = "compute the tables again"
    """What `force` does to a folder whose manifest cannot be read, as its advice says."""

    @classmethod
    def open_tables(cls: type[F], directory: Path) -> F:
        """Open an existing folder of this kind of tables for reading."""
        path = Path(directory) / MANIFEST
        if not path.exists():
            raise StoreError(f"{directory}: no {MANIFEST} here; run `curator analyze` first")
        manifest = read_manifest(path)
        if manifest.get("kind") != cls.KIND or manifest.get("format") != cls.FORMAT:
            raise StoreError(f"{path}: not {cls.WHAT} (its format is {manifest.get('format')!r}, theirs "
                             f"{cls.FORMAT})")
        store = cls(directory, manifest)
        store.check_puzzle_copy()
        return store

    @classmethod
    def start_tables(cls: type[F], directory: Path, name: str, sha256: str, text: str, force: bool,
                     **facts: Any) -> F:
        """Open or start the folder of the puzzle called `name` (file text `text`, digest
        `sha256`) for this kind of tables, keeping what is there unless `force`; `facts` go
        into the manifest."""
        Path(directory).mkdir(parents=True, exist_ok=True)
        try:
            manifest = cls.stored_manifest(directory)
        except StoreError as exc:
            if not force:
                raise FolderRefused(str(exc), f"use {{force}} to {cls.REDO}") from None
            manifest = {}
            cls(directory, {}).remove_results()  # whatever they were, no manifest lists them now
        store = cls(directory, manifest)
        if not force:
            store.refuse_other_puzzle(sha256)
            store.refuse_foreign_copy(text)
        else:
            if store.holds_other_puzzle(sha256):
                store.remove_results()
            store.remove_partial_work()
        if force or not store.manifest or store.holds_other_puzzle(sha256):
            store.manifest = store.fresh_manifest()
        store.write_puzzle_copy(text)
        store.manifest.update(kind=cls.KIND, complete=store.manifest.get("complete", False),
                              format=cls.FORMAT, curator_version=__version__, puzzle=name,
                              puzzle_sha256=sha256, puzzle_file=PUZZLE_COPY, **facts)
        store.write_manifest()
        return store

    @classmethod
    def stored_manifest(cls, directory: Path) -> dict[str, Any]:
        """The manifest an analysis into `directory` starts from: none if there is none, and one
        of another kind of tables taken as another puzzle's; StoreError if it cannot be read."""
        path = Path(directory) / MANIFEST
        manifest = read_manifest(path) if path.exists() else {}
        if manifest and manifest.get("kind") != cls.KIND:
            manifest = {**manifest, "puzzle_sha256": None}  # another kind of results: not ours
        return manifest

    def fresh_manifest(self) -> dict[str, Any]:
        """The manifest of a folder that holds no results of this puzzle yet."""
        return {}

    def remove_partial_work(self) -> None:
        """Delete what an interrupted run left besides the results files (`force` reuses
        nothing); this kind of tables leaves nothing else."""

    @property
    def manifest_path(self) -> Path:
        return self.directory / MANIFEST

    def owns(self, name: str) -> bool:
        """Whether a file of this name in the folder belongs to these results."""
        return name in self.OWN_FILES

    def remove_temporaries(self) -> list[str]:
        """Delete the temporary files a killed run left here; return their names.

        Only names `atomic_write` makes for files the results own are touched. Call it while
        holding `exclusive`, so no other run's file is taken for a leftover.
        """
        removed = []
        for path in sorted(self.directory.iterdir()):
            match = TEMPORARY.fullmatch(path.name)
            if match and self.owns(match.group(1)) and path.is_file():
                path.unlink(missing_ok=True)
                removed.append(path.name)
        return removed

    def remove_results(self) -> list[str]:
        """Delete the result files of any kind of results here (bit files, distance tables)
        and the player calibrated on them: what `--force` does before it writes another
        puzzle's results into the folder, so that no file is left that the new manifest does
        not list or that was fitted for another puzzle."""
        removed = []
        for path in sorted(self.directory.iterdir()):
            if (path.suffix in RESULT_SUFFIXES or path.name == PLAYER_FILE) and path.is_file():
                path.unlink(missing_ok=True)
                removed.append(path.name)
        return removed

    def puzzle_text(self) -> tuple[str, str]:
        """(text, path) of the copy of the puzzle file the folder keeps, checked against the
        manifest's `puzzle_sha256`: StoreError naming the copy if it was edited or damaged."""
        name = self.manifest.get("puzzle_file", PUZZLE_COPY)
        path = self.directory / PUZZLE_COPY
        if name != PUZZLE_COPY:
            raise StoreError(f"{self.manifest_path}: puzzle_file must be {PUZZLE_COPY}, got {name!r}")
        try:
            with path.open("rb") as handle:
                data = handle.read(MAX_INPUT + 1)  # a puzzle file is never longer
        except OSError as exc:
            raise StoreError(f"{path}: cannot be read ({exc.strerror or exc})") from None
        if hashlib.sha256(data).hexdigest() != self.manifest.get("puzzle_sha256"):
            raise StoreError(f"{path}: does not match the manifest's puzzle_sha256 "
                             "(edited or damaged copy of the puzzle file)")
        try:
            return data.decode("utf-8"), str(path)
        except UnicodeDecodeError as exc:
            raise StoreError(f"{path}: cannot be read ({exc})") from None

    def parsed_puzzle(self, parse: Callable[[str, str], P]) -> P:
        """The puzzle `parse(text, source)` reads from the folder's checked copy; StoreError
        if the copy is not a valid puzzle file (as this version of curator reads them)."""
        text, source = self.puzzle_text()
        try:
            return parse(text, source)
        except PuzzleError as exc:
            raise StoreError(f"stored puzzle copy is not a valid puzzle file ({exc})") from None

    def check_puzzle_copy(self) -> None:
        """StoreError naming the puzzle copy unless it is the one the manifest records."""
        self.puzzle_text()

    def holds_other_puzzle(self, sha256: str) -> bool:
        return bool(self.manifest) and self.manifest.get("puzzle_sha256") != sha256

    def refuse_other_puzzle(self, sha256: str) -> None:
        """StoreError if the folder holds results of another puzzle file."""
        if self.holds_other_puzzle(sha256):
            raise FolderRefused(
                f"{self.directory}: holds results of a different puzzle file "
                f"({self.manifest.get('puzzle')!r})",
                "use {force} to replace them or {output} to write elsewhere",
            )

    def refuse_foreign_copy(self, text: str) -> None:
        """FolderRefused if a folder listing no results holds a file where the puzzle copy goes
        that is not this puzzle file (a file of the designer's own, which the copy would
        overwrite)."""
        path = self.directory / PUZZLE_COPY
        if not self.manifest and path.is_file() and path.read_bytes() != text.encode():
            raise FolderRefused(f"{path}: is not a copy of this puzzle file, and the analysis would "
                                "overwrite it", "use {force} to replace it or {output} to write elsewhere")

    def write_puzzle_copy(self, text: str) -> None:
        atomic_write(self.directory / PUZZLE_COPY, text.encode())

    def write_manifest(self) -> None:
        atomic_write(self.manifest_path, manifest_text(self.manifest).encode())


DEFAULT_SAMPLE = 500
"""Ranks a check re-derives (per layer, or from sliding-block tables) unless told otherwise;
every rank where there are fewer."""


@dataclass
class Verification:
    """What a check of a results folder found: file problems (one line each) and ranks
    whose stored bits disagree with the rules."""

    directory: Path
    layers: int = 0
    files: int = 0
    ranks: int = 0
    problems: list[str] = field(default_factory=list)
    bad_ranks: list[Any] = field(default_factory=list)
    """Stored positions whose bits do not follow from their children's (one line each)."""

    @property
    def ok(self) -> bool:
        return not self.problems and not self.bad_ranks
