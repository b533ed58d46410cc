// Small helpers shared by the table's modules, and the table's words. No words of its own: they
// all come from the page's #table-labels (games/labels.py, in the active language).

export const $ = (id) => document.getElementById(id);

export function readJSON(id) {
  const node = $(id);
  if (!node) return null;
  try {
    return JSON.parse(node.textContent);
  } catch {
    return null;
  }
}

const words = readJSON("table-labels") || {};
// The words by group: lances, phases, acts, said, hows, numbers, at_lance, parts, combos,
// cancel_reasons, bot_levels and table (the rest).
export const L = {
  lances: words.lances || {},
  phases: words.phases || {},
  acts: words.acts || {},
  said: words.said || {},
  hows: words.hows || {},
  numbers: words.numbers || {},
  at_lance: words.at_lance || {},
  parts: words.parts || {},
  combos: words.combos || {},
  cancel_reasons: words.cancel_reasons || {},
  bot_levels: words.bot_levels || {},
  table: words.table || {},
};

// The same rule as games.labels.fill: a placeholder without a value stays as it is.
export const fmt = (text, params) =>
  String(text ?? "").replace(/\{(\w+)\}/g, (m, k) =>
    params && Object.hasOwn(params, k) ? String(params[k]) : m,
  );

// A name a player chose, isolated from the text around it (Unicode's FSI … PDI): a right-to-left
// name cannot reorder the sentence it is put into. In an element of its own, <bdi> does it.
export const isolate = (name) => `\u2068${name}\u2069`;

// A seat's player as every page names them (games.labels.seat_name): a bot with its level,
// «Bot Nerea (fuerte)»; a player's bot with its owner; a person as they chose.
export const seatName = (info) => {
  if (!info) return "";
  const level = info.bot && info.bot_level && L.bot_levels[info.bot_level];
  if (level) return fmt(L.table.bot_name, { name: info.name, level });
  // A player's own bot account (docs/bot-api.md): «Trasto (bot de Ana)».
  if (info.bot_of) return fmt(L.table.bot_of, { name: info.name, owner: info.bot_of });
  return String(info.name || "");
};

export const joinNames = (list) =>
  list.length <= 1
    ? list.join("")
    : fmt(L.table.and, { a: list.slice(0, -1).join(", "), b: list[list.length - 1] });

export const clamp = (n, lo, hi) => Math.min(hi, Math.max(lo, n));

export const el = (tag, className, text) => {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = text;
  return node;
};

export const lanceLabel = (name) => L.lances[name] || name;

// How players say an amount: small ones in words («Cinco»), larger ones in figures.
export const numberWord = (n) => L.numbers[String(n)] || String(n);

// What one entry of the state's `said` reads like (games.labels.said_text says the same for the
// replay): `text`, and `small`, the print beside it (a raise's total on the table).
export function saidText(e) {
  let text;
  let small = "";
  switch (e.act) {
    case "descarte":
      text = fmt(L.said.descarte, { n: e.n });
      break;
    case "envido":
      if (e.more) {
        text = fmt(L.said.raise, { n: numberWord(e.more) });
        small = fmt(L.said.raise_total, { n: e.to });
      } else text = fmt(L.said.envido, { n: e.to });
      break;
    default:
      text = Object.hasOwn(L.said, e.act) ? L.said[e.act] : String(e.act);
  }
  if (e.by === "clock") text = fmt(L.said.clock, { said: text });
  return { text, small };
}

let toastTimer = null;
export function toast(text) {
  const box = $("toast");
  box.textContent = text;
  box.hidden = false;
  box.classList.add("show");
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => {
    box.classList.remove("show");
    box.hidden = true;
  }, 4000);
}
