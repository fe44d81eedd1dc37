"""Progress of long work on the terminal: a bar per layer, or lines where bars cannot be drawn
(a log file, CI output): one per finished layer, and one a minute while a layer is unfinished;
a bar for counted work (rating levels).
Every update also raises again a Ctrl+C that was lost on its way (see `ctrl_c_kept`)."""

from __future__ import annotations

import contextlib
import signal
import threading
import time
from collections.abc import Callable, Iterator
from types import FrameType
from typing import cast

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn, TimeRemainingColumn

from curator.common.resources import seconds_text
from curator.layered.space import Layer

PROGRESS_EVERY = 60.0
"""Seconds between the lines an unfinished layer prints where bars cannot be drawn."""

_ctrl_c: list[int] = []
"""The Ctrl+C signals seen while `ctrl_c_kept` is active."""


@contextlib.contextmanager
def ctrl_c_kept() -> Iterator[None]:
    """While active (in the main thread), Ctrl+C raises KeyboardInterrupt where it lands, as
    Python's own handler does, and is remembered: one landing inside a finalizer (the
    compiler runs many) is reported and dropped by Python, so every progress update raises it
    again. The previous handler is back afterwards."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def interrupt(signum: int, frame: FrameType | None) -> None:
        _ctrl_c.append(signum)
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGINT, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
        _ctrl_c.clear()


def raise_kept_ctrl_c() -> None:
    """KeyboardInterrupt if Ctrl+C was seen while `ctrl_c_kept` is active."""
    if _ctrl_c:
        raise KeyboardInterrupt


class RichReporter:
    """Shows one progress bar per layer on a terminal, one line per finished layer elsewhere
    (a log file or CI output, where bars would only appear when the command ends)."""

    def __init__(self, progress: Progress, lines: bool) -> None:
        self.progress = progress
        self.lines = lines
        self.tasks: dict[Layer, TaskID] = {}
        self.current: Layer | None = None
        self.done = 0
        """Positions (or other units) of the current layer done so far."""
        self.started = self.shown = 0.0
        """When the current layer started, and when its last line was printed (monotonic)."""

    def layer_started(self, layer: Layer) -> None:
        self.tasks[layer] = self.progress.add_task(layer.key, total=layer.size)
        self.current = layer
        self.done = 0
        self.started = self.shown = time.monotonic()

    def advance(self, positions: int) -> None:
        raise_kept_ctrl_c()
        layer = cast(Layer, self.current)  # after layer_started
        self.progress.advance(self.tasks[layer], positions)
        self.done += positions
        now = time.monotonic()
        if self.lines and now - self.shown >= PROGRESS_EVERY and 0 < self.done < layer.size:
            self.shown = now
            left = (now - self.started) * (layer.size - self.done) / self.done
            self.progress.console.print(f"{layer.key}: {self.done:,} of {layer.size:,} {_noun(layer, 2)} so "
                                        f"far, about {seconds_text(left)} left", highlight=False)

    def layer_finished(self, layer: Layer, entry: dict, kept: bool) -> None:
        note = " (kept)" if kept else f" ({entry['seconds']:.1f} s)"
        self.progress.update(self.tasks[layer], completed=layer.size, description=layer.key + note)
        if self.lines:
            self.progress.console.print(f"{layer.key}: {layer.size:,} {_noun(layer, layer.size)}{note}",
                                        highlight=False)


def _noun(layer: Layer, count: int) -> str:
    """What `count` units of a layer's work are (positions, unless it names its own noun)."""
    return getattr(layer, "noun", "position") + ("" if count == 1 else "s")


@contextlib.contextmanager
def layer_progress(console: Console) -> Iterator[RichReporter]:
    """A reporter for `curator.analyze` that draws on `console`."""
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn())
    lines = not console.is_terminal
    with Progress(*columns, console=console, transient=False, disable=lines) as progress:
        yield RichReporter(progress, lines)


@contextlib.contextmanager
def count_progress(console: Console, description: str) -> Iterator[Callable[[int, int], None]]:
    """A `progress(done, total)` callback drawing one bar on `console` (nothing where bars
    cannot be drawn)."""
    columns = (TextColumn(description), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn())
    with Progress(*columns, console=console, transient=True, disable=not console.is_terminal) as progress:
        task = progress.add_task(description, total=None)

        def update(done: int, total: int) -> None:
            raise_kept_ctrl_c()
            progress.update(task, completed=done, total=total)

        yield update
