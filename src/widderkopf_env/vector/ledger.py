"""Rewards of a batch: :class:`~widderkopf_env.episode.Episode`'s rewards for N games at once.

For each move applied, player_0's reward (player_1 gets its negative): when the move
ends a hand, the hand's game points (R19), and with ``shaping`` the card-point
difference / 121 (a smaller variant's own total) as it changes plus, at the hand's end,
what is left of the final difference (the discards and the Spitzer). Same arithmetic, in
the same order, as the scalar ledger, so the floats are equal bit for bit (the
differential tests compare them exactly).
"""

from __future__ import annotations

import numpy as np


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
