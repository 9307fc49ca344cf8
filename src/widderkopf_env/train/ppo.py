"""Train a MaskablePPO agent for Widderkopf (``widderkopf-train``).

    widderkopf-train --total-steps 5000000 --out runs/ppo            # vs the heuristic bot
    widderkopf-train --self-play --out runs/selfplay                  # bots + own snapshots
    widderkopf-train --out runs/ppo --resume                          # after a kill

The learner is sb3-contrib's ``MaskablePPO`` on the single-agent env
``gymnasium.make("Widderkopf-v0", opponent=..., seat="random")`` (one hand per episode;
it plays both seats). Opponents (see :mod:`.opponents`):

- ``--opponent heuristic`` (default) or ``random`` (any :func:`load_agent` spec);
- ``--self-play``: every ``--snapshot-every`` steps (once the learner may escalate, see
  ``--crack-after``) the current policy is added to a pool of at most ``--pool-size``
  snapshots (oldest dropped). Each episode's opponent is the
  heuristic bot with probability ``--heuristic-share``, the random bot with ``--random-share``,
  otherwise a snapshot drawn uniformly from the pool (sampling from its policy); while
  the pool is empty the bots share all episodes in proportion.
- ``--warmup-random N``: a curriculum: the first N steps against the random bot only.
- ``--crack-after N``: a curriculum: the learner may not escalate during the first N steps
  (it learns card play first; its escalation decision starts fresh afterwards).
- ``--init POLICY``: a warm start: the actor starts from the shipped ``ppo`` or ``net``
  policy or a ``widderkopf-distill`` .npz (PPO fine-tuning of a distilled network); the
  critic starts fresh, and ``--crack-after`` defaults to 0.

Every ``--eval-every`` steps the deterministic policy plays ``--eval-pairs`` duplicate
deal pairs against the heuristic and the random bot (fixed seed, so evaluations are
comparable); the best by mean game points vs the heuristic is kept as best_model.zip.
At the end, the final model is evaluated afresh on ``--final-eval-pairs`` pairs with
another seed (the unbiased figures), and so is the best model if it is another model
(if the final model is the best, it is evaluated once and ``best`` repeats ``final``).
Both pair counts default to a share of ``--total-steps`` (see :mod:`.config`), so a
short run evaluates briefly. Evaluations play the policy as it is: before
``--crack-after`` the learner was not allowed to escalate in training, but its (untrained)
escalation is played in evaluations. The output directory holds::

    config.json  tb/  checkpoints/  best_model.zip  final_model.zip  final_policy.npz
    eval_history.json  learning_curve.png  summary.json

(``final_policy.npz``: the final actor as numpy arrays, an agent without torch:
``widderkopf-eval runs/ppo/final_policy.npz heuristic``, or ``--init`` of another run.)

One process at a time owns the folder (:class:`.run_folder.RunFolder`: an OS lock; a
second ``widderkopf-train`` on it exits 2 naming the first; ``--force-restart`` deletes
only the run's own files and refuses a folder holding anything else). Everything is checked before the
first write: the settings, the folder (a new run never starts over another run's files
without ``--force-restart``), and the model and envs are built (a size that cannot be
allocated fails here). Any refusal is one line and exit status 2, with the folder as it
was; so is an I/O error during the run (a full disk).

``--resume`` goes on from the newest checkpoint in ``--out`` that verifies (see
:mod:`.checkpoints`; it names each newer one it skipped, and why). If none verifies it
stops (exit 2) rather than overwrite the run's outputs, unless ``--force-restart`` is
given (then the run starts again from step 0 with its settings). A ``--total-steps`` at
or below the newest checkpoint's step exits 2 (nothing to train), unless the run stopped
in its final evaluation: then ``--resume`` does that evaluation and writes summary.json. The run's settings
come from its config.json (checked key by key), except the run-control settings
(:data:`.config.RUN_CONTROL`), which may be given anew.

The defaults and what each setting means: :class:`.config.TrainConfig` (the docs' table
is :func:`.config.defaults_table`).
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import time
from dataclasses import dataclass, field
from pathlib import Path

from widderkopf_env.checks import MAX_STEPS
from widderkopf_env.cli import run_cli
from widderkopf_env.seeding import derive_seed

from . import run_folder
from .build import has_workers, make_vec_env, new_model, stop_workers
from .checkpoints import TrainingInterrupted
from .config import TrainConfig, build_parser, differences, parse_config, read_saved
from .config_file import save_config
from .run_folder import RunFolder, RunFolderError


def main(argv=None) -> int:
    """The console script: train, write summary.json and print it as the last line.
    Returns the exit status: 0; 2 for a usage error, a run folder that cannot be used
    (in use, damaged, holding another run) or an I/O error (one line on stderr); 130
    after Ctrl-C (see :func:`train_from_args` for the summary itself)."""
    parser = build_parser()

    def body():
        # a RunFolderError or an I/O error (a full disk): run_cli's one line, exit 2
        print(json.dumps(train(parse_config(argv, parser))))

    return run_cli(parser, body, on_interrupt=_stopped)


def _stopped(exc: KeyboardInterrupt) -> str:
    return str(exc) if isinstance(exc, TrainingInterrupted) else (
        "stopped before training started; nothing was written")


def train_from_args(argv=None) -> dict:
    """What ``widderkopf-train ARGS`` does, for Python callers: returns the summary
    (a bad argument raises ``SystemExit(2)`` as argparse does, a folder that cannot be
    used :class:`~.run_folder.RunFolderError`)."""
    return train(parse_config(argv))


@dataclass
class Session:
    """One call of :func:`train`: the run's settings and what it builds, step by step."""

    cfg: TrainConfig
    out: Path
    log: object
    t0: float = field(default_factory=time.perf_counter)
    found: tuple | None = None  # (model zip, state) of the checkpoint resumed from
    evaluate_only: bool = False  # trained to the end before: the final evaluation is due
    start: int = 0
    committed: bool = False  # config.json written: from here on, --resume works
    folder: RunFolder | None = None
    vec_env: object = None
    model: object = None
    run: object = None
    bar: object = None
    best_weights: dict | None = None  # of best_model.zip, when it was loaded at resume
    env_seconds: float | None = None  # inside the envs, over the whole run (once known)
    phases: dict = field(default_factory=dict)  # seconds of this session, per phase


def train(cfg: TrainConfig) -> dict:
    """Run (or resume) the training run ``cfg`` (from :func:`parse_config`); returns the
    summary that is also written to summary.json. Raises :class:`RunFolderError` (nothing
    written) when the folder cannot be used; Ctrl-C raises :class:`TrainingInterrupted`
    once config.json is written (a plain ``KeyboardInterrupt`` before)."""
    out = Path(cfg.out)
    log = (lambda *a, **k: None) if cfg.quiet else (lambda msg: print(msg, flush=True))
    s = Session(cfg, out, log)
    try:
        with RunFolder(out, "ppo") as s.folder:
            try:
                _prepare(s)
                _build(s)
                _commit(s)
                s.phases["setup"] = time.perf_counter() - s.t0
                if not s.evaluate_only:
                    _learn(s)
                _save_final(s)
                final, best = _final_evaluation(s)
                return _finish(s, final, best)
            except KeyboardInterrupt:
                if s.run is not None and s.env_seconds is None and not has_workers(s.vec_env):
                    s.env_seconds = _env_seconds(s.run)  # workers: left unknown (null)
                stop_workers(s.vec_env)
                if s.committed and s.run is not None:  # the summary, whenever a run ends
                    with contextlib.suppress(OSError):
                        _write_summary(s, None, None)
                raise
            finally:
                if s.vec_env is not None:  # its worker processes, on any exit
                    s.vec_env.close()
    except KeyboardInterrupt:
        if s.bar is not None and getattr(s.bar, "pbar", None) is not None:
            s.bar.pbar.close()
        if not s.committed:
            raise  # nothing written: nothing to resume
        from . import checkpoints

        steps = int(s.model.num_timesteps) if s.model is not None else s.start
        done = checkpoints.list_steps(out / "checkpoints")
        raise TrainingInterrupted(steps, done[-1] if done else None, cfg.out) from None


def _prepare(s: Session) -> None:
    """Check the folder under the lock (nothing written): a new run only where no run's
    files are (or with --force-restart); a resumed run's folder, config and checkpoint."""
    from . import checkpoints

    cfg, out = s.cfg, s.out
    if not cfg.resume:
        s.folder.check_fresh(cfg.force_restart)
        return
    run_folder.check_resume(out)
    saved = read_saved(out)
    changed = differences(saved, cfg)
    if changed:
        raise RunFolderError(f"--resume: {out / 'config.json'} changed since it was read "
                             f"({changed}); run the command again")
    s.found = checkpoints.resume_point(out, cfg, s.log)
    if s.found is None and s.folder.owned():
        s.folder.check_clear()  # --force-restart: only a run's entries are deleted
    elif s.found is not None:
        s.start = int(s.found[1]["steps"])
        s.evaluate_only = (cfg.total_steps <= s.start
                           and checkpoints.final_evaluation_due(out, s.start))
        if cfg.total_steps <= s.start and not s.evaluate_only:
            raise RunFolderError(
                f"--resume: the run in {out} is at step {s.start:,} already (its newest "
                f"checkpoint); nothing to train up to --total-steps {cfg.total_steps:,}: "
                f"give a larger --total-steps to train on")


def _build(s: Session) -> None:
    """The envs, the model (new, warm-started or from the checkpoint), the run's state
    and, on resume, the best model so far: every allocation and every load that can
    fail, before anything is written."""
    import torch

    from . import checkpoints
    from .callbacks import TrainingRun

    cfg, out = s.cfg, s.out
    torch.set_num_threads(1)
    env_seed = cfg.seed if s.found is None else derive_seed(cfg.seed, "resume", s.start)
    try:
        s.vec_env = make_vec_env(cfg, env_seed, s.start)
        s.model = _load_or_new(s, env_seed)
    except (MemoryError, RuntimeError, ValueError) as err:
        size = f"net {cfg.net_arch}, {cfg.n_envs} envs x {cfg.n_steps} steps"
        raise RunFolderError(f"cannot build this run's model and envs ({size}): "
                             f"{type(err).__name__}: {err}") from None
    s.run = TrainingRun(cfg, out, s.vec_env, s.log, started=s.t0)
    if s.found is not None:
        s.run.load_state_dict(s.found[1])
        s.best_weights = checkpoints.load_best(out)


def _load_or_new(s: Session, env_seed: int):
    from .algorithms import model_class
    from .selfplay import attach

    cfg = s.cfg
    if s.found is not None:
        zip_path = s.found[0]
        model = model_class(cfg)[0].load(zip_path, env=s.vec_env, device="cpu",
                                         custom_objects={"tensorboard_log": str(s.out / "tb")})
        attach(model, s.vec_env)
        s.vec_env.seed(env_seed)  # load() reseeded the envs with the run's first seed
        s.log(f"resuming from {zip_path.name} at step {s.start}")
        return model
    model = new_model(cfg, s.vec_env)
    if cfg.init:
        from widderkopf_env.agents.network_file import load_policy

        from .export import load_actor

        load_actor(model, load_policy(cfg.init))  # parse_config checked that it fits
        s.log(f"actor initialised from {cfg.init}")
    return model


def _commit(s: Session) -> None:
    """The first writes, once every check passed: --force-restart clears the old run,
    stale temporary files of a killed process go, config.json is written."""

    if s.cfg.force_restart and s.found is None and s.folder.owned():
        s.folder.clear()
    s.folder.remove_stale_temporaries()
    s.folder.commit()
    save_config(s.out, s.cfg)
    s.committed = True


def planned_steps(cfg: TrainConfig, start: int) -> int:
    """The steps this session trains: PPO learns in whole rollouts of n_steps x n_envs,
    so ``total_steps - start`` rounded up to the next whole rollout."""
    rollout = cfg.n_steps * cfg.n_envs
    return max(0, math.ceil((cfg.total_steps - start) / rollout) * rollout)


def _learn(s: Session) -> None:
    """PPO up to --total-steps (periodic snapshots, evaluations and checkpoints in the
    run's callback)."""
    from .callbacks import ProgressBar, RunCallback
    from .exploitability_curve import exploitability_curve

    cfg, model, run = s.cfg, s.model, s.run
    planned = planned_steps(cfg, s.start)
    if cfg.minutes is None:
        size = f"training {planned:,} steps"
    elif cfg.total_steps >= MAX_STEPS:
        size = f"training for {cfg.minutes:g} minutes of the run's wall time"
    else:
        size = f"training {planned:,} steps or for {cfg.minutes:g} minutes, whichever ends first"
    s.log(f"{size} (whole rollouts of {cfg.n_steps} x {cfg.n_envs} envs), net "
          f"{cfg.net_arch}, opponent {_opponents(cfg)} -> {s.out}")
    t = time.perf_counter()
    callbacks = [RunCallback(run)]
    curve = exploitability_curve(cfg, s.out, s.start)  # None unless asked for
    callbacks += [curve] if curve is not None else []
    if cfg.progress_bar and not cfg.quiet:
        budget = None if cfg.minutes is None else 60 * cfg.minutes
        s.bar = ProgressBar(planned, run, budget if cfg.total_steps >= MAX_STEPS else None)
        callbacks.append(s.bar)
    model.learn(cfg.total_steps - s.start, callback=callbacks, reset_num_timesteps=False,
                tb_log_name="ppo")
    if run.stopped_at is not None:  # the step SB3 took before it stopped was not trained on
        model.num_timesteps = run.stopped_at
    if curve is not None:
        curve.record(model)  # the final policy's point
    s.phases["learn"] = time.perf_counter() - t


def _opponents(cfg: TrainConfig) -> str:
    if cfg.self_play_symmetric:
        return "itself on both seats"
    return "self-play pool" if cfg.self_play else cfg.opponent


def _save_final(s: Session) -> None:
    """The last evaluation and checkpoint (each done once per step) and the final model
    files."""
    from widderkopf_env.agents.network_file import save_policy

    from . import checkpoints
    from .export import export_policy

    model, run, t = s.model, s.run, time.perf_counter()
    steps = int(model.num_timesteps)
    run.evaluate(model)  # no-op if the callback evaluated at this step
    if not s.evaluate_only:  # else the checkpoint at this step is the run's last
        model.logger.dump(steps)
        run.checkpoint(model)
    checkpoints.save_model(model, s.out / "final_model.zip")
    buf = io.BytesIO()
    save_policy(export_policy(model), buf)  # torch-free, an agent
    s.folder.write("final_policy.npz", buf.getvalue())
    s.env_seconds = _env_seconds(run)
    s.vec_env.close()
    s.phases["last_evaluation_and_saves"] = time.perf_counter() - t


def _env_seconds(run) -> float:
    """Seconds inside the envs over the whole run (earlier sessions' and this one's)."""
    return run.timers.get("env_before", 0.0) + run.env_timing()[0]


def _final_evaluation(s: Session) -> tuple[dict, dict | None]:
    """The final model (and the best model, if it is another one) on the final pairs."""
    from .evaluation import describe, evaluate
    from .export import export_policy

    cfg, run = s.cfg, s.run
    t = time.perf_counter()
    pairs, seed, workers = cfg.final_eval_pairs, cfg.final_eval_seed, cfg.workers
    s.log(f"final evaluation ({pairs} pairs, seed {seed})")
    final = evaluate(export_policy(s.model), pairs, seed, workers, variant=cfg.variant)
    s.log(f"final model: {describe(final)}")
    best = None
    if run.best is not None and run.best["steps"] == int(s.model.num_timesteps):
        best = final  # the same model: evaluated once
    elif run.best is not None:
        weights = run.best_weights or s.best_weights
        if weights is not None:
            best = evaluate(weights, pairs, seed, workers, variant=cfg.variant)
            s.log(f"best model (step {run.best['steps']}): {describe(best)}")
    steps = int(s.model.num_timesteps)
    if steps < cfg.crack_after:
        s.log(f"(the learner was not allowed to escalate in training before step "
              f"{cfg.crack_after:,}; evaluations play its untrained escalation)")
    s.phases["final_evaluation"] = time.perf_counter() - t
    return final, best


def _finish(s: Session, final: dict, best: dict | None) -> dict:
    """The learning curve and summary.json, then the list of the run's files in the log;
    returns the summary."""
    from .callbacks import files_written
    from .plots import plot_learning_curve

    cfg, run = s.cfg, s.run
    t = time.perf_counter()
    plot_learning_curve(run.history, s.out / "learning_curve.png",
                        title=f"MaskablePPO, net {cfg.net_arch}, "
                              f"opponent: {_opponents(cfg)}",
                        crack_after=cfg.crack_after)
    s.phases["plot"] = time.perf_counter() - t
    summary = _write_summary(s, final, best)
    s.log(files_written(s.folder))
    return summary


def _write_summary(s: Session, final: dict | None, best: dict | None) -> dict:
    """summary.json (``final`` None: the run stopped before its final evaluation)."""
    summary = _summary(s, final, best)
    s.folder.write("summary.json", (json.dumps(summary, indent=1) + "\n").encode())
    return summary


def _summary(s: Session, final: dict, best: dict | None) -> dict:
    cfg, run = s.cfg, s.run
    steps = int(s.model.num_timesteps)
    timers = run.timers
    ppo_seconds = timers.get("rollout", 0.0) + timers.get("train", 0.0)
    learn = s.phases.get("learn", 0.0)
    trained_now = steps - s.start
    return {
        "steps": steps,
        "steps_this_session": trained_now,
        # --minutes: the budget, and whether it (not --total-steps) ended the training
        "minutes": cfg.minutes,
        "stopped_by_budget": run.stopped_at is not None,
        "resumed_from": s.start if s.found is not None else None,
        # the whole run (every session): setup, training, evaluations, outputs
        "wall_seconds": round(run.wall_seconds(), 1),
        # this session, phase by phase (learn: periodic evaluations and checkpoints included)
        "phases": {k: round(v, 1) for k, v in s.phases.items()},
        "steps_per_second": round(trained_now / learn, 1) if learn > 0 else None,
        # rollouts and gradient updates only, over the whole run
        "ppo_steps_per_second": round(steps / ppo_seconds, 1) if ppo_seconds > 0 else None,
        # time inside the envs' reset/step (opponent included; summed over the envs) / the
        # time of rollouts and updates
        "env_share": (round(s.env_seconds / ppo_seconds, 3)
                      if ppo_seconds > 0 and s.env_seconds is not None else None),
        "time_split": {k: round(timers.get(k, 0.0), 1)
                       for k in ("rollout", "train", "eval", "checkpoint")},
        "env_seconds": None if s.env_seconds is None else round(s.env_seconds, 1),
        "n_envs": cfg.n_envs,
        "final": final,
        "best": best,
        "best_steps": run.best["steps"] if run.best else None,
        "best_is_final": run.best is not None and run.best["steps"] == steps,
        "final_eval_pairs": cfg.final_eval_pairs,
        "final_eval_seed": cfg.final_eval_seed,
        "final_eval_seconds": round(s.phases.get("final_evaluation", 0.0), 1),
        "evaluations": len(run.history),
        # training forbade escalation before this step; evaluations do not
        "crack_after": cfg.crack_after,
        "out": str(s.out),
    }


if __name__ == "__main__":
    raise SystemExit(main())
