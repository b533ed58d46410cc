// The middle of the felt and the side column: the lance strip, the phase, the bet, whose turn it
// is, the lance-by-lance results and the log of what everybody said.
import { comboName, handName } from "./felt.js";
import { $, L, el, fmt, joinNames, lanceLabel } from "./format.js";

// What the winning hand of a breakdown row beat (games.labels.beaten says the same), or "".
export function beatText(b, ctx) {
  if (!b || !b.beat) return "";
  return fmt(b.tie ? L.table.beat_tie : L.table.beat, { hand: handName(b.beat, ctx) });
}

function howText(l) {
  switch (l.how) {
    case "querido":
      return fmt(L.hows.querido_bet, { n: (l.detail && l.detail.bet) || "" });
    case "paso":
    case "no_querido":
    case "sin_apuesta":
    case "ordago":
    case "no_jugado":
      return L.hows[l.how];
    default:
      return l.how || "";
  }
}

// One part of a lance's tantos at the recuento: «duples de Maite» and its tantos.
function partLabel(p, ctx) {
  const key = p.kind === "punto" && typeof p.seat !== "number" ? "punto_bare" : p.kind;
  const name = typeof p.seat === "number" ? ctx.name(p.seat) : "";
  return fmt(L.parts[key] || key, { name, points: p.points });
}

// The parts worth spelling out: more than one, or one that names a player's hand.
const explains = (b) => !!b && (b.parts.length > 1 || b.parts.some((p) => typeof p.seat === "number"));

function renderLances(tableEl, s, ctx, final) {
  const body = tableEl.querySelector("tbody");
  body.textContent = "";
  const lances = s.lances || [];
  const breakdown = (final && s.breakdown) || [];
  if (!lances.length) {
    const cell = el("td", "none", L.table.lances_none);
    cell.colSpan = 3;
    const row = el("tr", "none-row");
    row.append(cell);
    body.append(row);
  }
  lances.forEach((l, i) => {
    const b = breakdown[i] && breakdown[i].lance === l.lance ? breakdown[i] : null;
    const tr = el("tr", `lance-row how-${l.how}`);
    tr.dataset.lance = l.lance;
    const th = el("th", null, lanceLabel(l.lance));
    th.scope = "row";
    th.append(el("small", "how", howText(l)));
    // While the cards are hidden only a refused bet (paid at once) has its tantos; the team
    // that won without betting is known, its tantos come at the recuento.
    const hasWinner = l.winner !== null && l.winner !== undefined;
    const known = final || (hasWinner && l.how === "no_querido");
    const winner = el("td", "winner", hasWinner ? ctx.teamName(l.winner) : "—");
    if (hasWinner) winner.classList.add(`side-${ctx.rel(l.winner) === 0 ? "us" : "them"}`);
    if (b && b.win) {
      // The hand that won it, named: «Maite · duples».
      const combo = comboName(b.win);
      const who = el("small", "won-by", combo ? `${ctx.name(b.win.seat)} · ${combo}` : ctx.name(b.win.seat));
      winner.append(who);
      // What it beat, in the row (a phone has no hover): «gana a Iñaki (par)», or a tie won
      // by being closer to the mano.
      const beat = beatText(b, ctx);
      if (beat) winner.append(el("small", b.tie ? "beat tie" : "beat", beat));
    }
    let tantos;
    // Not played, or not reached (an órdago or a deje ended the game before the recuento).
    if (l.how === "no_jugado" || (final && !hasWinner)) tantos = el("td", "tantos", "—");
    else if (l.how === "ordago") tantos = el("td", "tantos", L.table.tantos_ordago);
    else if (!known) tantos = el("td", "tantos pending", L.table.tantos_pending);
    else {
      const shown = final ? l.counted : l.tantos;
      tantos = el("td", "tantos", String(shown ?? 0));
      if (final && l.counted !== l.tantos) {
        tantos.classList.add("not-counted");
        tantos.title = L.table.not_counted;
        tantos.append(el("s", "worth", ` ${l.tantos}`));
      }
    }
    tr.append(th, winner, tantos);
    body.append(tr);
    if (explains(b)) {
      // What the tantos add up to, so nobody has to do the sum: «deje 1 + duples de Maite 3».
      const row = el("tr", "parts-row");
      const cell = el("td", "parts");
      cell.colSpan = 3;
      b.parts.forEach((p, k) => {
        if (k) cell.append(" + ");
        const part = el("span", "part", `${partLabel(p, ctx)} `);
        part.append(el("b", null, String(p.tantos)));
        cell.append(part);
      });
      row.append(cell);
      body.append(row);
    }
  });
}

function phaseLabel(s) {
  if (s.phase === "lance") return lanceLabel(s.lance || "");
  if (["mus", "descarte", "recuento", "terminada", "cancelada"].includes(s.phase))
    return L.phases[s.phase];
  return "";
}

export function renderCenter(s, ctx) {
  const strip = $("lance-strip");
  strip.hidden = s.phase !== "lance";
  const done = new Set((s.lances || []).map((l) => (l.lance === "punto" ? "juego" : l.lance)));
  const current = s.lance === "punto" ? "juego" : s.lance;
  const punto = s.lance === "punto" || (s.lances || []).some((l) => l.lance === "punto");
  for (const li of strip.children) {
    const name = li.dataset.lance;
    li.classList.toggle("current", name === current);
    li.classList.toggle("done", done.has(name) && name !== current);
    if (name === "juego") li.textContent = punto ? L.lances.punto : L.lances.juego;
  }

  $("phase-label").textContent = phaseLabel(s);
  const cut = cutToMano(s);
  const note = $("table-note");
  note.textContent = cut !== null && s.phase === "lance" ? fmt(L.table.cut_mano, { name: ctx.name(cut) }) : "";

  const bet = $("bet");
  bet.hidden = s.phase !== "lance";
  bet.classList.toggle("on", !!s.bet);
  bet.classList.toggle("ordago", !!(s.bet && s.bet.ordago));
  if (!s.bet) bet.textContent = L.table.bet_none;
  else if (s.bet.ordago) bet.textContent = fmt(L.table.bet_ordago, { name: ctx.name(s.bet.by_seat) });
  else {
    // The short form for a narrow centre: the bubble says who bet.
    bet.textContent = "";
    bet.append(
      el("span", "bet-long", fmt(L.table.bet, { n: s.bet.amount, name: ctx.name(s.bet.by_seat) })),
      el("span", "bet-short", fmt(L.table.bet_short, { n: s.bet.amount })),
    );
  }

  const T = L.table;
  const mine = ctx.me !== null && ctx.turn.includes(ctx.me);
  const others = ctx.turn.map(ctx.name);
  let text = "";
  if (s.phase === "mus") text = mine ? T.turn_you : fmt(T.turn_of, { names: joinNames(others) });
  else if (s.phase === "descarte")
    text = mine && ctx.by.descarte ? T.turn_you : fmt(T.turn_discard, { names: joinNames(others) });
  else if (s.phase === "lance") {
    if (s.bet) text = mine ? T.turn_answer_you : fmt(T.turn_answer, { names: joinNames(others) });
    else text = mine ? T.turn_you : fmt(T.turn_of, { names: joinNames(others) });
  } else if (s.phase === "recuento" && ctx.turn.length) {
    // «Seguir»: the next hand comes when everybody has pressed it, or when the clock runs out.
    const waiting = ctx.turn.filter((seat) => seat !== ctx.me).map(ctx.name);
    if (ctx.by.repartir) text = T.deal_you;
    else if (waiting.length === 1) text = fmt(T.deal_other, { name: waiting[0] });
    else text = fmt(T.deal_others, { names: joinNames(waiting) });
  }
  $("turn-text").textContent = text;
  $("turn-msg").classList.toggle("mine", mine && ctx.legal.length > 0);

  const rec = $("recuento");
  rec.hidden = !ctx.shown || !(s.lances || []).length;
  if (!rec.hidden) renderLances($("lances-center"), s, ctx, true);
  // The side's table: the lances so far, and once the cards are shown the felt's own (a phone's
  // «Lances» tab is where it is read after the game; a wide screen shows the felt's only).
  renderLances($("lances-side"), s, ctx, ctx.shown);
  $("side-lances").classList.toggle("empty", ctx.shown || !(s.lances || []).length);
}

// Who became mano in the first hand by cutting (docs/rules.md §3.2: whoever says «corto» in the first
// hand is mano), or null: the badge moving is not enough to tell it.
export function cutToMano(s) {
  if (s.hand_no !== 1 || typeof s.deal_mano !== "number" || s.mano === s.deal_mano) return null;
  return s.mano;
}

// When `said[i]` ends a pair's answer to a bet in which a vote was overruled (the server marks
// it: docs/protocol.md), the answer that counted: `{votes, seat, text, small}`; else null. A pair's
// answer is the run of its votes in one lance.
function pairAnswer(said, i) {
  const same = (a, b) => a && b && a.e.lance === b.e.lance && a.e.seat % 2 === b.e.seat % 2;
  if (!said[i].e.lance || same(said[i], said[i + 1])) return null;
  let start = i;
  while (start > 0 && same(said[start - 1], said[i])) start -= 1;
  const votes = said.slice(start, i + 1);
  if (!votes.some((v) => v.e.overruled)) return null;
  const counted = votes.find((v) => !v.e.overruled);
  if (!counted) return null;
  return { votes, seat: counted.e.seat, text: counted.text, small: counted.small };
}

export function renderLog(s, ctx, said) {
  const log = $("log");
  const key = JSON.stringify([s.hand_no, s.said, s.mano, s.seats && s.seats.map((x) => x && x.name)]);
  if (log.dataset.key === key) return false;
  const fresh = log.dataset.key !== undefined;
  log.dataset.key = key;
  const before = log.querySelectorAll(".log-entry, .log-note").length;
  log.textContent = "";
  const cut = cutToMano(s);
  let group;
  said.forEach(({ e, text, small }, i) => {
    const g = e.lance || "mus";
    if (g !== group) {
      group = g;
      log.append(el("li", "log-head", g === "mus" ? L.phases.mus : lanceLabel(g)));
    }
    const side = `side-${ctx.rel(e.seat % 2) === 0 ? "us" : "them"}`;
    const li = el("li", `log-entry ${side}`);
    if (e.by === "clock") li.classList.add("by-clock");
    li.append(el("b", null, ctx.name(e.seat)), " ", text);
    if (small) li.append(" ", el("small", null, small));
    if (e.overruled) {
      li.classList.add("overruled");
      li.append(" ", el("small", "overruled-note", L.table.overruled));
    }
    log.append(li);
    const answer = pairAnswer(said, i);
    if (answer) {
      // Partners who voted differently: what the pair answered, said once for both.
      // The one whose vote counted first: «Maite y Ane: Dos más».
      const seats = [answer.seat, ...answer.votes.map((v) => v.e.seat)];
      const names = joinNames([...new Set(seats)].map(ctx.name));
      const decided = el("li", `log-entry log-decided ${side}`, fmt(L.table.pair_decided, { names, said: answer.text }));
      if (answer.small) decided.append(" ", el("small", null, answer.small));
      log.append(decided);
    }
    if (cut !== null && e.act === "corto" && e.seat === cut)
      log.append(el("li", "log-note", fmt(L.table.cut_mano, { name: ctx.name(cut) })));
  });
  log.scrollTop = log.scrollHeight;
  const after = log.querySelectorAll(".log-entry, .log-note").length;
  return fresh && after > before ? after - before : 0;
}
