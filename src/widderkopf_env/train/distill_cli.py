"""``widderkopf-distill``: distil PIMC search into a policy network (imitation).

``generate``
    Search data (:mod:`.distill_data`): positions from varied play labelled by PIMC,
    written as resumable shards, in parallel over cores. ``--policy NET.npz`` makes the
    network's moves part of the play (a DAgger round: the expert labels the positions
    the learner reaches).
``train``
    A policy network fitted to the labels (:func:`.distill.train`), written as plain
    arrays that :class:`~widderkopf_env.agents.numpy_net.PolicySnapshot` plays without
    torch.

    widderkopf-distill generate --out data/r0 --shards 600 --seed 1 --workers 2
    widderkopf-distill train --data data/r0 --out net.npz
    widderkopf-distill generate --out data/r1 --shards 200 --seed 2 --policy net.npz
    widderkopf-distill train --data data/r0 data/r1 --out net.npz
    widderkopf-eval net.npz heuristic --pairs 2000      # any .npz snapshot is an agent

The card-value network of ``load_agent("net")`` has a command line of its own,
``widderkopf-values`` (:mod:`.value_cli`).
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

from widderkopf_env.agents.network_file import load_policy, load_values, save_policy
from widderkopf_env.checks import MAX_BATCH, MAX_EPOCHS, MAX_SEED, MAX_SHARDS, MAX_WORKERS
from widderkopf_env.cli import (
    DefaultsHelp,
    UsageError,
    add_version,
    int_list,
    integer,
    number,
    output_dir,
    output_file,
    require_train_extra,
    run_cli,
)
from widderkopf_env.settings import add_options, from_namespace, setting

from .distill import load_policy_rows
from .distill_data import EXPERTS, KINDS, MAX_MATCHES, MAX_SAMPLES, generate
from .export import init_file, network_file_arg
from .run_folder import RunFolder
from .shards import whole

__all__ = ["DistillGenerateSettings", "DistillTrainSettings", "FitSettings", "ShardSettings",
           "fit_policy", "generate_shards", "main", "parser"]


def _mix(text: str) -> tuple[float, float, float]:
    try:
        parts = tuple(float(x) for x in text.split(","))
    except ValueError:
        parts = ()
    if len(parts) != 3 or min(parts) < 0 or abs(sum(parts) - 1) > 1e-6:
        raise argparse.ArgumentTypeError(
            f"--mix takes three non-negative shares summing to 1, e.g. 0.7,0.2,0.1; got {text!r}")
    return parts


@dataclass
class ShardSettings:
    """What the commands that write data shards share (``widderkopf-distill generate``,
    ``widderkopf-values data``)."""

    out: Path = setting(None, "folder of the shards", type=output_dir, required=True)
    shards: int = setting(None, "shards to write", type=integer(1, MAX_SHARDS), required=True)
    seed: int = setting(0, "seed of the shards' games", type=integer(0, MAX_SEED))
    workers: int = setting(1, "processes, never more than the shards to write",
                           type=integer(1, MAX_WORKERS))


@dataclass
class FitSettings:
    """What the commands that fit a network to shards share (``widderkopf-distill train``,
    ``widderkopf-values fit``)."""

    data: list = setting(None, "shard folders", nargs="+", required=True)
    out: Path = setting(None, "the network file to write (.npz)", type=output_file,
                        required=True)
    max_shards: int | None = setting(None, "use shards 0..N-1 of each folder only",
                                     type=integer(1, MAX_SHARDS))
    net_arch: list = setting(help="hidden layer sizes", type=int_list, metavar="N,N,...",
                             factory=lambda: [512, 512, 256])
    epochs: int = setting(40, "passes over the data", type=integer(1, MAX_EPOCHS))
    batch_size: int = setting(512, "positions per gradient step", type=integer(1, MAX_BATCH),
                              old="--batch")
    lr: float = setting(1e-3, "Adam learning rate", type=number(0.0, 1.0, low_open=True))
    seed: int = setting(0, "seed of the fit", type=integer(0, MAX_SEED))


@dataclass
class DistillGenerateSettings(ShardSettings):
    """``widderkopf-distill generate``: positions labelled by an expert, in shards."""

    matches: int = setting(4, "matches per shard", type=integer(1, MAX_MATCHES))
    samples: int | None = setting(None, "the search expert's worlds per decision (default: "
                                  "its own)", type=integer(1, MAX_SAMPLES))
    mix: tuple = setting((0.7, 0.2, 0.1), "shares of moves played by the expert, the "
                         "heuristic, and a random move (or --policy's)", type=_mix)
    policy: str | None = setting(None, "a network whose moves replace the random ones "
                                 "(DAgger): ppo, net or a network .npz",
                                 type=network_file_arg, metavar="POLICY")
    expert: str = setting("pimc", "the labelling bot: PIMC with opponent inference or "
                          "without, the heuristic (its move only), or the search over net-v2 "
                          "(strong or fast)", choices=EXPERTS)
    kinds: list = setting(help="the kinds of decision labelled (crack: where an escalation "
                          "or a pass is legal); a net-search expert searches only these",
                          nargs="+", choices=KINDS, factory=lambda: list(KINDS))


@dataclass
class DistillTrainSettings(FitSettings):
    """``widderkopf-distill train``: a policy network fitted to the labels."""

    tau: float = setting(4.0, "temperature of the soft targets, in card points",
                         type=number(0.0, low_open=True))
    soft: float = setting(0.5, "share of the soft targets in the training target",
                          type=number(0.0, 1.0))
    init: str | None = setting(None, "start from this policy's weights: ppo or net (the "
                               "shipped networks) or a policy .npz (relative to the working "
                               "directory), with the layers of --net-arch", metavar="POLICY")
    escalation_weight: float = setting(1.0, "loss weight of positions where an escalation "
                                       "or pass is legal", type=number(0.0))
    values: str | None = setting(None, "write the card-value network of this network file "
                                 "(net, net-v2 or a .npz) beside the policy: the output then plays "
                                 "as that network does, the policy naming trumps, discards "
                                 "and escalations", type=network_file_arg, metavar="NETWORK")


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="widderkopf-distill", formatter_class=DefaultsHelp,
        description="Distil PIMC search into a policy network: labelled data (generate) and "
                    "imitation (train).")
    add_version(p)
    sub = p.add_subparsers(dest="command", required=True)
    add_options(sub.add_parser("generate", formatter_class=DefaultsHelp,
                               help="write PIMC-labelled shards (resumable)"),
                DistillGenerateSettings)
    add_options(sub.add_parser("train", formatter_class=DefaultsHelp,
                               help="fit a network to the shards"), DistillTrainSettings)
    return p


def generate_shards(s: DistillGenerateSettings, log=print, keep=whole, on_shard=None) -> int:
    """Write the shards of ``s`` (keeping whole finished ones: ``keep`` and ``on_shard`` as
    in :func:`~.shards.run_shards`); the number of positions written."""
    return generate(s.out, s.shards, s.seed, s.matches, s.samples, s.mix, s.workers, s.policy,
                    s.expert, log=log, keep=keep, on_shard=on_shard, kinds=s.kinds)


def fit_policy(s: DistillTrainSettings, data=None, init=None, log=print) -> dict:
    """The policy network fitted as ``s`` says (``data``: the shards, loaded; default:
    read from ``s.data`` by :func:`~.distill.load_policy_rows`), as a weights dict."""
    from .distill import train

    data = load_policy_rows(s.data, s.max_shards) if data is None else data
    return train(data, tuple(s.net_arch), s.epochs, s.batch_size, s.lr, s.tau, s.soft, s.seed,
                 init=init, escalation_weight=s.escalation_weight, log=log)


def _card_values(path: Path) -> tuple[list, int]:
    """The card-value network (layers, tricks) of the network file at ``path``."""
    try:
        values = load_values(path)
    except ValueError as err:
        raise UsageError(f"--values: {err}") from None
    if values is None:
        raise UsageError(f"--values: {str(path)!r} holds a policy network only, no card-value "
                         "network (net does; so does a widderkopf-values fit output)")
    return values


def main(argv=None) -> int:
    p = parser()

    def body() -> int:
        args = p.parse_args(argv)
        if args.command == "generate":
            with RunFolder(args.out, "shards", "widderkopf-distill generate") as folder:
                folder.start()
                n = generate_shards(from_namespace(DistillGenerateSettings, args))
            print(f"wrote {n} positions")
            return 0
        args = from_namespace(DistillTrainSettings, args)
        require_train_extra("widderkopf-distill train")
        init = values = None
        if args.init is not None:
            try:
                init = load_policy(init_file(args.init, args.net_arch, "ReLU", True))
            except ValueError as err:
                raise UsageError(f"--init: {err}") from None
        if args.values is not None:
            values = _card_values(args.values)
        try:
            data = load_policy_rows(args.data, args.max_shards)
        except (FileNotFoundError, OSError, KeyError, ValueError) as err:
            raise UsageError(str(err)) from None
        print(f"{len(data)} positions")
        weights = fit_policy(args, data, init)
        save_policy(weights, args.out, values=values)
        print(f"wrote {args.out}")
        return 0

    return run_cli(p, body, lambda _exc: "stopped; the same command resumes (finished "
                                         "shards are kept)")


if __name__ == "__main__":
    sys.exit(main())
