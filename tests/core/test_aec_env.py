"""The PettingZoo AEC environment: conformance suites, rewards, illegal actions, options."""

from __future__ import annotations

import copy
import pickle
import random
import warnings

import numpy as np
import pettingzoo
import pytest
from pettingzoo.test import api_test, seed_test
from pettingzoo.utils.wrappers import TerminateIllegalWrapper

import widderkopf_env
from widderkopf_env import Game, IllegalActionError, parse_card
from widderkopf_env.aec_env import env, raw_env
from widderkopf_env.cards import MAX_HAND_VALUE
from widderkopf_env.observation import OBS_SIZE, action_mask, encode, piece

AGENTS = ["player_0", "player_1"]
DEAL = {
    "player_0": {"hand": "AC 10C KC 9C QS JD 8H 7H".split(),
                 "up": "AS 10S KH 9D 6C".split(), "down": "8C 7C AH 10H 6S".split()},
    "player_1": {"hand": "QC JC KS 9S 8S AD 10D KD".split(),
                 "up": "QH JS 7S 8D 9H".split(), "down": "QD JH 6H 7D 6D".split()},
}


def play_random(e, rng: random.Random) -> int:
    """Play the episode out with random legal actions; returns the number of decisions."""
    n = 0
    for agent in e.agent_iter():
        obs, _, term, trunc, _ = e.last()
        if term or trunc:
            e.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        assert legal.size, f"empty mask for the agent to act ({agent})"
        e.step(int(rng.choice(legal)))
        n += 1
    return n


# --- conformance ---------------------------------------------------------------------------

@pytest.mark.parametrize("kwargs", [
    {},
    {"num_hands": 3, "reward_shaping": True},
    {"illegal_action": "raise"},
])
def test_pettingzoo_api_test(kwargs):
    with warnings.catch_warnings():
        # dict observations (with an action mask) are what PettingZoo classic envs use;
        # api_test only exempts its own envs from these two notes; its dummy reset option
        # {"options": 1} must not warn
        warnings.filterwarnings("ignore", message="Observation is not a NumPy array")
        warnings.filterwarnings("ignore", message="Observation space for each agent probably")
        warnings.filterwarnings("error", message="ignoring unknown reset option")
        api_test(env(**kwargs), num_cycles=300)


@pytest.mark.parametrize("kwargs", [{}, {"num_hands": 2, "reward_shaping": True}])
def test_pettingzoo_seed_test(kwargs):
    seed_test(lambda: env(**kwargs), num_cycles=300)


def test_registered_with_pettingzoo():
    e = pettingzoo.make("aec", "Widderkopf-v0", num_hands=2, reward_shaping=True)
    assert type(e) is raw_env and e.num_hands == 2 and e.reward_shaping
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # registering twice neither overrides nor warns
        widderkopf_env.register_envs()


def test_env_factory_is_unwrapped_and_described():
    e = widderkopf_env.env()
    assert type(e) is raw_env and e.unwrapped is e
    assert e.metadata == {"name": "widderkopf_v0", "render_modes": ["ansi", "human", "rgb_array"],
                          "render_fps": 2, "is_parallelizable": False}
    space = e.observation_space("player_0")
    assert space is e.observation_space("player_0")
    assert space["observation"].shape == (OBS_SIZE,) and space["observation"].dtype == np.float32
    assert space["action_mask"].shape == (42,) and space["action_mask"].dtype == np.int8
    assert e.action_space("player_1").n == 42
    for heading in ("Action Space", "Observation Space", "Rewards", "Episode End",
                    "Arguments", "Version History"):
        assert heading in widderkopf_env.aec_env.__doc__


# --- order enforcement ---------------------------------------------------------------------

def test_calls_before_reset_raise_clearly():
    e = env()
    for call in (lambda: e.step(0), lambda: e.observe("player_0"), lambda: e.last(),
                 lambda: e.render(), lambda: e.agent_iter(), lambda: e.view("player_0")):
        with pytest.raises(RuntimeError, match="reset"):
            call()
    for name in ("agents", "rewards", "infos", "agent_selection", "terminations"):
        with pytest.raises(AttributeError, match="before reset"):
            getattr(e, name)
    with pytest.raises(AttributeError):
        e.num_agents  # noqa: B018 (reads agents)
    assert e.possible_agents == AGENTS


def test_agent_iter_requires_a_step_each_iteration():
    e = env()
    e.reset(seed=0)
    it = iter(e.agent_iter())
    next(it)
    with pytest.raises(RuntimeError, match="step"):
        next(it)


@pytest.mark.parametrize("bad", [2.5, "3", None, True])
def test_agent_iter_refuses_a_max_iter_that_is_no_int(bad):
    e = env()
    e.reset(seed=0)
    with pytest.raises(TypeError, match="max_iter must be an int"):
        e.agent_iter(bad)
    assert [next(iter(e.agent_iter(np.int64(1))))] == [e.agent_selection]


# --- reset, seeds, options -----------------------------------------------------------------

def test_same_seed_same_game_and_reset_without_seed_continues():
    a, b = env(), env()
    a.reset(seed=7)
    b.reset(seed=7)
    assert a.game.deals == b.game.deals and a.game.dealer == b.game.dealer
    a.reset()
    b.reset()
    assert a.game.deals == b.game.deals
    b.reset(seed=8)
    assert a.game.deals != b.game.deals


def test_deal_option_and_bad_deal():
    e = env()
    e.reset(seed=1, options={"deal": DEAL, "dealer": "player_0"})
    assert e.game.dealer == 0 and e.agent_selection == "player_1"
    assert e.game.hand[0] == sum(1 << parse_card(c) for c in DEAL["player_0"]["hand"])
    before = e.game.state_dict()
    bad = copy.deepcopy(DEAL)
    bad["player_1"]["hand"][0] = "AC"  # dealt twice
    with pytest.raises(ValueError, match="dealt twice"):
        e.reset(options={"deal": bad})
    with pytest.raises(ValueError):
        e.reset(options={"deal": DEAL, "dealer": "player_2"})
    with pytest.raises(ValueError):
        e.reset(options={"scores": 3})
    assert e.game.state_dict() == before  # the env is unchanged and still usable
    assert play_random(e, random.Random(0)) > 17
    twin = env()
    twin.reset(seed=1, options={"deal": DEAL, "dealer": "player_0"})
    e.reset()
    twin.reset()
    assert e.game.deals == twin.game.deals  # not even the rng moved


def test_scores_option_decides_the_chooser():
    e = env(num_hands=2)
    e.reset(seed=3, options={"deal": DEAL, "dealer": 1, "scores": (5, 2)})
    assert e.game.chooser == 1 and e.agent_selection == "player_1"  # lower score names (R9)
    with pytest.warns(UserWarning, match="unknown reset option 'dael'; did you mean 'deal'"):
        e.reset(options={"dael": DEAL})
    with warnings.catch_warnings():  # another layer's key (api_test passes {"options": 1})
        warnings.simplefilter("error")
        e.reset(options={"options": 1, "render_fps": 2})


# --- observations ------------------------------------------------------------------------

def test_observe_is_encode_of_the_view_and_masks_only_the_actor():
    e = env()
    e.reset(seed=11)
    rng = random.Random(1)
    for _ in range(25):
        actor = e.agent_selection
        for agent in AGENTS:
            obs = e.observe(agent)
            view = e.game.view(agent)
            np.testing.assert_array_equal(obs["observation"], encode(view))
            np.testing.assert_array_equal(obs["action_mask"], action_mask(view))
            assert obs["action_mask"].any() == (agent == actor)
            assert e.view(agent) == view  # what a bot reads
        legal = np.flatnonzero(e.observe(actor)["action_mask"])
        e.step(int(rng.choice(legal)))
    with pytest.raises(ValueError, match="unknown agent"):
        e.observe("player_2")


# --- rewards and infos ---------------------------------------------------------------------

@pytest.mark.parametrize("num_hands", [1, 3])
def test_rewards_are_zero_sum_game_points(num_hands):
    for seed in range(15):
        e = env(num_hands=num_hands)
        e.reset(seed=seed)
        totals = dict.fromkeys(AGENTS, 0.0)
        rng = random.Random(seed)
        results = []
        for agent in e.agent_iter():
            obs, reward, term, trunc, info = e.last()
            totals[agent] += reward
            if "winner" in info and info["hand"] not in [r["hand"] for r in results]:
                results.append(info)
            e.step(None if term else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        game = e.game
        assert game.is_over and not e.agents
        assert [totals[a] for a in AGENTS] == game.returns()
        assert len(results) == len(game.results) >= num_hands
        for info, result in zip(results, game.results, strict=True):
            assert info["card_points"] == result.card_points
            assert info["value"] == result.value and info["winner"] == result.winner
            assert {"crack_level", "schneider", "schwarz", "trick_points", "scores"} <= set(info)


def test_reward_shaping_pays_card_points_per_trick():
    e = env(reward_shaping=True)
    e.reset(seed=4, options={"deal": DEAL, "dealer": 0})
    game = e.game
    rng = random.Random(3)
    totals = dict.fromkeys(AGENTS, 0.0)
    while not game.is_over:
        tricks_before, tp_before = len(game.tricks), list(game.trick_points)
        e.step(int(rng.choice(game.legal_actions())))
        rewards = dict(e.rewards)
        assert rewards["player_0"] == pytest.approx(-rewards["player_1"])
        for a in AGENTS:
            totals[a] += rewards[a]
        if not game.is_over and len(game.tricks) > tricks_before:
            won = [game.trick_points[p] - tp_before[p] for p in (0, 1)]
            assert rewards["player_0"] == pytest.approx((won[0] - won[1]) / 121)
        elif not game.is_over:
            assert rewards == {"player_0": 0, "player_1": 0}
    r = game.results[-1]
    sign = 1 if r.winner == 0 else -1
    expected = sign * r.value + (r.card_points[0] - r.card_points[1]) / 121
    assert totals["player_0"] == pytest.approx(expected)
    assert totals["player_1"] == pytest.approx(-expected)


def test_info_is_cleared_when_the_agent_acts_again():
    e = env(num_hands=2)
    e.reset(seed=2)
    rng = random.Random(2)
    while len(e.game.results) == 0:
        e.step(int(rng.choice(e.game.legal_actions())))
    assert all("winner" in e.infos[a] for a in AGENTS)
    actor = e.agent_selection
    e.step(int(rng.choice(e.game.legal_actions())))
    assert e.infos[actor] == {} and "winner" in e.infos[AGENTS[1 - AGENTS.index(actor)]]


# --- illegal actions -----------------------------------------------------------------------

def test_illegal_action_raises_names_the_legal_actions_and_changes_nothing():
    e = env(illegal_action="raise")
    e.reset(seed=0, options={"deal": DEAL, "dealer": 0})
    before = e.game.state_dict()
    with pytest.raises(IllegalActionError, match=r"legal: 36 \(trump C\)") as err:
        e.step(0)
    assert isinstance(err.value, ValueError) and err.value.legal == [36, 37, 38, 39]
    for bad in (42, -1, 2**70, "QC", 3.0, None, True, np.float32(37)):
        with pytest.raises(IllegalActionError):
            e.step(bad)
    assert e.game.state_dict() == before and e.agent_selection == "player_1"
    e.step(np.int64(39))  # numpy integers are fine
    e.step(np.int32(parse_card("KS")))
    assert e.game.trump == 3 and e.game.discard[1] == parse_card("KS")
    assert play_random(e, random.Random(1)) > 0


def test_stepping_after_the_end_raises():
    e = env()
    e.reset(seed=5)
    play_random(e, random.Random(5))
    assert not e.agents
    with pytest.raises(IllegalActionError, match="over"):
        e.step(0)
    with pytest.raises(IllegalActionError, match="over"):
        e.step(None)
    e.reset()
    assert e.agents == AGENTS


def test_dead_agents_must_step_none():
    e = env()
    e.reset(seed=6)
    rng = random.Random(6)
    while not e.game.is_over:
        e.step(int(rng.choice(e.game.legal_actions())))
    assert all(e.terminations.values())
    assert not e.observe(e.agent_selection)["action_mask"].any()
    with pytest.raises(IllegalActionError, match="None"):
        e.step(0)
    e.step(None)
    e.step(None)
    assert e.agents == []


def test_terminate_mode_is_the_default_and_warns():
    e = env()
    e.reset(seed=0, options={"deal": DEAL, "dealer": 0})
    with pytest.warns(UserWarning, match="illegal action ended the episode"):
        e.step(0)  # a card in the trump phase: legal id, illegal now
    assert e.terminations == {"player_0": True, "player_1": True}
    assert e.rewards == {"player_1": -float(MAX_HAND_VALUE), "player_0": 0.0}
    assert e.infos["player_1"]["illegal_action"] is True
    assert e.infos["player_0"] == {"opponent_illegal_action": True}
    obs, reward, term, _, info = e.last()
    assert e.agent_selection == "player_0" and reward == 0.0 and term
    assert not obs["action_mask"].any()
    e.step(None)
    obs, reward, term, _, info = e.last()
    assert reward == -MAX_HAND_VALUE and info["illegal_action"] and term
    e.step(None)
    assert e.agents == []
    # out-of-range and non-integer actions still raise
    e.reset(seed=1)
    for bad in (42, "x", 1.5):
        with pytest.raises(IllegalActionError):
            e.step(bad)
    assert not any(e.terminations.values())


def test_mask_follows_terminations_set_by_terminate_illegal_wrapper():
    """PettingZoo's TerminateIllegalWrapper ends the episode by setting the termination
    flags itself; every terminated agent's mask must then be all zero."""
    e = TerminateIllegalWrapper(env(illegal_action="raise"), illegal_reward=-1)
    e.reset(seed=0, options={"deal": DEAL, "dealer": 0})
    offender = e.agent_selection
    e.step(0)  # a card in the trump phase: the wrapper terminates everyone
    returns = {}
    for agent in e.agent_iter():
        obs, reward, terminated, _, _ = e.last()
        assert terminated and not obs["action_mask"].any(), agent
        assert not e.observe(agent)["action_mask"].any()
        returns[agent] = reward
        e.step(None)
    assert returns[offender] == -1 and len(returns) == 2


@pytest.mark.filterwarnings("ignore:an illegal action ended the episode")
def test_terminate_penalty_scales_with_hands_left_and_can_be_set():
    e = env(illegal_action="terminate", num_hands=3, reward_shaping=True)
    e.reset(seed=0)
    actor = e.agent_selection
    e.step(0)  # a card in the trump phase
    assert e.rewards[actor] == -198.0  # (64 + 2 for shaping) x 3 hands left
    e = env(illegal_action="terminate", illegal_reward=-1)
    e.reset(seed=0)
    actor = e.agent_selection
    e.step(0)
    assert e.rewards[actor] == -1.0


def test_bad_settings():
    for kwargs in ({"num_hands": 0}, {"illegal_action": "ignore"}, {"reward_shaping": 1},
                   {"illegal_reward": "x"}, {"render_mode": "svg"}):
        with pytest.raises(ValueError):
            env(**kwargs)


# --- render, copy --------------------------------------------------------------------------

def test_render_modes(capsys):
    e = env(render_mode="ansi")
    e.reset(seed=1)
    text = e.render()
    assert isinstance(text, str) and "Widderkopf" in text and "[##]" in text
    e = env(render_mode="human")
    e.reset(seed=1)
    assert e.render() is None
    assert "Widderkopf" in capsys.readouterr().out
    e.step(e.game.legal_actions()[0])  # human mode renders after each step
    assert "Widderkopf" in capsys.readouterr().out


@pytest.mark.parametrize("obs_dtype", [np.float32, np.uint8])
def test_pickle_and_deepcopy_keep_the_state(obs_dtype):
    e = env(num_hands=2, obs_dtype=obs_dtype)
    e.reset(seed=9)
    rng = random.Random(9)
    for _ in range(12):
        e.step(int(rng.choice(e.game.legal_actions())))
    for clone in (pickle.loads(pickle.dumps(e)), copy.deepcopy(e)):
        assert clone.game.state_dict() == e.game.state_dict()
        assert clone.agent_selection == e.agent_selection
        np.testing.assert_array_equal(clone.observe("player_0")["observation"],
                                      e.observe("player_0")["observation"])
        play_random(clone, random.Random(0))
    assert not e.game.is_over


def test_observation_phase_is_over_at_the_end():
    e = env()
    e.reset(seed=3)
    play_random(e, random.Random(3))
    obs = e.observe("player_0")["observation"]
    assert piece(obs, "phase")[4] == 1 and piece(obs, "hands_left")[0] == 0
    assert isinstance(e.game, Game)


def test_a_subclass_observe_is_used_by_last():
    class Flipped(raw_env):
        def observe(self, agent):
            obs = super().observe(agent)
            obs["observation"] = 1 - obs["observation"]
            return obs

    e = Flipped()
    e.reset(seed=0)
    np.testing.assert_array_equal(e.last()[0]["observation"],
                                  1 - env_observe(e, e.agent_selection))


def env_observe(e, agent):
    return encode(e.game.view(agent))

