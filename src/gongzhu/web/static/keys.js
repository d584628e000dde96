// Keyboard shortcuts of the table: arrows / Home / End move the roving focus through the hand
// (Enter and Space play the focused card, as on any button), S ends the exposure phase (the
// 开始/Start button: the marked cards, or none), H asks for a hint, L reviews the last trick,
// N deals the next deal.  Keys typed into a form field or while a dialog (new match,
// replay) is open are left alone.
//
// May import: state.js, connection.js, actions.js, view-hand.js, dom.js.

import { declare, nextDeal } from "./actions.js";
import { requestHint } from "./connection.js";
import { $ } from "./dom.js";
import { declaring, page, toggleLastTrick } from "./state.js";
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
