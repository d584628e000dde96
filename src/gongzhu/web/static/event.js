// An event's page (/event/{id}, the id read from the address), for every form of event the server
// runs: a team match (计副制) of two teams, a Swiss of more teams, Mitchell or Howell pairs, or
// individuals.  GET /api/events/{id}: the event's name, form, status (the round and session being
// played, or the start time waited for), rules, boards a round (a team form's: a session), rounds,
// sessions, timers, commitment and (once every board has been played) seed, and its entrants;
// where the person sits now (round, session, table and seat 坐向, or sitting out) with the link to
// their table; the tables of every round begun (who sits where, how many boards each has played,
// 托管 for the absent) with who sits the round out; the rankings of each field (a Mitchell's N–S
// and E–W apart; the teams by match points); a team form's matches; the board-by-board results as
// the server opens them to the person — their own table's result once it has played the board,
// and once every table that plays it has, every table's with the traveller (matchpoints and their
// percentages, pairs and individuals) or each match's team result — marked provisional until the
// referee publishes them, the contested claims with their rulings, and the records (JSON Lines) of
// the boards every table has played.  Before the event begins, where its entry is open (any
// account) or by invitation (the token read from the page's address, ?invite=…), a signed-in
// person enters it (POST .../entries: the entrant's name and its players' account names, their
// own fixed among them) or withdraws (POST .../withdraw); a listed event's player withdraws their
// entrant (退赛, after a confirmation: a computer plays its seats).  The organiser and the
// referees they named get the referee's desk: the invitation link to copy, an entrant removed
// before the event begins (withdrawn, from a listed event) or withdrawn from it under way, after a confirmation (POST .../withdraw naming it: a
// computer plays its seats from then on), start the next round or session (POST .../start), a ruling
// from the solver on each contested claim with its reason (POST .../rulings: searched in the
// background, "searching" until a later reading shows the verdict), a penalty naming an entrant
// and a round or a score correction naming a table and a board, each with its reason
// (POST .../adjustments), publish the results (POST .../publish); everyone sees the referee's log
// (every action: the event made, each entry and withdrawal, each round begun or that could not
// begin, a Swiss round's pairing, each stand-in, contested claim, ruling, penalty, correction, the
// results published).  The results print on paper (style.css: @media print).  The page is read
// every 5 s while it is visible, and, for the event's own people while it runs, at once when the
// lobby's socket (/ws/lobby) says a stage the page has not shown has begun ({"type": "event", "id",
// "stage"}: where its players sit now); an answer to an older read is dropped.  It draws only what
// the server sends.  Refusals are shown in
// the page's language from their catalog code.  Every name shown inside other text — a player's,
// an entrant's, a team's — is a <bdi> of its own (i18n.js: isolated, nameList, tNodes), so that
// one in a right-to-left script leaves the numbers and marks beside it in their order.
//
// At /event/new the page is the form that makes an event instead (POST /api/events, by a signed-in
// organiser): its name, form (team match, Swiss, Mitchell, Howell, individual), preset, boards a
// round (a session), rounds, sessions (team forms), turn timer, grace, an optional start time (the
// browser's local time, sent as ISO 8601 with the browser's offset), how entrants come in (listed
// by the organiser, open to any account, by invitation), the referees' account names and the
// entrants, rows added and removed (a team's name and four account names; a pair's two, N or E
// first; a player's one; a pair's or a player's name may be left out; none needed where the
// players enter themselves); once made, the page goes to /event/{id}.
//
// May import: dom.js, header.js, i18n.js, socket.js.

import { $, cell, el } from "./dom.js";
import { drawHeader } from "./header.js";
import {
  dateText, getLang, hasText, isolated, isolatedText, nameList, presetLabel, refusalNodes, seatName, signedNumber,
  startPageLanguage, t, tNodes,
} from "./i18n.js";
import { ReconnectingSocket, socketAddress } from "./socket.js";

/** How often the event is read again while the page is visible (ms). */
const REFRESH_MS = 5000;
const SEATS = ["N", "E", "S", "W"];

/** The choices of the form that makes an event: the server's form, players an entrant, and the
 * entrants (fewest, most, first shown, added or removed at a time). */
const KINDS = {
  match: { form: "teams", players: 4, fewest: 2, most: 2, first: 2, step: 1 },
  swiss: { form: "teams", players: 4, fewest: 3, most: 16, first: 4, step: 1 },
  mitchell: { form: "mitchell", players: 2, fewest: 5, most: 64, first: 5, step: 1 },
  howell: { form: "howell", players: 2, fewest: 3, most: 32, first: 4, step: 1 },
  individual: { form: "individual", players: 1, fewest: 4, most: 20, first: 8, step: 4 },
};
/** The presets an event of each form is played under (pairs and teams sit as partners). */
const PRESETS = { teams: ["partners", "tournament"], mitchell: ["partners", "tournament"],
  howell: ["partners", "tournament"], individual: ["online", "tournament"] };
/** Boards a round (a team form's: a session) by default. */
const BOARDS = { teams: 16, mitchell: 2, howell: 2, individual: 2 };

const eventId = decodeURIComponent((/^\/event\/([^/]+)\/?$/.exec(location.pathname) ?? [])[1] ?? "");
const base = `/api/events/${encodeURIComponent(eventId)}`;
/** /event/new: the form that makes an event, not an event's page. */
const making = eventId === "new";

let summary = null;   // GET /api/events/{id}
let unknown = false;  // the server knows no such event: nothing to read again
let asked = 0;        // reads of the event asked for: an answer to an older one is not shown
let news = null;      // the lobby's socket, for the news of a stage begun (followNews)
/** The refusals shown, by the id of the element showing them, written again in the other language. */
const refusals = {};
/** The rounds (stages) whose tables the person opened or closed, and how: kept across redraws. */
const opened = new Map();
/** The form that makes an event: whether the person set the boards themselves. */
let boardsTouched = false;
/** The person (GET /api/me): their name, and whether they have an account (a guest has none). */
let me = null;
/** The invitation's token in the page's address (?invite=…), sent with an entry. */
const inviteToken = new URLSearchParams(location.search).get("invite");
/** The reasons typed at the desk for each contested claim, by its number: kept across redraws. */
const reasons = new Map();

function showRefusal(id, refusal) {
  refusals[id] = refusal;
  $(id).replaceChildren(...(refusal ? refusalNodes(refusal) : []));
}

/** A score: +100, −25.5, 0; "—" for none. */
function score(n) {
  if (n === null || n === undefined) return "—";
  return signedNumber(Number.isInteger(n) ? n : Math.round(n * 100) / 100);
}

/** A percentage: 66.67%. */
const percent = (n) => `${Math.round(n * 100) / 100}%`;

/** The kind of the event the form chooses among (a team form with more than two teams is a Swiss). */
const kindOf = (s) => (s.form === "teams" ? (s.swiss ? "swiss" : "match") : s.form);

/** Items joined as the page's language writes a list. */
const listed = (items) => items.join(getLang() === "zh" ? "、" : ", ");

/** `parts` (text or nodes) as nodes, `sep` between them. */
function joinedNodes(parts, sep = " · ") {
  return parts.flatMap((part, i) => (i ? [sep, part] : [part]));
}

/** An element `tag` (class `cls`) holding `parts` (text or nodes). */
function holding(tag, cls, parts) {
  const e = el(tag, cls);
  e.append(...parts);
  return e;
}

/** A round, with its session where a round has several: "第 2 轮 · 第 1 节". */
function roundText(s, round, session) {
  const parts = [t("event.roundN", { n: round })];
  if (s.form === "teams" && s.sessions > 1) parts.push(t("event.sessionN", { n: session }));
  return parts.join(" · ");
}

/** A seat and its direction (坐向): "北家（坐向：南北）". */
const seatText = (seat) => t("event.me.seat", { seat, dir: t(seat === "N" || seat === "S" ? "event.dir.ns" : "event.dir.ew") });

/** Raw scores of the four seats: "北 +10 东 −20 南 0 西 +10". */
const rawText = (raw) => SEATS.map((seat) => `${seatName(seat)} ${score(raw[seat])}`).join(" ");

/** A table of labelled cells whose rows stack on a phone: `columns` [key, label], `rows` of
 * {cells: {key: text or {text, value}}, data: {attribute: value}, cls}. */
function grid(id, columns, rows) {
  const table = el("table", "event-grid");
  if (id) table.id = id;
  const head = document.createElement("tr");
  for (const [, label] of columns) {
    const th = el("th", "", label);
    th.scope = "col";
    head.append(th);
  }
  const thead = document.createElement("thead");
  thead.append(head);
  const tbody = document.createElement("tbody");
  for (const row of rows) {
    const tr = document.createElement("tr");
    if (row.cls) tr.className = row.cls;
    for (const [k, v] of Object.entries(row.data ?? {})) tr.dataset[k] = String(v);
    for (const [key, label] of columns) {
      const content = row.cells[key];
      const plain = content === null || content === undefined || typeof content !== "object" || content instanceof Node;
      const td = cell(label, plain ? (content ?? "") : content.text);
      td.dataset.key = key;
      if (!plain && content.value !== undefined && content.value !== null) td.dataset.value = String(content.value);
      tr.append(td);
    }
    tbody.append(tr);
  }
  table.append(thead, tbody);
  const box = el("div", "table-scroll");
  box.append(table);
  return box;
}

// ---------------------------------------------------------------- drawing the event

function statusText(s) {
  if (s.status === "over") return t("event.status.over");
  if (s.status === "waiting") {
    return s.starts_at ? t("event.status.waitingAt", { time: dateText(s.starts_at) }) : t("event.status.waiting");
  }
  const where = roundText(s, s.round, s.session);
  return t(s.stage_over ? "event.status.between" : "event.status.playing", { where });
}

function drawFacts(s) {
  const kind = kindOf(s);
  document.title = t("event.pageTitle", { name: isolatedText(s.name) });
  $("event-name").textContent = s.name;
  $("event-status").textContent = statusText(s);
  $("event-provisional").textContent = t(s.provisional ? "event.provisional" : "event.final");
  const box = $("event");
  box.dataset.status = s.status;
  box.dataset.published = String(s.published);
  box.dataset.form = s.form;
  box.dataset.stage = String(s.stage);
  box.dataset.stageOver = String(s.stage_over);
  $("fact-form").textContent = t(`event.form.${kind}`);
  $("fact-organiser").replaceChildren(s.organiser ? isolated(s.organiser) : "—");
  $("fact-referees").replaceChildren(s.referees?.length ? nameList(s.referees) : "—");
  $("fact-entry").textContent = t(`event.entry.${s.entry ?? "list"}`);
  box.dataset.entry = s.entry ?? "list";
  $("fact-preset").textContent = presetLabel(s.preset);
  $("fact-boards-label").textContent = t(s.form === "teams" ? "event.fact.boardsSession" : "event.fact.boardsRound");
  $("fact-boards").textContent = String(s.boards);
  // Entered by the players and no rounds asked: as many as the movement has, settled when it begins.
  $("fact-rounds").textContent = s.rounds ? String(s.rounds) : t("event.new.roundsAll");
  $("fact-sessions-label").hidden = $("fact-sessions").hidden = s.form !== "teams";
  $("fact-sessions").textContent = String(s.sessions);
  $("fact-timer").textContent = t("event.seconds", { n: s.turn_seconds });
  $("fact-grace").textContent = t("event.seconds", { n: s.grace_seconds });
  $("fact-start").textContent = s.starts_at ? dateText(s.starts_at) : t("event.fact.startByHand");
  $("fact-commitment").textContent = s.commitment;
  $("fact-seed").textContent = s.seed ?? t("event.seedHidden");
  $("entrants-heading").textContent = t(`event.entrants.${KINDS[kind].players === 4 ? "teams" : KINDS[kind].players === 2 ? "pairs" : "players"}`);
  // The referees remove an entrant while the players still enter (before the event begins), and
  // withdraw one from the event under way, or from a listed one before it (a computer plays their
  // seats from then on).
  const removable = s.me.referee && s.stage === 0 && s.entry !== "list" && !s.published;
  const withdrawable = s.me.referee && (s.stage > 0 || (s.entry === "list" && !s.published)) && s.status !== "over";
  $("event-entrants").replaceChildren(...s.entrants.map((entrant) => {
    // A pair or a player named by their players is shown by that name alone.
    const item = holding("li", entrant.name === s.me.entrant ? "mine" : "", entrant.name === entrant.players.join(" & ")
      ? [isolated(entrant.name)] : [isolated(entrant.name), ": ", nameList(entrant.players)]);
    item.dataset.entrant = entrant.name;
    if (entrant.withdrawn) {
      item.dataset.withdrawn = "true";
      item.append(" ", el("span", "event-withdrawn", t("event.entrantWithdrawn")));
    }
    if (removable || (withdrawable && !entrant.withdrawn)) {
      const remove = el("button", removable ? "event-remove" : "event-remove withdraw",
        t(removable ? "event.desk.remove" : "event.desk.withdraw"));
      remove.type = "button";
      remove.dataset.entrant = entrant.name;
      remove.setAttribute("aria-label", t(removable ? "event.desk.removeWho" : "event.desk.withdrawWho",
        { entrant: isolatedText(entrant.name) }));
      item.append(" ", remove);
    }
    return item;
  }));
  $("entrants-none").hidden = s.entrants.length > 0;
  $("event").hidden = false;
}

function drawMe(s) {
  $("me-section").hidden = !s.me.entrant;
  if (!s.me.entrant) return;
  $("me-entrant").replaceChildren(...(s.form === "individual" ? [] : tNodes("event.me.entrant", { name: s.me.entrant })));
  const now = s.me.now;
  const go = $("me-go");
  go.hidden = !now?.url;
  if (now?.url) go.href = now.url;
  const section = $("me-section");
  section.dataset.round = String(now?.round ?? "");
  section.dataset.table = String(now?.table ?? "");
  section.dataset.seat = now?.seat ?? "";
  let text;
  if (!now) text = s.starts_at ? t("event.status.waitingAt", { time: dateText(s.starts_at) }) : t("event.me.notStarted");
  else if (now.table === null) text = t("event.me.sittingOut", { where: roundText(s, now.round, now.session) });
  else text = [roundText(s, now.round, now.session), t("event.tableN", { n: now.table }), seatText(now.seat)].join(" · ");
  $("me-now").textContent = text;
}

function tableItem(s, table) {
  const item = el("li", table.url ? "mine" : "");
  item.dataset.stage = String(table.stage);
  item.dataset.round = String(table.round);
  item.dataset.session = String(table.session);
  item.dataset.table = String(table.table);
  item.dataset.played = String(table.played);
  const head = [t("event.tableN", { n: table.table })];
  if (table.match) head.push(t("event.matchN", { n: table.match }));
  if (s.form !== "individual") {
    head.push(holding("span", "", tNodes("event.nsew", { ns: isolated(table.ns), ew: isolated(table.ew) })));
  }
  head.push(t("event.progress", { done: table.played, n: table.boards.length }));
  item.append(holding("div", "event-table-head", joinedNodes(head)));
  item.append(holding("div", "event-seats",
    joinedNodes(SEATS.map((seat) => holding("span", "", [`${t(`who.${seat}`)} `, isolated(table.seats[seat])])))));
  item.append(el("div", "event-seats", t("event.boardsList", { boards: table.boards.join(", ") })));
  if (table.stand_ins.length) {
    const line = el("div", "event-stand-in", t("event.standIn", { seats: listed(table.stand_ins.map((x) => t(`who.${x}`))) }));
    item.append(line);
  }
  if (table.url) {
    const a = el("a", "button primary", t("event.me.go"));
    a.href = table.url;
    item.append(a);
  }
  return item;
}

function drawTables(s) {
  const stages = new Map();
  for (const table of s.tables) {
    if (!stages.has(table.stage)) stages.set(table.stage, []);
    stages.get(table.stage).push(table);
  }
  const sitOuts = new Map((s.sit_outs ?? []).map((x) => [x.round, x.entrants]));
  const blocks = [...stages.entries()].sort((a, b) => b[0] - a[0]).map(([stage, tables]) => {
    const { round, session } = tables[0];
    const block = document.createElement("details");
    block.className = "event-stage";
    block.id = `stage-${stage}`;
    block.dataset.stage = String(stage);
    block.dataset.round = String(round);
    block.open = opened.get(stage) ?? stage === s.stage;
    block.addEventListener("toggle", () => opened.set(stage, block.open));
    block.append(el("summary", "", roundText(s, round, session)));
    const list = el("ul", "event-tables");
    list.replaceChildren(...tables.sort((a, b) => a.table - b.table).map((table) => tableItem(s, table)));
    block.append(list);
    const out = session === 1 ? sitOuts.get(round) : null;
    if (out?.length) {
      const line = holding("p", "event-sit-out", tNodes("event.sitOut", { entrants: nameList(out) }));
      line.dataset.round = String(round);
      block.append(line);
    }
    return block;
  });
  $("event-stages").replaceChildren(...blocks);
  $("tables-section").hidden = s.tables.length === 0;
}

/** The columns of a ranking and the cells of one of its rows. */
function rankingColumns(s) {
  const kind = kindOf(s);
  const who = KINDS[kind].players === 4 ? "event.col.team" : KINDS[kind].players === 2 ? "event.col.pair" : "event.col.player";
  if (s.form === "teams") {
    return [["rank", t("event.col.rank")], ["entrant", t(who)], ["matches", t("event.col.matches")],
      ["match_points", t("event.col.matchPoints")], ["points", t("event.col.points")], ["byes", t("event.col.byes")]];
  }
  return [["rank", t("event.col.rank")], ["entrant", t(who)], ["boards", t("event.col.boards")],
    ["matchpoints", t("event.col.matchpoints")], ["percent", t("event.col.percent")], ["steps", t("event.col.steps")],
    ["penalty", t("event.col.penalty")]];
}

function rankingCells(s, row) {
  if (s.form === "teams") {
    return { rank: { text: String(row.rank), value: row.rank }, entrant: isolated(row.entrant), matches: String(row.matches ?? ""),
      match_points: { text: String(row.match_points), value: row.match_points },
      points: { text: score(row.points), value: row.points }, byes: String(row.byes ?? 0) };
  }
  return { rank: { text: String(row.rank), value: row.rank }, entrant: isolated(row.entrant), boards: String(row.boards),
    matchpoints: { text: `${row.matchpoints}/${row.top}`, value: row.matchpoints },
    percent: { text: percent(row.percent), value: row.percent }, steps: { text: score(row.steps), value: row.steps },
    penalty: { text: row.penalty ? score(row.penalty) : "—", value: row.penalty } };
}

function drawRankings(s) {
  const fields = s.rankings ?? [];
  const columns = rankingColumns(s);
  $("rankings").replaceChildren(...fields.map((field, i) => {
    const block = el("div", "event-ranking");
    block.dataset.field = field.field;
    const name = { "N–S": "event.ranking.ns", "E–W": "event.ranking.ew", all: "event.ranking.all", teams: "event.ranking.teams" }[field.field];
    block.append(el("h3", "", name ? t(name) : field.field));
    block.append(grid(`ranking-${i + 1}`, columns, field.rows.map((row) => ({
      cells: rankingCells(s, row), cls: row.entrant === s.me.entrant ? "mine" : "",
      data: { entrant: row.entrant, rank: row.rank },
    }))));
    return block;
  }));
  $("event-rankings-csv").href = s.rankings_url;
  $("rankings-note").textContent = t(`event.rankingsNote.${s.form === "teams" ? "teams" : s.form === "individual" ? "individual" : s.form}`);
  // Before any board has been played at every table there is nothing to rank by.
  $("rankings-section").hidden = !s.board_results.some((row) => row.complete) || !fields.some((field) => field.rows.length);
}

function drawMatches(s) {
  const matches = s.form === "teams" ? s.matches ?? [] : [];
  const columns = [["round", t("event.col.round")], ["match", t("event.col.match")], ["home", t("event.col.home")],
    ["away", t("event.col.away")], ["points", t("event.col.score")], ["penalties", t("event.col.penalties")],
    ["total", t("event.col.total")], ["winner", t("event.col.winner")]];
  $("matches-head").replaceChildren(...columns.map(([, label]) => {
    const th = el("th", "", label);
    th.scope = "col";
    return th;
  }));
  $("match-rows").replaceChildren(...matches.map((m) => {
    const tr = document.createElement("tr");
    tr.id = `match-${m.round}-${m.match}`;
    Object.assign(tr.dataset, { round: String(m.round), match: String(m.match), home: m.home, away: m.away,
      winner: m.winner ?? "" });
    const penalties = m.home_penalty || m.away_penalty ? `${score(m.home_penalty)} : ${score(m.away_penalty)}` : "—";
    const cells = { round: String(m.round), match: String(m.match), home: isolated(m.home), away: isolated(m.away),
      points: `${score(m.home_points)} : ${score(m.away_points)}`, penalties,
      total: `${score(m.home_total)} : ${score(m.away_total)}`, winner: m.winner ? isolated(m.winner) : t("event.draw") };
    for (const [key, label] of columns) {
      const td = cell(label, cells[key]);
      td.dataset.key = key;
      tr.append(td);
    }
    return tr;
  }));
  $("matches-section").hidden = matches.length === 0;
}

/** The columns of a board's results for the event's form (with the traveller's once it is complete). */
function boardColumns(s, complete) {
  const columns = [["round", t("event.col.round")]];
  if (s.form === "teams" && s.sessions > 1) columns.push(["session", t("event.col.session")]);
  columns.push(["table", t("event.col.table")]);
  if (s.form === "individual") {
    columns.push(["players", t("event.col.players")], ["raw", t("event.col.raw")]);
    if (complete) for (const seat of SEATS) columns.push([`seat-${seat}`, t(`who.${seat}`)]);
    return columns;
  }
  columns.push(["ns", t("event.col.ns")], ["ew", t("event.col.ew")], ["raw", t("event.col.raw")],
    ["ns_result", t("event.col.nsResult")]);
  if (complete && s.form !== "teams") {
    columns.push(["ns_matchpoints", t("event.col.nsMatchpoints")], ["ns_percent", t("event.col.nsPercent")],
      ["ew_matchpoints", t("event.col.ewMatchpoints")], ["ew_percent", t("event.col.ewPercent")]);
  }
  return columns;
}

function boardCells(s, row, at) {
  const table = s.tables.find((x) => x.stage === at.stage && x.table === at.table);
  const cells = { round: { text: String(at.round), value: at.round }, session: String(at.session),
    table: { text: String(at.table), value: at.table } };
  const result = at.raw ? null : at.played ? t("event.hiddenUntilAll") : t("event.notPlayed");
  cells.raw = at.raw ? rawText(at.raw) : result;
  if (s.form === "individual") {
    cells.players = table ? holding("span", "", joinedNodes(SEATS.map((seat) => holding("span", "",
      [`${seatName(seat)} `, isolated(table.seats[seat])])), " ")) : "";
    const line = row.traveller?.rows.find((r) => r.round === at.round && r.table === at.table);
    for (const seat of SEATS) {
      const x = line?.seats[seat];
      if (x) {
        cells[`seat-${seat}`] = { value: x.matchpoints, text: holding("span", "",
          [isolated(x.player), ` ${score(x.result)} · ${x.matchpoints}/${x.top} · ${percent(x.percent)}`]) };
      }
    }
    return cells;
  }
  cells.ns = at.ns ? isolated(at.ns) : "";
  cells.ew = at.ew ? isolated(at.ew) : "";
  cells.ns_result = at.ns_result !== null ? { text: score(at.ns_result), value: at.ns_result } : result;
  const line = row.traveller?.rows.find((r) => r.round === at.round && r.table === at.table);
  if (line) {
    cells.ns_matchpoints = { text: `${line.ns_matchpoints}/${line.top}`, value: line.ns_matchpoints };
    cells.ns_percent = { text: percent(line.ns_percent), value: line.ns_percent };
    cells.ew_matchpoints = { text: `${line.ew_matchpoints}/${line.top}`, value: line.ew_matchpoints };
    cells.ew_percent = { text: percent(line.ew_percent), value: line.ew_percent };
  }
  return cells;
}

function boardBlock(s, row) {
  const block = el("section", "event-board");
  block.id = `board-${row.board}`;
  block.dataset.board = String(row.board);
  block.dataset.complete = String(row.complete);
  const state = row.complete ? t("event.boardComplete") : t("event.boardPending");
  block.append(el("h3", "", `${t("event.boardN", { n: row.board })} · ${state}`));
  if (row.par !== null && row.par !== undefined) {
    const par = el("p", "help event-par", t("event.par", { par: score(row.par) }));
    par.dataset.par = String(row.par);
    block.append(par);
  }
  const complete = row.complete && Boolean(row.traveller || row.teams);
  block.append(grid("", boardColumns(s, complete), row.tables.map((at) => ({
    cells: boardCells(s, row, at), data: { stage: at.stage, round: at.round, table: at.table, played: at.played },
    cls: s.tables.find((x) => x.stage === at.stage && x.table === at.table)?.url ? "mine" : "",
  }))));
  if (row.teams?.length) {
    const list = el("ul", "event-team-results");
    list.replaceChildren(...row.teams.map((m) => {
      const item = holding("li", "", tNodes("event.teamLine", {  // the teams' names isolated
        round: m.round, match: m.match, home: m.home, away: m.away, home_points: score(m.points[m.home]),
        away_points: score(m.points[m.away]), steps: score(m.steps[m.home]),
      }));
      Object.assign(item.dataset, { round: String(m.round), match: String(m.match), home: m.home, away: m.away,
        homePoints: String(m.points[m.home]), awayPoints: String(m.points[m.away]) });
      return item;
    }));
    block.append(list);
  }
  return block;
}

function drawResults(s) {
  $("event-boards").replaceChildren(...s.board_results.map((row) => boardBlock(s, row)));
  $("event-records").href = s.records_url;
  $("results-section").hidden = s.board_results.length === 0;
}

/** An entrant's name from its number (1, 2 …), as a Swiss pairing names them. */
const entrantName = (s, n) => s.entrants[n - 1]?.name ?? String(n);

/** A line of the referee's log, as nodes: when, who, what (the names in it isolated), why. */
function logLine(s, entry) {
  return joinedNodes([dateText(entry.at), entry.by ? isolated(entry.by) : "", logWhat(s, entry),
    entry.reason ? isolated(entry.reason) : ""].filter((part) => (Array.isArray(part) ? part.length : part))
    .map((part) => (Array.isArray(part) ? holding("span", "", part) : part)));
}

/** What a line of the log says, as nodes. */
function logWhat(s, entry) {
  const d = entry.details ?? {};
  const key = `event.log.${entry.action}`;
  let what;
  if (entry.action === "start") {
    what = t(key, { where: roundText(s, d.round ?? 1, d.session ?? 1) });
  } else if (entry.action === "pairing") {
    const sep = getLang() === "zh" ? "、" : ", ";
    const matches = holding("span", "", joinedNodes((d.matches ?? []).map(([h, a]) => holding("span", "",
      [isolated(entrantName(s, h)), " – ", isolated(entrantName(s, a))])), sep));
    what = tNodes(d.bye ? "event.log.pairingBye" : key,
      { round: d.round, matches, bye: d.bye ? isolated(entrantName(s, d.bye)) : "" });
  } else if (entry.action === "stand_in") {
    // the absent at the grace's end; a player who came and left (from a board); one withdrawn
    const which = d.withdrawn ? "event.log.stand_in_withdrawn" : d.board ? "event.log.stand_in_left" : key;
    what = tNodes(which, { player: d.player, where: roundText(s, d.round ?? 1, d.session ?? 1), table: d.table, seat: d.seat,
      board: d.board });
  } else if (entry.action === "penalty") {
    what = tNodes(key, { entrant: d.entrant, points: score(d.points), round: d.round ?? 1 });
  } else if (entry.action === "correction") {
    what = t(key, { round: d.round ?? 1, table: d.table, board: d.board, raw: d.raw ? rawText(d.raw) : "" });
  } else if (entry.action === "create") {
    what = t(key, { form: t(`event.form.${kindOf(s)}`), entry: t(`event.entry.${d.entry ?? "list"}`) });
  } else if (entry.action === "entry") {
    what = tNodes(key, { entrant: d.entrant, players: nameList(d.players ?? []) });
  } else if (entry.action === "withdraw") {
    // before the start an entry taken back (a listed one: withdrawn, a computer plays its seats);
    // after it, the desk's withdrawal from the event
    what = d.stage ? tNodes("event.log.withdrawBegun", { entrant: d.entrant, where: roundText(s, d.round ?? 1, d.session ?? 1) })
      : tNodes(d.listed ? "event.log.withdrawListed" : key, { entrant: d.entrant });
  } else if (entry.action === "linked") {
    what = tNodes(key, { entrants: nameList(d.entrants ?? []) });
  } else if (entry.action === "start_refused") {
    what = t(key, { why: codeText(s, d.code) });
  } else if (entry.action === "claim") {
    what = t(key, { claim: claimText(s, d) });
  } else if (entry.action === "ruling") {
    const claimed = s.log.find((x) => x.n === d.claim && x.action === "claim");
    what = t(key, { claim: claimed ? claimWhere(s, claimed.details) : String(d.claim), verdict: t(`event.ruling.${d.verdict}`) });
  } else {
    what = hasText(key) ? tNodes(key, d) : entry.action;
  }
  return what;
}

/** A refusal's catalog code logged without its parameters (a round that could not begin), with
 * those the page knows; any other left out. */
function codeText(s, code) {
  if (!code || !hasText(code)) return code ?? "";
  const params = { form: t(`event.form.${kindOf(s)}`), entrants: s.entrants.length, stages: s.stages, rounds: s.rounds };
  return t(code, params).replace(/\s*\{\w+(?::\w+)?\}/g, "");
}

/** Where a contested claim was made: "第 1 轮第 2 桌第 3 副". */
const claimWhere = (s, c) => t("event.claim.where", { round: c.round, table: c.table, board: c.board });

/** A contested claim: where, who claimed what, and who contested it or left it unanswered. */
function claimText(s, c) {
  const what = t(`claim.said.${c.kind}`, { value: c.value });
  const against = c.contested ? t("event.claim.contested", { seat: c.contested })
    : t("event.claim.unanswered", { seats: listed((c.unanswered ?? []).map((seat) => t(`who.${seat}`))) });
  return t("event.claim.line", { where: claimWhere(s, c), seat: c.seat, what, against });
}

/** The contested claims with their rulings, shown to everyone once every table has played the board. */
function drawClaims(s) {
  const claims = s.claims ?? [];
  $("event-claims").replaceChildren(...claims.map((c) => {
    const item = el("li", "", `${claimText(s, c)} — ${t(`event.ruling.${c.ruling ?? "none"}`)}`);
    Object.assign(item.dataset, { claim: String(c.n), ruling: c.ruling ?? "", board: String(c.board), table: String(c.table) });
    return item;
  }));
  $("claims-section").hidden = claims.length === 0;
}

/** The desk's contested claims: a reason and "rule from the solver" for each not ruled on. */
function drawDeskClaims(s) {
  const claims = s.claims ?? [];
  const shape = JSON.stringify([getLang(), s.published, claims.map((c) => [c.n, c.ruling])]);
  $("desk-claims-box").hidden = claims.length === 0;
  const list = $("desk-claims");
  if (list.dataset.shape === shape) return; // kept: what is being typed stays
  list.dataset.shape = shape;
  list.replaceChildren(...claims.map((c) => {
    const item = el("li", "event-claim");
    item.id = `claim-${c.n}`;
    Object.assign(item.dataset, { claim: String(c.n), ruling: c.ruling ?? "" });
    item.append(el("div", "", claimText(s, c)));
    item.append(el("div", "event-ruling", t(`event.ruling.${c.ruling ?? "none"}`)));
    if (c.ruling === null && !s.published) {
      const form = el("form", "event-form event-rule");
      form.dataset.claim = String(c.n);
      const reason = document.createElement("input");
      Object.assign(reason, { type: "text", maxLength: 500, required: true, className: "claim-reason",
        value: reasons.get(c.n) ?? "" });
      reason.id = `claim-reason-${c.n}`;
      reason.addEventListener("input", () => reasons.set(c.n, reason.value));
      const button = el("button", "", t("event.desk.rule"));
      button.type = "submit";
      form.append(labelled(t("event.desk.reason"), reason), button);
      item.append(form);
    }
    return item;
  }));
}

function drawLog(s) {
  $("log-section").hidden = s.log.length === 0;
  $("event-log").replaceChildren(...s.log.map((entry) => {
    const item = holding("li", "", logLine(s, entry));
    item.dataset.action = entry.action;
    return item;
  }));
}

function drawDesk(s) {
  $("desk").hidden = !s.me.referee;
  if (!s.me.referee) return;
  const invite = $("desk-invite");
  invite.hidden = !s.invite_url || s.stage > 0;
  if (s.invite_url) $("desk-invite-url").value = new URL(s.invite_url, location.origin).href;
  drawDeskClaims(s);
  const select = $("penalty-entrant");
  const names = s.entrants.map((entrant) => entrant.name);
  if ([...select.options].map((o) => o.value).join("\n") !== names.join("\n")) {
    select.replaceChildren(...names.map((name) => {
      const option = el("option", "", name);
      option.value = name;
      return option;
    }));
  }
  const per = s.form === "teams" ? s.sessions : 1;
  const next = s.stage + 1;
  const round = Math.floor(s.stage / per) + 1;
  const session = (s.stage % per) + 1;
  // Entered by the players, the rounds are settled when the first begins (none before).
  const none = s.stage > 0 && next > s.stages;
  const start = $("desk-start");
  start.textContent = none ? t("event.desk.allStarted") : t("event.desk.start", { where: roundText(s, round, session) });
  start.disabled = none || (s.stage > 0 && !s.stage_over);
  start.dataset.stage = String(next);
  $("desk-publish").disabled = s.published || s.status !== "over";
  $("penalty-note").textContent = t(s.form === "teams" ? "event.desk.penaltyTeams" : "event.desk.penaltyPairs");
  const penaltyRound = $("penalty-round");
  penaltyRound.max = String(s.rounds);
  if (!penaltyRound.value) penaltyRound.value = String(Math.max(1, s.round));
  $("correction-board").max = String(s.definition?.count ?? "");
  for (const id of ["penalty-form", "correction-form"]) {
    for (const node of $(id).elements) node.disabled = s.published;
  }
}

function draw() {
  if (making) {
    drawNewForm();
    return;
  }
  if (!summary) return;
  drawFacts(summary);
  drawEntry(summary);
  drawMe(summary);
  drawDesk(summary);
  drawRankings(summary);
  drawMatches(summary);
  drawTables(summary);
  drawResults(summary);
  drawClaims(summary);
  drawLog(summary);
}

// ---------------------------------------------------------------- entering the event

/** The players' fields of the form that enters the event: the person's own name fixed first. */
function entryPlayers(s) {
  const size = KINDS[kindOf(s)].players;
  const box = $("entry-players");
  const shape = `${size}\n${me?.name ?? ""}`;
  if (box.dataset.shape !== shape) {
    box.dataset.shape = shape;
    const fields = [];
    for (let k = 1; k <= size; k += 1) {
      const input = document.createElement("input");
      Object.assign(input, { id: `entry-player-${k}`, type: "text", maxLength: 40, className: "entry-player",
        autocomplete: "off", required: true });
      if (k === 1) {
        input.defaultValue = input.value = me?.name ?? "";
        input.readOnly = true;
      }
      fields.push(labelled("", input));
    }
    box.replaceChildren(...fields);
  }
  [...box.querySelectorAll("label > span")].forEach((span, i) => {
    span.textContent = size === 4 ? t("event.new.member", { n: i + 1 })
      : size === 2 ? t(`event.new.pairMember${i + 1}`) : t("event.new.account");
  });
}

/** Before the event begins, where its players enter it: the form that enters, or the person's entry
 * and the button that withdraws it — in a listed event, the place the organiser gave them, which
 * they may leave (a computer then plays their seats). */
function drawEntry(s) {
  const section = $("entry-section");
  const entered = Boolean(s.me.entrant);
  const byList = s.entry === "list";
  const left = entered && Boolean(s.entrants.find((e) => e.name === s.me.entrant)?.withdrawn);
  const open = s.stage === 0 && !s.published && (!byList || (entered && !left));
  section.hidden = !open;
  if (!open) return;
  section.dataset.listed = String(byList);
  for (const [id, key] of [["entry-heading", byList ? "event.entry.listedHeading" : "event.entry.heading"],
    ["entry-withdraw", byList ? "event.entry.withdrawListed" : "event.entry.withdraw"]]) {
    $(id).dataset.i18n = key;
    $(id).textContent = t(key);
  }
  if (byList) {
    $("entry-note").textContent = "";
    $("entry-form").hidden = true;
    $("entry-mine").hidden = false;
    $("entry-mine").replaceChildren(...tNodes("event.entry.listedMine", { name: s.me.entrant }));
    $("entry-withdraw").hidden = false;
    return;
  }
  const kind = kindOf(s);
  const size = KINDS[kind].players;
  const account = Boolean(me && !me.guest);
  const invited = s.entry !== "invite" || Boolean(inviteToken);
  const canEnter = !entered && account && invited;
  section.dataset.entered = String(entered);
  let note;
  if (entered) note = "";
  else if (!account) note = t("event.entry.signIn");
  else if (!invited) note = t("event.entry.needInvite");
  else note = t(s.entry === "invite" ? "event.entry.noteInvite" : "event.entry.noteOpen");
  $("entry-note").textContent = note;
  $("entry-form").hidden = !canEnter;
  const mine = $("entry-mine");
  mine.hidden = !entered;
  mine.replaceChildren(...(entered ? tNodes("event.entry.mine", { name: s.me.entrant }) : []));
  $("entry-withdraw").hidden = !entered;
  const noun = size === 4 ? "team" : size === 2 ? "pair" : "player";
  $("entry-name-label").textContent = t(`event.new.${noun}Name`);
  const name = $("entry-name");
  name.required = size === 4;
  name.placeholder = size === 4 ? "" : t("event.new.defaultName");
  if (canEnter) entryPlayers(s);
}

/** The body of POST /api/events/{id}/entries from the form. */
function entryBody() {
  const body = { players: [...$("entry-players").querySelectorAll(".entry-player")].map((input) => input.value.trim()) };
  const name = $("entry-name").value.trim();
  if (name || KINDS[kindOf(summary)].players === 4) body.name = name;
  if (summary.entry === "invite") body.invite = inviteToken ?? "";
  return body;
}

// ---------------------------------------------------------------- the form that makes an event

/** The entrant rows the form may have for the chosen form and entry: where the players enter
 * themselves, none to the form's most, one at a time. */
function bounds() {
  const kind = KINDS[$("new-kind").value];
  if ($("new-entry").value === "list") return kind;
  return { ...kind, fewest: 0, first: 0, step: 1 };
}

/** What the entrant rows hold now, by row: {name, players}. */
function rowValues() {
  return [...$("new-entrants").children].map((row) => ({
    name: row.querySelector(".entrant-name")?.value ?? "",
    players: [...row.querySelectorAll(".entrant-player")].map((input) => input.value),
  }));
}

function labelled(labelText, input) {
  const label = document.createElement("label");
  label.append(el("span", "", labelText), " ", input);
  return label;
}

/** The rows of the entrants for the chosen form: `count` of them, keeping what was typed. */
function drawRows(count) {
  const kind = KINDS[$("new-kind").value];
  const kept = rowValues();
  const rows = [];
  for (let n = 1; n <= count; n += 1) {
    const was = kept[n - 1] ?? { name: "", players: [] };
    const row = el("li", "event-new-entrant");
    row.dataset.n = String(n);
    const box = document.createElement("fieldset");
    const noun = kind.players === 4 ? "team" : kind.players === 2 ? "pair" : "player";
    box.append(el("legend", "", t(`event.new.${noun}N`, { n })));
    const name = document.createElement("input");
    Object.assign(name, { id: `entrant-${n}-name`, type: "text", maxLength: 40, value: was.name, className: "entrant-name" });
    name.required = kind.players === 4 && $("new-entry").value === "list";
    if (kind.players !== 4) name.placeholder = t("event.new.defaultName");
    box.append(labelled(t(`event.new.${noun}Name`), name));
    for (let k = 1; k <= kind.players; k += 1) {
      const input = document.createElement("input");
      Object.assign(input, { id: `entrant-${n}-${k}`, type: "text", maxLength: 40, value: was.players[k - 1] ?? "",
        className: "entrant-player", autocomplete: "off", required: $("new-entry").value === "list" });
      const label = kind.players === 4 ? t("event.new.member", { n: k })
        : kind.players === 2 ? t(`event.new.pairMember${k}`) : t("event.new.account");
      box.append(labelled(label, input));
    }
    row.append(box);
    rows.push(row);
  }
  $("new-entrants").replaceChildren(...rows);
  $("new-count").value = String(count);
}

/** The form's fields for the chosen form (presets, boards, rounds, sessions, the entrant rows). */
function chooseKind() {
  const kindName = $("new-kind").value;
  const kind = bounds();
  const preset = $("new-preset");
  const was = preset.value;
  preset.replaceChildren(...PRESETS[kind.form].map((name) => {
    const option = el("option", "", presetLabel(name));
    option.value = name;
    option.selected = name === was;
    return option;
  }));
  if (!boardsTouched) $("new-boards").value = String(BOARDS[kind.form]);
  $("new-rounds-field").hidden = kindName === "match";
  $("new-sessions-field").hidden = kind.form !== "teams";
  const count = $("new-count");
  Object.assign(count, { min: String(kind.fewest), max: String(kind.most), step: String(kind.step) });
  count.disabled = kind.fewest === kind.most;
  const listedEntry = $("new-entry").value === "list";
  $("new-entrants-box").dataset.entry = $("new-entry").value;
  for (const input of $("new-entrants").querySelectorAll("input")) {
    input.required = listedEntry && (input.classList.contains("entrant-player") || kind.players === 4);
  }
  // The rows typed so far stay when they are as many as the form may have, else the form's first count.
  const rows = $("new-entrants").children.length;
  const fits = rows >= kind.fewest && rows <= kind.most && (rows - kind.fewest) % kind.step === 0;
  drawRows(fits ? rows : kind.first);
  drawNewForm();
}

/** The form's words that depend on the chosen form, in the page's language. */
function drawNewForm() {
  document.title = t("event.new.title");
  const kindName = $("new-kind").value;
  const kind = KINDS[kindName];
  $("new-kind-note").textContent = t(`event.new.kindNote.${kindName}`);
  $("new-entry-note").textContent = t(`event.new.entryNote.${$("new-entry").value}`);
  $("new-boards-label").textContent = t(kind.form === "teams" ? "event.fact.boardsSession" : "event.fact.boardsRound");
  $("new-rounds").placeholder = t(kindName === "swiss" ? "event.new.roundsOne" : "event.new.roundsAll");
  for (const option of $("new-preset").options) option.textContent = presetLabel(option.value);
  const noun = kind.players === 4 ? "team" : kind.players === 2 ? "pair" : "player";
  for (const row of $("new-entrants").children) {
    const n = Number(row.dataset.n);
    row.querySelector("legend").textContent = t(`event.new.${noun}N`, { n });
    const labels = row.querySelectorAll("label > span");
    labels[0].textContent = t(`event.new.${noun}Name`);
    if (kind.players !== 4) row.querySelector(".entrant-name").placeholder = t("event.new.defaultName");
    [...labels].slice(1).forEach((span, i) => {
      span.textContent = kind.players === 4 ? t("event.new.member", { n: i + 1 })
        : kind.players === 2 ? t(`event.new.pairMember${i + 1}`) : t("event.new.account");
    });
  }
  const rows = bounds();
  $("new-remove").disabled = $("new-entrants").children.length <= rows.fewest;
  $("new-add").disabled = $("new-entrants").children.length >= rows.most;
}

/** A date and time of the browser's (a datetime-local input's value) as ISO 8601 with the
 * browser's offset at that time: "2026-12-24T19:30:00+08:00"; null for none. */
function withOffset(local) {
  if (!local) return null;
  const d = new Date(local);
  if (Number.isNaN(d.getTime())) return null;
  const pad = (n) => String(n).padStart(2, "0");
  const offset = -d.getTimezoneOffset();
  const sign = offset >= 0 ? "+" : "-";
  const day = `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
  const time = `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
  return `${day}T${time}${sign}${pad(Math.floor(Math.abs(offset) / 60))}:${pad(Math.abs(offset) % 60)}`;
}

/** The body of POST /api/events from the form. */
function newEvent() {
  const kindName = $("new-kind").value;
  const kind = KINDS[kindName];
  const whole = (id) => Number($(id).value);
  const entry = $("new-entry").value;
  // Where the players enter themselves, a row left empty is no entrant.
  const rows = rowValues().filter(({ name, players }) => entry === "list" || name.trim() || players.some((p) => p.trim()));
  const entrants = rows.map(({ name, players }) => {
    const entrant = { players: players.map((p) => p.trim()) };
    if (kind.players === 4 || name.trim()) entrant.name = name;
    return entrant;
  });
  const referees = $("new-referees").value.split(/[,，、]/).map((x) => x.trim()).filter(Boolean);
  const body = {
    name: $("new-name").value, form: kind.form, preset: $("new-preset").value, boards: whole("new-boards"),
    turn_seconds: whole("new-turn"), grace_seconds: whole("new-grace"), entry, entrants,
  };
  if (referees.length) body.referees = referees;
  if (kindName !== "match" && $("new-rounds").value !== "") body.rounds = whole("new-rounds");
  if (kind.form === "teams") body.sessions = whole("new-sessions");
  const start = withOffset($("new-start").value);
  if (start) body.starts_at = start;
  return body;
}

function wireNewForm() {
  $("new-kind").addEventListener("change", chooseKind);
  $("new-entry").addEventListener("change", chooseKind);
  $("new-boards").addEventListener("input", () => { boardsTouched = true; });
  const resize = (count) => {
    const kind = bounds();
    drawRows(Math.min(kind.most, Math.max(kind.fewest, count)));
    drawNewForm();
  };
  $("new-count").addEventListener("change", () => resize(Number($("new-count").value) || 0));
  $("new-add").addEventListener("click", () => resize($("new-entrants").children.length + bounds().step));
  $("new-remove").addEventListener("click", () => resize($("new-entrants").children.length - bounds().step));
  $("new-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    $("new-submit").disabled = true;
    try {
      let res;
      try {
        res = await fetch("/api/events", {
          method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(newEvent()),
        });
      } catch {
        showRefusal("new-error", { key: "event.new.unreachable" });
        return;
      }
      const body = await res.json().catch(() => null);
      if (!res.ok) {
        showRefusal("new-error", { body, status: res.status });
        return;
      }
      showRefusal("new-error", null);
      location.assign(body.url);
    } finally {
      $("new-submit").disabled = false;
    }
  });
  chooseKind();
}

// ---------------------------------------------------------------- the server

async function load() {
  if (unknown) return;
  const read = ++asked;
  let res;
  try {
    res = await fetch(base, { cache: "no-store" });
  } catch {
    return; // not reachable now: read again later
  }
  const body = await res.json().catch(() => null);
  if (read !== asked) return; // a later read was asked meanwhile: its answer is the one shown
  if (!res.ok) {
    unknown = res.status === 404;
    showRefusal("event-error", { body, status: res.status });
    followNews();
    return;
  }
  showRefusal("event-error", null);
  summary = body;
  followNews();
  draw();
  if (location.hash && !document.activeElement?.closest?.("form")) $(location.hash.slice(1))?.scrollIntoView();
}

/** The person, once: whether they may enter (an account) and their name, fixed among the players. */
async function loadMe() {
  try {
    const res = await fetch("/api/me", { cache: "no-store" });
    if (res.ok) me = await res.json();
  } catch {
    // not reachable now: the entry form waits for the next reading
  }
}

/** A request of the referee's desk (or of the entry form, its refusals shown at `errorId`); the
 * event as it stands after it is drawn. */
async function desk(path, payload, errorId = "desk-error") {
  let res;
  try {
    res = await fetch(`${base}/${path}`, {
      method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(payload),
    });
  } catch {
    showRefusal(errorId, { key: "server.cluster_unavailable" });
    return false;
  }
  const body = await res.json().catch(() => null);
  if (!res.ok) {
    showRefusal(errorId, { body, status: res.status });
    return false;
  }
  showRefusal(errorId, null);
  summary = body;
  draw();
  return true;
}

function wire() {
  $("event-print").addEventListener("click", () => window.print());
  $("entry-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    $("entry-submit").disabled = true;
    try {
      if (await desk("entries", entryBody(), "entry-error")) $("entry-form").reset();
    } finally {
      $("entry-submit").disabled = false;
    }
  });
  $("entry-withdraw").addEventListener("click", () => {
    // Leaving a listed event cannot be taken back: asked once more.
    if (summary?.entry === "list"
      && !window.confirm(t("event.entry.withdrawListedConfirm", { name: isolatedText(summary.me.entrant ?? "") }))) return;
    desk("withdraw", {}, "entry-error");
  });
  $("event-entrants").addEventListener("click", (e) => {
    const remove = e.target.closest?.("button.event-remove");
    if (!remove) return;
    // Withdrawing from an event under way cannot be taken back: asked once more.
    const entrant = remove.dataset.entrant;
    if (remove.classList.contains("withdraw")
      && !window.confirm(t("event.desk.withdrawConfirm", { entrant: isolatedText(entrant) }))) return;
    desk("withdraw", { entrant });
  });
  $("desk-invite-copy").addEventListener("click", () => {
    const field = $("desk-invite-url");
    field.select();
    navigator.clipboard?.writeText(field.value).catch(() => {});
  });
  $("desk-claims").addEventListener("submit", async (e) => {
    const form = e.target.closest("form.event-rule");
    if (!form) return;
    e.preventDefault();
    const n = Number(form.dataset.claim);
    if (await desk("rulings", { claim: n, reason: form.querySelector(".claim-reason").value })) reasons.delete(n);
  });
  $("desk-start").addEventListener("click", () => desk("start", {}));
  $("desk-publish").addEventListener("click", () => desk("publish", {}));
  $("penalty-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    const done = await desk("adjustments", {
      type: "penalty", entrant: $("penalty-entrant").value, points: Number($("penalty-points").value),
      round: Number($("penalty-round").value), reason: $("penalty-reason").value,
    });
    if (done) {
      $("penalty-form").reset();
      draw(); // the desk's defaults again (the penalty's round)
    }
  });
  $("correction-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    const raw = Object.fromEntries(SEATS.map((seat) => [seat, Number($(`raw-${seat}`).value)]));
    const done = await desk("adjustments", {
      type: "correction", table: Number($("correction-table").value), board: Number($("correction-board").value),
      raw, reason: $("correction-reason").value,
    });
    if (done) {
      $("correction-form").reset();
      draw(); // the desk's defaults again (the penalty's round)
    }
  });
}

drawHeader();
startPageLanguage(() => {
  for (const [id, refusal] of Object.entries(refusals)) showRefusal(id, refusal);
  draw();
});
if (making) {
  $("new-section").hidden = false;
  wireNewForm();
  // Only an account organises an event: a guest is told to sign in first.
  loadMe().then(() => { $("new-sign-in").hidden = Boolean(me && !me.guest); });
} else {
  wire();
  loadMe().then(load);
  setInterval(() => {
    if (document.visibilityState === "visible") load();
  }, REFRESH_MS);
}

/** The lobby's socket while the person is one of the event's own people (a player, the organiser,
 * a referee: the server tells nobody else) and the event runs: at the news of a stage the page
 * has not shown begun, the event is read again.  Closed once the event is over or unknown. */
function followNews() {
  const wanted = Boolean(summary) && !unknown && summary.status !== "over" && !summary.published
    && Boolean(summary.me?.entrant || summary.me?.referee);
  if (!wanted) {
    news?.close();
    news = null;
    return;
  }
  if (news) return;
  news = new ReconnectingSocket(() => socketAddress("/ws/lobby"), {
    onMessage: (msg) => {
      if (msg.type === "event" && msg.id === eventId && msg.stage > (summary?.stage ?? 0)) load();
    },
  });
}
