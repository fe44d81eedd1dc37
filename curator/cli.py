"""Command line of curator: analyze puzzles, inspect, select and export levels."""

from __future__ import annotations

import typer

from curator import __version__

app = typer.Typer(
    help="Retrograde analysis of board puzzles: find solvable, uniquely solvable and "
    "all-moves-solvable positions, then select and export levels.",
    no_args_is_help=True,
    add_completion=False,
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"curator {__version__}")
        raise typer.Exit()


@app.callback()
def main(
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Print the version and exit."
    ),
) -> None:
    """curator: puzzle analysis and level curation."""
