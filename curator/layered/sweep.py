"""The retrograde sweep: compiled kernels that fill a layer's three property bit arrays.

A layer with k pieces is computed from the layers with k-1 pieces (every move removes one
piece). Bits are held in uint64 words, bit i of the layer in bit i % 64 of word i // 64.
Work is split into chunks of whole words, so threads never share a word and the result is
the same for any number of threads.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import combinations
from math import comb
from typing import cast

import numba
import numpy as np

from curator.common.kernels import Slot, build, kernel, skip_blas_probe
from curator.common.ranking import (
    BINOMIAL,
    MultisetTable,
    bit_count,
    fill_board,
    image_mask,
    lowest_bit,
    multinomial,
    next_colex_cells,
    next_colex_mask,
    next_colex_wide,
    rank_colex_mask,
    rank_colex_masks,
    rank_colex_row,
    rank_multiset_indexed,
    to_words,
    unrank_colex_mask,
    unrank_colex_masks,
    unrank_colex_wide,
    unrank_multiset_sequence,
    wide_from_cells,
)
from curator.common.threads import Threads
from curator.layered.bits import PROPERTIES, LayerBits, read_only
from curator.layered.gather import fast_gather
from curator.layered.puzzle import Puzzle
from curator.layered.space import Layer, tier_offsets
from curator.rules import MAX_CHILDREN, Rules
from curator.rules.base import SWEEP_KERNELS, MaskChildren

CHUNK_WORDS = 256
"""Words per parallel task (16384 positions)."""
BLOCK_CHUNKS = 64
"""Chunks per call into compiled code; progress is reported between calls."""

Progress = Callable[[int], None]

children = Slot("children")
"""`Rules.children`, bound per family by `build` (see curator.common.kernels)."""
reach = Slot("reach")
"""The `reach` of `Rules.captures`: what each piece of a mask may capture."""
gather = Slot("gather")
"""One of `curator.layered.gather` (the same results), bound by processor."""


@numba.njit(cache=True, inline="always")
def _bit(words, index):
    return (words[index >> 6] >> np.uint64(index & 63)) & np.uint64(1)


@numba.njit(cache=True, inline="always")
def _record(r, base, s, u, a, out_s, out_u, out_a):
    """Set position r's three bits in the output words (word 0 of the outputs is `base`)."""
    word = (r >> 6) - base
    bit = np.uint64(r & 63)
    out_s[word] |= np.uint64(s) << bit
    out_u[word] |= np.uint64(u) << bit
    out_a[word] |= np.uint64(a) << bit


@numba.njit(cache=True, inline="always")
def _chunk_range(c, first_word, last_word, size):
    """Ranks [lo, hi) of the c-th chunk of the words [first_word, last_word)."""
    lo = (first_word + c * CHUNK_WORDS) * 64
    return lo, min(lo + CHUNK_WORDS * 64, last_word * 64, size)


@numba.njit(cache=True, inline="always")
def _chunk_count(first_word, last_word):
    return (last_word - first_word + CHUNK_WORDS - 1) // CHUNK_WORDS


@numba.njit(cache=True)
def _classify(ranks, count, solvable, unique, step_once):
    """The three properties of a position from the ranks of its children.

    unique needs exactly one distinct solvable child, itself unique; when the final step to
    the goal counts once (`step_once`), every solvable position is unique. all_moves needs a
    move and every child solvable.
    """
    first = np.int64(-1)  # the first solvable child's rank
    two = False  # a second, different solvable child exists
    all_solvable = count > 0
    for j in range(count):
        r = ranks[j]
        solvable_child = _bit(solvable, r) != 0
        all_solvable &= solvable_child
        two |= solvable_child & (first >= 0) & (r != first)
        first = r if solvable_child & (first < 0) else first
    # Branch-free on purpose: child bits are hard to predict, and an array read inside a
    # branch made the compiler add reference-count updates on every position.
    unique_child = _bit(unique, max(first, 0)) != 0
    unique_path = first >= 0 and ((not two and unique_child) or step_once)
    return first >= 0, unique_path, all_solvable


@kernel
def _binary_chunk(args, lo, hi, base, out_s, out_u, out_a):
    n, k, solvable, unique, step_once, tables = args
    masks = np.empty(MAX_CHILDREN, dtype=np.uint64)
    moves = np.empty(MAX_CHILDREN, dtype=np.int64)
    ranks = np.empty(MAX_CHILDREN, dtype=np.int64)
    mask = unrank_colex_mask(lo, n, k)
    for r in range(lo, hi):
        count = children(mask, tables, masks, moves)
        for j in range(count):
            ranks[j] = rank_colex_mask(masks[j])
        s, u, a = _classify(ranks, count, solvable, unique, step_once)
        _record(r, base, s, u, a, out_s, out_u, out_a)
        if r + 1 < hi:
            mask = next_colex_mask(mask)


LINE_BITS = 12
"""Longest line the line kernel tabulates (2**12 occupancy patterns); longer ones fall back
to the general kernel."""
LINE_LOW_BITS = 14
"""Cells below which the line kernel looks moves up per position; segments above them are
looked up once per block of positions sharing those cells. On the 9-ball layer of Fling!
7x8 (rows of 7) 14 measured best, 7 and 21 a few per cent slower."""


class LineMoves:
    """Move tables for families whose moves stay on one line (`Rules.line_segments`).

    Every move changes only cells of one segment, and which moves a segment allows and what
    they do depends only on which of its cells are occupied: the children of a position are
    the union over segments of the children of the segment's pieces alone. So the moves of
    every occupancy pattern p of every segment s are tabulated once, by the family's own
    `children` on the position holding only those pieces: the masks the moves flip are
    flips[start[s, p]:start[s, p + 1]], `cells[s]` the segment's cells and pattern p their
    occupancy packed into the lowest bits, cells in increasing order. Moves giving the same
    child (the same flip) are kept once, so a pattern's flips give distinct children.
    """

    def __init__(self, rules: Rules, segments: list[int]) -> None:
        segments = [s for s in segments if s.bit_count() > 1]  # no move needs one cell only
        self.width = max((s.bit_count() for s in segments), default=0)
        if self.width > LINE_BITS:
            raise ValueError(f"segments of {self.width} cells are too long to tabulate")
        self.cells = np.array(segments, dtype=np.uint64)
        self.start = np.zeros((len(segments), (1 << self.width) + 1), dtype=np.int64)
        tables = rules.tables()
        masks = np.empty(MAX_CHILDREN, dtype=np.uint64)
        moves = np.empty(MAX_CHILDREN, dtype=np.int64)
        flips: list[int] = []
        for i, segment in enumerate(segments):
            where = [c for c in range(64) if segment >> c & 1]
            for p in range(1 << self.width):
                self.start[i, p] = len(flips)
                if p >> len(where):
                    continue
                mask = sum(1 << c for b, c in enumerate(where) if p >> b & 1)
                count = cast(MaskChildren, rules.children)(np.uint64(mask), tables, masks, moves)
                for flip in dict.fromkeys(int(masks[j]) ^ mask for j in range(count)):
                    if flip & ~segment:
                        raise ValueError(f"a move leaves the segment {segment:#x}")
                    flips.append(flip)
            self.start[i, -1] = len(flips)
        self.flips = np.array(flips, dtype=np.uint64)

    def args(self) -> tuple:
        return (self.cells, self.start, self.flips)


@numba.njit(cache=True, inline="always")
def _fixed_words(at, count, offset, solvable, unique):
    """The running words (see `_add`) of the children by the per-block flips of 64
    positions from rank `at`: position at + i's children are at + i + offset[j]."""
    some = two = single = np.uint64(0)
    every = ~np.uint64(0)
    for j in range(count):
        child = at + offset[j]
        s = _bits_from(solvable, child)
        some, two, single = _add(some, two, single, s, _bits_from(unique, child))
        every &= s
    return some, two, single, every


@numba.njit(cache=True, inline="always")
def _fixed_part(part, end, count, offset, solvable, unique):
    """`_fixed_words` for positions part..end-1 of one word and one block, at their bits of
    the word: some, two, single, failed (a child not solvable) and has (a child at all)."""
    select = ~np.uint64(0) >> np.uint64(64 - (end - part))
    shift = np.uint64(part & 63)
    some, two, single, every = _fixed_words(part, count, offset, solvable, unique)
    has = select if count > 0 else np.uint64(0)
    return ((some & select) << shift, (two & select) << shift, (single & select) << shift,
            (~every & select) << shift, has << shift)


@kernel
def _lines_chunk(args, lo, hi, base, out_s, out_u, out_a):
    """Positions lo..hi-1 of a family whose moves stay on one line: per segment, the
    segment's occupancy picks its moves' flips from the table (see `LineMoves`).

    Positions sharing their cells from `low_bits` on (a block) are consecutive ranks, ordered
    by the colex rank of their low cells, and segments with no low cell look the same
    throughout a block: their flips are found once per block, and a child by such a flip
    keeps the position's low cells, so its rank is the position's plus a per-block offset.
    Their children's bits are read 64 positions at a time into the words some (a child
    solvable), two, single and every (see `_add`), for each part of a word in one block;
    the segments with low cells are looked up and ranked per position, and the two halves
    are joined per word. Flips of one segment pattern are distinct (`LineMoves`) and flips
    of different segments differ, so children of the two halves are distinct.
    """
    cells, start, flips, low_bits, n, k, solvable, unique, step_once = args
    ranks = np.empty(MAX_CHILDREN, dtype=np.int64)
    offset = np.empty(MAX_CHILDREN, dtype=np.int64)
    low_select = _filled(low_bits)
    segments = cells.shape[0]
    packed = np.empty(segments, dtype=np.uint64)  # where a segment's pattern goes
    high = np.empty(segments, dtype=np.int64)  # segments without low cells, then the others
    low = np.empty(segments, dtype=np.int64)
    nh = nl = 0
    for s in range(segments):
        packed[s] = _filled(bit_count(cells[s]))
        if cells[s] & low_select:
            low[nl] = s
            nl += 1
        else:
            high[nh] = s
            nh += 1
    zero = np.uint64(0)
    ones = ~zero
    once = ones if step_once else zero
    mask = unrank_colex_mask(lo, n, k)
    upper = ~np.uint64(0)  # no block yet
    fixed = 0
    part = lo  # the first position of the word's part in the current block
    # The word's words of the per-block flips (see `_fixed_part`), and its per-position
    # bits of the others: some child solvable, exactly one solvable and it unique, some
    # child not solvable, a child at all.
    some_h = two_h = single_h = failed_h = has_h = zero
    some_l = unique_l = failed_l = has_l = zero
    for r in range(lo, hi):
        changed = mask & ~low_select != upper
        if changed and r > part:
            some, two, single, failed, has = _fixed_part(part, r, fixed, offset, solvable, unique)
            some_h, two_h, single_h, failed_h, has_h = (
                some_h | some, two_h | two, single_h | single, failed_h | failed, has_h | has)
            part = r
        if changed:
            upper = mask & ~low_select
            filled = _filled(k - np.int64(bit_count(upper)))
            first = rank_colex_mask(upper | filled)
            fixed = 0
            for i in range(nh):
                s = high[i]
                p = np.int64(gather(upper, cells[s], packed[s]))
                for j in range(start[s, p], start[s, p + 1]):
                    offset[fixed] = rank_colex_mask((upper ^ flips[j]) | filled) - first
                    fixed += 1
        count = np.int64(0)  # typed: a literal 0 would compile another _classify
        for i in range(nl):
            s = low[i]
            p = np.int64(gather(mask, cells[s], packed[s]))
            for j in range(start[s, p], start[s, p + 1]):
                ranks[count] = rank_colex_mask(mask ^ flips[j])
                count += 1
        s, u, a = _classify(ranks, count, solvable, unique, False)
        bit = np.uint64(r & 63)
        some_l |= np.uint64(s) << bit
        unique_l |= np.uint64(u) << bit
        failed_l |= np.uint64(count > 0 and not a) << bit
        has_l |= np.uint64(count > 0) << bit
        if (r + 1) & 63 == 0 or r + 1 == hi:
            some, two, single, failed, has = _fixed_part(part, r + 1, fixed, offset, solvable, unique)
            some_h, two_h, single_h, failed_h, has_h = (
                some_h | some, two_h | two, single_h | single, failed_h | failed, has_h | has)
            part = r + 1
            word = (r >> 6) - base
            some = some_h | some_l
            one_h = some_h & ~two_h & single_h & ~some_l
            out_s[word] = some
            out_u[word] = some & (once | one_h | (unique_l & ~some_h))
            out_a[word] = ~(failed_h | failed_l) & (has_h | has_l)
            some_h = two_h = single_h = failed_h = has_h = zero
            some_l = unique_l = failed_l = has_l = zero
        if r + 1 < hi:
            mask = next_colex_mask(mask)


LOW_BITS = 16
"""Cells below which the split-rank kernel reads a child's rank from a table (2**16 entries)."""
RUN_BITS = 7
"""Low cells of the split-rank kernel's runs: C(7, 3) = 35 positions, the most that fit a word."""


class SplitMoves:
    """Move tables for families whose moves are fixed cell patterns (`Rules.mask_moves`).

    A move flips its cells: those of `full` must be occupied, those of `empty` empty. Cells
    are split three ways: high cells (from `low_bits` on), mid cells (from `run_bits` on) and
    low cells. Positions sharing their high cells form a block of consecutive ranks, ordered
    by the colex rank of their other cells; within a block, positions sharing their mid cells
    too form a run of consecutive ranks, ordered by the colex rank of their low cells A (at
    most C(7, 3) = 35 positions: a run fits in a word). A child's rank is a per-block base
    (its high cells, see `_child_base`) plus `colex` of its cells below `low_bits`, so moves
    are sorted by their lowest cell:

    * high moves map a block onto consecutive ranks of the child layer;
    * mid moves map a run onto consecutive ranks, a run of the child layer;
    * low moves are legal on a fixed subset of a run's positions, `pattern[i, a]` for the
      class i of the move's low cells and a pieces on low cells, and map them onto a fixed
      subset of a child run, `pattern[j, a']` for the class j of the move taken backwards
      (the child's low cells are A - full + empty, in the same order as A).

    Repeated moves are dropped: distinct legal moves then give distinct children (a child is
    the mask with full | empty flipped, and full is the part of it that was occupied).
    """

    def __init__(self, moves: list[tuple[int, int]], cells: int, low_bits: int = LOW_BITS,
                 run_bits: int = RUN_BITS) -> None:
        moves = list(dict.fromkeys(moves))
        self.low_bits = min(low_bits, cells)
        self.run_bits = min(run_bits, self.low_bits)
        if comb(self.run_bits, self.run_bits // 2) > 64:
            raise ValueError(f"runs of {self.run_bits} low cells do not fit in a word")
        low_select = (1 << self.low_bits) - 1
        under = (1 << self.run_bits) - 1
        self.colex = rank_colex_masks(np.arange(1 << self.low_bits, dtype=np.uint64))

        def table(rows):
            return np.array(rows, dtype=np.uint64).reshape(-1, 2)

        self.high = table([m for m in moves if not (m[0] | m[1]) & low_select])
        self.mid = table([m for m in moves if (m[0] | m[1]) & low_select and not (m[0] | m[1]) & under])
        low = [m for m in moves if (m[0] | m[1]) & under]
        self.low = table(low)
        classes: dict[tuple[int, int], int] = {}
        for full, empty in low:
            for key in ((full & under, empty & under), (empty & under, full & under)):
                classes.setdefault(key, len(classes))
        self.low_class = np.array(
            [(classes[(f & under, e & under)], classes[(e & under, f & under)],
              (e & under).bit_count() - (f & under).bit_count()) for f, e in low],
            dtype=np.int64).reshape(-1, 3)
        runs = [sorted(sum(1 << c for c in cells) for cells in combinations(range(self.run_bits), a))
                for a in range(self.run_bits + 1)]
        self.pattern = np.zeros((max(len(classes), 1), self.run_bits + 1), dtype=np.uint64)
        for (full, empty), i in classes.items():
            for a, run in enumerate(runs):
                self.pattern[i, a] = sum(1 << at for at, cells in enumerate(run)
                                         if cells & full == full and not cells & empty)

    def args(self) -> tuple:
        return (self.low_bits, self.run_bits, self.colex, self.high, self.mid, self.low,
                self.low_class, self.pattern)


@numba.njit(cache=True, inline="always")
def _filled(count):
    """The mask of the `count` lowest cells."""
    return (np.uint64(1) << np.uint64(count)) - np.uint64(1)


@numba.njit(cache=True, inline="always")
def _bits_from(words, index):
    """The 64 bits of `words` from bit `index` on, bit `index` lowest. Bits past the end of
    the array are garbage (the last word read again): callers mask them off."""
    at = index >> 6
    shift = np.uint64(index & 63)
    after = words[min(at + 1, words.shape[0] - 1)]
    # Two shifts: a shift by 64 is undefined, and shift is 0 for aligned reads.
    return (words[at] >> shift) | ((after << np.uint64(1)) << (np.uint64(63) - shift))


@numba.njit(cache=True, inline="always")
def _legal_above(upper, full, empty, low_select):
    """Whether the cells of move (full, empty) from `low_select` on allow it in a block."""
    return (upper & full) == (full & ~low_select) and (upper & empty) == 0


@numba.njit(cache=True, inline="always")
def _moves_in_block(upper, c, moves, classes, low_select, shift, out):
    """The moves (full, empty rows of `moves`) legal in the block of high cells `upper`, in
    out: their full and empty cells below `low_select` shifted down by `shift`, their
    `_child_base`, then their row of `classes`. Returns how many."""
    found = 0
    for m in range(moves.shape[0]):
        if _legal_above(upper, moves[m, 0], moves[m, 1], low_select):
            out[found, 0] = np.int64((moves[m, 0] & low_select) >> shift)
            out[found, 1] = np.int64((moves[m, 1] & low_select) >> shift)
            out[found, 2] = _child_base(upper, c, moves[m, 0], moves[m, 1], low_select)
            for j in range(classes.shape[1]):  # not a slice copy: that compiles a costly error path
                out[found, 3 + j] = classes[m, j]
            found += 1
    return found


@numba.njit(cache=True, inline="always")
def _child_base(upper, c, full, empty, low_select):
    """The rank of a block's children by move (full, empty) less the colex rank of their
    cells below `low_select`: the child's high cells over the lowest cells it fills below."""
    after = (c - np.int64(bit_count(full & low_select)) + np.int64(bit_count(empty & low_select)))
    return rank_colex_mask((upper ^ ((full | empty) & ~low_select)) | _filled(after))


@numba.njit(cache=True, inline="always")
def _add(some, two, single, s, u):
    """Add children with solvable bits s and unique bits u to the running words: some child
    solvable, two solvable, and the first solvable one unique."""
    return some | s, two | (some & s), single | (s & ~some & u)


@numba.njit(cache=True, inline="always")
def _high_words(at, count, start, solvable, unique):
    """The running words of the high moves for 64 positions of a block from rank `at`."""
    some = np.uint64(0)
    two = np.uint64(0)
    single = np.uint64(0)
    every = ~np.uint64(0)
    for j in range(count):
        child = start[j] + at
        s = _bits_from(solvable, child)
        some, two, single = _add(some, two, single, s, _bits_from(unique, child))
        every &= s
    return some, two, single, every


@kernel
def _split_chunk(args, lo, hi, base, out_s, out_u, out_a):
    """Positions lo..hi-1 with moves that are cell patterns, 64 or a run at a time.

    Per word, the high moves' children give the words some (a child solvable), two (two
    solvable), single (the first solvable one unique) and every (all solvable); per run, the
    mid and low moves' children give the same words for the run, which are shifted into the
    word. Child ranks are distinct (see `SplitMoves`), so two counts distinct children.
    """
    low_bits, run_bits, colex, high, mid, low, low_class, pattern, n, k, solvable, unique, step_once = args
    high_start = np.empty(high.shape[0], dtype=np.int64)
    mid_moves = np.empty((mid.shape[0], 3), dtype=np.int64)  # see _moves_in_block
    low_moves = np.empty((low.shape[0], 6), dtype=np.int64)
    no_class = np.empty((mid.shape[0], 0), dtype=np.int64)  # mid moves have no low_class
    run_start = np.empty(mid.shape[0], dtype=np.int64)
    low_select = _filled(low_bits)
    shift_mid = np.uint64(run_bits)
    zero = np.uint64(0)
    ones = ~zero
    once = ones if step_once else zero
    mask = unrank_colex_mask(lo, n, k)
    r = lo
    while r < hi:
        # A block: the positions sharing the high cells of `mask`.
        upper = mask & ~low_select
        c = k - np.int64(bit_count(upper))
        start = rank_colex_mask(upper | _filled(c))
        last = min(hi, start + BINOMIAL[low_bits, c])
        nh = 0
        for m in range(high.shape[0]):
            if _legal_above(upper, high[m, 0], high[m, 1], low_select):
                high_start[nh] = _child_base(upper, c, high[m, 0], high[m, 1], low_select) - start
                nh += 1
        nm = _moves_in_block(upper, c, mid, no_class, low_select, shift_mid, mid_moves)
        nl = _moves_in_block(upper, c, low, low_class, low_select, shift_mid, low_moves)
        has_high = ones if nh > 0 else zero
        # The word being made holds positions word_lo..word_hi-1, position word_lo in bit 0.
        word_lo = r
        word_hi = min(last, ((r >> 6) + 1) * 64)
        some_h, two_h, single_h, every_h = _high_words(word_lo, nh, high_start, solvable, unique)
        some_l = two_l = single_l = failed_l = has_l = zero
        cells = np.int64(mask & low_select)  # position r's cells below low_bits
        top = a = np.int64(0)
        while r < last:
            # The run holding position r: a pieces on low cells, its mid cells `middle`.
            middle = cells >> run_bits
            top = middle << run_bits
            a = c - np.int64(bit_count(np.uint64(middle)))
            fill = np.int64(_filled(a))
            run = start + colex[top | fill]
            size = BINOMIAL[run_bits, a]
            run_end = min(last, run + size)
            whole = ones >> np.uint64(64 - size)  # every position of the run
            some = two = single = failed = has = zero
            nr = 0
            for j in range(nm):
                full = mid_moves[j, 0]
                empty = mid_moves[j, 1]
                if (middle & full) == full and (middle & empty) == 0:
                    run_start[nr] = mid_moves[j, 2] + colex[(top ^ ((full | empty) << run_bits)) | fill]
                    nr += 1
            for j in range(nr):
                s = _bits_from(solvable, run_start[j]) & whole
                some, two, single = _add(some, two, single, s, _bits_from(unique, run_start[j]))
                failed |= whole & ~s
            if nr > 0:
                has = whole
            for j in range(nl):
                full = low_moves[j, 0]
                empty = low_moves[j, 1]
                legal = pattern[low_moves[j, 3], a]
                if (middle & full) != full or (middle & empty) != 0 or legal == 0:
                    continue
                after = a + low_moves[j, 5]
                children = pattern[low_moves[j, 4], after]
                child = low_moves[j, 2] + colex[(top ^ ((full | empty) << run_bits))
                                                | np.int64(_filled(after))]
                s = gather(_bits_from(solvable, child), children, legal)
                u = gather(_bits_from(unique, child), children, legal)
                some, two, single = _add(some, two, single, s, u)
                failed |= legal & ~s
                has |= legal
            # Hand the run's words to the output word(s) it covers.
            while True:
                stop = min(run_end, word_hi)
                at = run - word_lo
                if at >= 0:
                    shift = np.uint64(at)
                    add = (some << shift, two << shift, single << shift, failed << shift, has << shift)
                else:
                    shift = np.uint64(-at)
                    add = (some >> shift, two >> shift, single >> shift, failed >> shift, has >> shift)
                part = (ones >> np.uint64(64 - (stop - r))) << np.uint64(r - word_lo)
                some_l |= add[0] & part
                two_l |= add[1] & part
                single_l |= add[2] & part
                failed_l |= add[3] & part
                has_l |= add[4] & part
                r = stop
                if r == word_hi:
                    s = some_h | some_l
                    t = two_h | two_l | (some_h & some_l)
                    u = s & ((~t & ((single_h & ~some_l) | (single_l & ~some_h))) | once)
                    all_moves = (has_high | has_l) & every_h & ~failed_l
                    valid = ones >> np.uint64(64 - (word_hi - word_lo))
                    shift = np.uint64(word_lo & 63)
                    word = (word_lo >> 6) - base
                    out_s[word] |= (s & valid) << shift
                    out_u[word] |= (u & valid) << shift
                    out_a[word] |= (all_moves & valid) << shift
                    word_lo = word_hi
                    word_hi = min(last, word_lo + 64)
                    some_l = two_l = single_l = failed_l = has_l = zero
                    if word_lo < last:
                        some_h, two_h, single_h, every_h = _high_words(word_lo, nh, high_start,
                                                                       solvable, unique)
                if r >= run_end:
                    break
            if r < last:
                # The next run starts after this run's last position (its low cells highest).
                cells = np.int64(next_colex_mask(np.uint64(top | (fill << (run_bits - a)))))
        if r < hi:
            mask = next_colex_mask(upper | np.uint64(top | (np.int64(_filled(a)) << (run_bits - a))))


@numba.njit(cache=True)
def _next_sequence(seq):
    """Advance `seq` to the next distinct ordering in lex order and return the first index
    that changed; -1 after the last ordering."""
    k = seq.shape[0]
    i = k - 2
    while i >= 0 and seq[i] >= seq[i + 1]:
        i -= 1
    if i < 0:
        return -1
    j = k - 1
    while seq[j] <= seq[i]:
        j -= 1
    seq[i], seq[j] = seq[j], seq[i]
    lo, hi = i + 1, k - 1
    while lo < hi:
        seq[lo], seq[hi] = seq[hi], seq[lo]
        lo += 1
        hi -= 1
    return i


@kernel
def _typed_chunk(args, lo, hi, base, out_s, out_u, out_a):
    (n, counts, child_base, child_orderings, index, prefix, weights, solvable, unique,
     step_once, tables) = args
    counts = counts.copy()  # the multiset unranker uses its counts as scratch space
    k = counts.sum()
    orderings = multinomial(counts)
    masks = np.empty(MAX_CHILDREN, dtype=np.uint64)
    boards = np.empty((MAX_CHILDREN, n), dtype=np.int8)
    removed = np.empty(MAX_CHILDREN, dtype=np.int64)
    moves = np.empty(MAX_CHILDREN, dtype=np.int64)
    ranks = np.empty(MAX_CHILDREN, dtype=np.int64)
    seq = np.empty(k, dtype=np.int64)
    board = np.zeros(n, dtype=np.int8)
    mask = unrank_colex_mask(lo // orderings, n, k)
    unrank_multiset_sequence(lo % orderings, counts, seq)
    for r in range(lo, hi):
        fill_board(mask, seq, board)
        count = children(mask, board, tables, masks, boards, removed, moves)
        for j in range(count):
            t = removed[j]
            child = masks[j]
            within = rank_colex_mask(child) * child_orderings[t]
            at = index - weights[t - 1]
            m = child
            while m:
                item = boards[j, lowest_bit(m)] - 1
                within += prefix[at, item]
                at -= weights[item]
                m &= m - np.uint64(1)
            ranks[j] = child_base[t] + within
        s, u, a = _classify(ranks, count, solvable, unique, step_once)
        _record(r, base, s, u, a, out_s, out_u, out_a)
        if r + 1 < hi and _next_sequence(seq) < 0:
            mask = next_colex_mask(mask)
            unrank_multiset_sequence(0, counts, seq)


@kernel
def _capture_geometry(mask, tables, attacks, cell, place, target, child_colex):
    """What a capture position's moves depend on besides its types, for one mask.

    cell[p] is the cell of the p-th piece (cells in increasing order); target[p, t] has bit q
    set when a piece of type t (0-based) on cell[p] captures the q-th piece; child_colex[p]
    is the colex rank of the mask after the p-th piece moves away.
    """
    reach(mask, tables, attacks)
    m = mask
    p = 0
    while m:
        c = lowest_bit(m)
        m &= m - np.uint64(1)
        cell[p] = c
        place[c] = p
        child_colex[p] = rank_colex_mask(mask ^ (np.uint64(1) << np.uint64(c)))
        p += 1
    for p in range(cell.shape[0]):
        for t in range(target.shape[1]):
            hits = attacks[cell[p], t + 1]
            bits = np.uint64(0)
            while hits:
                bits |= np.uint64(1) << np.uint64(place[lowest_bit(hits)])
                hits &= hits - np.uint64(1)
            target[p, t] = bits


@numba.njit(cache=True)
def _rank_terms(seq, first, prefix, weights, remaining, before, without):
    """Refresh the running rank terms of `seq` from index `first` on.

    remaining[i] is the table index of the types seq[i:], before[i] the sum of the rank
    terms of seq[:i] (so before[k] is the rank of seq), and without[v, i] the same sum with
    one type v taken out of every remaining multiset (valid while seq[i:] holds a v).
    """
    for i in range(first, seq.shape[0]):
        item = seq[i]
        at = remaining[i]
        before[i + 1] = before[i] + prefix[at, item]
        for v in range(without.shape[0]):
            without[v, i + 1] = without[v, i] + prefix[max(at - weights[v], 0), item]
        remaining[i + 1] = at - weights[item]


@numba.njit(cache=True, inline="always")
def _smallest_image(mask, images):
    """(the smallest image of `mask` under the cell permutations of `images`, one per row,
    and the row giving it), or (mask, -1) if none is smaller: then the mask is canonical.
    Colex order is the numeric order of masks of one popcount."""
    image = mask
    best = -1
    for s in range(images.shape[0]):
        moved = image_mask(mask, images[s])
        if moved < image:
            image = moved
            best = s
    return image, best


@kernel
def _capture_chunk(args, lo, hi, base, out_s, out_u, out_a):
    """Typed positions whose moves are captures, one mask's orderings at a time.

    A child's rank terms depend only on the types still to come and the item, so the terms
    of the child in which the p-th piece takes the q-th are the parent's with the victim's
    type taken out before min(p, q) (`without`), and the parent's after max(p, q). The next
    ordering in lex order changes only the items from `changed` on, so every child with
    max(p, q) < changed keeps its move and its rank goes up by exactly one: only the
    children touching the changed items are worked out again. ranks[:upto[m]] are the
    children with max(p, q) < m.

    Masks that are not canonical under the cell permutations `images` (see `_smallest_image`)
    are skipped: their positions are left for `_fill_chunk`.
    """
    (n, counts, child_base, child_orderings, index, prefix, weights, capturable, solvable,
     unique, step_once, tables, images) = args
    counts = counts.copy()  # the multiset unranker uses its counts as scratch space
    k = counts.sum()
    types = counts.shape[0]
    orderings = multinomial(counts)
    attacks = np.zeros((n, types + 1), dtype=np.uint64)
    cell = np.empty(k, dtype=np.int64)
    place = np.empty(n, dtype=np.int64)
    target = np.empty((k, types), dtype=np.uint64)
    child_colex = np.empty(k, dtype=np.int64)
    remaining = np.empty(k + 1, dtype=np.int64)
    before = np.zeros(k + 1, dtype=np.int64)
    without = np.zeros((types, k + 1), dtype=np.int64)
    remaining[0] = index
    ranks = np.empty(MAX_CHILDREN, dtype=np.int64)
    upto = np.zeros(k, dtype=np.int64)
    seq = np.empty(k, dtype=np.int64)
    block = lo // orderings  # the colex rank of the mask
    r = lo
    while r < hi:
        end = min(hi, (block + 1) * orderings)
        mask = unrank_colex_mask(block, n, k)
        block += 1
        if _smallest_image(mask, images)[1] >= 0:  # not canonical: left for _fill_chunk
            r = end
            continue
        unrank_multiset_sequence(r % orderings, counts, seq)
        _capture_geometry(mask, tables, attacks, cell, place, target, child_colex)
        changed = np.int64(0)  # typed: a literal 0 would compile another _rank_terms
        while r < end:
            _rank_terms(seq, changed, prefix, weights, remaining, before, without)
            for j in range(upto[changed]):
                ranks[j] += 1
            count = upto[changed]
            rank = before[k]
            for m in range(changed, k):
                upto[m] = count
                after = rank - before[m + 1]
                # The piece on m takes an earlier piece q: every term is a running sum.
                mover = seq[m]
                hits = target[m, mover] & _filled(m)
                while hits:
                    q = lowest_bit(hits)
                    hits &= hits - np.uint64(1)
                    victim = seq[q]
                    if capturable[victim + 1]:
                        within = (without[victim, q] + prefix[remaining[q] - weights[victim], mover]
                                  + without[mover, m] - without[mover, q + 1] + after)
                        ranks[count] = (child_base[victim + 1] + child_colex[m]
                                        * child_orderings[victim + 1] + within)
                        count += 1
                # An earlier piece p takes the piece on m.
                victim = seq[m]
                if not capturable[victim + 1]:
                    continue
                for p in range(m):
                    mover = seq[p]
                    if (target[p, mover] >> np.uint64(m)) & np.uint64(1):
                        shift = weights[mover] - weights[victim]
                        within = without[victim, p] + prefix[remaining[m] + shift, mover] + after
                        for j in range(p + 1, m):
                            within += prefix[remaining[j] + shift, seq[j]]
                        ranks[count] = (child_base[victim + 1] + child_colex[p]
                                        * child_orderings[victim + 1] + within)
                        count += 1
            s, u, a = _classify(ranks, count, solvable, unique, step_once)
            _record(r, base, s, u, a, out_s, out_u, out_a)
            r += 1
            if r < end:
                changed = _next_sequence(seq)


@kernel
def _fill_chunk(args, lo, hi, base, out_s, out_u, out_a):
    """The positions lo..hi-1 on masks that are not canonical (see `_smallest_image`), each from
    its image on the canonical mask, whose bits the layer's own words already hold.

    The symmetry with the smallest image maps the mask's cells, in increasing order, onto
    the image's cells in some fixed order `place`: the image's type sequence is the
    position's, permuted by `place`, and equivalent positions share their three bits.
    """
    n, counts, images, index, prefix, weights, solvable, unique, all_moves = args
    counts = counts.copy()  # the multiset unranker uses its counts as scratch space
    k = counts.sum()
    orderings = multinomial(counts)
    seq = np.empty(k, dtype=np.int64)
    image_seq = np.empty(k, dtype=np.int64)
    place = np.empty(k, dtype=np.int64)
    block = lo // orderings
    r = lo
    while r < hi:
        end = min(hi, (block + 1) * orderings)
        mask = unrank_colex_mask(block, n, k)
        block += 1
        image, best = _smallest_image(mask, images)
        if best < 0:  # canonical: swept already
            r = end
            continue
        m = mask
        for i in range(k):
            cell = images[best, lowest_bit(m)]
            m &= m - np.uint64(1)
            place[i] = bit_count(image & ((np.uint64(1) << np.uint64(cell)) - np.uint64(1)))
        start = rank_colex_mask(image) * orderings
        unrank_multiset_sequence(r % orderings, counts, seq)
        while r < end:
            for i in range(k):
                image_seq[place[i]] = seq[i]
            source = start + rank_multiset_indexed(image_seq, index, prefix, weights)
            _record(r, base, _bit(solvable, source), _bit(unique, source), _bit(all_moves, source),
                    out_s, out_u, out_a)
            r += 1
            if r < end:
                _next_sequence(seq)


def _goal_run(args, size, first_word, last_word, out_s, out_u, out_a, start, step) -> None:
    """`_run` for a layer at the goal's piece count, in numpy (a goal layer is too quick to
    be worth compiling): a position is a goal when every cell it occupies is allowed, and
    then solvable and unique; no position there has all_moves."""
    n, k, arrangements, allowed = args
    for c in range(start, _chunk_count.py_func(first_word, last_word), step):
        lo, hi = _chunk_range.py_func(c, first_word, last_word, size)
        masks = unrank_colex_masks(np.arange(lo, hi) // arrangements, n, k)
        goal = np.zeros((hi - lo + 63) // 64 * 64, dtype=bool)
        goal[:hi - lo] = (masks & ~allowed) == 0
        words = np.packbits(goal, bitorder="little").view("<u8")
        at = (lo >> 6) - first_word
        out_s[at:at + words.shape[0]] = words
        out_u[at:at + words.shape[0]] = words


@kernel
def _wide_goal_chunk(args, lo, hi, base, out_s, out_u, out_a):
    """`_goal_run` on multi-word masks: a goal when every occupied cell is allowed."""
    n, k, arrangements, allowed = args
    cells = np.empty(max(k, 1), dtype=np.int64)
    unrank_colex_wide(lo // arrangements, n, k, cells)
    r = lo
    while r < hi:
        goal = True
        for i in range(k):
            c = cells[i]
            goal &= (allowed[c >> 6] >> np.uint64(c & 63)) & np.uint64(1) != 0
        end = min(hi, (r // arrangements + 1) * arrangements)
        while r < end:
            _record(r, base, goal, goal, False, out_s, out_u, out_a)
            r += 1
        next_colex_cells(cells, k)


@kernel
def _wide_binary_chunk(args, lo, hi, base, out_s, out_u, out_a):
    """`_binary_chunk` on multi-word masks (boards of more than 64 cells): the position's
    cells step through colex order, and its mask flips the cells that change."""
    n, k, words, solvable, unique, step_once, tables = args
    masks = np.empty((MAX_CHILDREN, words), dtype=np.uint64)
    moves = np.empty(MAX_CHILDREN, dtype=np.int64)
    ranks = np.empty(MAX_CHILDREN, dtype=np.int64)
    cells = np.empty(max(k, 1), dtype=np.int64)
    mask = np.zeros(words, dtype=np.uint64)
    unrank_colex_wide(lo, n, k, cells)
    wide_from_cells(cells, k, mask)
    for r in range(lo, hi):
        count = children(mask, tables, masks, moves)
        for j in range(count):
            ranks[j] = rank_colex_row(masks, j)
        s, u, a = _classify(ranks, count, solvable, unique, step_once)
        _record(r, base, s, u, a, out_s, out_u, out_a)
        if r + 1 < hi and k > 0:
            next_colex_wide(cells, k, mask)


@kernel
def _wide_typed_chunk(args, lo, hi, base, out_s, out_u, out_a):
    """`_typed_chunk` on multi-word masks (boards of more than 64 cells)."""
    (n, counts, child_base, child_orderings, index, prefix, weights, solvable, unique,
     step_once, tables, words) = args
    counts = counts.copy()  # the multiset unranker uses its counts as scratch space
    k = counts.sum()
    orderings = multinomial(counts)
    masks = np.empty((MAX_CHILDREN, words), dtype=np.uint64)
    boards = np.empty((MAX_CHILDREN, n), dtype=np.int8)
    removed = np.empty(MAX_CHILDREN, dtype=np.int64)
    moves = np.empty(MAX_CHILDREN, dtype=np.int64)
    ranks = np.empty(MAX_CHILDREN, dtype=np.int64)
    seq = np.empty(k, dtype=np.int64)
    board = np.zeros(n, dtype=np.int8)
    cells = np.empty(max(k, 1), dtype=np.int64)
    mask = np.zeros(words, dtype=np.uint64)
    unrank_colex_wide(lo // orderings, n, k, cells)
    wide_from_cells(cells, k, mask)
    unrank_multiset_sequence(lo % orderings, counts, seq)
    for r in range(lo, hi):
        board[:] = 0
        for i in range(k):
            board[cells[i]] = seq[i] + 1
        count = children(mask, board, tables, masks, boards, removed, moves)
        for j in range(count):
            t = removed[j]
            within = rank_colex_row(masks, j) * child_orderings[t]
            at = index - weights[t - 1]
            for w in range(words):
                m = masks[j, w]
                while m:
                    item = boards[j, w * 64 + lowest_bit(m)] - 1
                    within += prefix[at, item]
                    at -= weights[item]
                    m &= m - np.uint64(1)
            ranks[j] = child_base[t] + within
        s, u, a = _classify(ranks, count, solvable, unique, step_once)
        _record(r, base, s, u, a, out_s, out_u, out_a)
        if r + 1 < hi and _next_sequence(seq) < 0:
            next_colex_wide(cells, k, mask)
            unrank_multiset_sequence(0, counts, seq)


chunk = Slot("chunk")
"""The chunk kernel `_run` drives: one of the `_*_chunk` above, bound by `build`."""


@kernel(nogil=True)
def _run(args, size, first_word, last_word, out_s, out_u, out_a, start, step):
    """Chunks start, start + step, ... of the words [first_word, last_word), without the
    interpreter lock: `step` threads with starts 0..step-1 fill the words between them."""
    for c in range(start, _chunk_count(first_word, last_word), step):
        lo, hi = _chunk_range(c, first_word, last_word, size)
        chunk(args, lo, hi, first_word, out_s, out_u, out_a)


def _words(threads: Threads, run: Callable, args: tuple, size: int, first: int, last: int
           ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The (solvable, unique, all_moves) words first..last-1 that `run` gives for `args`, its
    chunks shared among `threads`."""
    out = tuple(np.zeros(last - first, dtype=np.uint64) for _ in PROPERTIES)
    threads.spread(run, args, size, first, last, *out, shares=_chunk_count.py_func(first, last))
    return cast(tuple[np.ndarray, np.ndarray, np.ndarray], out)  # one per property


class LayerSweep:
    """One layer's computation, ready to fill any range of its words.

    Built from the layers one piece below (`below`; empty for the goal's layer). `compute`
    fills words [first, last) and can run anywhere the inputs are; `run` does the whole
    layer here, reporting progress between blocks. For kernels that can skip masks
    (`SYMMETRIC_KERNELS`) on puzzles with symmetries, `run` sweeps only the positions on
    canonical masks, then fills in every other position from its image; `compute` sweeps
    every position, and both give the same bits.
    """

    def __init__(self, puzzle: Puzzle, layer: Layer, below: list[LayerBits], kernel: str | None = None,
                 ) -> None:
        """`kernel` names one of KERNELS (default: the one the rules declare)."""
        self.layer = layer
        below = [bits.decoded(("solvable", "unique")) for bits in below]
        kind = kernel or puzzle.rules.sweep_kernel
        if puzzle.rules.mask_words > 1:  # the fast kernels are one-word only
            kind = "boards" if puzzle.rules.typed else "masks"
        self.run_chunks, self.args = _kernel(puzzle, layer, below, kind)
        perms = puzzle.symmetries()[1:]  # less the identity
        self.images = (np.array(perms, dtype=np.int64)
                       if below and perms and kind in SYMMETRIC_KERNELS else None)

    def compute(self, first: int, last: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The (solvable, unique, all_moves) words first..last-1 of the layer."""
        with Threads() as threads:
            return _words(threads, self.run_chunks, self.args, self.layer.size, first, last)

    def run(self, progress: Progress | None = None) -> LayerBits:
        bits = LayerBits.empty(self.layer)
        with Threads() as threads:
            if self.images is None:
                self._blocks(threads, bits, self.run_chunks, self.args, progress, lambda n: n)
                return bits
            canonical = (*self.args[:-1], self.images)  # the last argument: see _captures_kernel
            self._blocks(threads, bits, self.run_chunks, canonical, progress, lambda n: n // 2)
            fill = build(_run, chunk=_fill_chunk)
            self._blocks(threads, bits, fill, _fill_args(self.layer, self.images, bits), progress,
                         lambda n: n - n // 2)
        return bits

    def _blocks(self, threads: Threads, bits: LayerBits, run: Callable, args: tuple,
                progress: Progress | None, share: Callable[[int], int]) -> None:
        """OR the words `run` gives into `bits`, a block at a time, reporting `share` of each
        block's positions done (the shares of a layer's passes add up to its size)."""
        step = CHUNK_WORDS * BLOCK_CHUNKS
        for first in range(0, self.layer.words, step):
            last = min(first + step, self.layer.words)
            words = _words(threads, run, args, self.layer.size, first, last)
            for whole, part in zip(bits.arrays().values(), words, strict=True):
                whole[first:last] |= part
            if progress:
                progress(share(min(last * 64, self.layer.size) - first * 64))


def _fill_args(layer: Layer, images: np.ndarray, bits: LayerBits) -> tuple:
    """`_fill_chunk`'s arguments: the layer's words, with every canonical mask swept."""
    table = MultisetTable(layer.counts)
    return (layer.cells, np.array(layer.counts, dtype=np.int64), images, table.index(layer.counts),
            table.prefix, table.weights, bits.solvable, bits.unique, bits.all_moves)


def _kernel(puzzle: Puzzle, layer: Layer, below: list[LayerBits], kind: str):
    """The compiled driver (see `_run`) for `layer` and its chunk kernel's arguments."""
    skip_blas_probe()  # before the first compiled call: setting a kernel up may make one
    words = puzzle.rules.mask_words
    if words > 1:
        return _wide_kernel(puzzle, layer, below, words)
    if not below:
        return _goal_run, _goal_args(puzzle, layer)
    if kind not in KERNELS:
        raise ValueError(f"unknown sweep kernel {kind!r} (known: {', '.join(KERNELS)})")
    typed, setup = KERNELS[kind]
    if typed != puzzle.rules.typed:
        raise ValueError(f"the {kind!r} kernel does not sweep {puzzle.rules.family} puzzles")
    step_once = puzzle.goal.final_step_once and layer.pieces == puzzle.goal.pieces + 1
    return setup(puzzle.rules, layer, below, step_once)


def _masks_kernel(rules: Rules, layer: Layer, below: list[LayerBits], step_once: bool):
    (child,) = below
    args = (layer.cells, layer.pieces, child.solvable, child.unique, step_once, rules.tables())
    return build(_run, chunk=_binary_chunk, children=rules.children), args


def _patterns_kernel(rules: Rules, layer: Layer, below: list[LayerBits], step_once: bool):
    (child,) = below
    split = SplitMoves(rules.mask_moves(), layer.cells, LOW_BITS, RUN_BITS)
    args = (*split.args(), layer.cells, layer.pieces, child.solvable, child.unique, step_once)
    return build(_run, chunk=_split_chunk, gather=fast_gather()), args


def _lines_kernel(rules: Rules, layer: Layer, below: list[LayerBits], step_once: bool):
    segments = rules.line_segments()
    if max((s.bit_count() for s in segments), default=0) > LINE_BITS:
        return _masks_kernel(rules, layer, below, step_once)
    lines = LineMoves(rules, segments)
    (child,) = below
    args = (*lines.args(), min(LINE_LOW_BITS, layer.cells), layer.cells, layer.pieces,
            child.solvable, child.unique, step_once)
    return build(_run, chunk=_lines_chunk, gather=fast_gather()), args


def _ordering(layer: Layer, below: list[LayerBits]) -> tuple:
    """What typed kernels need to rank a child from its parent's type ordering, and the
    tier below's solvable and unique words."""
    solvable, unique, child_base, child_orderings = _typed_children(layer, below)
    table = MultisetTable(layer.counts)  # covers the layer and every layer below it
    counts = np.array(layer.counts, dtype=np.int64)
    ordering = (layer.cells, counts, child_base, child_orderings, table.index(layer.counts),
                table.prefix, table.weights)
    return ordering, solvable, unique


def _boards_kernel(rules: Rules, layer: Layer, below: list[LayerBits], step_once: bool):
    ordering, solvable, unique = _ordering(layer, below)
    run = build(_run, chunk=_typed_chunk, children=rules.children)
    return run, (*ordering, solvable, unique, step_once, rules.tables())


def _captures_kernel(rules: Rules, layer: Layer, below: list[LayerBits], step_once: bool):
    ordering, solvable, unique = _ordering(layer, below)
    reach, capturable = rules.captures()
    run = build(_run, chunk=_capture_chunk, reach=reach)
    no_images = np.zeros((0, layer.cells), dtype=np.int64)  # last: see LayerSweep.run
    return run, (*ordering, capturable, solvable, unique, step_once, rules.tables(), no_images)


def _wide_kernel(puzzle: Puzzle, layer: Layer, below: list[LayerBits], words: int):
    """The general kernels on masks of `words` words (boards of more than 64 cells): the fast
    ones are one-word only, so every family on a wide board runs here."""
    rules = puzzle.rules
    if not below:
        goal = puzzle.goal
        allowed = goal.cells_mask(layer.cells) if goal.holds_in(layer.counts) else 0
        arrangements = layer.size // comb(layer.cells, layer.pieces)
        return build(_run, chunk=_wide_goal_chunk), (layer.cells, layer.pieces, arrangements,
                                                     to_words(allowed, words))
    step_once = puzzle.goal.final_step_once and layer.pieces == puzzle.goal.pieces + 1
    if rules.typed:
        ordering, solvable, unique = _ordering(layer, below)
        run = build(_run, chunk=_wide_typed_chunk, children=rules.children)
        return run, (*ordering, solvable, unique, step_once, rules.tables(), words)
    (child,) = below
    return build(_run, chunk=_wide_binary_chunk, children=rules.children), (
        layer.cells, layer.pieces, words, child.solvable, child.unique, step_once, rules.tables())


KERNELS = {name: (SWEEP_KERNELS[name], setup) for name, setup in (
    ("masks", _masks_kernel), ("patterns", _patterns_kernel), ("lines", _lines_kernel),
    ("boards", _boards_kernel), ("captures", _captures_kernel))}
"""The sweep kernels by name (see `Rules.sweep_kernel`): whether they take typed puzzles, and
how each is set up for a layer. "masks" and "boards" are the general kernels, which only
call the family's `children`; the others are fast paths, tested against them bit for bit."""
SYMMETRIC_KERNELS = ("captures",)
"""Kernels whose last argument is a set of cell permutations (one per row) under which they
skip every mask that is not canonical (see `_smallest_image`, `LayerSweep.run`)."""


def _goal_args(puzzle: Puzzle, layer: Layer):
    # A layer that cannot hold a goal position allows no cell (k > 0 pieces never fit).
    goal = puzzle.goal
    allowed = goal.cells_mask(layer.cells) if goal.holds_in(layer.counts) else 0
    arrangements = layer.size // comb(layer.cells, layer.pieces)
    return layer.cells, layer.pieces, arrangements, np.uint64(allowed)


def goal_layer(puzzle: Puzzle, layer: Layer, progress: Progress | None = None) -> LayerBits:
    """Bits of a layer at the goal's piece count: solvable = unique = is a goal position."""
    return LayerSweep(puzzle, layer, []).run(progress)


def sweep_layer(puzzle: Puzzle, layer: Layer, below: list[LayerBits],
                progress: Progress | None = None) -> LayerBits:
    """Bits of `layer` from the bits of every layer with one piece fewer (`below`)."""
    return LayerSweep(puzzle, layer, below).run(progress)


def _typed_children(layer: Layer, below: list[LayerBits]):
    """Concatenate the child layers' bits and say where the child of each removed type lies.

    Returns (solvable, unique, child_base, child_orderings): removing a piece of type t
    (1-based) leads to the layer whose bit 0 is at child_base[t] of the concatenated
    arrays and whose type sequences number child_orderings[t].
    """
    # Read-only whether the tier is one layer or several: numba types the two apart, and a
    # kernel would compile once for each.
    solvable = read_only(concatenate_tier([b.solvable for b in below]))
    unique = read_only(concatenate_tier([b.unique for b in below]))
    offsets = tier_offsets([b.layer for b in below])
    types = len(layer.counts)
    child_base = np.zeros(types + 1, dtype=np.int64)
    child_orderings = np.zeros(types + 1, dtype=np.int64)
    for t in range(1, types + 1):
        counts = list(layer.counts)
        if counts[t - 1] == 0:
            continue
        counts[t - 1] -= 1
        child_base[t] = offsets[tuple(counts)]
        child_orderings[t] = multinomial.py_func(counts)
    return solvable, unique, child_base, child_orderings


def concatenate_tier(arrays: list[np.ndarray]) -> np.ndarray:
    """The word arrays of a tier's layers laid end to end (see `tier_offsets`); a single
    array is returned as it is (a mapped file stays mapped, not read into memory)."""
    if len(arrays) == 1:
        return arrays[0]
    return np.concatenate(arrays) if arrays else np.zeros(1, dtype=np.uint64)
