"""Rewards of a batch: :class:`~widderkopf_env.episode.Episode`'s rewards for N games at once.

For each move applied, player_0's reward (player_1 gets its negative): when the move
ends a hand, the hand's game points (R19), and with ``shaping`` the card-point
difference / 121 (a smaller variant's own total) as it changes plus, at the hand's end,
what is left of the final difference (the discards and the Spitzer).

The reward rule has two homes: :func:`~widderkopf_env.episode.move_reward` (what
``Episode.settle`` pays), called per game on the pure-Python fallback (a
:class:`~widderkopf_env.vector.engine.VecGame` not ``accelerated``), and the compiled
core's ``wk_settle`` (``csrc/rules.h``), one call per batch beside it (``vec_settle``), the
same function the fused self-play step settles with; the differential tests compare both
exactly.
"""

from __future__ import annotations

import numpy as np

from ..compiled import CORE
from ..episode import move_reward
from .rows import hand_result


class VecRewardLedger:
    """One scalar ledger per game of a :class:`~widderkopf_env.vector.engine.VecGame`."""

    def __init__(self, n: int, shaping: bool):
        self.shaping = shaping
        self.hands = np.zeros(n, np.int64)  # hands settled so far, per game
        self.shaped = np.zeros(n, np.int64)  # card-point difference paid in this hand

    def restart(self, idx) -> None:
        """New matches in games ``idx``."""
        self.hands[idx] = 0
        self.shaped[idx] = 0

    def settle(self, game, idx) -> np.ndarray:
        """player_0's reward (float64) for the move just applied in each game of ``idx``
        (an index array, or ``slice(None)`` for every game)."""
        idx = game.all[idx]
        if not game.accelerated:
            return self._settle_each(game, idx)
        out = np.empty(len(idx), float)
        CORE.vec_settle(game, idx, self.hands, self.shaped, self.shaping, out)
        return out

    def _settle_each(self, game, idx: np.ndarray) -> np.ndarray:
        """:meth:`settle` by the reward rule, one game at a time."""
        count = game.res_count[idx]
        ended = (count != self.hands[idx]).tolist()
        total, shaping = game.variant.total_points, self.shaping
        x, shaped = [], []
        for i, end, tp, paid in zip(idx.tolist(), ended, game.trick_points[idx].tolist(),
                                    self.shaped[idx].tolist(), strict=True):
            reward, paid = move_reward(hand_result(game, i) if end else None, tp, paid, total,
                                       shaping)
            x.append(reward)
            shaped.append(paid)
        self.hands[idx], self.shaped[idx] = count, shaped
        return np.array(x, float)
