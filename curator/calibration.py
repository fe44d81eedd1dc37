"""Calibrating the player model on a designer's own data: fit its parameters to levels players
have graded, say how well the model orders them before and after (cross-validated), and
store the parameters with the results, where every later rating of that folder finds them
(unless the fit orders the levels worse than the player in use: then that player stays).

A graded level pack is one source of grades (`calibrate`), the workspace's playtests another
(`calibrate_playtests`: times to solve, give-ups); both make a
`curator.common.difficulty.Graded` and call `calibrate_graded`.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from curator import catalogue
from curator.common.difficulty import (
    Graded,
    Player,
    average_ranks,
    check_enough,
    cross_validated,
    efforts,
    fit,
    player_text,
    read_player,
    spearman,
)
from curator.common.errors import SelectionError, StoreError
from curator.common.files import PLAYER_FILE, atomic_write, exclusive
from curator.common.keywords import Naming, same_name
from curator.export.pack import read_graded
from curator.kind import Kind, Results
from curator.workspace_db import Play, PuzzleKey, WorkspaceDB


@dataclass(frozen=True)
class Calibration:
    """What a calibration found and stored."""

    player: Player
    """The player the results use now: the fitted one if `stored`, else the one before."""
    previous: Player
    """The player the results used before."""
    before: float
    """Spearman of the previous player's difficulties with the grades (it was not fitted on
    them, so this is out of sample)."""
    after: float
    """Cross-validated Spearman of the fitted player with the grades: each fold of grades
    rated by a player fitted on the others."""
    levels: int
    """Graded levels the fit used."""
    grades: int
    """Different grades among them."""
    left_out: int
    """Graded levels left out: already solved, not solvable, or too large to follow."""
    path: Path
    """The file the player is stored in."""
    noun: str = "graded"
    """How the levels were graded: "graded" (a pack) or "playtested"."""
    kept: str | None = None
    """Why the fit was not stored, the results keeping the player in use; None if it was. It
    is not when it orders the levels worse, cross-validated, than that player does (`after` <
    `before`), or when, fitted on all of them, it orders them no better."""

    @property
    def stored(self) -> bool:
        return self.kept is None


def calibrate(directory: str | Path, graded: str | Path, name: Naming = same_name) -> Calibration:
    """Fit the player model of the results in `directory` to a graded level pack (as `curator
    pack --format json` writes them, of this puzzle): its levels' `grade`, or else their order,
    says how hard players found them. SelectionError in one line if the pack is not one;
    TooLittleData if it holds too few graded levels."""
    results = catalogue.open(directory, name)
    kind = _calibrated_kind(results, directory)
    what = f"{name('graded')} {graded}"
    digest, items, grades = read_graded(graded, name('graded'))
    if digest is not None and digest != results.puzzle.sha256:
        raise SelectionError(f"{what}: its levels are of another puzzle file than the results in {directory}")
    try:
        found, ok, groups = kind.measures(results, items)
    except SelectionError as exc:  # a level that is not a position of these tables
        raise SelectionError(f"{what}: {exc}") from None
    data = Graded(np.asarray(found)[ok], np.asarray(grades, dtype=np.float64)[ok], np.asarray(groups)[ok])
    check_enough(data, what)
    return calibrate_graded(results, data, {"graded": Path(graded).name, "left_out": int((~ok).sum())})


def _calibrated_kind(results: Any, directory: str | Path) -> Kind:
    """The kind of `results`, SelectionError if its player model is not calibrated."""
    kind = catalogue.kind_for(results)
    if not kind.calibrates:
        raise SelectionError(f"{directory}: {kind.held} are rated by their distance alone, with no player "
                             "model to calibrate")
    return kind


def calibrate_playtests(directory: str | Path, db: str | Path, name: Naming = same_name) -> Calibration:
    """Fit the player model of the results in `directory` to the playtests the workspace's
    database `db` holds of this puzzle's levels (`playtest_grades` says how they grade them).
    SelectionError if there is no such file, StoreError naming the option if the database
    cannot be read; TooLittleData in one line with too few playtested levels."""
    results = catalogue.open(directory, name)
    kind = _calibrated_kind(results, directory)
    what = f"{name('playtests')} {db}"
    if not Path(db).is_file():
        raise SelectionError(f"{what}: no workspace database here (the workspace, `curator serve`, makes "
                             "one)")
    try:
        with WorkspaceDB(db, read_only=True) as kept:
            plays = [play for _, play in kept.plays(PuzzleKey(results.puzzle.name, results.puzzle.sha256))]
    except StoreError as exc:  # a failure, as the workspace's other readers say it
        raise StoreError(f"{name('playtests')} {exc}") from None
    levels, grades = playtest_grades(plays)
    try:
        positions = [kind.playtested(results, level) for level in levels]
    except SelectionError as exc:  # written by something other than the workspace
        raise StoreError(f"{what}: a play's {exc} (damaged workspace database)") from None
    found, ok, groups = kind.measures(results, positions)
    data = Graded(np.asarray(found)[ok], grades[ok], np.asarray(groups, dtype=np.int64)[ok])
    check_enough(data, what, "playtested")
    return calibrate_graded(results, data, {"playtests": Path(db).name, "left_out": int((~ok).sum())},
                            "playtested")


def playtest_grades(plays: Sequence[Play]) -> tuple[list[str], np.ndarray]:
    """The levels played (their keys, in order) and how hard their players found each, as a
    rank (1 the easiest; ties share their mean): by the median time of its plays, a give-up
    counting as a play that never ends (so a level half its players or more gave up on is
    harder than any most of them solved), then by its share of give-ups."""
    times: dict[str, list[float]] = {}
    for play in plays:
        times.setdefault(play.level, []).append(play.seconds if play.solved else math.inf)
    levels = sorted(times)
    keys = [(statistics.median(times[level]), sum(map(math.isinf, times[level])) / len(times[level]))
            for level in levels]
    order = {key: rank for rank, key in enumerate(sorted(set(keys)))}
    return levels, average_ranks(np.array([order[key] for key in keys], dtype=np.float64)) + 1


def judged(graded: Graded, player: Player) -> tuple[float, float, bool]:
    """How well `player` orders graded levels (Spearman with the grades, before) and a player
    fitted on them does, cross-validated (after); and whether a calibration keeps `player`:
    it does when the fit orders them worse."""
    before = spearman(efforts(graded, player), graded.grades)
    after = spearman(cross_validated(graded), graded.grades)
    return before, after, after < before


def calibrate_graded(results: Results, graded: Graded, facts: dict[str, Any], noun: str = "graded"
                     ) -> Calibration:
    """Fit and cross-validate the player of `results` from graded measures, and store it unless
    it orders them worse than the player in use; `facts` (what the grades come from) go into
    the stored file."""
    check_enough(graded, str(facts.get("graded", facts.get("playtests", "the grades"))), noun)
    previous = results.player
    before, after, keep = judged(graded, previous)
    path = results.directory / PLAYER_FILE
    counted = (len(graded.grades), len(set(graded.grades.tolist())), int(facts.get("left_out", 0)))
    if keep:
        return Calibration(previous, previous, before, after, *counted, path, noun,
                           kept="the fit orders these levels worse, cross-validated, than it does")
    player = fit(graded)
    if spearman(efforts(graded, player), graded.grades) <= before:
        return Calibration(previous, previous, before, after, *counted, path, noun,
                           kept="fitted on all of these levels, the player orders them no better than it "
                                "does")
    fitted = {**facts, "levels": counted[0], "grades": counted[1],
              "spearman_before": round(before, 4), "spearman_after": round(after, 4)}
    with exclusive(results.directory):
        atomic_write(path, player_text(player, results.puzzle.sha256, fitted).encode())
    player = read_player(results.directory, results.puzzle.sha256)  # as every later command reads it
    return Calibration(player, previous, before, after, *counted, path, noun)
