"""Puzzle files: the bundled ones load, and every kind of mistake is one clear PuzzleError."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from curator.common.board import Board
from curator.common.errors import PuzzleError
from curator.common.ranking import MAX_CELLS
from curator.layered.puzzle import load_puzzle, parse_puzzle

PUZZLES = Path(__file__).resolve().parent.parent / "puzzles"
SOURCE = "levels/test.toml"

# --------------------------------------------------------------------------------------------
# The bundled puzzles
# --------------------------------------------------------------------------------------------

BUNDLED = {
    # file: (cells, symmetries, family, piece types)
    "peg.toml": (33, 8, "jump", ("o",)),
    "peg-centre.toml": (33, 8, "jump", ("o",)),
    "triangle.toml": (15, 6, "jump", ("o",)),
    "french.toml": (37, 8, "jump", ("o",)),
    "fling.toml": (56, 4, "fling", ("o",)),
    "solitaire-chess.toml": (16, 2, "capture", ("K", "Q", "R", "B", "N", "P")),
    "chess-9x9.toml": (81, 8, "capture", ("R", "B", "N")),
}


def test_every_bundled_puzzle_is_listed():
    assert {path.name for path in PUZZLES.glob("*.toml")} >= set(BUNDLED)


@pytest.mark.parametrize("name", sorted(BUNDLED))
def test_bundled_puzzle_loads(name):
    cells, symmetries, family, types = BUNDLED[name]
    path = PUZZLES / name
    puzzle = load_puzzle(path)
    assert puzzle.board.size == cells
    assert puzzle.rules.family == family
    assert puzzle.piece_types == types
    assert puzzle.source == str(path)
    assert puzzle.text == path.read_text(encoding="utf-8")
    assert puzzle.name == path.stem
    assert puzzle.goal.pieces <= puzzle.max_pieces <= sum(puzzle.piece_limits)
    perms = puzzle.rules.symmetries()
    assert len(perms) == symmetries
    assert perms[0] == tuple(range(cells)), "the identity comes first"
    for perm in perms:
        assert sorted(perm) == list(range(cells))
    assert len(set(perms)) == len(perms)


def test_bundled_goals_and_depths():
    peg = load_puzzle(PUZZLES / "peg.toml")
    centre = load_puzzle(PUZZLES / "peg-centre.toml")
    fling = load_puzzle(PUZZLES / "fling.toml")
    chess = load_puzzle(PUZZLES / "solitaire-chess.toml")
    assert peg.goal.cells is None
    assert centre.goal.cells == frozenset({centre.board.index[(3, 3)]}) == frozenset({16})
    assert fling.goal.final_step_once and not peg.goal.final_step_once
    assert (fling.board.rows, fling.board.cols) == (8, 7)
    assert chess.piece_limits == (1, 1, 2, 2, 2, 2) and chess.max_pieces == 6
    assert peg.sha256 != centre.sha256


def _jump_triples(puzzle) -> set[tuple[int, int, int]]:
    board = puzzle.board
    diagonal = puzzle.rules.options.get("diagonal", False)
    out = set()
    for src, cell in enumerate(board.cells):
        for d in board.directions(diagonal):
            over, dst = board.step(cell, d, 1), board.step(cell, d, 2)
            if over is not None and dst is not None:
                out.add((src, over, dst))
    return out


@pytest.mark.parametrize("name", ["peg.toml", "triangle.toml", "french.toml"])
def test_jump_symmetries_map_moves_onto_moves(name):
    puzzle = load_puzzle(PUZZLES / name)
    triples = _jump_triples(puzzle)
    for perm in puzzle.rules.symmetries():
        assert {(perm[a], perm[b], perm[c]) for a, b, c in triples} == triples


def test_pawns_keep_only_the_mirror():
    chess = load_puzzle(PUZZLES / "solitaire-chess.toml")
    board = chess.board
    mirror = tuple(board.index[(r, 3 - c)] for r, c in board.cells)
    assert chess.rules.symmetries() == [tuple(range(16)), mirror]
    # Without pawns the whole square's symmetry group is kept.
    text = chess.text.replace("P = 2\n", "")
    assert len(parse_puzzle(text).rules.symmetries()) == 8


def test_triangle_cells_are_axial():
    triangle = load_puzzle(PUZZLES / "triangle.toml")
    assert triangle.board.cells == tuple((r, c) for r in range(5) for c in range(r + 1))


# --------------------------------------------------------------------------------------------
# Errors
# --------------------------------------------------------------------------------------------

BASE = """\
name = "small"
max_pieces = 4

[board]
grid = "square"
art = \"\"\"
....
....
\"\"\"

[rules]
family = "jump"

[goal]
pieces = 1
"""

CHESS = """\
name = "chess"

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
P = 2

[goal]
pieces = 1
"""

TRIANGLE = """\
name = "tri"

[board]
grid = "triangular"
art = \"\"\"
  .
 . .
. . .
\"\"\"

[rules]
family = "jump"
"""


def test_base_texts_are_valid():
    assert parse_puzzle(BASE, SOURCE).board.size == 8
    assert parse_puzzle(CHESS, SOURCE).piece_types == ("K", "P")
    assert parse_puzzle(TRIANGLE, SOURCE).board.size == 6


def edit(text: str, old: str, new: str) -> str:
    assert old in text, old
    return text.replace(old, new, 1)


def art(drawing: str, text: str = BASE) -> str:
    start = text.index('art = """') + len('art = """')
    end = text.index('"""', start)
    return text[:start] + "\n" + drawing + "\n" + text[end:]


ERRORS = [
    # (id, text, key, words the problem mentions)
    ("unknown-top-key", BASE + 'colour = "red"\n', "goal.colour", "unknown key"),
    ("unknown-key-before-tables", 'colour = "red"\n' + BASE, "colour", "unknown key"),
    ("unknown-board-key", edit(BASE, 'grid = "square"', 'grid = "square"\nsize = 4'), "board.size",
     "unknown key"),
    ("unknown-goal-key", BASE + "cell = 3\n", "goal.cell", "unknown key"),
    ("unknown-rule-parameter", edit(BASE, 'family = "jump"', 'family = "jump"\nking_safe = true'),
     "rules.king_safe", "unknown parameter"),
    ("missing-name", edit(BASE, 'name = "small"\n', ""), "name", "missing"),
    ("missing-board", BASE[: BASE.index("[board]")] + BASE[BASE.index("[rules]"):], "board",
     "missing"),
    ("missing-art", edit(BASE, 'art = """\n....\n....\n"""', ""), "board.art", "missing"),
    ("missing-rules", BASE[: BASE.index("[rules]")], "rules", "missing"),
    ("missing-family", edit(BASE, 'family = "jump"', ""), "rules.family", "missing"),
    ("name-parent", edit(BASE, '"small"', '"../x"'), "name", "'../x'"),
    ("name-slash", edit(BASE, '"small"', '"a/b"'), "name", "'a/b'"),
    ("name-dots", edit(BASE, '"small"', '".."'), "name", "'..'"),
    ("name-dot", edit(BASE, '"small"', '"."'), "name", "'.'"),
    ("name-hidden", edit(BASE, '"small"', '".x"'), "name", "'.x'"),
    ("name-empty", edit(BASE, '"small"', '""'), "name", "''"),
    ("name-space", edit(BASE, '"small"', '"a b"'), "name", "'a b'"),
    ("name-too-long", edit(BASE, '"small"', '"' + "a" * 65 + '"'), "name", "a" * 65),
    ("name-backslash", edit(BASE, '"small"', "'a\\b'"), "name", "not a plain name"),
    ("unknown-family", edit(BASE, '"jump"', '"hop"'), "rules.family", "'hop'"),
    ("name-not-string", edit(BASE, '"small"', "3"), "name", "must be a string"),
    ("title-not-string", edit(BASE, 'name = "small"', 'name = "small"\ntitle = 1'), "title",
     "must be a string"),
    ("max-pieces-string", edit(BASE, "max_pieces = 4", 'max_pieces = "4"'), "max_pieces",
     "must be an integer"),
    ("max-pieces-bool", edit(BASE, "max_pieces = 4", "max_pieces = true"), "max_pieces",
     "must be an integer"),
    ("max-pieces-float", edit(BASE, "max_pieces = 4", "max_pieces = 4.0"), "max_pieces",
     "must be an integer"),
    ("board-not-table", edit(BASE, 'max_pieces = 4', 'max_pieces = 4\nboard = "...."')
     .replace("[board]\ngrid = \"square\"\nart = \"\"\"\n....\n....\n\"\"\"\n", ""), "board",
     "must be a table"),
    ("art-not-string", edit(BASE, 'art = """\n....\n....\n"""', "art = 4"), "board.art",
     "must be a string"),
    ("grid-not-string", edit(BASE, 'grid = "square"', "grid = 4"), "board.grid", "must be a string"),
    ("family-not-string", edit(BASE, 'family = "jump"', "family = 1"), "rules.family",
     "must be a string"),
    ("diagonal-not-bool", edit(BASE, 'family = "jump"', 'family = "jump"\ndiagonal = "yes"'),
     "rules.diagonal", "'yes'"),
    ("king-safe-not-bool", edit(CHESS, 'family = "capture"', 'family = "capture"\nking_safe = 1'),
     "rules.king_safe", "1"),
    ("goal-pieces-float", edit(BASE, "pieces = 1", "pieces = 1.5"), "goal.pieces",
     "must be an integer"),
    ("goal-not-table",
     edit(BASE, 'name = "small"', 'name = "small"\ngoal = 1').replace("[goal]\npieces = 1\n", ""),
     "goal", "must be a table"),
    ("final-step-not-bool", BASE + "final_step_once = 1\n", "goal.final_step_once",
     "true or false"),
    ("goal-cells-not-list", BASE + 'cells = "a"\n', "goal.cells", "must be a list"),
    ("goal-cell-short", BASE + "cells = [[1]]\n", "goal.cells", "[row, column]"),
    ("goal-cell-bool", BASE + "cells = [[true, 0]]\n", "goal.cells", "[row, column]"),
    ("goal-cell-string", BASE + 'cells = ["a1"]\n', "goal.cells", "[row, column]"),
    ("goal-cell-off-board", BASE + "cells = [[2, 0]]\n", "goal.cells", "[2, 0]"),
    ("goal-cell-negative", BASE + "cells = [[-1, 0]]\n", "goal.cells", "[-1, 0]"),
    ("goal-cell-in-hole", art(". .\n...", BASE + "cells = [[0, 1]]\n"), "goal.cells", "[0, 1]"),
    ("goal-cells-too-few", edit(BASE, "pieces = 1", "pieces = 2") + "cells = [[0, 0], [0, 0]]\n",
     "goal.cells", "fewer"),
    ("goal-pieces-too-big", edit(BASE, "pieces = 1", "pieces = 9"), "goal.pieces", "9"),
    ("goal-pieces-zero", edit(BASE, "pieces = 1", "pieces = 0"), "goal.pieces", "0"),
    ("goal-pieces-above-max", edit(BASE, "pieces = 1", "pieces = 5"), "max_pieces", "4"),
    ("max-pieces-zero", edit(BASE, "max_pieces = 4", "max_pieces = 0"), "max_pieces", "0"),
    ("max-pieces-too-big", edit(BASE, "max_pieces = 4", "max_pieces = 9"), "max_pieces", "9"),
    ("board-no-cells", art("   \n # "), "board.art", "no cells"),
    ("board-empty-art", art(""), "board.art", "no cells"),
    ("board-272-cells", art("\n".join(["." * 16] * 17)), "board.art", "272"),
    ("layer-past-64-bit-ranks",
     art("\n".join(["." * 10] * 10)).replace("max_pieces = 4\n", "max_pieces = 20\n"), "max_pieces",
     "the layer of 18 pieces has 30,664,510,802,988,208,300 positions"),
    ("board-bad-char", art("..x.\n...."), "board.art", "'x'"),
    ("board-tab", art("..\t.\n...."), "board.art", "'\\t'"),
    ("unknown-grid", edit(BASE, '"square"', '"hex"'), "board.grid", "'hex'"),
    pytest.param(art("..\n..", TRIANGLE), "board.art", "alternate", id="triangle-misaligned"),
    ("diagonal-on-triangle", edit(TRIANGLE, 'family = "jump"', 'family = "jump"\ndiagonal = true'),
     "rules.diagonal", "square"),
    ("pieces-not-table", edit(CHESS, "[pieces]\nK = 1\nP = 2\n", "").replace(
        'name = "chess"', 'name = "chess"\npieces = 3'), "pieces", "must be a table"),
    ("pieces-empty", edit(CHESS, "K = 1\nP = 2\n", ""), "pieces", "no piece types"),
    ("pieces-long-letter", edit(CHESS, "K = 1", "KK = 1"), "pieces.KK", "single letters"),
    ("pieces-digit", edit(CHESS, "K = 1", "1 = 1"), "pieces.1", "single letters"),
    ("pieces-o", edit(CHESS, "K = 1", "o = 1"), "pieces.o", "'o'"),
    ("pieces-zero", edit(CHESS, "K = 1", "K = 0"), "pieces.K", "0"),
    ("pieces-count-string", edit(CHESS, "K = 1", 'K = "1"'), "pieces.K", "must be an integer"),
    ("pieces-count-too-big", edit(CHESS, "P = 2", "P = 10"), "pieces.P", "10"),
    ("pieces-do-not-fit", edit(CHESS, "P = 2", "P = 7\nN = 2"), "pieces", "do not fit"),
    ("pieces-unknown-chessman", edit(CHESS, "K = 1", "Z = 1"), "rules.family", "Z"),
    ("pieces-on-jump", BASE + "[pieces]\nK = 4\nQ = 4\n", "pieces", "one kind of piece"),
    ("pieces-on-fling", edit(CHESS, '"capture"', '"fling"'), "pieces", "one kind of piece"),
    ("goal-piece-unknown", CHESS + 'piece = "Q"\n', "goal.piece", "'Q'"),
    ("goal-piece-binary", BASE + 'piece = "o"\n', "goal.piece", "'o'"),
    ("goal-piece-too-few", edit(CHESS, "pieces = 1", "pieces = 2") + 'piece = "K"\n', "goal.piece",
     "only 1"),
    ("goal-piece-not-string", CHESS + "piece = 1\n", "goal.piece", "must be a string"),
    ("capture-on-triangle", edit(edit(CHESS, "[board]", '[board]\ngrid = "triangular"'),
                                 '"""\n...\n...\n...\n"""', '"""\n  .\n . .\n. . .\n"""'),
     "rules.family", "square"),
    ("fling-on-triangle", edit(TRIANGLE, '"jump"', '"fling"'), "rules.family", "square"),
    ("not-toml", BASE + "[goal\n", "toml", "TOML"),
    ("duplicate-key", BASE + "pieces = 2\n", "toml", "TOML"),
]


def _params(cases):
    return [pytest.param(*c[1:], id=c[0]) if type(c) is tuple else c for c in cases]


@pytest.mark.parametrize(("text", "key", "words"), _params(ERRORS))
def test_error_names_source_key_and_problem(text, key, words):
    with pytest.raises(PuzzleError) as info:
        parse_puzzle(text, SOURCE)
    exc = info.value
    message = str(exc)
    assert exc.source == SOURCE
    assert exc.key == key
    assert message.startswith(f"{SOURCE}: {key}: "), message
    problem = message[len(f"{SOURCE}: {key}: "):]
    assert problem.strip(), message
    assert words in problem, message
    assert "\n" not in message and "\r" not in message, message


def test_error_ids_are_distinct():
    ids = [e[0] if type(e) is tuple else e.id for e in ERRORS]
    assert len(set(ids)) == len(ids)


@pytest.mark.parametrize(
    "text",
    [
        '"a\\nb" = 1\n' + BASE,
        BASE + '"x\\ny" = 1\n',
        edit(BASE, 'family = "jump"', 'family = "jump"\n"d\\ni" = true'),
        edit(CHESS, "K = 1", '"\\n" = 1'),
    ],
    ids=["top", "goal", "rules", "pieces"],
)
def test_error_message_is_one_line_even_for_strange_keys(text):
    """Quoted TOML keys may hold line breaks; the message must still be one line."""
    with pytest.raises(PuzzleError) as info:
        parse_puzzle(text, SOURCE)
    message = str(info.value)
    assert message.startswith(f"{SOURCE}: "), message
    assert "\n" not in message, message


def test_256_cells_are_accepted():
    puzzle = parse_puzzle(art("\n".join(["." * 16] * 16)), SOURCE)
    assert puzzle.board.size == MAX_CELLS == 256 and puzzle.rules.mask_words == 4


def test_board_art_details():
    # `o` marks a cell too, `#` and spaces are holes, blank lines around the drawing and
    # trailing spaces carry no meaning, and the drawing is shifted to row 0 / column 0.
    puzzle = parse_puzzle(art("\n\n  #o.#  \n    ..  \n\n"), SOURCE)
    assert puzzle.board.cells == ((0, 0), (0, 1), (1, 1), (1, 2))
    assert puzzle.board == Board.from_art("square", "..\n ..")


def test_defaults():
    text = edit(BASE, "max_pieces = 4\n", "")
    text = text[: text.index("[goal]")]
    puzzle = parse_puzzle(text, SOURCE)
    assert puzzle.title == puzzle.name == "small"
    assert puzzle.max_pieces == 8
    assert puzzle.goal.pieces == 1 and puzzle.goal.cells is None and puzzle.goal.piece is None
    assert puzzle.goal.final_step_once is False
    assert puzzle.piece_types == ("o",) and puzzle.piece_limits == (8,)
    assert puzzle.board.grid == "square"


def test_goal_fields_are_parsed():
    text = CHESS + 'piece = "P"\nfinal_step_once = true\ncells = [[2, 0], [0, 2], [2, 0]]\n'
    puzzle = parse_puzzle(text, SOURCE)
    index = puzzle.board.index
    assert puzzle.goal.piece == 2
    assert puzzle.goal.final_step_once is True
    assert puzzle.goal.cells == frozenset({index[(2, 0)], index[(0, 2)]})
    assert puzzle.piece_limits == (1, 2) and puzzle.max_pieces == 3


def test_load_puzzle_errors_name_the_file(tmp_path):
    missing = tmp_path / "missing.toml"
    with pytest.raises(PuzzleError) as info:
        load_puzzle(missing)
    assert str(info.value).startswith(f"{missing}: file: ")
    assert "\n" not in str(info.value)

    binary = tmp_path / "binary.toml"
    binary.write_bytes(b"\xff\xfe\x00name")
    with pytest.raises(PuzzleError) as info:
        load_puzzle(binary)
    assert str(info.value).startswith(f"{binary}: file: ")

    bad = tmp_path / "bad.toml"
    bad.write_text(edit(BASE, '"jump"', '"hop"'))
    with pytest.raises(PuzzleError) as info:
        load_puzzle(bad)
    assert str(info.value).startswith(f"{bad}: rules.family: ")


def test_puzzle_error_is_a_value_error():
    with pytest.raises(ValueError):
        parse_puzzle("name = 1", SOURCE)


def test_sha256_follows_the_text():
    a = parse_puzzle(BASE, SOURCE)
    b = parse_puzzle(BASE + "\n# comment\n", SOURCE)
    assert a.sha256 != b.sha256
    assert a.sha256 == parse_puzzle(BASE, "elsewhere.toml").sha256
    assert len(a.sha256) == 64 and int(a.sha256, 16) >= 0


def test_goal_cells_use_board_coordinates_after_shifting():
    # The drawing starts at text column 2; cell coordinates count from the first cell column.
    text = art("  ..\n  ..", BASE) + "cells = [[1, 1]]\n"
    puzzle = parse_puzzle(text, SOURCE)
    assert puzzle.goal.cells == frozenset({3})
    assert np.array_equal(sorted(puzzle.board.index.values()), np.arange(4))


@pytest.mark.parametrize("family", ["jump", "fling"])
def test_single_kind_pieces_table_is_rejected_for_identical_pieces(family):
    text = edit(BASE, '"jump"', f'"{family}"') + "[pieces]\nK = 8\n"
    with pytest.raises(PuzzleError) as info:
        parse_puzzle(text, SOURCE)
    assert info.value.key in {"pieces", "rules.family"}


@pytest.mark.parametrize(
    ("grid", "drawing", "count"),
    [
        ("triangular", "  . . .\n . . . .\n. . . . .\n . . . .\n  . . .", 12),  # hexagon
        ("triangular", ". . .\n . .\n  .", 6),  # triangle pointing down
        ("triangular", ". . . .\n . . . .\n  . . . .", 2),  # parallelogram: half-turn only
        ("square", "...\n...\n...", 8),
        ("square", "....\n....\n....", 4),
        ("square", "..\n.", 2),  # an L of three cells: its diagonal mirror
    ],
)
def test_board_symmetry_counts(grid, drawing, count):
    board = Board.from_art(grid, drawing)
    perms = board.symmetries()
    assert len(perms) == count
    neighbours = {
        (i, board.step(cell, d))
        for i, cell in enumerate(board.cells)
        for d in board.directions(diagonal=False)
        if board.step(cell, d) is not None
    }
    for perm in perms:
        assert {(perm[a], perm[b]) for a, b in neighbours} == neighbours
