"""Fuzzing every public entry point of the engine and the envs (hypothesis).

Any input either works or raises ``ValueError``/``TypeError`` (``IllegalActionError`` is a
``ValueError``), never ``IndexError``, ``KeyError``, ``AttributeError``,
``AssertionError`` or ``OverflowError``; and after an error the object's serialised state
and its random stream are exactly what they were (transactional).
"""

from __future__ import annotations

import copy
import json
import math
import random

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from widderkopf_env import Game, WidderkopfEnv, env, load_agent
from widderkopf_env.checks import parse_player
from widderkopf_env.deals import parse_deal
from widderkopf_env.gym_env import OpponentError

ALLOWED = (ValueError, TypeError)
FUZZ = settings(max_examples=150, deadline=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture])

anything = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True)
    | st.text(max_size=6) | st.sampled_from([2**63, -1, 1.0, np.int64(1), np.int8(0), "player_0",
                                             "QC", "10D", "trump H", math.nan]),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
        st.text(max_size=8) | st.integers(), inner, max_size=4),
    max_leaves=8)


def works_or_refuses(fn, *args, **kwargs):
    try:
        return fn(*args, **kwargs)
    except ALLOWED:
        return None


def played(seed: int, steps: int) -> Game:
    rng = random.Random(seed)
    game = Game.new(seed=seed, num_hands=1 + seed % 3)
    for _ in range(steps):
        if game.is_over:
            break
        game.apply(rng.choice(game.legal_actions()))
    return game


# --- the engine --------------------------------------------------------------------------------

@FUZZ
@given(seed=anything, dealer=anything, num_hands=anything, scores=anything)
def test_game_new_works_or_refuses(seed, dealer, num_hands, scores):
    game = works_or_refuses(Game.new, seed=seed, dealer=dealer, num_hands=num_hands,
                            scores=scores)
    if game is not None:
        assert game.legal_actions() and game.num_hands <= 1_000_000


@FUZZ
@given(spec=anything, player=anything)
def test_parsers_work_or_refuse(spec, player):
    works_or_refuses(parse_deal, spec)
    works_or_refuses(parse_player, player)


@FUZZ
@given(seed=st.integers(0, 10**6), steps=st.integers(0, 80), action=anything, player=anything)
def test_apply_and_queries_are_transactional(seed, steps, action, player):
    game = played(seed, steps)
    before = game.state_dict()
    try:
        game.apply(action)
    except ALLOWED:
        assert game.state_dict() == before
    works_or_refuses(game.may_escalate, player)
    works_or_refuses(game.view, player)


def _mutations(doc: dict, rng: random.Random) -> dict:
    doc = copy.deepcopy(doc)
    key = rng.choice(sorted(doc))
    choice = rng.randrange(6)
    if choice == 0:
        del doc[key]
    elif choice == 1:
        doc[key] = rng.choice([None, "abc", 1.5, math.nan, -1, 2, 2**63, [], {}, True])
    elif choice == 2 and doc["actions"]:
        doc["actions"][rng.randrange(len(doc["actions"]))] = rng.choice(
            ["QC", "trump X", "pass", "escalate", 7, None])
    elif choice == 3:
        doc["deals"] = rng.choice([[], [{}], doc["deals"] * 2, [doc["deals"][0]] * 3])
    elif choice == 4 and doc["deals"]:
        seat = rng.choice(["player_0", "player_1"])
        part = rng.choice(["hand", "up", "down"])
        cards = doc["deals"][0][seat][part]
        cards[rng.randrange(len(cards))] = rng.choice(["QC", "XX", "6D", 3])
    else:
        doc = rng.choice([[doc], 5, None, "text"])
    return doc


def test_from_json_mutation_fuzz():
    """Mutated game files (a field dropped, retyped, out of range; actions and cards
    replaced): each gives a game or a ValueError/TypeError, never another exception."""
    rng = random.Random(7)
    outcomes = {"ok": 0, "refused": 0}
    for i in range(600):
        doc = json.loads(played(i, rng.randrange(90)).to_json())
        text = json.dumps(_mutations(doc, rng))
        try:
            game = Game.from_json(text)
        except ALLOWED:
            outcomes["refused"] += 1
        else:
            outcomes["ok"] += 1
            assert Game.from_json(game.to_json()).state_dict() == game.state_dict()
    # (a deal list longer than the match's hands is refused: at most one deal per hand)
    assert outcomes["ok"] > 20 and outcomes["refused"] > 300
    for bad in (b"\xff", "[", "{}", "null", 5, None):
        with pytest.raises(ALLOWED):
            Game.from_json(bad)


def test_from_json_checks_the_fields_named_in_the_issue():
    doc = json.loads(played(1, 10).to_json())
    for field, value, message in (("first_dealer", 2, "first_dealer"),
                                  ("seed", "abc", "seed"), ("seed", None, "seed"),
                                  ("seed", 1.5, "seed"), ("deals", [], "deals"),
                                  ("num_hands", 2**63, "num_hands")):
        bad = {**doc, field: value}
        with pytest.raises(ValueError, match=message):
            Game.from_json(json.dumps(bad))
    with pytest.raises(ValueError, match="action #0"):
        Game.from_json(json.dumps({**doc, "actions": ["pass"]}))
    with pytest.raises(ValueError, match="missing field 'actions'"):
        Game.from_json(json.dumps({k: v for k, v in doc.items() if k != "actions"}))


def test_copy_gives_an_independent_game():
    game = played(3, 12)
    twin = copy.copy(game)
    deep = copy.deepcopy(game)
    before = game.state_dict()
    for g in (twin, deep):
        g.apply(g.legal_actions()[0])
        assert game.state_dict() == before


def test_validation_gaps_named_in_the_issue():
    assert Game.new(seed=1, dealer=np.int64(1)).dealer == 1
    for bad in ({"scores": {0: 1, 1: 2}}, {"scores": None}, {"scores": 5},
                {"scores": (2**63, 0)}, {"num_hands": 2**63}, {"dealer": 1.0}):
        with pytest.raises(ValueError):
            Game.new(seed=1, **bad)
    with pytest.raises(ValueError, match="player"):
        Game.new(seed=1).may_escalate(2)
    hand = {"QC", "JH", "AH", "10H", "AS", "6S", "9D", "8C"}
    deal = json.loads(played(5, 0).to_json())["deals"][0]
    deal["player_0"]["hand"] = hand
    with pytest.raises(ValueError, match="list"):
        Game.from_deal(deal)
    with pytest.raises(ValueError, match="illegal_reward"):
        env(illegal_reward=math.nan)


# --- the environments ---------------------------------------------------------------------------

def aec_state(e) -> tuple:
    return (e.game.state_dict(), e.agent_selection, dict(e.terminations), dict(e.rewards),
            json.dumps(e.np_random.bit_generator.state))


@FUZZ
@given(seed=st.integers(0, 10**6), steps=st.integers(0, 60), action=anything,
       options=anything)
def test_aec_env_is_transactional(seed, steps, action, options):
    e = env(illegal_action="raise")
    e.reset(seed=seed)
    rng = random.Random(seed)
    for _ in range(steps):
        obs, _, term, trunc, _ = e.last()
        if term or trunc:
            break
        e.step(rng.choice(np.flatnonzero(obs["action_mask"]).tolist()))
    if not e.agents or e.terminations[e.agent_selection]:
        return
    before = aec_state(e)
    try:
        e.step(action)
    except ALLOWED:
        assert aec_state(e) == before
    before = aec_state(e) if e.agents else None
    try:
        e.reset(seed=None, options=options)
    except ALLOWED:
        assert before is None or aec_state(e) == before


def gym_state(g) -> tuple:
    return (g.game.state_dict(), g.seat, g.action_masks().tolist(),
            json.dumps(g.np_random.bit_generator.state))


@FUZZ
@given(seed=st.integers(0, 10**6), action=anything, options=anything)
def test_gym_env_is_transactional(seed, action, options):
    g = WidderkopfEnv(opponent="random", illegal_action="raise")
    g.reset(seed=seed)
    before = gym_state(g)
    try:
        g.step(action)
    except ALLOWED:
        assert gym_state(g) == before
    before = gym_state(g)
    try:
        g.reset(options=options)
    except ALLOWED:
        assert gym_state(g) == before


@FUZZ
@given(kwargs=st.dictionaries(st.sampled_from(["opponent", "seat", "num_hands",
                                               "reward_shaping", "illegal_action",
                                               "illegal_reward"]), anything, max_size=3))
def test_env_constructors_and_load_agent_work_or_refuse(kwargs):
    works_or_refuses(WidderkopfEnv, **kwargs)
    kwargs.pop("opponent", None)
    kwargs.pop("seat", None)
    works_or_refuses(env, **kwargs)
    for spec in kwargs.values():
        if isinstance(spec, str):
            works_or_refuses(load_agent, spec)


class Failing:
    """An opponent that raises at its ``after``-th decision."""

    def __init__(self, after: int):
        self.after, self.calls = after, 0

    def reset(self, seed=None):
        self.calls = 0

    def act(self, view):
        self.calls += 1
        if self.calls > self.after:
            raise RuntimeError("the opponent's own bug")
        return view.legal_actions()[0]


class Illegal(Failing):
    def act(self, view):
        if self.calls >= self.after:
            return 41 if 41 not in view.legal_actions() else 0
        self.calls += 1
        return view.legal_actions()[0]


@pytest.mark.parametrize("opponent", [Failing, Illegal])
def test_a_failing_opponent_in_step_leaves_the_env_as_it_was(opponent):
    for seed in range(6):
        g = WidderkopfEnv(opponent=opponent(after=3 + seed), seat=0)
        g.reset(seed=seed)
        while True:
            before = gym_state(g)
            try:
                _, _, done, _, _ = g.step(int(np.flatnonzero(g.action_masks())[0]))
            except OpponentError as err:
                assert "opponent" in str(err) and "as it was" in str(err)
                assert gym_state(g) == before  # the learner's own move is taken back too
                assert g.game.current == 0
                break
            assert not done


def test_a_failing_opponent_in_reset_leaves_the_env_as_it_was():
    g = WidderkopfEnv(opponent=Failing(after=0), seat=1)
    g.opponent.after = 100
    g.reset(seed=4)
    g.opponent.after = 0  # from now on it raises whenever it is to act
    raised = 0
    for _ in range(12):
        before = gym_state(g)
        try:
            g.reset()  # succeeds when the learner names trumps (R9), else the opponent fails
        except OpponentError as err:
            assert "raised RuntimeError" in str(err)
            assert gym_state(g) == before  # the random stream included
            raised += 1
    assert raised >= 3


def test_copy_of_an_env_is_independent():
    e = env()
    e.reset(seed=2)
    twin = copy.copy(e)
    obs, *_ = twin.last()
    twin.step(int(np.flatnonzero(obs["action_mask"])[0]))
    assert e.game.history == [] and twin.game.history != []
    g = WidderkopfEnv(opponent="random")
    g.reset(seed=3)
    twin = copy.copy(g)
    twin.step(int(np.flatnonzero(twin.action_masks())[0]))
    assert g.game.history != twin.game.history


# --- game file bounds ---------------------------------------------------------------------------

def test_a_huge_game_file_is_refused_before_it_is_parsed():
    """200,000 deals for a one-hand game (61 MB): refused by its size, before json.loads
    or any deal is built (the peak of new memory stays tiny)."""
    import tracemalloc

    from widderkopf_env.game_file import MAX_DOCUMENT_SIZE

    doc = json.loads(played(1, 0).to_json())
    deal = json.dumps(doc["deals"][0])
    head = json.dumps({**doc, "deals": []})[:-len('[], "actions": []}')]
    text = head + "[" + ", ".join([deal] * 200_000) + '], "actions": []}'
    assert len(text) > 60_000_000 > MAX_DOCUMENT_SIZE
    tracemalloc.start()
    try:
        with pytest.raises(ValueError, match="game file is too long"):
            Game.from_json(text)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 100_000


def test_a_game_file_lists_at_most_one_deal_per_hand():
    doc = json.loads(played(0, 0).to_json())
    assert doc["num_hands"] == 1
    for count in (2, 1000):
        with pytest.raises(ValueError, match=f"lists {count:,} deals, but the match has at "
                                             "most 1 hands"):
            Game.from_json(json.dumps({**doc, "deals": doc["deals"] * count}))
    three = {**doc, "num_hands": 3, "deals": doc["deals"] * 3}
    assert Game.from_json(json.dumps(three)).num_hands == 3  # deals of hands to come


def test_files_of_matches_with_tie_break_hands_still_load():
    """R20: a tied match plays on past num_hands; its file lists one deal per hand played,
    more than num_hands, and loads."""
    found = 0
    for seed in range(200):
        g = Game.new(seed=seed, num_hands=1, scores=(0, 1))
        rng = random.Random(seed)
        while not g.is_over:
            g.apply(rng.choice(g.legal_actions()))
        if len(g.deals) > 1:
            found += 1
            assert Game.from_json(g.to_json()).state_dict() == g.state_dict()
    assert found


@pytest.mark.parametrize("field, value", [("version", True), ("version", 1.0),
                                          ("seed", 2**4097), ("num_hands", 1_000_001)],
                         ids=["version true", "version 1.0", "seed 2**4097", "num_hands"])
def test_game_file_fields_of_the_wrong_type_or_size_are_refused(field, value):
    doc = json.loads(played(2, 5).to_json())
    with pytest.raises(ValueError, match=field):
        Game.from_json(json.dumps({**doc, field: value}))
