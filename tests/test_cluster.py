"""Sweeping on a Dask cluster: the stored layers are bit-identical to a local run, also when a
worker dies in the middle of a layer; command-line use and errors.

One LocalCluster (two worker processes, one thread each, loopback only) serves the session.
"""

from __future__ import annotations

import json
import logging
import os
import re
import signal
import socket
import sys
import time
from functools import partial
from pathlib import Path

import cloudpickle
import dask
import numba
import numpy as np
import psutil
import pytest
from distributed import Client, LocalCluster
from typer.testing import CliRunner

import curator
import curator.common.resources
from curator.cli import app
from curator.common.errors import StoreError
from curator.common.files import file_sha256
from curator.common.resources import bytes_text
from curator.layered.analysis import analyze
from curator.layered.bits import PROPERTIES
from curator.layered.cluster import (
    CHUNKS,
    MAX_TASK_WORDS,
    ChunkLabel,
    ClusterError,
    ClusterExecutor,
    TaskMemory,
    below_digest,
    chunk_path,
    chunk_words,
    sweep_chunk,
    task_memory,
    task_ranges,
    worker_memory,
)
from curator.layered.puzzle import Puzzle, load_puzzle, parse_puzzle
from curator.layered.space import StateSpace
from curator.layered.store import LayerStore
from curator.layered.sweep import CHUNK_WORDS

PUZZLES = Path(__file__).resolve().parent.parent / "puzzles"
WORKERS = 2

# Workers run the test's own task functions below without importing this file.
cloudpickle.register_pickle_by_value(sys.modules[__name__])

runner = CliRunner()

CAPTURE = """\
name = "capture-4x4"
max_pieces = 4

[board]
art = \"\"\"
....
....
....
....
\"\"\"

[rules]
family = "capture"

[pieces]
K = 1
Q = 1
N = 1
P = 2

[goal]
pieces = 1
"""


def puzzle_named(name: str) -> Puzzle:
    """A bundled puzzle, or the small capture puzzle above ("capture-rook": with a rook too,
    41 layers instead of 22)."""
    if name == "capture":
        return parse_puzzle(CAPTURE, "capture-4x4.toml")
    if name == "capture-rook":
        return parse_puzzle(CAPTURE.replace("N = 1", "R = 1\nN = 1"), "capture-4x4.toml")
    return load_puzzle(PUZZLES / f"{name}.toml")


@pytest.fixture(scope="session")
def client():
    settings = {
        "distributed.worker.multiprocessing-method": "spawn",  # never fork a process with threads
        "distributed.scheduler.allowed-failures": 3,
        "distributed.comm.timeouts.connect": "10s",
    }
    with dask.config.set(settings):
        cluster = LocalCluster(
            n_workers=WORKERS, threads_per_worker=1, processes=True, host="127.0.0.1",
            dashboard_address=None, env={"NUMBA_NUM_THREADS": "1"}, silence_logs=logging.CRITICAL,
        )
        client = Client(cluster, set_as_default=False)
        try:
            client.wait_for_workers(WORKERS, timeout=60)
            threads = client.run(lambda: numba.config.NUMBA_NUM_THREADS)
            assert set(threads.values()) == {1}
            yield client
        finally:
            client.close()
            cluster.close()


def layer_digests(directory: Path) -> dict[str, dict]:
    """Per layer: the manifest's counts and checksums, and the checksums of the files on disk."""
    store = LayerStore.open(directory)
    out = {}
    for record in store.records():
        entry = record.entry
        out[entry["key"]] = {
            "counts": {k: entry[k] for k in ("positions", *PROPERTIES)},
            "manifest": {p: entry["files"][p]["sha256"] for p in PROPERTIES},
            "disk": {p: file_sha256(directory / entry["files"][p]["path"]) for p in PROPERTIES},
        }
    return out


def assert_same_layers(local: Path, remote: Path) -> None:
    expected, got = layer_digests(local), layer_digests(remote)
    assert list(got) == list(expected)
    for key, digests in expected.items():
        assert got[key] == digests, key
        assert digests["manifest"] == digests["disk"]
    assert LayerStore.open(remote).manifest["complete"]
    assert not (remote / CHUNKS).exists()


class Recorder:
    def __init__(self) -> None:
        self.advanced: dict[str, int] = {}
        self.current = None

    def layer_started(self, layer) -> None:
        self.current = layer.key
        self.advanced[layer.key] = 0

    def advance(self, positions: int) -> None:
        self.advanced[self.current] += positions

    def layer_finished(self, layer, entry, kept) -> None:
        assert kept or self.advanced[layer.key] == layer.size


# -- splitting -----------------------------------------------------------------------------


@pytest.mark.parametrize("words", [1, 255, 256, 257, 10_000, 3 * MAX_TASK_WORDS + 5])
@pytest.mark.parametrize("threads", [0, 1, 2, 64])
def test_task_ranges_cover_the_layer_in_whole_chunks(words, threads):
    ranges = task_ranges(words, threads)
    assert ranges[0][0] == 0 and ranges[-1][1] == words
    assert all(a[1] == b[0] for a, b in zip(ranges, ranges[1:]))
    sizes = [last - first for first, last in ranges]
    assert all(0 < size <= MAX_TASK_WORDS for size in sizes)
    assert all(first % CHUNK_WORDS == 0 for first, _ in ranges)
    if words >= 4 * max(threads, 1) * CHUNK_WORDS:
        assert len(ranges) >= 4 * max(threads, 1)


def test_task_ranges_with_fixed_task_words():
    assert task_ranges(10, 2, task_words=4) == [(0, 4), (4, 8), (8, 10)]
    with pytest.raises(ValueError):
        task_ranges(10, 2, task_words=0)


# -- the task on its own -------------------------------------------------------------------


def chunk_label(store: LayerStore, puzzle: Puzzle, layer) -> ChunkLabel:
    """The label the chunk files of `layer` carry, from the layers below recorded in `store`."""
    space = StateSpace(puzzle)
    below = space.layers_with(layer.pieces - 1) if layer.pieces > puzzle.goal.pieces else []
    return ChunkLabel(puzzle.sha256, layer.key, below_digest([store.record(b).entry for b in below]))


def test_task_is_idempotent_and_matches_the_stored_words(tmp_path):
    puzzle = load_puzzle(PUZZLES / "triangle.toml")
    store = analyze(puzzle, tmp_path / "out")
    layer = max((r.layer for r in store.records()), key=lambda layer: layer.words)
    first, last = 1, layer.words
    path = chunk_path(store.directory, layer, first, last)
    threads = numba.get_num_threads()
    try:
        runs = [sweep_chunk(str(store.directory), layer.counts, first, last, str(path), puzzle.sha256)
                for _ in range(2)]
    finally:
        numba.set_num_threads(threads)
    assert runs[0] == runs[1] == (str(path), file_sha256(path))
    words = chunk_words(path.read_bytes(), chunk_label(store, puzzle, layer), first, last)
    bits = store.load(layer)
    for row, prop in zip(words, PROPERTIES, strict=True):
        assert np.array_equal(row, getattr(bits, prop)[first:last])
    with pytest.raises(StoreError, match="storage every worker shares"):
        sweep_chunk(str(store.directory), layer.counts, first, last, str(path), "0" * 64)


# -- local and cluster runs store the same bits --------------------------------------------


# Each layer costs the cluster a round trip or more, whatever its size: by default the
# triangle up to 8 pegs (its largest layers, 13 tasks each) and the capture puzzle without
# its rook (its top layers still several tasks each); in full with -m slow.
@pytest.mark.parametrize(
    "name, max_pieces, task_words",
    [pytest.param("triangle", 8, 8, id="triangle-8"), pytest.param("fling", 5, None, id="fling-5"),
     pytest.param("capture", None, 64, id="capture"),
     pytest.param("triangle", None, 8, marks=pytest.mark.slow, id="triangle"),
     pytest.param("capture-rook", None, 64, marks=pytest.mark.slow, id="capture-rook")],
)
def test_cluster_run_is_bit_identical(client, tmp_path, name, max_pieces, task_words):
    puzzle = puzzle_named(name)
    analyze(puzzle, tmp_path / "local", max_pieces)
    recorder = Recorder()
    analyze(puzzle, tmp_path / "cluster", max_pieces, reporter=recorder,
            executor=ClusterExecutor(client, task_words=task_words))
    assert_same_layers(tmp_path / "local", tmp_path / "cluster")
    assert set(recorder.advanced) == set(layer_digests(tmp_path / "local"))


def test_rerun_on_the_cluster_keeps_finished_layers(client, tmp_path):
    puzzle = load_puzzle(PUZZLES / "triangle.toml")
    analyze(puzzle, tmp_path / "local")
    executor = ClusterExecutor(client)
    analyze(puzzle, tmp_path / "cluster", 6, executor=executor)
    shallow = layer_digests(tmp_path / "cluster")
    recorder = Recorder()
    analyze(puzzle, tmp_path / "cluster", reporter=recorder, executor=executor)
    assert all(recorder.advanced[key] == 0 for key in shallow)
    assert_same_layers(tmp_path / "local", tmp_path / "cluster")


# -- command line --------------------------------------------------------------------------


def test_cli_scheduler_option_and_environment(client, tmp_path):
    address = client.scheduler.address
    local = runner.invoke(app, ["analyze", str(PUZZLES / "triangle.toml"), "-o", str(tmp_path / "local")])
    assert local.exit_code == 0, local.stderr
    by_option = runner.invoke(app, ["analyze", str(PUZZLES / "triangle.toml"), "-o",
                                    str(tmp_path / "option"), "--scheduler", address])
    assert by_option.exit_code == 0, by_option.stderr
    assert f"sweeping on {address}: {WORKERS} workers" in by_option.stderr
    assert seconds_aside(by_option.stdout) == seconds_aside(local.stdout)
    by_env = runner.invoke(app, ["analyze", str(PUZZLES / "triangle.toml"), "-o", str(tmp_path / "env")],
                           env={"CURATOR_SCHEDULER": address})
    assert by_env.exit_code == 0, by_env.stderr
    assert "sweeping on" in by_env.stderr
    assert_same_layers(tmp_path / "local", tmp_path / "option")
    assert_same_layers(tmp_path / "local", tmp_path / "env")


def seconds_aside(table: str) -> str:
    return re.sub(r"\d+\.\d+", "", table)


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_cli_unreachable_scheduler_is_one_line_exit_1(tmp_path):
    address = f"tcp://127.0.0.1:{closed_port()}"
    start = time.monotonic()
    with dask.config.set({"distributed.comm.timeouts.connect": "1s"}):
        result = runner.invoke(app, ["analyze", str(PUZZLES / "triangle.toml"), "-o", str(tmp_path),
                                     "--scheduler", address])
    assert time.monotonic() - start < 20
    assert result.exit_code == 1
    lines = result.stderr.strip("\n").split("\n")
    assert [line for line in lines if line.startswith("error:")] == lines[-1:]
    assert lines[-1].startswith(f"error: cannot reach the Dask scheduler at {address}: ")


@pytest.mark.parametrize("address", ["nonsense", "tcp://127.0.0.1", "http://127.0.0.1:8786", "tcp://127.0.0.1:99999"])
def test_cli_malformed_scheduler_address_is_a_usage_error(tmp_path, address):
    result = runner.invoke(app, ["analyze", str(PUZZLES / "triangle.toml"), "-o", str(tmp_path),
                                 "--scheduler", address])
    assert result.exit_code == 2
    (line,) = result.stderr.strip("\n").split("\n")
    assert line.startswith(f"error: {address!r} is not a scheduler address like tcp://HOST:8786 (")
    assert not (tmp_path / "manifest.json").exists()


def test_cli_scheduler_with_a_permutation_puzzle_is_a_usage_error(tmp_path):
    result = runner.invoke(app, ["analyze", str(PUZZLES / "pocket-cube.toml"), "-o", str(tmp_path),
                                 "--scheduler", "tcp://127.0.0.1:1"])
    assert result.exit_code == 2
    assert "does not apply to a permutation puzzle" in result.stderr


def test_a_scheduler_from_the_environment_is_left_unused_by_puzzles_analyzed_here(tmp_path):
    """CURATOR_SCHEDULER, set for the puzzles that sweep on a cluster, does not stop the others."""
    result = runner.invoke(app, ["analyze", str(PUZZLES / "tilt.toml"), "-o", str(tmp_path)],
                           env={"CURATOR_SCHEDULER": "tcp://127.0.0.1:1"})
    assert result.exit_code == 0, result.output
    assert result.stderr.startswith("warning: CURATOR_SCHEDULER is left unused: a sliding-block puzzle is "
                                    "analyzed on this machine\n")


# -- a worker dies in the middle of a layer (last: its replacement compiles afresh) --------


def dying_chunk(balls, directory, counts, first, last, path, puzzle_sha256):
    """`sweep_chunk`, except that the first task past the start of the layer of `balls`
    balls half writes its chunk file and then kills its own worker process."""
    marker = Path(directory).parent / "killed"
    if sum(counts) == balls and first > 0:
        try:
            fd = os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
        except FileExistsError:
            pass
        else:
            os.write(fd, str(os.getpid()).encode())
            os.close(fd)
            target = Path(path)
            target.parent.mkdir(exist_ok=True)
            (target.parent / f".{target.name}.deadbeef.tmp").write_bytes(b"\0" * (last - first) * 4)
            os.kill(os.getpid(), signal.SIGKILL)
            time.sleep(60)
    return sweep_chunk(directory, counts, first, last, path, puzzle_sha256)


# The top layer dies: 4 balls (5,739 words, several tasks) by default, 5 with -m slow.
@pytest.mark.parametrize("balls", [4, pytest.param(5, marks=pytest.mark.slow)])
def test_worker_killed_mid_layer_changes_nothing(client, tmp_path, balls):
    puzzle = load_puzzle(PUZZLES / "fling.toml")
    analyze(puzzle, tmp_path / "local", balls)
    analyze(puzzle, tmp_path / "cluster", balls,
            executor=ClusterExecutor(client, task=partial(dying_chunk, balls)))
    pid = int((tmp_path / "killed").read_text())
    assert not psutil.pid_exists(pid) or psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    assert_same_layers(tmp_path / "local", tmp_path / "cluster")
    client.wait_for_workers(WORKERS, timeout=60)  # the nanny starts a new worker


def unshared_chunk(directory, counts, first, last, path, puzzle_sha256):
    """`sweep_chunk` on a worker that sees another folder at the results folder's path."""
    return sweep_chunk(str(Path(directory).parent / "elsewhere"), counts, first, last, path, puzzle_sha256)


def test_task_failure_is_one_clear_error(client, tmp_path):
    puzzle = load_puzzle(PUZZLES / "triangle.toml")
    (tmp_path / "elsewhere").mkdir()
    message = "layer k01, words 0..1: StoreError: .*storage every worker shares"
    with pytest.raises(ClusterError, match=message):
        analyze(puzzle, tmp_path / "out", executor=ClusterExecutor(client, task=unshared_chunk))
    assert not (tmp_path / "out" / CHUNKS).exists()


# -- a run stopped in the middle of a layer resumes from its chunk files -------------------

TRIANGLE_K07_WORDS = 101  # C(15, 7) = 6435 positions
STOP_FIRST = 96
"""The last 8-word task of the triangle's 7-peg layer, which `stopping_chunk` fails."""


def ranges(folder: Path, key: str) -> list[tuple[int, int]]:
    """The word ranges of layer `key` that the files in `folder` are named after, in order."""
    names = [path.name.split(".") for path in folder.glob(f"{key}.*")]
    return sorted(tuple(map(int, name[1].split("-"))) for name in names)


def calls(tmp_path: Path, key: str) -> list[tuple[int, int]]:
    """The word ranges of layer `key` that `counted_chunk` computed, in order."""
    return ranges(tmp_path / "calls", key)


def counted_chunk(directory, counts, first, last, path, puzzle_sha256):
    """`sweep_chunk`, leaving a file named after the chunk under calls/ for every call."""
    folder = Path(directory).parent / "calls"
    folder.mkdir(exist_ok=True)
    (folder / f"{Path(path).name}.{os.getpid()}.{time.monotonic_ns()}").touch()
    return sweep_chunk(directory, counts, first, last, path, puzzle_sha256)


def stopping_chunk(directory, counts, first, last, path, puzzle_sha256):
    """`counted_chunk`, except that the last task of the 7-peg layer waits until the layer's
    other chunk files are written, then fails."""
    if sum(counts) == 7 and first == STOP_FIRST:
        folder = Path(directory) / CHUNKS
        deadline = time.monotonic() + 60
        while len(list(folder.glob("k07.*.bits"))) < STOP_FIRST // 8 and time.monotonic() < deadline:
            time.sleep(0.05)
        raise RuntimeError("stopped on purpose")
    return counted_chunk(directory, counts, first, last, path, puzzle_sha256)


# Up to 8 pegs by default (the layers after the stopped one cost a round trip each), every
# layer with -m slow.
@pytest.mark.parametrize("max_pieces", [8, pytest.param(None, marks=pytest.mark.slow)])
def test_interrupted_layer_resumes_from_its_chunk_files(client, tmp_path, max_pieces):
    puzzle = load_puzzle(PUZZLES / "triangle.toml")
    analyze(puzzle, tmp_path / "local", max_pieces)
    out = tmp_path / "cluster"
    with pytest.raises(ClusterError, match="layer k07, words 96..101: RuntimeError: stopped on purpose"):
        analyze(puzzle, out, max_pieces,
                executor=ClusterExecutor(client, task=stopping_chunk, task_words=8))
    assert ranges(out / CHUNKS, "k07") == [(first, first + 8) for first in range(0, STOP_FIRST, 8)]
    assert calls(tmp_path, "k07") == [(first, first + 8) for first in range(0, STOP_FIRST, 8)]
    assert "k07" not in layer_digests(out) and "k06" in layer_digests(out)

    (tmp_path / "calls").rename(tmp_path / "first-calls")
    warnings: list[str] = []
    recorder = Recorder()
    analyze(puzzle, out, max_pieces, reporter=recorder, warn=warnings.append,
            executor=ClusterExecutor(client, task=counted_chunk, task_words=8))
    assert calls(tmp_path, "k07") == [(STOP_FIRST, TRIANGLE_K07_WORDS)]
    assert calls(tmp_path, "k06") == []
    assert len(calls(tmp_path, "k08")) == 13
    assert recorder.advanced["k07"] == 6435
    assert warnings == []
    assert_same_layers(tmp_path / "local", out)


def write_chunk(store: LayerStore, puzzle: Puzzle, layer, first: int, last: int) -> Path:
    """The chunk file a task writes for words [first, last) of `layer`, computed here."""
    path = chunk_path(store.directory.absolute(), layer, first, last)
    threads = numba.get_num_threads()
    try:
        sweep_chunk(str(store.directory.absolute()), layer.counts, first, last, str(path), puzzle.sha256)
    finally:
        numba.set_num_threads(threads)
    return path


def relabel(path: Path, **changes) -> None:
    """Rewrite a chunk file's header with `changes`, keeping its words and their checksum."""
    data = path.read_bytes()
    end = data.index(b"\n") + 1
    header = json.loads(data[:end])
    header.update(changes)
    text = json.dumps(header)
    size = -(-(len(text) + 1) // 8) * 8
    path.write_bytes((text.ljust(size - 1) + "\n").encode() + data[end:])


def test_only_chunk_files_of_these_results_are_reused(client, tmp_path):
    puzzle = load_puzzle(PUZZLES / "triangle.toml")
    analyze(puzzle, tmp_path / "local")
    out = tmp_path / "cluster"
    store = analyze(puzzle, out, 6)
    layer = StateSpace(puzzle).layer((7,))
    chunks = {first: write_chunk(store, puzzle, layer, first, first + 8) for first in (0, 8, 16, 24, 48, 56)}
    chunks[32] = write_chunk(store, puzzle, layer, 32, 44)  # another split: reused all the same
    chunks[40] = write_chunk(store, puzzle, layer, 40, 48)  # overlaps 32..44: dropped
    damaged = bytearray(chunks[8].read_bytes())
    damaged[-3] ^= 0x10
    chunks[8].write_bytes(bytes(damaged))
    relabel(chunks[16], puzzle_sha256="0" * 64)
    chunks[24].write_bytes(chunks[24].read_bytes()[:-8])
    relabel(chunks[48], below="1" * 64)
    chunks[56].write_bytes(chunks[56].read_bytes().split(b"\n", 1)[1])  # no header
    (out / CHUNKS / ".k07.64-72.bits.abcd1234.tmp").write_bytes(b"left by a dead worker")

    warnings: list[str] = []
    executor = ClusterExecutor(client, task=counted_chunk, task_words=8)
    analyze(puzzle, out, warn=warnings.append, executor=executor)
    expected = [(8, 16), (16, 24), (24, 32)] + [(a, min(a + 8, 101)) for a in range(44, 101, 8)]
    assert calls(tmp_path, "k07") == expected
    assert warnings == [
        f"{chunks[first]}: {reason}; computing words {first}..{first + 8} of layer k07 again"
        for first, reason in [
            (8, "its words do not match its checksum (damaged file)"),
            (16, "written for another puzzle file"),
            (24, "184 bytes of words, expected 192 (cut short or damaged)"),
            (48, "written for another set of layers below"),
            (56, "not a chunk file (no header)"),
        ]
    ]
    assert_same_layers(tmp_path / "local", out)


def test_force_reuses_no_chunk_file(tmp_path):
    puzzle = load_puzzle(PUZZLES / "triangle.toml")
    store = analyze(puzzle, tmp_path / "out", 6)
    write_chunk(store, puzzle, StateSpace(puzzle).layer((7,)), 0, 8)
    analyze(puzzle, tmp_path / "out", 6, force=True)
    assert not (tmp_path / "out" / CHUNKS).exists()


# -- the memory check asks the workers -----------------------------------------------------


def tiny_limit(dask_worker=None):
    """A worker on a machine with plenty of memory, whose memory limit leaves 1000 bytes."""
    return 1 << 50, 1000


def tiny_machine(dask_worker=None):
    """A worker on a machine with 1000 bytes available, without a memory limit."""
    return 1000, None


def test_task_memory_counts_one_task_and_the_tier_below():
    puzzle = load_puzzle(PUZZLES / "triangle.toml")
    needs = task_memory(puzzle, 8, threads=1, task_words=8)
    # k08: 101 words, in tasks of 8 words, from k07's 101 words
    assert needs[-1] == TaskMemory(client=3 * 8 * (101 + 8), shared=3 * 101 * 8, private=2 * 3 * 8 * 8)
    assert needs[0] == TaskMemory(client=3 * 8 * (1 + 1), shared=0, private=2 * 3 * 8 * 1)


def test_real_probe_finds_room_on_the_workers(client):
    for free, room in client.run(worker_memory).values():
        assert free > 0 and (room is None or room > 0)
    client_bytes, short = ClusterExecutor(client).memory_needs(load_puzzle(PUZZLES / "triangle.toml"), 15)
    assert client_bytes == 3 * 8 * (101 + 101) and short == []


def test_worker_short_of_memory_is_one_line_naming_it(client, tmp_path):
    addresses = sorted(client.nthreads())
    puzzle = load_puzzle(PUZZLES / "triangle.toml")
    task = max(need.shared + need.private for need in task_memory(puzzle, puzzle.max_pieces, WORKERS))
    with pytest.raises(curator.ResourceError) as info:
        curator.analyze(PUZZLES / "triangle.toml", tmp_path / "out",
                        executor=ClusterExecutor(client, memory_probe=tiny_limit))
    message = str(info.value)
    assert message == "triangle up to 15 pieces does not fit on the cluster's workers (" + "; ".join(
        f"memory: needs about {bytes_text(task)}, 1000 B left by the memory limit of worker {address}"
        for address in addresses
    ) + ")"
    assert not (tmp_path / "out").exists()

    with pytest.raises(curator.ResourceError) as info:
        curator.analyze(PUZZLES / "triangle.toml", tmp_path / "out",
                        executor=ClusterExecutor(client, memory_probe=tiny_machine))
    (short,) = info.value.shortfalls
    needs = task_memory(puzzle, puzzle.max_pieces, WORKERS)
    assert (short.needed, short.free) == (max(n.shared + WORKERS * n.private for n in needs), 1000)
    assert short.elsewhere
    assert str(info.value).endswith(f", 1000 B available on 127.0.0.1 for workers {', '.join(addresses)})")
    assert "\n" not in str(info.value)


def test_client_short_of_memory_names_this_machine(client, tmp_path, monkeypatch):
    monkeypatch.setattr(curator.common.resources, "free_memory", lambda: 1000)
    with pytest.raises(curator.ResourceError) as info:
        curator.analyze(PUZZLES / "triangle.toml", tmp_path / "out", executor=ClusterExecutor(client))
    assert str(info.value) == ("triangle up to 15 pieces does not fit on this machine "
                               "(memory: needs about 4.7 KiB, 1000 B available)")


# -- bigger runs ---------------------------------------------------------------------------


@pytest.mark.slow
def test_full_capture_puzzle_is_bit_identical(client, tmp_path):
    puzzle = load_puzzle(PUZZLES / "solitaire-chess.toml")
    analyze(puzzle, tmp_path / "local")
    analyze(puzzle, tmp_path / "cluster", executor=ClusterExecutor(client))
    assert_same_layers(tmp_path / "local", tmp_path / "cluster")


@pytest.mark.slow
def test_fling_through_7_balls_is_bit_identical(client, tmp_path):
    puzzle = load_puzzle(PUZZLES / "fling.toml")
    analyze(puzzle, tmp_path / "local", 7)
    analyze(puzzle, tmp_path / "cluster", 7, executor=ClusterExecutor(client))
    assert_same_layers(tmp_path / "local", tmp_path / "cluster")


# At most one wall by default (119 piece sets to search, not 199), up to two with -m slow.
@pytest.mark.parametrize("walls", ["0..1", pytest.param("0..2", marks=pytest.mark.slow)])
def test_a_universe_on_the_cluster_stores_what_one_machine_does(client, tmp_path, walls):
    text = (Path(__file__).parent / "data" / "rush-hour-4x4.toml").read_text()
    assert 'walls = "0..2"' in text
    data = tmp_path / "rush-hour-4x4.toml"
    data.write_text(text.replace('walls = "0..2"', f'walls = "{walls}"'))
    local = runner.invoke(app, ["analyze", str(data), "-o", str(tmp_path / "local"), "--workers", "1"])
    assert local.exit_code == 0, local.stderr
    remote = runner.invoke(app, ["analyze", str(data), "-o", str(tmp_path / "remote"), "--scheduler",
                                 client.scheduler.address])
    assert remote.exit_code == 0, remote.stderr
    assert f"sweeping on {client.scheduler.address}" in remote.stderr
    names = sorted(p.name for p in (tmp_path / "local").glob("sets-*.sets"))
    assert names == sorted(p.name for p in (tmp_path / "remote").glob("sets-*.sets")) and len(names) > 100
    for name in names:
        assert (tmp_path / "local" / name).read_bytes() == (tmp_path / "remote" / name).read_bytes()
