// The profile page: GET /api/profile (who you are: name, guest or account, lifetime score and
// title (R8), matches, deals, times the pig, and your matches newest first) with the forms of
// POST /api/account (a guest becomes an account, keeping its record), POST /api/login and
// POST /api/logout.  With ?name=… it shows GET /api/users/{name}, a player's public profile
// (the matches of public tables only), and no forms.  A refusal is shown in the page's language
// from its catalog code; a match's deals read "1 deal", "2 deals" (the catalog's plurals).  Your
// own profile lists the challenges you played (GET /api/me/challenges), with your place.  Both
// show the person's ratings (the answer's `ratings` and `rating_history`): each family of presets
// rated in, its rating ± deviation, 暂定 / provisional while unsettled, the rated deals, and where
// there are two points or more an inline SVG graph of the rating over the rated deals.
// Another account's profile, seen by an account (docs/people.md; GET /api/profile says who looks,
// GET /api/people what is between the two): the friendship's state and its buttons (加为好友 / Add
// friend; a request sent, Cancel; a request received, Accept / Decline; friends, Remove: POST or
// DELETE /api/people/{name}/friend), 屏蔽 / Block or Unblock (/block), and 举报 / Report, a small
// form whose reason (up to 500 characters) is posted to /report, the page saying it was sent.
// Your own account's care (docs/accounts.md): how many browsers are signed in
// (GET /api/account/sessions) and 退出其他所有浏览器 / Sign out everywhere else
// (POST /api/account/sessions/end-others), a new password (/api/account/password), a new name
// (/api/account/name), the download of everything stored (GET /api/account/export), and deleting
// the account (POST /api/account/delete; its button waits for the name typed again), after which
// the page shows the browser's new guest.
// Your accuracy across reviewed deals (docs/review.md, Across many deals; your own account only):
// GET /api/profile/accuracy — the deals reviewed, per kind of decision the mean loss and the
// share of ?? and ?, an inline SVG graph of the mean loss over groups of deals — and 复盘我最近的
// 牌局 / Review my last deals (POST /api/profile/accuracy/review-last), whose progress is read
// again every second while the reviews are under way.
//
// May import: dom.js, header.js, i18n.js, played.js, settings.js.

import { $, cell, el, link } from "./dom.js";
import { drawHeader } from "./header.js";
import { drawPlayed, loadPlayed } from "./played.js";
import {
  dateText, isolatedText, personName, presetLabel, refusalNodes, startPageLanguage, t, titleLabel, tNodes,
} from "./i18n.js";

const shownName = new URLSearchParams(location.search).get("name");
/** The families of presets rated apart (gongzhu.ratings), in the order shown. */
const FAMILIES = ["one_deck", "two_decks", "partners"];
const SVG_NS = "http://www.w3.org/2000/svg";
// A rating graph's drawing box (SVG user units) and its margins.
const W = 360;
const H = 120;
const PAD = { left: 40, right: 10, top: 10, bottom: 18 };

let profile = null;
let viewer = null;       // with ?name=: GET /api/profile, who is looking
let people = null;       // with ?name=: the viewer's GET /api/people
let reportSent = false;  // the report was sent (the page says so)
let sessions = null;     // your own account: the browsers signed in to it (GET /api/account/sessions)
let accountNote = null;  // what the last account action did: {key, params}
let accountGone = false; // the account was deleted from this page
/** The refusals shown, by the id of the element showing them: {body, status} or {text}, kept so
 * that they are written again in the other language. */
const refusals = {};

function showRefusal(id, refusal) {
  refusals[id] = refusal;
  $(id).replaceChildren(...(refusal ? refusalNodes(refusal) : []));  // a name in it isolated
}

function kindText(p) {
  if (p.guest) return t("profile.kind.guest");
  return p.account ? t("profile.kind.account") : t("profile.kind.local");
}

function renderFacts() {
  const p = profile;
  const name = personName(p?.name ?? shownName);  // a guest's in the page's language
  $("heading").replaceChildren(...(shownName ? tNodes("profile.heading_of", { name }) : [t("profile.heading")]));
  document.title = shownName ? `${t("profile.title")} · ${isolatedText(name)}` : t("profile.title");
  $("facts").hidden = !p;
  if (!p) return;
  $("fact-name").textContent = personName(p.name);  // (dir="auto": the name is its own element)
  $("fact-kind").textContent = kindText(p);
  $("fact-lifetime").textContent = String(p.lifetime ?? 0);
  $("fact-title").textContent = titleLabel(p.title);
  $("fact-matches").textContent = String(p.matches ?? 0);
  $("fact-deals").textContent = String(p.deals ?? 0);
  $("fact-pigs").textContent = String(p.pigs ?? 0);
  // Practice (against computers, with a guest or linked accounts, changed scoring): apart from the
  // lifetime score and its title (docs/ratings.md, Practice apart).
  $("fact-practice").textContent = t("profile.practice", { score: p.practice?.score ?? 0, deals: p.practice?.deals ?? 0 });
}

function svg(name, attrs = {}, text = null) {
  const e = document.createElementNS(SVG_NS, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  if (text !== null) e.textContent = text;
  return e;
}

/** The graph of `family`'s rating over the rated deals: one dot per point of `points` (oldest
 * first, at least two), across by the rated deal's number (the last one `rating.games`), up by the
 * rating, its lowest and highest written at the left. */
function ratingGraph(family, rating, points) {
  const n = points.length;
  const first = Math.max(1, (rating?.games ?? n) - n + 1);
  const values = points.map((p) => p.rating);
  const lo = Math.min(...values);
  const hi = Math.max(...values);
  const [bottom, top] = hi === lo ? [lo - 1, hi + 1] : [lo, hi];
  const sx = (i) => PAD.left + (i / (n - 1)) * (W - PAD.left - PAD.right);
  const sy = (y) => PAD.top + ((top - y) / (top - bottom)) * (H - PAD.top - PAD.bottom);
  const g = svg("svg", { viewBox: `0 0 ${W} ${H}`, class: "rating-svg", role: "img",
    "aria-label": t("profile.rating_graph", { family }) });
  g.dataset.family = family;
  for (const [i, k] of [[0, first], [n - 1, first + n - 1]]) {
    g.append(svg("text", { x: sx(i), y: H - 4, class: "rating-axis", "text-anchor": "middle" }, String(k)));
  }
  const bounds = hi === lo ? [["max", hi]] : [["max", hi], ["min", lo]];
  for (const [which, value] of bounds) {
    const label = svg("text", { x: PAD.left - 5, y: sy(value) + 4, class: "rating-axis", "text-anchor": "end" },
      String(value));
    label.dataset.axis = which;
    g.append(label);
  }
  g.append(svg("polyline", { points: points.map((p, i) => `${sx(i)},${sy(p.rating)}`).join(" "),
    class: "rating-path" }));
  points.forEach((p, i) => {
    const dot = svg("circle", { cx: sx(i), cy: sy(p.rating), r: n > 60 ? 1.5 : 3, class: "rating-dot" });
    dot.dataset.rating = String(p.rating);
    dot.append(svg("title", {}, t("profile.rating_point", { n: first + i, rating: p.rating, deviation: p.deviation })));
    g.append(dot);
  });
  return g;
}

/** The person's ratings: each family rated in, with its graph where it has two points or more. */
function renderRatings() {
  const ratings = profile?.ratings ?? {};
  const history = profile?.rating_history ?? {};
  const order = (f) => (FAMILIES.includes(f) ? FAMILIES.indexOf(f) : FAMILIES.length);
  const families = Object.keys(ratings).sort((a, b) => order(a) - order(b) || a.localeCompare(b));
  $("ratings").hidden = !profile;
  $("ratings-empty").hidden = !profile || families.length > 0;
  const list = $("rating-list");
  list.replaceChildren();
  for (const family of families) {
    const r = ratings[family];
    const entry = el("div", "rating-entry");
    entry.dataset.family = family;
    const line = el("p", "rating-line");
    line.append(el("span", "rating-family", t(`family.${family}`)), " ",
      el("strong", "rating-value", t("rating.value", { rating: r.rating, deviation: r.deviation })));
    if (r.provisional) {
      const mark = el("span", "rating-provisional", t("profile.provisional"));
      mark.title = t("profile.provisional_title");
      line.append(" ", mark);
    }
    line.append(" ", el("span", "rating-games", t("profile.rated_deals", { games: r.games ?? 0 })));
    entry.append(line);
    const points = history[family] ?? [];
    if (points.length >= 2) entry.append(ratingGraph(family, r, points));
    list.append(entry);
  }
}

function renderForms() {
  const mine = profile && !shownName;
  $("sign-forms").hidden = !mine || profile.account;
  $("guest-note").hidden = !mine || !profile.guest;
  $("signed-in").hidden = !mine || !profile.account;
  if (mine && profile.account) $("signed-in-as").replaceChildren(...tNodes("profile.signed_in_as", { name: profile.name }));
}

/** Your own account's care: the browsers signed in, what the last action did, and the delete
 * button, which waits for the name typed again. */
function renderAccount() {
  const mine = Boolean(profile && !shownName && profile.account);
  $("account-care").hidden = !mine;
  $("account-gone").hidden = !accountGone || mine;
  if (!mine) return;
  $("account-sessions").textContent = sessions === null ? "" : t("account_care.sessions", { count: sessions });
  $("account-note").replaceChildren(...(accountNote ? tNodes(accountNote.key, accountNote.params ?? {}) : []));
  const typed = $("account-delete-confirm").value.trim().toLowerCase();
  $("account-delete-go").disabled = typed !== String(profile.name).toLowerCase();
}

function renderMatches() {
  const list = profile?.matches_list ?? [];
  $("matches-heading").textContent = t(shownName ? "profile.public_matches" : "profile.matches");
  $("matches-empty").hidden = !profile || list.length > 0;
  const rows = $("match-rows");
  rows.replaceChildren();
  for (const m of list) {
    const tr = document.createElement("tr");
    tr.dataset.match = m.id;
    const actions = document.createElement("span");
    actions.className = "actions";
    const id = encodeURIComponent(m.id);
    if ((m.deals ?? 0) > 0) {
      actions.append(link(`/api/matches/${id}/records.jsonl`, t("history.download"), true),
        link("/history", t("history.replay")));
    }
    if (!m.over && !shownName) actions.append(link(`/table/${id}`, t("history.continue")));
    tr.append(cell(t("history.created"), dateText(m.created)), cell(t("history.preset"), presetLabel(m.preset)),
      cell(t("history.deals"), t("history.dealCount", { deals: m.deals ?? 0 })),
      cell(t("profile.total"), String(m.total ?? 0)),
      cell(t("profile.pig"), t(m.pig ? "val.true" : "val.false")),
      cell(t("history.status"), t(m.over ? "profile.over" : "history.playing")), cell(t("history.actions"), actions));
    rows.append(tr);
  }
}

/** The state between the viewer and the account shown: {friend: "friends" | "asked" | "asking" |
 * null, blocked}; null where the buttons are not offered (a guest looks, the profile is no
 * account's, or it is the viewer's own). */
function relation() {
  if (!shownName || !profile?.account || !viewer?.account || !people?.account || profile.name === viewer.name) return null;
  const name = profile.name;
  let friend = null;
  if ((people.friends ?? []).some((f) => f.name === name)) friend = "friends";
  else if ((people.asked ?? []).includes(name)) friend = "asked";
  else if ((people.asking ?? []).includes(name)) friend = "asking";
  return { friend, blocked: (people.blocked ?? []).includes(name) };
}

const STATE_TEXT = { friends: "people.stateFriends", asked: "people.stateAsked", asking: "people.stateAsking" };
const REMOVE_TEXT = { friends: "people.removeFriend", asked: "people.cancelRequest", asking: "people.decline" };

function renderPeople() {
  const r = relation();
  const box = $("people-actions");
  box.hidden = !r;
  if (!r) return;
  box.dataset.friend = r.friend ?? "none";
  box.dataset.blocked = String(r.blocked);
  const name = personName(profile.name);
  $("friend-state").replaceChildren(...(r.blocked ? [t("people.stateBlocked")] : r.friend ? tNodes(STATE_TEXT[r.friend], { name }) : []));
  const ask = $("friend-button");
  ask.hidden = r.blocked || r.friend === "friends" || r.friend === "asked";
  ask.textContent = t(r.friend === "asking" ? "people.accept" : "people.addFriend");
  const remove = $("friend-remove");
  remove.hidden = r.blocked || !r.friend;
  remove.textContent = r.friend ? t(REMOVE_TEXT[r.friend]) : "";
  const block = $("block-button");
  block.textContent = t(r.blocked ? "people.unblock" : "people.block");
  block.dataset.blocked = String(r.blocked);
  $("report-open").setAttribute("aria-expanded", String(!$("report-form").hidden));
  $("report-note").textContent = reportSent ? t("people.reportSent") : "";
}

// ---------------------------------------------------------------- your accuracy (docs/review.md, Across many deals)

/** Your accuracy across reviewed deals (GET /api/profile/accuracy); null while unknown. */
let accuracy = null;
let accuracyNote = null;   // what the last 复盘我最近的牌局 / Review my last deals said: {code, params}
let accuracyTimer = null;  // the next reading while reviews asked for are under way
/** The rows of the accuracy table: each kind of decision, then all of them. */
const ACCURACY_ROWS = ["lead", "follow", "discard", "exposure", "all"];
const ACCURACY_POLL_MS = 1000;
// The accuracy graph's drawing box (SVG user units) and its margins.
const AW = 360;
const AH = 120;
const APAD = { left: 40, right: 10, top: 10, bottom: 18 };

function shareText(share) {
  return share === null || share === undefined ? "–" : `${Math.round(share * 1000) / 10}%`;
}

function signedText(x) {
  return `${x < 0 ? "−" : x > 0 ? "+" : ""}${Math.abs(x)}`;
}

/** The mean loss per decision of each group of deals (oldest first), as an inline SVG: one dot
 * per group with a decision, up by the mean loss from 0. */
function accuracyGraph(a) {
  const groups = a.groups.filter((g) => g.all.mean_loss !== null);
  const n = groups.length;
  const top = Math.max(1, ...groups.map((g) => g.all.mean_loss));
  const sx = (i) => (n === 1 ? (APAD.left + AW - APAD.right) / 2 : APAD.left + (i / (n - 1)) * (AW - APAD.left - APAD.right));
  const sy = (y) => APAD.top + ((top - y) / top) * (AH - APAD.top - APAD.bottom);
  const g = svg("svg", { viewBox: `0 0 ${AW} ${AH}`, class: "accuracy-svg", role: "img",
    "aria-label": t("accuracy.chart", { size: a.group }) });
  for (const [which, value] of [["max", top], ["min", 0]]) {
    const label = svg("text", { x: APAD.left - 5, y: sy(value) + 4, class: "accuracy-axis", "text-anchor": "end" },
      String(Math.round(value * 10) / 10));
    label.dataset.axis = which;
    g.append(label);
  }
  g.append(svg("line", { x1: APAD.left, x2: AW - APAD.right, y1: sy(0), y2: sy(0), class: "accuracy-base" }));
  g.append(svg("polyline", { points: groups.map((p, i) => `${sx(i)},${sy(p.all.mean_loss)}`).join(" "),
    class: "accuracy-path" }));
  groups.forEach((p, i) => {
    const dot = svg("circle", { cx: sx(i), cy: sy(p.all.mean_loss), r: 3, class: "accuracy-dot" });
    dot.dataset.group = String(i);
    dot.dataset.mean = String(p.all.mean_loss);
    dot.dataset.deals = String(p.deals);
    dot.append(svg("title", {}, t("accuracy.point", { first: dateText(p.first), last: dateText(p.last), deals: p.deals,
      mean: p.all.mean_loss, share: shareText(p.all.error_share) })));
    g.append(dot);
  });
  return g;
}

/** How the reviews you asked for stand: under way (done of asked, the running one's tasks), or done. */
function renderAccuracyProgress(r) {
  const box = $("accuracy-progress");
  box.hidden = !r || r.asked === 0;
  if (box.hidden) return;
  const finished = r.done + r.failed;
  box.dataset.state = finished < r.asked ? "running" : "done";
  let text = finished < r.asked ? t("accuracy.progress", { done: finished, asked: r.asked })
    : t("accuracy.finished", { done: r.done });
  if (finished < r.asked && r.running?.total) text += ` · ${t("accuracy.current", r.running)}`;
  if (r.failed) text += ` · ${t("accuracy.failed", { failed: r.failed })}`;
  $("accuracy-progress-text").textContent = text;
  $("accuracy-progress-bar").max = r.asked;
  $("accuracy-progress-bar").value = finished;
}

/** Your accuracy, for the owner of an account only: the table by kind, the totals, the graph,
 * the choice of how many deals to review and the progress of the reviews asked for. */
function renderAccuracy() {
  const mine = Boolean(profile && !shownName && profile.account);
  $("accuracy").hidden = !mine;
  if (!mine) return;
  const a = accuracy;
  $("accuracy-reviewed").textContent = a ? t("accuracy.reviewed", { deals: a.deals }) : "";
  $("accuracy-none").hidden = !a || a.deals > 0;
  $("accuracy-table").hidden = !a || a.deals === 0;
  const rows = $("accuracy-rows");
  rows.replaceChildren();
  $("accuracy-chart").replaceChildren();
  $("accuracy-totals").textContent = "";
  if (a && a.deals > 0) {
    for (const kind of ACCURACY_ROWS) {
      const k = kind === "all" ? a.all : a.kinds[kind];
      const tr = document.createElement("tr");
      tr.dataset.kind = kind;
      const mean = cell(t("accuracy.col.mean"), k.mean_loss === null ? "–" : String(k.mean_loss));
      mean.dataset.value = String(k.mean_loss);
      const share = cell(t("accuracy.col.share"), shareText(k.error_share));
      share.dataset.value = String(k.error_share);
      const marks = cell(t("accuracy.col.marks"), `${k["??"]} / ${k["?"]} / ${k["?!"]}`);
      if (k.uncertain) marks.append(" ", el("small", "accuracy-uncertain", t("accuracy.uncertain", k)));
      tr.append(cell(t("accuracy.col.kind"), t(`accuracy.kind.${kind}`)), cell(t("accuracy.col.decisions"),
        String(k.decisions)), mean, share, marks);
      rows.append(tr);
    }
    $("accuracy-totals").textContent = t("accuracy.totals",
      { luck: signedText(a.luck), skill: signedText(a.skill), result: signedText(a.result) });
    $("accuracy-chart").append(accuracyGraph(a));
  }
  const select = $("accuracy-count");
  const counts = a?.counts ?? [];
  if (select.options.length !== counts.length) {
    select.replaceChildren(...counts.map((n) => {
      const option = el("option", null, String(n));
      option.value = String(n);
      return option;
    }));
  }
  $("accuracy-go").disabled = !a;
  $("accuracy-note").textContent = accuracyNote ? t(accuracyNote.code, accuracyNote.params ?? {}) : "";
  renderAccuracyProgress(a?.reviewing ?? null);
}

/** Read your accuracy again; again every second while reviews you asked for are under way. */
async function loadAccuracy() {
  clearTimeout(accuracyTimer);
  if (shownName || !profile?.account) {
    accuracy = null;
    renderAccuracy();
    return;
  }
  try {
    const res = await fetch("/api/profile/accuracy", { credentials: "same-origin" });
    const body = await res.json().catch(() => null);
    accuracy = res.ok ? body : null;
    showRefusal("accuracy-error", res.ok ? null : { body, status: res.status });
  } catch {
    showRefusal("accuracy-error", { key: "msg.loadFailed" });
  }
  renderAccuracy();
  const r = accuracy?.reviewing;
  if (r && r.done + r.failed < r.asked) accuracyTimer = setTimeout(loadAccuracy, ACCURACY_POLL_MS);
}

function wireAccuracy() {
  $("accuracy-go").addEventListener("click", async () => {
    const button = $("accuracy-go");
    button.disabled = true;
    let refusal = null;
    accuracyNote = null;
    try {
      const res = await fetch("/api/profile/accuracy/review-last", {
        method: "POST", credentials: "same-origin", headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ count: Number($("accuracy-count").value) }),
      });
      const body = await res.json().catch(() => null);
      if (res.ok) accuracyNote = { code: body.code, params: body.params };
      else refusal = { body, status: res.status };
    } catch {
      refusal = { key: "msg.offline" };
    }
    showRefusal("accuracy-error", refusal);
    await loadAccuracy();
  });
}

function render() {
  for (const [id, refusal] of Object.entries(refusals)) showRefusal(id, refusal);
  renderFacts();
  renderRatings();
  renderAccuracy();
  renderForms();
  renderAccount();
  renderPeople();
  renderMatches();
  drawPlayed();
}

async function load() {
  const url = shownName ? `/api/users/${encodeURIComponent(shownName)}` : "/api/profile";
  let refusal = null;
  try {
    const res = await fetch(url, { credentials: "same-origin" });
    const body = await res.json().catch(() => null);
    if (res.ok) profile = body;
    else refusal = { body, status: res.status };
  } catch {
    refusal = { key: "msg.loadFailed" };
  }
  if (refusal) profile = null;
  refusals["profile-error"] = refusal;
  render();
  loadAccuracy();
  if (shownName) await loadPeople();
  else await loadSessions();
}

/** Your own account: how many browsers are signed in to it. */
async function loadSessions() {
  sessions = null;
  if (profile?.account) {
    try {
      const res = await fetch("/api/account/sessions", { credentials: "same-origin" });
      if (res.ok) sessions = (await res.json()).sessions;
    } catch {
      // Not reachable: no count.
    }
  }
  renderAccount();
}

/** With ?name=: who is looking (GET /api/profile) and, for an account, its people (GET /api/people). */
async function loadPeople() {
  try {
    const me = await fetch("/api/profile", { credentials: "same-origin" });
    viewer = me.ok ? await me.json() : null;
    people = null;
    if (viewer?.account) {
      const res = await fetch("/api/people", { credentials: "same-origin" });
      if (res.ok) people = await res.json();
    }
  } catch {
    // Not reachable: no buttons.
  }
  render();
}

/** `method` on `url` with a JSON `body` (or none); resolves to null on success, else the refusal. */
async function send(method, url, body) {
  try {
    const res = await fetch(url, {
      method, credentials: "same-origin",
      headers: body === undefined ? {} : { "Content-Type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (res.ok) return null;
    return { body: await res.json().catch(() => null), status: res.status };
  } catch {
    return { key: "msg.offline" };
  }
}

/** One of the people buttons: `method` on the shown account's `what` (friend, block), then the
 * state again. */
async function peopleAction(button, method, what) {
  button.disabled = true;
  const refusal = await send(method, `/api/people/${encodeURIComponent(profile.name)}/${what}`);
  button.disabled = false;
  showRefusal("people-error", refusal);
  await loadPeople();
}

async function sendReport(ev) {
  ev.preventDefault();
  const reason = $("report-reason").value.trim();
  if (!reason) {
    showRefusal("people-error", { key: "people.reportEmpty" });
    $("report-reason").focus();
    return;
  }
  $("report-send").disabled = true;
  const refusal = await send("POST", `/api/people/${encodeURIComponent(profile.name)}/report`,
    { reason: [...reason].slice(0, 500).join(""), match_id: null });
  $("report-send").disabled = false;
  showRefusal("people-error", refusal);
  if (refusal === null) {
    reportSent = true;
    $("report-reason").value = "";
    $("report-form").hidden = true;
  }
  render();
}

function openReport(open) {
  $("report-form").hidden = !open;
  if (open) {
    reportSent = false;
    $("report-reason").focus();
  }
  render();
}

function wirePeople() {
  $("friend-button").addEventListener("click", () => peopleAction($("friend-button"), "POST", "friend"));
  $("friend-remove").addEventListener("click", () => peopleAction($("friend-remove"), "DELETE", "friend"));
  $("block-button").addEventListener("click", () => {
    const b = $("block-button");
    peopleAction(b, b.dataset.blocked === "true" ? "DELETE" : "POST", "block");
  });
  $("report-open").addEventListener("click", () => openReport($("report-form").hidden));
  $("report-cancel").addEventListener("click", () => openReport(false));
  $("report-form").addEventListener("submit", sendReport);
}

/** POST a JSON body; resolves to null on success, else the refusal. */
async function post(url, body) {
  try {
    const res = await fetch(url, {
      method: "POST", credentials: "same-origin",
      headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
    });
    if (res.ok) return null;
    return { body: await res.json().catch(() => null), status: res.status };
  } catch {
    return { key: "msg.offline" };
  }
}

/** POST a JSON body; resolves to {answer} (the answer's JSON) on success, else {refusal}. */
async function postFor(url, body) {
  try {
    const res = await fetch(url, {
      method: "POST", credentials: "same-origin",
      headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
    });
    const json = await res.json().catch(() => null);
    return res.ok ? { answer: json } : { refusal: { body: json, status: res.status } };
  } catch {
    return { refusal: { key: "msg.offline" } };
  }
}

/** One account action: `send()` resolves to {answer} or {refusal}; `done(answer)` follows a success. */
function accountAction(form, send, done) {
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const button = form.querySelector("button[type=submit]");
    button.disabled = true;
    accountNote = null;
    const { answer, refusal } = await send();
    button.disabled = false;
    showRefusal("account-error", refusal ?? null);
    if (!refusal) {
      form.reset();
      await done(answer);
    }
    renderAccount();
  });
}

function wireAccount() {
  $("account-end-others").addEventListener("click", async () => {
    const button = $("account-end-others");
    button.disabled = true;
    const { answer, refusal } = await postFor("/api/account/sessions/end-others", {});
    button.disabled = false;
    showRefusal("account-error", refusal ?? null);
    accountNote = refusal ? null : { key: "account_care.ended", params: { count: answer?.ended ?? 0 } };
    await loadSessions();
  });
  accountAction($("account-password-form"), () => postFor("/api/account/password",
    { current: $("account-current-password").value, new: $("account-new-password").value }), async () => {
    accountNote = { key: "account_care.password_done" };
    await loadSessions();
  });
  accountAction($("account-name-form"), () => postFor("/api/account/name",
    { name: $("account-new-name").value, password: $("account-name-password").value }), async (answer) => {
    accountNote = { key: "account_care.name_done", params: { name: answer?.name ?? "" } };
    await load();
  });
  accountAction($("account-delete-form"), () => postFor("/api/account/delete",
    { password: $("account-delete-password").value, confirm: $("account-delete-confirm").value }), async () => {
    accountGone = true;
    accountNote = null;
    await load();
    loadPlayed();
  });
  $("account-delete-confirm").addEventListener("input", renderAccount);
}

function wireForm(form, url, prefix) {
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const button = form.querySelector("button[type=submit]");
    button.disabled = true;
    const refusal = await post(url, { name: $(`${prefix}-name`).value, password: $(`${prefix}-password`).value });
    button.disabled = false;
    showRefusal(`${prefix}-error`, refusal);
    if (refusal === null) {
      for (const id of ["signup-error", "signin-error"]) showRefusal(id, null);
      form.reset();
      await load();
      loadPlayed();
    }
  });
}

function main() {
  drawHeader();
  startPageLanguage(render);
  wireForm($("signup-form"), "/api/account", "signup");
  wireForm($("signin-form"), "/api/login", "signin");
  wirePeople();
  wireAccuracy();
  wireAccount();
  $("signout").addEventListener("click", async () => {
    const refusal = await post("/api/logout", { everywhere: $("signout-everywhere").checked });
    showRefusal("profile-error", refusal);
    if (refusal === null) {
      await load();
      loadPlayed();
    }
  });
  render();
  load();
  if (!shownName) loadPlayed();
}

main();
