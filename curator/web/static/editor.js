// The editor tab: draw a level on an empty board, on the level in play or from a typed
// drawing; after every edit the position is analyzed (POST /api/folders/{id}/level for
// layered results, sliding/position for sliding blocks, distance/position for the states of
// a distance table) and its nearest good variants listed (POST /api/folders/{id}/variants),
// each taken with one click. A distance table's state starts solved and is edited by
// clicking two pieces of a set (swapped) or, with the twist tool, turning pieces; its
// picture comes from the server. Uses app.js's helpers.
"use strict";

const editor = {
  folder: null,      // the id of the folder the editor is set up for
  kind: null,        // "layers", "sliding" or "distance"
  cells: [],         // [row, col] of each cell index
  position: [],      // layers: one entry per cell, 0 empty, t = piece type t
  pieces: [],        // sliding: [{letter, anchor}] with the anchor's cell index
  text: "",          // distance: the state as a line, 'SET p0 p1 ... / o0 o1 ...; SET ...'
  picture: "",       // distance: the SVG markup of the last state the server drew
  tool: null,        // layers: a piece type; sliding: a letter; or "erase"
  selected: null,    // sliding: the piece picked to move; layers: the cell
  grabbed: 0,        // sliding: the cell of the picked piece that was clicked
  history: [],       // earlier states, for undo
  start: null,       // the state it was started from, for reset
  board: null,       // layers: the empty board's SVG markup (its tiles carry data-cell)
  level: null,       // the last analysis that was legal: a level to play
  asked: 0,          // the number of the latest analysis, so that late answers are dropped
  dragged: -Infinity,  // when the last drag ended (performance.now())
  pressed: null,      // the cell a press started on
};

const PIECE_COLOURS = ["#1f5fa8", "#b3261e", "#2f7d32", "#c77700", "#7b3fa0", "#0e7c86", "#5b6475"];
const WANT_NAMES = {unique: "uniquely solvable", solvable: "solvable", harder: "harder"};

// -- the panel ------------------------------------------------------------------------------

function buildEditor() {
  const tab = el("button", {type: "button", class: "tab", "data-tab": "editor"}, "Editor");
  tab.addEventListener("click", () => { showTab("editor"); guarded(setUpEditor); });
  const pack = document.querySelector(".tab[data-tab=pack]");
  pack.before(tab);
  const want = el("select", {id: "want", name: "want"},
    ...Object.entries(WANT_NAMES).map(([value, text]) => el("option", {value}, text)));
  want.addEventListener("change", () => guarded(async () => {
    const panel = $("#editor");
    const asked = editor.asked;
    panel.dataset.busy = "1";
    try { await findVariants(); } finally { if (asked === editor.asked) delete panel.dataset.busy; }
  }));
  const drawing = el("form", {id: "edit-drawing"},
    el("label", {}, "drawing ", el("input", {name: "board", size: "24", placeholder: "rows joined by /"})),
    el("button", {type: "submit"}, "Load"));
  drawing.addEventListener("submit", (event) => { event.preventDefault(); guarded(loadDrawing); });
  const button = (id, text, action) => {
    const node = el("button", {type: "button", id}, text);
    node.addEventListener("click", () => guarded(action));
    return node;
  };
  const panel = el("section", {id: "editor", class: "panel", hidden: ""},
    el("div", {class: "columns"},
      el("div", {id: "editor-wrap"},
        el("div", {id: "palette", role: "toolbar"}),
        el("div", {id: "editor-board"}),
        el("p", {class: "help", id: "editor-help"})),
      el("div", {id: "editor-controls"},
        el("h2", {}, "Editor"),
        el("div", {class: "buttons"},
          button("edit-empty", "Empty board", () => startEditing(null)),
          button("edit-from-play", "From the level in play", editPlayed),
          button("edit-undo", "Undo edit", undoEdit),
          button("edit-reset", "Reset", resetEdit),
          button("edit-play", "Play this level", playEdited)),
        drawing,
        el("p", {id: "legal"}),
        el("dl", {id: "analysis"}),
        el("h2", {}, "Nearest good variants ", want),
        el("p", {id: "variants-found", class: "help"}),
        el("ol", {id: "variant-list"}))));
  $("main").append(panel);
  const board = $("#editor-board");
  board.addEventListener("click", (event) => guarded(() => clickEditor(event)));
  board.addEventListener("pointerdown", pressEditor);
  board.addEventListener("pointerup", (event) => guarded(() => releaseEditor(event)));
}

// Called by app.js once a folder is open: the editor starts afresh on the next visit.
function editorFolderChanged() {
  editor.folder = null;
  const tab = document.querySelector(".tab.active");
  if (tab && tab.dataset.tab === "editor") guarded(setUpEditor);
}

// Whether the Editor draws this folder's positions (the kinds setUpEditor sets up).
function canEdit(folder) {
  return Boolean(folder) && (folder.kind === "layers" || folder.kind === "sliding" || Boolean(folder.states));
}

async function setUpEditor() {
  const folder = state.folder;
  if (!folder || editor.folder === folder.id) return;
  editor.folder = folder.id;
  editor.kind = folder.kind;
  editor.history = [];
  editor.selected = null;
  if (folder.kind === "layers") {
    editor.cells = folder.board.cells;
    editor.position = editor.cells.map(() => 0);
    editor.board = await (await api(pictureUrl(folder.id, editor.position))).text();
    editor.tool = 1;
  } else if (folder.kind === "sliding") {
    editor.cells = folder.blocks.cells;
    editor.pieces = [];
    editor.tool = folder.blocks.pieces[0].letter;
  } else if (folder.states) {
    editor.text = folder.states.solved;
    editor.picture = "";
    editor.tool = "swap";
  } else {
    $("#editor-board").replaceChildren(el("p", {}, "These tables have no board to draw on."));
    $("#palette").replaceChildren();
    return;
  }
  const distance = folder.kind === "distance";
  const wants = folder.states ? folder.states.wants : Object.keys(WANT_NAMES);
  for (const option of $("#want").options) option.disabled = !wants.includes(option.value);
  if (!wants.includes($("#want").value)) $("#want").value = wants[0];
  $("#edit-empty").textContent = distance ? "Solved state" : "Empty board";
  $("#edit-from-play").hidden = distance;  // a distance table has no levels to play
  $("#edit-play").hidden = distance;
  $("#edit-drawing [name=board]").placeholder = distance ? "SET p0 p1 ... / o0 o1 ...; SET ..." : "rows joined by /";
  editor.start = snapshot();
  drawPalette();
  await edited();
}

// -- the state of the drawing --------------------------------------------------------------

const snapshot = () => (editor.kind === "layers" ? [...editor.position]
  : editor.kind === "distance" ? editor.text : editor.pieces.map((piece) => ({...piece})));

function restore(saved) {
  if (editor.kind === "layers") editor.position = [...saved];
  else if (editor.kind === "distance") editor.text = saved;
  else editor.pieces = saved.map((piece) => ({...piece}));
  editor.selected = null;
}

function remember() { editor.history.push(snapshot()); }

async function startEditing(saved) {
  await setUpEditor();
  remember();
  if (saved === null) {
    restore(editor.kind === "layers" ? editor.cells.map(() => 0)
      : editor.kind === "distance" ? state.folder.states.solved : []);
  }
  else restore(saved);
  editor.start = snapshot();
  await edited();
}

async function undoEdit() {
  if (!editor.history.length) return;
  restore(editor.history.pop());
  await edited();
}

async function resetEdit() {
  if (editor.start === null) return;
  remember();
  restore(editor.start);
  await edited();
}

const cellAt = (row, col) => editor.cells.findIndex(([r, c]) => r === row && c === col);
const shapeOf = (letter) => state.folder.blocks.pieces.find((piece) => piece.letter === letter);

function pieceCells(letter, anchor) {
  // The cells a sliding piece covers with its anchor on `anchor`; null if it leaves the board.
  const [r, c] = editor.cells[anchor];
  const out = shapeOf(letter).cells.map(([dr, dc]) => cellAt(r + dr, c + dc));
  return out.includes(-1) ? null : out;
}

function covering(skip = null) {
  // Which piece covers each cell (cell index -> piece index), leaving out piece `skip`.
  const cover = new Map();
  editor.pieces.forEach((piece, i) => {
    if (i === skip) return;
    for (const cell of pieceCells(piece.letter, piece.anchor) || []) cover.set(cell, i);
  });
  return cover;
}

function fits(letter, anchor, skip = null) {
  const cells = anchor < 0 ? null : pieceCells(letter, anchor);
  const cover = covering(skip);
  const exits = new Set((state.folder.blocks.exits || []).map(([r, c]) => cellAt(r, c)));
  return cells !== null && cells.every((cell) => !cover.has(cell) && !exits.has(cell));
}

function drawing() {
  // The sliding-block position as a drawing: rows joined by '/', '#' outside the board.
  const blocks = state.folder.blocks;
  const rows = Array.from({length: blocks.rows}, () => Array(blocks.cols).fill("#"));
  editor.cells.forEach(([r, c]) => { rows[r][c] = "."; });
  for (const piece of editor.pieces) {
    for (const cell of pieceCells(piece.letter, piece.anchor)) {
      const [r, c] = editor.cells[cell];
      rows[r][c] = piece.letter;
    }
  }
  return rows.map((row) => row.join("")).join("/");
}

function piecesOf(rows) {
  // The pieces of a drawing (one string per row): a cell of a letter not yet covered is the
  // anchor of a piece of that letter (its first cell in row-major order).
  const letters = new Set(state.folder.blocks.pieces.map((piece) => piece.letter));
  const taken = new Set();
  const out = [];
  editor.cells.forEach(([r, c], cell) => {
    const letter = (rows[r] || "")[c];
    if (!letters.has(letter) || taken.has(cell)) return;
    const cells = pieceCells(letter, cell);
    if (cells === null) throw new Error(`The drawing's ${letter} at ${r},${c} does not fit on the board.`);
    cells.forEach((covered) => taken.add(covered));
    out.push({letter, anchor: cell});
  });
  return out;
}

// -- editing by mouse ----------------------------------------------------------------------

function drawPalette() {
  if (editor.kind === "distance") { drawStateTools(); return; }
  const tools = editor.kind === "layers"
    ? state.folder.board.piece_types.map((letter, i) => [i + 1, letter, PIECE_COLOURS[i % PIECE_COLOURS.length]])
    : state.folder.blocks.pieces.map((piece) => [piece.letter,
        `${piece.letter} ×${piece.fewest === null || piece.fewest === undefined ? "" : `${piece.fewest}..`}${piece.count}`,
                                                  blockColour(piece.letter)]);
  tools.push(["erase", "erase", "#fff"]);
  $("#palette").replaceChildren(...tools.map(([tool, text, colour]) => {
    const button = el("button", {type: "button", class: "tool", "data-tool": String(tool),
                                 "aria-pressed": String(tool === editor.tool)},
      el("span", {class: "swatch", style: `background:${colour}`}), text);
    button.addEventListener("click", () => {
      editor.tool = tool;
      editor.selected = null;
      drawPalette();
      drawEditorBoard();
    });
    return button;
  }));
  $("#editor-help").textContent = editor.kind === "layers"
    ? "Click an empty cell to place the chosen piece, a piece to remove it; drag a piece to move it."
    : "Click an empty cell to place the chosen piece; click a piece, then where it goes (or drag it); " +
      "erase removes one.";
}

function blockColour(letter) {
  const blocks = state.folder.blocks;
  if (letter === blocks.goal_piece) return "#b3261e";
  const others = blocks.pieces.map((piece) => piece.letter).filter((l) => l !== blocks.goal_piece);
  return PIECE_COLOURS[others.indexOf(letter) % PIECE_COLOURS.length];
}

const cellOf = (event) => {
  const node = event.target.closest("[data-cell]");
  return node ? Number(node.dataset.cell) : null;
};

async function clickEditor(event) {
  if (performance.now() - editor.dragged < 400) return;  // the click that ends a drag
  const cell = cellOf(event);
  if (cell === null || editor.folder === null) return;
  if (editor.kind === "distance") await clickState(cell);
  else if (editor.kind === "layers") await clickLayered(cell);
  else await clickSliding(cell);
}

async function clickLayered(cell) {
  const here = editor.position[cell];
  remember();
  if (editor.tool === "erase" || here === editor.tool) editor.position[cell] = 0;
  else editor.position[cell] = editor.tool;
  await edited();
}

async function clickSliding(cell) {
  const cover = covering();
  const piece = cover.has(cell) ? cover.get(cell) : null;
  if (editor.tool === "erase") {
    if (piece === null) return;
    remember();
    editor.pieces.splice(piece, 1);
    await edited();
  } else if (editor.selected !== null) {
    if (piece === editor.selected) { editor.selected = null; drawEditorBoard(); return; }
    await moveSliding(editor.selected, cell);
  } else if (piece !== null) {
    editor.selected = piece;
    editor.grabbed = cell;
    drawEditorBoard();
  } else {
    const shape = shapeOf(editor.tool);
    const placed = editor.pieces.filter((p) => p.letter === editor.tool).length;
    if (placed >= shape.count) throw new Error(`All ${shape.count} pieces ${editor.tool} are on the board.`);
    if (!fits(editor.tool, cell)) throw new Error(`A piece ${editor.tool} does not fit there.`);
    remember();
    editor.pieces.push({letter: editor.tool, anchor: cell});
    await edited();
  }
}

async function moveSliding(piece, cell) {
  // Move `piece` so that the cell it was picked by lands on `cell`.
  const moving = editor.pieces[piece];
  const [ar, ac] = editor.cells[moving.anchor];
  const [gr, gc] = editor.cells[editor.grabbed];
  const [r, c] = editor.cells[cell];
  const anchor = cellAt(r - gr + ar, c - gc + ac);
  editor.selected = null;
  if (!fits(moving.letter, anchor, piece)) {
    drawEditorBoard();
    throw new Error(`The piece ${moving.letter} does not fit there.`);
  }
  remember();
  moving.anchor = anchor;
  await edited();
}

function pressEditor(event) {
  const cell = cellOf(event);
  editor.pressed = cell;
}

async function releaseEditor(event) {
  const from = editor.pressed;
  editor.pressed = null;
  const to = cellOf(event);
  if (from === null || from === undefined || to === null || to === from) return;
  if (editor.kind === "distance") return;  // pieces are swapped by two clicks
  editor.dragged = performance.now();
  if (editor.kind === "layers") {
    if (!editor.position[from] || editor.position[to]) return;
    remember();
    editor.position[to] = editor.position[from];
    editor.position[from] = 0;
    await edited();
  } else {
    const cover = covering();
    if (!cover.has(from)) return;
    editor.grabbed = from;
    await moveSliding(cover.get(from), to);
  }
}

// -- drawing the board ---------------------------------------------------------------------

function centreOf(node) {
  // The centre of a tile (a path or polygon), from its own coordinates: no layout needed.
  const text = node.getAttribute("d") || node.getAttribute("points") || "";
  const numbers = (text.match(/-?\d+(\.\d+)?/g) || []).map(Number);
  let x = 0, y = 0;
  const n = Math.floor(numbers.length / 2);
  for (let i = 0; i < n; i++) { x += numbers[2 * i]; y += numbers[2 * i + 1]; }
  return n ? [x / n, y / n] : [0, 0];
}

function drawEditorBoard() {
  const box = $("#editor-board");
  if (editor.kind === "distance") { drawState(); return; }
  if (editor.kind === "layers") {
    box.innerHTML = editor.board;
    const svg = box.querySelector("svg");
    const types = state.folder.board.piece_types;
    const xs = ((svg.querySelector(".board [data-cell]").getAttribute("d") || "").match(/-?\d+(\.\d+)?/g) || [])
      .map(Number).filter((_, i) => i % 2 === 0);
    const radius = 0.38 * (Math.max(...xs) - Math.min(...xs));
    editor.position.forEach((t, cell) => {
      if (!t) return;
      const [cx, cy] = centreOf(svg.querySelector(`.board [data-cell="${cell}"]`));
      const colour = PIECE_COLOURS[(t - 1) % PIECE_COLOURS.length];
      svg.append(svgEl("circle", {cx, cy, r: radius, fill: colour, stroke: "#111", "stroke-width": 1.5,
                                  class: "piece drawn", "data-cell": cell, "data-type": types[t - 1]}));
      if (types.length > 1) {
        const label = svgEl("text", {x: cx, y: cy, "text-anchor": "middle", "dominant-baseline": "central",
                                     class: "label", fill: "#fff", "font-size": radius});
        label.textContent = types[t - 1];
        svg.append(label);
      }
    });
    return;
  }
  const blocks = state.folder.blocks;
  const unit = 40;
  const svg = svgEl("svg", {viewBox: `0 0 ${blocks.cols * unit} ${blocks.rows * unit}`, class: "blocks"});
  svg.append(svgEl("rect", {x: 0, y: 0, width: blocks.cols * unit, height: blocks.rows * unit, fill: "#4b5563"}));
  const goal = new Set(blocks.goal_cells.map(([r, c]) => cellAt(r, c)));
  const exits = new Set((blocks.exits || []).map(([r, c]) => cellAt(r, c)));
  const board = svgEl("g", {class: "board"});
  editor.cells.forEach(([r, c], cell) => {
    board.append(svgEl("rect", {x: c * unit, y: r * unit, width: unit, height: unit, "data-cell": cell,
                                fill: goal.has(cell) ? "#fde68a" : "#f3f4f6", stroke: "#d1d5db"}));
    if (exits.has(cell)) {
      board.append(svgEl("circle", {cx: (c + 0.5) * unit, cy: (r + 0.5) * unit, r: unit * 0.35, fill: "#111",
                                    "data-cell": cell, class: "hole"}));
    }
  });
  svg.append(board);
  editor.pieces.forEach((piece, i) => {
    const colour = blockColour(piece.letter);
    for (const cell of pieceCells(piece.letter, piece.anchor)) {
      const [r, c] = editor.cells[cell];
      svg.append(svgEl("rect", {x: c * unit + 2, y: r * unit + 2, width: unit - 4, height: unit - 4, rx: 4,
                                fill: colour, "data-cell": cell, "data-piece": i,
                                class: `piece${i === editor.selected ? " selected" : ""}`}));
    }
    const [r, c] = editor.cells[piece.anchor];
    const label = svgEl("text", {x: (c + 0.5) * unit, y: (r + 0.5) * unit, "text-anchor": "middle",
                                 "dominant-baseline": "central", fill: "#fff", class: "label"});
    label.textContent = piece.letter;
    svg.append(label);
  });
  box.replaceChildren(svg);
}

// -- the analysis and the variants ----------------------------------------------------------

async function edited() {
  // Draw the board, then ask about it: its analysis, then its variants. While the answers are
  // awaited the panel says it is busy (data-busy), and answers to an older edit are dropped.
  // (A distance table's state is drawn by the server: once its analysis is back.)
  if (typeof stopEditorSteps === "function") stopEditorSteps();  // steps.js
  drawEditorBoard();
  const asked = ++editor.asked;
  const panel = $("#editor");
  panel.dataset.busy = "1";
  try {
    await analyzeDrawing(asked);
  } finally {
    if (asked === editor.asked) delete panel.dataset.busy;
  }
}

async function analyzeDrawing(asked) {
  editor.level = null;
  $("#variant-list").replaceChildren();
  $("#variants-found").textContent = "";
  let level;
  try {
    level = editor.kind === "layers"
      ? await (await postJson(`/api/folders/${editor.folder}/level`, {position: editor.position})).json()
      : editor.kind === "distance"
        ? await (await postJson(`/api/folders/${editor.folder}/distance/position`, {board: editor.text})).json()
        : await (await postJson(`/api/folders/${editor.folder}/sliding/position`, {board: drawing()})).json();
  } catch (error) {
    if (asked === editor.asked) showIllegal(error.message);
    return;
  }
  if (asked !== editor.asked) return;
  editor.level = level;
  if (editor.kind === "distance") {
    editor.text = level.board;
    editor.picture = level.picture;
    $("#edit-drawing [name=board]").value = level.board;
    drawEditorBoard();
  }
  showAnalysis(level);
  await findVariants();
}

function showIllegal(why) {
  const legal = $("#legal");
  legal.textContent = `Not a legal position here: ${why}`;
  legal.className = "bad";
  $("#analysis").replaceChildren();
}

function showAnalysis(level) {
  const legal = $("#legal");
  const layered = editor.kind === "layers";
  const solvable = layered ? level.solvable : level.distance !== null;
  legal.className = solvable ? "good" : "bad";
  if (level.goal) legal.textContent = "Legal: already at the goal.";
  else legal.textContent = `Legal: ${solvable ? "solvable" : "not solvable"}` +
    (solvable && level.unique ? ", uniquely" : "") + ".";
  if (editor.kind === "distance") {
    showStateAnalysis(level);
    return;
  }
  const rows = layered ? [
    ["pieces", level.pieces], ["solvable", yesNo(level.solvable)], ["unique", yesNo(level.unique)],
    ["all moves", yesNo(level.all_moves)], ["solutions", count(level.solutions)],
    ["first moves", `${level.safe_moves} safe of ${level.legal_moves}`],
    ["difficulty", figure(level.difficulty)], ["win chance", chance(level.win_chance)],
    ["information", level.information === null ? "-" : `${figure(level.information, 1)} bits`],
    ["decisions", level.decisions ?? "-"], ["forced steps", level.forced ?? "-"],
    ["mistake depth", level.mistake_depth === null ? "-"
      : `${figure(level.mistake_depth)} (max ${level.mistake_depth_max})`],
    ["search", level.search === null ? "-" : figure(level.search, 1)], ["class size", level.class_size],
    ["solution", level.solution.length ? `${level.solution.length} moves` : "-"],
  ] : [
    ["distance", level.distance === null ? "not solvable" : level.distance],
    ["unique", yesNo(level.unique)], ["all moves", yesNo(level.all_moves)],
    ["connected set", count(level.cluster)], ["legal moves", level.moves.length],
    ["solution", level.solution.length ? `${level.solution.length} moves` : "-"],
  ];
  $("#analysis").replaceChildren(...rows.flatMap(([name, value]) =>
    [el("dt", {}, name), el("dd", {"data-figure": name}, String(value))]));
}

const yesNo = (flag) => (flag ? "yes" : "no");

async function findVariants() {
  if (!editor.level) return;
  const asked = editor.asked;
  const want = $("#want").value;
  const body = editor.kind === "layers" ? {position: editor.position, want, limit: 12}
    : {board: editor.kind === "distance" ? editor.text : drawing(), want, limit: 12};
  $("#variants-found").textContent = "Looking one edit away…";
  const found = await (await postJson(`/api/folders/${editor.folder}/variants`, body)).json();
  if (asked !== editor.asked) return;
  $("#variants-found").textContent = `${plural(found.matched, WANT_NAMES[want] + " variant")} of ` +
    `${plural(found.considered, "position")} one edit away` +
    (found.variants.length < found.matched ? `; the ${found.variants.length} hardest:` : "");
  $("#variant-list").replaceChildren(...found.variants.map(variantItem));
}

function variantItem(variant) {
  const layered = editor.kind === "layers";
  const picture = layered
    ? el("img", {src: pictureUrl(editor.folder, variant.position), alt: variant.edit.text})
    : svgBox(variant.picture);
  const figures = editor.kind === "distance" ? `distance ${variant.distance}`
    : layered ? `difficulty ${figure(variant.difficulty)}, ${plural(variant.solutions, "solution")}` +
      `, win chance ${chance(variant.win_chance)}`
    : `distance ${variant.distance}${variant.unique ? ", unique" : ""}`;
  const take = el("button", {type: "button", class: "take"}, "Take");
  take.addEventListener("click", () => guarded(() => takeVariant(variant)));
  return el("li", {class: "variant", "data-edit": variant.edit.text},
    picture, el("span", {}, el("strong", {}, variant.edit.text), el("br"), figures), take);
}

async function takeVariant(variant) {
  const edit = variant.edit;
  remember();
  if (editor.kind === "layers") {
    editor.position = [...variant.position];
  } else if (editor.kind === "distance") {
    editor.text = variant.board;
  } else {
    const at = (cell) => cellAt(cell[0], cell[1]);
    if (edit.action !== "add") {
      const i = editor.pieces.findIndex((p) => p.letter === edit.piece && p.anchor === at(edit.from));
      if (edit.action === "remove") editor.pieces.splice(i, 1);
      else editor.pieces[i].anchor = at(edit.to);
    } else {
      editor.pieces.push({letter: edit.piece, anchor: at(edit.to)});
    }
  }
  say(`Took the variant: ${edit.text}.`);
  await edited();
}

// -- the states of a distance table ---------------------------------------------------------

function stateSets(text) {
  // The state's line as one {name, perm, ori} per set, in the order of the folder's sets.
  const parts = {};
  for (const chunk of text.split(";").map((c) => c.trim()).filter(Boolean)) {
    const space = chunk.indexOf(" ");
    const [perm, ori] = chunk.slice(space + 1).split("/");
    const numbers = (part) => (part || "").trim().split(/\s+/).filter(Boolean).map(Number);
    parts[chunk.slice(0, space)] = {perm: numbers(perm), ori: numbers(ori)};
  }
  return state.folder.states.sets.map((s) => {
    const part = parts[s.name] || {perm: [], ori: []};
    return {name: s.name, perm: part.perm, ori: part.ori.length ? part.ori : part.perm.map(() => 0)};
  });
}

function stateLine(sets) {
  const shapes = state.folder.states.sets;
  return sets.map((s, i) => `${s.name} ${s.perm.join(" ")}` +
    (shapes[i].orientations > 1 ? ` / ${s.ori.join(" ")}` : "")).join("; ");
}

function placeOf(cell) {
  // The [set index, position] of a picture's data-cell: the positions of all sets in turn.
  let rest = cell;
  const shapes = state.folder.states.sets;
  for (let i = 0; i < shapes.length; i++) {
    if (rest < shapes[i].count) return [i, rest];
    rest -= shapes[i].count;
  }
  return null;
}

function drawStateTools() {
  const twisting = state.folder.states.sets.some((s) => s.orientations > 1);
  const tools = [["swap", "swap two pieces"]];
  if (twisting) tools.push(["twist", "twist"]);
  $("#palette").replaceChildren(...tools.map(([tool, text]) => {
    const button = el("button", {type: "button", class: "tool", "data-tool": tool,
                                 "aria-pressed": String(tool === editor.tool)}, text);
    button.addEventListener("click", () => {
      editor.tool = tool;
      editor.selected = null;
      drawPalette();
      drawEditorBoard();
    });
    return button;
  }));
  $("#editor-help").textContent = "Click two pieces of a set to swap them (a blank tile too: it is a piece)" +
    (twisting ? "; with twist, click a piece to turn it forward (where twists add up to zero, then " +
                "another to turn back)" : "") + ". Or type a state and load it.";
}

async function clickState(cell) {
  const place = placeOf(cell);
  if (!place) return;
  const [set, at] = place;
  const shape = state.folder.states.sets[set];
  const sets = stateSets(editor.text);
  if (editor.tool === "twist" && shape.orientations > 1 && !shape.zero_sum) {
    remember();
    sets[set].ori[at] = (sets[set].ori[at] + 1) % shape.orientations;
    editor.text = stateLine(sets);
    await edited();
    return;
  }
  if (editor.tool === "twist" && shape.orientations < 2) return;
  if (editor.selected === null || editor.selected[0] !== set || editor.selected[1] === at) {
    editor.selected = editor.selected && editor.selected[0] === set && editor.selected[1] === at ? null : place;
    drawEditorBoard();
    return;
  }
  const other = editor.selected[1];
  remember();
  const {perm, ori} = sets[set];
  if (editor.tool === "twist") {
    ori[other] = (ori[other] + 1) % shape.orientations;
    ori[at] = (ori[at] + shape.orientations - 1) % shape.orientations;
  } else {
    [perm[other], perm[at]] = [perm[at], perm[other]];
    [ori[other], ori[at]] = [ori[at], ori[other]];
  }
  editor.selected = null;
  editor.text = stateLine(sets);
  await edited();
}

function drawState(markup = editor.picture) {
  // The state's picture as the server drew it, with the picked tile marked.
  const box = $("#editor-board");
  box.innerHTML = markup;
  if (editor.selected === null || markup !== editor.picture) return;
  const shapes = state.folder.states.sets;
  const cell = shapes.slice(0, editor.selected[0]).reduce((sum, s) => sum + s.count, 0) + editor.selected[1];
  const tile = box.querySelector(`.board [data-cell="${cell}"]`);
  if (tile) tile.classList.add("selected");
}

function showStateAnalysis(level) {
  const legal = $("#legal");
  legal.className = level.solvable ? "good" : "bad";
  legal.textContent = level.goal ? "Legal: the solved state."
    : level.solvable ? `Legal: solvable in ${plural(level.distance, "move")}.`
      : "Legal, but not solvable: the moves never reach the solved state from here.";
  const closer = level.moves.filter((m) => m.closer).length;
  const rows = [
    ["distance", level.distance === null ? "not solvable" : level.distance],
    ["solvable", yesNo(level.solvable)],
    ["unique", level.unique === null ? "not stored in a distance table" : yesNo(level.unique)],
    ["rank", count(level.rank)],
    ["legal moves", `${level.moves.length} (${closer} closer)`],
    ["solution", level.solution.length ? level.solution.join(" ") : "-"],
  ];
  $("#analysis").replaceChildren(...rows.flatMap(([name, value]) =>
    [el("dt", {}, name), el("dd", {"data-figure": name}, String(value))]));
  if (typeof showEditorSteps === "function") showEditorSteps(level);  // steps.js
}

// -- starting points and playing ------------------------------------------------------------

async function editPlayed() {
  if (editor.kind === "distance" && state.folder && state.folder.kind === "distance") {
    throw new Error("A distance table has no levels to play: start from the solved state or type a state.");
  }
  if (!state.play || state.play.folder !== state.folder.id) throw new Error("Play a level first.");
  await editLevel(current());
}

// Called by the level cards (app.js): edit a level found in the Levels tab.
async function editLevel(level) {
  showTab("editor");
  await setUpEditor();
  await startEditing(editor.kind === "layers" ? level.position : piecesOf(level.board));
}

async function loadDrawing() {
  await setUpEditor();
  // Leading spaces of the first row place its cells (triangular boards): only the blank
  // lines before the drawing and the spaces after it go.
  const text = $("#edit-drawing [name=board]").value.replace(/^\s*\n/, "").trimEnd();
  if (!text) throw new Error("Type a drawing first: its rows joined by '/'.");
  if (editor.kind === "layers") {
    const level = await (await postJson(`/api/folders/${editor.folder}/level`, {board: text})).json();
    await startEditing(level.position);
  } else if (editor.kind === "distance") {
    await startEditing(text);
  } else {
    await startEditing(piecesOf(text.split("/")));
  }
}

async function playEdited() {
  if (!editor.level) throw new Error("Only a legal position can be played.");
  if (editor.kind === "distance") {
    throw new Error("A distance table has no levels to play: step through the solution here instead.");
  }
  if (editor.kind === "layers" && editor.level.pieces === 0) {
    throw new Error("The board is empty: put pieces on it to play it.");
  }
  if (editor.kind === "layers") await startPlay(editor.level);
  else await startSlidingPlay(drawing());
}

document.addEventListener("DOMContentLoaded", buildEditor);
