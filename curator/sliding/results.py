"""`SlidingResults`: the stored tables of a sliding-block puzzle, as the Python API shows them.

The same shape as `LayeredResults` and `DistanceResults`: `puzzle`, `layers` (one entry per
distance), `count`, `select`, `solve`, `show`, `verify` and `export`; positions come back as
`SlidingLevel`s, each with its distance, flags, connected set and one shortest solution.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, cast

import numpy as np

from curator.arrange import POOL_SIZE, SET_VARIETY, Pack, arrange_sets, read_curve, variety_rules
from curator.common.difficulty import Measure, Terms, grid
from curator.common.errors import SelectionError, StoreError
from curator.common.figures import difficulty_value
from curator.common.files import DEFAULT_SAMPLE, Verification
from curator.common.keywords import at_least, span
from curator.common.tables import DistanceResultsBase
from curator.sliding.puzzle import DIRECTION_NAMES, Cell, Position, SlidingPuzzle
from curator.sliding.select import cluster_sizes, matching, measure, move_text, recheck, solutions
from curator.sliding.store import TABLES, SlidingStore
from curator.sliding.sweep import ALL_MOVES, INVALID, UNIQUE, UNSOLVABLE
from curator.sliding.tables import Kernel, build_kernel

KEYWORDS = ("distance", "unique", "all_moves", "cluster", "hardest", "sample", "seed", "limit")
"""The keywords `select` takes (`count` takes those before `sample`)."""


@dataclass(frozen=True)
class SlidingLevel:
    """One position of a sliding-block puzzle, what the tables say of it, and a shortest
    solution."""

    rank: int
    position: Position
    distance: int | None
    """Moves to the goal in the puzzle's metric; None if it cannot be solved."""
    unique: bool
    all_moves: bool
    cluster: int
    """Positions in its connected set (moves join positions both ways)."""
    connected_set: int
    """The number of its connected set (sets are numbered in order of their smallest rank)."""
    solution: list[str]
    """The moves of one shortest solution, as 'V 2,0 -> 3,0'."""
    puzzle: SlidingPuzzle = field(repr=False, compare=False)
    effort: float | None = None
    """The effort, in moves, of the modelled player (`curator.common.difficulty`) that solves it;
    None if it cannot be solved."""
    difficulty_terms: str = ""
    """What its difficulty is made of, in one line ("24 moves; 5 tempting detours, 2 long; ...")."""

    @property
    def solvable(self) -> bool:
        return self.distance is not None

    @property
    def difficulty(self) -> float:
        """The player model's effort (on the scale of every kind's levels; NaN if not
        solvable); packs follow their curve in it."""
        return float("nan") if self.effort is None else float(self.effort)

    @property
    def board(self) -> list[str]:
        """The drawing, one string per row."""
        return self.puzzle.draw(self.position).split("\n")

    def to_json(self) -> dict[str, Any]:
        """The level as `select --json` prints it and the exports take it."""
        return {"rank": self.rank, "board": self.board, "distance": self.distance,
                "difficulty": None if self.effort is None else difficulty_value(self.effort),
                "difficulty_terms": self.difficulty_terms, "unique": self.unique,
                "all_moves": self.all_moves, "cluster": self.cluster, "solution": list(self.solution)}

    def _repr_svg_(self) -> str:
        from curator.picture import block_picture, svg_text

        return svg_text(block_picture(self.puzzle, self.position, f"#{self.rank}, distance {self.distance}"))


@dataclass(frozen=True)
class SlidingMove:
    """One legal move of a position and where it leads (see `SlidingResults.moves`)."""

    piece: str
    """The letter of the piece that moves ("" for a tilt, which moves them all)."""
    source: Cell | None
    """Its anchor cell (first cell in row-major order) before the move, as (row, col); None
    for a tilt."""
    target: Cell | None
    """Its anchor cell after the move; None for a tilt."""
    cost: int
    """What the move adds to a solution's length in the puzzle's metric."""
    position: Position
    """The position the move leads to."""
    distance: int | None
    """The distance of that position; None if it cannot be solved."""
    closer: bool
    """The move starts a shortest solution: its distance plus its cost is the one before."""
    text: str
    """The move as solutions write it: 'V 2,0 -> 3,0', or 'tilt up'."""
    direction: str | None = None
    """For a tilt, the way the board tilts: one of DIRECTION_NAMES."""

    @property
    def solvable(self) -> bool:
        return self.distance is not None


@dataclass(frozen=True)
class SlidingSelection:
    """The levels `select` returns, and how many positions passed the filters."""

    levels: list[SlidingLevel]
    matched: int


class SlidingResults(DistanceResultsBase):
    """The stored tables of one sliding-block puzzle, opened with `curator.open`.

    >>> import curator
    >>> results = curator.analyze("puzzles/klotski.toml", output="output/klotski")
    >>> results.solve(results.puzzle.draw(results.puzzle.start)).distance
    81
    """

    kind = "sliding"
    store_class = SlidingStore
    store: SlidingStore
    puzzle: SlidingPuzzle

    # -- the tables, checked before use ---------------------------------------------------------

    def _table(self, name: str) -> np.ndarray:
        if not self.store.complete:
            raise StoreError(f"{self.directory}: the analysis is not finished; run `curator analyze` again")
        return self.store.load(name)

    @cached_property
    def distances(self) -> np.ndarray:
        return self._table("distances")

    @cached_property
    def flags(self) -> np.ndarray:
        return self._table("flags")

    @cached_property
    def clusters(self) -> np.ndarray:
        return self._table("clusters")

    @cached_property
    def cluster_sizes(self) -> np.ndarray:
        """Positions in each connected set, by its number."""
        return cluster_sizes(self.clusters)

    @cached_property
    def kernel(self) -> Kernel:
        return build_kernel(self.puzzle)

    # -- selecting -----------------------------------------------------------------------------

    def _ranks(self, distance: int | tuple[int, int] | None, unique: bool, all_moves: bool,
               cluster: int | tuple[int, int] | None, hardest: bool) -> np.ndarray:
        lo, hi = (1, UNSOLVABLE - 1) if distance is None else span(distance, self._name("distance"))
        sizes = None if cluster is None else span(cluster, self._name("cluster"))
        for key, value in (("unique", unique), ("all_moves", all_moves), ("hardest", hardest)):
            if not isinstance(value, bool):
                raise SelectionError(f"{self._name(key)} must be true or false, got {value!r}")
        return matching(self.distances, self.flags, self.clusters, self.cluster_sizes, (lo, hi), unique,
                        all_moves, sizes, hardest)

    def count(self, distance: int | tuple[int, int] | None = None, unique: bool = False,
              all_moves: bool = False, cluster: int | tuple[int, int] | None = None, hardest: bool = False,
              **others: Any) -> int:
        """How many solvable, unsolved positions pass the filters (see `select`)."""
        self._refuse(others)
        return len(self._ranks(distance, unique, all_moves, cluster, hardest))

    def distance_span(self, unique: bool = False, all_moves: bool = False,
                      cluster: int | tuple[int, int] | None = None, hardest: bool = False,
                      ) -> tuple[int, int] | None:
        """The shortest and longest distance of the levels passing these filters (any
        distance), or None if none does: where a selection that found nothing can look."""
        ranks = self._ranks(None, unique, all_moves, cluster, hardest)
        if not len(ranks):
            return None
        found = self.distances[ranks]
        return int(found.min()), int(found.max())

    def select(self, distance: int | tuple[int, int] | None = None, unique: bool = False,
               all_moves: bool = False, cluster: int | tuple[int, int] | None = None, hardest: bool = False,
               sample: int | None = None, seed: int | None = None, limit: int | None = None,
               **others: Any) -> list[SlidingLevel]:
        """Solvable, unsolved positions, farthest from the goal first, then by rank.

        `distance` A or (A, B) keeps those distances; `unique` those with exactly one shortest
        solution; `all_moves` those where every move keeps them solvable; `cluster` A or (A, B)
        those whose connected set has that many positions; `hardest` the first of each
        connected set that is left (its farthest position, smallest rank on ties). `sample`
        draws that many at random (`seed`), `limit` keeps the first.
        """
        return self.selection(distance, unique, all_moves, cluster, hardest, sample, seed, limit,
                              **others).levels

    def selection(self, distance: int | tuple[int, int] | None = None, unique: bool = False,
                  all_moves: bool = False, cluster: int | tuple[int, int] | None = None,
                  hardest: bool = False, sample: int | None = None, seed: int | None = None,
                  limit: int | None = None, cap: int | None = None, **others: Any) -> SlidingSelection:
        """The levels `select` returns and the number of positions the filters kept. With
        `cap`, more than that many levels to return (after `sample` and `limit`) is a
        SelectionError, raised before any solution is walked."""
        self._refuse(others)
        if seed is not None and sample is None:
            raise SelectionError(f"{self._name('seed')} only applies with {self._name('sample')}")
        sample = at_least(sample, 1, self._name("sample"))
        limit = at_least(limit, 1, self._name("limit"))
        seed = at_least(seed, 0, self._name("seed"))
        cap = at_least(cap, 1, self._name("cap"))
        ranks = self._ranks(distance, unique, all_moves, cluster, hardest)
        matched = len(ranks)
        keep = min(matched, sample or matched, limit or matched)
        if cap is not None and keep > cap:
            raise SelectionError(f"{keep:,} levels match; at most {cap:,} are returned at once "
                                 f"(add {self._name('limit')} N or {self._name('sample')} N)")
        if sample is not None and sample < len(ranks):
            ranks = ranks[np.sort(np.random.default_rng(seed or 0).choice(len(ranks), sample, replace=False))]
        if limit is not None:
            ranks = ranks[:limit]
        return SlidingSelection(self._levels(ranks), matched)

    def _refuse(self, others: dict[str, Any]) -> None:
        if others:
            raise SelectionError(
                f"{', '.join(self._name(k) for k in others)} {'does' if len(others) == 1 else 'do'} "
                f"not apply to the sliding-block tables in {self.directory}; filters are "
                f"{', '.join(self._name(k) for k in KEYWORDS)}")

    def _levels(self, ranks: np.ndarray) -> list[SlidingLevel]:
        longest = max(int(self.store.manifest.get("max_distance", 0)), 1)
        try:
            paths = solutions(self.kernel, self.distances, ranks, longest)
        except ValueError as exc:
            raise StoreError(f"{self.directory}: {exc} (damaged results)") from None
        player = self.player
        found, terms = measure(self.kernel, self.distances, ranks, longest, *grid(player), player.lookahead)
        return [self._level(int(r), path, player.effort(Measure(*found[i, 0])), terms[i])
                for i, (r, path) in enumerate(zip(ranks, paths))]

    def measures(self, ranks: np.ndarray) -> np.ndarray:
        """The player model's measures of these positions at every point of the calibration
        grid (`curator.common.difficulty.grid`): float[ranks, points, 3]."""
        longest = max(int(self.store.manifest.get("max_distance", 0)), 1)
        return measure(self.kernel, self.distances, ranks, longest, *grid(), self.player.lookahead)[0]

    def _level(self, rank: int, path: list[int] | None, effort: float = math.nan,
               terms: np.ndarray | None = None) -> SlidingLevel:
        position = cast(Position, self.puzzle.unrank(rank))  # the tables' ranks are of valid positions
        steps = [] if path is None else [position, *(cast(Position, self.puzzle.unrank(r)) for r in path)]
        distance = int(self.distances[rank])
        flags = int(self.flags[rank])
        solvable = distance < UNSOLVABLE
        explained = "" if terms is None or not solvable else Terms(
            moves=len(steps) - 1 if steps else 0, dead_ends=int(terms[2]), detours=int(terms[0]),
            long_detours=int(terms[1]), forced=int(terms[3]),
            choices=float(terms[4]) / max(len(steps) - 1, 1)).text()
        return SlidingLevel(
            rank, position, distance if solvable else None, bool(flags & UNIQUE),
            bool(flags & ALL_MOVES), int(self.cluster_sizes[self.clusters[rank]]), int(self.clusters[rank]),
            [move_text(self.puzzle, a, b) for a, b in zip(steps, steps[1:])], self.puzzle,
            effort if solvable and math.isfinite(effort) else None, explained)

    def pack(self, size: int, curve: str | Path = "linear", *, pool: int = POOL_SIZE, seed: int = 0,
             distance: int | tuple[int, int] | None = None, unique: bool = False, all_moves: bool = False,
             cluster: int | tuple[int, int] | None = None, hardest: bool = False,
             variety: Iterable[str] | None = SET_VARIETY, **others: Any) -> Pack:
        """A pack of `size` levels matching the filters (those of `select`) whose distances
        follow `curve` from short to long: a name of `curator.arrange.CURVES` or a level pack
        file whose order it follows. The candidates are at most `pool` matching levels drawn
        with `seed`; with the variety rule "sets" (`variety`; None or () for none) they come
        from as many connected sets as the curve allows (see `curator.arrange.arrange_sets`).
        The pack never falls where its curve rises."""
        self._refuse(others)
        at_least(size, 1, self._name("size"))
        at_least(pool, 1, self._name("pool"))
        at_least(seed, 0, self._name("seed"))
        rules = variety_rules(variety, SET_VARIETY, self._name)
        if size > pool:
            raise SelectionError(f"{self._name('size')} {size} is larger than {self._name('pool')} {pool}")
        shape = read_curve(curve, self._name("curve"), self.exports)
        ranks = self._ranks(distance, unique, all_moves, cluster, hardest)
        if pool < len(ranks):
            ranks = ranks[np.sort(np.random.default_rng(seed).choice(len(ranks), pool, replace=False))]
        return arrange_sets(self._levels(ranks), size, shape, self._name, rules)

    # -- single positions ----------------------------------------------------------------------

    def position(self, board: str | Position) -> Position:
        """The position `board` names: a drawing (as `solve` takes it) or the groups' anchor
        cells (as `SlidingLevel.position` holds them); SelectionError if it is not one of
        this puzzle's positions."""
        if isinstance(board, str):
            return self.puzzle.parse(board, self._name("board"))
        try:
            position = tuple(tuple(int(a) for a in anchors) for anchors in board)
        except (TypeError, ValueError):
            position = None
        if position is None or self.puzzle.cover(position) is None:
            raise SelectionError(f"{self._name('board')}: not a position of {self.puzzle.name} "
                                 "(pieces overlap, leave the board or are missing)")
        return position

    def distance(self, board: str | Position) -> int | None:
        """The stored distance of a position to the goal; None if it cannot be solved."""
        distance = int(self.distances[self.puzzle.rank(self.position(board))])
        return None if distance >= UNSOLVABLE else distance

    def moves(self, board: str | Position) -> list[SlidingMove]:
        """Every legal move of a position (in the puzzle's move order) with the stored
        distance of the position it leads to: which moves keep the level solvable, and which
        bring it closer to the goal."""
        position = self.position(board)
        before = self.distance(position)
        cells = self.puzzle.board.cells
        out = []
        for move in self.puzzle.moves(position):
            after = self.distance(move.child)
            closer = before is not None and after is not None and after + move.cost == before
            text = move_text(self.puzzle, position, move.child)
            if move.direction >= 0:
                out.append(SlidingMove("", None, None, move.cost, move.child, after, closer, text,
                                       DIRECTION_NAMES[move.direction]))
                continue
            letter = self.puzzle.groups[move.group].letter
            out.append(SlidingMove(letter, cells[move.source], cells[move.target], move.cost, move.child,
                                   after, closer, text))
        return out

    def tilt(self, board: str | Position, direction: str) -> SlidingMove:
        """The tilt of the board `direction` (one of DIRECTION_NAMES) from a position of a tilt
        puzzle; SelectionError if it is no move there (nothing moves, or a kept piece would
        drop out) or the puzzle does not tilt."""
        if self.puzzle.move != "tilt":
            raise SelectionError(f"{self._name('tilt')}: {self.puzzle.name} moves one piece at a time, "
                                 "it does not tilt")
        if direction not in DIRECTION_NAMES:
            known = ", ".join(DIRECTION_NAMES)
            raise SelectionError(f"{self._name('tilt')}: {direction!r} is not one of {known}")
        position = self.position(board)
        child = self.puzzle.tilt(position, DIRECTION_NAMES.index(direction))
        if child is None:
            raise SelectionError(f"tilt {direction}: not a move here (nothing moves, or a piece that must "
                                 "stay would drop out)")
        before, after = self.distance(position), self.distance(child)
        closer = before is not None and after is not None and after + 1 == before
        return SlidingMove("", None, None, 1, child, after, closer, f"tilt {direction}", direction)

    def move(self, board: str | Position, source: Cell, target: Cell) -> SlidingMove:
        """The legal move of the piece anchored at `source` to the anchor `target` (cells as
        (row, col)); SelectionError if there is none."""
        wanted = (tuple(source), tuple(target))
        for move in self.moves(board):
            if (move.source, move.target) == wanted:
                return move
        (r0, c0), (r1, c1) = wanted
        on_board = set(self.puzzle.board.cells)
        where = next((f"cell {r},{c} is not on the board" for r, c in wanted if (r, c) not in on_board), None)
        raise SelectionError(f"move {r0},{c0} -> {r1},{c1}: {where or 'not a legal move here'}")

    def solve(self, board: str | Position) -> SlidingLevel:
        """The level of a drawn position (rows separated by line breaks or '/'), as `draw`
        writes them, or of a position (see `position`): its distance, flags, connected set
        and a shortest solution."""
        return self.show(self.puzzle.rank(self.position(board)))

    def show(self, rank: int, pieces: int | None = None, layer: str | None = None) -> SlidingLevel:
        """The position with this rank."""
        if pieces is not None or layer is not None:
            raise SelectionError("sliding-block tables have no layers: give the rank only")
        at_least(rank, 0, self._name("rank"))
        if not 0 <= rank < self.puzzle.size:
            raise SelectionError(f"rank {rank} out of range (0..{self.puzzle.size - 1})")
        if self.distances[rank] == INVALID:
            raise SelectionError(f"rank {rank} is not a position: its pieces overlap or leave the board")
        return self._levels(np.array([rank], dtype=np.int64))[0]

    # -- checking and exporting ----------------------------------------------------------------

    def verify(self, sample: int = DEFAULT_SAMPLE, seed: int = 0) -> Verification:
        """Check every table file against its checksum, then re-derive the entries (distance,
        unique, all_moves, connected set) of `sample` random positions, and the validity of a
        tenth as many random ranks, from their children's under the puzzle's rules."""
        result = Verification(self.directory, files=len(TABLES))
        for name in TABLES:
            try:
                self.store.load(name)
            except StoreError as exc:
                result.problems.append(str(exc))
        if result.problems or not sample:
            return result
        rng = np.random.default_rng(seed)
        positions = np.flatnonzero(self.distances != INVALID)
        ranks = np.concatenate((rng.choice(positions, min(sample, len(positions)), replace=False),
                                rng.integers(0, self.puzzle.size, max(1, sample // 10))))
        result.ranks = len(ranks)
        found = recheck(self.kernel, self.distances, self.flags, self.clusters, ranks)
        result.bad_ranks = [f"rank {r}: {', '.join(what)} do not follow from its moves" for r, what in found]
        return result

    def export(self, levels: Sequence[SlidingLevel], path: str | Path, format: str = "json") -> list[Path]:
        """Write levels as a level pack (json), csv, svg or png pictures, an html gallery, an
        LDtk project (ldtk), Tiled maps (tiled) or a page that plays them (play); return the
        files written (see `curator.export.sliding`). A `Pack` keeps its curve in json, csv, html,
        ldtk and tiled."""
        curve = levels.record() if isinstance(levels, Pack) else None
        return self._exports().write(format, self.puzzle, list(levels), path, curve)
