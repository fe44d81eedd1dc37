"""Command line of curator: analyze puzzles, inspect, select and export levels.

Errors are one line on stderr: bad input (puzzle files, arguments) exits 2, failures while
running (damaged results, a full disk) exit 1.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from pathlib import Path

import numba
import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

from curator import __version__
from curator.analysis import Estimate, analyze, estimate
from curator.distance.analysis import analyze_distances
from curator.distance.puzzle import is_permutation_file, load_permutation_puzzle
from curator.distance.report import distances_table, positions_table
from curator.distance.select import parse_distance_range, select_positions
from curator.distance.store import DistanceStore, holds_distances
from curator.puzzle import PuzzleError, load_puzzle
from curator.space import Layer
from curator.store import LayerStore, StoreError

app = typer.Typer(
    help="Retrograde analysis of board puzzles: find solvable, uniquely solvable and "
    "all-moves-solvable positions, then select and export levels.",
    no_args_is_help=True,
    add_completion=False,
)
out = Console()
err = Console(stderr=True)


class UsageError(ValueError):
    """A command-line argument is wrong (exit code 2)."""


def _version(value: bool) -> None:
    if value:
        typer.echo(f"curator {__version__}")
        raise typer.Exit()


@app.callback()
def main(
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Print the version and exit."
    ),
) -> None:
    """curator: puzzle analysis and level curation."""


def _fail(code: int, message: str) -> typer.Exit:
    err.print(f"error: {message}", markup=False, highlight=False, soft_wrap=True)
    return typer.Exit(code)


def friendly_errors(command: Callable) -> Callable:
    """Turn the product's expected errors into one line on stderr and an exit code."""

    @functools.wraps(command)
    def wrapper(*args, **kwargs):
        try:
            return command(*args, **kwargs)
        except (PuzzleError, UsageError) as exc:
            raise _fail(2, str(exc))
        except StoreError as exc:
            raise _fail(1, str(exc))
        except OSError as exc:
            where = f"{exc.filename}: " if exc.filename else ""
            raise _fail(1, f"{where}{exc.strerror or exc}")

    return wrapper


def _bytes(n: int) -> str:
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if n < 1024 or unit == "TiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    raise AssertionError


class _RichReporter:
    """Shows one progress bar per layer."""

    def __init__(self, progress: Progress) -> None:
        self.progress = progress
        self.task = None

    def layer_started(self, layer: Layer) -> None:
        self.task = self.progress.add_task(layer.key, total=layer.size)

    def advance(self, positions: int) -> None:
        self.progress.advance(self.task, positions)

    def layer_finished(self, layer: Layer, entry: dict, kept: bool) -> None:
        note = " (kept)" if kept else f" ({entry['seconds']:.1f} s)"
        self.progress.update(self.task, completed=layer.size, description=layer.key + note)


def _layers_json(store: LayerStore) -> dict:
    typed = len(store.manifest["piece_types"]) > 1
    layers = []
    for record in store.records():
        e = record.entry
        item = {k: e[k] for k in ("pieces", "positions", "solvable", "unique", "all_moves", "seconds")}
        if typed:
            item["counts"] = e["counts"]
        layers.append(item)
    return {"puzzle": store.manifest["puzzle"], "complete": store.manifest["complete"], "layers": layers}


def _layers_table(summary: dict, typed: bool) -> Table:
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


def _print_estimate(name: str, est: Estimate, workers: int) -> None:
    err.print(
        f"{name}: {est.layers} layers, {est.positions:,} positions; "
        f"{_bytes(est.disk_bytes)} on disk, about {_bytes(est.peak_memory_bytes)} of memory; "
        f"{workers} threads",
        highlight=False,
        soft_wrap=True,
    )


def _analyze_distances(
    puzzle_file: Path, output: Path | None, max_pieces: int | None, threads: int, force: bool
) -> None:
    """`analyze` for a permutation puzzle: its distance table."""
    if max_pieces is not None:
        raise UsageError("--max-pieces does not apply to a permutation puzzle")
    puzzle = load_permutation_puzzle(puzzle_file)
    directory = output if output is not None else Path("output") / puzzle.name
    err.print(
        f"{puzzle.name}: {puzzle.size:,} positions, {len(puzzle.moves)} moves "
        f"({puzzle.metric} metric); {_bytes((puzzle.size + 1) // 2)} on disk; {threads} threads",
        highlight=False,
    )
    store = analyze_distances(
        puzzle, directory, threads, force, lambda d, n: err.print(f"distance {d}: {n:,}", highlight=False)
    )
    out.print(distances_table(store))
    err.print(f"results in {directory}", highlight=False)


@app.command("analyze")
@friendly_errors
def analyze_command(
    puzzle_file: Path = typer.Argument(..., help="Puzzle file (TOML), e.g. puzzles/peg.toml."),
    output: Path | None = typer.Option(
        None, "--output", "-o", help="Results folder [default: output/<puzzle name>]."
    ),
    max_pieces: int | None = typer.Option(
        None, "--max-pieces", help="Sweep layers up to this many pieces [default: the file's max_pieces]."
    ),
    workers: int | None = typer.Option(
        None, "--workers", help="Threads to compute with [default: one per core]."
    ),
    force: bool = typer.Option(False, "--force", help="Recompute every layer, even finished ones."),
) -> None:
    """Sweep every layer of a puzzle and store the solvable / unique / all-moves bits.

    For a permutation puzzle, sweep the distance of every position from the solved state.
    Finished layers are kept: running the same command again continues where it stopped.
    """
    threads = numba.config.NUMBA_NUM_THREADS if workers is None else workers
    if not 1 <= threads <= numba.config.NUMBA_NUM_THREADS:
        raise UsageError(f"--workers must be between 1 and {numba.config.NUMBA_NUM_THREADS}, got {threads}")
    if is_permutation_file(puzzle_file):
        return _analyze_distances(puzzle_file, output, max_pieces, threads, force)
    puzzle = load_puzzle(puzzle_file)
    depth = puzzle.max_pieces if max_pieces is None else max_pieces
    total = sum(puzzle.piece_limits)
    if not puzzle.goal.pieces <= depth <= total:
        raise UsageError(f"--max-pieces must be between {puzzle.goal.pieces} and {total}, got {depth}")
    directory = output if output is not None else Path("output") / puzzle.name
    _print_estimate(puzzle.name, estimate(puzzle, depth), threads)
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn())
    with Progress(*columns, console=err, transient=False) as progress:
        store = analyze(puzzle, directory, depth, threads, force, _RichReporter(progress))
    out.print(_layers_table(_layers_json(store), puzzle.typed))
    err.print(f"results in {directory}", highlight=False)


@app.command("info")
@friendly_errors
def info_command(
    directory: Path = typer.Argument(..., help="Results folder written by `curator analyze`."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON instead of a table."),
) -> None:
    """Show the counts per layer (or per distance) of an analysis from its manifest."""
    if holds_distances(directory):
        distances = DistanceStore.open(directory)
        if as_json:
            typer.echo(json.dumps(distances.summary(), indent=1))
        else:
            out.print(distances_table(distances))
        return
    store = LayerStore.open(directory)
    summary = _layers_json(store)
    if as_json:
        typer.echo(json.dumps(summary, indent=1))
    else:
        out.print(_layers_table(summary, len(store.manifest["piece_types"]) > 1))


@app.command("distances")
@friendly_errors
def distances_command(
    directory: Path = typer.Argument(..., help="Results folder of a permutation puzzle."),
    distance: str = typer.Option(..., "--distance", help="Distances to pick: A..B, or A."),
    sample: int | None = typer.Option(None, "--sample", help="Pick at most N positions at random."),
    seed: int | None = typer.Option(None, "--seed", help="Random seed for --sample."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON instead of a table."),
) -> None:
    """Positions of a distance table at distances A..B, each with an optimal solution."""
    try:
        lo, hi = parse_distance_range(distance)
    except ValueError as exc:
        raise UsageError(str(exc))
    if sample is not None and sample < 1:
        raise UsageError(f"--sample must be at least 1, got {sample}")
    positions = select_positions(directory, lo, hi, sample, seed)
    if as_json:
        typer.echo(json.dumps(positions, indent=1))
    else:
        out.print(positions_table(positions))
