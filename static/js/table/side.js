// The column beside (or, on narrow screens, below) the felt: the lances so far, the log of what
// everybody said and the chat. Narrower than a desktop they are tabs; what arrives in a panel
// the player cannot see counts as unread, on its tab and on the header's «Chat» link.
import { $, L, fmt } from "./format.js";

const PANELS = ["side-lances", "side-log", "side-chat"];
const wide = window.matchMedia("(min-width: 1100px)");
const unread = { "side-log": 0, "side-chat": 0 };
const inView = {};

function tabOf(panel) {
  return document.querySelector(`.side-tabs [aria-controls="${panel}"]`);
}

function showCount(node, n) {
  if (!node) return;
  node.hidden = n <= 0;
  node.textContent = n > 0 ? String(n) : "";
  if (n > 0) node.setAttribute("aria-label", fmt(L.table.unread, { n }));
  else node.removeAttribute("aria-label");
}

function showUnread() {
  for (const panel of Object.keys(unread)) {
    const tab = tabOf(panel);
    showCount(tab && tab.querySelector(".unread"), unread[panel]);
  }
  showCount($("chat-jump-count"), unread["side-chat"]);
}

function seen(panel) {
  if (!(panel in unread) || unread[panel] === 0) return;
  unread[panel] = 0;
  showUnread();
}

export function select(panel) {
  const tabbed = !wide.matches;
  for (const id of PANELS) {
    const node = $(id);
    const tab = tabOf(id);
    if (!node || !tab) continue;
    const on = id === panel;
    tab.setAttribute("aria-selected", on ? "true" : "false");
    tab.tabIndex = on ? 0 : -1;
    node.hidden = tabbed && !on;
    if (tabbed) node.setAttribute("role", "tabpanel");
    else node.removeAttribute("role");
  }
  if (inView[panel]) seen(panel);
}

function layout() {
  const tabs = document.querySelector(".side-tabs");
  if (!tabs) return;
  tabs.hidden = wide.matches;
  const current = PANELS.find((id) => tabOf(id)?.getAttribute("aria-selected") === "true");
  select(current || "side-log");
}

// `n` new lines in `panel` ("side-log" or "side-chat"): unread unless the player sees it.
export function arrived(panel, n) {
  if (!n || inView[panel]) return;
  unread[panel] += n;
  showUnread();
}

export function bindSide() {
  const tabs = document.querySelector(".side-tabs");
  if (!tabs) return;
  tabs.addEventListener("click", (event) => {
    const tab = event.target.closest('[role="tab"]');
    if (tab) select(tab.getAttribute("aria-controls"));
  });
  // Arrow keys move between the tabs (the WAI-ARIA tabs pattern).
  tabs.addEventListener("keydown", (event) => {
    if (event.key !== "ArrowLeft" && event.key !== "ArrowRight") return;
    const all = [...tabs.querySelectorAll('[role="tab"]')];
    const i = all.indexOf(document.activeElement);
    if (i < 0) return;
    const next = all[(i + (event.key === "ArrowRight" ? 1 : all.length - 1)) % all.length];
    select(next.getAttribute("aria-controls"));
    next.focus();
    event.preventDefault();
  });
  const jump = $("chat-jump");
  if (jump) jump.addEventListener("click", () => select("side-chat"));
  if ("IntersectionObserver" in window) {
    const watch = new IntersectionObserver((entries) => {
      for (const entry of entries) {
        inView[entry.target.id] = entry.isIntersecting;
        if (entry.isIntersecting) seen(entry.target.id);
      }
    });
    for (const id of Object.keys(unread)) if ($(id)) watch.observe($(id));
  }
  wide.addEventListener("change", layout);
  layout();
}
