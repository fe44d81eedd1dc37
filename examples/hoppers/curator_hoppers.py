"""Hoppers (ThinkFun): frogs jump over frogs until only the red frog is left.

The board is the 13 lily pads of a 5 x 5 grid whose row + column is even. A frog jumps over
a neighbouring frog onto the empty pad just beyond it, and the frog jumped over leaves the
board. Pads are neighbours two cells apart along a row or a column (the cell between them
is no pad) and one cell apart along a diagonal, so a jump goes

- along a row: (r, c) over (r, c + 2) to (r, c + 4), or the other way;
- along a column: (r, c) over (r + 2, c) to (r + 4, c), or the other way;
- along a diagonal: (r, c) over (r + 1, c + 1) to (r + 2, c + 2), and likewise along the
  three other diagonal directions.

Frogs are typed pieces, green `G` and red `R` ([pieces] in the puzzle file); any frog may
jump any other, and a puzzle is solved when the red frog is the only one left (`[goal]
pieces = 1, piece = "R"`): jumping the red frog loses the game. The same moves work on any
square board whose cells all have row + column of one parity.

The family is added to curator by this package's entry point (see pyproject.toml); it is
the worked example of docs/rules.md in curator's repository.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numba
import numpy as np

from curator.common.board import Board
from curator.common.ranking import lowest_bit
from curator.rules import ParamError, Rules, encode_move

__version__ = "0.1.0"

JUMPS = ((0, 2), (2, 0), (0, -2), (-2, 0), (1, 1), (1, -1), (-1, 1), (-1, -1))
"""A jump's step from a frog to the frog it jumps over (and again to where it lands)."""
ONE = np.uint64(1)
NONE = -1


@numba.njit(cache=True)
def hoppers_children(mask, board, tables, out_masks, out_boards, out_removed, out_moves):
    """Every jump of the position (`mask`, `board`), as `Rules` documents for typed families."""
    overs, lands = tables
    count = 0
    frogs = mask
    while frogs:
        src = lowest_bit(frogs)
        frogs &= frogs - ONE
        for k in range(overs.shape[1]):
            over = overs[src, k]
            if over == NONE:
                continue
            land = lands[src, k]
            if ((mask >> np.uint64(over)) & ONE) == 0 or ((mask >> np.uint64(land)) & ONE) != 0:
                continue
            out_masks[count] = mask ^ ((ONE << np.uint64(src)) | (ONE << np.uint64(over))
                                       | (ONE << np.uint64(land)))
            for c in range(board.shape[0]):
                out_boards[count, c] = board[c]
            out_boards[count, land] = board[src]
            out_boards[count, src] = 0
            out_boards[count, over] = 0
            out_removed[count] = board[over]
            out_moves[count] = encode_move(src, land)
            count += 1
    return count


@numba.njit(cache=True)
def hoppers_children_wide(mask, board, tables, out_masks, out_boards, out_removed, out_moves):
    """`hoppers_children` on a board of more than 64 cells: `mask` and each row of `out_masks`
    are arrays of words; which pads hold a frog is read from `board`."""
    overs, lands = tables
    words = mask.shape[0]
    count = 0
    for w in range(words):
        frogs = mask[w]
        while frogs:
            src = w * 64 + lowest_bit(frogs)
            frogs &= frogs - ONE
            for k in range(overs.shape[1]):
                over = overs[src, k]
                land = lands[src, k]
                if over == NONE or board[over] == 0 or board[land] != 0:
                    continue
                for v in range(words):
                    out_masks[count, v] = mask[v]
                for cell in (src, over, land):
                    out_masks[count, cell >> 6] ^= ONE << np.uint64(cell & 63)
                for c in range(board.shape[0]):
                    out_boards[count, c] = board[c]
                out_boards[count, land] = board[src]
                out_boards[count, src] = 0
                out_boards[count, over] = 0
                out_removed[count] = board[over]
                out_moves[count] = encode_move(src, land)
                count += 1
    return count


class HoppersRules(Rules):
    """Hoppers: frogs jump over frogs until only the red frog is left."""

    family = "hoppers"
    typed = True
    sweep_kernel = "boards"
    wide = True

    @classmethod
    def check(cls, board: Board, piece_types: tuple[str, ...], params: dict[str, Any]) -> None:
        if board.grid != "square":
            raise ParamError("family", "hoppers puzzles need a square grid")
        if len({(r + c) % 2 for r, c in board.cells}) != 1:
            raise ParamError("family", "hoppers boards have pads only where row + column is even "
                                       "(draw them one character apart, as on the Hoppers board)")

    def jumps(self) -> list[tuple[int, int, int]]:
        """Every possible jump as (from, over, to) cell indices."""
        found = []
        for src, cell in enumerate(self.board.cells):
            for step in JUMPS:
                over = self.board.step(cell, step, 1)
                land = self.board.step(cell, step, 2)
                if over is not None and land is not None:
                    found.append((src, over, land))
        return found

    def tables(self) -> tuple[np.ndarray, ...]:
        """overs[c, k] and lands[c, k]: the k-th jump from cell c (-1 where there is none)."""
        overs = np.full((self.board.size, len(JUMPS)), NONE, dtype=np.int64)
        lands = np.full((self.board.size, len(JUMPS)), NONE, dtype=np.int64)
        taken = [0] * self.board.size
        for src, over, land in self.jumps():
            overs[src, taken[src]] = over
            lands[src, taken[src]] = land
            taken[src] += 1
        return overs, lands

    @property
    def children(self) -> Callable[..., int]:
        return hoppers_children if self.mask_words == 1 else hoppers_children_wide
