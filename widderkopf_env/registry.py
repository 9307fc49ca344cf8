"""Agents by name: the one registry that the environments, the CLIs and the arena use.

``load_agent(spec, seed)`` turns a spec into an agent:

- an object that is not a string is returned as it is (an agent);
- a registered name: ``"random"`` (the core's :class:`~widderkopf_env.agent.RandomAgent`)
  or any name in the ``widderkopf_env.agents`` entry-point group, where installed
  packages list their bots (this package lists ``heuristic``, ``pimc`` and ``ppo``), or
  one added at run time with :func:`register_agent`;
- any other string is offered to the loaders of the ``widderkopf_env.agent_loaders``
  entry-point group in turn (this package's load a MaskablePPO ``.zip`` and an RLlib
  checkpoint directory); the first one that returns an agent wins.

Entry points are how installed packages announce plug-ins, so the core never imports
the bots or the training code (the layers run one way: core <- agents <- train) and a
third-party package can add its own bot by name.
"""

from __future__ import annotations

from collections.abc import Callable
from importlib.metadata import entry_points

from .agent import RandomAgent

#: Entry-point groups: bots by name (``factory(seed) -> agent``), and loaders
#: (``loader(spec, seed) -> agent or None``) for specs that are not names.
AGENT_GROUP, LOADER_GROUP = "widderkopf_env.agents", "widderkopf_env.agent_loaders"

_factories: dict[str, Callable] = {"random": RandomAgent}
_entry_points: dict | None = None  # name -> entry point, read once


def _installed() -> dict:
    global _entry_points
    if _entry_points is None:
        _entry_points = {ep.name: ep for ep in entry_points(group=AGENT_GROUP)}
    return _entry_points


def register_agent(name: str, factory: Callable, replace: bool = False) -> None:
    """Make ``load_agent(name, seed)`` return ``factory(seed)``."""
    if not isinstance(name, str) or not name or name.strip() != name:
        raise ValueError(f"agent name must be a non-empty string without surrounding "
                         f"spaces, got {name!r}")
    if not callable(factory):
        raise TypeError(f"factory must be callable (seed) -> agent, got {factory!r}")
    if not replace and name in agent_names():
        raise ValueError(f"an agent named {name!r} is registered already (replace=True "
                         "to replace it)")
    _factories[name] = factory


def agent_names() -> list[str]:
    """The registered agent names: the core's, the installed ones, those added at run time."""
    return list(dict.fromkeys([*_factories, *_installed()]))


def load_agent(spec, seed: int | None = None):
    """An agent from ``spec`` (see the module documentation); ``seed`` seeds stochastic
    agents. Raises ``ValueError`` for an unknown spec, naming the known ones."""
    if not isinstance(spec, str):
        return spec
    factory = _factories.get(spec)
    if factory is None and spec in _installed():
        factory = _installed()[spec].load()
    if factory is not None:
        return factory(seed)
    for loader in entry_points(group=LOADER_GROUP):
        agent = loader.load()(spec, seed)
        if agent is not None:
            return agent
    known = ", ".join(repr(k) for k in agent_names())
    raise ValueError(f"unknown agent {spec!r}; known names: {known}, a path to a "
                     "MaskablePPO .zip model, or an RLlib checkpoint directory")
