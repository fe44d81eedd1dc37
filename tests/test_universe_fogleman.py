"""The hardest Rush Hour puzzle with a wall in Fogleman's database (2018), measured in the 0..2-wall
universe without computing it whole: its connected set explored, and the piece of work holding it
searched as `analyze` searches it."""

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
HARDEST_WITH_A_WALL = "IBBxooIooLDDJAALooJoKEEMFFKooMGGHHHM"
"""60 moves, one wall: the board his database's browser opens on (row by row, `o` empty, `x` a
wall, `A` the red car, another letter per vehicle)."""


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


def test_the_hardest_puzzle_with_a_wall_needs_60_moves_and_is_its_sets_minimal_farthest(space):
    board = drawing(HARDEST_WITH_A_WALL)
    assert board == "vhhx../v..vhh/vRRv../v.vhhV/hhv..V/hhHHHV"
    position = Positions(space.universe, space).read(board)
    found = explore(space, position)
    assert (found.distance(position.code), found.farthest, found.size) == (60, 60, 2332)
    sets = records(search(space, piece_ranges(space, piece_of(space, position))), space)
    (record,) = sets[sets["farthest"] == position.code]
    assert (int(record["size"]), int(record["distance"]), int(record["minimal"])) == (2332, 60, 1)
    assert int(record["counts"][-1]) == 1  # one wall
