// The leaderboard page: GET /api/leaderboard (the players with an account, by lifetime score,
// then name; equal scores share a rank): rank, name (a link to the player's profile page), title
// (R8), lifetime score, matches, times the pig (当猪).
//
// May import: i18n.js, settings.js.

import { startPageLanguage, t, titleLabel } from "./i18n.js";

/** Rows asked for (the server allows up to 200). */
const ROWS = 100;
const $ = (id) => document.getElementById(id);

let board = null;
let failure = "";

function cell(label, content) {
  const td = document.createElement("td");
  td.dataset.label = t(label);
  if (content instanceof Node) td.append(content);
  else td.textContent = content;
  return td;
}

function render() {
  $("leaderboard-error").textContent = failure ? `${t("msg.loadFailed")}: ${failure}` : "";
  $("leaderboard-empty").hidden = !board || board.length > 0;
  const rows = $("leaderboard-rows");
  rows.replaceChildren();
  for (const row of board ?? []) {
    const tr = document.createElement("tr");
    tr.dataset.rank = String(row.rank);
    const name = document.createElement("a");
    name.href = `/profile?name=${encodeURIComponent(row.name)}`;
    name.textContent = row.name;
    tr.append(cell("leaderboard.rank", String(row.rank)), cell("leaderboard.name", name),
      cell("leaderboard.title_col", titleLabel(row.title)), cell("leaderboard.lifetime", String(row.lifetime)),
      cell("leaderboard.matches", String(row.matches)), cell("leaderboard.pigs", String(row.pigs)));
    rows.append(tr);
  }
}

async function load() {
  try {
    const res = await fetch(`/api/leaderboard?limit=${ROWS}`, { credentials: "same-origin" });
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    board = await res.json();
    failure = "";
  } catch (err) {
    failure = err.message;
  }
  render();
}

function main() {
  startPageLanguage(render);
  load();
}

main();
