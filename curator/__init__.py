"""curator: retrograde analysis of board puzzles.

Computes, for every position of a puzzle, whether it is solvable, uniquely solvable and
all-moves-solvable, and helps select and export levels.
"""

__version__ = "0.1.0"
