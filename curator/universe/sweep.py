"""The compiled search of a universe: enumerate the packed positions of one piece of work (no
vehicle can slide left or up); explore the connected set of each one not met before, measure
every position's distance to the goal and check whether the farthest position is minimal.

A position is its code (one 4-bit digit per lane, see `curator.universe.space`) under the lanes'
groups and the walls, which no slide changes. Its key is (horizontal cells, vertical cells),
walls counted horizontal, each a board mask (bit r * cols + c), compared as numbers: a set is
named by its smallest position, and its farthest position is the smallest of those farthest.
Every set holds a packed position (slide left and up while you can), and its packed positions
are remembered as it is explored, so each set is explored once.

`explore_set` explores and measures the one set of a given position (play in a universe), and
`walk_counts` walks one shortest solution from it, as the player model counts it.
"""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np

from curator.universe.space import DIGIT_BITS, Lanes, Space

EMPTY = -1
GROW = -2
"""A search that needs larger buffers: the caller enlarges them and searches again."""
MIX = -7046029254386353131
"""Fibonacci hashing's multiplier (2**64 / golden ratio) as a signed word."""
FIRST_BITS = 10
DIGIT_MASK = (1 << DIGIT_BITS) - 1
MOST_NEIGHBOURS = 512


class Found(NamedTuple):
    """The connected sets one piece of work found, one entry per set, and the work it took."""

    groups: np.ndarray
    """int64[set, lane]: the group of each lane."""
    codes: np.ndarray
    """int64[set, 3]: the walls (board mask), the code of the smallest position, the code of the
    smallest position farthest from the goal (-1 if the set cannot be solved)."""
    figures: np.ndarray
    """int64[set, 4]: size; moves from the farthest position (-1: cannot be solved); minimal (1:
    every vehicle and wall but the goal vehicle, taken away alone, shortens the farthest
    position's solution, 0: not, -1: cannot be solved); unique (1: the farthest position has one
    shortest solution, 0: more, -1: cannot be solved)."""
    counts: np.ndarray
    """int64[set, kind]: the vehicles of each kind, then the walls."""
    seeds: int
    """Packed positions enumerated."""


def search(space: Space, ranges: np.ndarray) -> Found:
    """The connected sets of one piece of work (one of `Space.items`)."""
    return Found(*search_item(ranges, *space.kernel_args()))


@numba.njit(cache=True, inline="always")
def _word(n: int) -> int:
    """`n` as a typed int64: numba compiles another copy of a function for a literal argument
    (a constant, or a variable only ever set to one), so the search passes typed values."""
    return np.int64(n)  # type: ignore[return-value]  # numba's int64 is the int the callers take


@numba.njit(cache=True, inline="always")
def _spread(code: int, bits: int) -> int:
    return ((code * MIX) >> (64 - bits)) & ((1 << bits) - 1)


@numba.njit(cache=True, inline="always")
def _slot(keys: np.ndarray, bits: int, code: int) -> int:
    """The slot holding `code`, or the empty slot where it goes (linear probing)."""
    mask = (1 << bits) - 1
    i = _spread(code, bits)
    while True:
        k = keys[i]
        if k == code or k == EMPTY:
            return i
        i = (i + 1) & mask


@numba.njit(cache=True, inline="always")
def _masks(code: int, groups: np.ndarray, walls: int, walls_t: int, lanes: Lanes) -> tuple[int, int, int]:
    """Horizontal cells (walls included), vertical cells, and every cell column-major."""
    rows, cols = lanes.rows, lanes.cols
    h, v, t = walls, 0, walls_t
    for lane in range(rows + cols):
        bits = lanes.local[groups[lane], (code >> (DIGIT_BITS * lane)) & DIGIT_MASK]
        if lane < rows:
            h |= bits << (lane * cols)
            t |= lanes.row_t[lane, bits]
        else:
            c = lane - rows
            v |= lanes.col_m[c, bits]
            t |= bits << (c * rows)
    return h, v, t


@numba.njit(cache=True)
def _slides(code: int, h: int, v: int, t: int, groups: np.ndarray, lanes: Lanes, out: np.ndarray
            ) -> tuple[int, bool]:
    """The positions one slide away as rows (code, lane) of `out`, their masks left to `_after`
    (most of them were met before, and a slide's cells follow from the two codes); how many,
    and whether the position is packed."""
    rows, cols = lanes.rows, lanes.cols
    taken = h | v
    row_bits, col_bits = (1 << cols) - 1, (1 << rows) - 1
    n = 0
    packed = True
    for lane in range(rows + cols):
        g = groups[lane]
        if lanes.pieces[g] == 0:
            continue
        shift = DIGIT_BITS * lane
        d = (code >> shift) & DIGIT_MASK
        own = lanes.local[g, d]
        if lane < rows:
            blockers = ((taken >> (lane * cols)) & row_bits) & ~own
        else:
            blockers = ((t >> ((lane - rows) * rows)) & col_bits) & ~own
        base = code & ~(DIGIT_MASK << shift)
        for j in range(lanes.move_lo[g, d, blockers], lanes.move_hi[g, d, blockers]):
            nd = lanes.move_to[j]
            packed &= nd > d
            out[n, 0] = base | (nd << shift)
            out[n, 1] = lane
            n += 1
    return n, packed


@numba.njit(cache=True, inline="always")
def _after(h: int, v: int, t: int, code: int, slid: int, lane: int, groups: np.ndarray, lanes: Lanes
           ) -> tuple[int, int, int]:
    """The masks (h, v, t) of position `code` after the slide along `lane` to position `slid`."""
    rows, cols = lanes.rows, lanes.cols
    shift = DIGIT_BITS * lane
    own = lanes.local[groups[lane], (code >> shift) & DIGIT_MASK]
    moved = lanes.local[groups[lane], (slid >> shift) & DIGIT_MASK]
    if lane < rows:
        return (h ^ ((own ^ moved) << (lane * cols)), v,
                t ^ lanes.row_t[lane, own] ^ lanes.row_t[lane, moved])
    c = lane - rows
    return h, v ^ lanes.col_m[c, own] ^ lanes.col_m[c, moved], t ^ ((own ^ moved) << (c * rows))


@numba.njit(cache=True, inline="always")
def _is_goal(code: int, lanes: Lanes) -> bool:
    return ((code >> (DIGIT_BITS * lanes.goal_lane)) & DIGIT_MASK) == lanes.goal_digit


@numba.njit(cache=True, inline="always")
def _smaller(h: int, v: int, than_h: int, than_v: int) -> bool:
    return h < than_h or (h == than_h and v < than_v)


@numba.njit(cache=True)
def _seen_slot(seen_sig: np.ndarray, seen_code: np.ndarray, bits: int, signature: int, code: int) -> int:
    mask = (1 << bits) - 1
    i = _spread(code ^ (signature * 0x2545F4914F6CDD1D), bits)
    while True:
        if seen_code[i] == EMPTY or (seen_code[i] == code and seen_sig[i] == signature):
            return i
        i = (i + 1) & mask


@numba.njit(cache=True)
def _seen_grown(seen_sig: np.ndarray, seen_code: np.ndarray, bits: int) -> tuple[np.ndarray, np.ndarray]:
    """The seen pairs rehashed into a table of 2**bits slots."""
    sig = np.zeros(1 << bits, np.int64)
    codes = np.full(1 << bits, EMPTY, np.int64)
    for i in range(len(seen_code)):
        if seen_code[i] != EMPTY:
            s = _seen_slot(sig, codes, bits, seen_sig[i], seen_code[i])
            sig[s] = seen_sig[i]
            codes[s] = seen_code[i]
    return sig, codes


@numba.njit(cache=True)
def _explore(seed: int, groups: np.ndarray, walls: int, walls_t: int, lanes: Lanes, keys: np.ndarray,
             slot_of: np.ndarray, index: np.ndarray, state: np.ndarray, edges: np.ndarray,
             adjacency: np.ndarray, out: np.ndarray) -> tuple[int, int, int]:
    """Breadth-first over the connected set of `seed`: its positions as rows (code, h, v, t,
    packed) of `state`, their slots in `index`, their neighbours' indices in `adjacency` (those
    of position i from edges[i] to edges[i + 1]). The table starts small and doubles in place
    as the set grows. Returns (size, edges, 0), or (n, e, GROW) if the set outgrows the
    buffers; `n` positions stay in the table (see `_clear`)."""
    bits = FIRST_BITS
    limit = min(1 << (bits - 1), len(index))
    h, v, t = _masks(seed, groups, walls, walls_t, lanes)
    s = _slot(keys, bits, seed)
    keys[s] = seed
    slot_of[s] = 0
    index[0] = s
    state[0, 0], state[0, 1], state[0, 2], state[0, 3] = seed, h, v, t
    size, at, e = _word(1), 0, 0
    while at < size:
        n, packed = _slides(state[at, 0], state[at, 1], state[at, 2], state[at, 3], groups, lanes, out)
        state[at, 4] = packed
        edges[at] = e
        if e + n > len(adjacency):
            return size, e, GROW
        for j in range(n):
            code = out[j, 0]
            s = _slot(keys, bits, code)
            if keys[s] == code:
                adjacency[e] = slot_of[s]
            else:
                if size >= limit:
                    if (1 << (bits + 1)) > len(keys):
                        return size, e, GROW
                    bits += 1
                    limit = min(1 << (bits - 1), len(index))
                    _rehash(keys, slot_of, index, state, size, bits)
                    s = _slot(keys, bits, code)
                keys[s] = code
                slot_of[s] = size
                index[size] = s
                h, v, t = _after(state[at, 1], state[at, 2], state[at, 3], state[at, 0], code, out[j, 1],
                                 groups, lanes)
                state[size, 0], state[size, 1], state[size, 2], state[size, 3] = code, h, v, t
                adjacency[e] = size
                size += 1
            e += 1
        at += 1
    edges[size] = e
    return size, e, 0


@numba.njit(cache=True)
def _explore_grown(seed: int, groups: np.ndarray, walls: int, walls_t: int, lanes: Lanes, keys: np.ndarray,
                   slot_of: np.ndarray, index: np.ndarray, state: np.ndarray, edges: np.ndarray,
                   adjacency: np.ndarray, out: np.ndarray
                   ) -> tuple[int, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """`_explore`, with larger buffers as often as the set needs: its size and the buffers
    (keys, slot_of, index, state, edges, adjacency) that hold it."""
    while True:
        size, edge_count, status = _explore(seed, groups, walls, walls_t, lanes, keys, slot_of, index, state,
                                            edges, adjacency, out)
        if status == 0:
            return size, keys, slot_of, index, state, edges, adjacency
        _clear(keys, index, size)
        if edge_count + MOST_NEIGHBOURS > len(adjacency):
            adjacency = np.zeros(2 * len(adjacency), np.int64)
        if size >= len(index):
            keys = np.full(4 * len(keys), EMPTY, np.int64)
            slot_of = np.zeros(len(keys), np.int64)
            half = len(keys) // 2
            index = np.zeros(half, np.int64)
            state = np.zeros((half, 5), np.int64)
            edges = np.zeros(half + 1, np.int64)


@numba.njit(cache=True)
def _rehash(keys: np.ndarray, slot_of: np.ndarray, index: np.ndarray, state: np.ndarray, size: int,
            bits: int) -> None:
    """Move the first `size` positions into a table of 2**bits slots."""
    for i in range(size):
        keys[index[i]] = EMPTY
    for i in range(size):
        s = _slot(keys, bits, state[i, 0])
        keys[s] = state[i, 0]
        slot_of[s] = i
        index[i] = s


@numba.njit(cache=True)
def _clear(keys: np.ndarray, index: np.ndarray, size: int) -> None:
    """Empty the slots of the first `size` positions found."""
    for i in range(size):
        keys[index[i]] = EMPTY


@numba.njit(cache=True)
def _distances(size: int, lanes: Lanes, state: np.ndarray, edges: np.ndarray, adjacency: np.ndarray,
               dist: np.ndarray, paths: np.ndarray, queue: np.ndarray) -> tuple[int, int]:
    """Moves to the goal of every position of an explored set (`dist`) and its shortest
    solutions counted up to 2 (`paths`); (farthest distance, index of the smallest farthest
    position), or (-1, -1) if no position is a goal."""
    tail = 0
    for i in range(size):
        if _is_goal(state[i, 0], lanes):
            dist[i] = 0
            paths[i] = 1
            queue[tail] = i
            tail += 1
        else:
            dist[i] = -1
            paths[i] = 0
    if tail == 0:
        return -1, -1
    head = 0
    while head < tail:
        u = queue[head]
        head += 1
        d = dist[u] + 1
        for e in range(edges[u], edges[u + 1]):
            w = adjacency[e]
            if dist[w] < 0:
                dist[w] = d
                paths[w] = paths[u]
                queue[tail] = w
                tail += 1
            elif dist[w] == d:
                paths[w] = min(2, paths[w] + paths[u])
    far, best = 0, queue[0]
    for i in range(size):
        if dist[i] > far or (dist[i] == far
                             and _smaller(state[i, 1], state[i, 2], state[best, 1], state[best, 2])):
            far, best = dist[i], i
    return far, best


def explore_set(space: Space, groups: np.ndarray, walls: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """The connected set of one position (code `seed` under the lanes' `groups`, with the wall
    cells `walls`): every position's code, and its moves to the goal (-1: it cannot be solved),
    in the order the breadth-first search found them (the seed first)."""
    return _explored(seed, np.asarray(groups, np.int64), walls, _walls_t(space, walls), space.lanes)


def walk_counts(space: Space, groups: np.ndarray, walls: int, seed: int, lookahead: float = 0.0,
                size: int = 0) -> np.ndarray:
    """What a player meets along one shortest solution from position `seed` (the first slide
    that comes closer each time, as `curator.universe.play.Positions.solution` takes it), as
    `curator.common.difficulty.walked_terms` reads it: steps, tempting detours (slides off
    every shortest solution whose wrongness does not show within `lookahead` moves), those of
    them that cost two moves to come back from, tempting dead ends (none: a set is solved from
    all of its positions or from none), forced steps (one legal slide) and legal slides in all.
    Zeros if the position cannot be solved. `size`, the set's positions if known, sizes the
    buffers at once."""
    return _walked(seed, np.asarray(groups, np.int64), walls, _walls_t(space, walls), space.lanes,
                   float(lookahead), size)


def _walls_t(space: Space, walls: int) -> int:
    """Wall cells column-major (bit c * rows + r)."""
    rows, cols = space.universe.rows, space.universe.cols
    return sum(1 << ((i % cols) * rows + i // cols) for i in range(rows * cols) if walls >> i & 1)


@numba.njit(cache=True)
def _measured(seed: int, groups: np.ndarray, walls: int, walls_t: int, lanes: Lanes, size: int
              ) -> tuple[int, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The set of `seed` explored, with buffers for `size` positions that grow as
    `search_item`'s do if it holds more, then measured: its size, its positions (`state`, the
    seed first), their neighbours (`edges`, `adjacency`) and their moves to the goal."""
    half = 1 << (FIRST_BITS - 1)
    while half <= size:
        half *= 2
    size, keys, slot_of, index, state, edges, adjacency = _explore_grown(
        seed, groups, walls, walls_t, lanes, np.full(2 * half, EMPTY, np.int64), np.zeros(2 * half, np.int64),
        np.zeros(half, np.int64), np.zeros((half, 5), np.int64), np.zeros(half + 1, np.int64),
        np.zeros(16 * half, np.int64), np.zeros((MOST_NEIGHBOURS, 2), np.int64))
    dist = np.zeros(size, np.int64)
    _distances(size, lanes, state, edges, adjacency, dist, np.zeros(size, np.int64), np.zeros(size, np.int64))
    return size, state, edges, adjacency, dist


@numba.njit(cache=True)
def _explored(seed: int, groups: np.ndarray, walls: int, walls_t: int, lanes: Lanes
              ) -> tuple[np.ndarray, np.ndarray]:
    """`explore_set` compiled."""
    size, state, _, _, dist = _measured(seed, groups, walls, walls_t, lanes, _word(0))
    return state[:size, 0].copy(), dist


@numba.njit(cache=True)
def _walked(seed: int, groups: np.ndarray, walls: int, walls_t: int, lanes: Lanes, lookahead: float,
            size: int) -> np.ndarray:
    """`walk_counts` compiled: from the seed (position 0 of its measured set)."""
    _, _, edges, adjacency, dist = _measured(seed, groups, walls, walls_t, lanes, size)
    counts = np.zeros(6, np.int64)
    u = 0
    while dist[u] > 0:
        d = dist[u]
        following = -1
        for e in range(edges[u], edges[u + 1]):
            if dist[adjacency[e]] == d - 1:
                following = adjacency[e]
                break
        hidden = min(max(lookahead - (d - 1.0), 0.0), 1.0) < 1.0  # wrong moves show at d - 1
        for e in range(edges[u], edges[u + 1]):
            w = adjacency[e]
            if hidden and dist[w] != d - 1:
                counts[1] += 1
                if dist[w] + 1 - d >= 2:
                    counts[2] += 1
        n = edges[u + 1] - edges[u]
        counts[4] += n == 1
        counts[5] += n
        counts[0] += 1
        u = following
    return counts


@numba.njit(cache=True, inline="always")
def _fewest_moves(code: int, v: int, groups: np.ndarray, lanes: Lanes) -> int:
    """A bound below the moves from position `code` (vertical cells `v`) to the goal: none at
    the goal; else the goal vehicle's slide, and one move of each vertical vehicle on a cell
    between it and the exit (no other vehicle shares its row, no wall stands in its way)."""
    lane = lanes.goal_lane
    d = (code >> (DIGIT_BITS * lane)) & DIGIT_MASK
    if d == lanes.goal_digit:
        return 0
    own = lanes.local[groups[lane], d]
    ahead = ((1 << lanes.cols) - 1) & ~(own | (own - 1))
    blocked = (v >> (lane * lanes.cols)) & ahead
    moves = 1
    while blocked:
        blocked &= blocked - 1
        moves += 1
    return moves


@numba.njit(cache=True)
def _solves_within(code: int, groups: np.ndarray, walls: int, walls_t: int, lanes: Lanes, bound: int,
                   bits: int, keys: np.ndarray, index: np.ndarray, queue: np.ndarray, out: np.ndarray
                   ) -> tuple[int, int]:
    """(1, n) if `code` reaches a goal in at most `bound` moves, (0, n) if not, (GROW, n) if the
    search outgrows 2**bits slots; `n` positions stay in the table (see `_clear`). Breadth-first,
    leaving out every position that `_fewest_moves` shows cannot reach the goal in time."""
    if _is_goal(code, lanes):
        return 1, 0
    limit = min(1 << (bits - 1), len(queue))
    h, v, t = _masks(code, groups, walls, walls_t, lanes)
    if _fewest_moves(code, v, groups, lanes) > bound:
        return 0, 0
    s = _slot(keys, bits, code)
    keys[s] = code
    index[0] = s
    queue[0, 0], queue[0, 1], queue[0, 2], queue[0, 3] = code, h, v, t
    size, head, depth, layer_end = 1, 0, 0, 1
    while head < size:
        if head == layer_end:
            depth += 1
            layer_end = size
        n, _ = _slides(queue[head, 0], queue[head, 1], queue[head, 2], queue[head, 3], groups, lanes, out)
        for j in range(n):
            if _is_goal(out[j, 0], lanes):
                return 1, size
            s = _slot(keys, bits, out[j, 0])
            if keys[s] == out[j, 0]:
                continue
            h, v, t = _after(queue[head, 1], queue[head, 2], queue[head, 3], queue[head, 0], out[j, 0],
                             out[j, 1], groups, lanes)
            if depth + 1 + _fewest_moves(out[j, 0], v, groups, lanes) > bound:
                continue
            if size >= limit:
                return GROW, size
            keys[s] = out[j, 0]
            index[size] = s
            queue[size, 0], queue[size, 1], queue[size, 2], queue[size, 3] = out[j, 0], h, v, t
            size += 1
        head += 1
    return 0, size


@numba.njit(cache=True)
def _moved(best: int, groups: np.ndarray, lanes: Lanes, state: np.ndarray, edges: np.ndarray,
           adjacency: np.ndarray, dist: np.ndarray) -> np.ndarray:
    """Which vehicles (bool[lane, vehicle]) one shortest solution from position `best` moves."""
    moved = np.zeros((lanes.rows + lanes.cols, lanes.piece_kind.shape[1]), np.bool_)
    u = best
    while dist[u] > 0:
        for e in range(edges[u], edges[u + 1]):
            w = adjacency[e]
            if dist[w] == dist[u] - 1:
                diff = state[u, 0] ^ state[w, 0]
                lane = 0
                while (diff >> (DIGIT_BITS * lane)) & DIGIT_MASK == 0:
                    lane += 1
                g = groups[lane]
                before = (state[u, 0] >> (DIGIT_BITS * lane)) & DIGIT_MASK
                after = (state[w, 0] >> (DIGIT_BITS * lane)) & DIGIT_MASK
                for k in range(lanes.pieces[g]):
                    if lanes.piece_mask[g, before, k] != lanes.piece_mask[g, after, k]:
                        moved[lane, k] = True
                u = w
                break
    return moved


@numba.njit(cache=True)
def _minimal(best: int, far: int, groups: np.ndarray, walls: int, walls_t: int, lanes: Lanes,
             state: np.ndarray, edges: np.ndarray, adjacency: np.ndarray, dist: np.ndarray,
             bits: int, keys: np.ndarray, index: np.ndarray, queue: np.ndarray, out: np.ndarray) -> int:
    """1 if every vehicle but the goal vehicle and every wall of position `best`, taken away
    alone, leaves a position solved in fewer than `far` moves; 0 if not; GROW if a search
    outgrows 2**bits slots. A vehicle that one shortest solution moves is needed: without it,
    that solution's other moves still solve, in fewer moves."""
    rows, cols = lanes.rows, lanes.cols
    moved = _moved(best, groups, lanes, state, edges, adjacency, dist)
    code = state[best, 0]
    trial = groups.copy()
    for lane in range(rows + cols):
        if lane == lanes.goal_lane:
            continue
        g = groups[lane]
        shift = DIGIT_BITS * lane
        d = (code >> shift) & DIGIT_MASK
        for k in range(lanes.pieces[g]):
            if moved[lane, k]:
                continue
            if far == 0:
                return 0
            rest = lanes.without[g, k]
            digit = lanes.digit_of[rest, lanes.local[g, d] & ~lanes.piece_mask[g, d, k]]
            trial[lane] = rest
            status, n = _solves_within((code & ~(DIGIT_MASK << shift)) | (digit << shift), trial, walls,
                                       walls_t, lanes, far - 1, bits, keys, index, queue, out)
            trial[lane] = g
            _clear(keys, index, n)
            if status != 1:
                return status
    for cell in range(rows * cols):
        if not (walls >> cell) & 1:
            continue
        if far == 0:
            return 0
        r, c = cell // cols, cell % cols
        status, n = _solves_within(code, groups, walls & ~(1 << cell), walls_t & ~(1 << (c * rows + r)),
                                   lanes, far - 1, bits, keys, index, queue, out)
        _clear(keys, index, n)
        if status != 1:
            return status
    return 1


@numba.njit(cache=True, inline="always")
def _place(k: int, row: int, lane: int, configs: np.ndarray, most: np.ndarray, lanes: Lanes,
           mask: np.ndarray, require: np.ndarray, walls: np.ndarray, walls_t: np.ndarray,
           counts: np.ndarray, groups: np.ndarray, signature: np.ndarray, kind_shift: np.ndarray) -> bool:
    """Put configuration `row` on `lane` at depth k of the enumeration (filling depth k + 1),
    unless a count goes over its most. (Rows never overlap, and the columns' choices fit the
    rows: see `Space.column_choices`.)"""
    for i in range(counts.shape[1]):
        counts[k + 1, i] = counts[k, i] + configs[row, 9 + i]
        if counts[k + 1, i] > most[i]:
            return False
    mask[k + 1] = mask[k] | configs[row, 7]
    require[k + 1] = require[k] | configs[row, 8]
    walls[k + 1] = walls[k] | configs[row, 4]
    walls_t[k + 1] = walls_t[k] | configs[row, 5]
    groups[lane] = configs[row, 0]
    signature[k + 1] = signature[k] | (configs[row, 6] << kind_shift[k])
    return True


@numba.njit(cache=True)
def _columns(k: int, ranges: np.ndarray, order: np.ndarray, lanes: Lanes, mask_t: int, require_t: int,
             col_lo: np.ndarray, col_hi: np.ndarray) -> bool:
    """Set the ranges of the column depths from k on, for rows that take the cells `mask_t` and
    need those of `require_t` filled (column-major); False if some column has no choice."""
    height = lanes.rows
    bits = (1 << height) - 1
    for depth in range(k, len(order)):
        c = order[depth] - lanes.rows
        taken = (mask_t >> (c * height)) & bits
        needed = (require_t >> (c * height)) & bits
        ranges[depth, 0] = col_lo[c, taken, needed]
        ranges[depth, 1] = col_hi[c, taken, needed]
        if ranges[depth, 0] == ranges[depth, 1]:
            return False
    return True


@numba.njit(cache=True)
def _grown(a: np.ndarray, n: int) -> np.ndarray:
    out = np.empty((n,) + a.shape[1:], a.dtype)
    out[:len(a)] = a
    return out


@numba.njit(cache=True)
def search_item(item: np.ndarray, order: np.ndarray, configs: np.ndarray, kind_shift: np.ndarray,
                fewest: np.ndarray, most: np.ndarray, lanes: Lanes, col_lo: np.ndarray, col_hi: np.ndarray,
                col_flat: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, int]:
    """Every connected set with a packed position whose depth-k row takes a configuration of
    rows item[k, 0] to item[k, 1] of `configs` (the columns' choices follow from the rows).
    Returns per set: groups[set, lane], codes[set, 3], figures[set, 4], counts[set, kind + walls]
    (see `Found`); then the packed positions enumerated."""
    depth_count = len(order)
    kinds = fewest.shape[0]
    lane_count = lanes.rows + lanes.cols
    mask = np.zeros(depth_count + 1, np.int64)
    require = np.zeros(depth_count + 1, np.int64)
    walls = np.zeros(depth_count + 1, np.int64)
    walls_t = np.zeros(depth_count + 1, np.int64)
    counts = np.zeros((depth_count + 1, kinds), np.int64)
    chosen = np.zeros(depth_count, np.int64)
    groups = np.zeros(lane_count, np.int64)
    bits_max = FIRST_BITS
    keys = np.full(1 << bits_max, EMPTY, np.int64)
    slot_of = np.zeros(1 << bits_max, np.int64)
    half = 1 << (bits_max - 1)
    index, queue = np.zeros(half, np.int64), np.zeros(half, np.int64)
    state = np.zeros((half, 5), np.int64)
    dist, paths = np.zeros(half, np.int64), np.zeros(half, np.int64)
    edges = np.zeros(half + 1, np.int64)
    adjacency = np.zeros(16 * half, np.int64)
    keys2 = np.full(1 << FIRST_BITS, EMPTY, np.int64)
    index2, queue2 = np.zeros(half, np.int64), np.zeros((half, 4), np.int64)
    out = np.zeros((MOST_NEIGHBOURS, 2), np.int64)
    seen_bits = _word(12)
    seen_sig = np.zeros(1 << seen_bits, np.int64)
    seen_code = np.full(1 << seen_bits, EMPTY, np.int64)
    seen_count = 0
    out_groups = np.zeros((64, lane_count), np.int64)
    out_codes = np.zeros((64, 3), np.int64)
    out_figures = np.zeros((64, 4), np.int64)
    out_counts = np.zeros((64, kinds), np.int64)
    found = seeds = 0
    signature = np.zeros(depth_count + 1, np.int64)
    ranges = item.copy()
    rows = lanes.rows
    k = 0
    chosen[0] = ranges[0, 0] - 1
    while k >= 0:
        chosen[k] += 1
        if chosen[k] >= ranges[k, 1]:
            k -= 1
            continue
        row = chosen[k] if k < rows else col_flat[chosen[k]]
        if not _place(k, row, order[k], configs, most, lanes, mask, require, walls, walls_t, counts, groups,
                      signature, kind_shift):
            continue
        if k + 1 == rows and not _columns(rows, ranges, order, lanes, mask[k + 1], require[k + 1], col_lo,
                                          col_hi):
            continue
        if k + 1 < depth_count:
            k += 1
            chosen[k] = ranges[k, 0] - 1
            continue
        short = False
        for i in range(kinds):
            short |= counts[k + 1, i] < fewest[i]
        if short:
            continue
        seeds += 1
        seed = _word(0)
        for j in range(depth_count):
            seed |= configs[chosen[j] if j < rows else col_flat[chosen[j]], 1] << (DIGIT_BITS * order[j])
        sig = signature[k + 1]
        s = _seen_slot(seen_sig, seen_code, seen_bits, sig, seed)
        if seen_code[s] != EMPTY:
            continue
        w, wt = walls[k + 1], walls_t[k + 1]
        size, keys, slot_of, index, state, edges, adjacency = _explore_grown(
            seed, groups, w, wt, lanes, keys, slot_of, index, state, edges, adjacency, out)
        if len(dist) < len(index):
            dist = np.zeros(len(index), np.int64)
            paths = np.zeros(len(index), np.int64)
            queue = np.zeros(len(index), np.int64)
        least = 0
        for i in range(size):
            if state[i, 4]:
                if 2 * (seen_count + 1) > len(seen_code):
                    seen_bits += 1
                    seen_sig, seen_code = _seen_grown(seen_sig, seen_code, seen_bits)
                s = _seen_slot(seen_sig, seen_code, seen_bits, sig, state[i, 0])
                seen_sig[s], seen_code[s] = sig, state[i, 0]
                seen_count += 1
                if _smaller(state[i, 1], state[i, 2], state[least, 1], state[least, 2]):
                    least = i
        far, best = _distances(size, lanes, state, edges, adjacency, dist, paths, queue)
        minimal = -1
        if far >= 0:
            bits2 = _word(FIRST_BITS)
            while True:
                minimal = _minimal(best, far, groups, w, wt, lanes, state, edges, adjacency, dist, bits2,
                                   keys2, index2, queue2, out)
                if minimal != GROW:
                    break
                bits2 += 2
                if (1 << bits2) > len(keys2):
                    keys2 = np.full(1 << bits2, EMPTY, np.int64)
                    index2 = np.zeros(1 << (bits2 - 1), np.int64)
                    queue2 = np.zeros((1 << (bits2 - 1), 4), np.int64)
        if found == len(out_codes):
            out_groups = _grown(out_groups, 2 * found)
            out_codes = _grown(out_codes, 2 * found)
            out_figures = _grown(out_figures, 2 * found)
            out_counts = _grown(out_counts, 2 * found)
        out_groups[found] = groups
        out_codes[found, 0] = w
        out_codes[found, 1] = state[least, 0]
        out_codes[found, 2] = state[best, 0] if far >= 0 else -1
        out_figures[found, 0] = size
        out_figures[found, 1] = far
        out_figures[found, 2] = minimal
        out_figures[found, 3] = (1 if paths[best] == 1 else 0) if far >= 0 else -1
        out_counts[found] = counts[k + 1]
        found += 1
        _clear(keys, index, size)
    return out_groups[:found], out_codes[:found], out_figures[:found], out_counts[:found], seeds
