"""League self-play on a simulated 3-node Ray cluster (``ray.cluster_utils.Cluster``): the
env runners spread over nodes, training goes on when a worker node is removed mid-run,
and a checkpoint written before the loss restores exactly. About 30 s on 2 cores (three
raylets, two env-runner processes and a restart)."""

from __future__ import annotations

import os
import time

import numpy as np
import pytest

pytest.importorskip("ray.rllib", reason="needs the [rllib] extra")

from ray.rllib.utils.numpy import convert_to_numpy  # noqa: E402

from widderkopf_env.agents.rllib_checkpoint import RLlibAgent  # noqa: E402
from widderkopf_env.train.rllib import cli as train  # noqa: E402
from widderkopf_env.train.rllib.cluster import (  # noqa: E402
    runner_niceness,
    runner_nodes,
    simulated_cluster,
)
from widderkopf_env.train.rllib.league import LeagueState, fill_league, learner_weights  # noqa: E402


def assert_same_weights(a: dict, b: dict) -> None:
    assert sorted(a) == sorted(b)
    for k in a:
        np.testing.assert_array_equal(a[k], b[k])


def wait_for_runners(algo, n: int, timeout: float = 1800.0) -> list[str]:
    """The runners' nodes once ``n`` are healthy (a restart starts a new process).
    The test waits for the restart, however long its process takes to start; ``timeout``
    only ends a hang."""
    deadline = time.monotonic() + timeout
    while True:
        algo.env_runner_group.probe_unhealthy_env_runners()
        nodes = runner_nodes(algo)
        if len(nodes) >= n or time.monotonic() > deadline:
            return nodes
        time.sleep(1.0)


def test_runners_spread_over_nodes_and_training_survives_losing_a_node(tmp_path):
    p = train.parser()
    args = p.parse_args(["--iterations", "1", "--num-env-runners", "2", "--iteration-steps", "128",
                         "--batch-size", "64", "--epochs", "1", "--net-arch", "32",
                         "--out", str(tmp_path)])
    with simulated_cluster(worker_nodes=2, cpus_per_node=1, head_cpus=1) as (cluster, workers):
        algo = train.build_config(args).build_algo()
        try:
            fill_league(algo, args.slots)
            nodes = runner_nodes(algo)
            assert len(nodes) == 2 and len(set(nodes)) == 2  # one CPU per node: spread
            # the runners run at no lower a priority than this process: Ray did not nice them
            niceness = runner_niceness(algo)
            assert len(niceness) == 2
            assert all(n <= os.getpriority(os.PRIO_PROCESS, 0) for n in niceness), niceness

            first = algo.train()
            league = LeagueState(slots=args.slots)
            ckpt = train.save(algo, league, tmp_path, algo.iteration)
            saved = convert_to_numpy(learner_weights(algo))
            sampled = first["env_runners"]["num_env_steps_sampled_lifetime"]

            victim = next(w for w in workers if w.node_id in nodes)
            cluster.remove_node(victim)
            for _ in range(2):  # the runner on the lost node fails; training goes on
                result = algo.train()
            assert algo.iteration == 3
            assert result["env_runners"]["num_env_steps_sampled_lifetime"] > sampled
            now = wait_for_runners(algo, 2)
            assert len(now) == 2 and victim.node_id not in now  # restarted elsewhere

            # the checkpoint from before the loss is whole: it restores and plays
            played = convert_to_numpy(RLlibAgent(ckpt).module.get_state())
            assert_same_weights(played, {k: saved[k] for k in played})  # no value net
            algo.restore_from_path(str(ckpt.resolve()))
            assert algo.iteration == 1
            assert_same_weights(convert_to_numpy(learner_weights(algo)), saved)
            algo.train()  # and training continues from it on the surviving nodes
            assert algo.iteration == 2
        finally:
            algo.stop()
