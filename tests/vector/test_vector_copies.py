"""Gymnasium's copy convention: ``reset`` and ``step`` return fresh arrays by default
(``copy=True``, as ``SyncVectorEnv``), so what a replay buffer appends stays as it was;
``copy=False`` is the fast path that returns the env's own buffers, rewritten in place."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest

from widderkopf_env.vector import WidderkopfVectorEnv


def infos_arrays(info: dict) -> list:
    """Every array of a step's info (the final infos' too), in key order."""
    out = []
    for key in sorted(info):
        value = info[key]
        if isinstance(value, dict):
            out += infos_arrays(value)
        elif isinstance(value, np.ndarray) and value.dtype != object:
            out.append(value)
    return out


def appended(env, steps=45):
    """What a replay buffer keeps when it appends each step's arrays as returned, and the
    copies of them taken at the time."""
    obs, info = env.reset(seed=3)
    kept, copies = [(obs, info["action_mask"])], [(obs.copy(), info["action_mask"].copy())]
    rng = np.random.default_rng(1)
    for _ in range(steps):
        keys = rng.random(info["action_mask"].shape) * info["action_mask"]
        obs, reward, term, trunc, info = env.step(keys.argmax(1))
        arrays = (obs, reward, term, trunc, *infos_arrays(info))
        kept.append(arrays)
        copies.append(tuple(a.copy() for a in arrays))
    return kept, copies


@pytest.mark.parametrize("opponent", ["self", "random", "heuristic"])
def test_appended_arrays_stay_as_they_were_returned(opponent):
    kept, copies = appended(WidderkopfVectorEnv(6, opponent=opponent, num_hands=2))
    for got, want in zip(kept, copies, strict=True):
        for a, b in zip(got, want, strict=True):
            np.testing.assert_array_equal(a, b)
    assert len({id(arrays[0]) for arrays in kept}) == len(kept)  # a new array every time


def test_gymnasium_make_vec_copies_by_default_and_takes_copy_false():
    env = gymnasium.make_vec("Widderkopf-v0", num_envs=4, opponent="random")
    obs0, _ = env.reset(seed=1)
    obs1, *_ = env.step(env.action_masks().argmax(1))
    assert obs1 is not obs0 and env.copy is True
    fast = gymnasium.make_vec("Widderkopf-v0", num_envs=4, opponent="random", copy=False)
    assert fast.copy is False


@pytest.mark.parametrize("opponent", ["self", "random"])
def test_copy_false_returns_the_same_buffers_rewritten(opponent):
    env = WidderkopfVectorEnv(8, opponent=opponent, copy=False)
    obs, info = env.reset(seed=2)
    kept, mask = obs.copy(), info["action_mask"]
    obs2, _, _, _, info2 = env.step(mask.argmax(1))
    assert obs2 is obs and info2["action_mask"] is mask  # the same buffers, rewritten
    assert not np.array_equal(obs2, kept)


def test_the_ended_episodes_action_mask_is_zeros_and_read_only():
    """The final infos' action mask is one array of zeros per batch size, shared between
    steps, so it refuses writes instead of letting one step's change reach the next."""
    env = WidderkopfVectorEnv(4, opponent="self", num_hands=1)
    obs, info = env.reset(seed=5)
    masks = []
    rng = np.random.default_rng(0)
    while len(masks) < 2:
        keys = rng.random(info["action_mask"].shape) * info["action_mask"]
        obs, reward, term, trunc, info = env.step(keys.argmax(1))
        if term.any():
            masks.append(info["final_info"]["action_mask"])
    for mask in masks:
        assert mask.shape == (4, 42) and not mask.any() and not mask.flags.writeable
        with pytest.raises(ValueError, match="read-only"):
            mask[0, 0] = 1


@pytest.mark.parametrize("bad", [0, 1, None, "yes", np.bool_(True)])
def test_copy_must_be_a_bool(bad):
    with pytest.raises(TypeError, match="copy must be True or False"):
        WidderkopfVectorEnv(2, copy=bad)


def test_the_sb3_wrapper_returns_fresh_arrays_and_takes_no_copy_argument():
    pytest.importorskip("stable_baselines3")
    from widderkopf_env.vector.sb3 import WidderkopfSB3VecEnv

    env = WidderkopfSB3VecEnv(4, opponent="random")
    assert env.venv.copy is False  # copied once, by the wrapper
    obs = env.reset()
    kept = obs.copy()
    obs2, *_ = env.step(env.action_masks().argmax(1))
    assert obs2 is not obs and np.array_equal(obs, kept)
    with pytest.raises(TypeError, match="takes no copy argument"):
        WidderkopfSB3VecEnv(2, copy=False)
