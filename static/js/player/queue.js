// The queue page (#quick-queue): the time waited, how many are waiting, «Completar con bots»
// once it is offered, and off to the table when quick play finds one. The messages come from
// the page's socket (notify.js, which passes each on as a "barajamos:message" event).

const box = document.getElementById("quick-queue");
const waited = document.getElementById("queue-waited");
const size = document.getElementById("queue-size");
const bots = document.getElementById("queue-bots");
const left = document.getElementById("queue-left");
let since = Date.parse(box.dataset.since);
let skew = Date.parse(box.dataset.now) - Date.now();
const botsAfter = Number(box.dataset.botsAfter);
let stopped = false;

function tick() {
  if (stopped) return;
  const seconds = Math.max(0, Math.floor((Date.now() + skew - since) / 1000));
  waited.textContent = `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}`;
  if (seconds >= botsAfter) bots.hidden = false;
}

function showSize(n) {
  size.textContent = n === 1 ? box.dataset.one : box.dataset.many.replace("{n}", String(n));
}

function stop(message) {
  stopped = true;
  document.getElementById("queue-status").hidden = true;
  bots.hidden = true;
  left.textContent = message;
  left.hidden = false;
  document.getElementById("queue-lobby").hidden = false;
}

document.addEventListener("barajamos:message", (event) => {
  const msg = event.detail;
  if (msg.type === "queue") {
    since = Date.parse(msg.since);
    skew = Date.parse(msg.now) - Date.now();
    showSize(msg.waiting);
    tick();
  } else if (msg.type === "queue_size") {
    showSize(msg.waiting);
  } else if (msg.type === "matched") {
    stopped = true;
    window.location.assign(msg.url);
  } else if (msg.type === "left") {
    stop(msg.message);
  }
});

tick();
setInterval(tick, 1000);
