"""Magnetic mirror descent (MMD): MaskablePPO with a pull towards a magnet policy.

:class:`MMD` trains as sb3-contrib's ``MaskablePPO`` with one more term in the loss,
``magnet_coef * KL(pi || magnet)``: the KL divergence of the current policy from the
magnet, exact over the legal actions of each observation of the minibatch (Sokota et
al. 2023; in PPO form as in Rudolph et al. 2025, whose default coefficient is 0.025).
The magnet starts as the initial policy and is replaced by the current policy every
``magnet_every`` updates (one update: the epochs over one rollout; 0: never replaced).

MaskablePPO's ``train`` has no hook for another loss term, and this class copies none
of it: during :meth:`MMD.train` the policy's ``evaluate_actions`` returns, in place of
the entropy, ``ent_coef * entropy - magnet_coef * KL`` per sample, and ``ent_coef`` is
set to 1 for that call, so ``train``'s ``ent_coef * -mean(entropy)`` is
``-ent_coef * mean(entropy) + magnet_coef * mean(KL)`` (tests/train/test_mmd.py checks
the loss against the formula). ``train/entropy_loss`` is logged as in PPO;
``train/magnet_kl`` is the mean KL.

The magnet's weights travel with the model (the ``magnet_weights`` numpy arrays of
``save``), so a checkpoint resumes with its magnet; ``MaskablePPO.load`` still loads a
saved MMD model (as a plain PPO model, e.g. to play it).
"""

from __future__ import annotations

import copy

import numpy as np
import torch as th
from sb3_contrib import MaskablePPO


def masked_kl(p_logits: th.Tensor, q_logits: th.Tensor, masks: th.Tensor) -> th.Tensor:
    """KL(p || q) per row of two categorical distributions given by logits over the legal
    actions ``masks`` (rows of 0/1); illegal actions count as probability 0."""
    legal = masks > 0
    very_low = th.finfo(p_logits.dtype).min
    log_p = th.log_softmax(th.where(legal, p_logits, very_low), dim=-1)
    log_q = th.log_softmax(th.where(legal, q_logits, very_low), dim=-1)
    terms = th.where(legal, log_p.exp() * (log_p - log_q), th.zeros_like(log_p))
    return terms.sum(-1)


class MMD(MaskablePPO):
    """MaskablePPO plus ``magnet_coef * KL(pi || magnet)`` (see the module documentation);
    every other argument is MaskablePPO's."""

    def __init__(self, *args, magnet_coef: float = 0.025, magnet_every: int = 0, **kwargs):
        if magnet_coef < 0 or magnet_every < 0:
            raise ValueError(f"magnet_coef and magnet_every must be >= 0, got {magnet_coef} "
                             f"and {magnet_every}")
        self.magnet_coef, self.magnet_every = float(magnet_coef), int(magnet_every)
        self.magnet_weights: dict | None = None
        self.magnet_updates = 0  # updates since the magnet was last replaced
        super().__init__(*args, **kwargs)

    def _setup_model(self) -> None:
        super()._setup_model()
        self.magnet = copy.deepcopy(self.policy)
        self.magnet.requires_grad_(False)
        if self.magnet_weights is None:  # a new model: the magnet is the initial policy
            self.replace_magnet()
        else:  # loaded: the saved magnet
            self.magnet.load_state_dict({k: th.as_tensor(v)
                                         for k, v in self.magnet_weights.items()})

    def _excluded_save_params(self) -> list[str]:
        return [*super()._excluded_save_params(), "magnet"]

    def replace_magnet(self) -> None:
        """The magnet becomes the current policy."""
        state = self.policy.state_dict()
        self.magnet.load_state_dict(state)
        self.magnet_weights = {k: v.detach().cpu().numpy().copy() for k, v in state.items()}
        self.magnet_updates = 0

    def train(self) -> None:
        ent_coef, kls, entropies = self.ent_coef, [], []
        policy, magnet, coef = self.policy, self.magnet, self.magnet_coef

        def evaluate_actions(obs, actions, action_masks=None):
            dist = policy.get_distribution(obs, action_masks)
            values = policy.predict_values(obs)
            with th.no_grad():
                target = magnet.get_distribution(obs, action_masks).distribution.logits
            masks = th.as_tensor(action_masks, device=obs.device).reshape(target.shape)
            kl = masked_kl(dist.distribution.logits, target, masks)
            entropy = dist.entropy()
            kls.append(kl.mean().item())
            entropies.append(entropy.mean().item())
            return values, dist.log_prob(actions), ent_coef * entropy - coef * kl

        self.ent_coef = 1.0
        policy.evaluate_actions = evaluate_actions  # for this call of train() only
        try:
            super().train()
        finally:
            del policy.evaluate_actions
            self.ent_coef = ent_coef
        self.logger.record("train/entropy_loss", -float(np.mean(entropies)))
        self.logger.record("train/magnet_kl", float(np.mean(kls)))
        self.magnet_updates += 1
        if self.magnet_every and self.magnet_updates >= self.magnet_every:
            self.replace_magnet()


def algorithm(name: str):
    """The model class of ``--algo name``: ``"ppo"`` MaskablePPO, ``"mmd"`` :class:`MMD`."""
    return MMD if name == "mmd" else MaskablePPO
