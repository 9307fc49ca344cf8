"""Distil search into a policy network: imitation of PIMC's labels.

:func:`train` fits a policy network to PIMC-labelled shards (:mod:`.distill_data`): the
shipped PPO policy's architecture (canonical, trump-relative input; an MLP; escalation as
its own yes/no logit, :func:`~widderkopf_env.train.torch_policy.with_escalate_logit`),
trained by masked cross-entropy against a target that mixes the expert's move with a
softmax of its per-action scores (:func:`targets`, ``tau`` card points), on the CPU with
torch (:func:`~widderkopf_env.train.fit.fit`). Early stopping on a held-out 5% of the
positions. The rows are held as :class:`PolicyRows`, compact and exact (the observation as
:class:`~.compact.CompactRows`), read shard by shard (:func:`load_policy_rows`); each
minibatch's inputs and targets are made when it is drawn. The result is the weights dict that
:class:`~widderkopf_env.agents.numpy_net.PolicySnapshot` plays without torch.

The command line is ``widderkopf-distill`` (:mod:`.distill_cli`).
"""

from __future__ import annotations

import numpy as np

from widderkopf_env.agents.canonical import OUT_INDEX, to_canonical, trump_of
from widderkopf_env.cards import ESCALATE, NUM_ACTIONS, NUM_CARDS, PASS
from widderkopf_env.observation import OBS_SIZE

from .compact import OBS_FLAGS, CompactRows

__all__ = ["PolicyRows", "load_policy_rows", "targets", "train"]


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


class PolicyRows:
    """The rows of a policy fit, compact: ``obs`` (a :class:`~.compact.CompactRows` of the
    observations), ``mask`` and ``action`` as the shards hold them, and the expert's
    scores ``values`` of only the rows that have any (``scored``: each row's index into
    them, -1 for none; the heuristic expert scores nothing). :meth:`batch` gives rows as
    the shards' arrays."""

    def __init__(self, rows: int, scored: int):
        self.obs = CompactRows(rows, OBS_SIZE, OBS_FLAGS)
        self.mask = np.zeros((rows, NUM_ACTIONS), np.int8)
        self.action = np.zeros(rows, np.int16)
        self.scored = np.full(rows, -1, np.int32)
        self.values = np.zeros((scored, NUM_ACTIONS), np.float32)
        self._next = 0  # the next free row of ``values``

    def __len__(self) -> int:
        return len(self.action)

    @property
    def nbytes(self) -> int:
        """The memory the rows take."""
        return self.obs.nbytes + sum(a.nbytes for a in (self.mask, self.action, self.scored,
                                                        self.values))

    def put(self, at: int, obs, mask, action, values) -> None:
        """Rows ``at..`` from the arrays of a shard (``distill_data.FIELDS``)."""
        end = at + len(obs)
        self.obs.put(at, np.asarray(obs, np.float32))
        self.mask[at:end], self.action[at:end] = mask, action
        has = np.flatnonzero(~np.isnan(values).all(axis=1))
        if self._next + len(has) > len(self.values):
            raise ValueError(f"more scored rows than the {len(self.values)} made room for")
        self.scored[at + has] = np.arange(self._next, self._next + len(has))
        self.values[self._next:self._next + len(has)] = values[has]
        self._next += len(has)

    def batch(self, rows) -> dict[str, np.ndarray]:
        """Rows ``rows`` as the arrays :func:`~.shards.load_shards` gives (``obs``
        float32, ``mask``, ``action``, ``values``)."""
        rows = np.asarray(rows)
        values = np.full((len(rows), NUM_ACTIONS), np.nan, np.float32)
        at = self.scored[rows]
        values[at >= 0] = self.values[at[at >= 0]]
        return {"obs": self.obs.get(rows), "mask": self.mask[rows],
                "action": self.action[rows], "values": values}

    @classmethod
    def of(cls, data: dict, chunk: int = 65536) -> PolicyRows:
        """From arrays in memory (:func:`~.shards.load_shards`)."""
        scored = int((~np.isnan(data["values"]).all(axis=1)).sum())
        out = cls(len(data["action"]), scored)
        for i in range(0, len(out), chunk):
            out.put(i, *(data[f][i:i + chunk] for f in ("obs", "mask", "action", "values")))
        return out


def load_policy_rows(dirs, max_shards: int | None = None) -> PolicyRows:
    """The shards of the folders ``dirs`` (:func:`~.shards.load_shards`' choice),
    read one at a time into a :class:`PolicyRows`."""
    from .shards import read_shards

    def count(z) -> tuple[int, int]:  # rows, rows the expert scored
        values = z["values"]
        return len(values), int((~np.isnan(values).all(axis=1)).sum())

    return read_shards(dirs, max_shards, ("obs", "mask", "action", "values"),
                       lambda counts: PolicyRows(*np.sum(counts, axis=0, dtype=int)), count)


def train(data: dict, hidden=(512, 512, 256), epochs: int = 40, batch: int = 512,
          lr: float = 1e-3, tau: float = 4.0, soft: float = 0.5, seed: int = 0,
          patience: int = 4, init=None, escalation_weight: float = 1.0, log=print) -> dict:
    """Fit a network to ``data`` (:func:`load_policy_rows`, or the arrays of
    :func:`~.shards.load_shards`); returns the
    weights dict of :class:`~widderkopf_env.agents.numpy_net.PolicySnapshot` (canonical,
    ReLU). ``init``: a weights dict of the same shape to start from (e.g. the shipped PPO policy); positions where an
    escalation or a pass is legal weigh ``escalation_weight`` in the loss."""
    import torch

    from .fit import fit, layer_arrays, linear_layers, relu_mlp, start
    from .torch_policy import with_escalate_logit

    torch.manual_seed(seed)
    rows = data if isinstance(data, PolicyRows) else PolicyRows.of(data)

    def tensors(j):  # a batch's inputs, targets, legal moves and weights, made when drawn
        b = rows.batch(j)
        obs = b["obs"]
        y = _to_canonical_targets(targets(b, tau, soft), obs)
        legal = _to_canonical_targets(b["mask"].astype(np.float32), obs) > 0.5
        crack = (b["mask"][:, ESCALATE] > 0) | (b["mask"][:, PASS] > 0)
        w = np.where(crack, escalation_weight, 1.0).astype(np.float32)
        return tuple(torch.as_tensor(a) for a in (to_canonical(obs), y, legal, w))

    n = len(rows)
    rng = np.random.default_rng(seed)
    order = rng.permutation(n)
    n_val = max(1, n // 20)
    val, tr = order[:n_val], order[n_val:]

    body, head = relu_mlp(rows.obs.width, hidden, NUM_ACTIONS)
    if init is not None:
        start(linear_layers(body, head), init["layers"])

    def logits(x, legal):
        z = with_escalate_logit(head(body(x)), legal[:, :NUM_CARDS])
        return z.masked_fill(~legal, -1e9)

    def batch_loss(j):
        x, y, legal, w = tensors(j.numpy())
        z = logits(x, legal)
        return (-(y * torch.log_softmax(z, 1)).sum(1) * w).mean()

    def held_out():
        with torch.no_grad():
            loss, agree = 0.0, 0
            for i in range(0, len(val), 4096):
                x, y, legal, _w = tensors(val[i:i + 4096])
                z = logits(x, legal)
                loss += float(-(y * torch.log_softmax(z, 1)).sum())
                agree += int((z.argmax(1) == y.argmax(1)).sum())
        loss, agree = loss / len(val), agree / len(val)
        return loss, f"validation loss {loss:.4f}, agrees with the expert on {agree:.1%}"

    fit([*body.parameters(), *head.parameters()], batch_loss, held_out, tr, rng, epochs,
        batch, lr, patience, "validation loss", log)
    return {"layers": layer_arrays(body, head), "activation": "ReLU", "canonical": True}
