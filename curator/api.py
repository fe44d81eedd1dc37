"""The front door for Python: load a puzzle, analyze it, open its results.

`open` hides the kind of table behind one shape of results object (`LayeredResults` for
puzzles whose moves remove pieces, `DistanceResults` for permutation puzzles, `SlidingResults`
for sliding-block puzzles), as
python-chess's `open_tablebase` does for its table formats.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import numba
from rich.console import Console

from curator.common.errors import SelectionError, StoreError
from curator.common.files import manifest_kind
from curator.common.keywords import Naming, same_name
from curator.common.resources import Shortfall, bytes_text
from curator.distance.analysis import DistanceDone, analyze_distances, table_shortfalls
from curator.distance.puzzle import PermutationPuzzle, is_permutation_file, load_permutation_puzzle
from curator.distance.results import DistanceResults
from curator.distance.store import KIND as DISTANCE_KIND
from curator.layered.analysis import Executor, Reporter, resource_shortfalls
from curator.layered.analysis import analyze as analyze_layers
from curator.layered.puzzle import Puzzle, load_puzzle
from curator.layered.results import LayeredResults
from curator.progress import layer_progress
from curator.sliding.analysis import analyze_sliding, sliding_shortfalls
from curator.sliding.puzzle import SlidingPuzzle, is_sliding_file, load_sliding_puzzle
from curator.sliding.results import SlidingResults
from curator.sliding.store import KIND as SLIDING_KIND

Results = LayeredResults | DistanceResults | SlidingResults
Warn = Callable[[str], None]


class ResourceError(StoreError):
    """An analysis would need more memory or disk than the machine (or a cluster's workers)
    has free."""

    def __init__(self, what: str, short: list[Shortfall]) -> None:
        figures = "; ".join(
            f"{s.resource}: needs about {bytes_text(s.needed)}, {bytes_text(s.free)} {s.where}" for s in short
        )
        here = ["this machine"] if any(not s.elsewhere for s in short) else []
        there = ["the cluster's workers"] if any(s.elsewhere for s in short) else []
        super().__init__(f"{what} does not fit on {' or '.join(here + there)} ({figures})")
        self.shortfalls = short


def load(path: str | Path) -> Puzzle | PermutationPuzzle | SlidingPuzzle:
    """The puzzle of a TOML file, layered, permutation or sliding-block; PuzzleError naming
    the file and the key if it is malformed.

    >>> import curator
    >>> curator.load("puzzles/triangle.toml").board.size
    15
    """
    if is_permutation_file(path):
        return load_permutation_puzzle(path)
    return load_sliding_puzzle(path) if is_sliding_file(path) else load_puzzle(path)


TABLE_KINDS = {
    PermutationPuzzle: (table_shortfalls, analyze_distances, DistanceResults, "a permutation puzzle",
                        "distance table"),
    SlidingPuzzle: (sliding_shortfalls, analyze_sliding, SlidingResults, "a sliding-block puzzle", "tables"),
}
"""Puzzles swept into distance-like tables: what they need, how they are swept, their results."""


def analyze(
    path: str | Path,
    output: str | Path | None = None,
    max_pieces: int | None = None,
    workers: int | None = None,
    force: bool = False,
    progress: bool = False,
    ignore_limits: bool = False,
    *,
    reporter: Reporter | None = None,
    executor: Executor | None = None,
    warn: Warn | None = None,
    distance_done: DistanceDone | None = None,
) -> Results:
    """Analyze the puzzle file `path` into `output` (default output/<name>) and open the
    results. Finished layers are kept; `force` computes everything again.

    `workers` threads compute (all cores by default; the caller's thread count is restored
    afterwards); `progress` draws bars on stderr. An analysis whose estimate exceeds the free
    memory or disk raises ResourceError unless `ignore_limits` (or `force`). `reporter`,
    `executor` (a Dask cluster, see `curator.layered.cluster`), `warn` and `distance_done`
    are for tools built on curator, such as its command line.
    """
    puzzle = load(path)
    directory = Path(output) if output is not None else Path("output") / puzzle.name
    workers = thread_count(workers)
    for kind, (shortfalls, run, results, what, tables) in TABLE_KINDS.items():
        if isinstance(puzzle, kind):
            if max_pieces is not None:
                raise SelectionError(f"max_pieces does not apply to {what}")
            if not (force or ignore_limits):
                short = shortfalls(puzzle, directory)
                if short:
                    raise ResourceError(f"{puzzle.name}'s {tables}", short)
            run(puzzle, directory, workers, force, distance_done, warn)
            return results(directory)
    depth = sweep_depth(puzzle, max_pieces)
    if not (force or ignore_limits):
        short = resource_shortfalls(puzzle, depth, directory, executor)
        if short:
            raise ResourceError(f"{puzzle.name} up to {depth} pieces", short)
    if progress and reporter is None:
        with layer_progress(Console(file=sys.stderr)) as bars:
            analyze_layers(puzzle, directory, depth, workers, force, bars, warn, executor)
    else:
        analyze_layers(puzzle, directory, depth, workers, force, reporter, warn, executor)
    return LayeredResults(directory)


def thread_count(workers: int | None, name: Naming = same_name) -> int:
    """The threads an analysis computes with: `workers`, or one per core."""
    most = numba.config.NUMBA_NUM_THREADS
    count = most if workers is None else workers
    if not isinstance(count, int) or isinstance(count, bool) or not 1 <= count <= most:
        raise SelectionError(f"{name('workers')} must be between 1 and {most}, got {count!r}")
    return count


def sweep_depth(puzzle: Puzzle, max_pieces: int | None, name: Naming = same_name) -> int:
    """The piece count an analysis sweeps up to: `max_pieces`, or the file's."""
    depth = puzzle.max_pieces if max_pieces is None else max_pieces
    total = sum(puzzle.piece_limits)
    if not isinstance(depth, int) or isinstance(depth, bool) or not puzzle.goal.pieces <= depth <= total:
        raise SelectionError(
            f"{name('max_pieces')} must be between {puzzle.goal.pieces} and {total}, got {depth!r}"
        )
    return depth


def open(directory: str | Path) -> Results:  # noqa: A001 - the name a reader expects, as in open_tablebase
    """The results an analysis stored in `directory`: `LayeredResults`, `DistanceResults` or
    `SlidingResults`, which answer the same questions (`puzzle`, `layers`, `count`, `select`, `solve`, `show`,
    `verify`, `export`). StoreError if the folder holds no readable results.
    """
    return results_class(directory)(directory)


def results_class(directory: str | Path) -> type[Results]:
    """The kind of results `directory` holds, by its manifest."""
    kind = manifest_kind(Path(directory))
    return {DISTANCE_KIND: DistanceResults, SLIDING_KIND: SlidingResults}.get(kind, LayeredResults)
