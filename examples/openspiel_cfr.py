"""Exact game theory on a small variant with OpenSpiel: CFR+ and exact exploitability.

    python examples/openspiel_cfr.py                       # tiny variant, 100 iterations
    python examples/openspiel_cfr.py --iterations 30 --bots random heuristic
    python examples/openspiel_cfr.py --variant small --iterations 20 --bots --curve cfr.csv

Needs the ``[openspiel]`` extra. Runs OpenSpiel's tabular CFR+
(``open_spiel.python.algorithms.cfr.CFRPlusSolver``) on ``python_widderkopf`` and prints
its NashConv curve (game points; the value range is twice ``max_utility``) with the
solver's time, then the exact exploitability (``exploitability.exploitability``: half
the NashConv, game points per hand) of our bots wrapped as OpenSpiel policies. ``--curve
CSV`` writes the CFR+ average's exploitability at each checkpoint with the solver's CPU
seconds (the columns of a training run's ``exploitability.csv``, for the baselines'
figure); on ``tiny`` and ``small`` it is computed on the project's game tree
(``widderkopf_env.train.exploitability.GameTree``, equal to OpenSpiel's), which takes
seconds where OpenSpiel's takes minutes on ``small``; the bots' table is then left out. A bot
acts on the player's :class:`~widderkopf_env.view.PlayerView` (its information state);
a stochastic bot is reseeded from the information-state string, so it is one fixed
policy. The figures are exact for these policies: a best response is computed over
the whole game tree.
"""

from __future__ import annotations

import argparse
import time
import zlib
from pathlib import Path

import pyspiel
from open_spiel.python import policy as os_policy
from open_spiel.python.algorithms import cfr, expected_game_score, exploitability

import widderkopf_env.openspiel  # noqa: F401  (registers python_widderkopf)
from widderkopf_env import load_agent
from widderkopf_env.agent import reset_agent

CHECKPOINTS = (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000)


def agent_policy(game, name: str, seed: int = 0) -> os_policy.TabularPolicy:
    """Our agent ``name`` as an OpenSpiel tabular policy (one action per information
    state; a stochastic agent is reseeded from the information-state string)."""
    agent = load_agent(name, seed=seed)
    table = os_policy.TabularPolicy(game)
    for key, i in table.state_lookup.items():
        state = table.states[i]
        reset_agent(agent, seed + zlib.crc32(key.encode()))
        action = agent.act(state.game.view(state.current_player()))
        row = table.action_probability_array[i]
        row[:] = 0.0
        row[action] = 1.0
    return table


class Curve:
    """The CFR+ average's exploitability by iteration, written to ``path`` as it grows."""

    def __init__(self, path: str, variant: str):
        from widderkopf_env.train.exploitability import VARIANTS, GameTree

        self.path, self.rows = Path(path), []
        self.tree = GameTree(variant) if variant in VARIANTS else None

    def add(self, iterations: int, cpu_seconds: float, game, average) -> float:
        if self.tree is None:
            e = exploitability.exploitability(game, average)
        else:  # the tree's rows in its own order of information states
            rows = [average.state_lookup[key] for key in self.tree.keys]
            e = self.tree.exploitability(average.action_probability_array[rows])
        self.rows.append(f"{iterations},{cpu_seconds:.2f},{e:.6f}")
        self.path.write_text("iterations,cpu_seconds,exploitability\n" +
                             "\n".join(self.rows) + "\n")
        return e


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--variant", default="tiny", help="variant name (default tiny)")
    p.add_argument("--iterations", type=int, default=100, help="CFR+ iterations")
    p.add_argument("--bots", nargs="*", default=["random", "heuristic", "pimc"])
    p.add_argument("--curve", default=None, help="CSV of (iterations, CPU s, exploitability)")
    args = p.parse_args(argv)
    curve = Curve(args.curve, args.variant) if args.curve else None
    game = pyspiel.load_game("python_widderkopf", {"variant": args.variant})
    span = game.max_utility() - game.min_utility()
    print(f"python_widderkopf variant={args.variant}: value range {span:g} game points")
    start = time.process_time()
    solver = cfr.CFRPlusSolver(game)
    print(f"information states: {len(solver.current_policy().state_lookup)}")
    print("\n| CFR+ iterations | NashConv | % of range | solver CPU s |")
    print("|---:|---:|---:|---:|")
    solve = time.process_time() - start
    for it in range(1, args.iterations + 1):
        t = time.process_time()
        solver.evaluate_and_update_policy()
        solve += time.process_time() - t
        if curve is not None and (it in CHECKPOINTS or it == args.iterations):
            e = curve.add(it, solve, game, solver.average_policy())
            print(f"| {it} | {2 * e:.4f} | {100 * 2 * e / span:.3f} | {solve:.0f} |", flush=True)
        elif it in CHECKPOINTS or it == args.iterations:
            nc = exploitability.nash_conv(game, solver.average_policy())
            print(f"| {it} | {nc:.4f} | {100 * nc / span:.3f} | {solve:.0f} |", flush=True)
    if curve is not None:
        print(f"\nthe curve: {curve.path}")
        return
    value = expected_game_score.policy_value(game.new_initial_state(),
                                             [solver.average_policy()] * 2)[0]
    print(f"\nvalue of the game to player 0 under the CFR+ average: {value:+.4f}")
    print("\n| policy | exploitability (game points per hand) | % of range |")
    print("|---|---:|---:|")
    policies = {"uniform random (OpenSpiel's UniformRandomPolicy)":
                os_policy.UniformRandomPolicy(game),
                f"CFR+ average ({args.iterations} it.)": solver.average_policy()}
    for name in args.bots:
        policies[f"{name} (our bot)"] = agent_policy(game, name)
    for name, pol in policies.items():
        e = exploitability.exploitability(game, pol)
        print(f"| {name} | {e:.4f} | {100 * e / span:.2f} |", flush=True)


if __name__ == "__main__":
    main()
