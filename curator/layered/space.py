"""The state space of a puzzle: layers of positions by piece counts, and their ranks.

A layer holds every placement of a fixed number of pieces of each type; its positions are
numbered 0..size-1 by `curator.common.ranking.rank_placement` (colex order of the occupied cells,
then lex order of the types in cell order). Moves always go from a layer with k pieces to
one with k-1, so layers are swept by piece count.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from math import comb, factorial, prod

from curator.common.ranking import rank_placement, unrank_placement
from curator.layered.puzzle import Puzzle

Position = tuple[int, ...]
"""One entry per cell: 0 empty, t = piece of type t (1-based)."""


@dataclass(frozen=True)
class Layer:
    """All positions with `counts[t]` pieces of type t+1."""

    counts: tuple[int, ...]
    cells: int
    piece_types: tuple[str, ...]

    @property
    def pieces(self) -> int:
        return sum(self.counts)

    @property
    def size(self) -> int:
        arrangements = factorial(self.pieces) // prod(factorial(c) for c in self.counts)
        return comb(self.cells, self.pieces) * arrangements

    @property
    def words(self) -> int:
        """Number of 64-bit words one property of this layer takes."""
        return (self.size + 63) // 64

    @property
    def typed(self) -> bool:
        return len(self.counts) > 1

    @property
    def key(self) -> str:
        """A short unique name, used for file names: k05, or k04-K1Q1R2 for typed layers."""
        base = f"k{self.pieces:02d}"
        if not self.typed:
            return base
        return base + "-" + "".join(f"{t}{c}" for t, c in zip(self.piece_types, self.counts) if c)

    def count_map(self) -> dict[str, int]:
        return dict(zip(self.piece_types, self.counts))


def tier_offsets(layers: list[Layer]) -> dict[tuple[int, ...], int]:
    """Bit offset of each layer when the layers' 64-bit word arrays are laid end to end."""
    offsets = {}
    start = 0
    for layer in layers:
        offsets[layer.counts] = start
        start += layer.words * 64
    return offsets


class StateSpace:
    """The layers of a puzzle and the mapping between positions and (layer, rank)."""

    def __init__(self, puzzle: Puzzle) -> None:
        self.puzzle = puzzle
        self.cells = puzzle.board.size
        self.piece_types = puzzle.piece_types
        self.limits = puzzle.piece_limits

    def layer(self, counts: Sequence[int]) -> Layer:
        return Layer(tuple(counts), self.cells, self.piece_types)

    def layers_with(self, pieces: int) -> list[Layer]:
        """Every layer with `pieces` pieces in all, in lex order of the count vectors."""
        ranges = [range(limit + 1) for limit in self.limits]
        return [
            self.layer(counts)
            for counts in itertools.product(*ranges)
            if sum(counts) == pieces
        ]

    def tiers(self, max_pieces: int) -> list[list[Layer]]:
        """Layers grouped by piece count, from the goal's count up to `max_pieces`."""
        return [self.layers_with(k) for k in range(self.puzzle.goal.pieces, max_pieces + 1)]

    def layer_of(self, position: Sequence[int]) -> Layer:
        counts = [0] * len(self.piece_types)
        for t in position:
            if t:
                counts[t - 1] += 1
        return self.layer(counts)

    def rank(self, position: Sequence[int]) -> tuple[Layer, int]:
        """(layer, rank) of a position given as one entry per cell."""
        if len(position) != self.cells:
            raise ValueError(f"a position has {self.cells} cells, got {len(position)}")
        layer = self.layer_of(position)
        return layer, rank_placement(position, layer.counts)

    def unrank(self, layer: Layer, rank: int) -> Position:
        return tuple(unrank_placement(rank, self.cells, layer.counts))
