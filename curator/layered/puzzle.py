"""Puzzle files (TOML) turned into validated `Puzzle` objects.

Every problem in a file is reported as one `PuzzleError` naming the file, the key and what
is wrong. The format is described in docs/puzzle-format.md.
"""

from __future__ import annotations

import hashlib
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from curator.common.board import Board, BoardError
from curator.rules import FAMILIES, ParamError, Rules

MAX_CELLS = 64
NAME_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
BINARY_PIECE = "o"
TOP_KEYS = {"name", "title", "max_pieces", "board", "rules", "goal", "pieces"}
GOAL_KEYS = {"pieces", "cells", "piece", "final_step_once"}
BOARD_KEYS = {"grid", "art"}


class PuzzleError(ValueError):
    """A puzzle file is malformed; the message is one line: file: key: problem."""

    def __init__(self, source: str, key: str, message: str) -> None:
        super().__init__(f"{_one_line(source)}: {_one_line(key)}: {_one_line(message)}")
        self.source = source
        self.key = key


@dataclass(frozen=True)
class Goal:
    """What a solved position looks like."""

    pieces: int
    cells: frozenset[int] | None = None
    """If set, the remaining pieces must all stand on these cells."""
    piece: int | None = None
    """If set, the remaining pieces must all be of this type (1-based)."""
    final_step_once: bool = False
    """Count the last step to the goal once (all solvable positions one above the goal
    then have exactly one solution), as Fling! does."""


@dataclass(frozen=True)
class Puzzle:
    """A validated puzzle: board, rules, pieces, goal and default depth."""

    name: str
    title: str
    board: Board
    rules: Rules
    piece_types: tuple[str, ...]
    piece_limits: tuple[int, ...]
    goal: Goal
    max_pieces: int
    text: str
    source: str

    @property
    def typed(self) -> bool:
        return self.rules.typed

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.text.encode()).hexdigest()


def read_puzzle_text(path: str | Path) -> str:
    """The text of a puzzle file; PuzzleError naming the file if it cannot be read."""
    try:
        return Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise PuzzleError(str(path), "file", f"cannot be read ({exc.__class__.__name__}: {exc})")


def load_puzzle(path: str | Path) -> Puzzle:
    """Read and validate a puzzle file."""
    return parse_puzzle(read_puzzle_text(path), str(path))


def parse_puzzle(text: str, source: str = "<puzzle>") -> Puzzle:
    """Validate puzzle-file text; `source` names it in error messages."""
    return _Reader(source).puzzle(read_toml(text, source), text)


def read_toml(text: str, source: str) -> dict:
    """The tables of a puzzle file's text; PuzzleError naming `source` if it is not TOML."""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise PuzzleError(source, "toml", f"not valid TOML ({exc})")
    except RecursionError:
        raise PuzzleError(source, "toml", "arrays or tables are nested too deeply") from None


class _Reader:
    """Reads one puzzle file's tables, naming `source` and the key in every error."""

    def __init__(self, source: str) -> None:
        self.source = source

    def fail(self, key: str, message: str) -> PuzzleError:
        return PuzzleError(self.source, key, message)

    def get(self, table: dict, key: str, kind: type, where: str, default: Any = ...) -> Any:
        full = f"{where}.{key}" if where else key
        if key not in table:
            if default is ...:
                raise self.fail(full, "is missing")
            return default
        value = table[key]
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            raise self.fail(full, f"must be {_kind_name(kind)}, got {value!r}")
        return value

    def only(self, table: dict, allowed: set[str], where: str) -> None:
        for key in table:
            if key not in allowed:
                full = f"{where}.{key}" if where else key
                raise self.fail(full, f"unknown key (expected one of {', '.join(sorted(allowed))})")

    def puzzle(self, data: dict, text: str) -> Puzzle:
        self.only(data, TOP_KEYS, "")
        name = self.get(data, "name", str, "")
        if not NAME_PATTERN.fullmatch(name) or name in {".", ".."}:
            raise self.fail(
                "name",
                f"{name!r} is not a plain name (letters, digits, '_', '-', '.', up to 64 "
                "characters, starting with a letter or digit)",
            )
        title = self.get(data, "title", str, "", name)
        board = self.board(self.get(data, "board", dict, ""))
        piece_types, limits = self.pieces(data, board)
        rules = self.rules(self.get(data, "rules", dict, ""), board, piece_types)
        goal = self.goal(self.get(data, "goal", dict, "", {}), board, piece_types, limits)
        total = sum(limits)
        max_pieces = self.get(data, "max_pieces", int, "", total)
        if not goal.pieces <= max_pieces <= total:
            raise self.fail(
                "max_pieces", f"must be between goal.pieces ({goal.pieces}) and {total}, got {max_pieces}"
            )
        return Puzzle(name, title, board, rules, piece_types, limits, goal, max_pieces, text, self.source)

    def board(self, table: dict) -> Board:
        self.only(table, BOARD_KEYS, "board")
        grid = self.get(table, "grid", str, "board", "square")
        art = self.get(table, "art", str, "board")
        try:
            board = Board.from_art(grid, art)
        except BoardError as exc:
            raise self.fail(f"board.{exc.part}", str(exc))
        if board.size > MAX_CELLS:
            raise self.fail("board.art", f"has {board.size} cells; at most {MAX_CELLS} are supported")
        return board

    def pieces(self, data: dict, board: Board) -> tuple[tuple[str, ...], tuple[int, ...]]:
        if "pieces" not in data:
            return (BINARY_PIECE,), (board.size,)
        table = self.get(data, "pieces", dict, "")
        if not table:
            raise self.fail("pieces", "names no piece types")
        for letter in table:
            if len(letter) != 1 or not letter.isalpha() or letter == BINARY_PIECE:
                raise self.fail(f"pieces.{letter}", "piece types are single letters other than 'o'")
            count = self.get(table, letter, int, "pieces")
            if not 1 <= count <= board.size:
                raise self.fail(f"pieces.{letter}", f"must be between 1 and {board.size}, got {count}")
        if sum(table.values()) > board.size:
            raise self.fail("pieces", f"{sum(table.values())} pieces do not fit on {board.size} cells")
        return tuple(table), tuple(table.values())

    def rules(self, table: dict, board: Board, piece_types: tuple[str, ...]) -> Rules:
        family = self.get(table, "family", str, "rules")
        if family not in FAMILIES:
            raise self.fail("rules.family", f"unknown family {family!r} (known: {', '.join(FAMILIES)})")
        typed = piece_types != (BINARY_PIECE,)
        if FAMILIES[family].typed != typed:
            need = "needs a [pieces] table" if not typed else "has one kind of piece: remove [pieces]"
            raise self.fail("pieces", f"family {family!r} {need}")
        params = {k: v for k, v in table.items() if k != "family"}
        try:
            return FAMILIES[family].from_params(board, piece_types, params)
        except ParamError as exc:
            raise self.fail(f"rules.{exc.key}", str(exc))

    def goal(self, table: dict, board: Board, piece_types: tuple[str, ...], limits: tuple[int, ...]) -> Goal:
        self.only(table, GOAL_KEYS, "goal")
        pieces = self.get(table, "pieces", int, "goal", 1)
        if not 1 <= pieces <= sum(limits):
            raise self.fail("goal.pieces", f"must be between 1 and {sum(limits)}, got {pieces}")
        cells = None
        if "cells" in table:
            cells = frozenset(self.cell(c, board) for c in self.get(table, "cells", list, "goal"))
            if len(cells) < pieces:
                raise self.fail("goal.cells", f"names {len(cells)} cells, fewer than goal.pieces ({pieces})")
        piece = None
        if "piece" in table:
            letter = self.get(table, "piece", str, "goal")
            if letter not in piece_types or len(piece_types) == 1:
                raise self.fail("goal.piece", f"{letter!r} is not one of the puzzle's [pieces]")
            piece = piece_types.index(letter) + 1
            if limits[piece - 1] < pieces:
                raise self.fail("goal.piece", f"only {limits[piece - 1]} {letter} pieces exist")
        final_step_once = self.get(table, "final_step_once", bool, "goal", False)
        return Goal(pieces, cells, piece, final_step_once)

    def cell(self, value: Any, board: Board) -> int:
        if (
            not isinstance(value, list)
            or len(value) != 2
            or not all(isinstance(v, int) and not isinstance(v, bool) for v in value)
        ):
            raise self.fail("goal.cells", f"each cell is [row, column], got {value!r}")
        index = board.index.get((value[0], value[1]))
        if index is None:
            raise self.fail("goal.cells", f"{value!r} is not a cell of the board")
        return index


def _one_line(text: str) -> str:
    """`text` with line breaks and other control characters escaped."""
    return "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in text)


def _kind_name(kind: type) -> str:
    return {str: "a string", int: "an integer", bool: "true or false", dict: "a table", list: "a list"}[
        kind
    ]
