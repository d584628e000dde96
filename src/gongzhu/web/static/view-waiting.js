// The waiting table (phase "waiting", before the host starts the match): the four seats with
// who sits there (a person's name, a guest's in the page's language, and title, or the computer
// level that plays it if nobody does), a Sit button on each free seat for a person not seated
// yet, a Stand button on the person's own seat, the host's 请离座 / Remove button on each seat
// another person holds (they leave it and may not sit at this table again), the host's Start
// button, and a private table's invitation link for those the server gives it to.  Also the
// 邀请好友 / Invite a friend form (state.js: canInvite; the person's friends, online first): in the
// waiting section while the table waits, moved into the chat panel while it plays.  Clicks go to
// the handlers given to initWaiting.
//
// May import: state.js, dom.js, i18n.js.

import { $, button, el, span } from "./dom.js";
import { isolatedText, levelLabel, nameEl, personName, seatName, t, tNodes, titleLabel } from "./i18n.js";
import {
  canInvite, displayedPhase, isHost, mySeat, page, personAt, SEATS, seatInfo, singlePlayer,
} from "./state.js";

let handlers = { onSit: () => {}, onStand: () => {}, onRemove: () => {}, onInvite: () => {}, onFriends: () => {} };

/** `onSit(seat)`: a free seat's Sit button; `onStand()`: the person's Stand button;
 * `onRemove(seat)`: the host's Remove button; `onInvite(name)`: the invitation form;
 * `onFriends()`: the friends list is about to be used (asked for again). */
export function initWaiting(h) {
  handlers = { ...handlers, ...h };
  $("invite-friend").addEventListener("submit", (ev) => {
    ev.preventDefault();
    handlers.onInvite($("invite-friend-name").value);
  });
  $("invite-friend-name").addEventListener("focus", () => handlers.onFriends());
}

export function renderWaiting() {
  const box = $("waiting");
  const s = page.state;
  const waiting = Boolean(s) && displayedPhase() === "waiting";
  box.hidden = !waiting;
  $("table-start").hidden = !(waiting && isHost());
  renderInviteFriend(waiting);
  if (!waiting) return;
  const me = mySeat();
  const host = isHost();
  const list = $("waiting-seats");
  list.replaceChildren();
  for (const seat of SEATS) {
    const info = seatInfo(seat) ?? {};
    const row = el("li", seat === me ? "mine" : "");
    row.dataset.seat = seat;
    row.append(el("strong", "", seat === me ? t("seat.you", { seat: seatName(seat) }) : seatName(seat)));
    if (info.name) {
      const who = nameEl(info.name, "name");  // a <bdi> of its own
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
    } else if (host && info.name) {
      const remove = button("remove", t("people.removeSeat"), () => handlers.onRemove(seat));
      remove.dataset.remove = seat;
      remove.title = t("people.removeSeatTitle", { name: isolatedText(personName(info.name)) });
      row.append(remove);
    } else if (!me && !personAt(seat)) {
      const sit = button("sit", t("btn.sit"), () => handlers.onSit(seat));
      sit.dataset.sit = seat;
      row.append(sit);
    }
    list.append(row);
  }
  if (isHost()) $("waiting-note").textContent = t("waiting.hostNote");
  else $("waiting-note").replaceChildren(...tNodes("waiting.note", { host: personName(s.table?.host ?? "") }));
  const invite = s.table?.invite;
  $("invite").hidden = !invite;
  if (invite) {
    const url = `${location.origin}/table/${encodeURIComponent(s.table.id ?? page.matchId)}?invite=${encodeURIComponent(invite)}`;
    if ($("invite-url").value !== url) $("invite-url").value = url;
  }
}

/** The invitation form: shown to a person who may invite and has friends; in the waiting
 * section before the start, in the chat panel after it.  Its options are written again only
 * when the friends change (an open list stays open). */
function renderInviteFriend(waiting) {
  const form = $("invite-friend");
  const friends = [...(page.friends ?? [])].sort((a, b) => Number(Boolean(b.online)) - Number(Boolean(a.online)));
  form.hidden = !canInvite() || !friends.length;
  const home = waiting ? $("waiting") : $("chat");
  if (form.parentElement !== home) {
    if (waiting) home.insertBefore(form, home.querySelector(".buttons"));
    else home.append(form);
  }
  if (form.hidden) return;
  const select = $("invite-friend-name");
  const key = `${document.documentElement.lang}|${friends.map((f) => `${f.name}:${f.online ? 1 : 0}`).join(",")}`;
  if (select.dataset.key === key) return;
  const chosen = select.value;
  select.replaceChildren(...friends.map((f) => {
    const option = document.createElement("option");
    option.value = f.name;
    // (an <option> holds text only: the name beside "(online)" isolated by its marks)
    option.textContent = f.online ? t("people.friendOnline", { name: isolatedText(personName(f.name)) }) : personName(f.name);
    option.selected = f.name === chosen;
    return option;
  }));
  select.dataset.key = key;
}
