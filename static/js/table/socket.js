// The table's WebSocket (docs/protocol.md): connects and reconnects with backoff, pings, sends
// the player's actions and chat lines, and hands every message it gets to the page.
import { applyPending } from "./actions.js";
import { root, table } from "./context.js";
import { $, L, toast } from "./format.js";

let ws = null;
let retries = 0;
let retryTimer = null;
let pingTimer = null;
let pendingTimer = null;
let denied = false;
let everOpen = false;
let failedOpens = 0; // attempts in a row that never opened
let everOpened = false; // this page's socket has been open at least once

// A socket that never opens (refused during the handshake: the browser sees no close code)
// stops being retried after this many attempts, and the page says so instead.
const MAX_FAILED_OPENS = 4;
// Closed with «try again later» (docs/protocol.md): PostgreSQL or Redis is restarting.
const CLOSE_TRY_AGAIN = 1013;
// While the server answers «unavailable», the table is asked for this often until it comes.
const RESYNC_MS = 2000;
let resyncTimer = null;
let handlers = {};

const isOpen = () => !!ws && ws.readyState === WebSocket.OPEN;

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
    if (isOpen()) ws.send(JSON.stringify({ type: "sync" }));
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
  ws.send(JSON.stringify({ type: "action", v: table.state.v, ...action }));
  table.pending = true;
  applyPending();
  // If no state comes back (a lost message), ask for one rather than stay stuck.
  clearTimeout(pendingTimer);
  pendingTimer = setTimeout(() => {
    if (table.pending && isOpen()) ws.send(JSON.stringify({ type: "sync" }));
  }, 8000);
}

// A chat line; false (and a word to the player) when there is no connection to send it on.
export function sendChat(text) {
  if (!isOpen()) {
    toast(L.table.offline);
    return false;
  }
  ws.send(JSON.stringify({ type: "chat", text }));
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

function connect() {
  clearTimeout(retryTimer);
  retryTimer = null;
  if (denied) return;
  const proto = window.location.protocol === "https:" ? "wss:" : "ws:";
  const socket = new WebSocket(`${proto}//${window.location.host}${root.dataset.wsPath}`);
  ws = socket;
  let opened = false;
  socket.addEventListener("open", () => {
    opened = true;
    everOpened = true;
    everOpen = true;
    failedOpens = 0;
    retries = 0;
    $("table-notice").hidden = true;
    setConnected(true);
    clearInterval(pingTimer);
    pingTimer = setInterval(() => {
      if (socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify({ type: "ping" }));
    }, 25000);
  });
  socket.addEventListener("message", (event) => {
    let msg;
    try {
      msg = JSON.parse(event.data);
    } catch {
      return;
    }
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
  });
  socket.addEventListener("close", (event) => {
    if (ws !== socket) return;
    clearInterval(pingTimer);
    ws = null;
    table.pending = false;
    if (table.state) applyPending();
    // Refused or closed for good (docs/protocol.md): said once, never retried.
    if (event.code === 4401 || event.code === 4403 || event.code === 4404) {
      denied = true;
      setConnected(true);
      notice(event.code === 4401 ? L.table.denied_login : L.table.denied);
      return;
    }
    everOpen = true;
    setConnected(false);
    if (event.code === CLOSE_TRY_AGAIN) {
      // The server is back in seconds: try again soon, for as long as it takes.
      retryTimer = setTimeout(connect, 1000 + Math.random() * 1000);
      return;
    }
    if (opened) {
      retryLater();
      return;
    }
    serverDown().then((down) => {
      if (ws !== null || denied) return; // (reconnected meanwhile, from a visible tab)
      if (down) {
        retryTimer = setTimeout(connect, 1000 + Math.random() * 1000);
        return;
      }
      failedOpens += 1;
      // A refused handshake reaches the browser without its close code. A visitor who is not
      // logged in is refused only a table that needs an account; anybody else, after a few
      // tries, is told the table cannot be reached.
      const anonymous = root.dataset.anonymous === "1";
      if (failedOpens >= (anonymous && !everOpened ? 2 : MAX_FAILED_OPENS)) {
        denied = true;
        setConnected(true);
        notice(anonymous && !everOpened ? L.table.denied_login : L.table.unreachable);
        return;
      }
      retryLater();
    });
  });
}

function retryLater() {
  const delay = Math.min(10000, 500 * 2 ** retries) * (0.75 + Math.random() * 0.5);
  retries += 1;
  retryTimer = setTimeout(connect, delay);
}

// `on.state(msg)`, `on.chat(line)` and `on.chatHistory(lines)` get what the server sends.
export function start(on) {
  handlers = on;
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "visible" && !ws && !denied) connect();
  });
  connect();
}
