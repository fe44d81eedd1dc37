"""Universe tables in the workspace (`curator serve`), through FastAPI's test client: the folder's
table and board, the puzzles listed with the filters of `select`, and play: the distance of a
listed puzzle's board is its stored distance, a hinted move brings it one closer, the moves
reach the goal, and drawings that are no position of the universe get one line (422). Packs:
arranged as `pack` arranges them (a linear curve's distances never fall, the filters hold, a
seed gives one pack), downloaded as json, csv and a zip of toml files, and kept by name in the
workspace's database with the puzzles' drawings as their keys.
"""

from __future__ import annotations

import csv
import io
import zipfile
from pathlib import Path

import numpy as np
import pytest
from fastapi.testclient import TestClient

import curator
from curator.arrange import CURVES
from curator.export.universe import puzzle_text
from curator.options import parse_counts, parse_range
from curator.web.app import create_app
from curator.web.models import MAX_DRAWING, MAX_LEVELS

ROOT = Path(__file__).resolve().parent.parent
UNIVERSE = Path(__file__).parent / "data" / "rush-hour-4x4.toml"
LOCAL = "http://127.0.0.1:8000"
UNBOUNDED = 3600.0
"""No time bound (a fresh clone compiles the kernels on the first request)."""


@pytest.fixture(scope="module")
def universe(tmp_path_factory):
    return curator.analyze(UNIVERSE, output=tmp_path_factory.mktemp("serve") / "universe", workers=1)


@pytest.fixture(scope="module")
def eight(tmp_path_factory):
    output = tmp_path_factory.mktemp("serve") / "eight"
    return curator.analyze(ROOT / "puzzles" / "eight-puzzle.toml", output=output, workers=1)


@pytest.fixture(scope="module")
def client(universe, eight):
    """The workspace on the 4x4 universe (folder 0) and the 8-puzzle's distance table (folder 1)."""
    return TestClient(create_app([universe.directory, eight.directory], time_limit=UNBOUNDED), base_url=LOCAL)


def problem(response, status=422):
    assert response.status_code == status, response.text
    detail = response.json()["detail"]
    assert isinstance(detail, str) and detail and "\n" not in detail and "Traceback" not in detail
    return detail


def puzzles(client, **query):
    response = client.get("/api/folders/0/universe/puzzles", params=query)
    assert response.status_code == 200, response.text
    return response.json()


def position(client, board):
    response = client.post("/api/folders/0/universe/position", json={"board": board})
    assert response.status_code == 200, response.text
    return response.json()


def move(client, board, played):
    response = client.post("/api/folders/0/universe/move",
                           json={"board": board, "move": {"from": played["from"], "to": played["to"]}})
    assert response.status_code == 200, response.text
    return response.json()


def test_the_folder_shows_its_table_and_board(client, universe):
    folder = client.get("/api/folders").json()[0]
    assert (folder["kind"], folder["workspace"]) == ("universe", "universe")
    assert folder["held"] == "universe tables"
    detail = client.get("/api/folders/0").json()
    rows = [{k: row[k] for k in ("distance", "puzzles", "minimal", "positions")} for row in detail["layers"]]
    assert rows == universe.layers
    board = detail["universe"]
    assert (board["rows"], board["cols"], len(board["cells"])) == (4, 4, 16)
    assert board["cells"][6] == [1, 2]
    assert [(v["letter"], v["along"], len(v["cells"])) for v in board["vehicles"]] == [
        ("R", "row", 2), ("h", "row", 2), ("H", "row", 3), ("v", "column", 2), ("V", "column", 3)]
    assert (board["goal_piece"], board["goal_cells"], board["walls"]) == ("R", [[2, 2], [2, 3]], [0, 2])
    summary = universe.summary()
    assert board["figures"] == {key: summary[key] for key in board["figures"]}
    assert board["figures"]["sets"] == 26509 and board["figures"]["farthest"] == 7


@pytest.mark.parametrize("query", [
    {},
    {"minimal": "true"},
    {"minimal": "false", "unique": "true", "distance": "4..6", "limit": "7"},
    {"solvable": "false", "limit": "5"},
    {"walls": "2", "distance": "3..9", "sort": "cluster:asc", "limit": "20"},
    {"counts": "h=2..3,V=0,x=1", "pieces": "4..5"},
    {"hardest": "true", "sort": "pieces"},
    {"cluster": "100..100000", "sample": "9", "seed": "3"},
])
def test_the_list_respects_the_filters(client, universe, query):
    found = puzzles(client, **query)
    keywords = {"solvable": None, "minimal": None, "unique": None, "hardest": query.get("hardest") == "true",
                "sort": query.get("sort"), "sample": None, "seed": None, "limit": MAX_LEVELS}
    for name in ("solvable", "minimal", "unique"):
        if name in query:
            keywords[name] = query[name] == "true"
    for name in ("distance", "cluster", "pieces", "walls"):
        if name in query:
            keywords[name] = parse_range(query[name], name)
    for name in ("sample", "seed", "limit"):
        if name in query:
            keywords[name] = int(query[name])
    if "counts" in query:
        keywords["counts"] = parse_counts(query["counts"], universe.puzzle)
    expected, matched = universe.selection(keywords)
    assert found["puzzle"] == "rush-hour-4x4" and found["matched"] == matched
    assert [p["rank"] for p in found["puzzles"]] == [p.rank for p in expected]
    assert len(found["puzzles"]) == min(matched, keywords["limit"], keywords["sample"] or matched)
    for got, want in zip(found["puzzles"], expected):
        assert got["board"] == want.board.split("/") and got["first"] == want.first.split("/")
        figures = ("distance", "cluster", "pieces", "walls", "minimal", "unique")
        assert [got[name] for name in figures] == [getattr(want, name) for name in figures]
        assert got["picture"].count('class="piece"') == got["pieces"]


def test_listed_puzzles_pass_their_filters(client):
    for p in puzzles(client, minimal="true", distance="5..7", walls="0..1")["puzzles"]:
        assert p["minimal"] is True and 5 <= p["distance"] <= 7 and p["walls"] <= 1
    for p in puzzles(client, counts="V=1,x=2", solvable="true", limit="50")["puzzles"]:
        assert p["counts"]["V"] == 1 and p["counts"]["x"] == 2 and p["distance"] is not None
    distances = [p["distance"] for p in puzzles(client, sort="distance:asc", solvable="true")["puzzles"]]
    assert distances == sorted(distances) and distances[0] == 0
    assert len(puzzles(client)["puzzles"]) == MAX_LEVELS  # the most one request lists


def test_a_listed_puzzle_plays_from_its_stored_distance_to_the_goal(client):
    for listed in puzzles(client, hardest="true", distance="3..7", limit="12")["puzzles"]:
        board = "/".join(listed["board"])
        report = position(client, board)
        assert report["distance"] == report["farthest"] == listed["distance"]
        assert report["cluster"] == listed["cluster"] and report["board"] == listed["board"]
        assert len(report["solution"]) == listed["distance"] and not report["goal"]
        assert report["picture"].count('class="piece"') == listed["pieces"]
        played = 0
        while report["distance"]:
            closer = [m for m in report["moves"] if m["closer"]]
            assert closer and all(m["distance"] == report["distance"] - 1 for m in closer)
            after = move(client, "/".join(report["board"]), closer[-1])
            assert after["distance"] == report["distance"] - 1 and after["board"] == closer[-1]["board"]
            report = after
            played += 1
        assert played == listed["distance"]
        assert report["goal"] and report["distance"] == 0 and report["solution"] == []


def test_every_move_reports_the_distance_it_leads_to(client):
    listed = puzzles(client, distance="4", limit="1")["puzzles"][0]
    report = position(client, "/".join(listed["board"]))
    assert report["moves"]
    for played in report["moves"]:
        after = move(client, "/".join(report["board"]), played)
        assert after["distance"] == played["distance"] and after["board"] == played["board"]
        assert abs(after["distance"] - report["distance"]) <= 1
        assert after["cluster"] == report["cluster"] and after["farthest"] == report["farthest"]


def test_an_unsolvable_puzzle_has_no_distance(client):
    listed = puzzles(client, solvable="false", limit="1")["puzzles"][0]
    assert listed["distance"] is None and listed["minimal"] is None
    report = position(client, "/".join(listed["board"]))
    assert report["distance"] is None and not report["solvable"] and report["farthest"] is None
    assert all(m["distance"] is None and not m["closer"] for m in report["moves"])


@pytest.mark.parametrize(("board", "message"), [
    ("....", "board: rush-hour-4x4 is 4 x 4: draw 4 rows of 4 cells joined by '/', got 1 row"),
    ("..../..../RR.../....", "row 2 has 5 cells"),
    ("..Q./..../RR../....", "'Q' at 0,2 is no vehicle of rush-hour-4x4 (its vehicles: R h H v V"),
    ("HH../..../RR../....", "the H cells 0,0..0,1 are not whole H vehicles (3 cells along a row)"),
    ("..../.v../RR../....", "the v cells 1,1..1,1 are not whole v vehicles (2 cells along a column)"),
    ("..../..../..../....", "0 R vehicles; rush-hour-4x4 has 1..1"),
    ("xx../..x./RR../....", "3 walls; rush-hour-4x4 has 0..2"),
    ("..../..../RR.x/....", "the wall at 2,3 stands right of the goal vehicle R"),
    ("..../..../RRhh/....", "row 2 holds the goal vehicle R alone"),
    ("hhx./..../RR../....", None),  # a position: the check below expects 200
])
def test_a_drawing_that_is_no_position_gets_one_line(client, board, message):
    response = client.post("/api/folders/0/universe/position", json={"board": board})
    if message is None:
        assert response.status_code == 200
        return
    assert message in problem(response)
    response = client.post("/api/folders/0/universe/move", json={"board": board, "move": {"from": [0, 0],
                                                                                          "to": [0, 1]}})
    assert message in problem(response)


@pytest.mark.parametrize(("path", "body", "message"), [
    ("position", {}, "board: Field required"),
    ("position", {"board": ""}, "board: String should have at least 1 character"),
    ("position", {"board": "." * (MAX_DRAWING + 1)}, "board: String should have at most"),
    ("move", {"board": "v.hh/vHHH/RR.v/hh.v"}, "move: Field required"),
    ("move", {"board": "v.hh/vHHH/RR.v/hh.v", "move": {"from": [2, 0], "to": [2, 2]}},
     "move 2,0 -> 2,2: it is not a legal slide here"),
    ("move", {"board": "v.hh/vHHH/RR.v/hh.v", "move": {"from": [9, 9], "to": [9, 8]}},
     "move 9,9 -> 9,8: no vehicle starts there"),
    ("move", {"board": "v.hh/vHHH/RR.v/hh.v", "move": {"from": [0, 3], "to": [0, 1]}},
     "no vehicle starts there"),
])
def test_bad_requests_get_one_line(client, path, body, message):
    assert message in problem(client.post(f"/api/folders/0/universe/{path}", json=body))


@pytest.mark.parametrize(("query", "message"), [
    ({"sort": "size"}, "sort: sorts by distance, cluster, pieces, walls"),
    ({"counts": "q=1"}, "counts: 'q=1' is not TYPE=A..B"),
    ({"distance": "far"}, "distance must look like A..B or A"),
    ({"walls": "2..1"}, "walls '2..1': 2 is larger than 1"),
    ({"limit": "500"}, "limit: Input should be less than or equal to 200"),
    ({"all_moves": "true"}, "all_moves: Extra inputs are not permitted"),
])
def test_bad_queries_get_one_line(client, query, message):
    assert message in problem(client.get("/api/folders/0/universe/puzzles", params=query))


def test_other_folders_say_where_their_levels_are(client):
    assert "holds universe tables: their levels are under /api/folders/0/universe/" in problem(
        client.get("/api/folders/0/levels"))
    assert "holds universe tables, not sliding-block tables" in problem(
        client.get("/api/folders/0/sliding/levels"))
    assert "holds a distance table, not universe tables" in problem(
        client.get("/api/folders/1/universe/puzzles"))
    assert "holds a distance table" in problem(client.post("/api/folders/1/universe/position",
                                                          json={"board": "..../..../RR../...."}))
    assert "no folder 7" in problem(client.get("/api/folders/7/universe/puzzles"), 404)


def test_notes_and_playtests_keep_universe_puzzles_by_their_drawing(client):
    board = "v.hh\nvHHH\nRR.v\nhh.v"
    note = client.put("/api/folders/0/notes", json={"level": board, "note": "a fine start", "tags": ["car"]})
    assert note.status_code == 200 and note.json()["level"] == "v.hh/vHHH/RR.v/hh.v"
    played = client.post("/api/folders/0/playtests", json={
        "level": "v.hh/vHHH/RR.v/hh.v", "seconds": 12.5, "moves": 7, "moves_at_end": 7, "solved": True})
    assert played.status_code == 200, played.text
    figures = client.get("/api/folders/0/playtests").json()["levels"]
    assert [(f["level"], f["plays"]) for f in figures] == [("v.hh/vHHH/RR.v/hh.v", 1)]
    assert "level: board: 'Q' at 0,0" in problem(client.put("/api/folders/0/notes", json={
        "level": "Q.hh/vHHH/RR.v/hh.v", "note": "", "tags": []}))


def test_a_play_cannot_have_solved_a_puzzle_that_cannot_be_solved(client):
    board = puzzles(client, solvable="false", limit="1")["puzzles"][0]["board"]
    level = "/".join(board) if isinstance(board, list) else board
    play = {"level": level, "seconds": 4, "moves": 3, "moves_at_end": 3, "solved": True}
    assert "cannot be solved, so no play of it solved it" in problem(client.post("/api/folders/0/playtests",
                                                                                 json=play))
    assert client.post("/api/folders/0/playtests", json={**play, "solved": False}).status_code == 200


def test_openapi_documents_the_universe_endpoints(client):
    document = client.get("/openapi.json").json()
    paths = document["paths"]
    assert set(paths["/api/folders/{folder}/universe/puzzles"]) == {"get"}
    assert set(paths["/api/folders/{folder}/universe/position"]) == {"post"}
    assert set(paths["/api/folders/{folder}/universe/move"]) == {"post"}
    assert set(paths["/api/folders/{folder}/universe/arrange"]) == {"post"}
    assert set(paths["/api/folders/{folder}/universe/pack"]) == {"post"}
    query = {p["name"] for p in paths["/api/folders/{folder}/universe/puzzles"]["get"]["parameters"]}
    assert query == {"folder", "solvable", "minimal", "unique", "distance", "cluster", "pieces", "walls",
                     "counts", "hardest", "sort", "sample", "seed", "limit"}
    schemas = document["components"]["schemas"]
    for model in ("UniverseSelection", "UniversePuzzleOut", "UniverseReportOut", "UniverseMoveOut",
                  "UniverseMoveIn", "UniverseBoard", "UniverseArrangeIn", "UniverseArrangement",
                  "UniversePackIn"):
        assert model in schemas, model


# -- packs ---------------------------------------------------------------------------------------


def arranged(client, **body):
    response = client.post("/api/folders/0/universe/arrange", json=body)
    assert response.status_code == 200, response.text
    return response.json()


def falls_nowhere_the_curve_rises(distances, curve):
    rises = np.diff(CURVES[curve].fractions(len(distances))) > 0
    return all(b >= a for a, b, up in zip(distances, distances[1:], rises) if up)


@pytest.mark.parametrize("size", [1, 2, 10, 40])
def test_an_arranged_pack_follows_a_linear_curve(client, universe, size):
    found = arranged(client, size=size)
    distances = [p["distance"] for p in found["puzzles"]]
    assert len(distances) == size and len({p["rank"] for p in found["puzzles"]}) == size
    assert all(d >= 1 for d in distances) and falls_nowhere_the_curve_rises(distances, "linear")
    assert distances == sorted(distances)  # a linear curve rises everywhere
    targets = [p["target"] for p in found["puzzles"]]
    assert targets == sorted(targets)
    expected = universe.pack(size, "linear", pool=5000)
    assert (found["puzzle"], found["curve"], found["pool"]) == ("rush-hour-4x4", "linear", expected.pool)
    assert [p["rank"] for p in found["puzzles"]] == [p.rank for p in expected]
    assert targets == [slot.target for slot in expected.slots]
    for got, want in zip(found["puzzles"], expected):
        assert got["board"] == want.board.split("/") and got["cluster"] == want.cluster
        assert got["picture"].count('class="piece"') == got["pieces"]


@pytest.mark.parametrize("curve", sorted(CURVES))
def test_every_curve_is_followed(client, universe, curve):
    found = arranged(client, size=12, curve=curve, pool=800, seed=4)
    assert falls_nowhere_the_curve_rises([p["distance"] for p in found["puzzles"]], curve)
    expected = universe.pack(12, curve, pool=800, seed=4)
    assert [p["rank"] for p in found["puzzles"]] == [p.rank for p in expected]


@pytest.mark.parametrize(("body", "keywords"), [
    ({"minimal": True, "distance": "2..7", "walls": "0"},
     {"minimal": True, "distance": (2, 7), "walls": (0, 0)}),
    ({"counts": "v=1..2,x=1", "pieces": "2..4", "unique": True, "cluster": "3..99"},
     {"counts": {"v": (1, 2), "x": (1, 1)}, "pieces": (2, 4), "unique": True, "cluster": (3, 99)}),
    ({"hardest": True, "solvable": True, "minimal": False},
     {"hardest": True, "solvable": True, "minimal": False}),
])
def test_an_arranged_pack_respects_the_filters(client, universe, body, keywords):
    found = arranged(client, size=5, pool=400, seed=2, **body)
    expected = universe.pack(5, pool=400, seed=2, **keywords)
    assert [p["rank"] for p in found["puzzles"]] == [p.rank for p in expected]
    matching = {p.rank for p in universe.select(**{k: v for k, v in keywords.items()})}
    for p in found["puzzles"]:
        assert p["rank"] in matching and p["distance"] >= 1
        if "distance" in keywords:
            assert keywords["distance"][0] <= p["distance"] <= keywords["distance"][1]
        if "walls" in keywords:
            assert p["walls"] == 0
        if "counts" in keywords:
            assert 1 <= p["counts"].get("v", 0) <= 2 and p["walls"] == 1 and 2 <= p["pieces"] <= 4
        for flag in ("minimal", "unique"):
            if flag in keywords:
                assert p[flag] is keywords[flag]


def test_a_seed_gives_one_pack_and_variety_can_be_left_out(client, universe):
    body = {"size": 8, "pool": 300, "seed": 11, "curve": "ease-in"}
    first = arranged(client, **body)
    assert arranged(client, **body) == first
    other = arranged(client, **{**body, "seed": 12})
    assert [p["rank"] for p in other["puzzles"]] != [p["rank"] for p in first["puzzles"]]
    piece_sets = {tuple(sorted(p["counts"].items())) for p in arranged(client, size=10)["puzzles"]}
    assert len(piece_sets) == 10
    plain = arranged(client, size=10, variety="none")
    assert [p["rank"] for p in plain["puzzles"]] == [p.rank for p in universe.pack(10, variety=None)]
    assert len({tuple(sorted(p["counts"].items())) for p in plain["puzzles"]}) < 10


@pytest.mark.parametrize(("body", "message"), [
    ({}, "size: Field required"),
    ({"size": 0}, "size: Input should be greater than or equal to 1"),
    ({"size": 201}, "size: Input should be less than or equal to 200"),
    ({"size": 5, "pool": 3}, "size 5 is larger than pool 3"),
    ({"size": 3, "pool": 5001}, "pool: Input should be less than or equal to 5000"),
    ({"size": 3, "seed": -1}, "seed: Input should be greater than or equal to 0"),
    ({"size": 3, "curve": "zigzag"}, "curve: Input should be"),
    ({"size": 3, "curve": "packs/fling-shipped.json"}, "curve: Input should be"),
    ({"size": 3, "variety": "sets"}, "variety: Input should be 'piece-sets' or 'none'"),
    ({"size": 3, "solvable": False}, "a pack takes only sets that can be solved"),
    ({"size": 3, "minimal": "yes"}, "minimal: Input should be a valid boolean"),
    ({"size": 3, "hardest": 1}, "hardest: Input should be a valid boolean"),
    ({"size": 3, "distance": "40..60"}, "no set matches the filters and takes a move or more to solve"),
    ({"size": 40, "minimal": True}, "size 40 is larger than the 32 sets that match the filters"),
    ({"size": 3, "distance": "far"}, "distance must look like A..B or A"),
    ({"size": 3, "counts": "q=1"}, "counts: 'q=1' is not TYPE=A..B"),
    ({"size": 3, "walls": "2..1"}, "walls '2..1': 2 is larger than 1"),
    ({"size": 3, "sort": "cluster"}, "sort: Extra inputs are not permitted"),
    ({"size": 3, "limit": 3}, "limit: Extra inputs are not permitted"),
])
def test_bad_arrangements_get_one_line(client, body, message):
    assert message in problem(client.post("/api/folders/0/universe/arrange", json=body))


def test_arranging_needs_universe_tables(client):
    assert "holds a distance table, not universe tables" in problem(
        client.post("/api/folders/1/universe/arrange", json={"size": 3}))
    assert "no folder 5" in problem(client.post("/api/folders/5/universe/arrange", json={"size": 3}), 404)
    assert "holds universe tables" in problem(client.post("/api/folders/0/arrange", json={"size": 3}))


def arranged_download(client):
    """An arranged pack, and the body that downloads it with its curve."""
    found = arranged(client, size=6, curve="ease-out", minimal=True, seed=5)
    return found, {"ranks": [p["rank"] for p in found["puzzles"]], "curve": curve_of(found)}


def curve_of(found):
    """The curve record of an arranged pack, as the page sends and keeps it."""
    return {"name": found["curve"], "pool": found["pool"], "targets": [p["target"] for p in found["puzzles"]]}


def download(client, body, format="json", status=200):
    response = client.post("/api/folders/0/universe/pack", params={"format": format}, json=body)
    assert response.status_code == status, response.text
    return response


def test_pack_downloads_keep_the_order_and_the_curve(client, universe):
    found, body = arranged_download(client)
    expected = universe.pack(6, "ease-out", minimal=True, seed=5)
    written = download(client, body)
    assert written.headers["content-disposition"] == 'attachment; filename="rush-hour-4x4-pack.json"'
    pack = written.json()
    assert pack["format"] == "curator-universe-puzzles/1"
    assert pack["curve"] == expected.record().to_json()
    assert [p["rank"] for p in pack["puzzles"]] == [p.rank for p in expected]
    assert [p["board"] for p in pack["puzzles"]] == ["/".join(p["board"]) for p in found["puzzles"]]
    rows = list(csv.DictReader(io.StringIO(download(client, body, "csv").text)))
    assert [int(row["rank"]) for row in rows] == body["ranks"]
    assert [float(row["target"]) for row in rows] == [round(t, 3) for t in body["curve"]["targets"]]
    reordered = download(client, {"ranks": body["ranks"][::-1]}).json()
    assert [p["rank"] for p in reordered["puzzles"]] == body["ranks"][::-1] and "curve" not in reordered


def test_toml_downloads_are_a_zip_of_puzzle_files(client, universe):
    _, body = arranged_download(client)
    written = download(client, body, "toml")
    assert written.headers["content-type"] == "application/zip"
    assert written.headers["content-disposition"] == 'attachment; filename="rush-hour-4x4-pack.zip"'
    with zipfile.ZipFile(io.BytesIO(written.content)) as archive:
        names = archive.namelist()
        assert names == [f"puzzle-{n:04d}.toml" for n in range(1, 7)]
        for name, rank in zip(names, body["ranks"]):
            assert archive.read(name).decode() == puzzle_text(universe.puzzle, universe.level(rank))


@pytest.mark.parametrize(("params", "change", "message"), [
    ({"format": "html"}, None, "format: Input should be 'json', 'csv' or 'toml'"),
    ({"format": "../x"}, None, "format: Input should be"),
    ({}, lambda body: body.update(ranks=[]), "ranks: List should have at least 1 item"),
    ({}, lambda body: body.update(ranks=[0] * 201), "ranks: List should have at most 200 items"),
    ({}, lambda body: body.update(ranks=["0"]), "ranks.0: Input should be a valid integer"),
    ({}, lambda body: body.update(ranks=[26509]), "set 26509 does not exist (0..26508)"),
    ({}, lambda body: body.update(ranks=[-1]), "set -1 does not exist"),
    ({}, lambda body: body.update(boards=["..../..../RR../...."]), "boards: Extra inputs are not permitted"),
    ({}, lambda body: body["curve"].update(targets=body["curve"]["targets"][:-1]), "5 targets for 6 puzzles"),
    ({}, lambda body: body["curve"].update(name="zigzag"), "curve.name"),
    ({}, lambda body: body["curve"].update(pool=0), "curve.pool"),
    ({}, lambda body: body["curve"].update(targets=[1, 2, 3, 4, 5, "NaN"]), "curve.targets.5"),
])
def test_bad_pack_downloads_get_one_line(client, params, change, message):
    _, body = arranged_download(client)
    if change is not None:
        change(body)
    assert message in problem(client.post("/api/folders/0/universe/pack", params=params, json=body))


def test_an_unsolvable_puzzle_stands_in_no_arranged_pack(client):
    _, body = arranged_download(client)
    body["ranks"][2] = puzzles(client, solvable="false", limit="1")["puzzles"][0]["rank"]
    assert "curve: puzzle 3" in problem(client.post("/api/folders/0/universe/pack", json=body))
    del body["curve"]
    assert download(client, body).json()["puzzles"][2]["distance"] is None


def test_a_named_pack_of_universe_puzzles_is_kept_and_listed(client):
    found = arranged(client, size=4, seed=9)
    made = client.post("/api/folders/0/packs", json={"name": "cars"}).json()
    assert (made["puzzle"], made["folder"], made["levels"]) == ("rush-hour-4x4", 0, [])
    levels = [{"level": "\n".join(p["board"]), "data": p} for p in found["puzzles"]]
    curve = curve_of(found)
    kept = client.put(f"/api/packs/{made['id']}/levels", json={"levels": levels, "curve": curve})
    assert kept.status_code == 200, kept.text
    boards = ["/".join(p["board"]) for p in found["puzzles"]]
    assert [item["level"] for item in kept.json()["levels"]] == boards and kept.json()["curve"] == curve
    extra = puzzles(client, minimal="true", limit="1")["puzzles"][0]
    added = client.post(f"/api/packs/{made['id']}/levels", json={"level": "/".join(extra["board"]),
                                                                 "data": extra, "at": 0})
    assert added.status_code == 200, added.text
    listed = {pack["name"]: pack for pack in client.get("/api/folders/0/packs").json()}
    assert [item["level"] for item in listed["cars"]["levels"]] == ["/".join(extra["board"]), *boards]
    assert [item["data"]["rank"] for item in listed["cars"]["levels"]] == [
        extra["rank"], *(p["rank"] for p in found["puzzles"])]
    assert listed["cars"]["curve"] is None and listed["cars"]["problem"] is None  # changed by hand
    assert any(pack["name"] == "cars" and pack["folder"] == 0 for pack in client.get("/api/packs").json())
    assert "level: board: 'Q' at 0,0" in problem(client.post(f"/api/packs/{made['id']}/levels", json={
        "level": "Q.hh/vHHH/RR.v/hh.v", "data": {}}))
    client.delete(f"/api/packs/{made['id']}", headers={"Content-Type": "application/json"})


def test_the_universe_is_warmed_as_serve_warms_it(universe, client):
    client.app.state.folders.warm()  # selects one puzzle of each folder; raises if it cannot
    assert client.get("/api/folders/0/universe/puzzles", params={"limit": 1}).status_code == 200
