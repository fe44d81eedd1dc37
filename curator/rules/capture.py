"""Solitaire Chess: chess pieces of one colour, and every move must capture.

K, Q, R, B, N and P move as in chess: sliders stop at the first piece on a line, knights
leap, pawns capture one square diagonally up the board (towards row 0) and never promote.
With `king_safe = true` a king may not be captured.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

import numba
import numpy as np

from curator.board import DIAGONAL, ORTHOGONAL
from curator.rules.base import ParamError, Rules, encode_move

KNIGHT = ((-2, -1), (-2, 1), (-1, 2), (1, 2), (2, 1), (2, -1), (1, -2), (-1, -2))
DIRECTIONS = ORTHOGONAL + DIAGONAL + KNIGHT
PAWN = ((-1, -1), (-1, 1))
UNLIMITED = 64

# For each piece letter: the directions it moves along and how far.
MOVES: dict[str, tuple[tuple[tuple[int, int], ...], int]] = {
    "K": (ORTHOGONAL + DIAGONAL, 1),
    "Q": (ORTHOGONAL + DIAGONAL, UNLIMITED),
    "R": (ORTHOGONAL, UNLIMITED),
    "B": (DIAGONAL, UNLIMITED),
    "N": (KNIGHT, 1),
    "P": (PAWN, 1),
}


@numba.njit(cache=True)
def capture_children(board, tables, out_boards, out_removed, out_moves):
    rays, lengths, dir_masks, max_steps, protected = tables
    count = 0
    for src in range(board.shape[0]):
        mover = board[src]
        if mover == 0:
            continue
        for d in range(rays.shape[1]):
            if not (dir_masks[mover] >> d) & 1:
                continue
            for s in range(min(lengths[src, d], max_steps[mover])):
                dst = rays[src, d, s]
                victim = board[dst]
                if victim == 0:
                    continue
                if not protected[victim]:
                    out_boards[count, :] = board
                    out_boards[count, dst] = mover
                    out_boards[count, src] = 0
                    out_removed[count] = victim
                    out_moves[count] = encode_move(src, dst)
                    count += 1
                break
    return count


class CaptureRules(Rules):
    family = "capture"
    typed = True
    params: ClassVar[dict[str, type]] = {"king_safe": bool}

    @classmethod
    def check(cls, board, piece_types, params):
        if board.grid != "square":
            raise ParamError("family", "capture puzzles need a square grid")
        unknown = [t for t in piece_types if t not in MOVES]
        if unknown:
            raise ParamError(
                "family",
                f"capture puzzles know the pieces {', '.join(MOVES)}; "
                f"[pieces] names {', '.join(unknown)}",
            )

    def tables(self) -> tuple[np.ndarray, ...]:
        n = self.board.size
        longest = max(self.board.rows, self.board.cols)
        rays = np.zeros((n, len(DIRECTIONS), longest), dtype=np.int64)
        lengths = np.zeros((n, len(DIRECTIONS)), dtype=np.int64)
        for i, cell in enumerate(self.board.cells):
            for d, direction in enumerate(DIRECTIONS):
                ray = self.board.ray(cell, direction)
                rays[i, d, : len(ray)] = ray
                lengths[i, d] = len(ray)
        types = len(self.piece_types) + 1  # index 0 is the empty cell
        dir_masks = np.zeros(types, dtype=np.int64)
        max_steps = np.zeros(types, dtype=np.int64)
        protected = np.zeros(types, dtype=np.int64)
        for t, letter in enumerate(self.piece_types, start=1):
            directions, steps = MOVES[letter]
            dir_masks[t] = sum(1 << DIRECTIONS.index(d) for d in directions)
            max_steps[t] = steps
            protected[t] = letter == "K" and self.options.get("king_safe", False)
        return rays, lengths, dir_masks, max_steps, protected

    @property
    def children(self) -> Callable:
        return capture_children

    def keeps(self, transform) -> bool:
        # Pawns capture up the board, so only symmetries that keep "up" are symmetries.
        return "P" not in self.piece_types or transform((-1, 0)) == (-1, 0)
