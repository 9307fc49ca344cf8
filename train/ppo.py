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
  heuristic bot with probability ``--p-heuristic``, the random bot with ``--p-random``,
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
At the end, the final and the best model are evaluated afresh on ``--final-eval-pairs``
pairs with another seed (the unbiased figures). The output directory holds::

    config.json  tb/  checkpoints/  best_model.zip  final_model.zip  final_policy.npz
    eval_history.json  learning_curve.png  summary.json

(``final_policy.npz``: the final actor as numpy arrays, an agent without torch:
``widderkopf-eval runs/ppo/final_policy.npz heuristic``, or ``--init`` of another run.)

Why the defaults (from short runs on 2 CPU cores, see ``bench/train.py``):

- ``--policy canonical`` (:mod:`.policies`): the network sees the cards in trump-relative
  order and asks "escalate?" as a yes/no of its own. After 1M steps it scored -0.24 per
  hand against the heuristic where SB3's plain ``MlpPolicy`` scored -0.65.
- ``--crack-after 500000``: a plain learner stops escalating for good early on (its
  escalate probability fell to ~1e-8 while cracking still lost), and an agent that never
  cracks cannot beat one that cracks its good hands. Card play first, escalation after.
- 16 envs in one process (``--vec-env dummy``): the env takes only ~16% of the time, so
  per-step inter-process traffic costs more than the second core gives: ~3,800 steps/s
  against ~1,100 for ``SubprocVecEnv`` over 2 envs. ``--torch-threads 2`` gave +20% on an
  idle machine but made the updates 10x slower while another process held a core.
- rewards: game points x 0.25 (values up to 64 would otherwise dominate the clipped
  gradient) plus the env's card-point shaping; ``gamma`` 1 (one hand is ~19 decisions);
  ``--lr`` 1e-3 decaying linearly to 1e-4.

``--resume`` goes on from the newest checkpoint in ``--out`` that verifies (see
:mod:`.checkpoints`; it names each newer one it skipped, and why). If none verifies it
stops (exit 2) rather than overwrite the run's outputs, unless ``--force-restart`` is
given (then the run starts again from step 0). The run's settings come from its
config.json, except the run-control flags ``--total-steps``, ``--n-envs``, ``--vec-env``,
``--eval-*``, ``--checkpoint-every``, ``--keep-checkpoints``, ``--torch-threads``,
``--no-progress-bar`` and ``--force-restart``, which may be given anew.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from widderkopf_env.agents.arena import derive_seed
from widderkopf_env.cli import UsageError, run_cli

from .checkpoints import TrainingInterrupted
from .config import NET_SIZES, RUN_CONTROL, build_parser, parse_config  # noqa: F401 (public)


def make_env(cfg: dict, rank: int, seed: int, steps: int = 0):
    """A factory for env ``rank``: the single-agent env inside a TrainingWrapper, its
    opponents drawn as due at ``steps``."""
    def factory():
        import gymnasium

        import widderkopf_env  # noqa: F401  (registers Widderkopf-v0)

        from .opponents import OpponentPool, TrainingWrapper, opponent_mix

        pool = OpponentPool(opponent_mix(cfg, steps))
        env = gymnasium.make("Widderkopf-v0", opponent=pool, seat="random",
                             reward_shaping=cfg["reward_shaping"], disable_env_checker=True)
        return TrainingWrapper(env, pool, cfg["reward_scale"], seed=seed + rank)
    return factory


def make_vec_env(cfg: dict, seed: int, steps: int = 0):
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

    if cfg["vec_env"] == "native":  # the batched engine (train/batched_vec_env.py)
        from .batched_vec_env import NativeTrainingVecEnv

        return NativeTrainingVecEnv(cfg, seed)
    fns = [make_env(cfg, i, seed, steps) for i in range(cfg["n_envs"])]
    if cfg["vec_env"] == "subproc" and len(fns) > 1:
        return SubprocVecEnv(fns, start_method="fork")
    return DummyVecEnv(fns)


def _schedule(cfg: dict):
    lr = cfg["lr"]
    if cfg["lr_schedule"] == "constant":
        return lr
    return lambda progress_remaining: lr * (0.1 + 0.9 * progress_remaining)


def new_model(cfg: dict, env):
    import torch
    from sb3_contrib import MaskablePPO

    from .torch_policy import CanonicalPolicy

    activation = {"relu": torch.nn.ReLU, "tanh": torch.nn.Tanh}[cfg["activation"]]
    policy_kwargs = {"net_arch": cfg["net_arch"], "activation_fn": activation}
    policy = CanonicalPolicy if cfg["policy"] == "canonical" else "MlpPolicy"
    n_steps = cfg["n_steps"]
    batch = min(cfg["batch_size"], n_steps * cfg["n_envs"])
    return MaskablePPO(
        policy, env, learning_rate=_schedule(cfg), n_steps=n_steps, batch_size=batch,
        n_epochs=cfg["n_epochs"], gamma=cfg["gamma"], gae_lambda=cfg["gae_lambda"],
        clip_range=cfg["clip_range"], ent_coef=cfg["ent_coef"], vf_coef=cfg["vf_coef"],
        max_grad_norm=cfg["max_grad_norm"], policy_kwargs=policy_kwargs,
        tensorboard_log=str(Path(cfg["out"]) / "tb"), seed=cfg["seed"], device="cpu",
        verbose=0)


def main(argv=None) -> int:
    """The console script: train, write summary.json and print it as the last line.
    Returns the exit status: 0, 2 for a usage error, 130 after Ctrl-C (see
    :func:`train_from_args` for the summary itself)."""
    parser = build_parser()

    def body():
        from .checkpoints import NothingToResume

        cfg = parse_config(argv, parser)
        try:
            summary = train(cfg)
        except NothingToResume as err:
            raise UsageError(str(err)) from None
        print(json.dumps(summary))

    return run_cli(parser, body, on_interrupt=_stopped)


def _stopped(exc: KeyboardInterrupt) -> str:
    return str(exc) if isinstance(exc, TrainingInterrupted) else (
        "stopped before training started; nothing was written")


def train_from_args(argv=None) -> dict:
    """What ``widderkopf-train ARGS`` does, for Python callers: returns the summary
    (a bad argument raises ``SystemExit(2)`` as argparse does)."""
    return train(parse_config(argv))


def train(cfg: dict) -> dict:
    """Run (or resume) the training run ``cfg`` (from :func:`parse_config`); returns the
    summary that is also written to summary.json. Ctrl-C raises
    :class:`TrainingInterrupted` (after closing the progress bar)."""
    live: dict = {}  # the model and the progress bar, once made
    try:
        return _train(cfg, live)
    except KeyboardInterrupt:
        from . import checkpoints

        bar = getattr(live.get("bar"), "pbar", None)
        if bar is not None:
            bar.close()
        if not (Path(cfg["out"]) / "config.json").exists():
            raise  # nothing written yet: nothing to resume
        model = live.get("model")
        steps = int(model.num_timesteps) if model is not None else live.get("start", 0)
        done = checkpoints.list_steps(Path(cfg["out"]) / "checkpoints")
        raise TrainingInterrupted(steps, done[-1] if done else None, cfg["out"]) from None


def _train(cfg: dict, live: dict) -> dict:
    out = Path(cfg["out"])
    log = (lambda *a, **k: None) if cfg["quiet"] else (lambda msg: print(msg, flush=True))

    import torch
    from sb3_contrib import MaskablePPO

    from widderkopf_env.agents.shipped import save_policy

    from . import checkpoints
    from .callbacks import RunCallback, TrainingRun
    from .evaluation import describe, evaluate, plot_learning_curve
    from .export import export_policy

    torch.set_num_threads(1)
    found = checkpoints.resume_point(out, cfg, log) if cfg["resume"] else None
    start_steps = live["start"] = 0 if found is None else int(found[1]["steps"])
    env_seed = cfg["seed"] if found is None else derive_seed(cfg["seed"], "resume", start_steps)
    if found is None:  # the first thing written: from here on, --resume works
        out.mkdir(parents=True, exist_ok=True)
        checkpoints.save_config(out, cfg)
    vec_env = make_vec_env(cfg, env_seed, start_steps)
    run = TrainingRun(cfg, out, vec_env, log)
    if found is None:
        model = new_model(cfg, vec_env)
        if cfg.get("init"):
            from widderkopf_env.agents.shipped import load_policy

            from .export import load_actor

            load_actor(model, load_policy(cfg["init"]))  # _init_file checked that it fits
            log(f"actor initialised from {cfg['init']}")
    else:
        zip_path, state = found
        model = MaskablePPO.load(zip_path, env=vec_env, device="cpu",
                                 custom_objects={"tensorboard_log": str(out / "tb")})
        vec_env.seed(env_seed)  # load() reseeded the envs with the run's first seed
        run.load_state_dict(state)
        log(f"resuming from {zip_path.name} at step {start_steps}")
        cfg_file = dict(json.loads((out / "config.json").read_text()))
        cfg_file.update({k: cfg[k] for k in RUN_CONTROL if k in cfg})
        checkpoints.save_config(out, cfg_file)
    live["model"] = model
    log(f"training {cfg['total_steps'] - start_steps} steps ({cfg['n_envs']} envs, "
        f"net {cfg['net_arch']}, opponent "
        f"{'self-play pool' if cfg['self_play'] else cfg['opponent']}) -> {out}")

    remaining = cfg["total_steps"] - start_steps
    t_learn = time.perf_counter()
    if remaining > 0:
        callbacks = [RunCallback(run)]
        if cfg["progress_bar"]:  # SB3's own bar, kept here to close it after Ctrl-C
            from stable_baselines3.common.callbacks import ProgressBarCallback

            callbacks.append(live.setdefault("bar", ProgressBarCallback()))
        model.learn(remaining, callback=callbacks, reset_num_timesteps=False,
                    tb_log_name="ppo")
    learn_seconds = time.perf_counter() - t_learn
    steps = int(model.num_timesteps)
    if not run.history or run.history[-1]["steps"] != steps:
        run.evaluate(model)
        model.logger.dump(steps)
    run.checkpoint(model)
    checkpoints.save_model(model, out / "final_model.zip")
    save_policy(export_policy(model), out / "final_policy.npz")  # torch-free, an agent
    env_seconds = run.timers.get("env_before", 0.0) + run.env_timing()[0]
    wall = run.wall_seconds()
    trained_now = steps - start_steps
    vec_env.close()

    log(f"final evaluation ({cfg['final_eval_pairs']} pairs, seed {cfg['final_eval_seed']})")
    t = time.perf_counter()
    final = evaluate(export_policy(model), cfg["final_eval_pairs"], cfg["final_eval_seed"],
                     cfg["eval_workers"])
    best_path = out / "best_model.zip"
    best = None
    if best_path.exists():
        best_model = MaskablePPO.load(best_path, device="cpu")
        best = evaluate(export_policy(best_model), cfg["final_eval_pairs"],
                        cfg["final_eval_seed"], cfg["eval_workers"])
    final_eval_seconds = time.perf_counter() - t
    log(f"final model: {describe(final)}")
    if best is not None:
        log(f"best model (step {run.best['steps']}): {describe(best)}")
    plot_learning_curve(run.history, out / "learning_curve.png",
                        title=f"MaskablePPO, net {cfg['net_arch']}, "
                              f"{'self-play' if cfg['self_play'] else 'vs ' + cfg['opponent']}",
                        crack_after=cfg["crack_after"])

    timers = run.timers
    ppo_seconds = timers.get("rollout", 0.0) + timers.get("train", 0.0)
    summary = {
        "steps": steps,
        "steps_this_session": trained_now,
        "resumed_from": start_steps if found is not None else None,
        "wall_seconds": round(wall, 1),
        # over learn() this session, periodic evaluations and checkpoints included
        "steps_per_second": round(trained_now / learn_seconds, 1) if learn_seconds > 0 else None,
        # rollouts and gradient updates only, over the whole run
        "ppo_steps_per_second": round(steps / ppo_seconds, 1) if ppo_seconds > 0 else None,
        # time inside the envs' reset/step (opponent included; summed over the envs) / the
        # time of rollouts and updates
        "env_share": round(env_seconds / ppo_seconds, 3) if ppo_seconds > 0 else None,
        "time_split": {k: round(timers.get(k, 0.0), 1)
                       for k in ("rollout", "train", "eval", "checkpoint")},
        "env_seconds": round(env_seconds, 1),
        "n_envs": cfg["n_envs"],
        "final": final,
        "best": best,
        "best_steps": run.best["steps"] if run.best else None,
        "final_eval_pairs": cfg["final_eval_pairs"],
        "final_eval_seed": cfg["final_eval_seed"],
        "final_eval_seconds": round(final_eval_seconds, 1),
        "evaluations": len(run.history),
        "out": str(out),
    }
    (out / "summary.json").write_text(json.dumps(summary, indent=1) + "\n")
    return summary


if __name__ == "__main__":
    raise SystemExit(main())
