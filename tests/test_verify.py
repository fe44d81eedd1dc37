"""`curator verify`: checksums of every stored file, and a sample of ranks re-derived from
their children's stored bits. Clean results pass; a tampered bit whose checksum was fixed
up in the manifest is caught only by the re-derivation, which lists the bad ranks."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from cli_helpers import error_line, invoke
from hypothesis import given, settings
from hypothesis import strategies as st
from sample_puzzles import CHESS_3X3

from curator.common.errors import StoreError
from curator.common.files import MANIFEST, PUZZLE_COPY, manifest_text
from curator.common.ranking import rank_placement
from curator.layered.analysis import analyze
from curator.layered.puzzle import load_puzzle, parse_puzzle
from curator.layered.space import StateSpace
from curator.layered.store import LayerStore
from curator.layered.verify import DEFAULT_SAMPLE, BadRank, placement_rank, verify

PUZZLES = Path(__file__).resolve().parent.parent / "puzzles"
EVERY = 10**9
"""A sample larger than any layer here: every rank is re-derived."""


SOURCES = {
    "triangle": lambda: (load_puzzle(PUZZLES / "triangle.toml"), 6),
    "chess": lambda: (parse_puzzle(CHESS_3X3, "chess"), None),
    "fling": lambda: (load_puzzle(PUZZLES / "fling.toml"), 3),
    "peg-centre": lambda: (load_puzzle(PUZZLES / "peg-centre.toml"), 3),
}


@pytest.fixture(scope="module")
def analyzed(tmp_path_factory) -> dict[str, Path]:
    base = tmp_path_factory.mktemp("verify")
    out = {}
    for name, source in SOURCES.items():
        puzzle, depth = source()
        analyze(puzzle, base / name, max_pieces=depth)
        out[name] = base / name
    return out


@pytest.fixture
def copy(analyzed, tmp_path):
    """A private copy of one analyzed folder, to damage."""

    def make(name: str) -> Path:
        target = tmp_path / name
        shutil.copytree(analyzed[name], target)
        return target

    return make


def manifest(directory: Path) -> dict:
    return json.loads((directory / MANIFEST).read_text())


def flip_bit(directory: Path, key: str, prop: str, rank: int) -> None:
    path = directory / f"{key}.{prop}.bits"
    data = bytearray(path.read_bytes())
    data[rank // 8] ^= 1 << (rank % 8)
    path.write_bytes(bytes(data))


def bit(directory: Path, key: str, prop: str, rank: int) -> bool:
    data = (directory / f"{key}.{prop}.bits").read_bytes()
    return bool(data[rank // 8] >> (rank % 8) & 1)


def fix_manifest(directory: Path, key: str, prop: str) -> None:
    """Make the manifest agree with a changed bit file: its checksum and its count."""
    data = manifest(directory)
    (entry,) = [e for e in data["layers"] if e["key"] == key]
    path = directory / f"{key}.{prop}.bits"
    raw = path.read_bytes()
    entry["files"][prop]["sha256"] = hashlib.sha256(raw).hexdigest()
    entry[prop] = int(np.bitwise_count(np.frombuffer(raw, dtype="<u8")).sum())
    (directory / MANIFEST).write_text(manifest_text(data))


# -- clean results ------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(SOURCES))
def test_clean_results_pass_with_every_rank(analyzed, name):
    result = verify(analyzed[name], sample=EVERY)
    assert result.ok, (result.problems, result.bad_ranks[:5])
    store = LayerStore.open(analyzed[name])
    records = store.records()
    assert result.layers == len(records) and result.files == 3 * len(records)
    assert result.ranks == sum(r.layer.size for r in records)


def test_sample_is_per_layer(analyzed):
    result = verify(analyzed["fling"], sample=100, seed=3)
    sizes = [r.layer.size for r in LayerStore.open(analyzed["fling"]).records()]
    assert sizes == [56, 1540, 27720]
    assert result.ok and result.ranks == 56 + 100 + 100
    assert verify(analyzed["fling"], sample=0).ranks == 0


def test_cli_passes_clean_results(analyzed):
    result = invoke("verify", analyzed["triangle"])
    assert result.exit_code == 0, result.stderr
    assert result.stdout.startswith(f"{analyzed['triangle']}: ok (6 layers, 18 files, ")
    assert result.stderr == ""
    assert DEFAULT_SAMPLE >= 100


# -- tampering that only re-derivation can catch ------------------------------------------------


@pytest.mark.parametrize("prop", ["solvable", "unique", "all_moves"])
def test_tampered_bit_with_fixed_checksum_is_listed(copy, prop):
    directory = copy("triangle")
    # A flip that leaves unique and all-moves positions solvable (verify checks that whole).
    rank = next(r for r in range(1234, 3003) if (
        bit(directory, "k05", "solvable", r) if prop != "solvable"
        else not bit(directory, "k05", "unique", r) and not bit(directory, "k05", "all_moves", r)))
    was = bit(directory, "k05", prop, rank)
    flip_bit(directory, "k05", prop, rank)
    fix_manifest(directory, "k05", prop)
    assert invoke("verify", directory, "--sample", 0).exit_code == 0, "checksums alone pass"

    result = invoke("verify", directory, "--sample", EVERY)
    assert result.exit_code == 1
    line = error_line(result.stderr)
    assert line.startswith("error: verification failed: 6 layers, 18 files, ")
    listed = [x for x in result.stderr.split("\n") if x.startswith(f"k05 rank {rank}: ")]
    assert len(listed) == 1
    stored, derived = listed[0].removeprefix(f"k05 rank {rank}: stored ").split(", re-derived ")
    assert f"{prop}={int(not was)}" in stored.split() and f"{prop}={int(was)}" in derived.split()

    found = verify(directory, sample=EVERY)
    bad = {(b.layer, b.rank) for b in found.bad_ranks}
    assert ("k05", rank) in bad
    (mine,) = [b for b in found.bad_ranks if (b.layer, b.rank) == ("k05", rank)]
    index = ["solvable", "unique", "all_moves"].index(prop)
    assert mine.stored[index] != was and mine.derived[index] == was
    assert all(b.layer in ("k05", "k06") for b in found.bad_ranks), "only the layer and its parents"
    if prop == "all_moves":
        assert bad == {("k05", rank)}, "nothing reads all_moves"


def test_tampered_typed_layer(copy):
    directory = copy("chess")
    store = LayerStore.open(directory)
    record = next(r for r in store.records() if r.layer.pieces == 3 and r.entry["solvable"])
    key = record.layer.key
    bits = store.load(record.layer)
    only_solvable = bits.solvable & ~bits.unique & ~bits.all_moves  # a flip verify's whole checks miss
    rank = int(np.flatnonzero(np.unpackbits(only_solvable.view(np.uint8), bitorder="little"))[0])
    flip_bit(directory, key, "solvable", rank)
    fix_manifest(directory, key, "solvable")
    found = verify(directory, sample=EVERY)
    assert not found.problems
    assert BadRank(key, rank, (False, bool(bit(directory, key, "unique", rank)),
                               bool(bit(directory, key, "all_moves", rank))),
                   (True, bool(bit(directory, key, "unique", rank)),
                    bool(bit(directory, key, "all_moves", rank)))) in found.bad_ranks
    result = invoke("verify", directory, "--sample", EVERY)
    assert result.exit_code == 1 and f"{key} rank {rank}: " in result.stderr


def test_tampered_goal_layer(copy):
    """In peg-centre only the centre peg is a goal; marking a corner peg solvable is caught."""
    directory = copy("peg-centre")
    puzzle = LayerStore.open(directory).puzzle()
    layer = StateSpace(puzzle).layers_with(1)[0]
    rank = StateSpace(puzzle).rank(tuple(1 if i == 0 else 0 for i in range(33)))[1]
    assert rank == 0 and not bit(directory, "k01", "solvable", rank)
    for prop in ("solvable", "unique"):
        flip_bit(directory, "k01", prop, rank)
        fix_manifest(directory, "k01", prop)
    found = verify(directory, sample=EVERY)
    assert BadRank(layer.key, 0, (True, True, False), (False, False, False)) in found.bad_ranks


def test_final_step_once_is_respected(copy):
    """Fling! counts the last step once: every solvable 2-ball position is unique. Clearing one
    such unique bit is caught."""
    directory = copy("fling")
    rank = next(r for r in range(1540) if bit(directory, "k02", "solvable", r))
    assert bit(directory, "k02", "unique", rank)
    flip_bit(directory, "k02", "unique", rank)
    fix_manifest(directory, "k02", "unique")
    found = verify(directory, sample=EVERY)
    assert ("k02", rank) in {(b.layer, b.rank) for b in found.bad_ranks}


def test_many_bad_ranks_are_cut_short(copy):
    directory = copy("triangle")
    path = directory / "k06.all_moves.bits"
    raw = bytearray(path.read_bytes())
    for i in range(100):
        raw[i] ^= 0xFF
    path.write_bytes(bytes(raw))
    fix_manifest(directory, "k06", "all_moves")
    result = invoke("verify", directory, "--sample", EVERY)
    assert result.exit_code == 1
    listed = [x for x in result.stderr.split("\n") if x.startswith("k06 rank ")]
    assert len(listed) == 50
    assert "... and 750 more bad ranks" in result.stderr
    assert "800 bad ranks" in error_line(result.stderr)


# -- damage a checksum catches ------------------------------------------------------------------


def test_checksum_mismatch_names_the_file(copy):
    directory = copy("triangle")
    flip_bit(directory, "k05", "unique", 7)
    result = invoke("verify", directory, "--sample", 0)
    assert result.exit_code == 1
    assert f"{directory / 'k05.unique.bits'}: checksum does not match the manifest (damaged file)" in (
        result.stderr.split("\n")
    )
    assert "2 problems, 0 bad ranks" in error_line(result.stderr)
    found = verify(directory)
    assert found.bad_ranks == []
    assert found.problems[0].startswith(str(directory / "k05.unique.bits"))
    assert any("layer k06 not re-derived: child layer k05" in p for p in found.problems)


@pytest.mark.parametrize("damage", ["short", "long", "missing"])
def test_wrong_length_or_missing_file(copy, damage):
    directory = copy("triangle")
    path = directory / "k04.solvable.bits"
    if damage == "short":
        path.write_bytes(path.read_bytes()[:-1])
    elif damage == "long":
        path.write_bytes(path.read_bytes() + b"\0" * 8)
    else:
        path.unlink()
    result = invoke("verify", directory)
    assert result.exit_code == 1
    problems = [x for x in result.stderr.split("\n") if x.startswith(str(path))]
    assert len(problems) == 1
    assert ("missing" if damage == "missing" else "bytes, expected") in problems[0]


def test_manifest_counts_must_match_the_files(copy):
    directory = copy("triangle")
    data = manifest(directory)
    data["layers"][3]["unique"] += 1
    (directory / MANIFEST).write_text(manifest_text(data))
    found = verify(directory)
    assert found.problems == [
        f"{directory / 'k04.unique.bits'}: holds {data['layers'][3]['unique'] - 1:,} set bits, "
        f"the manifest says {data['layers'][3]['unique']}"
    ]


def test_padding_bits_must_be_zero(copy):
    directory = copy("triangle")
    # k02 has 105 positions in two words: bit 127 is padding.
    flip_bit(directory, "k02", "solvable", 127)
    fix_manifest(directory, "k02", "solvable")
    data = manifest(directory)
    data["layers"][1]["solvable"] -= 1  # keep the count as the real positions have it
    (directory / MANIFEST).write_text(manifest_text(data))
    found = verify(directory)
    assert found.problems == [
        f"{directory / 'k02.solvable.bits'}: padding bits beyond the layer's 105 positions are set"
    ]



@pytest.mark.parametrize("prop", ["unique", "all_moves"])
def test_a_position_unique_or_all_moves_must_be_solvable(copy, prop):
    directory = copy("triangle")
    rank = next(r for r in range(455) if not bit(directory, "k04", "solvable", r))
    flip_bit(directory, "k04", prop, rank)
    fix_manifest(directory, "k04", prop)
    found = verify(directory, sample=0)
    said = f"{directory / f'k04.{prop}.bits'}: marks 1 positions {prop} that are not solvable"
    assert found.problems == [said]

def test_changed_puzzle_copy_is_refused(copy):
    directory = copy("triangle")
    path = directory / PUZZLE_COPY
    path.write_text(path.read_text() + "# edited\n")
    with pytest.raises(StoreError, match="puzzle_sha256"):
        verify(directory)
    result = invoke("verify", directory)
    assert result.exit_code == 1
    assert error_line(result.stderr) == (f"error: {path}: does not match the manifest's puzzle_sha256 "
                                         "(edited or damaged copy of the puzzle file)")


def test_edited_manifest_is_refused(copy):
    directory = copy("triangle")
    data = manifest(directory)
    data["layers"][3]["unique"] += 1
    (directory / MANIFEST).write_text(json.dumps(data, indent=1))
    with pytest.raises(StoreError, match="checksum does not match its contents"):
        verify(directory)
    del data["manifest_sha256"]
    (directory / MANIFEST).write_text(json.dumps(data, indent=1))
    with pytest.raises(StoreError, match="has no manifest_sha256"):
        verify(directory)
    data["format"] = "curator-layers/2"  # as written before manifests had a checksum: not trusted either
    (directory / MANIFEST).write_text(json.dumps(data, indent=1))
    with pytest.raises(StoreError, match="has no manifest_sha256"):
        verify(directory)


def test_incomplete_results_verify_what_is_there(tmp_path):
    puzzle = load_puzzle(PUZZLES / "triangle.toml")
    analyze(puzzle, tmp_path / "tri", max_pieces=6)
    data = manifest(tmp_path / "tri")
    data["layers"] = data["layers"][:3]
    (tmp_path / "tri" / MANIFEST).write_text(manifest_text(data))
    found = verify(tmp_path / "tri")
    assert found.problems == [f"{tmp_path / 'tri' / MANIFEST}: says complete, but layer k04 is not recorded"]
    data["complete"] = False
    (tmp_path / "tri" / MANIFEST).write_text(manifest_text(data))
    assert verify(tmp_path / "tri").ok
    result = invoke("verify", tmp_path / "tri", "--sample", "5")
    assert result.exit_code == 0
    said = "; the analysis did not finish (run `curator analyze` again to finish it)"
    assert result.stdout.strip().endswith(said)


def test_a_calibrated_player_every_command_would_refuse_fails_verify(copy):
    directory = copy("triangle")
    (directory / "difficulty.json").write_text("[]\n")
    result = invoke("verify", directory, "--sample", "5")
    assert result.exit_code == 1
    assert result.stderr.startswith(f"{directory / 'difficulty.json'}: not a calibrated player")
    assert error_line(result.stderr).startswith("error: verification failed: ")
    assert error_line(result.stderr).endswith(": 1 problem, 0 bad ranks")  # the player, counted


# -- errors -------------------------------------------------------------------------------------


def test_not_a_results_folder(tmp_path):
    result = invoke("verify", tmp_path)
    assert result.exit_code == 1
    assert "no manifest.json here" in error_line(result.stderr)
    (tmp_path / MANIFEST).write_text("{")
    result = invoke("verify", tmp_path)
    assert result.exit_code == 1 and "unreadable" in error_line(result.stderr)
    for command in (["verify"], ["info"], ["select"], ["calibrate", "--graded", "p.json"]):
        result = invoke(command[0], tmp_path / "typo", *command[1:])
        assert result.exit_code == 2, command  # a path naming nothing is bad input, as a missing puzzle file
        assert error_line(result.stderr) == f"error: {tmp_path / 'typo'}: no such folder"


def test_malformed_manifest_entries(copy):
    directory = copy("triangle")
    data = manifest(directory)
    del data["layers"][2]["counts"]
    (directory / MANIFEST).write_text(manifest_text(data))
    result = invoke("verify", directory)
    assert result.exit_code == 1
    assert error_line(result.stderr) == f"error: {directory / MANIFEST}: damaged manifest (layers[2].counts)"


def test_bad_sample(analyzed):
    result = invoke("verify", analyzed["triangle"], "--sample", -1)
    assert result.exit_code == 2
    assert "--sample must be at least 0" in error_line(result.stderr)
    result = invoke("verify", analyzed["triangle"], "--sample", "many")
    assert result.exit_code == 2
    result = invoke("verify", analyzed["triangle"], "--seed", -1)
    assert result.exit_code == 2
    assert error_line(result.stderr) == "error: --seed must be at least 0, got -1"


@given(st.data())
@settings(max_examples=300, deadline=None)
def test_plain_ranking_matches_the_library(data):
    n = data.draw(st.integers(1, 24))
    types = data.draw(st.integers(1, 5))
    position = data.draw(st.lists(st.integers(0, types), min_size=n, max_size=n))
    counts = [position.count(t) for t in range(1, types + 1)]
    assert placement_rank(position, counts) == rank_placement(position, counts)


def test_distance_tables_are_checked_against_their_checksum(tmp_path):
    directory = tmp_path / "eight"
    result = invoke("analyze", PUZZLES / "eight-puzzle.toml", "--output", directory)
    assert result.exit_code == 0, result.stderr
    result = invoke("verify", directory)
    assert result.exit_code == 0, result.stderr
    assert "ok (the distance table, 501 ranks re-derived: 0 problems, 0 bad ranks)" in result.stdout
    (table,) = [p for p in directory.iterdir() if p.suffix == ".nib"]
    raw = bytearray(table.read_bytes())
    raw[100] ^= 0x10
    table.write_bytes(bytes(raw))
    result = invoke("verify", directory)
    assert result.exit_code == 1
    assert f"{table}: checksum does not match the manifest (damaged file)" in result.stderr.splitlines()
    assert error_line(result.stderr).endswith(": 1 problem, 0 bad ranks")  # as for every kind
