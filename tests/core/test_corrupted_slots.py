"""A game whose attributes were replaced by objects of another type (issue 57 item 8).

The Python game (:class:`~widderkopf_env.rules.PyGame`, which ``Game`` is where the core
is not built) keeps its state in attributes: ``apply`` raises a ``TypeError`` naming the
attribute and what it must hold, never ``SystemError``, and the game stays as it was; put
back, the move plays as on a clean game. The compiled ``Game`` keeps its state in C: its
attributes cannot be replaced or deleted (an ``AttributeError`` naming the field), so the
game stays as it was and plays on. The Makefile runs this file again with
WIDDERKOPF_PURE_PYTHON=1."""

from __future__ import annotations

import copy

import pytest

from widderkopf_env import Game, rules
from widderkopf_env.cards import ESCALATE
from widderkopf_env.engine_types import STATE_FIELDS

DELETED = "deleted"
COMPILED = Game is not rules.PyGame and not issubclass(Game, rules.PyGame)


def positions(cls=rules.PyGame) -> dict:
    """The first position of each kind in one match that cracks whenever it may."""
    found = {}
    game = cls.new(seed=4)
    while not game.is_over:
        legal = game.legal_actions()
        kind = {rules.TRUMP: "trump", rules.DISCARD: "discard",
                rules.ANSWER: "answer"}.get(game.phase)
        if game.phase == rules.PLAY:
            kind = ("escalate" if ESCALATE in legal else
                    "last" if game.lead >= 0 and len(game.tricks) == game.variant.tricks - 1
                    else "second" if game.lead >= 0 else "lead")
        found.setdefault(kind, game.clone())
        game.apply(ESCALATE if ESCALATE in legal else legal[0])
    return found


POSITIONS = positions()
GAME_POSITIONS = positions(Game)


def state(game: Game) -> dict:
    """Every attribute but the legal-set cache, copied (a deleted one as DELETED)."""
    return {f: copy.deepcopy(getattr(game, f)) if hasattr(game, f) else DELETED
            for f in STATE_FIELDS if f != "_legal"}


CASES = [  # position, attribute, the object put there, error, message
    ("lead", "history", None, TypeError, r"Game\.history must be a list, got NoneType"),
    ("lead", "history", (), TypeError, r"Game\.history must be a list, got tuple"),
    ("second", "tricks", None, TypeError, r"Game\.tricks must be a list, got NoneType"),
    ("trump", "history", DELETED, TypeError, r"Game\.history must be a list; it was deleted"),
    ("second", "tricks", DELETED, TypeError, r"Game\.tricks must be a list; it was deleted"),
    ("trump", "dealer", "0", TypeError, r"Game\.dealer must be an int"),
    ("lead", "current", None, TypeError, r"Game\.current must be an int"),
    ("discard", "hand", (0, 0), TypeError, r"Game\.hand must be a list of 2"),
    ("discard", "discard", None, TypeError, r"Game\.discard must be a list of 2"),
    ("answer", "level", None, TypeError, r"Game\.level must be an int"),
    ("escalate", "cracker", None, TypeError, r"Game\.cracker must be an int"),
    ("second", "won", None, TypeError, r"Game\.won must be a list of 2"),
    ("second", "trick_points", "ab", TypeError, r"Game\.trick_points must be a list of 2"),
    ("second", "up", None, TypeError, r"Game\.up must be a list of 10"),
    ("second", "lead_pile", None, TypeError, r"Game\.lead_pile must be an int"),
    ("second", "variant", "full", TypeError, r"Game\.variant must be a Variant, got str"),
    ("last", "results", None, TypeError, r"Game\.results must be a list, got NoneType"),
    ("last", "scores", (0, 0), TypeError, r"Game\.scores must be a list of 2"),
    ("last", "deals", (), TypeError, r"Game\.deals must be a list, got tuple"),
]


def _run(case) -> None:
    where, slot, value, error, message = case
    game, clean = POSITIONS[where].clone(), POSITIONS[where].clone()
    action = game.legal_actions()[0] if where != "escalate" else ESCALATE
    kept = getattr(game, slot)
    if value == DELETED:
        delattr(game, slot)
    else:
        setattr(game, slot, value)
    before = state(game)
    with pytest.raises(error, match=message):
        game.apply(action)
    assert state(game) == before  # nothing changed
    setattr(game, slot, kept)  # put back: the move plays as on a clean game
    game.apply(action)
    clean.apply(action)
    assert game.state_dict() == clean.state_dict()


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0]}-{c[1]}-{c[2]!r}")
def test_a_replaced_attribute_is_named_and_the_game_is_unchanged(case):
    _run(case)


@pytest.mark.skipif(not COMPILED, reason="the compiled core is not built or is disabled")
@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0]}-{c[1]}-{c[2]!r}")
def test_the_compiled_games_attributes_cannot_be_replaced(case):
    where, slot, value, _error, _message = case
    game, clean = GAME_POSITIONS[where].clone(), GAME_POSITIONS[where].clone()
    action = game.legal_actions()[0] if where != "escalate" else ESCALATE
    with pytest.raises(AttributeError, match=slot):
        if value == DELETED:
            delattr(game, slot)
        else:
            setattr(game, slot, value)
    assert state(game) == state(clean)
    game.apply(action)
    clean.apply(action)
    assert game.state_dict() == clean.state_dict()


def test_the_positions_cover_every_kind_of_move():
    assert set(POSITIONS) == set(GAME_POSITIONS) == {
        "trump", "discard", "lead", "second", "last", "escalate", "answer"}
