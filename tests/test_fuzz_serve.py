"""The workspace's HTTP API fuzzed: every endpoint its OpenAPI document lists, called with
hostile folders, query values and JSON bodies (Hypothesis, a few hundred requests). Each
answer is a correct 200 or one JSON line with a 4xx status (or 503 when a request reaches its
time bound); never a 500, a traceback or a path of the machine.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import curator
from curator.web.app import create_app

ROOT = Path(__file__).resolve().parent.parent
LOCAL = "http://127.0.0.1:8000"
TIME_LIMIT = 5.0

HOSTILE_TEXT = [
    "", " ", "..", "../../etc/passwd", "/etc/passwd", "%2e%2e%2f", "\x00", "\n", "nan", "inf", "-inf",
    "1e308", "true", "false", "null", "0..99999999999999999999", "-5..-1", "1..", "..3", "7..2", "2.5..3",
    "K=1,R=0..2", "Z=9", "o=1", "3,3;0,2", "99,99", "0,0;" * 300, "a,b", "VSSV/VSSV/VHHV/VNNV/N..N",
    "VSSV/VSSV/VHHV/VNNV/N.N.", "....", "o/../.../..../.....", "difficulty:desc", "rank:up", "solutions",
    "\U0001f642", "A" * 3000, "linear", "ease-in", "json", "html", "svg",
]
SCALARS = st.one_of(
    st.integers(-2**70, 2**70), st.integers(-3, 40), st.sampled_from(HOSTILE_TEXT), st.text(max_size=20),
    st.floats(allow_nan=True, allow_infinity=True), st.booleans(), st.none(),
)
VALUES = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=6)
                      | st.dictionaries(st.text(max_size=6), inner, max_size=4), max_leaves=12)

SEEDS: dict[str, list] = {
    # query parameters
    "solvable": [True, False, "true"], "unique": [True, False], "all_moves": [True, False],
    "pieces": ["3..5", "4", "1..7"], "must_include": ["0,0", "2,1;3,3"], "must_exclude": ["4,4"],
    "canonical": [True], "sample": [1, 3, 200], "seed": [0, 7], "limit": [1, 5],
    "difficulty": ["1..4", "0..2.5"],
    "sort": ["difficulty", "difficulty:desc", "pieces"], "distance": ["10..20", "3", "81"],
    "cluster": ["2..100000"], "hardest": [True], "format": ["json", "html", "csv", "toml"],
    "minimal": [True, False], "walls": ["0..1", "2"], "counts": ["h=1..2,x=0", "V=1"],
    # body fields (positions, moves, drawings and ranks are added from the folders)
    "size": [1, 3], "curve": ["linear", "steps"], "pool": [10, 40], "name": ["linear"],
    "variety": ["piece-sets", "none"],
    "PackIn.curve": [None], "UniversePackIn.curve": [None], "targets": [[1.0, 2.0]],
}
"""Plausible values of query parameters and body fields by name (`Schema.field` first)."""
FOLDERS = st.one_of(st.sampled_from(["0", "1", "2", "3"]),
                    st.sampled_from(["4", "-1", "99999999999999999999", "x", "0x1", "%2e%2e", "1.0"]))
NUMBERS = st.sampled_from(["1", "2", "0", "-1", "x", "99999999999999999999", "%2e%2e"])
"""Values of the other path parameters (a pack's number, a slot)."""
PATH = re.compile(r"/(?:tmp|home|root|work|usr|etc|var)/")


def seeded(name: str, schema: str) -> bool:
    """Whether SEEDS has plausible values of a field (the others are sent only to hurt)."""
    return f"{schema}.{name}" in SEEDS or name in SEEDS


def value_for(name: str, hostility: int, schema: str = "") -> st.SearchStrategy:
    """A value for a parameter or field: a plausible one, or (more often the higher
    `hostility`, 0..10) a hostile one."""
    seeds = SEEDS.get(f"{schema}.{name}") or SEEDS.get(name, [])
    plausible = st.sampled_from(seeds) if seeds else SCALARS
    hostile = st.one_of(SCALARS, VALUES)
    return st.integers(0, 9).flatmap(lambda roll: hostile if roll < hostility else plausible)


def body_for(schema: dict, schemas: dict, hostility: int) -> st.SearchStrategy:
    """A JSON body shaped like `schema` (its fields drawn by `value_for`), sometimes with an
    unknown field or something else altogether."""
    title = schema["$ref"].rsplit("/", 1)[-1]
    schema = schemas[title]
    fields = list(schema.get("properties", {}))
    required = set(schema.get("required", []))

    @st.composite
    def shaped(draw):
        body = {name: draw(value_for(name, hostility, title)) for name in fields
                if name in required or draw(st.integers(0, 9)) < (6 - hostility // 3 if seeded(name, title)
                                                                   else hostility)}
        if draw(st.integers(0, 19)) < hostility:
            body[draw(st.text(max_size=8))] = draw(VALUES)
        return body

    return shaped() if hostility < 9 else st.one_of(shaped(), VALUES)


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """The app on layered results (0), sliding-block tables (1), a distance table (2) and
    universe tables (3), its OpenAPI document, and the folders' parent (which no answer may
    show)."""
    base = tmp_path_factory.mktemp("fuzz-serve")
    folders = [curator.analyze(ROOT / "puzzles" / name, output=base / name, workers=1, **options).directory
               for name, options in (("triangle.toml", {"max_pieces": 7}), ("klotski.toml", {}),
                                     ("eight-puzzle.toml", {}))]
    folders.append(curator.analyze(ROOT / "tests" / "data" / "rush-hour-4x4.toml", output=base / "universe",
                                   workers=1).directory)
    # The seeds are asked of an app without a time bound: a fresh checkout compiles kernels on
    # the first requests, which may take longer than the bound of the requests fuzzed.
    plausible(TestClient(create_app(folders, time_limit=3600.0), base_url=LOCAL))
    client = TestClient(create_app(folders, time_limit=TIME_LIMIT), base_url=LOCAL)
    return client, client.get("/openapi.json").json(), base


def plausible(client: TestClient) -> None:
    """Add positions, legal moves, drawings and ranks of the served folders to SEEDS."""
    levels = client.get("/api/folders/0/levels", params={"pieces": "5..7", "solvable": True, "sample": 4,
                                                         "seed": 1}).json()["levels"]
    positions = [level["position"] for level in levels]
    blocks = client.get("/api/folders/1").json()["blocks"]
    states = client.get("/api/folders/2").json()["states"]
    near = client.post("/api/folders/2/distance/position", json={"board": states["solved"]}).json()
    start = client.post("/api/folders/1/sliding/position", json={"board": blocks["start"]}).json()
    puzzle = client.get("/api/folders/3/universe/puzzles", params={"limit": 1}).json()["puzzles"][0]
    drawn = "/".join(puzzle["board"])
    hardest = client.post("/api/folders/3/universe/position", json={"board": drawn}).json()
    SEEDS.update({
        "position": positions, "positions": [positions[:2], positions[3:]],
        "move": [{"from": s["from"], "to": s["to"]} for level in levels for s in level["solution"][:1]]
        + [{"from": m["from"], "to": m["to"]} for m in start["moves"] + hardest["moves"]],
        "board": [blocks["start"], "/".join(start["board"]), states["solved"],
                  *(m["board"] for m in near["moves"]), drawn],
        "ranks": [[start["rank"]], [0, 5, 900, 3000]],
        "query.position": [",".join(map(str, p)) for p in positions],
    })


def operations(document: dict) -> list[tuple[str, str]]:
    """(path, method) of every endpoint."""
    return [(path, method) for path, item in document["paths"].items() for method in item]


def test_every_endpoint_is_fuzzed(served):
    _, document, _ = served
    # the folders' 17, the editor's level, distance/position and variants, the database's packs,
    # notes and playtests
    assert len(operations(document)) == 34


@given(data=st.data())
@settings(max_examples=300, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture,
                                 HealthCheck.data_too_large])
def test_hostile_requests_get_a_correct_answer_or_one_line(served, data):
    client, document, base = served
    path, method = data.draw(st.sampled_from(operations(document)))
    op = document["paths"][path][method]
    hostility = data.draw(st.sampled_from([0, 0, 1, 2, 4, 10]))
    # the folder whose kind the endpoint serves
    own = next((folder for part, folder in (("/sliding/", "1"), ("/distance/", "2"), ("/universe/", "3"))
                if part in path), "0")
    folder = own if data.draw(st.integers(0, 9)) >= max(hostility, 2) else data.draw(FOLDERS)
    url = path.replace("{folder}", folder)
    for name in re.findall(r"\{(\w+)\}", url):  # a pack's number, a slot in it
        url = url.replace(f"{{{name}}}", data.draw(NUMBERS))
    params = {}
    for parameter in op.get("parameters", []):
        name = parameter["name"]
        roll = data.draw(st.integers(0, 9))
        wanted = roll < 5 if seeded(name, "query") else roll < hostility
        if parameter["in"] == "query" and (parameter.get("required") or wanted):
            value = data.draw(value_for(name, hostility, "query"))
            params[name] = json.dumps(value) if isinstance(value, (list, dict)) else value
    body = None
    if "requestBody" in op:
        schema = op["requestBody"]["content"]["application/json"]["schema"]
        body = json.dumps(data.draw(body_for(schema, document["components"]["schemas"], hostility))).encode()
    response = client.request(method.upper(), url, params=params, content=body,
                              headers={"Content-Type": "application/json"} if body is not None else {})
    check(response, base)


def check(response, base: Path) -> None:
    """A correct 200, or one JSON line with 4xx (503 only for the time bound)."""
    text = response.text
    assert str(base) not in text and not PATH.search(text), text[:300]
    assert "Traceback" not in text
    status = response.status_code
    kind = response.headers.get("content-type", "")
    if status == 200:
        if kind.startswith("application/json"):
            json.loads(text)
        elif kind.startswith("image/svg+xml"):
            assert text.startswith("<svg") or text.startswith("<?xml")
        elif kind.startswith("text/csv"):
            assert text.startswith("rank,")
        elif kind == "application/zip":
            assert response.content.startswith(b"PK")
        else:
            assert kind.startswith("text/html") and "<html" in text.lower()
        return
    assert 400 <= status < 500 or status == 503, (status, text[:300])
    detail = response.json()["detail"]
    assert isinstance(detail, str) and detail and "\n" not in detail
    if status == 503:
        assert "took longer than" in detail or "is busy" in detail
