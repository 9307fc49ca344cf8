"""Agents by name: the one registry that the environments, the CLIs and the arena use.

``load_agent(spec, seed)`` turns a spec into an agent:

- an object that is not a string is returned as it is (an agent);
- a name: ``"random"`` (the core's :class:`~widderkopf_env.agent.RandomAgent`), one of
  the bots this package ships (:data:`SHIPPED`: ``heuristic``, ``pimc``,
  ``pimc-uniform``, ``ppo``, ``ppo-v1``, ``net``, ``net-v2``, ``net-v1``, ``net-endgame``,
  ``net-search``, ``net-search-fast``, ``ismcts`` and ``ismcts-fast``
  (OpenSpiel's, with the ``[openspiel]`` extra)), one added at run time with
  :func:`register_agent`, or one that an installed package lists in the
  ``widderkopf_env.agents`` entry-point group;
- a Python agent: ``"module:Class"`` (imported as Python imports it, then from the
  current folder) or ``"path/to/file.py:Class"`` (that file, loaded by itself);
  ``Class`` is an agent class or a factory, called with the seed if it takes an argument
  and with none otherwise, and must give an object with ``act(view)``
  (:func:`load_code_agent`). This runs the module's code: the command lines treat it
  as the pickle-bearing files (``--safe`` refuses it);
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

import ast
import hashlib
import inspect
import os
import re
import sys
from collections.abc import Callable
from importlib import import_module, util
from importlib.metadata import entry_points
from pathlib import Path

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
    "ppo-v1": "widderkopf_env.agents.shipped:shipped_ppo_v1_agent",
    "net": "widderkopf_env.agents.shipped:shipped_net_agent",
    "net-v2": "widderkopf_env.agents.shipped:shipped_net_v2_agent",
    "net-v1": "widderkopf_env.agents.shipped:shipped_net_v1_agent",
    "net-endgame": "widderkopf_env.agents.endgame:net_endgame_agent",
    "net-search": "widderkopf_env.agents.net_search:NetSearchAgent",
    "net-search-fast": "widderkopf_env.agents.net_search:fast_net_search",
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
    """Make ``load_agent(name, seed)`` return ``factory(seed)`` (``factory()`` if it takes
    no argument)."""
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


_MODULE_SPEC = re.compile(r"([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*):([A-Za-z_]\w*)")
_NAME = re.compile(r"[A-Za-z_]\w*")


def code_spec(spec) -> tuple[str, str, bool] | None:
    """``(module or file, attribute, is_file)`` if ``spec`` names a Python agent
    (``"module:Class"`` or ``"file.py:Class"``), else None."""
    if not isinstance(spec, str):
        return None
    where, _, attr = spec.rpartition(":")
    if where.lower().endswith(".py") and _NAME.fullmatch(attr):
        return where, attr, True
    match = _MODULE_SPEC.fullmatch(spec)
    return (match[1], match[2], False) if match else None


def check_code_spec(spec: str) -> str:
    """``spec`` if it names a Python agent that :func:`load_code_agent` may load, checked
    without running its code: a file that exists and defines ``Class`` at its top level
    (read, not run); a top-level module that can be found (a dotted module is checked
    when loaded: finding it imports its packages). ``ValueError`` otherwise."""
    where, attr, is_file = code_spec(spec)
    if is_file:
        path = Path(where)
        if not path.is_file():
            raise ValueError(f"agent {spec!r}: no file {where!r}")
        try:
            tree = ast.parse(path.read_bytes(), str(path))
        except (SyntaxError, ValueError) as err:
            raise ValueError(f"agent {spec!r}: {where} is not valid Python ({err})") from None
        if attr not in _top_level_names(tree):
            raise ValueError(f"agent {spec!r}: {where} defines no {attr!r} at its top level")
    elif "." not in where and util.find_spec(where) is None \
            and not any((Path.cwd() / name).exists() for name in (where + ".py", where)):
        raise ValueError(f"agent {spec!r}: no module {where!r} (looked in the installed "
                         "packages and the current folder)")
    return spec


def _top_level_names(tree) -> set:
    names = set()
    for node in tree.body:
        if isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names.update(t.id for t in targets if isinstance(t, ast.Name))
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
    return names


def _import_file(path: Path):
    """The module of a Python file, loaded once per process under a name of its own (kept
    in ``sys.modules``, so its classes pickle and its dataclasses work)."""
    path = path.resolve()
    digest = hashlib.sha256(str(path).encode()).hexdigest()[:12]
    stem = re.sub(r"\W", "_", path.stem)
    name = f"widderkopf_agent_file_{stem}_{digest}"
    if name in sys.modules:
        return sys.modules[name]
    spec = util.spec_from_file_location(name, path)
    module = util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    return module


def _import_module(name: str):
    """``name`` imported as Python imports it; if it is not found, from the current folder
    (added at the end of ``sys.path``, so it never shadows an installed package)."""
    try:
        return import_module(name)
    except ModuleNotFoundError as err:
        if err.name is None or not name.startswith(err.name) or os.getcwd() in sys.path:
            raise
    sys.path.append(os.getcwd())
    return import_module(name)


def _call_with_seed(factory: Callable, seed):
    """``factory(seed)`` if it takes an argument, else ``factory()``."""
    try:
        params = inspect.signature(factory).parameters.values()
    except (TypeError, ValueError):  # no signature to read: the registry's rule
        return factory(seed)
    takes = any(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.VAR_POSITIONAL)
                or p.name == "seed" for p in params)
    return factory(seed) if takes else factory()


def load_code_agent(spec: str, seed: int | None = None):
    """The agent of a ``"module:Class"`` or ``"file.py:Class"`` spec (runs its code):
    ``Class(seed)``, or ``Class()`` if it takes no argument. ``ValueError`` naming what
    is wrong: no such file or module, no such name in it, something raised while importing
    or creating it, or an object without ``act(view)``."""
    where, attr, is_file = code_spec(spec)
    if is_file and not Path(where).is_file():
        raise ValueError(f"agent {spec!r}: no file {where!r}")
    try:
        module = _import_file(Path(where)) if is_file else _import_module(where)
    except ModuleNotFoundError as err:
        if err.name is None or not where.startswith(err.name):
            raise ValueError(f"agent {spec!r}: importing {where} failed: {err}") from err
        raise ValueError(f"agent {spec!r}: no module {where!r} (looked in the installed "
                         "packages and the current folder)") from None
    except Exception as err:
        raise ValueError(f"agent {spec!r}: importing {where} raised "
                         f"{type(err).__name__}: {err}") from err
    factory = getattr(module, attr, None)
    if factory is None:
        found = sorted(k for k, v in vars(module).items()
                       if isinstance(v, type) and callable(getattr(v, "act", None)))
        raise ValueError(f"agent {spec!r}: {where} has no {attr!r}"
                         + (f"; its agent classes: {', '.join(found)}" if found else ""))
    if isinstance(factory, type) and not callable(getattr(factory, "act", None)):
        raise ValueError(f"agent {spec!r}: class {attr} has no act(view) method; an agent "
                         "returns an action id from act(view)")
    if not callable(factory):
        raise ValueError(f"agent {spec!r}: {attr} is not a class or a factory, got "
                         f"{type(factory).__name__}")
    try:
        agent = _call_with_seed(factory, seed)
    except Exception as err:
        raise ValueError(f"agent {spec!r}: creating it raised {type(err).__name__}: "
                         f"{err}") from err
    if not callable(getattr(agent, "act", None)):
        raise ValueError(f"agent {spec!r}: {attr} gave {type(agent).__name__}, which has no "
                         "act(view) method")
    return agent


def load_agent(spec, seed: int | None = None):
    """An agent from ``spec``: an agent object as it is, a name, a Python agent
    (``"module:Class"``, ``"file.py:Class"``: :func:`load_code_agent`) or a model file
    (see the module documentation); ``seed`` seeds stochastic agents. Raises
    ``ValueError`` for an unknown spec, naming the known ones."""
    if not isinstance(spec, str):
        return spec
    factory = _factory(spec)
    if factory is not None:
        return _call_with_seed(factory, seed)
    if code_spec(spec) is not None:
        return load_code_agent(spec, seed)
    loaders = [*LOADERS, *(ep for ep in entry_points(group=LOADER_GROUP)
                           if ep.value not in LOADERS)]
    for loader in loaders:
        load = _resolve(loader) if isinstance(loader, str) else loader.load()
        agent = load(spec, seed)
        if agent is not None:
            return agent
    known = ", ".join(repr(k) for k in agent_names())
    raise ValueError(f"unknown agent {spec!r}; known names: {known}, a path to a network "
                     ".npz or an MCCFR table .npz, a MaskablePPO .zip model, an RLlib "
                     "checkpoint directory, or a Python agent as module:Class or "
                     "file.py:Class")
