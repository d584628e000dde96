// One challenge's page (/challenge/{id}, the id read from the address).  GET /api/challenges/{id}:
// its kind, title, rules, computer players, when it closes, its commitment, and once it has
// closed its seed with the command that checks the boards against the commitment (gongzhu boards
// verify); while it is open the Play / Continue button (POST /api/challenges/{id}/play, then the
// table it answers with) and, for a private one, its address to share.  The boards: how many have
// played each, the person's result, matchpoints (比较分), percentage and 猪分 on each they
// finished, the par (标准分: the computers' own result on the board) where the server gives it.
// A board the server opens to the person (finished, or the challenge closed) offers its traveller
// (成绩表, GET /api/challenges/{id}/boards/{n}): the four hands as cards, the par and the datum,
// every entrant's result, matchpoints, percentage and 猪分 (the person's row marked), a replay of
// each one's play and the 复盘 of the person's own (the replay with the review of South,
// replay.js).  The address's #board-N opens board N's traveller (the table page links there when
// a board ends).  The standings (rank, name, boards — and, once closed, those held unfinished —,
// percentage, matchpoints of the top, 猪分) are
// read again every 5 s while the page is visible, and so is the open traveller when more have
// played its board: nothing reloads.  The page draws only what the server sends: nothing of a
// board before it is opened.  Refusals are shown in the page's language from their catalog code.
//
// May import: cards.js, dom.js, header.js, i18n.js, replay.js.

import { cardFace, installCardDefs, setPointCards, sortCards } from "./cards.js";
import { $, button, cell, el, span } from "./dom.js";
import { drawHeader } from "./header.js";
import {
  cardName, dateText, levelLabel, nameEl, presetLabel, refusalNodes, seatName, signedNumber, startPageLanguage, t,
} from "./i18n.js";
import { showReplay } from "./replay.js";

/** How often the standings are read again while the page is visible (ms). */
const REFRESH_MS = 5000;
/** The seats of a traveller's hands, as the table shows them: North on top, South (the
 * entrants' seat) at the bottom. */
const SEATS = ["N", "W", "E", "S"];

const challengeId = decodeURIComponent((/^\/challenge\/([^/]+)\/?$/.exec(location.pathname) ?? [])[1] ?? "");
const base = `/api/challenges/${encodeURIComponent(challengeId)}`;

let summary = null;       // GET /api/challenges/{id}
let traveller = null;     // the traveller shown: GET .../boards/{n}
let shownBoard = null;    // the board whose traveller is asked for (from the address's #board-N)
let loading = false;      // a reading of the summary is under way
let unknown = false;      // the server knows no such challenge: nothing to read again
/** The refusals shown, by the id of the element showing them ({body, status} or {text}), kept
 * so that they are written again in the other language. */
const refusals = {};

// ---------------------------------------------------------------- words

function showRefusal(id, refusal) {
  refusals[id] = refusal;
  $(id).replaceChildren(...(refusal ? refusalNodes(refusal) : []));
}

/** A number as the tables show it: whole, else to one decimal. */
function num(n) {
  if (n === null || n === undefined) return "—";
  return Number.isInteger(n) ? String(n) : Number(n).toFixed(1);
}

function percentText(p) {
  return p === null || p === undefined ? "—" : t("challenge.percent", { n: Number(p).toFixed(1) });
}

/** Matchpoints of the top: "3 / 4". */
function matchpointsText(mp, top) {
  return mp === null || mp === undefined ? "—" : t("challenge.matchpoints", { mp: num(mp), top: num(top) });
}

/** 猪分, a signed number of steps of the 拱猪 scale. */
function stepsText(steps) {
  return steps === null || steps === undefined ? "—" : signedNumber(steps);
}

function resultText(result) {
  return result === null || result === undefined ? "—" : signedNumber(result);
}

/** The par (标准分), a mean of the computers' results: to one decimal. */
function parText(par) {
  return par === null || par === undefined ? "—" : signedNumber(Math.round(par * 10) / 10);
}

function rankText(rank) {
  return rank === null || rank === undefined ? t("challenge.unranked") : String(rank);
}

// ---------------------------------------------------------------- the server

async function getJson(url) {
  let res;
  try {
    res = await fetch(url, { credentials: "same-origin" });
  } catch {
    return { refusal: { key: "msg.loadFailed" } };
  }
  const body = await res.json().catch(() => null);
  return res.ok ? { body } : { refusal: { body, status: res.status } };
}

async function load() {
  if (loading || unknown || !challengeId) return;
  loading = true;
  const { body, refusal } = await getJson(base);
  loading = false;
  if (refusal) {
    // A page already drawn keeps what it has; a first reading that fails says why.
    if (!summary) showRefusal("challenge-error", refusal);
    unknown = refusal.status === 404;
    return;
  }
  showRefusal("challenge-error", null);
  summary = body;
  render();
  // The traveller shown is read again when more have played its board (or it has just opened).
  const board = shownBoard && summary.board_list?.find((b) => b.board === shownBoard);
  if (board?.open && (!traveller || traveller.board !== shownBoard || traveller.results.length !== board.played)) {
    loadTraveller(shownBoard);
  }
}

async function loadTraveller(n) {
  const { body, refusal } = await getJson(`${base}/boards/${n}`);
  if (n !== shownBoard) return;  // another board was asked for meanwhile
  traveller = refusal ? null : body;
  showRefusal("traveller-error", refusal);
  renderTraveller();
}

// ---------------------------------------------------------------- drawing

function render() {
  for (const [id, refusal] of Object.entries(refusals)) showRefusal(id, refusal);
  renderHead();
  renderBoards();
  renderTraveller();
  renderStandings();
}

function renderHead() {
  const c = summary;
  $("challenge").hidden = !c;
  if (!c) return;
  const name = t("challenge.name", { kind: t(`challenge.kind.${c.kind}`), title: c.title });
  $("challenge-title").textContent = name;
  document.title = t("challenge.pageTitle", { name });
  $("challenge").dataset.closed = String(Boolean(c.closed));
  $("fact-kind").textContent = t(`challenge.kind.${c.kind}`);
  $("fact-preset").textContent = presetLabel(c.preset);
  $("fact-boards").textContent = t("challenge.boardCount", { n: c.boards });
  $("fact-level").textContent = levelLabel(c.level);
  $("fact-closes").textContent = c.closed ? t("challenge.closedAt", { time: dateText(c.closes) }) : dateText(c.closes);
  $("fact-commitment").textContent = c.commitment;
  $("fact-seed").replaceChildren(c.seed ? el("code", "hex", c.seed) : document.createTextNode(t("challenge.seedHidden")));
  $("verify").hidden = !c.seed;
  $("verify-command").textContent = c.seed ? verifyCommand(c) : "";
  $("challenge-share").hidden = c.closed || c.kind !== "private";
  $("share-url").value = new URL(c.url, location.origin).href;
  const me = c.me;
  const finished = me?.finished?.length ?? 0;
  const progress = [];
  if (me?.match || finished) progress.push(t("challenge.progress", { done: finished, n: c.boards }));
  if (finished) progress.push(t("challenge.place", { rank: rankText(me.rank) }));
  if (!c.closed && finished >= c.boards) progress.push(t("challenge.allPlayed"));
  $("my-progress").textContent = progress.join(" · ");
  const play = $("challenge-play");
  play.hidden = c.closed || finished >= c.boards;
  play.dataset.action = me?.match ? "continue" : "play";
  play.textContent = t(me?.match ? "challenge.continue" : "challenge.play");
}

/** The command that checks the boards against the commitment, once the seed is out. */
function verifyCommand(c) {
  const definition = JSON.stringify(c.definition).replaceAll("'", "'\\''");
  return `gongzhu boards verify --seed ${c.seed} --commitment ${c.commitment} --definition-json '${definition}'`;
}

function renderBoards() {
  const c = summary;
  $("boards-section").hidden = !c;
  const rows = $("board-rows");
  rows.replaceChildren();
  for (const b of c?.board_list ?? []) {
    const mine = c.me?.boards?.[String(b.board)] ?? null;
    const tr = document.createElement("tr");
    tr.id = `board-row-${b.board}`;
    tr.dataset.board = String(b.board);
    tr.dataset.open = String(Boolean(b.open));
    tr.dataset.played = String(b.played);
    if (mine) tr.dataset.result = String(mine.result);
    tr.classList.toggle("shown", b.board === shownBoard);
    let action;
    if (b.open) {
      action = button("", t("challenge.traveller"), () => openBoard(b.board));
      action.dataset.traveller = String(b.board);
    } else {
      action = span("closed-board", t("challenge.boardHidden"));
    }
    tr.append(cell(t("challenge.col.board"), t("challenge.boardN", { n: b.board })),
      cell(t("challenge.col.played"), String(b.played)),
      cell(t("challenge.col.result"), mine ? resultText(mine.result) : "—"),
      cell(t("challenge.col.matchpoints"), mine ? matchpointsText(mine.matchpoints, mine.top) : "—"),
      cell(t("challenge.col.percent"), mine ? percentText(mine.percent) : "—"),
      cell(t("challenge.col.steps"), mine ? stepsText(mine.steps) : "—"),
      cell(t("challenge.col.par"), parText(b.par)),
      cell(t("challenge.col.traveller"), action));
    rows.append(tr);
  }
}

function renderStandings() {
  const c = summary;
  $("standings-section").hidden = !c;
  const list = c?.standings ?? [];
  // While the challenge is open, the ranking counts only the boards this person finished.
  const counted = c?.standings_boards ?? [];
  const partial = Boolean(c) && !c.closed && counted.length < c.boards;
  $("standings-empty").hidden = list.length > 0 || (partial && !counted.length);
  const scope = $("standings-scope");
  scope.hidden = !partial;
  scope.dataset.boards = counted.join(",");
  scope.textContent = partial
    ? (counted.length ? t("challenge.standingsMine", { boards: counted.join(t("list.separator")) })
      : t("challenge.standingsNone"))
    : "";
  const rows = $("standing-rows");
  rows.replaceChildren();
  for (const s of list) {
    const tr = document.createElement("tr");
    tr.dataset.name = s.name;
    tr.dataset.rank = s.rank === null ? "" : String(s.rank);
    tr.classList.toggle("me", Boolean(s.me));
    const name = span("name", "");
    name.append(nameEl(s.name));  // a <bdi> of its own, before its marks
    if (s.guest) name.append(span("mark guest", t("challenge.guest")));
    tr.append(cell(t("leaderboard.rank"), rankText(s.rank)), cell(t("challenge.col.entrant"), name),
      cell(t("challenge.col.boards"), s.unfinished
        ? t("challenge.boardsUnfinished", { boards: s.boards, unfinished: s.unfinished }) : String(s.boards)),
      cell(t("challenge.col.percent"), percentText(s.percent)),
      cell(t("challenge.col.matchpoints"), matchpointsText(s.matchpoints, s.top)),
      cell(t("challenge.col.steps"), stepsText(s.steps)));
    rows.append(tr);
  }
}

function renderTraveller() {
  const box = $("traveller");
  box.hidden = shownBoard === null;
  if (shownBoard === null) return;
  box.dataset.board = String(shownBoard);
  $("traveller-title").textContent = t("challenge.travellerTitle", { n: shownBoard });
  const tr = traveller && traveller.board === shownBoard ? traveller : null;
  $("traveller-body").hidden = !tr;
  box.dataset.results = tr ? String(tr.results.length) : "";
  if (!tr) return;
  drawHands(tr);
  const par = [t("challenge.par", { par: parText(tr.par) }), t("challenge.datum", { datum: parText(tr.datum) })];
  $("traveller-par").textContent = par.join(" · ");
  const rows = $("traveller-rows");
  rows.replaceChildren();
  for (const r of tr.results) {
    const row = document.createElement("tr");
    row.dataset.entrant = r.name;
    row.dataset.result = String(r.result);
    row.classList.toggle("me", Boolean(r.me));
    const name = span("name", "");
    name.append(nameEl(r.name));
    if (r.me) name.append(span("mark you", t("challenge.you")));
    if (r.guest) name.append(span("mark guest", t("challenge.guest")));
    const replay = button("", t("history.replay"), () => openRecord(r.record_url, false));
    replay.dataset.record = r.name;
    row.append(cell(t("challenge.col.entrant"), name), cell(t("challenge.col.resultAll"), resultText(r.result)),
      cell(t("challenge.col.matchpoints"), matchpointsText(r.matchpoints, r.top)),
      cell(t("challenge.col.percent"), percentText(r.percent)), cell(t("challenge.col.steps"), stepsText(r.steps)),
      cell(t("history.actions"), replay));
    rows.append(row);
  }
  $("traveller-review").hidden = !tr.review;
}

/** The board's four hands as cards: North on top, West and East beside, South at the bottom. */
function drawHands(tr) {
  const box = $("traveller-hands");
  box.replaceChildren();
  for (const seat of SEATS) {
    const hand = el("section", `thand thand-${seat}`);
    hand.dataset.seat = seat;
    hand.append(el("strong", "", seat === tr.seat ? t("challenge.entrantSeat", { seat: seatName(seat) }) : seatName(seat)));
    const cards = el("div", "rhand");
    for (const code of sortCards(tr.hands?.[seat] ?? [])) {
      const face = el("div", "card-face sm");
      face.dataset.card = code;
      face.setAttribute("role", "img");
      face.setAttribute("aria-label", cardName(code));
      face.append(cardFace(code));
      cards.append(face);
    }
    hand.append(cards);
    box.append(hand);
  }
}

// ---------------------------------------------------------------- what a click means

/** Open board `n`'s traveller: through the address (#board-N), which a reload keeps. */
function openBoard(n) {
  if (location.hash === `#board-${n}`) showBoard(n);
  else location.hash = `board-${n}`;
}

/** The board the address names (#board-N), or null. */
function boardOfHash() {
  const m = /^#board-(\d+)$/.exec(location.hash);
  return m ? Number(m[1]) : null;
}

function showBoard(n) {
  shownBoard = n;
  if (!traveller || traveller.board !== n) traveller = null;
  showRefusal("traveller-error", null);
  render();
  if (n !== null) {
    loadTraveller(n);
    $("traveller").scrollIntoView({ block: "start" });
  }
}

function closeTraveller() {
  shownBoard = null;
  traveller = null;
  history.replaceState(null, "", `${location.pathname}${location.search}`);
  render();
}

/** A deal record in the replay; with `review`, the review of the person's seat at once. */
async function openRecord(url, review, seat = "S") {
  const { body, refusal } = await getJson(url);
  if (refusal) return showRefusal("traveller-error", refusal);
  showReplay(body, { title: t("challenge.replayTitle", { n: shownBoard }), seat, review });
}

/** The 复盘 of the person's own play of the board shown. */
function reviewMine() {
  const r = traveller?.review;
  if (!r) return;
  openRecord(`/api/matches/${encodeURIComponent(r.match)}/deals/${r.deal}`, true, r.seat);
}

async function play() {
  const b = $("challenge-play");
  b.disabled = true;
  try {
    const res = await fetch(`${base}/play`, {
      method: "POST", credentials: "same-origin", headers: { "Content-Type": "application/json" }, body: "{}",
    });
    const body = await res.json().catch(() => null);
    if (res.ok) {
      location.assign(body.url);
      return;
    }
    showRefusal("play-error", { body, status: res.status });
  } catch {
    showRefusal("play-error", { key: "msg.offline" });
  }
  b.disabled = false;
}

function copy(field) {
  const text = field.value ?? field.textContent;
  navigator.clipboard?.writeText(text).catch(() => {});
}

async function loadConfig() {
  const { body } = await getJson("/api/config");
  if (body) setPointCards(body.point_cards);
}

function main() {
  drawHeader();
  installCardDefs();
  startPageLanguage(render);
  $("challenge-play").addEventListener("click", play);
  $("traveller-close").addEventListener("click", closeTraveller);
  $("traveller-review").addEventListener("click", reviewMine);
  $("share-copy").addEventListener("click", () => copy($("share-url")));
  $("verify-copy").addEventListener("click", () => copy($("verify-command")));
  window.addEventListener("hashchange", () => showBoard(boardOfHash()));
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "visible") load();
  });
  setInterval(() => {
    if (document.visibilityState === "visible") load();
  }, REFRESH_MS);
  loadConfig();
  const first = boardOfHash();
  if (first !== null) showBoard(first);
  load();
}

main();
