"""A simulated multi-node Ray cluster on one machine, for tests and benchmarks.

:func:`simulated_cluster` starts a head node and worker nodes with
``ray.cluster_utils.Cluster`` (each node is its own raylet with its own CPU count, so Ray
schedules across them as across machines) and connects this process to it.
:func:`runner_nodes` says on which node each remote env runner of an algorithm lives,
:func:`runner_niceness` at which niceness its process runs.
"""

from __future__ import annotations

import contextlib
import os

#: Ray's setting for the niceness of the worker processes its nodes start (15 by default)
_NICENESS = "RAY_worker_niceness"


@contextlib.contextmanager
def simulated_cluster(worker_nodes: int = 2, cpus_per_node: int = 1, head_cpus: int = 1):
    """Start a head and ``worker_nodes`` workers, ``ray.init`` to them; yields
    ``(cluster, workers)``; shuts everything down on exit.

    The nodes start their worker processes at the driver's priority. Ray nices them by
    default (``RAY_worker_niceness``), and here every node shares the same cores,
    so a restarted runner would wait behind all the other processes. The variable is set
    while the cluster lives and restored after."""
    import ray
    from ray.cluster_utils import Cluster

    if ray.is_initialized():
        raise RuntimeError("Ray is already initialised in this process; shut it down first")
    saved = os.environ.get(_NICENESS)
    os.environ[_NICENESS] = "0"
    try:
        cluster = Cluster(initialize_head=True, head_node_args={
            "num_cpus": head_cpus, "include_dashboard": False})
        try:
            workers = [cluster.add_node(num_cpus=cpus_per_node) for _ in range(worker_nodes)]
            cluster.wait_for_nodes()
            ray.init(address=cluster.address, log_to_driver=False)
            yield cluster, workers
        finally:
            ray.shutdown()
            cluster.shutdown()
    finally:
        if saved is None:
            os.environ.pop(_NICENESS, None)
        else:
            os.environ[_NICENESS] = saved


def _node_id(_runner) -> str:
    import ray

    return ray.get_runtime_context().get_node_id()


def runner_nodes(algo) -> list[str]:
    """The node id of every healthy remote env runner of ``algo``."""
    return algo.env_runner_group.foreach_env_runner(_node_id, local_env_runner=False)


def _niceness(_runner) -> int:
    return os.getpriority(os.PRIO_PROCESS, 0)


def runner_niceness(algo) -> list[int]:
    """The process niceness of every healthy remote env runner of ``algo``."""
    return algo.env_runner_group.foreach_env_runner(_niceness, local_env_runner=False)
