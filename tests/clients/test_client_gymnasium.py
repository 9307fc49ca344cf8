"""Gymnasium's own vector envs over the single-agent env, with a masked torch sampler.

``gymnasium.make_vec`` (sync and async, both autoreset modes) must hand the learner a mask
with every observation in ``infos["action_mask"]``; a ``Categorical`` over masked logits
must never see an all-masked row, given the one rule the env documents for next-step
autoreset (the reset step ignores its action, so sample it from any mask).
"""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium import make_vec
from gymnasium.vector import AutoresetMode

from widderkopf_env.observation import OFFSETS

torch = pytest.importorskip("torch")

LEGAL_CARDS = slice(OFFSETS["legal_cards"][0], OFFSETS["legal_cards"][0] + 36)


def masked_sample(mask: np.ndarray, generator) -> np.ndarray:
    """One action per row from uniform logits with the illegal actions set to -inf."""
    logits = torch.zeros(mask.shape).masked_fill(~torch.as_tensor(mask, dtype=torch.bool),
                                                 -torch.inf)
    dist = torch.distributions.Categorical(logits=logits)  # raises on an all-masked row
    return torch.multinomial(dist.probs, 1, generator=generator).squeeze(1).numpy()


@pytest.mark.parametrize("mode", ["sync", "async"])
@pytest.mark.parametrize("autoreset", [AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP],
                         ids=["next-step", "same-step"])
@pytest.mark.parametrize("obs_dtype", [np.float32, np.uint8], ids=["float32", "uint8"])
def test_make_vec_masked_sampler(mode, autoreset, obs_dtype):
    n, steps = 2, 120
    envs = make_vec("Widderkopf-v0", num_envs=n, vectorization_mode=mode,
                    vector_kwargs={"autoreset_mode": autoreset}, opponent="random",
                    obs_dtype=obs_dtype)
    assert envs.single_observation_space.dtype == obs_dtype
    generator = torch.Generator().manual_seed(0)
    try:
        obs, infos = envs.reset(seed=0)
        resetting = np.zeros(n, dtype=bool)  # next-step autoreset: this step only resets
        episodes = 0
        for _ in range(steps):
            mask = infos["action_mask"]
            assert mask.shape == (n, 42) and infos["_action_mask"].all()
            # the mask belongs to the observation it came with
            assert obs.dtype == obs_dtype
            np.testing.assert_array_equal(mask[:, :36], obs[:, LEGAL_CARDS])
            np.testing.assert_array_equal(mask, np.stack(envs.call("action_masks")))
            # never all zero with a live decision; all zero only with a terminal observation
            np.testing.assert_array_equal(mask.any(axis=1), ~resetting)
            sample_from = np.where(resetting[:, None], 1, mask)
            actions = masked_sample(sample_from, generator)
            obs, _, terminated, truncated, infos = envs.step(actions)
            assert "illegal_action" not in infos and not truncated.any()
            episodes += int(terminated.sum())
            if autoreset == AutoresetMode.NEXT_STEP:
                resetting = terminated | truncated
            elif terminated.any():  # same-step: the new episode's mask is here already
                assert not infos["final_info"].get("illegal_action", np.zeros(n)).any()
                assert infos["final_obs"][terminated][0].shape == obs[0].shape
        assert episodes >= n
    finally:
        envs.close()


def test_make_vec_native_compact_threads():
    """``make_vec``'s default, the vector entry point, takes ``obs_dtype`` and
    ``num_threads`` too."""
    envs = make_vec("Widderkopf-v0", num_envs=4, opponent="random", obs_dtype=np.uint8,
                    num_threads=2)
    obs, infos = envs.reset(seed=1)
    assert obs.dtype == np.uint8 and envs.observation_space.contains(obs)
    obs, *_ = envs.step(infos["action_mask"].argmax(1))
    assert obs.dtype == np.uint8 and envs.unwrapped.num_threads == 2
    envs.close()
