// The site's one WebSocket client (docs/protocol.md): the table, the lobby, the waiting room and
// the player's notices each open their socket through it. It connects, answers a close by
// connecting again after a growing wait (or sooner, or never: the page decides from the close
// code), pings while open, and opens again when a tab comes back into view or a page comes back
// from the back-forward cache. The close codes come from games/socket_codes.py, generated.
import { CLOSE_NOT_FOUND, CLOSE_NOT_LOGGED_IN, CLOSE_REFUSED, CLOSE_TRY_AGAIN } from "./socket_codes.js";

export { CLOSE_NOT_FOUND, CLOSE_NOT_LOGGED_IN, CLOSE_REFUSED, CLOSE_TRY_AGAIN };

// Refused or closed for good: signed out, not allowed, or no such socket. Never retried.
export const REFUSED = [CLOSE_NOT_LOGGED_IN, CLOSE_REFUSED, CLOSE_NOT_FOUND];

// What `onClose` may answer: stop for good, connect again in a second or two (the server is
// back in moments: «try again later»), or after the growing wait (the default).
export const STOP = "stop";
export const SOON = "soon";
export const LATER = "later";

// `path`: the socket's path on this host. `options`:
// - `onOpen()`, `onMessage(msg)` (parsed JSON; a frame that is not JSON is dropped),
// - `onClose(event, opened)`: STOP, SOON or LATER (or a promise of one), `opened` saying
//   whether this socket ever opened;
// - `ping`: ms between pings while open (0: none);
// - `backoff`: `{ first, max, jitter }`: the n-th wait in a row is `min(max, first * 2^n)`,
//   spread by ±jitter (a fraction) so that a restart does not bring every page back at once.
// Returns `{ send(obj) -> bool, isOpen(), idle(), reopen() }`: idle while no socket is open or
// opening; reopen closes it and connects anew.
export function openSocket(path, options = {}) {
  const { onOpen = () => {}, onMessage = () => {}, onClose = () => LATER, ping = 0 } = options;
  const { first = 1000, max = 30_000, jitter = 0 } = options.backoff || {};
  let ws = null;
  let stopped = false;
  let retries = 0;
  let retryTimer = null;
  let pingTimer = null;

  const isOpen = () => !!ws && ws.readyState === WebSocket.OPEN;

  function retryIn(ms) {
    clearTimeout(retryTimer);
    retryTimer = setTimeout(connect, ms);
  }

  function settle(verdict) {
    if (ws !== null || stopped) return; // (connected again meanwhile, from a visible tab)
    if (verdict === STOP) {
      stopped = true;
      return;
    }
    if (verdict === SOON) {
      retryIn(1000 + Math.random() * 1000);
      return;
    }
    const spread = jitter ? 1 - jitter + Math.random() * 2 * jitter : 1;
    retryIn(Math.min(max, first * 2 ** retries) * spread);
    retries += 1;
  }

  function connect() {
    clearTimeout(retryTimer);
    retryTimer = null;
    if (stopped) return;
    const scheme = window.location.protocol === "https:" ? "wss:" : "ws:";
    const socket = new WebSocket(`${scheme}//${window.location.host}${path}`);
    ws = socket;
    let opened = false;
    socket.addEventListener("open", () => {
      opened = true;
      retries = 0;
      clearInterval(pingTimer);
      if (ping)
        pingTimer = setInterval(() => {
          if (socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify({ type: "ping" }));
        }, ping);
      onOpen();
    });
    socket.addEventListener("message", (event) => {
      let msg;
      try {
        msg = JSON.parse(event.data);
      } catch {
        return; // a message this page does not understand
      }
      onMessage(msg);
    });
    socket.addEventListener("close", (event) => {
      if (ws !== socket) return;
      clearInterval(pingTimer);
      ws = null;
      Promise.resolve(onClose(event, opened)).then(settle);
    });
  }

  // Back in view, or back from the back-forward cache (whose pages have their sockets closed):
  // connect now rather than at the end of a long wait.
  const resume = () => {
    if (!stopped && (!ws || ws.readyState > WebSocket.OPEN)) connect();
  };
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "visible") resume();
  });
  window.addEventListener("pageshow", (event) => {
    if (event.persisted) resume();
  });

  connect();
  return {
    isOpen,
    idle: () => ws === null,
    send(obj) {
      if (!isOpen()) return false;
      ws.send(JSON.stringify(obj));
      return true;
    },
    reopen() {
      if (ws) ws.close();
    },
  };
}
