"""Seeds and worker counts shared by every layer (the arena, the ladder, training).

:func:`derive_seed` turns a run's seed and a few labels into an independent 63-bit seed,
the same on every process, platform and Python version, so that parallel work seeded
from it gives the same numbers for any number of workers. :func:`default_workers` is the
number of cores this process may use.
"""

from __future__ import annotations

import hashlib
import os

__all__ = ["default_workers", "derive_seed"]


def derive_seed(seed: int, *parts) -> int:
    """A 63-bit seed from ``seed`` and labels: stable across processes and platforms."""
    text = "/".join(str(p) for p in ("widderkopf-arena", seed, *parts))
    return int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "little") >> 1


def default_workers() -> int:
    """The cores this process may run on (its CPU affinity where the OS tells it)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1
