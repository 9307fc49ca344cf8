"""A short first run (src/widderkopf_env/train/ppo.py): evaluation in proportion to the run, the same model
never evaluated twice, a summary whose times add up, a progress bar that ends at its
total, and evaluations that say they let the learner crack."""

from __future__ import annotations

import time

import pytest

pytest.importorskip("sb3_contrib")

from widderkopf_env.train import evaluation  # noqa: E402
from widderkopf_env.train.config import build_parser  # noqa: E402
from widderkopf_env.train.ppo import parse_config, train  # noqa: E402

TINY = ["--net-arch", "8", "--n-envs", "1", "--n-steps", "64", "--batch-size", "64",
        "--epochs", "1", "--eval-every", "0", "--eval-pairs", "2", "--workers", "1",
        "--final-eval-pairs", "2", "--checkpoint-every", "0", "--crack-after", "0",
        "--no-progress", "--quiet"]


@pytest.mark.parametrize("steps, final_pairs, eval_pairs", [
    (20_000, 100, 100), (200_000, 200, 200), (1_000_000, 1000, 300), (5_000_000, 2000, 300),
])
def test_evaluation_pairs_scale_with_the_run(steps, final_pairs, eval_pairs):
    cfg = parse_config(["--total-steps", str(steps), "--out", "/nonexistent/run"])
    assert (cfg.final_eval_pairs, cfg.eval_pairs) == (final_pairs, eval_pairs)
    given = parse_config(["--total-steps", str(steps), "--out", "/nonexistent/run",
                          "--final-eval-pairs", "7", "--eval-pairs", "9"])
    assert (given.final_eval_pairs, given.eval_pairs) == (7, 9)


def test_the_final_model_that_is_the_best_is_evaluated_once_and_timed(tmp_path, monkeypatch):
    calls = []
    real = evaluation.evaluate

    def slow(weights, pairs, seed, *args, **kwargs):
        calls.append(pairs)
        time.sleep(1.0)
        return real(weights, pairs, seed, *args, **kwargs)

    monkeypatch.setattr(evaluation, "evaluate", slow)
    cfg = parse_config(["--out", str(tmp_path / "run"), "--total-steps", "128", *TINY,
                        "--final-eval-pairs", "3"])
    t = time.perf_counter()
    summary = train(cfg)
    elapsed = time.perf_counter() - t
    assert calls.count(3) == 1  # the final evaluation (3 pairs), once
    assert summary["best_is_final"] and summary["best"] == summary["final"]
    assert summary["best_steps"] == summary["steps"] == 128
    # wall time: the whole session, final evaluation included, phase by phase (bounds
    # that hold however loaded the machine is: each figure is rounded to 0.1 s)
    phases = summary["phases"]
    assert phases["final_evaluation"] >= 1.0  # the evaluation's sleep
    assert set(phases) >= {"setup", "learn", "last_evaluation_and_saves", "final_evaluation"}
    assert sum(phases.values()) - 0.3 <= summary["wall_seconds"] <= elapsed + 0.1


def test_the_progress_bar_ends_at_its_total(tmp_path, monkeypatch):
    from stable_baselines3.common.callbacks import ProgressBarCallback

    seen = []
    real = ProgressBarCallback._on_training_end

    def record(self):
        seen.append((self.pbar.n, self.pbar.total))
        real(self)

    monkeypatch.setattr(ProgressBarCallback, "_on_training_end", record)
    args = [a for a in TINY if a not in ("--no-progress", "--quiet")]  # --quiet hides it too
    summary = train(parse_config(["--out", str(tmp_path / "run"), "--total-steps", "100",
                                  *args]))
    assert summary["steps"] == 128  # whole rollouts of 64
    assert seen == [(128, 128)]


def test_help_and_summary_say_that_evaluations_let_the_learner_crack(tmp_path):
    text = " ".join(build_parser().format_help().split())
    assert "evaluations play the policy unrestricted" in text
    args = [a for a in TINY]
    args[args.index("--crack-after") + 1] = "500000"
    summary = train(parse_config(["--out", str(tmp_path / "run"), "--total-steps", "64",
                                  *args]))
    assert summary["crack_after"] == 500_000 and summary["steps"] < summary["crack_after"]
