// The header of the pages beside the table (history, lobby, challenges, profile, leaderboard,
// rules): one row of links to the site's pages — the table, the lobby, the challenges, the
// history, the profile, the leaderboard, the rules — less the page itself (a challenge's page,
// "challenge", keeps the link to the challenges), then the language switch (#lang).  Each page's
// <nav class="bar-actions" data-page="NAME"> holds what is its own (the lobby's link to who the
// person is, the rules page's links within it); the shared links follow it.  The links are
// written in the page's language by i18n.js's applyI18n, as the rest of the page.
//
// May import: nothing.

/** The site's pages in the header's order: name, address, the catalog key of the link's text. */
const PAGES = [
  ["table", "/", "nav.table"],
  ["lobby", "/lobby", "btn.lobby"],
  ["challenges", "/challenges", "nav.challenges"],
  ["history", "/history", "nav.history"],
  ["profile", "/profile", "nav.profile"],
  ["leaderboard", "/leaderboard", "nav.leaderboard"],
  ["rules", "/rules", "btn.rules"],
];

/** Write the shared links and the language switch into the page's header (call it before the
 * page wires #lang and applies its language). */
export function drawHeader() {
  const nav = document.querySelector("header.bar nav[data-page]");
  for (const [name, href, key] of PAGES) {
    if (name === nav.dataset.page) continue;
    const a = document.createElement("a");
    a.href = href;
    a.className = "button";
    a.dataset.i18n = key;
    nav.append(a);
  }
  const lang = document.createElement("button");
  lang.type = "button";
  lang.id = "lang";
  lang.dataset.i18n = "btn.lang";
  nav.append(lang);
}
