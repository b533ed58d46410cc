// Once the game is over its players see who has asked for a rematch: the server renders the
// box (forms with their CSRF token included), polled every few seconds while the page is open.
import { $ } from "./format.js";

let timer = null;

export function startRematch() {
  const box = $("rematch");
  if (!box || timer !== null) return;
  const load = () => {
    if (document.hidden) return; // a tab in the background asks nothing
    fetch(box.dataset.url, { headers: { "HX-Request": "true" }, credentials: "same-origin" })
      .then((r) => (r.status === 200 ? r.text() : r.status === 204 ? "" : null))
      .then((html) => {
        if (html !== null && box.dataset.html !== html) {
          box.dataset.html = html;
          box.innerHTML = html;
        }
      })
      .catch(() => {}); // offline for a moment: the next poll tries again
  };
  load();
  timer = setInterval(load, 4000);
}
