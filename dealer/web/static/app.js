// acpc-arena's page: live tables, the replayer, results and a seat to play. Plain JavaScript, no build step.
"use strict";

const $ = (id) => document.getElementById(id);
const SUITS = { s: "\u2660", h: "\u2665", d: "\u2666", c: "\u2663" };

// The token of the game this page started: the server answers about that game only to it.
const TOKEN_KEY = "acpc-play-token";

async function getJSON(url, options) {
  options = options || {};
  const headers = { ...(options.headers || {}) };
  const token = sessionStorage.getItem(TOKEN_KEY);
  if (token && url.startsWith("/api/play")) headers["X-Play-Token"] = token;
  if (options.body) headers["Content-Type"] = "application/json";
  const response = await fetch(url, { ...options, headers });
  const body = await response.json();
  if (!response.ok) throw new Error(body.error || response.statusText);
  return body;
}

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (key === "class") node.className = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

function card(text) {
  if (!text) return el("span", { class: "card back" }, "??");
  const suit = text[1];
  const red = suit === "h" || suit === "d";
  return el("span", { class: "card" + (red ? " red" : ""), "data-card": text }, text[0] + (SUITS[suit] || suit));
}

function signed(x, digits = 0) {
  if (x === null || x === undefined || Number.isNaN(x)) return "n/a";
  return (x > 0 ? "+" : "") + x.toFixed(digits);
}

// One table: seats (with the hole cards the caller lets through), board, pot, betting and the last action.
function renderTable(table, showHole) {
  const seats = table.players.map((player, position) => {
    const hole = player.hole && showHole(position) ? player.hole.map(card) : Array.from({ length: table.hole_cards }, () => card(null));
    const classes = ["seat"];
    if (table.to_act === position) classes.push("to-act");
    if (player.folded) classes.push("folded");
    const money = "in " + player.spent + (player.stack !== null ? ", stack " + player.stack : "");
    const value = player.value !== null ? " (" + signed(player.value) + ")" : "";
    return el("div", { class: classes.join(" "), "data-position": position },
      el("span", { class: "name" }, player.name), el("span", { class: "hole" }, hole), el("span", {}, money + value));
  });
  return el("div", { class: "felt", "data-hand": table.hand },
    el("div", {}, "hand " + table.hand + ", " + table.round + (table.finished ? " (over)" : "")),
    seats[0],
    el("div", { class: "board" }, table.board.map(card)),
    el("div", { class: "pot" }, "pot " + table.pot),
    seats.slice(1),
    el("div", { class: "betting" }, table.betting || "\u00a0"),
    el("div", { class: "last" }, table.last));
}

// -- pages ------------------------------------------------------------------------

const pages = ["live", "replay", "results", "play"];

function showPage() {
  const name = location.hash.replace("#", "") || "live";
  for (const page of pages) {
    $("page-" + page).classList.toggle("active", page === name);
    $("tab-" + page).classList.toggle("active", page === name);
  }
  if (name === "replay" || name === "results") loadFiles();
  if (name === "play") loadOptions();
}

// -- live ------------------------------------------------------------------------------

let liveBoard = null;

function renderLive() {
  const box = $("live-tables");
  box.replaceChildren();
  if (!liveBoard || liveBoard.matches.length === 0) {
    box.append(el("p", {}, "No match is being played by this process (acpc-match --web PORT shows its tables here)."));
    return;
  }
  const show = $("live-show").value;
  for (const match of liveBoard.matches) {
    const showHole = (position) => show === "all" || String(match.table.players[position].seat + 1) === show;
    const figure = match.seat1_mbb === null ? "n/a" : signed(match.seat1_mbb) + " mbb/h [" + signed(match.seat1_ci95[0]) + ", " + signed(match.seat1_ci95[1]) + "]";
    box.append(el("div", { class: "match", "data-match": match.name, "data-status": match.status },
      el("h3", {}, match.name + ": " + match.seats.join(" vs ")),
      el("div", { class: "status" }, match.status + ", " + match.hands_played + " of " + match.hands_planned + " hands" + (match.error ? ": " + match.error : "")),
      el("div", { class: "figure" }, match.seats[0] + ": " + figure + ", totals " + match.totals.map((t) => signed(t)).join(" / ")),
      match.table ? renderTable(match.table, showHole) : el("p", {}, "waiting for the first hand")));
  }
}

function startLive() {
  const source = new EventSource("/api/live/events");
  source.onmessage = (event) => {
    liveBoard = JSON.parse(event.data);
    $("live-status").textContent = "updated " + new Date().toLocaleTimeString();
    renderLive();
  };
  source.onerror = () => { $("live-status").textContent = "not connected (the run may be over)"; };
  $("live-show").addEventListener("change", renderLive);
}

// -- files: replayer and results --------------------------------------------------------

let files = null;

async function loadFiles() {
  if (files) return;
  files = await getJSON("/api/files");
  const logs = $("replay-file");
  logs.replaceChildren(el("option", { value: "" }, files.logs.length ? "choose a log" : "no logs here"),
    ...files.logs.map((f) => el("option", { value: f.id }, f.name)));
  const results = $("results-file");
  results.replaceChildren(el("option", { value: "" }, files.results.length ? "choose a report" : "no reports here"),
    ...files.results.map((f) => el("option", { value: f.id }, f.name)));
  const wanted = new URLSearchParams(location.search);
  if (wanted.get("log")) { logs.value = wanted.get("log"); openLog(); }
  if (wanted.get("result")) { results.value = wanted.get("result"); openResult(); }
}

let log = null;
let hand = null;
let step = 0;

// The address names what is open (?log=ID#replay, ?result=ID#results), so a page can be linked.
function linkTo(key, id, page) {
  history.replaceState(null, "", "?" + key + "=" + encodeURIComponent(id) + "#" + page);
}

async function openLog() {
  const id = $("replay-file").value;
  if (!id) return;
  linkTo("log", id, "replay");
  $("replay-info").textContent = "reading...";
  try {
    log = await getJSON("/api/log?f=" + encodeURIComponent(id));
  } catch (error) {
    $("replay-info").textContent = "could not read it: " + error.message;
    return;
  }
  let info = log.hands.length + " hands read (" + log.game + ")";
  if (log.truncated) info += "; only the first " + log.max_hands + " are shown";
  if (log.problem_count) info += "; " + log.problem_count + " lines could not be read: " + log.problems.slice(0, 3).join("; ");
  $("replay-info").textContent = info;
  listHands();
  if (log.hands.length) openHand(0);
  else { $("replay-table").replaceChildren(); drawPlot(); }
}

function filteredHands() {
  const filter = $("replay-filter").value;
  if (filter === "showdown") return log.hands.filter((h) => h.showdown);
  if (filter === "all_in") return log.hands.filter((h) => h.all_in);
  if (filter === "big") {
    const pots = log.hands.map((h) => h.pot).sort((a, b) => b - a);
    const cut = pots[Math.max(0, Math.floor(pots.length / 10) - 1)] || 0;
    return log.hands.filter((h) => h.pot >= cut);
  }
  return log.hands;
}

// Each hand as the log's first player (by name) fared in it.
function listHands() {
  const list = $("replay-hands");
  const who = log.hands.length ? log.hands[0].names[0] : "";
  list.replaceChildren(...filteredHands().slice(0, 5000).map((h) => {
    const p = h.names.indexOf(who);
    return el("li", { value: h.hand, "data-index": h.index, onclick: () => openHand(h.index) },
      who + " " + (p >= 0 ? signed(h.values[p]) : "-") + ", pot " + h.pot + (h.all_in ? " all-in" : "") + (h.showdown ? " sd" : ""));
  }));
}

async function openHand(index) {
  if (!log || index < 0 || index >= log.hands.length) return;
  hand = await getJSON("/api/hand?f=" + encodeURIComponent(log.id) + "&i=" + index);
  step = hand.steps.length - 1;
  for (const item of $("replay-hands").children) item.classList.toggle("current", Number(item.dataset.index) === index);
  renderStep();
  drawPlot();
}

function renderStep() {
  if (!hand) return;
  $("replay-table").replaceChildren(renderTable(hand.steps[step], () => true));
  $("step-count").textContent = "step " + step + " of " + (hand.steps.length - 1);
}

function moveStep(to) {
  if (!hand) return;
  step = Math.max(0, Math.min(hand.steps.length - 1, to));
  renderStep();
}

function moveHand(by) {
  if (!hand) return;
  const shown = filteredHands();
  const at = shown.findIndex((h) => h.index === hand.index);
  const next = shown[at + by];
  if (next) openHand(next.index);
}

// The cumulative result of the log's first player (by name), hand by hand; the open hand marked.
function drawPlot() {
  const canvas = $("replay-plot");
  const context = canvas.getContext("2d");
  context.clearRect(0, 0, canvas.width, canvas.height);
  if (!log || !log.hands.length) return;
  const who = log.hands[0].names[0];
  let total = 0;
  const points = log.hands.map((h) => { const p = h.names.indexOf(who); total += p >= 0 ? h.values[p] : 0; return total; });
  const low = Math.min(0, ...points), high = Math.max(0, ...points), span = high - low || 1;
  const x = (i) => 40 + (i / Math.max(1, points.length - 1)) * (canvas.width - 50);
  const y = (v) => 10 + (1 - (v - low) / span) * (canvas.height - 30);
  context.strokeStyle = "#999";
  context.beginPath(); context.moveTo(40, y(0)); context.lineTo(canvas.width - 10, y(0)); context.stroke();
  context.strokeStyle = "#1d3b2a";
  context.beginPath();
  points.forEach((v, i) => (i ? context.lineTo(x(i), y(v)) : context.moveTo(x(i), y(v))));
  context.stroke();
  if (hand) {
    context.fillStyle = "#c00";
    context.beginPath(); context.arc(x(hand.index), y(points[hand.index]), 4, 0, 2 * Math.PI); context.fill();
  }
  context.fillStyle = "#222";
  context.fillText(who + ": " + signed(total) + " chips over " + points.length + " hands", 45, canvas.height - 5);
}

async function openResult() {
  const id = $("results-file").value;
  const box = $("results");
  box.replaceChildren();
  if (!id) return;
  linkTo("result", id, "results");
  let result;
  try {
    result = await getJSON("/api/result?f=" + encodeURIComponent(id));
  } catch (error) {
    box.append(el("p", {}, error.message));
    return;
  }
  const data = result.data;
  if (data.crosstable) box.append(crosstable(data));
  else if (data.card) box.append(reportCard(data));
  else box.append(report(data));
  const folder = id.slice(0, id.lastIndexOf("/") + 1);
  $("results-images").replaceChildren(...files.images.filter((f) => f.id.startsWith(folder) && f.id.slice(folder.length).indexOf("/") < 0)
    .map((f) => el("img", { src: "/files/" + f.id, alt: f.name })));
}

function cell(value) {
  if (!value) return el("td", {}, "");
  const half = (value.ci95[1] - value.ci95[0]) / 2;
  return el("td", { class: value.mbb_per_hand > 0 ? "positive" : value.mbb_per_hand < 0 ? "negative" : "" },
    signed(value.mbb_per_hand) + " \u00b1" + half.toFixed(0));
}

function crosstable(data) {
  const names = data.entrants;
  return el("div", {},
    el("p", {}, data.estimate + "; " + data.game + ", seeds " + data.seeds.join(",") + ", " + data.hands + " hands a match"),
    el("table", { class: "results", id: "crosstable" },
      el("tr", {}, el("th", {}, ""), names.map((n) => el("th", {}, n)), el("th", {}, "average")),
      names.map((row) => el("tr", {}, el("th", {}, row), names.map((col) => (col === row ? el("td", {}, "") : cell(data.crosstable[row][col]))), cell(data.average[row])))));
}

// acpc-eval's report card: the bot's verdict against each reference, its average, LBR, and how its hands ended.
function reportCard(data) {
  const c = data.card;
  const lines = ["beats " + c.beats + " of " + c.references.length + " references (95% interval above 0; AIVAT where known, else duplicate)"];
  if (c.worst) lines.push("worst matchup: " + c.worst);
  if (c.lbr) lines.push("LBR lower bound on exploitability: " + signed(c.lbr.mbb_per_hand, 1) + " \u00b1" + c.lbr.ci95.toFixed(1) + " mbb/h");
  Object.entries(c.notes || {}).forEach(([what, why]) => lines.push((what === "lbr" ? "no LBR" : what === "aivat" ? "AIVAT" : what) + ": " + why));
  const main = (m) => (m.aivat && m.aivat.ci95 ? m.aivat : m.duplicate);
  return el("div", { id: "report-card" },
    el("p", {}, "report card of " + c.bot + " (" + c.spec + "), " + c.game + ", preset " + c.preset + ", seeds " + c.seeds.join(",") + ", " + c.hands + " hands a match"),
    lines.map((line) => el("p", {}, line)),
    el("table", { class: "results", id: "card-matchups" },
      el("tr", {}, ["reference", "mbb/h, 95% (AIVAT where known)", "duplicate", "verdict"].map((h) => el("th", {}, h))),
      Object.entries(data.matchups).map(([name, m]) => el("tr", {}, el("th", {}, name), cell(main(m)), cell(m.duplicate), el("td", {}, m.verdict))),
      el("tr", {}, el("th", {}, "average against the field"), el("td", {}, ""), cell(c.average), el("td", {}, ""))),
    el("table", { class: "results", id: "card-outcomes" },
      el("tr", {}, ["how the hand ended", "hands", "mbb/h of all hands"].map((h) => el("th", {}, h))),
      Object.entries(c.outcomes).map(([kind, o]) => el("tr", {}, el("th", {}, kind), el("td", {}, String(o.hands)), el("td", {}, signed(o.mbb_per_hand, 1))))));
}

// A match as the report names it (the name in its log's header), else its log's file name.
function matchName(m) {
  return m.name || String(m.log).split("/").pop().replace(/\.log$/, "");
}

// The actions the dealer played otherwise than a player sent them (acpc-match's changed_actions): invalid ones
// as a call, no-limit raises resized; a table of the players it happened to, none if it happened to none.
function changedActions(changed) {
  const rows = Object.entries(changed || {}).filter(([, c]) => c.invalid || c.fixed);
  if (!rows.length) return null;
  return el("table", { class: "results", id: "report-changed" },
    el("tr", {}, ["player", "invalid actions played as a call", "raises resized"].map((h) => el("th", {}, h))),
    rows.map(([name, c]) => el("tr", {}, el("td", {}, name), el("td", {}, String(c.invalid)), el("td", {}, String(c.fixed)))));
}

function report(data) {
  const rows = [
    ["duplicate", data.duplicate], ["per hand", data.per_hand],
    ["all-in adjusted duplicate", data.allin_adjusted_duplicate], ["all-in adjusted per hand", data.allin_adjusted_per_hand],
  ].filter(([, v]) => v);
  return el("div", {},
    el("p", {}, data.a + " against " + data.b + ", " + data.game + ", seeds " + data.seeds.join(",") + ", " + data.hands_played + " hands"),
    el("table", { class: "results", id: "report" },
      el("tr", {}, el("th", {}, "estimate"), el("th", {}, "mbb/h of " + data.a + ", 95%"), el("th", {}, "samples")),
      rows.map(([name, v]) => el("tr", {}, el("th", {}, name), cell(v), el("td", {}, v.samples)))),
    data.verdict ? el("p", { id: "report-verdict" }, "verdict: " + data.verdict) : null,
    changedActions(data.changed_actions),
    el("table", { class: "results", id: "report-matches" },
      el("tr", {}, ["match", "hands", "chips of A", "mbb/h of A", "status"].map((h) => el("th", {}, h))),
      (data.matches || []).map((m) => el("tr", {}, el("td", { class: "match-name" }, matchName(m)), el("td", {}, m.hands),
        el("td", {}, signed(m.chips_a)), el("td", {}, signed(m.mbb_per_hand_a)), el("td", {}, m.error || "finished")))));
}

// -- a person's seat ---------------------------------------------------------------------

let options = null;
let play = null;

async function loadOptions() {
  if (options) return;
  options = await getJSON("/api/options");
  if (!options.play) {
    $("play-start").disabled = true;
    $("play-message").textContent = "no seat here: these are a run's live pages (acpc-web serves a seat)";
    return;
  }
  $("play-agent").replaceChildren(...options.agents.map((a) => el("option", { value: a }, a)));
  $("play-game").replaceChildren(...options.games.map((g) => el("option", { value: g }, g)));
  $("play-agent").value = options.agents.includes("cfr") ? "cfr" : options.agents[0];
  if (sessionStorage.getItem(TOKEN_KEY)) pollPlay();
}

let polling = false;

async function startPlay() {
  $("play-message").textContent = "starting...";
  try {
    const started = await getJSON("/api/play", { method: "POST", body: JSON.stringify({
      agent: $("play-agent").value, game: $("play-game").value,
      hands: Number($("play-hands").value), seed: Number($("play-seed").value) }) });
    sessionStorage.setItem(TOKEN_KEY, started.token);
    play = null;
    pollPlay();
  } catch (error) {
    $("play-message").textContent = error.message;
  }
}

async function act(kind) {
  const legal = play && play.table && play.table.legal;
  if (!legal || !play.table.your_turn) { $("play-message").textContent = "it is not your turn"; return; }
  let action = kind;
  if (kind === "r") {
    if (!legal.can_raise) { $("play-message").textContent = "you cannot raise here"; return; }
    if (legal.no_limit) {
      const size = Number($("raise-size").value);
      if (!Number.isInteger(size) || size < legal.min_raise_to || size > legal.max_raise_to) {
        $("play-message").textContent = "raise to a whole number from " + legal.min_raise_to + " to " + legal.max_raise_to;
        return;
      }
      action = "r" + size;
    }
  }
  if (kind === "f" && !legal.can_fold) { $("play-message").textContent = "nothing to call: check instead"; return; }
  try {
    play = await getJSON("/api/play/act", { method: "POST", body: JSON.stringify({ action }) });
    renderPlay();
  } catch (error) {
    $("play-message").textContent = error.message;
  }
}

function renderPlay() {
  const box = $("play-table");
  if (!play || !play.table) { box.replaceChildren(); $("play-message").textContent = play ? play.message : ""; return; }
  const table = play.table;
  box.replaceChildren(renderTable(table, () => true));
  $("play-last").replaceChildren(play.last_hand ? renderTable(play.last_hand, () => true) : "");
  const legal = table.legal;
  const mine = table.your_turn && legal;
  $("act-fold").disabled = !mine || !legal.can_fold;
  $("act-call").disabled = !mine;
  $("act-raise").disabled = !mine || !legal.can_raise;
  $("act-call").textContent = mine && legal.to_call ? "call " + legal.to_call : "check";
  $("raise-size").hidden = !(mine && legal.no_limit && legal.can_raise);
  if (mine && legal.no_limit && legal.can_raise && !$("raise-size").value) $("raise-size").value = legal.min_raise_to;
  $("raise-size").min = mine && legal ? legal.min_raise_to : "";
  $("raise-size").max = mine && legal ? legal.max_raise_to : "";
  $("play-message").textContent = play.message || (table.your_turn ? "your turn" : table.finished ? "hand over" : "waiting for the bot");
  const total = play.results.reduce((a, b) => a + b, 0);
  $("play-results").textContent = play.results.length ? play.results.length + " hands, you " + signed(total) + " chips" : "";
}

async function pollPlay() {
  if (polling) return;
  polling = true;
  for (;;) {
    try {
      const state = await getJSON("/api/play");
      if (!play || state.version !== play.version) {
        const raise = $("raise-size").value;
        play = state;
        renderPlay();
        if (!play.table || !play.table.your_turn) $("raise-size").value = "";
        else $("raise-size").value = raise || $("raise-size").value;
      }
    } catch (error) {
      $("play-message").textContent = "not connected: " + error.message;
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

// -- wiring ------------------------------------------------------------------------------

window.addEventListener("hashchange", showPage);
$("replay-file").addEventListener("change", openLog);
$("replay-filter").addEventListener("change", () => { if (log) listHands(); });
$("hand-go").addEventListener("click", () => {
  const number = Number($("hand-jump").value);
  const found = log && log.hands.find((h) => h.hand === number);
  if (found) openHand(found.index); else $("replay-info").textContent = "no hand " + number + " in this log";
});
$("step-first").addEventListener("click", () => moveStep(0));
$("step-prev").addEventListener("click", () => moveStep(step - 1));
$("step-next").addEventListener("click", () => moveStep(step + 1));
$("step-last").addEventListener("click", () => moveStep(Infinity));
$("hand-prev").addEventListener("click", () => moveHand(-1));
$("hand-next").addEventListener("click", () => moveHand(1));
$("results-file").addEventListener("change", openResult);
$("play-start").addEventListener("click", startPlay);
$("act-fold").addEventListener("click", () => act("f"));
$("act-call").addEventListener("click", () => act("c"));
$("act-raise").addEventListener("click", () => act("r"));
startLive();
showPage();
