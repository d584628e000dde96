// The leaderboard page: GET /api/leaderboard (the players with an account, by lifetime score,
// then name; equal scores share a rank): rank, name (a link to the player's profile page), title
// (R8), lifetime score, matches, times the pig (当猪).
//
// May import: dom.js, header.js, i18n.js, settings.js.

import { $, cell } from "./dom.js";
import { drawHeader } from "./header.js";
import { startPageLanguage, t, titleLabel } from "./i18n.js";

/** Rows asked for (the server allows up to 200). */
const ROWS = 100;

let board = null;
let failure = "";

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
    tr.append(cell(t("leaderboard.rank"), String(row.rank)), cell(t("leaderboard.name"), name),
      cell(t("leaderboard.title_col"), titleLabel(row.title)), cell(t("leaderboard.lifetime"), String(row.lifetime)),
      cell(t("leaderboard.matches"), String(row.matches)), cell(t("leaderboard.pigs"), String(row.pigs)));
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
  drawHeader();
  startPageLanguage(render);
  load();
}

main();
