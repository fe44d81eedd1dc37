"""Perfect hashes (ranking and unranking) for combinations, multisets and permutations.

Scalar functions take and return Python ints; the `*_mask` functions and `MASK_*` helpers
are numba-compiled and work on combinations held as uint64 bit masks (n <= 64 cells), for
use inside compiled sweep loops and on whole numpy arrays.
"""

from __future__ import annotations

import numba
import numpy as np
from numba.cpython.unsafe.numbers import trailing_zeros

MAX_MASK_CELLS = 64


def _binomial_table(size: int) -> np.ndarray:
    table = np.zeros((size + 1, size + 1), dtype=np.int64)
    for n in range(size + 1):
        table[n, 0] = 1
        for k in range(1, n + 1):
            # C(64, 32) < 2**63, so every entry fits in int64.
            table[n, k] = table[n - 1, k - 1] + table[n - 1, k]
    return table


BINOMIAL = _binomial_table(MAX_MASK_CELLS)
"""BINOMIAL[n, k] = C(n, k) for 0 <= k <= n <= 64 (int64); 0 for k > n."""


@numba.njit(cache=True, inline="always")
def lowest_bit(mask: np.uint64) -> int:
    """Index of the lowest set bit of a non-zero mask."""
    return trailing_zeros(mask)


@numba.njit(cache=True)
def rank_colex_mask(mask: np.uint64) -> np.int64:
    """Colex rank of the combination whose cells are the set bits of `mask`.

    Colex order is the order of increasing masks among masks of equal popcount, so
    rank(0b0111) = 0, rank(0b1011) = 1, rank(0b1101) = 2, rank(0b1110) = 3.
    """
    rank = np.int64(0)
    i = 0
    m = np.uint64(mask)
    while m:
        i += 1
        rank += BINOMIAL[trailing_zeros(m), i]
        m &= m - np.uint64(1)
    return rank


@numba.njit(cache=True)
def unrank_colex_mask(rank: np.int64, n: int, k: int) -> np.uint64:
    """Inverse of `rank_colex_mask` for k-subsets of n cells (0 <= rank < C(n, k))."""
    mask = np.uint64(0)
    r = np.int64(rank)
    c = n - 1
    for i in range(k, 0, -1):
        while BINOMIAL[c, i] > r:
            c -= 1
        r -= BINOMIAL[c, i]
        mask |= np.uint64(1) << np.uint64(c)
        c -= 1
    return mask


@numba.njit(cache=True, inline="always")
def next_colex_mask(mask: np.uint64) -> np.uint64:
    """The next larger mask with the same popcount (the next combination in colex order)."""
    low = mask & (~mask + np.uint64(1))
    ripple = mask + low
    return ripple | (((ripple ^ mask) >> np.uint64(2)) // low)


@numba.njit(cache=True)
def rank_colex_masks(masks: np.ndarray) -> np.ndarray:
    """Colex ranks of a whole array of uint64 masks."""
    out = np.empty(masks.shape[0], dtype=np.int64)
    for i in range(masks.shape[0]):
        out[i] = rank_colex_mask(masks[i])
    return out


@numba.njit(cache=True)
def unrank_colex_masks(ranks: np.ndarray, n: int, k: int) -> np.ndarray:
    """Masks of a whole array of colex ranks of k-subsets of n cells."""
    out = np.empty(ranks.shape[0], dtype=np.uint64)
    for i in range(ranks.shape[0]):
        out[i] = unrank_colex_mask(ranks[i], n, k)
    return out


@numba.njit(cache=True)
def multinomial(counts: np.ndarray) -> np.int64:
    """Number of distinct sequences with counts[t] items of type t."""
    total = 0
    result = np.int64(1)
    for t in range(counts.shape[0]):
        for j in range(counts[t]):
            total += 1
            result = result * total // (j + 1)
    return result


@numba.njit(cache=True)
def rank_multiset_sequence(seq: np.ndarray, counts: np.ndarray) -> np.int64:
    """Lex rank of `seq` (types 0..T-1) among all distinct orderings of its multiset.

    `counts[t]` must be the number of times t occurs in `seq`; `counts` is used as
    scratch space and restored before returning.
    """
    k = seq.shape[0]
    remaining = multinomial(counts)  # orderings of seq[i:]
    rank = np.int64(0)
    for i in range(k):
        left = k - i
        item = seq[i]
        for t in range(item):
            rank += remaining * counts[t] // left
        remaining = remaining * counts[item] // left
        counts[item] -= 1
    for i in range(k):
        counts[seq[i]] += 1
    return rank


@numba.njit(cache=True)
def unrank_multiset_sequence(rank: np.int64, counts: np.ndarray, out: np.ndarray) -> None:
    """Write into `out` the sequence whose lex rank is `rank` (inverse of the above)."""
    k = out.shape[0]
    remaining = multinomial(counts)
    r = np.int64(rank)
    for i in range(k):
        left = k - i
        t = 0
        while True:
            block = remaining * counts[t] // left
            if r < block:
                break
            r -= block
            t += 1
        out[i] = t
        remaining = block
        counts[t] -= 1
    for i in range(k):
        counts[out[i]] += 1
