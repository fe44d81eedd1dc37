"""`curator playtests DB`: the plays the workspace recorded, per level or per play, as CSV or
JSON that parse back to the database's figures; bad databases are one line and exit 1. Also
what `curator serve` says of its database, and the Levels tab's sort covering every metric.
"""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

import pytest
from cli_helpers import error_line, invoke

from curator.api import SORT_METRICS
from curator.workspace_db import FIGURE_FIELDS, PLAY_FIELDS, PLAYTESTS_FORMAT, Play, PuzzleKey, WorkspaceDB

ROOT = Path(__file__).resolve().parent.parent
TRIANGLE = PuzzleKey("triangle", "a" * 64)
KLOTSKI = PuzzleKey("klotski", "b" * 64)


@pytest.fixture
def db_path(tmp_path):
    path = tmp_path / "workspace.sqlite"
    with WorkspaceDB(path) as db:
        db.record_play(TRIANGLE, Play("0,1,1", 20.0, 6, 4, 2, 0, 1, True))
        db.record_play(TRIANGLE, Play("0,1,1", 40.0, 4, 4, 0, 1, 0, True))
        db.record_play(TRIANGLE, Play("0,1,1", 5.5, 1, 1, 0, 0, 0, False))
        db.record_play(KLOTSKI, Play("VSSV/VSSV/VHHV/VNNV/N..N", 300.0, 90, 81, 9, 0, 0, True))
    return path


def test_csv_per_level_parses_back(db_path):
    result = invoke("playtests", db_path, "--format", "csv")
    assert result.exit_code == 0, result.output
    rows = list(csv.DictReader(io.StringIO(result.stdout)))
    assert tuple(rows[0]) == FIGURE_FIELDS
    assert [(r["puzzle"], r["level"], r["plays"], r["gave_up"]) for r in rows] == [
        ("klotski", "VSSV/VSSV/VHHV/VNNV/N..N", "1", "0"), ("triangle", "0,1,1", "3", "1")]
    triangle = rows[1]
    assert float(triangle["median_seconds"]) == 30.0 and float(triangle["median_moves"]) == 5.0
    assert float(triangle["give_up_rate"]) == pytest.approx(1 / 3, abs=1e-4)
    assert triangle["puzzle_sha256"] == "a" * 64


def test_json_per_play_parses_back_into_a_file(db_path, tmp_path):
    target = tmp_path / "plays.json"
    result = invoke("playtests", db_path, "--format", "json", "--per", "play", "--output", target)
    assert result.exit_code == 0 and result.stdout == ""
    data = json.loads(target.read_text())
    assert data["format"] == PLAYTESTS_FORMAT
    assert [tuple(play) for play in data["plays"]] == [PLAY_FIELDS] * 4
    assert [(p["level"], p["seconds"], p["solved"]) for p in data["plays"]] == [
        ("0,1,1", 20.0, True), ("0,1,1", 40.0, True), ("0,1,1", 5.5, False),
        ("VSSV/VSSV/VHHV/VNNV/N..N", 300.0, True)]
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_json_per_level_and_csv_per_play(db_path):
    levels = json.loads(invoke("playtests", db_path, "-f", "json").stdout)["levels"]
    assert [(level["puzzle"], level["solved"], level["median_seconds"]) for level in levels] == [
        ("klotski", 1, 300.0), ("triangle", 2, 30.0)]
    rows = list(csv.DictReader(io.StringIO(invoke("playtests", db_path, "--per", "play").stdout)))
    assert [row["solved"] for row in rows] == ["true", "true", "false", "true"]
    assert rows[2]["moves_at_end"] == "1"


def test_an_empty_database_exports_nothing(tmp_path):
    path = tmp_path / "empty.sqlite"
    WorkspaceDB(path).close()
    assert invoke("playtests", path).stdout == ",".join(FIGURE_FIELDS) + "\n"
    assert json.loads(invoke("playtests", path, "--format", "json").stdout) == {
        "format": PLAYTESTS_FORMAT, "levels": []}


def test_bad_databases_are_one_line_and_exit_1(tmp_path):
    text = tmp_path / "notes.txt"
    text.write_text("plain text, not SQLite " * 50)
    for path, words in ((tmp_path / "missing.sqlite", "no workspace database here"),
                        (text, "not a workspace database"), (tmp_path, "cannot open")):
        result = invoke("playtests", path)
        assert result.exit_code == 1, path
        assert words in error_line(result.stderr)
    assert not (tmp_path / "missing.sqlite").exists()  # reading never makes one


def test_bad_options_exit_2(db_path):
    for args in (("--format", "xml"), ("--per", "day")):
        result = invoke("playtests", db_path, *args)
        assert result.exit_code == 2
        assert args[1] in error_line(result.stderr)
    kept = Path(db_path).read_bytes()
    for output in (db_path, f"{db_path}-wal"):
        result = invoke("playtests", db_path, "--output", output)
        assert result.exit_code == 2
        assert "is the workspace database itself" in error_line(result.stderr)
    assert Path(db_path).read_bytes() == kept


def test_serve_names_its_database(tmp_path):
    result = invoke("serve", "--help")
    assert "--db" in result.stdout and "workspace.sqlite" in result.stdout
    text = tmp_path / "notes.txt"
    text.write_text("plain text, not SQLite " * 50)
    result = invoke("serve", ROOT / "output", "--db", text)
    assert result.exit_code == 1
    assert "not a workspace database" in error_line(result.stderr)


def test_the_levels_tab_sorts_by_every_metric():
    page = (ROOT / "curator" / "web" / "static" / "index.html").read_text()
    block = re.search(r'<select name="sort">(.*?)</select>', page, re.S).group(1)
    options = set(re.findall(r"<option>([^<]+)</option>", block))
    assert options == {f"{metric}{way}" for metric in SORT_METRICS for way in ("", ":desc")}
