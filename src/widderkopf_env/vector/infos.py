"""The info dicts of a vector env's step (Gymnasium's vector form: a value per sub-env and
a ``_key`` mask saying which sub-envs it is meant for).

:class:`~widderkopf_env.vector.env.WidderkopfVectorEnv` builds a step's ``info`` from
these, on its numpy path and on the compiled core's alike: the hand results of the games
whose hand ended, the ended episodes' last observations and infos (same-step autoreset),
and the rest of this step's facts.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from ..cards import NUM_ACTIONS
from ..engine_types import RESULT_FIELDS

#: (info key, its mask's key, the VecGame array it copies) of each hand-result field
_RESULT_KEYS = tuple((name, "_" + name, "res_" + name) for name in RESULT_FIELDS)


def result_info(game, hand_over: np.ndarray) -> dict:
    """The hand results of ``game`` (a VecGame) as info entries, copied, meant for the
    games whose hand ended (``hand_over``)."""
    info = {}
    for name, under, source in _RESULT_KEYS:
        info[name], info[under] = getattr(game, source).copy(), hand_over
    return info


def masked(step_info: dict, keep: np.ndarray) -> dict:
    """``step_info`` with every ``_key`` mask and-ed with ``keep``; masks that are one array
    (the hand results share theirs) stay one array, and-ed once."""
    out, done = {}, {}
    for key, value in step_info.items():
        if key.startswith("_"):
            both = done.get(id(value))
            if both is None:
                both = done[id(value)] = value & keep
            value = both
        out[key] = value
    return out


@lru_cache(maxsize=8)
def no_actions(n: int) -> np.ndarray:
    """An (n, 42) int8 array of zeros, read-only: the action mask of ended episodes, made
    once per batch size rather than every step."""
    zeros = np.zeros((n, NUM_ACTIONS), np.int8)
    zeros.flags.writeable = False
    return zeros


def final_info(ended: np.ndarray, final_obs: np.ndarray, step_info: dict, viewer: np.ndarray,
               key: str, n: int) -> dict:
    """The same-step autoreset entries of the ``ended`` games: their last observations
    (rows of ``final_obs``, in ``ended``'s order) and infos (``step_info``, who viewed
    (``key``: ``player`` or ``seat``), an empty action mask, read-only and shared)."""
    mark = np.zeros(n, bool)
    mark[ended] = True
    obs = np.empty(n, dtype=object)  # None in every entry
    obs[ended] = np.fromiter(final_obs, object, len(ended))  # the rows, as views
    info = {"action_mask": no_actions(n), "_action_mask": mark,
            key: viewer.copy(), "_" + key: mark}
    info.update(masked(step_info, mark))
    return {"final_obs": obs, "_final_obs": mark, "final_info": info, "_final_info": mark}


def merge(info: dict, step_info: dict, terminated: np.ndarray, final: dict | None) -> dict:
    """``info`` with this step's facts of the going-on episodes and the ended ones'."""
    info.update(masked(step_info, ~terminated))
    if final is not None:
        info.update(final)
    return info
