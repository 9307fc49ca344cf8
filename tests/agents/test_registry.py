"""The registry knows the shipped bots and file loaders itself: stale or missing install
metadata (no entry points at all) cannot break ``load_agent("heuristic")`` or the
default opponent, while third-party entry points still add names."""

from __future__ import annotations

from importlib.metadata import EntryPoint

import pytest

from widderkopf_env import WidderkopfEnv, agent_names, load_agent, registry


@pytest.fixture
def no_metadata(monkeypatch):
    monkeypatch.setattr(registry, "entry_points", lambda group: [])
    monkeypatch.setattr(registry, "_entry_points", None)


def test_shipped_bots_load_without_any_install_metadata(no_metadata):
    for name in registry.SHIPPED:
        assert name in agent_names()
    assert type(load_agent("heuristic")).__name__ == "HeuristicAgent"
    assert load_agent("net").name == "net"
    env = WidderkopfEnv()  # the default opponent is the heuristic
    env.reset(seed=1)
    env.step(int(env.action_masks().nonzero()[0][0]))


def test_shipped_file_loaders_work_without_metadata(no_metadata, tmp_path):
    from widderkopf_env.agents.shipped import NET_FILE

    assert load_agent(str(NET_FILE)).name == NET_FILE.stem
    with pytest.raises(ValueError, match="unknown agent 'nobody'"):
        load_agent("nobody")


def test_a_third_party_entry_point_adds_a_name(monkeypatch):
    ep = EntryPoint("copycat", "widderkopf_env.agent:RandomAgent", registry.AGENT_GROUP)
    monkeypatch.setattr(registry, "entry_points",
                        lambda group: [ep] if group == registry.AGENT_GROUP else [])
    monkeypatch.setattr(registry, "_entry_points", None)
    assert "copycat" in agent_names()
    assert type(load_agent("copycat", seed=3)).__name__ == "RandomAgent"
