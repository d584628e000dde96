// The R10 options as form rows, shared by the table page's new-match dialog (setup.js) and the
// lobby's new-table form (lobby.js): one row per key that GET /api/config lists, offering the
// values it lists (empty: as the preset says), a "deals:N" choice with its number field; and
// reading the chosen overrides back, typed as the engine expects them; and under the computer
// levels of either form, one line on each level (weakest first) saying how strong it is, the lines
// of the levels chosen in the form's selects marked.  The configuration is passed in: this module
// holds no copy of it.
//
// May import: dom.js, i18n.js.

import { el } from "./dom.js";
import { hasText, levelLabel, optionLabel, optionValueLabel, t } from "./i18n.js";

// A "deals:N" style value: a choice that carries a number.
const NUMBERED = /^(\w+):N$/;

/**
 * Fill `box` with one row per option of `config.options`, each empty ("as the preset says",
 * naming the value of `preset`) unless `overrides` chooses a value.
 */
export function buildOptionRows(box, config, preset, overrides = {}) {
  box.replaceChildren();
  const resolved = config.presets[preset] ?? {};
  for (const [key, values] of Object.entries(config.options)) {
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

/** The overrides chosen in the rows of `box`, typed as the engine expects them. */
export function readOverrides(box) {
  const out = {};
  for (const field of box.querySelectorAll("[data-option]")) {
    if (field.value === "") continue;
    const key = field.dataset.option;
    if (field.tagName === "INPUT") {
      out[key] = Number(field.value);
      continue;
    }
    let value = JSON.parse(field.value);
    const m = typeof value === "string" ? NUMBERED.exec(value) : null;
    if (m) {
      const n = box.querySelector(`[data-option-count="${key}"]`).value;
      value = `${m[1]}:${Number(n) || 1}`;
    }
    out[key] = value;
  }
  return out;
}

/** A numbered choice ("deals:N") in `box` whose number is missing or not a positive integer, if any. */
export function missingCount(box) {
  for (const count of box.querySelectorAll("[data-option-count]")) {
    if (count.hidden) continue;
    const n = Number(count.value);
    if (!(Number.isInteger(n) && n >= 1)) return count;
  }
  return null;
}

/**
 * Under the levels fieldset `fieldset`, a list `id` with one line on each level (in the server's
 * order, weakest first): how strong it is; the lines of the levels chosen in the fieldset's
 * selects are marked (`li.chosen`, aria-current), and follow each change of them.  Made once,
 * relabelled on every call (call markChosenLevels after setting a select's value by script).
 */
export function describeLevels(fieldset, id, levels) {
  let notes = document.getElementById(id);
  if (!notes) {
    notes = el("ul", "help level-notes");
    notes.id = id;
    fieldset.append(el("p", "help level-notes-title"), notes);
    fieldset.addEventListener("change", () => markChosenLevels(fieldset));
  }
  notes.previousElementSibling.textContent = t("setup.levelsNote");
  notes.replaceChildren(...levels.map((level) => {
    const info = `levelInfo.${level}`;
    const item = el("li", "", hasText(info) ? t("setup.levelLine", { level: levelLabel(level), info: t(info) }) : levelLabel(level));
    item.dataset.level = level;
    return item;
  }));
  markChosenLevels(fieldset);
}

/** Mark, under the levels fieldset `fieldset`, the lines of the levels its selects choose now. */
export function markChosenLevels(fieldset) {
  const chosen = new Set([...fieldset.querySelectorAll("select")].map((select) => select.value));
  for (const item of fieldset.querySelectorAll(".level-notes li[data-level]")) {
    const on = chosen.has(item.dataset.level);
    item.classList.toggle("chosen", on);
    if (on) item.setAttribute("aria-current", "true");
    else item.removeAttribute("aria-current");
  }
}
