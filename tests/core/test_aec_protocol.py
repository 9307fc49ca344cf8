"""The AEC env's compiled ``last()`` and ``step()`` (``src/widderkopf_env/_aec.c``) against their
Python definitions (``raw_env._last_py``, ``raw_env._step_py``): two envs dealt alike, one
stepped through the class's methods and one through the Python ones, agree after every
call on what ``last()`` returns and on every attribute PettingZoo users read.
"""

from __future__ import annotations

import random
import warnings
import weakref

import numpy as np
import pytest

import widderkopf_env as w
from widderkopf_env import aec_env, game_encoder
from widderkopf_env.observation import to_compact

pytestmark = pytest.mark.skipif(not aec_env.CORE_STEPS,
                                reason="the compiled core was not built with numpy's headers")

STATE = ("agent_selection", "agents", "rewards", "_cumulative_rewards", "terminations",
         "truncations", "infos", "_has_updated", "_over", "_dirty")


def _same_last(a, b):
    assert len(a) == len(b) == 5
    if a[0] is None or b[0] is None:
        assert a[0] is b[0] is None
    else:
        for key in ("observation", "action_mask"):
            assert a[0][key].dtype == b[0][key].dtype
            np.testing.assert_array_equal(a[0][key], b[0][key])
    assert a[1:] == b[1:]


def _same_as_python_encoder(env):
    """last()'s arrays equal the pure-Python encoder's (float32, or its compact form)."""
    obs, _, term, trunc, _ = env.last()
    agent = env.agent_selection
    ref, mask = game_encoder._encode_py(env.game, int(agent[-1]), env._over or term or trunc)
    if obs["observation"].dtype == np.uint8:
        ref = to_compact(ref)
    np.testing.assert_array_equal(obs["observation"], ref)
    np.testing.assert_array_equal(obs["action_mask"], mask)


def _same_state(fast, slow):
    for name in STATE:
        assert getattr(fast, name) == getattr(slow, name), name
    # set by the steps of terminated agents (PettingZoo's AECEnv._was_dead_step)
    skip = "_skip_agent_selection"
    assert getattr(fast, skip, "unset") == getattr(slow, skip, "unset")
    assert fast.game.state_dict() == slow.game.state_dict()


def _play(kwargs, seed, illegal_every=0, numpy_every=0):
    fast, slow = w.env(**kwargs), w.env(**kwargs)
    rng = random.Random(seed)
    decisions = 0
    for episode in range(6):
        fast.reset(seed=seed + episode)
        slow.reset(seed=seed + episode)
        for _agent in fast.agent_iter():
            _same_last(fast.last(), slow._last_py())
            _same_as_python_encoder(fast)
            _same_last(fast.last(False), slow._last_py(False))
            obs, _, term, trunc, _ = fast.last()
            if term or trunc:
                action = None
            else:
                legal = np.flatnonzero(obs["action_mask"])
                action = int(legal[rng.randrange(len(legal))])
                if illegal_every and rng.randrange(illegal_every) == 0:
                    action = next(a for a in range(42) if a not in legal)
                if numpy_every and rng.randrange(numpy_every) == 0:
                    action = np.int64(action)
                decisions += 1
            slow._has_updated = False  # as fast's agent_iter() has just set it
            outcome = []
            for step in (fast.step, slow._step_py):
                try:
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        step(action)
                    outcome.append(None)
                except ValueError as err:
                    outcome.append(str(err))
            assert outcome[0] == outcome[1]
            _same_state(fast, slow)
            if outcome[0] is not None:
                break
    return decisions


@pytest.mark.parametrize("variant", sorted(w.VARIANTS))
@pytest.mark.parametrize("num_hands", [1, 3])
def test_compiled_last_and_step_equal_the_python_ones(variant, num_hands):
    assert _play({"num_hands": num_hands, "variant": variant}, seed=7 * num_hands) > 20 * num_hands


@pytest.mark.parametrize("kwargs", [
    {"obs_dtype": np.uint8, "num_hands": 2},
    {"reward_shaping": True, "num_hands": 2},          # shaping: the Python step runs
    {"illegal_action": "raise", "num_hands": 2},
])
def test_compiled_forms_agree_in_every_setting(kwargs):
    assert _play(kwargs, seed=3, illegal_every=25, numpy_every=5) > 50


def test_illegal_actions_end_or_raise_as_in_python():
    _play({"num_hands": 2}, seed=11, illegal_every=10)
    env = w.env(illegal_action="raise")
    env.reset(seed=0)
    before = env.game.state_dict()
    with pytest.raises(ValueError, match="legal"):
        env.step(41 if env.game.legal_actions()[0] != 41 else 0)
    assert env.game.state_dict() == before
    for bad in ("3", 2.0, True, -1, 42, 2**70):
        with pytest.raises(ValueError):
            env.step(bad)
    assert env.game.state_dict() == before


def test_before_reset_the_errors_are_pythons():
    env = w.env()
    with pytest.raises(RuntimeError, match="reset"):
        env.last()
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)


def test_a_subclass_with_its_own_observe_keeps_working():
    class Mine(aec_env.raw_env):
        def observe(self, agent):
            return {"mine": agent}

    env = Mine()
    env.reset(seed=1)
    assert env.last()[0] == {"mine": env.agent_selection}


def _same_reset(fast, slow):
    _same_state(fast, slow)
    # the same attributes, set in the same order (but last()'s cache of its dicts in C)
    assert [k for k in vars(fast) if k != "_recent_obs"] == list(vars(slow))
    assert fast.np_random.bit_generator.state == slow.np_random.bit_generator.state
    assert fast.game.seed == slow.game.seed and fast.game.deals == slow.game.deals
    assert fast._episode.over == slow._episode.over and fast._episode._hands == 0


@pytest.mark.parametrize("variant", sorted(w.VARIANTS))
@pytest.mark.parametrize("num_hands", [1, 4])
def test_compiled_reset_equals_the_python_one(variant, num_hands):
    """``reset()`` with no seed and no options (``_aec_start.c``) starts the match that
    ``raw_env._reset_py`` starts from the same generator, mid-episode or not, in each form
    of its arguments; any other reset runs in Python."""
    assert type(aec_env.raw_env.reset).__name__ == "method_descriptor"
    fast, slow = w.env(num_hands=num_hands, variant=variant), w.env(num_hands=num_hands,
                                                                      variant=variant)
    fast.reset(seed=17)
    slow.reset(seed=17)
    rng = random.Random(17)
    forms = [((), {}), ((None,), {}), ((), {"seed": None}), ((), {"options": None}),
             ((None, None), {}), ((None,), {"options": None}),
             ((), {"options": None, "seed": None})]
    for k in range(24):
        args, kwargs = forms[k % len(forms)]
        fast.reset(*args, **kwargs)
        slow._reset_py()
        _same_reset(fast, slow)
        for _ in range(k % 5):  # a few moves before the next reset
            obs, _, term, trunc, _ = fast.last()
            legal = np.flatnonzero(obs["action_mask"])
            action = None if term or trunc else int(legal[rng.randrange(len(legal))])
            slow._has_updated = fast._has_updated = True
            fast.step(action)
            slow._step_py(action)
    fast.reset(seed=5, options={"dealer": "player_1"})
    slow._reset_py(seed=5, options={"dealer": "player_1"})
    _same_reset(fast, slow)


def test_a_reset_with_bad_arguments_fails_as_in_python():
    env = w.env()
    env.reset(seed=1)
    for args, kwargs in [((None, None, None), {}), ((None,), {"seed": None}),
                         ((), {"sed": None}), ((), {"seed": -1}), (("x",), {}),
                         ((None, "deal"), {})]:
        errors = []
        for reset in (env.reset, env._reset_py):
            with pytest.raises((TypeError, ValueError)) as caught, warnings.catch_warnings():
                warnings.simplefilter("ignore")
                reset(*args, **kwargs)
            errors.append((type(caught.value), str(caught.value)))
        assert errors[0] == errors[1], (args, kwargs)

    class Mine(aec_env.raw_env):
        pass

    mine, ref = Mine(num_hands=2), w.env(num_hands=2)
    mine.reset(seed=4)
    ref.reset(seed=4)
    mine.reset()  # a subclass: the Python reset
    ref._reset_py()
    assert mine.game.state_dict() == ref.game.state_dict()


@pytest.mark.parametrize("obs_dtype", [np.float32, np.uint8])
def test_an_observation_still_held_is_never_written_again(obs_dtype):
    """``last()`` may write a dropped observation's arrays again (``_aec.c``'s
    ``obs_dict``); one that is still held (its dict, either array, a view of it) keeps what
    it said, an array with a weak reference on it is left alone, and a dropped dict that was
    altered is not handed out again."""
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
        seen.append(agent)
        if plan(k):
            obs, _, term, trunc, _ = env.last()
            legal = np.flatnonzero(obs["action_mask"])
            env.step(None if term or trunc else int(legal[rng.randrange(len(legal))]))
    try:
        seen.append(f"then {next(iterator)}")
    except StopIteration:
        seen.append("then stop")
    return seen


@pytest.mark.parametrize("max_iter, skip_at", [(2**63, None), (2**70, None), (5, None),
                                               (0, None), (-3, None), (2**63, 7)])
def test_agent_iter_agrees_with_its_python_reference(max_iter, skip_at):
    """The compiled ``agent_iter()`` iterator (``_aec.c``) yields what the generator
    ``_OrderedIterable._iter_py`` yields, stops where it stops (the episode's end, the
    ``max_iter``-th agent), raises what it raises (no ``step()`` between two agents), and is
    finished afterwards, as a generator is."""
    runs = []
    for compiled in (True, False):
        env = w.env(num_hands=2)
        env.reset(seed=11)
        iterable = env.agent_iter(max_iter)
        iterator = iter(iterable) if compiled else iterable._iter_py()
        assert (type(iterator).__name__ == "agent_iterator") == compiled
        runs.append(_iterate(env, iterator, lambda k: k != skip_at))
    assert runs[0] == runs[1]
    assert runs[0][-2] == ("stop" if skip_at is None else
                           "raised: call step() (or reset()) in each iteration of agent_iter()")
