"""The player model every difficulty comes from: the effort, in moves, of a modelled player on
a level's position graph; its parameters (fitted defaults, or a puzzle's own stored beside
its results by `curator calibrate`), the terms that explain a figure, and the fit.

Each kind measures its levels (`Measure`: the moves, the positions a backtracking player
tries, the legal moves it reads first, the knock-ons it must foresee) for any look-ahead; the
effort is then `(1 - search_share) * moves + search_share * log2(tried) + opening * first +
knock_on * knock_ons` (docs/metrics.md).
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from curator.common.errors import StoreError, TooLittleData
from curator.common.files import PLAYER_FILE, canonical_json

PLAYER_FORMAT = "curator-player/3"
OLDER_NAMES = {"curator-player/1": {"search": "search_share"}, "curator-player/2": {}}
"""Side files of earlier formats, read with their parameters renamed as this maps them ..."""
ADDED_SINCE = {"curator-player/1": {"knock_on": 0.0}, "curator-player/2": {"knock_on": 0.0}}
"""... and the parameters they lack set to the values that rate levels as they did."""
CHECKSUM = "sha256"
"""The side file's own checksum: the sha256 of the canonical JSON of its other fields."""

LOOKAHEADS = (0.0, 1.0, 2.0, 3.0, 4.0)
"""The look-ahead depths a calibration tries."""
FIGURES = 4
"""What a `Measure` holds: moves, tried, first, knock-ons."""
LOOKAHEAD_MARGIN = 0.01
"""How much lower (relatively) the loss of a farther look-ahead must be for a fit to take it."""
ACROSS_SHARE = 0.05
"""The share of a fit's weight on pairs of levels of different sizes (groups): their sizes
order those pairs almost alone, so the fit learns the other figures mostly from levels of one
size, and from the rest only how much the moves weigh."""
MIN_LEVELS = 10
"""Graded levels a calibration needs at least ..."""
MIN_GRADES = 3
"""... in at least this many different grades."""


@dataclass(frozen=True)
class Player:
    """The modelled player. At each position it reads `lookahead` moves ahead: a wrong move
    whose wrongness shows within that many moves is never played, and within that many moves
    of the goal it plays perfectly. Any other wrong move it tries as often as a right one,
    and backtracks from it after trying every position behind it, once each.

    Its effort mixes playing the solution's moves and searching: `search_share` is the share
    of the effort that is search, in bits (log2 of the positions tried, the solution's
    included), the rest the moves; each bit of the legal moves of the first position (reading
    the level before it starts) costs `opening` moves; each knock-on that every solution needs
    (a piece a move sets moving, see `Measure.knock_ons`: a chain the player must foresee)
    costs `knock_on` moves. The defaults are fitted on the shipped Fling! levels
    (benchmarks/difficulty.py).
    """

    lookahead: float = 0.0
    search_share: float = 0.5348
    opening: float = 0.0114
    knock_on: float = 0.7764
    source: str = field(default="defaults fitted on the shipped Fling! levels", compare=False)
    """Where the parameters come from, in a few words."""
    calibrated: bool = field(default=False, compare=False)
    """Whether `curator calibrate` fitted it for the puzzle (else it is a kind's defaults)."""

    def effort(self, measure: Measure) -> float:
        """The moves' worth of effort this player spends on a measured level (0 for a solved one)."""
        if measure.moves <= 0:
            return 0.0
        bits = math.log2(max(measure.tried, 1.0))
        return float((1 - self.search_share) * measure.moves + self.search_share * bits
                     + self.opening * measure.first + self.knock_on * measure.knock_ons)

    def to_json(self) -> dict[str, float]:
        return {name: getattr(self, name) for name in PARAMETERS}

    def text(self) -> str:
        """The parameters in one line."""
        return (f"look-ahead {self.lookahead:g}, search share {self.search_share:.3g}, "
                f"opening {self.opening:.3g}, knock-on {self.knock_on:.3g}")


PARAMETERS = ("lookahead", "search_share", "opening", "knock_on")
"""The parameters of `Player`, as files and the API name them."""
DEFAULT = Player()
"""The player of every layered puzzle that has not been calibrated (see benchmarks/difficulty.py)."""
WALKED_DEFAULT = Player(0.0, 0.0, 0.0, 0.0, source="defaults fitted on the 40 original Rush Hour cards")
"""The player of every distance, sliding-block, Sokoban and permutation puzzle that has not been
calibrated (measured along the stored solution): fitted on the cards of
benchmarks/graded/rush-hour-cards.txt, where no measure orders them better than the moves alone."""


@dataclass(frozen=True)
class Measure:
    """What a level is made of for the player model, for one look-ahead."""

    moves: float
    """Moves of the solution (in the puzzle's metric)."""
    tried: float
    """Positions a backtracking player tries, expected: the solution's moves, and at each step
    each wrong move it cannot see through times the positions behind it, over the right moves
    there plus one (the chance it tries the wrong move before a right one)."""
    first: float
    """Bits of legal moves of the first position: log2(legal moves)."""
    knock_ons: float = 0.0
    """Knock-ons every solution makes, at the fewest: a knock-on is a piece a move sets moving
    besides the piece moved and the piece it removes (a Fling! ball pushing a ball that pushes
    the one that falls off). Moves of sliding-block, Sokoban and permutation puzzles make none."""


@dataclass(frozen=True)
class Terms:
    """The counts a level's difficulty is explained by (`text` writes them)."""

    moves: int
    dead_ends: int = 0
    """Wrong moves along the solution that lead into a dead end the player cannot see."""
    hidden: int = 0
    """The most moves such a dead end lets a player make before it gets stuck."""
    detours: int = 0
    """Moves along the solution that lead off every shortest solution without it showing."""
    long_detours: int = 0
    """Of those, the ones that cost two moves or more to come back from."""
    forced: int = 0
    """Steps with one legal move (or all leading to one position)."""
    knock_ons: int = 0
    """Knock-ons every solution makes, at the fewest (see `Measure.knock_ons`)."""
    choices: float = 0.0
    """Legal moves per step along the solution, on average."""

    def text(self) -> str:
        """The terms in one line: "12 moves; 3 tempting dead ends (hidden up to 4 moves); ..."."""
        parts = [_count(self.moves, "move")]
        if self.dead_ends:
            hidden = f" (hidden up to {_count(self.hidden, 'move')})" if self.hidden else ""
            parts.append(f"{_count(self.dead_ends, 'tempting dead end')}{hidden}")
        if self.detours:
            long = f", {self.long_detours} long" if self.long_detours else ""
            parts.append(f"{_count(self.detours, 'tempting detour')}{long}")
        if self.forced:
            parts.append(_count(self.forced, "forced step"))
        if self.knock_ons:
            parts.append(_count(self.knock_ons, "forced knock-on"))
        if self.moves:
            parts.append(f"{self.choices:.1f} legal moves per step")
        return "; ".join(parts)


def walked_terms(counts: Sequence[int] | np.ndarray) -> Terms:
    """The terms of a level from the counts a compiled walk along its solution gives (goal
    and distance tables): steps, tempting detours, long ones, tempting dead ends, forced
    steps, legal moves in all."""
    steps, detours, long, dead, forced, legal = (int(v) for v in counts)
    return Terms(steps, dead_ends=dead, detours=detours, long_detours=long, forced=forced,
                 choices=legal / max(steps, 1))


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def grid(player: Player | None = None) -> np.ndarray:
    """The look-aheads to measure levels at: every one of `LOOKAHEADS`, or the one of `player`."""
    return np.array([player.lookahead] if player is not None else LOOKAHEADS, dtype=np.float64)


def seen(show: np.ndarray | float, lookahead: np.ndarray | float) -> np.ndarray:
    """The share of a wrong move a player sees through: 1 when its wrongness shows within the
    look-ahead (`show` moves after it), 0 when it shows a move or more beyond, linear between."""
    return np.clip(np.asarray(lookahead, dtype=np.float64) - show, 0.0, 1.0)


# -- the player stored with results ------------------------------------------------------------


def _canonical(data: Any) -> bytes:
    return canonical_json(data)


def player_text(player: Player, puzzle_sha256: str | None, fitted: dict[str, Any]) -> str:
    """The text of a side file holding `player`, fitted for the puzzle file with that digest
    (`fitted`: what it was fitted on, and the Spearman before and after), with its checksum."""
    data = {"format": PLAYER_FORMAT, "puzzle_sha256": puzzle_sha256, "player": player.to_json(),
            "fitted": fitted}
    data = json.loads(json.dumps(data))
    return json.dumps({**data, CHECKSUM: hashlib.sha256(_canonical(data)).hexdigest()}, indent=1) + "\n"


def read_player(directory: Path, puzzle_sha256: str | None, default: Player = DEFAULT) -> Player:
    """The player stored in `directory` (`PLAYER_FILE`), or `default` when there is none;
    StoreError naming the file if it is damaged, edited or fitted for another puzzle file."""
    path = Path(directory) / PLAYER_FILE
    if not path.exists():
        return default
    again = f"run `curator calibrate {directory} --graded PACK.json` (or `--playtests DB`) again or delete it"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError) as exc:
        raise StoreError(f"{path}: unreadable ({exc.__class__.__name__}: {exc}); {again}") from None
    if not isinstance(data, dict) or data.get("format") not in (PLAYER_FORMAT, *OLDER_NAMES):
        raise StoreError(f"{path}: not a calibrated player ({PLAYER_FORMAT}); {again}")
    stated = data.pop(CHECKSUM, None)
    try:
        actual = hashlib.sha256(_canonical(data)).hexdigest()
    except ValueError:
        actual = None
    if stated != actual:
        raise StoreError(f"{path}: checksum does not match its contents (edited or damaged); {again}")
    if data.get("puzzle_sha256") != puzzle_sha256:
        raise StoreError(f"{path}: calibrated for another puzzle file; {again}")
    values = data.get("player")
    if isinstance(values, dict):
        renamed = OLDER_NAMES.get(data["format"], {})
        values = {**ADDED_SINCE.get(data["format"], {}),
                  **{renamed.get(name, name): value for name, value in values.items()}}
    if not isinstance(values, dict) or set(values) != set(PARAMETERS) or not all(
            isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v) and v >= 0
            for v in values.values()):
        raise StoreError(f"{path}: damaged player parameters; {again}")
    found = data.get("fitted")
    fitted: dict[str, Any] = found if isinstance(found, dict) else {}
    on = f"{fitted.get('levels', '?')} {'playtested' if 'playtests' in fitted else 'graded'} levels"
    return Player(**{k: float(v) for k, v in values.items()},
                  source=f"calibrated for this puzzle on {on} ({PLAYER_FILE})", calibrated=True)


# -- fitting ------------------------------------------------------------------------------------


def spearman(x: Sequence[float] | np.ndarray, y: Sequence[float] | np.ndarray) -> float:
    """Spearman rank correlation (ties get their average rank); 0 where either is constant."""
    rx, ry = average_ranks(x), average_ranks(y)
    if rx.std() == 0 or ry.std() == 0:
        return 0.0
    return float(np.corrcoef(rx, ry)[0, 1])


def average_ranks(values: Sequence[float] | np.ndarray) -> np.ndarray:
    """0-based ranks of `values`, ties sharing their average rank."""
    values = np.asarray(values, dtype=np.float64)
    order = np.argsort(values, kind="stable")
    ranks = np.empty(values.shape[0], dtype=np.float64)
    ranks[order] = np.arange(values.shape[0])
    _, group = np.unique(values, return_inverse=True)
    return (np.bincount(group, weights=ranks) / np.bincount(group))[group]


@dataclass(frozen=True)
class Graded:
    """Levels measured at every point of `grid()` with the grades players gave them: where a
    calibration starts. A graded level pack makes one (`curator calibrate --graded`), and so
    do playtest records (`curator calibrate --playtests`: times to solve, give-ups)."""

    measures: np.ndarray
    """float[levels, grid points, FIGURES]: moves, tried, first, knock-ons (see `Measure`)."""
    grades: np.ndarray
    """float[levels]: higher is harder."""
    groups: np.ndarray
    """int[levels]: levels of one size (piece count, distance): the fit orders levels within
    a group as hard as across groups."""


def check_enough(graded: Graded, what: str, noun: str = "graded") -> None:
    """TooLittleData in one line unless `graded` has enough levels and grades to fit (`noun`:
    how the levels were graded, "graded" or "playtested")."""
    levels, grades = len(graded.grades), len(set(graded.grades.tolist()))
    if levels < MIN_LEVELS or grades < MIN_GRADES:
        raise TooLittleData(
            f"{what}: a calibration needs at least {MIN_LEVELS} solvable {noun} levels in at least "
            f"{MIN_GRADES} different grades; it has {levels} in {grades}")


def fit(graded: Graded, mask: np.ndarray | None = None) -> Player:
    """The player whose efforts order the levels (those of `mask`) most like their grades: for
    each look-ahead of the grid, a pairwise logistic (Bradley-Terry) fit of p * moves + q *
    log2(tried) + o * first + k * knock-ons, all four weights non-negative (0 for a figure no
    level has: none of them can tell it), over every pair of
    levels with different grades (the pairs across groups weighing `ACROSS_SHARE` of the
    whole); the look-ahead with the lowest loss wins, and its weights over p + q are
    the player's (search_share = q / (p + q), so that a player's efforts keep the scale of moves).
    The look-ahead is a coarse choice that the grades seldom settle: the fit takes the least
    one whose loss is within `LOOKAHEAD_MARGIN` of the lowest."""
    keep = np.ones(len(graded.grades), dtype=bool) if mask is None else mask
    x, grades, groups = _features(graded.measures[keep]), graded.grades[keep], graded.groups[keep]
    harder, easier, weight = pairs(grades, groups)
    fits = [_logistic(x[harder, g] - x[easier, g], weight) for g in range(x.shape[1])]
    least = min(loss for loss, _ in fits)
    g = next(g for g, (loss, _) in enumerate(fits) if loss <= least * (1 + LOOKAHEAD_MARGIN))
    w = fits[g][1]
    scale = max(w[0] + w[1], 1e-9)
    share, opening, knock_on = (round(float(w[k] / scale), 4) for k in (1, 2, 3))
    return Player(float(grid()[g]), share, opening, knock_on)


def pairs(grades: np.ndarray, groups: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The pairs of levels a fit orders: indices of the harder and the easier level of every
    pair with different grades, and each pair's weight (they add up to 1; the pairs across
    groups weigh `ACROSS_SHARE` of it when there are pairs within groups too, alike within each
    kind).

    >>> harder, easier, weight = pairs(np.array([1.0, 2.0, 3.0]), np.array([0, 0, 1]))
    >>> [(int(h), int(e), round(float(w), 3)) for h, e, w in zip(harder, easier, weight)]
    [(1, 0, 0.95), (2, 0, 0.025), (2, 1, 0.025)]
    """
    harder, easier = np.nonzero(grades[:, None] > grades[None, :])
    same = groups[harder] == groups[easier]
    weight = np.full(harder.shape[0], 1.0 / max(harder.shape[0], 1))
    if same.any() and (~same).any():
        weight = np.where(same, (1 - ACROSS_SHARE) / same.sum(), ACROSS_SHARE / (~same).sum())
    return harder, easier, weight


def _logistic(gaps: np.ndarray, weight: np.ndarray) -> tuple[float, np.ndarray]:
    """The weighted pairwise logistic loss of s = gaps @ w at its minimum over w >= 0, and that
    w: projected Newton steps (the loss is convex), a bound held by fixing the weight it stops."""
    low = np.zeros(gaps.shape[1])

    def loss(w: np.ndarray) -> float:
        return float(np.sum(weight * np.logaddexp(0.0, -(gaps @ w))))

    w = np.where((gaps != 0).any(axis=0), 0.1, 0.0)  # a figure no pair tells apart keeps 0
    current = loss(w)
    for _ in range(100):
        z = np.clip(gaps @ w, -500, 500)
        p = 1.0 / (1.0 + np.exp(z))  # the chance each pair is ordered wrong
        grad = -(weight * p) @ gaps
        hess = (gaps * (weight * p * (1 - p))[:, None]).T @ gaps + 1e-9 * np.eye(len(w))
        free = ~((w <= low + 1e-12) & (grad > 0))
        step = np.zeros(len(w))
        step[free] = -np.linalg.solve(hess[np.ix_(free, free)], grad[free])
        size = 1.0
        while size > 1e-8:
            trial = np.maximum(w + size * step, low)
            value = loss(trial)
            if value <= current:
                break
            size /= 2
        if size <= 1e-8 or current - value < 1e-12:
            w, current = (trial, value) if size > 1e-8 else (w, current)
            break
        w, current = trial, value
    return current, w


def efforts(graded: Graded, player: Player) -> np.ndarray:
    """The effort of each graded level for `player` (measured at the look-ahead of the grid
    nearest its own)."""
    g = int(np.argmin(np.abs(grid() - player.lookahead)))
    return np.array([player.effort(Measure(*row)) for row in graded.measures[:, g]])


def _features(measures: np.ndarray) -> np.ndarray:
    """What the effort is linear in: moves, log2(tried), first, knock-ons."""
    bits = np.log2(np.maximum(measures[..., 1], 1.0))
    return np.stack([measures[..., 0], bits, measures[..., 2], measures[..., 3]], axis=-1)


def folds(grades: np.ndarray, most: int = 10) -> list[np.ndarray]:
    """Held-out masks of a cross-validation: one per grade (leave one grade out) when there are
    at most `most` grades... else `most` folds of whole grades, in order of grade."""
    values = sorted(set(grades.tolist()))
    if len(values) <= most:
        return [grades == v for v in values]
    parts = np.array_split(np.array(values), most)
    return [np.isin(grades, part) for part in parts]


def cross_validated(graded: Graded, most: int = 10) -> np.ndarray:
    """Each level's effort under the player fitted without its fold (see `folds`)."""
    held = np.empty(len(graded.grades))
    for out in folds(graded.grades, most):
        held[out] = efforts(graded, fit(graded, ~out))[out]
    return held
