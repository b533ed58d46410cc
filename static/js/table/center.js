// The middle of the felt and the side column: the lance strip, the phase, the bet, whose turn it
// is, the lance-by-lance results and the log of what everybody said.
import { $, L, el, fmt, joinNames, lanceLabel } from "./format.js";

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

function renderLances(tableEl, s, ctx, final) {
  const body = tableEl.querySelector("tbody");
  body.textContent = "";
  for (const l of s.lances || []) {
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
    let tantos;
    if (l.how === "no_jugado") tantos = el("td", "tantos", "—");
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
  }
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

  const bet = $("bet");
  bet.hidden = s.phase !== "lance";
  bet.classList.toggle("on", !!s.bet);
  bet.classList.toggle("ordago", !!(s.bet && s.bet.ordago));
  if (!s.bet) bet.textContent = L.table.bet_none;
  else if (s.bet.ordago) bet.textContent = fmt(L.table.bet_ordago, { name: ctx.name(s.bet.by_seat) });
  else bet.textContent = fmt(L.table.bet, { n: s.bet.amount, name: ctx.name(s.bet.by_seat) });

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
  } else if (s.phase === "recuento" && ctx.turn.length)
    text = ctx.by.repartir ? T.deal_you : fmt(T.deal_other, { name: ctx.name(ctx.turn[0]) });
  $("turn-text").textContent = text;
  $("turn-msg").classList.toggle("mine", mine && ctx.legal.length > 0);

  const rec = $("recuento");
  rec.hidden = !ctx.shown || !(s.lances || []).length;
  if (!rec.hidden) renderLances($("lances-center"), s, ctx, true);
  renderLances($("lances-side"), ctx.shown ? { lances: [] } : s, ctx, false);
  $("side-lances").classList.toggle("empty", ctx.shown || !(s.lances || []).length);
}

export function renderLog(s, ctx, said) {
  const log = $("log");
  const key = JSON.stringify([s.hand_no, s.said, s.seats && s.seats.map((x) => x && x.name)]);
  if (log.dataset.key === key) return;
  log.dataset.key = key;
  log.textContent = "";
  let group;
  for (const { e, text } of said) {
    const g = e.lance || "mus";
    if (g !== group) {
      group = g;
      log.append(el("li", "log-head", g === "mus" ? L.phases.mus : lanceLabel(g)));
    }
    const li = el("li", `log-entry side-${ctx.rel(e.seat % 2) === 0 ? "us" : "them"}`);
    li.append(el("b", null, ctx.name(e.seat)), " ", text);
    log.append(li);
  }
  log.scrollTop = log.scrollHeight;
}
