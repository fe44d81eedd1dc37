"""Playing positions of a universe (`curator.universe.play`, `UniverseResults.play`): drawings
read and refused, legal moves and their distances against the plain reference, and the
distances measured on demand against the stored tables for the sets of the 4x4 universe
(every ninth and the hardest; every set with `-m slow`)."""

from __future__ import annotations

from pathlib import Path

import pytest
import universe_reference as ref

from curator.common.difficulty import walked_terms
from curator.common.errors import SelectionError
from curator.picture import svg_text
from curator.universe import results as universe_results
from curator.universe.analysis import analyze_universe
from curator.universe.play import Positions, UniversePosition
from curator.universe.puzzle import load_universe, parse_universe
from curator.universe.results import UniverseResults
from curator.universe.space import build_space
from curator.universe.sweep import walk_counts

DATA = Path(__file__).parent / "data"


@pytest.fixture(scope="module")
def results(tmp_path_factory) -> UniverseResults:
    u = parse_universe((DATA / "rush-hour-4x4.toml").read_text(), "rush-hour-4x4.toml")
    return UniverseResults(analyze_universe(u, tmp_path_factory.mktemp("universe"), 1, force=False))


def flat(board: str) -> str:
    return board.replace("/", "")


def cells(text: str) -> tuple[int, int]:
    r, c = text.split(",")
    return int(r), int(c)


@pytest.mark.parametrize("step", [pytest.param(1, marks=pytest.mark.slow), 9])  # every set: 18 s
def test_sets_measured_on_demand_match_the_stored_tables(results, step):
    positions = results.positions
    hardest = [level.rank for level in results.select(hardest=True, limit=20)]
    ranks = sorted(set(range(0, results.sets, step)) | set(hardest))
    assert hardest and any(results.level(rank).distance is None for rank in ranks)
    for rank in ranks:
        level = results.level(rank)
        farthest = results.position(level.board)
        found = positions.explored(farthest)
        assert (found.distance(farthest.code), found.size, found.farthest) == (
            level.distance, level.cluster, level.distance), rank
        first = results.position(level.first)
        assert positions.explored(first) is found  # the same set, kept from the last time
        if level.distance is None:
            assert found.distance(first.code) is None
        else:
            assert 0 <= found.distance(first.code) <= level.distance


def test_moves_and_their_distances_are_the_references(results):
    rows, cols = results.puzzle.rows, results.puzzle.cols
    for level in results.select(limit=400)[::7] + results.select(solvable=False, limit=20):
        for board in (level.board, level.first):
            report = results.play(board)
            here = ref.fewest_moves(rows, cols, flat(board))
            assert report.distance == here
            assert report.goal == ref.is_goal(rows, cols, flat(board))
            assert sorted(flat(m.position.board) for m in report.moves) == sorted(
                ref.neighbours(rows, cols, flat(board)))
            for move in report.moves:
                assert move.distance == ref.fewest_moves(rows, cols, flat(move.position.board))
                assert move.closer == (here is not None and move.distance == here - 1)
                if here is not None:
                    assert abs(move.distance - here) <= 1


def test_a_shortest_solution_replays_to_the_goal(results):
    for level in results.select(hardest=True, limit=30):
        report = results.play(level.board)
        assert len(report.solution) == report.distance == level.distance
        assert report.farthest == level.distance and report.cluster == level.cluster
        board = level.board
        for step, text in enumerate(report.solution, start=1):
            letter, source, _, target = text.split()
            after = results.move(board, cells(source), cells(target))
            assert after.distance == level.distance - step
            assert results.position(board).vehicle_at(cells(source)).letter == letter
            board = after.position.board
        assert after.goal and after.distance == 0 and after.solution == ()


def test_a_hinted_move_is_one_closer_and_the_last_reaches_the_goal(results):
    level = results.select(distance=(3, 3), limit=1)[0]
    report = results.play(level.board)
    while report.distance:
        closer = [m for m in report.moves if m.closer]
        assert closer and all(m.distance == report.distance - 1 for m in closer)
        report = results.move(report.position.board, closer[0].source, closer[0].target)
    assert report.goal and report.distance == 0


def plain_counts(positions: Positions, here: UniversePosition, lookahead: float) -> list[int]:
    """What `walk_counts` counts, walked move by move as `Positions.solution` takes the moves:
    steps, tempting detours (wrongness shows only past `lookahead`: d > lookahead), long ones,
    dead ends (none in a set), forced steps, legal moves."""
    counts = [0] * 6
    while (d := positions.distance(here)) != 0:
        moves = positions.moves(here)
        wrong = [m for m in moves if not m.closer]
        if d > lookahead:
            counts[1] += len(wrong)
            counts[2] += sum(1 for m in wrong if m.distance - d + 1 >= 2)
        counts[4] += len(moves) == 1
        counts[5] += len(moves)
        counts[0] += 1
        here = next(m for m in moves if m.closer).position
    return counts


def test_the_terms_of_a_puzzle_are_those_met_along_its_shown_solution(results):
    positions = results.positions
    levels, matched = results.selection({"solvable": True, "sample": 508})  # drawn from them all
    assert matched == 15739 and len(levels) == 508
    some_detours = 0
    for level in levels:
        here = results.position(level.board)
        plain = plain_counts(positions, here, 0.0)
        assert level.difficulty_terms == walked_terms(plain).text(), level.rank
        assert plain[0] == level.distance == level.difficulty
        some_detours += plain[1] > 0
        for lookahead in (1.0, 2.5):
            counts = walk_counts(results.space, here.groups, here.wall_mask, here.code, lookahead)
            assert counts.tolist() == plain_counts(positions, here, lookahead), (level.rank, lookahead)
    assert some_detours > 100  # the walks meet detours: the counts are not all trivially zero
    assert results.select(solvable=False, limit=1)[0].difficulty_terms == ""


def test_puzzles_of_sets_too_large_to_explore_in_a_list_have_no_terms(results, monkeypatch):
    monkeypatch.setattr(universe_results, "EXPLAINED_MOST", 20)
    levels = results.select(solvable=True, cluster=(16, 30), limit=None)  # sizes on both sides
    assert {level.difficulty_terms == "" for level in levels} == {True, False}
    assert all((level.difficulty_terms == "") == (level.cluster > 20) for level in levels)


def test_an_unsolvable_set_reports_no_distance(results):
    level = results.select(solvable=False, limit=1)[0]
    report = results.play(level.board)
    assert report.distance is None and report.farthest is None and not report.solvable
    assert report.solution == () and all(m.distance is None and not m.closer for m in report.moves)


@pytest.mark.parametrize(("board", "message"), [
    ("..../RR../....", "4 x 4: draw 4 rows of 4 cells joined by '/', got 3 rows"),
    ("..../..../RR.../....", "row 2 has 5 cells"),
    ("..z./..../RR../....", "'z' at 0,2 is no vehicle of rush-hour-4x4"),
    ("hhh./..../RR../....", "the h cells 0,0..0,2 are not whole h vehicles (2 cells along a row)"),
    ("v.../..../RR../....", "the v cells 0,0..0,0 are not whole v vehicles (2 cells along a column)"),
    ("VV../VV../VV../....", "0 R vehicles; rush-hour-4x4 has 1..1"),
    ("x.../x.../RR../x...", "3 walls; rush-hour-4x4 has 0..2"),
    ("..../RR../..../....", "the goal vehicle R stands in row 2, not row 1"),
    ("..../..../RRhh/....", "row 2 holds the goal vehicle R alone"),
    ("..../..../RRx./....", "the wall at 2,2 stands right of the goal vehicle R"),
    ("hhhh/..../RR../....", "row 0 is full"),
])
def test_a_drawing_that_is_no_position_is_refused_in_one_line(results, board, message):
    with pytest.raises(SelectionError, match="^board: ") as raised:
        results.play(board)
    assert message in str(raised.value) and "\n" not in str(raised.value)


def test_an_illegal_move_is_refused(results):
    board = "v.hh/vHHH/RR.v/hh.v"
    with pytest.raises(SelectionError, match=r"move 2,0 -> 2,2: it is not a legal slide here"):
        results.move(board, (2, 0), (2, 2))
    with pytest.raises(SelectionError, match="no vehicle starts there"):
        results.move(board, (0, 1), (0, 0))


def test_drawings_read_with_line_breaks_and_draw_back(results):
    position = results.position("v.hh\nvHHH\nRR.v\nhh.v\n")
    assert position.board == "v.hh/vHHH/RR.v/hh.v"
    assert results.puzzle.draw(position) == "v.hh\nvHHH\nRR.v\nhh.v"
    assert position.counts == {"R": 1, "h": 2, "H": 1, "v": 2}
    assert [(v.letter, v.anchor) for v in position.vehicles] == [
        ("h", (0, 2)), ("H", (1, 1)), ("R", (2, 0)), ("h", (3, 0)), ("v", (0, 0)), ("v", (2, 3))]


def test_the_picture_draws_vehicles_and_walls(results):
    svg = svg_text(results.picture("xhh./v.../vRR./...."), standalone=False)
    assert svg.count('class="piece"') == 3
    for anchor in (1, 4, 9):  # h at 0,1, v at 1,0, R at 2,1
        assert f'data-cell="{anchor}"' in svg


ROOT = Path(__file__).parent.parent
CARDS = ROOT / "benchmarks" / "graded" / "rush-hour-cards.txt"


def test_the_forty_original_rush_hour_cards_need_their_published_moves():
    """An independent published table: the shortest solutions of the original game's 40 cards
    (benchmarks/graded/rush-hour-cards.txt), measured in the wall-free 6 x 6 universe. The last
    card is the universe's hardest set (51 moves, 4,780 positions in Fogleman's database)."""
    universe = load_universe(ROOT / "puzzles" / "rush-hour-no-walls.toml")
    positions = Positions(universe, build_space(universe))
    cards = [line.split() for line in CARDS.read_text().splitlines() if line and not line.startswith("#")]
    assert [int(card) for card, *_ in cards] == list(range(1, 41))
    for card, _grade, moves, board in cards:
        assert positions.distance(positions.read(board)) == int(moves), card
    last = positions.explored(positions.read(cards[-1][3]))
    assert (last.size, last.farthest) == (4780, 51)
