"""A short PPO training run and how strong it got (``make demo``).

    python -m widderkopf_env.train.demo [--steps N] [--pairs P] [--out DIR]

Trains MaskablePPO against the heuristic bot for a few minutes (the default 800,000
steps), then plays duplicate deals against the random
and the heuristic bot and prints the mean game points per hand with 95% confidence
intervals, next to those of the shipped policy (``load_agent("ppo")``) if the package has
one. The heuristic scores 0 against itself, so a positive score against it beats it.

``--out`` is started afresh (``--force-restart``: an earlier demo's files are deleted),
so it must be a new or empty folder or one an earlier demo wrote (it holds
config.json); anything else is refused. Ctrl-C stops it with one line and exit
status 130; the next demo starts afresh.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from widderkopf_env.agents.arena import run_duplicate
from widderkopf_env.cli import UsageError, integer, require_train_extra, run_cli
from widderkopf_env.seeding import default_workers

from .evaluation import evaluate
from .ppo import TrainingInterrupted, parse_config, train
from .run_folder import RunFolderError

OPPONENTS = ("random", "heuristic")


def _fmt(mean: float, ci) -> str:
    return f"{mean:+.3f}  [{ci[0]:+.3f}, {ci[1]:+.3f}]"


def shipped_results(pairs: int, seed: int, workers: int):
    """The shipped policy's results per opponent, or a reason why there are none."""
    from widderkopf_env.agents.network_file import load_policy
    from widderkopf_env.agents.shipped import POLICY_FILE

    if not POLICY_FILE.exists():
        return None, f"no shipped policy: {POLICY_FILE} is missing"
    return evaluate(load_policy(POLICY_FILE), pairs, seed, workers, opponents=OPPONENTS), None


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m widderkopf_env.train.demo",
                                description=__doc__.split("\n\n")[0])
    p.add_argument("--steps", type=integer(1), default=800_000, help="training steps")
    p.add_argument("--pairs", type=integer(1), default=1000,
                   help="duplicate deal pairs per opponent")
    p.add_argument("--out", type=Path, default=Path("runs/demo"),
                   help="run directory (emptied first: new, or an earlier demo's)")
    return p


def main(argv=None) -> int:
    """The demo; returns the exit status (0, 2 for a usage error, 130 after Ctrl-C)."""
    parser = build_parser()
    return run_cli(parser, lambda: _run(parser.parse_args(argv)), on_interrupt=_stopped)


def _stopped(exc: KeyboardInterrupt) -> str:
    at = f" at step {exc.steps:,}" if isinstance(exc, TrainingInterrupted) else ""
    return f"stopped{at}; the next demo starts afresh"


def _run(args) -> int:
    out = args.out
    if out.exists() and not (out.is_dir() and (not any(out.iterdir())
                                               or (out / "config.json").is_file())):
        raise UsageError(f"--out {out} is not an earlier demo's folder (no config.json); "
                         "the demo empties --out first, so give a new or an empty folder")
    require_train_extra("the demo")
    workers = default_workers()
    print(f"Widderkopf PPO demo: training MaskablePPO against the heuristic bot for "
          f"{args.steps:,} steps on {workers} core(s); output in {args.out}/", flush=True)
    t0 = time.perf_counter()
    try:
        summary = _train(args)
    except RunFolderError as err:
        raise UsageError(str(err)) from None
    print()
    learn = summary["phases"]["learn"]
    print(f"Trained {summary['steps']:,} steps in {learn:.0f} s "
          f"({summary['steps_per_second']:.0f} steps/s, {100 * summary['env_share']:.0f}% "
          f"of the time in the env); total {time.perf_counter() - t0:.0f} s so far.")
    _report(args, summary, workers)
    return 0


def _train(args) -> dict:
    return train(parse_config([
        "--total-steps", str(args.steps), "--out", str(args.out), "--force-restart",
        "--n-envs", "16",
        "--vec-env", "dummy", "--crack-after", str(args.steps // 2), "--eval-every", "200000",
        "--eval-pairs", "200", "--checkpoint-every", "400000",
        "--final-eval-pairs", str(args.pairs),
        *([] if sys.stdout.isatty() else ["--no-progress-bar"]),
    ]))


def _report(args, summary: dict, workers: int) -> None:
    """The demo model's final results next to the shipped policy's."""
    # the shipped policy plays the very deals the demo model's final evaluation played
    shipped, why = shipped_results(args.pairs, summary["final_eval_seed"], workers)
    demo = summary["final"]
    print()
    print(f"Mean game points per hand over {args.pairs} duplicate deal pairs "
          "(95% confidence interval):")
    header = f"  {'opponent':<10}  {'demo model':<28}"
    if shipped:
        header += f"  {'shipped policy':<28}"
    print(header.rstrip())
    for opp in OPPONENTS:
        line = f"  {opp:<10}  {_fmt(demo[opp]['mean'], demo[opp]['ci95']):<28}"
        if shipped:
            line += f"  {_fmt(shipped[opp]['mean'], shipped[opp]['ci95']):<28}"
        print(line.rstrip())
    if why:
        print(f"  ({why})")
    ref = run_duplicate("random", "heuristic", args.pairs, seed=summary["final_eval_seed"],
                        workers=workers, progress=False)
    print(f"  (for reference, the random bot against the heuristic: {_fmt(ref.mean, ref.ci95)})")
    print(f"\nThe demo model is {args.out / 'final_model.zip'} (an agent for "
          "widderkopf-eval and widderkopf-play via load_agent(path)).")


if __name__ == "__main__":
    raise SystemExit(main())
