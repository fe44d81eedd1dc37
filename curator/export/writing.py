"""What the exports of every kind of puzzle share: the head of a pack, its JSON text, writing
a text file, a CSV table (with a pack's targets), and one picture file per item.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, TypeVar

from curator.arrange import PackCurve
from curator.common.figures import difficulty_value
from curator.common.files import atomic_write
from curator.picture import Picture, png_bytes, svg_text
from curator.version import __version__

T = TypeVar("T")


class ExportError(ValueError):
    """An export cannot be written as asked (one-line message)."""


def pack_head(fmt: str) -> dict[str, str]:
    """The first keys of every pack: its `format` and the curator version that wrote it."""
    return {"format": fmt, "generator": f"curator {__version__}"}


def json_text(data: Any) -> str:
    """A pack as the files hold it: indented one space, non-ASCII kept, a final newline."""
    return json.dumps(data, indent=1, ensure_ascii=False) + "\n"


def write_text(path: str | Path, text: str) -> list[Path]:
    """Write `text` to `path` (through a temporary file and a rename); the one path written."""
    path = Path(path)
    atomic_write(path, text.encode())
    return [path]


def write_table(path: str | Path, columns: Sequence[str], table: Iterable[dict[str, str]],
                curve: PackCurve | None = None, after: str = "") -> list[Path]:
    """Write a CSV file: a header line of `columns`, then one line per row of `table`. A pack's
    curve adds the column `target` (the figure each slot aims at) after the column `after`."""
    if curve is not None:
        at = list(columns).index(after) + 1
        columns = (*columns[:at], "target", *columns[at:])
        table = [{**row, "target": repr(difficulty_value(target))}
                 for row, target in zip(table, curve.targets)]
    text = io.StringIO(newline="")
    writer = csv.DictWriter(text, fieldnames=columns)
    writer.writeheader()
    writer.writerows(table)
    return write_text(path, text.getvalue())


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
    targets = file_targets(len(items), out, suffix, noun)
    for number, (item, target) in enumerate(zip(items, targets), start=1):
        SAVERS[suffix](draw(number, item), target)
    return targets


def file_targets(count: int, out: str | Path, suffix: str, noun: str = "level") -> list[Path]:
    """Where `count` items written one per file go: NOUN-0001.SUFFIX, ... in the folder
    `out` (made if missing), or the file `out` itself if it ends in `suffix` and there is
    exactly one item (ExportError if there are more, or if `out` ends in the suffix of
    another kind of file). Files NOUN-NNNN.SUFFIX numbered above `count` that an earlier
    export left in the folder are removed, so that the folder holds this export alone."""
    out = Path(out)
    given = out.suffix.lower()
    if given == suffix:
        if count != 1:
            raise ExportError(
                f"{out}: one {suffix} file holds one {noun}, got {count}; give a folder for them"
            )
        return [out]
    if given in FILE_SUFFIXES:
        raise ExportError(f"{out}: ends in {given}, but these are {suffix} files; give a file ending in "
                          f"{suffix} for one {noun}, or a folder")
    if out.exists() and not out.is_dir():
        raise ExportError(f"{out}: is a file, not a folder; {noun}s are written one per {suffix} file into "
                          f"a folder (or give a file ending in {suffix} for one {noun})")
    out.mkdir(parents=True, exist_ok=True)
    numbered = re.compile(rf"{re.escape(noun)}-(\d{{4,}}){re.escape(suffix)}")
    for old in out.iterdir():
        match = numbered.fullmatch(old.name)
        if match and int(match.group(1)) > count and old.is_file():
            old.unlink()
    return [out / f"{noun}-{n:04d}{suffix}" for n in range(1, count + 1)]


FILE_SUFFIXES = (".json", ".csv", ".html", ".svg", ".png", ".ldtk", ".tmj", ".toml")
"""The suffixes of the files exports write."""


def one_file(out: str | Path, suffixes: tuple[str, ...]) -> Path:
    """The file `out` that an export written as one file goes to, its folder made if missing;
    ExportError if `out` ends in the suffix of another kind of file than `suffixes` names
    (any other name is taken as given)."""
    out = Path(out)
    given = out.suffix.lower()
    if given in FILE_SUFFIXES and given not in suffixes:
        raise ExportError(f"{out}: ends in {given}, but this is a {' or '.join(suffixes)} file")
    if out.is_dir():
        raise ExportError(f"{out}: is a folder; this export is one {suffixes[0]} file")
    out.parent.mkdir(parents=True, exist_ok=True)
    return out
