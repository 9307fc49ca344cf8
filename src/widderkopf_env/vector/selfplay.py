"""The self-play vector env's step on the compiled core, in one C call.

:class:`FusedStep` moves every game of a :class:`~widderkopf_env.vector.engine.VecGame`
(``csrc/play.c``'s ``vec_play``), settles each move's reward on the env's
:class:`~widderkopf_env.vector.ledger.VecRewardLedger`, deals the next hand or the next
match of the games that need one from the :class:`~widderkopf_env.vector.deals.DealSource`'s
counter-based generator, and writes every observation row and mask, on the batch's
``num_threads`` threads. Only the next hands of seeded matches (the first episode after
``reset(seed=...)``, dealt as ``Game.new(seed=...)``) are left to Python.

:meth:`WidderkopfVectorEnv._step <widderkopf_env.vector.env.WidderkopfVectorEnv._step>`,
the numpy path, is its reference: the same observations, rewards, ends and infos
(``tests/vector/test_vector_differential.py``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..game_encoder import CORE as _core
from ..observation import OBS_SIZE
from .encode import encode


@dataclass
class Moved:
    """What one fused step returns besides the observations, all fresh arrays:
    ``reward`` (N,: the mover's), ``rewards`` (N, 2) per seat, ``terminated``,
    ``hand_over`` (a hand ended), ``mover`` (who moved), ``ended`` (the indices of the
    terminated games) and ``final_obs`` (one row per ended game: its last observation,
    the mover's, as over)."""

    reward: np.ndarray
    rewards: np.ndarray
    terminated: np.ndarray
    hand_over: np.ndarray
    mover: np.ndarray
    ended: np.ndarray
    final_obs: np.ndarray


class FusedStep:
    """The fused self-play step of one env's batch (its buffers are allocated once)."""

    def __init__(self, n: int, obs_dtype):
        self._final = np.zeros((n, OBS_SIZE), obs_dtype)
        self._need, self._ended = np.zeros(n, np.int64), np.zeros(n, np.int64)

    def __call__(self, game, actions, obs, mask, ledger, deals, num_hands) -> Moved | None:
        """Step every game with ``actions`` (N int64), writing ``obs`` and ``mask`` in place;
        None, with nothing changed, when an action is not legal (or the arrays are out of
        range): the caller's numpy path then raises or penalises as it should."""
        n, v = game.n, deals.variant
        reward, rewards = np.empty(n), np.empty((n, 2))
        terminated, hand_over = np.empty(n, bool), np.empty(n, bool)
        mover = np.empty(n, np.int64)
        out = _core.vec_play(
            game, actions=actions, obs_out=obs, mask_out=mask, final_out=self._final,
            reward_out=reward, rewards_out=rewards, terminated_out=terminated,
            hand_over_out=hand_over, mover_out=mover, need_out=self._need,
            seeded=deals.seeded, hands=ledger.hands, shaped=ledger.shaped, draws=deals.draws,
            cards=deals.cards, ended_out=self._ended, key=deals.key, shaping=ledger.shaping,
            hand_size=v.hand_size, piles=v.piles, num_hands=num_hands,
            num_threads=game.num_threads)
        if out == -1:
            return None
        k, e = out
        if k:  # seeded matches' next hands, dealt as Game.new(seed=...) deals them
            dealt = self._need[:k].copy()
            game.start_hands(dealt)
            obs[dealt], mask[dealt] = encode(game, dealt, game.current[dealt], dtype=obs.dtype)
        return Moved(reward, rewards, terminated, hand_over, mover, self._ended[:e].copy(),
                     self._final[:e].copy())
