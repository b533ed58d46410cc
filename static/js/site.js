// Small progressive enhancements shared by every page. No inline scripts: the CSP forbids them.
document.addEventListener("click", (event) => {
  const target = event.target.closest("[data-copy]");
  if (!target) return;
  const text = target.getAttribute("data-copy");
  navigator.clipboard?.writeText(text).then(() => {
    target.classList.add("copied");
    setTimeout(() => target.classList.remove("copied"), 1500);
  });
});
document.addEventListener("submit", (event) => {
  const form = event.target;
  const question = form.getAttribute("data-confirm");
  if (question && !window.confirm(question)) event.preventDefault();
});

// The table page keeps its header to one line on a phone: the menu opens with a button.
document.addEventListener("DOMContentLoaded", () => {
  const header = document.querySelector(".site-header");
  const toggle = header && header.querySelector(".menu-toggle");
  if (!toggle || !document.body.classList.contains("table-page")) return;
  header.classList.add("collapsible");
  toggle.hidden = false;
  toggle.addEventListener("click", () => {
    const open = !header.classList.contains("open");
    header.classList.toggle("open", open);
    toggle.setAttribute("aria-expanded", open ? "true" : "false");
  });
});
