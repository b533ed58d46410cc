// The waiting room (#waiting) asks for its body again when the table changes: each change
// (somebody sits, stands, is sent away, the game starts) reaches the table's socket as a state,
// so the page no longer asks every 2 s. A slow poll (every 30 s, in the template) is the safety
// net while the socket is down. The socket is the site's one client (../socket.js).

import { LATER, REFUSED, STOP, openSocket } from "../socket.js";

const page = document.getElementById("waiting-page");
// The first socket's welcome comes just after the page was rendered: nothing to ask for then.
// Every later state does, the welcome of a socket opened again after a break included.
let rendered = true;

function refresh() {
  const box = document.getElementById("waiting");
  if (box && window.htmx) window.htmx.trigger(box, "refresh");
}

openSocket(page.dataset.socket, {
  onMessage: (msg) => {
    if (msg.type !== "state") return;
    if (rendered) rendered = false;
    else refresh();
  },
  onClose: (event) => {
    // Refused (signed out, not allowed, no such table): the slow poll says what happened.
    if (REFUSED.includes(event.code)) return STOP;
    rendered = false;
    return LATER;
  },
});
