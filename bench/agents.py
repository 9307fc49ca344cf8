"""Agent speed: microseconds per decision of the heuristic, the random bot, the
shipped networks (``ppo``, ``net``, ``net-v2``, ``net-v1``: numpy forward passes, one core;
the nets play their cards with a card-value network) and ``net-endgame`` (``net-v2`` with its
last 5 tricks solved exactly over 8 sampled worlds); the slowest decision of ``net`` and
``net-endgame`` is printed too.

    python bench/agents.py [--games N] [--repeat R] [--full]

Positions are collected first from heuristic-vs-random games (both seats; every decision
of both players, trump choice to last card), so both agents are timed on the same,
realistic mix. Only ``agent.act(view)`` is timed; building the views is not (see
bench/engine.py for the engine). Prints the best of ``--repeat`` runs overall and, for the
heuristic, per kind of decision.
"""

from __future__ import annotations

import argparse
import time
from collections import defaultdict

from bench_args import parse

from widderkopf_env import Game, Phase
from widderkopf_env.agents import HeuristicAgent, RandomAgent, load_agent

KINDS = {0: "trump", 1: "discard", 3: "answer"}


def kind(view) -> str:
    if view.phase == Phase.PLAY:
        return "follow" if view.lead >= 0 else "lead"
    return KINDS.get(view.phase, "other")


def positions(games: int) -> list:
    h, r = HeuristicAgent(), RandomAgent(0)
    views = []
    for seed in range(games):
        game = Game.new(seed=seed)
        agents = (h, r) if seed % 2 else (r, h)
        while not game.is_over:
            view = game.view(game.current)
            views.append(view)
            game.apply(agents[game.current].act(view))
    return views


def time_agent(agent, views, repeat: int) -> float:
    best = float("inf")
    act = agent.act
    for _ in range(repeat):
        t0 = time.perf_counter()
        for v in views:
            act(v)
        best = min(best, time.perf_counter() - t0)
    return best / len(views) * 1e6


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--games", type=int, default=200)
    p.add_argument("--repeat", type=int, default=3)
    args = parse(p, argv, games=2000, repeat=5)
    views = positions(args.games)
    print(f"{len(views)} decisions from {args.games} heuristic-vs-random games")
    endgame = load_agent("net-endgame", seed=0)
    for agent in (HeuristicAgent(), RandomAgent(0), load_agent("ppo"), load_agent("net"),
                  load_agent("net-v2"), load_agent("net-v1"), endgame):
        print(f"  {agent.name:11s} {time_agent(agent, views, args.repeat):7.2f} us/decision")
    for name, agent in (("net", load_agent("net")), ("net-endgame", endgame)):
        slowest = 0.0
        for v in views:
            t0 = time.perf_counter()
            agent.act(v)
            slowest = max(slowest, time.perf_counter() - t0)
        print(f"  {name} slowest decision {slowest * 1e3:.2f} ms")
    groups = defaultdict(list)
    for v in views:
        groups[kind(v)].append(v)
    h = HeuristicAgent()
    for name in ("trump", "discard", "lead", "follow", "answer"):
        if groups[name]:
            us = time_agent(h, groups[name], args.repeat)
            print(f"    heuristic {name:8s} {us:6.2f} us  ({len(groups[name])} decisions)")


if __name__ == "__main__":
    main()
