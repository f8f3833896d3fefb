// cardzoo card table: draws any game's seat view (see envs/seatview.py) with no per-game code.
// Routes (in the URL hash): #play=KEY (your seat), #watch=KEY (bots only), #replay=KEY.
// ?pace=MS sets the pause between bot moves shown one by one (default 450 ms; 0 = none).
"use strict";

const $ = (sel) => document.querySelector(sel);
const el = (tag, cls, text) => {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined && text !== null) e.textContent = text;
  return e;
};
const SUITS = "♠♣♦♥";
const RED = "♦♥";
const params = new URLSearchParams(location.search);
// the pause between bot moves: ?pace=MS wins, else the page's speed control (remembered)
const SPEEDS = [["slow", 900], ["normal", 450], ["fast", 150], ["instant", 0]];
const PACE_PARAM = params.get("pace");
const WATCH_PACE = 600;  // ms: how fast a bots-only match is played (the server's watch pace)
function storedPace() {
  try { return localStorage.getItem("cardzoo.pace"); } catch (e) { return null; }
}
let PACE = Math.max(0, Number(PACE_PARAM ?? storedPace() ?? 450)) || 0;
function setPace(ms) {
  PACE = Math.max(0, Number(ms)) || 0;
  try { localStorage.setItem("cardzoo.pace", String(PACE)); } catch (e) { /* private mode */ }
  document.body.dataset.pace = String(PACE);
}

// Sound is off unless the viewer turns it on (remembered): a chime when it becomes your turn,
// and the sound a log entry's banner names (Siantappo's squeal, static/squeal.wav).
const SOUNDS = { squeal: "/static/squeal.wav" };
function soundOn() {
  try { return localStorage.getItem("cardzoo.sound") === "1"; } catch (e) { return false; }
}
function playSound(name) {
  if (!soundOn()) return;
  document.body.dataset.sounds = String(Number(document.body.dataset.sounds || 0) + 1);
  document.body.dataset.lastSound = name;
  try {
    if (SOUNDS[name]) { new Audio(SOUNDS[name]).play().catch(() => {}); return; }
    const ctx = state.audio || (state.audio = new AudioContext());
    const osc = ctx.createOscillator(), gain = ctx.createGain();
    osc.frequency.value = 880;
    gain.gain.setValueAtTime(0.12, ctx.currentTime);
    gain.gain.exponentialRampToValueAtTime(0.001, ctx.currentTime + 0.3);
    osc.connect(gain).connect(ctx.destination);
    osc.start();
    osc.stop(ctx.currentTime + 0.3);
  } catch (e) { /* no audio here */ }
}

const state = {
  mode: "lobby",      // lobby | play | watch | replay
  key: null,
  ws: null,
  view: null,         // the view on screen
  queue: [],          // views received, not yet shown
  selection: new Set(),
  showAll: false,
  busy: false,        // a move was sent, no answer yet
  skip: false,        // "skip to the end": show the rest of the match at once
  overlays: [],       // summaries waiting for the open one's Continue
  seenSummary: null,  // summary key already shown
  lastMine: 0,        // log number of the viewer's last move
  hint: null,         // the last hint received (it belongs to the table of its version)
  replay: null,       // {key, move, moves, seat, timer}
  bannerSeen: null,   // log number of the last entry whose banner was shown
  felt: null,         // {version, cards}: what lay on the table last time it changed
  showLast: false,    // the look at the last trick / capture is open
  catalog: null,
  invites: [],
};

// ------------------------------------------------------------------ cards
function cardParts(text) {
  if (text === "Jk" || text.startsWith("Jk")) return { rank: "Jk", suit: "★", red: false, joker: true };
  const suit = text.slice(-1);
  return { rank: text.slice(0, -1), suit, red: RED.includes(suit), joker: false };
}

function cardEl(text, opts = {}) {
  const p = cardParts(text);
  const c = el("div", "card" + (p.red ? " red" : "") + (p.joker ? " joker" : "") + (opts.small ? " small" : ""));
  c.append(el("span", "rank", p.rank), el("span", "suit-small", p.suit), el("span", "suit", p.suit));
  c.title = text;
  if (opts.mark === "wild") c.classList.add("wild");
  return c;
}

// The pig, drawn (an emoji font is not everywhere: without one 🐷 is an empty box).
const PIG_SVG = '<svg viewBox="0 0 32 28" width="1.15em" height="1em" aria-hidden="true">' +
  '<path d="M6 9 3 2l8 4zM26 9l3-7-8 4z" fill="#e87fa0"/><ellipse cx="16" cy="15" rx="12" ry="11" fill="#f6a5be"/>' +
  '<ellipse cx="16" cy="19" rx="6" ry="4.2" fill="#e87fa0"/><circle cx="13.7" cy="19" r="1.3" fill="#8a3350"/>' +
  '<circle cx="18.3" cy="19" r="1.3" fill="#8a3350"/><circle cx="10.5" cy="11.5" r="1.6" fill="#222"/>' +
  '<circle cx="21.5" cy="11.5" r="1.6" fill="#222"/></svg>';
function pigEl() {
  const p = el("span", "pig");
  p.setAttribute("role", "img");
  p.setAttribute("aria-label", "pig");
  p.innerHTML = PIG_SVG;  // a constant: no text from the server
  return p;
}

// Text with every card token coloured (7♥ red, J♠ black) and the pig drawn.
function cardText(text, parent) {
  const re = /(10|[2-9AJQK])([♠♣♦♥])|🐷/gu;
  let pos = 0, m;
  while ((m = re.exec(text)) !== null) {
    if (m.index > pos) parent.append(document.createTextNode(text.slice(pos, m.index)));
    parent.append(m[0] === "🐷" ? pigEl() : el("span", RED.includes(m[2]) ? "red" : "blk", m[0]));
    pos = m.index + m[0].length;
  }
  if (pos < text.length) parent.append(document.createTextNode(text.slice(pos)));
  return parent;
}

// ------------------------------------------------------------------ moves vs selection
function moveThings(m) {
  return m.choose ? m.choose.flatMap(([ids]) => ids) : m.cards;
}

// The selection plays exactly this move.
function exactMatch(m, sel) {
  if (!m.cards.length) return false;
  if (m.choose) {
    const all = new Set(moveThings(m));
    for (const id of sel) if (!all.has(id)) return false;
    return m.choose.every(([ids, count]) => ids.filter((id) => sel.has(id)).length === count);
  }
  return m.cards.length === sel.size && m.cards.every((id) => sel.has(id));
}

// The cards a move puts down for the selection: where the player chooses them (the view's
// `exact`: Siantappo's suits under the top card) the selected ones, each group filled up with its
// lowest cards; null where the move's own cards go (nothing selected, or no such choice).
function chosenCards(m, sel) {
  if (!m.exact || !m.choose || !sel.size || !state.view) return null;
  const out = [];
  for (const [ids, count] of m.choose) {
    const picked = ids.filter((id) => sel.has(id)).slice(0, count);
    for (const id of ids) if (picked.length < count && !picked.includes(id)) picked.push(id);
    out.push(...picked);
  }
  const order = state.view.hand.cards.map((c) => c.id);
  out.sort((a, b) => order.indexOf(a) - order.indexOf(b));
  return out.join(" ") === m.cards.join(" ") ? null : out;
}

// The selection could grow into this move.
function partialMatch(m, sel) {
  if (!m.cards.length || !sel.size) return false;
  if (m.choose) {
    const all = new Set(moveThings(m));
    for (const id of sel) if (!all.has(id)) return false;
    return m.choose.every(([ids, count]) => ids.filter((id) => sel.has(id)).length <= count);
  }
  const cards = new Set(m.cards);
  for (const id of sel) if (!cards.has(id)) return false;
  return true;
}

// ------------------------------------------------------------------ lobby
async function showLobby() {
  setMode("lobby");
  $("#headline").textContent = "";
  if (!state.catalog) {
    const r = await fetch("/api/catalog");
    state.catalog = await r.json();
    const sel = $("#game");
    for (const g of state.catalog.games) sel.append(new Option(g.title, g.name));
    sel.addEventListener("change", () => fillGame(true));
    $("#players").addEventListener("change", () => fillSeats());
    fillGame(true);
  }
}

function currentGame() {
  return state.catalog.games.find((g) => g.name === $("#game").value);
}

function fillGame() {
  const g = currentGame();
  const players = $("#players");
  players.replaceChildren(...g.players.map((n) => new Option(String(n), String(n), false, n === g.default_players)));
  fillSeats();
  // each rule option by its player's name, with a line of help; choices as a menu; the settings
  // that matter only to training (and match-length guards) under "Advanced"
  const box = $("#options"), advanced = $("#advanced-options");
  box.replaceChildren();
  advanced.replaceChildren();
  for (const o of g.options) (o.advanced ? advanced : box).append(optionEl(o));
  $("#advanced").hidden = !advanced.childElementCount;
}

function optionEl(o) {
  const wrap = el("div", "option");
  const name = "opt-" + o.name;
  let input;
  if (o.kind === "bool") {
    input = el("input");
    input.type = "checkbox";
    input.checked = !!o.default;
    input.dataset.default = String(!!o.default);
  } else if (o.choices) {
    input = el("select");
    for (const [value, words] of o.choices) input.append(new Option(words, String(value)));
    input.value = String(o.default);
    input.dataset.default = input.value;
  } else {
    input = el("input");
    input.type = o.kind === "int" ? "number" : "text";
    if (o.min !== undefined) { input.min = String(o.min); input.max = String(o.max); }  // the server's limits
    input.value = Array.isArray(o.default) ? JSON.stringify(o.default) : String(o.default);
    input.dataset.default = input.value;
  }
  input.name = name;
  input.id = name;
  const lab = el("label", o.kind === "bool" ? "bool" : null);
  lab.htmlFor = name;
  if (o.kind === "bool") lab.append(input, document.createTextNode(" " + o.label));
  else lab.append(document.createTextNode(o.label), input);
  wrap.append(lab);
  if (o.help) wrap.append(el("small", "help", o.help));
  return wrap;
}

function fillSeats() {
  const n = Number($("#players").value);
  const box = $("#seats");
  const g = currentGame();
  const agents = [...g.agents, ...g.named_models.filter((m) => m.players.includes(n) && !g.agents.includes(m.name)).map((m) => m.name)];
  $("#models").textContent = g.model_players.includes(n)
    ? `A trained model is offered for ${g.title} with ${n} players: seat kind "model", or "expert" (the model searching sampled deals, ~0.1 s a move).`
    : `No trained model is offered for ${g.title} with ${n} players${state.catalog.models.length ? ` (offered: ${state.catalog.models.join(", ")})` : ""}; start the server with cardzoo --models DIR serve to offer your own.`;
  const old = [...box.querySelectorAll(".seat-choice")].map((d) => seatSpec(d));
  box.replaceChildren();
  for (let s = 0; s < n; s++) {
    const wrap = el("div", "seat-choice");
    wrap.append(el("span", null, `player_${s}`));
    const sel = el("select");
    sel.name = `seat-${s}`;
    const levels = g.levels || state.catalog.levels || {};  // difficulty: easy rules, medium model, hard expert
    for (const a of agents) sel.append(new Option(seatWords(g, n, a, levels), a));
    sel.append(new Option("other…", "other"));
    const input = el("input");
    input.type = "text";
    input.placeholder = "rules@7 or a model's name@3";
    input.name = `seat-${s}-spec`;
    const prev = old[s] ?? (s === 0 ? "human" : "rules");
    if (agents.includes(prev)) sel.value = prev;
    else { sel.value = "other"; input.value = prev; wrap.classList.add("custom"); }
    sel.addEventListener("change", () => wrap.classList.toggle("custom", sel.value === "other"));
    wrap.append(sel, input);
    box.append(wrap);
  }
}

// A seat kind in the menu: its difficulty, and for a model named by its file, what it is (the one
// "model" plays here, or another trained model).
function seatWords(g, n, kind, levels) {
  if (levels[kind]) return `${kind} (${levels[kind]})`;
  if (g.agents.includes(kind)) return kind;
  const plays = (g.model_plays || {})[String(n)];
  return plays === kind ? `${kind}: the model file "model" plays` : `${kind}: another trained model file`;
}

function seatSpec(wrap) {
  const sel = wrap.querySelector("select");
  return sel.value === "other" ? wrap.querySelector("input").value.trim() : sel.value;
}

async function startGame(ev) {
  ev.preventDefault();
  const err = $("#form-error");
  err.textContent = "";
  const seats = [...document.querySelectorAll("#seats .seat-choice")].map(seatSpec);
  const options = {};
  for (const input of document.querySelectorAll("#options input, #options select, #advanced-options input, #advanced-options select")) {
    const name = input.name.slice(4);
    const value = input.type === "checkbox" ? String(input.checked) : input.value.trim();
    if (value !== input.dataset.default) options[name] = value;
  }
  const seedText = $("#seed").value.trim();
  const body = { game: $("#game").value, seats, options, seed: seedText === "" ? null : seedText };  // as text: a 63-bit seed keeps every digit
  $("#deal").disabled = true;
  err.classList.add("pending");
  err.textContent = seats.some((s) => s !== "human" && s !== "rules" && s !== "random")
    ? "Dealing… loading a model takes a few seconds." : "Dealing…";
  try {
    const r = await fetch("/api/games", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
    const data = await r.json();
    err.classList.remove("pending");
    if (!r.ok) { err.textContent = data.error || `error ${r.status}`; return; }
    err.textContent = "";
    state.invites = data.invites || [];
    location.hash = data.you ? `play=${data.you.key}` : `watch=${data.watch}`;
  } catch (e) {
    err.classList.remove("pending");
    err.textContent = "cannot reach the server: " + e;
  } finally {
    $("#deal").disabled = false;
  }
}

async function openReplay(ev) {
  ev.preventDefault();
  const err = $("#replay-error");
  err.textContent = "";
  const file = $("#replay-file").files[0];
  if (!file) { err.textContent = "choose a .jsonl record file"; return; }
  const text = await file.text();
  const r = await fetch("/api/replays", {
    method: "POST", headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ text, game: Number($("#replay-index").value) || 1 }),
  });
  const data = await r.json();
  if (!r.ok) { err.textContent = data.error || `error ${r.status}`; return; }
  location.hash = `replay=${data.key}`;
}

// ------------------------------------------------------------------ live play / watch
function connect(key, attempt = 0) {
  if (state.ws) state.ws.close();
  const ws = new WebSocket(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws/${key}`);
  state.ws = ws;
  let gone = false;  // the server no longer knows this game: do not retry
  setConn(attempt ? "reconnecting…" : "connecting…", "");
  ws.onopen = () => { attempt = 0; setConn("connected", "live"); };
  ws.onclose = () => {
    if (state.ws !== ws) return;  // closed on purpose (another game opened)
    if (gone || attempt >= 5) { setConn("disconnected — reload to try again", "lost"); return; }
    setConn("reconnecting…", "lost");
    setTimeout(() => { if (state.ws === ws) connect(key, attempt + 1); }, 1000 * 2 ** attempt);
  };
  ws.onmessage = (ev) => {
    const msg = JSON.parse(ev.data);
    if (msg.type === "state") {
      state.queue.push(msg.view);
      pump();
    } else if (msg.type === "hint") {
      if (state.view && msg.version === state.view.version) {
        state.hint = msg;
        render(state.view);  // the hinted move's cards are marked in the hand and on the table
      }
    } else if (msg.type === "why") {
      if (state.view && msg.version === state.view.version) {
        state.why = msg;
        renderMoves(state.view);
      }
    } else if (msg.type === "rematch") {
      state.invites = msg.invites || [];
      hideOverlay();
      location.hash = msg.you ? `play=${msg.you.key}` : `watch=${msg.watch}`;
    } else if (msg.type === "error") {
      if (/unknown or expired|was closed/.test(msg.message)) gone = true;
      state.busy = false;
      toast(msg.message);
      if (state.view) render(state.view);
    }
  };
}

// Views are shown one at a time: a bot's move waits until `PACE` ms after the previous table
// went up, whether or not it was already queued; the viewer's own moves and catching up go fast.
let pumping = false;
let lastShown = 0;  // performance.now() when the last table went up
async function pump() {
  if (pumping) return;
  pumping = true;
  try {
    while (state.queue.length) {
      const v = state.queue[0];
      const before = state.view;
      const last = v.log.length ? v.log[v.log.length - 1] : null;
      // one more move in the log (an undo gives a new version too, but a shorter log)
      const lastBefore = before && before.log.length ? before.log[before.log.length - 1].n : 0;
      const botMove = before && last && v.version === before.version + 1 && last.n === lastBefore + 1
        && (state.mode !== "play" || last.seat !== v.seat);
      // knocked out, the rest of the match goes on at the watching pace (or skipped to the end)
      const pace = state.skip ? 0 : before && before.knocked_out && PACE ? Math.max(PACE, WATCH_PACE) : PACE;
      const wait = botMove && pace > 0 ? lastShown + pace - performance.now() : 0;
      if (wait > 0) { document.body.dataset.queue = String(state.queue.length); await sleep(wait); continue; }
      state.queue.shift();
      document.body.dataset.queue = String(state.queue.length);
      state.busy = false;
      render(v);
      lastShown = performance.now();
    }
  } finally {
    pumping = false;
    document.body.dataset.queue = "0";
  }
}

function sendMove(m, cards) {
  if (!state.view || state.busy || state.mode !== "play") return;
  state.busy = true;
  document.body.dataset.busy = "1";
  const msg = { type: "move", ids: m.ids, version: state.view.version };
  if (cards) msg.cards = cards;  // the selected cards go down, not the move's lowest ones
  state.ws.send(JSON.stringify(msg));
  state.selection.clear();
  state.showAll = false;
  renderMoves(state.view);
}

// ------------------------------------------------------------------ replay
async function loadReplay(move, seat) {
  const rp = state.replay;
  const r = await fetch(`/api/replays/${rp.key}?move=${move}&seat=${seat}`);
  const data = await r.json();
  if (!r.ok) { toast(data.error || `error ${r.status}`); stopReplay(); return; }
  rp.move = data.replay.move;
  rp.moves = data.replay.moves;
  rp.seat = data.seat;
  render(data);
}

function stopReplay() {
  const rp = state.replay;
  if (rp && rp.timer) { clearInterval(rp.timer); rp.timer = null; }
  $("#replay-play").textContent = "play";
}

function replayStep(what) {
  const rp = state.replay;
  if (!rp) return;
  const to = { first: 0, prev: rp.move - 1, next: rp.move + 1, last: rp.moves }[what];
  if (what === "play") {
    if (rp.timer) { stopReplay(); return; }
    $("#replay-play").textContent = "pause";
    rp.timer = setInterval(() => {
      if (rp.move >= rp.moves) { stopReplay(); return; }
      loadReplay(rp.move + 1, rp.seat);
    }, Math.max(PACE, 250) * 2);
    return;
  }
  stopReplay();
  loadReplay(Math.max(0, Math.min(rp.moves, to)), rp.seat);
}

// ------------------------------------------------------------------ drawing
function render(v) {
  const before = state.view;
  state.view = v;
  document.body.dataset.busy = state.busy ? "1" : "0";
  document.body.dataset.turn = v.over ? "over" : v.your_turn && state.mode === "play" ? "you" : "other";
  document.body.dataset.version = String(v.version);
  const mine = v.log.filter((e) => e.seat === v.seat);
  if (mine.length) state.lastMine = mine[mine.length - 1].n;
  // selections survive only while the cards are still there
  const present = new Set([...v.hand.cards.map((c) => c.id), ...v.table.flatMap((z) => z.items.map((i) => i.id).filter(Boolean))]);
  for (const id of [...state.selection]) if (!present.has(id)) state.selection.delete(id);

  document.title = `${v.your_turn && state.mode === "play" ? "▶ your move · " : ""}${v.title} · cardzoo`;
  announce(v, before);
  renderInfo(v);
  renderOpponents(v);
  renderFelt(v);
  renderMe(v);
  renderMoves(v);
  renderSkip(v);
  renderLog(v);
  renderScores(v);
  renderRules(v.game);
  renderReplayBar(v);
  if (state.skip === "round" && v.sitting_out !== "round") state.skip = false;  // the round is over: its summary shows
  maybeOverlay(v);
}

// What the viewer should notice: your turn (the title says it; a chime with sound on), and the
// banner of each new log entry (Siantappo's squeal, a Suipi sweep), shown big for a moment.
function announce(v, before) {
  if (state.mode === "replay") return;
  if (v.your_turn && state.mode === "play" && !(before && before.your_turn)) playSound("turn");
  const last = v.log.length ? v.log[v.log.length - 1].n : 0;
  if (state.bannerSeen === null) { state.bannerSeen = last; return; }  // not the ones before a reload
  for (const e of v.log) {
    if (e.n <= state.bannerSeen || !e.banner) continue;
    showBanner(e.banner.text);
    if (e.banner.sound) playSound(e.banner.sound);
  }
  state.bannerSeen = Math.max(state.bannerSeen, last);
}

let bannerTimer = null;
function showBanner(text) {
  const b = $("#banner");
  b.replaceChildren();
  cardText(text, b);
  b.hidden = false;
  clearTimeout(bannerTimer);
  bannerTimer = setTimeout(() => { b.hidden = true; }, 2600);
}

function kindOf(v, seat) {
  const s = v.seats.find((x) => x.seat === seat);
  return s ? s.kind : "";
}

function renderInfo(v) {
  const box = $("#info");
  box.replaceChildren(el("span", "title", v.title), el("span", "chip", v.status));
  for (const [label, value] of v.facts) {
    const c = el("span", "chip", label + " ");
    c.append(el("b", null, value));
    box.append(c);
  }
  if (v.seed !== undefined && v.seed !== null) box.append(el("span", "chip", `seed ${v.seed}`));
  const inv = $("#invites");
  if (state.invites.length && state.mode === "play") {
    inv.hidden = false;
    inv.replaceChildren(el("div", null, "Send each other player their own link (it lets them play only their seat):"));
    for (const i of state.invites) {
      const input = el("input");
      input.readOnly = true;
      input.value = `${location.origin}/#play=${i.key}`;
      const row = el("label", null, `player_${i.seat}`);
      row.append(input);
      inv.append(row);
    }
  } else inv.hidden = true;
}

function seatBox(v, p) {
  const box = el("div", "seat");
  if (p.seat === v.turn) box.classList.add("turn");
  if (p.out) box.classList.add("out");
  box.dataset.seat = String(p.seat);
  const name = el("div", "name", p.name);
  const kind = kindOf(v, p.seat);
  if (kind && p.seat !== v.seat) name.append(el("span", "kind", kind));
  if (p.team) name.append(el("span", "team", `side ${p.team}`));
  box.append(name);
  const backs = el("div", "backs");
  if (Array.isArray(p.hand)) {  // a replay shows every hand, face up (the record holds every deal)
    backs.classList.add("open-hand");
    for (const c of p.hand) backs.append(cardEl(c, { small: true }));
  } else {
    for (let i = 0; i < Math.min(p.cards, 13); i++) backs.append(el("span", "back"));
  }
  backs.append(el("span", "count", p.cards ? `${p.cards}` : "no cards"));
  if (p.seat !== v.seat) box.append(backs);
  box.append(el("div", "status", p.status || ""));
  const facts = el("div", "facts");
  for (const [label, value] of p.facts) {
    const f = el("span", null, label + " ");
    cardText(value, f.appendChild(el("b")));
    facts.append(f);
  }
  box.append(facts);
  return box;
}

// The others sit around the table as at a card table: in play order after the viewer, the next
// on the left (on the right where play goes anticlockwise, Sam Sip), the last on the other side,
// the rest across (one across with two players). A phone seats them in one row above the table.
function renderOpponents(v) {
  const box = $("#opponents");
  const n = v.players.length;
  const others = [];
  for (let k = 1; k < n; k++) others.push(v.players[(v.seat + k) % n]);
  if (v.direction === "anticlockwise") others.reverse();  // seen from the viewer: left to right
  const left = others.length >= 2 ? others.slice(0, 1) : [];
  const right = others.length >= 2 ? others.slice(-1) : [];
  const across = others.slice(left.length, others.length - right.length);
  const side = (cls, seats) => {
    const wrap = el("div", "seats " + cls);
    for (const p of seats) wrap.append(seatBox(v, p));
    return wrap;
  };
  box.replaceChildren(side("at-left", left), side("at-across", across), side("at-right", right));
}

function toggleSelect(id) {
  if (!state.view || !(state.mode === "play" && state.view.your_turn)) return;
  if (state.selection.has(id)) state.selection.delete(id); else state.selection.add(id);
  state.showAll = false;
  render(state.view);
}

// Cards that came onto the table since it last changed arrive (class "fresh"); when cards left
// it (a capture, a trick won) the felt glows ("taken"). CSS animates both unless the viewer
// prefers reduced motion.
function feltChanges(v) {
  const now = new Set(v.table.flatMap((z) => z.items.flatMap((i) => i.cards)));
  const was = state.felt;
  if (was && was.version === v.version) return { fresh: new Set(), taken: false };  // redrawn, not changed
  const fresh = was ? new Set([...now].filter((c) => !was.cards.has(c))) : new Set();
  const taken = !!was && v.version === was.version + 1 && [...was.cards].some((c) => !now.has(c));
  state.felt = { version: v.version, cards: now };
  return { fresh, taken };
}

function renderFelt(v) {
  const box = $("#felt");
  box.replaceChildren();
  const { fresh, taken } = feltChanges(v);
  box.classList.remove("taken");
  if (taken) { void box.offsetWidth; box.classList.add("taken"); }
  for (const zone of v.table) box.append(zoneEl(zone, fresh));
  renderLastLook(v, box);
  travelFrom(v, box);
}

// A card just played travels to the table from the seat that played it (CSS animates it from
// --from-x/--from-y; with reduced motion nothing moves): the seat of the newest log entry, or for
// your own card the place it had in your hand (the hand is drawn again after the felt).
function travelFrom(v, box) {
  const last = v.log.length ? v.log[v.log.length - 1] : null;
  if (!last) return;
  const seat = last.seat === v.seat ? $("#hand") : document.querySelector(`#opponents .seat[data-seat="${last.seat}"]`);
  if (!seat) return;
  for (const card of box.querySelectorAll(".card.fresh")) {
    const own = last.seat === v.seat ? seat.querySelector(`.card[data-id="${CSS.escape(card.title)}"]`) : null;
    const a = (own || seat).getBoundingClientRect();
    // measured where it lands, not where the animation's first frame has already moved it (that
    // put it 22px off its seat); the animation then starts again, from the seat
    card.classList.remove("fresh");
    const b = card.getBoundingClientRect();
    card.style.setProperty("--from-x", `${Math.round(a.left + a.width / 2 - (b.left + b.width / 2))}px`);
    card.style.setProperty("--from-y", `${Math.round(a.top + a.height / 2 - (b.top + b.height / 2))}px`);
    card.classList.add("fresh");
  }
}

// A look back at the last trick (Siantappo) or capture (Suipi): the view's "last" zone, shown
// on the felt while its button is pressed.
function renderLastLook(v, box) {
  if (!v.last || !v.last.items.length) return;
  const label = v.last.label.toLowerCase();
  const b = button(state.showLast ? `Hide the ${label}` : `Look at the ${label}`, () => {
    state.showLast = !state.showLast;
    renderFelt(state.view);
  }, "last-button");
  b.id = "last-look";
  b.setAttribute("aria-pressed", state.showLast ? "true" : "false");
  box.append(b);
  if (state.showLast) {
    const z = zoneEl(v.last, new Set());
    z.classList.add("last-look");
    box.append(z);
  }
}

function zoneEl(zone, fresh) {
  const z = el("div", "zone");
  z.append(el("div", "label", zone.label));
  const items = el("div", "items");
  for (const it of zone.items) {
    const item = el("div", "item");
    if (it.cards.length > 1 && it.id && it.id.startsWith("build:")) item.classList.add("build");
    const cards = el("div", "cards");
    // a locked build's groups (each worth its value) are set apart, so 2+7 | 9 never reads as 18
    const groups = it.groups || [it.cards];
    groups.forEach((g, i) => {
      if (i) cards.append(el("span", "group-gap", "|"));
      for (const c of g) {
        const card = cardEl(c);
        if (fresh.has(c)) card.classList.add("fresh");
        cards.append(card);
      }
    });
    item.append(cards);
    if (it.caption) item.append(el("div", "caption", it.caption));
    if (it.id) {
      item.dataset.id = it.id;
      item.classList.add("selectable");
      if (state.selection.has(it.id)) item.classList.add("selected");
      if (state.view && hintedThings(state.view).has(it.id)) item.classList.add("hinted");
      item.addEventListener("click", () => toggleSelect(it.id));
    }
    items.append(item);
  }
  z.append(items);
  return z;
}

function renderMe(v) {
  const me = v.players.find((p) => p.seat === v.seat);
  const seat = $("#my-seat");
  seat.replaceChildren();
  if (me) {
    const name = el("span", "name", state.mode === "play" ? `You (player_${v.seat})` : `player_${v.seat} (${kindOf(v, v.seat)})`);
    seat.append(name);
    if (me.team) seat.append(el("span", "chip", `side ${me.team}`));
    if (me.status) seat.append(el("span", "chip", me.status));
    for (const [label, value] of me.facts) {
      const f = el("span", "chip", label + " ");
      cardText(value, f.appendChild(el("b")));
      seat.append(f);
    }
    if (v.turn === v.seat && !v.your_turn) seat.append(el("span", "chip", "▶ to move"));
  }
  $("#prompt").textContent = state.mode === "replay" ? replayPrompt(v) : v.prompt;
  $("#notes").replaceChildren(...v.notes.map((n) => cardText(n, el("div"))));
  const hand = $("#hand");
  hand.replaceChildren();
  const playable = new Set(v.moves.flatMap(moveThings));
  const hinted = hintedThings(v);
  let prevRank = null;
  for (const c of v.hand.cards) {
    const rank = cardParts(c.card).rank;
    if (prevRank !== null && rank !== prevRank) hand.append(el("span", "gap"));
    prevRank = rank;
    const card = cardEl(c.card, { mark: c.mark });
    card.dataset.id = c.id;
    if (state.selection.has(c.id)) card.classList.add("selected");
    if (hinted.has(c.id)) card.classList.add("hinted");
    if (v.your_turn && playable.has(c.id)) card.classList.add("playable");
    card.addEventListener("click", () => toggleSelect(c.id));
    card.addEventListener("dblclick", () => {
      const only = v.moves.filter((m) => exactMatch(m, new Set([c.id])));
      if (only.length === 1) sendMove(only[0], chosenCards(only[0], new Set([c.id])));
    });
    hand.append(card);
  }
  hand.setAttribute("aria-label", v.hand.label);
}

function replayPrompt(v) {
  const r = v.replay;
  if (r.move >= r.moves) return `End of the record (${r.moves} moves).`;
  return `Move ${r.move} of ${r.moves} — next: player_${r.next_seat}`;
}

// A move's button says which cards go: the selected ones where the player chooses them.
function moveButton(m, cls) {
  const hinted = hintFor(m);
  const b = el("button", "move " + cls + (hinted === 0 ? " hinted" : ""));
  b.type = "button";
  const cards = chosenCards(m, state.selection);
  cardText(cards ? cards.join(" ") : m.text, b);
  b.dataset.ids = m.ids.join(",");
  b.disabled = state.busy;
  b.addEventListener("click", () => sendMove(m, cards));
  return b;
}

function renderMoves(v) {
  const box = $("#moves");
  box.replaceChildren();
  $("#hint-line").hidden = true;
  if (state.mode !== "play" || !v.your_turn) return;
  const sel = state.selection;
  const cardless = v.moves.filter((m) => !m.cards.length);
  const carded = v.moves.filter((m) => m.cards.length);
  let shown = [];
  if (sel.size) {
    const exact = carded.filter((m) => exactMatch(m, sel));
    const partial = carded.filter((m) => !exact.includes(m) && partialMatch(m, sel));
    shown = exact.map((m) => moveButton(m, "exact")).concat(partial.slice(0, 24).map((m) => moveButton(m, "")));
    if (!shown.length) box.append(whyNot(v, sel));
    const clear = el("button", "", "Clear");
    clear.type = "button";
    clear.addEventListener("click", () => { state.selection.clear(); render(state.view); });
    shown.push(clear);
  } else if (carded.length <= 10 || state.showAll) {
    shown = carded.map((m) => moveButton(m, ""));
  } else if (carded.length) {
    box.append(el("p", "hint", `Select cards to see the moves that use them (${carded.length} moves).`));
    const all = el("button", "", "Show all");
    all.type = "button";
    all.addEventListener("click", () => { state.showAll = true; renderMoves(state.view); });
    shown.push(all);
  }
  box.append(...shown, ...cardless.map((m) => moveButton(m, "cardless")));
  renderHint(v, box);
  if (v.can_undo || v.undo_stop) {
    const b = button("Undo", () => {
      state.busy = true;
      document.body.dataset.busy = "1";
      state.ws.send(JSON.stringify({ type: "undo" }));
    }, "undo-button");
    b.id = "undo";
    // undo never reveals information: it stops at a move that showed you hidden cards
    b.disabled = !v.can_undo;
    b.title = v.undo_stop || "Take back your last move and the bot moves after it";
    box.append(b);
  }
}

// No legal move uses the selection: the server says why, naming the rule (the terminal's words).
function whyNot(v, sel) {
  const cards = [...sel];
  const p = el("p", "hint why", "No legal move uses these cards.");
  p.id = "why";
  const w = state.why;
  if (w && w.version === v.version && w.cards.join(",") === cards.join(",")) {
    p.textContent = "";
    cardText(w.reason, p);
  } else if (state.ws && state.ws.readyState === 1 && state.whyAsked !== `${v.version}:${cards}`) {
    state.whyAsked = `${v.version}:${cards}`;  // asked once per selection and table
    state.ws.send(JSON.stringify({ type: "why", cards, version: v.version }));
  }
  return p;
}

// Hint: what the game's model would play here (asked of the server, from this seat's information).
// An entry is one move, or several the rules treat alike (its "alike": Suipi's 4♦ and 4♣), one label.
function hintFor(m) {
  const h = state.hint;
  if (!h || !state.view || h.version !== state.view.version) return -1;
  const key = m.ids.join(",");
  return h.moves.findIndex((x) => [x, ...(x.alike || [])].some((y) => y.ids.join(",") === key));
}

// An entry's words: `4♦ drop or 4♣ drop (alike)`.
function hintWords(m, parent) {
  cardText(m.text, parent);
  for (const other of m.alike || []) { parent.append(" or "); cardText(other.text, parent); }
  if ((m.alike || []).length) parent.append(" (alike)");
}

// The hint's words go under the move buttons, on a line of their own (the buttons keep their room);
// the cards of the model's best move (and of those alike) are marked where they lie: `hintedThings`.
function renderHint(v, box) {
  const h = state.hint && state.hint.version === v.version ? state.hint : null;
  const line = $("#hint-line");
  line.replaceChildren();
  line.hidden = !h || state.mode !== "play" || !v.your_turn;
  if (!h) {
    const b = button("Hint", () => {
      state.ws.send(JSON.stringify({ type: "hint", version: v.version }));
      b.disabled = true;
      b.textContent = "Hint…";
    }, "hint-button");
    b.title = "What the trained model would play here";
    box.append(b);
    return;
  }
  line.append(el("b", "", "Hint: "), "the model would play ");
  hintWords(h.moves[0], line);
  line.append(" — its best");
  if (h.moves.length > 1) {
    line.append(el("br"), "then: ");
    h.moves.slice(1).forEach((m, i) => { if (i) line.append("; "); hintWords(m, line); line.append(` (${m.label})`); });
  }
  line.append(el("br"), el("small", "", `(${h.note})`));
}

function hintedThings(v) {
  const h = state.hint;
  if (!h || h.version !== v.version || state.mode !== "play" || !v.your_turn) return new Set();
  // the best entry's cards: every move of it where the rules treat several alike
  const best = [h.moves[0], ...(h.moves[0].alike || [])].map((x) => x.ids.join(","));
  return new Set(v.moves.filter((m) => best.includes(m.ids.join(","))).flatMap((m) => m.cards));
}

// Out (of the round: Siantappo, gone out; of the match: Sam Sip, knocked out): the others play on,
// unless the viewer skips to the end of the round (its summary then opens) or of the match.
function renderSkip(v) {
  const box = $("#moves");
  if (state.mode !== "play" || !v.sitting_out || v.over || state.skip) return;
  const round = v.sitting_out === "round";
  box.append(el("p", "hint", round ? "You are out of this round: the others play it on." : "You are out: the others play on."));
  const b = button(round ? "Skip to the end of the round" : "Skip to the end", () => {
    state.skip = v.sitting_out;
    state.overlays = [];
    hideOverlay();
    render(state.view);
    pump();
  }, "");
  b.id = "skip";
  box.append(b);
}

function renderLog(v) {
  const box = $("#log");
  box.replaceChildren();
  for (const e of v.log) {
    const li = el("li");
    if (e.seat === v.seat) li.classList.add("mine");
    else if (e.n > state.lastMine && state.mode === "play") li.classList.add("new");
    li.append(el("span", "who", (e.seat === v.seat && state.mode === "play" ? "you" : `player_${e.seat}`) + ": "));
    cardText(e.text, li);
    box.append(li);
  }
  box.scrollTop = box.scrollHeight;
}

// A table wider than WIDE_COLUMNS columns is drawn turned (its columns become rows) when that
// makes it narrower, so a score table fits the side column and a phone (Suipi's has 8 columns).
const WIDE_COLUMNS = 5;
function fitTable(columns, rows) {
  if (columns.length <= WIDE_COLUMNS || rows.length + 1 >= columns.length) return [columns, rows];
  const turned = columns.slice(1).map((c, i) => [c, ...rows.map((r) => r[i + 1])]);
  return [[columns[0], ...rows.map((r) => r[0])], turned];
}

function tableEl(allColumns, allRows) {
  const [columns, rows] = fitTable(allColumns, allRows);
  const t = el("table");
  if (columns.length) {
    const tr = el("tr");
    for (const c of columns) tr.append(el("th", null, c));
    t.append(tr);
  }
  for (const row of rows) {
    const tr = el("tr");
    for (const c of row) tr.append(cardText(String(c), el("td")));
    t.append(tr);
  }
  return t;
}

// The game's rules in a few lines (the catalog's "rules" text: a paragraph, then "- " points,
// "  * " sub-points, indented lines continuing the one above), in the side column's Rules panel.
function rulesEls(text) {
  const intro = el("p"), list = el("ul");
  let last = null;
  for (const line of text.split("\n")) {
    const point = /^\s*[-*] (.*)$/.exec(line);
    if (point) {
      last = cardText(point[1], el("li", /^\s/.test(line) ? "sub" : null));
      list.append(last);
    } else if (last) last.append(" " + line.trim());
    else intro.append((intro.textContent ? " " : "") + line.trim());
  }
  return [intro, list];
}

async function renderRules(game) {
  const panel = $("#rules-panel");
  if (panel.dataset.game === game) return;
  panel.dataset.game = game;
  if (!state.catalog) state.catalog = await (await fetch("/api/catalog")).json();
  const g = state.catalog.games.find((x) => x.name === game);
  panel.hidden = !(g && g.rules);
  if (g && g.rules) {
    panel.querySelector("summary").textContent = `Rules of ${g.title}`;
    $("#rules-text").replaceChildren(...rulesEls(g.rules));
  }
}

function renderScores(v) {
  const box = $("#scores");
  box.replaceChildren();
  if (v.scores) box.append(el("h3", null, v.scores.title), tableEl(v.scores.columns, v.scores.rows));
  const sp = $("#summary-panel");
  sp.hidden = !v.summary;
  if (v.summary) sp.replaceChildren(...summaryEls(v.summary, "h3"));
}

function summaryEls(s, heading) {
  const out = [el(heading, null, s.title)];
  for (const line of s.lines) out.push(cardText(line, el("p", "lines")));
  if (s.rows.length) out.push(tableEl(s.columns, s.rows));
  return out;
}

function renderReplayBar(v) {
  const bar = $("#replay-bar");
  bar.hidden = state.mode !== "replay";
  const watch = $("#watch-bar");
  watch.hidden = state.mode !== "watch";
  if (state.mode === "watch" && !watch.childElementCount) {
    const lab = el("label", null, "Show the hand of ");
    const sel = el("select");
    for (const s of v.seats) sel.append(new Option(`player_${s.seat} (${s.kind})`, String(s.seat)));
    sel.addEventListener("change", () => state.ws.send(JSON.stringify({ type: "look", seat: Number(sel.value) })));
    lab.append(sel);
    watch.append(lab);
  }
  if (state.mode !== "replay") return;
  const r = v.replay;
  const slider = $("#replay-slider");
  slider.max = String(r.moves);
  slider.value = String(r.move);
  $("#replay-pos").textContent = `${r.move} / ${r.moves}`;
  const jump = $("#replay-jump");  // the start of each round / deal / hand
  const marks = r.sections || [];
  if (jump.options.length !== marks.length) {
    jump.replaceChildren(...marks.map(([label, k]) => new Option(label, String(k))));
  }
  let here = 0;
  marks.forEach(([, k], i) => { if (k <= r.move) here = i; });
  if (marks.length) jump.value = String(marks[here][1]);
  const seatSel = $("#replay-seat");
  if (seatSel.options.length !== v.seats.length) {
    seatSel.replaceChildren(...v.seats.map((s) => new Option(`player_${s.seat} (${s.kind})`, String(s.seat))));
  }
  seatSel.value = String(v.seat);
}

function maybeOverlay(v) {
  if (state.mode === "replay") return;
  if (v.over) {
    if (state.seenSummary === "result") return;
    state.seenSummary = "result";
    const body = [];
    for (const line of v.result.lines) body.push(cardText(line, el("p", "lines")));
    body.push(tableEl(v.result.columns, v.result.rows));
    if (v.summary) body.push(...summaryEls(v.summary, "h3"));
    const actions = [button("Rematch", () => state.ws.send(JSON.stringify({ type: "rematch" })), "primary"),
      button("New game", () => { hideOverlay(); location.hash = ""; }, "")];
    actions[0].id = "rematch";
    actions[0].title = "The same game, seats and rule options, new cards";
    if (v.record) {
      const a = el("a", null, "Download record (.jsonl)");
      a.href = `/api/record/${state.key}`;
      a.setAttribute("download", "");
      a.className = "button";
      actions.push(button("Replay this game", () => replayOwn(), ""), a);
    }
    actions.push(button("Look at the table", hideOverlay, ""));
    showOverlay(v.result.title, body, actions);
    return;
  }
  if (!v.summary || v.summary.key === state.seenSummary) return;
  state.seenSummary = v.summary.key;
  try { sessionStorage.setItem(`cardzoo.seen.${state.key}`, v.summary.key); } catch (e) { /* private mode */ }
  if (state.skip) return;
  showOverlay(v.summary.title, summaryEls(v.summary, "h3").slice(1), [button("Continue", hideOverlay, "primary")]);
}

async function replayOwn() {
  const rec = await fetch(`/api/record/${state.key}`);
  if (!rec.ok) { toast("the record is not available"); return; }
  const r = await fetch("/api/replays", {
    method: "POST", headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ text: await rec.text(), game: 1 }),
  });
  const data = await r.json();
  if (!r.ok) { toast(data.error); return; }
  hideOverlay();
  location.hash = `replay=${data.key}`;
}

function button(text, onclick, cls) {
  const b = el("button", cls, text);
  b.type = "button";
  b.addEventListener("click", onclick);
  return b;
}

// One overlay at a time: a summary that comes while another is open waits for its Continue.
function showOverlay(title, bodyEls, actions) {
  if (!$("#overlay").hidden) { state.overlays.push([title, bodyEls, actions]); return; }
  $("#overlay-title").textContent = title;
  $("#overlay-body").replaceChildren(...bodyEls);
  $("#overlay-actions").replaceChildren(...actions);
  $("#overlay").hidden = false;
}

function hideOverlay() {
  $("#overlay").hidden = true;
  const next = state.overlays.shift();
  if (next) showOverlay(...next);
}

let toastTimer = null;
function toast(text, info) {
  const t = $("#toast");
  t.textContent = text;
  t.className = "toast" + (info ? " info" : "");
  t.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { t.hidden = true; }, 4500);
}

function setConn(text, cls) {
  const c = $("#conn");
  c.hidden = false;
  c.textContent = text;
  c.className = "conn " + cls;
}

function setMode(mode) {
  state.mode = mode;
  document.body.dataset.mode = mode;
  $("#lobby").hidden = mode !== "lobby";
  $("#table").hidden = mode === "lobby";
  if (mode === "lobby") { $("#conn").hidden = true; document.body.dataset.turn = "none"; }
}

const sleep = (ms) => new Promise((res) => setTimeout(res, ms));

// ------------------------------------------------------------------ routing
function route() {
  const h = new URLSearchParams(location.hash.slice(1));
  state.overlays = [];
  hideOverlay();
  stopReplay();
  if (state.ws) { const ws = state.ws; state.ws = null; ws.close(); }
  Object.assign(state, { view: null, queue: [], busy: false, skip: false, overlays: [], seenSummary: null, lastMine: 0, showAll: false, bannerSeen: null, felt: null });
  state.selection.clear();
  if (h.get("play") || h.get("watch")) {
    state.key = h.get("play") || h.get("watch");
    // the last summary this tab has shown for this match (a reload does not show it again)
    try { state.seenSummary = sessionStorage.getItem(`cardzoo.seen.${state.key}`); } catch (e) { /* private mode */ }
    setMode(h.get("play") ? "play" : "watch");
    connect(state.key);
  } else if (h.get("replay")) {
    state.key = h.get("replay");
    setMode("replay");
    $("#conn").hidden = true;
    state.replay = { key: state.key, move: 0, moves: 0, seat: 0, timer: null };
    loadReplay(0, 0);
  } else {
    state.invites = [];
    showLobby();
  }
}

function fillSound() {
  const box = $("#sound");
  box.checked = soundOn();
  document.body.dataset.sound = box.checked ? "on" : "off";
  box.addEventListener("change", () => {
    try { localStorage.setItem("cardzoo.sound", box.checked ? "1" : "0"); } catch (e) { /* private mode */ }
    document.body.dataset.sound = box.checked ? "on" : "off";
  });
}

function fillSpeed() {
  const sel = $("#speed");
  const known = SPEEDS.some(([, ms]) => ms === PACE);
  sel.replaceChildren(...SPEEDS.map(([name, ms]) => new Option(ms ? `${name} (${ms} ms)` : name, String(ms))));
  if (!known) sel.append(new Option(`${PACE} ms`, String(PACE)));
  sel.value = String(PACE);
  document.body.dataset.pace = String(PACE);
  sel.addEventListener("change", () => setPace(sel.value));
}

document.addEventListener("DOMContentLoaded", () => {
  fillSpeed();
  fillSound();
  $("#new-game").addEventListener("submit", startGame);
  // an error is about the form as it was: it goes as soon as the form changes
  for (const ev of ["input", "change"]) {
    $("#new-game").addEventListener(ev, () => {
      const err = $("#form-error");
      if (!err.classList.contains("pending")) err.textContent = "";
    });
  }
  $("#replay-form").addEventListener("submit", openReplay);
  for (const b of document.querySelectorAll("#replay-bar button")) b.addEventListener("click", () => replayStep(b.dataset.step));
  $("#replay-slider").addEventListener("input", (e) => { stopReplay(); loadReplay(Number(e.target.value), state.replay.seat); });
  $("#replay-seat").addEventListener("change", (e) => loadReplay(state.replay.move, Number(e.target.value)));
  $("#replay-jump").addEventListener("change", (e) => { stopReplay(); loadReplay(Number(e.target.value), state.replay.seat); });
  document.addEventListener("keydown", (e) => {
    if (e.target.tagName === "INPUT" || e.target.tagName === "SELECT") return;
    if (state.mode === "replay") {
      if (e.key === "ArrowRight") replayStep("next");
      else if (e.key === "ArrowLeft") replayStep("prev");
      else if (e.key === " ") { e.preventDefault(); replayStep("play"); }
    } else if (state.mode === "play" && e.key === "Enter" && state.view && state.view.your_turn && $("#overlay").hidden) {
      const exact = state.view.moves.filter((m) => exactMatch(m, state.selection));
      if (exact.length === 1) sendMove(exact[0], chosenCards(exact[0], state.selection));
    } else if (e.key === "Escape") hideOverlay();
  });
  window.addEventListener("hashchange", route);
  route();
});
