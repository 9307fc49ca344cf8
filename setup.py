"""Only the optional C accelerators are configured here; everything else is in pyproject.toml.

``widderkopf_env._core`` is the compiled core, built from the folder
``csrc/`` (its README says which file holds what). It is optional:
without a C compiler the build goes on and widderkopf_env runs its Python and numpy code,
which gives identical results (``widderkopf_env.compiled.CORE`` is None then).

``widderkopf_env.agents._solver`` (``csrc/solver/``) is the endgame solver's search in C (PIMC's inner
loop), optional in the same way: without it ``widderkopf_env.agents.solver`` searches in
Python, with identical results, more slowly (``solver.ACCELERATED``;
``python bench/solver.py`` measures both).
"""

import glob

from setuptools import Extension, setup

try:  # numpy's headers let game_io.c make arrays (pyproject's build requires numpy)
    import numpy

    NUMPY = {"include_dirs": [numpy.get_include()], "define_macros": [("WK_NUMPY", "1")]}
except ImportError:
    NUMPY = {}

# The C sources are the folders themselves: every .c file in csrc/ makes _core, every
# .c file in csrc/solver/ makes _solver (the Makefile and MANIFEST.in take the same folders).
CORE_DIR = "csrc"


def _files(folder: str, pattern: str) -> list[str]:
    return sorted(glob.glob(f"{folder}/{pattern}"))


setup(
    ext_modules=[
        Extension(
            "widderkopf_env._core",
            sources=_files(CORE_DIR, "*.c"),
            depends=_files(CORE_DIR, "*.h"),
            optional=True,
            **NUMPY,
        ),
        Extension(
            "widderkopf_env.agents._solver",
            sources=_files(f"{CORE_DIR}/solver", "*.c"),
            depends=_files(f"{CORE_DIR}/solver", "*.h") + [f"{CORE_DIR}/core.h"],
            optional=True,
        ),
    ]
)
