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

from widderkopf_env.agents.network_file import load_policy, save_policy
from widderkopf_env.cli import (
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

from .distill_data import EXPERTS, generate, load_shards
from .export import init_file, network_file_arg
from .run_folder import RunFolder

__all__ = ["main", "parser"]


def _mix(text: str) -> tuple[float, float, float]:
    try:
        parts = tuple(float(x) for x in text.split(","))
    except ValueError:
        parts = ()
    if len(parts) != 3 or min(parts) < 0 or abs(sum(parts) - 1) > 1e-6:
        raise argparse.ArgumentTypeError(
            f"--mix takes three non-negative shares summing to 1, e.g. 0.7,0.2,0.1; got {text!r}")
    return parts


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="widderkopf-distill",
        description="Distil PIMC search into a policy network: labelled data (generate) and "
                    "imitation (train).")
    add_version(p)
    sub = p.add_subparsers(dest="command", required=True)
    g = sub.add_parser("generate", help="write PIMC-labelled shards (resumable)")
    g.add_argument("--out", required=True, type=output_dir, help="folder of the shards")
    g.add_argument("--shards", type=integer(1), required=True)
    g.add_argument("--seed", type=integer(0), default=0)
    g.add_argument("--matches", type=integer(1), default=4, help="matches per shard")
    g.add_argument("--samples", type=integer(1), default=None,
                   help="PIMC worlds per decision (default: PIMC's own per-kind numbers)")
    g.add_argument("--mix", type=_mix, default=(0.7, 0.2, 0.1),
                   help="shares of moves played by the expert, the heuristic, and a random "
                        "move (or --policy's)")
    g.add_argument("--policy", type=network_file_arg, default=None, metavar="POLICY",
                   help="a network whose moves replace the random ones (DAgger): ppo, net or "
                        "a network .npz")
    g.add_argument("--expert", choices=EXPERTS, default="pimc",
                   help="the labelling bot: PIMC with opponent inference or without, or the "
                        "heuristic (its move only)")
    g.add_argument("--workers", type=integer(1), default=1)
    t = sub.add_parser("train", help="fit a network to the shards")
    t.add_argument("--data", nargs="+", required=True, help="shard folders")
    t.add_argument("--out", required=True, type=output_file,
                   help="the network file to write (.npz)")
    t.add_argument("--max-shards", type=integer(1), default=None,
                   help="use shards 0..N-1 of each folder only")
    t.add_argument("--net-arch", type=int_list, default="512,512,256", metavar="N,N,...",
                   help="hidden layer sizes (default 512,512,256)")
    t.add_argument("--epochs", type=integer(1), default=40)
    t.add_argument("--batch", type=integer(1), default=512)
    t.add_argument("--lr", type=number(0.0, 1.0, low_open=True), default=1e-3)
    t.add_argument("--tau", type=number(0.0, low_open=True), default=4.0,
                   help="temperature of the soft targets, in card points")
    t.add_argument("--soft", type=number(0.0, 1.0), default=0.5,
                   help="share of the soft targets in the training target")
    t.add_argument("--init", default=None, metavar="POLICY",
                   help="start from this policy's weights: ppo or net (the shipped networks) "
                        "or a policy .npz (relative to the working directory), with the "
                        "layers of --net-arch")
    t.add_argument("--escalation-weight", type=number(0.0), default=1.0,
                   help="loss weight of positions where an escalation or pass is legal")
    t.add_argument("--seed", type=integer(0), default=0)
    return p


def main(argv=None) -> int:
    p = parser()

    def body() -> int:
        args = p.parse_args(argv)
        if args.command == "generate":
            with RunFolder(args.out, "shards") as folder:
                folder.start()
                n = generate(args.out, args.shards, args.seed, args.matches, args.samples,
                             args.mix, args.workers, args.policy, args.expert)
            print(f"wrote {n} positions")
            return 0
        require_train_extra("widderkopf-distill train")
        from .distill import train

        init = None
        if args.init is not None:
            try:
                init = load_policy(init_file(args.init, args.net_arch, "ReLU", True))
            except ValueError as err:
                raise UsageError(f"--init: {err}") from None
        try:
            data = load_shards(args.data, args.max_shards)
        except (FileNotFoundError, OSError, KeyError, ValueError) as err:
            raise UsageError(str(err)) from None
        print(f"{len(data['action'])} positions")
        weights = train(data, tuple(args.net_arch), args.epochs, args.batch, args.lr,
                        args.tau, args.soft, args.seed, init=init,
                        escalation_weight=args.escalation_weight)
        save_policy(weights, args.out)
        print(f"wrote {args.out}")
        return 0

    return run_cli(p, body, lambda _exc: "stopped; the same command resumes (finished "
                                         "shards are kept)")


if __name__ == "__main__":
    sys.exit(main())
