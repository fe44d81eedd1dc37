// The Play tab's additions: watch a solution step by step with each move drawn as an arrow,
// a hint that shows a whole move (piece and target), spoiler-free play that hides distances
// and safe-move marks until asked, and the keys (press ? for the list). Uses app.js's helpers
// and editor.js's `centreOf`.
"use strict";

const watch = {on: false, steps: [], moves: [], at: 0};
// steps: the reports of the positions along the solution (filled as they are reached);
// moves: the solution's moves (layered: {from, to}; sliding: their text).

const KEYS = [
  ["u or Ctrl+Z", "undo (a move, or an edit in the editor)"],
  ["r", "reset the level (or the drawing)"],
  ["h", "hint: show a move that keeps the level solvable"],
  ["← →", "step back and forward while watching a solution"],
  ["n, p", "play the next, the previous level of the list found (Levels and Play tabs)"],
  ["v, Shift+V", "pick the next, the previous vehicle that can move (universe puzzles); then the arrows " +
                 "slide it one cell, with Shift as far as it goes"],
  ["w", "watch the solution from here, or stop (a distance table's: step through it in the editor)"],
  ["Escape", "stop watching; close this list"],
  ["?", "show or hide this list"],
];

function buildSteps() {
  const button = (id, text, action, title = "") => {
    const node = el("button", {type: "button", id, title}, text);
    node.addEventListener("click", () => guarded(action));
    return node;
  };
  const spoiler = el("input", {type: "checkbox", id: "spoiler-free"});
  spoiler.addEventListener("change", () => {
    spoiler.blur();  // a checkbox in focus would keep the play's keys
    document.body.classList.toggle("spoiler-free", spoiler.checked);
    document.body.classList.remove("revealed");
  });
  const bar = el("div", {id: "watch-bar"},
    el("div", {class: "buttons"},
      button("watch", "Watch the solution", toggleWatch, "w"),
      button("step-back", "◀ Back", stepBack, "←"),
      button("step-forward", "Forward ▶", stepForward, "→"),
      el("span", {id: "step-at"})),
    el("p", {id: "hint-move", class: "help"}),
    el("div", {class: "buttons"},
      el("label", {}, spoiler, " spoiler-free"),
      button("reveal", "Show the figures", async () => { document.body.classList.add("revealed"); }),
      button("edit-this", "Edit this position", editPlayed),
      button("show-keys", "Keys (?)", async () => toggleKeys())));
  $("#controls .buttons").after(bar);
  const list = el("div", {id: "keys", role: "dialog", "aria-label": "Keys", hidden: ""},
    el("h2", {}, "Keys"),
    el("dl", {}, ...KEYS.flatMap(([key, what]) => [el("dt", {}, key), el("dd", {}, what)])),
    el("p", {class: "help"}, "Press ? or Escape to close."));
  document.body.append(list);
  drawSteps();
  document.addEventListener("keydown", pressKey);
}

// -- watching a solution ---------------------------------------------------------------------

async function toggleWatch() {
  if (watch.on) { stopWatching(); return; }
  if (!state.play) throw new Error("Play a level first: its solution is watched from the position on the board.");
  const report = current();
  let moves;
  if (state.play.kind === "layers") {
    const level = await (await postJson(`/api/folders/${state.play.folder}/level`,
                                        {position: report.position})).json();
    moves = level.solution;
  } else {
    moves = report.solution;
  }
  if (!moves.length) throw new Error(report.goal ? "The goal is reached: nothing left to watch."
                                                 : "This position has no solution to watch.");
  Object.assign(watch, {on: true, steps: [report], moves, at: 0, folder: state.play.folder});
  drawWatch();
}

function stopWatching() {
  watch.on = false;
  if (state.play) drawPlay();
  drawSteps();
}

async function stepForward() {
  if (!watch.on || watch.at >= watch.moves.length) return;
  if (watch.steps.length <= watch.at + 1) {
    const here = watch.steps[watch.at];
    let report;
    if (state.play.kind === "layers") {
      report = await (await postJson(`/api/folders/${watch.folder}/move`,
                                     {position: here.position, move: watch.moves[watch.at]})).json();
    } else {
      const move = here.moves.find((m) => m.text === watch.moves[watch.at]);
      report = await movedReport(watch.folder, state.play.kind, here.board.join("/"), move);
    }
    watch.steps.push(report);
  }
  watch.at += 1;
  drawWatch();
}

async function stepBack() {
  if (!watch.on || watch.at === 0) return;
  watch.at -= 1;
  drawWatch();
}

function drawWatch() {
  const report = watch.steps[watch.at];
  $("#board").innerHTML = report.picture;
  $("#solved").hidden = true;
  if (watch.at < watch.moves.length) drawMoveArrow(nextMove(report), "watch-arrow");
  drawSteps();
}

function nextMove(report) {
  // The solution's next move from `report`, as a move of the report's list.
  const wanted = watch.moves[watch.at];
  if (state.play.kind === "layers") return wanted;
  return report.moves.find((m) => m.text === wanted);
}

function drawSteps() {
  const watching = watch.on;
  $("#watch").textContent = watching ? "Stop watching" : "Watch the solution";
  $("#watch").setAttribute("aria-pressed", String(watching));
  $("#step-back").disabled = !watching || watch.at === 0;
  $("#step-forward").disabled = !watching || watch.at >= watch.moves.length;
  let text = "";
  if (watching) {
    text = `step ${watch.at} of ${watch.moves.length}`;
    if (watch.at < watch.moves.length) text += `; next: ${moveText(nextMove(watch.steps[watch.at]))}`;
    else text += ": the goal";
  }
  $("#step-at").textContent = text;
  document.body.classList.toggle("watching", watching);
}

const moveText = (move) => (!move ? "" : move.text || `${cellText(move.from)} > ${cellText(move.to)}`);

// -- stepping through a distance table's solution in the editor -------------------------------

const editorSteps = {on: false, steps: [], moves: [], at: 0, folder: null};
// steps: the reports of the states along the solution (filled as they are reached).

// Called by editor.js after it shows a state's analysis: the bar offers its solution.
function showEditorSteps(level) {
  let bar = $("#edit-steps");
  if (!bar) {
    const button = (id, text, action, title) => {
      const node = el("button", {type: "button", id, title}, text);
      node.addEventListener("click", () => guarded(action));
      return node;
    };
    bar = el("div", {id: "edit-steps", class: "buttons"},
      button("edit-watch", "Step through the solution", toggleEditorSteps, "w"),
      button("edit-back", "◀ Back", editorStepBack, "←"),
      button("edit-forward", "Forward ▶", editorStepForward, "→"),
      el("span", {id: "edit-step-at"}));
    $("#analysis").after(bar);
  }
  bar.hidden = false;
  Object.assign(editorSteps, {on: false, steps: [level], moves: level.solution, at: 0, folder: editor.folder});
  drawEditorSteps();
}

// Called by editor.js before every edit: the steps shown belong to the state edited.
function stopEditorSteps() {
  const was = editorSteps.on;
  editorSteps.on = false;
  const bar = $("#edit-steps");
  if (bar) bar.hidden = true;
  if (was && editor.kind === "distance") drawState();
}

async function toggleEditorSteps() {
  if (editorSteps.on) {
    editorSteps.on = false;
    drawState();
    drawEditorSteps();
    return;
  }
  if (!editorSteps.moves.length) {
    throw new Error(editorSteps.steps[0].goal ? "The solved state: nothing to step through."
                                              : "This state has no solution to step through.");
  }
  editorSteps.on = true;
  editorSteps.at = 0;
  drawEditorStep();
}

async function editorStepForward() {
  if (!editorSteps.on || editorSteps.at >= editorSteps.moves.length) return;
  if (editorSteps.steps.length <= editorSteps.at + 1) {
    const here = editorSteps.steps[editorSteps.at];
    const move = here.moves.find((m) => m.name === editorSteps.moves[editorSteps.at]);
    const report = await (await postJson(`/api/folders/${editorSteps.folder}/distance/position`,
                                         {board: move.board})).json();
    editorSteps.steps.push(report);
  }
  editorSteps.at += 1;
  drawEditorStep();
}

async function editorStepBack() {
  if (!editorSteps.on || editorSteps.at === 0) return;
  editorSteps.at -= 1;
  drawEditorStep();
}

function drawEditorStep() {
  const report = editorSteps.steps[editorSteps.at];
  drawState(report.picture);
  const svg = $("#editor-board svg");
  if (svg) svg.dataset.step = String(editorSteps.at);
  drawEditorSteps();
}

function drawEditorSteps() {
  const {on, at, moves} = editorSteps;
  $("#edit-watch").textContent = on ? "Stop stepping" : "Step through the solution";
  $("#edit-watch").setAttribute("aria-pressed", String(on));
  $("#edit-back").disabled = !on || at === 0;
  $("#edit-forward").disabled = !on || at >= moves.length;
  let text = "";
  if (on) {
    text = `step ${at} of ${moves.length}`;
    text += at < moves.length ? `; next: ${moves[at]}` : ": solved";
  }
  $("#edit-step-at").textContent = text;
}

// -- arrows ------------------------------------------------------------------------------------

function tileCentre(svg, cell) {
  const tile = svg.querySelector(`.board [data-cell="${cell}"]`);
  return tile ? centreOf(tile) : null;
}

function drawMoveArrow(move, name) {
  // The move drawn on the board: from the piece's centre to where that centre goes (a tilt:
  // from the board's middle towards the way it tilts).
  const svg = $("#board svg");
  if (!svg || !move) return;
  let start, end;
  if (move.direction) {
    const box = svg.viewBox.baseVal;
    const [dx, dy] = {up: [0, -1], down: [0, 1], left: [-1, 0], right: [1, 0]}[move.direction];
    const [cx, cy] = [box.x + box.width / 2, box.y + box.height / 2];
    const reach = Math.min(box.width, box.height) / 3;
    start = [cx - dx * reach / 2, cy - dy * reach / 2];
    end = [cx + dx * reach, cy + dy * reach];
  } else {
    const from = tileCentre(svg, state.cellIndex[cellText(move.from)]);
    const to = tileCentre(svg, state.cellIndex[cellText(move.to)]);
    if (!from || !to) return;
    let [ox, oy] = [0, 0];
    const shapes = state.folder.blocks ? state.folder.blocks.pieces
      : state.folder.universe ? state.folder.universe.vehicles : null;
    if (move.piece && shapes) {
      // A block's centre lies off its anchor by the mean of its shape's cells.
      const shape = shapes.find((p) => p.letter === move.piece);
      const size = tileSize(svg);
      ox = size * shape.cells.reduce((sum, [, c]) => sum + c, 0) / shape.cells.length;
      oy = size * shape.cells.reduce((sum, [r]) => sum + r, 0) / shape.cells.length;
    }
    start = [from[0] + ox, from[1] + oy];
    end = [to[0] + ox, to[1] + oy];
  }
  let defs = svg.querySelector("defs#arrow-defs");
  if (!defs) {
    defs = svgEl("defs", {id: "arrow-defs"});
    const marker = svgEl("marker", {id: "arrow-head", viewBox: "0 0 10 10", refX: 6, refY: 5,
                                    markerWidth: 4, markerHeight: 4, orient: "auto-start-reverse"});
    marker.append(svgEl("path", {d: "M 0 0 L 10 5 L 0 10 z", class: "arrow-head"}));
    defs.append(marker);
    svg.append(defs);
  }
  svg.append(svgEl("line", {x1: start[0], y1: start[1], x2: end[0], y2: end[1], class: `arrow ${name}`,
                            "marker-end": "url(#arrow-head)", "data-from": move.from ? cellText(move.from) : "",
                            "data-to": move.to ? cellText(move.to) : "", "data-tilt": move.direction || ""}));
}

function tileSize(svg) {
  const tile = svg.querySelector(".board [data-cell]");
  const xs = ((tile && tile.getAttribute("d")) || "").match(/-?\d+(\.\d+)?/g) || [];
  const values = xs.map(Number).filter((_, i) => i % 2 === 0);
  return values.length ? Math.max(...values) - Math.min(...values) : 0;
}

// -- the hint as a move, spoiler-free play ------------------------------------------------------

// Called by app.js after it draws the position in play.
function decoratePlay() {
  if (watch.on) { watch.on = false; drawSteps(); }
  document.body.classList.remove("revealed");
  const play = state.play;
  $("#edit-this").hidden = !canEdit(state.folder);  // editor.js
  const line = $("#hint-move");
  line.textContent = "";
  if (!play || !play.hint) return;
  document.body.classList.add("revealed");  // asking for a hint shows the figures too
  const report = current();
  const good = play.kind === "layers" ? report.moves.find((m) => m.safe) : report.moves.find((m) => m.closer);
  if (!good || report.goal) return;
  drawMoveArrow(good, "hint-arrow");
  line.textContent = `Hint: ${play.kind === "layers" ? "move " : ""}${moveText(good)}`;
}

// -- keys ------------------------------------------------------------------------------------

function toggleKeys(show) {
  const list = $("#keys");
  list.hidden = show === undefined ? !list.hidden : !show;
}

function pressKey(event) {
  const target = event.target;
  if (target && ["INPUT", "TEXTAREA", "SELECT"].includes(target.tagName)) return;
  if (event.altKey || event.metaKey) return;
  const tab = (document.querySelector(".tab.active") || {dataset: {}}).dataset.tab;
  const key = event.key;
  const undoKey = (key === "z" || key === "Z") && event.ctrlKey;
  if (event.ctrlKey && !undoKey) return;
  let action = null;
  if (key === "?") action = () => toggleKeys();
  else if (key === "Escape") action = () => { toggleKeys(false); if (watch.on) stopWatching(); };
  else if (tab === "editor") {
    if (key === "u" || undoKey) action = undoEdit;
    else if (key === "r") action = resetEdit;
    else if (key === "w" && editor.kind === "distance" && editor.level) action = toggleEditorSteps;
    else if (editorSteps.on && key === "ArrowRight") action = editorStepForward;
    else if (editorSteps.on && key === "ArrowLeft") action = editorStepBack;
  } else if ((tab === "play" || tab === "levels") && (key === "n" || key === "p")) {
    action = () => { if (watch.on) stopWatching(); return playListed(key === "n" ? 1 : -1); };
  } else if (tab === "play" && state.play) {
    if (key === "u" || undoKey) action = () => (watch.on ? stepBack() : undo());
    else if ((key === "v" || key === "V") && state.play.kind === "universe") action = () => pickVehicle(key === "v" ? 1 : -1);
    else if (key === "r") action = () => { watch.on = false; reset(); drawSteps(); };
    else if (key === "h") action = toggleHint;  // app.js: recorded in the play's hints
    else if (key === "w") action = toggleWatch;
    else if (watch.on && key === "ArrowRight") action = stepForward;
    else if (watch.on && key === "ArrowLeft") action = stepBack;
  }
  if (!action) return;
  event.preventDefault();
  guarded(async () => action());
}

document.addEventListener("DOMContentLoaded", buildSteps);
