"""What a results object needs from the exporters, which sit above the pipelines: a way to
write its items and to read a pack's curve. `curator.catalogue.open` hands it one."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol


class Exports(Protocol):
    """What a results object needs from the layer above the pipelines to write its items and
    to read a pack's curve: the catalogue hands it one when it opens the results."""

    def write(self, fmt: str, puzzle: Any, items: Sequence[Any], path: str | Path,
              curve: Any = None) -> list[Path]: ...

    def read_curve(self, curve: str | Path, what: str) -> Any: ...
