"""Figures are rounded to the digits that mean something in tables, text, JSON, CSV and level
packs, and a small chance is never shown as 0."""

from __future__ import annotations

import csv
import json
from dataclasses import replace

from test_levels import make_levels

from curator.common.report import Report
from curator.export import write_csv, write_json
from curator.layered.kind import KIND
from curator.layered.level import Play

NOISY = 4.5040000000000004
"""A difficulty as floating-point sums leave it."""
PLAY = Play(win_chance=0.0012345678, mistake_depth=1.23456789, mistake_depth_max=3, decisions=4, forced=1,
            information=3.14159265358, search=41.53333333)


class _Results:
    """What the select table asks of a results object."""

    def __init__(self, puzzle):
        self.puzzle = puzzle


def _level():
    puzzle, levels = make_levels("triangle")
    return puzzle, replace(levels[0], difficulty=NOISY, play=PLAY)


def test_json_rounds_difficulty_and_figures():
    _, level = _level()
    data = level.to_json()
    assert data["difficulty"] == 4.504
    assert data["win_chance"] == 0.001235  # 4 significant digits, not 0.0012 (4 decimals)
    assert (data["mistake_depth"], data["information"], data["search"]) == (1.235, 3.142, 41.53)
    assert (data["mistake_depth_max"], data["decisions"], data["forced"]) == (3, 4, 1)
    assert "4.5040000000000004" not in json.dumps(data)


def test_csv_and_level_pack_round_alike(tmp_path):
    puzzle, level = _level()
    (path,) = write_csv(puzzle, [level], tmp_path / "levels.csv")
    with path.open(encoding="utf-8", newline="") as handle:
        (row,) = list(csv.DictReader(handle))
    assert (row["difficulty"], row["win_chance"], row["information"], row["search"]) == \
        ("4.504", "0.001235", "3.142", "41.53")
    (pack,) = write_json(puzzle, [level], tmp_path / "pack.json")
    text = pack.read_text(encoding="utf-8")
    assert "4.5040000000000004" not in text and "0.0012345678" not in text
    metrics = json.loads(text)["levels"][0]["metrics"]
    assert (metrics["difficulty"], metrics["win_chance"], metrics["search"]) == (4.504, 0.001235, 41.53)


def test_tables_and_text_show_small_chances():
    puzzle, level = _level()
    table: Report = KIND.items_report(_Results(puzzle), [level], 1, {})
    win = [column.name for column in table.columns].index("win")
    assert table.rows[0][win] == "0.12%"  # was 0.0%
    assert "win chance (random moves): 0.12%" in KIND.item_text(puzzle, level)
    assert "difficulty: 4.50" in KIND.item_text(puzzle, level)
