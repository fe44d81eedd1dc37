"""Classes of equivalent positions: what `--canonical` keeps one of, and `class_size` counts.

Two positions are equivalent when the game from one is the game from the other with the
cells renamed: a symmetry the puzzle keeps (`Puzzle.symmetries`) maps one onto the other,
or moving every piece by one vector does where the rules allow it
(`Puzzle.translation_margin`: the board must look the same within a margin of the pieces'
box, `Board.alike`). The class of a position is its closure under both.

Why the class of P is {g(P + v)}
--------------------------------
- Being alike is an equivalence: P + v is alike P under -v, and vectors chain (the box
  moves with the pieces). So the translates of P that are alike it form a class T(P); they
  are reached from P by one vector each and are all distinct.
- A symmetry g maps the board onto itself and a box onto a box (see `Board.axes`), so
  g(T(P)) = T(g(P)): the class of P is the union of the T(g(P)) over the symmetries g.
- Two of those are the same set or disjoint, and the same set exactly when they have the
  same smallest member; each has |T(P)| members. Hence

      class size = |T(P)| x (number of distinct smallest members of the T(g(P)))

Ranks
-----
A translation keeps the row-major order of cells, so a typed position and its translates
have their types in the same order: their ranks compare as their occupancy masks do.

The member a class is shown by
------------------------------
`canonical=True` keeps one member of each class: the one a designer would ship, its pieces
centred on the board. Members are ordered by their *offset*, then by rank: the offset is
the sum over the grid's axes (`Board.axes`: row and column, and on triangular grids also
col - row) of the square of (lowest + highest coordinate of the pieces) - (lowest + highest
coordinate of the board's cells), i.e. four times the squared distance of the pieces' box
centre from the board's box centre on a square grid. A symmetry permutes and negates the
axes and maps the board's box onto itself, so all images g(Q) of a member Q have the same
offset: the offset only tells translates apart, and among equally centred members the
smallest rank wins, as it does alone in classes without translations.

Kernels
-------
The compiled functions here run over whole blocks of ranks of one layer; `Matcher` in
`curator.layered.select` uses them for `canonical=True` when a layer has translations (and
keeps its plain symmetry kernels otherwise). `in_threads` shares a large block's ranks out
among threads for either kind of kernel.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, cast

import numba
import numpy as np

from curator.common.kernels import Slot, build, kernel
from curator.common.ranking import (
    bit_count,
    fill_board,
    image_mask,
    lowest_bit,
    multinomial,
    rank_board_wide,
    rank_multiset_sequence,
    unrank_colex_mask,
    unrank_colex_wide,
    unrank_multiset_sequence,
)
from curator.common.threads import chunks, spread
from curator.layered.puzzle import Puzzle
from curator.layered.space import Layer, Position, StateSpace

ONE = np.uint64(1)
ALL = np.uint64(0xFFFFFFFFFFFFFFFF)
CHUNK = 4096
"""Ranks a thread takes at a time in `in_threads`."""
USABLE_BUDGET = 50_000_000
"""Most (box, vector) pairs tried when working out which vectors a layer can use."""


@dataclass(frozen=True)
class Translations:
    """The translations of one layer's positions, as the compiled kernels read them.

    `vectors[v]` moves at least `pieces` cells onto cells and some box of the board with
    that many cells is alike (`Board.alike`) after the move. `axes[c, a]` is cell c's
    coordinate along axis a (`Board.axes`, shifted to start at 0); `upto[a, x]` the mask of
    the cells whose coordinate along a is below x; `shifts[v, a]` vector v along axis a;
    `images[v, c]` the index of cell c moved by v (-1 off the board); `onto[v]` the mask of
    the cells whose image is a cell; `centre[a]` the lowest plus the highest coordinate of
    the board's cells along a (twice the centre of its box).
    """

    margin: int
    vectors: tuple[tuple[int, int], ...]
    axes: np.ndarray
    upto: np.ndarray
    shifts: np.ndarray
    images: np.ndarray
    onto: np.ndarray
    centre: np.ndarray

    def arrays(self) -> tuple[int, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        return self.margin, self.axes, self.upto, self.shifts, self.images, self.onto, self.centre


@functools.lru_cache(maxsize=64)
def translations(puzzle: Puzzle, pieces: int) -> Translations | None:
    """The translations of the positions with `pieces` pieces, or None if no position of
    that many pieces has an equivalent translate (kept for the last few puzzles and counts)."""
    margin = puzzle.translation_margin(pieces)
    if margin is None:
        return None
    board = puzzle.board
    raw = [board.axes(cell) for cell in board.cells]
    low = [min(axis) for axis in zip(*raw)]
    axes = np.array([[x - lo for x, lo in zip(coords, low)] for coords in raw], dtype=np.int64)
    length = int(axes.max()) + 1
    upto = np.zeros((axes.shape[1], length + 1), dtype=object)
    for a in range(axes.shape[1]):
        for x in range(length + 1):
            upto[a, x] = sum(1 << c for c in range(board.size) if axes[c, a] < x)
    upto = puzzle.rules.mask_array(upto)  # a last axis of words on boards of more than 64 cells
    vectors, images = [], []
    for vector in board.translations():
        image = [board.moved(c, vector) for c in range(board.size)]
        if sum(i is not None for i in image) >= pieces:
            vectors.append(vector)
            images.append([-1 if i is None else i for i in image])
    if not vectors:
        return None
    images_array = np.array(images, dtype=np.int64)
    shifts = np.array([board.axes(v) for v in vectors], dtype=np.int64)
    onto = puzzle.rules.mask_array([sum(1 << c for c in range(board.size) if row[c] >= 0) for row in images])
    usable = (_usable(pieces, margin, axes, upto, shifts, onto, length) if puzzle.rules.mask_words == 1
              else np.ones(len(vectors), dtype=np.bool_))  # `_usable` only saves work
    if not usable.any():
        return None
    keep = np.flatnonzero(usable)
    return Translations(margin, tuple(vectors[v] for v in keep), axes, upto,
                        shifts[keep].copy(), images_array[keep].copy(), onto[keep].copy(),
                        axes.max(axis=0).astype(np.int64))


def _usable(pieces, margin, axes, upto, shifts, onto, length) -> np.ndarray:
    """Which vectors some box with at least `pieces` cells is alike under (all of them if
    trying every box would cost too much)."""
    boxes = (length * (length + 1) // 2) ** axes.shape[1]
    if boxes * shifts.shape[0] > USABLE_BUDGET:
        return np.ones(shifts.shape[0], dtype=np.bool_)
    return _usable_vectors(pieces, margin, axes, upto, shifts, onto, length)


@numba.njit(cache=True)
def _usable_vectors(pieces, margin, axes, upto, shifts, onto, length):
    dims = axes.shape[1]
    usable = np.zeros(shifts.shape[0], dtype=np.bool_)
    lo = np.zeros(dims, dtype=np.int64)
    hi = np.zeros(dims, dtype=np.int64)
    while True:
        cells = ALL
        for a in range(dims):
            cells &= _span(upto, a, lo[a], hi[a])
        if bit_count(cells) >= pieces:
            for v in range(shifts.shape[0]):
                if not usable[v] and _alike(lo, hi, margin, upto, shifts, onto, v):
                    usable[v] = True
        # The next box: ranges (lo, hi) per axis, like the digits of a counter.
        a = 0
        while a < dims:
            if hi[a] < length - 1:
                hi[a] += 1
                break
            if lo[a] < length - 1:
                lo[a] += 1
                hi[a] = lo[a]
                break
            lo[a] = 0
            hi[a] = 0
            a += 1
        if a == dims:
            return usable


@numba.njit(cache=True, inline="always")
def _span(upto, a, lo, hi):
    """Mask of the cells whose coordinate along axis a lies in lo..hi."""
    top = upto.shape[1] - 1
    first = min(max(lo, 0), top)
    stop = min(max(hi + 1, 0), top)
    return upto[a, stop] & ~upto[a, first]


@numba.njit(cache=True, inline="always")
def _alike(lo, hi, margin, upto, shifts, onto, v):
    """`Board.alike` for the box lo..hi (per axis) widened by `margin` and vector v: every
    cell of it moves onto a cell, and the moved box holds no other cell."""
    around = ALL
    moved = ALL
    for a in range(lo.shape[0]):
        around &= _span(upto, a, lo[a] - margin, hi[a] + margin)
        moved &= _span(upto, a, lo[a] - margin + shifts[v, a], hi[a] + margin + shifts[v, a])
    return (around & ~onto[v]) == 0 and bit_count(around) == bit_count(moved)


@numba.njit(cache=True)
def _alike_vectors(mask, margin, axes, upto, shifts, onto, lo, hi, out):
    """Write into `out` the vectors (indices) under which the board is alike around the
    pieces of `mask`; return how many. `lo` and `hi` are scratch arrays (one per axis)."""
    if mask == 0:
        return 0
    dims = axes.shape[1]
    first = lowest_bit(mask)
    for a in range(dims):
        lo[a] = axes[first, a]
        hi[a] = axes[first, a]
    m = mask & (mask - ONE)
    while m:
        cell = lowest_bit(m)
        m &= m - ONE
        for a in range(dims):
            lo[a] = min(lo[a], axes[cell, a])
            hi[a] = max(hi[a], axes[cell, a])
    count = 0
    for v in range(shifts.shape[0]):
        if (mask & ~onto[v]) == 0 and _alike(lo, hi, margin, upto, shifts, onto, v):
            out[count] = v
            count += 1
    return count


@numba.njit(cache=True, inline="always")
def _wide_span(upto, a, lo, hi, w):
    """Word w of `_span` on boards of more than 64 cells (upto holds wide masks)."""
    top = upto.shape[1] - 1
    first = min(max(lo, 0), top)
    stop = min(max(hi + 1, 0), top)
    return upto[a, stop, w] & ~upto[a, first, w]


@numba.njit(cache=True)
def _wide_alike_vectors(board, margin, axes, upto, shifts, onto, lo, hi, out):
    """`_alike_vectors` of the pieces of `board` on a board of more than 64 cells."""
    dims = axes.shape[1]
    seen = False
    for cell in range(board.shape[0]):
        if board[cell]:
            for a in range(dims):
                lo[a] = axes[cell, a] if not seen else min(lo[a], axes[cell, a])
                hi[a] = axes[cell, a] if not seen else max(hi[a], axes[cell, a])
            seen = True
    if not seen:
        return 0
    count = 0
    for v in range(shifts.shape[0]):
        ok = True
        for cell in range(board.shape[0]):
            if board[cell] and not (onto[v, cell >> 6] >> np.uint64(cell & 63)) & ONE:
                ok = False
                break
        around_count = moved_count = 0
        for w in range(upto.shape[2]):
            if not ok:
                break
            around = ALL
            moved = ALL
            for a in range(dims):
                around &= _wide_span(upto, a, lo[a] - margin, hi[a] + margin, w)
                moved &= _wide_span(upto, a, lo[a] - margin + shifts[v, a], hi[a] + margin + shifts[v, a], w)
            ok = (around & ~onto[v, w]) == 0
            around_count += bit_count(around)
            moved_count += bit_count(moved)
        if ok and around_count == moved_count:
            out[count] = v
            count += 1
    return count


@numba.njit(cache=True)
def _wide_position(r, n, counts, arrangements, cells, seq, board):
    """Into `board` (one entry per cell, 0 empty, t type t): the position of rank r of the
    layer with `counts`, on a board of n > 64 cells."""
    k = counts.sum()
    unrank_colex_wide(r // arrangements, n, k, cells)
    unrank_multiset_sequence(r % arrangements, counts, seq)
    board[:] = 0
    for j in range(k):
        board[cells[j]] = seq[j] + 1


@numba.njit(cache=True, inline="always")
def _wide_image(board, row, moved_by, perm, out):
    """`_moved_board` (cells moved by `row` if `moved_by`, then mapped by `perm`)."""
    out[:] = 0
    for cell in range(board.shape[0]):
        if board[cell]:
            to = row[cell] if moved_by else cell
            out[perm[to]] = board[cell]


@numba.njit(cache=True, inline="always")
def _cells_pass(board, include, exclude):
    for cell in range(board.shape[0]):
        if (include[cell] and board[cell] == 0) or (exclude[cell] and board[cell] != 0):
            return False
    return True


@kernel
def keep_wide_chunk(ranks, lo, hi, n, counts, include, exclude, perms,
                    margin, axes, upto, shifts, images, onto, centre, keep):
    """keep[i] for ranks[lo:hi] on a board of more than 64 cells (as `keep_typed_chunk`, on
    cells: `include` and `exclude` are bool arrays; one kind of piece is one type)."""
    counts = counts.copy()  # the multiset rankers use it as scratch space
    k = counts.sum()
    arrangements = multinomial(counts)
    cells = np.empty(max(k, 1), dtype=np.int64)
    seq = np.empty(max(k, 1), dtype=np.int64)
    scratch = np.empty(counts.shape[0], dtype=np.int64)
    board = np.zeros(n, dtype=np.int64)
    image = np.zeros(n, dtype=np.int64)
    found = np.empty(shifts.shape[0], dtype=np.int64)
    low = np.zeros(axes.shape[1], dtype=np.int64)
    high = np.zeros(axes.shape[1], dtype=np.int64)
    for i in range(lo, hi):
        r = ranks[i]
        _wide_position(r, n, counts, arrangements, cells, seq, board)
        ok = _cells_pass(board, include, exclude)
        if ok:
            count = _wide_alike_vectors(board, margin, axes, upto, shifts, onto, low, high, found)
            own = _offset(low, high, shifts, -1, centre)
            for t in range(-1, count):
                offset = own if t < 0 else _offset(low, high, shifts, found[t], centre)
                if offset > own:
                    continue  # each image of this translate is less centred
                row = images[found[t]] if t >= 0 else perms[0]
                for s in range(1 if t < 0 else 0, perms.shape[0]):
                    _wide_image(board, row, t >= 0, perms[s], image)
                    if not _cells_pass(image, include, exclude):
                        continue
                    if offset < own or rank_board_wide(image, scratch, seq) < r:
                        ok = False
                        break
                if not ok:
                    break
        keep[i] = ok


@numba.njit(cache=True, inline="always")
def _offset(lo, hi, shifts, v, centre):
    """The offset (see the module docstring) of the pieces whose box is lo..hi per axis,
    moved by vector v (v < 0: not moved)."""
    total = 0
    for a in range(lo.shape[0]):
        x = lo[a] + hi[a] - centre[a]
        if v >= 0:
            x += 2 * shifts[v, a]
        total += x * x
    return total


chunk = Slot("chunk")
"""The kernel `in_chunks` drives: one of the `keep_*_chunk` kernels, bound by `build`."""


@kernel(nogil=True)
def in_chunks(ranks, args, start, step):
    """`chunk(ranks, lo, hi, *args)` over the chunks start, start + step, ... of CHUNK ranks
    of `ranks` (see `in_threads`)."""
    for c in range(start, (ranks.shape[0] + CHUNK - 1) // CHUNK, step):
        lo = c * CHUNK
        hi = min(lo + CHUNK, ranks.shape[0])
        chunk(ranks, lo, hi, *args)


def in_threads(chunk_kernel: Any, ranks: np.ndarray, *args: Any) -> None:
    """`chunk_kernel(ranks, lo, hi, *args)` over every CHUNK ranks of `ranks`, the chunks shared
    out among threads (`curator.common.threads`)."""
    spread(build(in_chunks, chunk=chunk_kernel), ranks, args, shares=chunks(ranks.shape[0], CHUNK))


@numba.njit(cache=True, inline="always")
def _passes(mask, include, exclude):
    return (mask & include) == include and (mask & exclude) == 0


@kernel
def keep_binary_chunk(ranks, lo, hi, n, k, include, exclude, perms,
                      margin, axes, upto, shifts, images, onto, centre, keep):
    """keep[i] for ranks[lo:hi] of a one-kind layer: the position passes the cell filters
    and no member of its class that passes them is more centred, or as centred with a
    smaller rank (= a smaller mask)."""
    found = np.empty(shifts.shape[0], dtype=np.int64)
    low = np.zeros(axes.shape[1], dtype=np.int64)
    high = np.zeros(axes.shape[1], dtype=np.int64)
    for i in range(lo, hi):
        mask = unrank_colex_mask(ranks[i], n, k)
        ok = _passes(mask, include, exclude)
        if ok:
            count = _alike_vectors(mask, margin, axes, upto, shifts, onto, low, high, found)
            own = _offset(low, high, shifts, -1, centre)
            for t in range(-1, count):
                offset = own if t < 0 else _offset(low, high, shifts, found[t], centre)
                if offset > own:
                    continue  # each image of this translate is less centred
                moved = mask if t < 0 else image_mask(mask, images[found[t]])
                for s in range(1 if t < 0 else 0, perms.shape[0]):
                    image = image_mask(moved, perms[s])
                    if (offset < own or image < mask) and _passes(image, include, exclude):
                        ok = False
                        break
                if not ok:
                    break
        keep[i] = ok


@numba.njit(cache=True)
def _moved_board(board, perm, row, moved_by, out):
    """Into `out`: `board` moved by the vector whose images are `row` (if `moved_by`), then
    mapped by `perm`."""
    out[:] = 0
    for cell in range(board.shape[0]):
        if board[cell]:
            to = row[cell] if moved_by else cell
            out[perm[to]] = board[cell]


@numba.njit(cache=True)
def _order(board, counts, seq):
    """The rank of the order of `board`'s types among the positions on its cells (the
    part of a typed rank below the mask's); `seq` is scratch space of one entry per piece."""
    k = 0
    for cell in range(board.shape[0]):
        if board[cell]:
            seq[k] = board[cell] - 1
            k += 1
    return rank_multiset_sequence(seq, counts)


@kernel
def keep_typed_chunk(ranks, lo, hi, n, counts, include, exclude, perms,
                     margin, axes, upto, shifts, images, onto, centre, keep):
    """keep[i] for ranks[lo:hi] of a typed layer (as `keep_binary_chunk`)."""
    counts = counts.copy()  # the multiset rankers use it as scratch space
    k = counts.sum()
    arrangements = multinomial(counts)
    seq = np.empty(k, dtype=np.int64)
    board = np.zeros(n, dtype=np.int64)
    image = np.zeros(n, dtype=np.int64)
    found = np.empty(shifts.shape[0], dtype=np.int64)
    low = np.zeros(axes.shape[1], dtype=np.int64)
    high = np.zeros(axes.shape[1], dtype=np.int64)
    for i in range(lo, hi):
        r = ranks[i]
        mask = unrank_colex_mask(r // arrangements, n, k)
        ok = _passes(mask, include, exclude)
        if not ok:
            keep[i] = False
            continue
        filled = False
        count = _alike_vectors(mask, margin, axes, upto, shifts, onto, low, high, found)
        own = _offset(low, high, shifts, -1, centre)
        for t in range(-1, count):
            offset = own if t < 0 else _offset(low, high, shifts, found[t], centre)
            if offset > own:
                continue  # each image of this translate is less centred
            row = images[found[t]] if t >= 0 else perms[0]  # perms[0]: unused then
            moved = mask if t < 0 else image_mask(mask, row)
            for s in range(1 if t < 0 else 0, perms.shape[0]):
                moved_mask = image_mask(moved, perms[s])
                if not _passes(moved_mask, include, exclude):
                    continue
                if offset < own or moved_mask < mask:
                    ok = False
                    break
                if moved_mask > mask:
                    continue
                # The same cells: compare the types' order (the rank within the mask).
                if not filled:
                    unrank_multiset_sequence(r % arrangements, counts, seq)
                    fill_board(mask, seq, board)
                    filled = True
                _moved_board(board, perms[s], row, t >= 0, image)
                if _order(image, counts, seq) < r % arrangements:
                    ok = False
                    break
            if not ok:
                break
        keep[i] = ok


@numba.njit(cache=True)
def _class_sizes(ranks, n, counts, perms, margin, axes, upto, shifts, images, onto, centre, out):
    counts = counts.copy()
    k = counts.sum()
    arrangements = multinomial(counts)
    seq = np.empty(k, dtype=np.int64)
    board = np.zeros(n, dtype=np.int64)
    image = np.zeros(n, dtype=np.int64)
    found = np.empty(shifts.shape[0], dtype=np.int64)
    low = np.empty(axes.shape[1], dtype=np.int64)
    high = np.empty(axes.shape[1], dtype=np.int64)
    symmetries = perms.shape[0]
    smallest = np.empty(symmetries, dtype=np.uint64)
    order = np.empty(symmetries, dtype=np.int64)
    for i in range(ranks.shape[0]):
        r = ranks[i]
        mask = unrank_colex_mask(r // arrangements, n, k)
        unrank_multiset_sequence(r % arrangements, counts, seq)
        fill_board(mask, seq, board)
        count = _alike_vectors(mask, margin, axes, upto, shifts, onto, low, high, found)
        distinct = 0
        for s in range(symmetries):
            # T(g(P)) by its smallest member: the smallest mask, and g(P)'s order of types.
            best = image_mask(mask, perms[s])
            for t in range(count):
                best = min(best, image_mask(image_mask(mask, images[found[t]]), perms[s]))
            _moved_board(board, perms[s], perms[s], False, image)
            smallest[s] = best
            order[s] = _order(image, counts, seq)
            new = True
            for u in range(s):
                if smallest[u] == best and order[u] == order[s]:
                    new = False
                    break
            distinct += new
        out[i] = (count + 1) * distinct


@numba.njit(cache=True)
def _wide_class_sizes(ranks, n, counts, perms, margin, axes, upto, shifts, images, onto, centre, out):
    """`_class_sizes` on boards of more than 64 cells: (translates + 1) x the number of
    distinct smallest members of the T(g(P)), each found by its rank."""
    counts = counts.copy()
    k = counts.sum()
    arrangements = multinomial(counts)
    cells = np.empty(max(k, 1), dtype=np.int64)
    seq = np.empty(max(k, 1), dtype=np.int64)
    scratch = np.empty(counts.shape[0], dtype=np.int64)
    board = np.zeros(n, dtype=np.int64)
    image = np.zeros(n, dtype=np.int64)
    found = np.empty(shifts.shape[0], dtype=np.int64)
    low = np.empty(axes.shape[1], dtype=np.int64)
    high = np.empty(axes.shape[1], dtype=np.int64)
    smallest = np.empty(perms.shape[0], dtype=np.int64)
    for i in range(ranks.shape[0]):
        _wide_position(ranks[i], n, counts, arrangements, cells, seq, board)
        count = _wide_alike_vectors(board, margin, axes, upto, shifts, onto, low, high, found)
        distinct = 0
        for s in range(perms.shape[0]):
            _wide_image(board, perms[0], False, perms[s], image)
            best = rank_board_wide(image, scratch, seq)
            for t in range(count):
                _wide_image(board, images[found[t]], True, perms[s], image)
                best = min(best, rank_board_wide(image, scratch, seq))
            smallest[s] = best
            new = True
            for u in range(s):
                if smallest[u] == best:
                    new = False
                    break
            distinct += new
        out[i] = (count + 1) * distinct


def _tables(puzzle: Puzzle, layer: Layer, moves: Translations | None
            ) -> tuple[int, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The kernels' arguments for a layer: its translations, or none (no vector)."""
    if moves is not None:
        return moves.arrays()
    n = puzzle.board.size
    words = () if puzzle.rules.mask_words == 1 else (puzzle.rules.mask_words,)
    return (0, np.zeros((n, 1), dtype=np.int64), np.zeros((1, 2, *words), dtype=np.uint64),
            np.zeros((0, 1), dtype=np.int64), np.zeros((0, n), dtype=np.int64),
            np.zeros((0, *words), dtype=np.uint64), np.zeros(1, dtype=np.int64))


def wide_tables(puzzle: Puzzle, layer: Layer, moves: Translations | None
                ) -> tuple[int, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """`keep_wide_chunk`'s translation arguments for a layer (none when `moves` is None)."""
    return _tables(puzzle, layer, moves)


def class_sizes(puzzle: Puzzle, layer: Layer, ranks: Sequence[int] | np.ndarray,
                moves: Translations | None = None) -> np.ndarray:
    """The class size of each of `ranks` of `layer` (compiled over the whole array).
    `moves` may pass the layer's `translations` to save working them out again."""
    ranks = np.asarray(ranks, dtype=np.int64)
    if moves is None:
        moves = translations(puzzle, layer.pieces)
    perms = np.array(puzzle.symmetries(), dtype=np.int64).reshape(-1, puzzle.board.size)
    out = np.zeros(ranks.shape[0], dtype=np.int64)
    if ranks.shape[0] and puzzle.rules.mask_words > 1:
        _wide_class_sizes(ranks, layer.cells, np.array(layer.counts, dtype=np.int64), perms,
                          *_tables(puzzle, layer, moves), out)
    elif ranks.shape[0]:
        counts = np.array(layer.counts, dtype=np.int64)
        _class_sizes(ranks, layer.cells, counts, perms, *_tables(puzzle, layer, moves), out)
    return out


def class_size(puzzle: Puzzle, position: Sequence[int]) -> int:
    """The number of distinct positions equivalent to `position` (one entry per cell: 0
    empty, t = piece type t), itself included."""
    layer, rank = StateSpace(puzzle).rank(position)
    return int(class_sizes(puzzle, layer, [rank])[0])


def members(puzzle: Puzzle, position: Sequence[int]) -> list[Position]:
    """Every position of the class of `position`, in rank order (plain Python)."""
    board = puzzle.board
    space = StateSpace(puzzle)
    position = tuple(int(v) for v in position)
    cells = [c for c, v in enumerate(position) if v]
    margin = puzzle.translation_margin(len(cells))
    translates = [position]
    moved: list[int] | tuple[int, ...]  # a translate as it is built, then each one
    if margin is not None and cells:
        for vector in board.translations():
            if board.alike(cells, vector, margin):
                moved = [0] * board.size
                for c in cells:
                    moved[cast(int, board.moved(c, vector))] = position[c]  # alike: a cell
                translates.append(tuple(moved))
    found = set()
    for perm in puzzle.symmetries():
        for moved in translates:
            image = [0] * board.size
            for c, v in enumerate(moved):
                image[perm[c]] = v
            found.add(tuple(image))
    return sorted(found, key=lambda p: space.rank(p)[1])


def offset(puzzle: Puzzle, position: Sequence[int]) -> int:
    """How far the pieces of `position` are from the board's centre (see the module
    docstring): per axis of `Board.axes`, the square of the lowest plus the highest coordinate
    of its pieces less those of the board's cells, summed (0 for no piece)."""
    board = puzzle.board
    cells = [board.axes(board.cells[c]) for c, v in enumerate(position) if v]
    if not cells:
        return 0
    every = [board.axes(cell) for cell in board.cells]
    return sum((min(x) + max(x) - min(y) - max(y)) ** 2 for x, y in zip(zip(*cells), zip(*every)))


def canonical_rank(puzzle: Puzzle, position: Sequence[int], must_include: Iterable[tuple[int, int]] = (),
                   must_exclude: Iterable[tuple[int, int]] = ()) -> int | None:
    """The rank `canonical=True` keeps for the class of `position` (within its layer): among
    the members with pieces on every `must_include` cell and none on the `must_exclude`
    cells ((row, col) pairs), the most centred (smallest `offset`), then the smallest rank;
    None if no member passes."""
    include = _indices(puzzle, must_include)
    exclude = _indices(puzzle, must_exclude)
    space = StateSpace(puzzle)
    passing = [member for member in members(puzzle, position)
               if all(member[c] for c in include) and not any(member[c] for c in exclude)]
    if not passing:
        return None
    return min((offset(puzzle, member), space.rank(member)[1]) for member in passing)[1]


def _indices(puzzle: Puzzle, cells: Iterable[tuple[int, int]]) -> list[int]:
    out = []
    for cell in cells:
        key = tuple(cell)
        if key not in puzzle.board.index:
            raise ValueError(f"{key} is not a cell of the board")
        out.append(puzzle.board.index[key])
    return out
