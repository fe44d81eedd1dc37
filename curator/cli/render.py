"""What the command line prints: the reports of the kinds of results, drawn as tables.

Each kind builds its own tables as plain data (`curator.common.report.Report`); this module
only draws them. `--json` prints the same data as JSON instead (see the API's `to_json`).
"""

from __future__ import annotations

from rich.table import Table

from curator.common.report import Report


def table(report: Report) -> Table:
    """A report as a rich table."""
    drawn = Table(title=report.title, caption=report.caption, show_lines=report.lines)
    for column in report.columns:
        drawn.add_column(column.name, justify="right" if column.right else "left", min_width=column.min_width,
                         no_wrap=column.no_wrap)
    for row in report.rows:
        drawn.add_row(*row)
    return drawn
