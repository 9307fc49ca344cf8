"""The SB3 VecEnv over the batched engine: SB3's own VecEnv checks and a short
MaskablePPO run."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from helpers import quiet  # noqa: E402
from sb3_contrib import MaskablePPO  # noqa: E402
from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported  # noqa: E402
from stable_baselines3.common.vec_env import VecMonitor  # noqa: E402

from widderkopf_env import Game, Phase  # noqa: E402
from widderkopf_env.cards import NUM_ACTIONS  # noqa: E402
from widderkopf_env.observation import OBS_SIZE, piece  # noqa: E402
from widderkopf_env.vector.sb3 import WidderkopfSB3VecEnv  # noqa: E402


def test_sb3_api_masks_terminal_observations_and_seeding():
    env = WidderkopfSB3VecEnv(8, opponent="random")
    assert is_masking_supported(env)
    env.seed(40)
    obs = env.reset()
    assert obs.shape == (8, OBS_SIZE) and obs.dtype == np.float32
    deals = [Game.new(seed=40 + i).deals[0] for i in range(8)]
    assert env.venv.game.down.tolist() == [d[0][2] + d[1][2] for d in deals]
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(120):
        masks = get_action_masks(env)
        assert masks.shape == (8, NUM_ACTIONS) and masks.any(axis=1).all()
        actions = (rng.random(masks.shape) * masks).argmax(1)
        obs, rewards, dones, infos = env.step(actions)
        assert rewards.dtype == np.float32 and len(infos) == 8
        for i in np.flatnonzero(dones):
            ended += 1
            final = infos[i]["terminal_observation"]
            assert final.shape == (OBS_SIZE,)
            assert piece(final, "phase")[Phase.OVER] == 1  # the ended match, not the next
            assert piece(obs[i], "phase")[Phase.OVER] == 0
            assert abs(rewards[i]) == infos[i]["value"] >= 1
        assert not any("terminal_observation" in infos[i] for i in np.flatnonzero(~dones))
    assert ended > 8
    assert env.env_method("action_masks", indices=[3])[0].shape == (NUM_ACTIONS,)
    assert env.get_attr("num_hands") == [1] * 8
    env.close()


@pytest.mark.parametrize("obs_dtype", [np.float32, np.uint8], ids=["float32", "uint8"])
def test_maskable_ppo_learns_a_few_thousand_steps(one_torch_thread, obs_dtype):
    env = VecMonitor(WidderkopfSB3VecEnv(64, opponent="random", reward_shaping=True,
                                         obs_dtype=obs_dtype))
    assert env.observation_space.dtype == obs_dtype
    model = quiet(MaskablePPO("MlpPolicy", env, n_steps=32, batch_size=1024, n_epochs=1,
                              seed=0, policy_kwargs={"net_arch": [32]}, device="cpu"))
    model.learn(2 * 32 * 64)  # two rollouts of 2048 steps, two updates
    assert model.num_timesteps == 2 * 32 * 64
    assert len(model.ep_info_buffer) > 50  # whole episodes went through VecMonitor


def test_widderkopf_train_runs_on_the_native_vec_env(tmp_path, one_torch_thread):
    from widderkopf_env.train.ppo import train_from_args

    out = tmp_path / "run"
    summary = train_from_args(["--total-steps", "1024", "--n-envs", "8", "--vec-env", "native",
                    "--opponent", "random", "--out", str(out), "--net-arch", "32",
                    "--n-steps", "64", "--batch-size", "256", "--epochs", "1",
                    "--eval-every", "0", "--final-eval-pairs", "4", "--workers", "1",
                    "--checkpoint-every", "0", "--crack-after", "512", "--no-progress",
                    "--quiet"])
    assert summary["steps"] == 1024 and (out / "final_model.zip").is_file()


def test_native_training_env_scales_rewards_and_masks_escalation():
    from widderkopf_env.cards import ESCALATE
    from widderkopf_env.train.batched_vec_env import NativeTrainingVecEnv
    from widderkopf_env.train.ppo import parse_config

    cfg = parse_config(["--n-envs", "4", "--vec-env", "native", "--opponent", "random",
                        "--reward-scale", "0.5", "--no-reward-shaping"])
    env = NativeTrainingVecEnv(cfg, seed=3)
    env.reset()
    env.env_method("set_escalation", False)
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(200):
        masks = get_action_masks(env)
        assert not masks[:, ESCALATE].any() and masks.any(axis=1).all()
        _, rewards, dones, infos = env.step((rng.random(masks.shape) * masks).argmax(1))
        for i in np.flatnonzero(dones):
            ended += 1
            assert infos[i]["opponent"] == "random"
            assert rewards[i] == 0.5 * infos[i]["game_points"] != 0
    assert ended > 4
    seconds, steps = env.env_method("env_timing")[0]
    assert seconds > 0 and steps == 200

