"""Where benchmark figures go: JSON under benchmarks/results/, or a path the user gives."""

from __future__ import annotations

import json
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results"


def write_figures(report: dict, kind: str, path: Path | None) -> Path:
    """Write `report` (which has an ISO "date") to `path`, or to results/KIND-DATE.json."""
    stamp = report["date"][:19].replace(":", "")
    out = path or RESULTS / f"{kind}-{stamp}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=1) + "\n")
    print(f"figures written to {out}")
    return out
