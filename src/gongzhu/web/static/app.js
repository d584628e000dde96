// The table page's entry point: the person sits at South against three computer players.
// The server is authoritative (docs/web-protocol.md): the page renders the `state` it sends and
// turns clicks and keys into messages; it never decides a rule itself.  This module wires the
// others together (README.md in this folder maps them) and starts the page: it reads the
// server's configuration (GET /api/config; the page waits for it, showing a busy new-match
// button, and asks again while the server does not answer), the profile, and then resumes the
// remembered match or opens the new-match dialog.
//
// Stable surface for outside browser tests (keep it): every hand card is a <button> with
// data-card="<code>" and aria-disabled="true"/"false" (not / a legal play now; in the exposure
// phase "false" marks the cards South may still expose, the only ones a click acts on;
// view-hand.js); the button ending the exposure phase is named 开始 / Start (index.html); after
// a deal each seat's R7 result is the text of [data-deal-result="<seat>"] (view-summary.js);
// <html data-phase> is setup / expose / play / deal-over / match-over (render.js).
//
// May import: every module of the table page (not history.js).

import { changeSpeed, declare, nextDeal, onCard, replayThisDeal, sendPlay } from "./actions.js";
import { installCardDefs } from "./cards.js";
import { connect, requestHint } from "./connection.js";
import { $, fillSelect } from "./dom.js";
import { applyI18n, getLang, setLang, speedLabel } from "./i18n.js";
import { onKey } from "./keys.js";
import { changeLanguage, startRendering } from "./render.js";
import { initSetup, openSetup } from "./setup.js";
import { rememberedMatch } from "./settings.js";
import {
  closeHints, configUnavailable, dismissSummary, page, reopenSummary, setConfig, setProfile, speed, speedNames,
  toggleLastTrick,
} from "./state.js";
import { initControls } from "./view-controls.js";
import { initHand } from "./view-hand.js";
import { initTable } from "./view-table.js";

function wire() {
  initSetup({ onStarted: connect, onLanguage: changeLanguage });
  initTable({ onNewMatch: openSetup });
  initHand({ onCard });
  initControls({ onPlay: sendPlay });
  $("new-match").addEventListener("click", openSetup);
  $("again").addEventListener("click", openSetup);
  $("summary-again").addEventListener("click", () => { dismissSummary(); openSetup(); });
  $("lang").addEventListener("click", () => changeLanguage(getLang() === "zh" ? "en" : "zh"));
  $("speed").addEventListener("change", () => changeSpeed($("speed").value));
  $("start").addEventListener("click", declare);
  $("hint").addEventListener("click", requestHint);
  $("hint-close").addEventListener("click", closeHints);
  $("last").addEventListener("click", toggleLastTrick);
  $("next").addEventListener("click", nextDeal);
  $("summary-next").addEventListener("click", nextDeal);
  $("summary-replay").addEventListener("click", replayThisDeal);
  $("summary-close").addEventListener("click", dismissSummary);
  $("summary").addEventListener("cancel", dismissSummary);
  $("show-summary").addEventListener("click", reopenSummary);
  document.addEventListener("keydown", onKey);
}

/** GET /api/config, asked again (less and less often) until the server answers. */
async function loadConfig() {
  for (let delay = 500; ; delay = Math.min(delay * 2, 8000)) {
    try {
      const res = await fetch("/api/config");
      if (res.ok) {
        setConfig(await res.json());
        return;
      }
    } catch {
      // The server is not reachable (yet): say so and try again.
    }
    configUnavailable();
    await new Promise((resolve) => setTimeout(resolve, delay));
  }
}

async function resumeMatch(id) {
  try {
    const res = await fetch(`/api/matches/${encodeURIComponent(id)}`);
    if (!res.ok) return false;
    const info = await res.json();
    if (info.over && !new URLSearchParams(location.search).has("match")) return false;
    connect(id);
    return true;
  } catch {
    return false;
  }
}

async function main() {
  installCardDefs();
  setLang(page.settings.lang);
  applyI18n();
  wire();
  startRendering();
  await loadConfig();
  fillSelect($("speed"), speedNames(), speedLabel, speed());
  fetch("/api/profile").then((r) => (r.ok ? r.json() : null)).then(setProfile).catch(() => {});
  const wanted = new URLSearchParams(location.search).get("match") ?? rememberedMatch();
  if (!(wanted && (await resumeMatch(wanted)))) openSetup();
}

main();
