// The challenges page (/challenges).  GET /api/challenges: today's challenge (made by the first
// request of the day) with its title, boards, rules, when it closes, how many have played, the
// person's progress and place, and a Play / Continue button (POST /api/challenges/{id}/play, then
// the table it answers with); the recent challenges (every daily one, the private ones the person
// made or entered), each a link to its page with its entrants and the person's place and
// matchpoint percentage.  The form makes a private challenge (POST /api/challenges {preset,
// boards}: the presets of GET /api/config) and opens its page, whose address the person shares.
// A refusal is shown in the page's language from its catalog code.
//
// May import: dom.js, header.js, i18n.js.

import { $, cell, fillSelect } from "./dom.js";
import { drawHeader } from "./header.js";
import { dateText, presetLabel, refusalText, startPageLanguage, t } from "./i18n.js";

let data = null;      // GET /api/challenges
let config = null;    // GET /api/config
let failure = false;  // whether the page could not be read
/** The refusals shown, by the id of the element showing them ({body, status}, {key, params} or
 * {text}), kept so that they are written again in the other language. */
const refusals = {};

function showRefusal(id, refusal) {
  refusals[id] = refusal;
  $(id).textContent = refusal ? refusalText(refusal) : "";
}

/** A challenge's name: its kind and title ("每日挑战赛 2026-12-01"). */
function nameOf(c) {
  return t("challenge.name", { kind: t(`challenge.kind.${c.kind}`), title: c.title });
}

function percentText(p) {
  return p === null || p === undefined ? "—" : t("challenge.percent", { n: Number(p).toFixed(1) });
}

/** The person's place: a rank, or why there is none (a guest is compared, not ranked). */
function placeText(mine) {
  if (!mine) return "—";
  return mine.rank === null || mine.rank === undefined ? t("challenge.unranked") : String(mine.rank);
}

/** POST a JSON body: the answer, or throws {refusal}. */
async function post(url, body) {
  let res;
  try {
    res = await fetch(url, {
      method: "POST", credentials: "same-origin", headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body),
    });
  } catch {
    throw { refusal: { key: "msg.offline" } };
  }
  const answer = await res.json().catch(() => null);
  if (!res.ok) throw { refusal: { body: answer, status: res.status } };
  return answer;
}

function renderToday() {
  const c = data?.today;
  $("today").hidden = !c;
  if (!c) return;
  $("today").dataset.challenge = c.id;
  $("today-title").textContent = nameOf(c);
  $("today-facts").textContent = [presetLabel(c.preset), t("challenge.boardCount", { n: c.boards }),
    c.closed ? t("challenge.closedAt", { time: dateText(c.closes) }) : t("challenge.closes", { time: dateText(c.closes) }),
  ].join(" · ");
  const entrants = c.entrants ?? 0;
  $("today-played").textContent = t("challenge.entrants", { n: entrants });
  $("today-played").dataset.entrants = String(entrants);
  const me = c.me;
  const finished = me?.finished?.length ?? 0;
  const mine = [];
  if (me?.match || finished) mine.push(t("challenge.progress", { done: finished, n: c.boards }));
  if (finished) mine.push(t("challenge.place", { rank: placeText(me) }));
  $("today-mine").textContent = mine.join(" · ");
  const play = $("today-play");
  play.hidden = c.closed || finished >= c.boards;
  play.dataset.action = me?.match ? "continue" : "play";
  play.textContent = t(me?.match ? "challenge.continue" : "challenge.play");
  $("today-link").href = c.url;
}

function renderList() {
  const list = data?.challenges ?? [];
  $("challenges-empty").hidden = !data || list.length > 0;
  const rows = $("challenge-rows");
  rows.replaceChildren();
  for (const c of list) {
    const tr = document.createElement("tr");
    tr.dataset.challenge = c.id;
    const name = document.createElement("a");
    name.href = c.url;
    name.textContent = nameOf(c);
    const closes = c.closed ? t("challenge.closedAt", { time: dateText(c.closes) }) : dateText(c.closes);
    tr.append(cell(t("challenges.col.name"), name), cell(t("history.preset"), presetLabel(c.preset)),
      cell(t("challenges.boards"), String(c.boards)), cell(t("challenges.col.closes"), closes),
      cell(t("challenges.col.entrants"), String(c.entrants ?? 0)),
      cell(t("challenges.col.place"), placeText(c.me)),
      cell(t("challenges.col.percent"), percentText(c.me?.percent)));
    rows.append(tr);
  }
}

function renderForm() {
  if (!config) return;
  const presets = Object.keys(config.presets ?? {});
  const chosen = $("create-preset").value || (presets.includes("online") ? "online" : config.default_preset);
  fillSelect($("create-preset"), presets, presetLabel, chosen);
}

function render() {
  $("challenges-error").textContent = failure ? t("msg.loadFailed") : "";
  for (const [id, refusal] of Object.entries(refusals)) showRefusal(id, refusal);
  renderToday();
  renderList();
  renderForm();
}

async function load() {
  try {
    const res = await fetch("/api/challenges", { credentials: "same-origin" });
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    data = await res.json();
    failure = false;
  } catch {
    failure = true;
  }
  render();
}

async function loadConfig() {
  try {
    const res = await fetch("/api/config");
    if (res.ok) config = await res.json();
  } catch {
    // The form waits; the list does not need it.
  }
  $("create-go").disabled = !config;
  renderForm();
}

/** Enter today's challenge (or go back to the match already entered): to its table. */
async function play() {
  const c = data?.today;
  if (!c) return;
  const b = $("today-play");
  b.disabled = true;
  try {
    const answer = await post(`/api/challenges/${encodeURIComponent(c.id)}/play`, {});
    location.assign(answer.url);
  } catch (err) {
    showRefusal("today-error", err.refusal ?? { key: "msg.offline" });
    b.disabled = false;
  }
}

async function create(ev) {
  ev.preventDefault();
  // The count the form allows (its field's min and max, as the server's): a count outside it is
  // answered here, in the catalog's words.
  const field = $("create-boards");
  const boards = Number(field.value);
  if (field.value.trim() === "" || !Number.isInteger(boards)) {
    field.focus();
    showRefusal("create-error", { key: "challenges.boardsMissing" });
    return;
  }
  if (boards < Number(field.min) || boards > Number(field.max)) {
    field.focus();
    showRefusal("create-error", { key: "server.challenge_bad_boards", params: { max: Number(field.max) } });
    return;
  }
  const go = $("create-go");
  go.disabled = true;
  try {
    const answer = await post("/api/challenges", { preset: $("create-preset").value, boards });
    location.assign(answer.url);
  } catch (err) {
    showRefusal("create-error", err.refusal ?? { key: "msg.offline" });
    go.disabled = false;
  }
}

function main() {
  drawHeader();
  startPageLanguage(render);
  $("create-go").disabled = true;
  $("today-play").addEventListener("click", play);
  $("create-form").addEventListener("submit", create);
  render();
  load();
  loadConfig();
}

main();
