"""PPO training speed: steps per second and where the time goes, per vector-env setup.

    python bench/train.py [--steps N] [--net-arch 256,256] [--configs subproc:2 dummy:16:2 ...] [--full]

Runs ``widderkopf-train`` for ``--steps`` steps in each setup (``KIND:N_ENVS[:THREADS]``,
THREADS being torch's intra-op threads, default 1; no periodic evaluation, a tiny final
one) and prints a table: PPO steps/s (rollouts and updates), the env's share of that
time (seconds inside the envs' ``reset``/``step``, opponent moves included, summed over
the envs), and the split between collecting rollouts and the gradient updates. Timings
depend on what else runs on the machine.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from bench_args import parse

from widderkopf_env.train.ppo import parse_config, train


def run(kind: str, n_envs: int, threads: int, steps: int, net_arch: str, out: Path) -> dict:
    return train(parse_config([
        "--total-steps", str(steps), "--vec-env", kind, "--n-envs", str(n_envs),
        "--torch-threads", str(threads),
        "--net-arch", net_arch, "--eval-every", "0", "--checkpoint-every", "0",
        "--final-eval-pairs", "10", "--eval-pairs", "10", "--workers", "1",
        "--no-progress", "--quiet", "--out", str(out)]))


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--steps", type=int, default=20_000)
    p.add_argument("--net-arch", default="256,256")
    p.add_argument("--configs", nargs="+", default=["subproc:2", "dummy:2", "dummy:16"])
    args = parse(p, argv, steps=200_000)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for i, spec in enumerate(args.configs):
            kind, n, threads = (spec + ":1").split(":")[:3]
            s = run(kind, int(n), int(threads), args.steps, args.net_arch, Path(tmp) / str(i))
            rows.append((spec, s))
    print(f"\nMaskablePPO, net [{args.net_arch}], {args.steps} steps per setup")
    print(f"{'setup':<14} {'steps/s':>8} {'env share':>10} {'rollout s':>10} {'train s':>8}")
    for spec, s in rows:
        t = s["time_split"]
        print(f"{spec:<14} {s['ppo_steps_per_second']:>8.0f} {s['env_share']:>10.1%} "
              f"{t['rollout']:>10.1f} {t['train']:>8.1f}")


if __name__ == "__main__":
    main()
