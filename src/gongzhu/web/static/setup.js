// The new-match dialog (the options form): the R9 preset, the opponents' levels (the server lists
// them weakest first; a line on each says how strong it is, the chosen ones marked), the speed,
// the language, and under "more options" every R10 key with the values GET /api/config lists
// (empty: as the preset says) and a seed.  Everything it offers comes from the server's
// configuration in state.js; it is not opened before that has arrived.  Starting posts
// /api/matches and hands the new match's id to the handler given to initSetup.
//
// May import: state.js, dom.js, i18n.js, options-form.js.

import { $, fillSelect } from "./dom.js";
import { getLang, levelLabel, presetLabel, refusalText, speedLabel, t } from "./i18n.js";
import { buildOptionRows, describeLevels, markChosenLevels, missingCount, readOverrides } from "./options-form.js";
import { OPPONENTS, page, speedNames, updateSettings } from "./state.js";

let handlers = { onStarted: () => {}, onLanguage: () => {}, onClosed: () => {} };

/**
 * Wire the dialog.  `onStarted(matchId)`: a match was created; `onLanguage(lang)`: the
 * dialog's language was changed (the whole page follows); `onClosed()`: the dialog closed.
 */
export function initSetup(h) {
  handlers = { ...handlers, ...h };
  $("setup-form").addEventListener("submit", startMatch);
  $("setup-cancel").addEventListener("click", () => $("setup").close());
  $("setup").addEventListener("close", () => handlers.onClosed());
  $("setup-preset").addEventListener("change", () => buildOptions($("setup-preset").value, {}));
  $("setup-lang").addEventListener("change", relabel);
  $("more-options").addEventListener("input", markChanged);
  $("more-options").addEventListener("change", markChanged);
}

/** Open the dialog with the remembered choices (once the server's configuration is here). */
export function openSetup() {
  if (!page.config) return;
  buildSetup();
  const dlg = $("setup");
  if (!dlg.open) dlg.showModal();
}

/** The remembered choice if the server still offers it, else the server's default. */
function offered(values, remembered, fallback) {
  return values.includes(remembered) ? remembered : fallback;
}

function buildSetup() {
  const c = page.config;
  const s = page.settings;
  const presets = Object.keys(c.presets);
  fillSelect($("setup-preset"), presets, presetLabel, offered(presets, s.preset, c.default_preset));
  for (const seat of OPPONENTS) {
    fillSelect($(`setup-level-${seat}`), c.levels, levelLabel, offered(c.levels, s.levels[seat], c.default_level));
  }
  describeLevels(document.querySelector("#setup fieldset.levels"), "setup-level-notes", c.levels);
  fillSelect($("setup-speed"), speedNames(), speedLabel, offered(speedNames(), s.speed, c.default_speed));
  fillSelect($("setup-lang"), ["zh", "en"], (l) => t(`lang.${l}`), getLang());
  $("setup-seed").value = "";  // a seed deals only the match it was typed for
  buildOptions($("setup-preset").value, s.overrides ?? {});
  $("setup-error").textContent = "";
}

function buildOptions(preset, overrides) {
  buildOptionRows($("more-options"), page.config, preset, overrides);
  markChanged();
}

/** On the closed "more options" too: how many of its options differ from the chosen preset. */
function markChanged() {
  const base = page.config.presets[$("setup-preset").value] ?? {};
  const n = Object.entries(readOverrides($("more-options")))
    .filter(([key, value]) => JSON.stringify(base[key]) !== JSON.stringify(value)).length;
  const mark = $("setup-changed");
  mark.textContent = n ? t("setup.changed", { n }) : "";
  mark.hidden = !n;
}

/** Relabel the dialog in the chosen language while keeping what was chosen so far. */
function relabel() {
  const keep = {
    preset: $("setup-preset").value, overrides: readOverrides($("more-options")), speed: $("setup-speed").value,
    seed: $("setup-seed").value, levels: OPPONENTS.map((seat) => [seat, $(`setup-level-${seat}`).value]),
    more: document.querySelector("#setup details.more").open,
  };
  handlers.onLanguage($("setup-lang").value);
  buildSetup();
  $("setup-preset").value = keep.preset;
  $("setup-speed").value = keep.speed;
  $("setup-seed").value = keep.seed;
  for (const [seat, level] of keep.levels) $(`setup-level-${seat}`).value = level;
  markChosenLevels(document.querySelector("#setup fieldset.levels"));
  document.querySelector("#setup details.more").open = keep.more;
  buildOptions(keep.preset, keep.overrides);
}

async function startMatch(ev) {
  ev.preventDefault();
  const missing = missingCount($("more-options"));
  if (missing) {
    // Say so rather than guess a number of deals.
    missing.closest("details").open = true;
    missing.focus();
    $("setup-error").textContent = t("setup.countMissing");
    return;
  }
  const choice = {
    preset: $("setup-preset").value,
    overrides: readOverrides($("more-options")),
    levels: Object.fromEntries(OPPONENTS.map((seat) => [seat, $(`setup-level-${seat}`).value])),
    speed: $("setup-speed").value,
  };
  updateSettings(choice);  // remembered for the next match, but not the seed
  handlers.onLanguage($("setup-lang").value);
  const body = {
    preset: choice.preset, options: choice.overrides, levels: choice.levels, speed: choice.speed,
  };
  const go = $("setup-go");
  go.disabled = true;
  try {
    const res = await fetch("/api/matches", {
      method: "POST", headers: { "Content-Type": "application/json" }, body: bodyWithSeed(body, $("setup-seed").value),
    });
    const data = await res.json().catch(() => null);
    if (!res.ok) {
      // The server's refusal (options that do not go together, a seed out of range) in the page's language.
      $("setup-error").textContent = refusalText({ body: data, status: res.status });
      return;
    }
    $("setup").close();
    handlers.onStarted(data.match_id);
  } catch {
    $("setup-error").textContent = t("msg.offline");
  } finally {
    go.disabled = false;
  }
}

/** The new-match body as JSON text with the typed seed: its digits as they are (a seed has 64
 * bits, a JavaScript number keeps 53), null when empty; anything else as the number it reads as,
 * for the server to judge. */
function bodyWithSeed(body, typed) {
  const seed = typed.trim();
  let value = "null";
  if (/^[0-9]+$/.test(seed)) value = BigInt(seed).toString();
  else if (seed !== "") value = JSON.stringify(Number(seed));
  return `${JSON.stringify(body).slice(0, -1)},"seed":${value}}`;
}
