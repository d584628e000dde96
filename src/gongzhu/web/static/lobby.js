// The lobby page (/lobby): the tables of several people, live.  It makes sure the person has a
// session and says who they are (GET /api/me, a link to /profile), then keeps the lobby socket
// /ws/lobby open: a `lobby` message lists every table, `table` adds or replaces one, `gone`
// takes one away; the list is drawn again at once, and the socket reconnects by itself, less
// and less often, after a drop (the page says it is reconnecting).  Each table shows its rules
// (the preset and what differs from it), who sits at each seat (a person's name and title, or
// the computer level playing it, 托管), its spectators, whether it waits or plays, its timers,
// with a Sit link per free seat and a Watch link (both to /table/{id}).  "Play now" asks the
// server for a seat (POST /api/tables/play-now); "Create table" opens a form like the table
// page's new-match dialog (the option rows are shared: options-form.js) with the table's own
// choices, and posts /api/tables.  Today's challenge (GET /api/challenges) has a small panel: its
// name, boards and how many have played, with a link to its page.
// The friends panel (docs/people.md, GET /api/people, asked every 20 seconds while the page is
// open, which is what keeps the person online for their friends, and again right after each
// action): the friends with an online dot and a link to the public table they sit at, the
// requests received (Accept / Decline: POST / DELETE /api/people/{name}/friend), the requests sent
// (Cancel), a form that asks someone by name, and the invitations to a table (who asked, a Join
// link to its address, Dismiss: DELETE /api/people/invitations/{n}).  A guest is told friends
// need an account, with a link to /profile.  Refusals are shown from their catalog code.
// The events panel (GET /api/events, asked every 10 seconds while the page is seen, at once when
// it is seen again and when the lobby's socket says a stage of one of the person's events has
// begun; an account's only, since guests neither organise nor play in events):
// each event not published yet that the person organises or plays in, newest first: its name (a
// link to /event/{id}), an organiser's mark, the entrant they play for, and where they sit now:
// the round (and a team match's session), the table and the seat, with a button to that table;
// or when it starts, or that they sit out this round.  Hidden while there is none.
//
// May import: dom.js, header.js, i18n.js, settings.js, socket.js, options-form.js.

import { $, el, fillSelect, span, toast } from "./dom.js";
import { drawHeader } from "./header.js";
import {
  applyI18n, dateText, getLang, isolated, levelLabel, nameEl, optionLabel, optionValueLabel, personName, presetLabel,
  refusalNodes, refusalText, ratingText, seatName, setLang, speedLabel, t, titleLabel, tNodes,
} from "./i18n.js";
import { buildOptionRows, describeLevels, missingCount, readOverrides } from "./options-form.js";
import { loadSettings, saveSettings } from "./settings.js";
import { ReconnectingSocket, socketAddress } from "./socket.js";

const SEATS = ["N", "E", "S", "W"];
const settings = loadSettings();
const tables = new Map();   // id -> the lobby's entry of that table
let config = null;          // GET /api/config
let me = null;              // GET /api/me
let today = null;           // today's challenge (GET /api/challenges: `today`)
let people = null;          // GET /api/people: friends, requests, invitations (null until it answers)
let peopleRefusal = null;   // the last refused action of the friends panel ({body, status} or {key})
let peopleTimer = null;
/** How often the friends panel asks again (ms): being there is being online (docs/people.md). */
const PEOPLE_MS = 20000;
let events = [];            // GET /api/events: the person's events not published yet
let eventsTimer = null;
/** How often the events panel asks again while the page is seen (ms). */
const EVENTS_MS = 10000;

// ---------------------------------------------------------------- the server

/** An error answer as the person's words: a catalogued code in the page's language, else its text. */
function refusal(data, status) {
  return refusalText({ body: data, status });
}

async function post(url, body) {
  let res;
  try {
    res = await fetch(url, {
      method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
    });
  } catch {
    throw new Error(t("msg.offline"));  // the network, not the server: the catalog's words alone
  }
  const data = await res.json().catch(() => ({}));
  if (!res.ok) throw new Error(refusal(data, res.status));
  return data;
}

async function loadMe() {
  try {
    const res = await fetch("/api/me");
    if (res.ok) me = await res.json();
    // No guest for this browser now (its address made many): say why; signing in still works.
    else if (res.status === 429) toast(refusal(await res.json(), ""), true);
  } catch {
    // Not reachable: the socket below retries on its own.
  }
  drawMe();
}

/** Today's challenge, for its panel (the lobby goes on without it). */
async function loadToday() {
  try {
    const res = await fetch("/api/challenges");
    if (res.ok) today = (await res.json()).today ?? null;
  } catch {
    // Not reachable: no panel.
  }
  drawToday();
}

/** GET /api/config, asked again (less and less often) until the server answers. */
async function loadConfig() {
  for (let delay = 500; ; delay = Math.min(delay * 2, 8000)) {
    try {
      const res = await fetch("/api/config");
      if (res.ok) {
        config = await res.json();
        $("create").disabled = false;
        fillPlayNowPreset();
        return;
      }
    } catch {
      // Try again.
    }
    await new Promise((resolve) => setTimeout(resolve, delay));
  }
}

/** The lobby socket, open again by itself after a drop (the page says it is reconnecting). */
function connect() {
  return new ReconnectingSocket(() => socketAddress("/ws/lobby"), {
    onOpen: () => { $("offline").hidden = true; },
    onMessage: receive,
    onClose: () => { $("offline").hidden = false; },
  });
}

function receive(msg) {
  if (msg.type === "lobby") {
    tables.clear();
    for (const entry of msg.tables ?? []) tables.set(entry.id, entry);
  } else if (msg.type === "table" && msg.table) {
    tables.set(msg.table.id, msg.table);
  } else if (msg.type === "gone") {
    tables.delete(msg.id);
  } else if (msg.type === "error") {
    toast(refusal(msg, ""), true);
    return;
  } else if (msg.type === "event") {
    // A stage of one of the person's events began (where they sit now): read again.
    if (events.some((e) => e.id === msg.id)) loadEvents();
    return;
  } else {
    return;
  }
  drawTables();
}

// ---------------------------------------------------------------- friends

/** GET /api/people, then again PEOPLE_MS later (the person is online while the page asks). */
async function loadPeople() {
  clearTimeout(peopleTimer);
  try {
    const res = await fetch("/api/people", { credentials: "same-origin" });
    if (res.ok) people = await res.json();
  } catch {
    // Not reachable: asked again on the next round.
  }
  drawPeople();
  peopleTimer = setTimeout(loadPeople, PEOPLE_MS);
}

/** One action of the friends panel: `method` on `url` (a JSON `body` or none); `said(answer)`
 * is the toast's text after it succeeds.  The panel is asked for again at once, either way. */
async function peopleAction(method, url, body, said) {
  peopleRefusal = null;
  try {
    const res = await fetch(url, {
      method, credentials: "same-origin",
      headers: body === undefined ? {} : { "Content-Type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const data = await res.json().catch(() => ({}));
    if (res.ok) {
      if (said) toast(said(data));
    } else {
      peopleRefusal = { body: data, status: res.status };
    }
  } catch {
    peopleRefusal = { key: "msg.offline" };
  }
  drawPeopleError();
  await loadPeople();
}

const personPath = (name) => `/api/people/${encodeURIComponent(name)}`;

function befriend(name) {
  return peopleAction("POST", `${personPath(name)}/friend`, undefined,
    (data) => tNodes(data.state === "friends" ? "people.nowFriends" : "people.requestSent", { name: data.name ?? name }));
}

function unfriend(name) {
  return peopleAction("DELETE", `${personPath(name)}/friend`);
}

function dismissInvitation(id) {
  return peopleAction("DELETE", `/api/people/invitations/${encodeURIComponent(id)}`);
}

function askByName(ev) {
  ev.preventDefault();
  const name = $("friend-name").value.trim();
  if (!name) {
    peopleRefusal = { key: "people.nameMissing" };
    drawPeopleError();
    $("friend-name").focus();
    return;
  }
  $("friend-name").value = "";
  befriend(name);
}

function drawPeopleError() {
  $("people-error").replaceChildren(...(peopleRefusal ? refusalNodes(peopleRefusal) : []));
}

/** A person's name, a link to their public profile (the name a <bdi> of its own). */
function profileLink(name) {
  const a = el("a", "name");
  a.append(nameEl(name));
  a.href = `/profile?name=${encodeURIComponent(name)}`;
  a.dataset.name = name;
  return a;
}

function smallButton(text, action, onClick) {
  const b = el("button", "small", text);
  b.type = "button";
  b.dataset.action = action;
  b.addEventListener("click", onClick);
  return b;
}

function friendItem(friend) {
  const item = el("li", "friend");
  item.dataset.name = friend.name;
  item.dataset.online = String(Boolean(friend.online));
  const dot = span(`dot${friend.online ? " online" : ""}`, "");
  dot.setAttribute("aria-hidden", "true");
  item.append(dot, profileLink(friend.name), span("presence", t(friend.online ? "people.online" : "people.offline")));
  if (friend.table?.url) {
    const go = linkButton(friend.table.url, t("people.atTable"), "small");
    go.dataset.action = "table";
    go.dataset.tableId = friend.table.id ?? "";
    item.append(go);
  }
  return item;
}

function requestItem(name, ...buttons) {
  const item = el("li", "request");
  item.dataset.name = name;
  item.append(profileLink(name), ...buttons);
  return item;
}

function invitationItem(invitation) {
  const item = el("li", "invitation");
  item.dataset.invitation = String(invitation.id);
  item.dataset.from = invitation.from;
  const who = span("who", "");
  who.append(...tNodes("people.invitedBy", { name: personName(invitation.from) }));
  item.append(who, span("when", dateText(invitation.created)));
  const join = linkButton(invitation.url, t("people.join"), "primary small");
  join.dataset.action = "join";
  item.append(join, smallButton(t("people.dismiss"), "dismiss", () => dismissInvitation(invitation.id)));
  return item;
}

/** The friends panel from `people` (hidden until the server has answered). */
function drawPeople() {
  $("people").hidden = !people;
  if (!people) return;
  const account = Boolean(people.account);
  $("people-guest").hidden = account;
  $("people-body").hidden = !account;
  if (!account) return;
  const friends = people.friends ?? [];
  const asking = people.asking ?? [];
  const asked = people.asked ?? [];
  const invitations = people.invitations ?? [];
  $("friends").replaceChildren(...friends.map(friendItem));
  $("friends-empty").hidden = friends.length > 0;
  $("asking").replaceChildren(...asking.map((name) => requestItem(name,
    smallButton(t("people.accept"), "accept", () => befriend(name)),
    smallButton(t("people.decline"), "decline", () => unfriend(name)))));
  $("asking-box").hidden = !asking.length;
  $("asked").replaceChildren(...asked.map((name) => requestItem(name,
    smallButton(t("people.cancel"), "cancel", () => unfriend(name)))));
  $("asked-box").hidden = !asked.length;
  $("invitations").replaceChildren(...invitations.map(invitationItem));
  $("invitations-box").hidden = !invitations.length;
  drawPeopleError();
}

// ---------------------------------------------------------------- events

/** GET /api/events, then again EVENTS_MS later while the page is seen (not for a guest). */
async function loadEvents() {
  clearTimeout(eventsTimer);
  eventsTimer = null;
  if (me?.guest || document.visibilityState === "hidden") return;  // asked again once seen
  try {
    const res = await fetch("/api/events", { credentials: "same-origin" });
    if (res.ok) events = (await res.json()).events ?? [];
  } catch {
    // Not reachable: asked again on the next round.
  }
  drawEvents();
  clearTimeout(eventsTimer);
  eventsTimer = setTimeout(loadEvents, EVENTS_MS);
}

/** Whether a team match's rounds have several sessions: a stage is (round − 1) × sessions +
 * session, so one session a round keeps stage = round; at stage 1, several stages tell it (a
 * two-team match has one round). */
function hasSessions(event, now) {
  if (event.form !== "teams") return false;
  if (now.stage !== now.round) return true;
  return now.stage === 1 && event.stages > 1;
}

function eventItem(event) {
  const item = el("li", "lobby-event");
  item.dataset.eventId = event.id;
  const head = el("div", "lobby-event-head");
  const name = el("a", "lobby-event-name");
  name.append(isolated(event.name));
  name.href = event.url ?? `/event/${encodeURIComponent(event.id)}`;
  head.append(name);
  if (event.organiser) head.append(span("mark lobby-event-organiser", t("lobby.events.organiser")));
  if (event.entrant && event.form !== "individual") {
    const entrant = span("lobby-event-entrant", "");
    entrant.append(...tNodes("lobby.events.entrant", { name: event.entrant }));
    head.append(entrant);
  }
  item.append(head);

  const now = event.now;
  const where = el("p", "lobby-event-where");
  if (!now) {
    item.dataset.state = "waiting";
    where.textContent = event.starts_at
      ? t("lobby.events.startsAt", { time: dateText(event.starts_at) })
      : t("lobby.events.notStarted");
    if (event.starts_at) where.dataset.startsAt = event.starts_at;
    item.append(where);
    return item;
  }
  where.dataset.round = String(now.round);
  where.dataset.session = String(now.session);
  const parts = [t("lobby.events.round", { n: now.round })];
  if (hasSessions(event, now)) parts.push(t("lobby.events.session", { n: now.session }));
  if (!now.seat) {
    // An organiser who does not play sees only the round; a player without a seat sits out.
    item.dataset.state = event.entrant ? "sitting-out" : "running";
    if (event.entrant) parts.push(t("lobby.events.sittingOut"));
    where.textContent = parts.join(" · ");
    item.append(where);
    return item;
  }
  item.dataset.state = "seated";
  where.dataset.table = String(now.table);
  where.dataset.seat = now.seat;
  parts.push(t("lobby.events.table", { n: now.table }), t("lobby.events.seat", { seat: now.seat }));
  where.textContent = parts.join(" · ");
  item.append(where);
  if (now.url) {
    const go = linkButton(now.url, t("lobby.events.go"), "primary");
    go.dataset.action = "table";
    item.append(go);
  }
  return item;
}

/** The events panel from `events` (hidden while there is none). */
function drawEvents() {
  $("events").hidden = !events.length;
  $("events-list").replaceChildren(...events.map(eventItem));
}

// ---------------------------------------------------------------- drawing

function drawMe() {
  const link = $("me");
  link.hidden = !me;
  if (!me) return;
  link.replaceChildren(...(me.title ? tNodes("header.me", { name: nameEl(me.name), title: titleLabel(me.title) }) : [nameEl(me.name)]));
  link.title = t("header.profile");
}

function drawToday() {
  $("today").hidden = !today;
  if (!today) return;
  const entrants = today.standings?.length ?? 0;
  $("today").dataset.challenge = today.id;
  $("today-line").textContent = [t("challenge.name", { kind: t(`challenge.kind.${today.kind}`), title: today.title }),
    t("challenge.boardCount", { n: today.boards }), t("challenge.entrants", { n: entrants })].join(" · ");
  $("today-line").dataset.entrants = String(entrants);
  $("today-link").href = today.url;
}

/** Waiting tables first, then the newest. */
function ordered() {
  const rank = (e) => (e.status === "waiting" ? 0 : 1);
  return [...tables.values()].sort((a, b) => rank(a) - rank(b) || String(b.created).localeCompare(String(a.created)));
}

function drawTables() {
  const list = $("tables");
  const entries = ordered();
  list.replaceChildren(...entries.map(entryItem));
  $("tables-empty").hidden = entries.length > 0;
}

/** A link styled as a button. */
function linkButton(href, text, cls = "") {
  const a = el("a", `button ${cls}`.trim(), text);
  a.href = href;
  return a;
}

function tableUrl(entry, seat = null) {
  const url = entry.url ?? `/table/${encodeURIComponent(entry.id)}`;
  return seat ? `${url}${url.includes("?") ? "&" : "?"}sit=${seat}` : url;
}

function entryItem(entry) {
  const item = el("li", "table-entry");
  item.dataset.tableId = entry.id;
  item.dataset.status = entry.status;

  const head = el("div", "entry-head");
  head.append(el("strong", "", presetLabel(entry.preset)));
  const playing = entry.status === "playing";
  head.append(span(`status-badge${playing ? " playing" : ""}`, t(`lobby.status.${playing ? "playing" : "waiting"}`)));
  if (entry.host) {
    const host = span("host", "");
    host.append(...tNodes("lobby.host", { name: personName(entry.host) }));
    head.append(host);
  }
  head.append(span("timer", entry.turn_seconds ? t("lobby.turn", { n: entry.turn_seconds }) : t("lobby.turnOff")));
  if (entry.expose_seconds) head.append(span("timer", t("lobby.expose", { n: entry.expose_seconds })));
  if (entry.deals_played) head.append(span("deals", t("lobby.deals", { n: entry.deals_played })));
  const watchers = span("spectators", t("lobby.spectators", { n: entry.spectators ?? 0 }));
  watchers.dataset.spectators = String(entry.spectators ?? 0);
  head.append(watchers);
  item.append(head);

  const changed = Object.entries(entry.changed ?? {});
  const rules = el("p", "entry-rules");
  rules.textContent = changed.length
    ? t("lobby.changed", { rules: changed.map(([k, v]) => `${optionLabel(k)}: ${optionValueLabel(k, v)}`).join(t("list.separator")) })
    : t("lobby.asPreset");
  item.append(rules);
  if (entry.seeded) item.append(el("p", "entry-seeded", t("lobby.seeded")));
  // Its deals move the ratings of the people at it (docs/ratings.md).
  if (entry.rated) item.append(el("p", "entry-rated", t("table.rated")));
  if (entry.accounts_only) item.append(el("p", "entry-accounts-only", t("lobby.accountsOnly")));

  const seats = el("ul", "entry-seats");
  let free = null;
  for (const seat of SEATS) {
    const info = entry.seats?.[seat] ?? {};
    const li = el("li", "entry-seat");
    li.dataset.seat = seat;
    li.append(el("strong", "", seatName(seat)));
    if (info.name) {
      const who = nameEl(info.name, "name");
      who.dataset.name = info.name;
      li.append(who);
      if (info.title) li.append(span("title", titleLabel(info.title)));
      if (info.rating !== undefined && info.rating !== null) {  // an account's, in the table's family
        const { text, title } = ratingText(info);
        const rating = span("rating", text);
        rating.dataset.rating = String(info.rating);
        rating.title = title;
        li.append(rating);
      }
      if (info.auto) li.append(span("mark auto", t("seat.auto")));
    } else {
      li.append(span("level", info.computer ? t("seat.computer", { level: levelLabel(info.computer) }) : t("seat.empty")));
      free ??= seat;
      const sit = linkButton(tableUrl(entry, seat), t("btn.sit"), "sit");
      sit.dataset.sit = seat;
      li.append(sit);
    }
    seats.append(li);
  }
  item.append(seats);

  const actions = el("div", "entry-actions");
  if (free) {
    const sit = linkButton(tableUrl(entry, free), t("lobby.sit"), "primary");
    sit.dataset.action = "sit";
    actions.append(sit);
  }
  const watch = linkButton(tableUrl(entry), t("lobby.watch"));
  watch.dataset.action = "watch";
  actions.append(watch);
  item.append(actions);
  return item;
}

// ---------------------------------------------------------------- play now, create a table

/** Play now's preset choice: any (""), or one of the server's presets, as last chosen. */
function fillPlayNowPreset() {
  const select = $("play-now-preset");
  const presets = Object.keys(config.presets);
  const chosen = presets.includes(settings.playNowPreset) ? settings.playNowPreset : "";
  fillSelect(select, ["", ...presets], (p) => (p ? presetLabel(p) : t("lobby.anyPreset")), chosen);
  $("play-now-ranked").checked = Boolean(settings.playNowRanked);
}

async function playNow() {
  const b = $("play-now");
  b.disabled = true;
  $("lobby-error").textContent = "";
  const preset = $("play-now-preset").value;
  const ranked = $("play-now-ranked").checked;
  settings.playNowPreset = preset;
  settings.playNowRanked = ranked;
  saveSettings(settings);
  try {
    const data = await post("/api/tables/play-now", { ...(preset ? { preset } : {}), ...(ranked ? { ranked } : {}) });
    location.assign(data.url);
  } catch (err) {
    $("lobby-error").textContent = err.message;
    b.disabled = false;
  }
}

/** The remembered choice if the server still offers it, else `fallback`. */
function offered(values, remembered, fallback) {
  return values.includes(remembered) ? remembered : fallback;
}

function openCreate() {
  if (!config) return;
  fillCreate(settings.table ?? {});
  $("create-error").textContent = "";
  const dlg = $("create-dialog");
  if (!dlg.open) dlg.showModal();
}

/** The form with the choices `chosen` (a body of POST /api/tables, remembered or being edited). */
function fillCreate(chosen) {
  const presets = Object.keys(config.presets);
  fillSelect($("create-preset"), presets, presetLabel, offered(presets, chosen.preset ?? settings.preset, config.default_preset));
  fillSelect($("create-seat"), SEATS, seatName, offered(SEATS, chosen.seat, "S"));
  for (const seat of SEATS) {
    const remembered = chosen.levels?.[seat] ?? settings.levels?.[seat];
    fillSelect($(`create-level-${seat}`), config.levels, levelLabel, offered(config.levels, remembered, config.default_level));
  }
  describeLevels(document.querySelector("#create-dialog fieldset.levels"), "create-level-notes", config.levels);
  const speeds = Object.keys(config.speeds ?? {});
  fillSelect($("create-speed"), speeds, speedLabel, offered(speeds, chosen.speed ?? settings.speed, config.default_speed));
  $(chosen.visibility === "private" ? "create-private" : "create-public").checked = true;
  setTimer("turn", chosen.turn_seconds, 30);
  setTimer("expose", chosen.expose_seconds, 20);
  buildOptionRows($("create-options"), config, $("create-preset").value, chosen.options ?? {});
}

/** A timer's fields: `value` null is off, a number is on with that many seconds, undefined the default. */
function setTimer(name, value, fallback) {
  $(`create-${name}-on`).checked = value !== null;
  $(`create-${name}`).value = String(value ?? fallback);
  syncTimer(name);
}

function syncTimer(name) {
  $(`create-${name}`).disabled = !$(`create-${name}-on`).checked;
}

/** A timer's seconds, null when it is off; undefined when the number is not a positive integer. */
function readTimer(name) {
  if (!$(`create-${name}-on`).checked) return null;
  const n = Number($(`create-${name}`).value);
  return Number.isInteger(n) && n >= 1 ? n : undefined;
}

/** The form's choices as a body of POST /api/tables. */
function readCreate() {
  const box = $("create-options");
  return {
    preset: $("create-preset").value,
    options: readOverrides(box),
    levels: Object.fromEntries(SEATS.map((seat) => [seat, $(`create-level-${seat}`).value])),
    visibility: $("create-private").checked ? "private" : "public",
    turn_seconds: readTimer("turn"),
    expose_seconds: readTimer("expose"),
    speed: $("create-speed").value,
    seat: $("create-seat").value,
  };
}

async function createTable(ev) {
  ev.preventDefault();
  const missing = missingCount($("create-options"));
  if (missing) {
    missing.closest("details").open = true;
    missing.focus();
    $("create-error").textContent = t("setup.countMissing");
    return;
  }
  const body = readCreate();
  for (const name of ["turn", "expose"]) {
    if (body[`${name}_seconds`] === undefined) {
      $(`create-${name}`).focus();
      $("create-error").textContent = t("create.secondsMissing");
      return;
    }
  }
  settings.table = body;
  saveSettings(settings);
  const go = $("create-go");
  go.disabled = true;
  try {
    const data = await post("/api/tables", body);
    $("create-dialog").close();
    const url = data.url ?? `/table/${encodeURIComponent(data.table_id)}`;
    location.assign(data.invite && !url.includes("invite=") ? `${url}?invite=${encodeURIComponent(data.invite)}` : url);
  } catch (err) {
    $("create-error").textContent = err.message;
  } finally {
    go.disabled = false;
  }
}

/** Speak `lang` from now on: the page, the form and the list are written again. */
function changeLanguage(lang) {
  setLang(lang);
  settings.lang = lang;
  saveSettings(settings);
  applyI18n();
  drawMe();
  drawTables();
  drawToday();
  drawEvents();
  drawPeople();
  if (config) {
    const chosen = $("play-now-preset").value;
    fillPlayNowPreset();
    $("play-now-preset").value = chosen;
  }
  if ($("create-dialog").open) {
    fillCreate(readCreate());
  }
}

function wire() {
  $("play-now").addEventListener("click", playNow);
  $("create").addEventListener("click", openCreate);
  $("create-form").addEventListener("submit", createTable);
  $("create-cancel").addEventListener("click", () => $("create-dialog").close());
  $("create-preset").addEventListener("change", () => buildOptionRows($("create-options"), config, $("create-preset").value));
  for (const name of ["turn", "expose"]) $(`create-${name}-on`).addEventListener("change", () => syncTimer(name));
  $("lang").addEventListener("click", () => changeLanguage(getLang() === "zh" ? "en" : "zh"));
  $("friend-form").addEventListener("submit", askByName);
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "visible") loadEvents();
  });
}

async function main() {
  drawHeader();
  setLang(settings.lang);
  applyI18n();
  $("create").disabled = true;
  wire();
  drawTables();
  await loadMe();
  loadEvents();
  loadPeople();
  loadToday();
  connect();
  await loadConfig();
}

main();
