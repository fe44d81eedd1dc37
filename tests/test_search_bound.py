"""A search above the stored layers: its estimate, its bound and the advice it gives, its
progress, and Ctrl+C on the command line."""

from __future__ import annotations

import math
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from cli_helpers import error_line, invoke

import curator
from curator.common.bounds import Search
from curator.common.errors import SearchTooLarge
from curator.layered.search import Explorer

ROOT = Path(__file__).resolve().parent.parent
TRIANGLE = ROOT / "puzzles" / "triangle.toml"
PEG = ROOT / "puzzles" / "peg.toml"
START = "    ./   o o/  o o o/ o o o o/o o o o o"
"""The triangle's usual start: 14 pegs, far above a store of 3 pegs."""


@pytest.fixture(scope="module")
def low(tmp_path_factory):
    """The triangle's layers up to 3 pegs."""
    return curator.analyze(TRIANGLE, tmp_path_factory.mktemp("low") / "triangle", max_pieces=3)


def test_a_search_past_its_bound_names_how_far_to_analyze(low, tmp_path):
    with pytest.raises(SearchTooLarge) as caught:
        low.solve(START, search_limit=200)
    message = str(caught.value)
    assert message.startswith("the search would pass 200 positions above the stored layers")
    pieces = caught.value.pieces
    assert f"analyze up to {pieces} pieces first (analyze with max_pieces={pieces})" in message
    assert 3 < pieces < 14
    # The advice holds: with the layers up to that many pegs the same bound is enough.
    higher = curator.analyze(TRIANGLE, tmp_path / "triangle", max_pieces=pieces)
    level = higher.solve(START, search_limit=200)
    assert level.solutions == 29760 == low.solve(START).solutions


def test_progress_and_estimate(low):
    heard, notes = [], []
    low.solve(START, search_limit=10_000, progress=lambda *figures: heard.append(figures), note=notes.append)
    assert heard and all(bound == 10_000 for _, bound in heard)
    assert [done for done, _ in heard] == sorted(done for done, _ in heard)
    assert heard[-1][0] <= 10_000
    # The tiers of 13..4 pegs might hold more than 10,000 positions (C(15, k) each): an estimate first.
    assert len(notes) == 1
    assert notes[0].startswith("search from 14 pieces down to the stored layers (3 pieces): at most ")
    assert "it stops past 10,000 positions" in notes[0]
    quiet = []
    low.solve(START, search_limit=None, note=quiet.append)
    assert quiet and "stops past" not in quiet[0]


def test_the_estimate_bounds_each_tier():
    estimate = Explorer(curator.load(TRIANGLE)).estimate(14)
    assert estimate.stored is None
    # Every placement of k pegs, and at most MAX_CHILDREN children per position above.
    assert estimate.bounds == (1, *(min(math.comb(15, k), 512 ** (14 - k)) for k in range(13, 0, -1)))
    assert estimate.positions == sum(estimate.bounds)


def test_without_stored_layers_the_whole_search_is_bounded():
    explorer = Explorer(curator.load(TRIANGLE))
    with pytest.raises(SearchTooLarge) as caught:
        explorer.report((0, *[1] * 14), search=Search(search_limit=50))
    assert "above the stored layers" in str(caught.value)
    assert explorer.report((0, *[1] * 14), search=Search(search_limit=None)).solutions == 29760


def test_solve_search_limit_on_the_command_line(low, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = invoke("solve", TRIANGLE, "--board", START, "--results", low.directory, "--search-limit", "200")
    assert result.exit_code == 1
    line = error_line(result.stderr)
    assert line.startswith("error: the search would pass 200 positions above the stored layers")
    assert f"(curator analyze {TRIANGLE} --output {low.directory} --max-pieces " in line
    assert result.stderr.startswith("search from 14 pieces down to the stored layers (3 pieces)")
    fine = invoke("solve", TRIANGLE, "--board", START, "--results", low.directory, "--json")
    assert fine.exit_code == 0, fine.output
    bad = invoke("solve", TRIANGLE, "--board", START, "--search-limit", "0")
    assert bad.exit_code == 2 and error_line(bad.stderr) == "error: --search-limit must be at least 1, got 0"


def test_search_limit_applies_to_layered_puzzles_only(tmp_path):
    result = invoke("solve", ROOT / "puzzles" / "klotski.toml", "--board", "VSSV/VSSV/VHHV/VNNV/N..N",
                    "--results", tmp_path, "--search-limit", "5")
    assert result.exit_code == 2
    assert error_line(result.stderr) == "error: --search-limit does not apply to a sliding-block puzzle"


def test_ctrl_c_stops_a_search_with_one_line_and_exit_130(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    board = "  ooo/  ooo/ooooooo/ooo.ooo/ooooooo/  ooo/  ooo"
    command = [sys.executable, "-m", "curator", "solve", str(PEG), "--board", board,
               "--search-limit", "400000000"]
    process = subprocess.Popen(command, cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               start_new_session=True)
    first = process.stderr.readline().decode()  # the estimate: the search has started
    assert first.startswith("search from 32 pieces down to the goal"), first
    time.sleep(1.0)
    process.send_signal(signal.SIGINT)
    try:
        # A fresh install may be inside the compiler (native code, where Python sees the
        # signal only when it returns) on a machine busy with other tests: allow it time.
        out, rest = process.communicate(timeout=300)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        pytest.fail("the search did not stop within 300 s of Ctrl+C")
    assert process.returncode == 130
    assert out == b""
    assert rest.decode().strip() == "stopped (Ctrl+C)"


class _Finalized:
    """Sends Ctrl+C to this process from its finalizer, where Python drops the interrupt."""

    def __del__(self) -> None:
        os.kill(os.getpid(), signal.SIGINT)


@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")  # the dropped interrupt
def test_a_ctrl_c_dropped_in_a_finalizer_stops_at_the_next_progress_update():
    from io import StringIO

    from rich.console import Console

    from curator.progress import count_progress, ctrl_c_kept

    before = signal.getsignal(signal.SIGINT)
    with ctrl_c_kept(), count_progress(Console(file=StringIO()), "searching") as update:
        _Finalized()  # collected at once: the KeyboardInterrupt raised inside it is dropped
        with pytest.raises(KeyboardInterrupt):
            update(1, 10)
    assert signal.getsignal(signal.SIGINT) is before
