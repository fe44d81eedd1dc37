"""Solitaire Chess: chess pieces of one colour, and every move must capture.

K, Q, R, B, N and P move as in chess: sliders stop at the first piece on a line, knights
leap, pawns capture one square diagonally up the board (towards row 0) and never promote.
With `king_safe = true` a king may not be captured.

Moving every piece by one vector gives an equivalent position (`translation_margin` 0) as
long as the board looks the same inside the pieces' box: a capture lands on an occupied
cell, and a slider only passes the cells between two pieces, so the edges and holes outside
the box play no part, and no move leaves it. Pawns keep capturing up the board.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

import numba
import numpy as np

from curator.common.board import DIAGONAL, ORTHOGONAL
from curator.common.difficulty import Player
from curator.common.ranking import lowest_bit, wide_next
from curator.rules.base import ParamError, Rules, encode_move, nearest_cell

KNIGHT = ((-2, -1), (-2, 1), (-1, 2), (1, 2), (2, 1), (2, -1), (1, -2), (-1, -2))
PAWN = ((-1, -1), (-1, 1))
LINES = ORTHOGONAL + DIAGONAL
ONE = np.uint64(1)
LEAPER, SLIDER = 0, 1

# For each piece letter: how it moves, and along which steps.
MOVES: dict[str, tuple[int, tuple[tuple[int, int], ...]]] = {
    "K": (LEAPER, ORTHOGONAL + DIAGONAL),
    "Q": (SLIDER, ORTHOGONAL + DIAGONAL),
    "R": (SLIDER, ORTHOGONAL),
    "B": (SLIDER, DIAGONAL),
    "N": (LEAPER, KNIGHT),
    "P": (LEAPER, PAWN),
}


@numba.njit(cache=True, inline="always")
def _attacks(mask, src, mover, tables):
    """The occupied cells a piece of type `mover` on `src` attacks."""
    lines, forward, leaps, slides, _ = tables
    targets = leaps[mover, src] & mask
    along = slides[mover]
    while along:
        d = lowest_bit(along)
        along &= along - ONE
        ahead = mask & lines[src, d]
        if ahead:
            targets |= ONE << np.uint64(nearest_cell(ahead, forward[d]))
    return targets


@numba.njit(cache=True)
def capture_reach(mask, tables, out):
    movers = mask
    while movers:
        src = lowest_bit(movers)
        movers &= movers - ONE
        for mover in range(1, out.shape[1]):
            out[src, mover] = _attacks(mask, src, mover, tables)


@numba.njit(cache=True)
def capture_children(mask, board, tables, out_masks, out_boards, out_removed, out_moves):
    protected = tables[4]
    count = 0
    movers = mask
    while movers:
        src = lowest_bit(movers)
        movers &= movers - ONE
        mover = np.int64(board[src])
        targets = _attacks(mask, src, mover, tables)
        while targets:
            dst = lowest_bit(targets)
            targets &= targets - ONE
            victim = np.int64(board[dst])
            if protected[victim]:
                continue
            out_masks[count] = mask ^ (ONE << np.uint64(src))
            for c in range(board.shape[0]):
                out_boards[count, c] = board[c]
            out_boards[count, dst] = mover
            out_boards[count, src] = 0
            out_removed[count] = victim
            out_moves[count] = encode_move(src, dst)
            count += 1
    return count


@numba.njit(cache=True, inline="always")
def _with_cell(t0, t1, t2, t3, cell):
    """Words t0..t3 of a wide mask (at most four: 256 cells) with `cell` set."""
    bit = ONE << np.uint64(cell & 63)
    w = cell >> 6
    if w == 0:
        return t0 | bit, t1, t2, t3
    if w == 1:
        return t0, t1 | bit, t2, t3
    if w == 2:
        return t0, t1, t2 | bit, t3
    return t0, t1, t2, t3 | bit


@numba.njit(cache=True)
def capture_children_wide(mask, board, tables, out_masks, out_boards, out_removed, out_moves):
    """`capture_children` on multi-word masks (lines[c, d] and leaps[t, c] wide masks). A
    piece's targets are gathered in four scalar words (no array per position), so its
    captures come in increasing cell order as in the one-word code."""
    lines, forward, leaps, slides, protected = tables
    words = mask.shape[0]
    zero = np.uint64(0)
    count = 0
    for w in range(words):
        movers = mask[w]
        while movers:
            src = w * 64 + lowest_bit(movers)
            movers &= movers - ONE
            mover = np.int64(board[src])
            jumps = leaps[mover, src]
            t0 = jumps[0] & mask[0]
            t1 = jumps[1] & mask[1] if words > 1 else zero
            t2 = jumps[2] & mask[2] if words > 2 else zero
            t3 = jumps[3] & mask[3] if words > 3 else zero
            along = slides[mover]
            while along:
                d = lowest_bit(along)
                along &= along - ONE
                hit = wide_next(mask, lines[src, d], forward[d])
                if hit >= 0:
                    t0, t1, t2, t3 = _with_cell(t0, t1, t2, t3, hit)
            for v in range(words):
                targets = t0 if v == 0 else t1 if v == 1 else t2 if v == 2 else t3
                while targets:
                    dst = v * 64 + lowest_bit(targets)
                    targets &= targets - ONE
                    victim = np.int64(board[dst])
                    if protected[victim]:
                        continue
                    for u in range(words):
                        out_masks[count, u] = mask[u]
                    out_masks[count, src >> 6] ^= ONE << np.uint64(src & 63)
                    for c in range(board.shape[0]):
                        out_boards[count, c] = board[c]
                    out_boards[count, dst] = mover
                    out_boards[count, src] = 0
                    out_removed[count] = victim
                    out_moves[count] = encode_move(src, dst)
                    count += 1
    return count


class CaptureRules(Rules):
    family = "capture"
    sweep_kernel = "captures"
    typed = True
    player = Player(lookahead=3.0, search_share=0.0295, opening=0.002, knock_on=0.0,
                    source="defaults fitted on 20 graded Solitaire Chess challenges")
    """Fitted on benchmarks/graded/solitaire-chess-levels.txt (`benchmarks/difficulty.py`): the
    piece count orders those challenges almost alone, so the player weighs the moves nearly
    alone and reads three moves ahead."""
    params: ClassVar[dict[str, type]] = {"king_safe": bool}
    wide = True

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
        """lines[c, d]: mask of the cells beyond c along line d; forward[d]: whether d goes
        up the cell numbers; leaps[t, c]: cells a leaping piece of type t on c attacks;
        slides[t]: bit d set if type t slides along line d; protected[t]: cannot be taken."""
        n = self.board.size
        types = len(self.piece_types) + 1  # index 0 is the empty cell
        lines = np.zeros((n, len(LINES)), dtype=object)
        for c, cell in enumerate(self.board.cells):
            for d, line in enumerate(LINES):
                lines[c, d] = sum(1 << i for i in self.board.ray(cell, line))
        forward = np.array([dr > 0 or (dr == 0 and dc > 0) for dr, dc in LINES], dtype=np.bool_)
        leaps = np.zeros((types, n), dtype=object)
        slides = np.zeros(types, dtype=np.uint64)
        protected = np.zeros(types, dtype=np.bool_)
        for t, letter in enumerate(self.piece_types, start=1):
            kind, steps = MOVES[letter]
            if kind == SLIDER:
                slides[t] = sum(1 << LINES.index(step) for step in steps)
            for c, cell in enumerate(self.board.cells):
                targets = (self.board.step(cell, step) for step in steps) if kind == LEAPER else ()
                leaps[t, c] = sum(1 << i for i in targets if i is not None)
            protected[t] = letter == "K" and self.options.get("king_safe", False)
        return self.mask_array(lines), forward, self.mask_array(leaps), slides, protected

    @property
    def children(self) -> Callable:
        return capture_children if self.mask_words == 1 else capture_children_wide

    def captures(self) -> tuple[Callable, np.ndarray]:
        protected = self.tables()[4]
        return capture_reach, ~protected

    def translation_margin(self, pieces: int, goal_pieces: int) -> int | None:
        return 0

    def keeps(self, transform) -> bool:
        # Pawns capture up the board, so only symmetries that keep "up" are symmetries.
        return "P" not in self.piece_types or transform((-1, 0)) == (-1, 0)
