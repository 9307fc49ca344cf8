"""RLlib scaling benchmark: env steps/s against the number of env runners (1, 2, 4) on a
simulated cluster (a head with no CPUs for runners and two worker nodes), the parallel
efficiency, the learner's own rate, and a projection for a real cluster.

    .venv/bin/python bench/rllib.py [--runners 1 2] [--steps 500] [--repeats 1] [--full]

Sampling rate: every runner samples ``--steps`` env steps with the league's modules at
once (``EnvRunner.sample``), timed in the driver; ``efficiency = rate(n) / (n * rate(1))``.
Learner rate: env steps per second of PPO update time in full training iterations
(RLlib's ``learner_update_timer``), with ``widderkopf-train-rllib``'s default settings. Writes JSON to stdout; the projection to stderr.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from bench_args import parse

from widderkopf_env.train.rllib import cli as train
from widderkopf_env.train.rllib.cluster import runner_nodes, simulated_cluster
from widderkopf_env.train.rllib.league import fill_league


def _sample(steps):
    def run(runner):
        return sum(len(episode) for episode in runner.sample(num_timesteps=steps))
    return run


def sampling_rate(algo, steps: int, repeats: int) -> float:
    """Best env steps/s over ``repeats`` rounds of parallel sampling on all runners."""
    group = algo.env_runner_group
    group.foreach_env_runner(_sample(50), local_env_runner=False)  # warm up
    best = 0.0
    for _ in range(repeats):
        t0 = time.perf_counter()
        done = group.foreach_env_runner(_sample(steps), local_env_runner=False)
        best = max(best, sum(done) / (time.perf_counter() - t0))
    return best


def learner_rate(algo, iterations: int = 2) -> float:
    """Env steps per second of PPO update time (``learner_update_timer``)."""
    rates = []
    for _ in range(iterations):
        result = algo.train()
        t = result["timers"]["learner_update_timer"]
        rates.append(algo.config.train_batch_size_per_learner / t)
    return max(rates)


def projection(rates: dict, learner: float, machines: int = 8, cores: int = 16) -> str:
    r1 = rates[1]
    runners = machines * cores - 2  # one core for the driver/learner process, one spare
    sample = runners * r1
    total = 1.0 / (1.0 / sample + 1.0 / learner)
    return (
        f"Projection for {machines} machines x {cores} cores ({runners} env runners): "
        f"sampling scales with the runners (each plays its own games; per iteration only "
        f"the policy weights go out and the episodes come back), so about {runners} x "
        f"{r1:.0f} = {sample:,.0f} env steps/s if one runner does {r1:.0f} steps/s as "
        f"here. PPO on RLlib is synchronous: one learner process updates while runners "
        f"wait, at {learner:,.0f} env steps/s of update time here, so an iteration takes "
        f"B/{sample:,.0f} + B/{learner:,.0f} s and the whole run gets about {total:,.0f} env "
        f"steps/s. The learner limits it: add learners (config.learners(num_learners=k), "
        f"data-parallel, GPUs) or fewer epochs before adding runners beyond about "
        f"{learner / r1:.0f}.")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--runners", type=int, nargs="+", default=[1, 2])
    p.add_argument("--steps", type=int, default=500)
    p.add_argument("--repeats", type=int, default=1)
    a = parse(p, argv, runners=[1, 2, 4], steps=1000, repeats=2)
    if 1 not in a.runners or min(a.runners) < 1:
        p.error("--runners must include 1 (the efficiency baseline) and be >= 1")
    per_node = max(1, -(-max(a.runners) // 2))
    out = {"runners": {}, "steps_per_runner": a.steps}
    with simulated_cluster(worker_nodes=2, cpus_per_node=per_node, head_cpus=0):
        for n in sorted(a.runners):
            args = train.parser().parse_args([  # the trainer's default PPO settings
                "--iterations", "1", "--num-env-runners", str(n)])
            algo = train.build_config(args).build_algo()
            try:
                fill_league(algo, args.slots)
                rate = sampling_rate(algo, a.steps, a.repeats)
                nodes = len(set(runner_nodes(algo)))
                entry = {"env_steps_per_s": round(rate, 1), "nodes": nodes}
                if n == 1:
                    out["learner_env_steps_per_s"] = round(learner_rate(algo), 1)
                out["runners"][n] = entry
                print(f"{n} runner(s) on {nodes} node(s): {rate:.0f} env steps/s",
                      file=sys.stderr)
            finally:
                algo.stop()
    rates = {n: e["env_steps_per_s"] for n, e in out["runners"].items()}
    for n, e in out["runners"].items():
        e["efficiency"] = round(rates[n] / (n * rates[1]), 3)
    out["projection"] = projection(rates, out["learner_env_steps_per_s"])
    print(json.dumps(out, indent=1))
    print(out["projection"], file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
