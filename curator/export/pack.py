"""Level packs: the JSON file a game engine loads (docs/level-pack.md, with its JSON Schema in
schemas/level-pack.schema.json), written from levels and read back with every key checked.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path
from typing import Any

from curator.arrange import CURVES, Curve, PackCurve, curve_from_difficulties, curve_from_levels
from curator.common.board import GRIDS, Board, BoardError
from curator.common.errors import PuzzleError, SelectionError
from curator.common.figures import difficulty_value, figure_value
from curator.common.ranking import rank_placement
from curator.common.reading import MAX_PACK_INPUT, TableReader, read_text
from curator.export.writing import json_text, pack_head, write_text
from curator.layered.level import PLAY_FIGURES, Level, Move, Play, PuzzleLike, Report, solution_json
from curator.layered.puzzle import Goal
from curator.layered.space import Layer
from curator.rules import FamilyError, ParamError, Rules, find_family

PACK_FORMAT = "curator-level-pack/1"
"""The `format` value of the level packs this version writes and reads."""
PACK_FORMAT_NAME = PACK_FORMAT.rsplit("/", 1)[0]


# -- writing packs ---------------------------------------------------------------------------


def pack_dict(puzzle: PuzzleLike, levels: Sequence[Level], curve: PackCurve | None = None) -> dict[str, Any]:
    """The level pack of `levels` as JSON-ready data (see docs/level-pack.md), with the
    difficulty curve it was arranged by if given."""
    if curve is not None and len(curve.targets) != len(levels):
        raise ValueError(f"the curve has {len(curve.targets)} slots for {len(levels)} levels")
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
        **pack_head(PACK_FORMAT),
        "puzzle": header,
        "board": {
            "grid": board.grid,
            "rows": board.rows,
            "cols": board.cols,
            "cells": [list(cell) for cell in board.cells],
        },
        **({} if curve is None else {"curve": curve.to_json()}),
        "levels": [_level_dict(puzzle, level) for level in levels],
    }


def _level_dict(puzzle: PuzzleLike, level: Level) -> dict[str, Any]:
    cells = puzzle.board.cells
    if len(level.position) != len(cells):
        raise ValueError(f"level {level.layer}/{level.rank}: position has {len(level.position)} cells")
    difficulty = float(level.difficulty)
    if math.isnan(difficulty) or difficulty == -math.inf:
        raise ValueError(f"level {level.layer}/{level.rank}: difficulty {difficulty} is not a number")
    r = level.report
    return {
        "layer": level.layer,
        "rank": int(level.rank),
        "pieces": [
            {"cell": list(cells[i]), "type": puzzle.piece_types[t - 1]}
            for i, t in enumerate(level.position)
            if t
        ],
        "solution": solution_json(puzzle, r.solution),
        "metrics": {
            "pieces": int(r.pieces),
            "legal_moves": int(r.legal_moves),
            "safe_moves": int(r.safe_moves),
            "solutions": int(r.solutions),
            "difficulty": difficulty_value(difficulty),
            **({"difficulty_terms": level.difficulty_terms} if level.difficulty_terms else {}),
            "solvable": bool(r.solvable),
            "unique": bool(r.unique),
            "all_moves": bool(r.all_moves),
            **({} if level.play is None else {name: figure_value(getattr(level.play, name))
                                              for name in PLAY_FIGURES}),
            "class_size": int(level.class_size),
        },
    }


def pack_text(puzzle: PuzzleLike, levels: Sequence[Level], curve: PackCurve | None = None) -> str:
    return json_text(pack_dict(puzzle, levels, curve))


def save_pack(puzzle: PuzzleLike, levels: Sequence[Level], path: str | Path,
              curve: PackCurve | None = None) -> Path:
    """Write the level pack of `levels` to `path` (through a temporary file and a rename)."""
    return write_text(path, pack_text(puzzle, levels, curve))[0]


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
    curve: PackCurve | None = None
    """The difficulty curve the pack was arranged by, if `curator pack` wrote it."""
    grades: tuple[float, ...] | None = None
    """How hard players found each level (its `grade`, higher is harder), where the pack
    gives every level one (`curator calibrate`)."""

    @cached_property
    def rules(self) -> Rules:
        return find_family(self.family).from_params(self.board, self.piece_types, dict(self.options))

    @property
    def typed(self) -> bool:
        return self.rules.typed


def load_pack(path: str | Path) -> tuple[PackHeader, list[Level]]:
    """Read and check a level pack: its format version, structure and cells.

    Raises `PackError` naming the file and the offending key. Solutions are not replayed
    here; `replay` does that.
    """
    text = read_text(path, PackError, MAX_PACK_INPUT)
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise PackError(str(path), "json", f"not valid JSON ({exc})")
    except RecursionError:
        raise PackError(str(path), "json", "arrays or objects are nested too deeply") from None
    return parse_pack(data, str(path))


def parse_pack(data: Any, source: str = "<pack>") -> tuple[PackHeader, list[Level]]:
    """Check already-decoded pack data; `source` names it in error messages."""
    return _PackReader(source).read(data)


def read_curve(text: str | Path, what: str = "curve") -> Curve:
    """The profile of a level pack file, as a curve (named curves are read by
    `curator.arrange.read_curve`)."""
    path = Path(text)
    if not path.is_file():
        raise SelectionError(f"{what}: {str(text)!r} is neither a curve ({', '.join(CURVES)}) "
                             "nor a level pack file")
    try:
        data, fmt = _pack_data(path)
        if fmt == PACK_FORMAT:
            return curve_from_levels(str(path), parse_pack(data, str(path))[1])
        key = "puzzles" if fmt == _universe_format() else _ranked_key(path, fmt)
        difficulties = _RankedReader(str(path)).difficulties(data, key)
        return curve_from_difficulties(str(path), difficulties)
    except PackError as exc:
        raise SelectionError(f"{what}: {exc} (a curve file is a level pack)") from None
    except SelectionError as exc:  # a pack, but not one a curve can be read from
        raise SelectionError(f"{what}: {exc}") from None
    except (ValueError, RecursionError) as exc:
        raise SelectionError(f"{what}: {path}: not valid JSON ({exc.__class__.__name__}) (a curve file is a "
                             "level pack)") from None


def _pack_data(path: str | Path) -> tuple[Any, Any]:
    """A pack file's JSON and its "format" (None if it names none)."""
    data = json.loads(read_text(path, PackError, MAX_PACK_INPUT))
    return data, data.get("format") if isinstance(data, dict) else None


def _universe_format() -> str:
    """The format of the puzzles `curator pack` arranges on universe tables (json), which a
    curve also follows."""
    from curator.export.universe import PUZZLES_FORMAT

    return PUZZLES_FORMAT


def _ranked_key(path: str | Path, fmt: Any) -> str:
    """Where a pack of format `fmt` lists its levels, if it lists them by rank (sliding-block,
    Sokoban and distance packs); PackError naming the formats if `fmt` is none of curator's."""
    from curator.export.distance import PACK_FORMAT as DISTANCE_FORMAT
    from curator.export.sliding import PACK_FORMAT as SLIDING_FORMAT
    from curator.export.sokoban import PACK_FORMAT as SOKOBAN_FORMAT

    keys = {SLIDING_FORMAT: "levels", SOKOBAN_FORMAT: "levels", DISTANCE_FORMAT: "positions"}
    key = keys.get(fmt or "")
    if key is None:
        raise PackError(str(path), "format", f"{fmt!r} is not a level pack of curator "
                        f"({PACK_FORMAT}, {SLIDING_FORMAT}, {SOKOBAN_FORMAT} or {DISTANCE_FORMAT})")
    return key


def read_graded(path: str | Path, option: str = "graded") -> tuple[str | None, list[Any], list[float]]:
    """The levels of a graded pack: the digest of the puzzle file it was written for (None if
    unknown), each level as its kind names positions (a level pack's positions, one entry per
    cell; the ranks of a sliding-block, Sokoban or distance pack), and how hard players found each:
    its `grade` where the levels have one, else its place in the pack (1, 2, ...: a pack's
    order says how hard they are). SelectionError in one line, led by `option` (how the caller
    names the file) and the path, if it is not such a pack."""
    try:
        data, fmt = _pack_data(path)
        if fmt == PACK_FORMAT:
            key = "levels"
            header, levels = parse_pack(data, str(path))
            found = (header.sha256, [level.position for level in levels],
                     list(header.grades or range(1, len(levels) + 1)))
        else:
            key = _ranked_key(path, fmt)
            found = _RankedReader(str(path)).read(data, key)
        _listed_once(found[1], str(path), key)
        return found
    except PackError as exc:
        raise SelectionError(f"{option} {exc}") from None
    except (ValueError, RecursionError) as exc:
        raise SelectionError(f"{option} {path}: not valid JSON ({exc.__class__.__name__})") from None


def _listed_once(items: list[Any], source: str, key: str) -> None:
    """PackError naming the entry that lists a level of an earlier entry again: grades of one
    level twice would count it as two levels."""
    seen: dict[Any, int] = {}
    for i, item in enumerate(items):
        level = tuple(item) if isinstance(item, list | tuple) else item
        if level in seen:
            raise PackError(source, f"{key}[{i}]", f"is the level of {key}[{seen[level]}] again (a graded "
                            "pack lists each level once)")
        seen[level] = i


class _RankedReader(TableReader):
    """The ranks and grades, or the difficulties, of a sliding-block, Sokoban or distance pack
    (the rest is not read)."""

    error = PackError
    document = "pack"

    def kind_name(self, kind: type) -> str:
        return kind.__name__

    def read(self, data: dict, key: str) -> tuple[str | None, list[Any], list[float]]:
        puzzle = self.get(data, "puzzle", dict, "")
        sha = self.get(puzzle, "sha256", str, "puzzle", None, nullable=True)
        items = self.get(data, key, list, "")
        ranks = []
        for i, item in enumerate(items):
            rank = self.get(item, "rank", int, f"{key}[{i}]")
            if not 0 <= rank < 2**63:
                raise self.fail(f"{key}[{i}].rank", f"must be a rank from 0 below 2^63, got {rank:.3g}")
            ranks.append(rank)
        found = [self.get(item, "grade", (int, float), f"{key}[{i}]", None) for i, item in enumerate(items)]
        if all(grade is None for grade in found):
            return sha, ranks, [float(i) for i in range(1, len(ranks) + 1)]
        if any(grade is None or not math.isfinite(grade) for grade in found):
            raise self.fail(key, "every entry needs a finite grade when one has a grade")
        return sha, ranks, [float(grade) for grade in found]

    def difficulties(self, data: dict, key: str) -> list[float | None]:
        """Each level's difficulty (None where it has none), in pack order."""
        items = self.get(data, key, list, "")
        return [self.get(item, "difficulty", (int, float), f"{key}[{i}]", None, nullable=True)
                for i, item in enumerate(items)]


class _PackReader(TableReader):
    error = PackError
    document = "pack"

    def kind_name(self, kind: type) -> str:
        return kind.__name__

    def read(self, data: Any) -> tuple[PackHeader, list[Level]]:
        fmt = self.get(data, "format", str, "")
        if fmt != PACK_FORMAT:
            if fmt.startswith(PACK_FORMAT_NAME + "/"):
                raise self.fail("format", f"version {fmt!r} is not supported (this reader: {PACK_FORMAT!r})")
            raise self.fail("format", f"{fmt!r} is not a curator level pack ({PACK_FORMAT!r})")
        self.only(data, {"format", "generator", "puzzle", "board", "curve", "levels"}, "")
        self.get(data, "generator", str, "")
        board = self.board(self.get(data, "board", dict, ""))
        header = self.header(self.get(data, "puzzle", dict, ""), board)
        items = self.get(data, "levels", list, "")
        levels = [self.level(item, header, f"levels[{i}]") for i, item in enumerate(items)]
        curve = self.get(data, "curve", dict, "", None)
        if curve is not None:
            header = replace(header, curve=self.curve(curve, len(levels)))
        grades = self.grades(items)
        if grades is not None:
            header = replace(header, grades=grades)
        return header, levels

    def grades(self, items: list) -> tuple[float, ...] | None:
        """Every level's `grade`, or None when no level has one (a pack whose levels are
        graded grades each of them)."""
        found = [self.get(item, "grade", (int, float), f"levels[{i}]", None) for i, item in enumerate(items)]
        if all(grade is None for grade in found):
            return None
        for i, grade in enumerate(found):
            if grade is None:
                raise self.fail(f"levels[{i}].grade", "is missing (when one level has a grade, all need one)")
            if not math.isfinite(grade):
                raise self.fail(f"levels[{i}].grade", f"must be a finite number, got {grade!r}")
        return tuple(float(grade) for grade in found)

    def curve(self, table: dict, levels: int) -> PackCurve:
        self.only(table, {"name", "pool", "slots"}, "curve")
        name = self.get(table, "name", str, "curve")
        pool = self.get(table, "pool", int, "curve")
        if pool < levels:
            raise self.fail("curve.pool", f"must be at least the number of levels ({levels}), got {pool}")
        slots = self.get(table, "slots", list, "curve")
        if len(slots) != levels:
            raise self.fail("curve.slots", f"has {len(slots)} slots for {levels} levels")
        figures: list[tuple[float, float]] = []
        for i, slot in enumerate(slots):
            where = f"curve.slots[{i}]"
            if not isinstance(slot, dict):
                raise self.fail(where, "must be an object")
            self.only(slot, {"target", "difficulty"}, where)
            pair = tuple(self.get(slot, key, (int, float), where) for key in ("target", "difficulty"))
            if not all(abs(v) < 1e300 and math.isfinite(v) for v in pair):
                raise self.fail(where, f"target and difficulty must be finite numbers, got {slot!r}")
            figures.append((float(pair[0]), float(pair[1])))
        return PackCurve(name, pool, tuple(t for t, _ in figures), tuple(d for _, d in figures))

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
        if not name:
            raise self.fail("puzzle.name", "must not be empty")
        title = self.title(table, ..., where)
        family = self.get(table, "family", str, where)
        try:
            find_family(family)
        except FamilyError as exc:
            raise self.fail("puzzle.family", str(exc))
        options = self.get(table, "options", dict, where)
        types = self.get(table, "piece_types", list, where)
        letters = all(isinstance(t, str) and len(t) == 1 and t.isalpha() for t in types)
        if not types or not letters or len(set(types)) != len(types):
            raise self.fail("puzzle.piece_types", f"must be distinct one-letter names, got {types!r}")
        goal = self.goal(self.get(table, "goal", dict, where), board, tuple(types))
        sha = self.get(table, "sha256", str, where, nullable=True)
        if sha is not None and not re.fullmatch(r"[0-9a-f]{64}", sha):
            raise self.fail("puzzle.sha256", f"must be 64 lowercase hex digits or null, got {sha!r}")
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
        self.only(item, {"layer", "rank", "pieces", "solution", "metrics", "grade"}, where)
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
        report, difficulty, play, class_size, terms = self.metrics(metrics, f"{where}.metrics", solution)
        if report.pieces != sum(counts):
            raise self.fail(
                f"{where}.metrics.pieces", f"is {report.pieces} but the level has {sum(counts)} pieces"
            )
        return Level(layer_key, rank, tuple(position), report, difficulty, header, play, class_size, terms)

    def metrics(self, table: dict, where: str, solution: list[Move],
                ) -> tuple[Report, float, Play | None, int, str]:
        names = ("pieces", "legal_moves", "safe_moves", "solutions")
        flags = ("solvable", "unique", "all_moves")
        keys = {*names, *flags, "difficulty", "difficulty_terms", *PLAY_FIGURES, "class_size"}
        self.only(table, keys, where)
        numbers = {}
        for name in names:
            numbers[name] = self.get(table, name, int, where)
            if numbers[name] < 0:
                raise self.fail(f"{where}.{name}", f"must not be negative, got {numbers[name]}")
        bools = {name: self.get(table, name, bool, where) for name in flags}
        value = self.get(table, "difficulty", (int, float), where, nullable=True)
        try:
            difficulty = (math.inf if not bools["solvable"] else math.nan) if value is None else float(value)
        except OverflowError:
            difficulty = math.nan
        if value is not None and not math.isfinite(difficulty):
            raise self.fail(f"{where}.difficulty", "must be a finite number or null")
        class_size = self.get(table, "class_size", int, where, 1)
        if class_size < 1:
            raise self.fail(f"{where}.class_size", f"must be at least 1, got {class_size}")
        terms = self.get(table, "difficulty_terms", str, where, "")
        report = Report(solution=solution, **numbers, **bools)
        return report, difficulty, self.play(table, where), class_size, terms

    def play(self, table: dict, where: str) -> Play | None:
        """The player figures, if the pack has them (packs of older versions do not)."""
        if "win_chance" not in table:
            return None
        figures = {}
        for name in PLAY_FIGURES:
            kind = (int,) if name in ("mistake_depth_max", "decisions", "forced") else (int, float)
            value = self.get(table, name, kind, where, None, nullable=True)
            if value is not None and (not math.isfinite(value) or value < 0):
                raise self.fail(f"{where}.{name}", f"must be a number of at least 0 or null, got {value!r}")
            figures[name] = value
        chance = figures["win_chance"]
        if chance is None or chance > 1:
            raise self.fail(f"{where}.win_chance", f"must be a chance from 0 to 1, got {chance!r}")
        return Play(**figures)
