// The table page: the person sits at South against three computer players.  The server is
// authoritative (docs/web-protocol.md): this script renders the `state` it sends and turns
// clicks and keys into messages; it never decides a rule itself.  The only local logic is
// presentation: which of the server's legal plays a click means, animation and pacing.
//
// Stable surface for outside browser tests (keep it): every hand card is a <button> with
// data-card="<code>" and aria-disabled="true"/"false" (not / a legal play now; in the exposure
// phase "false" marks the cards South may still expose, the only ones a click acts on); the button
// ending the exposure phase is named 开始 / Start; after a deal each seat's R7 result is the
// text of [data-deal-result="<seat>"]; <html data-phase> is setup / expose / play / deal-over /
// match-over.

import { cardBack, cardChip, cardFace, installCardDefs, isPointCard, prettyCard, sortCards } from "./cards.js";
import {
  applyI18n, cardName, eventLabel, getLang, levelLabel, optionLabel, optionValueLabel, presetLabel,
  seatName, setLang, speedLabel, t, titleLabel,
} from "./i18n.js";
import { showReplay } from "./replay.js";

const SEATS = ["N", "E", "S", "W"];
const OPPONENTS = ["N", "E", "W"];
const ME = "S";
const SETTINGS_KEY = "gongzhu.settings";
// How many plays are offered as buttons when a two-deck selection is ambiguous.
const MAX_CHOICES = 8;
const MATCH_KEY = "gongzhu.match";

// Milliseconds a played card takes to fly in, and a finished trick stays on the table, per
// speed.  The server paces the computer players; the page only has to let the eye follow.
const PACE = {
  slow: { anim: 600, linger: 1600 },
  normal: { anim: 320, linger: 1000 },
  fast: { anim: 150, linger: 450 },
  instant: { anim: 0, linger: 0 },
};

// Used when GET /api/config is unavailable or lacks a part: the R9 presets, the R10 keys.
const FALLBACK_CONFIG = {
  presets: { online: {}, online2: {}, partners: {}, partners2: {}, pig_sheep: {}, tournament: {}, classic: {} },
  options: {
    decks: [1, 2], direction: ["ccw", "cw"], heart_values: ["standard", "book"],
    exposure: ["standard", "first_card", "hidden", "sell_x4_x2", "all_but_sheep", "all", "none"],
    auto_expose_fourth: [true, false], exposed_discard_before_suit_led: [true, false],
    first_lead: ["club2_must", "club2_any", "spade3_any"], discard_color: ["off", "enforce", "penalty"],
    self_catch: [true, false], scoring: ["raw", "zero_sum", "partners", "pig_sheep"],
    one_deck_factor: "integer", match_limit: "integer", match_end: ["loser", "either", "deals:N"],
    double_pig: [true, false],
  },
  levels: ["beginner", "intermediate", "expert"],
  speeds: ["slow", "normal", "fast", "instant"],
};

const DEFAULT_SETTINGS = {
  preset: "online", overrides: {}, seed: "",
  levels: { N: "intermediate", E: "intermediate", W: "intermediate" },
  speed: "normal", lang: "zh",
};

/** Everything the page holds besides the server's state. */
const ui = {
  config: FALLBACK_CONFIG,
  settings: loadSettings(),
  matchId: null,
  ws: null,
  reconnectDelay: 500,
  state: null,
  queue: [],          // server messages waiting their turn (pacing, see drain)
  draining: false,
  fresh: new Set(),   // seats whose card arrived since the last render: animate them
  lingering: false,   // a finished trick is still shown
  cutLinger: null,
  showLast: false,    // the last trick is being reviewed (L)
  marks: new Map(),   // exposure phase: hand index -> kind
  selection: [],      // hand indices chosen towards a two-card play (two decks)
  choices: null,      // legal plays offered when a selection is ambiguous
  hints: null,        // null, "pending" or the server's ranking
  hand: [],           // the hand as displayed (sorted codes)
  focus: 0,           // roving focus index in the hand
  summaryDismissed: false,
  pending: false,     // an action was sent: nothing is playable until the server answers
  profile: null,
};

const $ = (id) => document.getElementById(id);

// ---------------------------------------------------------------- settings

function loadSettings() {
  try {
    const saved = JSON.parse(localStorage.getItem(SETTINGS_KEY) ?? "{}");
    return { ...DEFAULT_SETTINGS, ...saved, levels: { ...DEFAULT_SETTINGS.levels, ...(saved.levels ?? {}) } };
  } catch {
    return { ...DEFAULT_SETTINGS };
  }
}

function saveSettings() {
  localStorage.setItem(SETTINGS_KEY, JSON.stringify(ui.settings));
}

/** The match's speed (the server keeps it per match), else the remembered setting. */
function speed() {
  return ui.state?.speed ?? ui.settings.speed;
}

function pace() {
  return PACE[speed()] ?? PACE.normal;
}

function applySpeed() {
  applySpeedOf(speed());
}

function applySpeedOf(name) {
  document.documentElement.style.setProperty("--anim-ms", `${(PACE[name] ?? PACE.normal).anim}ms`);
}

// ---------------------------------------------------------------- config

/** Accept the config in the shapes a server may reasonably send; fill gaps from the fallback. */
function normalizeConfig(raw) {
  const c = structuredClone(FALLBACK_CONFIG);
  if (!raw || typeof raw !== "object") return c;
  if (raw.presets) {
    const entries = Array.isArray(raw.presets)
      ? raw.presets.map((p) => (typeof p === "string" ? [p, {}] : [p.name ?? p.preset, p.options ?? {}]))
      : Object.entries(raw.presets).map(([k, v]) => [k, v && typeof v.options === "object" ? v.options : (v ?? {})]);
    c.presets = Object.fromEntries(entries);
  }
  const opts = raw.options ?? raw.option_keys ?? raw.keys;
  if (opts) {
    const entries = Array.isArray(opts)
      ? opts.map((o) => [o.key ?? o.name, o.values ?? o.type])
      : Object.entries(opts).map(([k, v]) => [k, Array.isArray(v) ? v : (v?.values ?? v?.type ?? v)]);
    c.options = Object.fromEntries(entries);
  }
  const names = (x) => (Array.isArray(x) ? x.map((v) => (typeof v === "string" ? v : v.name)) : Object.keys(x));
  if (raw.levels) c.levels = names(raw.levels);
  if (raw.speeds) c.speeds = names(raw.speeds);
  return c;
}

async function loadConfig() {
  try {
    const res = await fetch("/api/config");
    if (res.ok) ui.config = normalizeConfig(await res.json());
  } catch {
    // Keep the fallback: the dialog still works, the server checks the options anyway.
  }
}

// ---------------------------------------------------------------- the new-match dialog

function fillSelect(select, values, label, selected) {
  select.replaceChildren();
  for (const v of values) {
    const opt = document.createElement("option");
    opt.value = v;
    opt.textContent = label(v);
    opt.selected = v === selected;
    select.append(opt);
  }
}

// A "deals:N" style value: a choice that carries a number.
const NUMBERED = /^(\w+):N$/;

/** One row of "more options": empty means "as the preset says". */
function optionRow(key, values, presetValue, override) {
  const row = document.createElement("label");
  row.className = "opt-row";
  const name = document.createElement("span");
  name.textContent = optionLabel(key);
  row.append(name);
  const asPreset = presetValue === undefined
    ? t("setup.asPreset")
    : t("setup.asPresetValue", { value: optionValueLabel(key, presetValue) });
  if (Array.isArray(values)) {
    const select = document.createElement("select");
    select.dataset.option = key;
    const def = document.createElement("option");
    def.value = "";
    def.textContent = asPreset;
    select.append(def);
    for (const v of values) {
      const opt = document.createElement("option");
      // JSON keeps the value's type (1, true, "ccw") through the string-valued <select>.
      opt.value = JSON.stringify(v);
      opt.textContent = optionValueLabel(key, v);
      select.append(opt);
    }
    row.append(select);
    const numbered = values.find((v) => typeof v === "string" && NUMBERED.test(v));
    let count = null;
    if (numbered) {
      count = document.createElement("input");
      count.type = "number";
      count.min = "1";
      count.className = "opt-count";
      count.dataset.optionCount = key;
      count.setAttribute("aria-label", t("setup.count"));
      row.append(count);
    }
    if (override !== undefined) setOptionField(select, count, override);
    const sync = () => { if (count) count.hidden = !NUMBERED.test(JSON.parse(select.value || '""')); };
    select.addEventListener("change", sync);
    sync();
  } else {
    const input = document.createElement("input");
    input.type = "number";
    input.dataset.option = key;
    input.placeholder = presetValue === undefined ? t("setup.asPreset") : String(presetValue);
    if (override !== undefined) input.value = String(override);
    row.append(input);
  }
  return row;
}

function setOptionField(select, count, value) {
  const numberedMatch = typeof value === "string" ? /^(\w+):(\d+)$/.exec(value) : null;
  const asNumbered = numberedMatch ? JSON.stringify(`${numberedMatch[1]}:N`) : null;
  for (const opt of select.options) {
    if (opt.value === JSON.stringify(value) || (asNumbered && opt.value === asNumbered)) opt.selected = true;
  }
  if (count && numberedMatch) count.value = numberedMatch[2];
}

function buildOptions(preset, overrides) {
  const box = $("more-options");
  box.replaceChildren();
  const resolved = ui.config.presets[preset] ?? {};
  for (const [key, values] of Object.entries(ui.config.options)) {
    box.append(optionRow(key, values, resolved[key], overrides[key]));
  }
}

function buildSetup() {
  const s = ui.settings;
  const presets = Object.keys(ui.config.presets);
  fillSelect($("setup-preset"), presets, presetLabel, presets.includes(s.preset) ? s.preset : presets[0]);
  for (const seat of OPPONENTS) {
    const levels = ui.config.levels;
    const level = levels.includes(s.levels[seat]) ? s.levels[seat] : levels[Math.min(1, levels.length - 1)];
    fillSelect($(`setup-level-${seat}`), levels, levelLabel, level);
  }
  fillSelect($("setup-speed"), ui.config.speeds, speedLabel, s.speed);
  fillSelect($("setup-lang"), ["zh", "en"], (l) => t(`lang.${l}`), getLang());
  $("setup-seed").value = s.seed ?? "";
  buildOptions($("setup-preset").value, s.overrides ?? {});
  $("setup-error").textContent = "";
}

/** The overrides chosen under "more options", typed as the engine expects them. */
function readOverrides() {
  const out = {};
  for (const field of $("more-options").querySelectorAll("[data-option]")) {
    if (field.value === "") continue;
    const key = field.dataset.option;
    if (field.tagName === "INPUT") {
      out[key] = Number(field.value);
      continue;
    }
    let value = JSON.parse(field.value);
    const m = typeof value === "string" ? NUMBERED.exec(value) : null;
    if (m) {
      const n = $("more-options").querySelector(`[data-option-count="${key}"]`).value;
      value = `${m[1]}:${Number(n) || 1}`;
    }
    out[key] = value;
  }
  return out;
}

function openSetup() {
  buildSetup();
  const dlg = $("setup");
  if (!dlg.open) dlg.showModal();
}

/** A numbered choice ("deals:N") whose number is missing or not a positive integer, if any. */
function missingCount() {
  for (const count of $("more-options").querySelectorAll("[data-option-count]")) {
    if (count.hidden) continue;
    const n = Number(count.value);
    if (!(Number.isInteger(n) && n >= 1)) return count;
  }
  return null;
}

async function startMatch(ev) {
  ev.preventDefault();
  const missing = missingCount();
  if (missing) {
    // Say so rather than guess a number of deals.
    missing.closest("details").open = true;
    missing.focus();
    $("setup-error").textContent = t("setup.countMissing");
    return;
  }
  const s = ui.settings;
  s.preset = $("setup-preset").value;
  s.overrides = readOverrides();
  s.levels = Object.fromEntries(OPPONENTS.map((seat) => [seat, $(`setup-level-${seat}`).value]));
  s.speed = $("setup-speed").value;
  s.lang = $("setup-lang").value;
  s.seed = $("setup-seed").value.trim();
  saveSettings();
  changeLanguage(s.lang);
  applySpeed();
  const body = {
    preset: s.preset, options: s.overrides, levels: s.levels, speed: s.speed,
    seed: s.seed === "" ? null : Number(s.seed),
  };
  const button = $("setup-go");
  button.disabled = true;
  try {
    const res = await fetch("/api/matches", {
      method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
    });
    const data = await res.json().catch(() => ({}));
    if (!res.ok) {
      $("setup-error").textContent = data.error ?? `HTTP ${res.status}`;
      return;
    }
    $("setup").close();
    connect(data.match_id);
  } catch (err) {
    $("setup-error").textContent = `${t("msg.offline")} (${err})`;
  } finally {
    button.disabled = false;
  }
}

// ---------------------------------------------------------------- connection

function connect(matchId) {
  if (ui.ws) {
    const old = ui.ws;
    ui.ws = null; // so that its close handler does not reconnect
    old.close();
  }
  if (matchId !== ui.matchId) {
    // Another match: forget the old table.  A reconnection keeps it until the new state comes.
    ui.state = null;
    ui.queue = [];
    ui.summaryDismissed = false;
  }
  ui.matchId = matchId;
  localStorage.setItem(MATCH_KEY, matchId);
  const proto = location.protocol === "https:" ? "wss" : "ws";
  const ws = new WebSocket(`${proto}://${location.host}/ws/${encodeURIComponent(matchId)}`);
  ui.ws = ws;
  ws.addEventListener("open", () => {
    ui.reconnectDelay = 500;
    setOffline(false);
  });
  ws.addEventListener("message", (ev) => {
    let msg;
    try {
      msg = JSON.parse(ev.data);
    } catch {
      return;
    }
    receive(msg);
  });
  ws.addEventListener("close", () => {
    if (ui.ws !== ws) return;
    setOffline(true);
    // The server keeps the match (it survives restarts): try again, less and less often.
    setTimeout(() => { if (ui.ws === ws) connect(matchId); }, ui.reconnectDelay);
    ui.reconnectDelay = Math.min(ui.reconnectDelay * 2, 8000);
  });
  render();
}

function setOffline(offline) {
  $("offline").hidden = !offline;
}

function send(msg) {
  if (ui.ws && ui.ws.readyState === WebSocket.OPEN) {
    ui.ws.send(JSON.stringify(msg));
    return true;
  }
  toast(t("msg.offline"), true);
  return false;
}

// Errors and hints answer the person at once; everything else is paced through the queue.
function receive(msg) {
  if (msg.type === "error") {
    if (ui.pending) {
      ui.pending = false;
      renderHand();
    }
    toast(getLang() === "zh" && msg.message_zh ? msg.message_zh : msg.message, true);
  } else if (msg.type === "hint") {
    // A hint ranks the position it was asked for: drop one that arrives after South moved on.
    const s = ui.state;
    if (ui.hints !== "pending" || !s || msg.deal_index !== s.deal_index || msg.hand_size !== s.hand.length) return;
    ui.hints = Array.isArray(msg.hints) ? msg.hints : [];
    renderHints();
    renderHand();
  } else {
    ui.queue.push(msg);
    drain();
  }
}

async function drain() {
  if (ui.draining) return;
  ui.draining = true;
  while (ui.queue.length) {
    const msg = ui.queue.shift();
    if (msg.type === "state") await applyState(msg.state);
    else if (msg.type === "played") {
      ui.fresh.add(msg.seat);
      ui.showLast = false;
    }
    // "trick" needs nothing here: the state that follows it carries last_trick.
  }
  ui.draining = false;
}

function pause(ms) {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      ui.cutLinger = null;
      resolve();
    };
    const timer = setTimeout(done, ms);
    ui.cutLinger = done;
  });
}

/** Cut a trick's display short: the person has acted and wants to see the answer. */
function hurry() {
  if (ui.cutLinger) ui.cutLinger();
}

async function applyState(s) {
  const prev = ui.state;
  if (s.speed && s.speed !== prev?.speed) applySpeedOf(s.speed);
  const newDeal = !prev || prev.deal_index !== s.deal_index || prev.match_id !== s.match_id;
  if (newDeal) {
    ui.marks.clear();
    ui.summaryDismissed = false;
  }
  if (newDeal || !sameCards(prev.hand, s.hand) || s.turn !== ME) {
    ui.selection = [];
    ui.choices = null;
    ui.hints = null;
  }
  ui.state = s;
  ui.pending = false;
  // The exposure marks are keyed by hand position: once South has declared they mean nothing
  // (the declared cards show as exposures), and kept they would wander onto other cards as the
  // hand shrinks.
  if (s.phase !== "expose" || !(s.undeclared ?? []).includes(ME)) ui.marks.clear();
  // A finished trick stays in the middle for a moment (the speed setting says how long).
  const trickEnded = prev && !newDeal && s.tricks_played > prev.tricks_played && s.last_trick;
  if (trickEnded && pace().linger > 0) {
    ui.lingering = true;
    render();
    await pause(pace().linger);
    ui.lingering = false;
  }
  render();
}

function sameCards(a, b) {
  return (a ?? []).join() === (b ?? []).join();
}

// ---------------------------------------------------------------- derived views of the state

function myTurn() {
  const s = ui.state;
  return Boolean(s && s.phase === "play" && s.turn === ME);
}

/** The cards that belong to at least one legal play now. */
function legalCards() {
  if (!myTurn() || ui.pending) return new Set();
  return new Set((ui.state.legal ?? []).flat());
}

function exposableKinds(code) {
  const s = ui.state;
  if (!s || s.phase !== "expose" || !(s.undeclared ?? []).includes(ME)) return [];
  const entry = (s.exposable ?? []).find((e) => e.card === code);
  return entry ? entry.kinds ?? ["shown"] : [];
}

/** What the page shows as the phase (a finished deal's last trick is shown before its summary). */
function displayedPhase() {
  const s = ui.state;
  if (!s) return "setup";
  if (ui.lingering && (s.phase === "deal-over" || s.phase === "match-over")) return "play";
  return s.phase;
}

/** Cards left in a seat's hand: every trick takes as many cards from each seat as from South. */
function handCount(seat) {
  const s = ui.state;
  if (s.cards_left && seat in s.cards_left) return s.cards_left[seat];
  const inTrick = (who) => (s.trick?.plays ?? []).filter((p) => p.seat === who).reduce((n, p) => n + p.cards.length, 0);
  return Math.max(0, s.hand.length + inTrick(ME) - inTrick(seat));
}

function kindLabel(kind) {
  return t(`kind.${kind}`);
}

// ---------------------------------------------------------------- rendering

function render() {
  document.documentElement.setAttribute("data-phase", displayedPhase());
  renderHeader();
  for (const seat of SEATS) renderSeat(seat);
  renderCenter();
  renderHand();
  renderControls();
  renderHints();
  renderSummary();
}

function renderHeader() {
  const s = ui.state;
  $("match-info").textContent = s
    ? t("header.deal", { preset: presetLabel(s.preset), n: s.deal_index + 1 })
    : "";
  const life = s?.lifetime ?? (ui.profile ? { score: ui.profile.lifetime, title: ui.profile.title } : null);
  $("lifetime").textContent = life ? t("header.lifetime", { score: life.score, title: titleLabel(life.title) }) : "";
  $("speed").value = speed();
}

function renderSeat(seat) {
  const box = $(`seat-${seat}`);
  const s = ui.state;
  box.replaceChildren();
  if (!s) return;
  const phase = displayedPhase();
  box.classList.toggle("turn", isThinking(seat));

  const head = document.createElement("div");
  head.className = "seat-head";
  const name = document.createElement("strong");
  name.textContent = seat === ME ? t("seat.you", { seat: seatName(ME) }) : seatName(seat);
  head.append(name);
  if (seat !== ME && s.levels?.[seat]) head.append(span("level", levelLabel(s.levels[seat])));
  head.append(span("total", t("seat.total", { n: s.totals?.[seat] ?? 0 })));
  box.append(head);

  if (seat !== ME) box.append(backs(handCount(seat)));

  const exposed = (s.exposures ?? []).filter((e) => e.seat === seat);
  const hidden = s.hidden_counts?.[seat] ?? 0;
  if (exposed.length || hidden) {
    const row = document.createElement("div");
    row.className = "exposed";
    row.append(span("label", t("seat.exposed")));
    for (const e of exposed) {
      const chip = cardChip(e.card);
      chip.title = kindLabel(e.kind);
      chip.append(span("kind", kindLabel(e.kind)));
      row.append(chip);
    }
    if (hidden) row.append(span("hidden-count", t("seat.hidden", { n: hidden })));
    box.append(row);
  }

  const taken = (s.captured?.[seat] ?? []).filter(isPointCard);
  const row = document.createElement("div");
  row.className = "captured";
  row.append(span("label", t("seat.captured")));
  if (taken.length) for (const c of sortCards(taken)) row.append(cardChip(c));
  else row.append(span("none", "—"));
  box.append(row);

  // The flag's line is always there (empty and invisible when idle), so that the panels keep
  // their height and the hand does not jump under the pointer as the turn passes.
  const flag = span("turn-flag", "\u00a0");
  if (isThinking(seat)) {
    flag.textContent = phase === "expose" ? t("seat.exposing") : (seat === ME ? t("seat.yourTurn") : t("seat.playing"));
  } else {
    flag.classList.add("idle");
    flag.setAttribute("aria-hidden", "true");
  }
  box.append(flag);
  box.setAttribute("aria-label", seatName(seat));
}

/**
 * Whether `seat` is the one the table waits for.  In the exposure phase South declares first
 * and the computer players only after (docs/web-protocol.md), so they are not shown as
 * deciding while South has not declared.
 */
function isThinking(seat) {
  const s = ui.state;
  const phase = displayedPhase();
  if (phase === "play") return s.turn === seat;
  if (phase !== "expose") return false;
  const undeclared = s.undeclared ?? [];
  if (undeclared.includes(ME)) return seat === ME;
  return undeclared.includes(seat);
}

function span(cls, text) {
  const e = document.createElement("span");
  e.className = cls;
  e.textContent = text;
  return e;
}

/** An opponent's hand as a small fan of card backs with its count. */
function backs(n) {
  const wrap = document.createElement("div");
  wrap.className = "backs";
  const fan = document.createElement("div");
  fan.className = "fan";
  for (let i = 0; i < Math.min(n, 13); i++) fan.append(cardBack());
  wrap.append(fan, span("count", t("seat.cards", { n })));
  return wrap;
}

function renderCenter() {
  const center = $("center");
  const s = ui.state;
  center.replaceChildren();
  if (!s) {
    const p = document.createElement("p");
    p.className = "welcome";
    p.textContent = t("center.welcome");
    const b = document.createElement("button");
    b.type = "button";
    b.className = "primary";
    b.textContent = t("btn.newMatch");
    b.addEventListener("click", openSetup);
    center.append(p, b);
    return;
  }
  let trick = s.trick;
  let finished = false;
  if (ui.showLast && s.last_trick) {
    trick = s.last_trick;
    finished = true;
  } else if (!(s.trick?.plays ?? []).length && ui.lingering && s.last_trick) {
    trick = s.last_trick;
    finished = true;
  }
  for (const play of trick?.plays ?? []) {
    const slot = document.createElement("div");
    slot.className = `slot slot-${play.seat}`;
    if (ui.fresh.has(play.seat) && pace().anim > 0) slot.classList.add("enter");
    if (finished && play.seat === trick.winner) slot.classList.add("winner");
    if (play.seat === trick.leader) slot.classList.add("leader");
    for (const c of play.cards) {
      const card = document.createElement("div");
      card.className = "card-face";
      card.append(cardFace(c));
      card.setAttribute("role", "img");
      card.setAttribute("aria-label", `${seatName(play.seat)} ${cardName(c)}`);
      slot.append(card);
    }
    center.append(slot);
  }
  ui.fresh.clear();
  const caption = document.createElement("p");
  caption.className = "caption";
  if (finished) {
    caption.textContent = t(ui.showLast ? "center.lastTrick" : "center.trickWon", { seat: seatName(trick.winner) });
    if (trick.taker && trick.taker !== trick.winner) caption.textContent += " " + t("center.taker", { seat: seatName(trick.taker) });
  } else if (s.phase === "expose") {
    caption.textContent = t("center.expose");
  } else if (s.phase === "play") {
    caption.textContent = t("center.tricks", { n: s.tricks_played ?? 0 });
  }
  center.append(caption);
}

/**
 * The hand.  Buttons are kept from one state to the next (keyed by card and copy), so a click
 * or a test's element handle is not lost to a re-render; only played cards disappear.
 */
function renderHand() {
  const box = $("hand");
  const s = ui.state;
  const hadFocus = box.contains(document.activeElement);
  ui.hand = s ? sortCards(s.hand ?? []) : [];
  const dealKey = s ? `${s.match_id}/${s.deal_index}` : "";
  const seen = {};
  const keys = ui.hand.map((code) => {
    seen[code] = (seen[code] ?? 0) + 1;
    return `${dealKey}/${code}#${seen[code]}`;
  });
  const old = new Map([...box.children].map((b) => [b.dataset.key, b]));
  const buttons = keys.map((key, i) => old.get(key) ?? newCardButton(key, ui.hand[i]));
  for (const [key, b] of old) if (!keys.includes(key)) b.remove();
  buttons.forEach((b, i) => {
    if (box.children[i] !== b) box.insertBefore(b, box.children[i] ?? null);
  });
  if (!ui.hand.length) return;
  ui.focus = Math.min(ui.focus, ui.hand.length - 1);
  const legal = legalCards();
  const mine = (s.exposures ?? []).filter((e) => e.seat === ME).map((e) => e.card);
  const top = Array.isArray(ui.hints) && ui.hints.length ? ui.hints[0].cards : [];
  buttons.forEach((b, i) => updateCardButton(b, i, ui.hand[i], { legal, mine, top }));
  box.classList.toggle("my-turn", myTurn());
  if (hadFocus && !box.contains(document.activeElement)) focusCard(ui.focus);
}

function newCardButton(key, code) {
  const b = document.createElement("button");
  b.type = "button";
  b.className = "card";
  b.dataset.key = key;
  b.setAttribute("data-card", code);
  b.append(cardFace(code));
  // The index is read at click time: it shifts as cards leave the hand.
  b.addEventListener("click", () => onCard(Number(b.dataset.index)));
  b.addEventListener("focus", () => { ui.focus = Number(b.dataset.index); });
  return b;
}

function updateCardButton(b, i, code, { legal, mine, top }) {
  b.dataset.index = String(i);
  const kinds = exposableKinds(code);
  // Playwright and assistive technology treat aria-disabled cards as not clickable, so an
  // exposable card is enabled during the exposure phase (where no card is a legal play).
  const usable = legal.has(code) || kinds.length > 0;
  b.setAttribute("aria-disabled", usable ? "false" : "true");
  b.tabIndex = i === ui.focus ? 0 : -1;
  const mark = ui.marks.get(i);
  b.classList.toggle("exposable", kinds.length > 0);
  b.classList.toggle("marked", Boolean(mark));
  b.classList.toggle("is-exposed", mine.includes(code));
  b.classList.toggle("selected", ui.selection.includes(i));
  b.classList.toggle("hinted", top.includes(code));
  if (kinds.length) b.setAttribute("aria-pressed", mark ? "true" : "false");
  else b.removeAttribute("aria-pressed");
  for (const badge of b.querySelectorAll(".badge")) badge.remove();
  let label = cardName(code);
  if (mark) {
    b.prepend(span("badge", kindLabel(mark)));
    label += `, ${t("hand.marked", { kind: kindLabel(mark) })}`;
  }
  if (mine.includes(code)) {
    b.prepend(span("badge exposed-badge", t("hand.exposed")));
    label += `, ${t("hand.exposedName")}`;
  }
  b.setAttribute("aria-label", label);
}

function focusCard(i) {
  const buttons = $("hand").querySelectorAll("button.card");
  if (!buttons.length) return;
  ui.focus = (i + buttons.length) % buttons.length;
  buttons.forEach((b, k) => { b.tabIndex = k === ui.focus ? 0 : -1; });
  buttons[ui.focus].focus();
}

function renderControls() {
  const s = ui.state;
  const phase = displayedPhase();
  const declaring = phase === "expose" && (s.undeclared ?? []).includes(ME);
  $("start").hidden = !declaring || ui.pending;
  $("hint").hidden = phase !== "play";
  $("hint").disabled = !myTurn();
  $("last").hidden = phase !== "play";
  $("last").disabled = !s?.last_trick;
  $("last").setAttribute("aria-pressed", ui.showLast ? "true" : "false");
  $("next").hidden = phase !== "deal-over";
  $("again").hidden = phase !== "match-over";
  $("show-summary").hidden = !(phase === "deal-over" || phase === "match-over");

  let status = "";
  if (phase === "expose") {
    if (declaring) {
      const marked = [...ui.marks.entries()].map(([i, k]) => `${prettyCard(ui.hand[i])}(${kindLabel(k)})`);
      status = marked.length ? t("status.marked", { cards: marked.join(" ") }) : t("status.expose");
      if (!(s.exposable ?? []).length) status = t("status.nothingToExpose");
    } else {
      status = t("status.waitExpose");
    }
  } else if (phase === "play") {
    status = myTurn() ? t("status.yourTurn") : t("status.waiting", { seat: seatName(s.turn) });
    const complete = (ui.choices ?? []).some((p) => p.length === ui.selection.length);
    if (ui.selection.length && !complete) status = t("status.chooseMore");
  }
  $("status").textContent = status;

  const choices = $("choices");
  choices.replaceChildren();
  choices.hidden = !ui.choices;
  for (const play of ui.choices ?? []) {
    const b = document.createElement("button");
    b.type = "button";
    b.textContent = t("btn.playCards", { cards: play.map(prettyCard).join(" ") });
    b.addEventListener("click", () => sendPlay(play));
    choices.append(b);
  }
}

function renderHints() {
  const box = $("hints");
  const list = $("hint-list");
  list.replaceChildren();
  box.hidden = ui.hints === null;
  if (ui.hints === null) return;
  if (ui.hints === "pending") {
    list.append(li(t("hint.thinking")));
    return;
  }
  if (!ui.hints.length) list.append(li(t("hint.none")));
  for (const h of ui.hints) {
    const item = document.createElement("li");
    const b = document.createElement("button");
    b.type = "button";
    b.className = "hint-play";
    b.textContent = h.cards.map(prettyCard).join(" ");
    b.setAttribute("aria-label", t("btn.playCards", { cards: h.cards.map(cardName).join(" ") }));
    b.addEventListener("click", () => sendPlay(h.cards));
    const reason = h.reason?.[getLang()] ?? h.reason?.zh ?? "";
    item.append(b, span("expected", t("hint.expected", { n: h.expected })), span("reason", reason));
    list.append(item);
  }
}

function li(text) {
  const e = document.createElement("li");
  e.textContent = text;
  return e;
}

function renderSummary() {
  const dlg = $("summary");
  const s = ui.state;
  const phase = displayedPhase();
  const over = phase === "deal-over" || phase === "match-over";
  if (!over || !s.deal_result) {
    if (dlg.open) dlg.close();
    return;
  }
  const r = s.deal_result;
  $("summary-title").textContent = phase === "match-over" ? t("summary.matchOver") : t("summary.dealOver", { n: s.deal_index + 1 });
  const match = $("summary-match");
  match.replaceChildren();
  if (phase === "match-over" && s.match_result) {
    const names = (seats) => seats.map(seatName).join(t("list.separator"));
    match.append(li(t("summary.winners", { seats: names(s.match_result.winners ?? []) })));
    match.append(li(t("summary.pigs", { seats: names(s.match_result.pigs ?? []) })));
    if ((s.match_result.winners ?? []).includes(ME)) match.append(li(t("summary.youWin")));
    if ((s.match_result.pigs ?? []).includes(ME)) match.append(li(t("summary.youPig")));
  }
  const body = $("summary-rows");
  body.replaceChildren();
  for (const seat of SEATS) {
    const tr = document.createElement("tr");
    const th = document.createElement("th");
    th.scope = "row";
    th.textContent = seat === ME ? t("seat.you", { seat: seatName(ME) }) : seatName(seat);
    const result = document.createElement("td");
    result.setAttribute("data-deal-result", seat);
    // The R7 result exactly as added to the match total: a plain integer, ASCII minus.
    result.textContent = String(r.result?.[seat] ?? 0);
    tr.append(th, td(r.raw?.[seat]), result, td(r.final?.[seat]), td(s.totals?.[seat]));
    // The point cards on a row of their own, so the numbers fit a phone's width.
    const cardsRow = document.createElement("tr");
    cardsRow.className = "cards-row";
    const cards = document.createElement("td");
    cards.colSpan = 5;
    cards.className = "chips";
    cards.append(span("label", t("summary.cards")));
    const taken = sortCards((s.captured?.[seat] ?? []).filter(isPointCard));
    for (const c of taken) cards.append(cardChip(c));
    if (!taken.length) cards.append(span("none", "—"));
    cardsRow.append(cards);
    body.append(tr, cardsRow);
  }
  const events = $("summary-events");
  events.replaceChildren();
  for (const e of r.events ?? []) events.append(li(t("summary.event", { seat: seatName(e.seat), event: eventLabel(e.event) })));
  if (!(r.events ?? []).length) events.append(li(t("summary.noEvents")));
  $("summary-next").hidden = phase !== "deal-over";
  $("summary-again").hidden = phase !== "match-over";
  $("summary-download").href = `/api/matches/${encodeURIComponent(s.match_id)}/records.jsonl`;
  if (!dlg.open && !ui.summaryDismissed) dlg.showModal();
}

function td(value) {
  const e = document.createElement("td");
  e.textContent = value === undefined || value === null ? "" : String(value);
  return e;
}

// ---------------------------------------------------------------- actions

function onCard(i) {
  const s = ui.state;
  if (!s) return;
  const code = ui.hand[i];
  ui.focus = i;
  if (s.phase === "expose") return toggleExposure(i, code);
  if (s.phase !== "play") return;
  if (!myTurn()) return toast(t("msg.notYourTurn", { seat: seatName(s.turn) }), true);
  choosePlay(i, code);
}

/** Exposure phase: a click cycles through the kinds the server allows for that card, then off. */
function toggleExposure(i, code) {
  const kinds = exposableKinds(code);
  if (!(ui.state.undeclared ?? []).includes(ME)) return toast(t("msg.declared"), true);
  if (!kinds.length) return toast(t("msg.notExposable", { card: prettyCard(code) }), true);
  const now = ui.marks.get(i);
  const next = now === undefined ? kinds[0] : kinds[kinds.indexOf(now) + 1];
  if (next === undefined) ui.marks.delete(i);
  else ui.marks.set(i, next);
  render();
}

function declare() {
  const entries = [...ui.marks.entries()].sort((a, b) => a[0] - b[0]);
  if (send({ type: "expose", cards: entries.map(([i]) => ui.hand[i]), kinds: entries.map(([, k]) => k) })) {
    ui.pending = true; // until the server answers: no second declaration
    renderControls();
  }
}

function contains(play, cards) {
  const rest = [...play];
  for (const c of cards) {
    const k = rest.indexOf(c);
    if (k < 0) return false;
    rest.splice(k, 1);
  }
  return true;
}

/**
 * Which legal play a click means.  One deck: the card itself.  Two decks: a card can start a
 * pair, so clicking both copies plays the pair, clicking the same card twice plays the single,
 * and two-card answers to a pair lead are chosen one card at a time (or from the offered plays).
 */
function choosePlay(i, code) {
  const legal = ui.state.legal ?? [];
  if (ui.selection.includes(i)) {
    const single = legal.find((p) => p.length === 1 && p[0] === code);
    if (ui.selection.length === 1 && single && ui.choices) return sendPlay(single);
    ui.selection = ui.selection.filter((k) => k !== i);
    ui.choices = null;
    return render();
  }
  let selection = [...ui.selection, i];
  let cards = selection.map((k) => ui.hand[k]);
  let candidates = legal.filter((p) => contains(p, cards));
  if (!candidates.length && selection.length > 1) {
    selection = [i];
    cards = [code];
    candidates = legal.filter((p) => contains(p, cards));
  }
  if (!candidates.length) {
    // Not legal: let the rules core say why (the server answers with an error, nothing changes).
    ui.selection = [];
    ui.choices = null;
    render();
    if (!send({ type: "play", cards: [code] })) toast(t("msg.illegal", { card: prettyCard(code) }), true);
    return;
  }
  // Only one legal play contains the chosen cards: that is the play (e.g. the pair a pair
  // lead forces).  Otherwise keep the selection and offer the plays it can still become.
  if (candidates.length === 1) return sendPlay(candidates[0]);
  ui.selection = selection;
  ui.choices = [...candidates].sort((a, b) => a.length - b.length).slice(0, MAX_CHOICES);
  render();
}

function sendPlay(cards) {
  ui.selection = [];
  ui.choices = null;
  hurry();
  if (send({ type: "play", cards })) {
    ui.pending = true;
    renderHand();
  }
}

function requestHint() {
  if (!myTurn()) return;
  ui.hints = "pending";
  renderHints();
  send({ type: "hint" });
}

function toggleLast() {
  if (!ui.state?.last_trick) return;
  ui.showLast = !ui.showLast;
  renderCenter();
  renderControls();
}

function nextDeal() {
  if (ui.state?.phase !== "deal-over") return;
  hurry();
  ui.summaryDismissed = true;
  if ($("summary").open) $("summary").close();
  send({ type: "next" });
}

async function replayThisDeal() {
  const s = ui.state;
  const url = s.deal_result?.record_url ?? `/api/matches/${encodeURIComponent(s.match_id)}/deals/${s.deal_index}`;
  try {
    const res = await fetch(url);
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    showReplay(await res.json(), { title: t("replay.titleDeal", { n: s.deal_index + 1 }) });
  } catch (err) {
    toast(`${t("msg.noRecord")} (${err.message})`, true);
  }
}

function changeLanguage(lang) {
  ui.settings.lang = lang;
  saveSettings();
  setLang(lang);
  applyI18n();
  fillSelect($("speed"), ui.config.speeds, speedLabel, ui.settings.speed);
  render();
}

function changeSpeed(speed) {
  ui.settings.speed = speed;
  saveSettings();
  applySpeed();
  if (ui.ws && ui.ws.readyState === WebSocket.OPEN) send({ type: "settings", speed });
}

let toastTimer = null;
function toast(text, isError = false) {
  const box = $("toast");
  box.textContent = text;
  box.classList.toggle("is-error", isError);
  box.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { box.hidden = true; }, 4500);
}

// ---------------------------------------------------------------- keyboard

function onKey(ev) {
  if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
  if (ev.target.closest?.("input, select, textarea")) return;
  if ($("setup").open || document.querySelector("dialog.replay[open]")) return;
  const inHand = $("hand").contains(document.activeElement);
  const free = inHand || document.activeElement === document.body;
  switch (ev.key) {
    case "ArrowLeft":
    case "ArrowUp":
      if (!free) return;
      focusCard(inHand ? ui.focus - 1 : ui.focus);
      break;
    case "ArrowRight":
    case "ArrowDown":
      if (!free) return;
      focusCard(inHand ? ui.focus + 1 : ui.focus);
      break;
    case "Home":
      if (!inHand) return;
      focusCard(0);
      break;
    case "End":
      if (!inHand) return;
      focusCard(ui.hand.length - 1);
      break;
    case "h":
    case "H":
      requestHint();
      break;
    case "l":
    case "L":
      toggleLast();
      break;
    case "n":
    case "N":
      nextDeal();
      break;
    default:
      return;
  }
  ev.preventDefault();
}

// ---------------------------------------------------------------- start-up

function wire() {
  $("setup-form").addEventListener("submit", startMatch);
  $("setup-cancel").addEventListener("click", () => $("setup").close());
  $("setup-preset").addEventListener("change", () => buildOptions($("setup-preset").value, {}));
  $("setup-lang").addEventListener("change", () => {
    // Relabel the dialog in the chosen language while keeping what was chosen so far.
    const keep = {
      preset: $("setup-preset").value, overrides: readOverrides(), speed: $("setup-speed").value,
      seed: $("setup-seed").value, levels: OPPONENTS.map((seat) => [seat, $(`setup-level-${seat}`).value]),
      more: document.querySelector("#setup details.more").open,
    };
    changeLanguage($("setup-lang").value);
    buildSetup();
    $("setup-preset").value = keep.preset;
    $("setup-speed").value = keep.speed;
    $("setup-seed").value = keep.seed;
    for (const [seat, level] of keep.levels) $(`setup-level-${seat}`).value = level;
    document.querySelector("#setup details.more").open = keep.more;
    buildOptions(keep.preset, keep.overrides);
  });
  $("new-match").addEventListener("click", openSetup);
  $("again").addEventListener("click", openSetup);
  $("summary-again").addEventListener("click", () => { $("summary").close(); openSetup(); });
  $("lang").addEventListener("click", () => changeLanguage(getLang() === "zh" ? "en" : "zh"));
  $("speed").addEventListener("change", () => changeSpeed($("speed").value));
  $("start").addEventListener("click", declare);
  $("hint").addEventListener("click", requestHint);
  $("hint-close").addEventListener("click", () => { ui.hints = null; renderHints(); renderHand(); });
  $("last").addEventListener("click", toggleLast);
  $("next").addEventListener("click", nextDeal);
  $("summary-next").addEventListener("click", nextDeal);
  $("summary-replay").addEventListener("click", replayThisDeal);
  $("summary-close").addEventListener("click", () => { ui.summaryDismissed = true; $("summary").close(); });
  $("summary").addEventListener("cancel", () => { ui.summaryDismissed = true; });
  $("show-summary").addEventListener("click", () => { ui.summaryDismissed = false; renderSummary(); });
  document.addEventListener("keydown", onKey);
}

async function resumeMatch(id) {
  try {
    const res = await fetch(`/api/matches/${encodeURIComponent(id)}`);
    if (!res.ok) return false;
    const info = await res.json();
    if (info.over && !new URLSearchParams(location.search).has("match")) return false;
    connect(id);
    return true;
  } catch {
    return false;
  }
}

async function main() {
  installCardDefs();
  setLang(ui.settings.lang);
  applyI18n();
  applySpeed();
  wire();
  render();
  await loadConfig();
  fillSelect($("speed"), ui.config.speeds, speedLabel, ui.settings.speed);
  fetch("/api/profile").then((r) => (r.ok ? r.json() : null)).then((p) => { ui.profile = p; renderHeader(); })
    .catch(() => {});
  const wanted = new URLSearchParams(location.search).get("match") ?? localStorage.getItem(MATCH_KEY);
  if (!(wanted && (await resumeMatch(wanted)))) openSetup();
}

main();
