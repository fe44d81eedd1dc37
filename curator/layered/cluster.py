"""Sweeping layers on a Dask cluster.

The client cuts each layer into ranges of whole words and submits one task per range. A task
carries only the results folder, the layer's piece counts, its word range and the path of
its chunk file. The worker reads the puzzle from the folder's copy of the puzzle file, maps
the layers one piece down read-only (the client recorded them in the manifest before),
computes its range and writes the three word arrays to its chunk file through a temporary
file and a rename. Running a task again writes the same bytes, so a task whose worker died
simply runs again elsewhere. The client copies each chunk into the layer's arrays as its
task finishes (checking the worker's checksum), and `analyze` stores the layer exactly as a
local run does; the chunk files are then deleted.

The results folder must be on storage every worker sees at the same absolute path.

A task computes with all of its worker process's Numba threads (NUMBA_NUM_THREADS, by
default one per core). The compiled sweep holds Python's GIL, so a process computes one
task at a time whatever its number of Dask threads: start workers with `--nthreads 1` and
as many processes per machine as NUMBA_NUM_THREADS divides its cores into.

Dask is imported only when a cluster is used.
"""

from __future__ import annotations

import contextlib
import hashlib
import threading
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import numba
import numpy as np

from curator.common.errors import StoreError
from curator.common.files import atomic_write
from curator.layered.bits import PROPERTIES, LayerBits
from curator.layered.puzzle import Puzzle
from curator.layered.space import Layer, StateSpace
from curator.layered.store import LayerStore, open_words
from curator.layered.sweep import CHUNK_WORDS, LayerSweep, Progress

if TYPE_CHECKING:
    from distributed import Client

CHUNKS = "chunks"
"""Sub-folder of the results folder that holds the chunk files of the layer being swept."""
TASKS_PER_THREAD = 4
"""Tasks per worker thread and layer, so a slow or lost worker holds up little."""
MAX_TASK_WORDS = 1 << 22
"""At most this many words per task (32 MiB per property in a chunk file)."""


class ClusterError(Exception):
    """The scheduler cannot be reached or a task failed (one-line message)."""


# -- splitting a layer ---------------------------------------------------------------------


def task_ranges(words: int, threads: int, task_words: int | None = None) -> list[tuple[int, int]]:
    """Word ranges [first, last) covering a layer of `words` words, in order.

    By default a range is a whole number of CHUNK_WORDS, sized for TASKS_PER_THREAD tasks per
    worker thread, between CHUNK_WORDS and MAX_TASK_WORDS words.
    """
    if task_words is None:
        target = -(-words // (TASKS_PER_THREAD * max(threads, 1)))
        task_words = min(max(target // CHUNK_WORDS * CHUNK_WORDS, CHUNK_WORDS), MAX_TASK_WORDS)
    if task_words < 1:
        raise ValueError(f"task_words must be at least 1, got {task_words}")
    return [(first, min(first + task_words, words)) for first in range(0, words, task_words)]


def chunk_path(directory: Path, layer: Layer, first: int, last: int) -> Path:
    return Path(directory) / CHUNKS / f"{layer.key}.{first}-{last}.bits"


def clear_chunks(directory: Path, layer: Layer) -> None:
    """Delete the layer's chunk files, and temporary ones a dead worker may have left."""
    folder = Path(directory) / CHUNKS
    if not folder.is_dir():
        return
    for pattern in (f"{layer.key}.*", f".{layer.key}.*"):
        for path in folder.glob(pattern):
            path.unlink(missing_ok=True)
    with contextlib.suppress(OSError):
        folder.rmdir()  # only when empty


# -- on a worker ---------------------------------------------------------------------------


def sweep_chunk(directory: str, counts: tuple[int, ...], first: int, last: int, path: str,
                puzzle_sha256: str) -> tuple[str, str]:
    """Compute words [first, last) of a layer and write them to the chunk file `path`.

    The file holds the solvable, unique and all_moves words one after the other
    (little-endian uint64). Returns (path, sha256 of the file). This is the task a worker
    runs; it reads nothing but the results folder.
    """
    sweep = _layer_sweep(directory, tuple(counts), puzzle_sha256)
    numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)  # the setting is per thread
    arrays = sweep.compute(first, last)
    data = np.concatenate(arrays).astype("<u8", copy=False)
    target = Path(path)
    target.parent.mkdir(exist_ok=True)
    return path, atomic_write(target, memoryview(data).cast("B"))


_cache_lock = threading.Lock()
_below: tuple[tuple, list[LayerBits]] | None = None
_sweep: tuple[tuple, LayerSweep] | None = None


def _layer_sweep(directory: str, counts: tuple[int, ...], puzzle_sha256: str) -> LayerSweep:
    """The layer's sweep, built from the layers below as recorded in the manifest.

    The last sweep built, and the tier below it mapped from the store, are kept for the
    next tasks, as long as the files below are the same (their checksums are in the keys).
    """
    global _below, _sweep
    store = LayerStore(Path(directory))
    if store.manifest.get("puzzle_sha256") != puzzle_sha256:
        raise StoreError(
            f"{directory}: this worker does not see the results being computed; the results "
            "folder must be on storage every worker shares, at the same path"
        )
    puzzle = store.puzzle()
    space = StateSpace(puzzle)
    layer = space.layer(counts)
    below = space.layers_with(layer.pieces - 1) if layer.pieces > puzzle.goal.pieces else []
    entries = {entry["key"]: entry for entry in store.manifest.get("layers", [])}
    missing = [b.key for b in below if b.key not in entries]
    if missing:
        raise StoreError(f"{directory}: layers {', '.join(missing)} are not recorded in the manifest")
    below_key = (directory, puzzle_sha256,
                 tuple(entries[b.key]["files"][p]["sha256"] for b in below for p in PROPERTIES))
    with _cache_lock:
        if _sweep is not None and _sweep[0] == (below_key, counts):
            return _sweep[1]
        if _below is None or _below[0] != below_key:
            _below = (below_key, [_mapped(store.directory, b, entries[b.key]) for b in below])
        sweep = LayerSweep(puzzle, layer, _below[1])
        _sweep = ((below_key, counts), sweep)
        return sweep


def _mapped(directory: Path, layer: Layer, entry: dict) -> LayerBits:
    """A recorded layer's bit files mapped read-only (what `LayerStore.load(mmap=True)` gives,
    without looking the layer up in the manifest once per layer)."""
    arrays = {}
    for prop in PROPERTIES:
        meta = entry["files"][prop]
        path = directory / meta["path"]
        try:
            size = path.stat().st_size
        except OSError as exc:
            raise StoreError(f"{path}: cannot be read ({exc.strerror})") from None
        expected = layer.words * 8 if meta.get("encoding", "raw") == "raw" else meta["bytes"]
        if size != expected:
            raise StoreError(f"{path}: {size} bytes, expected {expected}")
        arrays[prop] = open_words(directory, layer, meta)
    return LayerBits(layer, **arrays)


# -- on the client -------------------------------------------------------------------------


def check_address(address: str) -> None:
    """ValueError (one line) unless `address` looks like a scheduler address, tcp://HOST:PORT.

    ClusterError if Dask is not installed.
    """
    try:
        from distributed.comm import get_address_host_port
    except ImportError:
        raise ClusterError("a Dask scheduler needs Dask: pip install 'curator[cluster]'") from None
    try:
        get_address_host_port(address)
    except ValueError as exc:
        raise ValueError(f"{address!r} is not a scheduler address like tcp://HOST:8786 ({exc})") from None


class ClusterExecutor:
    """Sweeps each layer as chunk tasks on the workers of a Dask scheduler.

    Pass it to `curator.layered.analysis.analyze(..., executor=...)`. `task` and `task_words` exist
    for tests: the function each task runs (same arguments as `sweep_chunk`) and a fixed
    number of words per task.
    """

    def __init__(self, client: Client, task: Callable = sweep_chunk, task_words: int | None = None,
                 owns_client: bool = False) -> None:
        self.client = client
        self.task = task
        self.task_words = task_words
        self.owns_client = owns_client

    @classmethod
    def connect(cls, address: str, timeout: float | str | None = None) -> ClusterExecutor:
        """Connect to the scheduler at `address` (tcp://HOST:PORT), or raise ClusterError.

        `timeout` defaults to Dask's `distributed.comm.timeouts.connect` setting.
        """
        try:
            check_address(address)  # before a client exists: a failed one hangs on closing
        except ValueError as exc:
            raise ClusterError(str(exc)) from None
        import dask
        from distributed import Client

        if timeout is None:
            timeout = dask.config.get("distributed.comm.timeouts.connect")
        try:
            client = Client(address, timeout=timeout, set_as_default=False)
        except (OSError, TimeoutError, ValueError, TypeError) as exc:
            reason = " ".join(str(exc).split()) or exc.__class__.__name__
            raise ClusterError(f"cannot reach the Dask scheduler at {address}: {reason}") from None
        return cls(client, owns_client=True)

    def close(self) -> None:
        if self.owns_client:
            self.client.close()

    def __enter__(self) -> ClusterExecutor:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def describe(self) -> str:
        threads = self.client.nthreads()
        return f"{self.client.scheduler.address}: {len(threads)} workers, {sum(threads.values())} threads"

    def sweep(self, store: LayerStore, puzzle: Puzzle, layer: Layer, below: list[LayerBits],
              progress: Progress | None = None) -> LayerBits:
        """The layer's bits, computed by the workers from the layers `store` holds below it."""
        from distributed import as_completed

        directory = store.directory.absolute()  # as the user named it: the same on every machine
        ranges = task_ranges(layer.words, sum(self.client.nthreads().values()), self.task_words)
        clear_chunks(directory, layer)
        futures = {}
        for first, last in ranges:
            future = self.client.submit(
                self.task, str(directory), layer.counts, first, last,
                str(chunk_path(directory, layer, first, last)), puzzle.sha256,
                key=f"sweep-{layer.key}-{first}-{last}-{uuid.uuid4().hex}",
            )
            futures[future] = (first, last)
        bits = LayerBits.empty(layer)
        finished = False
        try:
            for future in as_completed(futures, loop=self.client.loop):
                first, last = futures[future]
                try:
                    path, digest = future.result()
                except Exception as exc:
                    raise ClusterError(f"layer {layer.key}, words {first}..{last}: {_reason(exc)}") from None
                _copy_chunk(bits, Path(path), digest, first, last)
                if progress:
                    progress(min(last * 64, layer.size) - first * 64)
            finished = True
        finally:
            if not finished:
                self.client.cancel(list(futures))
            clear_chunks(directory, layer)
        return bits


def _copy_chunk(bits: LayerBits, path: Path, digest: str, first: int, last: int) -> None:
    """Copy a chunk file into words [first, last) of `bits`, if it is what the worker wrote."""
    n = last - first
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ClusterError(
            f"{path}: cannot be read ({exc.strerror}); the results folder must be on storage "
            "every worker shares, at the same path"
        ) from None
    if len(data) != len(PROPERTIES) * n * 8 or hashlib.sha256(data).hexdigest() != digest:
        raise ClusterError(f"{path}: differs from what the worker wrote (checksum)")
    words = np.frombuffer(data, dtype="<u8")
    for i, whole in enumerate(bits.arrays().values()):
        whole[first:last] = words[i * n:(i + 1) * n]


def _reason(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return f"{exc.__class__.__name__}: {text}" if text else exc.__class__.__name__
