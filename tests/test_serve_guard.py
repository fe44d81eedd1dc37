"""The workspace against a hostile web: only its own Host names are answered (DNS
rebinding), requests that compute come from its own page as JSON, a long request answers 503
instead of holding up other folders or the folder list, answers never show where the folders
are, and a file changed under an open folder is noticed before its results are trusted.
"""

from __future__ import annotations

import shutil
import threading
import time
from pathlib import Path

import pytest
from cli_helpers import error_line, invoke
from fastapi.testclient import TestClient

import curator
from curator.web.app import create_app
from curator.web.folders import fingerprint
from curator.web.guard import hosts_for
from tests.served import fake_serving

ROOT = Path(__file__).resolve().parent.parent
LOCAL = "http://127.0.0.1:8000"


def client_of(directories, base_url=LOCAL, **options) -> TestClient:
    return TestClient(create_app(directories, **options), base_url=base_url)


def problem(response, status):
    """The one-line JSON error of a refused request."""
    assert response.status_code == status, (response.status_code, response.text)
    detail = response.json()["detail"]
    assert isinstance(detail, str) and detail and "\n" not in detail
    return detail


@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    base = tmp_path_factory.mktemp("guard")
    triangle = curator.analyze(ROOT / "puzzles" / "triangle.toml", output=base / "triangle", max_pieces=8,
                               workers=1)
    chess = curator.analyze(ROOT / "puzzles" / "solitaire-chess.toml", output=base / "chess", max_pieces=3,
                            workers=1)
    return triangle.directory, chess.directory


@pytest.fixture(scope="module")
def client(folders):
    return client_of(list(folders))


@pytest.fixture
def copies(folders, tmp_path):
    out = []
    for directory in folders:
        out.append(tmp_path / directory.name)
        shutil.copytree(directory, out[-1])
    return out


# -- Host names -----------------------------------------------------------------------------------


@pytest.mark.parametrize("host", ["evil.example", "evil.example:8000", "127.0.0.1.evil.example:8000",
                                  "localhost.evil.example", "[::1]:8000", "", "127.0.0.1:80:80", "a b"])
def test_other_host_names_get_421(client, host):
    for path in ("/", "/api/folders", "/api/folders/0", "/openapi.json", "/static/app.js"):
        detail = problem(client.get(path, headers={"Host": host}), 421)
        assert detail.startswith("this workspace does not answer to the Host")
    assert problem(client.post("/api/folders/0/arrange", json={"size": 2}, headers={"Host": host}), 421)


@pytest.mark.parametrize("host", ["127.0.0.1:8000", "127.0.0.1", "localhost:8000", "LOCALHOST"])
def test_its_own_address_is_answered(client, host):
    assert client.get("/api/folders", headers={"Host": host}).status_code == 200


def test_hosts_follow_the_listening_address_and_the_allowed_names(folders):
    allowed = client_of([folders[0]], allow_hosts=["studio.local"])
    assert allowed.get("/api/folders", headers={"Host": "studio.local:8000"}).status_code == 200
    assert allowed.get("/api/folders", headers={"Host": "other.local:8000"}).status_code == 421
    everywhere = client_of([folders[0]], host="0.0.0.0")
    for host in ("192.168.1.20:8000", "[fe80::1]:8000", "localhost:8000"):
        assert everywhere.get("/api/folders", headers={"Host": host}).status_code == 200, host
    assert everywhere.get("/api/folders", headers={"Host": "evil.example:8000"}).status_code == 421
    six = hosts_for("::1")
    assert six.allow("[::1]:8000") and six.allow("localhost") and not six.allow("127.0.0.1")
    named = hosts_for("10.0.0.5")
    assert named.allow("10.0.0.5:8000") and not named.allow("localhost") and not named.allow("10.0.0.6")


def test_serve_takes_allowed_hosts(folders, monkeypatch):
    calls = fake_serving(monkeypatch)
    hosts = ("--allow-host", "studio.local", "--allow-host", "10.0.0.9")
    assert invoke("serve", folders[0], *hosts).exit_code == 0
    served = TestClient(calls[0][2], base_url="http://studio.local:8000")
    assert served.get("/api/folders").status_code == 200
    assert served.get("/api/folders", headers={"Host": "10.0.0.9"}).status_code == 200
    assert served.get("/api/folders", headers={"Host": "evil.example"}).status_code == 421
    result = invoke("serve", folders[0], "--allow-host", "http://x/")
    assert result.exit_code == 2
    assert "--allow-host 'http://x/' is not a host name" in error_line(result.stderr)


# -- requests from elsewhere ----------------------------------------------------------------------------


POSTS = [("/api/folders/0/arrange", {"size": 2, "pool": 20}),
         ("/api/folders/0/position", {"position": [0] * 14 + [1]}),
         ("/api/folders/0/pack", {"positions": [[0] * 14 + [1]]})]


@pytest.mark.parametrize("path, body", POSTS)
def test_computing_requests_need_the_pages_own_origin(client, path, body):
    for origin in ("http://evil.example", "null", "http://127.0.0.1:8001", "https://127.0.0.1:8000"):
        detail = problem(client.post(path, json=body, headers={"Origin": origin}), 403)
        assert "workspace's page" in detail
    assert client.post(path, json=body, headers={"Origin": LOCAL}).status_code == 200
    assert client.post(path, json=body).status_code == 200  # no Origin: not a browser


@pytest.mark.parametrize("path, body", POSTS)
@pytest.mark.parametrize("kind", ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data",
                                  None])
def test_computing_requests_need_a_json_body(client, path, body, kind):
    import json

    headers = {"Content-Type": kind} if kind else {}
    response = client.post(path, content=json.dumps(body).encode(), headers=headers)
    assert "as JSON" in problem(response, 415)


def test_the_api_answers_its_own_page_only(client):
    query = {"pieces": "5", "sample": 3}
    for site in ("cross-site", "same-site"):
        response = client.get("/api/folders/0/levels", params=query, headers={"Sec-Fetch-Site": site})
        assert "its own page" in problem(response, 403)
        assert client.get("/api/folders/0/picture", params={"position": "0," * 14 + "1"},
                          headers={"Sec-Fetch-Site": site}).status_code == 403
    for site in ("same-origin", "none"):
        response = client.get("/api/folders/0/levels", params=query, headers={"Sec-Fetch-Site": site})
        assert response.status_code == 200
    assert client.get("/", headers={"Sec-Fetch-Site": "cross-site"}).status_code == 200  # a link to the page


def test_arranging_is_a_post(client):
    assert problem(client.get("/api/folders/0/arrange", params={"size": 2}), 405)
    found = client.post("/api/folders/0/arrange", json={"size": 3, "pool": 40, "solvable": True,
                                                        "pieces": "4..6", "curve": "steps"})
    assert found.status_code == 200 and len(found.json()["levels"]) == 3
    assert "pool" in problem(client.post("/api/folders/0/arrange", json={"size": 3, "pool": 5001}), 422)
    extra = client.post("/api/folders/0/arrange", json={"size": 3, "sample": 2})
    assert "extra" in problem(extra, 422).lower()


# -- time bounds and locks ---------------------------------------------------------------------------


def test_a_request_over_its_time_answers_503(folders):
    client = client_of(list(folders), time_limit=0.0)
    detail = problem(client.post("/api/folders/0/arrange", json={"size": 2, "pool": 200}), 503)
    assert detail.startswith("folder 0 (triangle): the request took longer than 0 s")
    assert problem(client.get("/api/folders/0/levels", params={"pieces": "5", "sample": 5}), 503)
    assert client.get("/api/folders").status_code == 200


def test_a_busy_folder_holds_up_neither_other_folders_nor_the_list(folders):
    app = create_app(list(folders), time_limit=0.5)
    client = TestClient(app, base_url=LOCAL)
    entered, release = threading.Event(), threading.Event()

    def long_work():
        with app.state.folders.results(0):
            entered.set()
            release.wait(20)

    worker = threading.Thread(target=long_work)
    worker.start()
    try:
        assert entered.wait(10)
        start = time.monotonic()
        assert client.get("/api/folders").status_code == 200
        assert client.get("/api/folders/1").status_code == 200
        assert client.post("/api/folders/1/position", json={"position": [0] * 15 + [1]}).status_code == 200
        assert time.monotonic() - start < 5
        detail = problem(client.get("/api/folders/0"), 503)
        assert detail.startswith("folder 0 (triangle) is busy with another request")
    finally:
        release.set()
        worker.join()
    assert client.get("/api/folders/0").status_code == 200


# -- no paths in answers ------------------------------------------------------------------------------


def test_answers_name_folders_never_paths(copies):
    client = client_of(copies)
    triangle = copies[0]
    path = str(triangle)
    found = client.get("/api/folders/0/levels", params={"pieces": "12"})
    detail = problem(found, 422)
    assert detail == "pieces 12: folder 0 (triangle) holds layers with 1..8 pieces"
    bits = triangle / "k06.solvable.bits"
    data = bytearray(bits.read_bytes())
    data[0] ^= 0xFF
    bits.write_bytes(bytes(data))
    detail = problem(client.get("/api/folders/0/levels", params={"pieces": "6", "sample": 2}), 500)
    assert detail.startswith("folder 0 (triangle): k06.solvable.bits: checksum does not match")
    for response in (found, client.get("/api/folders/0/levels", params={"pieces": "6", "sample": 2}),
                     client.get("/api/folders/9"), client.post("/api/folders/0/arrange", json={"size": 99})):
        assert path not in response.text and str(triangle.parent) not in response.text
        assert "/tmp/" not in response.text


# -- files changed under an open folder ------------------------------------------------------------------


def test_a_layer_changed_in_place_is_noticed(copies):
    client = client_of(copies)
    level = {"position": None}
    found = client.get("/api/folders/0/levels", params={"pieces": "6", "sample": 1, "seed": 4}).json()
    level["position"] = found["levels"][0]["position"]
    assert client.post("/api/folders/0/position", json=level).status_code == 200
    bits = copies[0] / "k06.solvable.bits"
    before = fingerprint(copies[0])
    original = bits.read_bytes()
    with bits.open("r+b") as handle:  # in place: the same size, the same inode
        handle.write(bytes(255 - b for b in original[:8]))
    assert fingerprint(copies[0]) != before
    detail = problem(client.post("/api/folders/0/position", json=level), 500)
    assert "k06.solvable.bits: checksum does not match" in detail
    assert client.get("/api/folders/1").status_code == 200  # the other folder is untouched
    with bits.open("r+b") as handle:
        handle.write(original[:8])
    assert client.post("/api/folders/0/position", json=level).status_code == 200


def test_an_edited_puzzle_copy_or_manifest_is_noticed(copies):
    client = client_of(copies)
    assert client.get("/api/folders/0").status_code == 200
    copy = copies[0] / "puzzle.toml"
    text = copy.read_text()
    copy.write_text(text + "# edited\n")
    detail = problem(client.get("/api/folders/0"), 500)
    assert detail == ("folder 0 (triangle): puzzle.toml: does not match the manifest's puzzle_sha256 (edited "
                      "or damaged copy of the puzzle file)")
    copy.write_text(text)
    assert client.get("/api/folders/0").status_code == 200
    manifest = copies[0] / "manifest.json"
    manifest.write_text(manifest.read_text().replace('"complete": true', '"complete": false'))
    assert "edited or damaged manifest" in problem(client.get("/api/folders/0"), 500)


def test_a_damaged_folder_is_refused_at_start(copies):
    (copies[1] / "puzzle.toml").write_text("name = 'x'\n")
    result = invoke("serve", *copies)
    assert result.exit_code == 2 and "puzzle_sha256" in error_line(result.stderr)
