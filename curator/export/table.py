"""CSV export: one row per level, for spreadsheets.

Whole numbers are written in full as decimal text (solution counts can exceed 64 bits), the
difficulty to 3 decimals and the other figures to 4 significant digits
(`curator.common.figures`), flags as true/false, cells as "row,col"; an unsolvable level's
difficulty is left empty. The columns
are listed in `COLUMNS` and in docs/level-pack.md.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from curator.arrange import PackCurve
from curator.common.figures import difficulty_value, figure_value
from curator.export.writing import write_table
from curator.layered.level import PLAY_FIGURES, Level, PuzzleLike, cell_text, moves_text

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
    *PLAY_FIGURES,
    "class_size",
    "solvable",
    "unique",
    "all_moves",
    "solution_length",
    "position",
    "solution",
)


def rows(puzzle: PuzzleLike, levels: Sequence[Level]) -> list[dict[str, str]]:
    """The CSV rows as text: `position` lists type@row,col per piece, `solution` from>to moves."""
    cells = puzzle.board.cells
    out = []
    for number, level in enumerate(levels, start=1):
        r = level.report
        out.append({
            "number": str(number),
            "puzzle": puzzle.name,
            "layer": level.layer,
            "rank": str(level.rank),
            "pieces": str(r.pieces),
            "legal_moves": str(r.legal_moves),
            "safe_moves": str(r.safe_moves),
            "solutions": str(int(r.solutions)),
            "difficulty": _difficulty_cell(level.difficulty),
            **{name: _number_cell(getattr(level, name)) for name in PLAY_FIGURES},
            "class_size": str(level.class_size),
            "solvable": _flag(r.solvable),
            "unique": _flag(r.unique),
            "all_moves": _flag(r.all_moves),
            "solution_length": str(len(r.solution)),
            "position": " ".join(
                f"{puzzle.piece_types[t - 1]}@{cell_text(cells[i])}"
                for i, t in enumerate(level.position)
                if t
            ),
            "solution": moves_text(puzzle, r.solution, level.position),
        })
    return out


def _difficulty_cell(value: float) -> str:
    """To 3 decimals; empty for an unsolvable level (infinite difficulty)."""
    rounded = difficulty_value(value)
    return "" if rounded is None else repr(rounded)


def _number_cell(value: float | int | None) -> str:
    """A player figure (4 significant digits); empty where there is none."""
    return "" if value is None else repr(figure_value(value))


def _flag(value: bool) -> str:
    return "true" if value else "false"


def write_csv(puzzle: PuzzleLike, levels: Sequence[Level], path: str | Path,
              curve: PackCurve | None = None) -> list[Path]:
    """Write the CSV file (a header line, then one row per level); a pack's curve adds the
    column `target` (the difficulty its slot aims at) after `difficulty`."""
    return write_table(path, COLUMNS, rows(puzzle, levels), curve, after="difficulty")
