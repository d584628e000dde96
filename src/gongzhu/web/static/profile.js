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
//
// May import: dom.js, header.js, i18n.js, played.js, settings.js.

import { $, cell, el, link } from "./dom.js";
import { drawHeader } from "./header.js";
import { drawPlayed, loadPlayed } from "./played.js";
import { dateText, personName, presetLabel, refusalText, startPageLanguage, t, titleLabel } from "./i18n.js";

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
/** The refusals shown, by the id of the element showing them: {body, status} or {text}, kept so
 * that they are written again in the other language. */
const refusals = {};

function showRefusal(id, refusal) {
  refusals[id] = refusal;
  $(id).textContent = refusal ? refusalText(refusal) : "";
}

function kindText(p) {
  if (p.guest) return t("profile.kind.guest");
  return p.account ? t("profile.kind.account") : t("profile.kind.local");
}

function renderFacts() {
  const p = profile;
  const name = personName(p?.name ?? shownName);  // a guest's in the page's language
  $("heading").textContent = shownName ? t("profile.heading_of", { name }) : t("profile.heading");
  document.title = shownName ? `${t("profile.title")} · ${name}` : t("profile.title");
  $("facts").hidden = !p;
  if (!p) return;
  $("fact-name").textContent = personName(p.name);
  $("fact-kind").textContent = kindText(p);
  $("fact-lifetime").textContent = String(p.lifetime ?? 0);
  $("fact-title").textContent = titleLabel(p.title);
  $("fact-matches").textContent = String(p.matches ?? 0);
  $("fact-deals").textContent = String(p.deals ?? 0);
  $("fact-pigs").textContent = String(p.pigs ?? 0);
  // Practice against computers: apart from the lifetime score and its title (docs/ratings.md).
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
  if (mine && profile.account) $("signed-in-as").textContent = t("profile.signed_in_as", { name: profile.name });
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
  $("friend-state").textContent = r.blocked ? t("people.stateBlocked") : r.friend ? t(STATE_TEXT[r.friend], { name }) : "";
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

function render() {
  for (const [id, refusal] of Object.entries(refusals)) showRefusal(id, refusal);
  renderFacts();
  renderRatings();
  renderForms();
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
  } catch (err) {
    refusal = { text: `${t("msg.loadFailed")}: ${err.message}` };
  }
  if (refusal) profile = null;
  refusals["profile-error"] = refusal;
  render();
  if (shownName) await loadPeople();
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
  } catch (err) {
    return { text: err.message };
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
  } catch (err) {
    return { text: err.message };
  }
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
