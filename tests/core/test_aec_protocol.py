"""The AEC env's PettingZoo protocol as users drive it: ``reset()`` in each form of its
arguments, ``agent_iter()``, illegal actions in the middle of a match, observations that
stay what they were once handed out; and the env is plain Python over PettingZoo's public
API (no method replaced after import, no observation reused)."""

from __future__ import annotations

import ast
import gc
import inspect
import random
import warnings
import weakref

import numpy as np
import pytest
from pettingzoo import AECEnv

import widderkopf_env as w
from widderkopf_env import Game, aec_env
from widderkopf_env.aec_env import env, raw_env
from widderkopf_env.observation import action_mask, encode, to_compact

#: What PettingZoo users read after each call.
PUBLIC = ("agents", "rewards", "_cumulative_rewards", "terminations", "truncations", "infos",
          "agent_selection")


def _public(env) -> dict:
    return {name: getattr(env, name) for name in PUBLIC}


def _random_step(env, rng: random.Random) -> None:
    obs, _, term, trunc, _ = env.last()
    legal = np.flatnonzero(obs["action_mask"])
    env.step(None if term or trunc else int(legal[rng.randrange(len(legal))]))


FORMS = [((), {}), ((None,), {}), ((), {"seed": None}), ((), {"options": None}),
         ((None, None), {}), ((None,), {"options": None}), ((), {"options": None, "seed": None})]


@pytest.mark.parametrize("variant", sorted(w.VARIANTS))
@pytest.mark.parametrize("num_hands", [1, 4])
def test_reset_in_each_form_starts_the_next_match_afresh(variant, num_hands):
    """``reset()`` without a seed deals the next match from the env's generator, whatever
    form its arguments take and however far the last match went: an env that played moves
    (and hands) before each reset starts the same matches as a twin that played none."""
    played, twin = (w.env(num_hands=num_hands, variant=variant) for _ in range(2))
    played.reset(seed=17)
    twin.reset(seed=17)
    rng = random.Random(17)
    for k in range(14):
        for _ in range(k * 9 % 50):  # some moves (past a hand's end, or the match's)
            if not played.agents:
                break
            _random_step(played, rng)
        args, kwargs = FORMS[k % len(FORMS)]
        played.reset(*args, **kwargs)
        twin.reset()
        assert _public(played) == _public(twin)
        assert played.game.state_dict() == twin.game.state_dict()
        assert played.np_random.bit_generator.state == twin.np_random.bit_generator.state
        assert played.agents == ["player_0", "player_1"]
        assert played.rewards == played._cumulative_rewards == {"player_0": 0, "player_1": 0}
        assert played.infos == {"player_0": {}, "player_1": {}}
        assert not any(played.terminations.values())
        assert played.agent_selection == f"player_{played.game.current_player}"
    seeded = w.env(num_hands=num_hands, variant=variant)
    seeded.reset(seed=5, options={"dealer": "player_1"})
    played.reset(seed=5, options={"dealer": "player_1"})
    assert played.game.state_dict() == seeded.game.state_dict()
    assert played.game.state_dict() == Game.new(seed=5, dealer=1, num_hands=num_hands,
                                                variant=variant).state_dict()


def test_a_reset_with_bad_arguments_raises_and_changes_nothing():
    env = w.env()
    env.reset(seed=1)
    _random_step(env, random.Random(1))
    before = (_public(env), env.game.state_dict(), env.np_random.bit_generator.state)
    for args, kwargs, error in [((None, None, None), {}, TypeError),
                                ((None,), {"seed": None}, TypeError),
                                ((), {"sed": None}, TypeError), ((), {"seed": -1}, ValueError),
                                (("x",), {}, TypeError), ((None, "deal"), {}, ValueError),
                                ((2**5000,), {}, ValueError)]:
        with pytest.raises(error), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            env.reset(*args, **kwargs)
        assert (_public(env), env.game.state_dict(),
                env.np_random.bit_generator.state) == before, (args, kwargs)

    class Mine(w.aec_env.raw_env):
        pass

    mine, ref = Mine(num_hands=2), w.env(num_hands=2)
    mine.reset(seed=4)
    ref.reset(seed=4)
    mine.reset()
    ref.reset()
    assert mine.game.state_dict() == ref.game.state_dict()


@pytest.mark.filterwarnings("ignore:an illegal action ended the episode")
@pytest.mark.parametrize("kwargs", [{"num_hands": 3}, {"num_hands": 2, "reward_shaping": True},
                                    {"num_hands": 2, "obs_dtype": np.uint8}])
def test_an_illegal_action_in_the_middle_of_a_match_ends_it(kwargs):
    """An illegal action id at any point (after tricks, after a hand's end, with rewards
    still to collect) ends the episode: the offender's return is the penalty on top of
    what it had, the other agent keeps what it had, both must step None."""
    for seed in range(8):
        env = w.env(**kwargs)
        env.reset(seed=seed)
        rng = random.Random(seed)
        stop = rng.randrange(1, 60)
        for k, agent in enumerate(env.agent_iter()):
            obs, _, term, _, _ = env.last()
            if term:
                break
            legal = np.flatnonzero(obs["action_mask"])
            if k < stop:
                env.step(int(legal[rng.randrange(len(legal))]))
                continue
            pending = dict(env._cumulative_rewards)
            action = next(a for a in range(42) if a not in legal)
            if rng.randrange(2):
                action = np.int64(action)
            env.step(action)
            other = "player_1" if agent == "player_0" else "player_0"
            penalty = env.infos[agent]["illegal_reward"]
            assert penalty < 0 and env.rewards == {agent: penalty, other: 0.0}
            assert env._cumulative_rewards == {agent: penalty, other: pending[other]}
            assert env.infos[other] == {"opponent_illegal_action": True}
            assert env.infos[agent]["action"] == action
            assert env.infos[agent]["legal_actions"] == legal.tolist()
            assert all(env.terminations.values()) and env.agent_selection == other
            returns = {}
            for dead in env.agent_iter():
                obs, reward, term, _, _ = env.last()
                assert term and not obs["action_mask"].any()
                returns[dead] = reward
                env.step(None)
            assert returns == {agent: penalty, other: pending[other]}
            assert env.agents == []
            break


@pytest.mark.parametrize("obs_dtype", [np.float32, np.uint8])
def test_an_observation_still_held_keeps_what_it_said(obs_dtype):
    """An observation a caller keeps (its dict, either array, a view of it, one with a weak
    reference on it) keeps what it said while the env plays on, and one the caller
    changed does not change what the env hands out next."""
    env = w.env(num_hands=2, obs_dtype=obs_dtype)
    env.reset(seed=5)
    rng = random.Random(5)
    kept, weak = [], []
    for k, _agent in enumerate(env.agent_iter()):
        obs, _, term, trunc, _ = env.last()
        assert set(obs) == {"observation", "action_mask"}
        assert obs["observation"].flags.writeable and obs["action_mask"].flags.writeable
        case = k % 7
        if case == 0:
            kept.append((obs, {key: a.copy() for key, a in obs.items()}))
        elif case in (1, 2):
            array = obs["observation" if case == 1 else "action_mask"]
            kept.append((array, array.copy()))
        elif case == 3:
            view = obs["observation"][100:300]
            kept.append((view, view.copy()))
        elif case == 4:
            weak.append((weakref.ref(obs["observation"]), obs["observation"].copy()))
        elif case == 5:
            obs["observation"].flags.writeable = False
        elif case == 6:
            obs["extra"] = 1
        legal = np.flatnonzero(obs["action_mask"])
        del obs
        env.step(None if term or trunc else int(legal[rng.randrange(len(legal))]))
        for ref, copy in weak:
            assert ref() is None or np.array_equal(ref(), copy)
    assert len(kept) > 30
    for held, copy in kept:
        if isinstance(held, dict):
            for key in copy:
                np.testing.assert_array_equal(held[key], copy[key])
        else:
            np.testing.assert_array_equal(held, copy)


def _iterate(env, iterator, plan):
    """What ``iterator`` does over ``env`` when the loop steps per ``plan`` (True: step a
    legal action, False: skip the step): the agents yielded, then how it ended, then what a
    further ``next()`` does."""
    seen = []
    rng = random.Random(0)
    for k in range(200):
        try:
            agent = next(iterator)
        except StopIteration:
            seen.append("stop")
            break
        except RuntimeError as error:
            seen.append(f"raised: {error}")
            break
        assert agent == env.agent_selection
        seen.append(agent)
        if plan(k):
            _random_step(env, rng)
    try:
        seen.append(f"then {next(iterator)}")
    except StopIteration:
        seen.append("then stop")
    return seen


@pytest.mark.parametrize("max_iter, skip_at", [(2**63, None), (2**70, None), (5, None),
                                               (0, None), (-3, None), (2**63, 7)])
def test_agent_iter_yields_until_the_end_or_max_iter(max_iter, skip_at):
    """``agent_iter()`` yields the agent to act until every agent has stepped out (the
    terminated ones step None) or ``max_iter`` agents were yielded; a loop that skips a
    ``step()`` gets a ``RuntimeError``; once stopped or raised, the iterator is finished."""
    env = w.env(num_hands=2)
    env.reset(seed=11)
    seen = _iterate(env, iter(env.agent_iter(max_iter)), lambda k: k != skip_at)
    agents = [s for s in seen if s.startswith("player_")]
    assert seen[len(agents):] == ["stop" if skip_at is None else
                                  "raised: call step() (or reset()) in each iteration of "
                                  "agent_iter()", "then stop"]
    if skip_at is not None:
        assert len(agents) == skip_at + 1
    elif max_iter < 100:
        assert len(agents) == max(max_iter, 0)
    else:
        assert env.agents == [] and len(agents) == len(env.game.history) + 2


# --- plain Python: no class patched, no observation reused -----------------------------------

def _defined_in_class(cls) -> set[str]:
    """The names of the functions the class body of ``cls`` defines in aec_env.py."""
    tree = ast.parse(inspect.getsource(aec_env))
    body = next(node for node in tree.body
                if isinstance(node, ast.ClassDef) and node.name == cls.__name__).body
    return {node.name for node in body if isinstance(node, ast.FunctionDef)}


def test_the_env_class_holds_the_methods_its_source_defines():
    """Nothing replaces raw_env's methods after its class body ran (no compiled
    descriptors set at import), and making a subclass changes neither class."""
    defined = _defined_in_class(raw_env)
    assert {"last", "step", "reset", "observe", "agent_iter"} <= defined

    def methods(cls):
        return {name: value for name, value in vars(cls).items()
                if callable(value) or isinstance(value, (property, classmethod, staticmethod))}

    before = methods(raw_env)
    for name, value in before.items():
        function = (value.fget if isinstance(value, property) else
                    value.__func__ if isinstance(value, (classmethod, staticmethod)) else value)
        assert inspect.isfunction(function), name
        assert function.__code__.co_filename == aec_env.__file__, name
        assert function.__qualname__ == f"raw_env.{name}", name
    assert set(before) == defined

    class Mine(raw_env):
        def observe(self, agent):
            return {"mine": agent}

    assert methods(raw_env) == before and set(methods(Mine)) == {"observe"}
    for name in ("last", "_was_dead_step", "_accumulate_rewards", "agent_iter"):
        assert getattr(AECEnv, name).__module__ == "pettingzoo.utils.env", name
    mine = Mine()
    mine.reset(seed=1)
    assert mine.last()[0] == {"mine": mine.agent_selection}


def _referrers(obj) -> list:
    return [r for r in gc.get_referrers(obj) if not inspect.isframe(r)]


@pytest.mark.parametrize("obs_dtype", [np.float32, np.uint8])
def test_last_returns_a_new_observation_each_time(obs_dtype):
    """Each ``last()`` builds a new dict of new arrays that the env keeps no reference to:
    a caller may keep, change or drop it, and the next observation is still right."""
    e = env(num_hands=2, obs_dtype=obs_dtype)
    e.reset(seed=5)
    rng = random.Random(5)
    previous = []
    for _agent in e.agent_iter():
        obs, _, term, trunc, _ = e.last()
        assert set(obs) == {"observation", "action_mask"}
        view = e.game.view(e.agent_selection)
        expected = encode(view) if obs_dtype == np.float32 else to_compact(encode(view))
        np.testing.assert_array_equal(obs["observation"], expected)
        assert obs["observation"].dtype == obs_dtype and obs["action_mask"].dtype == np.int8
        if not term:
            np.testing.assert_array_equal(obs["action_mask"], action_mask(view))
        again = e.last()[0]
        assert again is not obs
        for key in ("observation", "action_mask"):  # no closure over obs: it would refer to it
            assert not np.shares_memory(again[key], obs[key])
        assert _referrers(obs) == []  # the env keeps no reference to it
        legal = np.flatnonzero(obs["action_mask"])
        obs["observation"][:] = 7  # mutate what was handed out, keep it, or drop it
        obs["action_mask"][:] = 1
        obs["extra"] = 1
        if len(previous) < 5:
            previous.append(obs)
        del obs, again
        e.step(None if term or trunc else int(legal[rng.randrange(len(legal))]))
    assert all((p["observation"] == 7).all() for p in previous)
