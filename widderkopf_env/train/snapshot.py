"""Export a trained MaskablePPO actor as numpy arrays for
:class:`~widderkopf_env.agents.netpolicy.PolicySnapshot` (re-exported here).
"""

from __future__ import annotations

import numpy as np

from widderkopf_env.agents.netpolicy import ACTIVATIONS, PolicySnapshot

__all__ = ["PolicySnapshot", "export_policy"]


def export_policy(model) -> dict:
    """The actor weights of a MaskablePPO ``model`` as ``{"layers": [(W, b), ...],
    "activation": name, "canonical": bool}`` (float32 numpy; ``W`` is ``(out, in)`` as in
    torch; ``canonical``: the policy is a :class:`~.policies.CanonicalPolicy`)."""
    import torch.nn as nn

    from .policies import CanonicalPolicy

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
