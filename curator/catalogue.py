"""The catalogue of puzzle kinds: the contract a kind of table implements, and the list of kinds.

A kind recognises its puzzle files, parses them, estimates and runs an analysis, opens the
results folders it writes, and says which options, tables and exporters it has. The API, the
command line and the workspace ask the catalogue; none of them knows a kind's classes.

>>> from curator import catalogue
>>> [kind.name for kind in catalogue.kinds()]
['layers', 'distance', 'sliding', 'sokoban']
>>> kind, puzzle = catalogue.read_puzzle("puzzles/klotski.toml")
>>> kind.name, kind.held
('sliding', 'sliding-block tables')
"""

from __future__ import annotations

import importlib
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any, ClassVar, Protocol

from curator.common.errors import SelectionError, StoreError
from curator.common.files import manifest_kind
from curator.common.keywords import Naming, same_name
from curator.common.reading import PuzzleFile, puzzle_file, read_text
from curator.common.report import Report
from curator.common.resources import Shortfall

BUILT_IN = ("curator.layered.kind:KIND", "curator.distance.kind:KIND", "curator.sliding.kind:KIND",
            "curator.sokoban.kind:KIND")
"""The kinds curator ships, as `module:attribute` (loaded on first use)."""
ENTRY_POINTS = "curator.kinds"
"""The entry-point group through which installed packages add kinds of tables."""

Warn = Callable[[str], None]
DistanceDone = Callable[[int, int], None]


class Results(Protocol):
    """What every kind's results object answers (`curator.open` returns one)."""

    kind: str
    directory: Path

    @property
    def puzzle(self) -> Any: ...

    @property
    def complete(self) -> bool: ...

    @property
    def layers(self) -> list[dict[str, Any]]: ...

    def summary(self) -> dict[str, Any]: ...

    def select(self, *args: Any, **keywords: Any) -> list[Any]: ...

    def show(self, rank: int, pieces: int | None = None, layer: str | None = None) -> Any: ...

    def verify(self, sample: int = ..., seed: int = 0) -> Any: ...

    def export(self, levels: Sequence[Any], path: str | Path, format: str = "json") -> list[Path]: ...


@dataclass(frozen=True)
class Run:
    """What an analysis is asked to do; each kind reads the fields that apply to it.

    `max_pieces` and `executor` apply to kinds that name them in `Kind.analysis_options`;
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


@dataclass(frozen=True)
class Verdict:
    """What `verify` found, for people: lines to list, then one outcome."""

    lines: tuple[str, ...]
    """Problems and bad ranks, one per line (already cut to a readable number)."""
    ok: bool
    outcome: str
    """One line: "ok (3 layers, 9 files, ...)" or "verification failed: ..."."""
    error: str | None = None
    """A problem that stops the check at once (a damaged table)."""


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
    """The `[rules] family` values of its files; None: every family no other kind claims."""
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
    workspace: ClassVar[str | None] = None
    """How the workspace plays its levels ("pieces", "blocks"), or None: tables only."""

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
    def verdict(self, results: Any, sample: int, seed: int) -> Verdict:
        """Check the stored files and re-derive `sample` ranks (where the kind can)."""

    @abstractmethod
    def selection(self, results: Any, keywords: dict[str, Any]) -> tuple[list[Any], int | None]:
        """The items `select` lists for these keywords, and how many positions matched (None
        when the scan stopped early)."""

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
              name: Naming = same_name) -> tuple[Any, Path | None]:
        """The item for a drawn `position`, using stored results of `directory` (default:
        output/<name>); and the folder used, or None."""
        raise SelectionError(f"solve does not take {self.puzzle_noun}")

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

    def detail(self, results: Any) -> dict[str, Any]:
        """What the workspace shows of a folder besides its name: its table, and what it
        takes to draw and play its levels."""
        return {"layers": results.layers}


@cache
def kinds() -> tuple[Kind, ...]:
    """Every kind: the built-in ones, then those of installed packages."""
    found = [_load(spec, "curator") for spec in BUILT_IN]
    for point in entry_points(group=ENTRY_POINTS):
        found.append(_load(point.value, point.dist.name if point.dist else point.name))
    return tuple(found)


def _load(spec: str, origin: str) -> Kind:
    module, _, attribute = spec.partition(":")
    try:
        kind = getattr(importlib.import_module(module), attribute)
    except (ImportError, AttributeError) as exc:
        raise StoreError(f"kind {spec} of {origin} cannot be loaded ({exc})") from None
    if not isinstance(kind, Kind):
        raise StoreError(f"kind {spec} of {origin} is not a curator.catalogue.Kind")
    return kind


def kind_named(name: str | None) -> Kind:
    """The kind whose results folders have manifest kind `name`."""
    for kind in kinds():
        if kind.name == name:
            return kind
    known = ", ".join(kind.name for kind in kinds())
    raise StoreError(f"results of kind {name!r} are not known here (known: {known})")


def kind_of_family(family: object) -> Kind:
    """The kind whose puzzle files name `family` in [rules] (the catch-all kind otherwise)."""
    for kind in kinds():
        if kind.families is not None and family in kind.families:
            return kind
    return next(kind for kind in kinds() if kind.families is None)


def parse_puzzle(text: str, source: str = "<puzzle>") -> tuple[Kind, Any]:
    """The kind and puzzle of puzzle-file text, decoded once; PuzzleError naming `source`."""
    file = puzzle_file(text, source)
    kind = kind_of_family(file.family)
    return kind, kind.parse(file)


def read_puzzle(path: str | Path) -> tuple[Kind, Any]:
    """The kind and puzzle of a puzzle file, read and decoded once."""
    return parse_puzzle(read_text(path), str(path))


def kind_of(directory: str | Path) -> Kind:
    """The kind of the results `directory` holds, by its manifest."""
    return kind_named(manifest_kind(Path(directory)) or "layers")


def kind_for(results: Results) -> Kind:
    """The kind of an open results object."""
    return kind_named(results.kind)


def formats(kind: Kind) -> tuple[str, ...]:
    """The export formats of `kind`."""
    return tuple(importlib.import_module(kind.exporter).FORMATS)


def export(results: Results, items: Sequence[Any], path: str | Path, fmt: str,
           curve: Any = None) -> list[Path]:
    """Write `items` of `results` in the format `fmt` (ExportError for an unknown one);
    the files written. The exporters sit above the kinds they write, so they are looked up
    by module name."""
    module = importlib.import_module(kind_for(results).exporter)
    written: list[Path] = module.write(fmt, results.puzzle, items, path, curve=curve)
    return written


def read_curve(curve: str | Path, what: str = "curve") -> Any:
    """A named curve of `curator.arrange.CURVES`, or the profile of a level pack file (read
    by the pack reader, which sits with the exporters above the kinds)."""
    return importlib.import_module("curator.export.pack").read_curve(curve, what)
