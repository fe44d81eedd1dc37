"""Command line of curator: analyze puzzles, inspect, select and export levels.

A thin layer over the Python API (`curator.api`): it turns option text into API values
(`curator.options`) and results into tables and text (`curator.cli.render`). Errors are
one line on stderr: bad input (puzzle files, arguments) exits 2, failures while running
(damaged results, a full disk, a machine too small) exit 1.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import typer
from rich.console import Console

from curator.api import (
    ResourceError,
    Results,
    analyze,
    load,
    results_class,
    sweep_depth,
    thread_count,
)
from curator.cli import render
from curator.common.errors import DamagedResults, FolderRefused, PuzzleError, SelectionError, StoreError
from curator.common.resources import bytes_text
from curator.distance.puzzle import PermutationPuzzle, is_permutation_file
from curator.distance.results import DistanceResults
from curator.export import FORMATS, ExportError
from curator.layered.analysis import estimate
from curator.layered.cluster import ClusterError, ClusterExecutor, check_address
from curator.layered.metrics import solve_position
from curator.layered.puzzle import Puzzle
from curator.layered.results import POOL_SIZE, LayeredResults, puzzle_results
from curator.layered.select import SORT_METRICS
from curator.layered.verify import DEFAULT_SAMPLE
from curator.options import (
    option_name,
    optional_number,
    parse_cells,
    parse_counts,
    parse_number,
    parse_range,
    read_board,
)
from curator.progress import count_progress, layer_progress
from curator.sliding.analysis import BYTES_PER_RANK
from curator.sliding.puzzle import SlidingPuzzle, is_sliding_file
from curator.sliding.results import SlidingResults
from curator.version import __version__

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
        except (PuzzleError, UsageError, SelectionError) as exc:
            raise _fail(2, str(exc))
        except (FolderRefused, DamagedResults) as exc:
            raise _fail(1, render.store_error_text(exc))
        except (StoreError, ClusterError) as exc:
            raise _fail(1, str(exc))
        except OSError as exc:
            where = f"{exc.filename}: " if exc.filename else ""
            raise _fail(1, f"{where}{exc.strerror or exc}")
        except MemoryError:
            raise _fail(1, "out of memory")

    return wrapper


def _open(directory: Path) -> Results:
    """The results in `directory`, naming keywords as this command line's options."""
    return results_class(directory)(directory, option_name)


# -- analyze, verify, info -------------------------------------------------------------------


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

    For a permutation puzzle, sweep the distance of every position from the solved state;
    for a sliding-block puzzle, the distance to the goal of every placement of its pieces,
    whether the shortest solution is unique, and the connected sets.
    Finished layers are kept: running the same command again continues where it stopped.
    An analysis whose estimate exceeds the free memory or disk is refused (exit code 1).
    """
    threads = thread_count(workers, option_name)
    if is_permutation_file(puzzle_file):
        if scheduler:
            raise UsageError("--scheduler (CURATOR_SCHEDULER) does not apply to a permutation puzzle")
        if max_pieces is not None:
            raise UsageError("--max-pieces does not apply to a permutation puzzle")
        return _analyze_distances(puzzle_file, output, threads, force, ignore_limits)
    if is_sliding_file(puzzle_file):
        if scheduler:
            raise UsageError("--scheduler (CURATOR_SCHEDULER) does not apply to a sliding-block puzzle")
        if max_pieces is not None:
            raise UsageError("--max-pieces does not apply to a sliding-block puzzle")
        return _analyze_sliding(puzzle_file, output, threads, force, ignore_limits)
    if scheduler:
        try:
            check_address(scheduler)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
    puzzle = load(puzzle_file)
    depth = sweep_depth(puzzle, max_pieces, option_name)
    directory = _results_folder(output, puzzle.name)
    _print_estimate(puzzle, depth, threads)
    executor = _connect(scheduler) if scheduler else None
    try:
        with _resource_errors("lower --max-pieces, "), layer_progress(err) as bars:
            results = analyze(puzzle_file, directory, depth, threads, force, ignore_limits=ignore_limits,
                              reporter=bars, executor=executor, warn=_warn)
    finally:
        if executor is not None:
            executor.close()
    out.print(render.layers_table(results.summary(), len(puzzle.piece_types) > 1))
    err.print(f"results in {directory}", highlight=False)


def _analyze_distances(puzzle_file: Path, output: Path | None, threads: int, force: bool,
                       ignore_limits: bool) -> None:
    """`analyze` for a permutation puzzle: its distance table."""
    puzzle = load(puzzle_file)
    directory = _results_folder(output, puzzle.name)
    table_bytes = (puzzle.size + 1) // 2
    err.print(
        f"{puzzle.name}: {puzzle.size:,} positions, {len(puzzle.moves)} moves "
        f"({puzzle.metric} metric); {bytes_text(table_bytes)} on disk; {threads} threads",
        highlight=False,
    )
    with _resource_errors(""):
        results = analyze(puzzle_file, directory, None, threads, force, ignore_limits=ignore_limits,
                          warn=_warn, distance_done=_print_distance)
    out.print(render.distances_table(results.summary(), results.store.manifest))
    err.print(f"results in {directory}", highlight=False)


def _analyze_sliding(puzzle_file: Path, output: Path | None, threads: int, force: bool,
                     ignore_limits: bool) -> None:
    """`analyze` for a sliding-block puzzle: its distance, flag and connected-set tables."""
    puzzle = load(puzzle_file)
    directory = _results_folder(output, puzzle.name)
    err.print(
        f"{puzzle.name}: {puzzle.size:,} ranks ({puzzle.move} moves, {puzzle.metric} metric); "
        f"{bytes_text(puzzle.size * BYTES_PER_RANK)} in memory and on disk; {threads} threads",
        highlight=False,
    )
    with _resource_errors(""):
        results = analyze(puzzle_file, directory, None, threads, force, ignore_limits=ignore_limits,
                          warn=_warn, distance_done=_print_distance)
    out.print(render.sliding_table(results.summary()))
    err.print(f"results in {directory}", highlight=False)


def _print_distance(distance: int, positions: int) -> None:
    err.print(f"distance {distance}: {positions:,}", highlight=False)


@contextlib.contextmanager
def _resource_errors(advice: str) -> Iterator[None]:
    """An analysis too large for the machine: one line with the figures and what to do."""
    try:
        yield
    except ResourceError as exc:
        raise _fail(1, f"{exc}; {advice}free some space, or pass --ignore-limits to run anyway") from None


def _results_folder(output: Path | None, name: str) -> Path:
    """The folder `--output` names (default output/NAME); UsageError if it is a file."""
    directory = output if output is not None else Path("output") / name
    if directory.exists() and not directory.is_dir():
        raise UsageError(f"--output {directory} is a file, not a folder")
    return directory


def _print_estimate(puzzle: Puzzle, depth: int, workers: int) -> None:
    est = estimate(puzzle, depth)
    err.print(
        f"{puzzle.name}: {est.layers} layers, {est.positions:,} positions; "
        f"{bytes_text(est.disk_bytes)} on disk, about {bytes_text(est.peak_memory_bytes)} of memory; "
        f"{workers} threads",
        highlight=False,
        soft_wrap=True,
    )


def _connect(address: str) -> ClusterExecutor:
    """The executor for `--scheduler`; ClusterError (exit 1) if the scheduler cannot be reached."""
    executor = ClusterExecutor.connect(address)
    err.print(f"sweeping on {executor.describe()}", highlight=False, soft_wrap=True)
    return executor


def _warn(message: str) -> None:
    err.print(f"warning: {message}", markup=False, highlight=False, soft_wrap=True)


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
    results = _open(directory)
    result = results.verify(sample, seed)
    if isinstance(results, DistanceResults):
        if not result.ok:
            raise StoreError(result.problems[0])
        typer.echo(f"{directory}: distance table matches its checksum (ranks are not re-derived)")
        return
    if isinstance(results, SlidingResults):
        if result.problems:
            raise StoreError(result.problems[0])
        for bad in result.bad_ranks[:50]:
            err.print(bad, markup=False, highlight=False, soft_wrap=True)
        summary = f"{result.files} tables match their checksums, {result.ranks:,} ranks re-derived"
        if result.bad_ranks:
            raise _fail(1, f"verification failed: {summary}, {len(result.bad_ranks)} bad ranks")
        typer.echo(f"{directory}: ok ({summary})")
        return
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
    results = _open(directory)
    summary = results.summary()
    if as_json:
        typer.echo(json.dumps(summary, indent=1))
    elif isinstance(results, DistanceResults):
        out.print(render.distances_table(summary, results.store.manifest))
    elif isinstance(results, SlidingResults):
        out.print(render.sliding_table(summary))
    else:
        out.print(render.layers_table(summary, len(results.puzzle.piece_types) > 1))


# -- select, solve, show -------------------------------------------------------------------

LAYERED_OPTIONS = (
    "solvable", "unique", "all_moves", "pieces", "counts", "must_include", "must_exclude", "canonical",
    "difficulty", "sort", "count_only",
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


def _choice(options: dict) -> dict[str, Any]:
    """--sample, --seed, --limit as API keywords."""
    return {
        "sample": optional_number(options.get("sample"), "--sample", 1),
        "seed": optional_number(options.get("seed"), "--seed"),
        "limit": optional_number(options.get("limit"), "--limit", 1),
    }


def _difficulty(options: dict) -> tuple[float, float] | None:
    """--difficulty A..B as the API's keyword."""
    text = options.get("difficulty")
    return None if text is None else parse_range(text, "--difficulty", "3..7.5", kind=float)


def _layered_keywords(options: dict, puzzle: Puzzle) -> dict[str, Any]:
    """The API's filter keywords for the selection options given on the command line."""
    o = options
    keywords: dict[str, Any] = {name: o[name] for name in TRI_STATE if o.get(name) is not None}
    if o.get("pieces") is not None:
        keywords["pieces"] = parse_range(o["pieces"], "--pieces")
    if o.get("counts") is not None:
        keywords["counts"] = parse_counts(o["counts"], puzzle)
    for name in ("must_include", "must_exclude"):
        if o.get(name) is not None:
            keywords[name] = parse_cells(o[name], option_name(name))
    if o.get("canonical"):
        keywords["canonical"] = True
    return keywords


def _distance_keywords(directory: Path, options: dict) -> dict[str, Any]:
    """The API's keywords for `select --distance` (layered options are usage errors)."""
    given = [flag for name in LAYERED_OPTIONS if (flag := _given_flag(name, options.get(name)))]
    if given:
        raise UsageError(
            f"{', '.join(given)} {'does' if len(given) == 1 else 'do'} not apply to the distance table in "
            f"{directory}; pick positions with --distance A..B (and --sample, --seed, --limit)"
        )
    if options.get("distance") is None:
        raise UsageError(f"{directory} holds a distance table: give --distance A..B (or A)")
    distance = parse_range(options["distance"], "--distance", example="8..11")
    if options.get("seed") is not None and options.get("sample") is None:
        raise UsageError("--seed only applies with --sample")
    return {"distance": distance, **_choice(options)}


SLIDING_OPTIONS = ("distance", "unique", "all_moves", "cluster", "hardest", "sample", "seed", "limit")
"""Options of `select` (and `export`) that apply to sliding-block tables."""


def _sliding_keywords(directory: Path, options: dict) -> dict[str, Any]:
    """The API's keywords for `select` on sliding-block tables (other options are usage errors)."""
    others = [name for name in options if name not in (*SLIDING_OPTIONS, "count_only", "as_json")]
    given = [flag for name in others if (flag := _given_flag(name, options[name]))]
    given += [f"--no-{name.replace('_', '-')}" for name in ("unique", "all_moves")
              if options.get(name) is False]
    if given:
        raise UsageError(
            f"{', '.join(given)} {'does' if len(given) == 1 else 'do'} not apply to the sliding-block "
            f"tables in {directory}; filter with --distance A..B, --unique, --all-moves, --cluster A..B, "
            "--hardest "
            "(and --sample, --seed, --limit)"
        )
    if options.get("seed") is not None and options.get("sample") is None:
        raise UsageError("--seed only applies with --sample")
    keywords: dict[str, Any] = {name: True for name in ("unique", "all_moves", "hardest")
                                if options.get(name)}
    for name in ("distance", "cluster"):
        if options.get(name) is not None:
            keywords[name] = parse_range(options[name], option_name(name), example="20..40")
    return keywords


def _selected(results: Results, options: dict) -> tuple[list, int | None]:
    """The levels (or distance positions) `select` lists for these options, and how many
    positions matched."""
    if isinstance(results, SlidingResults):
        keywords = _sliding_keywords(results.directory, options)
        chosen = results.selection(**keywords, **_choice(options))
        return chosen.levels, chosen.matched
    for name in ("cluster", "hardest"):
        if options.get(name):
            held = "a distance table" if isinstance(results, DistanceResults) else "layered results"
            raise UsageError(f"{option_name(name)} applies to sliding-block tables; {results.directory} "
                             f"holds {held}")
    if isinstance(results, DistanceResults):
        keywords = _distance_keywords(results.directory, options)
        return results.select(**keywords), results.count(keywords["distance"])
    if options.get("distance") is not None:
        raise UsageError(
            f"--distance applies to distance tables of permutation puzzles; {results.directory} holds "
            "layered results"
        )
    keywords = _layered_keywords(options, results.puzzle)
    selection = results.selection(**keywords, **_choice(options), sort=options.get("sort"),
                                  difficulty=_difficulty(options))
    return selection.levels, selection.matched


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
    _distance_keywords(directory, options)  # usage errors first, as for every command
    _print_selection(DistanceResults(directory, option_name), options, as_json)


def _print_selection(results: Results, options: dict, as_json: bool) -> None:
    items, matched = _selected(results, options)
    name = results.puzzle.name
    if as_json:
        key = "positions" if isinstance(results, DistanceResults) else "levels"
        data = {"puzzle": name, "matched": matched, key: [item.to_json() for item in items]}
        typer.echo(json.dumps(data, indent=1))
        return
    count = len(items)
    if isinstance(results, SlidingResults):
        title = f"{name}: {count} level{'' if count == 1 else 's'} of {matched:,} matching"
        out.print(render.sliding_levels_table(items, title), width=None if out.is_terminal else 200)
        return
    if isinstance(results, DistanceResults):
        span = options["distance"].strip()
        title = f"{name}: {count} position{'' if count == 1 else 's'} of {matched:,} at distance {span}"
        out.print(render.positions_table([i.to_json() for i in items], title))
        return
    of = "" if matched is None else f" of {matched:,} matching"
    title = f"{name}: {count} level{'' if count == 1 else 's'}{of}"
    # A file or a pipe gets the whole table, not one cut to 80 columns.
    out.print(render.levels_table(results.puzzle, items, title), width=None if out.is_terminal else 160)


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
    canonical: bool = typer.Option(
        False, "--canonical", help="One position per class: symmetries, and shifts where the rules allow."
    ),
    distance: str | None = typer.Option(
        None, "--distance", metavar="A..B",
        help="Distances to the goal (distance tables of permutation and sliding-block puzzles).",
    ),
    cluster: str | None = typer.Option(
        None, "--cluster", metavar="A..B", help="Sliding blocks: positions in the level's connected set.",
    ),
    hardest: bool = typer.Option(
        False, "--hardest", help="Sliding blocks: one level per connected set, the farthest from the goal.",
    ),
    sample: str | None = typer.Option(None, "--sample", metavar="N", help="Draw N matches at random."),
    seed: str | None = typer.Option(None, "--seed", metavar="S", help="Random seed for --sample [0]."),
    difficulty: str | None = typer.Option(
        None, "--difficulty", metavar="A..B", help="Keep levels whose difficulty lies in A..B (e.g. 3..7.5)."
    ),
    sort: str | None = typer.Option(
        None, "--sort", metavar="METRIC[:desc]", help=f"Sort by {', '.join(SORT_METRICS)}."
    ),
    limit: str | None = typer.Option(None, "--limit", metavar="N", help="Keep the first N levels."),
    count_only: bool = typer.Option(False, "--count", help="Only count the matches per layer."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON instead of a table."),
) -> None:
    """Select levels from stored layers: filter, keep canonical ones, sample, sort, limit.

    See the README section "Selecting levels" for the order of these steps and the metrics.
    On the distance table of a permutation puzzle, `--distance A..B` picks positions (with
    --sample, --seed, --limit), each with an optimal solution. On sliding-block tables,
    --distance, --unique, --all-moves, --cluster and --hardest pick levels, farthest first.
    """
    options = {name: value for name, value in locals().items() if name != "directory"}
    results = _open(directory)
    if count_only and isinstance(results, SlidingResults):
        matched = results.count(**_sliding_keywords(directory, options))
        data = {"puzzle": results.puzzle.name, "matched": matched}
        typer.echo(json.dumps(data, indent=1) if as_json else f"total: {matched:,}")
        return
    if count_only and isinstance(results, LayeredResults):
        if distance is not None:
            _selected(results, options)  # refuses --distance on layered results
        if seed is not None and sample is None:
            raise UsageError("--seed only applies with --sample")
        if difficulty is not None:
            raise UsageError("--difficulty needs each level's metrics; --count only counts the stored bits")
        per_layer = results.count_by_layer(**_layered_keywords(options, results.puzzle))
        total = sum(per_layer.values())
        if as_json:
            data = {"puzzle": results.puzzle.name, "matched": total, "layers": per_layer}
            typer.echo(json.dumps(data, indent=1))
        else:
            typer.echo("\n".join([*(f"{k}: {n:,}" for k, n in per_layer.items()), f"total: {total:,}"]))
        return
    _print_selection(results, options, as_json)


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
    puzzle = load(puzzle_file)
    if isinstance(puzzle, SlidingPuzzle):
        return _solve_sliding(puzzle, board, results, as_json)
    if isinstance(puzzle, PermutationPuzzle):
        raise UsageError("solve takes puzzles whose moves remove pieces; for a permutation puzzle use "
                         "`curator select DIR --distance A..B`")
    position = read_board(board, puzzle)
    stored = puzzle_results(puzzle, results, option_name)
    level = stored.solve(position) if stored is not None else solve_position(puzzle, position)
    if as_json:
        data = level.to_json()
        data["results"] = str(stored.directory) if stored is not None else None
        typer.echo(json.dumps(data, indent=1))
        return
    typer.echo(render.level_text(puzzle, level))


def _solve_sliding(puzzle: SlidingPuzzle, board: str, directory: Path | None, as_json: bool) -> None:
    """`solve` for a sliding-block puzzle: read from its stored tables."""
    directory = directory or Path("output") / puzzle.name
    try:
        stored = SlidingResults(directory, option_name)
    except StoreError:
        raise UsageError(f"no sliding-block tables in {directory}; run `curator analyze` on the puzzle "
                         "first, or give --results DIR") from None
    if stored.store.holds_other_puzzle(puzzle.sha256):
        raise UsageError(f"--results {directory}: holds results of another puzzle file "
                         f"({stored.store.manifest.get('puzzle')!r})")
    level = stored.show(stored.puzzle.rank(read_board(board, stored.puzzle)))
    if as_json:
        typer.echo(json.dumps({**level.to_json(), "results": str(directory)}, indent=1))
        return
    typer.echo(render.sliding_level_text(level))


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
    if isinstance(stored := _open(directory), SlidingResults):
        level = stored.show(parse_number(rank, "RANK"), optional_number(pieces, "--pieces"), layer_key)
        typer.echo(json.dumps(level.to_json(), indent=1) if as_json else render.sliding_level_text(level))
        return
    results = LayeredResults(directory, option_name)  # a distance table has no layers to show
    found = results.show(parse_number(rank, "RANK"), optional_number(pieces, "--pieces"), layer_key)
    if as_json:
        typer.echo(json.dumps(found.to_json(), indent=1))
        return
    typer.echo(render.stored_text(results.puzzle, found))


# -- export --------------------------------------------------------------------------------

SELECTION_OPTIONS = (
    "solvable", "unique", "all_moves", "pieces", "counts", "must_include", "must_exclude",
    "canonical", "distance", "cluster", "hardest", "sample", "seed", "difficulty", "sort", "limit",
)
"""The options of `select` that `export` takes too (the same flags, help and defaults)."""


PACK_FILTERS = ("solvable", "unique", "all_moves", "pieces", "counts", "must_include", "must_exclude",
                "distance", "cluster", "hardest")
"""The options of `select` that say which levels `pack` may choose from."""


def _with_selection_options(names: tuple[str, ...]) -> Callable[[Callable], Callable]:
    """Give a command the options `names` of `select` after its first argument; it gets
    them as keyword arguments. The options are read from `select_command`, so the commands
    always filter alike."""
    def decorate(command: Callable) -> Callable:
        shared = inspect.signature(select_command, eval_str=True).parameters
        own = list(inspect.signature(command, eval_str=True).parameters.values())
        params = [own[0], *(shared[name] for name in names)]
        params += [p for p in own[1:] if p.kind is not inspect.Parameter.VAR_KEYWORD]
        command.__signature__ = inspect.Signature(params, return_annotation=None)
        command.__annotations__ = {p.name: p.annotation for p in params}
        return command

    return decorate


def _format(fmt: str) -> str:
    if fmt not in FORMATS:
        raise UsageError(f"--format must be one of {', '.join(FORMATS)}, got {fmt!r}")
    return fmt


@app.command("export")
@friendly_errors
@_with_selection_options(SELECTION_OPTIONS)
def export_command(
    directory: Path = typer.Argument(..., help="Results folder written by `curator analyze`."),
    fmt: str = typer.Option(
        ..., "--format", "-f", metavar="|".join(FORMATS), help="What to write (see below)."
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
    _format(fmt)
    results = _open(directory)
    items, _ = _selected(results, selection)
    noun = "position" if isinstance(results, DistanceResults) else "level"
    _write(results, items, fmt, out_path, f"{len(items)} {noun}{'' if len(items) == 1 else 's'}")


def _write(results: Results, items: Any, fmt: str, out_path: Path, what: str) -> None:
    """Export `items` and say on stderr where they went."""
    try:
        written = results.export(items, out_path, fmt)
    except ExportError as exc:
        raise UsageError(str(exc))
    where = out_path if len(written) == 1 else f"{len(written)} files in {out_path}"
    err.print(f"{what} written to {where}", highlight=False)


@app.command("pack")
@friendly_errors
@_with_selection_options(PACK_FILTERS)
def pack_command(
    directory: Path = typer.Argument(..., help="Results folder written by `curator analyze`."),
    size: str = typer.Option(..., "--size", metavar="N", help="Levels in the pack."),
    curve: str = typer.Option(
        "linear", "--curve", metavar="linear|ease-in|ease-out|steps|FILE",
        help="How difficulty rises over the pack; FILE: a level pack whose order to follow.",
    ),
    pool: str | None = typer.Option(
        None, "--pool", metavar="N", help=f"Candidate levels to choose from [{POOL_SIZE}]."
    ),
    seed: str | None = typer.Option(None, "--seed", metavar="S", help="Random seed for the pool [0]."),
    fmt: str = typer.Option(
        ..., "--format", "-f", metavar="|".join(FORMATS), help="What to write (as for export)."
    ),
    out_path: Path = typer.Option(..., "--out", "-o", help="File to write, or folder for svg/png."),
    **filters,
) -> None:
    """Arrange a pack: N levels (same filters as `select`) whose difficulty rises along a curve.

    Draws --pool candidates evenly across piece counts, one per class (as --canonical), rates
    them, then fills each slot with the candidate nearest to its target difficulty (the
    pool's quantile the curve gives), with variety: every piece count of the pool, no two
    neighbours opening with the same move. Prints the slots; json, csv and html record the
    curve (docs/level-pack.md). On sliding-block tables the difficulty is the distance, and
    the levels come from as many connected sets as the curve allows.
    """
    _format(fmt)
    count = parse_number(size, "--size", 1)
    candidates = optional_number(pool, "--pool", 1) or POOL_SIZE
    results = _open(directory)
    if isinstance(results, DistanceResults):
        raise UsageError(f"{directory} holds a distance table; pack takes layered results (for a "
                         "permutation puzzle, `curator export DIR --distance A..B`)")
    seed_value = optional_number(seed, "--seed") or 0
    if isinstance(results, SlidingResults):
        pack = results.pack(count, curve, pool=candidates, seed=seed_value,
                            **_sliding_keywords(directory, filters))
        width = None if out.is_terminal else 200
        out.print(render.sliding_pack_table(results.puzzle.name, pack), width=width)
        _write(results, pack, fmt, out_path, f"{len(pack)} levels from a pool of {pack.pool:,}")
        return
    for name in ("distance", "cluster", "hardest"):
        if filters.get(name):
            raise UsageError(f"{option_name(name)} applies to sliding-block tables; {directory} holds "
                             "layered results")
    keywords = _layered_keywords(filters, results.puzzle)
    with count_progress(err, "rating the pool") as progress:
        pack = results.pack(count, curve, pool=candidates, seed=seed_value, progress=progress, **keywords)
    out.print(render.pack_table(results.puzzle, pack), width=None if out.is_terminal else 160)
    _write(results, pack, fmt, out_path, f"{len(pack)} levels from a pool of {pack.pool:,}")


# -- serve ---------------------------------------------------------------------------------


@app.command("serve")
@friendly_errors
def serve_command(
    directories: list[Path] = typer.Argument(
        ..., metavar="DIR", help="Results folders to show (written by `curator analyze`)."
    ),
    host: str = typer.Option(
        "127.0.0.1", "--host", metavar="HOST", help="Address to listen on (only this machine by default)."
    ),
    port: int = typer.Option(8000, "--port", metavar="PORT", min=0, max=65535, help="Port to listen on."),
) -> None:
    """Open a designer's workspace in the browser: layer tables, level search, play with
    hints from the stored bits, and packs to download.

    It reads only the folders named here; its JSON API is described at /openapi.json.
    Needs the serve extra: pip install 'curator\\[serve]'.
    """
    try:
        import uvicorn

        from curator.web.app import create_app
    except ImportError as exc:
        raise _fail(1, f"serve needs the serve extra ({exc.name} is missing): pip install 'curator[serve]'")
    try:
        web = create_app(directories)
    except StoreError as exc:
        raise UsageError(str(exc))
    err.print(f"workspace at http://{_url_host(host)}:{port}/ (Ctrl+C stops it)", highlight=False)
    uvicorn.run(web, host=host, port=port, log_level="warning")


def _url_host(host: str) -> str:
    """`host` as it goes into a URL (IPv6 addresses in brackets)."""
    return f"[{host}]" if ":" in host else host
