"""Console tables for distance results: positions per distance, and selected positions.

The command line prints these; `--json` prints the same data as JSON instead.
"""

from __future__ import annotations

from typing import Any

from rich.table import Table

from curator.distance.store import DistanceStore


def distances_table(store: DistanceStore) -> Table:
    """Positions per distance, with what was not reached and the time taken."""
    summary = store.summary()
    manifest = store.manifest
    title = f"{summary['puzzle']} ({manifest['metric']} metric)"
    if not summary["complete"]:
        title += " (incomplete)"
    table = Table(title=title, caption=f"{store.seconds:.1f} s")
    table.add_column("distance", justify="right")
    table.add_column("positions", justify="right")
    for item in summary["distances"]:
        table.add_row(str(item["distance"]), f"{item['positions']:,}")
    if manifest.get("unreached"):
        table.add_row("not reached", f"{manifest['unreached']:,}")
    return table


def state_text(state: dict[str, dict[str, list[int]]]) -> str:
    """A state in its JSON form as one line: "SET p0 p1 ... / o0 o1 ...; SET ..." (the
    orientations only for sets that have them)."""
    return "; ".join(
        f"{name} " + " ".join(map(str, part["permutation"]))
        + ("" if "orientation" not in part else " / " + " ".join(map(str, part["orientation"])))
        for name, part in state.items()
    )


def positions_table(items: list[dict[str, Any]], title: str | None = None) -> Table:
    """Selected positions: distance, rank, state and an optimal solution."""
    table = Table(title=title, caption=f"{len(items)} positions")
    for name in ("distance", "rank", "state", "solution"):
        table.add_column(name, justify="right" if name in ("distance", "rank") else "left")
    for item in items:
        table.add_row(
            str(item["distance"]), str(item["rank"]), state_text(item["state"]), " ".join(item["solution"])
        )
    return table
