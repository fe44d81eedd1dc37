"""Levels: selected positions with their metrics and a solution, as handed to exports.

A `Level` is what the selector produces and every export format consumes. This module also
reads and writes level packs (the JSON format described in docs/level-pack.md, with its JSON
Schema in schemas/level-pack.schema.json) and replays solutions under a puzzle's rules.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, Protocol

from curator import __version__
from curator.common.board import GRIDS, Board, BoardError
from curator.layered.puzzle import Goal, PuzzleError
from curator.common.ranking import rank_placement
from curator.rules import FAMILIES, ParamError, Rules
from curator.layered.search import Move, Report
from curator.layered.space import Layer

PACK_FORMAT = "curator-level-pack/1"
"""The `format` value of the level packs this version writes and reads."""
PACK_FORMAT_NAME = PACK_FORMAT.rsplit("/", 1)[0]


@dataclass(frozen=True)
class Level:
    """One selected position of a puzzle."""

    layer_key: str
    """The stored layer it belongs to (see `curator.layered.space.Layer.key`)."""
    rank: int
    """Its rank within that layer."""
    position: tuple[int, ...]
    """One entry per cell (in `Board.cells` order): 0 empty, t = piece type t (1-based)."""
    report: Report
    """Solvability, solution count, first-move figures and one solution."""
    difficulty: float
    """See `curator.layered.select.difficulty` for the formula (infinite for unsolvable positions)."""

    @property
    def pieces(self) -> int:
        return self.report.pieces

    @property
    def solution(self) -> list[Move]:
        return self.report.solution


class PuzzleLike(Protocol):
    """What packs, pictures and replays need of a puzzle: a `Puzzle` or a `PackHeader`."""

    name: str
    title: str
    board: Board
    piece_types: tuple[str, ...]
    goal: Goal

    @property
    def rules(self) -> Rules: ...


# -- replaying solutions ---------------------------------------------------------------------


class IllegalMove(ValueError):
    """A move of a replayed solution is not legal in the position it is played from."""

    def __init__(self, index: int, move: Move, message: str) -> None:
        super().__init__(f"move {index + 1} {move}: {message}")
        self.index = index
        self.move = move


def replay(puzzle: PuzzleLike, position: Sequence[int], moves: Sequence[Move]) -> list[tuple[int, ...]]:
    """Play `moves` (as (from_cell, to_cell) cell indices) from `position` under the rules.

    Returns the positions met, starting with `position` itself (so len(moves) + 1 of them).
    Each move is looked up among the legal moves (`Rules.moves_from`); a move that is not
    among them raises `IllegalMove`.
    """
    board = puzzle.board
    rules = puzzle.rules
    tables = rules.tables()
    start = tuple(int(v) for v in position)
    if len(start) != board.size:
        raise ValueError(f"a position has {board.size} cells, got {len(start)}")
    types = len(puzzle.piece_types)
    if any(not 0 <= v <= types for v in start):
        raise ValueError(f"position entries must be between 0 and {types}, got {start}")
    positions = [start]
    current = start
    for index, move in enumerate(moves):
        src, dst = (int(move[0]), int(move[1]))
        if not (0 <= src < board.size and 0 <= dst < board.size):
            raise IllegalMove(index, (src, dst), f"cells are numbered 0..{board.size - 1}")
        results = rules.moves_from(current, tables)
        matches = {child for m, child in results if m == (src, dst)}
        if not matches:
            legal = sorted({m for m, _ in results})
            raise IllegalMove(index, (src, dst), f"not a legal move here (legal: {legal})")
        if len(matches) > 1:
            raise IllegalMove(index, (src, dst), "stands for more than one move here")
        current = matches.pop()
        positions.append(current)
    return positions


def is_goal(puzzle: PuzzleLike, position: Sequence[int]) -> bool:
    """Whether `position` is a goal position of the puzzle."""
    goal = puzzle.goal
    occupied = [(i, v) for i, v in enumerate(position) if v]
    if len(occupied) != goal.pieces:
        return False
    if goal.cells is not None and any(i not in goal.cells for i, _ in occupied):
        return False
    return goal.piece is None or all(v == goal.piece for _, v in occupied)


# -- writing packs ---------------------------------------------------------------------------


def pack_dict(puzzle: PuzzleLike, levels: Sequence[Level]) -> dict[str, Any]:
    """The level pack of `levels` as JSON-ready data (see docs/level-pack.md)."""
    board = puzzle.board
    goal = puzzle.goal
    sha = getattr(puzzle, "sha256", None)
    header = {
        "name": puzzle.name,
        "title": puzzle.title,
        "family": puzzle.rules.family,
        "options": dict(puzzle.rules.options),
        "piece_types": list(puzzle.piece_types),
        "goal": {
            "pieces": goal.pieces,
            "cells": None if goal.cells is None else [list(board.cells[i]) for i in sorted(goal.cells)],
            "piece": None if goal.piece is None else puzzle.piece_types[goal.piece - 1],
            "final_step_once": goal.final_step_once,
        },
        "sha256": sha if isinstance(sha, str) else None,
    }
    return {
        "format": PACK_FORMAT,
        "generator": f"curator {__version__}",
        "puzzle": header,
        "board": {
            "grid": board.grid,
            "rows": board.rows,
            "cols": board.cols,
            "cells": [list(cell) for cell in board.cells],
        },
        "levels": [_level_dict(puzzle, level) for level in levels],
    }


def _level_dict(puzzle: PuzzleLike, level: Level) -> dict[str, Any]:
    cells = puzzle.board.cells
    if len(level.position) != len(cells):
        raise ValueError(f"level {level.layer_key}/{level.rank}: position has {len(level.position)} cells")
    difficulty = float(level.difficulty)
    if math.isnan(difficulty) or difficulty == -math.inf:
        raise ValueError(f"level {level.layer_key}/{level.rank}: difficulty {difficulty} is not a number")
    r = level.report
    return {
        "layer": level.layer_key,
        "rank": int(level.rank),
        "pieces": [
            {"cell": list(cells[i]), "type": puzzle.piece_types[t - 1]}
            for i, t in enumerate(level.position)
            if t
        ],
        "solution": [{"from": list(cells[a]), "to": list(cells[b])} for a, b in r.solution],
        "metrics": {
            "pieces": int(r.pieces),
            "legal_moves": int(r.legal_moves),
            "safe_moves": int(r.safe_moves),
            "solutions": int(r.solutions),
            "difficulty": difficulty if math.isfinite(difficulty) else None,
            "solvable": bool(r.solvable),
            "unique": bool(r.unique),
            "all_moves": bool(r.all_moves),
        },
    }


def pack_text(puzzle: PuzzleLike, levels: Sequence[Level]) -> str:
    return json.dumps(pack_dict(puzzle, levels), indent=1, ensure_ascii=False) + "\n"


def save_pack(puzzle: PuzzleLike, levels: Sequence[Level], path: str | Path) -> Path:
    """Write the level pack of `levels` to `path` (through a temporary file and a rename)."""
    from curator.layered.store import atomic_write

    path = Path(path)
    atomic_write(path, pack_text(puzzle, levels).encode())
    return path


# -- reading packs ---------------------------------------------------------------------------


class PackError(PuzzleError):
    """A level pack is malformed; the message is one line: source: key: problem."""


@dataclass(frozen=True)
class PackHeader:
    """The puzzle part of a level pack: enough to draw its levels and replay their solutions."""

    name: str
    title: str
    family: str
    options: dict[str, Any] = field(hash=False)
    board: Board
    piece_types: tuple[str, ...]
    goal: Goal
    sha256: str | None
    format: str = PACK_FORMAT

    @cached_property
    def rules(self) -> Rules:
        return FAMILIES[self.family].from_params(self.board, self.piece_types, dict(self.options))

    @property
    def typed(self) -> bool:
        return self.rules.typed


def load_pack(path: str | Path) -> tuple[PackHeader, list[Level]]:
    """Read and check a level pack: its format version, structure and cells.

    Raises `PackError` naming the file and the offending key. Solutions are not replayed
    here; `replay` does that.
    """
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise PackError(str(path), "file", f"cannot be read ({exc.__class__.__name__}: {exc})")
    except ValueError as exc:
        raise PackError(str(path), "json", f"not valid JSON ({exc})")
    return parse_pack(data, str(path))


def parse_pack(data: Any, source: str = "<pack>") -> tuple[PackHeader, list[Level]]:
    """Check already-decoded pack data; `source` names it in error messages."""
    return _PackReader(source).read(data)


class _PackReader:
    def __init__(self, source: str) -> None:
        self.source = source

    def fail(self, key: str, message: str) -> PackError:
        return PackError(self.source, key, message)

    def get(self, table: Any, key: str, kind: type | tuple[type, ...], where: str, nullable: bool = False):
        full = f"{where}.{key}" if where else key
        if not isinstance(table, dict):
            raise self.fail(where or "pack", "must be an object")
        if key not in table:
            raise self.fail(full, "is missing")
        value = table[key]
        if value is None and nullable:
            return None
        kinds = kind if isinstance(kind, tuple) else (kind,)
        if not isinstance(value, kinds) or (bool not in kinds and isinstance(value, bool)):
            raise self.fail(full, f"must be {' or '.join(k.__name__ for k in kinds)}, got {value!r}")
        return value

    def only(self, table: dict, allowed: set[str], where: str) -> None:
        for key in table:
            if key not in allowed:
                full = f"{where}.{key}" if where else key
                raise self.fail(full, f"unknown key (expected one of {', '.join(sorted(allowed))})")

    def read(self, data: Any) -> tuple[PackHeader, list[Level]]:
        fmt = self.get(data, "format", str, "")
        if fmt != PACK_FORMAT:
            if fmt.startswith(PACK_FORMAT_NAME + "/"):
                raise self.fail("format", f"version {fmt!r} is not supported (this reader: {PACK_FORMAT!r})")
            raise self.fail("format", f"{fmt!r} is not a curator level pack ({PACK_FORMAT!r})")
        self.only(data, {"format", "generator", "puzzle", "board", "levels"}, "")
        self.get(data, "generator", str, "")
        board = self.board(self.get(data, "board", dict, ""))
        header = self.header(self.get(data, "puzzle", dict, ""), board)
        items = self.get(data, "levels", list, "")
        return header, [self.level(item, header, f"levels[{i}]") for i, item in enumerate(items)]

    def cell(self, value: Any, board: Board, key: str) -> int:
        if (
            not isinstance(value, list)
            or len(value) != 2
            or not all(isinstance(v, int) and not isinstance(v, bool) for v in value)
        ):
            raise self.fail(key, f"a cell is [row, column], got {value!r}")
        index = board.index.get((value[0], value[1]))
        if index is None:
            raise self.fail(key, f"{value!r} is not a cell of the board")
        return index

    def board(self, table: dict) -> Board:
        self.only(table, {"grid", "rows", "cols", "cells"}, "board")
        grid = self.get(table, "grid", str, "board")
        if grid not in GRIDS:
            raise self.fail("board.grid", f"unknown grid {grid!r} (expected one of {', '.join(GRIDS)})")
        cells = self.get(table, "cells", list, "board")
        if not cells:
            raise self.fail("board.cells", "the board has no cells")
        coords = []
        for i, value in enumerate(cells):
            if (
                not isinstance(value, list)
                or len(value) != 2
                or not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in value)
            ):
                raise self.fail(
                    f"board.cells[{i}]", f"a cell is [row, column] with row, column >= 0, got {value!r}"
                )
            coords.append((value[0], value[1]))
        if coords != sorted(set(coords)):
            raise self.fail("board.cells", "cells must be distinct and in row-major order")
        try:
            board = Board(grid, tuple(coords))
        except BoardError as exc:  # pragma: no cover - Board accepts any distinct cells
            raise self.fail("board", str(exc))
        for key, expected in (("rows", board.rows), ("cols", board.cols)):
            if self.get(table, key, int, "board") != expected:
                raise self.fail(f"board.{key}", f"must be {expected} for these cells")
        return board

    def header(self, table: dict, board: Board) -> PackHeader:
        where = "puzzle"
        self.only(table, {"name", "title", "family", "options", "piece_types", "goal", "sha256"}, where)
        name = self.get(table, "name", str, where)
        title = self.get(table, "title", str, where)
        family = self.get(table, "family", str, where)
        if family not in FAMILIES:
            raise self.fail("puzzle.family", f"unknown family {family!r} (known: {', '.join(FAMILIES)})")
        options = self.get(table, "options", dict, where)
        types = self.get(table, "piece_types", list, where)
        letters = all(isinstance(t, str) and len(t) == 1 and t.isalpha() for t in types)
        if not types or not letters or len(set(types)) != len(types):
            raise self.fail("puzzle.piece_types", f"must be distinct one-letter names, got {types!r}")
        goal = self.goal(self.get(table, "goal", dict, where), board, tuple(types))
        sha = self.get(table, "sha256", str, where, nullable=True)
        header = PackHeader(name, title, family, dict(options), board, tuple(types), goal, sha)
        try:
            header.rules  # noqa: B018 - builds and validates the rules
        except ParamError as exc:
            raise self.fail(f"puzzle.options.{exc.key}" if exc.key != "family" else "puzzle.family", str(exc))
        return header

    def goal(self, table: dict, board: Board, types: tuple[str, ...]) -> Goal:
        where = "puzzle.goal"
        self.only(table, {"pieces", "cells", "piece", "final_step_once"}, where)
        pieces = self.get(table, "pieces", int, where)
        if pieces < 1:
            raise self.fail(f"{where}.pieces", f"must be at least 1, got {pieces}")
        cells = self.get(table, "cells", list, where, nullable=True)
        if cells is not None:
            cells = frozenset(self.cell(c, board, f"{where}.cells[{i}]") for i, c in enumerate(cells))
        piece = self.get(table, "piece", str, where, nullable=True)
        if piece is not None:
            if piece not in types:
                raise self.fail(f"{where}.piece", f"{piece!r} is not one of puzzle.piece_types")
            piece = types.index(piece) + 1
        once = self.get(table, "final_step_once", bool, where)
        return Goal(pieces, cells, piece, once)

    def level(self, item: Any, header: PackHeader, where: str) -> Level:
        board = header.board
        if not isinstance(item, dict):
            raise self.fail(where, "must be an object")
        self.only(item, {"layer", "rank", "pieces", "solution", "metrics"}, where)
        layer_key = self.get(item, "layer", str, where)
        rank = self.get(item, "rank", int, where)
        position = [0] * board.size
        for i, piece in enumerate(self.get(item, "pieces", list, where)):
            key = f"{where}.pieces[{i}]"
            if not isinstance(piece, dict):
                raise self.fail(key, "must be an object")
            self.only(piece, {"cell", "type"}, key)
            cell = self.cell(self.get(piece, "cell", list, key), board, f"{key}.cell")
            kind = self.get(piece, "type", str, key)
            if kind not in header.piece_types:
                raise self.fail(f"{key}.type", f"{kind!r} is not one of puzzle.piece_types")
            if position[cell]:
                raise self.fail(f"{key}.cell", f"{list(board.cells[cell])} holds two pieces")
            position[cell] = header.piece_types.index(kind) + 1
        counts = tuple(position.count(t) for t in range(1, len(header.piece_types) + 1))
        if not sum(counts):
            raise self.fail(f"{where}.pieces", "a level has at least one piece")
        layer = Layer(counts, board.size, header.piece_types)
        if layer.key != layer_key:
            raise self.fail(f"{where}.layer", f"is {layer_key!r} but the pieces make layer {layer.key!r}")
        expected = rank_placement(position, counts)
        if rank != expected:
            raise self.fail(f"{where}.rank", f"is {rank} but the pieces have rank {expected} in {layer.key}")
        solution = []
        for i, move in enumerate(self.get(item, "solution", list, where)):
            key = f"{where}.solution[{i}]"
            if not isinstance(move, dict):
                raise self.fail(key, "must be an object")
            self.only(move, {"from", "to"}, key)
            solution.append((
                self.cell(self.get(move, "from", list, key), board, f"{key}.from"),
                self.cell(self.get(move, "to", list, key), board, f"{key}.to"),
            ))
        metrics = self.get(item, "metrics", dict, where)
        report, difficulty = self.metrics(metrics, f"{where}.metrics", solution)
        if report.pieces != sum(counts):
            raise self.fail(
                f"{where}.metrics.pieces", f"is {report.pieces} but the level has {sum(counts)} pieces"
            )
        return Level(layer_key, rank, tuple(position), report, difficulty)

    def metrics(self, table: dict, where: str, solution: list[Move]) -> tuple[Report, float]:
        names = ("pieces", "legal_moves", "safe_moves", "solutions")
        flags = ("solvable", "unique", "all_moves")
        self.only(table, {*names, *flags, "difficulty"}, where)
        numbers = {}
        for name in names:
            numbers[name] = self.get(table, name, int, where)
            if numbers[name] < 0:
                raise self.fail(f"{where}.{name}", f"must not be negative, got {numbers[name]}")
        bools = {name: self.get(table, name, bool, where) for name in flags}
        value = self.get(table, "difficulty", (int, float), where, nullable=True)
        try:
            difficulty = math.inf if value is None else float(value)
        except OverflowError:
            difficulty = math.nan
        if value is not None and not math.isfinite(difficulty):
            raise self.fail(f"{where}.difficulty", "must be a finite number or null")
        return Report(solution=solution, **numbers, **bools), difficulty
