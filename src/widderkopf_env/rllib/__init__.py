"""Widderkopf on Ray RLlib (the ``[rllib]`` extra): the multi-agent env.

Training on RLlib (league self-play, the masking RLModules, ``widderkopf-train-rllib``)
lives in :mod:`widderkopf_env.train.rllib`; playing a checkpoint as an agent in
:mod:`widderkopf_env.agents.rllib_checkpoint`.

``register()`` makes the env available to RLlib under the name ``"widderkopf"``.
"""

from __future__ import annotations

ENV_NAME = "widderkopf"

__all__ = ["ENV_NAME", "WidderkopfMultiAgentEnv", "make_env", "register"]


def register(name: str = ENV_NAME) -> str:
    """Register :class:`WidderkopfMultiAgentEnv` with Ray Tune's registry under ``name``
    (so ``config.environment("widderkopf", env_config={...})`` works); returns ``name``."""
    from ray.tune.registry import register_env

    register_env(name, make_env)
    return name


def make_env(config: dict | None = None):
    """A :class:`WidderkopfMultiAgentEnv` (the creator ``register()`` registers)."""
    from .env import WidderkopfMultiAgentEnv

    return WidderkopfMultiAgentEnv(config)


def __getattr__(name):
    # imported lazily so that ``import widderkopf_env.rllib`` alone does not import ray
    if name == "WidderkopfMultiAgentEnv":
        from .env import WidderkopfMultiAgentEnv

        return WidderkopfMultiAgentEnv
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
