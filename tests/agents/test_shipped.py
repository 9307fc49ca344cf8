"""The networks shipped in the package: ``load_agent("ppo")``, ``"ppo-v1"``, ``"net"``,
``"net-v2"`` and ``"net-v1"``."""

import random
import subprocess
import sys

import numpy as np
import pytest

from widderkopf_env import Game
from widderkopf_env.agents import load_agent
from widderkopf_env.agents.network_file import load_policy, load_values
from widderkopf_env.agents.shipped import (
    NET_FILE,
    NET_V1_FILE,
    NET_V2_FILE,
    POLICY_FILE,
    POLICY_V1_FILE,
)
from widderkopf_env.observation import OBS_SIZE

SHIPPED = pytest.mark.parametrize("name, path", [("ppo", POLICY_FILE),
                                                 ("ppo-v1", POLICY_V1_FILE), ("net", NET_FILE),
                                                 ("net-v2", NET_V2_FILE),
                                                 ("net-v1", NET_V1_FILE)])


@SHIPPED
def test_shipped_policy_is_small_and_fits_the_observation(name, path):
    # the nets also hold a card-value network (512-512-256 over 778 inputs: 3.2 MB);
    # net's and net-v2's policy networks are 512-512, net-v1's 256-256
    assert path.stat().st_size < (2_000_000 if name.startswith("ppo") else 5_500_000)
    weights = load_policy(path)
    first, last = weights["layers"][0][0], weights["layers"][-1][0]
    assert first.shape[1] == OBS_SIZE and last.shape[0] == 42


@SHIPPED
def test_shipped_policy_plays_only_legal_moves(name, path):
    agent = load_agent(name)
    assert agent.name == name
    rng = random.Random(0)
    for seed in range(60):
        g = Game.new(seed=seed)
        ppo_seat = seed % 2
        while not g.is_over:
            p = g.current_player
            a = agent.act(g.view(p)) if p == ppo_seat else rng.choice(g.legal_actions())
            assert a in g.legal_actions()
            g.apply(a)


@SHIPPED
def test_shipped_policy_needs_no_torch(name, path):
    code = ("import sys; sys.modules['torch'] = None; sys.modules['stable_baselines3'] = None\n"
            "from widderkopf_env import Game\n"
            "from widderkopf_env.agents import load_agent\n"
            f"g = Game.new(seed=1); a = load_agent({name!r})\n"
            "while not g.is_over: g.apply(a.act(g.view(g.current_player)))\n"
            "print('ok', g.results[-1].value)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout.startswith("ok"), out.stderr


def test_net_is_net_v2_with_a_refitted_policy_network():
    """``net`` was fitted from ``net-v2`` (docs/bots.md, "The search back into net"): the
    same card-value network, a policy network of the same shape with other weights."""
    (values, tricks), (old_values, old_tricks) = load_values(NET_FILE), load_values(NET_V2_FILE)
    assert tricks == old_tricks and len(values) == len(old_values)
    for (w, b), (w2, b2) in zip(values, old_values, strict=True):
        assert np.array_equal(w, w2) and np.array_equal(b, b2)
    new, old = load_policy(NET_FILE)["layers"], load_policy(NET_V2_FILE)["layers"]
    assert [w.shape for w, _ in new] == [w.shape for w, _ in old]
    assert not all(np.array_equal(w, w2) for (w, _), (w2, _) in zip(new, old, strict=True))
