// The lobby's lists kept up to date over /ws/sala/ (games.services.lobby): the server pushes the
// data of the table cards that changed and the order of both lists; the page renders them first,
// so without a socket it still shows them as they were. A pushed card is built from the card's
// skeleton, which the page's own card template renders once (games/_table_card.html). The socket
// is the site's one client (../socket.js): it reconnects, and a page back from the cache opens it.
import { openSocket } from "../socket.js";

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
let socket = null;

const skeletons = document.getElementById("lobby-card-skeleton");
const skeleton = skeletons.content.firstElementChild;
// The table (and the player) the skeletons' links are written for (games.services.lobby).
const SKELETON_PK = `/${skeletons.dataset.pk}/`;

// Names go in as text, never as HTML.
function cardFrom(id, data) {
  const card = skeleton.cloneNode(true);
  const part = (selector, within = card) => within.querySelector(selector);
  const at = (element, attribute) =>
    element.setAttribute(attribute, element.getAttribute(attribute).replace(SKELETON_PK, `/${id}/`));
  card.dataset.table = id;
  const title = part(".table-title");
  at(title, "href");
  title.textContent = data.mode;
  part(".table-number").textContent = `#${id}`;
  if (!data.playing) {
    part(".badge.live").remove();
    part(".score-line").remove();
  }
  if (!data.rated) part(".badge.rated").remove();
  if (data.host) part(".host bdi").textContent = data.host;
  else part(".host").remove(); // a quick-play table: nobody hosted it
  if (data.watching) part(".watching").textContent = data.watching;
  else part(".watching").remove();
  card.querySelectorAll(".seat-mini").forEach((place) => {
    const seat = (data.seats || [])[Number(place.dataset.seat)];
    const drop = (...selectors) => selectors.forEach((selector) => part(selector, place).remove());
    if (seat) {
      part(".seat-name bdi", place).textContent = seat[0];
      if (seat[1]) part(".seat-rating", place).textContent = seat[1];
      else drop(".seat-rating");
      drop("form.sit", ".seat-free", ".seat-closed");
    } else if (data.playing) {
      drop(".seat-name", ".seat-rating", "form.sit", ".seat-free");
    } else {
      drop(".seat-name", ".seat-rating", ".seat-closed");
      at(part("form.sit", place), "action");
    }
  });
  return card;
}

// Who is online: [username, name] each, built like the page's own list (games/_lobby_online_list.html).
const onlineLink = document.getElementById("lobby-online-skeleton").content.querySelector("a");
const nobody = document.getElementById("lobby-online-nobody").content;

// A username in a link as Django's `reverse` writes it (RFC 3986's sub-delimiters, ":" and "@"
// left as they are).
function profilePart(username) {
  return encodeURIComponent(username).replace(/%(24|26|2B|2C|3B|3D|3A|40)/gi, (hex) =>
    decodeURIComponent(hex),
  );
}

function onlineFrom(people) {
  if (!people.length) return [nobody.cloneNode(true)];
  const parts = [];
  people.forEach(([username, name], index) => {
    const link = onlineLink.cloneNode(true);
    link.setAttribute("href", link.getAttribute("href").replace(SKELETON_PK, `/${profilePart(username)}/`));
    link.querySelector("bdi").textContent = name;
    if (index) parts.push(" · ");
    parts.push(link);
  });
  return parts;
}

function apply(msg) {
  if (!msg.full && version === null) return; // (sent while the whole lobby was being read)
  if (!msg.full && msg.v <= version) return; // (already in the whole lobby just received)
  if (!msg.full && msg.v !== version + 1) {
    // An update missed (Redis restarted, say): the socket opened again brings the whole lobby.
    socket.reopen();
    return;
  }
  version = msg.v;
  live.dataset.version = String(version); // (the lobby this page shows, for whoever looks)
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
      return key in cards ? cardFrom(key, cards[key]) : known.get(key);
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
  if (msg.online !== undefined) online.replaceChildren(...onlineFrom(msg.online));
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

socket = openSocket(live.dataset.lobbySocket, {
  onOpen: () => {
    version = null;
    live.dataset.connected = "true";
  },
  onMessage: (msg) => {
    if (msg.type === "lobby") apply(msg);
  },
  onClose: () => {
    live.dataset.connected = "false";
  },
});
