"""Goal tables as the Python API, the command line and the workspace see them: what the
results objects and catalogue kinds of sliding-block and Sokoban tables share.

The tables themselves, their sweep and their store are in `curator.common.goal_sweep` and
`curator.common.goal_tables`. `GoalResults` is the front of a folder of goal tables: filters
over the whole tables, one level per connected set, samples, packs, single positions and the
re-derivation check; each kind adds how its positions are named, drawn and moved. `GoalKind`
is a catalogue kind that answers by asking such a results object.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from itertools import zip_longest
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from curator.arrange import (
    POOL_SIZE,
    SET_VARIETY,
    Pack,
    arrange_sets,
    check_pack_sizes,
    read_curve,
    variety_rules,
)
from curator.common.difficulty import Measure, grid, walked_terms
from curator.common.errors import SelectionError, StoreError
from curator.common.figures import difficulty_value
from curator.common.files import DEFAULT_SAMPLE, Verification
from curator.common.goal_sweep import (
    ALL_MOVES,
    INVALID,
    UNIQUE,
    UNSOLVABLE,
    Graph,
    cluster_sizes,
    matching,
)
from curator.common.goal_tables import BYTES_PER_RANK, TABLES, GoalStore, facts, table_shortfalls
from curator.common.keywords import METRICS_CAP, Naming, at_least, check_cap, same_name, span
from curator.common.report import Report, columns, yes
from curator.common.resources import Shortfall, bytes_text
from curator.common.tables import DistanceResultsBase
from curator.common.variants import LIMIT as VARIANT_LIMIT
from curator.common.variants import Edit, Variant, Variants, check_limit, check_want
from curator.kind import Kind, Run, Search

if TYPE_CHECKING:
    from curator.picture import Picture

KEYWORDS = ("distance", "unique", "all_moves", "cluster", "hardest", "sample", "seed", "limit")
"""The keywords `select` takes (`count` takes those before `sample`)."""
FILTERS = ("distance", "unique", "all_moves", "cluster", "hardest")
SHOWN_COUNTS = ("ranks", "invalid", "positions", "solvable", "unsolvable", "max_distance", "clusters",
                "largest_cluster")
"""The counts of a folder the workspace shows."""


Cell = tuple[int, int]


@dataclass(frozen=True)
class GoalLevel:
    """One position of a puzzle with goal tables, what the tables say of it, and a shortest
    solution; each kind says how it is pictured."""

    rank: int
    position: Any
    """The position, as the kind's puzzle holds it."""
    distance: int | None
    """Moves to the goal in the puzzle's metric; None if it cannot be solved."""
    unique: bool
    all_moves: bool
    cluster: int
    """Positions in its connected set (moves join positions both ways)."""
    connected_set: int
    """The number of its connected set (sets are numbered in order of their smallest rank)."""
    solution: list[str]
    """The moves of one shortest solution, as the kind writes them."""
    puzzle: Any = field(repr=False, compare=False)
    effort: float | None = None
    """The effort, in moves, of the modelled player (`curator.common.difficulty`) that solves
    it; None if it cannot be solved."""
    difficulty_terms: str = ""
    """What its difficulty is made of, in one line ("24 moves; 5 tempting detours, 2 long; ...")."""

    @property
    def solvable(self) -> bool:
        return self.distance is not None

    @property
    def difficulty(self) -> float:
        """The player model's effort (on the scale of every kind's levels; NaN if not
        solvable). Packs of goal tables follow their curve in the distance."""
        return float("nan") if self.effort is None else float(self.effort)

    @property
    def board(self) -> list[str]:
        """The drawing, one string per row."""
        return self.puzzle.draw(self.position).split("\n")

    def picture(self, title: str = "") -> Picture:
        """The level's picture, as the exports draw it."""
        raise NotImplementedError

    def to_json(self) -> dict[str, Any]:
        """The level as `select --json` prints it and the exports take it."""
        return {"rank": self.rank, "board": self.board, "distance": self.distance,
                "difficulty": None if self.effort is None else difficulty_value(self.effort),
                "difficulty_terms": self.difficulty_terms, "unique": self.unique,
                "all_moves": self.all_moves, "cluster": self.cluster, "solution": list(self.solution)}

    def _repr_svg_(self) -> str:
        from curator.picture import svg_text

        return svg_text(self.picture(f"#{self.rank}, distance {self.distance}"))


@dataclass(frozen=True)
class GoalMove:
    """One legal move of a position and where it leads (see `GoalResults.moves`)."""

    piece: str
    """What moves: a piece's letter, or the player ("" for a move of every piece at once, a
    tilt)."""
    source: Cell | None
    """The cell it stands on before the move (a piece's anchor, its first cell in row-major
    order), as (row, col); None for a tilt."""
    target: Cell | None
    """The cell it stands on after the move; None for a tilt."""
    cost: int
    """What the move adds to a solution's length in the puzzle's metric."""
    position: Any
    """The position the move leads to."""
    distance: int | None
    """The distance of that position; None if it cannot be solved."""
    closer: bool
    """The move starts a shortest solution and counts in the metric: its distance plus its
    cost is the one before (a free walk under Sokoban's pushes metric is never closer)."""
    text: str
    """The move as solutions write it."""
    direction: str | None = None
    """For a tilt, the way the board tilts (up, right, down or left)."""

    @property
    def solvable(self) -> bool:
        return self.distance is not None


@dataclass(frozen=True)
class GoalSelection:
    """The levels `select` returns, and how many positions passed the filters."""

    levels: list[Any]
    matched: int


class GoalResults(DistanceResultsBase):
    """The stored goal tables of one puzzle. A kind's subclass names its store class, its
    compiled position code (`graph`, `build_kernel`) and says how positions are read
    (`position`), ranked (`rank_of`), moved (`moves`), drawn (`picture`) and made levels
    (`_level`)."""

    store_class: type[GoalStore] = GoalStore
    store: GoalStore
    level_class: ClassVar[type[GoalLevel]] = GoalLevel
    NOT_A_POSITION: ClassVar[str] = "it names no position"
    """Why a rank that is not a position is not one, for `show`."""

    @staticmethod
    def build_kernel(puzzle: Any) -> Any:
        """The arrays the compiled position code takes."""
        raise NotImplementedError

    @property
    def graph(self) -> Graph:
        """The compiled position code of the puzzle's board."""
        raise NotImplementedError

    def position(self, board: Any) -> Any:
        """The position `board` names (a drawing, or the kind's position value);
        SelectionError if it is not one of the puzzle's positions."""
        raise NotImplementedError

    def rank_of(self, position: Any) -> int:
        """The rank of a position (`position` gives it)."""
        raise NotImplementedError

    def normal(self, position: Any) -> Any:
        """The position as the tables hold it, which every drawing of it names (under Sokoban's
        pushes metric the player stands on the first cell of its region)."""
        return self.puzzle.unrank(self.rank_of(position))

    def moves(self, board: Any) -> list[GoalMove]:
        """Every legal move of a position (in the puzzle's move order) with the stored
        distance of the position it leads to: which moves keep the level solvable, and which
        bring it closer to the goal."""
        raise NotImplementedError

    def solution_text(self, position: Any, path: list[Any]) -> list[str]:
        """The moves of a solution from `position` through the positions `path`, written out."""
        raise NotImplementedError

    def picture(self, position: Any, title: str = "") -> Picture:
        """The picture of a position (as the exports draw it)."""
        return self._level(self.rank_of(position), None, (None, ""), position).picture(title)

    def _level(self, rank: int, path: list[int] | None, rated: tuple[float | None, str],
               position: Any = None) -> GoalLevel:
        """The level of `rank` (as the position `position` if given, else as the rank's own)
        with the solution through the ranks of `path` and its difficulty and terms (`_rated`)."""
        position = self.puzzle.unrank(rank) if position is None else position
        steps = [] if path is None else self.solution_text(position, [self.puzzle.unrank(r) for r in path])
        distance = int(self.distances[rank])
        flags = int(self.flags[rank])
        return self.level_class(
            rank, position, None if distance >= UNSOLVABLE else distance, bool(flags & UNIQUE),
            bool(flags & ALL_MOVES), int(self.cluster_sizes[self.clusters[rank]]), int(self.clusters[rank]),
            steps, self.puzzle, *rated)

    def _rated(self, ranks: np.ndarray) -> list[tuple[float | None, str]]:
        """Each rank's difficulty for the player of these tables, and its terms (None and ""
        for a position that cannot be solved)."""
        player = self.player
        found, counts = self.graph.measure(self.kernel, self.distances, ranks, self._longest, grid(player),
                                           player.lookahead)
        solvable = self.distances[np.asarray(ranks, dtype=np.int64)] < UNSOLVABLE
        return [(player.effort(Measure(*found[i, 0])), walked_terms(counts[i]).text()) if solvable[i]
                else (None, "") for i in range(len(found))]

    def measures(self, ranks: np.ndarray) -> np.ndarray:
        """The player model's measures of these positions at every point of the calibration
        grid (`curator.common.difficulty.grid`): float[ranks, points, figures] (see `Measure`)."""
        return self.graph.measure(self.kernel, self.distances, ranks, self._longest, grid(),
                                  self.player.lookahead)[0]

    @property
    def _longest(self) -> int:
        """The most moves a stored solution takes."""
        return max(int(self.store.manifest.get("max_distance", 0)), 1)

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
    def kernel(self) -> Any:
        return self.build_kernel(self.puzzle)

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
               **others: Any) -> list[Any]:
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
                  limit: int | None = None, cap: int | None = None, **others: Any) -> GoalSelection:
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
        check_cap(matched, sample, limit, cap, self._name)
        if sample is not None and sample < len(ranks):
            ranks = ranks[np.sort(np.random.default_rng(seed or 0).choice(len(ranks), sample, replace=False))]
        if limit is not None:
            ranks = ranks[:limit]
        return GoalSelection(self._levels(ranks), matched)

    def _refuse(self, others: dict[str, Any]) -> None:
        if others:
            raise SelectionError(
                f"{', '.join(self._name(k) for k in others)} {'does' if len(others) == 1 else 'do'} "
                f"not apply to the {self.store.WHAT} in {self.directory}; filters are "
                f"{', '.join(self._name(k) for k in KEYWORDS)}")

    def _levels(self, ranks: np.ndarray, positions: Sequence[Any] | None = None) -> list[Any]:
        try:
            paths = self.graph.solutions(self.kernel, self.distances, ranks, self._longest)
        except ValueError as exc:
            raise StoreError(f"{self.directory}: {exc} (damaged results)") from None
        drawn = positions if positions is not None else [None] * len(paths)
        return [self._level(int(r), path, rated, position)
                for r, path, rated, position in zip(ranks, paths, self._rated(ranks), drawn)]

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
        check_pack_sizes(size, pool, seed, self._name)
        rules = variety_rules(variety, SET_VARIETY, self._name)
        shape = read_curve(curve, self._name("curve"), self.exports)
        ranks = self._ranks(distance, unique, all_moves, cluster, hardest)
        if pool < len(ranks):
            ranks = ranks[np.sort(np.random.default_rng(seed).choice(len(ranks), pool, replace=False))]
        bare = [self._level(int(rank), None, rated)  # solutions of the chosen only
                for rank, rated in zip(ranks, self._rated(ranks))]
        arranged = arrange_sets(bare, size, shape, self._name, rules)
        return arranged.placing(self._levels(np.array([level.rank for level in arranged], dtype=np.int64)))

    def edits(self, position: Any) -> Iterator[tuple[Edit, Any]]:
        """Every edit of `position` that gives a position of the puzzle, with that position:
        what `variants` looks through (each kind of goal tables says which edits it makes)."""
        raise NotImplementedError

    def variants(self, board: Any, want: str = "unique", limit: int = VARIANT_LIMIT) -> list[Variant]:
        """The levels one edit away from a position (see `edits`) that are `want`: "unique"
        (one shortest solution), "solvable", or "harder" (solvable and farther from the goal
        than the position), farthest first, then by rank; at most `limit`. Each is a
        `Variant`: its `edit` and its `item`, a level of these tables."""
        return self.variation(board, want, limit).variants

    def variation(self, board: Any, want: str = "unique", limit: int = VARIANT_LIMIT) -> Variants:
        """What `variants` lists, with the position's own level and how many positions lie one
        edit away and are wanted."""
        check_want(want, self._name)
        check_limit(limit, self._name)
        position = self.position(board)
        base = self.solve(position)
        considered = 0
        found: dict[int, Edit] = {}
        for edit, child in self.edits(position):
            considered += 1
            rank = self.rank_of(child)
            distance = int(self.distances[rank])
            if rank in found or not 0 < distance < UNSOLVABLE:
                continue
            if want == "unique" and not int(self.flags[rank]) & UNIQUE:
                continue
            if want == "harder" and (base.distance is None or distance <= base.distance):
                continue
            found[rank] = edit
        ranks = sorted(found, key=lambda r: (-int(self.distances[r]), r))
        levels = self._levels(np.array(ranks[:limit], dtype=np.int64))
        return Variants(base, want, considered, len(found),
                        [Variant(found[level.rank], level) for level in levels])

    # -- single positions ----------------------------------------------------------------------

    def distance(self, board: Any) -> int | None:
        """The stored distance of a position to the goal; None if it cannot be solved."""
        distance = int(self.distances[self.rank_of(self.position(board))])
        return None if distance >= UNSOLVABLE else distance

    def tilt(self, board: Any, direction: str) -> GoalMove:
        """The tilt of the board `direction` from a position: SelectionError unless the
        puzzle's board tilts (sliding blocks under tilt moves)."""
        raise SelectionError(f"{self._name('tilt')}: {self.puzzle.name} does not tilt; play a move "
                             "from one cell to another")

    def move(self, board: Any, source: tuple[int, int], target: tuple[int, int]) -> Any:
        """The legal move from the cell `source` to the cell `target` (as (row, col); what
        moves there is the kind's: a piece's anchor, the player); SelectionError if there is
        none."""
        wanted = (tuple(source), tuple(target))
        for move in self.moves(board):
            if (move.source, move.target) == wanted:
                return move
        (r0, c0), (r1, c1) = wanted
        on_board = set(self.puzzle.board.cells)
        where = next((f"cell {r},{c} is not on the board" for r, c in wanted if (r, c) not in on_board), None)
        raise SelectionError(f"move {r0},{c0} -> {r1},{c1}: {where or 'not a legal move here'}")

    def solve(self, board: Any) -> Any:
        """The level of a drawn position (rows separated by line breaks or '/') or of a
        position value (see `position`): its distance, flags, connected set and a shortest
        solution."""
        position = self.position(board)
        return self._levels(np.array([self.rank_of(position)], dtype=np.int64), [position])[0]

    def show(self, rank: int, pieces: int | None = None, layer: str | None = None) -> Any:
        """The position with this rank."""
        if pieces is not None or layer is not None:
            raise SelectionError(f"{self.store.WHAT} have no layers: give the rank only")
        at_least(rank, 0, self._name("rank"))
        if not 0 <= rank < self.puzzle.size:
            raise SelectionError(f"rank {rank} out of range (0..{self.puzzle.size - 1})")
        if self.distances[rank] == INVALID:
            raise SelectionError(f"rank {rank} is not a position: {self.NOT_A_POSITION}")
        return self._levels(np.array([rank], dtype=np.int64))[0]

    # -- checking and exporting ----------------------------------------------------------------

    def verify(self, sample: int = DEFAULT_SAMPLE, seed: int = 0) -> Verification:
        """Check every table file against its checksum and the manifest's figures against the
        tables, then re-derive the entries (distance, unique, all_moves, connected set) of
        `sample` random positions, and the validity of a tenth as many random ranks, from their
        children's under the puzzle's rules; each rank once, so a sample past the table's size
        checks all of it. An unfinished run's tables are checked as far as it stored them (its
        last checkpoint), and no rank is re-derived from them."""
        stored = self.store.manifest.get("files", {})
        names = [name for name in TABLES if self.complete or name in stored]
        result = Verification(self.directory, files=len(names))
        for name in names:
            try:
                self.store.load(name)
            except StoreError as exc:
                result.problems.append(str(exc))
        if result.problems or not self.complete:
            return result
        result.problems += self._unborne_figures()
        if not sample:
            return result
        rng = np.random.default_rng(seed)
        positions = np.flatnonzero(self.distances != INVALID)
        drawn = min(max(1, sample // 10), self.puzzle.size)
        ranks = np.unique(np.concatenate((rng.choice(positions, min(sample, len(positions)), replace=False),
                                          rng.choice(self.puzzle.size, drawn, replace=False))))
        result.ranks = len(ranks)
        found = self.graph.recheck(self.kernel, self.distances, self.flags, self.clusters, ranks)
        result.bad_ranks = [f"rank {r}: {', '.join(what)} do not follow from its moves" for r, what in found]
        return result

    def _unborne_figures(self) -> list[str]:
        """One line for each figure of the manifest (counts, per distance too) that the tables do
        not bear out: `info` and the workspace show these figures without reading the tables."""
        lines = []
        for key, held in facts(self.distances, self.flags, self.clusters).items():
            given = self.store.manifest.get(key)
            if given == held:
                continue
            if isinstance(given, list) and isinstance(held, list):  # name the first row that differs
                at = next(i for i, (a, b) in enumerate(zip_longest(given, held)) if a != b)
                key, given, held = f"{key}[{at}]", (given + [None])[at], (held + [None])[at]
            lines.append(f"{self.store.manifest_path}: {key} is {given!r}, the tables hold {held!r}")
        return lines

    def export(self, levels: Sequence[Any], path: str | Path, format: str = "json") -> list[Path]:
        """Write levels as a level pack (json), csv, svg or png pictures, an html gallery, an
        LDtk project (ldtk), Tiled maps (tiled) or a page that plays them (play); return the
        files written (see the kind's exporter). A `Pack` keeps its curve in json, csv, html,
        ldtk and tiled."""
        curve = levels.record() if isinstance(levels, Pack) else None
        return self._exports(path).write(format, self.puzzle, list(levels), path, curve)


def _rank(item: Any, results: GoalResults) -> int:
    """The rank a graded level names; SelectionError if it names no position of the tables."""
    rank = int(item)
    if not 0 <= rank < results.puzzle.size or results.distances[rank] == INVALID:
        raise SelectionError(f"rank {rank} is not a position of {results.puzzle.name}")
    return rank


class GoalKind(Kind):
    """A catalogue kind of goal tables, answering by asking its results object: the kind sets
    `results_class` and `analysis`; it parses its files and says how the workspace draws its
    puzzles itself. Its puzzles word their rules (`rules_text`)."""

    results_class: ClassVar[type[GoalResults]]
    analysis: ClassVar[Callable[..., Any]]
    """The kind's analysis: (puzzle, directory, workers, force, distance_done, warn)."""
    selection_options = (*KEYWORDS, "count_only")
    pack_options = FILTERS
    workspace = "blocks"
    calibrates = True

    def sweep_bytes(self, puzzle: Any) -> int:
        """Memory per rank the sweep takes beside the tables (none unless the kind says)."""
        return 0

    def blocks(self, puzzle: Any) -> dict[str, Any]:
        """What the workspace needs to draw and play the puzzle (`curator.web.models.BlockBoard`)."""
        raise NotImplementedError

    def measures(self, results: GoalResults, items: Sequence[Any]) -> tuple[Any, Any, Any]:
        ranks = np.array([_rank(item, results) for item in items], dtype=np.int64)
        distances = results.distances[ranks].astype(np.int64)
        ok = (distances < UNSOLVABLE) & (distances > 0)
        return results.measures(ranks), ok, distances

    def playtested(self, results: GoalResults, key: str) -> Any:
        return results.rank_of(results.position(key))

    def solvable(self, results: GoalResults, key: str) -> bool:
        return bool(results.distances[self.playtested(results, key)] < UNSOLVABLE)

    def detail(self, results: GoalResults) -> dict[str, Any]:
        summary = results.summary()
        return {"layers": results.layers, "figures": {key: summary.get(key) for key in SHOWN_COUNTS},
                "blocks": self.blocks(results.puzzle)}

    def estimate(self, puzzle: Any, run: Run) -> str:
        disk = puzzle.size * BYTES_PER_RANK
        memory = disk + puzzle.size * self.sweep_bytes(puzzle)
        where = (f"{bytes_text(memory)} in memory and on disk" if memory == disk
                 else f"{bytes_text(memory)} in memory, {bytes_text(disk)} on disk")
        return f"{puzzle.name}: {puzzle.size:,} ranks ({puzzle.rules_text}); {where}"

    def shortfalls(self, puzzle: Any, run: Run) -> list[Shortfall]:
        return table_shortfalls(puzzle.size, run.directory, self.sweep_bytes(puzzle))

    def analyze(self, puzzle: Any, run: Run) -> None:
        type(self).analysis(puzzle, run.directory, run.workers, run.force, run.distance_done, run.warn)

    def open(self, directory: Path, name: Naming = same_name) -> GoalResults:
        return self.results_class(directory, name)

    def info(self, results: GoalResults) -> Report:
        summary = results.summary()
        title = f"{summary['puzzle']} ({results.puzzle.rules_text})"
        if not summary["complete"]:
            title += " (incomplete)"
        caption = None
        if summary["complete"]:
            caption = (f"{summary['positions']:,} positions in {summary['clusters']:,} connected sets "
                       f"(largest {summary['largest_cluster']:,}); {summary['invalid']:,} of "
                       f"{summary['ranks']:,} ranks are not positions")
        rows = [(str(item["distance"]), f"{item['positions']:,}", f"{item.get('unique', 0):,}",
                 f"{item.get('all_moves', 0):,}") for item in summary["layers"]]
        if summary.get("unsolvable"):
            rows.append(("not solvable", f"{summary['unsolvable']:,}", "", ""))
        return Report(title, columns("distance", "positions", "unique", "all moves"), tuple(rows), caption)

    def checked(self, results: GoalResults, sample: int, seed: int) -> tuple[Verification, str]:
        found = results.verify(sample, seed)
        return found, f"{found.files} tables, {found.ranks:,} ranks re-derived"

    # -- selecting -----------------------------------------------------------------------------

    def _filters(self, results: GoalResults, keywords: dict[str, Any]) -> dict[str, Any]:
        """The keywords with the flags' negations refused: these tables filter for a flag,
        never against it."""
        refused = [name for name in ("unique", "all_moves") if keywords.get(name) is False]
        if refused:
            raise SelectionError(
                f"{', '.join('no ' + name for name in refused)}: the {self.held} in "
                f"{results.directory} keep levels with a flag, never without it")
        return keywords

    def selection(self, results: GoalResults, keywords: dict[str, Any]) -> tuple[list[Any], int | None]:
        chosen = results.selection(**self._filters(results, keywords), cap=METRICS_CAP)
        return chosen.levels, chosen.matched

    def count(self, results: GoalResults, keywords: dict[str, Any]) -> tuple[int, dict[str, int]]:
        return results.count(**self._filters(results, keywords)), {}

    def nearest(self, results: GoalResults, keywords: dict[str, Any], name: Naming = same_name
                ) -> str | None:
        others = {k: v for k, v in self._filters(results, keywords).items() if k in FILTERS[1:]}
        found = results.distance_span(**others)
        given = ", ".join(name(k) for k in others)
        if found is None:
            return f"no level matches {given} at any distance" if given else "no level can be solved"
        return f"levels{f' with {given}' if given else ''} exist at distances {found[0]}..{found[1]}"

    def items_report(self, results: GoalResults, items: Sequence[Any], matched: int | None,
                     keywords: dict[str, Any]) -> Report:
        count = len(items)
        plural = "" if count == 1 else "s"
        title = f"{results.puzzle.name}: {count} level{plural} of {matched or 0:,} matching"
        rows = tuple((str(level.distance), yes(level.unique), yes(level.all_moves), f"{level.cluster:,}",
                      str(level.rank), "/".join(level.board)) for level in items)
        heads = columns("distance", "unique", "all moves", "cluster", "rank", "board", left=("board",))
        return Report(title, heads, rows, caption=f"{count} level{plural}", width=200)

    def item_text(self, puzzle: Any, item: Any) -> str:
        distance = "not solvable" if item.distance is None else f"distance {item.distance}"
        lines = [*item.board, "",
                 f"rank {item.rank}: {distance}; unique: {yes(item.unique)}; all moves: "
                 f"{yes(item.all_moves)}; connected set: {item.cluster:,} positions"]
        if item.solution:
            lines.append("solution: " + "; ".join(item.solution))
        return "\n".join(lines)

    def solve(self, puzzle: Any, position: Any, directory: Path | None,
              name: Naming = same_name, search: Search | None = None) -> tuple[Any, Path | None]:
        given = directory is not None
        directory = directory or Path("output") / puzzle.name
        try:
            stored = self.results_class(directory, name)
        except StoreError:
            if given:  # damaged: say which file
                raise
            raise SelectionError(f"no {self.held} in {directory}; analyze the puzzle first, or give "
                                 f"{name('results')} DIR") from None
        if stored.store.holds_other_puzzle(puzzle.sha256):
            raise SelectionError(f"{name('results')} {directory}: holds results of another puzzle file "
                                 f"({stored.store.manifest.get('puzzle')!r})")
        return stored.solve(position), directory

    # -- packs ---------------------------------------------------------------------------------

    def pack(self, results: GoalResults, size: int, curve: Any, pool: int | None, seed: int,
             keywords: dict[str, Any], progress: Callable[[int, int], None] | None = None) -> Any:
        chosen: dict[str, Any] = {"pool": pool} if pool is not None else {}
        return results.pack(size, curve, seed=seed, **chosen, **self._filters(results, keywords))

    def pack_report(self, results: GoalResults, pack: Any) -> Report:
        title = f"{results.puzzle.name}: {len(pack)} levels along {pack.curve} from a pool of {pack.pool:,}"
        rows = tuple((str(number), f"{slot.target:.1f}", str(slot.level.distance), yes(slot.level.unique),
                      str(slot.level.connected_set), f"{slot.level.cluster:,}", str(slot.level.rank),
                      "/".join(slot.level.board)) for number, slot in enumerate(pack.slots, start=1))
        heads = columns("slot", "target", "distance", "unique", "set", "cluster", "rank", "board",
                        left=("board",))
        return Report(title, heads, rows, width=200)
