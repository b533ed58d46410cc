// The live Mus table: draws every `state` message (docs/protocol.md) and sends the player's
// actions over the table's WebSocket. Native modules, no build step and no inline code (the CSP
// forbids it), and no words of their own: every text comes from the page's #table-labels.
import { bindActions, bindBarHeight, renderActions } from "./actions.js";
import { renderCenter, renderLog } from "./center.js";
import { addChat, bindChat, showHistory } from "./chat.js";
import { tick } from "./clock.js";
import { context, root, table } from "./context.js";
import { L } from "./format.js";
import { annotatedSaid, arrivals, bindNames, renderScore, renderSeats } from "./felt.js";
import { arrived, bindSide } from "./side.js";
import { send, settled, start } from "./socket.js";
import { bindSoundToggle, sound } from "./sound.js";

const baseTitle = document.title;
let wasMyTurn = null; // null until the first state: opening the page is not a turn arriving

// The sounds a new state calls for: the turn coming to you, an órdago put on the table, the end.
function sounds(prev, s, myTurn) {
  if (myTurn && wasMyTurn === false) sound("chime");
  if (!prev) return;
  const ordago = (x) => !!(x.bet && x.bet.ordago);
  if (ordago(s) && !ordago(prev)) sound("ordago");
  if (s.phase === "terminada" && prev.phase !== "terminada") sound("end");
}

function render(s) {
  if (!s) return;
  const prev = table.drawn ? table.state : null;
  const serverNow = s.now ? Date.parse(s.now) : NaN;
  if (Number.isFinite(serverNow)) table.skew = serverNow - Date.now();
  table.state = s;
  settled();
  const ctx = context(s);
  const said = annotatedSaid(s);
  root.dataset.phase = s.phase;
  root.dataset.v = String(s.v);
  const myTurn = ctx.legal.length > 0;
  root.classList.toggle("my-turn", myTurn);
  // A tab in the background still tells its player when it is their turn.
  document.title = myTurn ? `${L.table.turn_you} · ${baseTitle}` : baseTitle;
  sounds(prev, s, myTurn);
  wasMyTurn = myTurn;
  root.classList.toggle("watching", ctx.me === null);
  renderScore(s, ctx);
  renderSeats(s, ctx, said, prev && prev !== s ? arrivals(prev, s) : undefined);
  renderCenter(s, ctx);
  renderActions(s, ctx);
  arrived("side-log", renderLog(s, ctx, said));
  tick();
  table.drawn = true;
}

if (root) {
  bindSoundToggle();
  bindChat();
  bindNames();
  bindSide();
  bindActions(send, () => render(table.state));
  bindBarHeight();
  render(table.state);
  setInterval(tick, 250);
  start({ state: render, chat: addChat, chatHistory: showHistory });
}
