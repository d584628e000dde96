// Views of the table around South's hand: the header (match, lifetime score and title, speed),
// the offline banner, the four seat panels (hand sizes, exposures, captured point cards, whose
// turn it is) and the center (the trick on the table, or the welcome / loading state before a
// match is shown).  They draw from state.js only; clicks go to the handlers given to initTable.
//
// May import: state.js, dom.js, cards.js, i18n.js.

import { cardBack, cardChip, cardFace, isPointCard, sortCards } from "./cards.js";
import { $, button, el, span } from "./dom.js";
import { cardName, levelLabel, presetLabel, seatName, t, titleLabel } from "./i18n.js";
import { displayedPhase, handCount, isThinking, ME, page, pace, shownTrick, speed, takeFresh } from "./state.js";

let handlers = { onNewMatch: () => {} };

/** `onNewMatch`: the welcome's new-match button was pressed. */
export function initTable(h) {
  handlers = h;
}

export function renderHeader() {
  const s = page.state;
  $("match-info").textContent = s
    ? t("header.deal", { preset: presetLabel(s.preset), n: s.deal_index + 1 })
    : "";
  const life = s?.lifetime ?? (page.profile ? { score: page.profile.lifetime, title: page.profile.title } : null);
  $("lifetime").textContent = life ? t("header.lifetime", { score: life.score, title: titleLabel(life.title) }) : "";
  $("speed").value = speed() ?? "";
  $("new-match").disabled = !page.config;
  document.documentElement.style.setProperty("--anim-ms", `${pace().anim}ms`);
}

export function renderOffline() {
  $("offline").hidden = page.online;
}

export function renderSeat(seat) {
  const box = $(`seat-${seat}`);
  const s = page.state;
  box.replaceChildren();
  if (!s) return;
  const phase = displayedPhase();
  box.classList.toggle("turn", isThinking(seat));

  const head = el("div", "seat-head");
  head.append(el("strong", "", seat === ME ? t("seat.you", { seat: seatName(ME) }) : seatName(seat)));
  if (seat !== ME && s.levels?.[seat]) head.append(span("level", levelLabel(s.levels[seat])));
  head.append(span("total", t("seat.total", { n: s.totals?.[seat] ?? 0 })));
  box.append(head);

  if (seat !== ME) box.append(backs(handCount(seat)));

  const exposed = (s.exposures ?? []).filter((e) => e.seat === seat);
  const hidden = s.hidden_counts?.[seat] ?? 0;
  if (exposed.length || hidden) {
    const row = el("div", "exposed");
    row.append(span("label", t("seat.exposed")));
    for (const e of exposed) {
      const chip = cardChip(e.card);
      chip.title = t(`kind.${e.kind}`);
      chip.append(span("kind", t(`kind.${e.kind}`)));
      row.append(chip);
    }
    if (hidden) row.append(span("hidden-count", t("seat.hidden", { n: hidden })));
    box.append(row);
  }

  const taken = (s.captured?.[seat] ?? []).filter(isPointCard);
  const row = el("div", "captured");
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
  if (!s) {
    center.append(welcome());
    return;
  }
  const { trick, finished } = shownTrick();
  const fresh = takeFresh();
  for (const play of trick?.plays ?? []) {
    const slot = el("div", `slot slot-${play.seat}`);
    if (fresh.has(play.seat) && pace().anim > 0) slot.classList.add("enter");
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
  const caption = el("p", "caption");
  if (finished) {
    caption.textContent = t(page.showLast ? "center.lastTrick" : "center.trickWon", { seat: seatName(trick.winner) });
    if (trick.taker && trick.taker !== trick.winner) caption.textContent += " " + t("center.taker", { seat: seatName(trick.taker) });
  } else if (s.phase === "expose") {
    caption.textContent = t("center.expose");
  } else if (s.phase === "play") {
    caption.textContent = t("center.tricks", { n: s.tricks_played ?? 0 });
  }
  center.append(caption);
}

/**
 * Before a match is shown: the welcome and the new-match button.  Until the server's
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
