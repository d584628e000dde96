// The operators' page (docs/moderation.md), on the operators' JSON API (/api/admin/...): a search
// by the beginning of a name (GET /api/admin/people?q=), a person's card (GET
// /api/admin/people/{name}: account, reports against them, sanctions — each with 解除 / Lift —
// recent matches, and the accounts linked to theirs by a browser, each with Show) with the
// actions warn, mute, suspend and ban (POST .../sanctions: a reason, and an end date for a mute
// or a suspension), the open reports (GET /api/admin/reports, newest
// first: Show opens the reported person's card, Mark handled), closing a table (POST
// /api/admin/tables/{id}/close) and the audit log (GET /api/admin/audit).  Someone who is not an
// operator is refused by the API: the page then says so and shows nothing else.  Every refusal is
// the server's catalog message, in the page's language.  Every name (and every reason a person
// typed) shown inside a line of other text is a <bdi> of its own (i18n.js: isolated), so that one
// in a right-to-left script leaves the dates and marks beside it in their order.
//
// May import: dom.js, header.js, i18n.js.

import { $, button, el } from "./dom.js";
import { drawHeader } from "./header.js";
import { dateText, isolated, refusalText, startPageLanguage, t, tNodes } from "./i18n.js";

const KINDS = ["warn", "mute", "suspend", "ban"];
const HOUR = 3600 * 1000;

let shownName = null;  // the person whose card is shown
let card = null;
let found = [];
let reports = [];
let entries = [];

async function api(path, body) {
  const init = body === undefined ? {} : {
    method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
  };
  let res;
  try {
    res = await fetch(path, { credentials: "same-origin", ...init });
  } catch {
    throw new Error(t("msg.offline"));  // the network, not the server: the catalog's words alone
  }
  const data = await res.json().catch(() => ({}));
  if (res.status === 403 && data.code === "moderation.operators_only") {
    refuse(refusalText({ body: data, status: res.status }));
    throw new Error("not an operator");
  }
  if (!res.ok) throw new Error(refusalText({ body: data, status: res.status }));
  return data;
}

function refuse(text) {
  $("admin-body").hidden = true;
  const p = $("admin-refused");
  p.hidden = false;
  p.textContent = t("admin.notOperator");
  p.title = text;
}

function note(text, isError = false) {
  const p = $("admin-note");
  p.textContent = text;
  p.classList.toggle("error", isError);
}

/** Run `work` (an action), say it was done or why not, then load everything again. */
async function act(work) {
  try {
    await work();
    note(t("admin.done"));
  } catch (err) {
    note(err.message, true);
  }
  await loadAll();
}

function kindLabel(kind) {
  return t(`admin.kind.${kind}`);
}

/** `parts` (text, nodes, or lists of nodes; the empty ones left out) one after another, " · " between. */
function joined(parts) {
  const out = [];
  for (const part of parts.filter((x) => (Array.isArray(x) ? x.length : x))) {
    if (out.length) out.push(" · ");
    out.push(...(Array.isArray(part) ? part : [part]));
  }
  return out;
}

/** A span of `parts` (joined). */
function line(parts) {
  const e = el("span", "");
  e.append(...joined(parts));
  return e;
}

function sanctionLine(s) {
  const item = el("li", `admin-sanction${s.active ? " active" : ""}`);
  item.dataset.sanction = String(s.id);
  item.dataset.kind = s.kind;
  const ends = s.ends ? t("admin.until", { when: dateText(s.ends) }) : (s.kind === "warn" ? "" : t("admin.forever"));
  const parts = [kindLabel(s.kind), dateText(s.starts), ends, s.by ? tNodes("admin.by", { name: s.by }) : "",
    s.reason ? isolated(s.reason) : ""];
  if (s.lifted) parts.push(t("admin.lifted", { when: dateText(s.lifted) }));
  else if (s.active) parts.push(t("admin.active"));
  item.append(line(parts));
  if (!s.lifted && s.active) {
    item.append(button("small", t("admin.lift"), () => act(() => api(`/api/admin/sanctions/${s.id}/lift`, {}))));
  }
  return item;
}

function actionForm(name) {
  const form = el("form", "admin-actions");
  form.id = "admin-actions";
  const reason = el("input");
  reason.id = "admin-reason";
  reason.placeholder = t("admin.reason");
  reason.setAttribute("aria-label", t("admin.reason"));
  reason.maxLength = 500;
  const ends = el("input");
  ends.id = "admin-ends";
  ends.type = "datetime-local";
  ends.setAttribute("aria-label", t("admin.ends"));
  const soon = new Date(Date.now() + 24 * HOUR);
  ends.value = new Date(soon.getTime() - soon.getTimezoneOffset() * 60000).toISOString().slice(0, 16);
  form.append(reason, ends);
  for (const kind of KINDS) {
    const b = button("", t(`admin.act.${kind}`), () => act(() => api(
      `/api/admin/people/${encodeURIComponent(name)}/sanctions`,
      { kind, reason: reason.value, ends: (kind === "mute" || kind === "suspend") && ends.value
        ? new Date(ends.value).toISOString() : null },
    )));
    b.dataset.act = kind;
    form.append(b);
  }
  form.addEventListener("submit", (ev) => ev.preventDefault());
  return form;
}

function drawCard() {
  const box = $("admin-card");
  box.replaceChildren();
  box.hidden = card === null;
  if (card === null) return;
  box.dataset.name = card.name;
  const head = el("h3", "", card.name);
  head.dir = "auto";  // the name its own element
  const facts = [card.guest ? t("admin.guest") : "", card.role === "operator" ? t("admin.operator") : "",
    t("admin.created", { when: dateText(card.created) }),
    card.last_seen ? t("admin.lastSeen", { when: dateText(card.last_seen) }) : "",
    t("admin.reportsMade", { n: card.reports_made })];
  box.append(head, el("p", "admin-facts", facts.filter(Boolean).join(" · ")));
  if (card.role !== "operator") box.append(actionForm(card.name));
  box.append(el("h4", "", t("admin.sanctions")));
  const sanctions = el("ul", "admin-list");
  sanctions.id = "admin-sanctions";
  for (const s of card.sanctions) sanctions.append(sanctionLine(s));
  if (!card.sanctions.length) sanctions.append(el("li", "", t("admin.noSanctions")));
  box.append(sanctions, el("h4", "", t("admin.reportsAgainst")));
  const against = el("ul", "admin-list");
  for (const r of card.reports) against.append(reportLine(r, false));
  if (!card.reports.length) against.append(el("li", "", t("admin.noReportsAgainst")));
  box.append(against, el("h4", "", t("admin.matches")));
  const matches = el("ul", "admin-list");
  for (const m of card.matches) {
    const item = el("li");
    const a = el("a", "", m.id);
    a.href = m.url;
    item.append(a, el("span", "", ` · ${dateText(m.last)} · ${m.status}`));
    matches.append(item);
  }
  if (!card.matches.length) matches.append(el("li", "", t("admin.noMatches")));
  box.append(matches, el("h4", "", t("admin.linked")));
  // The accounts signed in from a browser this person was signed in from: a second account of
  // theirs, or a household's (docs/moderation.md).
  const linked = el("ul", "admin-list");
  linked.id = "admin-linked";
  for (const x of card.linked ?? []) {
    const item = el("li");
    item.dataset.person = x.name;
    const b = button("small", "", () => show(x.name));
    b.append(isolated(x.name));
    const marks = [t("admin.linkedBrowsers", { n: x.browsers }), t("admin.linkedTogether", { n: x.matches_together }),
      ...x.sanctioned.map(kindLabel)];
    item.append(b, el("span", "", ` · ${marks.join(" · ")}`));
    linked.append(item);
  }
  if (!(card.linked ?? []).length) linked.append(el("li", "", t("admin.noLinked")));
  box.append(linked);
}

function reportLine(r, withActions) {
  const item = el("li", "admin-report");
  item.dataset.report = String(r.id);
  item.append(line([tNodes("admin.reportLine", { reporter: r.reporter, reported: r.reported }), dateText(r.created),
    isolated(r.reason)]));
  if (r.match_url) {
    const a = el("a", "", t("admin.match"));
    a.href = r.match_url;
    item.append(" · ", a);
  }
  if (r.handled) item.append(el("span", "", ` · ${t("admin.handled", { when: dateText(r.handled) })}`));
  if (withActions) {
    item.append(button("small", t("admin.show"), () => show(r.reported)));
    item.append(button("small", t("admin.markHandled"),
      () => act(() => api(`/api/admin/reports/${r.id}/handled`, {}))));
  }
  return item;
}

function drawFound() {
  const list = $("admin-found");
  list.replaceChildren();
  for (const p of found) {
    const item = el("li");
    const b = button("small", "", () => show(p.name));
    b.append(isolated(p.name));
    b.dataset.person = p.name;
    const marks = [p.guest ? t("admin.guest") : "", ...p.sanctioned.map(kindLabel)].filter(Boolean);
    item.append(b, el("span", "", marks.length ? ` · ${marks.join(" · ")}` : ""));
    list.append(item);
  }
}

function drawReports() {
  const list = $("admin-reports");
  list.replaceChildren(...reports.map((r) => reportLine(r, true)));
  if (!reports.length) list.append(el("li", "", t("admin.noReports")));
}

function drawAudit() {
  const list = $("admin-audit");
  list.replaceChildren();
  for (const e of entries) {
    const item = el("li", "admin-entry");
    item.dataset.action = e.action;
    const who = e.operator ? isolated(e.operator) : t("admin.commandLine");
    const whom = e.target ? isolated(e.target) : e.table ?? "";
    item.append(...joined([dateText(e.at), who, t(`admin.action.${e.action}`), whom, e.reason ? isolated(e.reason) : ""]));
    list.append(item);
  }
  if (!entries.length) list.append(el("li", "", t("admin.noAudit")));
}

function draw() {
  $("admin-q").placeholder = t("admin.searchPlaceholder");
  $("admin-close-id").placeholder = t("admin.tableId");
  $("admin-close-reason").placeholder = t("admin.reason");
  drawFound();
  drawCard();
  drawReports();
  drawAudit();
}

async function show(name) {
  shownName = name;
  try {
    card = await api(`/api/admin/people/${encodeURIComponent(name)}`);
  } catch (err) {
    card = null;
    note(err.message, true);
  }
  draw();
}

async function loadAll() {
  try {
    reports = (await api("/api/admin/reports")).reports;
    entries = (await api("/api/admin/audit?limit=200")).entries;
  } catch (err) {
    if (err.message !== "not an operator") note(err.message, true);
    return;
  }
  $("admin-body").hidden = false;
  if (shownName !== null) await show(shownName);
  else draw();
}

function main() {
  drawHeader();
  startPageLanguage(draw);
  $("admin-search").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    try {
      found = (await api(`/api/admin/people?q=${encodeURIComponent($("admin-q").value)}`)).people;
      note(found.length ? "" : t("admin.noneFound"));
    } catch (err) {
      note(err.message, true);
    }
    draw();
  });
  $("admin-close").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const id = $("admin-close-id").value.trim();
    act(() => api(`/api/admin/tables/${encodeURIComponent(id)}/close`, { reason: $("admin-close-reason").value }));
  });
  loadAll();
}

main();
