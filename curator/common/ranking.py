"""Perfect hashes (ranking and unranking) for combinations, multisets and permutations.

A ranking maps each object of a finite family onto a distinct integer 0..N-1 (its rank) and
unranking maps the rank back, so a table indexed by rank holds one entry per object.
Cells, items and ranks are 0-based.

Two layers:

* Scalar functions (`rank_combination`, `rank_placement`, `rank_permutation`, ...) validate
  their input, raise ValueError with a message naming the problem, and compute with Python
  ints, so ranks may exceed 64 bits (combinations of n > 64 cells, permutations of n > 20
  items).
* Numba-compiled helpers (`*_mask`, `*_masks`, `*_array`, `multinomial`,
  `rank_multiset_sequence`, ...) do no validation and compute in int64, for use inside
  compiled sweep loops and on whole numpy arrays. Their item arrays may have any signed
  integer dtype or an unsigned one narrower than 64 bits (uint64 items would mix with
  int64 ranks into float64 under numba's typing rules).

Where both layers share an algorithm, it is written once as a type-generic compiled kernel;
the scalar layer runs the kernel's plain-Python original (`kernel.py_func`) on lists, where
the arithmetic stays in unbounded Python ints.
"""

from __future__ import annotations

import itertools
import math
import operator
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar, cast

import numba
import numpy as np
from numba import types

if TYPE_CHECKING:
    from numba.core.typing.templates import Signature

    # Intrinsics as compiled code calls them: numba's stubs count the typing context among
    # their arguments, and type the call from Python (which raises).
    def intrinsic(definition: Callable[..., Any]) -> Callable[..., Any]: ...
    def leading_zeros(mask: np.uint64) -> np.uint64: ...
    def trailing_zeros(mask: np.uint64) -> np.uint64: ...

    T = TypeVar("T")
else:
    from numba.cpython.unsafe.numbers import leading_zeros, trailing_zeros
    from numba.extending import intrinsic

WORD_CELLS = 64
"""Cells one uint64 mask holds: boards of at most this many cells use one-word masks."""
MAX_CELLS = 256
"""No board has more cells (the one home of the limit): a position is a mask of at most
MAX_CELLS // WORD_CELLS words."""
RANK_LIMIT = 2**63
"""Ranks are signed 64-bit: a layer or table must have fewer positions than this."""

_forced_words: int | None = None
"""Internal, for tests only: a word count `mask_words` gives every board that fits it, so that
a board of at most 64 cells can be run through the multi-word path."""


def mask_words(cells: int) -> int:
    """The number of uint64 words of a position's mask on a board of `cells` cells: one up to
    64 cells (today's one-word code and fast kernels), else one per 64 cells. Decided once per
    board; everything else asks the puzzle.

    >>> mask_words(64), mask_words(65), mask_words(256)
    (1, 2, 4)
    """
    words = max(1, -(-cells // WORD_CELLS))
    if _forced_words is not None and cells <= _forced_words * WORD_CELLS:
        return max(words, _forced_words)
    return words


def _binomial_table(size: int) -> np.ndarray:
    table = np.zeros((size + 1, size + 1), dtype=np.int64)
    for n in range(size + 1):
        table[n, 0] = 1
        for k in range(1, n + 1):
            # Python ints, saturated: an entry past int64 is never read (see BINOMIAL_WIDE).
            table[n, k] = min(int(table[n - 1, k - 1]) + int(table[n - 1, k]), RANK_LIMIT - 1)
    return table


BINOMIAL = _binomial_table(WORD_CELLS)
"""BINOMIAL[n, k] = C(n, k) for 0 <= k <= n <= 64 (int64, exact: C(64, 32) < 2**63); 0 for k > n."""
BINOMIAL_WIDE = _binomial_table(MAX_CELLS)
"""BINOMIAL_WIDE[n, k] = C(n, k) for 0 <= k <= n <= 256 (int64), exact wherever C(n, k) < 2**63
and 2**63 - 1 beyond. Ranking a k-subset of n cells reads only C(c, i) with c < n and i <= k,
each at most C(n, k), the size of its layer: every layer accepted (at most 2**63 - 1
positions, `curator.layered.puzzle.layer_past_ranks`) reads exact entries only."""
BINOMIAL_BY_SIZE = np.ascontiguousarray(BINOMIAL_WIDE.T)
"""BINOMIAL_BY_SIZE[k, n] = BINOMIAL_WIDE[n, k]: the wide ranks read C(c, i) for one i and
many c, a row here."""


# ---------------------------------------------------------------------------------------
# Compiled helpers: combinations as uint64 bit masks (colex order)
# ---------------------------------------------------------------------------------------


@intrinsic
def bit_count(typingctx: Any, mask: types.Type) -> tuple[Signature, Callable[..., Any]] | None:
    """Number of set bits of a uint64 (one instruction, inside compiled code only)."""
    if mask != types.uint64:
        return None

    def codegen(context: Any, builder: Any, signature: Signature, args: list[Any]) -> Any:
        ctpop = builder.module.declare_intrinsic("llvm.ctpop", [args[0].type])
        return builder.call(ctpop, args)

    return types.uint64(types.uint64), codegen


@numba.njit(cache=True, inline="always")
def highest_bit(mask: np.uint64) -> np.int64:
    """Index of the highest set bit of a non-zero mask."""
    return 63 - np.int64(leading_zeros(mask))


@numba.njit(cache=True, inline="always")
def lowest_bit(mask: np.uint64) -> np.int64:
    """Index of the lowest set bit of a non-zero mask."""
    return np.int64(trailing_zeros(mask))


def _colex_byte_table() -> np.ndarray:
    """COLEX_BYTES[j, b, c]: colex-rank contribution of byte j of a mask holding the value b
    when c set bits lie below that byte.

    At most 56 bits lie below the last byte, so c stops at 56: the table then stays under
    numba's 10**6-byte limit for arrays frozen into compiled code, and the kernels that read
    it can be cached (a larger global array is read through its address, which cannot)."""
    below_max = WORD_CELLS - 8
    table = np.zeros((WORD_CELLS // 8, 256, below_max + 1), dtype=np.int64)
    values = np.arange(256)
    below = np.arange(below_max + 1)
    for j in range(WORD_CELLS // 8):
        for i in range(8):
            has_bit = (values >> i) & 1 == 1
            ones_before = np.array([bin(v & ((1 << i) - 1)).count("1") for v in values])
            index = np.minimum(below[None, :] + ones_before[:, None] + 1, WORD_CELLS)
            contribution = np.where(index <= 8 * j + i, BINOMIAL[8 * j + i][index], 0)
            table[j] += np.where(has_bit[:, None], contribution, 0)
    return table


COLEX_BYTES = _colex_byte_table()
BYTE_POPCOUNT = np.array([bin(v).count("1") for v in range(256)], dtype=np.int64)


@numba.njit(cache=True)
def rank_colex_mask(mask: np.uint64) -> np.int64:
    """Colex rank of the combination whose cells are the set bits of `mask`.

    Colex order is the order of increasing masks among masks of equal popcount, so
    rank(0b0111) = 0, rank(0b1011) = 1, rank(0b1101) = 2, rank(0b1110) = 3. The rank of
    cells c_1 < ... < c_k is C(c_1, 1) + C(c_2, 2) + ... + C(c_k, k), in 0..C(n, k)-1 for
    any n > c_k. Same order as `rank_combination(cells, n, "colex")`; no validation.
    Computed a byte at a time from the precomputed `COLEX_BYTES` table.
    """
    rank = np.int64(0)
    ones = 0
    j = 0
    m = np.uint64(mask)
    while m:
        byte = np.int64(m & np.uint64(255))
        rank += COLEX_BYTES[j, byte, ones]
        ones += BYTE_POPCOUNT[byte]
        m >>= np.uint64(8)
        j += 1
    return rank


@numba.njit(cache=True)
def unrank_colex_mask(rank: int | np.int64, n: int | np.int64, k: int) -> np.uint64:
    """Inverse of `rank_colex_mask` for k-subsets of n cells (0 <= rank < C(n, k), n <= 64).

    No validation: a rank out of range gives a meaningless mask.
    """
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
    """The next larger mask with the same popcount (the next combination in colex order).

    Starting from (1 << k) - 1 and stepping C(n, k) - 1 times visits every k-subset of n
    cells in rank order. `mask` must be non-zero.
    """
    low = mask & (~mask + np.uint64(1))
    ripple = mask + low
    return ripple | (((ripple ^ mask) >> np.uint64(2)) // low)


@numba.njit(cache=True)
def image_mask(mask: np.uint64, perm: np.ndarray) -> np.uint64:
    """The mask of the cells perm[c] of the cells c of `mask` (perm[c] >= 0 on them): the
    image of an occupancy under a cell permutation such as a board symmetry."""
    image = np.uint64(0)
    m = mask
    while m:
        cell = lowest_bit(m)
        m &= m - np.uint64(1)
        image |= np.uint64(1) << np.uint64(perm[cell])
    return image


def rank_colex_masks(masks: np.ndarray) -> np.ndarray:
    """Colex ranks (int64) of a whole array of uint64 masks; see `rank_colex_mask`.

    In numpy, a bit position at a time: called once per table, it is not worth compiling."""
    masks = np.asarray(masks, dtype=np.uint64)
    out = np.zeros(masks.shape[0], dtype=np.int64)
    seen = np.zeros(masks.shape[0], dtype=np.int64)  # set bits up to the current one
    top = int(masks.max()).bit_length() if masks.shape[0] else 0
    for c in range(top):
        bit = ((masks >> np.uint64(c)) & np.uint64(1)).astype(bool)
        seen += bit
        out += np.where(bit, BINOMIAL[c, seen], 0)
    return out


def unrank_colex_masks(ranks: np.ndarray, n: int, k: int) -> np.ndarray:
    """Masks (uint64) of a whole array of colex ranks of k-subsets of n cells.

    In numpy, one pass per cell of the subsets, highest first: the largest c with
    C(c, i) <= rank is the i-th cell."""
    rest = np.array(ranks, dtype=np.int64)
    out = np.zeros(rest.shape[0], dtype=np.uint64)
    for i in range(k, 0, -1):
        cell = np.searchsorted(BINOMIAL[:n, i], rest, side="right") - 1
        rest -= BINOMIAL[cell, i]
        out |= np.uint64(1) << cell.astype(np.uint64)
    return out


# ---------------------------------------------------------------------------------------
# Compiled helpers: combinations as multi-word masks (boards of more than 64 cells)
# ---------------------------------------------------------------------------------------
# A wide mask is a (words,) uint64 array: cell c is bit c % 64 of word c // 64. Helpers
# write into arrays they are given, so the loops that call them allocate nothing.


@numba.njit(cache=True, inline="always")
def wide_test(mask: np.ndarray, cell: int | np.int64) -> bool:
    """Whether `cell` is set in the wide mask."""
    return bool((mask[cell >> 6] >> np.uint64(cell & 63)) & np.uint64(1) != 0)


@numba.njit(cache=True, inline="always")
def wide_flip(mask: np.ndarray, cell: int | np.int64) -> None:
    """Toggle `cell` in the wide mask."""
    mask[cell >> 6] ^= np.uint64(1) << np.uint64(cell & 63)


@numba.njit(cache=True, inline="always")
def wide_set(mask: np.ndarray, cell: int | np.int64) -> None:
    """Set `cell` in the wide mask."""
    mask[cell >> 6] |= np.uint64(1) << np.uint64(cell & 63)


@numba.njit(cache=True, inline="always")
def wide_next(mask: np.ndarray, line: np.ndarray, forward: bool) -> np.int64:
    """The first cell of `mask & line` met along a line (the lowest going forward, the highest
    going back), or -1 if they share none."""
    words = mask.shape[0]
    for i in range(words):
        w = i if forward else words - 1 - i
        both = mask[w] & line[w]
        if both:
            return np.int64(w * 64) + (lowest_bit(both) if forward else highest_bit(both))
    return np.int64(-1)


@numba.njit(cache=True)
def rank_colex_wide(mask: np.ndarray) -> np.int64:
    """`rank_colex_mask` of a wide mask: the sum of C(c_i, i) over its cells c_1 < c_2 < ...
    (exact for every layer accepted, see `BINOMIAL_WIDE`)."""
    return rank_colex_row(mask.reshape(1, -1), 0)


@numba.njit(cache=True, inline="always")
def rank_colex_row(masks: np.ndarray, row: int | np.int64) -> np.int64:
    """`rank_colex_wide` of row `row` of a 2-d array of wide masks (no view per call)."""
    rank = np.int64(0)
    ones = 0
    for w in range(masks.shape[1]):
        m = masks[row, w]
        while m:
            ones += 1
            rank += BINOMIAL_BY_SIZE[ones, w * 64 + lowest_bit(m)]
            m &= m - np.uint64(1)
    return rank


@numba.njit(cache=True)
def unrank_colex_wide(rank: int | np.int64, n: int | np.int64, k: int | np.int64, cells: np.ndarray) -> None:
    """Write into cells[:k] the ascending cells of the k-subset of n cells of colex rank
    `rank` (inverse of `rank_colex_wide`); no validation."""
    r = np.int64(rank)
    c = n - 1
    for i in range(k, 0, -1):
        while BINOMIAL_BY_SIZE[i, c] > r:
            c -= 1
        r -= BINOMIAL_BY_SIZE[i, c]
        cells[i - 1] = c
        c -= 1


@numba.njit(cache=True, inline="always")
def next_colex_cells(cells: np.ndarray, k: int | np.int64) -> None:
    """Advance the ascending cells[:k] to the next k-subset in colex order (the wide
    `next_colex_mask`): the lowest cell that can move up one does, the cells below it go back
    to 0, 1, ...; stepping past the last subset gives a meaningless one."""
    i = 0
    while i + 1 < k and cells[i] + 1 == cells[i + 1]:
        cells[i] = i
        i += 1
    cells[i] += 1


@numba.njit(cache=True, inline="always")
def next_colex_wide(cells: np.ndarray, k: int | np.int64, mask: np.ndarray) -> None:
    """`next_colex_cells`, flipping in the wide `mask` only the cells that change (a cell
    moved back to j never meets a cell still to move: those lie above j)."""
    i = 0
    while i + 1 < k and cells[i] + 1 == cells[i + 1]:
        wide_flip(mask, cells[i])
        cells[i] = i
        wide_flip(mask, i)
        i += 1
    wide_flip(mask, cells[i])
    cells[i] += 1
    wide_flip(mask, cells[i])


@numba.njit(cache=True, inline="always")
def wide_from_cells(cells: np.ndarray, k: int | np.int64, mask: np.ndarray) -> None:
    """Write into the wide `mask` the cells cells[:k]."""
    for w in range(mask.shape[0]):
        mask[w] = 0
    for i in range(k):
        wide_flip(mask, cells[i])


def to_words(mask: int, words: int) -> np.ndarray:
    """A Python-int mask as a (words,) uint64 array.

    >>> to_words((1 << 70) | 3, 2).tolist()
    [3, 64]
    """
    return np.array([(mask >> (64 * w)) & 0xFFFFFFFFFFFFFFFF for w in range(words)], dtype=np.uint64)


def from_words(mask: np.ndarray) -> int:
    """The Python int of a wide mask (inverse of `to_words`)."""
    return sum(int(v) << (64 * w) for w, v in enumerate(mask))


# ---------------------------------------------------------------------------------------
# Compiled helpers: multisets (type-generic kernels, see the module docstring)
# ---------------------------------------------------------------------------------------


@numba.njit(cache=True)
def multinomial(counts: np.ndarray | Sequence[int]) -> int:
    """Number of distinct sequences with counts[t] items of type t: (sum c)! / prod(c!).

    Compiled it returns int64 (exact while the result fits); `multinomial.py_func` on a
    list returns an exact Python int.
    """
    total = 0
    result = 1
    for t in range(len(counts)):
        for j in range(counts[t]):
            total += 1
            g = math.gcd(result, j + 1)  # divide first: exact while the result fits
            result = (result // g) * (total // ((j + 1) // g))
    return result


@numba.njit(cache=True)
def _rank_multiset(seq: np.ndarray | Sequence[int], counts: np.ndarray | list[int], orderings: int) -> int:
    # Lex rank of seq among the `orderings` distinct orderings of its multiset. Before
    # position i, `remaining` is the number of orderings of seq[i:]; the orderings of
    # seq[i:] that start with type t < seq[i] number remaining * counts[t] / (k - i).
    k = len(seq)
    remaining = orderings
    rank = 0
    for i in range(k):
        left = k - i
        item = seq[i]
        g = math.gcd(remaining, left)  # left // g divides every count: divide first
        share, per = remaining // g, left // g
        for t in range(item):
            rank += share * (counts[t] // per)
        remaining = share * (counts[item] // per)
        counts[item] -= 1
    for i in range(k):
        counts[seq[i]] += 1
    return rank


@numba.njit(cache=True)
def _unrank_multiset(rank: int | np.int64, counts: np.ndarray | list[int], out: np.ndarray | list[int],
                     orderings: int) -> None:
    # Inverse of _rank_multiset: pick at each position the type whose block holds rank.
    k = len(out)
    remaining = orderings
    for i in range(k):
        left = k - i
        g = math.gcd(remaining, left)  # left // g divides every count: divide first
        share, per = remaining // g, left // g
        t = 0
        block = share * (counts[0] // per)
        while rank >= block:
            rank -= block
            t += 1
            block = share * (counts[t] // per)
        out[i] = t
        remaining = block
        counts[t] -= 1
    for i in range(k):
        counts[out[i]] += 1


@numba.njit(cache=True)
def rank_multiset_sequence(seq: np.ndarray, counts: np.ndarray) -> int:
    """Lex rank of `seq` (types 0..T-1) among all distinct orderings of its multiset.

    Range 0..multinomial(counts)-1; e.g. with counts (2, 1) the orderings (0, 0, 1),
    (0, 1, 0), (1, 0, 0) have ranks 0, 1, 2 (the order of
    `sorted(more_itertools.distinct_permutations(seq))`). `counts[t]` must be the number
    of times t occurs in `seq`; `counts` is used as scratch space and restored before
    returning. No validation.
    """
    return _rank_multiset(seq, counts, multinomial(counts))


@numba.njit(cache=True)
def unrank_multiset_sequence(rank: np.int64, counts: np.ndarray, out: np.ndarray) -> None:
    """Write into `out` (length sum(counts)) the sequence whose lex rank is `rank`.

    Inverse of `rank_multiset_sequence`; `counts` is scratch space, restored on return.
    """
    _unrank_multiset(np.int64(rank), counts, out, multinomial(counts))


class MultisetTable:
    """Division-free lex ranking of type sequences for every count vector up to `limits`.

    Count vectors are numbered in mixed radix: index(c) = sum(c[t] * weights[t]), with
    the last type least significant. prefix[index(c), v] is the number of orderings of c
    that start with a type below v, so the rank of a sequence is the sum of
    prefix[index(remaining counts), item] over its items (see `rank_multiset_indexed`).

    >>> table = MultisetTable((2, 1))
    >>> import numpy as np
    >>> int(rank_multiset_indexed(np.array([1, 0, 0]), table.index((2, 1)), table.prefix,
    ...                           table.weights))
    2
    """

    def __init__(self, limits: Sequence[int]) -> None:
        self.limits = tuple(limits)
        radix = [c + 1 for c in self.limits]
        self.weights = np.array(
            [math.prod(radix[t + 1 :]) for t in range(len(radix))], dtype=np.int64
        )
        self.prefix = np.zeros((math.prod(radix), len(radix)), dtype=np.int64)
        for counts in itertools.product(*(range(r) for r in radix)):
            starts = [
                multinomial.py_func([c - (u == t) for u, c in enumerate(counts)]) if counts[t] else 0
                for t in range(len(counts))
            ]
            self.prefix[self.index(counts)] = np.cumsum([0, *starts[:-1]])

    def index(self, counts: Sequence[int]) -> int:
        return int(sum(c * w for c, w in zip(counts, self.weights)))


@numba.njit(cache=True, inline="always")
def rank_multiset_indexed(seq: np.ndarray, index: int, prefix: np.ndarray, weights: np.ndarray) -> np.int64:
    """`rank_multiset_sequence(seq, counts)` with counts given by their `MultisetTable`
    index; no division, one table read per item."""
    rank = np.int64(0)
    for i in range(seq.shape[0]):
        item = seq[i]
        rank += prefix[index, item]
        index -= weights[item]
    return rank


# ---------------------------------------------------------------------------------------
# Compiled helpers: boards of typed pieces (placements, see `rank_placement`)
# ---------------------------------------------------------------------------------------


@numba.njit(cache=True)
def fill_board(mask: np.uint64, seq: np.ndarray, board: np.ndarray) -> None:
    """Write into `board` (zeroed first) the pieces `seq` (types 0-based, one per occupied
    cell of `mask` in increasing cell order) as types 1..T."""
    board[:] = 0
    m = mask
    for j in range(seq.shape[0]):
        board[lowest_bit(m)] = seq[j] + 1
        m &= m - np.uint64(1)


@numba.njit(cache=True)
def rank_board(board: np.ndarray, counts: np.ndarray, seq: np.ndarray) -> np.int64:
    """The placement rank of `board` (0 empty, t = type t) within its layer, as
    `rank_placement`: colex rank of the occupied cells x orderings + the types' multiset
    rank. Fills `counts` (length T) with the board's per-type counts and seq[:k] with its
    types (0-based) in cell order."""
    counts[:] = 0
    mask = np.uint64(0)
    k = 0
    for cell in range(board.shape[0]):
        t = board[cell]
        if t:
            mask |= np.uint64(1) << np.uint64(cell)
            seq[k] = t - 1
            counts[t - 1] += 1
            k += 1
    return rank_colex_mask(mask) * multinomial(counts) + rank_multiset_sequence(seq[:k], counts)


@numba.njit(cache=True)
def rank_board_wide(board: np.ndarray, counts: np.ndarray, seq: np.ndarray) -> np.int64:
    """`rank_board` on a board of any number of cells (the colex rank from `BINOMIAL_WIDE`)."""
    counts[:] = 0
    colex = np.int64(0)
    k = 0
    for cell in range(board.shape[0]):
        t = board[cell]
        if t:
            k += 1
            colex += BINOMIAL_WIDE[cell, k]
            seq[k - 1] = t - 1
            counts[t - 1] += 1
    return colex * multinomial(counts) + rank_multiset_sequence(seq[:k], counts)


# ---------------------------------------------------------------------------------------
# Compiled helpers: permutations and orientations (type-generic kernels)
# ---------------------------------------------------------------------------------------


@numba.njit(cache=True)
def _rank_arrangement(items: np.ndarray | Sequence[int], n: int) -> int:
    # Rank of distinct items (a k-permutation of 0..n-1) in itertools.permutations order:
    # mixed radix n, n-1, ..., n-k+1 whose digit i is the number of unused items below
    # items[i]. For k = n the digits are the Lehmer code.
    rank = 0
    for i in range(len(items)):
        digit = int(items[i])
        for j in range(i):
            if items[j] < items[i]:
                digit -= 1
        rank = rank * (n - i) + digit
    return rank


@numba.njit(cache=True)
def _unrank_arrangement(rank: int | np.int64, n: int, out: np.ndarray | list[int]) -> None:
    # Inverse of _rank_arrangement: peel the digits off from the last one; each suffix is
    # kept as ranks among the items still unused, lifted past each digit on the way left.
    k = len(out)
    for i in range(k - 1, -1, -1):
        radix = n - i
        out[i] = rank % radix  # type: ignore[assignment]  # an int64 rank only into an array
        rank //= radix
        for j in range(i + 1, k):
            if out[j] >= out[i]:
                out[j] += 1


@numba.njit(cache=True)
def rank_permutation_array(perm: np.ndarray) -> int:
    """Lex rank of a permutation of 0..n-1 held in an int array (same as `rank_permutation`).

    Compiled, no validation; int64, so n <= 20. O(n^2).
    """
    return _rank_arrangement(perm, len(perm))


@numba.njit(cache=True)
def unrank_permutation_array(rank: int, out: np.ndarray) -> None:
    """Write into `out` (an int array of length n <= 20) the permutation of lex rank `rank`.

    Inverse of `rank_permutation_array`; compiled, no validation.
    """
    _unrank_arrangement(np.int64(rank), len(out), out)


@numba.njit(cache=True)
def rank_orientation_array(ori: np.ndarray | Sequence[int], v: int, zero_sum: bool) -> int:
    """Base-v rank of orientation digits, first digit most significant.

    With `zero_sum` the last digit is left out (it is implied by sum % v == 0). Same as
    `rank_orientation`; compiled, no validation.
    """
    digits = len(ori) - 1 if zero_sum else len(ori)
    rank = 0
    for i in range(digits):
        rank = rank * v + int(ori[i])
    return rank


@numba.njit(cache=True)
def unrank_orientation_array(rank: int, v: int, zero_sum: bool, out: np.ndarray | list[int]) -> None:
    """Write into `out` the orientation digits of `rank` (inverse of `rank_orientation_array`).

    With `zero_sum` the last digit is set so that the digits sum to 0 mod v.
    """
    n = len(out)
    digits = n - 1 if zero_sum else n
    total = 0
    for i in range(digits - 1, -1, -1):
        digit = rank % v
        out[i] = digit
        total += digit
        rank //= v
    if zero_sum:
        out[n - 1] = (v - total % v) % v


# ---------------------------------------------------------------------------------------
# Validation (shared by all scalar functions)
# ---------------------------------------------------------------------------------------


def _require(condition: bool, message: str) -> None:
    """Raise ValueError(message) unless condition holds."""
    if not condition:
        raise ValueError(message)


def _natural(value: int, name: str) -> int:
    number = operator.index(value)
    _require(number >= 0, f"{name} must be non-negative, got {number}")
    return number


def _check_rank(rank: int, size: int) -> int:
    number = operator.index(rank)
    _require(0 <= number < size, f"rank {number} out of range: expected 0 <= rank < {size}")
    return number


def _check_items(items: Sequence[int], n: int, what: str) -> tuple[int, ...]:
    """Items as a tuple of ints, each in 0..n-1 and distinct."""
    values = tuple(operator.index(x) for x in items)
    seen: set[int] = set()
    for x in values:
        _require(0 <= x < n, f"{what} {x} out of range 0..{n - 1}")
        _require(x not in seen, f"duplicate {what} {x}")
        seen.add(x)
    return values


def _check_size(n: int, k: int) -> tuple[int, int]:
    n, k = _natural(n, "n"), _natural(k, "k")
    _require(k <= n, f"k = {k} exceeds n = {n}")
    return n, k


def _check_order(order: str, orders: dict[str, T]) -> T:
    _require(order in orders, f"unknown order {order!r}: expected one of {sorted(orders)}")
    return orders[order]


# ---------------------------------------------------------------------------------------
# Combinations
# ---------------------------------------------------------------------------------------


def binomial(n: int, k: int) -> int:
    """C(n, k) as an exact Python int; 0 when k < 0 or k > n.

    >>> binomial(20, 4)
    4845
    """
    n, k = _natural(n, "n"), operator.index(k)
    return math.comb(n, k) if 0 <= k <= n else 0


def _rank_colex(cells: Sequence[int], n: int | None = None) -> int:
    # The colex rank does not depend on n; the parameter matches the other orders.
    return sum(math.comb(c, i) for i, c in enumerate(cells, 1))


def _unrank_colex(rank: int, n: int, k: int) -> tuple[int, ...]:
    # Greedy from the top: the largest cell is the largest c with C(c, k) <= rank, etc.
    cells = []
    c = n
    for i in range(k, 0, -1):
        c -= 1
        while math.comb(c, i) > rank:
            c -= 1
        rank -= math.comb(c, i)
        cells.append(c)
    return tuple(reversed(cells))


def _mirror(cells: Sequence[int], n: int) -> tuple[int, ...]:
    """Reflect cells c -> n-1-c, keeping them ascending; maps colex order onto reverse lex."""
    return tuple(n - 1 - c for c in reversed(cells))


def _rank_lex(cells: Sequence[int], n: int) -> int:
    return math.comb(n, len(cells)) - 1 - _rank_colex(_mirror(cells, n))


def _unrank_lex(rank: int, n: int, k: int) -> tuple[int, ...]:
    return _mirror(_unrank_colex(math.comb(n, k) - 1 - rank, n, k), n)


_COMBINATION_ORDERS = {
    "lex": (_rank_lex, _unrank_lex),
    "colex": (_rank_colex, _unrank_colex),
}


def _check_cells(cells: Sequence[int], n: int) -> tuple[int, ...]:
    """Distinct ascending cells in 0..n-1."""
    values = _check_items(cells, _natural(n, "n"), "cell")
    _require(
        all(a < b for a, b in itertools.pairwise(values)), f"cells must be ascending, got {values}"
    )
    return values


def rank_combination(cells: Sequence[int], n: int, order: str = "lex") -> int:
    """Rank of the k-subset `cells` (ascending) of cells 0..n-1, in 0..C(n, k)-1.

    order="lex": the order of `itertools.combinations(range(n), k)`.
    order="colex": the order of increasing bit masks, so the next combination is the next
    integer with the same popcount; rank = sum of C(cells[i], i+1), independent of n and
    equal to `rank_colex_mask` of the mask for n <= 64.

    >>> rank_combination([0, 1, 3], 5), rank_combination([0, 1, 3], 5, order="colex")
    (1, 1)
    >>> rank_combination([2, 3], 4), rank_combination([2, 3], 4, order="colex")
    (5, 5)
    >>> rank_combination([0, 3], 4), rank_combination([0, 3], 4, order="colex")
    (2, 3)
    """
    rank, _ = _check_order(order, _COMBINATION_ORDERS)
    n = _natural(n, "n")
    return rank(_check_cells(cells, n), n)


def unrank_combination(rank: int, n: int, k: int, order: str = "lex") -> tuple[int, ...]:
    """The ascending k-subset of 0..n-1 with the given rank (inverse of `rank_combination`).

    >>> unrank_combination(4844, 20, 4), unrank_combination(4844, 20, 4, order="colex")
    ((16, 17, 18, 19), (16, 17, 18, 19))
    >>> unrank_combination(3, 4, 2, order="colex")
    (0, 3)
    """
    _, unrank = _check_order(order, _COMBINATION_ORDERS)
    n, k = _check_size(n, k)
    return unrank(_check_rank(rank, math.comb(n, k)), n, k)


def cells_to_mask(cells: Sequence[int], n: int) -> int:
    """Bit mask (as an int) of distinct cells of a board of n <= 256 cells, for the mask helpers.

    >>> bin(cells_to_mask([0, 2, 3], 8))
    '0b1101'
    """
    n = _natural(n, "n")
    _require(n <= MAX_CELLS, f"masks hold at most {MAX_CELLS} cells, got n = {n}")
    return sum(1 << c for c in _check_items(cells, n, "cell"))


def mask_to_cells(mask: int, n: int) -> tuple[int, ...]:
    """Ascending cells of the set bits of `mask` on a board of n <= 256 cells.

    >>> mask_to_cells(0b1101, 8)
    (0, 2, 3)
    """
    n, mask = _natural(n, "n"), _natural(mask, "mask")
    _require(n <= MAX_CELLS, f"masks hold at most {MAX_CELLS} cells, got n = {n}")
    _require(mask >> n == 0, f"mask {mask:#x} has bits at or above cell n = {n}")
    return tuple(c for c in range(n) if mask >> c & 1)


# ---------------------------------------------------------------------------------------
# Placements of typed pieces (multiset placements)
# ---------------------------------------------------------------------------------------


def _check_counts(counts: Sequence[int], n: int) -> list[int]:
    values = [_natural(c, "piece count") for c in counts]
    _require(sum(values) <= n, f"{sum(values)} pieces do not fit on {n} cells")
    return values


def placement_count(n: int, counts: Sequence[int]) -> int:
    """Number of placements of counts[t-1] pieces of type t on n cells: C(n, k)·k!/∏ c_t!.

    >>> placement_count(4, [1, 1])
    12
    """
    counts = _check_counts(counts, _natural(n, "n"))
    return math.comb(n, sum(counts)) * multinomial.py_func(counts)


def rank_placement(board: Sequence[int], counts: Sequence[int]) -> int:
    """Rank of a placement of typed pieces, in 0..C(n, k)·k!/(c_1!···c_T!)-1.

    `board` has one entry per cell (n = len(board)): 0 for empty, t for a piece of type t
    (1..T), with exactly counts[t-1] pieces of type t; k = sum(counts).

    Order (fixed; tables depend on it): with M = multinomial(counts),

        rank = rank_combination(occupied cells, n, "colex") * M + r2,

    where r2 is the lex rank of the types t-1, read in ascending cell order, among the
    distinct orderings of that multiset (`rank_multiset_sequence`). So placements are
    grouped by occupied cells in colex order, and within a group ordered lexicographically
    by piece types. For n <= 64 this equals
    rank_colex_mask(mask) * multinomial(counts) + rank_multiset_sequence(types - 1, counts).

    >>> [rank_placement(b, [1, 1]) for b in [(1, 2, 0), (2, 1, 0), (1, 0, 2), (0, 2, 1)]]
    [0, 1, 2, 5]
    """
    counts = _check_counts(counts, len(board))
    board = tuple(operator.index(t) for t in board)
    for t in board:
        _require(0 <= t <= len(counts), f"piece type {t} out of range 0..{len(counts)}")
    found = [board.count(t) for t in range(1, len(counts) + 1)]
    _require(found == counts, f"board has pieces {found} of each type, counts are {counts}")
    cells = [cell for cell, t in enumerate(board) if t]
    types = [board[cell] - 1 for cell in cells]
    orderings = multinomial.py_func(counts)
    return _rank_colex(cells) * orderings + _rank_multiset.py_func(types, counts, orderings)


def unrank_placement(rank: int, n: int, counts: Sequence[int]) -> tuple[int, ...]:
    """The board (tuple of length n) with the given placement rank; see `rank_placement`.

    >>> unrank_placement(5, 3, [1, 1])
    (0, 2, 1)
    """
    counts = _check_counts(counts, _natural(n, "n"))
    orderings = multinomial.py_func(counts)
    k = sum(counts)
    group, r2 = divmod(_check_rank(rank, math.comb(n, k) * orderings), orderings)
    types = [0] * k
    _unrank_multiset.py_func(r2, counts, types, orderings)
    board = [0] * n
    for cell, t in zip(_unrank_colex(group, n, k), types):
        board[cell] = t + 1
    return tuple(board)


# ---------------------------------------------------------------------------------------
# Permutations
# ---------------------------------------------------------------------------------------


def _rank_lehmer(perm: Sequence[int]) -> int:
    return _rank_arrangement.py_func(perm, len(perm))


def _unrank_lehmer(rank: int, n: int) -> list[int]:
    out = [0] * n
    _unrank_arrangement.py_func(rank, n, out)
    return out


def _rank_mr(perm: Sequence[int]) -> int:
    # Undo the unranking swaps from the top: the item at position m-1 is the digit of radix
    # m; swap item m-1 back into position m-1 and continue with the first m-1 positions.
    p = list(perm)
    where = [0] * len(p)
    for position, item in enumerate(p):
        where[item] = position
    rank, weight = 0, 1
    for m in range(len(p), 1, -1):
        digit, home = p[m - 1], where[m - 1]
        p[home], where[digit] = digit, home
        rank += digit * weight
        weight *= m
    return rank


def _unrank_mr(rank: int, n: int) -> list[int]:
    p = list(range(n))
    for m in range(n, 0, -1):
        rank, digit = divmod(rank, m)
        p[m - 1], p[digit] = p[digit], p[m - 1]
    return p


_PERMUTATION_ORDERS = {
    "lex": (_rank_lehmer, _unrank_lehmer),
    "mr": (_rank_mr, _unrank_mr),
}


def _check_permutation(perm: Sequence[int]) -> tuple[int, ...]:
    return _check_items(perm, len(perm), "item")


def rank_permutation(perm: Sequence[int], order: str = "lex") -> int:
    """Rank of a permutation of 0..n-1 (n = len(perm)), in 0..n!-1.

    order="lex": the order of `itertools.permutations(range(n))`; the rank is the Lehmer
    code (digit i = how many later items are smaller than perm[i]) read in the factorial
    base, e.g. (2, 3, 1, 0) has digits (2, 2, 1, 0) and rank 2·3! + 2·2! + 1·1! = 17.
    order="mr": Myrvold-Ruskey's linear-time order. Unranking starts from the identity
    and, for m = n, n-1, ..., 1, swaps positions m-1 and rank % m, then rank //= m. (It is
    not lex: the identity has rank n!-1.)

    >>> rank_permutation((2, 3, 1, 0)), rank_permutation((0, 1, 2, 3), order="mr")
    (17, 23)
    """
    rank, _ = _check_order(order, _PERMUTATION_ORDERS)
    return rank(_check_permutation(perm))


def unrank_permutation(rank: int, n: int, order: str = "lex") -> tuple[int, ...]:
    """The permutation of 0..n-1 with the given rank (inverse of `rank_permutation`).

    >>> unrank_permutation(17, 4)
    (2, 3, 1, 0)
    """
    _, unrank = _check_order(order, _PERMUTATION_ORDERS)
    n = _natural(n, "n")
    return tuple(unrank(_check_rank(rank, math.factorial(n)), n))


def _is_odd(perm: Sequence[int]) -> bool:
    """Parity of a permutation: n minus its number of cycles is its transposition count."""
    seen = [False] * len(perm)
    cycles = 0
    for start in range(len(perm)):
        if not seen[start]:
            cycles += 1
            item = start
            while not seen[item]:
                seen[item] = True
                item = perm[item]
    return (len(perm) - cycles) % 2 == 1


def _check_even_size(n: int) -> int:
    _require(n >= 2, f"even-permutation ranking needs n >= 2 items, got {n}")
    return n


def rank_even_permutation(perm: Sequence[int]) -> int:
    """Rank of an even permutation of 0..n-1 (n >= 2), in 0..n!/2-1.

    Jaap's scheme: only the first n-2 Lehmer digits are encoded; the last two positions
    follow from the parity. The order is lex order restricted to even permutations, and
    rank = rank_permutation(perm) // 2 (each lex pair 2m, 2m+1 differs by swapping the
    last two items, so exactly one of them is even). Odd permutations raise ValueError.

    >>> rank_even_permutation((0, 2, 3, 1)), rank_permutation((0, 2, 3, 1))
    (1, 3)
    """
    perm = _check_permutation(perm)
    _check_even_size(len(perm))
    _require(not _is_odd(perm), f"permutation {perm} is odd")
    return _rank_lehmer(perm) // 2


def unrank_even_permutation(rank: int, n: int) -> tuple[int, ...]:
    """The even permutation of 0..n-1 with the given rank (inverse of rank_even_permutation).

    >>> unrank_even_permutation(1, 4)
    (0, 2, 3, 1)
    """
    n = _check_even_size(_natural(n, "n"))
    perm = _unrank_lehmer(2 * _check_rank(rank, math.factorial(n) // 2), n)
    if _is_odd(perm):
        perm[-2], perm[-1] = perm[-1], perm[-2]
    return tuple(perm)


def rank_partial_permutation(items: Sequence[int], n: int) -> int:
    """Rank of k distinct items from 0..n-1 (a k-permutation), in 0..n!/(n-k)!-1.

    The order is that of `itertools.permutations(range(n), k)`: mixed radix n, n-1, ...,
    n-k+1 whose digit i counts the unused items smaller than items[i]. With k = n this is
    `rank_permutation(items)`.

    >>> rank_partial_permutation((1, 0), 3), rank_partial_permutation((2, 1), 3)
    (2, 5)
    """
    n = _natural(n, "n")
    items = _check_items(items, n, "item")
    return _rank_arrangement.py_func(items, n)


def unrank_partial_permutation(rank: int, n: int, k: int) -> tuple[int, ...]:
    """The k-permutation of 0..n-1 with the given rank (inverse of rank_partial_permutation).

    >>> unrank_partial_permutation(5, 3, 2)
    (2, 1)
    """
    n, k = _check_size(n, k)
    out = [0] * k
    _unrank_arrangement.py_func(_check_rank(rank, math.perm(n, k)), n, out)
    return tuple(out)


# ---------------------------------------------------------------------------------------
# Orientations
# ---------------------------------------------------------------------------------------


def orientation_count(n: int, v: int, zero_sum: bool = False) -> int:
    """Number of orientation vectors of n pieces with v orientations each.

    v^n, or v^(n-1) with `zero_sum` (which needs n >= 1).

    >>> orientation_count(7, 3, zero_sum=True)
    729
    """
    n, v = _natural(n, "n"), _natural(v, "v")
    _require(v >= 1, "v must be at least 1")
    _require(n >= 1 or not zero_sum, "zero_sum needs at least one piece")
    return cast(int, v ** (n - 1 if zero_sum else n))  # a non-negative power: an int


def rank_orientation(ori: Sequence[int], v: int, zero_sum: bool = False) -> int:
    """Rank of orientation digits (each 0..v-1) read in base v, first digit most significant.

    Range 0..v^n-1, the order of `itertools.product(range(v), repeat=n)`. With `zero_sum`
    the digits must sum to 0 mod v; the last digit is implied and left out, range
    0..v^(n-1)-1 (the order of that product filtered to zero sums).

    >>> rank_orientation((1, 0, 2), 3), rank_orientation((1, 0, 2), 3, zero_sum=True)
    (11, 3)
    """
    orientation_count(len(ori), v, zero_sum)  # validates v, and n for zero_sum
    digits = tuple(operator.index(d) for d in ori)
    for d in digits:
        _require(0 <= d < v, f"orientation {d} out of range 0..{v - 1}")
    _require(not zero_sum or sum(digits) % v == 0, f"orientations {digits} do not sum to 0 mod {v}")
    return rank_orientation_array.py_func(digits, v, zero_sum)


def unrank_orientation(rank: int, n: int, v: int, zero_sum: bool = False) -> tuple[int, ...]:
    """The n orientation digits with the given rank (inverse of `rank_orientation`).

    >>> unrank_orientation(3, 3, 3, zero_sum=True)
    (1, 0, 2)
    """
    out = [0] * _natural(n, "n")
    rank = _check_rank(rank, orientation_count(n, v, zero_sum))
    unrank_orientation_array.py_func(rank, v, zero_sum, out)
    return tuple(out)
