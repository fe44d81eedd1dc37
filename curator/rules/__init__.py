"""Rule families behind one small interface, and the registry that names them.

A family turns a board and its parameters into compiled move generation: a numba function
`children` plus the lookup tables it reads. The sweep calls `children` without knowing
which family it runs, so a family is a `Rules` subclass (`curator.rules.base`, the contract,
described in docs/rules.md) and a name the registry (`curator.rules.registry`) finds it by:
the built-in ones are modules here, and installed packages add more through the entry-point
group `curator.families`.
"""

from __future__ import annotations

from curator.rules.base import MAX_CHILDREN, ParamError, Rules, decode_move, encode_move, nearest_cell
from curator.rules.registry import (
    FAMILIES,
    Family,
    FamilyError,
    check_moves,
    families,
    family_names,
    find_family,
    list_families,
)

__all__ = [
    "FAMILIES",
    "MAX_CHILDREN",
    "Family",
    "FamilyError",
    "ParamError",
    "Rules",
    "check_moves",
    "decode_move",
    "encode_move",
    "families",
    "family_names",
    "find_family",
    "list_families",
    "nearest_cell",
]
