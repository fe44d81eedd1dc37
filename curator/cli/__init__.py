"""The `curator` command: a thin layer over the Python API (see `curator.cli.app`)."""

from curator.cli.app import app

__all__ = ["app"]
