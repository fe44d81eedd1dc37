"""numba's disk cache: a second process compiles nothing, and an edit is never served stale.

Each case runs the command line in fresh processes sharing one NUMBA_CACHE_DIR and counts
numba's "numba:compile" events, which fire only when a function is compiled (not loaded).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numba
import pytest
from fake_plugins import MUNCH_PUZZLE, install, munch_package
from sample_puzzles import CHESS_3X3

from curator.common import kernels
from curator.layered import search, sweep
from curator.rules.fling import fling_children
from curator.rules.jump import jump_children

ROOT = Path(__file__).resolve().parents[1]

FLING_4X4 = """\
name = "fling-4x4"
max_pieces = 4

[board]
art = \"\"\"
....
....
....
....
\"\"\"

[rules]
family = "fling"
"""

RUNNER = """\
import json, sys
from numba.core import event
from curator.cli import app

compiled = []

class Listener(event.Listener):
    def on_start(self, ev):
        compiled.append(ev.data["dispatcher"].py_func.__qualname__)

    def on_end(self, ev):
        pass

event.register("numba:compile", Listener())
for command in json.loads(sys.argv[1]):
    try:
        app(command)
    except SystemExit as stop:
        assert not stop.code, (command, stop.code)
print(json.dumps({"compiled": compiled, "scipy.linalg": "scipy.linalg" in sys.modules}))
"""


def run(source: Path, cache: Path, *commands: list[str], site: Path | None = None) -> dict:
    """Run the CLI commands in one new process on the package under `source` (and the
    packages installed in `site`): the names of the functions numba compiled, and whether
    scipy.linalg was imported."""
    path = os.pathsep.join(str(folder) for folder in (source, site) if folder is not None)
    env = {**os.environ, "PYTHONPATH": path, "NUMBA_CACHE_DIR": str(cache), "NUMBA_NUM_THREADS": "1"}
    done = subprocess.run([sys.executable, "-c", RUNNER, json.dumps(commands)], env=env, cwd=cache.parent,
                          capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_a_second_process_compiles_nothing_and_an_edit_compiles_again(tmp_path):
    # On a copy of the package, so that its move code can be edited.
    source = tmp_path / "src"
    shutil.copytree(ROOT / "curator", source / "curator", ignore=shutil.ignore_patterns("__pycache__"))
    cache = tmp_path / "numba"
    (tmp_path / "fling.toml").write_text(FLING_4X4)
    (tmp_path / "chess.toml").write_text(CHESS_3X3)
    analyze = ["analyze", "fling.toml", "-o", "out", "--force"]
    solve = ["solve", "chess.toml", "--board", "KR./.P./..P"]
    first = run(source, cache, analyze, solve)["compiled"]
    assert any(name.startswith("_run__curator_layered_sweep__lines_chunk__") for name in first)
    # A literal argument (a constant, or a variable only ever set to one) makes numba compile
    # another copy of the function called: each of the layered sweep's compiles once.
    ours = [name for name in first if re.search(r"__[0-9a-f]{20}$", name)]
    assert any(name.startswith("_classify__") for name in ours)
    assert sorted(ours) == sorted(set(ours))
    assert any(name.startswith("_expand_boards__curator_rules_capture_capture_children__") for name in first)
    assert _solvable(tmp_path / "out", 3) > 0
    # An entry of an older digest is removed when a new one is written, not on every load.
    entry = next(cache.rglob("*_lines_chunk__*.nbi"))
    stale = entry.with_name(re.sub(r"__[0-9a-f]{20}-", "__" + "0" * 20 + "-", entry.name))
    stale.write_bytes(b"")
    # numba's probe for BLAS (an import of scipy.linalg) is skipped as well.
    assert run(source, cache, analyze, solve) == {"compiled": [], "scipy.linalg": False}
    assert stale.exists()
    # The same family with its moves taken away: were the cached kernel served, it would
    # still find solvable positions.
    family = source / "curator" / "rules" / "fling.py"
    signature = "def fling_children(mask, tables, out_masks, out_moves):\n"
    family.write_text(family.read_text().replace(signature, signature + "    return 0\n"))
    again = run(source, cache, analyze)["compiled"]
    assert any(name.startswith("_run__curator_layered_sweep__lines_chunk__") for name in again)
    assert not stale.exists()
    assert _solvable(tmp_path / "out", 3) == 0


def test_a_family_from_an_installed_package_is_cached_until_its_package_changes(tmp_path):
    # The family's move code reads a constant from another module of its package: numba
    # would only notice an edit of the move code's own file.
    site = tmp_path / "site"
    install(site, "curator-munch", "1.0", munch_package("munch_cached"), {"munch": "munch_cached:MunchRules"})
    cache = tmp_path / "numba"
    (tmp_path / "munch.toml").write_text(MUNCH_PUZZLE)
    analyze = ["analyze", "munch.toml", "-o", "out", "--force"]
    kernel = "_run__munch_cached_munch_children__curator_layered_sweep__binary_chunk__"
    first = run(ROOT, cache, analyze, site=site)["compiled"]
    assert any(name.startswith(kernel) for name in first)
    assert _solvable(tmp_path / "out", 3) == 8
    assert run(ROOT, cache, analyze, site=site)["compiled"] == []
    (site / "munch_cached" / "settings.py").write_text("FIRST = 4\n")  # no direction left: no moves
    again = run(ROOT, cache, analyze, site=site)["compiled"]
    assert any(name.startswith(kernel) for name in again)
    assert _solvable(tmp_path / "out", 3) == 0


def _solvable(results: Path, pieces: int) -> int:
    manifest = json.loads((results / "manifest.json").read_text())
    (layer,) = [layer for layer in manifest["layers"] if layer["pieces"] == pieces]
    return layer["solvable"]


def test_each_family_has_its_own_cached_copy():
    fling = kernels.build(search._expand_masks, children=fling_children)
    jump = kernels.build(search._expand_masks, children=jump_children)
    assert fling is kernels.build(search._expand_masks, children=fling_children)
    name = "_expand_masks__curator_rules_{}__[0-9a-f]{{20}}"
    assert re.fullmatch(name.format("fling_fling_children"), fling.py_func.__qualname__)
    assert re.fullmatch(name.format("jump_jump_children"), jump.py_func.__qualname__)
    assert type(fling._cache).__name__ == "FunctionCache"  # not numba's NullCache


def test_a_closure_is_never_cached():
    def make():
        @numba.njit
        def children(mask, tables, out_masks, out_moves):
            return 0
        return children

    built = kernels.build(search._expand_masks, children=make())
    assert type(built._cache).__name__ == "NullCache"


def test_a_template_runs_only_when_built():
    with pytest.raises(TypeError, match="kernel template"):
        sweep._run(None, 0, 0, 0, None, None, None, 0, 1)


def test_a_slot_left_unbound_is_an_error():
    with pytest.raises(TypeError, match="nothing bound to 'children'"):
        kernels.build(search._expand_masks)
