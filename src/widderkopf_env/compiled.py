"""The compiled core, ``widderkopf_env._core``: loaded and configured here, once.

Its C sources are the folder ``csrc/`` of the repository (the rules over card bit sets, the
batched engine and its binding, the scalar ``Game``, the observation encoder and the
seeded deals' shuffle). At load it is handed every table it reads, from their one
source: the rule tables (:func:`~widderkopf_env.cards.core_tables`), the observation
layout and scales (:mod:`~widderkopf_env.observation_layout`) and the class of a hand's result
(:class:`~widderkopf_env.engine_types.HandResult`, which the compiled Game calls); a
build that does not fit them is set aside
(:func:`~widderkopf_env.accelerators.load_accelerator`). :data:`CORE` is the module, or
None where the pure-Python code runs (no C compiler at install, or
``WIDDERKOPF_PURE_PYTHON=1``).
"""

from __future__ import annotations

from .accelerators import load_accelerator
from .cards import HAND_SIZE, NUM_ACTIONS, PILES, TOTAL_POINTS, TRICKS, TRUMP_MASK, core_tables
from .engine_types import HandResult
from .observation_layout import HANDS_LEFT_CAP, OBS_SIZE, OFFSETS, SCORE_SCALE

__all__ = ["CORE"]


def _configure(module) -> None:
    scales = (TOTAL_POINTS, TRICKS, HAND_SIZE, PILES, SCORE_SCALE, HANDS_LEFT_CAP)
    module.configure(dict(OFFSETS), OBS_SIZE, NUM_ACTIONS, tuple(TRUMP_MASK), scales)
    module.configure_rules(*core_tables())
    module.configure_game(HandResult)


#: The configured ``widderkopf_env._core`` module, or None (the pure-Python code runs).
CORE = load_accelerator("widderkopf_env._core", configure=_configure,
                        replaces="rules engine and encoder")
