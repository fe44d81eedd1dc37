"""`curator analyze` and `curator info` on the command line: results, JSON shape, known counts
and error exits (one line on stderr; 2 for bad input, 1 for failures while running)."""

from __future__ import annotations

import json
from math import comb
from pathlib import Path

import numba
import pytest
from rich.console import Console
from typer.testing import CliRunner

from curator import progress
from curator.cli import app
from curator.layered.puzzle import load_puzzle
from curator.layered.space import StateSpace
from curator.layered.store import LayerStore
from curator.universe.analysis import Work

PUZZLES = Path(__file__).resolve().parent.parent / "puzzles"
LAYER_KEYS = {"pieces", "positions", "solvable", "unique", "all_moves", "seconds"}

runner = CliRunner()

CHESS = """\
name = "chess-3x3"
max_pieces = 3

[board]
art = \"\"\"
...
...
...
\"\"\"

[rules]
family = "capture"

[pieces]
K = 1
N = 1
P = 2
"""


def run(*args: str):
    result = runner.invoke(app, [str(a) for a in args])
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result


def info_json(directory: Path) -> dict:
    result = run("info", directory, "--json")
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)


def one_error_line(result) -> str:
    """stderr is the error alone: one line."""
    lines = result.stderr.strip("\n").split("\n")
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("error: "), result.stderr
    return lines[0]


def last_error_line(result) -> str:
    """The error is one line and the last thing on stderr (progress may come before it)."""
    lines = [line for line in result.stderr.split("\n") if line.strip()]
    errors = [line for line in lines if line.startswith("error: ")]
    assert len(errors) == 1 and lines[-1] == errors[0], result.stderr
    return errors[0]


@pytest.fixture(scope="module")
def triangle_dir(tmp_path_factory) -> Path:
    directory = tmp_path_factory.mktemp("cli") / "triangle"
    result = run("analyze", PUZZLES / "triangle.toml", "--output", directory)
    assert result.exit_code == 0, result.stderr
    return directory


def test_analyze_triangle_exits_0_and_writes_results(triangle_dir):
    assert (triangle_dir / "manifest.json").is_file()
    store = LayerStore.open(triangle_dir)
    assert [r.layer.pieces for r in store.records()] == list(range(1, 16))


def test_info_json_has_exactly_the_documented_keys(triangle_dir):
    summary = info_json(triangle_dir)
    assert set(summary) == {"puzzle", "complete", "layers"}
    assert summary["puzzle"] == "triangle"
    assert summary["complete"] is True
    assert [item["pieces"] for item in summary["layers"]] == list(range(1, 16))
    for item in summary["layers"]:
        assert set(item) == LAYER_KEYS
        assert item["positions"] == comb(15, item["pieces"])
        for key in ("pieces", "positions", "solvable", "unique", "all_moves"):
            assert isinstance(item[key], int) and not isinstance(item[key], bool)
        assert isinstance(item["seconds"], (int, float)) and item["seconds"] >= 0
        assert item["unique"] <= item["solvable"] <= item["positions"]
        assert item["all_moves"] <= item["solvable"]


def test_triangle_hand_checkable_counts(triangle_dir):
    layers = {item["pieces"]: item for item in info_json(triangle_dir)["layers"]}
    # Every single-vacancy start of the 15-hole triangle is solvable.
    assert layers[14]["solvable"] == 15 == layers[14]["positions"]
    # One peg is the goal wherever it stands; it has no moves.
    assert layers[1]["solvable"] == layers[1]["unique"] == 15
    assert layers[1]["all_moves"] == 0
    # Two pegs: solvable exactly when they are neighbours with a cell beyond one of them.
    # Per direction the lines have 1..5 cells; those of 3, 4 and 5 cells hold 2 + 3 + 4 such
    # pairs, 9 per direction and 27 in all. Every move of such a pair finishes. The pairs
    # with cells beyond both ends (1 on the 4-line, 2 on the 5-line per direction) have two
    # solutions, so 27 - 3 * 3 = 18 are unique.
    assert layers[2]["solvable"] == 27 == layers[2]["all_moves"]
    assert layers[2]["unique"] == 18
    # A full board has no move.
    assert layers[15]["solvable"] == layers[15]["all_moves"] == 0


def test_info_table(triangle_dir):
    result = run("info", triangle_dir)
    assert result.exit_code == 0, result.stderr
    assert "triangle" in result.stdout
    assert "6,435" in result.stdout  # C(15, 7) positions in layer 7


def test_fling_two_balls(tmp_path):
    result = run("analyze", PUZZLES / "fling.toml", "--output", tmp_path, "--max-pieces", "3")
    assert result.exit_code == 0, result.stderr
    summary = info_json(tmp_path)
    assert summary["puzzle"] == "fling"
    layers = {item["pieces"]: item for item in summary["layers"]}
    assert sorted(layers) == [1, 2, 3]
    # Two balls in a line with a gap: 8 rows * C(7, 2)-6 + 7 columns * C(8, 2)-7 = 120 + 147.
    assert layers[2]["positions"] == comb(56, 2)
    assert layers[2]["solvable"] == 267
    # The final step counts once, and both flings of a solvable pair finish.
    assert layers[2]["unique"] == 267 == layers[2]["all_moves"]
    assert layers[1]["solvable"] == 56


def test_peg_centre_first_layers(tmp_path):
    result = run("analyze", PUZZLES / "peg-centre.toml", "--output", tmp_path, "--max-pieces", "3")
    assert result.exit_code == 0, result.stderr
    layers = {item["pieces"]: item for item in info_json(tmp_path)["layers"]}
    # Only the centre counts; two pegs finish there from the four lines through it.
    assert layers[1]["solvable"] == layers[1]["unique"] == 1
    assert layers[2]["solvable"] == layers[2]["unique"] == 4


def test_typed_info_adds_counts(tmp_path):
    puzzle_file = tmp_path / "chess.toml"
    puzzle_file.write_text(CHESS)
    out = tmp_path / "out"
    result = run("analyze", puzzle_file, "--output", out)
    assert result.exit_code == 0, result.stderr
    summary = info_json(out)
    assert set(summary) == {"puzzle", "complete", "layers"}
    assert summary["puzzle"] == "chess-3x3" and summary["complete"] is True
    space = StateSpace(load_puzzle(puzzle_file))
    expected = [layer for tier in space.tiers(3) for layer in tier]
    assert len(summary["layers"]) == len(expected)
    for item, layer in zip(summary["layers"], expected):
        assert set(item) == LAYER_KEYS | {"counts"}
        assert item["counts"] == {"K": layer.counts[0], "N": layer.counts[1], "P": layer.counts[2]}
        assert item["pieces"] == layer.pieces
        assert item["positions"] == layer.size


def test_rerun_keeps_results(tmp_path):
    first = run("analyze", PUZZLES / "triangle.toml", "--output", tmp_path, "--max-pieces", "5")
    assert first.exit_code == 0, first.stderr
    before = info_json(tmp_path)
    again = run("analyze", PUZZLES / "triangle.toml", "--output", tmp_path, "--max-pieces", "5")
    assert again.exit_code == 0, again.stderr
    assert info_json(tmp_path) == before  # the seconds too: nothing was recomputed


def test_workers_option(tmp_path):
    before = numba.get_num_threads()
    try:
        result = run("analyze", PUZZLES / "triangle.toml", "--output", tmp_path,
                     "--max-pieces", "4", "--workers", "1")
    finally:
        numba.set_num_threads(before)
    assert result.exit_code == 0, result.stderr


# --------------------------------------------------------------------------------------------
# Errors
# --------------------------------------------------------------------------------------------


def test_missing_puzzle_file(tmp_path):
    missing = tmp_path / "missing.toml"
    result = run("analyze", missing, "--output", tmp_path / "out")
    assert result.exit_code == 2
    assert str(missing) in one_error_line(result)
    assert result.stdout == ""
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("name = \n", "toml"),
        ('name = "x"\n[board]\nart = "..."\n[rules]\nfamily = "hop"\n', "rules.family"),
        ('name = "../x"\n[board]\nart = "..."\n[rules]\nfamily = "jump"\n', "name"),
        ('name = "x"\n[board]\nart = "..x"\n[rules]\nfamily = "jump"\n', "board.art"),
    ],
    ids=["toml", "family", "name", "art"],
)
def test_bad_puzzle_file(tmp_path, text, words):
    path = tmp_path / "bad.toml"
    path.write_text(text)
    result = run("analyze", path, "--output", tmp_path / "out")
    assert result.exit_code == 2
    line = one_error_line(result)
    assert f"{path}: {words}" in line
    assert result.stdout == ""


@pytest.mark.parametrize("value", ["0", "16", "-1"])
def test_bad_max_pieces(tmp_path, value):
    result = run("analyze", PUZZLES / "triangle.toml", "--output", tmp_path / "out",
                 "--max-pieces", value)
    assert result.exit_code == 2
    assert "--max-pieces" in one_error_line(result)
    assert not (tmp_path / "out" / "manifest.json").exists()


def test_max_pieces_not_a_number(tmp_path):
    result = run("analyze", PUZZLES / "triangle.toml", "--output", tmp_path / "out",
                 "--max-pieces", "many")
    assert result.exit_code == 2
    assert not (tmp_path / "out").exists()


def test_bad_workers(tmp_path):
    result = run("analyze", PUZZLES / "triangle.toml", "--output", tmp_path / "out",
                 "--workers", "0")
    assert result.exit_code == 2
    assert "--workers" in one_error_line(result)


def test_info_on_an_empty_folder(tmp_path):
    result = run("info", tmp_path)
    assert result.exit_code == 1
    assert str(tmp_path) in one_error_line(result)
    assert result.stdout == ""


def test_info_on_a_missing_folder(tmp_path):
    result = run("info", tmp_path / "nowhere", "--json")
    assert result.exit_code == 2  # a path that names nothing, as a missing puzzle file
    one_error_line(result)


def test_info_on_a_damaged_manifest(tmp_path):
    (tmp_path / "manifest.json").write_text("{")
    result = run("info", tmp_path)
    assert result.exit_code == 1
    one_error_line(result)


def test_other_puzzle_in_the_folder_needs_force(tmp_path):
    first = run("analyze", PUZZLES / "triangle.toml", "--output", tmp_path, "--max-pieces", "3")
    assert first.exit_code == 0, first.stderr
    other = run("analyze", PUZZLES / "peg.toml", "--output", tmp_path, "--max-pieces", "2")
    assert other.exit_code == 1
    assert "--force" in last_error_line(other)
    assert info_json(tmp_path)["puzzle"] == "triangle"
    forced = run("analyze", PUZZLES / "peg.toml", "--output", tmp_path, "--max-pieces", "2",
                 "--force")
    assert forced.exit_code == 0, forced.stderr
    summary = info_json(tmp_path)
    assert summary["puzzle"] == "peg"
    assert [item["positions"] for item in summary["layers"]] == [33, comb(33, 2)]


# --------------------------------------------------------------------------------------------
# The English board from a single central vacancy (all 32 layers: slow)
# --------------------------------------------------------------------------------------------


@pytest.mark.slow
def test_english_centre_start_finishes_in_the_centre(tmp_path):
    puzzle_file = PUZZLES / "peg-centre.toml"
    result = run("analyze", puzzle_file, "--output", tmp_path)
    assert result.exit_code == 0, result.stderr
    summary = info_json(tmp_path)
    assert summary["complete"] is True
    layers = {item["pieces"]: item for item in summary["layers"]}
    assert sorted(layers) == list(range(1, 33))
    assert layers[32]["positions"] == 33
    assert layers[32]["solvable"] >= 1

    puzzle = load_puzzle(puzzle_file)
    centre = puzzle.board.index[(3, 3)]
    start = tuple(0 if cell == centre else 1 for cell in range(puzzle.board.size))
    layer, rank = StateSpace(puzzle).rank(start)
    bits = LayerStore.open(tmp_path).load(layer)
    word, bit = divmod(rank, 64)
    assert (int(bits.solvable[word]) >> bit) & 1 == 1
    assert (int(bits.unique[word]) >> bit) & 1 == 0  # the classic start has many solutions


def test_an_unfinished_layer_prints_its_progress_now_and_then_when_not_on_a_terminal(tmp_path, monkeypatch):
    log = tmp_path / "log.txt"
    with log.open("w") as out:
        with progress.layer_progress(Console(file=out)) as reporter:
            work = Work("universe", 10, noun="piece")
            reporter.layer_started(work)
            reporter.advance(3)  # within PROGRESS_EVERY of the start: no line
            monkeypatch.setattr(progress, "PROGRESS_EVERY", 0.0)
            reporter.advance(1)
            reporter.advance(6)  # done: the finished line says it
            reporter.layer_finished(work, {"seconds": 2.0}, kept=False)
    lines = log.read_text().splitlines()
    assert lines[0].startswith("universe: 4 of 10 pieces so far, about ") and lines[0].endswith(" s left")
    assert lines[1:] == ["universe: 10 pieces (2.0 s)"]


def test_progress_is_one_line_per_layer_when_not_on_a_terminal(tmp_path):
    first = run("analyze", PUZZLES / "triangle.toml", "--output", tmp_path)
    assert first.exit_code == 0, first.stderr
    lines = [line for line in first.stderr.splitlines() if line.startswith("k")]
    assert [line.split(":")[0] for line in lines] == [f"k{k:02d}" for k in range(1, 16)]
    assert lines[6].startswith("k07: 6,435 positions (") and lines[6].endswith(" s)")
    again = run("analyze", PUZZLES / "triangle.toml", "--output", tmp_path)
    assert "k15: 1 position (kept)" in again.stderr.splitlines()
    assert "━" not in first.stderr + again.stderr  # no progress bars in a log
