"""The networks shipped with the package: ``load_agent("ppo")`` and ``load_agent("net")``.

``ppo_policy.npz`` holds the actor of a MaskablePPO model trained with
``widderkopf-train`` (docs/training.md, "PPO training", gives the run and its measured
strength); ``net_policy.npz`` a policy network and a card-value network (docs/bots.md,
"The distilled network"; docs/training.md gives the steps that made it). Both are network files
(:mod:`.network_file`) run as numpy forward passes, so playing them needs neither torch
nor stable-baselines3.
"""

from __future__ import annotations

from pathlib import Path

from .net_agent import NetAgent
from .network_file import load_net_agent, load_policy
from .numpy_net import PolicySnapshot

POLICY_FILE = Path(__file__).with_name("ppo_policy.npz")
NET_FILE = Path(__file__).with_name("net_policy.npz")
#: The shipped network files by bot name: what ``--init`` and ``--policy`` accept besides
#: a path.
SHIPPED_FILES = {"ppo": POLICY_FILE, "net": NET_FILE}


def shipped_ppo_agent(seed: int | None = None) -> PolicySnapshot:
    """The shipped policy as an Agent, playing its most probable legal action."""
    if not POLICY_FILE.exists():
        raise FileNotFoundError(f"the shipped policy {POLICY_FILE} is missing")
    return PolicySnapshot(load_policy(POLICY_FILE), deterministic=True, name="ppo", seed=seed)


def shipped_net_agent(seed: int | None = None) -> PolicySnapshot | NetAgent:
    """The shipped network (``load_agent("net")``): a policy network for trumps, discards
    and escalations and a card-value network for the cards, deterministic."""
    if not NET_FILE.exists():
        raise FileNotFoundError(f"the shipped network {NET_FILE} is missing")
    return load_net_agent(NET_FILE, seed=seed, name="net")
