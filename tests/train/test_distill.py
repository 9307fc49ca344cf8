"""widderkopf-distill: PIMC-labelled shards (resumable, seeded), training, the result as an agent."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import usage_error

from widderkopf_env import Game
from widderkopf_env.agents import HeuristicAgent, load_agent
from widderkopf_env.agents.features import SIZE as FEATURES
from widderkopf_env.agents.net_agent import NetAgent
from widderkopf_env.agents.shipped import NET_FILE, load_snapshot_agent
from widderkopf_env.agents.solver import solve_actions, solve_value
from widderkopf_env.cards import ESCALATE, NUM_ACTIONS, PASS
from widderkopf_env.observation import OBS_SIZE, OFFSETS
from widderkopf_env.rules import PLAY
from widderkopf_env.train import distill
from widderkopf_env.train.distill_data import FIELDS, generate, generate_shard, load_shards
from widderkopf_env.train.value_data import FIELDS as VALUE_FIELDS
from widderkopf_env.train.value_data import card_values, generate_values, value_shard

LEGAL, TRICKS_DONE = OFFSETS["legal_cards"][0], OFFSETS["tricks_done"][0]


@pytest.fixture(scope="module")
def shards(tmp_path_factory):
    out = tmp_path_factory.mktemp("shards")
    n = generate(out, shards=2, seed=5, matches=1, samples=2, log=lambda *_: None)
    return out, n


def test_shards_hold_labelled_positions(shards):
    out, n = shards
    data = load_shards(out)
    assert set(data) == set(FIELDS) and len(data["action"]) == n > 30
    assert data["obs"].shape == (n, OBS_SIZE) and data["mask"].shape == (n, NUM_ACTIONS)
    rows = np.arange(n)
    assert (data["mask"][rows, data["action"]] == 1).all()  # the expert's move is legal
    assert (data["mask"].sum(1) > 1).all()  # forced moves are not stored
    compared = ~np.isnan(data["values"]).all(1)
    assert compared.any()
    # values exist only for legal actions, and the expert's card is one of the best
    assert not (~np.isnan(data["values"]) & (data["mask"] == 0)).any()
    cards = compared & (data["action"] < ESCALATE)
    best = np.nanmax(data["values"][cards], axis=1)
    assert np.allclose(data["values"][cards, data["action"][cards]], best)


def test_generation_resumes_and_is_seeded(shards, tmp_path):
    out, _ = shards
    before = {p.name: p.stat().st_mtime_ns for p in out.glob("shard_*.npz")}
    assert generate(out, shards=2, seed=5, matches=1, samples=2, log=lambda *_: None) == 0
    assert {p.name: p.stat().st_mtime_ns for p in out.glob("shard_*.npz")} == before
    again = generate_shard(1, seed=5, matches=1, samples=2)
    with np.load(out / "shard_00001.npz") as z:
        for f in FIELDS:
            np.testing.assert_array_equal(again[f], z[f])
    other = generate_shard(1, seed=6, matches=1, samples=2)
    assert not np.array_equal(other["action"], again["action"])


def test_targets_mix_the_move_with_the_scores():
    values = np.full((3, NUM_ACTIONS), np.nan, np.float32)
    values[0, [1, 2]] = [10.0, 2.0]
    data = {"action": np.array([1, ESCALATE, PASS]), "values": values}
    y = distill.targets(data, tau=4.0, soft=0.5)
    assert np.allclose(y.sum(1), 1.0)
    p = 1 / (1 + np.exp(-(10.0 - 2.0) / 4.0))  # softmax of the scores / tau
    assert y[0, 1] == pytest.approx(0.5 + 0.5 * p) and y[0, 2] == pytest.approx(0.5 * (1 - p))
    assert y[1, ESCALATE] == 1.0 and y[2, PASS] == 1.0


def test_train_export_and_play_end_to_end(shards, tmp_path, capsys):
    out, _ = shards
    net = tmp_path / "net.npz"
    assert distill.main(["train", "--data", str(out), "--out", str(net), "--epochs", "2",
                         "--hidden", "32", "--batch", "64"]) == 0
    assert "agrees with the expert" in capsys.readouterr().out
    plays_legal_moves(load_agent(str(net), seed=0), games=3)  # any snapshot .npz is an agent


def plays_legal_moves(agent, games: int) -> None:
    """``agent`` against the heuristic, seats alternating: every move legal."""
    h = HeuristicAgent()
    for seed in range(games):
        game = Game.new(seed=seed)
        while not game.is_over:
            p = game.current
            a = (agent if p == seed % 2 else h).act(game.view(p))
            assert a in game.legal_actions()
            game.apply(a)


def test_bad_arguments_are_usage_errors(capsys, tmp_path):
    assert "integer >= 1" in usage_error(distill.main, ["generate", "--out", "x",
                                                            "--shards", "0"], capsys)
    assert "--mix" in usage_error(distill.main, ["generate", "--out", "x", "--shards", "1",
                                                 "--mix", "0.5,0.5"], capsys)
    assert "no shards" in usage_error(distill.main, ["train", "--data", str(tmp_path),
                                                     "--out", "n.npz"], capsys)
    with pytest.raises(ValueError, match="mix"):
        generate_shard(0, 0, 1, mix=(0.5, 0.6, 0.0))


# --- the card-value network: exact-value shards and their fit --------------------------------

@pytest.fixture(scope="module")
def value_shards(tmp_path_factory):
    out = tmp_path_factory.mktemp("values")
    assert distill.main(["values", "--out", str(out), "--shards", "2", "--games", "3",
                         "--tricks", "1", "14", "--exact-tricks", "9", "--seed", "3"]) == 0
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


def test_train_values_writes_an_agent_that_plays(value_shards, tmp_path, capsys):
    net = tmp_path / "net.npz"
    assert distill.main(["train-values", "--data", str(value_shards), "--policy",
                         str(NET_FILE), "--out", str(net), "--epochs", "2", "--hidden", "16",
                         "--tricks", "14"]) == 0
    assert "held-out regret" in capsys.readouterr().out
    agent = load_agent(str(net))
    assert isinstance(agent, NetAgent) and agent.tricks == 14
    plays_legal_moves(agent, games=2)


def test_bad_value_arguments_are_usage_errors(capsys, tmp_path):
    assert "1..17" in usage_error(distill.main, ["values", "--out", "x", "--shards", "1",
                                                 "--tricks", "0", "8"], capsys)
    assert "LO must not exceed HI" in usage_error(
        distill.main, ["values", "--out", str(tmp_path), "--shards", "1", "--tricks", "9",
                       "8"], capsys)
    assert "no such file" in usage_error(
        distill.main, ["values", "--out", str(tmp_path), "--shards", "1", "--policy",
                       "missing.npz"], capsys)
    not_a_network = tmp_path.parent / "not_a_network.npz"
    np.savez(not_a_network, x=np.zeros(3))
    for command in ("values", "generate"):
        assert "not a network file" in usage_error(
            distill.main, [command, "--out", str(tmp_path), "--shards", "1", "--policy",
                           str(not_a_network)], capsys)
    assert "no shards" in usage_error(
        distill.main, ["train-values", "--data", str(tmp_path), "--policy", str(NET_FILE),
                       "--out", "n.npz"], capsys)
    assert not list(tmp_path.iterdir())  # nothing written
