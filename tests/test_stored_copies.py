"""Stored copies checked before they are trusted: a results folder's manifest carries the
checksum of its own fields and the puzzle copy's, and every reader (each command, the
Python API) refuses an edited or damaged one in one line naming the file, with exit code 1.

The damage test flips every byte of a small folder's manifest and puzzle copy in turn: no
command may then exit 0 with output other than the undamaged folder's.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest
from cli_helpers import error_line, invoke
from sample_puzzles import CHESS_3X3

import curator
from curator.common.errors import StoreError
from curator.common.files import MANIFEST, PUZZLE_COPY, manifest_text

ROOT = Path(__file__).resolve().parent.parent
KLOTSKI_GOAL = "cells = [[3, 1], [3, 2], [4, 1], [4, 2]]"


def commands(directory: Path, out: Path, kind: str) -> list[tuple[str, ...]]:
    """Every command that reads a results folder of this kind, with arguments that succeed
    on the undamaged folder."""
    common = [("info", "--json"), ("verify", "--sample", "20")]
    layered = [("select", "--solvable", "--pieces", "2", "--limit", "3", "--json"),
               ("show", "5", "--layer", "k02-P2", "--json"),
               ("export", "--solvable", "--pieces", "2", "--limit", "3", "--format", "json", "--out",
                str(out))]
    distance = [("select", "--distance", "3..4", "--limit", "3", "--json"), ("show", "5", "--json"),
                ("export", "--distance", "3..4", "--limit", "3", "--format", "json", "--out", str(out))]
    sliding = [("select", "--distance", "10..12", "--limit", "3", "--json"), ("show", "5", "--json"),
               ("export", "--hardest", "--limit", "3", "--format", "json", "--out", str(out)),
               ("pack", "--size", "3", "--format", "json", "--out", str(out))]
    sokoban = [("select", "--distance", "20..26", "--limit", "3", "--json"),
               ("export", "--hardest", "--limit", "3", "--format", "json", "--out", str(out)),
               ("pack", "--size", "3", "--format", "json", "--out", str(out))]
    chosen = {"layers": layered, "distance": distance, "sliding": sliding, "sokoban": sokoban}[kind]
    return [(name, str(directory), *rest) for name, *rest in common + chosen]


def run(command: tuple[str, ...], out: Path) -> tuple[int, str, str]:
    """(exit code, stdout, the written file) of one command."""
    out.unlink(missing_ok=True)
    result = invoke(*command)
    written = out.read_text() if out.exists() else ""
    return result.exit_code, result.stdout, written


@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    """Small results folders of each kind (the layered one of a king and two pawns: four
    layers, so that its manifest is short enough to flip every byte of)."""
    base = tmp_path_factory.mktemp("stored")
    puzzle = base / "chess.toml"
    assert "R = 1\n" in CHESS_3X3 and "max_pieces = 4\n" in CHESS_3X3
    puzzle.write_text(CHESS_3X3.replace("R = 1\n", "").replace("max_pieces = 4\n", "max_pieces = 3\n"))
    return {
        "layers": curator.analyze(puzzle, output=base / "chess", max_pieces=2, workers=1).directory,
        "distance": curator.analyze(ROOT / "puzzles" / "eight-puzzle.toml", output=base / "eight",
                                    workers=1).directory,
        "sliding": curator.analyze(ROOT / "puzzles" / "klotski.toml", output=base / "klotski",
                                   workers=1).directory,
        "sokoban": curator.analyze(ROOT / "puzzles" / "sokoban.toml", output=base / "sokoban",
                                   workers=1).directory,
    }


@pytest.fixture
def copy(folders, tmp_path):
    """A private copy of one kind's folder, to damage."""
    return lambda kind: Path(shutil.copytree(folders[kind], tmp_path / kind))


def resign_puzzle(directory: Path, text: str) -> None:
    """Replace the puzzle copy and make the manifest agree with it (a determined edit)."""
    (directory / PUZZLE_COPY).write_text(text)
    data = json.loads((directory / MANIFEST).read_text())
    data["puzzle_sha256"] = hashlib.sha256(text.encode()).hexdigest()
    (directory / MANIFEST).write_text(manifest_text(data))


# -- edits refused by every command -----------------------------------------------------------


@pytest.mark.parametrize("kind", ["layers", "distance", "sliding", "sokoban"])
def test_an_edited_puzzle_copy_is_refused_by_every_command(copy, tmp_path, kind):
    directory = copy(kind)
    path = directory / PUZZLE_COPY
    text = path.read_text()
    path.write_text(text.replace(KLOTSKI_GOAL, "cells = [[0, 1], [0, 2], [1, 1], [1, 2]]")
                    if kind == "sliding" else text + "\n# edited\n")
    for command in commands(directory, tmp_path / "out.json", kind):
        result = invoke(*command)
        assert result.exit_code == 1, command
        assert error_line(result.stderr) == (f"error: {path}: does not match the manifest's puzzle_sha256 "
                                             "(edited or damaged copy of the puzzle file)"), command
        assert not (tmp_path / "out.json").exists()
    with pytest.raises(StoreError, match="puzzle_sha256"):
        curator.open(directory)


@pytest.mark.parametrize("kind", ["layers", "distance", "sliding", "sokoban"])
def test_edited_manifest_figures_are_refused_by_every_command(copy, tmp_path, kind):
    directory = copy(kind)
    path = directory / MANIFEST
    data = json.loads(path.read_text())
    if kind == "layers":
        data["layers"][1]["solvable"] += 1000
    else:
        data["distances"][3]["positions"] += 1000
    path.write_text(json.dumps(data, indent=1))
    for command in commands(directory, tmp_path / "out.json", kind):
        result = invoke(*command)
        assert result.exit_code == 1, command
        assert error_line(result.stderr) == (f"error: {path}: checksum does not match its contents (edited "
                                             "or damaged manifest)"), command


def test_a_manifest_without_a_checksum_is_refused_in_every_format_until_analyzed_again(copy):
    directory = copy("distance")
    path = directory / MANIFEST
    data = json.loads(path.read_text())
    assert list(data)[-1] == "manifest_sha256" and data["format"] == "curator-distance/2"
    del data["manifest_sha256"]
    refused = (f"error: {path}: has no manifest_sha256 (edited or damaged manifest, or one written before "
               "manifests had a checksum)")
    for form in ("curator-distance/2", "curator-distance/1"):  # /1 was written before manifests had one
        path.write_text(json.dumps({**data, "format": form}, indent=1) + "\n")
        for command in (("info", directory), ("verify", directory), ("select", directory, "--distance", "3")):
            result = invoke(*command)
            assert result.exit_code == 1, (form, command)
            assert error_line(result.stderr) == refused, (form, command)
    puzzle = ROOT / "puzzles" / "eight-puzzle.toml"
    kept = invoke("analyze", puzzle, "--output", directory)
    assert error_line(kept.stderr).endswith("use --force to compute the tables again")
    assert invoke("analyze", puzzle, "--output", directory, "--force").exit_code == 0
    assert json.loads(path.read_text())["format"] == "curator-distance/2"  # rewritten with a checksum
    assert invoke("verify", directory).exit_code == 0


def test_analyze_refuses_an_edited_manifest_until_forced(copy):
    directory = copy("distance")
    path = directory / MANIFEST
    path.write_text(path.read_text().replace('"complete": true', '"complete": false'))
    result = invoke("analyze", ROOT / "puzzles" / "eight-puzzle.toml", "--output", directory)
    assert result.exit_code == 1
    assert error_line(result.stderr).endswith("(edited or damaged manifest); use --force to compute the "
                                              "tables again")
    assert invoke("analyze", ROOT / "puzzles" / "eight-puzzle.toml", "--output", directory,
                  "--force").exit_code == 0
    assert invoke("verify", directory).exit_code == 0


def test_moving_the_goal_and_fixing_the_checksums_is_caught_by_verify(copy, tmp_path):
    directory = copy("sliding")
    text = (directory / PUZZLE_COPY).read_text()
    resign_puzzle(directory, text.replace(KLOTSKI_GOAL, "cells = [[0, 1], [0, 2], [1, 1], [1, 2]]"))
    result = invoke("verify", directory, "--sample", "300")
    assert result.exit_code == 1 and "bad ranks" in error_line(result.stderr)


def test_a_puzzle_copy_named_elsewhere_is_refused(copy):
    directory = copy("layers")
    data = json.loads((directory / MANIFEST).read_text())
    data["puzzle_file"] = "../../elsewhere.toml"
    (directory / MANIFEST).write_text(manifest_text(data))
    with pytest.raises(StoreError, match="puzzle_file must be puzzle.toml"):
        curator.open(directory)


# -- every byte flipped ----------------------------------------------------------------------------


FLIPS = (0x01, 0x20)
"""What each byte is XORed with: the lowest bit (digits, letters and quotes stay ASCII, so
the JSON often stays valid) and case/space."""


@pytest.mark.parametrize("kind", ["layers", "distance"])
def test_no_flipped_byte_of_manifest_or_puzzle_copy_goes_unnoticed(copy, tmp_path, kind):
    directory = copy(kind)
    out = tmp_path / "out.json"
    every = commands(directory, out, kind)
    clean = [run(command, out) for command in every]
    assert all(code == 0 for code, _, _ in clean), clean
    flipped = 0
    for name in (MANIFEST, PUZZLE_COPY):
        path = directory / name
        original = path.read_bytes()
        for i in range(len(original)):
            for flip in FLIPS:
                data = bytearray(original)
                data[i] ^= flip
                path.write_bytes(bytes(data))
                flipped += 1
                try:
                    curator.open(directory)  # what every command reads first
                except StoreError as exc:
                    assert "\n" not in str(exc) and str(path) in str(exc), str(exc)
                    if i % (len(original) // 3 + 1) or flip != FLIPS[0]:  # every command, thrice a file
                        continue
                    for command in every:
                        result = invoke(*command)
                        assert result.exit_code == 1, (name, i, command)
                        assert str(path) in error_line(result.stderr)
                    continue
                for command, before in zip(every, clean):  # opened: nothing may change
                    code, text, written = run(command, out)
                    assert code != 0 or (text, written) == before[1:], (name, i, flip, command)
        path.write_bytes(original)
    assert flipped > 1000
