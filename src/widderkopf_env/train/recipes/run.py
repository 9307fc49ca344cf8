"""Running a recipe (:mod:`.recipe`): its stages (clone, PPO, value data, value fit,
evaluation), the strength-against-time curve measured between them, one progress bar."""

from __future__ import annotations

import contextlib
import io
import json
import sys
from pathlib import Path

from widderkopf_env.agents.arena import run_duplicate
from widderkopf_env.agents.network_file import load_policy, save_policy
from widderkopf_env.seeding import derive_seed

from .. import run_folder
from ..plots import plot_recipe_curve
from ..run_folder import RunFolder, RunFolderError
from .recipe import AGENT, STAGES, STATE, Recipe, RunState, curve_seed, sha256

__all__ = ["run_recipe"]

#: The opponents of every curve point and of the final evaluation.
OPPONENTS = ("heuristic", "net")


def run_recipe(recipe: Recipe, out, seed: int = 0, workers: int = 1, force_restart=False,
               progress: bool | None = None, log=None, minutes: float | None = None) -> dict:
    """Run (or go on with) ``recipe`` in ``out``; returns the summary (also written to
    ``summary.json``). ``progress``: one progress bar on stderr (None: when stderr is a
    terminal); ``log``: called with each line the stages write to ``recipe.log``;
    ``minutes``: the time budget the recipe's sizes are planned for (:mod:`.budget`; a
    run that goes on keeps its plan), None: the recipe's own sizes. Raises
    :class:`~..run_folder.RunFolderError` when the folder holds something else (or another
    recipe's run, without ``force_restart``) or is in use, and
    :class:`~.budget.BudgetTooSmall` for a budget that cannot hold the smallest run."""
    out = Path(out)
    with RunFolder(out, "recipe") as folder:
        state = RunState(out, recipe, seed, minutes)  # its clock counts the calibration
        _check_folder(folder, state, recipe, seed, force_restart, minutes)
        plan = None
        if minutes is not None:  # going on: the plan in recipe.json; else one made now
            from .budget import run_plan

            plan = run_plan(state.data.get("plan"), recipe, seed, workers, minutes, log)
            state.data.setdefault("plan", plan.as_dict())
        folder.remove_stale_temporaries()
        folder.commit()
        sized = recipe if plan is None else plan.recipe
        return Pipeline(sized, out, seed, workers, state, progress, log, plan).run()


def _check_folder(folder: RunFolder, state: RunState, recipe: Recipe, seed: int,
                  force: bool, minutes: float | None = None) -> None:
    """Resume a run of the same recipe and seed; start afresh in an empty folder (or with
    ``force``, deleting only a run's entries); refuse anything else, before writing
    anything."""
    folder.check_links()
    if not folder.entries():
        return
    if force:
        folder.clear()  # refused while the folder holds anything else
        return
    if not state.path.is_file():
        raise RunFolderError(
            f"{folder.out} is not empty and holds no recipe run ({STATE}): give a new or an "
            "empty folder")
    try:
        state.load()
        if not isinstance(state.data, dict):
            raise ValueError(f"a JSON {type(state.data).__name__}, not the object a run "
                             "writes")
    except (OSError, ValueError) as err:
        raise RunFolderError(f"{state.path} cannot be read ({err}); "
                             "--force-restart starts afresh") from None
    if not state.matches(recipe, seed, minutes):
        theirs = state.data.get("recipe")
        name = theirs.get("name") if isinstance(theirs, dict) else None
        budget = state.data.get("minutes")
        raise RunFolderError(
            f"{folder.out} holds a run of another recipe, seed or budget ({name!r}, seed "
            f"{state.data.get('seed')}, "
            f"{'fixed sizes' if budget is None else f'{budget:g} minutes'}); give another "
            "folder, or --force-restart")


#: The folder of each stage's data (dropped when a stage before it is redone).
STAGE_FOLDERS = {"clone": "clone", "ppo": "ppo", "values": "values", "values2": "values2"}


class StageBar:
    """One progress bar over the whole recipe: each stage owns a share of it, in
    proportion to its expected work, and moves through its share as it goes."""

    def __init__(self, shares: dict[str, float], enabled: bool, start: int = 0):
        self.shares, self.pos, self.bar = shares, 0.0, None
        if enabled:
            from tqdm.auto import tqdm

            self.bar = tqdm(total=1000, bar_format="{desc} {percentage:3.0f}%|{bar}| "
                                                     "[{elapsed}<{remaining}]")

    def stage(self, name: str, base: float) -> None:
        self.name, self.base = name, base
        self.set(0.0)

    def set(self, fraction: float, note: str = "") -> None:
        if self.bar is None:
            return
        done = self.base + self.shares.get(self.name, 0.0) * min(max(fraction, 0.0), 1.0)
        self.bar.set_description_str(f"{self.name:<8} {note}".rstrip())
        self.bar.n = round(1000 * done)
        self.bar.refresh()

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def _exact(block) -> int:
    """The exact depth of a value block (:class:`~.recipe.ValueBlock`)."""
    return block.exact


def _positions(blocks: tuple) -> int:
    """About how many positions value ``blocks`` give (for the shares of the progress
    bar): about one per game and trick of the block."""
    return sum(s * g * (hi - lo + 1) for s, g, lo, hi in (b[:4] for b in blocks))


def _work(blocks: tuple) -> float:
    """The expected work of value ``blocks`` in progress-bar units: an exact solve with
    more than 8 tricks left costs about five times one with fewer."""
    return sum(s * g * (1 + 4 * (8 < hi <= _exact(b)))
               for b in blocks for s, g, _, hi in [b[:4]]) / 2000


class Pipeline:
    """One session of a recipe run (see :func:`.recipe.run_recipe`)."""

    def __init__(self, recipe: Recipe, out: Path, seed: int, workers: int, state: RunState,
                 progress: bool, log, plan=None):
        self.r, self.out, self.seed, self.workers, self.state = recipe, out, seed, workers, state
        self.plan = plan
        logfile = open(out / "recipe.log", "a", buffering=1)  # noqa: SIM115 (closed in run)
        self._logfile = logfile

        def write(msg: str) -> None:
            logfile.write(f"{msg}\n")
            if log is not None:
                log(msg)

        self.log = write
        skip = {"ppo"} if recipe.ppo_steps <= 0 else set()
        if not recipe.values2:
            skip |= {"values2", "fit2"}
        self.stages = [s for s in STAGES if s not in skip]
        n1 = _positions(recipe.values)
        weights = {"clone": 2.0, "ppo": 6.0 * recipe.ppo_steps / 1e6,
                   "values": _work(recipe.values), "fit": recipe.value_epochs / 3,
                   "values2": _work(recipe.values2), "evaluate": 1.0, "fit2":
                   recipe.value_epochs2 / 3 * (n1 * recipe.refit_both
                                               + _positions(recipe.values2)) / max(n1, 1)}
        if plan is not None:  # the planned seconds
            weights |= {s: max(plan.seconds.get(s, 0.0), 1e-3) for s in self.stages}
        total = sum(weights[s] for s in self.stages)
        self.shares = {s: weights[s] / total for s in self.stages}
        self.bar = StageBar(self.shares, sys.stderr.isatty() if progress is None else progress)

    # -- the run --------------------------------------------------------------------------

    def run(self) -> dict:
        try:
            state = self.state
            redo = next((s for s in self.stages if not state.done(s)), None)
            if redo is not None:
                state.forget_from(redo)
                self._invalidate_after(redo)
            state.save()
            if self.plan is not None:
                self.log(f"plan for {self.plan.minutes:g} minutes: data x{self.plan.scale:.3f} "
                         f"of the recipe's, {sum(self.plan.seconds.values()):.0f} s planned")
            base = 0.0
            for stage in self.stages:
                self.bar.stage(stage, base)
                if not state.done(stage):
                    if stage == "values" and self.plan is not None:
                        self._resize("first_round", self.policy_file())
                    if stage == "values2" and self.plan is not None:
                        self._resize("second_round")
                    self.log(f"stage {stage}")
                    started = state.clock()
                    getattr(self, f"_{stage}")(started)
                self.bar.set(1.0)
                base += self.shares[stage]
            return self._summary()
        except KeyboardInterrupt:
            with contextlib.suppress(OSError):
                self.state.save()  # the wall-clock time of this session
                self._summary()
            raise
        finally:
            self.bar.close()
            self._logfile.close()

    def _resize(self, name: str, policy: Path | None = None) -> None:
        from .budget import resize_round

        self.plan = resize_round(self.state, self.plan, name, self.workers, self.log, policy)
        self.r = self.plan.recipe

    def path(self, *parts) -> Path:
        return self.out.joinpath(*parts)

    # -- the validity of data ---------------------------------------------------------------

    def _invalidate_after(self, redo: str) -> None:
        """The stages after ``redo`` used its output: their data is no longer theirs to
        keep (shards are rebuilt; a PPO stage starts again)."""
        files = self.state.data.setdefault("files", {})
        for stage in self.stages[self.stages.index(redo) + 1:]:
            folder = STAGE_FOLDERS.get(stage)
            if folder is None:
                continue
            for rel in [r for r in files if r.startswith(f"{folder}/")]:
                del files[rel]
            if stage == "ppo" and self.path(folder).is_dir():
                with RunFolder(self.path(folder), "ppo") as ppo:
                    ppo.clear()

    def _record(self, path: Path) -> None:
        """Record a data file as written whole (its sha256)."""
        rel = str(Path(path).relative_to(self.out))
        self.state.data.setdefault("files", {})[rel] = sha256(path)
        self.state.save()

    def _verified(self, path: Path) -> bool:
        """Whether a data file kept from an earlier session is the one recorded."""
        rel = str(Path(path).relative_to(self.out))
        digest = self.state.data.get("files", {}).get(rel)
        return digest is not None and sha256(path) == digest

    def policy_file(self) -> Path:
        """The policy network the later stages build on."""
        if self.r.ppo_steps > 0:
            return self.path("ppo", "final_policy.npz")
        return self.path("clone", "policy.npz")

    # -- stages ---------------------------------------------------------------------------

    def _clone(self, started: float) -> None:
        from ..distill_cli import (
            DistillGenerateSettings,
            DistillTrainSettings,
            fit_policy,
            generate_shards,
        )

        r, data = self.r, self.path("clone", "data")
        target = self.path("clone", "policy.npz")
        done = [0]

        def shard_done(msg: str) -> None:
            self.log(msg)
            if msg.startswith("shard "):
                done[0] += 1
                self.bar.set(0.5 * done[0] / r.clone_shards, "data")

        generate_shards(DistillGenerateSettings(
            out=data, shards=r.clone_shards, seed=_small(derive_seed(self.seed, "clone")),
            matches=r.clone_matches, mix=(1.0 - r.clone_random, 0.0, r.clone_random),
            workers=self.workers, expert="heuristic"), log=shard_done, keep=self._verified,
            on_shard=self._record)
        epochs = [0]

        def epoch_done(msg: str) -> None:
            self.log(msg)
            if msg.startswith("epoch "):
                epochs[0] += 1
                self.bar.set(0.5 + 0.5 * epochs[0] / r.clone_epochs, "fit")

        weights = fit_policy(DistillTrainSettings(
            data=[data], out=target, net_arch=list(r.net_arch), epochs=r.clone_epochs,
            batch_size=r.clone_batch_size, soft=r.clone_soft, seed=self.seed), log=epoch_done)
        _write_policy(target, weights)
        self.state.finish("clone", [target], started)
        self._curve_point("clone", target)

    def _ppo(self, started: float) -> None:
        from dataclasses import replace

        from ..config import TrainConfig, config_of
        from ..ppo import train

        r, folder = self.r, self.path("ppo")
        for leg in range(1, r.ppo_legs + 1):
            target = r.ppo_steps * leg // r.ppo_legs
            summary = _read_json(folder / "summary.json")
            if summary is not None and summary.get("final") is not None \
                    and summary["steps"] >= target:
                continue  # this leg finished before a stop
            settings = TrainConfig(
                out=str(folder), total_steps=target, quiet=True, progress_bar=False,
                eval_every=0, eval_pairs=100, final_eval_pairs=100,
                checkpoint_every=max(r.ppo_steps // (2 * r.ppo_legs), 1),
                workers=self.workers)
            if (folder / "config.json").is_file():
                settings = replace(settings, resume=True)
            else:
                settings = replace(
                    settings, init=str(self.path("clone", "policy.npz")),
                    seed=_small(derive_seed(self.seed, "ppo")), lr=1e-4,
                    lr_schedule="constant", net_arch=list(r.net_arch), self_play=r.self_play)
            self.log(f"PPO leg {leg}/{r.ppo_legs}: up to {target:,} steps")
            steps = train(config_of(settings))["steps"]  # whole rollouts: maybe beyond target
            self.bar.set(leg / r.ppo_legs, f"{steps:,} steps")
            self._curve_point(f"ppo {steps:,}", folder / "final_policy.npz")
        self.state.finish("ppo", [folder / "final_policy.npz"], started)

    def _values(self, started: float) -> None:
        self._value_data("values", self.r.values, self.policy_file(), started)

    def _values2(self, started: float) -> None:
        self._value_data("values2", self.r.values2, self.fit_target("fit"), started)

    def _value_data(self, stage: str, blocks: tuple, player: Path, started: float) -> None:
        """Exact-value shards of ``blocks`` from the play of ``player`` (a network file)."""
        from ..value_cli import ValueDataSettings, value_shards

        total = sum(s for s, *_ in blocks)
        done = [0]

        def shard_done(msg: str) -> None:
            self.log(msg)
            if msg.startswith("shard "):
                done[0] += 1
                self.bar.set(done[0] / total, "exact values")

        outputs = []
        for i, block in enumerate(blocks):
            shards, games, lo, hi = block[:4]
            folder = self.path(stage, f"{lo}-{hi}")
            value_shards(ValueDataSettings(
                out=folder, shards=shards, seed=_small(derive_seed(self.seed, stage, i)),
                games=games, tricks=[lo, hi], policy=str(player),
                random_moves=self.r.value_random, exact_tricks=_exact(block),
                workers=self.workers), log=shard_done, keep=self._verified,
                on_shard=self._record)
            outputs += sorted(folder.glob("shard_*.npz"))
        self.state.finish(stage, outputs, started)

    def fit_target(self, stage: str) -> Path:
        """The agent file a fit writes: the last fit's is the recipe's ``agent.npz``."""
        return self.path("values", AGENT) if stage == "fit" and self.r.values2 \
            else self.path(AGENT)

    def _fit(self, started: float) -> None:
        self._fit_values("fit", [("values", self.r.values)], self.r.value_epochs, started,
                         "card values")

    def _fit2(self, started: float) -> None:
        from widderkopf_env.agents.network_file import load_values

        first = load_values(self.fit_target("fit"))  # the second fit starts from the first
        both = [("values", self.r.values)] * self.r.refit_both
        self._fit_values("fit2", both + [("values2", self.r.values2)],
                         self.r.value_epochs2, started, "card values 2",
                         init=None if first is None else first[0])

    def _fit_values(self, stage: str, data: list, epochs: int, started: float,
                    label: str, init=None) -> None:
        """Fit the card-value network to the shards of ``data`` (``(stage, blocks)``),
        from the layers ``init`` if given, and write it with the policy network as the
        stage's agent file."""
        from ..value_fit import fit_values

        r = self.r
        folders = [self.path(name, f"{b[2]}-{b[3]}") for name, blocks in data for b in blocks]
        done = [0]

        def epoch_done(msg: str) -> None:
            self.log(msg)
            if msg.startswith("epoch "):
                done[0] += 1
                self.bar.set(done[0] / epochs, label)

        layers = fit_values(folders, r.value_arch, epochs, seed=self.seed, log=epoch_done,
                            init=init)
        buf = io.BytesIO()
        save_policy(load_policy(self.policy_file()), buf, values=(layers, r.value_tricks))
        target = self.fit_target(stage)
        run_folder.write_atomic(target, buf.getvalue())
        self.state.finish(stage, [target], started)
        self._curve_point(label, target)

    def _evaluate(self, started: float) -> None:
        agent = str(self.path(AGENT))
        seed = derive_seed(self.seed, "recipe", "final")
        final = {}
        for i, opp in enumerate(OPPONENTS):
            res = run_duplicate(agent, opp, self.r.final_pairs, seed=seed, workers=self.workers,
                                progress=False)
            final[opp] = _result(res)
            self.bar.set((i + 1) / (len(OPPONENTS) + (self.r.ladder_pairs > 0)), f"vs {opp}")
        ladder = None
        if self.r.ladder_pairs > 0:
            from widderkopf_env.agents.ladder import run_ladder

            lad = run_ladder(agent, self.r.ladder_pairs, seed=self.seed, workers=self.workers,
                             baselines=("random", "heuristic", "ppo-v1"), progress=False)
            ladder = {"rating": lad.rating, "ci95": list(lad.ci95)}
        out = self.path("evaluation.json")
        run_folder.write_atomic(out, (json.dumps({"final": final, "ladder": ladder,
                                       "seed": seed}, indent=1) + "\n").encode())
        self.state.finish("evaluate", [out], started)

    # -- the curve and the summary ----------------------------------------------------------

    def _curve_point(self, label: str, agent_file: Path) -> None:
        """The agent in ``agent_file`` against each opponent on the curve's deals."""
        point = {"stage": label}
        for opp in OPPONENTS:
            res = run_duplicate(str(agent_file), opp, self.r.curve_pairs,
                                seed=curve_seed(self.seed), workers=self.workers,
                                progress=False)
            point[opp] = _result(res)
        point["minutes"] = round(self.state.clock() / 60, 2)
        self.state.data["curve"].append(point)
        self.state.save()
        self.log(f"curve: {label} at {point['minutes']:.1f} min: "
                 + ", ".join(f"vs {o} {point[o]['mean']:+.3f}" for o in OPPONENTS))
        plot_recipe_curve(self.state.data["curve"], self.path("curve.png"), self.r.name,
                          OPPONENTS)

    def _summary(self) -> dict:
        """summary.json, written whenever a session ends (after a stop: the finished
        stages only, ``final`` None)."""
        data = self.state.data
        done = [s for s in self.stages if s in data["stages"]]
        evaluation = (_read_json(self.path("evaluation.json")) or {}) if "evaluate" in done \
            else {}
        summary = {
            "recipe": self.r.name, "seed": self.seed, "agent": str(self.path(AGENT)),
            "wall_seconds": round(data["seconds"], 1),
            "stage_seconds": {s: data["stages"][s]["seconds"] for s in done},
            "final": evaluation.get("final"), "final_pairs": self.r.final_pairs,
            "ladder": evaluation.get("ladder"), "curve": data["curve"],
            "plan": None if self.plan is None else self.plan.against(
                {s: data["stages"][s]["seconds"] for s in done}, data["seconds"]),
        }
        run_folder.write_atomic(self.path("summary.json"),
                                (json.dumps(summary, indent=1) + "\n").encode())
        return summary


def _write_policy(path: Path, weights: dict) -> None:
    buf = io.BytesIO()
    save_policy(weights, buf)
    run_folder.write_atomic(path, buf.getvalue())


def _small(seed: int) -> int:
    """A derived seed cut to 0..999,999: the data stages build game ids from seed x shard x
    game, which must stay within 64 bits."""
    return seed % 1_000_000


def _read_json(path: Path):
    try:
        return json.loads(Path(path).read_text())
    except (OSError, ValueError):
        return None


def _result(res) -> dict:
    return {"pairs": res.pairs, "mean": round(res.mean, 4),
            "ci95": [round(x, 4) for x in res.ci95]}
