"""``CanonicalPolicy``: MaskablePPO's MLP policy, seeing the cards in trump-relative order.

The network reads the observation with every 36-card piece permuted into the canonical
order of :mod:`widderkopf_env.agents.canonical` (by role: the 15 trumps highest first, then the three plain
suits), and its card logits are permuted back into card ids before masking. So a lesson
learnt under one trump suit holds under the other three (four times the data per
situation), while the model's interface is exactly that of a plain ``MlpPolicy``: the
same observation, action ids and masks, ``model.predict(obs, action_masks=...)`` as
usual. Saved models load with ``MaskablePPO.load`` wherever this module is importable.

Escalation is a yes/no question asked alongside the card choice (R11). Its logit is
``e + logsumexp(legal card logits)`` (:func:`with_escalate_logit`, the torch twin of
:func:`widderkopf_env.agents.numpy_net.add_escalate_logit`), so that
``P(escalate) = sigmoid(e)`` whatever the card logits are: the decision has its own
scale, starts at 50% and does not fade away just because the card logits grow as card
play is learnt (with a plain softmax head the escalate probability collapses early in
training, while cracking still loses, and does not come back). When no card is legal
(answering a crack) it competes with pass as usual.
"""

from __future__ import annotations

import torch
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor, MlpExtractor

from widderkopf_env.agents.canonical import IN_INDEX, OUT_INDEX, TRUMP_SUIT_AT, ZERO_MASK
from widderkopf_env.cards import ESCALATE, NUM_CARDS
from widderkopf_env.observation import OBS_SIZE, OFFSETS

_IN = torch.as_tensor(IN_INDEX)
_OUT = torch.as_tensor(OUT_INDEX)
_ZERO = torch.as_tensor(ZERO_MASK)
_T = 5  # trump suit C, S, H, D or none: the one-hot carried next to the features
_LEGAL = OFFSETS["legal_cards"][0]
_EXTRA = _T + NUM_CARDS  # the policy latent carries the trump one-hot and the legal cards


def with_escalate_logit(z: torch.Tensor, legal_cards: torch.Tensor) -> torch.Tensor:
    """Logits ``(n, 42)`` in canonical order with the escalate logit
    ``e + logsumexp(legal card logits)`` (see the module documentation); ``legal_cards``:
    booleans ``(n, 36)``. The numpy runtime computes the same
    (:func:`widderkopf_env.agents.numpy_net.add_escalate_logit`)."""
    # finite fill: no NaN gradients when no card is legal (that branch is unused then)
    lse = torch.logsumexp(z[:, :NUM_CARDS].masked_fill(~legal_cards, -1e9), dim=1)
    esc = z[:, ESCALATE] + torch.where(legal_cards.any(dim=1), lse, torch.zeros_like(lse))
    return torch.cat([z[:, :ESCALATE], esc[:, None], z[:, ESCALATE + 1:]], dim=1)


class CanonicalExtractor(BaseFeaturesExtractor):
    """Observation -> ``[canonical observation, trump one-hot (5)]``."""

    def __init__(self, observation_space):
        super().__init__(observation_space, features_dim=OBS_SIZE + _T)

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        t = obs[:, TRUMP_SUIT_AT:TRUMP_SUIT_AT + _T].argmax(dim=1)
        x = torch.gather(obs, 1, _IN.to(obs.device)[t]) * _ZERO.to(obs.device)
        return torch.cat([x, torch.nn.functional.one_hot(t, _T).to(obs.dtype)], dim=1)


class CanonicalMlpExtractor(MlpExtractor):
    """The usual separate policy and value MLPs on the canonical observation; the policy
    latent carries the trump one-hot and the (canonical) legal cards along for the head."""

    def forward_actor(self, features: torch.Tensor) -> torch.Tensor:
        x = features[:, :-_T]
        return torch.cat([self.policy_net(x), features[:, -_T:],
                          x[:, _LEGAL:_LEGAL + NUM_CARDS]], dim=1)

    def forward_critic(self, features: torch.Tensor) -> torch.Tensor:
        return self.value_net(features[:, :-_T])


class CanonicalPolicy(MaskableActorCriticPolicy):
    """See the module documentation. Takes the usual ``net_arch`` and ``activation_fn``."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("features_extractor_class", CanonicalExtractor)
        super().__init__(*args, **kwargs)

    def _build_mlp_extractor(self) -> None:
        self.mlp_extractor = CanonicalMlpExtractor(
            OBS_SIZE, net_arch=self.net_arch, activation_fn=self.activation_fn,
            device=self.device)

    def _get_action_dist_from_latent(self, latent_pi: torch.Tensor):
        z = self.action_net(latent_pi[:, :-_EXTRA])  # canonical order
        t = latent_pi[:, -_EXTRA:-NUM_CARDS].argmax(dim=1)
        z = with_escalate_logit(z, latent_pi[:, -NUM_CARDS:] > 0.5)
        logits = torch.gather(z, 1, _OUT.to(z.device)[t])
        return self.action_dist.proba_distribution(action_logits=logits)
