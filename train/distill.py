"""Distil search into networks: ``widderkopf-distill``.

Two subcommands for the policy network (imitation of PIMC), two for the card-value
network of ``load_agent("net")`` (exact values in the true deal):

``generate``
    Search data (:mod:`.distill_data`): positions from varied play labelled by PIMC,
    written as resumable shards, in parallel over cores. ``--policy NET.npz`` makes the
    network's moves part of the play (a DAgger round: the expert labels the positions
    the learner reaches).
``train``
    A policy network fitted to the labels: the shipped PPO policy's architecture
    (canonical, trump-relative input; an MLP; escalation as its own yes/no logit; see
    :mod:`.policies`), trained by masked cross-entropy against a target that mixes the
    expert's move with a softmax of its per-action scores (``--tau`` card points), on
    the CPU with torch. Early stopping on a held-out 5% of the matches' shards. The
    result is written as plain arrays that
    :class:`~widderkopf_env.agents.numpy_net.PolicySnapshot` plays without torch.

    widderkopf-distill generate --out data/r0 --shards 600 --seed 1 --workers 2
    widderkopf-distill train --data data/r0 --out net.npz
    widderkopf-distill generate --out data/r1 --shards 200 --seed 2 --policy net.npz
    widderkopf-distill train --data data/r0 data/r1 --out net.npz
    widderkopf-eval net.npz heuristic --pairs 2000      # any .npz snapshot is an agent

``values``
    Exact-value data (:mod:`.values_data`): card decisions from the play of a policy
    network against the heuristic, every legal card valued by the exact solver in the
    true deal; resumable shards, in parallel over cores.
``train-values``
    The card-value network fitted to them (:mod:`.values`), written together with a
    policy network as one agent file (:class:`~widderkopf_env.agents.net_agent.NetAgent`).

    widderkopf-distill values --out data/v1-8 --shards 116 --games 1000 --tricks 1 8 \\
        --policy policy.npz --workers 2
    widderkopf-distill train-values --data data/v1-8 --policy policy.npz --out net.npz
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

from widderkopf_env.agents.canonical import OUT_INDEX, to_canonical, trump_of
from widderkopf_env.agents.shipped import load_net_agent, load_policy, save_policy
from widderkopf_env.cards import ESCALATE, NUM_ACTIONS, NUM_CARDS, PASS, TRICKS
from widderkopf_env.cli import (
    UsageError,
    add_version,
    integer,
    number,
    output_dir,
    output_file,
    require_train_extra,
    run_cli,
)

from .distill_data import generate, load_shards

__all__ = ["load_net_agent", "main", "targets", "train"]


def targets(data: dict, tau: float = 4.0, soft: float = 0.5) -> np.ndarray:
    """Training targets ``(n, 42)`` in action-id order: ``1 - soft`` on the expert's move
    plus ``soft`` times the softmax of its scores over the actions it compared (scores
    are card points, so ``tau`` is in card points). Where the move is an escalation, a
    pass, or nothing was compared, the target is the move alone."""
    n = len(data["action"])
    y = np.zeros((n, NUM_ACTIONS), np.float32)
    y[np.arange(n), data["action"]] = 1.0
    v = data["values"]
    has = ~np.isnan(v).all(axis=1) & (data["action"] != ESCALATE) & (data["action"] != PASS)
    z = np.where(np.isnan(v[has]), -np.inf, v[has] / tau)
    z -= z.max(axis=1, keepdims=True)
    p = np.exp(z)
    p /= p.sum(axis=1, keepdims=True)
    y[has] = (1.0 - soft) * y[has] + soft * p
    return y


def _to_canonical_targets(y: np.ndarray, obs: np.ndarray) -> np.ndarray:
    """Targets by action id -> by canonical index (the network's output order)."""
    out = np.empty_like(y)
    np.put_along_axis(out, OUT_INDEX[trump_of(obs)], y, axis=-1)
    return out


def train(data: dict, hidden=(512, 512, 256), epochs: int = 40, batch: int = 512,
          lr: float = 1e-3, tau: float = 4.0, soft: float = 0.5, seed: int = 0,
          patience: int = 4, init=None, escalation_weight: float = 1.0, log=print) -> dict:
    """Fit a network to ``data`` (:func:`~.distill_data.load_shards`); returns the
    weights dict of :class:`~widderkopf_env.agents.numpy_net.PolicySnapshot` (canonical,
    ReLU). ``init``: a weights dict of the same shape to start from (e.g. the shipped PPO policy); positions where an
    escalation or a pass is legal weigh ``escalation_weight`` in the loss."""
    import torch
    from torch import nn

    torch.manual_seed(seed)
    obs = data["obs"].astype(np.float32)
    x_all = torch.as_tensor(to_canonical(obs))
    y_all = torch.as_tensor(_to_canonical_targets(targets(data, tau, soft), obs))
    m_all = torch.as_tensor(_to_canonical_targets(data["mask"].astype(np.float32), obs) > 0.5)
    crack = (data["mask"][:, ESCALATE] > 0) | (data["mask"][:, PASS] > 0)
    w_all = torch.as_tensor(np.where(crack, escalation_weight, 1.0).astype(np.float32))
    n = len(x_all)
    rng = np.random.default_rng(seed)
    order = rng.permutation(n)
    n_val = max(1, n // 20)
    val, tr = order[:n_val], order[n_val:]

    sizes = [x_all.shape[1], *hidden]
    layers = []
    for a, b in zip(sizes[:-1], sizes[1:], strict=True):
        layers += [nn.Linear(a, b), nn.ReLU()]
    body, head = nn.Sequential(*layers), nn.Linear(sizes[-1], NUM_ACTIONS)
    if init is not None:
        linears = [m for m in body if isinstance(m, nn.Linear)] + [head]
        with torch.no_grad():
            for m, (w, b) in zip(linears, init["layers"], strict=True):
                m.weight.copy_(torch.as_tensor(w))
                m.bias.copy_(torch.as_tensor(b))
    params = [*body.parameters(), *head.parameters()]
    opt = torch.optim.Adam(params, lr=lr)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, epochs)

    def logits(x, legal):
        z = head(body(x))
        lse = torch.logsumexp(z[:, :NUM_CARDS].masked_fill(~legal[:, :NUM_CARDS], -1e9), dim=1)
        has = legal[:, :NUM_CARDS].any(dim=1)
        esc = z[:, ESCALATE] + torch.where(has, lse, torch.zeros_like(lse))
        z = torch.cat([z[:, :ESCALATE], esc[:, None], z[:, ESCALATE + 1:]], dim=1)
        return z.masked_fill(~legal, -1e9)

    def evaluate(idx):
        with torch.no_grad():
            loss, agree = 0.0, 0
            for i in range(0, len(idx), 4096):
                j = torch.as_tensor(idx[i:i + 4096])
                z = logits(x_all[j], m_all[j])
                loss += float(-(y_all[j] * torch.log_softmax(z, 1)).sum())
                agree += int((z.argmax(1) == y_all[j].argmax(1)).sum())
        return loss / len(idx), agree / len(idx)

    best, best_state, bad = float("inf"), None, 0
    for epoch in range(epochs):
        t0 = time.perf_counter()
        perm = rng.permutation(tr)
        body.train()
        for i in range(0, len(perm), batch):
            j = torch.as_tensor(perm[i:i + batch])
            z = logits(x_all[j], m_all[j])
            loss = (-(y_all[j] * torch.log_softmax(z, 1)).sum(1) * w_all[j]).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
        sched.step()
        vloss, vagree = evaluate(val)
        log(f"epoch {epoch + 1}/{epochs}: validation loss {vloss:.4f}, agrees with the "
            f"expert on {vagree:.1%} ({time.perf_counter() - t0:.0f} s)")
        if vloss < best - 1e-4:
            best, bad = vloss, 0
            best_state = [p.detach().clone() for p in params]
        else:
            bad += 1
            if bad >= patience:
                log(f"stopping early: no better validation loss for {patience} epochs")
                break
    with torch.no_grad():
        for p, s in zip(params, best_state, strict=True):
            p.copy_(s)
    linears = [m for m in body if isinstance(m, nn.Linear)] + [head]
    return {"layers": [(m.weight.detach().numpy().astype(np.float32).copy(),
                        m.bias.detach().numpy().astype(np.float32).copy()) for m in linears],
            "activation": "ReLU", "canonical": True}


# --- command line ---------------------------------------------------------------------------

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
    p = argparse.ArgumentParser(prog="widderkopf-distill", description=__doc__.split("\n")[0])
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
    g.add_argument("--policy", default=None, help="a network .npz whose moves replace the "
                                                  "random ones (DAgger)")
    g.add_argument("--expert", choices=("pimc", "pimc-uniform"), default="pimc",
                   help="the labelling search bot: with opponent inference or without")
    g.add_argument("--workers", type=integer(1), default=1)
    t = sub.add_parser("train", help="fit a network to the shards")
    t.add_argument("--data", nargs="+", required=True, help="shard folders")
    t.add_argument("--out", required=True, type=output_file,
                   help="the network file to write (.npz)")
    t.add_argument("--max-shards", type=integer(1), default=None,
                   help="use shards 0..N-1 of each folder only")
    t.add_argument("--hidden", type=integer(1), nargs="+", default=[512, 512, 256])
    t.add_argument("--epochs", type=integer(1), default=40)
    t.add_argument("--batch", type=integer(1), default=512)
    t.add_argument("--lr", type=number(0.0, 1.0, low_open=True), default=1e-3)
    t.add_argument("--tau", type=number(0.0, low_open=True), default=4.0,
                   help="temperature of the soft targets, in card points")
    t.add_argument("--soft", type=number(0.0, 1.0), default=0.5,
                   help="share of the soft targets in the training target")
    t.add_argument("--init", default=None, help="start from this network's weights")
    t.add_argument("--escalation-weight", type=number(0.0), default=1.0,
                   help="loss weight of positions where an escalation or pass is legal")
    t.add_argument("--seed", type=integer(0), default=0)
    v = sub.add_parser("values", help="write exact-value shards for the card-value network "
                                      "(resumable)")
    v.add_argument("--out", required=True, type=output_dir, help="folder of the shards")
    v.add_argument("--shards", type=integer(1), required=True)
    v.add_argument("--seed", type=integer(0), default=0)
    v.add_argument("--games", type=integer(1), default=200, help="games per shard")
    v.add_argument("--tricks", type=integer(1, TRICKS), nargs=2, default=[1, 12],
                   metavar=("LO", "HI"), help="store card decisions with LO..HI tricks left")
    v.add_argument("--policy", default=None,
                   help="the network .npz playing one seat against the heuristic, sampling "
                        "its moves (default: the shipped net)")
    v.add_argument("--random-share", type=number(0.0, 1.0), default=0.05,
                   help="share of random legal moves")
    v.add_argument("--exact-tricks", type=integer(1, TRICKS), default=12,
                   help="exact values with at most this many tricks left; earlier, heuristic "
                        "rollouts down to it, then exact")
    v.add_argument("--workers", type=integer(1), default=1)
    f = sub.add_parser("train-values", help="fit the card-value network; write it with a "
                                            "policy network as one agent file")
    f.add_argument("--data", nargs="+", required=True, help="value shard folders")
    f.add_argument("--policy", required=True,
                   help="the policy network .npz for trumps, discards and escalations")
    f.add_argument("--out", required=True, type=output_file,
                   help="the network file to write (.npz)")
    f.add_argument("--tricks", type=integer(0, TRICKS), default=12,
                   help="the card-value network plays with at most this many tricks left")
    f.add_argument("--max-shards", type=integer(1), default=None)
    f.add_argument("--hidden", type=integer(1), nargs="+", default=[512, 512, 256])
    f.add_argument("--epochs", type=integer(1), default=12)
    f.add_argument("--batch", type=integer(1), default=512)
    f.add_argument("--lr", type=number(0.0, 1.0, low_open=True), default=1e-3)
    f.add_argument("--game-weight", type=number(0.0), default=0.0,
                   help="value = card points + this x game points (0: card points)")
    f.add_argument("--seed", type=integer(0), default=0)
    return p


def _network_file(path) -> Path:
    """``--policy``'s network file, checked to load before any shard is written."""
    path = Path(path)
    if not path.is_file():
        raise UsageError(f"--policy {str(path)!r}: no such file")
    try:
        load_net_agent(path)
    except (OSError, KeyError, ValueError) as err:
        raise UsageError(f"--policy: {err}") from None
    return path


def _values(args) -> int:
    from widderkopf_env.agents.shipped import NET_FILE

    from .value_data import generate_values
    policy = _network_file(NET_FILE if args.policy is None else args.policy)
    lo, hi = args.tricks
    if lo > hi:
        raise UsageError(f"--tricks {lo} {hi}: LO must not exceed HI")
    n = generate_values(args.out, args.shards, args.seed, args.games, (lo, hi), policy,
                        args.random_share, args.exact_tricks, args.workers)
    print(f"wrote {n} positions")
    return 0


def _train_values(args) -> int:
    require_train_extra("widderkopf-distill train-values")
    from .value_data import FIELDS
    from .value_fit import fit_values
    try:
        data = load_shards(args.data, args.max_shards, fields=FIELDS)
        policy = load_policy(args.policy)
    except (FileNotFoundError, OSError, KeyError, ValueError) as err:
        raise UsageError(str(err)) from None
    layers = fit_values(data, tuple(args.hidden), args.epochs, args.batch, args.lr,
                        args.game_weight, args.seed)
    save_policy(policy, args.out, values=(layers, args.tricks))
    print(f"wrote {args.out}")
    return 0


def main(argv=None) -> int:
    p = parser()

    def body() -> int:
        args = p.parse_args(argv)
        if args.command == "values":
            return _values(args)
        if args.command == "train-values":
            return _train_values(args)
        if args.command == "generate":
            if args.policy is not None:
                _network_file(args.policy)
            n = generate(args.out, args.shards, args.seed, args.matches, args.samples,
                         args.mix, args.workers, args.policy, args.expert == "pimc")
            print(f"wrote {n} positions")
            return 0
        require_train_extra("widderkopf-distill train")
        try:
            data = load_shards(args.data, args.max_shards)
            init = load_policy(args.init) if args.init else None
        except (FileNotFoundError, OSError, KeyError, ValueError) as err:
            raise UsageError(str(err)) from None
        print(f"{len(data['action'])} positions")
        weights = train(data, tuple(args.hidden), args.epochs, args.batch, args.lr,
                        args.tau, args.soft, args.seed, init=init,
                        escalation_weight=args.escalation_weight)
        save_policy(weights, args.out)
        print(f"wrote {args.out}")
        return 0

    return run_cli(p, body, lambda _exc: "stopped; the same command resumes (finished "
                                         "shards are kept)")


if __name__ == "__main__":
    sys.exit(main())
