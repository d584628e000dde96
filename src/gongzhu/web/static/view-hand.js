// The view of the person's hand (none for a spectator): one <button data-card aria-disabled> per card (the stable test
// surface, docs/web-protocol.md), marked for exposure, selected towards a two-card play,
// hinted or exposed, with a roving keyboard focus.  Buttons are kept from one state to the next
// (keyed by card and copy), so a click or a test's element handle is not lost to a re-render;
// only played cards disappear.  Clicks go to the handler given to initHand.
//
// The hand is laid out for the screen (layoutHand): as many overlapping columns as fit with at
// least MIN_SHOWN px of each card showing, the same number of cards in each row (13 cards on a
// phone in two rows, 26 in four), spread wider where there is room (a desktop's hand spreads
// over the table, each card showing whole when it can).  The card's size is style.css's
// (--card-w, growing with the screen); the columns and their step are set here as --cols and
// --step, from the table's width, which a ResizeObserver keeps (no layout is read while
// drawing).
//
// At the start of each deal the new hand is dealt in: the cards fly in one after another (a
// short stagger, from the speed's flight time), when the motion switch is on and the speed is
// not `instant` (motion.css draws it, and leaves it out when the browser asks for reduced
// motion).  The cards are there and clickable at once: the motion is only drawn over them.
//
// May import: state.js, dom.js, cards.js, i18n.js.

import { cardFace } from "./cards.js";
import { $, span } from "./dom.js";
import { cardName, t } from "./i18n.js";
import { animMs, exposableKinds, legalCards, mySeat, myTurn, page, setFocus } from "./state.js";

let handlers = { onCard: () => {} };
let dealtIn = "";  // the deal whose hand was dealt in last ("match/deal")

// How much of each card shows at least (CSS px): a finger's tap (WCAG 2.5.5), whatever the screen.
const MIN_SHOWN = 44;
// The gap between two cards that do not overlap.
const GAP = 4;
// The table's content width and the card's width (px), as last measured (0: not yet).
const fit = { width: 0, card: 0 };

/** `onCard(i)`: hand card `i` (an index into page.hand) was clicked or pressed. */
export function initHand(h) {
  handlers = h;
  const table = $("hand").closest(".table") ?? $("hand").parentElement;
  // Measured after layout and before the frame is painted, whenever the table changes size (a
  // phone turned, a window resized): the hand is laid out again before it shows.
  new ResizeObserver((entries) => {
    fit.width = entries[entries.length - 1].contentRect.width;
    fit.card = parseFloat(getComputedStyle($("hand")).getPropertyValue("--card-w")) || 0;
    layoutHand();
  }).observe(table);
}

/** Columns and step for the hand's cards (see the top of this file). */
function layoutHand() {
  const box = $("hand");
  const n = box.children.length;
  if (!n || !fit.width || !fit.card) return;
  const card = fit.card;
  const room = fit.width - 2;
  const perRow = Math.max(1, Math.min(n, Math.floor((room - card) / MIN_SHOWN) + 1));
  const rows = Math.ceil(n / perRow);
  const cols = Math.ceil(n / rows);
  const step = cols > 1 ? Math.min(card + GAP, (room - card) / (cols - 1)) : card;
  const key = `${cols}/${step.toFixed(2)}/${rows}`;
  if (box.dataset.layout === key) return;
  box.dataset.layout = key;
  box.dataset.rows = String(rows);
  box.style.setProperty("--cols", String(cols));
  box.style.setProperty("--step", `${Math.floor(step * 100) / 100}px`);
}

export function renderHand() {
  const box = $("hand");
  const s = page.state;
  const hadFocus = box.contains(document.activeElement);
  const hand = page.hand;
  const dealKey = s ? `${s.match_id}/${s.deal_index}` : "";
  const seen = {};
  const keys = hand.map((code) => {
    seen[code] = (seen[code] ?? 0) + 1;
    return `${dealKey}/${code}#${seen[code]}`;
  });
  const old = new Map([...box.children].map((b) => [b.dataset.key, b]));
  const buttons = keys.map((key, i) => old.get(key) ?? newCardButton(key, hand[i]));
  for (const [key, b] of old) if (!keys.includes(key)) b.remove();
  buttons.forEach((b, i) => {
    if (box.children[i] !== b) box.insertBefore(b, box.children[i] ?? null);
  });
  layoutHand();
  if (!hand.length) return;
  if (dealKey !== dealtIn && !s.tricks_played) dealIn(buttons);
  dealtIn = dealKey;
  setFocus(Math.min(page.focus, hand.length - 1));
  const legal = legalCards();
  const mine = (s.exposures ?? []).filter((e) => e.seat === mySeat()).map((e) => e.card);
  const top = Array.isArray(page.hints) && page.hints.length ? page.hints[0].cards : [];
  buttons.forEach((b, i) => updateCardButton(b, i, hand[i], { legal, mine, top }));
  box.classList.toggle("my-turn", myTurn());
  if (hadFocus && !box.contains(document.activeElement)) focusCard(page.focus);
}

/** The hand of a new deal flies in, card after card (all of it within about two flights). */
function dealIn(buttons) {
  const ms = animMs();
  if (!ms) return;
  const step = Math.min(ms / 8, (2 * ms) / buttons.length);
  buttons.forEach((b, i) => {
    const delay = Math.round(i * step);
    b.style.setProperty("--deal-ms", `${ms}ms`);
    b.style.setProperty("--deal-delay", `${delay}ms`);
    b.classList.add("deal-in");
    setTimeout(() => b.classList.remove("deal-in"), delay + ms + 50);
  });
}

function newCardButton(key, code) {
  const b = document.createElement("button");
  b.type = "button";
  b.className = "card";
  b.dataset.key = key;
  b.setAttribute("data-card", code);
  b.append(cardFace(code));
  // The index is read at click time: it shifts as cards leave the hand.
  b.addEventListener("click", () => handlers.onCard(Number(b.dataset.index)));
  b.addEventListener("focus", () => setFocus(Number(b.dataset.index)));
  return b;
}

function updateCardButton(b, i, code, { legal, mine, top }) {
  b.dataset.index = String(i);
  const kinds = exposableKinds(code);
  // Playwright and assistive technology treat aria-disabled cards as not clickable, so an
  // exposable card is enabled during the exposure phase (where no card is a legal play).
  const usable = legal.has(code) || kinds.length > 0;
  b.setAttribute("aria-disabled", usable ? "false" : "true");
  b.tabIndex = i === page.focus ? 0 : -1;
  const mark = page.marks.get(i);
  b.classList.toggle("exposable", kinds.length > 0);
  b.classList.toggle("marked", Boolean(mark));
  b.classList.toggle("is-exposed", mine.includes(code));
  b.classList.toggle("selected", page.selection.includes(i));
  b.classList.toggle("hinted", top.includes(code));
  if (kinds.length) b.setAttribute("aria-pressed", mark ? "true" : "false");
  else b.removeAttribute("aria-pressed");
  for (const badge of b.querySelectorAll(".badge")) badge.remove();
  let label = cardName(code);
  if (mark) {
    b.prepend(span("badge", t(`kind.${mark}`)));
    label += `, ${t("hand.marked", { kind: t(`kind.${mark}`) })}`;
  }
  if (mine.includes(code)) {
    b.prepend(span("badge exposed-badge", t("hand.exposed")));
    label += `, ${t("hand.exposedName")}`;
  }
  b.setAttribute("aria-label", label);
}

/** Move the roving focus to hand card `i` (wrapping around) and focus it. */
export function focusCard(i) {
  const buttons = $("hand").querySelectorAll("button.card");
  if (!buttons.length) return;
  setFocus((i + buttons.length) % buttons.length);
  buttons.forEach((b, k) => { b.tabIndex = k === page.focus ? 0 : -1; });
  buttons[page.focus].focus();
}
