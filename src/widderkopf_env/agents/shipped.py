"""The networks shipped with the package: ``load_agent("ppo")``, ``load_agent("ppo-v1")``,
``load_agent("net")``, ``load_agent("net-v2")`` and ``load_agent("net-v1")``.

``ppo_policy.npz`` holds the actor of a MaskablePPO model trained with
``widderkopf-train`` (docs/training.md, "PPO training", gives the run and its measured
strength); ``ppo_v1_policy.npz`` the ``ppo`` shipped before it (a shorter run of the
same training); ``net_policy.npz`` a policy network and a card-value network:
``net_v2_policy.npz``'s, its policy network fitted further to ``net-search``'s trump and
discard choices (docs/bots.md, "The search back into net"); ``net_v2_policy.npz`` the
``net`` shipped before it, the agent of a ``widderkopf-train --recipe net`` run
(docs/bots.md, "The distilled network"); ``net_v1_policy.npz`` the ``net`` shipped before
that, made by the longer pipeline that docs/training.md gives. All are network files
(:mod:`.network_file`) run as numpy forward passes, so playing them needs neither torch
nor stable-baselines3.
"""

from __future__ import annotations

from pathlib import Path

from .net_agent import NetAgent
from .network_file import load_net_agent, load_policy
from .numpy_net import PolicySnapshot

POLICY_FILE = Path(__file__).with_name("ppo_policy.npz")
POLICY_V1_FILE = Path(__file__).with_name("ppo_v1_policy.npz")
NET_FILE = Path(__file__).with_name("net_policy.npz")
NET_V2_FILE = Path(__file__).with_name("net_v2_policy.npz")
NET_V1_FILE = Path(__file__).with_name("net_v1_policy.npz")
#: The shipped network files by bot name: what ``--init`` and ``--policy`` accept besides
#: a path.
SHIPPED_FILES = {"ppo": POLICY_FILE, "ppo-v1": POLICY_V1_FILE, "net": NET_FILE,
                 "net-v2": NET_V2_FILE, "net-v1": NET_V1_FILE}


def shipped_ppo_agent(seed: int | None = None) -> PolicySnapshot:
    """The shipped policy as an Agent, playing its most probable legal action."""
    return _policy_agent(POLICY_FILE, "ppo", seed)


def shipped_ppo_v1_agent(seed: int | None = None) -> PolicySnapshot:
    """``load_agent("ppo-v1")``: the ``ppo`` shipped before the current one replaced it,
    playing its most probable legal action."""
    return _policy_agent(POLICY_V1_FILE, "ppo-v1", seed)


def _policy_agent(path: Path, name: str, seed: int | None) -> PolicySnapshot:
    if not path.exists():
        raise FileNotFoundError(f"the shipped policy {path} is missing")
    return PolicySnapshot(load_policy(path), deterministic=True, name=name, seed=seed)


def shipped_net_agent(seed: int | None = None) -> PolicySnapshot | NetAgent:
    """The shipped network (``load_agent("net")``): a policy network for trumps, discards
    and escalations and a card-value network for the cards, deterministic."""
    return _net_agent(NET_FILE, "net", seed)


def shipped_net_v2_agent(seed: int | None = None) -> PolicySnapshot | NetAgent:
    """``load_agent("net-v2")``: the ``net`` shipped before the search's choices were
    fitted into it (the ``net`` recipe's agent), deterministic; the network inside
    ``net-endgame``, ``net-search`` and ``net-search-fast``."""
    return _net_agent(NET_V2_FILE, "net-v2", seed)


def shipped_net_v1_agent(seed: int | None = None) -> PolicySnapshot | NetAgent:
    """``load_agent("net-v1")``: the ``net`` shipped before the recipe's agent
    (``net-v2``) replaced it (a PPO-trained policy network and a card-value network),
    deterministic."""
    return _net_agent(NET_V1_FILE, "net-v1", seed)


def _net_agent(path: Path, name: str, seed: int | None) -> PolicySnapshot | NetAgent:
    if not path.exists():
        raise FileNotFoundError(f"the shipped network {path} is missing")
    return load_net_agent(path, seed=seed, name=name)
