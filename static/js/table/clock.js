// The clocks, counted down in the browser against the server's time: the turn's (in the middle
// and at the seats to act), the seats waiting for a player who dropped out, and the way back to
// the lobby after a cancelled game. Only shown: every rule of the clock is the server's.
import { context, root, seatEls, table } from "./context.js";
import { $, L, el, fmt } from "./format.js";

export function tick() {
  const { state } = table;
  if (!state) return;
  const T = L.table;
  const now = Date.now() + table.skew;
  // The server says which clock counts down and how long it is (games.clock.TurnClock): no
  // deadline while the clock is stopped (every seat to act is away, or nobody is to act).
  const total = state.clock_seconds;
  const deadline = state.deadline ? Date.parse(state.deadline) : NaN;
  const left = Number.isFinite(deadline) ? Math.max(0, (deadline - now) / 1000) : null;
  const ctx = context(state);
  const running = left !== null;
  const clock = $("clock");
  clock.hidden = !running;
  if (running) {
    $("clock-bar").max = total;
    $("clock-bar").value = Math.min(total, left);
    $("clock-num").textContent = fmt(T.seconds, { n: Math.ceil(left) });
    clock.classList.toggle("urgent", left <= 5);
  }
  // The bar of the player whose turn it is counts down too (it may be all they see on a phone).
  const bar = $("bar-clock");
  const mine = running && ctx.me !== null && ctx.turn.includes(ctx.me);
  bar.textContent = mine ? fmt(T.seconds, { n: Math.ceil(left) }) : "";
  bar.classList.toggle("urgent", mine && left <= 5);
  for (let seat = 0; seat < 4; seat++) {
    const box = seatEls[ctx.pos(seat)];
    if (!box) continue;
    const c = box.querySelector(".seat-clock");
    const away = box.querySelector(".seat-away");
    const show = running && ctx.turn.includes(seat) && away.hidden;
    c.hidden = !show;
    if (show) {
      const bar = c.querySelector("progress");
      bar.max = total;
      bar.value = Math.min(total, left);
      c.querySelector(".seat-clock-num").textContent = fmt(T.seconds, { n: Math.ceil(left) });
      c.classList.toggle("urgent", left <= 5);
    }
    if (!away.hidden) {
      // That they dropped, and what the seconds are: their wait for the whole game.
      const until = away.dataset.until ? Date.parse(away.dataset.until) : NaN;
      const text = Number.isFinite(until)
        ? fmt(T.away, { n: Math.max(0, Math.ceil((until - now) / 1000)) })
        : T.away_bare;
      if (away.dataset.text !== text) {
        away.dataset.text = text;
        away.textContent = "";
        away.append(el("b", null, T.away_title), " ", el("span", null, text));
      }
    }
  }
  if (table.cancelAt !== null && state.phase === "cancelada") {
    const secs = Math.max(0, Math.ceil((table.cancelAt - now) / 1000));
    // The reason is a code (docs/protocol.md); the title already says it was cancelled.
    const code = state.cancel_reason;
    const said = code && Object.hasOwn(L.cancel_reasons, code) ? L.cancel_reasons[code] : "";
    const reason = said === T.cancelled ? "" : said;
    $("result-text").textContent = `${reason} ${fmt(T.redirect, { n: secs })}`.trim();
    if (secs <= 0) {
      table.cancelAt = null;
      window.location.assign(root.dataset.lobbyUrl || "/");
    }
  }
}
