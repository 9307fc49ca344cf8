"""PIMC speed: seconds per decision of the PIMC bot, by kind of decision.

    python bench/pimc.py [--games N] [--seed S] [--samples X] [--uniform] [--full]

Plays N single-hand games of PIMC against the heuristic (PIMC in both seats, alternating)
and times every ``PIMCAgent.act`` call, including the ones answered at once (a single
legal action): the mean over all calls is what a match costs per PIMC decision. Prints
the mean, median and max per kind of decision (trump, discard, answer, escalate-or-lead
on the first trick, lead, follow, and ``forced``: a single legal action) and the
projected wall time of a duplicate evaluation against the heuristic.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections import defaultdict

from bench_args import parse

from widderkopf_env import Game, Phase
from widderkopf_env.agents import HeuristicAgent, PIMCAgent


def kind(view) -> str:
    legal = view.legal
    if legal & (legal - 1) == 0:
        return "forced"
    if view.phase == Phase.TRUMP:
        return "trump"
    if view.phase == Phase.DISCARD:
        return "discard"
    if view.phase == Phase.ANSWER:
        return "answer"
    if not view.tricks:
        return "trick 1"
    left = 17 - len(view.tricks)
    stage = "exact" if left <= 6 else "rollout"
    return ("follow " if view.lead >= 0 else "lead ") + stage


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--games", type=int, default=4)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--samples", type=int, default=None,
                   help="worlds per decision (default: PIMCAgent.WORLDS per kind)")
    p.add_argument("--uniform", action="store_true",
                   help="the uniform sampler (pimc-uniform) instead of opponent inference")
    args = parse(p, argv, games=20)
    pimc, heur = PIMCAgent(samples=args.samples, infer=not args.uniform), HeuristicAgent()
    times = defaultdict(list)
    t_all = time.perf_counter()
    for i in range(args.games):
        game = Game.new(seed=args.seed + i)
        pimc.reset(i)
        seat = i % 2
        while not game.is_over:
            view = game.view(game.current)
            if game.current == seat:
                t0 = time.perf_counter()
                action = pimc.act(view)
                times[kind(view)].append(time.perf_counter() - t0)
            else:
                action = heur.act(view)
            game.apply(action)
    wall = time.perf_counter() - t_all
    every = [t for ts in times.values() for t in ts]
    print(f"{len(every)} PIMC decisions in {args.games} games, {wall:.1f} s "
          f"({pimc.name}, samples={args.samples})")
    print(f"  {'kind':14s} {'count':>6s} {'mean s':>8s} {'median':>8s} {'max':>8s}")
    for name in ("trump", "discard", "answer", "trick 1", "lead rollout", "follow rollout",
                 "lead exact", "follow exact", "forced"):
        ts = times.get(name)
        if ts:
            print(f"  {name:14s} {len(ts):6d} {statistics.fmean(ts):8.4f} "
                  f"{statistics.median(ts):8.4f} {max(ts):8.4f}")
    mean = statistics.fmean(every)
    print(f"  {'all':14s} {len(every):6d} {mean:8.4f} {statistics.median(every):8.4f} "
          f"{max(every):8.4f}")
    per_hand = wall / args.games
    print(f"  {per_hand:.2f} s per hand; 1000 duplicate pairs (2000 hands) ~ "
          f"{2000 * per_hand / 3600:.2f} h on one core, {1000 * per_hand / 3600:.2f} h on two")


if __name__ == "__main__":
    main()
