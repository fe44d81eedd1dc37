"""`python -m curator`: the command line."""

from curator.cli import app

app()
