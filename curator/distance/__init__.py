"""Distance tables (God's algorithm) for permutation puzzles.

Positions of a `permutation`-family puzzle are ranked, swept breadth-first from the solved
state, and stored as one 4-bit distance entry per position with a manifest.
"""
