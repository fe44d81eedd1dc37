"""Exports of positions picked from a distance table (permutation puzzles).

The positions are those `curator.distance.select.select_positions` returns: dicts with
"rank", "distance", "state" (the puzzle's `describe` form) and "solution" (move names). The
writers mirror the level exports and share their code:

    write_json(puzzle, positions, "pack.json")     # format curator-distance-pack/1
    write_csv(puzzle, positions, "positions.csv")
    write_svg(puzzle, positions, "pictures/")      # position-0001.svg, ...
    write_png(puzzle, positions, "pictures/")
    write_html(puzzle, positions, "gallery.html")
"""

from __future__ import annotations

import html
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from curator.distance.puzzle import FAMILY, PermutationPuzzle, State, state_text
from curator.export import write as write_items
from curator.export.gallery import card_html, page_html, plural
from curator.export.writing import json_text, pack_head, write_pictures, write_table, write_text
from curator.picture import Picture, state_picture

PACK_FORMAT = "curator-distance-pack/1"
"""The `format` value of the position packs of permutation puzzles (docs/level-pack.md)."""

Position = dict[str, Any]

COLUMNS = ("number", "puzzle", "rank", "distance", "state", "solution")


def state_of(puzzle: PermutationPuzzle, position: Position) -> State:
    """The state of a picked position, from its rank."""
    return puzzle.unrank(position["rank"])


# -- JSON --------------------------------------------------------------------------------------


def pack_dict(puzzle: PermutationPuzzle, positions: Sequence[Position]) -> dict[str, Any]:
    """The position pack as JSON-ready data."""
    return {
        **pack_head(PACK_FORMAT),
        "puzzle": {
            "name": puzzle.name,
            "title": puzzle.title,
            "family": FAMILY,
            "metric": puzzle.metric,
            "sha256": puzzle.sha256,
            "positions": puzzle.size,
            "sets": [
                {
                    "name": s.name,
                    "count": s.count,
                    "orientations": s.orientations,
                    "zero_sum": s.zero_sum,
                    "solved": list(s.solved),
                    "layout": None if s.layout is None else list(s.layout),
                }
                for s in puzzle.sets
            ],
            "moves": puzzle.move_names,
        },
        "positions": [
            {
                "rank": int(p["rank"]),
                "distance": int(p["distance"]),
                "difficulty": p["difficulty"],
                "difficulty_terms": p["difficulty_terms"],
                "state": p["state"],
                "solution": list(p["solution"]),
            }
            for p in positions
        ],
    }


def write_json(puzzle: PermutationPuzzle, positions: Sequence[Position], path: str | Path) -> list[Path]:
    """Write the position pack (through a temporary file and a rename)."""
    return write_text(path, json_text(pack_dict(puzzle, positions)))


# -- CSV ---------------------------------------------------------------------------------------


def rows(puzzle: PermutationPuzzle, positions: Sequence[Position]) -> list[dict[str, str]]:
    """The CSV rows: `state` as "SET p0 p1 ... / o0 o1 ...; ...", `solution` as move names."""
    return [
        {
            "number": str(number),
            "puzzle": puzzle.name,
            "rank": str(p["rank"]),
            "distance": str(p["distance"]),
            "state": state_text(p["state"]),
            "solution": " ".join(p["solution"]),
        }
        for number, p in enumerate(positions, start=1)
    ]


def write_csv(puzzle: PermutationPuzzle, positions: Sequence[Position], path: str | Path) -> list[Path]:
    """Write the CSV file (a header line, then one row per position)."""
    return write_table(path, COLUMNS, rows(puzzle, positions))


# -- pictures ----------------------------------------------------------------------------------


def position_title(puzzle: PermutationPuzzle, number: int, position: Position) -> str:
    return f"{puzzle.title}: position {number} (distance {position['distance']})"


def position_picture(puzzle: PermutationPuzzle, number: int, position: Position) -> Picture:
    return state_picture(puzzle, state_of(puzzle, position), position_title(puzzle, number, position))


def _pictures(puzzle: PermutationPuzzle, positions: Sequence[Position], out: str | Path, suffix: str):
    return write_pictures(
        positions, lambda n, p: position_picture(puzzle, n, p), out, suffix, noun="position"
    )


def write_svg(puzzle: PermutationPuzzle, positions: Sequence[Position], out: str | Path) -> list[Path]:
    """One SVG picture per position into the folder `out` (position-0001.svg, ...), or into
    the file `out` if it ends in .svg and there is exactly one position."""
    return _pictures(puzzle, positions, out, ".svg")


def write_png(puzzle: PermutationPuzzle, positions: Sequence[Position], out: str | Path) -> list[Path]:
    """One PNG picture per position, named like `write_svg`'s."""
    return _pictures(puzzle, positions, out, ".png")


# -- HTML --------------------------------------------------------------------------------------


def metric_texts(position: Position) -> dict[str, str]:
    """What a gallery card lists of a position, by `data-metric` key."""
    return {
        "distance": str(position["distance"]),
        "rank": str(position["rank"]),
        "state": state_text(position["state"]),
    }


def gallery_html(puzzle: PermutationPuzzle, positions: Sequence[Position]) -> str:
    """The gallery page as text: one card per position with its picture, distance and
    optimal solution."""
    esc = html.escape
    sets = " · ".join(
        f"{s.name}: {s.count} pieces" + (f", {s.orientations} orientations" if s.orientations > 1 else "")
        for s in puzzle.sets
    )
    facts = (
        f"rules: {FAMILY} ({esc(puzzle.metric)} metric) · {esc(sets)} · "
        f"moves: {esc(' '.join(puzzle.move_names))}"
    )
    cards = []
    for number, p in enumerate(positions, start=1):
        texts = metric_texts(p)
        cards.append(
            card_html(
                "position",
                number,
                {"rank": p["rank"], "distance": p["distance"]},
                f"Position {number} <small>#{p['rank']}</small>",
                position_picture(puzzle, number, p),
                [(key, key, text) for key, text in texts.items()],
                p["solution"],
                "Solved already: no moves.",
            )
        )
    return page_html(puzzle.title, plural(len(positions), "position"), facts, cards, puzzle.name)


def write_html(puzzle: PermutationPuzzle, positions: Sequence[Position], path: str | Path) -> list[Path]:
    """Write the gallery page to `path`."""
    return write_text(path, gallery_html(puzzle, positions))


WRITERS: dict[str, Callable[[PermutationPuzzle, Sequence[Position], str | Path], list[Path]]] = {
    "json": write_json,
    "csv": write_csv,
    "svg": write_svg,
    "png": write_png,
    "html": write_html,
}
"""Export formats of distance results by name; the same names as `curator.export.WRITERS`."""
FORMATS = tuple(WRITERS)


def write(fmt: str, puzzle: PermutationPuzzle, positions: Sequence[Any], path: str | Path,
          curve: None = None) -> list[Path]:
    """Write `positions` (`DistanceLevel`s) in the format `fmt`; the files written."""
    return write_items(fmt, puzzle, [position.to_json() for position in positions], path, WRITERS)
