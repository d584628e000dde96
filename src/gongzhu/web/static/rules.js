// The rules page: the how-to-play and the rule book in the page's language, as the server renders
// them from the project's own Markdown (GET /api/rules/<lang>: docs/how-to-play*.md and
// docs/rules*.md, the English book governing).  The book's own preface speaks to those who work on
// the game (its sources, the code that cites it): the page puts in its place a heading and a few
// words to the player (the catalog's rules.book and rules.bookIntro).  The page opens at the
// section the address names (/rules#R5.2, as the table page's refusals link), and keeps it when
// the language changes.
//
// May import: dom.js, header.js, i18n.js, settings.js.

import { $, el } from "./dom.js";
import { drawHeader } from "./header.js";
import { getLang, startPageLanguage, t } from "./i18n.js";

async function load() {
  const lang = getLang();
  try {
    const res = await fetch(`/api/rules/${lang}`, { credentials: "same-origin" });
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    const page = await res.json();
    // The server's own rendering of the project's Markdown (raw HTML in it is not passed through).
    $("how-to-play").innerHTML = page.how_to_play;
    $("rules").innerHTML = page.rules;
    introduceBook($("rules"));
    $("rules-error").textContent = "";
  } catch {
    $("rules-error").textContent = t("msg.loadFailed");
    return;
  }
  document.documentElement.dataset.rules = lang;
  // A sub-section without a heading of its own (R9.1) opens at its section (R9).
  let wanted = "";
  try {
    wanted = decodeURIComponent(location.hash.slice(1));
  } catch {
    // A malformed address (/rules#%): the page opens at its top.
  }
  const target = wanted ? document.getElementById(wanted) ?? document.getElementById(wanted.split(".")[0]) : null;
  target?.scrollIntoView();
}

/** The rule book's preface (what comes before its first section, R1) as the player reads it: the
 * book's name and what it is to them. */
function introduceBook(book) {
  const first = book.querySelector("[id^='R']");
  if (!first || first.parentNode !== book) return;
  while (book.firstChild && book.firstChild !== first) book.firstChild.remove();
  book.prepend(el("h1", "", t("rules.book")), el("p", "book-intro", t("rules.bookIntro")));
}

function main() {
  drawHeader();
  startPageLanguage(load);
  load();
}

main();
