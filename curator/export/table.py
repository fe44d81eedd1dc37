"""CSV export: one row per level, for spreadsheets.

Numbers are written in full as decimal text (solution counts can exceed 64 bits), flags as
true/false, cells as "row,col"; an unsolvable level's difficulty is left empty. The columns
are listed in `COLUMNS` and in docs/level-pack.md.
"""

from __future__ import annotations

import csv
import math
from collections.abc import Iterable, Sequence
from pathlib import Path

from curator.level import Level, PuzzleLike

COLUMNS = (
    "number",
    "puzzle",
    "layer",
    "rank",
    "pieces",
    "legal_moves",
    "safe_moves",
    "solutions",
    "difficulty",
    "solvable",
    "unique",
    "all_moves",
    "solution_length",
    "position",
    "solution",
)


def cell_text(cell: tuple[int, int]) -> str:
    return f"{cell[0]},{cell[1]}"


def rows(puzzle: PuzzleLike, levels: Sequence[Level]) -> list[dict[str, str]]:
    """The CSV rows as text: `position` lists type@row,col per piece, `solution` from>to moves."""
    cells = puzzle.board.cells
    out = []
    for number, level in enumerate(levels, start=1):
        r = level.report
        out.append({
            "number": str(number),
            "puzzle": puzzle.name,
            "layer": level.layer_key,
            "rank": str(level.rank),
            "pieces": str(r.pieces),
            "legal_moves": str(r.legal_moves),
            "safe_moves": str(r.safe_moves),
            "solutions": str(int(r.solutions)),
            "difficulty": difficulty_text(level.difficulty),
            "solvable": _flag(r.solvable),
            "unique": _flag(r.unique),
            "all_moves": _flag(r.all_moves),
            "solution_length": str(len(r.solution)),
            "position": " ".join(
                f"{puzzle.piece_types[t - 1]}@{cell_text(cells[i])}"
                for i, t in enumerate(level.position)
                if t
            ),
            "solution": " ".join(f"{cell_text(cells[a])}>{cell_text(cells[b])}" for a, b in r.solution),
        })
    return out


def difficulty_text(value: float) -> str:
    """Full precision; empty for an unsolvable level (infinite difficulty)."""
    return repr(float(value)) if math.isfinite(value) else ""


def _flag(value: bool) -> str:
    return "true" if value else "false"


def write_table(path: str | Path, columns: Sequence[str], table: Iterable[dict[str, str]]) -> list[Path]:
    """Write a CSV file: a header line of `columns`, then one line per row of `table`."""
    path = Path(path)
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=columns)
        writer.writeheader()
        writer.writerows(table)
    return [path]


def write_csv(puzzle: PuzzleLike, levels: Sequence[Level], path: str | Path) -> list[Path]:
    """Write the CSV file (a header line, then one row per level)."""
    return write_table(path, COLUMNS, rows(puzzle, levels))
