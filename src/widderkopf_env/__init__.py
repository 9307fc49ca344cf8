"""widderkopf-env: the Widderkopf card game as a rules engine and RL environments.

The engine (:class:`Game`) is framework-free; PettingZoo and Gymnasium environments are
built on it. The documentation (docs/, ``make docs``) has the rules as implemented and
the id tables (docs/rules.md).
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
from .env_registration import register_envs
from .rules import Game, HandResult, IllegalActionError, Phase, parse_deal
from .view import PlayerView

__version__ = "0.1.0"

# The environments and the observation API are imported on first use (PEP 562), so
# users of the engine, the bots and the CLIs do not pay for PettingZoo or Gymnasium at
# import (and the engine alone not for NumPy either).
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


# Widderkopf-v0 for gymnasium.make and pettingzoo.make, without importing either here.
register_envs()

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
