"""Boards of more than 64 cells: multi-word masks rank like the scalar functions, the sweep
on 65- to 100-cell boards agrees with the plain reference, and a board that fits one word
gives the same bits through the multi-word path."""

from __future__ import annotations

import itertools
import json
import math
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_sweep import Case, RECT_4x4, check_case, oracle_for, sweep_all

import curator
from curator.common import ranking
from curator.common.ranking import (
    BINOMIAL,
    BINOMIAL_WIDE,
    RANK_LIMIT,
    from_words,
    mask_words,
    next_colex_cells,
    rank_colex_wide,
    rank_combination,
    to_words,
    unrank_colex_wide,
)
from curator.layered import classes
from curator.layered.bits import PROPERTIES
from curator.layered.level import replay
from curator.layered.puzzle import largest_layer
from curator.layered.space import StateSpace


def test_binomials_are_exact_below_the_rank_limit():
    assert np.array_equal(BINOMIAL_WIDE[:65, :65], BINOMIAL)
    for n in (65, 100, 200, 256):
        for k in range(n + 1):
            exact = math.comb(n, k)
            assert BINOMIAL_WIDE[n, k] == (exact if exact < RANK_LIMIT else RANK_LIMIT - 1)


def test_mask_words_follow_the_board():
    assert [mask_words(n) for n in (1, 64, 65, 128, 129, 256)] == [1, 1, 2, 2, 3, 4]


@settings(max_examples=80, deadline=None)
@given(st.data())
def test_wide_colex_ranks_match_the_scalar_ranks(data):
    n = data.draw(st.integers(1, 256))
    k = data.draw(st.integers(0, min(n, 9)))
    cells = sorted(data.draw(st.sets(st.integers(0, n - 1), min_size=k, max_size=k)))
    words = mask_words(n)
    mask = to_words(sum(1 << c for c in cells), words)
    rank = rank_combination(cells, n, "colex")
    assert rank_colex_wide(mask) == rank
    out = np.zeros(max(k, 1), dtype=np.int64)
    unrank_colex_wide(rank, n, k, out)
    assert out[:k].tolist() == cells
    if rank + 1 < math.comb(n, k):
        next_colex_cells(out, k)
        assert rank_combination(out[:k].tolist(), n, "colex") == rank + 1
    assert from_words(mask) == sum(1 << c for c in cells)


def test_largest_layer_is_the_most_even_split():
    import itertools

    for limits, pieces in (((1, 2, 5), 4), ((3, 3), 5), ((1, 1, 1, 4), 6)):
        best = max(math.comb(20, pieces) * math.factorial(pieces) // math.prod(map(math.factorial, c))
                   for c in itertools.product(*(range(x + 1) for x in limits)) if sum(c) == pieces)
        assert largest_layer(20, limits, pieces)[1] == best


WIDE = "\n".join(["." * 11] * 6)  # 66 cells: two words
HOLED_WIDE = "\n".join(["." * 10] * 3 + ["....##...."] + ["." * 10] * 3)  # 68 cells

WIDE_CASES = [
    Case("jump-6x11-diagonal", WIDE, "jump", rules={"diagonal": True}, max_pieces=3),
    Case("jump-7x10-holed-cells", HOLED_WIDE, "jump", goal={"cells": [[6, 9], [0, 0], [5, 5]]},
         max_pieces=3),
    Case("fling-6x11-once", WIDE, "fling", goal={"final_step_once": True}, max_pieces=3),
    Case("fling-1x66", "." * 66, "fling", max_pieces=3),  # flights across the word boundary
    Case("capture-8x9", "\n".join(["." * 9] * 8), "capture", pieces={"Q": 1, "N": 1, "P": 1}, max_pieces=2),
    Case("capture-5x13-king-safe", "\n".join(["." * 13] * 5), "capture", rules={"king_safe": True},
         pieces={"K": 1, "B": 1}, goal={"piece": "K"}),
]


@pytest.mark.parametrize("case", WIDE_CASES, ids=lambda c: c.id)
def test_wide_boards_match_reference(case):
    assert case.puzzle().rules.mask_words > 1
    computed = check_case(case)
    assert any(bits.solvable.any() for layer, bits in computed.items() if layer.pieces > 1)


@pytest.mark.slow
def test_three_typed_pieces_on_a_wide_board_match_reference():
    case = Case("capture-7x10-king-safe", "\n".join(["." * 10] * 7), "capture", rules={"king_safe": True},
                pieces={"K": 1, "R": 2}, goal={"piece": "K"})
    check_case(case)


@pytest.fixture
def forced_wide(monkeypatch):
    """Every board of at most 128 cells takes two-word masks while the fixture is active."""
    monkeypatch.setattr(ranking, "_forced_words", 2)


BOARD_8x8 = "\n".join(["........"] * 8)
NARROW_CASES = [
    Case("jump-8x8", BOARD_8x8, "jump", rules={"diagonal": True}, goal={"cells": [[7, 7], [0, 0]]},
         max_pieces=3),
    Case("fling-8x8", BOARD_8x8, "fling", goal={"final_step_once": True}, max_pieces=3),
    Case("capture-4x4", RECT_4x4, "capture", rules={"king_safe": True},
         pieces={"K": 1, "R": 1, "N": 1, "P": 1}),
]


@pytest.mark.parametrize("case", NARROW_CASES, ids=lambda c: c.id)
def test_the_wide_path_gives_the_one_word_bits(case, monkeypatch):
    narrow = sweep_all(case.puzzle())
    monkeypatch.setattr(ranking, "_forced_words", 2)
    puzzle = case.puzzle()
    assert puzzle.rules.mask_words == 2
    wide = sweep_all(puzzle)
    assert list(wide) == list(narrow)
    for layer, bits in narrow.items():
        for name in PROPERTIES:
            assert np.array_equal(getattr(bits, name), getattr(wide[layer], name)), (layer.key, name)


def test_a_layer_past_64_bit_ranks_is_refused_before_the_analysis():
    from curator.common.errors import SelectionError
    from curator.layered.analysis import sweep_depth

    puzzle = Case("jump-16x16", "\n".join(["." * 16] * 16), "jump").puzzle()
    assert sweep_depth(puzzle, 11) == 11
    with pytest.raises(SelectionError, match=r"^max_pieces: the layer of 12 pieces has "
                                             r"127,[0-9,]+ positions, more than a 64-bit rank holds"):
        sweep_depth(puzzle, 12)
    # The file sets no max_pieces: the file is named, not an option never given.
    with pytest.raises(SelectionError, match=rf"^{puzzle.source}: the layer of 12 pieces .* \(the file sets "
                                             r"no max_pieces, so every layer is swept: set max_pieces"):
        sweep_depth(puzzle, None)


# -- every command's path on a wide board, and the files of the forced wide path ---------------

ROOT = Path(__file__).resolve().parent.parent


def _files(directory: Path) -> dict[str, object]:
    """The bit files' bytes and the manifest's layers without their timings."""
    manifest = json.loads((directory / "manifest.json").read_text())
    layers = [{k: v for k, v in layer.items() if k != "seconds"} for layer in manifest["layers"]]
    bits = {path.name: path.read_bytes() for path in sorted(directory.glob("*.bits"))}
    return {"layers": layers, "bits": bits}


@pytest.mark.parametrize(("name", "max_pieces"), [
    ("triangle", None), ("solitaire-chess", 3), ("fling", 3),
    # Three pieces of the six types already fill tiers of many layers.
    pytest.param("solitaire-chess", 4, marks=pytest.mark.slow),
])
def test_the_wide_path_writes_the_one_word_files(tmp_path, monkeypatch, name, max_pieces):
    path = ROOT / "puzzles" / f"{name}.toml"
    narrow = curator.analyze(path, tmp_path / "narrow", max_pieces=max_pieces)
    picked = [(level.rank, level.class_size) for level in
              narrow.select(solvable=True, canonical=True, sample=40, seed=5, sort="rank")]
    monkeypatch.setattr(ranking, "_forced_words", 2)
    classes.translations.cache_clear()
    assert curator.load(path).rules.mask_words == 2
    wide = curator.analyze(path, tmp_path / "wide", max_pieces=max_pieces)
    assert _files(tmp_path / "narrow") == _files(tmp_path / "wide")
    # The same canonical levels (symmetries and translations) and class sizes.
    assert picked == [(level.rank, level.class_size) for level in
                      wide.select(solvable=True, canonical=True, sample=40, seed=5, sort="rank")]
    classes.translations.cache_clear()


WIDE_FILE = Case("capture-8x9-file", "\n".join(["." * 9] * 8), "capture", rules={"king_safe": True},
                 pieces={"K": 1, "R": 2}, max_pieces=3)


@pytest.fixture(scope="module")
def wide_results(tmp_path_factory):
    directory = tmp_path_factory.mktemp("wide")
    path = directory / "capture.toml"
    path.write_text(WIDE_FILE.text())
    return curator.analyze(path, directory / "out")


def placements(cells: tuple, most: dict[str, int], pieces: int) -> Iterator[frozenset]:
    """Every position of `pieces` pieces on `cells` with at most `most[letter]` of each letter, as
    the reference writes positions: frozensets of (cell, letter)."""
    if pieces == 0:
        yield frozenset()
        return
    if not most:
        return
    letter, *others = most
    rest = {other: most[other] for other in others}
    for n in range(min(most[letter], pieces) + 1):
        for chosen in itertools.combinations(cells, n):
            free = tuple(cell for cell in cells if cell not in chosen)
            for position in placements(free, rest, pieces - n):
                yield position | {(cell, letter) for cell in chosen}


def test_a_wide_analysis_verifies_and_selects(wide_results):
    assert wide_results.verify().ok
    oracle = oracle_for(WIDE_FILE, wide_results.puzzle)
    unique = wide_results.count(unique=True, pieces=(3, 3))
    every = list(placements(oracle.cells, WIDE_FILE.pieces, 3))
    assert len(every) == sum(layer.size for layer in StateSpace(wide_results.puzzle).layers_with(3))
    want = sum(oracle.result(position).unique for position in every)
    assert unique == want > 0
    # Classes by the board's symmetries and translations, against their plain-Python members.
    puzzle = wide_results.puzzle
    levels = wide_results.select(unique=True, pieces=(3, 3), canonical=True, sample=10, seed=1)
    assert len(levels) == 10
    for level in levels:
        assert level.class_size == len(classes.members(puzzle, level.position)) > 1
        assert classes.canonical_rank(puzzle, level.position) == level.rank
    # One level per class of the two-rook layer: their class sizes add up to the layer. The
    # plain-Python canonical rank of every sixth of them (of every one: -m slow).
    every = two_rook_classes(wide_results)
    assert sum(level.class_size for level in every) == math.comb(72, 2)
    assert all(classes.canonical_rank(puzzle, level.position) == level.rank for level in every[::6])


def two_rook_classes(results) -> list:
    every = results.select(pieces=(2, 2), counts={"K": 0}, canonical=True)
    assert len(every) > 60
    return every


@pytest.mark.slow  # a sixth of them above
def test_every_two_rook_class_keeps_its_canonical_rank(wide_results):
    every = two_rook_classes(wide_results)
    assert all(classes.canonical_rank(wide_results.puzzle, level.position) == level.rank for level in every)


def test_a_wide_solve_counts_like_the_reference(wide_results):
    puzzle = wide_results.puzzle
    oracle = oracle_for(WIDE_FILE, puzzle)
    for level in wide_results.select(solvable=True, pieces=(3, 3), sample=10, seed=2):
        report = wide_results.solve(level.position)
        result = oracle.result(oracle.position(level.position))
        assert (report.solvable, report.solutions) == (True, result.solutions)
        assert replay(puzzle, level.position, report.solution)[-1].count(0) == 71


def test_a_wide_board_exports_and_packs(wide_results, tmp_path):
    levels = wide_results.select(unique=True, pieces=(3, 3), sample=3, seed=3)
    for fmt in ("json", "csv", "svg", "ldtk", "tiled", "play"):
        assert wide_results.export(levels, tmp_path / fmt, format=fmt)
    pack = wide_results.pack(3, pool=40, solvable=True)  # rating unsolvable levels is slow
    assert len(pack.levels) == 3


def test_the_workspace_serves_a_wide_board(wide_results):
    from fastapi.testclient import TestClient

    from curator.web.app import create_app

    client = TestClient(create_app([wide_results.directory]), base_url="http://127.0.0.1:8000")
    assert client.get("/api/folders/0").status_code == 200
    found = client.get("/api/folders/0/levels", params={"pieces": "3", "unique": "true", "limit": 3})
    assert found.status_code == 200, found.text
    level = wide_results.select(unique=True, pieces=(3, 3), sample=1, seed=4)[0]
    report = client.post("/api/folders/0/position", json={"position": list(level.position)})
    assert report.status_code == 200 and report.json()["unique"], report.text
    picture = client.get("/api/folders/0/picture", params={"position": ",".join(map(str, level.position))})
    assert picture.status_code == 200
    packed = client.post("/api/folders/0/arrange", json={"size": 2, "pool": 40, "solvable": True})
    assert packed.status_code == 200, packed.text
    assert len(packed.json()["levels"]) == 2


def test_a_family_without_wide_moves_is_refused_on_a_wide_board():
    from curator.common.board import Board
    from curator.rules import ParamError
    from curator.rules.jump import JumpRules

    class Narrow(JumpRules):
        family = "narrow"
        wide = False

    board = Board.from_art("square", "\n".join(["." * 13] * 5))
    with pytest.raises(ParamError, match="^family 'narrow' plays on at most 64 cells .* the board has 65$"):
        Narrow.from_params(board, ("o",), {})
    assert JumpRules.from_params(board, ("o",), {}).mask_words == 2


@pytest.mark.slow  # the fixed boards above cover each family fast
@settings(max_examples=6, deadline=None)
@given(st.data())
def test_random_wide_boards_match_reference(data):
    cols = data.draw(st.integers(9, 20))
    rows = data.draw(st.integers(-(-65 // cols), 100 // cols))
    art = [["."] * cols for _ in range(rows)]
    for _ in range(data.draw(st.integers(0, 3))):  # a few holes, never the whole first row
        art[data.draw(st.integers(1, rows - 1))][data.draw(st.integers(0, cols - 1))] = "#"
    drawing = "\n".join("".join(row) for row in art)
    family = data.draw(st.sampled_from(["jump", "capture"]))
    if drawing.count(".") <= 64:
        return
    if family == "jump":
        diagonal = data.draw(st.booleans())
        case = Case("jump-random", drawing, "jump", rules={"diagonal": diagonal}, max_pieces=3)
    else:
        case = Case("capture-random", drawing, "capture", pieces={"Q": 1, "N": 1}, max_pieces=2)
    check_case(case)
