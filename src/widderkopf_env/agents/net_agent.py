"""The shipped network's two halves: a policy network and a card-value network, torch-free.

``load_agent("net")`` is a :class:`NetAgent`: the policy network
(:class:`~.numpy_net.PolicySnapshot`) names trumps, discards and decides every
escalation; the card-value network (:class:`CardValues`) plays the cards. The latter
is an MLP that reads the observation in trump-relative order
(:func:`~.canonical.to_canonical`) and the view's card features
(:func:`~.features.card_features`) and gives every card a value: the card points the
player may expect at the end of the hand after playing it, relative to the other cards
(it is fitted by least squares to exact values in the true deals of many games,
``widderkopf-values``; docs/bots.md, "The distilled network"). The agent plays the
legal card of highest value. Both read only the player's view (R8).

Both are stored in one network file (:mod:`.network_file`).
"""

from __future__ import annotations

import numpy as np

from widderkopf_env.cards import ALL_CARDS, ESCALATE, NUM_CARDS, TRICKS, from_bits
from widderkopf_env.game_encoder import encode_view_packed
from widderkopf_env.observation import OBS_SIZE
from widderkopf_env.rules import PLAY

from .canonical import ROLES, to_canonical
from .features import SIZE as FEATURES
from .features import card_features
from .numpy_net import PolicySnapshot, check_layers

__all__ = ["CardValues", "NetAgent"]


class CardValues:
    """The card-value MLP (ReLU): ``values(view, obs)`` -> 36 values by card id."""

    def __init__(self, layers):
        check_layers(layers, OBS_SIZE + FEATURES, NUM_CARDS, "a card-value network")
        self.layers = [(np.ascontiguousarray(np.asarray(w, np.float32).T),
                        np.asarray(b, np.float32)) for w, b in layers]

    def canonical(self, x: np.ndarray) -> np.ndarray:
        """Values in canonical card order of inputs ``[canonical obs, features]``."""
        for w, b in self.layers[:-1]:
            x = np.maximum(x @ w + b, 0.0)
        w, b = self.layers[-1]
        return x @ w + b

    def values(self, view, obs: np.ndarray) -> np.ndarray:
        """The value of every card (by card id) at ``view``, whose observation is ``obs``;
        meaningful for the legal cards only. Trumps must be named."""
        x = np.concatenate([to_canonical(obs), card_features(view)])
        return self.canonical(x)[ROLES[view.trump]]

    def values_of(self, views, obs: np.ndarray) -> np.ndarray:
        """:meth:`values` of many views in one forward pass (``obs``: their observations,
        a row each): ``(len(views), 36)`` values by card id."""
        x = np.concatenate([to_canonical(obs), np.stack([card_features(v) for v in views])],
                           axis=1)
        trumps = np.fromiter((v.trump for v in views), np.int64, len(views))
        return np.take_along_axis(self.canonical(x), ROLES[trumps], axis=1)


class NetAgent:
    """Policy network for trumps, discards and escalations (and the cards while more
    than ``tricks`` tricks are left); card-value network for the cards. Deterministic."""

    def __init__(self, policy: PolicySnapshot, values: CardValues, tricks: int = TRICKS,
                 name: str = "net"):
        if isinstance(tricks, bool) or not isinstance(tricks, int) or not 0 <= tricks <= TRICKS:
            raise ValueError(f"tricks must be an int in 0..{TRICKS}, got {tricks!r}")
        self.policy, self.card_values, self.tricks, self.name = policy, values, tricks, name

    def reset(self, seed: int | None = None) -> None:
        self.policy.reset(seed)

    def plays_cards(self, view) -> bool:
        """Whether the card-value network (not the policy) picks the card at ``view``."""
        return view.phase == PLAY and TRICKS - len(view.tricks) <= self.tricks

    def act(self, view) -> int:
        legal = view.legal
        if not self.plays_cards(view) or not legal:
            return self.policy.act(view)
        if legal >> ESCALATE & 1:
            action = self.policy.act(view)
            if action == ESCALATE:
                return action
        cards = legal & ALL_CARDS
        if cards & (cards - 1) == 0:
            return cards.bit_length() - 1
        v = self.card_values.values(view, encode_view_packed(view)[0])
        return max(from_bits(cards), key=v.__getitem__)  # ties: the lowest id
