"""``Widderkopf-v0`` in the Gymnasium and PettingZoo registries, without importing them.

``import widderkopf_env`` calls :func:`register_envs`. A framework already imported gets
the id at once; one imported later gets it right after its own import completes (a
finder on :data:`sys.meta_path` wraps that one import, then leaves). So
``gymnasium.make("Widderkopf-v0")``, ``gymnasium.make("widderkopf_env:Widderkopf-v0")``
and ``pettingzoo.make("aec", "Widderkopf-v0")`` work whichever is imported first, while
the engine, the bots and the CLIs load neither framework.
"""

from __future__ import annotations

import importlib.abc
import sys

ENV_ID = "Widderkopf-v0"


def _register_gymnasium(gymnasium) -> None:
    if ENV_ID not in gymnasium.registry:
        gymnasium.register(id=ENV_ID, entry_point="widderkopf_env.gym_env:WidderkopfEnv",
                           vector_entry_point="widderkopf_env.vector.env:WidderkopfVectorEnv")


def _register_pettingzoo(pettingzoo) -> None:
    aec = getattr(pettingzoo, "aec_registry", None)  # PettingZoo >= 1.27 has registries
    if aec is not None and ENV_ID not in aec:
        pettingzoo.register("aec", ENV_ID, entry_point="widderkopf_env.aec_env:env")


#: Framework module name -> what registers the env with it.
_REGISTER = {"gymnasium": _register_gymnasium, "pettingzoo": _register_pettingzoo}


class _Loader(importlib.abc.Loader):
    """The framework's own loader, then the registration once the module has run."""

    def __init__(self, loader, register):
        self._loader, self._register = loader, register

    def create_module(self, spec):
        return self._loader.create_module(spec)

    def exec_module(self, module):
        self._loader.exec_module(module)
        self._register(module)

    def __getattr__(self, name):  # resource readers and the like: the real loader's
        return getattr(self._loader, name)


class _AfterImport(importlib.abc.MetaPathFinder):
    """Finds nothing itself: for a framework still waiting for the id it asks the other
    finders for the spec and wraps its loader in :class:`_Loader`."""

    def __init__(self):
        self.waiting: dict[str, object] = {}

    def find_spec(self, name, path, target=None):
        register = self.waiting.pop(name, None)
        if register is None:
            return None
        if not self.waiting and self in sys.meta_path:
            sys.meta_path.remove(self)
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(name, path, target)
            if spec is not None:
                if spec.loader is not None and hasattr(spec.loader, "exec_module"):
                    spec.loader = _Loader(spec.loader, register)
                return spec
        return None


def register_envs() -> None:
    """Register the env with each framework: now if it is imported, else when it is."""
    hook = None
    for name, register in _REGISTER.items():
        module = sys.modules.get(name)
        if module is not None:
            register(module)
            continue
        if hook is None:
            hook = next((f for f in sys.meta_path if isinstance(f, _AfterImport)), None)
            if hook is None:
                hook = _AfterImport()
                sys.meta_path.insert(0, hook)
        hook.waiting[name] = register
