// The challenges a person played, as the history and the profile list them (GET
// /api/me/challenges, newest first): each a link to its page, when it was made, the boards
// finished, the place among the ranked entrants (a guest is not ranked) and the mean matchpoint
// percentage, drawn into #played-rows; the section #played-challenges shows once there is one.
//
// May import: dom.js, i18n.js.

import { $, cell } from "./dom.js";
import { dateText, t } from "./i18n.js";

let played = [];  // GET /api/me/challenges: `played`

/** Draw the list (again, in the page's language). */
export function drawPlayed() {
  $("played-challenges").hidden = played.length === 0;
  const rows = $("played-rows");
  rows.replaceChildren();
  for (const c of played) {
    const tr = document.createElement("tr");
    tr.dataset.challenge = c.id;
    tr.dataset.rank = c.rank === null || c.rank === undefined ? "" : String(c.rank);
    const name = document.createElement("a");
    name.href = c.url;
    name.textContent = t("challenge.name", { kind: t(`challenge.kind.${c.kind}`), title: c.title });
    const place = tr.dataset.rank ? t("challenge.rankOf", { rank: c.rank, n: c.entrants }) : t("challenge.unranked");
    const percent = c.percent === null || c.percent === undefined ? "—"
      : t("challenge.percent", { n: Number(c.percent).toFixed(1) });
    tr.append(cell(t("challenges.col.name"), name), cell(t("history.created"), dateText(c.created)),
      cell(t("challenges.col.finished"), t("challenge.finishedOf", { done: c.finished, n: c.boards })),
      cell(t("challenges.col.place"), place), cell(t("challenges.col.percent"), percent));
    rows.append(tr);
  }
}

/** Read the list and draw it (the page goes on without it when the server cannot be reached). */
export async function loadPlayed() {
  try {
    const res = await fetch("/api/me/challenges", { credentials: "same-origin" });
    if (res.ok) played = (await res.json()).played ?? [];
  } catch {
    // Not reachable: the list stays away.
  }
  drawPlayed();
}
