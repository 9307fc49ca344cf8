"""PPO training pipeline: an end-to-end smoke run (train, checkpoint, kill, resume,
evaluate), the numpy policy snapshot against the torch policy, and the opponent pool."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from widderkopf_env import Game  # noqa: E402
from widderkopf_env.agents import RandomAgent, load_agent  # noqa: E402
from widderkopf_env.agents.arena import play_game  # noqa: E402
from widderkopf_env.observation import OBS_SIZE, encode_with_mask  # noqa: E402
from widderkopf_env.train import checkpoints  # noqa: E402
from widderkopf_env.train.export import PolicySnapshot, export_policy  # noqa: E402
from widderkopf_env.train.opponents import SNAPSHOT, OpponentPool  # noqa: E402
from widderkopf_env.train.ppo import train_from_args  # noqa: E402

SUMMARY_KEYS = {"steps", "wall_seconds", "steps_per_second", "ppo_steps_per_second", "env_share",
                "final", "best", "time_split", "resumed_from"}
TINY = ["--net-arch", "32,32", "--n-steps", "128", "--batch-size", "128", "--epochs", "2",
        "--eval-every", "1024", "--eval-pairs", "8", "--workers", "1",
        "--final-eval-pairs", "16", "--checkpoint-every", "1024", "--keep-checkpoints", "0",
        "--self-play", "--snapshot-every", "1024", "--crack-after", "512", "--no-progress",
        "--quiet"]


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """A 3072-step self-play run in two SubprocVecEnv workers."""
    out = tmp_path_factory.mktemp("train") / "run"
    summary = train_from_args(["--total-steps", "3072", "--n-envs", "2", "--vec-env",
                               "subproc", "--out", str(out), *TINY])
    return out, summary


def test_run_writes_everything(run):
    out, summary = run
    for name in ("config.json", "best_model.zip", "final_model.zip", "final_policy.npz",
                 "eval_history.json", "learning_curve.png", "summary.json"):
        assert (out / name).is_file(), name
    assert list((out / "tb").glob("ppo_*/events.out.tfevents.*"))
    assert checkpoints.list_steps(out / "checkpoints") == [1024, 2048, 3072]
    assert SUMMARY_KEYS <= set(summary)
    assert json.loads((out / "summary.json").read_text()) == json.loads(json.dumps(summary))
    assert summary["steps"] == 3072 and summary["resumed_from"] is None
    for which in ("final", "best"):
        for opp in ("heuristic", "random"):
            r = summary[which][opp]
            assert r["pairs"] == 16 and r["ci95"][0] <= r["mean"] <= r["ci95"][1]
    _, state = checkpoints.latest(out / "checkpoints")
    assert [p["steps"] for p in state["pool"]] == [1024, 2048]  # taken at rollout starts
    assert [e["steps"] for e in state["history"]] == [1024, 2048, 3072]  # 3072: the end


def test_resume_after_kill_continues_the_step_count(run, tmp_path):
    src, _ = run
    out = tmp_path / "run"
    shutil.copytree(src, out)
    ckpt = out / "checkpoints"
    # as if killed after the 2048-step checkpoint, while writing the next one
    for p in checkpoints.paths(ckpt, 3072):
        p.unlink()
    shutil.copy(checkpoints.paths(ckpt, 2048)[0], checkpoints.paths(ckpt, 3072)[0])
    summary = train_from_args(["--out", str(out), "--resume", "--total-steps", "4096",
                               "--n-envs", "1", "--quiet", "--no-progress",
                               "--final-eval-pairs", "16"])
    assert summary["resumed_from"] == 2048
    assert summary["steps"] == 4096 and summary["steps_this_session"] == 2048
    steps = checkpoints.list_steps(ckpt)
    assert steps[-1] == 4096 and 2048 in steps
    _, state = checkpoints.latest(ckpt)
    assert [e["steps"] for e in state["history"]] == [1024, 2048, 3072, 4096]
    assert [p["steps"] for p in state["pool"]] == [1024, 2048, 3072]
    assert len(list((out / "tb").iterdir())) == 1  # the same TensorBoard run goes on


@pytest.mark.parametrize("name", ["final_model.zip", "final_policy.npz"])
def test_saved_model_is_an_agent(run, name):
    out, _ = run
    agent = load_agent(str(out / name))
    for seed in range(4):
        game = play_game(Game.new(seed=seed), (agent, RandomAgent(seed)))  # raises if illegal
        assert game.is_over
    if name.endswith(".npz"):  # the same actor as the .zip: the same moves
        torch_agent = load_agent(str(out / "final_model.zip"))
        for seed in range(4):
            game = Game.new(seed=seed)
            while not game.is_over:
                view = game.view(game.current)
                move = agent.act(view)
                assert move == torch_agent.act(view)
                game.apply(move)


@pytest.mark.parametrize("policy", ["canonical", "mlp"])
def test_snapshot_matches_torch_policy(policy):
    import gymnasium
    import torch
    from sb3_contrib import MaskablePPO

    from widderkopf_env.train.torch_policy import CanonicalPolicy

    env = gymnasium.make("Widderkopf-v0")
    model = MaskablePPO(CanonicalPolicy if policy == "canonical" else "MlpPolicy", env,
                        policy_kwargs={"net_arch": [32, 32]}, seed=0, device="cpu")
    with torch.no_grad():  # weights far from the near-uniform initial policy
        for p in model.policy.parameters():
            p.normal_(0.0, 0.3)
    snap = PolicySnapshot(export_policy(model), deterministic=True)
    rng = np.random.default_rng(0)
    n = 0
    for seed in range(6):
        game = Game.new(seed=seed)
        while not game.is_over:
            view = game.view(game.current)
            obs, mask = encode_with_mask(view)
            legal = mask.astype(bool)
            expected, _ = model.predict(obs, action_masks=legal, deterministic=True)
            assert snap.act(view) == int(expected)
            with torch.no_grad():
                dist = model.policy.get_distribution(torch.as_tensor(obs[None]), legal[None])
            want = dist.distribution.logits[0].numpy()[legal]
            z = snap.logits(obs)[legal]
            got = z - z.max() - np.log(np.exp(z - z.max()).sum())
            np.testing.assert_allclose(got, want, atol=1e-4)
            legal = view.legal_actions()
            game.apply(legal[rng.integers(len(legal))])
            n += 1
    assert n > 100


def test_escalate_logit_numpy_runtime_and_torch_twin_agree():
    import torch

    from widderkopf_env.agents.numpy_net import add_escalate_logit
    from widderkopf_env.cards import ESCALATE, NUM_ACTIONS, NUM_CARDS
    from widderkopf_env.train.torch_policy import with_escalate_logit

    rng = np.random.default_rng(1)
    z = rng.normal(0.0, 3.0, (64, NUM_ACTIONS)).astype(np.float32)
    legal = rng.random((64, NUM_CARDS)) < 0.3
    legal[:4] = False  # answering a crack: no card legal, the raw logit stays
    want = with_escalate_logit(torch.as_tensor(z), torch.as_tensor(legal)).numpy()
    got = add_escalate_logit(z.copy(), legal)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(got[:4], z[:4])
    cards = np.where(legal[4:], z[4:, :NUM_CARDS], -np.inf)
    p = np.exp(got[4:, ESCALATE]) / (np.exp(got[4:, ESCALATE]) + np.exp(cards).sum(axis=1))
    np.testing.assert_allclose(p, 1.0 / (1.0 + np.exp(-z[4:, ESCALATE])), rtol=1e-4)
    assert not np.array_equal(got[4:, ESCALATE], z[4:, ESCALATE])


def test_opponent_pool_draws_by_mix():
    pool = OpponentPool({"heuristic": 0.5, "random": 0.2})
    rng = np.random.default_rng(0)
    labels = [pool.draw(rng) for _ in range(2000)]
    assert SNAPSHOT not in labels  # an empty pool's share goes to the bots
    assert 0.65 < labels.count("heuristic") / 2000 < 0.78
    weights = {"layers": [(np.zeros((42, OBS_SIZE), np.float32), np.zeros(42, np.float32))],
               "activation": "ReLU"}
    for _ in range(3):
        pool.add_snapshot(weights, max_size=2)
    assert len(pool.snapshots) == 2
    labels = [pool.draw(rng) for _ in range(2000)]
    assert 0.25 < labels.count(SNAPSHOT) / 2000 < 0.35
    game = Game.new(seed=1)
    for seed in range(20):
        pool.draw(np.random.default_rng(seed))
        pool.reset(seed)
        view = game.view(game.current)
        assert pool.act(view) in view.legal_actions()


def test_the_batched_pool_draws_as_the_single_pool():
    """One pool: the vector env's batched pool keeps its mix and snapshots and draws
    from a generator exactly as the single env's pool; each sub-env's episodes meet the
    mix's shares."""
    from widderkopf_env.train.batched_vec_env import BatchedPool

    weights = {"layers": [(np.zeros((42, OBS_SIZE), np.float32), np.zeros(42, np.float32))],
               "activation": "ReLU"}
    single, batched = OpponentPool({"heuristic": 0.4, "random": 0.3}), BatchedPool(
        {"heuristic": 0.4, "random": 0.3}, 3)
    for pool in (single, batched):
        pool.add_snapshot(weights, max_size=2)
        pool.set_mix({"heuristic": 0.3, "random": 0.2})
    assert len(batched.snapshots) == len(single.snapshots) == 1
    a, b = np.random.default_rng(5), np.random.default_rng(5)
    drawn = [single.draw(a) for _ in range(60)]
    assert drawn == [batched.pick(b)[0] for _ in range(60)]
    assert {"heuristic", "random", SNAPSHOT} <= set(drawn)
    rng, ended = np.random.default_rng(6), []
    for _ in range(1500):
        batched.reset([1], rng)
        ended.append(batched.label_of(1))
    assert 0.45 < ended.count(SNAPSHOT) / 1500 < 0.55  # 1 - 0.3 - 0.2
    assert 0.25 < ended.count("heuristic") / 1500 < 0.35
    with pytest.raises(ValueError, match="sum to at most 1"):
        batched.set_mix({"heuristic": 0.9, "random": 0.2})


def test_crack_curriculum_masks_escalation():
    import gymnasium

    from widderkopf_env.train.opponents import TrainingWrapper

    pool = OpponentPool({"heuristic": 1.0})
    env = TrainingWrapper(gymnasium.make("Widderkopf-v0", opponent=pool), pool, seed=0)
    seen = {True: 0, False: 0}
    for allowed in (True, False):
        env.set_escalation(allowed)
        for episode in range(30):
            env.reset(seed=episode)
            done = False
            while not done:
                mask = env.action_masks()
                assert mask.any()
                seen[allowed] += int(mask[40])
                legal = np.flatnonzero(mask)
                _, _, done, _, info = env.step(int(legal[-1]))  # escalate whenever allowed
            assert info["opponent"] == "heuristic" and info["game_points"] != 0
    assert seen[True] > 0 and seen[False] == 0


def test_init_warm_starts_the_actor_from_a_policy_file(tmp_path):
    """--init net: the run's actor starts as the shipped network (with a learning rate of
    1e-12 it stays there), in its hidden layers when --net-arch is not given,
    --crack-after defaults to 0, and the critic is left alone."""
    from sb3_contrib import MaskablePPO

    from widderkopf_env.agents.network_file import load_policy
    from widderkopf_env.agents.shipped import NET_FILE

    out = tmp_path / "warm"
    train_from_args(["--total-steps", "256", "--n-envs", "2", "--out", str(out), "--init", "net",
                     "--lr", "1e-12", "--lr-schedule", "constant",
                     *_without(TINY, "--net-arch", "--crack-after", "--snapshot-every",
                               "--self-play")])
    config = json.loads((out / "config.json").read_text())
    assert config["init"] == str(NET_FILE.resolve()) and config["crack_after"] == 0
    assert config["net_arch"] == [512, 512]  # the file's network: no --net-arch given
    model = MaskablePPO.load(out / "final_model.zip", device="cpu")
    got, want = export_policy(model)["layers"], load_policy(NET_FILE)["layers"]
    for (w, b), (w0, b0) in zip(got, want, strict=True):
        np.testing.assert_allclose(w, w0, atol=1e-6)
        np.testing.assert_allclose(b, b0, atol=1e-6)


def _without(args: list[str], *flags: str) -> list[str]:
    """``args`` less the given flags and (except for a trailing flag) their values."""
    out, skip = [], False
    for a in args:
        if skip:
            skip = False
        elif a in flags:
            skip = a != "--self-play"
        else:
            out.append(a)
    return out


@pytest.mark.parametrize("init, extra, message", [
    ("net", ["--net-arch", "32,32"], "hidden layers [512, 512]"),
    ("nowhere.npz", [], "neither a shipped network ('ppo', 'ppo-v1', 'net', 'net-v2', 'net-v1') nor an existing"),
])
def test_init_refuses_what_does_not_fit(tmp_path, capsys, init, extra, message):
    with pytest.raises(SystemExit) as exc:
        train_from_args(["--out", str(tmp_path / "run"), "--init", init, *extra])
    assert exc.value.code == 2 and message in capsys.readouterr().err
    assert not (tmp_path / "run").exists()  # refused before anything was written
