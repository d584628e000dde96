// Small DOM helpers shared by the table page's views: look-up by id, text elements, a filled
// <select>, and the toast that answers the person at once.
//
// May import: nothing.

export const $ = (id) => document.getElementById(id);

/** An element `tag` with class `cls` (may be "") and text `text`. */
export function el(tag, cls, text = "") {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  e.textContent = text;
  return e;
}

export const span = (cls, text) => el("span", cls, text);
export const li = (text) => el("li", "", text);

/** A table cell with `value` as text (empty for null / undefined). */
export function td(value) {
  return el("td", "", value === undefined || value === null ? "" : String(value));
}

/** A <button type="button"> with class `cls` and text `text` that calls `onClick`. */
export function button(cls, text, onClick) {
  const b = el("button", cls, text);
  b.type = "button";
  b.addEventListener("click", onClick);
  return b;
}

/** Fill `select` with one <option> per value, labelled by `label`, `selected` chosen. */
export function fillSelect(select, values, label, selected) {
  select.replaceChildren();
  for (const v of values) {
    const opt = document.createElement("option");
    opt.value = v;
    opt.textContent = label(v);
    opt.selected = v === selected;
    select.append(opt);
  }
}

let toastTimer = null;

/** A short message at the bottom of the page for a few seconds (red when `isError`). */
export function toast(text, isError = false) {
  const box = $("toast");
  box.textContent = text;
  box.classList.toggle("is-error", isError);
  box.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { box.hidden = true; }, 4500);
}
