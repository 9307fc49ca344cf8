"""The seeded deals (R6-R7): the compiled shuffle (``csrc/deal.c``) against the Python
reference (``deals._shuffled_deal_py``), deal by deal, for many seeds, hands and every
variant, and for digests at the edges of the 512-bit range."""

from __future__ import annotations

import random

import pytest

from widderkopf_env import deals
from widderkopf_env.cards import FULL, HAND_SIZE, PILES, VARIANTS
from widderkopf_env.compiled import CORE

needs_core = pytest.mark.skipif(CORE is None,
                                reason="the compiled core is not built or is disabled")


def _layout(variant):
    if variant is FULL:
        return tuple(range(36)), HAND_SIZE, PILES
    return variant.cards, variant.hand_size, variant.piles


@needs_core
@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_compiled_deals_equal_the_reference(name, monkeypatch):
    variant = VARIANTS[name]
    seeds = [*range(400), -1, -(2 ** 70), 2 ** 63 - 1, 2 ** 4000 + 12345]
    keys = [(seed, hand) for seed in seeds for hand in (0, 1, 7)]
    compiled = [deals.seeded_variant_deal(s, h, variant) for s, h in keys]
    monkeypatch.setattr(deals, "_shuffled_deal", deals._shuffled_deal_py)
    assert compiled == [deals.seeded_variant_deal(s, h, variant) for s, h in keys]


@needs_core
@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_compiled_shuffle_equals_the_reference_on_any_digest(name):
    cards, h, p = _layout(VARIANTS[name])
    rng = random.Random(36)
    digests = [bytes(64), b"\xff" * 64, b"\x01" + bytes(63), bytes(63) + b"\x80",
               *(rng.randbytes(64) for _ in range(2000))]
    for digest in digests:
        assert CORE.shuffled_deal(digest, cards, h, p) == \
            deals._shuffled_deal_py(digest, cards, h, p), digest.hex()


def test_a_deal_deals_every_card_of_the_deck_once():
    for variant in VARIANTS.values():
        cards, h, p = _layout(variant)
        for seed in range(50):
            deal = deals.seeded_variant_deal(seed, 0, variant)
            dealt = [c for part in deal for pile in part for c in pile]
            assert sorted(dealt) == sorted(cards)
            assert [len(x) for x in deal[0]] == [h, p, p] == [len(x) for x in deal[1]]


@needs_core
def test_the_compiled_shuffle_refuses_bad_arguments():
    shuffle = CORE.shuffled_deal
    with pytest.raises(ValueError, match="digest must be 64 bytes"):
        shuffle(bytes(32), list(range(36)), 8, 5)
    with pytest.raises(ValueError, match="cannot deal"):
        shuffle(bytes(64), list(range(36)), 8, 4)
    with pytest.raises(ValueError, match="at most 36"):
        shuffle(bytes(64), list(range(40)), 10, 5)
    with pytest.raises(TypeError, match="cards must be a sequence"):
        shuffle(bytes(64), 36, 8, 5)
    with pytest.raises(TypeError):
        shuffle(bytes(64), list(range(36)), 8)
