"""The contract a kind of table implements: what the catalogue, the API, the command line and
the workspace may ask of it (`Kind`), what an analysis is asked to do (`Run`), what `verify`
found (`Verdict`), and the shape of every kind's results object (`Results`).

Each pipeline implements it in the `kind.py` of its own package; `curator.catalogue` lists
the kinds. This module sits below the pipelines and names none of them.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, Protocol

from curator.common.bounds import Search
from curator.common.errors import SelectionError, StoreError
from curator.common.exports import Exports
from curator.common.files import Verification
from curator.common.keywords import Naming, same_name
from curator.common.reading import PuzzleFile
from curator.common.report import Column, Report
from curator.common.resources import Shortfall
from curator.common.variants import Variants

Warn = Callable[[str], None]
DistanceDone = Callable[[int, int], None]


class Results(Protocol):
    """What every kind's results object answers (`curator.open` returns one)."""

    kind: str
    """The manifest's kind of its folder: the name of its `Kind`."""
    directory: Path
    exports: Exports | None
    """What writes its items, handed over by `curator.catalogue.open`."""

    @property
    def puzzle(self) -> Any: ...

    @property
    def complete(self) -> bool: ...

    @property
    def player(self) -> Any:
        """The player model that rates its levels (`curator.common.difficulty.Player`)."""

    @property
    def layers(self) -> list[dict[str, Any]]: ...

    def summary(self) -> dict[str, Any]: ...

    def select(self, *args: Any, **keywords: Any) -> list[Any]: ...

    def show(self, rank: int, pieces: int | None = None, layer: str | None = None) -> Any: ...

    def verify(self, sample: int = ..., seed: int = 0) -> Verification: ...

    def export(self, levels: Sequence[Any], path: str | Path, format: str = "json") -> list[Path]: ...

    def variants(self, board: Any, want: str = ..., limit: int = ...) -> list[Any]: ...


@dataclass(frozen=True)
class Run:
    """What an analysis is asked to do; each kind reads the fields that apply to it.

    `max_pieces`, `executor` and `keep` apply to kinds that name them in `Kind.analysis_options`;
    `reporter` gets the progress of layered sweeps, `distance_done(distance, positions)` that
    of breadth-first ones; `warn` takes one-line warnings.
    """

    directory: Path
    workers: int
    force: bool = False
    max_pieces: int | None = None
    executor: Any = None
    reporter: Any = None
    distance_done: DistanceDone | None = None
    warn: Warn | None = None
    name: Naming = same_name
    """How errors name the keywords (the command line passes its options)."""
    keep: str | None = None
    """Which of its tables' entries a kind keeps (universes: see `curator.universe.store.KEEP`)."""
    limits: bool = False
    """Whether the analysis refuses to start (`curator.common.resources.ResourceError`) when it
    needs more memory or disk than the machine has free. Most kinds know it before they start
    (`Kind.shortfalls`); a kind that learns it only as the analysis starts checks it there."""


SHOWN = 50
"""Bad ranks a verdict lists; it counts the others."""


@dataclass(frozen=True)
class Verdict:
    """What `verify` found, for people: lines to list, then one outcome."""

    lines: tuple[str, ...]
    """Problems and bad ranks, one per line (already cut to a readable number)."""
    ok: bool
    outcome: str
    """One line: "ok (3 layers, 9 files, ...)" or "verification failed: ..."."""

    @classmethod
    def of(cls, found: Verification, checked: str) -> Verdict:
        """Every problem, then the first SHOWN bad ranks, then one outcome: what was `checked`
        ("9 files, 500 ranks re-derived") and how many problems and bad ranks it found.

        >>> found = Verification(Path("out"), problems=["out/a.bits: checksum does not match"])
        >>> Verdict.of(found, "1 file").outcome
        'verification failed: 1 file: 1 problem, 0 bad ranks'
        """
        bad = found.bad_ranks
        lines = [*found.problems, *(str(line) for line in bad[:SHOWN])]
        if len(bad) > SHOWN:
            lines.append(f"... and {len(bad) - SHOWN} more bad ranks")
        problems = len(found.problems)
        summary = f"{checked}: {problems} problem{'' if problems == 1 else 's'}, {len(bad)} bad ranks"
        outcome = f"ok ({summary})" if found.ok else f"verification failed: {summary}"
        return cls(tuple(lines), found.ok, outcome)


class Kind(ABC):
    """One kind of table: its puzzle files, its analysis and its results.

    Subclasses set the class attributes and implement the methods; `catalogue.kinds()` lists
    one instance of each. Keywords are API keywords (`max_pieces`, `must_include`): the
    command line spells them as its options.
    """

    name: ClassVar[str]
    """The manifest's `kind` of its results folders."""
    puzzle_noun: ClassVar[str]
    """Its puzzles in a sentence: "a sliding-block puzzle"."""
    held: ClassVar[str]
    """Its results in a sentence: "sliding-block tables"."""
    item_noun: ClassVar[str] = "level"
    """What `select` lists: levels, or positions of a table."""
    families: ClassVar[frozenset[str] | None] = None
    """The `[rules] family` values of its files; None: the families of `family_names()`, and
    files that name none (its reader then says what is missing)."""
    exporter: ClassVar[str]
    """The module that writes its items: it defines `FORMATS` (format names) and
    `write(format, puzzle, items, path, curve=None)`, returning the files written."""
    analysis_options: ClassVar[frozenset[str]] = frozenset()
    """Keywords of `analyze` it takes besides the folder, workers and force."""
    selection_options: ClassVar[tuple[str, ...]] = ()
    """Keywords of `select` it takes (also `export`; `count_only` if it counts matches)."""
    pack_options: ClassVar[tuple[str, ...]] = ()
    """Filter keywords of `pack`; empty if it makes no packs."""
    solves: ClassVar[bool] = True
    """Whether `solve` takes a drawn position of its puzzles."""
    solve_options: ClassVar[frozenset[str]] = frozenset()
    """Keywords of `solve` it takes besides the position and the folder ("search_limit": a bound on
    the positions its search holds)."""
    variant_wants: ClassVar[tuple[str, ...]] = ()
    """What `variants` may be asked for (of `curator.common.variants.WANTS`); empty: its
    results list no variants."""
    workspace: ClassVar[str | None] = None
    """How the workspace plays its levels ("pieces", "blocks", "universe"), or None: tables only."""
    calibrates: ClassVar[bool] = False
    """Whether `curator calibrate` fits its player model (its `measures` and `playtested` rate
    items)."""

    def family_names(self) -> list[str]:
        """The `[rules] family` values its files may name."""
        return sorted(self.families or ())

    def claims(self, file: PuzzleFile) -> bool:
        """Whether it takes `file` whatever the family says (a kind that reads some files of
        another kind's family, told apart by their keys)."""
        return False

    @abstractmethod
    def parse(self, file: PuzzleFile) -> Any:
        """The puzzle of a file read and decoded once; PuzzleError naming the file and the
        key if it is malformed."""

    @abstractmethod
    def estimate(self, puzzle: Any, run: Run) -> str:
        """The size of an analysis in one line, before it runs."""

    def subject(self, puzzle: Any, run: Run) -> str:
        """What an analysis computes, in a few words ("klotski's tables")."""
        return f"{puzzle.name}'s tables"

    @abstractmethod
    def shortfalls(self, puzzle: Any, run: Run) -> list[Shortfall]:
        """What the analysis needs beyond the free memory and disk."""

    @abstractmethod
    def analyze(self, puzzle: Any, run: Run) -> None:
        """Compute (or finish) the tables of `puzzle` in `run.directory`."""

    @abstractmethod
    def open(self, directory: Path, name: Naming = same_name) -> Results:
        """The results stored in `directory`; `name` spells keywords in errors."""

    @abstractmethod
    def info(self, results: Any) -> Report:
        """The table `curator info` shows."""

    @abstractmethod
    def checked(self, results: Any, sample: int, seed: int) -> tuple[Verification, str]:
        """Check the stored files and re-derive `sample` ranks (where the kind can): what the
        check found, and what it covered in words ("3 tables, 550 ranks re-derived")."""

    def verify(self, results: Any, sample: int, seed: int) -> Verdict:
        """`checked`, and what a folder holds besides its tables: a calibrated player that
        cannot be read is one more problem (every later command would refuse it), and an
        analysis that did not finish is said in the outcome."""
        found, covered = self.checked(results, sample, seed)
        if self.calibrates:
            try:
                results.player
            except StoreError as exc:
                found.problems.append(str(exc))
        verdict = Verdict.of(found, covered)
        if results.complete:
            return verdict
        outcome = verdict.outcome + "; the analysis did not finish (run `curator analyze` again to finish it)"
        return Verdict(verdict.lines, verdict.ok, outcome)

    @abstractmethod
    def selection(self, results: Any, keywords: dict[str, Any]) -> tuple[Sequence[Any], int | None]:
        """The items `select` lists for these keywords, and how many positions matched (None
        when the scan stopped early)."""

    def warm(self, results: Any) -> None:
        """Select one item, as a first look at the results does, so that the compiled code that
        rates items is compiled (the first time after an install) or loaded before anyone waits
        on it (`curator serve` does this before it listens)."""
        self.selection(results, {"limit": 1})

    def count(self, results: Any, keywords: dict[str, Any]) -> tuple[int, dict[str, int]]:
        """Matches of the filter keywords: the total, and per layer where there are layers."""
        raise SelectionError(f"{self.held} have no match counts")

    def nearest(self, results: Any, keywords: dict[str, Any], name: Naming = same_name) -> str | None:
        """For a selection that matched nothing: one line saying where matches exist with the
        other filters kept (e.g. at which distances), or None."""
        return None

    @abstractmethod
    def items_report(self, results: Any, items: Sequence[Any], matched: int | None,
                     keywords: dict[str, Any]) -> Report:
        """Selected items as a table."""

    @abstractmethod
    def item_text(self, puzzle: Any, item: Any) -> str:
        """One item of `puzzle` (a solved or shown position) as text."""

    def solve(self, puzzle: Any, position: Any, directory: Path | None,
              name: Naming = same_name, search: Search | None = None) -> tuple[Any, Path | None]:
        """The item for a drawn `position`, using stored results of `directory` (default:
        output/<name>); and the folder used, or None. `search` bounds and follows a long
        search (kinds with "search_limit" in `solve_options`)."""
        raise SelectionError(f"solve does not take {self.puzzle_noun}")

    def variants(self, results: Any, position: Any, want: str, limit: int, search: Search | None = None,
                 progress: Callable[[int, int], None] | None = None) -> Variants:
        """The positions one edit away from `position` (a drawing, or the kind's own form of a
        position) that are `want`, the first `limit`, best first (see `Variants`); `search`
        bounds and follows the searches above stored layers where the kind has them, and
        `progress(done, total)` follows the rating."""
        raise SelectionError(f"{self.held} list no variants")

    def variants_report(self, results: Any, found: Variants) -> Report:
        """What `variants` found as a table: the edit, then the figures `items_report` shows."""
        items = [variant.item for variant in found.variants]
        table = self.items_report(results, items, found.matched, {})
        noun = "variant" if len(items) == 1 else "variants"
        title = (f"{results.puzzle.name}: {len(items)} {found.want} {noun} of {found.matched:,} "
                 f"({found.considered:,} positions one edit away)")
        rows = tuple((variant.edit.text, *row) for variant, row in zip(found.variants, table.rows))
        return Report(title, (Column("edit", right=False, no_wrap=True), *table.columns), rows,
                      lines=table.lines, width=None if table.width is None else table.width + 20)

    def pack(self, results: Any, size: int, curve: Any, pool: int | None, seed: int,
             keywords: dict[str, Any], progress: Callable[[int, int], None] | None = None) -> Any:
        """A pack of `size` levels along `curve` from `pool` candidates matching `keywords`."""
        raise SelectionError(f"{self.held} make no packs")

    def pack_report(self, results: Any, pack: Any) -> Report:
        """The slots of a pack as a table."""
        raise NotImplementedError

    def executor(self, address: str) -> Any:
        """An executor computing on the cluster at `address` (kinds with "executor" in
        `analysis_options`)."""
        raise SelectionError(f"{self.held} are not computed on a cluster")

    def measures(self, results: Any, items: Sequence[Any]) -> tuple[Any, Any, Any]:
        """The player model's measures of positions (as graded packs name them: one entry per
        cell, or a rank) at every point of `curator.common.difficulty.grid()`: float[items,
        points, FIGURES]; which of them could be measured (solvable, not too large to follow); and
        each one's group (its size: pieces, distance). SelectionError naming a position that
        is not one of the puzzle's."""
        raise SelectionError(f"{self.held} cannot be calibrated")

    def playtested(self, results: Any, key: str) -> Any:
        """The position a level's key in the workspace's database names (see
        docs/workspace-db.md), as `measures` takes it; SelectionError if it names none."""
        raise SelectionError(f"{self.held} are not playtested in the workspace")

    def solvable(self, results: Any, key: str) -> bool:
        """Whether the level a key of the workspace's database names can be solved: the
        workspace refuses a play said to have solved one that cannot be."""
        raise SelectionError(f"{self.held} are not playtested in the workspace")

    def detail(self, results: Any) -> dict[str, Any]:
        """What the workspace shows of a folder besides its name: its table, and what it
        takes to draw and play its levels."""
        return {"layers": results.layers}
