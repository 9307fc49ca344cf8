"""widderkopf-env: the Widderkopf card game as a rules engine and RL environments.

The engine (:class:`Game`) is framework-free; PettingZoo and Gymnasium environments are
built on it. See README.md for the rules as implemented and the id tables.
"""

from .cards import (
    ESCALATE,
    NUM_ACTIONS,
    NUM_CARDS,
    PASS,
    TRUMP_ACTION,
    VARIANTS,
    Variant,
    action_name,
    card_glyph,
    card_name,
    from_bits,
    parse_card,
    to_bits,
)
from .rules import Game, HandResult, IllegalActionError, Phase, parse_deal
from .view import PlayerView

__version__ = "0.1.0"

# The environments and the observation API are imported on first use (PEP 562), so
# engine-only users (bots, CLIs) do not pay for PettingZoo at import time.
_LAZY = {
    "env": "aec_env",
    "raw_env": "aec_env",
    "WidderkopfEnv": "gym_env",
    "OBS_SIZE": "observation",
    "PIECES": "observation",
    "encode": "observation",
    "encode_view": "observation",
    "load_agent": "registry",
    "register_agent": "registry",
    "agent_names": "registry",
    "RandomAgent": "agent",
    "action_mask": "observation",
    "observation_table_markdown": "observation",
    "render_game": "render",
    "render_view": "render",
}


def __getattr__(name):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from importlib import import_module

    value = getattr(import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


def _register() -> None:
    """Register ``Widderkopf-v0`` with Gymnasium once (also for ``widderkopf_env:Widderkopf-v0``),
    and the AEC env with PettingZoo where it has a registry (``pettingzoo.make("aec", ...)``)."""
    import gymnasium
    import pettingzoo

    if "Widderkopf-v0" not in gymnasium.registry:
        gymnasium.register(id="Widderkopf-v0", entry_point="widderkopf_env.gym_env:WidderkopfEnv",
                           vector_entry_point="widderkopf_env.vector.env:WidderkopfVectorEnv")
    aec = getattr(pettingzoo, "aec_registry", None)  # PettingZoo >= 1.27
    if aec is not None and "Widderkopf-v0" not in aec:
        pettingzoo.register("aec", "Widderkopf-v0", entry_point="widderkopf_env.aec_env:env")


_register()

__all__ = [
    "ESCALATE",
    "NUM_ACTIONS",
    "NUM_CARDS",
    "OBS_SIZE",
    "PASS",
    "PIECES",
    "TRUMP_ACTION",
    "VARIANTS",
    "Variant",
    "Game",
    "HandResult",
    "IllegalActionError",
    "Phase",
    "PlayerView",
    "RandomAgent",
    "WidderkopfEnv",
    "action_mask",
    "action_name",
    "agent_names",
    "card_glyph",
    "card_name",
    "encode",
    "encode_view",
    "env",
    "from_bits",
    "load_agent",
    "observation_table_markdown",
    "parse_card",
    "parse_deal",
    "raw_env",
    "register_agent",
    "render_game",
    "render_view",
    "to_bits",
]
