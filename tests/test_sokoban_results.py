"""Sokoban end to end: the bundled rooms, stored tables, resuming, selection, solving, moves,
exports, packs, the command line and its errors, and the workspace's endpoints."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from fastapi.testclient import TestClient

import curator
from curator.common import goal_tables
from curator.common.errors import PuzzleError, SelectionError, StoreError
from curator.export import ExportError
from curator.sokoban.puzzle import parse_sokoban_puzzle
from curator.sokoban.store import TABLES
from curator.web.app import create_app
from tests.cli_helpers import error_line, invoke
from tests.engine_readers import FLOOR, GOAL, WALL, read_ldtk, read_tiled
from tests.sokoban_reference import Reference

PUZZLES = Path(__file__).resolve().parents[1] / "puzzles"
SOKOBAN = PUZZLES / "sokoban.toml"
LOCAL = "http://127.0.0.1:8000"
"""The workspace answers only its own Host (curator.web.guard)."""


@pytest.fixture(scope="module")
def storeroom(tmp_path_factory):
    return curator.analyze(SOKOBAN, tmp_path_factory.mktemp("sokoban") / "out", workers=1)


@pytest.fixture(scope="module")
def reference():
    text = SOKOBAN.read_text()
    return Reference(text[text.index('"""') + 3:text.rindex('"""')], "pushes")


def start_of(results):
    puzzle = results.puzzle
    return results.solve(puzzle.draw(puzzle.start))


def test_the_bundled_start_is_the_farthest_of_its_set(storeroom, reference):
    start = start_of(storeroom)
    assert (start.distance, start.unique, start.cluster) == (26, False, 4366)
    distance, solutions = reference.search(reference.start())
    assert distance == 26 and solutions > 1
    boxes, pushes = reference.replay("".join(start.solution))
    assert boxes <= reference.goals and pushes == 26 == len(start.solution)
    assert storeroom.select(hardest=True, limit=1)[0].distance == storeroom.summary()["max_distance"] == 26


def test_hardest_is_the_farthest_of_each_connected_set(storeroom):
    hardest = storeroom.select(hardest=True)
    distances, clusters = storeroom.distances, storeroom.clusters
    assert len({int(clusters[level.rank]) for level in hardest}) == len(hardest)
    for level in hardest:
        members = np.flatnonzero(clusters == clusters[level.rank])
        solvable = members[(distances[members] > 0) & (distances[members] < 0xFFFE)]
        farthest = solvable[distances[solvable] == distances[solvable].max()]
        assert level.rank == farthest.min() and level.cluster == len(members)


def test_filters_count_what_they_select(storeroom):
    assert storeroom.count(distance=(20, 26)) == len(storeroom.select(distance=(20, 26))) > 0
    unique = storeroom.select(unique=True)
    assert unique and all(level.unique for level in unique)
    every = storeroom.select(all_moves=True, distance=(10, 26))
    assert every and all(level.all_moves and 10 <= level.distance <= 26 for level in every)
    assert storeroom.count(cluster=(4366, 4366), hardest=True) == 1
    with pytest.raises(SelectionError, match="pieces"):
        storeroom.select(pieces=3)


def test_a_rank_that_is_not_a_position_says_why(storeroom):
    invalid = int(np.flatnonzero(storeroom.distances == 0xFFFF)[0])
    with pytest.raises(SelectionError, match="the player stands on the smallest cell it can walk to"):
        storeroom.show(invalid)


def test_the_player_may_stand_anywhere_in_its_region(storeroom):
    puzzle = storeroom.puzzle
    boxes, player = puzzle.start
    region = sorted(puzzle.region(boxes, player))
    levels = [storeroom.solve((boxes, cell)) for cell in region]
    assert len({level.rank for level in levels}) == 1 and len(region) > 3
    for level, cell in zip(levels, region):
        assert level.position == (boxes, cell)  # drawn where it stands
        assert level.distance == 26
    shown = storeroom.show(levels[0].rank)
    assert shown.position == (boxes, min(region))


def test_steps_know_where_they_lead(storeroom):
    start = start_of(storeroom)
    moves = storeroom.moves(start.position)
    assert [m.text for m in moves] == ["r", "D"]  # walk right, or push the box below down
    for move in moves:
        assert move.piece == "@" and move.source == storeroom.puzzle.board.cells[start.position[1]]
        assert move.cost == (1 if move.text.isupper() else 0)
        assert move.distance == storeroom.solve(move.position).distance
    walk, push = moves
    assert walk.distance == 26 and not walk.closer and walk.solvable
    assert push.distance is None and not push.closer and not push.solvable  # it loses the level
    assert storeroom.move(start.position, walk.source, walk.target) == walk
    with pytest.raises(SelectionError, match="not a legal move here"):
        storeroom.move(start.position, walk.source, walk.source)


def test_playing_a_solution_step_by_step_reaches_the_goal(storeroom):
    level = storeroom.select(distance=5, limit=1)[0]
    position = level.position
    for letter in "".join(level.solution):
        (move,) = [m for m in storeroom.moves(position) if m.text == letter]
        assert move.solvable and (move.closer or letter.islower())
        position = move.position
    assert storeroom.puzzle.is_goal(position) and storeroom.distance(position) == 0


def test_the_moves_metric_counts_every_step(tmp_path):
    text = SOKOBAN.read_text().replace('metric = "pushes"', 'metric = "moves"')
    path = tmp_path / "moves.toml"
    path.write_text(text)
    results = curator.analyze(path, tmp_path / "out", workers=1)
    start = start_of(results)
    ref = Reference(text[text.index('"""') + 3:text.rindex('"""')], "moves")
    assert start.distance == ref.search(ref.start())[0] == len(start.solution)
    boxes, _ = ref.replay("".join(start.solution))
    assert boxes <= ref.goals
    assert results.summary()["invalid"] == 0  # every rank is a position
    closer = [m for m in results.moves(start.position) if m.closer]
    assert closer and all(m.cost == 1 and m.distance == start.distance - 1 for m in closer)


def test_exports(storeroom, tmp_path):
    levels = storeroom.select(distance=(20, 26), limit=3)
    (pack,) = storeroom.export(levels, tmp_path / "pack.json")
    data = json.loads(pack.read_text())
    assert data["format"] == "curator-sokoban-pack/1"
    assert data["puzzle"]["family"] == "push" and data["puzzle"]["boxes"] == 3
    assert data["puzzle"]["room"] == storeroom.puzzle.draw().split("\n")
    assert data["puzzle"]["room"][1] == " #--#---#" and data["puzzle"]["room"][3] == "#--##.#-#"
    assert [level["rank"] for level in data["levels"]] == [level.rank for level in levels]
    assert data["levels"][0]["board"] == levels[0].board
    (gallery,) = storeroom.export(levels, tmp_path / "g.html", "html")
    assert gallery.read_text().count('<article class="level"') == 3
    pictures = storeroom.export(levels, tmp_path / "pics", "svg")
    svg = pictures[0].read_text()
    assert len(pictures) == 3 and svg.count('class="piece"') == 1 and svg.count('class="hole"') == 3
    assert len(storeroom.export(levels[:1], tmp_path / "one.png", "png")) == 1
    (table,) = storeroom.export(levels, tmp_path / "t.csv", "csv")
    row = table.read_text().splitlines()[1].split(",")
    assert row[3] == "/".join(levels[0].board) and row[-1] == "; ".join(levels[0].solution)


def _drawn(rows: list[str], signs: str) -> list[tuple[int, int]]:
    """The cells of a drawing holding one of `signs`."""
    return [(r, c) for r, row in enumerate(rows) for c, ch in enumerate(row) if ch in signs]


def test_engine_files_hold_the_room_the_boxes_and_the_keeper(storeroom, tmp_path):
    levels = storeroom.select(distance=(20, 26), limit=3)
    (project,) = storeroom.export(levels, tmp_path / "levels.ldtk", "ldtk")
    maps = storeroom.export(levels, tmp_path / "maps", "tiled")
    assert maps[-1].name == "tiles.png" and len(maps) == len(levels) + 1
    room = storeroom.puzzle.draw().split("\n")
    width = max(len(row) for row in room)
    cells = [[GOAL if ch == "." else FLOOR if ch == "-" else WALL for ch in row.ljust(width)] for row in room]
    for got in (read_ldtk(project), read_tiled(maps[:-1])):
        assert len(got) == len(levels)
        for number, (found, level) in enumerate(zip(got, levels), start=1):
            assert found["cells"] == cells
            assert found["pieces"] == sorted([(r, c, "$", 1, 1) for r, c in _drawn(level.board, "$*")]
                                             + [(r, c, "@", 1, 1) for r, c in _drawn(level.board, "@+")])
            fields = found["fields"]
            assert fields["title"].endswith(f"level {number} (distance {level.distance})")
            assert fields["goal"] == "every box onto a goal"
            assert (fields["distance"], fields["moves"], fields["rank"]) == (
                level.distance, len(level.solution), str(level.rank))
            solution = fields["solution"]
            assert solution == (level.solution if isinstance(solution, list) else "; ".join(level.solution))


SMALL = '''name = "small"
[board]
xsb = """
#######
#@ $ .#
#  $ .#
#######
"""
[rules]
family = "push"
metric = "pushes"
'''


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    base = tmp_path_factory.mktemp("small")
    (base / "small.toml").write_text(SMALL)
    return curator.analyze(base / "small.toml", base / "out", workers=1)


def page_levels(path: Path) -> list[dict]:
    """The levels a playable page carries."""
    text = path.read_text()
    start = text.index('id="levels-data">') + len('id="levels-data">')
    return json.loads(text[start:text.index("</script>", start)])


def test_the_play_page_plays_by_hints_to_the_goal(small, tmp_path):
    levels = small.select(hardest=True)
    (path,) = small.export(levels, tmp_path / "play.html", "play")
    for level, game in zip(levels, page_levels(path), strict=True):
        assert game["kind"] == "blocks" and [g[0] for g in game["groups"]] == ["$", "@"]
        cells = [tuple(cell) for cell in game["cells"]]
        assert cells == list(small.puzzle.board.cells)
        nodes = game["nodes"]
        node = nodes[0]
        boxes, keeper = node[0][:-1], node[0][-1]
        assert (tuple(boxes), keeper) == level.position and node[4] == level.distance
        pushes = steps = 0
        while node[3] != 2:  # hints lead to the goal, every step from the keeper's cell
            assert node[3] == 1 and node[2] >= 0 and steps < len(nodes)
            start, to, following = node[1][3 * node[2]:3 * node[2] + 3]
            assert start == node[0][-1] and abs(cells[to][0] - cells[start][0]) + abs(
                cells[to][1] - cells[start][1]) == 1
            after = nodes[following]
            pushes += after[0][:-1] != node[0][:-1]
            steps += 1
            assert after[4] == node[4] - (after[0][:-1] != node[0][:-1])
            node = after
        assert pushes == level.distance and node[4] == 0
        assert small.puzzle.is_goal((tuple(node[0][:-1]), node[0][-1]))
        lost = [n for n in nodes if n[3] == 0]
        assert all(n[4] is None and n[2] == -1 for n in lost)


def test_the_play_page_refuses_levels_that_reach_too_many_positions(storeroom, tmp_path, monkeypatch):
    from curator.export import play

    monkeypatch.setattr(play, "PLAY_LIMIT", 50)
    with pytest.raises(ExportError, match="level 1 reaches more than 50 positions"):
        storeroom.export(storeroom.select(hardest=True, limit=1), tmp_path / "play.html", "play")
    assert not (tmp_path / "play.html").exists()


def test_pack_follows_the_curve(storeroom, tmp_path):
    pack = storeroom.pack(5, "linear")
    distances = [level.distance for level in pack]
    assert distances == sorted(distances) and distances[-1] == 26 and distances[0] == 1
    (path,) = storeroom.export(pack, tmp_path / "pack.json")
    assert json.loads(path.read_text())["curve"]["name"] == "linear"


def test_verify_finds_a_tampered_entry(storeroom, tmp_path):
    from curator.common.files import file_sha256, manifest_text

    assert storeroom.verify(sample=100_000).ok
    copy = Path(shutil.copytree(storeroom.directory, tmp_path / "copy"))
    start = storeroom.puzzle.rank(storeroom.puzzle.start)
    path = copy / TABLES["distances"][0]
    data = np.fromfile(path, dtype=np.uint16)
    data[start] += 1
    data.tofile(path)
    manifest = json.loads((copy / "manifest.json").read_text())
    manifest["files"]["distances"]["sha256"] = file_sha256(path)
    (copy / "manifest.json").write_text(manifest_text(manifest))  # a determined edit: checksums fixed
    found = curator.open(copy).verify(sample=100_000)
    assert any(line.startswith(f"rank {start}: ") and "distance" in line for line in found.bad_ranks)


def test_resume_gives_the_same_tables(storeroom, tmp_path, monkeypatch):
    monkeypatch.setattr(goal_tables, "CHECKPOINT_SECONDS", 0.0)

    def stop(distance, positions):
        if distance == 4:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        curator.analyze(SOKOBAN, tmp_path / "part", distance_done=stop, workers=1)
    assert not curator.open(tmp_path / "part").complete
    resumed = curator.analyze(SOKOBAN, tmp_path / "part", workers=1)
    for name in TABLES:
        assert np.array_equal(storeroom.store.load(name), resumed.store.load(name)), name


def test_a_damaged_table_is_refused(storeroom, tmp_path):
    copy = Path(shutil.copytree(storeroom.directory, tmp_path / "copy"))
    path = copy / TABLES["flags"][0]
    data = bytearray(path.read_bytes())
    data[100] ^= 1
    path.write_bytes(bytes(data))
    with pytest.raises(StoreError, match="checksum"):
        curator.open(copy).select(unique=True)


BAD = [
    ("#####\n#@$.#\n#####", '"none"', "rules.metric"),
    ("#####\n#@$. \n#####", '"pushes"', "board.xsb"),  # the walls leave a gap
    ("#####\n#@$.#\n#$ .#\n# x #\n#####", '"pushes"', "board.xsb"),
    ("#####\n#@ .#\n#####", '"pushes"', "board.xsb"),  # no box
    ("#####\n#@$$#\n#  .#\n#####", '"pushes"', "board.xsb"),  # fewer goals than boxes
    ("#####\n#@$.#\n#@  #\n#####", '"pushes"', "board.xsb"),  # two players
    ("#####\n#@$.#\n#####\n#$. #\n#####", '"pushes"', "board.xsb"),  # a box outside the room
    ("#" * 18 + "\n" + "\n".join("#" + ("@$." if r == 0 else "   ") + " " * 13 + "#" for r in range(17))
     + "\n" + "#" * 18, '"pushes"', "board.xsb"),  # 272 floor cells
]


@pytest.mark.parametrize("xsb, metric, key", BAD)
def test_bad_files_name_the_key(xsb, metric, key):
    text = f'name = "t"\n[board]\nxsb = """\n{xsb}\n"""\n[rules]\nfamily = "push"\nmetric = {metric}\n'
    with pytest.raises(PuzzleError, match=f": {key}: "):
        parse_sokoban_puzzle(text)


def test_a_room_that_is_not_text_is_named_once():
    text = 'name = "t"\n[board]\nxsb = 5\n[rules]\nfamily = "push"\n'
    with pytest.raises(PuzzleError) as found:
        parse_sokoban_puzzle(text, "t.toml")
    assert str(found.value) == "t.toml: board.xsb: must be a string, got 5"


def test_drawings_are_read_in_xsb(storeroom):
    puzzle = storeroom.puzzle
    drawn = puzzle.draw(puzzle.start)
    assert drawn.split("\n")[1] == " #@-#---#"
    spaced = drawn.replace("-", " ")
    assert puzzle.parse(spaced) == puzzle.parse(drawn.replace("\n", "/"))
    assert puzzle.parse(spaced) == puzzle.parse(drawn.replace("\n", "|"))
    assert puzzle.parse(spaced) == puzzle.start
    gone = r"room \(the board's wall at row 0, column 1 is not drawn\)"
    for bad, words in [(drawn.replace("$", "-", 1), "2 boxes drawn"), (drawn.replace("@", "-"), "0 players"),
                       (drawn.replace("#", "-", 1), gone), ("#####/#@$.#/#####", "not this puzzle.s room")]:
        with pytest.raises(SelectionError, match=words):
            puzzle.parse(bad)


def test_command_line(storeroom, tmp_path):
    out = tmp_path / "out"
    assert invoke("analyze", SOKOBAN, "-o", out, "--workers", "1").exit_code == 0
    result = invoke("info", out, "--json")
    summary = json.loads(result.stdout)
    assert summary["metric"] == "pushes" and summary["boxes"] == 3 and summary["max_distance"] == 26
    for args in [("--hardest",), ("--distance", "20..26"), ("--unique",), ("--all-moves", "--limit", "3"),
                 ("--cluster", "100..5000", "--hardest")]:
        result = invoke("select", out, *args, "--json")
        assert result.exit_code == 0, (args, result.output)
        data = json.loads(result.stdout)
        assert data["levels"] and data["matched"] >= len(data["levels"])
    board = "/".join(start_of(storeroom).board).replace("-", " ")
    result = invoke("solve", SOKOBAN, "--board", board, "--results", out, "--json")
    assert result.exit_code == 0 and json.loads(result.stdout)["distance"] == 26
    result = invoke("solve", SOKOBAN, "--board", board, "--results", out)
    assert "distance 26" in result.stdout and "solution: " in result.stdout
    rank = storeroom.puzzle.rank(storeroom.puzzle.start)
    assert "distance 26" in invoke("show", out, str(rank)).stdout
    assert invoke("verify", out).exit_code == 0
    exports = [("json", "p.json"), ("csv", "p.csv"), ("html", "p.html"), ("svg", "pics"), ("png", "pngs"),
               ("ldtk", "p.ldtk"), ("tiled", "maps")]
    for fmt, name in exports:
        result = invoke("export", out, "--hardest", "-f", fmt, "-o", tmp_path / name)
        assert result.exit_code == 0 and (tmp_path / name).exists(), (fmt, result.output)
    result = invoke("pack", out, "--size", "4", "-f", "json", "-o", tmp_path / "pack.json")
    assert result.exit_code == 0 and len(json.loads((tmp_path / "pack.json").read_text())["levels"]) == 4
    for args, needle in [
        (("select", out, "--pieces", "3"), "--pieces does not apply"),
        (("select", out, "--no-unique"), "no unique"),
        (("solve", SOKOBAN, "--board", "#@$.#", "--results", out), "--board"),
        (("show", out, "5"), "not a position"),
        (("analyze", SOKOBAN, "--max-pieces", "3", "-o", out), "--max-pieces"),
    ]:
        result = invoke(*args)
        assert result.exit_code == 2, (args, result.output)
        assert needle in error_line(result.stderr)


# -- the workspace -------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def client(storeroom):
    return TestClient(create_app([storeroom.directory]), base_url=LOCAL)


def test_the_workspace_details_the_folder(client, storeroom):
    detail = client.get("/api/folders/0").json()
    assert (detail["kind"], detail["held"], detail["workspace"]) == ("sokoban", "Sokoban tables", "blocks")
    assert detail["figures"]["positions"] == storeroom.summary()["positions"]
    blocks = detail["blocks"]
    assert blocks["metric"] == "pushes" and blocks["move"] == "push"
    assert [(p["letter"], p["count"]) for p in blocks["pieces"]] == [("$", 3), ("@", 1)]
    assert blocks["start"] == storeroom.puzzle.draw(storeroom.puzzle.start).replace("\n", "/")
    assert len(blocks["cells"]) == 29 and len(blocks["goal_cells"]) == 3


def test_the_workspace_lists_and_plays_levels(client, storeroom):
    found = client.get("/api/folders/0/sliding/levels", params={"hardest": "true", "limit": 2}).json()
    assert [level["rank"] for level in found["levels"]] == [x.rank for x in storeroom.select(hardest=True,
                                                                                            limit=2)]
    assert found["levels"][0]["picture"].startswith("<svg")
    level = storeroom.select(distance=4, limit=1)[0]
    board = "/".join(level.board)
    report = client.post("/api/folders/0/sliding/position", json={"board": board}).json()
    assert report["distance"] == 4 and not report["goal"]
    assert report["picture"].count('class="piece"') == 1
    for letter in "".join(level.solution):
        (move,) = [m for m in report["moves"] if m["text"] == letter]
        body = {"board": board, "move": {"from": move["from"], "to": move["to"]}}
        report = client.post("/api/folders/0/sliding/move", json=body).json()
        board = "/".join(report["board"])
    assert report["goal"] and report["distance"] == 0
    response = client.post("/api/folders/0/sliding/pack", json={"ranks": [level.rank]})
    assert response.json()["format"] == "curator-sokoban-pack/1"
