"""What a run builds from its settings (a :class:`~.config.TrainConfig`): its training
envs and its PPO (or MMD) model, for :mod:`.ppo` and :mod:`.exploit`.

- :func:`make_vec_env`: the single-agent env in one process (``--vec-env dummy``), one
  process per env (``subproc``), the batched engine (``native``, :mod:`.batched_vec_env`)
  or both seats of one policy (``--self-play-symmetric``, :mod:`.selfplay`);
- :func:`new_model`: the model of the run's network and PPO settings;
- :func:`stop_workers`: the subproc workers ended after a Ctrl-C.
"""

from __future__ import annotations

from pathlib import Path

from .config import TrainConfig


def make_env(cfg: TrainConfig, rank: int, seed: int, steps: int = 0):
    """A factory for env ``rank``: the single-agent env inside a TrainingWrapper, its
    opponents drawn as due at ``steps``."""
    def factory():
        import gymnasium

        import widderkopf_env  # noqa: F401  (registers Widderkopf-v0)

        from .opponents import OpponentPool, TrainingWrapper, opponent_mix

        pool = OpponentPool(opponent_mix(cfg, steps))
        env = gymnasium.make("Widderkopf-v0", opponent=pool, seat="random",
                             reward_shaping=cfg.reward_shaping, variant=cfg.variant,
                             disable_env_checker=True)
        return TrainingWrapper(env, pool, cfg.reward_scale, seed=seed + rank)
    return factory


def make_vec_env(cfg: TrainConfig, seed: int, steps: int = 0):
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

    if cfg.self_play_symmetric:  # one policy on both seats (train/selfplay.py)
        from .selfplay import SymmetricSelfPlayVecEnv

        return SymmetricSelfPlayVecEnv(cfg, seed)
    if cfg.vec_env == "native":  # the batched engine (train/batched_vec_env.py)
        from .batched_vec_env import NativeTrainingVecEnv

        return NativeTrainingVecEnv(cfg, seed, steps)
    fns = [make_env(cfg, i, seed, steps) for i in range(cfg.n_envs)]
    if cfg.vec_env == "subproc" and len(fns) > 1:
        return SubprocVecEnv(fns, start_method="fork")
    return DummyVecEnv(fns)


def has_workers(vec_env) -> bool:
    """Whether ``vec_env`` steps its envs in worker processes that are still open (after
    a Ctrl-C they must not be asked anything: see :func:`stop_workers`)."""
    inner = _innermost(vec_env)
    return bool(getattr(inner, "processes", None)) and not getattr(inner, "closed", True)


def _innermost(vec_env):
    """The env under SB3's VecEnv wrappers (a wrapper's ``unwrapped``)."""
    return getattr(vec_env, "unwrapped", vec_env)


def stop_workers(vec_env) -> None:
    """End ``vec_env``'s worker processes without talking to them, after a Ctrl-C.

    The interrupt may have landed inside a step, after some workers' answers were read and
    before the others were: a polite ``close()`` then waits for answers that never come
    (or a question gets the step's answer). SIGTERM ends each worker; the env is marked
    closed, so a later ``close()`` does nothing.
    """
    if not has_workers(vec_env):
        return
    inner = _innermost(vec_env)
    processes = inner.processes
    for process in processes:
        process.terminate()
    for process in processes:
        process.join(timeout=10)
    for remote in inner.remotes:
        remote.close()
    inner.closed = True


def _schedule(cfg: TrainConfig):
    lr = cfg.lr
    if cfg.lr_schedule == "constant":
        return lr
    return lambda progress_remaining: lr * (0.1 + 0.9 * progress_remaining)


def new_model(cfg: TrainConfig, env):
    import torch

    from .algorithms import model_class
    from .selfplay import attach
    from .torch_policy import CanonicalPolicy

    activation = {"relu": torch.nn.ReLU, "tanh": torch.nn.Tanh}[cfg.activation]
    policy_kwargs = {"net_arch": cfg.net_arch, "activation_fn": activation}
    policy = CanonicalPolicy if cfg.policy_class == "canonical" else "MlpPolicy"
    n_steps = cfg.n_steps
    batch = min(cfg.batch_size, n_steps * cfg.n_envs)
    cls, extra = model_class(cfg)
    model = cls(
        policy, env, learning_rate=_schedule(cfg), n_steps=n_steps, batch_size=batch,
        n_epochs=cfg.epochs, gamma=cfg.gamma, gae_lambda=cfg.gae_lambda,
        clip_range=cfg.clip_range, ent_coef=cfg.ent_coef, vf_coef=cfg.vf_coef,
        max_grad_norm=cfg.max_grad_norm, policy_kwargs=policy_kwargs,
        tensorboard_log=str(Path(cfg.out) / "tb"), seed=cfg.seed, device="cpu",
        verbose=0, **extra)
    attach(model, env)
    return model
