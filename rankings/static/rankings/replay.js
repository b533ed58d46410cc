// Game replay: the table at each step drawn by the live table's own renderer (felt.js and
// center.js), with its words, from the step's state (#mus-table's data-state, made by
// rankings.replay.replay_state); the arrow keys (and Home/End) follow the step links. No inline
// script: the CSP forbids it. The links work without this file (the cards are on the page already); HTMX swaps
// the replay when it is there, and each new step is drawn again.
import { renderCenter } from "../js/table/center.js";
import { attach, context } from "../js/table/context.js";
import { annotatedSaid, bindNames, renderScore, renderSeats } from "../js/table/felt.js";

let drawn = null; // the felt drawn last: a step swapped in brings a new one

function draw() {
  const root = document.getElementById("mus-table");
  if (!root || root === drawn || !root.dataset.state) return;
  const s = JSON.parse(root.dataset.state);
  drawn = root;
  attach();
  const ctx = context(s);
  root.dataset.phase = s.phase;
  renderScore(s, ctx);
  renderSeats(s, ctx, annotatedSaid(s));
  renderCenter(s, ctx);
}

document.addEventListener("keydown", (event) => {
  if (event.altKey || event.ctrlKey || event.metaKey) return;
  const tag = (event.target.tagName || "").toLowerCase();
  if (tag === "input" || tag === "select" || tag === "textarea") return;
  const link = document.querySelector(`[data-replay-nav] [data-key="${event.key}"]`);
  if (!link) return;
  event.preventDefault();
  link.click();
});

// The hand analysis has just finished (its panel's last answer says so): show the decision of
// the step on screen, without leaving it.
document.body.addEventListener("analysis-ready", () => {
  const replay = document.getElementById("replay");
  if (replay && window.htmx) window.htmx.ajax("GET", window.location.href, { target: "#replay" });
});

// A new step swapped in (or the page restored from history): draw it.
document.body.addEventListener("htmx:afterSettle", draw);
document.body.addEventListener("htmx:historyRestore", draw);

const replay = document.getElementById("replay");
if (replay) bindNames(replay);
draw();
