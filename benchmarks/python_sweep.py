"""A straightforward pure-Python sweep of one peg-solitaire layer, the baseline the compiled
kernels are measured against: one Python loop iteration per position, moves from a list,
ranks from the scalar ranking functions."""

from __future__ import annotations

from curator.common.ranking import rank_combination, unrank_combination
from curator.layered.puzzle import Puzzle


def python_sweep_layer(puzzle: Puzzle, pieces: int, below_solvable: set[int],
                       below_unique: set[int]) -> tuple[set[int], set[int], set[int]]:
    """Ranks of the solvable, unique and all-moves positions of the `pieces` layer."""
    n = puzzle.board.size
    moves = puzzle.rules.moves()
    solvable, unique, all_moves = set(), set(), set()
    for rank in range(_size(n, pieces)):
        occupied = set(unrank_combination(rank, n, pieces, "colex"))
        children = set()
        for src, over, dst in moves:
            if src in occupied and over in occupied and dst not in occupied:
                child = sorted((occupied - {src, over}) | {dst})
                children.add(rank_combination(child, n, "colex"))
        good = [c for c in children if c in below_solvable]
        if good:
            solvable.add(rank)
        if len(good) == 1 and good[0] in below_unique:
            unique.add(rank)
        if children and len(good) == len(children):
            all_moves.add(rank)
    return solvable, unique, all_moves


def _size(n: int, k: int) -> int:
    from math import comb

    return comb(n, k)
