"""Exports: CSV rows, SVG and PNG pictures, the HTML gallery rendered in headless Chromium."""

import csv
import json
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET
from dataclasses import replace
from html.parser import HTMLParser

import numpy as np
import pytest
from engine_readers import box, read_ldtk, read_tiled
from PIL import Image
from test_levels import HUGE, PUZZLES, make_levels

from curator.arrange import PackCurve
from curator.export import (
    WRITERS,
    write_csv,
    write_html,
    write_json,
    write_ldtk,
    write_png,
    write_svg,
    write_tiled,
)
from curator.export.gallery import METRICS, metric_texts
from curator.export.pack import load_pack
from curator.export.table import COLUMNS
from curator.layered.level import moves_text, replay
from curator.picture import BACKGROUND, picture, piece_colour

SVG = "{http://www.w3.org/2000/svg}"
CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")


def _rgb(colour: str) -> tuple[int, int, int]:
    return tuple(int(colour[i : i + 2], 16) for i in (1, 3, 5))


def _near(a, b, tolerance=40):
    return all(abs(x - y) <= tolerance for x, y in zip(a, b))


# -- CSV --------------------------------------------------------------------------------------


def test_csv_has_one_row_per_level_with_exact_numbers(tmp_path):
    puzzle, levels = make_levels("solitaire-chess")
    levels = [replace(levels[0], report=replace(levels[0].report, solutions=HUGE)), *levels[1:]]
    (path,) = write_csv(puzzle, levels, tmp_path / "levels.csv")
    with path.open(encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle)
        rows = list(reader)
    assert tuple(reader.fieldnames) == COLUMNS
    assert len(rows) == len(levels)
    assert rows[0]["solutions"] == str(HUGE)
    cells = puzzle.board.cells
    for number, (row, level) in enumerate(zip(rows, levels), start=1):
        report = level.report
        assert row["number"] == str(number) and row["puzzle"] == "solitaire-chess"
        assert (row["layer"], int(row["rank"])) == (level.layer, level.rank)
        for name in ("pieces", "legal_moves", "safe_moves", "solutions"):
            assert int(row[name]) == getattr(report, name)
        for name in ("solvable", "unique", "all_moves"):
            assert row[name] == ("true" if getattr(report, name) else "false")
        assert row["difficulty"] == ("" if not report.solvable else repr(round(level.difficulty, 3)))
        assert int(row["solution_length"]) == len(report.solution)
        placed = [item.split("@") for item in row["position"].split()]
        assert len(placed) == level.pieces
        for letter, cell in placed:
            i = cells.index(tuple(int(v) for v in cell.split(",")))
            assert puzzle.piece_types[level.position[i] - 1] == letter
        text = [f"{cells[a][0]},{cells[a][1]}>{cells[b][0]},{cells[b][1]}" for a, b in report.solution]
        # Each move names the piece it moves: "R 1,0>2,0".
        before = replay(puzzle, level.position, report.solution)
        text = [f"{puzzle.piece_types[here[a] - 1]} {move}"
                for here, (a, _), move in zip(before, report.solution, text)]
        assert row["solution"] == " ".join(text)


# -- SVG --------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(PUZZLES))
def test_svg_draws_every_cell_hole_and_piece(name, tmp_path):
    puzzle, levels = make_levels(name)
    paths = write_svg(puzzle, levels, tmp_path / "svg")
    assert [p.name for p in paths] == [f"level-{n:04d}.svg" for n in range(1, len(levels) + 1)]
    for path, level in zip(paths, levels):
        root = ET.parse(path).getroot()
        assert root.tag == f"{SVG}svg"
        circles = list(root.iter(f"{SVG}circle"))
        pieces = [c for c in circles if c.get("class") == "piece"]
        holes = [c for c in circles if c.get("class") == "hole"]
        tiles = [t for t in root.iter(f"{SVG}path") if t.get("data-cell") is not None]
        assert len(tiles) == puzzle.board.size
        assert len(pieces) == level.pieces
        occupied = {int(p.get("data-cell")): p.get("data-type") for p in pieces}
        assert occupied == {i: puzzle.piece_types[t - 1] for i, t in enumerate(level.position) if t}
        if puzzle.rules.family == "capture":
            assert holes == []
            labels = sorted(t.text for t in root.iter(f"{SVG}text"))
            assert labels == sorted(occupied.values())
            fills = {p.get("data-type"): p.get("fill") for p in pieces}
            assert len(set(fills.values())) == len(fills), "piece types share a colour"
        else:
            assert len(holes) == puzzle.board.size - level.pieces


def test_svg_single_file_for_one_level(tmp_path):
    puzzle, levels = make_levels("triangle")
    (path,) = write_svg(puzzle, levels[:1], tmp_path / "one.svg")
    assert path == tmp_path / "one.svg"
    assert ET.parse(path).getroot().get("width") == str(picture(puzzle, levels[0].position).width)
    with pytest.raises(ValueError, match="one .svg file holds one level, got 4; give a folder"):
        write_svg(puzzle, levels, tmp_path / "many.svg")
    taken = tmp_path / "notes.txt"
    taken.write_text("mine")
    with pytest.raises(ValueError, match="notes.txt: is a file, not a folder; levels are written one"):
        write_svg(puzzle, levels, taken)
    assert taken.read_text() == "mine"
    with pytest.raises(ValueError, match="one.png: ends in .png, but these are .svg files"):
        write_svg(puzzle, levels[:1], tmp_path / "one.png")
    assert not (tmp_path / "one.png").exists()


def test_a_folder_exported_into_again_holds_the_new_export_alone(tmp_path):
    puzzle, levels = make_levels("triangle")
    folder = tmp_path / "pictures"
    folder.mkdir()
    (folder / "level-0002.png").write_bytes(b"another format's")
    (folder / "notes.txt").write_text("mine")
    assert len(write_svg(puzzle, levels, folder)) == 4
    assert len(write_svg(puzzle, levels[:2], folder)) == 2
    assert sorted(p.name for p in folder.iterdir()) == [
        "level-0001.svg", "level-0002.png", "level-0002.svg", "notes.txt"]


# -- PNG --------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(PUZZLES))
def test_png_has_pieces_where_the_level_has_them(name, tmp_path):
    puzzle, levels = make_levels(name)
    paths = write_png(puzzle, levels, tmp_path / "png")
    assert len(paths) == len(levels)
    for path, level in zip(paths, levels):
        pic = picture(puzzle, level.position)
        image = Image.open(path)
        assert image.format == "PNG" and image.size == (pic.width, pic.height)
        image = image.convert("RGB")
        assert len(pic.pieces) == level.pieces
        for disc in pic.pieces:
            t = level.position[disc.cell]
            # Below the centre, clear of any letter: the piece's own colour.
            pixel = image.getpixel((round(disc.x), round(disc.y + 0.6 * disc.radius)))
            assert _near(pixel, _rgb(piece_colour(puzzle.piece_types, t, puzzle.rules.family))), (disc, pixel)
            if disc.label:  # a white letter on the piece
                box = (round(disc.x - disc.radius / 3), round(disc.y - disc.radius / 3),
                       round(disc.x + disc.radius / 3), round(disc.y + disc.radius / 3))
                assert (np.asarray(image.crop(box)).min(axis=2) > 220).any()
        for hole in pic.holes:
            assert _near(image.getpixel((round(hole.x), round(hole.y))), _rgb(hole.fill))
        assert image.getpixel((1, 1)) == _rgb(BACKGROUND)


def test_png_boards_look_like_their_boards(tmp_path):
    # English board: the corners are no cells, so the background shows there.
    puzzle, levels = make_levels("peg")
    pic = picture(puzzle, levels[0].position)
    image = write_png(puzzle, levels[:1], tmp_path / "peg.png")[0]
    image = Image.open(image).convert("RGB")
    assert image.getpixel((round(pic.width * 0.12), round(pic.height * 0.12))) == _rgb(BACKGROUND)
    assert image.getpixel((round(pic.width / 2), round(pic.height / 2))) != _rgb(BACKGROUND)
    # Fling is 7 columns by 8 rows; the triangle's rows are offset by half a cell.
    fling, levels = make_levels("fling")
    pic = picture(fling, levels[0].position)
    assert (pic.width, pic.height) == (round((7 + 0.6) * 48), round((8 + 0.6) * 48))
    triangle, levels = make_levels("triangle")
    pic = picture(triangle, levels[0].position)
    xs = {cell: round(sum(x for x, _ in t.points) / len(t.points)) for cell, t in enumerate(pic.tiles)}
    index = triangle.board.index
    assert xs[index[(1, 0)]] == xs[index[(0, 0)]] - 24 and xs[index[(1, 1)]] == xs[index[(0, 0)]] + 24


# -- JSON through the writer table ------------------------------------------------------------


def test_every_format_is_registered(tmp_path):
    assert set(WRITERS) == {"json", "csv", "svg", "png", "html", "ldtk", "tiled", "play"}
    puzzle, levels = make_levels("fling")
    assert write_json(puzzle, levels, tmp_path / "p.json")[0].stat().st_size > 0


# -- level editors: LDtk and Tiled, read back by their Python readers ------------------------


def _pieces(puzzle, level):
    cells = puzzle.board.cells
    return sorted((*cells[i], puzzle.piece_types[t - 1], 1, 1) for i, t in enumerate(level.position) if t)


def _same_figures(found, level, number, puzzle):
    report = level.report
    assert found["title"].endswith(f"level {number} ({level.pieces} pieces)")
    assert found["grid"] == puzzle.board.grid
    assert found["difficulty"] == (level.difficulty if report.solvable else None)
    assert found["moves"] == len(report.solution) and found["pieces"] == level.pieces
    assert (found["unique"], found["solvable"], found["all_moves"]) == (report.unique, report.solvable,
                                                                        report.all_moves)
    assert found["solutions"] == str(report.solutions)
    assert (found["layer"], found["rank"]) == (level.layer, str(level.rank))


@pytest.mark.parametrize("name", ["peg-centre", "triangle", "solitaire-chess"])
def test_ldtk_project_reads_back_with_ldtkpy(name, tmp_path):
    puzzle, levels = make_levels(name)
    big = replace(levels[0], report=replace(levels[0].report, solutions=HUGE))
    levels = [big, *levels[1:]]
    (path,) = write_ldtk(puzzle, levels, tmp_path / "levels.ldtk")
    raw = json.loads(path.read_text(encoding="utf-8"))
    assert raw["jsonVersion"] == "1.5.3" and raw["worldLayout"] == "Free"
    assert [e["identifier"] for e in raw["defs"]["entities"]] == ["Piece"]
    found = read_ldtk(path)
    assert len(found) == len(levels)
    for number, (got, level) in enumerate(zip(found, levels), start=1):
        assert got["name"] == f"Level_{number}"
        assert got["cells"] == box(puzzle.board, puzzle.goal.cells)
        assert got["pieces"] == _pieces(puzzle, level)
        _same_figures(got["fields"], level, number, puzzle)
        _same_moves_as_the_csv(got["fields"]["solution"], puzzle, level)
    assert found[0]["fields"]["solutions"] == str(HUGE)
    assert write_ldtk(puzzle, levels, tmp_path / "again.ldtk")[0].read_bytes() == path.read_bytes()


@pytest.mark.parametrize("name", ["peg", "triangle", "solitaire-chess"])
def test_tiled_maps_read_back_with_pytiled_parser(name, tmp_path):
    puzzle, levels = make_levels(name)
    paths = write_tiled(puzzle, levels, tmp_path / "maps")
    names = [f"level-{n:04d}.tmj" for n in range(1, len(levels) + 1)]
    assert [p.name for p in paths] == [*names, "tiles.png"]
    assert Image.open(paths[-1]).size == (4 * 32, 32)
    found = read_tiled(paths[:-1])
    for number, (got, level) in enumerate(zip(found, levels), start=1):
        assert got["cells"] == box(puzzle.board, puzzle.goal.cells)
        assert got["pieces"] == _pieces(puzzle, level)
        assert {obj.class_ for obj in got["objects"]} == {"Piece"}
        for obj, (r, c, *_) in zip(got["objects"], [p[:2] for p in got["pieces"]]):
            assert (obj.properties["row"], obj.properties["col"]) == (r, c)
        fields = got["fields"]
        if not level.report.solvable:
            assert "difficulty" not in fields
            fields = {**fields, "difficulty": None}
        _same_figures(fields, level, number, puzzle)
        _same_moves_as_the_csv(fields["solution"].split("; ") if fields["solution"] else [], puzzle, level)


def _same_moves_as_the_csv(entries, puzzle, level):
    """One entry per move, as the CSV writes the moves (typed pieces named: "Q 2,3>1,3")."""
    assert len(entries) == len(level.report.solution)
    assert " ".join(entries) == moves_text(puzzle, level.report.solution, level.position)
    if len(puzzle.piece_types) > 1:
        assert all(entry[0] in puzzle.piece_types and entry[1] == " " for entry in entries)


def test_one_tiled_map_and_a_packs_targets(tmp_path):
    puzzle, levels = make_levels("fling")
    paths = write_tiled(puzzle, levels[:1], tmp_path / "one.tmj")
    assert [p.name for p in paths] == ["one.tmj", "one-tiles.png"]
    assert read_tiled(paths[:1])[0]["pieces"] == _pieces(puzzle, levels[0])
    with pytest.raises(ValueError, match="one .tmj file holds one level, got 4"):
        write_tiled(puzzle, levels, tmp_path / "all.tmj")
    curve = PackCurve("linear", 10, (1.0, 2.0, 3.0, 4.0), tuple(level.difficulty for level in levels))
    (project,) = write_ldtk(puzzle, levels, tmp_path / "pack.ldtk", curve)
    assert [level["fields"]["target"] for level in read_ldtk(project)] == [1.0, 2.0, 3.0, 4.0]
    maps = write_tiled(puzzle, levels, tmp_path / "maps", curve)
    assert [level["fields"]["target"] for level in read_tiled(maps[:-1])] == [1.0, 2.0, 3.0, 4.0]
    uneven = PackCurve("linear", 10, (1 / 3, 2.0, 3.0, 4.0), tuple(level.difficulty for level in levels))
    (project,) = write_ldtk(puzzle, levels, tmp_path / "pack.ldtk", uneven)
    fields = [level["fields"] for level in read_ldtk(project)]
    assert fields[0]["target"] == 0.333
    assert all(f["difficulty"] is None or f["difficulty"] == round(f["difficulty"], 3) for f in fields)


# -- HTML -------------------------------------------------------------------------------------


class _Gallery(HTMLParser):
    """Collects each level article's metric cells and solution moves from a DOM dump."""

    def __init__(self):
        super().__init__()
        self.levels = []
        self.metric = None
        self.in_move = False
        self.tags = set()

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        self.tags.add(tag)
        if tag == "article":
            self.levels.append({"metrics": {}, "moves": [], "svg": 0, "pieces": 0})
        elif tag == "td" and "data-metric" in attrs:
            self.metric = attrs["data-metric"]
        elif tag == "li":
            self.in_move = True
            self.levels[-1]["moves"].append("")
        elif tag == "svg":
            self.levels[-1]["svg"] += 1
        elif tag == "circle" and attrs.get("class") == "piece":
            self.levels[-1]["pieces"] += 1

    def handle_endtag(self, tag):
        if tag == "td":
            self.metric = None
        elif tag == "li":
            self.in_move = False

    def handle_data(self, data):
        if self.metric:
            self.levels[-1]["metrics"][self.metric] = self.levels[-1]["metrics"].get(self.metric, "") + data
        elif self.in_move:
            self.levels[-1]["moves"][-1] += data


def _chromium():
    for name in CHROMIUM_NAMES:
        path = shutil.which(name)
        if path:
            return path
    pytest.skip("no chromium binary on PATH (Debian: apt-get install -y chromium)")


def _run_chromium(binary, tmp_path, *args):
    command = [
        binary,
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        f"--user-data-dir={tmp_path / 'chromium-profile'}",
        *args,
    ]
    return subprocess.run(command, capture_output=True, text=True, timeout=180, check=True)


def test_html_gallery_is_self_contained(tmp_path):
    puzzle, levels = make_levels("peg-centre")
    text = write_html(puzzle, levels, tmp_path / "g.html")[0].read_text(encoding="utf-8")
    for pattern in (r"<script", r"<link", r"<img", r"\bsrc\s*=", r"\bhref\s*=", r"url\(", r"@import"):
        assert not re.search(pattern, text, re.IGNORECASE), pattern
    assert text.count("<svg") == len(levels) and "<style>" in text


def test_html_gallery_renders_in_headless_chromium(tmp_path):
    binary = _chromium()
    chess, chess_levels = make_levels("solitaire-chess")
    big = replace(chess_levels[0], report=replace(chess_levels[0].report, solutions=HUGE))
    cases = [(chess, [big, *chess_levels[1:]]), make_levels("fling"), make_levels("triangle")]
    for number, (puzzle, levels) in enumerate(cases):
        page = write_html(puzzle, levels, tmp_path / f"gallery-{number}.html")[0]
        url = page.resolve().as_uri()
        dom = _run_chromium(binary, tmp_path, "--dump-dom", url).stdout
        gallery = _Gallery()
        gallery.feed(dom)
        assert len(gallery.levels) == len(levels)
        for found, level in zip(gallery.levels, levels):
            assert found["metrics"] == metric_texts(level)
            assert set(found["metrics"]) == {key for key, _ in METRICS}
            assert len(found["moves"]) == len(level.solution)
            assert found["svg"] == 1 and found["pieces"] == level.pieces
        assert str(HUGE) in dom or number != 0

        shot = tmp_path / f"gallery-{number}.png"
        _run_chromium(binary, tmp_path, "--window-size=1000,800", f"--screenshot={shot}", url)
        image = Image.open(shot).convert("RGB")
        assert image.size == (1000, 800)
        colours = image.getcolors(maxcolors=1 << 20)
        assert len(colours) > 50, "the screenshot is (nearly) blank"
        first = picture(puzzle, levels[0].position).pieces[0]
        piece = _rgb(piece_colour(puzzle.piece_types, levels[0].position[first.cell], puzzle.rules.family))
        assert any(_near(c, piece, 12) for _, c in colours), "no piece drawn in the screenshot"


# -- the export command -----------------------------------------------------------------------


@pytest.fixture(scope="module")
def triangle_results(tmp_path_factory):
    from typer.testing import CliRunner

    from curator.cli import app

    directory = tmp_path_factory.mktemp("results") / "triangle"
    result = CliRunner().invoke(app, ["analyze", "puzzles/triangle.toml", "--output", str(directory)])
    assert result.exit_code == 0, result.output
    return directory


def _cli(*args):
    from typer.testing import CliRunner

    from curator.cli import app

    return CliRunner().invoke(app, [str(a) for a in args])


FILTERS = ("--solvable", "--pieces", "5..6", "--sample", "4", "--seed", "3", "--sort", "difficulty:desc")


def test_export_command_writes_the_levels_select_lists(triangle_results, tmp_path):
    listed = _cli("select", triangle_results, *FILTERS, "--json")
    assert listed.exit_code == 0, listed.output
    wanted = [(level["layer"], level["rank"]) for level in json.loads(listed.stdout)["levels"]]
    assert len(wanted) == 4

    pack = tmp_path / "p" / "pack.json"
    result = _cli("export", triangle_results, *FILTERS, "--format", "json", "--out", pack)
    assert result.exit_code == 0, result.output
    header, levels = load_pack(pack)
    assert [(level.layer, level.rank) for level in levels] == wanted
    for level in levels:
        assert header.goal.reached(replay(header, level.position, level.solution)[-1])

    for fmt, out in (("csv", "l.csv"), ("html", "g.html"), ("svg", "svg"), ("png", "png")):
        result = _cli("export", triangle_results, *FILTERS, "-f", fmt, "-o", tmp_path / out)
        assert result.exit_code == 0, (fmt, result.output)
    assert len(list(csv.DictReader((tmp_path / "l.csv").open(encoding="utf-8")))) == 4
    assert (tmp_path / "g.html").read_text(encoding="utf-8").count('<article class="level"') == 4
    assert sorted(p.name for p in (tmp_path / "png").iterdir()) == [f"level-000{n}.png" for n in range(1, 5)]
    assert len(list((tmp_path / "svg").glob("*.svg"))) == 4

    for fmt, out in (("ldtk", "levels.ldtk"), ("tiled", "maps"), ("play", "play.html")):
        result = _cli("export", triangle_results, *FILTERS, "-f", fmt, "-o", tmp_path / out)
        assert result.exit_code == 0, (fmt, result.output)
    ranks = [str(rank) for _, rank in wanted]
    assert [level["fields"]["rank"] for level in read_ldtk(tmp_path / "levels.ldtk")] == ranks
    maps = sorted((tmp_path / "maps").glob("*.tmj"))
    assert [level["fields"]["rank"] for level in read_tiled(maps)] == ranks
    page = (tmp_path / "play.html").read_text(encoding="utf-8")
    assert page.count('"nodes":') == 4 and 'id="hint"' in page


def test_export_command_refuses_bad_requests(triangle_results, tmp_path):
    bad_format = _cli("export", triangle_results, "--solvable", "-f", "pdf", "-o", tmp_path / "x.pdf")
    assert bad_format.exit_code == 2 and "--format must be one of" in bad_format.output
    assert "json, csv, svg, png, html, ldtk, tiled, play for layered results" in bad_format.output
    many = _cli("export", triangle_results, *FILTERS, "-f", "svg", "-o", tmp_path / "one.svg")
    assert many.exit_code == 2 and "holds one level" in many.output
    bad_filter = _cli("export", triangle_results, "--pieces", "x", "-f", "json", "-o", tmp_path / "p.json")
    assert bad_filter.exit_code == 2 and "--pieces" in bad_filter.output
    one = _cli("export", triangle_results, "--solvable", "--pieces", "4", "--limit", "1", "-f", "svg",
               "-o", tmp_path / "one.svg")
    assert one.exit_code == 0, one.output
    assert ET.parse(tmp_path / "one.svg").getroot().tag == f"{SVG}svg"
    (tmp_path / "afile").write_text("mine")
    for out, words in ((tmp_path / "x.json", "x.json: ends in .json, but this is a .csv file"),
                       (tmp_path, "is a folder; this export is one .csv file"),
                       (tmp_path / "afile" / "l.csv", f"{tmp_path}/afile is a file, not a folder")):
        refused = _cli("export", triangle_results, "--solvable", "--limit", "2", "-f", "csv", "-o", out)
        assert refused.exit_code == 2 and words in refused.output, refused.output


def test_an_export_never_goes_into_the_results_folder(triangle_results):
    from pathlib import Path

    manifest = Path(triangle_results) / "manifest.json"
    kept = manifest.read_bytes()
    for out in (manifest, Path(triangle_results) / "levels.json"):
        refused = _cli("export", triangle_results, "--solvable", "--limit", "2", "-f", "json", "-o", out)
        assert refused.exit_code == 2 and "inside the results folder" in refused.output, refused.output
    assert manifest.read_bytes() == kept
    assert not (Path(triangle_results) / "levels.json").exists()


def test_play_refuses_levels_that_reach_too_many_positions(triangle_results, tmp_path, monkeypatch):
    from curator.export import play

    monkeypatch.setattr(play, "PLAY_LIMIT", 5)
    result = _cli("export", triangle_results, *FILTERS, "-f", "play", "-o", tmp_path / "play.html")
    assert result.exit_code == 2
    assert result.stderr.strip() == ("error: level 1 reaches more than 5 positions: too many to play in one "
                                     "page; pick smaller levels")
    assert not (tmp_path / "play.html").exists()
