"""Hostile level packs, generated: any bytes, any JSON value, and valid packs with keys
deleted, values of the wrong type, cells off the board, huge numbers, NaN and infinities,
unicode. Whatever the file, `load_pack` gives a valid pack or one PackError on one line that
names the file, never another exception."""

from __future__ import annotations

import copy
import json
import math
from dataclasses import replace
from functools import cache
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_levels import make_levels, schema_validator

from curator.arrange import PackCurve
from curator.common.ranking import rank_placement
from curator.export.pack import PackError, PackHeader, load_pack, pack_dict, parse_pack
from curator.layered.level import Level
from curator.layered.space import Layer

SOURCE = "fuzz/pack.json"
fast = settings(max_examples=200, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
files = settings(max_examples=120, deadline=None, derandomize=True,
                 suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                        HealthCheck.function_scoped_fixture])

scalars = (st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True, allow_infinity=True)
           | st.text(max_size=12) | st.sampled_from([2**64, -(2**63) - 1, 10**40, -1, 0, 1]))
json_values = st.recursive(
    scalars,
    lambda children: st.lists(children, max_size=5)
    | st.dictionaries(st.text(max_size=8), children, max_size=5),
    max_leaves=25,
)


@cache
def valid_packs() -> tuple[str, ...]:
    """Packs as JSON text, of a typed and two untyped puzzles, and one arranged along a curve."""
    names = ("solitaire-chess", "fling", "triangle")
    puzzle, levels = make_levels("triangle")
    rated = [level for level in levels if math.isfinite(level.difficulty)]
    curve = PackCurve("ease-in", len(rated) + 3, tuple(float(i) for i in range(len(rated))),
                      tuple(level.difficulty for level in rated))
    return (*(json.dumps(pack_dict(*make_levels(name))) for name in names),
            json.dumps(pack_dict(puzzle, rated, curve)))


# -- mutating valid packs ------------------------------------------------------------------------


def paths(value: Any, prefix: tuple = ()) -> list[tuple]:
    """The paths of every value inside a JSON value (keys and list indices), itself first."""
    out = [prefix]
    if isinstance(value, dict):
        for key, item in value.items():
            out += paths(item, (*prefix, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            out += paths(item, (*prefix, index))
    return out


def mutation(draw: st.DrawFn, value: Any) -> Any:
    """A value to put where `value` was."""
    kind = draw(st.sampled_from(["json", "scalar", "number", "text", "cell", "wrap", "empty", "extra"]))
    if kind == "json":
        return draw(json_values)
    if kind == "scalar":
        return draw(scalars)
    if kind == "number":
        return draw(st.sampled_from([math.nan, math.inf, -math.inf, 2**70, -(2**70), 1e308, -0.0, 0.5, -1]))
    if kind == "text":
        return draw(st.text(max_size=20))
    if kind == "cell" and isinstance(value, list) and len(value) == 2:
        return [v + draw(st.integers(-3, 1000)) if isinstance(v, int) else v for v in value]
    if kind == "wrap":
        return [value]
    if kind == "empty":
        return type(value)() if isinstance(value, (list, dict, str)) else None
    if kind == "extra" and isinstance(value, dict):
        return {**value, draw(st.text(max_size=8)): draw(json_values)}
    if kind == "extra" and isinstance(value, list) and value:
        return [*value, copy.deepcopy(draw(st.sampled_from(value)))]
    return draw(json_values)


@st.composite
def mutated_packs(draw: st.DrawFn) -> Any:
    """A valid pack with one to three things changed, deleted or added."""
    data = json.loads(draw(st.sampled_from(valid_packs())))
    for _ in range(draw(st.integers(1, 3))):
        path = draw(st.sampled_from(paths(data)))
        if not path:
            data = mutation(draw, data)
            continue
        parent = data
        for key in path[:-1]:
            parent = parent[key]
        if draw(st.booleans()) and isinstance(parent, (dict, list)):
            del parent[path[-1]]
        else:
            parent[path[-1]] = mutation(draw, parent[path[-1]])
    return data


def damaged_text(text: str) -> st.SearchStrategy[bytes]:
    """A pack's bytes cut short, with bytes inserted or with one byte changed."""
    data = text.encode()
    return st.one_of(
        st.integers(0, len(data)).map(lambda n: data[:n]),
        st.tuples(st.integers(0, len(data)), st.binary(min_size=1, max_size=8)).map(
            lambda t: data[:t[0]] + t[1] + data[t[0]:]),
        st.tuples(st.integers(0, len(data) - 1), st.integers(0, 255)).map(
            lambda t: data[:t[0]] + bytes([t[1]]) + data[t[0] + 1:]),
    )


# -- what loading may give -----------------------------------------------------------------------


def assert_valid(header: PackHeader, levels: list[Level]) -> None:
    """A loaded pack holds consistent levels, and writing it again gives a pack that the JSON
    Schema accepts and that reads back the same."""
    assert isinstance(header, PackHeader)
    for level in levels:
        assert len(level.position) == header.board.size
        counts = tuple(level.position.count(t) for t in range(1, len(header.piece_types) + 1))
        assert Layer(counts, header.board.size, header.piece_types).key == level.layer
        assert rank_placement(list(level.position), counts) == level.rank
    known = [level for level in levels if not math.isnan(level.difficulty)]
    curve = header.curve if len(known) == len(levels) else None  # one slot per level
    data = json.loads(json.dumps(pack_dict(header, known, curve)))
    schema_validator().validate(data)
    assert parse_pack(data, SOURCE) == (replace(header, curve=curve), known)


def assert_loads_or_one_error(load, source: object = SOURCE) -> None:
    try:
        header, levels = load()
    except PackError as exc:
        text = str(exc)
        assert text.startswith(f"{source}: ") and text.isprintable(), text
        return
    assert_valid(header, levels)


# -- the fuzz tests ------------------------------------------------------------------------------


def test_valid_packs_load():
    for text in valid_packs():
        assert_loads_or_one_error(lambda text=text: parse_pack(json.loads(text), SOURCE))
        header, levels = parse_pack(json.loads(text), SOURCE)
        assert len(levels) == (4 if header.curve is None else len(header.curve.targets))
    assert sum(parse_pack(json.loads(text), SOURCE)[0].curve is not None for text in valid_packs()) == 1


@fast
@given(json_values)
def test_any_json_value_is_a_pack_or_one_error(data):
    assert_loads_or_one_error(lambda: parse_pack(data, SOURCE))


@fast
@given(mutated_packs())
def test_mutated_packs_load_or_give_one_error(data):
    assert_loads_or_one_error(lambda: parse_pack(data, SOURCE))


@files
@given(mutated_packs(), st.booleans())
def test_mutated_pack_files_load_or_give_one_error(tmp_path_factory, data, ascii_only):
    path = tmp_path_factory.mktemp("fuzz") / "pack.json"
    path.write_bytes(json.dumps(data, ensure_ascii=ascii_only).encode("utf-8", "surrogatepass"))
    assert_loads_or_one_error(lambda: load_pack(path), path)


@files
@given(st.binary(max_size=200) | st.deferred(lambda: st.sampled_from(valid_packs())).flatmap(damaged_text))
def test_any_bytes_are_a_pack_or_one_error(tmp_path_factory, data):
    path = tmp_path_factory.mktemp("fuzz") / "pack.json"
    path.write_bytes(data)
    assert_loads_or_one_error(lambda: load_pack(path), path)


# -- what the fuzzing found ----------------------------------------------------------------------


@pytest.mark.parametrize("text", ["[" * 100_000, '{"format": ' * 90_000],  # under 1 MiB
                         ids=["lists", "objects"])
def test_deeply_nested_json_is_one_error(tmp_path, text):
    path = tmp_path / "pack.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(PackError, match=r"pack\.json: json: "):
        load_pack(path)


@pytest.mark.parametrize("key, value, message", [
    ("sha256", "", "puzzle.sha256: must be 64 lowercase hex digits or null, got ''"),
    ("sha256", "A" * 64, "puzzle.sha256: must be 64 lowercase hex digits"),
    ("name", "", "puzzle.name: must not be empty"),
], ids=["empty-sha256", "upper-sha256", "empty-name"])
def test_pack_header_values_the_schema_refuses_are_refused(key, value, message):
    data = json.loads(valid_packs()[0])
    data["puzzle"][key] = value
    assert not schema_validator().is_valid(data)
    with pytest.raises(PackError, match=f"^{SOURCE}: {message}"):
        parse_pack(data, SOURCE)
