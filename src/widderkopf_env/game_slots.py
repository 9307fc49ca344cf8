"""What a :class:`~widderkopf_env.rules.PyGame`'s attributes must hold for a move:
:func:`check_move`, called by ``PyGame.apply`` before anything changes, so that a game
whose attributes were replaced (``g.history = None``) gets a ``TypeError`` naming the
attribute and what it must hold, and stays as it was. It compares the types of every
attribute the move reads or writes into; the items of lists are not checked. (The
compiled ``Game`` keeps its state in C: its attributes cannot be replaced.)
"""

from __future__ import annotations

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
    """Slots checked together (name, kind): one expression compares their types with what
    they must hold (``type(game.history) is list and ...``, compiled once from the names
    here: the cheapest check Python has); :func:`_check` names the one that is wrong."""

    def __init__(self, *slots):
        self.slots = slots
        names = {int: "int", list: "list", Variant: "Variant"}
        test = " and ".join(f"type(game.{name}) is {names[_TYPES[kind]]}"
                            for name, kind in slots)
        self.holds = eval(f"lambda game: {test}", {"Variant": Variant})  # names of this module only

    def check(self, game) -> None:
        try:
            if self.holds(game):
                return
        except AttributeError:  # deleted
            pass
        _check(game, self.slots)


_LEAD = (("history", _LIST), ("current", _INT), ("hand", _PAIR), ("upbits", _PAIR),
         ("up", _PILES), ("down", _PILES), ("covered", _PAIR), ("played", _PAIR),
         ("lead", _INT))
_BY_PHASE = {  # what each move reads, or writes into (a slot it replaces needs no check)
    _TRUMP_PHASE: _Slots(("history", _LIST), ("dealer", _INT)),
    _DISCARD_PHASE: _Slots(("history", _LIST), ("current", _INT), ("hand", _PAIR),
                           ("discard", _PAIR), ("dealer", _INT)),
    _ANSWER_PHASE: _Slots(("history", _LIST), ("current", _INT), ("level", _INT)),
}
_ESCALATE = _Slots(("history", _LIST), ("current", _INT), ("level", _INT),
                   ("played", _PAIR), ("cracker", _INT))
_FIRST_CARD = _Slots(*_LEAD)
_SECOND_CARD = _Slots(*_LEAD, ("trump", _INT), ("won", _PAIR), ("trick_points", _PAIR),
                      ("tricks", _LIST), ("lead_pile", _INT), ("variant", _VARIANT))
#: what the end of a hand reads: its result, the next hand's deal
_LAST = _Slots(("results", _LIST), ("scores", _PAIR), ("discard", _PAIR), ("level", _INT),
               ("hand_no", _INT), ("num_hands", _INT), ("dealer", _INT),
               ("first_dealer", _INT), ("deals", _LIST))


def check_move(game, action: int) -> None:
    """Raise naming the first attribute of ``game`` that the legal ``action`` would read
    or write into and that does not hold what the game puts there."""
    phase = getattr(game, "phase", None)
    if type(phase) is not int:
        _check(game, (("phase", _INT),))
    elif phase != _PLAY_PHASE:
        slots = _BY_PHASE.get(phase)
        if slots is not None:
            slots.check(game)
    elif action >= ESCALATE:
        _ESCALATE.check(game)
    elif type(getattr(game, "lead", None)) is not int or game.lead < 0:
        _FIRST_CARD.check(game)  # a trick's first card (or a lead to name)
    else:
        _SECOND_CARD.check(game)
        if len(game.tricks) + 1 == game.variant.tricks:
            _LAST.check(game)
