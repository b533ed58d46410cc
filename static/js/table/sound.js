// The turn's chime: a short tone when the turn comes to you, unless switched off with the
// header's button (the choice is kept by the browser).
import { root } from "./context.js";
import { $, L } from "./format.js";

let audio = null;
let soundOn = true;

export function chime() {
  if (!soundOn) return;
  root.dataset.chimes = String(Number(root.dataset.chimes || 0) + 1);
  try {
    const Ctx = window.AudioContext || window.webkitAudioContext;
    if (!Ctx) return;
    audio = audio || new Ctx();
    const osc = audio.createOscillator();
    const gain = audio.createGain();
    const t = audio.currentTime;
    osc.frequency.value = 880;
    gain.gain.setValueAtTime(0.0001, t);
    gain.gain.exponentialRampToValueAtTime(0.15, t + 0.02);
    gain.gain.exponentialRampToValueAtTime(0.0001, t + 0.25);
    osc.connect(gain).connect(audio.destination);
    osc.start(t);
    osc.stop(t + 0.3);
  } catch (err) {
    // no sound on this browser: the title and the highlighted seat still say it
  }
}

export function bindSoundToggle() {
  const btn = $("sound-toggle");
  if (!btn) return; // onlookers hear nothing
  // Storage can be refused (private windows, blocked cookies): then the choice lasts the page.
  try {
    soundOn = localStorage.getItem("mus-sound") !== "off";
  } catch (err) {
    soundOn = true;
  }
  const show = () => {
    btn.setAttribute("aria-pressed", soundOn ? "true" : "false");
    btn.textContent = soundOn ? L.table.sound_on : L.table.sound_off;
  };
  show();
  btn.addEventListener("click", () => {
    soundOn = !soundOn;
    try {
      localStorage.setItem("mus-sound", soundOn ? "on" : "off");
    } catch (err) {
      // not remembered, still switched for this page
    }
    show();
  });
}
