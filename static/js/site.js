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
