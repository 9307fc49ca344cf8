"""The settings of ``widderkopf-train``: its argument parser and the checks of a run's
config (every check happens before anything is written; see :mod:`.train_ppo`)."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from widderkopf_env.agents.arena import default_workers, derive_seed
from widderkopf_env.agents.cli_args import agent_help, agent_spec
from widderkopf_env.cli import (
    UsageError,
    add_version,
    int_list,
    integer,
    number,
    require_train_extra,
)

POSITIVE, COUNT, SHARE = integer(1), integer(0), number(0, 1)

NET_SIZES = {"small": [64, 64], "medium": [256, 256], "large": [512, 512]}
# Flags that --resume may change; every other setting is the run's own.
RUN_CONTROL = {"total_steps", "n_envs", "vec_env", "eval_every", "eval_pairs", "eval_workers",
               "final_eval_pairs", "checkpoint_every", "keep_checkpoints", "torch_threads",
               "progress_bar", "resume", "out", "quiet", "force_restart"}


class _Help(argparse.ArgumentDefaultsHelpFormatter):
    """Shows defaults, except empty ones (None, False) and those of --no-... flags."""

    def _get_help_string(self, action):
        if action.default is None or action.default is False or action.const is False:
            return action.help
        return super()._get_help_string(action)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="widderkopf-train", description=_description(), formatter_class=_Help,
        usage="%(prog)s [--out DIR] [--total-steps N] [--resume] [more options: see --help]")
    a = p.add_argument
    a("--total-steps", type=POSITIVE, default=5_000_000, help="learner decisions to train on")
    a("--out", type=Path, default=Path("runs/ppo"), help="output directory")
    a("--resume", action="store_true", help="continue from the newest checkpoint in --out")
    a("--force-restart", action="store_true",
      help="with --resume: if no checkpoint verifies, start again from step 0 (overwrites "
           "the run's outputs)")
    a("--seed", type=COUNT, default=0,
      help="seeds the model, the envs and the evaluation deals")
    g = p.add_argument_group("environment")
    g.add_argument("--n-envs", type=POSITIVE, default=16, help="envs stepped in lockstep")
    g.add_argument("--vec-env", choices=("dummy", "subproc", "native"), default="dummy",
                   help="dummy: all envs in this process (DummyVecEnv; fastest here, as the "
                        "env takes only ~16%% of the time: see bench/train.py); subproc: one "
                        "process per env (SubprocVecEnv); native: all envs in one batched "
                        "engine (fixed --opponent only; faster from ~100+ envs)")
    g.add_argument("--opponent", default="heuristic", type=agent_spec,
                   help=agent_help("fixed opponent"))
    g.add_argument("--reward-shaping", action=argparse.BooleanOptionalAction, default=True,
                   help="the env's dense card-point shaping (+-(card point diff)/121 per hand)")
    g.add_argument("--reward-scale", type=number(0, low_open=True), default=0.25,
                   help="rewards are multiplied by this (game points are 1..64)")
    g.add_argument("--warmup-random", type=COUNT, default=0, metavar="STEPS",
                   help="curriculum: train against the random bot for the first STEPS")
    g.add_argument("--crack-after", type=COUNT, default=None, metavar="STEPS",
                   help="curriculum: the learner may not escalate (crack) before STEPS "
                        "(default 500000; 0 with --init)")
    g = p.add_argument_group("self-play")
    g.add_argument("--self-play", action="store_true",
                   help="opponents: the bots mixed with a pool of the learner's snapshots")
    g.add_argument("--snapshot-every", type=POSITIVE, default=250_000, metavar="STEPS",
                   help="add the current policy to the pool every STEPS")
    g.add_argument("--pool-size", type=COUNT, default=8, help="snapshots kept (0: all)")
    g.add_argument("--p-heuristic", type=SHARE, default=0.5,
                   help="share of episodes against the heuristic bot")
    g.add_argument("--p-random", type=SHARE, default=0.1,
                   help="share of episodes against the random bot (the rest: the pool)")
    g = p.add_argument_group("network and PPO")
    g.add_argument("--net-size", choices=sorted(NET_SIZES), default=None,
                   help="preset hidden layers: " + ", ".join(
                       f"{k} {v}" for k, v in NET_SIZES.items()))
    g.add_argument("--net-arch", type=int_list, default="256,256", metavar="N,N,...",
                   help="hidden layer sizes of the policy and of the value net")
    g.add_argument("--policy", choices=("canonical", "mlp"), default="canonical",
                   help="canonical: the MLP sees the cards in trump-relative order "
                        "(train/torch_policy.py); mlp: SB3's plain MlpPolicy")
    g.add_argument("--activation", choices=("relu", "tanh"), default="relu",
                   help="activation of the hidden layers")
    g.add_argument("--init", default=None, metavar="POLICY",
                   help="warm start: the actor starts from this policy's weights: 'ppo', "
                        "'net' (the shipped files) or a .npz written by widderkopf-distill "
                        "(the critic starts fresh; its layers must match --net-arch)")
    g.add_argument("--lr", type=number(0, low_open=True), default=1e-3,
                   help="Adam learning rate")
    g.add_argument("--lr-schedule", choices=("constant", "linear"), default="linear",
                   help="linear: decays to 10%% of --lr at --total-steps")
    g.add_argument("--n-steps", type=POSITIVE, default=None,
                   help="rollout steps per env; the default is 8192 / --n-envs (512)")
    g.add_argument("--batch-size", type=integer(2), default=1024,
                   help="minibatch size of the gradient updates (at most n-steps x n-envs "
                        "are used)")
    g.add_argument("--n-epochs", type=POSITIVE, default=4,
                   help="passes over each rollout")
    g.add_argument("--gamma", type=SHARE, default=1.0, help="discount factor")
    g.add_argument("--gae-lambda", type=SHARE, default=0.95,
                   help="bias/variance trade-off of the advantage estimate (GAE)")
    g.add_argument("--clip-range", type=number(0, low_open=True), default=0.2,
                   help="PPO's clipping of the policy ratio")
    g.add_argument("--ent-coef", type=number(0), default=0.01,
                   help="entropy bonus coefficient")
    g.add_argument("--vf-coef", type=number(0), default=0.5, help="value loss coefficient")
    g.add_argument("--max-grad-norm", type=number(0, low_open=True), default=0.5,
                   help="gradients are clipped to this norm")
    g = p.add_argument_group("evaluation and checkpoints")
    g.add_argument("--eval-every", type=COUNT, default=100_000, metavar="STEPS",
                   help="evaluate every STEPS (0: only at the end)")
    g.add_argument("--eval-pairs", type=POSITIVE, default=300,
                   help="duplicate deal pairs per opponent")
    g.add_argument("--eval-workers", type=POSITIVE, default=default_workers(),
                   help="processes of the evaluations")
    g.add_argument("--final-eval-pairs", type=POSITIVE, default=2000,
                   help="pairs of the final evaluation of the final and the best model")
    g.add_argument("--checkpoint-every", type=COUNT, default=100_000, metavar="STEPS",
                   help="save a checkpoint every STEPS (0: only at the end)")
    g.add_argument("--keep-checkpoints", type=COUNT, default=3, help="0: keep all")
    g.add_argument("--torch-threads", type=POSITIVE, default=1,
                   help="torch threads for the gradient updates (rollouts always use 1: "
                        "their forward passes are too small to share)")
    g.add_argument("--no-progress-bar", dest="progress_bar", action="store_false",
                   help="no progress bar")
    g.add_argument("--quiet", action="store_true", help="print only the summary line")
    add_version(p)
    return p


def parse_config(argv=None, parser: argparse.ArgumentParser | None = None) -> dict:
    """The run's settings; with --resume, merged into the run's saved config.json.

    Every check happens here, before anything is written: a bad value exits with a usage
    error (status 2, via ``parser.error``), and so does a missing ``[train]`` extra."""
    parser = parser or build_parser()
    try:
        return _config(parser, argv)
    except UsageError as err:
        parser.error(str(err))


def _config(parser: argparse.ArgumentParser, argv) -> dict:
    args = parser.parse_args(argv)
    cfg = vars(args)
    if cfg.pop("net_size") is not None:
        cfg["net_arch"] = NET_SIZES[args.net_size]
    if cfg["n_steps"] is None:
        cfg["n_steps"] = max(32, 8192 // args.n_envs)
    if cfg["crack_after"] is None:
        cfg["crack_after"] = 0 if args.init else 500_000
    if args.init is not None:
        cfg["init"] = str(_init_file(args.init, cfg))
    if cfg["n_steps"] * args.n_envs < 2:
        raise UsageError("--n-steps x --n-envs must be at least 2 (PPO normalises the "
                         f"advantages over each rollout), got {cfg['n_steps']} x {args.n_envs}")
    if args.self_play and args.p_heuristic + args.p_random > 1:
        raise UsageError("--p-heuristic + --p-random must be at most 1")
    if args.vec_env == "native" and (args.self_play or args.warmup_random):  # train/batched_vec_env.py
        raise UsageError("--vec-env native plays one fixed --opponent: it does not take "
                         "--self-play or --warmup-random")
    _check_out(args.out)
    if args.resume:
        saved = args.out / "config.json"
        if not saved.exists():
            raise UsageError(f"--resume: no run in {args.out} (config.json missing)")
        try:
            old = json.loads(saved.read_text())
        except (OSError, ValueError) as err:
            raise UsageError(f"--resume: {saved} is not a readable run config ({err})") from None
        given = {k for k in vars(_given(parser, argv))}
        ignored = sorted(k for k in given - RUN_CONTROL if cfg[k] != old.get(k))
        if ignored:
            print(f"--resume: keeping the run's own settings; ignoring {ignored}", file=sys.stderr)
        cfg = {**old, **{k: cfg[k] for k in RUN_CONTROL | {"resume"} if k in given}}
        cfg["resume"] = True
    elif (args.out / "config.json").exists():
        raise UsageError(f"{args.out} already holds a run: pass --resume to continue it, or "
                         "choose another --out")
    require_train_extra("training")  # last: importing torch takes seconds
    cfg["out"] = str(cfg["out"])
    cfg.setdefault("eval_seed", derive_seed(cfg["seed"], "eval"))
    cfg.setdefault("final_eval_seed", derive_seed(cfg["seed"], "final-eval"))
    return cfg


def _init_file(spec: str, cfg: dict) -> Path:
    from .export import init_file

    try:
        return init_file(spec, cfg["net_arch"], cfg["activation"], cfg["policy"] == "canonical")
    except ValueError as err:
        raise UsageError(f"--init: {err}") from None


def _check_out(out: Path) -> None:
    """``out`` is a folder or can be made one: its nearest existing ancestor is a
    writable folder."""
    if out.exists() and not out.is_dir():
        raise UsageError(f"--out {out} exists and is not a folder")
    existing = out
    while not existing.exists():
        existing = existing.parent
    if not existing.is_dir() or not os.access(existing, os.W_OK | os.X_OK):
        raise UsageError(f"--out {out}: cannot write in {existing}")


def _given(parser: argparse.ArgumentParser, argv) -> argparse.Namespace:
    """Only the options given on the command line."""
    quiet = argparse.ArgumentParser(add_help=False)
    for action in parser._actions:
        if action.option_strings and action.dest != "help":
            kwargs = {"dest": action.dest, "default": argparse.SUPPRESS}
            if action.nargs == 0:
                kwargs["action"] = "store_const"
                kwargs["const"] = action.const
            quiet.add_argument(*action.option_strings, **kwargs)
    return quiet.parse_known_args(argv)[0]


def _description() -> str:
    return "Train a MaskablePPO agent for Widderkopf (widderkopf-train)."
