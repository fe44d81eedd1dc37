"""The catalogue of kinds: every file and folder gets its kind from it, a command reads its
puzzle file once, and the layers above the pipelines never test classes to tell kinds apart."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from cli_helpers import invoke

import curator
from curator import catalogue
from curator.common import reading
from curator.common.errors import PuzzleError, StoreError
from curator.kind import Kind

PUZZLES = Path(__file__).parent.parent / "puzzles"
PACKAGE = Path(curator.__file__).parent


def test_every_bundled_puzzle_gets_the_kind_its_family_names():
    expected = {"klotski": "sliding", "rush-hour": "sliding", "robots": "sliding", "lunar-lockout": "sliding",
                "tilt": "sliding", "ricochet": "sliding", "pocket-cube": "distance",
                "eight-puzzle": "distance", "sokoban": "sokoban", "sokoban-hall": "sokoban",
                "rush-hour-universe": "universe", "rush-hour-no-walls": "universe"}
    for path in sorted(PUZZLES.glob("*.toml")):
        kind, puzzle = catalogue.read_puzzle(path)
        assert kind.name == expected.get(path.stem, "layers"), path
        assert puzzle.name == path.stem or path.stem == "peg-centre"


def test_the_kinds_are_listed_once_each_with_their_contract():
    names = [kind.name for kind in catalogue.kinds()]
    assert names == ["layers", "distance", "sliding", "sokoban", "universe"]
    for kind in catalogue.kinds():
        assert isinstance(kind, Kind)
        assert catalogue.kind_named(kind.name) is kind
        assert set(kind.pack_options) <= set(kind.selection_options)
        if kind.name == "universe":
            assert catalogue.formats(kind) == ("json", "csv", "toml", "histogram")
            continue
        boards = ("ldtk", "tiled", "play") if kind.name != "distance" else ()
        assert catalogue.formats(kind) == ("json", "csv", "svg", "png", "html", *boards)
    assert catalogue.known_formats() == ("json", "csv", "svg", "png", "html", "ldtk", "tiled", "play", "toml",
                                         "histogram")
    with pytest.raises(StoreError, match="results of kind 'nope' are not known here"):
        catalogue.kind_named("nope")


def test_a_folder_gets_its_kind_from_its_manifest(tmp_path):
    out = curator.analyze(PUZZLES / "triangle.toml", output=tmp_path / "tri", max_pieces=3, workers=1)
    assert catalogue.kind_of(tmp_path / "tri").name == "layers" == catalogue.kind_for(out).name


def test_analyze_reads_and_decodes_its_puzzle_file_once(tmp_path, monkeypatch):
    source = PUZZLES / "triangle.toml"
    reads: list[Path] = []
    original = reading.read_input

    def counting(path, *args, **kwargs):
        if Path(path).resolve() == source.resolve():
            reads.append(path)
        return original(path, *args, **kwargs)

    monkeypatch.setattr(reading, "read_input", counting)
    result = invoke("analyze", source, "--output", tmp_path / "tri", "--max-pieces", "3", "--workers", "1")
    assert result.exit_code == 0, result.stderr
    assert len(reads) == 1


def test_an_unknown_family_names_every_kind_s_families(tmp_path):
    path = tmp_path / "odd.toml"
    path.write_text('name = "odd"\n[board]\nart = "ooo"\n[rules]\nfamily = "hop"\n')
    with pytest.raises(PuzzleError) as caught:
        catalogue.read_puzzle(path)
    message = str(caught.value)
    assert "rules.family: unknown family 'hop'" in message
    assert "jump" in message and "permutation" in message and "slide" in message and "push" in message


def _isinstance_targets(path: Path) -> list[str]:
    """The class names every isinstance() call in a module tests against."""
    names = []
    for node in ast.walk(ast.parse(path.read_text())):
        called = getattr(node.func, "id", None) if isinstance(node, ast.Call) else None
        if called == "isinstance" and len(node.args) == 2:
            names += [n.id for n in ast.walk(node.args[1]) if isinstance(n, ast.Name)]
            names += [n.attr for n in ast.walk(node.args[1]) if isinstance(n, ast.Attribute)]
    return names


@pytest.mark.parametrize("module", ["api.py", "cli/app.py", "cli/render.py", "web/app.py", "web/folders.py",
                                    "options.py"])
def test_the_layers_above_the_pipelines_never_test_kinds_by_class(module):
    kinds = [name for name in _isinstance_targets(PACKAGE / module) if name.endswith(("Results", "Puzzle"))]
    assert kinds == []


def test_a_selection_that_matches_nothing_says_where_matches_are(tmp_path):
    out = tmp_path / "tri"
    curator.analyze(PUZZLES / "triangle.toml", output=out, max_pieces=12, workers=1)
    result = invoke("select", out, "--unique", "--pieces", "10..12", "--json")
    assert result.exit_code == 0
    assert result.stderr.strip() == ("note: nothing matches; positions with --unique are stored with "
                                     "1..9 pieces")
    found = invoke("select", out, "--unique", "--pieces", "5", "--limit", "1")
    assert found.exit_code == 0 and "note:" not in found.stderr
    tilt = curator.analyze(PUZZLES / "tilt.toml", output=tmp_path / "tilt", workers=1)
    for args, note in ((["--distance", "90..99"], "levels exist at distances 1.."),
                       (["--distance", "90..99", "--unique"], "levels with --unique exist at distances 1..")):
        result = invoke("select", tilt.directory, *args, "--json")
        assert result.exit_code == 0, result.output
        assert result.stderr.startswith(f"note: nothing matches; {note}"), result.stderr
