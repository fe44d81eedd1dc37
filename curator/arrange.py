"""Arranging levels into a pack: N levels from a pool of candidates whose difficulty follows a
curve from easy to hard, with variety (no two levels of one class, every piece count of the
pool, no two neighbours opening with the same move). `LayeredResults.pack` draws the pool.

    >>> from curator.arrange import CURVES
    >>> [round(float(f), 2) for f in CURVES["ease-in"].fractions(5)]
    [0.0, 0.06, 0.25, 0.56, 1.0]
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np

from curator.common.errors import SelectionError
from curator.common.keywords import Naming, same_name
from curator.layered.level import Level

STEPS = 5
"""Plateaus of the `steps` curve (fewer when the pack has fewer slots)."""
POOL_SIZE = 5000
"""Candidate levels a pack is chosen from, unless told otherwise."""


@dataclass(frozen=True)
class Curve:
    """Where each slot of a pack sits among the pool's difficulties, from 0 (the easiest
    candidate) to 1 (the hardest): slot i of n gets the pool's `fractions(n)[i]` quantile."""

    name: str
    fractions: Callable[[int], np.ndarray] = field(compare=False, repr=False)
    """One fraction in [0, 1] per slot, for a pack of n levels."""


def _along(size: int) -> np.ndarray:
    """Each slot's place along the pack, from 0 (first) to 1 (last)."""
    return np.linspace(0.0, 1.0, size) if size > 1 else np.zeros(1)


def _smooth(shape: Callable[[np.ndarray], np.ndarray]) -> Callable[[int], np.ndarray]:
    return lambda size: shape(_along(size))


def _steps(size: int) -> np.ndarray:
    """Plateaus of equal length, rising evenly from the easiest to the hardest."""
    steps = min(STEPS, size)
    group = np.arange(size) * steps // size
    return group / max(steps - 1, 1)


CURVES: dict[str, Curve] = {
    "linear": Curve("linear", _smooth(lambda x: x)),
    "ease-in": Curve("ease-in", _smooth(lambda x: x * x)),
    "ease-out": Curve("ease-out", _smooth(lambda x: 1 - (1 - x) ** 2)),
    "steps": Curve("steps", _steps),
}
"""The named curves: linear, slow then fast (ease-in), fast then slow (ease-out), plateaus
(`steps`: five levels of difficulty, or one per slot in packs of fewer than five)."""


def curve_from_levels(name: str, levels: Sequence[Level]) -> Curve:
    """The difficulty profile of an ordered list of levels (e.g. a shipped game's order):
    each level's quantile among them, ties sharing their mean quantile; slots between two
    levels of the profile interpolate."""
    values = np.array([level.difficulty for level in levels], dtype=float)
    values = values[np.isfinite(values)]
    if values.shape[0] < 2:
        raise SelectionError(f"curve {name}: needs at least 2 levels with a difficulty, "
                             f"has {values.shape[0]}")
    order = np.argsort(values, kind="stable")
    ranks = np.empty(values.shape[0])
    ranks[order] = np.arange(values.shape[0], dtype=float)
    for value in np.unique(values):  # ties share their mean rank
        same = values == value
        ranks[same] = ranks[same].mean()
    profile = ranks / (values.shape[0] - 1)
    steps = np.arange(profile.shape[0])
    return Curve(name, lambda size: np.interp(_along(size) * (profile.shape[0] - 1), steps, profile))


@dataclass(frozen=True)
class PackCurve:
    """The difficulty curve a pack was arranged by (`curator pack`): the curve's name (or
    the pack file it followed), how many candidate levels it was drawn from, and per slot the
    target difficulty and the difficulty of the level placed there."""

    name: str
    pool: int
    targets: tuple[float, ...]
    achieved: tuple[float, ...]

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "pool": self.pool,
                "slots": [{"target": t, "difficulty": d} for t, d in zip(self.targets, self.achieved)]}


@dataclass(frozen=True)
class Slot:
    """One place of a pack: the difficulty it aims at and the level put there."""

    target: float
    level: Level

    @property
    def difficulty(self) -> float:
        return self.level.difficulty


@dataclass(frozen=True)
class Pack(Sequence[Level]):
    """Levels in the order a player meets them, with the curve they follow; a sequence of
    its levels, so it exports like any list of levels."""

    curve: str
    pool: int
    """How many candidate levels the pack was chosen from."""
    slots: tuple[Slot, ...]

    @property
    def levels(self) -> list[Level]:
        return [slot.level for slot in self.slots]

    def record(self) -> PackCurve:
        """The curve as the level-pack file records it."""
        return PackCurve(self.curve, self.pool, tuple(s.target for s in self.slots),
                         tuple(s.difficulty for s in self.slots))

    def __len__(self) -> int:
        return len(self.slots)

    def __getitem__(self, index):  # type: ignore[override]
        if isinstance(index, slice):
            return [slot.level for slot in self.slots[index]]
        return self.slots[index].level

    def __iter__(self) -> Iterator[Level]:
        return (slot.level for slot in self.slots)


# -- variety -------------------------------------------------------------------------------

Shape = tuple[int, int, int] | None
"""A move's shape: the moving piece's type and its displacement (rows, columns); None for a
level without moves."""


_NO_SHAPE = ("before the first slot",)
"""Equal to no shape: what the first slot must not repeat."""


def first_move_shape(level: Level) -> Shape:
    """The shape of the first move of the level's solution.

    Two levels open alike when their first moves move the same kind of piece by the same
    vector, wherever on the board.
    """
    if not level.solution:
        return None
    source, target = level.solution[0]
    cells = level.puzzle.board.cells
    return (level.position[source], cells[target][0] - cells[source][0], cells[target][1] - cells[source][1])


def candidates(pool: Sequence[Level]) -> list[Level]:
    """The levels of a pool that can be shipped: rated (finite difficulty) and not already
    at the goal (at least one move)."""
    return [level for level in pool if math.isfinite(level.difficulty) and level.solution]


def arrange(pool: Sequence[Level], size: int, curve: Curve, name: Naming = same_name) -> Pack:
    """`size` levels of `pool` (distinct classes: draw the pool canonically) in the order of
    `curve`, with variety.

    Slot i aims at the pool's difficulty quantile `curve.fractions(size)[i]`.

    1. **choose**: the slots are filled in order, each with the unused candidate nearest to
       its target (ties: lower difficulty, then fewer pieces, layer, rank) whose first move
       differs in shape from the previous one's, and of a piece count that has fewer than
       `cap(size, counts)` levels yet (the cap gives way only when no candidate meets it);
    2. **cover**: while the pack has room for every piece count of the pool and one is
       missing, the exchange of one level for one of that count that costs least is made
       (never taking out the last level of a count);
    3. **order**: the levels go to the slots by rank (the easiest to the slot with the lowest
       target, ...), which puts them nearest to their targets in sum;
    4. **openings**: while two neighbours open with the same move shape, the exchange of two
       slots that parts them at the least cost is made; if no exchange parts them, the
       pack of step 1 stands (its openings alternate by construction).

    Step 1 looks ahead: a level is taken only if the rest of the pool can still fill the
    remaining slots without two equal openings side by side; step 2 keeps that true. So
    SelectionError comes only when the pool cannot make such a pack at all.

    Costs are the sum over slots of |difficulty - target|. Deterministic: the same pool gives
    the same pack. Errors name `size` as `name` spells it.
    """
    usable = sorted(candidates(pool), key=lambda lv: (lv.difficulty, lv.pieces, lv.layer, lv.rank))
    if size > len(usable):
        raise SelectionError(
            f"{name('size')} {size} is larger than the pool of {len(usable)} candidate levels; "
            "widen the filters or the pool"
        )
    arranging = _Arranging(usable, np.quantile([lv.difficulty for lv in usable], curve.fractions(size)))
    arranging.choose()
    chosen = list(arranging.chosen)  # neighbours open differently by construction
    arranging.cover()
    arranging.order()
    if not arranging.part_openings():
        arranging.chosen = chosen
    slots = tuple(Slot(float(t), usable[i]) for t, i in zip(arranging.targets, arranging.chosen))
    return Pack(curve.name, len(pool), slots)


def cap(size: int, counts: int) -> int:
    """Most levels of one piece count in a pack of `size` from a pool of `counts` piece
    counts: twice an even share."""
    return math.ceil(2 * size / counts)


NEAREST = 3
"""Candidates of a missing piece count tried per slot when covering (the nearest to its target)."""


class _Arranging:
    """The slots of a pack being filled: `chosen[i]` indexes the level of slot i in `usable`
    (sorted by difficulty)."""

    def __init__(self, usable: list[Level], targets: np.ndarray) -> None:
        self.usable = usable
        self.targets = targets
        self.ranked_targets = np.sort(targets)
        self.difficulties = np.array([level.difficulty for level in usable])
        self.shapes = [first_move_shape(level) for level in usable]
        self.pieces = np.array([level.pieces for level in usable])
        self.counts = sorted({int(k) for k in self.pieces})
        self.chosen: list[int] = []

    def choose(self) -> None:
        free = np.ones(len(self.usable), dtype=bool)
        left = Counter(self.shapes)
        most = cap(len(self.targets), len(self.counts))
        used: Counter[int] = Counter()
        for slot, target in enumerate(self.targets):
            order = np.argsort(np.abs(self.difficulties - target), kind="stable")
            previous = self.shapes[self.chosen[-1]] if slot else _NO_SHAPE
            remaining = len(self.targets) - slot - 1
            opens = [int(i) for i in order if free[i] and self.shapes[i] != previous]
            within = [i for i in opens if used[int(self.pieces[i])] < most]
            pick = next((i for i in within + opens if self._leaves_room(left, i, remaining)), None)
            if pick is None:
                raise SelectionError(f"the pool cannot fill slot {slot + 1} without two neighbouring levels "
                                     "opening with the same move; widen the filters or the pool")
            free[pick] = False
            left[self.shapes[pick]] -= 1
            used[int(self.pieces[pick])] += 1
            self.chosen.append(pick)

    def _leaves_room(self, left: Counter, level: int, remaining: int) -> bool:
        """Whether the free levels but `level` can fill the `remaining` slots after it."""
        left[self.shapes[level]] -= 1
        room = _can_follow(left, self.shapes[level], remaining)
        left[self.shapes[level]] += 1
        return room

    def cost(self, chosen: Sequence[int]) -> float:
        """The cost of a set of levels placed by rank (see `order`)."""
        return float(np.abs(np.sort(self.difficulties[list(chosen)]) - self.ranked_targets).sum())

    def cover(self) -> None:
        if len(self.targets) < len(self.counts):
            return
        while missing := [k for k in self.counts if k not in set(self.pieces[self.chosen].tolist())]:
            exchange = self._cheapest_exchange(missing[0])
            if exchange is None:
                return
            out, into = exchange
            self.chosen[self.chosen.index(out)] = into

    def _cheapest_exchange(self, pieces: int) -> tuple[int, int] | None:
        """(level out, level of `pieces` pieces in) costing least, if any level may go out
        (leaving a set that can still be ordered with no equal openings side by side)."""
        held = self.pieces[self.chosen].tolist()
        leaving = [i for i in self.chosen if held.count(self.pieces[i]) > 1]
        of_count = np.flatnonzero(self.pieces == pieces)
        nearest: set[int] = set()
        for target in self.targets:
            gaps = np.abs(self.difficulties[of_count] - target)
            nearest.update(int(i) for i in of_count[np.argsort(gaps, kind="stable")[:NEAREST]])
        best = None
        for into in sorted(nearest):
            for out in leaving:
                exchanged = [into if i == out else i for i in self.chosen]
                if not _can_follow(Counter(self.shapes[i] for i in exchanged), _NO_SHAPE, len(exchanged)):
                    continue
                cost = self.cost(exchanged)
                if best is None or cost < best[0]:
                    best = (cost, out, into)
        return None if best is None else (best[1], best[2])

    def order(self) -> None:
        by_difficulty = sorted(self.chosen, key=lambda i: (self.difficulties[i], i))
        slots = np.argsort(self.targets, kind="stable")
        for slot, level in zip(slots, by_difficulty):
            self.chosen[slot] = level

    def clashes(self, chosen: Sequence[int]) -> int:
        """Neighbours opening with the same move shape."""
        return sum(self.shapes[a] == self.shapes[b] for a, b in zip(chosen, chosen[1:]))

    def part_openings(self) -> bool:
        """Whether the neighbours could all be parted (exchanges of two slots, the cheapest
        first)."""
        while clashes := self.clashes(self.chosen):
            best = None
            shapes = [self.shapes[i] for i in self.chosen]
            clashing = {s for t in range(1, len(shapes)) if shapes[t] == shapes[t - 1] for s in (t - 1, t)}
            for a in sorted(clashing):
                for b in range(len(self.chosen)):
                    if b == a:
                        continue
                    swapped = list(self.chosen)
                    swapped[a], swapped[b] = swapped[b], swapped[a]
                    if self.clashes(swapped) < clashes:
                        cost = float(np.abs(self.difficulties[swapped] - self.targets).sum())
                        if best is None or cost < best[0]:
                            best = (cost, swapped)
            if best is None:
                return False
            self.chosen = best[1]
        return True


def _can_follow(shapes: Counter, after: Shape | tuple, slots: int) -> bool:
    """Whether `slots` levels drawn from these counts of opening shapes can follow a level
    opening with `after`, no two neighbours alike: a shape fits at most in every other slot,
    and `after`'s shape not in the first one."""
    room = sum(min(count, slots // 2 if shape == after else (slots + 1) // 2)
               for shape, count in shapes.items())
    return room >= slots


# -- sliding-block packs ------------------------------------------------------------------------


SET_SLACK = 0.05
"""How much farther from its target (a share of the pool's distance range, at least one move)
a level of an unused connected set may be and still be preferred to a level of a used one."""


def arrange_sets(pool: Sequence, size: int, curve: Curve, name: Naming = same_name) -> Pack:
    """`size` levels of sliding-block tables (`SlidingLevel`s) whose distances follow `curve`,
    from as many connected sets as the curve allows.

    Positions of one connected set are one puzzle seen at different points of its solutions,
    so sets are spread: the slots are filled from the hardest target down (long distances have
    the fewest candidates), each with the unused level nearest to its target (the pool's
    distance quantile `curve.fractions(size)[i]`), except that a level of a set not used yet
    wins when it is at most SET_SLACK of the distance range (and at least one move) farther;
    ties go to the smaller distance, then rank. Deterministic.
    """
    usable = sorted((lv for lv in pool if lv.solution), key=lambda lv: (lv.distance, lv.rank))
    if size > len(usable):
        raise SelectionError(f"{name('size')} {size} is larger than the pool of {len(usable)} levels; "
                             "widen the filters")
    distances = np.array([lv.distance for lv in usable], dtype=float)
    sets = np.array([lv.connected_set for lv in usable])
    targets = np.quantile(distances, curve.fractions(size))
    slack = max(1.0, SET_SLACK * (distances[-1] - distances[0]))
    free = np.ones(len(usable), dtype=bool)
    used: set[int] = set()
    chosen = np.empty(size, dtype=np.int64)
    for slot in np.argsort(-targets, kind="stable"):
        gap = np.where(free, np.abs(distances - targets[slot]), np.inf)
        fresh = np.where(np.isin(sets, list(used)), np.inf, gap)
        best = int(np.argmin(gap))  # the first of the nearest: smaller distance, then rank
        if fresh.min() <= gap[best] + slack:
            best = int(np.argmin(fresh))
        free[best] = False
        used.add(int(sets[best]))
        chosen[slot] = best
    chosen.sort()  # by distance, easiest first, to the slots in order of their targets
    order = np.argsort(targets, kind="stable")
    slots: list[Slot | None] = [None] * size
    for slot, index in zip(order, chosen):
        slots[slot] = Slot(float(targets[slot]), usable[index])
    return Pack(curve.name, len(pool), tuple(cast(list[Slot], slots)))  # every slot filled
