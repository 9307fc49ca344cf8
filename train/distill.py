"""Distil search into a policy network: imitation of PIMC's labels.

:func:`train` fits a policy network to PIMC-labelled shards (:mod:`.distill_data`): the
shipped PPO policy's architecture (canonical, trump-relative input; an MLP; escalation as
its own yes/no logit, :func:`~widderkopf_env.train.torch_policy.with_escalate_logit`),
trained by masked cross-entropy against a target that mixes the expert's move with a
softmax of its per-action scores (:func:`targets`, ``tau`` card points), on the CPU with
torch (:func:`~widderkopf_env.train.fit.fit`). Early stopping on a held-out 5% of the
positions. The result is the weights dict that
:class:`~widderkopf_env.agents.numpy_net.PolicySnapshot` plays without torch.

The command line is ``widderkopf-distill`` (:mod:`.distill_cli`).
"""

from __future__ import annotations

import numpy as np

from widderkopf_env.agents.canonical import OUT_INDEX, to_canonical, trump_of
from widderkopf_env.cards import ESCALATE, NUM_ACTIONS, NUM_CARDS, PASS

__all__ = ["targets", "train"]


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

    from .fit import fit, layer_arrays, linear_layers, relu_mlp, start
    from .torch_policy import with_escalate_logit

    torch.manual_seed(seed)
    obs = np.asarray(data["obs"], np.float32)

    def x(rows):  # the canonical inputs of a batch, made when it is drawn (no whole copy)
        return torch.as_tensor(to_canonical(obs[np.asarray(rows)]))

    y_all = torch.as_tensor(_to_canonical_targets(targets(data, tau, soft), obs))
    m_all = torch.as_tensor(_to_canonical_targets(data["mask"].astype(np.float32), obs) > 0.5)
    crack = (data["mask"][:, ESCALATE] > 0) | (data["mask"][:, PASS] > 0)
    w_all = torch.as_tensor(np.where(crack, escalation_weight, 1.0).astype(np.float32))
    n = len(obs)
    rng = np.random.default_rng(seed)
    order = rng.permutation(n)
    n_val = max(1, n // 20)
    val, tr = order[:n_val], order[n_val:]

    body, head = relu_mlp(obs.shape[1], hidden, NUM_ACTIONS)
    if init is not None:
        start(linear_layers(body, head), init["layers"])

    def logits(x, legal):
        z = with_escalate_logit(head(body(x)), legal[:, :NUM_CARDS])
        return z.masked_fill(~legal, -1e9)

    def batch_loss(j):
        z = logits(x(j), m_all[j])
        return (-(y_all[j] * torch.log_softmax(z, 1)).sum(1) * w_all[j]).mean()

    def held_out():
        with torch.no_grad():
            loss, agree = 0.0, 0
            for i in range(0, len(val), 4096):
                j = torch.as_tensor(val[i:i + 4096])
                z = logits(x(j), m_all[j])
                loss += float(-(y_all[j] * torch.log_softmax(z, 1)).sum())
                agree += int((z.argmax(1) == y_all[j].argmax(1)).sum())
        loss, agree = loss / len(val), agree / len(val)
        return loss, f"validation loss {loss:.4f}, agrees with the expert on {agree:.1%}"

    fit([*body.parameters(), *head.parameters()], batch_loss, held_out, tr, rng, epochs,
        batch, lr, patience, "validation loss", log)
    return {"layers": layer_arrays(body, head), "activation": "ReLU", "canonical": True}
