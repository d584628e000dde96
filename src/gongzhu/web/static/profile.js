// The profile page: GET /api/profile (who you are: name, guest or account, lifetime score and
// title (R8), matches, deals, times the pig, and your matches newest first) with the forms of
// POST /api/account (a guest becomes an account, keeping its record), POST /api/login and
// POST /api/logout.  With ?name=… it shows GET /api/users/{name}, a player's public profile
// (the matches of public tables only), and no forms.  A refusal is shown in the page's language
// from its catalog code; a match's deals read "1 deal", "2 deals" (the catalog's plurals).  Your
// own profile lists the challenges you played (GET /api/me/challenges), with your place.
//
// May import: dom.js, header.js, i18n.js, played.js, settings.js.

import { $, cell, link } from "./dom.js";
import { drawHeader } from "./header.js";
import { drawPlayed, loadPlayed } from "./played.js";
import { dateText, personName, presetLabel, refusalText, startPageLanguage, t, titleLabel } from "./i18n.js";

const shownName = new URLSearchParams(location.search).get("name");

let profile = null;
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

function render() {
  for (const [id, refusal] of Object.entries(refusals)) showRefusal(id, refusal);
  renderFacts();
  renderForms();
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
