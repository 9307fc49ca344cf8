"""The main job, ``make demo``: an agent from nothing in a few minutes, and how strong it is.

    python -m widderkopf_env.train.demo [--out DIR] [--pairs P] [--workers N] [--minutes M]

Runs the ``demo`` recipe (``widderkopf-train --recipe demo``, :mod:`.recipes.recipe`): a policy
network that imitates the heuristic bot, then a card-value network fitted to exact card
values from its games, written as one agent file, ``DIR/agent.npz``, its sizes planned
for ``--minutes`` (default 5) on this computer. Prints the strength
against wall-clock time (against the heuristic and the shipped ``net``, on fixed deals)
and the final duplicate results over ``--pairs`` deal pairs. The heuristic scores 0
against itself, so a positive score against it beats it.

``--out`` is started afresh: an earlier run's files are deleted, and a folder holding
anything else is refused (naming what it holds). Ctrl-C stops it with
one line and exit status 130.
"""

from __future__ import annotations

import argparse
import dataclasses
import time
from pathlib import Path

from widderkopf_env.agents.eval_cli import MAX_PAIRS
from widderkopf_env.checks import MAX_MINUTES, MAX_WORKERS
from widderkopf_env.cli import integer, number, require_train_extra, run_cli
from widderkopf_env.seeding import default_workers

from .recipes.budget import BudgetTooSmall
from .recipes.recipe import RECIPES


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m widderkopf_env.train.demo",
                                description=__doc__.split("\n\n")[0])
    p.add_argument("--out", type=Path, default=Path("runs/demo"),
                   help="run folder (an earlier run in it is deleted first; a folder holding "
                        "anything else is refused)")
    p.add_argument("--pairs", type=integer(1, MAX_PAIRS), default=RECIPES["demo"].final_pairs,
                   help="duplicate deal pairs per opponent of the final evaluation (at most "
                        f"{MAX_PAIRS:,})")
    p.add_argument("--workers", type=integer(1, MAX_WORKERS), default=default_workers(),
                   help=f"processes of the data stages and evaluations (at most {MAX_WORKERS})")
    p.add_argument("--minutes", type=number(0.0, MAX_MINUTES), default=None,
                   help=f"time budget the stages are planned for (0: the recipe's fixed "
                        f"sizes; default {RECIPES['demo'].minutes:g}, or the smallest run "
                        f"where this computer needs more)")
    return p


def main(argv=None) -> int:
    """The demo; returns the exit status (0, 2 for a usage error, 130 after Ctrl-C)."""
    parser = build_parser()
    return run_cli(parser, lambda: _run(parser.parse_args(argv)),
                   on_interrupt=lambda _exc: "stopped; the next demo starts afresh")


def _run(args) -> int:
    from .recipes.cli import report
    from .recipes.run import run_recipe

    out = args.out
    require_train_extra("the demo")
    recipe = dataclasses.replace(RECIPES["demo"], final_pairs=args.pairs)
    print(f"Widderkopf demo: a policy network imitating the heuristic, then card values "
          f"from exact solves, on {args.workers} core(s); output in {out}/", flush=True)
    t0 = time.perf_counter()
    # a folder holding anything but a run is refused (RunFolderError: exit 2)
    def run(minutes):
        return run_recipe(recipe, out, workers=args.workers, force_restart=True,
                          progress=None, minutes=minutes or None)

    minutes = recipe.minutes if args.minutes is None else args.minutes
    try:
        summary = run(minutes)
    except BudgetTooSmall as err:
        if args.minutes is not None:  # a budget asked for is kept to (exit 2)
            raise
        # the default budget on a machine too slow for it: the smallest run
        minutes = round(err.need * 1.1, 1)
        print(f"This computer needs about {err.need:g} minutes for the demo's smallest run "
              f"(more than {recipe.minutes:g}); planning it for {minutes:g}.", flush=True)
        summary = run(minutes)
    print(report(summary))
    print(f"\nDone in {time.perf_counter() - t0:.0f} s. The agent is {out / 'agent.npz'}: "
          f"widderkopf-eval {out / 'agent.npz'} heuristic, or load_agent(path).")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
