"""Analyzing a universe: split it into pieces of work (the kinds of its first rows, which no
slide changes), search them on local processes or on the workers of a Dask scheduler, and
store each as it finishes; pieces already stored are kept, so a stopped analysis resumes.
"""

from __future__ import annotations

import gc
import multiprocessing
import signal
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cache, partial
from pathlib import Path
from typing import Any

import numpy as np

from curator.common.files import exclusive
from curator.universe.puzzle import Universe, parse_universe
from curator.universe.space import Space, build_space
from curator.universe.store import UniverseStore, record_dtype, records
from curator.universe.sweep import search

FEWEST_ITEMS = 32
"""Pieces of work wanted at least, for the workers to share them evenly."""


@dataclass(frozen=True)
class Work:
    """The pieces of work of one analysis, as a progress reporter shows them (`key`, `size`)."""

    key: str
    size: int
    noun: str = "piece"


def item_lanes(space: Space) -> int:
    """How many rows tell the pieces of work apart: the fewest giving FEWEST_ITEMS pieces."""
    for lanes in range(1, space.universe.rows + 1):
        if len(space.items(lanes)) >= FEWEST_ITEMS:
            return lanes
    return space.universe.rows


@cache
def _space(text: str, source: str) -> Space:
    return build_space(parse_universe(text, source))


def search_piece(text: str, source: str, lanes: int, item: int) -> tuple[int, np.ndarray, int, float]:
    """Search piece of work `item` of the universe file `text` (what a worker process runs):
    (item, its sets as records, packed positions enumerated, seconds)."""
    space = _space(text, source)
    started = time.perf_counter()
    found = search(space, space.items(lanes)[item])
    kinds = len(space.universe.vehicles) + 1
    return item, records(found, space.n_lanes, kinds), found.seeds, time.perf_counter() - started


def open_store(universe: Universe, directory: Path, force: bool) -> tuple[UniverseStore, int, int]:
    """The results folder, started or resumed; the rows that split it and its pieces of work."""
    space = build_space(universe)
    store = UniverseStore.start_tables(directory, universe.name, universe.sha256, universe.text, force)
    lanes = store.manifest.get("item_lanes")
    if not isinstance(lanes, int) or not 1 <= lanes <= universe.rows:
        lanes = item_lanes(space)
        store.manifest["chunks"] = {}
    count = len(space.items(lanes))
    dtype = record_dtype(space.n_lanes, len(universe.vehicles) + 1)
    store.manifest.update(item_lanes=lanes, items=count, record=dtype.descr.__repr__())
    store.write_manifest()
    return store, lanes, count


def analyze_universe(universe: Universe, directory: Path, workers: int, force: bool,
                     reporter: Any = None, executor: Any = None) -> UniverseStore:
    """Search every piece of work not yet stored in `directory` and store it; `reporter` (as
    `curator.progress.RichReporter`) follows the pieces, `executor` (see `UniverseCluster`)
    computes them on a Dask cluster instead of `workers` local processes."""
    Path(directory).mkdir(parents=True, exist_ok=True)
    with exclusive(Path(directory)):
        store, lanes, count = open_store(universe, Path(directory), force)
        store.remove_temporaries()
        todo = [item for item in range(count) if not store.done(item)]
        work = Work(f"{universe.name}: pieces of work", count)
        if reporter is not None:
            reporter.layer_started(work)
            reporter.advance(count - len(todo))
        started = time.perf_counter()
        for item, sets, seeds, seconds in _pieces(universe, lanes, todo, workers, executor):
            store.save(item, sets, seeds, seconds)
            if reporter is not None:
                reporter.advance(1)
        store.finish()
        if reporter is not None:
            reporter.layer_finished(work, {"seconds": time.perf_counter() - started}, kept=not todo)
    return store


def _pieces(universe: Universe, lanes: int, todo: list[int], workers: int, executor: Any
            ) -> Iterator[tuple[int, np.ndarray, int, float]]:
    """The pieces `todo` searched, as they finish."""
    args = (universe.text, universe.source, lanes)
    if executor is not None:
        yield from executor.map_unordered(search_piece, args, todo)
    elif workers <= 1 or len(todo) <= 1:
        for item in todo:
            yield search_piece(*args, item)
    else:
        # spawn: a fork would copy the compiler's threads and locks into the children. Leaving
        # the pool terminates its workers at once: a Ctrl+C here or a failed save does not wait
        # for the pieces under way. The workers leave Ctrl+C to this process.
        context = multiprocessing.get_context("spawn")
        with context.Pool(min(workers, len(todo)), initializer=_ignore_ctrl_c) as pool:
            try:
                yield from pool.imap_unordered(partial(search_piece, *args), todo)
                return
            except KeyboardInterrupt:
                pass
        # The command line ends the process without its exit handlers on Ctrl+C: collect the
        # pool now, so that its semaphores are released.
        del pool
        gc.collect()
        raise KeyboardInterrupt


def _ignore_ctrl_c() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)


class UniverseCluster:
    """Searches pieces of work on the workers of a Dask scheduler (each needs curator installed;
    results come back to this process, which stores them)."""

    def __init__(self, client: Any, owns_client: bool = False) -> None:
        self.client = client
        self.owns_client = owns_client

    def map_unordered(self, function: Callable[..., Any], args: tuple[Any, ...], items: list[int]
                      ) -> Iterator[Any]:
        from distributed import as_completed as completed

        futures = [self.client.submit(function, *args, item, pure=False) for item in items]
        with self.client.as_current():
            for future in completed(futures):
                yield future.result()

    def describe(self) -> str:
        threads = self.client.nthreads()
        return f"{self.client.scheduler.address}: {len(threads)} workers, {sum(threads.values())} threads"

    def close(self) -> None:
        if self.owns_client:
            self.client.close()
