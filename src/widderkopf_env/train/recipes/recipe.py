"""One command from nothing to a strong agent: ``widderkopf-train --recipe NAME``.

    widderkopf-train --recipe demo --out runs/demo     # 5 minutes: about the heuristic's level
    widderkopf-train --recipe net --out runs/net       # the strong recipe
    widderkopf-eval runs/net/agent.npz heuristic       # the result is one agent file

A recipe is a fixed sequence of stages, each of which writes its outputs into the run
folder and records them (with their sha256) in ``recipe.json``:

1. ``clone``: positions of heuristic play (a share of random moves for variety) labelled
   with the heuristic's move (:mod:`..distill_data`, expert ``heuristic``), and a policy
   network fitted to them (:func:`..distill.train`, hard targets). The network starts
   at about the heuristic's level instead of the random bot's.
2. ``ppo`` (recipes with ``ppo_steps``; the shipped ones have none): PPO from that
   network (``widderkopf-train --init``, self-play or against the heuristic), in legs.
3. ``values``: exact-value data from the policy's play (:mod:`..value_data`), in parallel
   over the workers; a block may value positions by the heuristic's rollouts down to a
   cheaper exact depth (early card play).
4. ``fit``: the card-value network (:func:`..value_fit.fit_values`), written with the
   policy as one network file, ``agent.npz`` (a :class:`~widderkopf_env.agents.net_agent.NetAgent`,
   as ``load_agent("net")``).
5. ``values2`` and ``fit2`` (recipes with ``values2``): a second round in the manner of
   DAgger. The agent of the first fit plays the games of more exact-value data, so the
   data covers the positions its own play leads to, and the card-value network is
   fitted again from the first fit's, on the second round's data (``refit_both``: on
   both rounds'). The first round's agent is
   ``values/agent.npz``; the second's is ``agent.npz``.
6. ``evaluate``: the final duplicate results against the heuristic and the shipped
   ``net``, and (recipes with ladder pairs) the ladder rating.

After the clone, every PPO leg and each fit, the agent so far plays a fixed, seeded set
of duplicate deals against the heuristic and the shipped ``net``: the strength against
wall-clock time, kept in ``recipe.json`` and ``summary.json`` (``curve``) and drawn in
``curve.png``. Wall-clock time counts every session of the run (evaluations included).

A rerun of the same command after a kill or Ctrl-C goes on where the run stopped: a
stage whose recorded outputs are intact is skipped, data stages keep the shards that
match their recorded sha256 (and write the others again), PPO resumes from its newest
checkpoint; a redone stage invalidates the data of the stages after it. The folder is a
:class:`~..run_folder.RunFolder` (one process at a time; ``--force-restart`` deletes
only a run's entries and starts afresh).
"""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import NamedTuple

from widderkopf_env.seeding import derive_seed

from .. import run_folder
from ..value_data import EXACT_TRICKS

__all__ = ["RECIPES", "Recipe", "RunState", "ValueBlock", "curve_seed"]

STATE = "recipe.json"
AGENT = "agent.npz"
STAGES = ("clone", "ppo", "values", "fit", "values2", "fit2", "evaluate")


class ValueBlock(NamedTuple):
    """A block of exact-value data: ``shards`` x ``games`` games, their card decisions
    with ``lo``..``hi`` tricks left stored, exact with at most ``exact`` tricks left (by
    heuristic rollouts down to it before)."""

    shards: int
    games: int
    lo: int
    hi: int
    exact: int = EXACT_TRICKS


@dataclass(frozen=True)
class Recipe:
    """The settings of a recipe (see the module docstring for the stages).

    ``clone_shards`` x ``clone_matches`` matches of heuristic play (``clone_random``:
    the share of random moves), fitted for ``clone_epochs`` into a ``net_arch`` network
    (``clone_batch_size`` positions per step, ``clone_soft``: the share of soft targets);
    ``ppo_steps`` PPO steps in ``ppo_legs`` legs (0: no PPO stage), ``self_play`` or
    against the heuristic; value data ``values`` as :class:`ValueBlock` records (plain
    tuples are taken as such; ``value_random``: the share of random moves in those games),
    fitted for ``value_epochs`` into a ``value_arch`` network that plays the cards of the
    last ``value_tricks`` tricks;
    ``values2``: blocks of a second round played by that agent (empty: one round), the
    network fitted again from the first fit's for ``value_epochs2``, on the second
    round's data alone or (``refit_both``) on both rounds';
    ``curve_pairs`` duplicate pairs per curve point and opponent, ``final_pairs`` in the
    final evaluation, ``ladder_pairs`` per ladder baseline (0: no ladder);
    ``minutes``: the default time budget of ``widderkopf-train --recipe`` (the sizes
    above are then the shape the budget scales, :mod:`.budget`)."""

    name: str
    clone_shards: int = 40
    clone_matches: int = 100
    clone_random: float = 0.1
    clone_epochs: int = 8
    clone_batch_size: int = 1024
    clone_soft: float = 0.0
    net_arch: tuple = (512, 512)
    ppo_steps: int = 0
    ppo_legs: int = 1
    self_play: bool = False
    values: tuple = (ValueBlock(100, 100, 1, 8),)
    value_random: float = 0.05
    value_arch: tuple = (256, 256)
    value_epochs: int = 8
    value_tricks: int = 8
    values2: tuple = ()
    value_epochs2: int = 8
    refit_both: bool = True
    curve_pairs: int = 200
    final_pairs: int = 1000
    ladder_pairs: int = 0
    minutes: float = 5.0

    def __post_init__(self):
        for name in ("values", "values2"):  # plain tuples become named records
            object.__setattr__(self, name, tuple(ValueBlock(*b) for b in getattr(self, name)))


RECIPES = {
    "demo": Recipe("demo"),
    "net": Recipe("net", clone_shards=20, clone_matches=100, clone_epochs=8,
                  values=(ValueBlock(12, 1000, 1, 8), ValueBlock(10, 250, 9, 12),
                          ValueBlock(5, 100, 13, 17, exact=8)),
                  value_arch=(512, 512, 256), value_epochs=4, value_tricks=17,
                  values2=(ValueBlock(50, 1000, 1, 8), ValueBlock(40, 250, 9, 12),
                           ValueBlock(20, 100, 13, 17, exact=8)),
                  value_epochs2=4, refit_both=False, final_pairs=1000, ladder_pairs=200,
                  minutes=60.0),
}


def sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


class RunState:
    """``recipe.json``: the recipe, its time budget (``minutes``; None: its fixed sizes)
    and the plan made for it, the finished stages with their outputs' hashes, the curve,
    and the run's wall-clock seconds over all sessions."""

    def __init__(self, out: Path, recipe: Recipe, seed: int, minutes: float | None = None):
        self.out, self.path = out, out / STATE
        self.data = {"recipe": asdict(recipe), "seed": seed, "minutes": minutes,
                     "stages": {}, "curve": [], "seconds": 0.0}
        self._t = time.perf_counter()

    def load(self) -> None:
        self.data = json.loads(self.path.read_text())

    def matches(self, recipe: Recipe, seed: int, minutes: float | None = None) -> bool:
        """Whether the run is of ``recipe`` (its default budget aside), ``seed`` and
        ``minutes``."""
        def shape(r) -> dict:
            return {k: v for k, v in r.items() if k != "minutes"} if isinstance(r, dict) else r

        return (shape(self.data.get("recipe")) == shape(json.loads(json.dumps(asdict(recipe))))
                and self.data.get("seed") == seed and self.data.get("minutes") == minutes)

    def clock(self) -> float:
        """The run's wall-clock seconds so far (every session)."""
        now = time.perf_counter()
        self.data["seconds"] += now - self._t
        self._t = now
        return self.data["seconds"]

    def save(self) -> None:
        self.clock()
        run_folder.write_atomic(self.path, (json.dumps(self.data, indent=1) + "\n").encode())

    def done(self, stage: str) -> bool:
        """Whether ``stage`` finished and its recorded outputs are intact."""
        rec = self.data["stages"].get(stage)
        if rec is None:
            return False
        return all((self.out / rel).is_file() and sha256(self.out / rel) == digest
                   for rel, digest in rec["outputs"].items())

    def finish(self, stage: str, outputs, started: float, **extra) -> None:
        self.data["stages"][stage] = {
            "seconds": round(self.clock() - started, 1),
            "outputs": {str(Path(p).relative_to(self.out)): sha256(Path(p)) for p in outputs},
            **extra}
        self.save()

    def forget_from(self, stage: str) -> None:
        """Drop the records of ``stage`` and every later stage (to be redone)."""
        for name in STAGES[STAGES.index(stage):]:
            self.data["stages"].pop(name, None)


def curve_seed(seed: int) -> int:
    """The seed of the curve's deals: the same for every point of a run."""
    return derive_seed(seed, "recipe", "curve")
