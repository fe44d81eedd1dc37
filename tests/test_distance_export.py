"""`select --distance` and `export` on distance tables: positions whose solutions replay to the
solved state, reproducible sampling, position packs against their schema, CSV rows, SVG and
PNG pictures, the HTML gallery rendered in headless Chromium, and one-line usage errors."""

from __future__ import annotations

import csv
import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import jsonschema
import numpy as np
import pytest
from PIL import Image
from test_distance import TWO_SETS
from test_export import SVG, _chromium, _Gallery, _near, _rgb, _run_chromium
from typer.testing import CliRunner

from curator.cli import app
from curator.common.errors import PuzzleError
from curator.distance.analysis import analyze_distances
from curator.distance.puzzle import load_permutation_puzzle, parse_permutation_puzzle
from curator.distance.store import DistanceStore
from curator.export.distance import COLUMNS, PACK_FORMAT, metric_texts, position_picture
from curator.picture import BACKGROUND, HOME_TILE, state_picture

ROOT = Path(__file__).resolve().parent.parent
EIGHT = ROOT / "puzzles" / "eight-puzzle.toml"
POCKET = ROOT / "puzzles" / "pocket-cube.toml"
SCHEMA = ROOT / "schemas" / "distance-pack.schema.json"


def cli(*args):
    return CliRunner().invoke(app, [str(a) for a in args])


def run_json(*args):
    result = cli(*args, "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


@pytest.fixture(scope="module")
def eight(tmp_path_factory) -> Path:
    directory = tmp_path_factory.mktemp("eight") / "eight-puzzle"
    analyze_distances(load_permutation_puzzle(EIGHT), directory)
    return directory


@pytest.fixture(scope="module")
def cube(tmp_path_factory) -> Path:
    directory = tmp_path_factory.mktemp("cube") / "pocket-cube"
    analyze_distances(load_permutation_puzzle(POCKET), directory)
    return directory


@pytest.fixture(scope="module")
def two_sets(tmp_path_factory) -> Path:
    """Two piece sets, one twisted with zero sum, one with a non-identity solved state."""
    directory = tmp_path_factory.mktemp("two") / "two-sets"
    text = TWO_SETS.replace("count = 3\norientations = 3", "count = 3\norientations = 3\nlayout = [3, 1]")
    analyze_distances(parse_permutation_puzzle(text), directory)
    return directory


@pytest.fixture(scope="module")
def layered(tmp_path_factory) -> Path:
    directory = tmp_path_factory.mktemp("layered") / "triangle"
    result = cli("analyze", ROOT / "puzzles" / "triangle.toml", "--output", directory, "--max-pieces", "4")
    assert result.exit_code == 0, result.output
    return directory


def schema_validator():
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def replay(puzzle, state, solution):
    """The states met playing `solution` from `state` with the puzzle's own moves."""
    states = [state]
    for name in solution:
        states.append(puzzle.apply(states[-1], name))
    return states


def check_positions(directory: Path, picked: dict, lo: int, hi: int) -> None:
    store = DistanceStore.open(directory)
    puzzle = store.puzzle()
    assert picked["puzzle"] == puzzle.name
    assert picked["matched"] == sum(store.counts[lo : hi + 1])
    keys = [(p["distance"], p["rank"]) for p in picked["positions"]]
    assert keys == sorted(keys)
    for item in picked["positions"]:
        assert lo <= item["distance"] <= hi
        state = puzzle.unrank(item["rank"])
        assert item["state"] == puzzle.describe(state)
        states = replay(puzzle, state, item["solution"])
        assert len(item["solution"]) == item["distance"]
        assert states[-1] == puzzle.solved_state
        assert puzzle.solved_state not in states[:-1]


# -- select --distance ------------------------------------------------------------------------


def test_select_distance_solutions_replay_to_solved(eight, cube, two_sets):
    check_positions(eight, run_json("select", eight, "--distance", "18..22", "--sample", "40", "--seed", "5"),
                    18, 22)
    past_14 = run_json("select", eight, "--distance", "29..31")
    assert len(past_14["positions"]) == 760 + 221 + 2
    check_positions(eight, {**past_14, "positions": past_14["positions"][-30:]}, 29, 31)
    picked = run_json("select", cube, "--distance", "9..11", "--sample", "25", "--seed", "2")
    check_positions(cube, picked, 9, 11)
    check_positions(two_sets, run_json("select", two_sets, "--distance", "0..20"), 0, 20)
    assert [p["rank"] for p in run_json("select", eight, "--distance", "0")["positions"]] == [0]
    assert run_json("select", eight, "--distance", "40..50") == {"puzzle": "eight-puzzle", "matched": 0,
                                                                  "positions": []}


def test_apply_refuses_unknown_and_illegal_moves():
    puzzle = load_permutation_puzzle(EIGHT)
    solved = puzzle.solved_state  # the blank in the bottom-right corner
    with pytest.raises(ValueError, match="not legal"):
        puzzle.apply(solved, "down")
    with pytest.raises(ValueError, match="unknown move"):
        puzzle.apply(solved, "U")
    moved = puzzle.apply(solved, "up")
    assert moved[0][0] == (0, 1, 2, 3, 4, 8, 6, 7, 5)
    cube = load_permutation_puzzle(POCKET)
    turned = cube.apply(cube.solved_state, "R")
    assert turned[0][1] != (0,) * 7 and sum(turned[0][1]) % 3 == 0
    assert cube.apply(turned, "R'") == cube.solved_state


def test_sampling_and_limit_are_reproducible(eight):
    args = ("select", eight, "--distance", "15..16", "--sample", "25", "--seed", "3")
    first = run_json(*args)
    assert first == run_json(*args)
    assert len(first["positions"]) == 25
    assert first != run_json("select", eight, "--distance", "15..16", "--sample", "25", "--seed", "4")
    every = run_json("select", eight, "--distance", "6..7")["positions"]
    assert run_json("select", eight, "--distance", "6..7", "--limit", "9")["positions"] == every[:9]
    sample = ("--distance", "6..30", "--sample", "50", "--seed", "1")
    sampled = run_json("select", eight, *sample)["positions"]
    assert run_json("select", eight, *sample, "--limit", "7")["positions"] == sampled[:7]
    alias = cli("distances", eight, "--distance", "15..16", "--sample", "25", "--seed", "3", "--json")
    assert alias.exit_code == 0 and json.loads(alias.stdout) == first
    table = cli("select", eight, "--distance", "31")
    assert table.exit_code == 0 and "2 positions of 2 at distance 31" in table.stdout


# -- the puzzle file's layout -----------------------------------------------------------------


@pytest.mark.parametrize("layout", ["[2, 4]", "[3]", "[0, 9]", "[3, true]", '"3x3"'])
def test_bad_layouts_name_the_key(layout):
    text = EIGHT.read_text().replace("layout = [3, 3]", f"layout = {layout}")
    with pytest.raises(PuzzleError, match=r"pieces\.tiles\.layout"):
        parse_permutation_puzzle(text)


# -- JSON pack and CSV ------------------------------------------------------------------------


def test_export_json_pack_is_valid_and_holds_the_selection(eight, cube, two_sets, tmp_path):
    validator = schema_validator()
    for directory, span in ((eight, "20..31"), (cube, "10..11"), (two_sets, "1..6")):
        options = ("--distance", span, "--sample", "12", "--seed", "7")
        picked = run_json("select", directory, *options)
        path = tmp_path / directory.name / "pack.json"
        result = cli("export", directory, *options, "--format", "json", "--out", path)
        assert result.exit_code == 0, result.output
        pack = json.loads(path.read_text(encoding="utf-8"))
        validator.validate(pack)
        puzzle = DistanceStore.open(directory).puzzle()
        assert pack["format"] == PACK_FORMAT
        assert pack["puzzle"]["moves"] == [m.name for m in puzzle.moves]
        assert pack["puzzle"]["sha256"] == puzzle.sha256 and pack["puzzle"]["positions"] == puzzle.size
        assert [s["name"] for s in pack["puzzle"]["sets"]] == [s.name for s in puzzle.sets]
        assert pack["positions"] == picked["positions"]
    assert pack["puzzle"]["sets"][1]["layout"] == [3, 1] and pack["puzzle"]["sets"][0]["layout"] is None

    broken = [
        {**pack, "format": "curator-distance-pack/2"},
        {**pack, "positions": [{**pack["positions"][0], "solution": ["R", 3]}]},
        {**pack, "positions": [{k: v for k, v in pack["positions"][0].items() if k != "distance"}]},
        {**pack, "puzzle": {**pack["puzzle"], "family": "jump"}},
    ]
    for data in broken:
        assert not validator.is_valid(data)


def test_export_csv_has_one_row_per_position(cube, tmp_path):
    options = ("--distance", "8..11", "--sample", "9", "--seed", "1")
    picked = run_json("select", cube, *options)["positions"]
    result = cli("export", cube, *options, "-f", "csv", "-o", tmp_path / "p.csv")
    assert result.exit_code == 0, result.output
    with (tmp_path / "p.csv").open(encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle)
        rows = list(reader)
    assert tuple(reader.fieldnames) == COLUMNS and len(rows) == 9
    for number, (row, item) in enumerate(zip(rows, picked), start=1):
        assert row["number"] == str(number) and row["puzzle"] == "pocket-cube"
        assert (int(row["rank"]), int(row["distance"])) == (item["rank"], item["distance"])
        assert row["solution"].split() == item["solution"]
        perm, _, ori = row["state"].removeprefix("corners ").partition(" / ")
        corners = item["state"]["corners"]
        assert [int(v) for v in perm.split()] == corners["permutation"]
        assert [int(v) for v in ori.split()] == corners["orientation"]


# -- pictures ---------------------------------------------------------------------------------


def test_svg_draws_every_piece_with_its_number_and_twist(eight, cube, two_sets, tmp_path):
    for directory in (eight, cube, two_sets):
        options = ("--distance", "1..9", "--sample", "4", "--seed", "2")
        picked = run_json("select", directory, *options)["positions"]
        out = tmp_path / directory.name
        result = cli("export", directory, *options, "-f", "svg", "-o", out)
        assert result.exit_code == 0, result.output
        paths = sorted(out.iterdir())
        assert [p.name for p in paths] == [f"position-{n:04d}.svg" for n in range(1, 5)]
        puzzle = DistanceStore.open(directory).puzzle()
        for path, item in zip(paths, picked):
            root = ET.parse(path).getroot()
            assert root.tag == f"{SVG}svg"
            pieces = [c for c in root.iter(f"{SVG}circle") if c.get("class") == "piece"]
            marks = [c for c in root.iter(f"{SVG}circle") if c.get("class") == "mark"]
            # Every piece but a set's mover (the 8-puzzle's blank, drawn as an empty tile).
            movers = puzzle.movers
            assert len(pieces) == sum(s.count for s in puzzle.sets) - sum(m is not None for m in movers)
            assert len(marks) == sum(s.count for s in puzzle.sets if s.orientations > 1)
            labels = [t.text for t in root.iter(f"{SVG}text")]
            for s, mover in zip(puzzle.sets, movers):
                drawn = {int(p.get("data-position")): int(p.get("data-piece")) for p in pieces
                         if p.get("data-type") == s.name}
                perm = item["state"][s.name]["permutation"]
                assert drawn == {position: piece for position, piece in enumerate(perm) if piece != mover}
                if s.orientations > 1:
                    twists = [int(m.get("data-orientation")) for m in marks if m.get("data-type") == s.name]
                    assert twists == item["state"][s.name]["orientation"]
            assert sorted(labels) == sorted(str(p.get("data-piece")) for p in pieces)


def test_layout_draws_the_eight_puzzle_as_a_3x3_board():
    puzzle = load_permutation_puzzle(EIGHT)
    pic = state_picture(puzzle, puzzle.unrank(12345))
    xs = sorted({p.x for p in pic.pieces})
    ys = sorted({p.y for p in pic.pieces})
    assert len(xs) == 3 and len(ys) == 3
    assert abs(pic.width - pic.height) <= 1
    cube = load_permutation_puzzle(POCKET)
    pic = state_picture(cube, cube.solved_state)
    assert len({p.y for p in pic.pieces}) == 2 and len({p.x for p in pic.pieces}) == 4
    assert {t.fill for t in pic.tiles} == {HOME_TILE}
    # Marks: twist 0 straight up, 1 lower right, 2 lower left (a third of a turn each).
    turned = cube.apply(cube.solved_state, "R")
    pic = state_picture(cube, turned)
    centres = {d.cell: (d.x, d.y) for d in pic.pieces}
    assert len(pic.marks) == 7 and set(turned[0][1]) == {0, 1, 2}
    for mark, twist in zip(pic.marks, turned[0][1]):
        dx, dy = mark.x - centres[mark.cell][0], mark.y - centres[mark.cell][1]
        side = 0 if abs(dx) < 1 else 1 if dx > 0 else -1
        assert (side, dy > 0) == {0: (0, False), 1: (1, True), 2: (-1, True)}[twist]
    assert {t.fill for t in pic.tiles} != {HOME_TILE}


def test_png_has_the_picture_size_and_draws_pieces(cube, tmp_path):
    options = ("--distance", "11", "--sample", "3", "--seed", "9")
    picked = run_json("select", cube, *options)["positions"]
    result = cli("export", cube, *options, "-f", "png", "-o", tmp_path / "png")
    assert result.exit_code == 0, result.output
    puzzle = DistanceStore.open(cube).puzzle()
    for number, (path, item) in enumerate(zip(sorted((tmp_path / "png").iterdir()), picked), start=1):
        pic = position_picture(puzzle, number, item)
        image = Image.open(path)
        assert image.format == "PNG" and image.size == (pic.width, pic.height)
        image = image.convert("RGB")
        assert image.getpixel((1, 1)) == _rgb(BACKGROUND)
        background = (np.asarray(image) == _rgb(BACKGROUND)).all(axis=2).mean()
        assert background < 0.7  # the net of the cube above the tiles leaves its corners empty
        for disc in pic.pieces:  # left of the centre, clear of the label and the mark
            pixel = image.getpixel((round(disc.x - 0.75 * disc.radius), round(disc.y)))
            assert _near(pixel, _rgb(disc.fill)), (disc, pixel)
        for mark in pic.marks:
            assert _near(image.getpixel((round(mark.x), round(mark.y))), _rgb(mark.fill), 60)
    one = cli("export", cube, "--distance", "0", "-f", "png", "-o", tmp_path / "solved.png")
    assert one.exit_code == 0, one.output
    solved = Image.open(tmp_path / "solved.png").convert("RGB")
    tile = state_picture(puzzle, puzzle.solved_state).tiles[0]
    corner = (round(tile.points[0][0]) + 3, round(tile.points[0][1]) + 3)
    assert _near(solved.getpixel(corner), _rgb(HOME_TILE), 12)


# -- HTML -------------------------------------------------------------------------------------


def test_html_gallery_is_self_contained_and_renders(cube, two_sets, tmp_path):
    binary = _chromium()
    for directory in (cube, two_sets):
        options = ("--distance", "0..11", "--sample", "6", "--seed", "4")
        picked = run_json("select", directory, *options)["positions"]
        page = tmp_path / f"{directory.name}.html"
        result = cli("export", directory, *options, "-f", "html", "-o", page)
        assert result.exit_code == 0, result.output
        text = page.read_text(encoding="utf-8")
        for pattern in (r"<script", r"<link", r"<img", r"\bsrc\s*=", r"\bhref\s*=", r"url\(", r"@import"):
            assert not re.search(pattern, text, re.IGNORECASE), pattern
        puzzle = DistanceStore.open(directory).puzzle()
        dom = _run_chromium(binary, tmp_path, "--dump-dom", page.resolve().as_uri()).stdout
        gallery = _Gallery()
        gallery.feed(dom)
        assert len(gallery.levels) == len(picked) == 6
        for found, item in zip(gallery.levels, picked):
            assert found["metrics"] == metric_texts(item)
            assert found["moves"] == item["solution"]
            assert found["svg"] == 1 and found["pieces"] == sum(s.count for s in puzzle.sets)

    shot = tmp_path / "gallery.png"
    _run_chromium(binary, tmp_path, "--window-size=1000,800", f"--screenshot={shot}", page.resolve().as_uri())
    image = Image.open(shot).convert("RGB")
    colours = image.getcolors(maxcolors=1 << 20)
    assert len(colours) > 50, "the screenshot is (nearly) blank"
    fill = _rgb(position_picture(puzzle, 1, picked[0]).pieces[0].fill)
    assert any(_near(c, fill, 12) for _, c in colours), "no piece drawn in the screenshot"


# -- usage errors -----------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", ["ldtk", "tiled", "play"])
def test_board_formats_are_refused_in_one_line(eight, fmt, tmp_path):
    # Positions of a permutation puzzle have no board to lay out in an editor or to play on.
    result = cli("export", eight, "--distance", "3", "-f", fmt, "-o", tmp_path / "out")
    assert result.exit_code == 2
    assert result.stderr == ("error: --format must be one of json, csv, svg, png, html for a distance "
                             f"table, got {fmt!r}\n")
    assert not any(tmp_path.iterdir())


@pytest.mark.parametrize(
    "args",
    [
        ["select", "{dist}", "--distance", "3", "--unique"],
        ["select", "{dist}", "--distance", "3", "--no-solvable"],
        ["select", "{dist}", "--distance", "3", "--pieces", "4"],
        ["select", "{dist}", "--distance", "3", "--canonical", "--sort", "rank"],
        ["select", "{dist}", "--distance", "3", "--count"],
        ["select", "{dist}"],
        ["select", "{dist}", "--distance", "9..2"],
        ["select", "{dist}", "--distance", "3", "--seed", "1"],
        ["select", "{dist}", "--distance", "3", "--sample", "0"],
        ["select", "{dist}", "--distance", "3", "--limit", "x"],
        ["distances", "{dist}", "--distance", "3", "--sample", "-1"],
        ["select", "{layered}", "--distance", "3"],
        ["export", "{dist}", "--distance", "3", "--must-include", "0,0", "-f", "json", "-o", "{tmp}/p.json"],
        ["export", "{dist}", "--distance", "1..3", "-f", "svg", "-o", "{tmp}/one.svg"],
        ["export", "{dist}", "--distance", "3", "-f", "pdf", "-o", "{tmp}/p.pdf"],
        ["export", "{layered}", "--distance", "3", "-f", "json", "-o", "{tmp}/p.json"],
    ],
    ids=[
        "unique", "no-solvable", "pieces", "canonical-sort", "count", "no-distance", "reversed-range",
        "seed-without-sample", "zero-sample", "bad-limit", "alias-negative-sample", "distance-on-layers",
        "export-must-include", "export-one-svg", "export-format", "export-distance-on-layers",
    ],
)
def test_bad_combinations_are_one_line_and_exit_2(args, eight, layered, tmp_path):
    args = [a.format(dist=eight, layered=layered, tmp=tmp_path) for a in args]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith("error: ") and result.stderr.count("\n") == 1, result.stderr
    assert not any(tmp_path.iterdir())
