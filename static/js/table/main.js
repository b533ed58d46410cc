// The live Mus table: draws every `state` message (docs/protocol.md) and sends the player's
// actions over the table's WebSocket. Native modules, no build step and no inline code (the CSP
// forbids it), and no words of their own: every text comes from the page's #table-labels.
import { bindActions, renderActions } from "./actions.js";
import { renderCenter, renderLog } from "./center.js";
import { addChat, bindChat, showHistory } from "./chat.js";
import { tick } from "./clock.js";
import { context, root, table } from "./context.js";
import { L } from "./format.js";
import { annotatedSaid, renderScore, renderSeats } from "./felt.js";
import { send, settled, start } from "./socket.js";
import { bindSoundToggle, chime } from "./sound.js";

const baseTitle = document.title;
let wasMyTurn = null; // null until the first state: opening the page is not a turn arriving

function render(s) {
  if (!s) return;
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
  if (myTurn && wasMyTurn === false) chime();
  wasMyTurn = myTurn;
  root.classList.toggle("watching", ctx.me === null);
  renderScore(s, ctx);
  renderSeats(s, ctx, said);
  renderCenter(s, ctx);
  renderActions(s, ctx);
  renderLog(s, ctx, said);
  tick();
}

if (root) {
  bindSoundToggle();
  bindChat();
  bindActions(send, () => render(table.state));
  render(table.state);
  setInterval(tick, 250);
  start({ state: render, chat: addChat, chatHistory: showHistory });
}
