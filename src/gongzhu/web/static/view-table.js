// Views of the table around the person's hand: the header (match, table, lifetime score and
// title, who the person is, speed, the motion and sound switches), the offline banner, the four
// seat plates (who sits there: name and title or the computer's level, 托管, connected, the host;
// hand sizes, exposures, captured point cards, whose turn it is, the server's clock) and the
// center (the trick on the table, or the welcome / loading state before a table is shown).  The
// table is drawn from the person's seat (at the bottom; a spectator sees it from South): each
// seat plate and trick slot gets its position.  They draw from state.js only; clicks go to the
// handlers given to initTable.
//
// Motion (when the switch is on and the speed is not `instant`; motion.css draws it, and stops
// it when the browser asks for reduced motion): a card just played flies into its slot, and a
// finished trick, while it stays shown for the speed's pause, sweeps in the pause's last part to
// the seat plate of who took it.  The sweep only follows the pause: the pacing queue
// (connection.js) keeps its times, and clearing the table (the pause cut short by a click, or
// over) ends it.  Test surface: the sweeping trick's #center has data-sweep="<taker's seat>" and
// data-trick="<its number in the deal>"; <html data-sweeps> counts the tricks swept and <html
// data-motion> is "on" or "off".
//
// May import: state.js, dom.js, cards.js, i18n.js.

import { cardBack, cardChip, cardFace, prettyCard, sortCards } from "./cards.js";
import { $, button, el, span } from "./dom.js";
import { cardName, goalText, levelLabel, presetLabel, seatName, signedNumber, t, titleLabel } from "./i18n.js";
import {
  animMs, autoLastOn, clock, displayedPhase, handCount, isHost, isThinking, motionOn, mySeat, page, pace, personAt, positionOf,
  seatInfo, shownTrick, soundOn, speed, takeFresh, undeclaredSeats,
} from "./state.js";

let handlers = { onNewMatch: () => {}, onSit: () => {} };

/** `onNewMatch`: the welcome's new-match button was pressed; `onSit(seat)`: a free seat's Sit button. */
export function initTable(h) {
  handlers = { ...handlers, ...h };
}

export function renderHeader() {
  const s = page.state;
  $("match-info").textContent = s
    ? t("header.deal", { preset: presetLabel(s.preset), n: s.deal_index + 1 })
    : "";
  $("table-info").textContent = tableInfo();
  const life = s?.lifetime ?? (page.profile ? { score: page.profile.lifetime, title: page.profile.title } : null);
  $("lifetime").textContent = life ? t("header.lifetime", { score: life.score, title: titleLabel(life.title) }) : "";
  const me = page.me;
  $("me").hidden = !me;
  if (me) {
    $("me").textContent = me.title ? t("header.me", { name: me.name, title: titleLabel(me.title) }) : me.name;
    $("me").title = t("header.profile");
  }
  $("speed").value = speed() ?? "";
  // The host sets the pace of a table of several people; at a single-player table that is the person.
  $("speed").disabled = Boolean(s?.you) && !isHost();
  $("new-match").disabled = !page.config;
  const root = document.documentElement;
  root.style.setProperty("--anim-ms", `${animMs()}ms`);
  root.dataset.motion = motionOn() ? "on" : "off";
  $("motion").setAttribute("aria-pressed", String(motionOn()));
  $("sound").setAttribute("aria-pressed", String(soundOn()));
  $("auto-last").setAttribute("aria-pressed", String(autoLastOn()));
  $("sound-icon").textContent = soundOn() ? "🔊" : "🔇";
}

/** "公开 · 观众 2 · 观战中": what kind of table it is, when there is more to it than one person. */
function tableInfo() {
  const table = page.state?.table;
  if (!table) return "";
  const parts = [t(table.visibility === "private" ? "table.private" : "table.public")];
  // The host chose the seed: everyone at the table sees the deal was set in advance (never ranked).
  if (table.seeded) parts.push(t("table.seeded"));
  if (table.spectators) parts.push(t("table.spectators", { n: table.spectators }));
  if (!mySeat()) parts.push(t("table.watching"));
  return parts.join(" · ");
}

export function renderOffline() {
  $("offline").hidden = page.online;
}

export function renderSeat(seat) {
  const box = $(`seat-${seat}`);
  const s = page.state;
  for (const pos of ["bottom", "left", "top", "right"]) box.classList.toggle(`pos-${pos}`, positionOf(seat) === pos);
  box.replaceChildren();
  if (!s) return;
  const phase = displayedPhase();
  const me = mySeat();
  box.classList.toggle("turn", isThinking(seat));
  const info = seatInfo(seat);
  box.classList.toggle("away", Boolean(info?.name && info.connected === false));

  const head = el("div", "seat-head");
  head.append(el("strong", "", seat === me ? t("seat.you", { seat: seatName(seat) }) : seatName(seat)));
  head.append(...occupant(seat));
  head.append(span("total", t("seat.total", { n: s.totals?.[seat] ?? 0 })));
  // How far the total is from the match's limit (R8), as the server counts it.
  const goal = s.goal;
  if (goal && goal.kind !== "deals" && phase !== "waiting") {
    const toGo = span("to-go", t("seat.toGo", { n: goal.to_go?.[seat] ?? "" }));
    toGo.title = goalText(goal);
    toGo.dataset.toGo = seat;
    head.append(toGo);
  }
  box.append(head);

  if (seat !== me && phase !== "waiting") box.append(backs(handCount(seat)));

  const exposed = (s.exposures ?? []).filter((e) => e.seat === seat);
  const pending = seat === me && phase === "expose" ? s.my_declaration ?? [] : [];
  const hidden = s.hidden_counts?.[seat] ?? 0;
  if (exposed.length || hidden || pending.length) {
    const row = el("div", "exposed");
    row.append(span("label", t("seat.exposed")));
    for (const e of exposed) row.append(exposureChip(e));
    for (const e of pending) row.append(exposureChip(e, true));
    if (hidden) row.append(span("hidden-count", t("seat.hidden", { n: hidden })));
    box.append(row);
  }

  if (phase !== "waiting") {
    const taken = s.captured?.[seat] ?? []; // the point cards taken, as the server lists them
    const row = el("div", "captured");
    row.append(span("label", t("seat.captured")));
    if (taken.length) for (const c of sortCards(taken)) row.append(cardChip(c));
    else row.append(span("none", "—"));
    // The deal's points so far (R6, as the server scores the cards taken; exposures everyone sees).
    const points = s.points?.[seat] ?? 0;
    const now = span("points", t("seat.points", { n: signedNumber(points) }));
    now.dataset.points = seat;
    row.append(now);
    box.append(row);
  }

  // The flag's line is always there (empty and invisible when idle), so that the panels keep
  // their height and the hand does not jump under the pointer as the turn passes.
  const flag = span("turn-flag", "\u00a0");
  if (isThinking(seat)) {
    flag.textContent = phase === "expose" ? t("seat.exposing") : (seat === me ? t("seat.yourTurn") : t("seat.playing"));
  } else if (phase === "expose" && (s.declared ?? []).includes(seat)) {
    flag.textContent = t("seat.declared");
    flag.classList.add("done");
  } else {
    flag.classList.add("idle");
    flag.setAttribute("aria-hidden", "true");
  }
  const line = el("div", "flag-line");
  line.append(flag);
  const timer = span("clock-badge", "");
  timer.dataset.clockSeat = seat;
  line.append(timer);
  // A spectator may take a seat nobody sits in, during the match too (its computer plays it
  // until then); before the start the waiting list offers the seats.
  if (!me && !page.state?.you?.next_deal_seat && !personAt(seat) && info && (phase === "expose" || phase === "play" || phase === "deal-over")) {
    const sitHere = button("sit", t("btn.sit"), () => handlers.onSit(seat));
    sitHere.dataset.sit = seat;
    line.append(sitHere);
  }
  box.append(line);
  box.setAttribute("aria-label", seatName(seat));
  drawClock(timer);
}

/** Who sits at `seat`: a person's name and title (托管, offline, host marks) or the computer's level. */
function occupant(seat) {
  const info = seatInfo(seat);
  const s = page.state;
  if (!info) {
    // A state without the table's seats (a single-player match of an older server): the levels.
    return s.levels?.[seat] && seat !== mySeat() ? [span("level", levelLabel(s.levels[seat]))] : [];
  }
  const out = [];
  if (info.name) {
    const who = span("name", info.name);
    who.dataset.name = info.name;
    out.push(who);
    if (info.title) out.push(span("title", titleLabel(info.title)));
    if (s.table?.host && info.name === s.table.host) out.push(span("mark host", t("seat.host")));
    if (info.auto) out.push(span("mark auto", t("seat.auto")));
    // Sat down during a deal dealt to someone else: the computer plays the seat until the next deal.
    if (info.next_deal) out.push(span("mark next-deal", t("seat.next_deal")));
    if (info.connected === false) out.push(span("mark away", t("seat.away")));
  } else if (info.computer) {
    out.push(span("level", t("seat.computer", { level: levelLabel(info.computer) })));
  } else {
    out.push(span("level empty", t("seat.empty")));
  }
  return out;
}

function exposureChip(e, pending = false) {
  const chip = cardChip(e.card);
  chip.title = t(`kind.${e.kind}`);
  chip.append(span("kind", pending ? t("seat.pending", { kind: t(`kind.${e.kind}`) }) : t(`kind.${e.kind}`)));
  if (pending) chip.classList.add("pending");
  return chip;
}

/** The seconds left on the server's clock for the seat of `badge` (empty when it does not run for it). */
function drawClock(badge) {
  const c = clock();
  const running = c && c.seats.includes(badge.dataset.clockSeat);
  badge.textContent = running ? t("clock.seconds", { n: Math.ceil(c.remaining) }) : "";
  badge.classList.toggle("urgent", Boolean(running && c.remaining <= 5));
}

/** The clock, drawn again every second: the seat plates' badges. */
export function renderSeatClocks() {
  for (const badge of document.querySelectorAll(".clock-badge")) drawClock(badge);
}

/** An opponent's hand as a small fan of card backs with its count. */
function backs(n) {
  const wrap = el("div", "backs");
  const fan = el("div", "fan");
  for (let i = 0; i < Math.min(n, 13); i++) fan.append(cardBack());
  wrap.append(fan, span("count", t("seat.cards", { n })));
  return wrap;
}

export function renderCenter() {
  const center = $("center");
  const s = page.state;
  center.replaceChildren();
  if (page.closed) {
    center.append(el("p", "welcome error", page.closed));
    return;
  }
  if (!s) {
    if (page.matchId) center.append(el("p", "welcome", t("center.connecting")));
    else center.append(welcome());
    return;
  }
  const { trick, finished } = shownTrick();
  const fresh = takeFresh();
  delete center.dataset.sweep;
  delete center.dataset.trick;
  for (const play of trick?.plays ?? []) {
    const slot = el("div", `slot slot-${positionOf(play.seat)}`);
    slot.dataset.seat = play.seat;
    if (fresh.has(play.seat) && animMs() > 0) slot.classList.add("enter");
    if (finished && play.seat === trick.winner) slot.classList.add("winner");
    if (play.seat === trick.leader) slot.classList.add("leader");
    for (const c of play.cards) {
      const card = el("div", "card-face");
      card.append(cardFace(c));
      card.setAttribute("role", "img");
      card.setAttribute("aria-label", `${seatName(play.seat)} ${cardName(c)}`);
      slot.append(card);
    }
    center.append(slot);
  }
  // The trick staying shown for the pause after it (not one reviewed with L) sweeps to its taker.
  if (finished && page.lingering && !page.showLast && animMs() > 0) sweep(center, trick);
  const caption = el("p", "caption");
  if (finished) {
    caption.textContent = t(page.showLast ? "center.lastTrick" : "center.trickWon", { seat: seatName(trick.winner) });
    if (trick.taker && trick.taker !== trick.winner) caption.textContent += " " + t("center.taker", { seat: seatName(trick.taker) });
  } else if (s.phase === "waiting") {
    caption.textContent = t("center.waiting");
  } else if (s.phase === "expose") {
    const left = undeclaredSeats().length;
    caption.textContent = s.declared && left ? t("center.exposeSecret", { n: left }) : t("center.expose");
  } else if (s.phase === "play" && page.revealed) {
    caption.textContent = revealedText(page.revealed);
    caption.classList.add("revealed");
  } else if (s.phase === "play") {
    caption.textContent = t("center.tricks", { n: s.tricks_played ?? 0 });
  }
  center.append(caption);
}

let swept = { key: null, at: 0 };  // the trick sweeping (or swept) last, and when it was first shown

/**
 * Sweep the finished `trick` drawn in `center` to its taker's seat plate, in the last part of the
 * pause it stays shown (the longest a card's flight takes, at most half the pause).  Drawn again
 * meanwhile, it carries on from where it is.
 */
function sweep(center, trick) {
  const s = page.state;
  const taker = trick.taker ?? trick.winner;
  const plate = $(`seat-${taker}`);
  if (!taker || !plate) return;
  const key = `${s.match_id}/${s.deal_index}/${s.tricks_played}`;
  const now = performance.now();
  if (swept.key !== key) {
    swept = { key, at: now };
    const root = document.documentElement;
    root.dataset.sweeps = String(Number(root.dataset.sweeps ?? 0) + 1);
  }
  const { linger } = pace();
  const length = Math.min(animMs(), linger / 2);
  center.dataset.sweep = taker;
  center.dataset.trick = String(s.tricks_played);
  center.style.setProperty("--sweep-ms", `${length}ms`);
  // Negative once the sweep has begun: a redraw joins it where it is.
  center.style.setProperty("--sweep-delay", `${Math.round(swept.at + linger - length - now)}ms`);
  const to = plate.getBoundingClientRect();
  for (const slot of center.querySelectorAll(".slot")) {
    const from = slot.getBoundingClientRect();
    slot.style.setProperty("--sweep-x", `${Math.round(to.left + to.width / 2 - from.left - from.width / 2)}px`);
    slot.style.setProperty("--sweep-y", `${Math.round(to.top + to.height / 2 - from.top - from.height / 2)}px`);
  }
}

/** The declarations of the closed exposure window, in words. */
export function revealedText(exposures) {
  if (!exposures.length) return t("center.revealedNone");
  const items = exposures.map((e) => t("center.revealedItem", {
    seat: seatName(e.seat), card: prettyCard(e.card), kind: t(`kind.${e.kind}`),
  }));
  return t("center.revealed", { cards: items.join(t("list.separator")) });
}

/**
 * Before a table is shown: the welcome and the new-match button.  Until the server's
 * configuration has arrived the button waits (busy); if reading it failed, that is said.
 */
function welcome() {
  const box = document.createDocumentFragment();
  box.append(el("p", "welcome", t("center.welcome")));
  const b = button("primary", t("btn.newMatch"), () => handlers.onNewMatch());
  if (!page.config) {
    b.disabled = true;
    b.setAttribute("aria-busy", "true");
    box.append(b);
    if (page.configFailed) box.append(el("p", "error", `${t("msg.loadFailed")} — ${t("status.offline")}`));
    return box;
  }
  box.append(b);
  return box;
}
