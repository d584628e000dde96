// The pages' small DOM helpers, shared by the table page's views and the other pages: look-up by
// id, text elements, a table's labelled cells, links styled as buttons, a filled <select>, the
// toast that answers the person at once and the table's note of a refused card beside its status
// line (their rule-book citations link to the rules page, /rules#R5.2), and the sound switch's
// icon (inline SVG).
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

/** A cell of a table whose rows stack on a phone: `label` (its column's name, in the page's
 * language) is shown before `content` (text, or a node) there. */
export function cell(label, content) {
  const e = document.createElement("td");
  e.dataset.label = label;
  if (content instanceof Node) e.append(content);
  else e.textContent = content;
  return e;
}

/** A link styled as a button (`download`: the address is a file to save). */
export function link(href, text, download = false) {
  const a = el("a", "button", text);
  a.href = href;
  if (download) a.download = "";
  return a;
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

// A rule-book section a message cites: R5.2, R10.
const CITATION = /\bR\d+(?:\.\d+)?\b/g;

/** `text` as nodes, each rule-book section it cites a link to that section of the rules page
 * (opened beside the table, which stays as it is). */
export function withRuleLinks(text) {
  const nodes = [];
  let at = 0;
  for (const m of text.matchAll(CITATION)) {
    if (m.index > at) nodes.push(document.createTextNode(text.slice(at, m.index)));
    const a = el("a", "rule-link", m[0]);
    a.href = `/rules#${m[0]}`;
    a.target = "_blank";
    a.rel = "noopener";
    nodes.push(a);
    at = m.index + m[0].length;
  }
  nodes.push(document.createTextNode(text.slice(at)));
  return nodes;
}

/** `content` (text, or nodes: a message with its names isolated, i18n.js's tNodes) as nodes, the
 * rule-book sections its text cites linked as withRuleLinks links them. */
export function linkedContent(content) {
  if (!Array.isArray(content)) return withRuleLinks(String(content ?? ""));
  return content.flatMap((part) => (part instanceof Node && !(part instanceof Text) ? [part]
    : withRuleLinks(part instanceof Text ? part.data : String(part))));
}

/** A short message at the bottom of the page for a few seconds (red when `isError`): `text`, or
 * nodes (linkedContent); the rule-book sections it cites link to the rules page, and it stays
 * while the pointer is on it. */
export function toast(text, isError = false) {
  const box = $("toast");
  box.replaceChildren(...linkedContent(text));
  box.classList.toggle("is-error", isError);
  box.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(hideToast, 4500);
  box.onmouseenter = () => clearTimeout(toastTimer);
  box.onmouseleave = () => { toastTimer = setTimeout(hideToast, 1500); };
}

function hideToast() {
  $("toast").hidden = true;
}

// How long a refused card's reason stays beside the status line (ms).
export const REFUSAL_MS = 2500;
let refusalTimer = null;

/** Why the card (or the exposure) just chosen was refused: beside the table's status line
 * (#refusal, in a warning colour) for REFUSAL_MS, its rule-book sections linked to the rules page.
 * Where that line is out of sight (a dialog is open) or missing, the toast says it. */
export function refusalNote(text) {
  const box = $("refusal");
  if (!box || document.querySelector("dialog[open]")) return toast(text, true);
  box.replaceChildren(...linkedContent(text));
  box.hidden = false;
  clearTimeout(refusalTimer);
  refusalTimer = setTimeout(() => { box.hidden = true; }, REFUSAL_MS);
}

const SVG_NS = "http://www.w3.org/2000/svg";

/** The sound switch's icon, drawn as inline SVG in the text's colour: a speaker with sound waves
 * (`on`) or crossed out; `data-icon` says which (sound-on, sound-off). */
export function speakerIcon(on) {
  const node = (name, attrs) => {
    const e = document.createElementNS(SVG_NS, name);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
    return e;
  };
  const svg = node("svg", { viewBox: "0 0 24 24", width: "1.1em", height: "1.1em", "aria-hidden": "true",
    focusable: "false", "data-icon": on ? "sound-on" : "sound-off" });
  svg.append(node("path", { d: "M3 9h4l5-4v14l-5-4H3z", fill: "currentColor" }));
  const stroke = { fill: "none", stroke: "currentColor", "stroke-width": 2, "stroke-linecap": "round" };
  if (on) {
    svg.append(node("path", { d: "M15.5 9a4 4 0 0 1 0 6", ...stroke }), node("path", { d: "M18 6.5a7.5 7.5 0 0 1 0 11", ...stroke }));
  } else {
    svg.append(node("path", { d: "M16 9l5 6M21 9l-5 6", ...stroke }));
  }
  return svg;
}
