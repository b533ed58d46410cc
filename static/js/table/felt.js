// The felt: the score, the four seats (names, clocks' places, speech bubbles, chips) and the
// cards, face up only where the state shows them.
import { SHOWN, root, seatEls, table } from "./context.js";
import { $, L, el, fmt, isolate, lanceLabel, readJSON, saidText, seatName } from "./format.js";

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
// The said list with each entry's words (a raise as players say it, «Cinco más»).
export function annotatedSaid(s) {
  return (s.said || []).map((e) => ({ e, ...saidText(e) }));
}

function bubbles(s, said) {
  const out = [null, null, null, null];
  const put = (seat, b) => {
    out[seat] = b;
  };
  if (s.phase === "mus" || s.phase === "descarte") {
    for (const b of said) if (!b.e.lance) put(b.e.seat, b);
    if (s.phase === "descarte")
      for (const seat of s.discarded || []) put(seat, { e: { act: "ready" }, text: L.said.ready, small: "" });
  } else if (s.phase === "recuento") {
    // Who has pressed «Seguir» already.
    for (const seat of s.ready || []) put(seat, { e: { act: "ready" }, text: L.said.ready, small: "" });
  } else if (s.phase === "lance") {
    // A vote its partner overrode no longer applies: its bubble goes (the pair's answer stays).
    for (const b of said) if (b.e.lance === s.lance) put(b.e.seat, b.e.overruled ? null : b);
    if (s.bet)
      for (const seat of s.bet.votes || []) put(seat, { e: { act: "ready" }, text: L.said.ready, small: "" });
  }
  return out;
}

// The name of the combination a hand won a lance with («duples», «31», «27 de punto»).
export function comboName(hand) {
  if (!hand || !hand.combo) return "";
  return fmt(L.combos[hand.combo] || hand.combo, { points: hand.points });
}

// A hand of the breakdown (`{seat, combo, points}`) named: «Maite (duples)», or «Maite».
export function handName(hand, ctx) {
  const combo = comboName(hand);
  return combo ? fmt(L.table.hand_with, { name: ctx.name(hand.seat), combo }) : ctx.name(hand.seat);
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
  if (ctx.faceUp) return s.hands[seat] || [];
  if (seat === ctx.me) return (s.you && s.you.cards) || [];
  return null; // face down
}

// Which cards arrive with this state, per seat (indexes into the hand drawn): all four at a
// new deal, the changed ones when a discard round is complete. None when the page opens.
export function arrivals(prev, s) {
  const none = [[], [], [], []];
  if (!prev || !s || SHOWN.includes(s.phase)) return none;
  if (s.hand_no !== prev.hand_no && s.phase === "mus") return none.map(() => [0, 1, 2, 3]);
  if (prev.hand_no === s.hand_no && prev.phase === "descarte" && s.phase !== "descarte") {
    const last = (s.changed && s.changed.last) || [0, 0, 0, 0];
    return last.map((n) => Array.from({ length: n }, (_, i) => 3 - i));
  }
  return none;
}

function renderHand(box, s, ctx, seat, arriving) {
  const { selected } = table;
  const codes = handCodes(s, ctx, seat);
  const mine = seat === ctx.me && !ctx.shown;
  const selectable = mine && !!ctx.by.descarte && !table.pending;
  const key = JSON.stringify([codes, mine, selectable, ctx.faceUp, [...selected]]);
  if (box.dataset.key === key && !arriving.length) return;
  const before = box.dataset.codes ? JSON.parse(box.dataset.codes) : null;
  box.dataset.key = key;
  box.dataset.codes = JSON.stringify(codes);
  box.textContent = "";
  box.classList.toggle("mine", mine);
  box.classList.toggle("face-up", !!codes);
  box.classList.toggle("selectable", selectable);
  box.setAttribute(
    "aria-label",
    seat === ctx.me ? L.table.your_hand : fmt(L.table.hand_of, { name: ctx.name(seat) }),
  );
  // A card that arrives slides in (styles leave it still for who prefers reduced motion). The
  // player's own new cards are the ones not held before; the others' are counted.
  const fresh = (code, i) =>
    code && before && arriving.length && arriving.length < 4 ? !before.includes(code) : arriving.includes(i);
  const mark = (img, code, i) => {
    if (!fresh(code, i)) return img;
    img.classList.add("arrive");
    img.style.setProperty("--i", String(i));
    return img;
  };
  if (codes === null) {
    for (let i = 0; i < 4; i++) box.append(mark(cardImg(null), null, i));
    return;
  }
  codes.forEach((code, i) => {
    if (mine) {
      const btn = el("button", "card-btn");
      btn.type = "button";
      btn.dataset.code = code;
      btn.disabled = !selectable;
      btn.setAttribute("aria-pressed", selected.has(code) ? "true" : "false");
      btn.classList.toggle("picked", selected.has(code));
      btn.append(mark(cardImg(code), code, i));
      box.append(btn);
    } else {
      box.append(mark(cardImg(code), code, i));
    }
  });
}

export function renderSeats(s, ctx, said, arriving = [[], [], [], []]) {
  const talk = bubbles(s, said);
  const changed = (s.changed && s.changed.last) || [0, 0, 0, 0];
  const changedTotal = (s.changed && s.changed.total) || [0, 0, 0, 0];
  const answers = s.answers || {};
  const wins = [[], [], [], []];
  if (ctx.shown) for (const b of s.breakdown || []) if (b.win) wins[b.win.seat].push(b);
  for (let seat = 0; seat < 4; seat++) {
    const box = seatEls[ctx.pos(seat)];
    if (!box) continue;
    const info = (s.seats || [])[seat];
    box.dataset.seat = String(seat);
    box.classList.toggle("is-me", seat === ctx.me);
    box.classList.toggle("side-us", ctx.rel(seat % 2) === 0);
    box.classList.toggle("side-them", ctx.rel(seat % 2) === 1);
    box.classList.toggle("turn", ctx.turn.includes(seat));
    // A seat whose player dropped out waits for them (docs/rules.md §8.3) with a countdown.
    const away = !!(info && info.away_until && !info.connected);
    box.classList.toggle("away", away);

    // Long names are cut short on the felt; the whole name is in the title and a tap shows it.
    const nameEl = box.querySelector(".seat-name");
    const full = info ? seatName(info) : "—";
    const rating = info && seatRatings[seat];
    const nameKey = JSON.stringify([full, rating, seat === ctx.me]);
    if (nameEl.dataset.key !== nameKey) {
      nameEl.dataset.key = nameKey;
      nameEl.textContent = "";
      nameEl.append(el("bdi", "seat-name-text", full));
      let title = rating ? `${isolate(full)} · ${fmt(L.table.rating_title, { n: rating })}` : isolate(full);
      if (rating && rating.endsWith("?")) title += ` (${L.table.provisional})`;
      nameEl.title = title;
      if (rating) nameEl.append(el("span", "seat-elo", rating));
      if (seat === ctx.me) nameEl.append(el("span", "badge you", L.table.you));
    }
    const live = s.phase !== "cancelada" && typeof s.mano === "number";
    box.querySelector(".mano-chip").hidden = !(live && s.mano === seat);
    // The postre speaks last: the seat before the mano.
    box.querySelector(".postre-chip").hidden = !(live && (s.mano + 3) % 4 === seat);

    const awayEl = box.querySelector(".seat-away");
    awayEl.hidden = !away;
    awayEl.dataset.until = (info && info.away_until) || "";
    box.querySelector(".seat-clock").hidden = true; // the ticker shows it

    const bubble = box.querySelector(".bubble");
    const b = talk[seat];
    bubble.hidden = !b;
    bubble.parentElement.hidden = !b;
    bubble.textContent = b ? b.text : "";
    if (b && b.small) bubble.append(" ", el("small", "bubble-total", b.small));
    bubble.className = `bubble${b ? ` said-${b.e.act}` : ""}${b && b.e.by === "clock" ? " by-clock" : ""}`;

    renderHand(box.querySelector(".hand"), s, ctx, seat, arriving[seat]);

    const chips = box.querySelector(".chips");
    chips.textContent = "";
    const won = wins[seat];
    box.querySelector(".hand").classList.toggle("won", won.length > 0);
    if (won.length) {
      // At the recuento: the lances this hand won, with the combination it won them with.
      for (const w of won) {
        const combo = comboName(w.win);
        chips.append(el("span", "chip won", combo ? `${lanceLabel(w.lance)} · ${combo}` : lanceLabel(w.lance)));
      }
      continue;
    }
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

// A tap on a name cut short shows it whole (a phone has no hover for the title). `within`: the
// element that holds the table (one the page keeps while it swaps the table inside).
export function bindNames(within = root) {
  within.addEventListener("click", (event) => {
    const name = event.target.closest(".seat-name");
    if (name) name.classList.toggle("full");
  });
}
