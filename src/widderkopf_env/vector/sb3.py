"""A Stable-Baselines3 ``VecEnv`` over the batched engine (needs the ``[train]`` extra).

:class:`WidderkopfSB3VecEnv` exposes a :class:`~widderkopf_env.vector.WidderkopfVectorEnv`
the way SB3 expects: ``reset() -> obs``, ``step_wait() -> (obs, rewards float32, dones,
infos)`` with one info dict per sub-env and ``infos[i]["terminal_observation"]`` when
sub-env ``i`` ended (SB3 resets in the same step, as the vector env does). sb3-contrib's
``MaskablePPO`` reads the masks through ``env_method("action_masks")``, which returns
one (42,) int8 mask per sub-env::

    from sb3_contrib import MaskablePPO
    from widderkopf_env.vector.sb3 import WidderkopfSB3VecEnv

    env = WidderkopfSB3VecEnv(64, opponent="random")
    model = MaskablePPO("MlpPolicy", env).learn(100_000)

``seed(s)`` (or SB3's ``set_random_seed``) then ``reset()`` is the vector env's
``reset(seed=s)``: sub-env ``i`` gets the match of ``Game.new(seed=s + i)``, and every
later episode is dealt from a generator seeded with ``s``.

Copies: ``reset`` and ``step_wait`` always return fresh observation arrays, as SB3's own
``DummyVecEnv`` does: SB3's rollout stores the previous observation after the next
``step`` has returned, so a buffer rewritten in place would be stored as the new one. The
wrapped vector env runs with ``copy=False`` and this wrapper copies once; it takes no
``copy`` argument.

The env has no per-sub-env Python
objects: ``get_attr`` and ``env_method`` serve the vector env's attributes and methods
(``action_masks`` per sub-env, anything else called once and returned for each index).
"""

from __future__ import annotations

import numpy as np
from stable_baselines3.common.vec_env import VecEnv

from .env import WidderkopfVectorEnv

_RESULT_KEYS = ("winner", "value", "card_points", "scores", "crack_level", "schneider",
                "schwarz")


class WidderkopfSB3VecEnv(VecEnv):
    """N Widderkopf games as one SB3 ``VecEnv``; keyword arguments are those of
    :class:`~widderkopf_env.vector.WidderkopfVectorEnv`."""

    def __init__(self, num_envs: int, **kwargs):
        if "copy" in kwargs:
            raise TypeError("WidderkopfSB3VecEnv takes no copy argument: it always returns "
                            "fresh arrays, which SB3's rollouts need")
        self.venv = WidderkopfVectorEnv(num_envs, copy=False, **kwargs)
        super().__init__(num_envs, self.venv.single_observation_space,
                         self.venv.single_action_space)
        self._actions = None

    def reset(self):
        seeds = None if any(s is None for s in self._seeds) else list(self._seeds)
        if seeds is not None and seeds == [seeds[0] + i for i in range(self.num_envs)]:
            seeds = seeds[0]  # what seed(s) sets: the vector env's reset(seed=s)
        obs, _ = self.venv.reset(seed=seeds)
        obs = obs.copy()  # the vector env's buffer (copy=False): SB3 keeps the last obs
        self._reset_seeds()
        self.reset_infos = [{} for _ in range(self.num_envs)]
        return obs

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions).reshape(self.num_envs).astype(np.int64)

    def step_wait(self):
        obs, reward, terminated, truncated, info = self.venv.step(self._actions)
        obs = obs.copy()  # the vector env's buffer: SB3 stores the previous obs later
        dones = terminated | truncated
        infos = [{} for _ in range(self.num_envs)]
        if dones.any():
            final_obs, final_info = info["final_obs"], info["final_info"]
            for i in np.flatnonzero(dones):
                entry = infos[i]
                entry["terminal_observation"] = final_obs[i]
                entry["TimeLimit.truncated"] = bool(truncated[i] and not terminated[i])
                for key in ("seat", "player"):  # whose episode it was (opponent / self-play)
                    if key in final_info:
                        entry[key] = int(final_info[key][i])
                for key in _RESULT_KEYS:
                    if final_info.get("_" + key, dones)[i] and key in final_info:
                        entry[key] = final_info[key][i]
        return obs, reward.astype(np.float32), dones, infos

    def action_masks(self) -> np.ndarray:
        """(N, 42) int8: the legal actions of every sub-env (1 = legal)."""
        return self.venv.action_masks()

    def close(self) -> None:
        self.venv.close()

    def get_attr(self, attr_name: str, indices=None) -> list:
        value = getattr(self.venv, attr_name)  # AttributeError when there is none
        return [value for _ in self._get_indices(indices)]

    def set_attr(self, attr_name: str, value, indices=None) -> None:
        raise AttributeError(f"WidderkopfSB3VecEnv has no per-sub-env attributes to set "
                             f"({attr_name!r})")

    def env_method(self, method_name: str, *method_args, indices=None, **method_kwargs) -> list:
        indices = list(self._get_indices(indices))
        if method_name == "action_masks":
            masks = self.action_masks()
            return [masks[i] for i in indices]
        result = getattr(self.venv, method_name)(*method_args, **method_kwargs)
        return [result for _ in indices]

    def env_is_wrapped(self, wrapper_class, indices=None) -> list[bool]:
        return [False for _ in self._get_indices(indices)]
