// One team match's page (/event/{id}, the id read from the address).  GET /api/events/{id}: the
// event's name, status, teams, rules, boards a session, sessions, timers, commitment and (once
// every board has been played) seed; the tables of the sessions started (who sits where, how many
// boards each has played, 托管 for the absent) with a link to the person's own table; the
// board-by-board results as the server opens them to the person (their table's result once it has
// played the board, the other table's and the team result once both tables have), the match total
// with its penalties, marked provisional until the referee publishes it, and the records (JSON
// Lines) of the boards both tables have played.  The organiser gets the referee's desk: start the
// next session (POST .../start), enter a penalty or a score correction with its reason (POST
// .../adjustments), publish the results (POST .../publish); everyone sees the referee's log.  The
// page is read again every 5 s while it is visible; it draws only what the server sends.  Refusals
// are shown in the page's language from their catalog code.
//
// At /event/new the page is the form that makes a team match instead (POST /api/events, by a
// signed-in organiser): its name, preset, boards a session, sessions, turn timer, grace and the two
// teams (a name and four account names each); once made, the page goes to /event/{id}.
//
// May import: dom.js, header.js, i18n.js.

import { $, cell, el } from "./dom.js";
import { drawHeader } from "./header.js";
import { dateText, presetLabel, refusalText, signedNumber, startPageLanguage, t } from "./i18n.js";

/** How often the event is read again while the page is visible (ms). */
const REFRESH_MS = 5000;
const SEATS = ["N", "E", "S", "W"];

const eventId = decodeURIComponent((/^\/event\/([^/]+)\/?$/.exec(location.pathname) ?? [])[1] ?? "");
const base = `/api/events/${encodeURIComponent(eventId)}`;
/** /event/new: the form that makes an event, not an event's page. */
const making = eventId === "new";

let summary = null;   // GET /api/events/{id}
let unknown = false;  // the server knows no such event: nothing to read again
/** The refusals shown, by the id of the element showing them, written again in the other language. */
const refusals = {};

function showRefusal(id, refusal) {
  refusals[id] = refusal;
  $(id).textContent = refusal ? refusalText(refusal) : "";
}

/** A score: +100, −25.5, 0; "—" for none. */
function score(n) {
  if (n === null || n === undefined) return "—";
  return signedNumber(Number.isInteger(n) ? n : Math.round(n * 10) / 10);
}

// ---------------------------------------------------------------- drawing

function drawFacts(s) {
  document.title = t("event.pageTitle", { name: s.name });
  $("event-name").textContent = s.name;
  $("event-status").textContent = t(`event.status.${s.status}`, { session: s.session });
  $("event-provisional").textContent = t(s.provisional ? "event.provisional" : "event.final");
  $("event").dataset.status = s.status;
  $("event").dataset.published = String(s.published);
  $("fact-organiser").textContent = s.organiser ?? "—";
  $("fact-preset").textContent = presetLabel(s.preset);
  $("fact-boards").textContent = String(s.boards);
  $("fact-sessions").textContent = String(s.sessions);
  $("fact-timer").textContent = t("event.seconds", { n: s.turn_seconds });
  $("fact-grace").textContent = t("event.seconds", { n: s.grace_seconds });
  $("fact-commitment").textContent = s.commitment;
  $("fact-seed").textContent = s.seed ?? t("event.seedHidden");
  $("event-teams").replaceChildren(...s.teams.map((team) => {
    const item = el("li", team.name === s.me.team ? "me" : "", `${team.name}: ${team.players.join("、")}`);
    item.dataset.team = team.name;
    return item;
  }));
  $("event").hidden = false;
}

function drawTables(s) {
  $("event-tables").replaceChildren(...s.tables.map((table) => {
    const item = el("li", table.url ? "me" : "");
    item.dataset.session = String(table.session);
    item.dataset.table = String(table.table);
    const head = [t("event.sessionN", { n: table.session }), t("event.tableN", { n: table.table }),
      t("event.nsew", { ns: table.ns, ew: table.ew }),
      t("event.progress", { done: table.played, n: table.boards })].join(" · ");
    item.append(el("div", "", head));
    item.append(el("div", "event-seats", SEATS.map((seat) => `${t(`who.${seat}`)} ${table.seats[seat]}`).join(" · ")));
    if (table.stand_ins.length) {
      item.append(el("div", "event-stand-in", t("event.standIn", { seats: table.stand_ins.map((x) => t(`who.${x}`)).join("、") })));
    }
    if (table.url) {
      const a = el("a", "button primary", t("event.sit"));
      a.href = table.url;
      item.append(a);
    }
    return item;
  }));
  $("tables-section").hidden = s.tables.length === 0;
}

function drawResults(s) {
  const [a, b] = s.teams.map((team) => team.name);
  const columns = [t("event.col.board"), t("event.col.table", { n: 1 }), t("event.col.table", { n: 2 }),
    t("event.col.team", { team: a }), t("event.col.team", { team: b })];
  $("results-head").replaceChildren(...columns.map((c) => {
    const th = el("th", "", c);
    th.scope = "col";
    return th;
  }));
  $("result-rows").replaceChildren(...s.board_results.map((row) => {
    const tr = document.createElement("tr");
    tr.id = `board-${row.board}`;
    tr.dataset.board = String(row.board);
    tr.dataset.complete = String(row.complete);
    tr.append(cell(columns[0], String(row.board)));
    row.tables.forEach((table, i) => {
      const text = table.ns_result !== null ? score(table.ns_result)
        : table.played ? t("event.hiddenUntilBoth") : t("event.notPlayed");
      const td = cell(columns[i + 1], text);
      td.dataset.table = String(table.table);
      if (table.ns_result !== null) td.dataset.result = String(table.ns_result);
      tr.append(td);
    });
    for (const [i, team] of [a, b].entries()) {
      const td = cell(columns[3 + i], row.teams ? score(row.teams[team]) : "—");
      if (row.teams) td.dataset.result = String(row.teams[team]);
      tr.append(td);
    }
    return tr;
  }));
  const totals = s.totals.map((x) => {
    const penalty = s.match?.penalties?.[x.team] ?? 0;
    return `${x.team} ${score(x.points)}` + (penalty ? ` (${t("event.penaltyTotal", { points: score(penalty) })})` : "");
  });
  const winner = s.match ? (s.match.winner ? t("event.winner", { team: s.match.winner }) : t("event.draw")) : "";
  $("event-total").textContent = `${t("event.total")}: ${totals.join(" · ")}${winner ? ` — ${winner}` : ""}`;
  $("event-records").href = s.records_url;
  $("results-section").hidden = s.board_results.length === 0;
}

function logText(entry) {
  const d = entry.details ?? {};
  const params = { ...d, seat: d.seat ? t(`who.${d.seat}`) : "", points: d.points !== undefined ? score(d.points) : "" };
  const what = t(`event.log.${entry.action}`, params);
  return [dateText(entry.at), entry.by ?? "", what, entry.reason ?? ""].filter(Boolean).join(" · ");
}

function drawDesk(s) {
  $("desk").hidden = !s.me.organiser;
  $("log-section").hidden = s.log.length === 0;
  $("event-log").replaceChildren(...s.log.map((entry) => {
    const item = el("li", "", logText(entry));
    item.dataset.action = entry.action;
    return item;
  }));
  if (!s.me.organiser) return;
  const select = $("penalty-team");
  if (select.options.length !== s.teams.length) {
    select.replaceChildren(...s.teams.map((team) => {
      const option = el("option", "", team.name);
      option.value = team.name;
      return option;
    }));
  }
  $("desk-start").disabled = s.session >= s.sessions;
  $("desk-publish").disabled = s.published || s.status !== "over";
  $("correction-board").max = String(s.boards * s.sessions);
}

/** The form's preset choices, labelled in the page's language. */
function drawNewForm() {
  document.title = t("event.new.title");
  for (const option of $("new-preset").options) option.textContent = presetLabel(option.value);
}

function draw() {
  if (making) {
    drawNewForm();
    return;
  }
  if (!summary) return;
  drawFacts(summary);
  drawTables(summary);
  drawResults(summary);
  drawDesk(summary);
}

// ---------------------------------------------------------------- the server

async function load() {
  if (unknown) return;
  let res;
  try {
    res = await fetch(base, { cache: "no-store" });
  } catch {
    return; // not reachable now: read again later
  }
  const body = await res.json().catch(() => null);
  if (!res.ok) {
    unknown = res.status === 404;
    showRefusal("event-error", { body, status: res.status });
    return;
  }
  showRefusal("event-error", null);
  summary = body;
  draw();
  if (location.hash && !document.activeElement?.closest?.("form")) $(location.hash.slice(1))?.scrollIntoView();
}

/** A request of the referee's desk; the event as it stands after it is drawn. */
async function desk(path, payload) {
  let res;
  try {
    res = await fetch(`${base}/${path}`, {
      method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(payload),
    });
  } catch {
    showRefusal("desk-error", { key: "server.cluster_unavailable" });
    return false;
  }
  const body = await res.json().catch(() => null);
  if (!res.ok) {
    showRefusal("desk-error", { body, status: res.status });
    return false;
  }
  showRefusal("desk-error", null);
  summary = body;
  draw();
  return true;
}

/** The body of POST /api/events from the form. */
function newEvent() {
  const whole = (id) => Number($(id).value);
  const team = (x) => ({
    name: $(`team-${x}-name`).value,
    players: [1, 2, 3, 4].map((n) => $(`team-${x}-${n}`).value.trim()),
  });
  return {
    name: $("new-name").value, preset: $("new-preset").value, boards: whole("new-boards"),
    sessions: whole("new-sessions"), turn_seconds: whole("new-turn"), grace_seconds: whole("new-grace"),
    teams: [team("a"), team("b")],
  };
}

function wireNewForm() {
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
}

function wire() {
  $("desk-start").addEventListener("click", () => desk("start", {}));
  $("desk-publish").addEventListener("click", () => desk("publish", {}));
  $("penalty-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    const done = await desk("adjustments", {
      type: "penalty", team: $("penalty-team").value, points: Number($("penalty-points").value),
      reason: $("penalty-reason").value,
    });
    if (done) $("penalty-form").reset();
  });
  $("correction-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    const raw = Object.fromEntries(SEATS.map((seat) => [seat, Number($(`raw-${seat}`).value)]));
    const done = await desk("adjustments", {
      type: "correction", table: Number($("correction-table").value), board: Number($("correction-board").value),
      raw, reason: $("correction-reason").value,
    });
    if (done) $("correction-form").reset();
  });
}

drawHeader();
startPageLanguage(() => {
  for (const [id, refusal] of Object.entries(refusals)) showRefusal(id, refusal);
  draw();
});
if (making) {
  $("new-section").hidden = false;
  drawNewForm();
  wireNewForm();
} else {
  wire();
  load();
  setInterval(() => {
    if (document.visibilityState === "visible") load();
  }, REFRESH_MS);
}
