"""Command line of curator: analyze puzzles, inspect, select and export levels.

A thin layer over the Python API (`curator.api`) and the catalogue of kinds
(`curator.catalogue`): it turns option text into API values (`curator.options`), asks the
kind of the file or folder at hand what to do, and draws what it answers
(`curator.cli.render`). Errors are one line on stderr: bad input (puzzle files, arguments)
exits 2, failures while running (damaged results, a full disk, a machine too small) exit 1,
and Ctrl+C stops any command with one line and exit code 130.
"""

from __future__ import annotations

import contextlib
import csv
import functools
import inspect
import io
import json
import os
import socket
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import typer
from rich.console import Console
from typer.core import TyperGroup

from curator import api, catalogue
from curator.api import (
    DEFAULT_SAMPLE,
    POOL_SIZE,
    SEARCH_LIMIT,
    SORT_METRICS,
    ResourceError,
    Results,
    thread_count,
)
from curator.cli import render
from curator.common.errors import (
    DamagedResults,
    EmptyPool,
    FolderRefused,
    PuzzleError,
    SearchTooLarge,
    SelectionError,
    StoreError,
    TooLittleData,
)
from curator.common.files import PUZZLE_COPY, atomic_write
from curator.common.report import Column, Report, yes
from curator.common.variants import LIMIT as VARIANT_LIMIT
from curator.common.variants import WANTS
from curator.export import ExportError
from curator.kind import Kind, Run, Search
from curator.options import (
    option_name,
    optional_number,
    parse_names,
    parse_number,
    read_board,
    selection_keywords,
)
from curator.progress import count_progress, ctrl_c_kept, layer_progress, raise_kept_ctrl_c
from curator.rules.registry import list_families
from curator.version import __version__
from curator.workspace_db import (
    FIGURE_FIELDS,
    PLAY_FIELDS,
    PLAYTESTS_FORMAT,
    WorkspaceDB,
    figures_json,
    play_json,
)
from curator.workspace_db import default_path as default_db_path


class _Commands(TyperGroup):
    """curator's commands, which take no empty argument: an empty path would name the current
    folder and an empty choice fall back to its default, without a word. Their help reads as
    paragraphs: the terminal wraps each one, not the docstring's line breaks."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for command in self.commands.values():
            command.help = _paragraphs(command.help)

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        for at, arg in enumerate(args):
            name, equals, value = arg.partition("=")
            if arg == "" or (name.startswith("--") and equals and not value):
                what = name if equals else self._named(args, at)
                raise _fail(2, f"{what}: is empty (a variable left unset?)")
        with _one_line_usage():
            return super().parse_args(ctx, args)

    def _named(self, args: list[str], at: int) -> str:
        """What `args[at]` gives, as the command's usage spells it: the option whose value it
        is, or the argument it is (the command is args[0])."""
        command = self.commands.get(args[0]) if args else None
        if command is None:
            return "the command"
        flags = {opt for p in command.params if getattr(p, "is_flag", False)
                 for opt in (*p.opts, *getattr(p, "secondary_opts", ()))}
        arguments = [p for p in command.params if not p.opts[0].startswith("-")]
        index, i = 0, 1
        while i < at:
            word = args[i]
            if word.startswith("-") and word not in flags and "=" not in word:
                if i + 1 == at:
                    return word
                i += 1  # the option's value
            elif not word.startswith("-"):
                index += 1
            i += 1
        if index >= len(arguments):
            return "an argument"
        return str(arguments[index].metavar or arguments[index].name).upper()

    def invoke(self, ctx: Any) -> Any:
        with _one_line_usage():
            return super().invoke(ctx)


_PARSER_ERROR: type[Exception] = next(c for c in typer.BadParameter.__mro__ if c.__name__ == "UsageError")
"""click's usage error (recent typer releases carry their own click, so it is found, not imported)."""


@contextlib.contextmanager
def _one_line_usage() -> Iterator[None]:
    """A usage error of the command line's parser (an unknown option, a value of the wrong
    type, a missing argument) as one line on stderr and exit code 2, as the commands' own;
    a command given no arguments still shows its help."""
    try:
        yield
    except _PARSER_ERROR as exc:
        if type(exc).__name__ == "NoArgsIsHelpError":
            raise
        context = getattr(exc, "ctx", None)
        command = f" (see `{context.command_path} --help`)" if context is not None else ""
        message = str(getattr(exc, "format_message", exc.__str__)())
        raise _fail(2, f"{message.rstrip('.')}{command}") from None


def _paragraphs(text: str | None) -> str | None:
    r"""`text` with each paragraph on one line (rich help keeps a docstring's single line breaks).

    >>> _paragraphs("One\n    two.\n\n    Three.")
    'One two.\n\nThree.'
    """
    if text is None:
        return None
    return "\n\n".join(" ".join(part.split()) for part in inspect.cleandoc(text).split("\n\n"))


app = typer.Typer(
    cls=_Commands,
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
            with ctrl_c_kept():
                return command(*args, **kwargs)
        except TooLittleData as exc:
            raise _fail(1, str(exc))
        except (PuzzleError, UsageError, SelectionError) as exc:
            raise _fail(2, str(exc))
        except (FolderRefused, DamagedResults) as exc:
            raise _fail(1, render.store_error_text(exc))
        except StoreError as exc:
            raise _fail(1, str(exc))
        except OSError as exc:
            where = f"{exc.filename}: " if exc.filename else ""
            raise _fail(1, f"{where}{exc.strerror or exc}")
        except MemoryError:
            raise _fail(1, "out of memory")
        except KeyboardInterrupt:
            _interrupted()
        except SystemError as exc:
            # Ctrl+C while a compiled function returns: numba's dispatcher reports the pending
            # KeyboardInterrupt as the cause of a SystemError.
            if not _caused_by_interrupt(exc):
                raise
            _interrupted()

    return wrapper


def _caused_by_interrupt(exc: BaseException) -> bool:
    """Whether a KeyboardInterrupt is among the causes of `exc`."""
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, KeyboardInterrupt):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


INTERRUPTED = 130
"""The exit code of a command stopped by Ctrl+C (128 + SIGINT), as shells give it."""


def _interrupted() -> None:
    """Ctrl+C: one line on stderr, exit code 130, at once. Threads still in compiled loops
    (sweeps, searches) are not waited for and print nothing; finished layers are on disk, and
    a layer being written is only ever under a temporary name until it is complete."""
    err.print("stopped (Ctrl+C)", highlight=False)
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    os._exit(INTERRUPTED)


def _open(directory: Path) -> tuple[Kind, Results]:
    """The kind and results of `directory`, naming keywords as this command line's options."""
    results = api.open(_existing(directory), option_name)
    return catalogue.kind_for(results), results


def _existing(directory: Path) -> Path:
    """`directory`, if it is a folder: a path that names nothing, or a file, is a usage error
    (exit 2), as a missing puzzle file is."""
    if not directory.exists():
        raise UsageError(f"{directory}: no such folder")
    if not directory.is_dir():
        raise UsageError(f"{directory}: is a file, not a folder; "
                         "give the results folder `curator analyze` wrote")
    return directory


def _note_player(results: Results) -> None:
    """One line on stderr when a calibrated player (not the defaults) rates the levels."""
    player = getattr(results, "player", None)  # kinds installed by packages may rate otherwise
    if player is not None and player.calibrated:
        err.print(f"difficulty: {player.source}", markup=False, highlight=False, soft_wrap=True)


def _show(report: Report) -> None:
    """Draw a report on stdout (a file or a pipe gets it at the report's own width)."""
    out.print(render.table(report), width=None if out.is_terminal else report.width)


# -- analyze, verify, info -------------------------------------------------------------------


@app.command("analyze")
@friendly_errors
def analyze_command(
    ctx: typer.Context,
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
    keep: str | None = typer.Option(
        None, "--keep", metavar="all|solvable|minimal",
        help="Universes: the connected sets the tables keep (default all); the manifest counts every set.",
    ),
) -> None:
    """Sweep every layer of a puzzle and store the solvable / unique / all-moves bits.

    For a permutation puzzle, sweep the distance of every position from the solved state;
    for a sliding-block puzzle or a Sokoban room, the distance to the goal of every placement
    of its pieces (boxes and keeper), whether the shortest solution is unique, and the
    connected sets.
    Finished layers are kept: running the same command again continues where it stopped.
    An analysis whose estimate exceeds the free memory or disk is refused (exit code 1).
    """
    threads = thread_count(workers, option_name)
    kind, puzzle = catalogue.read_puzzle(puzzle_file)
    if scheduler and "executor" not in kind.analysis_options:
        if getattr(ctx.get_parameter_source("scheduler"), "name", None) != "ENVIRONMENT":
            raise UsageError(f"--scheduler does not apply to {kind.puzzle_noun}")
        _warn(f"CURATOR_SCHEDULER is left unused: {kind.puzzle_noun} is analyzed on this machine")
        scheduler = None
    if max_pieces is not None and "max_pieces" not in kind.analysis_options:
        raise UsageError(f"--max-pieces does not apply to {kind.puzzle_noun}")
    if keep is not None and "keep" not in kind.analysis_options:
        raise UsageError(f"--keep does not apply to {kind.puzzle_noun}")
    directory = _results_folder(output, puzzle.name)
    plan = Run(directory, threads, force, max_pieces, name=option_name, keep=keep)
    estimate = f"{kind.estimate(puzzle, plan)}; {threads} threads"
    executor = kind.executor(scheduler) if scheduler else None
    err.print(estimate, highlight=False, soft_wrap=True)
    if executor is not None:
        err.print(f"sweeping on {executor.describe()}", highlight=False, soft_wrap=True)
    advice = ("lower --max-pieces, " if "max_pieces" in kind.analysis_options else "") + (
        "keep fewer sets (--keep solvable or minimal), " if "keep" in kind.analysis_options else "")
    try:
        with _resource_errors(advice), layer_progress(err) as bars:
            results = api.run(kind, puzzle, directory, max_pieces, threads, force,
                              ignore_limits=ignore_limits, reporter=bars, executor=executor, warn=_warn,
                              distance_done=_print_distance, name=option_name, keep=keep)
    finally:
        if executor is not None:
            executor.close()
    _show(kind.info(results))
    err.print(f"results in {directory}", highlight=False)


def _print_distance(distance: int, positions: int) -> None:
    raise_kept_ctrl_c()
    err.print(f"distance {distance}: {positions:,}", highlight=False)


@contextlib.contextmanager
def _resource_errors(advice: str) -> Iterator[None]:
    """An analysis too large for the machine: one line with the figures and what to do."""
    try:
        yield
    except ResourceError as exc:
        room = "free some space, " if any(s.resource != "time" for s in exc.shortfalls) else ""
        raise _fail(1, f"{exc}; {advice}{room}or pass --ignore-limits to run anyway") from None


def _results_folder(output: Path | None, name: str) -> Path:
    """The folder `--output` names (default output/NAME); UsageError if it is a file."""
    directory = output if output is not None else Path("output") / name
    if directory.exists() and not directory.is_dir():
        raise UsageError(f"--output {directory} is a file, not a folder")
    return directory


def _warn(message: str) -> None:
    err.print(f"warning: {message}", markup=False, highlight=False, soft_wrap=True)


@app.command("verify")
@friendly_errors
def verify_command(
    directory: Path = typer.Argument(..., help="Results folder written by `curator analyze`."),
    sample: int = typer.Option(
        DEFAULT_SAMPLE, "--sample", metavar="N",
        help="Ranks to re-derive (per layer on layered results; 0: check the files and the manifest's "
        "figures only).",
    ),
    seed: int = typer.Option(0, "--seed", help="Random seed for choosing the ranks."),
) -> None:
    """Check every stored file against its checksum and re-derive a sample of ranks.

    The manifest's figures are checked against the tables, and each sampled position's
    entries are recomputed from its children's stored entries under the puzzle's rules. Exit
    code 1 if anything disagrees, with every problem and the first 50 bad ranks listed.
    """
    if sample < 0:
        raise UsageError(f"--sample must be at least 0, got {sample}")
    if seed < 0:
        raise UsageError(f"--seed must be at least 0, got {seed}")
    kind, results = _open(directory)
    verdict = kind.verify(results, sample, seed)
    for line in verdict.lines:
        err.print(line, markup=False, highlight=False, soft_wrap=True)
    if not verdict.ok:
        raise _fail(1, verdict.outcome)
    typer.echo(f"{directory}: {verdict.outcome}")


@app.command("info")
@friendly_errors
def info_command(
    directory: Path = typer.Argument(..., help="Results folder written by `curator analyze`."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON instead of a table."),
) -> None:
    """Show the counts per layer (or per distance) of an analysis from its manifest."""
    kind, results = _open(directory)
    if as_json:
        typer.echo(json.dumps(results.summary(), indent=1))
    else:
        _show(kind.info(results))


# -- select, solve, show -------------------------------------------------------------------

CHOICE = ("sample", "seed", "limit", "sort", "difficulty")
"""Options of `select` that choose among the matches rather than say which positions match."""


def _parsed(options: dict[str, Any]) -> dict[str, Any]:
    """The selection options given on the command line, their text parsed (usage errors come
    before any folder is read); `counts` stays text until the puzzle is known."""
    given = {name: value for name, value in options.items() if _given(name, value)}
    if given.get("seed") is not None and given.get("sample") is None:
        raise UsageError("--seed only applies with --sample")
    return {**selection_keywords({k: v for k, v in given.items() if k != "counts"}, None),
            **({"counts": given["counts"]} if "counts" in given else {})}


def _keywords(kind: Kind, results: Results, given: dict[str, Any], allowed: tuple[str, ...]
              ) -> dict[str, Any]:
    """The API keywords of the options given (`_parsed`); UsageError naming the options that
    `kind` does not take (of those in `allowed`)."""
    refused = [name for name in given if name not in allowed]
    if refused:
        flags = [_flag(name, given[name]) for name in refused]
        takes = ", ".join(option_name(name) for name in allowed if name != "count_only")
        raise UsageError(f"{', '.join(flags)} {'does' if len(flags) == 1 else 'do'} not apply to {kind.held} "
                         f"in {results.directory}; its options are {takes}")
    keywords = {k: v for k, v in given.items() if k != "count_only"}
    if "counts" in keywords:
        keywords["counts"] = selection_keywords({"counts": keywords["counts"]}, results.puzzle)["counts"]
    return keywords


TRI_STATE = ("solvable", "unique", "minimal", "all_moves")
"""Options that are given when True (--solvable) or False (--no-solvable)."""


def _given(name: str, value: object) -> bool:
    """Whether a selection option was given on the command line."""
    return value is not None and (value is not False or name in TRI_STATE)


def _flag(name: str, value: object) -> str:
    """How an option was given on the command line."""
    if name == "count_only":
        return "--count"
    return ("--no-" if value is False else "--") + name.replace("_", "-")


@app.command("select")
@friendly_errors
def select_command(
    directory: Path = typer.Argument(..., help="Results folder written by `curator analyze`."),
    solvable: bool | None = typer.Option(None, "--solvable/--no-solvable", help="Solvable or not."),
    unique: bool | None = typer.Option(None, "--unique/--no-unique", help="Uniquely solvable or not."),
    minimal: bool | None = typer.Option(
        None, "--minimal/--no-minimal",
        help="Universes: taking away any one vehicle or wall (not the goal vehicle) shortens the solution.",
    ),
    walls: str | None = typer.Option(None, "--walls", metavar="A..B", help="Universes: walls on the board."),
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
        help="Distances to the goal (distance tables; sliding-block and Sokoban tables).",
    ),
    cluster: str | None = typer.Option(
        None, "--cluster", metavar="A..B",
        help="Sliding blocks, Sokoban: positions in the level's connected set.",
    ),
    hardest: bool = typer.Option(
        False, "--hardest",
        help="Sliding blocks, Sokoban: one level per connected set, the farthest from the goal; "
        "universes: the farthest puzzles of each piece set.",
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
    --sample, --seed, --limit), each with an optimal solution. On sliding-block and Sokoban
    tables, --distance, --unique, --all-moves, --cluster and --hardest pick levels, farthest
    first. On universe tables they pick puzzles (one per connected set), with --minimal and
    --walls besides.
    """
    given = _parsed({name: value for name, value in locals().items() if name not in ("directory", "as_json")})
    kind, results = _open(directory)
    if count_only:
        keywords = _keywords(kind, results, given, kind.selection_options)
        if difficulty is not None:
            raise UsageError("--difficulty needs each level's metrics; --count only counts the stored bits")
        chosen = [option_name(name) for name in CHOICE if name in given]
        if chosen:
            verb = "chooses" if len(chosen) == 1 else "choose"
            raise UsageError(f"{', '.join(chosen)} {verb} among the matches; --count counts them all")
        total, per_layer = kind.count(results, keywords)
        if as_json:
            layers = {"layers": per_layer} if per_layer else {}
            data = {"puzzle": results.puzzle.name, "matched": total, **layers}
            typer.echo(json.dumps(data, indent=1))
        else:
            typer.echo("\n".join([*(f"{k}: {n:,}" for k, n in per_layer.items()), f"total: {total:,}"]))
        return
    _print_selection(kind, results, given, as_json)


def _print_selection(kind: Kind, results: Results, given: dict[str, Any], as_json: bool) -> None:
    keywords = _keywords(kind, results, given, kind.selection_options)
    items, matched = kind.selection(results, keywords)
    _note_player(results)
    if matched == 0 and (note := kind.nearest(results, keywords, option_name)):
        err.print(f"note: nothing matches; {note}", highlight=False, soft_wrap=True)
    if as_json:
        data = {"puzzle": results.puzzle.name, "matched": matched,
                f"{kind.item_noun}s": [item.to_json() for item in items]}
        typer.echo(json.dumps(data, indent=1))
        return
    _show(kind.items_report(results, items, matched, keywords))


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
    given = _parsed({"distance": distance, "sample": sample, "seed": seed, "limit": limit})
    kind, results = _open(directory)
    if "distance" not in kind.selection_options:
        raise UsageError(f"{directory} holds {kind.held}, which have no distances to pick by; "
                         "`curator select` lists their levels")
    _print_selection(kind, results, given, as_json)


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
    search_limit: str | None = typer.Option(
        None, "--search-limit", metavar="N",
        help=f"Stop a search that holds more than N positions above the stored layers [{SEARCH_LIMIT:,}].",
    ),
    as_json: bool = typer.Option(False, "--json", help="Print JSON instead of text."),
) -> None:
    """Solve one position: solvable / unique / all-moves, solution count and one solution.

    Above the stored layers nothing prunes the search: a position far above them prints an
    estimate first, shows a progress bar, and stops past --search-limit positions, saying how
    far to analyze instead.
    """
    kind, puzzle = catalogue.read_puzzle(puzzle_file)
    if not kind.solves:
        raise UsageError(f"solve does not take {kind.puzzle_noun}; pick its positions with "
                         "`curator select DIR --distance A..B`")
    bound = optional_number(search_limit, "--search-limit", 1)
    if bound is not None and "search_limit" not in kind.solve_options:
        raise UsageError(f"--search-limit does not apply to {kind.puzzle_noun}")
    position = read_board(board, puzzle)
    if results is not None:
        catalogue.check_results_of(kind, results, option_name)
    try:
        with count_progress(err, "searching above the stored layers") as progress:
            search = Search(SEARCH_LIMIT if bound is None else bound, progress,
                            lambda line: err.print(line, highlight=False, soft_wrap=True))
            item, used = kind.solve(puzzle, position, results, option_name, search)
    except SearchTooLarge as exc:
        output = "" if results is None else f" --output {results}"
        raise _fail(1, exc.spelled(lambda k: f"curator analyze {puzzle_file}{output} --max-pieces {k}"))
    if used is not None:
        _note_player(api.open(used, option_name))
    if as_json:
        typer.echo(json.dumps({**item.to_json(), "results": None if used is None else str(used)}, indent=1))
        return
    typer.echo(kind.item_text(puzzle, item))


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
    kind, results = _open(directory)
    found = results.show(parse_number(rank, "RANK"), optional_number(pieces, "--pieces"), layer_key)
    typer.echo(json.dumps(found.to_json(), indent=1) if as_json else kind.item_text(results.puzzle, found))


@app.command("variants")
@friendly_errors
def variants_command(
    directory: Path = typer.Argument(..., help="Results folder written by `curator analyze`."),
    board: str = typer.Option(
        ..., "--board", metavar="FILE|TEXT", help="The position drawn like the board art, or a file."
    ),
    want: str | None = typer.Option(
        None, "--want", metavar="|".join(WANTS),
        help="Uniquely solvable variants, solvable ones, or solvable and harder than the position "
        "\\[unique; solvable on distance tables, which know no unique solutions].",
    ),
    limit: str | None = typer.Option(
        None, "--limit", metavar="N", help=f"List the first N variants, hardest first [{VARIANT_LIMIT}].",
    ),
    search_limit: str | None = typer.Option(
        None, "--search-limit", metavar="N",
        help=f"Stop a search that holds more than N positions above the stored layers [{SEARCH_LIMIT:,}].",
    ),
    as_json: bool = typer.Option(False, "--json", help="Print JSON instead of a table."),
) -> None:
    """The nearest good variants of a position: the levels one edit away (a piece added,
    removed or moved; sliding blocks: a piece moved anywhere it fits) that are uniquely
    solvable, solvable, or harder, with their figures, hardest first.

    Layered results keep one variant per class of equivalent positions; positions above the
    stored layers are searched, within --search-limit positions.
    """
    kind, results = _open(directory)
    if not kind.variant_wants:
        raise UsageError(f"{directory} holds {kind.held}, which list no variants")
    want = want or kind.variant_wants[0]
    if want not in kind.variant_wants:
        raise UsageError(f"--want must be one of {', '.join(kind.variant_wants)} for {kind.held}, "
                         f"got {want!r}")
    count = optional_number(limit, "--limit", 1) or VARIANT_LIMIT
    bound = optional_number(search_limit, "--search-limit", 1)
    if bound is not None and "search_limit" not in kind.solve_options:
        raise UsageError(f"--search-limit does not apply to {kind.held}: they are looked up, not searched")
    search = Search(SEARCH_LIMIT if bound is None else bound)
    position = read_board(board, results.puzzle)
    try:
        with count_progress(err, "rating the variants") as progress:
            found = kind.variants(results, position, want, count, search, progress)
    except SearchTooLarge as exc:
        puzzle_file = results.directory / PUZZLE_COPY
        raise _fail(1, exc.spelled(lambda k: f"curator analyze {puzzle_file} --output {results.directory} "
                                             f"--max-pieces {k}"))
    if as_json:
        typer.echo(json.dumps({"puzzle": results.puzzle.name, **found.to_json()}, indent=1))
        return
    typer.echo(kind.item_text(results.puzzle, found.base))
    typer.echo("")
    _show(kind.variants_report(results, found))


@app.command("calibrate")
@friendly_errors
def calibrate_command(
    directory: Path = typer.Argument(..., help="Results folder written by `curator analyze`."),
    graded: Path | None = typer.Option(
        None, "--graded", metavar="PACK.json",
        help="A level pack of this puzzle (as `curator pack --format json` writes it) whose levels' "
        "grade, or else their order, says how hard players found them.",
    ),
    playtests: Path | None = typer.Option(
        None, "--playtests", metavar="DB",
        help="The workspace's database (`serve --db`): its playtests of this puzzle's levels, times to "
        "solve and give-ups, say how hard players found them.",
    ),
) -> None:
    """Fit the player model behind the difficulty to levels players have graded (--graded) or
    playtested in the workspace (--playtests), and store it with the results: select, solve,
    export, pack and serve rate this puzzle's levels with it from then on (and say so).

    Playtested levels are graded by the median time of their plays, a give-up counting as a
    play that never ends. Prints the Spearman correlation of the difficulty with the grades
    before (the player in use) and after (cross-validated: each group of grades rated by a
    player fitted on the others); a fit that orders them worse than the player in use, or, fitted
    on all of them, no better, is not stored. Needs at least 10 solvable graded or playtested levels in
    at least 3 different grades.
    """
    if (graded is None) == (playtests is None):
        raise UsageError("give --graded PACK.json or --playtests DB, one of them")
    found = api.calibrate(_existing(directory), graded, option_name, playtests)
    left = f" ({found.left_out} left out: solved, not solvable or too large)" if found.left_out else ""
    typer.echo(f"calibrated on {found.levels} {found.noun} levels in {found.grades} grades{left}")
    typer.echo(f"Spearman with the grades: before {found.before:.3f} ({found.previous.source}), "
               f"after {found.after:.3f} (cross-validated)")
    typer.echo(f"player: {found.player.text()}")
    if found.stored:
        typer.echo(f"stored in {found.path}: later commands rate this puzzle's levels with it")
    else:
        typer.echo(f"kept the player in use: {found.kept}; nothing stored")


# -- export --------------------------------------------------------------------------------

SELECTION_OPTIONS = (
    "solvable", "unique", "minimal", "walls", "all_moves", "pieces", "counts", "must_include", "must_exclude",
    "canonical", "distance", "cluster", "hardest", "sample", "seed", "difficulty", "sort", "limit",
)
"""The options of `select` that `export` takes too (the same flags, help and defaults)."""


PACK_FILTERS = ("solvable", "unique", "minimal", "walls", "all_moves", "pieces", "counts", "must_include",
                "must_exclude", "distance", "cluster", "hardest")
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
        command.__signature__ = inspect.Signature(params, return_annotation=None)  # type: ignore[attr-defined]  # read by inspect (and so typer)
        command.__annotations__ = {p.name: p.annotation for p in params}
        return command

    return decorate


FORMATS = catalogue.known_formats()
"""The formats `--format` names in the help; a folder's kind may take fewer (`_format`)."""


def _format(kind: Kind, fmt: str) -> str:
    """`fmt` if the kind of the opened folder writes it, else a UsageError listing those it does."""
    formats = catalogue.formats(kind)
    if fmt not in formats:
        raise UsageError(f"--format must be one of {', '.join(formats)} for {kind.held}, got {fmt!r}")
    return fmt


@app.command("export")
@friendly_errors
@_with_selection_options(SELECTION_OPTIONS)
def export_command(
    directory: Path = typer.Argument(..., help="Results folder written by `curator analyze`."),
    fmt: str = typer.Option(
        ..., "--format", "-f", metavar="|".join(FORMATS), help="What to write (see below)."
    ),
    out_path: Path = typer.Option(..., "--out", "-o", help="File to write, or folder for svg/png/tiled."),
    **selection,
) -> None:
    """Export selected levels (same filters as `select`) for a game engine or a designer.

    json: a level pack (docs/level-pack.md); csv: one row per level; svg, png:
    one picture per level into the folder --out (or the file --out for a single
    level); html: one self-contained gallery page with every level's picture,
    metrics and solution; ldtk: an LDtk project, one level per level; tiled: one
    Tiled map per level into the folder --out (or the .tmj file --out for a
    single level), with the tileset image beside them; play: one self-contained
    page that plays the levels, with undo and hints. On the distance table of a
    permutation puzzle, the positions `select --distance A..B` lists, in json,
    csv, svg, png or html (they have no board to lay out or play on).
    """
    given = _parsed(selection)
    kind, results = _open(directory)
    _format(kind, fmt)
    _check_place(out_path, "--out")
    keywords = _keywords(kind, results, given, kind.selection_options)
    items, matched = kind.selection(results, keywords)
    _note_player(results)
    if not items:
        note = kind.nearest(results, keywords, option_name) if matched == 0 else None
        raise UsageError(f"no {kind.item_noun} matches the selection, so nothing was written"
                         + (f" ({note})" if note else ""))
    _write(results, items, fmt, out_path, f"{len(items)} {kind.item_noun}{'' if len(items) == 1 else 's'}")


def _check_place(path: Path, option: str) -> None:
    """Refuse a file to write whose way goes through a file (a file where a folder must be),
    before any work is done."""
    for folder in path.parents:
        if folder.exists():
            if not folder.is_dir():
                raise UsageError(f"{option} {path}: {folder} is a file, not a folder")
            return


def _write(results: Results, items: Any, fmt: str, out_path: Path, what: str) -> None:
    """Export `items` and say on stderr where they went."""
    try:
        written = results.export(items, out_path, fmt)
    except ExportError as exc:
        raise UsageError(str(exc))
    where = (out_path if len(written) == 1 else f"{len(written)} files in {out_path}" if out_path.is_dir()
             else ", ".join(str(path) for path in written))
    err.print(f"{what} written to {where}", highlight=False)


@app.command("pack")
@friendly_errors
@_with_selection_options(PACK_FILTERS)
def pack_command(
    directory: Path = typer.Argument(..., help="Results folder written by `curator analyze`."),
    size: str = typer.Option(..., "--size", metavar="N", help="Levels in the pack."),
    curve: str = typer.Option(
        "linear", "--curve", metavar="linear|ease-in|ease-out|steps|FILE",
        help="How difficulty rises over the pack; FILE: a level pack (any curator writes) whose order to "
        "follow.",
    ),
    pool: str | None = typer.Option(
        None, "--pool", metavar="N", help=f"Candidate levels to choose from [{POOL_SIZE}]."
    ),
    seed: str | None = typer.Option(None, "--seed", metavar="S", help="Random seed for the pool [0]."),
    variety: str | None = typer.Option(
        None, "--variety", metavar="RULES",
        help="Variety rules to keep, comma-separated (layered: counts, share, openings; sliding, Sokoban: "
        "sets; universes: piece-sets); none: the curve alone \\[all].",
    ),
    fmt: str = typer.Option(
        ..., "--format", "-f", metavar="|".join(FORMATS), help="What to write (as for export)."
    ),
    out_path: Path = typer.Option(..., "--out", "-o", help="File to write, or folder for svg/png/tiled."),
    **filters,
) -> None:
    """Arrange a pack: N levels (same filters as `select`) whose difficulty rises along a curve.

    Draws --pool candidates evenly across piece counts, one per class (as --canonical), rates
    them, then fills each slot with the candidate nearest to its target difficulty (the
    pool's quantile the curve gives). The curve comes first: where it rises, no level is
    easier than the one before by more than 5% of the pack's difficulty range. Within that,
    the variety rules (--variety) show every piece count of the pool, cap each count's share
    and part neighbours that open with the same move. Prints the slots; json, csv and html
    record the curve (docs/level-pack.md). On sliding-block and Sokoban tables the difficulty
    is the distance, and the levels come from as many connected sets as the curve allows. On
    universe tables it is the distance too: the puzzles are sets that can be solved, from as
    many piece sets as the curve allows; json and csv record the curve, toml writes one
    sliding-block puzzle file per level in pack order (docs/universe.md).
    """
    count = parse_number(size, "--size", 1)
    candidates = optional_number(pool, "--pool", 1)
    given = _parsed(filters)
    kind, results = _open(directory)
    if not kind.pack_options:
        packers = " or ".join(other.held for other in catalogue.kinds() if other.pack_options)
        raise UsageError(f"{directory} holds {kind.held}; pack takes {packers}")
    _format(kind, fmt)
    _check_place(out_path, "--out")
    keywords = _keywords(kind, results, given, kind.pack_options)
    if variety is not None:
        keywords["variety"] = parse_names(variety)
    with count_progress(err, "rating the pool") as progress:
        try:
            pack = kind.pack(results, count, curve, candidates, optional_number(seed, "--seed") or 0,
                             keywords, progress)
        except EmptyPool as error:
            note = kind.nearest(results, keywords, option_name)
            raise UsageError(f"{error}" + (f" ({note})" if note else "")) from None
    _note_player(results)
    _show(kind.pack_report(results, pack))
    levels = f"{len(pack)} level{'' if len(pack) == 1 else 's'}"
    _write(results, pack, fmt, out_path, f"{levels} from a pool of {pack.pool:,}")


def _shown(path: Path) -> str:
    """A path as help text shows it: under the home folder as ~/..."""
    try:
        return f"~/{path.relative_to(Path.home())}"
    except ValueError:
        return str(path)


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
    allow_host: list[str] = typer.Option(
        [], "--allow-host", metavar="HOST",
        help="Also answer requests that name this host (repeatable); by default only those naming the "
        "address it listens on.",
    ),
    db: Path | None = typer.Option(
        None, "--db", metavar="PATH",
        help="SQLite file keeping packs, notes and playtests (made if missing) "
        f"[{_shown(default_db_path())}].",
    ),
) -> None:
    """Open a designer's workspace in the browser: layer tables, level search, play with
    hints from the stored bits, named packs, notes and playtests.

    It reads only the folders named here; its JSON API is described at /openapi.json.
    Named packs, notes and tags on levels and the record of every play are kept in the
    database --db (default: curator/workspace.sqlite in $XDG_DATA_HOME, else in
    ~/.local/share), so they last across reloads and restarts; `curator playtests`
    exports the plays. Requests naming another host (a name pointed at this machine by
    someone else) get 421. Needs the serve extra: pip install 'curator\\[serve]'.
    """
    try:
        import uvicorn

        from curator.web.app import create_app
        from curator.web.guard import host_name
    except ImportError as exc:
        raise _fail(1, f"serve needs the serve extra ({exc.name} is missing): pip install 'curator[serve]'")
    for name in allow_host:
        if host_name(name) is None:
            raise UsageError(f"--allow-host {name!r} is not a host name (such as studio.local or 10.0.0.5)")
    db_path = db if db is not None else default_db_path()
    kept = WorkspaceDB(db_path)  # StoreError: one line, exit 1
    try:
        web = create_app(directories, host=host, allow_hosts=allow_host, db=kept)
    except StoreError as exc:
        raise UsageError(str(exc))
    listening = _listening(host, port)
    port = listening.getsockname()[1]
    with err.status("loading the compiled code of the folders (compiled once after an install)"):
        web.state.folders.warm()
    err.print(f"workspace at http://{_url_host(host)}:{port}/ (Ctrl+C stops it); packs, notes and playtests "
              f"kept in {db_path}", highlight=False, soft_wrap=True)
    uvicorn.Server(uvicorn.Config(web, log_level="warning")).run(sockets=[listening])


def _url_host(host: str) -> str:
    """`host` as it goes into a URL (IPv6 addresses in brackets)."""
    return f"[{host}]" if ":" in host else host


def _listening(host: str, port: int) -> socket.socket:
    """A socket bound to `host` and `port` for the workspace to listen on; one line naming the
    option if the host has no address or the port cannot be taken (before the server starts)."""
    try:
        family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
    except (socket.gaierror, UnicodeError) as exc:
        raise UsageError(f"--host {host}: no such address ({exc})") from None
    listening = socket.socket(family, kind, proto)
    listening.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        listening.bind(address)
    except OSError as exc:
        listening.close()
        raise _fail(1, f"--port {port}: cannot listen on {host} ({exc.strerror or exc})") from None
    return listening



# -- playtests -----------------------------------------------------------------------------


@app.command("playtests")
@friendly_errors
def playtests_command(
    db: Path | None = typer.Argument(
        None, metavar="DB", help=f"The workspace's database (`serve --db`) [{_shown(default_db_path())}]."
    ),
    fmt: str = typer.Option("csv", "--format", "-f", metavar="csv|json", help="What to write."),
    per: str = typer.Option("level", "--per", metavar="level|play",
                            help="One row per level played (its figures), or per play."),
    output: Path | None = typer.Option(None, "--output", "-o", metavar="FILE",
                                       help="File to write (replaced whole); stdout if not given."),
) -> None:
    """Export the playtests the workspace recorded: per level, its plays, solved and given-up
    plays, give-up rate, median time and moves to solve, mean undos, resets and hints; or
    every play. Fields and formats: docs/workspace-db.md.
    """
    if fmt not in ("csv", "json"):
        raise UsageError(f"--format must be csv or json, got {fmt!r}")
    if per not in ("level", "play"):
        raise UsageError(f"--per must be level or play, got {per!r}")
    db = db if db is not None else default_db_path()
    if output is not None:
        if output.resolve() in {Path(f"{db.resolve()}{end}") for end in ("", "-wal", "-shm")}:
            raise UsageError(f"--output {output}: is the workspace database itself (or its journal); "
                             "give another file")
        _check_place(output, "--output")
    with WorkspaceDB(db, read_only=True) as kept:
        if per == "level":
            fields, rows = FIGURE_FIELDS, [figures_json(figures) for figures in kept.figures()]
        else:
            fields, rows = PLAY_FIELDS, [play_json(key, play) for key, play in kept.plays()]
    if fmt == "json":
        text = json.dumps({"format": PLAYTESTS_FORMAT, f"{per}s": rows}, indent=1) + "\n"
    else:
        text = _csv_text(fields, rows)
    if output is None:
        typer.echo(text, nl=False)
        return
    atomic_write(output, text.encode())
    err.print(f"{len(rows)} {per}{'' if len(rows) == 1 else 's'} written to {output}", highlight=False)


def _csv_text(fields: tuple[str, ...], rows: list[dict[str, Any]]) -> str:
    """Rows as CSV with a header: empty for a missing figure, true/false for a flag."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(fields)
    for row in rows:
        writer.writerow(["" if row[name] is None else str(row[name]).lower() if isinstance(row[name], bool)
                         else row[name] for name in fields])
    return buffer.getvalue()


# -- families ------------------------------------------------------------------------------


@app.command("families")
@friendly_errors
def families_command(
    as_json: bool = typer.Option(False, "--json", help="Print JSON instead of a table."),
) -> None:
    """List the rule families puzzle files can name: the built-in ones and those installed
    packages add (entry-point group curator.families), with their \\[rules] options.

    An installed family that cannot be used is left out with a warning saying why.
    """
    found = list_families(warn=_warn, reserved=catalogue.claimed_families())
    if as_json:
        typer.echo(json.dumps([family.to_json() for family in found], indent=1))
    else:
        rows = tuple((family.name, yes(family.typed),
                      ", ".join(f"{name} ({kind})" for name, kind in family.options.items()) or "-",
                      family.sweep_kernel, str(family.max_cells), family.source) for family in found)
        heads = tuple(Column(name, right=False, no_wrap=name in ("family", "source"))
                      for name in ("family", "typed", "options", "sweep kernel", "cells", "source"))
        _show(Report("rule families", heads, rows, width=160))
