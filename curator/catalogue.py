"""The catalogue of puzzle kinds: the list of kinds, and which kind a puzzle file or a results
folder is.

Each pipeline implements the contract of `curator.kind` in the `kind.py` of its own package;
installed packages add kinds through the entry-point group `curator.kinds`. The API, the
command line and the workspace ask the catalogue; none of them knows a kind's classes. The
catalogue opens results (`open`) and hands them the exporters (`curator.export`), which sit
above the pipelines.

>>> from curator import catalogue
>>> [kind.name for kind in catalogue.kinds()]
['layers', 'distance', 'sliding', 'sokoban', 'universe']
>>> kind, puzzle = catalogue.read_puzzle("puzzles/klotski.toml")
>>> kind.name, kind.held
('sliding', 'sliding-block tables')
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from functools import cache
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

from curator.common.errors import PuzzleError, SelectionError, StoreError
from curator.common.files import MANIFEST, manifest_kind
from curator.common.keywords import Naming, same_name
from curator.common.reading import puzzle_file, read_text, unknown
from curator.distance.kind import KIND as DISTANCE
from curator.export.pack import read_curve
from curator.kind import Kind, Results
from curator.layered.kind import KIND as LAYERED
from curator.sliding.kind import KIND as SLIDING
from curator.sokoban.kind import KIND as SOKOBAN
from curator.universe.kind import KIND as UNIVERSE

BUILT_IN = (LAYERED, DISTANCE, SLIDING, SOKOBAN, UNIVERSE)
"""The kinds curator ships."""
ENTRY_POINTS = "curator.kinds"
"""The entry-point group through which installed packages add kinds of tables."""


@cache
def kinds() -> tuple[Kind, ...]:
    """Every kind: the built-in ones, then those of installed packages."""
    found = list(BUILT_IN)
    for point in entry_points(group=ENTRY_POINTS):
        origin = point.dist.name if point.dist else point.name
        try:
            kind = point.load()
        except (ImportError, AttributeError) as exc:
            raise StoreError(f"kind {point.value} of {origin} cannot be loaded ({exc})") from None
        if not isinstance(kind, Kind):
            raise StoreError(f"kind {point.value} of {origin} is not a curator.kind.Kind")
        found.append(kind)
    return tuple(found)


def kind_named(name: str | None) -> Kind:
    """The kind whose results folders have manifest kind `name`."""
    for kind in kinds():
        if kind.name == name:
            return kind
    known = ", ".join(kind.name for kind in kinds())
    raise StoreError(f"results of kind {name!r} are not known here (known: {known})")


def kind_of_family(family: str | None, source: str = "<puzzle>") -> Kind:
    """The kind whose puzzle files name `family` in [rules]; a file that names none goes to
    the kind that takes every other family, whose reader says what is missing. PuzzleError
    naming `source` for a family no kind knows."""
    for kind in kinds():
        if kind.families is not None and family in kind.families:
            return kind
    for kind in kinds():
        if kind.families is None and (family is None or family in kind.family_names()):
            return kind
    known = [name for kind in kinds() for name in kind.family_names()]
    raise PuzzleError(source, "rules.family", unknown(f"family {family!r}", str(family), known))


def claimed_families() -> dict[str, str]:
    """The `[rules] family` names the kinds with a fixed list of families claim, and which
    kind: no rule family may take them."""
    return {family: f"the kind of {kind.puzzle_noun.removeprefix('a ')}s" for kind in kinds()
            for family in sorted(kind.families or ())}


def parse_puzzle(text: str, source: str = "<puzzle>") -> tuple[Kind, Any]:
    """The kind and puzzle of puzzle-file text, decoded once; PuzzleError naming `source`."""
    file = puzzle_file(text, source)
    kind = next((k for k in kinds() if k.claims(file)), None) or kind_of_family(file.family, source)
    return kind, kind.parse(file)


def read_puzzle(path: str | Path) -> tuple[Kind, Any]:
    """The kind and puzzle of a puzzle file, read and decoded once."""
    return parse_puzzle(read_text(path), str(path))


def kind_of(directory: str | Path) -> Kind:
    """The kind of the results `directory` holds, by its manifest; StoreError naming the
    manifest if it cannot be trusted or names a kind not known here."""
    name = manifest_kind(Path(directory))
    try:
        return kind_named(name or "layers")
    except StoreError as exc:
        raise StoreError(f"{Path(directory) / MANIFEST}: {exc}") from None


def check_results_of(kind: Kind, directory: str | Path, name: Naming = same_name) -> None:
    """SelectionError naming the option `name("results")` when `directory` is not a folder of
    `kind`'s results (it names nothing, or holds another kind's); StoreError if it holds none,
    as `open` says of an empty folder."""
    where = f"{name('results')} {directory}"
    path = Path(directory)
    if not path.is_dir():
        raise SelectionError(f"{where}: no such folder" if not path.exists() else f"{where}: not a folder")
    if not (path / MANIFEST).exists():
        raise StoreError(f"{where}: holds no results (no {MANIFEST}); run `curator analyze` first")
    held = kind_of(path)
    if held is not kind:
        raise SelectionError(f"{where}: holds {held.held}, not {kind.held}")


def kind_for(results: Results) -> Kind:
    """The kind of an open results object."""
    return kind_named(results.kind)


def open(directory: str | Path, name: Naming = same_name) -> Results:  # noqa: A001 - as curator.open
    """The results stored in `directory`, able to export their items (StoreError if the folder
    holds none); `name` spells keywords in errors."""
    kind = kind_of(directory)
    results = kind.open(Path(directory), name)
    results.exports = _Exports(kind)
    return results


def formats(kind: Kind) -> tuple[str, ...]:
    """The export formats of `kind`."""
    return tuple(importlib.import_module(kind.exporter).FORMATS)


def known_formats(among: Sequence[Kind] = BUILT_IN) -> tuple[str, ...]:
    """Every export format of the kinds `among` (the built-in ones: installed kinds are only
    loaded for a folder of theirs), each once, in the kinds' order."""
    return tuple(dict.fromkeys(fmt for kind in among for fmt in formats(kind)))


class _Exports:
    """The exporters of one kind (its `exporter` module) and the pack reader, as a results
    object uses them."""

    def __init__(self, kind: Kind) -> None:
        self.kind = kind

    def write(self, fmt: str, puzzle: Any, items: Sequence[Any], path: str | Path,
              curve: Any = None) -> list[Path]:
        written: list[Path] = importlib.import_module(self.kind.exporter).write(fmt, puzzle, items, path,
                                                                                curve=curve)
        return written

    def read_curve(self, curve: str | Path, what: str) -> Any:
        return read_curve(curve, what)
