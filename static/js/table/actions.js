// The player's side of the table: the act buttons (as `you.legal` allows), the discard's card
// picks, the envido amount (a raise chosen as players say it, «N más»), the órdago's second
// step, and the box at the end of the game.
import { tick } from "./clock.js";
import { root, table } from "./context.js";
import { handName } from "./felt.js";
import { $, L, clamp, fmt, numberWord } from "./format.js";
import { startRematch } from "./rematch.js";

const REDIRECT_SECONDS = 8;

// The amount chooser works in what the player adds: the total of an opening bet, the tantos
// over the bet standing for a raise (`table.chosen.over`).
function updateChosen() {
  const input = $("envido-amount");
  const min = Number(input.min) || 1;
  const max = Number(input.max) || 40;
  const value = clamp(Math.round(Number(input.value) || table.chosen.value || min), min, max);
  table.chosen.value = value;
  const over = table.chosen.over;
  const btn = $("envido-chosen");
  btn.dataset.to = String(over + value);
  btn.textContent = over ? fmt(L.said.raise, { n: numberWord(value) }) : fmt(L.acts.envido_chosen, { n: value });
}

// On a phone the bar is fixed over the bottom of the page: the page keeps room for it.
export function bindBarHeight() {
  const bar = $("actions");
  if (!("ResizeObserver" in window)) return;
  new ResizeObserver(() => {
    root.style.setProperty("--bar-h", `${Math.ceil(bar.getBoundingClientRect().height) + 8}px`);
  }).observe(bar);
}

export function applyPending() {
  const { pending } = table;
  for (const btn of $("actions").querySelectorAll("button")) {
    if (btn.dataset.act === "descarte") btn.disabled = pending || !btn.dataset.ok;
    else btn.disabled = pending;
  }
  $("envido-amount").disabled = pending;
  root.classList.toggle("pending", pending);
  if (pending) for (const btn of root.querySelectorAll(".card-btn")) btn.disabled = true;
}

function confirming(on) {
  table.confirmOrdago = on;
  $("confirm-ordago").hidden = !on;
  $("act-row").hidden = on;
  if (on) $("confirm-ordago-yes").focus();
}

export function renderActions(s, ctx) {
  const { by } = ctx;
  const { selected, chosen } = table;
  for (const btn of $("act-row").querySelectorAll("button[data-act]")) {
    btn.hidden = !by[btn.dataset.act];
  }
  const toggle = $("envido-toggle");
  toggle.hidden = !by.envido;
  if (!by.envido) table.moreOpen = false;
  toggle.setAttribute("aria-expanded", table.moreOpen ? "true" : "false");
  $("actions").classList.toggle("more-open", !!table.moreOpen);
  // The órdago's second step lasts while an órdago is still possible.
  if (table.confirmOrdago && !by.ordago) confirming(false);
  // Descartar: as many cards as chosen, within the allowed range.
  const disc = $("act-row").querySelector('[data-act="descarte"]');
  if (by.descarte) {
    for (const code of [...selected]) if (!((s.you && s.you.cards) || []).includes(code)) selected.delete(code);
    const n = selected.size;
    disc.textContent = n ? fmt(L.acts.descarte_n, { n }) : L.acts.descarte;
    disc.dataset.ok = n >= by.descarte.min && n <= by.descarte.max ? "1" : "";
  } else {
    selected.clear();
  }
  // Envido: one quick bet («Envido 2» to open, «Dos más» to raise) and any amount allowed.
  const quick = $("act-row").querySelector('[data-act="envido"][data-quick]');
  const more = $("envido-more");
  more.hidden = !by.envido || table.confirmOrdago;
  if (by.envido) {
    const { min, max } = by.envido;
    const opening = !!by.paso;
    const over = opening ? 0 : min - 1; // the bet standing
    const quickTo = clamp(opening ? min : over + 2, min, max);
    quick.dataset.to = String(quickTo);
    if (opening) quick.textContent = quickTo === 2 ? L.acts.envido_open : fmt(L.acts.envido_chosen, { n: quickTo });
    else quick.textContent = fmt(L.said.raise, { n: numberWord(quickTo - over) });
    const key = `${s.lance}:${min}:${max}`;
    if (chosen.key !== key) {
      chosen.key = key;
      chosen.over = over;
      chosen.value = clamp(quickTo - over + 3, min - over, max - over);
    }
    const input = $("envido-amount");
    input.min = String(min - over);
    input.max = String(max - over);
    input.value = String(chosen.value);
    $("envido-amount-label").textContent = opening ? L.table.amount_open : L.table.amount_more;
    updateChosen();
  }
  $("actions-hint").textContent = by.descarte ? L.table.hint_discard : "";
  // The bar says what it is for: your turn, or the next hand after the recuento.
  $("actions-turn").firstElementChild.textContent = by.repartir ? L.table.next_hand : L.table.turn_you;
  $("actions").classList.toggle("has-acts", ctx.legal.length > 0);
  renderResult(s, ctx);
  $("actions").hidden = ctx.legal.length === 0 && $("result").hidden;
  applyPending();
}

// How an órdago ended the game: at which lance, and whose cards beat whose.
function ordagoText(s, ctx) {
  const T = L.table;
  const i = (s.lances || []).findIndex((l) => l.how === "ordago");
  const b = i >= 0 && s.breakdown ? s.breakdown[i] : null;
  if (!b || !b.win) return T.by_ordago;
  const hand = (h) => handName(h, ctx);
  const lance = L.at_lance[b.lance] || b.lance;
  if (!b.beat) return fmt(T.ordago_end_bare, { lance, win: hand(b.win) });
  return fmt(b.tie ? T.ordago_end_tie : T.ordago_end, { lance, win: hand(b.win), beat: hand(b.beat) });
}

function renderResult(s, ctx) {
  const T = L.table;
  const box = $("result");
  const over = s.phase === "terminada" || s.phase === "cancelada";
  const appearing = over && box.hidden;
  box.hidden = !over;
  root.classList.toggle("over", over);
  box.classList.toggle("won", s.phase === "terminada" && ctx.me !== null && s.winner === ctx.me % 2);
  box.classList.toggle("cancelled", s.phase === "cancelada");
  const link = $("record-link");
  link.hidden = !s.record_url;
  if (s.record_url) link.href = s.record_url;
  const report = $("report-link");
  if (report) report.hidden = !over || ctx.me === null;
  if (s.phase === "terminada") {
    table.cancelAt = null;
    startRematch();
    let title;
    if (ctx.me === null) title = fmt(T.result_team, { team: ctx.teamName(s.winner) });
    else title = s.winner === ctx.me % 2 ? T.result_win : T.result_lose;
    $("result-title").textContent = title;
    const scores = s.scores || [0, 0];
    const first = ctx.me === null ? 0 : ctx.me % 2;
    const score = `${ctx.teamName(first)} ${scores[first]} · ${ctx.teamName(1 - first)} ${scores[1 - first]}`;
    // An órdago ends the game whatever the score: what decided it is the lance and the hands.
    $("result-text").textContent = s.ended_by === "ordago" ? ordagoText(s, ctx) : fmt(T.by_points, { score });
  } else if (s.phase === "cancelada") {
    $("result-title").textContent = T.cancelled;
    if (table.cancelAt === null) table.cancelAt = Date.now() + table.skew + REDIRECT_SECONDS * 1000;
    tick();
  }
  // The end of the game comes into view, with the rematch, wherever the page was scrolled.
  if (appearing && table.drawn) box.scrollIntoView({ block: "nearest", behavior: "smooth" });
}

// `send(action)` sends an action over the socket; `redraw()` draws the current state again.
export function bindActions(send, redraw) {
  const { selected, chosen } = table;
  $("actions").addEventListener("click", (event) => {
    const step = event.target.closest("button[data-step]");
    if (step) {
      const input = $("envido-amount");
      input.value = String(
        clamp((Number(input.value) || chosen.value) + Number(step.dataset.step), Number(input.min), Number(input.max)),
      );
      updateChosen();
      return;
    }
    if (event.target.closest("#envido-toggle")) {
      table.moreOpen = !table.moreOpen;
      redraw();
      if (table.moreOpen) $("envido-amount").focus();
      return;
    }
    if (event.target.closest("#confirm-ordago-no")) {
      confirming(false);
      redraw();
      return;
    }
    if (event.target.closest("#confirm-ordago-yes")) {
      confirming(false);
      send({ act: "ordago" });
      return;
    }
    const btn = event.target.closest("button[data-act]");
    if (!btn || btn.disabled) return;
    const act = btn.dataset.act;
    if (act === "ordago") {
      // The whole game on one lance: asked twice.
      confirming(true);
      redraw();
    } else if (act === "envido") send({ act, to: Number(btn.dataset.to) });
    else if (act === "descarte") send({ act, cards: [...selected] });
    else send({ act });
  });
  $("envido-amount").addEventListener("input", updateChosen);
  $("envido-amount").addEventListener("change", () => {
    updateChosen();
    $("envido-amount").value = String(chosen.value);
  });
  $("envido-amount").addEventListener("keydown", (event) => {
    if (event.key === "Enter") {
      event.preventDefault();
      updateChosen();
      $("envido-chosen").click();
    }
  });

  $("felt").addEventListener("click", (event) => {
    const btn = event.target.closest(".card-btn");
    if (!btn || btn.disabled || table.pending) return;
    const code = btn.dataset.code;
    if (selected.has(code)) selected.delete(code);
    else selected.add(code);
    redraw();
  });
}
