"""Whole-table kernels run on threads: a compiled loop that releases the interpreter lock takes
chunks start, start + step, ... of the work, and as many threads as the compiled-thread setting
(`curator.common.resources.threads`) run it at once, each with its own start.

Threads rather than compiled parallel loops (`numba.prange`): a parallel loop costs seconds more
to compile in every fresh cache, four times what the same loop costs alone, for no speed over
threads that each run a compiled loop.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numba

WALKS = 1 << 6
"""Ranks per chunk of a kernel that walks each rank's whole solution (far more work per rank
than a sweep's)."""


def chunks(size: int, per: int) -> int:
    """Chunks of `per` items that cover `size` items, as the compiled loops number them (the
    last may hold fewer).

    >>> chunks(10, 4), chunks(8, 4), chunks(0, 4)
    (3, 2, 0)
    """
    return (size + per - 1) // per


class Threads:
    """The calling thread and helpers, as many in all as the compiled-thread setting, kept for
    several calls of `spread` (starting threads for every block of a table costs a few per cent)."""

    def __init__(self) -> None:
        self.count = numba.get_num_threads()
        self.pool = ThreadPoolExecutor(self.count - 1) if self.count > 1 else None

    def __enter__(self) -> Threads:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.pool is not None:
            self.pool.shutdown()

    def spread(self, run: Callable[..., Any], *args: Any, shares: int | None = None) -> None:
        """Call run(*args, start, step) for every start 0..step-1 at once, step being the number
        of threads, or `shares` if fewer chunks of work are to be shared (at least 1). Raises
        what a call raised, once every call has ended."""
        step = max(1, self.count if shares is None else min(self.count, shares))
        calls = [self.pool.submit(run, *args, start, step)
                 for start in range(1, step)] if self.pool is not None else []
        try:
            run(*args, 0, step)
        finally:
            for call in calls:
                call.exception()  # wait for every call before raising any
        for call in calls:
            call.result()


def spread(run: Callable[..., Any], *args: Any, shares: int | None = None) -> None:
    """`Threads.spread` on threads kept for this one call."""
    with Threads() as threads:
        threads.spread(run, *args, shares=shares)
