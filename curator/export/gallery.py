"""HTML gallery: one self-contained page with every level's picture, metrics and solution.

Pictures are inline SVG and the style sheet is inline, so the file needs nothing else: no
scripts, fonts, images or links outside it.
"""

from __future__ import annotations

import html
import math
from collections.abc import Sequence
from pathlib import Path

from curator.arrange import PackCurve
from curator.common.figures import chance_text
from curator.export.writing import write_text
from curator.layered.level import Level, PuzzleLike, replay
from curator.picture import Picture, picture, svg_text
from curator.version import __version__

STYLE = """
:root { color-scheme: light; }
body { font-family: system-ui, "DejaVu Sans", Arial, sans-serif; margin: 1.5rem; color: #222;
       background: #f6f6f4; }
header h1 { margin: 0 0 .3rem 0; font-size: 1.5rem; }
header p { margin: .2rem 0; color: #555; }
main { display: grid; grid-template-columns: repeat(auto-fill, minmax(20rem, 1fr)); gap: 1rem;
       margin-top: 1rem; }
article { background: #fff; border: 1px solid #ddd; border-radius: .5rem; padding: .8rem; }
article h2 { font-size: 1.1rem; margin: 0 0 .5rem 0; }
article h2 small { color: #777; font-weight: normal; }
figure { margin: 0 0 .6rem 0; text-align: center; }
figure svg { max-width: 100%; height: auto; }
table.metrics { border-collapse: collapse; width: 100%; font-size: .9rem; }
table.metrics th { text-align: left; font-weight: normal; color: #555; padding: .1rem .4rem .1rem 0; }
table.metrics td { text-align: right; font-variant-numeric: tabular-nums; overflow-wrap: anywhere; }
ol.solution { font-size: .9rem; margin: .5rem 0 0 0; padding-left: 1.8rem; columns: 2; }
p.none { color: #777; font-size: .9rem; }
footer { margin-top: 1.5rem; color: #777; font-size: .8rem; }
figure.curve { text-align: left; margin: 1rem 0 0 0; }
figure.curve svg { width: 40rem; max-width: 100%; background: #fff; border: 1px solid #ddd;
                   border-radius: .5rem; }
figure.curve figcaption { color: #555; font-size: .9rem; margin-bottom: .3rem; }
"""

METRICS = (
    ("pieces", "pieces"),
    ("legal_moves", "legal moves"),
    ("safe_moves", "safe moves"),
    ("solutions", "solutions"),
    ("difficulty", "difficulty"),
    ("win_chance", "win chance (random moves)"),
    ("information", "information (bits)"),
    ("decisions", "decision points"),
    ("mistake_depth", "mistake depth (mean)"),
    ("class_size", "class size"),
    ("solvable", "solvable"),
    ("unique", "unique"),
    ("all_moves", "all moves safe"),
)


def metric_texts(level: Level) -> dict[str, str]:
    """How the gallery prints each metric of a level."""
    r = level.report
    yes = {True: "yes", False: "no"}
    return {
        "pieces": str(r.pieces),
        "legal_moves": str(r.legal_moves),
        "safe_moves": str(r.safe_moves),
        "solutions": str(int(r.solutions)),
        "difficulty": f"{level.difficulty:.3f}" if math.isfinite(level.difficulty) else "-",
        "win_chance": chance_text(level.win_chance),
        "information": "-" if level.information is None else f"{level.information:.2f}",
        "decisions": "-" if level.decisions is None else str(level.decisions),
        "mistake_depth": "-" if level.mistake_depth is None else f"{level.mistake_depth:.2f}",
        "class_size": str(level.class_size),
        "solvable": yes[bool(r.solvable)],
        "unique": yes[bool(r.unique)],
        "all_moves": yes[bool(r.all_moves)],
    }


def move_texts(puzzle: PuzzleLike, level: Level) -> list[str]:
    """The solution as text, one move per entry: "(r,c) → (r,c)"; with typed pieces the
    moving and the captured piece are named: "R (0,1) × B (2,1)"."""
    cells = puzzle.board.cells

    def at(i: int) -> str:
        return f"({cells[i][0]},{cells[i][1]})"

    if len(puzzle.piece_types) == 1:
        return [f"{at(a)} → {at(b)}" for a, b in level.report.solution]
    positions = replay(puzzle, level.position, level.report.solution)
    types = puzzle.piece_types
    return [
        f"{types[before[a] - 1]} {at(a)} × {types[before[b] - 1]} {at(b)}"
        for before, (a, b) in zip(positions, level.report.solution)
    ]


def _goal_text(puzzle: PuzzleLike) -> str:
    goal = puzzle.goal
    text = f"leave {goal.pieces} piece{'s' if goal.pieces != 1 else ''}"
    if goal.piece is not None:
        text += f" of type {puzzle.piece_types[goal.piece - 1]}"
    if goal.cells is not None:
        cells = ", ".join(f"({r},{c})" for r, c in sorted(puzzle.board.cells[i] for i in goal.cells))
        text += f" on {cells}"
    return text


def card_html(
    kind: str,
    number: int,
    attributes: dict[str, str | int],
    heading: str,
    pic: Picture,
    metrics: Sequence[tuple[str, str, str]],
    moves: Sequence[str],
    no_moves: str,
) -> str:
    """One gallery card: `<article class="KIND" id="KIND-N" data-...>` with a heading, the
    picture, a table of (key, label, text) metrics and the moves as a numbered list (or the
    text `no_moves` when there are none)."""
    esc = html.escape
    data = "".join(f' data-{name}="{esc(str(value))}"' for name, value in attributes.items())
    rows = "\n".join(
        f'<tr><th scope="row">{esc(label)}</th><td data-metric="{key}">{esc(text)}</td></tr>'
        for key, label, text in metrics
    )
    if moves:
        solution = '<ol class="solution">' + "".join(f"<li>{esc(m)}</li>" for m in moves) + "</ol>"
    else:
        solution = f'<p class="none">{esc(no_moves)}</p>'
    return (
        f'<article class="{kind}" id="{kind}-{number}"{data}>\n'
        f"<h2>{heading}</h2>\n"
        f"<figure>{svg_text(pic, standalone=False, id_prefix=f'{kind[0]}{number}-')}</figure>\n"
        f'<table class="metrics">\n{rows}\n</table>\n'
        f"<h3 hidden>Solution</h3>\n{solution}\n"
        "</article>"
    )


def page_html(title: str, count: str, facts: str, cards: Sequence[str], name: str, chart: str = "") -> str:
    """The gallery page: `title` over a line "COUNT · FACTS" (`facts` is HTML) and the
    `chart` (HTML), then the cards."""
    esc = html.escape
    articles = "\n".join(cards)
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{esc(title)}: {esc(count)}</title>\n"
        f"<style>{STYLE}</style>\n</head>\n<body>\n"
        f"<header>\n<h1>{esc(title)}</h1>\n"
        f"<p>{esc(count)} · {facts}</p>\n{chart}</header>\n"
        f"<main>\n{articles}\n</main>\n"
        f"<footer>Made by curator {esc(__version__)} from puzzle {esc(name)}.</footer>\n"
        "</body>\n</html>\n"
    )


def _article(puzzle: PuzzleLike, number: int, level: Level) -> str:
    esc = html.escape
    pic = picture(puzzle, level.position, f"{puzzle.title}: level {number}")
    texts = metric_texts(level)
    return card_html(
        "level",
        number,
        {"layer": level.layer, "rank": level.rank},
        f"Level {number} <small>{esc(level.layer)} #{level.rank}</small>",
        pic,
        [(key, label, texts[key]) for key, label in METRICS],
        move_texts(puzzle, level),
        "No solution.",
    )


def gallery_html(puzzle: PuzzleLike, levels: Sequence[Level], curve: PackCurve | None = None) -> str:
    """The gallery page as text; a pack's curve is drawn above the levels."""
    esc = html.escape
    board = puzzle.board
    facts = (
        f"rules: {esc(puzzle.rules.family)} · {esc(board.grid)} board of {board.size} cells · "
        f"goal: {esc(_goal_text(puzzle))}"
    )
    cards = [_article(puzzle, n, level) for n, level in enumerate(levels, start=1)]
    chart = "" if curve is None else curve_html(curve)
    return page_html(puzzle.title, plural(len(levels), "level"), facts, cards, puzzle.name, chart)


CHART = (640, 180, 44, 14)
"""Width and height of the curve chart, and its left and other margins (SVG units)."""


def curve_html(curve: PackCurve) -> str:
    """A small line chart of a pack's curve: the target difficulty of each slot (dashed) and
    the difficulty of the level placed there (dots joined by a line)."""
    width, height, left, margin = CHART
    values = [*curve.targets, *curve.achieved]
    low, high = min(values), max(values)
    high = high if high > low else low + 1
    slots = len(curve.targets)

    def point(slot: int, value: float) -> tuple[float, float]:
        x = left + (width - left - margin) * (slot / max(slots - 1, 1))
        return x, height - margin - (height - 2 * margin) * (value - low) / (high - low)

    def line(points: list[tuple[float, float]]) -> str:
        return " ".join(f"{x:.1f},{y:.1f}" for x, y in points)

    targets = [point(i, v) for i, v in enumerate(curve.targets)]
    achieved = [point(i, v) for i, v in enumerate(curve.achieved)]
    dots = "".join(
        f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3">'
        f"<title>level {i + 1}: {v:.2f} (target {t:.2f})</title></circle>"
        for i, ((x, y), v, t) in enumerate(zip(achieved, curve.achieved, curve.targets))
    )
    esc = html.escape
    caption = (f"Difficulty curve: {esc(curve.name)} · {plural(slots, 'level')} from a pool of "
               f"{curve.pool:,} · dashed: target, dots: the levels")
    return (
        f'<figure class="curve" id="curve"><figcaption>{caption}</figcaption>'
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" role="img" '
        f'aria-label="difficulty per level">'
        f'<text x="4" y="{margin + 4}" font-size="11" fill="#555">{high:.1f}</text>'
        f'<text x="4" y="{height - margin}" font-size="11" fill="#555">{low:.1f}</text>'
        f'<polyline class="target" points="{line(targets)}" fill="none" stroke="#999" '
        'stroke-dasharray="5 4"/>'
        f'<polyline class="achieved" points="{line(achieved)}" fill="none" stroke="#2a6fb0" '
        'stroke-width="1.5"/>'
        f'<g fill="#2a6fb0">{dots}</g></svg></figure>\n'
    )


def plural(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"


def write_html(puzzle: PuzzleLike, levels: Sequence[Level], path: str | Path,
               curve: PackCurve | None = None) -> list[Path]:
    """Write the gallery page to `path` (with the chart of a pack's curve, if given)."""
    return write_text(path, gallery_html(puzzle, levels, curve))
