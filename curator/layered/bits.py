"""The three property bit arrays of a layer: solvable, unique and all-moves.

Bits are held in uint64 words, bit i of the layer in bit i % 64 of word i // 64; padding
bits past the layer's size are zero. An array read from a store may be a packed file's
words (`curator.layered.packed.PackedWords`), which index like a numpy array.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from curator.layered.packed import PackedWords
from curator.layered.space import Layer

PROPERTIES = ("solvable", "unique", "all_moves")


def count_bits(words: np.ndarray | PackedWords) -> int:
    """The number of set bits in a property's words (a packed file's a block at a time)."""
    if isinstance(words, PackedWords):
        return words.count()
    return int(np.bitwise_count(words).sum())


def read_only(words: np.ndarray | PackedWords) -> np.ndarray:
    """A property's words as compiled code takes them: a read-only numpy array (a view, no copy
    of words already in memory), so that a kernel compiles once for words computed in memory and
    words mapped from a file, which numba types apart."""
    view = np.asarray(words).view()
    view.flags.writeable = False
    return view


@dataclass
class LayerBits:
    """The three property bit arrays of one layer (uint64 words, padding bits zero)."""

    layer: Layer
    solvable: np.ndarray
    unique: np.ndarray
    all_moves: np.ndarray

    def arrays(self) -> dict[str, np.ndarray]:
        return {name: getattr(self, name) for name in PROPERTIES}

    def counts(self) -> dict[str, int]:
        return {name: count_bits(words) for name, words in self.arrays().items()}

    def at(self, rank: int) -> dict[str, bool]:
        """The three properties of the position with this rank."""
        return {p: bool((int(getattr(self, p)[rank >> 6]) >> (rank & 63)) & 1) for p in PROPERTIES}

    def decoded(self, properties: tuple[str, ...]) -> LayerBits:
        """The same bits with the arrays of `properties` as read-only numpy arrays, for compiled
        code (packed words are decoded into memory; mapped files stay mapped)."""
        arrays = {name: read_only(words) if name in properties else words
                  for name, words in self.arrays().items()}
        return LayerBits(self.layer, **arrays)

    @classmethod
    def empty(cls, layer: Layer) -> LayerBits:
        return cls(layer, *(np.zeros(layer.words, dtype=np.uint64) for _ in PROPERTIES))
