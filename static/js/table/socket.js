// The table's WebSocket (docs/protocol.md), opened through the site's one client (../socket.js,
// which reconnects and pings): what each close means for the table, the player's actions and
// chat lines, and every message it gets handed to the page.
import { applyPending } from "./actions.js";
import { root, table } from "./context.js";
import { $, L, toast } from "./format.js";
import {
  CLOSE_NOT_LOGGED_IN,
  CLOSE_TRY_AGAIN,
  LATER,
  REFUSED,
  SOON,
  STOP,
  openSocket,
} from "../socket.js";

let socket = null;
let pendingTimer = null;
let denied = false;
let everOpen = false;
let failedOpens = 0; // attempts in a row that never opened
let everOpened = false; // this page's socket has been open at least once

// A socket that never opens (refused during the handshake: the browser sees no close code)
// stops being retried after this many attempts, and the page says so instead.
const MAX_FAILED_OPENS = 4;
// While the server answers «unavailable», the table is asked for this often until it comes.
const RESYNC_MS = 2000;
let resyncTimer = null;
let handlers = {};

const isOpen = () => !!socket && socket.isOpen();

function setConnected(ok) {
  root.dataset.connected = ok && isOpen() ? "1" : "0";
  $("conn").hidden = ok || !everOpen;
  root.classList.toggle("offline", !ok);
}

// The state arrived: whatever was sent has its answer (and the server is answering again).
export function settled() {
  table.pending = false;
  clearTimeout(pendingTimer);
  if (resyncTimer !== null) {
    clearInterval(resyncTimer);
    resyncTimer = null;
    setConnected(true);
  }
}

// The server said it is reconnecting to its database or Redis: «Reconectando…», keep the
// player's place, and ask for the table every few seconds until it answers with a state.
function serverReconnecting() {
  setConnected(false);
  if (resyncTimer !== null) return;
  resyncTimer = setInterval(() => {
    socket.send({ type: "sync" });
  }, RESYNC_MS);
}

// Whether the site says it is down (its health check, /salud/): a socket that could not open
// then is not a refusal, and is tried again for as long as it takes.
async function serverDown() {
  try {
    const response = await fetch("/salud/", { cache: "no-store" });
    return response.status === 503;
  } catch {
    return true;
  }
}

export function send(action) {
  if (table.pending || !table.state) return;
  if (!isOpen()) {
    toast(L.table.offline);
    return;
  }
  socket.send({ type: "action", v: table.state.v, ...action });
  table.pending = true;
  applyPending();
  // If no state comes back (a lost message), ask for one rather than stay stuck.
  clearTimeout(pendingTimer);
  pendingTimer = setTimeout(() => {
    if (table.pending) socket.send({ type: "sync" });
  }, 8000);
}

// A chat line; false (and a word to the player) when there is no connection to send it on.
export function sendChat(text) {
  if (!isOpen()) {
    toast(L.table.offline);
    return false;
  }
  socket.send({ type: "chat", text });
  return true;
}

// Said once and left on the page: why the table does not move (and, when an account is what
// is missing, where to log in).
function notice(text) {
  const box = $("table-notice");
  box.textContent = text;
  if (text === L.table.denied_login && root.dataset.loginUrl) {
    const link = document.createElement("a");
    link.href = root.dataset.loginUrl;
    link.textContent = L.table.log_in;
    box.append(" ", link);
  }
  box.hidden = false;
}

function opened() {
  everOpened = true;
  everOpen = true;
  failedOpens = 0;
  $("table-notice").hidden = true;
  setConnected(true);
}

function received(msg) {
  if (msg.type === "state") {
    if (table.state && typeof msg.v === "number" && msg.v < table.state.v) return; // an older echo
    handlers.state(msg);
  } else if (msg.type === "error") {
    toast(msg.message || msg.code);
    if (msg.code === "unavailable") serverReconnecting();
  } else if (msg.type === "chat") {
    handlers.chat(msg);
  } else if (msg.type === "chat_history") {
    handlers.chatHistory(msg.messages || []);
  }
}

// Refused or closed for good: said once, never retried.
function refused(text) {
  denied = true;
  setConnected(true);
  notice(text);
  return STOP;
}

function closed(event, wasOpen) {
  table.pending = false;
  if (table.state) applyPending();
  // Refused or closed for good (docs/protocol.md).
  if (REFUSED.includes(event.code))
    return refused(event.code === CLOSE_NOT_LOGGED_IN ? L.table.denied_login : L.table.denied);
  everOpen = true;
  setConnected(false);
  // The server is back in seconds: try again soon, for as long as it takes.
  if (event.code === CLOSE_TRY_AGAIN) return SOON;
  if (wasOpen) return LATER;
  return serverDown().then((down) => {
    if (denied) return STOP;
    if (!socket.idle()) return LATER; // (reconnected meanwhile, from a visible tab: ignored)
    if (down) return SOON;
    failedOpens += 1;
    // A refused handshake reaches the browser without its close code. A visitor who is not
    // logged in is refused only a table that needs an account; anybody else, after a few
    // tries, is told the table cannot be reached.
    const anonymous = root.dataset.anonymous === "1";
    if (failedOpens >= (anonymous && !everOpened ? 2 : MAX_FAILED_OPENS))
      return refused(anonymous && !everOpened ? L.table.denied_login : L.table.unreachable);
    return LATER;
  });
}

// `on.state(msg)`, `on.chat(line)` and `on.chatHistory(lines)` get what the server sends.
export function start(on) {
  handlers = on;
  socket = openSocket(root.dataset.wsPath, {
    onOpen: opened,
    onMessage: received,
    onClose: closed,
    ping: 25_000,
    backoff: { first: 500, max: 10_000, jitter: 0.25 },
  });
}
