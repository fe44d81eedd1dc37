"""Variants of Sokoban positions: a box or the keeper moved to another free floor cell (under
the pushes metric the keeper only into another region), against a plain enumeration over the
XSB drawing looked up one by one with `solve`; then `curator variants` and the workspace's
endpoint on a Sokoban folder."""

from __future__ import annotations

import json

import pytest
from fastapi.testclient import TestClient

import curator
from curator.common.errors import SelectionError
from curator.web.app import create_app
from tests.cli_helpers import invoke

LOCAL = "http://127.0.0.1:8000"
ROOM = """\
#######
#@ $ .#
#  $ .#
#######"""
NEAR = ((-1, 0), (0, 1), (1, 0), (0, -1))


def room_toml(metric: str) -> str:
    return f'name = "small"\n[board]\nxsb = """\n{ROOM}\n"""\n[rules]\nfamily = "push"\nmetric = "{metric}"\n'


@pytest.fixture(scope="module", params=["pushes", "moves"])
def room(request, tmp_path_factory):
    base = tmp_path_factory.mktemp(f"sokoban-variants-{request.param}")
    (base / "small.toml").write_text(room_toml(request.param))
    return curator.analyze(base / "small.toml", base / "out", workers=1)


def one_edit(drawing: str, metric: str) -> list[tuple[str, str]]:
    """(edit text, drawing) of every position one edit away, by hand over the drawing."""
    grid = {(r, c): ch for r, line in enumerate(drawing.split("/")) for c, ch in enumerate(line)}
    floor = {cell for cell, ch in grid.items() if ch != "#" and ch != " "}
    boxes = {cell for cell, ch in grid.items() if ch in "$*"}
    (keeper,) = [cell for cell, ch in grid.items() if ch in "@+"]
    goals = {cell for cell, ch in grid.items() if ch in ".*+"}

    def draw(bs: set, k: tuple) -> str:
        def mark(cell):
            if cell not in floor:
                return grid[cell]
            if cell in bs:
                return "*" if cell in goals else "$"
            if cell == k:
                return "+" if cell in goals else "@"
            return "." if cell in goals else "-"
        rows = max(r for r, _ in grid) + 1
        return "/".join("".join(mark((r, c)) for c in range(max(cc for rr, cc in grid if rr == r) + 1))
                        for r in range(rows))

    def reach(start: tuple) -> set:
        seen, todo = {start}, [start]
        while todo:
            r, c = todo.pop()
            for dr, dc in NEAR:
                cell = (r + dr, c + dc)
                if cell in floor and cell not in boxes and cell not in seen:
                    seen.add(cell)
                    todo.append(cell)
        return seen

    free = sorted(floor - boxes - {keeper})
    out = []
    for box in sorted(boxes):
        for cell in free:
            text = f"move $ {box[0]},{box[1]}>{cell[0]},{cell[1]}"
            out.append((text, draw(boxes - {box} | {cell}, keeper)))
    regions = [reach(keeper)]
    for cell in free:
        if metric == "pushes":
            if any(cell in region for region in regions):
                continue
            regions.append(reach(cell))
        out.append((f"move @ {keeper[0]},{keeper[1]}>{cell[0]},{cell[1]}", draw(boxes, cell)))
    return out


BASES = ["#######/#@-$-.#/#--$-.#/#######", "#######/#-@$-.#/#--$-.#/#######",
         "#######/#---$.#/#-$-@.#/#######", "#######/#-$-$.#/#----+#/#######",
         "#######/#--$@.#/#--$-.#/#######"]


@pytest.mark.parametrize("want", ["unique", "solvable", "harder"])
@pytest.mark.parametrize("base", BASES)
def test_variants_match_a_plain_enumeration(room, base, want):
    metric = room.puzzle.metric
    edits = one_edit(base, metric)
    own = room.solve(base)
    wanted = {}
    for text, drawing in edits:
        level = room.solve(drawing)
        if level.distance is None or level.distance == 0 or level.rank == own.rank:
            continue
        if want == "unique" and not level.unique:
            continue
        if want == "harder" and (own.distance is None or level.distance <= own.distance):
            continue
        wanted.setdefault(level.rank, (level.distance, text))
    order = sorted(wanted, key=lambda rank: (-wanted[rank][0], rank))
    found = room.variation(base, want, limit=50)
    assert found.considered == len(edits) and found.matched == len(wanted)
    assert [v.item.rank for v in found.variants] == order
    assert [v.edit.text for v in found.variants] == [wanted[rank][1] for rank in order]
    assert [v.item.distance for v in found.variants] == [wanted[rank][0] for rank in order]
    assert found.base.rank == own.rank
    short = room.variants(base, want, limit=2)
    assert [v.item.rank for v in short] == order[:2]


def test_keeper_moves_under_pushes_land_in_another_region(room):
    found = room.variation("#######/#@-$-.#/#--$-.#/#######", "solvable", limit=50)
    if room.puzzle.metric == "pushes":
        assert found.considered == 2 * 7 + 1  # two boxes to 7 free cells; the region right of them
        assert [v.edit.text for v in found.variants if v.edit.piece == "@"] == []  # it is unsolvable
    else:
        assert found.considered == 2 * 7 + 7
    assert all(v.edit.piece in "$@" and v.edit.action == "move" for v in found.variants)


def test_bad_wants_and_limits_are_refused(room):
    for wrong in ({"want": "easier"}, {"limit": 0}):
        with pytest.raises(SelectionError):
            room.variants(BASES[0], **wrong)


def test_variants_command(room):
    done = invoke("variants", room.directory, "--board", BASES[0], "--want", "solvable", "--limit", "3",
                  "--json")
    assert done.exit_code == 0, done.output
    data = json.loads(done.stdout)
    expected = room.variation(BASES[0], "solvable", 3)
    assert (data["considered"], data["matched"]) == (expected.considered, expected.matched)
    assert [v["edit"]["text"] for v in data["variants"]] == [v.edit.text for v in expected.variants]
    assert [v["rank"] for v in data["variants"]] == [v.item.rank for v in expected.variants]
    table = invoke("variants", room.directory, "--board", BASES[0], "--want", "harder")
    assert table.exit_code == 0 and "harder variant" in table.stdout, table.output


def test_workspace_variants(room):
    client = TestClient(create_app([room.directory], time_limit=3600.0), base_url=LOCAL)
    body = {"board": BASES[0], "want": "solvable", "limit": 4}
    answer = client.post("/api/folders/0/variants", json=body)
    assert answer.status_code == 200, answer.text
    found = answer.json()
    expected = room.variation(BASES[0], "solvable", 4)
    assert (found["considered"], found["matched"]) == (expected.considered, expected.matched)
    assert [v["edit"]["text"] for v in found["variants"]] == [v.edit.text for v in expected.variants]
    assert [v["rank"] for v in found["variants"]] == [v.item.rank for v in expected.variants]
    assert all(v["picture"].startswith("<svg") for v in found["variants"])
    bad = client.post("/api/folders/0/variants", json={"board": BASES[0], "want": "easier"})
    assert bad.status_code == 422
