"""Rule families that installed packages add through the entry-point group `curator.families`.

The packages are made up in a temporary folder on sys.path (a dist-info and its modules, see
fake_plugins.py): nothing of curator is edited for a family to be found, analyzed, selected
from and solved.
"""

from __future__ import annotations

import importlib.metadata
import json
import sys
from itertools import combinations
from pathlib import Path

import pytest
from cli_helpers import error_line, invoke
from fake_plugins import MUNCH_PUZZLE, install, munch_package

import curator
from curator import catalogue
from curator.common.errors import PuzzleError
from curator.common.files import manifest_text
from curator.layered.puzzle import parse_puzzle
from curator.rules import Rules, registry
from curator.rules.jump import JumpRules

MODULE = '''\
from curator.rules.base import Rules


class Thing:
    pass


class NoMoves(Rules):
    family = "nomoves"


class Zigzag(Rules):
    family = "zigzag"
    sweep_kernel = "zigzag"

    def tables(self):
        return ()

    @property
    def children(self):
        return None


class Mixed(Zigzag):
    family = "mixed"
    sweep_kernel = "boards"


class Guessed(Zigzag):
    family = "guessed"
    sweep_kernel = "masks"
    player = {"search_share": 0.5}
'''


@pytest.fixture
def site(tmp_path, monkeypatch):
    """A folder on sys.path to install made-up packages into. Only they are seen (not the
    families installed on this machine), and what they add is forgotten afterwards."""
    folder = tmp_path / "site"
    folder.mkdir()
    monkeypatch.syspath_prepend(str(folder))
    every = importlib.metadata.entry_points

    def made_up(**selection):
        found = every(**selection)
        if selection.get("group") != registry.GROUP:
            return found
        return importlib.metadata.EntryPoints(
            entry for entry in found
            if entry.dist is not None and Path(entry.dist.locate_file("")).is_relative_to(folder))

    monkeypatch.setattr(importlib.metadata, "entry_points", made_up)
    registry.refresh()
    yield folder
    for name, module in list(sys.modules.items()):
        if Path(getattr(module, "__file__", None) or "/").is_relative_to(folder):
            del sys.modules[name]
    registry.refresh()


def munch_puzzle(family: str = "munch") -> str:
    return MUNCH_PUZZLE.replace('family = "munch"', f'family = "{family}"')


def test_an_installed_family_is_named_listed_and_described(site):
    install(site, "curator-munch", "1.2.3", munch_package("munch_a"), {"munch": "munch_a:MunchRules"})
    assert registry.family_names() == ["jump", "fling", "capture", "munch"]
    assert list(registry.FAMILIES) == ["jump", "fling", "capture", "munch"]
    puzzle = parse_puzzle(munch_puzzle(), "munch.toml")
    assert type(puzzle.rules).__module__ == "munch_a" and puzzle.board.size == 7
    (munch,) = [f for f in registry.list_families(warn=pytest.fail) if f.name == "munch"]
    assert munch.to_json() == {"name": "munch", "typed": False, "sweep_kernel": "masks", "max_cells": 64,
                               "options": {"greedy": "bool"}, "source": "package curator-munch 1.2.3",
                               "summary": "Munch: a piece steps onto an orthogonally neighbouring piece "
                                          "and eats it."}
    with pytest.raises(PuzzleError) as caught:
        parse_puzzle(munch_puzzle("munched"), "munch.toml")
    assert str(caught.value) == ("munch.toml: rules.family: unknown family 'munched' "
                                 "(did you mean `munch`? expected one of capture, fling, jump, munch)")
    with pytest.raises(PuzzleError, match=r"rules\.greedy: must be true or false"):
        parse_puzzle(munch_puzzle().replace('family = "munch"', 'family = "munch"\ngreedy = 1'), "munch.toml")


def test_a_family_listed_on_the_command_line(site):
    install(site, "curator-munch", "1.2.3", munch_package("munch_b"), {"munch": "munch_b:MunchRules"})
    result = invoke("families", "--json")
    assert result.exit_code == 0, result.output
    listed = {item["name"]: item for item in json.loads(result.stdout)}
    assert list(listed) == ["jump", "fling", "capture", "munch"]
    assert listed["munch"]["source"] == "package curator-munch 1.2.3"
    assert listed["capture"] == {"name": "capture", "typed": True, "sweep_kernel": "captures",
                                 "max_cells": 256,
                                 "options": {"king_safe": "bool"}, "source": "built-in",
                                 "summary": "Solitaire Chess: chess pieces of one colour, and every move "
                                            "must capture."}
    table = invoke("families")
    assert table.exit_code == 0 and "munch" in table.stdout and "curator-munch 1.2.3" in table.stdout


BROKEN = {
    "missing": ("curator_no_such_module:Rules",
                "family 'missing' (package curator-broken 0.1) cannot be loaded: importing "
                "curator_no_such_module:Rules raised ModuleNotFoundError: No module named "
                "'curator_no_such_module'"),
    "raising": ("raising_family:Rules",
                "family 'raising' (package curator-broken 0.1) cannot be loaded: importing "
                "raising_family:Rules raised RuntimeError: first line\\nsecond line"),
    "thing": ("broken_families:Thing",
              "family 'thing' (package curator-broken 0.1) is not usable: its entry point loads Thing, "
              "not a subclass of curator.rules.Rules"),
    "text": ("broken_families:MODULE_NAME",
                 "family 'text' (package curator-broken 0.1) is not usable: its entry point loads "
                 "str, not a subclass of curator.rules.Rules"),
    "renamed": ("broken_families:Zigzag",
                "family 'renamed' (package curator-broken 0.1) is not usable: Zigzag.family is 'zigzag'; "
                "it must be the entry point's name"),
    "nomoves": ("broken_families:NoMoves",
                "family 'nomoves' (package curator-broken 0.1) is not usable: NoMoves does not implement "
                "children, tables"),
    "zigzag": ("broken_families:Zigzag",
               "family 'zigzag' (package curator-broken 0.1) is not usable: Zigzag.sweep_kernel is 'zigzag' "
               "(known: masks, patterns, lines, boards, captures)"),
    "mixed": ("broken_families:Mixed",
              "family 'mixed' (package curator-broken 0.1) is not usable: sweep kernel 'boards' takes "
              "puzzles of typed pieces, and Mixed.typed is False"),
    "guessed": ("broken_families:Guessed",
                "family 'guessed' (package curator-broken 0.1) is not usable: Guessed.player must be None "
                "or a curator.common.difficulty.Player"),
}


def test_a_plugin_that_cannot_be_used_is_one_line_when_named_and_a_warning_when_listed(site):
    modules = {"broken_families.py": MODULE + 'MODULE_NAME = "broken"\n',
               "raising_family.py": 'raise RuntimeError("first line\\nsecond line")\n'}
    entry_points = {name: target for name, (target, _) in BROKEN.items()}
    install(site, "curator-broken", "0.1", modules, {**entry_points, "jump": "broken_families:Thing",
                                                     "slide": "broken_families:Thing"})
    for name, (_, message) in BROKEN.items():
        with pytest.raises(PuzzleError) as caught:
            parse_puzzle(munch_puzzle(name), "broken.toml")
        assert str(caught.value) == f"broken.toml: rules.family: {message}"
    # A built-in family is never taken over; a puzzle naming it gets the built-in rules.
    assert type(parse_puzzle(munch_puzzle("jump"), "peg.toml").rules) is JumpRules
    warnings: list[str] = []
    listed = registry.list_families(warn=warnings.append, reserved=catalogue.claimed_families())
    assert [f.name for f in listed] == ["jump", "fling", "capture"]
    assert sorted(warnings) == sorted(
        [f"{message} (left out)" for _, message in BROKEN.values()]
        + ["family 'jump' (package curator-broken 0.1) is left out: the name belongs to a built-in family "
           "(curator.rules.jump)",
           "family 'slide' (package curator-broken 0.1) is left out: the name belongs to the kind of "
           "sliding-block puzzles"])
    assert set(registry.families()) == {"jump", "fling", "capture"}
    # On the command line: the listing still prints, each problem is one warning line.
    result = invoke("families", "--json")
    assert result.exit_code == 0 and "Traceback" not in result.stderr
    assert [item["name"] for item in json.loads(result.stdout)] == ["jump", "fling", "capture"]
    warned = [line for line in result.stderr.splitlines() if line.startswith("warning: ")]
    assert len(warned) == len(BROKEN) + 2
    (site / "broken.toml").write_text(munch_puzzle("raising"))
    failed = invoke("analyze", site / "broken.toml", "-o", site / "out")
    assert failed.exit_code == 2
    assert error_line(failed.stderr).endswith("raised RuntimeError: first line\\nsecond line")


BROKEN_MOVES = '''\
import numba
import numpy as np

from munch_b import MunchRules, munch_children


@numba.njit(cache=True)
def overcounting(mask, tables, out_masks, out_moves):
    count = munch_children(mask, tables, out_masks, out_moves)
    return count + 600 if count else 0


@numba.njit(cache=True)
def sliding(mask, tables, out_masks, out_moves):
    count = munch_children(mask, tables, out_masks, out_moves)
    for j in range(count):
        out_masks[j] = mask
    return count


@numba.njit(cache=True)
def halving(mask, tables, out_masks, out_moves):
    return munch_children(mask, tables, out_masks, out_moves) / 2


def uncompiled(mask, tables, out_masks, out_moves):
    return 0


@numba.njit(cache=True)
def flooding(mask, tables, out_masks, out_moves):
    for j in range(600):
        out_masks[j] = mask
        out_moves[j] = 0
    return 0


def made(name, children, tables=None):
    base = (MunchRules,)
    body = {"family": name, "children": property(lambda self: children)}
    if tables is not None:
        body["tables"] = lambda self: tables(MunchRules.tables(self))
    return type(name.title(), base, body)


Overcount = made("overcount", overcounting)
Slide2 = made("slide2", sliding)
Half = made("half", halving)
Plain = made("plain", uncompiled)
Flood = made("flood", flooding)
Bare = made("bare", munch_children, lambda tables: tables[0])
'''
"""Families whose `children` breaks the contract in one way each, on munch's tables."""

START = "from the position 1011111 (one digit a cell), "
BROKEN_MOVES_SAID = {
    "overcount": START + "children returned 608; it must return how many moves it wrote, 0 to 512",
    "slide2": START + "move 0 leaves 6 pieces of 6; every move removes exactly one piece",
    "half": START + "children returned 4.0; it must return how many moves it wrote, 0 to 512",
    "plain": "children must be a @numba.njit function, not a function",
    "flood": START + "children wrote more than the 512 moves it may",
    "bare": "tables() must return a tuple of numpy arrays, not ndarray",
}


def test_a_family_whose_moves_break_the_contract_is_one_line_before_any_sweep(site):
    # without the check, these crash the sweep (a count past the buffers), store wrong
    # tables (a move that removes no piece) or end in a compiler traceback
    modules = {**munch_package("munch_b"), "broken_moves.py": BROKEN_MOVES}
    install(site, "curator-broken-moves", "0.1", modules,
            {name: f"broken_moves:{name.title()}" for name in BROKEN_MOVES_SAID})
    for name, said in BROKEN_MOVES_SAID.items():
        with pytest.raises(PuzzleError) as caught:
            parse_puzzle(munch_puzzle(name), "broken.toml")
        assert str(caught.value) == f"broken.toml: rules.family: family {name!r}: {said}"
    one_cell = munch_puzzle("munch").replace('art = """\n....\n.. .\n"""', 'art = "."').replace(
        "max_pieces = 4", "max_pieces = 1")
    install(site, "curator-munch", "1.0", munch_package("munch_one"), {"munch": "munch_one:MunchRules"})
    registry.refresh()
    assert parse_puzzle(one_cell, "one.toml").board.size == 1  # its positions drawn too


def test_a_typed_family_that_names_no_sweep_kernel_runs_on_the_typed_one():
    typed = type("Typed", (Rules,), {"family": "typed", "typed": True})
    untyped = type("Untyped", (Rules,), {"family": "untyped"})
    fast = type("Fast", (typed,), {"sweep_kernel": "captures"})
    assert (typed.sweep_kernel, untyped.sweep_kernel, fast.sweep_kernel) == ("boards", "masks", "captures")


def test_two_packages_adding_one_family_are_named_together(site):
    install(site, "curator-munch", "1.0", munch_package("munch_c"), {"munch": "munch_c:MunchRules"})
    install(site, "other-munch", "2.0", munch_package("munch_d"), {"munch": "munch_d:MunchRules"})
    with pytest.raises(PuzzleError) as caught:
        parse_puzzle(munch_puzzle(), "munch.toml")
    message = str(caught.value)
    assert message.startswith("munch.toml: rules.family: family 'munch' is added by more than one installed "
                              "package (")
    assert message.endswith("); uninstall all but one")
    assert "curator-munch 1.0" in message and "other-munch 2.0" in message
    warnings: list[str] = []
    assert "munch" not in [f.name for f in registry.list_families(warn=warnings.append)]
    assert len(warnings) == 1 and "more than one installed package" in warnings[0]


# -- analyzing, selecting and solving with an installed family -----------------------------


def munch_children(cells: list[tuple[int, int]], occupied: frozenset) -> set[frozenset]:
    """The munch rules, plainly: a piece steps onto an orthogonal neighbour and eats it."""
    found = set()
    for r, c in occupied:
        for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):
            if (r + dr, c + dc) in occupied and (r + dr, c + dc) in cells:
                found.add(occupied - {(r, c)})
    return found


def brute_force(cells: list[tuple[int, int]], occupied: frozenset, memo: dict) -> tuple[int, bool]:
    """(solutions to one piece left, every move keeps it solvable)."""
    if occupied not in memo:
        if len(occupied) == 1:
            memo[occupied] = (1, False)
        else:
            kids = [brute_force(cells, kid, memo)[0] for kid in munch_children(cells, occupied)]
            memo[occupied] = (sum(kids), bool(kids) and all(kids))
    return memo[occupied]


def test_an_installed_family_is_analyzed_selected_from_and_solved(site, tmp_path):
    install(site, "curator-munch", "1.2.3", munch_package("munch_e"), {"munch": "munch_e:MunchRules"})
    (tmp_path / "munch.toml").write_text(MUNCH_PUZZLE)
    results = curator.analyze(tmp_path / "munch.toml", output=tmp_path / "out", workers=1)
    cells = list(results.puzzle.board.cells)
    memo: dict = {}
    for layer in results.layers:
        k = layer["pieces"]
        expected = [brute_force(cells, frozenset(p), memo) for p in combinations(cells, k)]
        assert layer["positions"] == len(expected)
        assert layer["solvable"] == sum(1 for n, _ in expected if n)
        assert layer["unique"] == sum(1 for n, _ in expected if n == 1)
        assert layer["all_moves"] == sum(1 for _, every in expected if every)
    levels = results.select(pieces=(3, 4), solvable=True, sort="difficulty:desc")
    assert len(levels) == 15
    for level in levels:
        occupied = frozenset(cells[i] for i, v in enumerate(level.position) if v)
        assert (level.solutions, level.all_moves) == brute_force(cells, occupied, memo)
    (every,) = results.select(pieces=4, all_moves=True)
    assert every.safe_moves == every.legal_moves > 0
    level = results.solve("oo../.. .")
    assert (level.solvable, level.solutions, level.legal_moves) == (True, 2, 2)
    assert len(level.solution) == 1
    reopened = curator.open(tmp_path / "out")
    assert reopened.count(solvable=True) == sum(layer["solvable"] for layer in results.layers)


def test_layers_computed_with_other_code_of_a_family_are_not_trusted(site, tmp_path):
    install(site, "curator-munch", "1.2.3", munch_package("munch_k"), {"munch": "munch_k:MunchRules"})
    (tmp_path / "munch.toml").write_text(MUNCH_PUZZLE)
    out = tmp_path / "out"
    assert invoke("analyze", tmp_path / "munch.toml", "-o", out, "--max-pieces", "3").exit_code == 0
    assert invoke("select", out, "--solvable").exit_code == 0
    settings = site / "munch_k" / "settings.py"
    settings.write_text("FIRST = 1\n")  # another module of the package: the moves change
    said = (f"{out}: its layers were computed with other code of family 'munch' (the installed package "
            "was changed since)")
    selected = invoke("select", out, "--solvable")
    assert selected.exit_code == 1
    assert error_line(selected.stderr) == (f"error: {said}; run `curator analyze` with --force to compute "
                                           "them again")
    resumed = invoke("analyze", tmp_path / "munch.toml", "-o", out)
    assert resumed.exit_code == 1 and error_line(resumed.stderr).startswith(f"error: {said}")
    assert invoke("analyze", tmp_path / "munch.toml", "-o", out, "--force").exit_code == 0
    assert invoke("select", out, "--solvable").exit_code == 0
    # a folder written before the record: its layers are kept, and not stamped with this code
    manifest = json.loads((out / "manifest.json").read_text())
    del manifest["family_sha256"], manifest["manifest_sha256"]
    (out / "manifest.json").write_text(manifest_text(manifest))
    assert invoke("analyze", tmp_path / "munch.toml", "-o", out, "--max-pieces", "4").exit_code == 0
    assert "family_sha256" not in json.loads((out / "manifest.json").read_text())


def test_a_familys_code_covers_its_parent_classes_and_their_packages(site):
    split = "from munch_p import MunchRules\n\n\nclass SplitRules(MunchRules):\n    family = 'split'\n"
    install(site, "curator-split", "1.0", {**munch_package("munch_p"), "split_rules.py": split},
            {"split": "split_rules:SplitRules"})
    rules = parse_puzzle(munch_puzzle("split"), "split.toml").rules
    before = registry.family_code(rules)
    assert before == registry.family_code(rules)
    assert registry.family_code(JumpRules(rules.board, ("o",))) is None
    (site / "munch_p" / "settings.py").write_text("FIRST = 0  # the same moves, other code\n")
    assert registry.family_code(rules) != before


def test_an_installed_family_is_exported_packed_and_served(site, tmp_path):
    install(site, "curator-munch", "1.2.3", munch_package("munch_x"), {"munch": "munch_x:MunchRules"})
    (tmp_path / "munch.toml").write_text(MUNCH_PUZZLE)
    out = tmp_path / "out"
    assert invoke("analyze", tmp_path / "munch.toml", "--output", out, "--workers", "1").exit_code == 0
    results = curator.open(out)
    levels = results.select(pieces=(3, 4), solvable=True, sort="difficulty:desc")
    (written,) = results.export(levels[:3], tmp_path / "munch.json", "json")
    pack = json.loads(written.read_text())
    assert pack["format"] == "curator-level-pack/1" and pack["puzzle"]["family"] == "munch"
    assert [item["rank"] for item in pack["levels"]] == [level.rank for level in levels[:3]]
    exported = invoke("export", out, "--solvable", "--pieces", "3..4", "--format", "html",
                      "--out", tmp_path / "munch.html")
    assert exported.exit_code == 0 and (tmp_path / "munch.html").read_text().count("<svg") == len(levels)
    packed = invoke("pack", out, "--size", "3", "--solvable", "--format", "csv", "--out", tmp_path / "p.csv")
    assert packed.exit_code == 0 and len((tmp_path / "p.csv").read_text().splitlines()) == 4

    from fastapi.testclient import TestClient

    from curator.web.app import create_app

    # The first request compiles the family's kernels: no time bound, which a busy machine can pass.
    client = TestClient(create_app([out], time_limit=3600.0), base_url="http://127.0.0.1:8000")
    detail = client.get("/api/folders/0").json()
    assert detail["board"]["family"] == "munch" and detail["kind"] == "layers"
    chosen = client.get("/api/folders/0/levels", params={"pieces": "3..4", "solvable": True, "limit": 4})
    assert chosen.status_code == 200 and len(chosen.json()["levels"]) == 4
    report = client.post("/api/folders/0/position", json={"position": list(levels[0].position)})
    assert report.status_code == 200 and report.json()["solvable"] is True
