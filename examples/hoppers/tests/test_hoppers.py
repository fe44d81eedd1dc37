"""The Hoppers family, installed as a package: its analysis agrees with a plain search.

Skipped when curator-hoppers is not installed (python3 -m pip install -e examples/hoppers).
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import pytest

pytest.importorskip("curator_hoppers", reason="not installed: pip install -e examples/hoppers")

from typer.testing import CliRunner  # noqa: E402

import curator  # noqa: E402
from curator.cli import app  # noqa: E402
from curator.common.errors import PuzzleError  # noqa: E402
from curator.layered.puzzle import parse_puzzle  # noqa: E402
from curator.layered.space import StateSpace  # noqa: E402

PUZZLE = Path(__file__).resolve().parents[1] / "puzzles" / "hoppers.toml"

# The 13 pads, written out without curator: row + column even on a 5 x 5 grid, row by row.
PADS = [(r, c) for r in range(5) for c in range(5) if (r + c) % 2 == 0]
STEPS = [(0, 2), (0, -2), (2, 0), (-2, 0), (1, 1), (1, -1), (-1, 1), (-1, -1)]
EMPTY, GREEN, RED = 0, 1, 2  # as the puzzle's [pieces] table orders them: G, then R


Pads = tuple[tuple[int, int], ...]


@cache
def jumps(pads: Pads = tuple(PADS)) -> list[tuple[int, int, int]]:
    """Every (from, over, to) pad index triple of a jump on the empty board of `pads`."""
    index = {pad: i for i, pad in enumerate(pads)}
    found = []
    for (r, c), i in index.items():
        for dr, dc in STEPS:
            over, land = (r + dr, c + dc), (r + 2 * dr, c + 2 * dc)
            if over in index and land in index:
                found.append((i, index[over], index[land]))
    return found


JUMPS = jumps()


def children(position: tuple[int, ...], pads: Pads = tuple(PADS)) -> set[tuple[int, ...]]:
    """The distinct positions one jump leads to."""
    found = set()
    for src, over, land in jumps(pads):
        if position[src] and position[over] and not position[land]:
            after = list(position)
            after[land], after[src], after[over] = position[src], EMPTY, EMPTY
            found.add(tuple(after))
    return found


@cache
def solutions(position: tuple[int, ...], pads: Pads = tuple(PADS)) -> int:
    """The number of jump sequences from `position` to the red frog alone."""
    frogs = [v for v in position if v]
    if len(frogs) == 1:
        return int(frogs == [RED])
    return sum(solutions(child, pads) for child in children(position, pads))


def expected(position: tuple[int, ...], pads: Pads = tuple(PADS)) -> dict[str, bool]:
    """The three stored properties of `position`, by the plain search."""
    count = solutions(position, pads)
    kids = children(position, pads)
    return {"solvable": count > 0, "unique": count == 1,
            "all_moves": sum(1 for v in position if v) > 1 and bool(kids)
            and all(solutions(kid, pads) > 0 for kid in kids)}


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    return curator.analyze(PUZZLE, output=tmp_path_factory.mktemp("hoppers") / "out", workers=1)


def test_the_board_is_the_thirteen_pads(results):
    puzzle = results.puzzle
    assert list(puzzle.board.cells) == PADS
    assert puzzle.piece_types == ("G", "R") and puzzle.piece_limits == (11, 1)
    assert len(JUMPS) == 32 and len(puzzle.symmetries()) == 8


def test_every_stored_bit_agrees_with_a_plain_search(results):
    space = StateSpace(results.puzzle)
    checked = 0
    for record in results.store.records():
        layer = record.layer
        bits = results.store.load(layer)
        for rank in range(layer.size):
            position = space.unrank(layer, rank)
            assert bits.at(rank) == expected(position), (layer.key, rank, position)
        checked += layer.size
    # Every layer from one frog up to the 11 green frogs and the red one: all 2^13 + 13 * 2^12
    # placements of green frogs and at most one red frog, less the empty board, the 14 full
    # ones and the 13 of twelve green frogs.
    assert len(results.store.records()) == 23 and checked == 61412


def test_a_level_is_selected_and_solved(results):
    (level,) = results.select(pieces=9, unique=True, limit=1, sort="difficulty:desc")
    assert level.solutions == 1 and solutions(level.position) == 1
    # The red frog in a corner jumps the green frog at the centre of its quarter.
    solved = results.solve("R . ./ G ./. . ./ . ./. . .")
    assert (solved.solvable, solved.solutions, list(solved.solution)) == (True, 1, [((0, 0), (2, 2))])
    lost = results.solve("G . ./ R ./. . ./ . ./. . .")
    assert not lost.solvable and lost.legal_moves == 1


def test_curator_families_lists_it_from_its_package():
    result = CliRunner().invoke(app, ["families", "--json"])
    assert result.exit_code == 0, result.output
    (hoppers,) = [item for item in json.loads(result.stdout) if item["name"] == "hoppers"]
    assert hoppers["source"].startswith("package curator-hoppers ")
    assert (hoppers["typed"], hoppers["sweep_kernel"], hoppers["options"]) == (True, "boards", {})


def test_a_board_with_pads_side_by_side_is_refused():
    text = PUZZLE.read_text().replace(". . .\n . .\n. . .\n . .\n. . .", "....\n....\n....\n....")
    assert "...." in text
    with pytest.raises(PuzzleError, match=r"^grid\.toml: rules\.family: hoppers boards have pads only "):
        parse_puzzle(text, "grid.toml")


# -- a board of more than 64 pads: the multi-word move generator ----------------------------

def test_a_board_of_85_pads_agrees_with_a_plain_search(tmp_path):
    art = "\n".join("".join("." if (r + c) % 2 == 0 else " " for c in range(13)).rstrip() for r in range(13))
    text = PUZZLE.read_text().replace(PUZZLE.read_text().split('"""')[1], "\n" + art + "\n")
    text = text.replace("G = 11", "G = 2")
    path = tmp_path / "wide-hoppers.toml"
    path.write_text(text)
    results = curator.analyze(path, output=tmp_path / "out", workers=1)
    puzzle = results.puzzle
    assert puzzle.board.size == 85 and puzzle.rules.mask_words == 2
    space = StateSpace(puzzle)
    pads = tuple(puzzle.board.cells)
    seen = []
    for record in results.store.records():
        layer = record.layer
        if sum(layer.counts) != 3:
            continue
        bits = results.store.load(layer)
        for rank in range(0, layer.size, 11):
            want = expected(space.unrank(layer, rank), pads)
            assert bits.at(rank) == want, (layer.key, rank)
            seen.append(want)
    assert len(seen) > 500 and any(w["unique"] for w in seen) and any(w["all_moves"] for w in seen)
