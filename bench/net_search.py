"""net-search speed: CPU seconds per decision of ``net-search`` or ``net-search-fast``.

    python bench/net_search.py [--agent net-search-fast] [--games N] [--seed S] [--full]
        [--worlds W] [--actions A] [--exact-tricks E] [--tail-tricks T] [--candidates C]

Plays N single-hand games of the bot against ``net-v2`` (the network it searches over;
seats alternating) and times every ``act`` call with the process's CPU clock
(``time.process_time``: the cost on one core, less sensitive than the wall clock to other
work on the machine; run with ``OMP_NUM_THREADS=1`` so that numpy uses one thread), the
calls answered at once (a single legal action) included: the mean over all calls is what a
match costs per decision.
Prints the mean and the slowest by kind of decision and the work counted by the agent.
``--worlds`` and the other settings of :class:`NetSearchAgent` replace the chosen
setting's own, to price a setting before it is played.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections import defaultdict

from bench_args import parse

from widderkopf_env import Game, Phase
from widderkopf_env.agents import load_agent
from widderkopf_env.agents.net_search import FAST, NetSearchAgent

SETTINGS = tuple(FAST)  # worlds, actions, exact_tricks, tail_tricks, candidates


def kind(view, exact_tricks: int) -> str:
    legal = view.legal
    if legal & (legal - 1) == 0:
        return "forced"
    if view.phase in (Phase.TRUMP, Phase.DISCARD, Phase.ANSWER):
        return Phase(view.phase).name.lower()
    return "exact" if 17 - len(view.tricks) <= exact_tricks else "rollout"


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--agent", default="net-search-fast",
                   choices=("net-search", "net-search-fast"))
    p.add_argument("--games", type=int, default=2)
    p.add_argument("--seed", type=int, default=0)
    for name in SETTINGS:
        p.add_argument("--" + name.replace("_", "-"), type=int, default=None,
                       help="replaces the setting's own")
    args = parse(p, argv, games=20)
    bot, net = load_agent(args.agent, seed=args.seed), load_agent("net-v2")
    given = {k: getattr(args, k) for k in SETTINGS if getattr(args, k) is not None}
    if given:
        own = {k: getattr(bot, k) for k in SETTINGS}
        bot = NetSearchAgent(args.seed, **{**own, **given}, name=args.agent)
    times = defaultdict(list)
    for i in range(args.games):
        game = Game.new(seed=args.seed + i)
        bot.reset(i)
        seat = i % 2
        while not game.is_over:
            view = game.view(game.current)
            if game.current == seat:
                t0 = time.process_time()
                action = bot.act(view)
                times[kind(view, bot.exact_tricks)].append(time.process_time() - t0)
            else:
                action = net.act(view)
            game.apply(action)
    every = [t for ts in times.values() for t in ts]
    settings = ", ".join(f"{k} {getattr(bot, k)}" for k in SETTINGS)
    print(f"{len(every)} decisions of {args.agent} ({settings}) in {args.games} games "
          "against net-v2 (CPU seconds)")
    print(f"  {'kind':9s} {'count':>6s} {'mean s':>8s} {'max s':>8s}")
    for name in ("trump", "discard", "answer", "rollout", "exact", "forced"):
        ts = times.get(name)
        if ts:
            print(f"  {name:9s} {len(ts):6d} {statistics.fmean(ts):8.4f} {max(ts):8.4f}")
    print(f"  {'all':9s} {len(every):6d} {statistics.fmean(every):8.4f} {max(every):8.4f}")
    print("  work:", dict(bot.counts))


if __name__ == "__main__":
    main()
