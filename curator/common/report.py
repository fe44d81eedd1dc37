"""Tables and text for people, as plain data: what a kind of results says about itself.

Each kind of table builds `Report`s (its counts, its levels, its packs); the command line
draws them, so every kind prints alike without the command line knowing any of them.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Column:
    """One column of a report: its heading and how its cells are set."""

    name: str
    right: bool = True
    """Numbers are set flush right, text flush left."""
    min_width: int | None = None
    no_wrap: bool = False


@dataclass(frozen=True)
class Report:
    """A table: title, columns, rows of text, an optional caption.

    >>> report = Report("triangle", (Column("pieces"), Column("positions")), (("1", "15"),))
    >>> report.columns[0].name, report.rows[0]
    ('pieces', ('1', '15'))
    """

    title: str | None
    columns: tuple[Column, ...]
    rows: tuple[tuple[str, ...], ...] = ()
    caption: str | None = None
    lines: bool = False
    """Rules between rows (for rows of several lines, such as boards)."""
    width: int | None = None
    """The width to draw at where the output is not a terminal (a file or a pipe gets the
    whole table, not one cut to 80 columns); None: the console's own."""
    notes: tuple[str, ...] = field(default=())
    """Lines printed after the table."""


def columns(*names: str, left: tuple[str, ...] = (), min_width: bool = False) -> tuple[Column, ...]:
    """Columns named `names`, flush right unless named in `left`.

    >>> [c.right for c in columns("distance", "board", left=("board",))]
    [True, False]
    """
    return tuple(Column(name, name not in left, len(name) if min_width else None) for name in names)


def yes(flag: bool) -> str:
    """A flag for people."""
    return "yes" if flag else "no"
