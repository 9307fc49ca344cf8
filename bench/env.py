"""Environment speed: microseconds per decision through ``widderkopf_env.env()``.

Every env is driven by the same user loop: ``agent_iter()``, ``last()`` (which builds the
observation and the action mask), a random legal action read from the mask, ``step()``.
The time includes resets and the final ``step(None)`` calls; it is divided by the number
of decisions (non-terminal steps). PettingZoo's classic ``connect_four_v3`` and, when
rlcard is installed (``pip install rlcard``), its card env ``leduc_holdem_v4`` run
through the same loop in the same process, so their figures are comparable. Then the single-agent Gymnasium env's
steps per second against the random opponent.

    python bench/env.py [--games 200] [--repeats 3] [--full]

Each figure is the best of ``--repeats`` runs (the least disturbed by other processes).
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import time
import types
from pathlib import Path

from bench_args import parse


class _PygameStub(types.ModuleType):
    """Stands in for pygame in PettingZoo's classic envs, which import it at module top
    (and name ``pygame.Surface`` in annotations) but only use it to draw."""

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return _PygameStub(f"{self.__name__}.{name}")


def aec_us_per_decision(make, games: int, seed: int = 0) -> float:
    env = make()
    env.reset(seed=seed)
    rng = random.Random(seed)
    decisions = 0
    start = time.perf_counter()
    for _ in range(games):
        env.reset()
        for _agent in env.agent_iter():
            obs, reward, terminated, truncated, info = env.last()
            if terminated or truncated:
                action = None
            else:
                legal = obs["action_mask"].nonzero()[0]
                action = int(legal[rng.randrange(len(legal))])
                decisions += 1
            env.step(action)
    elapsed = time.perf_counter() - start
    env.close()
    return elapsed / decisions * 1e6


def pure_python_us(games: int, repeats: int) -> float:
    """The AEC figure on the pure-Python core: the same loop, best of ``repeats`` runs,
    in a child process with ``WIDDERKOPF_PURE_PYTHON=1`` (as where no C compiler built
    the core); nothing of the package is swapped in this process. The child checks that
    the core is off there."""
    code = ("import sys; sys.path.insert(0, sys.argv[1]); import env, widderkopf_env as w; "
            "from widderkopf_env import game_encoder; "
            "assert not game_encoder.ACCELERATED, 'the compiled core ran'; "
            "print(env.best(lambda: env.aec_us_per_decision(w.env, int(sys.argv[2])), "
            "int(sys.argv[3])))")
    done = subprocess.run([sys.executable, "-c", code, str(Path(__file__).resolve().parent),
                           str(games), str(repeats)], capture_output=True, text=True,
                          env={**os.environ, "WIDDERKOPF_PURE_PYTHON": "1"}, check=False)
    if done.returncode:
        raise RuntimeError(f"the pure-Python run failed: {done.stderr.strip()}")
    return float(done.stdout.split()[-1])


def gym_steps_per_second(steps: int, made: bool, seed: int = 0) -> float:
    """Learner steps per second against the random opponent (its moves included).

    ``made``: through ``gymnasium.make`` (with its default checker and order wrappers),
    else the bare class.
    """
    import gymnasium

    from widderkopf_env import WidderkopfEnv

    if made:
        env = gymnasium.make("Widderkopf-v0", opponent="random")
    else:
        env = WidderkopfEnv(opponent="random")
    masks = env.unwrapped.action_masks
    env.reset(seed=seed)
    rng = random.Random(seed)
    start = time.perf_counter()
    for _ in range(steps):
        legal = masks().nonzero()[0]
        obs, reward, terminated, truncated, info = env.step(int(legal[rng.randrange(len(legal))]))
        if terminated:
            env.reset()
    return steps / (time.perf_counter() - start)


def best(fn, repeats: int, lower_is_better: bool = True) -> float:
    runs = [fn() for _ in range(repeats)]
    return min(runs) if lower_is_better else max(runs)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=200, help="episodes per timed run")
    parser.add_argument("--repeats", type=int, default=3, help="timed runs; the best is shown")
    args = parse(parser, argv, games=400, repeats=5)

    import widderkopf_env
    from widderkopf_env import game_encoder

    rows = [("widderkopf_env.env()", widderkopf_env.env)]
    notes = []
    if game_encoder.ACCELERATED:
        rows.append(("  the same, pure Python", "pure"))
    else:
        notes.append("the C accelerator is not built or is disabled: widderkopf_env.env() "
                     "ran the pure-Python encoder")
    try:
        import pygame  # noqa: F401
    except ImportError:
        # the classic envs import pygame at module top but only use it to draw; a stub
        # lets them run headless without changing what is timed.
        sys.modules["pygame"] = _PygameStub("pygame")
        notes.append("pygame is not installed: the PettingZoo envs ran with a stub pygame "
                     "module (it is only used for drawing)")
    from pettingzoo.classic import connect_four_v3

    rows.append(("pettingzoo connect_four_v3", connect_four_v3.env))
    try:
        import rlcard  # noqa: F401
        from pettingzoo.classic import leduc_holdem_v4

        rows.append(("pettingzoo leduc_holdem_v4", leduc_holdem_v4.env))
    except ImportError:
        notes.append("leduc_holdem_v4 skipped: rlcard is not installed")

    print(f"AEC loop, {args.games} episodes per run, best of {args.repeats} runs:")
    ours = None
    for name, make in rows:
        if make == "pure":
            us = pure_python_us(args.games, args.repeats)
        else:
            us = best(lambda make=make: aec_us_per_decision(make, args.games), args.repeats)
        ours = us if ours is None else ours
        ratio = "" if us == ours else f"   ({us / ours:.1f}x ours)"
        print(f"  {name:<28} {us:7.2f} us/decision{ratio}")
    for note in notes:
        print(f"  note: {note}")

    steps = 40 * args.games
    print("Gymnasium WidderkopfEnv(opponent='random'), learner steps (opponent moves included):")
    for made, name in ((True, 'gymnasium.make("Widderkopf-v0")'), (False, "WidderkopfEnv(...)")):
        sps = best(lambda made=made: gym_steps_per_second(steps, made), args.repeats,
                   lower_is_better=False)
        print(f"  {name:<32} {sps:9,.0f} steps/s ({1e6 / sps:.2f} us/step)")


if __name__ == "__main__":
    main()
