"""The command line of a recipe run, ``widderkopf-train --recipe NAME``
(:func:`.run.run_recipe`), and its closing report."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

from .recipe import Recipe
from .run import run_recipe

__all__ = ["build_parser", "main", "report"]


def build_parser():
    import argparse

    from widderkopf_env.checks import MAX_MINUTES, MAX_SEED, MAX_WORKERS
    from widderkopf_env.cli import DefaultsHelp, add_version, deprecated_alias, integer, number
    from widderkopf_env.seeding import default_workers
    from widderkopf_env.settings import with_limit

    from .recipe import RECIPES

    p = argparse.ArgumentParser(
        prog="widderkopf-train --recipe", formatter_class=DefaultsHelp,
        description="Make an agent from nothing with one command: imitation of the heuristic, "
                    "exact card values, evaluation; the result is OUT/agent.npz.",
        epilog="Rerunning the same command after a stop goes on where it stopped. Recipes: "
               + "; ".join(f"{name}: {_describe(r)}" for name, r in RECIPES.items()) + ".")
    p.add_argument("--recipe", choices=list(RECIPES), required=True, help="the recipe")
    p.add_argument("--out", type=Path, default=None, help="run folder (default runs/RECIPE)")
    seed, workers = integer(0, MAX_SEED), integer(1, MAX_WORKERS)
    p.add_argument("--seed", type=seed, default=0, help=with_limit("run seed", seed))
    p.add_argument("--minutes", type=number(0.0, MAX_MINUTES), default=None,
                   help="time budget: the stages are sized from a short calibration on this "
                        "machine to end within it, evaluation included (default: the "
                        "recipe's, " + ", ".join(f"{n} {r.minutes:g}" for n, r in
                                                  RECIPES.items())
                        + f"); 0: the recipe's fixed sizes; at most {MAX_MINUTES:,.0f}")
    p.add_argument("--workers", type=workers, default=min(default_workers(), MAX_WORKERS),
                   help=with_limit("processes of the data stages and evaluations", workers))
    p.add_argument("--force-restart", action="store_true",
                   help="delete the run in --out and start afresh")
    p.add_argument("--no-progress", dest="progress", action="store_false",
                   help="no progress bar (the stages' lines are in OUT/recipe.log)")
    deprecated_alias(p, "--no-progress-bar", "--no-progress")
    p.set_defaults(progress=None)
    add_version(p)
    return p


def plan_lines(plan: dict) -> list[str]:
    """The plan of a budgeted run beside what each stage got (:meth:`.budget.Plan.against`)."""
    sizes = plan["sizes"]
    clone = sizes["clone"]

    def games(blocks):
        return " + ".join(f"{b['shards']}x{b['games']} ({b['tricks'][0]}-{b['tricks'][1]})"
                          for b in blocks)

    what = {"clone": f"{clone['shards']}x{clone['matches']} matches, "
                     f"{clone['epochs']} epochs",
            "values": games(sizes["values"]), "values2": games(sizes.get("values2", [])),
            "fit": f"{sizes['fit']['epochs']} epochs",
            "fit2": f"{sizes.get('fit2', {}).get('epochs')} epochs",
            "evaluate": f"{sizes['evaluate']['final_pairs']} pairs",
            "other": f"calibration {plan['calibration_seconds']:.0f} s, curve"}
    lines = ["", f"Plan for {plan['minutes']:g} minutes (data x{plan['scale']:.2f} of the "
                 f"recipe's; {plan['planned_seconds'] / 60:.1f} min planned):",
             f"  {'stage':<9} {'planned s':>9} {'actual s':>9}  sizes"]
    for stage, row in plan["stages"].items():
        got = "-" if row["actual"] is None else f"{row['actual']:.0f}"
        lines.append(f"  {stage:<9} {row['planned']:9.0f} {got:>9}  {what[stage]}")
    return lines


def _describe(r: Recipe) -> str:
    ppo = f", {r.ppo_steps:,} PPO steps{' (self-play)' if r.self_play else ''}" \
        if r.ppo_steps else ""
    rounds = " in two rounds (the second from the agent's own play)" if r.values2 else ""
    return (f"{r.clone_shards * r.clone_matches:,} imitation matches{ppo}, card values "
            f"for the last {r.value_tricks} tricks{rounds}")


def main(argv=None) -> int:
    """``widderkopf-train --recipe NAME``; returns the exit status (2: a usage error or a
    folder that cannot be used; 130 after Ctrl-C)."""
    from widderkopf_env.cli import require_train_extra, run_cli

    from .recipe import RECIPES

    p = build_parser()
    given = list(sys.argv[1:] if argv is None else argv)
    hint = ["stopped; the same command goes on from there"]

    def body() -> int:
        args = p.parse_args(argv)
        if args.force_restart:  # the same command would start afresh again
            rest = [a for a in given if a != "--force-restart"]
            hint[0] = f"stopped; go on with: {shlex.join(['widderkopf-train', *rest])}"
        out = args.out if args.out is not None else Path("runs") / args.recipe
        recipe = RECIPES[args.recipe]
        minutes = recipe.minutes if args.minutes is None else args.minutes
        require_train_extra("widderkopf-train --recipe")
        budget = (f"in the shape of {_describe(recipe)}, sized for {minutes:g} minutes on "
                  "this computer" if minutes else f"{_describe(recipe)} (fixed sizes)")
        print(f"recipe {recipe.name}: {budget}; {args.workers} "
              f"worker(s); output in {out}/", flush=True)
        # a folder that cannot be used (RunFolderError) or a budget too small for the
        # smallest run (BudgetTooSmall): UsageErrors, exit 2
        summary = run_recipe(recipe, out, args.seed, args.workers, args.force_restart,
                             args.progress, minutes=minutes or None)
        print(report(summary))
        from ..callbacks import files_written
        from ..run_folder import RunFolder

        print(files_written(RunFolder(out, "recipe")))  # read only: the run is over
        return 0

    return run_cli(p, body, lambda _exc: hint[0])


def report(summary: dict) -> str:
    """The summary as text: the curve, the stages' times, the final figures."""
    def fmt(r):
        return f"{r['mean']:+.3f} [{r['ci95'][0]:+.3f}, {r['ci95'][1]:+.3f}]"

    lines = ["", f"Strength against time ({summary['curve'][0]['heuristic']['pairs']} pairs "
                 "per point; game points per hand, 95% CI):" if summary["curve"] else "",
             f"  {'minutes':>7}  {'after':<16}  {'vs heuristic':<24}  vs net"]
    for pt in summary["curve"]:
        lines.append(f"  {pt['minutes']:7.1f}  {pt['stage']:<16}  {fmt(pt['heuristic']):<24}  "
                     f"{fmt(pt['net'])}")
    stages = ", ".join(f"{k} {v:.0f} s" for k, v in summary["stage_seconds"].items())
    lines += ["", f"Stages: {stages}; {summary['wall_seconds'] / 60:.1f} min in all."]
    if summary.get("plan"):
        lines += plan_lines(summary["plan"])
    if summary["final"]:
        lines.append(f"{summary['agent']} over {summary['final_pairs']} duplicate pairs "
                     "(game points per hand, 95% CI): "
                     + ", ".join(f"vs {o} {fmt(r)}" for o, r in summary["final"].items()))
    if summary["ladder"]:
        lo, hi = summary["ladder"]["ci95"]
        lines.append(f"Ladder rating {summary['ladder']['rating']:.0f}, 95% CI [{lo:.0f}, "
                     f"{hi:.0f}] (random = 0).")
    return "\n".join(lines)
