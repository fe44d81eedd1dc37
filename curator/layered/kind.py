"""The layered pipeline in the catalogue: puzzles whose every move removes a piece (peg
solitaire, Fling!, Solitaire Chess and installed rule families), swept layer by layer.

Everything the command line and the workspace need of layered results goes through `KIND`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from curator.common.difficulty import FIGURES, grid
from curator.common.errors import SelectionError
from curator.common.figures import chance_text
from curator.common.files import Verification
from curator.common.keywords import Naming, same_name
from curator.common.reading import PuzzleFile
from curator.common.report import Column, Report, columns, yes
from curator.common.resources import Shortfall, bytes_text
from curator.common.variants import WANTS, Variants
from curator.kind import Kind, Run, Search
from curator.layered import analysis
from curator.layered.analysis import sweep_depth
from curator.layered.level import Level, difficulty_text, draw, moves_text
from curator.layered.metrics import GRAPH_LIMIT, measure, solve_position
from curator.layered.puzzle import Puzzle, puzzle_from
from curator.layered.results import LayeredResults, StoredPosition, puzzle_results
from curator.rules import family_names

FILTERS = ("solvable", "unique", "all_moves", "pieces", "counts", "must_include", "must_exclude", "canonical")
"""The selection keywords that say which positions match (the others choose among them)."""


class LayeredKind(Kind):
    """Layers of solvable / unique / all-moves bits per piece count."""

    name = "layers"
    puzzle_noun = "a layered puzzle"
    held = "layered results"
    exporter = "curator.export"
    analysis_options = frozenset({"max_pieces", "executor"})
    selection_options = ("solvable", "unique", "all_moves", "pieces", "counts", "must_include",
                         "must_exclude", "canonical", "sample", "seed", "difficulty", "sort", "limit",
                         "count_only")
    pack_options = ("solvable", "unique", "all_moves", "pieces", "counts", "must_include", "must_exclude")
    workspace = "pieces"
    calibrates = True
    solve_options = frozenset({"search_limit"})
    variant_wants = WANTS

    def family_names(self) -> list[str]:
        return family_names()

    def parse(self, file: PuzzleFile) -> Puzzle:
        return puzzle_from(file)

    def estimate(self, puzzle: Puzzle, run: Run) -> str:
        est = analysis.estimate(puzzle, sweep_depth(puzzle, run.max_pieces, run.name))
        return (f"{puzzle.name}: {est.layers} layers, {est.positions:,} positions; "
                f"{bytes_text(est.disk_bytes)} on disk, about {bytes_text(est.peak_memory_bytes)} of memory")

    def subject(self, puzzle: Puzzle, run: Run) -> str:
        return f"{puzzle.name} up to {sweep_depth(puzzle, run.max_pieces, run.name)} pieces"

    def shortfalls(self, puzzle: Puzzle, run: Run) -> list[Shortfall]:
        depth = sweep_depth(puzzle, run.max_pieces, run.name)
        return analysis.resource_shortfalls(puzzle, depth, run.directory, run.executor)

    def analyze(self, puzzle: Puzzle, run: Run) -> None:
        depth = sweep_depth(puzzle, run.max_pieces, run.name)
        analysis.analyze(puzzle, run.directory, depth, run.workers, run.force, run.reporter, run.warn,
                         run.executor)

    def open(self, directory: Path, name: Naming = same_name) -> LayeredResults:
        return LayeredResults(directory, name)

    def executor(self, address: str) -> Any:
        from curator.layered.cluster import ClusterExecutor, check_address  # needs the cluster extra

        try:
            check_address(address)
        except ValueError as exc:
            raise SelectionError(str(exc)) from None
        return ClusterExecutor.connect(address)

    # -- tables for people ---------------------------------------------------------------------

    def info(self, results: LayeredResults) -> Report:
        summary = results.summary()
        typed = len(results.puzzle.piece_types) > 1
        title = f"{summary['puzzle']}" + ("" if summary["complete"] else " (incomplete)")
        heads = (Column("pieces"), *([Column("counts", right=False)] if typed else ()),
                 *columns("positions", "solvable", "unique", "all moves", "seconds"))
        rows = []
        for item in summary["layers"]:
            counts = [" ".join(f"{t}{c}" for t, c in item["counts"].items() if c)] if typed else []
            numbers = [f"{item[k]:,}" for k in ("positions", "solvable", "unique", "all_moves")]
            rows.append((str(item["pieces"]), *counts, *numbers, f"{item['seconds']:.2f}"))
        return Report(title, heads, tuple(rows))

    def checked(self, results: LayeredResults, sample: int, seed: int) -> tuple[Verification, str]:
        found = results.verify(sample, seed)
        return found, f"{found.layers} layers, {found.files} files, {found.ranks:,} ranks re-derived"

    # -- selecting -----------------------------------------------------------------------------

    def selection(self, results: LayeredResults, keywords: dict[str, Any]) -> tuple[list[Level], int | None]:
        chosen = results.selection(**keywords)
        return chosen.levels, chosen.matched

    def count(self, results: LayeredResults, keywords: dict[str, Any]) -> tuple[int, dict[str, int]]:
        per_layer = results.count_by_layer(**keywords)
        return sum(per_layer.values()), per_layer

    def nearest(self, results: LayeredResults, keywords: dict[str, Any], name: Naming = same_name
                ) -> str | None:
        filters = {k: v for k, v in keywords.items() if k in FILTERS and k != "pieces"}
        stored = results.count_by_layer(**filters)
        layers = {record.layer.key: record.layer.pieces for record in results.store.records()}
        pieces = sorted({layers[key] for key, count in stored.items() if count})
        given = ", ".join(name(k) for k in filters) or "no filter"
        if not pieces:
            return f"no stored position matches {given} with any number of pieces"
        return f"positions with {given} are stored with {pieces[0]}..{pieces[-1]} pieces"

    def items_report(self, results: LayeredResults, items: Sequence[Level], matched: int | None,
                     keywords: dict[str, Any]) -> Report:
        puzzle = results.puzzle
        of = "" if matched is None else f" of {matched:,} matching"
        title = f"{puzzle.name}: {len(items)} level{'' if len(items) == 1 else 's'}{of}"
        heads = (*([Column("layer", right=False)] if puzzle.typed else ()),
                 *columns("rank", "pieces", "solutions", "legal", "safe", "difficulty", "win", "info",
                          min_width=True),
                 Column("board", right=False, no_wrap=True), Column("solution", right=False))
        rows = []
        for level in items:
            report = level.report
            rows.append((
                *([level.layer] if puzzle.typed else []),
                str(level.rank), str(level.pieces), f"{report.solutions:,}", str(report.legal_moves),
                str(report.safe_moves), difficulty_text(level.difficulty),
                chance_text(level.win_chance), _figure(level.information, "{:.1f}"),
                draw(puzzle, level.position),
                moves_text(puzzle, report.solution, level.position) or "-",
            ))
        return Report(title, heads, tuple(rows), lines=True, width=160)

    def item_text(self, puzzle: Puzzle, item: Level | StoredPosition) -> str:
        return _stored_text(puzzle, item) if isinstance(item, StoredPosition) else _level_text(puzzle, item)

    def solve(self, puzzle: Puzzle, position: Any, directory: Path | None,
              name: Naming = same_name, search: Search | None = None) -> tuple[Level, Path | None]:
        search = search or Search()
        stored = puzzle_results(puzzle, directory, name)
        if stored is None:
            return solve_position(puzzle, position, search=search), None
        return stored.solve(position, search.search_limit, search.progress, search.note), stored.directory

    def warm(self, results: LayeredResults) -> None:
        """Select one level and list its variants: the workspace's editor runs the variants'
        code too, which would otherwise compile on its first request after an install."""
        levels, _ = self.selection(results, {"limit": 1})
        if levels:
            self.variants(results, levels[0].position, self.variant_wants[0], 1)

    def variants(self, results: LayeredResults, position: Any, want: str, limit: int,
                 search: Search | None = None, progress: Callable[[int, int], None] | None = None,
                 ) -> Variants:
        return results.variation(position, want, limit, search, progress)

    # -- packs ---------------------------------------------------------------------------------

    def pack(self, results: LayeredResults, size: int, curve: Any, pool: int | None, seed: int,
             keywords: dict[str, Any], progress: Callable[[int, int], None] | None = None) -> Any:
        chosen: dict[str, Any] = {"pool": pool} if pool is not None else {}
        return results.pack(size, curve, seed=seed, progress=progress, **chosen, **keywords)

    def pack_report(self, results: LayeredResults, pack: Any) -> Report:
        puzzle = results.puzzle
        title = f"{puzzle.name}: {len(pack)} levels along {pack.curve} from a pool of {pack.pool:,}"
        where: Sequence[str] = ("layer", "rank") if puzzle.typed else ("rank",)
        heads = (*columns("slot", "target", "difficulty", "pieces", *where), Column("solutions"),
                 Column("first move", right=False))
        rows = []
        for number, slot in enumerate(pack.slots, start=1):
            level = slot.level
            where = [level.layer, str(level.rank)] if puzzle.typed else [str(level.rank)]
            rows.append((str(number), f"{slot.target:.2f}", difficulty_text(level.difficulty),
                         str(level.pieces), *where, f"{level.solutions:,}",
                         moves_text(puzzle, level.report.solution[:1], level.position) or "-"))
        return Report(title, heads, tuple(rows), width=160)

    def measures(self, results: LayeredResults, items: Sequence[Any]) -> tuple[Any, Any, Any]:
        lookaheads = grid()
        found = np.zeros((len(items), len(lookaheads), FIGURES))
        ok = np.zeros(len(items), dtype=bool)
        groups = np.zeros(len(items), dtype=np.int64)
        goal = results.puzzle.goal.pieces
        for i, item in enumerate(items):
            position = results.position(item)
            graph = results.explorer.graph(position, GRAPH_LIMIT)
            groups[i] = sum(1 for v in position if v)
            if graph is None or graph.pieces == goal:
                continue
            measured = measure(graph, goal, results.explorer.report(position), lookaheads)
            if measured is not None:
                found[i], ok[i] = measured, True
        return found, ok, groups

    def playtested(self, results: LayeredResults, key: str) -> Any:
        try:
            return results.position([int(value) for value in key.split(",")])
        except ValueError:
            raise SelectionError(f"level {key[:40]!r}: not a position's entries joined by commas") from None

    def solvable(self, results: LayeredResults, key: str) -> bool:
        return results.status(self.playtested(results, key)).solvable

    def detail(self, results: LayeredResults) -> dict[str, Any]:
        puzzle = results.puzzle
        return {"layers": results.summary()["layers"],
                "board": {"grid": puzzle.board.grid, "cells": list(puzzle.board.cells),
                          "piece_types": list(puzzle.piece_types), "family": puzzle.rules.family,
                          "goal_pieces": puzzle.goal.pieces}}


def _figure(value: float | int | None, style: str) -> str:
    """A player figure for people; "-" where there is none."""
    return "-" if value is None else style.format(value)


def _level_text(puzzle: Puzzle, level: Level) -> str:
    """A level in plain text: the board, its status, metrics and one solution."""
    report = level.report
    return "\n".join([
        draw(puzzle, level.position),
        "",
        f"layer {level.layer}, rank {level.rank}, {level.pieces} pieces",
        f"solvable: {yes(report.solvable)}   unique: {yes(report.unique)}   "
        f"all moves: {yes(report.all_moves)}",
        f"solutions: {report.solutions:,}",
        f"legal first moves: {report.legal_moves}   safe first moves: {report.safe_moves}",
        f"win chance (random moves): {chance_text(level.win_chance)}   "
        f"information: {_figure(level.information, '{:.2f}')} bits",
        f"decision points: {_figure(level.decisions, '{}')}   forced steps: {_figure(level.forced, '{}')}",
        f"mistake depth: mean {_figure(level.mistake_depth, '{:.2f}')}, "
        f"max {_figure(level.mistake_depth_max, '{}')}   search: {_figure(level.search, '{:,.1f}')}",
        f"class size: {level.class_size}",
        f"difficulty: {difficulty_text(level.difficulty)}",
        f"solution: {moves_text(puzzle, report.solution, level.position) or '-'}",
    ])


def _stored_text(puzzle: Puzzle, found: StoredPosition) -> str:
    """A stored position in plain text: the board and its three stored properties."""
    return "\n".join([
        draw(puzzle, found.position),
        "",
        f"layer {found.layer}, rank {found.rank}, {found.pieces} pieces",
        f"solvable: {yes(found.solvable)}   unique: {yes(found.unique)}   all moves: {yes(found.all_moves)}",
    ])


KIND = LayeredKind()

__all__ = ["KIND", "LayeredKind", "sweep_depth"]
