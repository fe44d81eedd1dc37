"""Checking the keyword arguments of the Python API, and naming them in error messages.

The command line passes its option names (`--pieces`), so the same check gives the same
one-line error in Python and on the command line.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import overload

from curator.common.errors import SelectionError

Naming = Callable[[str], str]
"""How errors name a keyword argument."""


def same_name(keyword: str) -> str:
    """Errors name keywords as Python spells them."""
    return keyword


METRICS_CAP = 2000
"""Most levels one selection rates (a search, or a walk along the solution, each) on the command
line; more is refused with a hint to add a sample or a limit."""


def too_many(asked: int, matched: int | None, noun: str = "levels") -> str:
    """How many levels a selection would rate, for the error that refuses more than `METRICS_CAP`:
    the matches (None: not all counted, the scan stopped at the limit), and how many of them a
    sample or limit still asks for.

    >>> too_many(5000, 32767, "positions"), too_many(47159, 47159)
    ('32,767 positions match, and 5,000 of them are asked for', '47,159 levels match')
    >>> too_many(2500, None)
    '2,500 levels are asked for'
    """
    if matched is None:
        return f"{asked:,} {noun} are asked for"
    return f"{matched:,} {noun} match" + (f", and {asked:,} of them are asked for" if asked < matched else "")


def kept(matched: int, sample: int | None, limit: int | None) -> int:
    """How many of `matched` items a selection returns after its `sample` and `limit` (None: no
    bound).

    >>> kept(100, 10, None), kept(100, None, 5), kept(3, 10, 5)
    (10, 5, 3)
    """
    return min(matched, sample or matched, limit or matched)


def check_cap(matched: int, sample: int | None, limit: int | None, cap: int | None,
              name: Naming = same_name, noun: str = "levels") -> None:
    """SelectionError when a selection of `matched` items would return more than `cap` of them
    after its `sample` and `limit` (None: no bound), before any is rated."""
    keep = kept(matched, sample, limit)
    if cap is not None and keep > cap:
        raise SelectionError(f"{too_many(keep, matched, noun)}; at most {cap:,} are returned at once "
                             f"(add {name('limit')} N or {name('sample')} N)")


def span(value: int | tuple[int, int], what: str) -> tuple[int, int]:
    """A whole number or a range (A, B) of them as (A, B), with 0 <= A <= B.

    >>> span(4, "pieces"), span((5, 7), "pieces")
    ((4, 4), (5, 7))
    """
    pair = (value, value) if isinstance(value, int) and not isinstance(value, bool) else value
    if (
        not isinstance(pair, tuple | list)
        or len(pair) != 2
        or not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in pair)
    ):
        raise SelectionError(f"{what} must be a whole number or a pair (A, B) of them, got {value!r}")
    if pair[0] > pair[1]:
        raise SelectionError(f"{what} {pair[0]}..{pair[1]}: {pair[0]} is larger than {pair[1]}")
    return int(pair[0]), int(pair[1])


def real_span(value: float | tuple[float, float], what: str) -> tuple[float, float]:
    """A number or a range (A, B) of numbers as (A, B), with A <= B.

    >>> real_span((2, 7.5), "difficulty")
    (2.0, 7.5)
    """
    pair = (value, value) if isinstance(value, int | float) and not isinstance(value, bool) else value
    if (
        not isinstance(pair, tuple | list)
        or len(pair) != 2
        or not all(isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v) for v in pair)
    ):
        raise SelectionError(f"{what} must be a number or a pair (A, B) of them, got {value!r}")
    if pair[0] > pair[1]:
        raise SelectionError(f"{what} {pair[0]}..{pair[1]}: {pair[0]} is larger than {pair[1]}")
    return float(pair[0]), float(pair[1])


@overload
def at_least(value: int, minimum: int, what: str) -> int: ...
@overload
def at_least(value: int | None, minimum: int, what: str) -> int | None: ...
def at_least(value: int | None, minimum: int, what: str) -> int | None:
    """`value` (a whole number of at least `minimum`) or None."""
    if value is None:
        return None
    if not isinstance(value, int) or isinstance(value, bool):
        raise SelectionError(f"{what} must be a whole number, got {value!r}")
    if value < minimum:
        raise SelectionError(f"{what} must be at least {minimum}, got {value}")
    return value
