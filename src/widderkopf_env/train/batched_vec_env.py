"""``widderkopf-train --vec-env native``: training on the batched engine.

:class:`NativeTrainingVecEnv` is the SB3 VecEnv of :mod:`widderkopf_env.vector.sb3` with
what :class:`~widderkopf_env.train.opponents.TrainingWrapper` adds around each single env
(reward scaling, ``info["game_points"]`` and ``info["opponent"]`` at the end of an
episode, the crack curriculum's ``set_escalation``, ``env_timing``), all sub-envs at
once. It plays the run's ``--variant`` as the other vec envs do.

Its opponent is ``--opponent`` (``"random"`` is vectorised, other bots run one game at a
time), or with ``--self-play`` / ``--warmup-random`` a :class:`BatchedPool`: the opponent
pool of the other vec envs (each episode of each sub-env draws a bot of the mix or one of
the learner's snapshots), whose snapshots play all their games in one numpy batch.

A vector step has a fixed numpy cost, so it pays off with many envs, not at the default
16, where ``dummy`` (the default) is quicker; ``python bench/vector.py --ppo`` compares
the two (MaskablePPO, random opponent).
"""

from __future__ import annotations

import time

import numpy as np

from widderkopf_env.agents import load_agent
from widderkopf_env.vector.encode import encode
from widderkopf_env.vector.opponents import AgentOpponent
from widderkopf_env.vector.sb3 import WidderkopfSB3VecEnv

from .opponents import SNAPSHOT, OpponentPool, TrainingControls, opponent_mix


class BatchedPool(OpponentPool):
    """The :class:`~.opponents.OpponentPool` of ``n`` sub-envs at once, as a batched
    opponent of the vector env: before each episode of each sub-env it draws a bot of
    ``mix`` or one of the learner's snapshots (from the env's opponent generator).
    Snapshots sample their moves, all games of one snapshot in one batch; bots play one
    game at a time (one bot object per sub-env)."""

    def __init__(self, mix: dict[str, float], n: int):
        self.n = n
        super().__init__(mix, lambda name: AgentOpponent([load_agent(name) for _ in range(n)]))
        self.who = np.full(n, "", object)  # each sub-env's opponent: a bot name or a snapshot
        self.ended = np.full(n, "", object)  # the label of the episode each sub-env ended last
        self.rng = np.random.default_rng(0)

    def describe(self) -> str:
        return f"the self-play pool ({self.mix}, {len(self.snapshots)} snapshot(s))"

    def label_of(self, i: int) -> str:
        who = self.who[i]
        return who if isinstance(who, str) else SNAPSHOT

    def reset(self, idx, rng: np.random.Generator) -> None:
        self.rng = rng
        for i in idx:
            self.ended[i] = self.label_of(i)
            name, who = self.pick(rng)
            self.who[i] = name if name != SNAPSHOT else who
            if name != SNAPSHOT:
                who.reset([i], rng)

    def actions(self, game, idx, player) -> np.ndarray:
        acts = np.empty(len(idx), np.int64)
        groups: dict[int, list[int]] = {}
        for r, i in enumerate(idx):
            groups.setdefault(id(self.who[i]), []).append(r)
        for rows in groups.values():
            rows = np.asarray(rows)
            who, sub, seats = self.who[idx[rows[0]]], idx[rows], player[rows]
            if isinstance(who, str):
                acts[rows] = self.bots[who].actions(game, sub, seats)
                continue
            obs, mask = encode(game, sub, seats)  # the opponent's view only (R8)
            z = np.where(mask > 0, who.logits(obs), -np.inf)
            acts[rows] = (z + self.rng.gumbel(size=z.shape)).argmax(1)  # softmax sampling
        return acts


class BatchedTrainingVecEnv(TrainingControls, WidderkopfSB3VecEnv):
    """What every batched training env adds to the SB3 VecEnv: its env time measured, the
    rewards scaled by ``reward_scale``, each ended game's ``info["opponent"]``
    (:meth:`ended_opponent`) and ``info["game_points"]`` for the seat named by
    ``info[SEAT_KEY]``, and the escalation mask of the training controls."""

    #: the info key naming the seat an ended game's result is for
    SEAT_KEY = "seat"

    def ended_opponent(self, i: int) -> str:
        """The label of the opponent in game ``i``, whose episode just ended."""
        raise NotImplementedError

    def reset(self):
        t = time.perf_counter()
        obs = super().reset()
        self.timed(t)
        return obs

    def step_wait(self):
        t = time.perf_counter()
        obs, rewards, dones, infos = super().step_wait()
        for i in np.flatnonzero(dones):
            info = infos[i]
            info["opponent"] = self.ended_opponent(i)
            scores = info.get("scores", (0, 0))  # absent after an illegal move
            seat = info[self.SEAT_KEY]
            info["game_points"] = float(scores[seat] - scores[1 - seat])
        self.timed(t, self.num_envs)
        return obs, rewards * np.float32(self.reward_scale), dones, infos

    def action_masks(self) -> np.ndarray:
        """The legal actions (:meth:`~.opponents.TrainingControls.escalation_masked`)."""
        return self.escalation_masked(super().action_masks())

    def env_timing(self) -> tuple[float, int]:
        """One sub-env's share, as each single env gives its own."""
        return self.env_seconds / self.num_envs, self.env_steps // self.num_envs

    def env_method(self, method_name: str, *method_args, indices=None, **method_kwargs) -> list:
        if method_name in TrainingControls.METHODS:
            n = len(list(self._get_indices(indices)))
            return [getattr(self, method_name)(*method_args, **method_kwargs)] * n
        return super().env_method(method_name, *method_args, indices=indices, **method_kwargs)


class NativeTrainingVecEnv(BatchedTrainingVecEnv):
    """The training env for a run configuration ``cfg`` (see the module documentation)."""

    def __init__(self, cfg, seed: int, steps: int = 0):
        self.pool = None
        if cfg.self_play or cfg.warmup_random:
            self.pool = BatchedPool(opponent_mix(cfg, steps), cfg.n_envs)
        super().__init__(cfg.n_envs, opponent=self.pool or cfg.opponent, seat="random",
                         reward_shaping=cfg.reward_shaping, variant=cfg.variant)
        self.opponent_label, self.reward_scale = cfg.opponent, cfg.reward_scale
        self.seed(seed)

    def ended_opponent(self, i: int) -> str:
        return self.opponent_label if self.pool is None else self.pool.ended[i]

    def set_mix(self, mix: dict[str, float]) -> None:
        if self.pool is None and mix != {self.opponent_label: 1.0}:
            raise ValueError(f"--vec-env native plays only {self.opponent_label!r}; got the "
                             f"mix {mix}")
        if self.pool is not None:
            self.pool.set_mix(mix)
