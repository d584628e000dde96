// A WebSocket to the server that opens again by itself after a drop, less and less often (half
// a second at first, twice as long each time, 8 s at most; an open connection starts the waits
// short again): the table page's connection (connection.js) and the lobby's (lobby.js, and event.js
// for its news).  Each
// message is read as JSON (one that is not is dropped); a socket that has been replaced or
// closed on purpose says nothing more.
//
// May import: nothing.

const FIRST_WAIT_MS = 500;
const LONGEST_WAIT_MS = 8000;

/** The WebSocket address of `path` on this page's server (wss: under https:). */
export function socketAddress(path) {
  const proto = location.protocol === "https:" ? "wss" : "ws";
  return `${proto}://${location.host}${path}`;
}

/**
 * Keep a WebSocket to `url()` open (asked again at each connection, e.g. for `?since=V`).
 * `onOpen()` runs when a connection opens, `onMessage(msg)` for each message, and
 * `onClose(event)` when one closes: returning false leaves it closed, a promise is waited for
 * before the pause that precedes the next try, anything else just tries again after the pause.
 */
export class ReconnectingSocket {
  constructor(url, { onOpen = () => {}, onMessage, onClose = () => undefined }) {
    this.url = url;
    this.handlers = { onOpen, onMessage, onClose };
    this.wait = FIRST_WAIT_MS;
    this.socket = null;
    this.open();
  }

  get isOpen() {
    return Boolean(this.socket && this.socket.readyState === WebSocket.OPEN);
  }

  send(text) {
    this.socket.send(text);
  }

  /** Close it for good: it does not open again. */
  close() {
    const socket = this.socket;
    this.socket = null;
    socket?.close();
  }

  open() {
    const socket = new WebSocket(this.url());
    this.socket = socket;
    socket.addEventListener("open", () => {
      this.wait = FIRST_WAIT_MS;
      this.handlers.onOpen();
    });
    socket.addEventListener("message", (ev) => {
      if (this.socket !== socket) return;
      let msg;
      try {
        msg = JSON.parse(ev.data);
      } catch {
        return;
      }
      this.handlers.onMessage(msg);
    });
    socket.addEventListener("close", (ev) => {
      if (this.socket !== socket) return;
      const wait = this.wait;
      this.wait = Math.min(this.wait * 2, LONGEST_WAIT_MS);
      const next = this.handlers.onClose(ev);
      if (next === false) {
        this.socket = null;
        return;
      }
      const again = () => setTimeout(() => { if (this.socket === socket) this.open(); }, wait);
      if (next instanceof Promise) next.catch(() => {}).finally(again);
      else again();
    });
  }
}
