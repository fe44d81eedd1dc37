"""Exports of levels picked from goal tables (`curator.goals.GoalLevel`): what the
sliding-block and Sokoban exports share. A kind's exporter gives its pack format, the pack's
`puzzle` object and a line of rules for the gallery:

    exports = GoalExports("curator-sliding-pack/1", puzzle_dict, rules_line)
    exports.write_json(puzzle, levels, "pack.json")
    exports.write_csv(puzzle, levels, "levels.csv")
    exports.write_svg(puzzle, levels, "pictures/")     # level-0001.svg, ...
    exports.write_png(puzzle, levels, "pictures/")
    exports.write_html(puzzle, levels, "gallery.html")
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from curator.arrange import PackCurve
from curator.export import write as write_items
from curator.export.gallery import card_html, curve_html, page_html, plural
from curator.export.writing import json_text, pack_head, write_pictures, write_table, write_text
from curator.picture import Picture

COLUMNS = ("number", "puzzle", "rank", "board", "distance", "unique", "all_moves", "cluster", "solution")

Level = Any
"""A `curator.goals.GoalLevel` (not imported: the results import the exporters' formats)."""


@dataclass(frozen=True)
class GoalExports:
    """The writers of one kind of goal tables' levels."""

    pack_format: str
    """The `format` value of its level packs (docs/level-pack.md)."""
    puzzle_dict: Callable[[Any], dict[str, Any]]
    """The pack's `puzzle` object for a puzzle: its name, rules and pieces."""
    rules_line: Callable[[Any], str]
    """The gallery's line of rules for a puzzle, as HTML."""

    def pack_dict(self, puzzle: Any, levels: Sequence[Level], curve: PackCurve | None = None
                  ) -> dict[str, Any]:
        """The level pack as JSON-ready data, with the distance curve it was arranged by if given."""
        return {**pack_head(self.pack_format), "puzzle": self.puzzle_dict(puzzle),
                **({} if curve is None else {"curve": curve.to_json()}),
                "levels": [level.to_json() for level in levels]}

    def write_json(self, puzzle: Any, levels: Sequence[Level], path: str | Path,
                   curve: PackCurve | None = None) -> list[Path]:
        """Write the level pack (through a temporary file and a rename)."""
        return write_text(path, json_text(self.pack_dict(puzzle, levels, curve)))

    def write_csv(self, puzzle: Any, levels: Sequence[Level], path: str | Path,
                  curve: PackCurve | None = None) -> list[Path]:
        """Write the CSV file: `board` as rows joined by '/', `solution` as moves joined by '; ';
        a pack's curve adds the column `target` (the distance its slot aims at) after `distance`."""
        rows = [
            {"number": str(n), "puzzle": puzzle.name, "rank": str(level.rank), "board": "/".join(level.board),
             "distance": str(level.distance), "unique": str(level.unique).lower(),
             "all_moves": str(level.all_moves).lower(), "cluster": str(level.cluster),
             "solution": "; ".join(level.solution)}
            for n, level in enumerate(levels, start=1)
        ]
        return write_table(path, COLUMNS, rows, curve, after="distance")

    @staticmethod
    def level_picture(puzzle: Any, number: int, level: Level) -> Picture:
        return level.picture(f"{puzzle.title}: level {number} (distance {level.distance})")

    def write_svg(self, puzzle: Any, levels: Sequence[Level], out: str | Path) -> list[Path]:
        """One SVG picture per level into the folder `out` (level-0001.svg, ...), or into the
        file `out` if it ends in .svg and there is exactly one level."""
        return write_pictures(levels, lambda n, level: self.level_picture(puzzle, n, level), out, ".svg")

    def write_png(self, puzzle: Any, levels: Sequence[Level], out: str | Path) -> list[Path]:
        """One PNG picture per level, named like `write_svg`'s."""
        return write_pictures(levels, lambda n, level: self.level_picture(puzzle, n, level), out, ".png")

    def gallery_html(self, puzzle: Any, levels: Sequence[Level], curve: PackCurve | None = None) -> str:
        """The gallery page: one card per level with its picture, figures and shortest solution;
        a pack's curve is drawn above them."""
        cards = []
        for number, level in enumerate(levels, start=1):
            texts = {"distance": str(level.distance), "unique": "yes" if level.unique else "no",
                     "all_moves": "yes" if level.all_moves else "no", "cluster": f"{level.cluster:,}",
                     "rank": str(level.rank)}
            cards.append(card_html("level", number, {"rank": level.rank, "distance": str(level.distance)},
                                   f"Level {number} <small>#{level.rank}</small>",
                                   self.level_picture(puzzle, number, level),
                                   [(key, key.replace("_", " "), text) for key, text in texts.items()],
                                   level.solution, "Solved already: no moves."))
        chart = "" if curve is None else curve_html(curve)
        return page_html(puzzle.title, plural(len(levels), "level"), self.rules_line(puzzle), cards,
                         puzzle.name, chart)

    def write_html(self, puzzle: Any, levels: Sequence[Level], path: str | Path,
                   curve: PackCurve | None = None) -> list[Path]:
        """Write the gallery page to `path`."""
        return write_text(path, self.gallery_html(puzzle, levels, curve))

    @property
    def writers(self) -> dict[str, Callable[..., list[Path]]]:
        """Export formats by name; the same names as `curator.export.WRITERS`."""
        return {"json": self.write_json, "csv": self.write_csv, "svg": self.write_svg, "png": self.write_png,
                "html": self.write_html}

    def write(self, fmt: str, puzzle: Any, levels: Sequence[Level], path: str | Path,
              curve: PackCurve | None = None) -> list[Path]:
        """Write `levels` in the format `fmt` (with the curve of a pack); the files written."""
        return write_items(fmt, puzzle, levels, path, self.writers, curve=curve)
