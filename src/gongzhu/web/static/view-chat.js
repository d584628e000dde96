// The table's chat panel: the lines said since the page opened the table (the sender's name, a
// guest's in the page's language, isolated in a <bdi> of its own, their seat or that they watch, and what they said: typed text,
// always put in as text and never as markup, or a quick phrase of the catalog, `chat.quick.*`, in
// the page's language),
// the quick-phrase buttons, the input and the mute switch (remembered in the settings; muted,
// the lines are not shown).  Each line of another person has a small 静音 / Mute button: that
// person's lines are not shown from then on (the setting `chatMutedPeople`, kept with the others
// in localStorage), and the muted people are listed under the lines, each a button that unmutes
// them.  It shows at a table of more than one person against the computers (state.js:
// sociable), and where the person may invite one of their friends (the invitation form stands in
// the panel during play; view-waiting.js).  Sending goes to the handlers given to initChat.  Below desktop
// size the panel lies over the table, opened and closed by the header's chat button, which counts
// the lines said while it was closed; on a desktop (DESKTOP) it stands beside the table, open.
// Opened, the keyboard is in its input; Escape (or 收起 / Close) puts it away and gives the keyboard
// back to the hand (the card it was on), or to the chat button where there is no hand.
//
// May import: state.js, dom.js, i18n.js.

import { $, button, el, span } from "./dom.js";
import { hasText, isolatedText, nameEl, personName, seatName, t, tNodes, ZH } from "./i18n.js";
import { canInvite, mutedPeople, page, sociable } from "./state.js";

const QUICK = "chat.quick.";

// The screens on which the chat stands beside the table (style.css's desktop query).
const DESKTOP = "(min-width: 1024px) and (min-height: 501px)";

let handlers = { onSay: () => false, onQuick: () => {}, onMute: () => {}, onMutePerson: () => {} };
let seenUpTo = null;   // the last line shown to the person (read on a desktop or in the open panel)

/** `onSay(text)` (true when sent), `onQuick(key)`, `onMute(muted)`, `onMutePerson(name, muted)`. */
export function initChat(h) {
  handlers = { ...handlers, ...h };
  $("chat-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    if (handlers.onSay($("chat-input").value)) $("chat-input").value = "";
  });
  $("chat-mute").addEventListener("change", () => handlers.onMute($("chat-mute").checked));
  $("chat-toggle").addEventListener("click", () => openPanel(!$("chat").classList.contains("open")));
  $("chat-close").addEventListener("click", putAway);
  document.addEventListener("keydown", (ev) => {
    if (ev.key !== "Escape" || !isOpenPanel() || document.querySelector("dialog[open]")) return;
    ev.preventDefault();
    putAway();
  });
}

/** Whether the chat is open over the table now (below desktop size). */
function isOpenPanel() {
  return $("chat").classList.contains("open") && !matchMedia(DESKTOP).matches;
}

/** Close the panel and give the keyboard back to the hand: the card it was on (the hand's roving
 * focus), else the chat button (a spectator has no hand). */
function putAway() {
  openPanel(false);
  const card = $("hand").querySelector('button[data-card][tabindex="0"]') ?? $("hand").querySelector("button[data-card]");
  (card ?? $("chat-toggle")).focus({ preventScroll: true });
}

/** Open or close the panel (below desktop size); opening reads every line said so far, and shows
 * the newest (the lines scroll; closed, they had no size to be scrolled to their end). */
function openPanel(open) {
  $("chat").classList.toggle("open", open);
  $("chat-toggle").setAttribute("aria-expanded", String(open));
  renderChat();
  if (!open) return;
  $("chat-log").scrollTop = $("chat-log").scrollHeight;
  $("chat-input").focus({ preventScroll: true });
}

/** The lines shown: those of the people not muted. */
function shownLines() {
  const muted = mutedPeople();
  return muted.size ? page.chat.filter((msg) => !muted.has(msg.from?.name)) : page.chat;
}

/** The number of lines shown (of people not muted) said after the last one the person saw. */
function unread() {
  const muted = mutedPeople();
  const at = seenUpTo === null ? -1 : page.chat.lastIndexOf(seenUpTo);
  return page.chat.slice(at + 1).filter((msg) => !muted.has(msg.from?.name)).length;
}

/** The person's own name at the table (their lines have no mute button). */
function myName() {
  return page.state?.you?.name ?? page.me?.name ?? null;
}

/** The catalog's quick phrases, in the catalog's order. */
function quickKeys() {
  return Object.keys(ZH).filter((key) => key.startsWith(QUICK));
}

export function renderChat() {
  const box = $("chat");
  // (also where the person may invite a friend, who has some: the invitation form is in the panel
  // during play, view-waiting.js)
  box.hidden = !(page.state && (sociable() || (canInvite() && (page.friends ?? []).length > 0)));
  const toggle = $("chat-toggle");
  toggle.hidden = box.hidden;
  if (box.hidden) return;
  const muted = Boolean(page.settings.chatMuted);
  const lines = shownLines();
  if ((box.classList.contains("open") || matchMedia(DESKTOP).matches) && !muted) seenUpTo = page.chat.at(-1) ?? null;
  const count = muted ? 0 : unread();
  $("chat-unread").hidden = count === 0;
  $("chat-unread").textContent = String(count);
  toggle.setAttribute("aria-label", count ? `${t("chat.title")} (${t("chat.unreadLabel", { n: count })})` : t("chat.title"));
  $("chat-mute").checked = muted;
  $("chat-muted").hidden = !muted;
  $("chat-input").placeholder = t("chat.placeholder");
  const quick = $("chat-quick");
  if (quick.dataset.lang !== document.documentElement.lang) {
    quick.replaceChildren(...quickKeys().map((key) => {
      const b = button("quick", t(key), () => handlers.onQuick(key));
      b.dataset.quick = key;
      return b;
    }));
    quick.dataset.lang = document.documentElement.lang;
  }
  const log = $("chat-log");
  log.hidden = muted;
  renderMutedPeople(muted);
  if (muted) return;
  const atEnd = log.scrollTop + log.clientHeight >= log.scrollHeight - 4;
  log.replaceChildren(...lines.map(line));
  if (atEnd) log.scrollTop = log.scrollHeight;
}

/** "已静音：Ann ✕ Bo ✕": the people muted, each a button that unmutes them. */
function renderMutedPeople(muted) {
  const names = [...mutedPeople()].sort();
  const box = $("chat-muted-people");
  box.hidden = muted || !names.length;
  if (box.hidden) return box.replaceChildren();
  box.replaceChildren(span("label", t("chat.mutedPeople")), ...names.map((name) => {
    const b = button("unmute", "", () => handlers.onMutePerson(name, false));
    b.append(nameEl(name), " ✕");
    b.dataset.unmute = name;
    b.title = t("chat.unmutePerson", { name: isolatedText(personName(name)) });
    b.setAttribute("aria-label", b.title);
    return b;
  }));
}

/** One line: "游客4821（东）：加油" ("Guest4821 (East): …" in English); its parts are text nodes
 * only, and the name a <bdi> of its own (a right-to-left name leaves "（东）：" where it is). */
function line(msg) {
  const item = el("li", "chat-line");
  const where = msg.from?.seat ? seatName(msg.from.seat) : t("chat.watcher");
  const who = span("who", "");
  who.append(...tNodes("chat.from", { name: nameEl(msg.from?.name ?? ""), seat: where }));
  item.append(who);
  const said = msg.quick && msg.quick.startsWith(QUICK) && hasText(msg.quick) ? t(msg.quick) : msg.text ?? "";
  const text = span("said", said);
  if (msg.quick) text.classList.add("quick");
  item.append(text);
  const name = msg.from?.name;
  if (name) item.dataset.from = name;
  if (name && name !== myName()) {
    const mute = button("mute-person", t("chat.mutePerson"), () => handlers.onMutePerson(name, true));
    mute.dataset.mute = name;
    mute.title = t("chat.mutePersonTitle", { name: isolatedText(personName(name)) });
    mute.setAttribute("aria-label", mute.title);
    item.append(mute);
  }
  return item;
}
