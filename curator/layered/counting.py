"""Compiled passes over whole tiers for solution counting: positions reachable from a tier, and
the solution counts of a tier from those of the tier below.

A tier's reachable positions are held as their keys (rank within the tier's layers laid end to
end, see `curator.layered.space.tier_offsets`) in increasing order. Where many are reachable,
the children of a tier are marked in a bitmap the size of the tier and the bitmap is ANDed
with the stored solvable bits: the survivors come out in key order without sorting. An
`Index` finds a key's place among a tier's keys, by a bitmap with a prefix count per word
(dense tiers) or by binary search (sparse ones). Counts are uint64; a sum that would pass
2**64 is reported, and the caller counts that tier again with Python integers.
"""

from __future__ import annotations

from dataclasses import dataclass

import numba
import numpy as np

from curator.common.kernels import Slot, build, kernel
from curator.common.ranking import (
    bit_count,
    lowest_bit,
    rank_board,
    rank_board_wide,
    rank_colex_mask,
    unrank_colex_mask,
    wide_flip,
)
from curator.common.threads import chunks, spread
from curator.layered.bits import read_only
from curator.rules import MAX_CHILDREN

children = Slot("children")
"""`Rules.children`, bound per family by `build` (see curator.common.kernels)."""

CHUNK = 4096
"""Parents (or words) one thread takes at a time in the kernels shared among threads."""
DENSE_WORDS = 16
"""A tier gets a bitmap (marking, index) when it has at most this many words per position
of the tier above (marking) or of itself (index); sparser tiers sort and search instead."""


# -- positions and keys ------------------------------------------------------------------------


@numba.njit(cache=True)
def board_mask(board: np.ndarray) -> np.uint64:
    """The occupancy mask of a board (one int8 entry per cell, 0 empty)."""
    mask = np.uint64(0)
    for cell in range(board.shape[0]):
        if board[cell]:
            mask |= np.uint64(1) << np.uint64(cell)
    return mask


@numba.njit(cache=True)
def board_wide_mask(board: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """`board_mask` into a multi-word mask (boards of more than 64 cells); returns `mask`."""
    mask[:] = 0
    for cell in range(board.shape[0]):
        if board[cell]:
            wide_flip(mask, cell)
    return mask


@numba.njit(cache=True)
def board_key_wide(board, radix, offsets, counts, seq):
    """`board_key` on a board of any number of cells."""
    within = rank_board_wide(board, counts, seq)
    slot = 0
    for t in range(radix.shape[0]):
        slot = slot * radix[t] + counts[t]
    return offsets[slot] + within


@numba.njit(cache=True)
def board_key(board, radix, offsets, counts, seq):
    """Key of a board within its tier: its layer's offset (`offsets`, indexed by the layer's
    counts read in base `radix`) plus its rank within the layer. `counts` and `seq` are
    scratch arrays (piece types, cells)."""
    within = rank_board(board, counts, seq)
    slot = 0
    for t in range(radix.shape[0]):
        slot = slot * radix[t] + counts[t]
    return offsets[slot] + within


# -- reachable positions of the next tier ----------------------------------------------------


@kernel
def _mark_children(tables, masks, marks):
    """Set the bit of every child of `masks` (one kind of piece) in `marks`, at its rank; the
    number of bits set (distinct children not marked before)."""
    buf = np.empty(MAX_CHILDREN, dtype=np.uint64)
    buf_moves = np.empty(MAX_CHILDREN, dtype=np.int64)
    marked = 0
    for i in range(masks.shape[0]):
        count = children(masks[i], tables, buf, buf_moves)
        for j in range(count):
            rank = rank_colex_mask(buf[j])
            bit = np.uint64(1) << np.uint64(rank & 63)
            if not marks[rank >> 6] & bit:
                marks[rank >> 6] |= bit
                marked += 1
    return marked


@kernel
def _keep_solvable(marks, solvable, cells, pieces, marked):
    """The ranks of the bits of `marks & solvable` (increasing) and their masks, in one pass
    over the words; `marked` bounds the bits of `marks`. Serial: a search runs this for every
    tier of every level it rates, mostly on small tiers, and starting threads for each call
    cost more than the pass itself (many times more when other processes hold the cores)."""
    keys = np.empty(marked, dtype=np.int64)
    masks = np.empty(marked, dtype=np.uint64)
    at = 0
    for w in range(marks.shape[0]):
        word = marks[w] & solvable[w]
        while word:
            keys[at] = w * 64 + lowest_bit(word)
            masks[at] = unrank_colex_mask(keys[at], cells, pieces)
            word &= word - np.uint64(1)
            at += 1
    return keys[:at].copy(), masks[:at].copy()


def reachable_masks(children_fn, tables, masks: np.ndarray, solvable: np.ndarray, cells: int,
                    pieces: int) -> tuple[np.ndarray, np.ndarray]:
    """The distinct children of `masks` (one kind of piece, `pieces` pieces each) that the
    stored `solvable` words of their layer mark solvable: (keys in increasing order, masks)."""
    marks = np.zeros(solvable.shape[0], dtype=np.uint64)
    marked = build(_mark_children, children=children_fn)(tables, masks, marks)
    return build(_keep_solvable)(marks, read_only(solvable), cells, pieces, marked)


# -- finding keys ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Index:
    """Where each key of a tier stands among the tier's sorted keys (see `find`)."""

    keys: np.ndarray
    """The tier's keys, increasing."""
    words: np.ndarray
    """For a dense tier, one row per word of the tier: the word (bit `key` set for each key)
    and the number of keys in the words before it, side by side so one look-up reads one
    cache line. Empty for a sparse tier (binary search)."""

    @classmethod
    def of(cls, keys: np.ndarray, tier_words: int) -> Index:
        """The index of `keys` in a tier of `tier_words` words: a bitmap if dense enough."""
        if keys.shape[0] * DENSE_WORDS < tier_words:
            return cls(keys, np.zeros((0, 2), dtype=np.uint64))
        return cls(keys, build(_bitmap)(keys, tier_words))


@kernel
def _bitmap(keys, size):
    """The bitmap of sorted `keys` over `size` words, with prefix counts (see `Index.words`)."""
    words = np.zeros((size, 2), dtype=np.uint64)
    for i in range(keys.shape[0]):
        words[keys[i] >> 6, 0] |= np.uint64(1) << np.uint64(keys[i] & 63)
    total = np.uint64(0)
    for w in range(size):
        words[w, 1] = total
        total += bit_count(words[w, 0])
    return words


@numba.njit(cache=True)
def find(key, keys, words):
    """The place of `key` among sorted `keys` (see `Index`), or -1 if it is not there."""
    if words.shape[0]:
        w = key >> 6
        bit = np.uint64(1) << np.uint64(key & 63)
        if not words[w, 0] & bit:
            return -1
        return np.int64(words[w, 1] + bit_count(words[w, 0] & (bit - np.uint64(1))))
    at = np.searchsorted(keys, key)
    if at < keys.shape[0] and keys[at] == key:
        return at
    return -1


# -- counts of a tier from the tier below ------------------------------------------------------


@numba.njit(cache=True)
def _sum_distinct(found, count, below, once):
    """Sum (or with `once`, the largest) of `below` over the distinct places found[:count]
    (-1: not there), and whether the sum passed 2**64. Sorts found[:count] in place."""
    for j in range(1, count):  # insertion sort: a position has few children
        value = found[j]
        i = j - 1
        while i >= 0 and found[i] > value:
            found[i + 1] = found[i]
            i -= 1
        found[i + 1] = value
    total = np.uint64(0)
    overflow = False
    last = -1
    for j in range(count):
        place = found[j]
        if place < 0 or place == last:
            continue
        last = place
        value = below[place]
        if once:
            total = max(total, value)
        else:
            overflow |= total + value < total
            total += value
    return total, overflow


@kernel
def _count_masks_chunk(tables, masks, lo, hi, keys, words, below, once, out):
    """out[i] = solutions of masks[i], lo <= i < hi, from the counts `below` of the tier
    below (indexed by keys and words: see `Index`); whether a sum passed 2**64."""
    buf = np.empty(MAX_CHILDREN, dtype=np.uint64)
    buf_moves = np.empty(MAX_CHILDREN, dtype=np.int64)
    found = np.empty(MAX_CHILDREN, dtype=np.int64)
    overflow = False
    for i in range(lo, hi):
        count = children(masks[i], tables, buf, buf_moves)
        for j in range(count):
            found[j] = find(rank_colex_mask(buf[j]), keys, words)
        out[i], over = _sum_distinct(found, count, below, once)
        overflow |= over
    return overflow


@kernel(nogil=True)
def _count_masks(tables, masks, keys, words, below, once, out, overflow, start, step):
    """`_count_masks_chunk` over the chunks start, start + step, ... of `masks` (see
    `curator.common.threads`), whether each passed 2**64 into `overflow`."""
    for c in range(start, (masks.shape[0] + CHUNK - 1) // CHUNK, step):
        hi = min(masks.shape[0], (c + 1) * CHUNK)
        overflow[c] = _count_masks_chunk(tables, masks, c * CHUNK, hi, keys, words, below, once, out)


@kernel
def _count_boards_chunk(tables, boards, lo, hi, radix, offsets, keys, words, below, once, out):
    """`_count_masks_chunk` for typed pieces; radix and offsets as for `board_key`."""
    n = boards.shape[1]
    buf_masks = np.empty(MAX_CHILDREN, dtype=np.uint64)
    buf = np.empty((MAX_CHILDREN, n), dtype=np.int8)
    removed = np.empty(MAX_CHILDREN, dtype=np.int64)
    buf_moves = np.empty(MAX_CHILDREN, dtype=np.int64)
    found = np.empty(MAX_CHILDREN, dtype=np.int64)
    counts = np.empty(radix.shape[0], dtype=np.int64)
    seq = np.empty(n, dtype=np.int64)
    overflow = False
    for i in range(lo, hi):
        count = children(board_mask(boards[i]), boards[i], tables, buf_masks, buf, removed, buf_moves)
        for j in range(count):
            found[j] = find(board_key(buf[j], radix, offsets, counts, seq), keys, words)
        out[i], over = _sum_distinct(found, count, below, once)
        overflow |= over
    return overflow


@kernel(nogil=True)
def _count_boards(tables, boards, radix, offsets, keys, words, below, once, out, overflow, start, step):
    """`_count_boards_chunk` over the chunks start, start + step, ... of `boards`, as
    `_count_masks`."""
    for c in range(start, (boards.shape[0] + CHUNK - 1) // CHUNK, step):
        hi = min(boards.shape[0], (c + 1) * CHUNK)
        overflow[c] = _count_boards_chunk(tables, boards, c * CHUNK, hi, radix, offsets, keys, words,
                                          below, once, out)


def _in_threads(run, count: int, *args) -> bool:
    """Whether `run` (`_count_masks` or `_count_boards`) over `count` items, on threads, found a
    count past 2**64."""
    overflow = np.zeros(chunks(count, CHUNK), dtype=np.bool_)
    spread(run, *args, overflow, shares=len(overflow))
    return bool(overflow.any())


def count_masks(children_fn, tables, masks: np.ndarray, index: Index, below: np.ndarray,
                once: bool) -> np.ndarray | None:
    """Solutions of each of `masks` (one kind of piece) from the counts `below` of the
    tier below, whose keys `index` holds; None if a count passes 2**64."""
    out = np.empty(masks.shape[0], dtype=np.uint64)
    args = (index.keys, index.words, below, once, out)
    if masks.shape[0] > CHUNK:
        run = build(_count_masks, children=children_fn)
        overflow = _in_threads(run, masks.shape[0], tables, masks, *args)
    else:  # starting threads costs more than one chunk of work
        overflow = build(_count_masks_chunk, children=children_fn)(tables, masks, 0, masks.shape[0], *args)
    return None if overflow else out


def count_boards(children_fn, tables, boards: np.ndarray, radix: np.ndarray, offsets: np.ndarray,
                 index: Index, below: np.ndarray, once: bool) -> np.ndarray | None:
    """`count_masks` for typed pieces (keys as `board_key` makes them)."""
    out = np.empty(boards.shape[0], dtype=np.uint64)
    args = (radix, offsets, index.keys, index.words, below, once, out)
    if boards.shape[0] > CHUNK:
        run = build(_count_boards, children=children_fn)
        overflow = _in_threads(run, boards.shape[0], tables, boards, *args)
    else:  # starting threads costs more than one chunk of work
        overflow = build(_count_boards_chunk, children=children_fn)(tables, boards, 0, boards.shape[0],
                                                                     *args)
    return None if overflow else out
