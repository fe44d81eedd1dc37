"""Fling!: a ball is flung along a row or column and knocks the last ball it strikes off.

The flung ball needs an empty neighbour in the direction of the fling and some ball further
along the line. It slides and stops in front of the first ball it meets; that ball carries
on in the same direction: if its next cell is occupied it stays and passes the impulse on,
otherwise it slides until it meets a ball (stopping in front of it and passing the impulse
on) or leaves the board. Every move removes exactly one ball.

The ball met next along a line is found with one AND of the occupancy mask and the line's
precomputed mask: cells are numbered row by row, so it is the lowest set bit when moving
right or down and the highest when moving left or up.

Moving every ball by one vector gives an equivalent position (`translation_margin` 0) as
long as the board looks the same inside the balls' box: a fling only involves the cells
between balls of one row or column, a ball with no ball ahead leaves the board however far
the edge (or a hole) is, and every ball stays inside the box, so the positions played from
it need no more of the board either.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

import numba
import numpy as np

from curator.common.board import ORTHOGONAL
from curator.common.ranking import lowest_bit, wide_flip, wide_next, wide_set, wide_test
from curator.rules.base import ParamError, Rules, encode_move, nearest_cell

ONE = np.uint64(1)
NONE = -1


@numba.njit(cache=True)
def fling_children(mask, tables, out_masks, out_moves):
    lines, steps, forward = tables
    directions = lines.shape[1]
    count = 0
    balls = mask
    while balls:
        src = lowest_bit(balls)
        balls &= balls - ONE
        for d in range(directions):
            back = (d + directions // 2) % directions
            ahead = mask & lines[src, d]
            if ahead == 0 or (mask >> np.uint64(steps[src, d])) & ONE:
                continue
            hit = nearest_cell(ahead, forward[d])
            stop = steps[hit, back]
            child = (mask ^ (ONE << np.uint64(src))) | (ONE << np.uint64(stop))
            # The struck ball carries the impulse on along the same line.
            while True:
                nxt = steps[hit, d]
                if nxt != NONE and (mask >> np.uint64(nxt)) & ONE:
                    hit = nxt
                    continue
                child ^= ONE << np.uint64(hit)
                ahead = mask & lines[hit, d]
                if ahead == 0:
                    break
                hit = nearest_cell(ahead, forward[d])
                child |= ONE << np.uint64(steps[hit, back])
            out_masks[count] = child
            out_moves[count] = encode_move(src, stop)
            count += 1
    return count


@numba.njit(cache=True)
def fling_children_wide(mask, tables, out_masks, out_moves):
    """`fling_children` on multi-word masks (lines[c, d] a wide mask)."""
    lines, steps, forward = tables
    directions = lines.shape[1]
    count = 0
    for w in range(mask.shape[0]):
        balls = mask[w]
        while balls:
            src = w * 64 + lowest_bit(balls)
            balls &= balls - ONE
            for d in range(directions):
                back = (d + directions // 2) % directions
                hit = wide_next(mask, lines[src, d], forward[d])
                if hit < 0 or wide_test(mask, steps[src, d]):
                    continue
                stop = steps[hit, back]
                child = out_masks[count]
                for v in range(mask.shape[0]):
                    child[v] = mask[v]
                wide_flip(child, src)
                wide_set(child, stop)
                # The struck ball carries the impulse on along the same line.
                while True:
                    nxt = steps[hit, d]
                    if nxt != NONE and wide_test(mask, nxt):
                        hit = nxt
                        continue
                    wide_flip(child, hit)
                    hit = wide_next(mask, lines[hit, d], forward[d])
                    if hit < 0:
                        break
                    wide_set(child, steps[hit, back])
                out_moves[count] = encode_move(src, stop)
                count += 1
    return count


class FlingRules(Rules):
    family = "fling"
    sweep_kernel = "lines"
    params: ClassVar[dict[str, type]] = {}
    wide = True

    @classmethod
    def check(cls, board, piece_types, params):
        if board.grid != "square":
            raise ParamError("family", "fling puzzles need a square grid")

    def tables(self) -> tuple[np.ndarray, ...]:
        """lines[c, d]: mask of the cells beyond c along direction d (up to a hole or the
        edge); steps[c, d]: the next cell along d or -1; forward[d]: whether d goes up the
        cell numbers."""
        n = self.board.size
        lines = np.zeros((n, len(ORTHOGONAL)), dtype=object)
        steps = np.full((n, len(ORTHOGONAL)), NONE, dtype=np.int64)
        for i, cell in enumerate(self.board.cells):
            for d, direction in enumerate(ORTHOGONAL):
                ray = self.board.ray(cell, direction)
                lines[i, d] = sum(1 << c for c in ray)
                if ray:
                    steps[i, d] = ray[0]
        forward = np.array([dr > 0 or dc > 0 for dr, dc in ORTHOGONAL], dtype=np.bool_)
        return self.mask_array(lines), steps, forward

    @property
    def children(self) -> Callable:
        return fling_children if self.mask_words == 1 else fling_children_wide

    def line_segments(self) -> list[int]:
        """The rows and columns, cut at holes: a fling moves balls along one of them only,
        and only the balls on it decide what it does (see `lines` in `tables`)."""
        segments = []
        for i, cell in enumerate(self.board.cells):
            for direction in ORTHOGONAL:
                back = (-direction[0], -direction[1])
                if direction > back and self.board.step(cell, back) is None:
                    segments.append(sum(1 << c for c in [i, *self.board.ray(cell, direction)]))
        return segments

    def translation_margin(self, pieces: int, goal_pieces: int) -> int | None:
        return 0
