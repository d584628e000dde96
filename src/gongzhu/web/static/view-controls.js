// The views below the table: the buttons (亮出所选 / 不亮 ends the exposure phase, hint, last
// trick, 下一副/Next deal, summary, new match — neither the hint nor another match in a
// challenge; at a table of several people 托管 and taking
// the seat back, leaving the seat), the status line, the person's clock, the plays offered
// when a two-card selection is ambiguous, and the hint (marked as the network's quick ranking or
// the expert's): its top play in one line above the hand (the play, its expected result, the
// reason), the whole ranked list one tap away (#hint-more opens it over the table, within the
// screen).  Clicks on an offered or hinted play go to the handler given to initControls; the
// fixed buttons are wired by app.js.
//
// May import: state.js, dom.js, cards.js, i18n.js.

import { prettyCard } from "./cards.js";
import { $, button, li, span } from "./dom.js";
import { cardName, claimWhat, getLang, seatList, seatName, t } from "./i18n.js";
import {
  challengeOf, clock, dealKey, declaring, displayedPhase, hintsOffered, myAuto, mySeat, myTurn, page, sociable,
} from "./state.js";

let handlers = { onPlay: () => {} };
let listOpen = false;  // the whole ranked list is shown (#hint-more)

/** `onPlay(cards)`: an offered or hinted play was chosen. */
export function initControls(h) {
  handlers = h;
  $("hint-more").addEventListener("click", () => {
    listOpen = !listOpen;
    drawHintList();
  });
}

/** The hint's line, or its whole list opened over the table: as high as the screen has room
 * for above the line (it scrolls within that). */
function drawHintList() {
  const box = $("hints");
  const open = listOpen && !box.hidden;
  box.classList.toggle("open", open);
  // 更多 / More opens the list, 收起 / Less folds it again (its arrow: style.css).
  const more = $("hint-more");
  more.setAttribute("aria-expanded", String(open));
  more.title = t(open ? "btn.less" : "btn.menu");
  const label = more.querySelector(".more-label");
  if (label) label.textContent = more.title;
  if (open) $("hint-pop").style.maxHeight = `${Math.max(96, Math.floor(box.getBoundingClientRect().top) - 6)}px`;
}

export function renderControls() {
  const s = page.state;
  const phase = displayedPhase();
  const seated = Boolean(mySeat());
  const mine = phase === "expose" && declaring();
  const auto = myAuto();
  const playing = phase === "expose" || phase === "play" || phase === "deal-over";
  $("start").hidden = !mine || page.pending || auto;
  $("start").textContent = t(page.marks.size ? "btn.exposeMarked" : "btn.start");  // 亮出所选 / 不亮
  $("hint").hidden = phase !== "play" || !hintsOffered();
  // 声称 (R5.4): a seated player, in play, after the first lead.
  const vote = phase === "play" ? s?.claim ?? null : null;  // a claim put to the others, waiting
  const claimable = phase === "play" && seated && !auto && !vote && page.claimSpent !== dealKey(s)
    && Boolean(s && (s.tricks_played > 0 || s.trick?.plays?.length));
  $("claim").hidden = !claimable;
  $("claim").setAttribute("aria-expanded", String(claimable && page.claimOpen));
  $("claim-menu").hidden = !(claimable && page.claimOpen);
  const asked = Boolean(vote && seated && vote.voters.includes(mySeat()) && !vote.accepted.includes(mySeat()));
  $("claim-vote").hidden = !asked;
  if (asked) $("claim-vote-text").textContent = t("claim.asked", { seat: seatName(vote.seat), what: claimWhat(vote) });
  $("hint").disabled = !myTurn() || auto;
  $("last").hidden = phase !== "play";
  $("last").disabled = !s?.last_trick;
  $("last").setAttribute("aria-pressed", page.showLast ? "true" : "false");
  $("next").hidden = phase !== "deal-over" || !seated;
  // A challenge's boards are played once: no other match of them.
  $("again").hidden = phase !== "match-over" || Boolean(challengeOf());
  $("show-summary").hidden = !(phase === "deal-over" || phase === "match-over");
  $("takeback").hidden = !(seated && auto && playing);
  $("auto").hidden = !(seated && !auto && playing && sociable());
  $("stand").hidden = !(seated && playing && sociable());
  $("status").textContent = statusLine(phase, mine);
  renderClock();

  const choices = $("choices");
  choices.replaceChildren();
  choices.hidden = !page.choices;
  for (const play of page.choices ?? []) {
    choices.append(button("", t("btn.playCards", { cards: play.map(prettyCard).join(" ") }), () => handlers.onPlay(play)));
  }
}

/** The person's own clock: the seconds left to play or declare, drawn again every second. */
export function renderClock() {
  const box = $("clock");
  const c = clock();
  const me = mySeat();
  // Between deals the clock says when the next deal comes by itself (a table with a turn timer).
  const next = Boolean(c && c.kind === "next" && displayedPhase() === "deal-over");
  $("summary-clock").hidden = !next;
  if (next) $("summary-clock").textContent = t("clock.next", { n: Math.ceil(c.remaining) });
  const running = Boolean(c && ((me && c.seats.includes(me)) || next));
  box.hidden = !running;
  if (!running) return;
  const n = Math.ceil(c.remaining);
  const key = { expose: "clock.expose", next: "clock.next", claim: "clock.claim" }[c.kind] ?? "clock.play";
  box.textContent = t(key, { n });
  box.classList.toggle("urgent", c.remaining <= 5);
}

function statusLine(phase, mine) {
  const s = page.state;
  if (!s) return "";
  if (phase === "waiting") {
    if (page.state.you?.host) return ""; // the waiting list tells the host what to do
    return mySeat() ? t("status.waitStart") : t("status.watchWaiting");
  }
  if (mySeat() && myAuto() && phase !== "match-over") return t("status.auto");
  if (!mySeat()) {
    const later = s.you?.next_deal_seat;
    if (later && phase !== "match-over") return t("status.nextDeal", { seat: seatName(later) });
    if (phase === "play" && s.turn) return t("status.watching", { seat: seatName(s.turn) });
    return phase === "expose" ? t("status.waitExpose") : "";
  }
  if (phase === "expose") {
    if (!mine) return t("status.waitExpose");
    if (!(s.exposable ?? []).length) return t("status.nothingToExpose");
    const marked = [...page.marks.entries()].map(([i, k]) => `${prettyCard(page.hand[i])}(${t(`kind.${k}`)})`);
    return marked.length ? t("status.marked", { cards: marked.join(" ") }) : t("status.expose");
  }
  if (phase === "play" && s.claim) {
    const waiting = s.claim.voters.filter((v) => !s.claim.accepted.includes(v));
    return t("claim.waiting", { seat: seatName(s.claim.seat), what: claimWhat(s.claim), voters: seatList(waiting) });
  }
  if (phase === "play") {
    const complete = (page.choices ?? []).some((p) => p.length === page.selection.length);
    if (page.selection.length && !complete) return t("status.chooseMore");
    // Nobody's turn while the deal's last trick stays shown: nothing to wait for.
    return myTurn() ? t("status.yourTurn") : s.turn ? t("status.waiting", { seat: seatName(s.turn) }) : "";
  }
  return "";
}

export function renderHints() {
  const box = $("hints");
  const list = $("hint-list");
  const source = $("hint-source");
  list.replaceChildren();
  box.hidden = page.hints === null;
  if (page.hints === null) listOpen = false;
  const ranked = Array.isArray(page.hints) && page.hints.length > 0;
  const more = $("hint-more");
  more.hidden = !ranked;
  more.replaceChildren(span("more-label", ""), span("more-count", ranked ? String(page.hints.length) : ""));
  if (!ranked) listOpen = false;
  // Who ranked the plays shown: the network's quick ranking until the expert's search answers.
  if (page.hintSource) box.setAttribute("data-source", page.hintSource);
  else box.removeAttribute("data-source");
  source.hidden = !page.hintSource;
  source.textContent = page.hintSource === "network"
    ? (page.hintSearching ? `${t("hint.quick")} · ${t("hint.searching")}` : t("hint.quick"))
    : page.hintSource === "search" ? t("hint.search") : "";
  if (page.hints === null) return drawHintList();
  if (page.hints === "pending") {
    list.append(li(t("hint.thinking")));
    return drawHintList();
  }
  if (!page.hints.length) list.append(li(t("hint.none")));
  for (const h of page.hints) {
    const item = document.createElement("li");
    item.dataset.cards = String(h.cards.length);  // (the narrowest phones lay out a play of two cards apart)
    const b = button("hint-play", h.cards.map(prettyCard).join(" "), () => handlers.onPlay(h.cards));
    b.setAttribute("aria-label", t("btn.playCards", { cards: h.cards.map(cardName).join(" ") }));
    const reason = h.reason?.[getLang()] ?? h.reason?.zh ?? "";
    const expected = span("expected", t("hint.expected", { n: h.expected }));
    expected.title = t("hint.explain");
    const why = span("reason", reason);
    why.title = reason;
    item.append(b, expected, why);
    list.append(item);
  }
  drawHintList();
}
