"""PettingZoo as its users drive it: the registry, its wrappers, the parallel conversion,
its conformance tests, and its SB3 action-masking tutorial with only the env id swapped."""

from __future__ import annotations

import warnings

import gymnasium
import numpy as np
import pettingzoo
import pytest
from helpers import quiet
from pettingzoo.test import api_test, parallel_api_test, parallel_seed_test, seed_test
from pettingzoo.utils import BaseWrapper, wrappers
from pettingzoo.utils.conversions import turn_based_aec_to_parallel

import widderkopf_env
from widderkopf_env.cards import NUM_ACTIONS

#: the fewest decisions in a hand played to its end: trump, two discards, 34 cards
MIN_DECISIONS = 37

pytestmark = pytest.mark.filterwarnings(
    # dict observations with an action mask are what PettingZoo's own classic envs use;
    # api_test exempts only those from these two notes
    "ignore:Observation is not a NumPy array",
    "ignore:Observation space for each agent probably",
    # unmasked random actions (parallel_seed_test) end episodes the documented way
    "ignore:an illegal action ended the episode",
)


def classic_stack(**kwargs):
    """The wrappers PettingZoo's classic ``env()`` factories put around a raw env."""
    env = widderkopf_env.raw_env(**kwargs)
    env = wrappers.TerminateIllegalWrapper(env, illegal_reward=-1)
    env = wrappers.AssertOutOfBoundsWrapper(env)
    return wrappers.OrderEnforcingWrapper(env)


def test_make_from_the_registry():
    env = pettingzoo.make("aec", "Widderkopf-v0", num_hands=2)
    assert type(env) is widderkopf_env.raw_env and env.num_hands == 2
    assert pettingzoo.spec("aec", "Widderkopf").id == "Widderkopf-v0"  # latest version


@pytest.mark.parametrize("make", [
    lambda: pettingzoo.make("aec", "Widderkopf-v0"),
    classic_stack,
    lambda: BaseWrapper(widderkopf_env.env(illegal_action="raise")),
    lambda: widderkopf_env.env(obs_dtype=np.uint8),
], ids=["registry", "classic-wrappers", "base-wrapper", "compact-uint8"])
def test_api_and_seed_tests(make):
    with warnings.catch_warnings():
        warnings.filterwarnings("error", message="ignoring unknown reset option")
        api_test(make(), num_cycles=200)
    seed_test(make, num_cycles=200)


def test_parallel_conversion_passes_the_parallel_tests():
    make = lambda: turn_based_aec_to_parallel(widderkopf_env.env())  # noqa: E731
    parallel_api_test(make(), num_cycles=200)
    parallel_seed_test(make)  # samples unmasked actions: episodes end by the penalty


def test_parallel_conversion_masked_play():
    """Every agent gets an action each step; only the mover's counts, from its mask."""
    env = turn_based_aec_to_parallel(widderkopf_env.env())
    rng = np.random.default_rng(0)
    for seed in range(3):
        observations, _ = env.reset(seed=seed)
        steps, total = 0, 0.0
        while env.agents:
            actions = {}
            for agent, obs in observations.items():
                legal = np.flatnonzero(obs["action_mask"])
                actions[agent] = int(rng.choice(legal)) if legal.size else 0
            assert sum(bool(observations[a]["action_mask"].any()) for a in env.agents) == 1
            observations, rewards, terminations, _, infos = env.step(actions)
            steps += 1
            total += sum(rewards.values())
            assert not any(i.get("illegal_action") for i in infos.values())
        assert steps >= MIN_DECISIONS and total == 0.0


def test_terminate_illegal_wrapper_ends_with_zero_masks():
    env = classic_stack()
    env.reset(seed=1)
    offender = env.agent_selection
    env.step(NUM_ACTIONS - 1)  # "pass" is never legal in the trump phase
    last = {}
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, _ = env.last()
        assert terminated and not obs["action_mask"].any()
        last[agent] = reward
        env.step(None)
    assert last[offender] == -1 and set(last) == {"player_0", "player_1"}


# --- PettingZoo's tutorial "SB3: Action Masked PPO" (sb3-contrib MaskablePPO) ------------

class SB3ActionMaskWrapper(BaseWrapper, gymnasium.Env):
    """The tutorial's adapter: one Gymnasium env whose learner plays every seat."""

    def reset(self, seed=None, options=None):
        super().reset(seed, options)
        self.observation_space = super().observation_space(self.possible_agents[0])["observation"]
        self.action_space = super().action_space(self.possible_agents[0])
        return self.observe(self.agent_selection), {}

    def step(self, action):
        mover = self.agent_selection
        super().step(action)
        return (self.observe(self.agent_selection), self._cumulative_rewards[mover],
                self.terminations[mover], self.truncations[mover], self.infos[mover])

    def observe(self, agent):
        return super().observe(agent)["observation"]

    def action_mask(self):
        return super().observe(self.agent_selection)["action_mask"]


def test_sb3_action_mask_tutorial_through_pettingzoo_make():
    sb3_contrib = pytest.importorskip("sb3_contrib")
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
    from sb3_contrib.common.wrappers import ActionMasker

    env = SB3ActionMaskWrapper(pettingzoo.make("aec", "Widderkopf-v0"))
    env.reset(seed=0)
    env = ActionMasker(env, lambda e: e.action_mask())
    model = quiet(sb3_contrib.MaskablePPO(MaskableActorCriticPolicy, env, n_steps=64,
                                          batch_size=32, n_epochs=1,
                                          policy_kwargs={"net_arch": [32]}, seed=0))
    model.learn(total_timesteps=64)

    # the tutorial's evaluation: the model against a random agent, both through last()
    env = pettingzoo.make("aec", "Widderkopf-v0")
    rng = np.random.default_rng(0)
    for game in range(2):
        env.reset(seed=game)
        decisions = 0
        for agent in env.agent_iter():
            obs, _, terminated, truncated, info = env.last()
            assert not info.get("illegal_action")
            if terminated or truncated:
                action = None
            elif agent == "player_0":
                action = int(model.predict(obs["observation"], action_masks=obs["action_mask"],
                                           deterministic=True)[0])
            else:
                action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
            decisions += action is not None
            env.step(action)
        assert decisions >= MIN_DECISIONS
