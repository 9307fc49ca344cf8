"""The single-agent Gymnasium env: checkers, seats, opponents, illegal actions, SB3."""

from __future__ import annotations

import random
import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from helpers import quiet

import widderkopf_env
from widderkopf_env import IllegalActionError, WidderkopfEnv
from widderkopf_env.agents import RandomAgent
from widderkopf_env.observation import OBS_SIZE, encode, piece

DEAL = {
    "player_0": {"hand": "AC 10C KC 9C QS JD 8H 7H".split(),
                 "up": "AS 10S KH 9D 6C".split(), "down": "8C 7C AH 10H 6S".split()},
    "player_1": {"hand": "QC JC KS 9S 8S AD 10D KD".split(),
                 "up": "QH JS 7S 8D 9H".split(), "down": "QD JH 6H 7D 6D".split()},
}


def play_episode(env, rng: random.Random):
    """Random legal play; returns (total reward, steps, last info)."""
    total, steps, info = 0.0, 0, {}
    while True:
        legal = np.flatnonzero(env.action_masks())
        _, reward, terminated, truncated, info = env.step(int(rng.choice(legal)))
        total += reward
        steps += 1
        assert not truncated
        if terminated:
            return total, steps, info


# --- registration and checkers ----------------------------------------------------------------

def test_registered_under_both_names():
    for name in ("Widderkopf-v0", "widderkopf_env:Widderkopf-v0"):
        env = gymnasium.make(name, opponent="random")
        assert isinstance(env.unwrapped, WidderkopfEnv)
        obs, info = env.reset(seed=0)
        assert obs.shape == (OBS_SIZE,) and info["seat"] in ("player_0", "player_1")
        env.close()
    widderkopf_env.register_envs()  # registering twice is harmless


@pytest.mark.parametrize("obs_dtype", [np.float32, np.uint8], ids=["float32", "uint8"])
def test_gymnasium_check_env(capsys, obs_dtype):
    env = gymnasium.make("Widderkopf-v0", opponent="random", obs_dtype=obs_dtype)
    assert env.observation_space.dtype == obs_dtype
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the checker must not warn about anything
        check_env(env.unwrapped)
    capsys.readouterr()  # the checker renders the "human" mode


def test_sb3_check_env():
    from stable_baselines3.common.env_checker import check_env as sb3_check_env

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sb3_check_env(WidderkopfEnv(opponent="random"))


def test_docstring_is_a_documentation_page():
    for heading in ("Action Space", "Observation Space", "Rewards", "Episode End",
                    "Arguments", "Version History"):
        assert heading in widderkopf_env.gym_env.__doc__


# --- episodes ---------------------------------------------------------------------------

@pytest.mark.parametrize("num_hands", [1, 3])
def test_rewards_are_the_learners_game_points(num_hands):
    for seed in range(12):
        env = WidderkopfEnv(opponent="random", num_hands=num_hands)
        obs, info = env.reset(seed=seed)
        seat = env.seat
        assert info["seat"] == f"player_{seat}"
        total, steps, last = play_episode(env, random.Random(seed))
        assert env.game.is_over
        assert total == env.game.returns()[seat]
        assert last["winner"] == env.game.results[-1].winner
        assert not env.action_masks().any()
        with pytest.raises(IllegalActionError, match="over"):
            env.step(0)


def test_observation_is_the_learners_view():
    env = WidderkopfEnv(opponent="random", seat=1)
    obs, _ = env.reset(seed=3)
    rng = random.Random(3)
    for _ in range(10):
        view = env.game.view(1)
        assert env.game.current == 1
        np.testing.assert_array_equal(obs, encode(view))
        np.testing.assert_array_equal(np.flatnonzero(env.action_masks()), view.legal_actions())
        obs, *_ = env.step(int(rng.choice(view.legal_actions())))


@pytest.mark.parametrize("seat", [0, 1, "player_0", "player_1"])
def test_fixed_seats(seat):
    env = WidderkopfEnv(opponent="random", seat=seat)
    for seed in range(4):
        env.reset(seed=seed)
        assert env.seat == (seat if isinstance(seat, int) else int(seat[-1]))
        assert env.game.current == env.seat


def test_random_seat_is_drawn_from_the_seed():
    env = WidderkopfEnv(opponent="random")
    seats = set()
    for seed in range(20):
        env.reset(seed=seed)
        seats.add(env.seat)
        assert env.game.current == env.seat
    assert seats == {0, 1}


def test_same_seed_same_episode_with_a_seeded_opponent():
    def run(seed):
        env = WidderkopfEnv(opponent="random", num_hands=2)
        obs, _ = env.reset(seed=seed)
        trace = [obs]
        rng = random.Random(0)
        while True:
            legal = np.flatnonzero(env.action_masks())
            obs, reward, term, _, _ = env.step(int(legal[rng.randrange(len(legal))]))
            trace += [obs, reward]
            if term:
                return trace, env.game.to_json()

    a, b, c = run(5), run(5), run(6)
    assert a[1] == b[1] and a[1] != c[1]
    assert all(np.array_equal(x, y) for x, y in zip(a[0], b[0], strict=True))


def test_opponent_object_is_reseeded_at_each_reset():
    class Recorder(RandomAgent):
        seeds: list = []

        def reset(self, seed=None):
            self.seeds.append(seed)
            super().reset(seed)

    opponent = Recorder()
    env = WidderkopfEnv(opponent=opponent)
    env.reset(seed=1)
    env.reset(seed=1)
    env.reset(seed=2)
    assert len(opponent.seeds) == 3 and opponent.seeds[0] == opponent.seeds[1] != opponent.seeds[2]

    class NoReset:
        def act(self, view):
            return view.legal_actions()[0]

    env = WidderkopfEnv(opponent=NoReset())  # an agent without reset() is fine
    env.reset(seed=0)
    play_episode(env, random.Random(0))


def test_bad_opponent_and_seat():
    with pytest.raises(ValueError):
        WidderkopfEnv(opponent=object())
    with pytest.raises(ValueError):
        WidderkopfEnv(opponent="no-such-agent")
    with pytest.raises(ValueError):
        WidderkopfEnv(opponent="random", seat=2)

    class Cheater:
        def act(self, view):
            return 41  # never legal outside an answer

    env = WidderkopfEnv(opponent=Cheater(), seat=0)
    with pytest.raises(RuntimeError, match="opponent"):
        env.reset(seed=0, options={"deal": DEAL, "dealer": 0})  # player_1 names trumps


def test_deal_option_and_shaping():
    env = WidderkopfEnv(opponent="random", seat=0, reward_shaping=True)
    obs, _ = env.reset(seed=0, options={"deal": DEAL, "dealer": 1})
    assert piece(obs, "hand").sum() == 8 and env.game.chooser == 0
    total, _, info = play_episode(env, random.Random(1))
    r = env.game.results[-1]
    sign = 1 if r.winner == 0 else -1
    assert total == pytest.approx(sign * r.value + (r.card_points[0] - r.card_points[1]) / 121)
    twin = WidderkopfEnv(opponent="random", seat=0)
    twin.reset(seed=0, options={"deal": DEAL, "dealer": 1})
    for bad_seed in (None, 99):
        with pytest.raises(ValueError, match="dealt twice"):
            env.reset(seed=bad_seed, options={"deal": {**DEAL, "player_1": DEAL["player_0"]}})
    env.reset()
    twin.reset()
    assert env.game.deals == twin.game.deals  # the failed resets changed nothing


# --- illegal actions -------------------------------------------------------------------------

def test_info_carries_the_mask_of_each_observation():
    """info["action_mask"] comes with every observation (what gymnasium's vector envs hand
    to a learner): equal to action_masks() and to the observation's legal cards, never all
    zero while the episode runs, all zero with the observation that ends it."""
    env = gymnasium.make("Widderkopf-v0", opponent="random")
    rng = random.Random(3)
    for episode in range(4):
        obs, info = env.reset(seed=episode)
        terminated = False
        while True:
            mask = info["action_mask"]
            assert mask.dtype == np.int8 and mask.shape == (42,)
            np.testing.assert_array_equal(mask, env.unwrapped.action_masks())
            np.testing.assert_array_equal(mask[:36], piece(obs, "legal_cards"))
            if terminated:
                assert not mask.any()
                break
            assert mask.any()
            obs, _, terminated, _, info = env.step(int(rng.choice(np.flatnonzero(mask))))
    env.reset(seed=0)
    _, _, terminated, _, info = env.step(0)  # illegal in the trump phase
    assert terminated and info["illegal_action"] and not info["action_mask"].any()


def test_illegal_action_terminates_by_default():
    env = WidderkopfEnv(opponent="random", seat=1)
    env.reset(seed=0, options={"deal": DEAL, "dealer": 0})  # player_1 names trumps
    obs, reward, terminated, truncated, info = env.step(0)
    assert terminated and not truncated and reward == -64.0
    assert info["illegal_action"] is True and info["legal_actions"] == [36, 37, 38, 39]
    assert not env.action_masks().any()
    with pytest.raises(IllegalActionError):
        env.step(36)
    env.reset(seed=0)
    for bad in (42, -3, "QC", 2.5, None):
        with pytest.raises(IllegalActionError):
            env.step(bad)
    env.step(np.int64(np.flatnonzero(env.action_masks())[0]))


def test_illegal_action_can_raise_and_change_nothing():
    env = WidderkopfEnv(opponent="random", seat=1, illegal_action="raise")
    env.reset(seed=0, options={"deal": DEAL, "dealer": 0})
    before = env.game.state_dict()
    with pytest.raises(IllegalActionError, match="legal: 36"):
        env.step(0)
    assert env.game.state_dict() == before
    env.step(39)
    assert env.game.trump == 3


def test_render_ansi():
    env = WidderkopfEnv(opponent="random", render_mode="ansi")
    env.reset(seed=0)
    assert "[##]" in env.render()


# --- sb3-contrib MaskablePPO ---------------------------------------------------------------

def _ppo(venv):
    import torch
    from sb3_contrib import MaskablePPO

    torch.set_num_threads(1)
    model = quiet(MaskablePPO("MlpPolicy", venv, n_steps=64, batch_size=64, n_epochs=1,
                              seed=0, device="cpu", policy_kwargs={"net_arch": [32]}))
    model.learn(total_timesteps=256)
    obs = venv.reset()
    masks = np.stack(venv.env_method("action_masks"))
    actions, _ = model.predict(obs, action_masks=masks, deterministic=True)
    assert all(masks[i, a] for i, a in enumerate(actions))
    venv.close()


def test_maskable_ppo_dummy_vec_env():
    from stable_baselines3.common.env_util import make_vec_env

    _ppo(make_vec_env("Widderkopf-v0", n_envs=2, seed=0,
                      env_kwargs={"opponent": "random", "render_mode": None}))


def test_maskable_ppo_subproc_vec_env():
    from stable_baselines3.common.env_util import make_vec_env
    from stable_baselines3.common.vec_env import SubprocVecEnv

    _ppo(make_vec_env("widderkopf_env:Widderkopf-v0", n_envs=2, seed=0,
                      env_kwargs={"opponent": "random", "render_mode": None,
                                  "reward_shaping": True},
                      vec_env_cls=SubprocVecEnv, vec_env_kwargs={"start_method": "forkserver"}))


def test_default_opponent_is_the_heuristic_bot():
    env = gymnasium.make("Widderkopf-v0")
    env.reset(seed=0)
    assert type(env.unwrapped.opponent).__name__ == "HeuristicAgent"
    total, steps, _ = play_episode(env.unwrapped, random.Random(0))
    assert steps >= 17 and total == env.unwrapped.game.returns()[env.unwrapped.seat]
