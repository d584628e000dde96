// The waiting table (phase "waiting", before the host starts the match): the four seats with
// who sits there (a person's name, a guest's in the page's language, and title, or the computer
// level that plays it if nobody does), a Sit button on each free seat for a person not seated
// yet, a Stand button on the person's own seat, the host's Start button, and a private table's
// invitation link for those the server gives it to.  Clicks go to the handlers given to
// initWaiting.
//
// May import: state.js, dom.js, i18n.js.

import { $, button, el, span } from "./dom.js";
import { levelLabel, personName, seatName, t, titleLabel } from "./i18n.js";
import { displayedPhase, isHost, mySeat, page, personAt, SEATS, seatInfo, singlePlayer } from "./state.js";

let handlers = { onSit: () => {}, onStand: () => {} };

/** `onSit(seat)`: a free seat's Sit button; `onStand()`: the person's Stand button. */
export function initWaiting(h) {
  handlers = { ...handlers, ...h };
}

export function renderWaiting() {
  const box = $("waiting");
  const s = page.state;
  const waiting = Boolean(s) && displayedPhase() === "waiting";
  box.hidden = !waiting;
  $("table-start").hidden = !(waiting && isHost());
  if (!waiting) return;
  const me = mySeat();
  const list = $("waiting-seats");
  list.replaceChildren();
  for (const seat of SEATS) {
    const info = seatInfo(seat) ?? {};
    const row = el("li", seat === me ? "mine" : "");
    row.dataset.seat = seat;
    row.append(el("strong", "", seat === me ? t("seat.you", { seat: seatName(seat) }) : seatName(seat)));
    if (info.name) {
      const who = span("name", personName(info.name));
      who.dataset.name = info.name;  // as stored (a guest's 游客4821 in English too)
      row.append(who);
      if (info.title) row.append(span("title", titleLabel(info.title)));
      if (info.name === s.table?.host && !singlePlayer()) row.append(span("mark host", t("seat.host")));
    } else if (info.computer) {
      row.append(span("level", t("seat.computer", { level: levelLabel(info.computer) })));
    } else {
      row.append(span("level empty", t("seat.empty")));
    }
    if (seat === me) {
      row.append(button("stand", t("btn.stand"), () => handlers.onStand()));
    } else if (!me && !personAt(seat)) {
      const sit = button("sit", t("btn.sit"), () => handlers.onSit(seat));
      sit.dataset.sit = seat;
      row.append(sit);
    }
    list.append(row);
  }
  let note;
  if (isHost()) note = t("waiting.hostNote");
  else note = t("waiting.note", { host: personName(s.table?.host ?? "") });
  $("waiting-note").textContent = note;
  const invite = s.table?.invite;
  $("invite").hidden = !invite;
  if (invite) {
    const url = `${location.origin}/table/${encodeURIComponent(s.table.id ?? page.matchId)}?invite=${encodeURIComponent(invite)}`;
    if ($("invite-url").value !== url) $("invite-url").value = url;
  }
}
