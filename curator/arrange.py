"""Arranging levels into a pack: N levels from a pool of candidates whose difficulty follows a
curve from easy to hard, then variety within what the curve allows (every piece count of the
pool, no count taking too large a share, no two neighbours opening with the same move; each
rule can be left out). `LayeredResults.pack` draws the pool, one level per class.

    >>> from curator.arrange import CURVES
    >>> [round(float(f), 2) for f in CURVES["ease-in"].fractions(5)]
    [0.0, 0.06, 0.25, 0.56, 1.0]
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, cast

import numpy as np

from curator.common.errors import EmptyPool, SelectionError
from curator.common.exports import Exports
from curator.common.figures import difficulty_value
from curator.common.keywords import Naming, at_least, same_name

STEPS = 5
"""Plateaus of the `steps` curve (fewer when the pack has fewer slots)."""
POOL_SIZE = 5000
"""Candidate levels a pack is chosen from, unless told otherwise."""
TOLERANCE = 0.05
"""Wherever the curve rises, no level of a pack is easier than the one before it by more than
this share of the pack's difficulty range (its hardest level's difficulty less its easiest's);
wherever it falls, none is harder by more. Variety may reorder levels within it, never beyond."""
VARIETY = ("counts", "share", "openings")
"""The variety rules of a layered pack, all kept unless `arrange` is told otherwise:
`counts`, every piece count of the pool appears (when the pack has room for them all);
`share`, no piece count takes more than twice an even share; `openings`, no two neighbouring
levels open with a move of the same shape."""


class Rated(Protocol):
    """A level as a pack holds it: its rank, what it is rated (its difficulty) and how it is
    solved; layered and sliding-block levels alike."""

    @property
    def rank(self) -> int: ...

    @property
    def difficulty(self) -> float: ...

    @property
    def solution(self) -> Sequence[Any]: ...


class Level(Rated, Protocol):
    """A level of a layered puzzle as `arrange` sees it (the layered pipeline's `Level` is
    one): also where it stands, for the variety rules."""

    @property
    def layer(self) -> str: ...

    @property
    def pieces(self) -> int: ...

    @property
    def position(self) -> tuple[int, ...]: ...

    @property
    def puzzle(self) -> Any: ...

    @property
    def report(self) -> Any: ...


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


def curve_from_levels(name: str, levels: Sequence[Rated]) -> Curve:
    """The difficulty profile of an ordered list of levels (e.g. a shipped game's order):
    each level's quantile among them, ties sharing their mean quantile; slots between two
    levels of the profile interpolate."""
    return curve_from_difficulties(name, [level.difficulty for level in levels])


def curve_from_difficulties(name: str, difficulties: Sequence[float | None]) -> Curve:
    """`curve_from_levels` of levels with these difficulties, in order (None or NaN: a level
    without one, left out)."""
    values = np.array([np.nan if d is None else d for d in difficulties], dtype=float)
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
        """The curve as level packs record it (difficulties to 3 decimals)."""
        return {"name": self.name, "pool": self.pool,
                "slots": [{"target": difficulty_value(t), "difficulty": difficulty_value(d)}
                          for t, d in zip(self.targets, self.achieved)]}


@dataclass(frozen=True)
class Slot:
    """One place of a pack: what it aims at, the level put there and the level's value on the
    curve's scale (its difficulty; for packs of goal and universe tables, its distance)."""

    target: float
    level: Rated
    value: float


@dataclass(frozen=True)
class Pack(Sequence[Rated]):
    """Levels in the order a player meets them, with the curve they follow; a sequence of
    its levels, so it exports like any list of levels."""

    curve: str
    pool: int
    """How many candidate levels the pack was chosen from (those of the pool that can be shipped:
    rated, and not already solved)."""
    slots: tuple[Slot, ...]

    @property
    def levels(self) -> list[Rated]:
        return [slot.level for slot in self.slots]

    @property
    def tolerance(self) -> float:
        """How much easier than the one before a level may be where the curve rises (see
        TOLERANCE)."""
        return tolerance([slot.value for slot in self.slots])

    def record(self) -> PackCurve:
        """The curve as the level-pack file records it."""
        return PackCurve(self.curve, self.pool, tuple(s.target for s in self.slots),
                         tuple(s.value for s in self.slots))

    def placing(self, levels: Sequence[Rated]) -> Pack:
        """The same pack with `levels` in its slots, in order (the same levels with more
        detail, such as their solutions)."""
        if len(levels) != len(self.slots):
            raise ValueError(f"{len(levels)} levels for {len(self.slots)} slots")
        slots = tuple(Slot(s.target, level, s.value) for s, level in zip(self.slots, levels))
        return Pack(self.curve, self.pool, slots)

    def __len__(self) -> int:
        return len(self.slots)

    def __getitem__(self, index):  # type: ignore[override]
        if isinstance(index, slice):
            return [slot.level for slot in self.slots[index]]
        return self.slots[index].level

    def __iter__(self) -> Iterator[Rated]:
        return (slot.level for slot in self.slots)


# -- variety -------------------------------------------------------------------------------

Shape = tuple[int, int, int] | None
"""A move's shape: the moving piece's type and its displacement (rows, columns); None for a
level without moves."""


def first_move_shape(level: Level) -> Shape:
    """The shape of the first move of the level's solution.

    Two levels open alike when their first moves move the same kind of piece by the same
    vector, wherever on the board.
    """
    if not level.solution:
        return None
    source, target = level.report.solution[0]
    cells = level.puzzle.board.cells
    return (level.position[source], cells[target][0] - cells[source][0], cells[target][1] - cells[source][1])


def candidates(pool: Sequence[Level]) -> list[Level]:
    """The levels of a pool that can be shipped: rated (finite difficulty) and not already
    at the goal (at least one move)."""
    return [level for level in pool if math.isfinite(level.difficulty) and level.solution]


def tolerance(difficulties: Sequence[float] | np.ndarray) -> float:
    """TOLERANCE of the range of these difficulties (0 for none)."""
    return TOLERANCE * (max(difficulties) - min(difficulties)) if len(difficulties) else 0.0


def variety_rules(variety: Iterable[str] | str | None, known: Sequence[str] = VARIETY,
                  name: Naming = same_name) -> frozenset[str]:
    """The variety rules named (None: none); SelectionError naming `variety` for another name."""
    if variety is None:
        return frozenset()
    try:
        names = [variety] if isinstance(variety, str) else list(variety)
    except TypeError:
        raise SelectionError(f"{name('variety')} must name rules ({', '.join(known)}), "
                             f"got {variety!r}") from None
    wrong = [rule for rule in names if rule not in known]
    if wrong:
        raise SelectionError(f"{name('variety')}: unknown rule {wrong[0]!r} (rules: {', '.join(known)})")
    return frozenset(names)


def arrange(pool: Sequence[Level], size: int, curve: Curve, name: Naming = same_name,
            variety: Iterable[str] | None = VARIETY) -> Pack:
    """`size` levels of `pool` (distinct classes: draw the pool canonically) in the order of
    `curve`, then with as much variety as the curve leaves room for; `variety` names the
    rules kept (see VARIETY; None or empty for none).

    Slot i aims at the pool's difficulty quantile `curve.fractions(size)[i]`.

    1. **choose**: the slots are filled in order, each with the unused candidate nearest to
       its target (ties: lower difficulty, then fewer pieces, layer, rank); with `share`, of
       a piece count that has fewer than `cap(size, counts)` levels yet (the cap gives way
       only when no candidate meets it);
    2. **cover** (`counts`): while the pack has room for every piece count of the pool and
       one is missing, the exchange of one level for one of that count that costs least is
       made (never taking out the last level of a count);
    3. **order**: the levels go to the slots by rank (the easiest to the slot lowest on the
       curve, ...), which puts them nearest to their targets in sum and follows the curve;
    4. **openings** (`openings`): while two neighbours open with the same move shape, the
       cheapest change that parts more of them is made: an exchange of two slots, or of a
       clashing level for an unused candidate within the pack's difficulty range (keeping
       the other rules). A change is made only if the pack still follows the curve: where
       the curve rises, no level is easier than the one before by more than TOLERANCE of
       the pack's difficulty range (where it falls, none harder). Neighbours that no such
       change parts stay as they are: the curve comes first.

    Costs are the sum over slots of |difficulty - target|. Deterministic: the same pool gives
    the same pack. Errors name `size` as `name` spells it.
    """
    rules = variety_rules(variety, VARIETY, name)
    usable = sorted(candidates(pool), key=lambda lv: (lv.difficulty, lv.pieces, lv.layer, lv.rank))
    _check_room(size, len(usable), name, "candidate levels", "the filters or the pool")
    arranging = _Arranging(usable, curve.fractions(size), rules)
    arranging.choose()
    if "counts" in rules:
        arranging.cover()
    arranging.order()
    if "openings" in rules:
        arranging.part_openings()
    slots = tuple(Slot(float(target), usable[i], usable[i].difficulty)
                  for target, i in zip(arranging.targets, arranging.chosen))
    return Pack(curve.name, len(usable), slots)


def cap(size: int, counts: int) -> int:
    """Most levels of one piece count in a pack of `size` from a pool of `counts` piece
    counts: twice an even share."""
    return math.ceil(2 * size / counts)


NEAREST = 3
"""Candidates of a missing piece count tried per slot when covering (the nearest to its target)."""
SLACK = 1e-9
"""Rounding a comparison of difficulties forgives (they are sums of floats)."""


class _Arranging:
    """The slots of a pack being filled: `chosen[i]` indexes the level of slot i in `usable`
    (sorted by difficulty). Slot i aims at `targets[i]`, the pool's quantile `fractions[i]`;
    `slopes[i - 1]` is the sign of the curve's step from slot i - 1 to slot i (quantiles of
    a pool may tie where the curve still rises); `rules` are the variety rules kept."""

    def __init__(self, usable: list[Level], fractions: np.ndarray, rules: frozenset[str]) -> None:
        self.usable = usable
        self.fractions = fractions
        self.targets = np.quantile([level.difficulty for level in usable], fractions)
        self.slopes = np.sign(np.diff(fractions))
        self.rules = rules
        self.ranked_targets = np.sort(self.targets)
        self.difficulties = np.array([level.difficulty for level in usable])
        self.shapes = [first_move_shape(level) for level in usable]
        kinds = {shape: k for k, shape in enumerate(dict.fromkeys(self.shapes))}
        self.kinds = np.array([kinds[shape] for shape in self.shapes], dtype=np.int64)
        """The opening shape of each level as a number (equal shapes, equal numbers)."""
        self.pieces = np.array([level.pieces for level in usable])
        self.counts = sorted({int(k) for k in self.pieces})
        self.most = cap(len(fractions), len(self.counts)) if "share" in rules else len(fractions)
        self.chosen: list[int] = []

    def choose(self) -> None:
        free = np.ones(len(self.usable), dtype=bool)
        used: Counter[int] = Counter()
        for target in self.targets:
            order = [int(i) for i in np.argsort(np.abs(self.difficulties - target), kind="stable") if free[i]]
            pick = next((i for i in order if used[int(self.pieces[i])] < self.most), order[0])
            free[pick] = False
            used[int(self.pieces[pick])] += 1
            self.chosen.append(pick)

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
        """(level out, level of `pieces` pieces in) costing least, if any level may go out."""
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
                cost = self.cost(exchanged)
                if best is None or cost < best[0]:
                    best = (cost, out, into)
        return None if best is None else (best[1], best[2])

    def order(self) -> None:
        """The levels to the slots by rank: the easiest to the slot lowest on the curve, ..."""
        by_difficulty = sorted(self.chosen, key=lambda i: (self.difficulties[i], i))
        slots = np.argsort(self.fractions, kind="stable")
        for slot, level in zip(slots, by_difficulty):
            self.chosen[slot] = level

    def part_openings(self) -> None:
        """Part neighbours that open alike, by the cheapest changes that part more of them
        and keep the pack on its curve (see `arrange`, step 4). A change touches two slots
        at most: it is judged by them and their neighbours alone."""
        held = self.difficulties[self.chosen]
        low, high = float(held.min()), float(held.max())
        allowed = tolerance(held) + SLACK
        while True:
            padded = _Padded(self, np.array(self.chosen))
            if not padded.clash[1:-1].any():
                return
            clashing = sorted({int(s) for t in np.flatnonzero(padded.clash) for s in (t - 1, t)
                               if 0 <= s < padded.size})
            best: tuple[float, int, int, int] | None = None  # (cost change, slot, slot or -1, level)
            for a in clashing:
                swap = padded.swap(a, allowed)
                if swap is not None and (best is None or swap[0] < best[0]):
                    best = (swap[0], a, swap[1], -1)
            for a in clashing:
                found = self._exchange(padded, a, allowed, low, high)
                if found is not None and (best is None or found[0] < best[0]):
                    best = (found[0], a, -1, found[1])
            if best is None:
                return
            _, a, b, level = best
            if b >= 0:
                self.chosen[a], self.chosen[b] = self.chosen[b], self.chosen[a]
            else:
                self.chosen[a] = level

    def _exchange(self, padded: _Padded, a: int, allowed: float, low: float, high: float,
                  ) -> tuple[float, int] | None:
        """(cost change, level) of the unused candidate nearest to slot a's target that may
        take the place of its level: it opens unlike both neighbours, lies within the pack's
        difficulty range (which so stays as it is: the level of a slot holding the only
        easiest or hardest level stays too), follows the curve there and keeps the piece-count
        rules."""
        d = self.difficulties
        out = self.chosen[a]
        if d[out] in (low, high) and np.count_nonzero(padded.difficulty[1:-1] == d[out]) < 2:
            return None
        ok = (d >= low) & (d <= high)
        ok[self.chosen] = False
        left, right = padded.neighbours(a)
        for level, slope, sign in ((left, padded.slope[a], 1), (right, padded.slope[a + 1], -1)):
            if level is not None:
                ok &= self.kinds != self.kinds[level]
                if slope:
                    ok &= (d - d[level]) * slope * sign >= -allowed
        count = int(self.pieces[out])
        held = padded.held
        if "counts" in self.rules and held[count] == 1:
            ok &= self.pieces == count
        if "share" in self.rules:
            ok &= np.isin(self.pieces, [k for k in self.counts if k == count or held[k] < self.most])
        if not ok.any():
            return None
        found = np.flatnonzero(ok)
        gaps = np.abs(d[found] - self.targets[a])
        level = int(found[np.argmin(gaps)])
        return float(gaps.min() - abs(d[out] - self.targets[a])), level


class _Padded:
    """A pack's slots as arrays with one empty slot at each end, so that every slot has two
    neighbours: kinds of opening (the ends: -1 and -2, like no other), difficulties, the
    curve's slope into each slot (0 at the ends) and the neighbours that open alike."""

    def __init__(self, arranging: _Arranging, chosen: np.ndarray) -> None:
        self.size = chosen.shape[0]
        self.chosen = chosen
        self.kind = np.concatenate([[-1], arranging.kinds[chosen], [-2]])
        self.difficulty = np.concatenate([[0.0], arranging.difficulties[chosen], [0.0]])
        self.slope = np.concatenate([[0.0], arranging.slopes, [0.0]])
        """slope[i]: the curve's step from slot i - 1 to slot i (0 where either is an end)."""
        self.clash = np.concatenate([[0], self.kind[2:-1] == self.kind[1:-2], [0]]).astype(np.int64)
        """clash[i]: 1 where slots i - 1 and i open alike."""
        self.targets = arranging.targets
        self.held = Counter(arranging.pieces[chosen].tolist())
        """Levels per piece count."""

    def neighbours(self, a: int) -> tuple[int | None, int | None]:
        """The levels of the slots beside slot a (None past an end)."""
        return (int(self.chosen[a - 1]) if a > 0 else None,
                int(self.chosen[a + 1]) if a + 1 < self.size else None)

    def swap(self, a: int, allowed: float) -> tuple[float, int] | None:
        """(cost change, b) of the cheapest exchange of slots a and b (the first b of the
        cheapest) that parts more neighbours than it brings together and keeps the curve."""
        kind, diff, slope, t = self.kind, self.difficulty, self.slope, self.targets
        far = np.arange(self.size)
        far = far[np.abs(far - a) > 1]
        found: dict[int, float] = {}
        if far.size:
            p, q = far + 1, a + 1  # places in the padded arrays
            before = self.clash[a] + self.clash[a + 1] + self.clash[far] + self.clash[far + 1]
            pairs = ((kind[q - 1], kind[p]), (kind[p], kind[q + 1]),  # slot a's new neighbours
                     (kind[p - 1], kind[q]), (kind[q], kind[p + 1]))  # and slot b's
            after = sum((x == y).astype(np.int64) for x, y in pairs)
            ok = after < before
            ok &= (diff[p] - diff[q - 1]) * slope[a] >= -allowed
            ok &= (diff[q + 1] - diff[p]) * slope[a + 1] >= -allowed
            ok &= (diff[q] - diff[p - 1]) * slope[far] >= -allowed
            ok &= (diff[p + 1] - diff[q]) * slope[far + 1] >= -allowed
            gain = (np.abs(diff[p] - t[a]) + np.abs(diff[q] - t[far]) - np.abs(diff[q] - t[a])
                    - np.abs(diff[p] - t[far]))
            if ok.any():
                at = int(np.argmin(np.where(ok, gain, np.inf)))
                found[int(far[at])] = float(gain[at])
        for b in (a - 1, a + 1):  # next to a: the pairs overlap, so look at them one by one
            if 0 <= b < self.size:
                lo = min(a, b)
                window = range(lo, lo + 4)  # slots lo - 1 .. lo + 2 at their padded places
                kinds = [kind[i] for i in window]
                diffs = [diff[i] for i in window]
                kinds[1], kinds[2] = kinds[2], kinds[1]
                diffs[1], diffs[2] = diffs[2], diffs[1]
                joins = range(1, 4)  # between window[j - 1] and window[j]: slope[lo + j - 1]
                before = int(self.clash[lo:lo + 3].sum())
                after = sum(int(kinds[j - 1] == kinds[j]) for j in joins)
                follows = all((diffs[j] - diffs[j - 1]) * slope[lo + j - 1] >= -allowed for j in joins)
                if after < before and follows:
                    found[b] = float(abs(diff[b + 1] - t[a]) + abs(diff[a + 1] - t[b])
                                     - abs(diff[a + 1] - t[a]) - abs(diff[b + 1] - t[b]))
        return min(((gain, b) for b, gain in found.items()), default=None)


# -- sliding-block packs ------------------------------------------------------------------------


SET_SLACK = 0.05
"""How much farther from its target (a share of the pool's distance range, at least one move)
a level of an unused connected set may be and still be preferred to a level of a used one."""


SET_VARIETY = ("sets",)
"""The variety rule of a sliding-block pack: `sets`, levels from as many connected sets as
the curve allows."""


def arrange_sets(pool: Sequence, size: int, curve: Curve, name: Naming = same_name,
                 variety: Iterable[str] | None = SET_VARIETY, *, rule: str = "sets",
                 group: Callable[[Any], Hashable] | None = None) -> Pack:
    """`size` levels of sliding-block tables (`SlidingLevel`s) whose distances follow `curve`,
    with `sets` (see SET_VARIETY; None or empty for no variety rule) from as many connected
    sets as the curve allows. Other tables spread their levels over other sets: `group` says
    which set a level belongs to (default: its `connected_set`), and `rule` names the variety
    rule that spreads them (universe tables spread over piece sets, "piece-sets"); the default
    `variety` keeps that rule whatever its name.

    Positions of one connected set are one puzzle seen at different points of its solutions,
    so sets are spread: the slots are filled from the hardest target down (long distances have
    the fewest candidates), each with the unused level nearest to its target (the pool's
    distance quantile `curve.fractions(size)[i]`), except that with `sets` a level of a set not
    used yet wins when it is at most SET_SLACK of the distance range (and at least one move)
    farther; ties go to the smaller distance, then rank. The levels then go to the slots by
    distance, so the pack never falls where its curve rises. Deterministic.
    """
    known = (rule,)
    spread = rule in variety_rules(known if variety is SET_VARIETY else variety, known, name)
    set_of = group or (lambda level: level.connected_set)
    # a distance of 0 or None: solved already, or not solvable
    usable = sorted((lv for lv in pool if lv.distance), key=lambda lv: (lv.distance, lv.rank))
    _check_room(size, len(usable), name, "levels", "the filters")
    distances = np.array([lv.distance for lv in usable], dtype=float)
    numbers: dict[Hashable, int] = {}
    sets = np.array([numbers.setdefault(set_of(lv), len(numbers)) for lv in usable], dtype=np.int64)
    fractions = curve.fractions(size)
    targets = np.quantile(distances, fractions)
    slack = max(1.0, SET_SLACK * (distances[-1] - distances[0]))
    free = np.ones(len(usable), dtype=bool)
    used: set[int] = set()
    chosen = np.empty(size, dtype=np.int64)
    for slot in np.argsort(-targets, kind="stable"):
        gap = np.where(free, np.abs(distances - targets[slot]), np.inf)
        fresh = np.where(np.isin(sets, list(used)), np.inf, gap)
        best = int(np.argmin(gap))  # the first of the nearest: smaller distance, then rank
        if spread and fresh.min() <= gap[best] + slack:
            best = int(np.argmin(fresh))
        free[best] = False
        used.add(int(sets[best]))
        chosen[slot] = best
    chosen.sort()  # by distance, easiest first, to the slots in order along the curve
    order = np.argsort(fractions, kind="stable")
    slots: list[Slot | None] = [None] * size
    for slot, index in zip(order, chosen):
        slots[slot] = Slot(float(targets[slot]), usable[index], float(distances[index]))
    return Pack(curve.name, len(usable), tuple(cast(list[Slot], slots)))  # every slot is filled


def _check_room(size: int, usable: int, name: Naming, noun: str, widen: str) -> None:
    """SelectionError if a pack of `size` levels does not fit in its `usable` candidates;
    EmptyPool if there are none, so that the caller can say where levels are."""
    if size > usable:
        raise (EmptyPool if not usable else SelectionError)(
            f"{name('size')} {size} is larger than the pool of {usable} {noun}; widen {widen}")


def check_pack_sizes(size: int, pool: int, seed: int, name: Naming = same_name) -> None:
    """One line (SelectionError) for a pack's size or pool below 1, a negative seed, or a size
    larger than the pool."""
    at_least(size, 1, name("size"))
    at_least(pool, 1, name("pool"))
    at_least(seed, 0, name("seed"))
    if size > pool:
        raise SelectionError(f"{name('size')} {size} is larger than {name('pool')} {pool}")


def read_curve(curve: str | Path | Curve, what: str = "curve", exports: Exports | None = None) -> Curve:
    """A curve given by name (see CURVES), as a `Curve`, or as a level pack file whose order
    it follows (read by `exports`, the pack reader above the pipelines)."""
    if isinstance(curve, Curve):
        return curve
    if isinstance(curve, str) and curve in CURVES:
        return CURVES[curve]
    if exports is None:
        raise SelectionError(f"{what}: {str(curve)!r} is not a curve ({', '.join(CURVES)}); a level pack "
                             "file as a curve needs results opened with curator.open")
    shape: Curve = exports.read_curve(curve, what)
    return shape
