// The player's side of the table: the act buttons (as `you.legal` allows), the discard's card
// picks, the envido amount, and the box at the end of the game.
import { tick } from "./clock.js";
import { root, table } from "./context.js";
import { $, L, clamp, fmt } from "./format.js";
import { startRematch } from "./rematch.js";

const REDIRECT_SECONDS = 8;

function updateChosen() {
  const input = $("envido-amount");
  const min = Number(input.min) || 2;
  const max = Number(input.max) || 40;
  const value = clamp(Math.round(Number(input.value) || table.chosen.value || min), min, max);
  table.chosen.value = value;
  const btn = $("envido-chosen");
  btn.dataset.to = String(value);
  btn.textContent = fmt(L.acts.envido_chosen, { n: value });
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

export function renderActions(s, ctx) {
  const { by } = ctx;
  const { selected, chosen } = table;
  for (const btn of $("act-row").querySelectorAll("button[data-act]")) {
    btn.hidden = !by[btn.dataset.act];
  }
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
  // Envido: one quick bet (2 to open, +2 to raise) and any amount in the allowed range.
  const quick = $("act-row").querySelector('[data-act="envido"][data-quick]');
  const more = $("envido-more");
  more.hidden = !by.envido;
  if (by.envido) {
    const { min, max } = by.envido;
    const opening = !!by.paso;
    const quickTo = opening ? min : clamp(((s.bet && s.bet.amount) || min - 1) + 2, min, max);
    quick.dataset.to = String(quickTo);
    quick.textContent = opening && quickTo === 2 ? L.acts.envido_open : fmt(L.acts.envido_quick, { n: quickTo });
    const key = `${s.lance}:${min}:${max}`;
    if (chosen.key !== key) {
      chosen.key = key;
      chosen.value = clamp(quickTo + 3, min, max);
    }
    const input = $("envido-amount");
    input.min = String(min);
    input.max = String(max);
    input.value = String(chosen.value);
    updateChosen();
  }
  $("actions-hint").textContent = by.descarte ? L.table.hint_discard : "";
  $("actions").classList.toggle("has-acts", ctx.legal.length > 0);
  renderResult(s, ctx);
  $("actions").hidden = ctx.legal.length === 0 && $("result").hidden;
  applyPending();
}

function renderResult(s, ctx) {
  const T = L.table;
  const box = $("result");
  const over = s.phase === "terminada" || s.phase === "cancelada";
  box.hidden = !over;
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
    $("result-text").textContent =
      s.ended_by === "ordago" ? `${T.by_ordago} ${fmt(T.by_points, { score })}` : fmt(T.by_points, { score });
  } else if (s.phase === "cancelada") {
    $("result-title").textContent = T.cancelled;
    if (table.cancelAt === null) table.cancelAt = Date.now() + table.skew + REDIRECT_SECONDS * 1000;
    tick();
  }
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
    const btn = event.target.closest("button[data-act]");
    if (!btn || btn.disabled) return;
    const act = btn.dataset.act;
    if (act === "envido") send({ act, to: Number(btn.dataset.to) });
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
