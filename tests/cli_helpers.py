"""Running the command line in-process, and reading its one error line."""

from __future__ import annotations

from typer.testing import CliRunner

from curator.cli import app

runner = CliRunner()


def invoke(*args):
    """`curator ARGS` in this process; an exception other than an exit is re-raised."""
    result = runner.invoke(app, [str(a) for a in args])
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result


def error_line(stderr: str) -> str:
    """The one error line, the last thing on stderr; never a traceback."""
    assert "Traceback" not in stderr, stderr
    lines = [line for line in stderr.split("\n") if line.strip()]
    errors = [line for line in lines if line.startswith("error: ")]
    assert len(errors) == 1 and lines[-1] == errors[0], stderr
    return errors[0]
