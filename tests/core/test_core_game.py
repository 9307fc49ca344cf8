"""The scalar Game's compiled hot paths against its Python definition (RULES R1-R20).

Two copies of every random match (every variant, one to three hands from tied and
untied scores, escalating often) are driven side by side: one by ``Game.apply`` (the
compiled core, ``src/widderkopf_env/_scalar.c``), one by ``Game._apply_py``. Before every
decision the legal sets are compared (``legal_actions`` and ``legal_mask`` in C, against
``Game._LEGAL``), and after it the whole state (``state_dict``:
hands, piles, tricks, history, results, the deals of later hands) and both players'
observations from the C encoder (which reads the slots too) against the Python one.
Illegal actions
(wrong ids, out-of-range and huge ints) must raise the same error from both and change
nothing.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from widderkopf_env import VARIANTS, Game, IllegalActionError, game_encoder, rules
from widderkopf_env.cards import ESCALATE

pytestmark = pytest.mark.skipif(rules._core_apply is None,
                                reason="the compiled core is not built or is disabled")

#: Decisions compared per variant (at least).
DECISIONS = 10_000


def pick(rng: random.Random, legal: list[int]) -> int:
    if ESCALATE in legal and rng.random() < 0.4:
        return ESCALATE
    return rng.choice(legal)


def legal_by_python(game: Game) -> int:
    return Game._LEGAL[game.phase](game)


@pytest.mark.parametrize("variant", VARIANTS)
def test_the_compiled_apply_equals_the_python_apply_at_every_decision(variant):
    rng = random.Random(variant)
    decisions = seed = 0
    levels, tiebreaks = set(), 0
    while decisions < DECISIONS:
        seed += 1
        kwargs = dict(seed=seed, num_hands=rng.randint(1, 3), variant=variant,
                      scores=(rng.randrange(3), rng.randrange(3)) if seed % 2 else (0, 0))
        c, py = Game.new(**kwargs), Game.new(**kwargs)
        while not py.is_over:  # py is driven by the Python definitions only
            mask = legal_by_python(py)
            legal = [a for a in range(42) if (mask >> a) & 1]
            assert c.legal_actions() == legal, (seed, py.history)
            assert c.legal_mask == mask
            a = pick(rng, legal)
            c.apply(a)
            py._apply_py(a)
            decisions += 1
            assert c.state_dict() == py.state_dict(), (seed, py.history)
            assert c.current_player == py.current_player
            for p in (0, 1):  # the C encoder reading the slots, against the Python one
                over = decisions % 7 == 0
                obs, mask = game_encoder.encode_game(c, p, over)
                want, want_mask = game_encoder._encode_py(py, p, over)
                assert np.array_equal(obs, want) and np.array_equal(mask, want_mask), seed
            tiebreaks += py.hand_no >= py.num_hands and not py.is_over
        levels |= {r.crack_level for r in py.results}
        assert c.results == py.results and c.scores == py.scores
    assert levels == {0, 1, 2, 3, 4} and tiebreaks > 0


@pytest.mark.parametrize("action", [-1, 42, 99, 10**30, -(10**30)])
def test_illegal_actions_raise_the_same_error_and_change_nothing(action):
    rng = random.Random(4)
    for seed in range(40):
        game = Game.new(seed=seed, num_hands=2)
        for _ in range(rng.randrange(60)):
            if game.is_over:
                break
            game.apply(rng.choice(game.legal_actions()))
        wrong = [a for a in range(42) if a not in game.legal_actions()][:3] + [action]
        for a in wrong:
            before = game.state_dict()
            with pytest.raises(IllegalActionError) as by_core:
                game.apply(a)
            assert game.state_dict() == before
            with pytest.raises(IllegalActionError) as by_python:
                game._apply_py(a)
            assert str(by_core.value) == str(by_python.value)
            assert game.state_dict() == before


@pytest.mark.parametrize("variant", VARIANTS)
def test_the_compiled_start_of_a_hand_equals_the_python_one(variant):
    """``game_start_hand`` (C) against ``Game._start_hand_py``: every field of a hand's
    start, for later hands too, tied and untied scores, both first dealers."""
    rng = random.Random(variant)
    for seed in range(150):
        g = Game.new(seed=seed, dealer=seed % 2, num_hands=3, variant=variant,
                     scores=(rng.randrange(3), rng.randrange(3)))
        g.history.extend(range(seed % 5))  # hand_start counts the actions before
        for n in range(3):
            g.hand_no = n
            if n == len(g.deals):
                g.deals.append(rules.seeded_variant_deal(seed, n, g.variant))
            c, py = g.clone(), g.clone()
            rules._core_start(c, g.deals[n])
            Game._start_hand_py(py, g.deals[n])
            assert c.state_dict() == py.state_dict(), (seed, n)


@pytest.mark.parametrize("deal", [
    [[[0] * 8, [1] * 5, [2] * 5]],  # one player
    [[[0] * 8, [1] * 5, [2] * 5], [[0] * 8, [1] * 5]],  # no face-down cards
    [[[0] * 8, [1] * 5, [2] * 4], [[0] * 8, [1] * 5, [2] * 5]],  # up and down differ
    [[[0] * 9, [1] * 5, [2] * 5], [[0] * 8, [1] * 5, [2] * 5]],  # nine hand cards
    [[[36] * 8, [1] * 5, [2] * 5], [[0] * 8, [1] * 5, [2] * 5]],  # no card 36
    [[[-1] * 8, [1] * 5, [2] * 5], [[0] * 8, [1] * 5, [2] * 5]],
    [[["QC"] * 8, [1] * 5, [2] * 5], [[0] * 8, [1] * 5, [2] * 5]],
    None,
])
def test_the_compiled_start_of_a_hand_refuses_a_malformed_deal_and_changes_nothing(deal):
    g = Game.new(seed=4)
    before = g.state_dict()
    with pytest.raises((ValueError, TypeError)):
        rules._core_start(g, deal)
    assert g.state_dict() == before


def test_the_methods_on_the_class_are_the_cores_and_take_every_action_form():
    """``Game.apply``, ``legal_actions`` and ``is_over`` are the compiled core's descriptors
    (``_speedups.game_methods``): an action given as a keyword or a numpy integer does what
    the Python definition does with it, and a bool, a float, a string or a wrong number of
    arguments raises the same errors, changing nothing."""
    assert type(Game.__dict__["apply"]).__name__ == "method_descriptor"
    assert type(Game.__dict__["is_over"]).__name__ == "getset_descriptor"
    for form in (int, np.int64, np.int8, lambda a: {"action": a}):
        c, py = Game.new(seed=5, num_hands=2), Game.new(seed=5, num_hands=2)
        rng = random.Random(5)
        while not py.is_over:
            mask = legal_by_python(py)
            assert c.legal_actions() == [a for a in range(42) if (mask >> a) & 1]
            a = pick(rng, c.legal_actions())
            given = form(a)
            if isinstance(given, dict):
                c.apply(**given)
            else:
                c.apply(given)
            py._apply_py(a)
            assert c.state_dict() == py.state_dict() and c.is_over == (py.phase == 4)
    game = Game.new(seed=6)
    before = game.state_dict()
    for wrong in (True, "36", 36.0, None):
        with pytest.raises(IllegalActionError) as by_core:
            game.apply(wrong)
        with pytest.raises(IllegalActionError) as by_python:
            game._apply_py(wrong)
        assert str(by_core.value) == str(by_python.value)
    for args, kwargs in (((), {}), ((36, 37), {}), ((), {"card": 36}), ((36,), {"action": 36})):
        with pytest.raises(TypeError, match="one argument, the action"):
            game.apply(*args, **kwargs)
    assert game.state_dict() == before and game.legal_actions() == [36, 37, 38, 39]


@pytest.mark.parametrize("slot, value, error", [
    ("hand", -1, OverflowError), ("hand", 2**63, OverflowError), ("hand", 1.5, TypeError),
    ("_legal", 2**64, OverflowError), ("_legal", "x", TypeError)])
def test_a_corrupted_slot_raises_a_clear_error_in_the_compiled_paths(slot, value, error):
    """The compiled paths read the slots' ints directly; a value that is no card set (or
    no int) raises instead of being read as one."""
    game = Game.new(seed=4)
    game.apply(game.legal_actions()[0])  # a named trump: the play of cards follows
    while game.phase != rules.Phase.PLAY:
        game.apply(game.legal_actions()[0])
    values = getattr(game, slot)
    if isinstance(values, list):
        values[game.current] = value
    else:
        setattr(game, slot, value)
    with pytest.raises(error):
        game.apply(game.legal_actions()[0] if slot != "_legal" else 0)


@pytest.mark.parametrize("value", [-1, 2**36, 2**64 + 5, 1.0])
def test_the_compiled_encoder_refuses_a_slot_that_holds_no_card_set(value):
    """The compiled encoder reads a Game's card sets from its slots: a value outside
    0..2**36-1 (or no int) is a ValueError naming the slot, never read as cards."""
    game = Game.new(seed=4)
    game.hand[1] = value
    with pytest.raises(ValueError, match=r"Game\.hand must hold card sets"):
        game_encoder.encode_game(game, 0)
