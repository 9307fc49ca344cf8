"""A Game whose attributes were replaced by objects of another type (issue 57 item 8):
``Game.apply`` raises a ``TypeError`` naming the attribute and what it must hold, never
``SystemError``, and the game stays as it was; put back, the move plays as on a clean
game. Both paths: the compiled core (``_scalar.c``) and the Python definition
(``Game._apply_py``; the Makefile runs this file again with WIDDERKOPF_PURE_PYTHON=1)."""

from __future__ import annotations

import copy

import pytest

from widderkopf_env import Game, rules
from widderkopf_env.cards import ESCALATE
from widderkopf_env.engine_types import STATE_FIELDS

DELETED = "deleted"
COMPILED = rules._core_apply is not None


def positions() -> dict:
    """The first position of each kind in one match that cracks whenever it may."""
    found = {}
    game = Game.new(seed=4)
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
#: the compiled core also checks the lengths of lists and that ints fit in 64 bits
COMPILED_CASES = [
    ("second", "won", [0], ValueError, r"Game\.won must be a list of 2, got a list of 1"),
    ("second", "up", [-1] * 9, ValueError, r"Game\.up must be a list of 10, got a list of 9"),
    ("second", "lead_pile", 2**70, OverflowError, r"Game\.lead_pile is out of range"),
]


def _run(case, apply_name: str) -> None:
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
        getattr(game, apply_name)(action)
    assert state(game) == before  # nothing changed
    setattr(game, slot, kept)  # put back: the move plays as on a clean game
    getattr(game, apply_name)(action)
    clean.apply(action)
    assert game.state_dict() == clean.state_dict()


@pytest.mark.parametrize("apply_name", ["apply", "_apply_py"])
@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0]}-{c[1]}-{c[2]!r}")
def test_a_replaced_attribute_is_named_and_the_game_is_unchanged(case, apply_name):
    _run(case, apply_name)


@pytest.mark.skipif(not COMPILED, reason="the compiled core is not built or is disabled")
@pytest.mark.parametrize("case", COMPILED_CASES, ids=lambda c: f"{c[0]}-{c[1]}")
def test_the_compiled_core_checks_the_lengths_and_sizes_it_reads(case):
    _run(case, "apply")


def test_the_positions_cover_every_kind_of_move():
    assert set(POSITIONS) == {"trump", "discard", "lead", "second", "last", "escalate",
                              "answer"}
