"""Stored results: analyze writes every layer, reads it back bit for bit, and reruns keep,
continue or repair layers as the manifest and the files say."""

from __future__ import annotations

import hashlib
import json
from math import comb
from pathlib import Path

import numpy as np
import pytest
from bitarray import bitarray
from sample_puzzles import CHESS_3X3

from curator import __version__
from curator.common.errors import StoreError
from curator.common.files import MANIFEST, PUZZLE_COPY, manifest_text
from curator.layered.analysis import analyze, estimate
from curator.layered.bits import PROPERTIES, LayerBits
from curator.layered.puzzle import Puzzle, load_puzzle, parse_puzzle
from curator.layered.space import Layer, StateSpace
from curator.layered.store import FORMAT, LayerStore
from curator.layered.sweep import goal_layer, sweep_layer

PUZZLES = Path(__file__).resolve().parent.parent / "puzzles"



def triangle() -> Puzzle:
    return load_puzzle(PUZZLES / "triangle.toml")


def triangle_to_cell(row: int, col: int) -> Puzzle:
    """The 15-hole triangle, finishing with one peg on the given cell."""
    text = (PUZZLES / "triangle.toml").read_text() + f"cells = [[{row}, {col}]]\n"
    return parse_puzzle(text.replace('name = "triangle"', 'name = "triangle-cell"'), "tri-cell")


def in_memory(puzzle: Puzzle, max_pieces: int | None = None) -> dict[Layer, LayerBits]:
    max_pieces = puzzle.max_pieces if max_pieces is None else max_pieces
    out: dict[Layer, LayerBits] = {}
    below = None
    for tier in StateSpace(puzzle).tiers(max_pieces):
        here = [goal_layer(puzzle, layer) if below is None else sweep_layer(puzzle, layer, below)
                for layer in tier]
        out.update((bits.layer, bits) for bits in here)
        below = here
    return out


class Recorder:
    """A Reporter that remembers which layers were kept and which were computed."""

    def __init__(self) -> None:
        self.started: list[str] = []
        self.kept: list[str] = []
        self.computed: list[str] = []
        self.advanced = 0

    def layer_started(self, layer: Layer) -> None:
        self.started.append(layer.key)

    def advance(self, positions: int) -> None:
        self.advanced += positions

    def layer_finished(self, layer: Layer, entry: dict, kept: bool) -> None:
        assert entry["key"] == layer.key
        (self.kept if kept else self.computed).append(layer.key)


def bit_files(directory: Path) -> dict[str, int]:
    """mtime_ns of every bit file."""
    return {p.name: p.stat().st_mtime_ns for p in sorted(directory.glob("*.bits"))}


def file_bytes(directory: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(directory.glob("*.bits"))}


def manifest(directory: Path) -> dict:
    return json.loads((directory / MANIFEST).read_text())


def entries(directory: Path) -> dict[str, dict]:
    return {e["key"]: e for e in manifest(directory)["layers"]}


def assert_same_bits(a: LayerBits, b: LayerBits) -> None:
    assert a.layer == b.layer
    for name in PROPERTIES:
        x, y = np.asarray(getattr(a, name)), np.asarray(getattr(b, name))
        assert x.shape == (a.layer.words,) and y.shape == (a.layer.words,)
        assert np.array_equal(x.astype(np.uint64), y.astype(np.uint64)), f"{a.layer.key} {name}"


@pytest.fixture(scope="module")
def triangle_bits() -> dict[Layer, LayerBits]:
    return in_memory(triangle())


@pytest.fixture
def analyzed(tmp_path, triangle_bits) -> Path:
    directory = tmp_path / "tri"
    analyze(triangle(), directory)
    return directory


# --------------------------------------------------------------------------------------------
# Round trip and manifest
# --------------------------------------------------------------------------------------------


def test_results_round_trip(analyzed, triangle_bits):
    store = LayerStore.open(analyzed)
    records = store.records()
    assert [r.layer for r in records] == list(triangle_bits)
    for layer, bits in triangle_bits.items():
        assert store.verified(layer)
        assert_same_bits(store.load(layer), bits)
        assert_same_bits(store.load(layer, verify=False, mmap=True), bits)
        loaded = store.load(layer)
        assert loaded.counts() == bits.counts()


def test_manifest_fields(analyzed, triangle_bits):
    puzzle = triangle()
    data = manifest(analyzed)
    assert data["format"] == FORMAT == "curator-layers/3"
    assert data["curator_version"] == __version__
    assert data["puzzle"] == "triangle"
    assert data["puzzle_sha256"] == puzzle.sha256 == hashlib.sha256(puzzle.text.encode()).hexdigest()
    assert data["puzzle_file"] == PUZZLE_COPY
    assert (analyzed / PUZZLE_COPY).read_text() == puzzle.text
    assert data["cells"] == 15
    assert data["piece_types"] == ["o"]
    assert data["max_pieces"] == 15
    assert data["complete"] is True
    assert [e["key"] for e in data["layers"]] == [f"k{k:02d}" for k in range(1, 16)]
    for entry, (layer, bits) in zip(data["layers"], triangle_bits.items()):
        assert entry["pieces"] == layer.pieces
        assert entry["counts"] == {"o": layer.pieces}
        assert entry["positions"] == comb(15, layer.pieces) == layer.size
        for name, count in bits.counts().items():
            assert entry[name] == count
        assert isinstance(entry["seconds"], (int, float)) and entry["seconds"] >= 0
        assert set(entry["files"]) == set(PROPERTIES)
        for name, meta in entry["files"].items():
            path = analyzed / meta["path"]
            assert meta["path"] == f"{layer.key}.{name}.bits"
            assert meta["bytes"] == path.stat().st_size == layer.words * 8
            assert meta["sha256"] == hashlib.sha256(path.read_bytes()).hexdigest()
    # Facts of the 15-hole triangle: every single vacancy is solvable, one peg always is.
    by_key = entries(analyzed)
    assert by_key["k14"]["solvable"] == 15
    assert by_key["k01"]["solvable"] == by_key["k01"]["unique"] == 15
    assert by_key["k01"]["all_moves"] == 0
    assert by_key["k15"]["solvable"] == by_key["k15"]["all_moves"] == 0


def test_no_temporary_files_left(analyzed):
    names = {p.name for p in analyzed.iterdir()}
    expected = {MANIFEST, PUZZLE_COPY} | {
        f"k{k:02d}.{name}.bits" for k in range(1, 16) for name in PROPERTIES
    }
    assert names == expected


def test_estimate_matches_what_was_written(analyzed, tmp_path):
    est = estimate(triangle(), 15)
    assert est.layers == 15
    assert est.positions == 2**15 - 1
    assert est.disk_bytes == sum(p.stat().st_size for p in analyzed.glob("*.bits"))
    chess = parse_puzzle(CHESS_3X3, "chess")
    analyze(chess, tmp_path / "chess")
    est = estimate(chess, chess.max_pieces)
    records = LayerStore.open(tmp_path / "chess").records()
    assert est.layers == len(records)
    assert est.positions == sum(r.layer.size for r in records)
    assert est.disk_bytes == sum(p.stat().st_size for p in (tmp_path / "chess").glob("*.bits"))


def test_store_puzzle_reads_the_copy(analyzed):
    puzzle = LayerStore.open(analyzed).puzzle()
    assert puzzle.sha256 == triangle().sha256
    assert puzzle.board == triangle().board


# --------------------------------------------------------------------------------------------
# Bit file format
# --------------------------------------------------------------------------------------------


def test_bit_files_are_little_endian_and_word_padded(tmp_path):
    # Goal: one peg on row 4, column 2, which is cell 10 + 2 = 12 in row-major order.
    puzzle = triangle_to_cell(4, 2)
    assert puzzle.board.index[(4, 2)] == 12
    analyze(puzzle, tmp_path, max_pieces=3)
    raw = (tmp_path / "k01.solvable.bits").read_bytes()
    # One word; bit 12 is bit 4 of byte 1.
    assert raw == bytes([0x00, 0x10, 0, 0, 0, 0, 0, 0])
    assert (tmp_path / "k01.unique.bits").read_bytes() == raw
    assert (tmp_path / "k01.all_moves.bits").read_bytes() == bytes(8)

    bits = bitarray(endian="little")
    bits.frombytes(raw)
    assert [i for i, bit in enumerate(bits) if bit] == [12]

    words = np.fromfile(tmp_path / "k01.solvable.bits", dtype="<u8")
    assert words.tolist() == [1 << 12]


def test_every_stored_bit_matches_the_sweep(analyzed, triangle_bits):
    for layer, bits in triangle_bits.items():
        for name in PROPERTIES:
            raw = (analyzed / f"{layer.key}.{name}.bits").read_bytes()
            assert len(raw) == layer.words * 8 and len(raw) % 8 == 0
            stored = bitarray(endian="little")
            stored.frombytes(raw)
            assert not stored[layer.size:].any(), f"{layer.key} {name}: padding bits set"
            words = getattr(bits, name)
            for i in range(layer.size):
                assert stored[i] == (int(words[i >> 6]) >> (i & 63)) & 1


def test_known_bit_of_a_multi_word_layer(analyzed):
    # Layer 14 has 15 positions, all solvable: the low 15 bits of the first word.
    raw = (analyzed / "k14.solvable.bits").read_bytes()
    assert raw == bytes([0xFF, 0x7F, 0, 0, 0, 0, 0, 0])
    # Layer 2 has C(15, 2) = 105 positions in two words; the last position (cells 13, 14,
    # the two right-most holes of the bottom row) is solvable, the one before it (12, 14)
    # is not: the peg on 12 cannot jump over an empty 13.
    raw = (analyzed / "k02.solvable.bits").read_bytes()
    assert len(raw) == 16
    stored = bitarray(endian="little")
    stored.frombytes(raw)
    assert stored[104] == 1 and stored[103] == 0
    assert raw[104 // 8] >> (104 % 8) & 1 == 1


def test_typed_round_trip(tmp_path):
    puzzle = parse_puzzle(CHESS_3X3, "chess")
    expected = in_memory(puzzle)
    analyze(puzzle, tmp_path)
    store = LayerStore.open(tmp_path)
    assert [r.layer for r in store.records()] == list(expected)
    data = manifest(tmp_path)
    assert data["piece_types"] == ["K", "R", "P"]
    for entry, (layer, bits) in zip(data["layers"], expected.items()):
        assert entry["key"] == layer.key
        assert entry["counts"] == dict(zip("KRP", layer.counts))
        assert_same_bits(store.load(layer), bits)
    keys = [e["key"] for e in data["layers"]]
    assert "k02-K1P1" in keys and "k03-R1P2" in keys and "k01-K1" in keys


# --------------------------------------------------------------------------------------------
# Reruns
# --------------------------------------------------------------------------------------------


def test_rerun_keeps_finished_layers(analyzed):
    mtimes = bit_files(analyzed)
    before = entries(analyzed)
    recorder = Recorder()
    analyze(triangle(), analyzed, reporter=recorder)
    assert recorder.computed == []
    assert recorder.kept == [f"k{k:02d}" for k in range(1, 16)]
    assert bit_files(analyzed) == mtimes
    assert entries(analyzed) == before
    assert manifest(analyzed)["complete"] is True


def test_rerun_continues_after_a_partial_manifest(analyzed, triangle_bits):
    data = manifest(analyzed)
    data["layers"] = data["layers"][:5]
    data["complete"] = False
    (analyzed / MANIFEST).write_text(manifest_text(data))
    kept = {name: t for name, t in bit_files(analyzed).items() if name < "k06"}
    first = {k: e for k, e in entries(analyzed).items() if k < "k06"}

    recorder = Recorder()
    analyze(triangle(), analyzed, reporter=recorder)
    assert recorder.kept == ["k01", "k02", "k03", "k04", "k05"]
    assert recorder.computed == [f"k{k:02d}" for k in range(6, 16)]
    now = bit_files(analyzed)
    assert {name: now[name] for name in kept} == kept
    assert {k: e for k, e in entries(analyzed).items() if k < "k06"} == first
    assert manifest(analyzed)["complete"] is True
    store = LayerStore.open(analyzed)
    for layer, bits in triangle_bits.items():
        assert_same_bits(store.load(layer), bits)


def test_typed_rerun_continues_after_a_partial_manifest(tmp_path):
    puzzle = parse_puzzle(CHESS_3X3, "chess")
    expected = in_memory(puzzle)
    analyze(puzzle, tmp_path)
    data = manifest(tmp_path)
    keys = [e["key"] for e in data["layers"]]
    # Keep the levels with one and two pieces; the rest is computed from stored files.
    data["layers"] = [e for e in data["layers"] if e["pieces"] <= 2]
    (tmp_path / MANIFEST).write_text(manifest_text(data))
    recorder = Recorder()
    analyze(puzzle, tmp_path, reporter=recorder)
    assert recorder.kept == [k for k in keys if int(k[1:3]) <= 2]
    assert recorder.computed == [k for k in keys if int(k[1:3]) > 2]
    store = LayerStore.open(tmp_path)
    for layer, bits in expected.items():
        assert_same_bits(store.load(layer), bits)


def test_deeper_rerun_continues_a_shallow_one(tmp_path, triangle_bits):
    puzzle = triangle()
    analyze(puzzle, tmp_path, max_pieces=6)
    data = manifest(tmp_path)
    assert data["max_pieces"] == 6 and data["complete"] is True
    assert [e["key"] for e in data["layers"]] == [f"k{k:02d}" for k in range(1, 7)]
    mtimes = bit_files(tmp_path)

    recorder = Recorder()
    analyze(puzzle, tmp_path, reporter=recorder)
    assert recorder.kept == [f"k{k:02d}" for k in range(1, 7)]
    assert recorder.computed == [f"k{k:02d}" for k in range(7, 16)]
    now = bit_files(tmp_path)
    assert {name: now[name] for name in mtimes} == mtimes
    data = manifest(tmp_path)
    assert data["max_pieces"] == 15 and data["complete"] is True
    store = LayerStore.open(tmp_path)
    for layer, bits in triangle_bits.items():
        assert_same_bits(store.load(layer), bits)


@pytest.mark.parametrize("damage", ["flip", "truncate", "delete"])
def test_damaged_bit_file_is_recomputed_alone(analyzed, triangle_bits, damage):
    target = analyzed / "k07.unique.bits"
    original = file_bytes(analyzed)
    mtimes = bit_files(analyzed)
    before = entries(analyzed)
    layer = next(layer for layer in triangle_bits if layer.key == "k07")

    if damage == "flip":
        data = bytearray(target.read_bytes())
        data[3] ^= 0xFF
        target.write_bytes(bytes(data))
    elif damage == "truncate":
        target.write_bytes(target.read_bytes()[:-8])
    else:
        target.unlink()

    store = LayerStore.open(analyzed)
    assert not store.verified(layer)
    with pytest.raises(StoreError) as info:
        store.load(layer)
    assert "k07.unique.bits" in str(info.value) and "\n" not in str(info.value)
    assert all(store.verified(other) for other in triangle_bits if other.key != "k07")

    recorder = Recorder()
    analyze(triangle(), analyzed, reporter=recorder)
    assert recorder.computed == ["k07"]
    assert len(recorder.kept) == 14
    assert file_bytes(analyzed) == original
    now = bit_files(analyzed)
    assert {k: t for k, t in now.items() if not k.startswith("k07.")} == {
        k: t for k, t in mtimes.items() if not k.startswith("k07.")
    }
    after = entries(analyzed)
    for key, entry in before.items():
        if key == "k07":
            assert {k: v for k, v in after[key].items() if k != "seconds"} == {
                k: v for k, v in entry.items() if k != "seconds"
            }
        else:
            assert after[key] == entry
    assert LayerStore.open(analyzed).verified(layer)


def test_different_puzzle_needs_force(analyzed):
    before_manifest = (analyzed / MANIFEST).read_bytes()
    before_copy = (analyzed / PUZZLE_COPY).read_bytes()
    other = triangle_to_cell(0, 0)
    with pytest.raises(StoreError) as info:
        analyze(other, analyzed)
    message = str(info.value)
    assert str(analyzed) in message and "\n" not in message
    assert (analyzed / MANIFEST).read_bytes() == before_manifest
    assert (analyzed / PUZZLE_COPY).read_bytes() == before_copy

    # Any change to the file text is a different puzzle, even a comment.
    commented = parse_puzzle(triangle().text + "# same rules\n", "tri")
    with pytest.raises(StoreError):
        analyze(commented, analyzed)

    recorder = Recorder()
    analyze(other, analyzed, force=True, reporter=recorder)
    assert recorder.kept == []
    assert len(recorder.computed) == 15
    data = manifest(analyzed)
    assert data["puzzle"] == "triangle-cell" and data["puzzle_sha256"] == other.sha256
    assert (analyzed / PUZZLE_COPY).read_text() == other.text
    # Only peg positions on (0, 0) count now: one of the 15 single pegs.
    assert entries(analyzed)["k01"]["solvable"] == 1
    store = LayerStore.open(analyzed)
    for layer, bits in in_memory(other).items():
        assert_same_bits(store.load(layer), bits)


def test_force_recomputes_the_same_puzzle(analyzed):
    recorder = Recorder()
    analyze(triangle(), analyzed, force=True, reporter=recorder)
    assert recorder.kept == [] and len(recorder.computed) == 15


def test_opening_problems(tmp_path):
    with pytest.raises(StoreError):
        LayerStore.open(tmp_path)
    (tmp_path / MANIFEST).write_text("{not json")
    with pytest.raises(StoreError):
        LayerStore.open(tmp_path)
    (tmp_path / MANIFEST).write_text(json.dumps({"format": "something-else"}))
    with pytest.raises(StoreError):
        LayerStore.open(tmp_path)


def test_loading_an_uncomputed_layer(tmp_path):
    puzzle = triangle()
    analyze(puzzle, tmp_path, max_pieces=3)
    store = LayerStore.open(tmp_path)
    layer = StateSpace(puzzle).layers_with(4)[0]
    assert store.record(layer) is None and not store.verified(layer)
    with pytest.raises(StoreError):
        store.load(layer)
