// The live Mus table: draws every `state` message (docs/protocol.md) and sends the player's
// actions over the table's WebSocket. Vanilla JS, no inline code (the CSP forbids it), and no
// words of its own: every text comes from the template's #table-strings (translated there).
(() => {
  "use strict";

  const root = document.getElementById("mus-table");
  if (!root) return;

  const readJSON = (id) => {
    const el = document.getElementById(id);
    if (!el) return null;
    try {
      return JSON.parse(el.textContent);
    } catch {
      return null;
    }
  };
  const $ = (id) => document.getElementById(id);
  const T = ($("table-strings") || root).dataset;
  const cardData = readJSON("card-data") || {};
  const seatRatings = readJSON("seat-ratings") || {}; // seat → «1523?» (people only, not bots)
  const POSITIONS = ["bottom", "right", "top", "left"]; // counter-clockwise from the viewer
  const LANCE_ORDER = ["grande", "chica", "pares", "juego"];
  const LIVE = ["mus", "descarte", "lance"];
  const SHOWN = ["recuento", "terminada", "cancelada"];
  const REDIRECT_SECONDS = 8;

  const seatEls = {};
  root.querySelectorAll(".seat").forEach((el) => {
    seatEls[el.dataset.pos] = el;
  });

  let state = readJSON("table-state");
  const baseTitle = document.title;
  let ws = null;
  let retries = 0;
  let retryTimer = null;
  let pingTimer = null;
  let pendingTimer = null;
  let pending = false;
  let denied = false;
  let everOpen = false;
  let cancelAt = null;
  let rematchTimer = null;
  let wasMyTurn = null; // null until the first state: opening the page is not a turn arriving
  let audio = null;
  let soundOn = true; // the player's choice, kept by the browser: see the sound button below
  const selected = new Set();
  const chosen = { key: "", value: 0 };

  // -- small helpers --------------------------------------------------------------------------
  const fmt = (text, params) =>
    String(text ?? "").replace(/\{(\w+)\}/g, (m, k) =>
      params && Object.hasOwn(params, k) ? String(params[k]) : m,
    );
  const joinNames = (list) =>
    list.length <= 1
      ? list.join("")
      : fmt(T.and, { a: list.slice(0, -1).join(", "), b: list[list.length - 1] });
  const clamp = (n, lo, hi) => Math.min(hi, Math.max(lo, n));
  const el = (tag, className, text) => {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = text;
    return node;
  };

  function cardName(code) {
    const info = cardData.cards && cardData.cards[code];
    if (info && info.name) return info.name;
    const rank = code.slice(0, -1);
    const suit = code.slice(-1);
    return fmt(T.cardName, { rank: T[`rank-${rank}`] || rank, suit: T[`suit-${suit}`] || suit });
  }

  function cardImg(code) {
    const img = el("img", code ? "card-img face" : "card-img back");
    const info = code && cardData.cards && cardData.cards[code];
    if (code) {
      img.src = info ? info.src : `${root.dataset.cardBase}${code}.svg`;
      img.alt = cardName(code);
      img.dataset.code = code;
    } else {
      img.src = cardData.back || `${root.dataset.cardBase}back.svg`;
      img.alt = T.cardBack;
      img.dataset.code = "back";
    }
    img.width = 72;
    img.height = 108;
    img.draggable = false;
    img.decoding = "async";
    img.addEventListener("error", () => img.classList.add("missing"), { once: true });
    return img;
  }

  // -- who is who -----------------------------------------------------------------------------
  function context(s) {
    const me = s.you && typeof s.you.seat === "number" ? s.you.seat : null;
    const base = me === null ? 0 : me;
    const seats = s.seats || [];
    const name = (seat) => (seats[seat] && seats[seat].name) || `#${seat + 1}`;
    // Relative team: 0 = the viewer's pair (or pair A for onlookers), 1 = the rivals.
    const rel = (team) => (me === null ? team : team === me % 2 ? 0 : 1);
    const teamName = (team) => {
      if (team === null || team === undefined) return "—";
      if (me === null) return team === 0 ? T.teamA : T.teamB;
      return rel(team) === 0 ? T.us : T.them;
    };
    let turn = [];
    if (LIVE.includes(s.phase)) turn = s.to_act || [];
    else if (s.phase === "recuento" && s.host_seat !== null && s.host_seat !== undefined)
      turn = [s.host_seat];
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
    };
  }

  // -- speech ---------------------------------------------------------------------------------
  function saidText(e, raise) {
    switch (e.act) {
      case "mus":
        return T.saidMus;
      case "corto":
        return T.saidCorto;
      case "descarte":
        return fmt(T.saidDescarte, { n: e.n });
      case "paso":
        return T.saidPaso;
      case "envido":
        return fmt(raise ? T.saidRaise : T.saidEnvido, { n: e.to });
      case "ordago":
        return T.saidOrdago;
      case "quiero":
        return T.saidQuiero;
      case "no_quiero":
        return T.saidNoQuiero;
      default:
        return e.act;
    }
  }

  // The said list with each bet marked as an opening or a raise.
  function annotatedSaid(s) {
    const out = [];
    const betIn = new Set();
    for (const e of s.said || []) {
      let raise = false;
      if (e.act === "envido" || e.act === "ordago") {
        raise = betIn.has(e.lance);
        betIn.add(e.lance);
      }
      out.push({ e, text: saidText(e, raise) });
    }
    return out;
  }

  function bubbles(s, said) {
    const out = [null, null, null, null];
    if (s.phase === "mus" || s.phase === "descarte") {
      for (const { e, text } of said) if (!e.lance) out[e.seat] = { text, act: e.act };
      if (s.phase === "descarte")
        for (const seat of s.discarded || []) out[seat] = { text: T.saidReady, act: "ready" };
    } else if (s.phase === "lance") {
      for (const { e, text } of said) if (e.lance === s.lance) out[e.seat] = { text, act: e.act };
      if (s.bet) for (const seat of s.bet.votes || []) out[seat] = { text: T.saidReady, act: "ready" };
    }
    return out;
  }

  // -- drawing --------------------------------------------------------------------------------
  function renderScore(s, ctx) {
    const target = s.target || 40;
    const scores = s.scores || [0, 0];
    const line = $("score-line");
    line.textContent = "";
    const part = (team) => {
      const span = el("span", `score side-${ctx.rel(team) === 0 ? "us" : "them"}`);
      span.append(el("span", "score-team", ctx.teamName(team)), " ");
      span.append(el("b", "score-pts", String(scores[team] ?? 0)), `/${target}`);
      return span;
    };
    const first = ctx.me === null ? 0 : ctx.me % 2;
    line.append(part(first), el("span", "score-sep", T.scoreSep || " · "), part(1 - first));
  }

  function handCodes(s, ctx, seat) {
    if (ctx.shown) return s.hands[seat] || [];
    if (seat === ctx.me) return (s.you && s.you.cards) || [];
    return null; // face down
  }

  function renderHand(box, s, ctx, seat) {
    const codes = handCodes(s, ctx, seat);
    const mine = seat === ctx.me && !ctx.shown;
    const selectable = mine && !!ctx.by.descarte && !pending;
    const key = JSON.stringify([codes, mine, selectable, ctx.shown, [...selected]]);
    if (box.dataset.key === key) return;
    box.dataset.key = key;
    box.textContent = "";
    box.classList.toggle("mine", mine);
    box.classList.toggle("face-up", !!codes);
    box.classList.toggle("selectable", selectable);
    box.setAttribute(
      "aria-label",
      seat === ctx.me ? T.yourHand : fmt(T.handOf, { name: ctx.name(seat) }),
    );
    if (codes === null) {
      for (let i = 0; i < 4; i++) box.append(cardImg(null));
      return;
    }
    for (const code of codes) {
      if (mine) {
        const btn = el("button", "card-btn");
        btn.type = "button";
        btn.dataset.code = code;
        btn.disabled = !selectable;
        btn.setAttribute("aria-pressed", selected.has(code) ? "true" : "false");
        btn.classList.toggle("picked", selected.has(code));
        btn.append(cardImg(code));
        box.append(btn);
      } else {
        box.append(cardImg(code));
      }
    }
  }

  function renderSeats(s, ctx, said) {
    const talk = bubbles(s, said);
    const changed = (s.changed && s.changed.last) || [0, 0, 0, 0];
    const changedTotal = (s.changed && s.changed.total) || [0, 0, 0, 0];
    const answers = s.answers || {};
    for (let seat = 0; seat < 4; seat++) {
      const box = seatEls[ctx.pos(seat)];
      if (!box) continue;
      const info = (s.seats || [])[seat];
      box.dataset.seat = String(seat);
      box.classList.toggle("is-me", seat === ctx.me);
      box.classList.toggle("side-us", ctx.rel(seat % 2) === 0);
      box.classList.toggle("side-them", ctx.rel(seat % 2) === 1);
      box.classList.toggle("turn", ctx.turn.includes(seat));
      // A seat whose player dropped out waits for them (RULES.md §8.3) with a countdown.
      const away = !!(info && info.away_until && !info.connected);
      box.classList.toggle("away", away);

      const nameEl = box.querySelector(".seat-name");
      nameEl.textContent = info ? info.name : "—";
      nameEl.title = info ? info.name : "";
      const rating = info && seatRatings[seat];
      if (rating) {
        nameEl.append(" ", el("span", "seat-elo", rating));
        nameEl.title = `${info.name} · ${fmt(T.ratingTitle, { n: rating })}`;
      }
      if (seat === ctx.me) nameEl.append(" ", el("span", "badge you", T.you));
      box.querySelector(".mano-chip").hidden = !(s.mano === seat && s.phase !== "cancelada");

      const awayEl = box.querySelector(".seat-away");
      awayEl.hidden = !away;
      awayEl.dataset.until = (info && info.away_until) || "";
      box.querySelector(".seat-clock").hidden = true; // the ticker shows it

      const bubble = box.querySelector(".bubble");
      const b = talk[seat];
      bubble.hidden = !b;
      bubble.parentElement.hidden = !b;
      bubble.textContent = b ? b.text : "";
      bubble.className = `bubble${b ? ` said-${b.act}` : ""}`;

      renderHand(box.querySelector(".hand"), s, ctx, seat);

      const chips = box.querySelector(".chips");
      chips.textContent = "";
      if (changed[seat] > 0 && !SHOWN.includes(s.phase)) {
        const chip = el("span", "chip changed", fmt(T.changed, { n: changed[seat] }));
        chip.title = fmt(T.changedTitle, { n: changed[seat], total: changedTotal[seat] });
        chips.append(chip);
      }
      for (const [key, yes, no] of [
        ["pares", T.paresYes, T.paresNo],
        ["juego", T.juegoYes, T.juegoNo],
      ]) {
        const list = answers[key];
        if (Array.isArray(list)) chips.append(el("span", `chip ${list[seat] ? "yes" : "no"}`, list[seat] ? yes : no));
      }
    }
  }

  function lanceLabel(name) {
    return T[`lance${name.charAt(0).toUpperCase()}${name.slice(1)}`] || name;
  }

  function howText(l) {
    switch (l.how) {
      case "paso":
        return T.howPaso;
      case "querido":
        return fmt(T.howQuerido, { n: (l.detail && l.detail.bet) || "" });
      case "no_querido":
        return T.howNoQuerido;
      case "sin_apuesta":
        return T.howSinApuesta;
      case "ordago":
        return T.howOrdago;
      case "no_jugado":
        return T.howNoJugado;
      default:
        return l.how || "";
    }
  }

  function renderLances(table, s, ctx, final) {
    const body = table.querySelector("tbody");
    body.textContent = "";
    for (const l of s.lances || []) {
      const tr = el("tr", `lance-row how-${l.how}`);
      tr.dataset.lance = l.lance;
      const th = el("th", null, lanceLabel(l.lance));
      th.scope = "row";
      th.append(el("small", "how", howText(l)));
      // While the cards are hidden only a refused bet (paid at once) has its tantos; the team
      // that won without betting is known, its tantos come at the recuento.
      const hasWinner = l.winner !== null && l.winner !== undefined;
      const known = final || (hasWinner && l.how === "no_querido");
      const winner = el("td", "winner", hasWinner ? ctx.teamName(l.winner) : "—");
      if (hasWinner) winner.classList.add(`side-${ctx.rel(l.winner) === 0 ? "us" : "them"}`);
      let tantos;
      if (l.how === "no_jugado") tantos = el("td", "tantos", "—");
      else if (l.how === "ordago") tantos = el("td", "tantos", T.tantosOrdago);
      else if (!known) tantos = el("td", "tantos pending", T.howPending);
      else {
        const shown = final ? l.counted : l.tantos;
        tantos = el("td", "tantos", String(shown ?? 0));
        if (final && l.counted !== l.tantos) {
          tantos.classList.add("not-counted");
          tantos.title = T.notCounted;
          tantos.append(el("s", "worth", ` ${l.tantos}`));
        }
      }
      tr.append(th, winner, tantos);
      body.append(tr);
    }
  }

  function renderCenter(s, ctx) {
    const strip = $("lance-strip");
    strip.hidden = s.phase !== "lance";
    const done = new Set((s.lances || []).map((l) => (l.lance === "punto" ? "juego" : l.lance)));
    const current = s.lance === "punto" ? "juego" : s.lance;
    const punto = s.lance === "punto" || (s.lances || []).some((l) => l.lance === "punto");
    for (const li of strip.children) {
      const name = li.dataset.lance;
      li.classList.toggle("current", name === current);
      li.classList.toggle("done", done.has(name) && name !== current);
      if (name === "juego") li.textContent = punto ? T.lancePunto : T.lanceJuego;
    }

    let label = "";
    if (s.phase === "lance") label = lanceLabel(s.lance || "");
    else if (s.phase === "mus") label = T.phaseMus;
    else if (s.phase === "descarte") label = T.phaseDescarte;
    else if (s.phase === "recuento") label = T.phaseRecuento;
    else if (s.phase === "terminada") label = T.phaseTerminada;
    else if (s.phase === "cancelada") label = T.phaseCancelada;
    $("phase-label").textContent = label;

    const bet = $("bet");
    bet.hidden = s.phase !== "lance";
    bet.classList.toggle("on", !!s.bet);
    bet.classList.toggle("ordago", !!(s.bet && s.bet.ordago));
    if (!s.bet) bet.textContent = T.betNone;
    else if (s.bet.ordago) bet.textContent = fmt(T.betOrdago, { name: ctx.name(s.bet.by_seat) });
    else bet.textContent = fmt(T.bet, { n: s.bet.amount, name: ctx.name(s.bet.by_seat) });

    const mine = ctx.me !== null && ctx.turn.includes(ctx.me);
    const others = ctx.turn.map(ctx.name);
    let text = "";
    if (s.phase === "mus") text = mine ? T.turnYou : fmt(T.turnOf, { names: joinNames(others) });
    else if (s.phase === "descarte")
      text = mine && ctx.by.descarte ? T.turnYou : fmt(T.turnDiscard, { names: joinNames(others) });
    else if (s.phase === "lance") {
      if (s.bet) text = mine ? T.turnAnswerYou : fmt(T.turnAnswer, { names: joinNames(others) });
      else text = mine ? T.turnYou : fmt(T.turnOf, { names: joinNames(others) });
    } else if (s.phase === "recuento" && ctx.turn.length)
      text = ctx.by.repartir ? T.dealYou : fmt(T.dealOther, { name: ctx.name(ctx.turn[0]) });
    $("turn-text").textContent = text;
    $("turn-msg").classList.toggle("mine", mine && ctx.legal.length > 0);

    const rec = $("recuento");
    rec.hidden = !ctx.shown || !(s.lances || []).length;
    if (!rec.hidden) renderLances($("lances-center"), s, ctx, true);
    renderLances($("lances-side"), ctx.shown ? { lances: [] } : s, ctx, false);
    $("side-lances").classList.toggle("empty", ctx.shown || !(s.lances || []).length);
  }

  function renderActions(s, ctx) {
    const by = ctx.by;
    for (const btn of $("act-row").querySelectorAll("button[data-act]")) {
      btn.hidden = !by[btn.dataset.act];
    }
    // Descartar: as many cards as chosen, within the allowed range.
    const disc = $("act-row").querySelector('[data-act="descarte"]');
    if (by.descarte) {
      for (const code of [...selected]) if (!((s.you && s.you.cards) || []).includes(code)) selected.delete(code);
      const n = selected.size;
      disc.textContent = n ? fmt(T.actDescarteN, { n }) : T.actDescarte;
      disc.dataset.ok = n >= by.descarte.min && n <= by.descarte.max ? "1" : "";
    } else {
      selected.clear();
    }
    // Envido: one quick bet (2 to open, +2 to raise) and any amount in the allowed range.
    const quick = $("act-row").querySelector('[data-act="envido"][data-quick]');
    const more = $("envido-more");
    more.hidden = !by.envido;
    if (by.envido) {
      const { min, max } = by.envido;
      const opening = !!by.paso;
      const quickTo = opening ? min : clamp(((s.bet && s.bet.amount) || min - 1) + 2, min, max);
      quick.dataset.to = String(quickTo);
      quick.textContent = opening && quickTo === 2 ? T.actEnvidoOpen : fmt(T.actEnvidoQuick, { n: quickTo });
      const key = `${s.lance}:${min}:${max}`;
      if (chosen.key !== key) {
        chosen.key = key;
        chosen.value = clamp(quickTo + 3, min, max);
      }
      const input = $("envido-amount");
      input.min = String(min);
      input.max = String(max);
      input.value = String(chosen.value);
      updateChosen();
    }
    $("actions-hint").textContent = by.descarte ? T.hintDiscard : "";
    $("actions").classList.toggle("has-acts", ctx.legal.length > 0);
    renderResult(s, ctx);
    $("actions").hidden = ctx.legal.length === 0 && $("result").hidden;
    applyPending();
  }

  function renderResult(s, ctx) {
    const box = $("result");
    const over = s.phase === "terminada" || s.phase === "cancelada";
    box.hidden = !over;
    box.classList.toggle("won", s.phase === "terminada" && ctx.me !== null && s.winner === ctx.me % 2);
    box.classList.toggle("cancelled", s.phase === "cancelada");
    const link = $("record-link");
    link.hidden = !s.record_url;
    if (s.record_url) link.href = s.record_url;
    const report = $("report-link");
    if (report) report.hidden = !over || ctx.me === null;
    if (s.phase === "terminada") {
      cancelAt = null;
      pollRematch();
      let title;
      if (ctx.me === null) title = fmt(T.resultTeam, { team: ctx.teamName(s.winner) });
      else title = s.winner === ctx.me % 2 ? T.resultWin : T.resultLose;
      $("result-title").textContent = title;
      const scores = s.scores || [0, 0];
      const first = ctx.me === null ? 0 : ctx.me % 2;
      const score = `${ctx.teamName(first)} ${scores[first]} · ${ctx.teamName(1 - first)} ${scores[1 - first]}`;
      $("result-text").textContent =
        s.ended_by === "ordago" ? `${T.byOrdago} ${fmt(T.byPoints, { score })}` : fmt(T.byPoints, { score });
    } else if (s.phase === "cancelada") {
      $("result-title").textContent = T.cancelled;
      if (cancelAt === null) cancelAt = Date.now() + skew + REDIRECT_SECONDS * 1000;
      tick();
    }
  }

  // Once the game is over its players see who has asked for a rematch: the server renders the
  // box (forms with their CSRF token included), polled every few seconds while the page is open.
  function pollRematch() {
    const box = $("rematch");
    if (!box || rematchTimer !== null) return;
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
    rematchTimer = setInterval(load, 4000);
  }

  function renderLog(s, ctx, said) {
    const log = $("log");
    const key = JSON.stringify([s.hand_no, s.said, s.seats && s.seats.map((x) => x && x.name)]);
    if (log.dataset.key === key) return;
    log.dataset.key = key;
    log.textContent = "";
    let group;
    for (const { e, text } of said) {
      const g = e.lance || "mus";
      if (g !== group) {
        group = g;
        log.append(el("li", "log-head", g === "mus" ? T.phaseMus : lanceLabel(g)));
      }
      const li = el("li", `log-entry side-${ctx.rel(e.seat % 2) === 0 ? "us" : "them"}`);
      li.append(el("b", null, ctx.name(e.seat)), " ", text);
      log.append(li);
    }
    log.scrollTop = log.scrollHeight;
  }

  let skew = 0; // server clock minus browser clock, from each state's `now`
  function render(s) {
    if (!s) return;
    const serverNow = s.now ? Date.parse(s.now) : NaN;
    if (Number.isFinite(serverNow)) skew = serverNow - Date.now();
    state = s;
    pending = false;
    clearTimeout(pendingTimer);
    const ctx = context(s);
    const said = annotatedSaid(s);
    root.dataset.phase = s.phase;
    root.dataset.v = String(s.v);
    const myTurn = ctx.legal.length > 0;
    root.classList.toggle("my-turn", myTurn);
    // A tab in the background still tells its player when it is their turn.
    document.title = myTurn ? `${T.turnYou} · ${baseTitle}` : baseTitle;
    if (myTurn && wasMyTurn === false) chime();
    wasMyTurn = myTurn;
    root.classList.toggle("watching", ctx.me === null);
    renderScore(s, ctx);
    renderSeats(s, ctx, said);
    renderCenter(s, ctx);
    renderActions(s, ctx);
    renderLog(s, ctx, said);
    tick();
  }

  // -- the turn's chime: a short tone when the turn comes to you (off with the header button) --
  function chime() {
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

  const soundBtn = $("sound-toggle");
  if (soundBtn) {
    // Storage can be refused (private windows, blocked cookies): then the choice lasts the page.
    try {
      soundOn = localStorage.getItem("mus-sound") !== "off";
    } catch (err) {
      soundOn = true;
    }
    const renderSound = () => {
      soundBtn.setAttribute("aria-pressed", soundOn ? "true" : "false");
      soundBtn.textContent = soundOn ? T.soundOn : T.soundOff;
    };
    renderSound();
    soundBtn.addEventListener("click", () => {
      soundOn = !soundOn;
      try {
        localStorage.setItem("mus-sound", soundOn ? "on" : "off");
      } catch (err) {
        // not remembered, still switched for this page
      }
      renderSound();
    });
  }

  // -- clocks ---------------------------------------------------------------------------------
  function tick() {
    if (!state) return;
    const now = Date.now() + skew;
    const total = state.turn_seconds || 30;
    const deadline = state.deadline ? Date.parse(state.deadline) : NaN;
    const left = Number.isFinite(deadline) ? Math.max(0, (deadline - now) / 1000) : null;
    const ctx = context(state);
    // The clock stops while the players to act are away (RULES.md §8.3).
    const awaySeats = new Set(
      (state.seats || []).filter((x) => x && x.away_until && !x.connected).map((x) => x.seat),
    );
    const running = left !== null && ctx.turn.some((seat) => !awaySeats.has(seat));
    const clock = $("clock");
    clock.hidden = !running;
    if (running) {
      $("clock-bar").max = total;
      $("clock-bar").value = Math.min(total, left);
      $("clock-num").textContent = fmt(T.seconds, { n: Math.ceil(left) });
      clock.classList.toggle("urgent", left <= 5);
    }
    for (let seat = 0; seat < 4; seat++) {
      const box = seatEls[ctx.pos(seat)];
      if (!box) continue;
      const c = box.querySelector(".seat-clock");
      const away = box.querySelector(".seat-away");
      const show = running && ctx.turn.includes(seat) && away.hidden;
      c.hidden = !show;
      if (show) {
        const bar = c.querySelector("progress");
        bar.max = total;
        bar.value = Math.min(total, left);
        c.querySelector(".seat-clock-num").textContent = fmt(T.seconds, { n: Math.ceil(left) });
        c.classList.toggle("urgent", left <= 5);
      }
      if (!away.hidden) {
        const until = away.dataset.until ? Date.parse(away.dataset.until) : NaN;
        away.textContent = Number.isFinite(until)
          ? fmt(T.away, { n: Math.max(0, Math.ceil((until - now) / 1000)) })
          : T.awayBare;
      }
    }
    if (cancelAt !== null && state.phase === "cancelada") {
      const secs = Math.max(0, Math.ceil((cancelAt - now) / 1000));
      const reasons = { abandono: T.reasonAbandono, expulsion: T.reasonExpulsion, practica: T.reasonPractica };
      const reason =
        state.cancel_reason in reasons
          ? reasons[state.cancel_reason]
          : state.cancel_reason
            ? fmt(T.reasonModerator, { reason: state.cancel_reason })
            : "";
      $("result-text").textContent = `${reason} ${fmt(T.redirect, { n: secs })}`.trim();
      if (secs <= 0) {
        cancelAt = null;
        window.location.assign(root.dataset.lobbyUrl || "/");
      }
    }
  }

  // -- talking to the server ------------------------------------------------------------------
  let toastTimer = null;
  function toast(text) {
    const box = $("toast");
    box.textContent = text;
    box.hidden = false;
    box.classList.add("show");
    clearTimeout(toastTimer);
    toastTimer = setTimeout(() => {
      box.classList.remove("show");
      box.hidden = true;
    }, 4000);
  }

  function applyPending() {
    for (const btn of $("actions").querySelectorAll("button")) {
      if (btn.dataset.act === "descarte") btn.disabled = pending || !btn.dataset.ok;
      else btn.disabled = pending;
    }
    $("envido-amount").disabled = pending;
    root.classList.toggle("pending", pending);
    if (pending) for (const btn of root.querySelectorAll(".card-btn")) btn.disabled = true;
  }

  function send(action) {
    if (pending || !state) return;
    if (!ws || ws.readyState !== WebSocket.OPEN) {
      toast(T.offline);
      return;
    }
    ws.send(JSON.stringify({ type: "action", v: state.v, ...action }));
    pending = true;
    applyPending();
    // If no state comes back (a lost message), ask for one rather than stay stuck.
    clearTimeout(pendingTimer);
    pendingTimer = setTimeout(() => {
      if (pending && ws && ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify({ type: "sync" }));
    }, 8000);
  }

  function setConnected(ok) {
    root.dataset.connected = ok && ws && ws.readyState === WebSocket.OPEN ? "1" : "0";
    $("conn").hidden = ok || !everOpen;
    root.classList.toggle("offline", !ok);
  }

  function connect() {
    clearTimeout(retryTimer);
    retryTimer = null;
    if (denied) return;
    const proto = window.location.protocol === "https:" ? "wss:" : "ws:";
    const socket = new WebSocket(`${proto}//${window.location.host}${root.dataset.wsPath}`);
    ws = socket;
    socket.addEventListener("open", () => {
      everOpen = true;
      retries = 0;
      setConnected(true);
      clearInterval(pingTimer);
      pingTimer = setInterval(() => {
        if (socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify({ type: "ping" }));
      }, 25000);
    });
    socket.addEventListener("message", (event) => {
      let msg;
      try {
        msg = JSON.parse(event.data);
      } catch {
        return;
      }
      if (msg.type === "state") {
        if (state && typeof msg.v === "number" && msg.v < state.v) return; // an older echo
        render(msg);
      } else if (msg.type === "error") {
        toast(msg.message || msg.code);
      } else if (msg.type === "chat") {
        addChat(msg);
      } else if (msg.type === "chat_history") {
        $("chat-log").replaceChildren();
        for (const line of msg.messages || []) addChat(line);
      }
    });
    socket.addEventListener("close", (event) => {
      if (ws !== socket) return;
      clearInterval(pingTimer);
      ws = null;
      pending = false;
      if (state) applyPending();
      if (event.code === 4401 || event.code === 4403) {
        denied = true;
        setConnected(true);
        toast(T.denied);
        return;
      }
      everOpen = true;
      setConnected(false);
      const delay = Math.min(10000, 500 * 2 ** retries) * (0.75 + Math.random() * 0.5);
      retries += 1;
      retryTimer = setTimeout(connect, delay);
    });
  }

  // -- chat: plain text only, always through textContent ------------------------------------
  function addChat(line) {
    const log = $("chat-log");
    if (!log || (line.id && log.querySelector(`[data-id="${Number(line.id)}"]`))) return;
    const item = document.createElement("li");
    if (line.id) item.dataset.id = String(Number(line.id));
    if (typeof line.seat === "number" && state && state.you) {
      item.classList.add(line.seat % 2 === state.you.seat % 2 ? "ours" : "theirs");
    }
    const who = document.createElement("strong");
    who.textContent = String(line.name || "");
    const text = document.createElement("span");
    text.textContent = ` ${String(line.text || "")}`;
    item.append(who, text);
    log.append(item);
    while (log.children.length > 100) log.firstElementChild.remove();
    log.scrollTop = log.scrollHeight;
  }

  function sendChat(text) {
    const clean = String(text || "").trim();
    if (!clean) return false;
    if (!ws || ws.readyState !== WebSocket.OPEN) {
      toast(T.offline);
      return false;
    }
    ws.send(JSON.stringify({ type: "chat", text: clean.slice(0, 300) }));
    return true;
  }

  const chatForm = $("chat-form");
  if (chatForm) {
    chatForm.addEventListener("submit", (event) => {
      event.preventDefault();
      const input = $("chat-input");
      if (sendChat(input.value)) input.value = "";
    });
    $("quick-phrases").addEventListener("click", (event) => {
      const btn = event.target.closest("button[data-phrase]");
      if (btn) sendChat(btn.dataset.phrase);
    });
  }

  // -- input ----------------------------------------------------------------------------------
  function updateChosen() {
    const input = $("envido-amount");
    const min = Number(input.min) || 2;
    const max = Number(input.max) || 40;
    const value = clamp(Math.round(Number(input.value) || chosen.value || min), min, max);
    chosen.value = value;
    const btn = $("envido-chosen");
    btn.dataset.to = String(value);
    btn.textContent = fmt(T.actEnvidoChosen, { n: value });
  }

  $("actions").addEventListener("click", (event) => {
    const step = event.target.closest("button[data-step]");
    if (step) {
      const input = $("envido-amount");
      input.value = String(
        clamp((Number(input.value) || chosen.value) + Number(step.dataset.step), Number(input.min), Number(input.max)),
      );
      updateChosen();
      return;
    }
    const btn = event.target.closest("button[data-act]");
    if (!btn || btn.disabled) return;
    const act = btn.dataset.act;
    if (act === "envido") send({ act, to: Number(btn.dataset.to) });
    else if (act === "descarte") send({ act, cards: [...selected] });
    else send({ act });
  });
  $("envido-amount").addEventListener("input", updateChosen);
  $("envido-amount").addEventListener("change", () => {
    updateChosen();
    $("envido-amount").value = String(chosen.value);
  });
  $("envido-amount").addEventListener("keydown", (event) => {
    if (event.key === "Enter") {
      event.preventDefault();
      updateChosen();
      $("envido-chosen").click();
    }
  });

  $("felt").addEventListener("click", (event) => {
    const btn = event.target.closest(".card-btn");
    if (!btn || btn.disabled || pending) return;
    const code = btn.dataset.code;
    if (selected.has(code)) selected.delete(code);
    else selected.add(code);
    render(state);
  });

  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "visible" && !ws && !denied) connect();
  });

  render(state);
  setInterval(tick, 250);
  connect();
})();
