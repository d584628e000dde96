// Replay of a finished deal, trick by trick, from its R11 record (GET
// /api/matches/{id}/deals/{k}).  Used by the table page (after a deal) and the history page.
// Everything shown is in the record: the hands as dealt, the exposures, the tricks in order.
// Its 复盘 / Review button (with the seat to review) asks the server for the review of that
// seat's decisions (review.js); once it has come, the seat's card in each trick carries its
// mark ([data-mark="??"]) and the review of the step shown is drawn under the table.  Its 试走 /
// What if button turns the table into the what-if board of that seat at the step shown
// (whatif.js), until it is left.
//
// May import: cards.js, i18n.js, review.js, whatif.js.

import { cardFace, isPointCard, sortCards } from "./cards.js";
import { applyI18n, cardName, presetLabel, seatName, t } from "./i18n.js";
import { ReviewPanel } from "./review.js";
import { WhatIfBoard, drawSeatRows } from "./whatif.js";

const SEATS = ["N", "E", "S", "W"];

function node(tag, cls = "", text = null) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== null) e.textContent = text;
  return e;
}

/** The dialog, built once per page. */
function dialog() {
  let dlg = document.getElementById("replay");
  if (dlg) return dlg;
  dlg = node("dialog", "replay");
  dlg.id = "replay";
  dlg.innerHTML = `
    <header class="replay-head"><h2 id="replay-title"></h2>
      <span class="replay-tools">
        <select class="review-seat" data-i18n-aria-label="review.seat"></select>
        <button type="button" class="replay-review" data-i18n="review.button"></button>
        <button type="button" class="replay-whatif" data-i18n="whatif.button"></button>
        <button type="button" class="replay-close" data-i18n="btn.close"></button>
      </span></header>
    <div class="replay-table">
      <section class="rseat rseat-N"></section><section class="rseat rseat-W"></section>
      <section class="rcenter"></section><section class="rseat rseat-E"></section>
      <section class="rseat rseat-S"></section>
    </div>
    <p class="replay-step" aria-live="polite"></p>
    <nav class="replay-nav">
      <button type="button" data-step="first" data-i18n="replay.first"></button>
      <button type="button" data-step="prev" data-i18n="replay.prev"></button>
      <button type="button" data-step="next" data-i18n="replay.next"></button>
      <button type="button" data-step="last" data-i18n="replay.last"></button>
    </nav>
    <section class="whatif" hidden></section>
    <section class="review" hidden></section>`;
  document.body.append(dlg);
  dlg.querySelector(".replay-close").addEventListener("click", () => dlg.close());
  // A closed replay stops following its review.
  dlg.addEventListener("close", () => panel?.stop());
  return dlg;
}

let panel = null; // the review panel of the dialog (one per page)
let board = null; // the what-if board of the dialog (one per page)

/** Remove one copy of each played card (two decks hold identical copies). */
function without(cards, played) {
  const rest = [...cards];
  for (const c of played) {
    const k = rest.indexOf(c);
    if (k >= 0) rest.splice(k, 1);
  }
  return rest;
}

/** Hands and taken point cards (the server's list, cards.js) after the first `step` tricks. */
function position(record, step) {
  const hands = Object.fromEntries(SEATS.map((s) => [s, [...(record.hands?.[s] ?? [])]]));
  const taken = Object.fromEntries(SEATS.map((s) => [s, []]));
  for (const trick of record.tricks.slice(0, step)) {
    const all = [];
    for (const p of trick.plays) {
      hands[p.seat] = without(hands[p.seat], p.cards);
      all.push(...p.cards);
    }
    // Under discard_color=penalty the taker can differ from the winner (R5.2).
    taken[trick.taker ?? trick.winner].push(...all.filter(isPointCard));
  }
  return { hands, taken };
}

function drawSeat(box, record, seat, hand, taken, final) {
  box.replaceChildren();
  const head = node("div", "seat-head");
  head.append(node("strong", "", seatName(seat)));
  if (final) head.append(node("span", "total", t("replay.scores", { raw: record.raw?.[seat] ?? "", final: record.final?.[seat] ?? "" })));
  box.append(head);
  const cards = node("div", "rhand");
  for (const c of sortCards(hand)) {
    const face = node("div", "card-face sm");
    face.setAttribute("role", "img");
    face.setAttribute("aria-label", cardName(c));
    face.append(cardFace(c));
    cards.append(face);
  }
  box.append(cards);
  drawSeatRows(box, record, seat, taken);
}

/** The trick's plays; `marked` ({seat, mark, uncertain} or null): the reviewed seat's play, with
 * the review's mark of it (null: no mark), in brackets and dimmed when inside the search's noise. */
function drawCenter(box, trick, marked) {
  box.replaceChildren();
  if (!trick) return;
  for (const p of trick.plays) {
    const slot = node("div", `slot slot-${p.seat}`);
    if (p.seat === trick.winner) slot.classList.add("winner");
    if (p.seat === trick.leader) slot.classList.add("leader");
    const reviewed = marked && marked.seat === p.seat;
    if (reviewed) slot.classList.add("reviewed");
    const shown = reviewed && marked.mark ? (marked.uncertain ? `(${marked.mark})` : marked.mark) : "";
    for (const c of p.cards) {
      const face = node("div", "card-face");
      face.setAttribute("role", "img");
      face.setAttribute("aria-label", `${seatName(p.seat)} ${cardName(c)}${shown ? ` ${shown}` : ""}`);
      face.append(cardFace(c));
      if (reviewed && marked.mark) face.dataset.mark = marked.mark;
      slot.append(face);
    }
    if (p.seat === trick.leader) {
      // The gold dot under the card that led the trick, saying so in words (as on the table).
      const lead = node("span", "lead-mark");
      lead.title = t("center.leader", { seat: seatName(p.seat) });
      lead.setAttribute("role", "img");
      lead.setAttribute("aria-label", lead.title);
      slot.append(lead);
    }
    if (reviewed && marked.mark) {
      const badge = node("span", "mark-badge", shown);
      badge.dataset.mark = marked.mark;
      if (marked.uncertain) {
        badge.dataset.uncertain = "";
        badge.classList.add("mark-uncertain");
      }
      slot.append(badge);
    }
    box.append(slot);
  }
}

/**
 * Open the replay of `record` (an R11 deal record) at the deal's start.  `seat`: the seat its
 * review is of (chosen in the dialog; South by default); with `review` true that review is asked
 * for at once; with `whatif` (a line of plays) the dialog opens on the what-if board of `seat` there.
 */
export function showReplay(record, { title = "", seat = "S", review = false, whatif = null } = {}) {
  const dlg = dialog();
  applyI18n(dlg);
  const total = record.tricks?.length ?? 0;
  let step = 0;
  const draw = () => {
    if (board.active) return; // the what-if board holds the table
    const { hands, taken } = position(record, step);
    const final = step === total;
    for (const seat of SEATS) drawSeat(dlg.querySelector(`.rseat-${seat}`), record, seat, hands[seat], taken[seat], final);
    const trick = step > 0 ? record.tricks[step - 1] : null;
    drawCenter(dlg.querySelector(".rcenter"), trick, panel.markAt(step));
    panel.show(step);
    dlg.querySelector(".replay-step").textContent = trick
      ? t("replay.trick", { step, total, seat: seatName(trick.winner) })
      : t("replay.dealt", { step, total });
    const nav = (name) => dlg.querySelector(`[data-step="${name}"]`);
    nav("first").disabled = nav("prev").disabled = step === 0;
    nav("next").disabled = nav("last").disabled = step === total;
  };
  const go = (where) => {
    const target = { first: 0, prev: step - 1, next: step + 1, last: total }[where];
    step = Math.max(0, Math.min(total, target));
    draw();
  };
  if (!panel) panel = new ReviewPanel(dlg.querySelector(".review"), {});
  if (!board) board = new WhatIfBoard(dlg);
  board.reset(record);
  board.onLeave = () => draw();
  // The panel's callbacks draw this replay (a later replay replaces them).
  panel.onReady = () => draw();
  panel.onJump = (to) => {
    step = Math.max(0, Math.min(total, to));
    draw();
  };
  panel.reset(record);
  const seats = dlg.querySelector(".review-seat");
  seats.replaceChildren(...SEATS.map((s) => {
    const opt = node("option", "", seatName(s));
    opt.value = s;
    opt.selected = s === seat;
    return opt;
  }));
  const oldReview = dlg.querySelector(".replay-review");
  const reviewButton = oldReview.cloneNode(true);
  oldReview.replaceWith(reviewButton);
  reviewButton.addEventListener("click", () => panel.start(seats.value));
  const oldWhatIf = dlg.querySelector(".replay-whatif");
  const whatIfButton = oldWhatIf.cloneNode(true);
  oldWhatIf.replaceWith(whatIfButton);
  // At the trick shown (the replay's step k shows trick k): the deal as played up to the seat's
  // turn in it, so that the seat's decision there is the one tried.
  const shownTrick = () => board.recordLine(Math.max(0, step - 1));
  whatIfButton.addEventListener("click", () => board.enter(seats.value, shownTrick()));
  // Another seat chosen on the what-if board: the same position, from that seat.
  seats.onchange = () => { if (board.active) board.enter(seats.value, board.answer?.line ?? shownTrick()); };
  dlg.querySelector("#replay-title").textContent =
    title || `${t("replay.title")} · ${presetLabel(record.preset ?? "")} · ${t("history.dealN", { n: (record.deal_index ?? 0) + 1 })}`;
  // Replace the handlers of a previous replay: clone the nav so old listeners go away.
  const oldNav = dlg.querySelector(".replay-nav");
  const nav = oldNav.cloneNode(true);
  oldNav.replaceWith(nav);
  nav.addEventListener("click", (ev) => {
    const b = ev.target.closest("[data-step]");
    if (b) go(b.dataset.step);
  });
  dlg.onkeydown = (ev) => {
    const where = { ArrowLeft: "prev", ArrowRight: "next", Home: "first", End: "last" }[ev.key];
    if (!where || board.active || ev.target.closest?.("select")) return;
    ev.preventDefault();
    go(where);
  };
  draw();
  if (!dlg.open) dlg.showModal();
  nav.querySelector('[data-step="next"]').focus();
  if (review) panel.start(seats.value);
  if (whatif) board.enter(seats.value, whatif);
}
