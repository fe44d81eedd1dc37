"""Peg solitaire: a peg jumps over a neighbouring peg into an empty cell, removing it.

Square grids jump orthogonally (diagonally too with `diagonal = true`); triangular grids
jump along their six directions.

Moves are grouped by their cell-index steps (over - from, to - over): all moves of a group
are found at once with shifts of the occupancy mask, so the cost follows the number of
groups and legal moves rather than the number of possible moves.

A jump lands on an empty cell one step beyond the pieces, so whether it is legal depends on
the board next to the pegs: a peg beside an edge or a hole has fewer jumps than the same
pegs moved into open board. Moving every peg by one vector therefore gives an equivalent
position only where the board looks the same within pieces - goal pieces steps of the
pegs' box (`translation_margin`): every jump grows the box by at most one step, and one
jump fewer is left to play. On the bundled boards this leaves only positions of few pegs
that are far from the edges.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

import numba
import numpy as np

from curator.common.ranking import lowest_bit, to_words
from curator.rules.base import ParamError, Rules, encode_move

ONE = np.uint64(1)


@numba.njit(cache=True, inline="always")
def _shifted(mask, step):
    """Bit i of the result is bit i + step of mask."""
    if step >= 0:
        return mask >> np.uint64(step)
    return mask << np.uint64(-step)


@numba.njit(cache=True)
def jump_children(mask, tables, out_masks, out_moves):
    sources, over_steps, land_steps = tables
    count = 0
    empty = ~mask
    for g in range(sources.shape[0]):
        over = over_steps[g]
        land = land_steps[g]
        movers = mask & sources[g] & _shifted(mask, over) & _shifted(empty, land)
        while movers:
            src = lowest_bit(movers)
            movers &= movers - ONE
            out_masks[count] = mask ^ ((ONE << np.uint64(src)) | (ONE << np.uint64(src + over))
                                       | (ONE << np.uint64(src + land)))
            out_moves[count] = encode_move(src, src + land)
            count += 1
    return count


@numba.njit(cache=True)
def jump_children_wide(mask, tables, out_masks, out_moves):
    """`jump_children` on multi-word masks: the jumps of each peg, from a table of them
    (measured faster here than shifting every word of the mask per group), skipping at once
    a peg with no peg next to it to jump over."""
    jumps, overs = tables
    words = mask.shape[0]
    count = 0
    for w in range(words):
        pegs = mask[w]
        while pegs:
            src = w * 64 + lowest_bit(pegs)
            pegs &= pegs - ONE
            near = mask[0] & overs[src, 0]
            for v in range(1, words):
                near |= mask[v] & overs[src, v]
            if not near:
                continue
            for j in range(jumps.shape[1]):
                over = jumps[src, j, 0]
                dst = jumps[src, j, 1]
                if over < 0:
                    break
                peg = (mask[over >> 6] >> np.uint64(over & 63)) & ONE
                if peg and not (mask[dst >> 6] >> np.uint64(dst & 63)) & ONE:
                    for v in range(words):
                        out_masks[count, v] = mask[v]
                    for cell in (src, over, dst):
                        out_masks[count, cell >> 6] ^= ONE << np.uint64(cell & 63)
                    out_moves[count] = encode_move(src, dst)
                    count += 1
    return count


class JumpRules(Rules):
    family = "jump"
    sweep_kernel = "patterns"
    params: ClassVar[dict[str, type]] = {"diagonal": bool}
    wide = True

    @classmethod
    def check(cls, board, piece_types, params):
        if params.get("diagonal") and board.grid != "square":
            raise ParamError("diagonal", "diagonal jumps exist only on square grids")

    def moves(self) -> list[tuple[int, int, int]]:
        """Every possible jump as (from, over, to) cell indices."""
        out = []
        for src, cell in enumerate(self.board.cells):
            for direction in self.board.directions(self.options.get("diagonal", False)):
                over = self.board.step(cell, direction, 1)
                dst = self.board.step(cell, direction, 2)
                if over is not None and dst is not None:
                    out.append((src, over, dst))
        return out

    def mask_moves(self) -> list[tuple[int, int]]:
        return [((1 << src) | (1 << over), 1 << dst) for src, over, dst in self.moves()]

    def tables(self) -> tuple[np.ndarray, ...]:
        if self.mask_words > 1:
            # jumps[src, j] = (over, to) of the j-th jump from src; (-1, -1) after the last;
            # overs[src]: the cells those jumps go over, as a multi-word mask.
            per_cell: list[list[tuple[int, int]]] = [[] for _ in range(self.board.size)]
            for src, over, dst in self.moves():
                per_cell[src].append((over, dst))
            width = max(map(len, per_cell), default=0) or 1
            jumps = np.full((self.board.size, width, 2), -1, dtype=np.int64)
            overs = np.zeros((self.board.size, self.mask_words), dtype=np.uint64)
            for src, found in enumerate(per_cell):
                jumps[src, :len(found)] = found
                overs[src] = to_words(sum(1 << over for over, _ in found), self.mask_words)
            return jumps, overs
        groups: dict[tuple[int, int], int] = {}
        for src, over, dst in self.moves():
            key = (over - src, dst - src)
            groups[key] = groups.get(key, 0) | (1 << src)
        keys = sorted(groups)
        return (
            np.array([groups[k] for k in keys], dtype=np.uint64),
            np.array([k[0] for k in keys], dtype=np.int64),
            np.array([k[1] for k in keys], dtype=np.int64),
        )

    @property
    def children(self) -> Callable:
        return jump_children if self.mask_words == 1 else jump_children_wide

    def translation_margin(self, pieces: int, goal_pieces: int) -> int | None:
        return max(pieces - goal_pieces, 0)
