"""Option values written as text (command-line options, the workspace's query strings),
turned into the values the Python API takes.

Only the syntax is checked here (`5..7`, `3,3;0,2`, `K=1,R=0..2`, whole numbers); whether a
cell is on the board or a piece type exists is checked by the API, naming the option.

A cell is `row,col` (0-based, row 0 at the top; triangular boards use the axial coordinates
of `curator.common.board.Board.from_art`); several cells are separated by `;` or spaces,
for example `--must-include "3,3;0,2"`.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from curator.common.errors import SelectionError
from curator.common.reading import InputRefused, read_input

_NUMBER = {int: r"\d+", float: r"\d+(?:\.\d*)?|\.\d+"}
_CELL = re.compile(r"\(?(-?\d+),(-?\d+)\)?")


def option_name(keyword: str) -> str:
    """How the command line spells an API keyword: must_include -> --must-include."""
    return "--" + keyword.replace("_", "-")


def parse_range(text: str, what: str, example: str = "5..7", kind: type = int) -> tuple:
    """`A..B` or `A` as (A, B), with 0 <= A <= B; whole numbers, or decimals with kind=float.

    >>> parse_range("5..7", "--pieces"), parse_range("4", "--pieces"), parse_range("2.5..8", "", kind=float)
    ((5, 7), (4, 4), (2.5, 8.0))
    """
    number = _NUMBER[kind]
    match = re.fullmatch(rf"\s*({number})\s*(?:\.\.\s*({number})\s*)?", text)
    if not match:
        raise SelectionError(f"{what} must look like A..B or A (e.g. {example}), got {text!r}")
    lo = kind(match[1])
    hi = kind(match[2]) if match[2] is not None else lo
    if lo > hi:
        raise SelectionError(f"{what} {text!r}: {lo} is larger than {hi}")
    return lo, hi


def parse_cells(text: str, what: str = "cells") -> list[tuple[int, int]]:
    """Cells written `r,c;r,c` (or separated by spaces) as (row, col) pairs.

    >>> parse_cells("3,3; 0,2 (2,0)")
    [(3, 3), (0, 2), (2, 0)]
    """
    cells = []
    for item in re.split(r"[;\s]+", text.strip()):
        if not item:
            continue
        match = _CELL.fullmatch(item)
        if not match:
            raise SelectionError(f"{what}: {item!r} is not a cell; write cells as row,col;row,col")
        cells.append((int(match[1]), int(match[2])))
    if not cells:
        raise SelectionError(f"{what}: no cells given; write cells as row,col;row,col")
    return cells


def parse_counts(text: str, puzzle: Any, what: str = "--counts") -> dict[str, tuple[int, int]]:
    """Per-type counts `K=1,R=0..2` of a typed puzzle as {"K": (1, 1), "R": (0, 2)}."""
    if not puzzle.typed:
        raise SelectionError(f"{what} applies to puzzles with several piece types only")
    out: dict[str, tuple[int, int]] = {}
    for item in re.split(r"[,\s]+", text.strip()):
        if not item:
            continue
        letter, sep, value = item.partition("=")
        if not sep or letter not in puzzle.piece_types:
            raise SelectionError(
                f"{what}: {item!r} is not TYPE=A..B with TYPE one of {', '.join(puzzle.piece_types)}"
            )
        if letter in out:
            raise SelectionError(f"{what}: {letter} is given twice")
        out[letter] = parse_range(value, f"{what} {letter}")
    if not out:
        raise SelectionError(f"{what}: nothing given; write e.g. K=1,R=0..2")
    return out


def parse_number(text: str, what: str, minimum: int = 0) -> int:
    """A whole number of at least `minimum` (ranks, --sample, --limit, --seed).

    >>> parse_number(" 12 ", "--limit", 1)
    12
    """
    value = text.strip()
    if not re.fullmatch(r"[+-]?\d+", value):
        raise SelectionError(f"{what} must be a whole number, got {text!r}")
    number = int(value)
    if number < minimum:
        raise SelectionError(f"{what} must be at least {minimum}, got {number}")
    return number


def parse_names(text: str) -> list[str]:
    """Names separated by commas; `none` (or nothing) for none.

    >>> parse_names("counts, openings"), parse_names("none")
    (['counts', 'openings'], [])
    """
    if text.strip().lower() in ("", "none"):
        return []
    return [name.strip() for name in text.split(",") if name.strip()]


def optional_number(text: str | None, what: str, minimum: int = 0) -> int | None:
    """`parse_number` of an option that may be missing."""
    return None if text is None else parse_number(text, what, minimum)


def read_board(value: str, puzzle: Any) -> Any:
    """`--board`: the position drawn in the file `value` names (a regular file of at most
    `MAX_INPUT` bytes), else drawn in `value` itself, as the puzzle's own `parse(drawing, what)`
    reads drawings."""
    path = Path(value)
    if "\n" not in value and "\0" not in value and path.exists() and not path.is_dir():
        try:
            text = read_input(path)
        except (InputRefused, OSError, UnicodeDecodeError) as exc:
            why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            raise SelectionError(f"--board: {value}: cannot be read ({why})") from None
        return puzzle.parse(text, f"--board {value}")
    try:
        return puzzle.parse(value, "--board")
    except SelectionError as exc:
        if "\n" in value or not ("." in value or "/" in value):
            raise
        why = str(exc).removeprefix("--board: ")
        if path.is_dir():
            raise SelectionError(f"--board: {value} is a folder, not a file; as a drawing: {why}") from None
        if not path.exists():
            raise SelectionError(f"--board: no file {value!r}, and as a drawing: {why}") from None
        raise


TEXT_OPTIONS: dict[str, Callable[[str, Any], Any]] = {
    "pieces": lambda text, puzzle: parse_range(text, "--pieces"),
    "counts": lambda text, puzzle: parse_counts(text, puzzle),
    "must_include": lambda text, puzzle: parse_cells(text, "--must-include"),
    "must_exclude": lambda text, puzzle: parse_cells(text, "--must-exclude"),
    "distance": lambda text, puzzle: parse_range(text, "--distance", example="20..40"),
    "cluster": lambda text, puzzle: parse_range(text, "--cluster", example="20..40"),
    "walls": lambda text, puzzle: parse_range(text, "--walls", example="0..2"),
    "difficulty": lambda text, puzzle: parse_range(text, "--difficulty", "3..7.5", kind=float),
    "sample": lambda text, puzzle: parse_number(text, "--sample", 1),
    "seed": lambda text, puzzle: parse_number(text, "--seed"),
    "limit": lambda text, puzzle: parse_number(text, "--limit", 1),
}
"""How the selection options written as text become API values; the others (flags, `sort`)
are taken as they are."""


def selection_keywords(options: dict[str, Any], puzzle: Any) -> dict[str, Any]:
    """The API keywords of selection options given on the command line (text parsed).

    >>> selection_keywords({"pieces": "5..7", "unique": True, "sample": "20"}, None)
    {'pieces': (5, 7), 'unique': True, 'sample': 20}
    """
    return {name: TEXT_OPTIONS[name](value, puzzle) if name in TEXT_OPTIONS else value
            for name, value in options.items()}
