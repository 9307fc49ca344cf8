"""Policy snapshots: a trained MaskablePPO actor run as plain numpy arrays.

A snapshot is the actor half of an SB3 ``MlpPolicy`` (hidden layers + action head) copied
out of torch (:func:`widderkopf_env.train.export.export_policy`). :class:`PolicySnapshot`
runs its forward pass in numpy, so the shipped policy, self-play opponents inside
subprocess envs and the arena's evaluation workers need neither torch nor a model file: a
snapshot is a few hundred KB of arrays and pickles cheaply.

The forward pass is the one of the torch policy (observation, put in trump-relative order
for a canonical policy -> Linear -> activation -> ... -> action logits, cards put back in
id order; illegal actions masked out), so in deterministic mode a snapshot picks exactly
the action ``model.predict(obs, action_masks=mask, deterministic=True)`` picks
(``tests/train/test_train.py`` checks this).
"""

from __future__ import annotations

import numpy as np

from widderkopf_env.cards import ESCALATE, NUM_ACTIONS, NUM_CARDS
from widderkopf_env.game_encoder import encode_view_packed
from widderkopf_env.observation import OBS_SIZE, OFFSETS

from .canonical import from_canonical, to_canonical, trump_of

_LEGAL = OFFSETS["legal_cards"][0]

#: The activations a snapshot can run, by the torch module's name.
ACTIVATIONS = {
    "Tanh": np.tanh,
    "ReLU": lambda x: np.maximum(x, 0.0, out=x),
}


def add_escalate_logit(z: np.ndarray, legal_cards: np.ndarray) -> np.ndarray:
    """The escalate logit of a canonical policy (R11), ``e + logsumexp(legal card logits)``.

    Escalation is a yes/no question asked alongside the card choice, so with the head's
    raw escalate output ``e``, ``P(escalate) = sigmoid(e)`` whatever the card logits are:
    the decision has its own scale and does not fade as the card logits grow. Where no
    card is legal (answering a crack) ``e`` stays as it is and competes with pass.

    ``z``: logits ``(..., 42)`` in the network's (canonical) order, changed in place and
    returned; ``legal_cards``: booleans ``(..., 36)`` in the same order. The torch twin
    that training differentiates is ``widderkopf_env.train.torch_policy.with_escalate_logit``
    (``tests/train/test_train.py`` checks the two agree).
    """
    cards = np.where(legal_cards, z[..., :NUM_CARDS], -np.inf)
    top = cards.max(axis=-1, keepdims=True)
    has = np.isfinite(top[..., 0])
    top = np.where(np.isfinite(top), top, 0.0)
    with np.errstate(divide="ignore"):  # log(0) where no card is legal: not used
        lse = top[..., 0] + np.log(np.exp(cards - top).sum(axis=-1))
    z[..., ESCALATE] += np.where(has, lse, 0.0)
    return z


def check_layers(layers, inputs: int, outputs: int, what: str) -> None:
    """Raise ``ValueError`` unless ``layers`` (``(W, b)`` pairs, ``W`` as ``(out, in)``)
    chain from ``inputs`` to ``outputs`` numbers, saying where they do not."""
    if not layers:
        raise ValueError(f"{what} has no layers")
    width = inputs
    for i, (w, b) in enumerate(layers):
        w, b = np.asarray(w), np.asarray(b)
        if w.dtype.kind != "f" or b.dtype.kind != "f":
            raise ValueError(f"{what}: layer {i} holds {w.dtype}/{b.dtype} arrays, not floats")
        if w.ndim != 2 or w.shape[1] != width or b.shape != (w.shape[0],):
            raise ValueError(f"{what}: layer {i} has weights {w.shape} and bias {b.shape}; "
                             f"it should take {width} inputs (weights (n, {width}), bias (n,))")
        width = w.shape[0]
    if width != outputs:
        raise ValueError(f"{what} gives {width} outputs, {outputs} expected")


def check_policy_weights(weights: dict, what: str = "the policy") -> None:
    """Raise ``ValueError`` unless ``weights`` is a policy network this module runs: layers
    from the observation (``OBS_SIZE``) to the 42 actions and a known activation."""
    if weights.get("activation") not in ACTIVATIONS:
        raise ValueError(f"{what}: activation {weights.get('activation')!r} is none of "
                         f"{sorted(ACTIVATIONS)}")
    check_layers(weights.get("layers"), OBS_SIZE, NUM_ACTIONS, what)


class PolicySnapshot:
    """An Agent playing a snapshot of the learner's policy, torch-free.

    ``deterministic=True`` plays the most probable legal action (what evaluation uses);
    otherwise it samples from the masked softmax with its own seeded generator (what
    self-play opponents use, so they are not trivially predictable).
    """

    def __init__(self, weights: dict, deterministic: bool = False, name: str = "ppo-snapshot",
                 seed: int | None = None):
        check_policy_weights(weights)
        self.layers = [(np.ascontiguousarray(w.T), b) for w, b in weights["layers"]]
        self.activation = weights["activation"]
        self.canonical = weights.get("canonical", False)
        self.deterministic = deterministic
        self.name = name
        self._rng = np.random.default_rng(seed)

    def reset(self, seed: int | None = None) -> None:
        self._rng = np.random.default_rng(seed)

    def logits(self, obs: np.ndarray) -> np.ndarray:
        """Unmasked action logits of one observation or a batch."""
        act = ACTIVATIONS[self.activation]
        x = inp = to_canonical(obs) if self.canonical else obs
        for w, b in self.layers[:-1]:
            x = act(x @ w + b)
        w, b = self.layers[-1]
        z = x @ w + b
        if not self.canonical:
            return z
        z = add_escalate_logit(z, inp[..., _LEGAL:_LEGAL + NUM_CARDS] > 0.5)
        return from_canonical(z, trump_of(obs))

    def act(self, view) -> int:
        obs, mask = encode_view_packed(view)
        legal = np.flatnonzero(mask)
        if legal.size == 0:
            raise ValueError(f"player {view.player} has no legal action (not their turn)")
        if legal.size == 1:
            return int(legal[0])
        z = self.logits(obs)[legal]
        if self.deterministic:
            return int(legal[int(np.argmax(z))])
        p = np.exp(z - z.max())
        p /= p.sum()
        return int(legal[int(self._rng.choice(legal.size, p=p))])
