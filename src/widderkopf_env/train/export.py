"""Export a trained MaskablePPO actor as numpy arrays for
:class:`~widderkopf_env.agents.numpy_net.PolicySnapshot` (re-exported here), and load
such arrays back into a model (warm starts: ``widderkopf-train --init``, ``widderkopf-exploit``).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from widderkopf_env.agents.numpy_net import ACTIVATIONS, PolicySnapshot

__all__ = ["PolicySnapshot", "export_policy", "init_arch", "init_file", "load_actor",
           "network_file", "network_file_arg"]


def export_policy(model) -> dict:
    """The actor weights of a MaskablePPO ``model`` as ``{"layers": [(W, b), ...],
    "activation": name, "canonical": bool}`` (float32 numpy; ``W`` is ``(out, in)`` as in
    torch; ``canonical``: the policy is a :class:`~.policies.CanonicalPolicy`)."""
    import torch.nn as nn

    from .torch_policy import CanonicalPolicy

    policy = model.policy
    act_name = policy.activation_fn.__name__
    if act_name not in ACTIVATIONS:
        raise ValueError(f"unsupported activation {act_name!r}; known: {sorted(ACTIVATIONS)}")
    linears = [m for m in policy.mlp_extractor.policy_net if isinstance(m, nn.Linear)]
    linears.append(policy.action_net)
    layers = [(m.weight.detach().cpu().numpy().astype(np.float32).copy(),
               m.bias.detach().cpu().numpy().astype(np.float32).copy()) for m in linears]
    return {"layers": layers, "activation": act_name,
            "canonical": isinstance(policy, CanonicalPolicy)}


def load_actor(model, weights: dict) -> None:
    """Copy exported actor weights (:func:`export_policy`'s format, as in the
    shipped policy) into ``model``'s policy layers and action head: export's inverse."""
    import torch
    import torch.nn as nn

    from .torch_policy import CanonicalPolicy

    policy = model.policy
    linears = [m for m in policy.mlp_extractor.policy_net if isinstance(m, nn.Linear)]
    linears.append(policy.action_net)
    shapes = [tuple(m.weight.shape) for m in linears]
    wanted = [tuple(w.shape) for w, _ in weights["layers"]]
    if (shapes != wanted or policy.activation_fn.__name__ != weights["activation"]
            or isinstance(policy, CanonicalPolicy) != bool(weights["canonical"])):
        raise ValueError(f"the policy to load (layers {wanted}, {weights['activation']}, "
                         f"canonical={weights['canonical']}) does not fit the model (layers "
                         f"{shapes}, {policy.activation_fn.__name__})")
    with torch.no_grad():
        for m, (w, b) in zip(linears, weights["layers"], strict=True):
            m.weight.copy_(torch.as_tensor(w))
            m.bias.copy_(torch.as_tensor(b))


def _init_weights(spec: str) -> tuple[Path, dict]:
    """The policy file a warm start ``spec`` names and its weights; ValueError saying why
    it names none."""
    from widderkopf_env.agents.network_file import load_policy
    from widderkopf_env.agents.shipped import SHIPPED_FILES

    path = SHIPPED_FILES.get(spec, Path(spec))
    if path.suffix != ".npz" or not path.is_file():
        names = ", ".join(repr(n) for n in SHIPPED_FILES)
        raise ValueError(f"{spec!r} is neither a shipped network ({names}) nor an existing "
                         ".npz policy file (widderkopf-distill train writes them)")
    try:
        return path, load_policy(path)
    except (OSError, KeyError, ValueError) as err:
        raise ValueError(f"{path} is not a policy file ({err})") from None


def init_arch(spec: str) -> list[int]:
    """The hidden layer sizes of the actor in the policy file that a warm start ``spec``
    names (as :func:`init_file`): the network a run that does not set its own takes."""
    return _hidden(_init_weights(spec)[1])


def _hidden(weights: dict) -> list[int]:
    return [int(w.shape[0]) for w, _ in weights["layers"][:-1]]


def init_file(spec: str, hidden: list[int] | None, activation: str, canonical: bool) -> Path:
    """The policy file that a warm start ``spec`` names: a shipped network's name
    (``"ppo"``, ``"ppo-v1"``, ``"net"``, ``"net-v2"``, ``"net-v1"``) or a path to a .npz from
    :func:`~widderkopf_env.agents.network_file.save_policy`, resolved, after checking that
    its actor has these hidden layers (None: whichever it has), activation and input
    ordering; ValueError saying what differs otherwise."""
    path, weights = _init_weights(spec)
    have = (_hidden(weights), weights["activation"].lower(), weights["canonical"])
    want = (have[0] if hidden is None else list(hidden), activation.lower(), bool(canonical))
    if have != want:
        raise ValueError(f"{path} holds hidden layers {have[0]}, activation {have[1]}, "
                         f"canonical={have[2]}; the run asks for {want[0]}, {want[1]}, "
                         f"canonical={want[2]} (set --net-arch, --activation, --policy to "
                         "match)")
    return path.resolve()


def network_file(spec) -> Path:
    """The network file ``spec`` names: a shipped network's name (``"ppo"``, ``"ppo-v1"``,
    ``"net"``, ``"net-v2"``, ``"net-v1"``) or a path (relative to the working directory),
    resolved after checking that it loads as a network file
    (:func:`~widderkopf_env.agents.network_file.load_net_agent`); ValueError saying why not
    otherwise."""
    from widderkopf_env.agents.network_file import load_net_agent
    from widderkopf_env.agents.shipped import SHIPPED_FILES

    path = SHIPPED_FILES.get(spec, Path(spec))
    if not path.is_file():
        names = ", ".join(repr(n) for n in SHIPPED_FILES)
        raise ValueError(f"{str(spec)!r}: no such file (nor a shipped network: {names})")
    try:
        load_net_agent(path)
    except (OSError, KeyError, ValueError) as err:
        raise ValueError(f"{str(spec)!r} is not a network file: {err}") from None
    return path.resolve()


def network_file_arg(text: str) -> Path:
    """:func:`network_file` as an argparse type (``--policy``): a bad value is a usage
    error saying why."""
    import argparse

    try:
        return network_file(text)
    except ValueError as err:
        raise argparse.ArgumentTypeError(str(err)) from None
