// The table's sounds: a short tone when the turn comes to you, a call when an órdago is put on
// the table and a few notes when the game ends, unless switched off with the header's button
// (the choice is kept by the browser).
import { root } from "./context.js";
import { $, L } from "./format.js";

let audio = null;
let soundOn = true;

// Notes as [frequency in Hz, start in s, length in s].
const TUNES = {
  chime: [[880, 0, 0.25]],
  ordago: [
    [660, 0, 0.18],
    [440, 0.2, 0.35],
  ],
  end: [
    [523, 0, 0.18],
    [659, 0.18, 0.18],
    [784, 0.36, 0.4],
  ],
};

function playTune(notes) {
  try {
    const Ctx = window.AudioContext || window.webkitAudioContext;
    if (!Ctx) return;
    audio = audio || new Ctx();
    const t0 = audio.currentTime;
    for (const [freq, start, length] of notes) {
      const osc = audio.createOscillator();
      const gain = audio.createGain();
      const t = t0 + start;
      osc.frequency.value = freq;
      gain.gain.setValueAtTime(0.0001, t);
      gain.gain.exponentialRampToValueAtTime(0.15, t + 0.02);
      gain.gain.exponentialRampToValueAtTime(0.0001, t + length);
      osc.connect(gain).connect(audio.destination);
      osc.start(t);
      osc.stop(t + length + 0.05);
    }
  } catch (err) {
    // no sound on this browser: the title and the highlighted seat still say it
  }
}

// `kind`: "chime", "ordago" or "end". What was played is counted on the table's root (tests).
export function sound(kind) {
  if (!soundOn) return;
  const key = kind === "chime" ? "chimes" : `sound${kind[0].toUpperCase()}${kind.slice(1)}`;
  root.dataset[key] = String(Number(root.dataset[key] || 0) + 1);
  playTune(TUNES[kind]);
}

export function chime() {
  sound("chime");
}

export function bindSoundToggle() {
  const btn = $("sound-toggle");
  if (!btn) {
    soundOn = false; // onlookers hear nothing
    return;
  }
  // Storage can be refused (private windows, blocked cookies): then the choice lasts the page.
  try {
    soundOn = localStorage.getItem("mus-sound") !== "off";
  } catch (err) {
    soundOn = true;
  }
  const show = () => {
    btn.setAttribute("aria-pressed", soundOn ? "true" : "false");
    btn.querySelector(".sound-label").textContent = soundOn ? L.table.sound_on : L.table.sound_off;
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
