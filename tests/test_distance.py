"""Distance tables of permutation puzzles: file checks, ranks, the sweep against a plain BFS,
known God's numbers, stored tables and optimal solutions."""

from __future__ import annotations

import hashlib
import json
import math
import random
import tomllib
from collections import deque
from pathlib import Path

import numba
import numpy as np
import pytest
from typer.testing import CliRunner

from curator.cli import app
from curator.common.errors import PuzzleError, StoreError
from curator.common.files import manifest_text
from curator.common.kernels import build
from curator.common.ranking import rank_orientation, rank_permutation
from curator.distance import analysis, sweep, tables
from curator.distance.analysis import analyze_distances
from curator.distance.puzzle import (
    is_permutation_file,
    load_permutation_puzzle,
    parse_permutation_puzzle,
)
from curator.distance.results import DistanceResults
from curator.distance.store import DistanceStore, holds_distances
from curator.distance.sweep import UNREACHED, entry, expand, start_table
from curator.distance.tables import build_kernel
from curator.distance.verify import JUMP, NO_NEARER, STRANDED, _recheck
from curator.options import parse_range

ROOT = Path(__file__).resolve().parent.parent
POCKET = ROOT / "puzzles" / "pocket-cube.toml"
EIGHT = ROOT / "puzzles" / "eight-puzzle.toml"

SLIDING_2X3 = """
name = "sliding-2x3"
[rules]
family = "permutation"
[pieces.tiles]
count = 6
[moves.up]
mover.tiles = 5
cycles.tiles = [[3, 0], [4, 1], [5, 2]]
[moves.down]
mover.tiles = 5
cycles.tiles = [[0, 3], [1, 4], [2, 5]]
[moves.left]
mover.tiles = 5
cycles.tiles = [[1, 0], [2, 1], [4, 3], [5, 4]]
[moves.right]
mover.tiles = 5
cycles.tiles = [[0, 1], [1, 2], [3, 4], [4, 5]]
"""

TWO_SETS = """
name = "two-sets"
[rules]
family = "permutation"
metric = "half"
[pieces.a]
count = 3
orientations = 2
zero_sum = true
solved = [2, 0, 1]
[pieces.b]
count = 3
orientations = 3
[moves.X]
cycles.a = [[0, 1]]
twists.a = [[1, 1]]
cycles.b = [[0, 1, 2]]
[moves.Y]
cycles.a = [[1, 2]]
cycles.b = [[2]]
twists.b = [[1]]
"""


# ---------------------------------------------------------------------------------------
# A plain reference: states as tuples, moves straight from the TOML, a dict-based BFS
# ---------------------------------------------------------------------------------------


class Reference:
    """The puzzle file read without curator: moves applied cycle by cycle to tuples."""

    def __init__(self, text: str) -> None:
        data = tomllib.loads(text)
        self.sets = data["pieces"]
        self.moves = data["moves"]
        self.metric = data["rules"].get("metric", "quarter")

    def solved(self):
        return tuple(
            (tuple(spec.get("solved", range(spec["count"]))), (0,) * spec["count"])
            for spec in self.sets.values()
        )

    def step(self, state, move):
        """One application of a listed move, or None where it is not legal."""
        out = []
        for (name, spec), (perm, ori) in zip(self.sets.items(), state):
            cycles = move["cycles"].get(name)
            if cycles is None:
                out.append((perm, ori))
                continue
            twists = move.get("twists", {}).get(name, [[0] * len(c) for c in cycles])
            pairs = list(zip(cycles, twists))
            if name in move.get("mover", {}):
                at = perm.index(move["mover"][name])
                pairs = [(c, t) for c, t in pairs if c[0] == at]
                if not pairs:
                    return None
            p, o = list(perm), list(ori)
            for cycle, added in pairs:
                for j, a in enumerate(cycle):
                    b = cycle[(j + 1) % len(cycle)]
                    p[b] = perm[a]
                    o[b] = (ori[a] + added[j]) % spec.get("orientations", 1)
            out.append((tuple(p), tuple(o)))
        return tuple(out)

    def orbit(self, state, move):
        """state, move(state), move(move(state)), ... until it comes back."""
        states = [state]
        while (after := self.step(states[-1], move)) != state:
            states.append(after)
        return states

    def neighbors(self, state):
        for move in self.moves.values():
            if "mover" in move:
                after = self.step(state, move)
                if after is not None:
                    yield after
                continue
            orbit = self.orbit(state, move)
            yield from orbit[1:] if self.metric == "half" else [orbit[1], orbit[-1]]

    def apply(self, state, name):
        """A move by its generated name: X, X2, ..., X' (the inverse)."""
        if name in self.moves and "mover" in self.moves[name]:
            return self.step(state, self.moves[name])
        base = name.rstrip("'0123456789")
        orbit = self.orbit(state, self.moves[base])
        power = -1 if name.endswith("'") else int(name[len(base):] or 1)
        return orbit[power % len(orbit)]

    def distances(self):
        start = self.solved()
        dist = {start: 0}
        queue = deque([start])
        while queue:
            state = queue.popleft()
            for after in self.neighbors(state):
                if after not in dist:
                    dist[after] = dist[state] + 1
                    queue.append(after)
        return dist

    def rank(self, state) -> int:
        rank = 0
        for spec, (perm, ori) in zip(self.sets.values(), state):
            v, zero_sum = spec.get("orientations", 1), spec.get("zero_sum", False)
            rank = rank * math.factorial(len(perm)) + rank_permutation(perm)
            rank = rank * v ** (len(ori) - zero_sum) + rank_orientation(ori, v, zero_sum)
        return rank

    def expected_entries(self, size: int) -> np.ndarray:
        entries = np.full(size, UNREACHED, dtype=np.uint8)
        for state, d in self.distances().items():
            entries[self.rank(state)] = d % 15
        return entries


def sweep_entries(puzzle) -> tuple[np.ndarray, list[int]]:
    table, counts = start_table(puzzle.size, puzzle.rank(puzzle.solved_state))
    for _ in expand(build_kernel(puzzle), table, counts, puzzle.size):
        pass
    return np.array([entry(table, i) for i in range(puzzle.size)], dtype=np.uint8), counts


def with_metric(path: Path, metric: str):
    text = path.read_text().replace('metric = "half"', f'metric = "{metric}"')
    return parse_permutation_puzzle(text, str(path))


# ---------------------------------------------------------------------------------------
# Puzzle files
# ---------------------------------------------------------------------------------------

BAD_FILES = [
    ('name = "x"\n[rules]\nfamily = "jump"', "rules.family"),
    (TWO_SETS.replace('metric = "half"', 'metric = "slice"'), "rules.metric"),
    (TWO_SETS.replace("count = 3\norientations = 3", "count = 3\nshape = 1"), "pieces.b.shape"),
    (TWO_SETS.replace("count = 3\norientations = 3", "count = 30"), "pieces.b.count"),
    (TWO_SETS.replace("solved = [2, 0, 1]", "solved = [2, 2, 1]"), "pieces.a.solved"),
    (TWO_SETS.replace("twists.a = [[1, 1]]", "twists.a = [[1, 0]]"), "moves.X.twists.a"),
    (TWO_SETS.replace("twists.a = [[1, 1]]", "twists.a = [[1, 1, 0]]"), "moves.X.twists.a"),
    (TWO_SETS.replace("cycles.a = [[0, 1]]", "cycles.a = [[0, 3]]"), "moves.X.cycles.a"),
    (TWO_SETS.replace("cycles.a = [[0, 1]]", "cycles.a = [[0, 1], [1, 2]]"), "moves.X.cycles.a"),
    (TWO_SETS.replace("cycles.b = [[0, 1, 2]]", "cycles.c = [[0, 1, 2]]"), "moves.X.cycles.c"),
    (TWO_SETS.replace("[moves.Y]", "[moves.X2]"), "moves.X2"),
    (TWO_SETS + "[moves.Z]\ncycles.b = [[0]]\n", "moves.Z"),
    (SLIDING_2X3.replace("cycles.tiles = [[0, 3], [1, 4], [2, 5]]", "cycles.tiles = [[0, 3]]"),
     "moves.up"),
    (SLIDING_2X3.replace("[[1, 0], [2, 1], [4, 3], [5, 4]]", "[[1, 0], [1, 2]]"), "moves.left.cycles.tiles"),
    (SLIDING_2X3.replace("mover.tiles = 5", "mover.tiles = 6", 1), "moves.up.mover.tiles"),
    (SLIDING_2X3.replace("count = 6", "count = 6\norientations = 2"), "moves.up.mover.tiles"),
    (SLIDING_2X3.replace("[moves.down]", "[moves.down]\ntwist = 1"), "moves.down.twist"),
    (SLIDING_2X3.replace("[moves.down]", "[moves.down]\ntwists.tiles = [[1, 1]]"), "moves.down.twists.tiles"),
    (SLIDING_2X3.replace("[[0, 1], [1, 2], [3, 4], [4, 5]]", "[[0, 1], [2]]"), "moves.right.cycles.tiles"),
    ("name = 'x'\n[rules\n", "toml"),
]


@pytest.mark.parametrize(("text", "key"), BAD_FILES, ids=[key for _, key in BAD_FILES])
def test_bad_files_name_the_key(text, key):
    with pytest.raises(PuzzleError) as caught:
        parse_permutation_puzzle(text, "bad.toml")
    assert caught.value.key == key
    message = str(caught.value)
    assert message.startswith(f"bad.toml: {key}: ") and "\n" not in message


def test_bundled_files_are_permutation_puzzles(tmp_path):
    cube = load_permutation_puzzle(POCKET)
    assert cube.size == math.factorial(7) * 3**6 == 3_674_160
    assert [m.name for m in cube.moves] == ["U", "U2", "U'", "R", "R2", "R'", "F", "F2", "F'"]
    assert [m.name for m in with_metric(POCKET, "quarter").moves] == ["U", "U'", "R", "R'", "F", "F'"]
    assert load_permutation_puzzle(EIGHT).size == math.factorial(9)
    assert is_permutation_file(POCKET) and is_permutation_file(EIGHT)
    assert not is_permutation_file(ROOT / "puzzles" / "peg.toml")
    assert not is_permutation_file(tmp_path / "missing.toml")


def test_ranks_round_trip():
    rng = random.Random(5)
    for puzzle in (load_permutation_puzzle(POCKET), parse_permutation_puzzle(TWO_SETS)):
        reference = Reference(puzzle.text)
        for rank in [0, puzzle.size - 1] + rng.sample(range(puzzle.size), 200):
            state = puzzle.unrank(rank)
            assert puzzle.rank(state) == rank == reference.rank(state)
    with pytest.raises(ValueError):
        puzzle.unrank(puzzle.size)


def test_transition_tables_match_the_reference_moves():
    puzzle = parse_permutation_puzzle(TWO_SETS)
    reference = Reference(TWO_SETS)
    kernel = build_kernel(puzzle)
    assert (kernel.offsets >= 0).all()
    x = np.empty(len(kernel.sizes), dtype=np.int64)
    a = np.empty(3, dtype=np.int64)
    b = np.empty(3, dtype=np.int64)
    for rank in range(0, puzzle.size, 7):
        tables.coordinates(kernel.sizes, rank, x)
        for m, move in enumerate(puzzle.moves):
            expected = reference.rank(reference.apply(puzzle.unrank(rank), move.name))
            assert tables.neighbor(kernel, x, m, a, b) == expected
            assert tables.tabled_neighbor(kernel.sizes, kernel.offsets, kernel.tables, x, m) == expected


# ---------------------------------------------------------------------------------------
# The sweep against the reference BFS
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [SLIDING_2X3, TWO_SETS, TWO_SETS.replace('"half"', '"quarter"')],
    ids=["sliding-2x3", "two-sets-half", "two-sets-quarter"],
)
def test_sweep_equals_plain_bfs(text):
    puzzle = parse_permutation_puzzle(text)
    entries, counts = sweep_entries(puzzle)
    assert np.array_equal(entries, Reference(text).expected_entries(puzzle.size))
    assert sum(counts) == int((entries != UNREACHED).sum())


def test_sliding_2x3_wraps_distances_past_14():
    puzzle = parse_permutation_puzzle(SLIDING_2X3)
    _, counts = sweep_entries(puzzle)
    assert len(counts) - 1 == 21 and sum(counts) == 360


@pytest.mark.parametrize("text", [SLIDING_2X3, TWO_SETS], ids=["sliding-2x3", "two-sets"])
def test_every_strategy_and_thread_count_gives_the_same_table(text, monkeypatch):
    puzzle = parse_permutation_puzzle(text)
    expected, _ = sweep_entries(puzzle)
    threads = numba.get_num_threads()
    for forward in (True, False):
        monkeypatch.setattr(sweep, "forward_is_cheaper", lambda *_, f=forward: f)
        for n in sorted({1, threads}):
            numba.set_num_threads(n)
            try:
                entries, _ = sweep_entries(puzzle)
            finally:
                numba.set_num_threads(threads)
            assert np.array_equal(entries, expected)
    monkeypatch.setattr(tables, "MAX_TABLE_ENTRIES", 0)
    assert (build_kernel(puzzle).offsets == -1).all()
    entries, _ = sweep_entries(puzzle)
    assert np.array_equal(entries, expected)


# ---------------------------------------------------------------------------------------
# Known facts
# ---------------------------------------------------------------------------------------

POCKET_HALF = [1, 9, 54, 321, 1847, 9992, 50136, 227536, 870072, 1887748, 623800, 2644]
POCKET_QUARTER = [1, 6, 27, 120, 534, 2256, 8969, 33058, 114149, 360508, 930588, 1350852,
                  782536, 90280, 276]


@pytest.mark.parametrize(("metric", "expected"), [("half", POCKET_HALF), ("quarter", POCKET_QUARTER)])
def test_pocket_cube_gods_number_and_counts(metric, expected):
    puzzle = with_metric(POCKET, metric)
    table, counts = start_table(puzzle.size, 0)
    for _ in expand(build_kernel(puzzle), table, counts, puzzle.size):
        pass
    assert counts == expected
    assert len(counts) - 1 == (11 if metric == "half" else 14)
    assert sum(counts) == puzzle.size


@pytest.fixture(scope="module")
def eight(tmp_path_factory) -> Path:
    directory = tmp_path_factory.mktemp("out") / "eight-puzzle"
    analyze_distances(load_permutation_puzzle(EIGHT), directory)
    return directory


def test_eight_puzzle_gods_number_is_31(eight):
    store = DistanceStore.open(eight)
    counts = store.counts
    assert len(counts) - 1 == 31 and counts[31] == 2
    assert sum(counts) == 181_440 and store.manifest["unreached"] == 181_440
    table = store.load()
    assert entry(table, 0) == 0
    assert entry(table, 1) == 1  # the blank and tile 8 swapped: one move
    assert entry(table, math.factorial(8)) == UNREACHED  # tiles 1 and 2 swapped


# ---------------------------------------------------------------------------------------
# Stored tables
# ---------------------------------------------------------------------------------------


def test_store_keeps_manifest_puzzle_copy_and_checksum(eight, tmp_path):
    manifest = json.loads((eight / "manifest.json").read_text())
    assert manifest["kind"] == "distance" and manifest["format"] == "curator-distance/2"
    assert manifest["complete"] is True and manifest["file"]["bytes"] == 181_440
    assert (eight / "puzzle.toml").read_text() == EIGHT.read_text()
    assert holds_distances(eight) and not holds_distances(tmp_path)
    summary = DistanceStore.open(eight).summary()
    assert set(summary) == {"puzzle", "complete", "layers"}  # every kind's rows: "layers"
    assert summary["layers"][31] == {"distance": 31, "positions": 2}

    copy = tmp_path / "copy"
    copy.mkdir()
    for name in ("manifest.json", "puzzle.toml", "distances.nib"):
        (copy / name).write_bytes((eight / name).read_bytes())
    data = bytearray((copy / "distances.nib").read_bytes())
    data[1000] ^= 0x11
    (copy / "distances.nib").write_bytes(bytes(data))
    with pytest.raises(StoreError, match="checksum"):
        DistanceStore.open(copy).load()


def copied(source: Path, target: Path) -> Path:
    target.mkdir()
    for name in ("manifest.json", "puzzle.toml", "distances.nib"):
        (target / name).write_bytes((source / name).read_bytes())
    return target


def resigned(directory: Path, puzzle_text: str | None = None, table: bytes | None = None) -> None:
    """Replace the puzzle copy or the table and make the manifest agree (a determined edit
    that only re-deriving the table can find)."""
    data = json.loads((directory / "manifest.json").read_text())
    if puzzle_text is not None:
        (directory / "puzzle.toml").write_text(puzzle_text)
        data["puzzle_sha256"] = hashlib.sha256(puzzle_text.encode()).hexdigest()
    if table is not None:
        (directory / "distances.nib").write_bytes(table)
        data["file"]["sha256"] = hashlib.sha256(table).hexdigest()
    (directory / "manifest.json").write_text(manifest_text(data))


def test_verify_rederives_sampled_ranks(eight):
    found = DistanceResults(eight).verify(sample=2000, seed=3)
    assert found.ok and found.ranks == 2001 and not found.problems  # and the solved position
    result = CliRunner().invoke(app, ["verify", str(eight), "--sample", "300"])
    assert result.exit_code == 0
    assert result.stdout.strip() == (f"{eight}: ok (the distance table, 301 ranks re-derived: 0 problems, "
                                     "0 bad ranks)")


def test_verify_finds_a_table_that_belongs_to_other_moves(tmp_path):
    directory = tmp_path / "sliding"
    analyze_distances(parse_permutation_puzzle(SLIDING_2X3), directory)
    other = SLIDING_2X3  # the same six tiles on three rows of two
    for before, after in (("[[3, 0], [4, 1], [5, 2]]", "[[2, 0], [3, 1], [4, 2], [5, 3]]"),
                          ("[[0, 3], [1, 4], [2, 5]]", "[[0, 2], [1, 3], [2, 4], [3, 5]]"),
                          ("[[1, 0], [2, 1], [4, 3], [5, 4]]", "[[1, 0], [3, 2], [5, 4]]"),
                          ("[[0, 1], [1, 2], [3, 4], [4, 5]]", "[[0, 1], [2, 3], [4, 5]]")):
        other = other.replace(before, after)
    parse_permutation_puzzle(other)  # a valid puzzle, with the same moves by name
    resigned(directory, puzzle_text=other)
    found = DistanceResults(directory).verify(sample=500)
    assert found.bad_ranks and not found.problems
    result = CliRunner().invoke(app, ["verify", str(directory)])
    assert result.exit_code == 1
    lines = result.stderr.strip().split("\n")
    assert lines[-1].startswith("error: verification failed: ") and lines[-1].endswith(" bad ranks")
    listed = lines[:-1] if len(found.bad_ranks) <= 50 else lines[:-2]
    assert all(line.startswith("rank ") for line in listed) and len(listed) == min(50, len(found.bad_ranks))


def test_verify_finds_a_moved_solved_position(eight, tmp_path):
    copy = copied(eight, tmp_path / "copy")
    swapped = "layout = [3, 3]\nsolved = [1, 0, 2, 3, 4, 5, 6, 7, 8]"
    resigned(copy, puzzle_text=EIGHT.read_text().replace("layout = [3, 3]", swapped))
    (bad,) = DistanceResults(copy).verify(sample=0).bad_ranks
    assert bad.endswith("it is the solved position, but its distance is not 0")


@pytest.mark.parametrize("change", ["one entry", "counts"])
def test_verify_finds_entries_changed_with_their_checksum(eight, tmp_path, change):
    copy = copied(eight, tmp_path / "copy")
    table = bytearray((eight / "distances.nib").read_bytes())
    if change == "one entry":
        rank = 12345
        value = table[rank // 2] & 15
        table[rank // 2] = (table[rank // 2] & 0xF0) | ((value + 3) % 15)
        resigned(copy, table=bytes(table))
        found = DistanceResults(copy).verify(sample=0)
        assert found.problems and "positions at distances" in found.problems[0]
    else:
        data = json.loads((copy / "manifest.json").read_text())
        data["distances"][5]["positions"] += 1
        data["reached"] += 1  # the totals agree with the edited count: the table's tally finds it
        data["unreached"] -= 1
        (copy / "manifest.json").write_text(manifest_text(data))
        found = DistanceResults(copy).verify(sample=0)
        held = sum(data["distances"][d]["positions"] for d in (5, 20)) - 1
        assert found.problems == [f"{copy / 'distances.nib'}: holds {held:,} positions at distances 5 mod "
                                  f"15, the manifest says {held + 1:,}"]
    result = CliRunner().invoke(app, ["verify", str(copy)])
    assert result.exit_code == 1 and "the manifest says" in result.stderr


@pytest.mark.parametrize("key", ["max_distance", "reached", "unreached"])
def test_verify_finds_totals_that_the_counts_do_not_make(eight, tmp_path, key):
    copy = copied(eight, tmp_path / "copy")
    data = json.loads((copy / "manifest.json").read_text())
    data[key] += 1
    (copy / "manifest.json").write_text(manifest_text(data))
    found = DistanceResults(copy).verify(sample=0)
    assert found.problems == [f"{copy / 'manifest.json'}: {key} is {data[key]}, its positions per distance "
                              f"make it {data[key] - 1}"]
    result = CliRunner().invoke(app, ["verify", str(copy)])
    assert result.exit_code == 1 and found.problems[0] in result.stderr.splitlines()


@pytest.mark.parametrize("damage", ["a count as text", "no row", "a row not a row"])
def test_rows_per_distance_of_the_wrong_shape_are_named_by_every_command(eight, tmp_path, damage):
    copy = copied(eight, tmp_path / "copy")
    data = json.loads((copy / "manifest.json").read_text())
    if damage == "a count as text":
        data["distances"][3]["positions"] = str(data["distances"][3]["positions"])
    elif damage == "no row":
        data["distances"] = 5
    else:
        data["distances"][3] = None
    (copy / "manifest.json").write_text(manifest_text(data))
    for command in (["verify", str(copy)], ["info", str(copy)], ["select", str(copy), "--distance", "3"]):
        result = CliRunner().invoke(app, command)
        assert result.exit_code == 1, command
        want = f"error: {copy / 'manifest.json'}: damaged manifest (distances)"
        assert result.stderr.strip().splitlines()[-1] == want, command


def test_verify_finds_wrong_neighbours():
    puzzle = parse_permutation_puzzle(SLIDING_2X3)
    kernel = build_kernel(puzzle)
    table, counts = start_table(puzzle.size, puzzle.rank(puzzle.solved_state))
    list(expand(kernel, table, counts, puzzle.size))
    solved = puzzle.rank(puzzle.solved_state)
    recheck = build(_recheck)
    ranks = np.arange(puzzle.size, dtype=np.int64)
    assert not recheck(kernel, table, ranks, solved, True).any()
    far = int(np.flatnonzero(recheck.py_func(kernel, table, ranks, solved, True) == 0)[-1])
    for value, code in ((UNREACHED, STRANDED), ((entry.py_func(table, far) + 5) % 15, JUMP)):
        broken = table.copy()
        shift = (far & 1) << 2
        broken[far >> 1] = (broken[far >> 1] & (0xF0 >> shift)) | (value << shift)
        codes = recheck(kernel, broken, ranks, solved, True)
        assert codes[far] in (code, NO_NEARER, JUMP) and codes[far] != 0
        assert (codes != 0).sum() >= 2  # its neighbours see it too


def test_other_puzzle_in_folder_needs_force(eight):
    cube = load_permutation_puzzle(POCKET)
    with pytest.raises(StoreError, match="different puzzle"):
        DistanceStore.for_puzzle(eight, cube, force=False)


def test_stopped_sweep_resumes_from_its_checkpoint(tmp_path, monkeypatch):
    puzzle = parse_permutation_puzzle(SLIDING_2X3)
    expected, counts = sweep_entries(puzzle)
    monkeypatch.setattr(analysis, "CHECKPOINT_SECONDS", 0.0)

    def stop(distance, positions):
        if distance == 6:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        analyze_distances(puzzle, tmp_path, distance_done=stop)
    assert DistanceStore.open(tmp_path).counts == counts[:6] and not DistanceStore.open(tmp_path).complete
    seen = []
    store = analyze_distances(puzzle, tmp_path, distance_done=lambda d, n: seen.append(d))
    assert seen[0] == 6 and store.complete and store.counts == counts
    table = store.load()
    assert np.array_equal([entry(table, i) for i in range(puzzle.size)], expected)


# ---------------------------------------------------------------------------------------
# Selection and optimal solutions
# ---------------------------------------------------------------------------------------


def replay(reference: Reference, state, solution):
    for name in solution:
        state = reference.apply(state, name)
        assert state is not None
    return state


def select_positions(directory, lo, hi, **choice):
    """The positions the API selects at distances lo..hi, as JSON data."""
    return [level.to_json() for level in DistanceResults(directory).select((lo, hi), **choice)]


def parse_distance_range(text):
    return parse_range(text, "--distance")


def test_selected_positions_replay_to_solved_in_distance_moves(eight):
    puzzle = load_permutation_puzzle(EIGHT)
    reference = Reference(puzzle.text)
    picked = select_positions(eight, 29, 31)
    assert len(picked) == 760 + 221 + 2
    assert [p["distance"] for p in picked] == sorted(p["distance"] for p in picked)
    for item in picked[-3:] + picked[:20]:
        state = puzzle.unrank(item["rank"])
        assert item["state"] == puzzle.describe(state)
        assert len(item["solution"]) == item["distance"]
        assert replay(reference, state, item["solution"]) == reference.solved()


def test_sampling_is_reproducible_and_exact_past_14(eight):
    puzzle = load_permutation_puzzle(EIGHT)
    reference = Reference(puzzle.text)
    first = select_positions(eight, 15, 16, sample=25, seed=3)
    assert first == select_positions(eight, 15, 16, sample=25, seed=3)
    assert len(first) == 25 and {p["distance"] for p in first} <= {15, 16}
    for item in first:
        state = puzzle.unrank(item["rank"])
        assert replay(reference, state, item["solution"]) == reference.solved()
    assert select_positions(eight, 40, 50) == []
    assert [p["rank"] for p in select_positions(eight, 0, 0)] == [0]


def test_pocket_cube_solutions_are_optimal(tmp_path):
    puzzle = load_permutation_puzzle(POCKET)
    analyze_distances(puzzle, tmp_path)
    reference = Reference(puzzle.text)
    picked = select_positions(tmp_path, 11, 11, sample=5, seed=1)
    assert len(picked) == 5
    for item in picked:
        state = puzzle.unrank(item["rank"])
        assert len(item["solution"]) == 11
        assert replay(reference, state, item["solution"]) == reference.solved()


@pytest.mark.parametrize(("text", "expected"), [("8..11", (8, 11)), ("7", (7, 7)), (" 0..0 ", (0, 0))])
def test_distance_ranges(text, expected):
    assert parse_distance_range(text) == expected


@pytest.mark.parametrize("text", ["11..8", "a..b", "-1..3", "3.."])
def test_bad_distance_ranges(text):
    with pytest.raises(ValueError, match="--distance"):
        parse_distance_range(text)


# ---------------------------------------------------------------------------------------
# Command line
# ---------------------------------------------------------------------------------------


def test_cli_analyze_info_and_distances(tmp_path):
    runner = CliRunner()
    out = tmp_path / "eight"
    result = runner.invoke(app, ["analyze", str(EIGHT), "--output", str(out)])
    assert result.exit_code == 0, result.output
    assert (out / "distances.nib").exists() and holds_distances(out)

    result = runner.invoke(app, ["info", str(out), "--json"])
    assert result.exit_code == 0
    info = json.loads(result.stdout)
    assert info == DistanceStore.open(out).summary()
    assert info["puzzle"] == "eight-puzzle" and info["complete"] is True
    assert info["layers"][-1] == {"distance": 31, "positions": 2}
    assert "not reached" in runner.invoke(app, ["info", str(out)]).stdout

    result = runner.invoke(app, ["distances", str(out), "--distance", "30..31", "--json"])
    assert result.exit_code == 0
    picked = json.loads(result.stdout)
    assert picked["puzzle"] == "eight-puzzle" and picked["matched"] == 221 + 2
    assert [p["distance"] for p in picked["positions"]] == [30] * 221 + [31] * 2

    result = runner.invoke(app, ["distances", str(out), "--distance", "5", "--sample", "2", "--seed", "1"])
    assert result.exit_code == 0 and "2 positions" in result.stdout
    # each position is walked along its solution: 143,631 would run for minutes without a word
    result = runner.invoke(app, ["select", str(out), "--distance", "20..31"])
    assert result.exit_code == 2
    said = "143,631 positions match; at most 2,000 are returned at once (add --limit N or --sample N)"
    assert result.stderr.strip() == f"error: {said}"


@pytest.mark.parametrize(
    "args",
    [
        ["distances", "{out}", "--distance", "9..2"],
        ["distances", "{out}", "--distance", "3", "--sample", "0"],
        ["analyze", str(EIGHT), "--output", "{out}", "--max-pieces", "3"],
        ["analyze", "{bad}"],
    ],
    ids=["reversed-range", "zero-sample", "max-pieces", "bad-file"],
)
def test_cli_bad_input_is_one_line_and_exit_2(args, tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text(TWO_SETS.replace('metric = "half"', 'metric = "slice"'))
    args = [a.format(out=tmp_path / "out", bad=bad) for a in args]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 2
    assert result.stderr.startswith("error: ") and result.stderr.count("\n") == 1
