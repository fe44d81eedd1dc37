"""Analyzing a universe: split it into pieces of work (see `curator.universe.pieces`), search
them on local processes or on the workers of a Dask scheduler, and store each as it finishes;
pieces already stored are kept, so a stopped analysis resumes.
"""

from __future__ import annotations

import contextlib
import gc
import math
import multiprocessing
import signal
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cache, partial
from pathlib import Path
from typing import Any

import numpy as np

from curator.common.errors import FolderRefused, StoreError
from curator.common.files import MANIFEST, exclusive
from curator.common.resources import ResourceError, Shortfall, bytes_text, shortfalls
from curator.universe.pieces import BYTES_PER_PACKED, Prefix, counting, piece_ranges, split, uniform
from curator.universe.puzzle import Universe, parse_universe
from curator.universe.space import Space, build_space
from curator.universe.store import KEEP, UniverseStore, kept, record_dtype, records, totals
from curator.universe.sweep import search

SETS_PER_PACKED = {"all": 0.5, "solvable": 0.25, "minimal": 0.01}
"""Connected sets each `keep` stores per packed position, about and rounded up: the wall-free
Rush Hour universe has 0.33 sets a packed position, 0.14 that can be solved and 0.002 minimal;
samples of the 0..2-wall one 0.44 sets."""
WORKER_BYTES = 256 * 2**20
"""Memory a worker process takes before its first piece of work (Python, numpy, the compiled
search: about 180 MiB measured), rounded up."""


@dataclass(frozen=True)
class Piece:
    """One piece of work searched: its number, the sets kept as records, the packed positions
    enumerated, the seconds it took, and the totals of every set it found (see `totals`)."""

    item: int
    sets: np.ndarray
    seeds: int
    seconds: float
    found: dict[str, int]


@dataclass(frozen=True)
class Work:
    """The pieces of work of one analysis, as a progress reporter shows them (`key`, `size`)."""

    key: str
    size: int
    noun: str = "piece"


@cache
def _space(text: str, source: str) -> Space:
    return build_space(parse_universe(text, source))


def search_piece(text: str, source: str, keep: str, item: int, prefix: Prefix) -> Piece:
    """Search piece of work number `item`, `prefix`, of the universe file `text`, keeping the
    sets `keep` names (what a worker process runs)."""
    space = _space(text, source)
    started = time.perf_counter()
    found = search(space, piece_ranges(space, prefix))
    sets = records(found, space)
    return Piece(item, kept(sets, keep), found.seeds, time.perf_counter() - started,
                 totals(sets["distance"], sets["size"]))


def open_store(universe: Universe, directory: Path, force: bool, reporter: Any = None, keep: str = "all",
               new_split: Split | None = None) -> tuple[UniverseStore, list[Prefix]]:
    """The results folder, started or resumed, and its pieces of work: those its manifest lists
    (or, from an older manifest, the kinds of its first `item_lanes` rows), else a new split
    (`new_split`, or one counted now, followed by `reporter`: see `analyze_universe`). A folder
    keeping other sets than `keep` is refused unless `force`."""
    space = _space(universe.text, universe.source)
    store = UniverseStore.start_tables(directory, universe.name, universe.sha256, universe.text, force)
    if store.manifest.get("keep", "all") != keep and store.manifest.get("chunks"):
        raise FolderRefused(f"{directory}: its tables keep {store.manifest.get('keep', 'all')} sets, "
                            f"not {keep}", "use {force} to compute them again")
    store.manifest["keep"] = keep
    pieces = _stored_pieces(store.manifest, space)
    if pieces is None:
        pieces, packed = new_split or _split(universe, reporter)
        store.manifest.update(chunks={}, packed=packed)
    store.manifest.pop("item_lanes", None)
    dtype = record_dtype(space.n_lanes, len(universe.vehicles) + 1)
    store.manifest.update(pieces=[list(p) for p in pieces], items=len(pieces), record=dtype.descr.__repr__())
    store.write_manifest()
    return store, pieces


Split = tuple[list[Prefix], list[int]]
"""A universe's pieces of work and the packed positions of each."""


def _split(universe: Universe, reporter: Any) -> Split:
    """A new split, its count followed by `reporter`."""
    space = _space(universe.text, universe.source)
    if reporter is None:
        return split(space)
    work = Work(f"{universe.name}: packed positions counted", counting(space), noun="step")
    started = time.perf_counter()
    reporter.layer_started(work)
    found = split(space, counted=reporter.advance)
    reporter.layer_finished(work, {"seconds": time.perf_counter() - started}, kept=False)
    return found


def _plan(universe: Universe, directory: Path, force: bool, keep: str, reporter: Any
          ) -> tuple[Split | None, list[int]]:
    """The new split an analysis into `directory` starts from (None if it resumes the folder's
    own pieces of work), and the packed positions of each piece it has left to search (a piece
    whose file is missing or cut short counts as left; none counted for a folder from before
    the count, or one `open_store` refuses)."""
    if not force and (directory / MANIFEST).exists():
        try:
            store = UniverseStore.open_tables(directory)
        except StoreError:
            return None, []  # `open_store` refuses the folder: nothing to count
        if store.manifest.get("puzzle_sha256") != universe.sha256 or (
                store.manifest.get("keep", "all") != keep and store.chunks):
            return None, []  # another puzzle's folder, or other sets kept: refused the same way
        pieces = _stored_pieces(store.manifest, _space(universe.text, universe.source))
        if pieces is not None:
            packed = _stored_packed(store.manifest, len(pieces))
            return None, [n for item, n in enumerate(packed) if not store.present(item)]
    new_split = _split(universe, reporter)
    return new_split, new_split[1]


def shortfalls_of(universe: Universe, directory: Path, workers: int, keep: str, left: list[int],
                  executor: Any = None) -> list[Shortfall]:
    """What pieces of work holding `left` packed positions need beyond this machine's free
    memory (`workers` processes, each searching the largest piece, at `BYTES_PER_PACKED`, and
    each taking `WORKER_BYTES` when they are started for the analysis; not counted when
    `executor`'s workers search them) and disk under `directory` (the sets `keep` names, at
    `SETS_PER_PACKED`)."""
    if not left:
        return []
    processes = 0 if executor is not None else min(max(workers, 1), len(left))
    per_process = max(left) * BYTES_PER_PACKED + (WORKER_BYTES if processes > 1 else 0)
    record = record_dtype(universe.rows + universe.cols, len(universe.vehicles) + 1).itemsize
    disk = math.ceil(sum(left) * record * SETS_PER_PACKED[keep])
    return shortfalls(processes * per_process, disk, directory)


def _stored_packed(manifest: dict[str, Any], pieces: int) -> list[int]:
    """The packed positions of each of the `pieces` pieces of work a manifest counts (none if it
    does not count them: a folder from before the count)."""
    packed = manifest.get("packed")
    if isinstance(packed, list) and len(packed) == pieces and all(isinstance(n, int) for n in packed):
        return packed
    return []


def _sizes(packed: list[int], record_bytes: int) -> str:
    """What the largest piece holds and takes in a worker, and the most the sets files can take
    (a connected set holds a packed position at least), as the progress names the pieces;
    nothing if the manifest does not count them."""
    if not packed:
        return ""
    most = max(packed)
    return (f" (the largest {most:,} packed positions, about {bytes_text(most * BYTES_PER_PACKED)} a worker; "
            f"the sets at most {bytes_text(sum(packed) * record_bytes)} on disk)")


def _stored_pieces(manifest: dict[str, Any], space: Space) -> list[Prefix] | None:
    """The pieces of work a manifest names, if it names valid ones."""
    lanes = manifest.get("item_lanes")
    if isinstance(lanes, int) and 1 <= lanes <= space.universe.rows:
        return uniform(space, lanes)
    listed = manifest.get("pieces")
    if not isinstance(listed, list) or not listed:
        return None
    pieces = []
    for prefix in listed:
        if (not isinstance(prefix, list) or len(prefix) > space.universe.rows
                or not all(isinstance(k, int) and 0 <= k < space.kinds(d) for d, k in enumerate(prefix))):
            return None
        pieces.append(tuple(prefix))
    return pieces


def analyze_universe(universe: Universe, directory: Path, workers: int, force: bool,
                     reporter: Any = None, executor: Any = None, keep: str = "all", limits: bool = False
                     ) -> UniverseStore:
    """Search every piece of work not yet stored in `directory` and store the sets `keep`
    names (see `KEEP`); `reporter` (as `curator.progress.RichReporter`) follows the pieces,
    `executor` (see `UniverseCluster`) computes them on a Dask cluster instead of `workers`
    local processes. With `limits`, a new split is counted first, and ResourceError is raised
    before anything is written if the pieces left need more than the machine has free (see
    `shortfalls_of`); a folder it made for the analysis is removed again."""
    if keep not in KEEP:
        raise ValueError(f"keep must be one of {', '.join(KEEP)}, not {keep!r}")
    directory = Path(directory)
    created = not directory.exists()
    directory.mkdir(parents=True, exist_ok=True)
    try:
        return _analyzed(universe, directory, workers, force, reporter, executor, keep, limits)
    except BaseException:
        if created:
            with contextlib.suppress(OSError):
                directory.rmdir()  # a folder it made and left empty (refused, or stopped while counting)
        raise


def _analyzed(universe: Universe, directory: Path, workers: int, force: bool, reporter: Any, executor: Any,
              keep: str, limits: bool) -> UniverseStore:
    """`analyze_universe` in its folder, which exists."""
    with exclusive(directory):
        new_split, left = _plan(universe, directory, force, keep, reporter)
        short = shortfalls_of(universe, directory, workers, keep, left, executor) if limits else []
        if short:
            raise ResourceError(f"{universe.name}'s universe", short)
        store, pieces = open_store(universe, directory, force, reporter, keep, new_split)
        store.remove_temporaries()
        count = len(pieces)
        todo = [item for item in range(count) if not store.done(item)]
        record = record_dtype(universe.rows + universe.cols, len(universe.vehicles) + 1)
        sizes = _sizes(_stored_packed(store.manifest, count), record.itemsize)
        work = Work(f"{universe.name}: pieces of work{sizes}", count)
        if reporter is not None:
            reporter.layer_started(work)
            reporter.advance(count - len(todo))
        started = time.perf_counter()
        try:
            for piece in _searched(universe, keep, pieces, todo, workers, executor):
                store.save(piece.item, piece.sets, piece.seeds, piece.seconds, piece.found)
                if reporter is not None:
                    reporter.advance(1)
        finally:
            store.listed()
        store.finish()
        if reporter is not None:
            reporter.layer_finished(work, {"seconds": time.perf_counter() - started}, kept=not todo)
    return store


def _searched(universe: Universe, keep: str, pieces: list[Prefix], todo: list[int], workers: int,
              executor: Any) -> Iterator[Piece]:
    """The pieces numbered `todo` searched, as they finish."""
    args = (universe.text, universe.source, keep)
    jobs = [(item, pieces[item]) for item in todo]
    if executor is not None:
        yield from executor.map_unordered(search_piece, args, jobs)
    elif workers <= 1 or len(todo) <= 1:
        for job in jobs:
            yield search_piece(*args, *job)
    else:
        # spawn: a fork would copy the compiler's threads and locks into the children. Leaving
        # the pool terminates its workers at once: a Ctrl+C here or a failed save does not wait
        # for the pieces under way. The workers leave Ctrl+C to this process.
        with _ctrl_c_ignored():
            pool = multiprocessing.get_context("spawn").Pool(min(workers, len(todo)))
        with pool:
            try:
                yield from pool.imap_unordered(partial(_search_job, args), jobs)
                return
            except KeyboardInterrupt:
                pass
        # The command line ends the process without its exit handlers on Ctrl+C: collect the
        # pool now, so that its semaphores are released.
        del pool
        gc.collect()
        raise KeyboardInterrupt


def _search_job(args: tuple[str, str, str], job: tuple[int, Prefix]) -> Piece:
    return search_piece(*args, *job)


@contextlib.contextmanager
def _ctrl_c_ignored() -> Iterator[None]:
    """Ctrl+C ignored while worker processes start: they ignore it from their first
    instruction on (an ignored signal stays ignored in a started program, and Python then
    leaves it so), instead of printing the traceback of an import it cut short. A Ctrl+C in
    these milliseconds is lost."""
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


class UniverseCluster:
    """Searches pieces of work on the workers of a Dask scheduler (each needs curator installed;
    results come back to this process, which stores them)."""

    def __init__(self, client: Any, owns_client: bool = False) -> None:
        self.client = client
        self.owns_client = owns_client

    def map_unordered(self, function: Callable[..., Any], args: tuple[Any, ...], jobs: list[tuple[Any, ...]]
                      ) -> Iterator[Any]:
        from distributed import as_completed as completed

        futures = [self.client.submit(function, *args, *job, pure=False) for job in jobs]
        with self.client.as_current():
            for future in completed(futures):
                yield future.result()

    def describe(self) -> str:
        threads = self.client.nthreads()
        return f"{self.client.scheduler.address}: {len(threads)} workers, {sum(threads.values())} threads"

    def close(self) -> None:
        if self.owns_client:
            self.client.close()
