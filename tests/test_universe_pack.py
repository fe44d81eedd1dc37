"""Packs of universe tables: puzzles (one per connected set) whose distances follow a curve, from
as many piece sets as the curve allows, through the API and the command line, and their exports
(the toml files analyzed again by the sliding-block engine)."""

from __future__ import annotations

import csv
import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
from cli_helpers import error_line, invoke

import curator
from curator.arrange import CURVES, Pack, arrange_sets
from curator.common.errors import SelectionError
from curator.export.universe import write
from curator.export.writing import ExportError

DATA = Path(__file__).parent / "data"


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("universe-pack") / "u4"
    result = invoke("analyze", DATA / "rush-hour-4x4.toml", "-o", out, "--workers", "1")
    assert result.exit_code == 0, result.output
    return out


@pytest.fixture(scope="module")
def results(folder):
    return curator.open(folder)


def piece_set(level) -> tuple:
    return tuple(sorted(level.counts.items()))


def follows(pack: Pack, name: str) -> bool:
    """No puzzle is nearer the goal than the one before it where the curve rises."""
    distances = [level.distance for level in pack]
    rises = np.diff(CURVES[name].fractions(len(pack))) > 0
    return all(b >= a for a, b, up in zip(distances, distances[1:], rises) if up)


@pytest.mark.parametrize("name", sorted(CURVES))
def test_a_pack_follows_its_curve_with_puzzles_that_can_be_solved(results, name):
    pack = results.pack(12, name)
    assert len(pack) == 12 and len({level.rank for level in pack}) == 12
    assert pack.curve == name and pack.pool == 5000
    assert follows(pack, name)
    table = np.concatenate(list(results.store.load(results.dtype)))
    assert all(level.distance == int(table["distance"][level.rank]) >= 1 for level in pack)
    assert [slot.target for slot in pack.slots] == sorted(slot.target for slot in pack.slots)
    record = pack.record()
    assert record.achieved == tuple(float(level.distance) for level in pack)


def test_the_puzzles_come_from_as_many_piece_sets_as_the_curve_allows(results):
    spread = results.pack(10)
    plain = results.pack(10, variety=None)
    assert len({piece_set(level) for level in spread}) == 10
    assert len({piece_set(level) for level in plain}) < 10
    assert [level.distance for level in plain] == sorted(level.distance for level in plain)
    assert results.pack(10, variety=["piece-sets"]) == spread


def test_every_puzzle_of_a_pack_matches_the_filters(results):
    pack = results.pack(6, minimal=True, distance=(2, 7), walls=(0, 0))
    assert all(p.minimal and 2 <= p.distance <= 7 and p.walls == 0 for p in pack)
    assert [p.distance for p in pack] == [2, 3, 4, 5, 6, 7]
    counted = results.pack(5, counts={"v": (1, 2), "x": (1, 1)}, pieces=(2, 4), unique=True, cluster=(3, 99))
    assert all(1 <= p.counts.get("v", 0) <= 2 and p.walls == 1 and 2 <= p.pieces <= 4 and p.unique
               and 3 <= p.cluster <= 99 for p in counted)
    hardest = results.pack(8, hardest=True, pool=400, seed=5)
    farthest = {piece_set(p): p.distance for p in results.select(hardest=True)}
    assert all(p.distance == farthest[piece_set(p)] for p in hardest)
    assert all(p.distance is not None for p in results.pack(20, solvable=True, pool=20))


def test_the_seed_draws_the_pool(results):
    first = results.pack(10, pool=300, seed=1)
    assert first == results.pack(10, pool=300, seed=1) and first.pool == 300
    assert [p.rank for p in first] != [p.rank for p in results.pack(10, pool=300, seed=2)]


@pytest.mark.parametrize(("keywords", "message"), [
    ({"size": 0}, "size must be at least 1, got 0"),
    ({"size": 10, "pool": 5}, "size 10 is larger than pool 5"),
    ({"size": 50, "minimal": True}, "size 50 is larger than the 32 sets that match the filters"),
    ({"size": 3, "distance": (8, 9)}, "no set matches the filters"),
    ({"size": 3, "solvable": False}, "a pack takes only sets that can be solved"),
    ({"size": 3, "variety": ["sets"]}, "variety: unknown rule 'sets' (rules: piece-sets)"),
    ({"size": 3, "curve": "wobbly"}, "'wobbly' is neither a curve"),
    ({"size": 3, "seed": -1}, "seed must be at least 0"),
])
def test_bad_packs_get_one_line(results, keywords, message):
    with pytest.raises(SelectionError) as caught:
        results.pack(**keywords)
    assert message in str(caught.value) and "\n" not in str(caught.value)


def test_arrange_sets_spreads_over_the_sets_it_is_given():
    @dataclass(frozen=True)
    class Made:
        distance: int
        kind: str
        rank: int
        solution: tuple = ("a move",)

    pool = [Made(d, "a", d) for d in range(1, 11)] + [Made(3, "b", 100), Made(7, "c", 200)]
    def kind(level: Made) -> str:
        return level.kind

    pack = arrange_sets(pool, 3, CURVES["linear"], rule="kinds", group=kind)
    assert [(lv.distance, lv.kind) for lv in pack] == [(1, "a"), (7, "c"), (10, "a")]
    assert arrange_sets(pool, 3, CURVES["linear"], variety=["kinds"], rule="kinds", group=kind) == pack
    plain = arrange_sets(pool, 3, CURVES["linear"], variety=None, rule="kinds", group=kind)
    assert [lv.distance for lv in plain] == [1, 5, 10]
    with pytest.raises(SelectionError, match=r"unknown rule 'sets' \(rules: kinds\)"):
        arrange_sets(pool, 3, CURVES["linear"], variety=["sets"], rule="kinds", group=kind)


def test_a_pack_exports_with_its_curve(results, tmp_path):
    pack = results.pack(5, walls=(1, 2))
    (path,) = results.export(pack, tmp_path / "in" / "pack.json", "json")
    data = json.loads(path.read_text())
    assert data["format"] == "curator-universe-puzzles/1" and data["curve"]["name"] == "linear"
    assert [p["rank"] for p in data["puzzles"]] == [p.rank for p in pack]
    assert [s["difficulty"] for s in data["curve"]["slots"]] == [p.distance for p in pack]
    assert [s["target"] for s in data["curve"]["slots"]] == [slot.target for slot in pack.slots]
    (listed,) = results.export(results.select(limit=3), tmp_path / "plain.json", "json")
    assert "curve" not in json.loads(listed.read_text())
    with pytest.raises(ExportError, match="the curve has 5 slots for 4 puzzles"):
        write("json", results.puzzle, list(pack)[:4], tmp_path / "short.json", curve=pack.record())


def test_the_pack_command_writes_json(folder, tmp_path):
    out = tmp_path / "pack.json"
    result = invoke("pack", folder, "--size", "6", "-f", "json", "-o", out, "--minimal",
                    "--distance", "2..40")
    assert result.exit_code == 0, result.output
    assert "6 puzzles along linear from a pool of 31" in result.output
    data = json.loads(out.read_text())
    puzzles = data["puzzles"]
    assert len(puzzles) == len(data["curve"]["slots"]) == 6
    assert all(p["minimal"] and p["distance"] >= 2 for p in puzzles)
    assert [p["distance"] for p in puzzles] == sorted(p["distance"] for p in puzzles)
    assert [s["difficulty"] for s in data["curve"]["slots"]] == [p["distance"] for p in puzzles]
    # A pack of puzzles is a curve another pack follows, as the help says of any pack curator writes.
    again = tmp_path / "again.json"
    result = invoke("pack", folder, "--size", "4", "--curve", out, "-f", "json", "-o", again)
    assert result.exit_code == 0, result.output
    assert json.loads(again.read_text())["curve"]["name"] == str(out)


def test_the_pack_command_writes_csv_with_the_targets(folder, tmp_path):
    out = tmp_path / "pack.csv"
    result = invoke("pack", folder, "--size", "8", "--curve", "ease-out", "--walls", "1..2", "--seed", "3",
                    "-f", "csv", "-o", out)
    assert result.exit_code == 0, result.output
    with out.open() as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == 8 and list(rows[0])[:3] == ["rank", "distance", "target"]
    assert all(row["walls"] in ("1", "2") for row in rows)
    distances = [int(row["distance"]) for row in rows]
    assert distances == sorted(distances)


def test_packed_toml_files_are_solved_alike_by_the_sliding_engine(folder, tmp_path):
    levels = tmp_path / "levels"
    result = invoke("pack", folder, "--size", "3", "--minimal", "--distance", "4..7", "-f", "toml",
                    "-o", levels)
    assert result.exit_code == 0, result.output
    files = sorted(levels.glob("*.toml"))
    assert [path.name for path in files] == ["puzzle-0001.toml", "puzzle-0002.toml", "puzzle-0003.toml"]
    pack = curator.open(folder).pack(3, minimal=True, distance=(4, 7))
    for path, puzzle in zip(files, pack):
        assert f"set {puzzle.rank}:" in path.read_text()
        out = tmp_path / path.stem
        assert invoke("analyze", path, "-o", out, "--workers", "1").exit_code == 0
        board = puzzle.board.replace("x", "#").replace("/", "\n")
        solved = json.loads(invoke("solve", path, "--board", board, "--results", out, "--json").output)
        assert solved["distance"] == puzzle.distance, path


@pytest.mark.parametrize(("args", "message"), [
    (("--size", "0"), "--size must be at least 1"),
    (("--size", "999", "--minimal"), "--size 999 is larger than the 32 sets"),
    (("--size", "3", "--all-moves"), "--all-moves does not apply to universe tables"),
    (("--size", "3", "--no-solvable"), "no --solvable: a pack takes only sets that can be solved"),
    (("--size", "3", "--variety", "openings"), "--variety: unknown rule 'openings'"),
    (("--size", "3", "--format", "svg"), "--format must be one of json, csv, toml, histogram"),
])
def test_bad_pack_commands_exit_2_with_one_line(folder, tmp_path, args, message):
    result = invoke("pack", folder, "-f", "json", "-o", tmp_path / "p.json", *args)
    assert result.exit_code == 2
    assert message in error_line(result.stderr)
    assert not (tmp_path / "p.json").exists()


def test_the_pack_help_names_universes():
    result = invoke("pack", "--help")
    assert result.exit_code == 0
    text = " ".join(result.output.replace("│", " ").split())
    assert "universes: piece-sets" in text and "On universe tables" in text
    assert "--minimal" in text and "--walls" in text
