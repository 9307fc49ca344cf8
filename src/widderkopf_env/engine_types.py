"""The engine's value types: :class:`Phase`, :class:`HandResult`, :class:`IllegalActionError`.

They are re-exported by :mod:`widderkopf_env.rules` and the package.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from enum import IntEnum

from .cards import NUM_ACTIONS, action_name, from_bits
from .checks import show

#: The state of a :class:`~widderkopf_env.rules.Game`: its slots (the compiled core reads
#: them through their member descriptors).
STATE_FIELDS = (
    "seed", "num_hands", "first_dealer", "initial_scores", "scores", "hand_no", "results",
    "deals", "history", "hand_start", "dealer", "phase", "current", "trump", "chooser",
    "hand", "up", "down", "upbits", "covered", "discard", "won", "trick_points", "played", "lead",
    "lead_pile", "leader", "tricks", "level", "cracker", "recracker", "_legal", "variant",
)
#: Fields holding lists that ``Game.clone`` must copy (everything else is immutable).
LIST_FIELDS = frozenset({"scores", "results", "deals", "history", "hand", "up", "down",
                          "upbits", "covered", "discard", "won", "trick_points", "played",
                          "tricks"})
SCALAR_FIELDS = tuple(f for f in STATE_FIELDS if f not in LIST_FIELDS)


class Phase(IntEnum):
    """What the player to act decides (R9-R15)."""

    TRUMP = 0  #: the chooser names the trump suit (actions 36-39)
    DISCARD = 1  #: discard one hand card into the opponent's capture pile (0-35)
    PLAY = 2  #: the due player plays a card (0-35) or escalates (40)
    ANSWER = 3  #: the other player answers an escalation: escalate (40) or pass (41)
    OVER = 4  #: the match is over


class IllegalActionError(ValueError):
    """An action that is not legal now. The game is left unchanged."""

    def __init__(self, message: str, action=None, phase=None, legal=()):
        super().__init__(message)
        self.action, self.phase, self.legal = action, phase, list(legal)

    @classmethod
    def not_an_id(cls, action, phase: Phase, mask: int) -> IllegalActionError:
        """The error for an action that is no integer action id."""
        return cls(f"action must be an integer action id, got {type(action).__name__} "
                   f"{show(action)}; legal now ({phase.name}): {describe_actions(mask)}",
                   action, phase, from_bits(mask))

    @classmethod
    def not_legal(cls, action: int, player, phase: Phase, mask: int) -> IllegalActionError:
        """The error for an action id that is not legal now (``mask``: the legal ones)."""
        if phase == Phase.OVER:
            msg = f"action {show(action)} rejected: the match is over (no legal actions)"
        else:
            what = action_name(action) if 0 <= action < NUM_ACTIONS else "out of range 0..41"
            msg = (f"illegal action {show(action)} ({what}) for player {player} in phase "
                   f"{phase.name}; legal: {describe_actions(mask)}")
        return cls(msg, action, phase, from_bits(mask))


def describe_actions(mask: int) -> str:
    """``'36 (trump C), 37 (trump S)'``: the actions of a bit mask, or ``'none'``."""
    acts = from_bits(mask)
    return ", ".join(f"{a} ({action_name(a)})" for a in acts) if acts else "none"


@dataclass(frozen=True, slots=True)
class HandResult:
    """The outcome of one finished hand (R17-R19)."""

    hand: int  #: index of the hand in the match, from 0
    dealer: int
    trump: int
    card_points: tuple[int, int]  #: final card points incl. discards and Spitzer; sum 121
    trick_points: tuple[int, int]  #: points taken in tricks only
    discards: tuple[int, int]  #: card each player discarded (into the other's pile)
    spitzer: int  #: player credited with the Spitzer (-1 in a variant without 7s)
    winner: int
    crack_level: int
    schneider: bool  #: winner has 91+ (value doubled)
    schwarz: bool  #: winner has all 121 (value quadrupled instead)
    value: int  #: game points the winner scored: 2**crack_level x (1, 2 or 4)
    scores: tuple[int, int]  #: match scores after this hand


#: :class:`HandResult`'s field names, in order (the keys of a hand's info dict).
RESULT_FIELDS = tuple(f.name for f in fields(HandResult))
