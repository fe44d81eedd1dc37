"""One notation: moves in Python are (row, col) cells as on the command line and in JSON, every
kind's rows are `layers` in `info --json`, and moves of typed pieces name the piece."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from cli_helpers import invoke

import curator
from curator.export import write_csv
from curator.layered.kind import KIND
from curator.layered.level import replay
from curator.layered.metrics import solve_position

ROOT = Path(__file__).resolve().parent.parent
CHESS_BOARD = "K.../.Q../..R./...N"


def test_level_moves_are_row_col_cells(tmp_path):
    results = curator.analyze(ROOT / "puzzles" / "triangle.toml", tmp_path / "triangle", max_pieces=6)
    level = results.solve("    ./   o o/  o o o/ o o o o/o o o o o")
    board = level.puzzle.board
    assert level.solution and all(a in board.index and b in board.index for a, b in level.solution)
    assert level.solution[0] == ((2, 0), (0, 0))
    assert level.solution == [(board.cells[a], board.cells[b]) for a, b in level.report.solution]
    assert [(tuple(m["from"]), tuple(m["to"])) for m in level.to_json()["solution"]] == level.solution
    assert replay(level.puzzle, level.position, level.solution) == \
        replay(level.puzzle, level.position, level.report.solution)
    for outcome in results.moves(level.position):
        (a, b) = outcome.move
        assert a in board.index and b in board.index


def test_info_json_lists_every_kind_s_rows_as_layers(tmp_path):
    for name in ("triangle", "eight-puzzle", "klotski"):
        folder = tmp_path / name
        depth = {"max_pieces": 4} if name == "triangle" else {}
        curator.analyze(ROOT / "puzzles" / f"{name}.toml", folder, **depth)
        result = invoke("info", folder, "--json")
        assert result.exit_code == 0, result.output
        data = json.loads(result.stdout)
        assert data["layers"] == curator.open(folder).layers
        assert "distances" not in data
    assert data["layers"][0]["distance"] == 0


@pytest.fixture(scope="module")
def chess():
    puzzle = curator.load(ROOT / "puzzles" / "solitaire-chess.toml")
    return puzzle, solve_position(puzzle, puzzle.parse(CHESS_BOARD, "board"))


def test_typed_moves_name_the_piece_they_move(chess, tmp_path):
    puzzle, level = chess
    text = KIND.item_text(puzzle, level)
    solution = next(line for line in text.split("\n") if line.startswith("solution: "))
    moves = solution.removeprefix("solution: ").split(" ")
    assert len(moves) == 2 * len(level.solution)
    positions = replay(puzzle, level.position, level.solution)
    for (letter, move), before, ((r0, c0), (r1, c1)) in zip(zip(moves[::2], moves[1::2]), positions,
                                                          level.solution):
        assert move == f"{r0},{c0}>{r1},{c1}"
        assert letter == puzzle.piece_types[before[puzzle.board.index[(r0, c0)]] - 1]
    (path,) = write_csv(puzzle, [level], tmp_path / "levels.csv")
    with path.open(encoding="utf-8", newline="") as handle:
        (row,) = list(csv.DictReader(handle))
    assert row["solution"] == solution.removeprefix("solution: ")
