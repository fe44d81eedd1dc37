"""The compiled gathers against a plain definition, on random words."""

from __future__ import annotations

import random

import numba
import numpy as np
import pytest

from curator.layered import gather


def places(mask: int) -> list[int]:
    return [i for i in range(64) if mask >> i & 1]


def plain_gather(x: int, source: int, target: int) -> int:
    """The bit of x at the i-th set bit of source goes to the i-th set bit of target."""
    return sum((x >> s & 1) << t for s, t in zip(places(source), places(target), strict=True))


def random_case(rng: random.Random) -> tuple[int, int, int]:
    count = rng.choice([0, 1, 5, 20, 35, 63, 64])
    source = sum(1 << i for i in rng.sample(range(64), count))
    target = sum(1 << i for i in rng.sample(range(64), count))
    return rng.getrandbits(64), source, target


@numba.njit
def _many(function, xs, sources, targets):
    out = np.empty_like(xs)
    for i in range(xs.shape[0]):
        out[i] = function(xs[i], sources[i], targets[i])
    return out


def check(function) -> None:
    rng = random.Random(8)
    cases = [random_case(rng) for _ in range(2000)]
    cases += [(2**64 - 1, 2**64 - 1, 2**64 - 1), (0x0123456789ABCDEF, 2**64 - 1, 2**64 - 1),
              (2**63, 2**63, 1), (1, 1, 2**63)]
    xs, sources, targets = (np.array(column, dtype=np.uint64) for column in zip(*cases))
    got = _many(function, xs, sources, targets)
    for (x, source, target), g in zip(cases, got, strict=True):
        assert int(g) == plain_gather(x, source, target), (hex(x), hex(source), hex(target))


def test_byte_gather():
    check(gather.gather_bytes)


def test_bmi2_gather():
    if gather.fast_gather() is not gather.gather_bmi2:
        pytest.skip("this processor has no fast BMI2 instructions")
    check(gather.gather_bmi2)


def test_fast_gather_follows_the_processor(monkeypatch):
    monkeypatch.setattr(numba.config, "CPU_FEATURES", "+64bit,+bmi2,+popcnt")
    monkeypatch.setattr(numba.config, "CPU_NAME", "skylake")
    assert gather.fast_gather() is gather.gather_bmi2
    monkeypatch.setattr(numba.config, "CPU_NAME", "znver2")
    assert gather.fast_gather() is gather.gather_bytes
    monkeypatch.setattr(numba.config, "CPU_NAME", "skylake")
    monkeypatch.setattr(numba.config, "CPU_FEATURES", "+64bit,-bmi2,+popcnt")
    assert gather.fast_gather() is gather.gather_bytes
