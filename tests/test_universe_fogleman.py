"""The hardest Rush Hour puzzles of Fogleman's database (2018), measured in the 0..2-wall universe
without computing it whole: the first 23 lines of the database (tests/data/fogleman-hardest.txt)
set by set, and the hardest with one and with two walls also through the piece of work holding
them, searched as `analyze` searches it."""

from __future__ import annotations

from pathlib import Path

import pytest

from curator.universe.pieces import piece_ranges
from curator.universe.play import Positions, UniversePosition, explore
from curator.universe.puzzle import load_universe
from curator.universe.space import Space, build_space
from curator.universe.store import records
from curator.universe.sweep import search

UNIVERSE = Path(__file__).parents[1] / "puzzles" / "rush-hour-universe.toml"
DATABASE = Path(__file__).parent / "data" / "fogleman-hardest.txt"
HARDEST = [line.split() for line in DATABASE.read_text().splitlines() if line and not line.startswith("#")]
"""Moves, board (row by row, `o` empty, `x` a wall, `A` the red car, another letter per
vehicle) and set size of each puzzle, hardest first."""


def drawing(board: str) -> str:
    """A board in Fogleman's notation as a drawing of the universe (rows joined by '/')."""
    cells: dict[str, list[tuple[int, int]]] = {}
    for i, ch in enumerate(board):
        cells.setdefault(ch, []).append(divmod(i, 6))
    out = [["."] * 6 for _ in range(6)]
    for ch, at in cells.items():
        across = len({r for r, _ in at}) == 1
        letter = {"o": ".", "x": "x", "A": "R"}.get(ch) or {(2, True): "h", (3, True): "H", (2, False): "v",
                                                          (3, False): "V"}[len(at), across]
        for r, c in at:
            out[r][c] = letter
    return "/".join("".join(row) for row in out)


def piece_of(space: Space, position: UniversePosition) -> tuple[int, ...]:
    """The piece of work (the kinds of every row) whose search meets `position`'s set."""
    kinds = []
    for depth in range(space.universe.rows):
        lane, configs = space.order[depth], space.configs[depth]
        walls = position.wall_mask & (((1 << space.universe.cols) - 1) << (lane * space.universe.cols))
        match = (configs[:, 0] == position.groups[lane]) & (configs[:, 4] == walls)
        (kind,) = set(configs[match, 6].tolist())
        kinds.append(kind)
    return tuple(kinds)


@pytest.fixture(scope="module")
def space() -> Space:
    return build_space(load_universe(UNIVERSE))


def key(board: str) -> tuple[int, int]:
    """A drawing's key, as docs/universe.md orders positions: its horizontal cells (walls
    included), then its vertical ones, as board masks (bit r * 6 + c)."""
    cells = board.replace("/", "")
    return (sum(1 << i for i, ch in enumerate(cells) if ch in "hHRx"),
            sum(1 << i for i, ch in enumerate(cells) if ch in "vV"))


def test_the_first_lines_of_the_database_are_curators_farthest_minimal_positions(space):
    """Each of the 23 puzzles (60 down to 50 moves, with 0, 1 or 2 walls) needs its published
    moves, is the farthest position curator keeps of a set of its published size (the
    smallest key of those farthest: the database breaks ties the same way) and is minimal
    (every vehicle or wall but the red car, taken away alone, shortens its solution)."""
    positions = Positions(space.universe, space)
    assert len(HARDEST) == 23
    hardest = {}
    for moves, board, size in HARDEST:
        position = positions.read(drawing(board))
        found = explore(space, position)
        assert found.distance(position.code) == found.farthest == int(moves)
        assert found.size == int(size)
        farthest = [space.draw(found.groups, found.walls, int(code))
                    for code in found.codes[found.distances == int(moves)]]
        assert min(farthest, key=key) == drawing(board)
        for taken in [*(set(board) - {"o", "x", "A"}), *(i for i, ch in enumerate(board) if ch == "x")]:
            fewer = "".join("o" if ch == taken or i == taken else ch for i, ch in enumerate(board))
            assert positions.distance(positions.read(drawing(fewer))) < int(moves), (board, taken)
        hardest.setdefault(board.count("x"), int(moves))
    assert hardest == {1: 60, 2: 58, 0: 51}


@pytest.mark.parametrize(("moves", "board", "size"), HARDEST[:2], ids=["one wall", "two walls"])
def test_the_hardest_puzzles_with_walls_are_stored_so_by_their_piece_of_work(space, moves, board, size):
    position = Positions(space.universe, space).read(drawing(board))
    sets = records(search(space, piece_ranges(space, piece_of(space, position))), space)
    (record,) = sets[sets["farthest"] == position.code]
    assert (int(record["size"]), int(record["distance"])) == (int(size), int(moves))
    assert int(record["minimal"]) == 1
    assert int(record["counts"][-1]) == board.count("x")
