"""Ranking and unranking: orders checked against itertools oracles, the seed documents'
worked examples, the compiled forms against the scalar ones, and rejection of bad input."""

from __future__ import annotations

import doctest
import itertools
import math
import random

import numba
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from more_itertools import distinct_permutations

from curator.common import ranking
from curator.common.ranking import (
    BINOMIAL,
    binomial,
    cells_to_mask,
    mask_to_cells,
    multinomial,
    next_colex_mask,
    orientation_count,
    placement_count,
    rank_colex_mask,
    rank_colex_masks,
    rank_combination,
    rank_even_permutation,
    rank_multiset_sequence,
    rank_orientation,
    rank_orientation_array,
    rank_partial_permutation,
    rank_permutation,
    rank_permutation_array,
    rank_placement,
    unrank_colex_mask,
    unrank_colex_masks,
    unrank_combination,
    unrank_even_permutation,
    unrank_multiset_sequence,
    unrank_orientation,
    unrank_orientation_array,
    unrank_partial_permutation,
    unrank_permutation,
    unrank_permutation_array,
    unrank_placement,
)

INT64_MAX = 2**63 - 1


def sizes(fast_up_to: int, up_to: int = 8, start: int = 0) -> list:
    """n = start..up_to; sizes above fast_up_to only run with -m slow."""
    return [
        n if n <= fast_up_to else pytest.param(n, marks=pytest.mark.slow)
        for n in range(start, up_to + 1)
    ]


def mask_of(cells) -> int:
    return sum(1 << c for c in cells)


def inversions(perm) -> int:
    return sum(a > b for a, b in itertools.combinations(perm, 2))


def count_vectors(n: int):
    """Every piece-count vector of 1..3 types (zeros allowed) with at most n pieces."""
    for types in range(1, 4):
        for counts in itertools.product(range(n + 1), repeat=types):
            if sum(counts) <= n:
                yield counts


def factorial_digits(rank: int, n: int) -> tuple[int, ...]:
    """Digits of rank in the factorial base with n places (radices n, n-1, ..., 1)."""
    digits = []
    for radix in range(1, n + 1):
        rank, digit = divmod(rank, radix)
        digits.append(digit)
    return tuple(reversed(digits))


def test_docstring_examples():
    failures, tried = doctest.testmod(ranking)
    assert tried > 15
    assert failures == 0


# ---------------------------------------------------------------------------------------
# Combinations
# ---------------------------------------------------------------------------------------


def test_binomial_matches_math_comb_and_table():
    for n in range(65):
        for k in range(-2, n + 3):
            expected = math.comb(n, k) if 0 <= k <= n else 0
            assert binomial(n, k) == expected
            if 0 <= k <= n:
                assert BINOMIAL[n, k] == expected
    assert binomial(100, 50) == math.comb(100, 50)  # beyond int64


@pytest.mark.parametrize("n", sizes(8))
def test_combination_lex_is_itertools_order(n):
    for k in range(n + 1):
        for rank, cells in enumerate(itertools.combinations(range(n), k)):
            assert rank_combination(cells, n) == rank
            assert unrank_combination(rank, n, k) == cells
        assert rank + 1 == binomial(n, k)


@pytest.mark.parametrize("n", sizes(8))
def test_combination_colex_is_increasing_mask_order(n):
    for k in range(n + 1):
        in_order = sorted(itertools.combinations(range(n), k), key=mask_of)
        mask = (1 << k) - 1
        for rank, cells in enumerate(in_order):
            assert mask_of(cells) == mask
            assert rank_combination(cells, n, order="colex") == rank
            assert unrank_combination(rank, n, k, order="colex") == cells
            assert rank_colex_mask(np.uint64(mask)) == rank
            assert unrank_colex_mask(rank, n, k) == mask
            if k:
                mask = int(next_colex_mask(np.uint64(mask)))
        assert len(in_order) == binomial(n, k)


def test_seed_board_of_20_cells_with_4_pieces():
    # The talk's board: 4 identical pieces on 20 locations, ranked first piece first.
    assert binomial(20, 4) == 4845
    assert unrank_combination(0, 20, 4) == (0, 1, 2, 3)
    assert unrank_combination(4844, 20, 4) == (16, 17, 18, 19)
    assert rank_combination((1, 2, 3, 4), 20) == 969 == binomial(19, 3)
    assert rank_combination((1, 3, 4, 5), 20) == 969 + 136
    # Unranking 803 skips 153+136+120+105+91+78+66 ranks for the second piece and
    # 10+9+...+2 = 54 for the third.
    assert unrank_combination(803, 20, 4) == (0, 8, 18, 19)


@settings(max_examples=150, deadline=None)
@given(st.data())
def test_combination_round_trips_up_to_64_cells(data):
    n = data.draw(st.integers(0, 64))
    cells = tuple(sorted(data.draw(st.sets(st.integers(0, n - 1)) if n else st.just(set()))))
    k = len(cells)
    for order in ("lex", "colex"):
        rank = rank_combination(cells, n, order)
        assert 0 <= rank < binomial(n, k)
        assert unrank_combination(rank, n, k, order) == cells
    colex = rank_combination(cells, n, "colex")
    assert colex == rank_colex_mask(np.uint64(mask_of(cells)))
    # Reflecting the cells (c -> n-1-c) turns colex order into reverse lex order.
    mirrored = tuple(sorted(n - 1 - c for c in cells))
    assert rank_combination(cells, n) == binomial(n, k) - 1 - rank_combination(mirrored, n, "colex")
    assert mask_to_cells(cells_to_mask(cells, n), n) == cells


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_combination_ranks_beyond_64_bits(data):
    n = data.draw(st.integers(65, 300))
    k = data.draw(st.integers(0, n))
    rank = data.draw(st.integers(0, binomial(n, k) - 1))
    for order in ("lex", "colex"):
        cells = unrank_combination(rank, n, k, order)
        assert len(cells) == k and all(0 <= a < b < n for a, b in itertools.pairwise(cells))
        assert rank_combination(cells, n, order) == rank


# ---------------------------------------------------------------------------------------
# Placements
# ---------------------------------------------------------------------------------------


def placements_in_order(n: int, counts) -> list[tuple[int, ...]]:
    """Oracle: occupied cells in colex (mask) order, then piece types in lex order."""
    k = sum(counts)
    pieces = [t for t, c in enumerate(counts, 1) for _ in range(c)]
    boards = []
    for cells in sorted(itertools.combinations(range(n), k), key=mask_of):
        for types in sorted(distinct_permutations(pieces)):
            board = [0] * n
            for cell, t in zip(cells, types):
                board[cell] = t
            boards.append(tuple(board))
    return boards


@pytest.mark.parametrize("n", sizes(7))
def test_placement_order_exhaustive(n):
    for counts in count_vectors(n):
        boards = placements_in_order(n, counts)
        k = sum(counts)
        size = math.comb(n, k) * math.factorial(k) // math.prod(map(math.factorial, counts))
        assert len(boards) == len(set(boards)) == size == placement_count(n, counts)
        for rank, board in enumerate(boards):
            assert rank_placement(board, counts) == rank
            assert unrank_placement(rank, n, counts) == board


def test_placement_example():
    # Two pieces of type 1 and one of type 2 on 4 cells: cells {0,1,2} come first (colex
    # rank 0), and within them the types (1,1,2), (1,2,1), (2,1,1).
    assert [unrank_placement(r, 4, [2, 1]) for r in range(4)] == [
        (1, 1, 2, 0),
        (1, 2, 1, 0),
        (2, 1, 1, 0),
        (1, 1, 0, 2),
    ]
    assert rank_placement((0, 2, 1, 1), [2, 1]) == 3 * 3 + 2
    assert placement_count(4, [2, 1]) == 12


def draw_board(data, max_n: int) -> tuple[tuple[int, ...], list[int]]:
    n = data.draw(st.integers(0, max_n))
    types = data.draw(st.integers(1, 3))
    counts = []
    free = n
    for _ in range(types):
        counts.append(data.draw(st.integers(0, free)))
        free -= counts[-1]
    pieces = [t for t, c in enumerate(counts, 1) for _ in range(c)] + [0] * free
    return tuple(data.draw(st.permutations(pieces))), counts


@settings(max_examples=150, deadline=None)
@given(st.data())
def test_placement_round_trips_up_to_64_cells(data):
    board, counts = draw_board(data, 64)
    n = len(board)
    rank = rank_placement(board, counts)
    assert 0 <= rank < placement_count(n, counts)
    assert unrank_placement(rank, n, counts) == board
    back = data.draw(st.integers(0, placement_count(n, counts) - 1))
    assert rank_placement(unrank_placement(back, n, counts), counts) == back


@settings(max_examples=100, deadline=None)
@given(st.data())
def test_placement_equals_mask_and_multiset_formula(data):
    board, counts = draw_board(data, 64)
    n = len(board)
    counts_array = np.array(counts, dtype=np.int64)
    if placement_count(n, counts) > INT64_MAX:
        return
    cells = [c for c, t in enumerate(board) if t]
    types = np.array([board[c] - 1 for c in cells], dtype=np.int64)
    mask = np.uint64(mask_of(cells))
    expected = rank_colex_mask(mask) * multinomial(counts_array) + rank_multiset_sequence(
        types, counts_array
    )
    assert rank_placement(board, counts) == expected


def test_compiled_multiset_ranks_near_the_int64_limit():
    # 42!/(10! 16! 16!) fits in int64, but multiplying before dividing overflowed.
    counts = [10, 16, 16]
    orderings = math.factorial(42) // (math.factorial(10) * math.factorial(16) ** 2)
    assert multinomial(np.array(counts, dtype=np.int64)) == orderings
    last = np.array(sorted(sum(([t] * c for t, c in enumerate(counts)), []), reverse=True), dtype=np.int64)
    assert rank_multiset_sequence(last, np.array(counts, dtype=np.int64)) == orderings - 1
    out = np.empty(42, dtype=np.int64)
    unrank_multiset_sequence(orderings - 1, np.array(counts, dtype=np.int64), out)
    assert out.tolist() == last.tolist()


# ---------------------------------------------------------------------------------------
# Multisets (compiled helpers)
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("counts", [(0,), (3,), (2, 1), (1, 1, 1), (2, 0, 2), (3, 2, 2)])
def test_multiset_sequence_is_distinct_permutations_order(counts):
    pieces = [t for t, c in enumerate(counts) for _ in range(c)]
    counts_array = np.array(counts, dtype=np.int64)
    ordered = list(distinct_permutations(pieces))
    assert ordered == sorted(ordered)
    assert multinomial(counts_array) == len(ordered)
    out = np.empty(len(pieces), dtype=np.int64)
    for rank, seq in enumerate(ordered):
        assert rank_multiset_sequence(np.array(seq, dtype=np.int64), counts_array) == rank
        unrank_multiset_sequence(rank, counts_array, out)
        assert tuple(out) == seq
        assert tuple(counts_array) == counts  # scratch space restored


# ---------------------------------------------------------------------------------------
# Permutations
# ---------------------------------------------------------------------------------------

# The VB guide's table of all 24 permutations of 4 items, made 0-based: permutation,
# factorial-base digits (how many smaller items lie to the right of each of the first
# three), index.
VB_PERMUTATIONS_OF_4 = [
    ("0123", "000", 0),
    ("0132", "001", 1),
    ("0213", "010", 2),
    ("0231", "011", 3),
    ("0312", "020", 4),
    ("0321", "021", 5),
    ("1023", "100", 6),
    ("1032", "101", 7),
    ("1203", "110", 8),
    ("1230", "111", 9),
    ("1302", "120", 10),
    ("1320", "121", 11),
    ("2013", "200", 12),
    ("2031", "201", 13),
    ("2103", "210", 14),
    ("2130", "211", 15),
    ("2301", "220", 16),
    ("2310", "221", 17),
    ("3012", "300", 18),
    ("3021", "301", 19),
    ("3102", "310", 20),
    ("3120", "311", 21),
    ("3201", "320", 22),
    ("3210", "321", 23),
]


@pytest.mark.parametrize(("perm", "digits", "index"), VB_PERMUTATIONS_OF_4)
def test_seed_table_of_permutations_of_4(perm, digits, index):
    perm = tuple(map(int, perm))
    assert rank_permutation(perm) == index
    assert unrank_permutation(index, 4) == perm
    assert factorial_digits(index, 4) == (*map(int, digits), 0)
    assert rank_permutation_array(np.array(perm, dtype=np.int8)) == index


def test_seed_lehmer_example():
    # (2, 3, 1, 0): smaller items to the right are (2, 2, 1, 0); 2*3! + 2*2! + 1*1! = 17.
    assert factorial_digits(rank_permutation((2, 3, 1, 0)), 4) == (2, 2, 1, 0)
    assert rank_permutation((2, 3, 1, 0)) == 2 * 6 + 2 * 2 + 1 * 1 + 0 == 17
    assert unrank_permutation(17, 4) == (2, 3, 1, 0)


@pytest.mark.parametrize("n", sizes(7))
def test_permutation_lex_is_itertools_order(n):
    for rank, perm in enumerate(itertools.permutations(range(n))):
        assert rank_permutation(perm) == rank
        assert unrank_permutation(rank, n) == perm
    assert rank + 1 == math.factorial(n)


@pytest.mark.parametrize("n", sizes(7))
def test_permutation_mr_is_a_bijection(n):
    ranks = set()
    for perm in itertools.permutations(range(n)):
        rank = rank_permutation(perm, order="mr")
        assert unrank_permutation(rank, n, order="mr") == perm
        ranks.add(rank)
        if n:
            assert perm[-1] == rank % n  # the first unranking swap fixes the last item
    assert ranks == set(range(math.factorial(n)))


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 20).flatmap(lambda n: st.permutations(range(n))))
def test_permutation_round_trips_up_to_20(perm):
    perm = tuple(perm)
    n = len(perm)
    for order in ("lex", "mr"):
        rank = rank_permutation(perm, order)
        assert 0 <= rank < math.factorial(n)
        assert unrank_permutation(rank, n, order) == perm
    assert rank_permutation(perm) == rank_permutation_array(np.array(perm, dtype=np.int64))


@settings(max_examples=40, deadline=None)
@given(st.integers(21, 120).flatmap(lambda n: st.permutations(range(n))))
def test_permutation_ranks_beyond_64_bits(perm):
    perm = tuple(perm)
    for order in ("lex", "mr"):
        assert unrank_permutation(rank_permutation(perm, order), len(perm), order) == perm


@pytest.mark.parametrize("n", sizes(7, start=2))
def test_even_permutations_are_lex_order_halved(n):
    even = [p for p in itertools.permutations(range(n)) if inversions(p) % 2 == 0]
    assert len(even) == math.factorial(n) // 2
    for rank, perm in enumerate(even):
        assert rank_even_permutation(perm) == rank == rank_permutation(perm) // 2
        assert unrank_even_permutation(rank, n) == perm


@settings(max_examples=100, deadline=None)
@given(st.integers(2, 30).flatmap(lambda n: st.permutations(range(n))))
def test_even_permutation_images_are_even(perm):
    n = len(perm)
    if inversions(perm) % 2:
        perm[-2], perm[-1] = perm[-1], perm[-2]
    rank = rank_even_permutation(perm)
    assert 0 <= rank < math.factorial(n) // 2
    image = unrank_even_permutation(rank, n)
    assert image == tuple(perm)
    assert inversions(image) % 2 == 0


@pytest.mark.parametrize("n", sizes(7))
def test_partial_permutation_is_itertools_order(n):
    for k in range(n + 1):
        for rank, items in enumerate(itertools.permutations(range(n), k)):
            assert rank_partial_permutation(items, n) == rank
            assert unrank_partial_permutation(rank, n, k) == items
        assert rank + 1 == math.perm(n, k)
    assert rank_partial_permutation(items, n) == rank_permutation(items)  # k = n


@settings(max_examples=100, deadline=None)
@given(st.data())
def test_partial_permutation_round_trips(data):
    n = data.draw(st.integers(0, 40))
    k = data.draw(st.integers(0, n))
    items = tuple(data.draw(st.permutations(range(n)))[:k])
    rank = rank_partial_permutation(items, n)
    assert 0 <= rank < math.perm(n, k)
    assert unrank_partial_permutation(rank, n, k) == items


# ---------------------------------------------------------------------------------------
# Orientations
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("v", [1, 2, 3, 4])
def test_orientation_is_product_order(v):
    for n in range(7):
        for rank, ori in enumerate(itertools.product(range(v), repeat=n)):
            assert rank_orientation(ori, v) == rank
            assert unrank_orientation(rank, n, v) == ori
        assert rank + 1 == v**n == orientation_count(n, v)


@pytest.mark.parametrize("v", [1, 2, 3, 4])
def test_zero_sum_orientation_is_filtered_product_order(v):
    for n in range(1, 7):
        zero = [o for o in itertools.product(range(v), repeat=n) if sum(o) % v == 0]
        assert len(zero) == v ** (n - 1) == orientation_count(n, v, zero_sum=True)
        for rank, ori in enumerate(zero):
            assert rank_orientation(ori, v, zero_sum=True) == rank
            assert unrank_orientation(rank, n, v, zero_sum=True) == ori


def test_seed_pocket_cube_sizes():
    # The VB guide: 7 corners move (one stays put), 7! permutations and 3^6 orientations.
    assert unrank_permutation(5039, 7) == (6, 5, 4, 3, 2, 1, 0)
    with pytest.raises(ValueError):
        unrank_permutation(5040, 7)
    assert orientation_count(7, 3, zero_sum=True) == 729
    assert unrank_orientation(728, 7, 3, zero_sum=True) == (2, 2, 2, 2, 2, 2, 0)
    with pytest.raises(ValueError):
        unrank_orientation(729, 7, 3, zero_sum=True)
    # 5040 * 729 = 3674160 positions of the pocket cube.
    assert math.factorial(7) * orientation_count(7, 3, zero_sum=True) == 3674160


def test_seed_pocket_cube_coordinate_is_a_bijection():
    # coordinate = permutation index * 729 + orientation index covers 0..5040*729-1.
    rng = random.Random(7)
    for _ in range(200):
        coordinate = rng.randrange(5040 * 729)
        p, o = divmod(coordinate, 729)
        perm, ori = unrank_permutation(p, 7), unrank_orientation(o, 7, 3, zero_sum=True)
        assert sum(ori) % 3 == 0
        assert rank_permutation(perm) * 729 + rank_orientation(ori, 3, zero_sum=True) == coordinate


def test_seed_eight_corner_orientation_formula():
    # All 8 corners: o = sum of O_i * 3^(6-i) over the first 7, the 8th is implied.
    rng = random.Random(8)
    for _ in range(100):
        first = [rng.randrange(3) for _ in range(7)]
        ori = (*first, -sum(first) % 3)
        expected = sum(d * 3 ** (6 - i) for i, d in enumerate(first))
        assert rank_orientation(ori, 3, zero_sum=True) == expected
        assert unrank_orientation(expected, 8, 3, zero_sum=True) == ori
    assert orientation_count(8, 3, zero_sum=True) == 3**7


@settings(max_examples=100, deadline=None)
@given(st.data())
def test_orientation_round_trips(data):
    v = data.draw(st.integers(1, 6))
    zero_sum = data.draw(st.booleans())
    n = data.draw(st.integers(1 if zero_sum else 0, 50))
    rank = data.draw(st.integers(0, orientation_count(n, v, zero_sum) - 1))
    ori = unrank_orientation(rank, n, v, zero_sum)
    assert len(ori) == n and all(0 <= d < v for d in ori)
    assert not zero_sum or sum(ori) % v == 0
    assert rank_orientation(ori, v, zero_sum) == rank


# ---------------------------------------------------------------------------------------
# Compiled and batch forms against the scalar ones
# ---------------------------------------------------------------------------------------


def test_batch_masks_equal_scalar_colex():
    rng = np.random.default_rng(1)
    for n in (1, 5, 20, 40, 63, 64):
        for k in sorted({0, 1, n // 2, n - 1, n}):
            cells_list = [tuple(sorted(rng.choice(n, k, replace=False))) for _ in range(50)]
            masks = np.array([mask_of(cells) for cells in cells_list], dtype=np.uint64)
            ranks = rank_colex_masks(masks)
            assert ranks.tolist() == [rank_combination(c, n, "colex") for c in cells_list]
            assert (unrank_colex_masks(ranks, n, k) == masks).all()
            ranks = rng.integers(0, binomial(n, k), 50, dtype=np.int64)
            expected = [mask_of(unrank_combination(int(r), n, k, "colex")) for r in ranks]
            assert unrank_colex_masks(ranks, n, k).tolist() == expected


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int32, np.int64])
def test_permutation_arrays_equal_scalar(dtype):
    rng = np.random.default_rng(2)
    for n in range(21):
        for _ in range(20):
            perm = rng.permutation(n).astype(dtype)
            assert rank_permutation_array(perm) == rank_permutation(perm.tolist())
            rank = int(rng.integers(0, math.factorial(n)))
            out = np.empty(n, dtype=dtype)
            unrank_permutation_array(rank, out)
            assert tuple(out.tolist()) == unrank_permutation(rank, n)


@pytest.mark.parametrize("zero_sum", [False, True])
def test_orientation_arrays_equal_scalar(zero_sum):
    rng = np.random.default_rng(3)
    for v in (2, 3, 4):
        for n in range(1, 30):
            ori = list(rng.integers(0, v, n))
            if zero_sum:
                ori[-1] = -sum(ori[:-1]) % v
            ori = np.array(ori, dtype=np.uint8)
            assert rank_orientation_array(ori, v, zero_sum) == rank_orientation(
                ori.tolist(), v, zero_sum
            )
            rank = int(rng.integers(0, min(orientation_count(n, v, zero_sum), INT64_MAX)))
            out = np.empty(n, dtype=np.int64)
            unrank_orientation_array(rank, v, zero_sum, out)
            assert tuple(out.tolist()) == unrank_orientation(rank, n, v, zero_sum)


@numba.njit(cache=True)
def _sweep_round_trip_failures(n, v):
    # Stand-in for a distance-table sweep: unrank and rank every index in compiled code.
    failures = 0
    perm = np.empty(n, dtype=np.int8)
    total = 1
    for i in range(2, n + 1):
        total *= i
    for rank in range(total):
        unrank_permutation_array(rank, perm)
        failures += rank_permutation_array(perm) != rank
    ori = np.empty(n, dtype=np.int8)
    count = v ** (n - 1)
    for rank in range(count):
        unrank_orientation_array(rank, v, True, ori)
        failures += rank_orientation_array(ori, v, True) != rank
        failures += ori.sum() % v != 0
    return failures


def test_array_forms_are_callable_from_compiled_loops():
    assert _sweep_round_trip_failures(7, 3) == 0


# ---------------------------------------------------------------------------------------
# Bad input
# ---------------------------------------------------------------------------------------

BAD_INPUT = [
    (binomial, (-1, 0), "n must be non-negative"),
    (rank_combination, ((1, 1), 4), "duplicate cell 1"),
    (rank_combination, ((0, 4), 4), "cell 4 out of range"),
    (rank_combination, ((-1, 2), 4), "cell -1 out of range"),
    (rank_combination, ((2, 1), 4), "ascending"),
    (rank_combination, ((0, 1), 4, "revlex"), "unknown order 'revlex'"),
    (unrank_combination, (6, 4, 2), "rank 6 out of range"),
    (unrank_combination, (-1, 4, 2), "rank -1 out of range"),
    (unrank_combination, (0, 4, 5), "k = 5 exceeds n = 4"),
    (unrank_combination, (0, 4, 2, "gray"), "unknown order"),
    (cells_to_mask, ((0, 1), 257), "at most 256 cells"),
    (mask_to_cells, (1, 257), "at most 256 cells"),
    (mask_to_cells, (0b10000, 4), "bits at or above"),
    (rank_placement, ((1, 0, 1), (1,)), r"pieces \[2\]"),
    (rank_placement, ((1, 0, 3), (1, 1)), "piece type 3 out of range"),
    (rank_placement, ((1, 0, -1), (1, 1)), "piece type -1 out of range"),
    (rank_placement, ((1, 0), (1, 2)), "3 pieces do not fit on 2 cells"),
    (rank_placement, ((0, 0), (-1,)), "piece count must be non-negative"),
    (unrank_placement, (12, 4, (2, 1)), "rank 12 out of range"),
    (unrank_placement, (0, 2, (2, 1)), "do not fit"),
    (rank_permutation, ((0, 2, 2),), "duplicate item 2"),
    (rank_permutation, ((0, 3, 1),), "item 3 out of range"),
    (rank_permutation, ((0, 1), "colex"), "unknown order"),
    (unrank_permutation, (24, 4), "rank 24 out of range"),
    (unrank_permutation, (0, 4, "random"), "unknown order"),
    (rank_even_permutation, ((1, 0, 2),), "odd"),
    (rank_even_permutation, ((0,),), "n >= 2"),
    (unrank_even_permutation, (12, 4), "rank 12 out of range"),
    (unrank_even_permutation, (0, 1), "n >= 2"),
    (rank_partial_permutation, ((0, 0), 3), "duplicate item 0"),
    (rank_partial_permutation, ((0, 3), 3), "item 3 out of range"),
    (unrank_partial_permutation, (6, 3, 2), "rank 6 out of range"),
    (unrank_partial_permutation, (0, 3, 4), "k = 4 exceeds n = 3"),
    (rank_orientation, ((0, 3), 3), "orientation 3 out of range"),
    (rank_orientation, ((0, -1), 3), "orientation -1 out of range"),
    (rank_orientation, ((1, 1), 3, True), "do not sum to 0 mod 3"),
    (rank_orientation, ((), 3, True), "zero_sum needs at least one piece"),
    (rank_orientation, ((0, 0), 0), "v must be at least 1"),
    (unrank_orientation, (9, 3, 3, True), "rank 9 out of range"),
    (unrank_orientation, (27, 3, 3), "rank 27 out of range"),
]


@pytest.mark.parametrize(("function", "args", "message"), BAD_INPUT)
def test_bad_input_raises_value_error(function, args, message):
    with pytest.raises(ValueError, match=message):
        function(*args)
