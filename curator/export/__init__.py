"""Exports of selected levels: a JSON level pack, CSV, SVG and PNG pictures, an HTML gallery.

Every writer takes the puzzle (or a `curator.export.pack.PackHeader`), the levels and where to
write, and returns the paths it wrote:

    write_json(puzzle, levels, "pack.json")
    write_csv(puzzle, levels, "levels.csv")
    write_svg(puzzle, levels, "pictures/")     # one file per level; "one.svg" for one level
    write_png(puzzle, levels, "pictures/")
    write_html(puzzle, levels, "gallery.html")

`curator.export.distance` has the same writers for positions picked from the distance table of
a permutation puzzle; both share `write_pictures` and the gallery and CSV helpers.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

from curator.arrange import PackCurve
from curator.common.files import atomic_write
from curator.export.gallery import write_html
from curator.export.pack import save_pack
from curator.export.table import write_csv
from curator.layered.level import Level, PuzzleLike
from curator.picture import Picture, picture, png_bytes, svg_text

T = TypeVar("T")


class ExportError(ValueError):
    """An export cannot be written as asked (one-line message)."""


def write_json(puzzle: PuzzleLike, levels: Sequence[Level], path: str | Path,
               curve: PackCurve | None = None) -> list[Path]:
    """The level pack (format curator-level-pack/1, see docs/level-pack.md)."""
    return [save_pack(puzzle, levels, path, curve)]


def level_title(puzzle: PuzzleLike, number: int, level: Level) -> str:
    return f"{puzzle.title}: level {number} ({level.pieces} pieces)"


SAVERS: dict[str, Callable[[Picture, Path], object]] = {
    ".svg": lambda pic, path: atomic_write(path, svg_text(pic).encode()),
    ".png": lambda pic, path: atomic_write(path, png_bytes(pic)),
}
"""How a picture is written, by file suffix."""


def write_pictures(
    items: Sequence[T], draw: Callable[[int, T], Picture], out: str | Path, suffix: str, noun: str = "level"
) -> list[Path]:
    """Picture `draw(number, item)` of each item (numbered from 1), written as NOUN-0001.svg,
    ... (or .png, after `suffix`) into the folder `out`, or into the file `out` if it ends in
    `suffix` and there is exactly one item."""
    out = Path(out)
    if out.suffix.lower() == suffix:
        if len(items) != 1:
            raise ExportError(
                f"{out}: one {suffix} file holds one {noun}, got {len(items)}; give a folder for them"
            )
        targets = [out]
    else:
        out.mkdir(parents=True, exist_ok=True)
        targets = [out / f"{noun}-{n:04d}{suffix}" for n in range(1, len(items) + 1)]
    for number, (item, target) in enumerate(zip(items, targets), start=1):
        SAVERS[suffix](draw(number, item), target)
    return targets


def _level_pictures(puzzle: PuzzleLike, levels: Sequence[Level], out: str | Path, suffix: str) -> list[Path]:
    def draw(number: int, level: Level) -> Picture:
        return picture(puzzle, level.position, level_title(puzzle, number, level))

    return write_pictures(levels, draw, out, suffix)


def write_svg(puzzle: PuzzleLike, levels: Sequence[Level], out: str | Path) -> list[Path]:
    """One SVG picture per level into the folder `out` (level-0001.svg, ...), or into the
    file `out` if it ends in .svg and there is exactly one level."""
    return _level_pictures(puzzle, levels, out, ".svg")


def write_png(puzzle: PuzzleLike, levels: Sequence[Level], out: str | Path) -> list[Path]:
    """One PNG picture per level, named like `write_svg`'s."""
    return _level_pictures(puzzle, levels, out, ".png")


WRITERS: dict[str, Callable[[PuzzleLike, Sequence[Level], str | Path], list[Path]]] = {
    "json": write_json,
    "csv": write_csv,
    "svg": write_svg,
    "png": write_png,
    "html": write_html,
}
"""Export formats by name, as the `curator export --format` option knows them."""
FORMATS = tuple(WRITERS)
CURVE_FORMATS = ("json", "csv", "html")
"""The formats that record a pack's difficulty curve (pictures are just in pack order)."""


def write(fmt: str, puzzle: Any, items: Sequence[Any], path: str | Path,
          writers: Mapping[str, Callable[..., list[Path]]] = WRITERS, curve: PackCurve | None = None,
          ) -> list[Path]:
    """Write `items` in the format named `fmt` (one of FORMATS) to `path`, creating the
    folder a single file goes into; return the files written. `curve` (the levels' slots
    in a pack) goes into the formats of CURVE_FORMATS. ExportError for an unknown format or
    a picture file asked to hold several items."""
    if fmt not in writers:
        raise ExportError(f"format must be one of {', '.join(writers)}, got {fmt!r}")
    path = Path(path)
    if fmt in ("json", "csv", "html") or path.suffix.lower() == f".{fmt}":
        path.parent.mkdir(parents=True, exist_ok=True)
    if curve is not None and fmt in CURVE_FORMATS:
        return writers[fmt](puzzle, items, path, curve=curve)
    return writers[fmt](puzzle, items, path)


__all__ = ["FORMATS", "WRITERS", "ExportError", "write", "write_csv", "write_html", "write_json", "write_png",
           "write_svg"]
