"""What a long run needs and uses of the machine: memory, disk space and threads.

Analyses estimate their peak memory and the bytes they will write, then refuse up front
(with the figures) when either is more than the machine (or a cluster's worker) has free;
they compute with a number of threads that is restored when they finish.
"""

from __future__ import annotations

import contextlib
import os
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numba

from curator.common.errors import StoreError


@dataclass(frozen=True)
class Shortfall:
    """A resource an analysis needs more of than the machine has free."""

    resource: str
    """"memory", "disk" (figures in bytes) or "time" (in seconds)."""
    needed: int
    free: int
    where: str
    """How `free` was measured, as a phrase: "available", "free under /data"."""
    elsewhere: bool = False
    """Whether it is another machine that is short (a cluster's worker), not this one."""

    def __str__(self) -> str:
        figure = seconds_text if self.resource == "time" else bytes_text
        return f"{self.resource}: needs about {figure(self.needed)}, {figure(self.free)} {self.where}"


class ResourceError(StoreError):
    """An analysis would need more memory or disk than the machine (or a cluster's workers)
    has free."""

    def __init__(self, what: str, short: list[Shortfall]) -> None:
        figures = "; ".join(str(s) for s in short)
        here = ["this machine"] if any(not s.elsewhere for s in short) else []
        there = ["the cluster's workers"] if any(s.elsewhere for s in short) else []
        super().__init__(f"{what} does not fit on {' or '.join(here + there)} ({figures})")
        self.shortfalls = short


def short_of(resource: str, needed: int, free: int | None, where: str,
             elsewhere: bool = False) -> list[Shortfall]:
    """[the Shortfall] if `needed` bytes are more than `free`, else [] (also when `free` is
    unknown)."""
    if free is None or needed <= free:
        return []
    return [Shortfall(resource, needed, free, where, elsewhere)]


def shortfalls(memory_bytes: int, disk_bytes: int, directory: Path) -> list[Shortfall]:
    """What a run needing `memory_bytes` of memory and writing `disk_bytes` into `directory`
    needs beyond this machine's free memory and disk space."""
    existing = _nearest_existing(Path(directory))
    return (short_of("memory", memory_bytes, free_memory(), "available")
            + short_of("disk", disk_bytes, shutil.disk_usage(existing).free, f"free under {existing}"))


def free_memory() -> int | None:
    """Bytes of memory available to this process without swapping, if the system says."""
    available = None
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                available = int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    if available is None:
        try:
            available = os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
        except (OSError, ValueError):
            return None
    try:  # a container's own limit (cgroup v2) may be lower than the machine's
        limit = Path("/sys/fs/cgroup/memory.max").read_text().strip()
        if limit != "max":
            used = int(Path("/sys/fs/cgroup/memory.current").read_text())
            available = min(available, max(int(limit) - used, 0))
    except (OSError, ValueError):
        pass
    return available


def _nearest_existing(path: Path) -> Path:
    path = path.absolute()
    while not path.exists() and path != path.parent:
        path = path.parent
    return path


@contextlib.contextmanager
def threads(count: int | None) -> Iterator[None]:
    """Run the block with `count` compiled threads (all cores if None), then restore the
    caller's setting."""
    before = numba.get_num_threads()
    # numba sets NUMBA_NUM_THREADS from the environment as it loads (its stubs do not list it)
    numba.set_num_threads(numba.config.NUMBA_NUM_THREADS if count is None else count)  # type: ignore[attr-defined]
    try:
        yield
    finally:
        numba.set_num_threads(before)


TIME_LIMIT = 3600
"""Seconds an analysis whose time can be estimated may take before it is refused as too long
for this machine (unless the limits are ignored)."""


def time_shortfalls(seconds: float, threads: int) -> list[Shortfall]:
    """[the Shortfall] if an analysis estimated at `seconds` is longer than TIME_LIMIT."""
    return short_of("time", round(seconds), TIME_LIMIT, f"allowed on {threads} threads")


def seconds_text(seconds: float) -> str:
    """A duration for people: 40 s, 12 min, 3.5 h, 2.0 days."""
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    if seconds < 172800:
        return f"{seconds / 3600:.1f} h"
    return f"{seconds / 86400:.1f} days"


def bytes_text(n: float) -> str:
    """A byte count for people: 512 B, 1.5 KiB, 2.0 GiB."""
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if n < 1024 or unit == "TiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    raise AssertionError
