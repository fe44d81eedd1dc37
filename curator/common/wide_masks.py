"""Masks of four uint64 words (boards of more than 64 cells, up to 256) as the compiled position
code of sliding blocks and Sokoban holds them: a tuple of four words, a value that costs no
allocation; kernels keep their masks as rows of four words (`packed`).
"""

from __future__ import annotations

import numba
import numpy as np

from curator.common.ranking import bit_count, lowest_bit, to_words

WIDE_WORDS = 4
"""Words of every mask on a board of more than 64 cells (256 cells at most)."""

Mask = tuple[np.uint64, np.uint64, np.uint64, np.uint64]
ONE = np.uint64(1)


def packed(masks: np.ndarray, words: int) -> np.ndarray:
    """Python-int masks as uint64 (one word), or as rows of `words` uint64 words."""
    if words == 1:
        return masks.astype(np.uint64)
    out = np.zeros((*masks.shape, words), dtype=np.uint64)
    for at, mask in np.ndenumerate(masks):
        out[at] = to_words(int(mask), words)
    return out


@numba.njit(cache=True, inline="always")
def mask_of(row: np.ndarray) -> Mask:
    """The mask held in a row of four words."""
    return (row[0], row[1], row[2], row[3])


@numba.njit(cache=True, inline="always")
def cell_mask(cell: int | np.int64) -> Mask:
    """The mask of one cell."""
    w = cell >> 6
    bit = ONE << np.uint64(cell & 63)
    zero = np.uint64(0)
    return (bit if w == 0 else zero, bit if w == 1 else zero,
            bit if w == 2 else zero, bit if w == 3 else zero)


@numba.njit(cache=True, inline="always")
def union(a: Mask, b: Mask) -> Mask:
    return (a[0] | b[0], a[1] | b[1], a[2] | b[2], a[3] | b[3])


@numba.njit(cache=True, inline="always")
def without(a: Mask, b: Mask) -> Mask:
    """The cells of `a` not in `b`."""
    return (a[0] & ~b[0], a[1] & ~b[1], a[2] & ~b[2], a[3] & ~b[3])


@numba.njit(cache=True, inline="always")
def meets(a: Mask, b: Mask) -> bool:
    """Whether `a` and `b` share a cell."""
    return bool(((a[0] & b[0]) | (a[1] & b[1]) | (a[2] & b[2]) | (a[3] & b[3])) != 0)


@numba.njit(cache=True, inline="always")
def empty(a: Mask) -> bool:
    return bool((a[0] | a[1] | a[2] | a[3]) == 0)


@numba.njit(cache=True, inline="always")
def has(a: Mask, cell: int | np.int64) -> bool:
    return bool((a[cell >> 6] >> np.uint64(cell & 63)) & ONE)


@numba.njit(cache=True, inline="always")
def with_cell(a: Mask, cell: int | np.int64) -> Mask:
    """`a` with `cell` set."""
    w = cell >> 6
    bit = ONE << np.uint64(cell & 63)
    return (a[0] | bit if w == 0 else a[0], a[1] | bit if w == 1 else a[1],
            a[2] | bit if w == 2 else a[2], a[3] | bit if w == 3 else a[3])


@numba.njit(cache=True, inline="always")
def lowest(a: Mask) -> np.int64:
    """The lowest cell of a mask, or -1 if it is empty."""
    for w in range(4):
        if a[w]:
            return np.int64(w * 64) + lowest_bit(a[w])
    return np.int64(-1)


@numba.njit(cache=True, inline="always")
def count(a: Mask) -> np.int64:
    return np.int64(bit_count(a[0]) + bit_count(a[1]) + bit_count(a[2]) + bit_count(a[3]))


@numba.njit(cache=True, inline="always")
def count_below(a: Mask, cell: int | np.int64) -> np.int64:
    """Cells of `a` below `cell`."""
    w = cell >> 6
    n = np.int64(bit_count(a[w] & ((ONE << np.uint64(cell & 63)) - ONE)))
    for i in range(w):
        n += np.int64(bit_count(a[i]))
    return n


__all__ = ["ONE", "WIDE_WORDS", "Mask", "cell_mask", "count", "count_below", "empty", "has", "lowest",
           "mask_of", "meets", "packed", "union", "with_cell", "without"]
