"""curator: retrograde analysis of board puzzles, and curation of the levels it finds.

For every position of a puzzle, curator computes whether it is solvable, uniquely solvable
and all-moves-solvable; then it selects, rates and exports levels.

>>> import curator
>>> puzzle = curator.load("puzzles/triangle.toml")
>>> puzzle.name, puzzle.board.size
('triangle', 15)

`curator.analyze(path)` sweeps a puzzle and returns its results; `curator.open(directory)`
opens stored results. Both give a `LayeredResults`, a `DistanceResults`, a `SlidingResults` or a
`SokobanResults` (see the README, "Python API").
"""

from curator.api import ResourceError, analyze, calibrate, load, open
from curator.common.errors import PuzzleError, SearchTooLarge, SelectionError, StoreError, TooLittleData
from curator.distance.puzzle import PermutationPuzzle
from curator.distance.results import DistanceLevel, DistanceResults
from curator.layered.level import Level
from curator.layered.puzzle import Puzzle
from curator.layered.results import LayeredResults, StoredPosition
from curator.sliding.puzzle import SlidingPuzzle
from curator.sliding.results import SlidingLevel, SlidingResults
from curator.sokoban.puzzle import SokobanPuzzle
from curator.sokoban.results import SokobanLevel, SokobanResults
from curator.version import __version__

Results = LayeredResults | DistanceResults | SlidingResults | SokobanResults
"""The results objects of the kinds curator ships; an installed kind's answer the same
questions (`curator.kind.Results`)."""

__all__ = [
    "DistanceLevel",
    "DistanceResults",
    "LayeredResults",
    "Level",
    "PermutationPuzzle",
    "Puzzle",
    "PuzzleError",
    "ResourceError",
    "Results",
    "SearchTooLarge",
    "SelectionError",
    "SlidingLevel",
    "SlidingPuzzle",
    "SlidingResults",
    "SokobanLevel",
    "SokobanPuzzle",
    "SokobanResults",
    "StoreError",
    "StoredPosition",
    "TooLittleData",
    "__version__",
    "analyze",
    "calibrate",
    "load",
    "open",
]
