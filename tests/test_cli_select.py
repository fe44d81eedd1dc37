"""`curator select`, `solve` and `show` on small analyzed puzzles: output, JSON and errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import reference as ref
from cli_helpers import error_line
from typer.testing import CliRunner

from curator.cli import app
from curator.common.difficulty import DEFAULT
from curator.layered.analysis import analyze
from curator.layered.level import draw
from curator.layered.metrics import solve_position
from curator.layered.puzzle import load_puzzle
from curator.layered.search import Explorer
from curator.layered.space import StateSpace
from curator.layered.store import LayerStore

ROOT = Path(__file__).resolve().parent.parent
TRIANGLE = ROOT / "puzzles" / "triangle.toml"
FLING = ROOT / "puzzles" / "fling.toml"
CHESS = ROOT / "puzzles" / "solitaire-chess.toml"
runner = CliRunner()


@pytest.fixture(scope="module")
def stores(tmp_path_factory):
    base = tmp_path_factory.mktemp("cli-stores")
    analyze(load_puzzle(TRIANGLE), base / "triangle", 10)
    analyze(load_puzzle(CHESS), base / "chess", 3)
    return base


@pytest.fixture(autouse=True)
def elsewhere(tmp_path, monkeypatch):
    # `solve` looks for output/<name>/ under the working directory.
    monkeypatch.chdir(tmp_path)


def run(*args):
    return runner.invoke(app, [str(a) for a in args])


def test_select_unique_canonical_json(stores):
    result = run("select", stores / "triangle", "--unique", "--canonical", "--pieces", "4..6", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["puzzle"] == "triangle" and data["matched"] == len(data["levels"]) > 0
    puzzle = load_puzzle(TRIANGLE)
    space = StateSpace(puzzle)
    for level in data["levels"]:
        assert level["solutions"] == 1 and level["unique"] and level["solvable"]
        assert 4 <= level["pieces"] <= 6 and level["layer"] == f"k{level['pieces']:02d}"
        position = space.unrank(space.layer_of([1] * level["pieces"]), level["rank"])
        assert level["board"] == draw(puzzle, position).split("\n")
        occupied = [list(puzzle.board.cells[i]) + ["o"] for i, v in enumerate(position) if v]
        assert level["cells"] == occupied
        assert len(level["solution"]) == level["pieces"] - 1
        assert set(level["solution"][0]) == {"from", "to"}
        # log2(tried) >= 0, so the effort is at least the moves' share (1 - search) of each move.
        assert level["safe_moves"] <= level["legal_moves"]
        assert level["difficulty"] >= (1 - DEFAULT.search_share) * (level["pieces"] - 1)
        assert level["difficulty_terms"].startswith(f"{level['pieces'] - 1} moves")


def test_select_table_draws_boards(stores):
    result = run("select", stores / "triangle", "--unique", "--pieces", "3", "--limit", "2")
    assert result.exit_code == 0, result.output
    assert "rank" in result.stdout and "difficulty" in result.stdout
    assert "2 levels" in result.stdout
    assert result.stdout.count(" o") >= 2


def test_select_count_sample_and_sort(stores):
    counted = run("select", stores / "triangle", "--solvable", "--canonical", "--count", "--json")
    assert counted.exit_code == 0, counted.output
    summary = json.loads(counted.stdout)
    assert summary["matched"] == sum(summary["layers"].values()) > 0
    args = ["select", stores / "triangle", "--solvable", "--pieces", "6..8", "--json"]
    first = run(*args, "--sample", "6", "--seed", "7")
    again = run(*args, "--sample", "6", "--seed", "7")
    assert first.exit_code == 0, first.output
    assert first.stdout == again.stdout and len(json.loads(first.stdout)["levels"]) == 6
    ordered = run(*args, "--sample", "25", "--seed", "1", "--sort", "difficulty:desc", "--limit", "4")
    levels = json.loads(ordered.stdout)["levels"]
    assert len(levels) == 4
    values = [level["difficulty"] for level in levels]
    assert values == sorted(values, reverse=True)


@pytest.mark.parametrize(("args", "message"), [
    (["--count", "--limit", "3"], "--limit chooses among the matches; --count counts them all"),
    (["--count", "--sample", "5", "--sort", "pieces"], "--sample, --sort choose among the matches; --count "
                                                         "counts them all"),
    (["--counts", "K=1,K=2"], "--counts: K is given twice"),
])
def test_options_that_would_be_ignored_are_refused(stores, args, message):
    result = run("select", stores / "chess", *args)
    assert result.exit_code == 2, result.output
    assert error_line(result.stderr) == f"error: {message}"


@pytest.mark.parametrize("fmt", ["json", "csv", "svg", "html", "ldtk", "tiled", "play"])
def test_an_export_that_matches_nothing_writes_nothing_and_says_where_matches_are(stores, tmp_path, fmt):
    out = tmp_path / f"levels.{fmt}"
    result = run("export", stores / "triangle", "--unique", "--pieces", "10", "-f", fmt, "-o", out)
    assert result.exit_code == 2, result.output
    assert error_line(result.stderr) == ("error: no level matches the selection, so nothing was written "
                                         "(positions with --unique are stored with 1..9 pieces)")
    assert not out.exists()


def unwrapped(text: str) -> str:
    """A message without the spaces and line breaks the terminal's width puts in long paths."""
    return "".join(text.split())


def test_an_export_says_the_files_it_wrote(stores, tmp_path):
    one = tmp_path / "one.tmj"
    result = run("export", stores / "triangle", "--unique", "--pieces", "5", "--limit", "1", "-f", "tiled",
                 "-o", one)
    assert result.exit_code == 0, result.output
    assert unwrapped(result.stderr) == unwrapped(f"1 level written to {one}, {tmp_path / 'one-tiles.png'}")
    result = run("export", stores / "triangle", "--unique", "--pieces", "5", "--limit", "2", "-f", "tiled",
                 "-o", tmp_path / "maps")
    assert unwrapped(result.stderr) == unwrapped(f"2 levels written to 3 files in {tmp_path / 'maps'}")


def test_a_pack_whose_filters_leave_no_level_says_where_levels_are(stores, tmp_path):
    out = tmp_path / "pack.json"
    result = run("pack", stores / "triangle", "--unique", "--pieces", "10", "--size", "3",
                 "-f", "json", "-o", out)
    assert result.exit_code == 2, result.output
    assert error_line(result.stderr) == ("error: --size 3 is larger than the pool of 0 candidate levels; "
                                         "widen the filters or the pool (positions with --unique are "
                                         "stored with 1..9 pieces)")
    assert not out.exists()


def test_distances_of_layered_results_point_to_select(stores):
    result = run("distances", stores / "triangle", "--distance", "1")
    assert result.exit_code == 2
    assert error_line(result.stderr) == (f"error: {stores / 'triangle'} holds layered results, which have no "
                                         "distances to pick by; `curator select` lists their levels")


def test_show_draws_a_position_with_its_bits(stores):
    puzzle = load_puzzle(TRIANGLE)
    store = LayerStore.open(stores / "triangle")
    layer = StateSpace(puzzle).layers_with(9)[0]
    bits = store.load(layer)
    for rank in (0, 17, layer.size - 1):
        result = run("show", stores / "triangle", rank, "--pieces", "9", "--json")
        assert result.exit_code == 0, result.output
        data = json.loads(result.stdout)
        flags = bits.at(rank)
        assert {k: data[k] for k in flags} == flags
        assert data["board"] == draw(puzzle, StateSpace(puzzle).unrank(layer, rank)).split("\n")
    text = run("show", stores / "triangle", 17, "--pieces", "9")
    assert text.exit_code == 0 and "solvable:" in text.stdout and "rank 17" in text.stdout


def test_show_names_typed_layers_by_key(stores):
    ambiguous = run("show", stores / "chess", 0, "--pieces", "2")
    assert ambiguous.exit_code == 2 and "--layer" in ambiguous.stderr
    result = run("show", stores / "chess", 3, "--layer", "k02-K1Q1", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["layer"] == "k02-K1Q1" and sorted(c[2] for c in data["cells"]) == ["K", "Q"]
    both = run("show", stores / "chess", 3, "--layer", "k02-K1Q1", "--pieces", "3")
    assert both.exit_code == 2
    assert error_line(both.stderr) == ("error: --layer k02-K1Q1 holds 2 pieces, not --pieces 3; "
                                       "give one of the two")


def test_solve_inline_file_and_stored(stores, tmp_path):
    drawing = "    .\n   o o\n  o o o\n o o o o\no o o o o"
    inline = run("solve", TRIANGLE, "--board", drawing.replace("\n", "/"), "--json")
    assert inline.exit_code == 0, inline.output
    data = json.loads(inline.stdout)
    assert data["results"] is None and data["pieces"] == 14 and data["solvable"]
    puzzle = load_puzzle(TRIANGLE)
    start = frozenset(c for c in puzzle.board.cells if c != (0, 0))
    directions = [(0, 1), (0, -1), (1, 0), (-1, 0), (1, 1), (-1, -1)]
    cells = frozenset(puzzle.board.cells)
    expected = ref.analyze(lambda p: ref.jump_children(cells, directions, p), start, 1)
    assert data["solutions"] == expected.solutions
    (tmp_path / "board.txt").write_text(drawing + "\n")
    board = tmp_path / "board.txt"
    pruned = run("solve", TRIANGLE, "--board", board, "--results", stores / "triangle", "--json")
    assert pruned.exit_code == 0, pruned.output
    other = json.loads(pruned.stdout)
    assert other.pop("results") == str(stores / "triangle")
    data.pop("results")
    assert other == data
    text = run("solve", TRIANGLE, "--board", tmp_path / "board.txt")
    assert text.exit_code == 0 and f"solutions: {expected.solutions:,}" in text.stdout


def test_a_board_with_fewer_pieces_than_the_goal_cannot_be_won_by_chance():
    # It used to print "solvable: no" beside a 100% chance of winning by random moves.
    result = run("solve", TRIANGLE, "--board", "    ./   . ./  . . ./ . . . ./. . . . .", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert (data["pieces"], data["solvable"], data["win_chance"]) == (0, False, 0.0)


def test_a_permutation_state_the_moves_never_reach_says_so(tmp_path):
    folder = tmp_path / "tiles"
    assert run("analyze", ROOT / "puzzles" / "eight-puzzle.toml", "-o", folder).exit_code == 0
    text = run("show", folder, 2).stdout
    assert "rank 2: distance not reached" in text and "None" not in text


def test_solve_every_shipped_level_file_through_the_cli(tmp_path):
    # One board per published difficulty level (all 248 are checked in test_select.py).
    seen = set()
    for number, balls in ref.load_fling_levels(ROOT / "tests" / "data" / "fling_levels"):
        if number in seen:
            continue
        seen.add(number)
        rows = range(ref.FLING_ROWS)
        text = "/".join("".join("o" if (r, c) in balls else "." for c in range(ref.FLING_COLS)) for r in rows)
        result = run("solve", FLING, "--board", text, "--json")
        assert result.exit_code == 0, result.output
        data = json.loads(result.stdout)
        assert data["solutions"] == 1 and data["unique"], number
        assert len(data["solution"]) == len(balls) - 1
    assert len(seen) == 35


BAD = [
    ("select", "{t}", "--pieces", "5..x"),
    ("select", "{t}", "--pieces", "7..5"),
    ("select", "{t}", "--pieces", "11..12"),
    ("select", "{t}", "--must-include", "9,9"),
    ("select", "{t}", "--must-include", "0,0", "--must-exclude", "0,0"),
    ("select", "{t}", "--sort", "hardness", "--sample", "3"),
    ("select", "{t}", "--sample", "0"),
    ("select", "{t}", "--limit", "many"),
    ("select", "{t}", "--seed", "3"),
    ("select", "{t}", "--solvable"),
    ("select", "{t}", "--counts", "K=1"),
    ("select", "{c}", "--counts", "Z=1"),
    ("show", "{t}", "99999", "--pieces", "3"),
    ("show", "{t}", "-1", "--pieces", "3"),
    ("show", "{t}", "abc", "--pieces", "3"),
    ("show", "{t}", "0"),
    ("show", "{t}", "0", "--pieces", "30"),
    ("show", "{c}", "0", "--layer", "k09-Z1"),
    ("solve", TRIANGLE, "--board", "o o"),
    ("solve", TRIANGLE, "--board", "    x/   o o/  o o o/ o o o o/o o o o o"),
    ("solve", TRIANGLE, "--board", "boards/missing.txt"),
    ("solve", TRIANGLE, "--board", "    ./   o o/  o o o/ o o o o/o o o o o", "--results", "{c}"),
]


@pytest.mark.parametrize("args", BAD, ids=range(len(BAD)))
def test_bad_arguments_exit_2_with_one_line(stores, args):
    argv = [str(a).format(t=stores / "triangle", c=stores / "chess") for a in args]
    result = runner.invoke(app, argv)
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr


def test_missing_results_or_a_file_are_a_usage_error_and_an_empty_folder_a_failure(tmp_path):
    result = run("select", tmp_path / "nothing", "--unique")
    assert result.exit_code == 2
    assert result.stderr.strip() == f"error: {tmp_path / 'nothing'}: no such folder"
    (tmp_path / "file").write_text("not results\n")
    result = run("select", tmp_path / "file", "--unique")
    assert result.exit_code == 2
    assert result.stderr.strip().startswith(f"error: {tmp_path / 'file'}: is a file, not a folder;")
    result = run("select", tmp_path, "--unique")
    assert result.exit_code == 1
    assert len(result.stderr.strip().splitlines()) == 1


def test_solve_names_a_results_folder_of_another_kind_or_none(stores, tmp_path):
    klotski = ROOT / "puzzles" / "klotski.toml"
    board = "VSSV/VSSV/VHHV/VNNV/N..N"
    (tmp_path / "empty").mkdir()
    empty = "holds no results (no manifest.json); run `curator analyze` first"
    for folder, problem, code in ((stores / "triangle", "holds layered results, not sliding-block tables", 2),
                                  (tmp_path / "none", "no such folder", 2), (tmp_path / "empty", empty, 1)):
        result = run("solve", klotski, "--board", board, "--results", folder)
        assert result.exit_code == code, result.output  # as `select` says of them
        assert result.stderr.strip() == f"error: --results {folder}: {problem}"


@pytest.fixture(scope="module")
def big_stores(tmp_path_factory):
    base = tmp_path_factory.mktemp("big-stores")
    analyze(load_puzzle(FLING), base / "fling", 7)
    analyze(load_puzzle(ROOT / "puzzles" / "peg.toml"), base / "peg", 8)
    return base


@pytest.mark.slow
@pytest.mark.parametrize("name, pieces", [("fling", "5..7"), ("peg", "6..8")])
def test_unique_canonical_selection_on_full_boards(big_stores, name, pieces):
    directory = big_stores / name
    result = run("select", directory, "--unique", "--canonical", "--pieces", pieces, "--sample", "60",
                 "--seed", "2", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert len(data["levels"]) == 60
    assert all(level["solutions"] == 1 for level in data["levels"])
    puzzle = LayerStore.open(directory).puzzle()
    space = StateSpace(puzzle)
    perms = puzzle.rules.symmetries()
    for level in data["levels"]:
        position = space.unrank(space.layer_of([1] * level["pieces"]), level["rank"])
        for perm in perms:
            image = [0] * len(position)
            for i, v in enumerate(position):
                image[perm[i]] = v
            assert space.rank(image)[1] >= level["rank"]
    counted = json.loads(run("select", directory, "--unique", "--pieces", pieces, "--count", "--json").stdout)
    assert counted["matched"] / len(perms) <= data["matched"] < counted["matched"]


@pytest.mark.slow
def test_shipped_levels_solve_uniquely_with_stored_layers(big_stores):
    puzzle = load_puzzle(FLING)
    explorer = Explorer(puzzle, LayerStore.open(big_stores / "fling").solvable_words())
    for number, balls in ref.load_fling_levels(ROOT / "tests" / "data" / "fling_levels"):
        position = tuple(1 if cell in balls else 0 for cell in puzzle.board.cells)
        level = solve_position(puzzle, position, explorer)
        assert level.report.solutions == 1, number
