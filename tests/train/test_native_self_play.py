"""``--vec-env native --self-play``: the batched engine with the self-play opponent pool
(:class:`~widderkopf_env.train.batched_vec_env.BatchedPool`). The pool's snapshots play
as the scalar :class:`PolicySnapshot` does, from the opponent's view only; its draws
follow the mix and the seed; a PPO run with snapshots and a resume works end to end."""

from __future__ import annotations

import json

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from widderkopf_env.agents.network_file import load_policy  # noqa: E402
from widderkopf_env.agents.numpy_net import PolicySnapshot  # noqa: E402
from widderkopf_env.agents.shipped import POLICY_FILE  # noqa: E402
from widderkopf_env.train import checkpoints  # noqa: E402
from widderkopf_env.train.batched_vec_env import BatchedPool, NativeTrainingVecEnv  # noqa: E402
from widderkopf_env.train.opponents import SNAPSHOT  # noqa: E402
from widderkopf_env.train.ppo import parse_config, train_from_args  # noqa: E402
from widderkopf_env.vector import WidderkopfVectorEnv  # noqa: E402
from widderkopf_env.vector.rows import GameRow  # noqa: E402


def sharp(weights: dict, scale: float = 1e4) -> dict:
    """``weights`` with the last layer scaled: sampling from it is its arg-max."""
    layers = [(w, b) for w, b in weights["layers"]]
    w, b = layers[-1]
    layers[-1] = (w * scale, b * scale)
    return {**weights, "layers": layers}


def test_snapshots_play_the_scalar_policys_moves_from_the_opponents_view():
    weights = sharp(load_policy(POLICY_FILE))
    pool = BatchedPool({"heuristic": 0.0}, 16)  # every episode: a snapshot
    pool.set_snapshots([weights])
    env = WidderkopfVectorEnv(16, opponent="self")
    env.reset(seed=5)
    rng = np.random.default_rng(1)
    scalar = PolicySnapshot(weights, deterministic=True)
    checked = 0
    for _ in range(60):
        idx = np.arange(16)
        pool.reset(idx, np.random.default_rng(2))
        player = env.game.current[idx]
        got = pool.actions(env.game, idx, player)
        for i in idx:
            view = GameRow(env.game, int(i)).view(int(player[i]))
            assert got[i] == scalar.act(view)
            checked += 1
        mask = env.action_masks()
        env.step((rng.random(mask.shape) * mask).argmax(1))
    assert checked == 960


def test_the_pool_draws_per_episode_by_the_mix_and_the_seed():
    cfg = parse_config(["--n-envs", "32", "--vec-env", "native", "--self-play",
                        "--heuristic-share", "0.5", "--random-share", "0.2"])

    def play(seed):
        env = NativeTrainingVecEnv(cfg, seed=seed)
        env.env_method("set_snapshots", [load_policy(POLICY_FILE)])
        obs, labels, rewards = [env.reset()], [], []
        rng = np.random.default_rng(0)
        for _ in range(300):
            mask = env.action_masks()
            o, r, dones, infos = env.step((rng.random(mask.shape) * mask).argmax(1))
            obs.append(o)
            rewards.append(r)
            labels += [infos[i]["opponent"] for i in np.flatnonzero(dones)]
        return np.stack(obs), np.stack(rewards), labels

    obs, rewards, labels = play(4)
    counts = {k: labels.count(k) for k in set(labels)}
    assert set(counts) == {"heuristic", "random", SNAPSHOT}, counts
    share = counts["heuristic"] / len(labels)
    assert len(labels) > 150 and 0.35 < share < 0.65, counts
    again = play(4)
    np.testing.assert_array_equal(obs, again[0])
    np.testing.assert_array_equal(rewards, again[1])
    assert labels == again[2]
    assert not np.array_equal(obs, play(5)[0])


def test_widderkopf_train_self_play_on_the_native_env_resumes(tmp_path, one_torch_thread):
    out = tmp_path / "run"
    args = ["--out", str(out), "--n-envs", "16", "--vec-env", "native", "--self-play",
            "--snapshot-every", "1024", "--net-arch", "32", "--n-steps", "64",
            "--batch-size", "512", "--epochs", "1", "--eval-every", "0",
            "--final-eval-pairs", "4", "--workers", "1", "--checkpoint-every", "1024",
            "--crack-after", "0", "--no-progress", "--quiet"]
    summary = train_from_args(["--total-steps", "2048", *args])
    assert summary["steps"] == 2048
    _, state = checkpoints.latest(out / "checkpoints")
    assert [p["steps"] for p in state["pool"]] == [1024]
    resumed = train_from_args(["--total-steps", "4096", "--resume", *args])
    assert resumed["resumed_from"] == 2048 and resumed["steps"] == 4096
    _, state = checkpoints.latest(out / "checkpoints")
    assert [p["steps"] for p in state["pool"]] == [1024, 2048, 3072]
    assert json.loads((out / "config.json").read_text())["vec_env"] == "native"
