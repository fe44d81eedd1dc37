// What the workspace keeps in its database (/api/packs, /api/folders/{id}/notes and
// /playtests): named packs of each puzzle that last across reloads and restarts, notes and
// tags on levels, and a record of every play with each level's playtest figures. It follows
// the page (static/app.js) through the events app.js announces: curator:folder,
// curator:levels, curator:play and curator:pack-changed.
"use strict";

// One scope of its own: nothing here takes a name of app.js or of another script.
(() => {
  const kept = {
    packs: [],        // the PackOut of the folder's puzzle
    current: null,    // the id of the pack shown in the Pack tab
    saving: Promise.resolve(),
    notes: new Map(),     // level key -> {note, tags}
    figures: new Map(),   // level key -> playtest figures
    record: null,     // the play under way: {folder, level, started, moves, atEnd, undos, resets, hints, done}
  };

  // A level's key: its position's entries joined by commas, or its drawing's rows joined by '/'
  // (sliding-block levels, universe puzzles).
  const levelKey = (level) => (level.position ? level.position.join(",") : level.board.join("/"));
  const putJson = (path, body, method = "PUT") => api(path, {
    method, headers: {"Content-Type": "application/json"}, body: JSON.stringify(body),
  });
  // Work the page does by itself: an error is said, but the message line is not cleared first
  // (it may say what the designer just did).
  async function quietly(action) {
    try {
      await action();
    } catch (error) {
      say(error.message, true);
    }
  }
  const keepable = () => state.folder && state.folder.kind !== "distance";

  // -- named packs ------------------------------------------------------------------------------

  function packBar() {
    const bar = el("div", {id: "packs-bar"},
      el("label", {}, "pack ", el("select", {id: "pack-select"})),
      el("input", {id: "pack-name", placeholder: "name", size: "16", maxlength: "80"}),
      el("button", {type: "button", id: "pack-new"}, "New pack"),
      el("button", {type: "button", id: "pack-rename"}, "Rename"),
      el("button", {type: "button", id: "pack-delete"}, "Delete pack"),
      el("span", {id: "pack-saved", class: "help"}));
    $("#pack").prepend(bar, el("p", {id: "pack-orphans", class: "help"}));
    $("#pack-select").addEventListener("change", (e) => guarded(() => showPack(Number(e.target.value))));
    $("#pack-new").addEventListener("click", () => guarded(newPack));
    $("#pack-rename").addEventListener("click", () => guarded(renamePack));
    $("#pack-delete").addEventListener("click", () => guarded(deletePack));
    const list = $("#pack-list");
    list.addEventListener("dragstart", (e) => {
      const item = e.target.closest("li");
      if (!item) return;
      e.dataTransfer.setData("text/plain", String([...list.children].indexOf(item)));
      e.dataTransfer.effectAllowed = "move";
    });
    list.addEventListener("dragover", (e) => { if (e.target.closest("li")) e.preventDefault(); });
    list.addEventListener("drop", (e) => {
      const item = e.target.closest("li");
      const from = Number(e.dataTransfer.getData("text/plain"));
      if (!item || Number.isNaN(from)) return;
      e.preventDefault();
      dragLevel(from, [...list.children].indexOf(item));
    });
  }

  function dragLevel(from, to) {
    // Dropping a level on another puts it in that one's place.
    const items = state.pack.items;
    if (from === to || from < 0 || to < 0 || from >= items.length || to >= items.length) return;
    items.splice(to, 0, items.splice(from, 1)[0]);
    state.pack.curve = null;
    packChanged();
  }

  function currentPack() {
    return kept.packs.find((pack) => pack.id === kept.current) || null;
  }

  function drawPackBar() {
    const select = $("#pack-select");
    select.replaceChildren(...kept.packs.map((pack) =>
      el("option", {value: pack.id}, `${pack.name} (${plural(pack.levels.length, "level")})`)));
    if (kept.current !== null) select.value = String(kept.current);
    for (const id of ["#pack-rename", "#pack-delete"]) $(id).disabled = kept.current === null;
  }

  async function loadPacks() {
    kept.packs = [];
    kept.current = null;
    if (!keepable()) { drawPackBar(); return; }
    const folder = state.folder.id;
    const [packs, every] = await Promise.all([getJson(`/api/folders/${folder}/packs`), getJson("/api/packs")]);
    if (!state.folder || state.folder.id !== folder) return;
    kept.packs = packs;
    const latest = [...packs].sort((a, b) => (a.updated < b.updated ? 1 : a.updated > b.updated ? -1 : b.id - a.id))[0];
    const orphans = every.filter((pack) => pack.folder === null);
    $("#pack-orphans").textContent = orphans.length ? `Packs whose puzzle no folder here holds: ` +
      orphans.map((pack) => `"${pack.name}" (${pack.puzzle}, ${plural(pack.levels.length, "level")})`).join(", ") +
      `. ${orphans[0].problem}.` : "";
    showPack(latest ? latest.id : null);
  }

  function showPack(id) {
    kept.current = id;
    const pack = currentPack();
    state.pack = {folder: state.folder.id, kind: state.folder.workspace,
                  items: pack ? pack.levels.map((item) => item.data) : [],
                  curve: pack ? pack.curve : null};
    drawPackBar();
    drawPack();
    $("#pack-saved").textContent = pack ? `kept (${pack.updated.replace("T", " ").replace("Z", " UTC")})` : "";
  }

  function freeName() {
    const names = new Set(kept.packs.map((pack) => pack.name));
    let number = kept.packs.length + 1;
    while (names.has(`pack ${number}`)) number += 1;
    return `pack ${number}`;
  }

  async function createPack(name) {
    const pack = await (await postJson(`/api/folders/${state.folder.id}/packs`, {name})).json();
    kept.packs.push(pack);
    kept.packs.sort((a, b) => a.name.localeCompare(b.name) || a.id - b.id);
    return pack;
  }

  async function newPack() {
    if (!keepable()) throw new Error("This folder has no levels to keep in packs.");
    const name = $("#pack-name").value.trim() || freeName();
    const pack = await createPack(name);
    $("#pack-name").value = "";
    showPack(pack.id);
    say(`New pack "${pack.name}".`);
  }

  async function renamePack() {
    const pack = currentPack();
    const name = $("#pack-name").value.trim();
    if (!pack) throw new Error("No pack to rename: make one first.");
    if (!name) throw new Error("Type the pack's new name first.");
    const renamed = await (await putJson(`/api/packs/${pack.id}`, {name}, "PATCH")).json();
    kept.packs = kept.packs.map((p) => (p.id === renamed.id ? renamed : p));
    $("#pack-name").value = "";
    drawPackBar();
    say(`Renamed to "${renamed.name}".`);
  }

  async function deletePack() {
    const pack = currentPack();
    if (!pack) return;
    await putJson(`/api/packs/${pack.id}`, {}, "DELETE");
    kept.packs = kept.packs.filter((p) => p.id !== pack.id);
    showPack(kept.packs.length ? kept.packs[0].id : null);
    say(`Deleted the pack "${pack.name}".`);
  }

  function keepPack() {
    // Store the Pack tab's levels in the pack shown (one made first if there is none), one
    // change after another, in the order they were made.
    if (!keepable() || state.pack.folder !== state.folder.id) return;
    const folder = state.folder.id;
    const levels = state.pack.items.map((level) => {
      const {moves, ...data} = level;  // a played position's moves are not kept
      return {level: levelKey(level), data};
    });
    const curve = state.pack.curve;
    kept.saving = kept.saving.then(() => quietly(async () => {
      if (!state.folder || state.folder.id !== folder) return;
      if (kept.current === null) {
        if (!levels.length) return;
        kept.current = (await createPack(freeName())).id;
      }
      const pack = await (await putJson(`/api/packs/${kept.current}/levels`, {levels, curve})).json();
      kept.packs = kept.packs.map((p) => (p.id === pack.id ? pack : p));
      drawPackBar();
      $("#pack-saved").textContent = `kept (${pack.updated.replace("T", " ").replace("Z", " UTC")})`;
    }));
  }

  // -- notes, tags and playtest figures on the Levels tab -----------------------------------------

  async function loadLevelFacts() {
    kept.notes = new Map();
    kept.figures = new Map();
    if (!keepable()) return;
    const folder = state.folder.id;
    const [notes, playtests] = await Promise.all([getJson(`/api/folders/${folder}/notes`),
                                                  getJson(`/api/folders/${folder}/playtests`)]);
    if (!state.folder || state.folder.id !== folder) return;
    for (const note of notes) kept.notes.set(note.level, note);
    for (const figures of playtests.levels) kept.figures.set(figures.level, figures);
    decorateCards();
  }

  function playtestText(figures) {
    if (!figures) return "no playtests yet";
    const time = figures.median_seconds === null ? "none solved" : `median ${seconds(figures.median_seconds)} to solve`;
    return `${plural(figures.plays, "play")}, ${time}, ${Math.round(100 * figures.give_up_rate)}% given up`;
  }

  function seconds(value) {
    if (value < 60) return `${value.toFixed(value < 10 ? 1 : 0)} s`;
    return `${Math.floor(value / 60)} min ${Math.round(value % 60)} s`;
  }

  function decorateCards() {
    const cards = [...document.querySelectorAll("#level-list figure.level")];
    cards.forEach((card, i) => {
      if (!card.dataset.level && state.levels[i]) card.dataset.level = levelKey(state.levels[i]);
      const key = card.dataset.level;
      if (!key) return;
      const caption = card.querySelector("figcaption");
      const figures = kept.figures.get(key);
      let line = card.querySelector(".playtests");
      if (!line) {
        line = el("span", {class: "playtests"});
        caption.insertBefore(line, caption.querySelector(".buttons"));
      }
      line.textContent = playtestText(figures);
      line.dataset.plays = figures ? figures.plays : 0;
      if (!card.querySelector(".note")) caption.append(noteEditor(key));
      const note = kept.notes.get(key);
      card.querySelector(".note summary").textContent = note ? noteSummary(note) : "Add a note";
    });
    drawOrder();
  }

  const noteSummary = (note) => [note.tags.map((tag) => `#${tag}`).join(" "), note.note].filter(Boolean).join(" ") || "Add a note";

  function noteEditor(key) {
    const note = kept.notes.get(key) || {note: "", tags: []};
    const text = el("textarea", {rows: "2", placeholder: "note", maxlength: "4000"});
    text.value = note.note;
    const tags = el("input", {placeholder: "tags, comma-separated", size: "18"});
    tags.value = note.tags.join(", ");
    const save = el("button", {type: "button", class: "save-note"}, "Save note");
    const box = el("details", {class: "note"}, el("summary", {}), text, tags, save);
    save.addEventListener("click", () => guarded(async () => {
      const body = {level: key, note: text.value, tags: tags.value.split(",").map((t) => t.trim()).filter(Boolean)};
      const stored = await (await putJson(`/api/folders/${state.folder.id}/notes`, body)).json();
      if (stored.note || stored.tags.length) kept.notes.set(key, stored); else kept.notes.delete(key);
      box.open = false;
      decorateCards();
      say("Note kept.");
    }));
    return box;
  }

  // -- ordering the cards shown by any figure they carry ----------------------------------------

  const PLAYTEST_FIGURES = ["plays", "median_seconds", "give_up_rate"];

  function orderBar() {
    const select = el("select", {id: "order"});
    $("#level-list").before(el("p", {id: "order-bar"}, el("label", {}, "order the levels shown by ", select)));
    select.addEventListener("change", orderCards);
  }

  function figureOf(card, name) {
    if (PLAYTEST_FIGURES.includes(name)) {
      const figures = kept.figures.get(card.dataset.level);
      if (name === "plays") return figures ? figures.plays : 0;
      return figures ? figures[name] : null;
    }
    const level = state.levels.find((l) => levelKey(l) === card.dataset.level);
    const value = level ? level[name] : null;
    return typeof value === "boolean" ? Number(value) : value;
  }

  function drawOrder() {
    // Every figure the levels shown carry (numbers and flags), and their playtest figures.
    const select = $("#order");
    const chosen = select.value;
    const first = state.levels[0] || {};
    const names = Object.keys(first).filter((name) => ["number", "boolean"].includes(typeof first[name]) ||
      (first[name] === null && state.levels.some((l) => typeof l[name] === "number")));
    const options = [el("option", {value: ""}, "as found")];
    for (const name of [...names, ...PLAYTEST_FIGURES]) {
      options.push(el("option", {value: name}, name.replaceAll("_", " ")),
                   el("option", {value: `${name}:desc`}, `${name.replaceAll("_", " ")}, highest first`));
    }
    select.replaceChildren(...options);
    select.value = [...select.options].some((o) => o.value === chosen) ? chosen : "";
    if (select.value) orderCards();
  }

  function orderCards() {
    const [name, way] = $("#order").value.split(":");
    const list = $("#level-list");
    const cards = [...list.querySelectorAll("figure.level")];
    const found = (card) => state.levels.findIndex((l) => levelKey(l) === card.dataset.level);
    const sorted = cards.map((card) => [card, name ? figureOf(card, name) : null, found(card)]).sort((a, b) => {
      if (!name) return a[2] - b[2];
      if (a[1] === null || a[1] === undefined) return b[1] === null || b[1] === undefined ? a[2] - b[2] : 1;
      if (b[1] === null || b[1] === undefined) return -1;
      return (way === "desc" ? b[1] - a[1] : a[1] - b[1]) || a[2] - b[2];
    });
    list.append(...sorted.map(([card]) => card));
  }

  // -- recording plays --------------------------------------------------------------------------

  function beginPlay() {
    const first = state.play.history[0];
    kept.record = {folder: state.play.folder, level: levelKey(first), started: performance.now(), moves: 0, atEnd: 0,
                   undos: 0, resets: 0, hints: 0, done: false};
  }

  // Seconds to wait before sending a play again while the database is busy (503: another
  // program holds its write lock), so that a passing lock loses no play.
  const PLAY_RETRIES = [2, 4, 8, 16];

  function sendPlay(path, body, attempt = 0) {
    const sent = api(path, {method: "POST", headers: {"Content-Type": "application/json"},
                            body: JSON.stringify(body), keepalive: true});
    return sent.catch((error) => {
      if (error.status !== 503 || attempt >= PLAY_RETRIES.length) throw error;
      say(`${error.message}; the play is sent again in ${PLAY_RETRIES[attempt]} s`, true);
      return new Promise((resolve) => setTimeout(resolve, PLAY_RETRIES[attempt] * 1000))
        .then(() => sendPlay(path, body, attempt + 1));
    });
  }

  function finishPlay(solved, explicit = false) {
    // A play ends at the goal, or when the player gives up: by the button, or by leaving a
    // level on which they made a move.
    const record = kept.record;
    if (!record || record.done || (!solved && !explicit && record.moves === 0)) return;
    record.done = true;
    const body = {level: record.level, seconds: Math.round((performance.now() - record.started) / 10) / 100,
                  moves: record.moves, moves_at_end: Math.min(record.atEnd, record.moves), undos: record.undos,
                  resets: record.resets, hints: record.hints, solved};
    const sent = sendPlay(`/api/folders/${record.folder}/playtests`, body);
    sent.then(() => {
      if (state.folder && state.folder.id === record.folder) return loadLevelFacts();
      return null;
    }).catch((error) => say(error.message, true));
    return sent;
  }

  function onPlay(event) {
    const what = event.detail.event;
    const record = kept.record;
    if (what === "start") {
      finishPlay(false);
      beginPlay();
    } else if (what === "stop") {
      finishPlay(false);
      kept.record = null;
    } else if (!record) {
      if (state.play && what !== "hint") beginPlay();
    } else if (what === "reset" && record.done) {
      beginPlay();
    } else if (record.done) {
      // after the end of a play, nothing counts until the level starts again
    } else if (what === "move") {
      record.moves += 1;
      record.atEnd += 1;
      const now = state.play.history[state.play.history.length - 1];
      if (now.goal) finishPlay(true);
    } else if (what === "undo") {
      record.undos += 1;
      record.atEnd = Math.max(0, record.atEnd - 1);
    } else if (what === "reset") {
      record.resets += 1;
      record.atEnd = 0;
    } else if (what === "hint") {
      record.hints += 1;
    }
  }

  function giveUp() {
    if (!state.play) return;
    finishPlay(false, true);
    say("Given up: the play is recorded. The level starts again.");
    reset();
  }

  // -- wiring -----------------------------------------------------------------------------------

  function wireStudio() {
    packBar();
    orderBar();
    const button = el("button", {type: "button", id: "give-up"}, "Give up");
    button.addEventListener("click", giveUp);
    $("#controls .buttons").append(button);
    document.addEventListener("curator:folder", () => quietly(async () => {
      await Promise.all([loadPacks(), loadLevelFacts()]);
    }));
    document.addEventListener("curator:levels", () => decorateCards());
    document.addEventListener("curator:pack-changed", keepPack);
    document.addEventListener("curator:play", onPlay);
    for (const tab of document.querySelectorAll(".tab[data-tab=levels]")) {
      tab.addEventListener("click", () => quietly(loadLevelFacts));
    }
    window.addEventListener("pagehide", () => finishPlay(false));
  }

  document.addEventListener("DOMContentLoaded", wireStudio);
})();
