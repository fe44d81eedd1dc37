"""The workspace's database through its JSON API (FastAPI's test client): named packs, notes
and tags, playtests; kept across apps on one database file; packs whose results folder is
gone are reported; bad requests are one line; the guard covers these endpoints too.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

import curator
from curator.common.errors import SearchTooLarge
from curator.layered.kind import LayeredKind
from curator.web.app import create_app
from curator.workspace_db import WorkspaceDB

ROOT = Path(__file__).resolve().parent.parent
LOCAL = "http://127.0.0.1:8000"
JSON = {"Content-Type": "application/json"}
TINY_SLIDE = '''name = "tiny-slide"
title = "Tiny slide"

[board]
art = """
S..
.B.
"""

[rules]
family = "slide"
move = "step"

[pieces.S]

[pieces.B]

[goal]
piece = "S"
cells = [[1, 2]]
'''


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    return tmp_path_factory.mktemp("kept")


@pytest.fixture(scope="module")
def triangle(base):
    return curator.analyze(ROOT / "puzzles" / "triangle.toml", output=base / "triangle", max_pieces=6,
                           workers=1)


@pytest.fixture(scope="module")
def slide(base):
    path = base / "tiny.toml"
    path.write_text(TINY_SLIDE)
    return curator.analyze(path, output=base / "tiny", workers=1)


def client_on(directories, db_path=None) -> TestClient:
    db = None if db_path is None else WorkspaceDB(db_path)
    return TestClient(create_app(directories, db=db), base_url=LOCAL)


@pytest.fixture
def client(triangle, slide):
    return client_on([triangle.directory, slide.directory])


def keys(client, count=3) -> list[str]:
    levels = client.get("/api/folders/0/levels", params={"unique": "true", "sample": count, "seed": 1}).json()
    return [",".join(map(str, level["position"])) for level in levels["levels"]]


def test_named_packs_are_made_filled_reordered_and_renamed(client):
    a, b, c = keys(client)
    easy = client.post("/api/folders/0/packs", json={"name": "easy"}).json()
    assert (easy["name"], easy["puzzle"], easy["folder"], easy["levels"], easy["problem"]) == (
        "easy", "triangle", 0, [], None)
    for key in (a, b):
        added = client.post(f"/api/packs/{easy['id']}/levels", json={"level": key, "data": {"rank": 1}})
        added.raise_for_status()
    pack = client.post(f"/api/packs/{easy['id']}/levels", json={"level": c, "at": 0}).json()
    assert [item["level"] for item in pack["levels"]] == [c, a, b]
    pack = client.post(f"/api/packs/{easy['id']}/move", json={"from": 0, "to": 2}).json()
    assert [item["level"] for item in pack["levels"]] == [a, b, c]
    pack = client.delete(f"/api/packs/{easy['id']}/levels/1", headers=JSON).json()
    assert [item["level"] for item in pack["levels"]] == [a, c]
    assert pack["levels"][0]["data"] == {"rank": 1}
    hard = client.post("/api/folders/0/packs", json={"name": "hard"}).json()
    pack = client.put(f"/api/packs/{hard['id']}/levels", json={
        "levels": [{"level": b}, {"level": a}],
        "curve": {"name": "linear", "pool": 9, "targets": [1, 2]}}).json()
    assert pack["curve"]["targets"] == [1, 2]
    assert client.patch(f"/api/packs/{hard['id']}", json={"name": "harder"}).json()["name"] == "harder"
    assert [p["name"] for p in client.get("/api/folders/0/packs").json()] == ["easy", "harder"]
    assert client.get("/api/folders/1/packs").json() == []
    assert client.delete(f"/api/packs/{hard['id']}", headers=JSON).json() == {"deleted": hard["id"]}
    assert [p["name"] for p in client.get("/api/packs").json()] == ["easy"]


def test_level_keys_are_checked_and_written_one_way(client, slide):
    pack = client.post("/api/folders/1/packs", json={"name": "slides"}).json()
    drawing = "/".join(slide.select(limit=1)[0].board)
    stored = client.post(f"/api/packs/{pack['id']}/levels", json={"level": drawing.replace("/", "\n")}).json()
    assert stored["levels"][0]["level"] == drawing
    for folder, level in ((1, "S../SB."), (0, "1,2,3"), (0, "a,b"), (0, "9," * 14 + "9")):
        target = client.post(f"/api/folders/{folder}/packs", json={"name": f"p{folder}{level[:3]}"}).json()
        answer = client.post(f"/api/packs/{target['id']}/levels", json={"level": level})
        assert answer.status_code == 422
        assert answer.json()["detail"].startswith("level: ") and "\n" not in answer.json()["detail"]


@pytest.mark.parametrize(("method", "path", "body", "status", "words"), [
    ("post", "/api/folders/0/packs", {"name": ""}, 422, "name"),
    ("post", "/api/folders/0/packs", {"name": "x", "extra": 1}, 422, "extra"),
    ("post", "/api/folders/0/packs", [1], 422, "body: Input should be a valid dictionary"),
    ("post", "/api/folders/9/packs", {"name": "x"}, 404, "no folder 9"),
    ("get", "/api/packs/77", None, 404, "no pack 77"),
    ("patch", "/api/packs/77", {"name": "y"}, 404, "no pack 77"),
    ("post", "/api/packs/77/move", {"from": 0, "to": 1}, 404, "no pack 77"),
    ("post", "/api/folders/0/playtests", {"level": "0", "seconds": -1, "moves": 1, "moves_at_end": 0,
                                          "solved": True}, 422, "seconds"),
    ("put", "/api/folders/0/notes", {"level": "0", "tags": ["x"] * 30}, 422, "tags"),
    ("get", "/api/packs/-99999999999999999999999", None, 422, "pack"),
    ("delete", "/api/packs/-1", {}, 422, "pack"),
    ("get", "/api/packs/1_6", None, 422, "pack: Input should be a whole number written with the digits 0-9"),
    ("get", "/api/folders/0_0/packs", None, 422, "folder: Input should be a whole number written with"),
])
def test_bad_requests_are_one_line(client, method, path, body, status, words):
    answer = client.request(method.upper(), path, json=body) if body is not None else client.get(path)
    assert answer.status_code == status
    detail = answer.json()["detail"]
    assert words in detail and "\n" not in detail


def test_a_pack_keeps_only_json_it_can_give_back(client):
    (a,) = keys(client, 1)
    pack = client.post("/api/folders/0/packs", json={"name": "kept"}).json()
    bogus = {"name": "bogus", "pool": -5, "targets": ["x"]}
    linear = {"name": "linear", "pool": 5, "targets": [1]}
    deep: dict = {}
    for _ in range(300):
        deep = {"a": deep}
    for method, path, body, words in (
            ("POST", "levels", {"level": a, "data": deep}, "data: nested at most 32 deep"),
            ("PUT", "levels", {"levels": [], "curve": deep}, "curve"),
            ("PUT", "levels", {"levels": [{"level": a}], "curve": bogus}, "curve"),
            ("PUT", "levels", {"levels": [{"level": a}], "curve": {**linear, "extra": 1}}, "extra"),
            ("PUT", "levels", {"levels": [{"level": a}], "curve": {**linear, "targets": [1, 2, 3]}},
             "curve: 3 targets for 1 levels (one per level)"),
            ("PUT", "levels", {"levels": [], "curve": linear}, "curve: 1 targets for 0 levels"),
            ("PUT", "levels", {"levels": [{"level": "1" + ",0" * 13 + ",1"}], "curve": linear},
             "curve: level 1 cannot be solved")):
        answer = client.request(method, f"/api/packs/{pack['id']}/{path}", json=body)
        assert answer.status_code == 422 and words in answer.json()["detail"], answer.text
    lone = (("POST", "levels", f'{{"level": "{a}", "data": {{"a": "\\ud800"}}}}'),
            ("PUT", "levels", f'{{"levels": [{{"level": "{a}", "data": {{"\\udc00": 1}}}}]}}'))
    for method, path, text in lone:
        answer = client.request(method, f"/api/packs/{pack['id']}/{path}", headers=JSON, content=text)
        assert answer.status_code == 422 and "data: not Unicode text" in answer.json()["detail"], answer.text
    nan = client.put(f"/api/packs/{pack['id']}/levels", headers=JSON,
                     content=f'{{"levels": [{{"level": "{a}"}}], "curve": {{"name": "linear", "pool": 2, '
                             '"targets": [NaN]}}')
    assert nan.status_code == 422, nan.text
    assert client.get(f"/api/packs/{pack['id']}").json()["levels"] == []
    assert client.get("/api/packs").status_code == 200


def test_a_misspelt_key_is_named_not_ignored(client):
    (a,) = keys(client, 1)
    position = [int(v) for v in a.split(",")]
    for path, body in (("/api/folders/0/variants", {"position": position, "wants": "harder"}),
                       ("/api/folders/0/level", {"position": position, "bord": "o"}),
                       ("/api/folders/1/sliding/pack", {"ranks": [0], "curve": {}})):
        answer = client.post(path, json=body)
        assert answer.status_code == 422, answer.text
        assert next(iter(set(body) - {"position", "ranks"})) in answer.json()["detail"]


def test_text_and_truth_values_are_not_numbers_here(client):
    (a,) = keys(client, 1)
    play = {"level": a, "seconds": 3, "moves": 2, "moves_at_end": 1, "solved": True}
    assert client.post("/api/folders/0/playtests", json=play).status_code == 200
    for field, value in (("seconds", "1e3"), ("solved", "on"), ("solved", 1)):
        answer = client.post("/api/folders/0/playtests", json={**play, field: value})
        assert answer.status_code == 422 and field in answer.json()["detail"], answer.text
    position = [int(v) for v in a.split(",")]
    text_cell = {"from": ["1", "0"], "to": [0, 0]}
    moved = client.post("/api/folders/0/move", json={"position": position, "move": text_cell})
    assert moved.status_code == 422 and "from" in moved.json()["detail"], moved.text


def test_taken_names_and_slots_out_of_range(client):
    pack = client.post("/api/folders/0/packs", json={"name": "only"}).json()
    again = client.post("/api/folders/0/packs", json={"name": " only "})
    assert again.status_code == 422 and "already called 'only'" in again.json()["detail"]
    moved = client.post(f"/api/packs/{pack['id']}/move", json={"from": 0, "to": 0})
    assert moved.status_code == 422 and moved.json()["detail"] == "from: the pack is empty"


def test_the_guard_covers_these_endpoints(client):
    assert client.post("/api/folders/0/packs", content=b'{"name": "x"}',
                       headers={"Content-Type": "text/plain"}).status_code == 415
    assert client.post("/api/folders/0/packs", json={"name": "x"},
                       headers={"Origin": "http://evil.example"}).status_code == 403
    assert client.delete("/api/packs/1").status_code == 415
    assert client.get("/api/packs", headers={"Sec-Fetch-Site": "cross-site"}).status_code == 403
    assert client.get("/api/packs", headers={"Host": "evil.example"}).status_code == 421


def test_notes_and_playtests(client):
    a, b = keys(client, 2)
    body = {"level": a, "note": "good opener", "tags": ["intro"]}
    note = client.put("/api/folders/0/notes", json=body).json()
    assert (note["note"], note["tags"]) == ("good opener", ["intro"])
    assert [(n["level"], n["tags"]) for n in client.get("/api/folders/0/notes").json()] == [(a, ["intro"])]
    plays = [(a, 30.0, True), (a, 10.0, True), (a, 5.0, False), (b, 8.0, False)]
    for level, seconds, solved in plays:
        recorded = client.post("/api/folders/0/playtests", json={
            "level": level, "seconds": seconds, "moves": 4, "moves_at_end": 3, "undos": 1, "hints": 2,
            "solved": solved}).json()
        assert recorded["level"] == level and recorded["solved"] is solved
    figures = {f["level"]: f for f in client.get("/api/folders/0/playtests").json()["levels"]}
    assert (figures[a]["plays"], figures[a]["gave_up"], figures[a]["median_seconds"]) == (3, 1, 20.0)
    assert figures[a]["give_up_rate"] == pytest.approx(1 / 3)
    assert (figures[b]["plays"], figures[b]["median_seconds"], figures[b]["give_up_rate"]) == (1, None, 1.0)
    assert client.get("/api/folders/1/playtests").json() == {"puzzle": "tiny-slide", "levels": []}


STUCK = ",".join(["1"] + ["0"] * 13 + ["1"])
"""Two corners of the triangle: no jump is left, so the level cannot be solved."""
SOLVED_STUCK = {"level": STUCK, "seconds": 9, "moves": 0, "moves_at_end": 0, "solved": True}
"""A play said to have solved it."""


def test_a_play_cannot_have_solved_a_level_that_cannot_be_solved(client, slide):
    stuck, play = STUCK, SOLVED_STUCK
    answer = client.post("/api/folders/0/playtests", json=play)
    assert answer.status_code == 422
    assert answer.json()["detail"] == f"solved: level {stuck} cannot be solved, so no play of it solved it"
    assert client.post("/api/folders/0/playtests", json={**play, "solved": False}).status_code == 200
    drawing = "/".join(slide.select(limit=1)[0].board)  # a level of the sliding-block tables
    assert client.post("/api/folders/1/playtests", json={**play, "level": drawing}).status_code == 200
    figures = {f["level"]: f for f in client.get("/api/folders/0/playtests").json()["levels"]}
    assert (figures[stuck]["plays"], figures[stuck]["solved"]) == (1, 0)


def test_a_solved_play_is_kept_where_telling_would_pass_the_search_bound(client, monkeypatch):
    def too_large(self, results, key):
        raise SearchTooLarge("the search would pass 1 position above the stored layers", 9)

    monkeypatch.setattr(LayeredKind, "solvable", too_large)
    assert client.post("/api/folders/0/playtests", json=SOLVED_STUCK).status_code == 200


def test_packs_last_across_apps_and_a_folder_gone_is_reported(triangle, slide, tmp_path):
    db_path = tmp_path / "kept.sqlite"
    copy = tmp_path / "triangle-copy"
    shutil.copytree(triangle.directory, copy)
    first = client_on([copy, slide.directory], db_path)
    (a,) = keys(first, 1)
    for name in ("one", "two"):
        pack = first.post("/api/folders/0/packs", json={"name": name}).json()
        first.post(f"/api/packs/{pack['id']}/levels", json={"level": a}).raise_for_status()
    first.post("/api/folders/0/playtests", json={"level": a, "seconds": 3, "moves": 5, "moves_at_end": 5,
                                                 "solved": True}).raise_for_status()
    first.app.state.db.close()

    again = client_on([slide.directory, copy], db_path)  # the folder is 1 now, the packs the same
    packs = again.get("/api/folders/1/packs").json()
    assert [(p["name"], p["folder"], [i["level"] for i in p["levels"]]) for p in packs] == [
        ("one", 1, [a]), ("two", 1, [a])]
    assert again.get("/api/folders/1/playtests").json()["levels"][0]["plays"] == 1
    again.app.state.db.close()

    shutil.rmtree(copy)
    gone = client_on([slide.directory], db_path)
    listed = gone.get("/api/packs").json()
    assert [(p["name"], p["folder"]) for p in listed] == [("one", None), ("two", None)]
    assert "no folder served here holds the puzzle file of this pack (triangle" in listed[0]["problem"]
    for method, path, body in (("POST", "levels", {"level": a}), ("DELETE", "levels/0", {}),
                               ("POST", "move", {"from": 0, "to": 0})):
        refused = gone.request(method, f"/api/packs/{listed[0]['id']}/{path}", json=body)
        assert refused.status_code == 422
        assert "can be renamed or deleted, not changed" in refused.json()["detail"]
    assert [i["level"] for i in gone.get(f"/api/packs/{listed[0]['id']}").json()["levels"]] == [a]
    assert gone.patch(f"/api/packs/{listed[0]['id']}", json={"name": "old one"}).status_code == 200
    gone.app.state.db.close()


def test_another_version_of_the_puzzle_file_is_named(triangle, tmp_path):
    db_path = tmp_path / "kept.sqlite"
    first = client_on([triangle.directory], db_path)
    first.post("/api/folders/0/packs", json={"name": "mine"}).raise_for_status()
    first.app.state.db.close()
    changed = tmp_path / "triangle.toml"
    changed.write_text((ROOT / "puzzles" / "triangle.toml").read_text() + "\n# a changed copy\n")
    other = curator.analyze(changed, output=tmp_path / "triangle-2", max_pieces=3, workers=1)
    later = client_on([other.directory], db_path)
    (pack,) = later.get("/api/packs").json()
    assert pack["folder"] is None
    assert pack["problem"].endswith("folder 0 (triangle) holds another version of triangle")
    assert later.get("/api/folders/0/packs").json() == []
    later.app.state.db.close()


def test_a_pack_whose_folder_is_damaged_names_the_damage(triangle, tmp_path):
    copy = tmp_path / "triangle"
    shutil.copytree(triangle.directory, copy)
    served = client_on([copy], tmp_path / "kept.sqlite")
    served.post("/api/folders/0/packs", json={"name": "mine"}).raise_for_status()
    manifest = copy / "manifest.json"
    manifest.write_text(manifest.read_text()[:60])  # cut short, as by a full disk
    (pack,) = served.get("/api/packs").json()
    assert pack["folder"] is None
    assert pack["problem"].startswith("folder 0 (triangle) cannot be read now (")
    assert "manifest.json" in pack["problem"] and str(tmp_path) not in pack["problem"]
    served.app.state.db.close()


def test_every_drawing_of_one_sokoban_position_is_one_level(base):
    path = base / "room.toml"
    path.write_text('name = "room"\n[board]\nxsb = """\n######\n#@   #\n# $. #\n######\n"""\n'
                    '[rules]\nfamily = "push"\nmetric = "pushes"\n')
    room = curator.analyze(path, output=base / "room", workers=1)
    client = client_on([room.directory])
    # under the pushes metric a position is the boxes and the keeper's region, not its cell
    drawn = ["######/#@   #/# $. #/######", "######/#   @#/# $. #/######", "######/#    #/#@$. #/######"]
    levels = [client.put("/api/folders/0/notes", json={"level": board, "note": f"note {i}"}).json()["level"]
              for i, board in enumerate(drawn)]
    assert levels == ["######/#@---#/#-$.-#/######"] * 3
    notes = client.get("/api/folders/0/notes").json()
    assert [(n["level"], n["note"]) for n in notes] == [(levels[0], "note 2")]
