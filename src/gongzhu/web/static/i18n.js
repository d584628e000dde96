// Every visible string of the pages, in 中文 and English, from the message catalog of the Python
// package gongzhu.messages (zh.json, en.json), which the server serves at /messages/<lang>.json:
// the same catalog the rules core's refusals, the hints and the terminal game are written in.
// Both are loaded before this module finishes, so every module that imports it (and so the page)
// draws with them.  "{name}" marks a parameter; "{name:type}" one that is itself translated: the
// entry "type.<value>" (e.g. {seat:who} with "N": 北家 / North), or the value where there is none;
// a list value is rendered item by item, joined by "sep.<type>" (else "sep.list").  Plurals are
// typed parameters too, as in gongzhu.messages: a number (an integer, or its ASCII digits) with no
// entry "type.<value>" but a type that has "type.other" takes the entry of its plural category,
// "type.one" or "type.other", with each "#" replaced by the number ({deals:deals}: "# deal",
// "# deals"; English's "one" is 1 and -1, Chinese has only "other", "# 副").
// Chinese terms follow docs/rules.md: 猪 pig, 羊 sheep, 变压器 transformer, 亮牌 exposure, 首明,
// 暗卖, 满红, 满贯, 当猪; seats 北 东 南 西.
// Names are isolated from the text around them (docs/web-protocol.md, Names): a name may be
// written in a right-to-left script (ناصر, נועה), whose direction would otherwise carry the
// numbers and marks beside it along ("ناصر: 12" read backwards).  Shown as an element, a name is a
// <bdi> of its own (`isolated`, `nameEl`); put into a message of the catalog, `tNodes` makes the
// parameters that name someone (NAMED: {name}, {host}, {from} …, and any given as a node) such an
// element; where only text can go (a tooltip, an <option>, the window's title, a confirmation),
// `isolatedText` wraps it in U+2068 … U+2069 (FIRST STRONG ISOLATE … POP DIRECTIONAL ISOLATE).
//
// May import: cards.js, settings.js.

import { prettyCard, rankLabel, setCardTags } from "./cards.js";
import { loadSettings, saveSettings } from "./settings.js";

async function loadCatalog(name) {
  const response = await fetch(`/messages/${name}.json`, { credentials: "same-origin" });
  if (!response.ok) throw new Error(`the message catalog /messages/${name}.json: HTTP ${response.status}`);
  return response.json();
}

const [zhTable, enTable] = await Promise.all([loadCatalog("zh"), loadCatalog("en")]);
export const ZH = zhTable;
export const EN = enTable;
const TABLES = { zh: ZH, en: EN };
let lang = "zh";

export function setLang(name) {
  lang = name in TABLES ? name : "zh";
  document.documentElement.lang = lang === "zh" ? "zh-CN" : "en";
  setCardTags({ QS: t("card.tag.QS"), JD: t("card.tag.JD") });
}

export function getLang() {
  return lang;
}

/** Each language's plural category of a number (PLURAL of gongzhu.messages). */
const PLURAL = { zh: () => "other", en: (n) => (Math.abs(n) === 1 ? "one" : "other") };

/** `value` as the number a plural counts, or null. */
function count(value) {
  if (Number.isInteger(value)) return value;
  return typeof value === "string" && /^-?[0-9]+$/.test(value) ? Number(value) : null;
}

/** A typed parameter's words: "type.<value>" of the current language, a number's plural form of
 * the type, or the value itself. */
function word(value, type) {
  const table = TABLES[lang];
  if (Array.isArray(value)) return value.map((v) => word(v, type)).join(table[`sep.${type}`] ?? table["sep.list"]);
  const exact = table[`${type}.${value}`] ?? ZH[`${type}.${value}`];
  if (exact !== undefined) return exact;
  const n = count(value);
  if (n !== null && `${type}.other` in table) {
    return (table[`${type}.${PLURAL[lang](n)}`] ?? table[`${type}.other`]).replaceAll("#", String(value));
  }
  return String(value);
}

/** The string for `key` in the current language, with "{name}" and "{name:type}" parameters filled in. */
export function t(key, params = {}) {
  const text = TABLES[lang][key] ?? ZH[key] ?? key;
  return text.replace(/\{(\w+)(?::(\w+))?\}/g, (whole, name, type) => {
    if (!(name in params)) return whole;
    return type ? word(params[name], type) : String(params[name]);
  });
}

/** The parameters of the catalog's messages that name someone or something by a name of its own:
 * a person (name, other, host, from, who, player, reporter, reported) or an entrant of an event
 * (entrant, home, away).  `tNodes` isolates them. */
const NAMED = new Set(["name", "other", "host", "from", "who", "player", "reporter", "reported", "entrant", "home", "away"]);

/** `text` (a name: an entrant's, a team's, an event's, as it is) as an element of its own: a
 * <bdi> (class `cls`), whose direction is its own and leaves the text around it alone. */
export function isolated(text, cls = "") {
  const e = document.createElement("bdi");
  if (cls) e.className = cls;
  e.textContent = String(text ?? "");
  return e;
}

/** A person's name as the page shows it (personName), isolated: a <bdi> of its own. */
export function nameEl(name, cls = "") {
  return isolated(personName(name), cls);
}

/** `text` isolated where only text can go (a tooltip, an <option>, the window's title, a
 * confirmation): between U+2068 FIRST STRONG ISOLATE and U+2069 POP DIRECTIONAL ISOLATE. */
export function isolatedText(text) {
  return `\u2068${text ?? ""}\u2069`;
}

/** Several names (`names`, each shown by `shown`: as it is unless given personName), each
 * isolated, one after another as the catalog joins a list ("Ann、ناصر" / "Ann, ناصر"). */
export function nameList(names, shown = (x) => x) {
  const out = document.createDocumentFragment();
  names.forEach((name, i) => {
    if (i) out.append(TABLES[lang]["sep.list"] ?? ZH["sep.list"]);
    out.append(isolated(shown(name)));
  });
  return out;
}

/** `t(key, params)` as nodes to append: a parameter given as a node goes in as that node, and one
 * that names someone (NAMED, untyped) as a <bdi> of its own, so that a name in a right-to-left
 * script does not reorder the message around it ("ناصر 邀请你到牌桌"). */
export function tNodes(key, params = {}) {
  const text = TABLES[lang][key] ?? ZH[key] ?? key;
  const nodes = [];
  let at = 0;
  for (const m of text.matchAll(/\{(\w+)(?::(\w+))?\}/g)) {
    const [whole, name, type] = m;
    if (!(name in params)) continue;
    if (m.index > at) nodes.push(document.createTextNode(text.slice(at, m.index)));
    const value = params[name];
    if (value instanceof Node) nodes.push(value);
    else if (type) nodes.push(document.createTextNode(word(value, type)));
    else if (NAMED.has(name)) nodes.push(isolated(value));
    else nodes.push(document.createTextNode(String(value)));
    at = m.index + whole.length;
  }
  if (at < text.length) nodes.push(document.createTextNode(text.slice(at)));
  return nodes;
}

/** A date and time in the page's language: `when` an ISO string or seconds (or milliseconds)
 * since the epoch; "" for none, the value as it is for one that is no date. */
export function dateText(when) {
  if (when === undefined || when === null) return "";
  const d = typeof when === "number" ? new Date(when < 1e12 ? when * 1000 : when) : new Date(when);
  return Number.isNaN(d.getTime()) ? String(when) : d.toLocaleString(lang === "zh" ? "zh-CN" : "en");
}

/** A refusal's text in the page's language: `key` (and `params`) of the catalog, or `text` as it
 * is, or a server's answer `body`: its catalog code, else its Chinese or English words, else the
 * HTTP `status`.  Said on its own (`alone`: a toast, a form's refusal) it is a sentence, in
 * English with a capital ("A password has 8 to 128 characters"; the catalog writes it lowercase,
 * to be put after a colon too); a name it begins with stays as it is ("bob is a guest"), and so
 * does an option written as the rule book writes it ("exposure=first_card …"). */
export function refusalText(refusal, { alone = true } = {}) {
  const { code, params, words } = refusalWords(refusal);
  const text = code !== undefined ? t(code, params) : words;
  return capitalised(code, text, alone) ? text[0].toUpperCase() + text.slice(1) : text;
}

/** `refusalText` as nodes to append: a name among the refusal's parameters (the name typed, the
 * name it looks like) isolated, as `tNodes` puts it in, and the table a person sits at elsewhere
 * a link to it (TABLE_LINKED). */
export function refusalNodes(refusal, { alone = true } = {}) {
  const { code, params, words } = refusalWords(refusal);
  if (code === undefined) return [document.createTextNode(capitalised(code, words, alone) ? words[0].toUpperCase() + words.slice(1) : words)];
  const linked = TABLE_LINKED.has(code) && typeof params.table === "string" ? { ...params, table: tableLink(params.table) } : params;
  const nodes = tNodes(code, linked);
  const first = nodes[0];
  if (capitalised(code, first?.textContent ?? "", alone) && first instanceof Text) {
    first.data = first.data[0].toUpperCase() + first.data.slice(1);
  }
  return nodes;
}

/** The refusals whose {table} is the id of a table the person sits at (another table under way, a
 * table not over): drawn as a link to it, where they stand up. */
const TABLE_LINKED = new Set(["server.seated_elsewhere", "account_care.delete_seated", "account_care.rename_seated"]);

/** A link to the table page of the table `id`, the id its words. */
function tableLink(id) {
  const a = document.createElement("a");
  a.href = `/table/${encodeURIComponent(id)}`;
  a.textContent = id;
  return a;
}

/** A refusal's catalog code and parameters, or, without a code, its words. */
function refusalWords({ body, status, text, key, params }) {
  const code = key ?? (text === undefined && body && hasText(body.code) ? body.code : undefined);
  if (code !== undefined) return { code, params: (key !== undefined ? params : body.params) ?? {} };
  if (text !== undefined) return { words: String(text) };
  if (lang === "zh" && body?.message_zh) return { words: body.message_zh };
  return { words: body?.error ?? `HTTP ${status}` };
}

/** Whether a refusal said on its own begins with a capital: in English, where a word of the
 * catalog's own begins it — not a name put in, nor an option's name as it is written
 * (exposure=first_card, self_catch). */
function capitalised(code, words, alone) {
  const template = code !== undefined ? TABLES[lang][code] ?? ZH[code] ?? code : words;
  return alone && lang === "en" && words.length > 0 && /^[a-z]+(?![\w=])/.test(template);
}

/** A page of its own (history, profile, leaderboard, rules): its language as remembered, and its
 * 中文 / English button (#lang), which switches, remembers, relabels the page and calls `redraw`. */
export function startPageLanguage(redraw) {
  setLang(loadSettings().lang);
  applyI18n();
  document.getElementById("lang").addEventListener("click", () => {
    const lang = getLang() === "zh" ? "en" : "zh";
    saveSettings({ ...loadSettings(), lang });
    setLang(lang);
    applyI18n();
    redraw();
  });
}

/** A score as players write it: +100, −200 (a true minus sign), 0. */
export function signedNumber(n) {
  return n > 0 ? `+${n}` : n < 0 ? `−${-n}` : "0";
}

/** When the match ends (R8), from a table state's `goal`: "有人总分达到 −1000 时比赛结束…". */
export function goalText(goal) {
  if (!goal) return "";
  if (goal.kind === "deals") return t("summary.goal.deals", { limit: goal.limit });
  return t(goal.kind === "either" ? "summary.goal.either" : "summary.goal.loser", { limit: goal.limit });
}

/** Whether the catalog has `key` (e.g. the code of a refusal the server sent). */
export function hasText(key) {
  return typeof key === "string" && key in ZH;
}

/** `key` if the table has it, else `fallback` (for values the server may add later). */
function tOr(key, fallback, params = {}) {
  return key in ZH ? t(key, params) : fallback;
}

/** Fill [data-i18n] (text), [data-i18n-title] and [data-i18n-aria-label] under `root`. */
export function applyI18n(root = document) {
  for (const node of root.querySelectorAll("[data-i18n]")) node.textContent = t(node.dataset.i18n);
  for (const node of root.querySelectorAll("[data-i18n-title]")) node.title = t(node.dataset.i18nTitle);
  for (const node of root.querySelectorAll("[data-i18n-aria-label]")) {
    node.setAttribute("aria-label", t(node.dataset.i18nAriaLabel));
  }
}

export const seatName = (seat) => tOr(`seat.${seat}`, seat);

/** An account's rating as a seat shows it (`info`: its `rating`, `deviation`, `provisional`):
 * the text, "★1523" ("★1500?" while provisional), and its tooltip with the deviation. */
export function ratingText(info) {
  return {
    text: `★${info.rating}${info.provisional ? "?" : ""}`,
    title: t(info.provisional ? "seat.ratingProvisional" : "seat.rating", { rating: info.rating, deviation: info.deviation ?? "" }),
  };
}

/** What a claim (声称, R5.4) says, in the page's language: "其余各圈都归自己", "a score of at least 10". */
export function claimWhat(claim) {
  return claim.kind === "score" ? t("claim.said.score", { value: claim.value }) : t(`claim.said.${claim.kind}`);
}

/** Seats named one after another: "东、西" / "East, West". */
export function seatList(seats) {
  return seats.map(seatName).join(getLang() === "zh" ? "、" : ", ");
}

// A guest's generated name: 游客 and digits, stored once in that form (gongzhu.server.identity).
const GUEST = /^游客([0-9]+)$/;
// A deleted account's neutral name: deleted- and hex digits (gongzhu.server.account_care).
const DELETED = /^deleted-[0-9a-f]+$/;

/** A person's name as the page shows it: a guest's generated name in the page's language
 * ("name.guest": 游客4821, Guest4821), a deleted account's as 已删除的玩家 / deleted player
 * ("account_care.deleted_player"), any other name as it is. */
export function personName(name) {
  const guest = typeof name === "string" ? GUEST.exec(name) : null;
  if (typeof name === "string" && DELETED.test(name)) return t("account_care.deleted_player");
  return guest ? t("name.guest", { n: guest[1] }) : name ?? "";
}
export const presetLabel = (name) => tOr(`preset.${name}`, name);
export const levelLabel = (name) => tOr(`level.${name}`, name);
export const speedLabel = (name) => tOr(`speed.${name}`, name);
export const optionLabel = (key) => tOr(`opt.${key}`, key);
export const titleLabel = (title) => tOr(`title.${title}`, title ?? "");

/** An R10 option value in words: "逆时针" for direction=ccw, "12 副" for match_end=deals:12. */
export function optionValueLabel(key, value) {
  if (typeof value === "boolean") return t(`val.${value}`);
  const deals = typeof value === "string" ? /^deals:(\d+)$/.exec(value) : null;
  if (deals) return t("val.match_end.deals", { n: deals[1] });
  return tOr(`val.${key}.${value}`, String(value));
}

/** A deal event of the scoring (R6): all_hearts, grand_slam, transformer_alone, self_catch:QS. */
export function eventLabel(event) {
  const [name, card] = String(event).split(":");
  if (card) return tOr(`event.${name}`, event, { card: prettyCard(card) });
  return tOr(`event.${name}`, event);
}

/** A card's accessible name: "黑桃Q 猪", "Q of spades, the pig". */
export function cardName(code) {
  const name = t("card.name", { suit: t(`card.${code.slice(-1)}`), rank: rankLabel(code.slice(0, -1)) });
  const special = `card.${code}` in ZH ? t(`card.${code}`) : "";
  if (!special) return name;
  return lang === "zh" ? `${name} ${special}` : `${name}, ${special}`;
}
