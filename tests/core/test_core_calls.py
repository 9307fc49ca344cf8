"""The compiled core's batched calls name what they are given: ``vec_play`` takes the
game and then every buffer and number by keyword (csrc/batch.c), and a buffer that does
not fit is named in the error. That it moves the games as the numpy engine does is
tests/vector/test_vector_differential.py's part."""

from __future__ import annotations

import numpy as np
import pytest

from widderkopf_env.cards import NUM_ACTIONS
from widderkopf_env.game_encoder import CORE
from widderkopf_env.observation import OBS_SIZE

pytestmark = pytest.mark.skipif(CORE is None,
                                reason="the C core is not built or is disabled")
N = 8


def play_arguments(dtype=np.float32):
    """A started batch of N games and vec_play's keywords for one step of every game
    (as vector/selfplay.py's FusedStep passes them)."""
    from widderkopf_env.vector import DealSource, VecGame
    from widderkopf_env.vector.ledger import VecRewardLedger

    deals = DealSource(N, 7)
    game = VecGame(N, deals)
    game.new_matches(game.all, deals.first_dealers(game.all), 1)
    actions = np.array([int(np.flatnonzero(row)[0]) for row in game.mask()], np.int64)
    ledger, v = VecRewardLedger(N, True), deals.variant
    return game, dict(
        actions=actions, obs_out=np.zeros((N, OBS_SIZE), dtype),
        mask_out=np.zeros((N, NUM_ACTIONS), np.int8), final_out=np.zeros((N, OBS_SIZE), dtype),
        reward_out=np.zeros(N), rewards_out=np.zeros((N, 2)),
        terminated_out=np.zeros(N, bool), hand_over_out=np.zeros(N, bool),
        mover_out=np.zeros(N, np.int64), need_out=np.zeros(N, np.int64), seeded=deals.seeded,
        hands=ledger.hands, shaped=ledger.shaped, draws=deals.draws, cards=deals.cards,
        ended_out=np.zeros(N, np.int64), key=deals.key, shaping=True, hand_size=v.hand_size,
        piles=v.piles, num_hands=1, num_threads=1)


def test_vec_play_takes_its_buffers_by_keyword():
    game, kw = play_arguments()
    to_act = game.current.copy()
    assert CORE.vec_play(game, **kw) == (0, 0)
    np.testing.assert_array_equal(kw["mover_out"], to_act)
    with pytest.raises(TypeError):  # by position: refused
        CORE.vec_play(game, *kw.values())
    del kw["hands"]
    with pytest.raises(TypeError, match="hands"):
        CORE.vec_play(game, **kw)


@pytest.mark.parametrize("name", [
    "actions", "obs_out", "mask_out", "final_out", "reward_out", "rewards_out",
    "terminated_out", "hand_over_out", "mover_out", "need_out", "seeded", "hands", "shaped",
    "draws", "cards", "ended_out"])
def test_a_buffer_that_does_not_fit_is_named(name):
    game, kw = play_arguments()
    kw[name] = np.zeros(np.shape(kw[name]), np.int16)  # the right shape, not the dtype
    with pytest.raises(ValueError, match=f"^{name} must"):
        CORE.vec_play(game, **kw)


def test_observation_buffers_must_share_a_dtype():
    game, kw = play_arguments()
    kw["final_out"] = np.zeros((N, OBS_SIZE), np.uint8)
    with pytest.raises(ValueError, match="obs_out and final_out must have one dtype"):
        CORE.vec_play(game, **kw)
