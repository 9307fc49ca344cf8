"""The PPO policy shipped with the package: ``load_agent("ppo")``.

``ppo_policy.npz`` holds the actor of a MaskablePPO model trained with
``widderkopf-train`` (see README.md, "PPO training", for the run and its measured
strength). It runs as a numpy forward pass (:class:`~widderkopf_env.agents.netpolicy.PolicySnapshot`),
so playing it needs neither torch nor stable-baselines3. The file is plain arrays, read
with ``allow_pickle=False``: loading it runs no code.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from .netpolicy import PolicySnapshot

POLICY_FILE = Path(__file__).with_name("ppo_policy.npz")


def save_policy(weights: dict, path=POLICY_FILE) -> None:
    """Write exported actor weights (``train.snapshot.export_policy``) as a small .npz."""
    arrays = {}
    for i, (w, b) in enumerate(weights["layers"]):
        arrays[f"w{i}"], arrays[f"b{i}"] = w, b
    np.savez_compressed(path, activation=np.array(weights["activation"]),
                        canonical=np.array(bool(weights["canonical"])), **arrays)


def load_policy(path=POLICY_FILE) -> dict:
    """The weights dict that :class:`PolicySnapshot` takes, read from ``path``. Plain
    arrays only: a file holding pickled objects is refused (``allow_pickle=False``)."""
    with np.load(path, allow_pickle=False) as data:
        n = sum(1 for k in data.files if k.startswith("w"))
        layers = [(data[f"w{i}"], data[f"b{i}"]) for i in range(n)]
        return {"layers": layers, "activation": str(data["activation"]),
                "canonical": bool(data["canonical"])}


def shipped_ppo_agent(seed: int | None = None) -> PolicySnapshot:
    """The shipped policy as an Agent, playing its most probable legal action."""
    if not POLICY_FILE.exists():
        raise FileNotFoundError(f"the shipped policy {POLICY_FILE} is missing")
    return PolicySnapshot(load_policy(), deterministic=True, name="ppo", seed=seed)


NET_FILE = Path(__file__).with_name("net_policy.npz")


def shipped_net_agent(seed: int | None = None) -> PolicySnapshot:
    """The shipped network distilled from PIMC, fine-tuned by PPO and by self-play
    (``load_agent("net")``; README, "The distilled network"; ``train/net.sh`` rebuilds
    it), playing its most probable legal action."""
    if not NET_FILE.exists():
        raise FileNotFoundError(f"the shipped network {NET_FILE} is missing")
    return PolicySnapshot(load_policy(NET_FILE), deterministic=True, name="net", seed=seed)


def load_snapshot_agent(spec: str, seed: int | None = None) -> PolicySnapshot | None:
    """Loader for policy snapshot files: a path to an existing ``.npz`` written by
    :func:`save_policy` (``widderkopf-distill train``, the shipped files) is an agent
    playing its most probable legal action; any other spec is not ours (None)."""
    path = Path(spec)
    if path.suffix != ".npz" or not path.is_file():
        return None
    return PolicySnapshot(load_policy(path), deterministic=True, name=path.stem, seed=seed)
