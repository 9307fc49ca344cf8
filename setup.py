"""Only the optional C accelerators are configured here; everything else is in pyproject.toml.

``widderkopf_env._speedups`` is the compiled core: the rules and the observation encoder
in C (``_core.h``), bound to the batched engine (``_batch.c``, its plumbing in
``_bind.c``), the scalar ``Game`` (``_scalar.c``, ``_scalar_hand.c``, its slots in
``_slots.h``), the scalar encoder (``_speedups.c``) and the seeded deals' shuffle
(``_deal.c``). It is optional: without a C compiler the build goes on and
widderkopf_env runs its Python and numpy code, which gives identical results (``widderkopf_env.game_encoder.ACCELERATED`` and
``widderkopf_env.vector.engine.ACCELERATED`` say which one runs).

``widderkopf_env.agents._solver`` is the endgame solver's search in C (PIMC's inner
loop), optional in the same way: without it ``widderkopf_env.agents.solver`` searches in
Python, with identical results, more slowly (``solver.ACCELERATED``;
``python bench/solver.py`` measures both).
"""

from setuptools import Extension, setup

try:  # numpy's headers let _aec.c make arrays (pyproject's build requires numpy)
    import numpy

    NUMPY = {"include_dirs": [numpy.get_include()], "define_macros": [("WK_NUMPY", "1")]}
except ImportError:
    NUMPY = {}

setup(
    ext_modules=[
        Extension(
            "widderkopf_env._speedups",
            sources=["src/widderkopf_env/_speedups.c", "src/widderkopf_env/_batch.c",
                     "src/widderkopf_env/_bind.c", "src/widderkopf_env/_scalar.c",
                     "src/widderkopf_env/_scalar_hand.c", "src/widderkopf_env/_deal.c",
                     "src/widderkopf_env/_pool.c", "src/widderkopf_env/_aec.c",
                     "src/widderkopf_env/_aec_end.c", "src/widderkopf_env/_aec_start.c"],
            depends=["src/widderkopf_env/_core.h", "src/widderkopf_env/_batch.h",
                     "src/widderkopf_env/_slots.h", "src/widderkopf_env/_draw.h",
                     "src/widderkopf_env/_aec.h"],
            optional=True,
            **NUMPY,
        ),
        Extension(
            "widderkopf_env.agents._solver",
            sources=["src/widderkopf_env/agents/_solver.c"],
            depends=["src/widderkopf_env/agents/_solver_search.h", "src/widderkopf_env/_core.h"],
            include_dirs=["src/widderkopf_env"],
            optional=True,
        ),
    ]
)
