// The what-if board (试走) of the replay dialog (replay.js), as a chess analysis board: from any
// step of a finished deal's replay, play one of the seat's legal cards and go on from there.
// Each move asks POST /api/matches/{id}/deals/{k}/whatif ({"seat", "line"}: the plays from the
// first lead, "QS" or "5H+5H" for a pair); the server answers the other seats' plays (as in the
// deal while the line follows it, then the expert's), the position reached, and the value of each
// legal card of the seat: `exact`, hindsight with open cards (null where not solved), and
// `expected`, the seat's view.  The board draws that position into the replay's seats and trick
// ([data-whatif-card] buttons for the seat's legal cards), the answers, and the values as a list
// of buttons ([data-play], with the server's numbers in data-exact / data-expected), each
// playing its card; Back undoes the last move, Share gives a link to the position
// (/history?match=ID&deal=K&seat=S&line=…, which history.js opens here).  Every number is the
// server's: this module only places and words them.
//
// May import: cards.js, i18n.js.

import { cardChip, cardFace, prettyCard, sortCards } from "./cards.js";
import { cardName, hasText, refusalText, seatName, t } from "./i18n.js";

const SEATS = ["N", "E", "S", "W"];

function node(tag, cls = "", text = null) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== null) e.textContent = text;
  return e;
}

/** Under a seat's hand in a replay or a what-if board: the cards it exposed (亮牌) with their
 * kind, and the point cards it has taken (`taken`). */
export function drawSeatRows(box, record, seat, taken) {
  const exposed = (record.exposures ?? []).filter((e) => e.seat === seat);
  if (exposed.length) {
    const row = node("div", "exposed");
    row.append(node("span", "label", t("seat.exposed")));
    for (const e of exposed) {
      const chip = cardChip(e.card);
      chip.append(node("span", "kind", t(`kind.${e.kind}`)));
      row.append(chip);
    }
    box.append(row);
  }
  const row = node("div", "captured");
  row.append(node("span", "label", t("seat.captured")));
  for (const c of sortCards(taken)) row.append(cardChip(c));
  box.append(row);
}

/** A play as the line writes it: its cards joined by "+". */
export function playCode(cards) {
  return [...cards].join("+");
}

/** A value as the server sent it, with a true minus sign ("—" when null). */
function number(value) {
  if (value === null || value === undefined) return "—";
  return String(value).replace("-", "−");
}

function playText(cards) {
  return cards.map(prettyCard).join(" ");
}

/** A refusal's words: its catalog message in the page's language, else the server's text. */
/** A refusal in the page's language (the catalog's, else the server's Chinese or English text),
 * with the rule it cites when it names one. */
function whyRefused(body, status) {
  const why = refusalText({ body, status }, { alone: false });  // said after "What-if:"
  const reason = body?.code && body.reason && hasText(body.reason.code) ? `: ${t(body.reason.code, body.reason.params ?? {})}` : "";
  return why + reason;
}

/** The address of a what-if position: the history page opens the replay at it. */
export function whatIfUrl(record, seat, line) {
  const q = [`match=${encodeURIComponent(record.match ?? "")}`, `deal=${record.deal_index ?? 0}`,
    `seat=${encodeURIComponent(seat)}`, `line=${line.map(encodeURIComponent).join(",")}`];
  return `${location.origin}/history?${q.join("&")}`;
}

/**
 * The what-if board of the replay dialog `dlg` (its seats, trick and step line, and the
 * section.whatif under the navigation).  `onLeave()` is called when the person leaves it (the
 * replay draws its step again).
 */
export class WhatIfBoard {
  constructor(dlg) {
    this.dlg = dlg;
    this.box = dlg.querySelector(".whatif");
    this.onLeave = () => {};
    this.reset(null);
  }

  /** A new record is shown: leave what-if, forget its moves. */
  reset(record) {
    this.generation = (this.generation ?? 0) + 1;
    this.record = record;
    this.active = false;
    this.seat = "S";
    this.answer = null;
    this.history = [];
    this.state = null; // {status: "working" | "failed", why}
    this.note = "";
    this.keepFocus = false;
    this.dlg.classList.remove("whatif-on");
    this.box.hidden = true;
    this.box.replaceChildren();
  }

  /** The line of the record's plays in its first `step` tricks. */
  recordLine(step) {
    return (this.record?.tricks ?? []).slice(0, step).flatMap((trick) => trick.plays.map((p) => playCode(p.cards)));
  }

  /** Enter what-if for `seat` at `line` (the record's plays up to a step, or a shared line). */
  enter(seat, line) {
    this.seat = seat;
    this.active = true;
    this.history = [];
    this.answer = null;
    this.note = "";
    this.dlg.classList.add("whatif-on");
    this.box.hidden = false;
    return this.go(line, false);
  }

  leave() {
    this.generation += 1;
    this.active = false;
    this.dlg.classList.remove("whatif-on");
    this.box.hidden = true;
    this.box.replaceChildren();
    this.onLeave();
  }

  /** Ask for the position after `line`; `push`: the position shown now is one Back returns to. */
  async go(line, push = true) {
    const gen = ++this.generation;
    this.state = { status: "working" };
    this.drawPanel();
    const match = encodeURIComponent(this.record.match ?? "");
    const url = `/api/matches/${match}/deals/${this.record.deal_index ?? 0}/whatif`;
    let res;
    let body = null;
    try {
      res = await fetch(url, {
        method: "POST", credentials: "same-origin", headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ seat: this.seat, line }),
      });
      body = await res.json().catch(() => null);
    } catch {
      if (gen !== this.generation) return;
      this.state = { status: "failed", why: t("msg.offline") };
      this.drawPanel();
      return;
    }
    if (gen !== this.generation) return;
    if (!res.ok || !body) {
      this.state = { status: "failed", why: whyRefused(body, res.status) };
      this.drawPanel();
      return;
    }
    if (push && this.answer) this.history.push(this.answer);
    this.answer = body;
    this.state = null;
    this.note = "";
    this.draw();
  }

  /** Play `cards` (a legal play of the seat) from the position shown. */
  play(cards) {
    if (!this.answer || this.state?.status === "working") return;
    this.go([...this.answer.line, playCode(cards)]);
  }

  /** The line Back returns to from a position reached without history (a shared link): up to the
   * seat's last play, or null when it has made none. */
  backLine() {
    const a = this.answer;
    if (!a) return null;
    const last = a.seats.lastIndexOf(this.seat);
    return last < 0 ? null : a.line.slice(0, last);
  }

  back() {
    if (this.state?.status === "working") return;
    if (this.history.length) {
      this.generation += 1;
      this.answer = this.history.pop();
      this.state = null;
      this.note = "";
      this.draw();
      return;
    }
    const line = this.backLine();
    if (line) this.go(line, false);
  }

  async share() {
    const link = this.box.querySelector(".whatif-link");
    link.value = whatIfUrl(this.record, this.seat, this.answer.line);
    link.hidden = false;
    try {
      await navigator.clipboard.writeText(link.value);
      this.note = t("whatif.copied");
    } catch {
      this.note = t("whatif.copyFailed");
    }
    const note = this.box.querySelector(".whatif-note");
    note.textContent = this.note;
    note.dataset.copied = this.note === t("whatif.copied") ? "true" : "false";
    link.select();
  }

  // ---------------------------------------------------------------- drawing

  draw() {
    this.drawBoard();
    this.drawPanel();
  }

  /** The position into the replay's seats, trick and step line. */
  drawBoard() {
    const a = this.answer;
    if (!a) return;
    const pos = a.position;
    const legal = new Set(a.values.filter((v) => v.cards.length === 1).map((v) => v.cards[0]));
    for (const seat of SEATS) this.drawSeat(this.dlg.querySelector(`.rseat-${seat}`), seat, pos, legal);
    const center = this.dlg.querySelector(".rcenter");
    center.replaceChildren();
    const shown = pos.current.length ? pos.current : (pos.last?.plays ?? []);
    if (!pos.current.length && pos.last) {
      center.append(node("p", "whatif-last", t("whatif.lastTrick", { seat: pos.last.winner })));
    }
    for (const p of shown) {
      const slot = node("div", `slot slot-${p.seat}`);
      if (!pos.current.length && p.seat === pos.last.winner) slot.classList.add("winner");
      for (const c of p.cards) {
        const face = node("div", "card-face");
        face.setAttribute("role", "img");
        face.setAttribute("aria-label", `${seatName(p.seat)} ${cardName(c)}`);
        face.dataset.card = c;
        face.append(cardFace(c));
        slot.append(face);
      }
      center.append(slot);
    }
    const step = this.dlg.querySelector(".replay-step");
    if (pos.over) {
      const results = SEATS.map((s) => t("whatif.result", { seat: s, result: number(pos.results[s]) }))
        .join(t("list.separator"));
      step.textContent = t("whatif.over", { results });
    } else {
      step.textContent = t("whatif.turn", { trick: pos.trick, seat: pos.turn });
    }
  }

  drawSeat(box, seat, pos, legal) {
    box.replaceChildren();
    const head = node("div", "seat-head");
    head.append(node("strong", "", seatName(seat)));
    box.append(head);
    const cards = node("div", "rhand");
    const mine = seat === this.seat && pos.turn === seat;
    for (const c of sortCards(pos.hands[seat] ?? [])) {
      if (mine && legal.has(c)) {
        const b = node("button", "card-face sm whatif-card");
        b.type = "button";
        b.dataset.whatifCard = c;
        b.dataset.card = c;
        b.setAttribute("aria-label", t("whatif.play", { card: cardName(c) }));
        b.append(cardFace(c));
        b.addEventListener("click", () => this.play([c]));
        cards.append(b);
      } else {
        const face = node("div", "card-face sm");
        face.setAttribute("role", "img");
        face.setAttribute("aria-label", cardName(c));
        face.dataset.card = c;
        face.append(cardFace(c));
        cards.append(face);
      }
    }
    box.append(cards);
    drawSeatRows(box, this.record, seat, pos.taken[seat] ?? []);
  }

  /** The panel under the navigation: where the line stands, the answers, the values, the tools. */
  drawPanel() {
    const box = this.box;
    if (!this.active) return;
    // The keyboard stays on the board: where it was in the panel or on a card, it comes back to
    // the first value once the answer is drawn (the panel is drawn anew meanwhile).
    if (box.contains(document.activeElement) || document.activeElement?.classList.contains("whatif-card")) {
      this.keepFocus = true;
    }
    box.replaceChildren();
    box.append(node("h3", "whatif-heading", t("whatif.heading", { seat: this.seat })));
    const status = node("p", "whatif-status");
    status.setAttribute("role", "status");
    status.dataset.whatifStatus = this.state?.status ?? "shown";
    if (this.state?.status === "working") status.textContent = t("whatif.working");
    else if (this.state?.status === "failed") {
      status.classList.add("error");
      status.textContent = t("whatif.error", { why: this.state.why ?? "" });
    }
    box.append(status);
    const a = this.answer;
    if (a) {
      const path = node("p", "whatif-path", a.diverged === null ? t("whatif.following")
        : t("whatif.diverged", { index: a.diverged + 1 }));
      path.dataset.diverged = a.diverged === null ? "" : String(a.diverged);
      box.append(path);
      if (a.answers.length) {
        const plays = a.answers.map((p) => t("whatif.answer", { seat: p.seat, cards: playText(p.cards),
          by: t(p.by === "record" ? "whatif.byRecord" : "whatif.byExpert") })).join(t("list.separator"));
        const answered = node("p", "whatif-answers", t("whatif.answered", { plays }));
        answered.dataset.answers = String(a.answers.length);
        box.append(answered);
      }
      if (a.values.length) box.append(this.values());
    }
    box.append(this.tools());
    if (this.keepFocus && this.state?.status !== "working") {
      this.keepFocus = false;
      const first = box.querySelector("[data-play]:not(:disabled)") ?? box.querySelector(".whatif-leave");
      first?.focus();
    }
  }

  /** The seat's legal plays with their values, each a button that plays it. */
  values() {
    const a = this.answer;
    const section = node("section", "whatif-values");
    section.append(node("h4", "", t("whatif.values", { seat: this.seat })));
    section.append(node("p", "help", t("whatif.help", { seat: this.seat })));
    const head = node("div", "whatif-row whatif-head");
    head.setAttribute("aria-hidden", "true");
    head.append(node("span", "whatif-cards", ""), node("span", "whatif-exact", t("whatif.exactHead")),
      node("span", "whatif-expected", t("whatif.expectedHead", { seat: this.seat })));
    section.append(head);
    const list = node("ol", "whatif-list");
    for (const v of a.values) {
      const b = node("button", "whatif-row whatif-value");
      b.type = "button";
      b.dataset.play = playCode(v.cards);
      b.dataset.exact = v.exact === null ? "" : String(v.exact);
      b.dataset.expected = String(v.expected);
      const notes = [];
      if (v.best_exact) notes.push(t("whatif.bestExact"));
      if (v.best_expected) notes.push(t("whatif.bestExpected"));
      if (v.actual) notes.push(t("whatif.actual"));
      b.append(node("span", "whatif-cards", playText(v.cards)),
        node("span", "whatif-exact", number(v.exact)), node("span", "whatif-expected", number(v.expected)),
        node("span", "whatif-notes", notes.join(t("list.separator"))));
      if (v.best_exact) b.dataset.bestExact = "";
      if (v.best_expected) b.dataset.bestExpected = "";
      if (v.actual) b.dataset.actual = "";
      b.setAttribute("aria-label", `${t("whatif.play", { card: v.cards.map(cardName).join(" ") })}: `
        + `${t("whatif.exactHead")} ${number(v.exact)}, ${t("whatif.expectedHead", { seat: this.seat })} `
        + `${number(v.expected)}${notes.length ? `; ${notes.join(t("list.separator"))}` : ""}`);
      b.disabled = this.state?.status === "working";
      b.addEventListener("click", () => this.play(v.cards));
      const li = node("li");
      li.append(b);
      list.append(li);
    }
    section.append(list);
    if (!a.exact.solved && a.exact.why !== "over") {
      const none = node("p", "help whatif-noexact", t("whatif.noExactLimit", { limit: a.exact.limit.toLocaleString() }));
      none.dataset.why = a.exact.why;
      section.append(none);
    }
    section.append(node("p", "help whatif-legend", t(a.exact.meaning === "two_teams" ? "whatif.legendTeams"
      : "whatif.legendWorst", { seat: this.seat, worlds: a.expected.worlds })));
    return section;
  }

  tools() {
    const bar = node("div", "whatif-tools");
    const back = node("button", "whatif-back", t("whatif.back"));
    back.type = "button";
    back.disabled = this.state?.status === "working" || (!this.history.length && !this.backLine());
    back.addEventListener("click", () => this.back());
    const share = node("button", "whatif-share", t("whatif.share"));
    share.type = "button";
    share.disabled = !this.answer;
    share.addEventListener("click", () => this.share());
    const leave = node("button", "whatif-leave", t("whatif.leave"));
    leave.type = "button";
    leave.addEventListener("click", () => this.leave());
    const link = node("input", "whatif-link");
    link.type = "text";
    link.readOnly = true;
    link.hidden = true;
    link.setAttribute("aria-label", t("whatif.link"));
    const note = node("span", "whatif-note", this.note);
    note.setAttribute("aria-live", "polite");
    bar.append(back, share, leave, note, link);
    return bar;
  }
}
