"""The command line answers --help and --version, refuses empty arguments, and never writes over
what is not its own."""

import os
import stat
from pathlib import Path

import pytest
from typer.testing import CliRunner

from curator import __version__
from curator.cli import app
from curator.common.files import atomic_write

runner = CliRunner()


def test_version_prints_package_version():
    result = runner.invoke(app, ["--version"])
    assert result.exit_code == 0
    assert result.stdout.strip() == f"curator {__version__}"


def test_help_lists_usage():
    result = runner.invoke(app, ["--help"])
    assert result.exit_code == 0
    assert "Usage" in result.stdout


def test_help_wraps_each_paragraph_as_the_terminal_allows_and_shows_brackets(monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    listing = runner.invoke(app, ["--help"]).stdout
    families = runner.invoke(app, ["families", "--help"]).stdout
    # one wide line each, not the docstrings' line breaks; "[rules]" is text, not markup
    assert "with their [rules] options" in listing
    assert "curator.families), with their [rules] options." in families
    assert "levels players have graded (--graded) or playtested in the workspace" in listing



def test_every_help_text_keeps_its_brackets():
    """rich reads "[word ...]" as a style and drops it: a default such as "[all]" written
    without its backslash vanished from --help."""
    import typer.main
    from rich.text import Text

    group = typer.main.get_command(app)
    context = group.make_context("curator", [], resilient_parsing=True)
    commands = [group, *(group.get_command(context, name) for name in group.list_commands(context))]
    texts = [(command.name, param.name, param.help) for command in commands for param in command.params
             if getattr(param, "help", None)]
    texts += [(command.name, "", command.help) for command in commands if command.help]
    assert len(texts) > 80
    eaten = [(command, name) for command, name, text in texts
             if Text.from_markup(text).plain != text.replace("\\[", "[")]
    assert eaten == []

def test_serve_names_a_port_it_cannot_take_before_it_starts(tmp_path):
    import socket

    puzzle = Path(__file__).parents[1] / "puzzles" / "triangle.toml"
    folder, db = str(tmp_path / "t"), str(tmp_path / "w")
    assert runner.invoke(app, ["analyze", str(puzzle), "-o", folder, "--max-pieces", "3"]).exit_code == 0
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = runner.invoke(app, ["serve", folder, "--port", str(port), "--db", db])
    assert result.exit_code == 1
    said = f"error: --port {port}: cannot listen on 127.0.0.1 (Address already in use)"
    assert result.stderr.strip() == said
    result = runner.invoke(app, ["serve", folder, "--host", "256.1.1.1", "--db", db])
    assert result.exit_code == 2 and result.stderr.startswith("error: --host 256.1.1.1: no such address (")


def test_an_empty_argument_is_refused_before_anything_runs(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    cases = ((["analyze", "puzzle.toml", "-o", ""], "-o"), (["select", ""], "DIRECTORY"),
             (["select", "out", "--sort="], "--sort"), (["pack", "out", "--variety", ""], "--variety"),
             (["show", "--pieces", "3", "out", ""], "RANK"), (["serve", ""], "DIR"),
             (["select", "out", "--unique", ""], "an argument"), ([""], "the command"))
    for args, what in cases:
        result = runner.invoke(app, args)
        assert result.exit_code == 2, (args, result.output)
        assert result.stderr.strip() == f"error: {what}: is empty (a variable left unset?)"
    assert list(tmp_path.iterdir()) == []


def test_a_parser_error_is_one_line_naming_the_option(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    cases = ((["analyze", "p.toml", "--workers", "abc"], "Invalid value for '--workers'", "curator analyze"),
             (["serve", "out", "--port", "99999"], "Invalid value for '--port'", "curator serve"),
             (["select", "out", "--bogus"], "No such option: --bogus", "curator select"),
             (["bogus"], "No such command 'bogus'", "curator"),
             (["select", "out", "extra"], "Got unexpected extra argument(s) (extra)", "curator select"))
    for args, said, command in cases:
        result = runner.invoke(app, args, prog_name="curator")
        assert result.exit_code == 2, (args, result.output)
        line = result.stderr.strip()
        assert "\n" not in line and line.startswith(f"error: {said}"), line
        assert line.endswith(f"(see `{command} --help`)"), line
    assert list(tmp_path.iterdir()) == []
    assert "Usage" in runner.invoke(app, []).stdout  # no arguments at all still shows the help


def test_a_file_that_is_not_ours_is_never_replaced(tmp_path):
    puzzle = Path(__file__).parents[1] / "puzzles" / "triangle.toml"
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "puzzle.toml").write_text("my own notes\n")
    result = runner.invoke(app, ["analyze", str(puzzle), "-o", str(mine)])
    assert result.exit_code == 1
    assert result.stderr.strip().splitlines()[-1] == (
        f"error: {mine / 'puzzle.toml'}: is not a copy of this puzzle file, and the analysis would overwrite "
        "it; use --force to replace it or --output to write elsewhere")
    assert (mine / "puzzle.toml").read_text() == "my own notes\n"
    assert sorted(p.name for p in mine.iterdir()) == ["puzzle.toml"]


def test_a_write_keeps_links_and_leaves_what_is_not_a_file(tmp_path):
    target = tmp_path / "target.json"
    target.write_text("old")
    link = tmp_path / "link.json"
    link.symlink_to(target)
    atomic_write(link, b"new")
    assert link.is_symlink() and target.read_text() == "new"
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    with pytest.raises(OSError, match="is not a regular file, so it is not replaced"):
        atomic_write(pipe, b"data")
    assert stat.S_ISFIFO(pipe.stat().st_mode)
