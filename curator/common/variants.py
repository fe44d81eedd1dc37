"""Variants: the positions one edit away from a position (a piece added, removed or moved),
as every kind lists them: the edit, and the kind's own item for the position it gives.

Each kind finds and rates its variants itself (`results.variants`); this module holds what
they share: the edit, the list's record and the check of what is wanted.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from curator.common.errors import SelectionError

WANTS = ("unique", "solvable", "harder")
"""What a variant must be: uniquely solvable, solvable, or solvable and harder than the
position it comes from (greater difficulty, or distance where that rates levels). A position
already at the goal is no variant."""
LIMIT = 20
"""Variants listed at most, unless told otherwise."""


@dataclass(frozen=True)
class Edit:
    """One edit of a position: `action` ("add", "remove", "move"; for permutation puzzles
    "swap" and "twist") of a piece of `piece` (its letter or set) from `source` to `target`
    (cells (row, col) on a board, places (index,) in a piece set; None where the action has
    none)."""

    action: str
    piece: str
    source: tuple[int, ...] | None = None
    target: tuple[int, ...] | None = None

    @property
    def text(self) -> str:
        """The edit in a few words: "add o 3,3", "remove o 2,1", "move V 0,0>1,0"."""
        def where(cell: tuple[int, ...] | None) -> str:
            return "" if cell is None else ",".join(str(v) for v in cell)
        if self.source is not None and self.target is not None:
            return f"{self.action} {self.piece} {where(self.source)}>{where(self.target)}"
        return f"{self.action} {self.piece} {where(self.source if self.source is not None else self.target)}"

    def to_json(self) -> dict[str, Any]:
        return {"action": self.action, "piece": self.piece,
                "from": None if self.source is None else list(self.source),
                "to": None if self.target is None else list(self.target), "text": self.text}


@dataclass(frozen=True)
class Variant:
    """A variant: the edit and the item (a level with its figures) of the position it gives."""

    edit: Edit
    item: Any

    @property
    def position(self) -> Any:
        return self.item.position

    def to_json(self) -> dict[str, Any]:
        """The item as `select --json` prints it, with the edit that makes it."""
        return {"edit": self.edit.to_json(), **self.item.to_json()}


@dataclass(frozen=True)
class Variants:
    """What `variants` found for a position: its own item, how many positions lie one edit
    away, how many of them are what was wanted, and the first `limit` of those, best first."""

    base: Any
    want: str
    considered: int
    matched: int
    variants: list[Variant]

    def to_json(self) -> dict[str, Any]:
        """What `curator variants --json` prints."""
        return {"want": self.want, "considered": self.considered, "matched": self.matched,
                "position": self.base.to_json(), "variants": [v.to_json() for v in self.variants]}


def check_want(want: Any, name: Callable[[str], str], wants: tuple[str, ...] = WANTS) -> str:
    """`want` if it is one of `wants`; SelectionError naming the keyword otherwise."""
    if want not in wants:
        raise SelectionError(f"{name('want')} must be one of {', '.join(wants)}, got {want!r}")
    return str(want)


def check_limit(limit: Any, name: Callable[[str], str]) -> int:
    """`limit`, a whole number of at least 1; SelectionError naming the keyword otherwise."""
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
        raise SelectionError(f"{name('limit')} must be a whole number of at least 1, got {limit!r}")
    return limit
