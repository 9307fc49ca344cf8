"""Variants (widderkopf_env.VARIANTS): the rules R1-R20 on fewer cards, the full game
unchanged."""

from __future__ import annotations

import random

import numpy as np
import pytest

from widderkopf_env import VARIANTS, Game, Variant
from widderkopf_env import game_encoder as ge
from widderkopf_env.cards import ALL_CARDS, FULL, SPITZER, get_variant, parse_card
from widderkopf_env.deals import deal_to_spec
from widderkopf_env.observation import OFFSETS, encode_view

SMALL = [name for name in VARIANTS if name != "full"]


def _play(game: Game, seed: int) -> Game:
    rng = random.Random(seed)
    while not game.is_over:
        game.apply(rng.choice(game.legal_actions()))
    return game


def test_variants_are_listed_smallest_first_full_last():
    sizes = [v.deck.bit_count() for v in VARIANTS.values()]
    assert sizes == sorted(sizes) and len(set(sizes)) == len(sizes) >= 3
    assert list(VARIANTS)[-1] == "full" and VARIANTS["full"] is FULL
    assert (FULL.deck, FULL.tricks, FULL.total_points) == (ALL_CARDS, 17, 121)
    assert (FULL.win_points, FULL.schneider_points, FULL.max_hand_value) == (61, 91, 64)
    small = VARIANTS["small"]
    assert (small.deck.bit_count(), small.hand_size, small.piles, small.tricks) == (6, 3, 0, 2)
    assert (small.total_points, small.win_points, small.schneider_points) == (15, 8, 12)
    tiny = VARIANTS["tiny"]
    assert (tiny.deck.bit_count(), tiny.tricks, tiny.spitzer, tiny.total_points) == (4, 1, False, 17)


def test_the_full_game_is_the_default():
    a, b = Game.new(seed=5), Game.new(seed=5, variant="full")
    assert a.variant is FULL and a.state_dict() == b.state_dict()
    assert "variant" not in a.to_json()  # full-game files are unchanged


@pytest.mark.parametrize("name", SMALL)
def test_a_variant_plays_its_deck_and_its_thresholds(name):
    v = VARIANTS[name]
    for seed in range(40):
        g = Game.new(seed=seed, variant=name, num_hands=2)
        (h0, u0, d0), (h1, u1, d1) = g.deals[0]
        dealt = [*h0, *u0, *d0, *h1, *u1, *d1]
        assert sorted(dealt) == v.cards and len(h0) == v.hand_size and len(u0) == v.piles
        assert g.up[v.piles:5] == [-1] * (5 - v.piles)  # missing piles stay empty
        _play(g, seed)
        for r in g.results:
            assert sum(r.card_points) == v.total_points  # R17 on the variant's deck
            best = r.card_points[r.winner]
            assert best >= v.win_points > r.card_points[1 - r.winner]
            assert r.value == v.hand_value(r.crack_level, best)
            assert r.schneider == (v.schneider_points <= best < v.total_points)
        again = Game.from_json(g.to_json())
        assert again.variant is v and again.state_dict() == g.state_dict()


@pytest.mark.parametrize("name", SMALL)
def test_absent_cards_are_zero_in_every_encoder(name):
    v = VARIANTS[name]
    absent = [c for c in range(36) if not (v.deck >> c) & 1]
    for seed in range(10):
        g = Game.new(seed=seed, variant=name)
        rng = random.Random(seed)
        while not g.is_over:
            for p in (0, 1):
                ref = encode_view(g.view(p))[0]
                np.testing.assert_array_equal(ge._encode_py(g, p)[0], ref)
                if ge.ACCELERATED:
                    np.testing.assert_array_equal(ge._encode_c(g, p)[0], ref)
                for piece in ("unseen", "trumps", "hand", "my_up", "opp_up"):
                    at = OFFSETS[piece][0]
                    assert not ref[[at + c for c in absent]].any(), piece
            g.apply(rng.choice(g.legal_actions()))


def test_the_spitzer_and_thresholds_in_a_known_tiny_hand():
    deal = {"player_0": {"hand": ["QC", "AC", "7C"], "up": [], "down": []},
            "player_1": {"hand": ["7S", "7H", "7D"], "up": [], "down": []}}
    g = Game.from_deal(deal, dealer=1, variant="small")
    # player 0 (non-dealer) names clubs, discards 7C (Spitzer into player 1's pile), leads
    for a in (36, parse_card("7C"), parse_card("7S"), parse_card("QC"), parse_card("7H"),
              parse_card("AC"), parse_card("7D")):
        g.apply(a)
    r = g.results[0]
    assert r.spitzer == 1 and r.card_points == (14, 1)  # QC 3 + AC 11; the 7C's point
    assert r.winner == 0 and r.schneider and not r.schwarz and r.value == 2


def test_a_deck_without_sevens_has_no_spitzer():
    deal = {"player_0": {"hand": ["QC", "9D"], "up": [], "down": []},
            "player_1": {"hand": ["10H", "KS"], "up": [], "down": []}}
    g = Game.from_deal(deal, dealer=0, variant="tiny")
    # player 1 (non-dealer) names hearts and keeps 10H; player 0 keeps QC, which wins
    for a in (38, parse_card("KS"), parse_card("9D"), parse_card("10H"), parse_card("QC")):
        g.apply(a)
    r = g.results[0]
    # player 0 takes the trick (13) and player 1's discard KS (4): all 17, Schwarz
    assert r.spitzer == -1 and r.card_points == (17, 0) and r.trick_points == (13, 0)
    assert r.winner == 0 and r.schwarz and not r.schneider and r.value == 4


def test_bad_variants_are_refused_with_the_allowed_names():
    with pytest.raises(ValueError, match="tiny, small, medium, full"):
        Game.new(seed=1, variant="huge")
    with pytest.raises(ValueError, match="cannot deal"):
        Variant("odd", VARIANTS["small"].deck, 4, 0)
    with pytest.raises(ValueError, match="four 7s or none"):
        Variant("one7", (1 << 5) - 1 | 1 << SPITZER[0], 3, 0)
    with pytest.raises(ValueError, match="odd total"):
        Variant("even", (1 << 4) - 1, 2, 0)  # A 10 K Q of clubs: 28 points, no 7s
    assert get_variant(None) is FULL and get_variant(VARIANTS["tiny"]) is VARIANTS["tiny"]


def test_a_deal_outside_the_variant_deck_is_refused():
    deal = deal_to_spec((([0, 1, 2], [], []), ([3, 4, 5], [], [])))
    with pytest.raises(ValueError, match="not in the deck of variant 'small'"):
        Game.from_deal(deal, variant="small")


@pytest.mark.parametrize("name", SMALL)
def test_the_envs_play_a_variant(name):
    from gymnasium.utils.env_checker import check_env
    from pettingzoo.test import api_test

    from widderkopf_env import WidderkopfEnv, env

    api_test(env(variant=name), num_cycles=100)
    aec = env(variant=name, reward_shaping=True)
    aec.reset(seed=4)
    assert aec.game.variant is VARIANTS[name]
    assert aec.game.deals == Game.new(seed=4, variant=name).deals
    total = 0.0
    for agent in aec.agent_iter():
        obs, reward, term, trunc, _ = aec.last()
        total += reward if agent == "player_0" else 0.0
        aec.step(None if term or trunc else
                 int(np.flatnonzero(obs["action_mask"])[0]))
    r = aec.game.results[-1]
    sign = 1 if r.winner == 0 else -1
    cp = r.card_points
    assert total == pytest.approx(sign * r.value + (cp[0] - cp[1]) / VARIANTS[name].total_points)
    gym_env = WidderkopfEnv(variant=name, opponent="random")
    check_env(gym_env, skip_render_check=True)
    gym_env.reset(seed=2)
    assert gym_env.game.variant is VARIANTS[name]


def test_an_env_refuses_an_unknown_variant():
    from widderkopf_env import env

    with pytest.raises(ValueError, match="tiny, small, medium, full"):
        env(variant="huge")

