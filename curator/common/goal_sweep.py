"""The retrograde sweep of goal tables, and the compiled walks over them: what sliding-block
and Sokoban tables share.

A goal table holds, for every rank of a puzzle, the distance to the goal (or "not solvable",
or "not a position"), a flags byte (unique shortest solution, all moves keep it solvable) and
the connected set. Every goal position starts at distance 0; distance d's positions are taken
from their bucket, their unique bits set from their children, and their parents get distance
d + cost when that is shorter and go into that distance's bucket (Dial's algorithm; with
moves of cost 1 it is a breadth-first sweep). Moves whose parents are not cheap to list (the
tilts of sliding blocks) pull instead: their children are tabled once and each distance takes
the positions with a child at the one before (`Graph.pull`). Then all_moves, and the
connected sets.

The kernels are templates that call a pipeline's position code through slots, bound by a
`Graph` (see `curator.common.kernels`):

- `unrank(k, rank, pos)`: fill `pos` with the position of a rank; non-zero if the rank is a
  position, 0 if it is not;
- `children(k, pos, occupied, ranks, costs, scratch)` and `parents(...)`: the moves as the
  metric counts them, forwards and backwards: ranks and costs, returning how many;
- `moves(k, pos, occupied, ranks, costs, scratch)`: every legal move once (costs unused), as
  all_moves and the connected sets count them;
- `room(k)`: scratch for those (pos, ranks, costs, scratch), one set per thread;
- `is_goal(k, pos)`: whether the position is solved.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import numba
import numpy as np
from numba.core.dispatcher import Dispatcher

from curator.common.difficulty import FIGURES
from curator.common.kernels import Slot, Template, build, kernel
from curator.common.threads import WALKS, chunks, spread

INVALID = 0xFFFF
"""Distance entry of a rank that is not a position."""
UNSOLVABLE = 0xFFFE
"""Distance entry of a valid position with no way to the goal."""
MAX_DISTANCE = 0xFFFD
UNIQUE, ALL_MOVES = 1, 2
"""Bits of a position's flags byte."""
NO_CLUSTER = 0xFFFFFFFF
"""Cluster entry of a rank that is not a position."""
CHUNK = 1 << 14
"""Ranks per chunk of a kernel's work that threads share (see `curator.common.threads`)."""
RELAX_ENTRIES = 1 << 21
"""Parents gathered per call of the relaxing kernel (a buffer of int64)."""

Progress = Callable[[int, int], None]
"""Called with (distance, positions) as each distance is finished."""

unrank = Slot("unrank")
children = Slot("children")
parents = Slot("parents")
moves = Slot("moves")
room = Slot("room")
is_goal = Slot("is_goal")


@dataclass(frozen=True)
class Graph:
    """A pipeline's compiled position code (see the module's slots), and the sweep and the
    walks of the kernels here over it."""

    unrank: Dispatcher
    children: Dispatcher
    parents: Dispatcher
    moves: Dispatcher
    room: Dispatcher
    is_goal: Dispatcher

    def build(self, template: Template) -> Dispatcher:
        """The compiled copy of `template` calling this pipeline's code (bound to the slots it
        names, so that its cache entries stay with the functions it calls)."""
        names = set(template.py_func.__code__.co_names)
        return build(template, **{slot: code for slot, code in self.__dict__.items() if slot in names})

    def scan(self, k: Any, size: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The distance table before the sweep, the zeroed flags and the solved ranks, found by
        unranking every rank (for tables whose ranks are mostly positions)."""
        distances = np.full(size, INVALID, dtype=np.uint16)
        spread(self.build(_scan), k, distances, shares=chunks(size, CHUNK))
        return distances, np.zeros(size, dtype=np.uint8), np.flatnonzero(distances == 0)

    def expand(self, k: Any, distances: np.ndarray, flags: np.ndarray, first: int,
               solved: np.ndarray | None = None) -> Iterator[tuple[int, int]]:
        """Sweep distances first, first + 1, ... (those before are done; `solved` lists the
        ranks at distance 0 when first is 0, else the given distances are read from the
        table): yield (distance, positions) for each distance that has positions."""
        buckets: dict[int, list[np.ndarray]] = {}
        waiting = solved if solved is not None else self.build(_pending)(distances, first)
        _file(buckets, distances, waiting)
        most = len(self.room(k)[1])
        per_call = max(1, RELAX_ENTRIES // most)
        given = np.empty(per_call * most, dtype=np.int64)
        unique, relax = self.build(_unique), self.build(_relax)
        while buckets:
            distance = min(buckets)
            if distance > MAX_DISTANCE - 64:
                raise OverflowError(f"distances beyond {MAX_DISTANCE - 64} are not supported")
            ranks = np.unique(np.concatenate(buckets.pop(distance)))
            ranks = ranks[distances[ranks] == distance]  # those given a shorter distance since left
            if not len(ranks):
                continue
            spread(unique, k, distances, flags, ranks, distance, shares=chunks(len(ranks), CHUNK))
            for at in range(0, len(ranks), per_call):
                found = relax(k, distances, ranks[at:at + per_call], distance, given)
                _file(buckets, distances, given[:found].copy())
            yield distance, len(ranks)

    def pull(self, k: Any, distances: np.ndarray, flags: np.ndarray, first: int,
             solved: np.ndarray | None, width: int) -> Iterator[tuple[int, int]]:
        """`expand` for moves that cost 1 and whose parents are not enumerated (tilts): every
        position's children (`moves`, at most `width` of them) are tabled once, then each
        distance d takes the positions not reached yet that have a child at d - 1."""
        table = np.empty((len(distances), width), dtype=np.int32)
        spread(self.build(_children), k, distances, table, shares=chunks(len(distances), CHUNK))
        unique, pull = self.build(_unique), self.build(_pull)
        distance = first
        if first == 0:
            ranks = solved if solved is not None else np.flatnonzero(distances == 0)
            spread(unique, k, distances, flags, ranks, 0, shares=chunks(len(ranks), CHUNK))
            if len(ranks):
                yield 0, len(ranks)
            distance = 1
        while True:
            if distance > MAX_DISTANCE - 64:
                raise OverflowError(f"distances beyond {MAX_DISTANCE - 64} are not supported")
            spread(pull, table, distances, distance, shares=chunks(len(distances), CHUNK))
            ranks = np.flatnonzero(distances == distance)
            if not len(ranks):
                return
            spread(unique, k, distances, flags, ranks, distance, shares=chunks(len(ranks), CHUNK))
            yield distance, len(ranks)
            distance += 1

    def finish(self, k: Any, distances: np.ndarray, flags: np.ndarray) -> np.ndarray:
        """Set the all_moves bits; return the clusters."""
        spread(self.build(_all_moves), k, distances, flags, shares=chunks(len(distances), CHUNK))
        clusters: np.ndarray = self.build(_clusters)(k, distances)
        return clusters

    def solutions(self, k: Any, distances: np.ndarray, ranks: np.ndarray, longest: int
                  ) -> list[list[int] | None]:
        """For each rank, the ranks its shortest solution passes through (None if it has
        none): each step takes the first move in the pipeline's move order whose child's
        distance plus the move's cost is the position's distance. ValueError if a walk gets
        stuck: the tables do not belong to these moves."""
        _, _, lengths, steps = self._walked(k, distances, ranks, longest, np.zeros(0), 0.0, True)
        if (lengths == -2).any():
            raise ValueError("a stored distance has no move leading one step closer")
        return [None if n < 0 else steps[i, :n].tolist() for i, n in enumerate(lengths)]

    def measure(self, k: Any, distances: np.ndarray, ranks: np.ndarray, longest: int, lookaheads: np.ndarray,
                sight: float) -> tuple[np.ndarray, np.ndarray]:
        """The player model (`curator.common.difficulty`) along each position's shortest
        solution, as `solutions` walks it: moves = its distance; at each step with R moves that
        start a shortest solution, every other move the player cannot see through (it shows
        once the goal is in sight, d - 1 moves after it) adds cost / (R + 1) positions tried: a
        detour what it adds to the distance (the player comes back the shortest way), a move
        into a position that cannot be solved 1 (its own position: the tables do not say how
        far it leads, so this is a bound below); first = log2(legal moves of the position).
        Returns float[ranks, lookaheads, FIGURES] (zeros for a position not solvable) and the counts
        int[ranks, 6] of `curator.common.difficulty.walked_terms` for a player reading `sight`
        moves ahead."""
        out, terms, _, _ = self._walked(k, distances, ranks, longest, lookaheads, sight, False)
        return out, terms

    def _walked(self, k: Any, distances: np.ndarray, ranks: np.ndarray, longest: int, lookaheads: np.ndarray,
                sight: float, record: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """What `_walk` fills: the player model, its counts, the walks' lengths and their steps."""
        ranks = np.ascontiguousarray(ranks, dtype=np.int64)
        lookaheads = np.ascontiguousarray(lookaheads, dtype=np.float64)
        out = np.zeros((len(ranks), len(lookaheads), FIGURES))  # no knock-ons: one piece a move
        terms = np.zeros((len(ranks), 6), dtype=np.int64)
        lengths = np.full(len(ranks), -1, dtype=np.int64)
        steps = np.zeros((len(ranks) if record else 0, max(longest, 1)), dtype=np.int64)
        spread(self.build(_walk), k, distances, ranks, longest, lookaheads, float(sight), record,
               out, terms, lengths, steps, shares=chunks(len(ranks), WALKS))
        return out, terms, lengths, steps

    def recheck(self, k: Any, distances: np.ndarray, flags: np.ndarray, clusters: np.ndarray,
                ranks: np.ndarray) -> list[tuple[int, list[str]]]:
        """The ranks whose stored entries do not follow from their children's, each with what
        is wrong (see RECHECKED)."""
        wrong = np.zeros(len(ranks), dtype=np.int64)
        spread(self.build(_recheck), k, distances, flags, clusters, np.asarray(ranks, dtype=np.int64), wrong,
               shares=chunks(len(ranks), WALKS))
        return [(int(r), [name for bit, name in enumerate(RECHECKED) if w >> bit & 1])
                for r, w in zip(ranks, wrong) if w]


# -- the sweep ------------------------------------------------------------------------------


@kernel(nogil=True)
def _scan(k: Any, distances: np.ndarray, start: int, step: int) -> None:
    """Mark every position solved (0) or not yet solvable, the other ranks staying invalid
    (chunks start, start + step, ...: see `curator.common.threads`; so for every kernel below
    that takes a start and a step)."""
    size = len(distances)
    pos = room(k)[0]
    for chunk in range(start, (size + CHUNK - 1) // CHUNK, step):
        for r in range(chunk * CHUNK, min(size, (chunk + 1) * CHUNK)):
            if unrank(k, r, pos) != 0:
                distances[r] = 0 if is_goal(k, pos) else UNSOLVABLE


@kernel
def _pending(distances: np.ndarray, first: int) -> np.ndarray:
    """The ranks whose distance is at least `first` (given, not yet swept), ascending."""
    count = 0
    for r in range(len(distances)):
        if first <= distances[r] < UNSOLVABLE:
            count += 1
    out = np.empty(count, dtype=np.int64)
    at = 0
    for r in range(len(distances)):
        if first <= distances[r] < UNSOLVABLE:
            out[at] = r
            at += 1
    return out


@kernel(nogil=True)
def _unique(k: Any, distances: np.ndarray, flags: np.ndarray, ranks: np.ndarray, distance: int,
            start: int, step: int) -> None:
    """Set the unique bit of the positions `ranks`, all at `distance`: exactly one child lies
    on a shortest solution, and it is unique itself (solved positions are unique)."""
    pos, found, costs, scratch = room(k)
    for chunk in range(start, (len(ranks) + CHUNK - 1) // CHUNK, step):
        for i in range(chunk * CHUNK, min(len(ranks), (chunk + 1) * CHUNK)):
            r = ranks[i]
            if distance == 0:
                flags[r] |= UNIQUE
                continue
            occupied = unrank(k, r, pos)
            n = children(k, pos, occupied, found, costs, scratch)
            on_path = 0
            last = -1
            for j in range(n):
                c = found[j]
                if distances[c] < UNSOLVABLE and distances[c] + costs[j] == distance:
                    on_path += 1
                    last = c
            if on_path == 1 and flags[last] & UNIQUE:
                flags[r] |= UNIQUE


@kernel
def _relax(k: Any, distances: np.ndarray, ranks: np.ndarray, distance: int, given: np.ndarray) -> int:
    """Give the parents of the positions `ranks` (at `distance`) distance + cost where that is
    shorter; write their ranks into `given` and return how many."""
    pos, found, costs, scratch = room(k)
    out = 0
    for i in range(len(ranks)):
        occupied = unrank(k, ranks[i], pos)
        n = parents(k, pos, occupied, found, costs, scratch)
        for j in range(n):
            p = found[j]
            d = distance + costs[j]
            if distances[p] > d:
                distances[p] = d
                given[out] = p
                out += 1
    return out


@kernel(nogil=True)
def _children(k: Any, distances: np.ndarray, table: np.ndarray, start: int, step: int) -> None:
    """Every position's children (`moves`; -1 after them)."""
    size = len(distances)
    pos, found, costs, scratch = room(k)
    for chunk in range(start, (size + CHUNK - 1) // CHUNK, step):
        for r in range(chunk * CHUNK, min(size, (chunk + 1) * CHUNK)):
            table[r, :] = -1
            if distances[r] == INVALID:
                continue
            occupied = unrank(k, r, pos)
            n = moves(k, pos, occupied, found, costs, scratch)
            for j in range(n):
                table[r, j] = found[j]


@kernel(nogil=True)
def _pull(table: np.ndarray, distances: np.ndarray, distance: int, start: int, step: int) -> None:
    """Give `distance` to every position not reached yet with a child at distance - 1 (the
    entries written now are neither, so the threads need not wait for each other)."""
    size = len(distances)
    for chunk in range(start, (size + CHUNK - 1) // CHUNK, step):
        for r in range(chunk * CHUNK, min(size, (chunk + 1) * CHUNK)):
            if distances[r] != UNSOLVABLE:
                continue
            for j in range(table.shape[1]):
                c = table[r, j]
                if c >= 0 and distances[c] == distance - 1:
                    distances[r] = distance
                    break


@kernel(nogil=True)
def _all_moves(k: Any, distances: np.ndarray, flags: np.ndarray, start: int, step: int) -> None:
    """Set the all_moves bit of the positions not solved with a move, all of whose moves keep
    them solvable."""
    size = len(distances)
    pos, found, costs, scratch = room(k)
    for chunk in range(start, (size + CHUNK - 1) // CHUNK, step):
        for r in range(chunk * CHUNK, min(size, (chunk + 1) * CHUNK)):
            if distances[r] == INVALID or distances[r] == 0:
                continue
            occupied = unrank(k, r, pos)
            n = moves(k, pos, occupied, found, costs, scratch)
            ok = n > 0
            for j in range(n):
                ok &= distances[found[j]] < UNSOLVABLE
            if ok:
                flags[r] |= ALL_MOVES


@numba.njit(cache=True)
def _root(parent: np.ndarray, x: int) -> int:
    while parent[x] != x:
        parent[x] = parent[parent[x]]
        x = parent[x]
    return x


@kernel
def _clusters(k: Any, distances: np.ndarray) -> np.ndarray:
    """Each rank's connected set, numbered 0, 1, ... in order of its smallest rank
    (NO_CLUSTER for ranks that are not positions). Moves join positions in both directions."""
    size = len(distances)
    parent = np.arange(size, dtype=np.uint32)
    pos, found, costs, scratch = room(k)
    for r in range(size):
        if distances[r] == INVALID:
            continue
        occupied = unrank(k, r, pos)
        n = moves(k, pos, occupied, found, costs, scratch)
        for j in range(n):
            a = _root(parent, r)
            b = _root(parent, found[j])
            if a != b:
                parent[max(a, b)] = min(a, b)
    # Every set's root is its smallest rank and every parent is a smaller rank. In ascending
    # order a rank's parent has already been replaced by its set's number: copy it.
    count = 0
    for r in range(size):
        if distances[r] == INVALID:
            parent[r] = NO_CLUSTER
        elif parent[r] == r:
            parent[r] = count
            count += 1
        else:
            parent[r] = parent[parent[r]]
    return parent


def _file(buckets: dict[int, list[np.ndarray]], distances: np.ndarray, ranks: np.ndarray) -> None:
    """Put ranks into the buckets of their (tentative) distances."""
    values = distances[ranks]
    for value in np.unique(values):
        buckets.setdefault(int(value), []).append(ranks[values == value])


# -- walks over stored tables ---------------------------------------------------------------


@kernel(nogil=True)
def _walk(k: Any, distances: np.ndarray, ranks: np.ndarray, longest: int, lookaheads: np.ndarray,
          sight: float, record: bool, out: np.ndarray, terms: np.ndarray, lengths: np.ndarray,
          steps: np.ndarray, start: int, step: int) -> None:
    """Walk each position's shortest solution as `Graph.solutions` says. Fills the player
    model along it (see `Graph.measure`): `out` float[rank, lookahead, FIGURES] and `terms`
    int[rank, 6]; its number of steps, `lengths` (-1, as given: not solvable, -2: the walk got
    stuck, the tables are damaged); and, when `record`, the ranks it passes through (after the
    position) in `steps`, int[rank, longest]. Chunks of WALKS ranks."""
    pos, found, costs, scratch = room(k)
    for chunk in range(start, (len(ranks) + WALKS - 1) // WALKS, step):
        for i in range(chunk * WALKS, min(len(ranks), (chunk + 1) * WALKS)):
            r = ranks[i]
            d = np.int64(distances[r])
            if d >= UNSOLVABLE:
                continue
            out[i, :, 0] = d
            out[i, :, 1] = d
            s = 0
            while d > 0 and s < longest:
                n = children(k, pos, unrank(k, r, pos), found, costs, scratch)
                following = -1
                right = 0
                for j in range(n):
                    if distances[found[j]] < UNSOLVABLE and distances[found[j]] + costs[j] == d:
                        right += 1
                        if following < 0:
                            following = found[j]
                if following < 0:
                    break
                if s == 0:
                    out[i, :, 2] = np.log2(n)
                show = d - 1.0  # a wrong move shows once the goal is in sight
                hidden = min(max(sight - show, 0.0), 1.0) < 1.0
                for j in range(n):
                    dead = distances[found[j]] >= UNSOLVABLE
                    if not dead and distances[found[j]] + costs[j] == d:
                        continue
                    cost = 1.0 if dead else float(distances[found[j]] + costs[j] - d)
                    for g in range(len(lookaheads)):
                        out[i, g, 1] += (1.0 - min(max(lookaheads[g] - show, 0.0), 1.0)) * cost / (right + 1)
                    if hidden and dead:
                        terms[i, 3] += 1
                    elif hidden:
                        terms[i, 1] += 1
                        if cost >= 2:
                            terms[i, 2] += 1
                if n == 1:
                    terms[i, 4] += 1
                terms[i, 5] += n
                if record:
                    steps[i, s] = following
                s += 1
                r = following
                d = np.int64(distances[r])
            terms[i, 0] = s
            lengths[i] = s if d == 0 else -2


@kernel(nogil=True)
def _recheck(k: Any, distances: np.ndarray, flags: np.ndarray, clusters: np.ndarray,
             ranks: np.ndarray, wrong: np.ndarray, start: int, step: int) -> None:
    """For each rank, what of its stored entries does not follow from its children's under the
    rules, into `wrong`: bit 0 validity, 1 distance, 2 unique, 3 all_moves, 4 connected set
    (0: all agree). Chunks of WALKS ranks."""
    pos, found, costs, scratch = room(k)
    for chunk in range(start, (len(ranks) + WALKS - 1) // WALKS, step):
        for i in range(chunk * WALKS, min(len(ranks), (chunk + 1) * WALKS)):
            r = ranks[i]
            occupied = unrank(k, r, pos)
            if (occupied == 0) != (distances[r] == INVALID) or (occupied == 0) != (clusters[r] == NO_CLUSTER):
                wrong[i] = 1
                continue
            if occupied == 0:
                continue
            n = children(k, pos, occupied, found, costs, scratch)
            d = np.int64(distances[r])
            best = np.int64(UNSOLVABLE)
            on_path = 0
            last = -1
            for j in range(n):
                c = found[j]
                if distances[c] < UNSOLVABLE:
                    best = min(best, np.int64(distances[c]) + costs[j])
                    if np.int64(distances[c]) + costs[j] == d:
                        on_path += 1
                        last = c
            goal = is_goal(k, pos)
            if (goal and d != 0) or (not goal and d != best):
                wrong[i] |= 2
            unique = goal or (d < UNSOLVABLE and on_path == 1 and (flags[last] & UNIQUE) != 0)
            if unique != ((flags[r] & UNIQUE) != 0):
                wrong[i] |= 4
            n = moves(k, pos, occupied, found, costs, scratch)
            every = n > 0 and not goal
            for j in range(n):
                every &= distances[found[j]] < UNSOLVABLE
                if clusters[found[j]] != clusters[r]:
                    wrong[i] |= 16
            if every != ((flags[r] & ALL_MOVES) != 0):
                wrong[i] |= 8


RECHECKED = ("valid", "distance", "unique", "all_moves", "connected set")
"""What each bit of a rechecked rank names."""


# -- filters over whole tables --------------------------------------------------------------


def matching(distances: np.ndarray, flags: np.ndarray, clusters: np.ndarray, sizes: np.ndarray,
             distance: tuple[int, int], unique: bool, all_moves: bool, cluster: tuple[int, int] | None,
             hardest: bool) -> np.ndarray:
    """The ranks of the solvable positions that pass the filters, farthest first then by rank;
    with `hardest`, only the first of each connected set."""
    keep = (distances >= distance[0]) & (distances <= distance[1]) & (distances < UNSOLVABLE)
    if unique:
        keep &= (flags & UNIQUE) > 0
    if all_moves:
        keep &= (flags & ALL_MOVES) > 0
    ranks = np.flatnonzero(keep)
    if cluster is not None:
        size = sizes[clusters[ranks]]
        ranks = ranks[(size >= cluster[0]) & (size <= cluster[1])]
    order = np.lexsort((ranks, -distances[ranks].astype(np.int64)))
    ranks = ranks[order]
    if hardest:
        _, first = np.unique(clusters[ranks], return_index=True)
        ranks = ranks[np.sort(first)]
    return ranks


def cluster_sizes(clusters: np.ndarray) -> np.ndarray:
    """The number of positions in each connected set."""
    return np.bincount(clusters[clusters != NO_CLUSTER])
