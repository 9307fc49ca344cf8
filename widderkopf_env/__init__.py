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

__all__ = [
    "ESCALATE",
    "NUM_ACTIONS",
    "NUM_CARDS",
    "PASS",
    "TRUMP_ACTION",
    "Game",
    "HandResult",
    "IllegalActionError",
    "Phase",
    "PlayerView",
    "action_name",
    "card_glyph",
    "card_name",
    "from_bits",
    "parse_card",
    "parse_deal",
    "to_bits",
]
