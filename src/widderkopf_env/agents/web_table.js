"use strict";
// The browser table of widderkopf-play --web: it shows what the server sends and sends
// the moves. Every request carries the page's session token in a header.
const TOKEN = document.querySelector("meta[name=widderkopf-token]").content;
const $ = (id) => document.getElementById(id);
const HELP = "Click a move, press the key shown on it, or type a card (QC, 10d, td, 7h), " +
  "'crack' or 'pass', or a suit name when naming trumps, then Enter.";
const SUITS = ["\u2663", "\u2660", "\u2665", "\u2666"];  // clubs, spades, hearts, diamonds
const TRUMP_TOP = ["Q", "J"].flatMap((r) => SUITS.map((s) => r + s));  // the 8 top trumps
let state = null, busy = false, reviewed = 0;

async function call(path, body) {
  const r = await fetch(path, {method: "POST", cache: "no-store", credentials: "omit",
    headers: {"Content-Type": "application/json", "X-Widderkopf-Token": TOKEN},
    body: JSON.stringify(body || {})});
  let data;
  try { data = await r.json(); } catch (e) { data = {error: "no answer (" + r.status + ")"}; }
  return {ok: r.ok, status: r.status, data: data};
}

function say(text, kind) {
  $("message").textContent = text;
  $("message").dataset.kind = kind || "info";
}

async function request(path, body) {
  if (busy) return;
  busy = true;
  try {
    const r = await call(path, body);
    if (r.ok) { say(""); show(r.data); }
    else {
      say("Not accepted: " + r.data.error, "refused");
      if (r.status === 409) { const s = await call("/api/state"); if (s.ok) show(s.data); }
    }
  } catch (e) {
    say("The table does not answer: is widderkopf-play still running?", "refused");
  } finally { busy = false; }
}

const move = (body) => request("/api/move", Object.assign({step: state.step}, body));

function button(label, key, onclick) {
  const b = document.createElement("button");
  if (key) { const k = document.createElement("kbd"); k.textContent = key; b.append(k); }
  b.append(label);
  b.onclick = onclick;
  return b;
}

function show(s) {
  if (state && s.match !== state.match) { reviewed = 0; $("reviews").replaceChildren(); }
  state = s;
  $("title").textContent = "you (player_" + s.seat + ") against the bot (" + s.opponent +
    "), hand " + s.hand + " of " + s.num_hands + (s.variant === "full" ? "" : ", " + s.variant) +
    "; match score: you " + s.scores.you + ", bot " + s.scores.bot;
  showRules(s);
  $("table").innerHTML = s.table;
  $("prompt").textContent = s.prompt;
  const moves = $("moves");
  moves.replaceChildren();
  for (const m of s.legal) {
    const b = button(m.label, m.key, () => move({action: m.action}));
    b.dataset.action = m.action;
    b.dataset.key = m.key;
    moves.append(b);
    if (m.card === null) continue;
    for (const role of ["hand-" + s.seat, "pile-" + s.seat]) {
      const sel = "#table use[data-role='" + role + "'][data-card='" + m.card + "']";
      for (const card of document.querySelectorAll(sel)) {
        card.classList.add("playable");
        card.addEventListener("click", () => move({action: m.action}));
      }
    }
  }
  $("typed-move").disabled = s.over;
  const log = $("log");
  log.replaceChildren(...s.events.map((e, i) => {
    const li = document.createElement("li"), n = document.createElement("span");
    n.className = "n";
    n.textContent = (i + 1) + ".";
    li.append(n, e);
    return li;
  }));
  log.scrollTop = log.scrollHeight;
  showOver(s);
  document.body.dataset.step = s.step;
  document.body.dataset.match = s.match;
  for (; reviewed < s.hands_over; reviewed++) review(reviewed);
}

function showOver(s) {
  const over = $("over");
  if (!s.over) { over.hidden = true; over.removeAttribute("data-match-over"); return; }
  const m = s.summary;
  const lines = [m.failed || ("Match over: " + m.result + ", " + m.scores.you + " to " + m.scores.bot + ".")];
  lines.push("Deal seed " + m.seed + " (widderkopf-play --seed " + m.seed + " deals this match again).");
  const r = m.rating;
  if (r) {
    const pool = r.recorded
      ? "over every match recorded in " + r.recorded + " (" + r.matches + (r.matches === 1 ? " match" : " matches") +
        ", from every session that recorded there, this one included)"
      : "over this table's matches since it started (" + r.matches + (r.matches === 1 ? " match" : " matches") +
        "; nothing is recorded)";
    if (r.rating === null) lines.push("Your rating " + pool + ": none yet (no full-game hand against a bot of the ladder).");
    else lines.push("Your rating " + pool + ": " + r.rating + " Elo, 95% interval " + r.ci95[0] + " to " + r.ci95[1] +
      ", from " + r.hands + (r.hands === 1 ? " hand" : " hands") + " (the ladder's scale: random = 0, " +
      Object.entries(r.opponents).map(([o, v]) => o + " " + Math.round(v.reference)).join(", ") + ").");
    if (r.unrated.length) lines.push("Not rated (no ladder rating): " + r.unrated.join(", ") + ".");
    lines.push(r.recorded ? "Recorded in " + r.recorded + "." : "Not recorded (--no-record).");
    if (r.save_error) lines.push(r.save_error);
  }
  over.replaceChildren(...lines.map((t) => { const p = document.createElement("p"); p.textContent = t; return p; }));
  over.append(button("New match", "N", () => request("/api/new", {match: state.match})));
  over.hidden = false;
  over.setAttribute("data-match-over", m.result);
}

function picture(frames, view, i) {
  const v = frames.views[view];
  return v.head + v.frames[i].map((k) => frames.parts[k]).join("") + "</svg>";
}

function stepper(count, render) {
  const box = document.createElement("div"), bar = document.createElement("div");
  const pic = document.createElement("div"), counter = document.createElement("span");
  bar.className = "stepper";
  counter.className = "counter";
  let i = 0;
  const go = (to) => {
    i = Math.max(0, Math.min(count - 1, to));
    counter.textContent = render(i, pic);
    box.dataset.at = i;
  };
  bar.append(button("\u25c0 back", "", () => go(i - 1)), button("next \u25b6", "", () => go(i + 1)), counter);
  box.append(bar, pic);
  box.go = go;
  box.redraw = () => go(i);  // the same place again (after the view changed)
  go(0);
  return box;
}

async function review(hand) {
  const r = await call("/api/review", {hand: hand});
  if (!r.ok) return;
  const d = r.data, f = d.frames;
  const el = document.createElement("details");
  el.className = "review";
  el.dataset.hand = hand;
  const summary = document.createElement("summary");
  summary.textContent = d.result[0] + " Its replay, and what the bot saw";
  el.append(summary, ...d.result.slice(1).map((t) => { const p = document.createElement("p"); p.textContent = t; return p; }));
  const views = {"spectator": "all cards", ["player_" + d.seat]: "your view", [d.bot]: "the bot's view"};
  let view = "spectator";
  // one count: the hand's decisions from 1; the picture before decision 1 is the deal
  const steps = f.views.spectator.frames.length, total = steps - 1;
  const replay = stepper(steps, (i, pic) => {
    pic.innerHTML = picture(f, view, i);
    return (i === 0 ? "before decision 1 of " + total : "decision " + i + " of " + total) +
      ": " + f.views[view].caption[i];
  });
  replay.dataset.role = "replay";
  const pick = document.createElement("span");
  for (const [v, label] of Object.entries(views)) {
    const b = button(label, "", () => {
      view = v;
      for (const other of pick.children) other.setAttribute("aria-pressed", other === b);
      replay.dataset.view = v;
      replay.redraw();  // keep the place: the same decision, another view
    });
    b.dataset.view = v;
    b.setAttribute("aria-pressed", v === view);
    pick.append(b);
  }
  replay.dataset.view = view;
  replay.firstChild.append(pick);
  const saw = stepper(d.decisions.length, (i, pic) => {
    const dec = d.decisions[i];
    pic.innerHTML = picture(f, d.bot, dec.step);
    return "before decision " + (dec.step + 1) + " of " + total + " (the bot's " + (i + 1) +
      " of " + d.decisions.length + "): " + dec.choice + " (its legal moves: " + dec.legal.join(", ") + ")";
  });
  saw.dataset.role = "bot-view";
  const panels = document.createElement("div");
  panels.className = "panels";
  const left = document.createElement("div"), right = document.createElement("div");
  const h1 = document.createElement("h2"), h2 = document.createElement("h2");
  h1.textContent = "Replay of the hand";
  h2.textContent = "What the bot saw: its view before each of its decisions, and its choice";
  left.append(h1, replay);
  right.append(h2, saw);
  panels.append(left, right);
  el.append(panels);
  el.open = hand === state.hands_over - 1;
  for (const other of $("reviews").children) other.open = false;
  $("reviews").prepend(el);
}

function showRules(s) {
  const t = s.trump, variant = $("rules-variant");
  $("rules-trumps").textContent = t >= 0
    ? "This hand, " + SUITS[t] + " named: " + TRUMP_TOP.concat(["A", "10", "K", "9", "8", "7", "6"]
        .map((r) => r + SUITS[t])).join(" ") +
      (s.variant === "full" ? " (the Spitzer: 7" + SUITS[t] + ")." : ".")
    : "This hand's trump suit is not named yet.";
  variant.hidden = s.variant === "full";
  variant.textContent = "This match plays the " + s.variant + " variant: the same rules on a " +
    "smaller deck, with fewer cards, tricks and points (the Rules page, Variants); the " +
    "trump order holds for the cards in it.";
}

function toggleRules(open) {
  $("rules").hidden = !open;
  $("rules-button").setAttribute("aria-expanded", open);
  if (open) $("rules-close").focus();
}

$("rules-button").addEventListener("click", () => toggleRules($("rules").hidden));
$("rules-close").addEventListener("click", () => { toggleRules(false); $("rules-button").focus(); });

$("typed").addEventListener("submit", (e) => {
  e.preventDefault();
  const text = $("typed-move").value;
  $("typed-move").value = "";
  if (["help", "?"].includes(text.trim().toLowerCase())) say(HELP);
  else if (state && !state.over) move({text: text});
});

document.addEventListener("keydown", (e) => {
  if (e.key === "Escape" && !$("rules").hidden) { toggleRules(false); return; }
  if (e.target instanceof HTMLInputElement || e.ctrlKey || e.metaKey || e.altKey || !state) return;
  const key = e.key.toLowerCase();
  if (state.over && key === "n") { request("/api/new", {match: state.match}); return; }
  const b = document.querySelector("#moves button[data-key='" + key + "']");
  if (b) { e.preventDefault(); b.click(); }
});

request("/api/state");
