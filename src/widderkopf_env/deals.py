"""Deals: deal specs by card names (:func:`parse_deal`, :func:`deal_to_spec`) and seeded
deals (:func:`seeded_deal`, :func:`seeded_variant_deal`, :func:`seeded_dealer`, RULES
R6-R7). Nothing here knows the engine's state; :mod:`widderkopf_env.rules` builds games
from it, and :mod:`widderkopf_env.game_file` writes and reads them as JSON.
"""

from __future__ import annotations

import hashlib
import math

from .cards import FULL, HAND_SIZE, NUM_CARDS, PILES, card_name, parse_card
from .checks import SEATS
from .compiled import CORE


def parse_deal(deal, variant=FULL) -> tuple[tuple[list[int], list[int], list[int]], ...]:
    """Validate a deal spec and return ``((hand, up, down), (hand, up, down))`` as card ids.

    The spec is ``{"player_0": {"hand": [8 names], "up": [5], "down": [5]}, "player_1": ...}``
    with ``up[i]`` lying on ``down[i]`` (R7). Raises ``ValueError`` saying what is wrong.
    A ``variant`` (:class:`~widderkopf_env.cards.Variant`) deals its own sizes and deck.
    """
    if not isinstance(deal, dict) or set(deal) != set(SEATS):
        got = sorted(map(repr, deal)) if isinstance(deal, dict) else type(deal).__name__
        raise ValueError(f"deal must be a dict with keys 'player_0' and 'player_1', got {got}")
    sizes = {"hand": HAND_SIZE, "up": PILES, "down": PILES}
    if variant is not FULL:
        sizes = {"hand": variant.hand_size, "up": variant.piles, "down": variant.piles}
    out, seen = [], {}
    for agent in SEATS:
        part = deal[agent]
        if not isinstance(part, dict) or set(part) != set(sizes):
            got = sorted(map(repr, part)) if isinstance(part, dict) else type(part).__name__
            raise ValueError(f"deal[{agent!r}] must have keys 'hand', 'up', 'down', got {got}")
        ids = []
        for key, size in sizes.items():
            names = part[key]
            if not isinstance(names, (list, tuple)) or len(names) != size:
                raise ValueError(
                    f"deal[{agent!r}][{key!r}] must list {size} card names (a list or "
                    f"tuple), got {names!r}")
            cards = []
            for name in names:
                try:
                    card = parse_card(name)
                except ValueError as err:
                    raise ValueError(f"deal[{agent!r}][{key!r}]: {err}") from None
                if not (variant.deck >> card) & 1:
                    raise ValueError(f"card {card_name(card)} is not in the deck of variant "
                                     f"{variant.name!r}: {variant.describe()}")
                if card in seen:
                    raise ValueError(f"card {card_name(card)} is dealt twice: in {seen[card]} "
                                     f"and in {agent}.{key}")
                seen[card] = f"{agent}.{key}"
                cards.append(card)
            ids.append(cards)
        out.append(tuple(ids))
    return tuple(out)


def deal_to_spec(deal) -> dict:
    """The inverse of :func:`parse_deal`: card ids -> the named deal spec."""
    return {
        agent: {key: [card_name(c) for c in cards]
                for key, cards in zip(("hand", "up", "down"), part, strict=True)}
        for agent, part in zip(SEATS, deal, strict=True)
    }


def _digest(text: str) -> bytes:
    return hashlib.blake2b(text.encode(), digest_size=64).digest()


def _shuffled_deal_py(digest: bytes, cards, hand_size: int, piles: int):
    """The deal of ``cards`` shuffled with the 64-byte ``digest``: the reference of the
    compiled core's ``shuffled_deal`` (``csrc/deal.c``), which gives the same deals."""
    cards = list(cards)
    x = int.from_bytes(digest, "little") % math.factorial(len(cards))
    for i in range(len(cards) - 1, 0, -1):  # Fisher-Yates, with the swaps read off x
        x, j = divmod(x, i + 1)
        cards[i], cards[j] = cards[j], cards[i]
    h, p = hand_size, piles
    return tuple((cards[b:b + h], cards[b + h:b + h + p], cards[b + h + p:b + h + 2 * p])
                 for b in (0, h + 2 * p))


_shuffled_deal = CORE.shuffled_deal if CORE is not None else _shuffled_deal_py
_DECK = tuple(range(NUM_CARDS))


def seeded_deal(seed: int, hand: int):
    """The deal of hand ``hand`` of the match with ``seed``: a uniform random permutation.

    The 512-bit BLAKE2b hash of ``"widderkopf/<seed>/hand/<hand>"`` is reduced modulo 36!
    and decoded in the factorial number system (bias below 2**-370). The same seed gives
    the same deals on every platform and Python version.
    """
    return _shuffled_deal(_digest(f"widderkopf/{seed}/hand/{hand}"), _DECK, HAND_SIZE, PILES)


def seeded_variant_deal(seed: int, hand: int, variant):
    """:func:`seeded_deal` for a smaller :class:`~widderkopf_env.cards.Variant`: a uniform
    permutation of its deck (from ``"widderkopf/<seed>/<variant>/hand/<hand>"``), dealt
    as hand, face-up and face-down cards to each player in turn."""
    if variant is FULL:
        return seeded_deal(seed, hand)
    return _shuffled_deal(_digest(f"widderkopf/{seed}/{variant.name}/hand/{hand}"),
                          variant.cards, variant.hand_size, variant.piles)


def seeded_dealer(seed: int) -> int:
    """The first dealer drawn from ``seed`` (R6)."""
    return _digest(f"widderkopf/{seed}/dealer")[0] & 1
