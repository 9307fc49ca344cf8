"""Rewards of a batch: :class:`~widderkopf_env.episode.Episode`'s rewards for N games at once.

For each move applied, player_0's reward (player_1 gets its negative): when the move
ends a hand, the hand's game points (R19), and with ``shaping`` the card-point
difference / 121 (a smaller variant's own total) as it changes plus, at the hand's end,
what is left of the final difference (the discards and the Spitzer).

On the pure-Python fallback (a :class:`~widderkopf_env.vector.engine.VecGame` not
``accelerated``) each game's reward is the reward rule's own,
:func:`~widderkopf_env.episode.move_reward` (what ``Episode.settle`` pays), called per
game. Beside the compiled core the same arithmetic runs as whole-array numpy operations,
in the same order, so the floats are equal bit for bit (the differential tests compare
them exactly): the core settles rewards only inside its fused self-play step
(:mod:`~widderkopf_env.vector.selfplay`), and one Python call per game would cost the
batch more than its step in C.
"""

from __future__ import annotations

import numpy as np

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
        if not game.accelerated:
            return self._settle_each(game, game.all[idx])
        ended = game.res_count[idx] != self.hands[idx]
        self.hands[idx] = game.res_count[idx]
        value = game.res_value[idx]
        x = np.where(ended, np.where(game.res_winner[idx] == 0, value, -value), 0).astype(float)
        if not self.shaping:
            return x
        shaped = self.shaped[idx]
        cp = game.res_card_points[idx]
        tp = game.trick_points[idx]
        diff = tp[:, 0] - tp[:, 1]
        total = float(game.variant.total_points)
        x = np.where(ended, x + (cp[:, 0] - cp[:, 1] - shaped) / total, (diff - shaped) / total)
        self.shaped[idx] = np.where(ended, 0, diff)
        return x

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
