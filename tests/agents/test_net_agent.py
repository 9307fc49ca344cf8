"""The network agent's card-value half (src/widderkopf_env/agents/net_agent.py): decisions, files, errors."""

from __future__ import annotations

import random

import numpy as np
import pytest

from widderkopf_env import Game
from widderkopf_env.agents import HeuristicAgent, load_agent
from widderkopf_env.agents.canonical import ROLES
from widderkopf_env.agents.features import SIZE as FEATURES
from widderkopf_env.agents.net_agent import CardValues, NetAgent
from widderkopf_env.agents.network_file import (
    load_net_agent,
    load_policy,
    load_values,
    save_policy,
)
from widderkopf_env.agents.numpy_net import PolicySnapshot
from widderkopf_env.agents.shipped import NET_FILE
from widderkopf_env.cards import ALL_CARDS, ESCALATE, TRICKS, from_bits
from widderkopf_env.observation import OBS_SIZE
from widderkopf_env.rules import PLAY

RANKING = -np.arange(36, dtype=np.float32)  # canonical card 0 (the club queen) best


def ranking_layers(values=RANKING):
    """Two layers whose output is ``values`` (canonical order) whatever the input."""
    return [(np.zeros((1, OBS_SIZE + FEATURES), np.float32), np.ones(1, np.float32)),
            (np.asarray(values, np.float32).reshape(36, 1), np.zeros(36, np.float32))]


def policy():
    return PolicySnapshot(load_policy(NET_FILE), deterministic=True, name="net")


def positions(n: int, seed: int = 0):
    """Views of the player to act at the card decisions of heuristic-vs-heuristic games."""
    h, rng = HeuristicAgent(), random.Random(seed)
    for i in range(n):
        g = Game.new(seed=seed * 1000 + i)
        while not g.is_over:
            view = g.view(g.current)
            if view.phase == PLAY and rng.random() < 0.3:
                yield view
            g.apply(h.act(view))


def test_the_best_valued_legal_card_is_played():
    agent = NetAgent(policy(), CardValues(ranking_layers()))
    seen = 0
    for view in positions(20):
        action = agent.act(view)
        if action == ESCALATE:
            assert agent.policy.act(view) == ESCALATE
            continue
        cards = from_bits(view.legal & ALL_CARDS)
        assert action == min(cards, key=lambda c: ROLES[view.trump][c])
        seen += len(cards) > 1
    assert seen > 50


def test_the_policy_plays_before_the_card_values_take_over():
    agent = NetAgent(policy(), CardValues(ranking_layers(-RANKING)), tricks=5)
    by_policy = by_values = 0
    for view in positions(20, seed=1):
        left = TRICKS - len(view.tricks)
        assert agent.plays_cards(view) == (left <= 5)
        cards = from_bits(view.legal & ALL_CARDS)
        if len(cards) < 2 or view.legal >> ESCALATE & 1:
            continue
        if left > 5:
            assert agent.act(view) == agent.policy.act(view)
            by_policy += 1
        else:
            assert agent.act(view) == max(cards, key=lambda c: ROLES[view.trump][c])
            by_values += 1
    assert by_policy > 20 and by_values > 20


def test_a_network_file_round_trips(tmp_path):
    path = tmp_path / "both.npz"
    save_policy(load_policy(NET_FILE), path, values=(ranking_layers(), 9))
    agent = load_net_agent(path)
    assert isinstance(agent, NetAgent) and agent.tricks == 9 and agent.name == "both"
    assert isinstance(load_agent(str(path)), NetAgent)
    layers, tricks = load_values(path)
    np.testing.assert_array_equal(layers[1][0][:, 0], RANKING)
    with np.load(path, allow_pickle=False) as z:
        assert not any(z[k].dtype == object for k in z.files)
    # a policy-only file is a policy agent
    save_policy(load_policy(NET_FILE), tmp_path / "policy.npz")
    assert isinstance(load_net_agent(tmp_path / "policy.npz"), PolicySnapshot)
    assert load_values(tmp_path / "policy.npz") is None


def test_files_and_layers_that_do_not_fit_are_refused(tmp_path):
    path = tmp_path / "old.npz"
    save_policy(load_policy(NET_FILE), path, values=(ranking_layers(), 9))
    with np.load(path) as z:
        arrays = dict(z)
    arrays["v_features"] = np.array(FEATURES - 1)
    np.savez(path, **arrays)
    with pytest.raises(ValueError, match="card features"):
        load_net_agent(path)
    bad = ranking_layers()
    bad[0] = (np.zeros((1, OBS_SIZE), np.float32), np.ones(1, np.float32))
    with pytest.raises(ValueError, match="inputs"):
        CardValues(bad)
    with pytest.raises(ValueError, match="tricks"):
        NetAgent(policy(), CardValues(ranking_layers()), tricks=18)


def test_the_shipped_net_plays_its_cards_with_the_value_network():
    agent = load_agent("net")
    assert isinstance(agent, NetAgent) and agent.name == "net"
    assert 1 <= agent.tricks <= TRICKS
    differs = 0
    for view in positions(30, seed=2):
        cards = from_bits(view.legal & ALL_CARDS)
        if agent.plays_cards(view) and len(cards) > 1 and not view.legal >> ESCALATE & 1:
            differs += agent.act(view) != agent.policy.act(view)
    assert differs > 10  # the card values, not the policy, decide there
