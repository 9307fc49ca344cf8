"""The compiled Game (``_core.GameState``, csrc/game.c) against its reference, the
pure-Python :class:`~widderkopf_env.rules.PyGame` (RULES R1-R20).

Two copies of every random match (every variant, one to three hands from tied and untied
scores, escalating often) are driven side by side: a ``Game`` and a ``PyGame``. Before
every decision the legal sets are compared, and after it the whole state (``state_dict``:
hands, piles, tricks, history, results, the deals of later hands), the queries and both
players' observations (the Game's own ``encode`` against the Python encoder). Illegal
actions (wrong ids, out-of-range and huge ints, other types) must raise the same error
from both and change nothing. Worlds built ``from_view`` play on alike; clones are
independent; a pickled game comes back equal.
"""

from __future__ import annotations

import copy
import pickle
import random

import numpy as np
import pytest

from widderkopf_env import VARIANTS, Game, IllegalActionError, game_encoder, rules
from widderkopf_env.cards import ESCALATE
from widderkopf_env.engine_types import STATE_FIELDS
from widderkopf_env.worlds import Resampler, from_view

pytestmark = pytest.mark.skipif(rules.CORE is None, reason="the compiled core is not built or is disabled")
PyGame = rules.PyGame
#: Decisions compared per variant (at least).
DECISIONS = 10_000


def pick(rng: random.Random, legal: list[int]) -> int:
    if ESCALATE in legal and rng.random() < 0.4:
        return ESCALATE
    return rng.choice(legal)


FIELDS = [f for f in STATE_FIELDS if f != "_legal"]


def fields(game) -> dict:
    return {f: getattr(game, f) for f in FIELDS}


def same(c: Game, py: PyGame, where) -> None:
    """Every public field and query of the two games agrees."""
    assert fields(c) == fields(py), where
    assert c.legal_actions() == py.legal_actions() and c.legal_mask == py.legal_mask, where
    assert (c.current_player, c.is_over, c.phase) == (py.current_player, py.is_over, py.phase)
    assert c.escalation_rights() == py.escalation_rights(), where
    assert [c.may_escalate(p) for p in (0, 1)] == [py.may_escalate(p) for p in (0, 1)]
    assert c.card_points() == py.card_points() and c.returns() == py.returns(), where
    assert c.results == py.results and c.initial_scores == py.initial_scores, where
    assert c.variant is py.variant and repr(c) == repr(py), where


def encoders_agree(c: Game, py: PyGame, over: bool) -> None:
    for p in (0, 1):
        obs, mask = game_encoder.encode_game(c, p, over)
        want, want_mask = game_encoder._encode_py(py, p, over)
        assert obs.dtype == np.float32 and mask.dtype == np.int8
        assert np.array_equal(obs, want) and np.array_equal(mask, want_mask)


@pytest.mark.parametrize("variant", VARIANTS)
def test_the_compiled_game_equals_the_python_game_at_every_decision(variant):
    rng = random.Random(variant)
    decisions = seed = 0
    levels, tiebreaks = set(), 0
    while decisions < DECISIONS:
        seed += 1
        kwargs = dict(seed=seed, num_hands=rng.randint(1, 3), variant=variant,
                      scores=(rng.randrange(3), rng.randrange(3)) if seed % 2 else (0, 0))
        c, py = Game.new(**kwargs), PyGame.new(**kwargs)
        same(c, py, seed)
        assert c.state_dict() == py.state_dict()
        while not py.is_over:
            a = pick(rng, py.legal_actions())
            c.apply(a)
            py.apply(a)
            decisions += 1
            same(c, py, (seed, py.history))
            encoders_agree(c, py, decisions % 7 == 0)
            tiebreaks += py.hand_no >= py.num_hands and not py.is_over
        levels |= {r.crack_level for r in py.results}
    assert levels == {0, 1, 2, 3, 4} and tiebreaks > 0


@pytest.mark.parametrize("variant", VARIANTS)
def test_worlds_from_a_view_play_on_alike(variant):
    """``from_view`` (worlds.world_fields' fields, loaded by the Game in C) at random
    points of random matches: the world and PyGame's world of the same hidden cards agree
    field by field and at every decision to the end."""
    rng = random.Random(f"worlds {variant}")
    for seed in range(40):
        game = PyGame.new(seed=seed, num_hands=2, variant=variant)
        for _ in range(rng.randrange(80)):
            if game.is_over:
                break
            game.apply(pick(rng, game.legal_actions()))
        if game.is_over:
            continue
        hidden = Resampler(game.view(game.current)).draw(random.Random(seed))
        view = game.view(game.current)
        c, py = from_view(view, *hidden), from_view(view, *hidden, game_class=PyGame)
        assert isinstance(c, Game) and type(py) is PyGame
        same(c, py, seed)
        while not py.is_over:
            a = pick(rng, py.legal_actions())
            c.apply(a)
            py.apply(a)
            same(c, py, (seed, py.history))


WRONG = [-1, 42, 99, 10**30, -(10**30), True, "36", 36.0, None, np.int64(50), 2**63, 2**64]


def test_illegal_actions_raise_the_same_error_and_change_nothing():
    rng = random.Random(4)
    for seed in range(40):
        c, py = Game.new(seed=seed, num_hands=2), PyGame.new(seed=seed, num_hands=2)
        for _ in range(rng.randrange(60)):
            if py.is_over:
                break
            a = rng.choice(py.legal_actions())
            c.apply(a)
            py.apply(a)
        illegal = [a for a in range(42) if a not in py.legal_actions()][:3]
        for a in illegal + WRONG:
            before = c.state_dict()
            with pytest.raises(IllegalActionError) as by_core:
                c.apply(a)
            with pytest.raises(IllegalActionError) as by_python:
                py.apply(a)
            err, want = by_core.value, by_python.value
            assert (str(err), err.action, err.phase, err.legal) == (
                str(want), want.action, want.phase, want.legal)
            assert c.state_dict() == before == py.state_dict()


def test_apply_takes_every_action_form_and_one_argument_only():
    """An action given as a keyword or a numpy integer does what an int does; a wrong
    number of arguments is a TypeError, changing nothing."""
    for form in (int, np.int64, np.int8, lambda a: {"action": a}):
        c, py = Game.new(seed=5, num_hands=2), PyGame.new(seed=5, num_hands=2)
        rng = random.Random(5)
        while not py.is_over:
            a = pick(rng, py.legal_actions())
            given = form(a)
            if isinstance(given, dict):
                c.apply(**given)
            else:
                c.apply(given)
            py.apply(a)
            assert c.state_dict() == py.state_dict()
    game = Game.new(seed=6)
    before = game.state_dict()
    for args, kwargs in (((), {}), ((36, 37), {}), ((), {"card": 36}), ((36,), {"action": 36})):
        with pytest.raises(TypeError, match="one argument, the action"):
            game.apply(*args, **kwargs)
    assert game.state_dict() == before and game.legal_actions() == [36, 37, 38, 39]


@pytest.mark.parametrize("field", FIELDS)
def test_the_fields_are_read_only_and_lists_read_are_copies(field):
    """No field of the compiled Game can be replaced or deleted (an AttributeError naming
    it); a list read is a new one, but history, results and deals, the game's own."""
    game = Game.new(seed=7)
    value = getattr(game, field)
    with pytest.raises(AttributeError, match=field):
        setattr(game, field, value)
    with pytest.raises(AttributeError, match=field):
        delattr(game, field)
    if isinstance(value, list):
        assert (getattr(game, field) is value) == (field in ("history", "results", "deals"))
        assert getattr(game, field) == value


def test_a_list_read_from_the_game_cannot_change_it():
    game = Game.new(seed=8)
    before = game.state_dict()
    game.hand[0] = 0
    game.up[0] = 99
    game.scores.append(3)
    assert game.state_dict() == before


def test_a_failing_next_deal_leaves_the_game_as_it_was():
    """The end of a hand calls Python (the result, the next hand's deal): a deal that
    cannot be played raises, and the game is as before the move."""
    rng = random.Random(9)
    game = Game.new(seed=9, num_hands=2)
    while game.hand_no == 0:
        last = game.phase == rules.PLAY and game.lead >= 0 and (
            len(game.tricks) + 1 == game.variant.tricks)
        if last:
            break
        game.apply(rng.choice(game.legal_actions()))
    game.deals.append([[1, 2], [3]])  # the next hand's deal, malformed
    before = fields(game)
    with pytest.raises(ValueError, match="deal"):
        game.apply(game.legal_actions()[0])
    assert fields(game) == before
    game.deals[1] = rules.seeded_variant_deal(9, 1, game.variant)
    game.apply(game.legal_actions()[0])
    assert game.hand_no == 1 and len(game.results) == 1


def test_clones_and_copies_are_independent():
    rng = random.Random(10)
    game = Game.new(seed=10, num_hands=2)
    for _ in range(30):
        game.apply(rng.choice(game.legal_actions()))
    for twin in (game.clone(), copy.copy(game), copy.deepcopy(game)):
        assert type(twin) is Game and twin.state_dict() == game.state_dict()
        before = game.state_dict()
        while not twin.is_over:
            twin.apply(twin.legal_actions()[0])
        twin.history.append(99)
        assert game.state_dict() == before
        assert twin.history is not game.history and twin.deals is not game.deals


@pytest.mark.parametrize("variant", VARIANTS)
def test_a_pickled_game_comes_back_equal_and_plays_on_alike(variant):
    rng = random.Random(11)
    game = Game.new(seed=11, num_hands=3, variant=variant)
    for _ in range(rng.randrange(20, 90)):
        if game.is_over:
            break
        game.apply(pick(rng, game.legal_actions()))
    back = pickle.loads(pickle.dumps(game))
    assert type(back) is Game and back.state_dict() == game.state_dict()
    assert back.legal_mask == game.legal_mask and back.variant == game.variant
    py = pickle.loads(pickle.dumps(PyGame._from_fields(fields(game))))
    while not game.is_over:
        a = pick(rng, game.legal_actions())
        for g in (game, back, py):
            g.apply(a)
        assert back.state_dict() == game.state_dict() == py.state_dict()


@pytest.mark.parametrize("change", ["phase", "current", "trump", "lead", "up", "hand", "tricks",
                                    "dealer", "missing"])
def test_fields_out_of_range_are_refused(change):
    """``_from_fields`` refuses a state the rules would index out of bounds with."""
    state = fields(Game.new(seed=12))
    bad = {"phase": 9, "current": 2, "trump": 7, "lead": 40, "up": [-1] * 9,
           "hand": [2**40, 0], "tricks": [(0, 1, 2, 3)] * 20, "dealer": 5}
    if change == "missing":
        del state["level"]
    else:
        state[change] = bad[change]
    with pytest.raises((ValueError, KeyError, TypeError)):
        Game._from_fields(state)


def test_a_bare_game_says_how_to_make_one():
    with pytest.raises(TypeError, match="Game.new"):
        Game(3)
    with pytest.raises(RuntimeError, match="Game.new"):
        Game().legal_actions()
