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

A chunk file starts with a one-line JSON header naming what it holds (the puzzle file's
sha256, the layer, the word range, a digest of the checksums of the layers below it, the
curator version) and the sha256 of its words. When a run stopped in the middle of a layer,
the next one copies the chunk files whose header and checksum match and computes only the
words they do not cover; any other chunk file is deleted, with a warning.

The results folder must be on storage every worker sees at the same absolute path.

A task computes with all of its worker process's Numba threads (NUMBA_NUM_THREADS, by
default one per core). The compiled sweep holds Python's GIL, so a process computes one
task at a time whatever its number of Dask threads: start workers with `--nthreads 1` and
as many processes per machine as NUMBA_NUM_THREADS divides its cores into.

Before the first layer, the client asks every worker how much memory its machine has
available and how much room its Dask memory limit leaves: a worker needs the layers below
the largest task's layer (mapped, shared by the worker processes of one machine) and the
task's own arrays; the client needs the largest layer it assembles.

Dask is imported only when a cluster is used.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import re
import threading
import uuid
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import numba
import numpy as np

from curator.common.errors import StoreError
from curator.common.files import atomic_write
from curator.common.resources import Shortfall, free_memory, short_of
from curator.layered.bits import PROPERTIES, LayerBits
from curator.layered.puzzle import Puzzle
from curator.layered.space import Layer, StateSpace
from curator.layered.store import CHUNKS, LayerRecord, LayerStore, open_words
from curator.layered.sweep import CHUNK_WORDS, LayerSweep, Progress
from curator.version import __version__

if TYPE_CHECKING:
    from distributed import Client

CHUNK_FORMAT = "curator-chunk/1"
MAX_HEADER = 4096
"""A chunk file's header line is shorter than this many bytes."""
TASKS_PER_THREAD = 4
"""Tasks per worker thread and layer, so a slow or lost worker holds up little."""
MAX_TASK_WORDS = 1 << 22
"""At most this many words per task (32 MiB per property in a chunk file)."""


class ClusterError(StoreError):
    """The scheduler cannot be reached or a task failed (one-line message)."""


class ChunkProblem(Exception):
    """A chunk file is not the one a task of these results writes (a phrase, without the path)."""


# -- splitting a layer ---------------------------------------------------------------------


def task_ranges(words: int, threads: int, task_words: int | None = None,
                done: Sequence[tuple[int, int]] = ()) -> list[tuple[int, int]]:
    """Word ranges [first, last) covering a layer of `words` words except the `done` ranges
    (sorted and disjoint), in order, each at most `task_words` long.

    By default a range is a whole number of CHUNK_WORDS, sized for TASKS_PER_THREAD tasks per
    worker thread, between CHUNK_WORDS and MAX_TASK_WORDS words.
    """
    if task_words is None:
        target = -(-words // (TASKS_PER_THREAD * max(threads, 1)))
        task_words = min(max(target // CHUNK_WORDS * CHUNK_WORDS, CHUNK_WORDS), MAX_TASK_WORDS)
    if task_words < 1:
        raise ValueError(f"task_words must be at least 1, got {task_words}")
    ranges = []
    start = 0
    for first, last in [*done, (words, words)]:
        ranges += [(a, min(a + task_words, first)) for a in range(start, first, task_words)]
        start = last
    return ranges


def chunk_path(directory: Path, layer: Layer, first: int, last: int) -> Path:
    return Path(directory) / CHUNKS / f"{layer.key}.{first}-{last}.bits"


def chunk_files(directory: Path, layer: Layer) -> Iterator[tuple[int, int, Path]]:
    """(first, last, path) of the layer's chunk files, by first word; temporary files a dead
    worker left are deleted on the way."""
    folder = Path(directory) / CHUNKS
    if not folder.is_dir():
        return
    name = re.compile(re.escape(layer.key) + r"\.(\d+)-(\d+)\.bits")
    found = []
    for path in folder.iterdir():
        if path.name.startswith(f".{layer.key}."):
            path.unlink(missing_ok=True)
        elif match := name.fullmatch(path.name):
            found.append((int(match.group(1)), int(match.group(2)), path))
    yield from sorted(found)


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


# -- chunk files ---------------------------------------------------------------------------


@dataclass(frozen=True)
class ChunkLabel:
    """Which results a chunk file belongs to, as its header says."""

    puzzle_sha256: str
    layer: str
    """The layer's key."""
    below: str
    """`below_digest` of the layers one piece down that the words were computed from."""
    curator_version: str = __version__


FIELD_NAMES = {"format": "file format", "puzzle_sha256": "puzzle file", "layer": "layer",
               "below": "set of layers below", "curator_version": "curator version",
               "first": "word range", "last": "word range"}


def below_digest(entries: list[dict]) -> str:
    """One sha256 over the manifest's checksums of the files of the layers in `entries`."""
    lines = sorted(f"{e['key']} {p} {e['files'][p]['sha256']}" for e in entries for p in PROPERTIES)
    return hashlib.sha256("\n".join(lines).encode()).hexdigest()


def chunk_bytes(label: ChunkLabel, first: int, last: int, arrays: Sequence[np.ndarray]) -> memoryview:
    """A chunk file: its header line, padded to a whole number of words, then the arrays'
    words one after the other (little-endian uint64)."""
    digest = hashlib.sha256()
    for array in arrays:
        digest.update(memoryview(np.ascontiguousarray(array, dtype="<u8")).cast("B"))  # type: ignore[arg-type]  # numpy types arrays as Buffers on Python 3.12+ only
    header = json.dumps({"format": CHUNK_FORMAT, **asdict(label), "first": first, "last": last,
                         "sha256": digest.hexdigest()}, sort_keys=True)
    size = -(-(len(header) + 1) // 8) * 8
    out = np.empty(size // 8 + sum(len(array) for array in arrays), dtype="<u8")
    out[:size // 8].view(np.uint8)[:] = np.frombuffer((header.ljust(size - 1) + "\n").encode(), np.uint8)
    position = size // 8
    for array in arrays:
        out[position:position + len(array)] = array
        position += len(array)
    return memoryview(out).cast("B")  # type: ignore[arg-type]  # numpy types arrays as Buffers on Python 3.12+ only


def chunk_words(data: bytes, label: ChunkLabel, first: int, last: int) -> np.ndarray:
    """The words [first, last) of the three properties that the chunk file `data` holds, one
    row each; ChunkProblem unless its header names `label` and this range and its words match
    its checksum."""
    end = data.find(b"\n", 0, MAX_HEADER)
    try:
        header = json.loads(data[:end]) if end >= 0 and (end + 1) % 8 == 0 else None
    except ValueError:
        header = None
    if not isinstance(header, dict):
        raise ChunkProblem("not a chunk file (no header)")
    expected = {"format": CHUNK_FORMAT, **asdict(label), "first": first, "last": last}
    for field, value in expected.items():
        if header.get(field) != value:
            raise ChunkProblem(f"written for another {FIELD_NAMES[field]}")
    body = memoryview(data)[end + 1:]
    size = len(PROPERTIES) * (last - first) * 8
    if len(body) != size:
        raise ChunkProblem(f"{len(body)} bytes of words, expected {size} (cut short or damaged)")
    if hashlib.sha256(body).hexdigest() != header.get("sha256"):
        raise ChunkProblem("its words do not match its checksum (damaged file)")
    return np.frombuffer(body, dtype="<u8").reshape(len(PROPERTIES), last - first)


# -- on a worker ---------------------------------------------------------------------------


def sweep_chunk(directory: str, counts: tuple[int, ...], first: int, last: int, path: str,
                puzzle_sha256: str) -> tuple[str, str]:
    """Compute words [first, last) of a layer and write them to the chunk file `path`.

    The file holds a header line (`chunk_bytes`), then the solvable, unique and all_moves
    words one after the other (little-endian uint64). Returns (path, sha256 of the file).
    This is the task a worker runs; it reads nothing but the results folder.
    """
    sweep, below = _layer_sweep(directory, tuple(counts), puzzle_sha256)
    numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)  # type: ignore[attr-defined]  # the setting is per thread
    arrays = sweep.compute(first, last)
    data = chunk_bytes(ChunkLabel(puzzle_sha256, sweep.layer.key, below), first, last, arrays)
    target = Path(path)
    target.parent.mkdir(exist_ok=True)
    return path, atomic_write(target, data)


_cache_lock = threading.Lock()
_below: tuple[tuple, list[LayerBits]] | None = None
_sweep: tuple[tuple, LayerSweep, str] | None = None


def _layer_sweep(directory: str, counts: tuple[int, ...], puzzle_sha256: str) -> tuple[LayerSweep, str]:
    """The layer's sweep, built from the layers below as recorded in the manifest, and the
    `below_digest` of those layers.

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
            return _sweep[1], _sweep[2]
        if _below is None or _below[0] != below_key:
            _below = (below_key, [_mapped(store.directory, b, entries[b.key]) for b in below])
        sweep = LayerSweep(puzzle, layer, _below[1])
        _sweep = ((below_key, counts), sweep, below_digest([entries[b.key] for b in below]))
        return _sweep[1], _sweep[2]


def _mapped(directory: Path, layer: Layer, entry: dict) -> LayerBits:
    """A recorded layer's bit files mapped read-only (what `LayerStore.load(mmap=True)` gives,
    without looking the layer up in the manifest once per layer)."""
    arrays: dict[str, Any] = {}  # numpy arrays or PackedWords, which index like them
    for prop in PROPERTIES:
        meta = entry["files"][prop]
        path = directory / meta["path"]
        try:
            size = path.stat().st_size
        except OSError as exc:
            raise StoreError(f"{path}: cannot be read ({exc.strerror})") from None
        expected = layer.words * 8 if meta["encoding"] == "raw" else meta["bytes"]
        if size != expected:
            raise StoreError(f"{path}: {size} bytes, expected {expected}")
        arrays[prop] = open_words(directory, layer, meta)
    return LayerBits(layer, **arrays)


def worker_memory(dask_worker: Any = None) -> tuple[int | None, int | None]:
    """(bytes available on this worker's machine, bytes its Dask memory limit leaves before
    the nanny restarts it), None where unknown or unlimited. Runs on each worker."""
    import dask
    import psutil

    limit = dask_worker.memory_manager.memory_limit if dask_worker is not None else None
    if not limit:
        return free_memory(), None
    terminate = dask.config.get("distributed.worker.memory.terminate") or 1
    return free_memory(), max(int(limit * terminate) - psutil.Process().memory_info().rss, 0)


# -- on the client -------------------------------------------------------------------------


@dataclass(frozen=True)
class TaskMemory:
    """Bytes in use while one task of a layer runs."""

    client: int
    """On the client: the layer's arrays and one chunk file read."""
    shared: int
    """On a worker's machine: the tier below, mapped (once for all its worker processes)."""
    private: int
    """In a worker process: the task's arrays and its chunk file's bytes, and the copy of the
    tier below's solvable and unique words that typed puzzles make."""


def task_memory(puzzle: Puzzle, max_pieces: int, threads: int, task_words: int | None = None,
                ) -> list[TaskMemory]:
    """What the largest task of every layer up to `max_pieces` pieces needs, as `task_ranges`
    splits layers for `threads` worker threads."""
    props = len(PROPERTIES)
    copies = 2 if puzzle.typed else 0
    out = []
    below = 0
    for tier in StateSpace(puzzle).tiers(max_pieces):
        for layer in tier:
            words = max(last - first for first, last in task_ranges(layer.words, threads, task_words))
            out.append(TaskMemory(client=props * 8 * (layer.words + words), shared=props * below,
                                  private=2 * props * 8 * words + copies * below))
        below = sum(layer.words * 8 for layer in tier)
    return out


def check_address(address: str) -> None:
    """ValueError (one line) unless `address` looks like a scheduler address, tcp://HOST:PORT.

    ClusterError if Dask is not installed.
    """
    try:
        from distributed.comm import get_address_host_port
    except ImportError:
        raise ClusterError("a Dask scheduler needs Dask: pip install 'curator[cluster]'") from None
    try:
        _, port = get_address_host_port(address)
    except ValueError as exc:
        raise ValueError(f"{address!r} is not a scheduler address like tcp://HOST:8786 ({exc})") from None
    if not 0 < port < 65536:
        raise ValueError(f"{address!r} is not a scheduler address like tcp://HOST:8786 (port {port} is not "
                         "1..65535)")


class ClusterExecutor:
    """Sweeps each layer as chunk tasks on the workers of a Dask scheduler.

    Pass it to `curator.layered.analysis.analyze(..., executor=...)`. `task`, `task_words` and
    `memory_probe` exist for tests: the function each task runs (same arguments as
    `sweep_chunk`), a fixed number of words per task and what each worker runs to tell its
    memory (as `worker_memory`).
    """

    def __init__(self, client: Client, task: Callable = sweep_chunk, task_words: int | None = None,
                 owns_client: bool = False, memory_probe: Callable = worker_memory) -> None:
        self.client = client
        self.task = task
        self.task_words = task_words
        self.owns_client = owns_client
        self.memory_probe = memory_probe

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

    def memory_needs(self, puzzle: Puzzle, max_pieces: int) -> tuple[int, list[Shortfall]]:
        """Peak bytes the client holds while layers up to `max_pieces` pieces are swept, and
        what the workers lack: each worker against the room its memory limit leaves, and each
        machine against its available memory for all of its workers at once."""
        needs = task_memory(puzzle, max_pieces, sum(self.client.nthreads().values()), self.task_words)
        try:
            probes = self.client.run(self.memory_probe)
            hosts: dict[str, list[str]] = {}
            for address, info in self.client.scheduler_info(n_workers=-1)["workers"].items():
                if address in probes:
                    hosts.setdefault(info["host"], []).append(address)
        except Exception as exc:
            raise ClusterError(f"cannot ask the workers for their memory: {_reason(exc)}") from None
        task = max(need.shared + need.private for need in needs)
        out = []
        for address, (_, room) in sorted(probes.items()):
            out += short_of("memory", task, room, f"left by the memory limit of worker {address}", True)
        for host, addresses in sorted(hosts.items()):
            out += _machine_shortfall(host, sorted(addresses), [probes[a][0] for a in addresses], needs)
        return max(need.client for need in needs), out

    def sweep(self, store: LayerStore, puzzle: Puzzle, layer: Layer, below: list[LayerBits],
              progress: Progress | None = None, warn: Callable[[str], None] | None = None) -> LayerBits:
        """The layer's bits, computed by the workers from the layers `store` holds below it.

        Chunk files of this layer that an interrupted run left are reused when their header
        and checksum match; `warn` gets one line for each one that does not.
        """
        from distributed import as_completed

        directory = store.directory.absolute()  # as the user named it: the same on every machine
        entries = [cast(LayerRecord, store.record(b.layer)).entry for b in below]  # swept before
        label = ChunkLabel(puzzle.sha256, layer.key, below_digest(entries))
        bits = LayerBits.empty(layer)
        done = _reuse_chunks(directory, layer, label, bits, warn or (lambda message: None))
        for first, last in done:
            if progress:
                progress(min(last * 64, layer.size) - first * 64)
        ranges = task_ranges(layer.words, sum(self.client.nthreads().values()), self.task_words, done)
        futures = {}
        for first, last in ranges:
            future = self.client.submit(
                self.task, str(directory), layer.counts, first, last,
                str(chunk_path(directory, layer, first, last)), puzzle.sha256,
                key=f"sweep-{layer.key}-{first}-{last}-{uuid.uuid4().hex}",
            )
            futures[future] = (first, last)
        finished = False
        try:
            for future in as_completed(futures, loop=self.client.loop):
                first, last = futures[future]
                try:
                    path, digest = future.result()
                except Exception as exc:
                    raise ClusterError(f"layer {layer.key}, words {first}..{last}: {_reason(exc)}") from None
                _copy_chunk(bits, Path(path), digest, label, first, last)
                if progress:
                    progress(min(last * 64, layer.size) - first * 64)
            finished = True
        finally:
            if not finished:  # the chunk files written so far stay for the next run
                self.client.cancel(list(futures))
        clear_chunks(directory, layer)
        return bits


def _machine_shortfall(host: str, addresses: list[str], available: list[int | None],
                       needs: list[TaskMemory]) -> list[Shortfall]:
    """[Shortfall] if the worker processes `addresses` on machine `host`, each running a task
    at once, need more than its available memory (as each of them measured it)."""
    known = [free for free in available if free is not None]
    need = max(n.shared + len(addresses) * n.private for n in needs)
    workers = f"worker{'s' if len(addresses) > 1 else ''} {', '.join(addresses)}"
    return short_of("memory", need, min(known, default=None), f"available on {host} for {workers}", True)


def _reuse_chunks(directory: Path, layer: Layer, label: ChunkLabel, bits: LayerBits,
                  warn: Callable[[str], None]) -> list[tuple[int, int]]:
    """Copy the layer's chunk files that an interrupted run left into `bits`; return their
    ranges, in order.

    A file that is not a chunk of these results for its range (damaged, cut short, of
    another puzzle or other layers below) is deleted with a warning; one that overlaps a
    chunk already copied is deleted.
    """
    done: list[tuple[int, int]] = []
    for first, last, path in chunk_files(directory, layer):
        if first < (done[-1][1] if done else 0) or not first < last <= layer.words:
            path.unlink(missing_ok=True)
            continue
        try:
            words = chunk_words(path.read_bytes(), label, first, last)
        except (ChunkProblem, OSError) as exc:
            reason = exc.strerror if isinstance(exc, OSError) else str(exc)
            warn(f"{path}: {reason}; computing words {first}..{last} of layer {layer.key} again")
            path.unlink(missing_ok=True)
            continue
        _copy_words(bits, words, first, last)
        done.append((first, last))
    return done


def _copy_chunk(bits: LayerBits, path: Path, digest: str, label: ChunkLabel, first: int, last: int) -> None:
    """Copy a chunk file into words [first, last) of `bits`, if it is what the worker wrote."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ClusterError(
            f"{path}: cannot be read ({exc.strerror}); the results folder must be on storage "
            "every worker shares, at the same path"
        ) from None
    if hashlib.sha256(data).hexdigest() != digest:
        raise ClusterError(f"{path}: differs from what the worker wrote (checksum)")
    try:
        words = chunk_words(data, label, first, last)
    except ChunkProblem as exc:
        raise ClusterError(f"{path}: {exc}") from None
    _copy_words(bits, words, first, last)


def _copy_words(bits: LayerBits, words: np.ndarray, first: int, last: int) -> None:
    for row, whole in zip(words, bits.arrays().values(), strict=True):
        whole[first:last] = row


def _reason(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return f"{exc.__class__.__name__}: {text}" if text else exc.__class__.__name__
