"""Evaluation during and after training: arena duplicate deals and the learning curve.

The learner is evaluated as a deterministic :class:`~.snapshot.PolicySnapshot` (the
argmax of the masked policy, exactly what the saved model plays with
``deterministic=True``) in :func:`widderkopf_env.agents.arena.run_duplicate`, so the
arena's workers need no torch. Each evaluation entry is plain JSON data::

    {"steps": 200000, "seconds": 312.5,
     "heuristic": {"mean": 0.12, "ci95": [0.02, 0.22], "win_rate": 0.53,
                   "crack_rate": 0.3, ...},
     "random": {...}}
"""

from __future__ import annotations

from widderkopf_env.agents.arena import run_duplicate

from .export import PolicySnapshot
from .run_folder import save_png

#: The opponents of every evaluation, in plotting order.
EVAL_OPPONENTS = ("heuristic", "random")
_KEEP = ("pairs", "mean", "ci95", "sd_pair", "win_rate", "card_points", "seconds")


def evaluate(weights: dict, pairs: int, seed: int, workers: int | None = None,
             opponents=EVAL_OPPONENTS, name: str = "ppo", variant=None) -> dict:
    """Duplicate-deal results of the policy ``weights`` against each opponent:
    ``{opponent: {"mean", "ci95", "win_rate", "card_points", "pairs", ...}}``, on the deals
    of ``variant`` (a name in ``widderkopf_env.VARIANTS``; None: the full game)."""
    agent = PolicySnapshot(weights, deterministic=True, name=name)
    out = {}
    for opp in opponents:
        res = run_duplicate(agent, opp, pairs, seed=seed, workers=workers, progress=False,
                            variant=variant)
        d = res.to_dict()
        out[opp] = {k: d[k] for k in _KEEP}
        out[opp]["crack_rate"] = d["cracks"]["by_a"]["hands"] / d["hands"]  # hands A cracked
    return out


#: What :func:`describe`'s numbers are, said once in a run's log before its first
#: evaluation line.
LEGEND = ("eval: the learner's game points per hand against each opponent over duplicate "
          "deal pairs (the same deals played from both seats), with its 95% confidence "
          "interval; cracks: the share of hands in which the learner cracked (escalated, "
          "doubling the hand's value: rules R11)")


def describe(results: dict) -> str:
    """One line: ``vs heuristic +0.123 95% CI [+0.020, +0.220], cracks 31% | vs random
    ...`` (:data:`LEGEND` says what the numbers are)."""
    parts = []
    for opp, r in results.items():
        lo, hi = r["ci95"]
        parts.append(f"vs {opp} {r['mean']:+.3f} 95% CI [{lo:+.3f}, {hi:+.3f}], "
                     f"cracks {100 * r['crack_rate']:.0f}%")
    return " | ".join(parts)


def plot_learning_curve(history: list[dict], path, title: str = "PPO learning curve",
                        crack_after: int = 0) -> None:
    """Game points per hand (95% CI bands) against training steps, one line per opponent;
    a dashed line where the learner was first allowed to escalate (``crack_after``, when
    the run got there). The x axis runs from 0 to the last evaluation's step, the run's
    end."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 4.8), dpi=100)
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
    ax.set_xlabel("training steps (learner decisions)")
    ax.set_ylabel("game points per hand (duplicate deals)")
    ax.set_title(title)
    ax.grid(alpha=0.3)
    ax.legend(loc="best")
    fig.tight_layout()
    save_png(fig, path)
