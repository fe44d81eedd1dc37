"""The workspace (`curator serve`): the API it stands on (`status`, `moves`), its JSON API
through FastAPI's test client (every endpoint, hostile paths and parameters, damaged
stores, bounded memory), and the command that starts it.

Answers are checked against the search (`LayeredResults.solve`) and the rules' own move
list, and downloaded packs against schemas/level-pack.schema.json.
"""

from __future__ import annotations

import gc
import json
import re
import shutil
import tracemalloc
from pathlib import Path

import jsonschema
import numpy as np
import pytest
from cli_helpers import error_line, invoke
from fastapi.testclient import TestClient

import curator
from curator.arrange import CURVES
from curator.export.sliding import pack_dict
from curator.web import folders as web_folders
from curator.web.app import create_app
from curator.web.work import SEARCH_ABOVE
from tests.served import fake_serving

ROOT = Path(__file__).resolve().parent.parent
TRIANGLE = ROOT / "puzzles" / "triangle.toml"
CHESS = ROOT / "puzzles" / "solitaire-chess.toml"
EIGHT = ROOT / "puzzles" / "eight-puzzle.toml"
KLOTSKI = ROOT / "puzzles" / "klotski.toml"
PACK_SCHEMA = json.loads((ROOT / "schemas" / "level-pack.schema.json").read_text())
STORED_UP_TO = 8
"""The partial triangle folder stores layers up to this many pieces."""
LOCAL = "http://127.0.0.1:8000"
"""Where the test client's requests go: the address `curator serve` listens on by default
(the app answers no other Host)."""


UNBOUNDED = 3600.0
"""The time bound of a request in these tests: the first request of a fresh clone compiles
kernels, which on a busy machine can pass the default bound (tests/test_serve_guard.py checks
the bound itself)."""


def workspace(directories, **options) -> TestClient:
    """A test client of the workspace on these folders."""
    return TestClient(create_app(directories, **{"time_limit": UNBOUNDED, **options}), base_url=LOCAL)


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    return tmp_path_factory.mktemp("serve")


@pytest.fixture(scope="module")
def triangle(base):
    return curator.analyze(TRIANGLE, output=base / "triangle", workers=1)


@pytest.fixture(scope="module")
def partial(base):
    return curator.analyze(TRIANGLE, output=base / "partial", max_pieces=STORED_UP_TO, workers=1)


@pytest.fixture(scope="module")
def chess(base):
    return curator.analyze(CHESS, output=base / "chess", max_pieces=4, workers=1)


@pytest.fixture(scope="module")
def client(triangle, partial, chess):
    return workspace([triangle.directory, partial.directory, chess.directory])


@pytest.fixture(scope="module")
def eight(base):
    return curator.analyze(EIGHT, output=base / "eight", workers=1)


@pytest.fixture(scope="module")
def klotski(base):
    return curator.analyze(KLOTSKI, output=base / "klotski", workers=1)


@pytest.fixture(scope="module")
def blocks(klotski, eight, triangle):
    """A workspace on sliding-block tables (folder 0), a distance table (1) and layered results (2)."""
    return workspace([klotski.directory, eight.directory, triangle.directory])


@pytest.fixture(autouse=True)
def elsewhere(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)


def levels_of(results, count=6, seed=3, pieces=(5, 9)):
    return results.select(solvable=True, pieces=pieces, sample=count, seed=seed)


def problem(response, status=422):
    """The one-line JSON error of a refused request."""
    assert response.status_code == status, response.text
    detail = response.json()["detail"]
    assert isinstance(detail, str) and detail and "\n" not in detail and "Traceback" not in detail
    return detail


# -- the API the workspace stands on ------------------------------------------------------------


def test_status_and_moves_agree_with_the_search(triangle):
    for level in levels_of(triangle):
        status = triangle.status(level.position)
        assert status.stored and not status.goal
        assert (status.solvable, status.unique, status.all_moves) == (level.solvable, level.unique,
                                                                     level.all_moves)
        outcomes = triangle.moves(level.position)
        rules = triangle.puzzle.rules
        cells = triangle.puzzle.board.cells
        found = rules.moves_from(level.position, rules.tables())
        # Moves from (row, col) to (row, col).
        assert [(o.move, o.position) for o in outcomes] == [((cells[a], cells[b]), child)
                                                            for (a, b), child in found]
        assert len(outcomes) == level.legal_moves
        assert sum(o.solvable for o in outcomes) == level.safe_moves
        for o in outcomes:
            assert o.solvable == triangle.solve(o.position).solvable


def test_status_above_the_stored_layers_is_searched(triangle, partial):
    for level in levels_of(triangle, pieces=(STORED_UP_TO + 1, STORED_UP_TO + 2)):
        status = partial.status(level.position)
        assert not status.stored
        assert (status.solvable, status.unique) == (level.solvable, level.unique)


def test_goal_positions(triangle):
    goal = tuple(1 if i == 4 else 0 for i in range(15))
    status = triangle.status(goal)
    assert status.goal and status.solvable and status.pieces == 1
    assert triangle.moves(goal) == []
    two = tuple(1 if i in (0, 14) else 0 for i in range(15))
    assert not triangle.status(two).goal and not triangle.status(two).solvable


@pytest.mark.parametrize("board", [(1,) * 14, (0,) * 14 + (3,), (0,) * 14 + (-1,), "o/.."])
def test_position_refuses_what_is_not_a_position(triangle, board):
    with pytest.raises(curator.SelectionError):
        triangle.position(board)


def test_position_refuses_more_pieces_of_a_type_than_the_puzzle_has(chess):
    kings = (1, 1) + (0,) * 14
    with pytest.raises(curator.SelectionError, match="2 pieces K"):
        chess.position(kings)


# -- folders and layers ------------------------------------------------------------------------


def test_folders_are_listed_by_index_and_name(client, triangle, chess):
    folders = client.get("/api/folders").json()
    assert [f["id"] for f in folders] == [0, 1, 2]
    assert [f["name"] for f in folders] == ["triangle", "partial", "chess"]
    assert folders[2]["puzzle"] == "solitaire-chess" and folders[0]["kind"] == "layers"
    detail = client.get("/api/folders/0").json()
    assert [row["solvable"] for row in detail["layers"]] == [row["solvable"] for row in triangle.layers]
    assert detail["board"]["cells"] == [list(c) for c in triangle.puzzle.board.cells]
    typed = client.get("/api/folders/2").json()
    assert typed["board"]["piece_types"] == list(chess.puzzle.piece_types)
    assert typed["layers"][0]["counts"] == chess.layers[0]["counts"]


def test_every_kind_of_folder_is_listed_and_detailed(blocks, klotski, eight):
    folders = blocks.get("/api/folders").json()
    assert [(f["kind"], f["puzzle"], f["workspace"]) for f in folders] == [
        ("sliding", "klotski", "blocks"), ("distance", "eight-puzzle", None),
        ("layers", "triangle", "pieces")]
    assert [f["held"] for f in folders] == ["sliding-block tables", "a distance table", "layered results"]
    table = blocks.get("/api/folders/1").json()
    assert [(row["distance"], row["positions"]) for row in table["layers"]] == [
        (row["distance"], row["positions"]) for row in eight.layers]
    assert table["complete"] and table["board"] is table["blocks"] is table["figures"] is None
    detail = blocks.get("/api/folders/0").json()
    assert detail["kind"] == "sliding" and detail["complete"] and detail["board"] is None
    keys = ("distance", "positions", "unique", "all_moves")
    rows = [{key: row[key] for key in keys} for row in detail["layers"]]
    assert rows == klotski.layers and rows[81]["distance"] == 81
    summary = klotski.summary()
    figures = detail["figures"]
    assert (figures["positions"], figures["ranks"] - figures["invalid"]) == (65_880, 65_880)
    for key in ("invalid", "clusters", "largest_cluster", "max_distance", "solvable", "unsolvable"):
        assert figures[key] == summary[key], key
    assert figures["largest_cluster"] == 25_955
    shape = detail["blocks"]
    assert (shape["rows"], shape["cols"], len(shape["cells"])) == (5, 4, 20)
    assert [(p["letter"], p["count"]) for p in shape["pieces"]] == [("S", 1), ("V", 4), ("H", 1), ("N", 4)]
    assert shape["goal_piece"] == "S" and shape["goal_cells"] == [[3, 1], [3, 2], [4, 1], [4, 2]]
    assert shape["start"] == "VSSV/VSSV/VHHV/VNNV/N..N" and shape["metric"] == "piece"


def test_layered_endpoints_point_elsewhere_for_other_kinds(blocks):
    detail = problem(blocks.get("/api/folders/0/levels"))
    assert detail == ("folder 0 (klotski) holds sliding-block tables: their levels are under "
                      "/api/folders/0/sliding/")
    assert "holds a distance table" in problem(blocks.get("/api/folders/1/levels"))
    assert "sliding-block tables" in problem(blocks.post("/api/folders/0/position", json={"position": [0]}))


def test_two_folders_with_one_name_get_two_names(triangle, tmp_path):
    other = tmp_path / "x" / "triangle"
    shutil.copytree(triangle.directory, other)
    folders = workspace([triangle.directory, other]).get("/api/folders").json()
    names = [f["name"] for f in folders]
    assert names == ["triangle", "triangle-2"]


@pytest.mark.parametrize("path", [
    "/api/folders/3", "/api/folders/-1", "/api/folders/99999999999999999999999",
    "/api/folders/..%2F..%2Fetc%2Fpasswd", "/api/folders/%2Fetc%2Fpasswd/levels", "/api/folders/0/..%2F..%2F",
    "/api/folders/tmp", "/api/nothing", "/static/..%2F..%2Fapp.py", "/static/%2e%2e/app.py",
    "/static/%2e%2e/%2e%2e/pyproject.toml", "/static//etc/passwd", "/api/folders/0/picture?position=..%2F..",
])
def test_hostile_paths_are_refused(client, path):
    response = client.get(path)
    assert 400 <= response.status_code < 500, (path, response.status_code)
    for leak in ("root:", "create_app", "[project]"):
        assert leak not in response.text
    problem(response, response.status_code)


def test_static_files_and_the_page(client):
    page = client.get("/")
    assert page.status_code == 200 and "app.js" in page.text
    for name in ("app.js", "style.css", "index.html"):
        assert client.get(f"/static/{name}").status_code == 200
    assert "http://" not in page.text and "https://" not in page.text  # nothing from elsewhere
    curves = page.text[page.text.index('<select name="curve"'):]
    assert re.findall(r"<option>([^<]+)</option>", curves[:curves.index("</select>")]) == list(CURVES)


def test_a_query_parameter_an_endpoint_does_not_take_is_named(client, triangle):
    position = ",".join(map(str, levels_of(triangle, count=1)[0].position))
    cases = (("get", "/api/folders/0/picture", {"position": position, "size": "200"}, "size"),
             ("get", "/api/folders", {"x": "1"}, "x"),
             ("post", "/api/folders/0/position", {"dry": "1"}, "dry"),
             ("get", "/api/packs", {"folder": "0"}, "folder"))
    for method, path, query, name in cases:
        given = {"json": {"position": [int(v) for v in position.split(",")]}} if method == "post" else {}
        said = problem(getattr(client, method)(path, params=query, **given))
        assert said == f"query.{name}: Extra inputs are not permitted", (path, said)
    assert client.get("/api/folders/0/picture", params={"position": position}).status_code == 200
    assert client.get("/", params={"v": "2"}).status_code == 200  # the page, outside the API


def test_openapi_documents_every_endpoint(client):
    document = client.get("/openapi.json").json()
    paths = document["paths"]
    for path in ("/api/folders", "/api/folders/{folder}", "/api/folders/{folder}/levels",
                 "/api/folders/{folder}/position", "/api/folders/{folder}/move",
                 "/api/folders/{folder}/picture", "/api/folders/{folder}/pack",
                 "/api/folders/{folder}/arrange", "/api/folders/{folder}/sliding/levels",
                 "/api/folders/{folder}/sliding/position", "/api/folders/{folder}/sliding/move",
                 "/api/folders/{folder}/sliding/pack"):
        assert path in paths, path
    schemas = document["components"]["schemas"]
    for model in ("Folder", "FolderDetail", "Selection", "LevelOut", "PositionReport", "MoveIn", "PackIn",
                  "Problem", "Arrangement", "CurveIn", "SlidingSelection", "SlidingLevelOut",
                  "SlidingReport", "SlidingMoveOut", "BoardIn", "BoardMoveIn", "SlidingPackIn",
                  "SlidingFigures", "BlockBoard"):
        assert model in schemas, model
    levels = {p["name"] for p in paths["/api/folders/{folder}/levels"]["get"]["parameters"]}
    assert {"solvable", "pieces", "must_include", "sample", "seed", "sort", "limit", "difficulty"} <= levels
    assert set(paths["/api/folders/{folder}/arrange"]) == {"post"}
    arrange = set(schemas["ArrangeIn"]["properties"])
    assert {"solvable", "pieces", "must_include", "size", "curve", "pool", "seed"} <= arrange
    assert not {"sample", "sort", "limit", "difficulty"} & arrange
    assert schemas["CurveName"]["enum"] == list(CURVES)
    sliding = {p["name"] for p in paths["/api/folders/{folder}/sliding/levels"]["get"]["parameters"]}
    assert sliding == {"folder", "distance", "unique", "all_moves", "cluster", "hardest", "sample", "seed",
                       "limit"}
    assert schemas["KindName"]["enum"] == ["layers", "distance", "sliding", "sokoban", "universe"]


# -- levels --------------------------------------------------------------------------------------


def test_levels_are_those_select_returns(client, triangle):
    query = {"solvable": "true", "unique": "false", "pieces": "6..8", "sample": 5, "seed": 7,
             "sort": "difficulty:desc", "must_exclude": "0,0"}
    found = client.get("/api/folders/0/levels", params=query).json()
    expected = triangle.selection(solvable=True, unique=False, pieces=(6, 8), sample=5, seed=7,
                                  sort="difficulty:desc", must_exclude=[(0, 0)])
    assert found["matched"] == expected.matched
    assert [level["position"] for level in found["levels"]] == [list(x.position) for x in expected.levels]
    first, reference = found["levels"][0], expected.levels[0].to_json()
    for key in ("layer", "rank", "solutions", "difficulty", "safe_moves", "solution", "class_size"):
        assert first[key] == reference[key], key


def test_typed_levels_take_counts(client, chess):
    found = client.get("/api/folders/2/levels", params={"counts": "R=1..2", "pieces": "3", "limit": 4}).json()
    assert found["levels"] and all(level["pieces"] == 3 for level in found["levels"])
    assert all("R" in "".join(level["board"]) for level in found["levels"])


@pytest.mark.parametrize("query, words", [
    ({"pieces": "x"}, "pieces must look like"),
    ({"pieces": "7..5"}, "larger"),
    ({"pieces": "1..3;rm -rf /"}, "pieces"),
    ({"sample": "0"}, "sample"),
    ({"sample": "many"}, "sample"),
    ({"limit": "-3"}, "limit"),
    ({"limit": "100000"}, "limit"),
    ({"seed": "4"}, "seed only applies with sample"),
    ({"sample": "3", "seed": "-1"}, "seed"),
    ({"solvable": "perhaps"}, "solvable"),
    ({"sort": "beauty"}, "sort"),
    ({"difficulty": "hard"}, "difficulty"),
    ({"must_include": "9,9", "limit": "2"}, "9"),
    ({"must_include": "../../etc/passwd"}, "must_include"),
    ({"counts": "K=1"}, "counts"),
    ({"path": "/etc/passwd"}, "path"),
    ({"pieces": "5" * 100}, "pieces"),
    ({"solvable": "true"}, "at most 200"),
    ({"limit": "1_0"}, "limit: Input should be a whole number written with the digits 0-9"),
    ({"sample": "\u0663"}, "sample: Input should be a whole number written with the digits 0-9"),
])
def test_bad_level_queries_get_one_line(client, query, words):
    assert words in problem(client.get("/api/folders/0/levels", params=query))


# -- arranged packs ------------------------------------------------------------------------------

ARRANGED = {"size": 4, "curve": "ease-in", "pool": 200, "seed": 1, "solvable": True, "pieces": "5..8"}
"""An arrangement request, and the same arguments to `LayeredResults.pack`:"""
ARRANGED_API = {"size": 4, "curve": "ease-in", "pool": 200, "seed": 1, "solvable": True, "pieces": (5, 8)}


def test_arranged_packs_are_those_pack_returns(client, triangle):
    found = client.post("/api/folders/0/arrange", json=ARRANGED).json()
    expected = triangle.pack(**ARRANGED_API)
    assert (found["curve"], found["pool"]) == ("ease-in", expected.pool) == ("ease-in", 200)
    assert [(x["layer"], x["rank"]) for x in found["levels"]] == [(x.layer, x.rank) for x in expected]
    assert [x["target"] for x in found["levels"]] == [slot.target for slot in expected.slots]
    assert [x["position"] for x in found["levels"]] == [list(x.position) for x in expected]
    assert [x["difficulty"] for x in found["levels"]] == [x.to_json()["difficulty"] for x in expected]
    other = client.post("/api/folders/0/arrange", json={**ARRANGED, "curve": "steps", "seed": 2}).json()
    assert [x["target"] for x in other["levels"]] == [s.target for s in triangle.pack(
        **{**ARRANGED_API, "curve": "steps", "seed": 2}).slots]


def test_typed_arrangements_take_counts(client, chess):
    found = client.post("/api/folders/2/arrange", json={"size": 3, "pool": 50, "counts": "R=1"}).json()
    expected = chess.pack(3, pool=50, counts={"R": (1, 1)})
    assert [(x["layer"], x["rank"]) for x in found["levels"]] == [(x.layer, x.rank) for x in expected]


@pytest.mark.parametrize("query, words", [
    ({"size": 0}, "size"),
    ({"size": 201}, "size"),
    ({"size": "many"}, "size"),
    ({"size": "3"}, "size: Input should be a valid integer"),
    ({"size": True}, "size: Input should be a valid integer"),
    ({"size": 3.0}, "size: Input should be a valid integer"),
    ({"size": 3, "pool": "100"}, "pool: Input should be a valid integer"),
    ({"size": 3, "seed": True}, "seed: Input should be a valid integer"),
    ({}, "size"),
    ({"size": 5, "pool": 3}, "size 5 is larger than pool 3"),
    ({"size": 40, "pool": 100, "pieces": "2"}, "larger than the pool of"),
    ({"size": 3, "pool": 0}, "pool"),
    ({"size": 3, "pool": 5001}, "pool"),
    ({"size": 3, "seed": -1}, "seed"),
    ({"size": 3, "curve": "zigzag"}, "curve"),
    ({"size": 3, "curve": "/etc/passwd"}, "curve"),
    ({"size": 3, "curve": "packs/fling-shipped.json"}, "curve"),
    ({"size": 3, "curve": "../../packs/fling-shipped.json"}, "curve"),
    ({"size": 3, "canonical": False}, "one level per class"),
    ({"size": 3, "canonical": "false"}, "canonical: Input should be a valid boolean"),
    ({"size": 3, "unique": "yes"}, "unique: Input should be a valid boolean"),
    ({"size": 3, "solvable": 1}, "solvable: Input should be a valid boolean"),
    ({"size": 3, "pieces": "x"}, "pieces must look like"),
    ({"size": 3, "sample": "3"}, "sample"),
    ({"size": 3, "difficulty": "1..3"}, "difficulty"),
    ({"size": 3, "sort": "difficulty"}, "sort"),
    ({"size": 3, "limit": "3"}, "limit"),
])
def test_bad_arrangements_get_one_line(client, query, words):
    assert words in problem(client.post("/api/folders/0/arrange", json=query))


def test_arranging_needs_a_folder_of_levels(client, eight):
    distances = workspace([eight.directory])
    assert "distance table" in problem(distances.post("/api/folders/0/arrange", json={"size": 3}))
    assert "no folder 3" in problem(client.post("/api/folders/3/arrange", json={"size": 3}), 404)


# -- positions and moves -------------------------------------------------------------------------


def test_position_report(client, triangle):
    level = levels_of(triangle, count=1)[0]
    report = client.post("/api/folders/0/position", json={"position": list(level.position)}).json()
    assert report["source"] == "stored" and report["solvable"] and not report["goal"]
    assert report["pieces"] == level.pieces and report["unique"] == level.unique
    expected = [{"from": list(o.move[0]), "to": list(o.move[1]), "safe": o.solvable}
                for o in triangle.moves(level.position)]
    assert report["moves"] == expected
    assert report["picture"].startswith("<svg") and report["picture"].count('class="piece"') == level.pieces


def test_playing_the_solution_reaches_the_goal(client, triangle):
    level = levels_of(triangle, count=1, seed=11)[0]
    position = list(level.position)
    for step, (a, b) in enumerate(level.solution):  # (row, col) cells
        move = {"from": list(a), "to": list(b)}
        report = client.post("/api/folders/0/move", json={"position": position, "move": move}).json()
        assert report["solvable"] and report["goal"] == (step == len(level.solution) - 1)
        position = report["position"]
    assert report["goal"] and report["pieces"] == 1 and report["moves"] == []


def test_an_unsafe_move_says_the_level_is_lost(client, triangle):
    level = next(x for x in levels_of(triangle, count=20) if x.safe_moves < x.legal_moves)
    wrong = next(o for o in triangle.moves(level.position) if not o.solvable)
    move = {"from": list(wrong.move[0]), "to": list(wrong.move[1])}
    report = client.post("/api/folders/0/move", json={"position": list(level.position), "move": move}).json()
    assert report["position"] == list(wrong.position) and not report["solvable"] and not report["goal"]


def test_above_the_stored_layers_the_answer_is_searched(client, triangle):
    level = levels_of(triangle, count=1, pieces=(STORED_UP_TO + 1, STORED_UP_TO + 1))[0]
    report = client.post("/api/folders/1/position", json={"position": list(level.position)}).json()
    assert report["source"] == "search" and report["solvable"] == level.solvable
    assert sum(m["safe"] for m in report["moves"]) == level.safe_moves
    full = [1] * 14 + [0]
    assert "up to" in problem(client.post("/api/folders/1/position", json={"position": full}))
    assert STORED_UP_TO + SEARCH_ABOVE < 14


@pytest.mark.parametrize("body", [
    {}, {"position": "0,1"}, {"position": [0] * 14}, {"position": [0] * 16}, {"position": [0] * 14 + [2]},
    {"position": [0] * 14 + [-1]}, {"position": [0] * 14 + ["1"]}, {"position": [0] * 14 + [1.5]},
    {"position": [0] * 14 + [True]}, {"position": [[0]] * 15}, {"position": [0] * 100000},
    {"position": [0] * 14 + [10**30]},
])
def test_bad_positions_get_one_line(client, body):
    problem(client.post("/api/folders/0/position", json=body))


def test_bad_requests_in_other_shapes(client):
    assert problem(client.post("/api/folders/0/position", content=b"{not json",
                               headers={"Content-Type": "application/json"}))
    assert problem(client.post("/api/folders/0/position", content=b"[]" * 10,
                               headers={"Content-Type": "application/json"}))
    assert problem(client.get("/api/folders/0/position"), 405)
    json_type = {"Content-Type": "application/json"}
    undecodable = client.post("/api/folders/0/position", content=b"\xff", headers=json_type)
    assert problem(undecodable) == "body (not JSON): not UTF-8 text"
    too_deep = client.post("/api/folders/0/position", content=b"[" * 100_000, headers=json_type)
    assert problem(too_deep) == "body (not JSON): nested too deeply"


def test_illegal_moves_are_refused(client, triangle):
    level = levels_of(triangle, count=1)[0]
    position = list(level.position)
    empty = next(cell for cell, v in zip(triangle.puzzle.board.cells, position) if not v)
    for move, words in [({"from": list(empty), "to": [0, 0]}, "not a legal move"),
                        ({"from": [9, 9], "to": [0, 0]}, "not on the board"),
                        ({"from": [0], "to": [0, 0]}, "move"),
                        ({"from": "a", "to": [0, 0]}, "move"),
                        ({"to": [0, 0]}, "move")]:
        assert words in problem(client.post("/api/folders/0/move", json={"position": position, "move": move}))


def test_pictures(client, triangle):
    level = levels_of(triangle, count=1)[0]
    response = client.get("/api/folders/0/picture", params={"position": ",".join(map(str, level.position))})
    assert response.status_code == 200 and response.headers["content-type"].startswith("image/svg+xml")
    assert response.text.count('class="piece"') == level.pieces
    for bad in ("", "1,2", "0," * 14 + "7", "x", "0,0,0/../../etc"):
        problem(client.get("/api/folders/0/picture", params={"position": bad}))


# -- packs ---------------------------------------------------------------------------------------


def test_pack_downloads_follow_the_order_given(client, triangle):
    levels = levels_of(triangle, count=3, seed=5)
    order = [levels[2], levels[0], levels[1]]
    body = {"positions": [list(level.position) for level in order]}
    response = client.post("/api/folders/0/pack", json=body)
    assert response.status_code == 200
    assert response.headers["content-disposition"] == 'attachment; filename="triangle-pack.json"'
    pack = response.json()
    jsonschema.validate(pack, PACK_SCHEMA)
    assert [(x["layer"], x["rank"]) for x in pack["levels"]] == [(x.layer, x.rank) for x in order]
    html = client.post("/api/folders/0/pack", params={"format": "html"}, json=body)
    assert html.status_code == 200 and html.headers["content-type"].startswith("text/html")
    assert html.text.count("<svg") == 3


@pytest.mark.parametrize("params, body", [
    ({"format": "csv"}, {"positions": [[0] * 14 + [1]]}),
    ({"format": "../../x"}, {"positions": [[0] * 14 + [1]]}),
    ({}, {"positions": []}),
    ({}, {"positions": [[0] * 14 + [1]] * 201}),
    ({}, {"positions": [[0] * 13]}),
    ({}, {"positions": [[0] * 14 + [3]]}),
    ({}, {"levels": [[0] * 14 + [1]]}),
])
def test_bad_packs_get_one_line(client, params, body):
    problem(client.post("/api/folders/0/pack", params=params, json=body))


def arranged_body(client):
    """The body that downloads the pack of ARRANGED with its curve."""
    found = client.post("/api/folders/0/arrange", json=ARRANGED).json()
    curve = {"name": found["curve"], "pool": found["pool"], "targets": [x["target"] for x in found["levels"]]}
    return {"positions": [x["position"] for x in found["levels"]], "curve": curve}


def test_arranged_pack_downloads_keep_the_curve(client, triangle):
    expected = triangle.pack(**ARRANGED_API)
    body = arranged_body(client)
    pack = client.post("/api/folders/0/pack", json=body).json()
    jsonschema.validate(pack, PACK_SCHEMA)
    assert pack["curve"] == expected.record().to_json()
    assert [(x["layer"], x["rank"]) for x in pack["levels"]] == [(x.layer, x.rank) for x in expected]
    html = client.post("/api/folders/0/pack", params={"format": "html"}, json=body).text
    assert html.count('<figure class="curve"') == 1 and "ease-in" in html
    plain = client.post("/api/folders/0/pack", json={"positions": body["positions"]}).json()
    assert "curve" not in plain


@pytest.mark.parametrize("change, words", [
    (lambda curve: curve.update(targets=curve["targets"][:-1]), "3 targets for 4 levels"),
    (lambda curve: curve.update(targets=curve["targets"] * 2), "8 targets for 4 levels"),
    (lambda curve: curve.update(targets=[]), "targets"),
    (lambda curve: curve.update(targets=[1, 2, 3, "NaN"]), "curve.targets.3"),  # text, not a number
    (lambda curve: curve.update(name="packs/fling-shipped.json"), "curve.name"),
    (lambda curve: curve.update(name="zigzag"), "curve.name"),
    (lambda curve: curve.update(pool=0), "curve.pool"),
    (lambda curve: curve.pop("targets"), "curve.targets"),
])
def test_bad_pack_curves_get_one_line(client, change, words):
    body = arranged_body(client)
    change(body["curve"])
    assert words in problem(client.post("/api/folders/0/pack", json=body))


def test_a_curve_takes_only_rated_levels(client):
    body = arranged_body(client)
    body["positions"][0] = [1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]  # two corners: not solvable
    assert "level 1 has no difficulty" in problem(client.post("/api/folders/0/pack", json=body))


# -- sliding-block tables ------------------------------------------------------------------------


def drawing(level):
    """A level's board as the play endpoints take it: rows joined by '/'."""
    return "/".join(level.board)


def cells_of(text):
    """The from/to cells of a move written 'V 2,0 -> 3,0'."""
    source, target = text[2:].split(" -> ")
    return {"from": [int(v) for v in source.split(",")], "to": [int(v) for v in target.split(",")]}


@pytest.mark.parametrize("query, keywords", [
    ({"hardest": "true", "limit": 5}, {"hardest": True, "limit": 5}),
    ({"distance": "30..40", "unique": "true", "sample": 4, "seed": 2},
     {"distance": (30, 40), "unique": True, "sample": 4, "seed": 2}),
    ({"distance": "30", "all_moves": "true", "cluster": "100..30000", "limit": 7},
     {"distance": (30, 30), "all_moves": True, "cluster": (100, 30_000), "limit": 7}),
    ({"hardest": "true", "cluster": "25955"}, {"hardest": True, "cluster": (25_955, 25_955)}),
])
def test_sliding_levels_are_those_select_returns(blocks, klotski, query, keywords):
    found = blocks.get("/api/folders/0/sliding/levels", params=query).json()
    expected = klotski.selection(**keywords)
    assert found["puzzle"] == "klotski" and found["matched"] == expected.matched > 0
    assert [level.pop("picture") for level in found["levels"]][0].startswith("<svg")
    assert found["levels"] == [level.to_json() for level in expected.levels]


def test_sliding_levels_have_their_pictures(blocks, klotski):
    found = blocks.get("/api/folders/0/sliding/levels", params={"hardest": "true", "limit": 2}).json()
    first = found["levels"][0]
    assert (first["distance"], first["cluster"]) == (klotski.summary()["max_distance"], 25_955)
    assert first["picture"].count('class="piece"') == 10  # one label per block
    assert "<?xml" not in first["picture"] and found["levels"][1]["picture"] != first["picture"]


def test_sliding_levels_are_capped(blocks, klotski):
    detail = problem(blocks.get("/api/folders/0/sliding/levels", params={"distance": "1..90"}))
    assert detail == (f"{klotski.count(distance=(1, 90)):,} levels match; at most 200 are returned at once "
                      "(add limit N or sample N)")
    found = blocks.get("/api/folders/0/sliding/levels", params={"distance": "1..90", "sample": 200}).json()
    assert len(found["levels"]) == 200 and found["matched"] == klotski.count(distance=(1, 90))


@pytest.mark.parametrize("query, words", [
    ({"distance": "x"}, "distance must look like"),
    ({"distance": "9..2"}, "9 is larger than 2"),
    ({"cluster": "big", "limit": 3}, "cluster must look like"),
    ({"seed": "4"}, "seed only applies with sample"),
    ({"sample": "0"}, "sample"),
    ({"limit": "201"}, "limit"),
    ({"hardest": "perhaps"}, "hardest"),
    ({"pieces": "3"}, "pieces"),
    ({"distance": "1" * 50}, "distance"),
])
def test_bad_sliding_queries_get_one_line(blocks, query, words):
    assert words in problem(blocks.get("/api/folders/0/sliding/levels", params=query))


def test_sliding_endpoints_need_sliding_tables(blocks):
    assert problem(blocks.get("/api/folders/1/sliding/levels")) == (
        "folder 1 (eight-puzzle) holds a distance table, not sliding-block tables or Sokoban tables")
    layered = blocks.post("/api/folders/2/sliding/position", json={"board": "x"})
    assert "holds layered results" in problem(layered)
    assert "no folder 3" in problem(blocks.get("/api/folders/3/sliding/levels"), 404)


def test_a_drawing_gets_its_report(blocks, klotski):
    start = klotski.solve(klotski.puzzle.start)
    report = blocks.post("/api/folders/0/sliding/position", json={"board": drawing(start)}).json()
    assert (report["distance"], report["cluster"], report["rank"]) == (81, 25_955, start.rank)
    assert report["solvable"] and not report["goal"] and report["solution"] == start.solution
    assert report["picture"].startswith("<svg") and report["picture"].count('class="piece"') == 10
    expected = klotski.moves(start.position)
    assert [(m["piece"], m["text"], m["distance"], m["closer"]) for m in report["moves"]] == [
        (m.piece, m.text, m.distance, m.closer) for m in expected]
    assert [(m["from"], m["to"]) for m in report["moves"]] == [
        (list(m.source), list(m.target)) for m in expected]
    assert {m["distance"] for m in report["moves"] if m["closer"]} == {80}
    assert report["moves"][0] == {"piece": "N", "from": [3, 1], "to": [4, 1], "text": "N 3,1 -> 4,1",
                                  "cost": 1, "distance": 80, "closer": True, "solvable": True}


def test_a_closer_move_lowers_the_distance_by_one(blocks, klotski):
    board = drawing(klotski.solve(klotski.puzzle.start))
    report = blocks.post("/api/folders/0/sliding/position", json={"board": board}).json()
    for closer in (True, False):
        move = next(m for m in report["moves"] if m["closer"] is closer)
        after = blocks.post("/api/folders/0/sliding/move",
                            json={"board": board, "move": {"from": move["from"], "to": move["to"]}}).json()
        assert after["distance"] == move["distance"] == (80 if closer else 81)
        level = klotski.solve("/".join(after["board"]))
        assert after["rank"] == level.rank and after["distance"] == level.distance


def test_playing_a_solution_reaches_the_goal(blocks, klotski):
    level = klotski.select(distance=6, unique=True, limit=1)[0]
    board = drawing(level)
    for step, text in enumerate(level.solution):
        body = {"board": board, "move": cells_of(text)}
        report = blocks.post("/api/folders/0/sliding/move", json=body).json()
        assert report["distance"] == level.distance - step - 1
        assert report["goal"] == (step == len(level.solution) - 1)
        board = "/".join(report["board"])
    assert report["goal"] and report["solution"] == [] and report["distance"] == 0


def test_a_lost_position_says_so(blocks, klotski):
    lost = klotski.puzzle.unrank(int(np.flatnonzero(klotski.distances == 0xFFFE)[0]))
    report = blocks.post("/api/folders/0/sliding/position", json={"board": klotski.puzzle.draw(lost)}).json()
    assert report["distance"] is None and not report["solvable"] and not report["goal"]
    assert report["moves"] and not any(m["solvable"] or m["closer"] for m in report["moves"])


@pytest.mark.parametrize("move, words", [
    ({"from": [0, 0], "to": [0, 1]}, "move 0,0 -> 0,1: not a legal move here"),
    ({"from": [4, 1], "to": [3, 1]}, "move 4,1 -> 3,1: not a legal move here"),
    ({"from": [3, 1], "to": [9, 9]}, "move 3,1 -> 9,9: cell 9,9 is not on the board"),
    ({"from": [3, 1]}, "move.to"),
    ({"from": "3,1", "to": [4, 1]}, "move.from"),
])
def test_illegal_sliding_moves_get_one_line(blocks, move, words):
    body = {"board": "VSSV/VSSV/VHHV/VNNV/N..N", "move": move}
    assert words in problem(blocks.post("/api/folders/0/sliding/move", json=body))


@pytest.mark.parametrize("board, words", [
    ("VSSV/VSSV/VHHV/VNNV", "board: the drawing's cells are not the puzzle's board (the board's cell at "
                            "row 4, column 0 is not drawn)"),
    ("VSSV//VSSV/VHHV/VNNV/N..N", "(row 5, column 0 is drawn as a cell the board does not have)"),
    ("VSSV/VSSV/VHHV/VNNV/NN.N", "pieces N drawn"),
    ("XSSV/VSSV/VHHV/VNNV/N..N", "'X' at row 0, column 0 is not a piece"),
    ("", "board"),
    ("V" * 1001, "board"),
])
def test_bad_drawings_get_one_line(blocks, board, words):
    assert words in problem(blocks.post("/api/folders/0/sliding/position", json={"board": board}))
    assert problem(blocks.post("/api/folders/0/sliding/position", json={"board": [board]}))


def test_sliding_pack_downloads_follow_the_order_given(blocks, klotski):
    levels = klotski.select(hardest=True, limit=3)
    order = [levels[2], levels[0], levels[1]]
    body = {"ranks": [level.rank for level in order]}
    response = blocks.post("/api/folders/0/sliding/pack", json=body)
    assert response.status_code == 200
    assert response.headers["content-disposition"] == 'attachment; filename="klotski-pack.json"'
    pack = response.json()
    expected = pack_dict(klotski.puzzle, order)
    assert pack["format"] == "curator-sliding-pack/1" == expected["format"]
    assert pack["puzzle"] == expected["puzzle"] and pack["levels"] == expected["levels"]
    assert [level["rank"] for level in pack["levels"]] == body["ranks"]
    html = blocks.post("/api/folders/0/sliding/pack", params={"format": "html"}, json=body)
    assert html.status_code == 200 and html.headers["content-type"].startswith("text/html")
    assert html.text.count('<article class="level"') == 3 and html.text.count("<svg") == 3
    assert html.headers["content-disposition"] == 'attachment; filename="klotski-pack.html"'


@pytest.mark.parametrize("params, body, words", [
    ({}, {"ranks": [5]}, "rank 5 is not a position"),
    ({}, {"ranks": [10**12]}, "out of range"),
    ({}, {"ranks": [-1]}, "rank must be at least 0"),
    ({}, {"ranks": []}, "ranks"),
    ({}, {"ranks": [0] * 201}, "ranks"),
    ({}, {"ranks": ["223085"]}, "ranks"),
    ({}, {"positions": [[0]]}, "ranks"),
    ({"format": "csv"}, {"ranks": [223085]}, "format"),
])
def test_bad_sliding_packs_get_one_line(blocks, params, body, words):
    assert words in problem(blocks.post("/api/folders/0/sliding/pack", params=params, json=body))


# -- damaged stores, bounded memory ------------------------------------------------------------------


def test_a_damaged_layer_is_an_error_naming_it(triangle, tmp_path):
    copy = tmp_path / "damaged"
    shutil.copytree(triangle.directory, copy)
    bits = copy / "k06.solvable.bits"
    data = bytearray(bits.read_bytes())
    data[:8] = bytes(255 - b for b in data[:8])
    bits.write_bytes(bytes(data))
    client = workspace([copy])
    level = levels_of(triangle, count=1, pieces=(6, 6))[0]
    for _ in range(2):  # the second time too: nothing wrong was kept
        detail = problem(client.post("/api/folders/0/position", json={"position": list(level.position)}), 500)
        assert "k06.solvable.bits" in detail and "damaged" in detail
    detail = problem(client.get("/api/folders/0/levels", params={"pieces": "6", "sample": 2}), 500)
    assert "k06.solvable.bits" in detail
    assert client.get("/api/folders/0").status_code == 200  # the layer table is the manifest's


def test_at_most_a_few_results_stay_open(triangle, tmp_path):
    copies = []
    for i in range(web_folders.OPEN_LIMIT + 2):
        copies.append(tmp_path / f"copy{i}")
        shutil.copytree(triangle.directory, copies[-1])
    app = create_app(copies, time_limit=UNBOUNDED)
    client = TestClient(app, base_url=LOCAL)
    for i in range(len(copies)):
        assert client.get(f"/api/folders/{i}").status_code == 200
    assert app.state.folders.opened == web_folders.OPEN_LIMIT


def test_memory_stays_bounded_over_many_requests(client, triangle):
    levels = levels_of(triangle, count=8, seed=2)

    def rounds(n):
        for i in range(n):
            level = levels[i % len(levels)]
            a, b = level.solution[0]  # (row, col) cells
            move = {"from": list(a), "to": list(b)}
            assert client.post("/api/folders/0/move", json={"position": list(level.position),
                                                            "move": move}).status_code == 200
            assert client.get("/api/folders/0/levels", params={"pieces": "x"}).status_code == 422

    rounds(30)
    tracemalloc.start()
    gc.collect()
    before = tracemalloc.get_traced_memory()[0]
    rounds(75)
    gc.collect()
    grown = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    assert grown < 50_000, grown  # about 14 KB measured (the re module's cache); 150 requests, so
    # a leak of 250 bytes a request would fail


# -- the command ---------------------------------------------------------------------------------


def test_serve_help_is_complete():
    result = invoke("serve", "--help")
    assert result.exit_code == 0
    for words in ("--host", "--port", "127.0.0.1", "8000", "DIR", "openapi.json"):
        assert words in result.stdout, words


def test_serve_refuses_a_folder_without_results(tmp_path):
    result = invoke("serve", tmp_path)
    assert result.exit_code == 2
    assert "no manifest.json" in error_line(result.stderr)


def test_serve_listens_on_this_machine_unless_told(triangle, monkeypatch):
    calls = fake_serving(monkeypatch)
    assert invoke("serve", triangle.directory).exit_code == 0
    assert invoke("serve", triangle.directory, "--host", "0.0.0.0", "--port", "9001").exit_code == 0
    assert [(host, port) for host, port, _ in calls] == [("127.0.0.1", 8000), ("0.0.0.0", 9001)]
    assert TestClient(calls[0][2], base_url=LOCAL).get("/api/folders").json()[0]["puzzle"] == "triangle"
    assert invoke("serve", triangle.directory, "--port", "70000").exit_code == 2


def test_serve_runs_each_folders_first_listing_before_it_listens(klotski, eight, triangle, monkeypatch):
    # so that compiling the code that rates items (once after an install: a minute) never
    # happens inside a request, which may take 20 s
    warmed, kinds = [], []
    for kind in {type(curator.catalogue.kind_for(r)) for r in (klotski, eight, triangle)}:
        real = kind.warm
        monkeypatch.setattr(kind, "warm", lambda self, results, real=real: (
            warmed.append(results.kind), kinds.append(real(self, results))))
    calls = fake_serving(monkeypatch)
    result = invoke("serve", klotski.directory, eight.directory, triangle.directory)
    assert result.exit_code == 0 and len(calls) == 1
    assert warmed == ["sliding", "distance", "layers"] and kinds == [None] * 3


def test_warming_layered_results_lists_variants_as_the_editor_does(triangle, monkeypatch):
    kind = curator.catalogue.kind_for(triangle)
    asked = []
    real = type(kind).variants
    monkeypatch.setattr(type(kind), "variants", lambda self, results, position, want, limit, *rest: (
        asked.append((len(position), want, limit)), real(self, results, position, want, limit, *rest))[1])
    kind.warm(triangle)
    assert asked == [(triangle.puzzle.board.size, "unique", 1)]


# -- tilt and Lunar Lockout in the sliding view ------------------------------------------------

@pytest.fixture(scope="module")
def tilting(base):
    tilt = curator.analyze(ROOT / "puzzles" / "tilt.toml", output=base / "tilt", workers=1)
    lunar = curator.analyze(ROOT / "puzzles" / "lunar-lockout.toml", output=base / "lunar", workers=1)
    return workspace([tilt.directory, lunar.directory]), tilt


def test_sliding_tilts_are_played_by_direction(tilting):
    client, tilt = tilting
    blocks = client.get("/api/folders/0").json()["blocks"]
    assert (blocks["move"], blocks["exits"], blocks["out"], blocks["keep"], blocks["goal_piece"]) == (
        "tilt", [[2, 2]], ["G"], ["B"], None)
    board = blocks["start"]
    report = client.post("/api/folders/0/sliding/position", json={"board": board}).json()
    assert report["distance"] == 14 and 'class="hole"' in report["picture"]
    assert [(m["direction"], m["from"], m["text"], m["closer"]) for m in report["moves"]] == [
        ("right", None, "tilt right", False), ("left", None, "tilt left", True)]
    for text in tilt.solve(board).solution:
        body = {"board": board, "tilt": text.split()[1]}
        report = client.post("/api/folders/0/sliding/move", json=body).json()
        board = "/".join(report["board"])
    assert report["goal"] and report["distance"] == 0
    down = {"board": blocks["start"], "tilt": "down"}
    lost = problem(client.post("/api/folders/0/sliding/move", json=down))
    assert lost == "tilt down: not a move here (nothing moves, or a piece that must stay would drop out)"
    both = {"board": blocks["start"], "tilt": "left", "move": {"from": [0, 0], "to": [0, 1]}}
    assert "one of them" in problem(client.post("/api/folders/0/sliding/move", json=both))


def test_lunar_lockout_edge_is_shown(tilting):
    client, _ = tilting
    blocks = client.get("/api/folders/1").json()["blocks"]
    assert (blocks["edge"], blocks["rules"]) == ("falls", "until_blocked moves, edge falls, line metric")
    report = client.post("/api/folders/1/sliding/position", json={"board": blocks["start"]}).json()
    assert report["distance"] == 4 and report["solution"][0] == "X 4,4 -> 1,4"
    assert "tilt" in problem(client.post("/api/folders/1/sliding/move",
                                         json={"board": blocks["start"], "tilt": "up"}))
