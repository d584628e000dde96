// The table page's entry point, for two ways in: at / the person plays alone at South against
// three computer players (the new-match dialog, POST /api/matches); at /table/{id} (with
// ?invite=TOKEN for a private table, ?sit=SEAT from the lobby's Sit links) the page shows a
// table of several people from the person's seat, or as a spectator.
// The server is authoritative (docs/web-protocol.md): the page renders the `state` it sends and
// turns clicks and keys into messages; it never decides a rule itself.  This module wires the
// others together (README.md in this folder maps them) and starts the page: it makes sure the
// person has a session (GET /api/me), reads the server's configuration (GET /api/config; the
// page waits for it, showing a busy new-match button, and asks again while the server does not
// answer), and then opens the table of the address, or resumes the remembered single-player
// match, or opens the new-match dialog.  The header's motion and sound switches are remembered in
// the settings (view-table.js draws them; sound.js plays the table's cues).
//
// Stable surface for outside browser tests (keep it): every hand card is a <button> with
// data-card="<code>" and aria-disabled="true"/"false" (not / a legal play now; in the exposure
// phase "false" marks the cards the person may still expose, the only ones a click acts on;
// view-hand.js); the button ending the exposure phase is named 不亮 / Expose none, and 亮出所选 /
// Expose selected while cards are marked (index.html, view-controls.js); after
// a deal each seat's R7 result is the text of [data-deal-result="<seat>"] (view-summary.js);
// <html data-phase> is setup / waiting / expose / play / deal-over / match-over (render.js).
//
// May import: every module of the table page (not history.js, lobby.js).

import {
  actByItself, answerClaim, autoPlay, changeSpeed, declare, inviteFriend, loadFriends, muteChat, mutePerson,
  nextDeal, onCard, playAgain, removeFrom, replayThisDeal, reviewThisDeal, sendChat, sendClaim, sendPlay, sendQuick,
  sit, stand, startTable, takeBack,
} from "./actions.js";
import { installCardDefs } from "./cards.js";
import { connect, requestHint } from "./connection.js";
import { $, fillSelect, toast } from "./dom.js";
import { applyI18n, getLang, refusalText, setLang, speedLabel, t } from "./i18n.js";
import { focusHand, focusHandOnDeal, onKey } from "./keys.js";
import { watchNextTable } from "./next-table.js";
import { changeLanguage, startRendering } from "./render.js";
import { initSetup, openSetup } from "./setup.js";
import { rememberedMatch } from "./settings.js";
import { startSound, unlockSound } from "./sound.js";
import {
  canInvite, closeHints, configUnavailable, dismissSummary, motionOn, page, personAt, reopenSummary, setConfig, setMe, setProfile,
  soundOn, speed, speedNames, subscribe, toggleClaimMenu, toggleLastTrick, updateSettings,
} from "./state.js";
import { initChat } from "./view-chat.js";
import { initControls } from "./view-controls.js";
import { initHand } from "./view-hand.js";
import { initTable } from "./view-table.js";
import { initWaiting } from "./view-waiting.js";

/** The table of the address: /table/{id}, with the invitation and the seat asked for; else null. */
function tableRoute() {
  const m = /^\/table\/([^/]+)\/?$/.exec(location.pathname);
  if (!m) return null;
  const query = new URLSearchParams(location.search);
  return { id: decodeURIComponent(m[1]), invite: query.get("invite"), sit: query.get("sit") };
}

/** A single-player match was dealt: play it (at /, which resumes it after a reload). */
function started(matchId) {
  if (location.pathname !== "/") history.pushState(null, "", "/");
  connect(matchId, { remember: true });
}

/** Another match: at a table of several people the lobby, where its people find each other. */
function again() {
  dismissSummary();
  if (tableRoute()) playAgain();
  else openSetup();
}

function copyInvite() {
  const field = $("invite-url");
  field.select();
  navigator.clipboard?.writeText(field.value).then(() => toast(t("waiting.copied")), () => {});
}

/** The header's 今日挑战赛 / Today's challenge: the page of today's challenge, asked for
 * (GET /api/challenges, which makes the day's challenge) only when the link is followed; without
 * an answer, and in a new tab, the challenges page (the link's own address). */
async function openToday(ev) {
  if (ev.button !== 0 || ev.metaKey || ev.ctrlKey || ev.shiftKey || ev.altKey) return;
  ev.preventDefault();
  let url = "/challenges";
  try {
    const res = await fetch("/api/challenges");
    if (res.ok) url = (await res.json()).today?.url ?? url;
  } catch {
    // Not reachable: the challenges page says so.
  }
  location.assign(url);
}

/** On a phone, the header's menu (lobby, history, rules, speed, the switches, the language):
 * open or close it. */
function toggleMenu() {
  const open = !$("menu").classList.contains("open");
  $("menu").classList.toggle("open", open);
  $("menu-toggle").setAttribute("aria-expanded", String(open));
}

/** Speak `lang` ("zh" or "en"): the page, and its title in the browser's tab (in one language). */
function speak(lang) {
  changeLanguage(lang);
  document.title = t("app.title");
}

// The buttons that have a key of their own, with it and their label.  On a touch screen
// (pointer: coarse) no key is at hand: the labels leave the key out ("提示", not "提示 (H)").
const KEYED = [["hint", "H", "btn.hint"], ["last", "L", "btn.last"], ["next", "N", "btn.next"], ["summary-next", "N", "btn.next"]];

/** Label the keyed buttons for the screen the page is on (again when that changes: a tablet's
 * keyboard attached), before the page's texts are applied. */
function labelKeys() {
  const touch = matchMedia("(pointer: coarse)");
  const label = () => {
    for (const [id, key, text] of KEYED) {
      $(id).setAttribute("aria-keyshortcuts", key);
      $(id).dataset.i18n = touch.matches ? `${text}Touch` : text;
    }
  };
  label();
  touch.addEventListener("change", () => {
    label();
    applyI18n();
  });
}

/** The header's motion switch: remembered; off, nothing moves from now on. */
function switchMotion() {
  updateSettings({ motion: !motionOn() });
}

/** The header's sound switch: remembered; this click is the gesture that lets the audio start. */
function switchSound() {
  updateSettings({ sound: !soundOn() });
  unlockSound();
}

function wire() {
  // A dialog closed mid-deal (cancelled) leaves the keyboard on the hand, not on the button that opened it.
  initSetup({ onStarted: started, onLanguage: speak, onClosed: focusHand });
  initTable({ onNewMatch: openSetup, onSit: sit });
  initWaiting({ onSit: sit, onStand: stand, onRemove: removeFrom, onInvite: inviteFriend, onFriends: loadFriends });
  initHand({ onCard });
  initControls({ onPlay: sendPlay });
  initChat({ onSay: sendChat, onQuick: sendQuick, onMute: muteChat, onMutePerson: mutePerson });
  $("new-match").addEventListener("click", openSetup);
  $("again").addEventListener("click", again);
  $("summary-again").addEventListener("click", again);
  $("table-start").addEventListener("click", startTable);
  $("takeback").addEventListener("click", takeBack);
  $("summary-takeback").addEventListener("click", takeBack);
  $("auto").addEventListener("click", autoPlay);
  $("stand").addEventListener("click", stand);
  $("invite-copy").addEventListener("click", copyInvite);
  $("lang").addEventListener("click", () => speak(getLang() === "zh" ? "en" : "zh"));
  $("speed").addEventListener("change", () => changeSpeed($("speed").value));
  $("motion").addEventListener("click", switchMotion);
  $("sound").addEventListener("click", switchSound);
  $("menu-toggle").addEventListener("click", toggleMenu);
  $("today-link").addEventListener("click", openToday);
  $("start").addEventListener("click", declare);
  $("hint").addEventListener("click", requestHint);
  $("claim").addEventListener("click", () => toggleClaimMenu());
  for (const b of document.querySelectorAll("#claim-menu [data-claim]")) {
    b.addEventListener("click", () => sendClaim(b.dataset.claim, Number.parseInt($("claim-value").value, 10) || 0));
  }
  $("claim-accept").addEventListener("click", () => answerClaim(true));
  $("claim-contest").addEventListener("click", () => answerClaim(false));
  $("hint-close").addEventListener("click", closeHints);
  $("last").addEventListener("click", toggleLastTrick);
  $("next").addEventListener("click", nextDeal);
  $("summary-next").addEventListener("click", nextDeal);
  $("summary-replay").addEventListener("click", replayThisDeal);
  $("summary-review").addEventListener("click", reviewThisDeal);
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

/** GET /api/me: the person's session (the server makes a guest when there is none) and name. */
async function loadMe() {
  try {
    const res = await fetch("/api/me");
    if (res.ok) setMe(await res.json());
    // No guest for this browser now (its address made many): say why; signing in still works.
    else if (res.status === 429) toast(refusalText({ body: await res.json(), status: 429 }), true);
  } catch {
    // Not reachable: the table's connection retries on its own.
  }
}

/** The person's friends, asked for (GET /api/people) once a table they may invite to is shown,
 * and again for each other table. */
function friendsWhenInviting() {
  let askedFor = null;
  subscribe(() => {
    if (!canInvite() || askedFor === page.matchId) return;
    askedFor = page.matchId;
    loadFriends();
  });
}

/** Take seat `seat` once the table is shown, if it is free and the person is not seated yet. */
function sitWhenShown(seat) {
  let asked = false;
  subscribe(() => {
    const s = page.state;
    if (asked || !s) return;
    asked = true;
    if (!s.seat && s.table?.seats?.[seat] && !personAt(seat)) sit(seat);
    // Asked once: a reload of the page does not ask again.
    const query = new URLSearchParams(location.search);
    query.delete("sit");
    history.replaceState(null, "", `${location.pathname}${query.size ? `?${query}` : ""}`);
  });
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
  labelKeys();
  applyI18n();
  document.title = t("app.title");
  wire();
  startRendering();
  subscribe(actByItself);
  subscribe(watchNextTable);
  subscribe(focusHandOnDeal);
  friendsWhenInviting();
  startSound();
  const me = loadMe();
  await loadConfig();
  fillSelect($("speed"), speedNames(), speedLabel, speed());
  await me;
  fetch("/api/profile").then((r) => (r.ok ? r.json() : null)).then(setProfile).catch(() => {});
  const route = tableRoute();
  if (route) {
    if (route.sit) sitWhenShown(route.sit);
    connect(route.id, { invite: route.invite, remember: false });
    return;
  }
  const wanted = new URLSearchParams(location.search).get("match") ?? rememberedMatch();
  if (!(wanted && (await resumeMatch(wanted)))) openSetup();
}

main();
