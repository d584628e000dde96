// The summary dialog after a deal (and after the match): each seat's raw score, its R7 result
// in [data-deal-result="<seat>"] (stable test surface), the lifetime-scored result (生涯计分, with
// a note saying what it is), the match total and how far it is from the match's limit; under
// each seat the point cards taken and how its raw score is made up (hearts, pig, sheep, the
// transformer's factor or its value alone, 满红 / 满贯; a part an exposure counts in names the
// factor of the exposure line), the exposure factors of the deal (each named by its part); the
// deal's events; the match's winners and pigs; in a challenge, a link to the board's traveller
// (成绩表: /challenge/{id}#board-N, N the deal's number) and no other match; at an event's table
// played out, the person's next table once the event has it (去下一桌, next-table.js).  Every number comes
// from the server's `deal_result` and `goal` (the rules core's breakdown): this view adds
// nothing up itself.  It opens when a deal is over unless the person put it away (state.js:
// dismissSummary).
//
// May import: state.js, dom.js, cards.js, i18n.js.

import { cardChip, prettyCard, sortCards } from "./cards.js";
import { $, el, li, span, td } from "./dom.js";
import { eventLabel, goalText, seatName, signedNumber, t } from "./i18n.js";
import { challengeOf, displayedPhase, myAuto, mySeat, page, personAt, SEATS } from "./state.js";

/** Check every deal of the match against its seed and commitment (GET /api/matches/{id}/verify)
 * and say the answer in `said`. */
async function verifyMatch(url, said) {
  said.textContent = t("summary.verifying");
  try {
    const res = await fetch(url, { credentials: "same-origin" });
    const body = res.ok ? await res.json() : null;
    if (body && typeof body.verified === "number") {
      said.textContent = t("summary.verified", { deals: body.verified });
    } else if (body && body.verified === false) {
      said.textContent = t("summary.verifyProblem", { problem: String(body.problem ?? "") });
    } else {
      said.textContent = t("summary.verifyUnavailable");
    }
  } catch {
    said.textContent = t("summary.verifyUnavailable");
  }
}

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
    // Fair dealing: the seed, revealed now, and where to check it against the commitment.
    const table = s.table ?? {};
    if (table.seed && table.commitment) {
      const fair = li(t("summary.fair", { seed: table.seed, commitment: table.commitment.slice(0, 16) }));
      fair.classList.add("fair-dealing");
      const check = document.createElement("a");
      check.id = "summary-verify";
      check.className = "button";
      check.href = `/api/matches/${encodeURIComponent(s.match_id)}/verify`;
      check.target = "_blank";
      check.rel = "noopener";
      check.textContent = t("summary.verify");
      // Checked here, said in words (the JSON stays at the link's address for whoever wants it).
      const said = span("verify-result");
      said.id = "summary-verified";
      said.setAttribute("aria-live", "polite");
      check.addEventListener("click", (event) => {
        event.preventDefault();
        verifyMatch(check.href, said);
      });
      fair.append(" ", check, " ", said);
      match.append(fair);
    }
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
    tr.append(th, td(r.raw?.[seat]), result, td(r.final?.[seat]), td(s.totals?.[seat]), toGoCell(s.goal, seat));
    // The point cards and the breakdown on a row of their own, so the numbers fit a phone's width.
    const cardsRow = el("tr", "cards-row");
    const cards = el("td", "chips");
    cards.colSpan = 6;
    cards.append(span("label", t("summary.cards")));
    const taken = sortCards(s.captured?.[seat] ?? []); // the point cards taken, as the server lists them
    for (const c of taken) cards.append(cardChip(c));
    if (!taken.length) cards.append(span("none", "—"));
    const parts = r.parts?.[seat];
    if (parts) cards.append(breakdown(parts, r.factors ?? []));
    cardsRow.append(cards);
    body.append(tr, cardsRow);
  }
  $("summary-goal-head").textContent = goalHeading(s.goal);
  const factors = r.factors ?? [];
  const exposed = $("summary-factors");
  exposed.hidden = !factors.length;
  // Each exposed card's factor, named by the part of the breakdown it counts in (猪 ♠Q ×2, 变压器 ♣10 ×2).
  exposed.textContent = factors.length
    ? t("summary.factors", {
      factors: factors.map((f) => t("summary.factor", { part: t(`summary.exposed.${f.card}`), card: prettyCard(f.card), factor: f.factor }))
        .join(t("list.separator")),
    })
    : "";
  // A deal dealt to fewer than two accounts people apart, or to two linked accounts, or to a guest
  // or a computer below 中级, or scored otherwise than any preset, is practice, apart from the
  // lifetime score: the server says so (deal_result.practice, docs/ratings.md). A challenge's or
  // an event's boards count in its standings only, and a chosen seed at a table of people nowhere.
  const note = challengeOf() ? "summary.competitionNote"
    : r.practice ? "summary.practiceNote"
      : page.state?.table?.seeded ? "summary.seededNote" : "summary.lifetimeNote";
  // What the lifetime score did not count of this person's final (a loss not counted: below 0):
  // the share of an account new here, or a win beyond the week's bound with one account
  // (state.lifetime.withheld, docs/ratings.md, Won from one person).
  const withheld = note === "summary.lifetimeNote" ? s.lifetime?.withheld ?? 0 : 0;
  $("summary-lifetime").textContent = t(note, { factor: r.lifetime_factor ?? 1 })
    + (withheld !== 0 ? ` ${t("summary.withheldNote", { withheld })}` : "");
  $("summary-goal").textContent = goalText(s.goal);
  const events = $("summary-events");
  events.replaceChildren();
  for (const e of r.events ?? []) events.append(li(t("summary.event", { seat: seatName(e.seat), event: eventLabel(e.event) })));
  if (!(r.events ?? []).length) events.append(li(t("summary.noEvents")));
  // The next deal is asked for by a seated person (a spectator only closes the summary).
  $("summary-next").hidden = phase !== "deal-over" || !me;
  // In a challenge: no other match of its boards, and the board's traveller on the challenge's page.
  const challenge = challengeOf();
  $("summary-again").hidden = phase !== "match-over" || Boolean(challenge);
  $("summary-traveller").hidden = !challenge;
  if (challenge) $("summary-traveller").href = `${challenge.url}#board-${s.deal_index + 1}`;
  $("summary-next-table").hidden = !(phase === "match-over" && page.nextTable);
  if (page.nextTable) $("summary-next-table").href = page.nextTable;
  $("summary-takeback").hidden = !(me && myAuto() && phase === "deal-over");
  $("summary-download").href = `/api/matches/${encodeURIComponent(s.match_id)}/records.jsonl`;
  if (page.summaryDismissed) {
    if (dlg.open) dlg.close();
  } else if (!dlg.open) {
    dlg.showModal();
    showFromTop(dlg);
  }
}

/** The summary opens at its top (its title and first rows), however tall it is: showModal puts
 * the keyboard on the dialog's first button (回放本副, at its end), scrolling down to it.  The
 * keyboard goes to the deal's next step instead (下一副 / 再来一局 / 去下一桌, in the button row
 * that stays at the dialog's bottom: style.css), without scrolling. */
function showFromTop(dlg) {
  const next = ["summary-next", "summary-next-table", "summary-again"].map((id) => $(id)).find((b) => !b.hidden);
  if (next) next.focus({ preventScroll: true });
  dlg.scrollTop = 0;
}

/** How a seat's raw score is made up (R6), as the rules core sent it: the values of the hearts,
 * the pig and the sheep taken, the transformer's factor on them (or its value alone), 满红 / 满贯.
 * A part that an exposure counts in says so with the factor the exposure line names (`factors`:
 * ♥A for the hearts, ♠Q the pig, ♦J the sheep, ♣10 the transformer). */
function breakdown(p, factors) {
  const line = el("span", "breakdown");
  line.dataset.breakdown = "";
  const factorOf = (card) => factors.find((f) => f.card === card)?.factor;
  const exposed = (text, card) => (factorOf(card) ? t("summary.part.exposed", { part: text, factor: factorOf(card) }) : text);
  const terms = [];
  if (p.alone) {
    terms.push(exposed(t("summary.part.alone", { value: signedNumber(p.alone), n: p.transformers }), "TC"));
  } else {
    if (p.hearts) terms.push(exposed(t(p.all_hearts ? "summary.part.allHearts" : "summary.part.hearts", { value: signedNumber(p.hearts) }), "AH"));
    if (p.pig) terms.push(exposed(t(p.grand_slam ? "summary.part.pigSlam" : "summary.part.pig", { value: signedNumber(p.pig) }), "QS"));
    if (p.sheep) terms.push(exposed(t("summary.part.sheep", { value: signedNumber(p.sheep) }), "JD"));
  }
  let text = terms.length ? terms.join(" ") : t("summary.part.none");
  if (p.multiplier !== 1) {
    text = factorOf("TC")
      ? t("summary.part.timesExposed", { sum: text, factor: p.multiplier, exposed: factorOf("TC") })
      : t("summary.part.times", { sum: text, factor: p.multiplier });
  }
  line.textContent = t("summary.part.line", { parts: text, raw: signedNumber(p.raw) });
  return line;
}

/** How far `seat`'s total is from the match's limit (R8), or the deals left; a total at or past
 * the limit has reached it (the server's distance is then 0 or below). */
function toGoCell(goal, seat) {
  const n = goal?.to_go?.[seat];
  return goal?.kind !== "deals" && typeof n === "number" && n <= 0 ? td(t("summary.limitReached")) : td(n);
}

/** The heading of the column that says how far each total is from the match's end. */
function goalHeading(goal) {
  return goal?.kind === "deals" ? t("summary.dealsLeft") : t("summary.toLimit");
}
