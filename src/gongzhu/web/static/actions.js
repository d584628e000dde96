// What the person's clicks mean, turned into messages to the server: a hand card (an exposure
// mark in the exposure phase; in play the legal play it picks out, one card at a time for
// two-deck pairs), the declaration, the next deal, the last-trick review, the speed, the replay
// of the deal just played and the review of the person's seat in it (复盘); at a table of
// several people: taking a seat, leaving it, starting the match (the host), having a person leave
// a seat before the start (the host's 请离座 / Remove), 托管 and taking the seat back, inviting a
// friend to the table (GET /api/people for the friends, POST /api/tables/{id}/invite), the chat,
// its mute switch and the people muted in it.  The only local logic is which of the server's legal
// plays a click means; the server decides every rule and who may do what.
//
// May import: state.js, connection.js, dom.js, cards.js, i18n.js, replay.js.

import { prettyCard } from "./cards.js";
import { hurry, isOpen, send } from "./connection.js";
import { refusalNote, toast } from "./dom.js";
import { personName, refusalNodes, t, tNodes } from "./i18n.js";
import { showReplay } from "./replay.js";
import {
  clearSelection, declarationSent, declaring, dismissSummary, exposableKinds, hintsOffered, myAuto, mySeat,
  mutedPeople, myTurn, nextSent, page, playSent, select, setFocus, setFriends, setMark, sociable, toggleClaimMenu,
  updateSettings,
} from "./state.js";

// How many plays are offered as buttons when a two-deck selection is ambiguous.
const MAX_CHOICES = 8;

/** Hand card `i` (an index into page.hand) was clicked or pressed. */
export function onCard(i) {
  const s = page.state;
  if (!s || !mySeat()) return;
  const code = page.hand[i];
  setFocus(i);
  if (s.phase === "expose") return toggleExposure(i, code);
  // A click while the page waits (another seat's turn, the trick's pause, the server's answer
  // to the play just sent) is an impatient click, not a mistake: it is ignored quietly (the
  // status line says whose turn it is).
  if (s.phase !== "play" || !myTurn() || page.pending) return;
  choosePlay(i, code);
}

/** Exposure phase: a click cycles through the kinds the server allows for that card, then off. */
function toggleExposure(i, code) {
  const kinds = exposableKinds(code);
  if (!declaring() || page.pending) return; // declared already: the others are deciding
  if (!kinds.length) return refusalNote(t("msg.notExposable", { card: prettyCard(code) }));
  const now = page.marks.get(i);
  setMark(i, now === undefined ? kinds[0] : kinds[kinds.indexOf(now) + 1]);
}

/** End the exposure phase: declare the marked cards (the 亮出所选 button), or none (不亮). */
export function declare() {
  if (!declaring() || page.pending) return;
  const entries = [...page.marks.entries()].sort((a, b) => a[0] - b[0]);
  if (send({ type: "expose", cards: entries.map(([i]) => page.hand[i]), kinds: entries.map(([, k]) => k) })) {
    declarationSent();
  }
}

function contains(play, cards) {
  const rest = [...play];
  for (const c of cards) {
    const k = rest.indexOf(c);
    if (k < 0) return false;
    rest.splice(k, 1);
  }
  return true;
}

/**
 * Which legal play a click means.  One deck: the card itself.  Two decks: a card can start a
 * pair, so clicking both copies plays the pair, clicking the same card twice plays the single,
 * and two-card answers to a pair lead are chosen one card at a time (or from the offered plays).
 */
function choosePlay(i, code) {
  const legal = page.state.legal ?? [];
  if (page.selection.includes(i)) {
    const single = legal.find((p) => p.length === 1 && p[0] === code);
    if (page.selection.length === 1 && single && page.choices) return sendPlay(single);
    return select(page.selection.filter((k) => k !== i), null);
  }
  let selection = [...page.selection, i];
  let cards = selection.map((k) => page.hand[k]);
  let candidates = legal.filter((p) => contains(p, cards));
  if (!candidates.length && selection.length > 1) {
    selection = [i];
    cards = [code];
    candidates = legal.filter((p) => contains(p, cards));
  }
  if (!candidates.length) {
    // Not legal: let the rules core say why (the server answers with an error, nothing changes).
    clearSelection();
    if (!send({ type: "play", cards: [code] })) refusalNote(t("msg.illegal", { card: prettyCard(code) }));
    return;
  }
  // Only one legal play contains the chosen cards: that is the play (e.g. the pair a pair
  // lead forces).  Otherwise keep the selection and offer the plays it can still become.
  if (candidates.length === 1) return sendPlay(candidates[0]);
  select(selection, [...candidates].sort((a, b) => a.length - b.length).slice(0, MAX_CHOICES));
}

/** Claim (声称, R5.4): `kind` all_tricks, no_points, or score with `value` (the raw score claimed);
 * the server checks it and answers with the claim's event, or a refusal saying why. */
export function sendClaim(kind, value = null) {
  toggleClaimMenu(false);
  send(kind === "score" ? { type: "claim", kind, value } : { type: "claim", kind });
}

/** The answer to a claim put to this person (the tournament preset): accept it, or contest it. */
export function answerClaim(accept) {
  send({ type: "claim_answer", accept });
}

/** Play `cards` (one of the legal plays). */
export function sendPlay(cards) {
  if (page.pending || !myTurn()) return; // sent already (a double click on an offered play)
  hurry();
  if (send({ type: "play", cards })) playSent();
  else clearSelection();
}

/**
 * What the page does by itself after every update, so that no click is needless: in the exposure
 * phase, when the person holds nothing they may expose, alone with computer players at a private
 * table, the empty declaration is sent (where other people sit or watch it waits for the click or
 * S: declaring at once would tell them the hand holds none of ♠Q ♦J ♣10 ♥A).  A forced last trick
 * needs nothing from the page: the server plays out a deal whose remaining plays are all forced
 * (R5.4) together with the play that made them so.
 */
export function actByItself() {
  if (nothingToDeclare()) queueMicrotask(() => { if (nothingToDeclare()) declare(); });
}

/** Whether the page declares by itself now: the person has to declare, holds nothing to expose
 * and plays alone against computer players at a private table nobody watches (not in 托管:
 * then the computer declares). */
function nothingToDeclare() {
  return declaring() && !page.pending && isOpen() && !myAuto() && !(page.state.exposable ?? []).length
    && hintsOffered() && !sociable();
}

/** After a deal: put the summary away and deal the next one (a seated person asks for it). */
export function nextDeal() {
  if (page.state?.phase !== "deal-over") return;
  if (!mySeat()) return dismissSummary();
  hurry();
  dismissSummary();
  // Asked once: a second N (or click) before the new deal comes is not sent again.
  if (page.pending) return;
  if (send({ type: "next" })) nextSent();
}

/** Show the replay of the deal just played (its R11 record from the server); with `review`,
 * the review of the person's seat (South for a spectator) is asked for at once. */
async function openThisDeal(review) {
  const s = page.state;
  const url = s.deal_result?.record_url ?? `/api/matches/${encodeURIComponent(s.match_id)}/deals/${s.deal_index}`;
  try {
    const res = await fetch(url);
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    showReplay(await res.json(), { title: t("replay.titleDeal", { n: s.deal_index + 1 }), seat: mySeat() ?? "S", review });
  } catch {
    toast(t("msg.noRecord"), true);
  }
}

/** The summary's 回放本副 / Replay button. */
export function replayThisDeal() {
  return openThisDeal(false);
}

/** The summary's 复盘 / Review button: the replay with the review of the person's seat. */
export function reviewThisDeal() {
  return openThisDeal(true);
}

/** The header's speed: remembered, and sent to the server for the match being played (the host's). */
export function changeSpeed(speed) {
  updateSettings({ speed });
  if (isOpen() && page.state?.you?.host !== false) send({ type: "settings", speed });
}

/** Take seat `seat` (a free one: a computer plays it). */
export function sit(seat) {
  send({ type: "sit", seat });
}

/** Leave the person's seat: its computer player takes it over. */
export function stand() {
  send({ type: "stand" });
}

/** The host, before the start: the person at `seat` leaves it and may not sit at this table again. */
export function removeFrom(seat) {
  send({ type: "remove", seat });
}

/** The person's friends (GET /api/people; a guest has none), for the invitation to the table. */
export async function loadFriends() {
  try {
    const res = await fetch("/api/people", { credentials: "same-origin" });
    if (!res.ok) return;
    const data = await res.json();
    setFriends(data.account ? data.friends : []);
  } catch {
    // Not reachable: the list stays as it was.
  }
}

/** Invite the friend `name` to this table; the toast says it was sent, or why not. */
export async function inviteFriend(name) {
  const id = page.state?.table?.id ?? page.matchId;
  if (!name || !id) return;
  try {
    const res = await fetch(`/api/tables/${encodeURIComponent(id)}/invite`, {
      method: "POST", credentials: "same-origin",
      headers: { "Content-Type": "application/json" }, body: JSON.stringify({ name }),
    });
    if (res.ok) toast(tNodes("people.invited", { name: personName(name) }));  // the name isolated
    else toast(refusalNodes({ body: await res.json().catch(() => null), status: res.status }), true);
  } catch {
    toast(t("msg.offline"), true);
  }
}

/** The host starts the match: the empty seats get their computer players. */
export function startTable() {
  send({ type: "start" });
}

/** Put the person's seat into 托管: the computer plays it until it is taken back. */
export function autoPlay() {
  send({ type: "auto" });
}

/** Take the seat back from 托管: play again yourself. */
export function takeBack() {
  hurry();
  send({ type: "takeback" });
}

/** 再来一局 at a table of several people: the server makes the next table and says where. */
export function playAgain() {
  send({ type: "again" });
}

/** Say `text` at the table (1 to 120 characters); true when it was sent. */
export function sendChat(text) {
  const said = [...text.trim()].slice(0, 120).join("");
  if (!said) return false;
  return send({ type: "chat", text: said });
}

/** Say one of the catalog's quick phrases (`chat.quick.*`). */
export function sendQuick(key) {
  send({ type: "chat", quick: key });
}

/** The chat's mute switch, remembered in the settings. */
export function muteChat(muted) {
  updateSettings({ chatMuted: Boolean(muted) });
}

/** Mute (or unmute) the chat lines of the person `name`, remembered in the settings
 * (`chatMutedPeople`): a muted person's lines are not shown. */
export function mutePerson(name, muted) {
  const names = mutedPeople();
  if (muted) names.add(name);
  else names.delete(name);
  updateSettings({ chatMutedPeople: [...names] });
}

