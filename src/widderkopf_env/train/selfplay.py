"""``widderkopf-train --self-play-symmetric``: one policy plays both seats.

:class:`SymmetricSelfPlayVecEnv` is the batched engine in self-play
(:class:`~widderkopf_env.vector.WidderkopfVectorEnv` with ``opponent="self"``): every
decision of both seats of every game is one step of the learner, seen from the player to
act, and its reward is what that move earned the mover. No bot is needed and every
decision trains the one policy.

Consecutive steps of one game alternate between the seats, so SB3's advantage estimate
(one trajectory per sub-env) would bootstrap a seat's step from the other seat's value.
:class:`SeatRolloutBuffer` keeps who moved at each step and computes GAE per seat: a
seat's transition runs from its move to its next move in the same game (or to the end of
the hand), its reward is everything the seat earned in between (its own move's reward and
minus the other seat's: the rewards are zero-sum), and it bootstraps from its own next
value. A seat still playing when the rollout ends bootstraps from the value of the last
observation: its own if it is to act, else the negated value of the other seat's view.

:func:`attach` links a model's buffer to its env (call it after building or loading the
model). The periodic evaluations still play the bots (``--eval-every``): they measure,
they do not train.
"""

from __future__ import annotations

import numpy as np
from sb3_contrib.common.maskable.buffers import MaskableRolloutBuffer

from .batched_vec_env import BatchedTrainingVecEnv

#: The label of self-play episodes in the per-opponent statistics.
SELF = "self"


class SymmetricSelfPlayVecEnv(BatchedTrainingVecEnv):
    """The self-play training env of a run configuration ``cfg``: ``cfg.n_envs`` games
    of ``cfg.variant``, rewards scaled by ``cfg.reward_scale``.

    ``movers`` (N,) is who made each game's move of the last step; ``to_act`` (N,) who
    acts on the observations the last step (or reset) returned. At the end of an episode
    ``info["game_points"]`` is the last mover's result and ``info["opponent"]`` is
    :data:`SELF`."""

    def __init__(self, cfg, seed: int):
        super().__init__(cfg.n_envs, opponent="self", reward_shaping=cfg.reward_shaping,
                         variant=cfg.variant)
        self.reward_scale = cfg.reward_scale
        self.movers = np.zeros(self.num_envs, np.int64)
        self.seed(seed)

    @property
    def to_act(self) -> np.ndarray:
        return self.venv.game.current.astype(np.int64)

    SEAT_KEY = "player"  # the last mover's result

    def ended_opponent(self, i: int) -> str:
        return SELF

    def step_async(self, actions: np.ndarray) -> None:
        self.movers = self.to_act.copy()
        super().step_async(actions)

    def set_mix(self, mix: dict[str, float]) -> None:
        """Nothing to do: the opponent is always the learner itself."""


class SeatRolloutBuffer(MaskableRolloutBuffer):
    """MaskablePPO's rollout buffer with the advantages of a two-seat self-play env,
    computed per seat (see the module documentation). Needs :meth:`attach` to an env with
    ``movers`` and ``to_act`` (:class:`SymmetricSelfPlayVecEnv`) before the rollouts."""

    source = None

    def attach(self, env) -> None:
        self.source = env

    def reset(self) -> None:
        super().reset()
        self.movers = np.zeros((self.buffer_size, self.n_envs), np.int64)

    def add(self, *args, **kwargs) -> None:
        if self.source is None:
            raise RuntimeError("SeatRolloutBuffer: attach() it to its self-play env first")
        self.movers[self.pos] = self.source.movers
        super().add(*args, **kwargs)

    def compute_returns_and_advantage(self, last_values, dones: np.ndarray) -> None:
        last = last_values.clone().cpu().numpy().flatten()
        self.advantages = seat_advantages(
            self.rewards, self.values, self.movers, self.episode_starts, dones.astype(bool),
            last, np.asarray(self.source.to_act), self.gamma, self.gae_lambda)
        self.returns = self.advantages + self.values


def seat_advantages(rewards, values, movers, starts, dones, last_values, to_act,
                    gamma: float, lam: float) -> np.ndarray:
    """GAE(``lam``) per seat of a (T, N) rollout of a two-seat zero-sum self-play env:
    ``rewards[t]`` the mover's reward of step ``t``, ``values[t]`` the mover's value of
    its observation, ``movers[t]`` who moved, ``starts[t]`` whether observation ``t``
    began an episode, ``dones`` whether the last step ended one, ``last_values`` the
    value of the observations after the last step, seen by ``to_act``. Returns the
    (T, N) advantages; ``gamma`` discounts once per move of the seat."""
    steps, n = rewards.shape
    rows = np.arange(n)
    next_value = np.zeros((n, 2))
    next_value[rows, to_act] = last_values
    next_value[rows, 1 - to_act] = -last_values  # zero-sum: the other seat's view, negated
    next_adv, pending = np.zeros((n, 2)), np.zeros((n, 2))
    out = np.zeros((steps, n), np.float32)
    for t in reversed(range(steps)):
        ended = dones if t == steps - 1 else starts[t + 1].astype(bool)
        next_value[ended], next_adv[ended], pending[ended] = 0.0, 0.0, 0.0
        m, r = movers[t], rewards[t]
        pending[rows, m] += r
        pending[rows, 1 - m] -= r
        delta = pending[rows, m] + gamma * next_value[rows, m] - values[t]
        adv = delta + gamma * lam * next_adv[rows, m]
        out[t] = adv
        next_value[rows, m], next_adv[rows, m], pending[rows, m] = values[t], adv, 0.0
    return out


def attach(model, env) -> None:
    """Link ``model``'s rollout buffer to its self-play ``env`` (a no-op for another
    buffer)."""
    if isinstance(model.rollout_buffer, SeatRolloutBuffer):
        model.rollout_buffer.attach(env)
