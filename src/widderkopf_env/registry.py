"""Agents by name: the one registry that the environments, the CLIs and the arena use.

``load_agent(spec, seed)`` turns a spec into an agent:

- an object that is not a string is returned as it is (an agent);
- a name: ``"random"`` (the core's :class:`~widderkopf_env.agent.RandomAgent`), one of
  the bots this package ships (:data:`SHIPPED`: ``heuristic``, ``pimc``,
  ``pimc-uniform``, ``ppo``, ``net``, ``net-v1``, ``net-endgame``, ``ismcts`` and
  ``ismcts-fast``
  (OpenSpiel's, with the ``[openspiel]`` extra)), one added at run time with
  :func:`register_agent`, or one that an installed package lists in the
  ``widderkopf_env.agents`` entry-point group;
- any other string is offered to the loaders in turn: this package's (:data:`LOADERS`:
  an MCCFR table's ``.npz``, a network ``.npz``, a MaskablePPO ``.zip``, an RLlib
  checkpoint folder), then those of
  the ``widderkopf_env.agent_loaders`` entry-point group; the first that returns an
  agent wins.

The shipped bots and loaders are named by import path, as strings, and imported on first
use: the core never imports the bots or the training code (the layers run one way:
core <- agents <- train), and they work wherever the package's files are, whatever the
installed metadata says. Entry points are how third-party packages add theirs.
"""

from __future__ import annotations

from collections.abc import Callable
from importlib import import_module
from importlib.metadata import entry_points

from .agent import RandomAgent

#: Entry-point groups for third-party packages: bots by name (``factory(seed) -> agent``),
#: and loaders (``loader(spec, seed) -> agent or None``) for specs that are not names.
AGENT_GROUP, LOADER_GROUP = "widderkopf_env.agents", "widderkopf_env.agent_loaders"

#: The bots this package ships: name -> ``"module:factory"``, ``factory(seed) -> agent``.
SHIPPED = {
    "heuristic": "widderkopf_env.agents.heuristic:HeuristicAgent",
    "pimc": "widderkopf_env.agents.pimc:PIMCAgent",
    "pimc-uniform": "widderkopf_env.agents.pimc:uniform_pimc",
    "ppo": "widderkopf_env.agents.shipped:shipped_ppo_agent",
    "net": "widderkopf_env.agents.shipped:shipped_net_agent",
    "net-v1": "widderkopf_env.agents.shipped:shipped_net_v1_agent",
    "net-endgame": "widderkopf_env.agents.endgame:net_endgame_agent",
    "ismcts": "widderkopf_env.agents.ismcts:ISMCTSAgent",  # needs the [openspiel] extra
    "ismcts-fast": "widderkopf_env.agents.ismcts:fast_ismcts",  # 50 simulations
}

#: This package's loaders of files: ``"module:loader"``, ``loader(spec, seed)`` returns
#: an agent or None (not its kind of file).
LOADERS = (
    "widderkopf_env.agents.mccfr:load_table_agent",  # before the networks: also a .npz
    "widderkopf_env.agents.network_file:load_snapshot_agent",
    "widderkopf_env.agents.sb3_model:load_model_agent",
    "widderkopf_env.agents.rllib_checkpoint:load_checkpoint_agent",
)

_factories: dict[str, Callable] = {"random": RandomAgent}
_entry_points: dict | None = None  # name -> entry point, read once


def _resolve(path: str):
    module, _, attr = path.partition(":")
    return getattr(import_module(module), attr)


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
    """The agent names: the core's, the shipped bots, those added at run time, the
    installed packages' ones."""
    return list(dict.fromkeys([*_factories, *SHIPPED, *_installed()]))


def _factory(name: str) -> Callable | None:
    if name in _factories:
        return _factories[name]
    if name in SHIPPED:
        return _resolve(SHIPPED[name])
    if name in _installed():
        return _installed()[name].load()
    return None


def load_agent(spec, seed: int | None = None):
    """An agent from ``spec`` (see the module documentation); ``seed`` seeds stochastic
    agents. Raises ``ValueError`` for an unknown spec, naming the known ones."""
    if not isinstance(spec, str):
        return spec
    factory = _factory(spec)
    if factory is not None:
        return factory(seed)
    loaders = [*LOADERS, *(ep for ep in entry_points(group=LOADER_GROUP)
                           if ep.value not in LOADERS)]
    for loader in loaders:
        load = _resolve(loader) if isinstance(loader, str) else loader.load()
        agent = load(spec, seed)
        if agent is not None:
            return agent
    known = ", ".join(repr(k) for k in agent_names())
    raise ValueError(f"unknown agent {spec!r}; known names: {known}, a path to a network "
                     ".npz or an MCCFR table .npz, a MaskablePPO .zip model, or an RLlib "
                     "checkpoint directory")
