"""Variants of a permutation puzzle's state: every state one edit away. Two pieces of a set
swap places (with their twists), or a piece is twisted once (for sets whose twists add up to
a multiple of their orientations, a piece once forward and another once back).
"""

from __future__ import annotations

from collections.abc import Iterator

from curator.common.variants import Edit
from curator.distance.puzzle import PermutationPuzzle, State


def edits(puzzle: PermutationPuzzle, state: State) -> Iterator[tuple[Edit, State]]:
    """Every edit of `state` and the state it gives: swaps (set by set, places p < q), then
    twists. An edit's places are (index,) tuples within the set."""
    for si, (s, (perm, ori)) in enumerate(zip(puzzle.sets, state)):
        for p in range(s.count):
            for q in range(p + 1, s.count):
                new_perm, new_ori = list(perm), list(ori)
                new_perm[p], new_perm[q] = perm[q], perm[p]
                new_ori[p], new_ori[q] = ori[q], ori[p]
                yield Edit("swap", s.name, (p,), (q,)), _with(state, si, new_perm, new_ori)
    for si, (s, (perm, ori)) in enumerate(zip(puzzle.sets, state)):
        if s.orientations < 2:
            continue
        for p in range(s.count):
            if not s.zero_sum:
                new_ori = list(ori)
                new_ori[p] = (ori[p] + 1) % s.orientations
                yield Edit("twist", s.name, (p,), None), _with(state, si, list(perm), new_ori)
                continue
            for q in range(s.count):
                if q != p:
                    new_ori = list(ori)
                    new_ori[p] = (ori[p] + 1) % s.orientations
                    new_ori[q] = (ori[q] - 1) % s.orientations
                    yield Edit("twist", s.name, (p,), (q,)), _with(state, si, list(perm), new_ori)


def _with(state: State, si: int, perm: list[int], ori: list[int]) -> State:
    out = list(state)
    out[si] = (tuple(perm), tuple(ori))
    return tuple(out)
