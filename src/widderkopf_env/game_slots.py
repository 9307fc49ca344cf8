"""What a :class:`~widderkopf_env.rules.Game`'s attributes must hold for a move:
:func:`check_move`, called by ``Game._apply_py`` before anything changes, so that a game
whose attributes were replaced (``g.history = None``) gets a ``TypeError`` naming the
attribute and what it must hold, and stays as it was. It compares the types of every
attribute the move reads or writes (one read of them all, one comparison); the items of
lists are not checked. ``_scalar.c``'s ``check_move`` does this for the compiled
``Game.apply``, with the same messages.
"""

from __future__ import annotations

from operator import attrgetter

from .cards import ESCALATE, Variant
from .engine_types import Phase

_TRUMP_PHASE, _DISCARD_PHASE, _PLAY_PHASE, _ANSWER_PHASE = (
    int(Phase.TRUMP), int(Phase.DISCARD), int(Phase.PLAY), int(Phase.ANSWER))
_INT, _LIST, _PAIR, _PILES, _VARIANT = range(5)
_MUST = ("an int", "a list", "a list of 2", "a list of 10", "a Variant")
_TYPES = (int, list, list, list, Variant)
_MISSING = object()


def _check(game, slots) -> None:
    """Raise naming the first of ``slots`` (name, kind) that ``game`` holds wrongly."""
    for name, kind in slots:
        value = getattr(game, name, _MISSING)
        if kind == _INT and isinstance(value, int):
            if -2**63 <= value < 2**63:
                continue
            raise OverflowError(f"Game.{name} is out of range: it must be an int of at most "
                                "64 bits")
        if kind == _VARIANT and isinstance(value, Variant) or kind == _LIST and isinstance(
                value, list):
            continue
        if kind in (_PAIR, _PILES) and isinstance(value, list):
            if len(value) == (2 if kind == _PAIR else 10):
                continue
            raise ValueError(f"Game.{name} must be {_MUST[kind]}, got a list of {len(value)}")
        if value is _MISSING:
            raise TypeError(f"Game.{name} must be {_MUST[kind]}; it was deleted")
        raise TypeError(f"Game.{name} must be {_MUST[kind]}, got {type(value).__name__}")


class _Slots:
    """Slots checked together (name, kind): read in one call, their types compared with
    what they must hold; :func:`_check` names the one that is wrong."""

    def __init__(self, *slots):
        self.slots = slots
        self.read = attrgetter(*(name for name, _ in slots))
        self.types = tuple(_TYPES[kind] for _, kind in slots)

    def check(self, game) -> None:
        try:
            if tuple(map(type, self.read(game))) == self.types:
                return
        except AttributeError:  # deleted
            pass
        _check(game, self.slots)


_ANY = (("history", _LIST), ("phase", _INT), ("dealer", _INT), ("current", _INT))
_BY_PHASE = {
    _TRUMP_PHASE: _Slots(*_ANY),
    _DISCARD_PHASE: _Slots(*_ANY, ("hand", _PAIR), ("discard", _PAIR)),
    _ANSWER_PHASE: _Slots(*_ANY, ("level", _INT), ("cracker", _INT), ("played", _PAIR)),
    _PLAY_PHASE: _Slots(*_ANY, ("hand", _PAIR), ("played", _PAIR), ("lead", _INT),
                        ("trump", _INT), ("upbits", _PAIR), ("up", _PILES), ("down", _PILES),
                        ("covered", _PAIR), ("won", _PAIR), ("trick_points", _PAIR),
                        ("tricks", _LIST), ("lead_pile", _INT), ("variant", _VARIANT)),
}
_ESCALATE = _BY_PHASE[_ANSWER_PHASE]  # the due player's escalation reads what an answer does
#: the slots the end of a hand reads or writes: its result, the next hand's deal
_LAST = _Slots(("results", _LIST), ("scores", _PAIR), ("discard", _PAIR), ("level", _INT),
               ("hand_no", _INT), ("num_hands", _INT), ("first_dealer", _INT),
               ("deals", _LIST))


def check_move(game, action: int) -> None:
    """Raise naming the first attribute of ``game`` that the legal ``action`` would read
    or write and that does not hold what the game puts there."""
    phase = getattr(game, "phase", None)
    slots = _BY_PHASE.get(phase) if type(phase) is int else None
    if slots is None:
        _check(game, _ANY)
        return
    if phase == _PLAY_PHASE and action >= ESCALATE:
        slots = _ESCALATE
    slots.check(game)
    if slots is _BY_PHASE[_PLAY_PHASE] and game.lead >= 0 \
            and len(game.tricks) + 1 == game.variant.tricks:
        _LAST.check(game)
