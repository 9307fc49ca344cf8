"""Evaluation during and after training: arena duplicate deals (the learning curve they
make: :func:`.plots.plot_learning_curve`).

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
