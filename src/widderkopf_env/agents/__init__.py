"""Agents for the Widderkopf environment: the bots, the duplicate arena and the CLIs.

Every agent follows the :class:`Agent` protocol (``act(view) -> action id``, optional
``reset(seed)``) and reads only the :class:`~widderkopf_env.view.PlayerView` it is given.
:func:`load_agent` builds one from a name or a model path; it is the core's registry
(:mod:`widderkopf_env.registry`), where this package lists its bots by entry point.
"""

from __future__ import annotations

from widderkopf_env.agent import Agent, RandomAgent, reset_agent
from widderkopf_env.registry import agent_names, load_agent, register_agent

from .endgame import EndgameAgent
from .heuristic import HeuristicAgent
from .pimc import PIMCAgent
from .shipped import shipped_ppo_agent

__all__ = [
    "Agent", "EndgameAgent", "HeuristicAgent", "PIMCAgent", "RandomAgent", "agent_names",
    "load_agent", "register_agent", "reset_agent", "shipped_ppo_agent",
]
