// Card faces and backs drawn as SVG by the project (no downloaded images or fonts), and the
// small card helpers the pages share.  Card codes are the canonical notation of R1: rank
// "23456789TJQKA" then suit "SHCD" ("QS" the pig, "JD" the sheep, "TC" the transformer).
//
// May import: nothing.

const SVG_NS = "http://www.w3.org/2000/svg";

export const SUITS = ["S", "H", "C", "D"];
export const RANKS = "23456789TJQKA";
const SUIT_SYMBOL = { S: "♠", H: "♥", C: "♣", D: "♦" };

// Suit shapes in a 100×100 box, as SVG elements.  Drawn as shapes (not text glyphs) so that
// every system shows the same suits, whatever fonts it has.
const SUIT_SHAPES = {
  H: [["path", { d: "M50 92 C22 68 3 50 3 29 C3 13 15 3 29 3 C39 3 46 9 50 18 C54 9 61 3 71 3 " +
    "C85 3 97 13 97 29 C97 50 78 68 50 92 Z" }]],
  D: [["path", { d: "M50 2 L88 50 L50 98 L12 50 Z" }]],
  S: [["path", { d: "M50 3 C62 24 97 40 97 63 C97 79 85 89 71 89 C62 89 56 84 53 78 C54 87 58 93 67 97 " +
    "L33 97 C42 93 46 87 47 78 C44 84 38 89 29 89 C15 89 3 79 3 63 C3 40 38 24 50 3 Z" }]],
  C: [["circle", { cx: 50, cy: 27, r: 21 }], ["circle", { cx: 27, cy: 62, r: 21 }],
    ["circle", { cx: 73, cy: 62, r: 21 }], ["path", { d: "M45 45 C45 75 40 89 31 97 L69 97 C60 89 55 75 55 45 Z" }]],
};

// Pip centres (x, y) on a 100×140 face for the number cards, the usual arrangement.
const PIPS = {
  2: [[50, 32], [50, 108]],
  3: [[50, 32], [50, 70], [50, 108]],
  4: [[33, 32], [67, 32], [33, 108], [67, 108]],
  5: [[33, 32], [67, 32], [50, 70], [33, 108], [67, 108]],
  6: [[33, 32], [67, 32], [33, 70], [67, 70], [33, 108], [67, 108]],
  7: [[33, 32], [67, 32], [50, 51], [33, 70], [67, 70], [33, 108], [67, 108]],
  8: [[33, 32], [67, 32], [50, 51], [33, 70], [67, 70], [50, 89], [33, 108], [67, 108]],
  9: [[33, 30], [67, 30], [33, 56], [67, 56], [50, 70], [33, 84], [67, 84], [33, 110], [67, 110]],
  10: [[33, 30], [67, 30], [50, 43], [33, 56], [67, 56], [33, 84], [67, 84], [50, 97], [33, 110], [67, 110]],
};

/** {rank, suit} of a canonical code such as "QS" or "TC". */
export function parseCard(code) {
  return { rank: code.slice(0, -1), suit: code.slice(-1) };
}

/** The rank as printed on a card: "10" for T. */
export function rankLabel(rank) {
  return rank === "T" ? "10" : rank;
}

export function isRed(code) {
  const { suit } = parseCard(code);
  return suit === "H" || suit === "D";
}

/** "♠Q", "♣10": the short display form of a code. */
export function prettyCard(code) {
  const { rank, suit } = parseCard(code);
  return SUIT_SYMBOL[suit] + rankLabel(rank);
}

// The point cards (分牌, R2) as the rules core lists them: `point_cards` of GET /api/config,
// handed over by each page once the server has answered (setPointCards).  The page knows no
// point card of its own: until then, none is one.
let pointCards = new Set();

/** Take the server's list of point cards (codes such as "QS"). */
export function setPointCards(codes) {
  pointCards = new Set(codes ?? []);
}

/** Whether `code` is a point card, as the server listed them (setPointCards). */
export function isPointCard(code) {
  return pointCards.has(code);
}

// Display order of a hand: suits alternate in colour (♠ ♥ ♣ ♦), high ranks first.
const SUIT_ORDER = { S: 0, H: 1, C: 2, D: 3 };

export function compareCards(a, b) {
  const x = parseCard(a);
  const y = parseCard(b);
  return SUIT_ORDER[x.suit] - SUIT_ORDER[y.suit] || RANKS.indexOf(y.rank) - RANKS.indexOf(x.rank);
}

export function sortCards(codes) {
  return [...codes].sort(compareCards);
}

function el(name, attrs = {}, text = null) {
  const node = document.createElementNS(SVG_NS, name);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  if (text !== null) node.textContent = text;
  return node;
}

/**
 * Insert once per page the shared <defs>: the four suit symbols and the back pattern.  Faces
 * then <use> them, which keeps a full table of cards small in the DOM and ids unique.
 */
export function installCardDefs(doc = document) {
  if (doc.getElementById("gz-card-defs")) return;
  const svg = el("svg", { id: "gz-card-defs", width: 0, height: 0, "aria-hidden": "true" });
  svg.style.position = "absolute";
  const defs = el("defs");
  for (const suit of SUITS) {
    const sym = el("symbol", { id: `gz-suit-${suit}`, viewBox: "0 0 100 100" });
    for (const [name, attrs] of SUIT_SHAPES[suit]) sym.append(el(name, attrs));
    defs.append(sym);
  }
  // The back: a diagonal lattice with small diamonds, in the classic two-colour style.
  const pat = el("pattern", { id: "gz-back", width: 12, height: 12, patternUnits: "userSpaceOnUse",
    patternTransform: "rotate(45)" });
  pat.append(el("rect", { width: 12, height: 12, fill: "#23418f" }));
  pat.append(el("path", { d: "M0 6 H12 M6 0 V12", stroke: "#6d8fe0", "stroke-width": 1.2 }));
  pat.append(el("rect", { x: 4, y: 4, width: 4, height: 4, fill: "#c9d6ff" }));
  defs.append(pat);
  svg.append(defs);
  doc.body.prepend(svg);
}

function suitUse(suit, x, y, size, rotate = false) {
  const attrs = { href: `#gz-suit-${suit}`, x: x - size / 2, y: y - size / 2, width: size, height: size };
  if (rotate) attrs.transform = `rotate(180 ${x} ${y})`;
  return el("use", attrs);
}

function corner(rank, suit, rotate) {
  const g = el("g", rotate ? { transform: "rotate(180 50 70)" } : {});
  const label = rankLabel(rank);
  g.append(el("text", { x: 12, y: 23, "text-anchor": "middle", "font-size": label.length > 1 ? 17 : 21,
    "font-weight": 700, "letter-spacing": label.length > 1 ? -1.5 : 0, class: "rank" }, label));
  g.append(suitUse(suit, 12, 34, 14));
  return g;
}

// Court cards and aces: a framed centre with the big rank; the pig and the sheep carry their
// name (猪, 羊; pig, sheep) because those are the cards a Gongzhu player looks for first, in the
// page's language: i18n.js sets the tags with setCardTags, and faces already drawn follow.
let cardTags = { QS: "猪", JD: "羊" };

export function setCardTags(tags) {
  cardTags = { ...tags };
  for (const tag of document.querySelectorAll("svg text.tag[data-tag]")) {
    tag.textContent = cardTags[tag.dataset.tag] ?? "";
    fitTag(tag);
  }
}

// A name longer than this many characters is squeezed into the frame (46 of the face's 100 units).
const TAG_ROOM = 5;

function fitTag(tag) {
  if ([...tag.textContent].length > TAG_ROOM) {
    tag.setAttribute("textLength", 46);
    tag.setAttribute("lengthAdjust", "spacingAndGlyphs");
  } else {
    tag.removeAttribute("textLength");
    tag.removeAttribute("lengthAdjust");
  }
}

function courtCentre(code, rank, suit) {
  const g = el("g");
  if (rank === "A") {
    g.append(suitUse(suit, 50, 70, code === "AH" ? 46 : 40));
    return g;
  }
  g.append(el("rect", { x: 24, y: 24, width: 52, height: 92, rx: 5, class: "frame" }));
  g.append(el("text", { x: 50, y: 84, "text-anchor": "middle", "font-size": 44, "font-weight": 700,
    class: "rank" }, rank));
  g.append(suitUse(suit, 36, 38, 14));
  if (!(code in cardTags)) {
    g.append(suitUse(suit, 64, 102, 14, true));
    return g;
  }
  // A tagged card: the lower suit sits small in the middle under the rank and the name takes the
  // frame's whole width below it (an English "sheep" is wider than 猪 or 羊), squeezed to fit
  // should it be wider still.
  g.append(suitUse(suit, 50, 93, 10, true));
  const tag = el("text", { x: 50, y: 112, "text-anchor": "middle", "font-size": 12, class: "tag", "data-tag": code },
    cardTags[code]);
  g.append(tag);
  fitTag(tag);
  return g;
}

/** An <svg> card face for a canonical code. */
export function cardFace(code) {
  const { rank, suit } = parseCard(code);
  const svg = el("svg", { viewBox: "0 0 100 140", class: `face ${isRed(code) ? "red" : "black"}`,
    "aria-hidden": "true", focusable: "false" });
  svg.append(el("rect", { x: 1, y: 1, width: 98, height: 138, rx: 8, class: "paper" }));
  svg.append(corner(rank, suit, false), corner(rank, suit, true));
  const n = rank === "T" ? 10 : Number(rank);
  if (n >= 2 && n <= 10) {
    for (const [x, y] of PIPS[n]) svg.append(suitUse(suit, x, y, 19, y > 70));
  } else {
    svg.append(courtCentre(code, rank, suit));
  }
  return svg;
}

/** An <svg> card back. */
export function cardBack() {
  const svg = el("svg", { viewBox: "0 0 100 140", class: "back", "aria-hidden": "true", focusable: "false" });
  svg.append(el("rect", { x: 1, y: 1, width: 98, height: 138, rx: 8, fill: "#fff", stroke: "#999" }));
  svg.append(el("rect", { x: 7, y: 7, width: 86, height: 126, rx: 5, fill: "url(#gz-back)" }));
  return svg;
}

/**
 * A small card (a seat plate's captured point cards): its rank and suit large in the top-left
 * corner, the part that shows when small cards overlap.  A <span class="mini red|black"> holding
 * the <svg>; the caller names it (role img, aria-label).
 */
export function cardMini(code) {
  const { rank, suit } = parseCard(code);
  const span = document.createElement("span");
  span.className = `mini ${isRed(code) ? "red" : "black"}`;
  span.dataset.mini = code;
  const svg = el("svg", { viewBox: "0 0 40 56", class: `face ${isRed(code) ? "red" : "black"}`,
    "aria-hidden": "true", focusable: "false" });
  svg.append(el("rect", { x: 0.75, y: 0.75, width: 38.5, height: 54.5, rx: 4, class: "paper" }));
  const label = rankLabel(rank);
  svg.append(el("text", { x: 3, y: 19, "font-size": label.length > 1 ? 15 : 19, "font-weight": 700,
    "letter-spacing": label.length > 1 ? -1.5 : 0, class: "rank" }, label));
  svg.append(suitUse(suit, 9.5, 30, 14));
  svg.append(suitUse(suit, 27, 43, 18));
  span.append(svg);
  return span;
}

/** A small text chip "♥A" in the card's colour, for captured cards, exposures and lists. */
export function cardChip(code, extraClass = "") {
  const span = document.createElement("span");
  span.className = `chip ${isRed(code) ? "red" : "black"} ${extraClass}`.trim();
  span.textContent = prettyCard(code);
  return span;
}
