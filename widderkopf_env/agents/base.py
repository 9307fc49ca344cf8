"""The Agent protocol used everywhere: arena, single-agent env opponent, CLIs.

Defined in the core (:mod:`widderkopf_env.agent`, so the environments need no upward
import) and re-exported here with the core's :class:`RandomAgent`.
"""

from __future__ import annotations

from widderkopf_env.agent import Agent, RandomAgent, reset_agent

__all__ = ["Agent", "RandomAgent", "reset_agent"]
