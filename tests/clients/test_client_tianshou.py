"""Tianshou's PettingZoo example (tic-tac-toe: a DQN learner against a masked random
agent) with only the env swapped: ``PettingZooEnv(widderkopf_env.env())``.

Tianshou 2 renamed ``MultiAgentPolicyManager`` to ``MultiAgentOffPolicyAlgorithm`` (with
``MultiAgentPolicy`` as its policy); this is that class.
"""

from __future__ import annotations

import numpy as np
import pytest

import widderkopf_env

pytest.importorskip("tianshou")
import torch  # noqa: E402
from tianshou.algorithm import (  # noqa: E402
    DQN,
    MARLRandomDiscreteMaskedOffPolicyAlgorithm,
    MultiAgentOffPolicyAlgorithm,
)
from tianshou.algorithm.modelfree.dqn import DiscreteQLearningPolicy  # noqa: E402
from tianshou.algorithm.optim import AdamOptimizerFactory  # noqa: E402
from tianshou.data import Collector, CollectStats, VectorReplayBuffer  # noqa: E402
from tianshou.env import DummyVectorEnv  # noqa: E402
from tianshou.env.pettingzoo_env import PettingZooEnv  # noqa: E402
from tianshou.trainer import OffPolicyTrainerParams  # noqa: E402
from tianshou.utils.net.common import Net  # noqa: E402

MIN_DECISIONS = 37  # trump, two discards, 34 cards


def get_env() -> PettingZooEnv:
    return PettingZooEnv(widderkopf_env.env())


def test_dqn_against_masked_random_with_multi_agent_algorithm():
    env = get_env()
    net = Net(state_shape=env.observation_space["observation"].shape,
              action_shape=env.action_space.n, hidden_sizes=[32])
    learner = DQN(
        policy=DiscreteQLearningPolicy(model=net, action_space=env.action_space,
                                       eps_training=0.1, eps_inference=0.05),
        optim=AdamOptimizerFactory(lr=1e-4), gamma=0.9, n_step_return_horizon=3,
        target_update_freq=320)
    opponent = MARLRandomDiscreteMaskedOffPolicyAlgorithm(action_space=env.action_space)
    marl = MultiAgentOffPolicyAlgorithm(algorithms=[opponent, learner], env=env)
    assert env.agents == ["player_0", "player_1"]

    train_envs = DummyVectorEnv([get_env for _ in range(2)])
    test_envs = DummyVectorEnv([get_env for _ in range(2)])
    np.random.seed(0)
    torch.manual_seed(0)
    train_envs.seed(0)
    test_envs.seed(0)
    train_collector = Collector[CollectStats](marl, train_envs, VectorReplayBuffer(1000, 2),
                                              exploration_noise=True)
    test_collector = Collector[CollectStats](marl, test_envs, exploration_noise=True)
    train_collector.reset()
    train_collector.collect(n_step=64)
    result = marl.run_training(OffPolicyTrainerParams(
        training_collector=train_collector, test_collector=test_collector, max_epochs=1,
        epoch_num_steps=40, collection_step_num_env_steps=20, test_step_num_episodes=2,
        batch_size=16, update_step_num_gradient_steps_per_sample=0.05, test_in_training=False,
        multi_agent_return_reduction=lambda rews: rews[:, 1], show_progress=False,
        verbose=False))
    assert result.update_step >= 1 and result.train_step >= 40

    stats = Collector[CollectStats](marl, test_envs, exploration_noise=True).collect(
        n_episode=2, reset_before_collect=True)
    # masked moves only (an illegal one would end a hand early), zero-sum returns
    assert (stats.lens >= MIN_DECISIONS).all()
    np.testing.assert_array_equal(stats.returns[:, 0], -stats.returns[:, 1])
    assert (np.abs(stats.returns[:, 0]) >= 1).all()
