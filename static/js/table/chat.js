// The table's chat: plain text only, always through textContent, never as HTML.
import { table } from "./context.js";
import { $, el } from "./format.js";
import { arrived } from "./side.js";
import { sendChat } from "./socket.js";

export function addChat(line, { live = true } = {}) {
  const log = $("chat-log");
  if (!log || (line.id && log.querySelector(`[data-id="${Number(line.id)}"]`))) return;
  const item = document.createElement("li");
  if (line.id) item.dataset.id = String(Number(line.id));
  const { state } = table;
  if (typeof line.seat === "number" && state && state.you) {
    item.classList.add(line.seat % 2 === state.you.seat % 2 ? "ours" : "theirs");
  }
  const who = document.createElement("strong");
  who.append(el("bdi", null, String(line.name || "")));
  const text = document.createElement("span");
  text.textContent = ` ${String(line.text || "")}`;
  item.append(who, text);
  log.append(item);
  while (log.children.length > 100) log.firstElementChild.remove();
  log.scrollTop = log.scrollHeight;
  if (live) arrived("side-chat", 1);
}

export function showHistory(lines) {
  $("chat-log").replaceChildren();
  for (const line of lines) addChat(line, { live: false });
}

function say(text) {
  const clean = String(text || "").trim();
  if (!clean) return false;
  return sendChat(clean.slice(0, 300));
}

export function bindChat() {
  const form = $("chat-form");
  if (!form) return; // onlookers read, only the players write
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const input = $("chat-input");
    if (say(input.value)) input.value = "";
  });
  $("quick-phrases").addEventListener("click", (event) => {
    const btn = event.target.closest("button[data-phrase]");
    if (btn) say(btn.dataset.phrase);
  });
}
