"""A recipe sized in minutes: ``widderkopf-train --recipe net --minutes 60``.

    cal = calibrate(RECIPES["net"])                    # seconds, on this computer
    p = plan(RECIPES["net"], cal, minutes=60, workers=2)
    p.recipe                                           # the recipe with its planned sizes
    p.seconds                                          # the planned seconds of each stage

:func:`calibrate` (:mod:`.calibration`) times small pieces of every stage on the machine
it runs on: clone matches and the clone fit, games of each value block, the value fit,
duplicate pairs. :func:`plan` (a pure function of those figures) scales the recipe's data (clone
matches, each value block's games, in the proportions of the recipe) so that the whole
run, calibration and evaluation included, is planned to end within the budget and to
use it: a faster machine gets more data. Epochs and evaluation pairs are kept, the pairs
scaled down only when the budget is too small for the data's floor; a budget too small
even for the floors is refused, naming the smallest that fits this computer. A run
re-sizes its value data once after the clone stage and once before a second round
(:func:`resize_round`), from the time it has taken.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, replace

from widderkopf_env.cli import UsageError

from ..run_folder import RunFolderError
from .calibration import Calibration, block_key, calibrate, retimed
from .recipe import STAGES, Recipe, ValueBlock

__all__ = ["BudgetTooSmall", "Calibration", "Plan", "calibrate", "plan", "planned_seconds",
           "resize_round", "retimed", "run_plan"]

#: The share of the budget the plan fills (the rest absorbs the model's error).
FILL = 0.93
#: The smallest data the plan makes, as a share of the recipe's sizes.
MIN_SCALE = 0.1
#: The most data the plan makes, as a multiple of the recipe's sizes.
MAX_SCALE = 1000.0
#: The fewest evaluation pairs a plan keeps (or the recipe's, when fewer).
MIN_PAIRS = {"curve_pairs": 50, "final_pairs": 200, "ladder_pairs": 50}
#: The share of the rest a re-sizing keeps to spare (a stage can take that much longer
#: than planned: the same piece timed twice differs by up to that much).
SPARE = 0.15
#: The most the second round is re-sized by, up or down, after the first round.
SECOND_ROUND = 4.0
#: Seconds of fixed cost per stage (starting processes, reading and writing files).
STAGE_OVERHEAD = 2.0
#: What each process after the first adds to a data stage's or evaluation's speed, in
#: those of the first (the processes share memory bandwidth and the main process).
PARALLEL = 0.85


class BudgetTooSmall(UsageError):
    """The budget cannot hold even the smallest run (the message names the smallest, in
    minutes also as ``need``; the command exits 2)."""

    show_usage = False

    def __init__(self, message: str, need: float = 0.0):
        super().__init__(message)
        self.need = need


@dataclass(frozen=True)
class Plan:
    """A recipe sized for a budget: ``recipe`` (the sizes), ``scale`` (its data against
    the recipe's), ``seconds`` (planned seconds per stage, ``calibration`` and ``curve``
    included), the budget ``minutes`` and the :class:`Calibration` it came from."""

    minutes: float
    scale: float
    recipe: Recipe
    seconds: dict
    calibration: Calibration
    end: float | None = None  # the planned end, re-planned before the second round

    def sizes(self) -> dict:
        """The planned sizes of each stage."""
        r = self.recipe

        def blocks(bs):
            return [{"shards": b.shards, "games": b.games, "tricks": [b.lo, b.hi],
                     "exact": b.exact} for b in bs]

        out = {"clone": {"shards": r.clone_shards, "matches": r.clone_matches,
                         "epochs": r.clone_epochs},
               "values": blocks(r.values), "fit": {"epochs": r.value_epochs}}
        if r.values2:
            out |= {"values2": blocks(r.values2), "fit2": {"epochs": r.value_epochs2}}
        return out | {"evaluate": {"final_pairs": r.final_pairs,
                                   "ladder_pairs": r.ladder_pairs},
                      "curve": {"curve_pairs": r.curve_pairs}}

    def as_dict(self) -> dict:
        return {"minutes": self.minutes, "scale": round(self.scale, 4),
                "sizes": self.sizes(), "recipe": asdict(self.recipe),
                "seconds": {k: round(v, 1) for k, v in self.seconds.items()},
                "total_seconds": round(sum(self.seconds.values()), 1),
                "calibration": self.calibration.as_dict()}

    def against(self, actual: dict, wall: float) -> dict:
        """The plan beside what each stage got (``actual``: seconds by finished stage;
        ``wall``: the run's seconds): planned and actual seconds, ``other`` for the
        calibration, the curve and what lies between the stages."""
        rows = {s: {"planned": round(v, 1), "actual": actual.get(s)}
                for s, v in self.seconds.items() if s not in ("calibration", "curve")}
        rows["other"] = {"planned": round(self.seconds["calibration"]
                                          + self.seconds["curve"], 1),
                         "actual": round(wall - sum(actual.values()), 1)}
        return {"minutes": self.minutes, "scale": round(self.scale, 4),
                "sizes": self.sizes(), "calibration_seconds": round(self.calibration.seconds, 1),
                "planned_seconds": round(sum(self.seconds.values()) if self.end is None
                                         else self.end, 1), "stages": rows}

    def first_round(self, elapsed: float, workers: int,
                    cal: Calibration | None = None) -> dict:
        """The value data re-sized after the clone stage (``elapsed``: the run's seconds
        so far, the clone's error included; ``cal``: the calibration with its value games
        timed again, :func:`~.calibration.retimed`): ``values`` and ``values2`` scaled
        alike (within ``1/SECOND_ROUND`` .. ``SECOND_ROUND`` times the plan's, never under
        the floor) so that the rest ends within the budget. Kept in the plan's dict under
        ``first_round``, with the re-timed figures."""
        cal = self.calibration if cal is None else cal
        rounds = 2 + bool(self.recipe.values2)
        out = self._resized(("values", "values2"), cal, elapsed, workers,
                            curve=(rounds - 1) / rounds)
        return out | {"calibration": {k: getattr(cal, k)
                                      for k in ("value_game", "value_rows", "shard")}}

    def second_round(self, actual: dict, elapsed: float, workers: int) -> dict:
        """The second round re-sized from what the first took (``actual``: seconds of
        ``clone``, ``values`` and ``fit``; ``elapsed``: the run's seconds so far): the
        calibration's figures corrected by the ratio of actual to planned seconds,
        ``values2`` scaled (within ``1/SECOND_ROUND`` .. ``SECOND_ROUND`` times the plan's,
        never under the floor) to end within the budget. Kept in the plan's dict under
        ``second_round``."""
        cal = self.calibration

        def ratio(stages):
            got = sum(actual[s] for s in stages) / max(sum(self.seconds[s] for s in stages),
                                                       1e-9)
            return min(max(got, 1 / SECOND_ROUND), SECOND_ROUND)

        rv, rf = ratio(["values"]), ratio(["fit"])
        fixed = replace(cal, value_game={k: v * rv for k, v in cal.value_game.items()},
                        value_row=cal.value_row * rf, value_load=cal.value_load * rf,
                        pair=cal.pair * ratio(["clone", "values", "fit"]))
        return self._resized(("values2",), fixed, elapsed, workers, curve=1 / 3)

    def _resized(self, names: tuple, cal: Calibration, elapsed: float, workers: int,
                 curve: float) -> dict:
        """The value blocks ``names`` scaled by the largest factor (``1/SECOND_ROUND`` ..
        ``SECOND_ROUND``, never under the floor) whose stages from the first of them on
        (and ``curve`` of the curve's seconds), with ``SPARE`` of them to spare, fit the
        budget's rest after ``elapsed``."""
        r = self.recipe
        room = (self.minutes * 60 * FILL - elapsed) / (1 + SPARE)
        later = STAGES[STAGES.index(names[0]):]

        def sized_by(j):
            blocks = {n: tuple(ValueBlock(*_scaled(b.shards, b.games, j, workers), b.lo, b.hi,
                                          b.exact) for b in getattr(r, n)) for n in names}
            sec = planned_seconds(replace(r, **blocks), cal, workers)
            return blocks, {s: sec[s] for s in later if s in sec} | {"curve": sec["curve"]
                                                                      * curve}

        lo = min(MIN_SCALE / self.scale, 1.0)
        hi = max(lo, SECOND_ROUND)
        if sum(sized_by(lo)[1].values()) <= room:
            for _ in range(40):
                mid = (lo + hi) / 2
                lo, hi = (mid, hi) if sum(sized_by(mid)[1].values()) <= room else (lo, mid)
        blocks, sec = sized_by(lo)
        return {"factor": round(lo, 4)} | {n: [list(b) for b in blocks[n]] for n in names} | {
            "seconds": {s: round(v, 1) for s, v in sec.items() if s not in ("evaluate", "curve")},
            "end": round(elapsed + sum(sec.values()), 1)}

    @classmethod
    def from_dict(cls, data: dict) -> Plan:
        r = dict(data["recipe"])  # value blocks become records in Recipe itself
        for name in ("net_arch", "value_arch"):
            r[name] = tuple(r[name])
        seconds, scale, end = dict(data["seconds"]), data["scale"], None
        cal = Calibration(**data["calibration"])
        for name in ("first_round", "second_round"):  # re-sized before each round
            again = data.get(name)
            if again:
                cal = replace(cal, **again.get("calibration", {}))
                for blocks in ("values", "values2"):
                    if blocks in again:
                        r[blocks] = tuple(tuple(b) for b in again[blocks])
                seconds |= again["seconds"]
                scale, end = scale * again["factor"], again["end"]
        return cls(data["minutes"], scale, Recipe(**r), seconds, cal, end)


def _parallel(n: int, workers: int) -> float:
    """The speed of ``n`` tasks on ``workers`` processes, in those of one process."""
    return 1.0 + PARALLEL * (max(1, min(n, workers)) - 1)


def _rows(blocks, cal: Calibration) -> float:
    return sum(b.shards * b.games * cal.value_rows[block_key(b)] for b in blocks)


def planned_seconds(r: Recipe, cal: Calibration, workers: int) -> dict:
    """The seconds recipe ``r`` is expected to take on the calibrated machine, by stage
    (and ``curve``, the strength measured after the clone and each fit)."""
    if r.ppo_steps > 0:
        raise ValueError("a time budget plans recipes without a PPO stage; run this one "
                         "with its fixed sizes (--minutes 0)")
    matches = r.clone_shards * r.clone_matches
    out = {"clone": (matches * cal.clone_match + r.clone_shards * cal.shard)
           / _parallel(r.clone_shards, workers)
           + matches * cal.clone_rows * (cal.clone_load + r.clone_epochs * cal.clone_row)}

    def data(blocks):
        return sum(b.shards * (b.games * cal.value_game[block_key(b)] + cal.shard)
                   / _parallel(b.shards, workers) for b in blocks)

    rows1 = _rows(r.values, cal)
    out["values"] = data(r.values)
    out["fit"] = rows1 * (cal.value_load + r.value_epochs * cal.value_row)
    if r.values2:
        out["values2"] = data(r.values2)
        out["fit2"] = ((rows1 * r.refit_both + _rows(r.values2, cal))
                       * (cal.value_load + r.value_epochs2 * cal.value_row))
    pair = cal.pair / _parallel(workers, workers)
    out["evaluate"] = (2 * r.final_pairs + 3 * r.ladder_pairs) * pair
    out = {k: v + STAGE_OVERHEAD for k, v in out.items()}
    out["curve"] = (2 + bool(r.values2)) * 2 * r.curve_pairs * pair
    return out


def _scaled(shards: int, per: int, k: float, workers: int) -> tuple[int, int]:
    """``shards`` x ``per`` scaled by ``k``: shards scale (at least ``workers`` of them,
    or the recipe's when fewer), the games per shard only where the shards cannot."""
    total = max(1, round(shards * per * k))
    n = max(min(shards, workers), round(shards * k), 1)
    return n, max(1, round(total / n))


def sized(r: Recipe, k: float, workers: int, pairs: float = 1.0) -> Recipe:
    """Recipe ``r`` with its data scaled by ``k`` and its evaluation pairs by ``pairs``."""
    shards, matches = _scaled(r.clone_shards, r.clone_matches, k, workers)

    def blocks(bs):
        return tuple(ValueBlock(*_scaled(b.shards, b.games, k, workers), b.lo, b.hi, b.exact)
                     for b in bs)

    evals = {name: max(min(getattr(r, name), floor), round(getattr(r, name) * pairs))
             for name, floor in MIN_PAIRS.items()}
    return replace(r, clone_shards=shards, clone_matches=matches, values=blocks(r.values),
                   values2=blocks(r.values2), **evals)


def plan(recipe: Recipe, cal: Calibration, minutes: float, workers: int = 1) -> Plan:
    """``recipe`` sized so that its planned seconds, with the calibration's, fill
    ``FILL`` of ``minutes``; :class:`BudgetTooSmall` when even the floors do not fit."""
    if not (math.isfinite(minutes) and minutes > 0):
        raise ValueError(f"minutes must be a number > 0, got {minutes!r}")
    room = minutes * 60 * FILL - cal.seconds

    def total(r):
        return sum(planned_seconds(r, cal, workers).values())

    floor = sized(recipe, MIN_SCALE, workers, pairs=0.0)
    if total(floor) > room:
        need = (total(floor) + cal.seconds) / FILL / 60
        need = math.ceil(need * 10) / 10
        raise BudgetTooSmall(
            f"{minutes:g} minutes are too few for the {recipe.name} recipe on this computer: "
            f"its smallest run needs about {need:g} minutes (--minutes 0 runs its fixed "
            "sizes)", need)
    pairs, k = 1.0, MIN_SCALE
    if total(sized(recipe, MIN_SCALE, workers)) > room:  # fewer pairs, the data's floor
        lo, hi = 0.0, 1.0
        for _ in range(30):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if total(sized(recipe, MIN_SCALE, workers, mid)) <= room \
                else (lo, mid)
        pairs = lo
    else:  # the largest scale that fits: a bisection on the rounded sizes
        lo, hi = MIN_SCALE, MIN_SCALE * 2
        while total(sized(recipe, hi, workers)) <= room and hi < MAX_SCALE:
            lo, hi = hi, hi * 2
        for _ in range(40):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if total(sized(recipe, mid, workers)) <= room else (lo, mid)
        k = lo
    r = sized(recipe, k, workers, pairs)
    seconds = {"calibration": cal.seconds, **planned_seconds(r, cal, workers)}
    return Plan(minutes, k, r, seconds, cal)


def run_plan(saved: dict | None, recipe: Recipe, seed: int, workers: int, minutes: float,
             log=None) -> Plan:
    """A run's plan: ``saved`` (``recipe.json``'s, when a run goes on: no new calibration)
    or one made now from a :func:`calibrate` on this computer."""
    if saved is not None:
        try:
            return Plan.from_dict(saved)
        except (KeyError, TypeError, ValueError, AttributeError) as err:
            raise RunFolderError(f"the plan in recipe.json cannot be read ({err!r}); "
                                 "--force-restart starts afresh") from None
    return plan(recipe, calibrate(recipe, seed, log), minutes, workers)


def resize_round(state, p: Plan, name: str, workers: int, log, policy=None) -> Plan:
    """The plan of a run (``state``: its :class:`~.recipe.RunState`) before a round of
    value data (``name``: ``first_round`` after the clone stage, its value games timed
    again as ``policy`` plays them; ``second_round`` after the first fit): re-sized once
    from what the stages before it took (:meth:`Plan.first_round`,
    :meth:`Plan.second_round`), saved, and kept when the run goes on."""
    data = state.data
    if name not in data["plan"]:
        if name == "first_round":
            cal = p.calibration if policy is None else retimed(
                p.calibration, p.recipe, policy, data["seed"])
            data["plan"][name] = p.first_round(state.clock(), workers, cal)
        else:
            actual = {s: data["stages"][s]["seconds"] for s in ("clone", "values", "fit")}
            data["plan"][name] = p.second_round(actual, state.clock(), workers)
        state.save()
        log(f"{name.replace('_', ' ')}: value data x{data['plan'][name]['factor']:.3f} "
            "of the plan")
    return Plan.from_dict(data["plan"])
