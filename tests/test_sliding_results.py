"""Sliding-block puzzles end to end: the bundled puzzles' published figures, stored tables,
resuming, selection, solving, exports and the command line's errors."""

from __future__ import annotations

import json
import math
import shutil
from collections import deque
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import curator
from curator.arrange import curve_from_difficulties
from curator.common import goal_tables
from curator.common.errors import PuzzleError, SelectionError, StoreError
from curator.sliding.puzzle import load_sliding_puzzle, parse_sliding_puzzle
from curator.sliding.select import move_text
from curator.sliding.store import TABLES
from tests.cli_helpers import error_line, invoke
from tests.engine_readers import EXIT, WALL, box, read_ldtk, read_tiled

PUZZLES = Path(__file__).resolve().parents[1] / "puzzles"


def reachable(puzzle, start, until_goal=False):
    """Plain breadth-first search from `start` with the reference moves: distance of each
    position reached, and the first distance at which a goal is met (`until_goal`: stop there)."""
    seen = {start: 0}
    todo = deque([start])
    best = None
    while todo:
        here = todo.popleft()
        if best is None and puzzle.is_goal(here):
            best = seen[here]
            if until_goal:
                break
        for move in puzzle.moves(here):
            if move.child not in seen:
                seen[move.child] = seen[here] + 1
                todo.append(move.child)
    return seen, best


def vehicles(puzzle, position):
    """A position of the bundled Rush Hour as the model below holds it: each vehicle as its
    letter and its cells (row, col), first to last."""
    cells = puzzle.board.cells
    return frozenset((g.letter, tuple(cells[i] for i in puzzle.piece_cells(g, a)))
                     for g, anchors in zip(puzzle.groups, position) for a in anchors)


def position_of(puzzle, state):
    """The puzzle's position of a model state: each vehicle anchored at its first cell."""
    anchors = [[] for _ in puzzle.groups]
    for letter, body in state:
        a = puzzle.board.index[body[0]]
        group = next(i for i, g in enumerate(puzzle.groups) if g.letter == letter and a in g.anchors)
        anchors[group].append(a)
    return tuple(tuple(sorted(placed)) for placed in anchors)


class RushHour:
    """A tiny model of Rush Hour on 6 x 6, sharing nothing with curator but the start (as
    `vehicles`): a position is the place of each vehicle along its own row or column, the
    vehicles in a fixed order; a move slides one vehicle any distance along it."""

    def __init__(self, start):
        self.letters, self.places, self.masks, offsets = [], [], [], []
        for letter, body in sorted(start):
            across = body[0][0] == body[-1][0]
            line = body[0][0] if across else body[0][1]
            places = [tuple((line, first + i) if across else (first + i, line) for i in range(len(body)))
                      for first in range(7 - len(body))]
            self.letters.append(letter)
            self.places.append(places)
            self.masks.append([sum(1 << (r * 6 + c) for r, c in place) for place in places])
            offsets.append(places.index(body))
        self.start = tuple(offsets)
        self.red = self.letters.index("R")

    def moves(self, state):
        taken = sum(masks[o] for masks, o in zip(self.masks, state))
        for v, (masks, o) in enumerate(zip(self.masks, state)):
            others = taken ^ masks[o]
            for step in (1, -1):
                to = o + step
                while 0 <= to < len(masks) and not masks[to] & others:
                    yield state[:v] + (to,) + state[v + 1:]
                    to += step

    def is_goal(self, state):
        return self.places[self.red][state[self.red]] == ((2, 4), (2, 5))

    def vehicles(self, state):
        return frozenset((letter, places[o]) for letter, places, o in zip(self.letters, self.places, state))


def test_rush_hour_start_needs_49_moves():
    # Published: this start needs 49 moves, sliding a vehicle any distance as one move; 24,132
    # positions are reachable from it. Counted with the model (the plain moves take 8 s for all:
    # test_rush_hour_plain_search_needs_49_moves), whose moves the plain ones match on a sample.
    puzzle = load_sliding_puzzle(PUZZLES / "rush-hour.toml")
    model = RushHour(vehicles(puzzle, puzzle.start))
    seen = {model.start: 0}
    todo = deque([model.start])
    best = None
    while todo:
        here = todo.popleft()
        if best is None and model.is_goal(here):
            best = seen[here]
        for after in model.moves(here):
            if after not in seen:
                seen[after] = seen[here] + 1
                todo.append(after)
    assert best == 49
    assert len(seen) == 24_132
    sample = list(seen)[::40]  # breadth first: positions near the start and far from it
    assert max(seen[state] for state in sample) > 49 and any(model.is_goal(state) for state in sample)
    for state in sample:
        drawn = model.vehicles(state)
        position = position_of(puzzle, drawn)
        assert vehicles(puzzle, position) == drawn
        moves = puzzle.moves(position)
        after = [model.vehicles(child) for child in model.moves(state)]
        assert len(moves) == len(after) and {vehicles(puzzle, move.child) for move in moves} == set(after)
        assert puzzle.is_goal(position) == model.is_goal(state)


@pytest.mark.slow
def test_rush_hour_plain_search_needs_49_moves():
    """The published figures by the plain moves, breadth first (8 s; the model's in the default run)."""
    puzzle = load_sliding_puzzle(PUZZLES / "rush-hour.toml")
    seen, best = reachable(puzzle, puzzle.start)
    assert best == 49
    assert len(seen) == 24_132


@pytest.fixture(scope="module")
def klotski(tmp_path_factory):
    return curator.analyze(PUZZLES / "klotski.toml", tmp_path_factory.mktemp("klotski"))


def test_klotski_published_figures(klotski):
    # Published: 65,880 placements of the ten blocks; 25,955 positions reachable from the
    # classic start, which needs 81 moves of one block each.
    summary = klotski.summary()
    assert summary["positions"] == 65_880
    assert summary["ranks"] - summary["invalid"] == 65_880
    level = klotski.solve(klotski.puzzle.draw(klotski.puzzle.start))
    assert (level.distance, level.cluster) == (81, 25_955)
    assert len(level.solution) == 81


@pytest.mark.slow
def test_klotski_plain_search_gives_the_published_figures(klotski):
    """The plain moves, breadth first from the classic start (8 s; the tables' figures are
    checked above, and the plain moves on the hardest levels' solutions below)."""
    seen, best = reachable(klotski.puzzle, klotski.puzzle.start)
    assert best == 81 and len(seen) == 25_955


def test_solutions_replay_to_the_goal(klotski):
    puzzle = klotski.puzzle
    for level in klotski.select(hardest=True):
        position = level.position
        for text in level.solution:
            after = [m.child for m in puzzle.moves(position) if move_text(puzzle, position, m.child) == text]
            assert len(after) == 1, text
            position = after[0]
        assert puzzle.is_goal(position)
        assert len(level.solution) == level.distance


def test_hardest_is_the_farthest_of_each_connected_set(klotski):
    hardest = klotski.select(hardest=True)
    distances, clusters = klotski.distances, klotski.clusters
    sets = {int(clusters[level.rank]) for level in hardest}
    assert len(sets) == len(hardest)
    for level in hardest:
        members = np.flatnonzero(clusters == clusters[level.rank])
        solvable = members[(distances[members] > 0) & (distances[members] < 0xFFFE)]
        farthest = solvable[distances[solvable] == distances[solvable].max()]
        assert level.rank == farthest.min() and level.cluster == len(members)
    # Every connected set with a solvable, unsolved position has its level.
    with_goal = {int(c) for c in np.unique(clusters[(distances > 0) & (distances < 0xFFFE)])}
    assert sets == with_goal


def test_filters_count_what_they_select(klotski):
    # Narrow ranges: every level selected is walked along its solution.
    far = klotski.select(distance=(88, 90))
    assert klotski.count(distance=(88, 90)) == len(far) > 10
    assert {level.distance for level in far} == {88, 89, 90}
    unique = klotski.select(unique=True, distance=(20, 21))
    assert unique and all(level.unique and 20 <= level.distance <= 21 for level in unique)
    assert len(unique) < klotski.count(distance=(20, 21))
    # The classic start's connected set and its mirror image; their goal positions are not levels.
    assert klotski.count(cluster=(25_955, 25_955)) + klotski.count(cluster=25_955, distance=0) == 2 * 25_955
    picked = klotski.select(sample=5, seed=3)
    assert picked == klotski.select(sample=5, seed=3) and len(picked) == 5
    with pytest.raises(SelectionError, match="pieces"):
        klotski.select(pieces=3)
    with pytest.raises(SelectionError, match="rank 5 is not a position"):
        klotski.show(5)


def test_selection_counts_once_and_caps(klotski):
    chosen = klotski.selection(distance=(30, 40), unique=True, sample=4, seed=2)
    assert chosen.matched == klotski.count(distance=(30, 40), unique=True) > 4
    assert chosen.levels == klotski.select(distance=(30, 40), unique=True, sample=4, seed=2)
    assert len(chosen.levels) == 4 and all(level.unique for level in chosen.levels)
    hardest = klotski.count(hardest=True)
    assert len(klotski.selection(hardest=True, cap=hardest).levels) == hardest
    with pytest.raises(SelectionError, match=f"{hardest:,} levels match; at most 10 "):
        klotski.selection(hardest=True, cap=10)
    assert len(klotski.selection(hardest=True, limit=10, cap=10).levels) == 10


def test_moves_know_where_they_lead(klotski):
    puzzle = klotski.puzzle
    start = klotski.solve(puzzle.draw(puzzle.start))
    moves = klotski.moves(start.position)
    assert [m.position for m in moves] == [m.child for m in puzzle.moves(start.position)]
    cells = puzzle.board.cells
    for move, plain in zip(moves, puzzle.moves(start.position)):
        level = klotski.solve(move.position)
        assert move.distance == level.distance and move.solvable
        assert move.closer == (move.distance == start.distance - 1)
        assert (move.source, move.target) == (cells[plain.source], cells[plain.target])
        assert move.text == move_text(puzzle, start.position, move.position)
        assert move.text.startswith(move.piece + " ")
    closer = [m for m in moves if m.closer]
    assert closer and start.solution[0] in {m.text for m in closer}
    assert klotski.moves(puzzle.draw(start.position)) == moves  # a drawing names it too
    # A position that cannot be solved: its moves lead to others that cannot.
    lost = klotski.solve(puzzle.unrank(int(np.flatnonzero(klotski.distances == 0xFFFE)[0])))
    assert lost.distance is None
    assert all(not m.solvable and not m.closer for m in klotski.moves(lost.position))


def test_a_move_is_found_by_its_cells(klotski):
    puzzle = klotski.puzzle
    first = klotski.moves(puzzle.start)[0]
    assert klotski.move(puzzle.start, first.source, first.target) == first
    assert klotski.move(puzzle.draw(puzzle.start), list(first.source), list(first.target)) == first
    with pytest.raises(SelectionError, match="move 0,0 -> 0,1: not a legal move here"):
        klotski.move(puzzle.start, (0, 0), (0, 1))
    with pytest.raises(SelectionError, match="cell 9,9 is not on the board"):
        klotski.move(puzzle.start, (0, 0), (9, 9))
    for bad in [((0,),) * len(puzzle.groups), puzzle.start[:-1], (("a",),), 7]:
        with pytest.raises(SelectionError, match="not a position of klotski"):
            klotski.moves(bad)


def test_exports(klotski, tmp_path):
    levels = klotski.select(hardest=True, limit=3)
    (pack,) = klotski.export(levels, tmp_path / "pack.json")
    data = json.loads(pack.read_text())
    assert data["format"] == "curator-sliding-pack/1"
    assert [level["rank"] for level in data["levels"]] == [level.rank for level in levels]
    assert data["levels"][0]["board"] == levels[0].board
    (gallery,) = klotski.export(levels, tmp_path / "g.html", "html")
    assert gallery.read_text().count('<article class="level"') == 3
    assert len(klotski.export(levels, tmp_path / "pics", "svg")) == 3
    (table,) = klotski.export(levels, tmp_path / "t.csv", "csv")
    assert table.read_text().splitlines()[1].split(",")[3] == "/".join(levels[0].board)


def _blocks(puzzle, level):
    """Each piece of a level as (top, left, letter, width, height) of its box of cells."""
    found = []
    for group, anchors in zip(puzzle.groups, level.position):
        for anchor in anchors:
            rows, cols = zip(*(puzzle.board.cells[i] for i in puzzle.piece_cells(group, anchor)))
            width, height = max(cols) - min(cols) + 1, max(rows) - min(rows) + 1
            found.append((min(rows), min(cols), group.letter, width, height))
    return sorted(found)


def _check_engine_files(results, levels, tmp_path):
    """The LDtk project and the Tiled maps of `levels`, read back, hold their boards, blocks
    and figures."""
    puzzle = results.puzzle
    (project,) = results.export(levels, tmp_path / "levels.ldtk", "ldtk")
    maps = results.export(levels, tmp_path / "maps", "tiled")
    assert maps[-1].name == "tiles.png" and len(maps) == len(levels) + 1
    raw = json.loads(project.read_text())
    assert [e["identifier"] for e in raw["defs"]["entities"]] == ["Block"]
    for got in (read_ldtk(project), read_tiled(maps[:-1])):
        assert len(got) == len(levels)
        for number, (found, level) in enumerate(zip(got, levels), start=1):
            assert found["cells"] == box(puzzle.board, puzzle.goal_cells, puzzle.exits)
            assert found["fields"]["goal"] == puzzle.goal_text
            assert found["pieces"] == _blocks(puzzle, level)
            fields = found["fields"]
            assert fields["title"].endswith(f"level {number} (distance {level.distance})")
            assert fields["grid"] == "square"
            assert (fields["distance"], fields["difficulty"], fields["moves"]) == (
                level.distance, round(level.difficulty, 3), len(level.solution))
            assert (fields["unique"], fields["all_moves"], fields["cluster"], fields["rank"]) == (
                level.unique, level.all_moves, level.cluster, str(level.rank))
            solution = fields["solution"]
            assert solution == (level.solution if isinstance(solution, list) else "; ".join(level.solution))
    for level, entities in zip(raw["levels"], [got["objects"] for got in read_tiled(maps[:-1])]):
        (layer,) = [li for li in level["layerInstances"] if li["__identifier"] == "Pieces"]
        goals = {(e["__grid"][1], e["__grid"][0]) for e in layer["entityInstances"]
                 if e["fieldInstances"][1]["__value"]}
        assert goals == {(int(o.coordinates.y) // 32, int(o.coordinates.x) // 32) for o in entities
                         if o.properties["goal"]}
        assert {o.name for o in entities if o.properties["goal"]} == {puzzle.goal_letter} - {""}
        assert {o.class_ for o in entities} == {"Block"}
    return raw


def test_engine_files_read_back(klotski, tmp_path):
    levels = klotski.select(hardest=True, cluster=(1, 3000), limit=3)
    _check_engine_files(klotski, levels, tmp_path)


WALLED = """name = "walled"
title = "An L among walls"

[board]
art = '''
.L.#
LL..
...N
'''

[rules]
family = "slide"
move = "step"
metric = "step"

[pieces.L]
cells = [[0, 0], [1, -1], [1, 0]]

[pieces.N]

[goal]
piece = "L"
cells = [[2, 3]]
"""


def test_engine_files_of_tilt_levels_keep_the_exit_and_what_solves_them(tmp_path):
    results = curator.analyze(PUZZLES / "tilt.toml", tmp_path / "tilt")
    levels = results.select(hardest=True, limit=2)
    _check_engine_files(results, levels, tmp_path)
    (first, *_) = read_ldtk(tmp_path / "levels.ldtk")
    assert first["cells"][2][2] == EXIT
    assert first["fields"]["goal"] == "every G out through an exit; B stays on the board"


def test_engine_files_keep_walls_and_shapes_wider_below(tmp_path):
    (tmp_path / "walled.toml").write_text(WALLED)
    results = curator.analyze(tmp_path / "walled.toml", tmp_path / "out")
    levels = results.select(hardest=True)
    assert levels
    raw = _check_engine_files(results, levels, tmp_path)
    assert box(results.puzzle.board, results.puzzle.goal_cells)[0][3] == WALL
    entity = next(e for e in raw["levels"][0]["layerInstances"][0]["entityInstances"]
                  if e["fieldInstances"][0]["__value"] == "L")
    assert entity["fieldInstances"][2]["__value"] == "0,0 1,-1 1,0"


def test_damaged_table_is_refused(klotski, tmp_path):
    copy = tmp_path / "copy"
    copy.mkdir()
    for item in klotski.directory.iterdir():
        (copy / item.name).write_bytes(item.read_bytes())
    path = copy / TABLES["flags"][0]
    data = bytearray(path.read_bytes())
    data[12345] ^= 1
    path.write_bytes(bytes(data))
    with pytest.raises(StoreError, match="checksum"):
        curator.open(copy).select(unique=True)
    assert not curator.open(copy).verify().ok


# Resuming is the same code for every move rule: tilt's small tables in the default run.
@pytest.mark.parametrize("name", [pytest.param("lunar-lockout", marks=pytest.mark.slow), "tilt",
                                  pytest.param("robots", marks=pytest.mark.slow)])
def test_resume_gives_the_same_tables(tmp_path, monkeypatch, request, name):
    source = PUZZLES / f"{name}.toml"
    # The undisturbed analysis: the module's own where it has one.
    analyzed = {"lunar-lockout": "lunar", "tilt": "tilt"}
    whole = (request.getfixturevalue(analyzed[name]) if name in analyzed
             else curator.analyze(source, tmp_path / "whole"))
    monkeypatch.setattr(goal_tables, "CHECKPOINT_SECONDS", 0.0)

    def stop(distance, positions):
        if distance == 4:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        curator.analyze(source, tmp_path / "part", distance_done=stop)
    assert not curator.open(tmp_path / "part").complete
    # An unfinished run's files are checked, and verify says the analysis did not finish
    # instead of re-deriving ranks from tables that are not all there.
    checked = invoke("verify", tmp_path / "part", "--sample", "20")
    assert checked.exit_code == 0, checked.output
    said = ("ok (2 tables, 0 ranks re-derived: 0 problems, 0 bad ranks); the analysis did not finish "
            "(run `curator analyze` again to finish it)")
    assert checked.stdout.strip() == f"{tmp_path / 'part'}: {said}"
    damaged = shutil.copytree(tmp_path / "part", tmp_path / "damaged")
    distances = damaged / TABLES["distances"][0]
    data = bytearray(distances.read_bytes())
    data[len(data) // 2] ^= 1
    distances.write_bytes(bytes(data))
    assert invoke("verify", damaged, "--sample", "20").exit_code == 1
    resumed = curator.analyze(source, tmp_path / "part")
    for name in TABLES:
        assert np.array_equal(whole.store.load(name), resumed.store.load(name)), name


@pytest.mark.slow
def test_robots_start_is_unique_in_8(tmp_path):
    """The bundled robots puzzle analyzed from the command line (13 s; the commands are
    checked on Klotski in the default run)."""
    out = tmp_path / "out"
    result = invoke("analyze", PUZZLES / "robots.toml", "-o", out)
    assert result.exit_code == 0, result.output
    level = curator.open(out).solve("hRh.../h#..../....h./....#./....../......")
    assert (level.distance, level.unique, len(level.solution)) == (8, True, 8)


@pytest.mark.slow
def test_rush_hour_tables(tmp_path):
    results = curator.analyze(PUZZLES / "rush-hour.toml", tmp_path)
    level = results.solve(results.puzzle.draw(results.puzzle.start))
    assert (level.distance, level.cluster) == (49, 24_132)
    assert results.summary()["max_distance"] == 49


BAD = [
    ('[rules]\nfamily = "slide"\nmove = "hop"', "rules.move"),
    ('[rules]\nfamily = "slide"\nmetric = "cells"', "rules.metric"),
    ('[rules]\nfamily = "slide"\nedge = "falls"', "rules.edge"),
    ('[rules]\nfamily = "slide"\nmove = "line"\nedge = "stops"', "rules.edge"),
    ('[rules]\nfamily = "slide"\nmove = "until_blocked"\nedge = "wraps"', "rules.edge"),
    ('[rules]\nfamily = "slide"\nmove = "tilt"\nmetric = "step"', "rules.metric"),
    ('[board]\nart = "A.."\nexits = [[0, 1]]', "board.exits"),
    ('[goal]\npiece = "A"\ncells = [[0, 2]]\nout = ["A"]', "goal.out"),
    ('[pieces.AB]\ncells = [[0, 0]]', "pieces.AB"),
    ('[pieces.A]\ncells = [[0, 0]]\nalong = "diagonal"', "pieces.A.along"),
    ('[pieces.A]\ncells = [[0, 0]]\ncount = 3', "pieces.A.count"),
    ('[goal]\npiece = "Q"\ncells = [[0, 0]]', "goal.piece"),
    ('[goal]\npiece = "A"\ncells = [[9, 9]]', "goal.cells"),
    ('[board]\nart = "AX."', "board.art"),
]


@pytest.mark.parametrize("change, key", BAD)
def test_bad_files_name_the_key(change, key):
    base = {"rules": '[rules]\nfamily = "slide"', "pieces.A": '[pieces.A]\ncells = [[0, 0]]',
            "goal": '[goal]\npiece = "A"\ncells = [[0, 2]]', "board": '[board]\nart = "A.."'}
    section = change.split("]")[0].strip("[")
    base[next(k for k in base if section.startswith(k.split(".")[0]))] = change
    text = 'name = "t"\n' + "\n".join(base.values()) + "\n"
    with pytest.raises(PuzzleError, match=f": {key}: "):
        parse_sliding_puzzle(text)


def test_a_piece_or_goal_no_place_on_the_board_fits_is_refused():
    def text(board, cells, goal):
        return (f'name = "t"\n[rules]\nfamily = "slide"\n[board]\nart = """\n{board}\n"""\n'
                f'[pieces.A]\ncells = {cells}\n[goal]\npiece = "A"\ncells = {goal}\n')

    tall = "[[0, 0], [1, 0]]"
    with pytest.raises(PuzzleError, match=": pieces.A.cells: fits nowhere on the board$"):
        parse_sliding_puzzle(text("...", tall, "[[0, 0]]"))
    with pytest.raises(PuzzleError, match=": goal.cells: no place of a piece A on the board covers them"):
        parse_sliding_puzzle(text("...\n...", tall, "[[0, 0], [1, 1]]"))
    assert parse_sliding_puzzle(text("...\n...", tall, "[[0, 1], [1, 1]]")).size > 0
    with pytest.raises(PuzzleError, match=r": goal.cells: \[1, 1\] is given twice$"):
        parse_sliding_puzzle(text("...\n...", tall, "[[0, 1], [1, 1], [1, 1]]"))
    tilt = (PUZZLES / "tilt.toml").read_text()
    with pytest.raises(PuzzleError, match=r": goal.out: 'G' is given twice$"):
        parse_sliding_puzzle(tilt.replace('out = ["G"]', 'out = ["G", "G"]'))


def test_the_command_line_rates_at_most_2000_levels_at_once_as_for_layered_results(klotski):
    # each level is walked along its solution: all 47,159 would take minutes, without a word
    for args in ([], ["--sample", "99999999999999999999"]):
        result = invoke("select", klotski.directory, *args)
        assert result.exit_code == 2
        assert error_line(result.stderr) == (f"error: {klotski.count():,} levels match; at most 2,000 are "
                                             "returned at once (add --limit N or --sample N)")
    assert invoke("select", klotski.directory, "--sample", "3", "--json").exit_code == 0


def test_command_line(klotski, tmp_path):
    out = klotski.directory
    result = invoke("select", out, "--hardest", "--unique", "--json")
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    hardest = klotski.select(hardest=True, unique=True, limit=100)
    assert data["matched"] == len(data["levels"]) == len(hardest) > 0
    assert [level["rank"] for level in data["levels"]] == [level.rank for level in hardest]
    result = invoke("solve", PUZZLES / "klotski.toml", "--board", "VSSV/VSSV/VHHV/VNNV/N..N",
                    "--results", out, "--json")
    assert result.exit_code == 0 and json.loads(result.stdout)["distance"] == 81  # published
    result = invoke("info", out, "--json")
    assert json.loads(result.stdout)["positions"] == 65_880  # published
    assert invoke("verify", out).exit_code == 0
    result = invoke("export", out, "--hardest", "-f", "csv", "-o", tmp_path / "l.csv")
    assert result.exit_code == 0 and (tmp_path / "l.csv").exists()
    for args, needle in [
        (("select", out, "--pieces", "3"), "--pieces does not apply"),
        (("select", out, "--distance", "9..2"), "--distance"),
        (("solve", PUZZLES / "klotski.toml", "--board", "RR..../", "--results", out), "--board"),
        (("pack", out, "--size", "3", "--pieces", "2", "-f", "json", "-o", tmp_path / "p.json"), "--pieces"),
        (("analyze", PUZZLES / "klotski.toml", "--max-pieces", "3", "-o", out), "--max-pieces"),
    ]:
        result = invoke(*args)
        assert result.exit_code == 2, (args, result.output)
        assert needle in error_line(result.stderr)


def test_solve_names_the_damaged_file_of_the_results_it_is_given(klotski, tmp_path):
    out = Path(shutil.copytree(klotski.directory, tmp_path / "klotski"))
    (out / "puzzle.toml").write_text((out / "puzzle.toml").read_text() + "# edited\n")
    board = "VSSV/VSSV/VHHV/VNNV/N..N"
    result = invoke("solve", PUZZLES / "klotski.toml", "--board", board, "--results", out)
    assert result.exit_code == 1, result.output
    assert error_line(result.stderr) == (f"error: {out / 'puzzle.toml'}: does not match the manifest's "
                                         "puzzle_sha256 (edited or damaged copy of the puzzle file)")


def test_pack_follows_the_curve_across_connected_sets(klotski, tmp_path):
    pack = klotski.pack(8, "linear")
    distances = [level.distance for level in pack]
    assert distances == sorted(distances) and len(set(level.rank for level in pack)) == 8
    targets = [slot.target for slot in pack.slots]
    # Every distance 1..93 is in the pool, so a level is off its target by the set slack at most.
    assert all(abs(d - t) <= 0.05 * 92 + 1 for d, t in zip(distances, targets))
    # Short targets are met from small connected sets, not all from the two large ones.
    assert len({level.connected_set for level in pack}) >= 5
    # Asked again, with the default rule named: the same pack (a smaller pool, as below where the
    # pool does not matter: each candidate is rated).
    assert klotski.pack(8, "linear", pool=400) == klotski.pack(8, "linear", pool=400, variety=["sets"])
    plain = klotski.pack(8, "linear", variety=None)
    assert [level.distance for level in plain] == sorted(level.distance for level in plain)
    assert len({level.connected_set for level in plain}) < len({level.connected_set for level in pack})
    (path,) = klotski.export(pack, tmp_path / "pack.json")
    data = json.loads(path.read_text())
    assert data["curve"]["name"] == "linear" and len(data["curve"]["slots"]) == 8
    # The curve was followed in distances, so it records distances, not the player's effort.
    assert [slot["difficulty"] for slot in data["curve"]["slots"]] == distances
    result = invoke("pack", klotski.directory, "--size", "5", "--curve", "steps", "--unique", "--pool", "400",
                    "-f", "csv", "-o", tmp_path / "p.csv")
    assert result.exit_code == 0, result.output
    header, *rows = (tmp_path / "p.csv").read_text().splitlines()
    assert "target" in header.split(",") and len(rows) == 5
    with pytest.raises(SelectionError, match="size 9999 is larger"):
        klotski.pack(9999, pool=9999, distance=(90, 93))
    # A sliding-block pack is a curve too: its levels' difficulties in order.
    followed = klotski.pack(8, str(path), pool=400)
    shape = curve_from_difficulties("shape", [level["difficulty"] for level in data["levels"]])
    assert followed.curve == str(path) and followed.slots == klotski.pack(8, shape, pool=400).slots


def test_arrange_sets_prefers_an_unused_set_within_the_slack():
    from dataclasses import dataclass

    from curator.arrange import CURVES, arrange_sets

    @dataclass(frozen=True)
    class Made:
        distance: int
        connected_set: int
        rank: int
        solution: tuple = ("a move",)

    pool = [Made(d, 0, d) for d in range(1, 11)] + [Made(3, 1, 100), Made(7, 2, 200)]
    pack = arrange_sets(pool, 3, CURVES["linear"])
    assert [(lv.distance, lv.connected_set) for lv in pack] == [(1, 0), (7, 2), (10, 0)]
    assert [slot.target for slot in pack.slots] == [1.0, 5.5, 10.0]
    # Without the variety rule, the nearest level to each target.
    for rules in (None, ()):
        plain = arrange_sets(pool, 3, CURVES["linear"], variety=rules)
        assert [(lv.distance, lv.connected_set) for lv in plain] == [(1, 0), (5, 0), (10, 0)]
    with pytest.raises(SelectionError, match="variety: unknown rule 'openings' .rules: sets"):
        arrange_sets(pool, 3, CURVES["linear"], variety=["openings"])


@dataclass(frozen=True)
class MadeLevel:
    distance: int
    connected_set: int
    rank: int
    solution: tuple = ("a move",)


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 40), st.integers(0, 5)), min_size=1, max_size=80),
       st.integers(1, 40), st.sampled_from(["linear", "ease-in", "ease-out", "steps"]), st.booleans())
def test_sliding_packs_never_fall_where_their_curve_rises(items, size, name, spread):
    from curator.arrange import CURVES, arrange_sets

    pool = [MadeLevel(d, s, i) for i, (d, s) in enumerate(items)]
    size = min(size, len(pool))
    pack = arrange_sets(pool, size, CURVES[name], variety=["sets"] if spread else None)
    distances = [level.distance for level in pack]
    rises = np.diff(CURVES[name].fractions(size)) > 0
    assert all(b >= a for a, b, up in zip(distances, distances[1:], rises) if up)
    assert len({level.rank for level in pack}) == size


def test_verify_rederives_every_untampered_entry(klotski):
    # The tampered copies below are found out, their source is not (a sample this large takes all).
    checked = klotski.verify(sample=100_000)
    assert checked.ok and checked.ranks > klotski.summary()["positions"]


@pytest.mark.parametrize("table, change", [("flags", "unique"), ("distances", "distance"),
                                           ("clusters", "connected set")])
def test_verify_rederives_tampered_entries(klotski, tmp_path, table, change):
    from curator.common.files import file_sha256, manifest_text

    copy = tmp_path / "copy"
    copy.mkdir()
    for item in klotski.directory.iterdir():
        (copy / item.name).write_bytes(item.read_bytes())
    start = klotski.puzzle.rank(klotski.puzzle.start)
    path = copy / TABLES[table][0]
    data = np.fromfile(path, dtype=TABLES[table][1])
    tamper = {"flags": lambda v: v ^ 1, "distances": lambda v: v + 2, "clusters": lambda v: v + 1}
    data[start] = tamper[table](data[start])
    data.tofile(path)
    manifest = json.loads((copy / "manifest.json").read_text())
    manifest["files"][table]["sha256"] = file_sha256(path)  # a consistent but wrong table
    (copy / "manifest.json").write_text(manifest_text(manifest))
    found = curator.open(copy).verify(sample=100_000)
    assert not found.ok
    assert any(line.startswith(f"rank {start}: ") and change in line for line in found.bad_ranks)
    if table == "flags":  # the command line prints what verify finds, whatever the table (distances: below)
        result = invoke("verify", copy, "--sample", "100000")
        assert result.exit_code == 1 and "bad ranks" in error_line(result.stderr)


def test_verify_names_a_figure_of_the_wrong_shape(klotski, tmp_path):
    from curator.common.files import manifest_text

    copy = tmp_path / "copy"
    shutil.copytree(klotski.directory, copy)
    manifest = json.loads((copy / "manifest.json").read_text())
    positions = manifest["positions"]
    manifest["positions"] = [positions]
    (copy / "manifest.json").write_text(manifest_text(manifest))
    result = invoke("verify", copy, "--sample", "0")
    assert result.exit_code == 1
    assert f"{copy / 'manifest.json'}: positions is [{positions}], the tables hold {positions}" in (
        result.stderr.splitlines())


def test_verify_lists_edited_figures_beside_tampered_entries(klotski, tmp_path):
    """Figures of a re-signed manifest that the tables do not bear out are problems, listed
    with the bad ranks of a tampered table rather than in their place."""
    from curator.common.files import file_sha256, manifest_text

    copy = tmp_path / "copy"
    shutil.copytree(klotski.directory, copy)
    start = klotski.puzzle.rank(klotski.puzzle.start)
    path = copy / TABLES["distances"][0]
    data = np.fromfile(path, dtype=TABLES["distances"][1])
    data[start] += 2
    data.tofile(path)
    manifest = json.loads((copy / "manifest.json").read_text())
    manifest["files"]["distances"]["sha256"] = file_sha256(path)
    largest = manifest["largest_cluster"]
    manifest["largest_cluster"] += 1
    manifest["distances"][3]["unique"] += 1
    (copy / "manifest.json").write_text(manifest_text(manifest))
    found = curator.open(copy).verify(sample=100_000)
    edited = f"{copy / 'manifest.json'}: largest_cluster is {largest + 1}, the tables hold {largest}"
    assert edited in found.problems
    assert (f"{copy / 'manifest.json'}: distances[3] is {manifest['distances'][3]}, the tables hold "
            f"{klotski.store.manifest['distances'][3]}") in found.problems  # the first row that differs
    assert any(line.startswith(f"rank {start}: ") for line in found.bad_ranks)
    result = invoke("verify", copy, "--sample", "100000")
    listed = result.stderr.splitlines()
    assert result.exit_code == 1 and found.problems[0] in listed
    assert any(line.startswith(f"rank {start}: ") for line in listed)
    counted = f"{len(found.problems)} problems, {len(found.bad_ranks)} bad ranks"
    assert error_line(result.stderr).endswith(counted)


# -- Lunar Lockout: robots that would fly off the board cannot move ------------------------------

CENTRE = (2, 2)


def lunar_slides(red, helpers, falls=True):
    """A tiny model of Lunar Lockout on 5 x 5, sharing nothing with curator: each position
    (red robot's cell, frozenset of helpers' cells) one slide away. A robot slides until the
    next cell holds a robot; with `falls`, one that would run off the board cannot go that way."""
    robots = {red, *helpers}
    for robot in robots:
        for dr, dc in ((-1, 0), (0, 1), (1, 0), (0, -1)):
            r, c = robot
            while 0 <= r + dr < 5 and 0 <= c + dc < 5 and (r + dr, c + dc) not in robots:
                r, c = r + dr, c + dc
            on_board = 0 <= r + dr < 5 and 0 <= c + dc < 5
            if (r, c) == robot or (falls and not on_board):
                continue
            yield ((r, c), helpers) if robot == red else (red, helpers - {robot} | {(r, c)})


def lunar_fewest(red, helpers, falls=True):
    """Fewest slides bringing the red robot to the centre (plain breadth-first search), or None."""
    start = (red, frozenset(helpers))
    seen = {start: 0}
    todo = deque([start])
    while todo:
        here = todo.popleft()
        if here[0] == CENTRE:
            return seen[here]
        for after in lunar_slides(*here, falls=falls):
            if after not in seen:
                seen[after] = seen[here] + 1
                todo.append(after)
    return None


def lunar_board(red, helpers):
    rows = [["."] * 5 for _ in range(5)]
    for r, c in helpers:
        rows[r][c] = "h"
    rows[red[0]][red[1]] = "X"
    return "/".join("".join(row) for row in rows)


CARD_1 = ((4, 4), ((0, 4), (1, 2), (2, 1), (3, 3)))
"""The first beginner challenge card: the red robot in a corner, four helpers."""
CARD_2 = ((4, 1), ((0, 2), (1, 4), (2, 1), (3, 3)))
CARD_39 = ((4, 4), ((0, 0), (0, 2), (0, 4), (2, 0), (4, 0)))
"""An expert card with five helpers."""


@pytest.fixture(scope="module")
def lunar(tmp_path_factory):
    return curator.analyze(PUZZLES / "lunar-lockout.toml", tmp_path_factory.mktemp("lunar"))


def test_lunar_lockout_card_1_needs_4_moves(lunar):
    # Published: 4 moves. Were the edge to stop robots (robots on ice), it would take 3.
    assert lunar.puzzle.draw(lunar.puzzle.start).replace("\n", "/") == lunar_board(*CARD_1)
    level = lunar.solve(lunar_board(*CARD_1))
    assert (level.distance, level.unique) == (4, True)
    assert level.solution == ["X 4,4 -> 1,4", "X 1,4 -> 1,3", "X 1,3 -> 2,3", "X 2,3 -> 2,2"]
    assert lunar_fewest(*CARD_1) == 4 and lunar_fewest(*CARD_1, falls=False) == 3
    stopping = parse_sliding_puzzle(lunar.puzzle.text.replace('edge = "falls"', 'edge = "stops"'))
    assert reachable(stopping, stopping.start, until_goal=True)[1] == 3
    assert lunar.store.manifest["edge"] == "falls" and 'edge = "falls"' in lunar.store.puzzle_text()[0]


def test_lunar_lockout_table_agrees_with_a_plain_search(lunar):
    assert lunar.solve(lunar_board(*CARD_2)).distance == lunar_fewest(*CARD_2)
    rng = np.random.default_rng(3)
    for rank in rng.choice(lunar.puzzle.size, 300, replace=False):
        level = lunar.show(int(rank))
        (red,), helpers = ((lunar.puzzle.board.cells[a] for a in group) for group in level.position)
        assert level.distance == (0 if red == CENTRE else lunar_fewest(red, set(helpers))), level.board


@pytest.mark.slow
def test_lunar_lockout_card_39_needs_13_moves(tmp_path):
    text = (PUZZLES / "lunar-lockout.toml").read_text()
    art = text.split('"""')[1]
    path = tmp_path / "card-39.toml"
    path.write_text(text.replace(art, "\n" + lunar_board(*CARD_39).replace("/", "\n") + "\n"))
    results = curator.analyze(path, tmp_path / "out")
    assert results.solve(lunar_board(*CARD_39)).distance == lunar_fewest(*CARD_39) == 13


# -- Tilt: every piece slides at once, and pieces drop out through the exits ----------------------

TILT = """name = "t"
[board]
art = '''
GB..
.#..
....
'''
exits = [[2, 3]]
[rules]
family = "slide"
move = "tilt"
[pieces.G]
[pieces.B]
[goal]
out = ["G"]
keep = ["B"]
"""


@pytest.mark.parametrize("old, new, key", [
    ('exits = [[2, 3]]', 'exits = [[0, 0]]', "board.exits"),
    ('exits = [[2, 3]]', 'exits = [[1, 1]]', "board.exits"),
    ('exits = [[2, 3]]\n', '', "goal.out"),
    ('keep = ["B"]', 'keep = ["G"]', "goal.keep"),
    ('keep = ["B"]', 'keep = ["Q"]', "goal.keep"),
    ('out = ["G"]\nkeep = ["B"]\n', '', "goal.piece"),
    ('[pieces.G]', '[pieces.G]\ncells = [[0, 0], [0, 1]]', "pieces.G.cells"),
    ('[pieces.G]', '[pieces.G]\nalong = "row"', "pieces.G.along"),
])
def test_bad_tilt_files_name_the_key(old, new, key):
    assert old in TILT
    parse_sliding_puzzle(TILT)
    text = TILT.replace(old, new)
    if key == "pieces.G.cells":  # draw the two-cell green, so that the art fits its shape
        text = text.replace("GB..\n.#..", "GGB.\n.#..")
    with pytest.raises(PuzzleError, match=f": {key}: "):
        parse_sliding_puzzle(text)


@pytest.fixture(scope="module")
def tilt(tmp_path_factory):
    return curator.analyze(PUZZLES / "tilt.toml", tmp_path_factory.mktemp("tilt"))


def test_tilt_start_needs_14_tilts(tilt):
    puzzle = tilt.puzzle
    level = tilt.solve(puzzle.draw(puzzle.start))
    assert (level.distance, level.unique, len(level.solution)) == (14, True, 14)
    seen, best = reachable(puzzle, puzzle.start)  # the plain tilts, breadth first
    assert best == 14
    position = puzzle.start
    for text in level.solution:
        position = puzzle.tilt(position, ("up", "right", "down", "left").index(text.split()[1]))
    assert puzzle.is_goal(position) and position[0] == ()  # every green has dropped out
    summary = tilt.summary()
    # Positions: the blue and 0 to 3 greens on the 21 cells that are neither blockers nor the exit.
    assert summary["positions"] == summary["ranks"] == sum(21 * math.comb(20, g) for g in range(4))
    assert tilt.verify(sample=300).ok


def test_tilt_moves_are_the_four_tilts(tilt):
    start = tilt.puzzle.start
    moves = tilt.moves(start)
    assert [(m.text, m.direction, m.piece, m.source, m.distance, m.closer) for m in moves] == [
        ("tilt right", "right", "", None, 14, False), ("tilt left", "left", "", None, 13, True)]
    assert tilt.tilt(start, "left").position == moves[1].position
    with pytest.raises(SelectionError, match="tilt down: not a move here"):
        tilt.tilt(start, "down")  # the blue would drop out
    with pytest.raises(SelectionError, match="tilt up: not a move here"):
        tilt.tilt(start, "up")  # nothing moves
    assert "tilt moves, 1 exit, out G, keep B" in invoke("info", tilt.directory).output


def unwrapped(text: str) -> str:
    """A message without the breaks the terminal's width puts in long paths."""
    return "".join(text.split())


@pytest.mark.parametrize(("puzzle", "table"), [("tilt.toml", "distances.u16"),
                                               ("eight-puzzle.toml", "distances.nib")])
def test_analyze_again_computes_a_damaged_or_missing_table_again(tmp_path, puzzle, table):
    """A finished folder whose table was damaged or lost is recomputed, with a warning, not
    reported as done while every reading command refuses it."""
    out = tmp_path / "out"
    assert invoke("analyze", PUZZLES / puzzle, "-o", out).exit_code == 0
    before = (out / table).read_bytes()
    damaged = bytearray(before)
    damaged[100] ^= 1
    (out / table).write_bytes(damaged)
    result = invoke("analyze", PUZZLES / puzzle, "-o", out)
    assert result.exit_code == 0, result.output
    said = (f"warning: {out / table}: checksum does not match the manifest (damaged file); computing the "
            "tables again")
    assert unwrapped(said) in unwrapped(result.stderr)
    assert (out / table).read_bytes() == before
    (out / table).unlink()
    result = invoke("analyze", PUZZLES / puzzle, "-o", out)
    said = f"warning: {out / table}: missing; computing the tables again"
    assert unwrapped(said) in unwrapped(result.stderr)
    assert (out / table).read_bytes() == before and invoke("verify", out).exit_code == 0
