"""The player model every difficulty comes from: the effort, in moves, of a modelled player on
a level's position graph; its parameters (fitted defaults, or a puzzle's own stored beside
its results by `curator calibrate`), the terms that explain a figure, and the fit.

Each kind measures its levels (`Measure`: the moves, what a player tries in the wrong
branches it cannot see through, the choices it reads) for any look-ahead and notice depth;
the effort is then `moves + search * log2(1 + wasted) + reading * choices` (docs/metrics.md).
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

from curator.common.errors import SelectionError, StoreError
from curator.common.files import canonical_json

PLAYER_FILE = "difficulty.json"
"""The file of a results folder that holds its calibrated player (`curator calibrate`)."""
PLAYER_FORMAT = "curator-player/1"
CHECKSUM = "sha256"
"""The side file's own checksum: the sha256 of the canonical JSON of its other fields."""

LOOKAHEADS = (0.0, 1.0, 2.0, 3.0, 4.0)
"""The look-ahead depths a calibration tries."""
NOTICES = (0.0, 1.0, 2.0, 4.0, 8.0)
"""The notice depths a calibration tries."""
MIN_LEVELS = 10
"""Graded levels a calibration needs at least ..."""
MIN_GRADES = 3
"""... in at least this many different grades."""


@dataclass(frozen=True)
class Player:
    """The modelled player. At each position it reads `lookahead` moves ahead: a wrong move
    (into a dead end, or a detour off every shortest solution) that shows as wrong within
    that many moves is never played, and within that many moves of the goal it plays
    perfectly. Any other wrong move it tries as often as a right one, and follows every line
    after it `notice` moves deep before it gives it up (a detour it plays back to the
    solution). Each doubling of the positions it so tries in wrong branches costs it `search`
    moves; each doubling of the legal moves of a position on the way, `reading` moves.
    """

    lookahead: float = 1.0
    notice: float = 4.0
    search: float = 0.656
    reading: float = 0.0
    source: str = field(default="defaults fitted on the shipped Fling! levels", compare=False)
    """Where the parameters come from, in a few words."""

    def effort(self, measure: Measure) -> float:
        """The moves' worth of effort this player spends on a measured level."""
        searched = self.search * math.log2(1 + measure.wasted)
        return float(measure.moves + searched + self.reading * measure.choices)

    def to_json(self) -> dict[str, float]:
        return {name: getattr(self, name) for name in PARAMETERS}

    def text(self) -> str:
        """The parameters in one line."""
        return (f"look-ahead {self.lookahead:g}, notice {self.notice:g}, search {self.search:.3g}, "
                f"reading {self.reading:.3g}")


PARAMETERS = ("lookahead", "notice", "search", "reading")
"""The parameters of `Player`, as files and the API name them."""
DEFAULT = Player()
"""The player of every puzzle that has not been calibrated (fitted by benchmarks/difficulty.py)."""


@dataclass(frozen=True)
class Measure:
    """What a level is made of for the player model, for one look-ahead and notice depth."""

    moves: float
    """Moves of the solution (in the puzzle's metric; a player's expected count where the
    right moves lead to positions of different distances)."""
    wasted: float
    """Positions a player tries in wrong branches before it finds the right moves, expected
    (it tries every wrong move it cannot see through as often as a right one)."""
    choices: float
    """Bits of legal moves read on the way: the sum of log2(legal moves) over the steps."""


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
        if self.moves:
            parts.append(f"{self.choices:.1f} legal moves per step")
        return "; ".join(parts)


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def grid(player: Player | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(look-aheads, notice depths) to measure levels at: every pair of `LOOKAHEADS` and
    `NOTICES`, or the one pair of `player`."""
    if player is not None:
        return np.array([player.lookahead]), np.array([player.notice])
    pairs = [(a, n) for a in LOOKAHEADS for n in NOTICES]
    return np.array([a for a, _ in pairs]), np.array([n for _, n in pairs])


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


def read_player(directory: Path, puzzle_sha256: str | None) -> Player:
    """The player stored in `directory` (`PLAYER_FILE`), or `DEFAULT` when there is none;
    StoreError naming the file if it is damaged, edited or fitted for another puzzle file."""
    path = Path(directory) / PLAYER_FILE
    if not path.exists():
        return DEFAULT
    again = f"run `curator calibrate {directory}` again or delete it"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError) as exc:
        raise StoreError(f"{path}: unreadable ({exc.__class__.__name__}: {exc}); {again}") from None
    if not isinstance(data, dict) or data.get("format") != PLAYER_FORMAT:
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
    if not isinstance(values, dict) or set(values) != set(PARAMETERS) or not all(
            isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v) and v >= 0
            for v in values.values()):
        raise StoreError(f"{path}: damaged player parameters; {again}")
    fitted = data.get("fitted")
    levels = fitted.get("levels", "?") if isinstance(fitted, dict) else "?"
    return Player(**{k: float(v) for k, v in values.items()},
                  source=f"calibrated for this puzzle on {levels} graded levels ({PLAYER_FILE})")


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
    calibration starts. A graded level pack makes one (`curator calibrate --graded`); playtest
    records (times to solve, give-ups) will make one the same way."""

    measures: np.ndarray
    """float[levels, grid points, 3]: moves, wasted, choices (see `Measure`)."""
    grades: np.ndarray
    """float[levels]: higher is harder."""
    groups: np.ndarray
    """int[levels]: levels of one size (piece count, distance): the fit orders levels within
    a group as hard as across groups."""


def check_enough(graded: Graded, what: str) -> None:
    """SelectionError in one line unless `graded` has enough levels and grades to fit."""
    levels, grades = len(graded.grades), len(set(graded.grades.tolist()))
    if levels < MIN_LEVELS or grades < MIN_GRADES:
        raise SelectionError(
            f"{what}: a calibration needs at least {MIN_LEVELS} solvable graded levels in at least "
            f"{MIN_GRADES} different grades; it has {levels} in {grades}")


def fit(graded: Graded, mask: np.ndarray | None = None) -> Player:
    """The player whose efforts order the levels (those of `mask`) most like their grades: for
    each grid point, a pairwise logistic (Bradley-Terry) fit of moves + search * log2(1 +
    wasted) + reading * choices over every pair of levels with different grades (pairs within
    a group weighing as much in all as the pairs across groups), search and reading kept
    non-negative; the grid point with the lowest loss wins."""
    keep = np.ones(len(graded.grades), dtype=bool) if mask is None else mask
    x, grades, groups = _features(graded.measures[keep]), graded.grades[keep], graded.groups[keep]
    harder, easier = np.nonzero(grades[:, None] > grades[None, :])
    same = groups[harder] == groups[easier]
    weight = np.ones(harder.shape[0])
    if same.any() and (~same).any():
        weight[same] = (~same).sum() / same.sum()
    weight /= weight.sum()
    lookaheads, notices = grid()
    best: tuple[float, Player] | None = None
    for g in range(x.shape[1]):
        gaps = x[harder, g] - x[easier, g]
        loss, (_, search, reading) = _logistic(gaps, weight)
        candidate = Player(float(lookaheads[g]), float(notices[g]), round(search, 4), round(reading, 4))
        if best is None or loss < best[0] - 1e-12:
            best = (loss, candidate)
    assert best is not None
    return best[1]


def _logistic(gaps: np.ndarray, weight: np.ndarray) -> tuple[float, tuple[float, float, float]]:
    """The weighted pairwise logistic loss of s = a * (moves + t * log2(1 + wasted) + r *
    choices) at its minimum over a >= 0.001, t >= 0, r >= 0, and (a, t, r): projected Newton
    steps (the loss is convex), bounds held by fixing the weights they stop."""
    low = np.array([1e-3, 0.0, 0.0])

    def loss(w: np.ndarray) -> float:
        return float(np.sum(weight * np.logaddexp(0.0, -(gaps @ w))))

    w = np.array([0.1, 0.1, 0.1])
    current = loss(w)
    for _ in range(100):
        z = np.clip(gaps @ w, -500, 500)
        p = 1.0 / (1.0 + np.exp(z))  # the chance each pair is ordered wrong
        grad = -(weight * p) @ gaps
        hess = (gaps * (weight * p * (1 - p))[:, None]).T @ gaps + 1e-9 * np.eye(3)
        free = ~((w <= low + 1e-12) & (grad > 0))
        step = np.zeros(3)
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
    return current, (float(w[0]), float(w[1] / w[0]), float(w[2] / w[0]))


def efforts(graded: Graded, player: Player) -> np.ndarray:
    """The effort of each graded level for `player` (measured at its grid point, the nearest
    one when it lies between them)."""
    lookaheads, notices = grid()
    g = int(np.argmin(np.abs(lookaheads - player.lookahead) * 100 + np.abs(notices - player.notice)))
    x = _features(graded.measures)[:, g]
    return x[:, 0] + player.search * x[:, 1] + player.reading * x[:, 2]


def _features(measures: np.ndarray) -> np.ndarray:
    """What the effort is linear in: moves, log2(1 + wasted), choices."""
    x = measures.copy()
    x[..., 1] = np.log2(1 + x[..., 1])
    return x


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
