"""Loading the optional C accelerators (the compiled core ``_core``, the solver's ``_solver``).

Each is a compiled twin of pure-Python code that gives the same results, faster. It is
used when it was built (a C compiler at install) and ``WIDDERKOPF_PURE_PYTHON`` is unset
or ``0``; a build that does not fit this version (its ``configure`` refuses the tables
it is given) is set aside with a warning, and the pure-Python code runs.
"""

from __future__ import annotations

import importlib
import os
import warnings

__all__ = ["load_accelerator", "pure_python_forced"]


def pure_python_forced() -> bool:
    """Whether ``WIDDERKOPF_PURE_PYTHON`` asks for the pure-Python code."""
    return os.environ.get("WIDDERKOPF_PURE_PYTHON", "") not in ("", "0")


def load_accelerator(name: str, configure, replaces: str):
    """The compiled module ``name``, after ``configure(module)``, or None when it was not
    built, is turned off, or does not fit (then with a warning naming ``replaces``, the
    pure-Python code that runs instead)."""
    if pure_python_forced():
        return None
    try:
        module = importlib.import_module(name)
    except ImportError:
        return None
    try:
        configure(module)
    except (AttributeError, TypeError, ValueError) as err:  # a stale build
        warnings.warn(f"{name} does not fit this version ({err}); using the pure-Python "
                      f"{replaces}. Reinstall widderkopf-env to rebuild it.",
                      RuntimeWarning, stacklevel=3)
        return None
    return module
