// What the page remembers in localStorage between visits: the person's last choices of the
// new-match dialog and the language (key "gongzhu.settings", shared with the history page), the
// table page's motion and sound switches, and the match last shown (key "gongzhu.match", read by
// the browser tests).  A missing choice stays missing here: the server's /api/config says the
// defaults of the game's choices; motionEnabled and soundEnabled say those of the two switches,
// which are the page's own.
//
// May import: nothing.

const SETTINGS_KEY = "gongzhu.settings";
const MATCH_KEY = "gongzhu.match";

/** The remembered settings: {preset?, overrides, levels: {N?, E?, W?}, speed?, lang, chatMuted?,
 * motion?, sound?}; lang, when none is remembered, from the browser's language (browserLang).  A seed is not among them: it deals the match it was typed for, and the next
 * match is random unless one is typed again (a seed an older page remembered is forgotten here). */
export function loadSettings() {
  let saved = {};
  try {
    saved = JSON.parse(localStorage.getItem(SETTINGS_KEY) ?? "{}") ?? {};
  } catch {
    // A damaged entry is forgotten.
  }
  const { seed: _forgotten, ...kept } = saved;
  return { overrides: {}, lang: browserLang(), ...kept, levels: { ...(kept.levels ?? {}) } };
}

/** The page's language until the person chooses one (a language saved in the settings wins):
 * the browser's own, English for an English one (en, en-US …), Chinese for a Chinese one and for
 * every other language (the game is Chinese first). */
export function browserLang() {
  const lang = String(globalThis.navigator?.language ?? "").toLowerCase();
  return lang.startsWith("en") ? "en" : "zh";
}

/** Whether cards move on the table: the remembered switch; by default on, unless the browser
 * says the person prefers reduced motion (`prefers-reduced-motion: reduce`), then off. */
export function motionEnabled(settings) {
  if (typeof settings.motion === "boolean") return settings.motion;
  return !globalThis.matchMedia?.("(prefers-reduced-motion: reduce)")?.matches;
}

/** Whether the table plays its sounds: the remembered switch; by default off.  A page that starts
 * beeping on its own surprises people (in an office, at night, with headphones on loud), and
 * browsers hold sound back until a click anyway; the header's sound switch (its speaker drawn
 * crossed out while off) is one click away for whoever wants the cues. */
export function soundEnabled(settings) {
  return settings.sound === true;
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
