"""Running a whole analysis: sweep every layer from the goal upward and store each one.

Finished layers whose files verify are kept, so a run that was stopped picks up where it
left off. Progress goes to an optional `Reporter`.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import numba

from curator.puzzle import Puzzle
from curator.space import Layer, StateSpace
from curator.store import LayerStore
from curator.sweep import PROPERTIES, LayerBits, Progress, goal_layer, sweep_layer


class Reporter(Protocol):
    """Receives progress while `analyze` runs."""

    def layer_started(self, layer: Layer) -> None: ...

    def advance(self, positions: int) -> None: ...

    def layer_finished(self, layer: Layer, entry: dict, kept: bool) -> None: ...


class Executor(Protocol):
    """Computes layers somewhere else than in this process (see `curator.cluster`).

    `sweep` returns the bits of `layer` from the layers one piece below, which `store`
    already holds (`below` are their bits, mapped from the store; empty at the goal).
    """

    def sweep(self, store: LayerStore, puzzle: Puzzle, layer: Layer, below: list[LayerBits],
              progress: Progress | None) -> LayerBits: ...


@dataclass(frozen=True)
class Estimate:
    """Size of an analysis before it runs."""

    layers: int
    positions: int
    disk_bytes: int
    peak_memory_bytes: int


def estimate(puzzle: Puzzle, max_pieces: int) -> Estimate:
    """Layers, positions, bytes on disk and peak resident bytes of the bit arrays.

    While a level is swept, its three arrays and the level below (three arrays, plus a
    concatenated copy of two of them for typed puzzles) are resident.
    """
    levels = StateSpace(puzzle).levels(max_pieces)
    level_bytes = [sum(layer.words * 8 for layer in level) for level in levels]
    props = len(PROPERTIES)
    copies = 2 if puzzle.typed else 0
    peak = max(
        props * here + (props + copies) * (level_bytes[i - 1] if i else 0)
        for i, here in enumerate(level_bytes)
    )
    return Estimate(
        layers=sum(len(level) for level in levels),
        positions=sum(layer.size for level in levels for layer in level),
        disk_bytes=props * sum(level_bytes),
        peak_memory_bytes=peak,
    )


def analyze(
    puzzle: Puzzle,
    directory: Path,
    max_pieces: int | None = None,
    workers: int | None = None,
    force: bool = False,
    reporter: Reporter | None = None,
    executor: Executor | None = None,
) -> LayerStore:
    """Sweep and store every layer of `puzzle` up to `max_pieces` pieces.

    With an `executor`, layers are computed by it instead of by local threads.
    """
    max_pieces = puzzle.max_pieces if max_pieces is None else max_pieces
    if workers is not None:
        numba.set_num_threads(workers)
    store = LayerStore.for_puzzle(directory, puzzle, max_pieces, force)
    below: list[Layer] = []
    computed: dict[Layer, LayerBits] = {}
    for level in StateSpace(puzzle).levels(max_pieces):
        below_bits: list[LayerBits] | None = None
        for layer in level:
            if reporter:
                reporter.layer_started(layer)
            if store.verified(layer):
                if reporter:
                    reporter.layer_finished(layer, store.record(layer).entry, kept=True)
                continue
            if below and below_bits is None:
                below_bits = [computed.get(b) or store.load(b, verify=False, mmap=True) for b in below]
            start = time.perf_counter()
            advance = reporter.advance if reporter else None
            if executor is not None:
                bits = executor.sweep(store, puzzle, layer, below_bits or [], advance)
            elif below:
                bits = sweep_layer(puzzle, layer, below_bits, advance)
            else:
                bits = goal_layer(puzzle, layer, advance)
            entry = store.save(bits, time.perf_counter() - start, puzzle, max_pieces)
            if executor is None:  # an executor reads the level below from the store
                computed[layer] = bits
            if reporter:
                reporter.layer_finished(layer, entry, kept=False)
        computed = {layer: bits for layer, bits in computed.items() if layer in level}
        below = level
    return store
