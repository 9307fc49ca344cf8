"""widderkopf-values: exact-value shards (resumable, seeded), the card-value fit, the result
as an agent."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import plays_legal_moves, usage_error

from widderkopf_env import Game
from widderkopf_env.agents import HeuristicAgent, load_agent
from widderkopf_env.agents.features import SIZE as FEATURES
from widderkopf_env.agents.net_agent import NetAgent
from widderkopf_env.agents.network_file import load_snapshot_agent
from widderkopf_env.agents.shipped import NET_FILE
from widderkopf_env.agents.solver import solve_actions, solve_value
from widderkopf_env.observation import OBS_SIZE, OFFSETS
from widderkopf_env.rules import PLAY
from widderkopf_env.train import distill_cli, value_cli
from widderkopf_env.train.shards import load_shards
from widderkopf_env.train.value_data import FIELDS as VALUE_FIELDS
from widderkopf_env.train.value_data import card_values, generate_values, value_shard

LEGAL, TRICKS_DONE = OFFSETS["legal_cards"][0], OFFSETS["tricks_done"][0]


@pytest.fixture(scope="module")
def value_shards(tmp_path_factory):
    out = tmp_path_factory.mktemp("values")
    assert value_cli.main(["data", "--out", str(out), "--shards", "2", "--games", "3",
                         "--tricks-left", "1", "14", "--exact-tricks", "9", "--seed", "3"]) == 0
    return out


def test_value_shards_hold_the_values_of_the_legal_cards(value_shards):
    data = load_shards(value_shards, fields=VALUE_FIELDS)
    n = len(data["game"])
    assert n > 50 and data["obs"].shape == (n, OBS_SIZE)
    assert data["features"].shape == (n, FEATURES)
    legal = data["obs"][:, LEGAL:LEGAL + 36] > 0.5
    assert (~np.isnan(data["values"]) == legal).all()  # a value for every legal card only
    v = data["values"][legal]
    assert v.min() >= 0 and v.max() <= 121 and (v == np.round(v)).all()
    left = np.rint(17 - data["obs"][:, TRICKS_DONE] * 17)
    assert left.min() >= 1 and left.max() == 14  # rollout positions too


def test_value_shards_resume_and_are_seeded(value_shards):
    before = {p.name: p.stat().st_mtime_ns for p in value_shards.glob("shard_*.npz")}
    assert generate_values(value_shards, 2, seed=3, games=3, tricks=(1, 14), exact_tricks=9,
                           log=lambda *_: None) == 0
    assert {p.name: p.stat().st_mtime_ns for p in value_shards.glob("shard_*.npz")} == before
    policy = load_snapshot_agent(str(NET_FILE), seed=1, deterministic=False)
    again = value_shard(1, 3, 3, (1, 14), policy=policy, exact_tricks=9)
    with np.load(value_shards / "shard_00001.npz") as z:
        for f in VALUE_FIELDS:
            np.testing.assert_array_equal(again[f], z[f])


def test_card_values_are_exact_late_and_rollouts_early():
    game = Game.new(seed=4)
    h = HeuristicAgent(CRACK=False)
    while not (game.phase == PLAY and len(game.tricks) == 6):
        game.apply(h.act(game.view(game.current)))
    # 11 tricks left: exact when the solver takes over at 11, a rollout when it starts at 9
    assert card_values(game, 11, h) == solve_actions(game)
    rolled = card_values(game, 9, h)
    assert set(rolled) == set(solve_actions(game))
    for card, x in rolled.items():
        g = game.clone()
        g.apply(card)
        while len(g.tricks) < 8:
            g.apply(h.act(g.view(g.current)))
        assert x == solve_value(g, game.current)


def test_the_solves_of_one_game_share_its_table_and_give_the_same_values(monkeypatch):
    """value_shard keeps one solver table per game (one deal: one world) for all its
    solves, exact and after rollouts; the shard equals one with a fresh table per solve."""
    from widderkopf_env.train import value_data

    calls = []

    def spying(solve):
        def call(*args):
            calls.append((args[0].seed, id(args[-1])))
            return solve(*args)
        return call

    def fresh(solve):
        return lambda *args: solve(*args[:-1], {})

    monkeypatch.setattr(value_data, "solve_actions", spying(solve_actions))
    monkeypatch.setattr(value_data, "solve_value", spying(solve_value))
    kept = value_shard(0, 5, 3, tricks=(1, 10), exact_tricks=8)
    tables = {}
    for seed, table in calls:
        tables.setdefault(seed, set()).add(table)
    assert len(tables) == 3 and all(len(t) == 1 for t in tables.values())
    monkeypatch.setattr(value_data, "solve_actions", fresh(solve_actions))
    monkeypatch.setattr(value_data, "solve_value", fresh(solve_value))
    again = value_shard(0, 5, 3, tricks=(1, 10), exact_tricks=8)
    assert len(kept["values"]) > 20
    for f in VALUE_FIELDS:
        np.testing.assert_array_equal(kept[f], again[f])


def test_fit_writes_an_agent_that_plays(value_shards, tmp_path, capsys):
    net = tmp_path / "net.npz"
    assert value_cli.main(["fit", "--data", str(value_shards), "--policy",
                         str(NET_FILE), "--out", str(net), "--epochs", "2", "--net-arch", "16",
                         "--tricks", "14"]) == 0
    assert "held-out regret" in capsys.readouterr().out
    agent = load_agent(str(net))
    assert isinstance(agent, NetAgent) and agent.tricks == 14
    plays_legal_moves(agent, games=2)


def test_bad_value_arguments_are_usage_errors(capsys, tmp_path):
    assert "1..17" in usage_error(value_cli.main, ["data", "--out", "x", "--shards", "1",
                                                   "--tricks-left", "0", "8"], capsys)
    assert "LO must not exceed HI" in usage_error(
        value_cli.main, ["data", "--out", str(tmp_path), "--shards", "1", "--tricks-left", "9",
                         "8"], capsys)
    assert "no such file" in usage_error(
        value_cli.main, ["data", "--out", str(tmp_path), "--shards", "1", "--policy",
                         "missing.npz"], capsys)
    not_a_network = tmp_path.parent / "not_a_network.npz"
    np.savez(not_a_network, x=np.zeros(3))
    for main, command in ((value_cli.main, "data"), (distill_cli.main, "generate")):
        assert "not a network file" in usage_error(
            main, [command, "--out", str(tmp_path), "--shards", "1", "--policy",
                   str(not_a_network)], capsys)
    assert "no shards" in usage_error(
        value_cli.main, ["fit", "--data", str(tmp_path), "--policy", str(NET_FILE),
                         "--out", "n.npz"], capsys)
    assert not list(tmp_path.iterdir())  # nothing written
