"""Engine speed: microseconds per decision of random legal play through the public API.

    python bench/engine.py [--games N] [--repeat R] [--full]

Plays random legal games with our engine (``legal_actions()`` + ``apply()``) and, in the
same run and the same loop shapes, OpenSpiel's C++ skat engine driven from Python
(``pip install open-spiel``; skipped with a note if it is not installed). Two loops:

- ``decisions``: the deal is made before the clock starts; only decisions are timed.
- ``games``: whole games are timed, deal included (``Game.new`` for us, skat's chance
  nodes for OpenSpiel), divided by the number of decisions (chance nodes not counted).

Prints the best of ``--repeat`` runs for each loop.
"""

from __future__ import annotations

import argparse
import random
import time

from bench_args import parse

from widderkopf_env import Game


def ours(games: int, loop: str) -> float:
    """us/decision over ``games`` random single-hand games."""
    rng = random.Random(0)
    n = 0
    if loop == "decisions":
        states = [Game.new(seed=s) for s in range(games)]
        t0 = time.perf_counter()
        for g in states:
            while not g.is_over:
                acts = g.legal_actions()
                g.apply(acts[int(rng.random() * len(acts))])
                n += 1
    else:
        t0 = time.perf_counter()
        for s in range(games):
            g = Game.new(seed=s)
            while not g.is_over:
                acts = g.legal_actions()
                g.apply(acts[int(rng.random() * len(acts))])
                n += 1
    return (time.perf_counter() - t0) / n * 1e6


def openspiel(games: int, loop: str) -> float | None:
    try:
        import pyspiel
    except ImportError:
        return None
    game = pyspiel.load_game("skat")
    rng = random.Random(0)
    n = 0
    if loop == "decisions":
        states = []
        for _ in range(games):
            state = game.new_initial_state()
            while state.is_chance_node():  # the deal: made before the clock starts
                outcomes = state.chance_outcomes()
                state.apply_action(outcomes[int(rng.random() * len(outcomes))][0])
            states.append(state)
        t0 = time.perf_counter()
        for state in states:
            while not state.is_terminal():
                acts = state.legal_actions()
                state.apply_action(acts[int(rng.random() * len(acts))])
                n += 1
    else:
        t0 = time.perf_counter()
        for _ in range(games):
            state = game.new_initial_state()
            while not state.is_terminal():
                if state.is_chance_node():
                    outcomes = state.chance_outcomes()
                    state.apply_action(outcomes[int(rng.random() * len(outcomes))][0])
                else:
                    acts = state.legal_actions()
                    state.apply_action(acts[int(rng.random() * len(acts))])
                    n += 1
    return (time.perf_counter() - t0) / n * 1e6


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=1000)
    ap.add_argument("--repeat", type=int, default=3)
    args = parse(ap, argv, games=3000, repeat=3)
    print(f"random legal play, {args.games} games per run, best of {args.repeat} runs")
    for loop in ("decisions", "games"):
        mine = min(ours(args.games, loop) for _ in range(args.repeat))
        theirs = [openspiel(args.games, loop) for _ in range(args.repeat)]
        line = f"loop={loop:9s}  widderkopf {mine:5.2f} us/decision"
        if theirs[0] is None:
            line += "  | OpenSpiel skat: skipped (pip install open-spiel)"
        else:
            best = min(theirs)
            line += f"  | OpenSpiel skat (C++) {best:5.2f} us/decision  ratio {best / mine:4.2f}x"
        print(line)


if __name__ == "__main__":
    main()
