"""Rule families behind one small interface, and the registry that names them.

A family turns a board and its parameters into compiled move generation: a numba function
`children` plus the lookup tables it reads. The sweep calls `children` without knowing
which family it runs, so adding a family means adding a module here and a registry entry.
"""

from __future__ import annotations

from curator.rules.base import MAX_CHILDREN, ParamError, Rules
from curator.rules.capture import CaptureRules
from curator.rules.fling import FlingRules
from curator.rules.jump import JumpRules

FAMILIES: dict[str, type[Rules]] = {
    JumpRules.family: JumpRules,
    FlingRules.family: FlingRules,
    CaptureRules.family: CaptureRules,
}

__all__ = ["FAMILIES", "MAX_CHILDREN", "ParamError", "Rules"]
