"""Agents for the Widderkopf environment (installed as ``widderkopf_env.agents``)."""

from .base import Agent, RandomAgent, reset_agent
from .heuristic import HeuristicAgent

__all__ = ["Agent", "HeuristicAgent", "RandomAgent", "load_agent", "reset_agent"]


def load_agent(spec, seed: int | None = None):
    if not isinstance(spec, str):
        return spec
    if spec == "random":
        return RandomAgent(seed)
    if spec == "heuristic":
        return HeuristicAgent(seed)
    raise ValueError(f"unknown agent {spec!r}; known: 'random'")
