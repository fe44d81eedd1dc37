"""Checking stored results: every file against its checksum, and a sample of ranks re-derived.

A results folder can be wrong in two ways a checksum cannot tell apart: a file damaged after
it was written (the checksum catches that) and bits that were wrong when written, or were
changed together with their checksum. The second kind is caught the way endgame tablebase
verifiers do it: a stored position's three bits must follow, under the rules, from the
stored bits of its children. `verify` re-derives a random sample of ranks in every layer
with plain Python ranking and classification (only move generation is shared with the
sweep) and lists every rank whose stored bits disagree.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from math import comb, factorial, prod
from pathlib import Path
from typing import cast

import numpy as np

from curator.common.errors import StoreError
from curator.common.files import DEFAULT_SAMPLE, Verification
from curator.layered.bits import PROPERTIES, LayerBits, count_bits
from curator.layered.packed import BLOCK_WORDS, PackedWords
from curator.layered.puzzle import Puzzle
from curator.layered.space import Layer, StateSpace
from curator.layered.store import LayerRecord, LayerStore

Bits = tuple[bool, bool, bool]


@dataclass(frozen=True)
class BadRank:
    """A stored position whose bits do not follow from its children's."""

    layer: str
    rank: int
    stored: Bits
    derived: Bits

    def __str__(self) -> str:
        def show(bits: Bits) -> str:
            return " ".join(f"{name}={int(bit)}" for name, bit in zip(PROPERTIES, bits))

        return f"{self.layer} rank {self.rank}: stored {show(self.stored)}, re-derived {show(self.derived)}"


Progress = Callable[[Layer, int], None]
"""Called with each layer and the number of its ranks about to be re-derived."""


def verify(directory: Path, sample: int = DEFAULT_SAMPLE, seed: int = 0,
           progress: Progress | None = None) -> Verification:
    """Check every stored file of a results folder and re-derive `sample` ranks per layer.

    StoreError when the folder cannot be read at all (no manifest, or a manifest or puzzle
    copy that does not match its checksum); every
    other finding goes into the returned `Verification`.
    """
    if sample < 0:
        raise ValueError(f"sample must be at least 0, got {sample}")
    store = LayerStore.open(directory)
    result = Verification(Path(directory))
    puzzle = store.puzzle()
    space = StateSpace(puzzle)
    records = _records(store, result)
    intact = [layer for layer in records if _undamaged(store, layer, result)]
    _check_complete(store, space, records, result)
    rng = np.random.default_rng(seed)
    deriver = _Deriver(puzzle, space)
    kept: dict[Layer, tuple[np.ndarray, np.ndarray]] = {}
    top = max((layer.pieces for layer in intact), default=0)
    for layer in intact:
        bits = _load(store, layer, child=layer.pieces < top)
        problem = _check_contents(store, layer, bits)
        if problem:  # the bits of the layer's positions may still be right: keep re-deriving
            result.problems.append(problem)
        for done in [done for done in kept if done.pieces < layer.pieces - 1]:
            del kept[done]
        kept[layer] = (bits.solvable, bits.unique)
        below = space.layers_with(layer.pieces - 1) if layer.pieces > puzzle.goal.pieces else []
        missing = [child.key for child in below if child not in intact]
        if missing:
            result.problems.append(
                f"{store.directory}: layer {layer.key} not re-derived: child layer "
                f"{missing[0]} is missing or damaged"
            )
            continue
        ranks = _sample(layer.size, sample, rng)
        if progress:
            progress(layer, len(ranks))
        children = _children(store, below, kept)
        for rank in ranks:
            stored = _stored(bits, rank)
            derived = deriver.derive(layer, rank, children)
            if stored != derived:
                result.bad_ranks.append(BadRank(layer.key, rank, stored, derived))
        result.ranks += len(ranks)
    return result


# -- checks of whole files --------------------------------------------------------------------


def _records(store: LayerStore, result: Verification) -> list[Layer]:
    layers: list[Layer] = []
    for record in store.records():
        if record.entry.get("key") != record.layer.key or record.layer in layers:
            result.problems.append(
                f"{store.manifest_path}: layer entry {record.entry.get('key')!r} is duplicated or "
                "does not match its counts"
            )
            continue
        layers.append(record.layer)
    return layers


def _undamaged(store: LayerStore, layer: Layer, result: Verification) -> bool:
    """Whether the layer's files match their checksums (counted in `result`; the damage
    goes into its problems)."""
    result.layers += 1
    result.files += len(PROPERTIES)
    damage = store.problem(layer)
    if damage is not None:
        result.problems.append(damage)
    return damage is None


def _check_complete(store: LayerStore, space: StateSpace, records: list[Layer], result: Verification) -> None:
    """A manifest that says complete must record every layer up to its `max_pieces`."""
    expected = [layer for tier in space.tiers(store.manifest.get("max_pieces", 0)) for layer in tier]
    if store.manifest.get("complete") and any(layer not in records for layer in expected):
        missing = next(layer.key for layer in expected if layer not in records)
        result.problems.append(f"{store.manifest_path}: says complete, but layer {missing} is not recorded")


def _check_contents(store: LayerStore, layer: Layer, bits: LayerBits) -> str | None:
    """Padding bits zero, the manifest's counts equal to the files' bit counts, and no position
    unique or all-moves that is not solvable."""
    entry = cast(LayerRecord, store.record(layer)).entry  # one of the records
    spare = layer.words * 64 - layer.size
    for prop, words in bits.arrays().items():
        path = store.directory / entry["files"][prop]["path"]
        if spare and int(words[-1]) >> (64 - spare):
            return f"{path}: padding bits beyond the layer's {layer.size:,} positions are set"
        count = count_bits(words)
        if entry.get(prop) != count:
            return f"{path}: holds {count:,} set bits, the manifest says {entry.get(prop)!r}"
    arrays = bits.arrays()
    for prop in ("unique", "all_moves"):
        stray = _outside(arrays[prop], arrays["solvable"], layer.words)
        if stray:
            path = store.directory / entry["files"][prop]["path"]
            return f"{path}: marks {stray:,} positions {prop} that are not solvable"
    return None


def _outside(marked: np.ndarray | PackedWords, solvable: np.ndarray | PackedWords, words: int) -> int:
    """Positions set in `marked` and not in `solvable`, a block of words at a time (a packed
    file's blocks are decoded one by one)."""
    def block(words_of: np.ndarray | PackedWords, lo: int) -> np.ndarray:
        return np.asarray(words_of[lo:lo + BLOCK_WORDS])

    return sum(count_bits(block(marked, lo) & ~block(solvable, lo)) for lo in range(0, words, BLOCK_WORDS))


def _load(store: LayerStore, layer: Layer, child: bool) -> LayerBits:
    """A layer's bits, mapped. The packed blocks of its solvable and unique words that the
    counts decode stay decoded if it is the `child` of a layer to re-derive; the others are
    decoded again as the sample needs them (the top layer of a big store would not fit in
    memory twice)."""
    kept = ("solvable", "unique")
    bits = store.load(layer, verify=False, mmap=True, properties=kept, keep=child)
    moves = store.load(layer, verify=False, mmap=True, properties=("all_moves",))
    return LayerBits(layer, bits.solvable, bits.unique, moves.all_moves)


def _children(store: LayerStore, below: list[Layer], kept: dict[Layer, tuple[np.ndarray, np.ndarray]],
              ) -> dict[tuple[int, ...], tuple[np.ndarray, np.ndarray]]:
    """The solvable and unique words of the layers `below`, by piece counts, from `kept`
    (where those not there yet are added, packed ones keeping every block they decode)."""
    for child in below:
        if child not in kept:
            bits = store.load(child, verify=False, mmap=True, properties=("solvable", "unique"), keep=True)
            kept[child] = (bits.solvable, bits.unique)
    return {child.counts: kept[child] for child in below}


def _sample(size: int, sample: int, rng: np.random.Generator) -> list[int]:
    if sample >= size:
        return list(range(size))
    return sorted(int(r) for r in rng.choice(size, sample, replace=False))


def _stored(bits: LayerBits, rank: int) -> Bits:
    word, bit = divmod(rank, 64)
    return cast(Bits, tuple(bool((int(words[word]) >> bit) & 1) for words in bits.arrays().values()))


# -- re-deriving one rank ---------------------------------------------------------------------


class _Deriver:
    """Re-derives a position's bits from its children, independently of the sweep kernels."""

    def __init__(self, puzzle: Puzzle, space: StateSpace) -> None:
        self.puzzle = puzzle
        self.space = space
        self.rules = puzzle.rules
        self.tables = self.rules.tables()

    def derive(self, layer: Layer, rank: int,
               children: dict[tuple[int, ...], tuple[np.ndarray, np.ndarray]]) -> Bits:
        """The bits of one position from the solvable and unique words of the layers below,
        keyed by their piece counts."""
        position = self.space.unrank(layer, rank)
        goal = self.puzzle.goal
        if layer.pieces == goal.pieces:
            reached = goal.reached(position)
            return reached, reached, False
        words = children
        solvable_children: set[tuple[tuple[int, ...], int]] = set()
        all_solvable = True
        moves = self.children(position)
        for counts, child_rank in moves:
            if counts not in words:
                raise StoreError(f"a move from {layer.key} rank {rank} leads outside the stored layers")
            if _bit(words[counts][0], child_rank):
                solvable_children.add((counts, child_rank))
            else:
                all_solvable = False
        solvable = bool(solvable_children)
        step_once = goal.final_step_once and layer.pieces == goal.pieces + 1
        unique = step_once and solvable
        if len(solvable_children) == 1:
            ((counts, child_rank),) = solvable_children
            unique = unique or _bit(words[counts][1], child_rank)
        return solvable, unique, bool(moves) and all_solvable

    def children(self, position: tuple[int, ...]) -> list[tuple[tuple[int, ...], int]]:
        """(counts, rank) of the position after each legal move, one entry per move (from
        `Rules.moves_from`, on boards of any width)."""
        out = []
        for _, child in self.rules.moves_from(position, self.tables):
            counts = tuple(child.count(t) for t in range(1, len(self.puzzle.piece_types) + 1))
            out.append((counts, placement_rank(child, counts)))
        return out


def _bit(words: np.ndarray, index: int) -> bool:
    return bool((int(words[index >> 6]) >> (index & 63)) & 1)


# -- ranking, written out plainly -------------------------------------------------------------
# The definition of `curator.common.ranking.rank_placement`, computed here without the tables and
# compiled code the sweep ranks with, so that the two are checked against each other.


def placement_rank(position: Sequence[int], counts: Sequence[int]) -> int:
    """Colex rank of the occupied cells times the number of type orderings, plus the lex rank
    of the types (read in cell order) among the distinct orderings of their multiset."""
    cells = [cell for cell, piece in enumerate(position) if piece]
    group = sum(comb(cell, i + 1) for i, cell in enumerate(cells))
    if len(counts) == 1:
        return group
    left = list(counts)
    total = len(cells)
    orderings = factorial(total) // prod(factorial(c) for c in counts)
    rank = group * orderings
    for cell in cells:
        piece = position[cell] - 1
        # Orderings that put a smaller type here come first; there are
        # orderings(left less one of that type) = orderings(left) * left[type] / total of them.
        for smaller in range(piece):
            rank += orderings * left[smaller] // total
        orderings = orderings * left[piece] // total
        left[piece] -= 1
        total -= 1
    return rank
