"""Questions about single positions: exact solution counts, first-move figures, one solution.

From a position, every reachable position is generated tier by tier down to the goal
(compiled move generation over whole levels, numpy for de-duplication); solution counts
then flow back up. Where stored layers exist, children they mark unsolvable are pruned.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numba
import numpy as np

from curator.common.kernels import Slot, build, kernel
from curator.common.ranking import rank_board, rank_colex_mask
from curator.layered.puzzle import Puzzle
from curator.layered.space import Layer, StateSpace, tier_offsets
from curator.layered.sweep import concatenate_tier
from curator.level import Move, Report
from curator.rules import MAX_CHILDREN
from curator.rules.base import decode_move

children = Slot("children")
"""`Rules.children`, bound per family by `build` (see curator.common.kernels)."""


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
        mask = np.uint64(0)
        for cell in range(n):
            if boards[i, cell]:
                mask |= np.uint64(1) << np.uint64(cell)
        count = children(mask, boards[i], tables, buf_masks, buf, removed, buf_moves)
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
def _board_keys(boards, radix, offsets):
    """Index of each board within its tier: layer offset + rank within the layer."""
    types = radix.shape[0]
    keys = np.empty(boards.shape[0], dtype=np.int64)
    counts = np.zeros(types, dtype=np.int64)
    seq = np.empty(boards.shape[1], dtype=np.int64)
    for i in range(boards.shape[0]):
        within = rank_board(boards[i], counts, seq)
        slot = 0
        for t in range(types):
            slot = slot * radix[t] + counts[t]
        keys[i] = offsets[slot] + within
    return keys


@kernel
def _mask_keys(masks):
    keys = np.empty(masks.shape[0], dtype=np.int64)
    for i in range(masks.shape[0]):
        keys[i] = rank_colex_mask(masks[i])
    return keys


class Explorer:
    """Explores positions of one puzzle, using stored layers (if given) to prune."""

    def __init__(self, puzzle: Puzzle, stored: dict[Layer, np.ndarray] | None = None) -> None:
        self.puzzle = puzzle
        self.space = StateSpace(puzzle)
        self.rules = puzzle.rules
        self.tables = self.rules.tables()
        self.stored = stored or {}
        self.allowed = puzzle.goal.cells_mask(puzzle.board.size)
        self._tier_words: dict[int, np.ndarray | None] = {}

    # -- positions as arrays ---------------------------------------------------------------

    def _states(self, position: Sequence[int]) -> np.ndarray:
        if self.rules.typed:
            return np.array([position], dtype=np.int8)
        return np.array([sum(1 << i for i, v in enumerate(position) if v)], dtype=np.uint64)

    def _expand(self, states: np.ndarray):
        if self.rules.typed:
            return build(_expand_boards, children=self.rules.children)(self.tables, states)
        return build(_expand_masks, children=self.rules.children)(self.tables, states)

    def _keys(self, states: np.ndarray, pieces: int) -> np.ndarray:
        if not self.rules.typed:
            return build(_mask_keys)(states)
        limits = np.array(self.space.limits, dtype=np.int64)
        radix = limits + 1
        offsets = np.zeros(int(np.prod(radix)), dtype=np.int64)
        for counts, start in tier_offsets(self.space.layers_with(pieces)).items():
            slot = 0
            for t, c in enumerate(counts):
                slot = slot * radix[t] + c
            offsets[slot] = start
        return build(_board_keys)(states, radix, offsets)

    def _masks(self, states: np.ndarray) -> np.ndarray:
        if not self.rules.typed:
            return states
        weights = np.uint64(1) << np.arange(states.shape[1], dtype=np.uint64)
        return ((states != 0).astype(np.uint64) * weights).sum(axis=1, dtype=np.uint64)

    def _goal(self, states: np.ndarray) -> np.ndarray:
        ok = (self._masks(states) & ~np.uint64(self.allowed)) == 0
        piece = self.puzzle.goal.piece
        if piece is not None:
            ok &= ((states == 0) | (states == piece)).all(axis=1)
        return ok

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

    def report(self, position: Sequence[int]) -> Report:
        """Solvability, exact solution count, first-move figures and one solution."""
        goal = self.puzzle.goal
        pieces = sum(1 for v in position if v)
        states = self._states(position)
        if pieces <= goal.pieces:
            solved = pieces == goal.pieces and bool(self._goal(states)[0])
            return Report(pieces, solved, solved, False, int(solved), 0, 0, [])
        frontiers = [states]
        edges = []  # per depth: (parent index, child index, move) for distinct children
        root_moves = None
        for k in range(pieces, goal.pieces, -1):
            parents, kids, moves = self._expand(frontiers[-1])
            keys = self._keys(kids, k - 1)
            known = self._known_solvable(keys, k - 1)
            if root_moves is None:
                root_moves = (kids, keys, moves, known)
            if known is not None:
                parents, kids, moves, keys = parents[known], kids[known], moves[known], keys[known]
            unique_keys, first, index = np.unique(keys, return_index=True, return_inverse=True)
            frontiers.append(kids[first])
            edges.append((parents, index, moves, unique_keys.shape[0]))
        counts = self._count(frontiers, edges)
        return self._summarise(pieces, counts, edges, root_moves)

    def _count(self, frontiers, edges) -> list[np.ndarray]:
        """Solution counts per depth, from the goal back up to the root."""
        counts = [None] * len(frontiers)
        counts[-1] = self._goal(frontiers[-1]).astype(np.int64)
        for depth in range(len(frontiers) - 2, -1, -1):
            parents, index, _, _ = edges[depth]
            if depth == len(frontiers) - 2 and self.puzzle.goal.final_step_once:
                reached = np.zeros(frontiers[depth].shape[0], dtype=np.int64)
                np.maximum.at(reached, parents, counts[-1][index])
                counts[depth] = reached
                continue
            pairs = np.unique(np.stack([parents, index]), axis=1)
            counts[depth] = _sum_by_parent(pairs[0], counts[depth + 1][pairs[1]], frontiers[depth].shape[0])
        return counts

    def _summarise(self, pieces, counts, edges, root_moves) -> Report:
        solutions = int(counts[0][0])
        kids, _, _, known = root_moves
        _, index, _, _ = edges[0]
        # Children the stored layers ruled out were dropped before counting.
        child_ok = np.zeros(kids.shape[0], dtype=bool)
        kept = np.flatnonzero(known) if known is not None else np.arange(kids.shape[0])
        child_ok[kept] = counts[1][index] > 0
        legal = int(kids.shape[0])
        safe = int(child_ok.sum())
        return Report(
            pieces=pieces,
            solvable=solutions > 0,
            unique=solutions == 1,
            all_moves=legal > 0 and safe == legal,
            solutions=solutions,
            legal_moves=legal,
            safe_moves=safe,
            solution=self._path(counts, edges) if solutions else [],
        )

    def _path(self, counts, edges) -> list[Move]:
        path = []
        node = 0
        for depth, (parents, index, moves, _) in enumerate(edges):
            options = np.flatnonzero((parents == node) & (counts[depth + 1][index] > 0))
            best = options[np.argmin(moves[options])]
            path.append(decode_move(moves[best]))
            node = index[best]
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
        return Graph(pieces, frontiers, edges, self._goal(frontiers[-1]))


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

    @property
    def sizes(self) -> list[int]:
        return [frontier.shape[0] for frontier in self.frontiers]


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
