"""The PPO policy shipped with the package: ``load_agent("ppo")``.

``ppo_policy.npz`` holds the actor of a MaskablePPO model trained with
``widderkopf-train`` (see README.md, "PPO training", for the run and its measured
strength). It runs as a numpy forward pass (:class:`~widderkopf_env.agents.numpy_net.PolicySnapshot`),
so playing it needs neither torch nor stable-baselines3. The file is plain arrays, read
with ``allow_pickle=False``: loading it runs no code.
"""

from __future__ import annotations

import zipfile
from pathlib import Path

import numpy as np

from .net_agent import CardValues, NetAgent, load_values, save_values
from .numpy_net import PolicySnapshot, check_policy_weights

POLICY_FILE = Path(__file__).with_name("ppo_policy.npz")


def policy_arrays(weights: dict) -> dict:
    """The arrays of a policy file for exported actor weights."""
    arrays = {"activation": np.array(weights["activation"]),
              "canonical": np.array(bool(weights["canonical"]))}
    for i, (w, b) in enumerate(weights["layers"]):
        arrays[f"w{i}"], arrays[f"b{i}"] = w, b
    return arrays


def save_policy(weights: dict, path=POLICY_FILE, values=None) -> None:
    """Write exported actor weights (``train.snapshot.export_policy``) as a small .npz;
    with ``values = (layers, tricks)``, a card-value network too (:mod:`.valuenet`)."""
    arrays = policy_arrays(weights)
    if values is not None:
        arrays = save_values(arrays, *values)
    np.savez_compressed(path, **arrays)


def load_policy(path=POLICY_FILE) -> dict:
    """The weights dict that :class:`PolicySnapshot` takes, read from ``path``. Plain
    arrays only: a file holding pickled objects is refused (``allow_pickle=False``)."""
    try:
        if not zipfile.is_zipfile(path):
            raise ValueError("not a .npz archive")
        with np.load(path, allow_pickle=False) as data:
            missing = sorted({"w0", "b0", "activation", "canonical"} - set(data.files))
            if missing:
                raise ValueError(f"no array {', '.join(missing)} (a network file holds w0, "
                                 "b0, w1, ..., activation, canonical)")
            n = sum(1 for k in data.files if k.startswith("w"))
            layers = [(data[f"w{i}"], data[f"b{i}"]) for i in range(n)]
            weights = {"layers": layers, "activation": str(data["activation"]),
                       "canonical": bool(data["canonical"])}
    except FileNotFoundError:
        raise FileNotFoundError(f"no network file at {str(path)!r}") from None
    except KeyError as err:
        raise ValueError(f"{str(path)!r} is not a network file: "
                         f"{err.args[0] if err.args else err}") from None
    except (OSError, ValueError, TypeError, zipfile.BadZipFile) as err:
        raise ValueError(f"{str(path)!r} is not a network file: {err}") from None
    check_policy_weights(weights, repr(str(path)))
    return weights


def shipped_ppo_agent(seed: int | None = None) -> PolicySnapshot:
    """The shipped policy as an Agent, playing its most probable legal action."""
    if not POLICY_FILE.exists():
        raise FileNotFoundError(f"the shipped policy {POLICY_FILE} is missing")
    return PolicySnapshot(load_policy(), deterministic=True, name="ppo", seed=seed)


NET_FILE = Path(__file__).with_name("net_policy.npz")


def load_net_agent(path, seed: int | None = None, deterministic: bool = True,
                   name: str | None = None) -> PolicySnapshot | NetAgent:
    """The agent of a network file: a :class:`~.valuenet.NetAgent` when the file holds a
    card-value network, else the policy alone. ``deterministic``: the policy plays its
    most probable legal action (else it samples; card values are always maximised)."""
    name = name or Path(path).stem
    policy = PolicySnapshot(load_policy(path), deterministic=deterministic, name=name,
                            seed=seed)
    values = load_values(path)
    if values is None:
        return policy
    layers, tricks = values
    return NetAgent(policy, CardValues(layers), tricks, name=name)


def shipped_net_agent(seed: int | None = None) -> PolicySnapshot | NetAgent:
    """The shipped network (``load_agent("net")``; README, "The distilled network";
    ``examples/net_recipe.sh`` rebuilds it): a policy network for trumps, discards and
    escalations and a card-value network for the cards, deterministic."""
    if not NET_FILE.exists():
        raise FileNotFoundError(f"the shipped network {NET_FILE} is missing")
    return load_net_agent(NET_FILE, seed=seed, name="net")


def load_snapshot_agent(spec: str, seed: int | None = None,
                        deterministic: bool = True) -> PolicySnapshot | NetAgent | None:
    """Loader for network files: a path to an existing ``.npz`` written by
    :func:`save_policy` (``widderkopf-distill train``, ``values``, the shipped files) is
    its agent (:func:`load_net_agent`); any other spec is not ours (None). A ``.npz`` that
    does not exist raises ``FileNotFoundError``, one that is not a network ``ValueError``."""
    path = Path(spec)
    if path.suffix.lower() != ".npz":
        return None
    if not path.is_file():
        raise FileNotFoundError(f"no network file at {str(spec)!r}")
    return load_net_agent(path, seed=seed, deterministic=deterministic)
