"""The OpenSpiel game (widderkopf_env.openspiel): OpenSpiel's own checks on every
variant, and the full game's trajectories against the engine's."""

from __future__ import annotations

import random

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel", reason="needs the [openspiel] extra")

from widderkopf_env import VARIANTS, Game  # noqa: E402
from widderkopf_env.game_encoder import encode_game  # noqa: E402
from widderkopf_env.openspiel import deal_actions  # noqa: E402


def _load(**params):
    import widderkopf_env.openspiel  # noqa: F401  (registers the game)

    return pyspiel.load_game("python_widderkopf", params)


def test_load_game_defaults_to_the_full_game_and_one_hand():
    import widderkopf_env.openspiel  # noqa: F401

    game = pyspiel.load_game("python_widderkopf")
    assert game.get_parameters() == {"variant": "full", "num_hands": 1}
    assert game.num_players() == 2 and game.num_distinct_actions() == 42
    assert (game.min_utility(), game.max_utility()) == (-64.0, 64.0)
    assert game.observation_tensor_size() == 540
    gt = game.get_type()
    assert gt.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    assert gt.utility == pyspiel.GameType.Utility.ZERO_SUM
    assert gt.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC


@pytest.mark.parametrize("name", list(VARIANTS))
def test_openspiel_random_simulation_test_passes(name):
    game = pyspiel.load_game(f"python_widderkopf(variant={name})")
    assert game.get_parameters()["variant"] == name
    pyspiel.random_sim_test(game, num_sims=20, serialize=True, verbose=False)
    two = _load(variant=name, num_hands=2)
    pyspiel.random_sim_test(two, num_sims=5, serialize=True, verbose=False)


def test_an_unknown_variant_is_refused_with_the_names():
    with pytest.raises(ValueError, match="tiny, small, medium, full"):
        _load(variant="huge")


@pytest.mark.parametrize("num_hands", [1, 3])
def test_full_game_trajectories_equal_the_engines(num_hands):
    game_os = _load(num_hands=num_hands)
    for seed in range(8):
        g = Game.new(seed=seed, num_hands=num_hands)
        rng = random.Random(seed)
        state = game_os.new_initial_state()
        assert state.is_chance_node()
        state.apply_action(g.first_dealer)
        hand = -1
        while not g.is_over:
            if g.hand_no != hand:  # deal this hand to OpenSpiel, card by card
                hand = g.hand_no
                for card in deal_actions(g.variant, g.deals[hand]):
                    assert state.is_chance_node()
                    assert card in dict(state.chance_outcomes())
                    state.apply_action(card)
            assert state.current_player() == g.current
            assert state.legal_actions() == g.legal_actions()
            for p in (0, 1):
                np.testing.assert_array_equal(state.observation_tensor(p),
                                              encode_game(g, p)[0])
            action = rng.choice(g.legal_actions())
            g.apply(action)
            state.apply_action(action)
        assert state.is_terminal() and state.returns() == g.returns()
        mine, theirs = state.game.state_dict(), {**g.state_dict(), "seed": 0}
        for d in (*mine["deals"], *theirs["deals"]):  # hands are sets (R7): sort them
            for part in d.values():
                part["hand"].sort()
        assert mine == theirs


def _random_state(game, rng, decisions):
    state = game.new_initial_state()
    while not state.is_terminal() and decisions:
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(rng.choices(outcomes, probs)[0])
        else:
            state.apply_action(rng.choice(state.legal_actions()))
            decisions -= 1
    return state


@pytest.mark.parametrize("name", ["tiny", "medium", "full"])
def test_resample_keeps_the_information_state_and_moves_the_hidden_cards(name):
    game = _load(variant=name)
    rng = random.Random(1)
    moved = 0
    for k in range(30):
        state = _random_state(game, rng, rng.randrange(1, 12))
        if state.is_terminal():
            continue
        p = state.current_player()
        sampler = pyspiel.UniformProbabilitySampler(k, 0.0, 1.0)
        for _ in range(3):
            world = state.resample_from_infostate(p, sampler)
            assert world.information_state_string(p) == state.information_state_string(p)
            np.testing.assert_array_equal(world.information_state_tensor(p),
                                          state.information_state_tensor(p))
            assert world.legal_actions() == state.legal_actions()
            moved += world.game.hand[1 - p] != state.game.hand[1 - p]
    assert moved > 0


@pytest.mark.parametrize("name", ["tiny", "full"])
def test_resample_draws_the_worlds_of_the_search_bots_sampler(name):
    """One world sampler: the state ``resample_from_infostate`` returns holds exactly the
    hidden cards that :class:`~widderkopf_env.worlds.Resampler` draws from the same
    floats, in a match of two hands too (the second hand dealt by ``Game.deal_hand``)."""
    from widderkopf_env.worlds import Resampler, SamplerRandom

    game = _load(variant=name, num_hands=2)
    rng = random.Random(4)
    checked = second_hand = 0
    for k in range(60):
        state = _random_state(game, rng, rng.randrange(1, 40))
        if state.is_terminal() or state.is_chance_node():
            continue
        p = state.current_player()
        view = state.game.view(p)
        world = state.resample_from_infostate(p, random.Random(k).random)
        hand, face_down, discard = Resampler(view).draw(SamplerRandom(random.Random(k).random))
        assert world.game.hand[1 - p] == hand
        assert {pile: world.game.down[pile] for pile in face_down} == face_down
        assert world.game.discard[1 - p] == discard
        assert world.game.view(p) == view
        checked += 1
        second_hand += view.hand_no == 1
    assert checked >= 10 and second_hand >= 1


def test_information_states_hide_the_opponents_cards():
    """Two medium deals that differ only in which of player 1's cards lies face down and
    which is in their hand look the same to player 0 (R8), not to player 1."""
    game = _load(variant="medium")
    deal = Game.new(seed=3, variant="medium").deals[0]
    (h0, u0, d0), (h1, u1, d1) = deal
    swapped = ((h0, u0, d0), ([d1[0], *h1[1:]], u1, [h1[0], *d1[1:]]))
    states = []
    for d in (deal, swapped):
        state = game.new_initial_state()
        state.apply_action(0)
        for card in deal_actions(VARIANTS["medium"], d):
            state.apply_action(card)
        states.append(state)
    a, b = states
    assert a.information_state_string(0) == b.information_state_string(0)
    np.testing.assert_array_equal(a.information_state_tensor(0), b.information_state_tensor(0))
    np.testing.assert_array_equal(a.observation_tensor(0), b.observation_tensor(0))
    assert a.information_state_string(1) != b.information_state_string(1)
    assert a.observation_string(1) != b.observation_string(1)


def test_information_states_are_consistent_over_the_tiny_tree():
    """Every history of one information state has the same legal actions and tensor,
    and different information states have different tensors (perfect recall)."""
    from open_spiel.python.algorithms.get_all_states import get_all_states

    game = _load(variant="tiny")
    states = get_all_states(game, include_terminals=False, include_chance_states=False)
    by_key = {}
    for state in states.values():
        p = state.current_player()
        key = state.information_state_string(p)
        tensor = tuple(state.information_state_tensor(p))
        entry = (p, tuple(state.legal_actions()), tensor)
        assert by_key.setdefault(key, entry) == entry
    assert len(by_key) == 2316
    assert len({tensor for _, _, tensor in by_key.values()}) == len(by_key)


@pytest.mark.parametrize("name", ["tiny", "small"])
def test_the_chance_nodes_deal_every_deal_equally_often(name):
    from math import comb, factorial

    game = _load(variant=name)
    v = VARIANTS[name]
    deals = {}

    def walk(state, prob):
        if not state.is_chance_node():
            key = tuple(tuple(sorted(h)) for h, _, _ in state.deals[0])
            deals[key] = deals.get(key, 0.0) + prob
            return
        for action, p in state.chance_outcomes():
            walk(state.child(action), prob * p)

    walk(game.new_initial_state(), 1.0)
    n = v.deck.bit_count()
    count = comb(n, v.hand_size) * comb(n - v.hand_size, v.hand_size) * factorial(4 * v.piles)
    assert len(deals) == count
    assert all(p == pytest.approx(1.0 / count) for p in deals.values())
