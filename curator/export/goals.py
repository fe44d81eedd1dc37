"""Exports of levels picked from goal tables (`curator.goals.GoalLevel`): what the
sliding-block and Sokoban exports share. A kind's exporter gives its pack format, the pack's
`puzzle` object, a line of rules for the gallery, how its levels are laid out for the level
editors (`curator.export.engines`) and how the playable page plays them (`curator.export.play`):

    exports = GoalExports("curator-sliding-pack/1", puzzle_dict, rules_line, stages, BLOCK, games,
                          "click a block, then one of the places it can go")
    exports.write_json(puzzle, levels, "pack.json")
    exports.write_csv(puzzle, levels, "levels.csv")
    exports.write_svg(puzzle, levels, "pictures/")     # level-0001.svg, ...
    exports.write_png(puzzle, levels, "pictures/")
    exports.write_html(puzzle, levels, "gallery.html")
    exports.write_ldtk(puzzle, levels, "levels.ldtk")  # an LDtk project: one level per level
    exports.write_tiled(puzzle, levels, "maps/")       # Tiled maps: level-0001.tmj, ... and tiles.png
    exports.write_play(puzzle, levels, "play.html")    # a page that plays them
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from curator.arrange import PackCurve
from curator.common.figures import difficulty_value
from curator.export import ldtk, play, tiled
from curator.export import write as write_items
from curator.export.engines import Cast, Figure, StagesOf, with_targets
from curator.export.gallery import card_html, curve_html, page_html, plural
from curator.export.writing import json_text, pack_head, write_pictures, write_table, write_text
from curator.picture import Picture

COLUMNS = ("number", "puzzle", "rank", "board", "distance", "unique", "all_moves", "cluster", "solution")

Level = Any
"""A `curator.goals.GoalLevel` (not imported: the results import the exporters' formats)."""
Games = Callable[[Any, Sequence[Level]], list[play.Game]]
"""How a kind's levels are played in the page: `games(puzzle, levels)`."""


def level_title(puzzle: Any, number: int, level: Level) -> str:
    """A level's title in pictures, editors and the playable page."""
    return f"{puzzle.title}: level {number} (distance {level.distance})"


def figure_texts(level: Level) -> dict[str, str]:
    """What the gallery and the playable page list of a level, by key."""
    return {"distance": str(level.distance), "unique": "yes" if level.unique else "no",
            "all_moves": "yes" if level.all_moves else "no", "cluster": f"{level.cluster:,}",
            "rank": str(level.rank)}


def play_figures(level: Level) -> tuple[tuple[str, str], ...]:
    """What the playable page lists of a level: (label, text) pairs."""
    return tuple((key.replace("_", " "), text) for key, text in figure_texts(level).items())


def engine_figures(levels: Sequence[Level], curve: PackCurve | None) -> list[tuple[Figure, ...]]:
    """The figures the level editors' files hold of each level (difficulty: the player model's
    effort), with each slot's target when the levels come with the curve they were arranged by."""
    return with_targets([(
        Figure("difficulty", "float", difficulty_value(level.difficulty)),
        Figure("distance", "int", level.distance),
        Figure("moves", "int", len(level.solution)),
        Figure("unique", "bool", bool(level.unique)),
        Figure("all_moves", "bool", bool(level.all_moves)),
        Figure("cluster", "int", int(level.cluster)),
        Figure("rank", "string", str(int(level.rank))),
    ) for level in levels], curve)


@dataclass(frozen=True)
class GoalExports:
    """The writers of one kind of goal tables' levels."""

    pack_format: str
    """The `format` value of its level packs (docs/level-pack.md)."""
    puzzle_dict: Callable[[Any], dict[str, Any]]
    """The pack's `puzzle` object for a puzzle: its name, rules and pieces."""
    rules_line: Callable[[Any], str]
    """The gallery's line of rules for a puzzle, as HTML."""
    stages: StagesOf
    """The levels as the editors' files hold them (`curator.export.engines.Stage`)."""
    cast: Cast
    """What its pieces are in the editors: discs or blocks."""
    games: Games
    """The levels as the playable page plays them."""
    how_to_play: str
    """The playable page's first words on how a move is made."""

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
        return level.picture(level_title(puzzle, number, level))

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
            texts = figure_texts(level)
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

    @cached_property
    def write_ldtk(self) -> Callable[..., list[Path]]:
        """An LDtk project with one level per level (see `curator.export.ldtk`)."""
        return ldtk.writer(self.stages, self.cast)

    @cached_property
    def write_tiled(self) -> Callable[..., list[Path]]:
        """One Tiled map per level and the tileset image (see `curator.export.tiled`)."""
        return tiled.writer(self.stages, self.cast)

    def write_play(self, puzzle: Any, levels: Sequence[Level], path: str | Path) -> list[Path]:
        """One self-contained page that plays the levels, with undo, reset and hints (see
        `curator.export.play`)."""
        subtitle = (f"{plural(len(levels), 'level')}: {self.how_to_play}. "
                    "Hint shows a move that brings the level closer to the goal.")
        return play.write_page(puzzle.title, subtitle, self.games(puzzle, levels), puzzle.name, path)

    @property
    def writers(self) -> dict[str, Callable[..., list[Path]]]:
        """Export formats by name; the same names as `curator.export.WRITERS`."""
        return {"json": self.write_json, "csv": self.write_csv, "svg": self.write_svg, "png": self.write_png,
                "html": self.write_html, "ldtk": self.write_ldtk, "tiled": self.write_tiled,
                "play": self.write_play}

    def write(self, fmt: str, puzzle: Any, levels: Sequence[Level], path: str | Path,
              curve: PackCurve | None = None) -> list[Path]:
        """Write `levels` in the format `fmt` (with the curve of a pack); the files written."""
        return write_items(fmt, puzzle, levels, path, self.writers, curve=curve)
