"""Training opponents: a mix of bots and a pool of the learner's own past snapshots.

:class:`OpponentPool` is one Agent object given to the env as ``opponent=``; before every
episode :class:`TrainingWrapper` draws which opponent it stands for:

- bot ``name`` with probability ``mix[name]`` (e.g. ``{"heuristic": 0.5, "random": 0.1}``);
- otherwise (probability ``1 - sum(mix)``) a snapshot drawn uniformly from the pool.
  While the pool is empty, that share goes to the bots in proportion to their weights.

The pool lives in every env process; the trainer updates it with
``vec_env.env_method("add_snapshot", weights, max_size)`` (or ``set_snapshots``), which
works for ``SubprocVecEnv`` and ``DummyVecEnv`` alike, and keeps its own copy for
checkpoints.
"""

from __future__ import annotations

import time

import gymnasium
import numpy as np

from widderkopf_env.agents import load_agent, reset_agent
from widderkopf_env.cards import ESCALATE

from .export import PolicySnapshot

SNAPSHOT = "snapshot"  # label of a pool draw in the per-opponent statistics


def opponent_mix(cfg: dict, steps: int) -> dict[str, float]:
    """The bots' shares of the episodes at ``steps`` of the run ``cfg`` (the rest: the pool)."""
    if steps < cfg["warmup_random"]:
        return {"random": 1.0}
    if cfg["self_play"]:
        return {"heuristic": cfg["p_heuristic"], "random": cfg["p_random"]}
    return {cfg["opponent"]: 1.0}


def check_mix(mix: dict[str, float]) -> None:
    """``ValueError`` unless ``mix`` is a non-empty map of bot names to shares summing to
    at most 1."""
    if not mix or any(p < 0 for p in mix.values()) or sum(mix.values()) > 1 + 1e-9:
        raise ValueError(f"mix must be non-empty, non-negative and sum to at most 1: {mix}")


def draw(mix: dict[str, float], snapshots: int, rng: np.random.Generator):
    """One episode's opponent: ``(bot name, None)`` with probability ``mix[name]``, else
    ``(SNAPSHOT, k)`` for a snapshot ``k`` drawn uniformly of ``snapshots`` (while there
    are none, the bots share everything in proportion to their weights)."""
    names = [n for n, p in mix.items() if p > 0]
    probs = [mix[n] for n in names]
    if snapshots:
        names.append(SNAPSHOT)
        probs.append(max(0.0, 1.0 - sum(probs)))
    p = np.asarray(probs, np.float64)
    label = names[int(rng.choice(len(names), p=p / p.sum()))]
    return (label, int(rng.integers(snapshots))) if label == SNAPSHOT else (label, None)


class OpponentPool:
    """An Agent that plays as whichever opponent :meth:`draw` picked last."""

    name = "opponent-pool"

    def __init__(self, mix: dict[str, float]):
        self.bots: dict = {}  # by name, each loaded once
        self.snapshots: list[PolicySnapshot] = []
        self.set_mix(mix)
        self.label = next(iter(self.mix))
        self.current = self.bots[self.label]

    def set_mix(self, mix: dict[str, float]) -> None:
        check_mix(mix)
        for name in mix:
            if name not in self.bots:
                self.bots[name] = load_agent(name)
        self.mix = dict(mix)

    def set_snapshots(self, snapshots) -> None:
        self.snapshots = [PolicySnapshot(w) for w in snapshots]

    def add_snapshot(self, weights: dict, max_size: int) -> None:
        """Add a snapshot; keep the ``max_size`` most recent (all if 0)."""
        self.snapshots.append(PolicySnapshot(weights))
        if max_size > 0:
            del self.snapshots[:-max_size]

    def draw(self, rng: np.random.Generator) -> str:
        """Pick the opponent of the next episode; returns its label."""
        self.label, k = draw(self.mix, len(self.snapshots), rng)
        self.current = self.bots[self.label] if k is None else self.snapshots[k]
        return self.label

    def reset(self, seed: int | None = None) -> None:
        reset_agent(self.current, seed)

    def act(self, view) -> int:
        return self.current.act(view)


class TrainingWrapper(gymnasium.Wrapper):
    """What the trainer needs around the env: the opponent draw before each episode, reward
    scaling, per-opponent episode statistics, the time spent inside the env, and the
    crack curriculum (no escalation for the learner while ``escalation`` is False).

    At the end of each episode, the learner's game points (unscaled, without shaping) are
    put in ``info["game_points"]`` and the opponent's label in ``info["opponent"]`` (read by
    the training callback for TensorBoard).
    """

    def __init__(self, env, pool: OpponentPool, reward_scale: float = 1.0, seed: int = 0):
        super().__init__(env)
        self.pool, self.reward_scale = pool, reward_scale
        self._rng = np.random.default_rng(seed)
        self.env_seconds, self.env_steps = 0.0, 0
        self.escalation = True

    def reset(self, *, seed=None, options=None):
        t = time.perf_counter()
        if seed is not None:
            self._rng = np.random.default_rng([seed, 7])
        self.pool.draw(self._rng)
        out = self.env.reset(seed=seed, options=options)
        self.env_seconds += time.perf_counter() - t
        return out

    def step(self, action):
        t = time.perf_counter()
        obs, reward, terminated, truncated, info = self.env.step(action)
        if terminated or truncated:
            env = self.env.unwrapped
            info["game_points"] = env.game.returns()[env.seat]
            info["opponent"] = self.pool.label
        self.env_seconds += time.perf_counter() - t
        self.env_steps += 1
        return obs, reward * self.reward_scale, terminated, truncated, info

    def action_masks(self) -> np.ndarray:
        """The env's mask; without escalation rights (``set_escalation(False)``) the
        learner may not escalate (it still has a card to play, or pass to answer)."""
        mask = self.env.unwrapped.action_masks()
        if not self.escalation:
            mask[ESCALATE] = 0
        return mask

    # Called through VecEnv.env_method (works in subprocess workers too).
    def set_escalation(self, allowed: bool) -> None:
        self.escalation = allowed

    def add_snapshot(self, weights: dict, max_size: int) -> None:
        self.pool.add_snapshot(weights, max_size)

    def set_snapshots(self, snapshots) -> None:
        self.pool.set_snapshots(snapshots)

    def set_mix(self, mix: dict[str, float]) -> None:
        self.pool.set_mix(mix)

    def env_timing(self) -> tuple[float, int]:
        """(seconds spent in reset/step, steps) since the env was made."""
        return self.env_seconds, self.env_steps
