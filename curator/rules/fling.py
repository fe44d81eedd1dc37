"""Fling!: a ball is flung along a row or column and knocks the last ball it strikes off.

The flung ball needs an empty neighbour in the direction of the fling and some ball further
along the line. It slides and stops in front of the first ball it meets; that ball carries
on in the same direction: if its next cell is occupied it stays and passes the impulse on,
otherwise it slides until it meets a ball (stopping in front of it and passing the impulse
on) or leaves the board. Every move removes exactly one ball.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

import numba
import numpy as np

from curator.board import ORTHOGONAL
from curator.ranking import lowest_bit
from curator.rules.base import ParamError, Rules, encode_move

ONE = np.uint64(1)


@numba.njit(cache=True, inline="always")
def _occupied(mask, cell):
    return (mask >> np.uint64(cell)) & ONE


@numba.njit(cache=True)
def fling_children(mask, tables, out_masks, out_moves):
    rays, lengths = tables
    count = 0
    balls = mask
    while balls:
        src = lowest_bit(balls)
        balls &= balls - ONE
        for d in range(rays.shape[1]):
            ray = rays[src, d]
            length = lengths[src, d]
            if length < 2 or _occupied(mask, ray[0]):
                continue
            hit = 1
            while hit < length and not _occupied(mask, ray[hit]):
                hit += 1
            if hit == length:
                continue
            stop = ray[hit - 1]
            child = (mask ^ (ONE << np.uint64(src))) | (ONE << np.uint64(stop))
            # The struck ball at ray[hit] carries the impulse on along the same ray.
            while True:
                if hit + 1 < length and _occupied(mask, ray[hit + 1]):
                    hit += 1
                    continue
                nxt = hit + 1
                while nxt < length and not _occupied(mask, ray[nxt]):
                    nxt += 1
                child ^= ONE << np.uint64(ray[hit])
                if nxt == length:
                    break
                child |= ONE << np.uint64(ray[nxt - 1])
                hit = nxt
            out_masks[count] = child
            out_moves[count] = encode_move(src, stop)
            count += 1
    return count


class FlingRules(Rules):
    family = "fling"
    params: ClassVar[dict[str, type]] = {}

    @classmethod
    def check(cls, board, piece_types, params):
        if board.grid != "square":
            raise ParamError("family", "fling puzzles need a square grid")
        if len(piece_types) != 1:
            raise ParamError("family", "fling puzzles have one kind of piece (no [pieces] table)")

    def tables(self) -> tuple[np.ndarray, ...]:
        n = self.board.size
        longest = max(self.board.rows, self.board.cols)
        rays = np.zeros((n, len(ORTHOGONAL), longest), dtype=np.int64)
        lengths = np.zeros((n, len(ORTHOGONAL)), dtype=np.int64)
        for i, cell in enumerate(self.board.cells):
            for d, direction in enumerate(ORTHOGONAL):
                ray = self.board.ray(cell, direction)
                rays[i, d, : len(ray)] = ray
                lengths[i, d] = len(ray)
        return rays, lengths

    @property
    def children(self) -> Callable:
        return fling_children
