"""`DistanceResults`: the distance table of a permutation puzzle, as the Python API shows it.

The same shape as `curator.layered.results.LayeredResults`: `puzzle`, `layers` (here one
entry per distance), `count`, `select`, `solve`, `show`, `verify` and `export`; positions
come back as `DistanceLevel`s, each with its distance and an optimal solution.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np

from curator.common.errors import SelectionError, StoreError
from curator.common.figures import difficulty_value
from curator.common.files import DEFAULT_SAMPLE, Verification
from curator.common.keywords import at_least, check_cap, span
from curator.common.tables import DistanceResultsBase
from curator.common.variants import LIMIT as VARIANT_LIMIT
from curator.common.variants import Edit, Variant, Variants, check_limit, check_want
from curator.distance.puzzle import PermutationPuzzle, State, state_text
from curator.distance.select import grid_measures, select_positions, solved_positions
from curator.distance.store import DistanceStore
from curator.distance.tables import Kernel, build_kernel
from curator.distance.variants import edits
from curator.distance.verify import verify_table

KEYWORDS = ("distance", "sample", "seed", "limit")
"""The keywords `count` (distance only) and `select` take."""


@dataclass(frozen=True)
class DistanceLevel:
    """One position of a permutation puzzle with its distance and one optimal solution."""

    rank: int
    distance: int | None
    """Moves to the solved state; None for a position the sweep did not reach."""
    state: State
    solution: list[str]
    """Move names, in order, that solve it in `distance` moves."""
    puzzle: PermutationPuzzle = field(repr=False, compare=False)
    effort: float | None = None
    """The effort, in moves, of the modelled player (`curator.common.difficulty`) that solves it;
    None for a position not reached."""
    difficulty_terms: str = ""
    """What its difficulty is made of, in one line."""

    @property
    def difficulty(self) -> float:
        """The player model's effort, on the scale of every kind's levels (NaN if not reached)."""
        return math.nan if self.effort is None else float(self.effort)

    @property
    def position(self) -> State:
        return self.state

    @property
    def solvable(self) -> bool:
        return self.distance is not None

    @property
    def board(self) -> list[str]:
        """The state in one line per piece set: "SET p0 p1 ... / o0 o1 ..."."""
        return state_text(self.puzzle.describe(self.state)).split("; ")

    def to_json(self) -> dict[str, Any]:
        """The position as `select --distance --json` prints it and the exports take it."""
        return {"rank": self.rank, "distance": self.distance,
                "difficulty": None if self.effort is None else difficulty_value(self.effort),
                "difficulty_terms": self.difficulty_terms, "state": self.puzzle.describe(self.state),
                "solution": list(self.solution)}

    def _repr_svg_(self) -> str:
        from curator.picture import state_picture, svg_text

        distance = "not reached" if self.distance is None else self.distance
        return svg_text(state_picture(self.puzzle, self.state, f"#{self.rank}, distance {distance}"))


class DistanceResults(DistanceResultsBase):
    """The stored distance table of one permutation puzzle, opened with `curator.open`."""

    kind = "distance"
    store_class = DistanceStore
    store: DistanceStore
    puzzle: PermutationPuzzle

    @cached_property
    def table(self) -> np.ndarray:
        """The finished table, checked against its checksum before it is used."""
        if not self.store.complete:
            raise StoreError(
                f"{self.directory}: the distance table is not finished; run `curator analyze` again"
            )
        return self.store.load()

    # -- selecting ---------------------------------------------------------------------------

    def count(self, distance: int | tuple[int, int] | None = None, **others: Any) -> int:
        """How many positions lie at these distances (all reached positions by default)."""
        self._refuse(others)
        if distance is None:
            return sum(self.store.counts)
        lo, hi = span(distance, self._name("distance"))
        return sum(self.store.counts[lo : hi + 1])

    def select(self, distance: int | tuple[int, int] | None = None, sample: int | None = None,
               seed: int | None = None, limit: int | None = None, cap: int | None = None,
               **others: Any) -> list[DistanceLevel]:
        """Positions at these distances, ordered by distance then rank, each with an optimal
        solution; `sample` draws that many at random (`seed`), `limit` keeps the first. With
        `cap`, more than that many positions to return is a SelectionError, raised before any
        solution is walked."""
        self._refuse(others)
        if distance is None:
            raise SelectionError(
                f"{self.directory} holds a distance table: give {self._name('distance')} A..B (or A)"
            )
        if seed is not None and sample is None:
            raise SelectionError(f"{self._name('seed')} only applies with {self._name('sample')}")
        sample = at_least(sample, 1, self._name("sample"))
        limit = at_least(limit, 1, self._name("limit"))
        seed = at_least(seed, 0, self._name("seed"))
        lo, hi = span(distance, self._name("distance"))
        check_cap(self.count((lo, hi)), sample, limit, cap, self._name, "positions")
        items = select_positions(self.store, self.table, lo, hi, sample, seed or 0, limit, self.kernel,
                                 self.player)
        return [self._position(item) for item in items]

    def _refuse(self, others: dict[str, Any]) -> None:
        """Keywords of layered results are errors here."""
        if others:
            raise SelectionError(
                f"{', '.join(self._name(k) for k in others)} {'does' if len(others) == 1 else 'do'} not "
                f"apply to the distance table in {self.directory}; pick positions with "
                f"{self._name('distance')} A..B (and {self._name('sample')}, {self._name('seed')}, "
                f"{self._name('limit')})"
            )

    @cached_property
    def kernel(self) -> Kernel:
        """The puzzle's move tables, built once for every question."""
        return build_kernel(self.puzzle)

    def _position(self, item: dict[str, Any]) -> DistanceLevel:
        return DistanceLevel(item["rank"], item["distance"], self.puzzle.unrank(item["rank"]),
                             item["solution"], self.puzzle, item["difficulty"], item["difficulty_terms"])

    def measures(self, ranks: np.ndarray) -> np.ndarray:
        """The player model's measures of these positions at every point of the calibration
        grid (`curator.common.difficulty.grid`): float[ranks, points, FIGURES]."""
        return grid_measures(self.store, self.table, ranks, self.kernel, self.player.lookahead)

    # -- single positions --------------------------------------------------------------------

    def solve(self, state: str | State) -> DistanceLevel:
        """The distance and an optimal solution of a state: (permutation, orientation) per
        piece set, as `PermutationPuzzle.unrank` gives them, or its text as
        `PermutationPuzzle.parse` reads it ('tiles 0 1 2 3 4 5 6 8 7'), as the other kinds'
        `solve` takes a drawing."""
        if isinstance(state, str):
            state = self.puzzle.parse(state, self._name("state"))
        try:
            rank = self.puzzle.rank(state)
        except (ValueError, TypeError) as exc:
            what = self._name("state")
            raise SelectionError(f"{what}: not a state of {self.puzzle.name} ({exc})") from None
        return self.show(rank)

    def variants(self, board: str | State, want: str = "solvable", limit: int = VARIANT_LIMIT,
                 ) -> list[Variant]:
        """The positions one edit away from a state (`board`: a state, or its text as
        `PermutationPuzzle.parse` reads it; two pieces of a set swapped, or twisted:
        see `curator.distance.variants`) that are `want`: "solvable" (reached by the moves) or
        "harder" (farther from the solved state); farthest first, then by rank; at most
        `limit`. Each is a `Variant`: its `edit` and its `item`, a `DistanceLevel`. A distance
        table knows nothing of unique solutions."""
        return self.variation(board, want, limit).variants

    def variation(self, board: str | State, want: str = "solvable", limit: int = VARIANT_LIMIT) -> Variants:
        """What `variants` lists, with the state's own position and how many states lie one
        edit away and are wanted."""
        check_want(want, self._name, ("solvable", "harder"))
        check_limit(limit, self._name)
        state = self.puzzle.parse(board, self._name("board")) if isinstance(board, str) else board
        base = self.solve(state)
        considered = 0
        ranks: dict[int, Edit] = {}
        for edit, child in edits(self.puzzle, state):
            considered += 1
            ranks.setdefault(self.puzzle.rank(child), edit)
        order = np.array(sorted(ranks), dtype=np.int64)
        found = solved_positions(self.store, self.table, order, self.kernel)
        items = [self._position(item) for item in found]
        kept = [item for item in items if item.distance
                and (want != "harder" or (base.distance is not None and item.distance > base.distance))]
        kept.sort(key=lambda item: (-(item.distance or 0), item.rank))
        chosen = [Variant(ranks[item.rank], item) for item in kept[:limit]]
        return Variants(base, want, considered, len(kept), chosen)

    def show(self, rank: int, pieces: int | None = None, layer: str | None = None) -> DistanceLevel:
        """The position with this rank, its distance and an optimal solution."""
        if pieces is not None or layer is not None:
            raise SelectionError("a distance table has no layers: give the rank only")
        at_least(rank, 0, self._name("rank"))
        if not 0 <= rank < self.puzzle.size:
            raise SelectionError(f"rank {rank} out of range (0..{self.puzzle.size - 1})")
        (item,) = solved_positions(self.store, self.table, np.array([rank], dtype=np.int64), self.kernel,
                                   self.player)
        return self._position(item)

    # -- checking and exporting --------------------------------------------------------------

    def verify(self, sample: int = DEFAULT_SAMPLE, seed: int = 0) -> Verification:
        """Check the table file against its checksum and its entries against the manifest's
        counts, then re-derive `sample` random ranks (and the solved position) from their
        neighbours under the moves of the stored puzzle (see `curator.distance.verify`)."""
        at_least(sample, 0, self._name("sample"))
        return verify_table(self.store, self.puzzle, self.kernel, sample, seed)

    def export(self, levels: Sequence[DistanceLevel], path: str | Path, format: str = "json") -> list[Path]:
        """Write positions as a position pack (json), csv, svg or png pictures, or an html
        gallery; return the files written (see `curator.export.distance`)."""
        return self._exports(path).write(format, self.puzzle, list(levels), path)
