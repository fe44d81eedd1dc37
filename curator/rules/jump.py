"""Peg solitaire: a peg jumps over a neighbouring peg into an empty cell, removing it.

Square grids jump orthogonally (diagonally too with `diagonal = true`); triangular grids
jump along their six directions.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

import numba
import numpy as np

from curator.rules.base import ParamError, Rules, encode_move


@numba.njit(cache=True)
def jump_children(mask, tables, out_masks, out_moves):
    full, empty, codes = tables
    count = 0
    for j in range(full.shape[0]):
        if (mask & full[j]) == full[j] and (mask & empty[j]) == 0:
            out_masks[count] = mask ^ (full[j] | empty[j])
            out_moves[count] = codes[j]
            count += 1
    return count


class JumpRules(Rules):
    family = "jump"
    params: ClassVar[dict[str, type]] = {"diagonal": bool}

    @classmethod
    def check(cls, board, piece_types, params):
        if params.get("diagonal") and board.grid != "square":
            raise ParamError("diagonal", "diagonal jumps exist only on square grids")
        if len(piece_types) != 1:
            raise ParamError("family", "jump puzzles have one kind of piece (no [pieces] table)")

    def tables(self) -> tuple[np.ndarray, ...]:
        full, empty, codes = [], [], []
        for src, cell in enumerate(self.board.cells):
            for direction in self.board.directions(self.options.get("diagonal", False)):
                over = self.board.step(cell, direction, 1)
                dst = self.board.step(cell, direction, 2)
                if over is None or dst is None:
                    continue
                full.append((1 << src) | (1 << over))
                empty.append(1 << dst)
                codes.append(encode_move(src, dst))
        return (
            np.array(full, dtype=np.uint64),
            np.array(empty, dtype=np.uint64),
            np.array(codes, dtype=np.int64),
        )

    @property
    def children(self) -> Callable:
        return jump_children
