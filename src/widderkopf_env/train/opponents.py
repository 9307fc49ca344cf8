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


def opponent_mix(cfg, steps: int) -> dict[str, float]:
    """The bots' shares of the episodes at ``steps`` of the run ``cfg`` (the rest: the pool)."""
    if steps < cfg.warmup_random:
        return {"random": 1.0}
    if cfg.self_play:
        return {"heuristic": cfg.heuristic_share, "random": cfg.random_share}
    return {cfg.opponent: 1.0}


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
    """The bots of a mix and the learner's snapshots, and the draw between them: an Agent
    that plays as whichever opponent :meth:`draw` picked last.

    ``make_bot(name)`` builds the bot of a name (default :func:`load_agent`); the batched
    pool of the vector env (:class:`~.batched_vec_env.BatchedPool`) builds one that plays
    every sub-env."""

    name = "opponent-pool"

    def __init__(self, mix: dict[str, float], make_bot=load_agent):
        self.bots: dict = {}  # by name, each built once
        self.snapshots: list[PolicySnapshot] = []
        self._make_bot = make_bot
        self.set_mix(mix)
        self.label = next(iter(self.mix))
        self.current = self.bots[self.label]

    def set_mix(self, mix: dict[str, float]) -> None:
        check_mix(mix)
        for name in mix:
            if name not in self.bots:
                self.bots[name] = self._make_bot(name)
        self.mix = dict(mix)

    def set_snapshots(self, snapshots) -> None:
        self.snapshots = [PolicySnapshot(w) for w in snapshots]

    def add_snapshot(self, weights: dict, max_size: int) -> None:
        """Add a snapshot; keep the ``max_size`` most recent (all if 0). Episodes under
        way go on with the opponent they drew."""
        self.snapshots.append(PolicySnapshot(weights))
        if max_size > 0:
            del self.snapshots[:-max_size]

    def pick(self, rng: np.random.Generator) -> tuple[str, object]:
        """One episode's opponent: ``(label, bot or snapshot)`` (:func:`draw`)."""
        label, k = draw(self.mix, len(self.snapshots), rng)
        return label, self.bots[label] if k is None else self.snapshots[k]

    def draw(self, rng: np.random.Generator) -> str:
        """Pick the opponent of the next episode; returns its label."""
        self.label, self.current = self.pick(rng)
        return self.label

    def reset(self, seed: int | None = None) -> None:
        reset_agent(self.current, seed)

    def act(self, view) -> int:
        return self.current.act(view)


class TrainingControls:
    """What the trainer calls on its training envs, single (:class:`TrainingWrapper`) or
    batched (:class:`~.batched_vec_env.NativeTrainingVecEnv`), through
    ``VecEnv.env_method``: the crack curriculum's escalation right, the opponent pool's mix
    and snapshots, and the time spent inside the env."""

    #: The methods ``env_method`` may call by name.
    METHODS = ("set_escalation", "set_mix", "set_snapshots", "add_snapshot", "env_timing")

    pool: OpponentPool | None = None
    escalation = True
    env_seconds, env_steps = 0.0, 0

    def set_escalation(self, allowed: bool) -> None:
        self.escalation = bool(allowed)

    def escalation_masked(self, mask: np.ndarray) -> np.ndarray:
        """``mask`` (one row, or one per sub-env) without escalation while the learner
        has no escalation rights (``set_escalation(False)``): it still has a card to play,
        or pass to answer."""
        if not self.escalation:
            mask[..., ESCALATE] = 0
        return mask

    def set_mix(self, mix: dict[str, float]) -> None:
        self.pool.set_mix(mix)

    def set_snapshots(self, snapshots) -> None:
        self.pool.set_snapshots(snapshots)

    def add_snapshot(self, weights: dict, max_size: int) -> None:
        self.pool.add_snapshot(weights, max_size)

    def env_timing(self) -> tuple[float, int]:
        """(seconds spent in reset/step, steps) since the env was made."""
        return self.env_seconds, self.env_steps

    def timed(self, started: float, steps: int = 0) -> None:
        """Count the time since ``started`` (``time.perf_counter()``) and ``steps`` steps."""
        self.env_seconds += time.perf_counter() - started
        self.env_steps += steps


class TrainingWrapper(TrainingControls, gymnasium.Wrapper):
    """What the trainer needs around the env: the opponent draw before each episode, reward
    scaling, per-opponent episode statistics and :class:`TrainingControls`.

    At the end of each episode, the learner's game points (unscaled, without shaping) are
    put in ``info["game_points"]`` and the opponent's label in ``info["opponent"]`` (read by
    the training callback for TensorBoard).
    """

    def __init__(self, env, pool: OpponentPool, reward_scale: float = 1.0, seed: int = 0):
        super().__init__(env)
        self.pool, self.reward_scale = pool, reward_scale
        self._rng = np.random.default_rng(seed)

    def reset(self, *, seed=None, options=None):
        t = time.perf_counter()
        if seed is not None:
            self._rng = np.random.default_rng([seed, 7])
        self.pool.draw(self._rng)
        out = self.env.reset(seed=seed, options=options)
        self.timed(t)
        return out

    def step(self, action):
        t = time.perf_counter()
        obs, reward, terminated, truncated, info = self.env.step(action)
        if terminated or truncated:
            env = self.env.unwrapped
            info["game_points"] = env.game.returns()[env.seat]
            info["opponent"] = self.pool.label
        self.timed(t, 1)
        return obs, reward * self.reward_scale, terminated, truncated, info

    def action_masks(self) -> np.ndarray:
        """The env's mask (:meth:`TrainingControls.escalation_masked`)."""
        return self.escalation_masked(self.env.unwrapped.action_masks())
