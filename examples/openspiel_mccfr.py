"""OpenSpiel's MCCFR on a variant: train, save the average policy, play it in the arena.

    python examples/openspiel_mccfr.py --variant medium --iterations 5000 --seed 0 \\
        --out medium_mccfr.npz --pairs 200
    python examples/openspiel_mccfr.py --variant tiny --iterations 20000 --seed 0 \\
        --out tiny_mccfr.npz --nashconv 1000 5000 20000

Needs the ``[openspiel]`` extra. Runs OpenSpiel's Python MCCFR (outcome sampling by
default, ``--solver external`` for external sampling) through
:class:`widderkopf_env.agents.mccfr.MCCFRTrainer` for ``--iterations`` iterations (or
``--seconds`` of wall time), prints the iterations per second and the table's size and
writes the average policy to ``--out`` (an MCCFR table ``.npz``: ``load_agent(PATH)``
plays it). ``--nashconv N...``: OpenSpiel's exact NashConv of the average policy after
N iterations (affordable on the tiny variant only; the value range is twice
``max_utility``). ``--pairs P``: the agent against the heuristic and against random in
the duplicate arena on the same variant (mean game points per hand with a 95% CI) and
the share of its decisions the table answered (the rest are played as the heuristic).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from open_spiel.python.algorithms import exploitability

from widderkopf_env.agents.arena import run_duplicate
from widderkopf_env.agents.mccfr import SOLVERS, MCCFRAgent, MCCFRTrainer


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--variant", default="medium", help="variant name (default medium)")
    p.add_argument("--iterations", type=int, help="MCCFR iterations")
    p.add_argument("--seconds", type=float, help="or a wall-time budget (not reproducible)")
    p.add_argument("--seed", type=int, default=0, help="MCCFR's seed (default 0)")
    p.add_argument("--solver", choices=list(SOLVERS), default="outcome")
    p.add_argument("--out", required=True, help="the table file to write (.npz)")
    p.add_argument("--nashconv", type=int, nargs="*", default=[],
                   help="iteration counts at which to print the exact NashConv")
    p.add_argument("--pairs", type=int, default=0, help="duplicate pairs per opponent")
    p.add_argument("--arena-seed", type=int, default=0, help="the arena's deal seed")
    p.add_argument("--greedy", action="store_true", help="play the most likely action")
    args = p.parse_args(argv)
    if args.iterations is None and args.seconds is None:
        p.error("give --iterations or --seconds")
    if args.nashconv and args.iterations is None:
        p.error("--nashconv needs --iterations")

    trainer = MCCFRTrainer(args.variant, seed=args.seed, solver=args.solver)
    game = trainer.game
    span = game.max_utility() - game.min_utility()
    print(f"python_widderkopf variant={trainer.variant}: {args.solver}-sampling MCCFR, "
          f"seed {args.seed}, value range {span:g} game points")
    if args.nashconv:
        print("\n| MCCFR iterations | table entries | NashConv | % of range |")
        print("|---:|---:|---:|---:|")
    cpu = time.process_time()
    for stop in sorted(n for n in set(args.nashconv) if n <= args.iterations):
        trainer.run(iterations=stop - trainer.iterations)
        nc = exploitability.nash_conv(game, trainer.average_policy())
        print(f"| {stop} | {len(trainer.solver._infostates)} | {nc:.4f} | "
              f"{100 * nc / span:.3f} |", flush=True)
    left = None if args.iterations is None else args.iterations - trainer.iterations
    trainer.run(iterations=left, seconds=args.seconds)
    cpu = time.process_time() - cpu
    table = trainer.table()
    path = table.save(args.out)
    print(f"\n{trainer.iterations} iterations in {trainer.seconds:.1f} s wall "
          f"({trainer.iterations / trainer.seconds:.1f} it/s; process CPU {cpu:.1f} s "
          f"including any NashConv)")
    print(f"table: {len(table)} information states, {len(table.probs)} probabilities, "
          f"{path} {Path(path).stat().st_size / 1e6:.2f} MB")
    if args.pairs:
        print("\n| opponent | pairs | MCCFR's mean [95% CI] | table coverage |")
        print("|---|---:|---:|---:|")
        for opponent in ("heuristic", "random"):
            agent = MCCFRAgent(table, seed=args.seed, greedy=args.greedy)
            r = run_duplicate(agent, opponent, pairs=args.pairs, seed=args.arena_seed,
                              workers=1, variant=trainer.variant)
            print(f"| {opponent} | {args.pairs} | {r.mean:+.3f} [{r.ci95[0]:+.3f}, "
                  f"{r.ci95[1]:+.3f}] | {100 * agent.coverage:.1f}% of {agent.decisions} |",
                  flush=True)


if __name__ == "__main__":
    main()
