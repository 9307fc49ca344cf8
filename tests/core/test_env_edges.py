"""The same mistake gets the same error in every env (AEC, Gymnasium, vector), at
construction or at ``reset()``, and leaves the env as it was: render modes, seats, agent
classes as opponents, reset seeds (negative, huge, numpy ints)."""

from __future__ import annotations

import json
import warnings

import gymnasium
import numpy as np
import pytest

import widderkopf_env
from widderkopf_env import WidderkopfEnv
from widderkopf_env.agents.heuristic import HeuristicAgent
from widderkopf_env.vector import WidderkopfVectorEnv


def make_gym(**kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # gymnasium.make's own warning on a render mode
        return gymnasium.make("Widderkopf-v0", **kwargs)


def make_vec(**kwargs):
    return gymnasium.make_vec("Widderkopf-v0", num_envs=2, **kwargs)


ONE_SEAT_ENVS = {"gymnasium.make": make_gym, "WidderkopfEnv": WidderkopfEnv,
                 "make_vec": make_vec, "WidderkopfVectorEnv": WidderkopfVectorEnv}
ALL_ENVS = {**ONE_SEAT_ENVS, "aec env()": widderkopf_env.env}


# gymnasium.make itself reads the mode as a string first, so it gets the string modes only
RENDER_CASES = [pytest.param(maker, mode, id=f"{mode}-{name}")
                for mode in ("rgb", "RGB_ARRAY", 3) for name, maker in ALL_ENVS.items()
                if isinstance(mode, str) or maker is not make_gym]


@pytest.mark.parametrize("maker, mode", RENDER_CASES)
def test_an_unknown_render_mode_fails_at_construction_naming_the_allowed_modes(maker, mode):
    with pytest.raises(ValueError) as err:
        maker(render_mode=mode)
    msg = str(err.value)
    assert msg.startswith("render_mode must be None or one of the render modes of ")
    assert msg.endswith(f"got {mode!r}")
    if maker not in (make_vec, WidderkopfVectorEnv):
        assert "'ansi', 'human', 'rgb_array'" in msg
    else:
        assert "none (it does not render)" in msg


def test_rgb_array_still_renders_a_picture():
    pytest.importorskip("PIL")
    env = make_gym(render_mode="rgb_array", opponent="random")
    env.reset(seed=0)
    assert env.render().shape == (640, 960, 3)


@pytest.mark.parametrize("maker", ONE_SEAT_ENVS.values(), ids=ONE_SEAT_ENVS)
@pytest.mark.parametrize("seat", ["player_2", 2, -1, "0", None, 1.0])
def test_a_bad_seat_names_seat_and_the_allowed_values(maker, seat):
    with pytest.raises(ValueError) as err:
        maker(opponent="random", seat=seat)
    assert str(err.value) == ("seat must be 0, 1, 'player_0', 'player_1' or 'random', "
                              f"got {seat!r}")


@pytest.mark.parametrize("maker", ONE_SEAT_ENVS.values(), ids=ONE_SEAT_ENVS)
def test_an_agent_class_as_opponent_fails_at_construction(maker):
    with pytest.raises(TypeError) as err:
        maker(opponent=HeuristicAgent)
    # (gymnasium.make adds the kwargs to a TypeError's message)
    assert str(err.value).startswith("opponent must be an agent object, not the class "
                                     "HeuristicAgent: pass an instance: HeuristicAgent()")
    env = maker(opponent=HeuristicAgent())  # the instance works
    env.reset(seed=0)


# --- reset seeds ---------------------------------------------------------------------------------

def aec_state(e) -> str:
    game = e.unwrapped.game
    rng = e.unwrapped.np_random
    return json.dumps([None if game is None else game.state_dict(),
                       None if rng is None else rng.bit_generator.state])


def gym_state(e) -> str:
    u = e.unwrapped
    return json.dumps([u.game.state_dict(), u.seat, u.action_masks().tolist(),
                       u.np_random.bit_generator.state])


def vec_state(e) -> str:
    return json.dumps([e.game.deal_down.tolist(), e.action_masks().tolist(),
                       e.np_random.bit_generator.state])


STATES = {"gymnasium.make": gym_state, "WidderkopfEnv": gym_state, "make_vec": vec_state,
          "WidderkopfVectorEnv": vec_state, "aec env()": aec_state}
BAD_SEEDS = [(-1, ValueError, "got -1"), (-(2**70), ValueError, "got -"),
             (10**5000, ValueError, "got an int of 16,610 bits"),
             (2**4096, ValueError, "at most 4096 bits"), ("5", TypeError, "got str '5'"),
             (5.0, TypeError, "got float 5.0"), (True, TypeError, "got bool True"),
             (np.float64(1), TypeError, "got float64")]


@pytest.mark.parametrize("name", ALL_ENVS)
@pytest.mark.parametrize("bad, error, detail", BAD_SEEDS,
                         ids=["-1", "-2**70", "10**5000", "2**4096", "str", "float", "bool",
                              "np.float64"])
def test_a_bad_reset_seed_fails_clearly_and_changes_nothing(name, bad, error, detail):
    maker, state = ALL_ENVS[name], STATES[name]
    env = maker() if name == "aec env()" else maker(opponent="random")
    env.reset(seed=3)
    before = state(env)
    with pytest.raises(error, match="seed must be None or a non-negative int") as err:
        env.reset(seed=bad)
    assert detail in str(err.value)
    assert not isinstance(err.value, gymnasium.error.Error)
    assert state(env) == before
    env.reset()  # later unseeded resets work
    twin = maker() if name == "aec env()" else maker(opponent="random")
    twin.reset(seed=3)
    twin.reset()
    assert state(env) == state(twin)


@pytest.mark.parametrize("name", ALL_ENVS)
@pytest.mark.parametrize("seed", [np.int64(5), np.uint8(5), np.array(5)],
                         ids=["int64", "uint8", "0-d array"])
def test_numpy_integer_seeds_are_accepted_as_game_new_accepts_them(name, seed):
    maker, state = ALL_ENVS[name], STATES[name]
    a = maker() if name == "aec env()" else maker(opponent="random")
    b = maker() if name == "aec env()" else maker(opponent="random")
    a.reset(seed=seed)
    b.reset(seed=5)
    assert state(a) == state(b)
    if name != "aec env()" and "Vector" not in name and name != "make_vec":
        assert a.unwrapped.game.seed == 5 and type(a.unwrapped.np_random_seed) is int
