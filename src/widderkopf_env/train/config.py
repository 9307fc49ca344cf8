"""The settings of ``widderkopf-train``, declared once.

:class:`TrainConfig` holds every setting with its default and its meaning (one field
each, as CleanRL's ``Args``; the field's name is its option's, ``--`` and dashes, but
for ``--no-progress``); the argument parser (:func:`build_parser`), the checks of a saved
``config.json`` (:func:`check_saved`, old keys through :mod:`.config_file`) and the docs
table (:func:`defaults_table`) are all built from it. A run's settings travel as one frozen
:class:`TrainConfig` object, its run-time defaults worked out (see :func:`parse_config`);
the trainer reads its attributes. Nothing here imports the trainer.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from dataclasses import MISSING, dataclass, fields
from pathlib import Path

from widderkopf_env import settings
from widderkopf_env.agents.arena import default_workers, derive_seed
from widderkopf_env.agents.cli_args import agent_help, agent_spec, runs_code
from widderkopf_env.agents.eval_cli import MAX_PAIRS
from widderkopf_env.cards import VARIANTS
from widderkopf_env.checks import (
    MAX_EPOCHS,
    MAX_MINUTES,
    MAX_SEED32,
    MAX_STEPS,
    MAX_THREADS,
    MAX_WORKERS,
)
from widderkopf_env.cli import (
    DefaultsHelp,
    UsageError,
    add_version,
    check_output_dir,
    deprecated_alias,
    int_list,
    integer,
    number,
    require_train_extra,
)

from . import presets
from .algorithms import SYMMETRIC_HELP, symmetric_defaults
from .algorithms import check as check_algorithms
from .config_file import check_value, upgrade
from .run_folder import RunFolderError

SHARE, ABOVE0 = number(0, 1), number(0, low_open=True)
#: The most envs stepped in lockstep, and the most steps of one rollout (--n-steps x
#: --n-envs: its arrays, about 2.4 kB a step, are allocated at once).
MAX_ENVS, MAX_ROLLOUT = 1024, 1 << 21
#: The most snapshots of the self-play pool, and the most checkpoints kept.
MAX_KEPT = 1000
STEPS, STEP_COUNT = integer(1, MAX_STEPS), integer(0, MAX_STEPS)
NET_SIZES = {"small": [64, 64], "medium": [256, 256], "large": [512, 512]}
GROUPS = ("run", "environment", "self-play", "network and PPO", "evaluation and checkpoints")
ROLLOUT_STEPS = 8192  # steps per update that the default --n-steps aims at


def setting(default=MISSING, help: str = "", *, group: str = "run", run_control=False,
            shown=None, **form):
    """A :class:`TrainConfig` field (:func:`widderkopf_env.settings.setting`, whose
    keywords ``form`` takes): ``group``: its section of ``--help``; ``run_control``:
    ``--resume`` may change it; ``shown``: the default as the docs table and ``--help``
    show it (when it is worked out at run time)."""
    return settings.setting(default, help, group=group, run_control=run_control, shown=shown,
                            **form)


def _workers_default() -> int:
    return min(default_workers(), MAX_WORKERS)


@dataclass(frozen=True)
class TrainConfig:
    """Every setting of a ``widderkopf-train`` run (the keys of its config.json)."""

    total_steps: int = setting(5_000_000, "learner decisions to train on (PPO trains in "
                               "whole rollouts of --n-steps x --n-envs, so the run ends at "
                               "the first multiple at or above it)", type=STEPS,
                               run_control=True)
    minutes: float | None = setting(None, "wall-clock budget of the run: training stops at "
                                    "the first rollout that would start after M minutes "
                                    "(setup, periodic evaluations and checkpoints count; "
                                    "the final evaluation follows); --total-steps is then "
                                    "only a cap, unlimited unless given",
                                    type=number(0, MAX_MINUTES, low_open=True),
                                    metavar="M", run_control=True, shown="none")
    out: str = setting("runs/ppo", "output directory (one run per folder; a second process "
                       "on it exits 2)", type=str, run_control=True)
    resume: bool = setting(False, "continue from the newest checkpoint in --out",
                           action="store_true", run_control=True)
    force_restart: bool = setting(False, "start the run in --out again from step 0, "
                                  "deleting its outputs (with --resume: its settings, "
                                  "when no checkpoint verifies)", action="store_true",
                                  run_control=True)
    preset: str | None = setting(None, "a settings file: a shipped preset's name (no name: "
                                 "list them) or a .json file of field names; the options "
                                 "given override it", type=str, nargs="?", metavar="NAME")
    seed: int = setting(0, "seeds the model, the envs and the evaluation deals",
                        type=integer(0, MAX_SEED32))
    n_envs: int = setting(16, "envs stepped in lockstep", type=integer(1, MAX_ENVS),
                          group="environment", run_control=True)
    vec_env: str = setting("dummy", "dummy: all envs in this process (DummyVecEnv); "
                           "subproc: one process per env (SubprocVecEnv); native: all envs "
                           "in one batched engine (with --self-play, the snapshots in one batch)",
                           choices=("dummy", "subproc", "native"), group="environment",
                           run_control=True)
    opponent: str = setting("heuristic", "fixed opponent", type=agent_spec,
                            group="environment")
    variant: str = setting("full", "the variant trained on and evaluated on (a name in "
                           "widderkopf_env.VARIANTS: the same rules on fewer cards)",
                           choices=tuple(VARIANTS), group="environment")
    reward_shaping: bool = setting(True, "the env's dense card-point shaping (+-(card point "
                                   "diff)/121 per hand)",
                                   action=argparse.BooleanOptionalAction, group="environment")
    reward_scale: float = setting(0.25, "rewards are multiplied by this (game points are "
                                  "1..64)", type=ABOVE0, group="environment")
    warmup_random: int = setting(0, "curriculum: train against the random bot for the first "
                                 "STEPS", type=STEP_COUNT, metavar="STEPS", group="environment")
    crack_after: int | None = setting(None, "curriculum: the learner may not escalate "
                                      "(crack) in training before STEPS; evaluations play "
                                      "the policy unrestricted, so they may show cracks "
                                      "earlier", type=STEP_COUNT, metavar="STEPS",
                                      group="environment", shown="500000; 0 with --init")
    self_play: bool = setting(False, "opponents: the bots mixed with a pool of the learner's "
                              "snapshots", action="store_true", group="self-play")
    snapshot_every: int = setting(250_000, "add the current policy to the pool every STEPS",
                                  type=STEPS, metavar="STEPS", group="self-play")
    pool_size: int = setting(8, "snapshots kept (0: all)", type=integer(0, MAX_KEPT),
                             group="self-play")
    heuristic_share: float = setting(0.5, "share of episodes against the heuristic bot",
                                     type=SHARE, group="self-play", old="--p-heuristic")
    random_share: float = setting(0.1, "share of episodes against the random bot (the "
                                  "rest: the pool)", type=SHARE, group="self-play",
                                  old="--p-random")
    self_play_symmetric: bool = setting(False, "one policy plays both seats of every game "
                                        "and learns from both (the batched engine; no "
                                        "bots); " + SYMMETRIC_HELP, action="store_true",
                                        group="self-play")
    algo: str = setting("ppo", "ppo: MaskablePPO; mmd: magnetic mirror descent, PPO plus "
                        "--magnet-coef x KL(policy || magnet)", choices=("ppo", "mmd"),
                        group="network and PPO")
    magnet_coef: float = setting(0.025, "mmd: weight of the KL divergence from the magnet",
                                 type=number(0), group="network and PPO")
    magnet_every: int = setting(0, "mmd: the magnet becomes the current policy every N "
                                "updates (rollouts); 0: it stays the initial policy",
                                type=STEP_COUNT, metavar="N", group="network and PPO")
    exploitability_every: int = setting(0, "exact exploitability (variants tiny and small; "
                                        "the [openspiel] extra) every STEPS into "
                                        "exploitability.csv (0: never)", type=STEP_COUNT,
                                        metavar="STEPS", group="evaluation and checkpoints")
    net_arch: list[int] = setting(help="hidden layer sizes of the policy and of the value "
                                  "net (--net-size: " + ", ".join(
                                      f"{k} {v}" for k, v in NET_SIZES.items()) + ")",
                                  type=int_list, metavar="N,N,...", group="network and PPO",
                                  factory=lambda: [256, 256], shown="256,256")
    policy_class: str = setting("canonical", "canonical: the MLP sees the cards in "
                                "trump-relative order "
                                "(src/widderkopf_env/train/torch_policy.py); mlp: SB3's "
                                "plain MlpPolicy",
                                choices=("canonical", "mlp"), group="network and PPO",
                                old="--policy")
    activation: str = setting("relu", "activation of the hidden layers",
                              choices=("relu", "tanh"), group="network and PPO")
    init: str | None = setting(None, "warm start: the actor starts from this policy's "
                               "weights: 'ppo', 'ppo-v1', 'net', 'net-v2', 'net-v1' (the "
                               "shipped files) or a .npz written by widderkopf-distill (the "
                               "critic starts fresh); its "
                               "hidden layers are the run's unless --net-arch is given, "
                               "which must then match", type=str, metavar="POLICY",
                               group="network and PPO")
    lr: float = setting(1e-3, "Adam learning rate", type=ABOVE0, group="network and PPO")
    lr_schedule: str = setting("linear", "linear: decays to 10% of --lr at --total-steps",
                               choices=("constant", "linear"), group="network and PPO")
    n_steps: int | None = setting(None, "rollout steps per env", type=integer(1, MAX_ROLLOUT),
                                  group="network and PPO",
                                  shown=f"{ROLLOUT_STEPS} / --n-envs, at least 32")
    batch_size: int = setting(1024, "minibatch size of the gradient updates (at most "
                              "n-steps x n-envs are used)", type=integer(2, MAX_ROLLOUT),
                              group="network and PPO")
    epochs: int = setting(4, "passes over each rollout", type=integer(1, MAX_EPOCHS),
                          group="network and PPO", old="--n-epochs")
    gamma: float = setting(1.0, "discount factor", type=SHARE, group="network and PPO")
    gae_lambda: float = setting(0.95, "bias/variance trade-off of the advantage estimate "
                                "(GAE)", type=SHARE, group="network and PPO")
    clip_range: float = setting(0.2, "PPO's clipping of the policy ratio", type=ABOVE0,
                                group="network and PPO")
    ent_coef: float = setting(0.01, "entropy bonus coefficient", type=number(0),
                              group="network and PPO")
    vf_coef: float = setting(0.5, "value loss coefficient", type=number(0),
                             group="network and PPO")
    max_grad_norm: float = setting(0.5, "gradients are clipped to this norm", type=ABOVE0,
                                   group="network and PPO")
    eval_every: int = setting(100_000, "evaluate every STEPS (0: only at the end)",
                              type=STEP_COUNT, metavar="STEPS",
                              group="evaluation and checkpoints", run_control=True)
    eval_pairs: int | None = setting(None, "duplicate deal pairs per opponent of the "
                                     "periodic evaluations", type=integer(1, MAX_PAIRS),
                                     group="evaluation and checkpoints", run_control=True,
                                     shown="300, at most --final-eval-pairs")
    workers: int = setting(help="processes of the evaluations", type=integer(1, MAX_WORKERS),
                           group="evaluation and checkpoints", run_control=True,
                           factory=_workers_default, shown="the CPU cores",
                           old="--eval-workers")
    final_eval_pairs: int | None = setting(None, "pairs per opponent of the final "
                                           "evaluation of the final and (if another "
                                           "model) the best model", type=integer(1, MAX_PAIRS),
                                           group="evaluation and checkpoints",
                                           run_control=True,
                                           shown="--total-steps / 1000, from 100 to 2000")
    checkpoint_every: int = setting(100_000, "save a checkpoint every STEPS (0: only at the "
                                    "end)", type=STEP_COUNT, metavar="STEPS",
                                    group="evaluation and checkpoints", run_control=True)
    keep_checkpoints: int = setting(3, "0: keep all", type=integer(0, MAX_KEPT),
                                    group="evaluation and checkpoints", run_control=True)
    torch_threads: int = setting(1, "torch threads for the gradient updates (rollouts "
                                 "always use 1: their forward passes are too small to "
                                 "share)", type=integer(1, MAX_THREADS),
                                 group="evaluation and checkpoints", run_control=True)
    progress_bar: bool = setting(True, "no progress bar", action="store_false",
                                 flag="--no-progress", group="evaluation and checkpoints",
                                 run_control=True, old="--no-progress-bar")
    quiet: bool = setting(False, "print only the summary line (no progress bar either)",
                          action="store_true",
                          group="evaluation and checkpoints", run_control=True)
    eval_seed: int | None = setting(None, "seed of the periodic evaluations' deals",
                                    cli=False, shown="derived from --seed")
    final_eval_seed: int | None = setting(None, "seed of the final evaluation's deals",
                                          cli=False, shown="derived from --seed")


#: Settings that --resume may change; every other setting is the run's own.
RUN_CONTROL = frozenset(f.name for f in fields(TrainConfig) if f.metadata["run_control"])


_flag, _default = settings.option_name, settings.default_of


def differences(a: TrainConfig, b: TrainConfig) -> list[str]:
    """The settings other than :data:`RUN_CONTROL` in which ``a`` and ``b`` differ."""
    return [f.name for f in fields(TrainConfig) if f.name not in RUN_CONTROL
            and getattr(a, f.name) != getattr(b, f.name)]


def build_parser() -> argparse.ArgumentParser:
    """``widderkopf-train``'s parser, one option per :class:`TrainConfig` field."""
    p = argparse.ArgumentParser(
        prog="widderkopf-train", formatter_class=DefaultsHelp,
        description="Train a MaskablePPO agent for Widderkopf (widderkopf-train).",
        usage="%(prog)s [--out DIR] [--total-steps N] [--resume] [more options: see --help]",
        epilog="widderkopf-train --recipe {demo,net} [--out DIR]: the whole pipeline from "
               "nothing to one agent file (imitation, exact card values); "
               "widderkopf-train --recipe demo --help says more.")
    groups = {g: p if g == "run" else p.add_argument_group(g) for g in GROUPS}
    for f in fields(TrainConfig):
        m = f.metadata
        if not m["cli"]:
            continue
        kwargs = settings.option_kwargs(f)
        if f.name == "opponent":
            kwargs["help"] = agent_help(kwargs["help"])
        if m["shown"] is not None and f.default is None:
            kwargs["help"] += f" (default: {m['shown']})"
        if f.name == "net_arch":
            kwargs["default"] = ",".join(map(str, _default(f)))
        groups[m["group"]].add_argument(_flag(f), **kwargs)
        if m["old"]:
            deprecated_alias(p, m["old"], _flag(f))
        if f.name == "net_arch":
            groups[m["group"]].add_argument("--net-size", choices=sorted(NET_SIZES),
                                            default=None,
                                            help="preset --net-arch (see there)")
    add_version(p)
    return p


def resolve(cfg: TrainConfig) -> TrainConfig:
    """``cfg`` with its run-time defaults worked out (see the fields' ``shown``)."""
    worked: dict = {}
    if cfg.n_steps is None:
        worked["n_steps"] = max(32, ROLLOUT_STEPS // cfg.n_envs)
    if cfg.crack_after is None:
        worked["crack_after"] = 0 if cfg.init else 500_000
    final_pairs = cfg.final_eval_pairs
    if final_pairs is None:
        final_pairs = worked["final_eval_pairs"] = min(2000, max(100, cfg.total_steps // 1000))
    if cfg.eval_pairs is None:
        worked["eval_pairs"] = min(300, final_pairs)
    if cfg.eval_seed is None:
        worked["eval_seed"] = derive_seed(cfg.seed, "eval")
    if cfg.final_eval_seed is None:
        worked["final_eval_seed"] = derive_seed(cfg.seed, "final-eval")
    return dataclasses.replace(cfg, **worked) if worked else cfg


def parse_config(argv=None, parser: argparse.ArgumentParser | None = None) -> TrainConfig:
    """The run's settings (defaults worked out); with --resume, merged into the run's
    saved config.json (read by :func:`.config_file.read_saved`; a bad one raises
    :class:`RunFolderError`).

    Every check of the settings happens here, before anything is written: a bad value
    exits with a usage error (status 2, via ``parser.error``), and so does a missing
    ``[train]`` extra. The run folder itself is checked by the trainer under its lock."""
    parser = parser or build_parser()
    try:
        return _config(parser, argv)
    except RunFolderError:
        raise  # not a mistake in the command line: one line without the usage
    except UsageError as err:
        parser.error(str(err))


def config_of(settings: TrainConfig) -> TrainConfig:
    """The run's settings from a :class:`TrainConfig` object, as :func:`parse_config`
    makes them from a command line (the fields that differ from their defaults count as
    given); for a caller that runs PPO as one of its stages (the recipe)."""
    given = {f.name for f in fields(TrainConfig) if getattr(settings, f.name) != _default(f)}
    return _configure(dataclasses.asdict(settings), given)


def _config(parser: argparse.ArgumentParser, argv) -> TrainConfig:
    args = vars(parser.parse_args(argv))
    net_size = args.pop("net_size")
    if net_size is not None:
        args["net_arch"] = NET_SIZES[net_size]
    given = set(vars(_given(parser, argv)))
    if given & {"net_size"}:
        given = (given - {"net_size"}) | {"net_arch"}
    if "preset" in given:  # a settings file: its fields count as given
        args, given = presets.apply(args, given, fields(TrainConfig), check_value)
    return _configure(args, given)


def _configure(args: dict, given: set) -> TrainConfig:
    """Resolve, merge into the saved run on --resume, and check the settings ``args``
    (``given``: the settings the caller named)."""
    args["out"] = str(args["out"])
    if args.get("init") is not None and not args.get("resume") and "net_arch" not in given:
        args["net_arch"] = _init("init_arch", args["init"])  # a warm start's network, unless set
    args = symmetric_defaults(args, given)
    if args.get("minutes") is not None and "total_steps" not in given and not args.get("resume"):
        if args["lr_schedule"] == "linear":
            raise UsageError("--lr-schedule linear decays over --total-steps, which --minutes "
                             "leaves open: give --total-steps too, or --lr-schedule constant "
                             "(the schedule of the ppo-selfplay and mmd presets)")
        args["total_steps"] = MAX_STEPS  # the budget ends the run
    cfg = resolve(TrainConfig(**args))
    try:  # a folder, or one can be made, that accepts new files
        check_output_dir(Path(cfg.out))
    except UsageError as err:
        raise UsageError(f"--out: {err}") from None
    if cfg.resume:
        given = given | {"resume"}
        old = read_saved(Path(cfg.out))
        if runs_code(old.opponent) and cfg.opponent != old.opponent:
            raise RunFolderError(
                f"--resume: config.json names the 'opponent' {old.opponent!r}, which runs "
                "code stored in it when loaded; give --opponent with it again to confirm")
        ignored = sorted(set(differences(cfg, old)) & given)
        if ignored:
            print(f"--resume: keeping the run's own settings; ignoring {ignored}",
                  file=sys.stderr)
        cfg = resolve(dataclasses.replace(
            old, **{**{k: getattr(cfg, k) for k in RUN_CONTROL & given}, "resume": True}))
    if cfg.init is not None and not cfg.resume:
        cfg = dataclasses.replace(cfg, init=str(_init("init_file", cfg.init, cfg.net_arch,
                                                      cfg.activation,
                                                      cfg.policy_class == "canonical")))
    check(cfg)
    require_train_extra("training")  # last: importing torch takes seconds
    return cfg


def check_rollout(n_steps: int | None, n_envs: int, names=("n_steps", "n_envs")) -> None:
    """ValueError unless ``n_envs`` and the rollout ``n_steps x n_envs`` are within
    bounds (before anything is allocated); ``names``: how the message names them."""
    steps, envs = names
    if not 1 <= n_envs <= MAX_ENVS:
        raise ValueError(f"{envs} must be in 1..{MAX_ENVS:,}, got {n_envs}")
    if n_steps is not None and n_steps * n_envs < 2:
        raise ValueError(f"{steps} x {envs} must be at least 2 (PPO normalises the "
                         f"advantages over each rollout), got {n_steps} x {n_envs}")
    if n_steps is not None and n_steps * n_envs > MAX_ROLLOUT:
        raise ValueError(f"{steps} x {envs} must be at most {MAX_ROLLOUT:,} (one rollout's "
                         f"arrays are allocated at once), got {n_steps:,} x {n_envs}")


def check(cfg: TrainConfig) -> None:
    """The checks that need several settings; UsageError saying what is wrong."""
    try:
        check_rollout(cfg.n_steps, cfg.n_envs, ("--n-steps", "--n-envs"))
    except ValueError as err:
        raise UsageError(str(err)) from None
    if cfg.vec_env == "subproc" and cfg.n_envs > MAX_WORKERS:
        raise UsageError(f"--vec-env subproc runs one process per env: --n-envs must be at "
                         f"most {MAX_WORKERS} with it, got {cfg.n_envs} (--vec-env dummy "
                         "or native step more envs in this process)")
    check_algorithms(cfg)
    if cfg.self_play and cfg.heuristic_share + cfg.random_share > 1:
        raise UsageError("--heuristic-share + --random-share must be at most 1")
    if cfg.self_play and cfg.heuristic_share + cfg.random_share <= 0:
        raise UsageError("--heuristic-share + --random-share must be above 0: the pool has no "
                         "snapshot before step --snapshot-every, and until then the bots "
                         "play every episode")


def read_saved(out: Path) -> TrainConfig:
    """The settings in ``out``/config.json, checked: UsageError if there is none (no run
    to resume), :class:`RunFolderError` if it is damaged."""
    saved = out / "config.json"
    if not saved.is_file():
        raise UsageError(f"--resume: no run in {out} (config.json missing)")
    try:
        data = json.loads(saved.read_text())
    except (OSError, ValueError) as err:
        raise RunFolderError(f"--resume: {saved} is not a readable run config "
                             f"({err})") from None
    try:
        return check_saved(data)
    except ValueError as err:
        raise RunFolderError(f"--resume: {saved} is not a config this version "
                             f"wrote: {err}") from None


def check_saved(data) -> TrainConfig:
    """``data`` (a parsed config.json) as settings; ValueError naming the first key that
    is missing, unknown, of the wrong type or out of range."""
    if not isinstance(data, dict):
        raise ValueError(f"expected a JSON object, got {type(data).__name__}")
    known = {f.name: f for f in fields(TrainConfig)}
    data = upgrade(data)
    unknown = sorted(set(data) - set(known))
    missing = sorted(set(known) - set(data))
    if unknown or missing:
        raise ValueError(f"keys missing {missing}, unknown {unknown}")
    for f in known.values():
        check_value(f, data[f.name])
    return TrainConfig(**{name: data[name] for name in known})


def defaults_table() -> str:
    """The markdown table of every setting, its default and its meaning (the docs show
    this table; a test checks that they do)."""
    rows = ["| option | default | meaning |", "|---|---|---|"]
    for f in fields(TrainConfig):
        m = f.metadata
        name = f"`{_flag(f)}`" if m["cli"] else f"({f.name})"
        if m["shown"] is not None:
            shown = m["shown"]
        elif m["action"] in ("store_true", "store_false"):
            shown = "off"
        elif isinstance(f.default, bool):
            shown = "on" if f.default else "off"
        elif f.default is None:
            shown = "none"
        else:
            shown = f"{f.default:,}" if type(f.default) is int else str(f.default)
        rows.append(f"| {name} | {shown} | {m['help'].replace('|', '/')} |")
    return "\n".join(rows) + "\n"


def _init(how: str, *args):
    """:mod:`.export`'s ``init_file`` or ``init_arch`` (``how``) of ``args``; UsageError."""
    from .export import init_arch, init_file

    try:
        return {"init_arch": init_arch, "init_file": init_file}[how](*args)
    except ValueError as err:
        raise UsageError(f"--init: {err}") from None


def _given(parser: argparse.ArgumentParser, argv) -> argparse.Namespace:
    """Only the options given on the command line."""
    quiet = argparse.ArgumentParser(add_help=False)
    for action in parser._actions:
        if action.option_strings and action.dest != "help":
            kwargs = {"dest": action.dest, "default": argparse.SUPPRESS}
            if action.nargs == 0:
                kwargs["action"] = "store_const"
                kwargs["const"] = action.const
            elif action.nargs == "?":  # --preset with no name
                kwargs["nargs"] = "?"
            quiet.add_argument(*action.option_strings, **kwargs)
    return quiet.parse_known_args(argv)[0]
