"""The layered pipeline: puzzles whose every move removes a piece, swept layer by layer.

puzzle -> space (ranks of a layer's positions) -> sweep (compiled kernels) -> store (bit
files and manifest) -> select (filters over the stored bits) -> metrics (one position's
solutions and figures) -> results (`LayeredResults`, the public face of a results folder).
"""
