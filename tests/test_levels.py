"""Level packs: writing, schema, loading back, and replaying every solution under the rules."""

import json
import math
import random
from dataclasses import replace
from functools import cache
from pathlib import Path

import jsonschema
import pytest
from reference import TRIANGULAR, capture_children, fling_children, jump_children

from curator.export.pack import PACK_FORMAT, PackError, load_pack, pack_dict, parse_pack, save_pack
from curator.layered.level import IllegalMove, Level, replay
from curator.layered.puzzle import load_puzzle
from curator.layered.search import Explorer
from curator.layered.space import StateSpace

SCHEMA = Path(__file__).resolve().parent.parent / "schemas" / "level-pack.schema.json"
# puzzle file -> pieces per level (small enough to search in well under a second)
PUZZLES = {
    "peg": 8,
    "peg-centre": 7,
    "triangle": 8,
    "fling": 6,
    "solitaire-chess": 5,
}
HUGE = 2**70 + 12345


@cache
def make_levels(name: str, solvable: int = 3, pieces: int | None = None) -> tuple:
    """(puzzle, levels): a few solvable random levels (of PUZZLES[name] pieces unless given),
    then one unsolvable one."""
    puzzle = load_puzzle(f"puzzles/{name}.toml")
    explorer = Explorer(puzzle)
    space = StateSpace(puzzle)
    rng = random.Random(name)
    found, dead = [], None
    layers = space.layers_with(PUZZLES[name] if pieces is None else pieces)
    while len(found) < solvable or dead is None:
        layer = rng.choice(layers)
        rank = rng.randrange(layer.size)
        position = space.unrank(layer, rank)
        report = explorer.report(position)
        difficulty = round(rng.uniform(0, 10), 3) if report.solvable else math.inf
        level = Level(layer.key, rank, position, report, difficulty, puzzle)
        if report.solvable and len(found) < solvable:
            found.append(level)
        elif not report.solvable and dead is None:
            dead = level
    return puzzle, tuple(found + [dead])


@cache
def schema_validator():
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def _oracle_children(puzzle, position):
    """Children of `position` under the plain reference rules, as position tuples."""
    board = puzzle.board
    cells = frozenset(board.cells)
    family = puzzle.rules.family
    if family == "capture":
        pieces = frozenset((board.cells[i], puzzle.piece_types[t - 1]) for i, t in enumerate(position) if t)
        kids = capture_children(cells, pieces, puzzle.rules.options.get("king_safe", False))
        types = {letter: t for t, letter in enumerate(puzzle.piece_types, start=1)}
        return {tuple(dict((board.index[c], types[x]) for c, x in kid).get(i, 0) for i in range(board.size))
                for kid in kids}
    occupied = frozenset(board.cells[i] for i, t in enumerate(position) if t)
    if family == "fling":
        kids = fling_children(board.rows, board.cols, occupied)
    else:
        directions = TRIANGULAR if board.grid == "triangular" else [(-1, 0), (1, 0), (0, -1), (0, 1)]
        kids = jump_children(cells, directions, occupied)
    return {tuple(int(c in kid) for c in board.cells) for kid in kids}


# -- replay -----------------------------------------------------------------------------------


def _position(puzzle, pieces):
    position = [0] * puzzle.board.size
    for cell, t in pieces.items():
        position[puzzle.board.index[cell]] = t
    return tuple(position)


def test_replay_jump_removes_the_peg_jumped_over():
    puzzle = load_puzzle("puzzles/peg.toml")
    start = _position(puzzle, {(1, 3): 1, (2, 3): 1, (4, 4): 1})
    idx = puzzle.board.index
    positions = replay(puzzle, start, [(idx[(1, 3)], idx[(3, 3)])])
    assert positions == [start, _position(puzzle, {(3, 3): 1, (4, 4): 1})]


def test_replay_fling_passes_the_impulse_down_the_line():
    puzzle = load_puzzle("puzzles/fling.toml")
    idx = puzzle.board.index
    start = _position(puzzle, {(0, 0): 1, (0, 3): 1, (0, 4): 1, (5, 5): 1})
    # The flung ball stops on (0,2); (0,3) passes the impulse to (0,4), which rolls off.
    positions = replay(puzzle, start, [(idx[(0, 0)], idx[(0, 2)])])
    assert positions[-1] == _position(puzzle, {(0, 2): 1, (0, 3): 1, (5, 5): 1})


def test_replay_capture_moves_the_capturing_piece():
    puzzle = load_puzzle("puzzles/solitaire-chess.toml")
    rook, bishop = puzzle.piece_types.index("R") + 1, puzzle.piece_types.index("B") + 1
    idx = puzzle.board.index
    start = _position(puzzle, {(0, 0): rook, (0, 2): bishop, (3, 2): bishop})
    positions = replay(puzzle, start, [(idx[(0, 0)], idx[(0, 2)]), (idx[(0, 2)], idx[(3, 2)])])
    assert positions[1] == _position(puzzle, {(0, 2): rook, (3, 2): bishop})
    assert positions[2] == _position(puzzle, {(3, 2): rook})
    assert puzzle.goal.reached(positions[2])


@pytest.mark.parametrize(
    "name, pieces, move",
    [
        ("peg", {(1, 3): 1, (4, 4): 1}, ((1, 3), (3, 3))),  # nothing to jump over
        ("fling", {(0, 0): 1, (0, 1): 1}, ((0, 0), (0, 1))),  # no room to fling
        ("solitaire-chess", {(0, 0): 3, (1, 2): 3}, ((0, 0), (1, 2))),  # a rook does not move so
    ],
)
def test_replay_rejects_illegal_moves(name, pieces, move):
    puzzle = load_puzzle(f"puzzles/{name}.toml")
    idx = puzzle.board.index
    with pytest.raises(IllegalMove, match="move 1"):
        replay(puzzle, _position(puzzle, pieces), [(idx[move[0]], idx[move[1]])])


def test_the_schema_takes_boards_past_64_cells_and_installed_families(tmp_path):
    puzzle, levels = make_levels("chess-9x9", 1, pieces=3)
    data = json.loads(save_pack(puzzle, levels, tmp_path / "pack.json").read_text(encoding="utf-8"))
    assert len(data["board"]["cells"]) == 81
    schema_validator().validate(data)
    data["puzzle"]["family"] = "hoppers"  # as a pack of an installed family says
    schema_validator().validate(data)


def test_replay_rejects_a_position_of_the_wrong_size():
    puzzle = load_puzzle("puzzles/peg.toml")
    with pytest.raises(ValueError, match="33 cells"):
        replay(puzzle, (1, 1, 0), [])


# -- round trip -------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(PUZZLES))
def test_pack_round_trip_replays_every_solution_to_a_goal(name, tmp_path):
    puzzle, levels = make_levels(name)
    path = save_pack(puzzle, levels, tmp_path / "pack.json")
    data = json.loads(path.read_text(encoding="utf-8"))
    schema_validator().validate(data)
    assert data["format"] == PACK_FORMAT == "curator-level-pack/1"

    header, loaded = load_pack(path)
    assert loaded == list(levels)
    assert (header.name, header.title) == (puzzle.name, puzzle.title)
    assert header.rules.family == puzzle.rules.family
    assert header.board == puzzle.board and header.goal == puzzle.goal
    assert header.piece_types == puzzle.piece_types and header.sha256 == puzzle.sha256
    assert header.rules.options == puzzle.rules.options

    for level in loaded:
        positions = replay(header, level.position, level.solution)
        assert positions == replay(puzzle, level.position, level.solution)
        for before, after in zip(positions, positions[1:]):
            assert after in _oracle_children(puzzle, before)
        if level.report.solvable:
            assert len(level.solution) == level.pieces - header.goal.pieces
            assert header.goal.reached(positions[-1])
        else:
            assert level.solution == [] and not header.goal.reached(positions[-1])


def test_pack_keeps_huge_solution_counts_exact(tmp_path):
    puzzle, levels = make_levels("peg")
    big = replace(levels[0], report=replace(levels[0].report, solutions=HUGE))
    path = save_pack(puzzle, [big], tmp_path / "pack.json")
    assert f'"solutions": {HUGE},' in path.read_text(encoding="utf-8")
    assert load_pack(path)[1][0].report.solutions == HUGE


def test_pack_records_goal_cells_and_board_cells():
    puzzle, levels = make_levels("peg-centre")
    data = pack_dict(puzzle, levels)
    assert data["puzzle"]["goal"]["cells"] == [[3, 3]]
    assert data["board"]["cells"][0] == [0, 2] and len(data["board"]["cells"]) == 33
    assert (data["board"]["rows"], data["board"]["cols"]) == (7, 7)


def test_unsolvable_levels_have_null_difficulty_and_nan_is_refused():
    puzzle, levels = make_levels("peg")
    assert pack_dict(puzzle, levels)["levels"][-1]["metrics"]["difficulty"] is None
    with pytest.raises(ValueError, match="not a number"):
        pack_dict(puzzle, [replace(levels[0], difficulty=float("nan"))])


# -- rejected packs ---------------------------------------------------------------------------


def _broken(change):
    puzzle, levels = make_levels("solitaire-chess")
    data = json.loads(json.dumps(pack_dict(puzzle, levels)))
    change(data)
    return data


def _set(path, value):
    def change(data):
        target = data
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value

    return change


BROKEN = {
    "newer format": (_set(["format"], "curator-level-pack/2"), "format: version"),
    "other format": (_set(["format"], "curator-layers/1"), "not a curator level pack"),
    "unknown key": (_set(["extra"], 1), "extra: unknown key"),
    "missing levels": (lambda d: d.pop("levels"), "levels: is missing"),
    "cell off board": (_set(["levels", 0, "pieces", 0, "cell"], [9, 9]), r"levels\[0\]\.pieces\[0\]\.cell"),
    "bad piece type": (_set(["levels", 0, "pieces", 0, "type"], "Z"), "not one of puzzle.piece_types"),
    "negative rank": (_set(["levels", 0, "rank"], -1), r"levels\[0\]\.rank"),
    "wrong layer": (_set(["levels", 0, "layer"], "k02"), r"levels\[0\]\.layer"),
    "count as text": (_set(["levels", 0, "metrics", "solutions"], "27"), "solutions: must be int"),
    "flag as number": (_set(["levels", 0, "metrics", "unique"], 1), "unique: must be bool"),
    "unknown family": (_set(["puzzle", "family"], "slide"), "unknown family"),
    "bad grid": (_set(["board", "grid"], "hex"), "unknown grid"),
    "move without to": (lambda d: d["levels"][0]["solution"][0].pop("to"), r"solution\[0\]\.to: is missing"),
}


@pytest.mark.parametrize("case", sorted(BROKEN))
def test_broken_packs_are_rejected_by_the_reader_and_the_schema(case):
    change, message = BROKEN[case]
    data = _broken(change)
    with pytest.raises(PackError, match=message):
        parse_pack(data, "pack.json")
    # the board, or the families installed, judge these
    if case not in ("cell off board", "bad piece type", "wrong layer", "unknown family"):
        assert not schema_validator().is_valid(data)


def test_unreadable_pack_names_the_file(tmp_path):
    path = tmp_path / "pack.json"
    path.write_text("{not json", encoding="utf-8")
    with pytest.raises(PackError, match="pack.json: json: not valid JSON"):
        load_pack(path)
