// The summary dialog after a deal (and after the match): each seat's raw score, its R7 result
// in [data-deal-result="<seat>"] (stable test surface), the lifetime-scored result, the match
// total and the point cards taken; the deal's events; the match's winners and pigs.  It opens
// when a deal is over unless the person put it away (state.js: dismissSummary).
//
// May import: state.js, dom.js, cards.js, i18n.js.

import { cardChip, isPointCard, sortCards } from "./cards.js";
import { $, el, li, span, td } from "./dom.js";
import { eventLabel, seatName, t } from "./i18n.js";
import { displayedPhase, myAuto, mySeat, page, SEATS } from "./state.js";

export function renderSummary() {
  const dlg = $("summary");
  const s = page.state;
  const phase = displayedPhase();
  const over = phase === "deal-over" || phase === "match-over";
  if (!over || !s.deal_result) {
    if (dlg.open) dlg.close();
    return;
  }
  const r = s.deal_result;
  $("summary-title").textContent = phase === "match-over" ? t("summary.matchOver") : t("summary.dealOver", { n: s.deal_index + 1 });
  const me = mySeat();
  const match = $("summary-match");
  match.replaceChildren();
  if (phase === "match-over" && s.match_result) {
    const names = (seats) => seats.map(seatName).join(t("list.separator"));
    match.append(li(t("summary.winners", { seats: names(s.match_result.winners ?? []) })));
    match.append(li(t("summary.pigs", { seats: names(s.match_result.pigs ?? []) })));
    if ((s.match_result.winners ?? []).includes(me)) match.append(li(t("summary.youWin")));
    if ((s.match_result.pigs ?? []).includes(me)) match.append(li(t("summary.youPig")));
  }
  const body = $("summary-rows");
  body.replaceChildren();
  for (const seat of SEATS) {
    const tr = document.createElement("tr");
    const th = el("th", "", seat === me ? t("seat.you", { seat: seatName(me) }) : seatName(seat));
    th.scope = "row";
    const result = document.createElement("td");
    result.setAttribute("data-deal-result", seat);
    // The R7 result exactly as added to the match total: a plain integer, ASCII minus.
    result.textContent = String(r.result?.[seat] ?? 0);
    tr.append(th, td(r.raw?.[seat]), result, td(r.final?.[seat]), td(s.totals?.[seat]));
    // The point cards on a row of their own, so the numbers fit a phone's width.
    const cardsRow = el("tr", "cards-row");
    const cards = el("td", "chips");
    cards.colSpan = 5;
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
  // The next deal is asked for by a seated person (a spectator only closes the summary).
  $("summary-next").hidden = phase !== "deal-over" || !me;
  $("summary-again").hidden = phase !== "match-over";
  $("summary-takeback").hidden = !(me && myAuto() && phase === "deal-over");
  $("summary-download").href = `/api/matches/${encodeURIComponent(s.match_id)}/records.jsonl`;
  if (page.summaryDismissed) {
    if (dlg.open) dlg.close();
  } else if (!dlg.open) {
    dlg.showModal();
  }
}
