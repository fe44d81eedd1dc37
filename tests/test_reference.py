"""The reference oracle agrees with hand-checkable facts about each puzzle family."""

from functools import partial
from math import comb
from pathlib import Path

import pytest
from reference import (
    ORTHOGONAL,
    TRIANGULAR,
    all_placements,
    all_positions,
    analyze,
    capture_children,
    fling_children,
    fling_hash,
    jump_children,
    load_fling_levels,
    rectangle,
    triangle,
)

FLING_LEVELS = Path(__file__).parent / "data" / "fling_levels"


def cells(*pairs):
    return frozenset(pairs)


def row(*cols):
    """Balls on row 0 of a one-row board."""
    return frozenset((0, c) for c in cols)


def pieces(**placed):
    """pieces(R=[(0, 0)], B=[(0, 3)]) -> frozenset of ((row, col), letter)."""
    return frozenset((cell, letter) for letter, where in placed.items() for cell in where)


# --------------------------------------------------------------------------------------------
# Peg solitaire
# --------------------------------------------------------------------------------------------


def test_jump_on_a_strip_of_three():
    strip = rectangle(1, 3)
    assert jump_children(strip, ORTHOGONAL, row(0, 1)) == {row(2)}
    assert jump_children(strip, ORTHOGONAL, row(1, 2)) == {row(0)}
    assert jump_children(strip, ORTHOGONAL, row(0, 2)) == set()
    assert jump_children(strip, ORTHOGONAL, row(0, 1, 2)) == set()


def test_jump_needs_landing_cell_on_the_board():
    # A 2 x 2 board: nothing can ever jump, there is no room to land.
    square = rectangle(2, 2)
    for occupied in all_positions(square, 2):
        assert jump_children(square, ORTHOGONAL, occupied) == set()
    # A hole in the board (cell (0, 2) missing) blocks the jump, too.
    holed = rectangle(1, 4) - {(0, 2)}
    assert jump_children(holed, ORTHOGONAL, row(0, 1)) == set()


def test_diagonal_jumps_only_with_diagonal_directions():
    board = rectangle(3, 3)
    start = cells((0, 0), (1, 1))
    assert jump_children(board, ORTHOGONAL, start) == set()
    diagonal = ORTHOGONAL + [(-1, -1), (-1, 1), (1, -1), (1, 1)]
    assert jump_children(board, diagonal, start) == {cells((2, 2))}


def test_triangle_jumps_follow_axial_directions():
    tri = triangle(3)  # (0,0); (1,0) (1,1); (2,0) (2,1) (2,2)
    # Along the rows' diagonal direction (1, 1): (0,0) over (1,1) into (2,2).
    assert jump_children(tri, TRIANGULAR, cells((0, 0), (1, 1))) == {cells((2, 2))}
    # (1, -1) is not a triangular direction: (2,0) cannot jump over (1,1) to (0,2).
    assert jump_children(tri, TRIANGULAR, cells((2, 0), (1, 0))) == {cells((0, 0))}
    assert jump_children(tri, TRIANGULAR, cells((2, 2), (2, 1))) == {cells((2, 0))}


def test_every_single_vacancy_of_the_15_hole_triangle_is_solvable():
    tri = triangle(5)
    assert len(tri) == 15
    children = partial(jump_children, tri, TRIANGULAR)
    memo = {}
    for hole in sorted(tri):
        result = analyze(children, tri - {hole}, goal_pieces=1, memo=memo)
        assert result.solvable, hole


# --------------------------------------------------------------------------------------------
# Fling!
# --------------------------------------------------------------------------------------------


def test_fling_struck_ball_passes_impulse_to_its_neighbour():
    # o.oo...  flinging the left ball right: it stops on column 1, the ball on column 2
    # cannot move (column 3 is taken) and passes the impulse on; column 3 flies off.
    assert fling_children(1, 7, row(0, 2, 3)) == {row(1, 2), row(1, 3)}


def test_fling_struck_ball_slides_to_the_next_ball():
    # o.o..o.  the left ball stops on 1; the ball on 2 slides to 4, the ball on 5 flies off.
    children = fling_children(1, 7, row(0, 2, 5))
    assert row(1, 4) in children
    # The middle ball flung left knocks the left ball off, flung right the right ball; the
    # right ball flung left stops on 3, the middle ball slides to 1 and the left one flies off.
    assert children == {row(1, 4), row(1, 5), row(0, 4), row(1, 3)}


def test_fling_needs_an_empty_neighbour_and_a_target():
    assert fling_children(1, 7, row(2, 3)) == set()  # adjacent balls cannot be flung
    assert fling_children(1, 7, row(3)) == set()
    assert fling_children(3, 3, cells((0, 0), (1, 1))) == set()  # no shared line
    assert fling_children(3, 3, cells((0, 0), (0, 2))) == {cells((0, 1))}


def test_fling_works_in_columns():
    # A column of 4: balls on rows 0 and 3.
    assert fling_children(4, 1, cells((0, 0), (3, 0))) == {cells((2, 0)), cells((1, 0))}


def test_fling_solutions_are_distinct_board_sequences():
    # Row of five with balls on 0, 2, 4. Flinging 0 right and 4 left both give {1, 3}.
    start = row(0, 2, 4)
    children = partial(fling_children, 1, 5)
    assert children(start) == {row(1, 3), row(1, 4), row(0, 3)}
    # {1,3} -> {2} either way: 1. {1,4} -> {3} or {2}: 2. {0,3} -> {2} or {1}: 2.
    assert analyze(children, start, goal_pieces=1).solutions == 5
    # Counting the last step once: 1 + 1 + 1.
    assert analyze(children, start, goal_pieces=1, final_step_once=True).solutions == 3


def test_fling_has_267_solvable_two_ball_boards():
    children = partial(fling_children, 8, 7)
    board = rectangle(8, 7)
    memo = {}
    positions = list(all_positions(board, 2))
    assert len(positions) == comb(56, 2)
    solvable = sum(analyze(children, p, goal_pieces=1, memo=memo).solvable for p in positions)
    # Two balls in a line with a gap: 8 rows * 15 + 7 columns * 21.
    assert solvable == 267


def test_fling_levels_load_and_check_hashes():
    levels = load_fling_levels(FLING_LEVELS)
    assert len(levels) == 248
    assert sorted({level for level, _ in levels}) == list(range(1, 36))
    first_level, first_board = levels[0]
    assert first_level == 1
    assert first_board == cells((2, 2), (7, 1), (7, 6))
    assert fling_hash(first_board) == 37154696925872128


def test_fling_level_loader_rejects_wrong_hash(tmp_path):
    board = ["o......", "......o"] + ["......."] * 6
    good = fling_hash({(0, 0), (1, 6)})
    (tmp_path / "level1.txt").write_text(f"Hash: {good}\n" + "\n".join(board) + "\n\n----\n")
    assert load_fling_levels(tmp_path) == [(1, cells((0, 0), (1, 6)))]
    (tmp_path / "level1.txt").write_text(f"Hash: {good + 1}\n" + "\n".join(board) + "\n")
    with pytest.raises(ValueError, match="Hash"):
        load_fling_levels(tmp_path)


def assert_uniquely_solvable(boards):
    children = partial(fling_children, 8, 7)
    memo = {}
    for level, balls in boards:
        result = analyze(children, balls, goal_pieces=1, final_step_once=True, memo=memo)
        assert result.solvable and result.unique, (level, sorted(balls), result)


HARDER_BOARDS = {23: 4, 24: 7, 25: 3, 26: 7, 27: 0, 28: 3, 29: 7, 30: 3, 31: 6, 32: 4, 33: 2, 34: 7, 35: 1}
"""For each level past 22, which of its boards (counting from 0 in file order) the default run
solves: a 14-ball board whose search stays among the smaller of its level."""


def test_shipped_fling_levels_are_uniquely_solvable():
    # The whole set reaches about 2.2 million distinct positions (up to ~115,000 from a single
    # 14-ball board), too many for the default run in plain Python. Here: every board of
    # levels 1-22 and one 14-ball board of each harder level; the slow test checks all 248.
    levels = load_fling_levels(FLING_LEVELS)
    assert len(levels) == 248
    chosen, index = [], {}
    for level, balls in levels:
        index[level] = index.get(level, -1) + 1
        if level <= 22 or HARDER_BOARDS[level] == index[level]:
            chosen.append((level, balls))
    assert len({level for level, _ in chosen}) == 35
    assert all(len(balls) == 14 for level, balls in chosen if level > 22)
    assert_uniquely_solvable(chosen)


@pytest.mark.slow
def test_every_shipped_fling_level_is_uniquely_solvable():
    levels = load_fling_levels(FLING_LEVELS)
    assert len(levels) == 248
    assert_uniquely_solvable(levels)


# --------------------------------------------------------------------------------------------
# Solitaire Chess
# --------------------------------------------------------------------------------------------


def test_rook_is_blocked_by_the_first_piece():
    board = rectangle(1, 4)
    start = pieces(R=[(0, 0)], N=[(0, 1)], B=[(0, 3)])
    assert capture_children(board, start) == {pieces(R=[(0, 1)], B=[(0, 3)])}


def test_queen_captures_first_piece_on_each_ray():
    board = rectangle(5, 5)
    # Pawns placed where they have nothing to capture themselves.
    start = pieces(Q=[(4, 2)], P=[(2, 2), (0, 2), (4, 0), (2, 4)])
    assert capture_children(board, start) == {
        pieces(Q=[(2, 2)], P=[(0, 2), (4, 0), (2, 4)]),
        pieces(Q=[(4, 0)], P=[(2, 2), (0, 2), (2, 4)]),
        pieces(Q=[(2, 4)], P=[(2, 2), (0, 2), (4, 0)]),
    }


def test_bishop_moves_only_diagonally():
    board = rectangle(3, 3)
    assert capture_children(board, pieces(B=[(0, 0)], N=[(0, 2)])) == set()
    assert capture_children(board, pieces(B=[(0, 0)], R=[(2, 2)])) == {pieces(B=[(2, 2)])}


def test_pawn_captures_only_diagonally_up():
    board = rectangle(3, 3)
    captured_at = set()
    for dr in (-1, 0, 1):
        for dc in (-1, 0, 1):
            if (dr, dc) == (0, 0):
                continue
            # A rook on a diagonal neighbour, a bishop on an orthogonal one: neither can
            # reach the pawn, so any move is the pawn's.
            other = "R" if dr and dc else "B"
            target = (1 + dr, 1 + dc)
            start = frozenset({((1, 1), "P"), (target, other)})
            children = capture_children(board, start)
            if children:
                assert children == {frozenset({(target, "P")})}
                captured_at.add(target)
    assert captured_at == {(0, 0), (0, 2)}


def test_knight_leaps_over_pieces():
    board = rectangle(3, 3)
    start = pieces(N=[(0, 0)], R=[(2, 1)], B=[(1, 0)])
    children = capture_children(board, start)
    assert pieces(N=[(2, 1)], B=[(1, 0)]) in children
    # The knight cannot take the adjacent bishop.
    assert all(((1, 0), "N") not in child for child in children)


def test_king_steps_once_and_king_safe_protects_it():
    board = rectangle(1, 3)
    start = pieces(K=[(0, 0)], R=[(0, 2)])
    assert capture_children(board, start) == {pieces(R=[(0, 0)])}  # the king is too far
    assert capture_children(board, start, king_safe=True) == set()
    adjacent = pieces(K=[(0, 0)], N=[(0, 1)])
    assert capture_children(board, adjacent, king_safe=True) == {pieces(K=[(0, 1)])}


def test_capture_game_counts_solutions():
    # R . R . R on one row. The middle rook taking either neighbour leaves rooks on 0 and 4
    # both times, so four moves give three distinct children: {2, 4}, {0, 4}, {0, 2}.
    board = rectangle(1, 5)
    start = pieces(R=[(0, 0), (0, 2), (0, 4)])
    children = partial(capture_children, board)
    assert children(start) == {
        pieces(R=[(0, 2), (0, 4)]),
        pieces(R=[(0, 0), (0, 4)]),
        pieces(R=[(0, 0), (0, 2)]),
    }
    result = analyze(children, start, goal_pieces=1)
    assert result.solvable and result.all_moves
    # Each two-rook child has two moves to two different squares: 3 * 2.
    assert result.solutions == 6


# --------------------------------------------------------------------------------------------
# Solver definitions on a hand-made move graph
# --------------------------------------------------------------------------------------------

GRAPH = {
    frozenset({1, 2, 3}): [frozenset({1, 2}), frozenset({1, 3}), frozenset({2, 3})],
    frozenset({1, 2}): [frozenset({1}), frozenset({2})],
    frozenset({1, 3}): [frozenset({1}), frozenset({1})],  # two moves, one child
    frozenset({2, 3}): [],
}


def graph_children(p):
    return GRAPH[p]  # KeyError for anything the solver should not expand


def test_solutions_sum_over_distinct_children():
    top = frozenset({1, 2, 3})
    result = analyze(graph_children, top, goal_pieces=1)
    assert (result.solvable, result.solutions, result.all_moves) == (True, 3, False)
    assert analyze(graph_children, frozenset({1, 2}), goal_pieces=1).all_moves
    assert analyze(graph_children, frozenset({1, 3}), goal_pieces=1).unique
    dead = analyze(graph_children, frozenset({2, 3}), goal_pieces=1)
    assert (dead.solvable, dead.solutions, dead.all_moves) == (False, 0, False)


def test_final_step_counted_once():
    top = frozenset({1, 2, 3})
    assert analyze(graph_children, frozenset({1, 2}), 1, final_step_once=True).solutions == 1
    assert analyze(graph_children, top, goal_pieces=1, final_step_once=True).solutions == 2


def test_goal_layer_is_not_expanded_and_has_no_all_moves():
    goal = analyze(graph_children, frozenset({1}), goal_pieces=1)
    assert (goal.solvable, goal.solutions, goal.all_moves) == (True, 1, False)
    # With the goal at two pieces, the two-piece positions are goals and never expanded.
    top = analyze(graph_children, frozenset({1, 2, 3}), goal_pieces=2)
    assert (top.solvable, top.solutions, top.all_moves) == (True, 3, True)
    below = analyze(graph_children, frozenset({1}), goal_pieces=2)
    assert (below.solvable, below.solutions, below.all_moves) == (False, 0, False)


def test_is_goal_restricts_goal_positions():
    def only_one(p):
        return p == frozenset({1})

    top = analyze(graph_children, frozenset({1, 2, 3}), goal_pieces=1, is_goal=only_one)
    assert top.solutions == 2
    pair = analyze(graph_children, frozenset({1, 2}), goal_pieces=1, is_goal=only_one)
    assert (pair.solvable, pair.solutions, pair.all_moves) == (True, 1, False)
    miss = analyze(graph_children, frozenset({2}), goal_pieces=1, is_goal=only_one)
    assert not miss.solvable


# --------------------------------------------------------------------------------------------
# Enumeration
# --------------------------------------------------------------------------------------------


def test_all_positions_counts():
    board = rectangle(3, 4)
    for k in range(13):
        positions = list(all_positions(board, k))
        assert len(positions) == comb(12, k)
        assert len(set(positions)) == len(positions)
        assert all(len(p) == k and p <= board for p in positions)


def test_all_placements_counts():
    board = rectangle(2, 3)
    placements = list(all_placements(board, {"K": 1, "R": 2, "P": 0}))
    assert len(placements) == 6 * comb(5, 2)
    assert len(set(placements)) == len(placements)
    for p in placements:
        letters = sorted(letter for _, letter in p)
        assert letters == ["K", "R", "R"]
        assert len({cell for cell, _ in p}) == 3
