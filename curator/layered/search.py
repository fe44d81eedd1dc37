"""Questions about single positions: exact solution counts, first-move figures, one solution.

From a position, every reachable position is generated tier by tier down to the goal
(compiled move generation over whole levels); children the stored layers mark unsolvable
are pruned. Where many children fall in a stored tier they are de-duplicated in a bitmap of
the tier, else by sorting. Solution counts then flow back up in a compiled pass over each
tier (see `curator.layered.counting`).

Above the stored layers nothing prunes the search, and the tiers can grow to billions of
positions. There a tier is built a chunk of parents at a time, its positions are counted as
they come, and the search stops with `SearchTooLarge` once it holds more than its bound
(`curator.common.bounds.Search`, by default `SEARCH_LIMIT` positions), naming how far to analyze first.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import cast

import numba
import numpy as np

from curator.common.bounds import Search
from curator.common.errors import SearchTooLarge
from curator.common.kernels import Slot, build, kernel
from curator.common.ranking import rank_colex_mask, rank_colex_wide, to_words
from curator.common.resources import bytes_text
from curator.layered.counting import (
    DENSE_WORDS,
    Index,
    board_key,
    board_key_wide,
    board_mask,
    board_wide_mask,
    count_boards,
    count_masks,
    reachable_masks,
)
from curator.layered.level import Move, Report
from curator.layered.puzzle import Puzzle
from curator.layered.space import Layer, StateSpace, tier_offsets
from curator.layered.sweep import concatenate_tier
from curator.rules import MAX_CHILDREN
from curator.rules.base import decode_move

children = Slot("children")
"""`Rules.children`, bound per family by `build` (see curator.common.kernels)."""

POSITION_BYTES = 64
"""Memory per position searched above the stored layers, about: its key, its state and its
count, and its share of the children being sorted (measured peaks stay below it)."""
PARENTS = 1 << 16
"""Positions expanded at a time above the stored layers, so the bound is checked as a tier
grows and its children never all wait to be sorted at once."""


@numba.njit(cache=True)
def _grow(array, size):
    bigger = np.empty(max(size, 2 * array.shape[0]), dtype=array.dtype)
    for i in range(array.shape[0]):  # a loop: a slice copy compiles a costly error path
        bigger[i] = array[i]
    return bigger


@kernel
def _expand_masks(tables, masks):
    buf = np.empty(MAX_CHILDREN, dtype=np.uint64)
    buf_moves = np.empty(MAX_CHILDREN, dtype=np.int64)
    parents = np.empty(16, dtype=np.int64)
    kids = np.empty(16, dtype=np.uint64)
    moves = np.empty(16, dtype=np.int64)
    total = 0
    for i in range(masks.shape[0]):
        count = children(masks[i], tables, buf, buf_moves)
        if total + count > parents.shape[0]:
            parents = _grow(parents, total + count)
            kids = _grow(kids, total + count)
            moves = _grow(moves, total + count)
        for j in range(count):
            parents[total] = i
            kids[total] = buf[j]
            moves[total] = buf_moves[j]
            total += 1
    return parents[:total], kids[:total], moves[:total]


@kernel
def _expand_boards(tables, boards):
    n = boards.shape[1]
    buf_masks = np.empty(MAX_CHILDREN, dtype=np.uint64)
    buf = np.empty((MAX_CHILDREN, n), dtype=np.int8)
    removed = np.empty(MAX_CHILDREN, dtype=np.int64)
    buf_moves = np.empty(MAX_CHILDREN, dtype=np.int64)
    parents = np.empty(16, dtype=np.int64)
    kids = np.empty((16, n), dtype=np.int8)
    moves = np.empty(16, dtype=np.int64)
    total = 0
    for i in range(boards.shape[0]):
        count = children(board_mask(boards[i]), boards[i], tables, buf_masks, buf, removed, buf_moves)
        if total + count > parents.shape[0]:
            size = max(total + count, 2 * parents.shape[0])
            parents = _grow(parents, size)
            moves = _grow(moves, size)
            bigger = np.empty((size, n), dtype=np.int8)
            for r in range(total):  # element loops: a slice copy compiles a costly error path
                for cell in range(n):
                    bigger[r, cell] = kids[r, cell]
            kids = bigger
        for j in range(count):
            parents[total] = i
            for cell in range(n):
                kids[total, cell] = buf[j, cell]
            moves[total] = buf_moves[j]
            total += 1
    return parents[:total], kids[:total], moves[:total]


@kernel
def _expand_wide_masks(tables, masks):
    """`_expand_masks` on multi-word masks (one row per position)."""
    words = masks.shape[1]
    buf = np.empty((MAX_CHILDREN, words), dtype=np.uint64)
    buf_moves = np.empty(MAX_CHILDREN, dtype=np.int64)
    parents = np.empty(16, dtype=np.int64)
    kids = np.empty((16, words), dtype=np.uint64)
    moves = np.empty(16, dtype=np.int64)
    total = 0
    for i in range(masks.shape[0]):
        count = children(masks[i], tables, buf, buf_moves)
        if total + count > parents.shape[0]:
            size = max(total + count, 2 * parents.shape[0])
            parents = _grow(parents, size)
            moves = _grow(moves, size)
            bigger = np.empty((size, words), dtype=np.uint64)
            for r in range(total):  # element loops: a slice copy compiles a costly error path
                for w in range(words):
                    bigger[r, w] = kids[r, w]
            kids = bigger
        for j in range(count):
            parents[total] = i
            for w in range(words):
                kids[total, w] = buf[j, w]
            moves[total] = buf_moves[j]
            total += 1
    return parents[:total], kids[:total], moves[:total]


@kernel
def _expand_wide_boards(tables, boards, words):
    """`_expand_boards` on boards of more than 64 cells (multi-word masks)."""
    n = boards.shape[1]
    mask = np.empty(words, dtype=np.uint64)
    buf_masks = np.empty((MAX_CHILDREN, words), dtype=np.uint64)
    buf = np.empty((MAX_CHILDREN, n), dtype=np.int8)
    removed = np.empty(MAX_CHILDREN, dtype=np.int64)
    buf_moves = np.empty(MAX_CHILDREN, dtype=np.int64)
    parents = np.empty(16, dtype=np.int64)
    kids = np.empty((16, n), dtype=np.int8)
    moves = np.empty(16, dtype=np.int64)
    total = 0
    for i in range(boards.shape[0]):
        count = children(board_wide_mask(boards[i], mask), boards[i], tables, buf_masks, buf, removed,
                         buf_moves)
        if total + count > parents.shape[0]:
            size = max(total + count, 2 * parents.shape[0])
            parents = _grow(parents, size)
            moves = _grow(moves, size)
            bigger = np.empty((size, n), dtype=np.int8)
            for r in range(total):
                for cell in range(n):
                    bigger[r, cell] = kids[r, cell]
            kids = bigger
        for j in range(count):
            parents[total] = i
            for cell in range(n):
                kids[total, cell] = buf[j, cell]
            moves[total] = buf_moves[j]
            total += 1
    return parents[:total], kids[:total], moves[:total]


@kernel
def _wide_board_keys(boards, radix, offsets):
    """`_board_keys` on boards of more than 64 cells."""
    keys = np.empty(boards.shape[0], dtype=np.int64)
    counts = np.empty(radix.shape[0], dtype=np.int64)
    seq = np.empty(boards.shape[1], dtype=np.int64)
    for i in range(boards.shape[0]):
        keys[i] = board_key_wide(boards[i], radix, offsets, counts, seq)
    return keys


@kernel
def _wide_mask_keys(masks):
    keys = np.empty(masks.shape[0], dtype=np.int64)
    for i in range(masks.shape[0]):
        keys[i] = rank_colex_wide(masks[i])
    return keys


@kernel
def _board_keys(boards, radix, offsets):
    """Index of each board within its tier: layer offset + rank within the layer."""
    keys = np.empty(boards.shape[0], dtype=np.int64)
    counts = np.empty(radix.shape[0], dtype=np.int64)
    seq = np.empty(boards.shape[1], dtype=np.int64)
    for i in range(boards.shape[0]):
        keys[i] = board_key(boards[i], radix, offsets, counts, seq)
    return keys


@kernel
def _mask_keys(masks):
    keys = np.empty(masks.shape[0], dtype=np.int64)
    for i in range(masks.shape[0]):
        keys[i] = rank_colex_mask(masks[i])
    return keys


@dataclass(frozen=True)
class Tier:
    """The positions reachable at one depth: states (masks, or boards for typed pieces) in
    increasing order of their keys within their tier."""

    states: np.ndarray
    keys: np.ndarray
    pieces: int

    @property
    def size(self) -> int:
        return int(self.keys.shape[0])


@dataclass(frozen=True)
class Estimate:
    """The tiers a search walks above the stored layers, before it runs."""

    pieces: int
    """Pieces of the position searched from."""
    stored: int | None
    """Piece count of the highest stored tier it reaches (None: nothing stored below it)."""
    bounds: tuple[int, ...]
    """At most this many positions per tier, from the position's own tier down: the tier's
    size (every placement of that many pieces) and at most `MAX_CHILDREN` times the tier
    above."""

    @property
    def positions(self) -> int:
        return sum(self.bounds)

    def text(self, limit: int | None) -> str:
        """The estimate in one line."""
        down = ("down to the goal" if self.stored is None
                else f"down to the stored layers ({self.stored} pieces)")
        tiers = len(self.bounds)
        line = (f"search from {self.pieces} pieces {down}: at most {self.positions:,} positions in "
                f"{tiers} tier{'' if tiers == 1 else 's'} above the stored layers, about "
                f"{bytes_text(self.positions * POSITION_BYTES)}")
        if limit is not None and limit < self.positions:
            line += f"; it stops past {limit:,} positions (about {bytes_text(limit * POSITION_BYTES)})"
        return line


class _Budget:
    """The positions a search holds above the stored layers, against its bound."""

    def __init__(self, search: Search) -> None:
        self.search = search
        self.searched = 0

    def check(self, tier: int, pieces: int) -> None:
        """Count a tier holding `tier` positions (`pieces` each) so far: SearchTooLarge if
        the positions before it and these pass the limit; else report the progress."""
        total = self.searched + tier
        limit = self.search.search_limit
        if limit is not None and total > limit:
            raise SearchTooLarge(
                f"the search would pass {limit:,} positions above the stored layers ({self.searched:,} in "
                f"the tiers above {pieces} pieces, {tier:,} and counting at {pieces})", max(pieces, 1))
        if self.search.progress is not None:
            self.search.progress(total, limit or total)

    def done(self, tier: int) -> None:
        """A tier of `tier` positions is complete."""
        self.searched += tier


class Explorer:
    """Explores positions of one puzzle, using stored layers (if given) to prune."""

    def __init__(self, puzzle: Puzzle, stored: dict[Layer, np.ndarray] | None = None) -> None:
        self.puzzle = puzzle
        self.space = StateSpace(puzzle)
        self.rules = puzzle.rules
        self.tables = self.rules.tables()
        self.stored = stored or {}
        self.allowed = puzzle.goal.cells_mask(puzzle.board.size)
        self.words = self.rules.mask_words
        """Words per mask: on wider boards than 64 cells, masks are rows of `words` words."""
        self._tier_words: dict[int, np.ndarray | None] = {}

    # -- positions as arrays ---------------------------------------------------------------

    def _states(self, position: Sequence[int]) -> np.ndarray:
        if self.rules.typed:
            return np.array([position], dtype=np.int8)
        mask = sum(1 << i for i, v in enumerate(position) if v)
        if self.words > 1:
            return to_words(mask, self.words)[None, :]
        return np.array([mask], dtype=np.uint64)

    def _expand(self, states: np.ndarray):
        if self.words > 1:
            if self.rules.typed:
                expand = build(_expand_wide_boards, children=self.rules.children)
                return expand(self.tables, states, self.words)
            return build(_expand_wide_masks, children=self.rules.children)(self.tables, states)
        if self.rules.typed:
            return build(_expand_boards, children=self.rules.children)(self.tables, states)
        return build(_expand_masks, children=self.rules.children)(self.tables, states)

    def _keys(self, states: np.ndarray, pieces: int) -> np.ndarray:
        """The key of each position (`pieces` pieces each) within its tier."""
        if not self.rules.typed:
            return build(_mask_keys if self.words == 1 else _wide_mask_keys)(states)
        return build(_board_keys if self.words == 1 else _wide_board_keys)(states, *self._key_tables(pieces))

    def _key_tables(self, pieces: int) -> tuple[np.ndarray, np.ndarray]:
        """(radix, offsets) of `board_key` for the tier with `pieces` pieces."""
        radix = np.array(self.space.limits, dtype=np.int64) + 1
        offsets = np.zeros(int(np.prod(radix)), dtype=np.int64)
        for counts, start in tier_offsets(self.space.layers_with(pieces)).items():
            slot = 0
            for t, c in enumerate(counts):
                slot = slot * radix[t] + c
            offsets[slot] = start
        return radix, offsets

    def _masks(self, states: np.ndarray) -> np.ndarray:
        if not self.rules.typed:
            return states
        weights = np.uint64(1) << np.arange(states.shape[1], dtype=np.uint64)
        return ((states != 0).astype(np.uint64) * weights).sum(axis=1, dtype=np.uint64)

    def _goal(self, states: np.ndarray) -> np.ndarray:
        if self.words > 1:
            return self._wide_goal(states)
        ok = (self._masks(states) & ~np.uint64(self.allowed)) == 0
        piece = self.puzzle.goal.piece
        if piece is not None:
            ok &= ((states == 0) | (states == piece)).all(axis=1)
        return ok

    def _wide_goal(self, states: np.ndarray) -> np.ndarray:
        """`_goal` on boards of more than 64 cells: states are mask rows, or boards."""
        if not self.rules.typed:
            return ((states & ~to_words(self.allowed, self.words)) == 0).all(axis=1)
        allowed = np.array([self.allowed >> c & 1 for c in range(states.shape[1])], dtype=bool)
        piece = self.puzzle.goal.piece
        ok = (states == 0) | allowed
        if piece is not None:
            ok &= (states == 0) | (states == piece)
        return ok.all(axis=1)

    def _tier_words_of(self, pieces: int) -> np.ndarray | None:
        """The stored solvable words of every layer with `pieces` pieces, end to end (kept
        for the explorer's life: one explorer serves many questions about one puzzle)."""
        if pieces not in self._tier_words:
            layers = self.space.layers_with(pieces)
            stored = layers and all(layer in self.stored for layer in layers)
            self._tier_words[pieces] = (
                concatenate_tier([self.stored[layer] for layer in layers]) if stored else None
            )
        return self._tier_words[pieces]

    def _known_solvable(self, keys: np.ndarray, pieces: int) -> np.ndarray | None:
        words = self._tier_words_of(pieces)
        if words is None:
            return None
        return ((words[keys >> 6] >> (keys & 63).astype(np.uint64)) & np.uint64(1)).astype(bool)

    # -- the question ------------------------------------------------------------------------

    def report(self, position: Sequence[int], exact: bool = False, search: Search | None = None) -> Report:
        """Solvability, exact solution count, first-move figures and one solution.

        Counts are summed in compiled code as uint64, and with Python integers from the first
        depth where a count would pass 2**64; `exact` sums with Python integers throughout.
        Above the stored layers the search holds at most `search.search_limit` positions (default
        `SEARCH_LIMIT`), else it raises SearchTooLarge."""
        goal = self.puzzle.goal
        pieces = sum(1 for v in position if v)
        states = self._states(position)
        if pieces <= goal.pieces:
            solved = pieces == goal.pieces and bool(self._goal(states)[0])
            return Report(pieces, solved, solved, False, int(solved), 0, 0, [])
        search = search or Search()
        if search.note is not None:
            plan = self.estimate(pieces)
            if search.search_limit is None or plan.positions > search.search_limit:
                search.note(plan.text(search.search_limit))
        tiers = self._tiers(states, pieces, _Budget(search))
        counts = self._count(tiers, self._goal(tiers[-1].states).astype(np.uint64), exact)
        return self._summarise(tiers, counts)

    def estimate(self, pieces: int) -> Estimate:
        """The tiers a search from a position of `pieces` pieces walks above the stored layers,
        with a bound on each (see `Estimate`)."""
        bounds = [1]
        stored = None
        for k in range(pieces - 1, self.puzzle.goal.pieces - 1, -1):
            if self._tier_words_of(k) is not None:
                stored = k
                break
            size = sum(layer.size for layer in self.space.layers_with(k))
            bounds.append(min(size, bounds[-1] * MAX_CHILDREN))
        return Estimate(pieces, stored, tuple(bounds))

    def _tiers(self, states: np.ndarray, pieces: int, budget: _Budget | None = None) -> list[Tier]:
        """The positions reachable from `states` (`pieces` pieces each) and not ruled out by
        the stored layers, depth by depth down to the goal's piece count (within the budget,
        by default `SEARCH_LIMIT` positions above the stored layers)."""
        budget = budget or _Budget(Search())
        tiers = [Tier(states, self._keys(states, pieces), pieces)]
        budget.done(tiers[0].size)
        for k in range(pieces - 1, self.puzzle.goal.pieces - 1, -1):
            above = tiers[-1]
            # Once every child is ruled out nothing lies deeper: the tiers below are empty,
            # with nothing to expand or look up.
            below = self._next_tier(above, k, budget) if above.size else Tier(above.states, above.keys, k)
            tiers.append(below)
        return tiers

    def _next_tier(self, tier: Tier, pieces: int, budget: _Budget) -> Tier:
        """The distinct children of a tier's positions (`pieces` pieces each) that the stored
        layers do not rule out, in key order: marked in a bitmap of their tier when many are,
        else sorted; above the stored layers, counted against the budget as they come."""
        words = self._tier_words_of(pieces)
        if words is None:
            return self._grow(tier, pieces, budget)
        if (words is not None and not self.rules.typed and self.words == 1
                and tier.size * DENSE_WORDS >= words.shape[0]):
            keys, masks = reachable_masks(self.rules.children, self.tables, tier.states, words,
                                          self.space.cells, pieces)
            return Tier(masks, keys, pieces)
        _, kids, _ = self._expand(tier.states)
        keys = self._keys(kids, pieces)
        known = self._known_solvable(keys, pieces)
        if known is not None:
            kids, keys = kids[known], keys[known]
        keys, first = np.unique(keys, return_index=True)
        return Tier(kids[first], keys, pieces)

    def _grow(self, tier: Tier, pieces: int, budget: _Budget) -> Tier:
        """The distinct children of a tier above the stored layers, `PARENTS` parents at a
        time: each chunk's children are sorted and merged into the tier when the chunks
        waiting hold as many as the tier, and the budget hears the count after every chunk
        (merged first where the waiting chunks alone would pass the limit)."""
        keys = np.zeros(0, dtype=np.int64)
        states = tier.states[:0]
        waiting: list[tuple[np.ndarray, np.ndarray]] = []
        pending = 0
        limit = budget.search.search_limit
        for lo in range(0, tier.size, PARENTS):
            _, kids, _ = self._expand(tier.states[lo:lo + PARENTS])
            found, first = np.unique(self._keys(kids, pieces), return_index=True)
            waiting.append((found, kids[first]))
            pending += found.shape[0]
            over = limit is not None and budget.searched + keys.shape[0] + pending > limit
            if pending >= keys.shape[0] or over:
                keys, states = _merge([(keys, states), *waiting])
                waiting, pending = [], 0
            budget.check(keys.shape[0] + pending, pieces)
        if waiting:
            keys, states = _merge([(keys, states), *waiting])
        budget.done(keys.shape[0])
        return Tier(states, keys, pieces)

    def _count(self, tiers: list[Tier], goals: np.ndarray, exact: bool) -> list[np.ndarray]:
        """Solution counts per depth, from those of the last depth (`goals`, uint64: 1 for a
        goal position) back up to the root."""
        counts = [np.zeros(0)] * len(tiers)
        counts[-1] = goals
        for depth in range(len(tiers) - 2, -1, -1):
            once = depth == len(tiers) - 2 and self.puzzle.goal.final_step_once
            exact = exact or self.words > 1  # the compiled counts are one-word only
            found = None if exact else self._count_compiled(tiers[depth], tiers[depth + 1],
                                                            counts[depth + 1], once)
            exact = found is None
            counts[depth] = self._count_exact(tiers[depth], tiers[depth + 1], counts[depth + 1], once) \
                if exact else cast(np.ndarray, found)
        return counts

    def _count_compiled(self, tier: Tier, below: Tier, counts: np.ndarray, once: bool) -> np.ndarray | None:
        """The counts of a tier from those of the tier below, in compiled code; None if a count
        would pass 2**64."""
        pieces = below.pieces
        index = Index.of(below.keys, sum(layer.words for layer in self.space.layers_with(pieces)))
        if not self.rules.typed:
            return count_masks(self.rules.children, self.tables, tier.states, index, counts, once)
        radix, offsets = self._key_tables(pieces)
        return count_boards(self.rules.children, self.tables, tier.states, radix, offsets, index, counts,
                            once)

    def _count_exact(self, tier: Tier, below: Tier, counts: np.ndarray, once: bool) -> np.ndarray:
        """The counts of a tier from those of the tier below, with Python integers where int64
        could overflow: every move, its distinct (parent, child) pairs, sums per parent."""
        parents, kids, _ = self._expand(tier.states)
        found = self._find(below, kids)
        parents, found = parents[found >= 0], found[found >= 0]
        if once:
            reached = np.zeros(tier.size, dtype=object)
            np.maximum.at(reached, parents, counts[found].astype(object))
            return reached
        pairs = np.unique(np.stack([parents, found]), axis=1)
        return _sum_by_parent(pairs[0], counts[pairs[1]].astype(object), tier.size)

    def _find(self, tier: Tier, kids: np.ndarray) -> np.ndarray:
        """The place of each of `kids` in `tier`, or -1 where it is not there."""
        keys = self._keys(kids, tier.pieces)
        at = np.minimum(np.searchsorted(tier.keys, keys), max(tier.size - 1, 0))
        there = tier.keys[at] == keys if tier.size else np.zeros(keys.shape[0], dtype=bool)
        return np.where(there, at, -1)

    def _summarise(self, tiers: list[Tier], counts: list[np.ndarray]) -> Report:
        solutions = int(counts[0][0])
        _, kids, _ = self._expand(tiers[0].states)
        found = self._find(tiers[1], kids)
        # Children the stored layers ruled out are not in the next tier: unsafe moves.
        safe = int((counts[1][found[found >= 0]] > 0).sum())
        legal = int(kids.shape[0])
        return Report(
            pieces=tiers[0].pieces,
            solvable=solutions > 0,
            unique=solutions == 1,
            all_moves=legal > 0 and safe == legal,
            solutions=solutions,
            legal_moves=legal,
            safe_moves=safe,
            solution=self._path(tiers, counts) if solutions else [],
        )

    def _path(self, tiers: list[Tier], counts: list[np.ndarray]) -> list[Move]:
        """A solution: from each position on it, the winning move with the smallest code."""
        path = []
        node = 0
        for depth in range(len(tiers) - 1):
            _, kids, moves = self._expand(tiers[depth].states[node:node + 1])
            found = self._find(tiers[depth + 1], kids)
            wins = np.flatnonzero(found >= 0)
            wins = wins[counts[depth + 1][found[wins]] > 0]
            best = wins[np.argmin(moves[wins])]
            path.append(decode_move(moves[best]))
            node = int(found[best])
        return path

    # -- the whole reachable graph -------------------------------------------------------------

    def graph(self, position: Sequence[int], limit: int) -> Graph | None:
        """Every position reachable from `position`, depth by depth (depth d holds the distinct
        positions d moves away), with one edge per legal move; None if it holds more than
        `limit` positions. Nothing is pruned: unsolvable positions are in it too."""
        pieces = sum(1 for v in position if v)
        frontiers = [self._states(position)]
        edges = []
        size = 1
        for k in range(pieces, self.puzzle.goal.pieces, -1):
            parents, kids, moves = self._expand(frontiers[-1])
            keys = self._keys(kids, k - 1)
            unique_keys, first, index = np.unique(keys, return_index=True, return_inverse=True)
            size += unique_keys.shape[0]
            if size > limit:
                return None
            frontiers.append(kids[first])
            edges.append(Edges(parents, index.reshape(-1), moves))
        return Graph(pieces, frontiers, edges, self._goal(frontiers[-1]), self.rules.typed)


@dataclass(frozen=True)
class Edges:
    """The legal moves from one depth of a graph to the next: parallel arrays."""

    parents: np.ndarray
    """Index of the position each move starts from."""
    children: np.ndarray
    """Index (in the next depth) of the position it leads to."""
    moves: np.ndarray
    """The move, encoded as in `curator.rules.base.encode_move`."""


@dataclass(frozen=True)
class Graph:
    """The positions reachable from one position, depth by depth (see `Explorer.graph`)."""

    pieces: int
    """Pieces of the first position (depth d has pieces - d)."""
    frontiers: list[np.ndarray]
    edges: list[Edges]
    goals: np.ndarray
    """Which positions of the last depth are goal positions."""
    typed: bool
    """Whether positions are boards of piece types (else masks of occupied cells)."""

    @property
    def sizes(self) -> list[int]:
        return [frontier.shape[0] for frontier in self.frontiers]

    def vacated(self, depth: int) -> np.ndarray:
        """Per move from `depth` (as `edges[depth]` lists them), the cells it leaves empty."""
        edges = self.edges[depth]
        before, after = self.frontiers[depth][edges.parents], self.frontiers[depth + 1][edges.children]
        left = ((before != 0) & (after == 0)) if self.typed else np.bitwise_count(before & ~after)
        return left.reshape(len(edges.parents), -1).sum(axis=1, dtype=np.int64)

    def solvable(self) -> list[np.ndarray]:
        """Per depth, whether each position can still reach a goal position."""
        found = [self.goals]
        for edges, size in zip(reversed(self.edges), reversed(self.sizes[:-1])):
            ok = np.zeros(size, dtype=bool)
            np.logical_or.at(ok, edges.parents, found[0][edges.children])
            found.insert(0, ok)
        return found


def _merge(parts: list[tuple[np.ndarray, np.ndarray]]) -> tuple[np.ndarray, np.ndarray]:
    """The distinct keys of sorted (keys, states) parts, in order, with their states."""
    keys, first = np.unique(np.concatenate([part[0] for part in parts]), return_index=True)
    return keys, np.concatenate([part[1] for part in parts])[first]


def _sum_by_parent(parents: np.ndarray, values: np.ndarray, size: int) -> np.ndarray:
    """Sum values per parent exactly: int64 while it cannot overflow, Python ints after."""
    bound = np.zeros(size, dtype=np.float64)
    np.add.at(bound, parents, values.astype(np.float64))
    if bound.max(initial=0) < 2.0**62:
        out = np.zeros(size, dtype=np.int64)
        np.add.at(out, parents, values.astype(np.int64))
        return out
    out = np.zeros(size, dtype=object)
    for p, v in zip(parents.tolist(), values.tolist()):
        out[p] += v
    return out
