"""Game replays as one self-contained HTML page, and the ``widderkopf-replay`` command.

    widderkopf-replay GAME.json [-o game.html]

``GAME.json`` is what :meth:`Game.to_json` writes (``widderkopf-eval --save-games DIR``
keeps every evaluated game that way). The page steps through the game one decision at a
time, with buttons, the arrow keys (Home and End jump to the start and the end) and a
slider over the decisions, and shows the table picture of :mod:`widderkopf_env.picture`
for a spectator or for either player (each player's pictures and move list are made from
that player's view only, so the opponent's discard reads "discards a card"). Everything
(pictures, card faces, script) is inside the file: it opens without network access.
"""

from __future__ import annotations

import argparse
import json
from html import escape

from .canvas import svg_symbols
from .cli import UsageError, add_version, check_output_file, existing_file, output_file, run_cli
from .deals import deal_to_spec
from .picture import CARD_H, CARD_W, SYMBOLS, svg_parts, table_of_view
from .render import describe_action
from .rules import Game

VIEWS = ("spectator", "player_0", "player_1")


def _after(game: Game, hands_before: int, names: tuple) -> str:
    """What the move just made settled: a trick, a hand."""
    notes = []
    if game.lead < 0 and game.tricks and len(game.results) == hands_before:
        notes.append(f"the trick goes to {names[game.tricks[-1][3]]}")
    if len(game.results) > hands_before:
        r = game.results[-1]
        pts = r.card_points
        notes.append(f"hand {r.hand + 1} over: {names[r.winner]} won {pts[r.winner]} to "
                     f"{pts[1 - r.winner]}, +{r.value}")
    return "; ".join(notes)


def frames(game: Game, start: int = 0, stop: int | None = None, names=None) -> dict:
    """The pictures and captions of every step, step ``i`` being the table after the first
    ``i`` decisions of ``game``, as the page's script gets them: steps ``start`` to ``stop``
    (default: all), ``frames[j]`` being step ``start + j``. The first frame is captioned
    as the deal (of hand n, when ``start`` is a later hand's first step); each later
    frame with the decision that led to it. ``names`` (two strings, by player) replaces
    ``player_0`` and ``player_1`` in the pictures and captions (:func:`picture.table_of_view`).

    Pictures repeat most of their elements from step to step, so each distinct SVG element
    is stored once, in ``parts``; per view, ``head`` is the opening ``<svg>`` tag and
    ``frames[i]`` lists the part numbers of step ``i``: ``head + parts joined + "</svg>"``
    is ``picture.svg_of(table, standalone=False)`` (a tenth of the size of the pictures
    written out in full).
    """
    given, names = names is not None, tuple(names or ("player_0", "player_1"))
    replay = game.replay(0)  # its first deal: each later hand gets the match's deal below
    parts: dict[str, int] = {}
    out = {"parts": parts, "views": {v: {"head": "", "frames": [], "caption": []}
                                     for v in VIEWS}}

    def snapshot(captions):
        views = (replay.view(0), replay.view(1))
        for name, viewer in zip(VIEWS, (None, 0, 1), strict=True):
            table = (table_of_view(None, views, names) if viewer is None
                     else table_of_view(views[viewer], names=names if given else None))
            head, elements = svg_parts(table)
            entry = out["views"][name]
            entry["head"] = head
            entry["frames"].append([parts.setdefault(e, len(parts)) for e in elements])
            entry["caption"].append(captions[viewer])

    if start == 0:
        snapshot({None: "the deal", 0: "the deal", 1: "the deal"})
    for step, action in enumerate(game.history[:stop], start=1):
        who = replay.current
        text = {viewer: describe_action(action, replay.phase, replay.level, names[who],
                                        hide_discard=viewer not in (None, who))
                for viewer in (None, 0, 1)}
        hands = len(replay.results)
        replay.apply(action)
        if len(replay.results) > hands and not replay.is_over:  # tie-breaks too (R20)
            replay.deal_hand(deal_to_spec(game.deals[replay.hand_no]))
        note = _after(replay, hands, names)
        if step == start and len(replay.results) > hands:  # a later hand's first frame: its deal
            deal = f"the deal of hand {replay.hand_no + 1}"
            snapshot({None: deal, 0: deal, 1: deal})
        elif step >= start:
            snapshot({k: f"{t}; {note}" if note else t for k, t in text.items()})
    out["parts"] = list(parts)  # in number order (dicts keep insertion order)
    return out


_STYLE = """
body { font-family: system-ui, sans-serif; background: #10301d; color: #f2f2ea; margin: 16px; }
h1 { font-size: 20px; margin: 0 0 8px; }
#controls { display: flex; flex-wrap: wrap; gap: 8px; align-items: center; margin: 8px 0; }
button { font-size: 15px; padding: 4px 10px; }
#slider { width: 360px; }
#caption { font-size: 17px; min-height: 24px; margin: 6px 0; }
#table svg { max-width: 100%; height: auto; }
label { margin-right: 6px; }
.hint { color: #a9c9b3; font-size: 13px; }
"""

_SCRIPT = """
const last = REPLAY.steps - 1;
let step = 0, view = "spectator";
const $ = (id) => document.getElementById(id);
function picture(v, i) {
  const parts = REPLAY.frames.views[v].frames[i].map((k) => REPLAY.frames.parts[k]);
  return REPLAY.frames.views[v].head + parts.join("") + "</svg>";
}
function show() {
  $("table").innerHTML = picture(view, step);
  const caption = REPLAY.frames.views[view].caption;
  $("caption").textContent = step === 0 ? "Start: " + caption[0]
    : "Decision " + step + ": " + caption[step];
  $("counter").textContent = step + " / " + last;
  $("slider").value = step;
  document.body.dataset.step = step;
  document.body.dataset.view = view;
}
function go(to) { step = Math.max(0, Math.min(last, to)); show(); }
$("first").onclick = () => go(0);
$("prev").onclick = () => go(step - 1);
$("next").onclick = () => go(step + 1);
$("end").onclick = () => go(last);
$("slider").oninput = (e) => go(Number(e.target.value));
for (const r of document.querySelectorAll("input[name=view]")) {
  r.onchange = (e) => { view = e.target.value; show(); };
}
document.addEventListener("keydown", (e) => {
  const keys = {ArrowRight: step + 1, ArrowLeft: step - 1, Home: 0, End: last};
  if (e.key in keys) { e.preventDefault(); go(keys[e.key]); }
});
show();
"""


def _json_for_script(value) -> str:
    """JSON that is safe inside a ``<script>`` element."""
    return json.dumps(value, ensure_ascii=False).replace("</", "<\\/")


def replay_html(game: Game, title: str = "Widderkopf replay") -> str:
    """The replay page of ``game`` as one HTML document (no external resources)."""
    steps = len(game.history) + 1
    radios = "".join(
        f'<label><input type="radio" name="view" value="{v}"{" checked" if v == VIEWS[0] else ""}>'
        f" {v}</label>" for v in VIEWS)
    summary = ", ".join(
        f"hand {r.hand + 1}: player_{r.winner} +{r.value}" for r in game.results) or "unfinished"
    data = _json_for_script({"steps": steps, "frames": frames(game)})
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{escape(title)}</title><style>{_STYLE}</style></head>
<body data-step="0" data-view="spectator">
<svg width="0" height="0" style="position:absolute" aria-hidden="true"><defs>
{svg_symbols(SYMBOLS, (CARD_W, CARD_H))}</defs></svg>
<h1>{escape(title)}</h1>
<div class="hint">seed {escape(str(game.seed))}, {steps - 1} decisions; {escape(summary)}.
Keys: &larr; &rarr; step, Home / End jump.</div>
<div id="controls">
<button id="first" title="start (Home)">start</button>
<button id="prev" title="back (left arrow)">&#9664; back</button>
<button id="next" title="forward (right arrow)">next &#9654;</button>
<button id="end" title="end (End)">end</button>
<input id="slider" type="range" min="0" max="{steps - 1}" value="0" aria-label="decision">
<span id="counter"></span>
<span>view: {radios}</span>
</div>
<div id="caption"></div>
<div id="table"></div>
<script>const REPLAY = {data};
{_SCRIPT}</script>
</body></html>
"""


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="widderkopf-replay",
        description="Write a self-contained HTML page that replays a saved game "
                    "(Game.to_json, e.g. from widderkopf-eval --save-games DIR).")
    p.add_argument("game", metavar="GAME.json", type=existing_file,
                   help="a game saved with Game.to_json")
    p.add_argument("-o", "--output", metavar="OUT.html", type=output_file,
                   help="where to write the page (default: GAME.html beside GAME.json; "
                        "never the game file itself)")
    add_version(p)
    return p


def main(argv=None) -> int:
    """The console script; returns the exit status (0, 2 for a usage or I/O error, 130
    after Ctrl-C: :func:`widderkopf_env.cli.run_cli`)."""
    parser = build_parser()
    return run_cli(parser, lambda: _run(parser.parse_args(argv)))


def _run(args) -> int:
    source = args.game
    out = args.output if args.output is not None else source.with_suffix(".html")
    if out.exists() and out.samefile(source):
        raise UsageError(f"the page would overwrite the game {str(source)!r} itself: give "
                         "-o another file")
    if args.output is None:
        check_output_file(out)
    try:
        text = source.read_text(encoding="utf-8")
    except UnicodeDecodeError as err:
        raise UsageError(f"{str(source)!r} is not a saved widderkopf game (Game.to_json): "
                         f"not UTF-8 text ({err.reason} at byte {err.start})") from None
    try:
        game = Game.from_json(text)
    except (ValueError, KeyError, TypeError) as err:
        raise UsageError(f"{str(source)!r} is not a saved widderkopf game (Game.to_json): "
                         f"{err}") from None
    out.write_text(replay_html(game, f"Widderkopf replay: {source.name}"), encoding="utf-8")
    print(f"wrote {out} ({len(game.history)} decisions)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
