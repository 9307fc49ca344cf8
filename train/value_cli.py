"""``widderkopf-values``: the card-value network of ``load_agent("net")``, a regression on
exact card values.

``data``
    Exact-value data (:mod:`.value_data`): card decisions from the play of a policy
    network against the heuristic, every legal card valued by the exact solver in the
    true deal; resumable shards, in parallel over cores.
``fit``
    The card-value network fitted to them (:mod:`.value_fit`), written together with a
    policy network as one agent file (:class:`~widderkopf_env.agents.net_agent.NetAgent`).

    widderkopf-values data --out data/v1-8 --shards 116 --games 1000 --tricks 1 8 \\
        --policy policy.npz --workers 2
    widderkopf-values fit --data data/v1-8 --policy policy.npz --out net.npz
"""

from __future__ import annotations

import argparse
import sys

from widderkopf_env.agents.network_file import load_policy, save_policy
from widderkopf_env.cards import TRICKS
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

from .distill_data import load_shards
from .export import network_file_arg
from .run_folder import RunFolder

__all__ = ["main", "parser"]


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="widderkopf-values",
        description="The card-value network of load_agent('net'): exact card values in the "
                    "true deal (data) and the regression on them (fit).")
    add_version(p)
    sub = p.add_subparsers(dest="command", required=True)
    v = sub.add_parser("data", help="write exact-value shards for the card-value network "
                                    "(resumable)")
    v.add_argument("--out", required=True, type=output_dir, help="folder of the shards")
    v.add_argument("--shards", type=integer(1), required=True)
    v.add_argument("--seed", type=integer(0), default=0)
    v.add_argument("--games", type=integer(1), default=200, help="games per shard")
    v.add_argument("--tricks", type=integer(1, TRICKS), nargs=2, default=[1, 12],
                   metavar=("LO", "HI"), help="store card decisions with LO..HI tricks left")
    v.add_argument("--policy", type=network_file_arg, default="net", metavar="POLICY",
                   help="the network playing one seat against the heuristic, sampling its "
                        "moves: ppo, net or a network .npz (default: net)")
    v.add_argument("--random-share", type=number(0.0, 1.0), default=0.05,
                   help="share of random legal moves")
    v.add_argument("--exact-tricks", type=integer(1, TRICKS), default=12,
                   help="exact values with at most this many tricks left; earlier, heuristic "
                        "rollouts down to it, then exact")
    v.add_argument("--workers", type=integer(1), default=1)
    f = sub.add_parser("fit", help="fit the card-value network; write it with a policy "
                                   "network as one agent file")
    f.add_argument("--data", nargs="+", required=True, help="value shard folders")
    f.add_argument("--policy", type=network_file_arg, required=True, metavar="POLICY",
                   help="the policy network for trumps, discards and escalations: ppo, net "
                        "or a network .npz")
    f.add_argument("--out", required=True, type=output_file,
                   help="the network file to write (.npz)")
    f.add_argument("--tricks", type=integer(0, TRICKS), default=12,
                   help="the card-value network plays with at most this many tricks left")
    f.add_argument("--max-shards", type=integer(1), default=None)
    f.add_argument("--net-arch", type=int_list, default="512,512,256", metavar="N,N,...",
                   help="hidden layer sizes (default 512,512,256)")
    f.add_argument("--epochs", type=integer(1), default=12)
    f.add_argument("--batch", type=integer(1), default=512)
    f.add_argument("--lr", type=number(0.0, 1.0, low_open=True), default=1e-3)
    f.add_argument("--game-weight", type=number(0.0), default=0.0,
                   help="value = card points + this x game points (0: card points)")
    f.add_argument("--seed", type=integer(0), default=0)
    return p


def _data(args) -> int:
    from .value_data import generate_values

    lo, hi = args.tricks
    if lo > hi:
        raise UsageError(f"--tricks {lo} {hi}: LO must not exceed HI")
    with RunFolder(args.out, "shards") as folder:
        folder.start()
        n = generate_values(args.out, args.shards, args.seed, args.games, (lo, hi),
                            args.policy, args.random_share, args.exact_tricks, args.workers)
    print(f"wrote {n} positions")
    return 0


def _fit(args) -> int:
    require_train_extra("widderkopf-values fit")
    from .value_data import FIELDS
    from .value_fit import fit_values
    policy = load_policy(args.policy)
    try:
        data = load_shards(args.data, args.max_shards, fields=FIELDS)
    except (FileNotFoundError, OSError, KeyError, ValueError) as err:
        raise UsageError(str(err)) from None
    layers = fit_values(data, tuple(args.net_arch), args.epochs, args.batch, args.lr,
                        args.game_weight, args.seed)
    save_policy(policy, args.out, values=(layers, args.tricks))
    print(f"wrote {args.out}")
    return 0


def main(argv=None) -> int:
    p = parser()

    def body() -> int:
        args = p.parse_args(argv)
        return _data(args) if args.command == "data" else _fit(args)

    return run_cli(p, body, lambda _exc: "stopped; the same command resumes (finished "
                                         "shards are kept)")


if __name__ == "__main__":
    sys.exit(main())
