"""Universe tables in the workspace (`curator serve`), through FastAPI's test client: the folder's
table and board, the puzzles listed with the filters of `select`, and play: the distance of a
listed puzzle's board is its stored distance, a hinted move brings it one closer, the moves
reach the goal, and drawings that are no position of the universe get one line (422).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient

import curator
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


def test_openapi_documents_the_universe_endpoints(client):
    document = client.get("/openapi.json").json()
    paths = document["paths"]
    assert set(paths["/api/folders/{folder}/universe/puzzles"]) == {"get"}
    assert set(paths["/api/folders/{folder}/universe/position"]) == {"post"}
    assert set(paths["/api/folders/{folder}/universe/move"]) == {"post"}
    query = {p["name"] for p in paths["/api/folders/{folder}/universe/puzzles"]["get"]["parameters"]}
    assert query == {"folder", "solvable", "minimal", "unique", "distance", "cluster", "pieces", "walls",
                     "counts", "hardest", "sort", "sample", "seed", "limit"}
    schemas = document["components"]["schemas"]
    for model in ("UniverseSelection", "UniversePuzzleOut", "UniverseReportOut", "UniverseMoveOut",
                  "UniverseMoveIn", "UniverseBoard"):
        assert model in schemas, model
