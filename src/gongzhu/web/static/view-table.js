// Views of the table around the person's hand: the header (match, table, lifetime score and
// title, in a challenge the link back to it, who the person is, speed, the motion and sound switches), the offline banner, the four
// seat plates (an avatar drawn from the name, or a computer's face; who sits there: name, title
// and rating when the state has one, or the computer's level, 托管, connected, the host; hand
// sizes, exposures, the point cards taken as small cards, whose turn it is: a gold ring on the
// avatar that, when the table has a clock, runs down with it) and the center (the trick on the
// table, each card in front of its seat, or the welcome / loading state before a table is
// shown).  The table is drawn from the person's seat (at the bottom; a spectator sees it from
// South): each seat plate and trick slot gets its position.  They draw from state.js only;
// clicks go to the handlers given to initTable.
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

import { cardBack, cardChip, cardFace, cardMini, prettyCard, sortCards } from "./cards.js";
import { $, button, el, span, speakerIcon } from "./dom.js";
import {
  cardName, goalText, levelLabel, nameEl, personName, presetLabel, ratingText, seatName, signedNumber, t, titleLabel,
} from "./i18n.js";
import {
  animMs, challengeOf, clock, displayedPhase, handCount, isHost, isThinking, motionOn, mySeat, page, pace, personAt, positionOf,
  SEATS, seatInfo, shownTrick, singlePlayer, soundOn, speed, takeFresh, undeclaredSeats,
} from "./state.js";

let handlers = { onNewMatch: () => {}, onSit: () => {} };

/** `onNewMatch`: the welcome's new-match button was pressed; `onSit(seat)`: a free seat's Sit button. */
export function initTable(h) {
  handlers = { ...handlers, ...h };
  // The table is as high as the screen below the header and the offline banner (style.css reads
  // --top-h): kept as they change size (the header wraps, the banner shows), before each frame.
  const top = [document.querySelector("body > .bar"), $("offline")].filter(Boolean);
  const measure = () => {
    const height = top.reduce((sum, e) => sum + e.getBoundingClientRect().height, 0);
    document.documentElement.style.setProperty("--top-h", `${Math.ceil(height)}px`);
  };
  const watch = new ResizeObserver(measure);
  for (const e of top) watch.observe(e);
}

export function renderHeader() {
  const s = page.state;
  renderMatchInfo(s);
  $("table-info").textContent = tableInfo();
  // Fair dealing: the commitment to the match's cards, published from its start (docs/web-protocol.md).
  const commitment = page.state?.table?.commitment;
  $("table-info").title = commitment ? t("table.commitment", { commitment }) : "";
  const challenge = challengeOf();
  $("challenge-link").hidden = !challenge;
  if (challenge) $("challenge-link").href = challenge.url;
  const life = s?.lifetime ?? (page.profile ? { score: page.profile.lifetime, title: page.profile.title } : null);
  $("lifetime").textContent = life ? t("header.lifetime", { score: life.score, title: titleLabel(life.title) }) : "";
  const me = page.me;
  $("me").hidden = !me;
  if (me) {
    $("me").replaceChildren(nameEl(me.name));  // the title is on the lifetime line beside it
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
  $("sound-icon").replaceChildren(speakerIcon(soundOn()));
}

/** The match's line: its preset and the deal's number ("联众在线（一副牌） · 第 1 副"), in a
 * challenge the board's ("board 1": its deals are the challenge's boards in order).  Each part is
 * an element of its own (.preset, .deal), so that a phone can show them on two lines (style.css). */
function renderMatchInfo(s) {
  const info = $("match-info");
  if (!s) {
    info.replaceChildren();
    return;
  }
  const board = challengeOf()?.url?.startsWith("/challenge/");
  const n = s.deal_index + 1;
  const preset = span("preset", presetLabel(s.preset));
  preset.append(span("sep", " · "));  // (a line cut after the preset ends with it)
  info.replaceChildren(preset, span("deal", t(board ? "header.boardN" : "header.dealN", { n })));
}

/** "公开 · 观众 2 · 观战中": what kind of table it is, when there is more to it than one person. */
function tableInfo() {
  const table = page.state?.table;
  if (!table) return "";
  // A challenge's match is the person's alone: the link back to the challenge says what it is.
  const parts = singlePlayer() || table.challenge ? [] : [t(table.visibility === "private" ? "table.private" : "table.public")];
  // The host chose the seed: everyone at the table sees the deal was set in advance (never ranked).
  if (table.seeded) parts.push(t("table.seeded"));
  // Its deals move the ratings of the people at it (docs/ratings.md).
  if (table.rated) parts.push(t("table.rated"));
  // Its deals (this one, or the next as things stand) are practice, not for the lifetime score.
  if (table.practice) parts.push(t("table.practice"));
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

  box.append(avatar(seat));
  const body = el("div", "seat-body");
  const head = el("div", "seat-head");
  head.append(el("strong", "", seat === me ? t("seat.you", { seat: seatName(seat) }) : seatName(seat)));
  head.append(...occupant(seat));
  head.append(span("total", t("seat.total", { n: s.totals?.[seat] ?? 0 })));
  // How far the total is from the match's limit (R8), as the server counts it; a total at or
  // past the limit has reached it (the server's distance is then 0 or below).
  const goal = s.goal;
  if (goal && goal.kind !== "deals" && phase !== "waiting") {
    const n = goal.to_go?.[seat];
    const reached = typeof n === "number" && n <= 0;
    const toGo = span("to-go", reached ? t("seat.limitReached") : t("seat.toGo", { n: n ?? "" }));
    toGo.title = goalText(goal);
    toGo.dataset.toGo = seat;
    head.append(toGo);
  }
  body.append(head);

  if (seat !== me && phase !== "waiting") body.append(backs(handCount(seat)));

  const exposed = (s.exposures ?? []).filter((e) => e.seat === seat);
  const pending = seat === me && phase === "expose" ? s.my_declaration ?? [] : [];
  const hidden = s.hidden_counts?.[seat] ?? 0;
  if (exposed.length || hidden || pending.length) {
    const row = el("div", "exposed");
    row.append(span("label", t("seat.exposed")));
    for (const e of exposed) row.append(exposureChip(e));
    for (const e of pending) row.append(exposureChip(e, true));
    if (hidden) row.append(span("hidden-count", t("seat.hidden", { n: hidden })));
    body.append(row);
  }

  if (phase !== "waiting") {
    const taken = s.captured?.[seat] ?? []; // the point cards taken, as the server lists them
    const row = el("div", "captured");
    row.append(span("label", t("seat.captured")));
    if (taken.length) {
      // Small cards, overlapping: each shows its rank and suit.
      const minis = el("span", "minis");
      for (const c of sortCards(taken)) {
        const mini = cardMini(c);
        mini.setAttribute("role", "img");
        mini.setAttribute("aria-label", cardName(c));
        minis.append(mini);
      }
      row.append(minis);
    } else {
      row.append(span("none", "—"));
    }
    // The deal's points so far (R6, as the server scores the cards taken; exposures everyone sees).
    const points = s.points?.[seat] ?? 0;
    const now = span("points", t("seat.points", { n: signedNumber(points) }));
    now.dataset.points = seat;
    row.append(now);
    body.append(row);
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
  body.append(line);
  box.append(body);
  box.setAttribute("aria-label", seatName(seat));
  drawClock(seat);
}

/**
 * The seat's avatar: a person's initials on a colour drawn from the name (the same name, the same
 * colour), a computer player's face; no picture is downloaded.  Its ring lights up on the seat's
 * turn and, when the table has a clock, runs down with it (drawClock: --left, the part of the
 * time left, and data-time-left).
 */
function avatar(seat) {
  const info = seatInfo(seat);
  const name = info?.name ?? (!info && seat === mySeat() ? page.me?.name : null) ?? null;
  const box = el("div", "avatar");
  box.dataset.avatar = seat;
  box.setAttribute("aria-hidden", "true");
  if (name) {
    box.style.setProperty("--hue", String(hue(name)));
    box.append(span("face", initials(personName(name))));
  } else {
    const level = info ? info.computer : page.state?.levels?.[seat];
    box.classList.add("computer");
    box.style.setProperty("--hue", String(hue(`${level ?? ""}${seat}`)));
    const face = span("face", "");
    face.append(robotFace());
    box.append(face);
  }
  return box;
}

/** A hue (0–359) from a name: the same name always gets the same colour. */
function hue(text) {
  let h = 0;
  for (const ch of text) h = (h * 31 + ch.codePointAt(0)) % 360;
  return h;
}

/** Up to two letters for a name: the first character of a Chinese name, the initials of two
 * words, else the name's first two letters. */
function initials(name) {
  const words = name.trim().split(/[\s._-]+/u).filter(Boolean);
  const first = [...(words[0] ?? "?")];
  if (/\p{Script=Han}/u.test(first[0])) return first[0];
  if (words.length > 1) return (first[0] + [...words[1]][0]).toUpperCase();
  return (first[0].toUpperCase() + (first[1] ?? "").toLowerCase());
}

const SVG_NS = "http://www.w3.org/2000/svg";

function svgEl(name, attrs) {
  const node = document.createElementNS(SVG_NS, name);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  return node;
}

/** A computer player's face, drawn. */
function robotFace() {
  const svg = svgEl("svg", { viewBox: "0 0 40 40", class: "robot", "aria-hidden": "true", focusable: "false" });
  svg.append(svgEl("line", { x1: 20, y1: 5, x2: 20, y2: 10, class: "robot-line" }));
  svg.append(svgEl("circle", { cx: 20, cy: 4.5, r: 2.5, class: "robot-fill" }));
  svg.append(svgEl("rect", { x: 8, y: 10, width: 24, height: 20, rx: 5, class: "robot-head" }));
  svg.append(svgEl("circle", { cx: 15, cy: 19, r: 3, class: "robot-eye" }));
  svg.append(svgEl("circle", { cx: 25, cy: 19, r: 3, class: "robot-eye" }));
  svg.append(svgEl("rect", { x: 14, y: 25, width: 12, height: 2, rx: 1, class: "robot-eye" }));
  return svg;
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
    const who = nameEl(info.name, "name");  // a <bdi>: its direction its own, beside the total
    who.dataset.name = info.name;
    out.push(who);
    if (info.title) out.push(span("title", titleLabel(info.title)));
    // An account's rating in the table's family (a guest has none): "?" while provisional.
    if (info.rating !== undefined && info.rating !== null) {
      const { text, title } = ratingText(info);
      const rating = span("rating", text);
      rating.dataset.rating = String(info.rating);
      rating.title = title;
      out.push(rating);
    }
    if (s.table?.host && info.name === s.table.host && !singlePlayer()) out.push(span("mark host", t("seat.host")));
    if (info.auto) out.push(span("mark auto", t("seat.auto")));
    // Sat down during a deal dealt to someone else: the computer plays the seat until the next deal.
    if (info.next_deal) out.push(span("mark next-deal", t("seat.next_deal")));
    if (info.connected === false) out.push(span("mark away", t("seat.away")));
  } else if (info.computer) {
    // In full; where the plates are small (a phone) the level alone: the avatar shows a computer.
    out.push(span("level computer", t("seat.computer", { level: levelLabel(info.computer) })));
    const short = span("level-short", levelLabel(info.computer));
    short.setAttribute("aria-hidden", "true");
    out.push(short);
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

/** The server's clock for `seat` (nothing when it does not run for it): the seconds left on its
 * plate's badge, and its avatar's ring run down to the part of the time left. */
function drawClock(seat) {
  const c = clock();
  const running = Boolean(c && c.seats.includes(seat));
  const urgent = Boolean(running && c.remaining <= 5);
  const plate = $(`seat-${seat}`);
  const badge = plate.querySelector(".clock-badge");
  if (badge) {
    badge.textContent = running ? t("clock.seconds", { n: Math.ceil(c.remaining) }) : "";
    badge.classList.toggle("urgent", urgent);
  }
  const face = plate.querySelector(".avatar");
  if (!face) return;
  face.classList.toggle("timed", running);
  face.classList.toggle("urgent", urgent);
  const left = running && c.total > 0 ? Math.min(1, Math.max(0, c.remaining / c.total)) : 1;
  face.style.setProperty("--left", left.toFixed(3));
  if (running) face.dataset.timeLeft = left.toFixed(3);
  else delete face.dataset.timeLeft;
}

/** The clock, drawn again every second: the seat plates' badges and avatar rings. */
export function renderSeatClocks() {
  for (const seat of SEATS) drawClock(seat);
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
    if (play.seat === trick.leader) slot.append(leadMark(play.seat));
    center.append(slot);
  }
  // The trick staying shown for the pause after it (not one reviewed with L) sweeps to its taker.
  if (finished && page.lingering && !page.showLast && animMs() > 0) sweep(center, trick);
  const caption = el("p", "caption");
  if (finished) {
    let text = t(page.showLast ? "center.lastTrick" : "center.trickWon", { seat: seatName(trick.winner) });
    if (trick.taker && trick.taker !== trick.winner) text += " " + t("center.taker", { seat: seatName(trick.taker) });
    caption.append(phrases(text));
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

/** A caption's words in phrases, each kept to one line where the line has room for it: the text
 * cut after each colon ("上一圈：" "南 赢", "Last trick:" "won by South"), never inside "南 赢". */
function phrases(text) {
  const words = span("phrases", "");
  for (const [, phrase, space] of text.matchAll(/([^：:]+(?:[：:]|$))(\s*)/g)) {
    words.append(span("phrase", phrase));
    if (space) words.append(space);
  }
  return words;
}

/** The gold dot under the card that led the trick, saying so in words: its tooltip, and its name
 * for a screen reader ("北 领出这一圈"). */
function leadMark(seat) {
  const mark = span("lead-mark", "");
  const text = t("center.leader", { seat: seatName(seat) });
  mark.title = text;
  mark.setAttribute("role", "img");
  mark.setAttribute("aria-label", text);
  return mark;
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
