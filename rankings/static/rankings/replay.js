// Game replay: the arrow keys (and Home/End) follow the step links. No inline script: the CSP
// forbids it. The links work without this file; HTMX swaps the replay when it is there.
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
