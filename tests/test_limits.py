"""Bounded input: files people give are read only when they are regular files of at most
1 MiB, every number of a puzzle file is range-checked, and an analysis says what it will
take before it starts and refuses what does not fit (the permutation kind counts its memory
and its time).

Each refusal is one line and a quick exit: nothing here reads more than the limit.
"""

from __future__ import annotations

import os
import re
import resource
import time
from pathlib import Path

import pytest
from cli_helpers import error_line, invoke

from curator.common.errors import PuzzleError
from curator.common.reading import MAX_INPUT, MAX_PACK_INPUT, MAX_TITLE, read_text
from curator.common.resources import TIME_LIMIT
from curator.distance.analysis import sweep_needs
from curator.distance.puzzle import parse_permutation_puzzle
from curator.export.pack import load_pack
from curator.layered.puzzle import parse_puzzle
from curator.sliding.puzzle import parse_sliding_puzzle
from curator.sokoban.puzzle import parse_sokoban_puzzle

ROOT = Path(__file__).resolve().parent.parent
TRIANGLE = (ROOT / "puzzles" / "triangle.toml").read_text()


def permutation(pieces: int, extra: str = "") -> str:
    """A permutation puzzle of one set of `pieces` pieces: a full cycle and a swap."""
    return (f'name = "perm{pieces}"\n[rules]\nfamily = "permutation"\n[pieces.P]\ncount = {pieces}\n{extra}'
            f'[moves.A]\ncycles.P = [{list(range(pieces))}]\n[moves.B]\ncycles.P = [[0, 1]]\n')


def peak_memory() -> int:
    """This process's largest resident set so far, in bytes."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


# -- files that are not read -------------------------------------------------------------------


@pytest.fixture
def fifo(tmp_path):
    path = tmp_path / "pipe.toml"
    os.mkfifo(path)
    return path


@pytest.mark.parametrize("what", ["/dev/zero", "folder", "fifo"])
def test_files_that_are_not_regular_are_refused_at_once(tmp_path, fifo, what):
    path = {"/dev/zero": Path("/dev/zero"), "folder": tmp_path, "fifo": fifo}[what]
    before = peak_memory()
    start = time.monotonic()
    result = invoke("analyze", path, "--output", tmp_path / "out")
    assert result.exit_code == 2
    assert error_line(result.stderr) == f"error: {path}: file: not a regular file (a folder, device or pipe)"
    assert time.monotonic() - start < 5 and peak_memory() - before < 50_000_000
    assert not (tmp_path / "out").exists()


def test_files_over_the_limit_are_refused_before_they_are_read(tmp_path):
    art = "\n".join(["." * 1000] * 30_000)  # 30 MB of board drawing
    path = tmp_path / "big.toml"
    path.write_text(f'name = "big"\n[board]\nart = """\n{art}\n"""\n[rules]\nfamily = "jump"\n')
    before = peak_memory()
    result = invoke("analyze", path)
    assert result.exit_code == 2
    assert error_line(result.stderr) == (f"error: {path}: file: {path.stat().st_size:,} bytes; at most "
                                         f"{MAX_INPUT:,} are read")
    assert peak_memory() - before < 50_000_000
    exact = tmp_path / "exact.toml"
    exact.write_text(TRIANGLE + "#" * (MAX_INPUT - len(TRIANGLE.encode()) - 1) + "\n")
    assert read_text(exact).startswith(TRIANGLE)
    with pytest.raises(PuzzleError, match="characters; at most"):
        parse_puzzle(TRIANGLE + "#" * MAX_INPUT, "text")


def test_option_files_are_bounded_too(tmp_path, fifo):
    output = tmp_path / "out"
    assert invoke("analyze", ROOT / "puzzles" / "triangle.toml", "--output", output, "--max-pieces", "4",
                  "--workers", "1").exit_code == 0
    for board in ("/dev/zero", str(fifo)):
        result = invoke("solve", ROOT / "puzzles" / "triangle.toml", "--board", board)
        assert result.exit_code == 2
        assert "cannot be read (not a regular file" in error_line(result.stderr)
    big = tmp_path / "curve.json"
    big.write_text(" " * (MAX_PACK_INPUT + 1))
    for curve in ("/dev/zero", str(fifo), str(big)):
        result = invoke("pack", output, "--size", "2", "--curve", curve, "--format", "json", "--out",
                        tmp_path / "p.json")
        assert result.exit_code == 2
        line = error_line(result.stderr)
        assert "curve" in line and ("not a regular file" in line or "at most" in line or "neither" in line)


def test_a_level_pack_past_a_puzzle_files_limit_is_read_back(tmp_path):
    # curator writes packs of up to 2,000 levels, some MB: each must be read as a curve
    output, pack = tmp_path / "out", tmp_path / "pack.json"
    assert invoke("analyze", ROOT / "puzzles" / "triangle.toml", "--output", output, "--max-pieces", "6",
                  "--workers", "1").exit_code == 0
    assert invoke("export", output, "--unique", "--pieces", "4..6", "--limit", "3", "-f", "json",
                  "-o", pack).exit_code == 0
    text = pack.read_text()
    pack.write_text(text[:-2] + " " * (2 * MAX_INPUT) + text[-2:])  # still the same JSON
    assert len(load_pack(pack)[1]) == 3
    result = invoke("pack", output, "--size", "2", "--unique", "--curve", pack, "--format", "json",
                    "--out", tmp_path / "p.json")
    assert result.exit_code == 0, result.output


# -- numbers and text in puzzle files ----------------------------------------------------------------


def test_titles_are_one_line_of_at_most_200_characters():
    text = TRIANGLE.replace('title = "Triangular peg solitaire (15 holes)"', 'title = "{}"')
    assert parse_puzzle(text.format("t" * MAX_TITLE), "t").title == "t" * MAX_TITLE
    with pytest.raises(PuzzleError, match=r"file: 10,000,\d+ characters; at most 1,048,576 are read"):
        parse_puzzle(text.format("t" * 10_000_000), "t")
    with pytest.raises(PuzzleError, match=r"title: has 500,000 characters; at most 200"):
        parse_puzzle(text.format("t" * 500_000), "t")
    with pytest.raises(PuzzleError, match="title: must be one line"):
        parse_puzzle(text.format("two\\nlines"), "t")
    long = f'title = "{"x" * 201}"\n'
    with pytest.raises(PuzzleError, match="title: has 201"):
        parse_permutation_puzzle(long + permutation(3))
    klotski = (ROOT / "puzzles" / "klotski.toml").read_text()
    with pytest.raises(PuzzleError, match="title: has 201"):
        parse_sliding_puzzle(re.sub(r"(?m)^title = .*\n", long, klotski))
    sokoban = (ROOT / "puzzles" / "sokoban.toml").read_text()
    with pytest.raises(PuzzleError, match="title: has 201"):
        parse_sokoban_puzzle(re.sub(r"(?m)^title = .*\n", long, sokoban))


@pytest.mark.parametrize("layout, words", [
    ("[1000000000000000000, 1000000000000000000]", "neither may exceed"),
    ("[1e18, 1e18]", "two whole numbers"),
    ("[1, 100]", "neither may exceed"),
    ("[0, 9]", "two whole numbers"),
])
def test_layouts_are_range_checked(layout, words):
    with pytest.raises(PuzzleError, match=f"pieces.P.layout: .*{words}"):
        parse_permutation_puzzle(permutation(9, f"layout = {layout}\n"), "p")
    assert parse_permutation_puzzle(permutation(9, "layout = [3, 3]\n"), "p").sets[0].layout == (3, 3)


@pytest.mark.parametrize("art, words", [
    ("\n".join(["." * 500] * 500), "has 250000 cells; at most 256"),
    (".\n" + "\n" * 300 + ".", "spans 302 rows"),
    ("." + " " * 300 + ".", "spans 1 rows and 302 columns"),
])
def test_boards_are_bounded(art, words):
    text = f'name = "b"\n[board]\nart = """\n{art}\n"""\n[rules]\nfamily = "jump"\n'
    with pytest.raises(PuzzleError, match=f"board.art: {words}"):
        parse_puzzle(text, "b")


@pytest.mark.parametrize("cells, words", [
    ([[0, 0], [0, 10**18]], "rows and columns must lie between -255 and 255"),
    ([[0, i] for i in range(257)], "names 257 cells; a piece covers at most 256"),
])
def test_sliding_shapes_are_bounded(cells, words):
    klotski = (ROOT / "puzzles" / "klotski.toml").read_text()
    text = klotski.replace("cells = [[0, 0], [0, 1], [1, 0], [1, 1]]", f"cells = {cells}", 1)
    assert text != klotski
    with pytest.raises(PuzzleError, match=f"pieces.S.cells: {words}"):
        parse_sliding_puzzle(text, "k")


@pytest.mark.parametrize("xsb, words", [
    ("#" * 100_000 + "\n#@$.#\n#####", "spans 3 rows and 100000 columns; at most 258"),
    ("#####\n#@$.#\n" + "#\n" * 100_000 + "#####", "spans 100003 rows and 5 columns; at most 258"),
])
def test_sokoban_drawings_are_bounded(xsb, words):
    text = f'name = "s"\n[board]\nxsb = """\n{xsb}\n"""\n[rules]\nfamily = "push"\n'
    before = peak_memory()
    with pytest.raises(PuzzleError, match=f"board.xsb: {words}"):
        parse_sokoban_puzzle(text, "s")
    assert peak_memory() - before < 50_000_000


# -- estimates before an analysis -----------------------------------------------------------------


def test_a_permutation_too_long_for_the_machine_is_refused_with_its_estimate(tmp_path):
    path = tmp_path / "perm13.toml"
    path.write_text(permutation(13))
    assert path.stat().st_size < 200
    start = time.monotonic()
    result = invoke("analyze", path, "--output", tmp_path / "out", "--workers", "2")
    assert result.exit_code == 1 and time.monotonic() - start < 10
    first = result.stderr.splitlines()[0]
    assert first.startswith("perm13: 6,227,020,800 positions, 3 moves")
    assert "of memory and" in first and " h;" in first
    line = error_line(result.stderr)
    assert line.startswith("error: perm13's distance table does not fit on this machine (time: needs about ")
    assert line.endswith("or pass --ignore-limits to run anyway") and "free some space" not in line
    assert not (tmp_path / "out" / "distances.nib").exists()


def test_the_permutation_estimate_counts_the_table_and_its_move_tables():
    small = parse_permutation_puzzle(permutation(10), "p")
    needs = sweep_needs(small, 2)
    assert needs.table_bytes == (small.size + 1) // 2
    assert needs.memory_bytes == needs.table_bytes + 2 * 4 * small.size * len(small.moves)  # tabled
    assert needs.seconds < TIME_LIMIT
    large = sweep_needs(parse_permutation_puzzle(permutation(13), "p"), 2)
    assert large.memory_bytes == large.table_bytes  # too large for move tables: moves are computed
    assert large.seconds > TIME_LIMIT
    assert sweep_needs(parse_permutation_puzzle(permutation(13), "p"), 1).seconds == 2 * large.seconds


def test_a_byte_order_mark_is_not_read_as_text_and_a_folder_is_not_a_drawing(tmp_path):
    mark = b"\xef\xbb\xbf"  # what some editors put first in a UTF-8 file
    puzzle = tmp_path / "triangle.toml"
    puzzle.write_bytes(mark + TRIANGLE.encode())
    board = tmp_path / "board.txt"
    board.write_bytes(mark + b"    o\n   . .\n  . . .\n . . . .\n. . . . .\n")
    assert read_text(puzzle) == TRIANGLE
    result = invoke("solve", puzzle, "--board", board, "--json")
    assert result.exit_code == 0 and '"solvable": true' in result.stdout, result.output
    result = invoke("solve", puzzle, "--board", tmp_path)
    assert result.exit_code == 2
    said = f"error: --board: {tmp_path} is a folder, not a file; as a drawing"
    assert error_line(result.stderr).startswith(said)
