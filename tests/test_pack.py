"""Packs along a difficulty curve (`curator.arrange`, `LayeredResults.pack`, `curator pack`).

The curves and the variety rules are checked on made-up pools where the right pack is known
(hypothesis varies them), and on analyzed puzzles: distinct classes by a plain closure of
symmetries and translations, the curve recorded in every format, a pack file's order
followed, and one-line errors with exit code 2.
"""

from __future__ import annotations

import csv
import json
import math
from dataclasses import replace
from pathlib import Path

import jsonschema
import numpy as np
import pytest
import reference as ref
from cli_helpers import error_line, invoke
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import spearmanr

import curator
from curator.arrange import (
    CURVES,
    TOLERANCE,
    VARIETY,
    Curve,
    Pack,
    arrange,
    cap,
    curve_from_levels,
    first_move_shape,
)
from curator.common.errors import SelectionError
from curator.export.pack import load_pack, read_curve
from curator.layered.level import Level, Report
from curator.layered.select import pool_shares

ROOT = Path(__file__).resolve().parent.parent
PUZZLES = ROOT / "puzzles"
SCHEMA = json.loads((ROOT / "schemas" / "level-pack.schema.json").read_text())
SETTINGS = settings(max_examples=80, deadline=None)
FLING = curator.load(PUZZLES / "fling.toml")
MOVES = [(a, b) for a in range(FLING.board.size) for b in range(FLING.board.size) if a != b]
"""First moves with every (piece, vector) shape of the 7 x 8 board, among others."""


def made_up(pieces: int, rank: int, difficulty: float, move: tuple[int, int]) -> Level:
    """A level of the Fling! board with this piece count, difficulty and first move (the
    other pieces fill the first free cells; nothing else about it matters here)."""
    position = [0] * FLING.board.size
    position[move[0]] = 1
    others = [c for c in range(FLING.board.size) if c not in move][: pieces - 1]
    for cell in others:
        position[cell] = 1
    report = Report(pieces, True, True, False, 1, 1, 1, [move])
    return Level(f"k{pieces:02d}", rank, tuple(position), report, difficulty, FLING)


def shape_of(move: tuple[int, int]) -> tuple[int, int, int]:
    (r0, c0), (r1, c1) = FLING.board.cells[move[0]], FLING.board.cells[move[1]]
    return (1, r1 - r0, c1 - c0)


def distinct_shape_moves(count: int) -> list[tuple[int, int]]:
    """`count` first moves of pairwise different shapes."""
    seen, out = set(), []
    for move in MOVES:
        if shape_of(move) not in seen:
            seen.add(shape_of(move))
            out.append(move)
        if len(out) == count:
            return out
    raise AssertionError("not enough shapes")


DISTINCT = distinct_shape_moves(80)


# -- curves ----------------------------------------------------------------------------------


@SETTINGS
@given(st.sampled_from(sorted(CURVES)), st.integers(1, 300))
def test_named_curves_rise_from_the_easiest_to_the_hardest(name, size):
    fractions = CURVES[name].fractions(size)
    assert fractions.shape == (size,)
    assert np.all(np.diff(fractions) >= 0)
    assert fractions[0] == 0 and np.all((0 <= fractions) & (fractions <= 1))
    if size > 1:
        assert fractions[-1] == 1


def test_the_curves_have_their_shapes():
    x = np.linspace(0, 1, 11)
    assert np.allclose(CURVES["linear"].fractions(11), x)
    assert np.allclose(CURVES["ease-in"].fractions(11), x**2)
    assert np.allclose(CURVES["ease-out"].fractions(11), 1 - (1 - x) ** 2)
    steps = CURVES["steps"].fractions(20)
    assert list(steps) == [v / 4 for v in range(5) for _ in range(4)]  # five plateaus of four
    assert list(CURVES["steps"].fractions(3)) == [0, 0.5, 1]  # fewer slots than plateaus


@SETTINGS
@given(st.lists(st.floats(0, 20, allow_nan=False), min_size=2, max_size=40), st.integers(2, 60))
def test_a_pack_files_profile_is_the_quantile_of_each_level_in_its_order(values, size):
    levels = [made_up(3, i, v, DISTINCT[0]) for i, v in enumerate(values)]
    curve = curve_from_levels("shipped.json", levels)
    profile = curve.fractions(len(values))
    for i, v in enumerate(values):
        below = sum(w < v for w in values)
        equal = sum(w == v for w in values)
        assert profile[i] == pytest.approx((below + (equal - 1) / 2) / (len(values) - 1))
    fractions = curve.fractions(size)
    assert fractions[0] == pytest.approx(profile[0]) and fractions[-1] == pytest.approx(profile[-1])
    assert np.all((0 <= fractions) & (fractions <= 1 + 1e-12))


def test_a_curve_needs_two_rated_levels():
    with pytest.raises(SelectionError, match="at least 2 levels"):
        curve_from_levels("one.json", [made_up(3, 0, 1.0, DISTINCT[0]), made_up(3, 1, math.inf, DISTINCT[1])])


# -- arranging made-up pools -------------------------------------------------------------------


@SETTINGS
@given(st.lists(st.floats(0, 30, allow_nan=False), min_size=1, max_size=60, unique=True))
def test_a_pool_of_exactly_size_levels_comes_out_sorted_by_difficulty(values):
    # Linear targets at the quantiles of n values are the sorted values themselves.
    pool = [made_up(4, i, v, DISTINCT[i]) for i, v in enumerate(values)]
    pack = arrange(pool, len(pool), CURVES["linear"])
    assert [s.value for s in pack.slots] == sorted(values)
    assert [s.target for s in pack.slots] == pytest.approx(sorted(values))


pools = st.lists(
    st.tuples(st.integers(2, 7), st.floats(0, 12, allow_nan=False), st.integers(0, len(MOVES) - 1)),
    min_size=1, max_size=120,
)


variety = st.sets(st.sampled_from(VARIETY)).map(sorted)


def curve_steps(curve: Curve, size: int) -> np.ndarray:
    """The sign of the curve's step into each slot after the first."""
    return np.sign(np.diff(curve.fractions(size)))


def drops(pack: Pack, steps: np.ndarray) -> list[float]:
    """How much each level goes against the curve from the one before (0 along it)."""
    d = [slot.value for slot in pack.slots]
    return [max(0.0, (d[i - 1] - d[i]) * steps[i - 1]) for i in range(1, len(d))]


@SETTINGS
@given(pools, st.integers(1, 40), st.sampled_from(sorted(CURVES)) | st.lists(
    st.floats(0, 20, allow_nan=False), min_size=2, max_size=12), variety)
def test_packs_never_go_against_their_curve_by_more_than_the_tolerance(items, size, curve, rules):
    pool = [made_up(p, i, d, MOVES[m]) for i, (p, d, m) in enumerate(items)]
    size = min(size, len(pool))
    if isinstance(curve, list):  # the order of a pack file, rising and falling
        curve = curve_from_levels("file.json", [made_up(3, i, v, DISTINCT[0]) for i, v in enumerate(curve)])
    else:
        curve = CURVES[curve]
    pack = arrange(pool, size, curve, variety=rules)
    levels = list(pack)
    assert len(levels) == size and len({(lv.layer, lv.rank) for lv in levels}) == size
    d = [lv.difficulty for lv in levels]
    assert pack.tolerance == pytest.approx(TOLERANCE * (max(d) - min(d)))
    assert max(drops(pack, curve_steps(curve, size)), default=0) <= pack.tolerance + 1e-9
    assert arrange(list(reversed(pool)), size, curve, variety=rules) == pack, "not deterministic"


@SETTINGS
@given(pools, st.integers(2, 40), st.sampled_from(sorted(CURVES)))
def test_neighbours_open_alike_only_where_the_curve_leaves_no_way_to_part_them(items, size, name):
    pool = [made_up(p, i, d, MOVES[m]) for i, (p, d, m) in enumerate(items)]
    size = min(size, len(pool))
    pack = arrange(pool, size, CURVES[name])
    steps = curve_steps(CURVES[name], size)
    shapes = [first_move_shape(lv) for lv in pack]
    clashes = sum(a == b for a, b in zip(shapes, shapes[1:]))
    if not clashes:
        return
    # No exchange of two slots parts more neighbours and keeps the pack on its curve.
    for a in range(size):
        for b in range(a + 1, size):
            slots = list(pack.slots)
            slots[a], slots[b] = slots[b], slots[a]
            swapped = Pack(pack.curve, pack.pool, tuple(slots))
            moved = [first_move_shape(lv) for lv in swapped]
            if sum(x == y for x, y in zip(moved, moved[1:])) < clashes:
                assert max(drops(swapped, steps)) > pack.tolerance + 1e-9


def test_the_curve_comes_before_the_openings():
    same = DISTINCT[0]
    pool = [made_up(4, i, float(i), same) for i in range(6)] + [made_up(4, 10, 50.0, DISTINCT[1])]
    pack = arrange(pool, 3, CURVES["linear"])  # targets 0, 3, 50: only 50 opens differently
    assert [lv.difficulty for lv in pack] == [0.0, 3.0, 50.0]
    assert pack.tolerance == 2.5
    # Within the tolerance (5% of 20: 1.0), levels change places to part the openings.
    a, b, c = DISTINCT[1:4]
    pool = [made_up(4, 0, 0.0, a), made_up(4, 1, 10.0, same), made_up(4, 2, 10.2, same),
            made_up(4, 3, 10.4, b), made_up(4, 4, 20.0, c)]
    assert [lv.difficulty for lv in arrange(pool, 5, CURVES["linear"])] == [0.0, 10.0, 10.4, 10.2, 20.0]
    # Beyond it they do not.
    pool[2:4] = [made_up(4, 2, 12.0, same), made_up(4, 3, 14.0, b)]
    assert [lv.difficulty for lv in arrange(pool, 5, CURVES["linear"])] == [0.0, 10.0, 12.0, 14.0, 20.0]


def test_a_pack_without_variety_rules_is_its_curve_alone():
    same = DISTINCT[0]
    pool = [made_up(4, i, float(i), same) for i in range(8)] + [made_up(6, 9, 4.4, DISTINCT[1])]
    plain = arrange(pool, 5, CURVES["linear"], variety=None)
    assert plain == arrange(pool, 5, CURVES["linear"], variety=())
    assert [lv.difficulty for lv in plain] == [0.0, 2.0, 4.0, 5.0, 7.0]  # the targets themselves
    assert {lv.pieces for lv in plain} == {4}
    counted = arrange(pool, 5, CURVES["linear"], variety=["counts"])
    assert [lv.difficulty for lv in counted] == [0.0, 2.0, 4.4, 5.0, 7.0]  # the cheapest exchange
    with pytest.raises(SelectionError, match="variety: unknown rule 'colours' .rules: counts, share, open"):
        arrange(pool, 5, CURVES["linear"], variety=["openings", "colours"])


@SETTINGS
@given(st.lists(st.tuples(st.integers(2, 6), st.floats(0, 12, allow_nan=False)), min_size=5, max_size=80),
       st.integers(1, 30), st.sampled_from(sorted(CURVES)))
def test_every_piece_count_appears_when_there_is_room(items, size, name):
    # Distinct openings: only the counts and the cap constrain the choice.
    pool = [made_up(p, i, d, DISTINCT[i]) for i, (p, d) in enumerate(items)]
    size = min(size, len(pool))
    pack = arrange(pool, size, CURVES[name])
    counts = {p for p, _ in items}
    held = [lv.pieces for lv in pack]
    if size >= len(counts):
        assert set(held) == counts
    most = cap(size, len(counts))
    for p in counts:
        if sum(q == p for q, _ in items) >= size:  # each count alone could fill the pack
            assert held.count(p) <= most


def test_a_missing_count_comes_in_where_it_costs_least():
    easy = [made_up(4, i, 1.0 + i / 10, DISTINCT[i]) for i in range(10)]
    odd_one = made_up(3, 99, 1.25, DISTINCT[20])  # between the targets of slots 2 and 3
    pack = arrange([*easy, odd_one], 6, CURVES["linear"])
    assert odd_one in list(pack)
    assert pack[1] is odd_one or pack[2] is odd_one
    assert sorted(lv.pieces for lv in pack) == [3, 4, 4, 4, 4, 4]


def test_levels_at_the_goal_or_unrated_are_no_candidates():
    goal = Level("k01", 0, made_up(1, 0, 0.0, DISTINCT[0]).position,
                 Report(1, True, False, False, 1, 0, 0, []), 0.0, FLING)
    lost = made_up(4, 1, math.inf, DISTINCT[1])
    good = made_up(4, 2, 3.0, DISTINCT[2])
    assert list(arrange([goal, lost, good], 1, CURVES["linear"])) == [good]
    assert arrange([goal, lost, good], 1, CURVES["linear"]).pool == 1  # what a pack could take
    with pytest.raises(SelectionError, match="size 2 is larger than the pool of 1 candidate"):
        arrange([goal, lost, good], 2, CURVES["linear"])


def test_the_shape_of_a_first_move_is_piece_and_vector():
    a = made_up(3, 0, 1.0, (FLING.board.index[(0, 0)], FLING.board.index[(0, 3)]))
    b = made_up(3, 1, 1.0, (FLING.board.index[(5, 2)], FLING.board.index[(5, 5)]))
    c = made_up(3, 2, 1.0, (FLING.board.index[(5, 2)], FLING.board.index[(2, 2)]))
    assert first_move_shape(a) == first_move_shape(b) == (1, 0, 3)
    assert first_move_shape(c) == (1, -3, 0)


@SETTINGS
@given(st.dictionaries(st.integers(1, 12), st.integers(0, 500), min_size=1, max_size=8), st.integers(0, 3000))
def test_pool_shares_are_even_and_give_away_what_they_cannot_fill(totals, size):
    shares = pool_shares(totals, size)
    assert sum(shares.values()) == min(size, sum(totals.values()))
    assert all(0 <= shares[k] <= totals[k] for k in totals)
    open_ = [shares[k] for k in totals if shares[k] < totals[k]]
    if open_:  # groups not exhausted got equal shares, up to the rounding; the others less
        assert max(open_) - min(open_) <= 1
        assert all(shares[k] <= max(open_) + 1 for k in totals)


# -- packs of analyzed puzzles ------------------------------------------------------------------


@pytest.fixture(scope="module")
def fling(tmp_path_factory):
    return curator.analyze(PUZZLES / "fling.toml", output=tmp_path_factory.mktemp("pack") / "fling",
                           max_pieces=5, workers=1)


@pytest.fixture(scope="module")
def fling_pack(fling):
    return fling.pack(12, "linear", pool=400, seed=3, unique=True, pieces=(2, 5))


# Rating the pool is most of a pack's cost (about 12 ms a level): the tests that draw packs
# of their own draw a pool of 60 or 100, not 400.
@pytest.fixture(scope="module")
def small_pack(fling):
    return fling.pack(12, "linear", pool=100, seed=3, unique=True, pieces=(2, 5))


def test_a_pack_has_one_level_per_class(fling, fling_pack):
    classes = [frozenset(ref.position_class(fling.puzzle, lv.position)) for lv in fling_pack]
    assert len(set(classes)) == len(classes)
    assert all(lv.unique and 2 <= lv.pieces <= 5 for lv in fling_pack)
    assert {lv.pieces for lv in fling_pack} == {2, 3, 4, 5}


def test_a_pack_follows_its_targets_and_is_deterministic(fling, fling_pack, small_pack):
    record = fling_pack.record()
    assert record.pool == 400 and record.name == "linear"
    assert list(np.diff(record.targets) >= 0) == [True] * 11
    assert record.achieved == tuple(lv.difficulty for lv in fling_pack)
    again = fling.pack(12, "linear", pool=100, seed=3, unique=True, pieces=(2, 5))
    assert [(lv.layer, lv.rank) for lv in again] == [(lv.layer, lv.rank) for lv in small_pack]
    other = fling.pack(12, "linear", pool=100, seed=4, unique=True, pieces=(2, 5))
    assert [(lv.layer, lv.rank) for lv in other] != [(lv.layer, lv.rank) for lv in small_pack]


def test_a_pool_is_drawn_among_levels_that_can_be_solved(fling):
    """Without --solvable too: unsolvable positions drawn into the pool and dropped after the
    rating left a pool of a few levels where thousands can be solved."""
    pack = fling.pack(4, "linear", pool=60, seed=3, pieces=(3, 5))
    assert pack.pool == 60 and all(lv.solvable for lv in pack)
    with pytest.raises(SelectionError, match="solvable: a pack takes only levels that can be solved"):
        fling.pack(4, "linear", pool=60, solvable=False)


@pytest.mark.parametrize("rules", [None, (), ["openings"], {"counts", "share"}, "counts"])
def test_a_packs_variety_rules_can_be_left_out(fling, small_pack, rules):
    pack = fling.pack(12, "linear", pool=100, seed=3, unique=True, pieces=(2, 5), variety=rules)
    d = [lv.difficulty for lv in pack]
    assert all(later >= earlier - pack.tolerance - 1e-9 for earlier, later in zip(d, d[1:]))
    if not rules:  # the curve alone: each slot's nearest level, by rank
        assert d == sorted(d)
        assert sum(abs(a - b) for a, b in zip(d, pack.record().targets)) <= \
            sum(abs(a - b) for a, b in zip(small_pack.record().achieved, small_pack.record().targets))


def test_the_pool_is_drawn_evenly_across_piece_counts(fling):
    from curator.layered.select import draw_pool

    filters = fling.filters(unique=True, canonical=True, pieces=(2, 5))
    matches = fling.count_by_layer(unique=True, canonical=True, pieces=(2, 5))
    pool = draw_pool(fling.store, filters, 80, seed=1, explorer=fling.explorer)
    held = {k: sum(lv.pieces == k for lv in pool.levels) for k in (2, 3, 4, 5)}
    assert held == pool_shares({k: matches[f"k{k:02d}"] for k in (2, 3, 4, 5)}, 80)
    assert held[2] == matches["k02"] < 80 // 4  # too few with two balls: the others take the rest
    assert pool.matched == sum(matches.values())


def test_a_pool_rated_through_the_stored_layers_is_rated_as_without_them(fling):
    """The search prunes with the stored bits (marking whole tiers in bitmaps where they are
    dense): every figure of every level comes out as a search that stores nothing gives it."""
    from curator.layered.search import Explorer
    from curator.layered.select import draw_pool

    filters = fling.filters(unique=True, canonical=True, pieces=(2, 5))
    stored = draw_pool(fling.store, filters, 120, seed=3, explorer=fling.explorer)
    plain = draw_pool(fling.store, filters, 120, seed=3, explorer=Explorer(fling.puzzle))
    assert len(stored.levels) == 120 and stored.levels == plain.levels


def test_the_curve_is_recorded_in_json_csv_and_html(fling, fling_pack, tmp_path):
    fling.export(fling_pack, tmp_path / "pack.json")
    data = json.loads((tmp_path / "pack.json").read_text())
    jsonschema.validate(data, SCHEMA)
    # Difficulties are written to 3 decimals (curator/common/figures.py).
    assert [s["target"] for s in data["curve"]["slots"]] == [round(s.target, 3) for s in fling_pack.slots]
    header, levels = load_pack(tmp_path / "pack.json")
    record = fling_pack.record()
    assert header.curve == replace(record, targets=tuple(round(t, 3) for t in record.targets),
                                   achieved=tuple(round(d, 3) for d in record.achieved))
    assert [(lv.layer, lv.rank) for lv in levels] == [(lv.layer, lv.rank) for lv in fling_pack]

    fling.export(fling_pack, tmp_path / "pack.csv", "csv")
    rows = list(csv.DictReader((tmp_path / "pack.csv").open()))
    assert [float(r["target"]) for r in rows] == [round(s.target, 3) for s in fling_pack.slots]

    fling.export(fling_pack, tmp_path / "pack.html", "html")
    page = (tmp_path / "pack.html").read_text()
    chart = page[page.index('<figure class="curve"'):page.index("</figure>", page.index('class="curve"'))]
    assert chart.count("<circle") == 12 and "linear" in chart
    assert page.index('class="curve"') < page.index('<article class="level"')

    fling.export(list(fling_pack), tmp_path / "plain.json")  # a plain list has no curve
    assert "curve" not in json.loads((tmp_path / "plain.json").read_text())


def test_a_pack_file_serves_as_curve(fling, fling_pack, tmp_path):
    # A pack from hard to easy: a pack following it falls too.
    falling = sorted(fling_pack, key=lambda lv: -lv.difficulty)
    fling.export(falling, tmp_path / "falling.json")
    curve = read_curve(str(tmp_path / "falling.json"))
    pack = fling.pack(8, str(tmp_path / "falling.json"), pool=100, seed=3, unique=True, pieces=(2, 5))
    targets = pack.record().targets
    assert list(np.diff(targets) <= 0) == [True] * 7 and targets[0] > targets[-1]
    assert pack.curve == curve.name == str(tmp_path / "falling.json")


def test_pack_keywords_are_checked(fling):
    for keywords, message in [
        ({"size": 0}, "size must be at least 1"),
        ({"size": 5, "curve": "zigzag"}, "curve: 'zigzag' is neither a curve"),
        ({"size": 5, "pool": 3}, "size 5 is larger than pool 3"),
        ({"size": 5, "canonical": False}, "canonical: a pack always keeps one level per class"),
        ({"size": 5, "sort": "difficulty"}, "sort does not apply"),
        ({"size": 5, "variety": ["neighbours"]}, "variety: unknown rule 'neighbours' .rules: counts, share"),
        ({"size": 5, "variety": "opening"}, "variety: unknown rule 'opening'"),
        ({"size": 500, "pool": 1000, "unique": True, "pieces": 2}, "size 500 is larger than the pool of"),
    ]:
        with pytest.raises(SelectionError, match=message):
            fling.pack(**keywords)


# -- the command line ----------------------------------------------------------------------------


def test_pack_command_prints_the_slots_and_writes_the_pack(fling, tmp_path):
    out = tmp_path / "pack.json"
    result = invoke("pack", fling.directory, "--size", "6", "--unique", "--pieces", "3..5", "--pool", "60",
                    "--curve", "ease-in", "--seed", "2", "--format", "json", "--out", out)
    assert result.exit_code == 0, result.output
    data = json.loads(out.read_text())
    assert data["curve"]["name"] == "ease-in" and len(data["levels"]) == 6
    for slot, level in zip(data["curve"]["slots"], data["levels"]):
        assert f"{slot['target']:.2f}" in result.stdout and str(level["rank"]) in result.stdout
    assert "6 levels from a pool of 60 written to" in result.stderr
    api = fling.pack(6, "ease-in", pool=60, seed=2, unique=True, pieces=(3, 5))
    assert [lv["rank"] for lv in data["levels"]] == [lv.rank for lv in api]


@pytest.mark.parametrize("args, message", [
    (["--size", "400", "--unique", "--pieces", "2..3"], "--size 400 is larger than the pool of"),
    (["--size", "5", "--curve", "zigzag"], "--curve: 'zigzag' is neither a curve"),
    (["--size", "5", "--curve", str(PUZZLES / "fling.toml")], "(a curve file is a level pack)"),
    (["--size", "5", "--curve", "one-level.json"],
     "--curve: curve one-level.json: needs at least 2 levels with a difficulty, has 1"),
    (["--size", "0"], "--size must be at least 1"),
    (["--size", "five"], "--size"),
    (["--size", "5", "--pool", "2"], "--size 5 is larger than --pool 2"),
    (["--size", "5", "--format", "pdf"], "--format must be one of"),
    (["--size", "5", "--variety", "counts,colour"], "--variety: unknown rule 'colour'"),
])
def test_pack_command_refuses_bad_input_in_one_line(fling, tmp_path, args, message, monkeypatch):
    monkeypatch.chdir(tmp_path)
    one = fling.select(unique=True, pieces=(3, 3), limit=1)
    fling.export(one, tmp_path / "one-level.json", format="json")  # a pack, but too short for a curve
    full = ["pack", fling.directory, "--format", "json", "--out", tmp_path / "p.json", *args]
    result = invoke(*full)
    assert result.exit_code == 2
    assert message in error_line(result.stderr)
    assert not (tmp_path / "p.json").exists()


def test_pack_command_takes_the_variety_rules_to_keep(fling, tmp_path):
    packs = []
    for text, rules in (("none", []), ("openings, counts", ["openings", "counts"])):
        out = tmp_path / "pack.json"
        result = invoke("pack", fling.directory, "--size", "6", "--unique", "--pieces", "3..5",
                        "--pool", "60", "--seed", "0", "--variety", text, "--format", "json", "--out", out)
        assert result.exit_code == 0, result.output
        api = fling.pack(6, pool=60, seed=0, unique=True, pieces=(3, 5), variety=rules)
        packs.append([lv.rank for lv in api])
        assert [lv["rank"] for lv in json.loads(out.read_text())["levels"]] == packs[-1]
    assert packs[0] != packs[1]  # this pool and seed tell the rules apart: an ignored option would show


def test_pack_command_refuses_a_distance_table(tmp_path):
    eight = curator.analyze(PUZZLES / "eight-puzzle.toml", output=tmp_path / "eight", workers=1)
    result = invoke("pack", eight.directory, "--size", "3", "--format", "json", "--out", tmp_path / "p.json")
    assert result.exit_code == 2 and "pack takes layered results" in error_line(result.stderr)


def test_pack_is_a_sequence_of_its_levels(fling_pack):
    assert isinstance(fling_pack, Pack)
    assert list(fling_pack) == fling_pack.levels == fling_pack[:]
    assert fling_pack[0] is fling_pack.slots[0].level and len(fling_pack) == 12


def test_the_shipped_fling_order_is_a_curve():
    header, levels = load_pack(ROOT / "packs" / "fling-shipped.json")
    shipped = ref.load_fling_levels(ROOT / "tests" / "data" / "fling_levels")
    cells = header.board.cells
    assert [frozenset(cells[i] for i, v in enumerate(lv.position) if v) for lv in levels] == [
        balls for _, balls in shipped]
    profile = read_curve(str(ROOT / "packs" / "fling-shipped.json")).fractions(len(levels))
    published = [number for number, _ in shipped]
    assert spearmanr(profile, published).statistic > 0.9  # it rises as the game's levels do
