// Draws the page from state.js: subscribes to its updates and draws again the parts each one
// names, in a fixed order (header, seats, center, waiting list, hand, controls, hints, chat,
// summary; the clock alone each second), and sets <html data-phase> (setup / waiting / expose /
// play / deal-over / match-over: stable test surface).  Also relabels the whole page when the
// language changes.
//
// May import: state.js, dom.js, i18n.js and the view-*.js modules.

import { $, fillSelect } from "./dom.js";
import { applyI18n, setLang, speedLabel } from "./i18n.js";
import { displayedPhase, SEATS, speed, speedNames, subscribe, tickClock, updateSettings } from "./state.js";
import { renderChat } from "./view-chat.js";
import { renderClock, renderControls, renderHints } from "./view-controls.js";
import { renderHand } from "./view-hand.js";
import { renderSummary } from "./view-summary.js";
import { renderCenter, renderHeader, renderOffline, renderSeat, renderSeatClocks } from "./view-table.js";
import { renderWaiting } from "./view-waiting.js";

const PARTS = [
  ["header", renderHeader],
  ["offline", renderOffline],
  ["seats", () => { for (const seat of SEATS) renderSeat(seat); }],
  ["center", renderCenter],
  ["waiting", renderWaiting],
  ["hand", renderHand],
  ["controls", renderControls],
  ["hints", renderHints],
  ["chat", renderChat],
  ["clock", () => { renderSeatClocks(); renderClock(); }],
  ["summary", renderSummary],
];

/** Draw the parts named in `parts` (a Set; "all" draws everything). */
export function render(parts = new Set(["all"])) {
  const all = parts.has("all");
  if (all) document.documentElement.setAttribute("data-phase", displayedPhase());
  for (const [name, draw] of PARTS) if (all || parts.has(name)) draw();
}

/** Draw the page now and after every update of state.js; the server's clock counts down each second. */
export function startRendering() {
  subscribe(render);
  render();
  setInterval(tickClock, 250);
}

/** Speak `lang` ("zh" or "en") from now on, and remember it. */
export function changeLanguage(lang) {
  setLang(lang);
  updateSettings({ lang });
  applyI18n();
  fillSelect($("speed"), speedNames(), speedLabel, speed());
  render();
}

