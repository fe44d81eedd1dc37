"""The front door for Python: load a puzzle, analyze it, open its results.

`open` hides the kind of table behind one shape of results object (`LayeredResults` for
puzzles whose moves remove pieces, `DistanceResults` for permutation puzzles, `SlidingResults`
for sliding-block puzzles, `SokobanResults` for Sokoban rooms, and those of installed kinds),
as python-chess's `open_tablebase` does for its table formats. Which kind a file or a folder
is, the catalogue says (`curator.catalogue`).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import numba
from rich.console import Console

from curator import calibration, catalogue
from curator.arrange import POOL_SIZE
from curator.common.bounds import SEARCH_LIMIT
from curator.common.errors import SelectionError
from curator.common.files import DEFAULT_SAMPLE
from curator.common.keywords import Naming, same_name
from curator.common.resources import ResourceError
from curator.kind import DistanceDone, Kind, Results, Run, Warn
from curator.layered.select import SORT_METRICS
from curator.progress import layer_progress

__all__ = ["DEFAULT_SAMPLE", "POOL_SIZE", "SEARCH_LIMIT", "SORT_METRICS", "ResourceError", "Results",
           "analyze", "calibrate", "load", "open", "run", "thread_count"]


def load(path: str | Path) -> Any:
    """The puzzle of a TOML file, of whichever kind its `[rules] family` names; PuzzleError
    naming the file and the key if it is malformed.

    >>> import curator
    >>> curator.load("puzzles/triangle.toml").board.size
    15
    """
    return catalogue.read_puzzle(path)[1]


def analyze(
    path: str | Path,
    output: str | Path | None = None,
    max_pieces: int | None = None,
    workers: int | None = None,
    force: bool = False,
    progress: bool = False,
    ignore_limits: bool = False,
    *,
    reporter: Any = None,
    executor: Any = None,
    warn: Warn | None = None,
    distance_done: DistanceDone | None = None,
    keep: str | None = None,
) -> Results:
    """Analyze the puzzle file `path` into `output` (default output/<name>) and open the
    results. Finished layers are kept; `force` computes everything again.

    `max_pieces` bounds the layers of layered puzzles (default: the file's). `workers` threads
    compute (all cores by default; the caller's thread count is restored afterwards);
    `progress` draws bars on stderr. An analysis whose estimate exceeds the free memory or
    disk raises ResourceError unless `ignore_limits` (or `force`). `reporter`, `executor` (a
    Dask cluster, see `curator.layered.cluster`), `warn` and `distance_done` are for tools
    built on curator, such as its command line. `keep` names the connected sets a universe's
    tables keep: "all" (the default), "solvable" or "minimal" (the manifest counts every set).
    """
    kind, puzzle = catalogue.read_puzzle(path)
    return run(kind, puzzle, output, max_pieces, workers, force, progress, ignore_limits, reporter=reporter,
               executor=executor, warn=warn, distance_done=distance_done, keep=keep)


def run(kind: Kind, puzzle: Any, output: str | Path | None = None, max_pieces: int | None = None,
        workers: int | None = None, force: bool = False, progress: bool = False, ignore_limits: bool = False,
        *, reporter: Any = None, executor: Any = None, warn: Warn | None = None,
        distance_done: DistanceDone | None = None, name: Naming = same_name, keep: str | None = None
        ) -> Results:
    """`analyze` for a puzzle already read (the command line reads it once)."""
    for keyword, value in (("max_pieces", max_pieces), ("executor", executor), ("keep", keep)):
        if value is not None and keyword not in kind.analysis_options:
            raise SelectionError(f"{name(keyword)} does not apply to {kind.puzzle_noun}")
    directory = Path(output) if output is not None else Path("output") / puzzle.name
    plan = Run(directory, thread_count(workers, name), force, max_pieces, executor, reporter, distance_done,
               warn, name, keep, limits=not (force or ignore_limits))
    if plan.limits:
        short = kind.shortfalls(puzzle, plan)
        if short:
            raise ResourceError(kind.subject(puzzle, plan), short)
    if progress and reporter is None:
        with layer_progress(Console(file=sys.stderr)) as bars:
            kind.analyze(puzzle, Run(**{**plan.__dict__, "reporter": bars}))
    else:
        kind.analyze(puzzle, plan)
    return catalogue.open(directory, name)


def thread_count(workers: int | None, name: Naming = same_name) -> int:
    """The threads an analysis computes with: `workers`, or one per core."""
    most: int = numba.config.NUMBA_NUM_THREADS  # type: ignore[attr-defined]  # numba sets it as it loads (not in its stubs)
    count = most if workers is None else workers
    if not isinstance(count, int) or isinstance(count, bool) or not 1 <= count <= most:
        raise SelectionError(f"{name('workers')} must be between 1 and {most}, got {count!r}")
    return count


def calibrate(directory: str | Path, graded: str | Path | None = None, name: Naming = same_name,
              playtests: str | Path | None = None) -> calibration.Calibration:
    """Fit the player model that rates the levels of the results in `directory` to a graded
    level pack, or to the playtests of the workspace's database `playtests`, and store it
    there unless it orders them worse, cross-validated, than the player in use: every later
    rating of that folder uses it (see `curator.calibration`).
    SelectionError unless exactly one of them is given; TooLittleData in one line with too
    few graded or playtested levels."""
    if (graded is None) == (playtests is None):
        raise SelectionError(f"give {name('graded')} or {name('playtests')}, one of them")
    if playtests is not None:
        return calibration.calibrate_playtests(directory, playtests, name)
    assert graded is not None
    return calibration.calibrate(directory, graded, name)


def open(directory: str | Path, name: Naming = same_name) -> Results:  # noqa: A001 - as in open_tablebase
    """The results an analysis stored in `directory`: `LayeredResults`, `DistanceResults`,
    `SlidingResults`, `SokobanResults` or an installed kind's, which answer the same questions (`puzzle`,
    `layers`, `count`, `select`, `solve`, `show`, `verify`, `export`). StoreError if the
    folder holds no readable results.
    """
    return catalogue.open(directory, name)

