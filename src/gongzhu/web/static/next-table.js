// At an event's table whose boards are all played (match-over at a table of an event: its
// challenge's address is /event/{id}), where the person sits next: the event is read
// (GET /api/events/{id}) when the lobby's socket (/ws/lobby) opens and again at each of its news
// of a stage of that event begun ({"type": "event", "id", "stage"}: the server sends it to the
// event's own people); a table other than this one found, the summary offers it, opened again if
// it was put away (state.js: nextTable, view-summary.js: #summary-next-table).  The socket closes
// once the page shows another table or phase, or the event is over.
//
// May import: state.js, socket.js.

import { ReconnectingSocket, socketAddress } from "./socket.js";
import { challengeOf, displayedPhase, mySeat, nextTableFound, page } from "./state.js";

let watching = null; // {eventId, matchId, socket} while a next table is looked for

/** After every update: watch for the person's next table while the table's boards are played. */
export function watchNextTable() {
  const challenge = challengeOf();
  const matchId = page.state?.match_id ?? null;
  const eventId = challenge?.url?.startsWith("/event/") && mySeat() && displayedPhase() === "match-over"
    ? challenge.id : null;
  if (watching && (watching.eventId !== eventId || watching.matchId !== matchId)) {
    watching.socket.close();
    watching = null;
  }
  if (!eventId || watching) return;
  const here = `/table/${matchId}`;
  const read = async () => {
    try {
      const res = await fetch(`/api/events/${encodeURIComponent(eventId)}`, { cache: "no-store" });
      if (!res.ok) return;
      const event = await res.json();
      if (watching?.matchId !== matchId) return;
      const url = event.me?.now?.url;
      if (url && url !== here) nextTableFound(url);
      if (event.status === "over") watching.socket.close(); // no stage left: nothing more to hear
    } catch {
      // Not reachable now: the next news (or the socket opening again) reads it again.
    }
  };
  watching = {
    eventId,
    matchId,
    socket: new ReconnectingSocket(() => socketAddress("/ws/lobby"), {
      onOpen: read,
      onMessage: (msg) => { if (msg.type === "event" && msg.id === eventId) read(); },
    }),
  };
}
