"""Selecting levels from stored layers, and describing single positions.

Order of operations of `select`
-------------------------------
1. **filter**: for each stored layer (by piece count, then the lex order of its count
   vector) the property word arrays are combined a block of words at a time (AND for
   `--solvable`, AND NOT for `--no-solvable`, ...) and the set bits are turned into candidate
   ranks with numpy. Cell filters (`--must-include`, `--must-exclude`) then unrank the
   candidates in compiled code and test their occupancy masks.
2. **canonical**: a candidate is kept only if no symmetry maps it to a position of smaller
   rank that also passes the cell filters, so each symmetry class keeps its smallest-rank
   matching member. (Symmetric positions share their solvable / unique / all-moves bits.)
   The symmetries are those the rules respect (`Rules.symmetries`) that also map the goal
   cells (if any) onto themselves.
3. **sample**: the matches are counted first; `--sample N --seed S` then draws N of them
   uniformly without replacement with `numpy.random.default_rng(S)`. The draw depends only
   on the number of matches and the seed, not on how the scan is split into blocks.
4. **metrics**: each remaining position is searched (`curator.layered.search.Explorer`, pruned by the
   stored solvable bits) for its solution count, first-move figures, one solution and its
   difficulty. At most `METRICS_CAP` positions get metrics in one run; beyond that the
   selection is refused with a hint to add `--sample` or `--limit`.
5. **sort** by a metric (stable; ties stay in layer and rank order).
6. **limit**: the first N levels. Without `--sort` and `--sample`, the scan stops as soon as
   N matches are found (the total number of matches is then unknown).

Difficulty
----------
For a solvable position with m = pieces - goal pieces moves to go, follow the reported
solution through positions p_0 (the position itself) .. p_{m-1}; at each, L_i is the number
of legal moves and S_i the number of safe moves (moves after which the position is still
solvable). Then

    difficulty = m + G / 2 + log2(B)
    G = sum_i log2(L_i / S_i)     guesswork: bits a player needs to stay on a solvable path
                                  along this solution (for a uniquely solvable position,
                                  2**-G is the chance that uniformly random moves solve it)
    B = (sum_i L_i) / m           branching: mean number of legal moves along the solution

A goal position has difficulty 0; an unsolvable position has difficulty infinity (null in
JSON). On the 248 shipped Fling! boards its Spearman rank correlation with the published
difficulty level (1-35) is about 0.93 (see tests/test_select.py).

Cells on the command line
-------------------------
A cell is `row,col` (0-based, row 0 at the top; triangular boards use the axial coordinates
of `curator.common.board.Board.from_art`); several cells are separated by `;` or spaces, for example
`--must-include "3,3;0,2"`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numba
import numpy as np
from rich.table import Table

from curator.common.board import Board, BoardError
from curator.level import Level
from curator.layered.puzzle import Puzzle
from curator.common.ranking import (
    lowest_bit,
    multinomial,
    rank_multiset_sequence,
    unrank_colex_mask,
    unrank_multiset_sequence,
)
from curator.layered.search import Explorer, Report
from curator.layered.space import Layer, StateSpace
from curator.layered.store import LayerStore, StoreError
from curator.layered.sweep import PROPERTIES, LayerBits

BLOCK_WORDS = 1 << 15
"""Words of each property combined per step of the scan (2,097,152 positions)."""
METRICS_CAP = 2000
"""Most positions that get metrics (a search each) in one selection."""
CACHE_RANKS = 1 << 22
"""Matching ranks kept from the counting pass, so small selections are scanned once."""
SORT_METRICS = ("pieces", "legal_moves", "safe_moves", "solutions", "difficulty", "rank")
EMPTY = "."
CHUNK = 4096


class SelectionError(ValueError):
    """A filter, rank, cell list or board drawing is wrong (one-line message)."""


class _TooMany(Exception):
    """More positions would need metrics than the cap allows (args[0]: how many)."""


# ---------------------------------------------------------------------------------------
# Parsing command-line values
# ---------------------------------------------------------------------------------------

_RANGE = re.compile(r"\s*(\d+)\s*(?:\.\.\s*(\d+)\s*)?")


def parse_range(text: str, what: str) -> tuple[int, int]:
    """`A..B` or `A` as (A, B)."""
    match = _RANGE.fullmatch(text)
    if not match:
        raise SelectionError(f"{what} must look like A..B or A (e.g. 5..7), got {text!r}")
    lo = int(match[1])
    hi = int(match[2]) if match[2] is not None else lo
    if lo > hi:
        raise SelectionError(f"{what} {text!r}: {lo} is larger than {hi}")
    return lo, hi


def parse_cells(text: str, board: Board, what: str = "cells") -> frozenset[int]:
    """Cells written `r,c;r,c` (or separated by spaces) as board cell indices."""
    cells = set()
    for item in re.split(r"[;\s]+", text.strip()):
        if not item:
            continue
        match = re.fullmatch(r"\(?(-?\d+),(-?\d+)\)?", item)
        if not match:
            raise SelectionError(f"{what}: {item!r} is not a cell; write cells as row,col;row,col")
        cell = (int(match[1]), int(match[2]))
        if cell not in board.index:
            raise SelectionError(f"{what}: {cell[0]},{cell[1]} is not a cell of the board")
        cells.add(board.index[cell])
    if not cells:
        raise SelectionError(f"{what}: no cells given; write cells as row,col;row,col")
    return frozenset(cells)


def parse_counts(text: str, puzzle: Puzzle) -> dict[int, tuple[int, int]]:
    """Per-type counts `K=1,R=0..2` as {type index (0-based): (lo, hi)}."""
    if not puzzle.typed:
        raise SelectionError("--counts applies to puzzles with several piece types only")
    out: dict[int, tuple[int, int]] = {}
    for item in re.split(r"[,\s]+", text.strip()):
        if not item:
            continue
        letter, sep, value = item.partition("=")
        if not sep or letter not in puzzle.piece_types:
            raise SelectionError(
                f"--counts: {item!r} is not TYPE=A..B with TYPE one of {', '.join(puzzle.piece_types)}"
            )
        t = puzzle.piece_types.index(letter)
        lo, hi = parse_range(value, f"--counts {letter}")
        if lo > puzzle.piece_limits[t]:
            raise SelectionError(f"--counts: the puzzle has at most {puzzle.piece_limits[t]} {letter}")
        out[t] = (lo, hi)
    if not out:
        raise SelectionError("--counts: nothing given; write e.g. K=1,R=0..2")
    return out


def parse_number(text: str, what: str, minimum: int = 0) -> int:
    """A whole number of at least `minimum` (ranks, --sample, --limit, --seed)."""
    value = text.strip()
    if not re.fullmatch(r"[+-]?\d+", value):
        raise SelectionError(f"{what} must be a whole number, got {text!r}")
    number = int(value)
    if number < minimum:
        raise SelectionError(f"{what} must be at least {minimum}, got {number}")
    return number


def parse_sort(text: str) -> tuple[str, bool]:
    """`METRIC`, `METRIC:asc` or `METRIC:desc` as (metric, descending)."""
    name, _, direction = text.strip().partition(":")
    name = name.replace("-", "_")
    if name not in SORT_METRICS:
        raise SelectionError(f"--sort: unknown metric {name!r} (known: {', '.join(SORT_METRICS)})")
    if direction not in ("", "asc", "desc"):
        raise SelectionError(f"--sort: direction must be asc or desc, got {direction!r}")
    return name, direction == "desc"


def parse_board(text: str, puzzle: Puzzle) -> tuple[int, ...]:
    """A position drawn like the board art: `.` empty, `o` a piece (one-type puzzles) or piece
    letters (typed puzzles), spaces (or `#`) where the board has no cell. Rows are lines, or
    separated by `/` in one line. Returns one entry per cell (0 empty, t = type t)."""
    symbols = {EMPTY: 0}
    if puzzle.typed:
        symbols.update({letter: t for t, letter in enumerate(puzzle.piece_types, start=1)})
    else:
        symbols[puzzle.piece_types[0]] = 1
    lines = text.replace("\r", "").replace("/", "\n").split("\n")
    art, found = [], []
    for y, line in enumerate(lines):
        row = []
        for x, ch in enumerate(line.rstrip()):
            if ch in " #":
                row.append(" ")
            elif ch in symbols:
                row.append(".")
                found.append(symbols[ch])
            else:
                allowed = ", ".join(repr(s) for s in symbols)
                raise SelectionError(
                    f"board drawing: unexpected {ch!r} at line {y + 1}, column {x + 1} (use {allowed})"
                )
        art.append("".join(row))
    try:
        drawn = Board.from_art(puzzle.board.grid, "\n".join(art))
    except BoardError as exc:
        raise SelectionError(f"board drawing: {exc}")
    if drawn.cells != puzzle.board.cells:
        raise SelectionError(
            f"board drawing: its {drawn.size} cells do not have the shape of the {puzzle.name} board "
            f"({puzzle.board.size} cells, {puzzle.board.rows} rows)"
        )
    position = tuple(found)
    for t, limit in enumerate(puzzle.piece_limits, start=1):
        if position.count(t) > limit:
            raise SelectionError(
                f"board drawing: {position.count(t)} pieces {puzzle.piece_types[t - 1]!r}, "
                f"the puzzle has {limit}"
            )
    return position


def read_board(value: str, puzzle: Puzzle) -> tuple[int, ...]:
    """`--board`: the drawing in a file if `value` names one, else the drawing itself."""
    path = Path(value)
    if "\n" not in value and path.is_file():
        return parse_board(path.read_text(encoding="utf-8"), puzzle)
    try:
        return parse_board(value, puzzle)
    except SelectionError as exc:
        if "\n" not in value and ("." in value or "/" in value) and not path.exists():
            raise SelectionError(f"--board: no file {value!r}, and as a drawing: {exc}")
        raise


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

    def properties(self) -> list[tuple[str, bool]]:
        return [(p, getattr(self, p)) for p in PROPERTIES if getattr(self, p) is not None]

    def per_position(self) -> bool:
        """Whether candidates need unranking (cell filters or --canonical)."""
        return bool(self.include or self.exclude or self.canonical)


def build_filters(
    puzzle: Puzzle,
    solvable: bool | None = None,
    unique: bool | None = None,
    all_moves: bool | None = None,
    pieces: str | None = None,
    counts: str | None = None,
    must_include: str | None = None,
    must_exclude: str | None = None,
    canonical: bool = False,
) -> Filters:
    """Filters from command-line text (see the parse_* functions)."""
    board = puzzle.board
    include = parse_cells(must_include, board, "--must-include") if must_include is not None else frozenset()
    exclude = parse_cells(must_exclude, board, "--must-exclude") if must_exclude is not None else frozenset()
    if include & exclude:
        raise SelectionError("--must-include and --must-exclude name the same cell")
    return Filters(
        solvable=solvable,
        unique=unique,
        all_moves=all_moves,
        pieces=parse_range(pieces, "--pieces") if pieces is not None else None,
        counts=parse_counts(counts, puzzle) if counts is not None else {},
        include=include,
        exclude=exclude,
        canonical=canonical,
    )


def puzzle_symmetries(puzzle: Puzzle) -> np.ndarray:
    """Cell permutations (identity first) that map every position to an equivalent one:
    those the rules respect that also keep the goal cells in place as a set."""
    perms = puzzle.rules.symmetries()
    cells = puzzle.goal.cells
    if cells is not None:
        perms = [p for p in perms if {p[c] for c in cells} == set(cells)]
    return np.array(perms, dtype=np.int64).reshape(len(perms), puzzle.board.size)


@numba.njit(cache=True)
def _image_mask(mask, perm):
    image = np.uint64(0)
    m = mask
    while m:
        cell = lowest_bit(m)
        m &= m - np.uint64(1)
        image |= np.uint64(1) << np.uint64(perm[cell])
    return image


@numba.njit(cache=True)
def _keep_binary_chunk(ranks, lo, hi, n, k, include, exclude, perms, canonical, keep):
    for i in range(lo, hi):
        mask = unrank_colex_mask(ranks[i], n, k)
        ok = (mask & include) == include and (mask & exclude) == 0
        if ok and canonical:
            # Colex order is the numeric order of masks of one popcount.
            for s in range(1, perms.shape[0]):
                image = _image_mask(mask, perms[s])
                if image < mask and (image & include) == include and (image & exclude) == 0:
                    ok = False
                    break
        keep[i] = ok


@numba.njit(cache=True, parallel=True)
def _keep_binary(ranks, n, k, include, exclude, perms, canonical, keep):
    chunks = (ranks.shape[0] + CHUNK - 1) // CHUNK
    for c in numba.prange(chunks):
        lo = c * CHUNK
        hi = min(lo + CHUNK, ranks.shape[0])
        _keep_binary_chunk(ranks, lo, hi, n, k, include, exclude, perms, canonical, keep)


@numba.njit(cache=True)
def _keep_typed_chunk(ranks, lo, hi, n, counts, include, exclude, perms, canonical, keep):
    counts = counts.copy()  # the multiset rankers use it as scratch space
    k = counts.sum()
    arrangements = multinomial(counts)
    seq = np.empty(k, dtype=np.int64)
    image_seq = np.empty(k, dtype=np.int64)
    board = np.zeros(n, dtype=np.int64)
    image = np.zeros(n, dtype=np.int64)
    for i in range(lo, hi):
        r = ranks[i]
        mask = unrank_colex_mask(r // arrangements, n, k)
        ok = (mask & include) == include and (mask & exclude) == 0
        if ok and canonical:
            own = r % arrangements
            unrank_multiset_sequence(own, counts, seq)
            board[:] = 0
            m = mask
            for j in range(k):
                board[lowest_bit(m)] = seq[j] + 1
                m &= m - np.uint64(1)
            for s in range(1, perms.shape[0]):
                image_mask = _image_mask(mask, perms[s])
                if image_mask > mask or (image_mask & include) != include or (image_mask & exclude) != 0:
                    continue
                if image_mask < mask:
                    ok = False
                    break
                image[:] = 0
                for cell in range(n):
                    image[perms[s, cell]] = board[cell]
                p = 0
                for cell in range(n):
                    if image[cell]:
                        image_seq[p] = image[cell] - 1
                        p += 1
                if rank_multiset_sequence(image_seq, counts) < own:
                    ok = False
                    break
        keep[i] = ok


@numba.njit(cache=True, parallel=True)
def _keep_typed(ranks, n, counts, include, exclude, perms, canonical, keep):
    chunks = (ranks.shape[0] + CHUNK - 1) // CHUNK
    for c in numba.prange(chunks):
        lo = c * CHUNK
        hi = min(lo + CHUNK, ranks.shape[0])
        _keep_typed_chunk(ranks, lo, hi, n, counts, include, exclude, perms, canonical, keep)


class Matcher:
    """Finds the ranks of a layer's positions that pass the filters, a block at a time."""

    def __init__(self, puzzle: Puzzle, filters: Filters) -> None:
        self.puzzle = puzzle
        self.filters = filters
        self.include = np.uint64(sum(1 << c for c in filters.include))
        self.exclude = np.uint64(sum(1 << c for c in filters.exclude))
        self.perms = puzzle_symmetries(puzzle)

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
        canonical = self.filters.canonical and self.perms.shape[0] > 1
        keep = np.zeros(ranks.shape[0], dtype=np.bool_)
        args = (self.include, self.exclude, self.perms, canonical, keep)
        # Starting threads costs more than a few chunks of work.
        parallel = ranks.shape[0] > 4 * CHUNK
        if layer.typed:
            counts = np.array(layer.counts, dtype=np.int64)
            if parallel:
                _keep_typed(ranks, layer.cells, counts, *args)
            else:
                _keep_typed_chunk(ranks, 0, ranks.shape[0], layer.cells, counts, *args)
        elif parallel:
            _keep_binary(ranks, layer.cells, layer.pieces, *args)
        else:
            _keep_binary_chunk(ranks, 0, ranks.shape[0], layer.cells, layer.pieces, *args)
        return ranks[keep]


def selected_layers(store: LayerStore, puzzle: Puzzle, filters: Filters) -> list[Layer]:
    """The stored layers the piece filters allow, by piece count then count vector."""
    layers = sorted((r.layer for r in store.records()), key=lambda layer: (layer.pieces, layer.counts))
    if not layers:
        raise StoreError(f"{store.directory}: no layers have been computed")
    stored = sorted({layer.pieces for layer in layers})
    if filters.pieces is not None:
        lo, hi = filters.pieces
        if any(k not in stored for k in range(lo, hi + 1)):
            asked = f"{lo}..{hi}" if hi > lo else str(lo)
            raise SelectionError(
                f"--pieces {asked}: {store.directory} holds layers with {_ranges(stored)} pieces"
            )
        layers = [layer for layer in layers if lo <= layer.pieces <= hi]
    for t, (lo, hi) in filters.counts.items():
        layers = [layer for layer in layers if lo <= layer.counts[t] <= hi]
    return layers


def _ranges(values: list[int]) -> str:
    return f"{values[0]}..{values[-1]}" if values == list(range(values[0], values[-1] + 1)) else str(values)


def count_matches(store: LayerStore, filters: Filters) -> list[tuple[Layer, int]]:
    """Matching positions per selected layer (no search)."""
    puzzle = store.puzzle()
    matcher = Matcher(puzzle, filters)
    out = []
    for layer in selected_layers(store, puzzle, filters):
        bits = store.load(layer, verify=False, mmap=True)
        out.append((layer, sum(matcher.count(bits, *span)[0] for span in matcher.spans(layer))))
    return out


def results_for(puzzle: Puzzle, directory: Path | None) -> LayerStore | None:
    """The stored results to prune a search of `puzzle` with: `directory` if given (it must
    hold this puzzle's results), else output/<name>/ when it holds them, else None."""
    if directory is not None:
        store = LayerStore.open(directory)
        if store.manifest.get("puzzle_sha256") != puzzle.sha256:
            raise SelectionError(
                f"--results {directory}: holds results of another puzzle file "
                f"({store.manifest.get('puzzle')!r})"
            )
        return store
    default = Path("output") / puzzle.name
    try:
        store = LayerStore(default)
    except StoreError:
        return None
    if store.manifest.get("puzzle_sha256") != puzzle.sha256 or not store.records():
        return None
    return store


def find_layer(store: LayerStore, pieces: int | None, key: str | None) -> Layer:
    """The stored layer named by its key, or the only stored layer with `pieces` pieces."""
    layers = [r.layer for r in store.records()]
    if key is not None:
        for layer in layers:
            if layer.key == key and (pieces is None or layer.pieces == pieces):
                return layer
        known = sorted(layer.key for layer in layers if pieces is None or layer.pieces == pieces)
        shown = ", ".join(known[:8]) + (", ..." if len(known) > 8 else "")
        raise SelectionError(f"--layer {key}: no such stored layer (stored: {shown or 'none'})")
    if pieces is None:
        raise SelectionError("give --pieces K (or --layer KEY) to name the layer")
    matching = [layer for layer in layers if layer.pieces == pieces]
    if not matching:
        stored = sorted({layer.pieces for layer in layers})
        raise SelectionError(
            f"--pieces {pieces}: {store.directory} holds layers with {_ranges(stored)} pieces"
        )
    if len(matching) > 1:
        raise SelectionError(
            f"--pieces {pieces}: {len(matching)} layers have {pieces} pieces; name one with --layer "
            f"(e.g. {matching[0].key})"
        )
    return matching[0]


def check_rank(layer: Layer, rank: int) -> int:
    if not 0 <= rank < layer.size:
        raise SelectionError(f"rank {rank} out of range for layer {layer.key} (0..{layer.size - 1})")
    return rank


# ---------------------------------------------------------------------------------------
# Selecting levels
# ---------------------------------------------------------------------------------------


@dataclass
class Selection:
    """The levels chosen, and how many positions matched the filters (after --canonical)."""

    levels: list[Level]
    matched: int | None
    """None when the scan stopped early at --limit."""


@dataclass
class _Block:
    layer: Layer
    first: int
    last: int
    count: int
    ranks: np.ndarray | None


def stored_solvable(store: LayerStore) -> dict[Layer, np.ndarray]:
    """Every stored layer's solvable words (mapped, not read), for pruning searches."""
    return {r.layer: store.load(r.layer, verify=False, mmap=True).solvable for r in store.records()}


def select(
    store: LayerStore,
    filters: Filters,
    sample: int | None = None,
    seed: int = 0,
    limit: int | None = None,
    sort: tuple[str, bool] | None = None,
    cap: int = METRICS_CAP,
) -> Selection:
    """Filter, keep canonical positions, sample, compute metrics, sort, limit (in that order)."""
    puzzle = store.puzzle()
    try:
        picked, matched = pick(store, filters, sample, seed, None if sort else limit, cap)
    except _TooMany as exc:
        hint = "add --sample N to sort a random subset" if sort else "add --limit N or --sample N"
        raise SelectionError(
            f"{exc.args[0]:,} positions match; at most {cap:,} get metrics in one run ({hint})"
        ) from None
    explorer = Explorer(puzzle, stored_solvable(store)) if picked else None
    levels = [describe(puzzle, explorer, layer, rank) for layer, rank in picked]
    if sort is not None:
        metric, descending = sort
        levels.sort(key=lambda level: _metric(level, metric), reverse=descending)
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
        raise SelectionError(f"--sample must be at least 1, got {sample}")
    if limit is not None and limit < 1:
        raise SelectionError(f"--limit must be at least 1, got {limit}")
    puzzle = store.puzzle()
    matcher = Matcher(puzzle, filters)
    stop_at = limit if sample is None else None
    blocks: list[_Block] = []
    total = cached = 0
    complete = True
    for layer in selected_layers(store, puzzle, filters):
        bits = store.load(layer, verify=False, mmap=True)
        for first, last in matcher.spans(layer):
            if stop_at is not None and total >= stop_at:
                complete = False
                break
            count, ranks = matcher.count(bits, first, last)
            if ranks is not None:
                if cached + count <= CACHE_RANKS:
                    cached += count
                else:
                    ranks = None
            blocks.append(_Block(layer, first, last, count, ranks))
            total += count
        if not complete:
            break
    keep = min(total, sample or total, limit or total)
    if cap is not None and keep > cap:
        raise _TooMany(keep)
    if sample is not None and sample < total:
        wanted = np.sort(np.random.default_rng(seed).choice(total, size=sample, replace=False))
    else:
        wanted = np.arange(total, dtype=np.int64)
    if limit is not None:
        wanted = wanted[:limit]
    return _pick(store, matcher, blocks, wanted), (total if complete else None)


def matches(store: LayerStore, filters: Filters) -> Iterator[tuple[Layer, np.ndarray]]:
    """Every matching rank, layer by layer and block by block (ascending within a layer)."""
    puzzle = store.puzzle()
    matcher = Matcher(puzzle, filters)
    for layer in selected_layers(store, puzzle, filters):
        bits = store.load(layer, verify=False, mmap=True)
        for first, last in matcher.spans(layer):
            yield layer, matcher.ranks(bits, first, last)


def _pick(store: LayerStore, matcher: Matcher, blocks: list[_Block], wanted: np.ndarray):
    """(layer, rank) of the matches with the given ascending indices."""
    picked = []
    start = 0
    for block in blocks:
        end = start + block.count
        lo, hi = np.searchsorted(wanted, [start, end])
        if hi > lo:
            ranks = block.ranks
            if ranks is None:
                bits = store.load(block.layer, verify=False, mmap=True)
                ranks = matcher.ranks(bits, block.first, block.last)
            picked.extend((block.layer, int(r)) for r in ranks[wanted[lo:hi] - start])
        start = end
    return picked


def _metric(level: Level, metric: str):
    if metric == "rank":
        return level.rank
    if metric == "difficulty":
        return level.difficulty
    return getattr(level.report, metric)


# ---------------------------------------------------------------------------------------
# Metrics of one position
# ---------------------------------------------------------------------------------------


def describe(puzzle: Puzzle, explorer: Explorer, layer: Layer, rank: int) -> Level:
    """The level at (layer, rank) with its report and difficulty."""
    position = StateSpace(puzzle).unrank(layer, rank)
    report = explorer.report(position)
    return Level(layer.key, rank, position, report, difficulty(explorer, position, report))


def solve_position(puzzle: Puzzle, position: Sequence[int], stored: dict | None = None) -> Level:
    """The level of an arbitrary position (e.g. one a designer drew)."""
    if len(position) != puzzle.board.size:
        raise SelectionError(f"a position has {puzzle.board.size} cells, got {len(position)}")
    explorer = Explorer(puzzle, stored)
    layer, rank = StateSpace(puzzle).rank(position)
    report = explorer.report(position)
    return Level(layer.key, rank, tuple(position), report, difficulty(explorer, position, report))


def difficulty(explorer: Explorer, position: Sequence[int], report: Report | None = None) -> float:
    """m + G/2 + log2(B) along the reported solution (see the module docstring)."""
    report = report if report is not None else explorer.report(position)
    if not report.solvable:
        return math.inf
    moves = len(report.solution)
    if moves == 0:
        return 0.0
    guess = 0.0
    legal = 0
    here, step = tuple(position), report
    for i, move in enumerate(report.solution):
        if i:
            step = explorer.report(here)
        guess += math.log2(step.legal_moves / step.safe_moves)
        legal += step.legal_moves
        here = apply_move(explorer, here, move)
    return moves + guess / 2 + math.log2(legal / moves)


def apply_move(explorer: Explorer, position: Sequence[int], move: tuple[int, int]) -> tuple[int, ...]:
    """The position after `move` (from_cell, to_cell); ValueError if it is not legal."""
    for played, child in explorer.rules.moves_from(tuple(position), explorer.tables):
        if played == tuple(move):
            return child
    raise ValueError(f"move {move} is not legal here")


# ---------------------------------------------------------------------------------------
# Output
# ---------------------------------------------------------------------------------------


def symbols(puzzle: Puzzle, position: Sequence[int]) -> list[str]:
    return [puzzle.piece_types[v - 1] if v else EMPTY for v in position]


def draw(puzzle: Puzzle, position: Sequence[int]) -> str:
    """The position drawn like the board art."""
    return puzzle.board.draw(symbols(puzzle, position))


def cell_text(puzzle: Puzzle, cell: int) -> str:
    r, c = puzzle.board.cells[cell]
    return f"{r},{c}"


def moves_text(puzzle: Puzzle, moves: Sequence[tuple[int, int]]) -> str:
    return " ".join(f"{cell_text(puzzle, a)}>{cell_text(puzzle, b)}" for a, b in moves)


def position_json(puzzle: Puzzle, layer_key: str, rank: int, position: Sequence[int]) -> dict:
    cells = puzzle.board.cells
    return {
        "layer": layer_key,
        "rank": rank,
        "pieces": sum(1 for v in position if v),
        "board": draw(puzzle, position).split("\n"),
        "cells": [[*cells[i], puzzle.piece_types[v - 1]] for i, v in enumerate(position) if v],
    }


def level_json(puzzle: Puzzle, level: Level) -> dict:
    """A level as JSON-ready data (solution counts stay exact integers)."""
    report = level.report
    cells = puzzle.board.cells
    return {
        **position_json(puzzle, level.layer_key, level.rank, level.position),
        "solvable": report.solvable,
        "unique": report.unique,
        "all_moves": report.all_moves,
        "solutions": int(report.solutions),
        "legal_moves": report.legal_moves,
        "safe_moves": report.safe_moves,
        "difficulty": round(level.difficulty, 3) if math.isfinite(level.difficulty) else None,
        "solution": [{"from": list(cells[a]), "to": list(cells[b])} for a, b in report.solution],
    }


def stored_bits(bits: LayerBits, rank: int) -> dict[str, bool]:
    """The three stored properties of one position."""
    return {p: bool((int(getattr(bits, p)[rank >> 6]) >> (rank & 63)) & 1) for p in PROPERTIES}


def spearman(x: Sequence[float], y: Sequence[float]) -> float:
    """Spearman rank correlation (ties get their average rank)."""
    return float(np.corrcoef(_average_ranks(x), _average_ranks(y))[0, 1])


def _average_ranks(values: Sequence[float]) -> np.ndarray:
    values = np.asarray(values, dtype=np.float64)
    order = np.argsort(values, kind="stable")
    ranks = np.empty(values.shape[0], dtype=np.float64)
    ranks[order] = np.arange(values.shape[0])
    _, group = np.unique(values, return_inverse=True)
    return (np.bincount(group, weights=ranks) / np.bincount(group))[group]


def levels_table(puzzle: Puzzle, levels: Sequence[Level], title: str) -> Table:
    """Selected levels as a table: rank, pieces, metrics, the board and one solution."""
    table = Table(title=title, show_lines=True)
    if puzzle.typed:
        table.add_column("layer")
    for name in ("rank", "pieces", "solutions", "legal", "safe", "difficulty"):
        table.add_column(name, justify="right", min_width=len(name))
    table.add_column("board", no_wrap=True)
    table.add_column("solution")
    for level in levels:
        report = level.report
        layer = [level.layer_key] if puzzle.typed else []
        table.add_row(
            *layer,
            str(level.rank),
            str(level.pieces),
            f"{report.solutions:,}",
            str(report.legal_moves),
            str(report.safe_moves),
            difficulty_text(level.difficulty),
            draw(puzzle, level.position),
            moves_text(puzzle, report.solution) or "-",
        )
    return table


def difficulty_text(value: float) -> str:
    return f"{value:.2f}" if math.isfinite(value) else "-"


def level_text(puzzle: Puzzle, level: Level) -> str:
    """A level in plain text: the board, its status, metrics and one solution."""
    report = level.report
    lines = [
        draw(puzzle, level.position),
        "",
        f"layer {level.layer_key}, rank {level.rank}, {level.pieces} pieces",
        f"solvable: {_yes(report.solvable)}   unique: {_yes(report.unique)}   "
        f"all moves: {_yes(report.all_moves)}",
        f"solutions: {report.solutions:,}",
        f"legal first moves: {report.legal_moves}   safe first moves: {report.safe_moves}",
        f"difficulty: {difficulty_text(level.difficulty)}",
        f"solution: {moves_text(puzzle, report.solution) or '-'}",
    ]
    return "\n".join(lines)


def bits_text(puzzle: Puzzle, layer: Layer, rank: int, position: Sequence[int], bits: dict) -> str:
    """A stored position in plain text: the board and its three stored properties."""
    return "\n".join([
        draw(puzzle, position),
        "",
        f"layer {layer.key}, rank {rank}, {layer.pieces} pieces",
        f"solvable: {_yes(bits['solvable'])}   unique: {_yes(bits['unique'])}   "
        f"all moves: {_yes(bits['all_moves'])}",
    ])


def _yes(flag: bool) -> str:
    return "yes" if flag else "no"
