"""The Agent protocol, and the one bot the core ships: :class:`RandomAgent`.

An agent gets a :class:`~widderkopf_env.view.PlayerView` (what its player may see, with
the legal actions) and returns one of ``view.legal_actions()``. The stronger bots live in
:mod:`widderkopf_env.agents`; every bot is found by name through
:mod:`widderkopf_env.registry`.
"""

from __future__ import annotations

import random
from typing import Protocol, runtime_checkable

from .view import PlayerView


@runtime_checkable
class Agent(Protocol):
    """Anything with ``act(view) -> action id``.

    Optional: ``reset(seed)``, called at the start of every game (hand or match) with a
    seed derived from the game's seed, so a stochastic agent is reproducible.
    """

    def act(self, view: PlayerView) -> int: ...


def reset_agent(agent, seed: int | None) -> None:
    """Call ``agent.reset(seed)`` if the agent has one."""
    reset = getattr(agent, "reset", None)
    if reset is not None:
        reset(seed)


class RandomAgent:
    """Plays a uniformly random legal action (seeded)."""

    name = "random"

    def __init__(self, seed: int | None = None):
        self._rng = random.Random(seed)

    def reset(self, seed: int | None = None) -> None:
        self._rng.seed(seed)

    def act(self, view: PlayerView) -> int:
        actions = view.legal_actions()
        if not actions:
            raise ValueError(f"player {view.player} has no legal action (not their turn)")
        return actions[self._rng.randrange(len(actions))]
