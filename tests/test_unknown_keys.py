"""A misspelt key in any table of any kind of puzzle file is named, with the key it most
likely meant, in one line naming the file; `curator analyze` exits with code 2.

The kind of a file (layered, sliding-block, permutation, Sokoban) is decided by `[rules] family`: a
misspelt `family` key must be reported as such, not read by another kind's reader.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_helpers import error_line, invoke

import curator
from curator.common.errors import PuzzleError

PUZZLES = Path(__file__).resolve().parent.parent / "puzzles"

CASES = [
    # (file, text replaced, its replacement, key named, key suggested)
    ("solitaire-chess", "max_pieces = 6", "max_peices = 6", "max_peices", "max_pieces"),
    ("solitaire-chess", 'grid = "square"', 'gird = "square"', "board.gird", "grid"),
    ("solitaire-chess", 'family = "capture"', 'familly = "capture"', "rules.familly", "family"),
    ("solitaire-chess", "king_safe = false", "king_saef = false", "rules.king_saef", "king_safe"),
    ("solitaire-chess", "[goal]\npieces = 1", "[goal]\npeices = 1", "goal.peices", "pieces"),
    ("triangle", 'family = "jump"', 'famliy = "jump"', "rules.famliy", "family"),
    ("fling", "final_step_once", "final_step_onse", "goal.final_step_onse", "final_step_once"),
    ("rush-hour", "title =", "titel =", "titel", "title"),
    ("rush-hour", '[board]\nart = """', '[board]\nartt = """', "board.artt", "art"),
    ("rush-hour", 'family = "slide"', 'familly = "slide"', "rules.familly", "family"),
    ("rush-hour", 'metric = "line"', 'metrik = "line"', "rules.metrik", "metric"),
    ("rush-hour", "[0, 1]]\nalong", "[0, 1]]\nalnog", "pieces.R.alnog", "along"),
    ("rush-hour", '[pieces.h]\ncells', '[pieces.h]\ncels', "pieces.h.cels", "cells"),
    ("rush-hour", 'piece = "R"', 'peice = "R"', "goal.peice", "piece"),
    ("klotski", 'family = "slide"', 'fammily = "slide"', "rules.fammily", "family"),
    ("eight-puzzle", "title =", "titel =", "titel", "title"),
    ("eight-puzzle", 'family = "permutation"', 'familly = "permutation"', "rules.familly", "family"),
    ("eight-puzzle", "layout = [3, 3]", "layuot = [3, 3]", "pieces.tiles.layuot", "layout"),
    ("eight-puzzle", "[moves.up]\nmover.tiles", "[moves.up]\nmovre.tiles", "moves.up.movre", "mover"),
    ("eight-puzzle", "[moves.up]\nmover.tiles = 8\ncycles.tiles", "[moves.up]\nmover.tiles = 8\ncycles.tile",
     "moves.up.cycles.tile", "tiles"),
    ("pocket-cube", 'metric = "half"', 'metirc = "half"', "rules.metirc", "metric"),
    ("pocket-cube", "orientations = 3", "orientatoins = 3", "pieces.corners.orientatoins", "orientations"),
    ("pocket-cube", "[moves.U]\ncycles", "[moves.U]\ncylces", "moves.U.cylces", "cycles"),
    ("sokoban", "title =", "titel =", "titel", "title"),
    ("sokoban", '[board]\nxsb = """', '[board]\nxbs = """', "board.xbs", "xsb"),
    ("sokoban", 'family = "push"', 'familly = "push"', "rules.familly", "family"),
    ("sokoban", 'metric = "pushes"', 'metrik = "pushes"', "rules.metrik", "metric"),
]
IDS = [f"{file}-{key}" for file, _, _, key, _ in CASES]


def misspelt(tmp_path: Path, file: str, old: str, new: str) -> Path:
    text = (PUZZLES / f"{file}.toml").read_text()
    assert text.count(old) >= 1, old
    path = tmp_path / f"{file}.toml"
    path.write_text(text.replace(old, new, 1))
    return path


@pytest.mark.parametrize(("file", "old", "new", "key", "meant"), CASES, ids=IDS)
def test_a_misspelt_key_is_named_with_the_key_it_meant(tmp_path, file, old, new, key, meant):
    path = misspelt(tmp_path, file, old, new)
    with pytest.raises(PuzzleError) as caught:
        curator.load(path)
    assert caught.value.key == key
    message = str(caught.value)
    assert message.startswith(f"{path}: {key}: unknown "), message
    assert f"(did you mean `{meant}`?" in message and "\n" not in message


@pytest.mark.parametrize(("file", "old", "new", "key", "meant"),
                         [CASES[2], CASES[9], CASES[16]], ids=["layered", "sliding", "permutation"])
def test_analyze_names_the_misspelt_key_and_exits_with_2(tmp_path, file, old, new, key, meant):
    path = misspelt(tmp_path, file, old, new)
    result = invoke("analyze", path, "-o", tmp_path / "out")
    assert result.exit_code == 2
    assert error_line(result.stderr) == f"error: {path}: {key}: unknown key (did you mean `{meant}`?)"
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(("file", "family"), [("klotski", "slide"), ("triangle", "jump"),
                                              ("pocket-cube", "permutation"), ("sokoban", "push")])
def test_a_misspelt_family_is_named_with_the_family_it_meant(tmp_path, file, family):
    wrong = family[:-1]
    path = misspelt(tmp_path, file, f'family = "{family}"', f'family = "{wrong}"')
    with pytest.raises(PuzzleError) as caught:
        curator.load(path)
    expected = f"{path}: rules.family: unknown family {wrong!r} (did you mean `{family}`?"
    assert str(caught.value).startswith(expected)


def test_a_key_like_no_known_one_lists_the_known_keys(tmp_path):
    path = misspelt(tmp_path, "rush-hour", 'metric = "line"', 'metric = "line"\ncolour = "red"')
    with pytest.raises(PuzzleError) as caught:
        curator.load(path)
    expected = "unknown key (expected one of edge, family, metric, move)"
    assert str(caught.value) == f"{path}: rules.colour: {expected}"


def test_rules_without_a_family_say_it_is_missing(tmp_path):
    path = misspelt(tmp_path, "rush-hour", 'family = "slide"\n', "")
    with pytest.raises(PuzzleError) as caught:
        curator.load(path)
    assert caught.value.key == "rules.family" and str(caught.value).endswith("is missing")
