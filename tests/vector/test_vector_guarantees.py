"""The vector env keeps the single env's guarantees: seeding as documented (later episodes
come from a generator seeded with the reset's seed), a failing opponent rolls the whole
batch back and raises ``OpponentError``, a failed reset changes nothing, and copies are
independent."""

from __future__ import annotations

import copy
import json

import numpy as np
import pytest

from widderkopf_env import Game
from widderkopf_env.gym_env import OpponentError  # the single env's error
from widderkopf_env.vector import WidderkopfVectorEnv


def venv_state(env) -> str:
    """Everything a call may change: the games' arrays, the reward ledger, the deal
    source, seats, the mask and both generators' states (as one comparable string)."""
    g = env.game
    out = {k: v.tolist() for k, v in sorted(vars(g).items()) if isinstance(v, np.ndarray)}
    out["ledger"] = [env._ledger.hands.tolist(), env._ledger.shaped.tolist()]
    out["deals"] = [list(env._deals.seeds), env._deals.seeded.tolist(), env._deals.key,
                    env._deals.draws.tolist()]
    out["seat"], out["mask"] = env.seat.tolist(), env.action_masks().tolist()
    out["rngs"] = [env._rng.bit_generator.state, env._opp_rng.bit_generator.state,
                   env.np_random.bit_generator.state]
    out["opp_rng"] = getattr(env.opponent, "rng", env._opp_rng).bit_generator.state
    return json.dumps(out, default=str)


def dealt(env) -> list:
    """The cards dealt in every sub-env's current hand (hands and face-down cards)."""
    return [env.game.hand.tolist(), env.game.deal_down.tolist()]


def first_legal(obs, mask):
    return mask.argmax(1)


class Switchable:
    """A batched policy opponent that turns illegal (or raises, or returns the wrong
    shape) while ``broken`` is set."""

    def __init__(self, how="illegal"):
        self.broken, self.how, self.calls = False, how, 0

    def __call__(self, obs, mask):
        self.calls += 1
        acts = mask.argmax(1)
        if not self.broken:
            return acts
        if self.how == "raise":
            raise KeyError("the policy's own bug")
        if self.how == "shape":
            return acts[:-1] if len(acts) > 1 else np.zeros((1, 1), np.int64)
        return (mask == 0).argmax(1)  # an illegal action in every game


# --- seeding -----------------------------------------------------------------------------------

def test_unseeded_resets_after_a_seeded_one_deal_new_matches_from_the_seed():
    env = WidderkopfVectorEnv(4, opponent="self", num_hands=2)
    env.reset(seed=7)
    first = dealt(env)
    assert env.game.deal_down.tolist() == [
        [c for part in Game.new(seed=7 + i, num_hands=2).deals[0] for c in part[2]]
        for i in range(4)]
    env.reset()
    second = dealt(env)
    env.reset()
    third = dealt(env)
    assert second != first and third != second
    for i in range(4):  # every sub-env gets a new match, not Game.new(seed=7 + i) again
        assert [second[0][i], second[1][i]] != [first[0][i], first[1][i]]
    twin = WidderkopfVectorEnv(4, opponent="self", num_hands=2)
    twin.reset(seed=7)
    twin.reset()
    assert dealt(twin) == second  # the same seed, the same later batches
    twin.reset()
    assert dealt(twin) == third
    other = WidderkopfVectorEnv(4, opponent="self", num_hands=2)
    other.reset(seed=8)
    other.reset()
    assert dealt(other) != second


def test_sb3_seed_is_the_vector_envs_reset_seed():
    pytest.importorskip("stable_baselines3")
    from widderkopf_env.vector.sb3 import WidderkopfSB3VecEnv

    env = WidderkopfSB3VecEnv(3, opponent="random")
    env.seed(3)
    obs = env.reset()
    first = dealt(env.venv)
    obs2 = env.reset()
    assert dealt(env.venv) != first
    ref = WidderkopfVectorEnv(3, opponent="random")
    ref_obs, _ = ref.reset(seed=3)
    np.testing.assert_array_equal(obs, ref_obs)
    ref_obs, _ = ref.reset()
    np.testing.assert_array_equal(obs2, ref_obs)
    assert venv_state(env.venv) == venv_state(ref)


@pytest.mark.parametrize("bad, error", [
    (10**5000, ValueError), (-1, ValueError), (2**4096, ValueError), ("3", TypeError),
    (1.5, TypeError), ([1, 2], ValueError), ([1, -2, 3], ValueError), ([1, None, 3], TypeError),
    ({"seed": 1}, TypeError), (True, TypeError),
], ids=["10**5000", "-1", "2**4096", "str", "float", "short list", "negative in list",
        "None in list", "dict", "bool"])
def test_a_bad_seed_fails_clearly_and_changes_nothing(bad, error):
    env = WidderkopfVectorEnv(3, opponent="random", num_hands=2)
    env.reset(seed=5)
    before = venv_state(env)
    with pytest.raises(error, match="seed must be"):
        env.reset(seed=bad)
    assert venv_state(env) == before
    twin = WidderkopfVectorEnv(3, opponent="random", num_hands=2)
    twin.reset(seed=5)
    obs, _ = env.reset()  # later unseeded resets work, as if nothing had happened
    obs2, _ = twin.reset()
    np.testing.assert_array_equal(obs, obs2)


def test_numpy_int_seeds_are_plain_seeds():
    a, b = WidderkopfVectorEnv(2, opponent="random"), WidderkopfVectorEnv(2, opponent="random")
    np.testing.assert_array_equal(a.reset(seed=np.int64(5))[0], b.reset(seed=5)[0])
    np.testing.assert_array_equal(a.reset(seed=np.array([3, 4]))[0], b.reset(seed=[3, 4])[0])
    assert venv_state(a) == venv_state(b)


# --- a failing opponent ------------------------------------------------------------------------

@pytest.mark.parametrize("how", ["illegal", "raise", "shape"])
def test_a_failing_opponent_rolls_the_batch_back_and_the_env_stays_usable(how):
    policy = Switchable(how)
    env = WidderkopfVectorEnv(6, opponent=policy, seat=0, num_hands=2)
    twin = WidderkopfVectorEnv(6, opponent=first_legal, seat=0, num_hands=2)
    obs, info = env.reset(seed=11)
    twin.reset(seed=11)
    rng = np.random.default_rng(1)
    failures = 0
    for _ in range(60):
        mask = info["action_mask"]
        actions = (rng.random(mask.shape) * mask).argmax(1)
        policy.broken = rng.random() < 0.4
        before = venv_state(env)
        try:
            out = env.step(actions)
        except OpponentError as err:
            failures += 1
            assert "as it was before this call" in str(err)
            assert venv_state(env) == before  # the learner's moves are taken back too
            policy.broken = False
            out = env.step(actions)  # retrying with a fixed opponent works
        ref = twin.step(actions)
        for x, y in zip(out[:4], ref[:4], strict=True):
            np.testing.assert_array_equal(x, y)  # as if the failure had never happened
        info = out[4]
        assert not (out[2] & info.get("illegal_action", np.zeros(6, bool))).any()
    assert failures > 5
    assert venv_state(env) == venv_state(twin)


def test_a_failing_opponent_in_reset_changes_nothing():
    policy = Switchable("raise")
    env = WidderkopfVectorEnv(4, opponent=policy, seat=1)
    env.reset(seed=2)
    before = venv_state(env)
    policy.broken = True
    for seed in (None, 9):
        with pytest.raises(OpponentError, match="raised KeyError"):
            env.reset(seed=seed)
        assert venv_state(env) == before  # the generators included
    policy.broken = False
    twin = WidderkopfVectorEnv(4, opponent=first_legal, seat=1)
    twin.reset(seed=2)
    np.testing.assert_array_equal(env.reset()[0], twin.reset()[0])


class RaisingAgent:
    def __init__(self):
        self.broken = False

    def act(self, view):
        if self.broken:
            raise RuntimeError("the agent's own bug")
        return view.legal_actions()[0]


def test_an_agent_opponent_that_raises_gives_opponent_error():
    agent = RaisingAgent()
    env = WidderkopfVectorEnv(3, opponent=agent, seat=0)
    obs, info = env.reset(seed=4)
    agent.broken = True
    before = venv_state(env)
    with pytest.raises(OpponentError, match="raised RuntimeError: the agent's own bug"):
        env.step(info["action_mask"].argmax(1))
    assert venv_state(env) == before


# --- copies ------------------------------------------------------------------------------------

@pytest.mark.parametrize("copier", [copy.copy, copy.deepcopy])
@pytest.mark.parametrize("opponent", ["self", "random", "heuristic", "policy"])
def test_copies_are_independent(copier, opponent):
    env = WidderkopfVectorEnv(3, opponent=first_legal if opponent == "policy" else opponent)
    obs, info = env.reset(seed=1)
    twin = copier(env)
    before = venv_state(env)
    actions = info["action_mask"].argmax(1)
    out = twin.step(actions)
    assert venv_state(env) == before and venv_state(twin) != before
    ref = env.step(actions)  # the original then takes the very same step
    for x, y in zip(out[:4], ref[:4], strict=True):
        np.testing.assert_array_equal(x, y)
