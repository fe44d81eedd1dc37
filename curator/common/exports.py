"""What a results object needs from the exporters, which sit above the pipelines: a way to
write its items and to read a pack's curve. `curator.catalogue.open` hands it one."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

from curator.common.errors import SelectionError, StoreError


class Exports(Protocol):
    """What a results object needs from the layer above the pipelines to write its items and
    to read a pack's curve: the catalogue hands it one when it opens the results."""

    def write(self, fmt: str, puzzle: Any, items: Sequence[Any], path: str | Path,
              curve: Any = None) -> list[Path]: ...

    def read_curve(self, curve: str | Path, what: str) -> Any: ...


class Exporting:
    """What a results object keeps of the exporters: `exports`, set when the catalogue opens
    it (a results object made directly cannot write files)."""

    directory: Path
    exports: Exports | None = None

    def _exports(self, path: str | Path) -> Exports:
        """The exporters, to write to `path`; StoreError if the results were opened without
        them, SelectionError if `path` lies in the results folder (a file written there could
        replace a stored table, or the manifest)."""
        if self.exports is None:
            raise StoreError(f"{self.directory}: these results were opened without their exporters; "
                             "open them with curator.open to write files")
        folder = self.directory.resolve()
        target = Path(path).resolve()
        if target == folder or folder in target.parents:
            raise SelectionError(f"{path}: inside the results folder {self.directory}, where an export could "
                                 "replace its stored tables; write it elsewhere")
        return self.exports
