"""The training run's schedule: self-play snapshots, evaluations and checkpoints.

:class:`TrainingRun` holds everything of a run besides the model (pool, evaluation
history, best result, timings, what is due next) and can be saved in and restored from a
checkpoint. :class:`RunCallback` calls it at the start of every PPO rollout: at that
moment the previous rollout has been trained on and ``model.num_timesteps`` counts
exactly the steps the model has learned from, so a checkpoint taken there loses nothing
(a resumed run only restarts the episodes that were in progress).
"""

from __future__ import annotations

import json
import random
import time
from collections import defaultdict
from pathlib import Path

import numpy as np
import torch
from stable_baselines3.common.callbacks import BaseCallback, ProgressBarCallback

from widderkopf_env.atomic import is_temporary

from . import checkpoints, run_folder
from .config_file import to_json
from .evaluation import LEGEND, describe, evaluate
from .export import export_policy
from .opponents import opponent_mix


class TrainingRun:
    """State and schedule of one training run (see the module documentation)."""

    def __init__(self, cfg, out: Path, vec_env, log=print, started: float | None = None):
        self.cfg, self.out, self.vec_env, self.log = cfg, out, vec_env, log
        self.pool: list[dict] = []  # {"steps": n, "weights": {...}}
        self.history: list[dict] = []
        self.best: dict | None = None  # {"steps", "mean", "ci95"} vs heuristic
        self.next_eval = cfg.eval_every if cfg.eval_every > 0 else None
        self.next_ckpt = cfg.checkpoint_every if cfg.checkpoint_every > 0 else None
        self.next_snapshot = cfg.snapshot_every if cfg.self_play else None
        self.timers = defaultdict(float)  # accumulated over sessions (resume)
        self.mix = self.escalation = None
        self.best_weights: dict | None = None  # of a best model found in this session
        self._session_start = time.perf_counter() if started is None else started
        self._wall_before = 0.0
        self._explained = False  # LEGEND logged (once per session, before the first line)
        self.stopped_at: int | None = None  # the step at which --minutes ended training

    # --- opponents ---------------------------------------------------------------------------

    def update_mix(self, steps: int) -> None:
        mix = opponent_mix(self.cfg, steps)
        if mix != self.mix:
            self.vec_env.env_method("set_mix", mix)
            if self.mix is not None:
                self.log(f"[{steps}] opponents now {mix}")
            self.mix = mix

    def add_snapshot(self, model) -> None:
        weights = export_policy(model)
        self.pool.append({"steps": int(model.num_timesteps), "weights": weights})
        if self.cfg.pool_size > 0:
            del self.pool[:-self.cfg.pool_size]
        self.vec_env.env_method("add_snapshot", weights, self.cfg.pool_size)

    # --- the hook ------------------------------------------------------------------------------

    def on_rollout_start(self, model) -> None:
        steps = int(model.num_timesteps)
        self.update_mix(steps)
        escalation = steps >= self.cfg.crack_after
        if escalation != self.escalation:
            self.vec_env.env_method("set_escalation", escalation)
            if self.escalation is not None:
                self.log(f"[{steps}] the learner may escalate from now on")
            self.escalation = escalation
        if self.next_snapshot is not None and steps >= self.next_snapshot and escalation:
            self.add_snapshot(model)
            self.next_snapshot = steps + self.cfg.snapshot_every
            self.log(f"[{steps}] self-play pool: {len(self.pool)} snapshot(s)")
        if self.next_eval is not None and steps >= self.next_eval:
            self.evaluate(model)
            self.next_eval = steps + self.cfg.eval_every
        if self.next_ckpt is not None and steps >= self.next_ckpt:
            self.next_ckpt = steps + self.cfg.checkpoint_every
            self.checkpoint(model)

    def evaluate(self, model) -> dict:
        """Evaluate the current policy (logged, kept in the history, best model saved);
        at a step already in the history (a resumed run that had ended there), return
        that entry instead."""
        steps = int(model.num_timesteps)
        if self.history and self.history[-1]["steps"] == steps:
            return self.history[-1]
        t = time.perf_counter()
        cfg = self.cfg
        weights = export_policy(model)
        res = evaluate(weights, cfg.eval_pairs, cfg.eval_seed, cfg.workers,
                       variant=cfg.variant)
        entry = {"steps": steps, "seconds": round(self.wall_seconds(), 1), **res}
        self.history.append(entry)
        for opp, r in res.items():
            model.logger.record(f"eval/{opp}_mean", r["mean"])
            model.logger.record(f"eval/{opp}_ci_low", r["ci95"][0])
            model.logger.record(f"eval/{opp}_win_rate", r["win_rate"])
            model.logger.record(f"eval/{opp}_crack_rate", r["crack_rate"])
        h = res.get("heuristic")
        mark = ""
        if h is not None and (self.best is None or h["mean"] > self.best["mean"]):
            self.best = {"steps": steps, "mean": h["mean"], "ci95": h["ci95"]}
            self.best_weights = weights
            checkpoints.save_model(model, self.out / "best_model.zip")
            run_folder.write_atomic(self.out / "best_model.json",
                                    (json.dumps(self.best) + "\n").encode())
            mark = "  (new best)"
        run_folder.write_atomic(self.out / "eval_history.json",
                                json.dumps(self.history, indent=1).encode())
        self.timers["eval"] += time.perf_counter() - t
        self.log_evaluation(steps, cfg.eval_pairs, res, mark)
        return entry

    def log_evaluation(self, steps: int, pairs: int, res: dict, mark: str = "") -> None:
        """An evaluation's log line, after :data:`~.evaluation.LEGEND` the first time."""
        if not self._explained:
            self.log(LEGEND)
            self._explained = True
        self.log(f"[{steps}] eval ({pairs} pairs): {describe(res)}{mark}")

    def checkpoint(self, model) -> Path:
        t = time.perf_counter()
        path = checkpoints.save(self.out / "checkpoints", model,
                                self.state_dict(int(model.num_timesteps)),
                                keep=self.cfg.keep_checkpoints)
        self.timers["checkpoint"] += time.perf_counter() - t
        return path

    # --- timing and state ------------------------------------------------------------------------

    def budget_spent(self) -> bool:
        """Whether the run's ``--minutes`` (if any) are used up."""
        return self.cfg.minutes is not None and self.wall_seconds() >= 60 * self.cfg.minutes

    def wall_seconds(self) -> float:
        """Wall time of training so far, summed over resumed sessions."""
        return self._wall_before + time.perf_counter() - self._session_start

    def env_timing(self) -> tuple[float, int]:
        """Seconds spent inside the envs (summed over envs) and env steps, this session."""
        rows = self.vec_env.env_method("env_timing")
        return sum(r[0] for r in rows), sum(r[1] for r in rows)

    def state_dict(self, steps: int) -> dict:
        timers = dict(self.timers)
        timers["env"] = timers.pop("env_before", 0.0) + self.env_timing()[0]
        return {
            "version": 1, "steps": steps, "cfg": to_json(self.cfg), "pool": self.pool,
            "history": self.history, "best": self.best, "next_eval": self.next_eval,
            "next_ckpt": self.next_ckpt, "next_snapshot": self.next_snapshot,
            "timers": timers, "wall_seconds": self.wall_seconds(),
            "rng": {"python": random.getstate(), "numpy": np.random.get_state(),
                    "torch": torch.get_rng_state().numpy()},
        }

    def load_state_dict(self, state: dict) -> None:
        self.pool, self.history, self.best = state["pool"], state["history"], state["best"]
        self.next_eval, self.next_ckpt = state["next_eval"], state["next_ckpt"]
        self.next_snapshot = state["next_snapshot"]
        self.timers = defaultdict(float, state["timers"])
        self.timers["env_before"] = self.timers.pop("env", 0.0)
        self._wall_before = state["wall_seconds"]
        random.setstate(state["rng"]["python"])
        np.random.set_state(state["rng"]["numpy"])
        torch.set_rng_state(torch.from_numpy(np.array(state["rng"]["torch"], np.uint8)))
        if self.pool:
            self.vec_env.env_method("set_snapshots", [p["weights"] for p in self.pool])
        # best_model.json is written with best_model.zip, maybe after the checkpoint
        best_file = self.out / "best_model.json"
        if best_file.exists():
            on_disk = json.loads(best_file.read_text())
            if self.best is None or on_disk["mean"] > self.best["mean"]:
                self.best = on_disk


def files_written(folder) -> str:
    """The log's last line: the entries the run wrote in its folder (a
    :class:`~.run_folder.RunFolder`; its manifest's entries found there), folders with
    a ``/``."""
    names = [name + ("/" if (folder.out / name).is_dir() else "")
             for name in folder.owned() if not is_temporary(name)]
    return f"files written in {folder.out}: " + ", ".join(names)


class ProgressBar(ProgressBarCallback):
    """SB3's progress bar over the steps the session will train (whole rollouts, see
    :func:`.ppo.planned_steps`), so that it ends at its total; with a budget
    (``--minutes``: ``run`` and its ``seconds``) over the budget's seconds instead."""

    def __init__(self, planned: int, run: TrainingRun | None = None,
                 seconds: float | None = None):
        super().__init__()
        self.planned, self.run, self.seconds = planned, run, seconds

    def _on_training_start(self) -> None:
        from stable_baselines3.common import callbacks

        if self.seconds is None:
            self.pbar = callbacks.tqdm(total=self.planned)
            return
        self.pbar = callbacks.tqdm(total=round(self.seconds), unit="s",
                                   initial=min(round(self.run.wall_seconds()),
                                               round(self.seconds)))

    def _on_step(self) -> bool:
        if self.seconds is None:
            return super()._on_step()
        now = min(round(self.run.wall_seconds()), round(self.seconds))
        if now > self.pbar.n:
            self.pbar.update(now - self.pbar.n)
        return True


class RunCallback(BaseCallback):
    """Drives a :class:`TrainingRun`; logs training-episode game points per opponent and
    the rollout / train time split; gives torch ``--torch-threads`` threads during the
    gradient updates only."""

    def __init__(self, run: TrainingRun):
        super().__init__()
        self.run = run
        self._points = defaultdict(list)
        self._t_rollout = self._t_train = None
        self._over = False  # the --minutes budget is spent: the next step ends the run

    def _on_rollout_start(self) -> None:
        now = time.perf_counter()
        if self._t_train is not None:
            self.run.timers["train"] += now - self._t_train
        torch.set_num_threads(1)
        self.run.on_rollout_start(self.model)
        self._over = self.run.budget_spent()
        self._t_rollout = time.perf_counter()

    def _on_step(self) -> bool:
        if self._over:  # SB3 stops before this rollout trains (this step is not trained on)
            self.run.stopped_at = int(self.model.num_timesteps) - self.training_env.num_envs
            return False
        for info in self.locals["infos"]:
            opp = info.get("opponent")
            if opp is not None:
                self._points[opp].append(info["game_points"])
        return True

    def _on_rollout_end(self) -> None:
        torch.set_num_threads(self.run.cfg.torch_threads)  # for the gradient updates
        now = time.perf_counter()
        self.run.timers["rollout"] += now - self._t_rollout
        self._t_train = now
        for opp, pts in self._points.items():
            self.logger.record(f"train/points_vs_{opp}", float(np.mean(pts)))
        self._points.clear()

    def _on_training_end(self) -> None:
        torch.set_num_threads(1)
        if self._t_train is not None:
            self.run.timers["train"] += time.perf_counter() - self._t_train
            self._t_train = None
