"""How a long search is bounded and followed: the one description of it that the command line,
the API, every kind's contract and the layered search take, from `--search-limit` down."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

SEARCH_LIMIT = 10_000_000
"""Positions a search holds above the stored layers at most, by default: on this kind of
machine it gets there in about seven seconds, in under 1 GiB (the README's English example)."""


@dataclass(frozen=True)
class Search:
    """At most `search_limit` positions (None: no bound); `progress(searched, search_limit)`
    hears how far it got as it grows; `note(line)` gets its estimate before a search that might
    pass the limit. Kinds whose positions are looked up, not searched, take none of it.

    >>> Search().search_limit == SEARCH_LIMIT
    True
    """

    search_limit: int | None = SEARCH_LIMIT
    progress: Callable[[int, int], None] | None = None
    note: Callable[[str], None] | None = None
