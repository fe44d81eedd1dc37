"""What the compiled sweep needs of a sliding-block puzzle, as plain arrays, and the compiled
functions that rank, unrank and move positions with them.

Cells are bits of a uint64 occupancy mask. A piece stands at an anchor cell; `masks` gives the
cells it covers there and `steps` where its anchor goes one cell in each direction. A board of
more than 64 cells has masks of four words and its own compiled code (`curator.sliding.wide`);
`build_kernel` makes the arrays of either.

A position is an int64[P] of anchors, group by group in ascending order, with one entry for
every piece a group can hold; a piece that has dropped out (tilt moves) is -1, which sorts
first. Ranks come in sections, one per count of pieces per group (see
`SlidingPuzzle.sections`); occupancy masks returned by `unrank` also hold the exit cells.
"""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np

from curator.common.goal_sweep import Graph
from curator.common.ranking import bit_count, rank_colex_mask, unrank_colex_mask
from curator.common.wide_masks import WIDE_WORDS, packed
from curator.sliding.puzzle import DIRECTIONS, METRICS, MOVES, STEERING, SlidingPuzzle

STEP, LINE, UNTIL_BLOCKED, TILT = (MOVES.index(m) for m in ("step", "line", "until_blocked", "tilt"))
STEP_METRIC, LINE_METRIC, PIECE_METRIC = (METRICS.index(m) for m in ("step", "line", "piece"))
OPPOSITE = np.array([2, 3, 0, 1], dtype=np.int64)
"""The direction opposite each of DIRECTIONS (up, right, down, left)."""


class Kernel(NamedTuple):
    """A sliding-block puzzle as arrays: G groups, P pieces, N cells. On a wide board (`words`
    is WIDE_WORDS) every uint64 mask below is a row of that many words instead."""

    cells: int
    words: int
    """1, or WIDE_WORDS on a board of more than 64 cells."""
    move: int
    """STEP, LINE or UNTIL_BLOCKED."""
    metric: int
    """STEP_METRIC, LINE_METRIC or PIECE_METRIC."""
    free: np.ndarray
    """bool[G]: the group's pieces go anywhere (else they keep one line)."""
    counts: np.ndarray
    """int64[G]: the most pieces the group holds."""
    first: np.ndarray
    """int64[G + 1]: the group's pieces are pieces first[g] .. first[g + 1] - 1."""
    anchors: np.ndarray
    """int64[G, N]: a lined group's anchors in order (its ranks count them), -1 after."""
    anchor_count: np.ndarray
    """int64[G]: how many anchors a lined group has."""
    index: np.ndarray  # type: ignore[assignment]  # hides tuple.index, which no kernel calls
    """int64[G, N]: where a cell is in the lined group's `anchors`, -1 if it is not one."""
    offsets: np.ndarray
    """int64[S + 1]: where each section's ranks begin, and the number of ranks."""
    section_counts: np.ndarray
    """int64[S, G]: pieces of each group in the section's positions."""
    spans: np.ndarray
    """int64[G]: place value of a group's missing pieces in the section's number."""
    radices: np.ndarray
    """int64[S, G]: values of each group's part of the rank in the section."""
    weights: np.ndarray
    """int64[S, G]: place value of each group's part of the rank in the section."""
    exits: np.ndarray
    """uint64[1]: the exit cells (tilt moves), where no piece stands: free groups rank their
    anchors among the other cells."""
    keep: np.ndarray
    """bool[G]: tilt moves: the group's pieces must not drop out."""
    neighbours: np.ndarray
    """int64[N, 4]: the board cell next to each cell in each direction, -1 at a wall or the edge."""
    masks: np.ndarray
    """uint64[G, N]: the cells a piece covers at each anchor, 0 where it cannot stand."""
    steps: np.ndarray
    """int64[G, N, 4]: the anchor one cell away in each direction, -1 where the piece may not
    go (off its line, off the board, or not a direction it slides in)."""
    steer: np.ndarray
    """bool[G, 4]: the directions the group's pieces slide in."""
    falls: np.ndarray
    """bool[G, N, 4]: under `edge = "falls"`, a piece at that anchor sliding that way would
    leave the board's box with no wall in its way (see `SlidingPuzzle.flies_off`)."""
    ahead: np.ndarray
    """uint64[G, N, 4]: where `falls`, the board cells its next place still covers: a piece on
    one of them stops it after all."""
    goal_groups: np.ndarray
    """bool[G]: groups of the goal's letter."""
    goal_out: np.ndarray
    """bool[G]: groups whose pieces have all dropped out in a solved position."""
    goal: np.ndarray
    """uint64[1]: the goal cells, which one such piece covers in a solved position."""
    group_of: np.ndarray
    """int64[P]: each piece's group."""


def build_kernel(puzzle: SlidingPuzzle) -> Kernel:
    """The arrays of `puzzle`; four-word masks on a board of more than 64 cells."""
    n = puzzle.board.size
    words = 1 if puzzle.words == 1 else WIDE_WORDS
    groups = puzzle.groups
    g_count = len(groups)
    anchors = np.full((g_count, n), -1, dtype=np.int64)
    index = np.full((g_count, n), -1, dtype=np.int64)
    masks = np.zeros((g_count, n), dtype=object)
    steps = np.full((g_count, n, 4), -1, dtype=np.int64)
    falls = np.zeros((g_count, n, 4), dtype=np.bool_)
    ahead = np.zeros((g_count, n, 4), dtype=object)
    for gi, g in enumerate(groups):
        anchors[gi, : len(g.anchors)] = g.anchors
        if not g.free:
            index[gi, list(g.anchors)] = np.arange(len(g.anchors))
        for a in range(n):
            cells = puzzle.piece_cells(g, a)
            if cells is not None:
                masks[gi, a] = sum(1 << c for c in cells)
        for a in range(n):
            if not masks[gi, a]:
                continue
            r, c = puzzle.board.cells[a]
            for d in STEERING[g.shape.along]:
                target = puzzle.board.index.get((r + DIRECTIONS[d][0], c + DIRECTIONS[d][1]))
                if target is not None and masks[gi, target]:
                    steps[gi, a, d] = target
                cells = puzzle.flies_off(g, a, d)
                if cells is not None:
                    falls[gi, a, d] = True
                    ahead[gi, a, d] = sum(1 << cell for cell in cells)
    sections = puzzle.sections
    radices = np.array([s.radices for s in sections], dtype=np.int64).reshape(len(sections), g_count)
    weights = np.ones_like(radices)
    for gi in range(g_count - 2, -1, -1):
        weights[:, gi] = weights[:, gi + 1] * radices[:, gi + 1]
    counts = np.array([g.count for g in groups], dtype=np.int64)
    spans = np.ones(g_count, dtype=np.int64)
    for gi in range(g_count - 2, -1, -1):
        spans[gi] = spans[gi + 1] * (counts[gi + 1] - puzzle.least[gi + 1] + 1)
    neighbours = np.full((n, 4), -1, dtype=np.int64)
    for a, (r, c) in enumerate(puzzle.board.cells):
        for d, (dr, dc) in enumerate(DIRECTIONS):
            neighbours[a, d] = puzzle.board.index.get((r + dr, c + dc), -1)
    return Kernel(
        cells=n,
        words=words,
        move=MOVES.index(puzzle.move),
        metric=METRICS.index(puzzle.metric),
        free=np.array([g.free for g in groups], dtype=np.bool_),
        counts=counts,
        first=np.concatenate([[0], np.cumsum(counts)]).astype(np.int64),
        anchors=anchors,
        anchor_count=np.array([len(g.anchors) for g in groups], dtype=np.int64),
        index=index,
        offsets=np.array([s.offset for s in sections] + [puzzle.size], dtype=np.int64),
        section_counts=np.array([s.counts for s in sections], dtype=np.int64).reshape(len(sections), g_count),
        spans=spans,
        radices=radices,
        weights=weights,
        exits=packed(np.array([sum(1 << c for c in puzzle.exits)], dtype=object), words),
        keep=np.array([g.letter in puzzle.keep for g in groups], dtype=np.bool_),
        neighbours=neighbours,
        masks=packed(masks, words),
        steps=steps,
        steer=np.array([[d in STEERING[g.shape.along] for d in range(4)] for g in groups], dtype=np.bool_),
        falls=falls,
        ahead=packed(ahead, words),
        goal_groups=np.array([g.letter == puzzle.goal_letter for g in groups], dtype=np.bool_),
        goal_out=np.array([g.letter in puzzle.out for g in groups], dtype=np.bool_),
        goal=packed(np.array([sum(1 << c for c in puzzle.goal_cells)], dtype=object), words),
        group_of=np.repeat(np.arange(g_count), counts).astype(np.int64),
    )


@numba.njit(cache=True, inline="always")
def _nth_free(occupied: np.uint64, nth: int | np.int64) -> int:
    """The cell of the nth (from 0) zero bit of `occupied`."""
    cell = 0
    while True:
        if not (occupied >> np.uint64(cell)) & np.uint64(1):
            if nth == 0:
                return cell
            nth -= 1
        cell += 1


@numba.njit(cache=True, inline="always")
def place(k: Kernel, s: int, g: int, digit: int, covered: np.uint64, pos: np.ndarray) -> np.uint64:
    """Put group g's pieces of section s where its part of the rank, `digit`, says, on a board
    whose cells `covered` the exits and the groups before it hold: fill its entries of `pos`
    (-1 first for the pieces it lacks) and return the cells covered now, or 0 if a piece
    overlaps or leaves the board. (Covered cells are never 0 after a group: it has a piece,
    or pieces have dropped out, which needs exits.)"""
    n = k.cells - np.int64(bit_count(covered)) if k.free[g] else k.anchor_count[g]
    pieces = k.section_counts[s, g]
    chosen = unrank_colex_mask(digit, n, pieces)
    occupied = covered
    p = k.first[g]
    for _ in range(k.counts[g] - pieces):
        pos[p] = -1
        p += 1
    while chosen:
        i = np.int64(0)
        while not (chosen >> np.uint64(i)) & np.uint64(1):
            i += 1
        chosen &= chosen - np.uint64(1)
        a = _nth_free(covered, i) if k.free[g] else k.anchors[g, i]
        m = k.masks[g, a]
        if m == 0 or (m & occupied):
            return np.uint64(0)
        occupied |= m
        pos[p] = a
        p += 1
    return occupied


@numba.njit(cache=True, inline="always")
def fill(k: Kernel, s: int, g: int, digit: int, covered: np.ndarray, pos: np.ndarray) -> bool:
    """`place` group g on the cells covered[g, 0], writing covered[g + 1, 0]; whether it fits."""
    occupied = place(k, s, g, digit, covered[g, 0], pos)
    covered[g + 1, 0] = occupied
    return occupied != 0


@numba.njit(cache=True, inline="always")
def section_of(k: Kernel, rank: int) -> int:
    """The section holding `rank`."""
    lo, hi = 0, len(k.offsets) - 2
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if k.offsets[mid] <= rank:
            lo = mid
        else:
            hi = mid - 1
    return lo


@numba.njit(cache=True, inline="always")
def unrank(k: Kernel, rank: int, pos: np.ndarray) -> np.uint64:
    """Fill `pos` (int64[P]) with the anchors of a rank; return the occupied cells (with the
    exits), or 0 if the rank is invalid (pieces overlap or leave the board)."""
    s = section_of(k, rank)
    local = rank - k.offsets[s]
    covered = k.exits[0]
    for g in range(len(k.counts)):
        covered = place(k, s, g, (local // k.weights[s, g]) % k.radices[s, g], covered, pos)
        if covered == 0:
            break
    return covered


@numba.njit(cache=True, inline="always")
def rank(k: Kernel, pos: np.ndarray) -> np.int64:
    """The rank of a valid position; each group's entries in `pos` must be ascending."""
    s = 0
    if len(k.offsets) > 2:
        for g in range(len(k.counts)):
            for p in range(k.first[g], k.first[g + 1]):
                if pos[p] < 0:
                    s += k.spans[g]
    out = k.offsets[s]
    covered = k.exits[0]
    for g in range(len(k.counts)):
        chosen = np.uint64(0)
        for p in range(k.first[g], k.first[g + 1]):
            a = pos[p]
            if a < 0:
                continue
            if k.free[g]:
                below = (np.uint64(1) << np.uint64(a)) - np.uint64(1)
                i = a - np.int64(bit_count(covered & below))
            else:
                i = k.index[g, a]
            chosen |= np.uint64(1) << np.uint64(i)
        out += rank_colex_mask(chosen) * k.weights[s, g]
        for p in range(k.first[g], k.first[g + 1]):
            if pos[p] >= 0:
                covered |= k.masks[g, pos[p]]
    return out


@numba.njit(cache=True, inline="always")
def is_goal(k: Kernel, pos: np.ndarray) -> bool:
    for p in range(len(pos)):
        if pos[p] >= 0 and k.goal_out[k.group_of[p]]:
            return False
    goal = k.goal[0]
    if goal == 0:
        return True
    for p in range(len(pos)):
        g = k.group_of[p]
        if pos[p] >= 0 and k.goal_groups[g] and (k.masks[g, pos[p]] & goal) == goal:
            return True
    return False


@numba.njit(cache=True, inline="always")
def settle(k: Kernel, pos: np.ndarray, g: int, q: int) -> int:
    """Move the anchor at pos[q] to its place among group g's ascending anchors; return it."""
    while q > k.first[g] and pos[q - 1] > pos[q]:
        pos[q - 1], pos[q] = pos[q], pos[q - 1]
        q -= 1
    while q + 1 < k.first[g + 1] and pos[q + 1] < pos[q]:
        pos[q + 1], pos[q] = pos[q], pos[q + 1]
        q += 1
    return q


@numba.njit(cache=True, inline="always")
def _moved_rank(k: Kernel, pos: np.ndarray, p: int, target: int) -> np.int64:
    """The rank after piece p moves to anchor `target`; `pos` is as it was afterwards."""
    g = k.group_of[p]
    source = pos[p]
    pos[p] = target
    q = settle(k, pos, g, p)
    out = rank(k, pos)
    pos[q] = source
    settle(k, pos, g, q)
    return out


@numba.njit(cache=True, inline="always")
def _slides(k: Kernel, g: int, a: int, others: np.uint64, rule: int, backward: bool,
            targets: np.ndarray, costs: np.ndarray) -> int:
    """The anchors one slide takes a piece at anchor a to (or, `backward`, comes from) under
    the move `rule`, with the cells moved; returns how many."""
    steps, masks = k.steps, k.masks
    found = 0
    for d in range(4):
        if not k.steer[g, d]:
            continue
        if rule == UNTIL_BLOCKED and backward:
            # It arrived going the other way, so that way is blocked here (not open, and not
            # the edge it would fly off), and it started anywhere behind it.
            back = OPPOSITE[d]
            t = steps[g, a, back]
            if t >= 0 and (masks[g, t] & others) == 0:
                continue
            if t < 0 and k.falls[g, a, back] and (k.ahead[g, a, back] & others) == 0:
                continue
        x = a
        cells = 0
        while True:
            t = steps[g, x, d]
            if t < 0 or (masks[g, t] & others) != 0:
                break
            x = t
            cells += 1
            if rule == STEP:
                break
            if rule == LINE or backward:
                targets[found] = x
                costs[found] = cells
                found += 1
        if cells > 0 and rule == UNTIL_BLOCKED and not backward and k.falls[g, x, d] \
                and (k.ahead[g, x, d] & others) == 0:
            continue  # nothing stops it: it would fly off the board
        if cells > 0 and (rule == STEP or (rule == UNTIL_BLOCKED and not backward)):
            targets[found] = x
            costs[found] = cells
            found += 1
    return found


@numba.njit(cache=True)
def piece_moves(k: Kernel, g: int, a: int, others: np.uint64, metric: int, backward: bool,
                targets: np.ndarray, costs: np.ndarray, seen: np.ndarray, todo: np.ndarray) -> int:
    """The moves of one piece under `metric` (or, `backward`, the moves that end with it at
    a): target anchors and costs; returns how many. `seen` is int64[N] of zeros, left zero;
    `todo` is int64[N] scratch; `targets` and `costs` hold 4 N entries."""
    if metric == LINE_METRIC:
        found = _slides(k, g, a, others, k.move, backward, targets, costs)
        costs[:found] = 1
        return found
    if metric == STEP_METRIC:
        return _slides(k, g, a, others, k.move if k.move == UNTIL_BLOCKED else STEP, backward, targets, costs)
    # Piece metric: every anchor one piece reaches by slides, each costing 1.
    seen[a] = 1
    todo[0] = a
    waiting = 1
    found = 0
    while waiting:
        waiting -= 1
        x = todo[waiting]
        n = _slides(k, g, x, others, k.move, backward, targets[found:], costs[found:])
        for j in range(found, found + n):
            t = targets[j]
            if not seen[t]:
                seen[t] = 1
                todo[waiting] = t
                waiting += 1
                targets[found] = t
                costs[found] = 1
                found += 1
    seen[a] = 0
    for j in range(found):
        seen[targets[j]] = 0
    return found


@numba.njit(cache=True)
def tilts(k: Kernel, pos: np.ndarray, occupied: np.uint64, ranks: np.ndarray, costs: np.ndarray,
          scratch: np.ndarray) -> int:
    """The children of a position under tilt moves, in the order of DIRECTIONS: every piece
    slides at once, front first, until a wall, the edge or a piece already stopped blocks it,
    and drops out on passing over or stopping on an exit. A tilt that moves nothing or drops a
    piece of a kept group is no move; tilts giving the same child are one. Every tilt costs 1.
    Uses rows 0, 1 and 3 of `scratch`."""
    after = scratch[0]
    slot = scratch[1]
    pieces = k.first[-1]
    for p in range(pieces):
        if pos[p] >= 0:
            slot[pos[p]] = p
    standing = occupied & ~k.exits[0]
    found = 0
    for d in range(4):
        for p in range(pieces):
            after[p] = pos[p]
        stopped = np.uint64(0)
        moved = False
        legal = True
        for j in range(k.cells):
            # Up and left take the pieces in ascending cell order (row-major), down and right
            # in descending order: front first.
            a = j if d == 0 or d == 3 else k.cells - 1 - j
            if not (standing >> np.uint64(a)) & np.uint64(1):
                continue
            p = slot[a]
            x = a
            dropped = False
            while True:
                t = k.neighbours[x, d]
                if t < 0 or (stopped >> np.uint64(t)) & np.uint64(1):
                    break
                x = t
                if (k.exits[0] >> np.uint64(x)) & np.uint64(1):
                    dropped = True
                    break
            if x != a:
                moved = True
            if dropped:
                if k.keep[k.group_of[p]]:
                    legal = False
                    break
                after[p] = -1
            else:
                after[p] = x
                stopped |= np.uint64(1) << np.uint64(x)
        if not legal or not moved:
            continue
        for g in range(len(k.counts)):  # each group's anchors ascending, dropped ones (-1) first
            for q in range(k.first[g] + 1, k.first[g + 1]):
                x = after[q]
                i = q
                while i > k.first[g] and after[i - 1] > x:
                    after[i] = after[i - 1]
                    i -= 1
                after[i] = x
        r = rank(k, after)
        fresh = True
        for j in range(found):
            fresh &= ranks[j] != r
        if fresh:
            ranks[found] = r
            costs[found] = 1
            found += 1
    return found


@numba.njit(cache=True)
def moves(k: Kernel, pos: np.ndarray, occupied: np.uint64, metric: int, backward: bool,
          ranks: np.ndarray, costs: np.ndarray, scratch: np.ndarray) -> int:
    """The children (or, `backward`, parents) of a position under `metric`: their ranks and
    the cost of the move; returns how many. `scratch` is int64[4, 4 N] of zeros (row 2 is
    left zero), `ranks` and `costs` hold P * 4 N entries.

    Callers pass `backward`, and `metric` where it is fixed, as literals: numba compiles a
    copy for each literal value (about 3 s in a fresh cache), whose dead branches are gone.
    Taking them as values instead compiled once but made the robots analysis 1.2x slower.
    Tilt moves have forward moves only (their sweep pulls, see `sweep.expand`)."""
    if k.move == TILT:
        return tilts(k, pos, occupied, ranks, costs, scratch)
    found = 0
    for p in range(len(pos)):
        g = k.group_of[p]
        a = pos[p]
        if a < 0:  # a piece the position lacks (the file gives a range of counts)
            continue
        others = occupied & ~k.masks[g, a]
        n = piece_moves(k, g, a, others, metric, backward, scratch[0], scratch[1], scratch[2], scratch[3])
        for j in range(n):
            ranks[found] = _moved_rank(k, pos, p, scratch[0, j])
            costs[found] = scratch[1, j]
            found += 1
    return found


@numba.njit(cache=True)
def children(k: Kernel, pos: np.ndarray, occupied: np.uint64, ranks: np.ndarray, costs: np.ndarray,
             scratch: np.ndarray) -> int:
    """The children of a position under the puzzle's metric (the goal sweep's `children`)."""
    return moves(k, pos, occupied, k.metric, False, ranks, costs, scratch)


@numba.njit(cache=True)
def parents(k: Kernel, pos: np.ndarray, occupied: np.uint64, ranks: np.ndarray, costs: np.ndarray,
            scratch: np.ndarray) -> int:
    """The parents of a position under the puzzle's metric (the goal sweep's `parents`; tilt
    moves have none, their sweep pulls instead, see `sweep.expand`)."""
    return moves(k, pos, occupied, k.metric, True, ranks, costs, scratch)


@numba.njit(cache=True)
def slides(k: Kernel, pos: np.ndarray, occupied: np.uint64, ranks: np.ndarray, costs: np.ndarray,
           scratch: np.ndarray) -> int:
    """Every position one slide of the move rule away: what all_moves and the connected sets
    count (the goal sweep's `moves`)."""
    # typed, not the constant: numba would compile another copy of `moves` for a literal
    return moves(k, pos, occupied, np.int64(LINE_METRIC), False, ranks, costs, scratch)  # type: ignore[arg-type]


@numba.njit(cache=True)
def room(k: Kernel) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Scratch for `moves` (one set per thread): pos, ranks, costs, scratch."""
    pieces = k.first[-1]
    space = 4 * k.cells
    return (np.zeros(pieces, dtype=np.int64), np.zeros(pieces * space, dtype=np.int64),
            np.zeros(pieces * space, dtype=np.int64), np.zeros((4, space), dtype=np.int64))


GRAPH = Graph(unrank=unrank, children=children, parents=parents, moves=slides, room=room, is_goal=is_goal)
"""The position code the goal sweep and its walks call."""

__all__ = ["GRAPH", "Kernel", "build_kernel", "children", "fill", "is_goal", "moves", "parents", "place",
           "rank", "room", "section_of", "settle", "slides", "tilts", "unrank"]
