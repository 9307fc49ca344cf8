"""Agents for the Widderkopf environment: the bots, the duplicate arena and the CLIs.

Every agent follows the :class:`Agent` protocol (``act(view) -> action id``, optional
``reset(seed)``) and reads only the :class:`~widderkopf_env.view.PlayerView` it is given;
:class:`PolicyAgent` makes one from a function ``(observation, mask) -> action``.
:func:`load_agent` builds one from a name, a model path or a Python agent
(``module:Class``, ``file.py:Class``); it is the core's registry
(:mod:`widderkopf_env.registry`), where this package lists its bots by entry point.
"""

from __future__ import annotations

from widderkopf_env.agent import Agent, RandomAgent, reset_agent
from widderkopf_env.registry import agent_names, load_agent, register_agent

from .endgame import EndgameAgent
from .heuristic import HeuristicAgent
from .pimc import PIMCAgent
from .sb3_model import PolicyAgent
from .shipped import shipped_ppo_agent

__all__ = [
    "Agent", "EndgameAgent", "HeuristicAgent", "PIMCAgent", "PolicyAgent", "RandomAgent",
    "agent_names", "load_agent", "register_agent", "reset_agent", "shipped_ppo_agent",
]
