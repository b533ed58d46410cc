// The player's socket, opened by every page of a signed-in player (docs/protocol.md,
// `/ws/jugador/`): invitations with accept/decline and a chime, quick play finding a table, and
// the answers to your own invitations; a tournament's table ready, its invitations and answers.
// On the queue page (#quick-queue) the same socket holds the player's place in the queue
// (`?cola=1`); queue.js listens to the messages this script passes on
// as "barajamos:message" events. No inline script, no HTML built from strings: the CSP and the
// names players choose. The socket is the site's one client (../socket.js).
import { CLOSE_NOT_LOGGED_IN, CLOSE_REFUSED, LATER, STOP, openSocket } from "../socket.js";

const root = document.getElementById("notices");
const queuePage = document.getElementById("quick-queue") !== null;
const SOUND_KEY = "mus-notify-sound";
const PING_MS = 30_000;
const shown = new Map(); // invitation id -> its notice
let audio = null;

function soundOn() {
  try {
    return localStorage.getItem(SOUND_KEY) !== "off";
  } catch (err) {
    return true; // storage refused: sound stays on for the page
  }
}

// A short two-note chime (Web Audio), like the table's turn chime; silent if switched off.
function chime() {
  if (!soundOn()) return;
  root.dataset.chimes = String(Number(root.dataset.chimes || 0) + 1);
  try {
    const Ctx = window.AudioContext || window.webkitAudioContext;
    if (!Ctx) return;
    audio = audio || new Ctx();
    [660, 990].forEach((freq, i) => {
      const osc = audio.createOscillator();
      const gain = audio.createGain();
      const t = audio.currentTime + i * 0.16;
      osc.frequency.value = freq;
      gain.gain.setValueAtTime(0.0001, t);
      gain.gain.exponentialRampToValueAtTime(0.12, t + 0.02);
      gain.gain.exponentialRampToValueAtTime(0.0001, t + 0.22);
      osc.connect(gain).connect(audio.destination);
      osc.start(t);
      osc.stop(t + 0.25);
    });
  } catch (err) {
    // no sound on this browser: the notice still shows
  }
}

function fromTemplate(id) {
  return document.getElementById(id).content.firstElementChild.cloneNode(true);
}

function slot(node, name) {
  return node.querySelector(`[data-slot="${name}"]`);
}

function dismiss(node) {
  if (node.timer) clearInterval(node.timer);
  node.remove();
}

function textNotice(text, url, label) {
  const node = fromTemplate("notice-text");
  slot(node, "text").textContent = text;
  if (url) {
    const link = slot(node, "link");
    link.href = url;
    if (label) link.textContent = label;
    link.hidden = false;
  }
  slot(node, "close").addEventListener("click", () => dismiss(node));
  root.append(node);
  setTimeout(() => dismiss(node), url ? 60_000 : 12_000);
}

function invitationNotice(inv, skew) {
  if (shown.has(inv.id)) return;
  const node = fromTemplate("notice-invitation");
  node.dataset.invitation = String(inv.id);
  slot(node, "name").textContent = inv.from.name;
  slot(node, "mode").textContent = inv.mode_name;
  node.querySelectorAll("[data-kind]").forEach((el) => {
    el.hidden = el.dataset.kind !== inv.kind;
  });
  slot(node, "accept").action = inv.accept_url;
  slot(node, "decline").addEventListener("click", () => {
    dismiss(node);
    shown.delete(inv.id);
    fetch(inv.decline_url, {
      method: "POST",
      credentials: "same-origin",
      headers: { "X-CSRFToken": root.dataset.csrf, "X-Requested-With": "fetch" },
    }).catch(() => {});
  });
  const expires = Date.parse(inv.expires);
  const tick = () => {
    const left = Math.max(0, Math.round((expires - (Date.now() + skew)) / 1000));
    slot(node, "left").textContent = String(left);
    if (left <= 0) {
      dismiss(node);
      shown.delete(inv.id);
    }
  };
  tick();
  node.timer = setInterval(tick, 1000);
  shown.set(inv.id, node);
  root.append(node);
}

function handle(msg) {
  document.dispatchEvent(new CustomEvent("barajamos:message", { detail: msg }));
  if (msg.type === "invitations") {
    msg.items.forEach((inv) => invitationNotice(inv, 0));
  } else if (msg.type === "invitation") {
    invitationNotice(msg, 0);
    chime();
  } else if (msg.type === "invitation_closed") {
    const node = shown.get(msg.id);
    if (node) dismiss(node);
    shown.delete(msg.id);
  } else if (msg.type === "invitation_answer") {
    if (msg.url && msg.status === "aceptada") {
      window.location.assign(msg.url); // your partner accepted: to the queue together
      return;
    }
    textNotice(msg.message);
  } else if (msg.type === "matched") {
    chime();
    if (!queuePage && !window.location.pathname.startsWith(msg.url)) {
      textNotice(document.getElementById("notice-matched-text").content.textContent.trim(), msg.url);
    }
  } else if (msg.type === "left" && !queuePage && msg.code !== "not_queued") {
    textNotice(msg.message);
  } else if (msg.type === "tournament_table") {
    chime();
    // The tournament's own page goes to the table at once; any other page says so.
    const live = document.getElementById("tournament-live");
    if (live && live.dataset.tournament === String(msg.tournament)) {
      window.location.assign(msg.url);
    } else if (!window.location.pathname.startsWith(msg.url)) {
      textNotice(msg.message, msg.url);
    }
  } else if (msg.type === "tournament_invitation" || msg.type === "tournament_answer") {
    if (msg.sound) chime();
    textNotice(msg.message, msg.url, msg.link);
  }
}

openSocket(root.dataset.wsPath + (queuePage ? "?cola=1" : ""), {
  onOpen: () => {
    root.dataset.connected = "true";
  },
  onMessage: (msg) => {
    try {
      handle(msg);
    } catch (err) {
      // a message this page does not understand: ignored
    }
  },
  onClose: (event) => {
    root.dataset.connected = "false";
    // Signed out or refused: not retried.
    return event.code === CLOSE_NOT_LOGGED_IN || event.code === CLOSE_REFUSED ? STOP : LATER;
  },
  ping: PING_MS,
});

// The switch for the chime, where a page offers it (the lobby).
const soundButton = document.getElementById("notify-sound");
if (soundButton) {
  const render = () => {
    const on = soundOn();
    soundButton.setAttribute("aria-pressed", on ? "true" : "false");
    soundButton.textContent = on ? root.dataset.soundOn : root.dataset.soundOff;
  };
  soundButton.hidden = false;
  render();
  soundButton.addEventListener("click", () => {
    try {
      localStorage.setItem(SOUND_KEY, soundOn() ? "off" : "on");
    } catch (err) {
      // not remembered
    }
    render();
  });
}

// Browsers start sound only after the person has touched the page: get it ready at the first
// touch, so a later invitation can chime.
window.addEventListener(
  "pointerdown",
  () => {
    try {
      const Ctx = window.AudioContext || window.webkitAudioContext;
      if (Ctx && !audio) audio = new Ctx();
    } catch (err) {
      // no sound on this browser
    }
  },
  { once: true },
);
