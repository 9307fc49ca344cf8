"use strict";
// The browser table of widderkopf-play --web: it shows what the server sends and sends
// the moves. Every request carries the page's session token in a header.
const TOKEN = document.querySelector("meta[name=widderkopf-token]").content;
const $ = (id) => document.getElementById(id);
const HELP = "Click a move, press the key shown on it, or type a card (QC, 10d, td, 7h), " +
  "'crack' or 'pass', or a suit name when naming trumps, then Enter.";
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
  $("title").textContent = "you (player_" + s.seat + ") against " + s.opponent + ", hand " +
    s.hand + " of " + s.num_hands + (s.variant === "full" ? "" : ", " + s.variant) +
    "; match score: you " + s.scores.you + ", bot " + s.scores.bot;
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
  log.replaceChildren(...s.events.map((e) => { const li = document.createElement("li"); li.textContent = e; return li; }));
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
    if (r.rating === null) lines.push("Your rating: none yet (no full-game hand against a bot of the ladder).");
    else lines.push("Your rating: " + r.rating + " Elo, 95% interval " + r.ci95[0] + " to " + r.ci95[1] +
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
  let i = 0;
  const go = (to) => { i = Math.max(0, Math.min(count - 1, to)); counter.textContent = render(i, pic); };
  bar.append(button("\u25c0 back", "", () => go(i - 1)), button("next \u25b6", "", () => go(i + 1)), counter);
  box.append(bar, pic);
  box.go = go;
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
  const views = {"spectator": "all cards", ["player_" + d.seat]: "you", [d.bot]: "the bot"};
  let view = "spectator";
  const steps = f.views.spectator.frames.length;
  const replay = stepper(steps, (i, pic) => {
    pic.innerHTML = picture(f, view, i);
    return "decision " + i + " of " + (steps - 1) + ": " + f.views[view].caption[i];
  });
  const pick = document.createElement("span");
  for (const [v, label] of Object.entries(views)) {
    pick.append(button(label, "", () => { view = v; replay.go(0); }));
  }
  replay.firstChild.append(pick);
  const saw = stepper(d.decisions.length, (i, pic) => {
    const dec = d.decisions[i];
    pic.innerHTML = picture(f, d.bot, dec.step);
    return "its decision " + (i + 1) + " of " + d.decisions.length + ": " + dec.choice +
      " (its legal moves: " + dec.legal.join(", ") + ")";
  });
  saw.dataset.role = "bot-view";
  const panels = document.createElement("div");
  panels.className = "panels";
  const left = document.createElement("div"), right = document.createElement("div");
  const h1 = document.createElement("h2"), h2 = document.createElement("h2");
  h1.textContent = "Replay of the hand";
  h2.textContent = "What the bot saw: its view before each of its decisions (\"(you)\" marks the bot there) and its choice";
  left.append(h1, replay);
  right.append(h2, saw);
  panels.append(left, right);
  el.append(panels);
  el.open = hand === state.hands_over - 1;
  for (const other of $("reviews").children) other.open = false;
  $("reviews").prepend(el);
}

$("typed").addEventListener("submit", (e) => {
  e.preventDefault();
  const text = $("typed-move").value;
  $("typed-move").value = "";
  if (["help", "?"].includes(text.trim().toLowerCase())) say(HELP);
  else if (state && !state.over) move({text: text});
});

document.addEventListener("keydown", (e) => {
  if (e.target instanceof HTMLInputElement || e.ctrlKey || e.metaKey || e.altKey || !state) return;
  const key = e.key.toLowerCase();
  if (state.over && key === "n") { request("/api/new", {match: state.match}); return; }
  const b = document.querySelector("#moves button[data-key='" + key + "']");
  if (b) { e.preventDefault(); b.click(); }
});

request("/api/state");
