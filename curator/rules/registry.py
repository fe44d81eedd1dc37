"""The rule families curator knows: its own, and those that installed packages add.

A package adds a family with an entry point of the group `curator.families`, named after the
family and pointing at its `Rules` subclass (see docs/rules.md):

    [project.entry-points."curator.families"]
    hoppers = "curator_hoppers:HoppersRules"

Code is only ever loaded from installed packages, looked up by the family's name: a puzzle
file names a family, never where its code lives. A plug-in is imported when it is first
named or listed, and checked then. Whatever is wrong with it (it does not import, it is not
a `Rules` subclass, its `family` is not the entry point's name, it runs on a sweep kernel
that does not exist) is one line naming the family and the package: a `FamilyError` when
the family is named, a warning when families are listed. A built-in family always wins
over a plug-in of the same name.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.metadata
import inspect
import sys
import warnings
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from numba.core.dispatcher import Dispatcher

from curator.common.difficulty import Player
from curator.common.errors import one_line
from curator.common.ranking import MAX_CELLS, WORD_CELLS, from_words
from curator.common.reading import unknown
from curator.rules.base import MAX_CHILDREN, SWEEP_KERNELS, Rules
from curator.rules.capture import CaptureRules
from curator.rules.fling import FlingRules
from curator.rules.jump import JumpRules

GROUP = "curator.families"
"""The entry-point group through which installed packages add rule families."""

BUILT_IN: dict[str, type[Rules]] = {
    JumpRules.family: JumpRules,
    FlingRules.family: FlingRules,
    CaptureRules.family: CaptureRules,
}
"""The families that come with curator, in the order they are listed."""

BUILT_IN_SOURCE = "built-in"

Warn = Callable[[str], None]


class FamilyError(LookupError):
    """A family cannot be used: no family has that name, or the installed plug-in of that
    name does not load or does not keep the contract of `Rules` (one-line message)."""


@dataclass(frozen=True)
class Family:
    """One usable family, as `list_families` describes it."""

    name: str
    typed: bool
    """Whether its puzzles have typed pieces (a [pieces] table)."""
    sweep_kernel: str
    """The sweep kernel it runs on (see `curator.rules.base.SWEEP_KERNELS`)."""
    max_cells: int
    """The most cells of a board it plays on: MAX_CELLS if it moves on multi-word masks
    (`Rules.wide`), else the 64 of one word."""
    options: dict[str, str]
    """The parameters its [rules] table takes: name -> type name (bool, int, str, ...)."""
    source: str
    """"built-in", or "package NAME VERSION" for a family an installed package adds."""
    summary: str
    """The first line of its documentation, or ""."""
    rules: type[Rules] = field(repr=False, compare=False)

    def to_json(self) -> dict[str, Any]:
        """The family as `curator families --json` prints it."""
        return {"name": self.name, "typed": self.typed, "sweep_kernel": self.sweep_kernel,
                "max_cells": self.max_cells,
                "options": dict(self.options), "source": self.source, "summary": self.summary}


@dataclass(frozen=True)
class _Plugin:
    """One entry point of the group: a family some installed package offers."""

    name: str
    entry_point: importlib.metadata.EntryPoint
    source: str


def find_family(name: str) -> type[Rules]:
    """The `Rules` subclass of the family `name`, built in or installed.

    FamilyError if there is none (the message lists the known families), or if the plug-in
    of that name cannot be used (the message says why).
    """
    if name in BUILT_IN:
        return BUILT_IN[name]
    offers = _installed().get(name)
    if not offers:
        raise FamilyError(unknown(f"family {name!r}", name, family_names()))
    if len(offers) > 1:
        packages = ", ".join(offer.source.removeprefix("package ") for offer in offers)
        raise FamilyError(f"family {name!r} is added by more than one installed package ({packages}); "
                          "uninstall all but one")
    loaded = _load(offers[0])
    if isinstance(loaded, str):
        raise FamilyError(loaded)
    return loaded


def family_names() -> list[str]:
    """The names of the built-in families, then of the installed ones (sorted), as a puzzle
    file may name them; a plug-in is listed even if it turns out not to load."""
    return [*BUILT_IN, *sorted(name for name in _installed() if name not in BUILT_IN)]


def families() -> dict[str, type[Rules]]:
    """Every usable family, name -> `Rules` subclass: the built-in ones, then the installed
    ones that load (the others are left out; `find_family` and `list_families` say why)."""
    found = dict(BUILT_IN)
    for name in family_names():
        if name not in found:
            try:
                found[name] = find_family(name)
            except FamilyError:
                pass
    return found


def list_families(warn: Warn | None = None, reserved: Mapping[str, str] | None = None) -> list[Family]:
    """Every usable family, built in or installed, with what `curator families` shows of it.

    Each installed plug-in that cannot be used (it does not load, it breaks the contract,
    or its name is taken by a built-in family, another package or a name in `reserved`
    (name -> what owns it, such as the family of another kind of puzzle)) is left out with a
    one-line `warn` (default: a Python `warnings.warn`).
    """
    if warn is None:
        def warn(message: str) -> None:
            warnings.warn(message, RuntimeWarning, stacklevel=3)
    listed = [_describe(rules, BUILT_IN_SOURCE) for rules in BUILT_IN.values()]
    for name, offers in sorted(_installed().items()):
        taken = _taken(name) or (reserved or {}).get(name)
        if taken:
            for offer in offers:
                warn(f"{_label(offer)} is left out: the name belongs to {taken}")
            continue
        try:
            rules = find_family(name)
        except FamilyError as exc:
            warn(f"{exc}" if len(offers) > 1 else f"{exc} (left out)")
            continue
        listed.append(_describe(rules, offers[0].source))
    return listed


def refresh() -> None:
    """Forget the installed families found so far: the next look-up reads the entry points
    again (after a package was installed or removed in a running process)."""
    _installed.cache_clear()
    _loaded.clear()


class _Families(Mapping[str, type[Rules]]):
    """`families()` as a read-only mapping, filled when first read."""

    def __getitem__(self, name: str) -> type[Rules]:
        return families()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(families())

    def __len__(self) -> int:
        return len(families())

    def __repr__(self) -> str:
        return f"FAMILIES({', '.join(self)})"


FAMILIES: Mapping[str, type[Rules]] = _Families()
"""Every usable family by name (see `families`), for callers that want a mapping."""


# -- finding and checking plug-ins ---------------------------------------------------------

_loaded: dict[str, type[Rules] | str] = {}
"""Each plug-in loaded so far: its class, or the line saying why it cannot be used."""


@functools.cache
def _installed() -> dict[str, list[_Plugin]]:
    """The entry points of the group by name (more than one if packages disagree)."""
    found: dict[str, list[_Plugin]] = {}
    for entry_point in importlib.metadata.entry_points(group=GROUP):
        found.setdefault(entry_point.name, []).append(
            _Plugin(entry_point.name, entry_point, _package(entry_point)))
    return found


def _package(entry_point: importlib.metadata.EntryPoint) -> str:
    dist = getattr(entry_point, "dist", None)
    if dist is None:
        return "package (unknown)"
    return f"package {dist.metadata['Name'] or dist.name} {dist.version}"


def _label(plugin: _Plugin) -> str:
    return f"family {plugin.name!r} ({plugin.source})"


def _taken(name: str) -> str | None:
    """What already owns a name a plug-in uses, if anything does."""
    if name in BUILT_IN:
        return f"a built-in family ({BUILT_IN[name].__module__})"
    return None


def _load(plugin: _Plugin) -> type[Rules] | str:
    """The plug-in's class once checked, or one line saying why it cannot be used."""
    if plugin.name not in _loaded:
        try:
            loaded = plugin.entry_point.load()
        except Exception as exc:  # anything a package's import raises is its problem, reported
            _loaded[plugin.name] = (f"{_label(plugin)} cannot be loaded: importing "
                                    f"{plugin.entry_point.value} raised {_exception(exc)}")
        else:
            problem = _problem(plugin.name, loaded)
            _loaded[plugin.name] = loaded if problem is None else f"{_label(plugin)} {problem}"
    return _loaded[plugin.name]


def _exception(exc: BaseException) -> str:
    text = one_line(str(exc))
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _problem(name: str, loaded: Any) -> str | None:
    """What keeps the object an entry point loaded from being the family `name`, if anything."""
    if not (isinstance(loaded, type) and issubclass(loaded, Rules)):
        what = loaded.__qualname__ if isinstance(loaded, type) else type(loaded).__name__
        return f"is not usable: its entry point loads {what}, not a subclass of curator.rules.Rules"
    if getattr(loaded, "family", None) != name:
        return (f"is not usable: {loaded.__qualname__}.family is {getattr(loaded, 'family', None)!r}; "
                "it must be the entry point's name")
    if inspect.isabstract(loaded):
        missing = ", ".join(sorted(getattr(loaded, "__abstractmethods__", ())))
        return f"is not usable: {loaded.__qualname__} does not implement {missing}"
    if not isinstance(loaded.typed, bool):
        return f"is not usable: {loaded.__qualname__}.typed must be True or False"
    typed = SWEEP_KERNELS.get(loaded.sweep_kernel) if isinstance(loaded.sweep_kernel, str) else None
    if typed is None:
        return (f"is not usable: {loaded.__qualname__}.sweep_kernel is {loaded.sweep_kernel!r} "
                f"(known: {', '.join(SWEEP_KERNELS)})")
    if typed != loaded.typed:
        pieces = "typed pieces" if typed else "one kind of piece"
        return (f"is not usable: sweep kernel {loaded.sweep_kernel!r} takes puzzles of {pieces}, "
                f"and {loaded.__qualname__}.typed is {loaded.typed}")
    params = loaded.params
    if not (isinstance(params, dict) and all(isinstance(k, str) and isinstance(v, type)
                                             for k, v in params.items())):
        return f"is not usable: {loaded.__qualname__}.params must map names to types"
    if not (loaded.player is None or isinstance(loaded.player, Player)):
        return (f"is not usable: {loaded.__qualname__}.player must be None or a "
                "curator.common.difficulty.Player")
    return None


PROBE_ROOM = 4 * MAX_CHILDREN
"""Moves the buffers of `check_moves` hold: a generator that writes past MAX_CHILDREN (and
not past this) is caught instead of overwriting other memory."""


def family_code(rules: Rules) -> str | None:
    """sha256 over the code an installed family computes with, or None for a built-in family:
    every loaded module of the top-level packages (or modules) that define its class, its
    parent classes and its compiled functions, each as its dotted name and its bytes. The
    layers of its puzzles hold what that code computed, and results folders record it: an
    edit of any of those modules changes it; where or how the package is installed does not.
    Call it once the puzzle is read (`check_moves` runs the family, which loads what it
    uses)."""
    kind = type(rules)
    if _built_in(kind):
        return None
    family_classes = kind.__mro__[:kind.__mro__.index(Rules)]
    roots = {c.__module__ for c in family_classes if c.__module__.partition(".")[0] != "curator"}
    roots |= {getattr(f, "py_func", f).__module__ for f in _compiled(rules)}
    tops = {name.partition(".")[0] for name in roots}
    sha = hashlib.sha256()
    for name, module in sorted(sys.modules.items()):
        file = getattr(module, "__file__", None)
        if name.partition(".")[0] in tops and file and file.endswith(".py") and Path(file).is_file():
            sha.update(f"{name}\0".encode() + Path(file).read_bytes() + b"\0")
    return sha.hexdigest()


def _built_in(kind: type[Rules]) -> bool:
    """Whether `kind` is one of curator's own families (tested, not checked when read)."""
    return BUILT_IN.get(kind.family) is kind


def _compiled(rules: Rules) -> list[Any]:
    """The compiled functions a family hands the kernels: `children`, and `captures`' reach."""
    found: list[Any] = [rules.children]
    if rules.sweep_kernel == "captures":
        found.append(rules.captures()[0])
    return found


def check_moves(rules: Rules, limits: tuple[int, ...], samples: int = 8) -> None:
    """FamilyError (one line) if an installed family's bound rules break the contract on a
    few positions drawn from the board and piece `limits` (at most so many of each type):
    `tables` is not a tuple of arrays, `children` is not compiled, fails, returns no count
    or more than MAX_CHILDREN, or makes a move that does not remove exactly one piece.
    Built-in families are tested instead. The sweep trusts `children` on every position;
    this catches a broken one before it crashes a sweep or stores wrong tables.

    >>> from curator.rules.jump import JumpRules
    >>> from curator.common.board import Board
    >>> check_moves(JumpRules(Board.from_art("square", "...."), ("o",)), (4,))  # built in: trusted
    """
    if _built_in(type(rules)):
        return
    name = f"family {type(rules).family!r}"
    tables = rules.tables()
    if not (isinstance(tables, tuple | list) and all(isinstance(t, np.ndarray) for t in tables)):
        raise FamilyError(f"{name}: tables() must return a tuple of numpy arrays, "
                          f"not {type(tables).__name__}")
    if not isinstance(rules.children, Dispatcher):
        raise FamilyError(f"{name}: children must be a @numba.njit function, "
                          f"not a {type(rules.children).__name__}")
    random = np.random.default_rng(0)
    size = rules.board.size
    for i in range(samples):
        pieces = max(size - 1, 1) if i == 0 else int(random.integers(1, size + 1))
        position = _sample(random, size, limits, pieces)
        problem = _move_problem(rules, tuple(tables), position)
        if problem:
            raise FamilyError(f"{name}: from the position {''.join(map(str, position))} "
                              f"(one digit a cell), {problem}")


def _sample(random: np.random.Generator, size: int, limits: tuple[int, ...], pieces: int) -> tuple[int, ...]:
    """A position of `pieces` pieces (at most the limits allow) on random cells, each of a
    type drawn from what the limits leave."""
    kinds = random.permutation(np.repeat(np.arange(1, len(limits) + 1), limits))[:pieces]
    position = np.zeros(size, np.int64)
    position[random.choice(size, size=len(kinds), replace=False)] = kinds
    return tuple(int(v) for v in position)


def _move_problem(rules: Rules, tables: tuple[np.ndarray, ...], position: tuple[int, ...]) -> str | None:
    """What is wrong with the moves `children` generates from `position`, if anything."""
    try:
        count, masks, boards, removed, moves = rules.generated(position, tables, PROBE_ROOM)
    except Exception as exc:  # a plug-in's compiled code failing to type or run is its problem
        return f"calling children raised {_exception(exc).splitlines()[0]}"
    if (moves[MAX_CHILDREN:] != -1).any() or (masks[MAX_CHILDREN:] != np.iinfo(np.uint64).max).any():
        return f"children wrote more than the {MAX_CHILDREN} moves it may"
    if not isinstance(count, int | np.integer) or isinstance(count, bool) or not 0 <= count <= MAX_CHILDREN:
        return f"children returned {count!r}; it must return how many moves it wrote, 0 to {MAX_CHILDREN}"
    pieces = sum(1 for v in position if v)
    for j in range(int(count)):
        value = int(masks[j]) if masks.ndim == 1 else from_words(masks[j])
        left = value.bit_count()
        if boards is not None and removed is not None:
            cells = {i for i in range(len(position)) if value >> i & 1}
            if cells != {int(i) for i in np.flatnonzero(boards[j])}:
                return f"move {j} gives a mask that differs from its board"
            if not 1 <= removed[j] <= len(rules.piece_types):
                return f"move {j} says it removed a piece of type {int(removed[j])}"
        if left != pieces - 1:
            return f"move {j} leaves {left} pieces of {pieces}; every move removes exactly one piece"
        start, end = divmod(int(moves[j]), 256)
        if not (0 <= start < len(position) and 0 <= end < len(position)):
            return f"move {j} is encoded as {int(moves[j])}, which names no cells of the board"
    return None


def _describe(rules: type[Rules], source: str) -> Family:
    options = {key: kind.__name__ for key, kind in rules.params.items()}
    cells = MAX_CELLS if rules.wide else WORD_CELLS
    return Family(rules.family, rules.typed, rules.sweep_kernel, cells, options, source, _summary(rules),
                  rules)


def _summary(rules: type[Rules]) -> str:
    """The first line of the class's own docstring, else of its module's."""
    doc = rules.__dict__.get("__doc__") or getattr(sys.modules.get(rules.__module__), "__doc__", None) or ""
    lines = inspect.cleandoc(doc).strip().splitlines()
    return lines[0] if lines else ""
