// What the page remembers in localStorage between visits: the person's last choices of the
// new-match dialog and the language (key "gongzhu.settings", shared with the history page), and
// the match last shown (key "gongzhu.match", read by the browser tests).  A missing choice stays
// missing here: the server's /api/config says the defaults.
//
// May import: nothing.

const SETTINGS_KEY = "gongzhu.settings";
const MATCH_KEY = "gongzhu.match";

/** The remembered settings: {preset?, overrides, levels: {N?, E?, W?}, speed?, lang}.  A seed is
 * not among them: it deals the match it was typed for, and the next match is random unless one
 * is typed again (a seed an older page remembered is forgotten here). */
export function loadSettings() {
  let saved = {};
  try {
    saved = JSON.parse(localStorage.getItem(SETTINGS_KEY) ?? "{}") ?? {};
  } catch {
    // A damaged entry is forgotten.
  }
  const { seed: _forgotten, ...kept } = saved;
  return { overrides: {}, lang: "zh", ...kept, levels: { ...(kept.levels ?? {}) } };
}

export function saveSettings(settings) {
  localStorage.setItem(SETTINGS_KEY, JSON.stringify(settings));
}

export function rememberedMatch() {
  return localStorage.getItem(MATCH_KEY);
}

export function rememberMatch(matchId) {
  localStorage.setItem(MATCH_KEY, matchId);
}
