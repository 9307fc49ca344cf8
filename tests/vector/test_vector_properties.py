"""Property test of the vector env (hypothesis): random batches of random actions, random
failing opponents and random reset seeds. After any error the env's whole state is what
it was before the call (games, rewards, deals, seats, masks, generators), and a call that
works gives what an env that never saw the errors gives."""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_vector_guarantees import venv_state

from widderkopf_env import IllegalActionError
from widderkopf_env.gym_env import OpponentError  # the single env's error
from widderkopf_env.vector import WidderkopfVectorEnv

ERRORS = (ValueError, TypeError, OpponentError)  # IllegalActionError is a ValueError


class Flaky:
    """A batched policy opponent that fails on chosen calls, in a chosen way."""

    def __init__(self):
        self.fail = None  # None, "illegal", "raise", "shape", "dtype", "range"

    def __call__(self, obs, mask):
        acts = mask.argmax(1)
        if self.fail == "illegal":
            acts[-1] = int((mask[-1] == 0).argmax())
        elif self.fail == "raise":
            raise ZeroDivisionError("a bug in the opponent")
        elif self.fail == "shape":
            acts = np.concatenate([acts, acts])
        elif self.fail == "dtype":
            acts = acts.astype(float)
        elif self.fail == "range":
            acts[0] = 42
        return acts


class FlakyAgent:
    """An agent opponent (one game at a time) that fails on chosen moves."""

    def __init__(self):
        self.fail = None

    def act(self, view):
        if self.fail == "raise":
            raise LookupError("a bug in the agent")
        if self.fail == "illegal":
            return next(a for a in range(42) if a not in view.legal_actions())
        if self.fail in ("shape", "dtype", "range"):
            return "QC" if self.fail == "dtype" else 10**30
        return view.legal_actions()[-1]


seeds = st.none() | st.integers(0, 2**40) | st.sampled_from(
    [-1, 10**5000, 2**4097, "7", 1.0, np.int64(3), [1, 2], [0, 1, 2, 3, 4, 5, 6, 7]])
action_kind = st.sampled_from(["legal", "legal", "legal", "illegal", "range", "float",
                               "shape"])
fail_kind = st.sampled_from([None, None, None, "illegal", "raise", "shape", "dtype", "range"])
call = st.tuples(st.sampled_from(["step", "step", "step", "reset"]), action_kind, fail_kind,
                 seeds, st.integers(0, 2**32 - 1))


def make(opponent_kind, n, num_hands, illegal_action, seat):
    opponent = Flaky() if opponent_kind == "policy" else FlakyAgent()
    env = WidderkopfVectorEnv(n, opponent=opponent, seat=seat, num_hands=num_hands,
                              illegal_action=illegal_action)
    return env, opponent


def actions_for(kind, mask, rng):
    n = len(mask)
    acts = (rng.random(mask.shape) * mask).argmax(1)
    row = int(rng.integers(n))
    if kind == "illegal":
        acts[row] = int((mask[row] == 0).argmax())
    elif kind == "range":
        acts[row] = rng.choice([-1, 42, 2**40])
    elif kind == "float":
        return acts.astype(float)
    elif kind == "shape":
        return acts[:-1]
    return acts


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(opponent_kind=st.sampled_from(["policy", "agent"]), n=st.integers(1, 5),
       num_hands=st.integers(1, 2), illegal_action=st.sampled_from(["raise", "terminate"]),
       seat=st.sampled_from([0, 1, "random"]), first_seed=st.integers(0, 2**32),
       calls=st.lists(call, min_size=1, max_size=40))
def test_after_any_error_the_state_is_unchanged(opponent_kind, n, num_hands, illegal_action,
                                                seat, first_seed, calls):
    env, opponent = make(opponent_kind, n, num_hands, illegal_action, seat)
    twin, twin_opponent = make(opponent_kind, n, num_hands, illegal_action, seat)
    obs, info = env.reset(seed=first_seed)
    twin.reset(seed=first_seed)
    errors = 0
    for what, kind, fail, seed, draw in calls:
        rng = np.random.default_rng(draw)
        opponent.fail = fail
        before = venv_state(env)
        try:
            if what == "reset":
                out = env.reset(seed=seed)
            else:
                actions = actions_for(kind, env.action_masks(), rng)
                out = env.step(actions)
        except ERRORS as err:
            errors += 1
            assert venv_state(env) == before, f"{what} changed the state before {err!r}"
            if kind == "illegal" and illegal_action == "raise" and what == "step":
                assert isinstance(err, IllegalActionError)
            continue
        # the call worked: the twin (which never saw a failing call) does the same
        twin_opponent.fail = None
        ref = twin.reset(seed=seed) if what == "reset" else twin.step(actions)
        for x, y in zip(out[:-1], ref[:-1], strict=True):
            np.testing.assert_array_equal(x, y)
        assert venv_state(env) == venv_state(twin)
