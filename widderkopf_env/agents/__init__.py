"""Agents for the Widderkopf environment (installed as ``widderkopf_env.agents``).

Every agent follows the :class:`Agent` protocol (``act(view) -> action id``, optional
``reset(seed)``) and reads only the :class:`~widderkopf_env.view.PlayerView` it is given.
:func:`load_agent` builds one from a spec string, as the CLIs and the arena do.
"""

from __future__ import annotations

import os

from .base import Agent, RandomAgent, reset_agent
from .heuristic import HeuristicAgent
from .pimc import PIMCAgent
from .shipped import ShippedPPOAgent

__all__ = [
    "AGENTS", "Agent", "HeuristicAgent", "PIMCAgent", "RandomAgent", "load_agent", "reset_agent",
]

#: Agents by name: ``name -> factory(seed) -> agent``. Other modules may add entries.
AGENTS = {
    "random": RandomAgent,
    "heuristic": HeuristicAgent,
    "pimc": PIMCAgent,
    "ppo": ShippedPPOAgent,
}


def load_agent(spec, seed: int | None = None):
    """An agent from a spec.

    - a registered name (see :data:`AGENTS`): ``"random"``, ``"heuristic"``, ...;
    - a path to a saved sb3-contrib MaskablePPO model (``.zip``): a deterministic
      :class:`~.policy.MaskablePPOAgent` (needs the ``[train]`` extra);
    - a checkpoint directory of ``widderkopf-train-rllib``: its ``main`` policy as a
      deterministic :class:`~widderkopf_env.rllib.agent.RLlibAgent` (the ``[rllib]`` extra);
    - anything that is not a string is returned as it is (an agent object).

    ``seed`` seeds stochastic agents. Raises ``ValueError`` for an unknown spec.
    """
    if not isinstance(spec, str):
        return spec
    factory = AGENTS.get(spec)
    if factory is not None:
        return factory(seed)
    if spec.lower().endswith(".zip"):
        from .policy import MaskablePPOAgent

        return MaskablePPOAgent(spec, seed=seed)
    if os.path.isdir(spec):  # an RLlib checkpoint (widderkopf_env.rllib, the [rllib] extra)
        from widderkopf_env.rllib.agent import RLlibAgent

        return RLlibAgent(spec, seed=seed)
    known = ", ".join(repr(k) for k in AGENTS)
    raise ValueError(
        f"unknown agent {spec!r}; known names: {known}, or a path to a MaskablePPO .zip model "
        "or an RLlib checkpoint directory")
