// The leaderboard page, in four tabs (buttons with aria-pressed): the ratings of one family of
// presets — 一副牌, 两副牌, 打对家 — from GET /api/leaderboard?family=… (the accounts whose rating
// is settled, no longer provisional, best first: rank, name, title, rating ± deviation, rated
// deals, lifetime score), and 生涯积分, GET /api/leaderboard (the players with an account, by
// lifetime score, then name; equal scores share a rank: rank, name, title (R8), lifetime score,
// matches, times the pig (当猪)).  Each name links to the player's profile page.  The tab chosen
// is kept in the address's hash (#one_deck, #two_decks, #partners, #lifetime), so a reload or a
// shared link keeps it; with none the page opens on 一副牌 — or, while nobody is settled there,
// on 生涯积分.
//
// May import: dom.js, header.js, i18n.js, settings.js.

import { $, cell } from "./dom.js";
import { drawHeader } from "./header.js";
import { isolated, startPageLanguage, t, titleLabel } from "./i18n.js";

/** Rows asked for (the server allows up to 200). */
const ROWS = 100;
/** The tabs in their order: the families of presets rated apart (gongzhu.ratings), then lifetime. */
const FAMILIES = ["one_deck", "two_decks", "partners"];
const LIFETIME = "lifetime";
const TABS = [...FAMILIES, LIFETIME];
/** The columns of each kind of board: the catalog keys of their headings. */
const COLUMNS = {
  rating: ["leaderboard.rank", "leaderboard.name", "leaderboard.title_col", "leaderboard.rating", "leaderboard.games",
    "leaderboard.lifetime"],
  lifetime: ["leaderboard.rank", "leaderboard.name", "leaderboard.title_col", "leaderboard.lifetime",
    "leaderboard.matches", "leaderboard.pigs"],
};

/** The tab the address names, or null. */
function namedTab() {
  const name = decodeURIComponent(location.hash.slice(1));
  return TABS.includes(name) ? name : null;
}

let tab = namedTab() ?? FAMILIES[0];
/** Whether the tab is the page's own choice (none named): it may then fall back to lifetime. */
let chosenByPage = namedTab() === null;
/** The rows of the tab shown (null while loading), and whether they could not be loaded. */
let board = null;
let failure = false;
/** Each load's number: an answer to an older one (another tab since) is dropped. */
let loads = 0;

/** A name as a link to its profile, the name a <bdi> of its own (on a phone its column's label
 * stands before it on the line). */
function nameLink(name) {
  const a = document.createElement("a");
  a.href = `/profile?name=${encodeURIComponent(name)}`;
  a.append(isolated(name));
  return a;
}

function ratingRow(row) {
  return [cell(t("leaderboard.rank"), String(row.rank)), cell(t("leaderboard.name"), nameLink(row.name)),
    cell(t("leaderboard.title_col"), titleLabel(row.title)),
    cell(t("leaderboard.rating"), t("rating.value", { rating: row.rating, deviation: row.deviation })),
    cell(t("leaderboard.games"), String(row.games)), cell(t("leaderboard.lifetime"), String(row.lifetime))];
}

function lifetimeRow(row) {
  return [cell(t("leaderboard.rank"), String(row.rank)), cell(t("leaderboard.name"), nameLink(row.name)),
    cell(t("leaderboard.title_col"), titleLabel(row.title)), cell(t("leaderboard.lifetime"), String(row.lifetime)),
    cell(t("leaderboard.matches"), String(row.matches)), cell(t("leaderboard.pigs"), String(row.pigs))];
}

function renderTabs() {
  for (const button of document.querySelectorAll("#board-tabs button[data-board]")) {
    const name = button.dataset.board;
    button.textContent = t(name === LIFETIME ? "leaderboard.tab.lifetime" : `family.${name}`);
    button.setAttribute("aria-pressed", name === tab ? "true" : "false");
  }
}

function render() {
  const rating = tab !== LIFETIME;
  renderTabs();
  $("board-note").textContent = t(rating ? "leaderboard.rating_note" : "leaderboard.note");
  $("leaderboard-error").textContent = failure ? t("msg.loadFailed") : "";
  $("leaderboard").dataset.board = tab;
  const head = document.createElement("tr");
  for (const key of COLUMNS[rating ? "rating" : "lifetime"]) {
    const th = document.createElement("th");
    th.scope = "col";
    th.textContent = t(key);
    head.append(th);
  }
  $("leaderboard-head").replaceChildren(head);
  const empty = $("leaderboard-empty");
  empty.hidden = !board || board.length > 0;
  empty.textContent = t(rating ? "leaderboard.rating_empty" : "leaderboard.empty");
  const rows = $("leaderboard-rows");
  rows.replaceChildren();
  for (const row of board ?? []) {
    const tr = document.createElement("tr");
    tr.dataset.rank = String(row.rank);
    tr.append(...(rating ? ratingRow(row) : lifetimeRow(row)));
    rows.append(tr);
  }
}

async function load() {
  const mine = ++loads;
  const shown = tab;
  const family = shown === LIFETIME ? "" : `&family=${encodeURIComponent(shown)}`;
  let rows = null;
  let failed = false;
  try {
    const res = await fetch(`/api/leaderboard?limit=${ROWS}${family}`, { credentials: "same-origin" });
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    rows = await res.json();
  } catch {
    failed = true;
  }
  if (mine !== loads) return;
  // Nobody settled in the first family and no tab named: the page opens on the lifetime board.
  if (chosenByPage && shown === FAMILIES[0] && rows && rows.length === 0) {
    chosenByPage = false;
    show(LIFETIME, false);
    return;
  }
  board = rows;
  failure = failed;
  render();
}

/** Show `name`'s board (`remember`: the address keeps it, replacing the current entry). */
function show(name, remember = true) {
  tab = name;
  board = null;
  failure = false;
  if (remember) {
    chosenByPage = false;
    history.replaceState(null, "", `${location.pathname}${location.search}#${name}`);
  }
  render();
  load();
}

function main() {
  drawHeader();
  startPageLanguage(render);
  for (const button of document.querySelectorAll("#board-tabs button[data-board]")) {
    button.addEventListener("click", () => show(button.dataset.board));
  }
  window.addEventListener("hashchange", () => {
    const name = namedTab();
    if (name && name !== tab) show(name, false);
  });
  render();
  load();
}

main();
