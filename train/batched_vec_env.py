"""``widderkopf-train --vec-env native``: training on the batched engine.

:class:`NativeTrainingVecEnv` is the SB3 VecEnv of :mod:`widderkopf_env.vector.sb3` with
what :class:`~widderkopf_env.train.opponents.TrainingWrapper` adds around each single env
(reward scaling, ``info["game_points"]`` and ``info["opponent"]`` at the end of an
episode, the crack curriculum's ``set_escalation``, ``env_timing``), all sub-envs at
once. It plays one fixed opponent (``--opponent``; ``"random"`` is vectorised, other bots
run one game at a time), so it does not take ``--self-play`` or ``--warmup-random``
(their opponent pools draw a different opponent per episode and sub-env). It plays the
run's ``--variant`` as the other vec envs do.

A vector step has a fixed numpy cost, so it pays off with many envs, not at the default
16, where ``dummy`` (the default) is quicker; ``python bench/vector.py --ppo`` compares
the two (MaskablePPO, random opponent).
"""

from __future__ import annotations

import time

import numpy as np

from widderkopf_env.cards import ESCALATE
from widderkopf_env.vector.sb3 import WidderkopfSB3VecEnv


class NativeTrainingVecEnv(WidderkopfSB3VecEnv):
    """The training env for a run configuration ``cfg`` (see the module documentation)."""

    def __init__(self, cfg: dict, seed: int):
        if cfg["self_play"] or cfg["warmup_random"]:
            raise ValueError("--vec-env native plays one fixed --opponent: it does not take "
                             "--self-play or --warmup-random (use --vec-env dummy)")
        super().__init__(cfg["n_envs"], opponent=cfg["opponent"], seat="random",
                         reward_shaping=cfg["reward_shaping"], variant=cfg["variant"])
        self.label, self.reward_scale = cfg["opponent"], cfg["reward_scale"]
        self.escalation = True
        self.env_seconds, self.env_steps = 0.0, 0
        self.seed(seed)

    def reset(self):
        t = time.perf_counter()
        obs = super().reset()
        self.env_seconds += time.perf_counter() - t
        return obs

    def step_wait(self):
        t = time.perf_counter()
        obs, rewards, dones, infos = super().step_wait()
        for i in np.flatnonzero(dones):
            info = infos[i]
            info["opponent"] = self.label
            scores = info.get("scores", (0, 0))  # absent after an illegal move
            seat = info["seat"]
            info["game_points"] = float(scores[seat] - scores[1 - seat])
        self.env_seconds += time.perf_counter() - t
        self.env_steps += self.num_envs
        return obs, rewards * np.float32(self.reward_scale), dones, infos

    def action_masks(self) -> np.ndarray:
        """The legal actions; without escalation rights (``set_escalation(False)``) the
        learner may not escalate (it still has a card to play, or pass to answer)."""
        masks = super().action_masks()
        if not self.escalation:
            masks[:, ESCALATE] = 0
        return masks

    def env_method(self, method_name: str, *method_args, indices=None, **method_kwargs) -> list:
        n = len(list(self._get_indices(indices)))
        if method_name == "set_escalation":
            self.escalation = bool(method_args[0])
            return [None] * n
        if method_name == "set_mix":
            mix = method_args[0]
            if mix != {self.label: 1.0}:
                raise ValueError(f"--vec-env native plays only {self.label!r}; got the mix {mix}")
            return [None] * n
        if method_name == "env_timing":  # one row per sub-env, as the single envs give
            return [(self.env_seconds / self.num_envs, self.env_steps // self.num_envs)] * n
        return super().env_method(method_name, *method_args, indices=indices, **method_kwargs)
