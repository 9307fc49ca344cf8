"""The calibration of a time budget: small pieces of a recipe's stages timed on this
computer (:func:`calibrate`), and the value games timed again with the clone stage's
own policy before the value data is made (:func:`retimed`). :mod:`.budget` plans from
these figures.
"""

from __future__ import annotations

import math
import tempfile
import time
from dataclasses import asdict, dataclass, replace
from pathlib import Path

import numpy as np

from widderkopf_env.seeding import derive_seed

from .recipe import Recipe, ValueBlock

__all__ = ["Calibration", "block_key", "calibrate", "retimed"]

#: The seconds the calibration's longer timings of data and pairs last, about.
LEAST = 0.5


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
    heuristic and ``net`` (``pair``); the calibration's own seconds (``seconds``); the
    seconds per position a fit spends once, whatever its epochs, in the clone fit
    (``clone_load``) and the value fit (``value_load``); the seconds a data shard costs
    whatever its games (``shard``, the most any data call of the calibration cost)."""

    clone_match: float
    clone_rows: float
    clone_row: float
    value_game: dict
    value_rows: dict
    value_row: float
    pair: float
    seconds: float
    clone_load: float = 0.0
    value_load: float = 0.0
    shard: float = 0.0

    def as_dict(self) -> dict:
        return asdict(self)


def _quiet(_msg: str) -> None:
    pass


class _Timer:
    """Marginal timings: seconds per unit of a call, its fixed costs left out and kept
    (``fixed``: the largest seen)."""

    def __init__(self, least: float = LEAST):
        self.least, self.fixed = least, 0.0

    def marginal(self, make, folder: Path, few: int, most: int) -> tuple[float, int]:
        """Seconds per game of ``make(folder, games)``: the time of ``more`` games less
        that of ``few`` (a call's fixed costs, counted per shard and stage, left out),
        per game; and ``more``: games for about ``least`` seconds, at least ``4 * few``
        and at most ``most``."""
        t = time.perf_counter()
        make(folder.with_name(folder.name + "-few"), few)
        t_few = time.perf_counter() - t
        more = int(min(most, max(4 * few, math.ceil(self.least * few / max(t_few, 1e-9)))))
        t = time.perf_counter()
        make(folder, more)
        t_more = time.perf_counter() - t
        per = max((t_more - t_few) / (more - few), 0.25 * t_more / more)
        self.fixed = max(self.fixed, t_few - few * per)
        return per, more


def _value_games(recipe: Recipe, policy: Path, seed: int, tmp: Path, timer: _Timer):
    """Seconds and positions per game of each of ``recipe``'s value blocks, played by
    ``policy`` (a network file), each block's shard written in ``tmp``."""
    from ..shards import load_shards
    from ..value_cli import ValueDataSettings, value_shards

    value_game, value_rows, folders = {}, {}, []
    for i, b in enumerate(dict.fromkeys(recipe.values + recipe.values2)):
        folder = tmp / f"values{i}"
        value_game[block_key(b)], games = timer.marginal(
            lambda out, n, b=b: value_shards(ValueDataSettings(
                out=out, shards=1, seed=seed, games=n, tricks=[b.lo, b.hi],
                policy=str(policy), random_moves=recipe.value_random, exact_tricks=b.exact,
                workers=1), log=_quiet), folder, 2, 64)
        value_rows[block_key(b)] = len(load_shards(folder, fields=("game",))["game"]) / games
        folders.append(folder)
    return value_game, value_rows, folders


def retimed(cal: Calibration, recipe: Recipe, policy: Path, seed: int = 0) -> Calibration:
    """``cal`` with its value games timed again, for about a second a block, played by
    ``policy`` (the clone stage's network: the games the value data will hold)."""
    start = time.perf_counter()
    small = derive_seed(seed, "recipe", "retimed") % 1_000_000
    with tempfile.TemporaryDirectory(prefix="widderkopf-calibration-") as tmp:
        timer = _Timer(least=2 * LEAST)
        value_game, value_rows, _ = _value_games(recipe, policy, small, Path(tmp), timer)
    return replace(cal, value_game=value_game, value_rows=value_rows,
                   shard=max(cal.shard, timer.fixed),
                   seconds=cal.seconds + time.perf_counter() - start)


def _tiled(arrays: dict, rows: int) -> dict:
    """The arrays repeated to at least ``rows`` rows (for timing a fit's steps)."""
    n = len(next(iter(arrays.values())))
    reps = max(1, -(-rows // max(n, 1)))
    return {k: np.concatenate([v] * reps) for k, v in arrays.items()}


def calibrate(recipe: Recipe, seed: int = 0, log=None) -> Calibration:
    """Time small pieces of ``recipe``'s stages on this computer, on one process, in a
    temporary folder (about ten seconds; see :class:`Calibration`)."""
    from widderkopf_env.agents.arena import run_duplicate
    from widderkopf_env.agents.network_file import save_policy

    from .. import value_data
    from ..distill_cli import (
        DistillGenerateSettings,
        DistillTrainSettings,
        fit_policy,
        generate_shards,
    )
    from ..shards import load_shards
    from ..value_fit import fit_values

    quiet, timer = _quiet, _Timer()

    def fit_costs(fit, data: dict, n: int) -> tuple[float, float, object]:
        """A fit's seconds per position spent once and per epoch, from ``fit(arrays,
        epochs)`` timed (the faster of two) on ``data`` repeated to ``n`` and ``4n``
        positions for one epoch and to ``4n`` for three (its fixed costs, counted per
        stage, left out); and the last fit's result."""
        big, times = _tiled(data, 4 * n), {}
        for _ in range(2):  # the faster of two: the least disturbed by other processes
            for rows, epochs in ((n, 1), (4 * n, 1), (4 * n, 3)):
                part = {k: v[:rows] for k, v in big.items()}
                t = time.perf_counter()
                out = fit(part, epochs)
                t = time.perf_counter() - t
                times[rows, epochs] = min(times.get((rows, epochs), t), t)
        per_epoch = max((times[4 * n, 3] - times[4 * n, 1]) / (8 * n),
                        0.25 * times[4 * n, 3] / (12 * n))
        once = max((times[4 * n, 1] - times[n, 1]) / (3 * n) - per_epoch, 0.0)
        return once, per_epoch, out

    start = time.perf_counter()
    small = derive_seed(seed, "recipe", "calibration") % 1_000_000
    with tempfile.TemporaryDirectory(prefix="widderkopf-calibration-") as tmp:
        tmp = Path(tmp)
        clone_match, n = timer.marginal(lambda out, n: generate_shards(DistillGenerateSettings(
            out=out, shards=1, seed=small, matches=n, workers=1, expert="heuristic",
            mix=(1.0 - recipe.clone_random, 0.0, recipe.clone_random)), log=quiet),
            tmp / "clone", 2, 64)
        clone = load_shards([tmp / "clone"])
        clone_rows = len(clone["action"]) / n
        fit = DistillTrainSettings(
            data=[tmp / "clone"], out=tmp / "p.npz", net_arch=list(recipe.net_arch),
            epochs=1, batch_size=recipe.clone_batch_size, soft=recipe.clone_soft, seed=small)
        fit_policy(replace(fit, batch_size=64), data=clone, log=quiet)  # torch's first steps
        clone_load, clone_row, weights = fit_costs(
            lambda part, epochs: fit_policy(replace(fit, epochs=epochs), data=part, log=quiet),
            clone, 2 * recipe.clone_batch_size)
        save_policy(weights, tmp / "p.npz")  # the clone's stand-in plays the value games
        value_game, value_rows, folders = _value_games(recipe, tmp / "p.npz", small, tmp,
                                                       timer)
        rows = load_shards(folders, fields=value_data.FIELDS)
        rows = _tiled(rows, 4 * 2048)
        rows["game"] = np.arange(len(rows["game"]))  # distinct games: a held-out share
        value_load, value_row, _ = fit_costs(
            lambda part, epochs: fit_values(part, recipe.value_arch, epochs=epochs, seed=small,
                                            log=quiet), rows, 2048)

        def pairs(_out, n):
            for opp in ("heuristic", "net"):
                run_duplicate("net", opp, n, seed=small, workers=1, progress=False)

        shard = timer.fixed  # of the data calls (the pairs' come next)
        pair = timer.marginal(pairs, tmp / "pairs", 4, 64)[0] / 2
    cal = Calibration(clone_match, clone_rows, clone_row, value_game, value_rows, value_row,
                      pair, time.perf_counter() - start, clone_load, value_load, shard)
    if log is not None:
        log(f"calibration: {cal.seconds:.1f} s")
    return cal
