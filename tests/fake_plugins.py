"""Installed packages made up for the tests: a dist-info folder with entry points, and the
modules it points at, in a folder put on sys.path (as pip would leave them in site-packages).
"""

from __future__ import annotations

from pathlib import Path
from textwrap import dedent

from curator.rules.registry import GROUP

MUNCH = '''\
"""Munch: a piece steps onto an orthogonally neighbouring piece and eats it."""

from __future__ import annotations

from typing import ClassVar

import numba
import numpy as np

from curator.common.ranking import lowest_bit
from curator.rules import ParamError, Rules, encode_move
from {package}.settings import FIRST

ONE = np.uint64(1)


@numba.njit(cache=True)
def munch_children(mask, tables, out_masks, out_moves):
    (steps,) = tables
    count = 0
    pieces = mask
    while pieces:
        src = lowest_bit(pieces)
        pieces &= pieces - ONE
        for d in range(FIRST, steps.shape[1]):
            dst = steps[src, d]
            if dst >= 0 and (mask >> np.uint64(dst)) & ONE:
                out_masks[count] = mask ^ (ONE << np.uint64(src))
                out_moves[count] = encode_move(src, dst)
                count += 1
    return count


class MunchRules(Rules):
    family = "munch"
    params: ClassVar[dict[str, type]] = {{"greedy": bool}}

    @classmethod
    def check(cls, board, piece_types, params):
        if board.grid != "square":
            raise ParamError("family", "munch needs a square grid")

    def tables(self):
        steps = np.full((self.board.size, 4), -1, dtype=np.int64)
        for i, cell in enumerate(self.board.cells):
            for d, direction in enumerate(self.board.directions()):
                j = self.board.step(cell, direction)
                if j is not None:
                    steps[i, d] = j
        return (steps,)

    @property
    def children(self):
        return munch_children
'''
"""A made-up family of one kind of piece on the general "masks" kernel; `FIRST` (the first
direction tried) lives in another module of its package, `settings`."""


def munch_package(package: str, first: int = 0) -> dict[str, str]:
    """The modules of a package `package` adding the munch family."""
    return {f"{package}/__init__.py": MUNCH.format(package=package),
            f"{package}/settings.py": f"FIRST = {first}\n"}


def install(site: Path, dist: str, version: str, modules: dict[str, str],
            families: dict[str, str]) -> Path:
    """Write `modules` (path under `site` -> text) and a dist-info for the distribution
    `dist` whose entry points of the group add `families` (name -> "module:attribute")."""
    for name, text in modules.items():
        path = site / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(dedent(text))
    info = site / f"{dist.replace('-', '_')}-{version}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: {version}\n")
    lines = [f"[{GROUP}]", *(f"{name} = {target}" for name, target in families.items())]
    (info / "entry_points.txt").write_text("\n".join(lines) + "\n")
    return info


MUNCH_PUZZLE = """\
name = "munch-row"
max_pieces = 4

[board]
art = \"\"\"
....
.. .
\"\"\"

[rules]
family = "munch"

[goal]
pieces = 1
"""
