// The lobby's lists kept up to date over /ws/sala/ (games.services.lobby): the server pushes the
// table cards that changed and the order of both lists; the page renders them first, so without
// a socket it still shows them as they were.

const live = document.getElementById("lobby-live");
const lists = {
  open: document.getElementById("lobby-open"),
  playing: document.getElementById("lobby-playing"),
};
const empties = {
  open: document.getElementById("lobby-open-empty"),
  playing: document.getElementById("lobby-playing-empty"),
};
const provisional = document.getElementById("lobby-provisional");
const onlineTitle = document.getElementById("lobby-online-title");
const online = document.getElementById("lobby-online-list");
let version = null;
let retry = 1000;
let socket = null;

function cardFrom(html) {
  const template = document.createElement("template");
  template.innerHTML = html.trim();
  return template.content.firstElementChild;
}

function apply(msg) {
  if (!msg.full && version === null) return; // (sent while the whole lobby was being read)
  if (!msg.full && msg.v <= version) return; // (already in the whole lobby just received)
  if (!msg.full && msg.v !== version + 1) {
    // An update missed (Redis restarted, say): the socket opened again brings the whole lobby.
    socket.close();
    return;
  }
  version = msg.v;
  const cards = msg.cards || {};
  const known = new Map();
  for (const item of live.querySelectorAll("li.table-card[data-table]")) {
    known.set(item.dataset.table, item);
  }
  let shown = 0;
  for (const name of ["open", "playing"]) {
    // A list sent is its new order; a list not sent keeps its order (its cards may be new).
    const ids =
      msg[name] ??
      Array.from(lists[name].querySelectorAll("li.table-card[data-table]"), (item) => item.dataset.table);
    const items = ids.map((id) => {
      const key = String(id);
      return key in cards ? cardFrom(cards[key]) : known.get(key);
    });
    lists[name].replaceChildren(...items.filter(Boolean));
    empties[name].hidden = items.length > 0;
    shown += items.length;
  }
  for (const [id, score] of Object.entries(msg.scores || {})) {
    const place = live.querySelector(`li.table-card[data-table="${id}"] .score`);
    if (place) place.textContent = score;
  }
  provisional.hidden = shown === 0;
  if (msg.online_title !== undefined) onlineTitle.textContent = msg.online_title;
  if (msg.online !== undefined) online.innerHTML = msg.online;
}

function connect() {
  const scheme = window.location.protocol === "https:" ? "wss://" : "ws://";
  socket = new WebSocket(scheme + window.location.host + live.dataset.lobbySocket);
  socket.addEventListener("open", () => {
    retry = 1000;
    version = null;
    live.dataset.connected = "true";
  });
  socket.addEventListener("message", (event) => {
    let msg;
    try {
      msg = JSON.parse(event.data);
    } catch (err) {
      return; // a message this page does not understand
    }
    if (msg.type === "lobby") apply(msg);
  });
  socket.addEventListener("close", () => {
    live.dataset.connected = "false";
    setTimeout(connect, retry);
    retry = Math.min(retry * 2, 30_000);
  });
}

// The pushed cards are the same for everybody: a form to sit gets this page's CSRF token when it
// is sent.
live.addEventListener("submit", (event) => {
  const form = event.target;
  if (!form.matches("form.sit") || form.querySelector("[name=csrfmiddlewaretoken]")) return;
  const headers = JSON.parse(document.body.getAttribute("hx-headers") || "{}");
  const token = document.createElement("input");
  token.type = "hidden";
  token.name = "csrfmiddlewaretoken";
  token.value = headers["X-CSRFToken"] || "";
  form.append(token);
});

connect();
window.addEventListener("pageshow", (event) => {
  if (event.persisted && (!socket || socket.readyState > 1)) connect();
});
