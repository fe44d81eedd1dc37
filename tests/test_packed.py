"""Packed bit files: blocks decode to the words they were made of, damage is an error naming
the file, and a store written packed answers every question as a raw one does."""

from __future__ import annotations

import json
import math
import zlib
from pathlib import Path

import numpy as np
import pytest
import zstandard
from cli_helpers import invoke
from hypothesis import given, settings
from hypothesis import strategies as st
from sample_puzzles import CHESS_3X3

import curator
from curator.common.errors import StoreError
from curator.layered import packed, store
from curator.layered.analysis import analyze
from curator.layered.bits import PROPERTIES
from curator.layered.puzzle import Puzzle, load_puzzle, parse_puzzle
from curator.layered.results import LayeredResults
from curator.layered.search import Explorer
from curator.layered.select import make_filters, select
from curator.layered.store import LayerStore
from curator.layered.sweep import sweep_layer
from curator.layered.verify import verify

PUZZLES = Path(__file__).resolve().parent.parent / "puzzles"

FLING_SMALL = """
name = "fling-small"
[board]
art = '''
....
....
....
'''
[rules]
family = "fling"
[goal]
pieces = 1
final_step_once = true
"""


def random_words(seed: int, words: int, density: float) -> np.ndarray:
    bits = np.random.default_rng(seed).random(words * 64) < density
    return np.packbits(bits, bitorder="little").view("<u8")


# --------------------------------------------------------------------------------------------
# Round trips
# --------------------------------------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), words=st.integers(0, 700),
       density=st.sampled_from([0.0, 1e-4, 0.003, 0.05, 0.5, 0.97, 1.0]),
       block=st.integers(1, 300), codec=st.sampled_from(sorted(packed.CODECS)))
def test_blocks_decode_to_the_words_they_were_made_of(seed, words, density, block, codec):
    original = random_words(seed, words, density)
    data = packed.pack(original, codec, block)
    words_back = packed.PackedWords(Path("memory"), data, words)
    assert words_back.codec == codec and len(words_back) == words
    assert np.array_equal(np.asarray(words_back), original)
    assert np.array_equal(np.concatenate([*words_back.chunks(), np.zeros(0, "<u8")]), original)
    rng = np.random.default_rng(seed)
    if words:
        for i in rng.integers(0, words, 20):
            assert words_back[int(i)] == original[i]
        assert words_back[-1] == original[-1]
        lo, hi = sorted(int(x) for x in rng.integers(0, words + 1, 2))
        assert np.array_equal(words_back[lo:hi], original[lo:hi])
        picks = rng.integers(0, words, 50)
        assert np.array_equal(words_back[picks], original[picks])


def test_sparse_words_pack_small_and_dense_ones_with_zstd_or_lz4_where_looked_up():
    sparse = random_words(1, 1 << 14, 1e-4)
    dense = random_words(2, 1 << 14, 0.5)
    repeated = np.repeat(random_words(4, 1 << 10, 0.3), 16)
    assert store.encode(sparse, int(np.bitwise_count(sparse).sum()), 1 << 20)[0] == "sparse"
    assert len(packed.pack(sparse, "sparse")) < sparse.nbytes / 50
    assert store.encode(dense, int(np.bitwise_count(dense).sum()), 1 << 20)[0] == "raw"  # random: no gain
    assert store.encode(repeated, int(np.bitwise_count(repeated).sum()), 1 << 20)[0] == "zstd"
    assert store.encode(repeated, int(np.bitwise_count(repeated).sum()), 1 << 20, lookups=True)[0] == "lz4"
    tiny = random_words(3, 100, 1e-4)
    assert store.encode(tiny, 1, 6400)[0] == "raw"


# --------------------------------------------------------------------------------------------
# Damage
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("codec", sorted(packed.CODECS))
def test_a_damaged_block_is_an_error_naming_the_file(tmp_path, codec):
    original = random_words(5, 1000, 0.02)
    path = tmp_path / "x.packed"
    data = bytearray(packed.pack(original, codec, 100))
    data[-3] ^= 0x10  # inside the last block
    path.write_bytes(data)
    words = packed.PackedWords.open(path, 1000)
    assert np.array_equal(words[0:900], original[0:900])  # the other blocks still read
    with pytest.raises(StoreError, match=rf"^{path}: block 9 does not match its crc32 \(damaged file\)$"):
        words[950]


def test_a_damaged_index_or_header_is_an_error_naming_the_file(tmp_path):
    path = tmp_path / "x.packed"
    data = bytearray(packed.pack(random_words(6, 1000, 0.02), "sparse", 100))
    data[packed.HEADER.itemsize] ^= 0xFF  # the first offset
    path.write_bytes(data)
    with pytest.raises(StoreError, match=rf"^{path}: damaged block index$"):
        packed.PackedWords.open(path, 1000)
    with pytest.raises(StoreError, match=rf"^{path}: holds 1000 words, expected 999$"):
        path.write_bytes(packed.pack(random_words(6, 1000, 0.02), "sparse", 100))
        packed.PackedWords.open(path, 999)
    path.write_bytes(b"\0" * 64)
    with pytest.raises(StoreError, match=rf"^{path}: not a packed bit file$"):
        packed.PackedWords.open(path, 1000)


def test_a_block_that_decodes_to_the_wrong_length_is_refused(tmp_path):
    # A block replaced by a valid one of another length, with a matching crc32.
    good = packed.pack(np.zeros(10, "<u8"), "zstd", 10)
    words = packed.PackedWords(Path("x.packed"), good, 10)
    short = zstandard.ZstdCompressor().compress(bytes(72))
    start = int(words._offsets[0])
    header = bytearray(good[:start])
    np.frombuffer(header, "<u8", 2, packed.HEADER.itemsize)[:] = [start, start + len(short)]
    np.frombuffer(header, "<u4", 1, packed.HEADER.itemsize + 16)[:] = [zlib.crc32(short)]
    words = packed.PackedWords(Path("x.packed"), bytes(header) + short, 10)
    with pytest.raises(StoreError, match=r"^x.packed: block 0 holds 72 bytes, expected 80$"):
        words[0]


# --------------------------------------------------------------------------------------------
# Stores written packed answer as raw ones do
# --------------------------------------------------------------------------------------------


PUZZLE_TEXTS = {
    "triangle": lambda: load_puzzle(PUZZLES / "triangle.toml"),
    "fling-small": lambda: parse_puzzle(FLING_SMALL, "fling-small"),
    "chess-3x3": lambda: parse_puzzle(CHESS_3X3, "chess"),
}


def write_store(puzzle: Puzzle, directory: Path, monkeypatch, sparse: float | None) -> LayerStore:
    """Analyze `puzzle` raw (sparse None) or packing every file: all with "sparse" (1.0) or
    none with "sparse" (-1.0: solvable with "lz4", the others with "zstd"), in blocks of 3 words so
    that layers have many blocks."""
    with monkeypatch.context() as patch:
        if sparse is not None:
            patch.setattr(store, "PACK_MIN_BYTES", 0)
            patch.setattr(store, "PACK_RATIO", 1e9)
            patch.setattr(store, "SPARSE", sparse)
            patch.setattr(packed, "BLOCK_WORDS", 3)
        analyze(puzzle, directory)
    return LayerStore.open(directory)


@pytest.fixture(scope="module", params=sorted(PUZZLE_TEXTS))
def stores(request, tmp_path_factory):
    puzzle = PUZZLE_TEXTS[request.param]()
    base = tmp_path_factory.mktemp(request.param)
    with pytest.MonkeyPatch.context() as monkeypatch:
        return puzzle, {name: write_store(puzzle, base / name, monkeypatch, sparse)
                        for name, sparse in (("raw", None), ("sparse", 1.0), ("dense", -1.0))}


def encodings(directory: Path) -> set[str]:
    data = json.loads((directory / "manifest.json").read_text())
    return {meta["encoding"] for e in data["layers"] for meta in e["files"].values()}


def test_packed_stores_hold_the_raw_bits(stores):
    _, by_name = stores
    raw = by_name["raw"]
    assert encodings(raw.directory) == {"raw"}
    assert encodings(by_name["sparse"].directory) == {"sparse"}
    assert encodings(by_name["dense"].directory) == {"lz4", "zstd"}
    for name in ("sparse", "dense"):
        for record in raw.records():
            expected = raw.load(record.layer)
            mapped = by_name[name].load(record.layer, mmap=True)
            read = by_name[name].load(record.layer)
            for prop in PROPERTIES:
                assert isinstance(getattr(mapped, prop), packed.PackedWords)
                assert np.array_equal(np.asarray(getattr(mapped, prop)), getattr(expected, prop))
                assert np.array_equal(getattr(read, prop), getattr(expected, prop))
            for rank in range(0, record.layer.size, max(1, record.layer.size // 97)):
                assert mapped.at(rank) == expected.at(rank)


def test_sweeps_from_packed_layers_match(stores):
    puzzle, by_name = stores
    raw, zipped = by_name["raw"], by_name["dense"]
    records = raw.records()
    top = max(r.layer.pieces for r in records)
    tier = [r.layer for r in records if r.layer.pieces == top]
    below = [r.layer for r in records if r.layer.pieces == top - 1]
    for layer in tier:
        want = raw.load(layer)
        got = sweep_layer(puzzle, layer, [zipped.load(b, mmap=True) for b in below])
        for prop in PROPERTIES:
            assert np.array_equal(getattr(got, prop), getattr(want, prop))


def test_select_show_and_verify_agree(stores):
    _, by_name = stores
    answers = []
    for name in ("raw", "sparse", "dense"):
        results = LayeredResults(by_name[name].directory)
        puzzle = results.puzzle
        chosen = select(by_name[name], make_filters(puzzle, unique=True), sample=20, seed=3)
        every = select(by_name[name], make_filters(puzzle, solvable=True, all_moves=False), limit=30)
        counts = [results.count(solvable=True), results.count(all_moves=True), results.count(unique=False)]
        shown = [results.show(rank, layer=record.layer.key) for record in by_name[name].records()[-3:]
                 for rank in (0, record.layer.size // 2, record.layer.size - 1)]
        found = verify(by_name[name].directory, sample=50)
        assert found.ok, found.problems
        answers.append((chosen, every, counts, shown, found.ranks))
    assert answers[0] == answers[1] == answers[2]


def test_a_damaged_packed_file_is_one_store_error(stores, tmp_path):
    _, by_name = stores
    source = by_name["dense"].directory
    copy = tmp_path / "copy"
    copy.mkdir()
    for path in source.iterdir():
        (copy / path.name).write_bytes(path.read_bytes())
    record = LayerStore.open(copy).records()[-2]
    target = copy / record.entry["files"]["solvable"]["path"]
    data = bytearray(target.read_bytes())
    data[-1] ^= 0x01
    target.write_bytes(data)
    damaged = LayerStore.open(copy)
    with pytest.raises(StoreError) as info:
        damaged.load(record.layer)
    assert str(info.value).startswith(f"{target}: checksum does not match the manifest (damaged file)")
    assert "\n" not in str(info.value)
    with pytest.raises(StoreError, match=rf"^{target}: block \d+ does not match its crc32"):
        np.asarray(damaged.load(record.layer, verify=False, mmap=True).solvable)
    assert not verify(copy, sample=10).ok


# --------------------------------------------------------------------------------------------
# Positions above the stored layers
# --------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def fling_to_four(tmp_path_factory):
    """Fling! on 4 x 3 analyzed through 4 balls, every file packed in blocks of 3 words."""
    puzzle = parse_puzzle(FLING_SMALL, "fling-small")
    directory = tmp_path_factory.mktemp("fling4")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(store, "PACK_MIN_BYTES", 0)
        patch.setattr(store, "PACK_RATIO", 1e9)
        patch.setattr(packed, "BLOCK_WORDS", 3)
        analyze(puzzle, directory, max_pieces=4)
    return directory


DEAD_END = "ooo./o.o./...."
"""Five balls, two legal moves, each to a stored 4-ball position that cannot be solved: every
child is pruned and the search looks up an empty tier in the packed 3-ball layer."""


def test_an_empty_look_up_in_a_packed_layer_is_an_empty_answer(fling_to_four):
    words = LayerStore.open(fling_to_four).solvable_words()
    for array in words.values():
        assert isinstance(array, packed.PackedWords)
        got = array[np.zeros(0, dtype=np.int64)]
        assert got.shape == (0,) and got.dtype == np.dtype("<u8")
        assert array[np.zeros((0, 2), dtype=np.int64)].shape == (0, 2)


def test_a_position_above_the_stored_layers_whose_moves_all_lose_is_unsolvable(fling_to_four):
    results = curator.open(fling_to_four)
    level = results.solve(DEAD_END.replace("/", "\n"))
    unpruned = Explorer(results.puzzle).report(level.position)
    assert level.pieces == 5 and level.report == unpruned
    assert not level.report.solvable and level.report.legal_moves == 2 and level.report.safe_moves == 0
    assert level.difficulty == math.inf
    status = results.status(DEAD_END.replace("/", "\n"))
    assert not status.stored and not status.solvable
    # The search looked its children up in the packed 3-ball layer without decoding it whole.
    assert isinstance(results.explorer._tier_words_of(3), packed.PackedWords)


def test_solve_answers_a_dead_end_above_the_stored_layers(fling_to_four):
    puzzle_file = fling_to_four / "puzzle.toml"  # the store's copy of the puzzle file
    result = invoke("solve", puzzle_file, "--board", DEAD_END, "--results", fling_to_four, "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert (data["pieces"], data["solvable"], data["solutions"], data["legal_moves"], data["safe_moves"]) == \
        (5, False, 0, 2, 0)
