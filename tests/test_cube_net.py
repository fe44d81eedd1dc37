"""Pictures of permutation puzzles: the 8-puzzle's blank is an empty tile, and the pocket cube
gets the net of its faces in their colours, checked against what each turn does to a cube."""

from __future__ import annotations

from pathlib import Path

import pytest

import curator
from curator.catalogue import parse_puzzle
from curator.picture import FACE_COLOURS, NET, state_picture

ROOT = Path(__file__).resolve().parent.parent


def test_the_blank_of_the_eight_puzzle_is_drawn_empty():
    puzzle = curator.load(ROOT / "puzzles" / "eight-puzzle.toml")
    assert puzzle.movers == (8,)
    state = puzzle.apply(puzzle.solved_state, "up")  # the blank moves to position 5
    drawn = state_picture(puzzle, state)
    assert len(drawn.tiles) == 9 and len(drawn.pieces) == 8
    assert {disc.cell for disc in drawn.pieces} == set(range(9)) - {5}
    assert "0" in {disc.label for disc in drawn.pieces}  # tile piece 0 is a tile, not the blank


def _faces(drawn):
    """The stickers of a net picture by face: {face: [colour, ...]} (rows of the net)."""
    assert len(drawn.stickers) == 24
    size = drawn.stickers[1].points[0][0] - drawn.stickers[0].points[0][0]
    left = min(p[0] for t in drawn.stickers for p in t.points)
    top = min(p[1] for t in drawn.stickers for p in t.points)
    at = {(round((t.points[0][1] - top) / size), round((t.points[0][0] - left) / size)): t.fill
          for t in drawn.stickers}
    return {face: [at[(r + dr, c + dc)] for dr in (0, 1) for dc in (0, 1)] for face, (r, c) in NET.items()}


def test_the_pocket_cube_is_drawn_as_its_net():
    puzzle = curator.load(ROOT / "puzzles" / "pocket-cube.toml")
    solved = _faces(state_picture(puzzle, puzzle.solved_state))
    assert solved == {face: [FACE_COLOURS[face]] * 4 for face in NET}
    for name in puzzle.move_names:
        faces = _faces(state_picture(puzzle, puzzle.apply(puzzle.solved_state, name)))
        assert faces[name[0]] == [FACE_COLOURS[name[0]]] * 4, name  # the turned face stays whole
        everything = [colour for stickers in faces.values() for colour in stickers]
        assert sorted(everything) == sorted(colour for colour in FACE_COLOURS.values() for _ in range(4))
        assert faces != solved
    # R turns the front's right column up: the up face's right column is green, the front's
    # right column yellow (from below), the back's left column white.
    turned = _faces(state_picture(puzzle, puzzle.apply(puzzle.solved_state, "R")))
    green, yellow, white, blue = (FACE_COLOURS[f] for f in "FDUB")
    assert turned["U"] == [white, green, white, green]
    assert turned["F"] == [green, yellow, green, yellow]
    assert turned["B"] == [white, blue, white, blue]
    assert turned["D"] == [yellow, blue, yellow, blue]


@pytest.mark.parametrize("stickers, problem", [
    ('positions = ["URF", "UFL", "ULB", "UBR", "DFR", "DLF", "DRB"]\nfixed = ["DRB"]',
     "8 corners once each"),
    ('positions = ["URF", "UFL", "ULB", "UBR", "DFR", "DLF", "RDB"]\nfixed = ["DBL"]',
     "'RDB' is not a corner"),
    ('positions = ["URF"]', "must name 7 corners"),
    ('position = []', "unknown key"),
])
def test_sticker_tables_are_checked(stickers, problem):
    text = (ROOT / "puzzles" / "pocket-cube.toml").read_text(encoding="utf-8")
    start = text.index("[pieces.corners.stickers]")
    end = text.index("\n\n", start)
    broken = text[:start] + "[pieces.corners.stickers]\n" + stickers + text[end:]
    with pytest.raises(curator.PuzzleError) as caught:
        parse_puzzle(broken, "cube.toml")
    assert problem in str(caught.value)
    assert str(caught.value).startswith("cube.toml: pieces.corners.stickers")
