"""The lanes of a universe: every line's groups of vehicles, their placements, the slides between
placements, and the line configurations the enumeration of packed positions chooses from.

A position is coded by one digit (4 bits) per lane, the index of its placement among those of
the lane's group; the group of every lane and the walls stay fixed along a connected set.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from itertools import combinations, product
from typing import Any, NamedTuple

import numpy as np

from curator.common.errors import PuzzleError
from curator.universe.puzzle import WALL, Universe

DIGIT_BITS = 4
"""Bits of a lane's digit in a position's code."""
MOST_PLACEMENTS = (1 << DIGIT_BITS) - 1
"""A group may have at most this many placements: the all-ones code marks an empty slot."""


@dataclass(frozen=True)
class Group:
    """The vehicles of one lane in order (vehicle indices), on a lane of `width` cells."""

    axis: int
    """0: a row, 1: a column."""
    vehicles: tuple[int, ...]
    lengths: tuple[int, ...]
    width: int

    @cached_property
    def placements(self) -> list[tuple[int, ...]]:
        """Every placement as the start cell of each vehicle, ascending by the lane's mask."""
        return sorted(_starts(self.lengths, self.width), key=lambda s: _lane_mask(s, self.lengths))


def _starts(lengths: tuple[int, ...], width: int) -> list[tuple[int, ...]]:
    """The start cells of vehicles of `lengths`, in order along a lane of `width` cells."""
    if not lengths:
        return [()]
    free = width - sum(lengths)
    if free < 0:
        return []
    out = []
    for gaps in combinations(range(free + len(lengths)), len(lengths)):
        starts, used = [], 0
        for i, g in enumerate(gaps):
            starts.append(g - i + used)
            used += lengths[i]
        out.append(tuple(starts))
    return out


def _lane_mask(starts: tuple[int, ...], lengths: tuple[int, ...]) -> int:
    mask = 0
    for s, n in zip(starts, lengths):
        mask |= ((1 << n) - 1) << s
    return mask


class Lanes(NamedTuple):
    """The tables the compiled search reads (see `curator.universe.sweep`)."""

    rows: int
    cols: int
    goal_lane: int
    goal_digit: int
    local: np.ndarray
    """int64[group, digit]: the cells of the placement along its lane (bit = cell of the lane)."""
    row_t: np.ndarray
    """int64[row, lane bits]: the cells of a row's lane bits, column-major (bit c * rows + r)."""
    col_m: np.ndarray
    """int64[column, lane bits]: the cells of a column's lane bits, row-major."""
    move_lo: np.ndarray
    move_hi: np.ndarray
    """int64[group, digit, blockers]: the range of `move_to` listing the placements one slide away."""
    move_to: np.ndarray
    pieces: np.ndarray
    """int64[group]: vehicles of the group."""
    piece_mask: np.ndarray
    """int64[group, digit, vehicle]: the lane bits of one vehicle of a placement."""
    piece_kind: np.ndarray
    """int64[group, vehicle]: the vehicle's kind (index into `Universe.vehicles`)."""
    without: np.ndarray
    """int64[group, vehicle]: the group left when that vehicle is taken away."""
    digit_of: np.ndarray
    """int64[group, lane bits]: the placement covering exactly those bits, or -1."""


@dataclass(frozen=True)
class Space:
    """A universe's groups and lane tables, and the configurations each lane may take in a packed
    position (no vehicle can slide left or up), in the order the enumeration visits the lanes."""

    universe: Universe
    groups: tuple[Group, ...]
    lanes: Lanes
    order: tuple[int, ...]
    """The lanes in the order the enumeration fills them: the goal row, the other rows, the columns."""
    configs: tuple[np.ndarray, ...]
    """Per lane of `order`: int64[config, CONFIG_FIELDS + kinds] (see `CONFIG_FIELDS`)."""

    @property
    def n_lanes(self) -> int:
        return self.universe.rows + self.universe.cols

    def draw(self, groups: Sequence[int], walls: int, code: int) -> str:
        """The position of `code` under the lanes' `groups` with the wall cells `walls` (bit
        r * cols + c): rows joined by '/', '.' empty, 'x' a wall."""
        u = self.universe
        cells = [WALL if walls >> i & 1 else "." for i in range(u.rows * u.cols)]
        for lane, g in enumerate(groups):
            group = self.groups[int(g)]
            starts = group.placements[(code >> (DIGIT_BITS * lane)) & MOST_PLACEMENTS]
            for vehicle, start, length in zip(group.vehicles, starts, group.lengths):
                for step in range(length):
                    r, c = (lane, start + step) if lane < u.rows else (start + step, lane - u.rows)
                    cells[r * u.cols + c] = u.vehicles[vehicle].letter
        return "/".join("".join(cells[r * u.cols:(r + 1) * u.cols]) for r in range(u.rows))

    def kernel_args(self) -> tuple[Any, ...]:
        """What `curator.universe.sweep.search_item` takes after an item's ranges."""
        u = self.universe
        fewest = np.array([v.fewest for v in u.vehicles] + [u.walls[0]], np.int64)
        most = np.array([v.most for v in u.vehicles] + [u.walls[1]], np.int64)
        return (np.array(self.order, np.int64), np.concatenate(self.configs), self.kind_shift(), fewest, most,
                self.lanes, *self.column_choices())

    def column_choices(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Which configurations a column may take, given the cells the rows take in it and the
        cells to the left of a horizontal vehicle it must fill (both as bits of the column):
        rows lo[column, taken, needed] to hi[...] of `flat` hold their stacked indices. A column
        depends on the rows alone: no other column reaches its cells."""
        u = self.universe
        lo_all, _ = self.ranges()
        height = u.rows
        lo = np.zeros((u.cols, 1 << height, 1 << height), np.int64)
        hi = np.zeros_like(lo)
        flat: list[int] = []
        for c in range(u.cols):
            depth = self.order.index(u.rows + c)
            configs = self.configs[depth]
            masks = [int(m) >> (c * height) & ((1 << height) - 1) for m in configs[:, 7]]
            needs = [int(m) >> (c * height) & ((1 << height) - 1) for m in configs[:, 8]]
            for taken in range(1 << height):
                for needed in range(1 << height):
                    lo[c, taken, needed] = len(flat)
                    if not needed & taken:
                        flat.extend(int(lo_all[depth]) + i for i, (m, q) in enumerate(zip(masks, needs))
                                    if not m & taken and not q & ~taken and not needed & ~m)
                    hi[c, taken, needed] = len(flat)
        return lo, hi, np.array(flat or [0], np.int64)

    def ranges(self) -> tuple[np.ndarray, np.ndarray]:
        """Per depth of `order`, the rows of the stacked configurations it chooses from."""
        sizes = np.array([len(c) for c in self.configs], np.int64)
        hi = np.cumsum(sizes)
        return hi - sizes, hi

    def kind_shift(self) -> np.ndarray:
        """Per depth, where its lane's kind goes in a connected set's signature (one word:
        `build_space` refuses a universe whose kinds take more)."""
        return np.array(_kind_shifts(self.configs)[0], np.int64)

    def kinds(self, depth: int) -> int:
        """How many kinds the lane at `depth` of `order` takes (its group and walls)."""
        return int(self.configs[depth][:, 6].max(initial=-1)) + 1

    def kind_span(self, depth: int, kind: int) -> tuple[int, int]:
        """The rows of the stacked configurations (see `ranges`) where the lane at `depth` takes
        `kind`: configurations come kind by kind, and a kind past the last spans none."""
        kinds = self.configs[depth][:, 6]
        first = int(self.ranges()[0][depth])
        return (first + int(np.searchsorted(kinds, kind)),
                first + int(np.searchsorted(kinds, kind, side="right")))


CONFIG_FIELDS = ("group", "digit", "mask", "require", "walls", "walls_t", "kind", "mask_t", "require_t")
"""Columns of a configuration row (a _t: the same cells column-major); then one count per
vehicle kind, then the wall count."""


def build_space(universe: Universe) -> Space:
    """The groups and tables of `universe`; PuzzleError naming its file if the search cannot
    code its positions (a lane's group placed in more than `MOST_PLACEMENTS` ways, or the
    lanes' kinds in more than 63 bits)."""
    groups = _groups(universe)
    lanes = _lanes(universe, groups)
    order = (universe.goal_row, *(r for r in range(universe.rows) if r != universe.goal_row),
             *(universe.rows + c for c in range(universe.cols)))
    configs = tuple(_configs(universe, groups, lane) for lane in order)
    bits = _kind_shifts(configs)[1]
    if bits > 63:
        raise PuzzleError(universe.source, "pieces",
                          f"the lines' contents (their vehicles and walls) come in too many kinds for the "
                          f"search: {bits} bits, at most 63; take fewer kinds of vehicles, fewer walls or a "
                          "smaller board")
    return Space(universe, groups, lanes, order, configs)


def _kind_shifts(configs: tuple[np.ndarray, ...]) -> tuple[list[int], int]:
    """Per lane of the enumeration, where its kind goes in a connected set's signature; and
    the bits the signature takes."""
    shifts, at = [], 0
    for lane in configs:
        shifts.append(at)
        at += max(1, int(lane[:, 6].max(initial=0)).bit_length())
    return shifts, at


def _groups(universe: Universe) -> tuple[Group, ...]:
    """The goal row's group, then every row group, then every column group."""
    rows, cols = universe.rows, universe.cols
    goal = Group(0, (universe.goal_index,), (universe.goal_length,), cols)
    found = [goal]
    for axis, width in ((0, cols), (1, rows)):
        kinds = [i for i, v in enumerate(universe.vehicles) if v.axis == axis and i != universe.goal_index]
        room = width - 1 if universe.open_lines else width
        for n in range(width // 2 + 1):
            for seq in product(kinds, repeat=n):
                lengths = tuple(universe.vehicles[i].length for i in seq)
                if sum(lengths) <= room and all(seq.count(i) <= universe.vehicles[i].most for i in set(seq)):
                    found.append(Group(axis, seq, lengths, width))
    for g in found:
        if len(g.placements) > MOST_PLACEMENTS:
            raise PuzzleError(universe.source, "pieces",
                              f"a line of {g.width} cells holds its vehicles in more than {MOST_PLACEMENTS} "
                              "ways, more than the search can code; take fewer or longer vehicles, or a "
                              "smaller board")
    return tuple(found)


def _lanes(universe: Universe, groups: tuple[Group, ...]) -> Lanes:
    rows, cols = universe.rows, universe.cols
    width = max(rows, cols)
    n = len(groups)
    most = max(len(g.lengths) for g in groups) or 1
    local = np.zeros((n, MOST_PLACEMENTS), np.int64)
    piece_mask = np.zeros((n, MOST_PLACEMENTS, most), np.int64)
    piece_kind = np.full((n, most), -1, np.int64)
    without = np.full((n, most), -1, np.int64)
    digit_of = np.full((n, 1 << width), -1, np.int64)
    index = {(g.axis, g.vehicles, g.width): i for i, g in enumerate(groups)}
    lo = np.zeros((n, MOST_PLACEMENTS, 1 << width), np.int64)
    hi = np.zeros_like(lo)
    move_to: list[int] = []
    for i, g in enumerate(groups):
        places = g.placements
        masks = [_lane_mask(p, g.lengths) for p in places]
        for d, (starts, m) in enumerate(zip(places, masks)):
            local[i, d] = m
            digit_of[i, m] = d
            for k, (s, length) in enumerate(zip(starts, g.lengths)):
                piece_mask[i, d, k] = ((1 << length) - 1) << s
        for k, kind in enumerate(g.vehicles):
            piece_kind[i, k] = kind
            rest = g.vehicles[:k] + g.vehicles[k + 1:]
            without[i, k] = index.get((g.axis, rest, g.width), -1)
        digit = {p: d for d, p in enumerate(places)}
        for d, starts in enumerate(places):
            for blockers in range(1 << g.width):
                if blockers & masks[d]:
                    continue
                lo[i, d, blockers] = len(move_to)
                move_to.extend(digit[p] for p in _slides(starts, g.lengths, g.width, blockers))
                hi[i, d, blockers] = len(move_to)
    row_t = np.zeros((rows, 1 << cols), np.int64)
    for r in range(rows):
        for bits in range(1 << cols):
            row_t[r, bits] = sum(1 << (c * rows + r) for c in range(cols) if bits >> c & 1)
    col_m = np.zeros((cols, 1 << rows), np.int64)
    for c in range(cols):
        for bits in range(1 << rows):
            col_m[c, bits] = sum(1 << (r * cols + c) for r in range(rows) if bits >> r & 1)
    goal_places = groups[0].placements
    goal_digit = goal_places.index((cols - universe.goal_length,))
    return Lanes(rows, cols, universe.goal_row, goal_digit, local, row_t, col_m, lo, hi,
                 np.array(move_to or [0], np.int64), np.array([len(g.lengths) for g in groups], np.int64),
                 piece_mask, piece_kind, without, digit_of)


def _slides(starts: tuple[int, ...], lengths: tuple[int, ...], width: int, blockers: int
            ) -> list[tuple[int, ...]]:
    """The placements one slide of one vehicle away: any distance through free cells."""
    taken = blockers | _lane_mask(starts, lengths)
    out = []
    for k, (s, n) in enumerate(zip(starts, lengths)):
        for step in (-1, 1):
            at = s + step
            while 0 <= at and at + n <= width:
                cell = at if step < 0 else at + n - 1
                if taken >> cell & 1:
                    break
                out.append(starts[:k] + (at,) + starts[k + 1:])
                at += step
    return out


def _configs(universe: Universe, groups: tuple[Group, ...], lane: int) -> np.ndarray:
    """The configurations of `lane` in a packed position: group, placement, walls (rows only),
    their cells, the cells that must be covered by others (to the left of or above a vehicle),
    and the lane's kind (its group and walls, which no slide changes), kind by kind."""
    rows, cols = universe.rows, universe.cols
    kinds = len(universe.vehicles)
    axis = 0 if lane < rows else 1
    line = lane if axis == 0 else lane - rows
    width = cols if axis == 0 else rows
    goal_row = axis == 0 and line == universe.goal_row
    room = width - 1 if universe.open_lines else width
    out = []
    kind = 0
    for gi, g in enumerate(groups):
        if g.axis != axis or (gi == 0) != goal_row:
            continue
        for walls in _wall_sets(universe, axis, width):
            if sum(g.lengths) + bin(walls).count("1") > room:
                continue
            wall_cells = _cells(walls, axis, line, rows, cols)
            counts = [0] * (kinds + 1)
            for v in g.vehicles:
                counts[v] += 1
            counts[kinds] = bin(walls).count("1")
            placed = 0
            for d, starts in enumerate(g.placements):
                own = _lane_mask(starts, g.lengths)
                if own & walls or (goal_row and walls >> starts[0]):
                    continue
                taken = own | walls
                require = 0
                for start in starts:
                    if start > 0 and not taken >> (start - 1) & 1:
                        require |= 1 << (start - 1)
                cells = _cells(taken, axis, line, rows, cols)
                needed = _cells(require, axis, line, rows, cols)
                out.append([gi, d, cells, needed, wall_cells, _transposed(wall_cells, rows, cols), kind,
                            _transposed(cells, rows, cols), _transposed(needed, rows, cols), *counts])
                placed += 1
            kind += 1 if placed else 0
    return np.array(out, np.int64).reshape(len(out), len(CONFIG_FIELDS) + kinds + 1)


def _wall_sets(universe: Universe, axis: int, width: int) -> list[int]:
    """The wall cells a lane may hold: walls stand in rows only."""
    if axis == 1:
        return [0]
    sets = []
    for n in range(universe.walls[1] + 1):
        for cells in combinations(range(width), n):
            sets.append(sum(1 << c for c in cells))
    return sets


def _transposed(cells: int, rows: int, cols: int) -> int:
    """Board cells column-major (bit c * rows + r)."""
    return sum(1 << ((i % cols) * rows + i // cols) for i in range(rows * cols) if cells >> i & 1)


def _cells(bits: int, axis: int, line: int, rows: int, cols: int) -> int:
    """Lane bits as board cells (bit r * cols + c)."""
    if axis == 0:
        return bits << (line * cols)
    return sum(1 << (r * cols + line) for r in range(rows) if bits >> r & 1)
