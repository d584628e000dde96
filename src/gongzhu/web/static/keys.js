// Keyboard shortcuts of the table: arrows / Home / End move the roving focus through the hand
// (Enter and Space play the focused card, as on any button), S ends the exposure phase (the
// button 亮出所选 / 不亮: the marked cards, or none), H asks for a hint, L reviews the last trick,
// N deals the next deal.  Keys typed into a form field or while a dialog (new match,
// replay) is open are left alone.  When a deal is dealt (whatever started it: the new-match
// dialog, 下一副, the host's Start, a reload) the keyboard goes to the hand, so that arrows and
// Enter play and no button left focused behind (新比赛 …) takes an Enter meant for the cards.
//
// May import: state.js, connection.js, actions.js, view-hand.js, dom.js.

import { declare, nextDeal } from "./actions.js";
import { requestHint } from "./connection.js";
import { $ } from "./dom.js";
import { declaring, mySeat, page, setFocus, toggleLastTrick } from "./state.js";
import { focusCard } from "./view-hand.js";

export function onKey(ev) {
  if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
  if (ev.target.closest?.("input, select, textarea")) return;
  if ($("setup").open || document.querySelector("dialog.replay[open]")) return;
  const inHand = $("hand").contains(document.activeElement);
  const free = inHand || document.activeElement === document.body;
  switch (ev.key) {
    case "ArrowLeft":
    case "ArrowUp":
      if (!free) return;
      focusCard(inHand ? page.focus - 1 : page.focus);
      break;
    case "ArrowRight":
    case "ArrowDown":
      if (!free) return;
      focusCard(inHand ? page.focus + 1 : page.focus);
      break;
    case "Home":
      if (!inHand) return;
      focusCard(0);
      break;
    case "End":
      if (!inHand) return;
      focusCard(page.hand.length - 1);
      break;
    case "h":
    case "H":
      requestHint();
      break;
    case "l":
    case "L":
      toggleLastTrick();
      break;
    case "n":
    case "N":
      nextDeal();
      break;
    case "s":
    case "S":
      if (page.state?.phase !== "expose" || !declaring()) return; // nothing to start: ignored
      declare();
      break;
    default:
      return;
  }
  ev.preventDefault();
}

let dealFocused = null;  // the deal ("match/deal") whose hand the keyboard was last sent to

/** After each update: the first time a deal's hand is there and no dialog is open, the keyboard
 * goes to it (unless the person is typing in a field, or already in the hand). */
export function focusHandOnDeal() {
  const s = page.state;
  if (!s || !mySeat() || !page.hand.length || document.querySelector("dialog[open]")) return;
  const deal = `${s.match_id}/${s.deal_index}`;
  if (deal === dealFocused) return;
  dealFocused = deal;
  if (document.activeElement?.closest?.("input, select, textarea, #hand")) return;
  focusHand();
}

/** Put the keyboard on the hand: its first card that may be played (or exposed) now, else the
 * card that had the focus last; the page does not scroll for it.  Nothing happens without a hand
 * (a spectator, no table). */
export function focusHand() {
  const cards = [...$("hand").querySelectorAll("button.card")];
  if (!cards.length) return;
  const usable = cards.findIndex((b) => b.getAttribute("aria-disabled") === "false");
  const i = usable >= 0 ? usable : Math.min(page.focus, cards.length - 1);
  setFocus(i);
  cards.forEach((b, k) => { b.tabIndex = k === i ? 0 : -1; });
  cards[i].focus({ preventScroll: true });
}
