"""``--self-play-symmetric`` (:mod:`widderkopf_env.train.selfplay`): one policy on both
seats. The env says who moved at each step; the advantages are computed per seat (each
seat's own chain of moves, the other seat's rewards counted against it, zero-sum); the
settings refuse what makes no sense; a short run on ``tiny`` lowers the exact
exploitability, and so does a short MMD run."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from widderkopf_env.train.ppo import parse_config, train_from_args  # noqa: E402
from widderkopf_env.train.selfplay import SymmetricSelfPlayVecEnv, seat_advantages  # noqa: E402


def reference_advantages(rewards, values, movers, starts, dones, last, to_act, gamma, lam):
    """Each seat's chain of moves, one game at a time, written out plainly."""
    steps, n = rewards.shape
    out = np.zeros((steps, n))
    for i in range(n):
        ends = [t for t in range(steps) if (starts[t + 1, i] if t + 1 < steps else dones[i])]
        for seat in (0, 1):
            moves = [t for t in range(steps) if movers[t, i] == seat]
            nxt_adv = 0.0
            for k in reversed(range(len(moves))):
                t = moves[k]
                end = next((e for e in ends if e >= t), None)
                stop = moves[k + 1] if k + 1 < len(moves) else steps
                if end is not None and end < stop:  # the hand ends before the seat moves again
                    stop, bootstrap, nxt_adv = end + 1, 0.0, 0.0
                elif k + 1 < len(moves):
                    bootstrap = values[moves[k + 1], i]
                else:  # the rollout ends in the middle of the hand
                    bootstrap = last[i] if to_act[i] == seat else -last[i]
                    nxt_adv = 0.0
                earned = sum(rewards[s, i] * (1 if movers[s, i] == seat else -1)
                             for s in range(t, stop))
                adv = earned + gamma * bootstrap - values[t, i] + gamma * lam * nxt_adv
                out[t, i] = nxt_adv = adv
    return out


@pytest.mark.parametrize("seed", range(4))
def test_the_advantages_follow_each_seats_own_moves(seed):
    rng = np.random.default_rng(seed)
    steps, n = 40, 5
    movers = rng.integers(0, 2, (steps, n))
    starts = (rng.random((steps, n)) < 0.15).astype(np.float32)
    starts[0] = 1
    rewards = (rng.normal(size=(steps, n)) * (rng.random((steps, n)) < 0.3)).astype(np.float32)
    values = rng.normal(size=(steps, n)).astype(np.float32)
    dones, last, to_act = rng.random(n) < 0.4, rng.normal(size=n), rng.integers(0, 2, n)
    for gamma, lam in ((1.0, 0.95), (0.9, 1.0), (1.0, 0.0)):
        got = seat_advantages(rewards, values, movers, starts, dones, last, to_act, gamma, lam)
        want = reference_advantages(rewards, values, movers, starts, dones, last, to_act,
                                    gamma, lam)
        assert np.allclose(got, want, atol=1e-5)


def test_with_lambda_one_a_seats_advantage_is_its_own_game_points_less_its_value():
    # one hand: seat 0, seat 1, seat 0 move; seat 1's last move loses seat 1 two points
    rewards = np.array([[0.0], [0.0], [5.0]], np.float32)  # seat 0's last move wins 5
    movers = np.array([[0], [1], [0]])
    starts = np.array([[1.0], [0.0], [0.0]], np.float32)
    values = np.array([[1.0], [-2.0], [3.0]], np.float32)
    adv = seat_advantages(rewards, values, movers, starts, np.array([True]), np.zeros(1),
                          np.zeros(1, np.int64), 1.0, 1.0)
    assert adv[:, 0].tolist() == [5 - 1, -5 + 2, 5 - 3]


def test_the_env_says_who_moved_and_who_acts_next():
    cfg = parse_config(["--variant", "tiny", "--self-play-symmetric", "--n-envs", "8"])
    env = SymmetricSelfPlayVecEnv(cfg, seed=4)
    env.reset()
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(60):
        acting = env.to_act.copy()
        mask = env.action_masks()
        _, _, dones, infos = env.step((rng.random(mask.shape) * mask).argmax(1))
        assert np.array_equal(env.movers, acting)
        for i in np.flatnonzero(dones):
            assert infos[i]["player"] == acting[i] and infos[i]["opponent"] == "self"
            ended += 1
    assert ended > 0


@pytest.mark.parametrize("argv, message", [
    (["--self-play"], "exclude each other"),
    (["--warmup-random", "100"], "--warmup-random"),
    (["--variant", "medium", "--exploitability-every", "10"], "tiny, small"),
])
def test_settings_that_make_no_sense_together_are_refused(argv, message, capsys):
    with pytest.raises(SystemExit) as exc:
        parse_config(["--self-play-symmetric", *argv])
    assert exc.value.code == 2
    assert message in capsys.readouterr().err


def test_the_study_settings_are_its_defaults_unless_given():
    cfg = parse_config(["--self-play-symmetric", "--ent-coef", "0.2"])
    assert (cfg.ent_coef, cfg.clip_range, cfg.crack_after) == (0.2, 0.05, 0)
    plain = parse_config([])
    assert (plain.ent_coef, plain.clip_range) == (0.01, 0.2)


@pytest.mark.parametrize("algo", ["ppo", "mmd"])
def test_a_short_run_on_tiny_lowers_the_exact_exploitability(algo, tmp_path):
    pytest.importorskip("pyspiel", reason="needs the [openspiel] extra")
    from widderkopf_env.train.exploitability_curve import CSV, read_rows

    out = tmp_path / algo
    train_from_args(["--variant", "tiny", "--self-play-symmetric", "--algo", algo,
                     "--total-steps", "24576", "--lr", "1e-3", "--net-arch", "64,64",
                     "--exploitability-every", "8192", "--eval-every", "0",
                     "--checkpoint-every", "0", "--final-eval-pairs", "10", "--workers", "1",
                     "--no-progress", "--quiet", "--out", str(out)])
    rows = read_rows(out / CSV)
    assert [r["steps"] for r in rows] == [0, 8192, 16384, 24576]
    assert rows[-1]["mixed"] < rows[0]["mixed"] - 1.0
    assert rows[-1]["greedy"] < rows[0]["greedy"]
    assert (out / "exploitability.png").is_file()


def test_an_mmd_self_play_run_resumes_with_its_magnet_and_its_curve(tmp_path):
    pytest.importorskip("pyspiel", reason="needs the [openspiel] extra")
    from widderkopf_env.train import checkpoints
    from widderkopf_env.train.exploitability_curve import CSV, read_rows
    from widderkopf_env.train.mmd import MMD

    out = tmp_path / "run"
    args = ["--variant", "tiny", "--self-play-symmetric", "--algo", "mmd", "--n-envs", "4",
            "--n-steps", "64", "--net-arch", "16", "--magnet-every", "2",
            "--exploitability-every", "256", "--eval-every", "0", "--checkpoint-every", "256",
            "--final-eval-pairs", "2", "--workers", "1", "--no-progress", "--quiet",
            "--out", str(out)]
    train_from_args([*args, "--total-steps", "768"])
    (out / "summary.json").unlink()
    for name in ("final_model.zip", "final_policy.npz"):
        (out / name).unlink()
    for stale in checkpoints.list_steps(out / "checkpoints")[1:]:  # as if killed at 256
        for f in checkpoints.paths(out / "checkpoints", stale):
            f.unlink()
    saved = MMD.load(checkpoints.paths(out / "checkpoints", 256)[0], device="cpu")
    train_from_args([*args, "--total-steps", "1024", "--resume"])
    assert [r["steps"] for r in read_rows(out / CSV)] == [0, 256, 512, 768, 1024]
    final = MMD.load(out / "final_model.zip", device="cpu")
    assert final.magnet_updates == (saved.magnet_updates + 3) % 2
