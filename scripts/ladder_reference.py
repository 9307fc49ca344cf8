"""Make the ladder's reference run, ``src/widderkopf_env/agents/ladder_reference.json``.

    nice python scripts/ladder_reference.py                       # the shipped file's settings
    python scripts/ladder_reference.py --pairs 100 --pimc-pairs 10 --out /tmp/ref.json  # quick

A round robin among the baselines in the duplicate arena, played in the ladder's blocks of
deals (so on the very deals a ``widderkopf-eval AGENT --ladder`` run meets), then a joint
Elo fit with random = 0 and bootstrap intervals over deal pairs (see
``src/widderkopf_env/agents/ladder.py``). The pairs of matchups with PIMC (about 3 CPU-seconds
per pair) are set apart by ``--pimc-pairs``; PIMC vs random is left out unless
``--pimc-random`` is given: PIMC's rating comes from its matchups with the heuristic and
PPO bots, which are themselves tied to random by thousands of pairs.

The file records the command, the settings and each matchup's time.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from itertools import combinations
from pathlib import Path

from widderkopf_env.agents.ladder import (
    REFERENCE_FILE,
    bootstrap_ratings,
    expected_score,
    fit_ratings,
    play_matchup,
)

BASELINES = ("random", "heuristic", "ppo-v1", "pimc-uniform")
SLOW = {"pimc-uniform"}


def main(argv=None) -> dict:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--players", default=",".join(BASELINES),
                   help="baselines (load_agent names), the anchor first")
    p.add_argument("--pairs", type=int, default=2000, help="pairs per matchup of fast bots")
    p.add_argument("--pimc-pairs", type=int, default=100, help="pairs per matchup with PIMC")
    p.add_argument("--pimc-random", action="store_true", help="also play PIMC vs random")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--workers", type=int, default=None)
    p.add_argument("--out", type=Path, default=REFERENCE_FILE)
    p.add_argument("--show", action="store_true",
                   help="only print the Markdown tables of the file at --out")
    args = p.parse_args(argv)
    if args.show:
        print(markdown(json.loads(args.out.read_text())))
        return {}
    players = args.players.split(",")
    anchor = players[0]
    matchups = []
    t0 = time.perf_counter()
    # the stronger-looking bot as A, so that scores read as that bot's
    for b, a in combinations(players, 2):
        slow = a in SLOW or b in SLOW
        if slow and anchor in (a, b) and not args.pimc_random:
            continue
        m = play_matchup(a, b, args.pimc_pairs if slow else args.pairs, args.seed, args.workers)
        matchups.append(m)
        print(f"{a} vs {b}: {m.pairs} pairs, score {m.score:.3f}, {m.mean:+.3f} game points "
              f"per hand, {m.seconds:.0f} s", file=sys.stderr, flush=True)
    fixed = {anchor: 0.0}
    ratings = fit_ratings(matchups, fixed)
    ci = bootstrap_ratings(matchups, fixed, seed=args.seed)
    ref = {
        "version": 1,
        "command": "python scripts/ladder_reference.py " + " ".join(
            argv if argv is not None else sys.argv[1:]),
        "anchor": anchor,
        "players": {q: {"rating": round(ratings[q], 1), "ci95": [round(x, 1) for x in ci[q]]}
                    for q in players},
        "matchups": [m.to_dict() for m in matchups],
        "seed": args.seed,
        "seconds": round(time.perf_counter() - t0, 1),
    }
    args.out.write_text(json.dumps(ref, indent=1) + "\n")
    print(markdown(ref))
    return ref


def markdown(ref: dict) -> str:
    """The leaderboard and the matchups (observed vs the fit's expected score) as tables."""
    players = sorted(ref["players"].items(), key=lambda kv: -kv[1]["rating"])
    rows = ["| bot | rating (Elo) | 95% interval |", "|---|---|---|"]
    rows += [f"| {name} | **{p['rating']:.0f}** | [{p['ci95'][0]:.0f}, {p['ci95'][1]:.0f}] |"
             for name, p in players]
    rows += ["", "| A vs B | pairs | A won / drawn / lost | A's score | expected | "
             "A's game points per hand [95% CI] | seconds |", "|---|---|---|---|---|---|---|"]
    for m in ref["matchups"]:
        gap = ref["players"][m["a"]]["rating"] - ref["players"][m["b"]]["rating"]
        rows.append(f"| {m['a']} vs {m['b']} | {m['pairs']} | {m['wins']} / {m['draws']} / "
                    f"{m['losses']} | {m['score']:.3f} | {float(expected_score(gap)):.3f} | "
                    f"{m['mean']:+.3f} [{m['ci95'][0]:+.3f}, {m['ci95'][1]:+.3f}] | "
                    f"{m['seconds']:.0f} |")
    return "\n".join(rows)


if __name__ == "__main__":
    main()
