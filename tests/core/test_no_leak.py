"""No hidden information reaches a player's observation or action mask (RULES R8).

For random positions and a player p, build another game that p cannot tell apart from
the real one: the same deal and actions, except that the cards p has not seen (the
opponent's hand and discard, every card still face down) are permuted among those
places, the opponent's discard action following its card. Samples whose replay is
illegal (the opponent could not have played so with the permuted cards) are skipped.
p's observation and mask must be identical in both games. A deliberately leaky encoder
must be caught by the same check, so it cannot pass vacuously.
"""

from __future__ import annotations

import random

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from indistinguishable import (
    hidden_cards,
    observe,
    permutations,
    random_positions,
    rebuild,
    run_check,
)

from widderkopf_env.aec_env import raw_env
from widderkopf_env.game_encoder import encoder_for
from widderkopf_env.rules import deal_to_spec

AGENTS = ("player_0", "player_1")


def test_observation_and_mask_leak_nothing():
    stats = run_check(observe, n=400, seed=1)
    assert stats["leaks"] == 0, stats
    # not vacuous: most positions were compared with a really different hidden state,
    # in every phase of the hand (TRUMP, DISCARD, PLAY, ANSWER)
    assert stats["nontrivial"] >= 300, stats
    assert stats["phases"] >= {0, 1, 2, 3}, stats


def test_the_check_catches_leaky_encoders():
    def with_opponent_hand(game, p):
        obs, mask = observe(game, p)
        return np.append(obs, game.hand[1 - p]), mask

    def with_face_down_cards(game, p):
        obs, mask = observe(game, p)
        return np.append(obs, [c for c in game.down]), mask

    def with_opponent_discard(game, p):
        obs, mask = observe(game, p)
        return np.append(obs, game.discard[1 - p]), mask

    def with_opponent_legal_moves(game, p):
        obs, mask = observe(game, p)
        return obs, np.append(mask, game.legal_mask if game.current != p else 0)

    for leaky in (with_opponent_hand, with_face_down_cards, with_opponent_discard,
                  with_opponent_legal_moves):
        stats = run_check(leaky, n=120, seed=2)
        assert stats["leaks"] >= 10, (leaky.__name__, stats)


def test_the_compact_observation_leaks_nothing():
    """The same check on the encoder the envs use with ``obs_dtype=np.uint8``."""
    compact = encoder_for(np.uint8)
    stats = run_check(lambda game, p: compact(game, p), n=200, seed=3)
    assert stats["leaks"] == 0, stats
    assert stats["nontrivial"] >= 150, stats


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**31), player=st.sampled_from([0, 1]),
       obs_dtype=st.sampled_from([np.float32, np.uint8]))
def test_env_observe_leaks_nothing(seed, player, obs_dtype):
    """The AEC env's observe() on two indistinguishable games gives the same result."""
    game = next(random_positions(1, seed))[0]
    rng = random.Random(seed)
    hidden = hidden_cards(game, player)
    if len(hidden) < 2:
        return
    for sigma in permutations(hidden, rng):
        other = rebuild(game, sigma)
        if other is not None:
            break
    else:
        return
    results = []
    for g in (game, other):
        env = raw_env(obs_dtype=obs_dtype)
        env.reset(options={"deal": deal_to_spec(g.deals[0]), "dealer": g.first_dealer})
        for a in g.history:
            env.step(a)
        results.append(env.observe(AGENTS[player]))
        assert results[-1]["observation"].dtype == obs_dtype
    for key in ("observation", "action_mask"):
        np.testing.assert_array_equal(results[0][key], results[1][key])


def test_player_views_leak_nothing_public_record_included():
    """The whole PlayerView, with the hand's public record (initial_up, revealed,
    hand_history), is the same in indistinguishable games; showing the opponent's
    discard in the record would be caught."""
    def whole_view(game, p):
        return np.array([repr(game.view(p).key())]), np.zeros(1)

    def unmasked_record(game, p):
        key, mask = whole_view(game, p)
        return np.append(key, repr(game.history[game.hand_start:])), mask

    stats = run_check(whole_view, n=250, seed=3)
    assert stats["leaks"] == 0 and stats["nontrivial"] >= 150, stats
    assert run_check(unmasked_record, n=250, seed=3)["leaks"] >= 10
