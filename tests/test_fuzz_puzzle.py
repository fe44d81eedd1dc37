"""Hostile puzzle files, generated: wrong types, huge or negative numbers, unknown rule
families, boards of no cells or too many, goals that cannot be met, names that try to leave
the output folder, broken TOML. Whatever the file, reading it gives a valid puzzle or one
PuzzleError on one line, and `curator analyze` / `curator solve` exit with code 2 and one
line on stderr; nothing is written outside the output folder."""

from __future__ import annotations

import contextlib
import math
import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from curator.cli import app
from curator.common.errors import PuzzleError
from curator.common.ranking import MAX_CELLS
from curator.common.reading import NAME_PATTERN
from curator.layered.puzzle import Puzzle, parse_puzzle

PUZZLES = Path(__file__).resolve().parent.parent / "puzzles"
SOURCE = "fuzz/puzzle.toml"
BUNDLED = sorted(p.read_text(encoding="utf-8") for p in PUZZLES.glob("*.toml"))
LONG = {"ricochet", "rush-hour-universe", "rush-hour-no-walls", "rush-hour"}
"""Bundled files whose analysis takes more than a second or two (the universes and Ricochet
hours, Rush Hour's 13 vehicles several seconds): the command-line fuzz analyzes what it reads,
so it mutates only the others."""
QUICK = sorted(p.read_text(encoding="utf-8") for p in PUZZLES.glob("*.toml") if p.stem not in LONG)
ABSOLUTE_TARGET = "/tmp/curator-fuzz-must-not-exist"

runner = CliRunner()
fast = settings(max_examples=150, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
cli_settings = settings(max_examples=60, deadline=None, derandomize=True,
                        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
thorough = settings(max_examples=3000, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


# -- writing TOML -------------------------------------------------------------------------------


def toml_string(text: str) -> str:
    out = []
    for ch in text:
        if ch in '"\\':
            out.append("\\" + ch)
        elif ord(ch) < 0x20 or ord(ch) == 0x7F or 0xD800 <= ord(ch) <= 0xDFFF:
            out.append(f"\\u{ord(ch) if ord(ch) < 0xD800 else 0xFFFD:04x}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def toml_value(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    if isinstance(value, str):
        return toml_string(value)
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{toml_string(k)} = {toml_value(v)}" for k, v in value.items()) + "}"
    raise TypeError(value)


def toml_document(data: dict) -> str:
    """Top-level scalars first, then one [table] per table (nested tables inline)."""
    lines = [f"{toml_string(k)} = {toml_value(v)}" for k, v in data.items() if not isinstance(v, dict)]
    for key, table in data.items():
        if isinstance(table, dict):
            lines.append(f"[{toml_string(key)}]")
            lines += [f"{toml_string(k)} = {toml_value(v)}" for k, v in table.items()]
    return "\n".join(lines) + "\n"


# -- hostile values -----------------------------------------------------------------------------

NUMBERS = st.one_of(
    st.integers(-5, 70),
    st.sampled_from([-1, 0, 2**63 - 1, -(2**63), 10**30, -(10**30), 10**100]),
)
HOSTILE_NAMES = st.sampled_from([
    "../x", "../../etc/passwd", "..", ".", "a/b", "a\\b", "/abs/path", ABSOLUTE_TARGET, "~/x",
    "C:\\x", "", " ", "x" * 65, "x" * 10_000, "名前", "café", "x\x00y", "x\ny", "-x", ".hidden",
    "con", "x/", "output", "\u202e", "a" * 64,
])
TEXT = st.text(max_size=40) | st.text(alphabet=". o#\n\tx", max_size=40)
SCALARS = st.one_of(NUMBERS, st.booleans(), st.floats(allow_nan=True), TEXT, HOSTILE_NAMES)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(TEXT, inner, max_size=4),
    max_leaves=12,
)


def art_text(rows: int, cols: int, chars: str, draw) -> str:
    return "\n".join("".join(draw(st.sampled_from(chars)) for _ in range(cols)) for _ in range(rows))


@st.composite
def board_art(draw):
    kind = draw(st.sampled_from(["small", "big", "empty", "junk", "exact", "triangle"]))
    if kind == "small":
        return art_text(draw(st.integers(1, 6)), draw(st.integers(1, 6)), "..o# ", draw)
    if kind == "big":
        return art_text(draw(st.integers(8, 14)), draw(st.integers(8, 14)), "...#", draw)
    if kind == "empty":
        return draw(st.sampled_from(["", "\n\n", "   \n #", "####"]))
    if kind == "exact":
        cells = draw(st.sampled_from([63, 64, 65, 100]))
        return "\n".join("." * 8 for _ in range(cells // 8)) + "\n" + "." * (cells % 8)
    if kind == "triangle":
        rows = draw(st.integers(1, 8))
        shift = draw(st.integers(0, 1))
        lines = (" " * (rows - r - 1 + shift * (r % 2)) + " .".join("." * (r + 1)) for r in range(rows))
        return "\n".join(lines)
    return draw(TEXT)


SECTIONS = ["name", "title", "max_pieces", "art", "grid", "family", "params", "pieces", "goal",
            "unknown", "missing"]


@st.composite
def puzzle_tables(draw) -> dict:
    """A puzzle file's tables: a valid file with one or more parts made hostile, so that every
    stage of the checks gets reached."""
    hostile = set(draw(st.lists(st.sampled_from(SECTIONS), min_size=0, max_size=3)))
    triangular = draw(st.booleans())
    typed = not triangular and draw(st.booleans())

    data: dict = {"name": draw(HOSTILE_NAMES | SCALARS) if "name" in hostile else "fuzz"}
    if "title" in hostile:
        data["title"] = draw(SCALARS)
    if "max_pieces" in hostile:
        data["max_pieces"] = draw(NUMBERS | SCALARS)
    elif draw(st.booleans()):
        data["max_pieces"] = draw(st.integers(1, 3))

    if "art" in hostile:
        art = draw(board_art() | VALUES)
    elif triangular:
        rows = draw(st.integers(2, 6))
        art = "\n".join(" " * (rows - r - 1) + " ".join("." * (r + 1)) for r in range(rows))
    else:
        art = art_text(draw(st.integers(2, 5)), draw(st.integers(2, 5)), "....#", draw)
    board: dict = {"art": art}
    if "grid" in hostile:
        board["grid"] = draw(st.sampled_from(["hex", "", "Square", "triangular", "square"]) | SCALARS)
    elif triangular or draw(st.booleans()):
        board["grid"] = "triangular" if triangular else "square"
    data["board"] = board

    family = "capture" if typed else draw(st.sampled_from(["jump"] if triangular else ["jump", "fling"]))
    rules: dict = {"family": family}
    if "family" in hostile:
        rules["family"] = draw(st.sampled_from(["permutation", "Jump", "chess", "", "capture", "fling"])
                               | SCALARS)
    if "params" in hostile:
        for key in draw(st.lists(st.sampled_from(["diagonal", "king_safe", "metric", "x", ""]),
                                 min_size=1, max_size=2)):
            rules[key] = draw(st.booleans() | SCALARS)
    elif family == "capture" and draw(st.booleans()):
        rules["king_safe"] = draw(st.booleans())
    data["rules"] = rules

    if "pieces" in hostile:
        letters = st.sampled_from(list("KQRBNP") + ["o", "KK", "", "1", "ä", "k"])
        data["pieces"] = draw(st.dictionaries(letters, NUMBERS | SCALARS, max_size=4) | SCALARS)
    elif typed:
        data["pieces"] = draw(st.dictionaries(st.sampled_from(list("KQRBNP")), st.integers(1, 1),
                                              min_size=1, max_size=3))

    if "goal" in hostile:
        goal: dict = {}
        for key in draw(st.lists(st.sampled_from(["pieces", "cells", "piece", "final_step_once", "x"]),
                                 min_size=1, max_size=3, unique=True)):
            if key == "cells":
                cell = st.tuples(NUMBERS, NUMBERS).map(list) | st.lists(NUMBERS, max_size=3) | SCALARS
                goal[key] = draw(st.lists(cell, max_size=4) | SCALARS)
            elif key == "piece":
                goal[key] = draw(st.sampled_from(list("KQRBNPo")) | SCALARS)
            else:
                goal[key] = draw(NUMBERS | st.booleans() | SCALARS)
        data["goal"] = goal
    elif draw(st.booleans()):
        data["goal"] = {"pieces": 1, "final_step_once": draw(st.booleans())}

    if "unknown" in hostile:
        where = draw(st.sampled_from([data, board, rules, data.get("goal", data)]))
        where[draw(TEXT)] = draw(VALUES)
    if "missing" in hostile:
        del data[draw(st.sampled_from(sorted(data)))]
    return data


@st.composite
def mutated_text(draw, texts: list[str] = BUNDLED) -> str:
    """A bundled puzzle file with characters deleted, inserted or replaced."""
    text = draw(st.sampled_from(texts))
    for _ in range(draw(st.integers(1, 6))):
        at = draw(st.integers(0, len(text)))
        action = draw(st.sampled_from(["delete", "insert", "replace", "line"]))
        piece = draw(st.text(alphabet=st.characters(codec="utf-8"), max_size=8)
                     | st.sampled_from(['"', "[", "]", "=", "\n", '"""', "-1", "1e999", "../", "{"]))
        if action == "delete":
            text = text[:at] + text[at + draw(st.integers(1, 20)):]
        elif action == "insert":
            text = text[:at] + piece + text[at:]
        elif action == "replace":
            text = text[:at] + piece + text[at + len(piece):]
        else:
            lines = text.split("\n")
            del lines[draw(st.integers(0, len(lines) - 1))]
            text = "\n".join(lines)
    return text


@st.composite
def nested(draw, texts: list[str] = BUNDLED) -> str:
    depth = draw(st.sampled_from([50, 400, 2000, 20000]))
    kind = draw(st.sampled_from(["array", "table"]))
    if kind == "array":
        value = "[" * depth + "]" * depth
    else:
        value = "{a = " * depth + "1" + "}" * depth
    return draw(st.sampled_from(texts)) + f"\nx = {value}\n"


DOCUMENTS = st.one_of(
    puzzle_tables().map(toml_document),
    puzzle_tables().map(toml_document),
    mutated_text(),
    nested(),
    st.text(max_size=200),
)
QUICK_DOCUMENTS = st.one_of(
    puzzle_tables().map(toml_document),
    puzzle_tables().map(toml_document),
    mutated_text(QUICK),
    nested(QUICK),
    st.text(max_size=200),
)


# -- properties ---------------------------------------------------------------------------------


def read(text: str) -> Puzzle | PuzzleError:
    try:
        return parse_puzzle(text, SOURCE)
    except PuzzleError as exc:
        return exc


def assert_sound(result: Puzzle | PuzzleError) -> None:
    if isinstance(result, PuzzleError):
        message = str(result)
        assert message.startswith(f"{SOURCE}: "), message
        assert message.isprintable(), message
        return
    assert NAME_PATTERN.fullmatch(result.name) and result.name not in {".", ".."}
    assert 1 <= result.board.size <= MAX_CELLS
    assert 1 <= result.goal.pieces <= result.max_pieces <= sum(result.piece_limits) <= result.board.size


@fast
@given(DOCUMENTS)
def test_reading_gives_a_puzzle_or_one_line(text):
    assert_sound(read(text))


@thorough
@pytest.mark.slow
@given(DOCUMENTS)
def test_reading_gives_a_puzzle_or_one_line_thoroughly(text):
    assert_sound(read(text))


@pytest.mark.parametrize("name", [
    "../x", "../../x", "/abs/path", ABSOLUTE_TARGET, "a/b", "..", ".", "", "x" * 65, "名前", "x\ny",
])
def test_names_that_leave_the_output_folder_are_refused(name):
    text = toml_document({"name": name, "board": {"art": "..."}, "rules": {"family": "jump"}})
    result = read(text)
    assert isinstance(result, PuzzleError) and result.key == "name"
    assert "\n" not in str(result)


@pytest.mark.parametrize("depth", [100, 1000, 100_000])
def test_deeply_nested_toml(depth):
    result = read("name = 'x'\nv = " + "[" * depth + "]" * depth + "\n")
    assert isinstance(result, PuzzleError) and result.key in ("toml", "v")


@pytest.mark.parametrize(("art", "words"), [("", "no cells"), ("#  #", "no cells"),
                                            ("\n".join(["." * 16] * 17), "272 cells")])
def test_boards_of_no_cells_or_too_many(art, words):
    result = read(toml_document({"name": "x", "board": {"art": art}, "rules": {"family": "jump"}}))
    assert isinstance(result, PuzzleError) and words in str(result)


# -- the command line ---------------------------------------------------------------------------


def tree(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*")}


@contextlib.contextmanager
def sandbox(tmp_path_factory):
    """A fresh folder with the puzzle file under in/ and the current folder work/."""
    root = tmp_path_factory.mktemp("sandbox")
    (root / "in").mkdir()
    (root / "work").mkdir()
    with contextlib.chdir(root / "work"):
        yield root


def one_error(result, code: int) -> str:
    assert result.exit_code == code, (result.exit_code, result.stderr, result.exception)
    assert "Traceback" not in result.stderr + result.stdout
    lines = [line for line in result.stderr.split("\n") if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    return lines[0]


@cli_settings
@given(QUICK_DOCUMENTS)
def test_command_line_never_crashes_or_writes_outside(tmp_path_factory, text):
    check_command_line(tmp_path_factory, text)


@pytest.mark.slow
@settings(max_examples=600, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(QUICK_DOCUMENTS)
def test_command_line_never_crashes_or_writes_outside_thoroughly(tmp_path_factory, text):
    check_command_line(tmp_path_factory, text)


def check_command_line(tmp_path_factory, text: str) -> None:
    with sandbox(tmp_path_factory) as root:
        path = root / "in" / "puzzle.toml"
        path.write_text(text, encoding="utf-8", errors="surrogatepass")
        before = tree(root)
        puzzle = read(text)
        if isinstance(puzzle, PuzzleError) or "permutation" in text:
            result = runner.invoke(app, ["analyze", str(path)])
            if result.exit_code != 0:
                one_error(result, 2)
                assert tree(root) == before
            else:
                assert all(name.startswith(("in", "work/output")) for name in tree(root) - before)
            result = runner.invoke(app, ["solve", str(path), "--board", "."])
            assert result.exit_code == 2 and "Traceback" not in result.stderr
        else:
            # A valid file: analyze its goal layer only, into output/<name>/ under work/.
            result = runner.invoke(app, ["analyze", str(path), "--max-pieces", str(puzzle.goal.pieces)])
            assert result.exit_code in (0, 1), (result.stderr, result.exception)
            if result.exit_code == 1:
                assert "does not fit on this machine" in one_error(result, 1)
            new = tree(root) - before
            assert all(name == "work/output" or name.startswith(f"work/output/{puzzle.name}") for name in new)
    assert not os.path.exists(ABSOLUTE_TARGET)


def test_unreadable_files(tmp_path):
    missing = runner.invoke(app, ["analyze", str(tmp_path / "nope.toml")])
    assert "nope.toml" in one_error(missing, 2)
    binary = tmp_path / "binary.toml"
    binary.write_bytes(b"\xff\xfe\x00name = 'x'")
    assert "binary.toml" in one_error(runner.invoke(app, ["analyze", str(binary)]), 2)
    folder = tmp_path / "folder.toml"
    folder.mkdir()
    assert "folder.toml" in one_error(runner.invoke(app, ["analyze", str(folder)]), 2)


EDGE_CASES = {
    "one-piece-type": {"name": "k", "board": {"art": "..\n.."}, "rules": {"family": "capture"},
                       "pieces": {"K": 1}},
    "one-cell": {"name": "dot", "board": {"art": "."}, "rules": {"family": "jump"}},
    "goal-is-everything": {"name": "full", "board": {"art": "..."}, "rules": {"family": "fling"},
                           "goal": {"pieces": 3}},
    "unreachable-goal": {"name": "far", "board": {"art": "...\n. .\n..."}, "rules": {"family": "jump"},
                         "goal": {"pieces": 1, "cells": [[1, 0]]}, "max_pieces": 4},
    "sixty-four-cells": {"name": "big", "board": {"art": "\n".join(["." * 8] * 8)},
                         "rules": {"family": "fling"}, "max_pieces": 2},
    "triangle-of-one": {"name": "t", "board": {"grid": "triangular", "art": "."},
                        "rules": {"family": "jump"}},
}


@pytest.mark.parametrize("name", sorted(EDGE_CASES))
def test_edge_case_puzzles_analyze_and_verify(tmp_path, name):
    path = tmp_path / "puzzle.toml"
    path.write_text(toml_document(EDGE_CASES[name]))
    result = runner.invoke(app, ["analyze", str(path), "--output", str(tmp_path / "out")])
    assert result.exit_code == 0, (result.stderr, result.exception)
    result = runner.invoke(app, ["verify", str(tmp_path / "out"), "--sample", "100000"])
    assert result.exit_code == 0, (result.stderr, result.exception)
