"""What the command line prints: the reports of the kinds of results, drawn as tables.

Each kind builds its own tables as plain data (`curator.common.report.Report`); this module
only draws them. `--json` prints the same data as JSON instead (see the API's `to_json`).
"""

from __future__ import annotations

from rich.table import Table

from curator.common.errors import DamagedResults, FolderRefused
from curator.common.report import Report
from curator.options import option_name


def table(report: Report) -> Table:
    """A report as a rich table."""
    drawn = Table(title=report.title, caption=report.caption, show_lines=report.lines)
    for column in report.columns:
        drawn.add_column(column.name, justify="right" if column.right else "left", min_width=column.min_width,
                         no_wrap=column.no_wrap)
    for row in report.rows:
        drawn.add_row(*row)
    return drawn


def store_error_text(exc: FolderRefused | DamagedResults) -> str:
    """A store error whose remedy the command line words as its own options and commands."""
    if isinstance(exc, FolderRefused):
        return exc.spelled(option_name)
    analyze = f"`curator analyze {exc.puzzle_file} --output {exc.directory}"
    if exc.every_layer:
        return f"{exc.problem}; run `curator verify {exc.directory}`, then {analyze} --force`"
    return f"{exc.problem}; {analyze}` recomputes it"
