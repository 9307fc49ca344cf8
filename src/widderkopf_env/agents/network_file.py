"""The network file: a policy network, and optionally a card-value network, as a ``.npz``
of plain arrays (read with ``allow_pickle=False``: loading one runs no code).

The policy's arrays: ``w0, b0, w1, b1, ...`` (``W`` as ``(out, in)``, the actor of a
MaskablePPO ``MlpPolicy`` or a distilled network, run by
:class:`~.numpy_net.PolicySnapshot`), ``activation`` (the torch module's name, e.g.
``ReLU``) and ``canonical`` (whether it reads the cards in trump-relative order). A
card-value network (:class:`~.net_agent.CardValues`) adds ``v_w0, v_b0, ...``,
``v_tricks`` (it plays when at most that many tricks are left, the open one counted; the
policy plays the earlier cards) and ``v_features`` (the card-feature size it was fitted
with).

Written by ``widderkopf-train`` (``final_policy.npz``), ``widderkopf-distill train`` and
``widderkopf-values fit``; the shipped ``ppo`` and ``net`` bots are such files
(:mod:`.shipped`). Any path to one is an agent for ``load_agent``
(:func:`load_snapshot_agent`, one of the registry's loaders).
"""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import numpy as np

from widderkopf_env.atomic import write_atomic

from .features import SIZE as FEATURES
from .net_agent import CardValues, NetAgent
from .numpy_net import PolicySnapshot, check_policy_weights

__all__ = ["load_net_agent", "load_policy", "load_snapshot_agent", "load_values",
           "policy_arrays", "save_policy", "save_values"]


def policy_arrays(weights: dict) -> dict:
    """The arrays of a policy file for exported actor weights."""
    arrays = {"activation": np.array(weights["activation"]),
              "canonical": np.array(bool(weights["canonical"]))}
    for i, (w, b) in enumerate(weights["layers"]):
        arrays[f"w{i}"], arrays[f"b{i}"] = w, b
    return arrays


def save_values(arrays: dict, layers, tricks: int) -> dict:
    """``arrays`` (a network file's arrays) with the card-value network's added."""
    out = dict(arrays)
    for i, (w, b) in enumerate(layers):
        out[f"v_w{i}"] = np.asarray(w, np.float32)
        out[f"v_b{i}"] = np.asarray(b, np.float32)
    out["v_tricks"] = np.array(int(tricks))
    out["v_features"] = np.array(FEATURES)
    return out


def save_policy(weights: dict, path, values=None) -> None:
    """Write exported actor weights (``train.export.export_policy``) as a small .npz;
    with ``values = (layers, tricks)``, a card-value network too."""
    arrays = policy_arrays(weights)
    if values is not None:
        arrays = save_values(arrays, *values)
    if not hasattr(path, "write"):  # a file name: written crash-safe, ".npz" added as numpy does
        path = Path(path)
        if not path.name.endswith(".npz"):
            path = path.with_name(path.name + ".npz")
        buf = io.BytesIO()
        np.savez_compressed(buf, **arrays)
        write_atomic(path, buf.getvalue())
        return
    np.savez_compressed(path, **arrays)


def load_policy(path) -> dict:
    """The weights dict that :class:`PolicySnapshot` takes, read from ``path``. Plain
    arrays only: a file holding pickled objects is refused (``allow_pickle=False``).
    A missing file raises ``FileNotFoundError``; one that is not a network, or whose
    layers do not chain from the observation to the actions, ``ValueError``."""
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


def load_values(path) -> tuple[list, int] | None:
    """The card-value layers and ``v_tricks`` of a network file, or None if it has none.
    A file fitted with other features than :data:`~.features.SIZE` is refused."""
    with np.load(Path(path), allow_pickle=False) as data:
        if "v_w0" not in data.files:
            return None
        try:
            features, tricks = int(data["v_features"]), int(data["v_tricks"])
            n = sum(1 for k in data.files if k.startswith("v_w"))
            layers = [(data[f"v_w{i}"], data[f"v_b{i}"]) for i in range(n)]
        except (KeyError, TypeError, ValueError) as err:
            raise ValueError(f"{path}: not a card-value network ({err})") from None
        if features != FEATURES:
            raise ValueError(f"{path}: its card-value network reads {features} "
                             f"card features, this version computes {FEATURES}")
        return layers, tricks


def load_net_agent(path, seed: int | None = None, deterministic: bool = True,
                   name: str | None = None) -> PolicySnapshot | NetAgent:
    """The agent of a network file: a :class:`~.net_agent.NetAgent` when the file holds a
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


def load_snapshot_agent(spec: str, seed: int | None = None,
                        deterministic: bool = True) -> PolicySnapshot | NetAgent | None:
    """Loader for network files: a path to an existing ``.npz`` written by
    :func:`save_policy` is its agent (:func:`load_net_agent`); any other spec is not
    ours (None). A ``.npz`` that does not exist raises ``FileNotFoundError``, one that is
    not a network ``ValueError``."""
    path = Path(spec)
    if path.suffix.lower() != ".npz":
        return None
    if not path.is_file():
        raise FileNotFoundError(f"no network file at {str(spec)!r}")
    return load_net_agent(path, seed=seed, deterministic=deterministic)
