// The table's connection to the server and the pace of what it shows: the WebSocket
// /ws/{match} (docs/web-protocol.md), reconnecting less and less often while it is down,
// sending South's messages, and the queue that lets each incoming `state` be seen: a finished
// trick stays on the table for the speed's pause before the next state is shown, and any
// action of the person cuts that pause short.  Errors and hints are answered at once, outside
// the queue; a hint that ranks a position the table has left is dropped (state.js).
//
// May import: state.js, dom.js, i18n.js.

import { toast } from "./dom.js";
import { getLang, hasText, t } from "./i18n.js";
import {
  actionRefused, applyServerState, endLinger, hintAnswered, hintAsked, lingerAfter, myTurn, notePlayed, page,
  setOnline, showMatch,
} from "./state.js";

let ws = null;
let reconnectDelay = 500;
let queue = [];        // server messages waiting their turn (see drain)
let draining = false;
let cutPause = null;   // ends the pause after a finished trick early

/** Open the table of match `matchId` (closing any other), and keep it open. */
export function connect(matchId) {
  if (ws) {
    const old = ws;
    ws = null; // so that its close handler does not reconnect
    old.close();
  }
  if (matchId !== page.matchId) queue = [];
  showMatch(matchId);
  const proto = location.protocol === "https:" ? "wss" : "ws";
  const socket = new WebSocket(`${proto}://${location.host}/ws/${encodeURIComponent(matchId)}`);
  ws = socket;
  socket.addEventListener("open", () => {
    reconnectDelay = 500;
    setOnline(true);
  });
  socket.addEventListener("message", (ev) => {
    let msg;
    try {
      msg = JSON.parse(ev.data);
    } catch {
      return;
    }
    receive(msg);
  });
  socket.addEventListener("close", () => {
    if (ws !== socket) return;
    setOnline(false);
    // The server keeps the match (it survives restarts): try again, less and less often.
    setTimeout(() => { if (ws === socket) connect(matchId); }, reconnectDelay);
    reconnectDelay = Math.min(reconnectDelay * 2, 8000);
  });
}

export function isOpen() {
  return Boolean(ws && ws.readyState === WebSocket.OPEN);
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

/** Ask the server to rank South's legal plays (only on South's turn). */
export function requestHint() {
  if (!myTurn()) return;
  hintAsked();
  send({ type: "hint" });
}

/** Cut a trick's display short: the person has acted and wants to see the answer. */
export function hurry() {
  if (cutPause) cutPause();
}

// Errors and hints answer the person at once; everything else is paced through the queue.
function receive(msg) {
  if (msg.type === "error") {
    actionRefused();
    // A refusal of the message catalog is rendered in the page's language from its code.
    if (hasText(msg.code)) toast(t(msg.code, msg.params ?? {}), true);
    else toast(getLang() === "zh" && msg.message_zh ? msg.message_zh : msg.message, true);
  } else if (msg.type === "hint") {
    hintAnswered(msg);
  } else {
    queue.push(msg);
    drain();
  }
}

async function drain() {
  if (draining) return;
  draining = true;
  while (queue.length) {
    const msg = queue.shift();
    if (msg.type === "state") await showState(msg.state);
    else if (msg.type === "played") notePlayed(msg.seat);
    // "trick" needs nothing here: the state that follows it carries last_trick.
  }
  draining = false;
}

/** Show the server's state; a finished trick stays in the middle for the speed's pause. */
async function showState(s) {
  const linger = lingerAfter(s);
  applyServerState(s, linger > 0);
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
