"""Where a batch's deals come from (R6, R7).

A :class:`DealSource` deals each game of a :class:`~widderkopf_env.vector.engine.VecGame`
either as :meth:`Game.new(seed=s) <widderkopf_env.rules.Game.new>` does (the seeded deal
of every hand of the match, from :func:`~widderkopf_env.rules.seeded_deal`; one Python
call per game and hand, used for the first episode after ``reset(seed=...)``), or from
its counter-based generator, all games at once (every later episode).

The generator: a 64-bit ``key`` and, per game ``i``, the number of deals ``draws[i]`` it
has drawn. Deal ``d`` of game ``i`` is a Fisher-Yates shuffle of the variant's cards by
the splitmix64 sequence started at ``mix(mix(key + (i + 1) G) + (d + 1) G)`` (``G`` the
golden-ratio increment, ``mix`` splitmix64's finaliser): output ``t`` is
``mix(start + t G)``; output 0's top bit is a new match's first dealer, output ``t >= 1``
picks the card swapped into place ``m - t`` (``m`` cards) as ``(x >> 32) * (m - t + 1)
>> 32`` (a bias under ``m / 2**32``). Each game's deals depend on its own counter only, so
the compiled core deals the same cards on any number of threads (``csrc/draw.h``'s
``wk_shuffle_deal`` is the same arithmetic; the differential tests tie them). A smaller
:class:`~widderkopf_env.cards.Variant` deals its own deck, hand size and piles (as
:func:`~widderkopf_env.deals.seeded_variant_deal` lays them out); its missing piles are
-1, as in the scalar engine.
"""

from __future__ import annotations

import numpy as np

from ..cards import FULL, PILES, Variant, get_variant
from ..deals import seeded_dealer, seeded_variant_deal
from ..game_encoder import CORE as _core
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


_G = np.uint64(0x9E3779B97F4A7C15)
_M1, _M2 = np.uint64(0xBF58476D1CE4E5B9), np.uint64(0x94D049BB133111EB)
_S30, _S27, _S31, _S32, _S63 = (np.uint64(k) for k in (30, 27, 31, 32, 63))


def mix(z: np.ndarray) -> np.ndarray:
    """splitmix64's finaliser on a uint64 array (arithmetic modulo 2**64)."""
    z = (z ^ (z >> _S30)) * _M1
    z = (z ^ (z >> _S27)) * _M2
    return z ^ (z >> _S31)


def deal_starts(key: int, idx: np.ndarray, draws: np.ndarray) -> np.ndarray:
    """Where the sequence of the next deal of each game of ``idx`` starts (uint64)."""
    game = mix(np.uint64(key) + (idx.astype(U64) + np.uint64(1)) * _G)
    return mix(game + (draws[idx] + np.uint64(1)) * _G)


def shuffle(cards: np.ndarray, start: np.ndarray) -> np.ndarray:
    """(k, m) orders of ``cards``: Fisher-Yates by the sequences at ``start`` (module doc)."""
    k, m = len(start), len(cards)
    order = np.array(np.broadcast_to(cards, (k, m)))
    rows = np.arange(k)
    for t in range(1, m):
        j = m - t
        x = mix(start + np.uint64(t * int(_G) % (1 << 64)))
        r = (((x >> _S32) * np.uint64(j + 1)) >> _S32).astype(np.int64)
        order[rows, j], order[rows, r] = order[rows, r], order[rows, j].copy()
    return order


class DealSource:
    """Deals for ``n`` games; call it as ``source(idx, hand_no)``.

    A game given a match seed by :meth:`seed` is dealt as ``Game.new(seed=...)`` deals
    (every hand of that match, tie-break hands included) until :meth:`unseed`; the others
    get deals from the counter-based generator (module doc) with :attr:`key` and
    :attr:`draws`. ``key``: an int in 0..2**64-1 (None: from the OS's entropy);
    :meth:`rekey` sets it and zeroes the counters. ``variant``: the
    :class:`~widderkopf_env.cards.Variant` dealt (a name in ``VARIANTS``; None: the full
    game). ``accelerated``: shuffle in the compiled core (``csrc/draw.h``) rather than with
    :func:`shuffle`, the same deals (None: wherever the core is available).
    """

    def __init__(self, n: int, key: int | None = None, variant=None,
                 accelerated: bool | None = None):
        if accelerated and _core is None:
            raise ValueError("accelerated=True, but the compiled core is not available (not "
                             "built, or WIDDERKOPF_PURE_PYTHON is set)")
        #: Whether the generator's deals are shuffled in C.
        self.accelerated = _core is not None if accelerated is None else bool(accelerated)
        self.variant = get_variant(variant)
        #: The variant's cards, in the order the shuffle starts from.
        self.cards = variant_tables(self.variant).cards
        self.seeds: list[int | None] = [None] * n
        self.seeded = np.zeros(n, bool)
        self.draws = np.zeros(n, U64)
        self.rekey(key)

    def rekey(self, key: int | None) -> None:
        """Deal from ``key`` (None: a fresh one from the OS's entropy), every counter at 0."""
        if key is None:
            key = int(np.random.SeedSequence().generate_state(1, np.uint64)[0])
        if isinstance(key, bool) or not isinstance(key, (int, np.integer)) \
                or not 0 <= key < 1 << 64:
            raise ValueError(f"key must be an int in 0..2**64-1, got {key!r}")
        self.key = int(key)
        self.draws[:] = 0

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
        out = (mix(deal_starts(self.key, idx, self.draws)) >> _S63).astype(np.int64)
        for r in np.flatnonzero(self.seeded[idx]):
            out[r] = seeded_dealer(self.seeds[idx[r]])
        return out

    def __call__(self, idx: np.ndarray, hand_no: np.ndarray):
        variant, idx = self.variant, np.asarray(idx, np.int64)
        if self.accelerated:
            hand, up = np.empty((len(idx), 2), U64), np.empty((len(idx), 2 * PILES), np.int64)
            down = np.empty_like(up)
            _core.vec_deals(self.key, np.ascontiguousarray(idx), self.draws[idx], self.cards,
                            variant.hand_size, variant.piles, hand, up, down)
        else:
            hand, up, down = layout(shuffle(self.cards, deal_starts(self.key, idx, self.draws)),
                                    variant)
        self.draws[idx] += np.uint64(1)
        pad = [-1] * (PILES - variant.piles)  # a variant's missing piles stay empty
        for r in np.flatnonzero(self.seeded[idx]):  # only games dealt from a match seed
            (h0, u0, d0), (h1, u1, d1) = seeded_variant_deal(self.seeds[idx[r]],
                                                             int(hand_no[r]), variant)
            hand[r] = CARD_BIT[h0].sum(dtype=U64), CARD_BIT[h1].sum(dtype=U64)
            up[r], down[r] = u0 + pad + u1 + pad, d0 + pad + d1 + pad
        return hand, up, down
