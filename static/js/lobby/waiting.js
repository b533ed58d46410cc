// The waiting room (#waiting) asks for its body again when the table changes: each change
// (somebody sits, stands, is sent away, the game starts) reaches the table's socket as a state,
// so the page no longer asks every 2 s. A slow poll (every 30 s, in the template) is the safety
// net while the socket is down.

const page = document.getElementById("waiting-page");
let retry = 1000;
// The first socket's welcome comes just after the page was rendered: nothing to ask for then.
// Every later state does, the welcome of a socket opened again after a break included.
let rendered = true;

function refresh() {
  const box = document.getElementById("waiting");
  if (box && window.htmx) window.htmx.trigger(box, "refresh");
}

function connect() {
  const scheme = window.location.protocol === "https:" ? "wss://" : "ws://";
  const socket = new WebSocket(scheme + window.location.host + page.dataset.socket);
  socket.addEventListener("open", () => {
    retry = 1000;
  });
  socket.addEventListener("message", (event) => {
    let msg;
    try {
      msg = JSON.parse(event.data);
    } catch (err) {
      return;
    }
    if (msg.type !== "state") return;
    if (rendered) rendered = false;
    else refresh();
  });
  socket.addEventListener("close", (event) => {
    // Refused (signed out, not allowed, no such table): the slow poll says what happened.
    if (event.code === 4401 || event.code === 4403 || event.code === 4404) return;
    rendered = false;
    setTimeout(connect, retry);
    retry = Math.min(retry * 2, 30_000);
  });
}

connect();
