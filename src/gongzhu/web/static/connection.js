// The table's connection to the server and the pace of what it shows: the WebSocket
// /ws/{table}[?since=V][&invite=TOKEN] (docs/web-protocol.md), reconnecting less and less
// often while it is down (the page says it is reconnecting), sending the person's messages,
// and the queue that lets each incoming `state` be seen: a finished trick stays on the table for
// the speed's pause before the next state is shown, and any action of the person cuts that
// pause short.
//
// Every message of the table carries its version `v`; the connection keeps the last one seen
// and reconnects with `since=V`, so the server sends only what was missed (in order, through
// the same queue), or one whole `state` when it no longer has it.  Errors and hints are
// answered at once, outside the queue (a refusal of the rules core beside the status line, dom.js:
// refusalNote; the server's own in the toast); a hint that ranks a position the table has left is
// dropped (state.js).  Chat lines are shown as they come.
//
// May import: state.js, dom.js, i18n.js, socket.js.

import { refusalNote, toast } from "./dom.js";
import { claimWhat, refusalNodes, refusalText, seatList, seatName, t } from "./i18n.js";
import { ReconnectingSocket, socketAddress } from "./socket.js";
import {
  actionRefused, applyServerState, chatReceived, endLinger, hintAnswered, hintAsked, hintsOffered, lingerAfter,
  claimSpent, dealKey, mySeat, myTurn, noteRevealed, notePlayed, noteTrick, page, setOnline, showMatch, tableClosed,
} from "./state.js";

// Close codes after which asking again cannot help: an unknown table, or one this person may not see.
const FINAL = new Set([4403, 4404]);
// The server did not know the person's session: GET /api/me makes one, then the table is asked again.
const NO_SESSION = 4401;

let ws = null;         // the table's ReconnectingSocket
let target = null;     // {tableId, invite}: the table being shown
let lastV = null;      // the newest version seen of that table
let queue = [];        // server messages waiting their turn (see drain), with their arrival time
let draining = false;
let cutPause = null;   // ends the pause after a finished trick early
let lastError = "";    // the last error the server sent on this connection (said when it closes for good)

/**
 * Open table `tableId` (closing any other), and keep it open.  `invite`: the token of a
 * private table's invitation link; `remember`: the single-player page resumes this table.
 */
export function connect(tableId, { invite = null, remember = true } = {}) {
  if (ws) {
    ws.close();  // for good: it does not reconnect
    ws = null;
  }
  if (tableId !== page.matchId) {
    queue = [];
    lastV = null;
  }
  target = { tableId, invite };
  showMatch(tableId, remember);
  ws = new ReconnectingSocket(socketUrl, {
    onOpen: () => {
      lastError = "";
      setOnline(true);
    },
    onMessage: (msg) => receive(msg, performance.now()),
    onClose: dropped,
  });
}

function socketUrl() {
  const query = new URLSearchParams();
  if (lastV !== null) query.set("since", String(lastV));
  if (target.invite) query.set("invite", target.invite);
  const q = query.toString();
  return socketAddress(`/ws/${encodeURIComponent(target.tableId)}${q ? `?${q}` : ""}`);
}

/** The connection dropped: false (it stays closed) when asking again cannot help; else it is
 * asked again (ReconnectingSocket), after GET /api/me where the server did not know the session. */
function dropped(ev) {
  if (FINAL.has(ev.code)) {
    ws = null;
    tableClosed(lastError || t("table.gone"));
    return false;
  }
  setOnline(false);
  // The server keeps the table (it survives restarts): try again, less and less often.
  return ev.code === NO_SESSION ? fetch("/api/me") : undefined;
}

export function isOpen() {
  return Boolean(ws && ws.isOpen);
}

/** Send `msg`; false (and a toast saying so) when the connection is down. */
export function send(msg) {
  if (isOpen()) {
    ws.send(JSON.stringify(msg));
    return true;
  }
  toast(t("msg.offline"), true);
  return false;
}

/** Ask the server to rank the person's legal plays (only on their turn): the network's ranking,
 * answered at once, and the expert's search, which replaces it when it comes. */
export function requestHint() {
  if (!myTurn() || !hintsOffered()) return;
  hintAsked();
  if (send({ type: "hint", quick: true })) send({ type: "hint" });
}

/** Cut a trick's display short: the person has acted and wants to see the answer. */
export function hurry() {
  if (cutPause) cutPause();
}

// Errors and hints answer the person at once, and so do chat lines; everything else is paced
// through the queue, in the order the server sent it.
function receive(msg, at) {
  if (typeof msg.v === "number" && (lastV === null || msg.v > lastV)) lastV = msg.v;
  if (msg.type === "error") {
    actionRefused();
    // A claim left undecided or overtaken spends it as a refused one does, and a second one says it was spent
    // (a page loaded again after spending it learns so here): 声称 hides until the next deal.
    if (["server.claim_undecided", "server.claim_used", "server.claim_overtaken"].includes(msg.code)) {
      claimSpent(dealKey(page.state));
    }
    // A refusal of the message catalog is rendered in the page's language from its code.
    const refusal = { body: { code: msg.code, params: msg.params, message_zh: msg.message_zh, error: msg.message ?? "" } };
    lastError = refusalText(refusal);
    // The rules core refusing the card or the exposures just chosen: said beside the status line,
    // where the person looks; anything else (the server's own refusals) in the toast, a name
    // among its parameters isolated (server.name_changed: "你的名字已改为 ناصر：…").
    if (String(msg.code ?? "").startsWith("refusal.")) refusalNote(lastError);
    else toast(refusalNodes(refusal), true);
  } else if (msg.type === "hint") {
    hintAnswered(msg);
  } else if (msg.type === "chat") {
    chatReceived(msg);
  } else if (msg.type === "claim") {
    toast(claimText(msg), msg.accepted === false);  // a seat's claim (声称) and what became of it
    if (msg.accepted === false && msg.seat === mySeat()) claimSpent(dealKey(page.state));
  } else if (msg.type === "again") {
    location.assign(msg.url);  // 再来一局: the next table, the same people in their seats
  } else {
    queue.push({ msg, at });
    drain();
  }
}

/** "北声称：其余各圈都归我 —— 成立…" in the page's language: a claim decided by the server,
 * or put to the others (the tournament preset) and what they answered. */
function claimText(msg) {
  const said = { seat: seatName(msg.seat), what: claimWhat(msg) };
  if (msg.vote) return t("claim.put", { ...said, voters: seatList(msg.vote) });
  if (msg.accepted_by) return t("claim.accepted_by", { ...said, by: seatName(msg.accepted_by) });
  if (msg.contested) return t("claim.contested", { ...said, by: seatName(msg.contested) });
  if (msg.unanswered) return t("claim.unanswered", said);
  if (msg.agreed) return t("claim.agreed", said);
  return t(msg.accepted ? "claim.accepted" : "claim.refused", said);
}

async function drain() {
  if (draining) return;
  draining = true;
  while (queue.length) {
    const { msg, at } = queue.shift();
    if (msg.type === "state") await showState(msg.state, at);
    else if (msg.type === "played") notePlayed(msg.seat, msg.cards);
    else if (msg.type === "trick") noteTrick(msg);  // a cue; the state that follows carries last_trick
    else if (msg.type === "revealed") noteRevealed(msg.exposures);
  }
  draining = false;
}

/**
 * Show the server's state; a finished trick stays in the middle for the speed's pause, unless a
 * later state is already waiting (the page is catching up, e.g. after a reconnection).
 */
async function showState(s, at) {
  const behind = queue.some((q) => q.msg.type === "state");
  const linger = behind ? 0 : lingerAfter(s);
  applyServerState(s, linger > 0, at);
  if (linger > 0) {
    await pause(linger);
    endLinger();
  }
}

function pause(ms) {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      cutPause = null;
      resolve();
    };
    const timer = setTimeout(done, ms);
    cutPause = done;
  });
}
