"""Agents for the Widderkopf environment (installed as ``widderkopf_env.agents``)."""

from .base import Agent, RandomAgent, reset_agent

__all__ = ["Agent", "RandomAgent", "load_agent", "reset_agent"]


def load_agent(spec, seed: int | None = None):
    """An agent by name: ``"random"`` (more names are added by the bots module)."""
    if not isinstance(spec, str):
        return spec
    if spec == "random":
        return RandomAgent(seed)
    raise ValueError(f"unknown agent {spec!r}; known: 'random'")
