// What the table modules share: the page's root, the state being shown and the player's pending
// choices, and who is who in a `state` message (docs/protocol.md) as seen by this viewer.
import { $, L, isolate, readJSON, seatName } from "./format.js";

export const POSITIONS = ["bottom", "right", "top", "left"]; // counter-clockwise from the viewer
export const LIVE = ["mus", "descarte", "lance"];
export const SHOWN = ["recuento", "terminada", "cancelada"];

// The table drawn: the page's #mus-table and its four seats by position. A page that puts a new
// one in its place (the replay, step by step) attaches it again.
export let root = null;
export const seatEls = {};
export function attach() {
  root = $("mus-table");
  for (const pos of Object.keys(seatEls)) delete seatEls[pos];
  if (root) {
    root.querySelectorAll(".seat").forEach((node) => {
      seatEls[node.dataset.pos] = node;
    });
  }
}
attach();

export const table = {
  state: readJSON("table-state"),
  pending: false, // an action sent, its state not back yet
  skew: 0, // server clock minus browser clock, from each state's `now`
  cancelAt: null, // when a cancelled game sends its players back to the lobby
  selected: new Set(), // the cards picked for the discard
  chosen: { key: "", value: 0, over: 0 }, // the envido amount picked (over the bet standing)
  confirmOrdago: false, // «Órdago» pressed once: its second step is showing
  moreOpen: false, // the amount chooser unfolded (it folds away on a phone)
  drawn: false, // a state has been drawn (the next ones are changes the player sees happen)
};

export function context(s) {
  const me = s.you && typeof s.you.seat === "number" ? s.you.seat : null;
  // Who is at the bottom: the player; for somebody not seated, the seat the state says (a
  // replay: the viewer's own seat in that game), else the first.
  const base = me !== null ? me : typeof s.view_from === "number" ? s.view_from : 0;
  const seats = s.seats || [];
  // Isolated: the names go into sentences (whose turn it is, who bet).
  const name = (seat) =>
    seats[seat] && seats[seat].name ? isolate(seatName(seats[seat])) : `#${seat + 1}`;
  // Relative team: 0 = the viewer's pair (or pair A for onlookers), 1 = the rivals.
  const rel = (team) => (me === null ? team : team === me % 2 ? 0 : 1);
  const teamName = (team) => {
    if (team === null || team === undefined) return "—";
    if (me === null) return team === 0 ? L.table.team_a : L.table.team_b;
    return rel(team) === 0 ? L.table.us : L.table.them;
  };
  // Whose turn it is, as the server says (at the recuento: who has not pressed «Seguir» yet).
  const turn = LIVE.includes(s.phase) || s.phase === "recuento" ? s.to_act || [] : [];
  const legal = (s.you && s.you.legal) || [];
  return {
    me,
    base,
    name,
    rel,
    teamName,
    turn,
    legal,
    by: Object.fromEntries(legal.map((l) => [l.act, l])),
    pos: (seat) => POSITIONS[(seat - base + 4) % 4],
    shown: SHOWN.includes(s.phase) && Array.isArray(s.hands),
    // Every hand face up: at the recuento, and at every step of a replay (docs/protocol.md).
    faceUp: Array.isArray(s.hands),
  };
}
