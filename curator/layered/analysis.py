"""Running a whole analysis: sweep every layer from the goal upward and store each one.

Finished layers whose files verify are kept, so a run that was stopped picks up where it
left off. Each layer is written while the next one is computed. Progress goes to an optional
`Reporter`.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, cast

from curator.common.errors import SelectionError
from curator.common.files import exclusive
from curator.common.keywords import Naming, same_name
from curator.common.resources import Shortfall, shortfalls, threads
from curator.layered.bits import PROPERTIES, LayerBits
from curator.layered.puzzle import Puzzle, layer_past_ranks
from curator.layered.space import Layer, StateSpace
from curator.layered.store import PACK_RATIO, LayerRecord, LayerStore
from curator.layered.sweep import Progress, goal_layer, sweep_layer


class Reporter(Protocol):
    """Receives progress while `analyze` runs.

    `layer_finished` for a computed layer comes from the thread that writes it, while the
    next layer is under way.
    """

    def layer_started(self, layer: Layer) -> None: ...

    def advance(self, positions: int) -> None: ...

    def layer_finished(self, layer: Layer, entry: dict, kept: bool) -> None: ...


class Executor(Protocol):
    """Computes layers somewhere else than in this process (see `curator.layered.cluster`).

    `sweep` returns the bits of `layer` from the layers one piece below, which `store`
    already holds (`below` are their bits, mapped from the store; empty at the goal);
    `warn` takes one-line warnings.
    """

    def sweep(self, store: LayerStore, puzzle: Puzzle, layer: Layer, below: list[LayerBits],
              progress: Progress | None, warn: Callable[[str], None]) -> LayerBits: ...

    def memory_needs(self, puzzle: Puzzle, max_pieces: int) -> tuple[int, list[Shortfall]]:
        """Peak bytes this process holds while the executor sweeps up to `max_pieces`, and
        what the machines that compute lack in memory for it."""
        ...


@dataclass(frozen=True)
class Estimate:
    """Size of an analysis before it runs."""

    layers: int
    positions: int
    disk_bytes: int
    peak_memory_bytes: int


def estimate(puzzle: Puzzle, max_pieces: int) -> Estimate:
    """Layers, positions, bytes on disk and peak resident bytes of the bit arrays.

    The disk figure is that of raw bit files: an upper bound, since layers are packed where
    it pays (see `curator.layered.packed`). While a tier is swept, its three arrays and the
    tier below (three arrays, plus a concatenated copy of two of them for typed puzzles) are
    resident, and so are the packed blocks of the array being written (at most PACK_RATIO of
    the array).
    """
    tiers = StateSpace(puzzle).tiers(max_pieces)
    tier_bytes = [sum(layer.words * 8 for layer in tier) for tier in tiers]
    props = len(PROPERTIES)
    copies = 2 if puzzle.typed else 0
    packing = PACK_RATIO * max(layer.words * 8 for tier in tiers for layer in tier)
    peak = max(
        props * here + (props + copies) * (tier_bytes[i - 1] if i else 0)
        for i, here in enumerate(tier_bytes)
    ) + round(packing)
    return Estimate(
        layers=sum(len(tier) for tier in tiers),
        positions=sum(layer.size for tier in tiers for layer in tier),
        disk_bytes=props * sum(tier_bytes),
        peak_memory_bytes=peak,
    )


def resource_shortfalls(puzzle: Puzzle, max_pieces: int, directory: Path,
                        executor: Executor | None = None) -> list[Shortfall]:
    """What `estimate` says the analysis needs beyond the free memory and disk space; with
    an `executor`, the memory of this machine and of those that compute as it says.

    Disk counts only what is still to be written: bit files already in `directory` under
    the names the analysis uses are replaced by files of the same size.
    """
    est = estimate(puzzle, max_pieces)
    elsewhere: list[Shortfall]
    memory, elsewhere = est.peak_memory_bytes, []
    if executor is not None:
        memory, elsewhere = executor.memory_needs(puzzle, max_pieces)
    written = 0
    if Path(directory).is_dir():
        for tier in StateSpace(puzzle).tiers(max_pieces):
            for layer in tier:
                for prop in PROPERTIES:
                    path = Path(directory) / f"{layer.key}.{prop}.bits"
                    if path.is_file():
                        written += min(path.stat().st_size, layer.words * 8)
    return shortfalls(memory, est.disk_bytes - written, directory) + elsewhere


def sweep_depth(puzzle: Puzzle, max_pieces: int | None, name: Naming = same_name) -> int:
    """The piece count an analysis sweeps up to: `max_pieces`, or the file's."""
    depth = puzzle.max_pieces if max_pieces is None else max_pieces
    total = sum(puzzle.piece_limits)
    if not isinstance(depth, int) or isinstance(depth, bool) or not puzzle.goal.pieces <= depth <= total:
        raise SelectionError(
            f"{name('max_pieces')} must be between {puzzle.goal.pieces} and {total}, got {depth!r}"
        )
    problem = layer_past_ranks(puzzle.board.size, puzzle.piece_types, puzzle.piece_limits,
                               puzzle.goal.pieces, depth)
    if problem and max_pieces is None:
        raise SelectionError(f"{puzzle.source}: {problem} (the file sets no max_pieces, so every layer is "
                             f"swept: set max_pieces, or give {name('max_pieces')})")
    if problem:
        raise SelectionError(f"{name('max_pieces')}: {problem}")
    return depth


def analyze(
    puzzle: Puzzle,
    directory: Path,
    max_pieces: int | None = None,
    workers: int | None = None,
    force: bool = False,
    reporter: Reporter | None = None,
    warn: Callable[[str], None] | None = None,
    executor: Executor | None = None,
) -> LayerStore:
    """Sweep and store every layer of `puzzle` up to `max_pieces` pieces.

    Finished layers whose files match their checksums are kept. A recorded layer whose files
    do not (a flipped byte, a wrong length, a missing file) is recomputed, and `warn` gets
    one line naming the file; so do temporary files an interrupted run left, which are
    removed. Only one analysis writes to a folder at a time (StoreError otherwise).
    With an `executor`, layers are computed by it instead of by local threads.
    """
    max_pieces = sweep_depth(puzzle, max_pieces)
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    with exclusive(directory), threads(workers):
        return _analyze(puzzle, directory, max_pieces, force, reporter, warn or (lambda message: None),
                        executor)


def _save(store: LayerStore, bits: LayerBits, seconds: float, puzzle: Puzzle, max_pieces: int,
          reporter: Reporter | None) -> None:
    entry = store.save(bits, seconds, puzzle, max_pieces)
    if reporter:
        reporter.layer_finished(bits.layer, entry, kept=False)


def _analyze(puzzle: Puzzle, directory: Path, max_pieces: int, force: bool, reporter: Reporter | None,
             warn: Callable[[str], None], executor: Executor | None = None) -> LayerStore:
    store = LayerStore.for_puzzle(directory, puzzle, max_pieces, force)
    for name in store.remove_temporaries():
        warn(f"{directory / name}: removed, a temporary file left by an interrupted run")
    below: list[Layer] = []
    computed: dict[Layer, LayerBits] = {}
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="curator-save") as saver:
        saving: Future | None = None
        for tier in StateSpace(puzzle).tiers(max_pieces):
            below_bits: list[LayerBits] | None = None
            for layer in tier:
                if reporter:
                    reporter.layer_started(layer)
                problem = store.problem(layer)
                if problem is None and store.record(layer) is not None:
                    if reporter:
                        reporter.layer_finished(layer, cast(LayerRecord, store.record(layer)).entry,
                                                kept=True)
                    continue
                if problem is not None:
                    warn(f"{problem}; recomputing layer {layer.key}")
                if executor is not None and saving is not None:
                    saving.result()  # an executor reads the tier below from the store
                if below and below_bits is None:
                    below_bits = [computed.get(b) or store.load(b, verify=False, mmap=True)
                                  for b in below]
                start = time.perf_counter()
                advance = reporter.advance if reporter else None
                if executor is not None:
                    bits = executor.sweep(store, puzzle, layer, below_bits or [], advance, warn)
                elif below:
                    bits = sweep_layer(puzzle, layer, cast(list[LayerBits], below_bits), advance)
                else:
                    bits = goal_layer(puzzle, layer, advance)
                seconds = time.perf_counter() - start
                if saving is not None:
                    saving.result()  # layers are written one at a time, in order; raises its error
                saving = saver.submit(_save, store, bits, seconds, puzzle, max_pieces, reporter)
                if executor is None:
                    computed[layer] = bits
                del bits  # with an executor, the next layer is assembled once this one is saved
            computed = {layer: bits for layer, bits in computed.items() if layer in tier}
            below = tier
        if saving is not None:
            saving.result()
    return store
