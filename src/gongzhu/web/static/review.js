// The review of one seat's decisions in a finished deal, shown in the replay dialog (replay.js):
// asked for with POST /api/matches/{id}/deals/{k}/review ({"seat": "S"}), followed with GET
// ...?seat=S every POLL_MS while the server works on it ("复盘中 3/20"), then drawn: the result,
// the par, the luck and the loss ([data-review="result" | "par" | "luck" | "loss"], each with
// the server's number in data-value), a graph of the seat's expected result through the deal
// (inline SVG, the par a dashed line, the trick shown highlighted, each decision a dot with its
// mark in data-mark), the costliest moments as buttons that jump to their trick
// ([data-moment]), what the marks mean, and for the step the replay shows the seat's decision:
// what was played, its mark, the best choice and the loss, the hindsight of the open-card solver
// (labelled as such), what the trick changed.  Every number is the server's
// (gongzhu-review/2): this module computes no score, it only places and words them.
//
// May import: cards.js, i18n.js.

import { prettyCard } from "./cards.js";
import { refusalText, t } from "./i18n.js";

/** How often a running review is asked about (ms). */
const POLL_MS = 300;
const SVG_NS = "http://www.w3.org/2000/svg";
const SPECIAL = new Set(["QS", "JD", "TC"]);
// The graph's drawing box (SVG user units) and its margins.
const W = 560;
const H = 150;
const PAD = { left: 44, right: 10, top: 10, bottom: 18 };

function node(tag, cls = "", text = null) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== null) e.textContent = text;
  return e;
}

function svg(name, attrs = {}, text = null) {
  const e = document.createElementNS(SVG_NS, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  if (text !== null) e.textContent = text;
  return e;
}

/** A number of the review as the server sent it, with a true minus sign ("—" when null). */
export function reviewNumber(value) {
  if (value === null || value === undefined) return t("review.none");
  return String(value).replace("-", "−");
}

/** A card as the review words it: "♠10", and the pig, the sheep, the transformer by name
 * ("猪 ♠Q", "♠Q (the pig)"). */
function cardText(code) {
  if (!SPECIAL.has(code)) return prettyCard(code);
  return t("review.special", { card: prettyCard(code), name: t(`card.${code}`) });
}

/** A decision's choice in words: the cards of a play, or the exposures of a declaration
 * ([code, kind] pairs; "nothing" for none). */
function choiceText(kind, cards) {
  if (kind === "expose") {
    if (!cards?.length) return t("review.nothing");
    return cards.map(([code, k]) => t("review.exposure", { card: cardText(code), kind: t(`kind.${k}`) }))
      .join(t("list.separator"));
  }
  return (cards ?? []).map(cardText).join(" ");
}

/** A refusal's words: its catalog message in the page's language, else the server's text. */
const sleep = (ms) => new Promise((resolve) => { setTimeout(resolve, ms); });

/**
 * The review panel of the replay dialog, drawn into `box`.  `onReady()` is called when a review
 * arrives (the replay draws its marks then), `onJump(step)` when a moment is chosen.
 */
export class ReviewPanel {
  constructor(box, { onReady, onJump }) {
    this.box = box;
    this.onReady = onReady;
    this.onJump = onJump;
    this.generation = 0;
    this.record = null;
    this.review = null;
    this.state = null; // {status, body} of the last answer while no review has come
    this.step = 0;
  }

  /** A new record is shown: forget the last review (and stop following it). */
  reset(record) {
    this.stop();
    this.record = record;
    this.review = null;
    this.state = null;
    this.box.hidden = true;
    this.box.replaceChildren();
  }

  /** Stop following a running review (the dialog closed, another replay opened). */
  stop() {
    this.generation += 1;
  }

  get total() {
    return this.record?.tricks?.length ?? 0;
  }

  /** Ask for the review of `seat` and follow it until it is done or refused. */
  async start(seat) {
    const gen = ++this.generation;
    this.review = null;
    this.state = { status: "starting", seat };
    this.draw();
    const match = encodeURIComponent(this.record.match ?? "");
    const url = `/api/matches/${match}/deals/${this.record.deal_index ?? 0}/review`;
    try {
      let res = await fetch(url, {
        method: "POST", credentials: "same-origin", headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ seat }),
      });
      while (gen === this.generation) {
        const body = await res.json().catch(() => null);
        if (gen !== this.generation) return;
        if (res.status === 200 && body?.status === "done") {
          this.review = body.review;
          this.state = null;
          this.draw();
          this.onReady();
          return;
        }
        if (res.status !== 202 || !body) {
          this.state = { status: "failed", seat, why: refusalText({ body, status: res.status }, { alone: false }) };
          this.draw();
          return;
        }
        this.state = { ...body, seat };
        this.draw();
        await sleep(POLL_MS);
        if (gen !== this.generation) return;
        res = await fetch(`${url}?seat=${encodeURIComponent(seat)}`, { credentials: "same-origin", cache: "no-store" });
      }
    } catch {
      if (gen !== this.generation) return;
      this.state = { status: "failed", seat, why: t("msg.offline") };
      this.draw();
    }
  }

  /** The reviewed seat's decisions at replay step `step` (0: the declaration; n: trick n). */
  decisionsAt(step) {
    if (!this.review) return [];
    return this.review.decisions.filter((d) => (step === 0 ? d.kind === "expose" : d.kind === "play" && d.trick === step));
  }

  /** The mark of the reviewed seat's card in trick `step`: {seat, mark, uncertain} or null. */
  markAt(step) {
    const d = step > 0 ? this.decisionsAt(step)[0] : null;
    return d ? { seat: this.review.seat, mark: d.mark, uncertain: Boolean(d.mark && d.uncertain) } : null;
  }

  /** The replay shows step `step`: draw what the review says of it. */
  show(step) {
    this.step = step;
    if (!this.review) return;
    this.drawStep();
    this.drawGraph();
  }

  // ---------------------------------------------------------------- drawing

  draw() {
    this.box.hidden = false;
    this.box.replaceChildren();
    if (!this.review) {
      this.drawStatus();
      return;
    }
    const r = this.review;
    const head = node("h3", "review-title", t("review.title", { seat: r.seat }));
    const status = node("p", "review-status");
    status.dataset.reviewStatus = "done";
    this.stepBox = node("div", "review-step");
    this.stepBox.setAttribute("aria-live", "polite");
    this.graphBox = node("figure", "review-graph");
    this.box.append(head, status, this.summary(), this.stepBox, this.graphBox, this.moments(), this.notes());
    this.drawStep();
    this.drawGraph();
  }

  drawStatus() {
    const s = this.state ?? { status: "starting" };
    const p = node("p", "review-status");
    p.setAttribute("role", "status");
    p.dataset.reviewStatus = s.status;
    if (s.status === "failed") {
      p.classList.add("error");
      p.textContent = t("review.failed", { why: s.why ?? "" });
    } else if (s.status === "queued") {
      p.textContent = t("review.queued", { position: s.position ?? 1 });
    } else if (s.status === "running" && s.total !== null && s.total !== undefined) {
      p.textContent = t("review.running", { done: s.done ?? 0, total: s.total });
      const bar = node("progress", "review-progress");
      bar.max = s.total || 1;
      bar.value = s.done ?? 0;
      p.append(" ", bar);
    } else {
      p.textContent = t("review.starting");
    }
    this.box.append(node("h3", "review-title", t("review.title", { seat: s.seat ?? "S" })), p);
  }

  /** Result, luck, skill, par, loss: the server's numbers (result = luck + skill). */
  summary() {
    const r = this.review;
    const dl = node("dl", "review-summary");
    for (const name of ["result", "luck", "skill", "par", "loss"]) {
      const dt = node("dt", "", t(`review.${name}`));
      const dd = node("dd", "", reviewNumber(r[name]));
      dd.dataset.review = name;
      if (r[name] !== null && r[name] !== undefined) dd.dataset.value = String(r[name]);
      dl.append(dt, dd);
    }
    return dl;
  }

  /** The costliest moments, each a button that jumps to its trick. */
  moments() {
    const r = this.review;
    const box = node("section", "review-moments");
    box.append(node("h4", "", t("review.moments")));
    if (!r.moments?.length) {
      box.append(node("p", "help", t("review.noMoments")));
      return box;
    }
    const list = node("ol");
    r.moments.forEach((m, i) => {
      const b = node("button", "review-moment");
      b.type = "button";
      b.dataset.moment = String(i);
      b.dataset.trick = String(m.trick ?? 0);
      if (m.mark) {
        const badge = node("span", "mark-badge", m.mark);
        badge.dataset.mark = m.mark;
        b.append(badge, " ");
      }
      b.append(momentText(m));
      b.addEventListener("click", () => this.onJump(m.trick ?? 0));
      const li = node("li");
      li.append(b);
      list.append(li);
    });
    box.append(list);
    return box;
  }

  /** What the numbers and the marks mean, and where hindsight starts. */
  notes() {
    const r = this.review;
    const box = node("section", "review-notes");
    const th = r.thresholds ?? {};
    box.append(node("p", "help review-marks",
      t("review.marks", { inaccuracy: th["?!"] ?? "", mistake: th["?"] ?? "", blunder: th["??"] ?? "" })));
    const parts = r.luck_parts ?? {};
    box.append(node("p", "help review-equation", t("review.equation", { seat: r.seat, replays: r.par_replays ?? 0,
      deal: reviewNumber(parts.deal), play: reviewNumber(parts.play) })));
    if (r.hindsight?.from_trick) {
      const key = r.hindsight.meaning === "worst_case" ? "review.hindsightNoteWorst" : "review.hindsightNote";
      box.append(node("p", "help review-hindsight-note", t(key, { trick: r.hindsight.from_trick })));
    }
    return box;
  }

  /** The reviewed seat's decision at the step shown. */
  drawStep() {
    const box = this.stepBox;
    if (!box) return;
    box.replaceChildren();
    const r = this.review;
    const step = this.step;
    const heading = step === 0 ? t("review.exposeStep") : t("review.trick", { trick: step });
    box.append(node("h4", "", heading));
    for (const d of this.decisionsAt(step)) box.append(decisionLines(r, d));
    if (step > 0 && r.tricks?.[step - 1] !== undefined) {
      box.append(node("p", "review-change", t("review.change", { change: reviewNumber(r.tricks[step - 1]) })));
    }
  }

  /** The graph of the seat's expected result through the deal, the step shown highlighted. */
  drawGraph() {
    const box = this.graphBox;
    if (!box) return;
    box.replaceChildren();
    const r = this.review;
    const total = Math.max(1, this.total);
    const byIndex = new Map(r.decisions.map((d) => [d.index, d]));
    // Where each point stands across the deal (in tricks): the declaration at the start, a play
    // in the middle of its trick, the result at the end.
    const at = (p) => {
      const d = p.decision === null || p.decision === undefined ? null : byIndex.get(p.decision);
      if (!d) return total;
      return d.kind === "expose" ? 0 : Math.max(0, d.trick - 0.5);
    };
    const points = (r.graph ?? []).map((p) => ({ x: at(p), y: p.expected, luck: p.luck, skill: p.skill,
      d: byIndex.get(p.decision) ?? null }));
    const running = points.flatMap((p) => [p.luck, p.skill]).filter((v) => typeof v === "number");
    const values = points.map((p) => p.y).concat(running, r.par === null || r.par === undefined ? [] : [r.par]);
    let lo = Math.min(...values, 0);
    let hi = Math.max(...values, 0);
    if (hi === lo) { hi += 1; lo -= 1; }
    const sx = (x) => PAD.left + (x / total) * (W - PAD.left - PAD.right);
    const sy = (y) => PAD.top + ((hi - y) / (hi - lo)) * (H - PAD.top - PAD.bottom);
    const g = svg("svg", { viewBox: `0 0 ${W} ${H}`, class: "review-svg", role: "img",
      "aria-label": t("review.graphLabel", { seat: r.seat }) });
    // The trick the replay shows.
    const from = this.step === 0 ? 0 : this.step - 1;
    const width = this.step === 0 ? 0.25 : 1;
    const now = svg("rect", { x: sx(from), y: PAD.top, width: sx(from + width) - sx(from),
      height: H - PAD.top - PAD.bottom, class: "review-now" });
    now.dataset.step = String(this.step);
    g.append(now);
    g.append(svg("line", { x1: sx(0), x2: sx(total), y1: sy(0), y2: sy(0), class: "review-zero" }));
    for (const k of [0, total]) {
      g.append(svg("text", { x: sx(k), y: H - 4, class: "review-axis", "text-anchor": "middle" }, String(k)));
    }
    g.append(svg("text", { x: PAD.left - 4, y: sy(hi) + 4, class: "review-axis", "text-anchor": "end" }, reviewNumber(hi)));
    g.append(svg("text", { x: PAD.left - 4, y: sy(lo), class: "review-axis", "text-anchor": "end" }, reviewNumber(lo)));
    if (r.par !== null && r.par !== undefined) {
      const par = svg("line", { x1: sx(0), x2: sx(total), y1: sy(r.par), y2: sy(r.par), class: "review-par" });
      par.dataset.par = String(r.par);
      g.append(par);
    }
    // The running luck and skill, which add up to the expected result at every point.
    for (const part of ["luck", "skill"]) {
      const line = points.filter((p) => typeof p[part] === "number");
      const drawn = svg("polyline", { points: line.map((p) => `${sx(p.x)},${sy(p[part])}`).join(" "),
        class: `review-running review-${part}` });
      drawn.dataset.running = part;
      g.append(drawn);
    }
    g.append(svg("polyline", { points: points.map((p) => `${sx(p.x)},${sy(p.y)}`).join(" "), class: "review-line" }));
    for (const p of points) {
      const dot = svg("circle", { cx: sx(p.x), cy: sy(p.y), r: p.d?.mark ? 5 : 3, class: "review-dot" });
      const uncertain = Boolean(p.d?.mark && p.d.uncertain);
      if (p.d) {
        dot.dataset.decision = String(p.d.index);
        if (p.d.mark) dot.dataset.mark = p.d.mark;
        if (uncertain) {  // inside the search's noise: dimmed, its mark in brackets
          dot.dataset.uncertain = "";
          dot.setAttribute("fill-opacity", "0.45");
          dot.setAttribute("stroke-dasharray", "2 2");
        }
      } else {
        dot.dataset.final = "";
      }
      const label = p.d ? (p.d.kind === "expose" ? t("review.exposeStep") : t("review.trick", { trick: p.d.trick }))
        : t("review.result");
      const parts = typeof p.luck === "number"
        ? ` (${t("review.luck")} ${reviewNumber(p.luck)}, ${t("review.skill")} ${reviewNumber(p.skill)})` : "";
      const mark = p.d?.mark ? ` ${uncertain ? `(${p.d.mark})` : p.d.mark}` : "";
      dot.append(svg("title", {}, `${label}: ${reviewNumber(p.y)}${parts}${mark}`));
      g.append(dot);
    }
    box.append(g, node("figcaption", "help", t("review.graph")));
    fitAxisLabels(g);
  }
}

/**
 * The graph is drawn in its own units and scaled to its width: on a narrow screen its axis labels
 * would shrink with it, so they are set to 12 px of the screen, whatever the scale; the drawing
 * box then grows to hold them whole (a label wider than its margin, one past the last trick).
 */
function fitAxisLabels(g) {
  const shown = g.getBoundingClientRect().width;
  if (!(shown > 0)) return;
  const labels = [...g.querySelectorAll(".review-axis")];
  let width = W;
  // Growing the box shrinks the scale a little: a second pass sets the labels' size again.
  for (let pass = 0; pass < 3; pass++) {
    const size = `${Math.max(11, (12 * width) / shown).toFixed(1)}px`;
    for (const label of labels) label.style.fontSize = size;
    let [x0, y0, x1, y1] = [0, 0, W, H];
    for (const label of labels) {
      const b = label.getBBox();
      x0 = Math.min(x0, b.x - 2);
      y0 = Math.min(y0, b.y - 1);
      x1 = Math.max(x1, b.x + b.width + 2);
      y1 = Math.max(y1, b.y + b.height + 1);
    }
    g.setAttribute("viewBox", `${x0.toFixed(1)} ${y0.toFixed(1)} ${(x1 - x0).toFixed(1)} ${(y1 - y0).toFixed(1)}`);
    if (x1 - x0 === width) break;
    width = x1 - x0;
  }
}

/** The lines of one decision: what was chosen and its mark, the best and the loss, hindsight. */
function decisionLines(r, d) {
  const box = node("div", "review-decision");
  box.dataset.decision = String(d.index);
  const made = node("p", "review-made",
    t(d.kind === "expose" ? "review.declared" : "review.played", { cards: choiceText(d.kind, d.cards) }));
  if (d.mark) {
    const badge = node("span", "mark-badge", d.uncertain ? `(${d.mark})` : d.mark);
    badge.dataset.mark = d.mark;
    if (d.uncertain) {
      // Inside the search's noise: it may be no error at all.
      badge.dataset.uncertain = "";
      badge.classList.add("mark-uncertain");
      badge.title = t("review.uncertain", { spread: reviewNumber(d.loss_spread) });
    }
    made.append(" ", badge);
  }
  box.append(made);
  let verdict;
  if (d.forced) verdict = t(d.kind === "expose" ? "review.noChoice" : "review.forced");
  else if (d.loss > 0) {
    verdict = `${t("review.best", { best: choiceText(d.kind, d.best), loss: reviewNumber(d.loss) })} · `
      + t("review.expected", { played: reviewNumber(d.expected), best: reviewNumber(d.best_expected) });
  } else verdict = t("review.bestPlayed", { expected: reviewNumber(d.expected) });
  const line = node("p", "review-verdict", verdict);
  line.dataset.loss = String(d.loss ?? 0);
  box.append(line);
  // The noise of a loss: none to tell where the choice was the search's best (its loss is 0 in
  // every world, so its spread says nothing of how sure the search was).
  if (!d.forced && d.loss > 0 && d.loss_spread !== null && d.loss_spread !== undefined) {
    const noise = node("p", "review-noise", t(d.uncertain ? "review.uncertain" : "review.spread",
      { spread: reviewNumber(d.loss_spread) }));
    noise.dataset.spread = String(d.loss_spread);
    box.append(noise);
  }
  if (d.skill !== null && d.skill !== undefined) {
    const skill = node("p", "review-skill", t("review.stepParts",
      { luck: reviewNumber(d.luck), skill: reviewNumber(d.skill) }));
    skill.dataset.skill = String(d.skill);
    skill.dataset.luck = String(d.luck);
    box.append(skill);
  }
  if (d.kind === "play") {
    if (d.exact !== null && d.exact !== undefined) {
      box.append(node("p", "review-hindsight", t("review.hindsight",
        { played: reviewNumber(d.exact), best: reviewNumber(d.exact_best), loss: reviewNumber(d.exact_loss) })));
      if (d.hindsight_differs) {
        // The open-card best: the alternative the solver values most (the search's best lost to it).
        const solved = (d.alternatives ?? []).filter((a) => typeof a.exact === "number");
        const top = solved.reduce((a, b) => (b.exact > a.exact ? b : a), solved[0]);
        const why = node("p", "review-hindsight review-differs", t(r.hindsight?.meaning === "worst_case"
          ? "review.differsWorst" : "review.differs", { seat: r.seat, best: top ? choiceText(d.kind, top.cards) : "" }));
        why.dataset.differs = "";
        box.append(why);
      }
    } else if (r.hindsight?.from_trick) {
      box.append(node("p", "review-hindsight", t("review.hindsightNone")));
    }
  }
  return box;
}

/** A moment in words: "♠Q taken by West at trick 9; avoidable at trick 6: ♠K, best ♠A (−62)", or
 * when no point card landed after it, "At trick 6: ♠K, best ♠A (−62); no points landed after it". */
function momentText(m) {
  const best = choiceText(m.kind, m.best);
  const played = choiceText(m.kind, m.cards);
  const loss = reviewNumber(m.loss);
  const avoidable = m.kind === "expose" ? t("review.avoidableExpose", { played, best, loss })
    : t("review.avoidable", { trick: m.trick, played, best, loss });
  if (m.landed && m.landed.cards?.length) {
    const landed = t("review.landed", { cards: m.landed.cards.map(cardText).join(" "), taker: m.landed.taker,
      trick: m.landed.trick });
    return t("review.moment", { landed, avoidable });
  }
  return m.kind === "expose" ? t("review.momentExpose", { played, best, loss })
    : t("review.momentPlay", { trick: m.trick, played, best, loss });
}
