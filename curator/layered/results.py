"""`LayeredResults`: the results folder of a layered puzzle, as the Python API shows it.

One object per folder: it reads the puzzle once, keeps one search (pruned by the stored
solvable bits) for every question, and answers counts, selections, single positions,
verification and exports. The command line is a thin layer over it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, cast

import numpy as np

from curator.arrange import POOL_SIZE, VARIETY, Pack, arrange, check_pack_sizes, read_curve, variety_rules
from curator.common.bounds import SEARCH_LIMIT, Search
from curator.common.difficulty import Player, read_player
from curator.common.errors import SelectionError, StoreError
from curator.common.exports import Exporting
from curator.common.files import DEFAULT_SAMPLE, Verification
from curator.common.keywords import Naming, at_least, real_span
from curator.common.variants import LIMIT as VARIANT_LIMIT
from curator.common.variants import Variant, Variants, check_limit, check_want
from curator.layered import metrics
from curator.layered.level import CellMove, Level, PuzzleLike, draw, position_json
from curator.layered.puzzle import Puzzle, parse_drawing
from curator.layered.search import Explorer
from curator.layered.select import (
    METRICS_CAP,
    Filters,
    Selection,
    count_matches,
    counts_text,
    cross_check,
    draw_pool,
    make_filters,
    parse_sort,
    select,
)
from curator.layered.space import Layer, StateSpace
from curator.layered.store import LayerStore
from curator.layered.variants import find_variants
from curator.layered.verify import verify

FILTER_KEYWORDS = ("solvable", "unique", "all_moves", "pieces", "counts", "must_include", "must_exclude",
                   "canonical")
"""The keywords of `count` and `select` that say which positions match."""


@dataclass(frozen=True)
class StoredPosition:
    """One stored position and its three stored bits (what `show` answers)."""

    layer: str
    rank: int
    position: tuple[int, ...]
    solvable: bool
    unique: bool
    all_moves: bool
    puzzle: PuzzleLike = field(repr=False, compare=False)

    @property
    def pieces(self) -> int:
        return sum(1 for v in self.position if v)

    @property
    def board(self) -> list[str]:
        return draw(self.puzzle, self.position).split("\n")

    def to_json(self) -> dict[str, Any]:
        """The position as `show --json` prints it."""
        return {**position_json(self.puzzle, self.layer, self.rank, self.position),
                "solvable": self.solvable, "unique": self.unique, "all_moves": self.all_moves}

    def _repr_svg_(self) -> str:
        from curator.picture import picture, svg_text

        return svg_text(picture(self.puzzle, self.position, f"{self.layer} #{self.rank}"))


@dataclass(frozen=True)
class Status:
    """Where a position stands (what `LayeredResults.status` answers)."""

    position: tuple[int, ...]
    pieces: int
    goal: bool
    """It is a goal position: the game is won."""
    solvable: bool
    unique: bool
    all_moves: bool
    stored: bool
    """The answer comes from the stored bits (else from a search)."""


@dataclass(frozen=True)
class Outcome:
    """One legal move of a position and where it leads (see `LayeredResults.moves`)."""

    move: CellMove
    """((row, col), (row, col)): from cell to cell, as `Level.solution` writes moves."""
    position: tuple[int, ...]
    solvable: bool


class LayeredResults(Exporting):
    """The stored layers of one puzzle, opened with `curator.open(directory)`.

    Filter keywords (`count`, `select`): `solvable`, `unique`, `all_moves` (True, False or
    None), `pieces` (k or (a, b)), `counts` ({"K": 1, "R": (0, 2)}), `must_include` and
    `must_exclude` ((row, col) cells), `canonical`. `select` also takes `sample`, `seed`,
    `difficulty` (a range (a, b) of difficulties), `sort` ("difficulty:desc"; see
    `curator.layered.select.SORT_METRICS`) and `limit`.
    """

    kind = "layers"

    def __init__(self, directory: str | Path, name: Naming | None = None) -> None:
        """`name` spells keywords in error messages (the command line passes its options)."""
        self.directory = Path(directory)
        self.store = LayerStore.open(self.directory)
        self._name = name or (lambda keyword: keyword)
        self._explorer: Explorer | None = None

    def __repr__(self) -> str:
        return f"LayeredResults({str(self.directory)!r})"

    @cached_property
    def puzzle(self) -> Puzzle:
        """The puzzle, read once from the folder's copy of its file."""
        return self.store.puzzle()

    @property
    def complete(self) -> bool:
        return bool(self.store.manifest.get("complete"))

    @cached_property
    def player(self) -> Player:
        """The player model that rates these levels: the one `curator calibrate` stored here
        (checked against its checksum and the puzzle file), else the puzzle's defaults
        (`Puzzle.player`)."""
        return read_player(self.directory, self.puzzle.sha256, self.puzzle.player)

    @property
    def layers(self) -> list[dict[str, Any]]:
        """The per-layer figures `curator info --json` prints: pieces, positions, the three
        counts and seconds (and per-type `counts` for typed puzzles)."""
        typed = len(self.store.manifest["piece_types"]) > 1
        names = ("pieces", "positions", "solvable", "unique", "all_moves", "seconds")
        out = []
        for record in self.store.records():
            item = {k: record.entry[k] for k in names}
            if typed:
                item["counts"] = record.entry["counts"]
            out.append(item)
        return out

    def summary(self) -> dict[str, Any]:
        """What `curator info --json` prints."""
        return {"puzzle": self.store.manifest["puzzle"], "complete": self.complete, "layers": self.layers}

    # -- selecting ---------------------------------------------------------------------------

    def filters(self, **keywords: Any) -> Filters:
        """The filters the keywords name (see the class docstring); SelectionError if wrong."""
        unknown = [k for k in keywords if k not in FILTER_KEYWORDS]
        if unknown:
            raise SelectionError(f"{self._name(unknown[0])} does not apply to layered results "
                                 f"(filters: {', '.join(FILTER_KEYWORDS)})")
        return make_filters(self.puzzle, name=self._name, **keywords)

    def count(self, **filters: Any) -> int:
        """How many stored positions match the filters (no search)."""
        return sum(self.count_by_layer(**filters).values())

    def count_by_layer(self, **filters: Any) -> dict[str, int]:
        """Matching positions per stored layer key."""
        return {layer.key: n for layer, n in count_matches(self.store, self.filters(**filters))}

    def selection(self, *, sample: int | None = None, seed: int | None = None, sort: str | None = None,
                  limit: int | None = None, difficulty: float | tuple[float, float] | None = None,
                  cap: int = METRICS_CAP, progress: Callable[[int, int], None] | None = None,
                  **filters: Any) -> Selection:
        """The levels `select` returns, with the number of positions matching the filters;
        `progress(done, total)` follows the rating of the picked positions."""
        if seed is not None and sample is None:
            raise SelectionError(f"{self._name('seed')} only applies with {self._name('sample')}")
        order = parse_sort(sort, self._name("sort")) if sort is not None else None
        bounds = None if difficulty is None else real_span(difficulty, self._name("difficulty"))
        return select(self.store, self.filters(**filters), sample=at_least(sample, 1, self._name("sample")),
                      seed=at_least(seed, 0, self._name("seed")) or 0,
                      limit=at_least(limit, 1, self._name("limit")), sort=order,
                      cap=at_least(cap, 1, self._name("cap")),
                      explorer=self.explorer, difficulty=bounds, progress=progress, player=self.player)

    def select(self, **keywords: Any) -> list[Level]:
        """Levels matching the filters: filter, keep canonical ones, sample, compute metrics,
        sort, limit (see `curator.layered.select`)."""
        return self.selection(**keywords).levels

    def pack(self, size: int, curve: str | Path = "linear", *, pool: int = POOL_SIZE, seed: int = 0,
             variety: Iterable[str] | None = VARIETY, progress: Callable[[int, int], None] | None = None,
             **filters: Any) -> Pack:
        """A pack of `size` levels matching the filters whose difficulty follows `curve` from
        easy to hard: a name of `curator.arrange.CURVES` or a level pack file whose order it
        follows. Where the curve rises no level is easier than the one before by more than
        `curator.arrange.TOLERANCE` of the pack's difficulty range; within that the pack
        keeps the variety rules named by `variety` ("counts", "share", "openings": see
        `curator.arrange.VARIETY`; None or () for none). The candidates are `pool` matching
        levels drawn evenly across piece counts with `seed`, one per class (`canonical` is
        implied) among those that can be solved (`solvable` is implied); see
        `curator.arrange.arrange`. `progress(done, total)` follows the rating
        of the pool.
        """
        check_pack_sizes(size, pool, seed, self._name)
        rules = variety_rules(variety, VARIETY, self._name)
        if filters.get("canonical", True) is not True:
            raise SelectionError(f"{self._name('canonical')}: a pack always keeps one level per class")
        if filters.get("solvable") is False:
            raise SelectionError(f"{self._name('solvable')}: a pack takes only levels that can be solved")
        shape = read_curve(curve, self._name("curve"), self.exports)
        chosen = self.filters(**{**filters, "canonical": True, "solvable": True})
        candidates = draw_pool(self.store, chosen, pool, seed, self.explorer, progress, self.player)
        return arrange(candidates.levels, size, shape, self._name, rules)

    # -- single positions --------------------------------------------------------------------

    @property
    def explorer(self) -> Explorer:
        """The search every question of these results shares (pruned by the stored layers)."""
        if self._explorer is None:
            self._explorer = Explorer(self.puzzle, self.store.solvable_words())
        return self._explorer

    def solve(self, board: str | Sequence[int], search_limit: int | None = SEARCH_LIMIT,
              progress: Callable[[int, int], None] | None = None,
              note: Callable[[str], None] | None = None) -> Level:
        """The level of any position: a drawing (as `curator solve --board` takes it) or one
        entry per cell (0 empty, t = piece type t).

        Above the stored layers the search holds at most `search_limit` positions (None: no
        bound); past it, `curator.SearchTooLarge` says how far to analyze first.
        `progress(searched, search_limit)` follows the search there, and `note(line)` gets its
        estimate first when the tiers above the stored layers might hold more than
        `search_limit` positions."""
        at_least(search_limit, 1, self._name("search_limit"))
        level = metrics.solve_position(self.puzzle, self._board(board), explorer=self.explorer,
                                       search=Search(search_limit, progress, note), player=self.player)
        cross_check(self.store, level)
        return level

    def _board(self, board: str | Sequence[int]) -> tuple[int, ...]:
        if isinstance(board, str):
            return parse_drawing(board, self.puzzle)
        if isinstance(board, Sequence | np.ndarray):
            return tuple(cast(Sequence[int], board))
        what = self._name("board")
        raise SelectionError(f"{what} must be a drawing or one entry per cell, got {board!r}")

    def position(self, board: str | Sequence[int]) -> tuple[int, ...]:
        """The position `board` names (as `solve` takes it), checked against the board and
        the piece limits; SelectionError if it is not a position of this puzzle."""
        position = self._board(board)
        metrics.check_position(self.puzzle, position)
        counts = StateSpace(self.puzzle).layer_of(position).counts
        for letter, count, limit in zip(self.puzzle.piece_types, counts, self.puzzle.piece_limits):
            if count > limit:
                raise SelectionError(f"{self._name('board')} has {count} pieces {letter}, the puzzle at most "
                                     f"{limit}")
        return tuple(int(v) for v in position)

    def status(self, board: str | Sequence[int], search: Search | None = None) -> Status:
        """Whether a position is solvable, uniquely and all-moves solvable: its stored bits
        where its layer is stored, else a search (pruned by the stored layers, within `search`:
        by default `SEARCH_LIMIT` positions)."""
        position = self.position(board)
        layer, rank = StateSpace(self.puzzle).rank(position)
        pieces = layer.pieces
        goal = pieces == self.puzzle.goal.pieces
        if self.store.record(layer) is not None:
            bits = self.store.load(layer, mmap=True).at(rank)
            return Status(position, pieces, goal and bits["solvable"], stored=True, **bits)
        report = self.explorer.report(position, search=search)
        return Status(position, pieces, goal and report.solvable, report.solvable, report.unique,
                      report.all_moves, stored=False)

    def moves(self, board: str | Sequence[int]) -> list[Outcome]:
        """Every legal move of a position (by the rules), the position it leads to and
        whether that one is still solvable (see `status`)."""
        position = self.position(board)
        found = self.puzzle.rules.moves_from(position, self.explorer.tables)
        cells = self.puzzle.board.cells
        return [Outcome((cells[a], cells[b]), child, self.status(child).solvable) for (a, b), child in found]

    def variants(self, board: str | Sequence[int], want: str = "unique", limit: int = VARIANT_LIMIT,
                 search_limit: int | None = SEARCH_LIMIT) -> list[Variant]:
        """The levels one edit away from a position (a piece added on an empty cell, removed,
        or moved to an empty cell) that are `want`: "unique" (uniquely solvable), "solvable",
        or "harder" (solvable, with a greater difficulty than the position's), one per class
        of equivalent positions and none of the position's own class, hardest first; at most
        `limit`. Each is a `Variant`: its `edit` and its `item`, a `Level`. Above the stored
        layers every search holds at most `search_limit` positions (see `solve`)."""
        return self.variation(board, want, limit, Search(search_limit)).variants

    def variation(self, board: str | Sequence[int], want: str = "unique", limit: int = VARIANT_LIMIT,
                  search: Search | None = None, progress: Callable[[int, int], None] | None = None,
                  ) -> Variants:
        """What `variants` lists, with the position's own level and how many positions lie one
        edit away and are wanted; `search` bounds each search above the stored layers (see
        `variants`) and `progress(done, total)` follows the rating."""
        check_want(want, self._name)
        check_limit(limit, self._name)
        search = search or Search()
        at_least(search.search_limit, 1, self._name("search_limit"))
        found = find_variants(self, self.position(board), want, limit, search, progress)
        for variant in found.variants:
            cross_check(self.store, variant.item)
        return found

    def show(self, rank: int, pieces: int | None = None, layer: str | None = None) -> StoredPosition:
        """The stored position with this rank in the layer named by its key, or in the only
        layer with `pieces` pieces, with its stored bits."""
        at_least(rank, 0, self._name("rank"))
        at_least(pieces, 0, self._name("pieces"))
        if layer is not None and not isinstance(layer, str):
            raise SelectionError(f"{self._name('layer')} must be a layer key such as 'k05', got {layer!r}")
        found = self._layer(pieces, layer)
        if not 0 <= rank < found.size:
            raise SelectionError(f"rank {rank} out of range for layer {found.key} (0..{found.size - 1})")
        position = StateSpace(self.puzzle).unrank(found, rank)
        bits = self.store.load(found, mmap=True).at(rank)
        return StoredPosition(found.key, rank, position, puzzle=self.puzzle, **bits)

    def _layer(self, pieces: int | None, key: str | None) -> Layer:
        layers = [r.layer for r in self.store.records()]
        if key is not None:
            for layer in layers:
                if layer.key == key and pieces not in (None, layer.pieces):
                    raise SelectionError(f"{self._name('layer')} {key} holds {layer.pieces} pieces, not "
                                         f"{self._name('pieces')} {pieces}; give one of the two")
                if layer.key == key:
                    return layer
            known = sorted(layer.key for layer in layers if pieces is None or layer.pieces == pieces)
            shown = ", ".join(known[:8]) + (", ..." if len(known) > 8 else "")
            raise SelectionError(
                f"{self._name('layer')} {key}: no such stored layer (stored: {shown or 'none'})"
            )
        if pieces is None:
            raise SelectionError(
                f"give {self._name('pieces')} K (or {self._name('layer')} KEY) to name the layer"
            )
        matching = [layer for layer in layers if layer.pieces == pieces]
        if not matching:
            stored = sorted({layer.pieces for layer in layers})
            raise SelectionError(f"{self._name('pieces')} {pieces}: {self.directory} holds layers with "
                                 f"{counts_text(stored)} pieces")
        if len(matching) > 1:
            raise SelectionError(
                f"{self._name('pieces')} {pieces}: {len(matching)} layers have {pieces} pieces; name one "
                f"with {self._name('layer')} (e.g. {matching[0].key})"
            )
        return matching[0]

    # -- checking and exporting --------------------------------------------------------------

    def verify(self, sample: int = DEFAULT_SAMPLE, seed: int = 0,
               progress: Callable[[Layer, int], None] | None = None) -> Verification:
        """Check every file against its checksum and re-derive `sample` ranks per layer."""
        return verify(self.directory, sample, seed, progress)

    def export(self, levels: Sequence[Level], path: str | Path, format: str = "json") -> list[Path]:
        """Write levels as a level pack (json), csv, svg or png pictures, an html gallery, an
        LDtk project (ldtk), Tiled maps (tiled) or a page that plays them (play); return the
        files written (see `curator.export`). A `Pack` keeps its curve in json, csv, html,
        ldtk and tiled."""
        curve = levels.record() if isinstance(levels, Pack) else None
        return self._exports(path).write(format, self.puzzle, list(levels), path, curve)


def puzzle_results(puzzle: Puzzle, directory: Path | None, name: Naming | None = None,
                   ) -> LayeredResults | None:
    """The stored results to prune searches of `puzzle` with: `directory` if given (it must
    hold this puzzle's results), else output/<name>/ when it holds them, else None."""
    if directory is not None:
        results = LayeredResults(directory, name)
        if results.store.holds_other_puzzle(puzzle.sha256):
            raise SelectionError(
                f"{(name or str)('results')} {directory}: holds results of another puzzle file "
                f"({results.store.manifest.get('puzzle')!r})"
            )
        return results
    default = Path("output") / puzzle.name
    try:
        results = LayeredResults(default, name)
    except StoreError:  # no results there, or not readable: search without them
        return None
    if results.store.holds_other_puzzle(puzzle.sha256) or not results.store.records():
        return None
    return results
