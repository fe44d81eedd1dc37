"""How figures are rounded wherever they are shown or written (tables, text, JSON, CSV):
to the digits that mean something, never to binary noise such as 4.5040000000000004.

- difficulty: 3 decimals in files (JSON, CSV, level packs, a pack's curve), 2 in tables and
  text;
- chances and the other fractional player figures (mean mistake depth, information, search):
  4 significant digits in files, so a small chance keeps its digits (0.0001234);
- a chance for people: a percentage with two significant digits, so a small chance is never
  shown as 0 (`chance_text`: 45%, 1.6%, 0.10%, 0.0012%; 0% only when it is 0).

Whole numbers (counts, solution counts) are never rounded.
"""

from __future__ import annotations

import math

DIFFICULTY_DECIMALS = 3
"""Decimals of a difficulty in files."""
FIGURE_DIGITS = 4
"""Significant digits of a fractional figure in files."""


def difficulty_value(value: float) -> float | None:
    """A difficulty for files: 3 decimals; None where it is not finite (unsolvable, or too
    many positions to rate).

    >>> difficulty_value(4.5040000000000004), difficulty_value(float("inf"))
    (4.504, None)
    """
    return round(float(value), DIFFICULTY_DECIMALS) if math.isfinite(value) else None


def figure_value(value: float | int | None) -> float | int | None:
    """A player figure for files: floats to 4 significant digits; whole numbers and None as
    they are.

    >>> figure_value(0.0012345678), figure_value(41.53333), figure_value(3), figure_value(None)
    (0.001235, 41.53, 3, None)
    """
    if isinstance(value, float) and math.isfinite(value):
        return float(f"{value:.{FIGURE_DIGITS}g}")
    return value


def chance_text(value: float | None) -> str:
    """A chance (0 to 1) for people: a percentage with two significant digits; "-" for none.

    >>> [chance_text(v) for v in (0.453, 0.0156, 0.001, 0.0000123, 0.0, 1.0, None)]
    ['45%', '1.6%', '0.10%', '0.0012%', '0%', '100%', '-']
    """
    if value is None:
        return "-"
    percent = 100 * float(value)
    if percent <= 0 or percent >= 10:
        return f"{percent:.0f}%"
    decimals = 1 - math.floor(math.log10(percent))
    return f"{percent:.{decimals}f}%"
