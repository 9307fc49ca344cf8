"""Vector env speed: microseconds per decision with observation and mask, N games at once.

The loop is the one a batched learner runs: read ``info["action_mask"]``, pick a random
legal action per game (numpy, in the loop and timed), ``step()``; episodes reset
themselves (same-step autoreset, timed too). Self-play (``opponent="self"``) returns
every decision of both seats; against an opponent (``--opponents``, default ``random``)
the learner's steps are counted and the opponent's moves are part of each step's cost:
``random`` is vectorised, a bot such as ``heuristic`` plays one game at a time.

When ``pgx`` is installed (``pip install pgx``; not a dependency), its ``leduc_holdem``
and ``sparrow_mahjong`` run in the same process the way pgx's own examples run them:
``jax.jit(jax.vmap(step))`` with observation and legal-action mask, random legal actions
drawn inside the jitted step, auto-reset; the time per game-step is comparable.

    python bench/vector.py [--sizes 1 64 1024 4096] [--seconds 0.5] [--repeats 2] [--full]
    python bench/vector.py --sizes 4096 --threads 1 2 --obs-dtype float32 uint8
    python bench/vector.py --sizes 64 256 --opponents heuristic
    python bench/vector.py --ppo 20000 [--ppo-envs 16]

The env runs with ``copy=False``, the documented fast path: ``step()`` rewrites the
observation and mask arrays in place instead of returning fresh ones (the default,
``copy=True``, adds one copy of each per step).

``step us`` is the time inside ``step()`` only (the action pick left out), per decision;
``wall us`` includes the harness's action pick. Self-play runs once per ``--threads``
count and ``--obs-dtype`` (the compact ``uint8`` observation).

``--ppo STEPS`` instead times sb3-contrib ``MaskablePPO`` (``MlpPolicy``, ``n_steps`` 128,
one torch thread) learning for STEPS steps against the random opponent, on the native
SB3 VecEnv and on ``DummyVecEnv`` over the single env, with the same number of envs.

Each figure is the best of ``--repeats`` runs (the least disturbed by other processes);
``cpu us`` is the process CPU time per decision, which other processes disturb less.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from bench_args import parse


def widderkopf(n: int, opponent: str, seconds: float, seed: int = 0, threads: int = 1,
               obs_dtype: str = "float32") -> tuple[float, float, float]:
    """(wall, cpu, inside step) microseconds per counted decision at batch size ``n``."""
    from widderkopf_env.vector import WidderkopfVectorEnv

    env = WidderkopfVectorEnv(n, opponent=opponent, num_threads=threads,
                              obs_dtype=np.dtype(obs_dtype), copy=False)  # the fast path
    obs, info = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    steps, inside = 0, 0.0
    for _ in range(3):  # warm up
        mask = info["action_mask"]
        obs, reward, term, trunc, info = env.step((rng.random(mask.shape) * mask).argmax(1))
    clock = time.perf_counter
    wall, cpu = clock(), time.process_time()
    while clock() - wall < seconds or steps < 5:
        mask = info["action_mask"]
        actions = (rng.random(mask.shape) * mask).argmax(1)
        start = clock()
        obs, reward, term, trunc, info = env.step(actions)
        inside += clock() - start
        steps += 1
    wall, cpu = clock() - wall, time.process_time() - cpu
    env.close()
    per = 1e6 / (steps * n)
    return wall * per, cpu * per, inside * per


def pgx_env(name: str, n: int, seconds: float, repeats: int,
            seed: int = 0) -> tuple[float, float]:
    """(wall, cpu) microseconds per game-step of a pgx env at batch size ``n``: the best
    of ``repeats`` timed runs after one compilation."""
    import jax
    import jax.numpy as jnp
    import pgx
    from pgx.experimental import auto_reset

    env = pgx.make(name)

    @jax.jit
    def step(state, key):
        k1, k2 = jax.random.split(key)
        logits = jnp.where(state.legal_action_mask, 0.0, -jnp.inf)
        action = jax.random.categorical(k1, logits, axis=-1)
        keys = jax.random.split(k2, n)
        return jax.vmap(auto_reset(env.step, env.init))(state, action, keys)

    key = jax.random.PRNGKey(seed)
    state = jax.jit(jax.vmap(env.init))(jax.random.split(key, n))
    for _ in range(3):  # compile and warm up
        key, sub = jax.random.split(key)
        state = step(state, sub)
    state.observation.block_until_ready()
    best = None
    for _ in range(repeats):
        steps = 0
        wall, cpu = time.perf_counter(), time.process_time()
        while time.perf_counter() - wall < seconds or steps < 5:
            key, sub = jax.random.split(key)
            state = step(state, sub)
            steps += 1
        state.observation.block_until_ready()
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        per = 1e6 / (steps * n)
        run = wall * per, cpu * per, wall * per  # random action and reset inside its step
        best = run if best is None or run[0] < best[0] else best
    return best


def ppo_steps_per_second(native: bool, n_envs: int, steps: int) -> float:
    import gymnasium
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.logger import Logger
    from stable_baselines3.common.vec_env import DummyVecEnv

    import widderkopf_env  # noqa: F401  (registers Widderkopf-v0)
    from widderkopf_env.vector.sb3 import WidderkopfSB3VecEnv

    torch.set_num_threads(1)
    if native:
        env = WidderkopfSB3VecEnv(n_envs, opponent="random")
    else:
        env = DummyVecEnv([lambda: gymnasium.make("Widderkopf-v0", opponent="random",
                                                  disable_env_checker=True)] * n_envs)
    model = MaskablePPO("MlpPolicy", env, n_steps=128, batch_size=1024, seed=0, device="cpu")
    model.set_logger(Logger(folder=None, output_formats=[]))  # SB3's default makes a temp folder
    start = time.perf_counter()
    model.learn(steps)
    return model.num_timesteps / (time.perf_counter() - start)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1, 64, 1024, 4096])
    parser.add_argument("--seconds", type=float, default=0.5)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--ppo", type=int, default=0, metavar="STEPS",
                        help="time MaskablePPO instead (native VecEnv vs DummyVecEnv)")
    parser.add_argument("--ppo-envs", type=int, default=16)
    parser.add_argument("--threads", type=int, nargs="+", default=[1],
                        help="self-play with each of these num_threads")
    parser.add_argument("--obs-dtype", nargs="+", default=["float32"],
                        choices=["float32", "uint8"], help="self-play with each dtype")
    parser.add_argument("--opponents", nargs="+", default=["random"],
                        help="a learner's row against each of these opponents: 'random' "
                             "(vectorised) or a bot name such as 'heuristic'")
    args = parse(parser, argv, seconds=2.0, repeats=3)
    if args.ppo < 0 or args.ppo_envs < 1:
        parser.error("--ppo must be >= 0 and --ppo-envs >= 1")
    if args.ppo:
        for native in (True, False):
            rate = ppo_steps_per_second(native, args.ppo_envs, args.ppo)
            label = "native SB3 VecEnv" if native else "DummyVecEnv (single env)"
            print(f"MaskablePPO, {args.ppo_envs} envs, {label:26} {rate:>9,.0f} steps/s",
                  flush=True)
        return
    if any(n < 1 for n in args.sizes + args.threads) or args.seconds <= 0 or args.repeats < 1:
        parser.error("sizes, --threads and --repeats must be >= 1, --seconds > 0")
    try:
        import pgx  # noqa: F401
        peers = ["leduc_holdem", "sparrow_mahjong"]
    except ImportError:
        peers = []
        print("pgx is not installed: no comparison (pip install pgx)")
    print(f"{'env':40} {'N':>6} {'wall us/decision':>17} {'step us':>8} {'cpu us':>8} "
          f"{'decisions/s':>12}")
    def best_of(fn):
        return lambda n: min((fn(n) for _ in range(args.repeats)), key=lambda r: r[0])

    runs = [(f"widderkopf self-play {dtype} {t}T",
             best_of(lambda n, dtype=dtype, t=t: widderkopf(n, "self", args.seconds, threads=t,
                                                            obs_dtype=dtype)))
            for dtype in args.obs_dtype for t in args.threads]
    runs += [(f"widderkopf vs {who} (learner)",
              best_of(lambda n, who=who: widderkopf(n, who, args.seconds)))
             for who in args.opponents]
    runs += [(f"pgx {name}", lambda n, name=name: pgx_env(name, n, args.seconds, args.repeats))
             for name in peers]
    for label, fn in runs:
        for n in args.sizes:
            best = fn(n)
            print(f"{label:40} {n:>6} {best[0]:>17.3f} {best[2]:>8.3f} {best[1]:>8.3f} "
                  f"{1e6 / best[0]:>12,.0f}", flush=True)


if __name__ == "__main__":
    main()
