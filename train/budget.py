"""A recipe sized in minutes: ``widderkopf-train --recipe net --minutes 60``.

    cal = calibrate(RECIPES["net"], workers=2)         # a few seconds on this computer
    p = plan(RECIPES["net"], cal, minutes=60, workers=2)
    p.recipe                                           # the recipe with its planned sizes
    p.seconds                                          # the planned seconds of each stage

:func:`calibrate` times small pieces of every stage on the machine it runs on: clone
matches and a clone fit, a few games of each value block, value-fit steps, duplicate
pairs. :func:`plan` (a pure function of those figures) scales the recipe's data (clone
matches, each value block's games, in the proportions of the recipe) so that the whole
run, calibration and evaluation included, is planned to end within the budget and to
use it: a faster machine gets more data. Epochs and evaluation pairs are kept, the pairs
scaled down only when the budget is too small for the data's floor; a budget too small
even for the floors is refused, naming the smallest that fits this computer.
"""

from __future__ import annotations

import math
import tempfile
import time
from dataclasses import asdict, dataclass, replace
from pathlib import Path

import numpy as np

from widderkopf_env.cli import UsageError
from widderkopf_env.seeding import derive_seed

from .recipe import Recipe, ValueBlock
from .run_folder import RunFolderError

__all__ = ["BudgetTooSmall", "Calibration", "Plan", "calibrate", "plan", "planned_seconds",
           "run_plan", "second_round"]

#: The largest budget taken, in minutes (a week).
MAX_MINUTES = 7 * 24 * 60.0
#: The share of the budget the plan fills (the rest absorbs the model's error).
FILL = 0.93
#: The smallest data the plan makes, as a share of the recipe's sizes.
MIN_SCALE = 0.1
#: The most data the plan makes, as a multiple of the recipe's sizes.
MAX_SCALE = 1000.0
#: The fewest evaluation pairs a plan keeps (or the recipe's, when fewer).
MIN_PAIRS = {"curve_pairs": 50, "final_pairs": 200, "ladder_pairs": 50}
#: The most the second round is re-sized by, up or down, after the first round.
SECOND_ROUND = 4.0
#: Seconds of fixed cost per stage (starting processes, reading and writing files).
STAGE_OVERHEAD = 2.0


class BudgetTooSmall(UsageError):
    """The budget cannot hold even the smallest run (the message names the smallest, in
    minutes also as ``need``; the command exits 2)."""

    show_usage = False

    def __init__(self, message: str, need: float = 0.0):
        super().__init__(message)
        self.need = need


def block_key(block: ValueBlock) -> str:
    """The key of a value block's figures: its tricks and exact depth."""
    return f"{block.lo}-{block.hi}/{block.exact}"


@dataclass(frozen=True)
class Calibration:
    """Figures measured on one process: seconds per clone match (``clone_match``), the
    positions a match gives (``clone_rows``), clone-fit seconds per position and epoch
    (``clone_row``); per value block (:func:`block_key`) seconds per game
    (``value_game``) and positions per game (``value_rows``); value-fit seconds per
    position and epoch (``value_row``); seconds per duplicate pair against each of the
    heuristic and ``net`` (``pair``); the calibration's own seconds (``seconds``)."""

    clone_match: float
    clone_rows: float
    clone_row: float
    value_game: dict
    value_rows: dict
    value_row: float
    pair: float
    seconds: float

    def as_dict(self) -> dict:
        return asdict(self)


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

    def second_round(self, actual: dict, elapsed: float, workers: int) -> dict:
        """The second round re-sized from what the first took (``actual``: seconds of ``clone``, ``values`` and ``fit``; ``elapsed``:
        the run's seconds so far): the calibration's figures corrected by the ratio of
        actual to planned seconds, ``values2`` scaled (within ``1/SECOND_ROUND`` ..
        ``SECOND_ROUND`` times the plan's, never under the floor) to end within the
        budget. Kept in the plan's dict under ``second_round``."""
        r, cal = self.recipe, self.calibration

        def ratio(stages):
            got = sum(actual[s] for s in stages) / max(sum(self.seconds[s] for s in stages),
                                                       1e-9)
            return min(max(got, 1 / SECOND_ROUND), SECOND_ROUND)

        rv, rf = ratio(["values"]), ratio(["fit"])
        fixed = replace(cal, value_game={k: v * rv for k, v in cal.value_game.items()},
                        value_row=cal.value_row * rf,
                        pair=cal.pair * ratio(["clone", "values", "fit"]))
        room = self.minutes * 60 * FILL - elapsed

        def second(j):
            blocks = tuple(ValueBlock(*_scaled(b.shards, b.games, j, workers), b.lo, b.hi,
                                      b.exact) for b in r.values2)
            sec = planned_seconds(replace(r, values2=blocks), fixed, workers)
            return blocks, {"values2": sec["values2"], "fit2": sec["fit2"],
                            "evaluate": sec["evaluate"], "curve": sec["curve"] / 3}

        lo = min(MIN_SCALE / self.scale, 1.0)
        hi = max(lo, SECOND_ROUND)
        if sum(second(lo)[1].values()) <= room:
            for _ in range(40):
                mid = (lo + hi) / 2
                lo, hi = (mid, hi) if sum(second(mid)[1].values()) <= room else (lo, mid)
        blocks, sec = second(lo)
        return {"factor": round(lo, 4), "values2": [list(b) for b in blocks],
                "seconds": {"values2": round(sec["values2"], 1), "fit2": round(sec["fit2"], 1)},
                "end": round(elapsed + sum(sec.values()), 1)}

    @classmethod
    def from_dict(cls, data: dict) -> Plan:
        r = dict(data["recipe"])  # value blocks become records in Recipe itself
        for name in ("net_arch", "value_arch"):
            r[name] = tuple(r[name])
        seconds, second = dict(data["seconds"]), data.get("second_round")
        if second:  # re-sized after the first round
            r["values2"] = tuple(tuple(b) for b in second["values2"])
            seconds |= second["seconds"]
        return cls(data["minutes"], data["scale"], Recipe(**r), seconds,
                   Calibration(**data["calibration"]), second["end"] if second else None)


def _parallel(n: int, workers: int) -> int:
    return max(1, min(n, workers))


def _rows(blocks, cal: Calibration) -> float:
    return sum(b.shards * b.games * cal.value_rows[block_key(b)] for b in blocks)


def planned_seconds(r: Recipe, cal: Calibration, workers: int) -> dict:
    """The seconds recipe ``r`` is expected to take on the calibrated machine, by stage
    (and ``curve``, the strength measured after the clone and each fit)."""
    if r.ppo_steps > 0:
        raise ValueError("a time budget plans recipes without a PPO stage; run this one "
                         "with its fixed sizes (--minutes 0)")
    matches = r.clone_shards * r.clone_matches
    out = {"clone": matches * cal.clone_match / _parallel(r.clone_shards, workers)
           + matches * cal.clone_rows * r.clone_epochs * cal.clone_row}

    def data(blocks):
        return sum(b.shards * b.games * cal.value_game[block_key(b)]
                   / _parallel(b.shards, workers) for b in blocks)

    rows1 = _rows(r.values, cal)
    out["values"] = data(r.values)
    out["fit"] = rows1 * r.value_epochs * cal.value_row
    if r.values2:
        out["values2"] = data(r.values2)
        out["fit2"] = (rows1 + _rows(r.values2, cal)) * r.value_epochs2 * cal.value_row
    pair = cal.pair / max(1, workers)
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


def second_round(state, p: Plan, workers: int, log) -> Plan:
    """The plan of a run (``state``: its :class:`~.recipe.RunState`) before its second
    round: re-sized once from what the first round took
    (:meth:`Plan.second_round`), saved, and kept when the run goes on."""
    data = state.data
    if "second_round" not in data["plan"]:
        actual = {s: data["stages"][s]["seconds"] for s in ("clone", "values", "fit")}
        data["plan"]["second_round"] = p.second_round(actual, state.clock(), workers)
        state.save()
        log(f"second round: x{data['plan']['second_round']['factor']:.3f} of the plan")
    return Plan.from_dict(data["plan"])


def _tiled(arrays: dict, rows: int) -> dict:
    """The arrays repeated to at least ``rows`` rows (for timing a fit's steps)."""
    n = len(next(iter(arrays.values())))
    reps = max(1, -(-rows // max(n, 1)))
    return {k: np.concatenate([v] * reps) for k, v in arrays.items()}


def calibrate(recipe: Recipe, seed: int = 0, log=None) -> Calibration:
    """Time small pieces of ``recipe``'s stages on this computer, on one process, in a
    temporary folder (a few seconds; see :class:`Calibration`)."""
    from widderkopf_env.agents.arena import run_duplicate
    from widderkopf_env.agents.network_file import save_policy

    from . import value_data
    from .distill_cli import (
        DistillGenerateSettings,
        DistillTrainSettings,
        fit_policy,
        generate_shards,
    )
    from .distill_data import load_shards
    from .value_cli import ValueDataSettings, value_shards
    from .value_fit import fit_values

    def quiet(_msg: str) -> None:
        pass

    def marginal(make, folder: Path, few: int, more: int) -> float:
        """Seconds per game of ``make(folder, games)``: the time of ``more`` games less
        that of ``few`` (a call's fixed costs, counted per stage, left out), per game."""
        t = time.perf_counter()
        make(folder.with_name(folder.name + "-few"), few)
        t_few = time.perf_counter() - t
        t = time.perf_counter()
        make(folder, more)
        t_more = time.perf_counter() - t
        return max((t_more - t_few) / (more - few), 0.25 * t_more / more)

    start = time.perf_counter()
    small = derive_seed(seed, "recipe", "calibration") % 1_000_000
    with tempfile.TemporaryDirectory(prefix="widderkopf-calibration-") as tmp:
        tmp = Path(tmp)
        clone_match = marginal(lambda out, n: generate_shards(DistillGenerateSettings(
            out=out, shards=1, seed=small, matches=n, workers=1, expert="heuristic",
            mix=(1.0 - recipe.clone_random, 0.0, recipe.clone_random)), log=quiet),
            tmp / "clone", 1, 3)
        clone = load_shards([tmp / "clone"])
        clone_rows = len(clone["action"]) / 3
        big = _tiled(clone, 4 * recipe.clone_batch_size)
        fit = DistillTrainSettings(
            data=[tmp / "clone"], out=tmp / "p.npz", net_arch=list(recipe.net_arch),
            epochs=1, batch_size=recipe.clone_batch_size, soft=recipe.clone_soft, seed=small)
        fit_policy(replace(fit, batch_size=64), data=clone, log=quiet)  # torch's first steps
        t = time.perf_counter()
        weights = fit_policy(fit, data=big, log=quiet)
        clone_row = (time.perf_counter() - t) / len(big["action"])
        save_policy(weights, tmp / "p.npz")  # the clone's stand-in plays the value games
        value_game, value_rows, games = {}, {}, 3
        for i, b in enumerate(dict.fromkeys(recipe.values + recipe.values2)):
            folder = tmp / f"values{i}"
            value_game[block_key(b)] = marginal(
                lambda out, n, b=b: value_shards(ValueDataSettings(
                    out=out, shards=1, seed=small, games=n, tricks=[b.lo, b.hi],
                    policy=str(tmp / "p.npz"), random_moves=recipe.value_random,
                    exact_tricks=b.exact, workers=1), log=quiet), folder, 1, games)
            value_rows[block_key(b)] = len(load_shards(folder, fields=("game",))["game"]) / games
        rows = load_shards([tmp / f"values{i}" for i in range(len(value_game))],
                           fields=value_data.FIELDS)
        big = _tiled(rows, 4096)
        big["game"] = np.arange(len(big["game"]))  # distinct games: a held-out share
        t = time.perf_counter()
        fit_values(big, recipe.value_arch, epochs=1, seed=small, log=quiet)
        value_row = (time.perf_counter() - t) / len(big["game"])
        t = time.perf_counter()
        for opp in ("heuristic", "net"):
            run_duplicate("net", opp, 2, seed=small, workers=1, progress=False)
        pair = (time.perf_counter() - t) / 4
    cal = Calibration(clone_match, clone_rows, clone_row, value_game, value_rows, value_row,
                      pair, time.perf_counter() - start)
    if log is not None:
        log(f"calibration: {cal.seconds:.1f} s")
    return cal
