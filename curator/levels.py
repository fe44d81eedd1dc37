"""Levels: selected positions with their metrics and a solution, as handed to exports.

A `Level` is what the selector produces and every export format consumes.
"""

from __future__ import annotations

from dataclasses import dataclass

from curator.search import Move, Report


@dataclass(frozen=True)
class Level:
    """One selected position of a puzzle."""

    layer_key: str
    """The stored layer it belongs to (see `curator.space.Layer.key`)."""
    rank: int
    """Its rank within that layer."""
    position: tuple[int, ...]
    """One entry per cell (in `Board.cells` order): 0 empty, t = piece type t (1-based)."""
    report: Report
    """Solvability, solution count, first-move figures and one solution."""
    difficulty: float
    """See `curator.select.difficulty` for the formula."""

    @property
    def pieces(self) -> int:
        return self.report.pieces

    @property
    def solution(self) -> list[Move]:
        return self.report.solution
