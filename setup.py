"""Only the optional C accelerator is configured here; everything else is in pyproject.toml.

``widderkopf_env._speedups`` encodes observations in C: without it an env step takes
1.5-1.6x as long (README, "Benchmarks"; ``python bench/env.py``). It is optional:
without a C compiler the build goes on and widderkopf_env uses its pure-Python encoder,
which gives identical observations (``widderkopf_env.game_encoder.ACCELERATED`` says
which one runs).
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "widderkopf_env._speedups",
            sources=["widderkopf_env/_speedups.c"],
            optional=True,
        )
    ]
)
