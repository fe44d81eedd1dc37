"""What the command line prints: tables and plain text of layers, levels and positions.

`--json` prints the same data as JSON instead (see the API's `to_json` and `layers`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich.table import Table

from curator.arrange import Pack
from curator.common.errors import DamagedResults, FolderRefused
from curator.distance.puzzle import state_text
from curator.layered.level import Level, difficulty_text, draw, moves_text
from curator.layered.puzzle import Puzzle
from curator.layered.results import StoredPosition
from curator.options import option_name


def layers_table(summary: dict, typed: bool) -> Table:
    """The layers of an analysis: positions, the three counts and seconds per layer."""
    table = Table(title=f"{summary['puzzle']}" + ("" if summary["complete"] else " (incomplete)"))
    table.add_column("pieces", justify="right")
    if typed:
        table.add_column("counts")
    for name in ("positions", "solvable", "unique", "all moves", "seconds"):
        table.add_column(name, justify="right")
    for item in summary["layers"]:
        counts = [" ".join(f"{t}{c}" for t, c in item["counts"].items() if c)] if typed else []
        numbers = [f"{item[k]:,}" for k in ("positions", "solvable", "unique", "all_moves")]
        table.add_row(str(item["pieces"]), *counts, *numbers, f"{item['seconds']:.2f}")
    return table


def levels_table(puzzle: Puzzle, levels: Sequence[Level], title: str) -> Table:
    """Selected levels as a table: rank, pieces, metrics, the board and one solution."""
    table = Table(title=title, show_lines=True)
    if puzzle.typed:
        table.add_column("layer")
    for name in ("rank", "pieces", "solutions", "legal", "safe", "difficulty", "win", "info"):
        table.add_column(name, justify="right", min_width=len(name))
    table.add_column("board", no_wrap=True)
    table.add_column("solution")
    for level in levels:
        report = level.report
        layer = [level.layer] if puzzle.typed else []
        table.add_row(
            *layer,
            str(level.rank),
            str(level.pieces),
            f"{report.solutions:,}",
            str(report.legal_moves),
            str(report.safe_moves),
            difficulty_text(level.difficulty),
            _figure(level.win_chance, "{:.1%}"),
            _figure(level.information, "{:.1f}"),
            draw(puzzle, level.position),
            moves_text(puzzle, report.solution) or "-",
        )
    return table


def pack_table(puzzle: Puzzle, pack: Pack) -> Table:
    """The slots of a pack: target and achieved difficulty, the level and its first move."""
    title = f"{puzzle.name}: {len(pack)} levels along {pack.curve} from a pool of {pack.pool:,}"
    table = Table(title=title)
    for name in ("slot", "target", "difficulty", "pieces", "layer" if puzzle.typed else "rank"):
        table.add_column(name, justify="right")
    if puzzle.typed:
        table.add_column("rank", justify="right")
    table.add_column("solutions", justify="right")
    table.add_column("first move")
    for number, slot in enumerate(pack.slots, start=1):
        level = slot.level
        where = [level.layer, str(level.rank)] if puzzle.typed else [str(level.rank)]
        table.add_row(str(number), f"{slot.target:.2f}", difficulty_text(level.difficulty), str(level.pieces),
                      *where, f"{level.solutions:,}", moves_text(puzzle, level.solution[:1]) or "-")
    return table


def level_text(puzzle: Puzzle, level: Level) -> str:
    """A level in plain text: the board, its status, metrics and one solution."""
    report = level.report
    lines = [
        draw(puzzle, level.position),
        "",
        f"layer {level.layer}, rank {level.rank}, {level.pieces} pieces",
        f"solvable: {_yes(report.solvable)}   unique: {_yes(report.unique)}   "
        f"all moves: {_yes(report.all_moves)}",
        f"solutions: {report.solutions:,}",
        f"legal first moves: {report.legal_moves}   safe first moves: {report.safe_moves}",
        f"win chance (random moves): {_figure(level.win_chance, '{:.2%}')}   "
        f"information: {_figure(level.information, '{:.2f}')} bits",
        f"decision points: {_figure(level.decisions, '{}')}   forced steps: {_figure(level.forced, '{}')}",
        f"mistake depth: mean {_figure(level.mistake_depth, '{:.2f}')}, "
        f"max {_figure(level.mistake_depth_max, '{}')}   search: {_figure(level.search, '{:,.1f}')}",
        f"class size: {level.class_size}",
        f"difficulty: {difficulty_text(level.difficulty)}",
        f"solution: {moves_text(puzzle, report.solution) or '-'}",
    ]
    return "\n".join(lines)


def _figure(value: float | int | None, style: str) -> str:
    """A player figure for people; "-" where there is none."""
    return "-" if value is None else style.format(value)


def stored_text(puzzle: Puzzle, found: StoredPosition) -> str:
    """A stored position in plain text: the board and its three stored properties."""
    return "\n".join([
        draw(puzzle, found.position),
        "",
        f"layer {found.layer}, rank {found.rank}, {found.pieces} pieces",
        f"solvable: {_yes(found.solvable)}   unique: {_yes(found.unique)}   "
        f"all moves: {_yes(found.all_moves)}",
    ])


def _yes(flag: bool) -> str:
    return "yes" if flag else "no"


def distances_table(summary: dict[str, Any], manifest: dict[str, Any]) -> Table:
    """Positions per distance, with what was not reached and the time taken."""
    title = f"{summary['puzzle']} ({manifest['metric']} metric)"
    if not summary["complete"]:
        title += " (incomplete)"
    table = Table(title=title, caption=f"{manifest.get('seconds', 0.0):.1f} s")
    table.add_column("distance", justify="right")
    table.add_column("positions", justify="right")
    for item in summary["distances"]:
        table.add_row(str(item["distance"]), f"{item['positions']:,}")
    if manifest.get("unreached"):
        table.add_row("not reached", f"{manifest['unreached']:,}")
    return table


def positions_table(items: list[dict[str, Any]], title: str | None = None) -> Table:
    """Selected positions: distance, rank, state and an optimal solution."""
    table = Table(title=title, caption=f"{len(items)} positions")
    for name in ("distance", "rank", "state", "solution"):
        table.add_column(name, justify="right" if name in ("distance", "rank") else "left")
    for item in items:
        table.add_row(
            str(item["distance"]), str(item["rank"]), state_text(item["state"]), " ".join(item["solution"])
        )
    return table


def sliding_table(summary: dict[str, Any]) -> Table:
    """Positions per distance of sliding-block tables, with the unique and all-moves ones, and
    the ranks that are not positions, the unsolvable positions and the connected sets."""
    title = f"{summary['puzzle']} ({summary['move']} moves, {summary['metric']} metric)"
    if not summary["complete"]:
        title += " (incomplete)"
    caption = None
    if summary["complete"]:
        caption = (f"{summary['positions']:,} positions in {summary['clusters']:,} connected sets "
                   f"(largest {summary['largest_cluster']:,}); {summary['invalid']:,} of "
                   f"{summary['ranks']:,} ranks are not positions")
    table = Table(title=title, caption=caption)
    for name in ("distance", "positions", "unique", "all moves"):
        table.add_column(name, justify="right")
    for item in summary["distances"]:
        table.add_row(str(item["distance"]), f"{item['positions']:,}", f"{item.get('unique', 0):,}",
                      f"{item.get('all_moves', 0):,}")
    if summary.get("unsolvable"):
        table.add_row("not solvable", f"{summary['unsolvable']:,}", "", "")
    return table


def sliding_levels_table(levels: Sequence[Any], title: str) -> Table:
    """Selected sliding-block levels: distance, flags, connected set, rank and drawing."""
    table = Table(title=title, caption=f"{len(levels)} level{'' if len(levels) == 1 else 's'}")
    for name in ("distance", "unique", "all moves", "cluster", "rank", "board"):
        table.add_column(name, justify="left" if name == "board" else "right")
    for level in levels:
        table.add_row(str(level.distance), _yes(level.unique), _yes(level.all_moves), f"{level.cluster:,}",
                      str(level.rank), "/".join(level.board))
    return table


def sliding_level_text(level: Any) -> str:
    """One sliding-block level as text: its drawing, figures and a shortest solution."""
    distance = "not solvable" if level.distance is None else f"distance {level.distance}"
    lines = [*level.board, "",
             f"rank {level.rank}: {distance}; unique: {_yes(level.unique)}; all moves: "
             f"{_yes(level.all_moves)}; connected set: {level.cluster:,} positions"]
    if level.solution:
        lines.append("solution: " + "; ".join(level.solution))
    return "\n".join(lines)


def _yes(flag: bool) -> str:
    return "yes" if flag else "no"


def sliding_pack_table(name: str, pack: Pack) -> Table:
    """The slots of a sliding-block pack: target and achieved distance, connected set, level."""
    table = Table(title=f"{name}: {len(pack)} levels along {pack.curve} from a pool of {pack.pool:,}")
    for column in ("slot", "target", "distance", "unique", "set", "cluster", "rank", "board"):
        table.add_column(column, justify="left" if column == "board" else "right")
    for number, slot in enumerate(pack.slots, start=1):
        level = slot.level
        table.add_row(str(number), f"{slot.target:.1f}", str(level.distance), _yes(level.unique),
                      str(level.connected_set), f"{level.cluster:,}", str(level.rank), "/".join(level.board))
    return table


def store_error_text(exc: FolderRefused | DamagedResults) -> str:
    """A store error whose remedy the command line words as its own options and commands."""
    if isinstance(exc, FolderRefused):
        return exc.spelled(option_name)
    analyze = f"`curator analyze {exc.puzzle_file} --output {exc.directory}"
    if exc.every_layer:
        return f"{exc.problem}; run `curator verify {exc.directory}`, then {analyze} --force`"
    return f"{exc.problem}; {analyze}` recomputes it"
