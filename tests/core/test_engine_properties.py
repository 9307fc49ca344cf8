"""Invariants over random games (hypothesis) and the engine checked against the plain
reference referee in tests/reference.py (written separately, from RULES.md alone)."""

import random

from helpers import assert_cards_conserved
from hypothesis import given, settings
from hypothesis import strategies as st
from reference import RefHand

from widderkopf_env import Game
from widderkopf_env.rules import deal_to_spec

seeds = st.integers(min_value=0, max_value=2**63 - 1)


def random_play(game: Game, rng: random.Random, crack_prob: float = 0.3, check=None) -> None:
    while not game.is_over:
        if check:
            check(game)
        acts = game.legal_actions()
        assert acts, "no legal action in a live game"
        game.apply(40 if 40 in acts and rng.random() < crack_prob else rng.choice(acts))


@settings(max_examples=150, deadline=None)
@given(seed=seeds, policy_seed=st.integers(0, 10**6), crack=st.sampled_from([0.0, 0.3, 1.0]))
def test_invariants_every_step(seed, policy_seed, crack):
    """Cards conserved (R7), 17 tricks (R12), points sum to 121 (R17), one winner with
    61+ (R18), value a power of two in 1..64 (R19)."""
    g = Game.new(seed=seed)
    random_play(g, random.Random(policy_seed), crack, check=assert_cards_conserved)
    assert_cards_conserved(g)
    assert len(g.tricks) == 17 and g.current_player is None and g.legal_actions() == []
    r = g.results[0]
    assert sum(r.card_points) == 121 and r.card_points[r.winner] >= 61
    assert r.value in (1, 2, 4, 8, 16, 32, 64) and r.value >= 2 ** r.crack_level
    assert g.hand[0] == g.hand[1] == g.upbits[0] == g.upbits[1] == 0
    assert set(g.down) == {-1}
    assert sum(g.returns()) == 0 and g.returns()[r.winner] == r.value


@settings(max_examples=60, deadline=None)
@given(seed=seeds, policy_seed=st.integers(0, 10**6), stop=st.integers(0, 60),
       hands=st.integers(1, 3))
def test_json_round_trip_and_clone_independence(seed, policy_seed, stop, hands):
    rng = random.Random(policy_seed)
    g = Game.new(seed=seed, num_hands=hands)
    for _ in range(stop):
        if g.is_over:
            break
        g.apply(rng.choice(g.legal_actions()))
    text = g.to_json()
    back = Game.from_json(text)
    assert back.state_dict() == g.state_dict() and back.to_json() == text
    assert back.legal_actions() == g.legal_actions()
    # a clone evolves independently of its original
    before = g.state_dict()
    c = g.clone()
    random_play(c, random.Random(policy_seed + 1))
    assert g.state_dict() == before
    # and the original replays identically after its clone was played out
    random_play(g, random.Random(7))
    random_play(back, random.Random(7))
    assert g.state_dict() == back.state_dict()


@settings(max_examples=30, deadline=None)
@given(seed=seeds)
def test_same_seed_same_game(seed):
    a, b = Game.new(seed=seed, num_hands=2), Game.new(seed=seed, num_hands=2)
    random_play(a, random.Random(1))
    random_play(b, random.Random(1))
    assert a.to_json() == b.to_json()


def test_seeds_give_different_uniform_looking_deals():
    counts = [0] * 36
    specs = set()
    for s in range(2000):
        g = Game.new(seed=s)
        specs.add(g.to_json())
        for c in g.deals[0][0][0]:  # player_0's hand
            counts[c] += 1
    assert len(specs) == 2000
    expected = 2000 * 8 / 36  # each card lands in player_0's hand with p = 8/36
    assert all(abs(c - expected) < 5 * expected ** 0.5 for c in counts)


def test_engine_matches_reference_on_random_games():
    """Same player to act, same legal actions at every step, same trick winners, card
    points, winner and game value, over thousands of random hands."""
    games = 2500
    compared = 0
    for i in range(games):
        rng = random.Random(i)
        scores = (rng.randrange(4), rng.randrange(4))
        g = Game.new(seed=i, scores=scores)
        ref = RefHand(deal_to_spec(g.deals[0]), g.dealer, scores)
        crack = rng.choice([0.0, 0.5, 1.0])
        while not g.results:
            acts = g.legal_actions()
            assert g.current_player == ref.current_player()
            assert acts == ref.legal_actions(), f"game {i}: {acts} != {ref.legal_actions()}"
            a = 40 if 40 in acts and rng.random() < crack else rng.choice(acts)
            g.apply(a)
            ref.apply(a)
        r = g.results[0]
        assert ref.is_over()
        if g.is_over:  # (a tied match plays on and the live state moves to the next hand)
            assert [t[3] for t in g.tricks] == ref.trick_winners(), f"game {i}"
            compared += 1
        assert r.card_points == tuple(ref.card_points())
        assert (r.winner, r.value, r.crack_level) == (ref.winner(), ref.game_value(),
                                                      ref.crack_level())
    assert compared > games // 2  # trick winners were compared in most games
