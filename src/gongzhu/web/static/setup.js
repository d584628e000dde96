// The new-match dialog (the options form): the R9 preset, the opponents' levels, the speed, the
// language, and under "more options" every R10 key with the values GET /api/config lists
// (empty: as the preset says) and a seed.  Everything it offers comes from the server's
// configuration in state.js; it is not opened before that has arrived.  Starting posts
// /api/matches and hands the new match's id to the handler given to initSetup.
//
// May import: state.js, dom.js, i18n.js.

import { $, fillSelect } from "./dom.js";
import { getLang, levelLabel, optionLabel, optionValueLabel, presetLabel, speedLabel, t } from "./i18n.js";
import { OPPONENTS, page, speedNames, updateSettings } from "./state.js";

// A "deals:N" style value: a choice that carries a number.
const NUMBERED = /^(\w+):N$/;

let handlers = { onStarted: () => {}, onLanguage: () => {} };

/**
 * Wire the dialog.  `onStarted(matchId)`: a match was created; `onLanguage(lang)`: the
 * dialog's language was changed (the whole page follows).
 */
export function initSetup(h) {
  handlers = h;
  $("setup-form").addEventListener("submit", startMatch);
  $("setup-cancel").addEventListener("click", () => $("setup").close());
  $("setup-preset").addEventListener("change", () => buildOptions($("setup-preset").value, {}));
  $("setup-lang").addEventListener("change", relabel);
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
  fillSelect($("setup-speed"), speedNames(), speedLabel, offered(speedNames(), s.speed, c.default_speed));
  fillSelect($("setup-lang"), ["zh", "en"], (l) => t(`lang.${l}`), getLang());
  $("setup-seed").value = s.seed ?? "";
  buildOptions($("setup-preset").value, s.overrides ?? {});
  $("setup-error").textContent = "";
}

function buildOptions(preset, overrides) {
  const box = $("more-options");
  box.replaceChildren();
  const resolved = page.config.presets[preset] ?? {};
  for (const [key, values] of Object.entries(page.config.options)) {
    box.append(optionRow(key, values, resolved[key], overrides[key]));
  }
}

/** One row of "more options": empty means "as the preset says". */
function optionRow(key, values, presetValue, override) {
  const row = document.createElement("label");
  row.className = "opt-row";
  const name = document.createElement("span");
  name.textContent = optionLabel(key);
  row.append(name);
  const asPreset = presetValue === undefined
    ? t("setup.asPreset")
    : t("setup.asPresetValue", { value: optionValueLabel(key, presetValue) });
  if (Array.isArray(values)) {
    const select = document.createElement("select");
    select.dataset.option = key;
    const def = document.createElement("option");
    def.value = "";
    def.textContent = asPreset;
    select.append(def);
    for (const v of values) {
      const opt = document.createElement("option");
      // JSON keeps the value's type (1, true, "ccw") through the string-valued <select>.
      opt.value = JSON.stringify(v);
      opt.textContent = optionValueLabel(key, v);
      select.append(opt);
    }
    row.append(select);
    const numbered = values.find((v) => typeof v === "string" && NUMBERED.test(v));
    let count = null;
    if (numbered) {
      count = document.createElement("input");
      count.type = "number";
      count.min = "1";
      count.className = "opt-count";
      count.dataset.optionCount = key;
      count.setAttribute("aria-label", t("setup.count"));
      row.append(count);
    }
    if (override !== undefined) setOptionField(select, count, override);
    const sync = () => { if (count) count.hidden = !NUMBERED.test(JSON.parse(select.value || '""')); };
    select.addEventListener("change", sync);
    sync();
  } else {
    const input = document.createElement("input");
    input.type = "number";
    input.dataset.option = key;
    input.placeholder = presetValue === undefined ? t("setup.asPreset") : String(presetValue);
    if (override !== undefined) input.value = String(override);
    row.append(input);
  }
  return row;
}

function setOptionField(select, count, value) {
  const numberedMatch = typeof value === "string" ? /^(\w+):(\d+)$/.exec(value) : null;
  const asNumbered = numberedMatch ? JSON.stringify(`${numberedMatch[1]}:N`) : null;
  for (const opt of select.options) {
    if (opt.value === JSON.stringify(value) || (asNumbered && opt.value === asNumbered)) opt.selected = true;
  }
  if (count && numberedMatch) count.value = numberedMatch[2];
}

/** The overrides chosen under "more options", typed as the engine expects them. */
function readOverrides() {
  const out = {};
  for (const field of $("more-options").querySelectorAll("[data-option]")) {
    if (field.value === "") continue;
    const key = field.dataset.option;
    if (field.tagName === "INPUT") {
      out[key] = Number(field.value);
      continue;
    }
    let value = JSON.parse(field.value);
    const m = typeof value === "string" ? NUMBERED.exec(value) : null;
    if (m) {
      const n = $("more-options").querySelector(`[data-option-count="${key}"]`).value;
      value = `${m[1]}:${Number(n) || 1}`;
    }
    out[key] = value;
  }
  return out;
}

/** A numbered choice ("deals:N") whose number is missing or not a positive integer, if any. */
function missingCount() {
  for (const count of $("more-options").querySelectorAll("[data-option-count]")) {
    if (count.hidden) continue;
    const n = Number(count.value);
    if (!(Number.isInteger(n) && n >= 1)) return count;
  }
  return null;
}

/** Relabel the dialog in the chosen language while keeping what was chosen so far. */
function relabel() {
  const keep = {
    preset: $("setup-preset").value, overrides: readOverrides(), speed: $("setup-speed").value,
    seed: $("setup-seed").value, levels: OPPONENTS.map((seat) => [seat, $(`setup-level-${seat}`).value]),
    more: document.querySelector("#setup details.more").open,
  };
  handlers.onLanguage($("setup-lang").value);
  buildSetup();
  $("setup-preset").value = keep.preset;
  $("setup-speed").value = keep.speed;
  $("setup-seed").value = keep.seed;
  for (const [seat, level] of keep.levels) $(`setup-level-${seat}`).value = level;
  document.querySelector("#setup details.more").open = keep.more;
  buildOptions(keep.preset, keep.overrides);
}

async function startMatch(ev) {
  ev.preventDefault();
  const missing = missingCount();
  if (missing) {
    // Say so rather than guess a number of deals.
    missing.closest("details").open = true;
    missing.focus();
    $("setup-error").textContent = t("setup.countMissing");
    return;
  }
  const choice = {
    preset: $("setup-preset").value,
    overrides: readOverrides(),
    levels: Object.fromEntries(OPPONENTS.map((seat) => [seat, $(`setup-level-${seat}`).value])),
    speed: $("setup-speed").value,
    seed: $("setup-seed").value.trim(),
  };
  updateSettings(choice);
  handlers.onLanguage($("setup-lang").value);
  const body = {
    preset: choice.preset, options: choice.overrides, levels: choice.levels, speed: choice.speed,
    seed: choice.seed === "" ? null : Number(choice.seed),
  };
  const go = $("setup-go");
  go.disabled = true;
  try {
    const res = await fetch("/api/matches", {
      method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
    });
    const data = await res.json().catch(() => ({}));
    if (!res.ok) {
      $("setup-error").textContent = data.error ?? `HTTP ${res.status}`;
      return;
    }
    $("setup").close();
    handlers.onStarted(data.match_id);
  } catch (err) {
    $("setup-error").textContent = `${t("msg.offline")} (${err})`;
  } finally {
    go.disabled = false;
  }
}
