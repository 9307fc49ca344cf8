"""``widderkopf-values``: the card-value network of ``load_agent("net")``, a regression on
exact card values.

``data``
    Exact-value data (:mod:`.value_data`): card decisions from the play of a policy
    network against the heuristic, every legal card valued by the exact solver in the
    true deal; resumable shards, in parallel over cores.
``fit``
    The card-value network fitted to them (:mod:`.value_fit`), written together with a
    policy network as one agent file (:class:`~widderkopf_env.agents.net_agent.NetAgent`).

    widderkopf-values data --out data/v1-8 --shards 116 --games 1000 --tricks-left 1 8 \\
        --policy policy.npz --workers 2
    widderkopf-values fit --data data/v1-8 --policy policy.npz --out net.npz
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass

from widderkopf_env.agents.network_file import load_policy, save_policy
from widderkopf_env.cards import TRICKS
from widderkopf_env.checks import MAX_EPOCHS
from widderkopf_env.cli import (
    DefaultsHelp,
    UsageError,
    add_version,
    integer,
    number,
    require_train_extra,
    run_cli,
)
from widderkopf_env.settings import add_options, from_namespace, setting

from .distill_cli import FitSettings, ShardSettings
from .export import network_file_arg
from .run_folder import RunFolder
from .shards import whole
from .value_data import EXACT_TRICKS, MAX_GAMES, MAX_SEED

__all__ = ["ValueDataSettings", "ValueFitSettings", "main", "parser", "value_shards"]


@dataclass
class ValueDataSettings(ShardSettings):
    """``widderkopf-values data``: exact-value shards for the card-value network."""

    seed: int = setting(0, "seed of the shards' games", type=integer(0, MAX_SEED))
    games: int = setting(200, "games per shard", type=integer(1, MAX_GAMES))
    tricks: list = setting(help="store card decisions with LO..HI tricks left",
                           type=integer(1, TRICKS), nargs=2, metavar=("LO", "HI"),
                           flag="--tricks-left", old="--tricks",
                           factory=lambda: [1, EXACT_TRICKS])
    policy: str = setting("net", "the network playing one seat against the heuristic, "
                          "sampling its moves: ppo, net or a network .npz",
                          type=network_file_arg, metavar="POLICY")
    random_moves: float = setting(0.05, "share of random legal moves", type=number(0.0, 1.0),
                                  old="--random-share")
    exact_tricks: int = setting(EXACT_TRICKS, "exact values with at most this many tricks "
                                "left; earlier, heuristic rollouts down to it, then exact",
                                type=integer(1, TRICKS))


@dataclass
class ValueFitSettings(FitSettings):
    """``widderkopf-values fit``: the card-value network, written with a policy network."""

    policy: str = setting(None, "the policy network for trumps, discards and escalations: "
                          "ppo, net or a network .npz", type=network_file_arg,
                          metavar="POLICY", required=True)
    tricks: int = setting(EXACT_TRICKS, "the card-value network plays with at most this "
                          "many tricks left", type=integer(0, TRICKS))
    epochs: int = setting(12, "passes over the data", type=integer(1, MAX_EPOCHS))
    game_weight: float = setting(0.0, "value = card points + this x game points (0: card "
                                 "points)", type=number(0.0))


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="widderkopf-values", formatter_class=DefaultsHelp,
        description="The card-value network of load_agent('net'): exact card values in the "
                    "true deal (data) and the regression on them (fit).")
    add_version(p)
    sub = p.add_subparsers(dest="command", required=True)
    add_options(sub.add_parser("data", formatter_class=DefaultsHelp,
                               help="write exact-value shards for the card-value network "
                                    "(resumable)"), ValueDataSettings)
    add_options(sub.add_parser("fit", formatter_class=DefaultsHelp,
                               help="fit the card-value network; write it with a policy "
                                    "network as one agent file"), ValueFitSettings)
    return p


def value_shards(s: ValueDataSettings, log=print, keep=whole, on_shard=None) -> int:
    """Write the exact-value shards of ``s`` (keeping whole finished ones: ``keep`` and
    ``on_shard`` as in :func:`~.shards.run_shards`); the number of positions written."""
    from .value_data import generate_values

    return generate_values(s.out, s.shards, s.seed, s.games, tuple(s.tricks), s.policy,
                           s.random_moves, s.exact_tricks, s.workers, log=log, keep=keep,
                           on_shard=on_shard)


def _data(s: ValueDataSettings) -> int:
    lo, hi = s.tricks
    if lo > hi:
        raise UsageError(f"--tricks-left {lo} {hi}: LO must not exceed HI")
    with RunFolder(s.out, "shards", "widderkopf-values data") as folder:
        folder.start()
        n = value_shards(s)
    print(f"wrote {n} positions")
    return 0


def _fit(s: ValueFitSettings) -> int:
    require_train_extra("widderkopf-values fit")
    from .value_fit import fit_values, load_value_rows
    policy = load_policy(s.policy)
    try:
        data = load_value_rows(s.data, s.max_shards, s.game_weight)
    except (FileNotFoundError, OSError, KeyError, ValueError) as err:
        raise UsageError(str(err)) from None
    layers = fit_values(data, tuple(s.net_arch), s.epochs, s.batch_size, s.lr,
                        s.game_weight, s.seed)
    save_policy(policy, s.out, values=(layers, s.tricks))
    print(f"wrote {s.out}")
    return 0


def main(argv=None) -> int:
    p = parser()

    def body() -> int:
        args = p.parse_args(argv)
        if args.command == "data":
            return _data(from_namespace(ValueDataSettings, args))
        return _fit(from_namespace(ValueFitSettings, args))

    return run_cli(p, body, lambda _exc: "stopped; the same command resumes (finished "
                                         "shards are kept)")


if __name__ == "__main__":
    sys.exit(main())
