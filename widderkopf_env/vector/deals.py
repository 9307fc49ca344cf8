"""Where a batch's deals come from (R6, R7).

A :class:`DealSource` deals each game of a :class:`~widderkopf_env.vector.engine.VecGame`
either as :meth:`Game.new(seed=s) <widderkopf_env.rules.Game.new>` does (the seeded deal
of every hand of the match, from :func:`~widderkopf_env.rules.seeded_deal`; one Python
call per game and hand, used for the first episode after ``reset(seed=...)``), or from
its numpy generator, all games at once (every later episode).
"""

from __future__ import annotations

import numpy as np

from ..cards import HAND_SIZE, NUM_CARDS, PILES
from ..rules import seeded_deal, seeded_dealer
from .tables import BIT, U64, bits_of

_BLOCK = HAND_SIZE + 2 * PILES  # cards dealt to one player: hand, face-up, face-down


def layout(perm: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Deal arrays from (k, 36) card orders, laid out as :func:`seeded_deal` lays them:
    player ``p`` gets ``perm[18p:18p+8]`` in hand, the next 5 face up on the last 5."""
    hand = np.stack([bits_of(perm[:, b:b + HAND_SIZE]) for b in (0, _BLOCK)], axis=1)
    up = np.concatenate([perm[:, b + HAND_SIZE:b + HAND_SIZE + PILES] for b in (0, _BLOCK)], 1)
    down = np.concatenate([perm[:, b + HAND_SIZE + PILES:b + _BLOCK] for b in (0, _BLOCK)], 1)
    return hand, up.astype(np.int64), down.astype(np.int64)


class DealSource:
    """Deals for ``n`` games; call it as ``source(idx, hand_no)``.

    A game given a match seed by :meth:`seed` is dealt as ``Game.new(seed=...)`` deals
    (every hand of that match, tie-break hands included) until :meth:`unseed`; the others
    get random deals from :attr:`rng`.
    """

    def __init__(self, n: int, rng: np.random.Generator | None = None):
        self.seeds: list[int | None] = [None] * n
        self.seeded = np.zeros(n, bool)
        self.rng = rng if rng is not None else np.random.default_rng()

    def seed(self, idx, seeds) -> None:
        """Deal the next matches of games ``idx`` as ``Game.new(seed=seeds[r])``."""
        for i, s in zip(idx, seeds, strict=True):
            self.seeds[i] = int(s)
        self.seeded[idx] = True

    def unseed(self, idx) -> None:
        """Deal games ``idx`` from :attr:`rng` from now on."""
        self.seeded[idx] = False

    def first_dealers(self, idx: np.ndarray) -> np.ndarray:
        """The first dealer of a new match in each game of ``idx`` (R6)."""
        out = self.rng.integers(0, 2, len(idx))
        for r in np.flatnonzero(self.seeded[idx]):
            out[r] = seeded_dealer(self.seeds[idx[r]])
        return out

    def __call__(self, idx: np.ndarray, hand_no: np.ndarray):
        k = len(idx)
        order = self.rng.permuted(np.broadcast_to(np.arange(NUM_CARDS), (k, NUM_CARDS)), axis=1)
        hand, up, down = layout(order)
        for r in np.flatnonzero(self.seeded[idx]):  # only games dealt from a match seed
            (h0, u0, d0), (h1, u1, d1) = seeded_deal(self.seeds[idx[r]], int(hand_no[r]))
            hand[r] = BIT[h0].sum(dtype=U64), BIT[h1].sum(dtype=U64)
            up[r], down[r] = u0 + u1, d0 + d1
        return hand, up, down
