"""What a training run tells its user: evaluation lines that label their intervals as 95%
intervals and say once what "cracks" means, the list of the files the run wrote at the
end, and learning curves whose x axis is the run's (a 204,800-step run does not run to
500,000): each of the three curve plotters."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("sb3_contrib")
pytest.importorskip("matplotlib")

from widderkopf_env.train import evaluation, plots, run_folder  # noqa: E402
from widderkopf_env.train.callbacks import TrainingRun  # noqa: E402
from widderkopf_env.train.config import TrainConfig  # noqa: E402
from widderkopf_env.train.ppo import parse_config, train  # noqa: E402
from widderkopf_env.train.recipes import run as recipe_run  # noqa: E402

RESULT = {"mean": 0.25, "ci95": [0.1, 0.4], "crack_rate": 0.3}


def test_an_evaluation_line_says_its_intervals_are_95_percent():
    line = evaluation.describe({"heuristic": RESULT, "random": RESULT})
    assert line == ("vs heuristic +0.250 95% CI [+0.100, +0.400], cracks 30% | "
                    "vs random +0.250 95% CI [+0.100, +0.400], cracks 30%")
    assert "95% confidence interval" in evaluation.LEGEND
    assert "cracks: the share of hands in which the learner cracked" in evaluation.LEGEND


def test_what_cracks_means_is_said_once_before_the_first_evaluation(tmp_path):
    lines = []
    cfg = TrainConfig(eval_every=64, checkpoint_every=0)
    run = TrainingRun(cfg, tmp_path, vec_env=None, log=lines.append)
    run.log_evaluation(64, 2, {"heuristic": RESULT})
    run.log_evaluation(128, 2, {"heuristic": RESULT}, "  (new best)")
    assert lines == [evaluation.LEGEND,
                     "[64] eval (2 pairs): vs heuristic +0.250 95% CI [+0.100, +0.400], "
                     "cracks 30%",
                     "[128] eval (2 pairs): vs heuristic +0.250 95% CI [+0.100, +0.400], "
                     "cracks 30%  (new best)"]


def captured(monkeypatch, module) -> list:
    """The figures ``module`` saves, kept as they are saved."""
    figures, real = [], module.save_png

    def save(fig, path):
        figures.append(fig)
        real(fig, path)

    monkeypatch.setattr(module, "save_png", save)
    return figures


def test_a_run_lists_its_files_last_and_its_curve_ends_with_it(tmp_path, monkeypatch, capsys):
    figures = captured(monkeypatch, run_folder)
    out = tmp_path / "run"
    summary = train(parse_config([
        "--out", str(out), "--total-steps", "128", "--net-arch", "8", "--n-envs", "1",
        "--n-steps", "64", "--batch-size", "64", "--epochs", "1", "--eval-every", "64",
        "--eval-pairs", "2", "--workers", "1", "--final-eval-pairs", "2",
        "--checkpoint-every", "0", "--crack-after", "500000", "--no-progress"]))
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines.count(evaluation.LEGEND) == 1
    evals = [k for k, line in enumerate(lines) if "] eval (2 pairs): " in line]
    assert len(evals) == 2 and lines.index(evaluation.LEGEND) == evals[0] - 1
    assert all("95% CI [" in lines[k] for k in evals)
    last = lines[-1]
    assert last.startswith(f"files written in {out}: ")
    listed = last.split(": ", 1)[1].split(", ")
    assert {"config.json", "summary.json", "final_model.zip", "final_policy.npz",
            "learning_curve.png", "eval_history.json", "checkpoints/"} <= set(listed)
    assert all((out / name.rstrip("/")).exists() for name in listed)
    [fig] = figures
    assert fig.axes[0].get_xlim() == pytest.approx((0, summary["steps"] * 1.02))


def test_the_learning_curve_ends_with_the_run_not_at_crack_after(monkeypatch, tmp_path):
    figures = captured(monkeypatch, run_folder)
    history = [{"steps": s, "heuristic": RESULT, "random": RESULT}
               for s in (51_200, 102_400, 153_600, 204_800)]
    plots.plot_learning_curve(history, tmp_path / "curve.png", crack_after=500_000)
    plots.plot_learning_curve(history, tmp_path / "curve.png", crack_after=100_000)
    for fig in figures:
        assert fig.axes[0].get_xlim() == pytest.approx((0, 204_800 * 1.02))
    labels = [[t.get_text() for t in fig.axes[0].get_legend().get_texts()] for fig in figures]
    assert "learner may crack" not in labels[0] and "learner may crack" in labels[1]


def test_the_recipe_curve_ends_with_the_run(monkeypatch, tmp_path):
    figures = captured(monkeypatch, run_folder)
    curve = [{"minutes": m, "heuristic": RESULT, "net": RESULT} for m in (2.5, 6.0, 12.5)]
    plots.plot_recipe_curve(curve, tmp_path / "curve.png", "net", recipe_run.OPPONENTS)
    [fig] = figures
    assert fig.axes[0].get_xlim() == pytest.approx((0, 12.5 * 1.02))


def test_the_best_response_curve_ends_with_the_run(monkeypatch, tmp_path):
    figures = captured(monkeypatch, run_folder)
    result = {"curve": [{"steps": s, **RESULT} for s in (51_200, 102_400, 204_800)],
              "steps": 204_800, "edge": {**RESULT, "pairs": 100}, "agent": "heuristic",
              "seed": 0, "settings": {"curve_pairs": 20}}
    plots.plot_best_response(result, tmp_path / "curve.png")
    [fig] = figures
    assert fig.axes[0].get_xlim() == pytest.approx((0, 204_800 * 1.02))


def test_the_baselines_figure_draws_a_line_per_seed_and_ends_with_the_longest(
        monkeypatch, tmp_path):
    figures = captured(monkeypatch, run_folder)
    run = [{"steps": 0, "cpu_seconds": 0.0, "mixed": 11.4, "greedy": 20.0},
           {"steps": 8192, "cpu_seconds": 30.0, "mixed": 0.5, "greedy": 0.0}]
    solver = [{"iterations": 1.0, "cpu_seconds": 3.0, "exploitability": 11.4},
              {"iterations": 20.0, "cpu_seconds": 50.0, "exploitability": 0.1}]
    plots.plot_exploitability_by_cpu({"PPO": [run, run[:1]], "CFR+": [solver]},
                                     tmp_path / "figure.png", "tiny")
    [fig] = figures
    ax = fig.axes[0]
    assert [list(line.get_ydata()) for line in ax.get_lines()] == [[11.4, 0.5], [11.4],
                                                                    [11.4, 0.1]]
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["PPO (2 runs)",
                                                                   "CFR+ (1 run)"]
    assert ax.get_xlim() == pytest.approx((0, 50.0 * 1.02))


def test_the_baselines_figure_keeps_every_algorithm_apart_past_the_colour_cycle(
        monkeypatch, tmp_path):
    figures = captured(monkeypatch, run_folder)
    run = [{"steps": 0, "cpu_seconds": 1.0, "mixed": 2.0}]
    plots.plot_exploitability_by_cpu({f"algo {i}": [run] for i in range(12)},
                                     tmp_path / "figure.png", "tiny")
    [fig] = figures
    lines = fig.axes[0].get_lines()
    assert len(lines) == 12
    assert len({(line.get_color(), line.get_linestyle()) for line in lines}) == 12


def test_the_strength_figure_draws_each_run_by_its_minutes(monkeypatch, tmp_path):
    figures = captured(monkeypatch, run_folder)
    history = [{"steps": s, "seconds": 60.0 * m, "heuristic": RESULT, "random": RESULT}
               for s, m in ((1_000_000, 6.0), (2_000_000, 12.5))]
    plots.plot_strength_by_minutes({"a": history, "b": history[:1]}, tmp_path / "f.png",
                                   "heuristic", "full")
    [fig] = figures
    ax = fig.axes[0]
    assert [list(line.get_xdata()) for line in ax.get_lines()[:2]] == [[6.0, 12.5], [6.0]]
    assert ax.get_xlim() == pytest.approx((0, 12.5 * 1.02))


def test_a_recipe_run_labels_its_intervals_and_lists_its_files(tmp_path, monkeypatch, capsys):
    from widderkopf_env.train import train_cli
    from widderkopf_env.train.recipes import cli as recipe_cli

    out = tmp_path / "run"

    def run(recipe, folder, *args, **kwargs):  # a finished run's files and summary
        folder.mkdir()
        for name in ("recipe.json", "summary.json", "agent.npz"):
            (folder / name).write_text("{}")
        return {"curve": [], "stage_seconds": {}, "wall_seconds": 0.0, "agent": "agent.npz",
                "final_pairs": 100, "final": {"heuristic": RESULT},
                "ladder": {"rating": 1234.4, "ci95": [1200.0, 1270.0]}}

    monkeypatch.setattr(recipe_cli, "run_recipe", run)
    assert train_cli.main(["--recipe", "demo", "--out", str(out)]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert "agent.npz over 100 duplicate pairs (game points per hand, 95% CI): " \
           "vs heuristic +0.250 [+0.100, +0.400]" in lines
    assert "Ladder rating 1234, 95% CI [1200, 1270] (random = 0)." in lines
    assert lines[-1] == f"files written in {out}: agent.npz, recipe.json, summary.json"


def test_the_curves_have_one_home_and_the_shards_another():
    """Every figure of train/ is drawn in plots.py (run_folder.py only writes PNGs), and
    shard files are named, written and read in shards.py alone."""
    train = Path(run_folder.__file__).parent
    sources = {p.relative_to(train).as_posix(): p.read_text() for p in train.rglob("*.py")}
    drawing = sorted(n for n, text in sources.items() if "matplotlib" in text)
    assert drawing == ["plots.py", "run_folder.py"], drawing
    assert "subplots" not in sources["run_folder.py"]
    naming = sorted(n for n, text in sources.items()
                    if "shard_{" in text or "savez_compressed" in text or "def _header" in text)
    assert naming == ["shards.py"], naming
