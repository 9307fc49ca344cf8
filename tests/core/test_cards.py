"""Card ids, names, trump order and points (R1-R5)."""

import pytest
from helpers import ids

from widderkopf_env import action_name, card_glyph, card_name, from_bits, parse_card, to_bits
from widderkopf_env.cards import (
    BEATS,
    FOLLOW,
    POINTS,
    QUEENS_JACKS,
    SPITZER,
    SUIT_MASK,
    TRUMP_MASK,
    names,
    trump_order,
)


def test_r1_card_ids_follow_the_public_contract():
    assert [card_name(c) for c in range(9)] == ["AC", "10C", "KC", "QC", "JC", "9C", "8C", "7C",
                                                "6C"]
    assert parse_card("QC") == 3 and parse_card("10D") == 28 and parse_card("6D") == 35
    assert parse_card("TD") == parse_card("td") == parse_card("10d") == 28
    assert parse_card("Q♣") == 3 and card_glyph(28) == "10♦"
    assert sorted(card_name(c) for c in range(36)) == sorted(
        r + s for s in "CSHD" for r in ("A", "10", "K", "Q", "J", "9", "8", "7", "6"))
    assert all(parse_card(card_name(c)) == c for c in range(36))


@pytest.mark.parametrize("bad", ["", "Q", "1C", "11C", "QX", "ZZ", "10", None, 3])
def test_r1_bad_card_names_say_what_is_allowed(bad):
    with pytest.raises(ValueError, match="card name"):
        parse_card(bad)


def test_r2_trump_order_for_each_suit():
    assert names(list(trump_order(3))) == ["QC", "QS", "QH", "QD", "JC", "JS", "JH", "JD",
                                           "AD", "10D", "KD", "9D", "8D", "7D", "6D"]
    for t in range(4):
        order = trump_order(t)
        assert len(order) == 15 and to_bits(order) == TRUMP_MASK[t]
        # a higher trump beats a lower one whichever is led (R16)
        for hi_i, hi in enumerate(order):
            for lo in order[hi_i + 1:]:
                assert BEATS[t][lo * 36 + hi] and not BEATS[t][hi * 36 + lo]


def test_r2_r3_queens_and_jacks_are_trumps_never_plain():
    assert from_bits(QUEENS_JACKS) == ids("QC JC QS JS QH JH QD JD")
    for s in range(4):
        assert SUIT_MASK[s].bit_count() == 7
        assert SUIT_MASK[s] & QUEENS_JACKS == 0
        assert names(SUIT_MASK[s]) == [r + "CSHD"[s] for r in ("A", "10", "K", "9", "8", "7",
                                                                "6")]
    # leading JC under diamonds trumps asks for trumps, not clubs
    assert FOLLOW[3][parse_card("JC")] == TRUMP_MASK[3]
    assert FOLLOW[3][parse_card("AC")] == SUIT_MASK[0]


def test_r3_plain_suit_order_and_off_suit_cards_lose():
    t = 3  # diamonds trump
    spades = [parse_card(n) for n in ("AS", "10S", "KS", "9S", "8S", "7S", "6S")]
    for i, hi in enumerate(spades):
        for lo in spades[i + 1:]:
            assert BEATS[t][lo * 36 + hi] and not BEATS[t][hi * 36 + lo]
    # a plain card of another suit never beats the card led; any trump does
    assert not BEATS[t][parse_card("6S") * 36 + parse_card("AH")]
    assert BEATS[t][parse_card("AS") * 36 + parse_card("6D")]
    assert BEATS[t][parse_card("AS") * 36 + parse_card("JD")]


def test_r4_r5_points_and_spitzer():
    assert sum(POINTS) == 120
    assert [POINTS[parse_card(n)] for n in ("AH", "10H", "KH", "QH", "JH", "9H")] == [
        11, 10, 4, 3, 2, 0]
    assert [card_name(c) for c in SPITZER] == ["7C", "7S", "7H", "7D"]


def test_action_names():
    assert [action_name(a) for a in (0, 35, 36, 39, 40, 41)] == [
        "AC", "6D", "trump C", "trump D", "escalate", "pass"]
    with pytest.raises(ValueError):
        action_name(42)
