// The workspace page: layer tables, level search, play with hints, and pack building,
// all through the JSON API under /api/ (see /openapi.json). Goal tables (a folder whose
// workspace is "blocks": sliding blocks, Sokoban) have their own level search, play (legal
// moves as buttons with the distance each leads to, and the arrow keys) and packs, under
// /api/folders/{id}/sliding/. Universe tables (workspace "universe") list their puzzles, one per
// connected set, play them the same way, a vehicle picked by a click, and arrange packs of them
// by distance, under /api/folders/{id}/universe/.
"use strict";

const $ = (selector) => document.querySelector(selector);
const SVG_NS = "http://www.w3.org/2000/svg";

const state = {
  folder: null,       // the FolderDetail shown
  cellIndex: {},      // "row,col" -> cell index
  levels: [],         // the levels (universe tables: the puzzles) last found
  play: null,         // {folder, kind, level, history: [report], selected, hint}; kind: "layers",
  // "sliding" or "universe"; selected: a cell index (layers), a vehicle's first cell "r,c" (universe)
  pack: {folder: null, kind: null, items: [], curve: null},  // kind: its folder's workspace;
  // curve: {name, pool, targets} of an arranged pack
};

// -- talking to the API -------------------------------------------------------------------

async function api(path, options = {}) {
  const response = await fetch(path, options);
  if (!response.ok) {
    let detail = response.statusText;
    try { detail = (await response.json()).detail; } catch (_) { /* not JSON */ }
    throw Object.assign(new Error(detail), {status: response.status});
  }
  return response;
}

const getJson = async (path) => (await api(path)).json();
const postJson = (path, body) => api(path, {
  method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify(body),
});

function say(text, isError = false) {
  const line = $("#message");
  line.textContent = text;
  line.classList.toggle("error", isError);
}

// What happened, for the scripts that keep packs and playtests (static/studio.js).
const announce = (name, detail = {}) => document.dispatchEvent(new CustomEvent(`curator:${name}`, {detail}));

async function guarded(action) {
  try {
    say("");
    await action();
  } catch (error) {
    say(error.message, true);
  }
}

function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, value);
  node.append(...children);
  return node;
}

function svgEl(tag, attributes = {}) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, value);
  return node;
}

const pictureUrl = (folder, position) => `/api/folders/${folder}/picture?position=${position.join(",")}`;
const cellText = (cell) => `${cell[0]},${cell[1]}`;
const figure = (value, digits = 2) => (value === null || value === undefined ? "-" : Number(value).toFixed(digits));
// A chance as the command line shows it (curator/common/figures.py): a percentage with two
// significant digits, so a small chance is never shown as 0.
function chance(value) {
  if (value === null || value === undefined) return "-";
  const percent = 100 * Number(value);
  if (percent <= 0 || percent >= 10) return `${percent.toFixed(0)}%`;
  return `${percent.toFixed(1 - Math.floor(Math.log10(percent)))}%`;
}
const count = (value) => (value === null || value === undefined ? "-" : Number(value).toLocaleString("en"));
const plural = (n, noun) => `${n.toLocaleString("en")} ${noun}${n === 1 ? "" : "s"}`;
const levelName = (level) => (level.layer ? `${level.layer} #${level.rank}` : `#${level.rank}`);
// Packs whose curve follows distances (goal and universe tables), not difficulties.
const byDistance = (kind) => kind === "blocks" || kind === "universe";

function svgBox(markup, attributes = {}) {
  // A picture the API sends as SVG markup (sliding-block levels), in a box of its own.
  const box = el("div", {class: "picture", ...attributes});
  box.innerHTML = markup;
  return box;
}

// -- tabs and folders ---------------------------------------------------------------------

function showTab(name) {
  for (const panel of document.querySelectorAll(".panel")) panel.hidden = panel.id !== name;
  for (const tab of document.querySelectorAll(".tab")) tab.classList.toggle("active", tab.dataset.tab === name);
}

async function loadFolders() {
  const folders = await getJson("/api/folders");
  const select = $("#folder");
  for (const folder of folders) {
    select.append(el("option", {value: folder.id}, `${folder.name} (${folder.puzzle})`));
  }
  if (folders.length) await openFolder(folders[0].id);
}

const tableKind = (folder) => (folder.workspace === "blocks" ? "blocks" : folder.kind);
// How a folder's table is shown: layers, a distance table, or goal tables ("blocks").

async function openFolder(id) {
  const folder = await getJson(`/api/folders/${id}`);
  state.folder = folder;
  state.cellIndex = {};
  const cells = (folder.board || folder.blocks || folder.universe || {cells: []}).cells;
  cells.forEach((cell, i) => { state.cellIndex[cellText(cell)] = i; });
  $("#puzzle-title").textContent = `${folder.title}: ${folder.held}` +
    `${folder.complete ? "" : " (incomplete)"}`;
  document.body.classList.toggle("typed", Boolean(folder.board && folder.board.piece_types.length > 1));
  document.body.classList.toggle("sliding", folder.workspace === "blocks");
  document.body.classList.toggle("distances", folder.kind === "distance");
  document.body.classList.toggle("universe", folder.workspace === "universe");
  $("#figures").textContent = figuresText(folder);
  showLayers(folder);
  $("#level-list").replaceChildren();
  state.levels = [];
  $("#matched").textContent = "";
  if (state.play && state.play.folder !== folder.id) clearPlay();
  if (folder.blocks) $("#load-board [name=board]").value = folder.blocks.start || "";
  if (folder.universe) $("#load-board [name=board]").value = emptyBoard(folder.universe);
  const tab = document.querySelector(".tab.active");
  if (!folder.workspace && tab && ["levels", "play", "pack"].includes(tab.dataset.tab)) showTab("layers");
  announce("folder", {folder});
  if (typeof editorFolderChanged === "function") editorFolderChanged();  // editor.js
}

function emptyBoard(universe) {
  // The universe's board with the goal vehicle alone, at the left of its row.
  const [[goalRow]] = universe.goal_cells;
  const length = universe.goal_cells.length;
  return Array.from({length: universe.rows}, (_, r) => (r === goalRow
    ? universe.goal_piece.repeat(length) + ".".repeat(universe.cols - length) : ".".repeat(universe.cols))).join("/");
}

function figuresText(folder) {
  if (folder.universe) {
    const u = folder.universe;
    const f = u.figures;
    return `${count(f.sets)} puzzles (connected sets) of ${count(f.positions)} positions; ` +
      `${count(f.solvable_sets)} can be solved, ${count(f.minimal)} of them minimal; farthest ${f.farthest} moves; ` +
      `${u.rules}`;
  }
  const f = folder.figures;
  if (!f) return "";
  const blocks = folder.blocks;
  return `${count(f.positions)} positions (${count(f.invalid)} of ${count(f.ranks)} ranks are not positions), ` +
    `${count(f.solvable)} solvable, ${count(f.unsolvable)} not; farthest ${count(f.max_distance)} from the goal; ` +
    `${count(f.clusters)} connected sets, the largest of ${count(f.largest_cluster)}; ` +
    `${blocks.rules}; pieces ${blocks.pieces.map((p) => p.letter).join(" ")}`;
}

// -- the layer table and its chart --------------------------------------------------------

function byPieces(layers) {
  // Layers of typed puzzles are per count of each type: one row per piece count here.
  const rows = new Map();
  for (const layer of layers) {
    const key = layer.pieces ?? layer.distance;
    const row = rows.get(key) || {pieces: key, positions: 0, solvable: 0, unique: 0, all_moves: 0};
    for (const name of ["positions", "solvable", "unique", "all_moves"]) row[name] += layer[name] || 0;
    rows.set(key, row);
  }
  return [...rows.values()].sort((a, b) => a.pieces - b.pieces);
}

const COLUMNS = {
  // The layer table's columns by the folder's kind: [field, heading].
  layers: [["pieces", "pieces"], ["positions", "positions"], ["solvable", "solvable"], ["unique", "unique"],
           ["all_moves", "all moves"]],
  distance: [["distance", "distance"], ["positions", "positions"]],
  blocks: [["distance", "distance"], ["positions", "positions"], ["unique", "unique"], ["all_moves", "all moves"]],
  universe: [["distance", "distance"], ["puzzles", "puzzles"], ["minimal", "minimal"], ["positions", "positions"]],
};
const SERIES = [["solvable", "#2f7d32"], ["unique", "#1f5fa8"], ["all_moves", "#c77700"]];
const KIND_SERIES = {layers: SERIES, distance: [["positions", "#2f7d32"]],
                     blocks: [["positions", "#2f7d32"], ["unique", "#1f5fa8"], ["all_moves", "#c77700"]],
                     universe: [["puzzles", "#2f7d32"], ["minimal", "#1f5fa8"]]};

function showLayers(folder) {
  const columns = COLUMNS[tableKind(folder)];
  const rows = folder.kind === "layers" ? byPieces(folder.layers) : folder.layers;
  $("#layer-table thead").replaceChildren(el("tr", {}, ...columns.map(([, heading]) => el("th", {}, heading))));
  const body = $("#layer-table tbody");
  body.replaceChildren(...rows.map((row) => el("tr", {},
    ...columns.map(([name]) => el("td", {}, count(row[name]))))));
  const key = columns[0][0];
  $("#chart").replaceChildren(countChart(rows, KIND_SERIES[tableKind(folder)], key));
}

function countChart(rows, series = SERIES, key = "pieces") {
  // Grouped bars per piece count (or distance) on a log scale (counts span many powers of ten).
  const width = 520, height = 240, left = 44, bottom = 28, top = 24;
  const svg = svgEl("svg", {viewBox: `0 0 ${width} ${height}`, class: "counts", role: "img"});
  const most = Math.max(1, ...rows.flatMap((row) => series.map(([name]) => row[name] || 0)));
  const scale = (value) => (value > 0 ? Math.log10(value + 1) / Math.log10(most + 1) : 0);
  const slot = (width - left) / Math.max(1, rows.length);
  const gap = slot > 8 ? 2 : 0;
  const bar = Math.max(slot > 8 ? 2 : 0.5, (slot - 2 * gap) / series.length);
  const every = Math.ceil(rows.length / 24);  // label at most about 24 rows
  const noun = key === "pieces" ? "pieces" : "from the goal";
  rows.forEach((row, i) => {
    series.forEach(([name, colour], j) => {
      const h = scale(row[name] || 0) * (height - top - bottom);
      const rect = svgEl("rect", {x: left + i * slot + gap + j * bar, y: height - bottom - h,
                                  width: Math.max(0.5, bar - (gap ? 1 : 0)), height: h, fill: colour,
                                  "data-series": name, [`data-${key}`]: row[key]});
      rect.append(Object.assign(svgEl("title"), {textContent: `${row[key]} ${noun}: ${row[name]} ${name}`}));
      svg.append(rect);
    });
    if (i % every) return;
    const label = svgEl("text", {x: left + (i + 0.5) * slot, y: height - 10, "text-anchor": "middle"});
    label.textContent = row[key];
    svg.append(label);
  });
  for (const power of [0, 1, 2, 3, 4, 5, 6, 7, 8, 9].filter((p) => 10 ** p <= most)) {
    const y = height - bottom - scale(10 ** power) * (height - top - bottom);
    svg.append(svgEl("line", {x1: left, x2: width, y1: y, y2: y, class: "grid"}));
    const tick = svgEl("text", {x: left - 4, y: y + 4, "text-anchor": "end"});
    tick.textContent = power < 3 ? String(10 ** power) : `1e${power}`;
    svg.append(tick);
  }
  series.forEach(([name, colour], j) => {
    svg.append(svgEl("rect", {x: left + 8 + j * 110, y: 6, width: 12, height: 12, fill: colour}));
    const text = svgEl("text", {x: left + 24 + j * 110, y: 16});
    text.textContent = name.replace("_", " ");
    svg.append(text);
  });
  return svg;
}

// -- finding levels -----------------------------------------------------------------------

function filterQuery(form) {
  const query = new URLSearchParams();
  for (const [name, value] of new FormData(form)) {
    if (name === "canonical") query.set("canonical", "true");
    else if (String(value).trim() !== "") query.set(name, String(value).trim());
  }
  return query;
}

async function findLevels(event) {
  event.preventDefault();
  const query = filterQuery($("#filters"));
  const found = await getJson(`/api/folders/${state.folder.id}/levels?${query}`);
  state.levels = found.levels;
  $("#matched").textContent = `${found.levels.length} level${found.levels.length === 1 ? "" : "s"}` +
    (found.matched === null ? "" : ` of ${found.matched.toLocaleString("en")} matching`);
  $("#level-list").replaceChildren(...found.levels.map((level) => levelCard(state.folder.id, level)));
  announce("levels");
}

function levelCard(folder, level) {
  const play = el("button", {type: "button", class: "play"}, "Play");
  play.addEventListener("click", () => guarded(() => startPlay(level)));
  const add = el("button", {type: "button", class: "add"}, "Add to pack");
  add.addEventListener("click", () => addToPack(folder, level));
  const edit = el("button", {type: "button", class: "edit"}, "Edit");
  edit.addEventListener("click", () => guarded(() => editLevel(level)));  // editor.js
  return el("figure", {class: "level", "data-rank": level.rank},
    el("img", {src: pictureUrl(folder, level.position), alt: `${level.layer} #${level.rank}`, loading: "lazy"}),
    el("figcaption", {},
      el("strong", {}, `${level.layer} #${level.rank}`),
      el("span", {title: level.difficulty_terms || ""}, `${level.pieces} pieces, difficulty ${figure(level.difficulty)}`),
      el("span", {}, `${level.solutions} solution${level.solutions === 1 ? "" : "s"}, ` +
        `win chance ${chance(level.win_chance)}`),
      el("span", {}, `${level.safe_moves}/${level.legal_moves} safe first moves` +
        (level.unique ? ", unique" : "") + (level.all_moves ? ", all moves" : "")),
      el("span", {class: "buttons"}, play, add, edit)));
}

async function findSlidingLevels(event) {
  event.preventDefault();
  const query = filterQuery($("#sliding-filters"));
  const found = await getJson(`/api/folders/${state.folder.id}/sliding/levels?${query}`);
  state.levels = found.levels;
  $("#matched").textContent = `${plural(found.levels.length, "level")} of ${found.matched.toLocaleString("en")} matching`;
  $("#level-list").replaceChildren(...found.levels.map((level) => slidingCard(state.folder.id, level)));
  announce("levels");
}

function slidingCard(folder, level) {
  const start = () => guarded(() => startSlidingPlay(level.board.join("/"), level));
  const play = el("button", {type: "button", class: "play"}, "Play");
  play.addEventListener("click", start);
  const add = el("button", {type: "button", class: "add"}, "Add to pack");
  add.addEventListener("click", () => addToPack(folder, level));
  const edit = el("button", {type: "button", class: "edit"}, "Edit");
  edit.addEventListener("click", () => guarded(() => editLevel(level)));  // editor.js
  edit.hidden = !canEdit(state.folder);  // a Sokoban room has no board to draw on
  const picture = svgBox(level.picture, {title: "Play this level"});
  picture.addEventListener("click", start);
  const flags = [level.unique ? "unique" : "", level.all_moves ? "all moves" : ""].filter(Boolean);
  return el("figure", {class: "level", "data-rank": level.rank, "data-distance": level.distance}, picture,
    el("figcaption", {},
      el("strong", {}, `#${level.rank}`),
      el("span", {}, `distance ${level.distance}` + (flags.length ? `, ${flags.join(", ")}` : "")),
      el("span", {title: level.difficulty_terms || ""}, `difficulty ${figure(level.difficulty)}`),
      el("span", {}, `connected set of ${count(level.cluster)}`),
      el("span", {class: "buttons"}, play, add, edit)));
}

async function findUniversePuzzles(event) {
  event.preventDefault();
  const query = filterQuery($("#universe-filters"));
  const found = await getJson(`/api/folders/${state.folder.id}/universe/puzzles?${query}`);
  state.levels = found.puzzles;
  $("#matched").textContent = `${plural(found.puzzles.length, "puzzle")} of ${found.matched.toLocaleString("en")} matching`;
  $("#level-list").replaceChildren(...found.puzzles.map((puzzle) => universeCard(puzzle)));
  announce("levels");
}

const countsText = (counts) => Object.entries(counts).map(([letter, n]) => `${letter}×${n}`).join(" ");

function universeCard(puzzle) {
  const start = () => guarded(() => startUniversePlay(puzzle.board.join("/"), puzzle));
  const play = el("button", {type: "button", class: "play"}, "Play");
  play.addEventListener("click", start);
  const picture = svgBox(puzzle.picture, {title: "Play this puzzle"});
  picture.addEventListener("click", start);
  const add = el("button", {type: "button", class: "add"}, "Add to pack");
  add.addEventListener("click", () => addToPack(state.folder.id, puzzle));
  const flags = [puzzle.minimal ? "minimal" : "", puzzle.unique ? "unique" : ""].filter(Boolean);
  return el("figure", {class: "level", "data-rank": puzzle.rank, "data-distance": puzzle.distance ?? ""}, picture,
    el("figcaption", {},
      el("strong", {}, `set #${puzzle.rank}`),
      el("span", {title: puzzle.difficulty_terms},
        (puzzle.distance === null ? "cannot be solved" : `distance ${puzzle.distance}`) +
        (flags.length ? `, ${flags.join(", ")}` : "")),
      el("span", {}, `connected set of ${count(puzzle.cluster)}`),
      el("span", {title: countsText(puzzle.counts)}, `${plural(puzzle.pieces, "vehicle")}, ${plural(puzzle.walls, "wall")}`),
      el("span", {class: "buttons"}, play, add)));
}

// -- playing ------------------------------------------------------------------------------

async function startPlay(level) {
  const report = await (await postJson(`/api/folders/${state.folder.id}/position`,
                                        {position: level.position})).json();
  state.play = {folder: state.folder.id, kind: "layers", level, history: [report], selected: null,
                hint: state.play ? state.play.hint : false};
  $("#play-title").textContent = `${level.layer} #${level.rank}: ${level.pieces} pieces, ` +
    `difficulty ${figure(level.difficulty)}`;
  showTab("play");
  drawPlay();
  announce("play", {event: "start"});
}

const current = () => state.play.history[state.play.history.length - 1];

function movesFrom(cell) {
  return current().moves.filter((move) => state.cellIndex[cellText(move.from)] === cell);
}

function topElements(board) {
  // The element drawn last for each cell: what a click there lands on.
  const top = new Map();
  for (const node of board.querySelectorAll("[data-cell]")) top.set(Number(node.dataset.cell), node);
  return top;
}

function mark(top, cell, name) {
  const node = top.get(cell);
  if (node) node.classList.add(name);
}

function drawPlay() {
  if (state.play.kind !== "layers") { drawSlidingPlay(); return; }
  const play = state.play;
  const report = current();
  const board = $("#board");
  board.innerHTML = report.picture;
  const top = topElements(board);
  const index = (cell) => state.cellIndex[cellText(cell)];
  if (play.selected !== null) {
    mark(top, play.selected, "selected");
    for (const move of movesFrom(play.selected)) {
      mark(top, index(move.to), "target");
      if (play.hint && move.safe) mark(top, index(move.to), "hint-to");
    }
  } else if (play.hint) {
    for (const move of report.moves.filter((m) => m.safe)) mark(top, index(move.from), "hint-from");
  }
  const moves = play.history.length - 1;
  $("#moves-made").textContent = `${moves} move${moves === 1 ? "" : "s"} played, ${report.pieces} pieces left`;
  $("#status").textContent = statusText(report);
  $("#status").className = report.goal || report.solvable ? "good" : "bad";
  $("#hint").setAttribute("aria-pressed", String(play.hint));
  $("#solved").hidden = !report.goal;
  $("#solved-moves").textContent = `in ${moves} move${moves === 1 ? "" : "s"}`;
  if (typeof decoratePlay === "function") decoratePlay();  // steps.js: the hint's arrow
}

function statusText(report) {
  const source = report.source === "stored" ? "stored bits" : "search";
  if (report.goal) return "Solved: the goal is reached.";
  if (!report.moves.length) return "No moves left: this is a dead end. Undo or reset.";
  if (!report.solvable) return `Not solvable any more (${source}). Undo or reset.`;
  const safe = report.moves.filter((m) => m.safe).length;
  return `Still solvable (${source}): ${safe} of ${report.moves.length} moves keep it so.`;
}

async function clickBoard(event) {
  const play = state.play;
  const node = event.target.closest("[data-cell]");
  if (play && play.kind === "universe" && node && !current().goal) { await clickUniverse(Number(node.dataset.cell)); return; }
  if (!play || play.kind !== "layers" || !node || current().goal) return;
  const cell = Number(node.dataset.cell);
  const chosen = play.selected === null ? [] : movesFrom(play.selected)
    .filter((move) => state.cellIndex[cellText(move.to)] === cell);
  if (chosen.length) {
    const move = {from: chosen[0].from, to: chosen[0].to};
    const report = await (await postJson(`/api/folders/${play.folder}/move`,
                                          {position: current().position, move})).json();
    play.history.push(report);
    play.selected = null;
    announce("play", {event: "move"});
  } else if (current().position[cell] && movesFrom(cell).length) {
    play.selected = cell === play.selected ? null : cell;
  } else if (play.selected !== null || current().position[cell]) {
    say("That move is not legal here.", true);
    play.selected = null;
  }
  drawPlay();
}

function undo() {
  if (state.play && state.play.history.length > 1) {
    state.play.history.pop();
    announce("play", {event: "undo"});
  }
  if (state.play) { state.play.selected = null; drawPlay(); }
}

function reset() {
  if (!state.play) return;
  state.play.history.length = 1;
  state.play.selected = null;
  drawPlay();
  announce("play", {event: "reset"});
}

function toggleHint() {
  if (!state.play) return;
  state.play.hint = !state.play.hint;
  drawPlay();
  if (state.play.hint) announce("play", {event: "hint"});
}

function clearPlay() {
  announce("play", {event: "stop"});
  state.play = null;
  $("#board").replaceChildren();
  $("#play-title").textContent = "Pick a level to play";
  for (const id of ["#status", "#moves-made", "#distance-now"]) $(id).textContent = "";
  $("#move-list").replaceChildren();
  $("#solved").hidden = true;
}

// -- playing sliding blocks: every legal move a button, with the distance it leads to --------

async function startSlidingPlay(board, level = null) {
  const folder = state.folder.id;
  const report = await (await postJson(`/api/folders/${folder}/sliding/position`, {board})).json();
  state.play = {folder, kind: "sliding", level: level || report, history: [report], selected: null, hint: false};
  $("#play-title").textContent = `#${report.rank}: ` +
    (report.distance === null ? "not solvable" : `distance ${report.distance}`) +
    `, connected set of ${count(report.cluster)}`;
  showTab("play");
  drawPlay();
  announce("play", {event: "start"});
}

const MOVE_KINDS = [["closer", "one step closer"], ["keeps", "keeps it solvable"], ["loses", "loses it"]];
const moveKind = (move) => (move.closer ? "closer" : move.solvable ? "keeps" : "loses");

function drawSlidingPlay() {
  const play = state.play;
  const report = current();
  $("#board").innerHTML = report.picture;
  if (play.kind === "universe") markVehicle();
  const distance = $("#distance-now");
  distance.textContent = report.distance === null ? "not solvable" : String(report.distance);
  distance.dataset.distance = report.distance === null ? "" : report.distance;
  const moves = play.history.length - 1;
  const first = play.history[0].distance;
  $("#moves-made").textContent = `${moves} move${moves === 1 ? "" : "s"} played` +
    (first === null ? "" : `; the level started ${first} from the goal`);
  $("#status").textContent = slidingStatus(report);
  $("#status").className = report.goal || report.solvable ? "good" : "bad";
  $("#solved").hidden = !report.goal;
  $("#solved-moves").textContent = `in ${moves} move${moves === 1 ? "" : "s"}`;
  const order = (move) => MOVE_KINDS.findIndex(([kind]) => kind === moveKind(move));
  const listed = report.goal ? [] : report.moves.map((move, i) => [move, i])
    .sort(([a, i], [b, j]) => order(a) - order(b) || i - j);
  $("#move-list").replaceChildren(...listed.map(([move]) => el("li", {}, moveButton(move))));
  if (typeof decoratePlay === "function") decoratePlay();  // steps.js: the hint's arrow
}

function moveButton(move) {
  const kind = moveKind(move);
  const after = move.distance === null ? "lost" : `→ ${move.distance}`;
  // A tilt moves every piece: its button names the direction, no piece is pointed at.
  const where = move.direction ? {"data-tilt": move.direction}
    : {"data-from": cellText(move.from), "data-to": cellText(move.to)};
  const button = el("button", {type: "button", class: kind, ...where, "data-distance": move.distance ?? "",
                               title: `${move.text}: ${MOVE_KINDS.find(([k]) => k === kind)[1]}`},
    move.text, el("small", {}, after));
  if (!move.direction) {
    const piece = () => $(`#board .piece[data-cell="${state.cellIndex[cellText(move.from)]}"]`);
    button.addEventListener("mouseenter", () => { const node = piece(); if (node) node.classList.add("pointed"); });
    button.addEventListener("mouseleave", () => { const node = piece(); if (node) node.classList.remove("pointed"); });
  }
  button.addEventListener("click", () => guarded(() => playSlidingMove(move)));
  return button;
}

function slidingStatus(report) {
  if (report.goal) return "Solved: the goal is reached.";
  const closer = report.moves.filter((m) => m.closer).length;
  if (state.play.kind === "universe") {
    // No move changes a universe puzzle's connected set: it is solvable from every position or from none.
    if (!report.solvable) return "This puzzle cannot be solved: its connected set holds no goal.";
    return `Solvable in ${report.distance} (its set's farthest: ${report.farthest}): ` +
      `${closer} of ${plural(report.moves.length, "move")} bring it closer.`;
  }
  if (!report.solvable) return "Not solvable any more: no move brings it back. Undo or reset.";
  return `Solvable in ${report.distance} (${report.unique ? "one shortest solution" : "several shortest solutions"}` +
    `): ${closer} of ${plural(report.moves.length, "move")} bring it closer.`;
}

const MOVE_ROUTES = {sliding: "sliding/move", universe: "universe/move"};

async function movedReport(folder, kind, board, move) {
  // The report of the position a move of a "sliding" or "universe" play leads to.
  const played = move.direction ? {tilt: move.direction} : {move: {from: move.from, to: move.to}};
  return (await postJson(`/api/folders/${folder}/${MOVE_ROUTES[kind]}`, {board, ...played})).json();
}

async function playSlidingMove(move) {
  const play = state.play;
  const report = await movedReport(play.folder, play.kind, current().board.join("/"), move);
  play.history.push(report);
  // A vehicle picked stays picked as it moves.
  play.selected = move.from && play.selected === cellText(move.from) ? cellText(move.to) : null;
  drawPlay();
  announce("play", {event: "move"});
}

const ARROWS = {ArrowUp: ["up", -1, 0], ArrowRight: ["right", 0, 1], ArrowDown: ["down", 1, 0],
                ArrowLeft: ["left", 0, -1]};

function arrowMoves(key) {
  // The legal moves that go the arrow's way: a tilt that way, or whatever moves ends in that
  // direction from where it was.
  const [way, dr, dc] = ARROWS[key];
  return current().moves.filter((move) => (move.direction ? move.direction === way
    : Math.sign(move.to[0] - move.from[0]) === dr && Math.sign(move.to[1] - move.from[1]) === dc));
}

function onKey(event) {
  // Arrow keys on the Play tab of goal tables play the one move that goes their way; on universe
  // tables, with a vehicle picked, they slide it one cell (with Shift, as far as it goes).
  const play = state.play;
  if (!(event.key in ARROWS) || !play || play.kind === "layers" || $("#play").hidden) return;
  if (event.target.closest && event.target.closest("input, select, textarea")) return;
  if (typeof watch !== "undefined" && watch.on) return;  // steps.js: the arrows step through the solution
  event.preventDefault();
  if (play.busy || current().goal) return;
  guarded(async () => {
    let moves = arrowMoves(event.key);
    if (play.kind === "universe" && play.selected) {
      const step = (move) => Math.abs(move.to[0] - move.from[0]) + Math.abs(move.to[1] - move.from[1]);
      moves = moves.filter((move) => cellText(move.from) === play.selected).sort((a, b) => step(a) - step(b));
      moves = moves.length ? [event.shiftKey ? moves[moves.length - 1] : moves[0]] : [];
    }
    if (moves.length !== 1) {
      const pick = play.kind === "universe" ? "click a vehicle (or press v) first, or pick one from the list"
        : "pick one from the list";
      say(moves.length ? `${moves.length} moves go that way: ${pick}.` : "No move goes that way here.", !moves.length);
      return;
    }
    play.busy = true;
    try {
      await playSlidingMove(moves[0]);
    } finally {
      play.busy = false;
    }
  });
}

async function loadBoard(event) {
  event.preventDefault();
  // Sent as typed: a drawing's leading spaces may be part of it (outside a Sokoban room's walls).
  const board = $("#load-board [name=board]").value;
  if (!board.trim()) throw new Error("Draw a position first: its rows joined by '/'.");
  if (state.folder.universe) await startUniversePlay(board);
  else await startSlidingPlay(board);
}

// -- playing universe puzzles: a vehicle picked by a click, then where it slides ------------------

async function startUniversePlay(board, puzzle = null) {
  const folder = state.folder.id;
  const report = await (await postJson(`/api/folders/${folder}/universe/position`, {board})).json();
  state.play = {folder, kind: "universe", level: puzzle || report, history: [report], selected: null, hint: false};
  const flags = puzzle ? [puzzle.minimal ? "minimal" : "", puzzle.unique ? "unique" : ""].filter(Boolean) : [];
  $("#play-title").textContent = (puzzle ? `set #${puzzle.rank}: ` : "A drawn position: ") +
    (report.distance === null ? "cannot be solved" : `distance ${report.distance}`) +
    `, connected set of ${count(report.cluster)}` + (flags.length ? `, ${flags.join(", ")}` : "");
  showTab("play");
  drawPlay();
  announce("play", {event: "start"});
}

const vehicleAt = (report, [r, c]) => report.vehicles.find((v) => v.cells.some(([vr, vc]) => vr === r && vc === c));
const movesOf = (anchor) => current().moves.filter((move) => cellText(move.from) === anchor);

function cellsAfter(move) {
  // The cells a vehicle covers after a move (its first cell goes from move.from to move.to).
  const vehicle = vehicleAt(current(), move.from);
  const [dr, dc] = [move.to[0] - move.from[0], move.to[1] - move.from[1]];
  return vehicle.cells.map(([r, c]) => [r + dr, c + dc]);
}

function tileOf(board, cell) {
  // The element drawn last over a cell's square (a vehicle's square, or the board's tile).
  const tiles = board.querySelectorAll(`.board [data-cell="${cell}"]`);
  return tiles[tiles.length - 1] || null;
}

function markVehicle() {
  // The vehicle picked, and the cells its moves reach.
  const play = state.play;
  if (!play.selected) return;
  const board = $("#board");
  const vehicle = vehicleAt(current(), play.selected.split(",").map(Number));
  if (!vehicle) { play.selected = null; return; }
  const covered = new Set(vehicle.cells.map(cellText));
  for (const cell of vehicle.cells) {
    const tile = tileOf(board, state.cellIndex[cellText(cell)]);
    if (tile) tile.classList.add("selected");
  }
  for (const move of movesOf(play.selected)) {
    for (const cell of cellsAfter(move).filter((c) => !covered.has(cellText(c)))) {
      const tile = tileOf(board, state.cellIndex[cellText(cell)]);
      if (tile) tile.classList.add("target");
    }
  }
}

async function clickUniverse(cell) {
  // A click on a vehicle picks it (again: drops it); a click on a cell it can slide to plays the
  // shortest such slide.
  const play = state.play;
  const where = state.folder.universe.cells[cell];
  const vehicle = vehicleAt(current(), where);
  if (vehicle) {
    const anchor = cellText(vehicle.cells[0]);
    if (play.selected !== anchor && !movesOf(anchor).length) {
      say("That vehicle cannot move here.", true);
      play.selected = null;
    } else {
      play.selected = play.selected === anchor ? null : anchor;
    }
    drawPlay();
    return;
  }
  if (play.selected === null) return;
  const step = (move) => Math.abs(move.to[0] - move.from[0]) + Math.abs(move.to[1] - move.from[1]);
  const reaching = movesOf(play.selected)
    .filter((move) => cellsAfter(move).some((c) => cellText(c) === cellText(where)))
    .sort((a, b) => step(a) - step(b));
  if (!reaching.length) {
    say("That move is not legal here.", true);
    play.selected = null;
    drawPlay();
    return;
  }
  await playSlidingMove(reaching[0]);
}

function pickVehicle(step = 1) {
  // Pick the next (or previous) vehicle that can move, in the order the report lists them.
  const play = state.play;
  if (!play || play.kind !== "universe" || current().goal) return;
  const movable = current().vehicles.map((v) => cellText(v.cells[0])).filter((anchor) => movesOf(anchor).length);
  if (!movable.length) return;
  const at = movable.indexOf(play.selected);
  play.selected = movable[at < 0 ? (step > 0 ? 0 : movable.length - 1) : (at + step + movable.length) % movable.length];
  drawPlay();
}

// -- the next and previous level of the list found ------------------------------------------------

async function playListed(step) {
  // Play the level after (or before) the one in play among those the Levels tab found.
  const levels = state.levels;
  if (!state.folder || !levels.length) {
    say("Find levels first: n and p play the next and the previous of the list.", true);
    return;
  }
  const play = state.play && state.play.folder === state.folder.id ? state.play : null;
  const at = play ? levels.indexOf(play.level) : -1;
  const next = at < 0 ? (step > 0 ? 0 : levels.length - 1) : at + step;
  if (next < 0 || next >= levels.length) {
    say(step > 0 ? "That was the last level of the list." : "That was the first level of the list.");
    return;
  }
  const level = levels[next];
  if (state.folder.workspace === "universe") await startUniversePlay(level.board.join("/"), level);
  else if (state.folder.workspace === "blocks") await startSlidingPlay(level.board.join("/"), level);
  else await startPlay(level);
  say(`Level ${next + 1} of ${levels.length}.`);
}

// -- the pack -----------------------------------------------------------------------------

function addToPack(folder, level) {
  const pack = state.pack;
  if (pack.items.length && pack.folder !== folder) {
    say("A pack holds the levels of one puzzle: empty it to start one for this folder.", true);
    return;
  }
  if (state.folder.workspace === "universe" && level.rank === undefined) {
    // A drawn position is no stored set: a universe pack holds the puzzles the tables list.
    say("A universe pack holds listed puzzles (a set's farthest position): find this one in the Levels tab.", true);
    return;
  }
  pack.folder = folder;
  pack.kind = state.folder.workspace;
  pack.items.push(level);
  pack.curve = null;
  say(`Added ${levelName(level)}: the pack holds ${plural(pack.items.length, "level")}.`);
  packChanged();
}

function moveItem(i, step) {
  const items = state.pack.items;
  const j = i + step;
  if (j < 0 || j >= items.length) return;
  [items[i], items[j]] = [items[j], items[i]];
  state.pack.curve = null;
  packChanged();
}

function removeItem(i) {
  state.pack.items.splice(i, 1);
  state.pack.curve = null;
  packChanged();
}

// The pack's levels changed by hand or by an arrangement: draw it, and have it kept.
function packChanged() {
  drawPack();
  announce("pack-changed");
}

function drawPack() {
  const {folder, kind, items, curve} = state.pack;
  const sliding = byDistance(kind);
  $("#pack-count").textContent = items.length;
  $("#pack-list").replaceChildren(...items.map((level, i) => {
    const buttons = [["up", "↑", () => moveItem(i, -1)], ["down", "↓", () => moveItem(i, 1)],
                     ["remove", "✕", () => removeItem(i)]].map(([name, text, action]) => {
      const button = el("button", {type: "button", class: name, title: name}, text);
      button.addEventListener("click", action);
      return button;
    });
    if (sliding) {
      const name = kind === "universe" ? `set #${level.rank}` : `#${level.rank}`;
      return el("li", {"data-rank": level.rank, draggable: "true"}, svgBox(level.picture),
        el("span", {}, `${name}, distance ${level.distance === null ? "-" : level.distance}`),
        el("span", {class: "buttons"}, ...buttons));
    }
    return el("li", {"data-rank": level.rank, draggable: "true"},
      el("img", {src: pictureUrl(folder, level.position), alt: `${level.layer} #${level.rank}`}),
      el("span", {}, `${level.layer} #${level.rank}, difficulty ${figure(level.difficulty)}`),
      el("span", {class: "buttons"}, ...buttons));
  }));
  $("#curve-title").textContent = sliding ? "Distance curve" : "Difficulty curve";
  const values = items.map((level) => (sliding ? level.distance : level.difficulty));
  $("#curve").replaceChildren(curveChart(values, curve ? curve.targets : []));
}

function curveChart(values, targets) {
  // The difficulty of each level of the pack, in order, and the targets of an arranged pack (dashed).
  const width = 360, height = 180, left = 34, bottom = 24, top = 12, right = 12;
  const svg = svgEl("svg", {viewBox: `0 0 ${width} ${height}`, class: "curve", role: "img"});
  const known = values.filter((v) => v !== null);
  const most = Math.max(1, ...known, ...targets);
  const x = (i) => left + (values.length > 1 ? i / (values.length - 1) : 0.5) * (width - left - right);
  const y = (v) => height - bottom - (v / most) * (height - top - bottom);
  svg.append(svgEl("line", {x1: left, x2: width - right, y1: height - bottom, y2: height - bottom, class: "axis"}));
  svg.append(svgEl("line", {x1: left, x2: left, y1: top, y2: height - bottom, class: "axis"}));
  for (const tick of [0, most / 2, most]) {
    const text = svgEl("text", {x: left - 4, y: y(tick) + 4, "text-anchor": "end"});
    text.textContent = tick.toFixed(1);
    svg.append(text);
  }
  const points = values.map((v, i) => (v === null ? null : `${x(i)},${y(v)}`)).filter(Boolean);
  if (points.length > 1) svg.append(svgEl("polyline", {points: points.join(" "), class: "line"}));
  if (targets.length) {
    svg.append(svgEl("polyline", {points: targets.map((t, i) => `${x(i)},${y(t)}`).join(" "), class: "target",
                                  "data-targets": targets.join(",")}));
    const legend = svgEl("text", {x: left + 6, y: top + 4});
    legend.textContent = "dashed: the curve's targets";
    svg.append(legend);
  }
  values.forEach((v, i) => {
    if (v === null) return;
    svg.append(svgEl("circle", {cx: x(i), cy: y(v), r: 4, class: "point", "data-difficulty": v}));
    const label = svgEl("text", {x: x(i), y: height - 8, "text-anchor": "middle"});
    label.textContent = i + 1;
    svg.append(label);
  });
  return svg;
}

async function download(format) {
  const {folder, items, curve} = state.pack;
  if (!items.length) throw new Error("The pack is empty: add levels first.");
  let response;
  if (state.pack.kind === "blocks") {
    response = await postJson(`/api/folders/${folder}/sliding/pack?format=${format}`,
                              {ranks: items.map((level) => level.rank)});
  } else if (state.pack.kind === "universe") {
    const body = {ranks: items.map((level) => level.rank)};
    if (curve) body.curve = curve;
    response = await postJson(`/api/folders/${folder}/universe/pack?format=${format}`, body);
  } else {
    const body = {positions: items.map((level) => level.position)};
    if (curve) body.curve = curve;
    response = await postJson(`/api/folders/${folder}/pack?format=${format}`, body);
  }
  const name = (response.headers.get("Content-Disposition") || "").match(/filename="([^"]+)"/);
  const link = el("a", {href: URL.createObjectURL(await response.blob()),
                        download: name ? name[1] : `pack.${format}`});
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(link.href), 10000);
}

const FILTERS = ["solvable", "unique", "all_moves", "pieces", "counts", "must_include", "must_exclude"];
// The Levels tab's fields an arrangement takes (a pack is always canonical; it draws its own sample).
const UNIVERSE_FILTERS = ["solvable", "minimal", "unique", "distance", "cluster", "pieces", "walls", "counts",
                          "hardest"];
// Those of universe tables (not the list's sort, sample, seed or limit).
const FLAGS = ["solvable", "unique", "all_moves", "minimal", "hardest"];
const NUMBERS = ["size", "pool", "seed"];

// The JSON body of an arrangement: the pack's fields and the Levels tab's filters, as the
// API types them (numbers, true/false, text in the syntax of `curator select`). Only universe
// packs take a variety rule.
function arrangement(universe) {
  const body = {};
  for (const [name, value] of filterQuery($("#arrange"))) {
    if (name !== "variety" || universe) body[name] = NUMBERS.includes(name) ? Number(value) : value;
  }
  const [form, names] = universe ? ["#universe-filters", UNIVERSE_FILTERS] : ["#filters", FILTERS];
  for (const [name, value] of filterQuery($(form))) {
    if (names.includes(name)) body[name] = FLAGS.includes(name) ? value === "true" : value;
  }
  return body;
}

async function arrangePack(event) {
  event.preventDefault();
  const universe = state.folder.workspace === "universe";
  const body = arrangement(universe);
  const folder = state.folder.id;
  say(universe ? "Drawing the pool of matching puzzles…" : "Rating the pool of candidate levels…");
  $("#arrange-go").disabled = true;
  let found;
  try {
    found = await (await postJson(`/api/folders/${folder}/${universe ? "universe/arrange" : "arrange"}`, body)).json();
  } finally {
    $("#arrange-go").disabled = false;
  }
  const items = universe ? found.puzzles : found.levels;
  state.pack = {folder, kind: universe ? "universe" : "pieces", items,
                curve: {name: found.curve, pool: found.pool, targets: items.map((level) => level.target)}};
  say(`Arranged ${plural(items.length, universe ? "puzzle" : "level")} along ${found.curve} from a pool of ` +
      `${found.pool.toLocaleString("en")}.`);
  packChanged();
}

// -- wiring -------------------------------------------------------------------------------

function wire() {
  for (const tab of document.querySelectorAll(".tab")) tab.addEventListener("click", () => showTab(tab.dataset.tab));
  $("#folder").addEventListener("change", (e) => guarded(() => openFolder(Number(e.target.value))));
  $("#filters").addEventListener("submit", (e) => guarded(() => findLevels(e)));
  $("#sliding-filters").addEventListener("submit", (e) => guarded(() => findSlidingLevels(e)));
  $("#universe-filters").addEventListener("submit", (e) => guarded(() => findUniversePuzzles(e)));
  $("#load-board").addEventListener("submit", (e) => guarded(() => loadBoard(e)));
  $("#board").addEventListener("click", (e) => guarded(() => clickBoard(e)));
  $("#hint").addEventListener("click", toggleHint);
  $("#undo").addEventListener("click", undo);
  $("#reset").addEventListener("click", reset);
  $("#again").addEventListener("click", reset);
  $("#play-add").addEventListener("click", () => state.play && addToPack(state.play.folder, state.play.level));
  $("#download-json").addEventListener("click", () => guarded(() => download("json")));
  $("#download-html").addEventListener("click", () => guarded(() => download("html")));
  $("#download-csv").addEventListener("click", () => guarded(() => download("csv")));
  $("#download-toml").addEventListener("click", () => guarded(() => download("toml")));
  $("#pack-clear").addEventListener("click", () => { state.pack.items = []; state.pack.curve = null; packChanged(); });
  $("#arrange").addEventListener("submit", (e) => guarded(() => arrangePack(e)));
  document.addEventListener("keydown", onKey);
  showTab("layers");
  drawPack();
  guarded(loadFolders);
}

document.addEventListener("DOMContentLoaded", wire);
