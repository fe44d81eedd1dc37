"""Command line of curator: analyze puzzles, inspect, select and export levels.

Errors are one line on stderr: bad input (puzzle files, arguments) exits 2, failures while
running (damaged results, a full disk) exit 1.
"""

from __future__ import annotations

import contextlib
import functools
import json
from collections.abc import Callable
from pathlib import Path

import numba
import typer
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeRemainingColumn,
)
from rich.table import Table

from curator import __version__
from curator.layered import select as selecting
from curator.layered.analysis import Estimate, Shortfall, analyze, estimate, resource_shortfalls, shortfalls
from curator.layered.cluster import ClusterError, ClusterExecutor, check_address
from curator.distance.analysis import analyze_distances
from curator.distance.puzzle import PermutationPuzzle, is_permutation_file, load_permutation_puzzle
from curator.distance.report import distances_table, positions_table
from curator.distance.select import parse_distance_range, select_positions
from curator.distance.store import TABLE_FILE, DistanceStore, holds_distances
from curator.layered.puzzle import PuzzleError, load_puzzle
from curator.layered.space import Layer, StateSpace
from curator.layered.store import LayerStore, StoreError
from curator.layered.verify import DEFAULT_SAMPLE, verify

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
        except (StoreError, ClusterError) as exc:
            raise _fail(1, str(exc))
        except OSError as exc:
            where = f"{exc.filename}: " if exc.filename else ""
            raise _fail(1, f"{where}{exc.strerror or exc}")
        except MemoryError:
            raise _fail(1, "out of memory")

    return wrapper


def _bytes(n: int) -> str:
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if n < 1024 or unit == "TiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    raise AssertionError


class _RichReporter:
    """Shows one progress bar per layer on a terminal, one line per finished layer elsewhere
    (a log file or CI output, where bars would only appear when the command ends)."""

    def __init__(self, progress: Progress, lines: bool) -> None:
        self.progress = progress
        self.lines = lines
        self.tasks: dict[Layer, TaskID] = {}
        self.current: Layer | None = None

    def layer_started(self, layer: Layer) -> None:
        self.tasks[layer] = self.progress.add_task(layer.key, total=layer.size)
        self.current = layer

    def advance(self, positions: int) -> None:
        self.progress.advance(self.tasks[self.current], positions)

    def layer_finished(self, layer: Layer, entry: dict, kept: bool) -> None:
        note = " (kept)" if kept else f" ({entry['seconds']:.1f} s)"
        self.progress.update(self.tasks[layer], completed=layer.size, description=layer.key + note)
        if self.lines:
            noun = "position" if layer.size == 1 else "positions"
            self.progress.console.print(f"{layer.key}: {layer.size:,} {noun}{note}", highlight=False)


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
    puzzle_file: Path, output: Path | None, max_pieces: int | None, threads: int, force: bool,
    ignore_limits: bool,
) -> None:
    """`analyze` for a permutation puzzle: its distance table."""
    if max_pieces is not None:
        raise UsageError("--max-pieces does not apply to a permutation puzzle")
    puzzle = load_permutation_puzzle(puzzle_file)
    directory = _results_folder(output, puzzle.name)
    table_bytes = (puzzle.size + 1) // 2
    err.print(
        f"{puzzle.name}: {puzzle.size:,} positions, {len(puzzle.moves)} moves "
        f"({puzzle.metric} metric); {_bytes(table_bytes)} on disk; {threads} threads",
        highlight=False,
    )
    if not (force or ignore_limits):
        # The sweep holds the table in memory; an existing table file is replaced in place.
        table = directory / TABLE_FILE
        written = min(table.stat().st_size, table_bytes) if table.is_file() else 0
        _refuse_shortfalls(f"{puzzle.name}'s distance table",
                           shortfalls(table_bytes, table_bytes - written, directory), "")
    store = analyze_distances(
        puzzle, directory, threads, force,
        lambda d, n: err.print(f"distance {d}: {n:,}", highlight=False), _warn,
    )
    out.print(distances_table(store))
    err.print(f"results in {directory}", highlight=False)


@app.command("analyze")
@friendly_errors
def analyze_command(
    puzzle_file: Path = typer.Argument(..., help="Puzzle file (TOML), e.g. puzzles/peg.toml."),
    output: Path | None = typer.Option(
        None, "--output", "-o", help="Results folder (default: output/<puzzle name>)."
    ),
    max_pieces: int | None = typer.Option(
        None, "--max-pieces", help="Sweep layers up to this many pieces (default: the file's max_pieces)."
    ),
    workers: int | None = typer.Option(
        None, "--workers", help="Threads to compute with (default: one per core)."
    ),
    force: bool = typer.Option(
        False, "--force", help="Recompute every layer, even finished ones (and skip the resource check)."
    ),
    ignore_limits: bool = typer.Option(
        False, "--ignore-limits", help="Run even if the estimate exceeds the free memory or disk."
    ),
    scheduler: str | None = typer.Option(
        None, "--scheduler", envvar="CURATOR_SCHEDULER", metavar="tcp://HOST:PORT",
        help="Sweep on the workers of this Dask scheduler; the results folder must be on storage "
        "they all share.",
    ),
) -> None:
    """Sweep every layer of a puzzle and store the solvable / unique / all-moves bits.

    For a permutation puzzle, sweep the distance of every position from the solved state.
    Finished layers are kept: running the same command again continues where it stopped.
    An analysis whose estimate exceeds the free memory or disk is refused (exit code 1).
    """
    threads = numba.config.NUMBA_NUM_THREADS if workers is None else workers
    if not 1 <= threads <= numba.config.NUMBA_NUM_THREADS:
        raise UsageError(f"--workers must be between 1 and {numba.config.NUMBA_NUM_THREADS}, got {threads}")
    try:
        permutation = is_permutation_file(puzzle_file)
    except RecursionError:  # too deeply nested to parse: load_puzzle below reports it
        permutation = False
    if permutation:
        if scheduler:
            raise UsageError("--scheduler (CURATOR_SCHEDULER) does not apply to a permutation puzzle")
        return _analyze_distances(puzzle_file, output, max_pieces, threads, force, ignore_limits)
    if scheduler:
        try:
            check_address(scheduler)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
    puzzle = load_puzzle(puzzle_file)
    depth = puzzle.max_pieces if max_pieces is None else max_pieces
    total = sum(puzzle.piece_limits)
    if not puzzle.goal.pieces <= depth <= total:
        raise UsageError(f"--max-pieces must be between {puzzle.goal.pieces} and {total}, got {depth}")
    directory = _results_folder(output, puzzle.name)
    _print_estimate(puzzle.name, estimate(puzzle, depth), threads)
    if not (force or ignore_limits):
        _check_limits(puzzle, depth, directory)
    executor = _connect(scheduler) if scheduler else None
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn())
    try:
        lines = not err.is_terminal
        with Progress(*columns, console=err, transient=False, disable=lines) as progress:
            store = analyze(puzzle, directory, depth, threads, force, _RichReporter(progress, lines),
                            _warn, executor=executor)
    finally:
        if executor is not None:
            executor.close()
    out.print(_layers_table(_layers_json(store), len(puzzle.piece_types) > 1))
    err.print(f"results in {directory}", highlight=False)


def _results_folder(output: Path | None, name: str) -> Path:
    """The folder `--output` names (default output/NAME); UsageError if it is a file."""
    directory = output if output is not None else Path("output") / name
    if directory.exists() and not directory.is_dir():
        raise UsageError(f"--output {directory} is a file, not a folder")
    return directory


def _connect(address: str) -> ClusterExecutor:
    """The executor for `--scheduler`; ClusterError (exit 1) if the scheduler cannot be reached."""
    executor = ClusterExecutor.connect(address)
    err.print(f"sweeping on {executor.describe()}", highlight=False, soft_wrap=True)
    return executor


def _warn(message: str) -> None:
    err.print(f"warning: {message}", markup=False, highlight=False, soft_wrap=True)


def _check_limits(puzzle, depth: int, directory: Path) -> None:
    """Refuse up front an analysis that will not fit in the free memory or disk (exit 1)."""
    _refuse_shortfalls(f"{puzzle.name} up to {depth} pieces",
                       resource_shortfalls(puzzle, depth, directory), "lower --max-pieces, ")


def _refuse_shortfalls(what: str, short: list[Shortfall], advice: str) -> None:
    if short:
        figures = "; ".join(
            f"{s.resource}: needs about {_bytes(s.needed)}, {_bytes(s.free)} {s.where}" for s in short
        )
        raise _fail(
            1,
            f"{what} does not fit on this machine ({figures}); "
            f"{advice}free some space, or pass --ignore-limits to run anyway",
        )


@app.command("verify")
@friendly_errors
def verify_command(
    directory: Path = typer.Argument(..., help="Results folder written by `curator analyze`."),
    sample: int = typer.Option(
        DEFAULT_SAMPLE, "--sample", metavar="N", help="Ranks to re-derive per layer (0: checksums only)."
    ),
    seed: int = typer.Option(0, "--seed", help="Random seed for choosing the ranks."),
) -> None:
    """Check every stored file against its checksum and re-derive a sample of ranks.

    Each sampled position's bits are recomputed from its children's stored bits under the
    puzzle's rules. Exit code 1, with every problem and bad rank listed, if anything disagrees.
    """
    if sample < 0:
        raise UsageError(f"--sample must be at least 0, got {sample}")
    if holds_distances(directory):
        DistanceStore.open(directory).load()
        typer.echo(f"{directory}: distance table matches its checksum (ranks are not re-derived)")
        return
    result = verify(directory, sample, seed)
    shown = 50
    for problem in result.problems:
        err.print(problem, markup=False, highlight=False, soft_wrap=True)
    for bad in result.bad_ranks[:shown]:
        err.print(str(bad), markup=False, highlight=False, soft_wrap=True)
    if len(result.bad_ranks) > shown:
        err.print(f"... and {len(result.bad_ranks) - shown} more bad ranks", highlight=False)
    summary = (
        f"{result.layers} layers, {result.files} files, {result.ranks:,} ranks re-derived: "
        f"{len(result.problems)} problems, {len(result.bad_ranks)} bad ranks"
    )
    if not result.ok:
        raise _fail(1, f"verification failed: {summary}")
    typer.echo(f"{directory}: ok ({summary})")


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


# -- select, solve, show -------------------------------------------------------------------


@contextlib.contextmanager
def _usage_errors():
    try:
        yield
    except selecting.SelectionError as exc:
        raise UsageError(str(exc)) from None


LAYERED_OPTIONS = (
    "solvable", "unique", "all_moves", "pieces", "counts", "must_include", "must_exclude", "canonical",
    "sort", "count_only",
)
"""Options of `select` (and `export`) that apply to layered results only, not to distance tables."""


TRI_STATE = ("solvable", "unique", "all_moves")
"""Options that are given when True (--solvable) or False (--no-solvable)."""


def _given_flag(name: str, value: object) -> str | None:
    """How a selection option was given on the command line, or None if it was not."""
    if value is None or (value is False and name not in TRI_STATE):
        return None
    if name == "count_only":
        return "--count"
    return ("--" if value is not False else "--no-") + name.replace("_", "-")


def _refuse_distance(directory: Path, options: dict) -> None:
    """--distance on layered results is a usage error."""
    if options.get("distance") is not None:
        raise UsageError(
            f"--distance applies to distance tables of permutation puzzles; {directory} holds layered results"
        )


def _selected_positions(directory: Path, options: dict) -> tuple[PermutationPuzzle, list[dict], int]:
    """The puzzle, the positions `select --distance` lists for these options, and how many
    positions lie at those distances. Options for layered results are usage errors."""
    given = [flag for name in LAYERED_OPTIONS if (flag := _given_flag(name, options.get(name)))]
    if given:
        raise UsageError(
            f"{', '.join(given)} {'does' if len(given) == 1 else 'do'} not apply to the distance table in "
            f"{directory}; pick positions with --distance A..B (and --sample, --seed, --limit)"
        )
    if options.get("distance") is None:
        raise UsageError(f"{directory} holds a distance table: give --distance A..B (or A)")
    try:
        lo, hi = parse_distance_range(options["distance"])
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    sample, seed, limit = options.get("sample"), options.get("seed"), options.get("limit")
    with _usage_errors():
        if seed is not None and sample is None:
            raise selecting.SelectionError("--seed only applies with --sample")
        sample = selecting.parse_number(sample, "--sample", 1) if sample is not None else None
        seed = selecting.parse_number(seed, "--seed") if seed is not None else 0
        limit = selecting.parse_number(limit, "--limit", 1) if limit is not None else None
    store = DistanceStore.open(directory)
    positions = select_positions(directory, lo, hi, sample, seed, limit)
    return store.puzzle(), positions, sum(store.counts[lo : hi + 1])


def _print_positions(directory: Path, options: dict, as_json: bool) -> None:
    """`select DIR --distance A..B`: the positions as a table, or as JSON."""
    puzzle, positions, matched = _selected_positions(directory, options)
    if as_json:
        summary = {"puzzle": puzzle.name, "matched": matched, "positions": positions}
        typer.echo(json.dumps(summary, indent=1))
        return
    count = len(positions)
    span = options["distance"].strip()
    title = f"{puzzle.name}: {count} position{'' if count == 1 else 's'} of {matched:,} at distance {span}"
    out.print(positions_table(positions, title))


@app.command("distances")
@friendly_errors
def distances_command(
    directory: Path = typer.Argument(..., help="Results folder of a permutation puzzle."),
    distance: str = typer.Option(..., "--distance", metavar="A..B", help="Distances to pick: A..B, or A."),
    sample: str | None = typer.Option(None, "--sample", metavar="N", help="Draw N positions at random."),
    seed: str | None = typer.Option(None, "--seed", metavar="S", help="Random seed for --sample (0)."),
    limit: str | None = typer.Option(None, "--limit", metavar="N", help="Keep the first N positions."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON instead of a table."),
) -> None:
    """Same as `curator select DIR --distance A..B`: positions with an optimal solution."""
    options = {"distance": distance, "sample": sample, "seed": seed, "limit": limit}
    _print_positions(directory, options, as_json)


@app.command("select")
@friendly_errors
def select_command(
    directory: Path = typer.Argument(..., help="Results folder written by `curator analyze`."),
    solvable: bool | None = typer.Option(None, "--solvable/--no-solvable", help="Solvable or not."),
    unique: bool | None = typer.Option(None, "--unique/--no-unique", help="Uniquely solvable or not."),
    all_moves: bool | None = typer.Option(
        None, "--all-moves/--no-all-moves", help="All-moves-solvable or not."
    ),
    pieces: str | None = typer.Option(None, "--pieces", metavar="A..B", help="Piece counts, e.g. 5..7."),
    counts: str | None = typer.Option(
        None, "--counts", metavar="T=A..B,...", help="Per-type counts of typed puzzles, e.g. K=1,R=0..2."
    ),
    must_include: str | None = typer.Option(
        None, "--must-include", metavar="CELLS", help="Cells that must hold a piece: row,col;row,col."
    ),
    must_exclude: str | None = typer.Option(
        None, "--must-exclude", metavar="CELLS", help="Cells that must be empty: row,col;row,col."
    ),
    canonical: bool = typer.Option(False, "--canonical", help="One position per symmetry class."),
    distance: str | None = typer.Option(
        None, "--distance", metavar="A..B", help="Distances to solved (permutation puzzles' distance tables)."
    ),
    sample: str | None = typer.Option(None, "--sample", metavar="N", help="Draw N matches at random."),
    seed: str | None = typer.Option(None, "--seed", metavar="S", help="Random seed for --sample [0]."),
    sort: str | None = typer.Option(
        None, "--sort", metavar="METRIC[:desc]", help=f"Sort by {', '.join(selecting.SORT_METRICS)}."
    ),
    limit: str | None = typer.Option(None, "--limit", metavar="N", help="Keep the first N levels."),
    count_only: bool = typer.Option(False, "--count", help="Only count the matches per layer."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON instead of a table."),
) -> None:
    """Select levels from stored layers: filter, keep canonical ones, sample, sort, limit.

    See the README section "Selecting levels" for the order of these steps and the metrics.
    On the distance table of a permutation puzzle, `--distance A..B` picks positions (with
    --sample, --seed, --limit), each with an optimal solution.
    """
    options = {name: value for name, value in locals().items() if name != "directory"}
    if holds_distances(directory):
        return _print_positions(directory, options, as_json)
    _refuse_distance(directory, options)
    store = LayerStore.open(directory)
    puzzle = store.puzzle()
    with _usage_errors():
        filters = selecting.build_filters(
            puzzle, solvable, unique, all_moves, pieces, counts, must_include, must_exclude, canonical
        )
        if seed is not None and sample is None:
            raise selecting.SelectionError("--seed only applies with --sample")
        if count_only:
            per_layer = {layer.key: n for layer, n in selecting.count_matches(store, filters)}
            total = sum(per_layer.values())
            if as_json:
                summary = {"puzzle": puzzle.name, "matched": total, "layers": per_layer}
                typer.echo(json.dumps(summary, indent=1))
            else:
                typer.echo("\n".join([*(f"{k}: {n:,}" for k, n in per_layer.items()), f"total: {total:,}"]))
            return
        selection = selecting.select(
            store,
            filters,
            sample=selecting.parse_number(sample, "--sample", 1) if sample is not None else None,
            seed=selecting.parse_number(seed, "--seed") if seed is not None else 0,
            limit=selecting.parse_number(limit, "--limit", 1) if limit is not None else None,
            sort=selecting.parse_sort(sort) if sort is not None else None,
        )
    if as_json:
        levels = [selecting.level_json(puzzle, level) for level in selection.levels]
        summary = {"puzzle": puzzle.name, "matched": selection.matched, "levels": levels}
        typer.echo(json.dumps(summary, indent=1))
        return
    matched = "" if selection.matched is None else f" of {selection.matched:,} matching"
    count = len(selection.levels)
    title = f"{puzzle.name}: {count} level{'' if count == 1 else 's'}{matched}"
    out.print(selecting.levels_table(puzzle, selection.levels, title))


@app.command("solve")
@friendly_errors
def solve_command(
    puzzle_file: Path = typer.Argument(..., help="Puzzle file (TOML)."),
    board: str = typer.Option(
        ..., "--board", metavar="FILE|TEXT", help="The position drawn like the board art, or a file."
    ),
    results: Path | None = typer.Option(
        None, "--results", help="Stored results to prune with (default: output/<name> if present)."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print JSON instead of text."),
) -> None:
    """Solve one position: solvable / unique / all-moves, solution count and one solution."""
    puzzle = load_puzzle(puzzle_file)
    with _usage_errors():
        position = selecting.read_board(board, puzzle)
        store = selecting.results_for(puzzle, results)
    stored = selecting.stored_solvable(store) if store is not None else None
    level = selecting.solve_position(puzzle, position, stored)
    if as_json:
        data = selecting.level_json(puzzle, level)
        data["results"] = str(store.directory) if store is not None else None
        typer.echo(json.dumps(data, indent=1))
        return
    typer.echo(selecting.level_text(puzzle, level))


@app.command("show", context_settings={"ignore_unknown_options": True})
@friendly_errors
def show_command(
    directory: Path = typer.Argument(..., help="Results folder written by `curator analyze`."),
    rank: str = typer.Argument(..., help="Rank of the position within its layer."),
    pieces: str | None = typer.Option(None, "--pieces", metavar="K", help="The layer's piece count."),
    layer_key: str | None = typer.Option(
        None, "--layer", metavar="KEY", help="The layer's key (typed puzzles), e.g. k04-K1Q1R2."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print JSON instead of text."),
) -> None:
    """Draw one stored position with its solvable / unique / all-moves bits."""
    store = LayerStore.open(directory)
    puzzle = store.puzzle()
    with _usage_errors():
        count = selecting.parse_number(pieces, "--pieces") if pieces is not None else None
        layer = selecting.find_layer(store, count, layer_key)
        index = selecting.check_rank(layer, selecting.parse_number(rank, "RANK"))
    position = StateSpace(puzzle).unrank(layer, index)
    bits = selecting.stored_bits(store.load(layer, verify=False, mmap=True), index)
    if as_json:
        data = {**selecting.position_json(puzzle, layer.key, index, position), **bits}
        typer.echo(json.dumps(data, indent=1))
        return
    typer.echo(selecting.bits_text(puzzle, layer, index, position, bits))


# -- export --------------------------------------------------------------------------------

EXPORT_FORMATS = ("json", "csv", "svg", "png", "html")
SELECTION_OPTIONS = (
    "solvable", "unique", "all_moves", "pieces", "counts", "must_include", "must_exclude",
    "canonical", "distance", "sample", "seed", "sort", "limit",
)
"""The options of `select` that `export` takes too (the same flags, help and defaults)."""


def _with_selection_options(command: Callable) -> Callable:
    """Give `command` the selection options of `select` after its first argument; it gets
    them as keyword arguments. The options are read from `select_command`, so the two
    commands always filter alike."""
    import inspect

    shared = inspect.signature(select_command, eval_str=True).parameters
    own = list(inspect.signature(command, eval_str=True).parameters.values())
    params = [own[0], *(shared[name] for name in SELECTION_OPTIONS)]
    params += [p for p in own[1:] if p.kind is not inspect.Parameter.VAR_KEYWORD]
    command.__signature__ = inspect.Signature(params, return_annotation=None)
    command.__annotations__ = {p.name: p.annotation for p in params}
    return command


def _selected_levels(store: LayerStore, options: dict) -> list:
    """The levels `curator select` would list for these options."""
    puzzle = store.puzzle()
    o = options
    with _usage_errors():
        filters = selecting.build_filters(
            puzzle, o["solvable"], o["unique"], o["all_moves"], o["pieces"], o["counts"],
            o["must_include"], o["must_exclude"], o["canonical"],
        )
        if o["seed"] is not None and o["sample"] is None:
            raise selecting.SelectionError("--seed only applies with --sample")
        selection = selecting.select(
            store,
            filters,
            sample=selecting.parse_number(o["sample"], "--sample", 1) if o["sample"] is not None else None,
            seed=selecting.parse_number(o["seed"], "--seed") if o["seed"] is not None else 0,
            limit=selecting.parse_number(o["limit"], "--limit", 1) if o["limit"] is not None else None,
            sort=selecting.parse_sort(o["sort"]) if o["sort"] is not None else None,
        )
    return selection.levels


@app.command("export")
@friendly_errors
@_with_selection_options
def export_command(
    directory: Path = typer.Argument(..., help="Results folder written by `curator analyze`."),
    fmt: str = typer.Option(
        ..., "--format", "-f", metavar="|".join(EXPORT_FORMATS), help="What to write (see below)."
    ),
    out_path: Path = typer.Option(..., "--out", "-o", help="File to write, or folder for svg/png."),
    **selection,
) -> None:
    """Export selected levels (same filters as `select`) for a game engine or a designer.

    json: a level pack (docs/level-pack.md); csv: one row per level; svg, png: one picture
    per level into the folder --out (or the file --out for a single level); html: one
    self-contained gallery page with every level's picture, metrics and solution. On the
    distance table of a permutation puzzle, the positions `select --distance A..B` lists.
    """
    from curator.export import WRITERS, ExportError
    from curator.export.distance import WRITERS as DISTANCE_WRITERS

    if fmt not in WRITERS:
        raise UsageError(f"--format must be one of {', '.join(EXPORT_FORMATS)}, got {fmt!r}")
    if holds_distances(directory):
        puzzle, items, _ = _selected_positions(directory, selection)
        writer, noun = DISTANCE_WRITERS[fmt], "position"
    else:
        _refuse_distance(directory, selection)
        store = LayerStore.open(directory)
        items = _selected_levels(store, selection)
        puzzle = store.puzzle()
        writer, noun = WRITERS[fmt], "level"
    if fmt in ("json", "csv", "html") or out_path.suffix.lower() == f".{fmt}":
        out_path.parent.mkdir(parents=True, exist_ok=True)
    try:
        written = writer(puzzle, items, out_path)
    except ExportError as exc:
        raise UsageError(str(exc))
    where = out_path if len(written) == 1 else f"{len(written)} files in {out_path}"
    err.print(f"{len(items)} {noun}{'' if len(items) == 1 else 's'} written to {where}", highlight=False)
