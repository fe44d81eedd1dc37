"""The command line answers --help and --version."""

from typer.testing import CliRunner

from curator import __version__
from curator.cli import app

runner = CliRunner()


def test_version_prints_package_version():
    result = runner.invoke(app, ["--version"])
    assert result.exit_code == 0
    assert result.stdout.strip() == f"curator {__version__}"


def test_help_lists_usage():
    result = runner.invoke(app, ["--help"])
    assert result.exit_code == 0
    assert "Usage" in result.stdout
