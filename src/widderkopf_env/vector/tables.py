"""The card tables of :mod:`widderkopf_env.cards` as numpy arrays (built at import), for
the batch's encoder, its deal source and the compiled core's set-up.

Nothing here is rule knowledge of its own: every array is a conversion of a table or a
function of ``cards.py`` (card bits, the trumps, what a hand is worth), so the batch and
the scalar engine cannot disagree on them.
"""

from __future__ import annotations

from functools import cache

import numpy as np

from ..cards import MAX_LEVEL, NUM_CARDS, TRUMP_MASK, Variant

U64 = np.dtype("<u8")  # little-endian: byte k of a value holds bits 8k..8k+7
ZERO = np.uint64(0)
#: ``BIT[i]`` is ``1 << i`` as uint64 (i < 64): card and action bits by look-up.
BIT = np.array([1 << i for i in range(64)], dtype=U64)
#: ``CARD_BIT[c]``: ``1 << c`` for a card id, 0 for index -1 (no card: an empty pile).
CARD_BIT = np.append(BIT[:NUM_CARDS], ZERO)
#: All 36 card bits.
ALL_CARDS = np.uint64((1 << NUM_CARDS) - 1)
#: The 15 trumps by trump suit (R2), and a fifth entry 0 for "not named yet" (index -1).
TRUMP_MASK_NP = np.array(list(TRUMP_MASK) + [0], dtype=U64)


class VariantTables:
    """A :class:`~widderkopf_env.cards.Variant`'s numbers as the batched engine reads them
    (:func:`variant_tables`): its deck, its trumps, what a hand is worth."""

    def __init__(self, variant: Variant):
        self.variant = variant
        #: The deck's card ids, ascending, and its bit set.
        self.cards = np.array(variant.cards, dtype=np.int64)
        self.deck = np.uint64(variant.deck)
        #: :data:`TRUMP_MASK_NP` within the deck (the trumps a variant holds).
        self.trump_mask = TRUMP_MASK_NP & self.deck
        #: ``hand_value[level, points]``: game points of a hand won with ``points`` (R19).
        self.hand_value = np.array(
            [[variant.hand_value(lv, p) for p in range(variant.total_points + 1)]
             for lv in range(MAX_LEVEL + 1)], dtype=np.int64)


@cache
def variant_tables(variant: Variant) -> VariantTables:
    """The :class:`VariantTables` of ``variant`` (built once per variant)."""
    return VariantTables(variant)


def popcount(x: np.ndarray) -> np.ndarray:
    """Set bits of each uint64 (numpy >= 2.0 has a ufunc for it)."""
    return np.bitwise_count(x).astype(np.int64)


def unpack_bits(x: np.ndarray, width: int) -> np.ndarray:
    """The low ``width`` bits of each uint64 in ``x`` (any shape ``S``) as uint8 0/1 of
    shape ``S + (width,)``, least significant first."""
    x = np.ascontiguousarray(x, dtype=U64)
    raw = x.view(np.uint8).reshape(x.shape + (8,))
    return np.unpackbits(raw, axis=-1, count=width, bitorder="little")


def bits_of(cards: np.ndarray) -> np.ndarray:
    """The set of card ids along the last axis of ``cards`` (each >= 0) as uint64."""
    return np.bitwise_or.reduce(BIT[cards], axis=-1)
