"""widderkopf-train --minutes: a run sized by its wall-clock budget (the training stops at
the first rollout that would start past it; --total-steps is then a cap)."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("sb3_contrib", reason="needs the [train] extra")

from widderkopf_env.checks import MAX_STEPS  # noqa: E402
from widderkopf_env.train import checkpoints  # noqa: E402
from widderkopf_env.train.callbacks import TrainingRun  # noqa: E402
from widderkopf_env.train.ppo import parse_config, train_from_args  # noqa: E402


def test_a_budget_leaves_the_steps_open_unless_they_are_given():
    assert parse_config(["--preset", "ppo-selfplay", "--minutes", "60"]).total_steps == MAX_STEPS
    cfg = parse_config(["--preset", "ppo-selfplay", "--minutes", "60", "--total-steps", "5000"])
    assert (cfg.total_steps, cfg.minutes) == (5000, 60)
    assert parse_config([]).minutes is None


@pytest.mark.parametrize("argv, message", [
    (["--minutes", "60"], "--lr-schedule linear decays over --total-steps"),
    (["--minutes", "0"], "--minutes"),
    (["--minutes", "-1"], "--minutes"),
])
def test_a_budget_that_cannot_be_kept_is_refused(argv, message, capsys):
    with pytest.raises(SystemExit) as exc:
        parse_config(argv)
    assert exc.value.code == 2
    assert message in capsys.readouterr().err


def test_the_budget_ends_training_at_a_rollout_boundary(tmp_path, monkeypatch):
    calls = []

    def spent(run):  # the budget is used up when the fourth rollout would start
        calls.append(run.wall_seconds())
        return len(calls) > 3

    monkeypatch.setattr(TrainingRun, "budget_spent", spent)
    out = tmp_path / "run"
    summary = train_from_args(["--variant", "tiny", "--self-play-symmetric", "--minutes", "5",
                               "--n-envs", "4", "--n-steps", "32", "--net-arch", "16",
                               "--eval-every", "0", "--checkpoint-every", "0",
                               "--final-eval-pairs", "2", "--workers", "1", "--no-progress",
                               "--quiet", "--out", str(out)])
    assert summary["steps"] == 3 * 4 * 32  # three whole rollouts, nothing of the fourth
    assert summary["stopped_by_budget"] and summary["minutes"] == 5
    assert checkpoints.list_steps(out / "checkpoints") == [3 * 4 * 32]
    assert json.loads((out / "config.json").read_text())["minutes"] == 5


def test_without_a_budget_the_steps_end_the_run(tmp_path):
    summary = train_from_args(["--variant", "tiny", "--self-play-symmetric", "--total-steps",
                               "256", "--n-envs", "4", "--n-steps", "32", "--net-arch", "16",
                               "--eval-every", "0", "--checkpoint-every", "0",
                               "--final-eval-pairs", "2", "--workers", "1", "--no-progress",
                               "--quiet", "--out", str(tmp_path / "run")])
    assert summary["steps"] == 256 and not summary["stopped_by_budget"]


def test_quiet_shows_no_progress_bar(tmp_path, monkeypatch):
    from stable_baselines3.common.callbacks import BaseCallback

    from widderkopf_env.train import callbacks

    bars = []

    class Bar(BaseCallback):
        def __init__(self, *args):
            super().__init__()
            bars.append(args)

        def _on_step(self):
            return True

    monkeypatch.setattr(callbacks, "ProgressBar", Bar)
    argv = ["--variant", "tiny", "--self-play-symmetric", "--total-steps", "128",
            "--n-envs", "4", "--n-steps", "32", "--net-arch", "16", "--eval-every", "0",
            "--checkpoint-every", "0", "--final-eval-pairs", "2", "--workers", "1"]
    train_from_args([*argv, "--quiet", "--out", str(tmp_path / "quiet")])
    assert bars == []
    train_from_args([*argv, "--out", str(tmp_path / "shown")])
    assert len(bars) == 1


def test_a_run_stopped_by_ctrl_c_still_times_its_envs(tmp_path, monkeypatch):
    from widderkopf_env.train.ppo import main

    calls = []

    def interrupted(run):  # Ctrl-C as the third rollout starts
        calls.append(1)
        if len(calls) == 3:
            raise KeyboardInterrupt
        return False

    monkeypatch.setattr(TrainingRun, "budget_spent", interrupted)
    out = tmp_path / "run"
    assert main(["--variant", "tiny", "--self-play-symmetric", "--total-steps", "4096",
                 "--n-envs", "4", "--n-steps", "32", "--net-arch", "16", "--eval-every", "0",
                 "--checkpoint-every", "128", "--final-eval-pairs", "2", "--workers", "1",
                 "--no-progress", "--quiet", "--out", str(out)]) == 130
    summary = json.loads((out / "summary.json").read_text())
    assert summary["final"] is None and summary["env_seconds"] is not None
    assert 0 < summary["env_share"] < 1  # env_seconds is rounded to 0.1 s: it may read 0.0
