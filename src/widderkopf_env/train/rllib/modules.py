"""RLModules for Widderkopf on RLlib's new API stack.

:class:`MaskedPPOTorchRLModule` is RLlib's default PPO module (torch) behind an action
mask: it reads ``obs["observations"]``, builds its networks for that ``Box(540)`` and
pushes the logits of illegal actions (``obs["action_mask"] == 0``) to the smallest float,
so no illegal action is ever sampled. RLlib ships such a module only as an example
(``ray.rllib.examples...action_masking_rlm``), which is not a stable import, hence ours.

:class:`HeuristicRLModule` plays :class:`~widderkopf_env.agents.HeuristicAgent` from the
observation alone, as a frozen league member. The observation has no trick history, so
this heuristic does not infer the opponent's voids from the tricks; before the first trick
is complete it plays exactly as ``HeuristicAgent`` (a test checks this).
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np
from ray.rllib.algorithms.ppo.torch.default_ppo_torch_rl_module import (
    DefaultPPOTorchRLModule,
)
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.rl_module import RLModule
from ray.rllib.utils.torch_utils import FLOAT_MIN

from widderkopf_env.cards import HAND_SIZE
from widderkopf_env.observation import NO_TRUMP_ENTRY, piece

OBS_KEYS = ("action_mask", "observations")


def check_masked_space(space) -> None:
    if not (isinstance(space, gym.spaces.Dict) and sorted(space.spaces) == list(OBS_KEYS)):
        raise ValueError(f"this RLModule needs a Dict observation space with keys "
                         f"{list(OBS_KEYS)} (WidderkopfMultiAgentEnv's), got {space!r}")


def _split(batch: dict):
    """``(action_mask, batch with obs = obs["observations"])``; ``batch`` is not changed."""
    obs = batch[Columns.OBS]
    out = dict(batch)
    out[Columns.OBS] = obs["observations"]
    return obs["action_mask"], out


class MaskedPPOTorchRLModule(DefaultPPOTorchRLModule):
    """RLlib's default PPO torch module, with the action mask applied to its logits."""

    def __init__(self, *, observation_space=None, **kwargs):
        check_masked_space(observation_space)
        # The networks are built for the inner Box; setup() puts the Dict space back so
        # that the module (and its checkpoints) describe what the env really gives.
        self._space_with_mask = observation_space
        super().__init__(observation_space=observation_space["observations"], **kwargs)

    def setup(self):
        super().setup()
        self.observation_space = self._space_with_mask

    def _forward(self, batch, **kwargs):
        mask, inner = _split(batch)
        return self._masked(super()._forward(inner, **kwargs), mask)

    def _forward_train(self, batch, **kwargs):
        mask, inner = _split(batch)
        return self._masked(super()._forward_train(inner, **kwargs), mask)

    def compute_values(self, batch, embeddings=None):
        if embeddings is None and isinstance(batch[Columns.OBS], dict):
            batch = _split(batch)[1]
        return super().compute_values(batch, embeddings)

    @staticmethod
    def _masked(out: dict, mask):
        import torch

        out[Columns.ACTION_DIST_INPUTS] = (out[Columns.ACTION_DIST_INPUTS]
                                           + torch.clamp(torch.log(mask), min=FLOAT_MIN))
        return out


def _bits(entries: np.ndarray) -> int:
    """A 0/1 vector as an int bit set (entry i -> bit i)."""
    return int.from_bytes(np.packbits(entries > 0.5, bitorder="little").tobytes(), "little")


def _card(entries: np.ndarray) -> int:
    hit = np.flatnonzero(entries > 0.5)
    return int(hit[0]) if hit.size else -1


class ObservedView:
    """The part of a :class:`~widderkopf_env.view.PlayerView` that an observation holds,
    as the observing player 0 (the observation is relative to its player): what the
    heuristic reads. ``tricks`` is empty: the observation has no trick history."""

    def __init__(self, obs: np.ndarray, mask: np.ndarray):
        self.player, self.opponent = 0, 1
        self.legal = _bits(mask)
        self.phase = int(np.argmax(piece(obs, "phase")))
        self.hand = _bits(piece(obs, "hand"))
        self.my_up, self.opp_up = _bits(piece(obs, "my_up")), _bits(piece(obs, "opp_up"))
        self.my_covered = _bits(piece(obs, "my_covered"))
        self.unseen = _bits(piece(obs, "unseen"))
        suit = int(np.argmax(piece(obs, "trump_suit")))
        self.trump = -1 if suit == NO_TRUMP_ENTRY else suit
        self.level = int(np.argmax(piece(obs, "crack_level")))
        self.dealer = 0 if piece(obs, "roles")[0] > 0.5 else 1  # roles: dealer, chooser, leader
        self.hand_size_opp = int(round(float(piece(obs, "opp_hand_size")[0]) * HAND_SIZE))
        self.lead = _card(piece(obs, "lead"))
        self.tricks = ()
        self.opponent_voids = 0  # no trick history: no void is known

    def legal_actions(self) -> list[int]:
        return [a for a in range(self.legal.bit_length()) if self.legal >> a & 1]


class HeuristicRLModule(RLModule):
    """The heuristic bot as a (not trainable) RLModule; see the module documentation."""

    def setup(self):
        check_masked_space(self.observation_space)
        from widderkopf_env.agents import HeuristicAgent

        self._agent = HeuristicAgent()

    def _forward(self, batch, **kwargs):
        obs = batch[Columns.OBS]
        views = zip(np.asarray(obs["observations"]), np.asarray(obs["action_mask"]), strict=True)
        return {Columns.ACTIONS: np.array([self._agent.act(ObservedView(o, m))
                                           for o, m in views], np.int64)}

    def _forward_train(self, batch, **kwargs):
        raise NotImplementedError("HeuristicRLModule is not trainable; leave it out of "
                                  "config.multi_agent(policies_to_train=...)")
