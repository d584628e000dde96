// The history page: GET /api/profile (lifetime score and title, R8) and GET /api/matches (past
// matches, newest first); each finished deal opens in the replay (whose 复盘 / Review offers the
// person's seat first, replay.js), each match's records download as JSON Lines, an unfinished
// match can be continued on the table page (a single-player one at /?match=ID, a table for
// people at its address).  A single-player match the server calls
// `abandoned` (no finished deal, and the person has started another since: the table page goes
// on with the newest) is not offered to continue: it is listed apart, with a Delete button
// (DELETE /api/matches/{id}; a refusal is shown from its catalog code).  Each match names the seat
// the person sat at (`your_seat`) and who else was at the table (`players`: a person's name, else
// the computer player's level).  Counts read "1 deal", "2 deals" (the catalog's plurals, i18n.js).
// The challenges the person played (GET /api/me/challenges) follow, each with its place.
// /history?match=ID&deal=K&seat=S opens deal K's replay at once (a what-if board's Share link adds
// &line=QS,2C,…: the replay opens on that what-if position, whatif.js).
//
// May import: cards.js, dom.js, header.js, i18n.js, played.js, replay.js, settings.js.

import { installCardDefs, setPointCards } from "./cards.js";
import { $, cell, link } from "./dom.js";
import { drawHeader } from "./header.js";
import {
  dateText, levelLabel, nameEl, optionLabel, optionValueLabel, presetLabel, refusalText, seatName, startPageLanguage,
  t, titleLabel, tNodes,
} from "./i18n.js";
import { drawPlayed, loadPlayed } from "./played.js";
import { showReplay } from "./replay.js";

const SEATS = ["N", "E", "S", "W"];

let matches = [];
let profile = null;
let presets = {};
/** The last refusal of a deletion ({body, status} or {text}), shown again in the other language. */
let refusal = null;

/** The seat the person played in match `m` (as the server says, else by their name), else South:
 * the seat a replay offers to review first. */
function mySeatIn(m) {
  return m.your_seat ?? SEATS.find((s) => profile?.name && m.seats?.[s] === profile.name) ?? "S";
}

/** The other seats of match `m`, a line each: the seat's person, or its computer player's level. */
function othersAt(m) {
  const box = document.createElement("span");
  box.className = "players";
  for (const s of SEATS.filter((seat) => seat !== m.your_seat && m.players?.[seat])) {
    const p = m.players[s];
    // a person's name a <bdi> of its own ("南：ناصر")
    const who = p.name != null ? nameEl(p.name) : t("seat.computer", { level: levelLabel(p.computer) });
    const item = document.createElement("span");
    item.dataset.seat = s;
    item.append(...tNodes("history.player", { seat: seatName(s), who }));
    box.append(item);
  }
  return box;
}

async function openDeal(matchId, k, seat, whatif = null) {
  $("history-error").textContent = "";
  try {
    const res = await fetch(`/api/matches/${encodeURIComponent(matchId)}/deals/${k}`);
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    showReplay(await res.json(), { seat, whatif });
  } catch {
    $("history-error").textContent = t("msg.noRecord");
  }
}

/** Replay controls for one match: a choice of its finished deals and a button. */
function replayControls(m) {
  const box = document.createElement("span");
  box.className = "replay-pick";
  const finished = m.deals ?? 0;
  if (!finished) return box;
  const select = document.createElement("select");
  select.setAttribute("aria-label", t("history.replay"));
  for (let k = 0; k < finished; k++) {
    const opt = document.createElement("option");
    opt.value = String(k);
    opt.textContent = t("history.dealN", { n: k + 1 });
    select.append(opt);
  }
  const b = document.createElement("button");
  b.type = "button";
  b.textContent = t("history.replay");
  b.addEventListener("click", () => openDeal(m.match_id, Number(select.value), mySeatIn(m)));
  box.append(select, b);
  return box;
}

/** Delete an abandoned match (DELETE /api/matches/{id}); it leaves the page once the server has. */
async function deleteMatch(matchId, button) {
  button.disabled = true;
  try {
    const url = `/api/matches/${encodeURIComponent(matchId)}`;
    const res = await fetch(url, { method: "DELETE", credentials: "same-origin" });
    refusal = res.ok ? null : { body: await res.json().catch(() => null), status: res.status };
    if (res.ok) {
      matches = matches.filter((m) => m.match_id !== matchId);
      $("history-error").textContent = "";
    }
  } catch {
    refusal = { key: "msg.offline" };
  }
  render();
}

/** The single-player matches left before a deal was finished: when and which rules, and Delete. */
function renderAbandoned(left) {
  $("abandoned").hidden = left.length === 0;
  const rows = $("abandoned-rows");
  rows.replaceChildren();
  for (const m of left) {
    const tr = document.createElement("tr");
    tr.dataset.match = m.match_id;
    const button = document.createElement("button");
    button.type = "button";
    button.dataset.delete = m.match_id;
    button.textContent = t("history.delete");
    button.addEventListener("click", () => deleteMatch(m.match_id, button));
    tr.append(cell(t("history.created"), dateText(m.created)), cell(t("history.preset"), rulesText(m)),
      cell(t("history.actions"), button));
    rows.append(tr);
  }
}

function render() {
  $("profile").textContent = profile
    ? t("history.profile", { score: profile.lifetime ?? 0, title: titleLabel(profile.title),
      // Every deal played, practice too (its score is apart, on the profile).
      matches: profile.matches ?? 0, deals: (profile.deals ?? 0) + (profile.practice?.deals ?? 0) })
    : "";
  if (refusal) $("history-error").textContent = refusalText(refusal);
  const kept = matches.filter((m) => !m.abandoned);
  renderAbandoned(matches.filter((m) => m.abandoned));
  const rows = $("match-rows");
  rows.replaceChildren();
  $("history-empty").hidden = kept.length > 0;
  const names = (seats) => (seats ?? []).map(seatName).join(t("list.separator"));
  for (const m of kept) {
    const tr = document.createElement("tr");
    tr.dataset.match = m.match_id;
    const totals = SEATS.map((s) => m.totals?.[s] ?? 0).join(" / ");
    const status = m.over ? t("history.over", { winners: names(m.winners), pigs: names(m.pigs) }) : t("history.playing");
    const actions = document.createElement("span");
    actions.className = "actions";
    actions.append(replayControls(m));
    const id = encodeURIComponent(m.match_id);
    if ((m.deals ?? 0) > 0) actions.append(link(`/api/matches/${id}/records.jsonl`, t("history.download"), true));
    // A table for people is continued at its own address; a single-player match on the table
    // page, which then resumes it.
    if (!m.over) actions.append(link(m.solo ? `/?match=${id}` : `/table/${id}`, t("history.continue")));
    tr.append(cell(t("history.created"), dateText(m.created)), cell(t("history.preset"), rulesText(m)),
      cell(t("history.deals"), t("history.dealCount", { deals: m.deals ?? 0 })), cell(t("history.totals"), totals),
      cell(t("history.seat"), m.your_seat ? seatName(m.your_seat) : "—"), cell(t("history.players"), othersAt(m)),
      cell(t("history.status"), status),
      cell(t("history.actions"), actions));
    rows.append(tr);
  }
  drawPlayed();
}

/** The match's preset, with every option it set differently from that preset (R9, R10). */
function rulesText(m) {
  const base = presets[m.preset] ?? {};
  const changed = Object.entries(m.options ?? {})
    .filter(([key, value]) => key in base && base[key] !== value)
    .map(([key, value]) => t("history.optionChanged", { option: optionLabel(key), value: optionValueLabel(key, value) }));
  return changed.length
    ? t("history.presetChanged", { preset: presetLabel(m.preset), changes: changed.join(t("list.separator")) })
    : presetLabel(m.preset);
}

async function load() {
  const get = async (url) => {
    const res = await fetch(url);
    if (!res.ok) throw new Error(`${url}: HTTP ${res.status}`);
    return res.json();
  };
  try {
    let config;
    [profile, matches, config] = await Promise.all([get("/api/profile"), get("/api/matches"), get("/api/config")]);
    presets = config.presets ?? {};
    setPointCards(config.point_cards);
  } catch {
    $("history-error").textContent = t("msg.loadFailed");
  }
  render();
}

/** The replay (and what-if position) the page's address names, if it names one. */
function openLinked() {
  const q = new URLSearchParams(location.search);
  const match = q.get("match");
  if (!match) return;
  const seat = SEATS.includes(q.get("seat")) ? q.get("seat") : "S";
  const line = q.has("line") ? q.get("line").split(",").filter(Boolean) : null;
  const deal = q.get("deal") ?? "0";
  if (!/^[0-9]{1,6}$/.test(deal)) {  // a damaged link names no deal: said, not another deal shown
    $("history-error").textContent = t("msg.noRecord");
    return;
  }
  openDeal(match, Number(deal), seat, line);
}

function main() {
  drawHeader();
  installCardDefs();
  startPageLanguage(render);
  load();
  loadPlayed();
  openLinked();
}

main();
