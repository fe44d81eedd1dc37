"""The editor's endpoints through FastAPI's test client: `level` (every figure of a drawn
layered position, given as cells or as a drawing) and `variants` (of layered, sliding-block
and distance folders), against the Python API; bad requests are one line, never a 500."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient

import curator
from curator.web.app import create_app
from tests.test_distance import SLIDING_2X3
from tests.test_sliding import SPECS, toml_text

ROOT = Path(__file__).resolve().parent.parent
LOCAL = "http://127.0.0.1:8000"
START = "    ./   o o/  o o o/ o o o o/o o o o o"


@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    base = tmp_path_factory.mktemp("editor-api")
    triangle = curator.analyze(ROOT / "puzzles" / "triangle.toml", output=base / "partial", max_pieces=8,
                               workers=1)
    spec = SPECS["ell"]
    (base / "ell.toml").write_text(toml_text(spec, spec.move, spec.metric))
    ell = curator.analyze(base / "ell.toml", output=base / "ell", workers=1)
    (base / "tiles.toml").write_text(SLIDING_2X3)
    tiles = curator.analyze(base / "tiles.toml", output=base / "tiles", workers=1)
    return triangle, ell, tiles


@pytest.fixture(scope="module")
def client(folders):
    return TestClient(create_app([f.directory for f in folders]), base_url=LOCAL)


def test_level_of_a_drawn_position(client, folders):
    triangle = folders[0]
    position = list(triangle.position("    ./   o o/  . o ./ . o o ./. . o . ."))
    for body in ({"position": position}, {"board": "    ./   o o/  . o ./ . o o ./. . o . ."}):
        answer = client.post("/api/folders/0/level", json=body)
        assert answer.status_code == 200, answer.text
        level = answer.json()
        expected = triangle.solve(position)
        assert level["position"] == position and level["solutions"] == expected.solutions
        assert level["difficulty"] == expected.to_json()["difficulty"] and "<svg" in level["picture"]
        assert level["goal"] is False and level["win_chance"] == expected.to_json()["win_chance"]
    above = client.post("/api/folders/0/level", json={"board": "    ./   o o/  o o o/ o o o o/o . o o o"})
    assert above.status_code == 422 and "up to 10" in above.json()["detail"]
    for body, line in [({}, "one of them"), ({"position": position, "board": "x"}, "one of them"),
                       ({"position": [3] * 15}, "position entries"), ({"board": "oo"}, "board")]:
        bad = client.post("/api/folders/0/level", json=body)
        assert bad.status_code == 422 and line in bad.json()["detail"], bad.text
    sliding = client.post("/api/folders/1/level", json={"position": position})
    assert sliding.status_code == 422 and "sliding/" in sliding.json()["detail"]


def test_variants_of_each_kind(client, folders):
    triangle, ell, tiles = folders
    position = list(triangle.position("    ./   o o/  . o ./ . o o ./. . o . ."))
    body = {"position": position, "want": "solvable", "limit": 4}
    answer = client.post("/api/folders/0/variants", json=body)
    assert answer.status_code == 200, answer.text
    found = answer.json()
    expected = triangle.variation(position, "solvable", 4)
    assert (found["considered"], found["matched"]) == (expected.considered, expected.matched)
    assert [v["edit"]["text"] for v in found["variants"]] == [v.edit.text for v in expected.variants]
    assert [v["position"] for v in found["variants"]] == [list(v.position) for v in expected.variants]
    assert found["position"]["solutions"] == expected.base.solutions

    drawing = ell.puzzle.draw(ell.select(limit=1)[0].position)
    body = {"board": drawing.replace("\n", "/"), "want": "solvable"}
    answer = client.post("/api/folders/1/variants", json=body)
    assert answer.status_code == 200, answer.text
    expected = ell.variation(drawing, "solvable")
    got = answer.json()["variants"]
    assert [v["rank"] for v in got] == [v.item.rank for v in expected.variants]
    assert all("<svg" in v["picture"] and v["edit"]["action"] == "move" for v in got)

    for folder, body, line in [
            (2, {"board": "tiles x", "want": "harder"}, "board: 'tiles x' is not a set's name and whole"),
            (2, {"position": [0], "want": "solvable"}, "board: give the position as 'SET p0 p1 ..."),
            (2, {"board": "tiles 0 1 2 3 4 5", "want": "unique"}, "want: a distance table list solvable, "),
            (0, {"board": "x"}, "position: give the position"),
            (1, {"position": [0]}, "board: give the position as a drawing"),
            (0, {"position": position, "want": "easier"}, "want"),
            (0, {"position": position, "limit": 0}, "limit"),
            (0, {"position": position, "limit": "2"}, "limit: Input should be a valid integer"),
            (0, {"position": position, "limit": True}, "limit: Input should be a valid integer"),
            (1, {"board": "LL./.L./..B"}, "board")]:
        bad = client.post(f"/api/folders/{folder}/variants", json=body)
        assert bad.status_code == 422 and line in bad.json()["detail"], bad.text


def test_states_of_a_distance_table(client, folders):
    tiles = folders[2]
    detail = client.get("/api/folders/2").json()["states"]
    assert detail == {"sets": [{"name": "tiles", "count": 6, "orientations": 1, "zero_sum": False,
                                "layout": None, "mover": 5, "stickers": False}],
                      "moves": ["up", "down", "left", "right"], "metric": "quarter",
                      "solved": "tiles 0 1 2 3 4 5", "wants": ["solvable", "harder"]}
    far = tiles.select(distance=(3, 3), limit=1)[0]
    line = " ".join(["tiles", *map(str, far.state[0][0])])
    answer = client.post("/api/folders/2/distance/position", json={"board": line})
    assert answer.status_code == 200, answer.text
    report = answer.json()
    assert (report["rank"], report["distance"], report["solution"]) == (far.rank, 3, far.solution)
    assert report["board"] == line and report["solvable"] and not report["goal"] and report["unique"] is None
    assert "<svg" in report["picture"] and 'data-cell="0"' in report["picture"]
    legal = [name for name in tiles.puzzle.move_names if _legal(tiles.puzzle, far.state, name)]
    assert [m["name"] for m in report["moves"]] == legal
    for move in report["moves"]:
        after = tiles.solve(tiles.puzzle.parse(move["board"]))
        assert move["distance"] == after.distance and move["closer"] == (after.distance == 2)
    assert any(m["closer"] and m["name"] == far.solution[0] for m in report["moves"])
    solved = client.post("/api/folders/2/distance/position", json={"board": "tiles 0 1 2 3 4 5"}).json()
    assert solved["goal"] and solved["distance"] == 0 and solved["solution"] == []

    found = client.post("/api/folders/2/variants", json={"board": line, "want": "harder", "limit": 3}).json()
    expected = tiles.variation(line, "harder", 3)
    assert (found["considered"], found["matched"]) == (expected.considered, expected.matched)
    assert [(v["edit"]["text"], v["distance"]) for v in found["variants"]] == [
        (v.edit.text, v.item.distance) for v in expected.variants]
    assert all(tiles.puzzle.parse(v["board"]) == e.item.state and "<svg" in v["picture"]
               for v, e in zip(found["variants"], expected.variants))

    for folder, body, line in [(2, {"board": "tiles 0 1 2 3 4 4"}, "board: not a state of sliding-2x3"),
                               (2, {"board": "blocks 0 1"}, "give every piece set once"),
                               (2, {"board": "tiles 0 1 2 3 4 5; tiles 1 0 2 3 4 5"}, "tiles is given twice"),
                               (2, {"board": ";" * 999}, "board: a part between ';' names no piece set"),
                               (1, {"board": "tiles 0 1 2 3 4 5"}, "not a distance table")]:
        bad = client.post(f"/api/folders/{folder}/distance/position", json=body)
        assert bad.status_code == 422 and line in bad.json()["detail"], bad.text


def _legal(puzzle, state, name):
    try:
        puzzle.apply(state, name)
    except ValueError:
        return False
    return True
