"""Faults while analysing: runs killed at random moments (also in the middle of a file
write), damaged layers, full disks, read-only folders, two runs at once and analyses too big
for the machine. Nothing may be lost or silently wrong: every recorded layer stays intact,
errors are one line with exit code 1, and a rerun finishes with the same files as a run
that was never disturbed."""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from cli_helpers import error_line, invoke

import curator
import curator.common.resources
import curator.layered.analysis
from curator.common.files import MANIFEST, TEMPORARY, exclusive
from curator.distance.analysis import analyze_distances
from curator.distance.puzzle import load_permutation_puzzle
from curator.distance.store import TABLE_FILE
from curator.layered.analysis import analyze, resource_shortfalls
from curator.layered.bits import PROPERTIES
from curator.layered.puzzle import load_puzzle
from curator.layered.store import LayerStore
from curator.layered.verify import verify

PUZZLES = Path(__file__).resolve().parent.parent / "puzzles"
FLING = PUZZLES / "fling.toml"
TRIANGLE = PUZZLES / "triangle.toml"
PEG = PUZZLES / "peg.toml"
BIT_FILES = (".bits", ".packed")
"""Endings of the bit files, raw and packed."""


# -- helpers ------------------------------------------------------------------------------------


def cli_command(*args) -> list[str]:
    return [sys.executable, "-c", "from curator.cli import app; app()", *(str(a) for a in args)]


def cli_env() -> dict[str, str]:
    """The environment for a subprocess that imports this same `curator`."""
    root = str(Path(curator.__file__).resolve().parent.parent)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([root, *filter(None, [env.get("PYTHONPATH")])])
    env["COLUMNS"] = "200"
    return env


def run_cli(*args, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run(cli_command(*args), env=cli_env(), capture_output=True, text=True,
                          timeout=timeout)


def digests(directory: Path) -> dict[str, str]:
    """sha256 of every bit file, raw or packed."""
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(directory.iterdir())
            if p.suffix in BIT_FILES}


def entries(directory: Path) -> dict[str, dict]:
    """The manifest's layer entries, less the timings."""
    data = json.loads((directory / MANIFEST).read_text())
    return {e["key"]: {k: v for k, v in e.items() if k != "seconds"} for e in data["layers"]}


def temporaries(directory: Path) -> list[str]:
    return sorted(name for name in os.listdir(directory) if TEMPORARY.fullmatch(name))


def assert_recorded_layers_intact(directory: Path, clean: dict[str, str]) -> None:
    """Every layer the manifest records has files that match it and the undisturbed run."""
    if not (directory / MANIFEST).exists():
        return
    store = LayerStore.open(directory)
    for record in store.records():
        assert store.problem(record.layer) is None, record.layer.key
        for prop in PROPERTIES:
            name = record.entry["files"][prop]["path"]
            assert hashlib.sha256((directory / name).read_bytes()).hexdigest() == clean[name], name


def assert_same_as(directory: Path, clean_dir: Path) -> None:
    assert digests(directory) == digests(clean_dir)
    assert entries(directory) == entries(clean_dir)
    assert json.loads((directory / MANIFEST).read_text())["complete"] is True
    assert temporaries(directory) == []


# -- kill -9 at random moments ------------------------------------------------------------------


def kill_after(args, directory: Path, delay: float) -> bool:
    """Start `curator analyze`, kill -9 it `delay` seconds after it has opened the folder
    (rewritten the manifest); False if it finished first.

    Counting from there rather than from the start keeps the kill inside the run however
    long Python and the compiler take to start on a busy machine."""
    manifest = directory / MANIFEST
    before = manifest.stat().st_mtime_ns if manifest.exists() else None
    proc = subprocess.Popen(cli_command(*args), env=cli_env(), stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    try:
        while proc.poll() is None:
            with contextlib.suppress(FileNotFoundError):
                if manifest.stat().st_mtime_ns != before:
                    break
            time.sleep(0.002)
        proc.wait(timeout=delay)
        return False
    except subprocess.TimeoutExpired:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        return True


def kill_while_writing(args, directory: Path, skip: int, kinds: tuple[str, ...]) -> str | None:
    """Start `curator analyze` and kill -9 it as soon as a temporary file of `atomic_write`
    for one of `kinds` (".bits", ".packed", "manifest.json") shows up, after letting `skip` of them
    pass. Returns the temporary file seen, or None if the run finished first."""
    proc = subprocess.Popen(cli_command(*args), env=cli_env(), stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    seen: set[str] = set()
    try:
        while proc.poll() is None:
            try:
                names = os.listdir(directory)
            except FileNotFoundError:
                continue
            for name in names:
                match = TEMPORARY.fullmatch(name)
                if match and match.group(1).endswith(kinds) and name not in seen:
                    if len(seen) >= skip:
                        proc.send_signal(signal.SIGKILL)
                        proc.wait()
                        return name
                    seen.add(name)
        return None
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


@pytest.fixture(scope="module")
def fling_clean(tmp_path_factory) -> Path:
    """Fling! up to 5 balls (5 layers, 4.2 million positions), run undisturbed."""
    directory = tmp_path_factory.mktemp("clean") / "fling"
    analyze(load_puzzle(FLING), directory, max_pieces=5)
    return directory


def interrupted_run(tmp_path: Path, clean_dir: Path, max_delay: float, seed: int, puzzle: Path,
                    depth: int, random_kills: int, write_kills: int) -> dict[str, int]:
    """Kill -9 a run again and again (`random_kills` times at random moments up to `max_delay`
    seconds into the run, and `write_kills` times while a file is being written, alternating,
    a write last), checking after each kill that every recorded layer is intact; then finish
    it and compare every file with the undisturbed run."""
    rng = random.Random(seed)
    directory = tmp_path / "out"
    args = ("analyze", puzzle, "--max-pieces", depth, "--output", directory)
    clean = digests(clean_dir)
    stats = {"kills": 0, "mid_write": 0, "leftovers": 0}
    plan = []
    for i in range(max(random_kills, write_kills)):
        plan += ["random"] * (i < random_kills) + ["write"] * (i < write_kills)
    for attempt, kind in enumerate(plan):
        if kind == "random":
            if not kill_after(args, directory, rng.uniform(0, max_delay)):
                break
        else:
            kinds = BIT_FILES if attempt % 4 < 2 else (*BIT_FILES, MANIFEST)
            name = kill_while_writing(args, directory, rng.randrange(3), kinds)
            if name is None:
                break
            stats["mid_write"] += name in temporaries(directory)
        stats["kills"] += 1
        assert_recorded_layers_intact(directory, clean)

    for _ in range(4):  # a kill can land just after a rename: make sure the rerun has leftovers
        if temporaries(directory):
            break
        name = kill_while_writing(args, directory, 0, (*BIT_FILES, MANIFEST))
        if name is None:
            break
        stats["kills"] += 1
        stats["mid_write"] += name in temporaries(directory)
        assert_recorded_layers_intact(directory, clean)

    left = temporaries(directory)
    stats["leftovers"] = len(left)
    result = run_cli(*args)
    assert result.returncode == 0, result.stderr
    for name in left:
        assert f"{name}: removed" in result.stderr
    assert_same_as(directory, clean_dir)
    assert verify(directory).ok
    return stats


def test_killed_runs_resume_to_the_same_files(tmp_path, fling_clean):
    # The random kill comes early (0.19 s in): five layers take about a second once opened.
    stats = interrupted_run(tmp_path, fling_clean, 0.6, seed=7, puzzle=FLING, depth=5,
                            random_kills=1, write_kills=2)
    assert stats["kills"] >= 3
    assert stats["mid_write"] >= 1, "no kill landed while a file was being written"
    assert stats["leftovers"] >= 1, "the rerun had no leftover temporary file to clean up"


@pytest.fixture(scope="module")
def peg_clean(tmp_path_factory) -> Path:
    """English peg solitaire up to 10 pegs (about 150 million positions), run undisturbed."""
    directory = tmp_path_factory.mktemp("peg-clean") / "peg"
    result = run_cli("analyze", PEG, "--max-pieces", 10, "--output", directory)
    assert result.returncode == 0, result.stderr
    return directory


@pytest.mark.slow
@pytest.mark.parametrize("seed", [1, 2])
def test_many_kills_on_a_longer_run(tmp_path, peg_clean, seed):
    stats = interrupted_run(tmp_path, peg_clean, 4.0, seed=seed, puzzle=PEG, depth=10,
                            random_kills=5, write_kills=5)
    assert stats["kills"] >= 10 and stats["mid_write"] >= 2


def test_stale_temporary_files_are_removed_and_others_kept(tmp_path):
    directory = tmp_path / "tri"
    analyze(load_puzzle(TRIANGLE), directory, max_pieces=4)
    ours = [".k05.solvable.bits.a1b2c3d4.tmp", f".{MANIFEST}.zz_99xyz.tmp", ".puzzle.toml.abcdefgh.tmp"]
    theirs = [".notes.txt.a1b2c3d4.tmp", ".k05.solvable.bits.tmp", "k05.solvable.bits.a1b2c3d4.tmp"]
    for name in ours + theirs:
        (directory / name).write_bytes(b"half a file")
    warnings: list[str] = []
    analyze(load_puzzle(TRIANGLE), directory, max_pieces=6, warn=warnings.append)
    names = set(os.listdir(directory))
    assert not names & set(ours)
    assert set(theirs) <= names
    assert sorted(w.split(":")[0] for w in warnings) == sorted(str(directory / n) for n in ours)
    store = LayerStore.open(directory)
    assert all(store.verified(record.layer) for record in store.records())


def test_distance_tables_remove_their_stale_temporary_files(tmp_path):
    puzzle = load_permutation_puzzle(PUZZLES / "eight-puzzle.toml")
    directory = tmp_path / "eight"
    analyze_distances(puzzle, directory)
    ours = [f".{TABLE_FILE}.a1b2c3d4.tmp", f".{MANIFEST}.zz_99xyz.tmp"]
    theirs = [".notes.txt.a1b2c3d4.tmp", ".k05.solvable.bits.a1b2c3d4.tmp"]
    for name in ours + theirs:
        (directory / name).write_bytes(b"half a file")
    warnings: list[str] = []
    store = analyze_distances(puzzle, directory, warn=warnings.append)
    names = set(os.listdir(directory))
    assert not names & set(ours)
    assert set(theirs) <= names
    assert sorted(w.split(":")[0] for w in warnings) == sorted(str(directory / n) for n in ours)
    assert store.complete and store.counts[-1] == 2  # the two positions 31 moves away


def test_a_second_distance_run_in_the_same_folder_is_refused(tmp_path):
    directory = tmp_path / "eight"
    directory.mkdir()
    with exclusive(directory):
        result = invoke("analyze", PUZZLES / "eight-puzzle.toml", "--output", directory)
    assert result.exit_code == 1
    assert "another `curator analyze` is writing here" in error_line(result.stderr)
    assert os.listdir(directory) == []


# -- damaged layers -----------------------------------------------------------------------------


@pytest.fixture
def triangle_dir(tmp_path) -> Path:
    directory = tmp_path / "triangle"
    result = invoke("analyze", TRIANGLE, "--output", directory)
    assert result.exit_code == 0, result.stderr
    return directory


@pytest.mark.parametrize("damage", ["flip", "truncate", "extend", "delete"])
def test_damaged_layer_is_named_and_recomputed_alone(triangle_dir, damage):
    target = triangle_dir / "k09.all_moves.bits"
    before = digests(triangle_dir)
    order = [entry["key"] for entry in json.loads((triangle_dir / "manifest.json").read_text())["layers"]]
    mtimes = {p.name: p.stat().st_mtime_ns for p in triangle_dir.glob("*.bits")}
    data = target.read_bytes()
    if damage == "flip":
        target.write_bytes(data[:5] + bytes([data[5] ^ 0x10]) + data[6:])
    elif damage == "truncate":
        target.write_bytes(data[:-3])
    elif damage == "extend":
        target.write_bytes(data + bytes(8))
    else:
        target.unlink()

    store = LayerStore.open(triangle_dir)
    layer = next(r.layer for r in store.records() if r.layer.key == "k09")
    problem = store.problem(layer)
    assert problem is not None and str(target) in problem and "\n" not in problem

    result = invoke("analyze", TRIANGLE, "--output", triangle_dir)
    assert result.exit_code == 0, result.stderr
    warnings = [line for line in result.stderr.split("\n") if line.startswith("warning: ")]
    assert warnings == [f"warning: {problem}; recomputing layer k09"]
    assert digests(triangle_dir) == before
    changed = {p.name for p in triangle_dir.glob("*.bits") if p.stat().st_mtime_ns != mtimes.get(p.name)}
    assert changed <= {f"k09.{prop}.bits" for prop in PROPERTIES}
    layers = json.loads((triangle_dir / "manifest.json").read_text())["layers"]
    assert [entry["key"] for entry in layers] == order  # k09 keeps its place
    assert invoke("verify", triangle_dir).exit_code == 0


def test_loading_a_damaged_layer_names_the_file(triangle_dir):
    from curator.common.errors import StoreError

    target = triangle_dir / "k04.solvable.bits"
    data = bytearray(target.read_bytes())
    data[0] ^= 1
    target.write_bytes(bytes(data))
    store = LayerStore.open(triangle_dir)
    layer = next(r.layer for r in store.records() if r.layer.key == "k04")
    with pytest.raises(StoreError, match="k04.solvable.bits") as info:
        store.load(layer)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize("damage", ["truncated", "not json", "entry without files", "path outside"])
def test_damaged_manifest_needs_force_and_force_recovers(tmp_path, triangle_dir, damage):
    clean = digests(triangle_dir)
    manifest = triangle_dir / MANIFEST
    text = manifest.read_text()
    if damage == "truncated":
        manifest.write_text(text[: len(text) // 2])
    elif damage == "not json":
        manifest.write_bytes(b"\x00" * 100)
    else:
        data = json.loads(text)
        if damage == "entry without files":
            del data["layers"][4]["files"]
        else:
            data["layers"][4]["files"]["unique"]["path"] = "../../elsewhere.bits"
        manifest.write_text(json.dumps(data))
    for command in (["analyze", TRIANGLE, "--output", triangle_dir], ["verify", triangle_dir],
                    ["info", triangle_dir]):
        result = invoke(*command)
        assert result.exit_code == 1
        line = error_line(result.stderr)
        assert line.startswith(f"error: {manifest}: "), line
    assert "use --force" in error_line(invoke("analyze", TRIANGLE, "--output", triangle_dir).stderr)

    result = invoke("analyze", TRIANGLE, "--output", triangle_dir, "--force")
    assert result.exit_code == 0, result.stderr
    assert digests(triangle_dir) == clean
    assert invoke("verify", triangle_dir).exit_code == 0


# -- failing writes -----------------------------------------------------------------------------


def fail_fsync_for(monkeypatch, fragment: str, code: int = errno.ENOSPC) -> None:
    """Make fsync fail, as a full disk does, for files whose path contains `fragment`."""
    real = os.fsync

    def fsync(fd):
        if fragment in os.readlink(f"/proc/self/fd/{fd}"):
            raise OSError(code, os.strerror(code))
        real(fd)

    monkeypatch.setattr(os, "fsync", fsync)


@pytest.mark.parametrize("fragment", [".k06.unique.bits.", f".{MANIFEST}."])
def test_full_disk_mid_run_is_one_line_and_resumable(tmp_path, monkeypatch, fragment):
    clean = tmp_path / "clean"
    analyze(load_puzzle(TRIANGLE), clean)
    directory = tmp_path / "tri"
    analyze(load_puzzle(TRIANGLE), directory, max_pieces=5)
    fail_fsync_for(monkeypatch, fragment)
    result = invoke("analyze", TRIANGLE, "--output", directory)
    monkeypatch.undo()
    assert result.exit_code == 1
    line = error_line(result.stderr)
    assert "No space left on device" in line
    target = "k06.unique.bits" if "k06" in fragment else MANIFEST
    assert line.startswith(f"error: {directory / target}: ")
    assert temporaries(directory) == []
    assert_recorded_layers_intact(directory, digests(clean))
    assert [key for key in entries(directory)] == [f"k{k:02d}" for k in range(1, 6)]

    result = invoke("analyze", TRIANGLE, "--output", directory)
    assert result.exit_code == 0, result.stderr
    assert_same_as(directory, clean)


@contextlib.contextmanager
def tmpfs(path: Path, size: str):
    """A small tmpfs mounted at `path` (skips the test where mounting is not allowed)."""
    path.mkdir(parents=True, exist_ok=True)
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(path)],
                             capture_output=True)
    if mounted.returncode != 0:
        pytest.skip("cannot mount a tmpfs here")
    try:
        yield path
    finally:
        if subprocess.run(["umount", str(path)], capture_output=True).returncode != 0:
            subprocess.run(["umount", "-l", str(path)], capture_output=True)


def remount(path: Path, options: str) -> None:
    subprocess.run(["mount", "-o", f"remount,{options}", str(path)], check=True, capture_output=True)


@pytest.fixture(scope="module")
def fling4_clean(tmp_path_factory) -> Path:
    directory = tmp_path_factory.mktemp("fling4") / "fling"
    analyze(load_puzzle(FLING), directory, max_pieces=4)
    return directory


def test_really_full_disk(tmp_path, fling4_clean):
    """A 64 KiB tmpfs holds Fling!'s layers up to 3 balls but not the 4-ball layer."""
    with tmpfs(tmp_path / "small", "64k") as mount:
        directory = mount / "fling"
        result = invoke("analyze", FLING, "--max-pieces", 4, "--output", directory, "--ignore-limits")
        assert result.exit_code == 1, result.stderr
        line = error_line(result.stderr)
        assert "No space left on device" in line and str(directory) in line
        assert temporaries(directory) == []
        assert list(entries(directory)) == ["k01", "k02", "k03"]
        assert_recorded_layers_intact(directory, digests(fling4_clean))

        refused = invoke("analyze", FLING, "--max-pieces", 4, "--output", directory)
        assert refused.exit_code == 1
        assert "disk: needs about" in error_line(refused.stderr)

        remount(mount, "size=1m")
        result = invoke("analyze", FLING, "--max-pieces", 4, "--output", directory)
        assert result.exit_code == 0, result.stderr
        assert_same_as(directory, fling4_clean)


def test_read_only_folder(tmp_path):
    clean = tmp_path / "clean"
    analyze(load_puzzle(TRIANGLE), clean)
    with tmpfs(tmp_path / "ro", "1m") as mount:
        directory = mount / "tri"
        analyze(load_puzzle(TRIANGLE), directory, max_pieces=5)
        before = digests(directory)
        remount(mount, "ro")
        result = invoke("analyze", TRIANGLE, "--output", directory)
        assert result.exit_code == 1
        line = error_line(result.stderr)
        assert "Read-only file system" in line and str(directory) in line
        assert digests(directory) == before
        assert invoke("verify", directory).exit_code == 0

        remount(mount, "rw")
        result = invoke("analyze", TRIANGLE, "--output", directory)
        assert result.exit_code == 0, result.stderr
        assert_same_as(directory, clean)


def test_folder_that_cannot_be_created(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    result = invoke("analyze", TRIANGLE, "--output", blocker / "out")
    assert result.exit_code == 1
    assert str(blocker / "out") in error_line(result.stderr)


@pytest.mark.parametrize("puzzle_file", [TRIANGLE, PUZZLES / "pocket-cube.toml"], ids=["layers", "distances"])
def test_an_output_that_is_a_file_is_a_usage_error(tmp_path, puzzle_file):
    target = tmp_path / "results"
    target.write_text("keep me")
    result = invoke("analyze", puzzle_file, "--output", target)
    assert result.exit_code == 2
    assert f"--output {target} is a file, not a folder" in error_line(result.stderr)
    assert target.read_text() == "keep me"


def test_a_second_run_in_the_same_folder_is_refused(triangle_dir):
    before = digests(triangle_dir)
    manifest = (triangle_dir / MANIFEST).read_bytes()
    with exclusive(triangle_dir):
        result = invoke("analyze", TRIANGLE, "--output", triangle_dir, "--force")
    assert result.exit_code == 1
    assert "another `curator analyze` is writing here" in error_line(result.stderr)
    assert digests(triangle_dir) == before and (triangle_dir / MANIFEST).read_bytes() == manifest
    assert invoke("analyze", TRIANGLE, "--output", triangle_dir).exit_code == 0


# -- resource guard -----------------------------------------------------------------------------


def test_an_analysis_too_big_for_any_machine_is_refused(tmp_path):
    directory = tmp_path / "huge"
    result = invoke("analyze", FLING, "--max-pieces", 28, "--output", directory)
    assert result.exit_code == 1
    line = error_line(result.stderr)
    assert "memory: needs about" in line and "disk: needs about" in line
    assert "--ignore-limits" in line
    assert not directory.exists()


def test_limits_compare_with_free_memory_and_disk(tmp_path, monkeypatch):
    directory = tmp_path / "tri"
    monkeypatch.setattr(curator.common.resources, "free_memory", lambda: 1000)
    result = invoke("analyze", TRIANGLE, "--output", directory)
    assert result.exit_code == 1
    line = error_line(result.stderr)
    assert "memory: needs about 5.4 KiB, 1000 B available" in line and "disk" not in line
    assert not directory.exists()

    for flag in ("--ignore-limits", "--force"):
        result = invoke("analyze", TRIANGLE, "--output", directory, flag)
        assert result.exit_code == 0, result.stderr

    monkeypatch.undo()
    usage = type("Usage", (), {"free": 100})
    monkeypatch.setattr(curator.common.resources.shutil, "disk_usage", lambda path: usage)
    other = tmp_path / "deep" / "er" / "tri"
    result = invoke("analyze", TRIANGLE, "--output", other)
    assert result.exit_code == 1
    assert f"disk: needs about 12.2 KiB, 100 B free under {tmp_path}" in error_line(result.stderr)
    # A finished folder needs no more disk: its files are already there.
    assert invoke("analyze", TRIANGLE, "--output", directory).exit_code == 0


def test_distance_tables_compare_with_free_memory_and_disk(tmp_path, monkeypatch):
    directory = tmp_path / "eight"
    cube = PUZZLES / "eight-puzzle.toml"
    monkeypatch.setattr(curator.common.resources, "free_memory", lambda: 1000)
    result = invoke("analyze", cube, "--output", directory)
    assert result.exit_code == 1
    line = error_line(result.stderr)
    assert "eight-puzzle's distance table does not fit on this machine" in line
    assert "memory: needs about 11.2 MiB, 1000 B available" in line and "disk" not in line  # with move tables
    assert "--ignore-limits" in line and "--max-pieces" not in line
    assert not directory.exists()
    for flag in ("--ignore-limits", "--force"):
        result = invoke("analyze", cube, "--output", directory, flag)
        assert result.exit_code == 0, result.stderr

    monkeypatch.undo()
    usage = type("Usage", (), {"free": 100})
    monkeypatch.setattr(curator.common.resources.shutil, "disk_usage", lambda path: usage)
    result = invoke("analyze", cube, "--output", tmp_path / "other")
    assert result.exit_code == 1
    assert f"disk: needs about 177.2 KiB, 100 B free under {tmp_path}" in error_line(result.stderr)
    # A finished table needs no more disk: it is already there.
    assert invoke("analyze", cube, "--output", directory).exit_code == 0


def test_shortfalls_count_only_what_is_left_to_write(tmp_path):
    puzzle = load_puzzle(FLING)
    directory = tmp_path / "fling"
    analyze(puzzle, directory, max_pieces=3)
    total = curator.layered.analysis.estimate(puzzle, 4).disk_bytes
    written = sum(p.stat().st_size for p in directory.glob("*.bits"))
    usage = type("Usage", (), {"free": total - written})
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(curator.common.resources.shutil, "disk_usage", lambda path: usage)
        assert resource_shortfalls(puzzle, 4, directory) == []
        usage.free -= 1
        (short,) = resource_shortfalls(puzzle, 4, directory)
    assert (short.resource, short.needed, short.free) == ("disk", total - written, total - written - 1)
