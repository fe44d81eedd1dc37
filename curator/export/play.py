"""A playable page: one self-contained HTML file (inline script, style sheet and SVG; nothing
fetched, no server) that plays every level of an export with undo, reset and hints.

The browser cannot run the rules, so each level comes with its game: every position
reachable from its start (at most PLAY_LIMIT of them), each with its legal moves, the
position each move leads to, whether it is won, still solvable or lost, and the move a hint
shows. Each kind's exporter builds the games (`Game`) of its levels; this module writes the
page. How a position is drawn is the game's `board`:

- `"kind": "pieces"` (pieces on cells; a position is a string with one character per board
  cell, "." for an empty cell, else the piece's letter): `tiles` (per cell its outline as
  x, y pairs, fill and edge colour), `centres` (per cell), `radius` of a piece, `hole` (its
  colour and radius, or null) and `types` (per letter its fill and edge colour, and whether
  pieces show their letter), `label` (the letters' size);
- `"kind": "blocks"` (sliding blocks, and a Sokoban room's boxes and keeper as one-cell
  blocks, its walls as tiles after the floor's; a position lists the anchor cell of every
  piece, group by group): `tiles`, `centres`, `groups` (per group its letter, colour, cells as (row,
  column) offsets from the anchor, and its number of pieces), `gap` (pixels between
  neighbouring blocks) and `label`.

Both give `width` and `height` (pixels) and `cells`, each board cell's (row, column). A move
is (from, to, next position): the cell of the piece (a block's anchor) before and after it.
"""

from __future__ import annotations

import html
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from curator.export.writing import ExportError, write_text
from curator.picture import Picture
from curator.version import __version__

PLAY_LIMIT = 20_000
"""Most positions a level may reach to be playable in the page: each is written into it."""
LOST, OPEN, WON = 0, 1, 2
"""Where a position stands: no way to the goal, still solvable, at the goal."""


@dataclass(frozen=True)
class Node:
    """One position of a game: how to draw it, its moves and where it stands."""

    position: Any
    moves: tuple[tuple[int, int, int], ...]
    """(from cell, to cell, index of the position it leads to) per legal move."""
    hint: int
    """The index in `moves` of the move a hint shows (one that keeps the level solvable, or
    brings it closer to the goal); -1 if none does."""
    state: int
    """LOST, OPEN or WON."""
    distance: int | None = None
    """Moves to the goal at best, where the kind counts them (goal tables: in the puzzle's
    metric)."""

    def to_json(self) -> list[Any]:
        return [self.position, [v for move in self.moves for v in move], self.hint, self.state, self.distance]


@dataclass(frozen=True)
class Game:
    """One level as the page plays it."""

    title: str
    figures: tuple[tuple[str, str], ...]
    """(label, text) of what the page lists about the level."""
    solution: tuple[str, ...]
    board: dict[str, Any]
    nodes: tuple[Node, ...]
    """The positions: the level's start first."""

    def to_json(self) -> dict[str, Any]:
        return {"title": self.title, "figures": [list(f) for f in self.figures],
                "solution": list(self.solution), **self.board,
                "nodes": [node.to_json() for node in self.nodes]}


def too_many(number: int) -> ExportError:
    """The error for a level that reaches too many positions to be played in the page."""
    return ExportError(f"level {number} reaches more than {PLAY_LIMIT:,} positions: too many to play in "
                       "one page; pick smaller levels")


def board_json(pic: Picture, cells: int) -> dict[str, Any]:
    """The size of a picture and its first `cells` tiles (the board's, in cell order) as the
    page draws them: `tiles` (the outline as flat x, y pairs, the fill and the edge colour) and
    `centres` (the middle of each tile)."""
    tiles = pic.tiles[:cells]
    return {
        "width": pic.width, "height": pic.height,
        "tiles": [[[v for point in tile.points for v in point], tile.fill, tile.edge] for tile in tiles],
        "centres": [[round(sum(x for x, _ in tile.points) / len(tile.points), 2),
                     round(sum(y for _, y in tile.points) / len(tile.points), 2)] for tile in tiles],
    }


def page_html(title: str, subtitle: str, games: Sequence[Game], name: str) -> str:
    """The playable page of `games` as text."""
    if not games:
        raise ExportError("there are no levels to play")
    data = json.dumps([game.to_json() for game in games], separators=(",", ":"), ensure_ascii=False)
    data = data.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    esc = html.escape
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{esc(title)}: play</title>\n"
        f"<style>{STYLE}</style>\n</head>\n<body>\n"
        f"<header>\n<h1>{esc(title)}</h1>\n<p>{esc(subtitle)}</p>\n</header>\n"
        f"{BODY}"
        f"<footer>Made by curator {esc(__version__)} from puzzle {esc(name)}; everything it needs is in "
        "this file.</footer>\n"
        f'<script type="application/json" id="levels-data">{data}</script>\n'
        f"<script>{SCRIPT}</script>\n"
        "</body>\n</html>\n"
    )


def write_page(title: str, subtitle: str, games: Sequence[Game], name: str, path: str | Path) -> list[Path]:
    """Write the playable page to `path`."""
    return write_text(path, page_html(title, subtitle, games, name))


STYLE = """
:root { color-scheme: light; }
body { font-family: system-ui, "DejaVu Sans", Arial, sans-serif; margin: 1.5rem; color: #222;
       background: #f6f6f4; }
header h1 { margin: 0 0 .3rem 0; font-size: 1.5rem; }
header p, footer { color: #666; }
footer { margin-top: 1.5rem; font-size: .8rem; }
nav { display: flex; gap: .5rem; align-items: center; margin: 1rem 0; }
main { display: flex; flex-wrap: wrap; gap: 1.5rem; align-items: flex-start; }
#game { background: #fff; border: 1px solid #ddd; border-radius: .5rem; padding: 1rem; }
#game h2 { font-size: 1.1rem; margin: 0 0 .6rem 0; }
#board svg { display: block; max-width: min(90vw, 36rem); height: auto; cursor: pointer; }
#board .piece.selected circle, #board circle.piece.selected, #board .piece.selected rect {
  stroke: #1a1a1a; stroke-width: 4; }
#board .target { fill: rgba(42, 111, 176, .25); stroke: #2a6fb0; stroke-width: 3; stroke-dasharray: 6 4; }
#board .hint-to { fill: rgba(30, 132, 73, .35); stroke: #1e8449; }
#board .hint-from circle, #board circle.hint-from, #board .hint-from rect {
  stroke: #1e8449; stroke-width: 5; }
#board text { pointer-events: none; font-weight: bold; }
.buttons { display: flex; gap: .5rem; margin-top: .6rem; }
button { font: inherit; padding: .3rem .8rem; border: 1px solid #999; border-radius: .3rem;
         background: #fafafa; cursor: pointer; }
button:disabled { opacity: .5; cursor: default; }
#status.good { color: #1e6b35; }
#status.bad { color: #a32a1e; }
#solved { font-size: 1.2rem; font-weight: bold; color: #1e6b35; }
#move-list { list-style: none; padding: 0; display: flex; flex-wrap: wrap; gap: .3rem; }
#move-list button.hint { border-color: #1e8449; background: #e3f3e8; }
aside { background: #fff; border: 1px solid #ddd; border-radius: .5rem; padding: 1rem; min-width: 16rem; }
aside table { border-collapse: collapse; width: 100%; font-size: .9rem; }
aside th { text-align: left; font-weight: normal; color: #555; padding: .1rem .6rem .1rem 0; }
aside td { text-align: right; font-variant-numeric: tabular-nums; }
"""

BODY = """<nav>
<button type="button" id="prev" aria-label="previous level">&#9664;</button>
<select id="level" aria-label="level"></select>
<button type="button" id="next" aria-label="next level">&#9654;</button>
</nav>
<main>
<section id="game">
<h2 id="level-title"></h2>
<div id="board"></div>
<p id="status" aria-live="polite"></p>
<p id="moves-made"></p>
<p id="solved" hidden>Solved <span id="solved-moves"></span>!</p>
<div class="buttons">
<button type="button" id="hint">Hint</button>
<button type="button" id="undo">Undo</button>
<button type="button" id="reset">Reset</button>
</div>
<ul id="move-list"></ul>
</section>
<aside>
<table id="figures"></table>
<details><summary>Solution</summary><ol id="solution"></ol></details>
</aside>
</main>
"""

SCRIPT = r"""
"use strict";
const LEVELS = JSON.parse(document.getElementById("levels-data").textContent);
const NS = "http://www.w3.org/2000/svg";
const LOST = 0, OPEN = 1, WON = 2;
const $ = (selector) => document.querySelector(selector);
let game = null;

function svg(tag, attributes = {}) {
  const node = document.createElementNS(NS, tag);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, value);
  return node;
}

function element(tag, text = "", attributes = {}) {
  const node = document.createElement(tag);
  node.textContent = text;
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, value);
  return node;
}

const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;
const here = () => game.level.nodes[game.history[game.history.length - 1]];

function movesOf(node) {
  const flat = node[1], out = [];
  for (let i = 0; i < flat.length; i += 3) {
    out.push({from: flat[i], to: flat[i + 1], next: flat[i + 2], index: i / 3});
  }
  return out;
}

function cellText(cell) {
  const [r, c] = game.level.cells[cell];
  return `${r},${c}`;
}

function moveText(move) {
  const letter = game.level.kind === "blocks" ? pieceAt(here(), move.from).letter : here()[0][move.from];
  return `${letter} ${cellText(move.from)} → ${cellText(move.to)}`;
}

// -- the pieces of a position ---------------------------------------------------------------

function pieces(node) {
  const level = game.level, out = [];
  if (level.kind === "pieces") {
    [...node[0]].forEach((letter, cell) => {
      if (letter !== ".") out.push({key: cell, letter, cells: [cell]});
    });
    return out;
  }
  let at = 0;
  for (const [letter, colour, shape, count] of level.groups) {
    for (let k = 0; k < count; k++, at++) {
      const anchor = node[0][at];
      out.push({key: anchor, letter, colour, shape, cells: blockCells(anchor, shape)});
    }
  }
  return out;
}

const pieceAt = (node, key) => pieces(node).find((piece) => piece.key === key);

function blockCells(anchor, shape) {
  const [r, c] = game.level.cells[anchor];
  return shape.map(([dr, dc]) => game.index.get(`${r + dr},${c + dc}`));
}

// -- drawing ------------------------------------------------------------------------------

function drawTile(parent, cell) {
  const [points, fill, edge] = game.level.tiles[cell];
  const pairs = [];
  for (let i = 0; i < points.length; i += 2) pairs.push(`${points[i]},${points[i + 1]}`);
  parent.append(svg("polygon", {points: pairs.join(" "), fill, stroke: edge, "stroke-width": 1, class: "tile",
                                "data-cell": cell}));
}

function squareOf(cell) {
  const points = game.level.tiles[cell][0];
  const xs = points.filter((_, i) => i % 2 === 0), ys = points.filter((_, i) => i % 2 === 1);
  return [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)];
}

function blockShape(cells, attributes) {
  // Joined squares: each cell's square, pulled in where the block does not go on.
  const group = svg("g", attributes), gap = game.level.gap, own = new Set(cells);
  for (const cell of cells) {
    const [r, c] = game.level.cells[cell];
    const inset = (dr, dc) => (own.has(game.index.get(`${r + dr},${c + dc}`)) ? 0 : gap);
    const [x0, y0, x1, y1] = squareOf(cell);
    const left = x0 + inset(0, -1), top = y0 + inset(-1, 0);
    const right = x1 - inset(0, 1), bottom = y1 - inset(1, 0);
    group.append(svg("rect", {x: left, y: top, width: right - left, height: bottom - top}));
  }
  return group;
}

function drawPiece(parent, piece) {
  const level = game.level;
  const [x, y] = level.centres[piece.key];
  const classes = ["piece"];
  if (game.selected === piece.key) classes.push("selected");
  if (game.hint !== null && game.hint.from === piece.key) classes.push("hint-from");
  if (level.kind === "pieces") {
    const [fill, edge, labelled] = level.types[piece.letter];
    parent.append(svg("circle", {cx: x, cy: y, r: level.radius, fill, stroke: edge, "stroke-width": 2,
                                 class: classes.join(" "), "data-cell": piece.key,
                                 "data-type": piece.letter}));
    if (labelled) label(parent, x, y, piece.letter);
    return;
  }
  parent.append(blockShape(piece.cells, {class: classes.join(" "), "data-cell": piece.key,
                                         "data-type": piece.letter, fill: piece.colour,
                                         stroke: piece.colour}));
  label(parent, x, y, piece.letter);
}

function label(parent, x, y, letter) {
  const text = svg("text", {x, y, "text-anchor": "middle", "dominant-baseline": "central", fill: "#ffffff",
                            "font-size": game.level.label, "font-family": "DejaVu Sans, Arial, sans-serif"});
  text.textContent = letter;
  parent.append(text);
}

function drawTarget(parent, move) {
  const level = game.level;
  const classes = ["target"];
  if (game.hint !== null && game.hint.index === move.index) classes.push("hint-to");
  const attributes = {class: classes.join(" "), "data-move": move.index, "data-cell": move.to};
  if (level.kind === "pieces") {
    const [x, y] = level.centres[move.to];
    parent.append(svg("circle", {cx: x, cy: y, r: level.radius * 1.1, ...attributes}));
  } else {
    parent.append(blockShape(blockCells(move.to, pieceAt(here(), move.from).shape), attributes));
  }
}

function draw() {
  const level = game.level, node = here(), moves = movesOf(node);
  const picture = svg("svg", {viewBox: `0 0 ${level.width} ${level.height}`, width: level.width,
                              height: level.height, role: "img", "aria-label": level.title});
  picture.append(svg("rect", {x: 0, y: 0, width: level.width, height: level.height, fill: "#ffffff"}));
  level.tiles.forEach((_, cell) => drawTile(picture, cell));
  const occupied = new Set(level.kind === "pieces" ? pieces(node).map((p) => p.key) : []);
  if (level.hole) {
    const [fill, radius] = level.hole;
    level.centres.forEach(([x, y], cell) => {
      if (occupied.has(cell)) return;
      picture.append(svg("circle", {cx: x, cy: y, r: radius, fill, class: "hole", "data-cell": cell}));
    });
  }
  for (const piece of pieces(node)) drawPiece(picture, piece);
  const hinted = (m) => game.hint !== null && m.index === game.hint.index;
  const shown = moves.filter((m) => m.from === game.selected && !hinted(m));
  if (game.hint !== null) shown.push(game.hint);
  for (const move of shown) drawTarget(picture, move);
  $("#board").replaceChildren(picture);

  const made = game.history.length - 1;
  $("#moves-made").textContent = `${plural(made, "move")} played`;
  const status = $("#status");
  status.textContent = statusText(node, moves);
  status.className = node[3] === LOST ? "bad" : "good";
  $("#solved").hidden = node[3] !== WON;
  $("#solved-moves").textContent = `in ${plural(made, "move")}`;
  $("#undo").disabled = made === 0;
  $("#reset").disabled = made === 0;
  $("#hint").disabled = node[3] !== OPEN;
  const listed = moves.filter((m) => m.from === game.selected);
  $("#move-list").replaceChildren(...listed.map((move) => {
    const button = element("button", moveText(move), {type: "button", "data-move": move.index});
    if (game.hint !== null && game.hint.index === move.index) button.classList.add("hint");
    button.addEventListener("click", () => play(move));
    const item = element("li");
    item.append(button);
    return item;
  }));
}

function statusText(node, moves) {
  if (node[3] === WON) return "Solved: the goal is reached.";
  if (!moves.length) return "No moves left: this is a dead end. Undo or reset.";
  if (node[3] === LOST) return "No way to the goal from here any more. Undo or reset.";
  if (game.level.kind === "blocks") {
    return `Still solvable: the goal is ${plural(node[4], "move")} away at best.`;
  }
  const safe = moves.filter((m) => game.level.nodes[m.next][3] !== LOST).length;
  return `Still solvable: ${safe} of ${plural(moves.length, "move")} keep it so.`;
}

// -- playing ------------------------------------------------------------------------------

function play(move) {
  game.history.push(move.next);
  game.selected = null;
  game.hint = null;
  draw();
}

function clickBoard(event) {
  const node = here();
  if (node[3] === WON) return;
  const moves = movesOf(node);
  const target = event.target.closest("[data-move]");
  if (target) { play(moves[Number(target.dataset.move)]); return; }
  const piece = event.target.closest(".piece");
  const key = piece ? Number(piece.dataset.cell) : null;
  game.selected = key !== null && key !== game.selected && moves.some((m) => m.from === key) ? key : null;
  draw();
}

function hint() {
  const node = here();
  if (node[3] !== OPEN || node[2] < 0) return;
  game.hint = movesOf(node)[node[2]];
  draw();
}

function undo() {
  if (game.history.length > 1) game.history.pop();
  game.selected = null;
  game.hint = null;
  draw();
}

function reset() {
  game.history.length = 1;
  game.selected = null;
  game.hint = null;
  draw();
}

function start(number) {
  const level = LEVELS[number];
  game = {number, level, history: [0], selected: null, hint: null,
          index: new Map(level.cells.map(([r, c], cell) => [`${r},${c}`, cell]))};
  $("#level").value = String(number);
  $("#level-title").textContent = level.title;
  $("#prev").disabled = number === 0;
  $("#next").disabled = number === LEVELS.length - 1;
  $("#figures").replaceChildren(...level.figures.map(([name, text]) => {
    const row = element("tr");
    row.append(element("th", name, {scope: "row"}), element("td", text));
    return row;
  }));
  $("#solution").replaceChildren(...level.solution.map((move) => element("li", move)));
  draw();
}

function wire() {
  LEVELS.forEach((level, number) => $("#level").append(element("option", level.title, {value: number})));
  $("#level").addEventListener("change", (event) => start(Number(event.target.value)));
  $("#prev").addEventListener("click", () => start(game.number - 1));
  $("#next").addEventListener("click", () => start(game.number + 1));
  $("#board").addEventListener("click", clickBoard);
  $("#hint").addEventListener("click", hint);
  $("#undo").addEventListener("click", undo);
  $("#reset").addEventListener("click", reset);
  start(0);
}

wire();
"""
