"""Selecting levels from stored layers: filtering the bits, then choosing among the matches.

Order of operations of `select`
-------------------------------
1. **filter**: for each stored layer (by piece count, then the lex order of its count
   vector) the property word arrays are combined a block of words at a time (AND for
   `solvable=True`, AND NOT for `solvable=False`, ...) and the set bits are turned into
   candidate ranks with numpy. Cell filters (`must_include`, `must_exclude`) then unrank
   the candidates in compiled code and test their occupancy masks.
2. **canonical**: a candidate is kept only if no member of its class (`curator.layered.
   classes`: its images under the symmetries of `Puzzle.symmetries` and, where the rules
   allow, under moving every piece by one vector) that also passes the cell filters is
   more centred on the board, or as centred with a smaller rank: each class keeps its most
   centred matching member, the smallest rank on ties (see `classes.offset`). (Equivalent
   positions share their solvable / unique / all-moves bits.) Layers without translations
   run the symmetry-only kernels here: symmetric images are equally centred, so the
   smallest rank decides.
3. **sample**: the matches are counted first; `sample=N, seed=S` then draws N of them
   uniformly without replacement with `numpy.random.default_rng(S)`. The draw depends only
   on the number of matches and the seed, not on how the scan is split into blocks.
4. **metrics**: each remaining position is searched (`curator.layered.metrics`, pruned by
   the stored solvable bits) for its solution count, first-move figures, one solution and
   its difficulty. At most `METRICS_CAP` positions get metrics in one run; beyond that the
   selection is refused with a hint to add a sample or a limit.
5. **sort** by a metric (stable; ties stay in layer and rank order).
6. **limit**: the first N levels. Without a sort and a sample, the scan stops as soon as
   N matches are found (the total number of matches is then unknown).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np

from curator.common.difficulty import Player
from curator.common.errors import DamagedResults, SelectionError, StoreError
from curator.common.files import PUZZLE_COPY
from curator.common.kernels import build, kernel
from curator.common.keywords import METRICS_CAP, Naming, kept, same_name, span, too_many
from curator.common.ranking import (
    fill_board,
    image_mask,
    multinomial,
    rank_board,
    unrank_colex_mask,
    unrank_multiset_sequence,
)
from curator.layered import classes
from curator.layered.bits import PROPERTIES, LayerBits
from curator.layered.level import PLAY_FIGURES, Level
from curator.layered.metrics import describe
from curator.layered.puzzle import Puzzle
from curator.layered.search import Explorer
from curator.layered.space import Layer
from curator.layered.store import LayerStore

BLOCK_WORDS = 1 << 15
"""Words of each property combined per step of the scan (2,097,152 positions)."""
CACHE_RANKS = 1 << 22
"""Matching ranks kept from the counting pass, so small selections are scanned once."""
SORT_METRICS = ("pieces", "legal_moves", "safe_moves", "solutions", "difficulty", *PLAY_FIGURES, "class_size",
                "rank")
"""What `sort` takes: the metrics of a level (see `curator.layered.level.Level`) and its rank."""


class _TooMany(Exception):
    """More positions would need metrics than the cap allows (args: how many, and how many
    match, None if the scan stopped before counting them all)."""


# ---------------------------------------------------------------------------------------
# Filtering stored bits
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Filters:
    """What a selected position must satisfy (None: either way)."""

    solvable: bool | None = None
    unique: bool | None = None
    all_moves: bool | None = None
    pieces: tuple[int, int] | None = None
    counts: dict[int, tuple[int, int]] = field(default_factory=dict)
    """Per piece type (0-based index): allowed count range (typed puzzles)."""
    include: frozenset[int] = frozenset()
    exclude: frozenset[int] = frozenset()
    canonical: bool = False
    name: Naming = field(default=same_name, compare=False, repr=False)
    """How errors name the keywords (the command line passes its options)."""

    def properties(self) -> list[tuple[str, bool]]:
        return [(p, getattr(self, p)) for p in PROPERTIES if getattr(self, p) is not None]

    def per_position(self) -> bool:
        """Whether candidates need unranking (cell filters or --canonical)."""
        return bool(self.include or self.exclude or self.canonical)


def make_filters(
    puzzle: Puzzle,
    *,
    solvable: bool | None = None,
    unique: bool | None = None,
    all_moves: bool | None = None,
    pieces: int | tuple[int, int] | None = None,
    counts: Mapping[str, int | tuple[int, int]] | None = None,
    must_include: Iterable[tuple[int, int]] = (),
    must_exclude: Iterable[tuple[int, int]] = (),
    canonical: bool = False,
    name: Naming = same_name,
) -> Filters:
    """Filters from the API's keywords, checked against the puzzle; SelectionError naming the
    keyword (as `name` spells it) if one is wrong.

    `pieces` is a count or a range (A, B); `counts` maps piece letters to a count or a range;
    cells are (row, col) pairs.
    """
    for key, value in (("solvable", solvable), ("unique", unique), ("all_moves", all_moves)):
        if value is not None and not isinstance(value, bool):
            raise SelectionError(f"{name(key)} must be True, False or None, got {value!r}")
    if not isinstance(canonical, bool):
        raise SelectionError(f"{name('canonical')} must be True or False, got {canonical!r}")
    include = _cells(must_include, puzzle, name("must_include"))
    exclude = _cells(must_exclude, puzzle, name("must_exclude"))
    if include & exclude:
        raise SelectionError(f"{name('must_include')} and {name('must_exclude')} name the same cell")
    return Filters(
        solvable=solvable,
        unique=unique,
        all_moves=all_moves,
        pieces=None if pieces is None else span(pieces, name("pieces")),
        counts=_counts(counts, puzzle, name("counts")),
        include=include,
        exclude=exclude,
        canonical=canonical,
        name=name,
    )


def _cells(cells: Iterable[tuple[int, int]], puzzle: Puzzle, what: str) -> frozenset[int]:
    if isinstance(cells, str) or not isinstance(cells, Iterable):
        raise SelectionError(f"{what} must be a list of (row, col) cells, got {cells!r}")
    out = set()
    for cell in cells:
        if (
            not isinstance(cell, tuple | list)
            or len(cell) != 2
            or not all(isinstance(v, int) and not isinstance(v, bool) for v in cell)
        ):
            raise SelectionError(f"{what}: {cell!r} is not a cell (row, col)")
        key = (cell[0], cell[1])
        if key not in puzzle.board.index:
            raise SelectionError(f"{what}: {key[0]},{key[1]} is not a cell of the board")
        out.add(puzzle.board.index[key])
    return frozenset(out)


def _counts(counts: Mapping[str, int | tuple[int, int]] | None, puzzle: Puzzle,
            what: str) -> dict[int, tuple[int, int]]:
    """{type index (0-based): (lo, hi)} from {letter: count or (lo, hi)}."""
    if counts is None:
        return {}
    if not isinstance(counts, Mapping):
        raise SelectionError(
            f"{what} must map piece letters to counts, e.g. {{'K': 1, 'R': (0, 2)}}, got {counts!r}"
        )
    if not puzzle.typed:
        raise SelectionError(f"{what} applies to puzzles with several piece types only")
    out: dict[int, tuple[int, int]] = {}
    for letter, value in counts.items():
        if letter not in puzzle.piece_types:
            raise SelectionError(
                f"{what}: {letter!r} is not one of the piece types {', '.join(puzzle.piece_types)}"
            )
        t = puzzle.piece_types.index(letter)
        lo, hi = span(value, f"{what} {letter}")
        if lo > puzzle.piece_limits[t]:
            raise SelectionError(f"{what}: the puzzle has at most {puzzle.piece_limits[t]} {letter}")
        out[t] = (lo, hi)
    if not out:
        raise SelectionError(f"{what}: nothing given; e.g. {{'K': 1, 'R': (0, 2)}}")
    return out


def parse_sort(text: str, what: str = "sort") -> tuple[str, bool]:
    """`METRIC`, `METRIC:asc` or `METRIC:desc` as (metric, descending).

    >>> parse_sort("difficulty:desc"), parse_sort("safe-moves")
    (('difficulty', True), ('safe_moves', False))
    """
    if not isinstance(text, str):
        raise SelectionError(f"{what} must be a metric name such as 'difficulty:desc', got {text!r}")
    name, _, direction = text.strip().partition(":")
    name = name.replace("-", "_")
    if name not in SORT_METRICS:
        raise SelectionError(f"{what}: unknown metric {name!r} (known: {', '.join(SORT_METRICS)})")
    if direction not in ("", "asc", "desc"):
        raise SelectionError(f"{what}: direction must be asc or desc, got {direction!r}")
    return name, direction == "desc"


@kernel
def _keep_binary_chunk(ranks, lo, hi, n, k, include, exclude, perms, canonical, keep):
    for i in range(lo, hi):
        mask = unrank_colex_mask(ranks[i], n, k)
        ok = (mask & include) == include and (mask & exclude) == 0
        if ok and canonical:
            # Colex order is the numeric order of masks of one popcount.
            for s in range(1, perms.shape[0]):
                image = image_mask(mask, perms[s])
                if image < mask and (image & include) == include and (image & exclude) == 0:
                    ok = False
                    break
        keep[i] = ok


@kernel
def _keep_typed_chunk(ranks, lo, hi, n, counts, include, exclude, perms, canonical, keep):
    counts = counts.copy()  # the multiset rankers use it as scratch space
    k = counts.sum()
    arrangements = multinomial(counts)
    seq = np.empty(k, dtype=np.int64)
    scratch = np.empty(counts.shape[0], dtype=np.int64)
    board = np.zeros(n, dtype=np.int64)
    image = np.zeros(n, dtype=np.int64)
    for i in range(lo, hi):
        r = ranks[i]
        mask = unrank_colex_mask(r // arrangements, n, k)
        ok = (mask & include) == include and (mask & exclude) == 0
        if ok and canonical:
            unrank_multiset_sequence(r % arrangements, counts, seq)
            fill_board(mask, seq, board)
            for s in range(1, perms.shape[0]):
                moved = image_mask(mask, perms[s])
                if moved > mask or (moved & include) != include or (moved & exclude) != 0:
                    continue
                if moved < mask:
                    ok = False
                    break
                for cell in range(n):
                    image[perms[s, cell]] = board[cell]
                if rank_board(image, scratch, seq) < r:
                    ok = False
                    break
        keep[i] = ok


class Matcher:
    """Finds the ranks of a layer's positions that pass the filters, a block at a time."""

    def __init__(self, puzzle: Puzzle, filters: Filters) -> None:
        self.puzzle = puzzle
        self.filters = filters
        self.include = np.uint64(sum(1 << c for c in filters.include))
        self.exclude = np.uint64(sum(1 << c for c in filters.exclude))
        self.perms = np.array(puzzle.symmetries(), dtype=np.int64).reshape(-1, puzzle.board.size)
        self._translations: dict[int, classes.Translations | None] = {}

    def translations(self, pieces: int) -> classes.Translations | None:
        """The translations of the layers with `pieces` pieces (worked out once)."""
        if pieces not in self._translations:
            self._translations[pieces] = classes.translations(self.puzzle, pieces)
        return self._translations[pieces]

    def spans(self, layer: Layer) -> Iterator[tuple[int, int]]:
        for first in range(0, layer.words, BLOCK_WORDS):
            yield first, min(first + BLOCK_WORDS, layer.words)

    def words(self, bits: LayerBits, first: int, last: int) -> np.ndarray:
        """The block's words with a bit set for each position passing the property filters."""
        layer = bits.layer
        words = np.full(last - first, np.uint64(0xFFFFFFFFFFFFFFFF), dtype="<u8")
        tail = layer.size % 64
        if last == layer.words and tail:
            words[-1] = np.uint64((1 << tail) - 1)
        for prop, wanted in self.filters.properties():
            block = getattr(bits, prop)[first:last]
            if wanted:
                words &= block
            else:
                words &= ~block
        return words

    def count(self, bits: LayerBits, first: int, last: int) -> tuple[int, np.ndarray | None]:
        """(matches in the block, their ranks if they had to be computed anyway)."""
        if not self.filters.per_position():
            return int(np.bitwise_count(self.words(bits, first, last)).sum()), None
        ranks = self.ranks(bits, first, last)
        return ranks.shape[0], ranks

    def ranks(self, bits: LayerBits, first: int, last: int) -> np.ndarray:
        """Ascending ranks of the block's matching positions."""
        words = self.words(bits, first, last)
        ranks = np.flatnonzero(np.unpackbits(words.view(np.uint8), bitorder="little")) + first * 64
        if not self.filters.per_position() or ranks.shape[0] == 0:
            return ranks
        layer = bits.layer
        keep = np.zeros(ranks.shape[0], dtype=np.bool_)
        moves = self.translations(layer.pieces) if self.filters.canonical else None
        args: tuple[Any, ...]
        if self.puzzle.rules.mask_words > 1:  # on cells, symmetries and translations alike
            cells = np.zeros((2, layer.cells), dtype=np.bool_)
            cells[0, list(self.filters.include)] = True
            cells[1, list(self.filters.exclude)] = True
            perms = self.perms if self.filters.canonical else self.perms[:1]
            tables = classes.wide_tables(self.puzzle, layer, moves)
            args = (np.array(layer.counts, dtype=np.int64), cells[0], cells[1], perms, *tables, keep)
            if ranks.shape[0] > 4 * classes.CHUNK:
                classes.in_threads(classes.keep_wide_chunk, ranks, layer.cells, *args)
            else:
                build(classes.keep_wide_chunk)(ranks, 0, ranks.shape[0], layer.cells, *args)
            return ranks[keep]
        if moves is not None:
            # keep[i]: ranks[i] passes the cell filters and is the smallest passing rank of
            # its class (symmetries and translations).
            args = (self.include, self.exclude, self.perms, *moves.arrays(), keep)
            chunk = classes.keep_typed_chunk if layer.typed else classes.keep_binary_chunk
        else:
            canonical = self.filters.canonical and self.perms.shape[0] > 1
            args = (self.include, self.exclude, self.perms, canonical, keep)
            chunk = _keep_typed_chunk if layer.typed else _keep_binary_chunk
        pieces = np.array(layer.counts, dtype=np.int64) if layer.typed else layer.pieces
        # Starting threads costs more than a few chunks of work.
        if ranks.shape[0] > 4 * classes.CHUNK:
            classes.in_threads(chunk, ranks, layer.cells, pieces, *args)
        else:
            build(chunk)(ranks, 0, ranks.shape[0], layer.cells, pieces, *args)
        return ranks[keep]


def selected_layers(store: LayerStore, puzzle: Puzzle, filters: Filters) -> list[Layer]:
    """The stored layers the piece filters allow, by piece count then count vector."""
    layers = sorted((r.layer for r in store.records()), key=lambda layer: (layer.pieces, layer.counts))
    stored = store.whole_tiers(puzzle, layers[-1].pieces) if layers else []
    layers = [layer for layer in layers if layer.pieces in stored]  # not a tier an analysis left unfinished
    if not layers:
        raise StoreError(f"{store.directory}: no layers have been computed")
    if filters.pieces is not None:
        lo, hi = filters.pieces
        if any(k not in stored for k in range(lo, hi + 1)):
            asked = f"{lo}..{hi}" if hi > lo else str(lo)
            raise SelectionError(
                f"{filters.name('pieces')} {asked}: {store.directory} holds layers with "
                f"{counts_text(stored)} pieces"
            )
        layers = [layer for layer in layers if lo <= layer.pieces <= hi]
    for t, (lo, hi) in filters.counts.items():
        layers = [layer for layer in layers if lo <= layer.counts[t] <= hi]
    return layers


def counts_text(values: list[int]) -> str:
    """Piece counts as people read them: 1..8 when they run on, else the list."""
    return f"{values[0]}..{values[-1]}" if values == list(range(values[0], values[-1] + 1)) else str(values)


def count_matches(store: LayerStore, filters: Filters) -> list[tuple[Layer, int]]:
    """Matching positions per selected layer (no search)."""
    puzzle = store.puzzle()
    matcher = Matcher(puzzle, filters)
    out = []
    for layer in selected_layers(store, puzzle, filters):
        bits = store.load(layer, mmap=True)
        out.append((layer, sum(matcher.count(bits, *span)[0] for span in matcher.spans(layer))))
    return out


# ---------------------------------------------------------------------------------------
# Selecting levels
# ---------------------------------------------------------------------------------------


@dataclass
class Selection:
    """The levels chosen, and how many positions matched the filters (after --canonical)."""

    levels: list[Level]
    matched: int | None
    """None when the scan stopped early at the limit."""


@dataclass
class _Block:
    layer: Layer
    first: int
    last: int
    count: int
    ranks: np.ndarray | None


def select(
    store: LayerStore,
    filters: Filters,
    sample: int | None = None,
    seed: int = 0,
    limit: int | None = None,
    sort: tuple[str, bool] | None = None,
    cap: int = METRICS_CAP,
    explorer: Explorer | None = None,
    difficulty: tuple[float, float] | None = None,
    progress: Callable[[int, int], None] | None = None,
    player: Player | None = None,
) -> Selection:
    """Filter, keep canonical positions, sample, compute metrics, keep the `difficulty`
    range, sort, limit (in that order).

    `explorer` searches the picked positions (by default one pruned by the store's layers);
    `progress(done, total)` is called as levels are rated; `player` rates them (None: the
    puzzle's own, `Puzzle.player`).
    """
    every = sort is not None or difficulty is not None  # metrics of every pick before the limit
    try:
        picked, matched = pick(store, filters, sample, seed, None if every else limit, cap)
    except _TooMany as exc:
        sample_, limit_ = filters.name("sample"), filters.name("limit")
        hint = f"add {sample_} N to sort a random subset" if every else f"add {limit_} N or {sample_} N"
        keep, total = exc.args
        raise SelectionError(
            f"{too_many(keep, total, 'positions')}; at most {cap:,} get metrics in one run ({hint})"
        ) from None
    levels = rate(store, picked, explorer, progress, player)
    if difficulty is not None:
        levels = within_difficulty(levels, difficulty)
    if sort is not None:
        levels = sort_levels(levels, *sort)
    if limit is not None:
        levels = levels[:limit]
    return Selection(levels, matched)


def pick(
    store: LayerStore,
    filters: Filters,
    sample: int | None = None,
    seed: int = 0,
    limit: int | None = None,
    cap: int | None = None,
) -> tuple[list[tuple[Layer, int]], int | None]:
    """(layer, rank) of the matches a selection keeps before its metrics, in layer and rank
    order, and the number of matches (None if the scan stopped early at `limit`).

    With `sample`, that many matches drawn uniformly without replacement (all if fewer
    match); then, with `limit`, the first `limit` of them. More than `cap` of them raise
    `_TooMany` (with the number) before any is unranked.
    """
    if sample is not None and sample < 1:
        raise SelectionError(f"{filters.name('sample')} must be at least 1, got {sample}")
    if limit is not None and limit < 1:
        raise SelectionError(f"{filters.name('limit')} must be at least 1, got {limit}")
    puzzle = store.puzzle()
    matcher = Matcher(puzzle, filters)
    stop_at = limit if sample is None else None
    blocks, total, complete = _scan(store, matcher, selected_layers(store, puzzle, filters), stop_at)
    keep = kept(total, sample, limit)
    if cap is not None and keep > cap:
        raise _TooMany(keep, total if complete else None)
    if sample is not None and sample < total:
        wanted = np.sort(np.random.default_rng(seed).choice(total, size=sample, replace=False))
    else:
        wanted = np.arange(total, dtype=np.int64)
    if limit is not None:
        wanted = wanted[:limit]
    return _pick(store, matcher, blocks, wanted), (total if complete else None)


def _scan(store: LayerStore, matcher: Matcher, layers: list[Layer], stop_at: int | None = None,
          ) -> tuple[list[_Block], int, bool]:
    """The blocks of `layers` with their numbers of matches (and their ranks while few enough
    are cached), the total, and whether the scan went through (False: stopped at `stop_at`)."""
    blocks: list[_Block] = []
    total = cached = 0
    for layer in layers:
        bits = store.load(layer, mmap=True)
        for first, last in matcher.spans(layer):
            if stop_at is not None and total >= stop_at:
                return blocks, total, False
            count, ranks = matcher.count(bits, first, last)
            if ranks is not None:
                if cached + count <= CACHE_RANKS:
                    cached += count
                else:
                    ranks = None
            blocks.append(_Block(layer, first, last, count, ranks))
            total += count
    return blocks, total, True


def draw_pool(
    store: LayerStore,
    filters: Filters,
    size: int,
    seed: int = 0,
    explorer: Explorer | None = None,
    progress: Callable[[int, int], None] | None = None,
    player: Player | None = None,
) -> Selection:
    """Up to `size` matching levels with their metrics, drawn evenly across piece counts.

    Each piece count the filters allow gets an equal share of `size` (a count with fewer
    matches gives what it cannot fill to the others); within a count, its share is drawn
    uniformly without replacement with `numpy.random.default_rng([seed, pieces])`. A designer's
    pool so spans every size of level, not only the most numerous one. `progress(done, total)`
    is called as levels are rated. `matched` is the number of matching positions.
    """
    puzzle = store.puzzle()
    matcher = Matcher(puzzle, filters)
    tiers: dict[int, list[Layer]] = {}
    for layer in selected_layers(store, puzzle, filters):
        tiers.setdefault(layer.pieces, []).append(layer)
    scans = {pieces: _scan(store, matcher, layers) for pieces, layers in tiers.items()}
    shares = pool_shares({pieces: total for pieces, (_, total, _) in scans.items()}, size)
    picked: list[tuple[Layer, int]] = []
    for pieces, (blocks, total, _) in scans.items():
        share = shares[pieces]
        if share < total:
            wanted = np.sort(np.random.default_rng([seed, pieces]).choice(total, size=share, replace=False))
        else:
            wanted = np.arange(total, dtype=np.int64)
        picked += _pick(store, matcher, blocks, wanted)
    matched = sum(total for _, total, _ in scans.values())
    return Selection(rate(store, picked, explorer, progress, player), matched)


def pool_shares(totals: dict[int, int], size: int) -> dict[int, int]:
    """How many of `size` to draw from each group of `totals` matches: equal shares, and what
    a small group cannot fill goes to the larger ones.

    >>> pool_shares({2: 11, 3: 69, 4: 846, 5: 10682}, 400)
    {2: 11, 3: 69, 4: 160, 5: 160}
    """
    shares: dict[int, int] = {}
    left = size
    order = sorted(totals, key=lambda key: (totals[key], key))
    for i, key in enumerate(order):
        shares[key] = min(totals[key], left // (len(order) - i))
        left -= shares[key]
    return {key: shares[key] for key in totals}


def rate(store: LayerStore, picked: list[tuple[Layer, int]], explorer: Explorer | None = None,
         progress: Callable[[int, int], None] | None = None, player: Player | None = None) -> list[Level]:
    """The levels at the picked (layer, rank) with their metrics, each cross-checked against
    its stored bits; `explorer` searches them (by default one pruned by the store's layers),
    `player` rates them (None: the puzzle's own)."""
    puzzle = store.puzzle()
    if picked and explorer is None:
        explorer = Explorer(puzzle, store.solvable_words())
    levels = []
    for layer, rank in picked:
        # The explorer was made above when anything is picked.
        level = describe(puzzle, cast(Explorer, explorer), layer, rank, player)
        cross_check(store, level)
        levels.append(level)
        if progress is not None:
            progress(len(levels), len(picked))
    return levels


def matches(store: LayerStore, filters: Filters) -> Iterator[tuple[Layer, np.ndarray]]:
    """Every matching rank, layer by layer and block by block (ascending within a layer)."""
    puzzle = store.puzzle()
    matcher = Matcher(puzzle, filters)
    for layer in selected_layers(store, puzzle, filters):
        bits = store.load(layer, mmap=True)
        for first, last in matcher.spans(layer):
            yield layer, matcher.ranks(bits, first, last)


def _pick(store: LayerStore, matcher: Matcher, blocks: list[_Block], wanted: np.ndarray):
    """(layer, rank) of the matches with the given ascending indices."""
    picked: list[tuple[Layer, int]] = []
    start = 0
    for block in blocks:
        end = start + block.count
        lo, hi = np.searchsorted(wanted, [start, end])
        if hi > lo:
            ranks = block.ranks
            if ranks is None:
                bits = store.load(block.layer, mmap=True)
                ranks = matcher.ranks(bits, block.first, block.last)
            picked.extend((block.layer, int(r)) for r in ranks[wanted[lo:hi] - start])
        start = end
    return picked


def cross_check(store: LayerStore, level: Level) -> None:
    """StoreError unless the level's stored bits agree with its recount (unique means exactly
    one solution): bits stored wrong with a matching checksum never reach a designer."""
    record = next((r for r in store.records() if r.layer.key == level.layer), None)
    if record is None:
        return
    stored = store.load(record.layer, mmap=True).at(level.rank)
    counted = {"solvable": level.solvable, "unique": level.unique, "all_moves": level.all_moves}
    if stored != counted:
        wrong = ", ".join(f"{p}={int(stored[p])}" for p in PROPERTIES if stored[p] != counted[p])
        raise DamagedResults(
            f"{store.directory}: layer {level.layer} rank {level.rank}: stored {wrong}, but the position has "
            f"{level.solutions:,} solutions and {level.safe_moves} of {level.legal_moves} safe moves "
            "(wrong bits)", store.directory, store.directory / PUZZLE_COPY, every_layer=True
        )


def sort_levels(levels: list[Level], metric: str, descending: bool) -> list[Level]:
    """Levels by a metric (stable: ties keep their order); those without the figure (None,
    NaN, or the infinite difficulty of an unsolvable level, which JSON shows as null) come
    last either way."""
    def value(level: Level) -> float | None:
        figure = getattr(level, metric)
        return None if figure is None or (isinstance(figure, float) and not math.isfinite(figure)) else figure

    known = [level for level in levels if value(level) is not None]
    unknown = [level for level in levels if value(level) is None]
    return sorted(known, key=cast(Callable[[Level], float], value), reverse=descending) + unknown


def within_difficulty(levels: list[Level], bounds: tuple[float, float]) -> list[Level]:
    """The levels whose difficulty lies in [lo, hi]."""
    lo, hi = bounds
    return [level for level in levels if lo <= level.difficulty <= hi]


