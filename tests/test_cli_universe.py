"""The command line on universe tables: analyze, info, select with every filter, export, and a
puzzle exported as a sliding-block file analyzed again by the sliding-block engine."""

from __future__ import annotations

import csv
import json
import math
import shutil
from pathlib import Path

import pytest
from cli_helpers import error_line, invoke

import curator
import curator.common.resources
from curator.common.resources import bytes_text
from curator.export.universe import _distances, histogram_svg
from curator.universe.analysis import WORKER_BYTES, analyze_universe
from curator.universe.pieces import BYTES_PER_PACKED
from curator.universe.puzzle import load_universe
from curator.universe.results import UniverseResults
from curator.universe.store import UniverseStore, record_dtype

DATA = Path(__file__).parent / "data"


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("universe") / "u4"
    result = invoke("analyze", DATA / "rush-hour-4x4.toml", "-o", out, "--workers", "1")
    assert result.exit_code == 0, result.output
    assert "26,509 connected sets of 151,752 positions" in result.output
    lines = result.output.splitlines()
    assert any(line.startswith("rush-hour-4x4: packed positions counted: ") for line in lines)
    packed = json.loads((out / "manifest.json").read_text())["packed"]
    largest = f"pieces of work (the largest {max(packed):,} packed positions, about "
    assert any(largest in line for line in lines), result.output
    record = record_dtype(4 + 4, 6).itemsize  # 8 lanes; 5 vehicle kinds and walls
    bound = f"the sets at most {bytes_text(sum(packed) * record)} on disk"
    assert bound in " ".join(result.output.split())
    return out


def test_info_shows_puzzles_by_distance(folder):
    result = invoke("info", folder)
    assert result.exit_code == 0
    lines = [line for line in result.output.splitlines() if line.strip().startswith("│")]
    assert lines[-1].split("│")[1].strip() == "7"
    summary = json.loads(invoke("info", folder, "--json").output)
    figures = (summary["sets"], summary["solvable_sets"], summary["minimal"], summary["farthest"])
    assert figures == (26509, 15739, 32, 7)


def test_select_takes_the_universe_filters(folder):
    data = json.loads(invoke("select", folder, "--minimal", "--walls", "0..0", "--hardest", "--json").output)
    assert data["matched"] == len(data["puzzles"]) > 0
    assert all(p["minimal"] and p["walls"] == 0 for p in data["puzzles"])
    counted = invoke("select", folder, "--counts", "x=2,v=1..2", "--distance", "4..9", "--count")
    listed = json.loads(invoke("select", folder, "--counts", "x=2,v=1..2", "--distance", "4..9",
                               "--json").output)
    assert counted.output.strip() == f"total: {listed['matched']:,}"
    assert all(p["counts"]["x"] == 2 and 1 <= p["counts"]["v"] <= 2 and p["distance"] >= 4
               for p in listed["puzzles"])
    first = json.loads(invoke("select", folder, "--sort", "cluster", "--limit", "3",
                              "--json").output)["puzzles"]
    assert [p["cluster"] for p in first] == sorted((p["cluster"] for p in first), reverse=True)


@pytest.mark.parametrize(("args", "message"), [
    (("--counts", "q=1"), "'q=1' is not TYPE=A..B with TYPE one of R, h, H, v, V, x"),
    (("--all-moves",), "--all-moves does not apply to universe tables"),
    (("--sort", "colour"), "--sort: sorts by distance"),
])
def test_bad_selections_get_one_line(folder, args, message):
    result = invoke("select", folder, *args)
    assert result.exit_code == 2
    assert message in error_line(result.stderr)


def test_exported_puzzle_files_are_solved_alike_by_the_sliding_engine(folder, tmp_path):
    levels = tmp_path / "levels"
    result = invoke("export", folder, "--minimal", "--distance", "6..9", "--format", "toml", "-o", levels)
    assert result.exit_code == 0, result.output
    files = sorted(levels.glob("*.toml"))
    puzzles = json.loads(invoke("select", folder, "--minimal", "--distance", "6..9",
                                "--json").output)["puzzles"]
    assert len(files) == len(puzzles) >= 3
    for path, puzzle in zip(files[:3], puzzles[:3]):
        out = tmp_path / path.stem
        assert invoke("analyze", path, "-o", out, "--workers", "1").exit_code == 0
        board = puzzle["board"].replace("x", "#").replace("/", "\n")
        solved = json.loads(invoke("solve", path, "--board", board, "--results", out, "--json").output)
        assert solved["distance"] == puzzle["distance"], path


def test_json_csv_and_histogram_exports(folder, tmp_path):
    assert invoke("export", folder, "--hardest", "-f", "json", "-o", tmp_path / "p.json").exit_code == 0
    pack = json.loads((tmp_path / "p.json").read_text())
    assert pack["format"] == "curator-universe-puzzles/1" and pack["universe"]["rows"] == 4
    assert invoke("export", folder, "--hardest", "-f", "csv", "-o", tmp_path / "p.csv").exit_code == 0
    with (tmp_path / "p.csv").open() as handle:
        rows = list(csv.DictReader(handle))
    assert [int(r["distance"]) for r in rows] == [p["distance"] for p in pack["puzzles"]]
    assert [r["minimal"] for r in rows] == [str(p["minimal"]).lower() for p in pack["puzzles"]]  # true/false


def test_the_histogram_charts_a_selection_without_reading_its_puzzles(folder, tmp_path, monkeypatch):
    # Charted from the stored distances (the wall-free 6 x 6 universe has 33 million sets that
    # can be solved), the same picture as drawn from the puzzles listed.
    results = curator.open(folder)
    drawn = histogram_svg(results.puzzle, _distances(results.select(solvable=True, walls=(0, 0))))
    assert "493 puzzles by distance" in drawn

    def unread(self, rank):
        raise AssertionError(f"set {rank} read as a puzzle")

    monkeypatch.setattr(UniverseResults, "level", unread)
    assert invoke("export", folder, "--solvable", "--walls", "0..0", "-f", "histogram",
                  "-o", tmp_path / "h.svg").exit_code == 0
    assert (tmp_path / "h.svg").read_text() == drawn


@pytest.mark.parametrize("after", [0.3, 3.0])  # as the workers start; once they search
def test_ctrl_c_stops_the_workers_at_once_with_one_line(tmp_path, after):
    # The wall-free universe takes over an hour: Ctrl+C (to the whole process group, as a terminal
    # sends it) must not wait for the pieces under way, and must leave no worker behind. Workers
    # still starting must not print the traceback of their cut-short imports.
    import os
    import signal
    import subprocess
    import sys
    import time

    root = Path(__file__).resolve().parent.parent
    command = [sys.executable, "-m", "curator", "analyze", str(root / "puzzles" / "rush-hour-no-walls.toml"),
               "-o", str(tmp_path / "u"), "--workers", "2"]
    process = subprocess.Popen(command, cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(root)},
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    first = process.stderr.readline().decode()
    assert first.startswith("rush-hour-no-walls: 6 x 6"), first
    counted = process.stderr.readline().decode()  # the pieces' packed positions, counted first
    assert counted.startswith("rush-hour-no-walls: packed positions counted: "), counted
    time.sleep(after)
    os.killpg(process.pid, signal.SIGINT)
    try:
        out, rest = process.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        pytest.fail("the analysis did not stop within 60 s of Ctrl+C")
    assert process.returncode == 130
    assert rest.decode().strip().splitlines()[-1:] == ["stopped (Ctrl+C)"]
    assert "Warning" not in rest.decode() and "Traceback" not in rest.decode()
    # No process of the group is left: the workers were ended with it, and the helper that
    # tracks their shared resources ends as it sees this process gone (give it a moment).
    for _ in range(50):
        group = ["ps", "-o", "pid=,args=", "-g", str(process.pid)]
        left = subprocess.run(group, capture_output=True, text=True)
        running = [line for line in left.stdout.splitlines() if "<defunct>" not in line]
        if not running:
            break
        time.sleep(0.1)
    assert running == [], left.stdout
    assert (tmp_path / "u" / "manifest.json").exists()


def test_tables_that_keep_the_minimal_sets_count_every_set(folder, tmp_path):
    out = tmp_path / "minimal"
    result = invoke("analyze", DATA / "rush-hour-4x4.toml", "-o", out, "--workers", "1", "--keep", "minimal")
    assert result.exit_code == 0, result.output
    assert "26,509 connected sets of 151,752 positions" in result.output
    assert "the tables keep the minimal sets" in " ".join(result.output.split())
    data = json.loads(invoke("select", out, "--json").output)
    assert data["matched"] == 32 and all(p["minimal"] for p in data["puzzles"])
    every = json.loads(invoke("select", folder, "--minimal", "--json").output)
    assert [p["board"] for p in data["puzzles"]] == [p["board"] for p in every["puzzles"]]
    again = invoke("analyze", DATA / "rush-hour-4x4.toml", "-o", out, "--workers", "1", "--keep", "solvable")
    assert again.exit_code == 1
    assert error_line(again.stderr).endswith(
        "keep minimal sets, not solvable; use --force to compute them again")


@pytest.mark.parametrize(("puzzle", "keep", "message"), [
    (DATA / "rush-hour-4x4.toml", "some", "--keep must be one of all, solvable, minimal, not 'some'"),
    (Path(__file__).parents[1] / "puzzles" / "triangle.toml", "minimal", "--keep does not apply to"),
])
def test_keep_is_checked(tmp_path, puzzle, keep, message):
    result = invoke("analyze", puzzle, "-o", tmp_path / "out", "--keep", keep)
    assert result.exit_code == 2, result.output
    assert message in error_line(result.stderr)


def test_an_analysis_too_large_for_the_machine_is_refused_before_it_starts(folder, tmp_path, monkeypatch):
    packed = json.loads((folder / "manifest.json").read_text())["packed"]
    record = record_dtype(4 + 4, 6).itemsize
    usage = type("Usage", (), {"free": 100})
    monkeypatch.setattr(curator.common.resources.shutil, "disk_usage", lambda path: usage)
    out = tmp_path / "u4"
    for keep, share in (("all", 0.5), ("minimal", 0.01)):
        result = invoke("analyze", DATA / "rush-hour-4x4.toml", "-o", out, "--workers", "1", "--keep", keep)
        assert result.exit_code == 1
        line = error_line(result.stderr)
        needed = bytes_text(math.ceil(sum(packed) * record * share))
        assert f"rush-hour-4x4's universe does not fit on this machine (disk: needs about {needed}, " in line
        assert "--keep solvable or minimal" in line and "--ignore-limits" in line
        assert not out.exists()
    # A finished folder needs nothing more; --ignore-limits runs anyway.
    assert invoke("analyze", DATA / "rush-hour-4x4.toml", "-o", folder, "--workers", "1").exit_code == 0
    result = invoke("analyze", DATA / "rush-hour-4x4.toml", "-o", out, "--workers", "1", "--ignore-limits")
    assert result.exit_code == 0, result.stderr

    monkeypatch.undo()
    monkeypatch.setattr(curator.common.resources, "free_memory", lambda: 1000)
    result = invoke("analyze", DATA / "rush-hour-4x4.toml", "-o", tmp_path / "other", "--workers", "2")
    assert result.exit_code == 1
    needed = bytes_text(2 * (max(packed) * BYTES_PER_PACKED + WORKER_BYTES))
    assert f"memory: needs about {needed}, 1000 B available" in error_line(result.stderr)
    assert not (tmp_path / "other").exists()


def test_the_check_counts_only_the_pieces_of_work_left(folder, tmp_path, monkeypatch):
    partial = tmp_path / "partial"
    shutil.copytree(folder, partial)
    store = UniverseStore.open_tables(partial)
    packed = store.manifest["packed"]
    left = [item for item in range(len(packed)) if item % 3 == 0]
    for item in left:
        del store.chunks[store.chunk_key(item)]
    store.write_manifest()
    usage = type("Usage", (), {"free": 0})
    monkeypatch.setattr(curator.common.resources.shutil, "disk_usage", lambda path: usage)
    monkeypatch.setattr(curator.common.resources, "free_memory", lambda: 0)
    universe = load_universe(DATA / "rush-hour-4x4.toml")
    with pytest.raises(curator.ResourceError) as refused:
        analyze_universe(universe, partial, 2, False, limits=True)
    memory, disk = refused.value.shortfalls
    record = record_dtype(4 + 4, 6).itemsize
    per_worker = max(packed[i] for i in left) * BYTES_PER_PACKED + WORKER_BYTES
    assert (memory.resource, memory.needed) == ("memory", 2 * per_worker)
    assert (disk.resource, disk.needed) == ("disk", math.ceil(sum(packed[i] for i in left) * record * 0.5))
    assert UniverseStore.open_tables(partial).manifest == store.manifest  # refused before touching it
    analyze_universe(universe, folder, 2, False, limits=True)  # every piece stored: nothing needed


def test_a_piece_whose_file_is_gone_is_charged_again(folder, tmp_path, monkeypatch):
    partial = tmp_path / "partial"
    shutil.copytree(folder, partial)
    store = UniverseStore.open_tables(partial)
    packed = store.manifest["packed"]
    gone = [item for item in range(len(packed)) if (partial / store.chunk_name(item)).exists()][:2]
    (partial / store.chunk_name(gone[0])).unlink()
    with open(partial / store.chunk_name(gone[1]), "r+b") as cut:
        cut.truncate(1)
    monkeypatch.setattr(curator.common.resources, "free_memory", lambda: 0)
    universe = load_universe(DATA / "rush-hour-4x4.toml")
    with pytest.raises(curator.ResourceError) as refused:
        analyze_universe(universe, partial, 1, False, limits=True)
    (memory,) = [s for s in refused.value.shortfalls if s.resource == "memory"]
    assert memory.needed == max(packed[i] for i in gone) * BYTES_PER_PACKED


ROW_VEHICLES = 'h = {cells = [[0, 0], [0, 1]], along = "row", count = "0..8"}'
EVERY_VEHICLE = "\n".join([
    ROW_VEHICLES, 'H = {cells = [[0, 0], [0, 1], [0, 2]], along = "row", count = "0..5"}',
    'v = {cells = [[0, 0], [1, 0]], along = "column", count = "0..8"}',
    'V = {cells = [[0, 0], [1, 0], [2, 0]], along = "column", count = "0..5"}'])


@pytest.mark.parametrize(("rows", "cols", "pieces", "message"), [
    (3, 9, ROW_VEHICLES, "a line of 9 cells holds its vehicles in more than 15 ways"),
    (7, 6, EVERY_VEHICLE, "the lines' contents (their vehicles and walls) come in too many kinds for the "
                          "search: 64 bits, at most 63"),
])
def test_a_universe_the_search_cannot_code_is_refused_in_one_line(tmp_path, rows, cols, pieces, message):
    art = ["." * cols for _ in range(rows)]
    art[1] = "RR" + "." * (cols - 2)
    puzzle = tmp_path / "big.toml"
    puzzle.write_text("\n".join([
        'name = "big"', "[board]", 'art = """', *art, '"""', 'walls = "0..6"',
        "[rules]", 'family = "slide"', "open_lines = true",
        "[pieces]", 'R = {cells = [[0, 0], [0, 1]], along = "row"}', pieces,
        "[goal]", 'piece = "R"', f"cells = [[1, {cols - 2}], [1, {cols - 1}]]", ""]))
    result = invoke("analyze", puzzle, "-o", tmp_path / "out", "--workers", "1")
    assert result.exit_code == 2, result.output
    assert error_line(result.stderr).startswith(f"error: {puzzle}: pieces: {message}")
    assert not (tmp_path / "out").exists()


def test_a_folder_of_another_puzzle_is_refused_before_the_count(folder, tmp_path):
    other = tmp_path / "other.toml"
    other.write_text((DATA / "rush-hour-4x4.toml").read_text().replace('"rush-hour-4x4"', '"other"'))
    result = invoke("analyze", other, "-o", folder, "--workers", "1")
    assert result.exit_code == 1
    assert "packed positions counted" not in result.output + result.stderr
    assert "holds results of a different puzzle file ('rush-hour-4x4')" in error_line(result.stderr)


def test_a_signed_manifest_listing_chunks_wrongly_gets_one_line(folder, tmp_path):
    copy = tmp_path / "copy"
    shutil.copytree(folder, copy)
    store = UniverseStore.open_tables(copy)
    store.manifest["chunks"] = None
    store.write_manifest()  # signed again: the checksum holds, the contents do not
    for command in ("info", "select", "verify"):
        result = invoke(command, copy)
        assert result.exit_code == 1, (command, result.output)
        want = f"error: {copy / 'manifest.json'}: chunks must map pieces of work to their files"
        assert error_line(result.stderr) == want


def test_verify_lists_each_file_whose_entry_misstates_its_sets(folder, tmp_path):
    copy = tmp_path / "copy"
    shutil.copytree(folder, copy)
    assert invoke("verify", copy).exit_code == 0
    store = UniverseStore.open_tables(copy)
    first, second = sorted(store.chunks, key=int)[:2]
    store.chunks[first]["positions"] += 1
    store.chunks[second]["found"]["solvable_sets"] -= 1
    store.write_manifest()  # signed again: the checksum holds, the figures do not
    result = invoke("verify", copy)
    assert result.exit_code == 1
    entry = store.chunks[second]["found"]
    given = store.chunks[first]["positions"]
    want = [f"{copy / 'manifest.json'}: the entry of {store.chunk_name(int(first))} gives positions "
            f"{given}, its sets hold {given - 1}",
            f"{copy / 'manifest.json'}: the entry of {store.chunk_name(int(second))} gives found "
            f"{entry!r}, which its sets do not bear out"]
    assert [line for line in result.stderr.splitlines() if "the entry of" in line] == want
    assert error_line(result.stderr).endswith(": 2 problems, 0 bad ranks")


def test_verify_checks_the_totals_of_sets_it_does_not_keep_as_far_as_its_sets_tell(tmp_path):
    out = tmp_path / "u4"
    assert invoke("analyze", DATA / "rush-hour-4x4.toml", "-o", out, "--workers", "1", "--keep",
                  "solvable").exit_code == 0
    store = UniverseStore.open_tables(out)
    first = sorted(store.chunks, key=int)[0]
    found = store.chunks[first]["found"]
    found["sets"] += 1000  # sets that cannot be solved are not kept: nothing tells this apart
    store.write_manifest()
    assert invoke("verify", out).exit_code == 0
    for key, value in (("solvable_sets", found["solvable_sets"] + 1), ("solvable_positions", "x")):
        store.chunks[first]["found"] = {**found, key: value}
        store.write_manifest()
        result = invoke("verify", out)
        assert result.exit_code == 1
        problem = "gives found" if key == "solvable_sets" else "lacks the totals of the sets found"
        assert [line for line in result.stderr.splitlines() if problem in line] == [
            line for line in result.stderr.splitlines() if line.startswith(str(out))]
        assert error_line(result.stderr).endswith(": 1 problem, 0 bad ranks")


def test_layered_results_asked_of_a_universe_folder_say_what_it_holds(folder, tmp_path):
    result = invoke("analyze", Path(__file__).parents[1] / "puzzles" / "triangle.toml", "-o", folder)
    assert result.exit_code == 1
    assert error_line(result.stderr).startswith(
        f"error: {folder / 'manifest.json'}: holds universe tables, not layer tables (curator-layers/")


def test_a_sets_file_damaged_in_place_is_never_read_as_puzzles(folder, tmp_path):
    copy = tmp_path / "copy"
    shutil.copytree(folder, copy)
    store = UniverseStore.open_tables(copy)
    path = copy / store.chunk_name(next(int(key) for key in sorted(store.chunks)))
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0x10  # same size, other contents
    path.write_bytes(bytes(data))
    for command in ("select", "info", "export"):
        args = ("-f", "json", "-o", tmp_path / "out.json") if command == "export" else ()
        result = invoke(command, copy, *args)
        assert result.exit_code == 1, (command, result.output)
        want = f"error: {path}: checksum does not match the manifest (damaged file)"
        assert error_line(result.stderr) == want
    assert not (tmp_path / "out.json").exists()


def test_universe_tables_are_not_calibrated(folder, tmp_path):
    pack = tmp_path / "pack.json"
    assert invoke("pack", folder, "--size", "3", "-f", "json", "-o", pack).exit_code == 0
    for option, path in (("--graded", pack), ("--playtests", tmp_path / "workspace.sqlite")):
        result = invoke("calibrate", folder, option, path)
        assert result.exit_code == 2, result.output
        assert error_line(result.stderr) == (f"error: {folder}: universe tables are rated by their distance "
                                             "alone, with no player model to calibrate")


@pytest.mark.parametrize("option", [("--pieces", "3"), ("--layer", "k03")])
def test_show_refuses_layers_the_tables_do_not_have(folder, option):
    result = invoke("show", folder, "0", *option)
    assert result.exit_code == 2, result.output
    want = f"error: {option[0]}: universe tables number their sets from 0, with no layers"
    assert error_line(result.stderr) == want
    assert invoke("show", folder, "0").exit_code == 0
