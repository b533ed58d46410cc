// The felt: the score, the four seats (names, clocks' places, speech bubbles, chips) and the
// cards, face up only where the state shows them.
import { SHOWN, root, seatEls, table } from "./context.js";
import { $, L, el, fmt, isolate, readJSON } from "./format.js";

const cardData = readJSON("card-data") || {}; // every card's image and name, from the page
const seatRatings = readJSON("seat-ratings") || {}; // seat → «1523?» (people only, not bots)

function cardImg(code) {
  const img = el("img", code ? "card-img face" : "card-img back");
  const info = code && cardData.cards && cardData.cards[code];
  if (code) {
    img.src = info ? info.src : `${root.dataset.cardBase}${code}.svg`;
    img.alt = info && info.name ? info.name : code;
    img.dataset.code = code;
  } else {
    img.src = cardData.back || `${root.dataset.cardBase}back.svg`;
    img.alt = L.table.card_back;
    img.dataset.code = "back";
  }
  img.width = 72;
  img.height = 108;
  img.draggable = false;
  img.decoding = "async";
  img.addEventListener("error", () => img.classList.add("missing"), { once: true });
  return img;
}

// -- speech -----------------------------------------------------------------------------------
function saidText(e, raise) {
  switch (e.act) {
    case "descarte":
      return fmt(L.said.descarte, { n: e.n });
    case "envido":
      return fmt(raise ? L.said.raise : L.said.envido, { n: e.to });
    case "mus":
    case "corto":
    case "paso":
    case "ordago":
    case "quiero":
    case "no_quiero":
      return L.said[e.act];
    default:
      return e.act;
  }
}

// The said list with each bet marked as an opening or a raise.
export function annotatedSaid(s) {
  const out = [];
  const betIn = new Set();
  for (const e of s.said || []) {
    let raise = false;
    if (e.act === "envido" || e.act === "ordago") {
      raise = betIn.has(e.lance);
      betIn.add(e.lance);
    }
    out.push({ e, text: saidText(e, raise) });
  }
  return out;
}

function bubbles(s, said) {
  const out = [null, null, null, null];
  if (s.phase === "mus" || s.phase === "descarte") {
    for (const { e, text } of said) if (!e.lance) out[e.seat] = { text, act: e.act };
    if (s.phase === "descarte")
      for (const seat of s.discarded || []) out[seat] = { text: L.said.ready, act: "ready" };
  } else if (s.phase === "lance") {
    for (const { e, text } of said) if (e.lance === s.lance) out[e.seat] = { text, act: e.act };
    if (s.bet) for (const seat of s.bet.votes || []) out[seat] = { text: L.said.ready, act: "ready" };
  }
  return out;
}

// -- drawing ----------------------------------------------------------------------------------
export function renderScore(s, ctx) {
  const target = s.target || 40;
  const scores = s.scores || [0, 0];
  const line = $("score-line");
  line.textContent = "";
  const part = (team) => {
    const span = el("span", `score side-${ctx.rel(team) === 0 ? "us" : "them"}`);
    span.append(el("span", "score-team", ctx.teamName(team)), " ");
    span.append(el("b", "score-pts", String(scores[team] ?? 0)), `/${target}`);
    return span;
  };
  const first = ctx.me === null ? 0 : ctx.me % 2;
  line.append(part(first), el("span", "score-sep", " · "), part(1 - first));
}

function handCodes(s, ctx, seat) {
  if (ctx.shown) return s.hands[seat] || [];
  if (seat === ctx.me) return (s.you && s.you.cards) || [];
  return null; // face down
}

function renderHand(box, s, ctx, seat) {
  const { selected } = table;
  const codes = handCodes(s, ctx, seat);
  const mine = seat === ctx.me && !ctx.shown;
  const selectable = mine && !!ctx.by.descarte && !table.pending;
  const key = JSON.stringify([codes, mine, selectable, ctx.shown, [...selected]]);
  if (box.dataset.key === key) return;
  box.dataset.key = key;
  box.textContent = "";
  box.classList.toggle("mine", mine);
  box.classList.toggle("face-up", !!codes);
  box.classList.toggle("selectable", selectable);
  box.setAttribute(
    "aria-label",
    seat === ctx.me ? L.table.your_hand : fmt(L.table.hand_of, { name: ctx.name(seat) }),
  );
  if (codes === null) {
    for (let i = 0; i < 4; i++) box.append(cardImg(null));
    return;
  }
  for (const code of codes) {
    if (mine) {
      const btn = el("button", "card-btn");
      btn.type = "button";
      btn.dataset.code = code;
      btn.disabled = !selectable;
      btn.setAttribute("aria-pressed", selected.has(code) ? "true" : "false");
      btn.classList.toggle("picked", selected.has(code));
      btn.append(cardImg(code));
      box.append(btn);
    } else {
      box.append(cardImg(code));
    }
  }
}

export function renderSeats(s, ctx, said) {
  const talk = bubbles(s, said);
  const changed = (s.changed && s.changed.last) || [0, 0, 0, 0];
  const changedTotal = (s.changed && s.changed.total) || [0, 0, 0, 0];
  const answers = s.answers || {};
  for (let seat = 0; seat < 4; seat++) {
    const box = seatEls[ctx.pos(seat)];
    if (!box) continue;
    const info = (s.seats || [])[seat];
    box.dataset.seat = String(seat);
    box.classList.toggle("is-me", seat === ctx.me);
    box.classList.toggle("side-us", ctx.rel(seat % 2) === 0);
    box.classList.toggle("side-them", ctx.rel(seat % 2) === 1);
    box.classList.toggle("turn", ctx.turn.includes(seat));
    // A seat whose player dropped out waits for them (RULES.md §8.3) with a countdown.
    const away = !!(info && info.away_until && !info.connected);
    box.classList.toggle("away", away);

    const nameEl = box.querySelector(".seat-name");
    nameEl.textContent = "";
    nameEl.append(info ? el("bdi", null, info.name) : "—");
    nameEl.title = info ? isolate(info.name) : "";
    const rating = info && seatRatings[seat];
    if (rating) {
      nameEl.append(" ", el("span", "seat-elo", rating));
      nameEl.title = `${isolate(info.name)} · ${fmt(L.table.rating_title, { n: rating })}`;
    }
    if (seat === ctx.me) nameEl.append(" ", el("span", "badge you", L.table.you));
    box.querySelector(".mano-chip").hidden = !(s.mano === seat && s.phase !== "cancelada");

    const awayEl = box.querySelector(".seat-away");
    awayEl.hidden = !away;
    awayEl.dataset.until = (info && info.away_until) || "";
    box.querySelector(".seat-clock").hidden = true; // the ticker shows it

    const bubble = box.querySelector(".bubble");
    const b = talk[seat];
    bubble.hidden = !b;
    bubble.parentElement.hidden = !b;
    bubble.textContent = b ? b.text : "";
    bubble.className = `bubble${b ? ` said-${b.act}` : ""}`;

    renderHand(box.querySelector(".hand"), s, ctx, seat);

    const chips = box.querySelector(".chips");
    chips.textContent = "";
    if (changed[seat] > 0 && !SHOWN.includes(s.phase)) {
      const chip = el("span", "chip changed", fmt(L.table.changed, { n: changed[seat] }));
      chip.title = fmt(L.table.changed_title, { n: changed[seat], total: changedTotal[seat] });
      chips.append(chip);
    }
    for (const [key, yes, no] of [
      ["pares", L.table.pares_yes, L.table.pares_no],
      ["juego", L.table.juego_yes, L.table.juego_no],
    ]) {
      const list = answers[key];
      if (Array.isArray(list)) chips.append(el("span", `chip ${list[seat] ? "yes" : "no"}`, list[seat] ? yes : no));
    }
  }
}
