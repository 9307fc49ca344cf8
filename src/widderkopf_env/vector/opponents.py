"""Opponents of a vector env: who chooses the moves of the seat the learner does not play.

* ``"random"``: uniform over the legal actions, all games at once (vectorised).
* a policy function ``f(obs (k, 540) float32, mask (k, 42) int8) -> actions (k,)``:
  called once per round of opponent moves with every game where the opponent is to act
  (batched; observations from the opponent's view). It must return one integer action per
  game; the env checks them.
* a batched opponent: an object with ``reset(idx, rng)`` (new episodes in sub-envs
  ``idx``), ``actions(game, idx, player)`` (one action per game of ``idx``; it reads each
  game only through :func:`~.encode.encode` or :class:`~.rows.GameRow` views, from
  ``player``'s side) and ``describe()``, as the classes here; used as it is
  (``widderkopf-train --vec-env native --self-play`` plays its opponent pool so).
* an agent name for :func:`widderkopf_env.load_agent` (``"heuristic"``, ...): one
  agent per sub-env, each reseeded at each new episode; or an agent object (anything with
  ``act(view)``), shared by all sub-envs. Agents read a
  :class:`~widderkopf_env.view.PlayerView` built per game, so this path runs one game at
  a time (slower: its cost is the agent's, plus a few microseconds per move).
"""

from __future__ import annotations

import numpy as np

from ..cards import NUM_ACTIONS
from ..episode import check_not_a_class
from .encode import encode
from .rows import GameRow


class RandomOpponent:
    """Uniformly random legal actions for many games at once."""

    def __init__(self, rng: np.random.Generator):
        self.rng = rng

    def reset(self, idx, rng: np.random.Generator) -> None:
        self.rng = rng

    def describe(self) -> str:
        return "'random'"

    def actions(self, game, idx, player) -> np.ndarray:
        keys = self.rng.random((len(idx), NUM_ACTIONS))
        keys[game.mask(idx) == 0] = -1.0
        return keys.argmax(axis=1)


class PolicyOpponent:
    """A batched policy function ``f(obs, mask) -> actions``."""

    def __init__(self, policy):
        self.policy = policy

    def reset(self, idx, rng) -> None:
        pass

    def describe(self) -> str:
        return f"policy {self.policy!r}"

    def actions(self, game, idx, player):
        obs, mask = encode(game, idx, player)
        return self.policy(obs, mask)


class AgentOpponent:
    """:class:`~widderkopf_env.agent.Agent` objects, one game at a time."""

    def __init__(self, agents: list):
        self.agents = agents  # one per sub-env (possibly the same object n times)

    def reset(self, idx, rng: np.random.Generator) -> None:
        from ..agent import reset_agent

        for i in idx:
            reset_agent(self.agents[i], int(rng.integers(0, 2**63 - 1)))

    def describe(self) -> str:
        return repr(self.agents[0])

    def actions(self, game, idx, player) -> np.ndarray:
        rows = GameRow.of_games(game, idx)
        return np.array([self.agents[i].act(row.view(p)) for i, row, p in
                         zip(np.asarray(idx).tolist(), rows, np.asarray(player).tolist(),
                             strict=True)], np.int64)


def make_opponent(spec, n: int, rng: np.random.Generator):
    """The opponent for ``spec`` (see the module documentation); None for ``"self"``.
    An agent class (not an instance) raises ``TypeError``."""
    check_not_a_class(spec)
    if isinstance(spec, str):
        if spec == "self":
            return None
        if spec == "random":
            return RandomOpponent(rng)
        from ..registry import load_agent

        return AgentOpponent([load_agent(spec) for _ in range(n)])
    if all(callable(getattr(spec, m, None)) for m in ("actions", "reset", "describe")):
        return spec
    if callable(getattr(spec, "act", None)):
        return AgentOpponent([spec] * n)
    if callable(spec):
        return PolicyOpponent(spec)
    raise ValueError(f"opponent must be 'self', 'random', an agent name, an agent with "
                     f"act(view), a batched opponent (reset, actions, describe) or a "
                     f"policy function f(obs, mask) -> actions, got {spec!r}")
