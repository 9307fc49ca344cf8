"""Where a batch's deals come from (R6, R7).

A :class:`DealSource` deals each game of a :class:`~widderkopf_env.vector.engine.VecGame`
either as :meth:`Game.new(seed=s) <widderkopf_env.rules.Game.new>` does (the seeded deal
of every hand of the match, from :func:`~widderkopf_env.rules.seeded_deal`; one Python
call per game and hand, used for the first episode after ``reset(seed=...)``), or from
its numpy generator, all games at once (every later episode). A smaller
:class:`~widderkopf_env.cards.Variant` deals its own deck, hand size and piles (as
:func:`~widderkopf_env.deals.seeded_variant_deal` lays them out); its missing piles are
-1, as in the scalar engine.
"""

from __future__ import annotations

import numpy as np

from ..cards import FULL, PILES, Variant, get_variant
from ..deals import seeded_dealer, seeded_variant_deal
from .tables import CARD_BIT, U64, bits_of, variant_tables


def layout(perm: np.ndarray, variant: Variant = FULL
           ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Deal arrays from (k, cards) card orders of ``variant``'s deck, laid out as
    :func:`~widderkopf_env.deals.seeded_variant_deal` lays them: in the full game player
    ``p`` gets ``perm[18p:18p+8]`` in hand, the next 5 face up on the last 5. Piles a
    variant does not deal are -1."""
    h, piles = variant.hand_size, variant.piles
    block = h + 2 * piles  # cards dealt to one player: hand, face-up, face-down
    hand = np.stack([bits_of(perm[:, b:b + h]) for b in (0, block)], axis=1)
    up = [perm[:, b + h:b + h + piles] for b in (0, block)]
    down = [perm[:, b + h + piles:b + block] for b in (0, block)]
    if piles < PILES:  # a variant's piles piles..4 of each player stay empty (-1)
        none = np.full((len(perm), PILES - piles), -1, perm.dtype)
        up, down = [up[0], none, up[1], none], [down[0], none, down[1], none]
    return hand, np.concatenate(up, 1).astype(np.int64), np.concatenate(down, 1).astype(np.int64)


class DealSource:
    """Deals for ``n`` games; call it as ``source(idx, hand_no)``.

    A game given a match seed by :meth:`seed` is dealt as ``Game.new(seed=...)`` deals
    (every hand of that match, tie-break hands included) until :meth:`unseed`; the others
    get random deals from :attr:`rng`. ``variant``: the
    :class:`~widderkopf_env.cards.Variant` dealt (a name in ``VARIANTS``; None: the full
    game).
    """

    def __init__(self, n: int, rng: np.random.Generator | None = None, variant=None):
        self.variant = get_variant(variant)
        self._cards = variant_tables(self.variant).cards
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
        k, cards, variant = len(idx), self._cards, self.variant
        order = self.rng.permuted(np.broadcast_to(cards, (k, len(cards))), axis=1)
        hand, up, down = layout(order, variant)
        pad = [-1] * (PILES - variant.piles)  # a variant's missing piles stay empty
        for r in np.flatnonzero(self.seeded[idx]):  # only games dealt from a match seed
            (h0, u0, d0), (h1, u1, d1) = seeded_variant_deal(self.seeds[idx[r]],
                                                             int(hand_no[r]), variant)
            hand[r] = CARD_BIT[h0].sum(dtype=U64), CARD_BIT[h1].sum(dtype=U64)
            up[r], down[r] = u0 + pad + u1 + pad, d0 + pad + d1 + pad
        return hand, up, down
