"""Exports of selected levels: a JSON level pack, CSV, SVG and PNG pictures, an HTML gallery.

Every writer takes the puzzle (or a `curator.levels.PackHeader`), the levels and where to
write, and returns the paths it wrote:

    write_json(puzzle, levels, "pack.json")
    write_csv(puzzle, levels, "levels.csv")
    write_svg(puzzle, levels, "pictures/")     # one file per level; "one.svg" for one level
    write_png(puzzle, levels, "pictures/")
    write_html(puzzle, levels, "gallery.html")
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from curator.export.gallery import write_html
from curator.export.picture import picture, png_image, svg_text
from curator.export.table import write_csv
from curator.levels import Level, PuzzleLike, save_pack


class ExportError(ValueError):
    """An export cannot be written as asked (one-line message)."""


def write_json(puzzle: PuzzleLike, levels: Sequence[Level], path: str | Path) -> list[Path]:
    """The level pack (format curator-level-pack/1, see docs/level-pack.md)."""
    return [save_pack(puzzle, levels, path)]


def level_title(puzzle: PuzzleLike, number: int, level: Level) -> str:
    return f"{puzzle.title}: level {number} ({level.pieces} pieces)"


def _pictures(
    puzzle: PuzzleLike, levels: Sequence[Level], out: str | Path, suffix: str, write: Callable
) -> list[Path]:
    out = Path(out)
    if out.suffix.lower() == suffix:
        if len(levels) != 1:
            raise ExportError(
                f"{out}: one {suffix} file holds one level, got {len(levels)}; give a folder for them"
            )
        targets = [out]
    else:
        out.mkdir(parents=True, exist_ok=True)
        targets = [out / f"level-{n:04d}{suffix}" for n in range(1, len(levels) + 1)]
    for number, (level, target) in enumerate(zip(levels, targets), start=1):
        write(picture(puzzle, level.position, level_title(puzzle, number, level)), target)
    return targets


def write_svg(puzzle: PuzzleLike, levels: Sequence[Level], out: str | Path) -> list[Path]:
    """One SVG picture per level into the folder `out` (level-0001.svg, ...), or into the
    file `out` if it ends in .svg and there is exactly one level."""
    return _pictures(
        puzzle, levels, out, ".svg", lambda pic, p: p.write_text(svg_text(pic), encoding="utf-8")
    )


def write_png(puzzle: PuzzleLike, levels: Sequence[Level], out: str | Path) -> list[Path]:
    """One PNG picture per level, named like `write_svg`'s."""
    return _pictures(puzzle, levels, out, ".png", lambda pic, p: png_image(pic).save(p, format="PNG"))


WRITERS: dict[str, Callable[[PuzzleLike, Sequence[Level], str | Path], list[Path]]] = {
    "json": write_json,
    "csv": write_csv,
    "svg": write_svg,
    "png": write_png,
    "html": write_html,
}
"""Export formats by name, as the `curator export --format` option knows them."""

__all__ = ["WRITERS", "ExportError", "write_csv", "write_html", "write_json", "write_png", "write_svg"]
