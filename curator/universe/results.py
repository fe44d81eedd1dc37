"""`UniverseResults`: the stored tables of a universe, as the Python API shows them: a summary,
puzzles by distance, `select` over the connected sets (each set is one puzzle, its farthest
position), filtered by distance, set size, vehicles, walls, minimal and unique, `pack`, which
arranges such puzzles along a curve of distances, and `play`, where a drawn position stands (its
distance and its moves', measured on its connected set).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, overload

import numpy as np

from curator.arrange import POOL_SIZE, Curve, Pack, arrange_sets, check_pack_sizes, read_curve, variety_rules
from curator.common.difficulty import WALKED_DEFAULT, walked_terms
from curator.common.errors import SelectionError, StoreError
from curator.common.exports import Exporting
from curator.common.files import Verification
from curator.common.keywords import Naming, same_name
from curator.picture import Picture, universe_picture
from curator.universe.columns import Columns, SetFiles, leading, read_columns, smallest_unsigned, within
from curator.universe.play import Cell, Positions, UniversePosition, UniverseReport
from curator.universe.puzzle import WALL, Universe
from curator.universe.space import Space, build_space
from curator.universe.store import UniverseStore, record_dtype, totals
from curator.universe.sweep import walk_counts

SORTS = ("distance", "cluster", "pieces", "walls")
"""What `select` sorts by (distance first by default, farthest first)."""
BLOCK = 1 << 20
"""Sets summed at a time by `layers`."""
EXPLAINED_MOST = 20_000
"""The largest set whose puzzle gets its difficulty terms: exploring such a set takes about 5 ms
here, so a list of 200 puzzles (the workspace's most) takes about a second at worst; the largest
wall-free set (541,934 positions) takes 0.35 s. Without walls 0.4% of the sets that can be solved
are larger."""
VARIETY = ("piece-sets",)
"""The variety rule of a universe pack: `piece-sets`, puzzles of as many piece sets (vehicles
of each kind and walls) as the curve allows. Each connected set is one puzzle already, so two
puzzles of a pack are always two sets; two sets of one piece set are alike in what they ask."""


@dataclass(frozen=True)
class UniverseLevel:
    """One connected set of a universe as a puzzle: its farthest position (`board`, rows
    joined by '/'), moves from there to the goal (None if it cannot be solved), the set's size,
    its vehicles by letter (walls as 'x') and the figures the tables keep."""

    rank: int
    """Its index among all stored sets (in the order of the pieces of work)."""
    board: str
    first: str
    """The set's smallest position."""
    distance: int | None
    cluster: int
    counts: dict[str, int]
    minimal: bool | None
    unique: bool | None
    solution: list[str] = field(default_factory=list)
    difficulty_terms: str = ""
    """What a player meets along one shortest solution from the farthest position (see
    `curator.universe.sweep.walk_counts`): "51 moves; 295 tempting detours, 185 long; ...";
    empty if it cannot be solved or its set holds more than `EXPLAINED_MOST` positions."""

    @property
    def pieces(self) -> int:
        return sum(n for letter, n in self.counts.items() if letter != WALL)

    @property
    def walls(self) -> int:
        return self.counts.get(WALL, 0)

    @property
    def difficulty(self) -> float:
        """What a pack's curve follows: the distance (NaN if it cannot be solved), the effort
        of the player that sliding-block tables rate by default
        (`curator.common.difficulty.WALKED_DEFAULT`)."""
        return float("nan") if self.distance is None else float(self.distance)

    def to_json(self) -> dict[str, Any]:
        """The puzzle as `select --json` prints it."""
        return {"rank": self.rank, "board": self.board, "distance": self.distance, "cluster": self.cluster,
                "pieces": self.pieces, "walls": self.walls, "counts": self.counts, "minimal": self.minimal,
                "unique": self.unique, "first": self.first,
                "difficulty": None if self.distance is None else self.difficulty,
                "difficulty_terms": self.difficulty_terms}


@dataclass(frozen=True)
class _Candidate:
    """A set a pack may take, as `arrange_sets` weighs it: only the puzzles placed are drawn."""

    rank: int
    distance: int
    piece_set: int
    """Sets of equal numbers have the same vehicles of each kind and walls."""


class SetLevels(Sequence[UniverseLevel]):
    """The puzzles a selection lists, in its order, each read from the tables when it is asked
    for: a selection of millions of sets costs an array of their numbers until they are listed,
    and `distances` charts them without reading one."""

    def __init__(self, results: UniverseResults, rows: np.ndarray) -> None:
        self._results = results
        self._rows = rows

    def __len__(self) -> int:
        return len(self._rows)

    @overload
    def __getitem__(self, index: int) -> UniverseLevel: ...

    @overload
    def __getitem__(self, index: slice) -> list[UniverseLevel]: ...

    def __getitem__(self, index: int | slice) -> UniverseLevel | list[UniverseLevel]:
        if isinstance(index, slice):
            return [self._results.level(int(r)) for r in self._rows[index]]
        return self._results.level(int(self._rows[index]))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Sequence) and list(self) == list(other)

    __hash__ = None  # type: ignore[assignment]  # equal to lists, so not hashable

    def distances(self) -> np.ndarray:
        """The listed puzzles' distances, in order; -1 where the set cannot be solved."""
        return self._results.columns.distance[self._rows]


class UniverseResults(Exporting):
    """The stored tables of one universe, opened with `curator.open`."""

    kind = "universe"

    def __init__(self, store: UniverseStore, name: Naming = same_name) -> None:
        self.store = store
        self.directory = store.directory
        self.name = name

    @classmethod
    def open(cls, directory: Path, name: Naming = same_name) -> UniverseResults:
        return cls(UniverseStore.open_tables(directory), name)

    @cached_property
    def puzzle(self) -> Universe:
        return self.store.puzzle()

    @cached_property
    def space(self) -> Space:
        return build_space(self.puzzle)

    @property
    def complete(self) -> bool:
        return bool(self.store.manifest.get("complete"))

    @property
    def player(self) -> Any:
        return None

    @property
    def dtype(self) -> np.dtype:
        return record_dtype(self.space.n_lanes, len(self.puzzle.vehicles) + 1)

    @cached_property
    def files(self) -> SetFiles:
        """The files of sets, as the manifest lists them: where each set's record is."""
        return SetFiles.of(self.store, self.dtype)

    @cached_property
    def columns(self) -> Columns:
        """Every stored set's figures, one small array each, read one file at a time; sizes
        checked against the manifest (not checksums: `verify`)."""
        return read_columns(self.files, self.puzzle)

    @property
    def sets(self) -> int:
        """How many sets are stored (as the manifest says: no file is read)."""
        return len(self.files)

    @property
    def layers(self) -> list[dict[str, Any]]:
        """Solvable puzzles by distance: distance, puzzles, minimal ones, positions."""
        c = self.columns
        # Sums by distance + 1 (0: cannot be solved), a block of sets at a time: the sums take
        # figures of their own type, and only a block's are converted at once.
        top = int(c.distance.max(initial=-1)) + 2
        puzzles, minimal, positions = (np.zeros(top, np.int64) for _ in range(3))
        for begin in range(0, len(c), BLOCK):
            part = slice(begin, begin + BLOCK)
            index = c.distance[part].astype(np.intp) + 1
            np.add.at(puzzles, index, 1)
            np.add.at(minimal, index, c.minimal[part].astype(np.int64))
            np.add.at(positions, index, c.size[part].astype(np.int64))
        return [{"distance": int(d) - 1, "puzzles": int(puzzles[d]), "minimal": int(minimal[d]),
                 "positions": int(positions[d])} for d in np.flatnonzero(puzzles[1:]) + 1]

    def summary(self) -> dict[str, Any]:
        """Totals of every set found (sets, positions, solvable sets and positions), minimal
        puzzles, the farthest, and which sets the tables keep."""
        c = self.columns
        chunks = self.store.chunks.values()
        return {"puzzle": self.puzzle.name, "complete": self.complete, "keep": self.store.keep,
                **self.found(), "minimal": int(c.minimal.sum()),
                "farthest": int(c.distance.max(initial=-1)),
                "packed_positions": sum(int(entry["seeds"]) for entry in chunks),
                "seconds": round(sum(float(entry["seconds"]) for entry in chunks), 1)}

    def found(self) -> dict[str, int]:
        """Sets and positions found, and those that can be solved: summed from the stored sets
        when the tables keep every set, else from the manifest (see `curator.universe.store.totals`)."""
        if self.store.keep == "all":
            return totals(self.columns.distance, self.columns.size)
        out = dict.fromkeys(("sets", "positions", "solvable_sets", "solvable_positions"), 0)
        for path, entry in self.store.files(self.dtype):
            found = entry.get("found")
            if not isinstance(found, dict) or not all(isinstance(found.get(k), int) for k in out):
                raise StoreError(f"{self.store.manifest_path}: the entry of {path.name} lacks the totals "
                                 "of the sets found")
            for key in out:
                out[key] += found[key]
        return out

    def mask(self, keywords: dict[str, Any]) -> np.ndarray:
        """Which sets pass the filter keywords (see `KEYWORDS`)."""
        c = self.columns
        keep = np.ones(len(c), bool)
        flags = {"solvable": c.distance >= 0, "minimal": c.minimal, "unique": c.unique}
        for key, column in flags.items():
            if keywords.get(key) is not None:
                keep &= column if keywords[key] else ~column
        for key, column in (("distance", c.distance), ("cluster", c.size)):
            if keywords.get(key) is not None:
                keep &= within(column, *keywords[key])
        if keywords.get("distance") is not None:
            keep &= c.distance >= 0
        # Vehicles, walls and counts are figures of the piece set: checked once per piece set.
        piece_sets = np.ones(len(c.keys), bool)
        if keywords.get("pieces") is not None:
            piece_sets &= within(c.vehicles(), *keywords["pieces"])
        if keywords.get("walls") is not None:
            piece_sets &= within(c.count(len(self.puzzle.vehicles)), *keywords["walls"])
        for letter, (low, high) in (keywords.get("counts") or {}).items():
            piece_sets &= within(c.count(self._kind_index(letter)), low, high)
        if not piece_sets.all():
            keep &= piece_sets[c.piece_set]
        return keep

    def _kind_index(self, letter: str) -> int:
        letters = [v.letter for v in self.puzzle.vehicles] + [WALL]
        if letter not in letters:
            raise SelectionError(f"{self.name('counts')}: {letter!r} is not a vehicle of {self.puzzle.name} "
                                 f"(its letters: {', '.join(letters)}, {WALL} for walls)")
        return letters.index(letter)

    def select(self, solvable: bool | None = None, minimal: bool | None = None, unique: bool | None = None,
               distance: tuple[int, int] | None = None, cluster: tuple[int, int] | None = None,
               pieces: tuple[int, int] | None = None, walls: tuple[int, int] | None = None,
               counts: dict[str, tuple[int, int]] | None = None, hardest: bool = False,
               sort: str | None = None, sample: int | None = None, seed: int = 0,
               limit: int | None = None) -> list[UniverseLevel]:
        """Puzzles (one per connected set) passing every filter, farthest first (or by `sort`,
        "METRIC[:asc]"); `hardest`: only those at the largest distance of their piece set
        (vehicles of each kind and walls); `sample` draws that many at random (`seed`)."""
        found, _ = self.selection(dict(solvable=solvable, minimal=minimal, unique=unique, distance=distance,
                                       cluster=cluster, pieces=pieces, walls=walls, counts=counts,
                                       hardest=hardest, sort=sort, sample=sample, seed=seed, limit=limit))
        return list(found)

    def selection(self, keywords: dict[str, Any]) -> tuple[SetLevels, int]:
        """The puzzles `select` lists for these keywords (read as they are listed), and how
        many sets matched."""
        metric, descending = self._sort(keywords.get("sort"))
        keep = self.mask(keywords)
        if keywords.get("hardest"):
            keep &= self.hardest_of_piece_set(keep)
        matched = int(np.count_nonzero(keep))
        rows: np.ndarray | None = None  # every set, while all are kept: no index of each
        if matched < len(keep):
            rows = np.flatnonzero(keep)
        del keep
        if keywords.get("sample") is not None and keywords["sample"] < matched:
            rng = np.random.default_rng(keywords.get("seed") or 0)
            rows = np.sort(rng.choice(np.arange(matched) if rows is None else rows, keywords["sample"],
                                      replace=False))
        order = leading(self._metric(metric, rows), descending, keywords.get("limit"))
        return SetLevels(self, order if rows is None else rows[order]), matched

    def pack(self, size: int, curve: str | Path | Curve = "linear", *, pool: int = POOL_SIZE, seed: int = 0,
             variety: Iterable[str] | None = VARIETY, solvable: bool | None = None,
             minimal: bool | None = None, unique: bool | None = None, distance: tuple[int, int] | None = None,
             cluster: tuple[int, int] | None = None, pieces: tuple[int, int] | None = None,
             walls: tuple[int, int] | None = None, counts: dict[str, tuple[int, int]] | None = None,
             hardest: bool = False) -> Pack:
        """A pack of `size` puzzles (one per connected set, as `select` lists them) matching the
        filters of `select`, whose distances follow `curve` from short to long: a name of
        `curator.arrange.CURVES` or a level pack file whose order it follows.

        Only sets that can be solved, in one move or more, are candidates (`solvable=False`
        leaves none). The candidates are at most `pool` of the matching sets, drawn with `seed`.
        With the variety rule "piece-sets" (`variety`; None or () for none) the puzzles come
        from as many piece sets (vehicles of each kind and walls) as the curve allows: a puzzle
        of a piece set not used yet is preferred to a nearer one of a used piece set when it is
        at most 5% of the pool's distance range, and at least one move, farther from its
        target (see `curator.arrange.arrange_sets`). The pack never falls where its curve
        rises. Deterministic: the same arguments give the same pack."""
        check_pack_sizes(size, pool, seed, self.name)
        rules = variety_rules(variety, VARIETY, self.name)
        if solvable is False:
            raise SelectionError(f"no {self.name('solvable')}: a pack takes only sets that can be solved")
        shape = read_curve(curve, self.name("curve"), self.exports)
        keep = self.mask(dict(solvable=True, minimal=minimal, unique=unique, distance=distance,
                              cluster=cluster, pieces=pieces, walls=walls, counts=counts))
        if hardest:
            keep &= self.hardest_of_piece_set(keep)
        keep &= self.columns.distance > 0  # solved already: no puzzle
        rows = np.flatnonzero(keep)
        if not len(rows):
            raise SelectionError("no set matches the filters and takes a move or more to solve; widen them")
        if size > len(rows):
            raise SelectionError(f"{self.name('size')} {size} is larger than the {len(rows):,} sets that "
                                 "match the filters and take a move or more to solve; widen them")
        if pool < len(rows):
            rows = np.sort(np.random.default_rng(seed).choice(rows, pool, replace=False))
        # Piece set numbers order piece sets as their rows of counts do: numbered again from 0.
        _, piece_sets = np.unique(self.columns.piece_set[rows], return_inverse=True)
        candidates = [_Candidate(int(r), int(d), int(p))
                      for r, d, p in zip(rows, self.columns.distance[rows], piece_sets.reshape(-1))]
        arranged = arrange_sets(candidates, size, shape, self.name, rules, rule=VARIETY[0],
                                group=lambda candidate: candidate.piece_set)
        return arranged.placing([self.level(candidate.rank) for candidate in arranged])

    def hardest_of_piece_set(self, keep: np.ndarray) -> np.ndarray:
        """The sets at the largest distance of their piece set, among those kept."""
        c = self.columns
        rows = np.flatnonzero(keep & (c.distance >= 0))
        distance, piece_set = c.distance[rows], c.piece_set[rows]
        best = np.full(len(c.keys), -1, np.int8)
        np.maximum.at(best, piece_set, distance)
        out = np.zeros(len(c), bool)
        out[rows[distance == best[piece_set]]] = True
        return out

    def _sort(self, sort: str | None) -> tuple[str, bool]:
        """The metric of "METRIC[:asc]" and whether it sorts largest first."""
        metric, _, direction = (sort or "distance").partition(":")
        if metric not in SORTS or direction not in ("", "asc", "desc"):
            raise SelectionError(f"{self.name('sort')}: sorts by {', '.join(SORTS)} (METRIC or METRIC:asc), "
                                 f"got {sort!r}")
        return metric, direction != "asc"

    def _metric(self, metric: str, rows: np.ndarray | None) -> np.ndarray:
        """A metric of `SORTS` for these sets (all of them if None)."""
        c = self.columns
        if metric in ("distance", "cluster"):
            column = c.distance if metric == "distance" else c.size
            return column if rows is None else column[rows]
        figure = c.vehicles() if metric == "pieces" else c.count(len(self.puzzle.vehicles))
        figure = figure.astype(smallest_unsigned(int(figure.max(initial=0))))
        return figure[c.piece_set if rows is None else c.piece_set[rows]]

    def level(self, rank: int) -> UniverseLevel:
        """Stored set number `rank` as a puzzle."""
        if not 0 <= rank < self.sets:
            raise SelectionError(f"set {rank} does not exist (0..{self.sets - 1})")
        r = self.files.record(rank)
        solvable = int(r["distance"]) >= 0
        letters = [v.letter for v in self.puzzle.vehicles] + [WALL]
        terms = ""
        if solvable and int(r["size"]) <= EXPLAINED_MOST:
            counts = walk_counts(self.space, r["groups"], int(r["walls"]), int(r["farthest"]),
                                 WALKED_DEFAULT.lookahead, int(r["size"]))
            terms = walked_terms(counts).text()
        return UniverseLevel(rank, self.draw(r, int(r["farthest"] if solvable else r["first"])),
                             self.draw(r, int(r["first"])), int(r["distance"]) if solvable else None,
                             int(r["size"]), {k: int(n) for k, n in zip(letters, r["counts"]) if n},
                             bool(r["minimal"] == 1) if solvable else None,
                             bool(r["unique"] == 1) if solvable else None, difficulty_terms=terms)

    def draw(self, record: Any, code: int) -> str:
        """A position of a stored set: rows joined by '/', '.' empty, 'x' a wall."""
        return self.space.draw(record["groups"], int(record["walls"]), code)

    # -- playing positions ----------------------------------------------------------------------

    @cached_property
    def positions(self) -> Positions:
        """Reads, moves and measures positions; keeps the connected set it explored last."""
        return Positions(self.puzzle, self.space)

    def position(self, board: str) -> UniversePosition:
        """The position a drawing shows (rows joined by '/'); SelectionError saying why if it is
        no position of the universe (size, letters, vehicles, counts, walls, the goal row)."""
        return self.positions.read(board)

    def normal(self, position: UniversePosition) -> UniversePosition:
        """The position as the tables hold it: as it is (one drawing names each)."""
        return position

    def distance(self, board: str) -> int | None:
        """Moves from a drawn position to the goal (None if its set cannot be solved), measured
        on its connected set."""
        return self.positions.distance(self.position(board))

    def play(self, board: str) -> UniverseReport:
        """Where a drawn position stands: its distance, its set's size and farthest distance,
        one shortest solution, and every legal move with the distance it leads to. The set is
        explored once; positions of the same set are answered from memory after that."""
        return self.positions.report(self.position(board))

    def move(self, board: str, source: Cell, target: Cell) -> UniverseReport:
        """Play the move of the vehicle whose first cell is `source` to `target` from a drawn
        position: the report of the position it leads to; SelectionError if it is not legal."""
        return self.positions.report(self.positions.move(self.position(board), source, target).position)

    def picture(self, board: str, title: str = "") -> Picture:
        """A drawn position's picture, as the workspace draws it."""
        return universe_picture(self.puzzle, self.position(board), title)

    def histogram(self) -> list[tuple[int, int, int]]:
        """(distance, puzzles, minimal puzzles) for every distance of a solvable set."""
        return [(row["distance"], row["puzzles"], row["minimal"]) for row in self.layers]

    def show(self, rank: int, pieces: int | None = None, layer: str | None = None) -> UniverseLevel:
        """Stored set number `rank` (`level`); the tables have no layers, so `pieces` and
        `layer` are refused."""
        if pieces is not None or layer is not None:
            what = self.name("pieces" if pieces is not None else "layer")
            raise SelectionError(f"{what}: universe tables number their sets from 0, with no layers")
        return self.level(rank)

    def verify(self, sample: int = 0, seed: int = 0) -> Verification:
        """Check every file against its size and sha256, and the figures its manifest entry
        gives against its sets (see `_misstated`). The sets are not derived again: `sample`
        and `seed` are taken for the contract's sake."""
        files = self.store.files(self.dtype)  # StoreError: a manifest that lists them wrongly
        result = Verification(self.directory, files=len(files))
        for path, entry in files:
            try:
                sets = self.store.read(path, entry, self.dtype)
            except StoreError as exc:
                result.problems.append(str(exc))
                continue
            result.problems += self._misstated(f"{self.store.manifest_path}: the entry of {path.name}", entry,
                                               totals(sets["distance"], sets["size"]))
        return result

    def _misstated(self, where: str, entry: dict[str, Any], kept: dict[str, int]) -> list[str]:
        """What a file's manifest entry misstates, given the totals of the sets it keeps: its
        positions; the totals of every set found, which are those of its sets when the tables
        keep every set, hold its sets' when they keep those that can be solved, and are never
        fewer than its sets' that can be solved nor more solvable than found."""
        found = entry.get("found")
        keys = ("sets", "positions", "solvable_sets", "solvable_positions")
        if not isinstance(found, dict) or not all(type(found.get(key)) is int for key in keys):
            return [f"{where} lacks the totals of the sets found"]
        problems = [] if entry.get("positions") == kept["positions"] else [
            f"{where} gives positions {entry.get('positions')!r}, its sets hold {kept['positions']}"]
        exact = {"all": kept, "solvable": {"solvable_sets": kept["sets"],
                                           "solvable_positions": kept["positions"]}}.get(self.store.keep, {})
        if (any(found[key] != value for key, value in exact.items())
                or found["solvable_sets"] < kept["solvable_sets"] or found["sets"] < found["solvable_sets"]
                or found["solvable_positions"] < kept["solvable_positions"]
                or found["positions"] < found["solvable_positions"]):
            problems.append(f"{where} gives found {found!r}, which its sets do not bear out")
        return problems

    def export(self, levels: Sequence[Any], path: str | Path, format: str = "json") -> list[Path]:
        """Write puzzles as json, csv, toml (one sliding-block file each) or a histogram; a
        `Pack` keeps its curve in json and csv."""
        curve = levels.record() if isinstance(levels, Pack) else None
        listed = levels if isinstance(levels, SetLevels) else list(levels)
        return self._exports(path).write(format, self.puzzle, listed, path, curve)

    def variants(self, board: Any, want: str = "", limit: int = 0) -> list[Any]:
        raise SelectionError("universe tables list no variants")
