// Once the game is over its players see who has asked for a rematch: the page's #rematch-poll
// holds an htmx box that asks the server for it (forms with their CSRF token included) every
// few seconds, until the server answers 286 (nothing left to wait for). Here it is only put in
// place, and kept quiet while the tab is in the background.
import { $ } from "./format.js";

export function startRematch() {
  const template = $("rematch-poll");
  if (!template) return; // not a player of this game, or already asking
  const box = template.content.firstElementChild.cloneNode(true);
  template.replaceWith(box);
  let shown = null;
  box.addEventListener("htmx:beforeRequest", (event) => {
    if (document.hidden) event.preventDefault(); // a tab in the background asks nothing
  });
  box.addEventListener("htmx:beforeSwap", (event) => {
    // The same box again: left alone, so a focused button stays focused. The last answer (286)
    // is always swapped in: that is what ends the polling.
    const html = event.detail.serverResponse;
    if (html === shown && event.detail.xhr.status !== 286) event.detail.shouldSwap = false;
    shown = html;
  });
  if (window.htmx) window.htmx.process(box);
}
