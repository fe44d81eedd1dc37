"""Exports of puzzles picked from universe tables (`curator.universe.results.UniverseLevel`).

    write("json", universe, puzzles, "puzzles.json")    # format curator-universe-puzzles/1
    write("csv", universe, puzzles, "puzzles.csv")
    write("toml", universe, puzzles, "levels/")         # one sliding-block puzzle file each
    write("histogram", universe, puzzles, "by-distance.svg")
    write("json", universe, pack, "pack.json", curve=pack.record())   # a pack: with its curve

A puzzle file written by "toml" is an ordinary sliding-block puzzle: `curator analyze` it, play
it in the workspace, or export it to LDtk and Tiled as any other. A pack (`UniverseResults.pack`)
is written in its order; json and csv record the curve it was arranged by (targets and achieved
values are distances), toml and histogram have no place for it.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import drawsvg
import numpy as np

from curator.arrange import PackCurve
from curator.common.files import atomic_write
from curator.export.writing import (
    ExportError,
    file_targets,
    json_text,
    one_file,
    pack_head,
    write_table,
    write_text,
)
from curator.universe.puzzle import WALL, Universe
from curator.universe.results import SetLevels, UniverseLevel

FORMATS = ("json", "csv", "toml", "histogram")
PUZZLES_FORMAT = "curator-universe-puzzles/1"
ONE_FILE = {"json": (".json",), "csv": (".csv",), "histogram": (".svg",)}
"""The formats written as one file (its folder is made if missing), and the suffixes that file
may have."""
COLUMNS = ("rank", "distance", "cluster", "pieces", "walls", "minimal", "unique", "board")


def write(fmt: str, puzzle: Universe, items: Sequence[UniverseLevel], path: str | Path,
          curve: PackCurve | None = None) -> list[Path]:
    """Write `items` of the universe `puzzle` as `fmt` to `path`; the files written. `curve`,
    the slots of a pack the items fill in order, goes into json (key `curve`) and csv (column
    `target` after `distance`)."""
    if curve is not None and len(curve.targets) != len(items):
        raise ExportError(f"the curve has {len(curve.targets)} slots for {len(items)} puzzles")
    if fmt in ONE_FILE:
        path = one_file(path, ONE_FILE[fmt])
    if fmt == "json":
        return write_text(path, json_text({**pack_head(PUZZLES_FORMAT), "universe": universe_dict(puzzle),
                                           **({} if curve is None else {"curve": curve.to_json()}),
                                           "puzzles": [item.to_json() for item in items]}))
    if fmt == "csv":
        rows = [{k: _cell(v) for k, v in item.to_json().items() if k in COLUMNS} for item in items]
        return write_table(path, COLUMNS, rows, curve, after="distance")
    if fmt == "toml":
        targets = file_targets(len(items), path, ".toml", "puzzle")
        for item, target in zip(items, targets):
            atomic_write(target, puzzle_text(puzzle, item).encode())
        return targets
    if fmt == "histogram":
        return write_text(path, histogram_svg(puzzle, _distances(items)))
    raise ExportError(f"universe tables export as {', '.join(FORMATS)}, not {fmt!r}")


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def universe_dict(puzzle: Universe) -> dict[str, Any]:
    """The universe the puzzles come from: its board, vehicles and walls."""
    return {"name": puzzle.name, "rows": puzzle.rows, "cols": puzzle.cols, "goal": puzzle.goal_letter,
            "goal_row": puzzle.goal_row, "open_lines": puzzle.open_lines, "walls": list(puzzle.walls),
            "vehicles": [{"letter": v.letter, "along": "row" if v.axis == 0 else "column", "length": v.length,
                          "count": [v.fewest, v.most]} for v in puzzle.vehicles]}


def puzzle_text(puzzle: Universe, item: UniverseLevel) -> str:
    """One puzzle as a sliding-block puzzle file: its walls leave the board ('#')."""
    return sliding_text(puzzle, item.board, f"{puzzle.name}-{item.rank}",
                        f"{puzzle.name} set {item.rank}: {item.distance} moves, {item.cluster:,} positions")


def sliding_text(puzzle: Universe, board: str, name: str, title: str) -> str:
    """The sliding-block puzzle file of a board drawn in the universe's letters (rows separated
    by '/', walls '#' or the universe's wall letter), declaring the vehicles it draws."""
    art = board.replace(WALL, "#").split("/")
    letters = {ch for row in art for ch in row} - {".", "#"}
    lines = [f'name = "{name}"', f'title = "{title}"', "",
             "[board]", 'art = """', *art, '"""', "", "[rules]", 'family = "slide"', 'move = "line"',
             'metric = "line"', ""]
    for v in puzzle.vehicles:
        if v.letter not in letters:
            continue
        cells = [[0, i] if v.axis == 0 else [i, 0] for i in range(v.length)]
        along = "row" if v.axis == 0 else "column"
        lines += [f"[pieces.{v.letter}]", f"cells = {cells}", f'along = "{along}"', ""]
    goal = [[puzzle.goal_row, c] for c in range(puzzle.cols - puzzle.goal_length, puzzle.cols)]
    lines += ["[goal]", f'piece = "{puzzle.goal_letter}"', f"cells = {goal}", ""]
    return "\n".join(lines)


def _distances(items: Sequence[UniverseLevel]) -> np.ndarray:
    """The items' distances, -1 where a set cannot be solved; a selection's are read from its
    tables, not from its puzzles."""
    if isinstance(items, SetLevels):
        return items.distances()
    return np.array([-1 if item.distance is None else item.distance for item in items], dtype=np.int64)


def histogram_svg(puzzle: Universe, distances: np.ndarray) -> str:
    """A bar chart of puzzles by distance (-1: a set that cannot be solved, not charted), as
    SVG text."""
    solvable = distances[distances >= 0].astype(np.int64)
    if not len(solvable):
        raise ExportError("no solvable puzzle to chart")
    low, high = int(solvable.min()), int(solvable.max())
    counts = np.bincount(solvable)
    width, height, left, bottom, top = 640, 320, 60, 40, 30
    step = (width - left - 20) / (high - low + 1)
    most = int(counts.max())
    drawing = drawsvg.Drawing(width, height, font_family="sans-serif", font_size=11)
    drawing.append(drawsvg.Rectangle(0, 0, width, height, fill="white"))
    drawing.append(drawsvg.Text(f"{puzzle.name}: {len(distances):,} puzzles by distance", 14, left, 20))
    for d in range(low, high + 1):
        bar = (height - top - bottom) * int(counts[d]) / most
        x = left + (d - low) * step
        drawing.append(drawsvg.Rectangle(x + 1, height - bottom - bar, max(1.0, step - 2), bar,
                                         fill="#4a7bb7"))
        if (d - low) % max(1, round((high - low + 1) / 15)) == 0:
            drawing.append(drawsvg.Text(str(d), 10, x + step / 2, height - bottom + 14, text_anchor="middle"))
    drawing.append(drawsvg.Text("moves from the farthest position to the goal", 11, width / 2, height - 8,
                                text_anchor="middle"))
    drawing.append(drawsvg.Text(f"{most:,}", 10, left - 6, top + 4, text_anchor="end"))
    drawing.append(drawsvg.Line(left, height - bottom, width - 10, height - bottom, stroke="black"))
    return str(drawing.as_svg())
