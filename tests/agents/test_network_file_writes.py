"""A network file is written crash-safe: whole or not at all, ``.npz`` added as numpy adds it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import widderkopf_env.agents as agents
from widderkopf_env.agents.network_file import load_policy, save_policy


def test_a_network_file_is_replaced_whole_or_not_at_all(tmp_path, monkeypatch):
    weights = load_policy(Path(agents.__file__).with_name("ppo_policy.npz"))
    save_policy(weights, tmp_path / "agent")  # numpy's rule: ".npz" is added
    path = tmp_path / "agent.npz"
    before = path.read_bytes()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["agent.npz"]

    def crash(*args):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", crash)
    with pytest.raises(OSError, match="agent.npz"):
        save_policy(weights, path)
    assert path.read_bytes() == before  # the old file, whole
    assert sorted(p.name for p in tmp_path.iterdir()) == ["agent.npz"]  # no temporary left
    monkeypatch.undo()
    assert load_policy(str(path)).keys() == weights.keys()
