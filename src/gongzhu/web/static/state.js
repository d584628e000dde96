// What the table page knows, in one place: the server's configuration (GET /api/config), the
// remembered settings, who the person is (GET /api/me), the table shown and the latest `state`
// the server sent for it (docs/web-protocol.md), the table's chat, the person's friends (GET
// /api/people, whom they may invite to the table: canInvite), and the page's own
// presentation state: exposure marks, a two-card selection, the hints, the last-trick review,
// the pause after a finished trick, the arrival time of the server's clock; and the header's
// motion and sound switches (remembered in the settings: motionOn, soundOn).
//
// The table is drawn from the point of view of `state.seat` (the person's seat at the bottom of
// the screen); a spectator (`seat` null) sees it from South, with no hand.
//
// Other modules read it through `page` (writing a field throws) and the derived queries below,
// and change it only through the named update functions.  Each update tells the subscribed
// views which parts of the page to draw again: "all", or some of "header", "offline", "center",
// "hand", "controls", "hints", "summary", "chat", "clock", "waiting".  This module decides no rule:
// legality, scores, phases and timers come from the server.
//
// May import: cards.js, settings.js.  Nothing here touches the DOM or the network.

import { isPointCard, setPointCards, sortCards } from "./cards.js";
import { loadSettings, motionEnabled, rememberMatch, saveSettings, soundEnabled } from "./settings.js";

export const SEATS = ["N", "E", "S", "W"];
/** The computer seats of a single-player match (the person sits at South). */
export const OPPONENTS = ["N", "E", "W"];
/** The seats around the table from the bottom of the screen: as South sees it, West is on the
 * left, North at the top, East on the right. */
const AROUND = ["S", "W", "N", "E"];
const POSITIONS = ["bottom", "left", "top", "right"];
/** The most chat lines kept. */
const CHAT_LINES = 200;

// Milliseconds a played card takes to fly in, and a finished trick stays on the table, per
// speed.  The server paces the computer players; the page only has to let the eye follow.
export const PACE = {
  slow: { anim: 600, linger: 1600 },
  normal: { anim: 320, linger: 1000 },
  fast: { anim: 150, linger: 450 },
  instant: { anim: 0, linger: 0 },
};

const data = {
  config: null,           // GET /api/config as the server sent it; null until it has answered
  configFailed: false,    // the last attempt to read it failed (it is tried again)
  settings: loadSettings(),
  profile: null,          // GET /api/profile
  me: null,               // GET /api/me: who the person is
  matchId: null,          // the table shown (its match's id)
  single: false,          // it is the person's own single-player match (the page at /, which resumes it)
  online: true,           // the WebSocket is open (or being opened for the first time)
  closed: null,           // the server refused the table for good: its error message
  state: null,            // the server's latest `state` of the table
  clockAt: 0,             // performance.now() when that state arrived (its clock counts from then)
  chat: [],               // the table's chat lines since the page opened it
  friends: null,          // the person's friends (GET /api/people: [{name, online, table}]); null until asked
  revealed: null,         // the exposures of the last closed exposure window, until play starts
  hand: [],               // South's hand as displayed (sorted codes)
  marks: new Map(),       // exposure phase: hand index -> kind
  selection: [],          // hand indices chosen towards a two-card play (two decks)
  choices: null,          // legal plays offered when a selection is ambiguous
  hints: null,            // null, "pending" or the server's ranking
  hintSource: null,       // who ranked the hints shown: "network" (the quick one) or "search" (the expert's)
  hintSearching: false,   // the expert's ranking was asked for and has not come
  showLast: false,        // the last trick is being reviewed (L)
  claimOpen: false,       // the menu of claims (声称) is open
  claimSpent: null,       // the deal (dealKey) in which this seat's claim was refused or withdrawn
  lingering: false,       // a finished trick is still shown
  fresh: new Set(),       // seats whose card arrived since the center was drawn: animate them
  trickCards: [],         // the cards played in the trick the server's messages are in
  cues: [],               // "won" / "lost": tricks with points ended since the sound last looked
  pending: false,         // an action was sent: nothing is playable until the server answers
                          // ("declare", "play" or "next": what was sent; false: nothing)
  summaryDismissed: false,
  nextTable: null,        // at an event's table played out: the address of the person's next table
  focus: 0,               // roving focus index in the hand
};

/** The page's state, read-only: change it through this module's update functions. */
export const page = new Proxy(data, {
  set(_, key) {
    throw new TypeError(`page.${String(key)} is changed through state.js's update functions`);
  },
  deleteProperty(_, key) {
    throw new TypeError(`page.${String(key)} is changed through state.js's update functions`);
  },
});

const listeners = [];

/** Call `listener(parts)` after every update; `parts` is a Set of the parts to draw again. */
export function subscribe(listener) {
  listeners.push(listener);
}

function changed(...parts) {
  const set = new Set(parts.length ? parts : ["all"]);
  for (const listener of listeners) listener(set);
}

// ---------------------------------------------------------------- derived queries

/** The match's speed (the server keeps it per match), else the remembered or default one. */
export function speed() {
  return speedOf(data.state);
}

function speedOf(s) {
  return s?.speed ?? data.settings.speed ?? data.config?.default_speed;
}

export function pace() {
  return PACE[speed()] ?? PACE.normal;
}

/** Whether cards move (the header's motion switch; settings.js says its default). */
export function motionOn() {
  return motionEnabled(data.settings);
}

/** Milliseconds a card takes to move now: the speed's, none at `instant` or with motion off. */
export function animMs() {
  return motionOn() ? pace().anim : 0;
}

/** Whether the table plays its sounds (the header's sound switch; off by default, settings.js). */
export function soundOn() {
  return soundEnabled(data.settings);
}

/** The speeds the server offers, by name. */
export function speedNames() {
  return Object.keys(data.config?.speeds ?? {});
}

/** The person's seat at the table, or null (a spectator, or no table yet). */
export function mySeat() {
  return data.state?.seat ?? null;
}

/** The seat drawn at the bottom of the screen: the person's, or South for a spectator. */
export function bottomSeat() {
  return mySeat() ?? "S";
}

/** Where `seat` is drawn: "bottom", "left", "top" or "right". */
export function positionOf(seat) {
  const from = AROUND.indexOf(bottomSeat());
  return POSITIONS[(AROUND.indexOf(seat) - from + 4) % 4];
}

/** The table's seat `seat` as the server describes it (name, title, computer, auto, connected), or null. */
export function seatInfo(seat) {
  return data.state?.table?.seats?.[seat] ?? null;
}

/** Whether a person sits at `seat`. */
export function personAt(seat) {
  return Boolean(seatInfo(seat)?.name);
}

/** Whether the person is the table's host. */
export function isHost() {
  return Boolean(data.state?.you?.host);
}

/** Whether the person's own seat is in 托管 (the computer plays it). */
export function myAuto() {
  const me = mySeat();
  return Boolean(me && (seatInfo(me)?.auto ?? data.state?.you?.auto));
}

/** Whether the table has more to it than one person against the computers: other people
 * seated or watching, a public table, or chat already said. */
export function sociable() {
  const s = data.state;
  if (!s?.table) return data.chat.length > 0;
  const persons = SEATS.filter((seat) => personAt(seat)).length;
  return s.table.visibility === "public" || persons > 1 || (s.table.spectators ?? 0) > 0 || data.chat.length > 0;
}

/** Whether the person may invite a friend to this table (docs/people.md): an account sitting at
 * (or hosting) a table for people that is not over; not a single-player match nor a challenge's. */
export function canInvite() {
  const s = data.state;
  if (!s?.table || data.single || data.closed || s.table.challenge || !s.table.host) return false;
  if (!data.profile?.account || !(s.seat || s.you?.host)) return false;
  return s.phase !== "match-over" && s.table.status !== "over";
}

/** The names whose chat lines the person muted (the setting `chatMutedPeople`). */
export function mutedPeople() {
  return new Set(Array.isArray(data.settings.chatMutedPeople) ? data.settings.chatMutedPeople : []);
}

/** Whether the table is the person's single-player match, alone against the computers (at / or
 * a challenge's, which is its entrant's alone): not called a private table, and nobody is its
 * host (there is nobody else to host). */
export function singlePlayer() {
  return (data.single || Boolean(data.state?.table?.challenge)) && !sociable();
}

/** The challenge whose boards the table plays ({id, url}; docs/web-protocol.md), or null. */
export function challengeOf() {
  return data.state?.table?.challenge ?? null;
}

/** Whether hints are offered: the person plays only against computers (fair play: the server
 * gives no hints at a table where another person plays), and not in a challenge (its boards are
 * played unaided). */
export function hintsOffered() {
  const me = mySeat();
  return Boolean(me) && !challengeOf() && !SEATS.some((seat) => seat !== me && personAt(seat));
}

export function myTurn() {
  const s = data.state;
  const me = mySeat();
  return Boolean(s && me && s.phase === "play" && s.turn === me);
}

/** The cards that belong to at least one legal play now. */
export function legalCards() {
  if (!myTurn() || data.pending) return new Set();
  return new Set((data.state.legal ?? []).flat());
}

/** The seats that have not declared their exposures yet (the exposure phase). */
export function undeclaredSeats() {
  const s = data.state;
  if (!s || s.phase !== "expose") return [];
  // `undeclared` leaves out the seats whose declaration is made but kept secret (`declared`).
  const secret = s.declared ?? [];
  return (s.undeclared ?? []).filter((seat) => !secret.includes(seat));
}

/** The person still has to declare their exposures. */
export function declaring() {
  const s = data.state;
  const me = mySeat();
  return Boolean(s && me && s.phase === "expose" && !s.my_declaration && undeclaredSeats().includes(me));
}

/** The server's clock: the seats it runs for, its kind and the seconds left now; null when none runs. */
export function clock() {
  const c = data.state?.clock;
  if (!c) return null;
  const left = Math.max(0, c.remaining - (performance.now() - data.clockAt) / 1000);
  return { kind: c.kind, seats: c.seats ?? [], total: c.total, remaining: left };
}

/** The exposure kinds the server allows for `code` now (none outside the person's declaration). */
export function exposableKinds(code) {
  if (!declaring()) return [];
  const entry = (data.state.exposable ?? []).find((e) => e.card === code);
  return entry ? entry.kinds ?? ["shown"] : [];
}

/** What the page shows as the phase (a finished deal's last trick is shown before its summary). */
export function displayedPhase() {
  const s = data.state;
  if (!s) return "setup";
  if (data.lingering && (s.phase === "deal-over" || s.phase === "match-over")) return "play";
  return s.phase;
}

/** Cards left in a seat's hand: every trick takes as many cards from each seat as from the person's. */
export function handCount(seat) {
  const s = data.state;
  if (s.cards_left && seat in s.cards_left) return s.cards_left[seat];
  const me = bottomSeat();
  const inTrick = (who) => (s.trick?.plays ?? []).filter((p) => p.seat === who).reduce((n, p) => n + p.cards.length, 0);
  return Math.max(0, (s.hand ?? []).length + inTrick(me) - inTrick(seat));
}

/**
 * Whether `seat` is the one the table waits for.  While the person has not declared their
 * exposures only they are shown deciding (against computer players they declare first,
 * docs/web-protocol.md); after that, every seat that has not declared.
 */
export function isThinking(seat) {
  const s = data.state;
  const phase = displayedPhase();
  if (phase === "play") return s.turn === seat;
  if (phase !== "expose") return false;
  if (declaring()) return seat === mySeat();
  return undeclaredSeats().includes(seat);
}

/** The trick the center shows, and whether it is a finished one. */
export function shownTrick() {
  const s = data.state;
  if (data.showLast && s.last_trick) return { trick: s.last_trick, finished: true };
  if (!(s.trick?.plays ?? []).length && data.lingering && s.last_trick) return { trick: s.last_trick, finished: true };
  return { trick: s.trick, finished: false };
}

/** How long the trick that the server's `next` state finishes stays shown (0: none ends). */
export function lingerAfter(next) {
  const prev = data.state;
  const ended = prev && !isNewDeal(prev, next) && next.tricks_played > prev.tricks_played && next.last_trick;
  if (!ended) return 0;
  return (PACE[speedOf(next)] ?? PACE.normal).linger;
}

/** Whether the server's state `next` (after `prev`) shows the action `pending` done, or the
 * table moved on without it: another seat's move meanwhile (a computer declaring at the same
 * time) leaves it pending, so that it is not sent twice. */
function answered(pending, prev, next) {
  if (isNewDeal(prev, next) || prev.seat !== next.seat) return pending !== "next" || next.phase !== "deal-over";
  if (pending === "declare") return next.phase !== "expose" || Boolean(next.my_declaration) || !(next.undeclared ?? []).includes(next.seat) || (next.declared ?? []).includes(next.seat);
  if (pending === "play") return next.phase !== "play" || next.turn !== next.seat || !sameCards(prev.hand, next.hand);
  return next.phase !== "deal-over";
}

function isNewDeal(prev, next) {
  return !prev || prev.deal_index !== next.deal_index || prev.match_id !== next.match_id;
}

function sameCards(a, b) {
  return (a ?? []).join() === (b ?? []).join();
}

// ---------------------------------------------------------------- updates

export function setConfig(config) {
  data.config = config;
  data.configFailed = false;
  setPointCards(config?.point_cards);
  changed();
}

export function configUnavailable() {
  data.configFailed = true;
  changed("center");
}

/** The person's friends (GET /api/people), for the invitation to a table. */
export function setFriends(friends) {
  data.friends = Array.isArray(friends) ? friends : [];
  changed("waiting", "chat");
}

export function setProfile(profile) {
  data.profile = profile;
  changed("header");
}

/** GET /api/me: who the person is. */
export function setMe(me) {
  data.me = me;
  changed("header");
}

/** Remember `patch` of the settings (the dialog's choices, the language, the speed). */
export function updateSettings(patch) {
  Object.assign(data.settings, patch);
  saveSettings(data.settings);
  changed("header", "chat");
}

/** Show table `matchId`: another table forgets the old one (and its chat), the same one keeps it
 * until its new state comes (a reconnection).  `remember`: it is the person's single-player match,
 * which the page at / resumes. */
export function showMatch(matchId, remember = true) {
  if (matchId !== data.matchId) {
    data.state = null;
    data.hand = [];
    data.chat = [];
    data.revealed = null;
    data.summaryDismissed = false;
    data.trickCards = [];
    data.cues = [];
  }
  data.matchId = matchId;
  data.single = remember;
  data.closed = null;
  if (remember) rememberMatch(matchId);
  changed();
}

/** The server refused the table for good (unknown, or not open to this person): `message` says why. */
export function tableClosed(message) {
  data.closed = message;
  data.online = true;
  changed();
}

export function setOnline(online) {
  data.online = online;
  // What was on its way may or may not have arrived: the state after the reconnection says,
  // and the person may act again meanwhile.
  if (!online) data.pending = false;
  changed("offline");
}

/** The person's next table of the event this table belongs to (next-table.js): its address; the
 * summary, where it is offered, opens again if the person had put it away. */
export function nextTableFound(url) {
  if (data.nextTable === url) return;
  data.nextTable = url;
  data.summaryDismissed = false;
  changed("summary");
}

/**
 * The server's new `state` of the table; `lingering`: its finished trick stays shown;
 * `at`: performance.now() when it arrived (its clock's seconds count from then).
 */
export function applyServerState(s, lingering = false, at = performance.now()) {
  const prev = data.state;
  const newDeal = isNewDeal(prev, s);
  if (newDeal) data.summaryDismissed = false;
  if (prev?.match_id !== s.match_id) data.nextTable = null;
  if (newDeal || prev.seat !== s.seat) data.marks.clear();
  if (newDeal || !sameCards(prev.hand, s.hand) || s.turn !== s.seat) {
    data.selection = [];
    data.choices = null;
    dropHints();
  }
  data.state = s;
  data.clockAt = at;
  data.hand = sortCards(s.hand ?? []);
  if (data.pending && answered(data.pending, prev, s)) data.pending = false;
  if (s.phase !== "play" || (s.tricks_played ?? 0) > 0 || (s.trick?.plays ?? []).length) data.revealed = null;
  // The exposure marks are keyed by hand position: once the person has declared they mean nothing
  // (the declared cards show as exposures), and kept they would wander onto other cards as the
  // hand shrinks.
  if (!declaring()) data.marks.clear();
  data.lingering = lingering;
  changed();
}

/** The exposure window closed: every seat's declaration at once (shown until play starts). */
export function noteRevealed(exposures) {
  data.revealed = exposures ?? [];
  changed("center");
}

/** A chat message of the table (kept as data: the view shows it as text only). */
export function chatReceived(msg) {
  data.chat.push({ from: msg.from ?? {}, text: msg.text ?? null, quick: msg.quick ?? null });
  if (data.chat.length > CHAT_LINES) data.chat.splice(0, data.chat.length - CHAT_LINES);
  changed("chat");
}

/** A second has passed: the clock is drawn again. */
export function tickClock() {
  if (data.state?.clock) changed("clock");
}

/** The finished trick has been shown long enough. */
export function endLinger() {
  data.lingering = false;
  changed();
}

/** A seat's card arrived: it flies in when the center is drawn next. */
export function notePlayed(seat, cards = []) {
  data.fresh.add(seat);
  data.showLast = false;
  data.trickCards.push(...cards);
}

/** A trick ended (the server's `trick` message, after its plays): one with point cards in it is a
 * cue, "won" when its taker is the person's side (the person, or the partner opposite when the
 * match scores by partners, option scoring=partners), else "lost".  Every trick is heard, those
 * of a deal played out at once (a claim, a deal that finished by itself) too. */
export function noteTrick(trick) {
  const points = data.trickCards.some(isPointCard);
  data.trickCards = [];
  const me = mySeat();
  if (!points || !me) return;
  const taker = trick.taker ?? trick.winner;
  const partner = data.state?.options?.scoring === "partners" ? SEATS[(SEATS.indexOf(me) + 2) % 4] : null;
  data.cues.push(taker === me || taker === partner ? "won" : "lost");
}

/** The trick cues since the last call (sound.js plays them). */
export function takeCues() {
  const cues = data.cues;
  data.cues = [];
  return cues;
}

/** The seats whose card arrived since the last call (the center draws them flying in). */
export function takeFresh() {
  const fresh = new Set(data.fresh);
  data.fresh.clear();
  return fresh;
}

/** The server refused the last action: it may be tried again (a hint asked for is not coming;
 * the quick ranking shown stays, no longer awaiting the expert's). */
export function actionRefused() {
  if (data.hints === "pending") {
    dropHints();
    changed("hints", "hand");
  } else if (data.hintSearching) {
    data.hintSearching = false;
    changed("hints");
  }
  if (!data.pending) return;
  data.pending = false;
  changed("hand");
}

/** The person's declaration was sent: no second one until the server answers. */
export function declarationSent() {
  data.pending = "declare";
  changed("controls");
}

/** The next deal was asked for: not again until the server answers. */
export function nextSent() {
  data.pending = "next";
}

/** The person's play was sent: the selection is done with, nothing is playable until the server answers. */
export function playSent() {
  data.selection = [];
  data.choices = null;
  data.pending = "play";
  changed("hand", "controls");
}

/** Mark hand card `i` for exposure as `kind` (undefined: unmark it). */
export function setMark(i, kind) {
  if (kind === undefined) data.marks.delete(i);
  else data.marks.set(i, kind);
  changed();
}

/** Hand indices chosen towards a play, and the legal plays offered for them (or null). */
export function select(selection, choices) {
  data.selection = selection;
  data.choices = choices;
  changed();
}

export function clearSelection() {
  data.selection = [];
  data.choices = null;
  changed("hand", "controls");
}

/** Hints were asked for the position on the table now: the network's (quick) and the expert's. */
export function hintAsked() {
  data.hints = "pending";
  data.hintSource = null;
  data.hintSearching = true;
  changed("hints");
}

/**
 * The server's hint message (`source` "network" or "search").  One that ranks another position
 * than the table's is dropped, and so is one nobody waits for; the expert's ranking replaces the
 * network's, never the other way round.
 */
export function hintAnswered(msg) {
  const s = data.state;
  if (!s || msg.deal_index !== s.deal_index || msg.hand_size !== s.hand.length) return;
  const source = msg.source === "network" ? "network" : "search";
  const awaited = data.hints === "pending" || (source === "search" && data.hintSource === "network");
  if (!awaited) return;
  data.hints = Array.isArray(msg.hints) ? msg.hints : [];
  data.hintSource = source;
  if (source === "search") data.hintSearching = false;
  changed("hints", "hand");
}

export function closeHints() {
  dropHints();
  changed("hints", "hand");
}

function dropHints() {
  data.hints = null;
  data.hintSource = null;
  data.hintSearching = false;
}

/** Review the last trick (L), or stop reviewing it. */
export function toggleLastTrick() {
  if (!data.state?.last_trick) return;
  data.showLast = !data.showLast;
  changed("center", "controls");
}

/** Open or close the menu of claims (声称, R5.4). */
export function toggleClaimMenu(open = !data.claimOpen) {
  data.claimOpen = open;
  changed("controls");
}

/** Which deal of which match `state` shows: "m-…:3". */
export function dealKey(state) {
  return state ? `${state.match_id}:${state.deal_index}` : null;
}

/** This seat's claim of the deal `key` (dealKey) was refused or withdrawn: a seat claims once a deal. */
export function claimSpent(key) {
  data.claimSpent = key;
  changed("controls");
}

/** The deal's summary is put away (closed, or the next deal asked for). */
export function dismissSummary() {
  data.summaryDismissed = true;
  changed("summary");
}

export function reopenSummary() {
  data.summaryDismissed = false;
  changed("summary");
}

/** The hand card that has the roving focus (bookkeeping: draws nothing). */
export function setFocus(i) {
  data.focus = i;
}
