"""``widderkopf-train-rllib``: league self-play PPO on Ray RLlib, on one machine or many.

One machine: ``widderkopf-train-rllib --num-env-runners 1 --minutes 11 --out runs/rllib``
(the PPO settings default to those of the run documented in docs/training.md).
A cluster: start Ray on every machine (``ray start --head`` on one, ``ray start
--address=HEAD:6379`` on the others, or KubeRay), then run the same command on the head
with ``--address auto`` and as many ``--num-env-runners`` as the cluster has spare cores.
The env runners (which play the games) spread over the machines; the learner (which runs
the PPO updates) stays in this process.

Every ``--checkpoint-every`` iterations an RLlib checkpoint ``<out>/checkpoint_<iter>`` is
written (with ``league.json``), and every ``--eval-every`` iterations ``main`` from it plays
a duplicate-deal match against the random bot and the heuristic in the arena. Resume with
``--resume-from <checkpoint dir>``; ``load_agent(<checkpoint dir>)`` plays ``main``.
``--variant NAME`` (a name in ``widderkopf_env.VARIANTS``) trains on that variant (the
env config's ``"variant"``) and evaluates on its deals.
"""

from __future__ import annotations

import argparse
import functools
import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from widderkopf_env import VARIANTS
from widderkopf_env.agents.eval_cli import MAX_PAIRS
from widderkopf_env.checks import MAX_EPOCHS, MAX_MINUTES, MAX_SEED32, MAX_WORKERS
from widderkopf_env.cli import (
    DefaultsHelp,
    add_version,
    int_list,
    integer,
    number,
    output_dir,
    require_extra,
    run_cli,
)
from widderkopf_env.settings import add_options, setting

from ..config import MAX_ENVS, MAX_ROLLOUT
from ..run_folder import RunFolder
from .league import (
    HEURISTIC,
    MAIN,
    LeagueState,
    fill_league,
    league_mapping,
    module_ids,
    snapshot_main,
)

SHARE = number(0, 1)
#: The most PPO iterations of a run (and of a checkpoint or evaluation interval), env
#: runners (of a cluster: at most MAX_WORKERS on a local Ray), league slots, and seconds
#: to wait for one iteration's samples.
MAX_ITERATIONS, MAX_RUNNERS, MAX_SLOTS, MAX_WAIT = 10**7, 1024, 100, 24 * 3600.0
ITERATIONS = integer(1, MAX_ITERATIONS)


@dataclass
class RllibSettings:
    """The settings of ``widderkopf-train-rllib``, one option per field."""

    iterations: int | None = setting(None, "stop after this many PPO iterations in total "
                                     "(default: only --minutes)", type=ITERATIONS)
    minutes: float | None = setting(None, f"stop after this much wall time (at most "
                                    f"{MAX_MINUTES:,.0f})",
                                    type=number(0, MAX_MINUTES, low_open=True))
    num_env_runners: int = setting(1, "env runner actors sampling games (0: sample in this "
                                   "process)", type=integer(0, MAX_RUNNERS))
    envs_per_runner: int = setting(1, "games each env runner steps at once (one batched "
                                   "forward pass for all)", type=integer(1, MAX_ENVS))
    address: str | None = setting(None, "join a running Ray cluster ('auto' or HOST:PORT); "
                                  "default: start a local Ray")
    num_cpus: int | None = setting(None, "CPUs of the local Ray", type=integer(1, MAX_WORKERS))
    out: Path = setting("runs/rllib", "checkpoint directory", type=output_dir)
    resume: str | None = setting(None, "a checkpoint directory to continue from (loading it "
                                 "runs code stored in it: only checkpoints you trust)",
                                 metavar="DIR", flag="--resume-from", old="--resume")
    seed: int = setting(0, "seeds the learner, the env runners and the evaluations",
                        type=integer(0, MAX_SEED32))
    slots: int = setting(3, "frozen snapshots in the league", type=integer(1, MAX_SLOTS))
    self_play_share: float = setting(0.2, "share of games main vs main", type=SHARE,
                                     old="--self-play")
    heuristic_share: float = setting(0.2, "share of games main vs heuristic", type=SHARE,
                                     old="--heuristic")
    snapshot_return: float = setting(0.5, "snapshot main when its mean return per game in "
                                     "an iteration exceeds this (game points)", type=number())
    checkpoint_every: int = setting(5, "write a checkpoint every N iterations",
                                    type=ITERATIONS)
    eval_every: int = setting(5, "evaluate every N iterations (0: only at the end)",
                              type=integer(0, MAX_ITERATIONS))
    eval_pairs: int = setting(100, "duplicate deal pairs per evaluation (0: no evaluation)",
                              type=integer(0, MAX_PAIRS))
    iteration_steps: int = setting(2000, "env steps per PPO iteration", type=integer(1, MAX_ROLLOUT),
                                   old="--batch")
    batch_size: int = setting(500, "env steps per gradient step", type=integer(1, MAX_ROLLOUT),
                              old="--minibatch")
    epochs: int = setting(2, "passes over each iteration's steps", type=integer(1, MAX_EPOCHS))
    lr: float = setting(1e-3, "Adam learning rate", type=number(0, low_open=True))
    sample_timeout: float = setting(600.0, "seconds to wait for the env runners' samples in "
                                    "one iteration (at most a day)",
                                    type=number(0, MAX_WAIT, low_open=True))
    net_arch: list = setting("128,128", "hidden layer sizes", type=int_list,
                             metavar="N,N,...")
    variant: str = setting("full", "the variant trained on and evaluated on (a name in "
                           "widderkopf_env.VARIANTS)", choices=tuple(VARIANTS))


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="widderkopf-train-rllib", description=__doc__.split("\n")[0],
                                formatter_class=DefaultsHelp,
                                epilog="Trust: --resume-from loads an RLlib checkpoint, which "
                                       "holds pickles that run code when loaded: resume only "
                                       "from checkpoints you trust.")
    add_options(p, RllibSettings)
    add_version(p)
    return p


def check_args(p: argparse.ArgumentParser, args) -> None:
    """Usage errors (exit 2) for combinations argparse cannot check."""
    if args.self_play_share + args.heuristic_share > 1.0:
        p.error("--self-play-share + --heuristic-share must be <= 1, got "
                f"{args.self_play_share + args.heuristic_share}")
    if args.batch_size > args.iteration_steps:
        p.error(f"--batch-size ({args.batch_size}) must not exceed --iteration-steps "
                f"({args.iteration_steps})")
    if args.iterations is None and args.minutes is None:
        p.error("give --iterations or --minutes (or both)")
    if args.address is None and args.num_env_runners > MAX_WORKERS:
        p.error(f"--num-env-runners {args.num_env_runners}: a local Ray runs each in a "
                f"process of its own here, so at most {MAX_WORKERS} (more on a cluster: "
                "--address)")
    if args.resume is not None:
        if not Path(args.resume, "league.json").is_file():
            p.error(f"--resume-from {args.resume!r} is not a checkpoint of widderkopf-train-rllib "
                    "(no league.json)")
        try:
            slots = LeagueState.load(args.resume).slots
        except (OSError, ValueError, KeyError, TypeError) as err:
            p.error(f"--resume-from {args.resume!r}: its league.json does not read ({err})")
        if slots != args.slots:
            p.error(f"--resume-from {args.resume!r}: the checkpoint's league has {slots} slots, "
                    f"--slots says {args.slots}")


def build_config(args):
    """The RLlib ``PPOConfig`` for ``args`` (see :func:`parser`)."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    from widderkopf_env.rllib import register

    from .modules import HeuristicRLModule, MaskedPPOTorchRLModule

    env_name = register()
    model = {"fcnet_hiddens": list(args.net_arch), "fcnet_activation": "relu"}
    specs = {mid: RLModuleSpec(module_class=MaskedPPOTorchRLModule, model_config=model)
             for mid in module_ids(args.slots) if mid != HEURISTIC}
    specs[HEURISTIC] = RLModuleSpec(module_class=HeuristicRLModule)
    mapping = functools.partial(league_mapping, slots=args.slots, self_play=args.self_play_share,
                                heuristic=args.heuristic_share)
    return (
        PPOConfig()
        .environment(env_name, env_config={"variant": args.variant})
        .env_runners(num_env_runners=args.num_env_runners, num_envs_per_env_runner=args.envs_per_runner,
                     num_cpus_per_env_runner=1, sample_timeout_s=args.sample_timeout)
        .multi_agent(policies=set(module_ids(args.slots)), policy_mapping_fn=mapping,
                     policies_to_train=[MAIN])
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs=specs))
        .training(train_batch_size_per_learner=args.iteration_steps, minibatch_size=args.batch_size,
                  num_epochs=args.epochs, lr=args.lr)
        .fault_tolerance(restart_failed_env_runners=True)
        .debugging(seed=args.seed)
    )


def evaluate(checkpoint, pairs: int, seed: int, variant: str = "full") -> dict:
    """``main`` of ``checkpoint`` against random and the heuristic (duplicate deals of
    ``variant``)."""
    from widderkopf_env.agents.arena import run_duplicate
    from widderkopf_env.agents.rllib_checkpoint import RLlibAgent

    agent = RLlibAgent(checkpoint)
    out = {}
    for opponent in ("random", "heuristic"):
        r = run_duplicate(agent, opponent, pairs, seed=seed, workers=1, progress=False,
                          variant=variant)
        out[opponent] = {"mean": r.mean, "ci95": r.ci95, "pairs": pairs}
    return out


def save(algo, league: LeagueState, out: Path, iteration: int) -> Path:
    path = out / f"checkpoint_{iteration:06d}"
    algo.save_to_path(str(path.resolve()))
    league.save(path)
    return path


def main_return(result) -> float | None:
    """``main``'s mean episode return in one iteration's results (None if no episode)."""
    means = result.get("env_runners", {}).get("module_episode_returns_mean", {})
    value = means.get(MAIN)
    return None if value is None else float(value)


def run(args, log=print, config=None) -> dict:
    """Train as ``args`` say (with ``config``, default ``build_config(args)``); returns a
    summary (last checkpoint, iteration, evaluations, league history)."""
    import ray

    # checked and locked before any work
    with RunFolder(args.out, "rllib", "widderkopf-train-rllib") as folder:
        folder.start()
        if not ray.is_initialized():
            ray.init(address=args.address, num_cpus=None if args.address else args.num_cpus,
                     include_dashboard=False)
        algo = (config or build_config(args)).build_algo()
        try:
            return _train(algo, args, log)
        finally:
            algo.stop()


def _train(algo, args, log) -> dict:
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)  # run() made it, under its RunFolder's lock
    if args.resume:
        league = LeagueState.load(args.resume)
        if league.slots != args.slots:
            raise ValueError(f"the checkpoint's league has {league.slots} slots, "
                             f"--slots says {args.slots}")
        algo.restore_from_path(str(Path(args.resume).resolve()))
    else:
        league = LeagueState(slots=args.slots)
        fill_league(algo, args.slots)
    start, t0 = algo.iteration, time.monotonic()
    summary = {"evaluations": [], "checkpoint": None}
    checkpoint = None
    while True:
        result = algo.train()
        it = algo.iteration
        ret = main_return(result)
        steps = result.get("env_runners", {}).get("num_env_steps_sampled_lifetime")
        line = f"iter {it}: env steps {steps}, main return {ret}"
        if ret is not None and ret > args.snapshot_return and it > league.last_snapshot_iteration:
            line += f", snapshot -> {snapshot_main(algo, league, it)}"
        log(line)
        done = ((args.iterations is not None and it - start >= args.iterations)
                or (args.minutes is not None and time.monotonic() - t0 >= 60 * args.minutes))
        if done or it % args.checkpoint_every == 0:
            checkpoint = save(algo, league, out, it)
        if args.eval_pairs and (done or (args.eval_every and it % args.eval_every == 0)):
            if checkpoint is None or checkpoint.name != f"checkpoint_{it:06d}":
                checkpoint = save(algo, league, out, it)
            ev = evaluate(checkpoint, args.eval_pairs, args.seed, args.variant) | {
                "iteration": it}
            log("eval " + json.dumps(ev))
            summary["evaluations"].append(ev)
        if done:
            break
    summary.update(checkpoint=str(checkpoint), iteration=algo.iteration,
                   league=league.history, minutes=(time.monotonic() - t0) / 60)
    return summary


def main(argv=None) -> int:
    """The console script; returns the exit status (0, 2 for a usage or I/O error, 130
    after Ctrl-C)."""
    p = parser()

    def body() -> int:
        args = p.parse_args(argv)
        check_args(p, args)
        require_extra("widderkopf-train-rllib", "rllib", ("ray.rllib", "torch"))
        summary = run(args, log=functools.partial(print, flush=True))
        print(json.dumps(summary))
        return 0

    return run_cli(p, body)


if __name__ == "__main__":
    sys.exit(main())
