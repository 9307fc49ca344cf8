"""The curves the training commands draw into their run folders, in one place.

- :func:`plot_learning_curve`: ``widderkopf-train``'s learning_curve.png (game points per
  hand against steps, one line per evaluation opponent);
- :func:`plot_exploitability`: its exploitability.png (``--exploitability-every``: the
  exact exploitability against steps);
- :func:`plot_exploitability_by_cpu`: the baselines' figure (the exact exploitability of
  several algorithms against CPU seconds, docs/baselines.md) and
  :func:`plot_strength_by_minutes` (strength against wall-clock minutes, several runs);
- :func:`plot_best_response`: ``widderkopf-exploit``'s learning_curve.png (the best
  response's edge against steps, and the final edge);
- :func:`plot_recipe_curve`: a recipe's curve.png (strength against wall-clock minutes).

Each figure's x axis ends with the run (2% beyond its last point), not beyond; each is
written atomically (:func:`~.run_folder.save_png`). Matplotlib draws without a display.
"""

from __future__ import annotations

from pathlib import Path

from . import run_folder
from .evaluation import EVAL_OPPONENTS

__all__ = ["plot_best_response", "plot_exploitability", "plot_exploitability_by_cpu",
           "plot_learning_curve", "plot_recipe_curve", "plot_strength_by_minutes"]


def _axes(size=(8, 4.8)):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt.subplots(figsize=size, dpi=100)


def _save(fig, ax, path, xlabel: str, ylabel: str, title: str) -> None:
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(alpha=0.3)
    ax.legend(loc="best")
    fig.tight_layout()
    run_folder.save_png(fig, Path(path))


def plot_learning_curve(history: list[dict], path, title: str = "PPO learning curve",
                        crack_after: int = 0) -> None:
    """Game points per hand (95% CI bands) against training steps, one line per opponent;
    a dashed line where the learner was first allowed to escalate (``crack_after``, when
    the run got there). The x axis runs from 0 to the last evaluation's step, the run's
    end."""
    fig, ax = _axes()
    for opp, colour in zip(EVAL_OPPONENTS, ("tab:red", "tab:blue"), strict=True):
        rows = [(e["steps"], e[opp]) for e in history if opp in e]
        if not rows:
            continue
        x = [s for s, _ in rows]
        ax.plot(x, [r["mean"] for _, r in rows], marker="o", ms=3, color=colour,
                label=f"vs {opp}")
        ax.fill_between(x, [r["ci95"][0] for _, r in rows], [r["ci95"][1] for _, r in rows],
                        color=colour, alpha=0.2, lw=0)
    ax.axhline(0.0, color="black", lw=0.8)
    last = max((e["steps"] for e in history), default=0)
    if 0 < crack_after <= last and history[0]["steps"] <= crack_after:
        ax.axvline(crack_after, color="grey", ls="--", lw=0.8, label="learner may crack")
    if last > 0:
        ax.set_xlim(0, last * 1.02)  # the run, not a line drawn beyond its end
    _save(fig, ax, path, "training steps (learner decisions)",
          "game points per hand (duplicate deals)", title)


def plot_exploitability(rows: list[dict], path, title: str) -> None:
    """Both exact exploitabilities (the softmax policy's and the greedy one's) against
    the steps (rows of :mod:`.exploitability_curve`'s CSV)."""
    fig, ax = _axes()
    x = [r["steps"] for r in rows]
    ax.plot(x, [r["mixed"] for r in rows], marker="o", ms=3, label="softmax (mixed)")
    ax.plot(x, [r["greedy"] for r in rows], marker="o", ms=3, label="greedy (arena play)")
    ax.set_yscale("symlog", linthresh=0.01)  # from 10+ down to 0.01, and 0 itself
    _save(fig, ax, path, "training steps (learner decisions)",
          "exact exploitability (game points per hand)", title)


def plot_exploitability_by_cpu(curves: dict[str, list[list[dict]]], path, title: str) -> None:
    """The softmax (mixed) exact exploitability against CPU seconds, one colour per
    algorithm and one line per seed (``curves``: name -> runs, each its rows with
    ``cpu_seconds`` and ``mixed``; a solver's rows may give ``exploitability``). The
    colours are matplotlib's cycle (``C0``..``C9``); past ten algorithms the line style
    changes too, so every algorithm stays apart."""
    fig, ax = _axes((8, 5))
    styles = ("-", "--", ":", "-.")
    right = 0.0
    for i, (name, runs) in enumerate(curves.items()):
        colour, style = f"C{i % 10}", styles[i // 10 % len(styles)]
        for k, rows in enumerate(runs):
            x = [r["cpu_seconds"] for r in rows]
            y = [r.get("mixed", r.get("exploitability")) for r in rows]
            ax.plot(x, y, marker="o", ms=3, color=colour, ls=style, alpha=0.85,
                    label=f"{name} ({len(runs)} run{'s' * (len(runs) > 1)})" if k == 0
                    else None)
            right = max(right, *x)
    ax.set_yscale("symlog", linthresh=0.01)
    ax.set_xlim(0, right * 1.02 or 1.0)
    _save(fig, ax, path, "CPU seconds (training or solving; the exploitability computations "
          "left out)", "exact exploitability (game points per hand)", title)


def plot_strength_by_minutes(runs: dict[str, list[dict]], path, opponent: str,
                             title: str) -> None:
    """Game points per hand against ``opponent`` (95% bands) by the run's wall-clock
    minutes, one line per run (``runs``: name -> its eval_history.json)."""
    fig, ax = _axes()
    right = 0.0
    for name, history in runs.items():
        rows = [e for e in history if opponent in e]
        x = [e["seconds"] / 60 for e in rows]
        ax.plot(x, [e[opponent]["mean"] for e in rows], marker="o", ms=3, label=name)
        ax.fill_between(x, [e[opponent]["ci95"][0] for e in rows],
                        [e[opponent]["ci95"][1] for e in rows], alpha=0.2, lw=0)
        right = max(right, *x, 0.0)
    ax.axhline(0.0, color="black", lw=0.8)
    ax.set_xlim(0, right * 1.02 or 1.0)
    _save(fig, ax, path, "wall-clock minutes of the run",
          f"game points per hand against {opponent}", title)


def plot_best_response(result: dict, path) -> None:
    """``widderkopf-exploit``'s learning curve (edge per hand with 95% bands) and the
    final edge (``result``: :func:`.exploit.exploit`'s)."""
    curve = result["curve"]
    x = [c["steps"] for c in curve]
    fig, ax = _axes((7, 4.2))
    ax.plot(x, [c["mean"] for c in curve], marker="o", ms=3, color="tab:red",
            label=f"learning curve ({result['settings']['curve_pairs']} pairs each)")
    ax.fill_between(x, [c["ci95"][0] for c in curve], [c["ci95"][1] for c in curve],
                    color="tab:red", alpha=0.2, lw=0)
    e = result["edge"]
    ax.errorbar([result["steps"]], [e["mean"]], yerr=[[e["mean"] - e["ci95"][0]],
                [e["ci95"][1] - e["mean"]]], fmt="s", color="black", capsize=4,
                label=f"final edge ({e['pairs']} fresh pairs)")
    ax.axhline(0.0, color="black", lw=0.8)
    ax.set_xlim(0, max([result["steps"], *x]) * 1.02)  # the run's steps, no further
    _save(fig, ax, path, "training steps (learner decisions)",
          "best response's game points per hand",
          f"Best response to {result['agent']} (seed {result['seed']})")


def plot_recipe_curve(curve: list[dict], path, title: str, opponents) -> None:
    """Game points per hand (95% CI bars) against wall-clock minutes, one line per
    opponent (a recipe's ``curve``, whose points hold each of ``opponents``)."""
    fig, ax = _axes()
    x = [p["minutes"] for p in curve]
    for opp, colour in zip(opponents, ("tab:red", "tab:purple"), strict=True):
        y = [p[opp]["mean"] for p in curve]
        err = [[p[opp]["mean"] - p[opp]["ci95"][0] for p in curve],
               [p[opp]["ci95"][1] - p[opp]["mean"] for p in curve]]
        ax.errorbar(x, y, yerr=err, marker="o", ms=4, capsize=3, color=colour,
                    label=f"vs {opp}")
    ax.axhline(0.0, color="black", lw=0.8)
    ax.set_xlim(0, max(x, default=0) * 1.02 or 1.0)  # the run's minutes, no further
    _save(fig, ax, path, "wall-clock minutes", "game points per hand (duplicate deals)",
          f"recipe {title}: strength against time")
