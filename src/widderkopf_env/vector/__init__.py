"""Batched Widderkopf: N games as numpy arrays, and vector environments over them.

* :class:`~.engine.VecGame`: the batched rules engine (RULES R1-R20, match play);
* :func:`~.encode.encode`: the batched observation encoder (the scalar encoder's arrays);
* :class:`WidderkopfVectorEnv`: a ``gymnasium.vector.VectorEnv``, the
  ``vector_entry_point`` of ``Widderkopf-v0``;
* :class:`~.sb3.WidderkopfSB3VecEnv` (``widderkopf_env.vector.sb3``, needs the ``[train]``
  extra): the same as a Stable-Baselines3 ``VecEnv``.
"""

from .deals import DealSource
from .encode import encode
from .engine import VecGame
from .env import WidderkopfVectorEnv

__all__ = ["DealSource", "VecGame", "WidderkopfVectorEnv", "encode"]
